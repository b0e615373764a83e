"""MacAgent-v0 on the simulated desktop: the starter suite's shape, the oracle at 100% of checkpoints,
the random agent at ~0, progress rewards, fresh training variants, and bad input as observations."""

from __future__ import annotations

import json
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401  (registers the ids)
from mmenvs.macagent.env import MacAgentEnv
from mmenvs.macagent.tasks import APPS, CATEGORIES
from mmenvs.macagent.checkpoints import TAGS


@pytest.fixture(scope="module")
def env():
    environment = MacAgentEnv()
    yield environment
    environment.close()


def run(env, agent, task_id=None, seed=None):
    options = {"task_id": task_id} if task_id else None
    obs, info = env.reset(seed=seed, options=options)
    rewards, done, infos = [], False, [info]
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent(obs, info))
        rewards.append(reward)
        infos.append(info)
        done = terminated or truncated
    return rewards, info, infos


def test_starter_suite_covers_apps_tags_kinds_and_multi_app(env):
    seeds = env.seeds()
    assert len(seeds) >= 24 and len(env.task_ids()) == 4 * len(seeds)
    tasks = [seed.variant(0) for seed in seeds]
    assert {app for t in tasks for app in t.apps} == set(APPS)
    assert {tag for t in tasks for tag in t.tags} == set(TAGS)
    assert {t.category for t in tasks} == set(CATEGORIES)
    kinds = Counter(t.interaction for t in tasks)
    assert kinds["gui"] >= 5 and kinds["cli"] >= 5 and kinds["both"] >= 4, kinds
    multi = [t for t in tasks if len(t.apps) > 1]
    assert len(multi) >= 6 and all(2 <= len(t.checkpoints) <= 7 for t in multi)
    assert any(c.guard for t in tasks for c in t.checkpoints)
    # every seed's four variants differ in parameters (substitution), and seeds with templates in phrasing
    for seed in seeds:
        variants = [seed.variant(k) for k in range(4)]
        assert len({json.dumps(v.params, sort_keys=True) for v in variants}) > 1, seed.id
        if len(seed.templates) > 1:
            assert len({v.instruction for v in variants}) > 1, seed.id


@pytest.mark.slow
def test_oracle_passes_every_checkpoint_of_the_starter_suite(env):
    # The seeds added later (issue 8) have their own oracle test over every variant (test_macagent_suite.py).
    from test_macagent_suite import STARTER

    starter = [t for t in env.task_ids() if t.rsplit("-v", 1)[0] in STARTER]
    assert len(starter) == 4 * len(STARTER)
    failures = []
    for task_id in starter:
        _, info, infos = run(env, lambda o, i: env.oracle_action(o, i), task_id)
        errors = [i["action_error"] for i in infos[1:] if i.get("action_error")]
        if not info["success"] or info["score"] != 1.0 or errors:
            failures.append((task_id, errors, [c for c in info["checkpoints"] if not c["passed"]]))
    assert not failures, failures


@pytest.mark.slow
def test_fresh_training_variants_are_solved_by_the_oracle():
    env = MacAgentEnv(suite="train")
    try:
        seen = set()
        for seed in range(12):
            _, info, _ = run(env, lambda o, i: env.oracle_action(o, i), seed=seed)
            assert info["success"], (info["task_id"], info["checkpoints"])
            seen.add(info["task_id"])
        assert len(seen) >= 10 and all("-t" in task_id for task_id in seen)  # small parameter spaces may repeat
    finally:
        env.close()


@pytest.mark.slow
def test_random_agent_scores_about_zero():
    env = MacAgentEnv(max_steps=12)
    rng = np.random.default_rng(0)
    try:
        successes, earned = 0, []
        for seed in env.seeds():
            _, info, _ = run(env, lambda o, i: env.random_action(rng), seed.variant_ids()[1])
            successes += info["success"]
            # guard checkpoints pass when nothing was touched; count only the ones that need work
            work = [c for c in info["checkpoints"] if not c["guard"]]
            earned.append(sum(c["passed"] for c in work) / len(work))
        assert successes == 0
        assert float(np.mean(earned)) < 0.05, earned
    finally:
        env.close()


