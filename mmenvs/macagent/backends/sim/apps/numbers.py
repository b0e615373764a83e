"""Numbers: spreadsheets of sheets and tables. Launching (or File > New) shows the template chooser;
a document window has sheet tabs and a canvas of tables whose cells are selected by click, arrows,
Tab and Return and edited by typing (``=`` starts a formula); table names are edited in place.
File > Save writes ``.numbers`` (the shared iWork format), File > Export To writes CSV, Excel and PDF,
and ``open -a Numbers data.csv`` imports a CSV. AppleScript follows Numbers' dictionary:
documents → sheets → tables → rows/columns/cells/ranges, ``value``/``formula``/``formatted value``,
``make new document with properties {document template: template "Blank"}``, ``sort``, ``export``,
``save``/``close``/``open``.

The model and file formats live in :mod:`.numbers_model` (its tables in
:mod:`mmenvs.macagent.formats.numbers_tables`), the formula language in :mod:`mmenvs.macagent.formats.numbers_formulas`."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmenvs.macagent.formats.numbers_formulas import (CellError, Formula, address, column_index, column_name, display,
                                                     input_text, parse_address, parse_input, parse_range, range_name)

from ....applescript.errors import ERR_APP_GENERIC, ERR_NO_SUCH_OBJECT, AppleScriptError
from ....applescript.model import STANDARD_COMMANDS, ObjectRef, ScriptableAppBase, Terminology
from ....applescript.values import Constant, FileRef, coerce, hfs_to_posix, source_form
from ..menus import MenuItem, sep
from ..scripting import path_text, set_window_bounds, window_bounds
from ..theme import font, text_width
from ..widgets import Box, Button, Custom, Editor, Label, MouseEvent, Segmented, TextField, Widget
from ..window import Window, alert, text_prompt
from . import iwork
from .documents import DocumentApp
from . import file_panels
from .file_panels import with_suffix
from .home_io import file_alert
from .numbers_model import (EXPORT_FORMATS, TEMPLATES, Document, NumbersError, Sheet, Table, cells_record, export,
                            import_csv, import_xlsx, new_table_name, read_numbers, write_numbers)

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop

LOCATIONS = ("Documents", "Desktop", "Downloads", "Home")  # the order of Numbers' Where pop-ups
IMPORT_SUFFIXES = frozenset({".csv", ".tsv", ".xlsx"})
CELL_W, CELL_H, GUTTER, HEAD_H = 96, 22, 34, 20  # grid geometry (px)
NAME_H = 26  # the table name above each table
TABLE_GAP = 30


def _bad(msg: str) -> AppleScriptError:
    return AppleScriptError(msg, ERR_APP_GENERIC)


# ===================================================================================== scripting


class NumbersScripting(ScriptableAppBase):
    """Numbers' dictionary. Ids: document → int, sheet/table → int, template → name; rows, columns,
    cells and ranges → ``"<table id>:…"`` strings (positional, like Numbers' own references)."""

    def __init__(self, app: "NumbersApp") -> None:
        self.app = app
        self.name = "Numbers"
        cmds = dict(STANDARD_COMMANDS)
        cmds.update({"export": ("to", "as", "with properties"), "sort": ("by", "direction", "in rows"),
                     "clear": (), "merge": (), "unmerge": (), "add row above": (), "add row below": (), "add column before": (),
                     "add column after": (), "open": ("with properties",)})
        self.terminology = Terminology(
            classes={"document": "documents", "sheet": "sheets", "table": "tables", "cell": "cells",
                     "row": "rows", "column": "columns", "range": "ranges", "template": "templates",
                     "window": "windows"},
            properties=frozenset({"name", "id", "modified", "file", "active sheet", "document template", "value",
                                  "formatted value", "formula", "row count", "column count", "header row count",
                                  "header column count", "footer row count", "cell range", "selection range",
                                  "address", "height", "width", "row", "column", "frontmost", "version", "index",
                                  "document", "bounds", "properties", "background color", "row span",
                                  "column span", "text color"}),
            commands=cmds,
            constants=frozenset({"CSV", "Microsoft Excel", "PDF", "Numbers 09", "ascending", "descending"}))

    # ---------------------------------------------------------------- resolving handles
    def _doc(self, obj: ObjectRef) -> Document:
        for d in self.app.documents:
            if d.id == obj.id:
                return d
        raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def _sheet(self, obj: ObjectRef) -> tuple[Document, Sheet]:
        for d in self.app.documents:
            for s in d.sheets:
                if s.id == obj.id:
                    return d, s
        raise AppleScriptError("Can’t get sheet: it no longer exists.", ERR_NO_SUCH_OBJECT)

    def _table(self, tid: int) -> tuple[Document, Sheet, Table]:
        for d in self.app.documents:
            found = d.find_table(tid)
            if found is not None:
                return d, found[0], found[1]
        raise AppleScriptError("Can’t get table: it no longer exists.", ERR_NO_SUCH_OBJECT)

    @staticmethod
    def _parts(obj: ObjectRef) -> list[str]:
        return str(obj.id).split(":")

    def _area(self, obj: ObjectRef) -> tuple[Document, Table, int, int, int, int]:
        """(document, table, top, left, bottom, right) of a cell, row, column or range handle."""
        p = self._parts(obj)
        d, _, t = self._table(int(p[0]))
        if obj.cls == "cell":
            top = bottom = int(p[1])
            left = right = int(p[2])
        elif obj.cls == "row":
            top = bottom = int(p[1])
            left, right = 0, t.columns - 1
        elif obj.cls == "column":
            left = right = int(p[1])
            top, bottom = 0, t.rows - 1
        else:
            top, left, bottom, right = (int(x) for x in p[1:5])
        if bottom >= t.rows or right >= t.columns:
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        return d, t, top, left, bottom, right

    def _cell_ref(self, tid: int, r: int, c: int) -> ObjectRef:
        return ObjectRef("cell", f"{tid}:{r}:{c}")

    def _range_ref(self, tid: int, top: int, left: int, bottom: int, right: int) -> ObjectRef:
        return ObjectRef("range", f"{tid}:{top}:{left}:{bottom}:{right}")

    def describe(self, obj: ObjectRef) -> str:
        try:
            if obj.cls == "document":
                return f'document "{self._doc(obj).name}" of application "Numbers"'
            if obj.cls == "template":
                return f'template "{obj.id}" of application "Numbers"'
            if obj.cls == "sheet":
                d, s = self._sheet(obj)
                return f'sheet "{s.name}" of document "{d.name}" of application "Numbers"'
            if obj.cls == "table":
                d, s, t = self._table(int(obj.id))
                return f'table "{t.name}" of sheet "{s.name}" of document "{d.name}" of application "Numbers"'
            if obj.cls in ("cell", "row", "column", "range"):
                p = self._parts(obj)
                d, s, t = self._table(int(p[0]))
                where = f'table "{t.name}" of sheet "{s.name}" of document "{d.name}" of application "Numbers"'
                if obj.cls == "cell":
                    return f'cell "{address(int(p[1]), int(p[2]))}" of {where}'
                if obj.cls == "row":
                    return f'row "{int(p[1]) + 1}" of {where}'
                if obj.cls == "column":
                    return f'column "{column_name(int(p[1]))}" of {where}'
                return f'range "{range_name(*(int(x) for x in p[1:5]))}" of {where}'
        except AppleScriptError:
            pass
        return super().describe(obj)

    # ---------------------------------------------------------------- elements
    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None:
            if cls == "document":
                return [ObjectRef("document", d.id) for d in self.app.documents_front_first()]
            if cls == "template":
                return [ObjectRef("template", n) for n in TEMPLATES]
            if cls == "window":
                return [ObjectRef("window", w.id) for w in self.app.windows if w.doc is not None]
            if cls in ("sheet", "table"):  # outside a document: those of the front document
                front = self.app.front_document()
                if front is None:
                    raise AppleScriptError(f"Can’t get every {cls}.", ERR_NO_SUCH_OBJECT)
                return self.elements(ObjectRef("document", front.id), cls)
        elif container.cls == "document":
            d = self._doc(container)
            if cls == "sheet":
                return [ObjectRef("sheet", s.id) for s in d.sheets]
        elif container.cls == "sheet":
            _, s = self._sheet(container)
            if cls == "table":
                return [ObjectRef("table", t.id) for t in s.tables]
        elif container.cls in ("table", "row", "column", "range"):
            if container.cls == "table":
                _, _, t = self._table(int(container.id))
                tid, top, left, bottom, right = t.id, 0, 0, t.rows - 1, t.columns - 1
            else:
                _, t, top, left, bottom, right = self._area(container)
                tid = t.id
            if cls == "cell":
                return [self._cell_ref(tid, r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)]
            if cls == "row" and container.cls in ("table", "range"):
                return [ObjectRef("row", f"{tid}:{r}") for r in range(top, bottom + 1)]
            if cls == "column" and container.cls in ("table", "range"):
                return [ObjectRef("column", f"{tid}:{c}") for c in range(left, right + 1)]
        return super().elements(container, cls)

    def element_by_name(self, container: ObjectRef | None, cls: str, name: Any) -> ObjectRef | None:
        """``cell "B3"``, ``range "A1:C4"``, ``column "B"``, ``row "3"`` of a table, without listing every cell."""
        if container is None and cls == "file":
            # ``export … to file "Macintosh HD:Users:…"`` / ``file p``: a file reference, existing or not
            return ObjectRef("file", hfs_to_posix(coerce(name, "text")))
        if container is None or container.cls != "table" or cls not in ("cell", "range", "column", "row"):
            return None
        _, _, t = self._table(int(container.id))
        text = coerce(name, "text") if not isinstance(name, str) else name
        try:
            if cls == "cell":
                r, c = parse_address(text)
                return self._cell_ref(t.id, r, c) if r < t.rows and c < t.columns else None
            if cls == "range":
                top, left, bottom, right = parse_range(text)
                return self._range_ref(t.id, top, left, bottom, right) if bottom < t.rows and right < t.columns else None
            if cls == "column":
                c = column_index(text.strip())
                return ObjectRef("column", f"{t.id}:{c}") if c < t.columns else None
            r = int(text.strip()) - 1
            return ObjectRef("row", f"{t.id}:{r}") if 0 <= r < t.rows else None
        except ValueError:
            return None

    # ---------------------------------------------------------------- properties
    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None:
            if prop == "version":
                return "14.4"
            return super().get_property(obj, prop)
        cls = obj.cls
        if cls == "template":
            if obj.id not in TEMPLATES:
                raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
            if prop in ("name", "id"):
                return obj.id
        elif cls == "window":
            w = self._window(obj)
            if prop == "name":
                return w.title
            if prop == "document":
                return ObjectRef("document", w.doc.id)
            if prop == "id":
                return w.id
            if prop == "bounds":
                return window_bounds(w)
        elif cls == "document":
            d = self._doc(obj)
            if prop == "name":
                return d.name
            if prop == "id":
                return d.id
            if prop == "modified":
                return d.modified
            if prop == "file":
                return FileRef(self.app.desktop.backend.posix_path(d.path)) if d.path is not None else None
            if prop == "active sheet":
                return ObjectRef("sheet", d.sheet.id)
            if prop == "document template":
                return ObjectRef("template", d.template if d.template in TEMPLATES else "Blank")
        elif cls == "sheet":
            _, s = self._sheet(obj)
            if prop == "name":
                return s.name
            if prop == "id":
                return s.id
        elif cls == "table":
            d, s, t = self._table(int(obj.id))
            simple = {"name": t.name, "id": t.id, "row count": t.rows, "column count": t.columns,
                      "header row count": t.header_rows, "header column count": t.header_columns,
                      "footer row count": t.footer_rows}
            if prop in simple:
                return simple[prop]
            if prop == "cell range":
                return self._range_ref(t.id, 0, 0, t.rows - 1, t.columns - 1)
            if prop == "selection range":
                sel = self.app.selection_of(t)
                return None if sel is None else self._range_ref(t.id, *sel)
            if prop == "properties":
                return {"class": Constant("table"), "name": t.name, "row count": t.rows, "column count": t.columns,
                        "header row count": t.header_rows, "header column count": t.header_columns,
                        "footer row count": t.footer_rows}
        elif cls in ("cell", "row", "column", "range"):
            d, t, top, left, bottom, right = self._area(obj)
            if cls == "cell":  # a cell inside a merged region is that region's (top-left) cell
                top, left = bottom, right = t.master(top, left)
                m = t.merge_at(top, left)
                if prop in ("row span", "column span"):
                    return 1 if m is None else (m[2] - m[0] + 1 if prop == "row span" else m[3] - m[1] + 1)
                if prop == "background color":
                    fill = t.backgrounds.get((top, left))
                    return None if fill is None else list(fill)
            if prop == "name":
                if cls == "cell":
                    return address(top, left)
                if cls == "row":
                    return str(top + 1)
                if cls == "column":
                    return column_name(left)
                return range_name(top, left, bottom, right)
            if cls == "cell":
                if prop == "value":
                    v = t.value(top, left)
                    return v.code if isinstance(v, CellError) else v
                if prop == "formatted value":
                    return t.text(top, left)
                if prop == "formula":
                    raw = t.raw(top, left)
                    return raw.text if isinstance(raw, Formula) else None
                if prop == "row":
                    return ObjectRef("row", f"{t.id}:{top}")
                if prop == "column":
                    return ObjectRef("column", f"{t.id}:{left}")
                if prop == "properties":
                    v = t.value(top, left)
                    raw = t.raw(top, left)
                    return {"class": Constant("cell"), "name": address(top, left),
                            "value": v.code if isinstance(v, CellError) else v,
                            "formatted value": t.text(top, left),
                            "formula": raw.text if isinstance(raw, Formula) else None}
            if cls in ("row", "column") and prop == "address":
                return (top if cls == "row" else left) + 1
            if cls == "row" and prop == "height":
                return float(CELL_H)
            if cls == "column" and prop == "width":
                return float(CELL_W)
        return super().get_property(obj, prop)

    def _window(self, obj: ObjectRef) -> Window:
        for w in self.app.windows:
            if w.id == obj.id:
                return w
        raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is None:
            return super().set_property(obj, prop, value)
        if obj.cls == "window" and prop == "bounds":
            set_window_bounds(self._window(obj), value, self.describe(obj))
            return
        try:
            if obj.cls == "document" and prop == "active sheet":
                d = self._doc(obj)
                ref = value if isinstance(value, ObjectRef) else None
                sheets = [s.id for s in d.sheets]
                if ref is None or ref.cls != "sheet" or ref.id not in sheets:
                    raise _bad(f"Can’t set active sheet of {self.describe(obj)}: expected one of its sheets.")
                d.active_sheet = sheets.index(ref.id)
                self.app.changed(d, modified=False)
                return
            if obj.cls == "sheet" and prop == "name":
                d, s = self._sheet(obj)
                name = coerce(value, "text").strip()
                if not name or any(x.name == name for x in d.sheets if x is not s):
                    raise _bad(f"Can’t set name of {self.describe(obj)} to {name!r}: sheet names must be non-empty and unique.")
                s.name = name
                self.app.changed(d)
                return
            if obj.cls == "table":
                d, s, t = self._table(int(obj.id))
                if prop == "name":
                    name = coerce(value, "text").strip()
                    if not name:
                        raise _bad("A table name can’t be empty.")
                    t.name = name
                elif prop in ("row count", "column count"):
                    n = coerce(value, "integer")
                    t.resize(rows=n) if prop == "row count" else t.resize(columns=n)
                elif prop in ("header row count", "header column count", "footer row count"):
                    n = coerce(value, "integer")
                    t.set_headers(**{{"header row count": "header_rows", "header column count": "header_columns",
                                      "footer row count": "footer_rows"}[prop]: n})
                elif prop == "selection range":
                    ref = value if isinstance(value, ObjectRef) else None
                    if ref is None or ref.cls not in ("cell", "range", "row", "column"):
                        raise _bad("Can’t set selection range: expected a cell or a range of the table.")
                    _, t2, top, left, bottom, right = self._area(ref)
                    if t2 is not t:
                        raise _bad("Can’t set selection range to a range of another table.")
                    self.app.select(d, t, top, left, bottom, right)
                    return
                else:
                    return super().set_property(obj, prop, value)
                self.app.changed(d)
                return
            if obj.cls == "cell" and prop == "value":
                d, t, r, c, _, _ = self._area(obj)
                t.set(*t.master(r, c), _script_content(value))
                self.app.changed(d)
                return
            if obj.cls in ("cell", "row", "column", "range") and prop == "background color":
                d, t, top, left, bottom, right = self._area(obj)
                if value is None:
                    rgb = None
                elif (isinstance(value, list) and len(value) == 3 and all(
                        isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 65535 for x in value)):
                    rgb = (int(value[0]), int(value[1]), int(value[2]))
                else:
                    raise _bad(f"Can’t make {source_form(value)[:100]} into type RGB color: a color is {{red, green, blue}}, "
                               "each 0 to 65535.")
                if obj.cls == "cell":
                    top, left = t.master(top, left)
                    m = t.merge_at(top, left)
                    bottom, right = (m[2], m[3]) if m is not None else (top, left)
                t.set_background(top, left, bottom, right, rgb)
                self.app.changed(d)
                return
        except NumbersError as e:
            raise _bad(str(e)) from None
        super().set_property(obj, prop, value)

    # ---------------------------------------------------------------- make / delete
    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        try:
            if cls == "document":
                tpl = properties.get("document template")
                name = tpl.id if isinstance(tpl, ObjectRef) and tpl.cls == "template" else \
                    (coerce(tpl, "text") if tpl is not None else "Blank")
                if name not in TEMPLATES:
                    raise _bad(f"Can’t get template \"{name}\". The simulator has: {', '.join(TEMPLATES)}.")
                doc = self.app.new_document(name)
                if properties.get("name"):
                    doc.name = coerce(properties["name"], "text")
                return ObjectRef("document", doc.id)
            if cls == "sheet":
                d = self._doc(at) if at is not None and at.cls == "document" else self.app.front_document()
                if d is None:
                    raise _bad("Can’t make a sheet: no document is open.")
                name = coerce(properties["name"], "text") if "name" in properties else d.new_sheet_name()
                if any(s.name == name for s in d.sheets):
                    raise _bad(f"Can’t make sheet {name!r}: document \"{d.name}\" already has a sheet with that name.")
                s = Sheet(name, [Table()])
                d.sheets.append(s)
                d.active_sheet = len(d.sheets) - 1
                self.app.changed(d)
                return ObjectRef("sheet", s.id)
            if cls == "table":
                if at is not None and at.cls == "sheet":
                    d, s = self._sheet(at)
                elif at is not None and at.cls == "document":
                    d = self._doc(at)
                    s = d.sheet
                else:
                    front = self.app.front_document()
                    if front is None:
                        raise _bad("Can’t make a table: no document is open.")
                    d, s = front, front.sheet
                t = Table(name=coerce(properties["name"], "text") if "name" in properties else new_table_name(s),
                          rows=coerce(properties.get("row count", 5), "integer"),
                          columns=coerce(properties.get("column count", 5), "integer"))
                t.set_headers(coerce(properties.get("header row count", min(1, t.rows)), "integer"),
                              coerce(properties.get("header column count", min(1, t.columns)), "integer"),
                              coerce(properties.get("footer row count", 0), "integer"))
                s.tables.append(t)
                self.app.changed(d)
                return ObjectRef("table", t.id)
        except NumbersError as e:
            raise _bad(str(e)) from None
        raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)

    def delete(self, obj: ObjectRef) -> None:
        try:
            if obj.cls == "sheet":
                d, s = self._sheet(obj)
                if len(d.sheets) == 1:
                    raise _bad("Can’t delete the only sheet of a document.")
                d.sheets.remove(s)
                self.app.changed(d)
                return
            if obj.cls == "table":
                d, s, t = self._table(int(obj.id))
                s.tables.remove(t)
                self.app.changed(d)
                return
            if obj.cls in ("row", "column"):
                d, t, top, left, _, _ = self._area(obj)
                t.delete_rows(top) if obj.cls == "row" else t.delete_columns(left)
                self.app.changed(d)
                return
        except NumbersError as e:
            raise _bad(str(e)) from None
        super().delete(obj)

    # ---------------------------------------------------------------- commands
    def _direct_doc(self, direct: Any) -> Document:
        if direct is None:
            d = self.app.front_document()
            if d is None:
                raise AppleScriptError("Can’t get document 1.", ERR_NO_SUCH_OBJECT)
            return d
        ref = _ref(direct)
        if ref.cls == "window":
            return self._window(ref).doc
        if ref.cls != "document":
            raise _bad(f"Expected a document but got {self.describe(ref)}.")
        return self._doc(ref)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        app = self.app
        try:
            if name == "open":
                items = direct if isinstance(direct, list) else [direct]
                out = []
                for it in items:
                    path = app.desktop.backend.host_path(_path_text(it))
                    if not app.desktop.home_files.exists(path):
                        raise AppleScriptError(f"The file “{path.name}” couldn’t be opened because there is no such file.", -43)
                    out.append(ObjectRef("document", app.load_file(path).id))
                return out[0] if len(out) == 1 else out
            if name == "save":
                doc = self._direct_doc(direct)
                target = params.get("in")
                path = app.desktop.backend.host_path(_path_text(target)) if target is not None else doc.path
                if path is None:
                    raise _bad(f"The document “{doc.name}” has never been saved; give a file with “in”.")
                app.write(doc, path)
                return None
            if name == "close":
                items = direct if isinstance(direct, list) else [direct]
                saving = params.get("saving")
                saving_name = saving.name.lower() if isinstance(saving, Constant) else ("yes" if saving is True else
                                                                                       "no" if saving is False else "ask")
                for it in items:
                    doc = self._direct_doc(it)
                    if "saving in" in params:
                        app.write(doc, app.desktop.backend.host_path(_path_text(params["saving in"])))
                    elif saving_name == "yes" and doc.modified:
                        if doc.path is None:
                            raise _bad(f"The document “{doc.name}” has never been saved; use “saving in”.")
                        app.write(doc, doc.path)
                    elif saving_name == "ask" and doc.modified:
                        win = app.window_of(doc)
                        if win is not None:
                            app.request_close(win)
                            continue
                    app.close_document(doc)
                return None
            if name == "export":
                doc = self._direct_doc(direct)
                target = params.get("to")
                if target is None:
                    raise AppleScriptError("Some parameter is missing for export: to.", -1701)
                fmt = params.get("as")
                fmt_name = fmt.name if isinstance(fmt, Constant) else (coerce(fmt, "text") if fmt is not None else None)
                match = [k for k in EXPORT_FORMATS if fmt_name is not None and k.lower() == fmt_name.lower()]
                if not match:
                    raise _bad(f"Can’t export as {fmt_name or 'nothing'}: Numbers exports as "
                               f"{', '.join(EXPORT_FORMATS)}.")
                path = app.desktop.backend.host_path(_path_text(target))
                app.export(doc, path, match[0])
                return None
            if name == "sort":
                return self._sort(direct, params)
            if name in ("merge", "unmerge"):
                for it in (direct if isinstance(direct, list) else [direct]):
                    d, t, top, left, bottom, right = self._area(_ref(it))
                    if name == "merge":
                        t.merge(top, left, bottom, right)
                    else:
                        t.unmerge(top, left, bottom, right)
                    app.changed(d)
                return None
            if name == "clear":
                for it in (direct if isinstance(direct, list) else [direct]):
                    d, t, top, left, bottom, right = self._area(_ref(it))
                    for r in range(top, bottom + 1):
                        for c in range(left, right + 1):
                            t.set(r, c, None)
                    app.changed(d)
                return None
            if name in ("add row above", "add row below", "add column before", "add column after"):
                ref = _ref(direct)
                d, t, top, left, _, _ = self._area(ref)
                if name.startswith("add row"):
                    if ref.cls not in ("row", "cell"):
                        raise _bad(f"{name} needs a row, got {self.describe(ref)}.")
                    at = top + (1 if name.endswith("below") else 0)
                    t.insert_rows(at)
                    app.changed(d)
                    return ObjectRef("row", f"{t.id}:{at}")
                if ref.cls not in ("column", "cell"):
                    raise _bad(f"{name} needs a column, got {self.describe(ref)}.")
                at = left + (1 if name.endswith("after") else 0)
                t.insert_columns(at)
                app.changed(d)
                return ObjectRef("column", f"{t.id}:{at}")
        except NumbersError as e:
            raise _bad(str(e)) from None
        except iwork.IWorkFileError as e:
            raise _bad(str(e)) from None
        return super().command(name, direct, params)

    def _sort(self, direct: Any, params: dict[str, Any]) -> None:
        ref = _ref(direct)
        if ref.cls == "table":
            d, _, t = self._table(int(ref.id))
            rows = None
        elif ref.cls in ("range", "row", "column", "cell"):
            d, t, top, _, bottom, _ = self._area(ref)
            rows = range(top, bottom + 1) if bottom > top else None
        else:
            raise _bad(f"Can’t sort {self.describe(ref)}: expected a table or a range.")
        by = params.get("by")
        if by is None:
            raise AppleScriptError("Some parameter is missing for sort: by.", -1701)
        if isinstance(by, ObjectRef):
            _, t2, _, left, _, _ = self._area(by)
            if t2 is not t:
                raise _bad("Can’t sort by a column of another table.")
            col = left
        else:
            text = coerce(by, "text")
            col = column_index(text) if text.isalpha() else coerce(by, "integer") - 1
        direction = params.get("direction")
        desc = isinstance(direction, Constant) and direction.name.lower() == "descending"
        if "in rows" in params:
            _, t3, top, _, bottom, _ = self._area(_ref(params["in rows"]))
            rows = range(top, bottom + 1)
        t.sort(col, desc, rows)
        self.app.changed(d)


