"""The MMToolSandbox runtime reads its stored suites without the scenario generator.

``mmenvs.toolsandbox.suites`` reads the pinned suites (benchmark, heldout, the UI suite); the env
imports the generator only to make a fresh training scenario. The UI suite's agreement with a fresh
conversion is checked in ``test_toolsandbox_ui_suite.py``.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mmenvs.toolsandbox.env import MMToolSandboxEnv, UI_SUITES
from mmenvs.toolsandbox.images import placeholder_images
from mmenvs.toolsandbox.scenario import shipped_scenario_paths, ui_scenario_paths
from mmenvs.toolsandbox.suites import (PINNED_SUITES, UI_SUITE, StoredSuite, clear_caches, fingerprint, load_suite_scenario,
                                       pinned_fingerprints, pinned_suite, suite_ids, ui_suite_ids)

_GENERATOR = "mmenvs.toolsandbox.generator"


def _run(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON object as its last line."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


_LOADED = f"sorted(m for m in sys.modules if m == {_GENERATOR!r} or m.startswith({_GENERATOR + '.'!r}))"


# ---------------------------------------------------------------------------------------------- standing alone
def test_importing_the_env_loads_no_generator_module() -> None:
    out = _run(f"import json, sys\nimport mmenvs.toolsandbox.env\nprint(json.dumps({{'generator': {_LOADED}}}))")
    assert out["generator"] == []


def test_every_stored_suite_loads_without_the_generator_and_train_loads_it_lazily() -> None:
    code = f"""
import json, sys
import numpy as np
from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.toolsandbox.images import placeholder_images
out = {{}}
with placeholder_images():
    for suite in ("benchmark", "heldout", "handwritten"):
        env = MMToolSandboxEnv(mode="tool", suite=suite)
        ids = env.task_ids()
        out[suite] = [len(ids), env.load_task(ids[-1]).id == ids[-1]]
        env.close()
    for suite in ("benchmark", "ui-handwritten"):
        env = MMToolSandboxEnv(mode="ui", suite=suite)
        ids = env.task_ids()
        env.reset(options={{"task_id": ids[0]}})
        out["ui " + suite] = [len(ids), env.task.id == ids[0]]
        env.close()
tables = MMToolSandboxEnv.summarize_episodes([{{"task_id": "a", "score": 1.0, "success": True,
                                              "task_meta": {{"flow_type": "compare", "num_images": 2}}}}])["tables"]
