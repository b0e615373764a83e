"""Task families (``task_filter``), honest train/eval splits, the curriculum wrapper, and ``mmenvs train``.

The training smoke test asserts learning on DebugEcho-v0 with a fixed seed: PPO trains on fresh cards
(``suite="train"``: the pinned words on new backgrounds) and is evaluated on the 12 pinned cards,
against the uniformly random policy over the same menu.
"""

from __future__ import annotations

import json
import math

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401
from mmenvs.baselines.rl import FAMILIES
from mmenvs.baselines.rl.train import interval95, train
from mmenvs.wrappers.curriculum import Curriculum


# ---------------------------------------------------------------------------------------------- task_filter
def test_debugecho_task_filter_and_train_suite():
    env = gym.make("DebugEcho-v0", task_filter={"category": "animal"})
    assert env.unwrapped.task_ids() == ["echo-04", "echo-05", "echo-06", "echo-07"]
    train_env = gym.make("DebugEcho-v0", suite="train", task_filter={"category": ["fruit", "colour"]})
    pinned = {(t["word"], tuple(t["background"])) for t in (env.unwrapped.load_task(i) for i in gym.make("DebugEcho-v0").unwrapped.task_ids())}
    for seed in range(30):
        _, info = train_env.reset(seed=seed)
        task = train_env.unwrapped.task
        assert task["category"] in ("fruit", "colour") and info["task_meta"] == {"category": task["category"]}
        assert (task["word"], tuple(task["background"])) not in pinned
        assert train_env.unwrapped.load_task(info["task_id"]) == task  # a training card is named by word and colour
    with pytest.raises(ValueError, match=r"task_filter\['category'\] has unknown value\(s\) \['plant'\]; known: animal, colour, fruit"):
        gym.make("DebugEcho-v0", task_filter={"category": "plant"})
    with pytest.raises(ValueError, match="task_filter field 'colour' is not filterable; fields: category"):
        gym.make("DebugEcho-v0", task_filter={"colour": "red"})


def test_vtc_task_filter_pinned_and_generated_per_category(monkeypatch):
    env = gym.make("VTCBench-v0", task_filter={"category": ["chart", "spatial"]})
    ids = env.unwrapped.task_ids()
    assert len(ids) == 100 + 45 and all(i.startswith(("vtc_chart_", "vtc_spatial_")) for i in ids)
    assert len(gym.make("VTCBench-v0", task_filter={"category": "counting", "answer_type": "open"}).unwrapped.task_ids()) == 47
    assert len(gym.make("VTCBench-v0", categories=["math"]).unwrapped.task_ids()) == 110  # the older spelling still works

    # suite="train" asks the family's generator directly: the all-category sampler is never called
    import mmenvs.vtc.env as vtc_env

    def refuse(rng):
        raise AssertionError("rejection sampling over all categories")

    monkeypatch.setattr(vtc_env, "sample_problem", refuse)
    train_env = gym.make("VTCBench-v0", suite="train", task_filter={"category": "counting", "answer_type": "choice"})
    for seed in range(4):
        _, info = train_env.reset(seed=seed)
        assert info["task_meta"] == {"category": "counting", "answer_type": "choice"}
        assert info["task_id"].startswith("train_counting_") and info["task_id"] not in ids
    with pytest.raises(ValueError, match="matches no generator"):
        gym.make("VTCBench-v0", suite="train", task_filter={"category": "ocr", "answer_type": "choice"})


def test_macagent_task_filter_and_train_draws_are_never_benchmark_variants():
    env = gym.make("MacAgent-v0", task_filter={"apps": "Notes", "tags": ["file_ops"]})
    try:
        ids = env.unwrapped.task_ids()
        assert ids and len(ids) % 4 == 0
        for task_id in ids[::4]:
            meta = env.unwrapped.load_task(task_id).metadata()
            assert "Notes" in meta["apps"] and "file_ops" in meta["tags"]
    finally:
        env.close()
    train_env = gym.make("MacAgent-v0", suite="train", task_filter={"category": "Productivity"})
    try:
        u = train_env.unwrapped
        rng = np.random.default_rng(0)
        benchmark = {(v.seed_id, json.dumps(v.params, sort_keys=True, default=str), v.instruction)
                     for v in (u.load_task(i) for i in u.task_ids())}
        for _ in range(60):
            task = u.sample_task(rng)
            assert task.category == "Productivity" and task.variant == "train"
            assert (task.seed_id, json.dumps(task.params, sort_keys=True, default=str), task.instruction) not in benchmark
        with pytest.raises(ValueError, match="task_filter field 'colour' is not filterable"):
            u.set_task_filter({"colour": "red"})
    finally:
        train_env.close()


