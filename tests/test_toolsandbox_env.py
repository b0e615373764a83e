"""MMToolSandbox-v0 end to end: oracle and random agents, modes, bad actions, the user simulator, scenario files."""

from __future__ import annotations

import copy
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mmenvs  # noqa: F401  (registers the env ids)
from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.toolsandbox.scenario import load_scenario, shipped_scenario_paths
from mmenvs.toolsandbox.scoring import snapshot
from mmenvs.toolsandbox.user import UserMessage, UserSimulator

SCENARIOS = list(shipped_scenario_paths())


@pytest.fixture(scope="module")
def tool_env() -> MMToolSandboxEnv:
    env = gym.make("MMToolSandbox-v0", mode="tool").unwrapped
    yield env
    env.close()


@pytest.fixture(scope="module")
def code_env() -> MMToolSandboxEnv:
    env = gym.make("MMToolSandbox-v0").unwrapped
    yield env
    env.close()


def run_oracle(env: MMToolSandboxEnv, task_id: str, limit: int = 80) -> dict[str, Any]:
    obs, info = env.reset(options={"task_id": task_id})
    for _ in range(limit):
        obs, reward, terminated, truncated, info = env.step(env.oracle_action(obs, info))
        assert info["action_error"] is None, info["action_error"]
        if terminated or truncated:
            info["final_reward"] = reward
            info["terminated"] = terminated
            return info
    raise AssertionError(f"{task_id}: the oracle did not finish in {limit} steps")


def test_suite_covers_apps_changes_and_axes() -> None:
    assert len(SCENARIOS) >= 12
    scenarios = [load_scenario(p) for p in shipped_scenario_paths().values()]
    apps = {a for s in scenarios for a in s.metadata["apps"]}
    assert {"contacts", "messaging", "phone", "reminders", "calendar", "settings", "notes", "todo", "email", "payments",
            "expenses", "shopping", "music", "files", "photos", "visual"} <= apps
    assert {spec.op for s in scenarios for spec in s.specs} == {"create", "update", "delete"}
    assert {s.metadata["image_arrival"] for s in scenarios} == {"upfront", "progressive", "late", "mixed"}
    assert {s.metadata["flow_type"] for s in scenarios} == {"aggregate", "compare", "filter", "compute", "validate", "lookup_chain", "cross_reference"}
    assert {"cooperative", "goal_change", "error_correction", "state_mutation"} == {s.metadata["challenge_type"] for s in scenarios}


@pytest.mark.parametrize("task_id", SCENARIOS)
def test_oracle_scores_one_in_tool_mode(tool_env: MMToolSandboxEnv, task_id: str) -> None:
    info = run_oracle(tool_env, task_id)
    assert info["terminated"] and info["entity_f1"] == pytest.approx(1.0) and info["final_reward"] == pytest.approx(1.0) and info["success"]
    assert info["side_effects"] == [] and info["surfaced_recall"] == 1.0 and info["invoked_recall"] == 1.0


@pytest.mark.parametrize("task_id", SCENARIOS)
def test_oracle_scores_one_in_code_mode(code_env: MMToolSandboxEnv, task_id: str) -> None:
    info = run_oracle(code_env, task_id)
    assert info["terminated"] and info["entity_f1"] == pytest.approx(1.0) and info["success"]


@pytest.mark.parametrize(("toolset", "mode"), [("medium", "tool"), ("compact", "tool"), ("mini", "tool"), ("mini", "code")])
def test_oracle_scores_one_with_merged_toolsets(toolset: str, mode: str) -> None:
    env = gym.make("MMToolSandbox-v0", mode=mode, toolset=toolset).unwrapped
    try:
        for task_id in SCENARIOS:
            assert run_oracle(env, task_id)["entity_f1"] == pytest.approx(1.0), task_id
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["tool", "code"])
def test_random_agent_stays_near_zero(tool_env: MMToolSandboxEnv, code_env: MMToolSandboxEnv, mode: str) -> None:
    env = tool_env if mode == "tool" else code_env
    rng = np.random.default_rng(0)
    scores = []
    for episode in range((2 if mode == "tool" else 1) * len(SCENARIOS)):
        obs, info = env.reset(seed=episode)
        for _ in range(100):
            obs, reward, terminated, truncated, info = env.step(env.random_action(rng))
            if terminated or truncated:
                break
        scores.append(info["score"])
    assert np.mean(scores) < 0.1


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")  # the wrapped check is deliberate
def test_env_checker_passes_unwrapped_and_wrapped() -> None:
    for mode in ("tool", "code"):
        for wrapped in (False, True):
            env = gym.make("MMToolSandbox-v0", mode=mode, render_mode="rgb_array")
            check_env(env if wrapped else env.unwrapped)
            env.close()
            env.close()  # idempotent


