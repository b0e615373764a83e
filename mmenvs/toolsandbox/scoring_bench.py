"""Benchmark workloads of the entity-diff scoring (included in ``mmenvs bench`` through
``mmenvs/toolsandbox/bench.py``).

- *1,000 changed rows*: a world of five tables (3,400 initial rows, ~3,800 after) where the agent created 300
  messages and 200 cart items, updated 300 tasks, deleted 100 notes and touched 100 alarms no spec
  names; about one row in ten carries a mistake (a reworded text, a wrong number, a missing row).
  Timed: ``score_entity_diff`` on the two snapshots (diff, matching, F1); target 50 ms. The
  after-snapshot it needs is timed in its own row.
- *1,000 creates in one table*: the worst case for matching, a 1,000 x 1,000 assignment with a free-text
  column whose texts share many words.
"""

from __future__ import annotations

import random
import sqlite3
import time
from typing import Any, Callable

import numpy as np

from mmenvs.benchmarks.harness import measure, timing_row

from .scoring import parse_change_specs, score_entity_diff, snapshot

KINDS = {
    "messages": {"id": "id", "recipient_id": "id", "body": "text", "sent_at": "datetime"},
    "cart_items": {"id": "id", "product_id": "id", "quantity": "number", "gift": "bool", "added_at": "bookkeeping"},
    "tasks": {"id": "id", "title": "text", "status": "enum", "priority": "number", "due": "datetime",
              "labels": "list", "updated_at": "bookkeeping"},
    "notes": {"id": "id", "title": "text", "body": "text"},
    "alarms": {"id": "id", "time": "datetime", "label": "text", "enabled": "bool"},
}

