"""Entity-diff scoring of MMToolSandbox: snapshots, diffs, spec parsing, column similarity, Hungarian
matching, precision/recall/F1, side effects; and the ROUGE-L it uses for free text."""

from __future__ import annotations

import json
import random
import sqlite3

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from mmenvs.toolsandbox.rouge import RougeLPairs, lcs_length, rouge_l, rouge_l_matrix, rouge_l_text, tokenize
from mmenvs.toolsandbox.scoring import (
    ChangeSpec,
    column_similarity,
    diff_snapshots,
    parse_change_specs,
    score_entity_diff,
    snapshot,
)

KINDS = {
    "tasks": {"id": "id", "title": "text", "status": "enum", "priority": "number", "due": "datetime",
              "labels": "list", "done": "bool", "updated_at": "bookkeeping"},
    "messages": {"id": "id", "recipient_id": "id", "body": "text", "sent_at": "datetime"},
    "notes": {"id": "id", "body": "text"},
    "cards": {"id": "id", "c1": "enum", "c2": "enum", "c3": "enum", "c4": "enum"},
}


@pytest.fixture
def world() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript("""
        CREATE TABLE tasks (id INTEGER PRIMARY KEY, title TEXT, status TEXT, priority REAL, due TEXT,
                            labels TEXT, done INTEGER, updated_at TEXT);
        CREATE TABLE messages (id INTEGER PRIMARY KEY, recipient_id INTEGER, body TEXT, sent_at TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
        CREATE TABLE cards (id INTEGER PRIMARY KEY, c1 TEXT, c2 TEXT, c3 TEXT, c4 TEXT);
        INSERT INTO tasks VALUES
            (1, 'Buy milk', 'open', 1, '2026-03-05', '["home"]', 0, '2026-03-01T08:00:00'),
            (2, 'Call mom', 'open', 2, NULL, '[]', 0, '2026-03-01T08:00:00'),
            (3, 'File taxes', 'done', 3, '2026-04-15', '["money"]', 1, '2026-03-01T08:00:00');
        INSERT INTO notes VALUES (1, 'Gate code 4412');
    """)
    return conn


def specs(*items: dict) -> list[ChangeSpec]:
    return parse_change_specs(list(items), "scenario.json")


def score(conn, before, *items):
    return score_entity_diff(before, snapshot(conn), specs(*items), KINDS)


def send(conn, recipient: int, body: str, sent_at: str = "2026-03-05T18:00:00") -> None:
    conn.execute("INSERT INTO messages (recipient_id, body, sent_at) VALUES (?, ?, ?)", (recipient, body, sent_at))


# --------------------------------------------------------------------------- the scoring cases


def test_exact_match_scores_one(world):
    before = snapshot(world)
    send(world, 4, "Dinner at Luigi's at 7")
    world.execute("UPDATE tasks SET status = 'done', done = 1, updated_at = '2026-03-05T12:00:00' WHERE id = 1")
    world.execute("DELETE FROM notes WHERE id = 1")
    result = score(world, before,
                   {"table": "messages", "op": "create", "rows": [{"recipient_id": 4, "body": "dinner at luigi's at 7!"}]},
                   {"table": "tasks", "op": "update", "rows": [{"id": 1, "status": "done", "done": True}]},
                   {"table": "notes", "op": "delete", "rows": [{"id": 1}]})
    assert (result.f1, result.precision, result.recall) == (1.0, 1.0, 1.0)
    assert (result.matched, result.n_expected, result.n_actual) == (3.0, 3, 3)
    assert result.side_effects == [] and result.unmatched == []
    assert [p["pairs"][0]["actual_id"] for p in result.per_spec] == [1, 1, 1]


