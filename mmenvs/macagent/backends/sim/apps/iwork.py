"""The document files of the sim's Pages, Numbers and Keynote: ``read_document``/``write_document`` over the
episode home's confined layer. The container itself (a zip holding ``Index/Document.json``, written
deterministically) is :mod:`mmenvs.macagent.formats.iwork_container`, shared with the getters.

Also here: the exporters the three apps share (PDF, Word, PowerPoint, plain text, EPUB, slide images;
``Block``/``Slide`` describe what to write) and ``IWorkApp``/``IWorkScripting``, the document-app base
of Pages and Keynote (chooser, document windows, the save/export sheets of :mod:`.file_panels`, the shared
AppleScript dictionary).
"""

from __future__ import annotations

import errno
import hashlib
import io
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmenvs.core.confined import ConfinedDir, ConfinementError
from mmenvs.core.offload import in_child_process
# the container format (KINDS, IWorkFileError, document_bytes, parse_document) is shared with the getters
from mmenvs.macagent.formats.iwork_container import KINDS, STAMP as _STAMP, IWorkFileError, document_bytes, parse_document

from ....applescript.errors import ERR_APP_GENERIC, ERR_NO_SUCH_OBJECT, AppleScriptError
from ....applescript.model import STANDARD_COMMANDS, ObjectRef, ScriptableAppBase, Terminology
from ....applescript.values import Constant, FileRef
from ..menus import MenuItem, sep
from ..scripting import path_text, set_window_bounds, window_bounds
from ..theme import font as ui_font
from ..widgets import Box, Button, Custom, Label, Segmented, Widget
from ..window import Window
from .documents import DocumentApp
from . import file_panels
from .file_panels import with_suffix
from .home_io import MAX_DOCUMENT_BYTES, checked_name, error_text, file_alert, save_bytes, save_text


def write_document(path: Path, kind: str, content: dict[str, Any], files: ConfinedDir) -> None:
    """Write ``content`` (JSON-able) as a ``kind`` document at ``path`` through ``files`` (the episode
    home's layer, or a trusted caller's layer over its own folder)."""
    save_bytes(files, path, document_bytes(kind, content))


def read_document(path: Path, kind: str | None, files: ConfinedDir) -> dict[str, Any]:
    """The content of the document at ``path``, read through ``files`` (as for ``write_document``);
    ``kind`` (if given) must match. A symlink, special file, folder or file over ``MAX_DOCUMENT_BYTES``
    is refused (``ConfinementError``); a missing or malformed one raises ``IWorkFileError``."""
    try:
        data = files.read_bytes(path, limit=MAX_DOCUMENT_BYTES)
    except ConfinementError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            raise IWorkFileError(f"{path.name}: no such document") from None
        raise
    return parse_document(data, path.name, kind)


# =============================================================================================== exports
# File > Export To … and AppleScript's ``export`` in Pages, Numbers and Keynote write real files in
# the target formats with the libraries made for them (reportlab, python-docx, python-pptx, Pillow);
# they are imported inside the functions (an env that never exports never loads them).

BLOCK_KINDS = ("title", "subtitle", "heading", "heading 2", "body", "bullet", "table", "page break")


@dataclass
class Block:
    """One unit of a flowing document: a paragraph of a style (``kind`` in BLOCK_KINDS), a table
    (``rows``: lists of cell texts, the first row the header) or a page break."""

    kind: str
    text: str = ""
    rows: list[list[str]] | None = None

    def __post_init__(self) -> None:
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"Block kind {self.kind!r} is unknown; expected one of {', '.join(BLOCK_KINDS)}")
        if self.kind == "table" and not isinstance(self.rows, list):
            raise ValueError("a table Block needs rows (a list of lists of cell texts)")


@dataclass
class Slide:
    """One slide as the exporters see it: title and body text (body lines are bullets), presenter
    notes, the layout name and the theme's colours (background, title, body; RGB)."""

    title: str = ""
    body: str = ""
    notes: str = ""
    layout: str = "Title & Bullets"
    title_showing: bool = True
    body_showing: bool = True
    background: tuple[int, int, int] = (255, 255, 255)
    title_color: tuple[int, int, int] = (0, 0, 0)
    body_color: tuple[int, int, int] = (40, 40, 40)


def blocks_text(blocks: list[Block]) -> str:
    """A document as plain text: one paragraph a line, table rows tab-separated, page breaks as form feeds
    dropped (Pages' "unformatted text" export writes the words only)."""
    out: list[str] = []
    for b in blocks:
        if b.kind == "table":
            out.extend("\t".join(r) for r in b.rows or [])
        elif b.kind != "page break":
            out.append(b.text)
    return "\n".join(out) + ("\n" if out else "")


def write_text(files: ConfinedDir, path: Path, blocks: list[Block]) -> None:
    """Export as plain UTF-8 text (Pages' "Plain Text" / AppleScript ``unformatted text``)."""
    save_text(files, path, blocks_text(blocks))


_PDF_FONTS = ("DejaVuSans", "DejaVuSans-Bold")