def test_toolsandbox_task_filter_on_pinned_index_and_generator_axes():
    from mmenvs.toolsandbox.suites import pinned_fingerprints, suite_entries

    env = gym.make("MMToolSandbox-v0", suite="heldout", task_filter={"flow": "compare", "difficulty": {"max": 0.4}})
    expected = [e["id"] for e in suite_entries("heldout") if e["flow"] == "compare" and e["difficulty"] <= 0.4]
    assert env.unwrapped.task_ids() == expected and expected
    train_env = gym.make("MMToolSandbox-v0", suite="train", mode="tool",
                         task_filter={"flow": "filter", "challenge": "cooperative", "apps": ["notes", "todo"], "difficulty": {"min": 0.1, "max": 0.3}})
    pinned_ids = {e["id"] for name in ("benchmark", "heldout") for e in suite_entries(name)}
    for seed in range(2):
        _, info = train_env.reset(seed=seed)
        meta = train_env.unwrapped.task.metadata
        assert (info["task_meta"]["flow_type"], info["task_meta"]["challenge_type"]) == ("filter", "cooperative")
        assert info["task_meta"]["apps"][0] in ("notes", "todo") and 0.1 <= meta["difficulty"] <= 0.3
        assert info["task_id"] not in pinned_ids and meta["fingerprint"] not in pinned_fingerprints()
    train_env.unwrapped.set_task_filter({"difficulty": [0.85]})  # what a curriculum does between episodes
    _, info = train_env.reset(seed=7)
    assert train_env.unwrapped.task.metadata["difficulty"] == 0.85
    with pytest.raises(ValueError, match=r"difficulty'\] values must be numbers in 0..1"):
        train_env.unwrapped.set_task_filter({"difficulty": [1.5]})
    with pytest.raises(ValueError, match="names no flow with that app group"):
        gym.make("MMToolSandbox-v0", suite="train", task_filter={"flow": "aggregate", "apps": "contacts"})
    with pytest.raises(ValueError, match="task_filter selects generated scenarios"):
        gym.make("MMToolSandbox-v0", suite="handwritten", task_filter={"flow": "filter"})


@pytest.mark.parametrize("family", [f for families in FAMILIES.values() for f in families.values()], ids=lambda f: f"{f.env_id}:{f.name}")
def test_every_family_trains_and_evaluates_on_disjoint_tasks(family):
    """The training stream never yields a task of the held-out suite (by id and by content)."""
    eval_env, train_env = family.make(split="eval"), family.make(split="train")
    try:
        heldout = set(eval_env.unwrapped.task_ids())
        assert heldout
        contents = {_content(eval_env.unwrapped.load_task(i)) for i in heldout}
        for seed in range(6):
            _, info = train_env.reset(seed=seed)
            assert info["task_id"] not in heldout
            assert _content(train_env.unwrapped.task) not in contents
        assert family.menu_wrapper is not None or train_env.action_space.n == len(family.menu_doc())
    finally:
        eval_env.close()
        train_env.close()


def _content(task):
    """What makes two tasks the same task, per env."""
    if isinstance(task, dict):  # DebugEcho
        return (task["word"], tuple(task["background"]))
    if hasattr(task, "generator"):  # VTC problem: generator, seed and parameters pin the image
        return (task.generator, task.seed, json.dumps(task.params, sort_keys=True))
    if hasattr(task, "seed_id"):  # MacAgent
        return (task.seed_id, json.dumps(task.params, sort_keys=True, default=str), task.instruction)
    return task.metadata.get("fingerprint")  # MMToolSandbox


