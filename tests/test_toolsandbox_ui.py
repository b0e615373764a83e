"""MMToolSandbox UI mode: screen schema, rendering, the user's private decisions, doc tools, scenarios end to end."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401  (registers the env ids)
from mmenvs.core import ImageStore, letterbox
from mmenvs.toolsandbox.catalog import tool_catalog, ui_tools
from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.toolsandbox.scenario import load_scenario, shipped_scenario_paths, ui_scenario_paths
from mmenvs.toolsandbox.ui import docs
from mmenvs.toolsandbox.ui.decide import interaction_mismatches, parse_decisions, react
from mmenvs.toolsandbox.ui.render import WIDTH, render_screen
from mmenvs.toolsandbox.ui.schema import ScreenError, validate_screen

UI_SCENARIOS = list(ui_scenario_paths())


@pytest.fixture(scope="module")
def ui_env() -> MMToolSandboxEnv:
    env = gym.make("MMToolSandbox-v0", mode="ui").unwrapped
    yield env
    env.close()


def _known(*ids: str):
    return lambda image_id: None if image_id in ids else f"unknown image id {image_id!r}"


def _products_screen() -> dict[str, Any]:
    return {"title": "Pick one", "children": [
        {"type": "text", "text": "Choose a bottle", "style": "title"},
        {"type": "list", "id": "bottles", "items": [
            {"id": "p1", "title": "AquaPure Bottle", "subtitle": "$18.99"},
            {"id": "p2", "title": "TrailMate Bottle", "subtitle": "$15.49"},
            {"id": "p3", "title": "Glacier Flask", "subtitle": "$21.00"}]},
        {"type": "button", "id": "ok", "label": "Continue"},
        {"type": "button", "id": "cancel", "label": "Cancel", "style": "secondary"}]}


# ---------------------------------------------------------------------- schema validation
@pytest.mark.parametrize(("screen", "message"), [
    ({"children": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"},
                   {"type": "list", "id": "l", "items": [{"id": "i", "title": "t", "image": "img_9"}]}]},
     "screen.children[2].items[0].image: unknown image id 'img_9'"),
    ([], "screen: expected a screen (a JSON object), got a list"),
    ({"children": []}, "screen.children: must hold 1-30 components, got 0"),
    ({"children": [{"text": "x"}]}, "screen.children[0].type: missing"),
    ({"children": [{"type": "slider"}]}, "screen.children[0].type: unknown component type 'slider'"),
    ({"children": [{"type": "button", "label": "Go"}]}, "screen.children[0].id: missing (required for a button component)"),
    ({"children": [{"type": "button", "id": "a", "label": "Go", "color": "red"}]}, "screen.children[0].color: unknown field for a button component"),
    ({"children": [{"type": "button", "id": "a", "label": "A"}, {"type": "button", "id": "a", "label": "B"}]},
     "screen.children[1].id: duplicate id 'a' (already used at screen.children[0].id)"),
    ({"children": [{"type": "form", "id": "f", "fields": [{"id": "x", "label": "X", "kind": "select"}], "submit": {"id": "s", "label": "Go"}}]},
     "screen.children[0].fields[0].options: missing (a select field needs its options)"),
    ({"children": [{"type": "form", "id": "f", "fields": [{"id": "d", "label": "Date", "kind": "date", "value": "May 3"}], "submit": {"id": "s", "label": "Go"}}]},
     "screen.children[0].fields[0].value: a date field's value must look like '2025-03-14', got 'May 3'"),
    ({"children": [{"type": "row", "children": [{"type": "list", "id": "l", "items": [{"id": "i", "title": "t"}]}]}]},
     "screen.children[0].children[0].type: a 'list' cannot sit inside a row"),
    ({"children": [{"type": "card", "id": "c", "title": "T", "buttons": [{"id": "b", "label": "Go", "style": "huge"}]}]},
     "screen.children[0].buttons[0].style: must be one of primary, secondary, danger, got 'huge'"),
    ({"children": [{"type": "list", "id": "l", "selection": "some", "items": [{"id": "i", "title": "t"}]}]},
     "screen.children[0].selection: must be one of single, multiple, none, got 'some'"),
    ({"children": [{"type": "text", "text": 5}]}, "screen.children[0].text: expected a string, got a number"),
])
def test_invalid_screens_name_the_json_path(screen: Any, message: str) -> None:
    with pytest.raises(ScreenError) as excinfo:
        validate_screen(screen, _known("img_0"))
    assert str(excinfo.value).startswith(message)


def test_valid_screen_is_normalised_with_its_elements() -> None:
    validated = validate_screen(_products_screen())
    assert validated.screen["children"][1]["selection"] == "single"  # the default is filled in
    assert [(e.id, e.kind, e.parent) for e in validated.elements] == [
        ("bottles", "list", None), ("p1", "item", "bottles"), ("p2", "item", "bottles"), ("p3", "item", "bottles"),
        ("ok", "button", None), ("cancel", "button", None)]


# ---------------------------------------------------------------------- rendering
def test_render_size_determinism_and_visible_items() -> None:
    store = ImageStore()
    photo = np.zeros((200, 300, 3), np.uint8)
    photo[:, :, 0] = 220  # a red photo, to find it in the rendered card
    image_id = store.add(photo)
    screen = _products_screen()
    screen["children"].insert(2, {"type": "card", "id": "c", "title": "Photo", "image": image_id, "buttons": [{"id": "b", "label": "Use"}]})
    validated = validate_screen(screen, _known(image_id))
    first, second = render_screen(validated, store), render_screen(validate_screen(copy.deepcopy(screen), _known(image_id)), store)
    assert first.image.width == WIDTH and 300 < first.image.height < 1200
    assert hashlib.sha256(first.image.tobytes()).hexdigest() == hashlib.sha256(second.image.tobytes()).hexdigest()
    pixels = np.asarray(first.image)
    for element in validated.elements:
        x1, y1, x2, y2 = first.boxes[element.id]
        assert 0 <= x1 < x2 <= first.image.width and 0 <= y1 < y2 <= first.image.height
        assert pixels[y1:y2, x1:x2].std() > 10, f"{element.id} is drawn"
    x1, y1, x2, y2 = first.boxes["c"]
    card = pixels[y1:y2, x1:x2].reshape(-1, 3)
    assert ((card[:, 0] == 220) & (card[:, 1] == 0)).sum() > 1000  # the thumbnail of the photo
    # An item's text is what makes its row: without the title the pixels of that row differ.
    changed = copy.deepcopy(screen)
    changed["children"][1]["items"][1]["title"] = "Other Bottle"
    other = np.asarray(render_screen(validate_screen(changed, _known(image_id)), store).image)
    x1, y1, x2, y2 = first.boxes["p2"]
    assert not np.array_equal(pixels[y1:y2, x1:x2], other[y1:y2, x1:x2])
    x1, y1, x2, y2 = first.boxes["p1"]
    assert np.array_equal(pixels[y1:y2, x1:x2], other[y1:y2, x1:x2])


@pytest.mark.parametrize("item", [i for i in docs.ITEMS if i.example is not None], ids=lambda i: f"{i.category}/{i.name}")
def test_every_documented_example_validates_and_renders(item: docs.DocItem) -> None:
    store = ImageStore()
    for _ in range(2):
        store.add(np.full((40, 60, 3), 128, np.uint8))
    rendered = render_screen(validate_screen(item.example, _known("img_0", "img_1")), store)
    assert rendered.image.width == WIDTH and rendered.image.height > 60


# ---------------------------------------------------------------------- the user's private decisions
def _decisions(value: Any) -> tuple:
    return parse_decisions(value, "rounds[0].ui")


PRICES = {"options": {"aqua": {"match": ["AquaPure"], "facts": {"price": 18.99}}, "trail": {"match": ["TrailMate"], "facts": {"price": 15.49}},
                      "glacier": {"match": ["Glacier"], "facts": {"price": 21.0}}}, "choose": {"min": "price"}}


def test_user_picks_the_cheapest_shown_option_and_confirms() -> None:
    reaction = react(_decisions(PRICES), validate_screen(_products_screen()), "screen_1")
    assert reaction.arguments == {"screen_id": "screen_1", "selected": {"bottles": ["p2"]}, "element_id": "ok"}


def test_user_chooses_only_among_shown_options() -> None:
    screen = _products_screen()
    del screen["children"][1]["items"][1]  # the cheapest is not offered
    reaction = react(_decisions(PRICES), validate_screen(screen), "screen_1")
    assert reaction.arguments["selected"] == {"bottles": ["p1"]}


def test_preference_not_on_screen_gives_a_note_that_hides_the_criterion() -> None:
    decision = {"options": {"office": {"match": ["Office"]}, "home": {"match": ["Home"]}}, "choose": {"prefer": ["office"]}}
    screen = {"children": [{"type": "list", "id": "a", "items": [{"id": "h", "title": "Home"}]}, {"type": "button", "id": "go", "label": "Go"}]}
    reaction = react(_decisions(decision), validate_screen(screen), "screen_1")
    assert reaction.arguments is None and "none of them is what they want" in reaction.note
    assert "office" not in reaction.note.lower()
    nothing = react(_decisions(decision), validate_screen({"children": [{"type": "text", "text": "Working on it"}]}), "screen_2")
    assert nothing.arguments is None and "nothing to click" in nothing.note


def test_where_with_pick_all_selects_every_match_in_a_multiple_list() -> None:
    decision = {"options": {k: {"match": [k], "facts": {"went": k in ("dana", "marco")}} for k in ("dana", "marco", "helen")},
                "choose": {"where": {"went": True}}, "pick": "all"}
    screen = {"children": [{"type": "list", "id": "who", "selection": "multiple", "items": [
        {"id": "1", "title": "Helen"}, {"id": "2", "title": "Marco"}, {"id": "3", "title": "Dana"}]}, {"type": "button", "id": "req", "label": "Request"}]}
    reaction = react(_decisions(decision), validate_screen(screen), "s")
    assert reaction.arguments == {"screen_id": "s", "selected": {"who": ["3", "2"]}, "element_id": "req"}


def test_select_field_option_form_values_and_card_buttons() -> None:
    decision = {"options": {"fri": {"match": ["friday"]}, "sat": {"match": ["saturday"]}}, "choose": {"prefer": ["fri"]}, "form": {"note": "bring cash"}}
    screen = {"children": [{"type": "form", "id": "f", "fields": [
        {"id": "day", "label": "Day", "kind": "select", "options": ["Saturday", "Friday"]}, {"id": "n", "label": "Note", "kind": "text"}],
        "submit": {"id": "save", "label": "Save"}}]}
    reaction = react(_decisions(decision), validate_screen(screen), "s")
    assert reaction.arguments == {"screen_id": "s", "element_id": "save", "form_values": {"n": "bring cash", "day": "Friday"}}
    cards = {"children": [{"type": "row", "children": [
        {"type": "card", "id": "c1", "title": "Saturday slot", "buttons": [{"id": "b1", "label": "Book"}]},
        {"type": "card", "id": "c2", "title": "Friday slot", "buttons": [{"id": "b2", "label": "Book"}]}]}]}
    assert react(_decisions(decision), validate_screen(cards), "s").arguments == {"screen_id": "s", "element_id": "b2"}


def test_form_only_decision_and_ambiguous_elements() -> None:
    form_only = _decisions({"form": {"file name": "blender_receipt.png", "quantity": "5"}})
    screen = {"children": [{"type": "form", "id": "f", "fields": [
        {"id": "name", "label": "File name", "kind": "text"}, {"id": "qty", "label": "Quantity", "kind": "number"},
        {"id": "gift", "label": "Gift wrap", "kind": "checkbox"}], "submit": {"id": "ok", "label": "Save"}}]}
    assert react(form_only, validate_screen(screen), "s").arguments == {"screen_id": "s", "element_id": "ok",
                                                                         "form_values": {"name": "blender_receipt.png", "qty": 5}}
    # An item naming two options shows neither: the user cannot tell which one it is.
    both = {"children": [{"type": "list", "id": "l", "items": [{"id": "x", "title": "AquaPure or TrailMate"}]}]}
    assert react(_decisions(PRICES), validate_screen(both), "s").arguments is None


@pytest.mark.parametrize(("value", "message"), [
    ({"options": {"a": {"match": ["A"]}}}, "rounds[0].ui.choose' is missing"),
    ({"options": {"a": {"match": ["A"]}}, "choose": {"prefer": ["b"]}}, "must list option keys from ['a']"),
    ({"options": {"a": {"match": ["A"]}}, "choose": {"min": "price"}}, "lack as a number"),
    ({"options": {"a": {"match": []}}, "choose": {"prefer": ["a"]}}, "rounds[0].ui.options.a.match' must be a non-empty list"),
    ({"choose": {"min": "price"}}, "a criterion needs options"),
    ({"options": {"a": {"match": ["A"]}}, "choose": {"prefer": ["a"]}, "pick": "some"}, "must be 'one' or 'all'"),
    ([], "must be a decision object or a non-empty list"),
])
def test_bad_decisions_name_the_field(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=None) as excinfo:
        _decisions(value)
    assert message in str(excinfo.value)


def test_interaction_mismatches() -> None:
    expected = [{"element_id": "ok", "selected": {"l": ["a", "b"]}}]
    assert interaction_mismatches(expected, [{"element_id": "ok", "selected": {"l": ["b", "a"]}}]) == []
    assert interaction_mismatches(expected, [{"element_id": "cancel"}]) == [
        "screen #1: expected element_id='ok', the user gave 'cancel'", "screen #1: expected selected={'l': ['a', 'b']}, the user gave None"]
    assert interaction_mismatches(expected, []) == ["1 screens expected to be shown, 0 were"]


# ---------------------------------------------------------------------- catalog, doc tools, env
def test_ui_tools_only_in_ui_mode_catalog_and_search() -> None:
    names = set(ui_tools())
    assert names == {"render_ui_screen", "show_ui_to_user", "ui_get_quick_start", "ui_explore_capabilities", "ui_list_items",
                     "ui_get_item_details", "ui_search_docs"}
    assert names <= {s["name"] for s in tool_catalog("mini", ui=True)}
    assert not names & {s["name"] for s in tool_catalog("full")}
    ui = gym.make("MMToolSandbox-v0", mode="ui").unwrapped
    tool = gym.make("MMToolSandbox-v0", mode="tool").unwrapped
    try:
        assert ui.search.rank("render ui screen")[0][1] == "render_ui_screen"
        assert "render_ui_screen" not in [n for _, n in tool.search.rank("render ui screen")]
    finally:
        ui.close()
        tool.close()


def _call(env: MMToolSandboxEnv, tool: str, **arguments: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    if tool not in env.search.working:
        env.step({"name": "search_tools", "arguments": env._oracle_search(tool)})
    obs, _, _, _, info = env.step({"name": tool, "arguments": arguments})
    return obs, info


def _result(obs: dict[str, Any]) -> Any:
    return json.loads(obs["text"].split("\n", 1)[1].split("\n[Showing")[0])


def test_doc_tools(ui_env: MMToolSandboxEnv) -> None:
    ui_env.reset(options={"task_id": UI_SCENARIOS[0]})
    guide = _result(_call(ui_env, "ui_get_quick_start")[0])["guide"]
    assert all(kind in guide for kind in ("text", "image", "button", "row", "card", "list", "form")) and "show_ui_to_user" in guide
    categories = _result(_call(ui_env, "ui_explore_capabilities")[0])["categories"]
    assert [c["category"] for c in categories] == ["components", "patterns", "interactions", "guides", "schema"]
    items = _result(_call(ui_env, "ui_list_items", category="components")[0])["items"]
    assert [i["name"] for i in items] == ["text", "image", "divider", "button", "row", "card", "list", "form"]
    card = _result(_call(ui_env, "ui_get_item_details", name="card", part="example")[0])
    assert set(card) == {"category", "name", "summary", "example", "related"} and validate_screen(card["example"])
    schema = _result(_call(ui_env, "ui_get_item_details", name="screen", part="schema")[0])["schema"]
    assert schema["required"] == ["children"] and len(schema["properties"]["children"]["items"]["oneOf"]) == 8
    hits = _result(_call(ui_env, "ui_search_docs", query="tick several items")[0])["results"]
    assert hits[0]["name"] == "multi_select"
    _, info = _call(ui_env, "ui_get_item_details", name="carousel")
    assert "no UI documentation item named 'carousel'" in info["action_error"]


def test_bad_screen_from_the_agent_is_an_error_observation(ui_env: MMToolSandboxEnv) -> None:
    ui_env.reset(options={"task_id": "ui_shopping_compare_checkout"})
    screen = {"children": [{"type": "text", "text": "Pick"}, {"type": "card", "id": "c", "title": "x", "image": "img_9"}]}
    obs, info = _call(ui_env, "render_ui_screen", screen=screen)
    assert info["action_error"] == "render_ui_screen: screen.children[1].image: unknown image id 'img_9'"
    assert info["action_error"] in obs["text"] and ui_env.ui.counts["render_errors"] == 1 and info["images"] == []
    obs, info = _call(ui_env, "render_ui_screen", screen='{"children": [}')
    assert info["action_error"].startswith("render_ui_screen: screen: not valid JSON")
    obs, info = _call(ui_env, "show_ui_to_user")
    assert "no UI screen has been rendered yet" in info["action_error"]
    # img_2 (the team list) arrives in round 2: not usable yet
    obs, info = _call(ui_env, "render_ui_screen", screen={"children": [{"type": "image", "image": "img_2"}]})
    assert info["action_error"] == "render_ui_screen: screen.children[0].image: image 'img_2' has not been shared with you yet"


def test_rendered_screen_becomes_the_observation_and_the_click_comes_back(ui_env: MMToolSandboxEnv) -> None:
    ui_env.reset(options={"task_id": "ui_shopping_compare_checkout"})
    screen = {"children": [{"type": "list", "id": "b", "items": [{"id": "x1", "title": "AquaPure", "image": "img_0"},
                                                                  {"id": "x2", "title": "TrailMate", "image": "img_1"}]},
                           {"type": "button", "id": "go", "label": "Choose"}]}
    obs, info = _call(ui_env, "render_ui_screen", screen=screen)
    result = _result(obs)
    assert info["action_error"] is None and info["images"] == [result["image_id"]] == ["img_3"]
    assert np.array_equal(obs["image"], letterbox(ui_env.images.get("img_3"), ui_env.obs_size))
    assert ui_env.images.record("img_3").parents == ("img_0", "img_1")
    assert [e["id"] for e in result["elements"]] == ["b", "x1", "x2", "go"]
    obs, info = _call(ui_env, "show_ui_to_user", message="Which one?")
    interaction = _result(obs)["user_interaction"]
    assert interaction == {"screen_id": "screen_1", "event": "click", "element_id": "go", "element_type": "button", "label": "Choose",
                           "selected": {"b": ["x2"]}}
    assert info["shown_to_user"] == [{"image_id": "img_3", "message": "Which one?", "screen_id": "screen_1"}]
    assert info["ui"] == {"screens_rendered": 1, "render_errors": 0, "screens_shown": 1, "user_interactions": 1, "no_interaction": 0}
    user_calls = [t for t in ui_env.transcript if t.get("tool") == "ui_user_interact"]
    assert user_calls == [{"role": "user", "kind": "ui_user_interact", "tool": "ui_user_interact",
                           "arguments": {"screen_id": "screen_1", "selected": {"b": ["x2"]}, "element_id": "go"}, "result": interaction}]


def test_ui_tools_from_execute_code(ui_env: MMToolSandboxEnv) -> None:
    ui_env.reset(options={"task_id": "ui_phone_flight_alarm_settings"})
    ui_env.step({"name": "search_tools", "arguments": {"query": "render ui screen show"}})
    code = ("r = render_ui_screen(screen={'children': [{'type': 'row', 'children': ["
            "{'type': 'button', 'id': 'a', 'label': '05:50'}, {'type': 'button', 'id': 'b', 'label': '04:50'}]}]})\n"
            "print(show_ui_to_user(screen_id=r['screen_id'])['user_interaction']['element_id'])")
    obs, _, _, _, info = ui_env.step({"name": "execute_code", "arguments": {"code": code}})
    assert info["action_error"] is None and obs["text"].startswith("Execution result:\nb")


def test_ui_rounds_need_ui_mode() -> None:
    data = json.loads(ui_scenario_paths()["ui_calendar_class_pick"].read_text())
    with pytest.raises(ValueError, match=r"unknown fields \['base'\]"):
        load_scenario(data)
    base = json.loads(shipped_scenario_paths()[data["base"]].read_text())
    merged = {**base, **{k: v for k, v in data.items() if k not in ("base", "metadata")}}
    with pytest.raises(ValueError, match=r"field 'rounds\[0\]' has unknown keys \['ui'\].*mode='ui'"):
        load_scenario(merged)
    bad = copy.deepcopy(data)
    bad["reference_solution"][0]["arguments"]["screen"]["children"][1]["buttons"] = [{"id": "x"}]
    with pytest.raises(ValueError, match=r"field 'reference_solution\[0\]\.arguments\.screen\.children\[1\]\.buttons\[0\]\.label' missing"):
        load_scenario(bad, ui=True)
    bad = copy.deepcopy(data)
    bad["base"] = "no_such_scenario"
    with pytest.raises(ValueError, match="field 'base' names unknown scenario 'no_such_scenario'"):
        load_scenario(bad, ui=True)


# ---------------------------------------------------------------------- scenarios end to end
def _play(env: MMToolSandboxEnv, task: Any, limit: int = 80) -> tuple[dict[str, Any], list[str]]:
    options = {"task_id": task} if isinstance(task, str) else {"task": task}
    obs, info = env.reset(options=options)
    seen = [obs["text"]]  # what the agent reads (info is the harness's: it holds the expected changes)
    for _ in range(limit):
        obs, reward, terminated, truncated, info = env.step(env.oracle_action(obs, info))
        assert info["action_error"] is None, info["action_error"]
        seen.append(obs["text"])
        if terminated or truncated:
            return info, seen
    raise AssertionError(f"the oracle did not finish in {limit} steps")


def test_ui_suite_size_and_coverage() -> None:
    assert len(UI_SCENARIOS) >= 50  # the paper's UI subset size
    scenarios = [load_scenario(p, ui=True) for p in ui_scenario_paths().values()]
    assert all(any(r.ui for r in s.rounds) for s in scenarios)
    kinds = {d.criterion[0] for s in scenarios for r in s.rounds for d in r.ui if d.criterion}
    assert kinds == {"min", "max", "where", "prefer"}
    assert any(d.pick == "all" for s in scenarios for r in s.rounds for d in r.ui)
    assert any(d.form for s in scenarios for r in s.rounds for d in r.ui)
    assert any(d.form and not d.options for s in scenarios for r in s.rounds for d in r.ui)  # a form-only decision


@pytest.mark.parametrize("task_id", UI_SCENARIOS)
def test_oracle_scores_one_in_ui_mode_and_the_user_clicks_as_expected(ui_env: MMToolSandboxEnv, task_id: str) -> None:
    info, seen = _play(ui_env, task_id)
    assert info["entity_f1"] == pytest.approx(1.0) and info["success"] and info["side_effects"] == []
    scenario = ui_env.task
    actual = [t.get("result") for t in ui_env.transcript if t.get("tool") == "ui_user_interact"]
    assert interaction_mismatches(scenario.ui_expectations(), actual) == []
    assert info["ui"]["screens_shown"] == info["ui"]["user_interactions"] == len(scenario.ui_expectations()) > 0
    # The private side of the script never reaches the agent: no round instructions, no criterion.
    text = "\n".join(seen)
    for round_ in scenario.rounds:
        if round_.instructions:
            assert round_.instructions not in text
        for decision in round_.ui:
            if decision.criterion is not None:
                assert json.dumps({decision.criterion[0]: decision.criterion[1]}) not in text
            for option in decision.options:
                if "_" in option.key:
                    assert option.key not in text


def test_private_criterion_never_leaks_into_observations(ui_env: MMToolSandboxEnv) -> None:
    data = json.loads(ui_scenario_paths()["ui_calendar_class_pick"].read_text())
    data["id"] = "ui_leak_probe"
    data["rounds"][0]["instructions"] = "SENTINEL-INSTRUCTION-91"
    data["rounds"][0]["ui"] = {"options": {"secret_pottery_zq": {"match": ["Pottery"], "facts": {"sentinel_fact_qq": 1}},
                                           "secret_yoga_zq": {"match": ["yoga"], "facts": {"sentinel_fact_qq": 2}},
                                           "secret_spanish_zq": {"match": ["Spanish"], "facts": {"sentinel_fact_qq": 0}}},
                               "choose": {"max": "sentinel_fact_qq"}}
    info, seen = _play(ui_env, data)
    assert info["entity_f1"] == pytest.approx(1.0)
    text = "\n".join(seen + [json.dumps(ui_env.agent_actions, default=str), json.dumps(ui_env.callable_tool_specs())])
    for secret in ("SENTINEL-INSTRUCTION-91", "secret_", "sentinel_fact_qq"):
        assert secret not in text


# The careless agent skips the screens and guesses (these are the guesses: a plausible but wrong option).
CARELESS: dict[str, dict[str, Any]] = {
    "ui_calendar_chat_lunch_invites": {"calendar_create_event_with_duration": {"attendees": ["dana.w@example.com", "priya.raman@example.com",
                                                                                            "marco.b@example.com", "helen.cho@ledgerwise.com"]}},
    "ui_calendar_class_pick": {"calendar_create_recurring_event": {"title": "Pottery basics", "start": "2025-01-06T18:00:00", "end": "2025-01-06T19:30:00"}},
    "ui_calendar_poster_reminder": {"reminders_add_reminder": {"reminder_time": "2025-04-19T09:00:00"}},
    "ui_contacts_business_card": {"contacts_create_contact": {"relationship": "business"}},
    "ui_email_invoice_to_accountant": {"email_send_email": {"recipients": ["priya.raman@example.com"]}},
    "ui_expenses_trip_receipts": {"expenses_split_expense": {"group_id": 2}},
    "ui_messaging_receipt_offline": {"messaging_send_message": {"recipient_phone_number": "+1-555-0199"}},
    "ui_music_chart_playlist": {"music_create_playlist_with_songs": {"song_ids": [6, 2, 3]}},
    "ui_notes_whiteboard_cleanup": {"notes_delete_note": {"note_id": 3}},
    "ui_payments_split_dinner": {"payments_split_bill": {"usernames": ["dana-w", "marco-bellini-art"]}},
    "ui_phone_flight_alarm_settings": {"phone_set_alarm": {"time": "05:50"}},
    "ui_shopping_compare_checkout": {"shopping_add_to_cart": {"product_id": 1}, "shopping_checkout": {"address_id": 1}},
    "ui_todo_packing_project": {"todo_create_task": {"project_id": 2, "due_date": None}},
    "ui_files_photos_receipt_archive": {"files_save_image_as_file": {"name": "receipt.png", "folder_path": "Documents/Receipts"},
                                        "photos_save_image_to_gallery": {"album": "Camera Roll"}},
    "ui_shopping_top_rated": {"shopping_add_to_cart": {"product_id": 2}},
    "ui_music_trim_road_trip": {"music_remove_songs_from_playlist": {"song_ids": [5]}},
    "ui_calendar_move_dentist": {"calendar_reschedule_event": {"new_start": "2025-04-18T09:00:00"}},
    "ui_expenses_tour_payer": {"expenses_split_expense": {"paid_by": "me"}},
    "ui_contacts_favorite_from_chat": {"contacts_set_contact_favorite": {"contact_id": 2}},
    "ui_payments_request_omakase": {"payments_request_money": {"username": "dana-w"}},
    "ui_notes_pick_note": {"notes_append_to_note": {"note_id": 2}},
    "ui_todo_pick_items": {"todo_create_task": [{"content": "Buy sunscreen"}, {"content": "Buy bug spray"}]},
    "ui_calendar_poster_family": {"calendar_create_event": {"calendar": "personal"}},
    "ui_contacts_card_favorite_form": {"contacts_create_contact": {"relationship": "coworker", "is_favorite": None}},
    "ui_messaging_pick_photo": {"messaging_send_message": {"attachment_image_ids": ["{image:a}"]}},
    "ui_settings_brightness_form": {"settings_set_brightness": {"level": 50}},
    "ui_reminders_pick_delete": {"reminders_delete_reminder": {"reminder_id": 2}},
    "ui_calendar_lunch_duration": {"calendar_create_event_with_duration": {"duration_minutes": 90}},
    "ui_shopping_wishlist_pick": {"shopping_create_wishlist_item": {"product_id": 2}},
    "ui_expenses_category_select": {"expenses_split_expense": {"category": "food"}},
    "ui_files_move_manual": {"files_move_file": {"folder_id": None}},
    "ui_poster_invite_friend": {"calendar_create_event": {"attendees": ["marco.b@example.com"]}},
    "ui_poster_text_friend": {"messaging_send_message": {"recipient_phone_number": "+1-555-0142"}},
    "ui_flight_checkin_reminder": {"reminders_add_reminder": {"reminder_time": "2025-05-20T22:00:00"}},
    "ui_music_like_top_song": {"music_set_song_liked": {"song_id": 3}},
    "ui_todo_priority_form": {"todo_create_task": {"priority": None}},
    "ui_email_invoice_cc": {"email_send_email": {"cc": None}},
    "ui_expenses_split_among": {"expenses_split_expense": {"among": None}},
    "ui_shopping_cart_quantity": {"shopping_add_to_cart": {"quantity": None}},
    "ui_receipt_text_friends": {"messaging_send_message": [{"recipient_phone_number": "+1-555-0142"}, {"recipient_phone_number": "+1-555-0178"}]},
    "ui_receipt_note_title": {"notes_create_note": {"title": "Receipt"}},
    "ui_card_coffee_meeting": {"calendar_create_event_with_duration": {"start": "2025-03-12T15:00:00"}},
    "ui_notes_pin_pick": {"notes_set_note_pinned": {"note_id": 2}},
    "ui_notes_tag_topics": {"notes_add_note_tag": [{"value": "vendors"}, {"value": "hiring"}, {"value": "budget"}]},
    "ui_todo_project_color": {"todo_create_project_with_tasks": {"color": None}},
    "ui_calendar_classes_enrolled": {"calendar_create_recurring_event": [
        {}, {"title": "Vinyasa yoga", "start": "2025-01-09T19:00:00", "end": "2025-01-09T20:00:00"}]},
    "ui_music_queue_pick": {"music_add_to_queue": [{"song_id": 6}, {"song_id": 2}]},
    "ui_files_name_form": {"files_save_image_as_file": {"name": "receipt.png"}},
    "ui_payments_pay_friend": {"payments_send_money": {"username": "marcob"}},
    "ui_shopping_compare_rating_cards": {"shopping_add_to_cart": {"product_id": 1}},
}


def _careless(task_id: str) -> dict[str, Any]:
    data = json.loads(ui_scenario_paths()[task_id].read_text())
    solution = []
    seen: dict[str, int] = {}
    for step in data["reference_solution"]:
        if step.get("tool") in ("render_ui_screen", "show_ui_to_user"):
            continue
        step = copy.deepcopy(step)
        guess = CARELESS[task_id].get(step.get("tool", ""), {})
        if isinstance(guess, list):  # one guess per call of that tool, in order
            seen[step["tool"]] = seen.get(step["tool"], -1) + 1
            guess = guess[seen[step["tool"]]]
        for key, value in guess.items():
            if value is None:
                step["arguments"].pop(key, None)
            else:
                step["arguments"][key] = value
        solution.append(step)
    data["reference_solution"] = solution
    return data


def test_careless_agent_that_never_shows_a_screen_scores_lower(ui_env: MMToolSandboxEnv) -> None:
    assert set(CARELESS) == set(UI_SCENARIOS)
    scores = {}
    for task_id in UI_SCENARIOS:
        info, _ = _play(ui_env, _careless(task_id))
        assert info["ui"]["screens_shown"] == 0
        scores[task_id] = info["entity_f1"]
    assert all(score < 1.0 for score in scores.values()), scores
    assert sum(scores.values()) / len(scores) < 0.75, scores  # 0.58 with the guesses above (entity F1 gives partial credit)


def test_ui_mode_passes_check_env_and_merged_toolsets_keep_the_ui_tools() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make("MMToolSandbox-v0", mode="ui", toolset="mini").unwrapped
    try:
        check_env(env, skip_render_check=True)
        for task_id in ("ui_shopping_compare_checkout", "ui_todo_packing_project", "ui_music_chart_playlist"):
            info, _ = _play(env, task_id)
            assert info["entity_f1"] == pytest.approx(1.0), task_id
    finally:
        env.close()


def test_a_user_without_ui_support_ignores_screens() -> None:
    from mmenvs.toolsandbox.user import ScriptedUser, UserMessage, UserSimulator

    class PlainUser(UserSimulator):  # implements only the two required methods, like an LLM user might
        def __init__(self) -> None:
            self.inner = ScriptedUser()

        def start(self, scenario: Any) -> UserMessage:
            return self.inner.start(scenario)

        def reply(self, agent_text: str) -> UserMessage:
            return self.inner.reply(agent_text)

    env = gym.make("MMToolSandbox-v0", mode="ui", user=PlainUser()).unwrapped
    try:
        env.reset(options={"task_id": "ui_phone_flight_alarm_settings"})
        _call(env, "render_ui_screen", screen={"children": [{"type": "button", "id": "ok", "label": "04:50"}]})
        obs, info = _call(env, "show_ui_to_user")
        assert _result(obs)["user_interaction"] is None and info["ui"]["no_interaction"] == 1
    finally:
        env.close()


def test_random_agent_in_ui_mode_scores_near_zero(ui_env: MMToolSandboxEnv) -> None:
    rng = np.random.default_rng(7)
    scores = []
    for task_id in UI_SCENARIOS[::10]:
        obs, info = ui_env.reset(options={"task_id": task_id})
        for _ in range(40):
            obs, _, terminated, truncated, info = ui_env.step(ui_env.random_action(rng))
            assert ui_env.observation_space.contains(obs)
            if terminated or truncated:
                break
        scores.append(ui_env.evaluate().score)
    assert max(scores) < 0.5 and sum(scores) / len(scores) < 0.2, scores