def _pdf_fonts() -> tuple[str, str]:
    """Register DejaVu Sans (shipped with matplotlib) with reportlab once: full Unicode, embedded as a
    subset with a ToUnicode map, so the PDF's text can be extracted again."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    from mmenvs.core.fonts import FONT_DIR

    if _PDF_FONTS[0] not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(_PDF_FONTS[0], str(FONT_DIR / "DejaVuSans.ttf")))
        pdfmetrics.registerFont(TTFont(_PDF_FONTS[1], str(FONT_DIR / "DejaVuSans-Bold.ttf")))
    return _PDF_FONTS


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_pdf(files: ConfinedDir, path: Path, blocks: list[Block], *, title: str = "", base_size: float = 12,
              landscape: bool = False) -> None:
    """Export a flowing document (Pages, Numbers) as PDF at ``path`` through ``files`` (see ``pdf_bytes``)."""
    save_bytes(files, path, pdf_bytes(blocks, title=title, base_size=base_size, landscape=landscape))


@in_child_process  # reportlab and its parsed fonts (~10 MB) stay out of the env process
def pdf_bytes(blocks: list[Block], *, title: str = "", base_size: float = 12, landscape: bool = False) -> bytes:
    """A flowing document (Pages, Numbers) as PDF: US Letter pages, styles by ``kind``, tables
    with a header row. Output is byte-identical for the same input (reportlab's invariant mode)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import landscape as _landscape
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    regular, bold = _pdf_fonts()
    sizes = {"title": base_size * 2.4, "subtitle": base_size * 1.5, "heading": base_size * 1.5,
             "heading 2": base_size * 1.25, "body": base_size, "bullet": base_size}
    styles = {k: ParagraphStyle(k, fontName=bold if k in ("title", "heading", "heading 2") else regular,
                                fontSize=s, leading=s * 1.25, spaceAfter=s * 0.5,
                                bulletIndent=6 if k == "bullet" else 0, bulletFontName=regular, leftIndent=18 if k == "bullet" else 0,
                                textColor=colors.HexColor("#555555") if k == "subtitle" else colors.black)
              for k, s in sizes.items()}
    story: list[Any] = []
    for b in blocks:
        if b.kind == "page break":
            story.append(PageBreak())
        elif b.kind == "table":
            rows = [[_xml(c) for c in r] for r in (b.rows or [])]
            if rows:
                t = Table(rows, repeatRows=1)
                t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), regular, base_size * 0.9),
                                       ("FONT", (0, 0), (-1, 0), bold, base_size * 0.9),
                                       ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                                       ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#E8E8ED"))]))
                story.append(t)
                story.append(Spacer(1, base_size))
        elif b.text.strip():
            story.append(Paragraph(_xml(b.text), styles[b.kind], bulletText="•" if b.kind == "bullet" else None))
        else:
            story.append(Spacer(1, base_size))
    size = _landscape(letter) if landscape else letter
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=size, title=title, author="", creator="mmenvs sim",
                            invariant=1, leftMargin=72, rightMargin=72, topMargin=72, bottomMargin=72)
    doc.build(story or [Spacer(1, 1)])
    return out.getvalue()


SLIDE_SIZE = (1920, 1080)  # Keynote's default 16:9 slide, in points for PDF and pixels for images


def _slide_lines(slide: Slide) -> list[str]:
    return [ln for ln in slide.body.split("\n") if ln.strip()] if slide.body_showing else []


def write_slides_pdf(files: ConfinedDir, path: Path, slides: list[Slide], *, title: str = "") -> None:
    """Export a presentation as PDF at ``path`` through ``files`` (see ``slides_pdf_bytes``)."""
    save_bytes(files, path, slides_pdf_bytes(slides, title=title))


@in_child_process  # reportlab and its parsed fonts (~10 MB) stay out of the env process
def slides_pdf_bytes(slides: list[Slide], *, title: str = "") -> bytes:
    """A presentation as PDF: one 16:9 page per slide with its background, title and body."""
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen.canvas import Canvas

    regular, bold = _pdf_fonts()
    W, H = SLIDE_SIZE
    out = io.BytesIO()
    c = Canvas(out, pagesize=(W, H), invariant=1)
    c.setTitle(title)
    c.setCreator("mmenvs sim")
    for s in slides or [Slide()]:
        c.setFillColorRGB(*(v / 255 for v in s.background))
        c.rect(0, 0, W, H, stroke=0, fill=1)
        y = H - 160
        if s.title_showing and s.title:
            c.setFillColorRGB(*(v / 255 for v in s.title_color))
            for line in simpleSplit(s.title, bold, 80, W - 240):
                c.setFont(bold, 80)
                c.drawString(120, y, line)
                y -= 96
            y -= 30
        c.setFillColorRGB(*(v / 255 for v in s.body_color))
        for line in _slide_lines(s):
            for k, part in enumerate(simpleSplit(line, regular, 48, W - 300)):
                c.setFont(regular, 48)
                if k == 0:  # the bullet is drawn, not text: extracted text holds only the words
                    c.circle(140, y + 16, 8, stroke=0, fill=1)
                c.drawString(180, y, part)
                y -= 64
        c.showPage()
    c.save()
    return out.getvalue()


def write_docx(files: ConfinedDir, path: Path, blocks: list[Block], *, base_size: float = 12) -> None:
    """Export as a Word document at ``path`` through ``files`` (see ``docx_bytes``)."""
    save_bytes(files, path, docx_bytes(blocks, base_size=base_size))


