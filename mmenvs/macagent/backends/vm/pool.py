"""A warm pool of guests: ``size`` guests boot ahead on a background thread, each episode takes a
fresh one (:meth:`GuestPool.acquire`) and gives it back to be destroyed (:meth:`GuestPool.discard`),
so the next reset does not wait for a boot. ``size=0``: every acquire boots a guest then and there.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from .config import GuestConfig
from .guest import Guest, GuestStartError


class GuestPool:
    def __init__(self, config: GuestConfig, client: Any, *, size: int = 1, lock_dir: Path | None = None,
                 start_attempts: int = 2, prepare: Callable[[Guest], None] | None = None) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"pool_size must be an integer >= 0, got {size!r}")
        self.config = config
        self.client = client
        self.size = size
        self.lock_dir = lock_dir
        self.start_attempts = start_attempts
        self.prepare = prepare  # run on each guest once it is ready (on the boot thread for warm guests)
        self.session = secrets.token_hex(4)
        self._ready: deque[Guest] = deque()
        self._in_use: set[Guest] = set()  # handed out and not discarded yet: close() destroys them too
        self._booting = 0
        self._errors: list[str] = []
        self._lock = threading.Condition()
        self._closed = False
        self._threads: list[threading.Thread] = []
        self.hits = self.misses = 0
        self._fill()

    # ------------------------------------------------------------------ background boots
    def _fill(self) -> None:
        with self._lock:
            while not self._closed and len(self._ready) + self._booting < self.size:
                self._booting += 1
                thread = threading.Thread(target=self._boot_one, name="mmenvs-vm-boot", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._threads = [t for t in self._threads if t.is_alive()]

    def _boot_one(self) -> None:
        guest = None
        try:
            guest = self._boot()
        except Exception as exc:  # noqa: BLE001 - reported by the next acquire
            with self._lock:
                self._errors.append(f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._booting -= 1
            if guest is not None:
                if self._closed:
                    guest.destroy()
                else:
                    self._ready.append(guest)
            self._lock.notify_all()

    def _boot(self) -> Guest:
        last: Exception | None = None
        for _ in range(self.start_attempts):
            guest = Guest(self.config, self.client, session=self.session, lock_dir=self.lock_dir)
            try:
                guest.start().wait_ready()
                if self.prepare is not None:
                    self.prepare(guest)
                return guest
            except Exception as exc:  # noqa: BLE001 - retried once with a new container
                guest.destroy()
                last = exc
        raise last if last is not None else GuestStartError("no guest started")

    # ------------------------------------------------------------------ episodes
    def acquire(self, timeout: float | None = None) -> Guest:
        """A ready, unused guest: from the pool (a hit), or booted now (a miss, or ``size=0``)."""
        if self._closed:
            raise RuntimeError("the guest pool was closed")
        deadline = time.monotonic() + (timeout if timeout is not None else self.config.boot_timeout * self.start_attempts + 30)
        with self._lock:
            while self.size and not self._ready and self._booting:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._lock.wait(min(left, 1.0))
            guest = None
            while self._ready:
                candidate = self._ready.popleft()
                if candidate.running():
                    guest = candidate
                    break
                candidate.destroy()  # died while waiting in the pool
            errors, self._errors = self._errors, []
        if guest is not None:
            self.hits += 1
            self._fill()
            guest.used = True
            with self._lock:
                self._in_use.add(guest)
            return guest
        self.misses += 1
        try:
            guest = self._boot()
        except Exception as exc:
            detail = f" (earlier background boots: {'; '.join(errors[-2:])})" if errors else ""
            raise GuestStartError(f"{exc}{detail}") from exc
        finally:
            self._fill()
        guest.used = True
        with self._lock:
            self._in_use.add(guest)
        return guest

    def discard(self, guest: Guest | None) -> None:
        """An episode is over: its guest is destroyed (never reused) and the pool refilled."""
        if guest is not None:
            with self._lock:
                self._in_use.discard(guest)
            guest.destroy()
        self._fill()

    @property
    def ready_count(self) -> int:
        with self._lock:
            return len(self._ready)

    def wait_warm(self, timeout: float) -> bool:
        """Wait until ``size`` guests are ready (for benchmarks and tests); False at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            self._fill()  # boots that failed are started again
            with self._lock:
                if len(self._ready) >= self.size:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 1.0))

    def close(self) -> None:
        """Destroy the ready guests and wait for boots in flight (they destroy theirs). Idempotent."""
        with self._lock:
            self._closed = True
            ready, self._ready = list(self._ready), deque()
            ready += list(self._in_use)
            self._in_use.clear()
            threads = list(self._threads)
        for guest in ready:
            guest.destroy()
        for thread in threads:
            thread.join(timeout=self.config.boot_timeout * self.start_attempts + 30)
