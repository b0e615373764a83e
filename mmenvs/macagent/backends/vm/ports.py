"""TCP ports for guests, safe across processes.

A guest on the host network listens on loopback ports the backend picks. Two env processes (``mmenvs
eval --workers N``) must never pick the same one, and a port some other program uses must be skipped.
A port is *held* by an exclusive ``flock`` on ``<lock_dir>/<port>.lock`` (released by the kernel when the
holding process dies, so a crashed run frees its ports) and is only handed out when a bind to
``127.0.0.1:<port>`` succeeds as well (nobody listens there now).
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

#: The range ports are taken from (above the usual ephemeral range's start on Linux is 32768: stay below it).
DEFAULT_RANGE = (21000, 29000)


def default_lock_dir() -> Path:
    """``$MMENVS_VM_LOCK_DIR`` or ``<tmp>/mmenvs-vm-ports``: shared by every process of this user."""
    return Path(os.environ.get("MMENVS_VM_LOCK_DIR") or Path(tempfile.gettempdir()) / "mmenvs-vm-ports")


class PortsExhausted(RuntimeError):
    """No free port was found in the range."""


@dataclass
class PortLease:
    """Ports held by this process until :meth:`release` (or the process ends)."""

    ports: list[int]
    _fds: list[int] = field(default_factory=list, repr=False)

    def release(self) -> None:
        """Give the ports back (idempotent)."""
        while self._fds:
            fd = self._fds.pop()
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


def _bind_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def allocate(count: int, *, lock_dir: Path | None = None, port_range: tuple[int, int] = DEFAULT_RANGE,
             start: int | None = None) -> PortLease:
    """Hold ``count`` free loopback ports. ``start`` (default: derived from the pid) spreads processes
    over the range so they rarely contend for the same lock files."""
    lo, hi = port_range
    if not (0 < lo < hi <= 65535):
        raise ValueError(f"port_range must be (low, high) within 1..65535, got {port_range!r}")
    folder = Path(lock_dir) if lock_dir is not None else default_lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    span = hi - lo
    first = lo + ((start if start is not None else os.getpid() * 7919) % span)
    lease = PortLease([])
    try:
        for offset in range(span):
            if len(lease.ports) == count:
                break
            port = lo + (first - lo + offset) % span
            fd = os.open(folder / f"{port}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    continue  # another process holds it
                raise
            if not _bind_free(port):
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
                continue
            lease.ports.append(port)
            lease._fds.append(fd)
        if len(lease.ports) < count:
            raise PortsExhausted(f"only {len(lease.ports)} of {count} free loopback ports in {lo}..{hi - 1} "
                                 f"(lock files in {folder})")
    except BaseException:
        lease.release()
        raise
    return lease
