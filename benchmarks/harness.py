"""``mmenvs bench``: latency, throughput and memory of every env, plus each benchmark's own workloads.

Two kinds of rows go into one table:

* **env rows**, measured the same way for every registered id: reset latency (a different task each
  time), step latency while the oracle (or, without one, the random agent) plays, steps/s on one core,
  the peak resident memory of the process that ran them, and the proportional memory (PSS) of that
  process with its children (sandbox workers) while the env is open;
* **workload rows** from every ``mmenvs/<package>/bench.py`` that defines ``workloads() -> list[dict]``
  (sandbox start-up, per-tool costs against bare OpenCV, scenario generation, …). A row is a dict with
  ``name``, ``median_ms``, ``p95_ms`` and optionally ``per_s``, ``peak_rss_mb``, ``target_ms``, ``peer``,
  ``ratio`` (ours / peer) and ``note``; and from ``HARNESS_WORKLOADS`` (the LLM harness's own overhead
  per step, next to the env step it wraps).

Each env and each workload module runs in its own subprocess, so peak memory is per env and one
benchmark's caches do not flatter another's.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import json
import os
import platform
import pkgutil
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

COLUMNS = ("name", "median_ms", "p95_ms", "per_s", "peak_rss_mb", "tree_pss_mb", "target_ms", "peer", "ratio", "note")


def measure(fn: Callable[[], Any], repeat: int = 30, warmup: int = 2) -> list[float]:
    """Wall-clock milliseconds of ``repeat`` calls of ``fn`` after ``warmup`` unmeasured calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def timing_row(name: str, samples_ms: Sequence[float], **extra: Any) -> dict[str, Any]:
    """A result row from millisecond samples: median and 95th percentile, plus any extra columns."""
    data = np.asarray(samples_ms, dtype=float)
    return {"name": name, "median_ms": float(np.median(data)), "p95_ms": float(np.percentile(data, 95)), **extra}