def _path_text(value: Any) -> str:
    """A script's file value (``file "…"`` of Numbers, ``POSIX file``, an alias, a path) as a POSIX path."""
    ref = value if isinstance(value, ObjectRef) else getattr(value, "ref", None)
    if isinstance(ref, ObjectRef) and ref.cls == "file":
        return str(ref.id)
    return path_text(value)


def _ref(value: Any) -> ObjectRef:
    if isinstance(value, ObjectRef):
        return value
    obj = getattr(value, "ref", None)
    if isinstance(obj, ObjectRef):
        return obj
    raise AppleScriptError(f"Can’t make {value!r} into a Numbers object.", -1700)


def _script_content(value: Any) -> Any:
    """What ``set value of cell … to x`` stores: text is read as typed (numbers, ``=`` formulas)."""
    if value is None:
        return None
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return parse_input(value)
    if isinstance(value, list):
        raise _bad(f"Can’t make {value!r} into a cell value (a number, text or true/false).")
    return parse_input(coerce(value, "text"))


# ===================================================================================== grid widget


class CellEditor(TextField):
    """The text field over a cell being edited: Return/Tab commit and move like a spreadsheet,
    Escape cancels, up/down commit and move."""

    def __init__(self, key: str, rect: Any, editor: Editor, grid_app: "NumbersApp", **kw: Any) -> None:
        super().__init__(key, rect, editor, **kw)
        self.grid_app = grid_app

    def key_event(self, win: Window, key: str, mods: frozenset) -> bool:
        a = self.grid_app
        if key in ("return", "enter") and not (mods - {"shift"}):
            a.commit_edit(win, move=(-1 if "shift" in mods else 1, 0), from_return=True)
            return True
        if key == "tab" and not (mods - {"shift"}):
            a.commit_edit(win, move=(0, -1 if "shift" in mods else 1))
            return True
        if key in ("up", "down") and not mods and win.state.get("edit") == "cell":
            a.commit_edit(win, move=(-1 if key == "up" else 1, 0))
            return True
        if key in ("esc", "escape"):
            a.cancel_edit(win)
            return True
        return super().key_event(win, key, mods)


