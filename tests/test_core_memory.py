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


def _address(a) -> int:
    return a.__array_interface__["data"][0]


def test_recycled_arrays_come_back_only_when_nobody_holds_them() -> None:
    from mmenvs.core.memory import RecycledArrays

    pool = RecycledArrays((8, 8, 3))
    first = pool.take()
    address = _address(first)
    del first
    again = pool.take()
    assert _address(again) == address  # dropped by the caller: reused
    held = pool.take()
    assert _address(held) != _address(again)  # `again` is still held
    view = held[:2]
    del held
    assert _address(pool.take()) not in (address, _address(view.base))  # a view keeps its base busy
    kept = {"image": pool.take()}
    assert all(_address(pool.take()) != _address(kept["image"]) for _ in range(3))


def test_an_observation_kept_by_the_caller_never_changes() -> None:
    import numpy as np

    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv(store_screenshots=False)
    try:
        obs, _ = env.reset(options={"task_id": "finder-folder-and-move-v0"})
        kept = [(obs["image"], obs["image"].copy())]
        addresses = set()
        for i in range(6):
            obs, *_ = env.step({"action_type": "CLICK", "x": 265, "y": (215, 237)[i % 2]})
            if i % 2:
                kept.append((obs["image"], obs["image"].copy()))
            addresses.add(_address(obs["image"]))
        assert all(np.array_equal(image, pixels) for image, pixels in kept)
        assert len(addresses) < 6  # the images nobody kept were handed out again
    finally:
        env.close()
