"""The file panels the sim's document apps share (TextEdit, Pages, Keynote, Numbers): the Open panel (a
location pop-up over a list of that location's files) and the save sheet (a name, a location, the file
format, and a Replace alert when the file exists).

The apps differ only in what the parameters say: which files the Open panel lists, the sheet's size,
verb ("Save" / "Export"), format caption and an optional header above the fields (Pages' and Keynote's
export-format tabs), how a typed name becomes a file name, and what happens with the chosen path. The
widget keys, positions, names and texts are the same for every app: reference solutions and tests click
and type into them, so they must not move."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..widgets import Box, Button, Label, ListView, PopupButton, Row, TextField, Widget
from ..window import Window, alert

if TYPE_CHECKING:  # pragma: no cover
    from .base import App

LOCATIONS = ("Desktop", "Documents", "Downloads", "Home")
#: at most this many entries of a location are listed in the Open panel
PANEL_LIMIT = 5000
# the Replace alert's detail ({where}: the location's name)
REPLACE_DETAIL = ("A file or folder with the same name already exists in the folder {where}. "
                  "Replacing it will overwrite its current contents.")


def location_dir(home: Path, where: str) -> Path:
    """The folder a location of the pop-up names ("Home" is the home folder itself)."""
    return home if where == "Home" else home / where


def location_of(home: Path, path: Path) -> str:
    """The location a file lies directly in, "Home" for any other folder (where a sheet starts)."""
    for loc in LOCATIONS:
        if loc != "Home" and path.parent == home / loc:
            return loc
    return "Home"


def same_file(app: "App", path: Path, other: Path) -> bool:
    """Whether two host paths of the home name the same entry (compared lexically: nothing is resolved,
    so a symlink never makes two names the same file)."""
    files = app.desktop.home_files
    try:
        return files.parts(path) == files.parts(other)
    except OSError:
        return False


def with_suffix(name: str, suffix: str) -> str:
    """``name`` ending in ``suffix`` (compared ignoring case; an empty suffix adds nothing)."""
    return name if not suffix or name.lower().endswith(suffix) else name + suffix


def open_panel(app: "App", shows: Callable[[Path], bool] | None = None,
               locations: Sequence[str] = LOCATIONS) -> Window:
    """File > Open…: a location pop-up, the location's files (those ``shows`` accepts, and no hidden
    ones), Cancel and Open. Opening (the button, Return or a double-click on a file) calls
    ``app.open_file(path)``; folders are listed but do not open. The listing goes through the confined
    layer: folders are always listed (``shows`` is asked about the other entries only), a symlink or
    special file is listed but refused with an alert when opened, as nothing on the host follows it."""
    w, h = 520, 380
    form: dict[str, Any] = {"where": "Documents", "selected": None}

    def build(panel: Window) -> list[Widget]:
        folder = location_dir(app.desktop.home, form["where"])
        try:
            entries = [e for e in app.desktop.home_files.listdir(folder, limit=PANEL_LIMIT) if not e.name.startswith(".")
                       and (e.kind == "dir" or shows is None or shows(folder / e.name))]
        except OSError:
            entries = []
        entries.sort(key=lambda e: e.name.lower())
        rows = [Row(e.name, [e.name], icon="folder" if e.kind == "dir" else "document") for e in entries]
        return [
            Box((0, 0, w, h), "window_bg"),
            PopupButton("open:where", (20, 16, 200, 24), list(locations), form["where"],
                        lambda v: (form.update(where=v, selected=None), panel.touch()), name="Where"),
            ListView("open:files", (20, 52, w - 40, h - 110), rows, [form["selected"]] if form["selected"] else [],
                     name="Files", on_select=lambda ks: form.__setitem__("selected", ks[0] if ks else None),
                     on_activate=lambda k: do_open(k)),
            Button("open:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: app.desktop.close_window(panel), cancel=True),
            Button("open:open", (w - 104, h - 44, 84, 26), "Open", lambda: do_open(form["selected"]), default=True,
                   enabled=form["selected"] is not None),
        ]

    def do_open(name: str | None) -> None:
        if not name:
            return
        path = location_dir(app.desktop.home, form["where"]) / name
        kind = app.desktop.home_files.kind(path) if "/" not in name else None
        if kind == "dir" or kind is None:
            return
        app.desktop.close_window(panel)
        if kind != "file":  # a symlink or special file: the host never opens it for the agent
            alert(app, None, f"The document “{name}” could not be opened.",
                  "It is a link or a special file; the simulated Mac opens only files and folders.",
                  [("OK", lambda: None)], cancel=0)
            return
        app.open_file(path)

    x, y = app.desktop.cascade_origin(w, h)
    panel = Window(app, "Open", (x, y, w, h), build)
    panel.focus_key = "open:files"
    app.desktop.show_window(panel)
    return panel


def save_sheet(app: "App", win: Window, *, verb: str, default: str, file_name: Callable[[str], str], on_save: Callable[[Path], None],
               format_text: str | Callable[[], str], format_label: str = "File Format:",
               size: tuple[int, int] = (460, 170), format_width: int = 200, selected: int | None = None,
               header: Callable[[Window], list[Widget]] | None = None, top: int = 0,
               locations: Sequence[str] = LOCATIONS, exists: Callable[[Path], bool] | None = None,
               replace_detail: str = REPLACE_DETAIL) -> Window:
    """A save-style sheet on document window ``win`` titled ``verb``: "<verb> As" (the name), "Where" (a
    location pop-up, starting at the location of the document's file, or Documents), the file format
    (``format_label`` and ``format_text``, a function when it follows the header), Cancel and ``verb``.

    ``default`` is the name field's first text, its first ``selected`` characters selected (all when
    None); ``header`` (the sheet) gives widgets drawn above the fields, which then start ``top`` pixels
    lower. On ``verb`` the typed name passes through ``file_name``; the sheet closes and ``on_save(path)``
    runs, after a Replace alert (``replace_detail`` with ``{where}``) when ``exists(path)`` (by default:
    an entry of that name is in the home, through the confined layer) and the path is not the document's
    own file. A name is never a path: "/", a leading "." and NUL are refused."""
    if exists is None:
        exists = app.desktop.home_files.exists
    w, h = size
    form = {"where": "Documents" if win.doc.path is None else location_of(app.desktop.home, win.doc.path)}

    def build(sheet: Window) -> list[Widget]:
        ed = sheet.editor("save:name", initial=default)
        caption = format_text if isinstance(format_text, str) else format_text()
        out = header(sheet) if header is not None else []
        out += [
            Label((20, top + 24, 90, 24), f"{verb} As:", 13, align="right"),
            TextField("save:name", (118, top + 24, w - 140, 24), ed, name=f"{verb} As", on_commit=lambda t: do_save()),
            Label((20, top + 64, 90, 24), "Where:", 13, align="right"),
            PopupButton("save:where", (118, top + 64, 200, 24), list(locations), form["where"],
                        lambda v: (form.__setitem__("where", v), sheet.touch()), name="Where"),
            Label((20, top + 100, 90, 24), format_label, 13, align="right"),
            Label((118, top + 100, format_width, 24), caption, 13, color="secondary_text", key="save:format"),
            Button("save:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: app.desktop.close_window(sheet), cancel=True),
            Button("save:save", (w - 104, h - 44, 84, 26), verb, lambda: do_save(), default=True,
                   enabled=bool(ed.text.strip())),
        ]
        return out

    def do_save() -> None:
        name = sheet.editors["save:name"].text.strip()
        if not name or "/" in name or "\0" in name or name.startswith("."):
            return
        name = file_name(name)
        path = location_dir(app.desktop.home, form["where"]) / name
        app.desktop.close_window(sheet)
        current = win.doc.path  # read now: the document may have been saved while the sheet was open
        if exists(path) and (current is None or not same_file(app, path, current)):
            alert(app, win, f"“{name}” already exists. Do you want to replace it?",
                  replace_detail.format(where=form["where"]),
                  [("Replace", lambda: on_save(path)), ("Cancel", lambda: None)], default=1, cancel=1)
        else:
            on_save(path)

    sheet = Window(app, verb, (0, 0, w, h), build, parent=win, kind="sheet")
    sheet.focus_key = "save:name"
    ed = sheet.editor("save:name", initial=default)
    ed.anchor, ed.cursor = 0, len(default) if selected is None else selected
    app.desktop.show_window(sheet)
    return sheet
