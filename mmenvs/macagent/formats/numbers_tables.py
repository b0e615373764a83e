"""The tables of MacAgent's Numbers documents, owned by no backend: sheets → tables → cells, what a
``.numbers`` file's content holds (:func:`sheets_from_json`) and a table's values by address
(:func:`cells_record`). The sim's Numbers app edits these tables (``backends/sim/apps/numbers_model.py``
adds documents, templates, import and export); the ``numbers_cells`` getter reads a document fetched from
any guest with them.

A table keeps what each cell holds (:data:`~.numbers_formulas.Input`: a number, text, a boolean or a
:class:`~.numbers_formulas.Formula`); values are computed on demand and cached until it changes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from .numbers_formulas import (MAX_COLUMNS, MAX_ROWS, CellError, Evaluator, Formula, Input, Value, address,
                               column_name, display, move_rows_formula, parse_input, shift_formula)

# provisional sheet/table ids (negative): the app that takes the object in gives it its own id (1, 2, …
# per app, so an episode's ids do not depend on what ran before it in the process)
_ids = itertools.count(-1, -1)


class NumbersError(ValueError):
    """Bad input to the model (names the object, the field and the value)."""


@dataclass
class Table:
    """A table: size, header/footer counts, cells by (row, column) and a name."""

    name: str = "Table 1"
    rows: int = 22
    columns: int = 7
    header_rows: int = 1
    header_columns: int = 1
    footer_rows: int = 0
    cells: dict[tuple[int, int], Input] = field(default_factory=dict)
    id: int = field(default_factory=lambda: next(_ids))
    backgrounds: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)  # 16-bit RGB fills
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)  # (top, left, bottom, right), inclusive
    _eval: Evaluator | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.check_size(self.rows, self.columns)

    def check_size(self, rows: int, columns: int) -> None:
        if not (1 <= rows <= MAX_ROWS):
            raise NumbersError(f"table {self.name!r}: row count must be 1…{MAX_ROWS}, got {rows}")
        if not (1 <= columns <= MAX_COLUMNS):
            raise NumbersError(f"table {self.name!r}: column count must be 1…{MAX_COLUMNS}, got {columns}")

    # -- cells ---------------------------------------------------------------------------------
    def changed(self) -> None:
        self._eval = None

    def evaluator(self) -> Evaluator:
        if self._eval is None:
            self._eval = Evaluator(lambda r, c: self.cells.get((r, c)), self.rows, self.columns)
        return self._eval

    def raw(self, row: int, col: int) -> Input:
        return self.cells.get((row, col))

    def value(self, row: int, col: int) -> Value:
        """The value the cell shows (a formula's result)."""
        self._check(row, col)
        return self.evaluator().value(row, col)

    def text(self, row: int, col: int) -> str:
        """The cell as displayed (its formatted value)."""
        return display(self.value(row, col))

    def _check(self, row: int, col: int) -> None:
        if not (0 <= row < self.rows and 0 <= col < self.columns):
            raise NumbersError(f"table {self.name!r} has no cell {address(row, col) if row >= 0 and col >= 0 else (row, col)}"
                               f" (it is {self.rows} rows × {self.columns} columns)")

    def set(self, row: int, col: int, content: Input) -> None:
        """Store ``content`` (already parsed) in a cell; None clears it."""
        self._check(row, col)
        if content is None or content == "":
            self.cells.pop((row, col), None)
        else:
            self.cells[(row, col)] = float(content) if isinstance(content, int) and not isinstance(content, bool) else content
        self.changed()

    def enter(self, row: int, col: int, text: str) -> None:
        """Store ``text`` as if typed into the cell (numbers become numbers, ``=…`` a formula)."""
        self.set(row, col, parse_input(text))

    def grid_values(self) -> list[list[Value]]:
        return [[self.value(r, c) for c in range(self.columns)] for r in range(self.rows)]

    def grid_text(self) -> list[list[str]]:
        return [[self.text(r, c) for c in range(self.columns)] for r in range(self.rows)]

    # -- structure -----------------------------------------------------------------------------
    def resize(self, rows: int | None = None, columns: int | None = None) -> None:
        rows = self.rows if rows is None else int(rows)
        columns = self.columns if columns is None else int(columns)
        self.check_size(rows, columns)
        self.cells = {(r, c): v for (r, c), v in self.cells.items() if r < rows and c < columns}
        self.backgrounds = {(r, c): v for (r, c), v in self.backgrounds.items() if r < rows and c < columns}
        self.merges = [m for m in self.merges if m[2] < rows and m[3] < columns]
        self.rows, self.columns = rows, columns
        self.header_rows = min(self.header_rows, rows)
        self.header_columns = min(self.header_columns, columns)
        self.footer_rows = min(self.footer_rows, rows - self.header_rows)
        self.changed()

    def set_headers(self, header_rows: int | None = None, header_columns: int | None = None,
                    footer_rows: int | None = None) -> None:
        hr = self.header_rows if header_rows is None else int(header_rows)
        hc = self.header_columns if header_columns is None else int(header_columns)
        fr = self.footer_rows if footer_rows is None else int(footer_rows)
        if not (0 <= hr <= 5) or not (0 <= hc <= 5) or not (0 <= fr <= 5):
            raise NumbersError(f"table {self.name!r}: header rows/columns and footer rows must be 0…5, "
                               f"got {hr}, {hc}, {fr}")
        if hr + fr > self.rows or hc > self.columns:
            raise NumbersError(f"table {self.name!r}: {hr} header and {fr} footer rows / {hc} header columns "
                               f"do not fit a {self.rows}×{self.columns} table")
        self.header_rows, self.header_columns, self.footer_rows = hr, hc, fr
        self.changed()

    # -- merged cells and fills ------------------------------------------------------------------
    def merge_at(self, row: int, col: int) -> tuple[int, int, int, int] | None:
        for m in self.merges:
            if m[0] <= row <= m[2] and m[1] <= col <= m[3]:
                return m
        return None

    def master(self, row: int, col: int) -> tuple[int, int]:
        """The cell that holds a merged region's content (its top-left), or the cell itself."""
        m = self.merge_at(row, col)
        return (m[0], m[1]) if m is not None else (row, col)

    def merge(self, top: int, left: int, bottom: int, right: int) -> tuple[int, int, int, int]:
        """Merge a range into one cell (grown to take in merged regions it overlaps). The top-left cell's
        content is kept; the other cells of the range are emptied."""
        self._check(top, left)
        self._check(bottom, right)
        box = (min(top, bottom), min(left, right), max(top, bottom), max(left, right))
        while True:
            over = [m for m in self.merges if not (m[2] < box[0] or m[0] > box[2] or m[3] < box[1] or m[1] > box[3])]
            grown = (min([box[0], *(m[0] for m in over)]), min([box[1], *(m[1] for m in over)]),
                     max([box[2], *(m[2] for m in over)]), max([box[3], *(m[3] for m in over)]))
            if grown == box:
                break
            box = grown
        self.merges = [m for m in self.merges if m not in over]
        if box[0] == box[2] and box[1] == box[3]:
            return box  # one cell: nothing to merge
        for r in range(box[0], box[2] + 1):
            for c in range(box[1], box[3] + 1):
                if (r, c) != (box[0], box[1]):
                    self.cells.pop((r, c), None)
        self.merges.append(box)
        self.changed()
        return box

    def unmerge(self, top: int, left: int, bottom: int, right: int) -> None:
        self.merges = [m for m in self.merges if m[2] < top or m[0] > bottom or m[3] < left or m[1] > right]
        self.changed()

    def set_background(self, top: int, left: int, bottom: int, right: int, rgb: tuple[int, int, int] | None) -> None:
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                if rgb is None:
                    self.backgrounds.pop((r, c), None)
                else:
                    self.backgrounds[(r, c)] = rgb

    def _shift_layout(self, axis: str, at: int, delta: int) -> None:
        """Fills and merged regions follow inserted/deleted rows or columns; a merged region the change
        cuts through is unmerged."""
        k = 0 if axis == "row" else 1

        def moved(i: int) -> int | None:
            if delta < 0 and at <= i < at - delta:
                return None
            return i + delta if i >= at else i

        fills = {}
        for (r, c), rgb in self.backgrounds.items():
            i = moved((r, c)[k])
            if i is not None:
                fills[(i, c) if k == 0 else (r, i)] = rgb
        self.backgrounds = fills
        kept = []
        for m in self.merges:
            lo, hi = m[k], m[k + 2]
            if delta > 0 and lo < at <= hi or delta < 0 and not (hi < at or lo >= at - delta):
                continue
            a, b = moved(lo), moved(hi)
            if a is None or b is None:
                continue
            kept.append((a, m[1], b, m[3]) if k == 0 else (m[0], a, m[2], b))
        self.merges = kept

    def _shift(self, axis: str, at: int, delta: int) -> None:
        """Move cells and rewrite formulas for ``delta`` rows/columns inserted (>0) or deleted (<0) at ``at``."""
        self._shift_layout(axis, at, delta)
        moved: dict[tuple[int, int], Input] = {}
        for (r, c), v in self.cells.items():
            i = r if axis == "row" else c
            if delta < 0 and at <= i < at - delta:
                continue
            if i >= at:
                i += delta
            key = (i, c) if axis == "row" else (r, i)
            moved[key] = Formula(shift_formula(v.text, axis, at, delta)) if isinstance(v, Formula) else v
        self.cells = moved

    def insert_rows(self, at: int, count: int = 1) -> None:
        if not (0 <= at <= self.rows):
            raise NumbersError(f"table {self.name!r}: cannot add a row at {at + 1} (it has {self.rows} rows)")
        self.check_size(self.rows + count, self.columns)
        self._shift("row", at, count)
        self.rows += count
        self.changed()

    def delete_rows(self, at: int, count: int = 1) -> None:
        if not (0 <= at and at + count <= self.rows) or self.rows - count < 1:
            raise NumbersError(f"table {self.name!r}: cannot delete row {at + 1} (it has {self.rows} rows)")
        self._shift("row", at, -count)
        self.rows -= count
        self.header_rows = min(self.header_rows, self.rows)
        self.footer_rows = min(self.footer_rows, self.rows - self.header_rows)
        self.changed()

    def insert_columns(self, at: int, count: int = 1) -> None:
        if not (0 <= at <= self.columns):
            raise NumbersError(f"table {self.name!r}: cannot add a column at {at + 1} (it has {self.columns} columns)")
        self.check_size(self.rows, self.columns + count)
        self._shift("column", at, count)
        self.columns += count
        self.changed()

    def delete_columns(self, at: int, count: int = 1) -> None:
        if not (0 <= at and at + count <= self.columns) or self.columns - count < 1:
            raise NumbersError(f"table {self.name!r}: cannot delete column {column_name(max(at, 0))} "
                               f"(it has {self.columns} columns)")
        self._shift("column", at, -count)
        self.columns -= count
        self.header_columns = min(self.header_columns, self.columns)
        self.changed()

    def body_rows(self) -> range:
        return range(self.header_rows, self.rows - self.footer_rows)

    def sort(self, col: int, descending: bool = False, rows: range | None = None) -> None:
        """Sort the body rows (or ``rows``) by column ``col``: numbers before text, empty cells last;
        formulas move with their rows and references to their own row follow them."""
        if not (0 <= col < self.columns):
            raise NumbersError(f"table {self.name!r} has no column {col + 1} to sort by (it has {self.columns})")
        span = list(rows if rows is not None else self.body_rows())
        if len(span) < 2:
            return
        ev = self.evaluator()

        def key(r: int) -> tuple:
            v = ev.value(r, col)
            if v is None:
                return (2, 0, "")
            if isinstance(v, CellError):
                return (2, 0, v.code)
            if isinstance(v, bool):
                return (0, float(v), "")
            if isinstance(v, float | int):
                return (0, float(v), "")
            return (1, 0, str(v).casefold())

        filled = [r for r in span if key(r)[0] < 2]
        empty = [r for r in span if key(r)[0] == 2]
        order = sorted(filled, key=key, reverse=descending) + empty  # stable: ties keep their order
        old = {r: {c: self.cells.get((r, c)) for c in range(self.columns)} for r in span}
        for new_r, old_r in zip(span, order):
            for c in range(self.columns):
                v = old[old_r][c]
                if isinstance(v, Formula):
                    v = Formula(move_rows_formula(v.text, old_r, new_r))
                if v is None:
                    self.cells.pop((new_r, c), None)
                else:
                    self.cells[(new_r, c)] = v
        self.changed()

    # -- file form -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        cells: dict[str, Any] = {}
        ev = self.evaluator()
        for (r, c), v in sorted(self.cells.items()):
            if isinstance(v, Formula):
                val = ev.value(r, c)
                cells[address(r, c)] = {"formula": v.text,
                                        "value": val.code if isinstance(val, CellError) else val}
            else:
                cells[address(r, c)] = v
        out = {"name": self.name, "rows": self.rows, "columns": self.columns, "header_rows": self.header_rows,
               "header_columns": self.header_columns, "footer_rows": self.footer_rows, "cells": cells}
        if self.backgrounds:
            out["background_colors"] = {address(r, c): list(v) for (r, c), v in sorted(self.backgrounds.items())}
        if self.merges:
            out["merged"] = [f"{address(m[0], m[1])}:{address(m[2], m[3])}" for m in sorted(self.merges)]
        return out

    @classmethod
    def from_json(cls, data: Any, where: str) -> "Table":
        from .numbers_formulas import parse_address

        if not isinstance(data, dict):
            raise NumbersError(f"{where}: a table must be an object, got {type(data).__name__}")
        try:
            t = cls(name=str(data.get("name", "Table 1")), rows=int(data.get("rows", 22)),
                    columns=int(data.get("columns", 7)))
            t.set_headers(int(data.get("header_rows", 1)), int(data.get("header_columns", 0)),
                          int(data.get("footer_rows", 0)))
        except (TypeError, ValueError) as e:
            raise NumbersError(f"{where}: {e}") from None
        cells = data.get("cells", {})
        if not isinstance(cells, dict):
            raise NumbersError(f"{where}: 'cells' must map addresses like \"A1\" to values")
        for key, v in cells.items():
            try:
                r, c = parse_address(key)
            except ValueError as e:
                raise NumbersError(f"{where}: {e}") from None
            if isinstance(v, dict):
                if not isinstance(v.get("formula"), str):
                    raise NumbersError(f"{where}: cell {key} must hold a number, text, true/false or {{\"formula\": \"=…\"}}")
                content: Input = Formula(v["formula"])
            elif v is None or isinstance(v, bool | int | float | str):
                content = v
            else:
                raise NumbersError(f"{where}: cell {key} holds {type(v).__name__}; expected a number, text or a formula")
            if r >= t.rows or c >= t.columns:
                raise NumbersError(f"{where}: cell {key} lies outside the {t.rows}×{t.columns} table")
            t.set(r, c, content)
        fills = data.get("background_colors", {})
        if not isinstance(fills, dict):
            raise NumbersError(f"{where}: 'background_colors' must map addresses to [red, green, blue] (0–65535)")
        for key, v in fills.items():
            try:
                r, c = parse_address(key)
            except ValueError as e:
                raise NumbersError(f"{where}: {e}") from None
            if not (isinstance(v, list) and len(v) == 3 and all(isinstance(x, int) and 0 <= x <= 65535 for x in v)) \
                    or r >= t.rows or c >= t.columns:
                raise NumbersError(f"{where}: background color of {key} must be [red, green, blue] (0–65535) inside the table")
            t.backgrounds[(r, c)] = (v[0], v[1], v[2])
        merged = data.get("merged", [])
        if not isinstance(merged, list) or len(merged) > t.rows * t.columns:
            raise NumbersError(f"{where}: 'merged' must list ranges like \"A1:B2\"")
        for text in merged:
            try:
                a, b = str(text).split(":")
                (r0, c0), (r1, c1) = parse_address(a), parse_address(b)
                t.merge(r0, c0, r1, c1)
            except ValueError as e:
                raise NumbersError(f"{where}: merged range {text!r}: {e}") from None
        return t


@dataclass
class Sheet:
    name: str
    tables: list[Table] = field(default_factory=list)
    id: int = field(default_factory=lambda: next(_ids))


def sheets_from_json(content: dict[str, Any], file_name: str) -> tuple[list[Sheet], str, int]:
    """(sheets, template name, active sheet index) of a ``.numbers`` file's content."""
    sheets_data = content.get("sheets")
    if not isinstance(sheets_data, list) or not sheets_data:
        raise NumbersError(f"{file_name}: the document must have a non-empty 'sheets' list")
    sheets = []
    for i, sd in enumerate(sheets_data):
        if not isinstance(sd, dict) or not isinstance(sd.get("tables", []), list):
            raise NumbersError(f"{file_name}: sheets[{i}] must be an object with a 'tables' list")
        sheets.append(Sheet(str(sd.get("name", f"Sheet {i + 1}")),
                            [Table.from_json(td, f"{file_name}: sheets[{i}].tables[{j}]")
                             for j, td in enumerate(sd.get("tables", []))]))
    active = content.get("active_sheet", 0)
    return sheets, str(content.get("template", "Blank")), active if isinstance(active, int) else 0


def cells_record(table: Table) -> dict[str, Any]:
    """A table as JSON-able data (for state() and getters): name, size and non-empty values by address."""
    values = {}
    for r in range(table.rows):
        for c in range(table.columns):
            v = table.value(r, c)
            if v is not None:
                values[address(r, c)] = v.code if isinstance(v, CellError) else v
    return {"name": table.name, "rows": table.rows, "columns": table.columns, "header_rows": table.header_rows,
            "header_columns": table.header_columns, "footer_rows": table.footer_rows, "values": values,
            "formulas": {address(r, c): v.text for (r, c), v in sorted(table.cells.items()) if isinstance(v, Formula)}}
