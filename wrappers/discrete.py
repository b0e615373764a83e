"""Wrappers that expose mmenvs envs through spaces SB3 and other RL libraries understand."""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class DiscreteActions(gym.ActionWrapper):
    """Replace the text action space with ``Discrete(len(actions))`` over a fixed list of actions.

    Each action is a string (or dict) in the wrapped env's grammar, e.g. a menu of tool calls or
    GUI clicks for a task family. The agent picks an index; the env receives the action.
    """

    def __init__(self, env: gym.Env, actions: Sequence[str | dict[str, Any]]):
        super().__init__(env)
        if not actions:
            raise ValueError("DiscreteActions: the action list is empty")
        self.actions = list(actions)
        self.action_space = spaces.Discrete(len(self.actions))

    def action(self, action: int | np.integer) -> str | dict[str, Any]:
        index = int(action)
        if not 0 <= index < len(self.actions):
            raise ValueError(f"DiscreteActions: action {index} is outside 0..{len(self.actions) - 1}")
        return self.actions[index]


class ImageObservation(gym.ObservationWrapper):
    """Keep only ``obs["image"]``: a uint8 ``(H, W, 3)`` Box, as SB3's ``CnnPolicy`` expects."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        if not isinstance(env.observation_space, spaces.Dict) or "image" not in env.observation_space.spaces:
            raise ValueError("ImageObservation: the wrapped env's observation space must be a Dict with an 'image' key")
        self.observation_space = env.observation_space["image"]

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return observation["image"]