class SheetGrid(Widget):
    """The canvas of the active sheet: every table with its name, column letters and row numbers;
    selection (click, shift-click, arrows, Tab, Return), typing starts editing, Delete clears."""

    role = "AXTable"
    focusable = True

    def __init__(self, key: str, rect: Any, app: "NumbersApp", win: Window) -> None:
        super().__init__(key, rect, name="Sheet")
        self.app, self.owner = app, win
        self.layouts = app.table_layouts(win)

    # events --------------------------------------------------------------------------------
    def mouse_down(self, win: Window, ev: MouseEvent) -> None:
        self.app.grid_click(win, self.layouts, ev)

    def key_event(self, win: Window, key: str, mods: frozenset) -> bool:
        return self.app.grid_key(win, key, mods)

    def text(self, win: Window, s: str) -> bool:
        return self.app.grid_type(win, s)

    def scroll(self, win: Window, dy: int) -> bool:
        sy = win.state.get("scroll_y", 0)
        # the last table's bottom may come up to the middle of the canvas, no further
        last = self.layouts[-1] if self.layouts else None
        bottom = (last["gy"] + last["table"].rows * CELL_H + sy) if last else 0
        limit = max(0, bottom - (self.rect[1] + self.rect[3] // 2))
        win.state["scroll_y"] = max(0, min(limit, sy - dy * CELL_H))
        return True

    # drawing --------------------------------------------------------------------------------
    def draw(self, d: Any, theme: Any, focused: bool) -> None:
        self.app.draw_grid(d, theme, self.owner, self.rect, self.layouts, focused)

    def value(self) -> str | None:
        sel = self.owner.state.get("sel")
        if not sel:
            return None
        found = self.owner.doc.find_table(sel[0])
        if found is None:
            return None
        return f"{found[1].name}!{address(sel[1], sel[2])}"

    def a11y_children(self) -> list[tuple[str, str, str | None, Any, str]]:
        out = []
        x0, y0, w, h = self.rect
        sel = self.owner.state.get("sel") or [None, -1, -1, -1, -1]
        for lay in self.layouts:
            t = lay["table"]
            nx, ny = lay["x"], lay["y"]
            if ny >= y0:
                out.append(("AXStaticText", t.name, None, (nx, ny, max(60, text_width(t.name, 15, "bold") + 8), NAME_H), ""))
            for r in range(lay["r0"], lay["r1"]):
                for c in range(lay["c0"], lay["c1"]):
                    text = t.text(r, c)
                    selected = sel[0] == t.id and min(sel[1], sel[3]) <= r <= max(sel[1], sel[3]) \
                        and min(sel[2], sel[4]) <= c <= max(sel[2], sel[4])
                    if not text and not selected:
                        continue
                    cx, cy = self.app.cell_xy(lay, r, c)
                    if cy < y0 or cy + CELL_H > y0 + h or cx < x0 or cx + CELL_W > x0 + w:
                        continue
                    out.append(("AXCell", f"{t.name} {address(r, c)}", text, (cx, cy, CELL_W, CELL_H),
                                "selected" if selected else ""))
        return out


# ===================================================================================== the app


class NumbersApp(DocumentApp):
    """Numbers; ``documents`` are the open spreadsheets."""

    name = "Numbers"
    bundle_id = "com.apple.Numbers"
    open_suffixes = frozenset({".numbers"})
    documents: list[Document]

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self._next = 1
        self._ids = itertools.count(1)  # sheet and table ids
        self.scripting = NumbersScripting(self)

    def can_open(self, path: Path) -> bool:
        """``open -a Numbers`` also imports CSV, TSV and Excel files (Finder still opens CSV as text)."""
        return path.suffix.lower() in self.open_suffixes | IMPORT_SUFFIXES

    # ------------------------------------------------------------------ model
    def changed(self, doc: Document, modified: bool = True) -> None:
        self.adopt(doc)
        if modified:
            doc.modified = True
        self.touch()

    def adopt(self, doc: Document) -> None:
        """Give new sheets and tables (provisional negative ids) this app's own ids."""
        for s in doc.sheets:
            if s.id < 0:
                s.id = next(self._ids)
            for t in s.tables:
                if t.id < 0:
                    t.id = next(self._ids)

    def new_document(self, template: str = "Blank") -> Document:
        """A new document from ``template`` (a name in TEMPLATES), shown in a window."""
        if template not in TEMPLATES:
            raise NumbersError(f"unknown template {template!r}; Numbers has {', '.join(TEMPLATES)}")
        doc = Document(self._next, self.untitled_name(), TEMPLATES[template](), template)
        self._next += 1
        self.adopt(doc)
        self.documents.append(doc)
        self._open_window(doc)
        return doc

    def open_file(self, path: Path) -> Document | None:
        """Open a file from Finder or ``open``: a damaged one shows an alert instead (as Numbers does)."""
        try:
            return self.load_file(path)
        except (NumbersError, iwork.IWorkFileError, OSError) as e:
            file_alert(self, None, f"The document “{path.name}” couldn’t be opened.", e)
            return None

    def load_file(self, path: Path) -> Document:
        """Open a ``.numbers`` document, or import a CSV/TSV/Excel file into a new document (raises
        NumbersError / IWorkFileError naming the file when it cannot be read)."""
        opened = self.already_open(path)
        if opened is not None:
            return opened
        suffix = path.suffix.lower()
        if suffix == ".numbers":
            sheets, template, active = read_numbers(path, self.desktop.home_files)
            doc = Document(self._next, path.stem, sheets, template, path, False, active)
        elif suffix in (".csv", ".tsv"):
            doc = Document(self._next, path.stem, import_csv(self.desktop.home_files, path), "Blank")
        elif suffix == ".xlsx":
            doc = Document(self._next, path.stem, import_xlsx(self.desktop.home_files, path), "Blank")
        else:
            raise NumbersError(f"Numbers can’t open {path.name}: expected a .numbers, .csv, .tsv or .xlsx file")
        self._next += 1
        self.adopt(doc)
        self.documents.append(doc)
        self._open_window(doc)
        return doc

    def write(self, doc: Document, path: Path) -> None:
        """Save ``doc`` as a ``.numbers`` file at ``path`` (inside the home folder)."""
        self.commit_all(doc)
        if path.suffix.lower() != ".numbers":
            path = path.with_name(path.name + ".numbers")
        write_numbers(path, doc, self.desktop.home_files)
        doc.path, doc.name, doc.modified = path, path.stem, False
        self.touch()

    def export(self, doc: Document, path: Path, fmt: str) -> list[Path]:
        """Export ``doc`` as ``fmt`` (CSV, Microsoft Excel or PDF) to ``path`` (inside the home folder)."""
        self.commit_all(doc)
        suffix = EXPORT_FORMATS[fmt]
        if path.suffix.lower() != suffix:
            path = path.with_name(path.name + suffix)
        return export(self.desktop.home_files, doc, path, fmt)

    def selection_of(self, table: Table) -> tuple[int, int, int, int] | None:
        for w in self.windows:
            sel = w.state.get("sel")
            if w.doc is not None and sel and sel[0] == table.id:
                return (min(sel[1], sel[3]), min(sel[2], sel[4]), max(sel[1], sel[3]), max(sel[2], sel[4]))
        return None

    def select(self, doc: Document, table: Table, top: int, left: int, bottom: int, right: int) -> None:
        w = self.window_of(doc)
        if w is None:
            return
        found = doc.find_table(table.id)
        if found is not None:
            doc.active_sheet = doc.sheets.index(found[0])
        w.state["sel"] = [table.id, top, left, bottom, right]
        w.state["edit"] = None
        w.touch()
        self.touch()

    def state(self) -> dict[str, Any]:
        backend = self.desktop.backend
        return {"running": self.running, "documents": [
            {"name": d.name, "path": backend.posix_path(d.path) if d.path else None, "modified": d.modified,
             "template": d.template, "active_sheet": d.sheet.name,
             "sheets": [{"name": s.name, "tables": [cells_record(t) for t in s.tables]} for s in d.sheets]}
            for d in self.documents_front_first()]}

    # ------------------------------------------------------------------ windows
    def new_window(self) -> Window:
        return self.template_chooser()

    def _open_window(self, doc: Document) -> Window:
        w, h = 1040, 640
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, doc.name, (x, y, w, h), self._build, doc=doc, title_h=52)
        win.focus_key = "numbers:grid"
        first = doc.sheet.tables[0] if doc.sheet.tables else None
        win.state.update({"sel": [first.id, 0, 0, 0, 0] if first else None, "edit": None, "scroll_y": 0, "scroll_x": 0,
                          "tab_col": None})
        self.desktop.show_window(win)
        return win

    def request_close(self, win: Window) -> None:
        doc: Document | None = win.doc
        if doc is not None and doc.modified:
            self.commit_all(doc)  # a cell being edited is part of what the alert offers to save
        super().request_close(win)

    # ------------------------------------------------------------------ template chooser
    def template_chooser(self) -> Window:
        """"Choose a Template": tiles for each template; arrows pick, Return/Create opens, Esc cancels."""
        for w in self.windows:
            if w.kind == "window" and w.title == "Choose a Template":
                self.desktop.raise_window(w)
                return w
        names = list(TEMPLATES)
        W, H = 820, 400
        x, y = self.desktop.cascade_origin(W, H)
        form = {"i": 0}
        tile_w, tile_h, per_row, left, top = 140, 150, 5, 30, 70

        def create() -> None:
            self.desktop.close_window(chooser)
            self.new_document(names[form["i"]])

        def tile_rect(i: int) -> tuple[int, int, int, int]:
            return (left + (i % per_row) * (tile_w + 14), top + (i // per_row) * (tile_h + 20), tile_w, tile_h)

        def paint(d: Any, theme: Any, rect: Any) -> None:
            for i, n in enumerate(names):
                tx, ty, tw, th = tile_rect(i)
                sel = i == form["i"]
                d.rounded_rectangle((tx, ty, tx + tw, ty + th - 28), 6, fill=(255, 255, 255),
                                    outline=theme.accent if sel else theme.control_border, width=3 if sel else 1)
                # a miniature grid: a blank sheet or a filled one
                for r in range(6):
                    yy = ty + 14 + r * 14
                    d.line((tx + 12, yy, tx + tw - 12, yy), fill=(210, 210, 215))
                    if n != "Blank" and r:
                        d.rectangle((tx + 14, yy + 3, tx + 14 + (30 + 13 * ((i + r) % 4)), yy + 9), fill=(120, 160, 210))
                d.rectangle((tx + 12, ty + 14, tx + tw - 12, ty + 28), fill=(214, 226, 242) if n != "Blank" else (238, 238, 240))
                d.text((tx + tw // 2, ty + th - 14), n, font=font(12, "bold" if sel else "regular"),
                       fill=theme.accent if sel else theme.text, anchor="mm")

        def click(win: Window, ev: MouseEvent) -> None:
            for i in range(len(names)):
                tx, ty, tw, th = tile_rect(i)
                if tx <= ev.x < tx + tw and ty <= ev.y < ty + th:
                    form["i"] = i
                    win.touch()
                    if ev.clicks >= 2:
                        create()
                    return

        def key(k: str, mods: frozenset) -> bool:
            i = form["i"]
            moves = {"left": -1, "right": 1, "up": -per_row, "down": per_row}
            if k in moves:
                form["i"] = max(0, min(len(names) - 1, i + moves[k]))
                chooser.touch()
                return True
            if k in ("return", "enter"):
                create()
                return True
            return False

        def build(win: Window) -> list[Widget]:
            children = [("AXButton", n, None, tile_rect(i), "selected" if i == form["i"] else "")
                        for i, n in enumerate(names)]
            return [Box((0, 28, W, H - 28), "content_bg"),
                    Label((30, 36, 400, 24), "Basic", 15, "bold", key="chooser:category"),
                    Custom("chooser:templates", (0, 60, W, H - 120), paint, on_click=click, role="AXList",
                           name="Templates", value=names[form["i"]], children=children, on_key=key, focusable=True),
                    Button("chooser:cancel", (W - 200, H - 46, 84, 26), "Cancel",
                           lambda: self.desktop.close_window(win), cancel=True),
                    Button("chooser:create", (W - 104, H - 46, 84, 26), "Create", create, default=True)]

        chooser = Window(self, "Choose a Template", (x, y, W, H), build)
        chooser.focus_key = "chooser:templates"
        self.desktop.show_window(chooser)
        return chooser

    # ------------------------------------------------------------------ document window layout
    def _front_doc_window(self) -> Window | None:
        w = self._front()
        return w if w is not None and w.doc is not None else None

    def table_layouts(self, win: Window) -> list[dict[str, Any]]:
        """Where each table of the active sheet sits (window-local), with its visible row/column span."""
        doc: Document = win.doc
        x0, y0 = 20 - win.state.get("scroll_x", 0), 52 + 30 + 12 - win.state.get("scroll_y", 0)
        view_top, view_bottom = 52 + 30, win.h
        out = []
        y = y0
        for t in doc.sheet.tables:
            gx, gy = x0 + GUTTER, y + NAME_H + HEAD_H
            r0 = max(0, (view_top - gy) // CELL_H)
            r1 = min(t.rows, max(0, (view_bottom - gy) // CELL_H + 1))
            c0 = min(t.columns, max(0, -gx // CELL_W))
            c1 = min(t.columns, max(1, (win.w - gx) // CELL_W + 1))
            out.append({"table": t, "x": x0, "y": y, "gx": gx, "gy": gy, "r0": min(r0, t.rows), "r1": r1,
                        "c0": c0, "c1": c1})
            y = gy + t.rows * CELL_H + TABLE_GAP
        return out

    @staticmethod
    def cell_xy(lay: dict[str, Any], r: int, c: int) -> tuple[int, int]:
        return lay["gx"] + c * CELL_W, lay["gy"] + r * CELL_H

    def _build(self, win: Window) -> list[Widget]:
        doc: Document = win.doc
        win.title = doc.name + (" — Edited" if doc.modified else "")
        self._check_selection(win)
        W, H = win.w, win.h
        out: list[Widget] = [Box((0, 52, W, H - 52), "content_bg"), Box((0, 52, W, 30), "window_bg"),
                             Box((0, 81, W, 1), "separator")]
        out.append(Label((90, 16, W // 2 - 190, 22), win.title, 13, "bold", key="numbers:title"))
        out.append(Button("numbers:table", (W // 2 - 80, 14, 70, 26), "Table", lambda: self.insert_table(win),
                          style="toolbar", symbol="⊞ Table"))
        out.append(Button("numbers:sort", (W // 2 + 10, 14, 70, 26), "Sort", lambda: self.sort_selection(win, False),
                          style="toolbar", symbol="↑↓ Sort"))
        # sheet tabs: "+" then one tab per sheet
        out.append(Button("numbers:addsheet", (8, 55, 26, 24), "Add Sheet", lambda: self.add_sheet(win),
                          style="plain", symbol="+"))
        tx = 40
        for i, s in enumerate(doc.sheets):
            tw = max(80, text_width(s.name, 13) + 28)
            active = i == doc.active_sheet
            out.append(Button(f"numbers:sheet:{s.id}", (tx, 55, tw, 24), s.name,
                              (lambda i=i: self.activate_sheet(win, i)), style="toolbar" if active else "plain"))
            tx += tw + 4
        layouts_widget = SheetGrid("numbers:grid", (0, 82, W, H - 82), self, win)
        out.append(layouts_widget)
        edit = win.state.get("edit")
        sel = win.state.get("sel")
        if edit and sel:
            lay = next((lo for lo in layouts_widget.layouts if lo["table"].id == sel[0]), None)
            if lay is not None:
                t = lay["table"]
                if edit == "cell":
                    cx, cy = self.cell_xy(lay, sel[1], sel[2])
                    ed = win.editors.get("numbers:edit") or win.editor("numbers:edit", initial="")
                    out.append(CellEditor("numbers:edit", (cx, cy, max(CELL_W, text_width(ed.text, 13) + 16), CELL_H), ed,
                                          self, name=f"{t.name} {address(sel[1], sel[2])}", bordered=False))
                elif edit == "name":
                    ed = win.editors.get("numbers:name") or win.editor("numbers:name", initial=t.name)
                    out.append(CellEditor("numbers:name", (lay["x"], lay["y"], max(180, text_width(ed.text, 15, "bold") + 30),
                                                           NAME_H), ed, self, name="Table Name", size=15,
                                          weight="bold"))
        return out

    def _check_selection(self, win: Window) -> None:
        doc: Document = win.doc
        sel = win.state.get("sel")
        tables = doc.sheet.tables
        t = next((x for x in tables if sel and x.id == sel[0]), None)
        if t is None:
            win.state["sel"] = [tables[0].id, 0, 0, 0, 0] if tables else None
            if win.state.get("edit"):
                win.state["edit"] = None
            return
        clamp_r = lambda v: max(0, min(t.rows - 1, v))  # noqa: E731
        clamp_c = lambda v: max(0, min(t.columns - 1, v))  # noqa: E731
        fixed = [t.id, clamp_r(sel[1]), clamp_c(sel[2]), clamp_r(sel[3]), clamp_c(sel[4])]
        if fixed != sel:
            win.state["sel"] = fixed

    # ------------------------------------------------------------------ drawing
    def draw_grid(self, d: Any, theme: Any, win: Window, rect: Any, layouts: list[dict[str, Any]], focused: bool) -> None:
        x0, y0, W, H = rect
        sel = win.state.get("sel") or [None, 0, 0, 0, 0]
        f, fb = font(12), font(12, "bold")
        grid_line, head_bg = (218, 218, 222), (244, 244, 246)
        if theme.dark:
            grid_line, head_bg = (70, 70, 74), (44, 44, 48)
        for lay in layouts:
            t: Table = lay["table"]
            tx, ty = lay["x"], lay["y"]
            if ty >= y0:
                d.text((tx, ty + NAME_H // 2), t.name, font=font(15, "bold"), fill=theme.text, anchor="lm")
            gx, gy = lay["gx"], lay["gy"]
            selected_table = sel[0] == t.id
            top, left = min(sel[1], sel[3]), min(sel[2], sel[4])
            bottom, right = max(sel[1], sel[3]), max(sel[2], sel[4])
            # column letters
            if gy - HEAD_H >= y0:
                for c in range(lay["c0"], lay["c1"]):
                    cx = gx + c * CELL_W
                    on = selected_table and left <= c <= right
                    d.rectangle((cx, gy - HEAD_H, cx + CELL_W - 1, gy - 1), fill=theme.selection if on else head_bg,
                                outline=grid_line)
                    d.text((cx + CELL_W // 2, gy - HEAD_H // 2), column_name(c), font=f, fill=theme.secondary_text, anchor="mm")
            for r in range(lay["r0"], lay["r1"]):
                cy = gy + r * CELL_H
                if cy < y0 or cy >= y0 + H:
                    continue
                on = selected_table and top <= r <= bottom
                d.rectangle((tx, cy, gx - 1, cy + CELL_H - 1), fill=theme.selection if on else head_bg, outline=grid_line)
                d.text((tx + GUTTER // 2, cy + CELL_H // 2), str(r + 1), font=f, fill=theme.secondary_text, anchor="mm")
                header_row = r < t.header_rows or r >= t.rows - t.footer_rows
                for c in range(lay["c0"], lay["c1"]):
                    cx = gx + c * CELL_W
                    header = header_row or c < t.header_columns
                    in_sel = selected_table and top <= r <= bottom and left <= c <= right
                    fill = theme.selection if in_sel and (top, left) != (bottom, right) else \
                        ((232, 236, 242) if header and not theme.dark else (52, 54, 60) if header else theme.content_bg)
                    merged = t.merge_at(r, c) if t.merges else None
                    bg = t.backgrounds.get((merged[0], merged[1]) if merged else (r, c)) if t.backgrounds else None
                    if bg is not None and not (in_sel and (top, left) != (bottom, right)):
                        fill = tuple(x // 257 for x in bg)  # the cell's fill (16-bit RGB)
                    if merged is not None:  # one cell across the region: no inner grid lines, text in its first cell
                        d.rectangle((cx, cy, cx + CELL_W - 1, cy + CELL_H - 1), fill=fill)
                        if (r, c) != (merged[0], merged[1]):
                            continue
                    else:
                        d.rectangle((cx, cy, cx + CELL_W - 1, cy + CELL_H - 1), fill=fill, outline=grid_line)
                    v = t.value(r, c)
                    if v is None:
                        continue
                    text = display(v)
                    err = isinstance(v, CellError)
                    fnt = fb if header else f
                    shown = text
                    while shown and text_width(shown, 12, "bold" if header else "regular") > CELL_W - 8:
                        shown = shown[:-1]
                    numeric = isinstance(v, float | int) and not isinstance(v, bool)
                    color = (215, 50, 40) if err else theme.text
                    if numeric:
                        d.text((cx + CELL_W - 5, cy + CELL_H // 2), shown, font=fnt, fill=color, anchor="rm")
                    else:
                        d.text((cx + 5, cy + CELL_H // 2), shown, font=fnt, fill=color, anchor="lm")
            for mt, ml, mb, mr in t.merges:  # the merged regions' outlines
                if mb >= lay["r0"] and mt < lay["r1"] and mr >= lay["c0"] and ml < lay["c1"]:
                    ry = gy + mt * CELL_H
                    if ry >= y0:
                        d.rectangle((gx + ml * CELL_W, ry, gx + (mr + 1) * CELL_W - 1, gy + (mb + 1) * CELL_H - 1),
                                    outline=grid_line)
            if selected_table:  # also around the cell being edited
                ax, ay = gx + left * CELL_W, gy + top * CELL_H
                bx, by = gx + (right + 1) * CELL_W, gy + (bottom + 1) * CELL_H
                if ay >= y0:
                    d.rectangle((ax - 1, ay - 1, bx, by), outline=theme.accent, width=2 if focused else 1)

    # ------------------------------------------------------------------ GUI actions
    def _table_in(self, win: Window, tid: int) -> Table | None:
        return next((t for t in win.doc.sheet.tables if t.id == tid), None)

    def grid_click(self, win: Window, layouts: list[dict[str, Any]], ev: MouseEvent) -> None:
        if win.state.get("edit"):
            self.commit_edit(win, move=None)
        for lay in layouts:
            t: Table = lay["table"]
            nx, ny = lay["x"], lay["y"]
            name_w = max(60, text_width(t.name, 15, "bold") + 8)
            if nx <= ev.x < nx + name_w and ny <= ev.y < ny + NAME_H:
                win.state["sel"] = [t.id, 0, 0, 0, 0] if (win.state.get("sel") or [None])[0] != t.id else win.state["sel"]
                if ev.clicks >= 2:
                    self.start_name_edit(win, t, ev.x - nx)
                win.touch()
                return
            c = (ev.x - lay["gx"]) // CELL_W
            r = (ev.y - lay["gy"]) // CELL_H
            sel = win.state.get("sel")
            extend = "shift" in ev.mods and sel and sel[0] == t.id
            if lay["gy"] - HEAD_H <= ev.y < lay["gy"] and ev.x >= lay["gx"] and 0 <= c < t.columns:
                # a column letter selects the whole column (shift: through it)
                win.state["sel"] = [t.id, 0, sel[2] if extend else c, t.rows - 1, c]
                win.touch()
                return
            if lay["x"] <= ev.x < lay["gx"] and 0 <= r < t.rows and ev.y >= lay["gy"]:
                win.state["sel"] = [t.id, sel[1] if extend else r, 0, r, t.columns - 1]  # a row number: the row
                win.touch()
                return
            if 0 <= r < t.rows and 0 <= c < t.columns and ev.x >= lay["gx"]:
                sel = win.state.get("sel")
                if "shift" in ev.mods and sel and sel[0] == t.id:
                    win.state["sel"] = [t.id, sel[1], sel[2], r, c]
                else:
                    win.state["sel"] = [t.id, r, c, r, c]
                win.state["tab_col"] = None
                if ev.clicks >= 2:
                    self.start_cell_edit(win, None)
                win.touch()
                return

    def start_name_edit(self, win: Window, table: Table, x: int | None = None) -> None:
        """Edit the table name in place (double-click): the word under the pointer is selected."""
        ed = Editor(table.name)
        if x is not None:
            i = 0
            while i < len(table.name) and text_width(table.name[: i + 1], 15, "bold") < x:
                i += 1
            ed.select_word_at(i)
        win.editors["numbers:name"] = ed
        win.state["edit"] = "name"
        win.state["edit_table"] = table.id
        win.focus_key = "numbers:name"
        win.touch()
        self.touch()

    def start_cell_edit(self, win: Window, text: str | None) -> None:
        """Edit the selected cell: ``text`` replaces its content (typing), None keeps it (double-click)."""
        sel = win.state.get("sel")
        t = self._table_in(win, sel[0]) if sel else None
        if t is None:
            return
        win.state["sel"] = [t.id, sel[1], sel[2], sel[1], sel[2]]
        content = input_text(t.raw(sel[1], sel[2])) if text is None else text
        win.editors["numbers:edit"] = Editor(content)
        win.state["edit"] = "cell"
        win.focus_key = "numbers:edit"
        win.touch()
        self.touch()

    def commit_edit(self, win: Window, move: tuple[int, int] | None, from_return: bool = False) -> None:
        """Store what is being edited (a cell or the table name), then move the selection by ``move``."""
        doc: Document = win.doc
        edit = win.state.get("edit")
        sel = win.state.get("sel")
        win.state["edit"] = None
        win.focus_key = "numbers:grid"
        if edit == "name":
            found = doc.find_table(win.state.get("edit_table", -1))
            ed = win.editors.pop("numbers:name", None)
            if found is not None and ed is not None and ed.text.strip() and ed.text.strip() != found[1].name:
                self.record_undo(doc)
                found[1].name = ed.text.strip()
                self.changed(doc)
            win.touch()
            self.touch()
            return
        if edit == "cell" and sel:
            t = self._table_in(win, sel[0])
            ed = win.editors.pop("numbers:edit", None)
            if t is not None and ed is not None:
                before = t.raw(sel[1], sel[2])
                self.record_undo(doc)
                t.enter(sel[1], sel[2], ed.text)
                if t.raw(sel[1], sel[2]) != before:
                    self.changed(doc)
                else:
                    doc.undo.pop()
        if move is not None:
            self.move_selection(win, move, from_return=from_return, tabbing=move[1] != 0 and move[0] == 0)
        win.touch()
        self.touch()

    def cancel_edit(self, win: Window) -> None:
        win.state["edit"] = None
        win.editors.pop("numbers:edit", None)
        win.editors.pop("numbers:name", None)
        win.focus_key = "numbers:grid"
        win.touch()
        self.touch()

    def commit_all(self, doc: Document) -> None:
        """Finish any edit in progress in ``doc``'s windows (before saving, exporting, closing)."""
        for w in self.windows:
            if w.doc is doc and w.state.get("edit"):
                self.commit_edit(w, move=None)

    def move_selection(self, win: Window, move: tuple[int, int], extend: bool = False, from_return: bool = False,
                       tabbing: bool = False, to_edge: bool = False) -> None:
        sel = win.state.get("sel")
        t = self._table_in(win, sel[0]) if sel else None
        if t is None:
            return
        dr, dc = move
        r, c = (sel[3], sel[4]) if extend else (sel[1], sel[2])
        if to_edge:
            r = (t.rows - 1 if dr > 0 else 0) if dr else r
            c = (t.columns - 1 if dc > 0 else 0) if dc else c
        elif tabbing:
            if win.state.get("tab_col") is None:
                win.state["tab_col"] = c
            c += dc
            if c >= t.columns:  # past the last column: the first column of the next row
                c, r = 0, r + 1
                if r >= t.rows:
                    r = t.rows - 1
                    c = t.columns - 1
            elif c < 0:
                c = 0
        elif from_return:
            r += dr
            if win.state.get("tab_col") is not None:
                c = win.state["tab_col"]
            win.state["tab_col"] = None
            if r >= t.rows and dr > 0:  # Return in the last row adds a row, as in Numbers
                try:
                    self.record_undo(win.doc)
                    t.insert_rows(t.rows - t.footer_rows if t.footer_rows else t.rows)
                    self.changed(win.doc)
                except NumbersError:
                    win.doc.undo.pop()
                    r = t.rows - 1
            r = max(0, min(r, t.rows - 1))
        else:
            r += dr
            c += dc
            win.state["tab_col"] = None
        r = max(0, min(r, t.rows - 1))
        c = max(0, min(c, t.columns - 1))
        win.state["sel"] = [t.id, sel[1], sel[2], r, c] if extend else [t.id, r, c, r, c]
        self._scroll_to(win, t, r, c)
        win.touch()

    def _scroll_to(self, win: Window, t: Table, r: int, c: int = 0) -> None:
        """Scroll the canvas so that cell (r, c) of ``t`` is in view."""
        lays = self.table_layouts(win)
        lay = next((lo for lo in lays if lo["table"] is t), None)
        if lay is None:
            return
        cy = lay["gy"] + r * CELL_H
        top, bottom = 82 + HEAD_H + NAME_H, win.h - CELL_H
        sy = win.state.get("scroll_y", 0)
        if cy < top:
            win.state["scroll_y"] = max(0, sy - (top - cy))
        elif cy > bottom:
            win.state["scroll_y"] = sy + (cy - bottom)
        cx = lay["gx"] + c * CELL_W
        sx = win.state.get("scroll_x", 0)
        if cx < GUTTER + 20:
            win.state["scroll_x"] = max(0, sx - (GUTTER + 20 - cx))
        elif cx + CELL_W > win.w - 10:
            win.state["scroll_x"] = sx + (cx + CELL_W - (win.w - 10))

    def grid_key(self, win: Window, key: str, mods: frozenset) -> bool:
        sel = win.state.get("sel")
        t = self._table_in(win, sel[0]) if sel else None
        if t is None:
            return False
        cmd = "command" in mods
        arrows = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
        if key in arrows and not (mods - {"shift", "command"}):
            self.move_selection(win, arrows[key], extend="shift" in mods, to_edge=cmd)
            return True
        if key == "tab" and not (mods - {"shift"}):
            self.move_selection(win, (0, -1 if "shift" in mods else 1), tabbing=True)
            return True
        if key in ("return", "enter"):
            if "option" in mods:
                self.start_cell_edit(win, None)
            else:
                self.move_selection(win, (-1 if "shift" in mods else 1, 0), from_return=True)
            return True
        if key in ("backspace", "fwddelete", "delete") and not cmd:
            self.clear_selection(win)
            return True
        if cmd and key == "z":
            self.undo(win, redo="shift" in mods)
            return True
        if cmd and key == "a":
            win.state["sel"] = [t.id, 0, 0, t.rows - 1, t.columns - 1]
            win.touch()
            return True
        if cmd and key in ("c", "x"):
            self.desktop.clipboard.set_text(self.selection_text(win))
            if key == "x":
                self.clear_selection(win)
            return True
        if cmd and key == "v":
            self.paste(win, self.desktop.clipboard.text or "")
            return True
        return False

    def record_undo(self, doc: Document) -> None:
        """Remember the document before a GUI edit (cmd-Z goes back to it; 50 steps)."""
        doc.undo.append(doc.snapshot())
        del doc.undo[:-50]
        doc.redo.clear()

    def undo(self, win: Window, redo: bool = False) -> None:
        doc: Document = win.doc
        source, target = (doc.redo, doc.undo) if redo else (doc.undo, doc.redo)
        if not source:
            return
        target.append(doc.snapshot())
        doc.restore(source.pop())
        self.changed(doc)
        win.touch()

    def grid_type(self, win: Window, s: str) -> bool:
        if not s:
            return False
        self.start_cell_edit(win, "")
        ed = win.editors["numbers:edit"]
        ed.insert(s)
        return True

    def _selected_area(self, win: Window) -> tuple[Table, int, int, int, int] | None:
        sel = win.state.get("sel")
        t = self._table_in(win, sel[0]) if sel else None
        if t is None:
            return None
        return t, min(sel[1], sel[3]), min(sel[2], sel[4]), max(sel[1], sel[3]), max(sel[2], sel[4])

    def _area_to_change(self, win: Window | None) -> tuple[Table, int, int, int, int] | None:
        """The selected area of ``win`` with an undo step recorded, as a command that changes it
        needs first (None, and nothing recorded, without a window or a selection)."""
        area = self._selected_area(win) if win is not None else None
        if area is not None:
            self.record_undo(win.doc)
        return area

    def clear_selection(self, win: Window) -> None:
        area = self._area_to_change(win)
        if area is None:
            return
        t, top, left, bottom, right = area
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                t.set(r, c, None)
        self.changed(win.doc)

    def selection_text(self, win: Window) -> str:
        area = self._selected_area(win)
        if area is None:
            return ""
        t, top, left, bottom, right = area
        return "\n".join("\t".join(t.text(r, c) for c in range(left, right + 1)) for r in range(top, bottom + 1))

    def paste(self, win: Window, text: str) -> None:
        """Paste tab/line-separated text from the selected cell on, growing the table when needed."""
        area = self._selected_area(win)
        if area is None or not text:
            return
        t, top, left, _, _ = area
        lines = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n").split("\n")
        rows = [ln.split("\t") for ln in lines]
        need_r = top + len(rows)
        need_c = left + max(len(r) for r in rows)
        self.record_undo(win.doc)
        try:
            if need_r > t.rows or need_c > t.columns:
                t.resize(max(t.rows, need_r), max(t.columns, need_c))
            for i, row in enumerate(rows):
                for j, cell in enumerate(row):
                    t.enter(top + i, left + j, cell)
        except NumbersError as e:
            win.doc.restore(win.doc.undo.pop())  # a paste that does not fit changes nothing
            alert(self, win, "The table can’t hold the pasted cells.", str(e), [("OK", lambda: None)], cancel=0)
            return
        win.state["sel"] = [t.id, top, left, top + len(rows) - 1, left + max(len(r) for r in rows) - 1]
        self.changed(win.doc)

    def insert_table(self, win: Window | None) -> None:
        if win is None:
            return
        doc: Document = win.doc
        self.record_undo(doc)
        t = Table(name=new_table_name(doc.sheet), rows=5, columns=5)
        doc.sheet.tables.append(t)
        self.changed(doc)
        win.state["sel"] = [t.id, 0, 0, 0, 0]
        self._scroll_to(win, t, 0)

    def add_sheet(self, win: Window | None) -> None:
        if win is None:
            return
        doc: Document = win.doc
        self.record_undo(doc)
        doc.sheets.append(Sheet(doc.new_sheet_name(), [Table()]))
        self.changed(doc)
        self.activate_sheet(win, len(doc.sheets) - 1)

    def activate_sheet(self, win: Window, i: int) -> None:
        doc: Document = win.doc
        if win.state.get("edit"):
            self.commit_edit(win, move=None)
        doc.active_sheet = i
        tables = doc.sheet.tables
        win.state.update({"sel": [tables[0].id, 0, 0, 0, 0] if tables else None, "scroll_y": 0, "scroll_x": 0,
                          "tab_col": None})
        win.focus_key = "numbers:grid"
        win.touch()
        self.touch()

    def rename_sheet(self, win: Window) -> None:
        doc: Document = win.doc
        s = doc.sheet

        def done(text: str) -> None:
            name = text.strip()
            if name and not any(x.name == name for x in doc.sheets if x is not s):
                s.name = name
                self.changed(doc)

        text_prompt(self, win, "Rename Sheet", "Name:", s.name, done, "Rename")

    def sort_selection(self, win: Window | None, descending: bool) -> None:
        area = self._area_to_change(win)
        if area is None:
            return
        t, top, left, bottom, right = area
        t.sort(left, descending)
        self.changed(win.doc)

    def _structure(self, win: Window | None, what: str) -> None:
        area = self._area_to_change(win)
        if area is None:
            return
        t, top, left, bottom, right = area
        try:
            if what == "row above":
                t.insert_rows(top)
            elif what == "row below":
                t.insert_rows(bottom + 1)
            elif what == "column before":
                t.insert_columns(left)
            elif what == "column after":
                t.insert_columns(right + 1)
            elif what == "delete rows":
                t.delete_rows(top, bottom - top + 1)
            elif what == "delete columns":
                t.delete_columns(left, right - left + 1)
        except NumbersError as e:
            win.doc.undo.pop()
            alert(self, win, "The table can’t be changed that way.", str(e), [("OK", lambda: None)], cancel=0)
            return
        self.changed(win.doc)

    # ------------------------------------------------------------------ save / export / open panels
    def save(self, win: Window | None, then_close: bool = False, save_as: bool = False) -> None:
        if win is not None and win.doc is not None:
            self.commit_all(win.doc)  # the cell being edited is saved too
        super().save(win, then_close, save_as)

    def save_sheet(self, win: Window, then_close: bool = False) -> Window:
        return self.file_sheet(win, "Save", win.doc.name, ".numbers", "Numbers",
                               lambda path: self.finish_save(win, path, then_close))

    def export_sheet(self, win: Window | None, fmt: str) -> Window | None:
        """File > Export To: the format sheet (PDF / Excel / CSV tabs), then Next… asks where."""
        if win is None or win.doc is None:
            return None
        doc: Document = win.doc
        self.commit_all(doc)
        W, H = 480, 200
        labels = {"PDF": "PDF", "Microsoft Excel": "Excel", "CSV": "CSV"}
        form = {"fmt": fmt}

        def nxt() -> None:
            self.desktop.close_window(sheet)
            chosen = form["fmt"]
            self.file_sheet(win, "Export", doc.name, EXPORT_FORMATS[chosen], labels[chosen],
                            lambda path: self.export(doc, path, chosen))

        def build(s: Window) -> list[Widget]:
            notes = {"CSV": "One CSV file per table (a folder when the spreadsheet has several tables).",
                     "Microsoft Excel": "One worksheet per sheet (per table where a sheet has several).",
                     "PDF": "Each sheet on its own page."}
            return [Label((20, 16, W - 40, 22), "Export Your Spreadsheet", 15, "bold", key="export:title"),
                    Segmented("export:format", (W // 2 - 120, 50, 240, 26), list(labels.values()), labels[form["fmt"]],
                              lambda v: (form.__setitem__("fmt", next(k for k, x in labels.items() if x == v)), s.touch()),
                              name="Format"),
                    Label((20, 92, W - 40, 40), notes[form["fmt"]], 12, wrap=True, key="export:note"),
                    Button("export:cancel", (W - 200, H - 44, 84, 26), "Cancel",
                           lambda: self.desktop.close_window(s), cancel=True),
                    Button("export:next", (W - 104, H - 44, 84, 26), "Next…", nxt, default=True)]

        sheet = Window(self, "Export", (0, 0, W, H), build, parent=win, kind="sheet")
        self.desktop.show_window(sheet)
        return sheet

    def file_sheet(self, win: Window, action: str, default_stem: str, suffix: str, format_label: str,
                   on_done: Any) -> Window:
        """A save panel: name (without the suffix selected), Where, and Cancel / ``action``; asks
        before replacing a file, and says why when writing fails."""

        def finish(path: Path) -> None:
            try:
                on_done(path)
            except (NumbersError, iwork.IWorkFileError, OSError, ValueError) as e:
                file_alert(self, win, f"The document couldn’t be {'saved' if action == 'Save' else 'exported'}.", e)

        def exists(path: Path) -> bool:
            # a CSV export of several tables writes a folder named like the file
            files = self.desktop.home_files
            return files.exists(path) or (suffix == ".csv" and len(win.doc.tables()) > 1 and files.exists(path.with_suffix("")))

        return file_panels.save_sheet(
            self, win, verb=action, default=default_stem + suffix, selected=len(default_stem),
            file_name=lambda name: with_suffix(name, suffix), on_save=finish, format_text=format_label,
            format_label="Format:", locations=LOCATIONS, exists=exists,
            replace_detail="A file with the same name already exists in {where}. Replacing it will overwrite its "
                           "current contents.")

    def open_panel(self) -> Window:
        """File > Open…: spreadsheets (.numbers, .csv, .tsv, .xlsx) of a location."""
        kinds = self.open_suffixes | IMPORT_SUFFIXES
        return file_panels.open_panel(self, shows=lambda p: self.desktop.home_files.is_dir(p) or p.suffix.lower() in kinds, locations=LOCATIONS)

    # ------------------------------------------------------------------ menus
    def app_menus(self) -> list:
        fw = self._front_doc_window()
        doc_open = fw is not None
        return [
            ("File", [
                MenuItem("New", self.template_chooser, "cmd+n"),
                MenuItem("Open…", self.open_panel, "cmd+o"),
                sep(),
                MenuItem("Close", self._close_front, "cmd+w", enabled=self._front() is not None),
                MenuItem("Save…", lambda: self.save(fw), "cmd+s", enabled=doc_open),
                # Numbers' "Export To ▸" submenu, flattened (the sim's menus have no submenus)
                MenuItem("Export To PDF…", lambda: self.export_sheet(fw, "PDF"), enabled=doc_open),
                MenuItem("Export To Excel…", lambda: self.export_sheet(fw, "Microsoft Excel"), enabled=doc_open),
                MenuItem("Export To CSV…", lambda: self.export_sheet(fw, "CSV"), enabled=doc_open),
            ]),
        ]

    def extra_menus(self) -> list:
        fw = self._front_doc_window()
        on = fw is not None
        return [
            ("Insert", [
                MenuItem("Table", lambda: self.insert_table(fw), enabled=on),
                MenuItem("Sheet", lambda: self.add_sheet(fw), enabled=on),
            ]),
            ("Table", [
                MenuItem("Add Row Above", lambda: self._structure(fw, "row above"), "option+up", enabled=on),
                MenuItem("Add Row Below", lambda: self._structure(fw, "row below"), "option+down", enabled=on),
                MenuItem("Add Column Before", lambda: self._structure(fw, "column before"), "option+left", enabled=on),
                MenuItem("Add Column After", lambda: self._structure(fw, "column after"), "option+right", enabled=on),
                sep(),
                MenuItem("Delete Row", lambda: self._structure(fw, "delete rows"), "option+cmd+backspace", enabled=on),
                MenuItem("Delete Column", lambda: self._structure(fw, "delete columns"), "ctrl+cmd+backspace", enabled=on),
                sep(),
                MenuItem("Sort Ascending", lambda: self.sort_selection(fw, False), enabled=on),
                MenuItem("Sort Descending", lambda: self.sort_selection(fw, True), enabled=on),
                sep(),
                MenuItem("Rename Table", lambda: self._rename_table(fw), enabled=on),
                MenuItem("Rename Sheet…", lambda: self.rename_sheet(fw) if fw else None, enabled=on),
            ]),
        ]

    def _rename_table(self, win: Window | None) -> None:
        area = self._selected_area(win) if win is not None else None
        if area is not None:
            self.start_name_edit(win, area[0])
            win.editors["numbers:name"].select_all()

    # ------------------------------------------------------------------ icon
    @staticmethod
    def draw_icon(size: int) -> "Image.Image":
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (90, 200, 100), (30, 150, 60))
        # three rising bars over a white ground line, like the Numbers icon's chart
        base = S * 0.78
        for k, (hgt, col) in enumerate(((0.26, (255, 255, 255)), (0.42, (235, 250, 235)), (0.58, (255, 255, 255)))):
            x = S * (0.2 + k * 0.22)
            d.rounded_rectangle((x, base - S * hgt, x + S * 0.16, base), S * 0.03, fill=col)
        d.line((S * 0.14, base + S * 0.02, S * 0.86, base + S * 0.02), fill=(255, 255, 255), width=max(2, S // 40))
        return _finish(img, size)
