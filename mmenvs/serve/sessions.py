"""Sessions of ``mmenvs serve``: one per WebSocket connection, HTTP session id or MCP session, each
with its env in a worker process (``workers.py``). The manager enforces the session limit and reaps
sessions idle for longer than the idle timeout (a client that vanished, or a connection that never
speaks), so sessions never leak until the server runs out of room.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from mmenvs.serve.workers import SessionWorker, WorkerDied


class CapacityError(RuntimeError):
    """The server holds ``max_sessions`` sessions already."""


class UnknownSession(KeyError):
    """No open session has that id (never opened, closed, or reaped after its idle timeout)."""


@dataclass
class Session:
    """One client's env. ``worker`` starts on the first command, so a connection that never speaks
    costs no process; ``on_close`` tells the transport (e.g. closes the WebSocket) when it is reaped."""

    id: str
    kind: str
    last_activity: float = field(default_factory=time.monotonic)
    busy: int = 0
    worker: SessionWorker | None = None
    on_close: Callable[[str], Awaitable[None]] | None = None
    closed: bool = False
    dead: str | None = None  # why the worker is gone, once it died


@dataclass
class ServeConfig:
    """What ``mmenvs serve`` was started with."""

    env_id: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    max_sessions: int = 64
    idle_timeout: float = 300.0
    image_format: str = "png"
    step_timeout: float = 600.0
    allow_oracle: bool = False
    token: str | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    mcp: bool = False
    host: str = "127.0.0.1"  # where the server listens (the MCP endpoint's DNS-rebinding check)


class SessionManager:
    """Opens, drives, reaps and closes sessions (all from the server's event loop)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.sessions: dict[str, Session] = {}
        # Worker pipes block: each command waits in a thread, one per busy session at most.
        self._executor = ThreadPoolExecutor(max_workers=config.max_sessions + 4, thread_name_prefix="mmenvs-session")
        self._reaper: asyncio.Task | None = None
        self.reaped = 0

    def open(self, kind: str, on_close: Callable[[str], Awaitable[None]] | None = None) -> Session:
        """A new session, or ``CapacityError`` when the server is full."""
        if len(self.sessions) >= self.config.max_sessions:
            raise CapacityError(f"the server holds its maximum of {self.config.max_sessions} sessions; "
                                f"close one or retry later (idle sessions are reaped after "
                                f"{self.config.idle_timeout:g} s)")
        session = Session(uuid.uuid4().hex, kind, on_close=on_close)
        self.sessions[session.id] = session
        return session

    def get(self, session_id: Any) -> Session:
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            raise UnknownSession(f"no open session {session_id!r} (never opened, closed, or reaped after "
                                 f"{self.config.idle_timeout:g} s idle); reset without a session_id to open one")
        return session

    async def call(self, session: Session, command: str, *arguments: Any) -> Any:
        """Run ``command`` in the session's worker (started on first use)."""
        if session.dead:
            raise WorkerDied(session.dead)
        session.busy += 1
        session.last_activity = time.monotonic()
        loop = asyncio.get_running_loop()
        try:
            if session.worker is None:
                config = self.config
                session.worker = await loop.run_in_executor(
                    self._executor, SessionWorker, config.env_id, config.env_kwargs, config.image_format,
                    config.allow_oracle)
                if session.closed:  # reaped or closed while the worker started
                    await loop.run_in_executor(self._executor, session.worker.close)
                    raise WorkerDied("the session was closed")
            worker = session.worker
            return await loop.run_in_executor(
                self._executor, lambda: worker.call(command, *arguments, timeout=self.config.step_timeout))
        except WorkerDied as exc:
            session.dead = str(exc)
            raise
        finally:
            session.busy -= 1
            session.last_activity = time.monotonic()

    async def close(self, session: Session, reason: str = "closed") -> None:
        """End a session: its worker exits (killed if it must be) and the transport is told."""
        if session.closed:
            return
        session.closed = True
        self.sessions.pop(session.id, None)
        if session.worker is not None:
            await asyncio.get_running_loop().run_in_executor(self._executor, session.worker.close)
        if session.on_close is not None:
            try:
                await session.on_close(reason)
            except Exception:
                pass

    async def reap_idle(self) -> int:
        """Close every session idle (no command running) for longer than the idle timeout."""
        now = time.monotonic()
        stale = [s for s in list(self.sessions.values())
                 if s.busy == 0 and now - s.last_activity > self.config.idle_timeout]
        for session in stale:
            await self.close(session, f"idle for more than {self.config.idle_timeout:g} s")
        self.reaped += len(stale)
        return len(stale)

    async def _reap_forever(self) -> None:
        interval = max(0.05, min(5.0, self.config.idle_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            await self.reap_idle()

    def start(self) -> None:
        self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def shutdown(self) -> None:
        """Close every session and stop the reaper (server shutdown)."""
        if self._reaper is not None:
            self._reaper.cancel()
        await asyncio.gather(*(self.close(s, "the server is shutting down") for s in list(self.sessions.values())),
                             return_exceptions=True)
        self._executor.shutdown(wait=False, cancel_futures=True)
