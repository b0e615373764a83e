"""The RL-throughput bench rows compute what they say (no timing is asserted)."""

from __future__ import annotations

from mmenvs.benchmarks.harness import HARNESS_WORKLOADS
from mmenvs.wrappers import bench


def test_the_rows_run_with_the_env_they_measure() -> None:
    assert HARNESS_WORKLOADS["mmenvs.wrappers.bench"] == "MacAgent-v0"


def test_random_menu_steps_are_masked_and_counted() -> None:
    env = bench._mac_menu_env()
    try:
        samples, cpu = bench._random_menu_steps(env, 12)
        assert len(samples) == 12 and all(s > 0 for s in samples) and cpu > 0
        assert env.unwrapped.obs_size == (128, 128)
    finally:
        env.close()


def test_mmts_reset_rows_use_the_disk_cache_they_name(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bench, "MMTS_SCENARIOS", 2)
    cached = bench._mmts_reset_ms(str(tmp_path))
    assert len(cached) == 2 and len(list(tmp_path.rglob("*.png"))) >= 2  # the first pass filled it