def test_a_perfect_pair_scores_exactly_one_whatever_the_column_count(world):
    before = snapshot(world)
    rows = []
    for n in range(3):
        row = {"title": f"Pack bag {n}", "status": "open", "priority": 2, "due": "2026-03-0{n + 1}", "labels": ["trip"], "done": False}
        rows.append(row)
        world.execute("INSERT INTO tasks (title, status, priority, due, labels, done) VALUES (?, ?, ?, ?, ?, ?)",
                      (row["title"], row["status"], row["priority"], row["due"], '["trip"]', 0))
    world.execute("UPDATE tasks SET title = 'Buy oat milk', status = 'done', priority = 3, due = '2026-03-06', "
                  "labels = '[]', done = 1 WHERE id = 1")
    update = {"id": 1, "title": "Buy oat milk", "status": "done", "priority": 3, "due": "2026-03-06", "labels": [], "done": True}
    result = score(world, before, {"table": "tasks", "op": "create", "rows": rows},
                   {"table": "tasks", "op": "update", "rows": [update]})
    # 1/6 added six times is 0.9999999999999999; the mean must sum first so that success checks can use == 1.0
    assert [p["score"] for spec in result.per_spec for p in spec["pairs"]] == [1.0, 1.0, 1.0, 1.0]
    assert (result.f1, result.precision, result.recall) == (1.0, 1.0, 1.0)


def test_partial_free_text_scores_rouge_l(world):
    before = snapshot(world)
    send(world, 4, "meet at the gate at noon today")
    result = score(world, before, {"table": "messages", "op": "create",
                                   "rows": [{"recipient_id": 4, "body": "Meet me at the north gate at noon."}]})
    # expected: meet me at the north gate at noon (8 tokens); actual: meet at the gate at noon today (7)
    # LCS = meet at the gate at noon = 6, so ROUGE-L F = 2*6 / (8 + 7) = 0.8; the pair averages id 1.0 and text 0.8
    pair = result.per_spec[0]["pairs"][0]
    assert pair["columns"] == {"recipient_id": 1.0, "body": pytest.approx(0.8)}
    assert pair["score"] == pytest.approx(0.9)
    assert result.precision == pytest.approx(0.9) and result.recall == pytest.approx(0.9)
    assert result.f1 == pytest.approx(0.9)


def test_hungarian_beats_greedy_matching(world):
    before = snapshot(world)
    world.execute("INSERT INTO cards (c1, c2, c3, c4) VALUES ('a', 'a', 'a', 'z')")  # id 1
    world.execute("INSERT INTO cards (c1, c2, c3, c4) VALUES ('a', 'a', 'y', 'y')")  # id 2
    e1 = {"c1": "a", "c2": "a", "c3": "a", "c4": "a"}  # 0.75 with card 1, 0.5 with card 2
    e2 = {"c1": "b", "c2": "b", "c3": "a", "c4": "z"}  # 0.5 with card 1, 0 with card 2
    result = score(world, before, {"table": "cards", "op": "create", "rows": [e1, e2]})
    # greedy (e1 takes its best, card 1) would total 0.75; the optimum pairs e1-card 2 and e2-card 1 for 1.0
    pairs = result.per_spec[0]["pairs"]
    assert [(p["actual_id"], p["score"]) for p in pairs] == [(2, 0.5), (1, 0.5)]
    assert result.matched == 1.0
    assert (result.precision, result.recall, result.f1) == (0.5, 0.5, 0.5)


def test_update_of_the_wrong_row_scores_zero(world):
    before = snapshot(world)
    world.execute("UPDATE tasks SET status = 'done' WHERE id = 2")
    result = score(world, before, {"table": "tasks", "op": "update", "rows": [{"id": 1, "status": "done"}]})
    assert (result.matched, result.precision, result.recall, result.f1) == (0.0, 0.0, 0.0, 0.0)
    assert result.per_spec[0]["pairs"][0]["actual_id"] is None
    assert result.unmatched == [{"table": "tasks", "op": "update", "id": 2}]


def test_missing_row_lowers_recall_only(world):
    before = snapshot(world)
    send(world, 4, "On my way")
    result = score(world, before, {"table": "messages", "op": "create",
                                   "rows": [{"recipient_id": 4, "body": "On my way"}, {"recipient_id": 5, "body": "Running late"}]})
    assert result.precision == 1.0 and result.recall == 0.5
    assert result.f1 == pytest.approx(2 / 3)
    assert result.per_spec[0]["pairs"][1]["actual_id"] is None


def test_extra_row_lowers_precision_only(world):
    before = snapshot(world)
    send(world, 4, "On my way")
    send(world, 9, "Totally unrelated words here")
    result = score(world, before, {"table": "messages", "op": "create", "rows": [{"recipient_id": 4, "body": "On my way"}]})
    assert result.precision == 0.5 and result.recall == 1.0
    assert result.f1 == pytest.approx(2 / 3)
    assert result.unmatched == [{"table": "messages", "op": "create", "id": 2}]
    assert result.side_effects == []


