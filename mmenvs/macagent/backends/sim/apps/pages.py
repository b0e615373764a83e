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
from ..widgets import Box, Button, Label, PopupButton, TextField, Widget
from ..window import Window
from .iwork import (Block, ExportFormat, IWorkApp, IWorkDoc, IWorkFileError, IWorkScripting, write_docx, write_epub,
                    write_pdf, write_text)

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


TEMPLATES: tuple[Template, ...] = (
    Template("Blank"),
    Template("Blank Landscape", landscape=True),
    Template("Blank Black", dark=True),
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


def word_count(text: str) -> int:
    """Words as Pages counts them: runs of letters/digits (apostrophes and hyphens inside a word)."""
    return len(re.findall(r"\w+(?:['’-]\w+)*", text))


@dataclass
class PagesModel:
    """A Pages document's content: body text, one paragraph style per paragraph, body font size."""

    template: str
    text: str = ""
    styles: list[str] = field(default_factory=lambda: ["Body"])
    font_size: float = 12.0

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
        self.text = text

    def style_of(self, index: int) -> str:
        return self.styles[index] if 0 <= index < len(self.styles) else "Body"

    def blocks(self) -> list[Block]:
        return [Block(_BLOCK_KIND[self.style_of(i)], p) for i, p in enumerate(self.paragraphs())]

    def to_content(self) -> dict[str, Any]:
        return {"template": self.template, "body text": self.text, "paragraph styles": list(self.styles),
                "font size": self.font_size}


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


class PagesScripting(IWorkScripting):
    """Pages' dictionary: documents with ``body text`` and ``document template``; ``templates``."""

    extra_classes = {"template": "templates"}
    extra_properties = frozenset({"body text", "document template", "document body", "facing pages"})
    extra_constants = frozenset()
    record_properties = ("document template", "body text", "document body", "facing pages")

    def elements_extra(self, container: ObjectRef | None, cls: str) -> list[ObjectRef] | None:
        if container is None and cls == "template":
            return [ObjectRef("template", n) for n in TEMPLATE_NAMES]
        return None

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if container is None and cls == "template":
            return ObjectRef("template", str(name)) if str(name) in TEMPLATE_NAMES else None
        return super().element_by_name(container, cls, name)

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "template":
            return f'template "{obj.id}" of application "Pages"'
        return super().describe(obj)

    def get_extra(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is not None and obj.cls == "template":
            if prop in ("name", "id"):
                return obj.id
        if obj is not None and obj.cls == "document":
            d = self.doc(obj)
            m: PagesModel = d.model
            if prop == "body text":
                return m.text
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
            d.model.set_text(str(value))
            return
        super().set_extra(obj, prop, value)

    def make_document(self, properties: dict[str, Any]) -> IWorkDoc:
        tpl = properties.get("document template", "Blank")
        name = tpl.id if isinstance(tpl, ObjectRef) and tpl.cls == "template" else str(tpl)
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
        return PagesModel(tpl, text, (list(styles) + ["Body"] * n)[:n], float(size))

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

    def extra_menus(self) -> list:
        fw = self._front()
        ok = fw is not None and isinstance(fw.doc, IWorkDoc)
        return [("Format", [
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
        pw = min(W - 80, 760 if t.landscape else 600)
        px = (W - pw) // 2
        page_bg, fg = ((0, 0, 0), (245, 245, 245)) if t.dark else ((255, 255, 255), (20, 20, 20))
        out.append(Box((px, 72, pw, H - 72 - 40), page_bg))
        size = max(8, int(round(m.font_size * 1.2)))
        out.append(StyledTextField("pages:body", (px + 40, 100, pw - 80, H - 100 - 56), ed, bordered=False, size=size,
                                   name="Body Text", color=fg, on_change=lambda t: self._edited(doc, t), model=m))
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