_NAMES = ["Anna", "Ben", "Chloe", "Dev", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kemal", "Lea"]
_PLACES = ["Luigi's", "the north gate", "the station", "Cafe Roma", "the gym", "the office", "the park"]
_TEMPLATES = [
    "Hi {n}, dinner at {p} at {h} pm on {d}?",
    "Running late, see you at {p} around {h}",
    "{n}, can you bring the receipts to {p} before {h}?",
    "The invoice total is {a} dollars, paid on {d}",
    "Meet me at {p} at {h} and bring the tickets for {n}",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _message(rng: random.Random) -> str:
    return rng.choice(_TEMPLATES).format(n=rng.choice(_NAMES), p=rng.choice(_PLACES), h=rng.randint(1, 12),
                                         d=rng.choice(_DAYS), a=rng.randint(10, 999))


def _reword(rng: random.Random, text: str) -> str:
    words = text.split()
    words.pop(rng.randrange(len(words)))
    words.insert(rng.randrange(len(words) + 1), rng.choice(["please", "maybe", "again"]))
    return " ".join(words)


def _schema(conn: sqlite3.Connection) -> None:
    conn.executescript("""
        CREATE TABLE messages (id INTEGER PRIMARY KEY, recipient_id INTEGER, body TEXT, sent_at TEXT);
        CREATE TABLE cart_items (id INTEGER PRIMARY KEY, product_id INTEGER, quantity REAL, gift INTEGER, added_at TEXT);
        CREATE TABLE tasks (id INTEGER PRIMARY KEY, title TEXT, status TEXT, priority INTEGER, due TEXT, labels TEXT, updated_at TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT);
        CREATE TABLE alarms (id INTEGER PRIMARY KEY, time TEXT, label TEXT, enabled INTEGER);
    """)


def mixed_case(seed: int = 0) -> tuple[sqlite3.Connection, dict, list, dict]:
    """(connection after the agent acted, before-snapshot, specs, column kinds) for the 1,000-changed-rows workload."""
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    _schema(conn)
    conn.executemany("INSERT INTO tasks VALUES (?, ?, 'open', ?, ?, ?, '2026-03-01T08:00:00')",
                     [(i, f"{rng.choice(['Pay', 'Call', 'Buy', 'Book', 'Send'])} {rng.choice(_NAMES)} item {i}",
                       rng.randint(1, 4), f"2026-04-{rng.randint(1, 28):02d}", '["home"]') for i in range(1, 2001)])
    conn.executemany("INSERT INTO notes VALUES (?, ?, ?)", [(i, f"Note {i}", _message(rng)) for i in range(1, 1001)])
    conn.executemany("INSERT INTO alarms VALUES (?, ?, ?, 1)", [(i, f"2026-03-05T{i % 24:02d}:00:00", f"Alarm {i}") for i in range(1, 401)])
    before = snapshot(conn)

    items: list[dict[str, Any]] = []
    expected_messages, expected_cart, expected_updates, expected_deletes = [], [], [], []
    for _ in range(300):
        row = {"recipient_id": rng.randint(1, 50), "body": _message(rng), "sent_at": f"2026-03-05T{rng.randint(8, 20):02d}:00:00"}
        expected_messages.append(row)
        body = _reword(rng, row["body"]) if rng.random() < 0.1 else row["body"]
        conn.execute("INSERT INTO messages (recipient_id, body, sent_at) VALUES (?, ?, ?)", (row["recipient_id"], body, row["sent_at"]))
    for _ in range(200):
        row = {"product_id": rng.randint(1, 500), "quantity": rng.randint(1, 5), "gift": rng.random() < 0.2}
        expected_cart.append(row)
        quantity = row["quantity"] + 1 if rng.random() < 0.1 else row["quantity"]
        conn.execute("INSERT INTO cart_items (product_id, quantity, gift, added_at) VALUES (?, ?, ?, '2026-03-05T10:00:00')",
                     (row["product_id"], quantity, int(row["gift"])))
    for task_id in rng.sample(range(1, 2001), 300):
        new = {"id": task_id, "status": "done", "priority": rng.randint(1, 4), "labels": ["home", "done"]}
        expected_updates.append(new)
        if rng.random() < 0.05:
            continue  # the agent missed this one
        conn.execute("UPDATE tasks SET status = 'done', priority = ?, labels = ?, updated_at = '2026-03-05T10:00:00' WHERE id = ?",
                     (new["priority"], '["done", "home"]', task_id))
    done = sum(1 for r in conn.execute("SELECT 1 FROM tasks WHERE status = 'done'"))
    for note_id in rng.sample(range(1, 1001), 100 + (300 - done)):  # extra deletes keep the total at 1,000 changes
        expected_deletes.append({"id": note_id})
        conn.execute("DELETE FROM notes WHERE id = ?", (note_id,))
    expected_deletes = expected_deletes[:100]
    conn.execute("UPDATE alarms SET enabled = 0 WHERE id <= 100")  # side effects: no spec names alarms
    items = [
        {"table": "messages", "op": "create", "rows": expected_messages},
        {"table": "cart_items", "op": "create", "rows": expected_cart},
        {"table": "tasks", "op": "update", "rows": expected_updates, "compare": ["status", "priority", "labels", "title"]},
        {"table": "notes", "op": "delete", "rows": expected_deletes},
    ]
    return conn, before, parse_change_specs(items, "scoring_bench"), KINDS


def single_table_case(seed: int = 1, n: int = 1000) -> tuple[sqlite3.Connection, dict, list, dict]:
    """``n`` expected and ``n`` actual message creates in one table; one in ten reworded, order shuffled."""
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    _schema(conn)
    before = snapshot(conn)
    rows = [{"recipient_id": rng.randint(1, 50), "body": _message(rng), "sent_at": "2026-03-05T12:00:00"} for _ in range(n)]
    sent = list(rows)
    rng.shuffle(sent)
    conn.executemany("INSERT INTO messages (recipient_id, body, sent_at) VALUES (?, ?, ?)",
                     [(r["recipient_id"], _reword(rng, r["body"]) if rng.random() < 0.1 else r["body"], r["sent_at"]) for r in sent])
    specs = parse_change_specs([{"table": "messages", "op": "create", "rows": rows}], "scoring_bench")
    return conn, before, specs, KINDS


def _timed(fn: Callable[[], Any], repeat: int, warmup: int = 2) -> tuple[list[float], float]:
    """Wall-clock samples from the harness's ``measure``, plus the median CPU time of the same calls
    (on a shared machine the CPU time shows what the wall clock loses to other processes)."""
    cpu: list[float] = []

    def call() -> None:
        start = time.process_time()
        fn()
        cpu.append((time.process_time() - start) * 1000.0)

    samples = measure(call, repeat=repeat, warmup=warmup)
    return samples, float(np.median(cpu[warmup:]))


def workloads() -> list[dict[str, Any]]:
    """Rows for ``mmenvs bench``."""
    rows = []
    conn, before, specs, kinds = mixed_case()
    after = snapshot(conn)
    check = score_entity_diff(before, after, specs, kinds)
    assert check.n_actual == 1000, check.n_actual
    samples, cpu = _timed(lambda: score_entity_diff(before, after, specs, kinds), repeat=30)
    rows.append(timing_row("toolsandbox: entity diff + F1, 1,000 changed rows", samples, target_ms=50.0,
                           note=f"diff of 3,400 -> ~3,800 rows, 900 expected rows in 4 specs, 100 side effects; "
                                f"F1 {check.f1:.3f}; CPU median {cpu:.1f} ms"))
    samples, cpu = _timed(lambda: snapshot(conn), repeat=30)
    rows.append(timing_row("toolsandbox: snapshot, ~3,800 rows in 5 tables", samples,
                           note=f"the after-snapshot the diff above needs; CPU median {cpu:.1f} ms"))

    conn, before, specs, kinds = single_table_case()
    after = snapshot(conn)
    check = score_entity_diff(before, after, specs, kinds)
    samples, cpu = _timed(lambda: score_entity_diff(before, after, specs, kinds), repeat=10, warmup=1)
    rows.append(timing_row("toolsandbox: entity diff + F1, 1,000 creates in one table (worst case)", samples,
                           note=f"1,000 x 1,000 assignment with a shared-vocabulary text column; F1 {check.f1:.3f}; "
                                f"CPU median {cpu:.1f} ms"))
    return rows
