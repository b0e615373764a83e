"""The document file format the sim's Pages, Numbers and Keynote share.

Real iWork documents are zip archives (``Index/*.iwa`` protobuf streams, ``Metadata/``, a preview).
The sim keeps the same outer shape — a zip with ``Metadata/Properties.plist`` and the document under
``Index/`` — but stores the content as one JSON file, ``Index/Document.json``, so shell tools
(``unzip -p doc.pages Index/Document.json``) and getters can read it. Archives are written
deterministically (fixed member times, sorted keys): the same document gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import plistlib
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# document kind → (file suffix, app name)
KINDS: dict[str, tuple[str, str]] = {
    "pages": (".pages", "Pages"),
    "numbers": (".numbers", "Numbers"),
    "keynote": (".key", "Keynote"),
}
FORMAT_VERSION = 1
_CONTENT = "Index/Document.json"
_PROPERTIES = "Metadata/Properties.plist"
_STAMP = (2025, 1, 1, 0, 0, 0)  # member times: fixed, so equal documents are equal files


class IWorkFileError(ValueError):
    """A file that is not a readable sim iWork document (names the file and what is wrong)."""


def kind_of(path: Path) -> str | None:
    """The document kind a path's suffix names ("pages" | "numbers" | "keynote"), or None."""
    suffix = path.suffix.lower()
    return next((k for k, (s, _) in KINDS.items() if s == suffix), None)


def write_document(path: Path, kind: str, content: dict[str, Any]) -> None:
    """Write ``content`` (JSON-able) as a ``kind`` document at host path ``path``."""
    if kind not in KINDS:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {', '.join(KINDS)}")
    body = json.dumps({"kind": kind, "format": FORMAT_VERSION, "content": content},
                      sort_keys=True, ensure_ascii=False, indent=1).encode("utf-8")
    doc_id = uuid.UUID(bytes=hashlib.sha256(body).digest()[:16], version=4)
    props = plistlib.dumps({"documentUUID": str(doc_id).upper(), "fileFormatVersion": f"sim-{FORMAT_VERSION}",
                            "isMultiPage": kind != "numbers", "revision": "0::sim"}, sort_keys=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in ((_PROPERTIES, props), (_CONTENT, body)):
            z.writestr(zipfile.ZipInfo(name, date_time=_STAMP), data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())


def read_document(path: Path, kind: str | None = None) -> dict[str, Any]:
    """The content of the document at host path ``path``; ``kind`` (if given) must match."""
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read(_CONTENT).decode("utf-8"))
    except FileNotFoundError:
        raise IWorkFileError(f"{path.name}: no such document") from None
    except (zipfile.BadZipFile, KeyError):
        raise IWorkFileError(f"{path.name}: not an iWork document (expected a zip archive with {_CONTENT})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise IWorkFileError(f"{path.name}: {_CONTENT} is not valid JSON ({e})") from None
    if not isinstance(data, dict) or data.get("kind") not in KINDS or not isinstance(data.get("content"), dict):
        raise IWorkFileError(f"{path.name}: {_CONTENT} must hold {{kind, format, content}}")
    if kind is not None and data["kind"] != kind:
        raise IWorkFileError(f"{path.name}: is a {KINDS[data['kind']][1]} document, expected {KINDS[kind][1]}")
    return data["content"]


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


def write_text(path: Path, blocks: list[Block]) -> None:
    """Export as plain UTF-8 text (Pages' "Plain Text" / AppleScript ``unformatted text``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(blocks_text(blocks), encoding="utf-8")


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


def write_pdf(path: Path, blocks: list[Block], *, title: str = "", base_size: float = 12,
              landscape: bool = False) -> None:
    """Export a flowing document (Pages, Numbers) as PDF: US Letter pages, styles by ``kind``, tables
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
    path.parent.mkdir(parents=True, exist_ok=True)
    size = _landscape(letter) if landscape else letter
    doc = SimpleDocTemplate(str(path), pagesize=size, title=title, author="", creator="mmenvs sim",
                            invariant=1, leftMargin=72, rightMargin=72, topMargin=72, bottomMargin=72)
    doc.build(story or [Spacer(1, 1)])


SLIDE_SIZE = (1920, 1080)  # Keynote's default 16:9 slide, in points for PDF and pixels for images


def _slide_lines(slide: Slide) -> list[str]:
    return [ln for ln in slide.body.split("\n") if ln.strip()] if slide.body_showing else []


def write_slides_pdf(path: Path, slides: list[Slide], *, title: str = "") -> None:
    """Export a presentation as PDF: one 16:9 page per slide with its background, title and body."""
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen.canvas import Canvas

    regular, bold = _pdf_fonts()
    W, H = SLIDE_SIZE
    path.parent.mkdir(parents=True, exist_ok=True)
    c = Canvas(str(path), pagesize=(W, H), invariant=1)
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


def write_docx(path: Path, blocks: list[Block], *, base_size: float = 12) -> None:
    """Export as a Word document: Title/Subtitle/Heading 1–2/List Bullet styles, tables in the
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
    path.parent.mkdir(parents=True, exist_ok=True)
    d.save(str(path))


# Keynote layout → the matching layout of python-pptx's default template
_PPTX_LAYOUTS = {"Title": 0, "Title & Subtitle": 0, "Title & Bullets": 1, "Title, Bullets & Photo": 1, "Bullets": 1,
                 "Agenda": 1, "Section": 2, "Title Only": 5, "Statement": 5, "Big Fact": 1, "Quote": 1,
                 "Title & Photo": 5, "Photo": 6, "Blank": 6}


def write_pptx(path: Path, slides: list[Slide]) -> None:
    """Export as a PowerPoint deck (16:9): each slide on the matching layout, title and body in
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
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


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


def write_slide_images(folder: Path, stem: str, slides: list[Slide], fmt: str = "PNG",
                       size: tuple[int, int] = SLIDE_SIZE) -> list[Path]:
    """Export every slide as an image into ``folder`` (created), named as Keynote names them:
    ``<stem>.001.png``, ``<stem>.002.png``, …; returns the files written."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"image format {fmt!r} is not supported; expected one of {', '.join(IMAGE_FORMATS)}")
    ext = IMAGE_FORMATS[fmt]
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, s in enumerate(slides, 1):
        p = folder / f"{stem}.{i:03d}.{ext}"
        render_slide(s, size).save(p, format=fmt)
        out.append(p)
    return out


def write_epub(path: Path, blocks: list[Block], *, title: str, language: str = "en") -> None:
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
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())
