"""mmenvs.core.offload: calls in a short-lived child process."""

from __future__ import annotations

import os
import sys

import pytest

from mmenvs.core.offload import in_child_process, run_in_child


def _pid_and_modules(name: str) -> tuple[int, bool]:
    __import__(name)
    return os.getpid(), name in sys.modules


def test_the_call_runs_in_another_process_and_its_imports_stay_there() -> None:
    name = "xml.dom.minidom"
    sys.modules.pop(name, None)
    pid, imported_there = run_in_child(_pid_and_modules, name)
    assert pid != os.getpid() and imported_there
    assert name not in sys.modules


class Custom(ValueError):
    pass


@in_child_process
def _fail(kind: str) -> None:
    if kind == "custom":
        raise Custom("bad field 'x'")
    if kind == "exit":
        os._exit(3)
    return None


def test_exceptions_come_back_with_their_type_and_a_dead_child_is_reported() -> None:
    with pytest.raises(Custom, match="bad field 'x'"):
        _fail("custom")
    with pytest.raises(ChildProcessError, match="exit code 3"):
        _fail("exit")
    assert _fail("ok") is None


def test_results_are_plain_data_and_large_ones_arrive_whole() -> None:
    data = bytes(range(256)) * 40_000  # 10 MB through the pipe
    assert run_in_child(lambda b: b[::-1], data) == data[::-1]
    assert _fail.in_process("ok") is None  # the undecorated function stays reachable


def test_a_call_that_hangs_is_killed_at_the_timeout() -> None:
    import time

    with pytest.raises(TimeoutError, match="within 1 s"):
        run_in_child(time.sleep, 30, timeout=1.0)
