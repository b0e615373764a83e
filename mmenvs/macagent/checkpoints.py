"""Checkpoints: a getter that reads state from the desktop and a metric that judges it.

A task's checkpoints are data (see ``tasks.py``); this module holds what they may name:

* **getters** — ``shell`` (a command run in the episode's shell; its stdout, lines, JSON or exit code),
  ``applescript`` (a script run as ``osascript`` would; its result text or list), and ``python``
  (a function from :data:`GETTERS`, with JSON arguments). Every getter reads the desktop only through
  the :class:`~mmenvs.macagent.backends.base.MacBackend` interface, so a task file runs unchanged on
  the simulator and on a real macOS VM.
* **metrics** — functions from :data:`METRICS`: ``metric(got, expected, **options) -> bool``.

Scoring follows MacAgentBench §3.5: each checkpoint passes or fails; the score is the fraction
passed, the task succeeds when all pass. A checkpoint whose metric is ``unchanged`` guards state the
agent must not touch: its baseline is read right after setup and compared at evaluation.
"""

from __future__ import annotations

import base64
import hashlib
import inspect
import json
import math
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping

from mmenvs.macagent.backends.base import BackendError, MacBackend, ShellOutput
from mmenvs.macagent import documents

TAGS = ("research", "app_state", "content_match", "file_ops", "system_config")
GETTER_TYPES = ("shell", "applescript", "python")
SHELL_OUTPUTS = ("text", "raw", "lines", "json", "exit_code", "int", "float")
APPLESCRIPT_OUTPUTS = ("text", "list", "int", "float", "bool")


class GetterError(RuntimeError):
    """A getter could not read the state it asks for (command failed, script error, …)."""


# ---------------------------------------------------------------------------------------------- context
@dataclass
class GetterContext:
    """What a getter may use: the backend, through a few convenience calls."""

    backend: MacBackend
    shell_timeout: float = 10.0

    def shell(self, command: str) -> ShellOutput:
        """Run ``command`` in the episode's shell."""
        return self.backend.run_shell(command, timeout=self.shell_timeout)

    def shell_ok(self, command: str) -> str:
        """Run ``command``; return stdout, raising ``GetterError`` with stderr when it exits non-zero."""
        out = self.shell(command)
        if out.timed_out or out.exit_code != 0:
            raise GetterError(f"shell getter command failed ({out.text.strip()[-300:]})")
        return out.stdout

    def applescript(self, source: str) -> str:
        """Run AppleScript; its result as osascript prints it."""
        return self.backend.run_applescript(source)


def shell_path(path: str) -> str:
    """``path`` as a shell word: ``~/…`` and ``$HOME/…`` expand to the episode's home, the rest is quoted.

    Task files name paths relative to the home (``~/Desktop/a b.txt``); the real home is the
    backend's business, so the shell expands it.
    """
    for prefix in ("~/", "$HOME/", "${HOME}/"):
        if path.startswith(prefix):
            rest = path[len(prefix):]
            return '"$HOME"/' + shlex.quote(rest) if rest else '"$HOME"'
    if path in ("~", "$HOME", "${HOME}"):
        return '"$HOME"'
    return shlex.quote(path)


# ---------------------------------------------------------------------------------------------- python getters
PythonGetter = Callable[..., Any]
#: The getter library: name -> function(ctx, **args). Task files name these in ``{"type": "python"}`` getters.
GETTERS: dict[str, PythonGetter] = {}


def getter(name: str) -> Callable[[PythonGetter], PythonGetter]:
    """Register a python getter under ``name`` (its keyword parameters are the JSON ``args``)."""

    def register(fn: PythonGetter) -> PythonGetter:
        if name in GETTERS:
            raise ValueError(f"python getter {name!r} is registered twice")
        GETTERS[name] = fn
        return fn

    return register


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


def _read_bytes(ctx: GetterContext, path: str) -> bytes | None:
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
    data = _read_bytes(ctx, path)
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
    data = _read_bytes(ctx, path)
    return None if data is None else hashlib.sha256(data).hexdigest()


