"""MacAgent-v0 env layer on a test double of the desktop: action grammar, pyautogui shim, computer-use
dicts, scoring with checkpoints (guards included), reward modes, oracle and random agents."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
import pytest

from mmenvs.core import ActionError
from mmenvs.macagent.actions import VERBS, PyAutoGUIShim, parse_action, straight_line_calls
from mmenvs.macagent.env import MacAgentEnv
from test_macagent_env_fake import FakeBackend

# Three seed tasks for the fake desktop: GUI-only, CLI-only and mixed, with every getter type and a guard.
FAKE_TASKS = [
    {
        "id": "fake-note-gui",
        "instruction": ["Create a note titled \"{{title}}\".", "Please add a note named {{title}}."],
        "category": "Productivity",
        "apps": ["Notes"],
        "reference_time": "2026-03-10T09:00:00",
        "params": {"title": ["Groceries", "Trip Plan", "Budget", "Reading"]},
        "setup": [{"type": "open_app", "app": "Notes"}],
        "checkpoints": [
            {"name": "note made", "tag": "app_state",
             "getter": {"type": "applescript", "script": "tell application \"Notes\" to get name of every note", "output": "list"},
             "metric": {"type": "contains", "expected": "{{title}}"}},
        ],
        "reference_solution": [
            {"action_type": "CLICK", "x": 50, "y": 15},
            "```python\nimport pyautogui\npyautogui.write({{title|json}})\npyautogui.press('enter')\n```",
        ],
    },
    {
        "id": "fake-file-cli",
        "instruction": "Copy ~/Documents/{{name}}.txt to the Desktop and write the number of its lines to ~/Desktop/count.txt.",
        "category": "System",
        "apps": ["Finder", "Terminal"],
        "reference_time": "2026-03-10T09:00:00",
        "params": {"name": ["alpha", "beta", "gamma", "delta"], "n": {"range": [3, 8]}},
        "setup": [
            {"type": "file", "path": "~/Documents/{{name}}.txt", "generator": {"name": "numbered", "args": {"prefix": "row", "count": "{{n}}"}}},
            {"type": "file", "path": "~/Documents/keep.md", "content": "do not touch"},
        ],
        "checkpoints": [
            {"name": "copied", "tag": "file_ops", "metric": {"type": "file_exists", "path": "~/Desktop/{{name}}.txt"}},
            {"name": "count", "tag": "content_match", "getter": {"type": "python", "function": "file_text", "args": {"path": "~/Desktop/count.txt"}},
             "metric": {"type": "equals", "expected": "{{n}}"}},
            {"name": "original kept", "tag": "file_ops", "getter": {"type": "shell", "command": "cat ~/Documents/{{name}}.txt"},
             "metric": {"type": "unchanged"}},
            {"name": "keep.md untouched", "tag": "file_ops", "getter": {"type": "python", "function": "file_digest", "args": {"path": "~/Documents/keep.md"}},
             "metric": {"type": "unchanged"}},
        ],
        "reference_solution": [
            "```bash\ncp ~/Documents/{{name}}.txt ~/Desktop/\n```",
            "```bash\nwc -l < ~/Desktop/{{name}}.txt | tr -d ' ' > ~/Desktop/count.txt\n```",
        ],
    },
    {
        "id": "fake-mixed",
        "instruction": "Make a note \"{{title}}\" and save its title to ~/Desktop/title.txt.",
        "category": "Multi-App",
        "apps": ["Notes", "Terminal"],
        "reference_time": "2026-03-11T14:30:00",
        "params": {"title": ["Plan A", "Plan B", "Plan C", "Plan D"]},
        "checkpoints": [
            {"name": "note", "tag": "app_state",
             "getter": {"type": "python", "function": "applescript_records", "args": {"app": "Notes", "element": "note", "properties": ["name"]}},
             "metric": {"type": "json_equal", "expected": [{"name": "{{title}}"}]}},
            {"name": "title file", "tag": "content_match", "getter": {"type": "shell", "command": "cat ~/Desktop/title.txt"},
             "metric": {"type": "equals", "expected": "{{title}}"}},
        ],
        "reference_solution": [
            "```python\nimport pyautogui\nfor ch in {{title|json}}:\n    pyautogui.typewrite(ch)\npyautogui.press('enter')\n```",
            "```bash\necho {{title|shell}} > ~/Desktop/title.txt\n```",
        ],
    },
]


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fake_tasks")
    (folder / "fake.json").write_text(json.dumps({"tasks": FAKE_TASKS}))
    return folder


@pytest.fixture()
def env(task_dir):
    environment = MacAgentEnv(backend=FakeBackend(), tasks=task_dir)
    yield environment
    environment.close()


# ---------------------------------------------------------------------------------------------- grammar
def test_parse_action_forms():
    assert parse_action("done.").word == "DONE" and parse_action("WAIT").kind == "control"
    assert parse_action("```python\npyautogui.click(1, 2)\n```").kind == "python"
    assert parse_action("import pyautogui\npyautogui.press('a')").kind == "python"  # bare code, as OSWorld agents send it
    assert parse_action("Let me list it:\n```bash\nls ~\n```").code == "ls ~\n"
    assert parse_action("```sh\nls\n```").kind == "bash"
    assert parse_action('```applescript\ntell application "Notes" to count notes\n```').kind == "applescript"
    assert parse_action('{"action_type": "CLICK", "x": 1, "y": 2}').params == {"x": 1, "y": 2}
    assert parse_action('```json\n{"action_type": "PRESS", "key": "enter"}\n```').verb == "PRESS"
    assert parse_action({"action_type": "CLICK", "parameters": {"button": "right"}}).params == {"button": "right"}
    assert parse_action({"action_type": "done"}).word == "DONE"
    assert parse_action({"bash": "pwd"}).kind == "bash" and parse_action({"control": "FAIL"}).word == "FAIL"


@pytest.mark.parametrize("action, kind", [
    ("hello there", "unknown_action"),
    ("```python\nx\n``` and ```bash\nls\n```", "multiple_code_blocks"),
    ("```python\npyautogui.click(1, 2)\n", "unclosed_code_block"),
    ("```ruby\nputs 1\n```", "wrong_code_language"),
    ('{"action_type": "TELEPORT", "x": 1}', "unknown_verb"),
    ({"action_type": "CLICK", "x": 1}, "bad_parameters"),
    ({"action_type": "TYPING"}, "bad_parameters"),
    ({"action_type": "PRESS", "key": "a", "speed": 2}, "bad_parameters"),
    ('{"action_type": "CLICK", "x": 1,', "invalid_json"),
    ({"python": 3}, "bad_action_dict"),
    (7, "bad_action_type"),
])
def test_parse_action_errors(action, kind):
    with pytest.raises(ActionError) as info:
        parse_action(action)
    assert info.value.kind == kind


def test_straight_line_fast_path_and_fallback():
    calls = straight_line_calls("import pyautogui\npyautogui.PAUSE = 0.5\npyautogui.click(x=3, y=4, button='right')\ntime.sleep(1)")
    assert [(c.name, c.args, c.kwargs) for c in calls] == [("click", (), {"x": 3, "y": 4, "button": "right"}), ("sleep", (1,), {})]
    assert straight_line_calls("for i in range(2):\n    pyautogui.press('a')") is None
    assert straight_line_calls("pyautogui.click(x, 2)") is None  # a variable argument needs the interpreter
    with pytest.raises(ActionError, match="SyntaxError"):
        straight_line_calls("pyautogui.click(")


# ---------------------------------------------------------------------------------------------- shim
@pytest.fixture()
def shim(tmp_path):
    backend = FakeBackend(screen_size=(320, 200))
    backend.reset(now=datetime(2026, 1, 1), home=tmp_path / "h")
    return PyAutoGUIShim(backend)


def test_shim_follows_pyautogui_conventions(shim):
    backend = shim.backend
    assert shim.position() == (160, 100) and shim.size() == (320, 200)
    shim.click((10, 20), clicks=2, button="primary")
    shim.click()  # at the pointer
    shim.rightClick(5, 6)
    shim.doubleClick(7, 8)
    shim.moveTo(30, 40)
    shim.moveRel(5, -5)
    shim.dragTo(100, 120, button="left")
    shim.dragRel(-10, 0)
    shim.scroll(-3)
    shim.write("hi")
    shim.typewrite(["a", "enter"])
    shim.press(["tab", "tab"], presses=2)
    shim.hotkey("command", "c")
    shim.hotkey(["cmd", "shift", "z"])
    shim.keyDown("shift")
    shim.keyUp("shift")
    shim.mouseDown(50, 50)
    shim.mouseUp(button="secondary")
    shim.sleep(2)
    assert backend.events == [
        ("click", 10, 20, "left", 2), ("click", 10, 20, "left", 1), ("click", 5, 6, "right", 1), ("click", 7, 8, "left", 2),
        ("move", 30, 40), ("move", 35, 35), ("drag", 100, 120, "left"), ("drag", 90, 120, "left"), ("scroll", -3, 90, 120),
        ("type", "hi"), ("press", "a"), ("press", "enter"), ("press", "tab"), ("press", "tab"), ("press", "tab"), ("press", "tab"),
        ("hotkey", "command", "c"), ("hotkey", "cmd", "shift", "z"), ("key_down", "shift"), ("key_up", "shift"),
        ("move", 50, 50), ("down", "left"), ("up", "right"),
    ]
    assert shim.position() == (50, 50)


@pytest.mark.parametrize("call, kind", [
    (lambda s: s.click(320, 10), "off_screen"),
    (lambda s: s.moveTo(-1, 5), "off_screen"),
    (lambda s: s.click(1, 2, button="thumb"), "bad_arguments"),
    (lambda s: s.click("a", 2), "bad_arguments"),
    (lambda s: s.press("hyperdrive"), "backend_rejected"),
    (lambda s: s.press(["a", 5]), "bad_arguments"),
    (lambda s: s.hotkey(), "bad_arguments"),
    (lambda s: s.click(1, 1, clicks=-1), "bad_arguments"),
    (lambda s: s.write(5), "bad_arguments"),
])
def test_shim_rejects_bad_input_without_touching_the_desktop(shim, call, kind):
    with pytest.raises(ActionError) as info:
        call(shim)
    assert info.value.kind == kind
    assert shim.backend.events == []


@pytest.mark.parametrize("call", [
    lambda s: s.write("x" * 10_001),
    lambda s: s.press("a", presses=501),
    lambda s: s.press(["a", "b"], presses=300),
    lambda s: s.scroll(100_000),
    lambda s: s.click(1, 1, clicks=4),
])
def test_shim_caps_runaway_input(shim, call):
    with pytest.raises(ActionError, match="at most|within|0 to 3"):
        call(shim)
    assert shim.backend.events == []


def test_every_computer_use_verb(shim):
    backend = shim.backend
    expected = {
        "MOVE_TO": ({"x": 1, "y": 2}, ("move", 1, 2)),
        "CLICK": ({"x": 3, "y": 4, "button": "right", "num_clicks": 1}, ("click", 3, 4, "right", 1)),
        "RIGHT_CLICK": ({"x": 5, "y": 6}, ("click", 5, 6, "right", 1)),
        "DOUBLE_CLICK": ({}, ("click", 5, 6, "left", 2)),
        "DRAG_TO": ({"x": 9, "y": 9}, ("drag", 9, 9, "left")),
        "SCROLL": ({"dy": 4}, ("scroll", 4, 9, 9)),
        "TYPING": ({"text": "héllo"}, ("type", "héllo")),
        "PRESS": ({"key": "enter"}, ("press", "enter")),
        "KEY_DOWN": ({"key": "shift"}, ("key_down", "shift")),
        "KEY_UP": ({"key": "shift"}, ("key_up", "shift")),
        "HOTKEY": ({"keys": ["cmd", "a"]}, ("hotkey", "cmd", "a")),
        "MOUSE_DOWN": ({"button": "left"}, ("down", "left")),
        "MOUSE_UP": ({}, ("up", "left")),
    }
    assert set(expected) == set(VERBS)
    for verb, (params, event) in expected.items():
        action = parse_action({"action_type": verb, **params})
        shim.perform(action.verb, action.params)
        assert backend.events[-1] == event, verb
    with pytest.raises(ActionError, match="horizontal"):
        shim.perform("SCROLL", {"dx": 2})
    with pytest.raises(ActionError, match="non-empty list"):
        shim.perform("HOTKEY", {"keys": "cmd+a"})


# ---------------------------------------------------------------------------------------------- env
def play(env, agent, task_id, max_steps=60):
    obs, info = env.reset(options={"task_id": task_id})
    rewards, terminated, truncated = [], False, False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(agent(obs, info))
        rewards.append(reward)
    return rewards, info


def test_oracle_passes_every_fake_task_and_progress_rewards_sum_to_the_score(task_dir):
    for mode in ("final", "progress"):
        env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir, reward_mode=mode)
        try:
            assert len(env.task_ids()) == 12
            for task_id in env.task_ids():
                rewards, info = play(env, lambda o, i: env.oracle_action(o, i), task_id)
                assert info["success"] and info["score"] == 1.0, (task_id, info["checkpoints"])
                assert sum(rewards) == pytest.approx(1.0)
                if mode == "final":
                    assert all(r == 0.0 for r in rewards[:-1])
                assert all(c["passed"] for c in info["checkpoints"])
        finally:
            env.close()


def test_random_agent_scores_about_zero(env):
    rng = np.random.default_rng(0)
    successes, scores = 0, []
    for episode, task_id in enumerate(env.task_ids()):
        _, info = play(env, lambda o, i: env.random_action(rng), task_id)
        successes += info["success"]
        # only guard checkpoints (state left alone) can pass by doing nothing useful
        scores.append(sum(c["passed"] and not c["guard"] for c in info["checkpoints"]) / len(info["checkpoints"]))
    assert successes == 0 and max(scores) == 0.0


def test_observation_info_and_checkpoint_details(env):
    obs, info = env.reset(options={"task_id": "fake-file-cli-v1"})
    assert set(obs) == {"text", "image", "a11y", "instruction"} and env.observation_space.contains(obs)
    assert obs["instruction"] == obs["text"] == "Copy ~/Documents/beta.txt to the Desktop and write the number of its lines to ~/Desktop/count.txt."
    assert "application Finder" in obs["a11y"] and obs["image"].shape == (400, 640, 3)
    assert info["task_meta"] == {"category": "System", "apps": ["Finder", "Terminal"], "tags": ["content_match", "file_ops"],
                                 "interaction": "cli", "multi_app": True, "skill_covered": False, "checkpoints": 4, "seed": "fake-file-cli", "variant": "v1"}
    assert [(c["name"], c["passed"], c["guard"]) for c in info["checkpoints"]] == [
        ("copied", False, False), ("count", False, False), ("original kept", True, True), ("keep.md untouched", True, True)]
    assert info["score"] == 0.5 and not info["success"]
    obs, reward, terminated, truncated, info = env.step("```bash\necho $HOME; ls ~/Documents; exit 3\n```")
    assert obs["text"].splitlines() == ["~", "beta.txt", "keep.md", "[exit code 3]"]  # the host temp path never shows
    assert reward == 0.0 and not terminated and info["exit_code"] == 3
    # breaking a guard: the guard checkpoint fails at the end
    env.step("```bash\necho changed >> ~/Documents/keep.md\n```")
    _, reward, terminated, _, info = env.step("DONE")
    assert terminated and reward == 0.25
    assert {c["name"]: c["passed"] for c in info["checkpoints"]}["keep.md untouched"] is False


def test_bad_actions_are_error_observations_and_leave_the_desktop_alone(env):
    env.reset(options={"task_id": "fake-note-gui-v0"})
    backend = env.backend
    before = list(backend.events)
    for action, kind in [
        ("```python\npyautogui.click(\n```", "syntax_error"),
        ({"action_type": "CLICK", "x": 5000, "y": 10}, "off_screen"),
        ("```python\npyautogui.press('warp')\n```", "backend_rejected"),
        ('```applescript\ntell application "Notes" to fly\n```', "applescript_error"),
        ("gibberish", "unknown_action"),
    ]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["action_error_kind"] == kind, action
        assert obs["text"].startswith("Error:") and not terminated
    assert backend.events == before


def test_python_beyond_straight_line_calls_runs_in_the_sandbox(env):
    env.reset(options={"task_id": "fake-note-gui-v2"})
    obs, _, _, _, info = env.step("```python\nimport pyautogui, time\nfor w in ['Bu', 'dg', 'et']:\n    pyautogui.write(w)\n"
                                  "    time.sleep(0.5)\npyautogui.press('enter')\nprint(pyautogui.position().x, pyautogui.size())\n```")
    assert info["action_error"] is None, obs["text"]
    assert obs["text"] == "160 Size(width=320, height=200)"
    assert [n["name"] for n in env.backend.notes] == ["Budget"]
    obs, _, _, _, info = env.step("```python\nimport pyautogui\nx = 1 / 0\n```")
    assert info["action_error_kind"].startswith("python_") and "ZeroDivisionError" in obs["text"]
    _, reward, _, _, info = env.step("DONE")
    assert reward == 1.0 and info["success"]


def test_an_action_may_send_a_bounded_number_of_events(env):
    env.reset(options={"task_id": "fake-note-gui-v0"})
    obs, _, _, _, info = env.step("```python\nimport pyautogui\nfor i in range(5000):\n    pyautogui.press('a')\n```")
    assert info["action_error_kind"].startswith("python_") and "more than 2000 input events" in obs["text"]
    _, _, _, _, info = env.step("```python\nimport pyautogui\nfor i in range(3):\n    pyautogui.press('a')\n```")
    assert info["action_error"] is None  # the count starts afresh with each action


def test_screenshots_enter_the_image_store_when_the_screen_changes(env):
    _, info = env.reset(options={"task_id": "fake-note-gui-v0"})
    assert info["images"] == ["img_0"]
    _, _, _, _, info = env.step("WAIT")
    assert info["images"] == []
    _, _, _, _, info = env.step({"action_type": "TYPING", "text": "abc"})
    assert info["images"] == ["img_1"] and env.images.get("img_1").shape == (200, 320, 3)


def test_screenshots_can_stay_out_of_the_store(task_dir):
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir, store_screenshots=False)
    try:
        obs, info = env.reset(options={"task_id": "fake-note-gui-v0"})
        first = obs["image"].copy()
        obs, _, _, _, info = env.step({"action_type": "TYPING", "text": "abcdefgh"})
        assert info["images"] == [] and len(env.images) == 0
        assert not np.array_equal(obs["image"], first)  # the observation still shows the new screen
    finally:
        env.close()


@pytest.mark.parametrize("shape, obs_size", [((800, 1280, 3), (400, 640)), ((200, 320, 3), (200, 320)), ((200, 320, 3), (448, 448)), ((800, 1280, 3), (100, 300))])
def test_fast_resize_matches_letterbox(shape, obs_size):
    from mmenvs.core import letterbox
    from mmenvs.core.spaces import FrameFitter
    frame = np.random.default_rng(0).integers(0, 256, size=shape, dtype=np.uint8)
    assert np.array_equal(FrameFitter(obs_size)(frame), letterbox(frame, obs_size))


def test_step_cap_and_determinism(task_dir):
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir)
    other = MacAgentEnv(backend=FakeBackend(), tasks=task_dir)
    try:
        obs_a, info_a = env.reset(seed=3)
        obs_b, info_b = other.reset(seed=3)
        assert info_a["task_id"] == info_b["task_id"] and obs_a["text"] == obs_b["text"] and np.array_equal(obs_a["image"], obs_b["image"])
        for step in range(50):
            _, _, terminated, truncated, info = env.step("WAIT")
        assert truncated and not terminated and info["step"] == 50
    finally:
        env.close()
        other.close()
    env.close()  # twice is fine


def test_train_suite_samples_fresh_variants(task_dir):
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir, suite="train")
    try:
        ids = {env.reset(seed=s)[1]["task_id"] for s in range(12)}
        assert all("-t" in i for i in ids) and len(ids) >= 6
        for seed in range(6):  # fresh training variants are solved by the oracle too
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(env.oracle_action(obs, info))
                done = terminated or truncated
            assert info["success"], info["task_id"]
    finally:
        env.close()


def test_inline_task_and_unknown_ids(env, task_dir):
    data = dict(FAKE_TASKS[1], id="inline-one")
    _, info = env.reset(options={"task": data})
    assert info["task_id"] == "inline-one-v0"
    with pytest.raises(ValueError, match="unknown task_id 'nope'"):
        env.reset(options={"task_id": "nope"})


def test_summarize_episodes_scores_checkpoints_per_tag():
    records = [
        {"task_meta": {"multi_app": True}, "final_info": {"checkpoints": [
            {"tag": "research", "passed": True}, {"tag": "app_state", "passed": False}, {"tag": "app_state", "passed": True}]}},
        {"task_meta": {"multi_app": False}, "final_info": {"checkpoints": [{"tag": "file_ops", "passed": True}]}},
        {"task_meta": {"multi_app": False}, "error": "crashed"},
    ]
    tables = MacAgentEnv.summarize_episodes(records)["tables"]
    assert tables["Checkpoint score by capability tag (all tasks)"] == {
        "app_state": {"score": 0.5, "passed": 1, "checkpoints": 2},
        "file_ops": {"score": 1.0, "passed": 1, "checkpoints": 1},
        "research": {"score": 1.0, "passed": 1, "checkpoints": 1},
    }
    assert set(tables["Checkpoint score by capability tag (multi-app tasks)"]) == {"app_state", "research"}
    assert MacAgentEnv.summarize_episodes([]) == {}


def test_bad_kwargs_fail_cleanly(task_dir):
    backend = FakeBackend()
    with pytest.raises(ValueError, match="reward_mode"):
        MacAgentEnv(backend=backend, tasks=task_dir, reward_mode="sometimes")
    assert backend.closed == 1
    with pytest.raises(ValueError, match="suite must be one of"):
        MacAgentEnv(backend=FakeBackend(), tasks=task_dir, suite="dev")
    with pytest.raises(ValueError, match="backend must be 'sim'"):
        MacAgentEnv(backend="vmware", tasks=task_dir)
    with pytest.raises(ValueError, match="does not implement the MacBackend interface"):
        MacAgentEnv(backend=object(), tasks=task_dir)


def test_hanging_python_is_stopped_and_reported(task_dir):
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir, sandbox_options={"timeout": 1.0})
    try:
        env.reset(options={"task_id": "fake-note-gui-v0"})
        obs, _, terminated, _, info = env.step("```python\nimport pyautogui\nwhile True:\n    pass\n```")
        assert info["action_error_kind"] == "python_timeout" and "TimeoutError" in obs["text"] and not terminated
        obs, _, _, _, info = env.step("```python\nimport pyautogui\nfor k in ['a', 'b']:\n    pyautogui.write(k)\n```")
        assert info["action_error"] is None and env.backend.field == "ab"  # the sandbox came back
    finally:
        env.close()
