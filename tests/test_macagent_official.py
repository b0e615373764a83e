"""The public MacAgentBench task format (issue 15 item 3): the importer over fixtures we wrote in that
format (tests/fixtures/macagent_official/task/<app>/N_1.json, one or more per check family the importer
maps), the skipped files and their reasons, and the task-format fixes of item 5."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401  (registers the env ids)
from mmenvs.cli import main
from mmenvs.macagent.checkpoints import METRICS
from mmenvs.macagent.official import CHECKS, HELPERS, load_official, official_id, report_markdown, skills_of, verify_official, wav_seconds
from mmenvs.macagent.tasks import TaskFormatError, task_from_data

FIXTURES = Path(__file__).parent / "fixtures" / "macagent_official"
SKIPPED = {
    "fixture_skipped_1_1": "new_whisper_check_file_matches_live_output",
    "fixture_skipped_2_1": "no translation for the setup helper 'mystery_seed_helper'",
    "fixture_skipped_3_1": "no translation for the rule 'exact_match'",
}


@pytest.fixture(scope="module")
def env():
    env = gym.make("MacAgent-v0", suite="official", official_dir=str(FIXTURES))
    yield env
    env.close()


@pytest.fixture(scope="module")
def verified(env):
    return {row["id"]: row for row in verify_official(env)}


def _fixture_checks() -> set[str]:
    names = set()
    for path in (FIXTURES / "task").glob("*/*.json"):
        if path.parent.name != "fixture_skipped":
            names |= set(json.loads(path.read_text())["evaluator"]["func"])
    return names


def test_every_check_family_and_helper_the_importer_maps_has_a_fixture():
    assert _fixture_checks() == set(CHECKS)
    helpers = {step["type"] for path in (FIXTURES / "task").glob("*/*.json") for step in json.loads(path.read_text()).get("config", [])}
    assert set(HELPERS) <= helpers


def test_ids_come_from_the_path_and_skipped_files_name_their_reason():
    suite = load_official(FIXTURES)  # the checkout itself (its task/ folder is found)
    ids = [seed.id for seed in suite.seeds]
    assert "fixture_files_1_1" in ids and "fixture_files_2_1" in ids  # both files say "id": "fx_files"
    assert len(ids) == len(set(ids)) == 23
    assert {s.id: s.reason for s in suite.skipped}.keys() == SKIPPED.keys()
    for skip in suite.skipped:
        assert SKIPPED[skip.id] in skip.reason and skip.path.startswith("fixture_skipped/")
    assert suite.oracle["fixture_tts_1_1"] == "sim-native" and suite.oracle["fixture_notes_1_1"] == "reference_command"
    assert suite.oracle["fixture_keynote_1_1"] == suite.oracle["fixture_pages_3_1"] == "derived"  # iWork: no reference command
    assert official_id("keynote", "6_1") == "keynote_6_1"


def test_every_importable_fixture_passes_with_its_reference_and_scores_zero_with_done(verified):
    assert len(verified) == 23
    failures = {tid: row for tid, row in verified.items() if row["oracle"] != 1.0 or row["done"] != 0.0}
    assert not failures, failures


def test_a_failing_config_command_is_tolerated_and_reported(env):
    obs, info = env.reset(options={"task_id": "fixture_notes_1_1"})
    notes = info["setup_notes"]
    assert len(notes) == 1 and "failure tolerated" in notes[0] and "exited with code 127" in notes[0]
    assert info["task_meta"]["skill_covered"] is True and info["task_meta"]["apps"][0] == "Notes"
    assert [c["passed"] for c in info["checkpoints"]] == [False, False, False, False, False]
    obs, info = env.reset(options={"task_id": "fixture_files_2_1"})
    assert "setup_notes" not in info and info["task_meta"]["skill_covered"] is False


def test_conj_or_is_one_checkpoint_over_the_checks(env):
    task = env.unwrapped.load_task("fixture_files_1_1")
    assert len(task.checkpoints) == 1 and task.checkpoints[0].getter["function"] == "official_any"
    assert task.interaction == "cli" and task.author_metadata["official_id"] == "fx_files"


def test_skills_come_from_the_commands_a_reference_uses():
    assert skills_of('memo notes -f "Work" | awk …') == ["memo"]
    assert skills_of("remindctl add --title x && gh api repos/a/b") == ["gh", "remindctl"]
    assert skills_of("curl -s 'wttr.in/Paris'") == ["weather"]
    assert skills_of("echo memorandum; ./memo-x") == []


def test_list_details_official_dir_prints_counts_and_reasons(capsys, tmp_path):
    report = tmp_path / "report.md"
    assert main(["list", "--details", "--official-dir", str(FIXTURES / "task"), "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "official tasks in" in out and "importable 23, skipped 3" in out
    assert "skipped fixture_skipped_3_1 (fixture_skipped/3_1.json): evaluator.expected[0]: no translation for the rule 'exact_match'" in out
    assert "by skill_covered:" in out and "by category:" in out
    table = report.read_text()
    assert table.count("| skipped |") == 3 and table.count("| imported |") == 23


def test_report_rows_with_verification(env):
    suite = env.unwrapped.official
    rows = [{"id": "fixture_files_2_1", "oracle": 1.0, "done": 0.0, "detail": ""},
            {"id": "fixture_tts_1_1", "oracle": 0.0, "done": 0.0, "detail": "1. x: False"}]
    table = report_markdown(suite, rows)
    assert "| fixture_files_2_1 | pass | 1.0 | 0.0 | oracle: reference_command |" in table
    assert "| fixture_tts_1_1 | fail | 0.0 | 0.0 | oracle: sim-native; 1. x: False |" in table


def test_a_folder_without_task_files_and_a_broken_file(tmp_path):
    with pytest.raises(TaskFormatError, match="no official task files"):
        load_official(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "1_1.json").write_text("{not json")
    (tmp_path / "app" / "2_1.json").write_text(json.dumps({"instruction": "x", "evaluator": {"func": ["check_file_exists"],
                                                          "parameters": [{}], "expected": [{"rules": {"func": "is_true"}}]}}))
    shutil.copy(FIXTURES / "task" / "fixture_files" / "2_1.json", tmp_path / "app" / "3_1.json")
    suite = load_official(tmp_path)
    reasons = {s.id: s.reason for s in suite.skipped}
    assert [s.id for s in suite.seeds] == ["app_3_1"]
    assert "app_1_1" in reasons and "missing parameter(s) ['file_path']" in reasons["app_2_1"]
    with pytest.raises(ValueError, match="needs official_dir"):
        gym.make("MacAgent-v0", suite="official")


def test_wav_header_duration():
    import io
    import wave

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\0\0" * 12000)
    assert wav_seconds(buffer.getvalue()[:4096]) == pytest.approx(1.5)
    assert wav_seconds(b"RIFF....WAVEjunk") is None and wav_seconds(b"not a wav") is None


# ---------------------------------------------------------------------------------------------- item 5
def _task(**extra):
    data = {"id": "t", "instruction": "x", "category": "System", "apps": ["Terminal"], "reference_time": "2026-04-14T09:00:00",
            "checkpoints": [{"name": "c", "tag": "file_ops", "getter": {"type": "shell", "command": "true"}, "metric": {"type": "truthy"}}],
            "reference_solution": ["```bash\ntrue\n```"]}
    data.update(extra)
    return task_from_data(data)


def test_json_equal_does_not_parse_a_json_getters_string_value_twice():
    task = _task(checkpoints=[{"name": "c", "tag": "file_ops", "getter": {"type": "shell", "command": "cat f", "output": "json"},
                               "metric": {"type": "json_equal", "expected": "[1, 2]"}}])
    options = task.checkpoints[0].options()
    assert options == {"parse_text": False}
    # the getter read the JSON text "\"[1, 2]\"": the string "[1, 2]", which equals the expected string
    assert METRICS["json_equal"]("[1, 2]", "[1, 2]", **options) is True
    assert METRICS["json_equal"]([1, 2], "[1, 2]", **options) is False
    # a text getter's output is still parsed once
    text = _task(checkpoints=[{"name": "c", "tag": "file_ops", "getter": {"type": "shell", "command": "cat f"},
                               "metric": {"type": "json_equal", "expected": [1, 2]}}])
    assert text.checkpoints[0].options() == {} and METRICS["json_equal"]("[1, 2]", [1, 2]) is True


def test_an_empty_reference_solution_needs_no_interaction():
    assert _task(reference_solution=[]).interaction == "both"
    assert _task(reference_solution=[], interaction="gui").interaction == "gui"
    assert _task(reference_solution=["DONE"]).interaction == "both"
    with pytest.raises(TaskFormatError, match="declared 'gui' but the reference solution is 'cli'"):
        _task(interaction="gui")


def test_metadata_and_skills_fields():
    task = _task(metadata={"author": "me", "ticket": 7}, skills=["memo"])
    assert task.author_metadata == {"author": "me", "ticket": 7} and task.skills == ("memo",)
    assert task.metadata()["skill_covered"] is True and _task().metadata()["skill_covered"] is False
    with pytest.raises(TaskFormatError, match="field 'metadata': must be an object"):
        _task(metadata=["x"])
    with pytest.raises(TaskFormatError, match="field 'skills'"):
        _task(skills=[""])
    with pytest.raises(TaskFormatError, match=r"unknown keys \['colour'\]"):
        _task(colour="red")


def test_eval_summary_splits_pass_rate_by_skill_coverage():
    from mmenvs.macagent.env import MacAgentEnv

    records = [{"task_meta": {"skill_covered": True}, "success": True}, {"task_meta": {"skill_covered": True}, "success": False},
               {"task_meta": {"skill_covered": False}, "success": False}, {"task_meta": {"skill_covered": False}, "error": "x"}]
    table = MacAgentEnv.summarize_episodes(records)["tables"]["Pass rate with and without skill coverage (MacAgentBench Table 4)"]
    assert table == {"with skill": {"pass": 0.5, "passed": 1, "episodes": 2}, "without skill": {"pass": 0.0, "passed": 0, "episodes": 1}}


def test_attack_task_files_cannot_reach_outside_the_home_or_run_unbounded(tmp_path):
    """A checkout is untrusted input: a note path with '..' fails its checkpoint (never reads the host), a
    table of a billion cells is refused, and a symlinked task file is not read."""
    folder = tmp_path / "task" / "evil"
    folder.mkdir(parents=True)
    escape = {"instruction": "x", "config": [], "related_apps": ["obsidian"], "reference_command": "true",
              "evaluator": {"func": ["new_obsidian_check_note_contains_all_texts"], "conj": "and",
                            "parameters": [{"vault_path": "/Users/pipiwu/Documents/V", "note_path": "../../../../etc/passwd", "expected_texts": ["root"]}],
                            "expected": [{"type": "common", "rules": {"func": "is_true"}}]}}
    (folder / "1_1.json").write_text(json.dumps(escape))
    huge = {"instruction": "x", "config": [], "related_apps": ["numbers"], "reference_command": "",
            "evaluator": {"func": ["numbers_test_value_replacement"], "conj": "and",
                          "parameters": [{"rows": 100000, "cols": 100000, "target_value": 5, "replace_value": 10}],
                          "expected": [{"type": "common", "rules": {"func": "is_true"}}]}}
    (folder / "2_1.json").write_text(json.dumps(huge))
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(escape))
    (folder / "3_1.json").symlink_to(outside)
    suite = load_official(tmp_path)
    assert [s.id for s in suite.seeds] == ["evil_1_1"]
    reasons = {s.id: s.reason for s in suite.skipped}
    assert "rows x cols must be between 1 and 2000 cells" in reasons["evil_2_1"] and "evil_3_1" not in reasons
    env = gym.make("MacAgent-v0", suite="official", official_dir=str(tmp_path))
    try:
        obs, info = env.reset(options={"task_id": "evil_1_1"})
        obs, reward, terminated, truncated, info = env.step("DONE")
        [checkpoint] = info["checkpoints"]
        assert checkpoint["passed"] is False and "leaves the vault" in checkpoint["error"]
    finally:
        env.close()


def test_the_shipped_suite_says_which_tasks_a_skill_covers():
    from mmenvs.core import registry_path
    from mmenvs.macagent.official import SKILL_COMMANDS
    from mmenvs.macagent.tasks import load_suite

    seeds = load_suite(registry_path("macagent", "tasks"))
    covered = [s for s in seeds if s.data.get("skills")]
    assert len(covered) >= 20 and len(covered) < len(seeds)
    assert {skill for s in covered for skill in s.data["skills"]} <= set(SKILL_COMMANDS.values())
    memo = next(s for s in seeds if s.id == "skill-memo-note-in-folder")
    assert memo.variant(0).metadata()["skill_covered"] is True