def peak_rss_mb() -> float:
    """Peak resident memory of this process, in MB (children are counted by ``tree_pss_mb``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def tree_pss_mb(pid: int | None = None) -> float:
    """Proportional set size of process ``pid`` (default: this one) and all its descendants now, in MB.

    PSS splits pages shared between processes (a forked sandbox worker shares most of its parent's
    memory), so the sum is what the env really costs, where adding RSS values would count shared pages twice.
    """
    import psutil

    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += process.memory_full_info().pss
        except (psutil.Error, AttributeError):  # gone, or no PSS on this OS: fall back to RSS
            try:
                total += process.memory_info().rss
            except psutil.Error:
                pass
    return total / 1024**2


def bench_env(env_id: str, resets: int = 20, steps: int = 200) -> list[dict[str, Any]]:
    """Reset and step latency, steps/s and peak memory of one env id (run in a fresh process)."""
    import gymnasium as gym

    import mmenvs  # noqa: F401
    from mmenvs.baselines import OracleAgent, RandomAgent

    env = gym.make(env_id)
    base = env.unwrapped
    try:
        agent: Any = OracleAgent()
        agent.bind(base)
        obs, info = env.reset(seed=0)
        try:
            agent.act(obs, info)
        except NotImplementedError:
            agent = RandomAgent()
            agent.bind(base)
        seeds = iter(range(1, 10**6))
        reset_ms = measure(lambda: env.reset(seed=next(seeds)), repeat=resets, warmup=1)
        step_ms: list[float] = []
        obs, info = env.reset(seed=12345)
        agent.reset(info)
        while len(step_ms) < steps:
            action = agent.act(obs, info)
            start = time.perf_counter()
            obs, _, terminated, truncated, info = env.step(action)
            step_ms.append((time.perf_counter() - start) * 1000.0)
            if terminated or truncated:
                obs, info = env.reset(seed=next(seeds))
                agent.reset(info)
        memory = {"peak_rss_mb": peak_rss_mb(), "tree_pss_mb": tree_pss_mb()}  # measured while the env is open
        policy = type(agent).__name__.replace("Agent", "").lower()
        return [
            timing_row(f"{env_id}: reset", reset_ms, **memory),
            timing_row(f"{env_id}: step ({policy} actions)", step_ms, per_s=1000.0 / float(np.mean(step_ms)), **memory),
        ]
    finally:
        env.close()


def workload_modules() -> list[str]:
    """Every ``mmenvs.<package>.bench`` module (and nested ``bench`` modules) that defines ``workloads()``."""
    import mmenvs

    found = []
    for info in pkgutil.walk_packages(mmenvs.__path__, "mmenvs."):
        if info.name.rsplit(".", 1)[-1] == "bench" and info.name not in HARNESS_WORKLOADS:  # those run on their own
            found.append(info.name)
    return sorted(found)


def bench_workloads(module_name: str) -> list[dict[str, Any]]:
    """The rows of one workload module (run in a fresh process)."""
    module = importlib.import_module(module_name)
    return [dict(r) for r in module.workloads()]


def workloads_in_subprocess(module_name: str, timeout: float = 600.0) -> list[dict[str, Any]]:
    """The rows of workload module ``module_name``, run in a fresh process (so its peak memory is its own)."""
    return _in_subprocess("workloads", module_name, timeout)


def _in_subprocess(kind: str, target: str, timeout: float) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "mmenvs.benchmarks.harness", f"--{kind}", target]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"name": f"{target}", "note": f"timed out after {timeout:.0f} s"}]
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [{"name": f"{target}", "note": f"failed: {tail[:160]}"}]
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(env_ids: Sequence[str] | None = None, *, workloads: bool = True, timeout: float = 600.0) -> list[dict[str, Any]]:
    """All rows: every env in ``env_ids`` (all registered ids if None) and, optionally, every workload module."""
    import mmenvs

    ids = list(env_ids) if env_ids else list(mmenvs.ENV_IDS)
    rows: list[dict[str, Any]] = []
    for env_id in ids:
        rows += _in_subprocess("env", env_id, timeout)
    if workloads:
        for module in workload_modules_for(env_ids) + harness_workloads_for(env_ids):
            rows += _in_subprocess("workloads", module, timeout)
    return rows


#: Workload modules outside the env packages, with the env whose step each wraps: the LLM harness's own
#: overhead per step, measured around MacAgent's 1280x800 screenshot step; Ray's episode throughput
#: (DebugEcho episodes); the serve path's overhead per step and sessions per core (VTCBench sessions);
#: the RL training throughput rows (MacAgent's action menu, MMToolSandbox resets, SubprocVecEnv scaling).
HARNESS_WORKLOADS = {"mmenvs.baselines.llm.bench": "MacAgent-v0", "mmenvs.distributed.bench": "DebugEcho-v0",
                     "mmenvs.serve.bench": "DebugEcho-v0", "mmenvs.wrappers.bench": "MacAgent-v0"}


def harness_workloads_for(env_ids: Sequence[str] | None) -> list[str]:
    """The agent-harness workload modules to run: all without ``env_ids``, else those wrapping a named env."""
    return [module for module, env_id in HARNESS_WORKLOADS.items() if not env_ids or env_id in env_ids]


def env_packages() -> dict[str, str]:
    """``{env id: the mmenvs package that implements it}``, read from each declared env's entry point
    (``mmenvs.vtc.env:VTCBenchEnv`` -> ``vtc``); an env implemented outside ``mmenvs`` has no package."""
    from mmenvs.core.registry import env_specs

    packages = {}
    for spec in env_specs():
        module = spec.entry_point.split(":", 1)[0].split(".")
        if len(module) > 1 and module[0] == "mmenvs":
            packages[spec.id] = module[1]
    return packages


def workload_modules_for(env_ids: Sequence[str] | None) -> list[str]:
    """The workload modules to run: all of them without ``env_ids``; with ids, those of the packages that
    implement the ids, plus the shared code sandbox's."""
    modules = workload_modules()
    if not env_ids:
        return modules
    packages = env_packages()
    wanted = {"sandbox"} | {packages[i] for i in env_ids if i in packages}
    return [m for m in modules if m.split(".")[1] in wanted]


def format_rows(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    header = "| " + " | ".join(COLUMNS) + " |"
    lines = [header, "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = []
        for column in COLUMNS:
            value = row.get(column)
            if isinstance(value, float):
                cells.append(f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}")
            else:
                cells.append("" if value is None else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine_description() -> str:
    """CPU model, core count, memory and Python version of this machine."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (ValueError, OSError):
        memory_gb = float("nan")
    return f"{model}, {os.cpu_count()} cores, {memory_gb:.0f} GB, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def record(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Append the table to ``path`` (Markdown) under a heading with the date and the machine."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    block = f"\n## {stamp}\n\nMachine: {machine_description()}\n\n{format_rows(rows)}\n"
    path = Path(path)
    if not path.exists():
        path.write_text("# mmenvs benchmark results\n\nAppended by `mmenvs bench --record`.\n", encoding="utf-8")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(block)


def main(argv: Sequence[str] | None = None) -> None:
    """Subprocess entry: ``--env ID`` or ``--workloads MODULE``; prints the rows as one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m mmenvs.benchmarks.harness")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--env")
    group.add_argument("--workloads")
    args = parser.parse_args(argv)
    rows = bench_env(args.env) if args.env else bench_workloads(args.workloads)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