def test_same_seed_same_first_observation(tool_env: MMToolSandboxEnv) -> None:
    a, info_a = tool_env.reset(seed=3)
    b, info_b = tool_env.reset(seed=3)
    assert a["text"] == b["text"] and np.array_equal(a["image"], b["image"]) and info_a["task_id"] == info_b["task_id"]


def test_only_delivered_images_are_usable(tool_env: MMToolSandboxEnv) -> None:
    obs, info = tool_env.reset(options={"task_id": "email_invoice_to_accountant"})
    assert info["images"] == [] and not obs["image"].any()  # round 1 sends no image
    obs, *_ , info = tool_env.step('{"name": "view_image", "arguments": {"image_id": "img_0"}}')
    assert "not in your working set" in obs["text"]
    tool_env.step('{"name": "search_tools", "arguments": {"query": "view image"}}')
    obs, *_, info = tool_env.step('{"name": "view_image", "arguments": {"image_id": "img_0"}}')
    assert "has not been shared" in info["action_error"]
    obs, *_, info = tool_env.step("Okay, send it.")
    assert info["images"] == ["img_0"] and "img_0" in obs["text"] and obs["image"].any()


@pytest.mark.parametrize(("action", "fragment"), [
    ('{"name": "teleport", "arguments": {}}', "no tool named 'teleport'"),
    ('{"name": "contacts_create_contact", "arguments": {"name": "X"}}', "not in your working set"),
    ('{"name": "search_tools", "arguments": {"query": 5}}', "must be str"),
    ('{"name": "search_tools" "arguments": {}}', 'has no "name"'),
    ('{"name": "search_tools", "arguments": {"query": "x"', "could not parse"),
    ({"code": "print(1)"}, "execute_code"),
])
def test_bad_actions_return_errors_and_keep_the_world(tool_env: MMToolSandboxEnv, action: Any, fragment: str) -> None:
    tool_env.reset(options={"task_id": "contacts_business_card"})
    before = snapshot(tool_env.world.conn)
    obs, reward, terminated, truncated, info = tool_env.step(action)
    assert fragment.lower() in obs["text"].lower() and fragment.lower() in info["action_error"].lower()
    assert not terminated and snapshot(tool_env.world.conn) == before


def test_wrong_argument_types_in_found_tool(tool_env: MMToolSandboxEnv) -> None:
    tool_env.reset(options={"task_id": "calendar_poster_reminder"})
    tool_env.step({"name": "search_tools", "arguments": {"query": "calendar create event"}})
    before = snapshot(tool_env.world.conn)
    for arguments, fragment in (({"title": "x", "start": "next friday", "end": "2025-04-19T22:00:00"}, "date-time like"),
                                ({"title": "x"}, "missing required"), ({"title": ["x"], "start": "2025-04-19T20:00:00", "end": "2025-04-19T22:00:00"}, "must be str")):
        obs, *_, info = tool_env.step({"name": "calendar_create_event", "arguments": arguments})
        assert fragment in info["action_error"] and info["action_error_kind"] == "tool_error"
    assert snapshot(tool_env.world.conn) == before


def test_code_mode_runs_tools_and_reports_errors(code_env: MMToolSandboxEnv) -> None:
    code_env.reset(options={"task_id": "contacts_business_card"})
    obs, *_, info = code_env.step("```python\nprint(contacts_create_contact(name='Zed'))\n```")
    assert "not in your working set" in obs["text"] and code_env.world.count("contacts") == 4
    code = "r = search_tools(query='create contact')\nc = contacts_create_contact(name='Zed', phone_number='+1-555-0101')\nprint(c['id'])"
    obs, *_, info = code_env.step(f"```python\n{code}\n```")
    assert obs["text"].strip().endswith("5") and code_env.world.get("contacts", 5)["name"] == "Zed"
    assert info["code_tool_calls"] == ["search_tools", "contacts_create_contact"]
    obs, *_, info = code_env.step("```python\ncontacts_create_contact(name='Bad', phone_number='nope')\n```")
    assert "ToolError" in obs["text"] and code_env.world.count("contacts") == 5
    obs, *_, info = code_env.step("```python\ncrop_image('img_0', [0, 0, 500, 500])\n```")
    assert "not in your working set" in obs["text"]


