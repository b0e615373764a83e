"""``mmenvs bench`` row: episode throughput on Ray actors against the local process pool, same machine.

Both run the same oracle episodes of DebugEcho-v0 (its episodes are short, so the row measures what the
backends add: dispatch, start-up of workers or actors, records travelling back) on ``WORKERS`` workers:
``run_jobs(workers=N)`` (spawned processes) and ``run_jobs(ray_address=...)`` on a local Ray instance with
``num_cpus=N``. The instance is started before the clock runs (a cluster is up before a run is sent to
it); starting each run's actors, like spawning the pool's processes, is inside it. ``ratio`` is Ray's
time per episode over the pool's (below 1: Ray is faster); the note gives both throughputs.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from typing import Any

ENV_ID = "DebugEcho-v0"
WORKERS = 2
EPISODES = 48
REPEATS = 3


def _episodes_per_s(ray_address: str | None) -> list[float]:
    from mmenvs.runner import plan_jobs, run_jobs, select_tasks

    tasks = select_tasks(ENV_ID, "all", {})
    jobs = plan_jobs(ENV_ID, tasks, agent="oracle", attempts=max(1, EPISODES // len(tasks)))
    rates = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        records = run_jobs(jobs, workers=WORKERS, progress=False, ray_address=ray_address)
        elapsed = time.perf_counter() - start
        assert len(records) == len(jobs) and all(r["success"] for r in records), "a benchmark episode failed"
        rates.append(len(jobs) / elapsed)
    return rates


def workloads() -> list[dict[str, Any]]:
    """One row: Ray's episodes/s and ms per episode, the process pool as the peer."""
    import numpy as np
    import ray

    from mmenvs.benchmarks.harness import peak_rss_mb, timing_row

    pool = _episodes_per_s(None)
    temp_dir = tempfile.mkdtemp(prefix="mmenvs-ray-")
    ray.init(num_cpus=WORKERS, include_dashboard=False, _temp_dir=temp_dir, log_to_driver=False, logging_level="warning")
    try:
        on_ray = _episodes_per_s("local")  # the instance above is used as it is
    finally:
        ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
    ray_ms = [1000.0 / rate for rate in on_ray]
    pool_ms = float(np.median([1000.0 / rate for rate in pool]))
    return [timing_row(f"ray: episodes on {WORKERS} actors ({ENV_ID}, oracle, {EPISODES} per run)", ray_ms,
                       per_s=float(np.median(on_ray)), peak_rss_mb=peak_rss_mb(),
                       peer=f"process pool, {WORKERS} workers", ratio=float(np.median(ray_ms)) / pool_ms,
                       note=f"episodes/s: Ray {np.median(on_ray):.1f}, pool {np.median(pool):.1f} "
                            f"(Ray/pool throughput {np.median(on_ray) / np.median(pool):.2f})")]
