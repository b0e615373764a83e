"""A soak run: many MacAgent steps with frequent resets in a vector env, watching for crashes and
memory growth (issue 19 item 9). Not a test: it takes minutes to an hour.

    python3 -m mmenvs.benchmarks.soak --steps 100000 --workers 2 --reset-every 25 --out soak.json

Each worker steps ``MacAgentMenu(MacAgent-v0, obs_size=(128, 128))`` with a masked random policy and
resets every ``--reset-every`` steps (or when the episode ends). Every ``--sample-every`` steps the
proportional set size of each worker's process tree (its shells included) is recorded. The report
gives the first and last quarter's median PSS per worker: flat memory means the last is within a few
MB of the first.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, Sequence

import numpy as np


def _make_env() -> Any:
    from mmenvs.wrappers.bench import _mac_menu_env

    return _mac_menu_env()


def soak(steps: int, workers: int, reset_every: int, sample_every: int, seed: int = 0,
         progress: str | None = None) -> dict[str, Any]:
    """Run the soak; the report as a dict (samples, crashes, first/last-quarter memory). With
    ``progress``, each sample is also appended to that file as a JSON line (a long run shows its state)."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from mmenvs.benchmarks.harness import tree_pss_mb
    from mmenvs.wrappers.vec_masks import VecInfoMasks

    vec = VecInfoMasks(SubprocVecEnv([_make_env for _ in range(workers)]))  # masks from the step infos, as in training
    rng = np.random.default_rng(seed)
    samples: list[dict[str, Any]] = []
    errors: list[str] = []
    start = time.perf_counter()
    done_steps = 0
    try:
        vec.seed(seed)
        vec.reset()
        since_reset = 0
        while done_steps < steps:
            masks = np.stack(vec.env_method("action_masks"))
            actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
            vec.step_async(actions)
            _obs, _rewards, _dones, infos = vec.step_wait()  # ended episodes are reset by the vec env
            errors += [str(i["internal_error"])[:200] for i in infos if i.get("internal_error")]
            done_steps += workers
            since_reset += 1
            if since_reset >= reset_every:
                vec.reset()
                since_reset = 0
            if done_steps % (sample_every * workers) == 0 or done_steps >= steps:
                pids = [p.pid for p in vec.venv.processes]
                samples.append({"steps": done_steps, "seconds": round(time.perf_counter() - start, 1),
                                "pss_mb": [round(tree_pss_mb(pid), 1) for pid in pids], "internal_errors": len(errors)})
                if progress:
                    with open(progress, "a") as fh:
                        fh.write(json.dumps(samples[-1]) + "\n")
    finally:
        vec.close()
    quarter = max(1, len(samples) // 4)
    first = np.median([s["pss_mb"] for s in samples[:quarter]], axis=0).tolist() if samples else []
    last = np.median([s["pss_mb"] for s in samples[-quarter:]], axis=0).tolist() if samples else []
    return {"steps": done_steps, "workers": workers, "reset_every": reset_every,
            "seconds": round(time.perf_counter() - start, 1), "internal_errors": errors,
            "pss_mb_first_quarter": first, "pss_mb_last_quarter": last, "samples": samples}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m mmenvs.benchmarks.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reset-every", type=int, default=25)
    parser.add_argument("--sample-every", type=int, default=500)
    parser.add_argument("--out", default=None, help="write the report as JSON here")
    args = parser.parse_args(argv)
    report = soak(args.steps, args.workers, args.reset_every, args.sample_every,
                  progress=f"{args.out}.progress.jsonl" if args.out else None)
    text = json.dumps(report, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    summary = {k: v for k, v in report.items() if k != "samples"}
    print(json.dumps(summary))
    return 1 if report["internal_errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