def test_curriculum_moves_to_the_next_family_after_good_episodes():
    env = Curriculum(gym.make("DebugEcho-v0", suite="train"), stages=[{"category": "fruit"}, {"category": "animal"}], promote_at=0.9, window=3)
    words = {"fruit": ["apple", "banana", "cherry", "mango"]}
    stages = []
    for episode in range(6):
        _, info = env.reset(seed=episode)
        stages.append(info["curriculum_stage"])
        word = env.unwrapped.task["word"]
        _, _, terminated, _, info = env.step(f"<answer>{word}</answer>")  # always right: promoted after 3 episodes
        assert terminated and info["score"] == 1.0
        if info["curriculum_stage"] == 0:
            assert word in words["fruit"]
    assert stages == [0, 0, 0, 1, 1, 1]
    assert env.unwrapped.task["category"] == "animal"
    with pytest.raises(ValueError, match="has no set_task_filter"):
        Curriculum(gym.make("VTCBench-v0"), stages=[{}])


# ---------------------------------------------------------------------------------------------- statistics
def test_interval95_wilson_for_rates_and_t_for_scores():
    low, high = interval95([1.0] * 10 + [0.0] * 2)
    assert math.isclose(low, 0.5519, abs_tol=1e-3) and math.isclose(high, 0.9530, abs_tol=1e-3)
    assert abs(interval95([0.0] * 12)[0]) < 1e-12 and 0.0 < interval95([0.0] * 12)[1] < 0.3
    low, high = interval95([0.25, 0.5, 0.75, 0.5])
    assert math.isclose(low, 0.5 - 3.1824 * 0.2041 / 2, abs_tol=1e-3) and math.isclose(high, 0.5 + 3.1824 * 0.2041 / 2, abs_tol=1e-3)


# ---------------------------------------------------------------------------------------------- mmenvs train
@pytest.mark.slow
def test_train_learns_debugecho_and_beats_random_on_heldout_cards(tmp_path):
    result = train("DebugEcho-v0", algo="ppo", steps=8_000, n_envs=2, out=tmp_path / "run", seed=0)
    assert result["trained"]["mean_score"] >= 0.6, result["trained"]
    assert result["random"]["mean_score"] <= 0.2, result["random"]
    assert result["beats_random"] and result["trained"]["ci95"][0] > result["random"]["ci95"][1]
    saved = json.loads((tmp_path / "run" / "eval.json").read_text())
    for key in ("trained", "random"):
        assert set(saved[key]) >= {"mean_score", "ci95", "episodes"} and len(saved[key]["ci95"]) == 2
        assert saved[key]["ci95"][0] <= saved[key]["mean_score"] <= saved[key]["ci95"][1]
    assert saved["trained"]["episodes"] == 12 and saved["random"]["episodes"] == 48
    assert saved["heldout_suite"]["task_ids"] == [f"echo-{i:02d}" for i in range(12)]
    assert saved["train_suite"]["suite"] == "train"
    assert all(e["task_id"] in saved["heldout_suite"]["task_ids"] for e in saved["episodes"]["trained"])
    run = tmp_path / "run"
    assert (run / "curve.png").stat().st_size > 5_000 and (run / "model.zip").exists()
    assert len(list((run / "checkpoints").glob("model_*_steps.zip"))) >= 3
    assert (run / "logs" / "progress.csv").read_text().count("\n") >= 5
    assert list((run / "logs").glob("events.out.tfevents.*")), "TensorBoard is installed with the rl extra: its log must be written"
    assert len(list((run / "monitor").glob("train_*.monitor.csv"))) == 2


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["ppo", "maskable_ppo"])
def test_train_is_deterministic_for_a_seed(tmp_path, algo):
    runs = [train("DebugEcho-v0", algo=algo, steps=768, n_envs=2, out=tmp_path / f"run{k}", seed=3, checkpoints=1,
                  random_repeats=1) for k in range(2)]
    assert runs[0]["episodes"] == runs[1]["episodes"]
    from stable_baselines3 import PPO

    loader = PPO
    if algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO as loader
    weights = [loader.load(str(tmp_path / f"run{k}" / "model.zip"), device="cpu").policy.state_dict() for k in range(2)]
    assert weights[0].keys() == weights[1].keys()
    assert all(np.array_equal(weights[0][k].numpy(), weights[1][k].numpy()) for k in weights[0])
    monitors = [sorted(p.read_text().splitlines()[2:]) for p in (tmp_path / "run0" / "monitor").glob("*.csv")]
    assert monitors  # episodes were recorded
    other = [sorted(p.read_text().splitlines()[2:]) for p in (tmp_path / "run1" / "monitor").glob("*.csv")]
    strip = lambda rows: sorted(",".join(r.split(",")[:2]) for rows_ in rows for r in rows_)  # return and length (not time)
    assert strip(monitors) == strip(other)