@in_child_process  # python-docx/python-pptx + lxml: ~15 MB each, never kept in the env process
def docx_bytes(blocks: list[Block], *, base_size: float = 12) -> bytes:
    """A Word document: Title/Subtitle/Heading 1–2/List Bullet styles, tables in the
    "Table Grid" style, page breaks."""
    import docx
    from docx.shared import Pt

    d = docx.Document()
    d.styles["Normal"].font.size = Pt(base_size)
    for b in blocks:
        if b.kind == "title":
            d.add_heading(b.text, level=0)
        elif b.kind == "subtitle":
            d.add_paragraph(b.text, style="Subtitle")
        elif b.kind == "heading":
            d.add_heading(b.text, level=1)
        elif b.kind == "heading 2":
            d.add_heading(b.text, level=2)
        elif b.kind == "bullet":
            d.add_paragraph(b.text, style="List Bullet")
        elif b.kind == "page break":
            d.add_page_break()
        elif b.kind == "table":
            rows = b.rows or []
            if rows:
                ncols = max(len(r) for r in rows)
                table = d.add_table(rows=len(rows), cols=ncols)
                table.style = "Table Grid"
                for i, r in enumerate(rows):
                    for j in range(ncols):
                        table.cell(i, j).text = r[j] if j < len(r) else ""
        else:
            d.add_paragraph(b.text)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


# Keynote layout → the matching layout of python-pptx's default template
_PPTX_LAYOUTS = {"Title": 0, "Title & Subtitle": 0, "Title & Bullets": 1, "Title, Bullets & Photo": 1, "Bullets": 1,
                 "Agenda": 1, "Section": 2, "Title Only": 5, "Statement": 5, "Big Fact": 1, "Quote": 1,
                 "Title & Photo": 5, "Photo": 6, "Blank": 6}


def write_pptx(files: ConfinedDir, path: Path, slides: list[Slide]) -> None:
    """Export as a PowerPoint deck at ``path`` through ``files`` (see ``pptx_bytes``)."""
    save_bytes(files, path, pptx_bytes(slides))


@in_child_process  # python-docx/python-pptx + lxml: ~15 MB each, never kept in the env process
def pptx_bytes(slides: list[Slide]) -> bytes:
    """A PowerPoint deck (16:9): each slide on the matching layout, title and body in
    their placeholders (body lines become paragraphs), presenter notes in the notes page."""
    from pptx import Presentation
    from pptx.dml.color import RGBColor
    from pptx.util import Emu

    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(12192000), Emu(6858000)  # 13.333 × 7.5 in
    for s in slides:
        layout = prs.slide_layouts[_PPTX_LAYOUTS.get(s.layout, 1)]
        sl = prs.slides.add_slide(layout)
        bg = sl.background.fill
        bg.solid()
        bg.fore_color.rgb = RGBColor(*s.background)
        placeholders = {p.placeholder_format.idx: p for p in sl.placeholders}
        if 0 in placeholders:
            placeholders[0].text_frame.text = s.title if s.title_showing else ""
            for p in placeholders[0].text_frame.paragraphs:
                for r in p.runs:
                    r.font.color.rgb = RGBColor(*s.title_color)
        body = next((p for i, p in sorted(placeholders.items()) if i != 0), None)
        lines = _slide_lines(s)
        if body is not None:
            tf = body.text_frame
            tf.text = lines[0] if lines else ""
            for line in lines[1:]:
                tf.add_paragraph().text = line
            for p in tf.paragraphs:
                for r in p.runs:
                    r.font.color.rgb = RGBColor(*s.body_color)
        elif lines:  # a layout without a body placeholder: keep the text in a text box
            box = sl.shapes.add_textbox(Emu(914400), Emu(1828800), Emu(10363200), Emu(4114800))
            box.text_frame.text = "\n".join(lines)
        if s.notes:
            sl.notes_slide.notes_text_frame.text = s.notes
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def render_slide(slide: Slide, size: tuple[int, int] = SLIDE_SIZE) -> "Any":
    """The slide as a Pillow RGB image of ``size`` (what slide-image export writes, and thumbnails)."""
    from PIL import Image, ImageDraw

    from mmenvs.core.fonts import font

    W, H = size
    k = W / SLIDE_SIZE[0]
    img = Image.new("RGB", (W, H), slide.background)
    d = ImageDraw.Draw(img)
    y = int(110 * k)
    if slide.title_showing and slide.title:
        f = font(max(6, int(80 * k)), bold=True)
        for line in _wrap(slide.title, f, W - int(240 * k)):
            d.text((int(120 * k), y), line, font=f, fill=slide.title_color)
            y += int(96 * k)
        y += int(30 * k)
    f = font(max(5, int(48 * k)))
    for line in _slide_lines(slide):
        for j, part in enumerate(_wrap(line, f, W - int(300 * k))):
            if j == 0:
                r, cy = max(2, int(8 * k)), y + int(30 * k)
                d.ellipse((int(140 * k) - r, cy - r, int(140 * k) + r, cy + r), fill=slide.body_color)
            d.text((int(180 * k), y), part, font=f, fill=slide.body_color)
            y += int(64 * k)
    return img