def test_change_in_an_unlisted_table_is_a_side_effect(world):
    before = snapshot(world)
    send(world, 4, "On my way")
    world.execute("INSERT INTO notes (body) VALUES ('scratch')")
    world.execute("UPDATE tasks SET priority = 9 WHERE id = 3")
    result = score(world, before, {"table": "messages", "op": "create", "rows": [{"recipient_id": 4, "body": "On my way"}]})
    assert result.n_actual == 3 and result.matched == 1.0
    assert result.precision == pytest.approx(1 / 3) and result.recall == 1.0
    assert result.f1 == pytest.approx(0.5)
    assert result.side_effects == [{"table": "notes", "op": "create", "id": 2}, {"table": "tasks", "op": "update", "id": 3}]
    info = json.loads(json.dumps(result.to_info()))
    assert info["side_effects"][0] == {"table": "notes", "op": "create", "id": 2}


def test_update_by_id_checks_changed_and_unchanged_columns(world):
    before = snapshot(world)
    world.execute("UPDATE tasks SET status = 'done', priority = 5 WHERE id = 1")
    spec = {"table": "tasks", "op": "update", "rows": [{"id": 1, "status": "done"}],
            "compare": ["status", "title", "priority"]}
    result = score(world, before, spec)
    # status changed as expected (1), title kept (1), priority should have stayed 1 but is 5 (0)
    pair = result.per_spec[0]["pairs"][0]
    assert pair["columns"] == {"status": 1.0, "title": 1.0, "priority": 0.0}
    assert pair["expected"] == {"status": "done", "title": "Buy milk", "priority": 1.0}
    assert pair["score"] == pytest.approx(2 / 3) and result.f1 == pytest.approx(2 / 3)


def test_update_touching_no_compared_column_is_not_a_candidate(world):
    before = snapshot(world)
    world.execute("UPDATE tasks SET labels = '[\"home\", \"urgent\"]' WHERE id = 1")
    result = score(world, before, {"table": "tasks", "op": "update", "rows": [{"id": 1, "status": "done"}],
                                   "compare": ["status", "title"]})
    # the row changed, but not in status or title: no credit for the title it kept, one unexpected change
    assert (result.matched, result.n_actual, result.f1) == (0.0, 1, 0.0)
    assert result.unmatched == [{"table": "tasks", "op": "update", "id": 1}]


def test_delete_by_id_and_by_columns(world):
    before = snapshot(world)
    world.execute("DELETE FROM tasks WHERE id = 2")
    assert score(world, before, {"table": "tasks", "op": "delete", "rows": [{"id": 2}]}).f1 == 1.0
    wrong = score(world, before, {"table": "tasks", "op": "delete", "rows": [{"id": 1}]})
    assert (wrong.f1, wrong.unmatched) == (0.0, [{"table": "tasks", "op": "delete", "id": 2}])
    by_title = score(world, before, {"table": "tasks", "op": "delete", "rows": [{"title": "Call mom"}, {"title": "Buy milk"}]})
    assert by_title.matched == 1.0 and by_title.precision == 1.0 and by_title.recall == 0.5
    assert by_title.per_spec[0]["pairs"][0]["actual_id"] == 2


def test_match_filter_specs(world):
    before = snapshot(world)
    world.execute("UPDATE tasks SET status = 'done' WHERE id = 1")
    world.execute("DELETE FROM tasks WHERE id = 3")
    result = score(world, before,
                   {"table": "tasks", "op": "update", "match": {"status": "open"}, "set": {"status": "done"}},
                   {"table": "tasks", "op": "delete", "match": {"priority": "3"}})  # "3" matches the number 3.0
    update, delete = result.per_spec
    assert [p["actual_id"] for p in update["pairs"]] == [1, None]  # rows 1 and 2 were open; only 1 was closed
    assert [p["expected"] for p in update["pairs"]] == [{"status": "done"}, {"status": "done"}]
    assert delete["pairs"][0]["actual_id"] == 3 and delete["pairs"][0]["expected"] == {"id": 3, "priority": 3.0}
    assert (result.matched, result.n_expected, result.n_actual) == (2.0, 3, 2)
    assert result.precision == 1.0 and result.recall == pytest.approx(2 / 3)


