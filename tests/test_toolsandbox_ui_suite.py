"""MMToolSandbox UI mode on the pinned benchmark: the 50 scenarios converted by ``generator/ui_convert.py``."""

from __future__ import annotations

import collections
import copy
import json
from typing import Any

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401  (registers the env ids)
from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.toolsandbox.generator import ui_convert
from mmenvs.toolsandbox.generator.images import placeholder_images
from mmenvs.toolsandbox.generator.ui_convert import DECISION_FLOWS, careless_solution, private_criterion, to_ui_scenario
from mmenvs.toolsandbox.scenario import ui_scenario_paths
from mmenvs.toolsandbox.suites import (UI_SUITE, load_suite, load_suite_scenario, load_ui_suite, load_ui_suite_scenario, ui_suite_entries,
                                       ui_suite_ids)
from mmenvs.toolsandbox.ui.decide import interaction_mismatches

UI_IDS = ui_suite_ids()


@pytest.fixture(scope="module")
def sources() -> dict[str, dict[str, Any]]:
    return {e["id"]: load_suite_scenario("benchmark", e["source"]) for e in ui_suite_entries()}


@pytest.fixture(scope="module")
def env() -> MMToolSandboxEnv:
    environment = gym.make("MMToolSandbox-v0", mode="ui").unwrapped
    yield environment
    environment.close()


def _play(env: MMToolSandboxEnv, options: dict[str, Any], limit: int = 120) -> tuple[dict[str, Any], list[str]]:
    obs, info = env.reset(options=options)
    seen = [obs["text"]]  # what the agent reads (info is the harness's)
    for _ in range(limit):
        obs, _, terminated, truncated, info = env.step(env.oracle_action(obs, info))
        seen.append(obs["text"])
        if terminated or truncated:
            return info, seen
    raise AssertionError(f"the episode did not finish in {limit} steps")


# ---------------------------------------------------------------------- the suite
def test_suite_has_50_balanced_scenarios_from_the_pinned_benchmark() -> None:
    entries = ui_suite_entries()
    assert len(entries) == 50 and len(set(UI_IDS)) == 50
    benchmark = {s["id"]: s["metadata"]["fingerprint"] for s in load_suite("benchmark")}
    assert all(benchmark[e["source"]] == e["source_fingerprint"] for e in entries)
    for axis, values in (("flow", DECISION_FLOWS), ("challenge", ("cooperative", "goal_change", "error_correction", "state_mutation")),
                         ("arrival", ("upfront", "progressive", "late", "mixed"))):
        counts = collections.Counter(e[axis] for e in entries)
        assert set(counts) == set(values), (axis, counts)
        assert max(counts.values()) - min(counts.values()) <= 1, (axis, counts)
    cells = collections.Counter((e["flow"], e["challenge"]) for e in entries)
    assert len(cells) == 16 and min(cells.values()) >= 2
    assert len({e["apps"] for e in entries}) == 12  # every app group
    assert {e["criterion"] for e in entries} == {"min", "max", "where", "prefer"} and {e["pick"] for e in entries} == {"one", "all"}


def test_env_suites_in_ui_mode() -> None:
    default = gym.make("MMToolSandbox-v0", mode="ui").unwrapped
    handwritten = gym.make("MMToolSandbox-v0", mode="ui", suite="ui-handwritten").unwrapped
    try:
        assert default.suite == "benchmark" and default.task_ids() == UI_IDS
        assert handwritten.task_ids() == list(ui_scenario_paths()) and len(handwritten.task_ids()) == 50
        # either suite's ids load in UI mode
        assert default.load_task("ui_shopping_compare_checkout").id == "ui_shopping_compare_checkout"
        assert handwritten.load_task(UI_IDS[0]).id == UI_IDS[0]
    finally:
        default.close()
        handwritten.close()
    with pytest.raises(ValueError, match=r"mode='ui' runs a UI suite, one of \('benchmark', 'ui-handwritten'\)"):
        gym.make("MMToolSandbox-v0", mode="ui", suite="train")


def test_the_stored_ui_suite_is_what_the_converter_makes_now() -> None:
    # The loader reads the stored file and never converts; this is where a converter change shows up.
    # When it fails on purpose (the converter was improved), rebuild: python -m mmenvs.toolsandbox.generator.ui_convert
    fresh = ui_convert.select_ui_suite()
    assert [s["id"] for s in fresh] == UI_IDS, "the selection of the 50 changed"
    assert [ui_convert.ui_suite_entry(s) for s in fresh] == list(ui_suite_entries())
    stored = load_ui_suite()
    for made, kept in zip(fresh, stored):
        assert json.dumps(made, ensure_ascii=False) == json.dumps(kept, ensure_ascii=False), f"{made['id']}: the converter's output changed"


