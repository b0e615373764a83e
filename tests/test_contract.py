"""The env contract of DESIGN.md, checked on every registered id (new ids are covered automatically)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from gymnasium.wrappers import RecordEpisodeStatistics
from hypothesis import given, settings
from hypothesis import strategies as st

import mmenvs
from mmenvs.baselines import OracleAgent

ENV_IDS = list(mmenvs.ENV_IDS)


@pytest.fixture(params=ENV_IDS)
def env_id(request):
    return request.param


def make(env_id, **kwargs):
    return gym.make(env_id, **kwargs)


def test_every_declared_id_is_registered():
    from mmenvs.core.registry import env_specs

    assert ENV_IDS == [spec.id for spec in env_specs()]
    for env_id in ENV_IDS:
        assert env_id in gym.registry


def test_check_env_plain_and_wrapped(env_id):
    env = make(env_id)
    try:
        check_env(env.unwrapped, skip_render_check=False)
    finally:
        env.close()
    wrapped = RecordEpisodeStatistics(make(env_id))
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*different from the unwrapped.*")
            check_env(wrapped)
    finally:
        wrapped.close()


def test_close_twice_and_render(env_id):
    env = make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    env.close()
    env.close()


@pytest.mark.parametrize("vector_cls, kwargs", [(SyncVectorEnv, {}), (AsyncVectorEnv, {"shared_memory": False})])
def test_vector_envs_step(env_id, vector_cls, kwargs):
    vector = vector_cls([lambda: make(env_id)] * 2, **kwargs)
    try:
        obs, info = vector.reset(seed=[3, 4])
        assert obs["image"].shape[0] == 2 and len(obs["text"]) == 2
        base = make(env_id)
        actions = []
        for seed in (3, 4):
            base.reset(seed=seed)
            actions.append(base.unwrapped.random_action(np.random.default_rng(seed)))
        base.close()
        obs, reward, terminated, truncated, info = vector.step(tuple(actions))
        assert reward.shape == (2,) and terminated.shape == (2,)
        assert all(isinstance(t, str) for t in obs["text"])
    finally:
        vector.close()


def test_same_seed_same_first_observation_in_process(env_id):
    first, second = make(env_id), make(env_id)
    try:
        obs_a, info_a = first.reset(seed=11)
        obs_b, info_b = second.reset(seed=11)
        assert info_a["task_id"] == info_b["task_id"]
        assert obs_a["text"] == obs_b["text"]
        assert np.array_equal(obs_a["image"], obs_b["image"])
    finally:
        first.close()
        second.close()


_FINGERPRINT = """
import hashlib, json, sys, gymnasium as gym, mmenvs
env = gym.make(sys.argv[1])
out = []
for seed in (0, 1, 2):
    obs, info = env.reset(seed=seed)
    digest = hashlib.sha256(obs["text"].encode() + obs["image"].tobytes()).hexdigest()
    out.append([info["task_id"], digest])
