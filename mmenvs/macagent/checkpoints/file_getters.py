"""Python getters that read files: existence, text, JSON/CSV, digests, folders, images and documents.

Each is registered in :data:`~.getters.GETTERS` under its name; task files call them as
``{"type": "python", "function": "file_text", "args": {"path": "~/Desktop/a.txt"}}``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shlex
from typing import Any, Callable

from mmenvs.macagent import documents
from mmenvs.macagent.formats.iwork_container import IWorkFileError, parse_document

from .context import GetterContext, GetterError, shell_path
from .getters import getter


@getter("path_exists")
def path_exists(ctx: GetterContext, path: str | list[str]) -> bool | dict[str, bool]:
    """Whether ``path`` exists (a dict path -> bool when given a list)."""
    paths = [path] if isinstance(path, str) else list(path)
    script = "; ".join(f"if [ -e {shell_path(p)} ]; then echo 1; else echo 0; fi" for p in paths)
    flags = ctx.shell_ok(script).split()
    if len(flags) != len(paths):
        raise GetterError(f"path_exists: expected {len(paths)} answers from the shell, got {flags!r}")
    result = {p: f == "1" for p, f in zip(paths, flags)}
    return result[paths[0]] if isinstance(path, str) else result


_CHUNK = 12_288  # bytes per chunked read: 16 KiB of base64, under the shell output caps backends apply


def read_bytes(ctx: GetterContext, path: str) -> bytes | None:
    target = shell_path(path)
    out = ctx.shell(f"if [ -f {target} ]; then base64 < {target}; else echo MMENVS_MISSING; fi")
    if out.exit_code != 0 or out.timed_out:
        raise GetterError(f"cannot read {path}: {out.text.strip()[-300:]}")
    if out.stdout.strip() == "MMENVS_MISSING":
        return None
    if not out.truncated:
        return base64.b64decode("".join(out.stdout.split()))
    # The backend cut the output short (a large file): read it again in chunks that each fit.
    chunks = []
    for index in range(1 << 16):
        part = ctx.shell(f"dd if={target} bs={_CHUNK} skip={index} count=1 2>/dev/null | base64")
        if part.exit_code != 0 or part.truncated:
            raise GetterError(f"cannot read {path} in chunks: {part.text.strip()[-300:]}")
        data = base64.b64decode("".join(part.stdout.split()))
        chunks.append(data)
        if len(data) < _CHUNK:
            return b"".join(chunks)
    raise GetterError(f"{path} is too large to read")


@getter("file_text")
def file_text(ctx: GetterContext, path: str, strip: bool = True) -> str | None:
    """The text of the file at ``path`` (UTF-8; ``None`` if it is missing), stripped unless ``strip`` is false."""
    data = read_bytes(ctx, path)
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace")
    return text.strip() if strip else text


@getter("file_lines")
def file_lines(ctx: GetterContext, path: str, skip_blank: bool = True) -> list[str] | None:
    """The lines of the file at ``path``, each stripped; blank lines dropped unless ``skip_blank`` is false."""
    text = file_text(ctx, path, strip=False)
    if text is None:
        return None
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line] if skip_blank else lines


@getter("file_json")
def file_json(ctx: GetterContext, path: str) -> Any:
    """The JSON value stored in the file at ``path`` (``None`` if missing; a GetterError if not JSON)."""
    text = file_text(ctx, path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GetterError(f"{path} does not hold valid JSON ({exc.msg} at line {exc.lineno})") from None


@getter("file_csv")
def file_csv(ctx: GetterContext, path: str, delimiter: str = ",") -> list[list[str]] | None:
    """The rows of the CSV file at ``path`` as lists of stripped cells."""
    import csv
    import io

    text = file_text(ctx, path)
    if text is None:
        return None
    return [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text), delimiter=delimiter) if row]


@getter("file_digest")
def file_digest(ctx: GetterContext, path: str) -> str | None:
    """SHA-256 of the file's bytes (``None`` if missing): the usual getter of a guard checkpoint."""
    data = read_bytes(ctx, path)
    return None if data is None else hashlib.sha256(data).hexdigest()


@getter("files_equal")
def files_equal(ctx: GetterContext, path: str, other: str) -> bool:
    """Whether the files at ``path`` and ``other`` both exist and hold the same bytes."""
    first, second = read_bytes(ctx, path), read_bytes(ctx, other)
    return first is not None and first == second


