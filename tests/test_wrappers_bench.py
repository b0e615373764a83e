"""The RL-throughput bench rows compute what they say (no timing is asserted)."""

from __future__ import annotations

import pytest

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
    files = [p for p in tmp_path.rglob("*") if p.is_file()]  # whatever the cache's file format
    assert len(cached) == 2 and len(files) >= 2  # the first pass filled it


def test_busy_time_counts_the_auto_reset_in_the_final_step() -> None:
    import gymnasium as gym

    from mmenvs.wrappers import DebugEchoMenu

    env = bench._BusyTime(DebugEchoMenu(gym.make("DebugEcho-v0")))
    try:
        env.reset(seed=0)
        _obs, _r, _term, _trunc, info = env.step(0)
        stepped = info["bench_busy_s"]
        assert stepped > 0
        _obs, _r, terminated, _trunc, info = env.step(env.get_wrapper_attr("size") - 1)  # FAIL ends the episode
        assert terminated
        final = info["bench_busy_s"]
        env.reset()  # as SubprocVecEnv's worker does before it sends the final step's info
        assert info["bench_busy_s"] > final and info["bench_reset_s"] == pytest.approx(info["bench_busy_s"] - final)
        env.reset()  # a reset asked for on its own is nobody's step
        assert info["bench_busy_s"] > final and "bench_busy_s" not in env.reset()[1]
    finally:
        env.close()


def test_vec_run_reports_speed_barrier_and_parent_cost() -> None:
    run = bench._vec_run(2, steps=4)
    assert run["per_s"] > 0 and run["parent_cpu_ms"] > 0 and run["env_ms"] > 0
    # the mean of two workers' times is at least half the slower one's and at most all of it
    assert 0.5 <= run["barrier_busy"] <= 1.0
    assert 0.0 <= run["reset_share"] < 1.0
    assert bench._vec_run(1, steps=2)["barrier_busy"] == 1.0  # one worker is always the slowest


def test_vec_row_reports_the_median_round(monkeypatch) -> None:
    speeds = iter([100.0, 150.0, 100.0, 190.0, 100.0, 120.0])  # rounds of (1 worker, 2 workers): 1.5x, 1.9x, 1.2x
    monkeypatch.setattr(bench, "VEC_ROUNDS", 3)
    monkeypatch.setattr(bench, "_vec_run", lambda workers: {"per_s": next(speeds), "parent_cpu_ms": 1.0,
                                                             "env_ms": 5.0, "barrier_busy": 0.8,
                                                             "reset_share": 0.3})
    row = bench._vec_row()
    assert row["ratio"] == 1.5 and row["per_s"] == 150.0
    assert "rounds: 1.50, 1.90, 1.20" in row["note"] and "resets 30%" in row["note"]
