"""Generator workloads for ``mmenvs bench`` (issue targets: one scenario with its images ≤ 200 ms
median; loading a pinned scenario ≤ 20 ms).

Rows: a full ``generate_scenario`` (facts, entities, rounds, rendering 3-6 images cold, and the oracle
check through the env), the same without rendering (what the training stream pays when the env
renders lazily), the oracle check alone, and loading one pinned benchmark scenario (regenerated
without rendering and fingerprint-checked). CPU time is noted next to wall clock because the
cores are shared with other processes.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

import numpy as np

from mmenvs.benchmarks.harness import measure, timing_row

from ..suites import load_suite_scenario, suite_ids
from . import images as gen_images
from .build import generate_scenario
from .validate import validate_scenario


def _with_cpu(fn: Callable[[], Any], repeat: int, warmup: int = 2) -> tuple[list[float], float]:
    cpu: list[float] = []

    def timed() -> None:
        start = time.process_time()
        fn()
        cpu.append((time.process_time() - start) * 1000.0)

    samples = measure(timed, repeat=repeat, warmup=warmup)
    return samples, float(np.median(cpu[-repeat:]))


def workloads() -> list[dict[str, Any]]:
    """Rows {name, median_ms, p95_ms, target_ms, note}."""
    repeat = int(os.environ.get("MMENVS_BENCH_REPEAT", "30"))
    rows = []
    counter = iter(range(10**9))

    def full() -> None:
        gen_images.clear_cache()  # cold: every image is drawn
        generate_scenario(500_000 + next(counter))

    samples, cpu = _with_cpu(full, repeat)
    rows.append(timing_row("toolsandbox generator: generate_scenario (3-6 images rendered + oracle check)", samples,
                           target_ms=200.0, note=f"CPU median {cpu:.0f} ms; seeds vary flow, challenge, arrival, app group"))

    samples, cpu = _with_cpu(lambda: generate_scenario(600_000 + next(counter), render=False), repeat)
    rows.append(timing_row("toolsandbox generator: generate_scenario without rendering (oracle check included)", samples,
                           note=f"CPU median {cpu:.0f} ms; images are rendered later by the env that loads the scenario"))

    pool = [generate_scenario(700_000 + i, render=False, validate=False) for i in range(8)]
    samples, cpu = _with_cpu(lambda: validate_scenario(pool[next(counter) % len(pool)]), repeat)
    rows.append(timing_row("toolsandbox generator: oracle check alone (env reset + reference replay + entity diff)", samples,
                           note=f"CPU median {cpu:.0f} ms"))

    ids = suite_ids("benchmark")
    samples, cpu = _with_cpu(lambda: load_suite_scenario("benchmark", ids[next(counter) % len(ids)]), repeat)
    rows.append(timing_row("toolsandbox generator: load one pinned benchmark scenario (stored JSON + fingerprint check)", samples,
                           target_ms=20.0, note=f"CPU median {cpu:.1f} ms; images stay specs until the env renders them"))
    return rows


if __name__ == "__main__":  # python -m mmenvs.toolsandbox.generator.bench_generator
    for row in workloads():
        print(f"{row['name']:<100} median {row['median_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms  "
              f"target {row.get('target_ms', '-')}  {row['note']}")
