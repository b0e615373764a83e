"""``mmenvs train``: train an SB3 policy on a task family and evaluate it against random on held-out tasks.

    mmenvs train DebugEcho-v0 --algo ppo --steps 6000 --n-envs 2 --out runs/echo --seed 0

A run trains on the family's training stream (``suite="train"``: fresh seeds or generated tasks,
``baselines/rl/families.py``) in ``--n-envs`` worker processes (SB3 ``SubprocVecEnv``; each env in a
``Monitor`` that records episode return, length and the benchmark score), logs to CSV (and
TensorBoard when it is installed), saves checkpoints, then evaluates the final policy and the
uniformly random policy over the same action menu on the family's pinned held-out suite (never a
task it trained on) and writes into ``--out``:

- ``eval.json``: ``{"trained": {"mean_score", "ci95", "episodes"}, "random": {...}, "heldout_suite": {...}, ...}``;
- ``curve.png``: the training episodes' score against steps, with both evaluations as bands;
- ``model.zip``, ``checkpoints/``, ``monitor/`` (one CSV per worker), ``logs/`` (progress.csv, tfevents).

The same ``--seed`` gives the same run: the same weights and the same ``eval.json`` scores (torch is
held to one thread, the workers are seeded ``seed + rank`` and the evaluation episodes are fixed).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

ALGOS = ("ppo", "maskable_ppo", "dqn")
#: Defaults for small CPU budgets (overridable with --algo-kwargs).
ALGO_DEFAULTS: dict[str, dict[str, Any]] = {
    "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 4, "learning_rate": 5e-4, "ent_coef": 0.01, "gamma": 0.95},
    "maskable_ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 4, "learning_rate": 5e-4, "ent_coef": 0.01, "gamma": 0.95},
    "dqn": {"learning_starts": 500, "train_freq": 4, "target_update_interval": 500, "exploration_fraction": 0.3,
            "learning_rate": 5e-4, "gamma": 0.95},
}
#: Episodes of the random policy per held-out task (it is stochastic). The trained policy is evaluated
#: deterministically, once per task, or with ``--eval-stochastic`` sampled from its action
#: distribution for as many episodes per task as the random policy.
RANDOM_REPEATS = 4


# ---------------------------------------------------------------------------------------------- statistics
def interval95(scores: Sequence[float]) -> list[float]:
    """A 95% interval of the mean score: Wilson's score interval when every score is 0 or 1 (a success
    rate: it stays inside [0, 1] and is not empty at 0/n or n/n), else Student's t interval."""
    values = np.asarray(list(scores), dtype=float)
    n = values.size
    if n == 0:
        return [float("nan"), float("nan")]
    mean = float(values.mean())
    if np.all((values == 0.0) | (values == 1.0)):
        z = 1.959963984540054
        centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return [max(0.0, centre - half), min(1.0, centre + half)]
    if n == 1:
        return [mean, mean]
    from scipy import stats

    half = float(stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / math.sqrt(n))
    return [mean - half, mean + half]


def summary(scores: Sequence[float]) -> dict[str, Any]:
    return {"mean_score": float(np.mean(scores)) if len(scores) else float("nan"), "ci95": interval95(scores),
            "episodes": len(scores), "success_rate": float(np.mean([s >= 1.0 for s in scores])) if len(scores) else float("nan")}


# ---------------------------------------------------------------------------------------------- envs
def _make_env(env_id: str, family_name: str, split: str, rank: int, monitor_dir: str | None, obs_size: tuple[int, int] | None,
              task_filter: Mapping[str, Any] | None) -> Any:
    """One wrapped env (picklable through functools.partial for SubprocVecEnv workers)."""
    import mmenvs  # noqa: F401  (registers the ids in a fresh worker)
    from stable_baselines3.common.monitor import Monitor

    from .families import get_family

    family = get_family(env_id, family_name)
    if task_filter is not None:
        family = _with_filter(family, task_filter)
    env = family.make(split=split, obs_size=obs_size)
    if monitor_dir is not None:
        env = Monitor(env, filename=os.path.join(monitor_dir, f"{split}_{rank}"), info_keywords=("score",))
    return env


def _with_filter(family: Any, task_filter: Mapping[str, Any]) -> Any:
    from dataclasses import replace

    return replace(family, task_filter=dict(task_filter))


