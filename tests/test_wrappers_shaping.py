"""Reward shaping and reward components (issue 19 items 5-6): the potential-based shaping identity,
per-step reward components, and MacAgent's reward_guards="after_goal" training reward."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401
from mmenvs.macagent.checkpoints.evaluation import reward_parts
from mmenvs.wrappers import PotentialShaping, score_potential, step_penalty_potential

SMALL = (32, 32)


def _text_potential(obs, info):
    return len(obs["text"]) / 50.0 + 0.25 * info["step"]


def _run(env, actions, seed=0, options=None):
    obs, info = env.reset(seed=seed, options=options)
    rewards, infos, observations = [], [info], [obs]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        infos.append(info)
        observations.append(obs)
        if terminated or truncated:
            return rewards, infos, observations, terminated, truncated
    return rewards, infos, observations, False, False


def _discounted(rewards, gamma):
    return sum(gamma ** t * r for t, r in enumerate(rewards))


@pytest.mark.parametrize("terminal", ["zero", "keep"])
@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_shaped_return_differs_by_the_telescoped_potential_on_termination(terminal, gamma):
    actions = ["SAY a", "SAY a longer sentence", "SAY mid", "<answer>apple</answer>"]
    plain = gym.make("DebugEcho-v0", obs_size=SMALL)
    shaped = PotentialShaping(gym.make("DebugEcho-v0", obs_size=SMALL), _text_potential, gamma=gamma, terminal=terminal)
    try:
        r0, _, _, _, _ = _run(plain, actions, options={"task_id": "echo-00"})
        r1, infos, observations, terminated, _ = _run(shaped, actions, options={"task_id": "echo-00"})
        assert terminated and len(r0) == len(r1) == 4 and r0[-1] == 1.0
        T = len(r1)
        phi_0 = _text_potential(observations[0], infos[0])
        phi_T = 0.0 if terminal == "zero" else _text_potential(observations[-1], infos[-1])
        assert _discounted(r1, gamma) - _discounted(r0, gamma) == pytest.approx(gamma ** T * phi_T - phi_0, abs=1e-12)
        assert phi_0 == pytest.approx(len(observations[0]["text"]) / 50.0) and phi_0 > 1.0  # the shaping is not trivial
        for t in range(1, T + 1):  # each step: F = gamma * Phi(s_t) - Phi(s_{t-1}), in the components
            info = infos[t]
            assert info["unshaped_reward"] == r0[t - 1]
            assert info["reward_components"]["score"] + info["reward_components"]["shaping"] == pytest.approx(r1[t - 1], abs=1e-12)
            assert info["potential"] == pytest.approx(phi_T if t == T else _text_potential(observations[t], info))
    finally:
        plain.close()
        shaped.close()


def test_truncation_keeps_the_last_potential_even_with_terminal_zero():
    gamma = 0.95
    env = PotentialShaping(gym.make("DebugEcho-v0", obs_size=SMALL, max_steps=3), _text_potential, gamma=gamma)
    try:
        rewards, infos, observations, terminated, truncated = _run(env, ["SAY one", "SAY two two", "SAY three three three"])
        assert truncated and not terminated
        unshaped = [i["unshaped_reward"] for i in infos[1:]]
        phi_0, phi_T = _text_potential(observations[0], infos[0]), _text_potential(observations[-1], infos[-1])
        assert phi_T != 0.0
        assert _discounted(rewards, gamma) - _discounted(unshaped, gamma) == pytest.approx(gamma ** 3 * phi_T - phi_0, abs=1e-12)
    finally:
        env.close()


def test_score_potential_adds_the_score_changes_and_step_penalty():
    env = PotentialShaping(gym.make("VTCBench-v0", obs_size=SMALL), score_potential, gamma=1.0, terminal="keep")
    try:
        obs, info = env.reset(seed=5)
        problem = env.unwrapped.task
        _, reward, terminated, _, info = env.step('{"name": "flip", "arguments": {"image": "img_0"}}')
        assert reward == 0.0 and info["reward_components"] == {"score": 0.0, "shaping": 0.0}
        _, reward, terminated, _, info = env.step(f"<answer>{problem.answer}</answer>")
        assert terminated and info["score"] == 1.0
        assert reward == 2.0 and info["reward_components"] == {"score": 1.0, "shaping": 1.0}  # final payment + the score's change
    finally:
        env.close()
    env = PotentialShaping(gym.make("DebugEcho-v0", obs_size=SMALL), step_penalty_potential(0.1), gamma=1.0, terminal="keep")
    try:
        env.reset(seed=0)
        rewards = [env.step("SAY x")[1] for _ in range(3)]
        assert rewards == pytest.approx([-0.1, -0.1, -0.1])
    finally:
        env.close()


def test_shaping_rejects_bad_arguments_and_bad_potentials():
    base = gym.make("DebugEcho-v0", obs_size=SMALL)
    try:
        with pytest.raises(ValueError, match="gamma must lie in"):
            PotentialShaping(base, score_potential, gamma=1.5)
        with pytest.raises(ValueError, match="terminal must be one of"):
            PotentialShaping(base, score_potential, terminal="never")
        env = PotentialShaping(base, lambda obs, info: float("nan"))
        with pytest.raises(ValueError, match="finite number"):
            env.reset(seed=0)
    finally:
        base.close()


def test_env_reward_components_sum_to_the_reward_in_both_modes():
    for mode in ("final", "progress"):
        env = gym.make("DebugEcho-v0", obs_size=SMALL, reward_mode=mode)
        try:
            env.reset(options={"task_id": "echo-01"})
            _, reward, _, _, info = env.step("SAY x")
            assert reward == 0.0 and info["reward_components"] == {"score": 0.0}
            _, reward, _, _, info = env.step("<answer>banana</answer>")
            assert reward == 1.0 and info["reward_components"] == {"score": 1.0}
            _, reward, _, _, info = env.step("SAY after the end")
            assert reward == 0.0 and info["reward_components"] == {}
        finally:
            env.close()


# ---------------------------------------------------------------------------------------------- MacAgent guards
GUARDED = "clock-alarm-reschedule-v0"  # 3 checkpoints, 1 guard; solved by its reference solution


def test_reward_parts():
    goal_a = {"passed": True, "guard": False}
    goal_b = {"passed": False, "guard": False}
    guard = {"passed": True, "guard": True}
    assert reward_parts([goal_a, goal_b, guard], "always") == {"goal_checkpoints": 1 / 3, "guard_checkpoints": 1 / 3}
    assert reward_parts([goal_a, goal_b, guard], "after_goal") == {"goal_checkpoints": 1 / 3, "guard_checkpoints": 1 / 3}
    assert reward_parts([goal_b, guard], "after_goal") == {"goal_checkpoints": 0.0, "guard_checkpoints": 0.0}
    assert reward_parts([goal_b, guard], "always") == {"goal_checkpoints": 0.0, "guard_checkpoints": 0.5}
    assert reward_parts([guard, {"passed": False, "guard": True}], "after_goal") == {"goal_checkpoints": 0.0, "guard_checkpoints": 0.5}
    with pytest.raises(ValueError, match="reward_guards must be one of"):
        reward_parts([guard], "sometimes")


@pytest.mark.parametrize("mode", ["final", "progress"])
def test_done_first_pays_nothing_with_after_goal_but_the_score_stays_the_papers(mode):
    paper = gym.make("MacAgent-v0", obs_size=SMALL, reward_mode=mode)
    guarded = gym.make("MacAgent-v0", obs_size=SMALL, reward_mode=mode, reward_guards="after_goal")
    try:
        for env in (paper, guarded):
            env.reset(options={"task_id": GUARDED})
        _, r_paper, _, _, i_paper = paper.step("DONE")
        _, r_guarded, terminated, _, i_guarded = guarded.step("DONE")
        assert terminated and i_paper["score"] == i_guarded["score"] == pytest.approx(1 / 3)  # the guard passes: the paper's Score
        assert r_paper == pytest.approx(1 / 3) and i_paper["reward_components"] == {"checkpoints": pytest.approx(1 / 3)}
        assert r_guarded == 0.0 and i_guarded["reward_components"] == {"goal_checkpoints": 0.0, "guard_checkpoints": 0.0}
        assert i_guarded["success"] is False
    finally:
        paper.close()
        guarded.close()
    with pytest.raises(ValueError, match="reward_guards must be one of"):
        gym.make("MacAgent-v0", reward_guards="never")


def test_after_goal_pays_the_guards_once_the_task_is_done_and_components_add_up():
    env = gym.make("MacAgent-v0", obs_size=SMALL, reward_mode="progress", reward_guards="after_goal")
    try:
        obs, info = env.reset(options={"task_id": GUARDED})
        total, goal_paid, guard_shares = 0.0, 0.0, []
        while True:
            obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action(obs, info))
            parts = info["reward_components"]
            assert set(parts) == {"goal_checkpoints", "guard_checkpoints"} and sum(parts.values()) == pytest.approx(reward, abs=1e-12)
            goal_paid += parts["goal_checkpoints"]
            guard_shares.append((goal_paid, parts["guard_checkpoints"]))
            total += reward
            if terminated or truncated:
                break
        assert info["success"] and info["score"] == 1.0 and total == pytest.approx(1.0)
        # the guard's third is paid once, at the step where the first goal checkpoint passed, never before
        paid = [(goal, share) for goal, share in guard_shares if not np.isclose(share, 0.0)]
        assert len(paid) == 1 and paid[0][1] == pytest.approx(1 / 3) and paid[0][0] > 0
        assert all(np.isclose(share, 0.0) for goal, share in guard_shares if np.isclose(goal, 0.0))
    finally:
        env.close()
