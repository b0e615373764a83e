"""``mmenvs bench`` rows: throughput for RL training (issue 19's targets), measured here.

- MacAgent random-policy steps through :class:`~mmenvs.wrappers.mac_menu.MacAgentMenu` at
  ``obs_size=(128, 128)`` with ``store_screenshots=False`` (as RL training runs it): steps per CPU-second
  of this process (≈ steps/s per core; target ≥ 500).
- MMToolSandbox reset of a pinned scenario not seen before in the process, with its images drawn
  (disk cache off) and decoded from the disk cache (target ≤ 20 ms).
- Two SubprocVecEnv workers against one, stepping the same MacAgent menu env (target ≥ 1.7× on a
  2-core machine): total steps/s of each, driven as sb3-contrib's MaskablePPO drives them (masks by
  ``env_method("action_masks")``, answered by ``VecInfoMasks`` from the step infos; auto-resets), with
  what limits the speed-up: the workers' busy time against the slowest worker of each step (SB3 steps
  all workers in lockstep) and the parent's CPU per vector step.
"""

from __future__ import annotations

import os
import time
from typing import Any

import gymnasium as gym
import numpy as np

MENU_STEPS = 1000
VEC_STEPS = 400
VEC_ROUNDS = 3  # 1 worker, then 2, three times: the speed-up is the median round's (one short run is noisy)
MMTS_SCENARIOS = 12


def _mac_menu_env() -> Any:
    import mmenvs  # noqa: F401  (registers the ids)
    from mmenvs.wrappers.mac_menu import MacAgentMenu

    # as RL training runs it (baselines/rl/families.py): no screenshot history, so the sim draws the 128x128
    # observation at low resolution and no full-size frame per step (low_res_render, docs/macagent.md)
    return MacAgentMenu(gym.make("MacAgent-v0", obs_size=(128, 128), store_screenshots=False))


def _random_menu_steps(env: Any, steps: int, seed: int = 0) -> tuple[list[float], float]:
    """Milliseconds per step (resets excluded) and CPU seconds of this process for ``steps`` masked random steps."""
    rng = np.random.default_rng(seed)
    _obs, info = env.reset(seed=seed)
    samples: list[float] = []
    cpu = 0.0
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        start, start_cpu = time.perf_counter(), time.process_time()
        _obs, _r, terminated, truncated, info = env.step(action)
        samples.append((time.perf_counter() - start) * 1000.0)
        cpu += time.process_time() - start_cpu
        if terminated or truncated:
            _obs, info = env.reset()
    return samples, cpu


def _menu_row() -> dict[str, Any]:
    from mmenvs.benchmarks.harness import peak_rss_mb, timing_row

    env = _mac_menu_env()
    try:
        samples, cpu = _random_menu_steps(env, MENU_STEPS)
    finally:
        env.close()
    per_core = MENU_STEPS / cpu if cpu > 0 else float("nan")  # the sim runs in this process (its shells are idle)
    return timing_row("rl: MacAgent random policy through MacAgentMenu, obs 128x128, no screenshot store", samples,
                      per_s=per_core, peak_rss_mb=peak_rss_mb(),
                      note=f"{per_core:.0f} steps per CPU-second (target >= 500/core)")


def _mmts_reset_ms(disk_cache: str) -> list[float]:
    """Reset latency of pinned scenarios new to a fresh env, with ``MMENVS_CACHE_DIR=disk_cache``."""
    import gymnasium as gym

    import mmenvs  # noqa: F401
    from mmenvs.toolsandbox import images

    before = os.environ.get("MMENVS_CACHE_DIR")
    os.environ["MMENVS_CACHE_DIR"] = disk_cache
    images._disk = None  # the disk cache is opened under the root just set
    try:
        env = gym.make("MMToolSandbox-v0")
        ids = env.unwrapped.task_ids()[-MMTS_SCENARIOS:]
        if disk_cache != "off":  # fill the disk cache in a first pass, as an earlier process would have
            for task_id in ids:
                env.reset(options={"task_id": task_id})
        samples = []
        for task_id in ids:
            env.unwrapped._scenarios.clear()  # a scenario new to the env: parsed and its images loaded again
            images.clear_cache()
            start = time.perf_counter()
            env.reset(options={"task_id": task_id})
            samples.append((time.perf_counter() - start) * 1000.0)
        env.close()
        return samples
    finally:
        if before is None:
            os.environ.pop("MMENVS_CACHE_DIR", None)
        else:
            os.environ["MMENVS_CACHE_DIR"] = before
        images._disk = None


