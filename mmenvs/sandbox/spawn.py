"""Starting sandbox processes from a thread that lives as long as the process.

bubblewrap's ``--die-with-parent`` (``prctl(PR_SET_PDEATHSIG, SIGKILL)``) ties a sandbox to the
*thread* that forked it, not to the process: a worker started from a short-lived thread (an agent
that calls ``env.step`` from a thread per request) is killed the moment that thread ends, and its
next run found it gone with a SIGKILL, which looked like the memory limit. :func:`popen` forks
every sandbox from the main thread or from one spawner thread that lives until the process exits,
so a sandbox dies with the process, as ``--die-with-parent`` means it to.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from typing import Any, Callable

_lock = threading.Lock()
_requests: "queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue]] | None" = None
_owner_pid = -1  # the process the spawner thread runs in (a forked child starts its own)


def popen(*args: Any, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen(*args, **kwargs)``, forked from a thread that lives as long as the process."""
    if threading.current_thread() is threading.main_thread():
        return subprocess.Popen(*args, **kwargs)
    return _on_spawner(lambda: subprocess.Popen(*args, **kwargs))


def _on_spawner(make: Callable[[], Any]) -> Any:
    """Run ``make()`` on the spawner thread; return its result or raise its exception here."""
    reply: queue.SimpleQueue = queue.SimpleQueue()
    _spawner_queue().put((make, reply))
    ok, value = reply.get()
    if ok:
        return value
    raise value


def _spawner_queue() -> "queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue]]":
    global _requests, _owner_pid
    with _lock:
        if _requests is None or _owner_pid != os.getpid():
            _requests, _owner_pid = queue.SimpleQueue(), os.getpid()
            threading.Thread(target=_serve, args=(_requests,), name="mmenvs-sandbox-spawner", daemon=True).start()
        return _requests


def _serve(requests: "queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue]]") -> None:
    while True:
        make, reply = requests.get()
        try:
            reply.put((True, make()))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, who raises it
            reply.put((False, exc))
