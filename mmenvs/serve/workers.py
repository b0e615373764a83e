"""Session workers: each session's env lives in its own process, so a crash (or a kill) costs that
session only. Workers are forked from a forkserver that imported mmenvs once (a clean process started
for the purpose, never the server with its threads), so a session starts in milliseconds and shares
the imported code pages.

The worker answers one command at a time over a pipe: ``(command, *arguments)`` in, ``("ok", value)``
or ``("error", message)`` out. Observations are encoded (images to PNG/JPEG) in the worker, so image
encoding runs in parallel across sessions, not in the server's event loop.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import traceback
from multiprocessing.connection import Connection
from typing import Any

#: Seconds a worker gets to close its env before it is killed.
CLOSE_GRACE = 5.0

_CONTEXT_LOCK = threading.Lock()
_CONTEXT: Any = None


class WorkerDied(RuntimeError):
    """The session's worker process exited (killed, or crashed) before answering."""


class WorkerError(RuntimeError):
    """The env raised while handling a command (the worker itself is still alive)."""


def _context() -> Any:
    global _CONTEXT
    with _CONTEXT_LOCK:
        if _CONTEXT is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["mmenvs.serve.worker_main"])
            _CONTEXT = context
        return _CONTEXT


class SessionWorker:
    """The server's handle on one worker process (thread-safe: one command at a time)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], image_format: str, allow_oracle: bool) -> None:
        from mmenvs.serve.worker_main import worker_main

        context = _context()
        self._conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=worker_main, args=(child, env_id, env_kwargs, image_format, allow_oracle),
                                       daemon=True, name=f"mmenvs-serve-{env_id}")
        self.process.start()
        child.close()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def call(self, command: str, *arguments: Any, timeout: float | None = None) -> Any:
        """Send a command and wait for its answer; ``WorkerDied`` if the process is gone,
        ``WorkerError`` if the env raised, ``TimeoutError`` after ``timeout`` seconds."""
        with self._lock:
            if self._closed:
                raise WorkerDied("this session's worker was closed")
            try:
                self._conn.send((command, *arguments))
                if not self._conn.poll(timeout):
                    raise TimeoutError(f"the env did not answer {command!r} within {timeout:g} s")
                status, value = self._conn.recv()
            except (EOFError, BrokenPipeError, ConnectionResetError, OSError) as exc:
                code = self.process.exitcode if not self.process.is_alive() else None
                self.process.join(0.5)
                code = self.process.exitcode if code is None else code
                how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                raise WorkerDied(f"the session's env worker (pid {self.pid}) died ({how}) while handling "
                                 f"{command!r}; the session is over, open a new one") from exc
        if status == "error":
            raise WorkerError(value)
        return value

    def close(self) -> None:
        """Ask the worker to close its env and exit; kill it if it does not within ``CLOSE_GRACE``."""
        if self._closed:
            return
        acquired = self._lock.acquire(timeout=0.1)  # a command stuck in the env must not block the close
        try:
            self._closed = True
            if acquired and self.process.is_alive():
                try:
                    self._conn.send(("close",))
                except OSError:
                    pass
            self.process.join(CLOSE_GRACE if acquired else 0)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(CLOSE_GRACE)
            self._conn.close()
            self.process.close()
        finally:
            if acquired:
                self._lock.release()


def describe_env(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The env's spaces (JSON), tool availability and one-off facts, from a short-lived worker (it also
    proves at start-up that ``gym.make(env_id, **env_kwargs)`` works)."""
    worker = SessionWorker(env_id, env_kwargs, "png", False)
    try:
        return worker.call("describe", timeout=300)
    finally:
        worker.close()


def shutdown_forkserver() -> None:
    """Stop the forkserver process (at server shutdown, so nothing outlives the server)."""
    try:
        from multiprocessing import forkserver

        server = forkserver._forkserver  # type: ignore[attr-defined]
        pid = getattr(server, "_forkserver_pid", None)
        if pid:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
            server._forkserver_pid = None
            server._forkserver_address = None
            if getattr(server, "_forkserver_alive_fd", None) is not None:
                os.close(server._forkserver_alive_fd)
                server._forkserver_alive_fd = None
    except (OSError, AttributeError, ChildProcessError):
        traceback.print_exc()
