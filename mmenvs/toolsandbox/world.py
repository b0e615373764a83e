"""The world state of one episode: an in-memory SQLite database, the reference time and the images.

A ``World`` is what every tool receives as its first argument: tools never reach globals or the
wall clock. Rows go in and out through ``insert`` / ``update`` / ``delete`` / ``get`` / ``rows``,
which convert between Python values and SQLite storage and enforce the column rules of
``schema.py`` (types, enums, ranges, references) plus the per-table rules apps register in
``VALIDATORS`` (e.g. an event must end after it starts).

Templates: ``build_template`` creates the schema, the singleton rows and a scenario's initial
entities once and serialises the database to bytes; ``World.from_template`` deserialises those
bytes into a fresh connection, which is how a reset takes well under a millisecond per 100 rows.
"""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, time
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping

from mmenvs.core import ImageNotFound, ImageStore

from .schema import TABLES, Column, Table, ddl, table


class ToolError(Exception):
    """A tool refused or failed (unknown id, broken domain rule, no network, …); the message is for the agent."""


_DATETIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")

#: Per-table rules checked after every insert/update (apps register theirs): fn(world, row) raises ToolError.
VALIDATORS: dict[str, list[Callable[["World", dict[str, Any]], None]]] = {}


def validator(table_name: str) -> Callable[[Callable[["World", dict[str, Any]], None]], Callable[["World", dict[str, Any]], None]]:
    """Register a rule for rows of ``table_name`` (decorator)."""

    def register(fn: Callable[["World", dict[str, Any]], None]) -> Callable[["World", dict[str, Any]], None]:
        VALIDATORS.setdefault(table_name, []).append(fn)
        return fn

    return register


def parse_datetime(value: Any, what: str = "datetime") -> datetime:
    """Parse ``YYYY-MM-DDTHH:MM[:SS]`` (a space instead of T is accepted) or raise ``ToolError``."""
    if isinstance(value, str):
        match = _DATETIME.match(value.strip())
        if match:
            try:
                return datetime(*(int(g or 0) for g in match.groups()))
            except ValueError:
                pass
    raise ToolError(f"{what} must be a date-time like '2025-03-14T09:30:00', got {value!r}")


def parse_date(value: Any, what: str = "date") -> date:
    """Parse ``YYYY-MM-DD`` (a full date-time is cut to its date) or raise ``ToolError``."""
    if isinstance(value, str):
        text = value.strip()
        if _DATETIME.match(text):
            return parse_datetime(text, what).date()
        match = _DATE.match(text)
        if match:
            try:
                return date(*(int(g) for g in match.groups()))
            except ValueError:
                pass
    raise ToolError(f"{what} must be a date like '2025-03-14', got {value!r}")


def parse_time(value: Any, what: str = "time") -> time:
    if isinstance(value, str):
        match = _TIME.match(value.strip())
        if match and int(match.group(1)) < 24 and int(match.group(2)) < 60:
            return time(int(match.group(1)), int(match.group(2)))
    raise ToolError(f"{what} must be a 24-hour time like '07:30', got {value!r}")


