"""Keynote: presentations. File > New opens the theme chooser (Basic White, Basic Black, Classic
White, …); a document window has the slide navigator on the left (select, Delete to remove, drag to
reorder), the current slide with its title and body placeholders, the toolbar's Add Slide button and
slide-layout pop-up, and presenter notes (View > Show Presenter Notes). Slide > New Slide (⇧⌘N) adds a
"Title & Bullets" slide after the current one. Save writes a ``.key`` document (see ``iwork.py``); File
> Export To writes PDF, PowerPoint (.pptx) and slide images (a folder of ``<name>.001.png`` …).

AppleScript follows Keynote's dictionary: ``documents`` (``document theme``, ``slides``, ``master
slides`` / ``slide layouts``, ``current slide``, ``width``, ``height``), ``themes``, ``slides``
(``base slide`` / ``base layout``, ``default title item``, ``default body item``, ``presenter notes``,
``skipped``, ``slide number``, ``title showing``, ``body showing``), their items' ``object text``;
``make new document with properties {document theme:theme "Basic Black"}``, ``make new slide``,
``delete slide …``, ``export … as PDF | Microsoft PowerPoint | slide images``, save/open/close."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....applescript.errors import ERR_APP_GENERIC, ERR_NO_SUCH_OBJECT, AppleScriptError
from ....applescript.model import ObjectRef
from ....applescript.values import Constant
from ..menus import MenuItem
from ..widgets import Box, Button, ListView, PopupButton, Row, TextField, Widget
from ..window import Window
from .iwork import (ExportFormat, IWorkApp, IWorkDoc, IWorkFileError, IWorkScripting, Slide, write_pptx,
                    write_slide_images, write_slides_pdf)
from .iwork_items import (DEFAULT_FONT, ITEM_CLASSES, ItemScripting, check_items, color, font_name, image_chooser,
                          item_widgets, number)
from ....applescript.values import RichText

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    """A Keynote theme: background, title and body colours, and its id as Keynote's dictionary gives
    it (``Application/<folder>/Standard`` for the themes that come with Keynote)."""

    name: str
    background: RGB
    title_color: RGB
    body_color: RGB
    folder: str = ""

    @property
    def id(self) -> str:
        return f"Application/{self.folder or self.name.replace(' ', '')}/Standard"


THEMES: tuple[Theme, ...] = (
    Theme("Basic White", (255, 255, 255), (0, 0, 0), (60, 60, 60), "21_BasicWhite"),
    Theme("Basic Black", (0, 0, 0), (255, 255, 255), (200, 200, 200), "20_BasicBlack"),
    Theme("Classic White", (250, 249, 244), (28, 36, 72), (70, 70, 80), "22_ClassicWhite"),
    Theme("Basic Color", (44, 98, 190), (255, 255, 255), (225, 232, 250), "23_BasicColor"),
    Theme("Gradient", (36, 52, 110), (255, 255, 255), (205, 215, 240), "31_Gradient"),
    Theme("Showroom", (58, 58, 64), (250, 250, 250), (210, 210, 214), "42_Showroom"),
    Theme("Editorial", (244, 239, 228), (150, 40, 32), (60, 50, 40), "40_Editorial"),
    Theme("Slate", (72, 82, 92), (255, 255, 255), (220, 226, 232), "41_Slate"),
)
THEME_NAMES = tuple(t.name for t in THEMES)
THEME_BY_ID = {t.id: t.name for t in THEMES}

# slide layout ("master slide") → (title showing, body showing)
LAYOUTS: dict[str, tuple[bool, bool]] = {
    "Title": (True, True), "Title & Photo": (True, True), "Title & Bullets": (True, True), "Bullets": (False, True),
    "Title, Bullets & Photo": (True, True), "Section": (True, False), "Title Only": (True, False),
    "Agenda": (True, True), "Statement": (False, True), "Big Fact": (True, True), "Quote": (False, True),
    "Photo - 3 Up": (False, False), "Photo": (False, False), "Blank": (False, False),
}
LAYOUT_NAMES = tuple(LAYOUTS)
FIRST_LAYOUT = "Title"          # a new presentation starts with one Title slide
NEW_SLIDE_LAYOUT = "Title & Bullets"


def theme(name: str) -> Theme:
    for t in THEMES:
        if t.name == name:
            return t
    raise KeyError(name)


@dataclass
class KSlide:
    """One slide: its layout, title and body text, presenter notes and whether it is skipped."""

    id: int
    layout: str
    title: str = ""
    body: str = ""
    notes: str = ""
    skipped: bool = False
    title_showing: bool = True
    body_showing: bool = True
    items: list[dict[str, Any]] = field(default_factory=list)  # shapes, text items, images, tables (iwork_items)
    styles: dict[str, dict[str, Any]] = field(default_factory=dict)  # "title"/"body": font, color, size set by scripts

    def to_content(self) -> dict[str, Any]:
        out = {"layout": self.layout, "title": self.title, "body": self.body, "presenter notes": self.notes,
               "skipped": self.skipped, "title showing": self.title_showing, "body showing": self.body_showing}
        if self.items:
            out["items"] = self.items
        if self.styles:
            out["text styles"] = self.styles
        return out


#: where a layout's default title and body items sit on the 1920×1080 slide: (x, y, width, height)
DEFAULT_FRAMES: dict[str, dict[str, tuple[int, int, int, int]]] = {
    "Title": {"title": (150, 250, 1620, 320), "body": (150, 600, 1620, 200)},
    "Section": {"title": (150, 380, 1620, 320)}, "Title Only": {"title": (150, 60, 1620, 200)},
    "Statement": {"body": (150, 300, 1620, 480)}, "Quote": {"body": (150, 300, 1620, 480)},
}
_DEFAULT_FRAME = {"title": (150, 60, 1620, 200), "body": (150, 300, 1620, 700)}
#: the default size of a layout's title and body text (points)
DEFAULT_SIZES = {"title": 80, "body": 48}


@dataclass
class KeynoteModel:
    """A presentation: theme, slides and the index of the current slide."""

    theme: str
    slides: list[KSlide] = field(default_factory=list)
    current: int = 0
    next_id: int = 1

    def add_slide(self, layout: str, at: int | None = None, **values: Any) -> KSlide:
        t, b = LAYOUTS[layout]
        s = KSlide(self.next_id, layout, title_showing=t, body_showing=b, **values)
        self.next_id += 1
        self.slides.insert(len(self.slides) if at is None else at, s)
        return s

    def index_of(self, slide_id: int) -> int:
        for i, s in enumerate(self.slides):
            if s.id == slide_id:
                return i
        raise KeyError(slide_id)

    def current_slide(self) -> KSlide | None:
        if not self.slides:
            return None
        self.current = max(0, min(self.current, len(self.slides) - 1))
        return self.slides[self.current]

    def export_slides(self) -> list[Slide]:
        th = theme(self.theme)
        return [Slide(s.title, s.body, s.notes, s.layout, s.title_showing, s.body_showing, th.background,
                      th.title_color, th.body_color) for s in self.slides]

    def to_content(self) -> dict[str, Any]:
        return {"theme": self.theme, "slides": [s.to_content() for s in self.slides]}


def _rgb16(rgb: RGB) -> list[int]:
    return [c * 257 for c in rgb]


class KeynoteScripting(ItemScripting, IWorkScripting):
    """Keynote's dictionary over the open presentations (see the module docstring)."""

    extra_classes = {"slide": "slides", "master slide": "master slides", "slide layout": "slide layouts",
                     "theme": "themes", "shape": "shapes", "text item": "text items", "image": "images",
                     "table": "tables", "iWork item": "iWork items", "row": "rows", "column": "columns",
                     "cell": "cells"}
    extra_properties = frozenset({"document theme", "slide number", "base slide", "base layout", "title showing",
                                  "body showing", "skipped", "default title item", "default body item",
                                  "presenter notes", "object text", "current slide", "width", "height",
                                  "slide numbers showing", "image format", "position", "rotation", "opacity",
                                  "locked", "reflection showing", "reflection value", "background fill type",
                                  "parent", "file", "file name", "description", "row count", "column count",
                                  "value", "formatted value", "font", "color", "size", "text", "background color",
                                  "header row count", "header column count", "footer row count", "address"})
    extra_constants = frozenset({"HTML", "QuickTime movie", "Keynote 09", "PNG", "JPEG", "TIFF", "no fill",
                                 "color fill", "gradient fill", "image fill"})
    item_frame = (1920, 1080)

    # ------------------------------------------------------------------ items (iwork_items)
    def item_list(self, doc_id: Any, key: Any) -> list[dict[str, Any]]:
        return self.slide(ObjectRef("slide", (doc_id, key))).items

    def item_container(self, ref: ObjectRef | None) -> tuple[Any, Any] | None:
        if ref is not None and ref.cls == "slide" and isinstance(ref.id, tuple):
            self.slide(ref)
            return ref.id
        d = self.app.front_document() if ref is None else (self.doc(ref) if ref.cls == "document" else None)
        if d is None:
            return None
        cur = d.model.current_slide()
        return None if cur is None else (d.id, cur.id)

    def item_parent(self, doc_id: Any, key: Any) -> ObjectRef:
        return ObjectRef("slide", (doc_id, key))

    def text_defaults(self, doc_id: Any) -> tuple[list[int], float]:
        return _rgb16(theme(self._model(doc_id).theme).body_color), 36

    def _default_style(self, s: KSlide, which: str, doc_id: int) -> dict[str, Any]:
        th = theme(self._model(doc_id).theme)
        base = {"font": DEFAULT_FONT, "color": _rgb16(th.title_color if which == "title" else th.body_color),
                "size": DEFAULT_SIZES[which]}
        return {**base, **s.styles.get(which, {})}

    def _default_frame(self, s: KSlide, which: str) -> tuple[int, int, int, int]:
        return DEFAULT_FRAMES.get(s.layout, _DEFAULT_FRAME).get(which, _DEFAULT_FRAME[which])
    record_properties = ("document theme", "current slide", "width", "height", "slide numbers showing")

    # ------------------------------------------------------------------ lookups
    def _model(self, doc_id: int) -> KeynoteModel:
        d = self.app.find_document(doc_id)
        if d is None:
            raise AppleScriptError(f"Can’t get document id {doc_id}.", ERR_NO_SUCH_OBJECT)
        return d.model

    def slide(self, obj: ObjectRef) -> KSlide:
        doc_id, slide_id = obj.id
        m = self._model(doc_id)
        try:
            return m.slides[m.index_of(slide_id)]
        except KeyError:
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT) from None

    def _slide_ref(self, doc_id: int, s: KSlide) -> ObjectRef:
        return ObjectRef("slide", (doc_id, s.id))

    def _item(self, obj: ObjectRef) -> tuple[KSlide, str]:
        doc_id, slide_id, which = obj.id[:3]
        s = self.slide(ObjectRef("slide", (doc_id, slide_id)))
        if not (s.title_showing if which == "title" else s.body_showing):
            raise AppleScriptError(f"Can’t get default {which} item of slide {self._model(doc_id).index_of(s.id) + 1}: "
                                   f"the slide’s “{which} showing” is false.", ERR_NO_SUCH_OBJECT)
        return s, which

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "slide" and isinstance(obj.id, tuple):
            d = self.app.find_document(obj.id[0])
            if d is not None:
                try:
                    n = d.model.index_of(obj.id[1]) + 1
                    return f'slide {n} of document "{d.name}" of application "Keynote"'
                except KeyError:
                    pass
        if obj.cls in ("master slide", "slide layout") and isinstance(obj.id, tuple):
            return f'{obj.cls} "{obj.id[1]}" of application "Keynote"'
        if obj.cls == "theme":
            return f'theme id "{theme(obj.id).id}" of application "Keynote"' if obj.id in THEME_NAMES else \
                f'theme "{obj.id}" of application "Keynote"'
        if self.is_item_ref(obj):
            return f"{obj.cls} id {obj.id[2]} of {self.describe(ObjectRef('slide', obj.id[:2]))}"
        if obj.cls in ("shape", "text item") and isinstance(obj.id, tuple):
            return f"default {obj.id[2]} item of {self.describe(ObjectRef('slide', obj.id[:2]))}"
        return super().describe(obj)

    def display_form(self, obj: ObjectRef) -> str | None:
        """How osascript prints a theme (``theme id Application/20_BasicBlack/Standard``) and the
        items of a slide (``image 1 of slide 1 of document Untitled``)."""
        if obj.cls == "theme" and obj.id in THEME_NAMES:
            return f"theme id {theme(obj.id).id}"
        return None

    def element_by_id(self, container: ObjectRef | None, cls: str, ident: Any) -> ObjectRef | None:
        if cls == "theme" and container is None:
            name = THEME_BY_ID.get(str(ident))
            return ObjectRef("theme", name) if name is not None else None
        return None

    def _layout_name(self, value: Any) -> str:
        if isinstance(value, ObjectRef) and value.cls in ("master slide", "slide layout"):
            return str(value.id[1])
        name = value.name if isinstance(value, Constant) else str(value)
        if name not in LAYOUTS:
            raise AppleScriptError(f"Can’t get master slide \"{name}\". The theme has {', '.join(LAYOUT_NAMES)}.",
                                   ERR_NO_SUCH_OBJECT)
        return name

    def _theme_name(self, value: Any) -> str:
        name = str(value.id) if isinstance(value, ObjectRef) and value.cls == "theme" else str(value)
        name = THEME_BY_ID.get(name, name)  # a theme's id names it too
        if name not in THEME_NAMES:
            raise AppleScriptError(f"Can’t get theme \"{name}\". Keynote has the themes {', '.join(THEME_NAMES)}.",
                                   ERR_NO_SUCH_OBJECT)
        return name

    # ------------------------------------------------------------------ hooks
    def elements_extra(self, container: ObjectRef | None, cls: str) -> list[ObjectRef] | None:
        if container is None and cls == "theme":
            return [ObjectRef("theme", n) for n in THEME_NAMES]
        if container is None and cls in ("slide", "master slide", "slide layout"):
            d = self.app.front_document()  # the application's slides: those of the front document
            if d is None:
                raise AppleScriptError(f"Can’t get every {cls}: no document is open.", ERR_NO_SUCH_OBJECT)
            return self.elements_extra(ObjectRef("document", d.id), cls)
        if container is not None and container.cls == "document":
            m = self.doc(container).model
            if cls == "slide":
                return [self._slide_ref(container.id, s) for s in m.slides]
            if cls in ("master slide", "slide layout"):
                return [ObjectRef(cls, (container.id, n)) for n in LAYOUT_NAMES]
        if container is not None and container.cls == "slide" and cls in (*ITEM_CLASSES, "iWork item"):
            s = self.slide(container)
            doc_id, sid = container.id
            # the default title and body items are shapes (Keynote's dictionary: "default title item (shape)"),
            # not text items: a slide's text items are the text boxes added to it
            defaults = [] if cls in ("image", "table", "text item") else [
                ObjectRef("shape", (doc_id, sid, w))
                for w, on in (("title", s.title_showing), ("body", s.body_showing)) if on]
            return defaults + (self.item_elements(container, cls) or [])
        if container is not None:
            found = self.item_elements(container, cls)
            if found is not None:
                return found
        return None

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if cls == "table" and container is not None and container.cls == "slide":
            return self.table_by_name(container, name)
        if cls == "cell" and container is not None:
            return self.cell_by_name(container, name)
        if cls == "theme" and container is None:
            return ObjectRef("theme", str(name)) if str(name) in THEME_NAMES else None
        if cls in ("master slide", "slide layout") and str(name) in LAYOUTS:
            if container is None:
                d = self.app.front_document()
                return ObjectRef(cls, (d.id if d else 0, str(name)))
            if container.cls == "document":
                return ObjectRef(cls, (container.id, str(name)))
        return super().element_by_name(container, cls, name)

    def get_extra(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None:
            return super().get_extra(obj, prop)
        if obj.cls == "theme" and prop == "name":
            return obj.id
        if obj.cls == "theme" and prop == "id":
            return theme(self._theme_name(obj)).id
        if obj.cls == "theme" and prop == "properties":
            return {"class": Constant("theme"), "id": theme(self._theme_name(obj)).id, "name": obj.id}
        if obj.cls in ("master slide", "slide layout") and prop in ("name", "id"):
            return obj.id[1]
        if obj.cls == "document":
            m: KeynoteModel = self.doc(obj).model
            if prop == "document theme":
                return ObjectRef("theme", m.theme)
            if prop == "current slide":
                s = m.current_slide()
                return None if s is None else self._slide_ref(obj.id, s)
            if prop == "width":
                return 1920
            if prop == "height":
                return 1080
            if prop == "slide numbers showing":
                return False
        if obj.cls == "slide":
            s = self.slide(obj)
            doc_id = obj.id[0]
            values = {
                "slide number": self._model(doc_id).index_of(s.id) + 1,
                "base slide": ObjectRef("master slide", (doc_id, s.layout)),
                "base layout": ObjectRef("slide layout", (doc_id, s.layout)),
                "title showing": s.title_showing, "body showing": s.body_showing, "skipped": s.skipped,
                "presenter notes": s.notes,
            }
            if prop in values:
                return values[prop]
            if prop in ("default title item", "default body item"):
                which = prop.split()[1]
                ref = ObjectRef("shape", (doc_id, s.id, which))
                self._item(ref)
                return ref
            if prop == "properties":
                return {"class": Constant("slide"), **values}
        if self.is_item_ref(obj) or self.is_table_part(obj):
            return self.item_get(obj, prop)
        if obj.cls == "item text":
            return self.item_text_get(obj, prop)
        if obj.cls == "default text":
            s, which = self._item(obj)
            st = self._default_style(s, which, obj.id[0])
            if prop == "text":
                return s.title if which == "title" else s.body
            if prop in st:
                return st[prop]
            if prop == "properties":
                return {"font": st["font"], "color": st["color"], "class": Constant("text"), "size": st["size"]}
        if obj.cls in ("shape", "text item"):
            s, which = self._item(obj)
            x, y, w, h = self._default_frame(s, which)
            text = s.title if which == "title" else s.body
            values = {"opacity": 100, "parent": ObjectRef("slide", obj.id[:2]), "class": Constant(obj.cls),
                      "reflection showing": False, "background fill type": Constant("no fill"), "position": [x, y],
                      "object text": RichText(text, ObjectRef("default text", obj.id)), "width": w, "rotation": 0,
                      "reflection value": 0, "height": h, "locked": False}
            if prop in values:
                return values[prop]
            if prop == "name":
                return f"{which.capitalize()} Placeholder"
            if prop == "properties":
                return {**values, "object text": text}
        return super().get_extra(obj, prop)

    def set_extra(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "document":
            m: KeynoteModel = self.doc(obj).model
            if prop == "document theme":
                m.theme = self._theme_name(value)
                return
            if prop == "current slide" and isinstance(value, ObjectRef) and value.cls == "slide":
                m.current = m.index_of(self.slide(value).id)
                return
        if obj is not None and obj.cls == "slide":
            s = self.slide(obj)
            if prop in ("base slide", "base layout"):
                s.layout = self._layout_name(value)
                s.title_showing, s.body_showing = LAYOUTS[s.layout]
                return
            if prop in ("title showing", "body showing", "skipped"):
                if not isinstance(value, bool):
                    raise AppleScriptError(f"Can’t make {self._show(value)} into type boolean.", -1700)
                setattr(s, prop.replace(" ", "_") if prop != "skipped" else "skipped", value)
                return
            if prop == "presenter notes":
                s.notes = str(value)
                return
        if self.is_item_ref(obj) or self.is_table_part(obj):
            self.item_set(obj, prop, value)
            return
        if obj is not None and obj.cls == "item text":
            self.item_text_set(obj, prop, value)
            return
        if obj is not None and obj.cls == "default text" and prop in ("font", "color", "size"):
            s, which = self._item(obj)
            check = {"font": lambda v: font_name(v, "font of object text"), "color": lambda v: color(v, "color of object text"),
                     "size": lambda v: number(v, "size of object text", 1, 1000)}[prop]
            s.styles.setdefault(which, {})[prop] = check(value)
            return
        if obj is not None and obj.cls in ("shape", "text item") and prop == "object text":
            s, which = self._item(obj)
            setattr(s, which, str(value))
            return
        super().set_extra(obj, prop, value)

    def make_document(self, properties: dict[str, Any]) -> IWorkDoc:
        name = self._theme_name(properties.get("document theme", "Basic White"))
        return self.app.new_document(name)

    def make_extra(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        if cls in ITEM_CLASSES:
            return self.item_make(cls, properties, at)
        if cls != "slide":
            raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)
        if at is None or at.cls != "document":
            d = self.app.find_document(at.id[0]) if at is not None and at.cls == "slide" else self.app.front_document()
            if d is None:
                raise AppleScriptError("Can’t make a slide: no document is open.", ERR_NO_SUCH_OBJECT)
        else:
            d = self.doc(at)
        layout = properties.get("base slide", properties.get("base layout", NEW_SLIDE_LAYOUT))
        m: KeynoteModel = d.model
        s = m.add_slide(self._layout_name(layout))
        for k in ("title showing", "body showing", "skipped"):
            if k in properties:
                setattr(s, k.replace(" ", "_") if k != "skipped" else "skipped", bool(properties[k]))
        if "presenter notes" in properties:
            s.notes = str(properties["presenter notes"])
        m.current = len(m.slides) - 1
        return self._slide_ref(d.id, s)

    def delete_extra(self, obj: ObjectRef) -> None:
        if self.is_item_ref(obj):
            return self.item_delete(obj)
        if obj.cls in ("shape", "text item") and isinstance(obj.id, tuple) and obj.id[2] in ("title", "body"):
            s, which = self._item(obj)  # deleting a default item hides it, as Keynote does
            setattr(s, f"{which}_showing", False)
            return None
        if obj.cls != "slide":
            return super().delete_extra(obj)
        s = self.slide(obj)
        m = self._model(obj.id[0])
        m.slides.remove(s)
        m.current_slide()


class KeynoteApp(IWorkApp):
    """Keynote; ``documents`` are the open presentations (``IWorkDoc`` with a ``KeynoteModel``)."""

    name = "Keynote"
    bundle_id = "com.apple.iWork.Keynote"
    kind = "keynote"
    open_suffixes = frozenset({".key"})
    chooser_title = "Choose a Theme"
    chooser_button = "Create"
    choices = THEME_NAMES
    default_choice = "Basic White"
    export_formats = (ExportFormat("PDF", "PDF", ".pdf"), ExportFormat("PowerPoint", "Microsoft PowerPoint", ".pptx"),
                      ExportFormat("Images", "slide images", ""))
    doc_size = (1000, 640)

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.scripting = KeynoteScripting(self)
        self.show_notes = False

    # ------------------------------------------------------------------ model
    def new_model(self, choice: str) -> KeynoteModel:
        m = KeynoteModel(choice)
        m.add_slide(FIRST_LAYOUT)
        return m

    def model_from_content(self, content: dict[str, Any], source: str) -> KeynoteModel:
        th = content.get("theme", "Basic White")
        slides = content.get("slides")
        if th not in THEME_NAMES:
            raise IWorkFileError(f"{source}: field 'theme' names no Keynote theme ({th!r}); expected one of "
                                 + ", ".join(THEME_NAMES))
        if not isinstance(slides, list):
            raise IWorkFileError(f"{source}: field 'slides' must be a list of slides")
        m = KeynoteModel(th)
        for i, s in enumerate(slides):
            if not isinstance(s, dict) or s.get("layout") not in LAYOUTS:
                raise IWorkFileError(f"{source}: slides[{i}] needs a 'layout' from {', '.join(LAYOUT_NAMES)}")
            for k in ("title", "body", "presenter notes"):
                if not isinstance(s.get(k, ""), str):
                    raise IWorkFileError(f"{source}: slides[{i}].{k} must be text")
            slide = m.add_slide(s["layout"], title=s.get("title", ""), body=s.get("body", ""),
                                notes=s.get("presenter notes", ""), skipped=bool(s.get("skipped", False)))
            slide.title_showing = bool(s.get("title showing", slide.title_showing))
            slide.body_showing = bool(s.get("body showing", slide.body_showing))
            try:
                slide.items = check_items(s.get("items", []), f"{source}: slides[{i}]")
            except ValueError as e:
                raise IWorkFileError(str(e)) from None
            styles = s.get("text styles", {})
            if not isinstance(styles, dict) or set(styles) - {"title", "body"} or not all(isinstance(v, dict) for v in styles.values()):
                raise IWorkFileError(f"{source}: slides[{i}].text styles must map title/body to font, color and size")
            slide.styles = {k: dict(v) for k, v in styles.items()}
        return m

    def model_to_content(self, model: KeynoteModel) -> dict[str, Any]:
        return model.to_content()

    def export(self, doc: IWorkDoc, fmt: ExportFormat, path: Path, options: dict[str, Any]) -> None:
        m: KeynoteModel = doc.model
        slides = m.export_slides()
        files = self.desktop.home_files
        if fmt.suffix == ".pdf":
            write_slides_pdf(files, path, slides, title=doc.name)
        elif fmt.suffix == ".pptx":
            write_pptx(files, path, slides)
        else:
            fmt_name = str(options.get("image format", "PNG"))
            if files.kind(path) not in (None, "dir"):
                raise ValueError(f"Can’t export slide images to “{path.name}”: a file with that name exists "
                                 "(slide images go into a folder)")
            write_slide_images(files, path, doc.name, slides, fmt_name)

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "documents": [
            {"name": d.name, "theme": d.model.theme, "current_slide": d.model.current + 1,
             "slides": [{"layout": s.layout, "title": s.title, "body": s.body, "presenter_notes": s.notes,
                         "skipped": s.skipped} for s in d.model.slides],
             "modified": d.modified, "path": self.desktop.backend.posix_path(d.path) if d.path else None}
            for d in self.documents_front_first()]}

    # ------------------------------------------------------------------ GUI actions
    def window_opened(self, win: Window) -> None:
        win.focus_key = "keynote:title"

    def _doc_win(self, win: Window | None) -> tuple[IWorkDoc, KeynoteModel] | None:
        if win is None or not isinstance(win.doc, IWorkDoc):
            return None
        return win.doc, win.doc.model

    def new_slide(self, win: Window | None, layout: str = NEW_SLIDE_LAYOUT) -> None:
        """Slide > New Slide: a slide after the current one; its title gets the focus."""
        got = self._doc_win(win)
        if got is None:
            return
        doc, m = got
        m.add_slide(layout, at=m.current + 1 if m.slides else 0)
        m.current = min(m.current + 1, len(m.slides) - 1) if len(m.slides) > 1 else 0
        doc.modified = True
        win.focus_key = "keynote:title" if LAYOUTS[layout][0] else ("keynote:body" if LAYOUTS[layout][1] else "keynote:navigator")
        self.touch()

    def delete_slides(self, win: Window, ids: list[int]) -> None:
        got = self._doc_win(win)
        if got is None:
            return
        doc, m = got
        m.slides = [s for s in m.slides if s.id not in ids]
        m.current_slide()
        doc.modified = True
        self.touch()

    def select_slide(self, win: Window, slide_id: int) -> None:
        got = self._doc_win(win)
        if got is None:
            return
        _, m = got
        m.current = m.index_of(slide_id)
        self.touch()

    def move_slides(self, win: Window, ids: list[int], before_id: int) -> None:
        """Drag in the navigator: the dragged slides go before the slide dropped on (after it when
        dragged downwards, as Keynote's insertion line does)."""
        got = self._doc_win(win)
        if got is None or before_id in ids:
            return
        doc, m = got
        moving = [s for s in m.slides if s.id in ids]
        target_index = m.index_of(before_id)
        down = m.index_of(moving[0].id) < target_index
        rest = [s for s in m.slides if s.id not in ids]
        j = rest.index(m.slides[target_index]) + (1 if down else 0)
        m.slides = rest[:j] + moving + rest[j:]
        m.current = m.slides.index(moving[0])
        doc.modified = True
        self.touch()

    def set_layout(self, win: Window, layout: str) -> None:
        got = self._doc_win(win)
        if got is None:
            return
        doc, m = got
        s = m.current_slide()
        if s is not None:
            s.layout = layout
            s.title_showing, s.body_showing = LAYOUTS[layout]
            doc.modified = True
            self.touch()

    def toggle_skip(self, win: Window | None) -> None:
        got = self._doc_win(win)
        if got is None:
            return
        doc, m = got
        s = m.current_slide()
        if s is not None:
            s.skipped = not s.skipped
            doc.modified = True
            self.touch()

    def toggle_notes(self) -> None:
        self.show_notes = not self.show_notes
        self.touch()

    def _edit(self, doc: IWorkDoc, slide: KSlide, field_: str, text: str) -> None:
        setattr(slide, field_, text)
        doc.modified = True

    def insert_item(self, win: Window | None, cls: str) -> None:
        """Insert ▸ Shape / Table / Text Box: a new item in the middle of the current slide."""
        got = self._doc_win(win)
        if got is None or got[1].current_slide() is None:
            return
        doc, m = got
        props = {"object text": "Text"} if cls == "text item" else {}
        try:
            self.scripting.item_make(cls, props, ObjectRef("slide", (doc.id, m.current_slide().id)))
        except AppleScriptError:
            return  # the slide is full: nothing is added, as the menu item would do nothing
        doc.modified = True
        self.touch()

    def insert_image(self, win: Window | None) -> None:
        """Insert ▸ Choose…: pick an image (Desktop first); it lands on the current slide at its size."""
        got = self._doc_win(win)
        if got is None or got[1].current_slide() is None:
            return
        doc, m = got
        slide_ref = ObjectRef("slide", (doc.id, m.current_slide().id))

        def chosen(path: Any) -> None:
            try:
                self.scripting.item_make("image", {"file": self.desktop.backend.posix_path(path)}, slide_ref)
            except AppleScriptError as e:
                from ..window import alert

                alert(self, win, "The image couldn’t be inserted.", str(e), [("OK", lambda: None)], cancel=0)
                return
            doc.modified = True
            self.touch()

        image_chooser(self, win, chosen)

    def extra_menus(self) -> list:
        fw = self._front()
        ok = self._doc_win(fw) is not None
        cur = self._doc_win(fw)[1].current_slide() if ok else None
        return [("Insert", [MenuItem("Choose…", lambda: self.insert_image(fw), "cmd+shift+v", enabled=cur is not None),
                            MenuItem("Shape", lambda: self.insert_item(fw, "shape"), enabled=cur is not None),
                            MenuItem("Table", lambda: self.insert_item(fw, "table"), enabled=cur is not None),
                            MenuItem("Text Box", lambda: self.insert_item(fw, "text item"), enabled=cur is not None)]),
                ("View", [MenuItem("Hide Presenter Notes" if self.show_notes else "Show Presenter Notes",
                                   self.toggle_notes)]),
                ("Slide", [MenuItem("New Slide", lambda: self.new_slide(fw), "cmd+shift+n", enabled=ok),
                           MenuItem("Don’t Skip Slide" if cur is not None and cur.skipped else "Skip Slide",
                                    lambda: self.toggle_skip(fw), enabled=cur is not None)])]

    def build_document(self, win: Window) -> list[Widget]:
        doc: IWorkDoc = win.doc
        m: KeynoteModel = doc.model
        th = theme(m.theme)
        W, H = win.w, win.h
        nav_w = 190
        cur = m.current_slide()
        out: list[Widget] = [Box((0, 52, nav_w, H - 52), "sidebar_bg"), Box((nav_w, 52, W - nav_w, H - 52), (90, 90, 96))]
        out.append(Button("keynote:add", (nav_w + 10, 14, 100, 24), "Add Slide", lambda: self.new_slide(win),
                          style="toolbar", symbol="+ Add Slide"))
        if cur is not None:
            out.append(PopupButton("keynote:layout", (nav_w + 124, 14, 170, 24), list(LAYOUT_NAMES), cur.layout,
                                   lambda v: self.set_layout(win, v), name="Slide Layout"))
        out.append(Button("keynote:notes", (W - 140, 14, 120, 24), "Presenter Notes", self.toggle_notes, style="toolbar",
                          symbol="Hide Notes" if self.show_notes else "Show Notes"))
        rows = []
        for i, s in enumerate(m.slides, 1):
            label = s.title.split("\n")[0] if s.title_showing and s.title else (s.body.split("\n")[0] if s.body else s.layout)
            rows.append(Row(str(s.id), [f"{i}   {label}"], color="secondary_text" if s.skipped else None))
        out.append(ListView("keynote:navigator", (0, 60, nav_w, H - 60), rows, [str(cur.id)] if cur else [],
                            name="Slide Navigator", on_select=lambda ks: self.select_slide(win, int(ks[-1])) if ks else None,
                            on_delete=lambda ks: self.delete_slides(win, [int(k) for k in ks]),
                            drag_kind="slides", multi=True, row_height=30,
                            drop_ok=lambda key, payload: payload[0] == "slides" and key not in payload[1],
                            on_drop=lambda key, payload: self.move_slides(win, [int(k) for k in payload[1]], int(key)),
                            empty_text="No Slides"))
        notes_h = 120 if self.show_notes else 0
        aw, ah = W - nav_w - 40, H - 52 - 40 - notes_h
        cw = min(aw, int(ah * 16 / 9))
        ch = int(cw * 9 / 16)
        cx, cy = nav_w + 20 + (aw - cw) // 2, 72
        out.append(Box((cx, cy, cw, ch), th.background, outline=(150, 150, 150)))
        if cur is not None:
            out.extend(item_widgets(cur.items, (cx, cy, cw, ch), (1920, 1080), th.body_color))
        if cur is not None:
            k = cw / 1920
            tsize, bsize = max(12, int(80 * k)), max(10, int(48 * k))
            if cur.title_showing:
                ted = win.editor("keynote:title", cur.title)
                out.append(TextField("keynote:title", (cx + int(100 * k), cy + int(90 * k), cw - int(200 * k), int(tsize * 1.8)),
                                     ted, bordered=False, size=tsize, weight="bold", color=th.title_color,
                                     placeholder="Double-click to add title", name="Title",
                                     on_change=lambda t, s=cur: self._edit(doc, s, "title", t)))
            if cur.body_showing:
                bed = win.editor("keynote:body", cur.body, multiline=True)
                top = cy + int(90 * k) + (int(tsize * 2.2) if cur.title_showing else 0)
                out.append(TextField("keynote:body", (cx + int(100 * k), top, cw - int(200 * k), cy + ch - top - int(60 * k)),
                                     bed, bordered=False, size=bsize, color=th.body_color, name="Body",
                                     placeholder="Double-click to add text",
                                     on_change=lambda t, s=cur: self._edit(doc, s, "body", t)))
            if self.show_notes:
                ned = win.editor("keynote:notes", cur.notes, multiline=True)
                out.append(Box((nav_w, H - notes_h, W - nav_w, notes_h), "content_bg"))
                out.append(TextField("keynote:notes", (nav_w + 10, H - notes_h + 8, W - nav_w - 20, notes_h - 16), ned,
                                     bordered=False, size=13, name="Presenter Notes", placeholder="Click to add notes",
                                     on_change=lambda t, s=cur: self._edit(doc, s, "notes", t)))
        if win.focus_key == "keynote:title" and cur is not None and not cur.title_showing:
            win.focus_key = "keynote:body" if cur.body_showing else "keynote:navigator"
        return out

    def paint_choice(self, d: Any, rect: tuple[int, int, int, int], choice: str) -> None:
        x, y, w, h = rect
        th = theme(choice)
        sh = int(w * 9 / 16)
        sy = y + (h - sh) // 2
        d.rectangle((x, sy, x + w - 1, sy + sh - 1), fill=th.background, outline=(160, 160, 165))
        d.rectangle((x + w // 6, sy + sh // 3, x + w * 5 // 6, sy + sh // 3 + 8), fill=th.title_color)
        d.rectangle((x + w // 4, sy + sh // 2 + 4, x + w * 3 // 4, sy + sh // 2 + 8), fill=th.body_color)

    @staticmethod
    def draw_icon(size: int) -> "Image.Image":
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (90, 170, 255), (20, 100, 230))
        # a screen on a stand over a lectern
        d.rounded_rectangle((int(S * 0.2), int(S * 0.2), int(S * 0.8), int(S * 0.56)), int(S * 0.03), fill=(255, 255, 255))
        d.rectangle((int(S * 0.28), int(S * 0.3), int(S * 0.6), int(S * 0.34)), fill=(30, 110, 230))
        d.rectangle((int(S * 0.28), int(S * 0.4), int(S * 0.72), int(S * 0.43)), fill=(150, 190, 240))
        d.rectangle((int(S * 0.48), int(S * 0.56), int(S * 0.52), int(S * 0.66)), fill=(240, 240, 245))
        d.polygon([(int(S * 0.32), int(S * 0.66)), (int(S * 0.68), int(S * 0.66)), (int(S * 0.62), int(S * 0.82)),
                   (int(S * 0.38), int(S * 0.82))], fill=(250, 250, 252))
        return _finish(img, size)