@pytest.mark.slow
def test_train_dqn_runs_and_writes_eval(tmp_path):
    result = train("DebugEcho-v0", algo="dqn", steps=600, n_envs=1, out=tmp_path / "dqn", seed=0, checkpoints=1,
                   random_repeats=1, algo_kwargs={"learning_starts": 100})
    assert result["algo"] == "dqn" and result["trained"]["episodes"] == 12 and (tmp_path / "dqn" / "eval.json").exists()


@pytest.mark.slow
def test_evaluate_only_resamples_a_saved_run_stochastically_and_reproducibly(tmp_path):
    run = tmp_path / "run"
    first = train("DebugEcho-v0", algo="maskable_ppo", steps=512, n_envs=1, vec="dummy", out=run, seed=1, checkpoints=1,
                  random_repeats=2)
    assert first["trained_actions"] == "most likely" and first["trained"]["episodes"] == 12
    weights = (run / "model.zip").read_bytes()
    again = [train("DebugEcho-v0", algo="maskable_ppo", out=run, seed=1, random_repeats=2, eval_stochastic=True,
                   evaluate_only=True) for _ in range(2)]
    assert (run / "model.zip").read_bytes() == weights  # not trained again
    for result in again:
        assert result["trained_actions"] == "sampled"
        assert result["trained"]["episodes"] == 24 and result["random"]["episodes"] == 24  # as many episodes as random
        assert result["steps"] == 512 and result["wall_time_s"]["train"] == first["wall_time_s"]["train"]
        assert result["random"] == first["random"]  # the same random episodes
    assert again[0]["episodes"] == again[1]["episodes"]  # sampled, yet the same on a re-run
    assert json.loads((run / "eval.json").read_text())["trained_actions"] == "sampled"
    with pytest.raises(ValueError, match="trained with --algo 'maskable_ppo', not 'ppo'"):
        train("DebugEcho-v0", algo="ppo", out=run, evaluate_only=True)
    with pytest.raises(FileNotFoundError, match="model.zip is missing"):
        train("DebugEcho-v0", algo="ppo", out=tmp_path / "none", evaluate_only=True)


def test_train_cli_lists_families_and_refuses_bad_arguments(capsys):
    from mmenvs.cli import main

    assert main(["train", "VTCBench-v0", "--list-families"]) == 0
    out = capsys.readouterr().out
    assert "VTCBench-v0 shapes" in out and "answer 'triangle'" in out and "histogram(method=equalize) on the newest image" in out
    assert main(["train", "NoSuch-v0", "--steps", "10"]) == 2
    assert "no training family for 'NoSuch-v0'" in capsys.readouterr().err
    assert main(["train", "DebugEcho-v0", "--family", "nope"]) == 2
    assert "has no family 'nope'; families: cards" in capsys.readouterr().err


def test_mac_program_family_programs_do_not_depend_on_parameters():
    """The MacAgent "programs" menu offers fixed programs: each must be its seed's reference program for
    every benchmark variant and training draw (else the menu would leak a task's parameters)."""
    from mmenvs.baselines.rl.families import MAC_PROGRAM_SEEDS, _mac_programs
    from mmenvs.core import registry_path
    from mmenvs.macagent.tasks import load_suite

    seeds = {s.id: s for s in load_suite(registry_path("macagent", "tasks"))}
    rng = np.random.default_rng(0)
    for seed_id, program in zip(MAC_PROGRAM_SEEDS, _mac_programs()):
        seed = seeds[seed_id]
        tasks = [seed.variant(k) for k in range(4)] + [seed.sample(rng) for _ in range(8)]
        assert {str(t.reference_solution[0]) for t in tasks} == {program}
        assert len({json.dumps(t.params, sort_keys=True, default=str) for t in tasks}) > 1  # the parameters do vary
