"""The agent protocol, the random and oracle agents, and loading an agent by name."""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

import numpy as np


class InfrastructureFailure(RuntimeError):
    """Something the agent depends on failed, not the agent: an LLM endpoint still failing after its
    retries, rejected credentials, a cache miss in replay mode. The runner records the episode with
    this error and counts it apart (``infra_failures``), never as a score of 0.

    ``kind`` is a short machine-readable label ("http_429", "timeout", "connection", "cache_miss", …).
    """

    def __init__(self, message: str, *, kind: str = "infrastructure") -> None:
        super().__init__(message)
        self.kind = kind


@runtime_checkable
class Agent(Protocol):
    """What the evaluation runner drives."""

    def reset(self, task_info: dict[str, Any]) -> None:
        """A new episode starts; ``task_info`` is the ``info`` that ``env.reset`` returned."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        """The next action for observation ``obs``."""


class RandomAgent:
    """Draws actions from the env's own action grammar (``env.random_action``), seeded per episode.

    It is the floor every benchmark's suite must keep near zero.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._env: Any = None
        self._rng = np.random.default_rng(seed)

    def bind(self, env: Any) -> None:
        self._env = env

    def reset(self, task_info: dict[str, Any]) -> None:
        # Seed from the task and base seed, so an episode's random actions do not depend on worker order.
        key = f"{self.seed}:{task_info.get('task_id', '')}:{task_info.get('attempt', 0)}"
        self._rng = np.random.default_rng(list(key.encode()))

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        if self._env is None:
            raise RuntimeError("RandomAgent.act: call bind(env) first (the runner does this)")
        return self._env.random_action(self._rng)


class OracleAgent:
    """Replays the current task's reference solution through ``env.oracle_action``.

    Each benchmark implements ``oracle_action(obs, info)`` on its env; on every shipped task the
    oracle must reach the full score.
    """

    def __init__(self) -> None:
        self._env: Any = None

    def bind(self, env: Any) -> None:
        self._env = env

    def reset(self, task_info: dict[str, Any]) -> None:
        pass

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        if self._env is None:
            raise RuntimeError("OracleAgent.act: call bind(env) first (the runner does this)")
        return self._env.oracle_action(obs, info)


def _llm_agent(**kwargs: Any) -> Any:
    # Imported on use: the LLM agent needs the `llm` extra (openai, tenacity).
    from mmenvs.baselines.llm.agent import LLMAgent

    return LLMAgent(**kwargs)


_BUILTIN = {"random": RandomAgent, "oracle": OracleAgent, "llm": _llm_agent}


def load_agent(spec: str, **kwargs: Any) -> Any:
    """An agent from ``"random"``, ``"oracle"``, ``"llm"`` (``model=``, ``base_url=``, ``api_key=``,
    ``framework=``, … of ``mmenvs.baselines.llm.LLMAgent``) or ``"package.module:ClassName"``."""
    if spec in _BUILTIN:
        return _BUILTIN[spec](**kwargs)
    if ":" not in spec:
        raise ValueError(f"unknown agent {spec!r}: use 'random', 'oracle', 'llm' or 'package.module:ClassName'")
    module_name, _, class_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r}: cannot import module {module_name!r} ({exc})") from None
    try:
        cls = getattr(module, class_name)
    except AttributeError:
        raise ValueError(f"agent {spec!r}: module {module_name!r} has no attribute {class_name!r}") from None
    agent = cls(**kwargs)
    if not callable(getattr(agent, "act", None)) or not callable(getattr(agent, "reset", None)):
        raise ValueError(f"agent {spec!r}: {class_name} must define reset(task_info) and act(obs, info)")
    return agent
