"""The evaluation runner behind ``mmenvs eval``: episodes in a process pool, records, summary, plot.

Each worker process makes its env through ``gym.make("mmenvs:ID")`` (so registration happens in the
worker), keeps it for all its episodes, and writes each episode's steps to disk as it goes. The parent
collects one record per episode into ``episodes.jsonl`` and writes ``summary.json`` and ``summary.png``.
"""

from __future__ import annotations

import json
import multiprocessing
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import gymnasium as gym

from mmenvs.core.metrics import breakdown, summarize_attempts
from mmenvs.core.recorder import EpisodeRecorder, to_jsonable

# Info keys kept in an episode record besides the standard ones (large per-step logs stay in steps.jsonl).
_RECORD_INFO_LIMIT = 20_000


@dataclass(frozen=True)
class EpisodeJob:
    """One episode to run: which env, task, attempt, agent, and where to record it."""

    env_id: str
    task_id: str
    attempt: int
    agent: str
    seed: int
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    agent_kwargs: dict[str, Any] = field(default_factory=dict)
    record_dir: str | None = None


_WORKER_ENVS: dict[tuple[str, str], gym.Env] = {}


def _env_for(job: EpisodeJob) -> gym.Env:
    key = (job.env_id, json.dumps(job.env_kwargs, sort_keys=True))
    env = _WORKER_ENVS.get(key)
    if env is None:
        env = gym.make(f"mmenvs:{job.env_id}", **job.env_kwargs)
        _WORKER_ENVS[key] = env
    return env


def run_episode(job: EpisodeJob) -> dict[str, Any]:
    """Run one episode and return its record. Never raises: a crash becomes ``record["error"]``."""
    from mmenvs.baselines import load_agent

    record: dict[str, Any] = {"env_id": job.env_id, "task_id": job.task_id, "attempt": job.attempt, "seed": job.seed,
                              "agent": job.agent, "score": 0.0, "success": False, "steps": 0, "return": 0.0,
                              "terminated": False, "truncated": False, "task_meta": {}, "error": None}
    recorder = None
    try:
        env = _env_for(job)
        agent = load_agent(job.agent, **job.agent_kwargs)
        if hasattr(agent, "bind"):
            agent.bind(env.unwrapped)
        obs, info = env.reset(seed=job.seed, options={"task_id": job.task_id})
        record["task_meta"] = to_jsonable(info.get("task_meta", {}))
        if job.record_dir:
            recorder = EpisodeRecorder(job.record_dir)
            recorder.record_reset(obs, info, env.unwrapped.images)
        agent.reset({**info, "attempt": job.attempt})
        terminated = truncated = False
        while not (terminated or truncated):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            record["return"] += float(reward)
            if recorder:
                recorder.record_step(action, obs, reward, terminated, truncated, info, env.unwrapped.images)
        record.update(score=float(info["score"]), success=bool(info["success"]), steps=int(info["step"]),
                      terminated=bool(terminated), truncated=bool(truncated))
        final = to_jsonable({k: v for k, v in info.items() if k not in ("task_id", "step", "score", "success", "images")})
        if len(json.dumps(final)) <= _RECORD_INFO_LIMIT:
            record["final_info"] = final
    except Exception:  # one broken episode must not sink the run; it is reported and scored 0
        record["error"] = traceback.format_exc(limit=8)
    finally:
        if recorder:
            recorder.close()
    return record


def plan_jobs(
    env_id: str,
    task_ids: Sequence[str],
    *,
    agent: str,
    attempts: int = 1,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    agent_kwargs: dict[str, Any] | None = None,
    out: str | Path | None = None,
) -> list[EpisodeJob]:
    """The jobs for ``attempts`` episodes of each task (attempt ``a`` resets with seed ``seed + a``)."""
    jobs = []
    for task_id in task_ids:
        for attempt in range(attempts):
            record_dir = str(Path(out) / "episodes" / f"{_safe(task_id)}__a{attempt}") if out else None
            jobs.append(EpisodeJob(env_id, task_id, attempt, agent, seed + attempt, dict(env_kwargs or {}),
                                   dict(agent_kwargs or {}), record_dir))
    return jobs