env.close()
print(json.dumps(out))
"""


def test_same_seed_same_task_across_fresh_processes(env_id):
    runs = [subprocess.run([sys.executable, "-c", _FINGERPRINT, env_id], capture_output=True, text=True, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first == second


def test_mmenvs_prefix_make_in_fresh_process(env_id):
    code = f"import gymnasium as gym; env = gym.make('mmenvs:{env_id}'); env.reset(seed=0); env.close(); print('ok')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]


def test_task_options(env_id):
    env = make(env_id)
    try:
        ids = env.unwrapped.task_ids()
        assert ids, "every env ships a non-empty suite"
        _, info = env.reset(options={"task_id": ids[-1]})
        assert info["task_id"] == ids[-1]
        with pytest.raises(ValueError):
            env.reset(options={"task_id": "no-such-task-id"})
        with pytest.raises(ValueError):
            env.reset(options={"bogus": 1})
    finally:
        env.close()


def test_info_keys_and_error_as_observation(env_id):
    env = make(env_id)
    try:
        _, info = env.reset(seed=5)
        for key in ("task_id", "step", "score", "success", "action_error", "images"):
            assert key in info
        # Malformed in every grammar: a code block that is not valid Python.
        obs, reward, terminated, truncated, info = env.step("```python\n)(\x00 not python\n```")
        assert info["action_error"], "a malformed action must be reported in info['action_error']"
        assert info["action_error"] in obs["text"] or obs["text"].startswith("Error")
        assert env.observation_space.contains(obs)
        assert info["step"] == 1
    finally:
        env.close()


def _play_oracle(env):
    agent = OracleAgent()
    agent.bind(env.unwrapped)
    obs, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    agent.reset(info)
    rewards = []
    terminated = truncated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        rewards.append(reward)
    return rewards, info


def test_reward_modes_final_and_progress_sum_to_score(env_id):
    final_env, progress_env = make(env_id), make(env_id, reward_mode="progress")
    try:
        final_rewards, final_info = _play_oracle(final_env)
        progress_rewards, progress_info = _play_oracle(progress_env)
    finally:
        final_env.close()
        progress_env.close()
    assert all(r == 0.0 for r in final_rewards[:-1])
    assert final_rewards[-1] == pytest.approx(final_info["score"])
    assert sum(progress_rewards) == pytest.approx(progress_info["score"])
    assert final_info["score"] == pytest.approx(1.0) and final_info["success"]


def test_step_cap_truncates(env_id):
    env = make(env_id, max_steps=3)
    try:
        env.reset(seed=0)
        for _ in range(3):
            _, _, terminated, truncated, info = env.step("WAIT")
            if terminated or truncated:
                break
        assert terminated or truncated, "the episode must end by the step cap"
        assert truncated == (not terminated)
        if truncated:
            assert info["step"] == 3
    finally:
        env.close()


def test_max_steps_kwarg_sets_the_one_cap_larger_or_smaller_than_the_default(env_id):
    """gym.make(ID, max_steps=N) ends the episode at exactly N actions, above and below the env's default:
    no Gymnasium TimeLimit from the registry cuts it short."""
    default = make(env_id).unwrapped.max_steps
    for cap in (max(1, default // 4), default + 7):
        env = make(env_id, max_steps=cap)
        try:
            wrapper = env
            while isinstance(wrapper, gym.Wrapper):
                assert not isinstance(wrapper, gym.wrappers.TimeLimit), f"{env_id}: the registry added a TimeLimit"
                wrapper = wrapper.env
            env.reset(seed=0)
            for step in range(1, cap + 1):
                # a malformed action: an error observation that changes nothing and never ends the task
                _, _, terminated, truncated, info = env.step({"not_an_action": step})
                assert info["action_error"] and not terminated
                assert truncated == (step == cap), f"{env_id} with max_steps={cap}: truncated={truncated} at step {step}"
        finally:
            env.close()


def test_a_benchmark_cannot_overwrite_standard_info_or_observation_keys():
    """Benchmark keys merged into info or the observation may not clash with the ones MMEnv owns."""
    from mmenvs.core import ActionOutcome, Evaluation, MMEnv

    class Clashing(MMEnv):
        def task_ids(self):
            return ["t"]

        def load_task(self, task_id):
            return {"id": task_id}

        def begin(self, task):
            return "go"

        def act(self, action):
            return ActionOutcome(text="ok", info={action: 1})

        def evaluate(self):
            return Evaluation(0.0, False)

    env = Clashing(obs_size=(8, 8))
    env.reset(seed=0)
    _, _, _, _, info = env.step("own_key")
    assert info["own_key"] == 1
    for standard in ("score", "images", "task_id"):
        with pytest.raises(RuntimeError, match=rf"standard key\(s\) \['{standard}'\]"):
            env.step(standard)

    class BadDetails(Clashing):
        def evaluate(self):
            return Evaluation(0.0, False, {"success": True})

    with pytest.raises(RuntimeError, match="evaluation details"):
        BadDetails(obs_size=(8, 8)).reset(seed=0)


def test_sandbox_options_are_checked_up_front(env_id):
    with pytest.raises(ValueError, match=r"sandbox_options has unknown keys \['timeout_s'\]"):
        make(env_id, sandbox_options={"timeout_s": 3})


@pytest.mark.parametrize("fuzz_env_id", ENV_IDS)
def test_fuzzed_actions_never_raise(fuzz_env_id):
    env = make(fuzz_env_id)
    env.reset(seed=0)
    space = env.observation_space

    @settings(max_examples=40, deadline=None)
    @given(st.one_of(
        st.text(max_size=200),
        st.text(alphabet=st.sampled_from('{}[]":,\\ntrue0123456789abc'), max_size=200),
        st.builds(lambda body: "```python\n" + body + "\n```", st.text(max_size=80)),
        st.builds(lambda body: "<answer>" + body + "</answer>", st.text(max_size=40)),
        st.sampled_from(["", " ", "x" * 1_000_000, "{" * 100_000, "DONE", "FAIL", "WAIT", "<answer>", "```"]),
    ))
    def check(action):
        obs, reward, terminated, truncated, info = env.step(action)
        assert space.contains(obs)
        assert isinstance(reward, float)
        if terminated or truncated:
            env.reset(seed=0)

    try:
        check()
    finally:
        env.close()