def test_bookkeeping_only_changes_are_not_changes(world):
    before = snapshot(world)
    world.execute("UPDATE tasks SET updated_at = '2026-03-09T00:00:00'")
    assert diff_snapshots(before, snapshot(world), {"tasks": ["updated_at"]}) == {}
    assert set(diff_snapshots(before, snapshot(world))) == {"tasks"}
    result = score_entity_diff(before, snapshot(world), [], KINDS)
    assert (result.n_actual, result.f1) == (0, 1.0)
    # an ignored column of a spec's table behaves the same way
    world.execute("UPDATE notes SET body = 'Gate code 9999' WHERE id = 1")
    ignoring = score(world, before, {"table": "notes", "op": "create", "rows": [{"body": "x"}], "ignore": ["body"]})
    assert ignoring.n_actual == 0


def test_no_expected_and_no_actual_change_scores_one(world):
    before = snapshot(world)
    result = score_entity_diff(before, snapshot(world), [], KINDS)
    assert (result.f1, result.precision, result.recall, result.n_actual) == (1.0, 1.0, 1.0, 0)
    world.execute("DELETE FROM notes")
    changed = score_entity_diff(before, snapshot(world), [], KINDS)
    assert (changed.f1, changed.precision, changed.side_effects) == (0.0, 0.0, [{"table": "notes", "op": "delete", "id": 1}])
    nothing_done = score(world, snapshot(world), {"table": "notes", "op": "create", "rows": [{"body": "x"}]})
    assert (nothing_done.f1, nothing_done.recall) == (0.0, 0.0)


# --------------------------------------------------------------------------- column similarity


@pytest.mark.parametrize(("kind", "expected", "actual", "similarity"), [
    ("number", "12.50", 12.5, 1.0),
    ("number", 12.5, 12.51, 0.0),
    ("number", 3, 3.0000001, 1.0),
    ("number", "$1,200", 1200, 1.0),
    ("number", None, None, 1.0),
    ("number", None, 0, 0.0),
    ("number", "n/a", "n/a", 1.0),
    ("list", '["b", "a", "a"]', ["a", "b", "a"], 1.0),
    ("list", ["a", "b"], ["a", "b", "b"], 0.0),
    ("list", [1, 2.0], "[2, 1]", 1.0),
    ("datetime", "2026-03-05", "2026-03-05T14:00:00", 1.0),
    ("datetime", "2026-03-05", "2026-03-06T00:00:00", 0.0),
    ("datetime", "2026-03-05T10:00", "2026-03-05 10:00:00", 1.0),
    ("datetime", "2026-03-05T10:00:00+02:00", "2026-03-05T08:00:00Z", 1.0),
    ("datetime", "2026-03-05T10:00", "2026-03-05T11:00", 0.0),
    ("datetime", "tomorrow", "tomorrow", 1.0),
    ("enum", "high", "high", 1.0),
    ("enum", "High", "high", 0.0),
    ("id", 7, "7", 1.0),
    ("id", 7, 8, 0.0),
    ("bool", True, 1, 1.0),
    ("bool", "false", 0, 1.0),
    ("bool", True, 0, 0.0),
    ("json", '{"a": 1, "b": [1, 2]}', {"b": [1, 2], "a": 1.0}, 1.0),
    ("json", {"b": [2, 1]}, {"b": [1, 2]}, 0.0),
    ("text", "Pay the rent", "pay rent now", 2 * 2 / 6),
    ("text", None, "", 1.0),
])
def test_column_similarity(kind, expected, actual, similarity):
    assert column_similarity(kind, expected, actual) == pytest.approx(similarity)


def test_bookkeeping_and_unknown_kinds_cannot_be_compared():
    with pytest.raises(ValueError, match="bookkeeping"):
        column_similarity("bookkeeping", 1, 1)
    with pytest.raises(ValueError, match="'money'"):
        score_entity_diff({"t": {}}, {"t": {}}, [], {"t": {"amount": "money"}})


def test_columns_without_a_declared_kind_are_inferred(world):
    before = snapshot(world)
    world.execute("INSERT INTO notes (body) VALUES ('alpha beta gamma delta')")
    result = score_entity_diff(before, snapshot(world), specs({"table": "notes", "op": "create",
                                                               "rows": [{"body": "alpha beta gamma"}]}), {})
    assert result.per_spec[0]["pairs"][0]["columns"]["body"] == pytest.approx(2 * 3 / 7)  # treated as text