@getter("dir_listing")
def dir_listing(ctx: GetterContext, path: str, pattern: str = "*", kind: str = "any") -> list[str] | None:
    """Sorted names in the folder ``path`` matching the glob ``pattern`` (``kind``: any, file or dir).

    ``None`` when the folder does not exist.
    """
    if kind not in ("any", "file", "dir"):
        raise GetterError(f"dir_listing: kind must be 'any', 'file' or 'dir', got {kind!r}")
    test = {"any": "-e", "file": "-f", "dir": "-d"}[kind]
    folder = shell_path(path)
    script = (
        f"if [ ! -d {folder} ]; then echo MMENVS_MISSING; exit 0; fi; cd {folder} || exit 1; "
        f"for f in {_glob_word(pattern)}; do if [ {test} \"$f\" ]; then printf '%s\\n' \"$f\"; fi; done"
    )
    out = ctx.shell_ok(script)
    if out.strip() == "MMENVS_MISSING":
        return None
    return sorted(line for line in out.splitlines() if line)


def _glob_word(pattern: str) -> str:
    # Glob characters stay unquoted; everything else is quoted piecewise so names with spaces work.
    pieces = re.split(r"([*?])", pattern)
    return "".join(p if p in ("*", "?") else (shlex.quote(p) if p else "") for p in pieces)


@getter("count_files")
def count_files(ctx: GetterContext, path: str, pattern: str = "*", kind: str = "file") -> int:
    """How many entries in the folder ``path`` match ``pattern`` (0 when the folder is missing)."""
    names = dir_listing(ctx, path, pattern, kind)
    return 0 if names is None else len(names)


@getter("image_size")
def image_size(ctx: GetterContext, path: str) -> list[int] | None:
    """``[width, height]`` of the PNG/JPEG/GIF image at ``path`` (``None`` if missing)."""
    import io

    from PIL import Image, UnidentifiedImageError

    data = read_bytes(ctx, path)
    if data is None:
        return None
    try:
        with Image.open(io.BytesIO(data)) as image:
            return [int(image.width), int(image.height)]
    except UnidentifiedImageError:
        raise GetterError(f"{path} is not an image") from None


@getter("numbers_cells")
def numbers_cells(ctx: GetterContext, path: str, cells: list[str] | str | None = None, sheet: str | int = 1,
                  table: str | int = 1, formulas: bool = False) -> Any:
    """Values of a Numbers document's table (``sheet``/``table``: a name or a 1-based index) by cell
    address (``{"A1": "Item", "B2": 1200.0}``): the non-empty cells, or exactly ``cells`` (empty → None);
    ``cells`` as one address (``"B6"``) gives that cell's value alone.
    Formulas give their computed value, errors their code (``#DIV/0!``); with ``formulas`` the cells'
    formulas (``{"B5": "=SUM(B2:B4)"}``, no formula → None) instead. ``None`` if the file is missing.
    Reads MacAgent's iWork format (formats/); on a real Mac read cells through AppleScript instead."""
    from mmenvs.macagent.formats.numbers_formulas import parse_address
    from mmenvs.macagent.formats.numbers_tables import cells_record, sheets_from_json

    data = read_bytes(ctx, path)
    if data is None:
        return None
    name = path.rsplit("/", 1)[-1]
    try:
        sheets, _, _ = sheets_from_json(parse_document(data, name, "numbers"), name)
    except ValueError as exc:  # IWorkFileError / NumbersError name the file and the problem
        raise GetterError(f"numbers_cells: {exc}") from None
    sheet_obj = _pick(sheets, sheet, "sheet", path)
    record = cells_record(_pick(sheet_obj.tables, table, "table", f"{path} sheet {sheet_obj.name!r}"))
    found = record["formulas" if formulas else "values"]
    if cells is None:
        return found
    out = {}
    for name in [cells] if isinstance(cells, str) else cells:
        try:
            parse_address(name)
        except ValueError as exc:
            raise GetterError(f"numbers_cells: {exc}") from None
        out[name.upper()] = found.get(name.upper())
    return out[cells.upper()] if isinstance(cells, str) else out


def _pick(items: list[Any], which: str | int, kind: str, where: str) -> Any:
    """The item of ``items`` named ``which`` or at 1-based index ``which`` (GetterError naming the choices)."""
    names = [i if isinstance(i, str) else getattr(i, "name", "") for i in items]  # sheets/tables, or names
    if isinstance(which, int) and not isinstance(which, bool):
        if 1 <= which <= len(items):
            return items[which - 1]
    elif which in names:
        return items[names.index(which)]
    raise GetterError(f"{where} has no {kind} {which!r}; it has {names}")