def test_side_effects_lower_the_score(tool_env: MMToolSandboxEnv) -> None:
    obs, info = tool_env.reset(options={"task_id": "contacts_business_card"})
    steps = [{"name": "search_tools", "arguments": {"query": "contacts create contact"}},
             {"name": "search_tools", "arguments": {"query": "notes create note"}},
             {"name": "contacts_create_contact", "arguments": {"name": "Tomasz Kowalczyk", "phone_number": "+1-555-0187", "email": "t.kowalczyk@brightline.io",
                                                               "company": "Brightline Labs", "job_title": "Senior Data Engineer", "relationship": "coworker"}},
             {"name": "notes_create_note", "arguments": {"title": "met Tomasz"}}, {"reply": "Done."}]
    for step in steps:
        obs, reward, terminated, truncated, info = tool_env.step(step)
        assert info["action_error"] is None, info["action_error"]
    assert terminated and info["recall"] == pytest.approx(1.0) and info["precision"] == pytest.approx(0.5)
    assert info["side_effects"] == [{"table": "notes", "op": "create", "id": 1}]


def test_progress_reward_sums_to_final_score() -> None:
    env = gym.make("MMToolSandbox-v0", mode="tool", reward_mode="progress").unwrapped
    obs, info = env.reset(options={"task_id": "music_chart_playlist"})
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(env.oracle_action(obs, info))
        total += reward
        done = terminated or truncated
    assert total == pytest.approx(info["score"]) == pytest.approx(1.0)
    env.close()


def test_message_budget_truncates() -> None:
    env = gym.make("MMToolSandbox-v0", mode="tool", max_messages=5).unwrapped
    env.reset(options={"task_id": "notes_whiteboard_cleanup"})
    _, _, terminated, truncated, info = env.step({"name": "search_tools", "arguments": {"query": "notes"}})  # messages: 1 user + 2
    assert not truncated and info["messages"] == 3
    _, _, terminated, truncated, info = env.step({"name": "search_tools", "arguments": {"query": "note"}})
    assert truncated and not terminated and info["messages"] == 5
    env.close()


def test_max_steps_caps_agent_actions_not_messages() -> None:
    env = gym.make("MMToolSandbox-v0", mode="tool", max_steps=2).unwrapped
    env.reset(options={"task_id": "notes_whiteboard_cleanup"})
    _, _, _, truncated, info = env.step({"name": "search_tools", "arguments": {"query": "notes"}})
    assert not truncated and info["messages"] == 3 and info["step"] == 1
    _, _, terminated, truncated, info = env.step({"name": "search_tools", "arguments": {"query": "note"}})
    assert truncated and not terminated and info["step"] == 2
    env.close()


def test_failing_code_fills_action_error_and_keeps_effects(code_env: MMToolSandboxEnv) -> None:
    code_env.reset(options={"task_id": "notes_whiteboard_cleanup"})
    code_env.step("```python\nsearch_tools(query='notes create note')\n```")
    obs, _, _, _, info = code_env.step("```python\nnotes_create_note(title='t', content='c')\nraise ValueError('boom')\n```")
    assert info["action_error"] == "ValueError: boom" and info["action_error_kind"] == "exception"
    assert "ValueError: boom" in obs["text"]
    assert [r["title"] for r in code_env.world.rows("notes") if r["title"] == "t"] == ["t"]  # the call before the raise stands
    _, _, _, _, info = code_env.step("```python\n)(\n```")
    assert info["action_error_kind"] == "syntax" and info["action_error"].startswith("SyntaxError")
    _, _, _, _, info = code_env.step("```python\nprint(1)\n```")
    assert info["action_error"] is None