def _wrap(text: str, f: Any, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        t = (cur + " " + w).strip()
        if cur and f.getlength(t) > width:
            lines.append(cur)
            cur = w
        else:
            cur = t
    if cur:
        lines.append(cur)
    return lines


IMAGE_FORMATS = {"PNG": "png", "JPEG": "jpeg", "TIFF": "tiff"}


def write_slide_images(files: ConfinedDir, folder: Path, stem: str, slides: list[Slide], fmt: str = "PNG",
                       size: tuple[int, int] = SLIDE_SIZE) -> list[Path]:
    """Export every slide as an image into ``folder`` (created) through ``files``, named as Keynote
    names them: ``<stem>.001.png``, ``<stem>.002.png``, …; returns the files written. ``stem`` is a
    name (a "/" in it becomes ":", as the Finder shows it), never a path."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"image format {fmt!r} is not supported; expected one of {', '.join(IMAGE_FORMATS)}")
    ext = IMAGE_FORMATS[fmt]
    stem = checked_name(stem.replace("/", ":"), "slide image name")
    files.mkdir(folder, parents=True, exist_ok=True)
    out = []
    for i, s in enumerate(slides, 1):
        p = folder / f"{stem}.{i:03d}.{ext}"
        image = io.BytesIO()
        render_slide(s, size).save(image, format=fmt)
        files.write_bytes(p, image.getvalue())
        out.append(p)
    return out


def write_epub(files: ConfinedDir, path: Path, blocks: list[Block], *, title: str, language: str = "en") -> None:
    """Export as EPUB 3 (a zip: the ``mimetype`` entry first and stored, the container, the package
    document, a navigation document and one XHTML chapter); deterministic like the documents."""
    import html

    body: list[str] = []
    for b in blocks:
        tag = {"title": "h1", "subtitle": "h2", "heading": "h2", "heading 2": "h3"}.get(b.kind, "p")
        if b.kind == "table":
            rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in b.rows or [])
            body.append(f"<table>{rows}</table>")
        elif b.kind == "bullet":
            body.append(f"<ul><li>{html.escape(b.text)}</li></ul>")
        elif b.kind != "page break":
            body.append(f"<{tag}>{html.escape(b.text)}</{tag}>" if b.text else "<p><br/></p>")
    t = html.escape(title)
    chapter = (f'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="{language}">'
               f"<head><title>{t}</title></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    nav = (f'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
           f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{t}</title></head><body>'
           f'<nav epub:type="toc"><ol><li><a href="chapter.xhtml">{t}</a></li></ol></nav></body></html>\n')
    ident = uuid.UUID(bytes=hashlib.sha256(chapter.encode()).digest()[:16], version=4)
    opf = (f'<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
           f'unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="uid">urn:uuid:{ident}</dc:identifier><dc:title>{t}</dc:title>'
           f'<dc:language>{language}</dc:language><meta property="dcterms:modified">2025-01-01T00:00:00Z</meta>'
           f'</metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
           f'<item id="chapter" href="chapter.xhtml" media-type="application/xhtml+xml"/></manifest>'
           f'<spine><itemref idref="chapter"/></spine></package>\n')
    container = ('<?xml version="1.0" encoding="utf-8"?>\n<container version="1.0" '
                 'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                 '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                 '</rootfiles></container>\n')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype", date_time=_STAMP), "application/epub+zip")  # stored, first
        for name, data in (("META-INF/container.xml", container), ("OEBPS/content.opf", opf),
                           ("OEBPS/nav.xhtml", nav), ("OEBPS/chapter.xhtml", chapter)):
            info = zipfile.ZipInfo(name, date_time=_STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data.encode("utf-8"))
    save_bytes(files, path, buf.getvalue())


# =============================================================================================== the apps' shared part
# Pages and Keynote (and Numbers, if it likes) are document apps of one shape: a chooser (templates /
# themes) for a new document, document windows, Save (a sheet with name and location, .pages/.key),
# Export To (a sheet with a format, name and location), closing with unsaved changes asks, and an
# AppleScript dictionary with documents, save/open/close/export. ``IWorkApp`` and ``IWorkScripting``
# hold that; the apps add their model, window contents and dictionary terms.


@dataclass
class IWorkDoc:
    """An open document: ``name`` without the suffix (as the window title and AppleScript show it),
    ``model`` the app's own content object, ``path`` the file it was saved to / opened from."""

    id: int
    name: str
    model: Any
    path: Path | None = None
    modified: bool = False


@dataclass(frozen=True)
class ExportFormat:
    """One entry of File > Export To: the tab label, the AppleScript constant, the file suffix
    ("" for a folder of files) and whether the app writes it."""

    label: str
    constant: str
    suffix: str


class IWorkApp(DocumentApp):
    """Base of the sim's iWork apps. Subclasses set ``kind``, ``choices`` (template or theme names),
    ``chooser_title``, ``export_formats``, and implement the model hooks and ``build_document``."""

    kind = "pages"
    chooser_title = "Choose a Template"
    chooser_button = "Create"
    choices: tuple[str, ...] = ()
    default_choice = ""
    export_formats: tuple[ExportFormat, ...] = ()
    doc_size = (900, 620)
    documents: list[IWorkDoc]

    def __init__(self, desktop: Any) -> None:
        super().__init__(desktop)
        self._next = 1

    @property
    def suffix(self) -> str:
        return KINDS[self.kind][0]

    # ------------------------------------------------------------------ model hooks (override)
    def new_model(self, choice: str) -> Any:
        """A fresh model for template / theme ``choice``."""
        raise NotImplementedError

    def model_from_content(self, content: dict[str, Any], source: str) -> Any:
        """The model stored in a file's content (``source`` names the file for errors)."""
        raise NotImplementedError

    def model_to_content(self, model: Any) -> dict[str, Any]:
        raise NotImplementedError

    def export(self, doc: IWorkDoc, fmt: ExportFormat, path: Path, options: dict[str, Any]) -> None:
        """Write ``doc`` to ``path`` in ``fmt``."""
        raise NotImplementedError

    def build_document(self, win: Window) -> list[Widget]:
        raise NotImplementedError

    def paint_choice(self, d: Any, rect: tuple[int, int, int, int], choice: str) -> None:
        """The thumbnail of a template / theme in the chooser."""
        x, y, w, h = rect
        d.rectangle((x, y, x + w - 1, y + h - 1), fill=(255, 255, 255), outline=(200, 200, 200))

    # ------------------------------------------------------------------ documents
    def find_document(self, doc_id: Any) -> IWorkDoc | None:
        return next((d for d in self.documents if d.id == doc_id), None)

    def new_document(self, choice: str | None = None, name: str | None = None) -> IWorkDoc:
        """Create and show a document from template / theme ``choice`` (the default one if None)."""
        choice = self.default_choice if choice is None else choice
        if choice not in self.choices:
            raise ValueError(f"{self.name} has no {self._choice_word()} named {choice!r}; it has {', '.join(self.choices)}")
        doc = IWorkDoc(self._next, name or self.untitled_name(), self.new_model(choice))
        self._next += 1
        self.documents.append(doc)
        self._open_window(doc)
        self.touch()
        return doc

    def _choice_word(self) -> str:
        return "template" if self.kind == "pages" else "theme"

    def load(self, path: Path) -> IWorkDoc:
        """Open the document at ``path`` (raises ``IWorkFileError`` naming the file when it is not one)."""
        doc = self.already_open(path)
        if doc is not None:
            return doc
        content = read_document(path, self.kind, self.desktop.home_files)
        model = self.model_from_content(content, path.name)
        doc = IWorkDoc(self._next, path.name[: -len(path.suffix)] if path.suffix else path.name, model, path)
        self._next += 1
        self.documents.append(doc)
        self._open_window(doc)
        self.touch()
        return doc

    def open_file(self, path: Path) -> IWorkDoc | None:
        """Finder / ``open``: open the document, or say why it cannot be opened."""
        try:
            return self.load(path)
        except (IWorkFileError, OSError) as e:  # OSError: a symlink, a special file, a folder (the layer refused it)
            file_alert(self, None, f"The document “{path.name}” could not be opened.", e)
            return None

    def write(self, doc: IWorkDoc, path: Path) -> None:
        """Save ``doc`` at ``path`` (inside the home folder); the document takes the file's name."""
        write_document(path, self.kind, self.model_to_content(doc.model), self.desktop.home_files)
        doc.path, doc.modified = path, False
        doc.name = path.name[: -len(path.suffix)] if path.suffix.lower() == self.suffix else path.name
        self.touch()

    def export_to(self, doc: IWorkDoc, fmt: ExportFormat, path: Path, options: dict[str, Any] | None = None) -> None:
        """Export ``doc`` as ``fmt`` at ``path`` (through the home's layer: ``OSError`` when refused)."""
        self.export(doc, fmt, path, options or {})
        self.touch()

    def mark_modified(self, doc: IWorkDoc) -> None:
        doc.modified = True

    def export_format(self, name: str) -> ExportFormat:
        """The export format called ``name`` (its AppleScript constant or its label)."""
        for f in self.export_formats:
            if name.lower() in (f.constant.lower(), f.label.lower()):
                return f
        raise ValueError(f"{self.name} cannot export as {name!r}; it exports as "
                         + ", ".join(f.constant for f in self.export_formats))

    # ------------------------------------------------------------------ windows
    def new_window(self) -> Window:
        return self.chooser()

    def _open_window(self, doc: IWorkDoc) -> Window:
        w, h = self.doc_size
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, doc.name, (x, y, w, h), self._build_doc, doc=doc, title_h=52)
        self.desktop.show_window(win)
        self.window_opened(win)
        return win

    def window_opened(self, win: Window) -> None:
        """Hook: set the first focus of a new document window."""

    def _build_doc(self, win: Window) -> list[Widget]:
        doc: IWorkDoc = win.doc
        win.title = doc.name + (" — Edited" if doc.modified else "")
        return self.build_document(win)

    def chooser(self) -> Window:
        """The template / theme chooser: a grid of thumbnails (click or arrow keys to select,
        double-click or Return to create, Escape to cancel)."""
        cols, tw, th, gap = 4, 180, 120, 24
        rows = (len(self.choices) + cols - 1) // cols
        w, h = cols * (tw + gap) + gap, 100 + rows * (th + 44) + 60
        state = {"sel": self.choices.index(self.default_choice)}

        def choose(i: int | None = None) -> None:
            self.desktop.close_window(win)
            self.new_document(self.choices[state["sel"] if i is None else i])

        def build(win: Window) -> list[Widget]:
            out: list[Widget] = [Box((0, 52, w, h - 52), "content_bg"),
                                 Label((gap, 60, w - 2 * gap, 28), self.chooser_title, 17, "bold", key="chooser:title")]
            tiles = []
            for i, name in enumerate(self.choices):
                r, c = divmod(i, cols)
                x, y = gap + c * (tw + gap), 100 + r * (th + 44)
                tiles.append((i, name, (x, y, tw, th)))

            def paint(d: Any, theme: Any, rect: Any) -> None:
                for i, name, (x, y, tw_, th_) in tiles:
                    self.paint_choice(d, (x, y, tw_, th_), name)
                    if i == state["sel"]:
                        d.rounded_rectangle((x - 4, y - 4, x + tw_ + 3, y + th_ + 3), 6, outline=theme.accent, width=3)
                    d.text((x + tw_ // 2, y + th_ + 16), name, font=ui_font(12, "bold" if i == state["sel"] else "regular"),
                           fill=theme.text, anchor="mm")

            def click(win_: Window, ev: Any) -> None:
                for i, _, (x, y, tw_, th_) in tiles:
                    if x <= ev.x < x + tw_ and y <= ev.y < y + th_ + 30:
                        state["sel"] = i
                        win_.touch()
                        if ev.clicks >= 2:
                            choose(i)
                        return

            def key(k: str, mods: frozenset) -> bool:
                step = {"left": -1, "right": 1, "up": -cols, "down": cols}.get(k)
                if step is None:
                    return False
                state["sel"] = max(0, min(len(self.choices) - 1, state["sel"] + step))
                win.touch()
                return True

            children = [("AXButton", name, None, rect, "selected" if i == state["sel"] else "") for i, name, rect in tiles]
            out.append(Custom("chooser:grid", (0, 96, w, h - 150), paint, on_click=click, role="AXGroup",
                              name=self.chooser_title, value=self.choices[state["sel"]], children=children, on_key=key,
                              focusable=True))
            out.append(Button("chooser:cancel", (w - 220, h - 44, 96, 26), "Cancel", lambda: self.desktop.close_window(win),
                              cancel=True))
            out.append(Button("chooser:create", (w - 112, h - 44, 96, 26), self.chooser_button, lambda: choose(), default=True))
            return out

        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, self.chooser_title, (x, y, w, h), build, title_h=52)
        win.focus_key = "chooser:grid"
        self.desktop.show_window(win)
        return win

    # ------------------------------------------------------------------ save / export sheets
    def save_sheet(self, win: Window, then_close: bool = False) -> Window:
        """Save: name (the suffix is added), location; the format is the app's own."""
        kind_name = {"pages": "Pages Document", "keynote": "Keynote Presentation", "numbers": "Numbers Spreadsheet"}[self.kind]
        return file_panels.save_sheet(self, win, verb="Save", default=win.doc.name,
                                      file_name=lambda name: with_suffix(name, self.suffix),
                                      on_save=lambda path: self.finish_save(win, path, then_close),
                                      format_text=kind_name, size=(480, 170), format_width=300)

    def export_sheet(self, win: Window | None, fmt: ExportFormat | None = None) -> None:
        """File > Export To: the format tabs, then name and location."""
        if win is None or not isinstance(win.doc, IWorkDoc):
            return
        doc: IWorkDoc = win.doc
        w = 480
        form = {"fmt": fmt or self.export_formats[0]}

        def tabs(sheet: Window) -> list[Widget]:
            return [Segmented("export:format", (20, 14, w - 40, 26), [f.label for f in self.export_formats],
                              form["fmt"].label, lambda v: (form.__setitem__("fmt", self.export_format(v)), sheet.touch()),
                              name="Format")]

        file_panels.save_sheet(self, win, verb="Export", default=doc.name,
                               file_name=lambda name: with_suffix(name, form["fmt"].suffix),
                               on_save=lambda path: self._export_from_sheet(win, doc, form["fmt"], path),
                               format_text=lambda: self._format_caption(form["fmt"]), size=(w, 210), format_width=300,
                               header=tabs, top=48)

    def _export_from_sheet(self, win: Window, doc: IWorkDoc, fmt: ExportFormat, path: Path) -> None:
        """The export sheet's button: export, or say in an alert on the window why it cannot."""
        try:
            self.export_to(doc, fmt, path)
        except (OSError, ValueError) as e:
            file_alert(self, win, f"The document “{doc.name}” could not be exported.", e)

    @staticmethod
    def _format_caption(fmt: ExportFormat) -> str:
        return {".pdf": "PDF", ".docx": "Microsoft Word (.docx)", ".txt": "Plain Text (UTF-8)", ".epub": "EPUB",
                ".pptx": "Microsoft PowerPoint (.pptx)", ".xlsx": "Microsoft Excel (.xlsx)", ".csv": "CSV",
                "": "A folder of images, one per slide"}.get(fmt.suffix, fmt.label)

    # ------------------------------------------------------------------ menus
    def file_menu(self) -> list[MenuItem]:
        fw = self._front()
        is_doc = fw is not None and isinstance(fw.doc, IWorkDoc)
        items = [
            MenuItem("New", self.chooser, "cmd+n"),
            MenuItem("Open…", self.open_chooser, "cmd+o"),
            sep(),
            MenuItem("Close", self._close_front, "cmd+w", enabled=fw is not None),
            MenuItem("Save…", lambda: self.save(fw), "cmd+s", enabled=is_doc),
            MenuItem("Duplicate", lambda: self.save(fw, save_as=True), "cmd+shift+s", enabled=is_doc),
            sep(),
        ]
        for f in self.export_formats:
            items.append(MenuItem(f"Export To {f.label}…", (lambda f=f: self.export_sheet(fw, f)), enabled=is_doc))
        return items

    def app_menus(self) -> list:
        return [("File", self.file_menu())]

    def open_chooser(self) -> Window:
        """File > Open…: pick a document of this app from a location."""
        return file_panels.open_panel(self, shows=lambda p: self.desktop.home_files.is_dir(p) or p.suffix.lower() == self.suffix)


