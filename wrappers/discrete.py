"""Wrappers that expose mmenvs envs through spaces SB3 and other RL libraries understand."""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces


#: One entry of a ``DiscreteActions`` list: a fixed action, or a function of the unwrapped env that
#: builds the action when it is chosen (e.g. a tool call on the newest image id).
ActionEntry = Union[str, dict[str, Any], Callable[[Any], Union[str, dict[str, Any]]]]


class DiscreteActions(gym.ActionWrapper):
    """Replace the text action space with ``Discrete(len(actions))`` over a fixed list of actions.

    Each action is a string (or dict) in the wrapped env's grammar, e.g. a menu of tool calls or
    GUI clicks for a task family, or a callable that gets the unwrapped env and returns one when the
    index is chosen (so a tool call can name the image the env made last). The agent picks an index;
    the env receives the action. Every index is always legal: ``action_masks()`` is all True (so
    sb3-contrib's ``MaskablePPO`` takes it like the state-dependent menus of ``wrappers/menus.py``).
    """

    def __init__(self, env: gym.Env, actions: Sequence[ActionEntry]):
        super().__init__(env)
        if not actions:
            raise ValueError("DiscreteActions: the action list is empty")
        self.actions = list(actions)
        self.action_space = spaces.Discrete(len(self.actions))

    def action(self, action: int | np.integer) -> str | dict[str, Any]:
        index = int(action)
        if not 0 <= index < len(self.actions):
            raise ValueError(f"DiscreteActions: action {index} is outside 0..{len(self.actions) - 1}")
        entry = self.actions[index]
        return entry(self.env.unwrapped) if callable(entry) else entry

    def action_masks(self) -> np.ndarray:
        """All True: every index of a fixed list is always available."""
        return np.ones(len(self.actions), dtype=bool)


class ImageObservation(gym.ObservationWrapper):
    """Keep only ``obs["image"]``: a uint8 ``(H, W, 3)`` Box, as SB3's ``CnnPolicy`` expects."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        if not isinstance(env.observation_space, spaces.Dict) or "image" not in env.observation_space.spaces:
            raise ValueError("ImageObservation: the wrapped env's observation space must be a Dict with an 'image' key")
        self.observation_space = env.observation_space["image"]

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return observation["image"]