# --------------------------------------------------------------------------- specs and errors


@pytest.mark.parametrize(("item", "fragment"), [
    ("not an object", "expected_changes[1]: expected an object"),
    ({"op": "create", "rows": [{}]}, "expected_changes[1].table: expected a non-empty table name"),
    ({"table": "tasks", "op": "upsert", "rows": [{}]}, "expected_changes[1].op: expected one of create, update, delete"),
    ({"table": "tasks", "op": "create"}, "expected_changes[1].rows: expected rows"),
    ({"table": "tasks", "op": "create", "rows": []}, "expected_changes[1].rows: expected a non-empty list"),
    ({"table": "tasks", "op": "create", "rows": ["x"]}, "expected_changes[1].rows[0]: expected an object"),
    ({"table": "tasks", "op": "update", "rows": [{"status": "done"}]}, "expected_changes[1].rows[0].id: an update row needs"),
    ({"table": "tasks", "op": "update", "rows": [{"id": "1", "status": "x"}]}, "expected_changes[1].rows[0].id: expected an integer"),
    ({"table": "tasks", "op": "update", "match": {"status": "open"}}, "expected_changes[1].set: expected a non-empty object"),
    ({"table": "tasks", "op": "create", "match": {"id": 1}}, "expected_changes[1].match: a create change"),
    ({"table": "tasks", "op": "delete", "rows": [{"id": 1}], "match": {"id": 1}}, "expected_changes[1].match: give either"),
    ({"table": "tasks", "op": "delete", "rows": [{"id": 1}], "set": {"a": 1}}, "expected_changes[1].set: only an update"),
    ({"table": "tasks", "op": "create", "rows": [{"a": 1}], "compare": "a"}, "expected_changes[1].compare: expected a list"),
    ({"table": "tasks", "op": "create", "rows": [{"a": 1}], "compare": ["a"], "ignore": ["a"]}, "expected_changes[1].compare: column 'a' is also in ignore"),
    ({"table": "tasks", "op": "create", "rows": [{"a": 1}], "compare": ["a", "b"]}, "expected_changes[1].rows[0].b: column is in compare"),
    ({"table": "tasks", "op": "create", "rows": [{"a": float("nan")}]}, "expected_changes[1].rows[0].a: expected a JSON value"),
    ({"table": "tasks", "op": "create", "rows": [{"a": 1}], "where": {}}, "expected_changes[1].where: unknown field"),
])
def test_malformed_specs_name_the_item_and_field(item, fragment):
    good = {"table": "notes", "op": "create", "rows": [{"body": "x"}]}
    with pytest.raises(ValueError) as caught:
        parse_change_specs([good, item], "registry/toolsandbox/s1.json")
    assert str(caught.value).startswith("registry/toolsandbox/s1.json: ")
    assert fragment in str(caught.value)


def test_parse_rejects_a_non_list():
    with pytest.raises(ValueError, match=r"s\.json: expected_changes: expected a list"):
        parse_change_specs({"table": "x"}, "s.json")


def test_specs_that_do_not_fit_the_initial_state_are_rejected(world):
    before = snapshot(world)
    cases = [
        ({"table": "task", "op": "create", "rows": [{"title": "x"}]}, "no table 'task'"),
        ({"table": "tasks", "op": "create", "rows": [{"titel": "x"}]}, "column 'titel' is not a column of table 'tasks'"),
        ({"table": "tasks", "op": "update", "rows": [{"id": 99, "status": "done"}]}, "rows[0].id: row 99 is not in table 'tasks'"),
        ({"table": "tasks", "op": "delete", "match": {"status": "archived"}}, "match: no row of table 'tasks'"),
    ]
    for item, fragment in cases:
        with pytest.raises(ValueError) as caught:
            score_entity_diff(before, before, specs(item), KINDS)
        assert "scenario.json: expected_changes[0]" in str(caught.value) and fragment in str(caught.value)
    with pytest.raises(ValueError, match=r"expected_changes\[1\]: row 1 of table 'tasks' is named by two expected update rows "
                                         r"\(also in scenario.json: expected_changes\[0\]\)"):
        score_entity_diff(before, before, specs({"table": "tasks", "op": "update", "rows": [{"id": 1, "status": "a"}]},
                                                {"table": "tasks", "op": "update", "rows": [{"id": 1, "title": "b"}]}), KINDS)


