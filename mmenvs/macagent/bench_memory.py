"""Peak memory of one MacAgent env over a long run (issue 7's target: ≤ 150 MB per env).

One env process plays the oracle through the first variant of every seed in the suite — every app,
every document kind, the shell, exports and their checks — so whatever a training run would load
sooner or later is loaded here. Run by ``mmenvs bench`` in a fresh process of its own; reports the
process's peak RSS and the peak PSS of the process with its children (sandboxed shell and Python
worker, short-lived document children), sampled after every episode.
"""

from __future__ import annotations

from typing import Any

from mmenvs.benchmarks.harness import peak_rss_mb, tree_pss_mb

TARGET_MB = 150.0


def workloads() -> list[dict[str, Any]]:
    """One row: peak RSS and peak tree PSS over an oracle run of every seed's first variant."""
    from mmenvs.baselines import OracleAgent
    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv()
    agent = OracleAgent()
    agent.bind(env)
    tasks = [t for t in env.task_ids() if t.endswith("-v0")]
    solved, tree_peak = 0, 0.0
    try:
        for task_id in tasks:
            obs, info = env.reset(options={"task_id": task_id})
            agent.reset(info)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
                done = terminated or truncated
            solved += info.get("success", False)
            tree_peak = max(tree_peak, tree_pss_mb())
    finally:
        env.close()
    return [{"name": "macagent: peak memory of one env over the whole suite (oracle, one variant per seed)",
             "median_ms": None, "p95_ms": None, "peak_rss_mb": peak_rss_mb(), "tree_pss_mb": tree_peak,
             "note": f"{len(tasks)} episodes in one process ({solved} solved); tree = env + sandboxed shell and "
                     f"workers, sampled after each episode; target ≤ {TARGET_MB:.0f} MB per env"}]
