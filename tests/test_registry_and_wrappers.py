import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import mmenvs  # noqa: F401
from mmenvs.core.registry import load_json, parse_env_spec, registry_path
from mmenvs.wrappers import DiscreteActions, ImageObservation

GOOD = {"id": "X-v0", "entry_point": "mmenvs.debug.env:DebugEchoEnv", "description": "d"}


def test_registry_ships_as_package_data():
    assert registry_path("envs").is_dir()
    assert registry_path("debug", "tasks.json").is_file()
    import importlib.util

    for generic in ("wrappers", "baselines", "registry", "benchmarks"):
        spec = importlib.util.find_spec(generic)
        assert spec is None or "mmenvs" not in str(spec.origin or ""), f"a top-level '{generic}' package leaked from mmenvs"


@pytest.mark.parametrize("change, message", [
    ({"id": 3}, "field 'id' must be a str"),
    ({"entry_point": "no_colon"}, "package.module:ClassName"),
    ({"max_episode_steps": "10"}, "max_episode_steps"),
    ({"colour": "red"}, "unknown fields ['colour']"),
])
def test_bad_env_declarations_name_file_and_field(change, message):
    with pytest.raises(ValueError) as caught:
        parse_env_spec({**GOOD, **change}, "registry/envs/X-v0.json")
    assert "registry/envs/X-v0.json" in str(caught.value) and message in str(caught.value)


def test_load_json_names_file_and_position(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"a": 1,\n "b": }')
    with pytest.raises(ValueError, match=r"broken.json: invalid JSON in task file at line 2, column 7"):
        load_json(path, "task file")
    with pytest.raises(ValueError, match="cannot read"):
        load_json(tmp_path / "missing.json")


def test_inline_task_and_task_file(tmp_path):
    env = gym.make("DebugEcho-v0")
    task = {"id": "mine", "word": "kiwi", "category": "fruit", "background": [10, 20, 30]}
    _, info = env.reset(options={"task": task})
    assert info["task_id"] == "mine"
    assert env.step("<answer>KIWI</answer>")[1] == 1.0
    path = tmp_path / "task.json"
    path.write_text(json.dumps({**task, "id": "from-file"}))
    assert env.reset(options={"task": str(path)})[1]["task_id"] == "from-file"
    with pytest.raises(ValueError, match="field 'word'"):
        env.reset(options={"task": {**task, "word": 5}})
    env.close()


def test_discrete_actions_and_image_observation():
    env = ImageObservation(DiscreteActions(gym.make("DebugEcho-v0"), ["SAY hello", "FAIL"]))
    assert isinstance(env.action_space, spaces.Discrete) and env.action_space.n == 2
    assert env.observation_space.shape == (448, 448, 3)
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, np.ndarray) and obs.shape == (448, 448, 3)
    assert env.step(0)[2] is False
    assert env.step(1)[2] is True
    with pytest.raises(ValueError):
        DiscreteActions(gym.make("DebugEcho-v0"), [])


def test_load_jsonl_gives_locations_and_names_bad_lines(tmp_path):
    from mmenvs.core import load_jsonl

    path = tmp_path / "suite.jsonl"
    path.write_text('{"id": 1}\n\n{"id": 2}\n')
    assert load_jsonl(path) == [(f"{path}:1", {"id": 1}), (f"{path}:3", {"id": 2})]
    path.write_text('{"id": 1}\n{"id": \n')
    with pytest.raises(ValueError, match=r"suite.jsonl:2: invalid JSON in the suite at column"):
        load_jsonl(path, "the suite")
    with pytest.raises(ValueError, match="cannot read the suite"):
        load_jsonl(tmp_path / "missing.jsonl", "the suite")
