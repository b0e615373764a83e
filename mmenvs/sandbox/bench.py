"""Sandbox workloads for ``mmenvs bench`` (targets from issue 3).

Rows: worker start (≤ 100 ms), warm ``1+1`` round trip (≤ 1 ms), 100 tool calls (≤ 20 ms),
timeout-and-restart beyond the timeout itself (≤ 150 ms), plus a 1000×1000×3 image through tools,
a new-episode reset, and for the shell: start, round trip, host command and reset.  The warm round trip is
compared with running the same code in-process (what the published MM-ToolSandBox sandbox does).
"""

from __future__ import annotations

import tempfile
import time
from typing import Any

import numpy as np

from mmenvs.benchmarks.harness import measure, timing_row

from .python import PythonSandbox
from .shell import ShellSandbox


def _worker_start_rows(isolation: str) -> list[dict[str, Any]]:
    def start() -> None:
        sb = PythonSandbox(isolation=isolation, spare=False)
        try:
            sb.run("None")
        finally:
            sb.close()

    samples = measure(start, repeat=15, warmup=1)
    return [timing_row(f"sandbox: worker start ({isolation}), spawn to first result", samples, target_ms=100.0,
                       note="no spare worker; includes one round trip")]


def _warm_rows(sb: PythonSandbox) -> list[dict[str, Any]]:
    sb.run("1 + 1")
    samples = measure(lambda: sb.run("1 + 1"), repeat=300, warmup=20)
    namespace: dict[str, Any] = {}

    def in_process() -> None:
        eval(compile("1 + 1", "<cell>", "eval"), namespace)

    peer = measure(in_process, repeat=300, warmup=20)
    med, peer_med = float(np.median(samples)), float(np.median(peer))
    return [timing_row(f"sandbox: warm `1+1` round trip ({sb.isolation})", samples, target_ms=1.0,
                       peer="in-process exec (no isolation)", ratio=med / peer_med if peer_med else None,
                       note="policy check + pipe round trip + repr")]


def _tool_rows(sb: PythonSandbox) -> list[dict[str, Any]]:
    code = "for i in range(100):\n    add(i, 1)"
    sb.run(code)
    rows = [timing_row(f"sandbox: 100 tool calls in one snippet ({sb.isolation})",
                       measure(lambda: sb.run(code), repeat=30, warmup=3), target_ms=20.0)]
    img_code = "a = load_image('img_0')\nsave_image(a)"
    sb.run(img_code)
    rows.append(timing_row("sandbox: 1000x1000x3 uint8 image in and out through tools",
                           measure(lambda: sb.run(img_code), repeat=20, warmup=2),
                           note="2 tool calls, 6 MB over the pipe as raw bytes"))
    return rows


def _restart_rows() -> list[dict[str, Any]]:
    timeout = 0.1
    sb = PythonSandbox(timeout=timeout)
    try:
        sb.run("None")
        samples = []
        for _ in range(12):
            t0 = time.perf_counter()
            res = sb.run("while True: pass")
            samples.append((time.perf_counter() - t0 - timeout) * 1000.0)
            assert res.restarted, res.text
            sb.run("None")  # the fresh worker answers
        return [timing_row(f"sandbox: timeout + kill + restart ({sb.isolation})", samples, target_ms=150.0,
                           note=f"time beyond the {timeout * 1000:.0f} ms timeout; a spare worker is pre-started")]
    finally:
        sb.close()


def _episode_gap_samples(run_episode, reset_and_first, gap_s: float = 0.3, repeat: int = 12) -> list[float]:
    """Milliseconds of ``reset_and_first`` after an episode and a pause (the spare has time to start)."""
    samples = []
    for _ in range(repeat):
        run_episode()
        time.sleep(gap_s)
        t0 = time.perf_counter()
        reset_and_first()
        samples.append((time.perf_counter() - t0) * 1000.0)
    return samples


def _reset_rows() -> list[dict[str, Any]]:
    sb = PythonSandbox()
    try:
        sb.run("None")

        def first() -> None:
            sb.reset()
            sb.run("None")

        samples = _episode_gap_samples(lambda: sb.run("x = 1"), first)
        return [timing_row(f"sandbox: reset + first run of the next episode ({sb.isolation})", samples,
                           note="fresh worker = the pre-started spare; 0.3 s episode gap not counted")]
    finally:
        sb.close()


def _shell_rows() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="mmenvs-bench-home-") as home:
        def start() -> None:
            ShellSandbox(home).close()

        start_row = timing_row("sandbox: shell start (bwrap + bash)", measure(start, repeat=10, warmup=1))
        sh = ShellSandbox(home, host_commands={"echo_host": lambda argv, stdin: (" ".join(argv[1:]), "", 0)})
        try:
            rt = timing_row(f"sandbox: shell round trip `true` ({sh.isolation})",
                            measure(lambda: sh.run("true"), repeat=200, warmup=10))
            rt_out = timing_row("sandbox: shell `ls -la ~ | wc -l` (2 processes)",
                                measure(lambda: sh.run("ls -la ~ | wc -l"), repeat=50, warmup=3))
            host = timing_row("sandbox: shell host command round trip",
                              measure(lambda: sh.run("echo_host hi"), repeat=20, warmup=2),
                              note="shim (python -S) -> unix socket -> parent callable")

            def first() -> None:
                sh.reset()
                sh.run("true")

            reset = timing_row("sandbox: shell reset + first command of the next episode",
                               _episode_gap_samples(lambda: sh.run("cd /tmp && export X=1"), first),
                               note="fresh shell = the pre-started spare; 0.3 s episode gap not counted")
        finally:
            sh.close()
    return [start_row, rt, rt_out, host, reset]


def workloads() -> list[dict[str, Any]]:
    """The sandbox rows for ``mmenvs bench``."""
    rows: list[dict[str, Any]] = []
    rows += _worker_start_rows("auto")
    rows += _worker_start_rows("rlimit-only")
    images = {"img_0": np.zeros((1000, 1000, 3), np.uint8)}

    def load_image(image_id: str) -> np.ndarray:
        return images[image_id]

    def save_image(arr: np.ndarray) -> str:
        images[f"img_{len(images)}"] = arr
        return f"img_{len(images) - 1}"

    sb = PythonSandbox(tools={"add": lambda a, b: a + b, "load_image": load_image, "save_image": save_image})
    try:
        rows += _warm_rows(sb)
        rows += _tool_rows(sb)
    finally:
        sb.close()
    rows += _restart_rows()
    rows += _reset_rows()
    rows += _shell_rows()
    return rows
