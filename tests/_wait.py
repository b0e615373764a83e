"""Waiting for asynchronous state in tests: the one way a test synchronises with something that
happens on its own time (a process starting or exiting, a tmux pane drawing, a thread blocking).

A test never sleeps for a fixed moment and hopes: on a loaded machine the moment comes late. It
polls for the state it is about to assert, with a deadline generous enough for a busy machine,
and fails with a message naming what it waited for and what it saw last. Import it as
``from _wait import wait_until`` (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")

# Long enough for a machine with every core busy; a test that passes waits only as long as it must.
DEFAULT_TIMEOUT = 30.0


def wait_until(probe: Callable[[], T], *, what: str, check: Callable[[T], object] = bool,
               timeout: float = DEFAULT_TIMEOUT, interval: float = 0.02) -> T:
    """Call ``probe`` until ``check(value)`` holds (by default: until the value is truthy); return the value.

    Raises AssertionError after ``timeout`` seconds, naming ``what`` was awaited and the last value
    seen, so a failure says which state never came (not just "False is not true").
    """
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if check(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; last seen: {value!r}")
        time.sleep(interval)


def is_running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not exited (a zombie has exited: it only awaits reaping)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def descendant_count() -> int:
    """How many processes descend from this test process (other work on the machine does not count)."""
    import psutil

    try:
        return len(psutil.Process().children(recursive=True))
    except psutil.Error:
        return 0


def descendants_at_most(limit: int) -> int:
    """This process's descendant count once it is at most ``limit`` (killed sandboxes are reaped in
    background threads); fails if it stays above."""
    return wait_until(descendant_count, check=lambda n: n <= limit, what=f"at most {limit} processes below this test")


def descendant_baseline(settle: float = 2.0) -> int:
    """Processes below this test before it starts its own: 0 once earlier tests' sandboxes are reaped,
    else (after ``settle`` seconds) as many as are left. A baseline to count from, not an assertion."""
    try:
        return wait_until(descendant_count, check=lambda n: n == 0, what="no processes below this test",
                          timeout=settle)
    except AssertionError:
        return descendant_count()