def _policy_for(observation_space: Any, family: Any, algo: str) -> Any:
    """SB3's policy for the observation, or the family's own (``Family.policy``)."""
    from gymnasium import spaces

    if family.policy == "slots" and algo == "maskable_ppo":
        from .slot_policy import SlotScoringPolicy

        return SlotScoringPolicy
    if family.policy not in (None, "slots"):
        raise ValueError(f"family {family.name!r}: unknown policy {family.policy!r} (None or 'slots')")
    if isinstance(observation_space, spaces.Dict):
        return "MultiInputPolicy"
    if isinstance(observation_space, spaces.Box) and observation_space.dtype == np.uint8 and len(observation_space.shape) == 3:
        return "CnnPolicy"
    return "MlpPolicy"


def _masks(env: Any) -> np.ndarray | None:
    """The action mask of a (possibly wrapped) menu env, if it has one."""
    try:
        getter = env.get_wrapper_attr("action_masks")  # the outermost wrapper (or the env) that has it
    except AttributeError:
        return None
    return np.asarray(getter(), dtype=bool)


# ---------------------------------------------------------------------------------------------- evaluation
def heldout_task_ids(env: Any, limit: int | None) -> list[str]:
    ids = list(env.unwrapped.task_ids())
    if not ids:
        raise ValueError(f"{env.unwrapped.spec.id if env.unwrapped.spec else 'env'}: the held-out suite of the family is empty")
    return ids if limit is None else ids[:limit]


def run_episodes(env: Any, task_ids: Sequence[str], choose: Any, *, seed: int, repeats: int = 1) -> list[dict[str, Any]]:
    """One episode per task id and repeat; ``choose(obs, mask, rng) -> action index``. Returns records
    (task_id, score, success, steps)."""
    records = []
    for repeat in range(repeats):
        rng = np.random.default_rng([seed, repeat])
        for k, task_id in enumerate(task_ids):
            obs, info = env.reset(seed=seed + 7919 * repeat + k, options={"task_id": task_id})
            done, steps = False, 0
            while not done:
                action = choose(obs, _masks(env), rng)
                obs, _, terminated, truncated, info = env.step(action)
                steps += 1
                done = terminated or truncated
            records.append({"task_id": task_id, "repeat": repeat, "score": float(info.get("score", 0.0)),
                            "success": bool(info.get("success", False)), "steps": steps})
    return records


