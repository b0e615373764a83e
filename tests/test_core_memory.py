"""mmenvs.core.memory: the allocator tuning envs apply."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mmenvs.core import memory


@pytest.mark.skipif(memory._LIBC is None, reason="no glibc: tuning is a no-op there")
def test_tuning_applies_once_and_can_be_switched_off() -> None:
    code = ("from mmenvs.core import memory\n"
            "first = memory.tune_allocator(); second = memory.tune_allocator(); memory.release_free_memory()\n"
            "print(first, second)")
    on = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert on.stdout.split() == ["True", "True"], on.stderr
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"MMENVS_NO_MALLOC_TUNING": "1", "PATH": "/usr/bin:/bin"})
    assert off.stdout.split() == ["False", "False"], off.stderr
