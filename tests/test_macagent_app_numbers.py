"""The sim's Numbers: the formula language, the grid's spreadsheet keys and typing, table names edited
in place, the template chooser, AppleScript with typed values, save/open of .numbers, CSV/Excel/PDF
export read back, CSV import, and bad input (errors that name what was wrong)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from mmenvs.macagent.applescript.errors import AppleScriptError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.formats.numbers_formulas import (CellError, Evaluator, Formula, column_index, column_name,
                                                     parse_address, parse_input, shift_formula)
from mmenvs.macagent.formats.numbers_tables import NumbersError, Table
from mmenvs.macagent.checkpoints import GETTERS, GetterContext, GetterError
from test_macagent_sim import click, elements, find

TELL = 'tell application "Numbers" to '
T1 = 'table 1 of sheet 1 of document 1'


def osa(b: SimBackend, script: str) -> str:
    return b.run_applescript(script)


def value(b: SimBackend, cell: str, table: str = T1) -> str:
    return osa(b, f'{TELL}get value of cell "{cell}" of {table}')


def blank_document(b: SimBackend) -> None:
    """Launch Numbers and take the Blank template with the keyboard."""
    b.open_app("Numbers")
    assert find(b, "AXButton", "Blank")
    b.press("return")


# ----------------------------------------------------------------------------------- formulas


def evaluate(cells: dict[str, object], rows: int = 10, cols: int = 4) -> Evaluator:
    raw = {parse_address(k): (Formula(v) if isinstance(v, str) and v.startswith("=") else v) for k, v in cells.items()}
    return Evaluator(lambda r, c: raw.get((r, c)), rows, cols)


def test_addresses_and_typed_input() -> None:
    assert [column_name(i) for i in (0, 25, 26, 701)] == ["A", "Z", "AA", "ZZ"]
    assert column_index("AB") == 27 and parse_address("$C$4") == (3, 2)
    assert parse_input("12") == 12.0 and parse_input("-1,250.5") == -1250.5 and parse_input("15%") == 0.15
    assert parse_input("test") == "test" and parse_input("  ") is None
    assert parse_input("=SUM(A1:A3)") == Formula("=SUM(A1:A3)") and parse_input("1.2.3") == "1.2.3"
    with pytest.raises(ValueError, match="not a cell address: 'A0'"):
        parse_address("A0")


def test_formulas_compute_like_a_spreadsheet() -> None:
    ev = evaluate({"A1": 4.0, "A2": 6.0, "A3": "text", "A4": 2.5,
                   "B1": "=SUM(A1:A4)", "B2": "=AVERAGE(A1:A4)", "B3": "=MIN(A1:A4)+MAX(A1:A4)",
                   "B4": "=COUNT(A1:A4)", "B5": "=ROUND(A4*1.01, 1)", "B6": "=(A1+A2)*2-A4/5^1",
                   "B7": '="n=" & A1', "B8": '=IF(A2>A1, "up", "down")', "B9": "=ROUND(2.5)+ROUND(-2.5)",
                   "C1": "=SUM(A:A)", "C2": "=-A1%", "C3": "=ABS(-3)*PRODUCT(A1,A2)"})
    got = {k: ev.value(*parse_address(k)) for k in
           ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "C1", "C2", "C3")}
    assert got == {"B1": 12.5, "B2": 12.5 / 3, "B3": 8.5, "B4": 3.0, "B5": 2.5, "B6": 19.5, "B7": "n=4",
                   "B8": "up", "B9": 0.0, "C1": 12.5, "C2": -0.04, "C3": 72.0}


def test_formula_errors_are_values() -> None:
    ev = evaluate({"A1": 1.0, "A2": "word", "B1": "=A1/0", "B2": "=A1+A2", "B3": "=E1", "B4": "=SUM(A1:Z9)",
                   "B5": "=NOPE(1)", "B6": "=1+", "B7": "=B8", "B8": "=B7", "B9": "=B1*2", "C1": "=AVERAGE(D1:D3)"})
    errors = {k: ev.value(*parse_address(k)) for k in ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B9", "C1")}
    assert errors == {"B1": CellError("#DIV/0!"), "B2": CellError("#VALUE!"), "B3": CellError("#REF!"),
                      "B4": CellError("#REF!"), "B5": CellError("#NAME?"), "B6": CellError("#ERROR!"),
                      "B7": CellError("#REF!"), "B9": CellError("#DIV/0!"), "C1": CellError("#DIV/0!")}
    # hostile input stays cheap and never raises
    deep = evaluate({"A1": "=" + "(" * 500 + "1" + ")" * 500, "A2": "=" + "-" * 5000 + "1"})
    assert deep.value(0, 0) == CellError("#ERROR!") and isinstance(deep.value(1, 0), CellError | float)


def test_references_follow_inserted_and_deleted_rows() -> None:
    assert shift_formula("=SUM(B2:B5)+C3", "row", 2, 1) == "=SUM(B2:B6)+C4"
    assert shift_formula("=SUM(B2:B5)+C3", "row", 2, -1) == "=SUM(B2:B4)+#REF!"
    assert shift_formula("=B2*$C$2", "column", 1, -1) == "=#REF!*$B$2"
    t = Table(rows=5, columns=2, header_rows=1, header_columns=0)
    for r, v in enumerate(["Item", 3, 1, 2], start=0):
        t.set(r, 1, v)
    t.set(4, 1, Formula("=SUM(B2:B4)"))
    t.insert_rows(2)
    assert t.raw(5, 1) == Formula("=SUM(B2:B5)") and t.value(5, 1) == 6.0
    t.delete_rows(1)
    assert t.raw(4, 1) == Formula("=SUM(B2:B4)") and t.value(4, 1) == 3.0
    t.set(0, 0, Formula("=B2*2"))
    t.delete_rows(1)  # the row B2 pointed at is gone
    assert t.raw(0, 0) == Formula("=#REF!*2") and t.value(0, 0) == CellError("#REF!")


def test_sort_keeps_headers_and_moves_row_formulas() -> None:
    t = Table(name="T", rows=5, columns=3, header_rows=1, header_columns=0)
    for r, (name, qty, price) in enumerate([("pear", 2, 3), ("apple", 10, 1), ("fig", 5, 2)], start=1):
        t.enter(r, 0, name)
        t.enter(r, 1, str(qty))
        t.enter(r, 2, f"=B{r + 1}*{price}")
    t.enter(0, 0, "Fruit")
    t.sort(1, descending=True)
    assert [t.value(r, 0) for r in range(5)] == ["Fruit", "apple", "fig", "pear", None]
    assert [t.value(r, 2) for r in range(1, 4)] == [10.0, 10.0, 6.0]
    assert t.raw(1, 2) == Formula("=B2*1")
    t.sort(0)
    assert [t.value(r, 0) for r in range(1, 4)] == ["apple", "fig", "pear"]
    with pytest.raises(NumbersError, match="table 'T' has no column 9"):
        t.sort(8)


# ----------------------------------------------------------------------------------- GUI


def test_paper_example_blank_document_and_test_in_a1(b: SimBackend) -> None:
    blank_document(b)
    assert b.app("Numbers").documents[0].template == "Blank"
    b.type_text("test")
    assert value(b, "A1") == "missing value"  # still editing: not committed yet
    b.press("return")
    assert value(b, "A1") == "test"
    assert 'AXCell "Table 1 A2"' in b.accessibility_tree()  # Return moved the selection down


def test_grid_keys_move_like_a_spreadsheet(b: SimBackend) -> None:
    blank_document(b)
    for text in ("Item", "Cost"):
        b.type_text(text)
        b.press("tab")
    b.press("return")  # back to the column where tabbing started, one row down
    b.type_text("Rent")
    b.press("tab")
    b.type_text("1200")
    b.press("return")
    b.type_text("Food")
    b.press("tab")
    b.type_text("350.5")
    b.press("return")
    b.press("right")
    b.type_text("=SUM(B2:B3)")
    b.press("return")
    assert osa(b, f'{TELL}get value of cells 1 thru 2 of row 2 of {T1}') == "Rent, 1200.0"
    assert value(b, "B4") == "1550.5"
    assert osa(b, f'{TELL}get formula of cell "B4" of {T1}') == "=SUM(B2:B3)"
    # arrows and shift-arrows select; Delete clears the selection
    b.press("up")
    b.press("up")
    b.hotkey("shift", "up")
    assert osa(b, f'{TELL}get name of selection range of {T1}') == "B2:B3"
    b.press("backspace")
    assert value(b, "B4") == "0.0" and value(b, "B2") == "missing value"
    # Escape abandons an edit; option-Return edits the content in place
    b.type_text("99")
    b.press("esc")
    assert value(b, "B2") == "missing value"
    b.press("down")  # from B3 (typing collapsed the selection to its anchor) to B4
    b.hotkey("option", "return")
    b.press("backspace")
    b.press("backspace")
    b.type_text("2)*2")
    b.press("return")
    assert osa(b, f'{TELL}get formula of cell "B4" of {T1}') == "=SUM(B2:B2)*2"


def test_return_in_the_last_row_adds_a_row_and_clicks_select(b: SimBackend) -> None:
    blank_document(b)
    b.hotkey("command", "down")
    b.type_text("last")
    b.press("return")
    assert osa(b, f'{TELL}get row count of {T1}') == "23"
    x, y = find(b, "AXCell", "Table 1 A22")
    b.click(x + 96 * 2, y)  # C22, by its position right of A22
    b.type_text("7")
    b.press("tab")
    assert value(b, "C22") == "7.0"


def test_canvas_scrolls_to_the_selected_cell(b: SimBackend) -> None:
    blank_document(b)
    osa(b, f'{TELL}set column count of {T1} to 15')
    osa(b, f'{TELL}set row count of {T1} to 60')
    for _ in range(13):
        b.press("right")
    b.hotkey("command", "down")
    b.type_text("far")
    b.press("tab")
    assert value(b, "N60") == "far"
    win = b.app("Numbers").windows[0]
    cells = [e for e in elements(b) if e[0] == "AXCell" and e[1] == "Table 1 O60"]
    assert cells, "the selected cell O60 is not on screen"
    x, y, w, h = cells[0][3]
    assert win.x <= x and x + w <= win.x + win.w and win.y + 82 <= y and y + h <= win.y + win.h
    b.hotkey("command", "up")
    b.hotkey("command", "left")
    assert any(e[0] == "AXCell" and e[1] == "Table 1 A1" for e in elements(b))
    # the wheel scrolls the canvas, but not past the end of the last table
    osa(b, f'{TELL}set value of cell "B59" of {T1} to "deep"')
    b.scroll(-60, win.x + 400, win.y + 300)
    shown = [e[1] for e in elements(b) if e[0] == "AXCell"]
    assert "Table 1 B59" in shown and "Table 1 A1" not in shown
    assert win.state["scroll_y"] <= 60 * 22
    b.scroll(100, win.x + 400, win.y + 300)
    assert win.state["scroll_y"] == 0


def test_undo_redo_and_header_clicks(b: SimBackend) -> None:
    blank_document(b)
    for text in ("3", "4"):
        b.type_text(text)
        b.press("return")
    b.type_text("=SUM(A1:A2)")
    b.press("return")
    b.hotkey("command", "z")  # the formula goes
    assert value(b, "A3") == "missing value" and value(b, "A2") == "4.0"
    b.hotkey("command", "shift", "z")  # and comes back
    assert value(b, "A3") == "7.0"
    click(b, "AXMenuBarItem", "Edit")
    click(b, "AXMenuItem", "Undo")  # the Edit menu reaches the grid too
    assert value(b, "A3") == "missing value"
    # a column letter selects the column, a row number the row; Delete clears them (undoable)
    x, y = find(b, "AXCell", "Table 1 A1")
    b.click(x, y - 22)  # the letter A above A1
    assert osa(b, f'{TELL}get name of selection range of {T1}') == "A1:A22"
    b.press("backspace")
    assert value(b, "A1") == "missing value"
    b.hotkey("command", "z")
    assert value(b, "A1") == "3.0"
    b.click(x - 64, y + 22)  # the row number 2
    assert osa(b, f'{TELL}get name of selection range of {T1}') == "A2:G2"


def test_copy_and_paste_cells(b: SimBackend) -> None:
    blank_document(b)
    b.run_shell("printf 'a\\t1\\nb\\t2\\nc\\t3' | pbcopy")
    b.press("down")
    b.hotkey("command", "v")
    assert osa(b, f'{TELL}get value of cells of range "A2:B4" of {T1}') == "a, 1.0, b, 2.0, c, 3.0"
    b.hotkey("shift", "down")  # extend from the pasted block's anchor
    b.hotkey("command", "c")
    assert b.run_shell("pbpaste").stdout.startswith("a\t1")


def test_table_name_is_edited_in_place(b: SimBackend) -> None:
    blank_document(b)
    x, y = find(b, "AXStaticText", "Table 1")
    b.click(x, y, clicks=2)  # double-click selects the word under the pointer
    assert any(e[0] == "AXTextField" and e[1] == "Table Name" for e in elements(b))
    b.hotkey("command", "a")
    b.type_text("Expenses")
    b.press("return")
    assert osa(b, f'{TELL}get name of {T1}') == "Expenses"
    # without select-all the typed text lands inside the old name (the paper's "Tabatable" failure)
    x, y = find(b, "AXStaticText", "Expenses")
    b.click(x, y, clicks=2)
    b.press("right")
    b.type_text(" 2026")
    b.press("return")
    assert osa(b, f'{TELL}get name of {T1}') == "Expenses 2026"


def test_template_chooser_keys_and_sheets(b: SimBackend) -> None:
    b.open_app("Numbers")
    b.press("right")
    b.press("right")
    b.press("return")
    doc = b.app("Numbers").documents[0]
    assert doc.template == "Personal Budget" and [s.name for s in doc.sheets] == ["Budget", "Transactions"]
    assert osa(b, f'{TELL}get value of cell "B9" of {T1}') == "1980.0"
    click(b, "AXButton", "Add Sheet")
    assert osa(b, f'{TELL}get name of sheets of document 1') == "Budget, Transactions, Sheet 3"
    assert osa(b, f'{TELL}get name of active sheet of document 1') == "Sheet 3"
    click(b, "AXButton", "Table")  # the toolbar's Table button inserts a table on the active sheet
    assert osa(b, f'{TELL}get name of tables of sheet 3 of document 1') == "Table 1, Table 2"
    b.hotkey("command", "n")
    assert find(b, "AXButton", "Blank")
    b.press("esc")


def test_save_sheet_writes_numbers_and_reopens(b: SimBackend) -> None:
    blank_document(b)
    b.type_text("=6*7")
    b.press("return")
    b.hotkey("command", "s")
    b.hotkey("command", "a")
    b.type_text("answer")
    b.press("return")
    path = b.home / "Documents" / "answer.numbers"
    assert path.is_file()
    ctx = GetterContext(b)
    assert GETTERS["numbers_cells"](ctx, path="~/Documents/answer.numbers") == {"A1": 42.0}
    osa(b, f"{TELL}close document 1 saving no")
    assert b.app("Numbers").documents == []
    out = b.run_shell("open ~/Documents/answer.numbers")
    assert out.exit_code == 0
    assert value(b, "A1") == "42.0" and osa(b, f"{TELL}get name of document 1") == "answer"


def test_export_sheet_writes_csv(b: SimBackend) -> None:
    blank_document(b)
    b.type_text("name")
    b.press("tab")
    b.type_text("n")
    b.press("return")
    b.type_text("x")
    b.press("tab")
    b.type_text("5")
    b.press("return")
    numbers = b.app("Numbers")
    numbers.export_sheet(numbers.windows[0], "CSV")
    b.press("return")  # Next…
    b.hotkey("command", "a")
    b.type_text("out")
    click(b, "AXPopUpButton", "Where")
    click(b, "AXMenuItem", "Desktop")
    b.press("return")  # Export
    rows = list(csv.reader(io.StringIO((b.home / "Desktop" / "out.csv").read_text())))
    assert rows[:3] == [["name", "n", "", "", "", "", ""], ["x", "5", "", "", "", "", ""], [""] * 7]
    assert len(rows) == 22


# ----------------------------------------------------------------------------------- AppleScript


def test_applescript_values_are_typed(b: SimBackend) -> None:
    osa(b, f'{TELL}make new document with properties {{document template:template "Blank"}}')
    osa(b, f'''tell application "Numbers"
  tell {T1}
    set value of cell "A1" to "Item"
    set value of cell 2 of row 2 to 12
    set value of cell "B3" to "7.5"
    set value of cell "B4" to "=B2/B3"
    set value of cell "C2" to true
    set name to "Costs"
  end tell
end tell''')
    assert osa(b, f'{TELL}get class of value of cell "B2" of {T1}') == "real"
    assert osa(b, f'{TELL}get class of value of cell "A1" of {T1}') == "text"
    assert value(b, "C2") == "true" and value(b, "D9") == "missing value"
    assert osa(b, f'{TELL}get {{value, formatted value, formula}} of cell "B4" of {T1}') == "1.6, 1.6, =B2/B3"
    assert osa(b, f'{TELL}get {{name, row count, column count, header row count}} of table "Costs" of sheet 1 of '
                  'document 1') == "Costs, 22, 7, 1"
    assert osa(b, f'{TELL}get name of cell range of {T1}') == "A1:G22"
    assert osa(b, f'{TELL}get address of row of cell "C5" of {T1}') == "5"
    assert osa(b, f'{TELL}get name of (cells of {T1} whose value is not missing value)') == "A1, B2, C2, B3, B4"
    osa(b, f'{TELL}set row count of {T1} to 3')
    assert osa(b, f'{TELL}get row count of {T1}') == "3" and value(b, "B3") == "7.5"
    with pytest.raises(AppleScriptError, match=r"Can’t get cell \"B4\""):
        osa(b, f'{TELL}get value of cell "B4" of {T1}')


def test_applescript_structure_sort_and_export(b: SimBackend) -> None:
    osa(b, f'{TELL}make new document')
    osa(b, '''tell application "Numbers"
  tell document 1
    make new sheet with properties {name:"Data"}
    tell sheet "Data"
      delete table 1
      make new table with properties {name:"Scores", row count:4, column count:2, header column count:0}
      tell table "Scores"
        set value of cell "A1" to "who"
        set value of cell "B1" to "score"
        set value of cell "A2" to "ann"
        set value of cell "B2" to 5
        set value of cell "A3" to "bob"
        set value of cell "B3" to 9
        set value of cell "A4" to "cy"
        set value of cell "B4" to 7
        sort by column "B" direction descending
      end tell
    end tell
  end tell
end tell''')
    scores = 'table "Scores" of sheet "Data" of document 1'
    assert osa(b, f'{TELL}get value of cells 2 thru 4 of column "A" of {scores}') == "bob, cy, ann"
    osa(b, f'{TELL}add row below row 4 of {scores}')
    osa(b, f'{TELL}set value of cell "B5" of {scores} to "=SUM(B2:B4)"')
    osa(b, f'{TELL}add row above row 2 of {scores}')
    assert osa(b, f'{TELL}get formula of cell "B6" of {scores}') == "=SUM(B3:B5)"
    osa(b, f'{TELL}delete row 2 of {scores}')
    assert osa(b, f'{TELL}get value of cell "B5" of {scores}') == "21.0"
    osa(b, '''tell application "Numbers"
  set p to (path to desktop as text) & "scores.csv"
  export document 1 to file p as CSV
  export document 1 to POSIX file "/Users/user/Desktop/scores.xlsx" as Microsoft Excel
  export document 1 to POSIX file "/Users/user/Desktop/scores.pdf" as PDF
end tell''')
    # two tables (Sheet 1's and Data's): CSV export makes a folder with one file per table
    folder = b.home / "Desktop" / "scores"
    assert sorted(p.name for p in folder.iterdir()) == ["Data-Scores.csv", "Sheet 1-Table 1.csv"]
    assert (folder / "Data-Scores.csv").read_text().splitlines() == ["who,score", "bob,9", "cy,7", "ann,5", ",21"]
    ctx = GetterContext(b)
    assert GETTERS["xlsx_cells"](ctx, path="~/Desktop/scores.xlsx", sheet="Data") == {
        "A1": "who", "B1": "score", "A2": "bob", "B2": 9, "A3": "cy", "B3": 7, "A4": "ann", "B4": 5, "B5": 21}
    assert GETTERS["xlsx_cells"](ctx, path="~/Desktop/scores.xlsx", cells=["B5", "C9"], sheet=2) == {"B5": 21, "C9": None}
    from pypdf import PdfReader

    text = "\n".join(p.extract_text() for p in PdfReader(str(b.home / "Desktop" / "scores.pdf")).pages)
    assert "Scores" in text and "bob" in text and "21" in text


def test_applescript_save_close_open_and_csv_import(b: SimBackend) -> None:
    (b.home / "Downloads" / "sales.csv").write_text("region,amount\nnorth,120\nsouth,80.5\n")
    assert b.run_shell("open -a Numbers ~/Downloads/sales.csv").exit_code == 0
    assert osa(b, f'{TELL}get {{name of document 1, name of {T1}}}') == "sales, sales"
    assert osa(b, f'{TELL}get value of cells of column 2 of {T1}') == "amount, 120.0, 80.5"
    assert osa(b, f'{TELL}get header row count of {T1}') == "1"
    osa(b, f'{TELL}save document 1 in POSIX file "/Users/user/Documents/sales.numbers"')
    assert osa(b, f'{TELL}get modified of document 1') == "false"
    osa(b, f'{TELL}set value of cell "B2" of {T1} to 1')
    assert osa(b, f'{TELL}get modified of document 1') == "true"
    osa(b, f'{TELL}close document 1 saving no')
    osa(b, f'{TELL}open POSIX file "/Users/user/Documents/sales.numbers"')
    assert value(b, "B2") == "120.0"
    osa(b, f'{TELL}close every document saving no')
    assert osa(b, f'{TELL}count documents') == "0"


def test_excel_and_tsv_round_trip(b: SimBackend) -> None:
    osa(b, f'{TELL}make new document with properties {{document template:template "Simple Budget"}}')
    osa(b, f'{TELL}export document 1 to POSIX file "/Users/user/Documents/budget.xlsx" as Microsoft Excel')
    osa(b, f'{TELL}close document 1 saving no')
    assert b.run_shell("open -a Numbers ~/Documents/budget.xlsx").exit_code == 0
    # a worksheet becomes a sheet; formulas arrive as their values (the export wrote values)
    assert osa(b, f'{TELL}get name of sheets of document 1') == "Sheet 1"
    assert osa(b, f'{TELL}get {{value, formula}} of cell "B5" of {T1}') == "1640.0, missing value"
    (b.home / "Documents" / "pets.tsv").write_text("pet\tage\ncat\t4\n")
    assert b.run_shell("open -a Numbers ~/Documents/pets.tsv").exit_code == 0
    assert osa(b, f'{TELL}get value of cells of row 2 of {T1}') == "cat, 4.0"


def test_bad_input_errors_name_the_problem(b: SimBackend, tmp_path: Path) -> None:
    osa(b, f'{TELL}make new document')
    cases = [
        (f'{TELL}make new document with properties {{document template:template "Fancy"}}', r"Can’t get template"),
        (f'{TELL}get value of cell "Z99" of {T1}', r"Can’t get cell \"Z99\""),
        (f'{TELL}set row count of {T1} to 0', r"row count must be 1…1000, got 0"),
        (f'{TELL}export document 1 to POSIX file "/Users/user/Desktop/x.key" as "Keynote"',
         r"Numbers exports as CSV, Microsoft Excel, PDF"),
        (f'{TELL}save document 1', r"has never been saved"),
        (f"{TELL}tell {T1} to sort by column \"Q\"", r"Can’t get column \"Q\" of table 1"),
        (f'{TELL}open POSIX file "/Users/user/Documents/none.numbers"', r"no such file"),
        (f'{TELL}get value of cell "A1" of table 1 of sheet 1 of document 4', r"Can’t get document 4"),
        (f'{TELL}set name of {T1} to ""', r"table name can’t be empty"),
    ]
    for script, pattern in cases:
        with pytest.raises(AppleScriptError, match=pattern):
            osa(b, script)
    # a corrupt .numbers file: open fails with the file's name; the getter says what is wrong
    (b.home / "Documents" / "broken.numbers").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(AppleScriptError, match=r"broken.numbers: not an iWork document"):
        osa(b, f'{TELL}open POSIX file "/Users/user/Documents/broken.numbers"')
    with pytest.raises(GetterError, match=r"broken.numbers: not an iWork document"):
        GETTERS["numbers_cells"](GetterContext(b), path="~/Documents/broken.numbers")
    assert GETTERS["numbers_cells"](GetterContext(b), path="~/Documents/missing.numbers") is None
    (b.home / "Documents" / "bad.xlsx").write_text("nope")
    with pytest.raises(GetterError, match=r"bad.xlsx is not a readable Excel workbook"):
        GETTERS["xlsx_cells"](GetterContext(b), path="~/Documents/bad.xlsx")
    out = b.run_shell("open ~/Documents/broken.numbers")  # from the shell: an alert, as in Numbers
    assert out.exit_code == 0 and any(e[0] == "AXStaticText" and "couldn’t be opened" in e[1] for e in elements(b))
    b.press("return")
    # Numbers is still usable after every error
    assert osa(b, f'{TELL}count documents') == "1"


def test_state_and_icon(b: SimBackend) -> None:
    osa(b, f'{TELL}make new document with properties {{document template:template "Simple Budget"}}')
    st = b.app("Numbers").state()
    table = st["documents"][0]["sheets"][0]["tables"][0]
    assert table["name"] == "Expenses" and table["values"]["B5"] == 1640.0
    assert table["formulas"] == {"B5": "=SUM(B2:B4)"}
    # ids are the app's own (1, 2, … per episode), whatever ran before in the process
    assert osa(b, f'{TELL}get {{id of sheet 1 of document 1, id of {T1}}}') == "1, 2"
    icon = b.app("Numbers").draw_icon(64)
    assert icon.size == (64, 64) and icon.getpixel((32, 10))[1] > 150  # green plate
