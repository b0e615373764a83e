"""Spotlight (cmd-space): a search field over the desktop; typing lists matching apps, then files
of the home folder; Return opens the selected hit, arrows move the selection, Escape closes it."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from .widgets import Box, ListView, Row, TextField, Widget
from .window import Window

if TYPE_CHECKING:  # pragma: no cover
    from .desktop import Desktop

WIDTH = 640
MAX_HITS = 8
#: at most this many entries of the home are looked at for one query (a huge home must not stall a keystroke)
INDEX_LIMIT = 20_000


class SpotlightField(TextField):
    """The query field: Up/Down move the selection among the hits."""

    spotlight: "Spotlight"

    def key_event(self, win: Window, key: str, mods: frozenset) -> bool:
        if key in ("up", "down") and not mods:
            self.spotlight.move(1 if key == "down" else -1)
            return True
        return super().key_event(win, key, mods)


class Spotlight:
    """Opens and drives the Spotlight panel of one desktop."""

    def __init__(self, desktop: "Desktop") -> None:
        self.desktop = desktop
        self.window: Window | None = None

    @property
    def is_open(self) -> bool:
        return self.window is not None and self.window in self.desktop.windows

    def toggle(self) -> None:
        if self.is_open:
            self.close()
        else:
            self.open()

    def open(self) -> Window:
        d = self.desktop
        finder = d.apps["Finder"]
        sw, _ = d.screen_size
        win = Window(finder, "Spotlight", ((sw - WIDTH) // 2, 180, WIDTH, 56), self._build, title_h=0, kind="spotlight")
        win.state.update({"query": "", "sel": 0})
        win.focus_key = "spotlight:query"
        d.windows.append(win)  # above everything; it does not change the frontmost app
        self.window = win
        d.gen += 1
        return win

    def close(self) -> None:
        if self.window is not None and self.window in self.desktop.windows:
            self.desktop.windows.remove(self.window)
        self.window = None
        self.desktop.gen += 1

    def hits(self, query: str) -> list[tuple[str, str, str]]:
        """(kind, name, target) for the query: apps whose name contains it (prefix matches first), then files."""
        q = query.strip().lower()
        if not q:
            return []
        apps = [a for a in self.desktop.apps.values() if q in a.name.lower()]
        apps.sort(key=lambda a: (not a.name.lower().startswith(q), a.name))
        out = [("app", a.name, a.name) for a in apps]
        home = self.desktop.home
        files = [("file", name, str(home / rel)) for name, rel in self._matching_files(q)]
        files.sort(key=lambda f: (not f[1].lower().startswith(q), f[1].lower()))
        return (out + files)[:MAX_HITS]

    def _matching_files(self, q: str) -> list[tuple[str, PurePosixPath]]:
        """(name, path below the home) of entries whose name contains ``q``: the home's visible folders
        breadth first (not Library), through the confined layer — symlinked folders are not entered, and
        the walk stops after ``INDEX_LIMIT`` entries or once more than 50 match."""
        found: list[tuple[str, PurePosixPath]] = []
        pending, seen = [PurePosixPath(".")], 0
        while pending and seen < INDEX_LIMIT and len(found) <= 50:
            folder = pending.pop(0)
            try:
                entries = self.desktop.home_files.listdir(folder, limit=INDEX_LIMIT - seen)
            except OSError:
                continue  # removed, or swapped for a link, while indexing
            seen += len(entries)
            for e in entries:
                if e.name.startswith("."):
                    continue
                rel = folder / e.name if folder != PurePosixPath(".") else PurePosixPath(e.name)
                if q in e.name.lower():
                    found.append((e.name, rel))
                if e.kind == "dir" and e.name != "Library":
                    pending.append(rel)
        return found

    def move(self, delta: int) -> None:
        win = self.window
        if win is None:
            return
        n = len(self.hits(win.state["query"]))
        if n:
            win.state["sel"] = (win.state["sel"] + delta) % n
        win.touch()

    def activate(self, index: int | None = None) -> None:
        win = self.window
        if win is None:
            return
        hits = self.hits(win.state["query"])
        i = win.state["sel"] if index is None else index
        self.close()
        if not hits:
            return
        kind, name, target = hits[min(i, len(hits) - 1)]
        d = self.desktop
        if kind == "app":
            d.activate(d.app(name))
        else:
            d.open_path(Path(target))

    def _build(self, win: Window) -> list[Widget]:
        query = win.state["query"]
        hits = self.hits(query)
        win.h = 56 + (len(hits) * 34 + 8 if hits else 0)
        ed = win.editor("spotlight:query", query)

        def changed(t: str) -> None:
            win.state["query"] = t
            win.state["sel"] = 0

        field = SpotlightField("spotlight:query", (14, 10, WIDTH - 28, 36), ed, placeholder="Spotlight Search",
                               name="Spotlight Search", size=20, bordered=False, on_change=changed,
                               on_commit=lambda t: self.activate(), on_cancel=self.close)
        field.spotlight = self
        out: list[Widget] = [Box((0, 0, WIDTH, win.h), "menu_bg"), field]
        if hits:
            rows = [Row(str(i), [name, "Application" if kind == "app" else self.desktop.display_path(Path(target))],
                        icon=(name if kind == "app" else ("folder" if self.desktop.home_files.is_dir(target) else "document")))
                    for i, (kind, name, target) in enumerate(hits)]
            out.append(Box((0, 55, WIDTH, 1), "separator"))
            out.append(ListView("spotlight:hits", (0, 60, WIDTH, len(hits) * 34), rows, [str(win.state["sel"])],
                                name="Spotlight results", row_height=34,
                                on_select=lambda ks: win.state.__setitem__("sel", int(ks[0])) if ks else None,
                                on_activate=lambda k: self.activate(int(k))))
        return out

