"""Generic tools generated from the table declarations of ``schema.py``.

Per table (as its ``ops`` allow): list (with filters on enum/bool/reference columns), keyword search,
get, get_many, count, create, update, delete, delete_many. Per column: ``set_<flag>`` for toggle
columns, ``add_``/``remove_`` for list columns with ``list_ops``, ``get_<entity>_by_<column>`` for
lookup columns. Each generated tool is a real function with an ``inspect.Signature`` and a
docstring, so it is described and validated exactly like a hand-written one.
"""

from __future__ import annotations

import inspect
from typing import Any, Literal

from .schema import TABLES, Column, Table
from .tools import Tool, kw, make_tool, synthesize
from .world import ToolError, World

EMPTY = inspect.Parameter.empty


def _annotation(col: Column) -> Any:
    if col.enum is not None:
        return Literal[col.enum]  # type: ignore[valid-type]
    return {
        "int": int, "ref": int, "real": float, "bool": bool, "text": str, "time": str, "date": str, "datetime": str,
        "list": list[int] if col.name == "song_ids" else list[str], "json": dict,
    }[col.type]


def _doc(summary: str, args: list[tuple[str, str]], returns: str) -> str:
    lines = [summary, "", f"Returns {returns}."]
    if args:
        lines += ["", "Args:"] + [f"    {name}: {text}" for name, text in args]
    return "\n".join(lines)


def _col_doc(col: Column) -> str:
    text = col.doc
    if col.enum is not None:
        text += f" (one of: {', '.join(col.enum)})"
    return text


def _filter_columns(tbl: Table) -> list[Column]:
    return [c for c in tbl.columns if (c.enum is not None or c.type in ("bool", "ref")) and c.score_kind != "bookkeeping"]


