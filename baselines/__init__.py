"""Agents that play mmenvs environments (importable as ``mmenvs.baselines``).

An agent maps an observation (and the step's ``info``) to an action string::

    class MyAgent:
        def reset(self, task_info: dict) -> None: ...
        def act(self, obs: dict, info: dict) -> str | dict: ...

Agents that need the environment itself (the oracle reads the task's reference solution, the
random agent the env's action grammar) also implement ``bind(env)``, which the runner calls with
the unwrapped env before each episode.
"""

from .agents import Agent, OracleAgent, RandomAgent, load_agent

__all__ = ["Agent", "OracleAgent", "RandomAgent", "load_agent"]
