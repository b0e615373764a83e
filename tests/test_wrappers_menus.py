"""Action menus and observation wrappers (issue 19 item 1): what each menu index sends, the masks,
the encoded observations, and SB3 (check_env, a few PPO / MaskablePPO updates) on every wrapped env."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401
from mmenvs.wrappers import (DebugEchoMenu, HashedText, ImageOnly, ImageText, MultiInputObservation, VTCBenchMenu, VTC_PRESETS,
                             action_menu)

SMALL = (48, 48)


# ---------------------------------------------------------------------------------------------- DebugEcho
def test_debug_echo_menu_answers_and_mask():
    env = DebugEchoMenu(gym.make("DebugEcho-v0", obs_size=SMALL))
    try:
        assert env.action_space.n == len(env.vocabulary) + 2 == 14
        obs, info = env.reset(options={"task_id": "echo-01"})
        assert info["action_mask"].dtype == bool and info["action_mask"].all() and env.action_masks().all()
        say = len(env.vocabulary)
        obs, reward, terminated, _, info = env.step(say)
        assert obs["text"] == "hello" and reward == 0.0 and not terminated and info["menu_action"] == "SAY hello"
        obs, reward, terminated, _, info = env.step(env.vocabulary.index("banana"))
        assert reward == 1.0 and terminated and info["answer"] == "banana" and info["menu_valid"]
        env.reset(options={"task_id": "echo-01"})
        _, reward, terminated, _, info = env.step(env.vocabulary.index("apple"))
        assert reward == 0.0 and terminated and info["answer"] == "apple"
        env.reset(options={"task_id": "echo-01"})
        _, _, terminated, _, info = env.step(say + 1)
        assert terminated and info["menu_action"] == "FAIL"
        with pytest.raises(ValueError, match="outside the menu 0..13"):
            env.step(14)
    finally:
        env.close()
    train = DebugEchoMenu(gym.make("DebugEcho-v0", obs_size=SMALL, suite="train", task_filter={"category": "fruit"}))
    try:  # the same layout for the training stream and any family
        assert train.vocabulary == env.vocabulary and train.action_space.n == 14
        train.reset(seed=3)
        word = train.unwrapped.task["word"]
        _, reward, terminated, _, _ = train.step(train.vocabulary.index(word))
        assert terminated and reward == 1.0
    finally:
        train.close()


# ---------------------------------------------------------------------------------------------- VTCBench
def _vtc(**kwargs):
    return VTCBenchMenu(gym.make("VTCBench-v0", obs_size=SMALL), **kwargs)


def _problem(env, category, answer_type):
    ids = env.unwrapped.task_ids()
    for task_id in ids:
        problem = env.unwrapped.load_task(task_id)
        if problem.category == category and problem.answer_type == answer_type:
            return problem
    raise AssertionError(f"no {category}/{answer_type} problem in the pinned suite")


def test_vtc_menu_presets_chain_on_the_current_image_and_choices_are_masked():
    env = _vtc()
    try:
        p, c = len(VTC_PRESETS), 4
        assert env.action_space.n == p + c + 31 + 1
        problem = _problem(env, "color", "choice")
        _, info = env.reset(options={"task_id": problem.id})
        mask = info["action_mask"]
        assert mask[:p].all() and mask[p:p + len(problem.choices)].all() and not mask[p + len(problem.choices):].any()
        hsv = VTC_PRESETS.index(("colorspace", {"target": "hsv"}))
        option = env.option(hsv)
        assert option.action == {"name": "colorspace", "arguments": {"image": "img_0", "target": "hsv"}}
        obs, reward, terminated, _, info = env.step(hsv)
        assert obs["text"].startswith("img_1 = colorspace(img_0)") and info["menu_action"] == 'colorspace(target="hsv") on img_0'
        assert env.option(0).action["arguments"]["image"] == "img_1"  # presets now work on the newest image
        _, _, _, _, info = env.step(VTC_PRESETS.index(("blur", {"method": "median", "ksize": 3})))
        assert env.unwrapped.episode.calls[-1]["inputs"] == ["img_1"] and env.unwrapped.episode.calls[-1]["output"] == "img_2"
        correct = p + "ABCD".index(problem.answer)
        _, reward, terminated, _, info = env.step(correct)
        assert reward == 1.0 and terminated and info["answer"] == problem.answer
    finally:
        env.close()


def test_vtc_menu_masked_slot_is_an_error_step_and_counting_reads_the_tool():
    env = _vtc()
    try:
        p = len(VTC_PRESETS)
        choice = _problem(env, "color", "choice")
        env.reset(options={"task_id": choice.id})
        number_slot = p + 4 + 3
        assert not env.action_masks()[number_slot]
        obs, reward, terminated, truncated, info = env.step(number_slot)
        assert not info["menu_valid"] and info["action_error"] and not terminated and not truncated and reward == 0.0
        assert env.unwrapped.steps == 1 and len(env.unwrapped.images) == 1  # counted, nothing changed

        counting = _problem(env, "counting", "open")
        _, info = env.reset(options={"task_id": counting.id})
        mask = info["action_mask"]
        assert not mask[p:p + 4].any() and mask[p + 4:p + 4 + 31].all() and not mask[-1]  # nothing reported yet
        for step in counting.reference_chain:  # the reference chain is made of presets on the newest image
            preset = (step["tool"], {k: v for k, v in step["arguments"].items() if k != "image"})
            _, _, terminated, _, info = env.step(VTC_PRESETS.index(preset))
            assert info["action_error"] is None and not terminated
        assert env.action_masks()[-1] and env.option(env.size - 1).label == f"answer the reported count {counting.answer}"
        _, reward, terminated, _, info = env.step(env.size - 1)
        assert reward == 1.0 and terminated
        env.reset(options={"task_id": counting.id})
        _, reward, _, _, _ = env.step(p + 4 + int(counting.answer))  # the number slots answer n
        assert reward == 1.0
    finally:
        env.close()


def test_vtc_menu_rejects_bad_presets():
    with pytest.raises(ValueError, match="unknown tool 'nope'"):
        _vtc(presets=[("nope", {})])
    with pytest.raises(ValueError, match="sets 'image'"):
        _vtc(presets=[("flip", {"image": "img_0"})])


# ---------------------------------------------------------------------------------------------- observations
def test_hashed_text_is_stable_normalised_and_order_sensitive_through_bigrams():
    enc = HashedText(64)
    a, b = enc("Save the note"), enc("save THE note")
    assert a.dtype == np.float32 and a.shape == (64,) and np.array_equal(a, b)
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-6) and not enc("").any()
    assert not np.array_equal(enc("note the save"), a)  # same words, other bigrams
    assert np.array_equal(HashedText(64, bigrams=False)("note the save"), HashedText(64, bigrams=False)("save the note"))
    # stable across processes: a fixed expected bucket for a fixed token
    import subprocess
    import sys

    code = "from mmenvs.wrappers import HashedText; import numpy as np; print(int(np.argmax(np.abs(HashedText(64)('apple')))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123", "PATH": ""})
    assert int(out.stdout) == int(np.argmax(np.abs(enc("apple"))))


def test_multi_input_observation_keys_and_values():
    env = MultiInputObservation(DebugEchoMenu(gym.make("DebugEcho-v0", obs_size=SMALL)), instruction=True, step=True, last_result=True,
                                text_dim=32)
    try:
        assert set(env.observation_space.spaces) == {"image", "text", "instruction", "step", "last_result"}
        obs, info = env.reset(options={"task_id": "echo-00"})
        assert env.observation_space.contains(obs)
        enc = HashedText(32)
        instruction = enc("What word is written on the card? Reply <answer>word</answer>. You may also SAY <text>.")
        assert np.array_equal(obs["instruction"], instruction) and np.array_equal(obs["text"], instruction)
        assert obs["step"][0] == 0.0 and not obs["last_result"].any()
        obs, *_ = env.step(len(env.env.vocabulary))  # SAY hello
        assert np.array_equal(obs["text"], enc("hello")) and np.array_equal(obs["instruction"], instruction)
        assert obs["step"][0] == pytest.approx(1 / 10) and obs["last_result"].tolist() == [0.0, 0.0, 0.0]
        obs, reward, *_ = env.step(env.env.vocabulary.index("apple"))
        assert reward == 1.0 and obs["last_result"].tolist() == [0.0, 0.0, 1.0]
        assert obs["step"][0] == pytest.approx(2 / 10)
    finally:
        env.close()
    with pytest.raises(ValueError, match="not a text key"):
        MultiInputObservation(gym.make("DebugEcho-v0"), text_keys=("a11y",))


def test_image_text_and_image_only():
    env = ImageText(gym.make("VTCBench-v0", obs_size=SMALL), text_dim=16)
    try:
        obs, _ = env.reset(seed=3)
        assert set(obs) == {"image", "text"} and obs["image"].shape == (48, 48, 3) and obs["text"].shape == (16,)
        assert env.observation_space.contains(obs)
        obs, _, _, _, info = env.step("no call")
        assert info["action_error"] and np.array_equal(obs["text"], HashedText(16)("Error: " + info["action_error"]))
    finally:
        env.close()
    only = ImageOnly(gym.make("DebugEcho-v0", obs_size=SMALL))
    obs, _ = only.reset(seed=0)
    assert obs.shape == (48, 48, 3) and obs.dtype == np.uint8
    only.close()


# ---------------------------------------------------------------------------------------------- SB3
def _sb3_check(env, maskable: bool):
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env
    from sb3_contrib import MaskablePPO

    check_env(env, warn=True)
    algo = MaskablePPO if maskable else PPO
    model = algo("MultiInputPolicy", env, n_steps=8, batch_size=8, n_epochs=1, seed=0, device="cpu",
                 policy_kwargs={"net_arch": [16]})
    model.learn(16)
    obs, _ = env.reset(seed=0)
    kwargs = {"action_masks": env.get_wrapper_attr("action_masks")()} if maskable else {}
    action, _ = model.predict(obs, deterministic=True, **kwargs)
    assert env.action_space.contains(int(action))
    if maskable:
        assert kwargs["action_masks"][int(action)]


@pytest.mark.parametrize("env_id, maskable", [("DebugEcho-v0", False), ("DebugEcho-v0", True), ("VTCBench-v0", True),
                                               ("MacAgent-v0", True), ("MMToolSandbox-v0", True)])
def test_sb3_on_wrapped_env(env_id, maskable):
    kwargs = {"mode": "tool"} if env_id == "MMToolSandbox-v0" else {}
    env = MultiInputObservation(action_menu(gym.make(env_id, obs_size=SMALL, **kwargs)), instruction=True, step=True, last_result=True,
                                text_dim=32)
    try:
        _sb3_check(env, maskable)
    finally:
        env.close()


def test_sb3_cnn_policy_on_image_only_menu_env():
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env = ImageOnly(action_menu(gym.make("VTCBench-v0", obs_size=(40, 40))))
    try:
        check_env(env, warn=True)
    finally:
        env.close()
    # two worker processes of the wrapped env (what `mmenvs train` uses), a few PPO updates
    vec = SubprocVecEnv([lambda: ImageOnly(action_menu(gym.make("DebugEcho-v0", obs_size=(40, 40))))] * 2)
    try:
        model = PPO("CnnPolicy", vec, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu")
        model.learn(32)
        assert model.num_timesteps >= 32
    finally:
        vec.close()


# ---------------------------------------------------------------------------------------------- MacAgent
@pytest.fixture
def mac():
    from mmenvs.wrappers import MacAgentMenu

    env = MacAgentMenu(gym.make("MacAgent-v0", obs_size=(50, 80)))
    yield env
    env.close()


def test_mac_menu_mask_matches_the_actionable_elements(mac):
    from mmenvs.macagent.solutions import accessibility_elements
    from mmenvs.wrappers.mac_menu import ACTIONABLE_ROLES

    obs, info = mac.reset(options={"task_id": mac.unwrapped.task_ids()[0]})
    assert mac.action_space.n == 64 + 16 + 18 + 2 + 2 == mac.size
    expected = [e for e in accessibility_elements(obs["a11y"]) if e.role in ACTIONABLE_ROLES and e.bounds and e.bounds[2] > 0
                and e.bounds[3] > 0 and "disabled" not in e.flags]
    elements = mac.elements()
    assert [(e.role, e.name, e.bounds) for e in elements] == [(e.role, e.name, e.bounds) for e in expected][:64]
    mask = info["action_mask"]
    assert mask[:len(elements)].all() and not mask[len(elements):64].any()
    params = mac.parameter_strings()
    assert params and mask[64:64 + len(params)].all() and not mask[64 + len(params):80].any()
    assert mask[80:].all() and mac.describe()[-1] == "DONE" and mac.describe()[-2] == "WAIT"
    for k, element in enumerate(elements):
        assert mac.option(k).action == {"action_type": "CLICK", "x": element.center[0], "y": element.center[1], "button": "left",
                                        "num_clicks": 1}


def test_mac_menu_click_index_k_clicks_that_elements_centre(mac):
    mac.reset(options={"task_id": mac.unwrapped.task_ids()[0]})
    names = [(e.role, e.name) for e in mac.elements()]
    k = names.index(("AXDockItem", "Notes"))
    centre = mac.elements()[k].center
    obs, reward, terminated, truncated, info = mac.step(k)
    assert info["action_error"] is None and info["menu_valid"] and not terminated
    shim = mac.unwrapped.shim
    assert (shim.x, shim.y) == centre
    assert 'AXApplication "Notes"' in obs["a11y"] and 'AXMenuBarItem "Notes"' in obs["a11y"]  # the click opened Notes
    roles = {(e.role, e.name) for e in mac.elements()}
    assert ("AXButton", "New Note") in roles  # the menu follows the screen
    new_note = [(e.role, e.name) for e in mac.elements()].index(("AXButton", "New Note"))
    point = mac.elements()[new_note].center
    mac.step(new_note)
    assert (shim.x, shim.y) == point


def test_mac_menu_typing_hotkeys_masked_slot_and_done(mac):
    task_id = "terminal-add-alias-v0"
    obs, info = mac.reset(options={"task_id": task_id})
    params = mac.parameter_strings()
    assert params == ["ll", "ls -la"]  # the task's parameters {'a': {'name': 'll', 'cmd': 'ls -la'}}
    assert mac.option(64 + 1).action == {"action_type": "TYPING", "text": "ls -la"}
    _, _, _, _, info = mac.step(64 + 1)
    assert info["action_error"] is None and info["menu_action"] == "type 'ls -la'"
    assert mac.option(80).action == {"action_type": "PRESS", "key": "enter"}
    assert mac.option(80 + 9).action == {"action_type": "HOTKEY", "keys": ["command", "a"]}
    steps = mac.unwrapped.steps
    _, reward, terminated, truncated, info = mac.step(64 + 5)  # a parameter slot this task does not fill
    assert not info["menu_valid"] and info["action_error"] and not terminated and mac.unwrapped.steps == steps + 1
    _, reward, terminated, _, info = mac.step(mac.size - 1)
    assert terminated and info["menu_action"] == "DONE" and reward == pytest.approx(info["score"])


def test_mac_menu_options_and_errors():
    from mmenvs.wrappers import MacAgentMenu

    env = MacAgentMenu(gym.make("MacAgent-v0", obs_size=(50, 80)), max_elements=8, max_params=2, clicks=("click", "double_click"),
                       hotkeys=[("enter",)], scroll=False, extra_actions=["```bash\necho menu-extra\n```"])
    try:
        assert env.size == 8 * 2 + 2 + 1 + 1 + 2
        assert env.layout_text().splitlines() == ["0-7: click actionable element i (accessibility tree order)",
                                                  "8-15: double_click actionable element i (accessibility tree order)",
                                                  "16-17: type the task's parameter string j", "18: press hotkey h",
                                                  "19: extra action x", "20: WAIT", "21: DONE"]
        env.reset(seed=0)
        first = env.elements()[0]
        assert env.option(8).action == {"action_type": "DOUBLE_CLICK", "x": first.center[0], "y": first.center[1]}
        obs, _, _, _, info = env.step(19)
        assert "menu-extra" in obs["text"] and info["exit_code"] == 0
    finally:
        env.close()
    raw = gym.make("MacAgent-v0")
    try:
        with pytest.raises(ValueError, match="clicks must be"):
            MacAgentMenu(raw, clicks=("tap",))
    finally:
        raw.close()


# ---------------------------------------------------------------------------------------------- MMToolSandbox
CONTACTS = "gen-cross_reference-cooperative-mixed-contacts-1000091"


@pytest.fixture
def sandbox_menu():
    from mmenvs.wrappers import MMToolSandboxMenu

    env = MMToolSandboxMenu(gym.make("MMToolSandbox-v0", mode="tool", obs_size=SMALL))
    yield env
    env.close()


def _slot(env, predicate):
    found = [k for k in range(env.size) if env.option(k) is not None and predicate(env.option(k))]
    assert found, f"no menu slot matches; the menu holds {[x for x in env.describe() if x]}"
    return found[0]


def test_toolsandbox_menu_candidate_calls_from_visible_values(sandbox_menu):
    env = sandbox_menu
    block = 1 + 48
    assert env.size == 6 * block + 2
    _, info = env.reset(options={"task_id": CONTACTS})
    tools = env.tools()
    assert tools[:2] == ["contacts_search_contacts", "contacts_create_contact"] and len(tools) == 4  # 2 relevant + 2 distractors
    assert all(env.unwrapped.tools[t].app == "contacts" for t in tools)
    mask = info["action_mask"]
    searches = [t * block for t in range(len(tools))]
    assert mask[searches].all() and mask[-2:].all() and mask.sum() == len(tools) + 2  # nothing callable yet
    facts = env.unwrapped.task.images
    for _ in range(2):  # the user's first rounds: the images arrive
        env.step(env.size - 2)
    shown = [spec["facts"] for key, spec in facts.items() if env.unwrapped.task.image_id(key) in env.unwrapped.world.visible]
    card = next(f for f in shown if f.get("name") == "Kenji Tanaka")
    _, _, _, _, info = env.step(0)  # search_tools finds contacts_search_contacts
    assert info["action_error"] is None and "contacts_search_contacts" in env.unwrapped.search.working
    mask = env.action_masks()
    assert not mask[0] and mask[1:block].any()
    strings = {v for _, v in env.values() if isinstance(v, str)}
    for k in range(1, block):
        if mask[k]:
            call = json.loads(env.option(k).action)
            assert call["name"] == "contacts_search_contacts" and call["arguments"]["query"] in strings
    query = _slot(env, lambda o: o.meta.get("arguments") == {"query": "Kenji Tanaka"})
    _, _, _, _, info = env.step(query)
    assert info["action_error"] is None and info["menu_valid"]
    env.step(block)  # find contacts_create_contact
    create = _slot(env, lambda o: o.meta.get("tool") == "contacts_create_contact" and o.meta["arguments"]["name"] == "Kenji Tanaka")
    arguments = env.option(create).meta["arguments"]
    # optional parameters are filled from the values whose field names match them (the card's facts)
    expected = {"name": "Kenji Tanaka", "phone_number": card["phone"], "email": card["email"], "company": card["company"],
                "job_title": card["job_title"]}
    assert arguments == {**expected, **({"address": card["address"]} if "address" in card else {})}
    _, _, _, _, info = env.step(create)
    assert info["action_error"] is None
    for _ in range(3):
        _, reward, terminated, truncated, info = env.step(env.size - 2)
        if terminated or truncated:
            break
    assert terminated and info["score"] == pytest.approx(1.0)


def test_toolsandbox_menu_masked_slot_result_values_and_options(sandbox_menu):
    env = sandbox_menu
    env.reset(options={"task_id": CONTACTS})
    transcript = len(env.unwrapped.episode.transcript)
    _, reward, terminated, _, info = env.step(1)  # a call slot of a tool not found yet
    assert not info["menu_valid"] and "menu_slot_unavailable" in info["action_error"] and not terminated
    assert len(env.unwrapped.episode.transcript) == transcript  # no reply reached the user
    env._note_result('Result of contacts_search_contacts:\n[{"id": 7, "name": "Ada Lovelace"}]\n[Showing image img_0]')
    env._note_result('Result of search_tools:\n{"results": [{"name": "ignored_tool"}]}')
    values = env.values()
    assert ("id", 7) in values and ("name", "Ada Lovelace") in values and ("name", "ignored_tool") not in values
    calls = env.calls("contacts_update_contact")
    assert calls and calls[0]["contact_id"] == 7  # a result's id feeds the *_id parameter first
    from mmenvs.wrappers import MMToolSandboxMenu

    raw = gym.make("MMToolSandbox-v0", obs_size=SMALL)
    try:
        with pytest.raises(ValueError, match="needs mode='tool'"):
            MMToolSandboxMenu(raw)
    finally:
        raw.close()


def test_toolsandbox_menu_without_image_facts():
    from mmenvs.wrappers import MMToolSandboxMenu

    env = MMToolSandboxMenu(gym.make("MMToolSandbox-v0", mode="tool", obs_size=SMALL), image_facts=False)
    try:
        env.reset(options={"task_id": CONTACTS})
        env.step(env.size - 2)
        env.step(env.size - 2)
        assert all(source == "user" for source, _ in env.values())
        assert "Kenji Tanaka" not in {v for _, v in env.values()}
    finally:
        env.close()


# ---------------------------------------------------------------------------------------------- episode caps
@pytest.mark.parametrize("env_id, kwargs, cap", [("DebugEcho-v0", {}, 10), ("VTCBench-v0", {}, 20), ("MacAgent-v0", {}, 50),
                                                  ("MMToolSandbox-v0", {"mode": "tool"}, 50)])
def test_each_env_truncates_at_its_documented_max_steps(env_id, kwargs, cap):
    """One cap per env, the one ``env.max_steps`` states: masked menu slots (actions the env rejects)
    and valid ones alike count, and the episode is truncated after exactly ``max_steps`` actions."""
    env = action_menu(gym.make(env_id, obs_size=SMALL, **kwargs))
    try:
        env.reset(seed=1)
        assert env.unwrapped.max_steps == cap
        unavailable = np.flatnonzero(~env.action_masks())
        masked = int(unavailable[0]) if len(unavailable) else len(env.vocabulary)  # DebugEcho offers all: use SAY hello
        for step in range(1, cap + 1):
            # alternate a rejected action with one the env carries out and that does not end the episode
            if step % 2 or env_id != "MMToolSandbox-v0":
                index = masked
            else:
                index = 0 if env.action_masks()[0] else masked  # a search_tools call while the first tool is unfound
            _, _, terminated, truncated, info = env.step(index)
            assert not terminated and truncated == (step == cap), (step, info["action_error"])
        assert info["step"] == cap
        if env_id == "MMToolSandbox-v0":
            assert env.unwrapped.episode.messages == 1 + 2 * cap == 101
    finally:
        env.close()


def test_toolsandbox_cap_follows_the_message_budget_and_explicit_max_steps():
    env = gym.make("MMToolSandbox-v0", mode="tool", obs_size=SMALL, max_messages=9)
    try:
        env.reset(seed=0)
        assert env.unwrapped.max_steps == 4
        for step in range(1, 5):
            _, _, _, truncated, info = env.step("{not json")  # malformed: still two messages (the action and its error)
            assert truncated == (step == 4) and env.unwrapped.episode.messages == 1 + 2 * step
    finally:
        env.close()
    env = gym.make("MMToolSandbox-v0", mode="tool", obs_size=SMALL, max_steps=70)
    try:
        env.reset(seed=0)
        assert env.unwrapped.max_steps == 70
        for step in range(1, 71):
            _, _, _, truncated, info = env.step("{not json")
            assert truncated == (step == 70)
        assert env.unwrapped.episode.messages == 141  # an explicit action cap replaces the message budget
    finally:
        env.close()


# ---------------------------------------------------------------------------------------------- menu contents
def test_menu_observation_rows_are_the_slots_hashed_labels():
    from mmenvs.wrappers import MenuObservation

    env = MenuObservation(MultiInputObservation(VTCBenchMenu(gym.make("VTCBench-v0", obs_size=SMALL)), text_dim=8), dim=16)
    try:
        menu = env.get_wrapper_attr("describe")
        assert env.observation_space["menu"].shape == (env.action_space.n, 16)
        problem = next(env.unwrapped.load_task(t) for t in env.unwrapped.task_ids() if env.unwrapped.load_task(t).choices)
        obs, info = env.reset(options={"task_id": problem.id})
        assert env.observation_space.contains(obs)
        enc = HashedText(16, bigrams=False)
        labels = menu()
        for i, label in enumerate(labels):
            expected = enc(label) if label else np.zeros(16, np.float32)
            assert np.array_equal(obs["menu"][i], expected), i
        assert not obs["menu"][~info["action_mask"]].any() and obs["menu"][info["action_mask"]].any(axis=1).all()
        before = obs["menu"][0].copy()
        obs, *_ = env.step(0)  # the presets now name img_1: their rows change, the answers' do not
        assert not np.array_equal(obs["menu"][0], before) and np.array_equal(obs["menu"][0], enc(menu()[0]))
    finally:
        env.close()
    with pytest.raises(ValueError, match="no action menu"):
        MenuObservation(MultiInputObservation(gym.make("DebugEcho-v0", obs_size=SMALL)))


def test_menu_observation_taken_column_counts_the_options_sent_this_episode():
    from mmenvs.wrappers import MenuObservation

    env = MenuObservation(MultiInputObservation(DebugEchoMenu(gym.make("DebugEcho-v0", obs_size=SMALL)), image=False,
                                                text_dim=8), dim=8, taken=True)
    try:
        assert env.observation_space["menu"].shape == (env.action_space.n, 9)
        labels = env.get_wrapper_attr("describe")
        obs, info = env.reset(seed=0)
        say = next(i for i, label in enumerate(labels()) if label and label.startswith("SAY"))
        assert not obs["menu"][:, -1].any()
        for sent in (1, 2, 3, 4):  # SAY hello is a no-op: the same option stays in its slot
            obs, *_ = env.step(say)
            assert obs["menu"][say, -1] == pytest.approx(min(sent, 3) / 3)
            assert np.count_nonzero(obs["menu"][:, -1]) == 1  # no other option was sent
            np.testing.assert_array_equal(obs["menu"][say, :8], HashedText(8, bigrams=False)(labels()[say]))
        obs, _ = env.reset(seed=1)
        assert not obs["menu"][:, -1].any()  # a new episode starts the counts again
    finally:
        env.close()


def test_sb3_maskable_ppo_with_menu_contents_on_toolsandbox():
    from mmenvs.wrappers import MenuObservation

    env = MenuObservation(MultiInputObservation(action_menu(gym.make("MMToolSandbox-v0", mode="tool", obs_size=SMALL)), image=False,
                                                instruction=True, step=True, last_result=True, text_dim=32), dim=8, flat=True)
    try:
        assert env.observation_space["menu"].shape == (296 * 8,)
        _sb3_check(env, maskable=True)
    finally:
        env.close()