def test_task_metadata_and_info_keys(tool_env: MMToolSandboxEnv) -> None:
    obs, info = tool_env.reset(options={"task_id": "expenses_trip_receipts"})
    assert info["task_meta"] == {"flow_type": "aggregate", "challenge_type": "cooperative", "image_arrival": "progressive",
                                 "apps": ["expenses"], "num_images": 2, "num_rounds": 2}
    assert info["images"] == ["img_0"] and {"entity_f1", "precision", "recall", "entity_diff", "side_effects"} <= set(info)


# ---------------------------------------------------------------------- user simulator
def test_user_delivers_correction_then_ends(tool_env: MMToolSandboxEnv) -> None:
    tool_env.reset(options={"task_id": "calendar_class_correction"})
    obs, _, terminated, _, info = tool_env.step("Added it on Tuesdays.")
    assert "got the day wrong" in obs["text"] and not terminated and info["user"] == "correction"
    obs, _, terminated, _, info = tool_env.step("Fixed.")
    assert terminated and info["user"] == "end"


def test_user_goal_change_comes_in_its_round(tool_env: MMToolSandboxEnv) -> None:
    tool_env.reset(options={"task_id": "todo_packing_goal_change"})
    obs, *_, info = tool_env.step("Created the project.")
    assert obs["text"].startswith("User: Change of plan") and info["user"] == "query"
    obs, *_, info = tool_env.step("Understood.")
    assert "delete the Camping project" in obs["text"] and info["user"] == "goal_change"
    obs, _, terminated, _, info = tool_env.step("Done.")
    assert terminated


def test_user_answers_matching_questions_and_gives_up_after_failures(tool_env: MMToolSandboxEnv) -> None:
    tool_env.reset(options={"task_id": "payments_split_dinner"})
    obs, *_, info = tool_env.step("Which Marco do you mean?")
    assert "phone contacts" in obs["text"] and info["user"] == "answer"
    obs, *_, info = tool_env.step("What is the total on the receipt?")  # no scripted answer: never reveals image content
    assert "$" not in obs["text"]
    assert info["user_state"]["conversation_ended"] is True  # an unmatched question counts as the round's reply
    tool_env.reset(options={"task_id": "payments_split_dinner"})
    for expected_end in (False, False, True):
        obs, _, terminated, _, info = tool_env.step("Sorry, I can't read that image.")
        assert terminated is expected_end
    assert "stop" in obs["text"]


# ---------------------------------------------------------------------- scenario files
def _valid() -> dict[str, Any]:
    return json.loads(shipped_scenario_paths()["contacts_business_card"].read_text())


def _with_gallery_photo(scenario_id: str) -> dict[str, Any]:
    """The valid scenario, renamed, with a second business card (image ``old``) already in the Photos gallery."""
    data = _valid()
    data["id"] = scenario_id
    data["images"]["old"] = {"generator": "rendered", "kind": "business_card", "seed": 3, "facts": {"name": "Ada Quinn", "company": "Quinn & Co"}}
    data["initial_entities"]["photos"] = [{"image_id": "{image:old}", "album": "Scans"}]
    return data