@getter("files_equal")
def files_equal(ctx: GetterContext, path: str, other: str) -> bool:
    """Whether the files at ``path`` and ``other`` both exist and hold the same bytes."""
    first, second = _read_bytes(ctx, path), _read_bytes(ctx, other)
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

    data = _read_bytes(ctx, path)
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
    Reads the sim's iWork format; on a real Mac read cells through AppleScript instead."""
    import tempfile
    from pathlib import Path

    from .backends.sim.apps.numbers_formulas import parse_address
    from .backends.sim.apps.numbers_model import cells_record, read_numbers

    data = _read_bytes(ctx, path)
    if data is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / Path(path).name
        local.write_bytes(data)
        try:
            sheets, _, _ = read_numbers(local)
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
    data = _read_bytes(ctx, path)
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
    import io
    import json as _json
    import zipfile

    data = _read_bytes(ctx, path)
    if data is None:
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            doc = _json.loads(archive.read("Index/Document.json").decode("utf-8"))
        content = doc["content"]
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise GetterError(f"{path} is not an iWork document the simulator wrote ({type(exc).__name__}: {exc})") from None
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


def _read_plist(ctx: GetterContext, path: str) -> Any:
    """The property list (binary or XML) at ``path``; None if the file is missing."""
    import plistlib

    data = _read_bytes(ctx, path)
    if data is None:
        return None
    try:
        return plistlib.loads(data)
    except Exception as exc:  # plistlib raises several types for malformed data
        raise GetterError(f"{path} is not a property list ({exc})") from None


@getter("safari_bookmarks")
def safari_bookmarks(ctx: GetterContext, path: str = "~/Library/Safari/Bookmarks.plist") -> list[dict[str, str]]:
    """Safari's bookmarks from its ``Bookmarks.plist`` (binary or XML) as ``{"title", "url", "folder"}`` dicts,
    in file order; ``folder`` is the path of folder titles (``BookmarksBar``, ``BookmarksBar/Work``, …).
    An absent file means no bookmarks."""
    root = _read_plist(ctx, path)
    if root is None:
        return []
    found: list[dict[str, str]] = []

    def walk(node: Any, folder: str) -> None:
        if not isinstance(node, dict):
            return
        if node.get("WebBookmarkType") == "WebBookmarkTypeLeaf":
            title = (node.get("URIDictionary") or {}).get("title", "")
            found.append({"title": str(title), "url": str(node.get("URLString", "")), "folder": folder})
            return
        title = str(node.get("Title", ""))
        inner = f"{folder}/{title}" if folder and title else (title or folder)
        for child in node.get("Children", []) or []:
            walk(child, inner)

    walk(root, "")
    return found


@getter("safari_bookmark_folders")
def safari_bookmark_folders(ctx: GetterContext, path: str = "~/Library/Safari/Bookmarks.plist") -> list[str]:
    """Every bookmark folder in Safari's ``Bookmarks.plist`` as its path of titles (``BookmarksBar``,
    ``agent task``, ``BookmarksBar/Work``, …), empty folders included, in file order; an absent file means none.
    (``safari_bookmarks`` lists only bookmarks, so a folder with nothing in it would not show there.)"""
    root = _read_plist(ctx, path)
    if root is None:
        return []
    found: list[str] = []

    def walk(node: Any, folder: str) -> None:
        if not isinstance(node, dict) or node.get("WebBookmarkType") == "WebBookmarkTypeLeaf":
            return
        title = str(node.get("Title", ""))
        inner = f"{folder}/{title}" if folder and title else (title or folder)
        if title:
            found.append(inner)
        for child in node.get("Children", []) or []:
            walk(child, inner)

    walk(root, "")
    return found