def evaluate_policies(model: Any, env: Any, task_ids: Sequence[str], *, seed: int, maskable: bool,
                      random_repeats: int = RANDOM_REPEATS, stochastic: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The trained policy and the uniformly random policy over the same menu (legal actions only;
    ``random_repeats`` episodes per task) on the held-out tasks. The trained policy takes its most likely
    action, once per task; with ``stochastic`` it samples its action distribution (the policy PPO
    optimises), ``random_repeats`` episodes per task, from torch's generator seeded with ``seed``."""
    def trained(obs: Any, mask: np.ndarray | None, rng: np.random.Generator) -> int:
        if maskable:
            action, _ = model.predict(obs, deterministic=not stochastic, action_masks=mask)
        else:
            action, _ = model.predict(obs, deterministic=not stochastic)
        return int(action)

    if stochastic:
        from stable_baselines3.common.utils import set_random_seed

        set_random_seed(seed)  # the same samples on a re-run

    def uniform(obs: Any, mask: np.ndarray | None, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(mask) if mask is not None else np.arange(env.action_space.n)
        return int(legal[int(rng.integers(len(legal)))])

    return (run_episodes(env, task_ids, trained, seed=seed, repeats=random_repeats if stochastic else 1),
            run_episodes(env, task_ids, uniform, seed=seed + 1, repeats=random_repeats))


# ---------------------------------------------------------------------------------------------- the curve
def plot_curve(monitor_dir: Path, out: Path, evaluation: Mapping[str, Any], title: str) -> Path:
    """Training episodes' score (rolling mean) against steps, with the evaluations' means and intervals."""
    import pandas as pd  # noqa: F401  (SB3's load_results needs pandas; SB3 depends on it)
    from stable_baselines3.common.monitor import load_results

    frame = load_results(str(monitor_dir))
    frame = frame.sort_values("t")
    steps = np.cumsum(frame["l"].to_numpy())
    scores = frame["score"].to_numpy(dtype=float) if "score" in frame else frame["r"].to_numpy(dtype=float)
    window = max(1, min(100, len(scores) // 10))
    smooth = np.convolve(scores, np.ones(window) / window, mode="valid") if len(scores) >= window else scores
    x = steps[window - 1:] if len(scores) >= window else steps
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # Pillow fallback: a plain line drawing
        return _plot_with_pillow(x, smooth, evaluation, out)
    figure, axes = plt.subplots(figsize=(7, 4), dpi=100)
    axes.plot(x, smooth, color="tab:blue", label=f"training episodes (rolling mean of {window})")
    for key, colour in (("trained", "tab:green"), ("random", "tab:red")):
        stats = evaluation[key]
        label = f"{key} on held-out: {stats['mean_score']:.2f} [{stats['ci95'][0]:.2f}, {stats['ci95'][1]:.2f}] (n={stats['episodes']})"
        axes.axhline(stats["mean_score"], color=colour, linestyle="--", label=label)
        axes.axhspan(stats["ci95"][0], stats["ci95"][1], color=colour, alpha=0.12)
    axes.set_xlabel("environment steps")
    axes.set_ylabel("benchmark score")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=7, loc="lower right")
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)
    return out


def _plot_with_pillow(x: np.ndarray, y: np.ndarray, evaluation: Mapping[str, Any], out: Path) -> Path:
    from PIL import Image, ImageDraw

    width, height, pad = 700, 400, 40
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    span = max(float(x[-1]) if len(x) else 1.0, 1.0)

    def point(px: float, py: float) -> tuple[float, float]:
        return pad + (width - 2 * pad) * px / span, height - pad - (height - 2 * pad) * py

    draw.rectangle([pad, pad, width - pad, height - pad], outline="black")
    if len(x) > 1:
        draw.line([point(a, b) for a, b in zip(x, y)], fill=(31, 119, 180), width=2)
    for key, colour in (("trained", (44, 160, 44)), ("random", (214, 39, 40))):
        level = evaluation[key]["mean_score"]
        draw.line([point(0, level), point(span, level)], fill=colour, width=1)
        draw.text(point(0, level), f"{key} {level:.2f}", fill=colour)
    image.save(out)
    return out


# ---------------------------------------------------------------------------------------------- training
def _algorithm(algo: str) -> Any:
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    from stable_baselines3 import DQN

    return DQN


def train(env_id: str, *, algo: str = "ppo", steps: int = 10_000, family: str | None = None, n_envs: int = 2,
          out: str | Path = "runs/train", seed: int = 0, obs_size: tuple[int, int] | None = None,
          task_filter: Mapping[str, Any] | None = None, eval_tasks: int | None = None, checkpoints: int = 4,
          vec: str = "subproc", algo_kwargs: Mapping[str, Any] | None = None, random_repeats: int = RANDOM_REPEATS,
          eval_stochastic: bool = False, evaluate_only: bool = False, verbose: int = 0) -> dict[str, Any]:
    """Train ``algo`` for ``steps`` environment steps on ``env_id``'s ``family``, evaluate, write ``out``.
    Returns the ``eval.json`` content. With ``evaluate_only``, the run in ``out`` is not trained again:
    its ``model.zip`` is evaluated (say, with ``eval_stochastic``) and ``eval.json`` and the curve are
    rewritten; ``steps`` and the training wall time are then taken from the run's previous ``eval.json``."""
    if algo not in ALGOS:
        raise ValueError(f"--algo must be one of {', '.join(ALGOS)}, got {algo!r}")
    if steps < 1 or n_envs < 1:
        raise ValueError(f"--steps and --n-envs must be positive, got {steps} and {n_envs}")
    if vec not in ("subproc", "dummy"):
        raise ValueError(f"--vec must be 'subproc' or 'dummy', got {vec!r}")
    import torch
    from stable_baselines3.common.utils import set_random_seed

    from .families import get_family

    chosen = get_family(env_id, family)
    if task_filter is not None:
        chosen = _with_filter(chosen, task_filter)
    out = Path(out)
    size = tuple(obs_size) if obs_size else None
    torch.set_num_threads(1)  # determinism (and a fair share of a small machine)
    set_random_seed(seed)
    started = time.monotonic()
    if evaluate_only:
        model, run = _saved_run(out, algo)
        steps, n_envs, policy, kwargs, formats = run["steps"], run["n_envs"], run["policy"], run["algo_kwargs"], run["log_formats"]
        train_seconds = run["wall_time_s"]["train"]
    else:
        model, policy, kwargs, formats = _learn(env_id, chosen, algo, steps, n_envs, out, seed, size, checkpoints, vec,
                                                algo_kwargs, verbose)
        train_seconds = round(time.monotonic() - started, 1)

    eval_env = _make_env(env_id, chosen.name, "eval", 0, None, size, chosen.task_filter)
    try:
        task_ids = heldout_task_ids(eval_env, eval_tasks)
        trained, random_ = evaluate_policies(model, eval_env, task_ids, seed=seed, maskable=algo == "maskable_ppo",
                                             random_repeats=random_repeats, stochastic=eval_stochastic)
        train_suite = {"suite": chosen.train_kwargs.get("suite"), "kwargs": _jsonable(chosen.train_kwargs)}
    finally:
        eval_env.close()
    result = {
        "env_id": env_id, "family": chosen.name, "description": chosen.description, "algo": algo, "steps": steps,
        "n_envs": n_envs, "seed": seed, "policy": policy if isinstance(policy, str) else policy.__name__, "algo_kwargs": _jsonable(kwargs), "obs_size": list(size or chosen.obs_size),
        "task_filter": _jsonable(chosen.task_filter), "menu": chosen.menu_doc(),
        "trained": summary([r["score"] for r in trained]), "random": summary([r["score"] for r in random_]),
        "trained_actions": "sampled" if eval_stochastic else "most likely",
        "heldout_suite": {"name": chosen.heldout, "kwargs": _jsonable(chosen.eval_kwargs), "task_ids": list(task_ids),
                          "random_repeats": random_repeats},
        "train_suite": train_suite,
        "wall_time_s": {"train": train_seconds, "total": round(time.monotonic() - started, 1)},
        "parameters": int(sum(p.numel() for p in model.policy.parameters())), "log_formats": formats,
        "episodes": {"trained": trained, "random": random_},
    }
    trained_ci, random_ci = result["trained"]["ci95"], result["random"]["ci95"]
    result["beats_random"] = bool(trained_ci[0] > random_ci[1])  # non-overlapping 95% intervals
    (out / "eval.json").write_text(json.dumps(result, indent=2) + "\n")
    try:
        plot_curve(out / "monitor", out / "curve.png", result, f"{env_id} / {chosen.name}: {algo}, {steps} steps, seed {seed}")
    except Exception as exc:  # noqa: BLE001 - the run's results are already written; say why the plot is missing
        print(f"mmenvs train: the learning curve could not be drawn: {exc}", file=sys.stderr)
    return result


def _learn(env_id: str, chosen: Any, algo: str, steps: int, n_envs: int, out: Path, seed: int, size: tuple[int, int] | None,
           checkpoints: int, vec: str, algo_kwargs: Mapping[str, Any] | None, verbose: int) -> tuple[Any, Any, dict[str, Any], list[str]]:
    """Train on the family's training stream; the model, its policy, the algorithm's arguments and the log formats."""
    from stable_baselines3.common.callbacks import CheckpointCallback
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    for sub in ("monitor", "checkpoints", "logs"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for stale in (out / "monitor").glob("*.monitor.csv"):
        stale.unlink()  # a re-run into the same folder plots only its own episodes
    factories = [functools.partial(_make_env, env_id, chosen.name, "train", rank, str(out / "monitor"), size, chosen.task_filter)
                 for rank in range(n_envs)]
    vec_env = SubprocVecEnv(factories) if vec == "subproc" and n_envs > 1 else DummyVecEnv(factories)
    if algo == "maskable_ppo":
        from mmenvs.wrappers.vec_masks import VecInfoMasks

        vec_env = VecInfoMasks(vec_env)  # the masks ride back with each step: no second round trip to the workers
    try:
        tuned = {k: v for k, v in chosen.algo_kwargs.items() if algo != "dqn" or k != "n_epochs"}
        kwargs = {**ALGO_DEFAULTS[algo], **tuned, **(algo_kwargs or {})}
        if algo == "dqn":
            kwargs.setdefault("buffer_size", min(steps, 5_000))
        policy = _policy_for(vec_env.observation_space, chosen, algo)
        model = _algorithm(algo)(policy, vec_env, seed=seed, device="cpu", verbose=verbose, **kwargs)
        formats = ["csv"]
        try:
            import tensorboard  # noqa: F401

            formats.append("tensorboard")
        except ImportError:
            print("mmenvs train: tensorboard is not installed, logging CSV only (pip install 'mmenvs[rl]')", file=sys.stderr)
        model.set_logger(configure(str(out / "logs"), formats))
        every = max(1, steps // max(1, checkpoints) // n_envs)
        callback = CheckpointCallback(save_freq=every, save_path=str(out / "checkpoints"), name_prefix="model")
        model.learn(total_timesteps=steps, callback=callback, progress_bar=False)
        model.save(str(out / "model.zip"))
    finally:
        vec_env.close()
    return model, policy, kwargs, formats


def _saved_run(out: Path, algo: str) -> tuple[Any, dict[str, Any]]:
    """A finished run's model and its previous ``eval.json`` (for ``evaluate_only``)."""
    model_file, eval_file = out / "model.zip", out / "eval.json"
    for needed in (model_file, eval_file):
        if not needed.is_file():
            raise FileNotFoundError(f"--evaluate-only: {needed} is missing (train the run into {out} first)")
    run = json.loads(eval_file.read_text())
    if run.get("algo") != algo:
        raise ValueError(f"--evaluate-only: {eval_file} was trained with --algo {run.get('algo')!r}, not {algo!r}")
    return _algorithm(algo).load(str(model_file), device="cpu"), run


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# ---------------------------------------------------------------------------------------------- CLI
def add_parser(commands: Any) -> None:
    parser = commands.add_parser("train", help="train an SB3 policy on a task family and evaluate it against random (docs/rl.md)")
    parser.add_argument("env_id")
    parser.add_argument("--algo", choices=ALGOS, default="ppo")
    parser.add_argument("--steps", type=int, default=10_000, help="environment steps of training")
    parser.add_argument("--family", default=None, help="training family (baselines/rl/families.py; default: the env's first)")
    parser.add_argument("--task-filter", default=None, help="JSON object replacing the family's task_filter, e.g. '{\"category\": \"chart\"}'")
    parser.add_argument("--n-envs", type=int, default=2, help="training envs (SubprocVecEnv worker processes)")
    parser.add_argument("--vec", choices=("subproc", "dummy"), default="subproc")
    parser.add_argument("--out", default=None, help="output folder (default runs/train-<ID>-<family>-<algo>)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--obs-size", type=int, nargs=2, metavar=("H", "W"), help="observation image size (default: the family's)")
    parser.add_argument("--eval-tasks", type=int, default=None, help="held-out tasks to evaluate on (default: all of the family)")
    parser.add_argument("--random-repeats", type=int, default=RANDOM_REPEATS, help="random-policy episodes per held-out task")
    parser.add_argument("--eval-stochastic", action="store_true",
                        help="evaluate the trained policy by sampling its actions, --random-repeats episodes per task (default: its most likely action, once per task)")
    parser.add_argument("--evaluate-only", action="store_true", help="evaluate the run already trained into --out (its model.zip) without training")
    parser.add_argument("--checkpoints", type=int, default=4, help="checkpoints saved during training")
    parser.add_argument("--algo-kwargs", default="", help="JSON object of extra SB3 algorithm arguments")
    parser.add_argument("--list-families", action="store_true", help="print the families and their menus, then exit")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from .families import FAMILIES, get_family

    if args.list_families:
        for family in FAMILIES.get(args.env_id, {}).values():
            print(f"{family.env_id} {family.name}: {family.description}\n  task_filter={dict(family.task_filter)}\n  "
                  + "\n  ".join(family.menu_doc()))
        return 0
    try:
        algo_kwargs = json.loads(args.algo_kwargs) if args.algo_kwargs else {}
        task_filter = json.loads(args.task_filter) if args.task_filter else None
    except json.JSONDecodeError as exc:
        raise ValueError(f"--algo-kwargs/--task-filter must be JSON objects: {exc}") from None
    name = get_family(args.env_id, args.family).name
    out = args.out or f"runs/train-{args.env_id}-{name}-{args.algo}"
    result = train(args.env_id, algo=args.algo, steps=args.steps, family=args.family, n_envs=args.n_envs, out=out, seed=args.seed,
                   obs_size=tuple(args.obs_size) if args.obs_size else None, task_filter=task_filter, eval_tasks=args.eval_tasks,
                   checkpoints=args.checkpoints, vec=args.vec, algo_kwargs=algo_kwargs, random_repeats=args.random_repeats,
                   eval_stochastic=args.eval_stochastic, evaluate_only=args.evaluate_only)
    for key in ("trained", "random"):
        stats = result[key]
        print(f"{key:>8}: mean score {stats['mean_score']:.3f}  95% [{stats['ci95'][0]:.3f}, {stats['ci95'][1]:.3f}]  "
              f"({stats['episodes']} episodes on {result['heldout_suite']['name']})")
    print(f"beats random (non-overlapping 95% intervals): {result['beats_random']}; "
          f"trained {result['steps']} steps in {result['wall_time_s']['train']} s")
    print(f"wrote {Path(out) / 'eval.json'}, {Path(out) / 'curve.png'}, {Path(out) / 'model.zip'}")
    return 0