def encode_value(tbl: Table, col: Column, value: Any) -> Any:
    """Check ``value`` against ``col``'s rules and return what SQLite stores. ``None`` stays ``None``."""
    what = f"{tbl.entity}.{col.name}"
    if value is None:
        return None
    kind = col.type
    if kind in ("int", "ref"):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ToolError(f"{what} must be an integer, got {value!r}")
    elif kind == "real":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ToolError(f"{what} must be a number, got {value!r}")
        value = round(float(value), 2)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ToolError(f"{what} must be true or false, got {value!r}")
        return int(value)
    elif kind == "text":
        if not isinstance(value, str):
            raise ToolError(f"{what} must be a string, got {value!r}")
    elif kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            raise ToolError(f"{what} must be a list of strings or numbers, got {value!r}")
        if col.name == "repeat_days":
            bad = [v for v in value if v not in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
            if bad:
                raise ToolError(f"{what}: unknown weekdays {bad}; use mon, tue, wed, thu, fri, sat, sun")
        return json.dumps(value)
    elif kind == "json":
        try:
            return json.dumps(value, sort_keys=True)
        except (TypeError, ValueError):
            raise ToolError(f"{what} must be JSON data, got {value!r}") from None
    elif kind == "datetime":
        return parse_datetime(value, what).isoformat(timespec="seconds")
    elif kind == "date":
        return parse_date(value, what).isoformat()
    elif kind == "time":
        return parse_time(value, what).strftime("%H:%M")
    if col.enum is not None and value not in col.enum:
        raise ToolError(f"{what} must be one of {', '.join(col.enum)}; got {value!r}")
    if col.minimum is not None and value < col.minimum:
        raise ToolError(f"{what} must be at least {col.minimum:g}, got {value!r}")
    if col.maximum is not None and value > col.maximum:
        raise ToolError(f"{what} must be at most {col.maximum:g}, got {value!r}")
    return value


def decode_value(col: Column, raw: Any) -> Any:
    if raw is None:
        return [] if col.type == "list" else None
    if col.type == "bool":
        return bool(raw)
    if col.type in ("list", "json"):
        return json.loads(raw)
    return raw


@lru_cache(maxsize=None)
def _columns_by_name(name: str) -> dict[str, Column]:
    return {c.name: c for c in table(name).columns}


@dataclass
class World:
    """One episode's world: database connection, reference time, images and device-side facts.

    ``visible`` holds the image ids the agent may use (delivered by the user or made by a tool);
    ``shown_to_user`` records what the agent showed the user; ``viewed`` lists the images the agent asked
    to look at (the newest becomes the observation image); ``saved_paths`` maps temporary paths made
    by ``save_image`` to image ids.
    """

    conn: sqlite3.Connection
    now: datetime
    images: ImageStore
    visible: set[str] = field(default_factory=set)
    shown_to_user: list[dict[str, Any]] = field(default_factory=list)
    viewed: list[str] = field(default_factory=list)
    saved_paths: dict[str, str] = field(default_factory=dict)
    #: Set while a template is built: image ids are then only checked for their form (the images of
    #: a scenario are added to the store per episode).
    building: bool = False

    @classmethod
    def from_template(cls, template: bytes, now: datetime, images: ImageStore) -> "World":
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.deserialize(template)
        conn.row_factory = sqlite3.Row
        return cls(conn, now, images)

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ time
    def now_iso(self) -> str:
        return self.now.isoformat(timespec="seconds")

    def today(self) -> date:
        return self.now.date()

    # ------------------------------------------------------------------ rows
    def decode_row(self, table_name: str, raw: Mapping[str, Any]) -> dict[str, Any]:
        cols = _columns_by_name(table_name)
        return {key: (raw[key] if key == "id" else decode_value(cols[key], raw[key])) for key in raw.keys()}

    def rows(self, table_name: str, where: str = "", params: tuple[Any, ...] = (), order: str = "id") -> list[dict[str, Any]]:
        """Rows of ``table_name`` matching an SQL ``where`` clause (trusted callers only), decoded."""
        sql = f'SELECT * FROM "{table_name}"' + (f" WHERE {where}" if where else "") + f" ORDER BY {order}"
        return [self.decode_row(table_name, r) for r in self.conn.execute(sql, params)]

    def find(self, table_name: str, id_: Any) -> dict[str, Any] | None:
        if isinstance(id_, bool) or not isinstance(id_, int):
            raise ToolError(f"{table(table_name).entity} id must be an integer, got {id_!r}")
        row = self.conn.execute(f'SELECT * FROM "{table_name}" WHERE id = ?', (id_,)).fetchone()
        return None if row is None else self.decode_row(table_name, row)

    def get(self, table_name: str, id_: Any) -> dict[str, Any]:
        """The row with ``id_``; ``ToolError`` naming the entity when there is none."""
        row = self.find(table_name, id_)
        if row is None:
            tbl = table(table_name)
            raise ToolError(f"no {tbl.entity.replace('_', ' ')} with id {id_} (use a list or search tool to find valid ids)")
        return row

    def _encode(self, tbl: Table, values: Mapping[str, Any]) -> dict[str, Any]:
        cols = _columns_by_name(tbl.name)
        encoded = {}
        for key, value in values.items():
            if key not in cols:
                raise ToolError(f"{tbl.entity} has no field {key!r}; fields: {', '.join(cols)}")
            col = cols[key]
            stored = encode_value(tbl, col, value)
            if col.type == "ref" and stored is not None and self.find(col.ref_table or "", stored) is None:
                raise ToolError(f"{tbl.entity}.{key}: no {table(col.ref_table or '').entity} with id {stored}")
            encoded[key] = stored
        return encoded

    def _validate(self, table_name: str, row_id: int) -> None:
        for rule in VALIDATORS.get(table_name, ()):
            rule(self, self.get(table_name, row_id))

    def insert(self, table_name: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Insert a row (defaults and bookkeeping filled in, rules checked) and return it decoded."""
        tbl = table(table_name)
        full: dict[str, Any] = {}
        for col in tbl.columns:
            if col.name in values and values[col.name] is not None:
                full[col.name] = values[col.name]
            elif col.score_kind == "bookkeeping" and col.type == "datetime":
                full[col.name] = self.now_iso()
            elif col.required:
                raise ToolError(f"{tbl.entity}.{col.name} is required ({col.doc})")
            elif col.default is not None:
                full[col.name] = col.default
            elif col.type == "list":
                full[col.name] = []
        if "id" in values and values["id"] is not None:
            full["id"] = values["id"]
        for key in values:
            if key not in full and key != "id" and key not in _columns_by_name(table_name):
                raise ToolError(f"{tbl.entity} has no field {key!r}; fields: {', '.join(tbl.column_names)}")
        id_value = full.pop("id", None)
        encoded = self._encode(tbl, full)
        if id_value is not None:
            if isinstance(id_value, bool) or not isinstance(id_value, int) or id_value < 1:
                raise ToolError(f"{tbl.entity}.id must be a positive integer, got {id_value!r}")
            encoded = {"id": id_value, **encoded}
        names = ", ".join(f'"{k}"' for k in encoded)
        marks = ", ".join("?" for _ in encoded)
        try:
            cursor = self.conn.execute(f'INSERT INTO "{table_name}" ({names}) VALUES ({marks})', tuple(encoded.values()))
        except sqlite3.IntegrityError as exc:
            raise ToolError(f"cannot create {tbl.entity}: {exc}") from None
        row_id = int(cursor.lastrowid)
        self._validate(table_name, row_id)
        return self.get(table_name, row_id)

    def update(self, table_name: str, id_: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Change some fields of a row (``None`` values are skipped) and return it decoded."""
        tbl = table(table_name)
        self.get(table_name, id_)
        changes = {k: v for k, v in changes.items() if v is not None}
        if "id" in changes:
            raise ToolError(f"the id of a {tbl.entity} cannot be changed")
        encoded = self._encode(tbl, changes)
        if "updated_at" in _columns_by_name(table_name):
            encoded["updated_at"] = self.now_iso()
        if encoded:
            sets = ", ".join(f'"{k}" = ?' for k in encoded)
            self.conn.execute(f'UPDATE "{table_name}" SET {sets} WHERE id = ?', (*encoded.values(), id_))
        self._validate(table_name, id_)
        return self.get(table_name, id_)

    def set_raw(self, table_name: str, id_: int, column: str, value: Any) -> None:
        """Write one already-valid value (used for nullable references and bookkeeping)."""
        col = _columns_by_name(table_name)[column]
        stored = None if value is None else encode_value(table(table_name), col, value)
        self.conn.execute(f'UPDATE "{table_name}" SET "{column}" = ? WHERE id = ?', (stored, id_))

    def delete(self, table_name: str, id_: int) -> dict[str, Any]:
        """Delete a row and return what it held."""
        row = self.get(table_name, id_)
        self.conn.execute(f'DELETE FROM "{table_name}" WHERE id = ?', (id_,))
        return row

    def count(self, table_name: str, where: str = "", params: tuple[Any, ...] = ()) -> int:
        sql = f'SELECT COUNT(*) FROM "{table_name}"' + (f" WHERE {where}" if where else "")
        return int(self.conn.execute(sql, params).fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All-or-nothing: a tool that raises leaves the database exactly as it was."""
        self.conn.execute("SAVEPOINT tool_call")
        try:
            yield
        except BaseException:
            if self.conn.in_transaction:  # SQLite rolls the whole transaction back itself on some errors (a full database)
                self.conn.execute("ROLLBACK TO tool_call")
                self.conn.execute("RELEASE tool_call")
            raise
        self.conn.execute("RELEASE tool_call")

    # ------------------------------------------------------------------ device state
    def settings(self) -> dict[str, Any]:
        return self.get("device_settings", 1)

    def require_network(self, action: str) -> None:
        """Refuse ``action`` when the phone has no data connection (wifi and cellular off, or airplane mode)."""
        s = self.settings()
        if s["airplane_mode"] or not (s["wifi"] or s["cellular"]):
            raise ToolError(
                f"cannot {action}: the device has no network connection (wifi {'on' if s['wifi'] else 'off'}, "
                f"cellular {'on' if s['cellular'] else 'off'}, airplane mode {'on' if s['airplane_mode'] else 'off'}). "
                "Turn on wifi or cellular data first."
            )

    def require_location(self, action: str) -> None:
        if not self.settings()["location_service"]:
            raise ToolError(f"cannot {action}: location services are off. Turn them on first.")

    def self_phone(self) -> str:
        return str(self.get("user_profile", 1)["phone_number"] or "")

    def self_email(self) -> str:
        return str(self.get("user_profile", 1)["email"] or "")

    # ------------------------------------------------------------------ images
    def check_image(self, image_id: Any) -> str:
        """``image_id`` if the agent may use it (shared by the user or made by a tool), else ``ToolError``."""
        if not isinstance(image_id, str):
            raise ToolError(f"image ids are strings like 'img_0', got {image_id!r}")
        if self.building:
            if not re.fullmatch(r"img_\d+", image_id):
                raise ToolError(f"invalid image id {image_id!r}: ids look like 'img_0', 'img_1', …")
            return image_id
        try:
            self.images.record(image_id)
        except ImageNotFound as exc:
            raise ToolError(str(exc)) from None
        if image_id not in self.visible:
            raise ToolError(f"image {image_id!r} has not been shared with you yet; available: {', '.join(sorted(self.visible, key=_image_order)) or 'none'}")
        return image_id

    def check_images(self, image_ids: list[str] | None) -> list[str]:
        return [self.check_image(i) for i in (image_ids or [])]


def _image_order(image_id: str) -> int:
    return int(image_id.split("_")[1]) if image_id.startswith("img_") and image_id[4:].isdigit() else 0


_SINGLETON_DEFAULTS = {t.name: {c.name: c.default for c in t.columns if c.default is not None} for t in TABLES if t.singleton}


@lru_cache(maxsize=1)
def empty_template() -> bytes:
    """The schema with default singleton rows, serialised."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(ddl())
    world = World(conn, datetime(2000, 1, 1), ImageStore())
    conn.row_factory = sqlite3.Row
    for name, defaults in _SINGLETON_DEFAULTS.items():
        world.insert(name, {"id": 1, **defaults})
    data = conn.serialize()
    conn.close()
    return data


def build_template(initial_entities: Mapping[str, list[Mapping[str, Any]]], now: datetime, source: str) -> bytes:
    """A database holding ``initial_entities`` (singleton tables: the row's fields update the defaults).

    Raises ``ValueError`` naming ``source``, the table, the row index and the problem.
    """
    world = World.from_template(empty_template(), now, ImageStore())
    world.building = True
    try:
        for name, rows in initial_entities.items():
            try:
                tbl = table(name)
            except KeyError as exc:
                raise ValueError(f"{source}: field 'initial_entities.{name}': {exc.args[0]}") from None
            if not isinstance(rows, list):
                raise ValueError(f"{source}: field 'initial_entities.{name}' must be a list of rows, got {type(rows).__name__}")
            for index, row in enumerate(rows):
                where = f"{source}: field 'initial_entities.{name}[{index}]'"
                if not isinstance(row, Mapping):
                    raise ValueError(f"{where} must be an object, got {type(row).__name__}")
                try:
                    if tbl.singleton:
                        world.update(name, 1, {k: v for k, v in row.items() if k != "id"})
                    else:
                        world.insert(name, row)
                except ToolError as exc:
                    raise ValueError(f"{where}: {exc}") from None
        return world.conn.serialize()
    finally:
        world.close()
