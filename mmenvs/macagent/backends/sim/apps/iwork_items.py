"""The objects iWork documents hold on a slide (Keynote) or on the page (Pages), as their AppleScript
dictionaries show them: ``shape``, ``text item``, ``image`` and ``table`` (all ``iWork item``s), with
``position`` ({x, y} in points from the top left), ``width``, ``height``, ``rotation``, ``opacity``,
``locked``, ``reflection showing`` / ``reflection value``, ``background fill type``, ``object text``
(shapes and text items, whose ``font``, ``color`` and ``size`` are the text's), an image's ``file`` and
``file name``, and a table's ``row count``, ``column count``, ``name``, ``rows``, ``columns`` and
``cells`` (``value``, ``name`` such as ``B2``, ``background color``).

An item is a plain dict (saved in the document file as it is, see :func:`check_items`); scripts reach
them through :class:`ItemScripting`, which the Keynote and Pages dictionaries mix in. Everything a
script gives is checked and bounded (counts, geometry, colours, cell text); a bad value is an
AppleScript error, never an exception. An image is read through the home's confined layer only."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Callable

from ....applescript.errors import ERR_APP_GENERIC, ERR_NO_SUCH_OBJECT, AppleScriptError
from ....applescript.model import ObjectRef
from ....applescript.values import Constant, FileRef, RichText, source_form

ITEM_CLASSES = ("shape", "text item", "image", "table")
MAX_ITEMS = 200  # per slide / per document
MAX_TABLE_ROWS = 200
MAX_TABLE_COLUMNS = 60
MAX_TABLE_CELLS = 6000
MAX_CELL_TEXT = 10_000
MAX_OBJECT_TEXT = 100_000
MAX_COORD = 100_000  # points: far beyond any slide or page
MAX_IMAGE_BYTES = 32 << 20
DEFAULT_FONT = "HelveticaNeue"
#: the order Keynote lists an item's properties in (``properties of shape 1``)
PROPERTY_ORDER = ("opacity", "parent", "class", "reflection showing", "background fill type", "position",
                  "object text", "width", "rotation", "reflection value", "height", "locked")
ERR_BAD_VALUE = -1700


def _bad(message: str) -> AppleScriptError:
    return AppleScriptError(message, ERR_BAD_VALUE)


def number(value: Any, what: str, lo: float, hi: float) -> int | float:
    """A script number for ``what`` within [lo, hi] (integral values stay integers, as the apps print them)."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise _bad(f"Can’t make {source_form(value)[:100]} into type number for {what}.")
    if not lo <= value <= hi:
        raise _bad(f"Can’t set {what} to {source_form(value)[:100]}: it must be from {lo:g} to {hi:g}.")
    return int(value) if float(value).is_integer() else round(float(value), 4)


def color(value: Any, what: str) -> list[int]:
    """An RGB color ({r, g, b}, each 0–65535) for ``what``."""
    if not (isinstance(value, list) and len(value) == 3 and all(
            isinstance(c, (int, float)) and not isinstance(c, bool) and 0 <= c <= 65535 for c in value)):
        raise _bad(f"Can’t make {source_form(value)[:100]} into type RGB color for {what}: "
                   "a color is {red, green, blue}, each 0 to 65535.")
    return [int(c) for c in value]


def font_name(value: Any, what: str) -> str:
    """The font a script names, as the apps report it back (``font of`` gives the PostScript name:
    "Times New Roman" → ``TimesNewRomanPSMT``, "HanziPen TC" → ``HanziPenTC-W3``); a name the sim does
    not know is kept as given."""
    text = str(value).strip()
    if not text or len(text) > 100 or any(ord(c) < 32 for c in text):
        raise _bad(f"Can’t set {what} to {source_form(value)[:100]}: a font is its name, e.g. \"Helvetica\".")
    key = text.lower().replace(" ", "").replace("-", "")
    return _POSTSCRIPT.get(key, text)


