"""The generator's working state: records to act on, the world the scenario starts from, and the
expected change, kept as a small model of the tables an app group touches.

A flow turns what the images show into ``Record``s; an app group (``sinks.py``) turns records into
rows and tool calls. ``World`` tracks the initial rows and every create/update/delete the reference
solution performs, so the expected changes are derived from the facts and the plan — independently
of the runtime — and the runtime then has to agree (the reference solution must score F1 = 1.0).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

Step = dict[str, Any]


@dataclass(frozen=True)
class Record:
    """One thing to record in an app: what the reference solution creates (or updates an entity to)."""

    label: str
    text: str
    amount: float | None = None
    date: str | None = None
    time: str | None = None
    end_time: str | None = None
    place: str | None = None
    image: str | None = None
    person: dict[str, Any] | None = None
    quantity: int = 1
    kind: str = ""

    def with_(self, **changes: Any) -> "Record":
        return replace(self, **changes)


@dataclass
class TableModel:
    initial: dict[int, dict[str, Any]] = field(default_factory=dict)
    current: dict[int, dict[str, Any] | None] = field(default_factory=dict)
    compare: dict[int, list[str]] = field(default_factory=dict)
    next_id: int = 1


class World:
    """Initial entities plus the modelled effect of the reference solution on them."""

    def __init__(self) -> None:
        self.entities: dict[str, list[dict[str, Any]]] = {}
        self.tables: dict[str, TableModel] = {}

    # ------------------------------------------------------------------ initial state
    def add(self, table: str, row: dict[str, Any]) -> int:
        """Add an initial row; returns its id (rows get ids 1, 2, … in insertion order)."""
        rows = self.entities.setdefault(table, [])
        rows.append(dict(row))
        model = self.tables.setdefault(table, TableModel())
        rid = len(rows)
        model.initial[rid] = dict(row)
        model.current[rid] = dict(row)
        model.next_id = rid + 1
        return rid

    def rows(self, table: str) -> list[dict[str, Any]]:
        return self.entities.get(table, [])

    # ------------------------------------------------------------------ modelled changes
    def create(self, table: str, row: dict[str, Any]) -> int:
        model = self.tables.setdefault(table, TableModel())
        rid = model.next_id
        model.next_id += 1
        model.current[rid] = dict(row)
        return rid

    def update(self, table: str, rid: int, values: dict[str, Any]) -> None:
        model = self.tables[table]
        if model.current.get(rid) is None:
            raise KeyError(f"{table} row {rid} does not exist in the model")
        model.current[rid] = {**model.current[rid], **values}
        model.compare.setdefault(rid, [])
        model.compare[rid] = sorted(set(model.compare[rid]) | set(values))

    def delete(self, table: str, rid: int) -> None:
        model = self.tables[table]
        if model.current.get(rid) is None:
            raise KeyError(f"{table} row {rid} does not exist in the model")
        model.current[rid] = None

    def get(self, table: str, rid: int) -> dict[str, Any] | None:
        return self.tables[table].current.get(rid)

    def expected_changes(self, columns: dict[str, list[str]]) -> list[dict[str, Any]]:
        """The expected changes (scoring format) of everything modelled: new rows, changed and deleted
        initial rows. ``columns[table]`` names the columns compared on created rows."""
        out: list[dict[str, Any]] = []
        for table in sorted(self.tables):
            model = self.tables[table]
            created = [row for rid, row in model.current.items() if rid not in model.initial and row is not None]
            if created:
                cols = columns[table]
                out.append({"table": table, "op": "create", "rows": [{c: row.get(c) for c in cols} for row in created]})
            updated = []
            for rid, before in model.initial.items():
                after = model.current.get(rid)
                if after is None:
                    continue
                changed = {c: after[c] for c in model.compare.get(rid, []) if after.get(c) != before.get(c)}
                if changed:
                    updated.append({"id": rid, **changed})
            if updated:
                out.append({"table": table, "op": "update", "rows": updated})
            deleted = [{"id": rid} for rid in model.initial if model.current.get(rid) is None]
            if deleted:
                out.append({"table": table, "op": "delete", "rows": deleted})
        return out

    def copy(self) -> "World":
        return copy.deepcopy(self)


@dataclass
class Context:
    """Everything a flow and an app group share while one scenario is built."""

    rng: np.random.Generator
    ref_date: str
    difficulty: float
    world: World
    recipient: dict[str, Any] | None = None
    names: set[str] = field(default_factory=set)
    title: str = ""
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def distractors(self) -> int:
        """How many distractor rows an app group adds (more at higher difficulty)."""
        return 2 + int(round(4 * self.difficulty))
