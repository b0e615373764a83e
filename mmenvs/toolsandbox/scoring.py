"""Entity-diff scoring for MMToolSandbox: how far the world state moved toward the expected change.

The world is one SQLite database per episode with a table per entity kind, each keyed by an
integer ``id`` column. Scoring takes a snapshot of the database before the agent acts and one
after, diffs them row by row, and compares the changed rows with the scenario's expected changes
(paper §3.4 and App. A.2; DESIGN.md "MMToolSandbox / Scoring").

API (used by the env)::

    specs = parse_change_specs(scenario["expected_changes"], source="registry/.../x.json")
    before = snapshot(conn)                  # at reset
    ...                                      # the agent acts
    result = score_entity_diff(before, snapshot(conn), specs, column_kinds)
    info["entity_diff"] = result.to_info()   # result.f1, .precision, .recall, .side_effects, ...

- ``snapshot(conn, tables=None) -> Snapshot``: ``{table: {id: row dict}}`` of all user tables
  (or the named ones). Tables without an ``id`` column are keyed by SQLite's ``rowid``.
- ``diff_snapshots(before, after, ignore_columns=None) -> {table: TableDiff}``: created, updated
  ``(before_row, after_row)`` and deleted rows of each table (read by both snapshots) that changed.
  A row whose only differences lie in ``ignore_columns[table]`` is not updated.
- ``score_entity_diff(before, after, specs, column_kinds) -> EntityScore``.
- ``column_kinds`` is ``{table: {column: kind}}`` from the world schema, each kind one of
  ``ColumnKind``: ``id``, ``enum``, ``number``, ``bool``, ``list``, ``text``, ``datetime``,
  ``json``, ``bookkeeping``. A column missing from it gets a kind from the expected values
  (bool -> bool, int/float -> number, list -> list, dict -> json, anything else -> text).

The ``expected_changes`` format (a list; each item one change on one table)::

    [
      # create: the rows that must appear; only the given columns are compared
      {"table": "messages", "op": "create",
       "rows": [{"recipient_id": 3, "body": "Dinner at 7 at Luigi's", "sent_at": "2026-03-05T18:00:00"}],
       "ignore": ["thread_id"]},
      # update by id: "id" finds the row in the initial state, the other columns are its new values;
      # a column named in "compare" but absent from the row must keep its initial value
      {"table": "tasks", "op": "update", "rows": [{"id": 12, "status": "done"}], "compare": ["status", "title"]},
      # update by filter: every initial row whose columns equal "match" must get the values in "set"
      {"table": "cart_items", "op": "update", "match": {"product_id": 41}, "set": {"quantity": 3}},
      # delete by id, or by filter
      {"table": "notes", "op": "delete", "rows": [{"id": 7}]},
      {"table": "alarms", "op": "delete", "match": {"label": "Gym"}}
    ]

Field rules: ``table`` a non-empty string; ``op`` one of create/update/delete; ``rows`` a non-empty
list of objects (create: the expected new rows; update: each with an integer ``id``; delete: each
with an ``id`` or with the columns that identify the deleted row); ``match`` a non-empty object
(update/delete only, instead of ``rows``); ``set`` a non-empty object (update with ``match`` only);
``compare`` the columns to compare (default: the columns given, without ``id`` for updates; for a
delete by ``match``: ``id`` plus the match columns); ``ignore`` columns never compared.
Bookkeeping columns (timestamps a tool sets by itself) are never compared, and ``ignore`` columns
of any spec on a table, like bookkeeping columns, do not make a row count as updated.

Scoring (DESIGN.md): the changed rows of a table and op are the candidates of the specs naming
that table and op: created rows (new ids), updated rows (id in both, some compared column
changed) or deleted rows (gone). An update or delete row with an ``id`` is paired with the row of
that id, as the paper's code does; other expected rows are matched to the remaining candidates by
the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``, maximising the summed pair
score). A pair scores the mean similarity over its compared columns:

- ``id``, ``enum``, ``bool``, ``json``: equality (bools accept 0/1/"true"/"false"; JSON text is decoded);
- ``number``: equal within 1e-6 relative (``"12.50"`` equals ``12.5``; "$" and "," are dropped);
- ``list``: equal as sorted multisets (JSON-encoded text is decoded);
- ``text``: ROUGE-L F-measure on lower-cased word tokens (``mmenvs.toolsandbox.rouge``);
- ``datetime``: equality after ISO-8601 parsing; when either side is a bare date, the dates are
  compared; aware times are converted to UTC and made naive.

``precision = Σ pair scores / changed rows`` (all tables, so side effects and unmatched changes
count), ``recall = Σ pair scores / expected rows``, ``F1 = 2PR / (P + R)`` (0 when both are 0).
An empty denominator makes its ratio 1, so no expected and no actual change scores F1 = 1.0, and
any change when none is expected scores 0. Changes in tables no spec names are side effects: they
count as unexpected rows (the published code missed them) and are listed in ``side_effects``.

Text similarity for large blocks is computed lazily: the Hungarian solve runs on exact values
where they are cheap and on upper bounds elsewhere, the pairs it picks are computed exactly, and it
repeats until the chosen assignment's exact total equals the bound, which proves it optimal.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence, get_args

import numpy as np
from scipy.optimize import linear_sum_assignment

from .rouge import RougeLPairs, rouge_l, tokenize

__all__ = [
    "COLUMN_KINDS", "ChangeSpec", "ColumnKind", "EntityScore", "Snapshot", "TableDiff", "column_similarity",
    "diff_snapshots", "parse_change_specs", "score_entity_diff", "snapshot",
]

ColumnKind = Literal["id", "enum", "number", "bool", "list", "text", "datetime", "json", "bookkeeping"]
COLUMN_KINDS: frozenset[str] = frozenset(get_args(ColumnKind))
Op = Literal["create", "update", "delete"]
OPS: tuple[str, ...] = get_args(Op)

Row = dict[str, Any]
Snapshot = dict[str, dict[Any, Row]]

NUMBER_REL_TOL = 1e-6
_REFINE_ROUNDS = 6  # lazy text refinement rounds before every remaining pair is computed exactly
_SPEC_FIELDS = ("table", "op", "rows", "match", "set", "compare", "ignore")


# --------------------------------------------------------------------------- specs


@dataclass
class ChangeSpec:
    """One expected change, parsed from a scenario's ``expected_changes`` item."""

    table: str
    op: Op
    rows: list[dict] = field(default_factory=list)
    match: dict | None = None
    compare: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    set_values: dict | None = None  # the item's "set": new values for every row selected by ``match``
    origin: str = ""  # "<source>: expected_changes[i]", for error messages