out["summary"] = tables["Entity F1 by flow type"]["compare"]["episodes"]
out["before train"] = {_LOADED}
env = MMToolSandboxEnv(mode="tool", suite="train")
out["train"] = env.sample_task(np.random.default_rng(3)).metadata["seed"]
out["after train"] = {_LOADED}
print(json.dumps(out))
"""
    out = _run(code)
    assert out["benchmark"] == [258, True] and out["heldout"] == [112, True] and out["handwritten"] == [14, True]
    assert out["ui benchmark"] == [50, True] and out["ui ui-handwritten"] == [50, True]
    assert out["summary"] == 1.0
    assert out["before train"] == []
    assert out["train"] >= 10_000_000  # a fresh scenario from the training seed range
    assert f"{_GENERATOR}.suites" in out["after train"] and f"{_GENERATOR}.build" in out["after train"]


def test_every_shipped_task_id_loads_in_its_mode() -> None:
    tool = MMToolSandboxEnv(mode="tool")
    ui = MMToolSandboxEnv(mode="ui")
    try:
        with placeholder_images():  # parsing only: no need to draw ~2,000 images
            ids = [*suite_ids("benchmark"), *suite_ids("heldout"), *shipped_scenario_paths()]
            assert len(ids) == len(set(ids)) == 258 + 112 + 14
            for task_id in ids:  # any shipped id loads whatever the env's suite
                assert tool.load_task(task_id).id == task_id
            ui_ids = [*ui_suite_ids(), *ui_scenario_paths()]
            assert len(ui_ids) == len(set(ui_ids)) == 100
            for task_id in ui_ids:
                assert ui.load_task(task_id).id == task_id
        with pytest.raises(ValueError, match=r"unknown task_id 'ui-nope'"):
            ui.load_task("ui-nope")
    finally:
        tool.close()
        ui.close()
    assert UI_SUITES == ("benchmark", "ui-handwritten")


def test_the_reader_and_the_builder_name_the_same_pinned_suites() -> None:
    from mmenvs.toolsandbox.generator.suites import SUITES

    assert tuple(SUITES) == PINNED_SUITES == ("benchmark", "heldout")
    for name in PINNED_SUITES:
        assert len(pinned_suite(name).ids()) == SUITES[name]["size"]
    with pytest.raises(ValueError, match=r"unknown suite 'test'; valid suites: benchmark, heldout"):
        pinned_suite("test")
    # the training stream is checked against every pinned generated scenario
    assert len(pinned_fingerprints()) == 258 + 112


def test_the_ui_suite_is_stored_in_the_pinned_suites_format() -> None:
    index = [json.loads(line) for line in UI_SUITE.index_path().read_text(encoding="utf-8").splitlines()]
    lines = gzip.decompress(UI_SUITE.scenarios_path().read_bytes()).decode("utf-8").splitlines()
    scenarios = [json.loads(line) for line in lines]
    assert len(index) == len(scenarios) == 50
    assert [e["id"] for e in index] == [s["id"] for s in scenarios] == ui_suite_ids()
    for entry, scenario in zip(index, scenarios):
        assert entry["fingerprint"] == scenario["metadata"]["fingerprint"] == fingerprint(scenario)
    # its sources are pinned benchmark scenarios, with the fingerprints the benchmark's index holds
    benchmark = {e["id"]: e["fingerprint"] for e in pinned_suite("benchmark").entries()}
    assert all(benchmark[e["source"]] == e["source_fingerprint"] for e in index)
    # the same layout as registry/toolsandbox/suites: a sorted-key index and compact scenario lines
    assert UI_SUITE.index_path().read_text(encoding="utf-8") == "".join(json.dumps(e, sort_keys=True) + "\n" for e in index)
    assert lines == [json.dumps(s, separators=(",", ":"), ensure_ascii=False) for s in scenarios]


# ---------------------------------------------------------------------------------------------- the format
def _tiny_suite(folder: Path) -> tuple[StoredSuite, list[dict]]:
    suite = StoredSuite("tiny", str(folder), "suite 'tiny'", ("seed",), "python -m rebuild.tiny")
    scenarios = [load_suite_scenario("benchmark", scenario_id) for scenario_id in suite_ids("benchmark")[:2]]
    suite.write([{"id": s["id"], "seed": i, "fingerprint": s["metadata"]["fingerprint"]} for i, s in enumerate(scenarios)], scenarios)
    return suite, scenarios


def test_a_written_suite_reads_back_and_fresh_copies_are_returned(tmp_path: Path) -> None:
    suite, scenarios = _tiny_suite(tmp_path)
    assert suite.ids() == [s["id"] for s in scenarios] and scenarios[1]["id"] in suite and "nope" not in suite
    first = suite.load(scenarios[0]["id"])
    assert json.dumps(first) == json.dumps(scenarios[0])  # same content and key order
    first["rounds"].clear()
    assert suite.load(scenarios[0]["id"])["rounds"] == scenarios[0]["rounds"]
    assert [s["id"] for s in suite.load_all()] == suite.ids()
    with pytest.raises(ValueError, match=r"suite 'tiny' has no scenario 'nope' \(2 scenarios, e\.g\. "):
        suite.load("nope")
    with pytest.raises(ValueError, match="the same ids in the same order"):
        suite.write([{"id": "a", "seed": 0, "fingerprint": "0"}], scenarios)


def test_an_altered_scenario_file_is_refused_on_load(tmp_path: Path) -> None:
    suite, scenarios = _tiny_suite(tmp_path)
    edited = json.loads(json.dumps(scenarios[0]))
    edited["rounds"][0]["query"] += " (edited by hand)"
    body = "".join(json.dumps(s, separators=(",", ":")) + "\n" for s in (edited, scenarios[1]))
    suite.scenarios_path().write_bytes(gzip.compress(body.encode()))
    clear_caches()
    with pytest.raises(ValueError, match=rf"tiny\.jsonl\.gz: scenario '{scenarios[0]['id']}' has fingerprint [0-9a-f]{{16}}, the index says "
                                         rf"{scenarios[0]['metadata']['fingerprint']} .*the file was altered; rebuild with python -m rebuild\.tiny"):
        suite.load(scenarios[0]["id"])
    assert suite.load(scenarios[1]["id"])["id"] == scenarios[1]["id"]  # the untouched one still loads


@pytest.mark.parametrize("damage, message", [
    ("drop_field", r"tiny\.jsonl:2: missing field\(s\) seed \(an index line holds id, fingerprint, seed\)"),
    ("repeat_id", r"tiny\.jsonl: scenario ids repeat"),
    ("drop_scenario", r"scenario '.+' of the index tiny\.jsonl is missing; rebuild with python -m rebuild\.tiny"),
    ("not_gzip", r"tiny\.jsonl\.gz: cannot read the scenarios of suite 'tiny': .*; rebuild with python -m rebuild\.tiny"),
])
def test_broken_suite_files_name_the_file_and_what_is_wrong(tmp_path: Path, damage: str, message: str) -> None:
    suite, scenarios = _tiny_suite(tmp_path)
    index = [json.loads(line) for line in suite.index_path().read_text().splitlines()]
    if damage == "drop_field":
        del index[1]["seed"]
    elif damage == "repeat_id":
        index[1]["id"] = index[0]["id"]
    if damage in ("drop_field", "repeat_id"):
        suite.index_path().write_text("".join(json.dumps(e) + "\n" for e in index))
    elif damage == "drop_scenario":
        suite.scenarios_path().write_bytes(gzip.compress((json.dumps(scenarios[0]) + "\n").encode()))
    else:
        suite.scenarios_path().write_bytes(b"not gzip")
    clear_caches()
    with pytest.raises(ValueError, match=message):
        suite.load(scenarios[1]["id"])
