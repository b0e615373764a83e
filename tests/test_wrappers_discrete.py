"""``DiscreteActions`` (wrappers/discrete.py): fixed action lists with callable entries built from the
unwrapped env when chosen, the all-True ``action_masks()``, and the training families built from the
wrappers' classes (no second copy of them in baselines/rl/families.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401
from mmenvs.wrappers import DiscreteActions, HashedText, ImageOnly, MultiInputObservation


def test_callable_entries_are_built_from_the_unwrapped_env_when_chosen():
    """A tool call on "the newest image" names the image the env holds at the step it is chosen."""
    seen = []

    def on_newest(env):
        seen.append(env)
        return {"name": "histogram", "arguments": {"image": env.images.latest(), "method": "equalize"}}

    env = DiscreteActions(gym.make("VTCBench-v0", obs_size=(40, 40), mode="tool", max_steps=6), ["<answer>A</answer>", on_newest])
    try:
        assert env.action_space == gym.spaces.Discrete(2) and seen == []  # not called when the menu is built
        env.reset(seed=0)
        first = env.unwrapped.images.latest()
        _, _, terminated, _, info = env.step(1)
        assert not terminated and not info.get("action_error"), info.get("action_error")
        assert len(seen) == 1 and seen[0] is env.unwrapped
        second = env.unwrapped.images.latest()
        assert second != first  # the tool made a new image ...
        assert env.action(1)["arguments"]["image"] == second  # ... and the entry now names it
        assert env.action(0) == "<answer>A</answer>"
        with pytest.raises(ValueError, match="action 2 is outside 0..1"):
            env.action(2)
    finally:
        env.close()


def test_action_masks_are_all_true_and_reach_maskable_ppo_through_wrappers():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    actions = ["SAY hello", "FAIL", "<answer>apple</answer>"]
    env = ImageOnly(DiscreteActions(gym.make("DebugEcho-v0", obs_size=(40, 40)), actions))
    masks = env.get_wrapper_attr("action_masks")()
    assert masks.dtype == bool and masks.shape == (3,) and masks.all()
    vec = DummyVecEnv([lambda: ImageOnly(DiscreteActions(gym.make("DebugEcho-v0", obs_size=(40, 40)), actions))] * 2)
    try:
        vec.reset()
        stacked = get_action_masks(vec)
        assert stacked.shape == (2, 3) and stacked.all()
    finally:
        vec.close()
        env.close()
    with pytest.raises(ValueError, match="the action list is empty"):
        DiscreteActions(gym.make("DebugEcho-v0"), [])


def _chain(env):
    kinds = []
    while isinstance(env, gym.Wrapper):
        kinds.append(type(env))
        env = env.env
    return kinds


def test_training_families_use_the_wrappers_classes():
    from mmenvs.baselines.rl import families

    for name in ("MenuActions", "hashed_words", "ImageAndText"):
        assert not hasattr(families, name), f"baselines/rl/families.py defines {name} again (use mmenvs.wrappers)"
    assert families.ImageOnly is ImageOnly and families.DiscreteActions is DiscreteActions
    echo = families.get_family("DebugEcho-v0", "cards").make(split="eval")
    try:
        assert _chain(echo)[:2] == [ImageOnly, DiscreteActions]
    finally:
        echo.close()
    mac = families.get_family("MacAgent-v0", "programs").make(split="eval")
    try:
        assert _chain(mac)[:2] == [MultiInputObservation, DiscreteActions]
        assert set(mac.observation_space.spaces) == {"instruction", "text", "step"}  # observation="text": no image
        obs, _ = mac.reset(seed=0, options={"task_id": mac.unwrapped.task_ids()[0]})
        encoder = HashedText(256)
        instruction = mac.unwrapped.task.instruction
        assert np.array_equal(obs["instruction"], encoder(instruction)) and np.abs(obs["instruction"]).sum() > 0
        assert obs["step"].tolist() == [0.0]
        obs, _, _, _, _ = mac.step(0)  # a program: the instruction stays, the step count moves to 1 / max_steps (2)
        assert np.array_equal(obs["instruction"], encoder(instruction)) and obs["step"].tolist() == [0.5]
    finally:
        mac.close()