def parse_change_specs(items: list, source: str) -> list[ChangeSpec]:
    """Parse and validate a scenario's ``expected_changes`` list.

    Raises ``ValueError`` naming ``source``, the item index, the field and what was expected.
    """
    if not isinstance(items, list):
        raise ValueError(f"{source}: expected_changes: expected a list of change objects, got {_brief(items)}")
    return [_parse_item(item, f"{source}: expected_changes[{i}]") for i, item in enumerate(items)]


def _parse_item(item: Any, where: str) -> ChangeSpec:
    if not isinstance(item, dict):
        raise ValueError(f"{where}: expected an object with table/op/rows, got {_brief(item)}")
    unknown = sorted(set(item) - set(_SPEC_FIELDS))
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown field; expected one of {', '.join(_SPEC_FIELDS)}")
    table = item.get("table")
    if not isinstance(table, str) or not table.strip():
        raise ValueError(f"{where}.table: expected a non-empty table name, got {_brief(table)}")
    op = item.get("op")
    if op not in OPS:
        raise ValueError(f"{where}.op: expected one of create, update, delete, got {_brief(op)}")

    rows, match, set_values = item.get("rows"), item.get("match"), item.get("set")
    if rows is not None and match is not None:
        raise ValueError(f"{where}.match: give either rows or match, not both")
    if rows is None and match is None:
        need = "rows" if op == "create" else "rows or match"
        raise ValueError(f"{where}.rows: expected {need} for a {op} change, got neither")
    if op == "create" and match is not None:
        raise ValueError(f"{where}.match: a create change lists the new rows in rows; match is for update/delete")
    if set_values is not None and not (op == "update" and match is not None):
        raise ValueError(f"{where}.set: only an update with match takes set (an update by rows puts new values in each row)")
    if op == "update" and match is not None and (not isinstance(set_values, dict) or not set_values):
        raise ValueError(f"{where}.set: expected a non-empty object of new column values for an update by match, got {_brief(set_values)}")

    compare = _column_list(item.get("compare"), f"{where}.compare", allow_none=True)
    ignore = _column_list(item.get("ignore"), f"{where}.ignore", allow_none=True) or []
    both = sorted(set(compare or ()) & set(ignore))
    if both:
        raise ValueError(f"{where}.compare: column {both[0]!r} is also in ignore; a column is compared or ignored, not both")

    parsed_rows: list[dict] = []
    if rows is not None:
        if not isinstance(rows, list) or not rows:
            raise ValueError(f"{where}.rows: expected a non-empty list of row objects, got {_brief(rows)}")
        for k, row in enumerate(rows):
            at = f"{where}.rows[{k}]"
            if not isinstance(row, dict):
                raise ValueError(f"{at}: expected an object of column values, got {_brief(row)}")
            for column, value in row.items():
                _check_value(value, f"{at}.{column}")
            has_id = "id" in row
            if has_id and (not isinstance(row["id"], int) or isinstance(row["id"], bool)):
                raise ValueError(f"{at}.id: expected an integer row id, got {_brief(row['id'])}")
            if op == "update" and not has_id:
                raise ValueError(f"{at}.id: an update row needs the integer id of the row to change (or use match/set)")
            if op == "delete" and not row:
                raise ValueError(f"{at}: expected the id or the columns of the deleted row, got an empty object")
            if compare is not None and not (op in ("update", "delete") and has_id):
                missing = [c for c in compare if c not in row]
                if missing:
                    raise ValueError(f"{at}.{missing[0]}: column is in compare but has no expected value in this row")
            parsed_rows.append(dict(row))
    for name, mapping in (("match", match), ("set", set_values)):
        if mapping is None:
            continue
        if not isinstance(mapping, dict) or not mapping:
            raise ValueError(f"{where}.{name}: expected a non-empty object of column values, got {_brief(mapping)}")
        for column, value in mapping.items():
            _check_value(value, f"{where}.{name}.{column}")
    return ChangeSpec(table=table, op=op, rows=parsed_rows, match=dict(match) if match is not None else None,
                      compare=compare, ignore=list(ignore),
                      set_values=dict(set_values) if set_values is not None else None, origin=where)