def test_spec_fields_are_parsed(world):
    (spec,) = specs({"table": "tasks", "op": "update", "match": {"status": "open"}, "set": {"status": "done"},
                     "compare": ["status"], "ignore": ["labels"]})
    assert (spec.table, spec.op, spec.rows, spec.match, spec.set_values) == ("tasks", "update", [], {"status": "open"}, {"status": "done"})
    assert (spec.compare, spec.ignore, spec.origin) == (["status"], ["labels"], "scenario.json: expected_changes[0]")


# --------------------------------------------------------------------------- snapshots and diffs


def test_snapshot_reads_every_table_or_the_named_ones(world):
    world.execute("CREATE TABLE playlist_songs (playlist_id INTEGER, song_id INTEGER)")
    world.execute("INSERT INTO playlist_songs VALUES (1, 10), (1, 11)")
    snap = snapshot(world)
    assert sorted(snap) == ["cards", "messages", "notes", "playlist_songs", "tasks"]
    assert snap["tasks"][2] == {"id": 2, "title": "Call mom", "status": "open", "priority": 2.0, "due": None,
                                "labels": "[]", "done": 0, "updated_at": "2026-03-01T08:00:00"}
    assert snap["playlist_songs"] == {1: {"playlist_id": 1, "song_id": 10}, 2: {"playlist_id": 1, "song_id": 11}}
    assert list(snapshot(world, ["notes"])) == ["notes"]
    with pytest.raises(ValueError, match="cannot read table 'nope'"):
        snapshot(world, ["nope"])


def test_snapshot_ignores_the_connection_row_factory(world):
    world.row_factory = sqlite3.Row
    assert snapshot(world, ["notes"]) == {"notes": {1: {"id": 1, "body": "Gate code 4412"}}}


def test_diff_snapshots_lists_created_updated_deleted(world):
    before = snapshot(world)
    world.execute("INSERT INTO notes (body) VALUES ('new')")
    world.execute("UPDATE tasks SET title = 'Buy oat milk' WHERE id = 1")
    world.execute("DELETE FROM tasks WHERE id = 3")
    diffs = diff_snapshots(before, snapshot(world))
    assert sorted(diffs) == ["notes", "tasks"]
    assert diffs["notes"].created == {2: {"id": 2, "body": "new"}}
    assert diffs["tasks"].updated[1][0]["title"] == "Buy milk" and diffs["tasks"].updated[1][1]["title"] == "Buy oat milk"
    assert list(diffs["tasks"].deleted) == [3]
    assert diffs["tasks"].changes() == [("update", 1), ("delete", 3)] and len(diffs["tasks"]) == 2
    assert diff_snapshots(before, snapshot(world, ["notes"])) == {"notes": diffs["notes"]}  # unread tables are not deleted


def test_info_is_json_and_carries_the_details(world):
    world.execute("CREATE TABLE images (id INTEGER PRIMARY KEY, data BLOB)")
    before = snapshot(world)
    world.execute("INSERT INTO images (data) VALUES (?)", (b"\x89PNG....",))
    send(world, 4, "hi")
    result = score(world, before, {"table": "messages", "op": "create", "rows": [{"recipient_id": 4, "body": "hi"}]})
    info = result.to_info()
    assert json.loads(json.dumps(info)) == info
    assert set(info) == {"f1", "precision", "recall", "matched", "n_expected", "n_actual", "per_spec", "side_effects", "unmatched"}
    assert info["per_spec"][0]["pairs"][0]["actual"] == {"recipient_id": 4, "body": "hi"}
    assert info["side_effects"] == [{"table": "images", "op": "create", "id": 1}]


# --------------------------------------------------------------------------- large blocks: lazy text refinement


