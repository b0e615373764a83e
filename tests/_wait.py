"""Waiting for asynchronous state in tests: the one way a test synchronises with something that
happens on its own time (a process starting or exiting, a tmux pane drawing, a thread blocking).

A test never sleeps for a fixed moment and hopes: on a loaded machine the moment comes late. It
polls for the state it is about to assert, with a deadline generous enough for a busy machine,
and fails with a message naming what it waited for and what it saw last. Import it as
``from _wait import wait_until`` (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import os
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


class NewProcesses:
    """The processes below this test process that appeared after this census was taken.

    In a full run, objects of earlier tests (a sandbox awaiting collection, a reaper thread) may
    still own processes, and those come and go on their own time; counting every descendant made
    the fork-bomb tests flaky. So the census first collects garbage and waits up to ``settle``
    seconds for the earlier processes to go, then remembers those left, and ``count`` leaves out
    each of them and everything below it. What the test starts afterwards is counted exactly.
    """

    def __init__(self, settle: float = 2.0) -> None:
        import gc

        gc.collect()
        try:
            wait_until(lambda: self._descendants(), check=lambda procs: not procs,
                       what="no processes below this test", timeout=settle)
        except AssertionError:
            pass
        self._earlier = {self._key(p) for p in self._descendants()}

    @staticmethod
    def _descendants() -> list:
        import psutil

        try:
            return psutil.Process().children(recursive=True)
        except psutil.Error:
            return []

    @staticmethod
    def _key(proc) -> tuple:
        import psutil

        try:
            return proc.pid, proc.create_time()
        except psutil.Error:
            return proc.pid, None

    def _is_earlier(self, proc) -> bool:
        import psutil

        me = os.getpid()
        try:
            while proc is not None and proc.pid != me:
                if self._key(proc) in self._earlier:
                    return True
                proc = proc.parent()
        except psutil.Error:
            return True  # gone while we looked: not one of ours to count
        return False

    def count(self) -> int:
        """How many processes below this test appeared since the census (other work on the machine,
        and earlier tests' processes and their children, do not count)."""
        return sum(1 for p in self._descendants() if not self._is_earlier(p))

    def at_most(self, limit: int) -> int:
        """The count once it is at most ``limit`` (killed sandboxes are reaped in background
        threads); fails if it stays above."""
        return wait_until(self.count, check=lambda n: n <= limit,
                          what=f"at most {limit} new processes below this test")