@getter("xlsx_cells")
def xlsx_cells(ctx: GetterContext, path: str, cells: list[str] | None = None,
               sheet: str | int = 1) -> dict[str, Any] | None:
    """Values of an Excel workbook's worksheet (a name or a 1-based index) by cell address: the
    non-empty cells, or exactly ``cells`` (empty → None). ``None`` if the file is missing."""
    worksheets = _read_document(ctx, path, documents.xlsx_values)
    if worksheets is None:
        return None
    titles = [title for title, _ in worksheets]
    values = dict(worksheets)[_pick(titles, sheet, "worksheet", path)]
    if cells is None:
        return dict(values)
    out = {}
    for name in cells:
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z]{1,3}[1-9][0-9]{0,6}", name):
            raise GetterError(f"xlsx_cells: {name!r} is not a cell address (expected e.g. A1)")
        out[name.upper()] = values.get(name.upper())
    return out


@getter("pdf_text")
def pdf_text(ctx: GetterContext, path: str, page: int | None = None) -> str | None:
    """The text of the PDF at ``path`` (pypdf's extraction, each line stripped; pages joined by
    newlines), or of page ``page`` (1-based) only; ``None`` if the file is missing."""
    pages = _read_document(ctx, path, documents.pdf_pages)
    if pages is None:
        return None
    if page is not None and not 1 <= page <= len(pages):
        raise GetterError(f"pdf_text: {path} has {len(pages)} page(s), asked for page {page}")
    texts = pages if page is None else [pages[page - 1]]
    return "\n".join(line.strip() for t in texts for line in t.strip().splitlines())


@getter("pdf_page_count")
def pdf_page_count(ctx: GetterContext, path: str) -> int | None:
    """How many pages the PDF at ``path`` has (``None`` if missing)."""
    pages = _read_document(ctx, path, documents.pdf_pages)
    return None if pages is None else len(pages)


def _read_document(ctx: GetterContext, path: str, reader: Callable[[bytes], Any]) -> Any:
    """``reader`` (one of :mod:`mmenvs.macagent.documents`) over the file's bytes; None if it is missing."""
    data = read_bytes(ctx, path)
    if data is None:
        return None
    try:
        return reader(data)
    except documents.DocumentError as exc:
        raise GetterError(f"{path} is {exc}") from None


@getter("docx_paragraphs")
def docx_paragraphs(ctx: GetterContext, path: str, with_style: bool = False,
                    skip_blank: bool = True) -> list[Any] | None:
    """The paragraphs of the Word document at ``path`` in order (text, or ``{"style", "text"}`` with
    ``with_style``); blank ones dropped unless ``skip_blank`` is false; ``None`` if missing."""
    paragraphs = _read_document(ctx, path, documents.docx_paragraphs)
    if paragraphs is None:
        return None
    return [{"style": style, "text": text} if with_style else text
            for style, text in paragraphs if not (skip_blank and not text.strip())]


@getter("pptx_slides")
def pptx_slides(ctx: GetterContext, path: str, field: str | None = None) -> list[Any] | None:
    """The slides of the PowerPoint deck at ``path`` as ``{"title", "body", "notes"}`` dicts (body: the
    text of the other placeholders and text boxes, one paragraph a line), or just one ``field`` of each
    (``"title"`` gives the list of slide titles); ``None`` if the file is missing."""
    if field not in (None, "title", "body", "notes"):
        raise GetterError(f"pptx_slides: field must be title, body or notes, got {field!r}")
    slides = _read_document(ctx, path, documents.pptx_slides)
    if slides is None:
        return None
    return [dict(s) for s in slides] if field is None else [s[field] for s in slides]


@getter("iwork_document")
def iwork_document(ctx: GetterContext, path: str, field: str | list[str | int] | None = None) -> Any:
    """The content of a Pages/Numbers/Keynote document at ``path`` as the simulator stores it
    (``Index/Document.json`` in the archive: Pages ``body text``, ``paragraph styles``, ``font size``,
    ``template``; Keynote ``theme``, ``slides``), or one ``field`` of it — a key, or a path of keys and
    0-based list indexes (``["slides", 1, "presenter notes"]``); ``None`` if the file is missing.
    Real iWork files are protobuf archives: on a real Mac read documents through AppleScript."""
    data = read_bytes(ctx, path)
    if data is None:
        return None
    try:
        content = parse_document(data, path.rsplit("/", 1)[-1])
    except IWorkFileError as exc:
        raise GetterError(f"{path} is not an iWork document the simulator wrote ({exc})") from None
    value = content
    for step in ([] if field is None else [field] if isinstance(field, str) else list(field)):
        if isinstance(value, dict) and isinstance(step, str) and step in value:
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int) and -len(value) <= step < len(value):
            value = value[step]
        else:
            have = sorted(value) if isinstance(value, dict) else f"{len(value)} items" if isinstance(value, list) else value
            raise GetterError(f"iwork_document: {path} has no {step!r} in field path {field!r} (there: {have})")
    return value