#: font families of a Mac and their PostScript names (keys: the family lowercased, no spaces or dashes)
FONT_FAMILIES = {"Helvetica Neue": "HelveticaNeue", "Helvetica": "Helvetica", "Arial": "ArialMT",
                 "Times New Roman": "TimesNewRomanPSMT", "Courier": "Courier", "Courier New": "CourierNewPSMT",
                 "Georgia": "Georgia", "Menlo": "Menlo-Regular", "Monaco": "Monaco", "Verdana": "Verdana",
                 "Futura": "Futura-Medium", "Avenir": "Avenir-Book", "Gill Sans": "GillSans",
                 "Optima": "Optima-Regular", "Palatino": "Palatino-Roman", "Baskerville": "Baskerville",
                 "Didot": "Didot", "American Typewriter": "AmericanTypewriter", "Marker Felt": "MarkerFelt-Thin",
                 "Noteworthy": "Noteworthy-Light", "HanziPen TC": "HanziPenTC-W3", "HanziPen SC": "HanziPenSC-W3",
                 "PingFang SC": "PingFangSC-Regular", "PingFang TC": "PingFangTC-Regular"}
_POSTSCRIPT = {k.lower().replace(" ", "").replace("-", ""): v for k, v in FONT_FAMILIES.items()}
_POSTSCRIPT.update({v.lower().replace("-", ""): v for v in FONT_FAMILIES.values()})


def font_family(postscript: str) -> str:
    """The family of a PostScript font name (for the font pop-up), or the name itself."""
    for family, ps in FONT_FAMILIES.items():
        if ps == postscript:
            return family
    return postscript


def text_style(item: dict[str, Any], default_color: list[int], default_size: float) -> dict[str, Any]:
    st = item.setdefault("text style", {})
    return {"font": st.get("font", DEFAULT_FONT), "color": list(st.get("color", default_color)),
            "size": st.get("size", default_size)}


def position(value: Any, what: str) -> list[int | float]:
    if not (isinstance(value, list) and len(value) == 2):
        raise _bad(f"Can’t make {source_form(value)[:100]} into type point for {what}: a position is {{x, y}}.")
    return [number(v, what, -MAX_COORD, MAX_COORD) for v in value]


def column_letters(col: int) -> str:
    out = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


def parse_address(name: str) -> tuple[int, int] | None:
    """``"B3"`` → (row 2, column 1), zero-based; None when it is no cell address."""
    text = str(name).strip().upper()
    letters = "".join(ch for ch in text if ch.isalpha())
    digits = text[len(letters):]
    if not letters or not digits.isdigit() or not text.startswith(letters) or len(letters) > 3:
        return None
    col = 0
    for ch in letters:
        col = col * 26 + (ord(ch) - 64)
    return int(digits) - 1, col - 1


def check_items(items: Any, source: str) -> list[dict[str, Any]]:
    """Items read from a document file: a bounded list of dicts of the known classes (else ValueError)."""
    if not isinstance(items, list) or len(items) > MAX_ITEMS:
        raise ValueError(f"{source}: field 'items' must be a list of at most {MAX_ITEMS} items")
    out = []
    for i, it in enumerate(items):
        if not isinstance(it, dict) or it.get("class") not in ITEM_CLASSES or not isinstance(it.get("id"), int):
            raise ValueError(f"{source}: items[{i}] needs a 'class' from {', '.join(ITEM_CLASSES)} and an integer 'id'")
        if it["class"] == "table":
            rows, cols = it.get("row count"), it.get("column count")
            if not (isinstance(rows, int) and isinstance(cols, int) and 1 <= rows <= MAX_TABLE_ROWS
                    and 1 <= cols <= MAX_TABLE_COLUMNS and rows * cols <= MAX_TABLE_CELLS):
                raise ValueError(f"{source}: items[{i}] is a table of {rows!r}×{cols!r} cells; tables have 1–"
                                 f"{MAX_TABLE_ROWS} rows, 1–{MAX_TABLE_COLUMNS} columns, at most {MAX_TABLE_CELLS} cells")
            if not isinstance(it.get("cells", {}), dict):
                raise ValueError(f"{source}: items[{i}].cells must be an object")
        out.append(dict(it))
    return out


