"""The spreadsheet model of the sim's Numbers: documents → sheets → tables → cells, templates,
the ``.numbers`` file content (via :mod:`.iwork`), CSV/Excel import and CSV/Excel/PDF export.

A table keeps what each cell holds (:data:`~.numbers_formulas.Input`: a number, text, a boolean or a
:class:`~.numbers_formulas.Formula`); values are computed on demand and cached until it changes.
"""

from __future__ import annotations

import csv
import io
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmenvs.core.confined import ConfinedDir
from mmenvs.core.offload import in_child_process

from . import iwork
from .home_io import MAX_DOCUMENT_BYTES, save_bytes, save_text
from .numbers_formulas import (MAX_COLUMNS, MAX_ROWS, CellError, Evaluator, Formula, Input, Value, address,
                               column_name, display, move_rows_formula, parse_input, parse_number, shift_formula)

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


@dataclass
class Document:
    """An open Numbers document."""

    id: int
    name: str
    sheets: list[Sheet]
    template: str = "Blank"
    path: Path | None = None
    modified: bool = False
    active_sheet: int = 0  # index into sheets
    # GUI edits: snapshots (see NumbersApp.record_undo) for cmd-Z / cmd-shift-Z
    undo: list[Any] = field(default_factory=list, repr=False)
    redo: list[Any] = field(default_factory=list, repr=False)

    def snapshot(self) -> tuple[Any, ...]:
        """The document's sheets and tables as plain data (ids kept, so references stay valid on restore)."""
        return (self.active_sheet, [(s.id, s.name, [(t.id, t.name, t.rows, t.columns, t.header_rows, t.header_columns,
                                                     t.footer_rows, dict(t.cells)) for t in s.tables])
                                    for s in self.sheets])

    def restore(self, snap: tuple[Any, ...]) -> None:
        active, sheets = snap
        self.sheets = [Sheet(name, [Table(name=tn, rows=r, columns=c, header_rows=hr, header_columns=hc, footer_rows=fr,
                                          cells=dict(cells), id=tid)
                                    for tid, tn, r, c, hr, hc, fr, cells in tables], id=sid)
                       for sid, name, tables in sheets]
        self.active_sheet = active

    @property
    def sheet(self) -> Sheet:
        self.active_sheet = max(0, min(self.active_sheet, len(self.sheets) - 1))
        return self.sheets[self.active_sheet]

    def tables(self) -> list[tuple[Sheet, Table]]:
        return [(s, t) for s in self.sheets for t in s.tables]

    def find_table(self, tid: int) -> tuple[Sheet, Table] | None:
        for s, t in self.tables():
            if t.id == tid:
                return s, t
        return None

    def new_sheet_name(self) -> str:
        names = {s.name for s in self.sheets}
        n = len(self.sheets) + 1
        while f"Sheet {n}" in names:
            n += 1
        return f"Sheet {n}"

    def to_json(self) -> dict[str, Any]:
        return {"template": self.template, "active_sheet": self.active_sheet,
                "sheets": [{"name": s.name, "tables": [t.to_json() for t in s.tables]} for s in self.sheets]}


def new_table_name(sheet: Sheet) -> str:
    names = {t.name for t in sheet.tables}
    n = 1
    while f"Table {n}" in names:
        n += 1
    return f"Table {n}"


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


def read_numbers(path: Path, files: ConfinedDir) -> tuple[list[Sheet], str, int]:
    """Load a ``.numbers`` file through ``files`` (the home's layer; None for a trusted caller's own
    file) (raises iwork.IWorkFileError / NumbersError naming the file)."""
    return sheets_from_json(iwork.read_document(path, "numbers", files), path.name)


def write_numbers(path: Path, doc: Document, files: ConfinedDir) -> None:
    """Save ``doc`` as a ``.numbers`` file at ``path`` through ``files`` (as for ``read_numbers``)."""
    iwork.write_document(path, "numbers", doc.to_json(), files)


# ------------------------------------------------------------------------------------------ templates


def _filled(name: str, rows: list[list[Any]], *, header_rows: int = 1, header_columns: int = 0,
            footer_rows: int = 0, extra_rows: int = 0, min_columns: int = 0) -> Table:
    ncols = max(min_columns, max(len(r) for r in rows))
    t = Table(name=name, rows=len(rows) + extra_rows, columns=ncols)
    t.set_headers(header_rows, header_columns, 0)
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            t.set(r, c, Formula(v) if isinstance(v, str) and v.startswith("=") else v)
    if footer_rows:
        t.set_headers(footer_rows=footer_rows)
    return t


