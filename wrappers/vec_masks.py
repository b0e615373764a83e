"""``VecInfoMasks``: action masks of a vector env's menu envs without a round-trip to the workers.

sb3-contrib's ``MaskablePPO`` asks for the masks before every step with
``vec_env.env_method("action_masks")``: on a ``SubprocVecEnv`` that is one more message to every worker
and back, serial with the step, and a second barrier per step where the parent waits for the slowest
worker. The menus (``mmenvs.wrappers.menus``) already return the mask with every observation
(``info["action_mask"]`` after ``reset`` and every ``step``), so this wrapper keeps the masks that the
last ``reset`` and ``step_wait`` brought back and answers ``env_method("action_masks")`` (and
``action_masks()``) from them::

    vec = VecInfoMasks(SubprocVecEnv(factories))
    model = MaskablePPO("MultiInputPolicy", vec, ...)

When a worker's episode ended in a step, the vec env has already reset it: the mask that counts is the
new episode's (from ``reset_infos``), not the final state's (the step's ``info``). An env whose infos carry
no ``action_mask`` (not a menu) is asked through ``env_method`` as before, and so is every env after
any other ``env_method`` or ``set_attr`` call (it may have changed an env's state).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

MASK_KEY = "action_mask"
METHOD = "action_masks"


class VecInfoMasks(VecEnvWrapper):
    """Answers ``env_method("action_masks")`` from the masks in the last reset/step infos (see the module)."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self._masks: list[np.ndarray | None] = [None] * self.num_envs

    def reset(self) -> Any:
        obs = self.venv.reset()
        self.reset_infos = list(self.venv.reset_infos)  # a VecEnvWrapper's own reset_infos stays empty otherwise
        self._masks = [_mask_of(info) for info in self.reset_infos]
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        self.reset_infos = list(self.venv.reset_infos)
        # an ended episode was reset inside the vec env: its next mask is the new episode's
        self._masks = [_mask_of(self.reset_infos[i] if done else info) for i, (done, info) in enumerate(zip(dones, infos))]
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The masks of all envs, stacked (``num_envs × n``), as ``np.stack(env_method("action_masks"))``."""
        return np.stack(self.env_method(METHOD))

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == METHOD and not method_args and not method_kwargs:
            wanted = self._indices(indices)
            missing = [i for i in wanted if self._masks[i] is None]
            if missing:  # no mask in the infos (not a menu env, or before the first reset): ask the workers
                for i, mask in zip(missing, self.venv.env_method(METHOD, indices=missing)):
                    self._masks[i] = np.asarray(mask, dtype=bool)
            return [self._masks[i].copy() for i in wanted]
        self._masks = [None] * self.num_envs  # another method may change an env's state: ask for masks again
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._masks = [None] * self.num_envs  # as for env_method: the state may have changed
        return self.venv.set_attr(attr_name, value, indices)

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]


def _mask_of(info: dict[str, Any] | None) -> np.ndarray | None:
    mask = (info or {}).get(MASK_KEY)
    return None if mask is None else np.asarray(mask, dtype=bool)
