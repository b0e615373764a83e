"""Agents that play mmenvs environments (importable as ``mmenvs.baselines``).

An agent maps an observation (and the step's ``info``) to an action string::

    class MyAgent:
        def reset(self, task_info: dict) -> None: ...
        def act(self, obs: dict, info: dict) -> str | dict: ...

Agents that need the environment itself (the oracle reads the task's reference solution, the
random agent the env's action grammar) also implement ``bind(env)``, which the runner calls with
the unwrapped env before each episode.

The LLM agent (``load_agent("llm", model=..., base_url=...)``, in ``mmenvs.baselines.llm``) drives any
OpenAI-compatible endpoint in each paper's agent set-up; it needs the ``llm`` extra. An agent raises
``InfrastructureFailure`` when what it depends on (an endpoint) failed rather than the agent itself.
"""

from .agents import Agent, InfrastructureFailure, OracleAgent, RandomAgent, load_agent

__all__ = ["Agent", "InfrastructureFailure", "OracleAgent", "RandomAgent", "load_agent"]
