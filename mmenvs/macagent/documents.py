"""Readers for the office documents tasks check (PDF, Word, PowerPoint, Excel): bytes in, plain data out.

The libraries behind them (pypdf, python-docx, python-pptx, openpyxl) are large, so each reader runs in a
short-lived child process (:mod:`mmenvs.core.offload`) and the env process never keeps them; results
are cached by content, so ``reward_mode="progress"`` (a check every step) reads an unchanged file once.
"""

from __future__ import annotations

import functools
import io
import zipfile
from typing import Any

from mmenvs.core.offload import in_child_process


class DocumentError(ValueError):
    """The bytes are not a readable document of the expected kind (the message says why)."""


@in_child_process
def _pdf_pages(data: bytes) -> tuple[str, ...]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        return tuple(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    except (PdfReadError, ValueError) as exc:
        raise DocumentError(f"not a readable PDF ({exc})") from None


@in_child_process
def _docx_paragraphs(data: bytes) -> tuple[tuple[str, str], ...]:
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"not a Word .docx document ({exc})") from None
    return tuple((p.style.name if p.style is not None else "", p.text) for p in document.paragraphs)


@in_child_process
def _pptx_slides(data: bytes) -> tuple[dict[str, str], ...]:
    from pptx import Presentation

    try:
        deck = Presentation(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"not a PowerPoint .pptx deck ({exc})") from None
    slides = []
    for slide in deck.slides:
        title_shape = slide.shapes.title
        title_id = title_shape.shape_id if title_shape is not None else None
        body = [shape.text_frame.text for shape in slide.shapes
                if shape.has_text_frame and shape.shape_id != title_id and shape.text_frame.text.strip()]
        notes = slide.notes_slide.notes_text_frame.text if slide.has_notes_slide else ""
        slides.append({"title": title_shape.text_frame.text if title_shape is not None else "",
                       "body": "\n".join(body), "notes": notes})
    return tuple(slides)


@in_child_process
def _xlsx_values(data: bytes) -> tuple[tuple[str, dict[str, Any]], ...]:
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(data), data_only=True)
    except Exception as exc:  # openpyxl raises several types for a damaged workbook
        raise DocumentError(f"not a readable Excel workbook ({type(exc).__name__})") from None
    return tuple((ws.title, {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value is not None})
                 for ws in wb.worksheets)


@functools.lru_cache(maxsize=16)
def pdf_pages(data: bytes) -> tuple[str, ...]:
    """The extracted text of each page of a PDF (pypdf's extraction)."""
    return _pdf_pages(data)


@functools.lru_cache(maxsize=16)
def docx_paragraphs(data: bytes) -> tuple[tuple[str, str], ...]:
    """(style name, text) of each paragraph of a Word .docx, in order."""
    return _docx_paragraphs(data)


@functools.lru_cache(maxsize=16)
def pptx_slides(data: bytes) -> tuple[dict[str, Any], ...]:
    """Each slide of a PowerPoint .pptx as {"title", "body", "notes"} (body: the other text frames, one a line)."""
    return _pptx_slides(data)


@functools.lru_cache(maxsize=16)
def xlsx_values(data: bytes) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(worksheet title, {cell address: value} of its non-empty cells) for each worksheet of an .xlsx."""
    return _xlsx_values(data)