def _blank() -> list[Sheet]:
    return [Sheet("Sheet 1", [Table()])]


def _checklist() -> list[Sheet]:
    rows = [["Done", "Task", "Due", "Notes"]] + [[None, None, None, None] for _ in range(11)]
    return [Sheet("Checklist", [_filled("Checklist", rows, min_columns=4)])]


def _personal_budget() -> list[Sheet]:
    budget = [["Category", "Budget", "Actual", "Difference"],
              ["Food", 400.0, None, "=B2-C2"], ["Gifts", 50.0, None, "=B3-C3"],
              ["Health/medical", 100.0, None, "=B4-C4"], ["Home", 900.0, None, "=B5-C5"],
              ["Transportation", 200.0, None, "=B6-C6"], ["Personal", 150.0, None, "=B7-C7"],
              ["Utilities", 180.0, None, "=B8-C8"], ["Total", "=SUM(B2:B8)", "=SUM(C2:C8)", "=SUM(D2:D8)"]]
    t = _filled("Budget", budget, footer_rows=1)
    tx = _filled("Transactions", [["Date", "Description", "Category", "Amount"]], extra_rows=8)
    return [Sheet("Budget", [t]), Sheet("Transactions", [tx])]


def _simple_budget() -> list[Sheet]:
    rows = [["Item", "Amount"], ["Rent", 1200.0], ["Groceries", 350.0], ["Transport", 90.0],
            ["Total", "=SUM(B2:B4)"]]
    return [Sheet("Sheet 1", [_filled("Expenses", rows, footer_rows=1)])]


def _employee_schedule() -> list[Sheet]:
    rows = [["Employee", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Hours"]] + \
           [[None] * 6 + [f"=SUM(B{r}:F{r})"] for r in range(2, 8)]
    return [Sheet("Schedule", [_filled("Schedule", rows, header_columns=1)])]


TEMPLATES: dict[str, Any] = {
    "Blank": _blank, "Checklist": _checklist, "Personal Budget": _personal_budget,
    "Simple Budget": _simple_budget, "Employee Schedule": _employee_schedule,
}


# ------------------------------------------------------------------------------------------ import


def _cell_from_text(text: str) -> Input:
    """An imported field: numbers become numbers, everything else text (imports never make formulas)."""
    if not text.strip():
        return None
    n = parse_number(text)
    return n if n is not None else text


def table_from_rows(name: str, rows: list[list[str]]) -> Table:
    rows = [r for r in rows] or [[""]]
    if len(rows) > MAX_ROWS:
        raise NumbersError(f"{name}: {len(rows)} rows is more than the {MAX_ROWS} a table can hold")
    ncols = max(1, max(len(r) for r in rows))
    if ncols > MAX_COLUMNS:
        raise NumbersError(f"{name}: {ncols} columns is more than the {MAX_COLUMNS} a table can hold")
    t = Table(name=name, rows=len(rows), columns=ncols, header_rows=1 if len(rows) > 1 else 0, header_columns=0)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            t.set(r, c, _cell_from_text(text))
    return t


def import_csv(files: ConfinedDir, path: Path) -> list[Sheet]:
    """A CSV (or tab-separated) file (read through ``files``) as one sheet with one table named after the file."""
    data = files.read_bytes(path, limit=MAX_DOCUMENT_BYTES)
    text = data.decode("utf-8-sig", errors="replace")
    if "\x00" in text:
        raise NumbersError(f"{path.name}: not a text file (it contains NUL bytes)")
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter)]
    while rows and not any(x.strip() for x in rows[-1]):
        rows.pop()
    return [Sheet("Sheet 1", [table_from_rows(path.stem, rows)])]


def import_xlsx(files: ConfinedDir, path: Path) -> list[Sheet]:
    """An Excel workbook (read through ``files``): one sheet per worksheet, one table each (values, not formulas)."""
    data = files.read_bytes(path, limit=MAX_DOCUMENT_BYTES)
    return [Sheet(title, [table_from_rows("Table 1", rows)]) for title, rows in _xlsx_rows(data, path.name)] or _blank()


