"""Pages: word-processing documents. File > New opens the template chooser (Blank, Blank Landscape,
Blank Black and a few templates with placeholder text); a document window holds the body text with
paragraph styles (Title, Subtitle, Heading, Heading 2, Heading 3, Body, Caption) chosen from the
toolbar's style pop-up for the paragraph(s) at the cursor, a font size (Format > Bigger / Smaller,
toolbar A− / A+) and a live word count. Save writes a ``.pages`` document (see ``iwork.py``); File >
Export To writes PDF, Word (.docx), Plain Text and EPUB. AppleScript follows Pages' dictionary:
``documents`` (``body text``, ``document template``, ``name``, ``modified``, ``file``), ``templates``,
``make new document with properties {document template:template "Blank"}``, ``save … in``, ``export …
to … as PDF | Microsoft Word | unformatted text | EPUB``, ``close … saving``, ``open``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....applescript.errors import ERR_NO_SUCH_OBJECT, AppleScriptError
from ....applescript.model import ObjectRef
from ..menus import MenuItem, sep
from ..widgets import Box, Button, Checkbox, Label, PopupButton, TextField, Widget
from ..window import Window
from .iwork import (Block, ExportFormat, IWorkApp, IWorkDoc, IWorkFileError, IWorkScripting, write_docx, write_epub,
                    write_pdf, write_text)
from .iwork_items import (DEFAULT_FONT, FONT_FAMILIES, ITEM_CLASSES, ItemScripting, check_items, color, font_family,
                          font_name, item_widgets, number)
from ....applescript.values import Constant, RichText

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop

STYLES = ("Title", "Subtitle", "Heading", "Heading 2", "Heading 3", "Body", "Caption")
_BLOCK_KIND = {"Title": "title", "Subtitle": "subtitle", "Heading": "heading", "Heading 2": "heading 2",
               "Heading 3": "heading 2", "Body": "body", "Caption": "body"}
_BOLD = frozenset({"Title", "Heading", "Heading 2", "Heading 3"})


@dataclass(frozen=True)
class Template:
    """A Pages template: its placeholder paragraphs (style, text), orientation and page colour."""

    name: str
    paragraphs: tuple[tuple[str, str], ...] = ()
    landscape: bool = False
    dark: bool = False
    folder: str = ""

    @property
    def id(self) -> str:
        """The template's id in Pages' dictionary (``Application/20_Blank_Black/Traditional``)."""
        return f"Application/{self.folder or self.name.replace(' ', '_')}/Traditional"


TEMPLATES: tuple[Template, ...] = (
    Template("Blank"),
    Template("Blank Landscape", landscape=True),
    Template("Blank Black", dark=True, folder="20_Blank_Black"),
    Template("Note Taker", (("Title", "Notes"), ("Heading", "Topic"), ("Body", "Start typing your notes here."))),
    Template("Essay", (("Title", "Essay Title"), ("Subtitle", "Author Name"), ("Body", "Begin your essay here."))),
    Template("Report", (("Title", "Report Title"), ("Subtitle", "Subtitle"), ("Heading", "Introduction"),
                        ("Body", "Summarize the report here."))),
    Template("Classic Letter", (("Body", "Sender Name"), ("Body", "Recipient Name"), ("Body", "Dear Recipient,"),
                                ("Body", "Write your letter here."), ("Body", "Sincerely,"), ("Body", "Sender Name"))),
    Template("Poster", (("Title", "EVENT TITLE"), ("Subtitle", "Date and place"), ("Body", "Details of the event.")),
             landscape=False),
)
TEMPLATE_NAMES = tuple(t.name for t in TEMPLATES)
TEMPLATE_BY_ID = {t.id: t.name for t in TEMPLATES}


def word_count(text: str) -> int:
    """Words as Pages counts them: runs of letters/digits (apostrophes and hyphens inside a word)."""
    return len(re.findall(r"\w+(?:['’-]\w+)*", text))


PAGE_BREAK = "\f"  # what Insert > Page Break puts in the body text (a form feed, as Pages' text has it)
PAGE_POINTS = (612, 792)  # US Letter, the page Pages' blank templates use (points)
_LINES_PER_PAGE_AT_12 = 46
_CHARS_PER_LINE_AT_12 = 80


@dataclass
class PagesModel:
    """A Pages document's content: body text, one paragraph style per paragraph, body font size;
    ``runs``: the characters' font, color and size as [length, font, color, size] runs covering the
    text (size None: the document's font size); ``items``: shapes, text items, images and tables on
    the page (see ``iwork_items``)."""

    template: str
    text: str = ""
    styles: list[str] = field(default_factory=lambda: ["Body"])
    font_size: float = 12.0
    runs: list[list[Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    alignments: dict[int, str] = field(default_factory=dict)  # paragraph index → left | center | right | justify

    # -- character styles
    def default_color(self) -> list[int]:
        return [65535, 65535, 65535] if template(self.template).dark else [0, 0, 0]

    def _runs(self) -> list[list[Any]]:
        n = len(self.text)
        total = sum(r[0] for r in self.runs)
        if total != n:  # text set without runs (a new document, an old file): one default run
            self.runs = [[n, DEFAULT_FONT, self.default_color(), None]] if n else []
        return self.runs

    def style_at(self, i: int) -> dict[str, Any]:
        pos = 0
        for length, font, col, size in self._runs():
            if i < pos + length:
                return {"font": font, "color": list(col), "size": self.font_size if size is None else size}
            pos += length
        return {"font": DEFAULT_FONT, "color": self.default_color(), "size": self.font_size}

    def apply_style(self, lo: int, hi: int, prop: str, value: Any) -> None:
        """Give characters lo..hi-1 ``prop`` (font, color or size)."""
        chars = []
        for length, font, col, size in self._runs():
            chars.extend([[font, tuple(col), size]] * length)
        idx = {"font": 0, "color": 1, "size": 2}[prop]
        for i in range(max(0, lo), min(hi, len(chars))):
            c = list(chars[i])
            c[idx] = tuple(value) if prop == "color" else value
            chars[i] = c
        self.runs = _pack(chars)

    def _edit_runs(self, old: str, new: str) -> None:
        """Keep the styles of the unchanged start and end of the text; inserted characters take the
        style of the character before them (or after, at the start)."""
        runs = self._runs()
        if len(runs) <= 1:  # one style throughout (typing in a plain document): no per-character work
            style = runs[0][1:] if runs else [DEFAULT_FONT, self.default_color(), None]
            self.runs = [[len(new), *style]] if new else []
            return
        chars = []
        for length, font, col, size in runs:
            chars.extend([(font, tuple(col), size)] * length)
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        fill = chars[head - 1] if head else (chars[len(old) - tail] if len(old) - tail < len(chars) else
                                             (DEFAULT_FONT, tuple(self.default_color()), None))
        middle = len(new) - head - tail
        chars = chars[:head] + [fill] * middle + (chars[len(old) - tail:] if tail else [])
        self.runs = _pack([list(c) for c in chars])

    # -- pages
    def page_spans(self) -> list[tuple[int, int]]:
        """(start, end) of each page's text: page breaks end a page, and so does a full page of lines
        (about 46 lines of 80 characters at 12 pt, fewer at larger sizes)."""
        scale = max(0.5, self.font_size / 12)
        per_page = max(1, int(_LINES_PER_PAGE_AT_12 / scale))
        per_line = max(1, int(_CHARS_PER_LINE_AT_12 / scale))
        spans: list[tuple[int, int]] = []
        start = 0
        for chunk in self.text.split(PAGE_BREAK):
            end = start + len(chunk)
            lines, pos, page_start = 0, start, start
            for para in chunk.split("\n"):
                need = max(1, -(-len(para) // per_line))
                if lines and lines + need > per_page:
                    spans.append((page_start, pos))
                    page_start, lines = pos, 0
                lines += need
                pos += len(para) + 1
            spans.append((page_start, end))
            start = end + 1
        return spans

    def paragraphs(self) -> list[str]:
        return self.text.split("\n")

    def set_text(self, text: str) -> None:
        """Replace the text, keeping the styles of unchanged leading and trailing paragraphs; the
        paragraphs in between take the style of the first changed one (a split paragraph keeps its
        style in the first half, the rest are Body, as after Return in Pages)."""
        old, new = self.paragraphs(), text.split("\n")
        styles = (self.styles + ["Body"] * len(old))[: len(old)]
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        middle = len(new) - head - tail
        first = styles[head] if head < len(old) - tail else (styles[head - 1] if head and head - 1 < len(styles) else "Body")
        if head < len(old) - tail:
            mid_styles = [first] + ["Body"] * max(0, middle - 1)
        else:  # only insertions: new paragraphs after a kept one are Body
            mid_styles = ["Body"] * middle
        self.styles = styles[:head] + mid_styles[:middle] + (styles[len(old) - tail:] if tail else [])
        self._edit_runs(self.text, text)
        self.text = text

    def style_of(self, index: int) -> str:
        return self.styles[index] if 0 <= index < len(self.styles) else "Body"

    def blocks(self) -> list[Block]:
        return [Block(_BLOCK_KIND[self.style_of(i)], p) for i, p in enumerate(self.paragraphs())]

    def to_content(self) -> dict[str, Any]:
        out: dict[str, Any] = {"template": self.template, "body text": self.text, "paragraph styles": list(self.styles),
                               "font size": self.font_size}
        runs = self._runs()
        if any(r[1] != DEFAULT_FONT or list(r[2]) != self.default_color() or r[3] is not None for r in runs):
            out["character styles"] = [[n, f, list(c), z] for n, f, c, z in runs]
        if self.items:
            out["items"] = self.items
        if self.alignments:
            out["alignments"] = {str(k): v for k, v in self.alignments.items()}
        return out


def _pack(chars: list[list[Any]]) -> list[list[Any]]:
    runs: list[list[Any]] = []
    for font, col, size in chars:
        if runs and runs[-1][1] == font and tuple(runs[-1][2]) == tuple(col) and runs[-1][3] == size:
            runs[-1][0] += 1
        else:
            runs.append([1, font, list(col), size])
    return runs


def template(name: str) -> Template:
    for t in TEMPLATES:
        if t.name == name:
            return t
    raise KeyError(name)


class StyledTextField(TextField):
    """The document body: one editor over the whole text; lines of Title/Heading paragraphs are bold."""

    def __init__(self, *args: Any, model: PagesModel, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.model = model

    def _weight_at(self, line_start: int) -> str:
        return "bold" if self.model.style_of(self.editor.text.count("\n", 0, line_start)) in _BOLD else self.weight


_TEXT_CLASSES = ("character", "word", "paragraph", "text")
_PARA_END = re.compile("[\n\f]")
MAX_TEXT_ELEMENTS = 200_000
ALIGNMENTS = ("left", "center", "right", "justify")


class PagesScripting(ItemScripting, IWorkScripting):
    """Pages' dictionary: documents with ``body text`` (rich text: its characters, words and paragraphs
    have ``color``, ``font``, ``size`` and, paragraphs, ``alignment``), ``pages`` (each with its ``body
    text``), ``selection``, ``document template``; ``templates`` (name, id); shapes, text items,
    images and tables on the page (``iwork_items``)."""

    extra_classes = {"template": "templates", "page": "pages", "character": "characters", "word": "words",
                     "paragraph": "paragraphs", "shape": "shapes", "text item": "text items", "image": "images",
                     "table": "tables", "iWork item": "iWork items", "row": "rows", "column": "columns", "cell": "cells"}
    extra_properties = frozenset({"body text", "document template", "document body", "facing pages", "color", "font",
                                  "size", "alignment", "text", "selection", "position", "width", "height", "rotation",
                                  "opacity", "locked", "reflection showing", "reflection value", "background fill type",
                                  "parent", "object text", "file", "file name", "description", "row count",
                                  "column count", "value", "formatted value", "background color", "header row count",
                                  "header column count", "footer row count", "address"})
    extra_constants = frozenset({"left", "center", "right", "justify", "no fill", "color fill"})
    record_properties = ("document template", "body text", "document body", "facing pages")
    item_frame = PAGE_POINTS

    # ------------------------------------------------------------------ items (iwork_items)
    def item_list(self, doc_id: Any, key: Any) -> list[dict[str, Any]]:
        return self.doc(ObjectRef("document", doc_id)).model.items

    def item_container(self, ref: ObjectRef | None) -> tuple[Any, Any] | None:
        if ref is None:
            d = self.app.front_document()
            return None if d is None else (d.id, 0)
        if ref.cls == "document":
            return self.doc(ref).id, 0
        if ref.cls == "page" and isinstance(ref.id, tuple):
            return ref.id[0], 0
        return None

    def item_parent(self, doc_id: Any, key: Any) -> ObjectRef:
        return ObjectRef("document", doc_id)

    def text_defaults(self, doc_id: Any) -> tuple[list[int], float]:
        m: PagesModel = self.doc(ObjectRef("document", doc_id)).model
        return m.default_color(), m.font_size

    # ------------------------------------------------------------------ rich text
    def _model(self, doc_id: Any) -> PagesModel:
        return self.doc(ObjectRef("document", doc_id)).model

    def _span(self, obj: ObjectRef) -> tuple[PagesModel, int, int]:
        """(model, start, end) of a text reference: the body, a page's text, the selection or an element."""
        doc_id = obj.id[0]
        m = self._model(doc_id)
        n = len(m.text)
        if obj.cls == "text" and obj.id[1] == "body":
            return m, 0, n
        if obj.cls == "text" and obj.id[1] == "page":
            spans = m.page_spans()
            if not 0 <= obj.id[2] < len(spans):
                raise AppleScriptError(f"Can’t get page {obj.id[2] + 1}: the document has {len(spans)} pages.",
                                       ERR_NO_SUCH_OBJECT)
            return m, *spans[obj.id[2]]
        lo, hi = obj.id[1], obj.id[2]
        if not 0 <= lo <= hi <= n:
            raise AppleScriptError(f"Can’t get {obj.cls}: the body text changed.", ERR_NO_SUCH_OBJECT)
        return m, lo, hi

    def _text_elements(self, container: ObjectRef, cls: str) -> list[ObjectRef]:
        m, lo, hi = self._span(container)
        doc_id = container.id[0]
        text = m.text
        if cls == "character":
            spans = [(i, i + 1) for i in range(lo, hi)]
        elif cls == "word":
            spans = [(lo + w.start(), lo + w.end()) for w in re.finditer(r"\w+(?:['’-]\w+)*", text[lo:hi])]
        elif cls == "paragraph":  # the paragraphs the span touches, whole; a page break ends one too
            start = max(text.rfind("\n", 0, lo), text.rfind(PAGE_BREAK, 0, lo)) + 1 if lo else 0
            spans = []
            while True:
                found = _PARA_END.search(text, start)
                end = len(text) if found is None else found.start()
                spans.append((start, end))
                if end >= hi or end >= len(text):
                    break
                start = end + 1
        else:
            spans = [(lo, hi)]
        if len(spans) > MAX_TEXT_ELEMENTS:
            raise AppleScriptError(f"Can’t get every {cls}: more than {MAX_TEXT_ELEMENTS}.", ERR_APP_GENERIC)
        return [ObjectRef(cls, (doc_id, a, b)) for a, b in spans]

    def _text_get(self, obj: ObjectRef, prop: str) -> Any:
        m, lo, hi = self._span(obj)
        if prop in ("text", "contents"):
            return m.text[lo:hi]
        st = m.style_at(lo)
        if prop in ("color", "font", "size"):
            return st[prop]
        if prop == "alignment":
            return Constant(m.alignments.get(m.text.count("\n", 0, lo), "left"))
        if prop == "properties":
            return {"class": Constant(obj.cls if obj.cls != "text" else "text"), "font": st["font"],
                    "color": st["color"], "size": st["size"]}
        raise AppleScriptError(f"Can’t get {prop} of {obj.cls}.", ERR_NO_SUCH_OBJECT)

    def _text_set(self, obj: ObjectRef, prop: str, value: Any) -> None:
        m, lo, hi = self._span(obj)
        if prop == "color":
            m.apply_style(lo, hi, "color", color(value, f"color of {obj.cls}"))
        elif prop == "font":
            m.apply_style(lo, hi, "font", font_name(value, f"font of {obj.cls}"))
        elif prop == "size":
            m.apply_style(lo, hi, "size", number(value, f"size of {obj.cls}", 1, 1638))
        elif prop == "alignment":
            name = value.name if isinstance(value, Constant) else str(value)
            if name not in ALIGNMENTS:
                raise AppleScriptError(f"Can’t make {name[:100]!r} into type alignment: one of {', '.join(ALIGNMENTS)}.", -1700)
            first, last = m.text.count("\n", 0, lo), m.text.count("\n", 0, hi)
            for i in range(first, last + 1):
                if name == "left":
                    m.alignments.pop(i, None)
                else:
                    m.alignments[i] = name
        else:
            raise AppleScriptError(f"Can’t set {prop} of {obj.cls}.", -10006)
        self.app.touch()

    def _selection(self, doc_id: Any) -> tuple[int, int]:
        win = next((w for w in self.app.windows if getattr(w.doc, "id", None) == doc_id), None)
        ed = win.editors.get("pages:body") if win is not None else None
        n = len(self._model(doc_id).text)
        if ed is None:
            return n, n
        a, b = ed.selection
        return min(a, n), min(b, n)

    def _body_text(self, doc_id: Any, key: tuple[Any, ...]) -> RichText:
        ref = ObjectRef("text", (doc_id, *key))
        _, lo, hi = self._span(ref)
        return RichText(self._model(doc_id).text[lo:hi], ref)

    def display_form(self, obj: ObjectRef) -> str | None:
        if obj.cls == "template" and obj.id in TEMPLATE_NAMES:
            return f"template id {template(obj.id).id}"
        return None

    def element_by_id(self, container: ObjectRef | None, cls: str, ident: Any) -> ObjectRef | None:
        if cls == "template" and container is None:
            name = TEMPLATE_BY_ID.get(str(ident))
            return ObjectRef("template", name) if name is not None else None
        return None

    def elements_extra(self, container: ObjectRef | None, cls: str) -> list[ObjectRef] | None:
        if container is None and cls == "template":
            return [ObjectRef("template", n) for n in TEMPLATE_NAMES]
        if container is None and cls in (*ITEM_CLASSES, "iWork item", "page"):
            d = self.app.front_document()
            if d is None:
                raise AppleScriptError(f"Can’t get every {cls}: no document is open.", ERR_NO_SUCH_OBJECT)
            container = ObjectRef("document", d.id)
        if container is not None and container.cls == "document" and cls == "page":
            m = self.doc(container).model
            return [ObjectRef("page", (container.id, i)) for i in range(len(m.page_spans()))]
        if container is not None and container.cls in ("text", *_TEXT_CLASSES) and cls in _TEXT_CLASSES:
            return self._text_elements(container, cls)
        if container is not None:
            return self.item_elements(container, cls)
        return None

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if container is None and cls == "template":
            return ObjectRef("template", str(name)) if str(name) in TEMPLATE_NAMES else None
        if cls == "table":
            return self.table_by_name(container, name)
        if cls == "cell" and container is not None:
            return self.cell_by_name(container, name)
        return super().element_by_name(container, cls, name)

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "template":
            return f'template id "{template(obj.id).id}" of application "Pages"' if obj.id in TEMPLATE_NAMES else \
                f'template "{obj.id}" of application "Pages"'
        if obj.cls == "page" and isinstance(obj.id, tuple):
            return f"page {obj.id[1] + 1} of {self.describe(ObjectRef('document', obj.id[0]))}"
        if self.is_item_ref(obj):
            return f"{obj.cls} id {obj.id[2]} of {self.describe(ObjectRef('document', obj.id[0]))}"
        return super().describe(obj)

    def get_extra(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is not None and (self.is_item_ref(obj) or self.is_table_part(obj)):
            return self.item_get(obj, prop)
        if obj is not None and obj.cls == "item text":
            return self.item_text_get(obj, prop)
        if obj is not None and obj.cls in ("text", *_TEXT_CLASSES) and isinstance(obj.id, tuple):
            return self._text_get(obj, prop)
        if obj is not None and obj.cls == "page" and isinstance(obj.id, tuple):
            if prop == "body text":
                return self._body_text(obj.id[0], ("page", obj.id[1]))
            if prop == "index":
                return obj.id[1] + 1
        if obj is not None and obj.cls == "template":
            if prop == "name":
                return obj.id
            if prop == "id":
                return template(obj.id).id if obj.id in TEMPLATE_NAMES else obj.id
        if obj is not None and obj.cls == "document":
            d = self.doc(obj)
            m: PagesModel = d.model
            if prop == "body text":
                return self._body_text(d.id, ("body",))
            if prop == "selection":
                lo, hi = self._selection(d.id)
                return RichText(m.text[lo:hi], ObjectRef("text", (d.id, lo, hi)))
            if prop == "document template":
                return ObjectRef("template", m.template)
            if prop == "document body":
                return True
            if prop == "facing pages":
                return False
        return super().get_extra(obj, prop)

    def set_extra(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "document" and prop == "body text":
            d = self.doc(obj)
            d.model.text = ""
            d.model.styles = ["Body"]
            d.model.runs = []
            d.model.set_text(str(value))
            return
        if obj is not None and (self.is_item_ref(obj) or self.is_table_part(obj)):
            self.item_set(obj, prop, value)
            return
        if obj is not None and obj.cls == "item text":
            self.item_text_set(obj, prop, value)
            return
        if obj is not None and obj.cls in ("text", *_TEXT_CLASSES) and isinstance(obj.id, tuple):
            self._text_set(obj, prop, value)
            return
        super().set_extra(obj, prop, value)

    def make_extra(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        if cls in ITEM_CLASSES:
            return self.item_make(cls, properties, at)
        return super().make_extra(cls, properties, at)

    def delete_extra(self, obj: ObjectRef) -> None:
        if self.is_item_ref(obj):
            return self.item_delete(obj)
        return super().delete_extra(obj)

    def make_document(self, properties: dict[str, Any]) -> IWorkDoc:
        tpl = properties.get("document template", "Blank")
        name = tpl.id if isinstance(tpl, ObjectRef) and tpl.cls == "template" else str(tpl)
        name = TEMPLATE_BY_ID.get(name, name)  # a template's id names it too
        if name not in TEMPLATE_NAMES:
            raise AppleScriptError(f"Can’t get template \"{name}\". Pages has the templates {', '.join(TEMPLATE_NAMES)}.",
                                   ERR_NO_SUCH_OBJECT)
        doc = self.app.new_document(name)
        if "body text" in properties:
            doc.model.text, doc.model.styles = "", ["Body"]
            doc.model.set_text(str(properties["body text"]))
            doc.modified = True
        return doc


class PagesApp(IWorkApp):
    """Pages; ``documents`` are the open documents (``IWorkDoc`` with a ``PagesModel``)."""

    name = "Pages"
    bundle_id = "com.apple.iWork.Pages"
    kind = "pages"
    open_suffixes = frozenset({".pages"})
    chooser_title = "Choose a Template"
    chooser_button = "Create"
    choices = TEMPLATE_NAMES
    default_choice = "Blank"
    export_formats = (ExportFormat("PDF", "PDF", ".pdf"), ExportFormat("Word", "Microsoft Word", ".docx"),
                      ExportFormat("Plain Text", "unformatted text", ".txt"), ExportFormat("EPUB", "EPUB", ".epub"))
    doc_size = (860, 640)

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.scripting = PagesScripting(self)

    # ------------------------------------------------------------------ model
    def new_model(self, choice: str) -> PagesModel:
        t = template(choice)
        return PagesModel(t.name, "\n".join(p for _, p in t.paragraphs), [s for s, _ in t.paragraphs] or ["Body"])

    def model_from_content(self, content: dict[str, Any], source: str) -> PagesModel:
        text = content.get("body text")
        styles = content.get("paragraph styles", [])
        size = content.get("font size", 12)
        tpl = content.get("template", "Blank")
        if not isinstance(text, str):
            raise IWorkFileError(f"{source}: field 'body text' must be text, got {type(text).__name__}")
        if not isinstance(styles, list) or any(s not in STYLES for s in styles):
            raise IWorkFileError(f"{source}: field 'paragraph styles' must list styles from {', '.join(STYLES)}")
        if not isinstance(size, (int, float)) or not 4 <= size <= 288:
            raise IWorkFileError(f"{source}: field 'font size' must be a number from 4 to 288, got {size!r}")
        if tpl not in TEMPLATE_NAMES:
            tpl = "Blank"
        n = text.count("\n") + 1
        model = PagesModel(tpl, text, (list(styles) + ["Body"] * n)[:n], float(size))
        runs = content.get("character styles")
        if runs is not None:
            ok = isinstance(runs, list) and len(runs) <= len(text) and all(
                isinstance(r, list) and len(r) == 4 and isinstance(r[0], int) and r[0] > 0 and isinstance(r[1], str)
                and isinstance(r[2], list) and len(r[2]) == 3 and all(isinstance(c, int) and 0 <= c <= 65535 for c in r[2])
                and (r[3] is None or isinstance(r[3], (int, float))) for r in runs)
            if not ok or sum(r[0] for r in runs) != len(text):
                raise IWorkFileError(f"{source}: field 'character styles' must be [length, font, [r, g, b], size] runs "
                                     "covering the body text")
            model.runs = [list(r) for r in runs]
        try:
            model.items = check_items(content.get("items", []), source)
        except ValueError as e:
            raise IWorkFileError(str(e)) from None
        aligns = content.get("alignments", {})
        if not isinstance(aligns, dict) or not all(str(k).isdigit() and v in ALIGNMENTS for k, v in aligns.items()):
            raise IWorkFileError(f"{source}: field 'alignments' must map paragraph numbers to {', '.join(ALIGNMENTS)}")
        model.alignments = {int(k): v for k, v in aligns.items()}
        return model

    def model_to_content(self, model: PagesModel) -> dict[str, Any]:
        return model.to_content()

    def export(self, doc: IWorkDoc, fmt: ExportFormat, path: Path, options: dict[str, Any]) -> None:
        m: PagesModel = doc.model
        blocks = m.blocks()
        files = self.desktop.home_files
        if fmt.suffix == ".pdf":
            write_pdf(files, path, blocks, title=doc.name, base_size=m.font_size, landscape=template(m.template).landscape)
        elif fmt.suffix == ".docx":
            write_docx(files, path, blocks, base_size=m.font_size)
        elif fmt.suffix == ".txt":
            write_text(files, path, blocks)
        elif fmt.suffix == ".epub":
            write_epub(files, path, blocks, title=doc.name)
        else:  # pragma: no cover - export_formats lists exactly the four above
            raise ValueError(f"Pages cannot export {fmt.label}")

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "documents": [
            {"name": d.name, "template": d.model.template, "body_text": d.model.text,
             "paragraph_styles": list(d.model.styles), "font_size": d.model.font_size,
             "word_count": word_count(d.model.text), "modified": d.modified,
             "path": self.desktop.backend.posix_path(d.path) if d.path else None}
            for d in self.documents_front_first()]}

    # ------------------------------------------------------------------ GUI actions
    def window_opened(self, win: Window) -> None:
        win.focus_key = "pages:body"

    def _cursor_paragraphs(self, win: Window) -> range:
        ed = win.editors.get("pages:body")
        m: PagesModel = win.doc.model
        if ed is None:
            return range(0, 1)
        a, b = ed.selection
        return range(m.text.count("\n", 0, a), m.text.count("\n", 0, b) + 1)

    def set_style(self, win: Window | None, style: str) -> None:
        """Give the paragraph(s) at the cursor / in the selection ``style``."""
        if win is None or not isinstance(win.doc, IWorkDoc):
            return
        m: PagesModel = win.doc.model
        n = m.text.count("\n") + 1
        m.styles = (m.styles + ["Body"] * n)[:n]
        for i in self._cursor_paragraphs(win):
            m.styles[i] = style
        win.doc.modified = True
        self.touch()

    def set_font(self, win: Window | None, family: str) -> None:
        """The toolbar's Font pop-up: the selected text (or, with nothing selected, the paragraph at
        the cursor — the sim has no typing style) takes the font."""
        if win is None or not isinstance(win.doc, IWorkDoc):
            return
        m: PagesModel = win.doc.model
        ed = win.editors.get("pages:body")
        a, b = ed.selection if ed is not None else (0, 0)
        if a == b:
            a = max(m.text.rfind("\n", 0, a), m.text.rfind(PAGE_BREAK, 0, a)) + 1
            found = _PARA_END.search(m.text, b)
            b = len(m.text) if found is None else found.start()
        m.apply_style(a, b, "font", font_name(family, "font"))
        win.doc.modified = True
        self.touch()

    def change_size(self, win: Window | None, delta: float) -> None:
        if win is None or not isinstance(win.doc, IWorkDoc):
            return
        m: PagesModel = win.doc.model
        m.font_size = max(8.0, min(72.0, m.font_size + delta))
        win.doc.modified = True
        self.touch()

    def _edited(self, doc: IWorkDoc, text: str) -> None:
        doc.model.set_text(text)
        doc.modified = True

    def menus(self) -> list:
        out = super().menus()
        fw = self._front()
        ok = fw is not None and isinstance(fw.doc, IWorkDoc)
        for title, items in out:
            if title == "Edit":
                items.extend([sep(), MenuItem("Find & Replace…", lambda: self.find_replace_sheet(fw), "cmd+f", enabled=ok)])
        return out

    def replace_all(self, doc: IWorkDoc, find: str, replace: str, match_case: bool) -> int:
        """Edit ▸ Find & Replace ▸ Replace All: every occurrence of ``find`` in the body text (any case
        unless Match Case) becomes ``replace``; the number replaced. Styles of the rest are kept."""
        m: PagesModel = doc.model
        if not find:
            return 0
        pattern = re.compile(re.escape(find), 0 if match_case else re.IGNORECASE)
        new, n = pattern.subn(lambda _m: replace, m.text)
        if n:
            m.set_text(new)
            doc.modified = True
            self.touch()
        return n

    def find_replace_sheet(self, win: Window | None) -> Window | None:
        if win is None or not isinstance(win.doc, IWorkDoc):
            return None
        doc = win.doc
        w, h = 420, 190
        form = {"match": False, "result": ""}

        def build(sheet: Window) -> list[Widget]:
            fed = sheet.editor("find:find")
            red = sheet.editor("find:replace")

            def run(_t: str | None = None) -> None:
                n = self.replace_all(doc, fed.text, red.text, form["match"])
                form["result"] = f"{n} replaced" if n else "Not found"
                sheet.touch()

            return [
                Label((20, 16, w - 40, 20), "Find & Replace", 13, "bold"),
                Label((20, 48, 70, 24), "Find", 13, align="right"),
                TextField("find:find", (96, 48, w - 116, 24), fed, name="Find", on_commit=run),
                Label((20, 80, 70, 24), "Replace", 13, align="right"),
                TextField("find:replace", (96, 80, w - 116, 24), red, name="Replace", on_commit=run),
                Checkbox("find:case", (96, 112, 120, 20), "Match Case", form["match"],
                         lambda v: (form.__setitem__("match", v), sheet.touch())),
                Label((230, 112, w - 250, 20), form["result"], 12, key="find:result"),
                Button("find:done", (w - 220, h - 44, 90, 26), "Done", lambda: self.desktop.close_window(sheet), cancel=True),
                Button("find:all", (w - 120, h - 44, 100, 26), "Replace All", run, default=True),
            ]

        sheet = Window(self, "Find & Replace", (0, 0, w, h), build, parent=win, kind="sheet")
        sheet.focus_key = "find:find"
        self.desktop.show_window(sheet)
        return sheet

    def insert_item(self, win: Window | None, cls: str) -> None:
        """Insert ▸ Shape / Table / Text Box: a new item in the middle of the page."""
        if win is None or not isinstance(win.doc, IWorkDoc):
            return
        props = {"object text": "Text"} if cls == "text item" else {}
        try:
            self.scripting.item_make(cls, props, ObjectRef("document", win.doc.id))
        except AppleScriptError:
            return  # the page is full: nothing is added
        win.doc.modified = True
        self.touch()

    def insert_page_break(self, win: Window | None) -> None:
        """Insert ▸ Page Break: the text after the cursor starts a new page."""
        if win is None or not isinstance(win.doc, IWorkDoc):
            return
        ed = win.editor("pages:body", win.doc.model.text, multiline=True)
        ed.insert(PAGE_BREAK)
        self._edited(win.doc, ed.text)
        win.focus("pages:body")
        self.touch()

    def extra_menus(self) -> list:
        fw = self._front()
        ok = fw is not None and isinstance(fw.doc, IWorkDoc)
        return [("Insert", [MenuItem("Page Break", lambda: self.insert_page_break(fw), "cmd+enter", enabled=ok),
                            sep(),
                            MenuItem("Shape", lambda: self.insert_item(fw, "shape"), enabled=ok),
                            MenuItem("Table", lambda: self.insert_item(fw, "table"), enabled=ok),
                            MenuItem("Text Box", lambda: self.insert_item(fw, "text item"), enabled=ok)]),
                ("Format", [
            MenuItem("Bigger", lambda: self.change_size(fw, 1), "cmd+=", enabled=ok),
            MenuItem("Smaller", lambda: self.change_size(fw, -1), "cmd+-", enabled=ok),
            sep(),
        ] + [MenuItem(s, (lambda s=s: self.set_style(fw, s)), enabled=ok) for s in STYLES])]

    def build_document(self, win: Window) -> list[Widget]:
        doc: IWorkDoc = win.doc
        m: PagesModel = doc.model
        t = template(m.template)
        W, H = win.w, win.h
        ed = win.editor("pages:body", m.text, multiline=True)
        para = ed.text.count("\n", 0, ed.cursor)
        out: list[Widget] = [Box((0, 52, W, H - 52), (128, 128, 132))]
        out.append(PopupButton("pages:style", (150, 14, 130, 24), list(STYLES), m.style_of(para),
                               lambda s: self.set_style(win, s), name="Paragraph Style"))
        out.append(Button("pages:smaller", (300, 14, 34, 24), "Smaller", lambda: self.change_size(win, -1),
                          style="toolbar", symbol="A−"))
        out.append(Label((340, 14, 60, 24), f"{m.font_size:g} pt", 12, align="center", key="pages:size"))
        out.append(Button("pages:bigger", (404, 14, 34, 24), "Bigger", lambda: self.change_size(win, 1),
                          style="toolbar", symbol="A+"))
        a, _b = ed.selection
        current = font_family(m.style_at(min(a, max(0, len(m.text) - 1)))["font"]) if m.text else font_family(DEFAULT_FONT)
        fonts = list(FONT_FAMILIES) if current in FONT_FAMILIES else [current, *FONT_FAMILIES]
        out.append(PopupButton("pages:font", (450, 14, 170, 24), fonts, current, lambda f: self.set_font(win, f),
                               name="Font"))
        pw = min(W - 80, 760 if t.landscape else 600)
        px = (W - pw) // 2
        page_bg, fg = ((0, 0, 0), (245, 245, 245)) if t.dark else ((255, 255, 255), (20, 20, 20))
        out.append(Box((px, 72, pw, H - 72 - 40), page_bg))
        size = max(8, int(round(m.font_size * 1.2)))
        out.append(StyledTextField("pages:body", (px + 40, 100, pw - 80, H - 100 - 56), ed, bordered=False, size=size,
                                   name="Body Text", color=fg, on_change=lambda t: self._edited(doc, t), model=m))
        page_h = int(pw * PAGE_POINTS[1] / PAGE_POINTS[0])
        out.extend(item_widgets(m.items, (px, 72, pw, min(page_h, H - 72 - 40)), (PAGE_POINTS[0], min(
            PAGE_POINTS[1], int((H - 112) * PAGE_POINTS[0] / pw))), fg))
        out.append(Label((W - 170, H - 32, 150, 24), f"{word_count(ed.text)} words", 12, color=(240, 240, 240),
                         align="right", key="pages:wordcount"))
        return out

    def paint_choice(self, d: Any, rect: tuple[int, int, int, int], choice: str) -> None:
        x, y, w, h = rect
        t = template(choice)
        pw, ph = (int(h * 1.2), h) if t.landscape else (int(h * 0.78), h)
        px = x + (w - pw) // 2
        bg, fg = ((0, 0, 0), (220, 220, 220)) if t.dark else ((255, 255, 255), (120, 120, 120))
        d.rectangle((px, y, px + pw - 1, y + ph - 1), fill=bg, outline=(190, 190, 195))
        ly = y + 12
        for style, _ in t.paragraphs:
            big = style in ("Title", "Heading")
            d.rectangle((px + 10, ly, px + pw - (20 if big else 12), ly + (6 if big else 3)), fill=fg)
            ly += 12 if big else 8

    @staticmethod
    def draw_icon(size: int) -> "Image.Image":
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (255, 170, 60), (240, 120, 20))
        # a sheet of paper with a pen across it
        d.rounded_rectangle((int(S * 0.27), int(S * 0.2), int(S * 0.7), int(S * 0.8)), int(S * 0.03), fill=(255, 255, 255))
        for i in range(5):
            yy = int(S * (0.32 + i * 0.09))
            d.line((int(S * 0.33), yy, int(S * 0.62), yy), fill=(235, 150, 60), width=max(1, S // 60))
        d.line((int(S * 0.42), int(S * 0.76), int(S * 0.8), int(S * 0.3)), fill=(60, 60, 70), width=max(2, S // 14))
        d.polygon([(int(S * 0.38), int(S * 0.82)), (int(S * 0.42), int(S * 0.72)), (int(S * 0.47), int(S * 0.77))],
                  fill=(60, 60, 70))
        return _finish(img, size)
