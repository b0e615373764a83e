"""Run a memory-hungry call in a short-lived child process.

Some work needs a large library for a moment: reading a PDF (pypdf pulls in cryptography and
fontTools, ~20 MB), writing or reading Office files (python-docx, python-pptx, openpyxl and lxml,
~15 MB each). Imported in the env process, that memory stays for the process's life, and an env
that meets every document kind in a long training run would carry all of it. ``in_child_process``
runs the function in a forked child instead: the child inherits the arguments (nothing is pickled
on the way in), imports what it needs, sends the result back through a pipe and exits, taking the
libraries' memory with it. Cost: a fork and the library's import, ~0.1-0.3 s per call.

Exceptions raised in the child are raised again in the caller (as the same type when it can be
pickled; as ``RuntimeError`` naming the type otherwise). Only for functions whose arguments and
result are plain data, and which touch no parent-side resources (sockets, sandboxes, GUI state).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import pickle
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_TIMEOUT = 120.0


def _limit_memory_growth(extra_bytes: int) -> None:
    """RLIMIT_AS of this (forked) process: what it maps now plus ``extra_bytes``; past it allocations fail
    with MemoryError instead of growing the host's memory."""
    import resource

    with open("/proc/self/statm") as fh:
        mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = mapped + int(extra_bytes)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _child_main(conn: Any, fn: Callable[..., Any], args: tuple, kwargs: dict, memory_bytes: int | None = None) -> None:
    try:
        if memory_bytes:
            _limit_memory_growth(memory_bytes)
        outcome: tuple[bool, Any] = (True, fn(*args, **kwargs))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
        outcome = (False, exc)
    try:
        payload = pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
        what = "result" if outcome[0] else f"{type(outcome[1]).__name__}: {outcome[1]}"
        payload = pickle.dumps((False, RuntimeError(f"{fn.__name__} in a child process: cannot send back {what} ({exc})")))
    conn.send_bytes(payload)
    conn.close()
    os._exit(0)  # no atexit handlers, no flushing of the parent's inherited buffers


def run_in_child(fn: Callable[..., Any], /, *args: Any, timeout: float = DEFAULT_TIMEOUT, memory_bytes: int | None = None,
                 **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` computed in a forked child process; its result (or exception) here.

    The child is killed after ``timeout`` seconds (``TimeoutError``); with ``memory_bytes`` it may map at
    most that much beyond what it inherited (RLIMIT_AS; a ``MemoryError`` past it)."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(send, fn, args, kwargs, memory_bytes), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(timeout):
            child.kill()
            raise TimeoutError(f"{fn.__name__} did not finish within {timeout:.0f} s in its child process")
        try:
            ok, value = pickle.loads(receive.recv_bytes())
        except EOFError:
            child.join(5)
            raise ChildProcessError(f"{fn.__name__}: the child process died (exit code {child.exitcode})") from None
    finally:
        receive.close()
        child.join(5)
        if child.is_alive():
            child.kill()
            child.join()
    if ok:
        return value
    raise value


def in_child_process(fn: F) -> F:
    """Decorator: every call of ``fn`` runs in a short-lived child process (see the module docstring)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        return run_in_child(fn, *args, **kwargs)

    run.in_process = fn  # type: ignore[attr-defined]  # the plain function, for callers already isolated
    return run  # type: ignore[return-value]