@getter("safari_history")
def safari_history(ctx: GetterContext, path: str = "~/Library/Safari/History.db") -> list[dict[str, Any]]:
    """Safari's visits from its ``History.db`` (SQLite: ``history_visits`` joined to ``history_items``),
    oldest first, as ``{"url", "title", "visit_time", "visit_count"}`` dicts; ``visit_time`` is ISO
    text (History.db's Core Data seconds since 2001-01-01 UTC) and ``visit_count`` the URL's total.
    An absent file means no history."""
    import sqlite3
    from datetime import timedelta

    data = _read_bytes(ctx, path)
    if data is None:
        return []
    con = sqlite3.connect(":memory:")
    try:
        con.deserialize(data)
        rows = con.execute("SELECT i.url, v.title, v.visit_time, i.visit_count FROM history_visits v "
                           "JOIN history_items i ON i.id = v.history_item ORDER BY v.visit_time, v.id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise GetterError(f"{path} is not Safari's History.db: expected an SQLite file with history_visits and "
                          f"history_items tables ({exc})") from None
    finally:
        con.close()
    epoch = datetime(2001, 1, 1)
    return [{"url": url, "title": title or "", "visit_time": (epoch + timedelta(seconds=t)).isoformat(timespec="seconds"),
             "visit_count": count} for url, title, t, count in rows]


@getter("defaults_read")
def defaults_read(ctx: GetterContext, domain: str, key: str) -> str | None:
    """``defaults read <domain> <key>`` (``None`` when the key is not set)."""
    out = ctx.shell(f"defaults read {shlex.quote(domain)} {shlex.quote(key)}")
    return out.stdout.strip() if out.exit_code == 0 else None


@getter("weather_forecast")
def weather_forecast(ctx: GetterContext, city: str, day_offset: int = 0, field: str = "high", unit: str = "C") -> Any:
    """One value of ``city``'s daily forecast for its local today + ``day_offset`` (0–9), read through the
    Open-Meteo API with ``curl`` (what a real Mac would ask too). ``field``: ``high``, ``low`` (°C, or °F with
    ``unit="F"``), ``precip_mm``, ``precip_chance`` (%), ``wind_kmh``, ``uv``, ``weather_code`` (WMO), ``rain``
    (true when rain, drizzle or thunderstorms fall), ``date`` (YYYY-MM-DD), ``weekday`` (Monday …), ``sunrise``
    and ``sunset`` (HH:MM). Compare numbers with ``number_close``."""
    from mmenvs.macagent.backends.sim.apps.forecast import find_city

    columns = {"high": "temperature_2m_max", "low": "temperature_2m_min", "precip_mm": "precipitation_sum",
               "precip_chance": "precipitation_probability_max", "wind_kmh": "wind_speed_10m_max", "uv": "uv_index_max",
               "weather_code": "weather_code", "rain": "weather_code", "date": "time", "weekday": "time",
               "sunrise": "sunrise", "sunset": "sunset"}
    if field not in columns:
        raise GetterError(f"weather_forecast: unknown field {field!r}; fields: {', '.join(columns)}")
    if unit not in ("C", "F"):
        raise GetterError(f"weather_forecast: unit must be 'C' or 'F', got {unit!r}")
    place = find_city(city)
    if place is None:
        raise GetterError(f"weather_forecast: no coordinates for city {city!r}")
    if not isinstance(day_offset, int) or not 0 <= day_offset <= 9:
        raise GetterError(f"weather_forecast: day_offset must be an integer 0..9, got {day_offset!r}")
    url = (f"https://api.open-meteo.com/v1/forecast?latitude={place.lat}&longitude={place.lon}&timezone=auto"
           f"&forecast_days=10&daily={','.join(sorted(set(columns.values()) - {'time'}))}"
           + ("&temperature_unit=fahrenheit" if unit == "F" else ""))
    try:
        daily = json.loads(ctx.shell_ok(f"curl -s {shlex.quote(url)}"))["daily"]
        value = daily[columns[field]][day_offset]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise GetterError(f"weather_forecast: unexpected answer from Open-Meteo for {city!r} ({exc})") from None
    if field == "rain":
        return int(value) in (51, 53, 55, 61, 63, 65, 80, 81, 82, 95, 96, 99)
    if field == "weekday":
        return datetime.fromisoformat(value).strftime("%A")
    if field in ("sunrise", "sunset"):
        return str(value)[11:16]
    return value


@getter("clipboard")
def clipboard(ctx: GetterContext) -> str:
    """The clipboard's text (``pbpaste``)."""
    return ctx.shell_ok("pbpaste")


