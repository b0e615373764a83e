"""VecInfoMasks: the masks it answers from the infos are the workers' own masks, after auto-resets too,
and it asks the workers only when the infos carry none."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import mmenvs  # noqa: F401
from mmenvs.wrappers.bench import _mac_menu_env
from mmenvs.wrappers.discrete import DiscreteActions, ImageObservation
from mmenvs.wrappers.menus import VTCBenchMenu
from mmenvs.wrappers.vec_masks import VecInfoMasks


def _vtc_menu() -> gym.Env:
    # image-only observations: DummyVecEnv buffers arrays, not the text parts of the obs dict
    return ImageObservation(VTCBenchMenu(gym.make("VTCBench-v0", obs_size=(64, 64))))


def _own_masks(vec: DummyVecEnv) -> np.ndarray:
    return np.stack([env.get_wrapper_attr("action_masks")() for env in vec.envs])


class _CountingVec(DummyVecEnv):
    """A DummyVecEnv that counts the action_masks calls it receives."""

    mask_calls = 0

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name == "action_masks":
            self.mask_calls += 1
        return super().env_method(method_name, *args, indices=indices, **kwargs)


def test_masks_come_from_the_infos_and_follow_auto_resets() -> None:
    inner = _CountingVec([_vtc_menu, _vtc_menu])
    vec = VecInfoMasks(inner)
    rng = np.random.default_rng(0)
    try:
        vec.seed(5)
        vec.reset()
        ended = 0
        for step in range(40):
            masks = np.stack(vec.env_method("action_masks"))
            own = _own_masks(inner)
            assert np.array_equal(masks, own), f"step {step}"
            # answer slots end a VTCBench episode: pick one every 3rd step, a tool preset otherwise
            presets = len(inner.envs[0].get_wrapper_attr("presets"))
            answers = [np.flatnonzero(m[presets:]) + presets for m in masks]
            actions = [int(rng.choice(a)) if step % 3 == 2 and len(a) else int(rng.choice(np.flatnonzero(m)))
                       for a, m in zip(answers, masks)]
            vec.step_async(np.array(actions))
            _obs, _rewards, dones, _infos = vec.step_wait()
            ended += int(dones.sum())
        assert ended >= 4  # the check above ran on new episodes' masks too
        assert inner.mask_calls == 0  # never asked the envs
        assert np.array_equal(vec.action_masks(), _own_masks(inner))
    finally:
        vec.close()


def test_an_env_without_masks_in_its_infos_is_asked_and_other_methods_drop_the_cache() -> None:
    inner = _CountingVec([lambda: ImageObservation(DiscreteActions(gym.make("DebugEcho-v0"), ["SAY hi", "FAIL"]))])
    vec = VecInfoMasks(inner)
    try:
        vec.reset()
        assert vec.env_method("action_masks")[0].tolist() == [True, True] and inner.mask_calls == 1
        assert vec.env_method("action_masks")[0].tolist() == [True, True] and inner.mask_calls == 1  # kept
    finally:
        vec.close()
    inner = _CountingVec([_vtc_menu])
    vec = VecInfoMasks(inner)
    try:
        vec.reset()
        vec.env_method("action_masks")
        assert inner.mask_calls == 0
        vec.env_method("describe")  # any other method might change the state
        assert np.array_equal(vec.env_method("action_masks")[0], _own_masks(inner)[0]) and inner.mask_calls == 1
    finally:
        vec.close()


def test_subproc_workers_masks_match_a_round_trip_through_resets() -> None:
    vec = VecInfoMasks(SubprocVecEnv([_mac_menu_env, _mac_menu_env]))
    rng = np.random.default_rng(1)
    try:
        vec.seed(0)
        vec.reset()
        n = vec.action_space.n
        ended = 0
        for step in range(24):
            masks = np.stack(vec.env_method("action_masks"))
            asked = np.stack(vec.venv.env_method("action_masks"))  # the round trip the wrapper saves
            assert np.array_equal(masks, asked), f"step {step}"
            actions = [n - 1 if step % 6 == 5 else int(rng.choice(np.flatnonzero(m))) for m in masks]  # DONE: a reset
            vec.step_async(np.array(actions))
            _obs, _rewards, dones, _infos = vec.step_wait()
            ended += int(dones.sum())
        assert ended >= 6
    finally:
        vec.close()
