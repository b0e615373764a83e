"""Finder over the episode's real home folder: browse (sidebar, back/forward, Go menu), open,
inline rename, new folder, duplicate, copy/paste, move to Trash (``~/.Trash``) and Put Back,
Empty Trash, and drag-and-drop moves onto folders, sidebar places, the desktop and the Dock's Trash."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmenvs.core.confined import ConfinedDir, Entry

from ..menus import MenuItem, sep
from ..widgets import Box, Button, Label, ListView, Row, TextField, Widget
from ..window import Window, alert
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

PLACES = ("Desktop", "Documents", "Downloads")
#: at most this many entries of a folder are listed (a folder of a million files must not stall a frame)
LISTING_LIMIT = 5000
KINDS = {".txt": "Plain Text", ".md": "Markdown", ".rtf": "RTF Document", ".pdf": "PDF Document", ".png": "PNG image",
         ".jpg": "JPEG image", ".jpeg": "JPEG image", ".gif": "GIF image", ".html": "HTML text", ".csv": "CSV Document",
         ".json": "JSON", ".py": "Python Source", ".sh": "Shell Script", ".zip": "ZIP archive", ".mp3": "MP3 audio",
         ".wav": "Waveform audio", ".mp4": "MPEG-4 movie", ".docx": "Microsoft Word", ".xlsx": "Microsoft Excel",
         ".pages": "Pages Document", ".numbers": "Numbers Spreadsheet", ".key": "Keynote Presentation"}


def _size_text(n: int) -> str:
    if n < 1000:
        return f"{n} bytes"
    for unit in ("KB", "MB", "GB"):
        n /= 1000
        if n < 1000:
            return f"{n:.1f} {unit}" if n < 10 else f"{n:.0f} {unit}"
    return f"{n:.0f} TB"


def unique_name(files: ConfinedDir, folder: Path, name: str) -> str:
    """``name``, or "name 2", "name 3", … so it does not clash inside ``folder`` of the home ``files``
    (Finder's rule; any entry, a symlink too, takes its name)."""
    if not files.exists(folder / name):
        return name
    stem, suffix = (name, "") if files.is_dir(folder / name) or "." not in name[1:] else (name[: name.rfind(".")], name[name.rfind("."):])
    k = 2
    while files.exists(folder / f"{stem} {k}{suffix}"):
        k += 1
    return f"{stem} {k}{suffix}"


def check_name(name: str) -> str:
    """``name`` if it can name an item in a folder; ValueError with Finder's message otherwise. A name is
    never a path: "/" (and a leading "." — hidden, "." and "..") and NUL are refused."""
    if not name:
        raise ValueError("The name can’t be empty.")
    if "/" in name or "\0" in name or name.startswith("."):
        raise ValueError(f"The name “{name.replace(chr(0), '?')}” can’t be used. Try using a name with fewer characters "
                         "or with no punctuation marks.")
    return name


class FinderApp(App):
    """Finder; windows browse folders of the home directory."""

    name = "Finder"
    bundle_id = "com.apple.finder"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.running = True  # Finder is always running
        self.trash_origins: dict[str, str] = {}  # name in ~/.Trash -> original path (for Put Back)
        self.reset_host_time = datetime.now().timestamp()

    @property
    def home(self) -> Path:
        return self.desktop.home

    @property
    def files(self) -> ConfinedDir:
        """The home folder as host code may touch it (see :mod:`mmenvs.core.confined`)."""
        return self.desktop.home_files

    @property
    def trash_dir(self) -> Path:
        return self.home / ".Trash"

    def trash_count(self) -> int:
        return self.desktop.pass_memo("trash", self._count_trash)

    def _count_trash(self) -> int:
        try:
            return len([e for e in self.files.listdir(".Trash", stat=False) if not e.name.startswith(".DS")])
        except OSError:
            return 0

    def _is_home(self, path: Path) -> bool:
        return self._parts(path) == ()

    def _is_trash(self, path: Path) -> bool:
        return self._parts(path) == (".Trash",)

    def _parts(self, path: Path) -> tuple[str, ...] | None:
        """``path``'s components below the home (lexical), None for a path that is not inside it."""
        try:
            return self.files.parts(path)
        except OSError:
            return None

    def quit(self) -> None:  # Finder cannot be quit; cmd-q does nothing
        return

    def reopen(self) -> None:
        if not [w for w in self.windows if not w.minimized]:
            self.open_folder(self.home)

    def new_window(self) -> Window:
        return self.open_folder(self.home, new=True)

    # ------------------------------------------------------------------ file operations
    def _check_inside(self, p: Path) -> Path:
        if self._parts(p) is None:
            raise ValueError(f"{self.files.shown(p)} is not inside the home folder")
        return p

    def new_folder(self, folder: Path, name: str = "untitled folder", rename: bool = True) -> Path:
        self._check_inside(folder)
        target = folder / unique_name(self.files, folder, check_name(name))
        try:
            self.files.mkdir(target)
        except OSError as exc:
            raise ValueError(str(exc)) from None
        self.touch()
        for w in self.windows:
            if w.state.get("path") == str(folder):
                w.state["selection"] = [target.name]
                if rename:
                    self._start_rename(w, target.name)
        return target

    def rename(self, path: Path, new_name: str) -> Path:
        """Rename ``path`` to ``new_name``; raises ValueError with Finder's message if not allowed."""
        new_name = check_name(new_name.strip())
        self._check_inside(path)
        target = path.parent / new_name
        if new_name == path.name:
            return path
        if self.files.exists(target):
            raise ValueError(f"The name “{new_name}” is already taken. Please choose a different name.")
        try:
            self.files.rename(path, target)  # a symlink is renamed as a link; what it points to is never touched
        except OSError as exc:
            raise ValueError(str(exc)) from None
        self.touch()
        return target

    def _report(self, failures: list[str], raise_errors: bool) -> None:
        """Items an operation could not handle (a link it will not follow, a special file…): a ValueError
        for a script (``raise_errors``), else an alert, as Finder shows one."""
        if not failures:
            return
        if raise_errors:
            raise ValueError("; ".join(failures))
        alert(self, None, "The operation can’t be completed.", "\n".join(failures[:5]), [("OK", lambda: None)], cancel=0)

    def move_items(self, paths: list[Path], folder: Path, *, raise_errors: bool = False) -> list[Path]:
        """Move files/folders into ``folder`` (skipping a folder into itself); returns the new paths.
        Links move as links (never followed)."""
        self._check_inside(folder)
        files, into = self.files, self._parts(folder)
        if not files.is_dir(folder):
            self._report([f"{files.shown(folder)} is not a folder"], raise_errors)
            return []
        out: list[Path] = []
        failures: list[str] = []
        for p in paths:
            p = Path(p)
            at = self._parts(p)
            if at is None or not at or not files.exists(p) or at[:-1] == into:
                continue
            if into[:len(at)] == at:  # a folder into itself or one of its subfolders
                continue
            dest = folder / unique_name(files, folder, p.name)
            try:
                files.rename(p, dest)
            except OSError as exc:
                failures.append(str(exc))
                continue
            out.append(dest)
        self.touch()
        self._report(failures, raise_errors)
        return out

    def copy_items(self, paths: list[Path], folder: Path, duplicate_suffix: bool = False, *,
                   raise_errors: bool = False) -> list[Path]:
        """Copy files/folders into ``folder`` ("name copy" with ``duplicate_suffix`` or on a clash); returns
        the copies. Links inside are copied as links, never followed; a FIFO or device is refused."""
        files = self.files
        self._check_inside(folder)
        out: list[Path] = []
        failures: list[str] = []
        for p in paths:
            p = Path(p)
            kind = files.kind(p) if self._parts(p) else None
            if kind is None:
                continue
            name = p.name
            if duplicate_suffix or files.exists(folder / name):
                stem, suffix = (name, "") if kind == "dir" or "." not in name[1:] else (name[: name.rfind(".")], name[name.rfind("."):])
                name = unique_name(files, folder, f"{stem} copy{suffix}")
            dest = folder / name
            try:
                files.copy(p, dest)
                if kind == "file":
                    files.set_mtime(dest, files.lstat(p).st_mtime)  # a copy keeps its modification date, as Finder's does
            except OSError as exc:
                failures.append(str(exc))
                continue
            out.append(dest)
        self.touch()
        self._report(failures, raise_errors)
        return out

    def move_to_trash(self, paths: list[Path], *, raise_errors: bool = False) -> None:
        files = self.files
        failures: list[str] = []
        if not files.is_dir(".Trash"):
            if files.exists(".Trash"):
                files.unlink(".Trash")  # a link or file put there by the shell is not the Trash
            files.mkdir(".Trash")
        for p in paths:
            p = Path(p)
            at = self._parts(p)
            if not at or at[0] == ".Trash" and len(at) == 1 or not files.exists(p):
                continue
            name = unique_name(files, self.trash_dir, p.name)
            try:
                files.rename(p, self.trash_dir / name)
            except OSError as exc:
                failures.append(str(exc))
                continue
            self.trash_origins[name] = str(p)
        self.desktop.desktop_selection = [n for n in self.desktop.desktop_selection if files.exists(f"Desktop/{n}")]
        self.touch()
        self._report(failures, raise_errors)

    def put_back(self, names: list[str]) -> None:
        files = self.files
        failures: list[str] = []
        for n in names:
            orig = self.trash_origins.pop(n, None)
            src = self.trash_dir / n
            if orig is None or "/" in n or not files.exists(src):
                continue
            dest = Path(orig)
            try:
                files.mkdir(dest.parent, parents=True, exist_ok=True)
                files.rename(src, dest.parent / unique_name(files, dest.parent, dest.name))
            except OSError as exc:
                failures.append(str(exc))
        self.touch()
        self._report(failures, False)

    def empty_trash(self) -> None:
        files = self.files
        if files.is_dir(".Trash"):
            for entry in files.listdir(".Trash"):
                files.rmtree(f".Trash/{entry.name}")  # by directory fds: a link is removed, never followed
        self.trash_origins.clear()
        self.touch()

    def confirm_empty_trash(self) -> None:
        n = self.trash_count()
        if n == 0:
            return
        alert(self, None, f"Are you sure you want to permanently erase the {n} item{'s' if n != 1 else ''} in the Trash?",
              "You can’t undo this action.", [("Empty Trash", self.empty_trash), ("Cancel", lambda: None)], default=0, cancel=1)

    def rename_prompt(self, path: Path) -> None:
        """Rename from a desktop icon's context menu (a sheet-less prompt window)."""
        win = self.open_folder(path.parent)
        win.state["selection"] = [path.name]
        self._start_rename(win, path.name)

    # ------------------------------------------------------------------ windows
    def can_open(self, path: Path) -> bool:
        return True

    def open_file(self, path: Path) -> None:
        """``open -a Finder <path>``: the folder, or the folder that holds the file."""
        self.desktop.open_path(path if self.files.is_dir(path) else path.parent)

    def open_folder(self, path: Path, new: bool = False) -> Window:
        path = Path(path)
        if not new:
            front = self._front_browser() or (self.browser_windows[0] if self.browser_windows else None)
            if front is not None:
                self.navigate(front, path)
                self.desktop.raise_window(front)
                return front
        w, h = 800, 480
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, path.name, (x, y, w, h), self._build, title_h=52,
                     signature=lambda: self._listing_sig(win))
        win.state.update({"path": str(path), "selection": [], "back": [], "forward": []})
        win.title = self._title(path)
        win.focus_key = "finder:list"
        self.desktop.show_window(win)
        return win

    @property
    def browser_windows(self) -> list[Window]:
        """Finder's folder windows, front-most first (its alerts are windows too, browsing nothing)."""
        return [w for w in self.windows if "path" in w.state]

    def _front_browser(self) -> Window | None:
        """The front Finder window that browses a folder (not an alert Finder shows, which has no folder)."""
        front = self._front()
        return front if front is not None and "path" in front.state else None

    def _title(self, path: Path) -> str:
        if self._is_home(path):
            return self.home.name
        if self._is_trash(path):
            return "Trash"
        return path.name

    def navigate(self, win: Window, path: Path, record: bool = True) -> None:
        if not self.files.is_dir(path):  # a symlinked folder is not entered: it could lead out of the home
            return
        if record and win.state.get("path") != str(path):
            win.state["back"] = win.state["back"] + [win.state["path"]]
            win.state["forward"] = []
        win.state["path"] = str(path)
        win.state["selection"] = []
        win.state.pop("renaming", None)
        win.state["finder:list:scroll"] = 0
        win.title = self._title(path)
        win.touch()

    def go_back(self, win: Window) -> None:
        if win.state["back"]:
            prev = win.state["back"][-1]
            win.state["back"] = win.state["back"][:-1]
            win.state["forward"] = win.state["forward"] + [win.state["path"]]
            self.navigate(win, Path(prev), record=False)

    def go_forward(self, win: Window) -> None:
        if win.state["forward"]:
            nxt = win.state["forward"][-1]
            win.state["forward"] = win.state["forward"][:-1]
            win.state["back"] = win.state["back"] + [win.state["path"]]
            self.navigate(win, Path(nxt), record=False)

    def _listing(self, folder: Path) -> list[Entry]:
        try:
            entries = [e for e in self.files.listdir(folder, limit=LISTING_LIMIT) if not e.name.startswith(".")]
        except OSError:
            return []
        return sorted(entries, key=lambda e: e.name.lower())

    def _listing_sig(self, win: Window) -> tuple:
        folder = Path(win.state.get("path", self.home))

        def listing() -> tuple:
            try:
                return tuple((e.name, e.mtime, e.size, e.kind) for e in self.files.listdir(folder, limit=LISTING_LIMIT))
            except OSError:
                return ()

        return self.desktop.pass_memo(("finder", str(folder)), listing)

    def _start_rename(self, win: Window, name: str) -> None:
        win.state["renaming"] = name
        ed = win.editor("finder:rename", initial=name)
        ed.text, ed.synced = name, name
        stem = name.rfind(".") if "." in name[1:] and not self.files.is_dir(Path(win.state["path"]) / name) else len(name)
        ed.anchor, ed.cursor = 0, stem
        win.focus_key = "finder:rename"
        win.touch()

    def _commit_rename(self, win: Window, text: str) -> None:
        old = win.state.get("renaming")
        if old is None:
            return
        folder = Path(win.state["path"])
        try:
            new = self.rename(folder / old, text) if text != old else folder / old
        except ValueError as e:
            alert(self, win, str(e), "", [("OK", lambda: None)], cancel=0)
            return
        win.state.pop("renaming", None)
        win.state["selection"] = [new.name]
        win.focus_key = "finder:list"
        win.touch()

    def _cancel_rename(self, win: Window) -> None:
        win.state.pop("renaming", None)
        win.focus_key = "finder:list"
        win.touch()

    def _selected_paths(self, win: Window) -> list[Path]:
        folder = Path(win.state["path"])
        return [folder / n for n in win.state.get("selection", []) if "/" not in n and self.files.exists(folder / n)]

    def _activate(self, win: Window, name: str) -> None:
        p = Path(win.state["path"]) / name
        kind = self.files.kind(p) if "/" not in name else None
        if kind == "dir":
            self.navigate(win, p)
        elif kind is not None:
            self.desktop.open_path(p)  # a link or special file gets an alert there

    def _date_text(self, ts: float) -> str:
        """Modification date as Finder shows it. Files written during this episode show the sim's
        clock (never the host's); files with an explicit older time show that time."""
        now = self.desktop.now
        if ts >= self.reset_host_time - 1:
            when = now
        else:
            when = datetime.fromtimestamp(ts, timezone.utc).replace(tzinfo=None)  # the shell runs with TZ=UTC
        hour = when.hour % 12 or 12
        t = f"{hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"
        if when.date() == now.date():
            return f"Today at {t}"
        return f"{when.day} {when.strftime('%b %Y')} at {t}"

    def _context(self, win: Window, keys: list[str]) -> list[MenuItem]:
        paths = [Path(win.state["path"]) / k for k in keys]
        in_trash = self._is_trash(Path(win.state["path"]))
        items = [MenuItem("Open", lambda: [self._activate(win, k) for k in keys])]
        if in_trash:
            items += [MenuItem("Put Back", lambda: self.put_back(keys)), MenuItem("Delete Immediately…", lambda: self._delete_now(paths))]
        else:
            items += [sep(), MenuItem("Move to Trash", lambda: self.move_to_trash(paths)), sep(),
                      MenuItem("Rename", lambda: self._start_rename(win, keys[0]), enabled=len(keys) == 1),
                      MenuItem("Duplicate", lambda: self.copy_items(paths, Path(win.state["path"]), True)),
                      MenuItem("Copy", lambda: self.desktop.clipboard.set_files(paths)),
                      sep(), MenuItem("New Folder", lambda: self.new_folder(Path(win.state["path"])))]
        return items

    def _delete_now(self, paths: list[Path]) -> None:
        failures: list[str] = []
        for p in paths:
            try:
                if self._parts(p) and self.files.exists(p):
                    self.files.rmtree(p)  # by directory fds: a link is removed, never followed
            except OSError as exc:
                failures.append(str(exc))
            self.trash_origins.pop(p.name, None)
        self._report(failures, False)
        self.touch()

    def paste(self, win: Window) -> None:
        files = [p for p in self.desktop.clipboard.files if self._parts(p) and self.files.exists(p)]
        if files:
            self.copy_items(files, Path(win.state["path"]))

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side = 170
        folder = Path(win.state["path"])
        out: list[Widget] = [Box((0, 0, side, H), "sidebar_bg")]
        # toolbar
        out.append(Button("finder:back", (side + 10, 14, 28, 24), "Back", lambda: self.go_back(win), style="toolbar",
                          symbol="‹", size=20, enabled=bool(win.state["back"])))
        out.append(Button("finder:forward", (side + 40, 14, 28, 24), "Forward", lambda: self.go_forward(win), style="toolbar",
                          symbol="›", size=20, enabled=bool(win.state["forward"])))
        out.append(Label((side + 76, 14, 300, 24), win.title, 15, "bold", key="finder:title"))
        out.append(Button("finder:newfolder", (W - 50, 14, 36, 24), "New Folder", lambda: self.new_folder(folder),
                          style="toolbar", symbol="+", size=18))
        # sidebar
        places = [Row("hdr:fav", ["Favourites"], header=True)]
        places += [Row(str(self.home / p), [p], icon="folder") for p in PLACES]
        places += [Row(str(self.home), [self.home.name], icon="folder"), Row("hdr:loc", ["Locations"], header=True),
                   Row(str(self.trash_dir), ["Trash"], icon="Trash")]
        cur = str(folder)
        out.append(ListView("finder:sidebar", (0, 52, side, H - 52), places, [cur] if any(r.key == cur for r in places) else [],
                            name="Sidebar", sidebar=True,
                            on_select=lambda keys: self.navigate(win, Path(keys[0])) if keys and not keys[0].startswith("hdr:") else None,
                            drop_ok=lambda key, payload: payload[0] == "files" and not key.startswith("hdr:"),
                            on_drop=lambda key, payload: (self.move_to_trash([Path(p) for p in payload[1]]) if key == str(self.trash_dir)
                                                          else self.move_items([Path(p) for p in payload[1]], Path(key)))))
        # file list
        entries = self._listing(folder)
        rows = []
        for e in entries:
            is_dir = e.kind == "dir"
            kind = "Folder" if is_dir else "Alias" if e.kind == "symlink" else KINDS.get(Path(e.name).suffix.lower(), "Document")
            size = "--" if e.kind != "file" else _size_text(e.size)
            rows.append(Row(e.name, [e.name, self._date_text(e.mtime), size, kind], icon="folder" if is_dir else "document"))
        lw = W - side
        cols = [("Name", max(200, lw - 430)), ("Date Modified", 200), ("Size", 90), ("Kind", 140)]
        sel = [s for s in win.state.get("selection", []) if any(r.key == s for r in rows)]
        lst = FileList("finder:list", (side, 52, lw, H - 52 - 24), rows, sel, name=win.title,
                       on_select=lambda keys: win.state.__setitem__("selection", keys),
                       on_activate=lambda key: self._activate(win, key),
                       on_return=lambda key: self._start_rename(win, key),
                       on_delete=lambda keys: self.move_to_trash([folder / k for k in keys]),
                       on_context=lambda keys: self._context(win, keys), columns=cols, multi=True, drag_kind="files",
                       drop_ok=lambda key, payload: payload[0] == "files" and self.files.is_dir(folder / key)
                       and str(folder / key) not in payload[1],
                       on_drop=lambda key, payload: self.move_items([Path(p) for p in payload[1]], folder / key),
                       empty_text="")
        lst.finder, lst.window_ref = self, win
        out.append(lst)
        renaming = win.state.get("renaming")
        if renaming is not None:
            keys = [r.key for r in rows]
            if renaming in keys:
                i = keys.index(renaming)
                rx, ry, rw, rh = lst.row_rect(win, i)
                ed = win.editor("finder:rename")
                out.append(TextField("finder:rename", (rx + 30, ry + 1, cols[0][1] - 30, rh - 2), ed, name="Rename",
                                     on_commit=lambda t: self._commit_rename(win, t), on_cancel=lambda: self._cancel_rename(win)))
            else:
                win.state.pop("renaming", None)
        n = len(rows)
        out.append(Box((side, H - 24, lw, 24), "window_bg"))
        out.append(Label((side, H - 24, lw, 24), f"{n} item{'s' if n != 1 else ''}", 11, color="secondary_text", align="center",
                         key="finder:status"))
        return out

    # ------------------------------------------------------------------ menus
    def app_menus(self) -> list:
        fw = self._front_browser()
        folder = Path(fw.state["path"]) if fw is not None else self.home
        sel = self._selected_paths(fw) if fw is not None else []
        return [
            ("File", [
                MenuItem("New Finder Window", lambda: self.open_folder(self.home, new=True), "cmd+n"),
                MenuItem("New Folder", lambda: self.new_folder(folder), "cmd+shift+n"),
                MenuItem("Open", lambda: [self.desktop.open_path(p) for p in sel], "cmd+o", enabled=bool(sel)),
                MenuItem("Close Window", self._close_front, "cmd+w", enabled=fw is not None),
                sep(),
                MenuItem("Duplicate", lambda: self.copy_items(sel, folder, True), "cmd+d", enabled=bool(sel)),
                MenuItem("Rename", lambda: self._start_rename(fw, sel[0].name), enabled=len(sel) == 1),
                MenuItem("Move to Trash", lambda: self.move_to_trash(sel), "cmd+backspace", enabled=bool(sel)),
            ]),
        ]

    def extra_menus(self) -> list:
        fw = self._front_browser()

        def go(p: Path) -> Any:
            return lambda: self.navigate(fw, p) if fw is not None else self.open_folder(p)

        return [
            ("Go", [
                MenuItem("Back", lambda: self.go_back(fw) if fw else None, "cmd+["),
                MenuItem("Forward", lambda: self.go_forward(fw) if fw else None, "cmd+]"),
                MenuItem("Enclosing Folder", lambda: self._enclosing(fw), "cmd+up"),
                sep(),
                MenuItem("Documents", go(self.home / "Documents"), "cmd+shift+o"),
                MenuItem("Desktop", go(self.home / "Desktop"), "cmd+shift+d"),
                MenuItem("Downloads", go(self.home / "Downloads"), "cmd+option+l"),
                MenuItem("Home", go(self.home), "cmd+shift+h"),
            ]),
            ("Trash", [MenuItem("Empty Trash…", self.confirm_empty_trash, "cmd+shift+backspace", enabled=self.trash_count() > 0)]),
        ]

    def menus(self) -> list:
        # Finder's Edit menu copies and pastes files when the file list has focus
        out = super().menus()
        fw = self._front_browser()
        if fw is not None and fw.focus_key == "finder:list":
            for title, items in out:
                if title == "Edit":
                    for it in items:
                        if it.title == "Copy":
                            it.action = lambda: self.desktop.clipboard.set_files(self._selected_paths(fw))
                        elif it.title == "Paste":
                            it.action = lambda: self.paste(fw)
                        elif it.title == "Cut":
                            it.enabled = False
        return out

    def _enclosing(self, win: Window | None) -> None:
        if win is None:
            return
        p = Path(win.state["path"])
        if not self._is_home(p):
            self.navigate(win, p.parent)

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        return {
            "running": True,
            "windows": [{"path": self.desktop.display_path(Path(w.state["path"])), "selection": list(w.state.get("selection", []))}
                        for w in self.browser_windows],
            "trash": [e.name for e in self.files.listdir(".Trash")] if self.files.is_dir(".Trash") else [],
            "desktop_selection": list(self.desktop.desktop_selection),
        }


class FileList(ListView):
    """Finder's file table: rows drag out as full paths, and typing a name's first letters selects it."""

    finder: FinderApp
    window_ref: Window

    def drag_payload(self, win: Window, x: int, y: int) -> Any:
        payload = super().drag_payload(win, x, y)
        if payload is None:
            return None
        folder = Path(win.state["path"])
        return ("files", [str(folder / k) for k in payload[1]])

    def text(self, win: Window, s: str) -> bool:
        s = s.lower()
        for r in self.rows:
            if r.key.lower().startswith(s):
                self._select([r.key])
                return True
        return False