def _where(tbl: Table, filters: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    clauses, params = [], []
    for name, value in filters.items():
        if value is None:
            continue
        clauses.append(f'"{name}" = ?')
        params.append(int(value) if isinstance(value, bool) else value)
    return " AND ".join(clauses), tuple(params)


def _label(tbl: Table) -> str:
    return tbl.plural.replace("_", " ")


def _ent(tbl: Table) -> str:
    return tbl.entity.replace("_", " ")


def build_table_tools(tbl: Table) -> list[Tool]:
    """The generic tools of one table."""
    out: list[Tool] = []
    app, name = tbl.app, tbl.name
    id_name = f"{tbl.entity}_id"
    id_param = kw(id_name, int)
    id_doc = (id_name, f"id of the {_ent(tbl)}")

    def add(op: str, tool_name: str, params: list[inspect.Parameter], args: list[tuple[str, str]], summary: str,
            returns: str, body: Any, kind: str) -> None:
        annotations = {p.name: p.annotation for p in params}
        fn = synthesize(tool_name, params, annotations, _doc(summary, args, returns), body)
        out.append(make_tool(fn, app, kind=kind, table=name, family=name, meta={"op": op}))

    if tbl.singleton:
        if "get" in tbl.ops:
            add("get", f"{app}_get_{tbl.entity}", [], [], f"Get the {_ent(tbl)}: {tbl.doc}", "the row",
                lambda world: world.get(name, 1), "read")
        if "update" in tbl.ops:
            cols = [c for c in tbl.columns if c.score_kind != "bookkeeping"]
            params = [kw(c.name, _annotation(c) | None, None) for c in cols]
            add("update", f"{app}_update_{tbl.entity}", params, [(c.name, _col_doc(c) + "; omit to keep") for c in cols],
                f"Change fields of the {_ent(tbl)} ({tbl.doc}).", "the updated row",
                lambda world, **values: world.update(name, 1, values), "write")
        return out

    filters = _filter_columns(tbl)
    filter_params = [kw(c.name, _annotation(c) | None, None) for c in filters]
    filter_docs = [(c.name, f"only {_label(tbl)} whose {c.name} equals this ({_col_doc(c)})") for c in filters]

    if "list" in tbl.ops:
        def list_body(world: World, limit: int = 20, offset: int = 0, **f: Any) -> dict[str, Any]:
            if limit < 1 or offset < 0:
                raise ToolError(f"limit must be ≥ 1 and offset ≥ 0, got limit={limit}, offset={offset}")
            where, params = _where(tbl, f)
            total = world.count(name, where, params)
            rows = world.rows(name, where, params, order=f"id LIMIT {int(limit)} OFFSET {int(offset)}")
            return {"total": total, "offset": offset, "items": rows}
        add("list", f"{app}_list_{tbl.plural}", [kw("limit", int, 20), kw("offset", int, 0), *filter_params],
            [("limit", "maximum number of rows to return"), ("offset", "rows to skip (for paging)"), *filter_docs],
            f"List {_label(tbl)} ({tbl.doc}) in id order, optionally filtered.", "{total, offset, items}", list_body, "read")

    if "search" in tbl.ops:
        text_cols = tbl.text_columns

        def search_body(world: World, query: str, limit: int = 10) -> list[dict[str, Any]]:
            words = [w for w in query.lower().split() if w]
            if not words:
                raise ToolError("query must contain at least one word")
            scored = []
            for row in world.rows(name):
                haystack = " ".join(str(row[c]).lower() for c in text_cols if row[c])
                score = sum(1 for w in words if w in haystack)
                if score:
                    scored.append((-score, row["id"], row))
            scored.sort(key=lambda item: (item[0], item[1]))
            return [row for _, _, row in scored[: max(1, limit)]]
        add("search", f"{app}_search_{tbl.plural}", [kw("query", str), kw("limit", int, 10)],
            [("query", f"words to look for in {', '.join(text_cols)}"), ("limit", "maximum number of results")],
            f"Search {_label(tbl)} by keywords (case-insensitive; best matches first).", "the matching rows", search_body, "read")

    if "get" in tbl.ops:
        add("get", f"{app}_get_{tbl.entity}", [id_param], [id_doc], f"Get one {_ent(tbl)} by id.", "the row",
            lambda world, **a: world.get(name, a[id_name]), "read")

    if "get_many" in tbl.ops:
        add("get_many", f"{app}_get_many_{tbl.plural}", [kw("ids", list[int])], [("ids", f"ids of the {_label(tbl)}")],
            f"Get several {_label(tbl)} by id at once.", "the rows in the order given",
            lambda world, ids: [world.get(name, i) for i in ids], "read")

    if "count" in tbl.ops:
        def count_body(world: World, **f: Any) -> dict[str, int]:
            where, params = _where(tbl, f)
            return {"count": world.count(name, where, params)}
        add("count", f"{app}_count_{tbl.plural}", filter_params, filter_docs,
            f"Count {_label(tbl)}, optionally filtered.", "{count}", count_body, "read")

    writable = [c for c in tbl.columns if c.score_kind != "bookkeeping"]
    if "create" in tbl.ops:
        required = [c for c in writable if c.required]
        optional = [c for c in writable if not c.required]
        params = [kw(c.name, _annotation(c)) for c in required] + [kw(c.name, _annotation(c) | None, None) for c in optional]
        docs = [(c.name, _col_doc(c)) for c in required] + [
            (c.name, _col_doc(c) + (f"; default {c.default!r}" if c.default is not None else "; optional")) for c in optional
        ]
        add("create", f"{app}_create_{tbl.entity}", params, docs, f"Create a {_ent(tbl)} ({tbl.doc}).", "the new row with its id",
            lambda world, **values: world.insert(name, values), "write")

    if "update" in tbl.ops:
        params = [id_param] + [kw(c.name, _annotation(c) | None, None) for c in writable]
        docs = [id_doc] + [(c.name, _col_doc(c) + "; omit to keep") for c in writable]

        def update_body(world: World, **values: Any) -> dict[str, Any]:
            row_id = values.pop(id_name)
            if all(v is None for v in values.values()):
                raise ToolError(f"give at least one field of the {_ent(tbl)} to change")
            return world.update(name, row_id, values)
        add("update", f"{app}_update_{tbl.entity}", params, docs, f"Change fields of a {_ent(tbl)}; omitted fields keep their value.",
            "the updated row", update_body, "write")

    if "delete" in tbl.ops:
        add("delete", f"{app}_delete_{tbl.entity}", [id_param], [id_doc], f"Delete a {_ent(tbl)}.", "the deleted row",
            lambda world, **a: {"deleted": world.delete(name, a[id_name])}, "write")

    if "delete_many" in tbl.ops:
        def delete_many_body(world: World, ids: list[int]) -> dict[str, Any]:
            if not ids:
                raise ToolError("ids must name at least one row")
            return {"deleted": [world.delete(name, i)["id"] for i in ids]}
        add("delete_many", f"{app}_delete_many_{tbl.plural}", [kw("ids", list[int])], [("ids", f"ids of the {_label(tbl)} to delete")],
            f"Delete several {_label(tbl)} at once (all or none).", "{deleted: ids}", delete_many_body, "write")

    for col in tbl.columns:
        if col.toggle:
            flag = col.name[3:] if col.name.startswith("is_") else col.name
            col_name = col.name

            def toggle_body(world: World, value: bool, _c: str = col_name, **a: Any) -> dict[str, Any]:
                return world.update(name, a[id_name], {_c: value})
            add("set_flag", f"{app}_set_{tbl.entity}_{flag}", [id_param, kw("value", bool)],
                [id_doc, ("value", f"true or false: {col.doc}")], f"Set whether the {_ent(tbl)} is {flag.replace('_', ' ')} ({col.doc}).",
                "the updated row", toggle_body, "write")
        if col.list_ops:
            item = col.name[:-1] if col.name.endswith("s") else col.name
            col_name = col.name

            def add_item(world: World, value: str, _c: str = col_name, **a: Any) -> dict[str, Any]:
                row = world.get(name, a[id_name])
                if value in row[_c]:
                    raise ToolError(f"{value!r} is already in the {_ent(tbl)}'s {_c}")
                return world.update(name, row["id"], {_c: row[_c] + [value]})

            def remove_item(world: World, value: str, _c: str = col_name, **a: Any) -> dict[str, Any]:
                row = world.get(name, a[id_name])
                if value not in row[_c]:
                    raise ToolError(f"{value!r} is not in the {_ent(tbl)}'s {_c} ({row[_c]})")
                return world.update(name, row["id"], {_c: [v for v in row[_c] if v != value]})
            add("list_add", f"{app}_add_{tbl.entity}_{item}", [id_param, kw("value", str)], [id_doc, ("value", f"the {item.replace('_', ' ')} to add")],
                f"Add one entry to the {_ent(tbl)}'s {col.name.replace('_', ' ')} ({col.doc}).", "the updated row", add_item, "write")
            add("list_remove", f"{app}_remove_{tbl.entity}_{item}", [id_param, kw("value", str)], [id_doc, ("value", f"the {item.replace('_', ' ')} to remove")],
                f"Remove one entry from the {_ent(tbl)}'s {col.name.replace('_', ' ')} ({col.doc}).", "the updated row", remove_item, "write")
        if col.lookup:
            col_name = col.name

            def lookup(world: World, value: str, _c: str = col_name) -> dict[str, Any]:
                rows = world.rows(name, f'lower("{_c}") = lower(?)', (value.strip(),))
                if not rows:
                    raise ToolError(f"no {_ent(tbl)} with {_c} {value!r}")
                return rows[0]
            add("lookup", f"{app}_get_{tbl.entity}_by_{col.name}", [kw("value", str)], [("value", f"the {col.doc} to look up (exact, case-insensitive)")],
                f"Find the {_ent(tbl)} whose {col.name.replace('_', ' ')} is exactly the given value.", "the row", lookup, "read")
    return out


def build_generic_tools() -> list[Tool]:
    """Every generated tool, table by table."""
    return [t for tbl in TABLES for t in build_table_tools(tbl)]