@getter("applescript_records")
def applescript_records(ctx: GetterContext, app: str, element: str, properties: list[str], where: str | None = None,
                        container: str | None = None) -> list[dict[str, str]]:
    """Properties of every ``element`` of ``app`` (optionally ``of container`` and ``whose where``) as a list of dicts.

    Runs one AppleScript per property (``get name of every note``), so it stays within the subset
    both the simulator and real macOS answer; values are compared as text. osascript prints lists as
    ``a, b, c``, so a value holding ", " is ambiguous: the getter then fails rather than guess.
    """
    if not properties:
        raise GetterError("applescript_records: give at least one property")
    target = f"every {element}" + (f" of {container}" if container else "") + (f" whose {where}" if where else "")
    columns = []
    for prop in properties:
        script = f'tell application {_as_string(app)} to get {prop} of {target}'
        columns.append(_as_list(ctx.applescript(script)))
    lengths = {len(c) for c in columns}
    if len(lengths) != 1:
        raise GetterError(f"applescript_records: properties of {target} came back with different counts {sorted(lengths)}")
    return [dict(zip(properties, values)) for values in zip(*columns)]


def _as_string(text: str) -> str:
    """``text`` as an AppleScript string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _as_list(text: str) -> list[str]:
    """Split osascript's printed list (``a, b, c``) into items; an empty result is an empty list."""
    text = text.strip()
    if not text:
        return []
    return [item.strip() for item in _split_top_level(text)]


def _split_top_level(text: str) -> list[str]:
    # osascript prints lists as "a, b, c"; quoted strings and nested braces keep their commas.
    items, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif not quoted and char == "{":
            depth += 1
        elif not quoted and char == "}":
            depth -= 1
        elif not quoted and depth == 0 and text.startswith(", ", index):
            items.append(text[start:index])
            start = index + 2
    items.append(text[start:])
    return items


# ---------------------------------------------------------------------------------------------- running getters
def run_getter(spec: Mapping[str, Any], ctx: GetterContext) -> Any:
    """Run one validated getter spec and return its value; failures raise ``GetterError``."""
    kind = spec["type"]
    if kind == "shell":
        return _shell_value(ctx.shell(spec["command"]), spec.get("output", "text"))
    if kind == "applescript":
        return _applescript_value(ctx.applescript(spec["script"]), spec.get("output", "text"))
    if kind == "python":
        return GETTERS[spec["function"]](ctx, **spec.get("args", {}))
    raise GetterError(f"unknown getter type {kind!r}")


def _shell_value(out: ShellOutput, output: str) -> Any:
    if output == "exit_code":
        return out.exit_code
    if out.timed_out:
        raise GetterError("shell getter timed out")
    if out.exit_code != 0:
        raise GetterError(f"shell getter exited with code {out.exit_code}: {out.stderr.strip()[-300:]}")
    if output == "raw":
        return out.stdout
    text = out.stdout.strip()
    if output == "text":
        return text
    if output == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    if output == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise GetterError(f"shell getter output is not JSON ({exc.msg})") from None
    return _number(text, output)


def _applescript_value(text: str, output: str) -> Any:
    text = text.strip()
    if output == "text":
        return text
    if output == "list":
        return [item.strip('"') for item in _as_list(text)]
    if output == "bool":
        if text.lower() not in ("true", "false"):
            raise GetterError(f"AppleScript getter returned {text!r}, not true/false")
        return text.lower() == "true"
    return _number(text, output)


def _number(text: str, output: str) -> int | float:
    try:
        return int(text) if output == "int" else float(text)
    except ValueError:
        raise GetterError(f"getter output {text[:80]!r} is not a number") from None


# ---------------------------------------------------------------------------------------------- metrics
Metric = Callable[..., bool]
#: The metric library: name -> function(got, expected, **options) -> bool.
METRICS: dict[str, Metric] = {}
#: Metrics that take no ``expected`` from the task file.
NO_EXPECTED = {"unchanged", "file_exists", "not_exists", "truthy", "falsy"}


def metric(name: str) -> Callable[[Metric], Metric]:
    """Register a metric under ``name`` (its keyword-only parameters are the metric spec's options)."""

    def register(fn: Metric) -> Metric:
        if name in METRICS:
            raise ValueError(f"metric {name!r} is registered twice")
        METRICS[name] = fn
        return fn

    return register


