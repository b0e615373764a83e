"""The evaluation runner behind ``mmenvs eval``: episodes in a process pool, records, summary, plot.

Each worker process makes its env through ``gym.make("mmenvs:ID")`` (so registration happens in the
worker), keeps it for all its episodes, and writes each episode's steps to disk as it goes. The parent
collects one record per episode into ``episodes.jsonl`` and writes ``summary.json`` and ``summary.png``.

An episode whose agent raised ``InfrastructureFailure`` (an LLM endpoint that kept failing) is recorded
with ``infra_failure`` and ``score: null``: it is counted in ``infra_failures`` and left out of every
score, pass@k and breakdown. Agents with a ``ledger()`` (calls, tokens, cost) have it in each record
and summed in the summary. ``resume=True`` keeps the finished episodes of an earlier ``episodes.jsonl``
(infrastructure failures are run again). Ctrl-C stops the workers and keeps every finished record.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import shutil
import signal
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
#: Ledger fields summed over episodes in summary.json (agents may report more; these are added up).
LEDGER_TOTALS = ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "total_tokens", "retries", "reprompts",
                 "action_errors")


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
    server: str | None = None  # a `mmenvs serve` URL: the env runs there (mmenvs.remote.RemoteEnv)


_WORKER_ENVS: dict[tuple[str, str, str | None], gym.Env] = {}


def _env_for(job: EpisodeJob) -> gym.Env:
    key = (job.env_id, json.dumps(job.env_kwargs, sort_keys=True), job.server)  # a remote env is not a local one
    env = _WORKER_ENVS.get(key)
    if env is None and job.server:
        from mmenvs.remote import RemoteEnv

        env = _WORKER_ENVS[key] = RemoteEnv(job.server, job.env_id, **job.env_kwargs)
    if env is None:
        env = gym.make(f"mmenvs:{job.env_id}", **job.env_kwargs)
        _WORKER_ENVS[key] = env
    return env


def base_record(job: EpisodeJob) -> dict[str, Any]:
    """The record of an episode before it runs (score 0, no steps): what ``run_episode`` fills in."""
    return {"env_id": job.env_id, "task_id": job.task_id, "attempt": job.attempt, "seed": job.seed,
            "agent": job.agent, "score": 0.0, "success": False, "steps": 0, "return": 0.0,
            "terminated": False, "truncated": False, "task_meta": {}, "error": None}


def infra_failure_record(job: EpisodeJob, *, kind: str, error: str, traceback_text: str | None = None) -> dict[str, Any]:
    """The record of an episode the infrastructure failed (an endpoint, a Ray actor that kept dying):
    ``infra_failure`` set, ``score``/``success`` None, so it is counted apart and never scored."""
    return {**base_record(job), "score": None, "success": None, "error": traceback_text or error,
            "infra_failure": {"kind": kind, "error": error}}


def run_episode(job: EpisodeJob) -> dict[str, Any]:
    """Run one episode and return its record. Never raises (but for Ctrl-C): a crash becomes
    ``record["error"]`` (scored 0); an ``InfrastructureFailure`` also sets ``record["infra_failure"]``
    and ``score``/``success`` to None (not scored)."""
    from mmenvs.baselines import InfrastructureFailure, load_agent

    record = base_record(job)
    recorder = None
    agent = None
    try:
        env = _env_for(job)
        agent = load_agent(job.agent, **job.agent_kwargs)
        if hasattr(agent, "bind"):
            agent.bind(env.unwrapped)
        obs, info = env.reset(seed=job.seed, options={"task_id": job.task_id})
        record["task_meta"] = to_jsonable(info.get("task_meta", {}))
        if job.record_dir:
            shutil.rmtree(job.record_dir, ignore_errors=True)  # an episode folder holds one run (a resumed one starts over)
            recorder = EpisodeRecorder(job.record_dir)
            recorder.record_reset(obs, info, getattr(env.unwrapped, "images", None))
        agent.reset({**info, "attempt": job.attempt})
        terminated = truncated = False
        while not (terminated or truncated):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            record["return"] += float(reward)
            if recorder:
                recorder.record_step(action, obs, reward, terminated, truncated, info, getattr(env.unwrapped, "images", None))
        record.update(score=float(info["score"]), success=bool(info["success"]), steps=int(info["step"]),
                      terminated=bool(terminated), truncated=bool(truncated))
        if isinstance(info.get("infra_failure"), dict):  # the env lost its machine (a VM guest died): not scored
            record.update(score=None, success=None, infra_failure=dict(info["infra_failure"]))
        final = to_jsonable({k: v for k, v in info.items() if k not in ("task_id", "step", "score", "success", "images")})
        if len(json.dumps(final)) <= _RECORD_INFO_LIMIT:
            record["final_info"] = final
    except InfrastructureFailure as exc:  # not the agent's doing: recorded, never scored
        record.update(score=None, success=None, error=traceback.format_exc(limit=8),
                      infra_failure={"kind": exc.kind, "error": str(exc)})
    except Exception as exc:  # one broken episode must not sink the run; it is reported and scored 0
        record["error"] = traceback.format_exc(limit=8)
        kind = getattr(exc, "infra_kind", None)  # e.g. a VM guest that would not boot, a task its guest cannot run
        if isinstance(kind, str):
            record.update(score=None, success=None, infra_failure={"kind": kind, "error": str(exc)})
    finally:
        if recorder:
            recorder.close()
        if agent is not None:
            _agent_facts(agent, record)
    return record


def _agent_facts(agent: Any, record: dict[str, Any]) -> None:
    """The agent's ledger and set-up into the record, and its resources released."""
    for key, method in (("ledger", "ledger"), ("agent_config", "config")):
        getter = getattr(agent, method, None)
        if callable(getter):
            try:
                record[key] = to_jsonable(getter())
            except Exception as exc:  # a faulty report must not lose the episode
                record[key] = {"error": f"{type(exc).__name__}: {exc}"}
    close = getattr(agent, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            pass


def close_worker_envs() -> None:
    """Close the envs this process keeps between episodes (after an interrupt, or when a worker ends)."""
    while _WORKER_ENVS:
        _, env = _WORKER_ENVS.popitem()
        try:
            env.close()
        except Exception:
            pass


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: the parent handles it and ends the workers with SIGTERM,
    # on which a worker closes its envs (and their sandboxes) before it exits.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_terminated)


def _worker_terminated(signum: int, frame: Any) -> None:
    close_worker_envs()
    os._exit(128 + signum)


def is_scored(record: dict[str, Any]) -> bool:
    """Whether a record counts in scores (infrastructure failures do not)."""
    return not record.get("infra_failure")


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
            record_dir = str(Path(out) / "episodes" / episode_dir_name(task_id, attempt)) if out else None
            jobs.append(EpisodeJob(env_id, task_id, attempt, agent, seed + attempt, dict(env_kwargs or {}),
                                   dict(agent_kwargs or {}), record_dir))
    return jobs


def run_jobs(jobs: Sequence[EpisodeJob], *, workers: int = 1, progress: bool = True,
             on_record: Callable[[dict[str, Any]], None] | None = None,
             ray_address: str | None = None) -> list[dict[str, Any]]:
    """Run ``jobs`` (in-process for one worker, else in a spawn-based process pool; with ``ray_address``
    on ``workers`` Ray actors, see ``mmenvs.distributed.ray_runner``) and return their
    records in job order. ``on_record`` sees each record as it finishes. On Ctrl-C the workers are
    ended (their envs closed) and ``KeyboardInterrupt`` propagates; records already passed to
    ``on_record`` are kept."""
    from tqdm import tqdm

    records: list[dict[str, Any] | None] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), disable=not progress, unit="ep", dynamic_ncols=True)
    tally = {"scored": 0, "score": 0.0, "successes": 0, "tokens": 0, "errors": 0, "infra": 0}

    def finish(index: int, record: dict[str, Any]) -> None:
        records[index] = record
        ledger = record.get("ledger") or {}
        tally["tokens"] += int(ledger.get("total_tokens", 0) or 0)
        if not is_scored(record):
            tally["infra"] += 1
        else:
            tally["scored"] += 1
            tally["score"] += float(record["score"])
            tally["successes"] += bool(record["success"])
            tally["errors"] += bool(record.get("error"))
        bar.update(1)
        postfix = {"score": f"{tally['score'] / tally['scored']:.3f}" if tally["scored"] else "-",
                   "success": f"{tally['successes'] / tally['scored']:.1%}" if tally["scored"] else "-",
                   "errors": tally["errors"], "infra": tally["infra"]}
        if tally["tokens"]:
            postfix["tokens"] = _short_count(tally["tokens"])
        bar.set_postfix(postfix, refresh=False)
        if on_record:
            on_record(record)

    try:
        if ray_address is not None:  # "local" starts a private Ray instance; else the cluster to connect to
            from mmenvs.distributed.ray_runner import run_on_ray

            run_on_ray(jobs, finish, address=ray_address, actors=workers)
        elif workers <= 1:
            try:
                for index, job in enumerate(jobs):
                    finish(index, run_episode(job))
            finally:  # in this process: the run's envs (their sandboxes, shells, sessions) end with the run
                close_worker_envs()
        else:
            # spawn: workers import mmenvs afresh (as `mmenvs:ID` requires) and may start sandbox children.
            context = multiprocessing.get_context("spawn")
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init)
            try:
                pending: dict[Future, int] = {pool.submit(run_episode, job): i for i, job in enumerate(jobs)}
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        finish(pending.pop(future), future.result())
            except BaseException:
                _end_pool(pool)
                raise
            pool.shutdown(wait=True)
    finally:
        bar.close()
    return [r for r in records if r is not None]