@in_child_process  # openpyxl + lxml (~15 MB) stay out of the env process
def _xlsx_rows(data: bytes, name: str) -> list[tuple[str, list[list[str]]]]:
    """(worksheet title, rows of displayed text) for each worksheet of the workbook ``data`` (the file ``name``)."""
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(data), data_only=True, read_only=True)
    except Exception as e:  # openpyxl raises several types for a damaged file
        raise NumbersError(f"{name}: not a readable Excel workbook ({type(e).__name__})") from None
    out = []
    for ws in wb.worksheets:
        rows = [["" if v is None else (display(float(v)) if isinstance(v, int | float) and not isinstance(v, bool)
                                       else str(v)) for v in row]
                for row in ws.iter_rows(values_only=True)]
        while rows and not any(x.strip() for x in rows[-1]):
            rows.pop()
        out.append((ws.title, rows))
    wb.close()
    return out


# ------------------------------------------------------------------------------------------ export

EXPORT_FORMATS = {"CSV": ".csv", "Microsoft Excel": ".xlsx", "PDF": ".pdf"}


def csv_text(table: Table) -> str:
    """A table as CSV: every row and column, values as displayed."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in table.grid_text():
        w.writerow(row)
    return buf.getvalue()


def export_csv(files: ConfinedDir, doc: Document, path: Path) -> list[Path]:
    """One table: ``path`` itself. Several: a folder named like ``path`` (without .csv) holding
    ``<sheet>-<table>.csv`` per table, as Numbers does. Returns the files written (through ``files``)."""
    tables = doc.tables()
    if len(tables) == 1:
        save_text(files, path, csv_text(tables[0][1]))
        return [path]
    folder = path.with_suffix("") if path.suffix.lower() == ".csv" else path
    files.mkdir(folder, parents=True, exist_ok=True)
    out = []
    for s, t in tables:
        p = folder / f"{_safe(s.name)}-{_safe(t.name)}.csv"
        files.write_text(p, csv_text(t))
        out.append(p)
    return out


def _safe(name: str) -> str:
    """A sheet or table name as part of a file name (no "/", "\\" or ":"; never "." or "..")."""
    safe = "".join("_" if ch in '/\\:\0' else ch for ch in name)
    return safe if safe.strip(".") else "untitled"


def export_xlsx(files: ConfinedDir, doc: Document, path: Path) -> None:
    """An Excel workbook: a worksheet per sheet (per table where a sheet has several), values as
    computed (numbers stay numbers)."""
    worksheets: list[tuple[str, list[list[Any]]]] = []
    used: set[str] = set()
    for s in doc.sheets:
        for t in s.tables:
            title = s.name if len(s.tables) == 1 else f"{s.name} - {t.name}"
            title = "".join("_" if ch in '[]:*?/\\' else ch for ch in title)[:31] or "Sheet"
            base, n = title, 2
            while title.lower() in used:
                title = f"{base[:28]} {n}"
                n += 1
            used.add(title.lower())
            rows = [[None if v is None else v.code if isinstance(v, CellError)
                     else int(v) if isinstance(v, float) and v == int(v) and abs(v) < 1e15 else v for v in row]
                    for row in t.grid_values()]
            worksheets.append((title, rows))
    save_bytes(files, path, _xlsx_bytes(worksheets or [("Sheet 1", [])]))


@in_child_process  # openpyxl + lxml (~15 MB) stay out of the env process
def _xlsx_bytes(worksheets: list[tuple[str, list[list[Any]]]]) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    for title, rows in worksheets:
        ws = wb.create_sheet(title)
        for r, row in enumerate(rows, start=1):
            for c, v in enumerate(row, start=1):
                if v is not None:
                    ws.cell(row=r, column=c, value=v)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def export_pdf(files: ConfinedDir, doc: Document, path: Path) -> None:
    """A PDF with each sheet's tables (name and grid), through the shared iWork PDF writer."""
    blocks: list[iwork.Block] = []
    for i, s in enumerate(doc.sheets):
        if i:
            blocks.append(iwork.Block("page break"))
        blocks.append(iwork.Block("heading", s.name))
        for t in s.tables:
            blocks.append(iwork.Block("heading 2", t.name))
            blocks.append(iwork.Block("table", rows=t.grid_text()))
    iwork.write_pdf(files, path, blocks, title=doc.name, landscape=True)


def export(files: ConfinedDir, doc: Document, path: Path, fmt: str) -> list[Path]:
    """Export ``doc`` as ``fmt`` (a key of EXPORT_FORMATS) to ``path`` through ``files``; returns the files written."""
    if fmt == "CSV":
        return export_csv(files, doc, path)
    if fmt == "Microsoft Excel":
        export_xlsx(files, doc, path)
        return [path]
    if fmt == "PDF":
        export_pdf(files, doc, path)
        return [path]
    raise NumbersError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")


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