def _norm_text(value: Any, ignore_case: bool, collapse_space: bool) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    text = text.strip()
    if collapse_space:
        text = " ".join(text.split())
    return text.casefold() if ignore_case else text


def _to_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        match = re.search(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", value.replace(",", ""))
        return float(match.group()) if match else None
    return None


_TRUE_WORDS = {"true", "yes", "1", "on"}
_FALSE_WORDS = {"false", "no", "0", "off", ""}


def _to_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        return True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    return None


@metric("equals")
def equals(got: Any, expected: Any, *, ignore_case: bool = False, collapse_space: bool = True) -> bool:
    """``got`` equals ``expected``. Text is compared stripped (and with runs of whitespace collapsed unless
    ``collapse_space`` is false); a number or bool expected is compared with the number/boolean read from text."""
    if got is None:
        return expected is None
    if isinstance(expected, bool):
        return _to_bool(got) is expected
    if isinstance(expected, (int, float)):
        number = _to_number(got)
        return number is not None and number == float(expected)
    if isinstance(expected, str):
        return _norm_text(got, ignore_case, collapse_space) == _norm_text(expected, ignore_case, collapse_space)
    return got == expected


@metric("not_equals")
def not_equals(got: Any, expected: Any, *, ignore_case: bool = False, collapse_space: bool = True) -> bool:
    """The negation of ``equals`` (a missing value, ``None``, counts as not equal unless ``expected`` is null)."""
    return not equals(got, expected, ignore_case=ignore_case, collapse_space=collapse_space)


def _contains_one(got: Any, item: Any, ignore_case: bool) -> bool:
    if isinstance(got, (list, tuple, set)):
        return any(equals(element, item, ignore_case=ignore_case) for element in got)
    if isinstance(got, dict):
        return any(_norm_text(k, ignore_case, True) == _norm_text(item, ignore_case, True) for k in got)
    return _norm_text(item, ignore_case, True) in _norm_text(got, ignore_case, True)


@metric("contains")
def contains(got: Any, expected: Any, *, ignore_case: bool = False) -> bool:
    """Text ``got`` contains ``expected`` as a substring (whitespace runs collapsed), or list ``got`` holds an
    element equal to it. A list ``expected`` requires every item."""
    if got is None:
        return False
    items = expected if isinstance(expected, list) else [expected]
    return all(_contains_one(got, item, ignore_case) for item in items)


@metric("not_contains")
def not_contains(got: Any, expected: Any, *, ignore_case: bool = False) -> bool:
    """None of ``expected``'s items (one value or a list) is in ``got``; a missing value (``None``) passes."""
    if got is None:
        return True
    items = expected if isinstance(expected, list) else [expected]
    return not any(_contains_one(got, item, ignore_case) for item in items)


@metric("regex")
def regex(got: Any, expected: str, *, ignore_case: bool = False, full_match: bool = False) -> bool:
    """The regular expression ``expected`` matches the text of ``got`` (anywhere, or whole if ``full_match``)."""
    if got is None:
        return False
    text = got if isinstance(got, str) else "\n".join(map(str, got)) if isinstance(got, list) else str(got)
    flags = re.IGNORECASE if ignore_case else 0
    return bool((re.fullmatch if full_match else re.search)(expected, text.strip() if full_match else text, flags | re.MULTILINE))


@metric("number_close")
def number_close(got: Any, expected: float, *, abs_tol: float = 1e-6, rel_tol: float = 0.0) -> bool:
    """The number in ``got`` (the first number in text) is within ``abs_tol`` or ``rel_tol`` of ``expected``."""
    number = _to_number(got)
    return number is not None and math.isclose(number, float(expected), abs_tol=abs_tol, rel_tol=rel_tol)


@metric("number_in_range")
def number_in_range(got: Any, expected: list[float]) -> bool:
    """The number in ``got`` lies in ``[expected[0], expected[1]]`` (inclusive)."""
    number = _to_number(got)
    return number is not None and float(expected[0]) <= number <= float(expected[1])


def _canonical(value: Any, ignore_list_order: bool) -> Any:
    if isinstance(value, dict):
        return {str(k): _canonical(v, ignore_list_order) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v, ignore_list_order) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True)) if ignore_list_order else items
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@metric("json_equal")
def json_equal(got: Any, expected: Any, *, ignore_list_order: bool = False) -> bool:
    """``got`` (a JSON value, or text holding one) is structurally equal to ``expected``; key order never
    matters, list order only unless ``ignore_list_order``."""
    if isinstance(got, str):
        try:
            got = json.loads(got)
        except json.JSONDecodeError:
            return False
    return _canonical(got, ignore_list_order) == _canonical(expected, ignore_list_order)