def _end_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the worker processes (SIGTERM, then SIGKILL after 10 s)."""
    processes = list(getattr(pool, "_processes", {}).values())  # the executor has no public handle on them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)


def _short_count(value: int) -> str:
    return f"{value / 1e6:.1f}M" if value >= 1e6 else f"{value / 1e3:.1f}k" if value >= 1e3 else str(value)


def summarize(env_id: str, records: Sequence[dict[str, Any]], attempts: int) -> dict[str, Any]:
    """summary.json's content: overall metrics, per-field breakdowns, the benchmark's own tables, the
    infrastructure failures (kept out of every score) and the agents' ledger totals."""
    scored = [r for r in records if is_scored(r)]
    ks = sorted({1, attempts})
    summary: dict[str, Any] = {"env_id": env_id, "attempts": attempts, **summarize_attempts(scored, ks)}
    summary["errors"] = sum(1 for r in scored if r.get("error"))
    summary["infra_failures"] = len(records) - len(scored)
    if summary["infra_failures"]:
        kinds: dict[str, int] = {}
        for record in records:
            if not is_scored(record):
                kind = str(record["infra_failure"].get("kind", "infrastructure"))
                kinds[kind] = kinds.get(kind, 0) + 1
        summary["infra_failure_kinds"] = kinds
    ledgers = [r["ledger"] for r in records if isinstance(r.get("ledger"), dict) and "error" not in r["ledger"]]
    if ledgers:
        totals: dict[str, Any] = {key: sum(int(l.get(key, 0) or 0) for l in ledgers) for key in LEDGER_TOTALS}
        costs = [l.get("cost_usd") for l in ledgers if l.get("cost_usd") is not None]
        totals["cost_usd"] = float(sum(costs)) if costs else None
        totals["episodes"] = len(ledgers)
        summary["ledger"] = totals
    fields = sorted({k for r in scored for k, v in r.get("task_meta", {}).items() if _groupable(v)})
    summary["breakdowns"] = {name: breakdown(scored, name, ks) for name in fields}
    env_class = _env_class(env_id)
    extra = getattr(env_class, "summarize_episodes", None)
    if extra is not None and scored:
        summary.update(to_jsonable(extra(list(scored))))
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
    resume: bool = False,
    ray_address: str | None = None,
    server: str | None = None,
) -> dict[str, Any]:
    """Run an evaluation and write ``episodes.jsonl``, ``summary.json`` and ``summary.png`` under ``out``.

    ``resume``: keep the records of ``out/episodes.jsonl`` for planned episodes that finished (all but
    infrastructure failures) and run only the others; the summary covers both. ``ray_address``: run
    the episodes on ``workers`` Ray actors (``"local"``: a private local instance; else a cluster address).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    task_ids = select_tasks(env_id, tasks, env_kwargs or {})
    jobs = plan_jobs(env_id, task_ids, agent=agent, attempts=attempts, seed=seed, env_kwargs=env_kwargs,
                     agent_kwargs=agent_kwargs, out=out if record_steps else None)
    if server:  # each worker opens its sessions on that server instead of making the env
        jobs = [dataclasses.replace(job, server=server) for job in jobs]
    episodes = out / "episodes.jsonl"
    kept: list[dict[str, Any]] = []
    if resume and episodes.exists():
        kept = finished_records(episodes, env_id=env_id, agent=agent, planned={(j.task_id, j.attempt) for j in jobs})
        done = {(r["task_id"], r["attempt"]) for r in kept}
        jobs = [j for j in jobs if (j.task_id, j.attempt) not in done]
    _write_records(episodes, kept)  # a resumed file keeps only what is reused; a fresh run starts empty
    with open(episodes, "a", encoding="utf-8") as handle:
        def write(record: dict[str, Any]) -> None:
            handle.write(json.dumps(to_jsonable(record), ensure_ascii=False) + "\n")
            handle.flush()

        records = run_jobs(jobs, workers=workers, progress=progress, on_record=write, ray_address=ray_address)
    summary = summarize(env_id, kept + records, attempts)
    if resume:
        summary["resumed_episodes"] = len(kept)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    plot_summary(summary, out / "summary.png")
    return summary


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of an ``episodes.jsonl``; a torn last line (a run killed mid-write) is skipped."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise ValueError(f"{path}: line {number} is not a JSON record; cannot resume from this file") from None
        if not isinstance(record, dict) or not {"task_id", "attempt"} <= set(record):
            raise ValueError(f"{path}: line {number} is not an episode record (needs task_id and attempt)")
        records.append(record)
    return records


def finished_records(path: str | Path, *, env_id: str, agent: str, planned: set[tuple[str, int]]) -> list[dict[str, Any]]:
    """The records of ``path`` a resumed run keeps: planned episodes that finished (the last record
    of each), infrastructure failures left out so they run again. Records of another env or agent
    are an error (the folder belongs to another run)."""
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for record in read_records(path):
        if record.get("env_id") != env_id or record.get("agent") != agent:
            raise ValueError(f"{path}: cannot resume: it holds episodes of env {record.get('env_id')!r} with agent "
                             f"{record.get('agent')!r}, not {env_id!r} with {agent!r}; choose another --out")
        latest[(str(record["task_id"]), int(record["attempt"]))] = record
    return [r for key, r in latest.items() if key in planned and is_scored(r)]


def _write_records(path: Path, records: Sequence[dict[str, Any]]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(to_jsonable(record), ensure_ascii=False) + "\n")
    os.replace(temporary, path)


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
    head.append(f"mean score 95% CI [{low:.3f}, {high:.3f}]; errors: {summary.get('errors', 0)}; "
                f"infrastructure failures (not scored): {summary.get('infra_failures', 0)}")
    ledger = summary.get("ledger")
    if ledger:
        cost = f", cost ${ledger['cost_usd']:.4f}" if ledger.get("cost_usd") is not None else ""
        head.append(f"model calls: {ledger['calls']} ({ledger['cached_calls']} from cache, {ledger['retries']} retries, "
                    f"{ledger['reprompts']} re-prompts); tokens: {ledger['prompt_tokens']} prompt + "
                    f"{ledger['completion_tokens']} completion{cost}")
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


def safe_file_name(name: str) -> str:
    """``name`` with every character but letters, digits and ``-_.`` replaced by ``_`` (at most 120)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120]


def episode_dir_name(task_id: str, attempt: int) -> str:
    """The folder of one episode's step records under ``<run>/episodes/`` (``mmenvs view`` reads it back)."""
    return f"{safe_file_name(task_id)}__a{attempt}"