def _random_sentence(rng: random.Random) -> str:
    common = ["the", "a", "to", "at", "for", "and", "of"]
    rare = [f"w{i}" for i in range(40)]
    return " ".join(rng.choice(common) if rng.random() < 0.5 else rng.choice(rare) for _ in range(rng.randint(3, 12)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lazy_text_matching_equals_the_exact_optimum(seed):
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, recipient_id INTEGER, body TEXT, sent_at TEXT)")
    before = snapshot(conn)
    expected = [{"recipient_id": rng.randint(1, 3), "body": _random_sentence(rng)} for _ in range(60)]
    for _ in range(70):
        send(conn, rng.randint(1, 3), _random_sentence(rng))
    result = score_entity_diff(before, snapshot(conn), specs({"table": "messages", "op": "create", "rows": expected}), KINDS)

    actual = list(snapshot(conn)["messages"].values())
    brute = np.array([[(float(e["recipient_id"] == a["recipient_id"]) + rouge_l_text(e["body"], a["body"])) / 2
                       for a in actual] for e in expected])
    r, c = linear_sum_assignment(brute, maximize=True)
    assert result.matched == pytest.approx(brute[r, c].sum(), abs=1e-9)
    for pair in result.per_spec[0]["pairs"]:
        if pair["actual_id"] is not None:
            row = actual[pair["actual_id"] - 1]
            assert pair["columns"]["body"] == pytest.approx(rouge_l_text(pair["expected"]["body"], row["body"]))


def test_lazy_matching_with_two_text_columns_and_mixed_compare_sets():
    rng = random.Random(5)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, title TEXT, body TEXT, tag TEXT)")
    kinds = {"docs": {"id": "id", "title": "text", "body": "text", "tag": "enum"}}
    before = snapshot(conn)
    expected = []
    for k in range(40):
        row = {"body": _random_sentence(rng), "tag": rng.choice("xyz")}
        if k % 2:
            row["title"] = _random_sentence(rng)
        expected.append(row)
    for _ in range(45):
        conn.execute("INSERT INTO docs (title, body, tag) VALUES (?, ?, ?)",
                     (_random_sentence(rng), _random_sentence(rng), rng.choice("xyz")))
    result = score_entity_diff(before, snapshot(conn), specs({"table": "docs", "op": "create", "rows": expected}), kinds)

    actual = list(snapshot(conn)["docs"].values())
    brute = np.array([[np.mean([column_similarity(kinds["docs"][c], e[c], a[c]) for c in e]) for a in actual] for e in expected])
    r, c = linear_sum_assignment(brute, maximize=True)
    assert result.matched == pytest.approx(brute[r, c].sum(), abs=1e-9)
    scores = [p["score"] for p in result.per_spec[0]["pairs"]]
    ids = [p["actual_id"] for p in result.per_spec[0]["pairs"]]
    assert scores == pytest.approx([brute[i, j - 1] if j is not None else 0.0 for i, j in enumerate(ids)])


# --------------------------------------------------------------------------- ROUGE-L


def _lcs_dp(a, b) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=90), st.lists(st.sampled_from("abcde"), max_size=90))
def test_bit_parallel_lcs_equals_dynamic_programming(a, b):
    assert lcs_length(a, b) == _lcs_dp(a, b)


def test_rouge_l_matrix_equals_pairwise_values():
    rng = random.Random(7)
    xs = [[rng.choice("abcdef") for _ in range(rng.randint(0, 80))] for _ in range(25)] + [list("abc")]
    ys = [[rng.choice("abcdefg") for _ in range(rng.randint(0, 80))] for _ in range(20)] + [list("abc")]
    matrix = rouge_l_matrix(xs, ys)
    assert matrix.shape == (26, 21)
    assert matrix == pytest.approx(np.array([[rouge_l(x, y) for y in ys] for x in xs]))
    assert matrix[-1, -1] == 1.0


def test_rouge_l_pairs_bounds_then_refines():
    pairs = RougeLPairs([("a", "b", "c", "d")], [("d", "c", "b", "a"), ("a", "x")])
    # 4 shared tokens bound the first pair's LCS by 4 (F <= 1), but the reversed order has LCS 1
    assert pairs.upper()[0].tolist() == [1.0, 2 * 1 / 6] and pairs.known()[0].tolist() == [False, True]
    assert pairs.refine(np.array([0]), np.array([0])) == 1
    assert pairs.upper()[0].tolist() == [2 * 1 / 8, 2 * 1 / 6] and pairs.known().all()


def test_tokenize_and_text_rouge():
    assert tokenize("Buy milk, EGGS & 2 apples!") == ("buy", "milk", "eggs", "2", "apples")
    assert tokenize(None) == () and tokenize(12.5) == ("12", "5")
    assert rouge_l_text("the cat sat on the mat", "the cat on the mat") == pytest.approx(2 * 5 / 11)
    assert rouge_l_text("", "") == 1.0 and rouge_l_text("a", "") == 0.0