class IWorkScripting(ScriptableAppBase):
    """The dictionary iWork apps share: ``documents`` (name, id, modified, file), ``windows``, and the
    commands ``make new document``, ``save … in``, ``open``, ``close … saving``, ``export … to … as``.
    Subclasses add their classes/properties/constants and answer them in the ``*_extra`` hooks."""

    extra_classes: dict[str, str] = {}
    extra_properties: frozenset[str] = frozenset()
    extra_constants: frozenset[str] = frozenset()
    record_properties: tuple[str, ...] = ()  # a document's own properties in ``properties of document``

    def __init__(self, app: IWorkApp) -> None:
        self.app = app
        self.name = app.name
        cmds = dict(STANDARD_COMMANDS)
        cmds["export"] = ("to", "as", "with properties")
        self.terminology = Terminology(
            classes={"document": "documents", "window": "windows", **self.extra_classes},
            properties=frozenset({"name", "id", "modified", "file", "index", "bounds", "document", "frontmost",
                                  "version", "properties", "class"}) | self.extra_properties,
            commands=cmds,
            constants=frozenset(f.constant for f in app.export_formats) | self.extra_constants)

    # ------------------------------------------------------------------ helpers
    def doc(self, obj: ObjectRef) -> IWorkDoc:
        d = self.app.find_document(obj.id) if obj.cls == "document" else None
        if d is None:
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        return d

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "document":
            d = self.app.find_document(obj.id)
            if d is not None:
                return f'document "{d.name}" of application "{self.name}"'
        return super().describe(obj)

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        # ``file (path to documents folder as text) & "x.pdf"`` inside the tell block: AppleScript makes
        # a file specifier of the text (a literal ``file "…"`` never reaches the app)
        if container is None and cls == "file":
            return ObjectRef("file", str(name))
        return None

    def host_path(self, value: Any, what: str) -> Path:
        """The host path of a script's file value; errors name the value and what it was for."""
        from ..backend import BackendError

        if isinstance(value, ObjectRef) and value.cls == "file":
            value = value.id
        text = path_text(value)
        try:
            return self.app.desktop.backend.host_path(text)
        except BackendError as e:
            raise AppleScriptError(f"Can’t {what} “{text}”: {e}.", -5000) from None

    def _docs_of(self, direct: Any) -> list[IWorkDoc]:
        if direct is None:
            d = self.app.front_document()
            if d is None:
                raise AppleScriptError("Can’t get document 1.", ERR_NO_SUCH_OBJECT)
            return [d]
        out = []
        for it in (direct if isinstance(direct, list) else [direct]):
            ref = it if isinstance(it, ObjectRef) else getattr(it, "ref", None)
            if not isinstance(ref, ObjectRef):
                raise AppleScriptError(f"Can’t make {self._show(it)} into type document.", -1700)
            if ref.cls == "window":
                w = self._window(ref)
                out.append(w.doc)
            else:
                out.append(self.doc(ref))
        return out

    def _window(self, obj: ObjectRef) -> Window:
        for w in self.app.windows:
            if w.id == obj.id and isinstance(w.doc, IWorkDoc):
                return w
        raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    # ------------------------------------------------------------------ hooks for subclasses
    def elements_extra(self, container: ObjectRef | None, cls: str) -> list[ObjectRef] | None:
        return None

    def get_extra(self, obj: ObjectRef | None, prop: str) -> Any:
        return super().get_property(obj, prop)

    def set_extra(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        super().set_property(obj, prop, value)

    def make_document(self, properties: dict[str, Any]) -> IWorkDoc:
        return self.app.new_document()

    def make_extra(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)

    def delete_extra(self, obj: ObjectRef) -> None:
        super().delete(obj)

    # ------------------------------------------------------------------ ScriptableApp
    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls == "document":
            return [ObjectRef("document", d.id) for d in self.app.documents_front_first()]
        if container is None and cls == "window":
            return [ObjectRef("window", w.id) for w in self.app.windows if isinstance(w.doc, IWorkDoc)]
        found = self.elements_extra(container, cls)
        if found is not None:
            return found
        return super().elements(container, cls)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None:
            if prop == "version":
                return "14.4"
            if prop == "name":
                return self.name
            return self.get_extra(obj, prop)
        if obj.cls == "window":
            w = self._window(obj)
            if prop == "name":
                return w.title
            if prop == "document":
                return ObjectRef("document", w.doc.id)
            if prop == "bounds":
                return window_bounds(w)
            if prop == "id":
                return w.id
            return super().get_property(obj, prop)
        if obj.cls == "document":
            d = self.doc(obj)
            if prop == "name":
                return d.name
            if prop == "id":
                return f"{self.app.kind.upper()}-{d.id:04d}"
            if prop == "modified":
                return d.modified
            if prop == "file":
                return None if d.path is None else FileRef(self.app.desktop.backend.posix_path(d.path), "file")
            if prop == "properties":
                out: dict[str, Any] = {"class": Constant("document")}
                for p in ("name", "id", "modified", "file", *self.record_properties):
                    out[p] = self.get_property(obj, p)
                return out
        return self.get_extra(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "window" and prop == "bounds":
            set_window_bounds(self._window(obj), value, self.describe(obj))
            return
        if obj is not None and obj.cls == "document" and prop in ("name", "id", "modified", "file"):
            raise AppleScriptError(f"Can’t set {prop} of {self.describe(obj)} to {self._show(value)}: it is read-only.", -10006)
        self.set_extra(obj, prop, value)
        if obj is not None:
            d = self._owner_doc(obj)
            if d is not None:
                self.app.mark_modified(d)

    def _owner_doc(self, obj: ObjectRef) -> IWorkDoc | None:
        """The document an object belongs to (ids of a document's parts start with its id)."""
        if obj.cls == "document":
            return self.app.find_document(obj.id)
        if isinstance(obj.id, tuple) and obj.id:
            return self.app.find_document(obj.id[0])
        return None

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        if cls == "document":
            return ObjectRef("document", self.make_document(properties).id)
        ref = self.make_extra(cls, properties, at)
        d = self._owner_doc(ref)
        if d is not None:
            self.app.mark_modified(d)
        return ref

    def delete(self, obj: ObjectRef) -> None:
        if obj.cls == "document":
            raise AppleScriptError(f"Can’t delete {self.describe(obj)}; close it instead.", ERR_APP_GENERIC)
        d = self._owner_doc(obj)
        self.delete_extra(obj)
        if d is not None:
            self.app.mark_modified(d)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        app = self.app
        if name == "save":
            (doc,) = self._docs_of(direct)[:1]
            target = params.get("in")
            if target is None and doc.path is None:
                raise AppleScriptError(f"The document “{doc.name}” has never been saved; give a file with “in”.", ERR_APP_GENERIC)
            path = self._with_suffix(self.host_path(target, "save to")) if target is not None else doc.path
            app.write(doc, path)
            return None
        if name == "open":
            out = []
            for it in (direct if isinstance(direct, list) else [direct]):
                path = self.host_path(it, "open")
                if not app.desktop.home_files.exists(path):
                    raise AppleScriptError(f"The file “{path.name}” couldn’t be opened because there is no such file.", -43)
                try:
                    out.append(ObjectRef("document", app.load(path).id))
                except (IWorkFileError, OSError) as e:
                    raise AppleScriptError(f"The document “{path.name}” could not be opened. {error_text(e)}",
                                           ERR_APP_GENERIC) from None
            app.desktop.activate(app, reopen=False)
            return out[0] if len(out) == 1 else out
        if name == "close":
            saving = params.get("saving")
            saving_in = params.get("saving in")
            for doc in self._docs_of(direct):
                if saving_in is not None:
                    app.write(doc, self._with_suffix(self.host_path(saving_in, "save to")))
                elif saving == Constant("yes") and doc.modified:
                    if doc.path is None:
                        raise AppleScriptError(f"The document “{doc.name}” has never been saved; "
                                               "close it “saving in” a file.", ERR_APP_GENERIC)
                    app.write(doc, doc.path)
                elif saving != Constant("no") and doc.modified:
                    # “saving ask” (the default): the app asks on screen, as on a Mac; the document stays
                    # open until the agent answers the alert
                    win = next((w for w in app.windows if w.doc is doc), None)
                    if win is not None:
                        app.desktop.raise_window(win)
                        app.request_close(win)
                        continue
                app.close_document(doc)
            return None
        if name == "export":
            (doc,) = self._docs_of(direct)[:1]
            if "to" not in params:
                raise AppleScriptError("Some parameter is missing for export: give a file with “to”.", -1701)
            fmt_value = params.get("as")
            if fmt_value is None:
                raise AppleScriptError("Some parameter is missing for export: give a format with “as” ("
                                       + ", ".join(f.constant for f in app.export_formats) + ").", -1701)
            fmt_name = fmt_value.name if isinstance(fmt_value, Constant) else str(fmt_value)
            try:
                fmt = app.export_format(fmt_name)
            except ValueError as e:
                raise AppleScriptError(str(e), -1700) from None
            path = self.host_path(params["to"], "export to")
            options = params.get("with properties") or {}
            if not isinstance(options, dict):
                raise AppleScriptError(f"Can’t make {self._show(options)} into type export options.", -1700)
            try:
                app.export_to(doc, fmt, path, {k: (v.name if isinstance(v, Constant) else v) for k, v in options.items()})
            except ValueError as e:
                raise AppleScriptError(str(e), ERR_APP_GENERIC) from None
            return None
        return super().command(name, direct, params)

    def _with_suffix(self, path: Path) -> Path:
        return path if path.suffix.lower() == self.app.suffix else path.with_name(path.name + self.app.suffix)