def test_progress_rewards_sum_to_the_final_score_on_gui_and_mixed_tasks():
    env = MacAgentEnv(reward_mode="progress")
    try:
        for task_id in ("notes-append-line-v1", "multi-safari-weather-v2", "multi-invite-to-calendar-v0"):
            rewards, info, _ = run(env, lambda o, i: env.oracle_action(o, i), task_id)
            assert sum(rewards) == pytest.approx(info["score"]) == pytest.approx(1.0)
            assert sum(r > 0 for r in rewards) >= 2, rewards  # partial progress is paid as it happens
    finally:
        env.close()


def test_gym_make_observation_and_no_host_paths():
    env = gym.make("MacAgent-v0")
    try:
        obs, info = env.reset(options={"task_id": "terminal-count-errors-v2"})
        assert env.observation_space.contains(obs)
        assert obs["image"].shape == (400, 640, 3) and "AXDockItem" in obs["a11y"]
        assert info["task_meta"]["interaction"] == "cli" and info["task_meta"]["apps"] == ["Terminal"]
        obs, _, _, _, info = env.step("```bash\necho $HOME; pwd; ls ~/Documents\n```")
        assert obs["text"].splitlines()[:3] == ["/Users/user", "/Users/user", "backup.log"]
        home = str(env.unwrapped._home)
        assert home not in json.dumps(info) and home not in obs["text"] and home not in obs["a11y"]
    finally:
        env.close()


def test_bad_input_on_the_sim_is_an_error_observation(env):
    env.reset(options={"task_id": "notes-append-line-v0"})
    # The sim refreshes the Notes toolbar on its first scripting call after setup; settle it first.
    env.step('```applescript\nreturn 1\n```')
    before = env.backend.app_state("Notes")
    shot = env.frame().copy()
    cases = [
        ({"action_type": "CLICK", "x": 1280, "y": 10}, "off_screen"),
        ("```python\nimport pyautogui\npyautogui.press('hyperspace')\n```", "backend_rejected"),
        ("```python\nimport pyautogui\npyautogui.click(\n```", "syntax_error"),
        ('```applescript\ntell application "Notes" to get name of every note whose\n```', "applescript_error"),
        ("```python\nimport os\nos.system('ls')\n```", "python_policy"),
    ]
    for action, kind in cases:
        obs, _, terminated, _, info = env.step(action)
        assert info["action_error_kind"] == kind, (action, info["action_error"])
        assert obs["text"].startswith("Error:") and not terminated
    assert env.backend.app_state("Notes") == before
    assert np.array_equal(env.frame(), shot)
    obs, _, _, _, info = env.step('```applescript\ntell application "Notes" to get name of every note whose\n```')
    assert "syntax error" in obs["text"] and obs["text"].split("Error: ")[1][0].isdigit()  # osascript's "start:end:" position


def test_shell_timeout_and_flood_are_reported():
    env = MacAgentEnv(shell_timeout=1.0)
    try:
        env.reset(options={"task_id": "finder-sort-downloads-v0"})
        obs, _, _, _, info = env.step("```bash\nsleep 5\n```")
        assert "timed out" in obs["text"]
        obs, _, _, _, _ = env.step("```bash\nyes flood | head -c 200000\n```")
        assert len(obs["text"]) < 60_000
        obs, _, _, _, _ = env.step("```bash\nls ~/Downloads | wc -l\n```")
        assert obs["text"].splitlines()[0].strip() == "4"  # the shell still works and the home is intact
    finally:
        env.close()


def test_the_commented_example_in_the_docs_is_a_valid_task_the_oracle_solves(env):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "macagent.md").read_text(encoding="utf-8")
    block = re.search(r"```jsonc\n(.*?)```\n", text, re.DOTALL).group(1)
    data = json.loads(re.sub(r"\s+//[^\n]*", "", block))
    obs, info = env.reset(options={"task": data})
    assert info["task_id"] == "notes-append-line-v0" and info["task_meta"]["interaction"] == "cli"
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(env.oracle_action(obs, info))
        done = terminated or truncated
    assert info["success"], info["checkpoints"]


def test_an_env_dropped_without_close_removes_its_temp_home() -> None:
    import gc
    import os

    env = gym.make("MacAgent-v0")
    env.reset(seed=0)
    home = str(env.unwrapped._home_dir)
    assert os.path.isdir(home)
    del env
    gc.collect()
    assert not os.path.exists(home)  # seen: long training runs left one mmenvs-mac-* folder per env