def run_jobs(jobs: Sequence[EpisodeJob], *, workers: int = 1, progress: bool = True,
             on_record: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run ``jobs`` (in-process for one worker, else in a spawn-based process pool) and return their
    records in job order. ``on_record`` sees each record as it finishes."""
    from tqdm import tqdm

    records: list[dict[str, Any] | None] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), disable=not progress, unit="ep", dynamic_ncols=True)
    finished = successes = 0

    def finish(index: int, record: dict[str, Any]) -> None:
        nonlocal finished, successes
        records[index] = record
        finished += 1
        successes += bool(record["success"])
        bar.update(1)
        bar.set_postfix(success=f"{successes / finished:.1%}", refresh=False)
        if on_record:
            on_record(record)

    try:
        if workers <= 1:
            for index, job in enumerate(jobs):
                finish(index, run_episode(job))
        else:
            # spawn: workers import mmenvs afresh (as `mmenvs:ID` requires) and may start sandbox children.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                pending: dict[Future, int] = {pool.submit(run_episode, job): i for i, job in enumerate(jobs)}
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        finish(pending.pop(future), future.result())
    finally:
        bar.close()
    return [r for r in records if r is not None]


def summarize(env_id: str, records: Sequence[dict[str, Any]], attempts: int) -> dict[str, Any]:
    """summary.json's content: overall metrics, per-field breakdowns, the benchmark's own tables."""
    ks = sorted({1, attempts})
    summary: dict[str, Any] = {"env_id": env_id, "attempts": attempts, **summarize_attempts(records, ks)}
    summary["errors"] = sum(1 for r in records if r.get("error"))
    fields = sorted({k for r in records for k, v in r.get("task_meta", {}).items() if _groupable(v)})
    summary["breakdowns"] = {name: breakdown(records, name, ks) for name in fields}
    env_class = _env_class(env_id)
    extra = getattr(env_class, "summarize_episodes", None)
    if extra is not None:
        summary.update(to_jsonable(extra(list(records))))
    return summary


def evaluate(
    env_id: str,
    *,
    agent: str,
    tasks: str | Sequence[str] = "all",
    attempts: int = 1,
    workers: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    agent_kwargs: dict[str, Any] | None = None,
    out: str | Path = "runs/eval",
    seed: int = 0,
    progress: bool = True,
    record_steps: bool = True,
) -> dict[str, Any]:
    """Run an evaluation and write ``episodes.jsonl``, ``summary.json`` and ``summary.png`` under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    task_ids = select_tasks(env_id, tasks, env_kwargs or {})
    jobs = plan_jobs(env_id, task_ids, agent=agent, attempts=attempts, seed=seed, env_kwargs=env_kwargs,
                     agent_kwargs=agent_kwargs, out=out if record_steps else None)
    with open(out / "episodes.jsonl", "w", encoding="utf-8") as handle:
        def write(record: dict[str, Any]) -> None:
            handle.write(json.dumps(to_jsonable(record), ensure_ascii=False) + "\n")
            handle.flush()

        records = run_jobs(jobs, workers=workers, progress=progress, on_record=write)
    summary = summarize(env_id, records, attempts)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    plot_summary(summary, out / "summary.png")
    return summary


def select_tasks(env_id: str, tasks: str | Sequence[str], env_kwargs: dict[str, Any]) -> list[str]:
    """Task ids from ``"all"``, a count ``"N"`` (the first N), or ids (a comma-separated string or a list)."""
    env = gym.make(f"mmenvs:{env_id}", **env_kwargs)
    try:
        suite = list(env.unwrapped.task_ids())
    finally:
        env.close()
    if isinstance(tasks, str):
        if tasks == "all":
            return suite
        if tasks.isdigit():
            return suite[: int(tasks)]
        tasks = [t.strip() for t in tasks.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in set(suite)]
    if unknown:
        raise ValueError(f"{env_id}: unknown task ids {unknown[:5]}; the suite has {len(suite)} tasks, e.g. {suite[:3]}")
    return list(tasks)


def plot_summary(summary: dict[str, Any], path: str | Path) -> None:
    """Bar charts of mean score (with 95% intervals) per group of every breakdown field."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(name, table) for name, table in summary.get("breakdowns", {}).items() if len(table) <= 40] or [
        ("all", {"all": {"mean_score": summary["mean_score"], "mean_score_ci95": summary["mean_score_ci95"]}})
    ]
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(6, 0.6 * max(len(t) for _, t in panels) + 3), 2.8 * len(panels)), squeeze=False)
    for axis, (name, table) in zip(axes[:, 0], panels):
        groups = list(table)
        means = [table[g]["mean_score"] for g in groups]
        lows = [max(0.0, m - table[g]["mean_score_ci95"][0]) for g, m in zip(groups, means)]
        highs = [max(0.0, table[g]["mean_score_ci95"][1] - m) for g, m in zip(groups, means)]
        axis.bar(range(len(groups)), means, yerr=[lows, highs], capsize=3, color="#4C72B0")
        axis.set_xticks(range(len(groups)), groups, rotation=30, ha="right", fontsize=8)
        axis.set_ylim(0, 1.05)
        axis.set_ylabel("mean score")
        axis.set_title(f"{summary.get('env_id', '')} by {name}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def format_summary(summary: dict[str, Any]) -> str:
    """A plain-text report: headline metrics, then one table per breakdown and per benchmark table."""
    head = [f"{summary.get('env_id', '')}: {summary['episodes']} episodes over {summary['tasks']} tasks"]
    metrics = [k for k in summary if k.startswith(("pass@", "pass^"))] + ["mean_score", "success_rate"]
    head.append("  ".join(f"{k}={summary[k]:.3f}" for k in metrics if isinstance(summary.get(k), float)))
    low, high = summary["mean_score_ci95"]
    head.append(f"mean score 95% CI [{low:.3f}, {high:.3f}]; errors: {summary.get('errors', 0)}")
    lines = head
    for name, table in summary.get("breakdowns", {}).items():
        lines += ["", *format_table(f"by {name}", table)]
    for name, table in summary.get("tables", {}).items():
        lines += ["", *format_table(name, table)]
    return "\n".join(lines)


def format_table(title: str, table: dict[str, dict[str, Any]]) -> list[str]:
    """Rows are groups, columns the scalar metrics they share."""
    columns = [c for c in next(iter(table.values()), {}) if isinstance(next(iter(table.values()))[c], (int, float))]
    width = max([len(title)] + [len(str(g)) for g in table]) + 2
    widths = [max(10, len(c) + 2) for c in columns]
    lines = [title.ljust(width) + "".join(c.rjust(w) for c, w in zip(columns, widths))]
    for group, row in table.items():
        cells = "".join((f"{row[c]:.3f}" if isinstance(row.get(c), float) else str(row.get(c, ""))).rjust(w) for c, w in zip(columns, widths))
        lines.append(str(group).ljust(width) + cells)
    return lines


def _env_class(env_id: str) -> Any:
    import importlib

    import mmenvs  # noqa: F401  (registers the ids)

    entry = gym.spec(env_id).entry_point
    if callable(entry):
        return entry
    module, _, name = str(entry).partition(":")
    return getattr(importlib.import_module(module), name)


def _groupable(value: Any) -> bool:
    return isinstance(value, (str, int, bool)) or (isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120]