def test_conversion_is_deterministic_and_leaves_its_source_alone(sources: dict[str, dict[str, Any]]) -> None:
    for ui_id, source in list(sources.items())[:10]:
        first, second = to_ui_scenario(copy.deepcopy(source)), to_ui_scenario(copy.deepcopy(source))
        assert json.dumps(first) == json.dumps(second) == json.dumps(load_ui_suite_scenario(ui_id))
    assert source == load_suite_scenario("benchmark", source["id"])  # the source is not modified


def test_a_converter_change_does_not_reach_the_stored_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the UI suite was converted on load")

    monkeypatch.setattr(ui_convert, "to_ui_scenario", broken)
    environment = MMToolSandboxEnv(mode="ui")
    try:
        with placeholder_images():
            environment.reset(options={"task_id": UI_IDS[0]})
        assert environment.task.id == UI_IDS[0] and environment.task.metadata["fingerprint"] == ui_suite_entries()[0]["fingerprint"]
    finally:
        environment.close()
    with pytest.raises(ValueError, match="the UI suite has no scenario 'nope'"):
        load_ui_suite_scenario("nope")
    assert UI_SUITE.scenarios_path().name == "benchmark.jsonl.gz" and UI_SUITE.scenarios_path().parent.name == "ui_suite"


def test_converted_scenarios_keep_the_expected_changes_and_move_the_criterion(sources: dict[str, dict[str, Any]]) -> None:
    for ui_id, source in sources.items():
        ui = load_ui_suite_scenario(ui_id)
        assert ui["expected_changes"] == source["expected_changes"] and ui["initial_entities"] == source["initial_entities"]
        criterion = private_criterion(source)
        assert criterion is not None and criterion["phrase"] in json.dumps(source["rounds"][-1], ensure_ascii=False)
        block = ui["rounds"][-1]["ui"]
        assert block["choose"] == criterion["choose"] and block.get("pick", "one") == criterion["pick"]
        assert len(block["options"]) == ui["metadata"]["ui_options"] >= 2
        assert 1 <= len(criterion["chosen"]) < len(block["options"])
        # match strings are the items' names, each on its own card or list item of the reference screen
        screen = json.dumps(next(s for s in ui["reference_solution"] if s.get("tool") == "render_ui_screen"), ensure_ascii=False)
        for option in block["options"].values():
            assert all(json.dumps(m, ensure_ascii=False)[1:-1] in screen for m in option["match"])
        tools = [s.get("tool") for s in ui["reference_solution"]]
        assert tools.count("render_ui_screen") == tools.count("show_ui_to_user") == 1
        original = [s for s in source["reference_solution"]]
        assert [s for s in ui["reference_solution"] if s.get("tool") not in ("render_ui_screen", "show_ui_to_user")] == original


# ---------------------------------------------------------------------- end to end
def test_oracle_scores_one_every_click_matches_and_the_criterion_never_leaks(env: MMToolSandboxEnv,
                                                                             sources: dict[str, dict[str, Any]]) -> None:
    with placeholder_images():  # the oracle never looks at pixels: skip drawing ~200 images
        for ui_id in UI_IDS:
            info, seen = _play(env, {"task_id": ui_id})
            assert info["entity_f1"] == pytest.approx(1.0) and info["success"] and info["side_effects"] == [], ui_id
            actual = [t.get("result") for t in env.transcript if t.get("tool") == "ui_user_interact"]
            assert interaction_mismatches(env.task.ui_expectations(), actual) == [], ui_id
            assert info["ui"]["screens_shown"] == info["ui"]["user_interactions"] == 1, ui_id
            text = "\n".join(seen + [json.dumps(env.agent_actions, default=str, ensure_ascii=False)])
            criterion = private_criterion(sources[ui_id])
            for secret in criterion["secrets"]:
                assert secret not in text, (ui_id, secret)
            block = env.task.rounds[-1].ui[0]
            for option in block.options:
                assert option.key not in text  # option keys are private ("opt_…")
                for fact in option.facts:
                    assert fact not in text or fact in ("price", "rating", "company"), (ui_id, fact)
            # before the screen is shown, no user message names what the user will choose
            user_before = []
            for turn in env.transcript:
                if turn.get("tool") == "ui_user_interact":
                    break
                if turn["role"] == "user":
                    user_before.append(turn["text"])
            for label in criterion["chosen"]:
                assert label not in "\n".join(user_before), (ui_id, label)


