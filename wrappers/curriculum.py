"""A curriculum over task families: move to the next family once the agent does well on the current one.

``Curriculum(env, stages, promote_at=0.7, window=20)`` takes a list of ``task_filter`` dicts (see
``mmenvs.core.families``), typically rising difficulty of a generator::

    env = Curriculum(gym.make("MMToolSandbox-v0", suite="train"),
                     stages=[{"difficulty": {"max": 0.3}}, {"difficulty": {"max": 0.6}}, {"difficulty": {"max": 1.0}}])

It applies ``stages[0]`` first (``env.unwrapped.set_task_filter``), keeps the mean benchmark score
(``info["score"]`` at episode end) of the last ``window`` episodes, and when it reaches ``promote_at``
applies the next stage at the next reset (the window starts over). ``info["curriculum_stage"]`` says
which stage an episode ran in. The envs with ``set_task_filter``: DebugEcho, MacAgent, MMToolSandbox
(difficulty is MMToolSandbox's generator knob). Stages never go back.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Mapping, Sequence

import gymnasium as gym


class Curriculum(gym.Wrapper):
    """See the module docstring."""

    def __init__(self, env: gym.Env, stages: Sequence[Mapping[str, Any]], *, promote_at: float = 0.7, window: int = 20) -> None:
        super().__init__(env)
        if not stages:
            raise ValueError("Curriculum: stages is empty (give at least one task_filter)")
        if not hasattr(env.unwrapped, "set_task_filter"):
            raise ValueError(f"Curriculum: {type(env.unwrapped).__name__} has no set_task_filter(); it cannot change its family")
        if not 0.0 < promote_at <= 1.0 or window < 1:
            raise ValueError(f"Curriculum: promote_at must be in (0, 1] and window ≥ 1, got {promote_at}, {window}")
        self.stages = [dict(stage) for stage in stages]
        self.promote_at, self.window = float(promote_at), int(window)
        self.stage = 0
        self.scores: deque[float] = deque(maxlen=self.window)
        self._pending = False
        env.unwrapped.set_task_filter(self.stages[0])

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        if self._pending:
            self.stage += 1
            self.env.unwrapped.set_task_filter(self.stages[self.stage])
            self.scores.clear()
            self._pending = False
        observation, info = self.env.reset(**kwargs)
        info["curriculum_stage"] = self.stage
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        info["curriculum_stage"] = self.stage
        if terminated or truncated:
            self.scores.append(float(info.get("score", 0.0)))
            full = len(self.scores) == self.window
            if full and self.stage + 1 < len(self.stages) and sum(self.scores) / self.window >= self.promote_at:
                self._pending = True
        return observation, reward, terminated, truncated, info
