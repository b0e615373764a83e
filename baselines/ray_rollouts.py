"""Rollouts on Ray actors with a random policy, and the env creator a Ray-based trainer registers.

Each :class:`RolloutWorker` actor makes its own env inside its Ray worker with
``gym.make("mmenvs:ID", **env_kwargs)`` (the ``mmenvs:`` prefix imports mmenvs there, which registers the
ids: nothing has to be pickled but the id and its kwargs), plays random actions from the env's own
action grammar and returns transitions without images (rewards, flags, scores) and its step count.
The driver prints the throughput. See docs/ray.md.

    python -m mmenvs.baselines.ray_rollouts --env VTCBench-v0 --actors 2 --steps 200
    python -m mmenvs.baselines.ray_rollouts --env DebugEcho-v0 --address auto   # a running cluster

:func:`make_rllib_env` is the creator to give ``ray.tune.registry.register_env``: RLlib calls it in
each of its env runners with the ``env_config`` dict, and gets an env with ``Discrete`` actions over a
fixed menu and the image as a ``Box`` observation (the spaces RLlib's default models take).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from typing import Any, Sequence

import gymnasium as gym
import numpy as np


def make_rllib_env(config: dict[str, Any]) -> gym.Env:
    """An mmenvs env for RLlib: ``config`` holds ``env_id``, optional ``env_kwargs`` and ``actions``
    (the menu of action strings that ``Discrete(len(actions))`` indexes)."""
    from mmenvs.wrappers import DiscreteActions, ImageObservation

    env_id = config.get("env_id")
    if not env_id:
        raise ValueError("make_rllib_env: env_config needs 'env_id' (e.g. 'VTCBench-v0')")
    actions = config.get("actions")
    if not actions:
        raise ValueError(f"make_rllib_env: env_config needs 'actions', the action strings of {env_id} "
                         f"that the Discrete action space indexes")
    env = gym.make(f"mmenvs:{env_id}", **dict(config.get("env_kwargs") or {}))
    return ImageObservation(DiscreteActions(env, list(actions)))


class RolloutWorker:
    """One env in one Ray worker, stepping it with random actions (decorated with ``ray.remote`` by the driver)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None, seed: int = 0) -> None:
        from mmenvs.baselines import RandomAgent

        self.env = gym.make(f"mmenvs:{env_id}", **dict(env_kwargs or {}))
        self.agent = RandomAgent(seed=seed)
        self.agent.bind(self.env.unwrapped)
        self.seed = seed
        self.episodes = 0

    def ready(self) -> bool:
        """True once the env is made (the driver starts the clock after every actor is ready)."""
        return True

    def rollout(self, steps: int) -> dict[str, Any]:
        """``steps`` transitions (resetting at episode ends): rewards, termination flags and final scores."""
        rewards, dones, scores = [], [], []
        obs, info = self._reset()
        start = time.perf_counter()
        for _ in range(steps):
            obs, reward, terminated, truncated, info = self.env.step(self.agent.act(obs, info))
            rewards.append(float(reward))
            dones.append(bool(terminated or truncated))
            if terminated or truncated:
                scores.append(float(info.get("score", 0.0)))
                obs, info = self._reset()
        return {"steps": steps, "rewards": rewards, "dones": dones, "episode_scores": scores,
                "seconds": time.perf_counter() - start}

    def _reset(self) -> tuple[Any, dict[str, Any]]:
        self.episodes += 1
        obs, info = self.env.reset(seed=self.seed * 100_003 + self.episodes)
        self.agent.reset({**info, "attempt": self.episodes})
        return obs, info

    def close(self) -> None:
        self.env.close()


def collect(env_id: str, *, actors: int = 2, steps: int = 200, env_kwargs: dict[str, Any] | None = None,
            address: str | None = None) -> dict[str, Any]:
    """Run ``steps`` random steps on each of ``actors`` actors; return totals and throughput.

    Uses the Ray instance already started in this process if there is one; else connects to
    ``address`` or (None) starts a private local one with ``num_cpus=actors``, shut down at the end.
    """
    import ray

    temp_dir = None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, logging_level="warning")
        else:
            temp_dir = tempfile.mkdtemp(prefix="mmenvs-ray-")
            ray.init(num_cpus=actors, include_dashboard=False, _temp_dir=temp_dir, logging_level="warning")
    workers: list[Any] = []
    try:
        remote_worker = ray.remote(num_cpus=1)(RolloutWorker)
        workers = [remote_worker.remote(env_id, env_kwargs, seed) for seed in range(actors)]
        ray.get([w.ready.remote() for w in workers])  # start-up (process, imports, gym.make) is not throughput
        start = time.perf_counter()
        results = ray.get([w.rollout.remote(steps) for w in workers])
        wall = time.perf_counter() - start
        ray.get([w.close.remote() for w in workers])
    finally:
        for worker in workers:
            ray.kill(worker)
        if started:
            ray.shutdown()
        if temp_dir:
            shutil.rmtree(temp_dir, ignore_errors=True)
    total = sum(r["steps"] for r in results)
    scores = [s for r in results for s in r["episode_scores"]]
    return {"env_id": env_id, "actors": actors, "steps": total, "episodes": len(scores),
            "mean_episode_score": float(np.mean(scores)) if scores else None,
            "wall_seconds": wall, "steps_per_s": total / wall,
            "steps_per_s_per_actor": float(np.mean([r["steps"] / r["seconds"] for r in results]))}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m mmenvs.baselines.ray_rollouts", description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="VTCBench-v0", help="a registered mmenvs id")
    parser.add_argument("--actors", type=int, default=2, help="rollout actors (one env each)")
    parser.add_argument("--steps", type=int, default=200, help="random steps per actor")
    parser.add_argument("--address", default=None, help="a running Ray cluster (auto, ray://HOST:10001); default: a local one")
    args = parser.parse_args(argv)
    stats = collect(args.env, actors=args.actors, steps=args.steps, address=args.address)
    score = "-" if stats["mean_episode_score"] is None else f"{stats['mean_episode_score']:.3f}"
    print(f"{stats['env_id']}: {stats['steps']} steps, {stats['episodes']} episodes on {stats['actors']} actors in "
          f"{stats['wall_seconds']:.2f} s: {stats['steps_per_s']:.1f} steps/s "
          f"({stats['steps_per_s_per_actor']:.1f} per actor); mean episode score {score}")
    return stats


if __name__ == "__main__":
    main()