def _column_list(value: Any, where: str, *, allow_none: bool) -> list[str] | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) and c for c in value):
        raise ValueError(f"{where}: expected a list of column names, got {_brief(value)}")
    return list(value)


def _check_value(value: Any, where: str) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: expected a JSON value (string, number, bool, null, list, object), got {_brief(value)}") from None


def _brief(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


# --------------------------------------------------------------------------- snapshots and diffs


def snapshot(conn: sqlite3.Connection, tables: Iterable[str] | None = None) -> Snapshot:
    """Copy of the rows of ``tables`` (default: every user table) as ``{table: {id: {column: value}}}``."""
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples whatever the connection uses
    if tables is None:
        names = [r[0] for r in cur.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")]
    else:
        names = list(tables)
    snap: Snapshot = {}
    for name in names:
        quoted = '"' + name.replace('"', '""') + '"'
        try:
            cur.execute(f"SELECT * FROM {quoted}")
        except sqlite3.OperationalError as exc:
            raise ValueError(f"snapshot: cannot read table {name!r}: {exc}") from None
        columns = [d[0] for d in cur.description]
        if "id" in columns:
            key = columns.index("id")
            snap[name] = {row[key]: dict(zip(columns, row)) for row in cur.fetchall()}
        else:  # link tables without an id column: SQLite's rowid keys them
            try:
                rows = cur.execute(f"SELECT rowid, * FROM {quoted}").fetchall()
            except sqlite3.OperationalError:
                raise ValueError(f"snapshot: table {name!r} has neither an id column nor a rowid") from None
            snap[name] = {row[0]: dict(zip(columns, row[1:])) for row in rows}
    return snap


@dataclass
class TableDiff:
    """The changes of one table: rows created (by id), updated (id -> (before, after)) and deleted (by id)."""

    created: dict[Any, Row] = field(default_factory=dict)
    updated: dict[Any, tuple[Row, Row]] = field(default_factory=dict)
    deleted: dict[Any, Row] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.created) + len(self.updated) + len(self.deleted)

    def ids(self, op: str) -> list:
        """Ids of the rows changed by ``op``, sorted."""
        return _sorted_ids(getattr(self, op + "d"))

    def changes(self) -> list[tuple[str, Any]]:
        """Every change as ``(op, row id)``, in op then id order."""
        return [(op, rid) for op in OPS for rid in self.ids(op)]


def diff_snapshots(before: Snapshot, after: Snapshot,
                   ignore_columns: Mapping[str, Iterable[str]] | None = None) -> dict[str, TableDiff]:
    """Row-level diff of two snapshots, keyed by table; tables without changes are left out.

    A row present in both whose only differences are in ``ignore_columns[table]`` is unchanged.
    Only tables in both snapshots are compared (a table one snapshot did not read is not a change).
    """
    diffs: dict[str, TableDiff] = {}
    for table in sorted(before.keys() & after.keys()):
        old, new = before[table], after[table]
        if old is new:
            continue
        ignored = set((ignore_columns or {}).get(table, ()))
        d = TableDiff(
            created={rid: new[rid] for rid in _sorted_ids(new.keys() - old.keys())},
            deleted={rid: old[rid] for rid in _sorted_ids(old.keys() - new.keys())},
        )
        changed = [rid for rid, b in old.items() if b != new.get(rid, b)]
        for rid in changed:
            b, a = old[rid], new[rid]
            if ignored and all(b.get(c) == a.get(c) for c in (b.keys() | a.keys()) - ignored):
                continue
            d.updated[rid] = (b, a)
        if len(d):
            diffs[table] = d
    return diffs


# --------------------------------------------------------------------------- column similarity


def column_similarity(kind: str, expected: Any, actual: Any) -> float:
    """Similarity in [0, 1] of one expected and one actual value of a column of ``kind``."""
    return float(_Column(kind, [expected], [actual]).paired()[0])


class _Column:
    """The values of one column on the expected side and the actual side, encoded for comparison."""

    def __init__(self, kind: str, expected: Sequence[Any], actual: Sequence[Any]) -> None:
        if kind not in COLUMN_KINDS or kind == "bookkeeping":
            raise ValueError(f"column kind {kind!r} cannot be compared; expected one of "
                             f"{', '.join(sorted(COLUMN_KINDS - {'bookkeeping'}))}")
        self.kind = kind
        self.n_e, self.n_a = len(expected), len(actual)
        self.text: RougeLPairs | None = None
        values = list(expected) + list(actual)
        if kind == "text":
            self.values = values  # tokenized on demand: paired rows are often simply equal
        elif kind == "number":
            parsed = _encoded(values, _number_parts)
            codes: dict[Any, int] = {}
            self.floats = np.array([f for f, _ in parsed], dtype=np.float64)
            # -1: a number; otherwise the code of the raw value that did not parse
            self.raw = np.array([-1 if raw is None else codes.setdefault(raw, len(codes)) for _, raw in parsed], dtype=np.int64)
        elif kind == "datetime":
            parsed = _encoded(values, _datetime_keys)
            codes = {}
            self.full = np.array([codes.setdefault(k, len(codes)) for k, _, _ in parsed], dtype=np.int64)
            self.day = np.array([codes.setdefault(k, len(codes)) for _, k, _ in parsed], dtype=np.int64)
            self.date_only = np.array([only for _, _, only in parsed], dtype=bool)
        else:
            codes = {}
            self.codes = np.array([codes.setdefault(k, len(codes)) for k in _encoded(values, _EXACT_KEYS[kind])], dtype=np.int64)

    def _split(self, arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return arr[: self.n_e], arr[self.n_e:]

    def paired(self) -> np.ndarray:
        """Similarity of expected[k] and actual[k] for each k (both sides the same length)."""
        if self.kind == "text":
            es, as_ = self.values[: self.n_e], self.values[self.n_e:]
            return np.array([1.0 if e == a else rouge_l(tokenize(e), tokenize(a)) for e, a in zip(es, as_)], dtype=np.float64)
        return self._compare(lambda x: x, lambda y: y)

    def outer(self) -> np.ndarray:
        """Similarity of every (expected, actual) pair; text columns give exact-or-upper-bound values
        (see ``RougeLPairs``)."""
        if self.kind == "text":
            if self.text is None:
                tokens = _encoded(self.values, tokenize)
                self.text = RougeLPairs(tokens[: self.n_e], tokens[self.n_e:])
            return self.text.upper()
        return self._compare(lambda x: x[:, None], lambda y: y[None, :])

    def _compare(self, e_: Callable, a_: Callable) -> np.ndarray:
        if self.kind == "number":
            fe, fa = self._split(self.floats)
            re_, ra = self._split(self.raw)
            x, y = e_(fe), a_(fa)
            with np.errstate(invalid="ignore"):
                close = np.abs(x - y) <= NUMBER_REL_TOL * np.maximum(np.abs(x), np.abs(y))
            raw_equal = (e_(re_) == a_(ra)) & (e_(re_) >= 0)
            return (close | raw_equal).astype(np.float64)
        if self.kind == "datetime":
            fe, fa = self._split(self.full)
            de, da = self._split(self.day)
            oe, oa = self._split(self.date_only)
            return np.where(e_(oe) | a_(oa), e_(de) == a_(da), e_(fe) == a_(fa)).astype(np.float64)
        ce, ca = self._split(self.codes)
        return (e_(ce) == a_(ca)).astype(np.float64)


def _to_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().replace(",", "").lstrip("$€£¥").strip()
        try:
            f = float(text)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def _number_parts(value: Any) -> tuple[float, Any]:
    f = _to_float(value)
    return (math.nan, ("raw", _json_key(value))) if f is None else (f, None)


_HASHABLE_SCALARS = frozenset({str, bytes, type(None), int, float, bool})
_NUMERIC = frozenset({int, float, bool})


def _encoded(values: Sequence[Any], encode: Callable[[Any], Any]) -> list:
    """``[encode(v) for v in values]``, encoding each distinct value once (columns repeat values a lot)."""
    types = set(map(type, values))
    if types <= _HASHABLE_SCALARS and len(types & _NUMERIC) <= 1:
        # no two values of different types can be equal dict keys (1, 1.0 and True are), so dedupe in C
        table = {v: encode(v) for v in dict.fromkeys(values)}
        return list(map(table.__getitem__, values))
    cache: dict[Any, Any] = {}
    out = []
    for v in values:
        try:
            key = (v.__class__, v)  # the type too: 1, 1.0 and True are equal dict keys
            hit = cache.get(key, cache)
        except TypeError:  # unhashable (a list or dict from a spec)
            out.append(encode(v))
            continue
        if hit is cache:
            hit = cache[key] = encode(v)
        out.append(hit)
    return out


def _normalise_json(value: Any) -> Any:
    """JSON value with integral floats made ints, so 1.0 and 1 compare equal."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_normalise_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _normalise_json(v) for k, v in value.items()}
    return value


def _json_key(value: Any) -> Any:
    if value is None or type(value) is str or type(value) is int:
        return value
    if isinstance(value, bytes):
        return ("bytes", value)
    return ("json", json.dumps(_normalise_json(value), sort_keys=True, default=str))


def _decoded(value: Any) -> Any:
    if isinstance(value, (str, bytes)):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _id_key(value: Any) -> Any:
    if type(value) is int:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit():
            return int(text)
    return _json_key(value)


def _enum_key(value: Any) -> Any:
    return _json_key(value)


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _bool_key(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return ("raw", _json_key(value))


def _structure_key(value: Any) -> Any:
    return ("json", json.dumps(_normalise_json(_decoded(value)), sort_keys=True, default=str))


def _list_key(value: Any) -> Any:
    items = _decoded(value)
    if not isinstance(items, list):
        return ("raw", _json_key(value))
    return ("list", tuple(sorted(_element_key(v) for v in items)))  # a sorted tuple is the multiset


def _element_key(value: Any) -> tuple:
    # tagged so that elements of different types sort without comparing them
    if type(value) is str:
        return (0, value)
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, (int, float)):
        return (1, int(value) if isinstance(value, float) and value.is_integer() else value)
    return (3, json.dumps(_normalise_json(value), sort_keys=True, default=str))


_EXACT_KEYS: dict[str, Callable[[Any], Any]] = {
    "id": _id_key, "enum": _enum_key, "bool": _bool_key, "json": _structure_key, "list": _list_key,
}


def _datetime_keys(value: Any) -> tuple[Any, Any, bool]:
    """(key of the full value, key of its date, whether it is a bare date)."""
    parsed: date | datetime | None = None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = value
    elif isinstance(value, str):
        text = value.strip()
        try:
            parsed = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            parsed = None
    if parsed is None:
        raw = ("raw", _json_key(value))
        return raw, raw, False
    if isinstance(parsed, datetime):
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
        return ("dt", parsed.isoformat()), ("d", parsed.date().isoformat()), False
    day = ("d", parsed.isoformat())
    return day, day, True


def _infer_kind(values: Iterable[Any]) -> str:
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, (int, float)):
            return "number"
        if isinstance(v, list):
            return "list"
        if isinstance(v, dict):
            return "json"
        return "text"
    return "enum"


# --------------------------------------------------------------------------- scoring


@dataclass
class _Expected:
    spec: int  # index into the spec list
    values: dict[str, Any]  # compared column -> expected value
    columns: tuple[str, ...]
    locate: Any = None  # row id for update/delete rows found by id
    pair: _Pair | None = None  # filled in by the matching


@dataclass
class _Pair:
    score: float = 0.0
    actual_id: Any = None
    columns: dict[str, float] = field(default_factory=dict)


@dataclass
class EntityScore:
    """Result of :func:`score_entity_diff`."""

    f1: float
    precision: float
    recall: float
    matched: float  # sum of the pair scores
    n_expected: int
    n_actual: int
    per_spec: list[dict] = field(default_factory=list)
    side_effects: list[dict] = field(default_factory=list)  # changes in tables no spec names
    unmatched: list[dict] = field(default_factory=list)  # changes in named tables that matched no expected row

    def to_info(self) -> dict[str, Any]:
        """JSON-able summary for ``info["entity_diff"]``."""
        return {
            "f1": self.f1, "precision": self.precision, "recall": self.recall, "matched": self.matched,
            "n_expected": self.n_expected, "n_actual": self.n_actual,
            "per_spec": _jsonable(self.per_spec), "side_effects": _jsonable(self.side_effects),
            "unmatched": _jsonable(self.unmatched),
        }


def score_entity_diff(before: Snapshot, after: Snapshot, specs: list[ChangeSpec],
                      column_kinds: Mapping[str, Mapping[str, str]]) -> EntityScore:
    """Score the change from ``before`` to ``after`` against ``specs`` (see the module docstring).

    Raises ``ValueError`` when a spec does not fit the initial state: an unknown table or column,
    an update/delete id that is not in ``before``, a ``match`` that selects no row.
    """
    kinds_of = {t: dict(k) for t, k in column_kinds.items()}
    for table, kinds in kinds_of.items():
        for column, kind in kinds.items():
            if kind not in COLUMN_KINDS:
                raise ValueError(f"column_kinds[{table!r}][{column!r}]: expected one of "
                                 f"{', '.join(sorted(COLUMN_KINDS))}, got {kind!r}")
    ignored: dict[str, set[str]] = {t: {c for c, k in kinds.items() if k == "bookkeeping"} for t, kinds in kinds_of.items()}
    for spec in specs:
        ignored.setdefault(spec.table, set()).update(spec.ignore)
    diffs = diff_snapshots(before, after, ignored)

    expected_of = [_expand(i, spec, before, kinds_of) for i, spec in enumerate(specs)]
    groups: dict[tuple[str, str], list[_Expected]] = {}
    for spec, rows in zip(specs, expected_of):
        groups.setdefault((spec.table, spec.op), []).extend(rows)
    for (table, op), members in groups.items():
        first: dict[Any, _Expected] = {}
        for e in members:
            if e.locate is not None and first.setdefault(e.locate, e) is not e:
                raise ValueError(f"{specs[e.spec].origin}: row {e.locate!r} of table {table!r} is named by two expected "
                                 f"{op} rows (also in {specs[first[e.locate].spec].origin}); merge them into one")

    claimed: set[tuple[str, str, Any]] = set()
    candidates_of: dict[tuple[str, str], int] = {}
    for (table, op), members in groups.items():
        d = diffs.get(table, TableDiff())
        kinds = _group_kinds(table, members, kinds_of)
        pairs, used = _score_group(op, members, d, kinds)
        candidates_of[(table, op)] = len(getattr(d, op + "d"))
        for e, p in zip(members, pairs):
            e.pair = p
        claimed.update((table, op, rid) for rid in used)

    spec_tables = {s.table for s in specs}
    side_effects, unmatched = [], []
    n_actual = 0
    for table, d in diffs.items():
        for op, rid in d.changes():
            n_actual += 1
            if table not in spec_tables:
                side_effects.append({"table": table, "op": op, "id": rid})
            elif (table, op, rid) not in claimed:
                unmatched.append({"table": table, "op": op, "id": rid})

    matched = float(sum(e.pair.score for rows in expected_of for e in rows))
    n_expected = sum(len(rows) for rows in expected_of)
    precision = matched / n_actual if n_actual else 1.0
    recall = matched / n_expected if n_expected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0

    per_spec = []
    for i, (spec, rows) in enumerate(zip(specs, expected_of)):
        entries = []
        for e in rows:
            p = e.pair
            actual_row = _actual_row(diffs.get(spec.table), spec.op, p.actual_id)
            entries.append({
                "expected": e.values, "actual_id": p.actual_id,
                "actual": {c: actual_row.get(c) for c in e.columns} if actual_row is not None else None,
                "score": p.score, "columns": p.columns,
            })
        per_spec.append({
            "index": i, "table": spec.table, "op": spec.op, "origin": spec.origin,
            "expected": len(rows), "actual": candidates_of.get((spec.table, spec.op), 0),
            "score": float(sum(x["score"] for x in entries)), "pairs": entries,
        })
    return EntityScore(f1=f1, precision=precision, recall=recall, matched=matched, n_expected=n_expected,
                       n_actual=n_actual, per_spec=per_spec, side_effects=side_effects, unmatched=unmatched)


def _actual_row(d: TableDiff | None, op: str, rid: Any) -> Row | None:
    if d is None or rid is None:
        return None
    if op == "create":
        return d.created.get(rid)
    if op == "update":
        return d.updated[rid][1] if rid in d.updated else None
    return d.deleted.get(rid)


def _expand(index: int, spec: ChangeSpec, before: Snapshot, kinds_of: dict[str, dict[str, str]]) -> list[_Expected]:
    """The expected rows of one spec, with update/delete rows resolved against the initial state."""
    where = spec.origin or f"expected_changes[{index}]"
    if spec.table not in before and spec.table not in kinds_of:
        raise ValueError(f"{where}.table: no table {spec.table!r} in the world; tables: {', '.join(sorted(before))}")
    initial = before.get(spec.table, {})
    kinds = kinds_of.get(spec.table)
    known_columns = set(kinds) if kinds else (set(next(iter(initial.values()))) if initial else None)
    skip = set(spec.ignore) | {c for c, k in (kinds or {}).items() if k == "bookkeeping"}

    checked: dict[tuple, tuple[str, ...]] = {}  # rows of a spec mostly share their columns

    def columns_for(given: Iterable[str], *, drop_id: bool) -> tuple[str, ...]:
        cols = tuple(spec.compare) if spec.compare is not None else tuple(c for c in given if not (drop_id and c == "id"))
        hit = checked.get(cols)
        if hit is not None:
            return hit
        if known_columns is not None:
            for c in cols:
                if c not in known_columns:
                    raise ValueError(f"{where}: column {c!r} is not a column of table {spec.table!r}; "
                                     f"columns: {', '.join(sorted(known_columns))}")
        hit = checked[cols] = tuple(c for c in cols if c not in skip)
        return hit

    def initial_row(rid: Any, at: str) -> Row:
        if rid not in initial:
            raise ValueError(f"{at}.id: row {rid!r} is not in table {spec.table!r} of the initial state")
        return initial[rid]

    out: list[_Expected] = []
    if spec.match is not None:
        for c in spec.match:
            if known_columns is not None and c not in known_columns:
                raise ValueError(f"{where}.match: column {c!r} is not a column of table {spec.table!r}")
        hits = _sorted_ids(rid for rid, row in initial.items()
                           if all(_loosely_equal(row.get(c), v) for c, v in spec.match.items()))
        if not hits:
            raise ValueError(f"{where}.match: no row of table {spec.table!r} in the initial state has {spec.match!r}")
        for rid in hits:
            row = initial[rid]
            if spec.op == "update":
                cols = columns_for(spec.set_values or {}, drop_id=True)
                values = {c: (spec.set_values or {}).get(c, row.get(c)) for c in cols}
            else:
                cols = columns_for(["id", *spec.match], drop_id=False)
                values = {c: row.get(c) for c in cols}
            out.append(_Expected(index, values, cols, rid))
        return out
    for k, row in enumerate(spec.rows):
        at = f"{where}.rows[{k}]"
        if spec.op == "create" or "id" not in row:
            cols = columns_for(row, drop_id=False)
            out.append(_Expected(index, {c: row[c] for c in cols}, cols))
            continue
        base = initial_row(row["id"], at)
        cols = columns_for(row, drop_id=spec.op == "update")
        # a compared column the row does not give must keep its initial value
        out.append(_Expected(index, {c: row[c] if c in row else base.get(c) for c in cols}, cols, row["id"]))
    return out


def _loosely_equal(a: Any, b: Any) -> bool:
    """Equality for ``match`` filters: numbers (and numeric text against numbers) within the number tolerance."""
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str):
        return False
    fa, fb = _to_float(a), _to_float(b)
    if fa is None or fb is None:
        return False
    return abs(fa - fb) <= NUMBER_REL_TOL * max(abs(fa), abs(fb))


def _group_kinds(table: str, members: list[_Expected], kinds_of: dict[str, dict[str, str]]) -> dict[str, str]:
    declared = kinds_of.get(table, {})
    columns = sorted({c for e in members for c in e.columns})
    return {c: declared.get(c) or _infer_kind(e.values.get(c) for e in members if c in e.values) for c in columns}


def _score_group(op: str, members: list[_Expected], d: TableDiff, kinds: dict[str, str]) -> tuple[list[_Pair], list]:
    """Pair the expected rows of one (table, op) with its changed rows; returns the pairs and the used ids."""
    pairs = [_Pair() for _ in members]
    used: list = []
    if op == "create":
        pool = d.created
    elif op == "update":
        pool = {rid: after for rid, (_, after) in d.updated.items()}
    else:
        pool = d.deleted

    # rows located by id (update/delete): paired with that row if it changed as the op says
    seen = {e.locate for e in members if e.locate is not None}
    direct: list[int] = []
    for k, e in enumerate(members):
        if e.locate is None:
            continue
        if e.locate not in pool:
            continue
        if op == "update":
            old, new = d.updated[e.locate]
            check = e.columns or tuple(set(old) | set(new))
            if all(old.get(c) == new.get(c) for c in check):
                continue  # changed, but in none of the compared columns
        direct.append(k)
    if direct:
        rows = [members[k] for k in direct]
        actual = [pool[members[k].locate] for k in direct]
        scores, per_column = _pair_scores(rows, actual, kinds)
        columns = {c: v.tolist() for c, v in per_column.items()}
        for n, (k, score) in enumerate(zip(direct, scores.tolist())):
            pairs[k] = _Pair(score, members[k].locate, {c: v[n] for c, v in columns.items() if v[n] == v[n]})  # NaN: not compared
        used += [members[k].locate for k in direct if pairs[k].score > 0]

    # the rest by maximum-weight assignment over the changed rows not yet taken
    free = [k for k, e in enumerate(members) if e.locate is None]
    if free:
        taken = set(used) | set(seen)
        cand = [rid for rid in _sorted_ids(pool) if rid not in taken]
        if cand:
            rows = [members[k] for k in free]
            assignment = _assign(rows, [pool[r] for r in cand], kinds)
            for i, j, score, cols in assignment:
                if score > 0:
                    pairs[free[i]] = _Pair(score, cand[j], cols)
                    used.append(cand[j])
    for p in pairs:
        if p.score <= 0:
            p.actual_id, p.columns, p.score = None, {}, 0.0
    return pairs, used


def _column_values(rows: list[_Expected], actual: list[Row], column: str) -> tuple[np.ndarray, list, list]:
    has = np.array([column in e.columns for e in rows], dtype=bool)
    return has, [e.values.get(column) for e in rows], [a.get(column) for a in actual]


def _pair_scores(rows: list[_Expected], actual: list[Row], kinds: dict[str, str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Scores of rows[k] against actual[k]; per-column values are NaN where a row does not compare the column."""
    n_cols = np.array([len(e.columns) for e in rows], dtype=np.float64)
    total = np.zeros(len(rows))
    per_column: dict[str, np.ndarray] = {}
    for column, kind in kinds.items():
        has, e_vals, a_vals = _column_values(rows, actual, column)
        if not has.any():
            continue
        sims = _Column(kind, e_vals, a_vals).paired()
        total += np.where(has, sims, 0.0)
        per_column[column] = np.where(has, sims, np.nan)
    scores = np.divide(total, n_cols, out=np.ones_like(total), where=n_cols > 0)  # no columns: any such change fits
    return scores, per_column


def _assign(rows: list[_Expected], actual: list[Row], kinds: dict[str, str]) -> list[tuple[int, int, float, dict[str, float]]]:
    """Hungarian matching of expected rows to actual rows; returns (row, actual, score, per-column) per pair."""
    n_cols = np.array([len(e.columns) for e in rows], dtype=np.float64)
    # a pair's score is (sum of its column similarities) / (columns compared): summing before dividing
    # keeps a perfect pair at exactly 1.0; a row that compares no column fits any changed row
    divisor = np.where(n_cols > 0, n_cols, 1.0)
    base = np.zeros((len(rows), len(actual)))
    base[n_cols == 0, :] = 1.0
    exact_sims: dict[str, np.ndarray] = {}
    text: dict[str, tuple[_Column, np.ndarray]] = {}
    for column, kind in kinds.items():
        has, e_vals, a_vals = _column_values(rows, actual, column)
        if not has.any():
            continue
        col = _Column(kind, e_vals, a_vals)
        sims = col.outer()
        if kind == "text":
            text[column] = (col, has)
        else:
            exact_sims[column] = sims
            base += has[:, None] * sims

    def scores_of(r: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Exact scores of the pairs (r[k], c[k]), computing their text similarities where still bounds."""
        total = base[r, c]
        for col, has in text.values():
            sel = has[r]
            col.text.refine(r[sel], c[sel])
            total = total + np.where(sel, col.text.value(r, c), 0.0)
        return total / divisor[r]

    # text pairs not computed yet hold an upper bound, so the matrix bounds every pair score from above
    total = base.copy()
    for col, has in text.values():
        total += has[:, None] * col.outer()
    matrix = total / divisor[:, None]
    if text:
        # settle each expected row's most promising pair first: usually the assignment's own
        r = np.arange(len(rows))
        c = matrix.argmax(axis=1)
        matrix[r, c] = scores_of(r, c)
    for _ in range(_REFINE_ROUNDS):
        r, c = linear_sum_assignment(matrix, maximize=True)
        if not text:
            break
        exact = scores_of(r, c)
        stale = exact < matrix[r, c]
        if not stale.any():
            # the chosen pairs are exact and no assignment beats the bound, so this one is optimal
            break
        matrix[r[stale], c[stale]] = exact[stale]
    else:
        total = base.copy()
        for col, has in text.values():
            total += has[:, None] * col.text.exact()
        matrix = total / divisor[:, None]
        r, c = linear_sum_assignment(matrix, maximize=True)

    chosen = {name: s[r, c].tolist() for name, s in exact_sims.items()}
    chosen.update({name: col.text.value(r, c).tolist() for name, (col, _) in text.items()})
    scores = scores_of(r, c).tolist()
    out = []
    for k, (i, j) in enumerate(zip(r.tolist(), c.tolist())):
        compared = rows[i].columns
        out.append((i, j, scores[k], {name: v[k] for name, v in chosen.items() if name in compared}))
    return out


def _sorted_ids(ids: Iterable[Any]) -> list:
    """Row ids in order: plain sorting for the usual integer ids, a type-tolerant order otherwise."""
    ids = list(ids)
    try:
        return sorted(ids)
    except TypeError:
        return sorted(ids, key=_sort_key)


def _sort_key(value: Any) -> tuple:
    return (0, value, "") if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 0, str(value))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    return str(value)