def _mmts_rows() -> list[dict[str, Any]]:
    import tempfile

    from mmenvs.benchmarks.harness import timing_row

    drawn = _mmts_reset_ms("off")
    with tempfile.TemporaryDirectory(prefix="mmenvs-bench-cache-") as cache:
        cached = _mmts_reset_ms(cache)
    ratio = float(np.median(cached) / np.median(drawn))
    return [timing_row("rl: MMToolSandbox reset of a new pinned scenario, images from the disk cache", cached,
                       peer="images drawn (cache off)", ratio=ratio,
                       note=f"drawn: median {np.median(drawn):.1f} ms (target <= 20 ms)")]


class _BusyTime(gym.Wrapper):
    """A bench worker's env: adds to each step's info the seconds the env spent on it
    (``info["bench_busy_s"]``), including the reset that a vector env does right after a final step
    (the worker sends the info only after that reset, so the reset's time is added to it; it is also
    ``info["bench_reset_s"]``)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._last_info: dict[str, Any] | None = None

    def step(self, action: Any) -> Any:
        start = time.perf_counter()
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["bench_busy_s"] = time.perf_counter() - start
        self._last_info = info
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs: Any) -> Any:
        start = time.perf_counter()
        result = self.env.reset(**kwargs)
        if self._last_info is not None:  # an auto-reset after a final step: its time counts for that step
            self._last_info["bench_reset_s"] = time.perf_counter() - start
            self._last_info["bench_busy_s"] += self._last_info["bench_reset_s"]
            self._last_info = None
        return result


def _timed_mac_menu_env() -> Any:
    return _BusyTime(_mac_menu_env())


def _vec_run(workers: int, steps: int = VEC_STEPS) -> dict[str, float]:
    """``steps`` steps of ``workers`` SubprocVecEnv workers as MaskablePPO's rollout loop drives them: the
    masks by ``env_method("action_masks")`` (answered from the step infos by ``VecInfoMasks``, no extra
    round trip), then ``step_async``/``step_wait``. Returns total steps/s, the parent's CPU ms per vector
    step, how busy the workers were against the slowest one of each step (the lockstep barrier), and the
    share of the workers' env time spent in auto-resets."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from .vec_masks import VecInfoMasks

    vec = VecInfoMasks(SubprocVecEnv([_timed_mac_menu_env for _ in range(workers)]))
    try:
        vec.seed(0)
        vec.reset()
        rng = np.random.default_rng(0)
        busy = np.zeros((steps, workers))
        resetting = np.zeros((steps, workers))
        start, start_cpu = time.perf_counter(), time.process_time()
        for i in range(steps):
            masks = np.stack(vec.env_method("action_masks"))
            vec.step_async(np.array([int(rng.choice(np.flatnonzero(m))) for m in masks]))
            _obs, _rewards, _dones, infos = vec.step_wait()
            busy[i] = [info["bench_busy_s"] for info in infos]
            resetting[i] = [info.get("bench_reset_s", 0.0) for info in infos]
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        vec.close()
    return {"per_s": workers * steps / seconds, "parent_cpu_ms": cpu / steps * 1000.0,
            "env_ms": float(busy.mean() * 1000.0), "barrier_busy": float(busy.mean() / busy.max(axis=1).mean()),
            "reset_share": float(resetting.sum() / busy.sum())}


def _vec_row() -> dict[str, Any]:
    rounds = [(_vec_run(1), _vec_run(2)) for _ in range(VEC_ROUNDS)]
    ratios = [two["per_s"] / one["per_s"] for one, two in rounds]
    one, two = rounds[int(np.argsort(ratios)[len(ratios) // 2])]  # the median round
    ratio = two["per_s"] / one["per_s"]
    return {"name": "rl: SubprocVecEnv, 2 MacAgentMenu workers against 1", "per_s": two["per_s"],
            "peer": "1 worker", "ratio": ratio,
            "note": (f"steps/s (median of {VEC_ROUNDS} rounds of {VEC_STEPS} vector steps): 2 workers {two['per_s']:.0f}, "
                     f"1 worker {one['per_s']:.0f}; speed-up {ratio:.2f}x (rounds: "
                     f"{', '.join(f'{r:.2f}' for r in ratios)}; target >= 1.7x on 2 cores); MaskablePPO's loop (masks "
                     f"from the step infos via VecInfoMasks), random masked actions, auto-resets; env {two['env_ms']:.1f} "
                     f"ms/step (1 worker: {one['env_ms']:.1f}), workers busy {two['barrier_busy']:.0%} of the slowest "
                     f"one's time per step (lockstep), resets {two['reset_share']:.0%} of their env time, parent "
                     f"{two['parent_cpu_ms']:.1f} ms CPU per vector step")}


def workloads() -> list[dict[str, Any]]:
    """The three training-throughput rows."""
    return [_menu_row(), *_mmts_rows(), _vec_row()]
