"""The spreadsheet model of the sim's Numbers: documents of sheets, templates, the ``.numbers`` file
(via :mod:`.iwork`), CSV/Excel import and CSV/Excel/PDF export. The tables and the formula language are
:mod:`mmenvs.macagent.formats.numbers_tables` and :mod:`mmenvs.macagent.formats.numbers_formulas`,
shared with the getters.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmenvs.core.confined import ConfinedDir
from mmenvs.core.offload import in_child_process
from mmenvs.macagent.formats.numbers_formulas import MAX_COLUMNS, MAX_ROWS, CellError, Formula, Input, display, parse_number
# the tables themselves are shared with the getters; numbers.py imports them from here too
from mmenvs.macagent.formats.numbers_tables import NumbersError, Sheet, Table, cells_record, sheets_from_json  # noqa: F401

from . import iwork
from .home_io import MAX_DOCUMENT_BYTES, save_bytes, save_text


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
    # Numbers' dark blank template (a public MacAgentBench task creates one); the sim draws it like Blank
    "Blank Black": _blank,
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