def test_the_leak_check_would_see_the_source_wording(env: MMToolSandboxEnv, sources: dict[str, dict[str, Any]]) -> None:
    # the check above is not vacuous: with the source's query put back, its criterion reaches the agent
    ui_id = next(i for i in UI_IDS if "cooperative" in i)
    data = load_ui_suite_scenario(ui_id)
    data["rounds"][-1]["query"] = sources[ui_id]["rounds"][-1]["query"]
    with placeholder_images():
        info, seen = _play(env, {"task": data})
    assert info["entity_f1"] == pytest.approx(1.0)
    assert all(secret in "\n".join(seen) for secret in private_criterion(sources[ui_id])["secrets"])


def test_careless_agent_that_never_shows_a_screen_scores_lower(env: MMToolSandboxEnv) -> None:
    scores = {}
    with placeholder_images():
        for ui_id in UI_IDS:
            data = load_ui_suite_scenario(ui_id)
            data["reference_solution"] = careless_solution(data)
            info, _ = _play(env, {"task": data})
            assert info["ui"]["screens_shown"] == 0
            scores[ui_id] = info["entity_f1"]
    below = [k for k, v in scores.items() if v < 1.0]
    mean = sum(scores.values()) / len(scores)
    assert len(below) == 50, {k: v for k, v in scores.items() if v >= 1.0}
    assert mean < 0.5, mean  # 0.35 measured (entity F1 gives partial credit); the oracle scores 1.0


def test_real_pixels_end_to_end_on_two_scenarios() -> None:
    environment = gym.make("MMToolSandbox-v0", mode="ui").unwrapped
    try:
        for ui_id in (UI_IDS[0], next(i for i in UI_IDS if "goal_change" in i)):
            info, _ = _play(environment, {"task_id": ui_id})
            assert info["entity_f1"] == pytest.approx(1.0)
            screen = next(t for t in environment.agent_actions if t.get("name") == "render_ui_screen")
            image_id = json.loads(screen["result"])["image_id"]
            assert environment.images.get(image_id).shape[1] == 720  # the rendered screen, with the item photos as thumbnails
    finally:
        environment.close()


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize("flow", ["aggregate", "compute", "validate"])
def test_flows_without_a_decision_point_are_refused(flow: str) -> None:
    scenario = next(s for s in load_suite("benchmark") if s["metadata"]["flow_type"] == flow)
    with pytest.raises(ValueError, match=rf"has flow '{flow}', which has no decision point: .*; convertible flows: compare, filter, "
                                         r"lookup_chain, cross_reference"):
        to_ui_scenario(scenario)


def test_bad_input_and_unconvertible_decisions() -> None:
    with pytest.raises(ValueError, match="expected a generated scenario dict with 'metadata'"):
        to_ui_scenario({"id": "x"})
    hand = json.loads((ui_scenario_paths()["ui_shopping_compare_checkout"]).read_text())
    with pytest.raises(ValueError, match="not a generated scenario"):
        to_ui_scenario({**hand, "metadata": {"flow_type": "compare", "challenge_type": "cooperative"}})
    source = next(s for s in load_suite("benchmark") if s["metadata"]["flow_type"] == "compare"
                  and s["metadata"]["challenge_type"] == "cooperative")
    reworded = copy.deepcopy(source)
    reworded["rounds"][-1]["query"] = reworded["rounds"][-1]["query"].replace(" of these", " of all")
    assert to_ui_scenario(reworded) is None  # the criterion is no longer stated in the generator's words
    wrong = copy.deepcopy(source)
    for word, other in (("cheapest", "most expensive"), ("most expensive", "cheapest"), ("earliest", "latest"), ("latest", "earliest"),
                        ("best-rated", "cheapest")):
        if word in wrong["rounds"][-1]["query"]:
            wrong["rounds"][-1]["query"] = wrong["rounds"][-1]["query"].replace(word, other)
            break
    assert to_ui_scenario(wrong) is None  # the criterion would choose another item than the stored solution acts on