class ItemScripting:
    """The item part of the Keynote and Pages dictionaries. The host class provides:

    * ``item_list(doc_id, key)`` — the list of item dicts of a container (a slide id, 0 for Pages' page);
    * ``item_container(ref)`` — (doc_id, key) of a slide / document reference, or None;
    * ``item_frame`` — (width, height) of the slide / page, where new items are centred;
    * ``host_path(value, what)`` and ``self.app`` (the iWork app: its desktop's home layer reads images);
    * ``text_defaults(doc_id)`` — (color, size) of new text;
    * ``item_parent(doc_id, key)`` — the container's reference (an item's ``parent``).
    """

    app: Any
    item_frame: tuple[int, int] = (1920, 1080)
    host_path: Callable[[Any, str], Any]

    # ---------------------------------------------------------------- hooks (overridden)
    def item_list(self, doc_id: Any, key: Any) -> list[dict[str, Any]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def item_container(self, ref: ObjectRef | None) -> tuple[Any, Any] | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def text_defaults(self, doc_id: Any) -> tuple[list[int], float]:
        return [0, 0, 0], 24

    def item_parent(self, doc_id: Any, key: Any) -> ObjectRef:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---------------------------------------------------------------- lookups
    @staticmethod
    def is_item_ref(obj: ObjectRef | None) -> bool:
        return obj is not None and obj.cls in (*ITEM_CLASSES, "iWork item") and isinstance(obj.id, tuple) \
            and len(obj.id) == 3 and isinstance(obj.id[2], int)

    @staticmethod
    def is_table_part(obj: ObjectRef | None) -> bool:
        return obj is not None and obj.cls in ("row", "column", "cell") and isinstance(obj.id, tuple) and len(obj.id) >= 4

    def item(self, obj: ObjectRef) -> dict[str, Any]:
        doc_id, key, iid = obj.id[:3]
        for it in self.item_list(doc_id, key):
            if it["id"] == iid:
                return it
        raise AppleScriptError(f"Can’t get {obj.cls} id {iid}: it no longer exists.", ERR_NO_SUCH_OBJECT)

    def item_elements(self, container: ObjectRef, cls: str) -> list[ObjectRef] | None:
        """Elements of a slide/page (items), of a table (rows, columns, cells), of a row or column (cells)."""
        place = self.item_container(container)
        if place is not None and cls in (*ITEM_CLASSES, "iWork item"):
            doc_id, key = place
            return [ObjectRef(it["class"] if cls == "iWork item" else cls, (doc_id, key, it["id"]))
                    for it in self.item_list(doc_id, key) if cls == "iWork item" or it["class"] == cls]
        if container.cls == "table" and self.is_item_ref(container) and cls in ("row", "column", "cell"):
            t = self.item(container)
            base = container.id
            if cls == "row":
                return [ObjectRef("row", (*base, r)) for r in range(t["row count"])]
            if cls == "column":
                return [ObjectRef("column", (*base, c)) for c in range(t["column count"])]
            return [ObjectRef("cell", (*base, r, c)) for r in range(t["row count"]) for c in range(t["column count"])]
        if container.cls in ("row", "column") and self.is_table_part(container) and cls == "cell":
            base, n = container.id[:3], container.id[3]
            t = self.item(ObjectRef("table", base))
            if container.cls == "row":
                return [ObjectRef("cell", (*base, n, c)) for c in range(t["column count"])]
            return [ObjectRef("cell", (*base, r, n)) for r in range(t["row count"])]
        return None

    def cell_by_name(self, container: ObjectRef, name: str) -> ObjectRef | None:
        if container.cls != "table" or not self.is_item_ref(container):
            return None
        rc = parse_address(name)
        t = self.item(container)
        if rc is None or not (0 <= rc[0] < t["row count"] and 0 <= rc[1] < t["column count"]):
            return None
        return ObjectRef("cell", (*container.id, rc[0], rc[1]))

    def table_by_name(self, container: ObjectRef | None, name: str) -> ObjectRef | None:
        place = self.item_container(container)
        if place is None:
            return None
        for it in self.item_list(*place):
            if it["class"] == "table" and it.get("name") == str(name):
                return ObjectRef("table", (*place, it["id"]))
        return None

    # ---------------------------------------------------------------- properties
    def item_get(self, obj: ObjectRef, prop: str) -> Any:
        if self.is_table_part(obj):
            return self._part_get(obj, prop)
        it = self.item(obj)
        doc_id, key, _ = obj.id
        kind = it["class"]
        if prop == "class":
            return Constant(kind)
        if prop == "parent":
            return self.item_parent(doc_id, key)
        if prop == "position":
            return list(it["position"])
        if prop in ("width", "height", "rotation", "opacity", "locked", "reflection showing", "reflection value"):
            return it[prop]
        if prop == "background fill type":
            return Constant(it.get("background fill type", "no fill" if kind in ("text item", "image") else "color fill"))
        if prop == "object text" and kind in ("shape", "text item"):
            return RichText(it.get("object text", ""), ObjectRef("item text", obj.id))
        if kind == "image" and prop in ("file", "file name", "description"):
            if prop == "file":
                return FileRef(it["file"], "file")
            if prop == "file name":
                return it["file"].rsplit("/", 1)[-1]
            return it.get("description", "")
        if kind == "table" and prop in ("row count", "column count", "name", "header row count",
                                        "header column count", "footer row count"):
            return it.get(prop, {"name": "Table 1", "header row count": 1, "header column count": 1,
                                 "footer row count": 0}.get(prop))
        if prop == "properties":
            out: dict[str, Any] = {}
            for p in PROPERTY_ORDER:
                if p == "object text" and kind not in ("shape", "text item"):
                    continue
                out[p] = str(self.item_get(obj, p)) if p == "object text" else self.item_get(obj, p)
            if kind == "image":
                out["file name"] = self.item_get(obj, "file name")
            if kind == "table":
                for p in ("name", "row count", "column count"):
                    out[p] = self.item_get(obj, p)
            return out
        raise AppleScriptError(f"Can’t get {prop} of {kind} id {obj.id[2]}.", ERR_NO_SUCH_OBJECT)

    def item_text_get(self, obj: ObjectRef, prop: str) -> Any:
        """``object text`` of a shape or text item: its text and the text's font, color and size."""
        ref = ObjectRef("shape", obj.id)
        it = self.item(ref)
        st = text_style(it, *self.text_defaults(obj.id[0]))
        if prop == "text":
            return it.get("object text", "")
        if prop in ("font", "color", "size"):
            return st[prop]
        if prop == "properties":
            return {"font": st["font"], "color": st["color"], "class": Constant("text"), "size": st["size"]}
        raise AppleScriptError(f"Can’t get {prop} of object text.", ERR_NO_SUCH_OBJECT)

    def item_text_set(self, obj: ObjectRef, prop: str, value: Any) -> None:
        it = self.item(ObjectRef("shape", obj.id))
        st = it.setdefault("text style", {})
        if prop == "font":
            st["font"] = font_name(value, "font of object text")
        elif prop == "color":
            st["color"] = color(value, "color of object text")
        elif prop == "size":
            st["size"] = number(value, "size of object text", 1, 1000)
        else:
            raise AppleScriptError(f"Can’t set {prop} of object text.", -10006)

    def item_set(self, obj: ObjectRef, prop: str, value: Any) -> None:
        if self.is_table_part(obj):
            return self._part_set(obj, prop, value)
        it = self.item(obj)
        what = f"{prop} of {it['class']} id {it['id']}"
        if it.get("locked") and prop not in ("locked",):
            raise AppleScriptError(f"Can’t set {what}: the {it['class']} is locked.", ERR_APP_GENERIC)
        if prop == "position":
            it["position"] = position(value, what)
        elif prop in ("width", "height"):
            it[prop] = number(value, what, 1, MAX_COORD)
        elif prop == "rotation":
            it[prop] = number(value, what, -MAX_COORD, MAX_COORD) % 360
        elif prop in ("opacity", "reflection value"):
            it[prop] = number(value, what, 0, 100)
        elif prop in ("locked", "reflection showing"):
            if not isinstance(value, bool):
                raise _bad(f"Can’t make {source_form(value)[:100]} into type boolean for {what}.")
            it[prop] = value
        elif prop == "object text" and it["class"] in ("shape", "text item"):
            it["object text"] = _bounded_text(value, what, MAX_OBJECT_TEXT)
        elif it["class"] == "table" and prop == "name":
            it["name"] = _bounded_text(value, what, 255) or it.get("name", "Table 1")
        elif it["class"] == "table" and prop in ("row count", "column count"):
            n = number(value, what, 1, MAX_TABLE_ROWS if prop == "row count" else MAX_TABLE_COLUMNS)
            rows = n if prop == "row count" else it["row count"]
            cols = n if prop == "column count" else it["column count"]
            if not isinstance(n, int) or rows * cols > MAX_TABLE_CELLS:
                raise _bad(f"Can’t set {what} to {source_form(value)}: a table holds at most {MAX_TABLE_CELLS} cells.")
            it[prop] = n
            it["cells"] = {k: v for k, v in it.get("cells", {}).items()
                           if int(k.split(",")[0]) < rows and int(k.split(",")[1]) < cols}
        elif it["class"] == "image" and prop == "description":
            it["description"] = _bounded_text(value, what, 10_000)
        else:
            raise AppleScriptError(f"Can’t set {what} to {source_form(value)[:100]}.", -10006)

    # -- table parts
    def _part(self, obj: ObjectRef) -> tuple[dict[str, Any], int | None, int | None]:
        t = self.item(ObjectRef("table", obj.id[:3]))
        if obj.cls == "cell":
            r, c = obj.id[3], obj.id[4]
        elif obj.cls == "row":
            r, c = obj.id[3], None
        else:
            r, c = None, obj.id[3]
        if (r is not None and not 0 <= r < t["row count"]) or (c is not None and not 0 <= c < t["column count"]):
            raise AppleScriptError(f"Can’t get {obj.cls}: the table is {t['row count']}×{t['column count']}.",
                                   ERR_NO_SUCH_OBJECT)
        return t, r, c

    def _part_get(self, obj: ObjectRef, prop: str) -> Any:
        t, r, c = self._part(obj)
        if obj.cls == "cell":
            raw = t.get("cells", {}).get(f"{r},{c}")
            if prop == "value":
                return raw
            if prop in ("formatted value", "text"):
                return "" if raw is None else _display(raw)
            if prop == "name":
                return f"{column_letters(c)}{r + 1}"
            if prop == "row":
                return ObjectRef("row", (*obj.id[:3], r))
            if prop == "column":
                return ObjectRef("column", (*obj.id[:3], c))
            if prop == "background color":
                bg = t.get("background colors", {}).get(f"{r},{c}")
                return list(bg) if bg is not None else None
            if prop == "properties":
                return {"class": Constant("cell"), "name": f"{column_letters(c)}{r + 1}", "value": raw,
                        "formatted value": "" if raw is None else _display(raw)}
        else:
            if prop in ("address", "index"):
                return (r if obj.cls == "row" else c) + 1
            if prop == "name":
                return str(r + 1) if obj.cls == "row" else column_letters(c)
        raise AppleScriptError(f"Can’t get {prop} of {obj.cls}.", ERR_NO_SUCH_OBJECT)

    def _part_set(self, obj: ObjectRef, prop: str, value: Any) -> None:
        t, r, c = self._part(obj)
        if obj.cls == "cell" and prop == "value":
            cells = t.setdefault("cells", {})
            if value is None or value == "":
                cells.pop(f"{r},{c}", None)
            elif isinstance(value, bool) or isinstance(value, (int, float)):
                cells[f"{r},{c}"] = value
            else:
                cells[f"{r},{c}"] = _bounded_text(value, "value of cell", MAX_CELL_TEXT)
            return
        if obj.cls == "cell" and prop == "background color":
            t.setdefault("background colors", {})[f"{r},{c}"] = color(value, "background color of cell")
            return
        raise AppleScriptError(f"Can’t set {prop} of {obj.cls}.", -10006)

    # ---------------------------------------------------------------- make / delete
    def item_make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        place = self.item_container(at)
        if place is None:
            raise AppleScriptError(f"Can’t make a {cls} there: give a {'slide' if self.item_frame[0] > 1000 else 'document'}.",
                                   -10024)
        doc_id, key = place
        items = self.item_list(doc_id, key)
        if len(items) >= MAX_ITEMS:
            raise AppleScriptError(f"Can’t make another {cls}: a container holds at most {MAX_ITEMS} items.", ERR_APP_GENERIC)
        fw, fh = self.item_frame
        iid = max([it["id"] for it in items] + [0]) + 1
        it: dict[str, Any] = {"class": cls, "id": iid, "rotation": 0, "opacity": 100, "locked": False,
                              "reflection showing": False, "reflection value": 0}
        if cls == "image":
            if "file" not in properties:
                raise AppleScriptError("Can’t make an image without its file: give “with properties {file:…}”.", -1701)
            it["file"], (w, h) = self._image_file(properties["file"])
            scale = min(1.0, fw / w, fh / h)
            it["width"], it["height"] = max(1, round(w * scale)), max(1, round(h * scale))
        elif cls == "table":
            rows = number(properties.get("row count", 4), "row count", 1, MAX_TABLE_ROWS)
            cols = number(properties.get("column count", 4), "column count", 1, MAX_TABLE_COLUMNS)
            if not isinstance(rows, int) or not isinstance(cols, int) or rows * cols > MAX_TABLE_CELLS:
                raise _bad(f"Can’t make a table of {source_form(properties.get('row count'))} × "
                           f"{source_form(properties.get('column count'))}: a table holds at most {MAX_TABLE_CELLS} "
                           f"cells ({MAX_TABLE_ROWS} rows, {MAX_TABLE_COLUMNS} columns).")
            n = 1 + sum(1 for x in items if x["class"] == "table")
            it.update({"row count": rows, "column count": cols, "cells": {}, "name": f"Table {n}",
                       "header row count": 1, "header column count": 1, "footer row count": 0,
                       "width": cols * 100, "height": rows * 30})
        elif cls == "text item":
            it.update({"object text": "", "width": 300, "height": 60})
        else:
            it.update({"object text": "", "width": 100 if fw < 1000 else 200, "height": 100 if fw < 1000 else 200})
        it["position"] = [max(0, (fw - it["width"]) // 2), max(0, (fh - it["height"]) // 2)]
        ref = ObjectRef(cls, (doc_id, key, iid))
        items.append(it)
        try:
            for prop, value in properties.items():
                if prop in ("file", "row count", "column count", "class"):
                    continue
                if prop in ("font", "color", "size"):
                    self.item_text_set(ObjectRef("item text", ref.id), prop, value)
                else:
                    self.item_set(ref, prop, value)
        except AppleScriptError:
            items.remove(it)  # nothing half-made stays
            raise
        return ref

    def _image_file(self, value: Any) -> tuple[str, tuple[int, int]]:
        from PIL import Image, UnidentifiedImageError

        path = self.host_path(value, "insert the image")
        files = self.app.desktop.home_files
        try:
            data = files.read_bytes(path, limit=MAX_IMAGE_BYTES)
        except OSError as e:
            raise AppleScriptError(f"The image “{path.name}” couldn’t be opened: {getattr(e, 'strerror', None) or e}.",
                                   -43) from None
        try:
            with Image.open(io.BytesIO(data)) as img:
                size = img.size
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
            raise AppleScriptError(f"The file “{path.name}” is not an image Keynote or Pages can read.", ERR_APP_GENERIC) from None
        if not (size[0] > 0 and size[1] > 0):
            raise AppleScriptError(f"The image “{path.name}” has no pixels.", ERR_APP_GENERIC)
        return self.app.desktop.backend.posix_path(path), size

    def item_delete(self, obj: ObjectRef) -> None:
        doc_id, key, iid = obj.id
        items = self.item_list(doc_id, key)
        it = self.item(obj)
        if it.get("locked"):
            raise AppleScriptError(f"Can’t delete {it['class']} id {iid}: it is locked.", ERR_APP_GENERIC)
        items.remove(it)


_MAX_DRAWN_CELLS = 200  # a table shows its first cells' text on screen (the rest is still in the model)


def item_widgets(items: list[dict[str, Any]], frame: tuple[int, int, int, int], points: tuple[int, int],
                 text_color: tuple[int, int, int]) -> list[Any]:
    """What a slide / page shows of its items: shapes as filled boxes, text items and shapes' text,
    images as framed placeholders with their file name, tables as grids with their cells' text.
    ``frame`` is the slide's or page's rectangle in the window, ``points`` its size in points; items
    are clipped to the frame (an item placed far off shows nothing)."""
    from ..widgets import Box, Label

    fx, fy, fw, fh = frame
    k = fw / points[0]
    out: list[Any] = []
    drawn = 0  # cell texts drawn on this slide/page, all tables together
    for it in items:
        x, y = it.get("position", [0, 0])
        w, h = it.get("width", 0), it.get("height", 0)
        x0, y0 = max(fx, fx + int(x * k)), max(fy, fy + int(y * k))
        x1, y1 = min(fx + fw, fx + int((x + w) * k)), min(fy + fh, fy + int((y + h) * k))
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        rect = (x0, y0, x1 - x0, y1 - y0)
        kind = it["class"]
        if kind == "shape":
            out.append(Box(rect, (86, 156, 214), outline=(40, 90, 160)))
        elif kind == "image":
            out.append(Box(rect, (210, 214, 220), outline=(120, 120, 130)))
            out.append(Label((x0 + 4, y0 + 4, max(1, x1 - x0 - 8), 16), it.get("file", "").rsplit("/", 1)[-1], 11,
                             color=(60, 60, 70)))
        elif kind == "table":
            rows, cols = it["row count"], it["column count"]
            out.append(Box(rect, (255, 255, 255), outline=(150, 150, 155)))
            ch, cw = (y1 - y0) / rows, (x1 - x0) / cols
            for r in range(1, rows):
                if ch >= 2:  # grid lines only where rows are apart on screen
                    out.append(Box((x0, y0 + int(r * ch), x1 - x0, 1), (190, 190, 195)))
            for c in range(1, cols):
                if cw >= 2:
                    out.append(Box((x0 + int(c * cw), y0, 1, y1 - y0), (190, 190, 195)))
            for key, value in it.get("cells", {}).items():
                if drawn >= _MAX_DRAWN_CELLS:
                    break
                r, c = (int(v) for v in key.split(","))
                out.append(Label((x0 + int(c * cw) + 2, y0 + int(r * ch) + 1, max(1, int(cw) - 4), max(1, int(ch) - 2)),
                                 _display(value), max(8, min(14, int(ch * 0.6))), color=(20, 20, 20)))
                drawn += 1
        text = it.get("object text", "") if kind in ("shape", "text item") else ""
        if text:
            size = it.get("text style", {}).get("size", 24)
            rgb = it.get("text style", {}).get("color")
            colour = tuple(c // 257 for c in rgb) if rgb else text_color
            out.append(Label((x0 + 2, y0 + 2, max(1, x1 - x0 - 4), max(1, y1 - y0 - 4)), text.split("\n")[0],
                             max(8, min(64, int(size * k))), color=colour))
    return out


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".heic", ".webp"})


def image_chooser(app: Any, parent: Any, on_choose: Callable[[Any], Any]) -> Any:
    """Insert ▸ Choose…: a sheet listing the images in a location (Desktop first, as Keynote's panel
    opens there), Cancel and Insert; ``on_choose(host_path)`` gets the chosen file. Listing goes through
    the home's confined layer (a bounded listing; symlinks are listed as the layer reports them and
    refused when read)."""
    from ..widgets import Button, Label, ListView, PopupButton, Row
    from ..window import Window
    from .file_panels import LOCATIONS, PANEL_LIMIT, location_dir

    w, h = 460, 330
    form: dict[str, Any] = {"where": "Desktop", "selected": None}

    def build(sheet: Any) -> list[Any]:
        folder = location_dir(app.desktop.home, form["where"])
        try:
            entries = [e for e in app.desktop.home_files.listdir(folder, limit=PANEL_LIMIT)
                       if not e.name.startswith(".") and e.kind == "file" and Path(e.name).suffix.lower() in IMAGE_SUFFIXES]
        except OSError:
            entries = []
        rows = [Row(e.name, [e.name], icon="document") for e in sorted(entries, key=lambda e: e.name.lower())]

        def choose(name: str | None) -> None:
            if not name:
                return
            app.desktop.close_window(sheet)
            on_choose(location_dir(app.desktop.home, form["where"]) / name)

        return [
            Label((20, 14, w - 40, 20), "Choose an image to insert", 13, "bold"),
            PopupButton("image:where", (20, 40, 200, 24), list(LOCATIONS), form["where"],
                        lambda v: (form.update(where=v, selected=None), sheet.touch()), name="Where"),
            ListView("image:files", (20, 74, w - 40, h - 130), rows, [form["selected"]] if form["selected"] else [],
                     name="Images", on_select=lambda ks: form.__setitem__("selected", ks[0] if ks else None),
                     on_activate=choose, empty_text="No images"),
            Button("image:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: app.desktop.close_window(sheet), cancel=True),
            Button("image:insert", (w - 104, h - 44, 84, 26), "Insert", lambda: choose(form["selected"]), default=True),
        ]

    sheet = Window(app, "Choose", (0, 0, w, h), build, parent=parent, kind="sheet")
    sheet.focus_key = "image:files"
    app.desktop.show_window(sheet)
    return sheet


def _bounded_text(value: Any, what: str, limit: int) -> str:
    text = str(value)
    if len(text) > limit:
        raise _bad(f"Can’t set {what}: {len(text)} characters is more than the {limit} it holds.")
    return text


def _display(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
