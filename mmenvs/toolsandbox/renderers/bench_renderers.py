"""Render-time workloads of the image renderers (included by the toolsandbox bench).

One row per kind: wall-clock milliseconds to render one image with freshly sampled facts, cycling
difficulty over 0, 0.5 and 1 (so the degradation pass is in two thirds of the samples), plus one row
for the degradation pass alone. Targets from the issue: ≤ 40 ms median for the non-chart kinds,
charts ≤ 80 ms.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from mmenvs.benchmarks.harness import measure, timing_row

from . import RENDERERS
from .base import degrade

CHART_KINDS = ("bar_chart", "line_chart", "pie_chart")
DIFFICULTIES = (0.0, 0.5, 1.0)


def _renderer_rows(repeat: int) -> list[dict[str, Any]]:
    rows = []
    for kind, fn in RENDERERS.items():
        counter = iter(range(10**9))

        def once(fn=fn, counter=counter) -> None:
            i = next(counter)
            fn(np.random.default_rng(1000 + i), difficulty=DIFFICULTIES[i % len(DIFFICULTIES)])

        cpu: list[float] = []

        def timed(once=once, cpu=cpu) -> None:
            start = time.process_time()
            once()
            cpu.append((time.process_time() - start) * 1000.0)

        samples = measure(timed, repeat=repeat, warmup=3)
        cpu_ms = float(np.median(cpu[-repeat:]))
        target = 80.0 if kind in CHART_KINDS else 40.0
        note = f"CPU time median {cpu_ms:.1f} ms (wall clock suffers when other processes share the cores)"
        if kind in CHART_KINDS:
            note += "; drawn with Pillow, not matplotlib"
        rows.append(timing_row(f"toolsandbox renderers: {kind} (difficulty 0/0.5/1)", samples, target_ms=target, note=note))
    return rows


def _degrade_row(repeat: int) -> dict[str, Any]:
    img = np.full((700, 600, 3), 245, np.uint8)
    img[100:600:20, 50:550] = 20  # some "text" rows so blur/JPEG have edges to work on
    counter = iter(range(10**9))
    samples = measure(lambda: degrade(img, {}, np.random.default_rng(next(counter)), 1.0, "photo"), repeat=repeat, warmup=2)
    return timing_row("toolsandbox renderers: degradation pass alone (600×700 photo, difficulty 1)", samples,
                      note="warp + contrast + lighting + blur + noise + JPEG")


def workloads() -> list[dict[str, Any]]:
    """Rows {name, median_ms, p95_ms, target_ms, note} for ``mmenvs bench``."""
    repeat = int(os.environ.get("MMENVS_BENCH_REPEAT", "30"))
    return _renderer_rows(repeat) + [_degrade_row(repeat)]


if __name__ == "__main__":  # quick look: python -m mmenvs.toolsandbox.renderers.bench_renderers
    for row in workloads():
        print(f"{row['name']:<75} median {row['median_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms  target {row.get('target_ms', '-')}  "
              f"{row.get('note', '')}")