@pytest.mark.parametrize(("mutate", "fragment"), [
    (lambda d: d.pop("reference_time"), "field 'reference_time' is missing"),
    (lambda d: d.update(reference_time="March 10"), "field 'reference_time' is invalid"),
    (lambda d: d["rounds"][0].update(provide=["nope"]), "field 'rounds[0].provide[0]' names unknown image 'nope'"),
    (lambda d: d.update(rounds=[]), "field 'rounds' must be a non-empty list"),
    (lambda d: d["initial_entities"].update(spaceships=[{}]), "field 'initial_entities.spaceships'"),
    (lambda d: d["initial_entities"]["contacts"][0].update(phone_number="xyz"), "field 'initial_entities.contacts[0]'"),
    (lambda d: d["expected_changes"][0].update(op="upsert"), "expected_changes[0]"),
    (lambda d: d["reference_solution"][1].update(tool="contacts_fly"), "field 'reference_solution[1].tool' names unknown tool"),
    (lambda d: d["reference_solution"][1]["arguments"].update(name=3), "field 'reference_solution[1].arguments' do not fit"),
    (lambda d: d["reference_solution"].pop(), "must end with a 'say' step"),
    (lambda d: d["metadata"].update(flow_type="vibes"), "field 'metadata.flow_type' must be one of"),
    (lambda d: d["metadata"].update(apps=["teleporter"]), "field 'metadata.apps'"),
    (lambda d: d.update(colour="blue"), "unknown fields ['colour']"),
    (lambda d: d["images"]["card"].update(generator="hologram"), "images.card"),
    (lambda d: d["expected_changes"][0]["rows"][0].update(name="{image:missing}"), "unknown image {image:missing}"),
])
def test_malformed_scenarios_name_file_and_field(tmp_path, mutate, fragment: str) -> None:
    data = _valid()
    mutate(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as caught:
        load_scenario(path).pixels()
    assert str(path) in str(caught.value) and fragment in str(caught.value), str(caught.value)


def test_inline_scenario_runs(tool_env: MMToolSandboxEnv) -> None:
    data = copy.deepcopy(_valid())
    data["id"] = "inline_card"
    obs, info = tool_env.reset(options={"task": data})
    assert info["task_id"] == "inline_card" and "img_0" in obs["text"]
    with pytest.raises(ValueError, match="unknown task_id"):
        tool_env.reset(options={"task_id": "nope"})


class _ForgetfulUser(UserSimulator):
    """A stand-in for an LLM user: says the scripted query in its own words and never attaches images."""

    def start(self, scenario):
        self.turns = 0
        return UserMessage("Hi! I just met this person at a conference, add them to my contacts as a coworker with their company and job title please.")

    def reply(self, agent_text: str) -> UserMessage:
        self.turns += 1
        return UserMessage("Great, thanks.", end=True, kind="end")


def test_custom_user_plugs_in_and_forgotten_images_are_attached() -> None:
    env = gym.make("MMToolSandbox-v0", mode="tool", user=_ForgetfulUser()).unwrapped
    obs, info = env.reset(options={"task_id": "contacts_business_card"})
    assert info["images"] == ["img_0"] and "[The user attached 1 image(s): img_0]" in obs["text"] and obs["image"].any()
    obs, _, terminated, _, info = env.step("Which company?")
    assert terminated and "Great, thanks." in obs["text"]
    env.close()


def test_callable_tool_specs_follow_the_working_set(tool_env: MMToolSandboxEnv) -> None:
    tool_env.reset(options={"task_id": "contacts_business_card"})
    assert [s["name"] for s in tool_env.callable_tool_specs()] == ["search_tools", "execute_code"]
    obs, *_, info = tool_env.step({"name": "search_tools", "arguments": {"query": "create contact"}})
    found = [r["name"] for r in json.loads(obs["text"].split("\n", 1)[1])["results"]]
    specs = tool_env.callable_tool_specs()
    assert [s["name"] for s in specs] == ["search_tools", "execute_code", *found]
    assert all(s["parameters"]["type"] == "object" for s in specs)
    tool_env.step("All done.")
    assert [t["role"] for t in tool_env.transcript] == ["user", "agent", "user"]


def test_gallery_images_in_initial_entities_are_usable(tool_env: MMToolSandboxEnv) -> None:
    data = _with_gallery_photo("gallery_start")
    obs, info = tool_env.reset(options={"task": data})
    assert "img_1" in tool_env.world.visible and "img_1" not in obs["text"]
    tool_env.step({"name": "search_tools", "arguments": {"query": "get image size"}})
    obs, *_, info = tool_env.step({"name": "get_image_size", "arguments": {"image_id": "img_1"}})
    assert info["action_error"] is None and '"width": 560' in obs["text"]
    data["initial_entities"]["photos"] = [{"image_id": "picture.png"}]
    with pytest.raises(ValueError, match=r"initial_entities.photos\[0\]'.*invalid image id"):
        tool_env.reset(options={"task": data})


def test_images_are_reported_when_they_arrive(tool_env: MMToolSandboxEnv) -> None:
    obs, info = tool_env.reset(options={"task_id": "expenses_trip_receipts"})
    assert info["images"] == ["img_0"]
    obs, *_, info = tool_env.step("Added the groceries.")
    assert info["images"] == ["img_1"] and "img_1" in obs["text"]
    obs, *_, info = tool_env.step({"name": "execute_code", "arguments": {"source": "print(1)"}})
    assert "unknown parameter" in info["action_error"] and info["action_error_kind"] == "tool_error"


@pytest.mark.parametrize(("action", "kind"), [
    ("[Summary] I added the contact.", "reply"), ("Sure, {name} is saved.", "reply"),
    ('[{"name": "search_tools", "arguments": {"query": "x"}}]', "call"),
    ('<tool_call>{"name": "search_tools", "arguments": {"query": "x"}}</tool_call>', "call"),
    ('```json\n{"name": "search_tools", "arguments": {"query": "x"}}\n```', "call"),
])
def test_tool_mode_tells_replies_from_calls(tool_env: MMToolSandboxEnv, action: str, kind: str) -> None:
    tool_env.reset(options={"task_id": "contacts_business_card"})
    assert tool_env._classify(action)[0] == kind


def test_guardrail_violation_zeroes_f1() -> None:
    for guardrail_zero, expected in ((True, 0.0), (False, 1.0)):
        env = gym.make("MMToolSandbox-v0", guardrail_zero=guardrail_zero).unwrapped
        obs, info = env.reset(options={"task_id": "contacts_business_card"})
        obs, *_, info = env.step("```python\nimport subprocess\n```")
        assert info["code_error_kind"] == "policy"
        while True:
            obs, reward, terminated, truncated, info = env.step(env.oracle_action(obs, info))
            if terminated or truncated:
                break
        assert info["entity_f1_measured"] == pytest.approx(1.0) and info["entity_f1"] == pytest.approx(expected)
        assert info["guardrail_violations"] == 1 and reward == pytest.approx(expected)
        env.close()


def test_scenario_images_load_from_files(tmp_path) -> None:
    from PIL import Image

    picture = tmp_path / "card.png"
    Image.new("RGB", (64, 32), (10, 200, 30)).save(picture)
    data = _valid()
    data["images"]["card"] = str(picture)  # absolute here; relative paths resolve inside registry/ (or image_root)
    with pytest.raises(ValueError, match=r"field 'images.card': .* lies outside the allowed image folders"):
        load_scenario(data)  # a folder outside the registry must be opted in
    scenario = load_scenario(data, image_root=tmp_path)
    pixels = scenario.pixels()[0]
    assert pixels.shape == (32, 64, 3) and tuple(pixels[0, 0]) == (10, 200, 30)
    data["images"]["card"] = {"path": "toolsandbox/no_such.png"}
    with pytest.raises(ValueError, match=r"field 'images.card': cannot read image file"):
        load_scenario(data).pixels()


def test_agent_actions_record_calls_results_and_code(code_env: MMToolSandboxEnv, tool_env: MMToolSandboxEnv) -> None:
    tool_env.reset(options={"task_id": "contacts_business_card"})
    tool_env.step({"name": "search_tools", "arguments": {"query": "create contact"}})
    tool_env.step({"name": "contacts_create_contact", "arguments": {"name": "X", "phone_number": "nope"}})
    actions = tool_env.agent_actions
    assert [a["name"] for a in actions] == ["search_tools", "contacts_create_contact"]
    assert "result" in actions[0] and "not a valid phone number" in actions[1]["error"]
    code_env.reset(options={"task_id": "contacts_business_card"})
    code_env.step("```python\nprint(get_image_size('img_0'))\n```")
    (run,) = code_env.agent_actions
    assert run["type"] == "code" and run["tool_calls"][0]["name"] == "get_image_size" and run["tool_calls"][0]["ok"] is False


# --- suites: the pinned benchmark is the default; hand-written, held-out and a training stream on request


def test_default_suite_is_the_pinned_benchmark_and_other_suites_are_selectable():
    import gymnasium as gym

    env = gym.make("MMToolSandbox-v0", mode="tool")
    try:
        ids = env.unwrapped.task_ids()
        assert len(ids) == 258 and all(i.startswith("gen-") for i in ids)
        _, info = env.reset(options={"task_id": "contacts_business_card"})  # any shipped id still loads
        assert info["task_id"] == "contacts_business_card"
    finally:
        env.close()
    handwritten = gym.make("MMToolSandbox-v0", suite="handwritten")
    assert set(handwritten.unwrapped.task_ids()) == set(SCENARIOS)
    handwritten.close()
    heldout = gym.make("MMToolSandbox-v0", suite="heldout")
    assert len(heldout.unwrapped.task_ids()) == 112
    assert not set(heldout.unwrapped.task_ids()) & set(ids)
    heldout.close()
    with pytest.raises(ValueError, match="suite must be one of"):
        gym.make("MMToolSandbox-v0", suite="nope")
    with pytest.raises(ValueError, match="UI suite"):
        gym.make("MMToolSandbox-v0", mode="ui", suite="heldout")


def test_train_suite_draws_a_fresh_verified_scenario_per_seed_and_the_oracle_solves_it():
    import gymnasium as gym

    from mmenvs.baselines import OracleAgent
    from mmenvs.toolsandbox.generator.suites import pinned_fingerprints

    env = gym.make("MMToolSandbox-v0", mode="tool", suite="train")
    try:
        _, first = env.reset(seed=3)
        _, again = env.reset(seed=3)
        _, other = env.reset(seed=4)
        assert first["task_id"] == again["task_id"] != other["task_id"]
        assert env.unwrapped.task.metadata["fingerprint"] not in pinned_fingerprints()
        agent = OracleAgent()
        agent.bind(env.unwrapped)
        obs, info = env.reset(seed=3)
        terminated = truncated = False
        while not (terminated or truncated):
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        assert info["entity_f1"] == 1.0
    finally:
        env.close()


def test_eval_summary_has_the_paper_cuts():
    from mmenvs.toolsandbox.env import MMToolSandboxEnv

    records = [{"task_id": "a", "score": 1.0, "success": True, "error": None,
                "task_meta": {"flow_type": "compare", "challenge_type": "goal_change", "image_arrival": "late",
                              "image_kinds": ["receipt"], "num_images": 3}}]
    tables = MMToolSandboxEnv.summarize_episodes(records)["tables"]
    assert tables and all(isinstance(rows, dict) for rows in tables.values())
    assert any("compare" in rows for rows in tables.values())


def test_scenario_cache_is_bounded():
    import gymnasium as gym

    from mmenvs.toolsandbox.env import SCENARIO_CACHE_SIZE

    env = gym.make("MMToolSandbox-v0", mode="tool")
    try:
        ids = env.unwrapped.task_ids()[: SCENARIO_CACHE_SIZE + 5]
        for task_id in ids:
            env.unwrapped.load_task(task_id)
        cached = list(env.unwrapped._scenarios)
        assert len(cached) == SCENARIO_CACHE_SIZE
        assert cached[-1] == ids[-1] and ids[0] not in cached  # least recently used went first
        first = env.unwrapped.load_task(ids[0])  # reloads and evicts the next oldest
        assert first.id == ids[0] and ids[5] not in env.unwrapped._scenarios
    finally:
        env.close()


# --- the MMEnv hooks: images new to the agent, fresh evaluation details, one sandbox, one episode state
def test_info_images_name_each_usable_image_once(tool_env: MMToolSandboxEnv) -> None:
    data = _with_gallery_photo("gallery_and_card")
    obs, info = tool_env.reset(options={"task": data})
    assert info["images"] == ["img_0", "img_1"]  # the first message's card and the gallery photo, by number
    obs, *_, info = tool_env.step({"name": "search_tools", "arguments": {"query": "crop image"}})
    assert info["images"] == []
    obs, *_, info = tool_env.step({"name": "crop_image", "arguments": {"image_id": "img_0", "bbox": [0, 0, 500, 500]}})
    assert info["action_error"] is None and info["images"] == ["img_2"]  # a tool's image is the agent's at once
    obs, _, terminated, _, info = tool_env.step("Done.")
    assert terminated and info["images"] == []
    obs, _, _, _, info = tool_env.step("Are you there?")
    assert info["action_error_kind"] == "episode_over" and info["images"] == []


def test_info_images_after_a_user_message_are_its_new_images_only(tool_env: MMToolSandboxEnv) -> None:
    obs, info = tool_env.reset(options={"task_id": "expenses_trip_receipts"})
    assert info["images"] == ["img_0"]  # img_1 is stored too, but the user sends it later
    obs, *_, info = tool_env.step("Added the groceries.")
    assert info["images"] == ["img_1"] and info["user"]
    obs, *_, info = tool_env.step({"name": "search_tools", "arguments": {"query": "expenses"}})
    assert info["images"] == []  # not named twice


def test_step_info_never_carries_a_stale_entity_diff(tool_env: MMToolSandboxEnv) -> None:
    obs, info = tool_env.reset(options={"task_id": "contacts_business_card"})
    assert info["entity_diff"]["side_effects"] == [] and info["side_effects"] == [] and info["recall"] == 0.0
    steps = [{"name": "search_tools", "arguments": {"query": "contacts create contact"}},
             {"name": "contacts_create_contact", "arguments": {"name": "Tomasz Kowalczyk", "phone_number": "+1-555-0187", "email": "t.kowalczyk@brightline.io",
                                                               "company": "Brightline Labs", "job_title": "Senior Data Engineer", "relationship": "coworker"}}]
    for step in steps:  # "final" reward mode: these steps are not evaluated, so the reset's details would be stale
        obs, _, terminated, _, info = tool_env.step(step)
        assert info["action_error"] is None and not terminated
        assert "entity_diff" not in info and "side_effects" not in info
    obs, _, terminated, _, info = tool_env.step("Done.")
    assert terminated and info["recall"] == pytest.approx(1.0) and info["side_effects"] == []
    assert info["entity_diff"] == tool_env.evaluation.details["entity_diff"]
    assert info["entity_diff"] is not tool_env.evaluation.details["entity_diff"]  # a copy: infos share no objects


def test_progress_mode_reports_the_entity_diff_every_step() -> None:
    env = gym.make("MMToolSandbox-v0", mode="tool", reward_mode="progress").unwrapped
    try:
        env.reset(options={"task_id": "contacts_business_card"})
        _, _, _, _, info = env.step({"name": "search_tools", "arguments": {"query": "notes create note"}})
        _, _, _, _, info = env.step({"name": "notes_create_note", "arguments": {"title": "met Tomasz"}})
        assert info["side_effects"] == [{"table": "notes", "op": "create", "id": 1}] and "entity_diff" in info
    finally:
        env.close()


def test_sandbox_options_configure_the_one_code_sandbox() -> None:
    env = gym.make("MMToolSandbox-v0", sandbox_options={"timeout": 2.5, "isolation": "rlimit-only"}).unwrapped
    try:
        env.reset(options={"task_id": "contacts_business_card"})
        assert not env.sandbox_started  # started by the first code action
        _, _, _, _, info = env.step("```python\nkept = 41\nprint(kept + 1)\n```")
        assert env.sandbox.timeout == 2.5 and env.sandbox.isolation == "rlimit-only" == info["sandbox"]
        obs, _, _, _, info = env.step("```python\nprint(kept)\n```")
        assert "41" in obs["text"]
        env.reset(options={"task_id": "contacts_business_card"})  # MMEnv resets the sandbox: variables are gone
        obs, _, _, _, info = env.step("```python\nprint(kept)\n```")
        assert "NameError" in obs["text"]
    finally:
        env.close()
    env = gym.make("MMToolSandbox-v0").unwrapped
    try:
        assert env.sandbox.timeout == 10.0  # the env's default (sandbox_defaults)
    finally:
        env.close()
    with pytest.raises(TypeError, match=r"sandbox_timeout became sandbox_options=\{'timeout': seconds, 'isolation': ...\}"):
        gym.make("MMToolSandbox-v0", sandbox_timeout=3.0)
    with pytest.raises(ValueError, match="unknown keys \\['tiemout'\\]"):
        gym.make("MMToolSandbox-v0", sandbox_options={"tiemout": 3.0})


def test_each_reset_makes_a_fresh_episode_state(code_env: MMToolSandboxEnv) -> None:
    from mmenvs.toolsandbox.env import ToolSandboxEpisode

    obs, info = code_env.reset(options={"task_id": "contacts_business_card"})
    code_env.step("```python\nimport subprocess\n```")  # a guardrail violation
    obs, *_ = code_env.step(code_env.oracle_action(obs, info))
    last = code_env.episode
    assert last.actions and last.guardrail_violations == 1 and last.oracle_cursor > 0 and not last.pristine
    obs, info = code_env.reset(options={"task_id": "contacts_business_card"})
    episode = code_env.episode
    assert isinstance(episode, ToolSandboxEpisode) and episode is not last and code_env.world is episode.world is not last.world
    assert (episode.actions, episode.guardrail_violations, episode.oracle_cursor, episode.pristine) == ([], 0, 0, True)
    assert episode.messages == 1 and [t["role"] for t in episode.transcript] == ["user"] and episode.reported_images == {"img_0"}
    assert code_env.agent_actions == [] and info["guardrail_violations"] == 0