def _as_items(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    if isinstance(value, (list, tuple, set)):
        return [_norm_text(v, False, True) for v in value]
    return [_norm_text(value, False, True)]


@metric("set_equal")
def set_equal(got: Any, expected: list[Any], *, ignore_case: bool = False) -> bool:
    """The items of ``got`` (a list, or text with one item a line) are, as a set, the items of ``expected``."""
    items = _as_items(got)
    if items is None:
        return False
    fold = (lambda s: s.casefold()) if ignore_case else (lambda s: s)
    return {fold(i) for i in items} == {fold(_norm_text(e, False, True)) for e in expected}


@metric("lines_equal")
def lines_equal(got: Any, expected: list[str] | str, *, ignore_case: bool = False) -> bool:
    """The non-blank lines of ``got`` (stripped, in order) equal ``expected``'s (a list, or text)."""
    items, wanted = _as_items(got), _as_items(expected)
    if items is None or wanted is None:
        return False
    if ignore_case:
        items, wanted = [i.casefold() for i in items], [w.casefold() for w in wanted]
    return items == wanted


@metric("length_equals")
def length_equals(got: Any, expected: int) -> bool:
    """``got`` (a list, a dict, or text counted in non-blank lines) has exactly ``expected`` items."""
    if got is None:
        return expected == 0
    items = got if isinstance(got, (list, dict)) else _as_items(got)
    return len(items) == int(expected)


@metric("one_of")
def one_of(got: Any, expected: list[Any], *, ignore_case: bool = False) -> bool:
    """``got`` equals one of the values in ``expected``."""
    return any(equals(got, option, ignore_case=ignore_case) for option in expected)


@metric("truthy")
def truthy(got: Any, expected: None = None) -> bool:
    """``got`` is true: True, a non-zero number, "yes"/"true"/"1"/"on", or a non-empty list."""
    if isinstance(got, (list, dict)):
        return bool(got)
    return _to_bool(got) is True


@metric("falsy")
def falsy(got: Any, expected: None = None) -> bool:
    """``got`` is false: None, False, 0, "no"/"false"/"0"/"off"/"", or an empty list."""
    if got is None or isinstance(got, (list, dict)):
        return not got
    return _to_bool(got) is False


def _exists_flags(got: Any) -> list[bool]:
    if isinstance(got, dict):
        return [bool(v) for v in got.values()]
    return [bool(_to_bool(got))] if not isinstance(got, list) else [bool(got)]


@metric("file_exists")
def file_exists(got: Any, expected: None = None) -> bool:
    """Every path asked about exists. Without a getter the checkpoint reads ``path_exists`` of its ``path``;
    with one, ``got`` is read as a yes/no answer (a dict of answers, or a non-empty list of found paths)."""
    flags = _exists_flags(got)
    return bool(flags) and all(flags)


@metric("not_exists")
def not_exists(got: Any, expected: None = None) -> bool:
    """No path asked about exists (the counterpart of ``file_exists``)."""
    return not any(_exists_flags(got))


@metric("unchanged")
def unchanged(got: Any, expected: Any) -> bool:
    """A guard: the value equals the one the same getter read right after setup (the env passes it as ``expected``)."""
    return got == expected


_DATE_FORMATS = (
    "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d",
    "%A, %B %d, %Y at %I:%M:%S %p", "%A, %B %d, %Y at %H:%M:%S", "%A, %B %d, %Y at %I:%M %p",
    "%A %d %B %Y at %H:%M:%S", "%A, %d %B %Y at %H:%M:%S", "%d %B %Y at %H:%M:%S", "%A, %d %B %Y", "%B %d, %Y at %I:%M:%S %p", "%B %d, %Y", "%A, %B %d, %Y", "%d/%m/%Y %H:%M",
)


def parse_datetime(value: Any) -> datetime | None:
    """A datetime read from ISO text or from the way AppleScript prints dates
    (``date "Wednesday, April 15, 2026 at 9:30:00 AM"``); ``None`` when unreadable."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.startswith("date "):
        text = text[5:].strip()
    text = text.strip('"').replace("\u202f", " ").strip()
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


@metric("datetime_equals")
def datetime_equals(got: Any, expected: str, *, tolerance_minutes: float = 0.0, date_only: bool = False) -> bool:
    """The date in ``got`` (ISO or AppleScript's long form) equals ``expected`` within ``tolerance_minutes``
    (``date_only`` compares the calendar day only)."""
    left, right = parse_datetime(got), parse_datetime(expected)
    if left is None or right is None:
        return False
    if date_only:
        return left.date() == right.date()
    return abs((left - right).total_seconds()) <= tolerance_minutes * 60


# ---------------------------------------------------------------------------------------------- checkpoints
@dataclass(frozen=True)
class Checkpoint:
    """One validated checkpoint of a task (see ``tasks.py`` for the JSON form)."""

    name: str
    tag: str
    getter: dict[str, Any]
    metric: dict[str, Any]

    @property
    def guard(self) -> bool:
        """Whether the checkpoint guards pre-existing state (its metric is ``unchanged``)."""
        return self.metric["type"] == "unchanged"

    def options(self) -> dict[str, Any]:
        """The metric spec's options (every key but ``type`` and ``expected``)."""
        return {k: v for k, v in self.metric.items() if k not in ("type", "expected")}


@dataclass
class CheckpointResult:
    """Outcome of one checkpoint: what the getter read and whether the metric passed."""

    name: str
    tag: str
    passed: bool
    got: Any
    guard: bool = False
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON-able form that goes into ``info["checkpoints"]``."""
        record = {"name": self.name, "tag": self.tag, "passed": self.passed, "got": self.got, "guard": self.guard}
        if self.error is not None:
            record["error"] = self.error
        return record


def read_checkpoint(checkpoint: Checkpoint, ctx: GetterContext) -> tuple[Any, str | None]:
    """Run the checkpoint's getter: ``(value, None)``, or ``(None, error text)`` when it failed."""
    try:
        return run_getter(checkpoint.getter, ctx), None
    except (GetterError, BackendError) as exc:
        return None, str(exc)
    except Exception as exc:  # AppleScriptError and the like: a getter failure fails the checkpoint, never the env
        return None, f"{type(exc).__name__}: {exc}"


def evaluate_checkpoint(checkpoint: Checkpoint, ctx: GetterContext, baseline: Any = None) -> CheckpointResult:
    """Read and judge one checkpoint. ``baseline`` is the post-setup value of a guard checkpoint."""
    got, error = read_checkpoint(checkpoint, ctx)
    if error is not None:
        return CheckpointResult(checkpoint.name, checkpoint.tag, False, None, checkpoint.guard, error)
    expected = baseline if checkpoint.guard else checkpoint.metric.get("expected")
    try:
        passed = bool(METRICS[checkpoint.metric["type"]](got, expected, **checkpoint.options()))
    except (TypeError, ValueError, re.error) as exc:
        return CheckpointResult(checkpoint.name, checkpoint.tag, False, jsonable(got), checkpoint.guard, f"metric error: {exc}")
    return CheckpointResult(checkpoint.name, checkpoint.tag, passed, jsonable(got), checkpoint.guard)


def jsonable(value: Any) -> Any:
    """``value`` if it is JSON-able, else its repr (what ``info`` can carry)."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def callable_options(fn: Callable[..., Any], skip: int) -> tuple[set[str], set[str]]:
    """(all keyword names, required keyword names) of ``fn`` after its first ``skip`` positional parameters."""
    params = list(inspect.signature(fn).parameters.values())[skip:]
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    required = {p.name for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, required
