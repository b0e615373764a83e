"""The window server of the simulated desktop: apps, windows (z-order, focus, sheets), the menu
bar and its menus, the dock, desktop icons, the clipboard, mouse and keyboard routing, rendering
with cached layers, and the accessibility tree."""

from __future__ import annotations

import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw

from mmenvs.core.confined import ConfinedDir, Entry

from .events import EventRouter
from .icons import icon as load_icon
from .menus import MenuItem, OpenMenu, sep
from .theme import Draw, Theme, font, text_width, wallpaper
from .widgets import fit_text
from mmenvs.core.images import Box, FrameDiff

from . import composite
from .window import Window, alert, rounded_mask
from .apps import dock_apps

if TYPE_CHECKING:  # pragma: no cover
    from .apps.base import App

MENUBAR_H = 24
DOCK_ICON = 48
DOCK_PAD = 8

#: at most this many entries of ~/Desktop are read for the icons (a folder of a million files must not stall a frame)
DESKTOP_ICON_LIMIT = 2000

TEXT_SUFFIXES = {".txt", ".md", ".rtf", ".py", ".json", ".csv", ".log", ".sh", ".yaml", ".yml", ".xml", ".ini",
                 ".cfg", ".conf", ".tsv", ".js", ".css", ".c", ".h", ".swift", ".toml", ""}


class _LayerCache:
    """Rendered static layers (wallpaper with desktop icons, dock, menu bar) shared by every desktop
    in the process, so a reset reuses what the last episode drew. Bounded per kind (a full-screen
    base layer is 3 MB, a menu bar 90 KB, a dock 200 KB), least recently used out; small bounds keep an env within
    its memory budget (most episodes share one wallpaper and theme)."""

    # s…: downscaled (render_scaled), a few KB each; menu bars (90 KB) vary with the active app and the
    # open menu, docks (200 KB) with the running apps: a random policy cycles through dozens of each
    # (drawn from a plate without the running dots, "dockp", and a bar without the clock, "barl")
    LIMITS = {"base": 2, "dock": 8, "dockp": 2, "bar": 24, "barl": 16, "sbase": 4, "sdock": 64, "sbar": 96}

    def __init__(self) -> None:
        self.items: OrderedDict[tuple, Any] = OrderedDict()
        # each kind's keys, least recently used first: put evicts within the kind without scanning every
        # layer of every kind (a scan per put was ~0.2 ms of a step). A key may outlive its entry here
        # (``items`` cleared from outside); it is skipped when evicted.
        self._kinds: dict[Any, OrderedDict[tuple, None]] = {}

    def __contains__(self, key: tuple) -> bool:
        return key in self.items

    def get(self, key: tuple) -> Any:
        v = self.items.get(key)
        if v is not None:
            self.items.move_to_end(key)
            kind = self._kinds.get(key[0])
            if kind is not None and key in kind:
                kind.move_to_end(key)
        return v

    def put(self, key: tuple, value: Any) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        kind = self._kinds.setdefault(key[0], OrderedDict())
        kind[key] = None
        kind.move_to_end(key)
        limit = self.LIMITS.get(key[0], 8)
        while len(kind) > limit:
            old, _ = kind.popitem(last=False)
            self.items.pop(old, None)


_LAYERS = _LayerCache()


class Clipboard:
    """The pasteboard: text (pbcopy/pbpaste, cmd-c/v in text) and file references (Finder cmd-c)."""

    def __init__(self) -> None:
        self.text = ""
        self.files: list[Path] = []

    def set_text(self, text: str) -> None:
        self.text, self.files = text, []

    def set_files(self, files: list[Path]) -> None:
        self.files = list(files)
        self.text = "\n".join(p.name for p in files)


class Desktop(EventRouter):
    """Everything on screen. The backend owns one and recreates its apps on reset."""

    def __init__(self, screen_size: tuple[int, int], home: Path, now: datetime,
                 buffers: composite.FrameBuffers | None = None) -> None:
        self.screen_size = screen_size
        # the backend passes its own, so frame memory is reused across episodes
        self.buffers = buffers if buffers is not None else composite.FrameBuffers(screen_size)
        self.home = home
        # the one way host code touches the agent's home (symlinks, FIFOs and '..' never lead out of it)
        self.home_files = ConfinedDir(home)
        self.now = now
        self.apps: dict[str, App] = {}
        self.backend: Any = None  # the SimBackend (shell, paths, scripting)
        from .spotlight import Spotlight

        self.spotlight = Spotlight(self)
        self._window_ids = 0
        self.windows: list[Window] = []  # bottom → top
        self.active: App | None = None
        self.menu: OpenMenu | None = None
        self.mods: set[str] = set()
        self.mouse = (screen_size[0] // 2, screen_size[1] // 2)
        self.pressed: dict[str, Any] | None = None
        self.clipboard = Clipboard()
        self.desktop_selection: list[str] = []
        self.drag_hover: Any = None
        self.gen = 0
        self.fs_epoch = 0  # bumped after every shell command (files may have changed): apps key disk caches on it
        self._frame_gen = -1
        self._frame: np.ndarray | None = None
        self._small_gen: tuple | None = None  # render_scaled's last signature and frame
        self._small_frame: np.ndarray | None = None
        self._small_below_key: tuple | None = None  # render_scaled's layer below the front window
        self._small_below: np.ndarray | None = None
        self._small_shadowed_key: tuple | None = None  # ... with the front window's shadow on it
        self._small_shadowed: np.ndarray | None = None
        self._diff = FrameDiff()
        self._composition: tuple | None = None  # the layers the last frame was composed from
        self._corners: composite.Corners | None = None  # the background under the front window's corners
        # (weak ref to a frame, box where it differs from the frame before it) for the last few frames,
        # newest last; weak, so a menu frame (a fresh array) is not kept alive by the log
        self._damage_log: deque[tuple[weakref.ref, Box]] = deque(maxlen=8)
        self._base_key: tuple | None = None
        self._base: np.ndarray | None = None
        self._below_key: tuple | None = None
        self._below: np.ndarray | None = None
        self._dock_key: tuple | None = None
        self._dock: tuple[np.ndarray, np.ndarray, tuple[int, int]] | None = None
        self._bar_key: tuple | None = None
        self._bar: np.ndarray | None = None
        self._bar_rects: list[tuple[str, int, int]] = []
        self._icon_rects: list[tuple[str, tuple[int, int, int, int]]] = []
        self._pass_depth = 0  # > 0 while a frame or the a11y tree is being produced (see ``pass_memo``)
        self._pass_memo: dict[Any, Any] = {}

    @contextmanager
    def drawing_pass(self) -> Iterator[None]:
        """Producing a frame or the a11y tree changes no file, so a listing of the home made during it
        is reused within it (``pass_memo``): every window signature and layer asks for the same folders."""
        self._pass_depth += 1
        try:
            yield
        finally:
            self._pass_depth -= 1
            if not self._pass_depth:
                self._pass_memo.clear()

    def pass_memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, computed once per drawing pass for ``key`` (every time outside a pass)."""
        if not self._pass_depth:
            return compute()
        if key not in self._pass_memo:
            self._pass_memo[key] = compute()
        return self._pass_memo[key]

    def next_window_id(self) -> int:
        self._window_ids += 1
        return self._window_ids

    def release(self) -> None:
        """Drop the pixel buffers of this desktop (called when a new episode replaces it): apps,
        windows and closures form reference cycles that the GC frees late, so the megabytes go now."""
        self._frame = self._below = self._base = self._dock = self._bar = self._small_frame = self._small_below = None
        self._small_shadowed = None
        self._composition = self._corners = None
        self.buffers.release_below()
        self._damage_log.clear()
        for w in self.windows:
            w.release()
        self.windows = []
        self.menu = None
        self.pressed = None

    # ------------------------------------------------------------------------------ apps
    def register(self, app: "App") -> None:
        self.apps[app.name] = app

    def app(self, name: str) -> "App":
        """The app called ``name`` (case-insensitive; "Settings"/"System Preferences" alias System Settings)."""
        aliases = {"settings": "System Settings", "system preferences": "System Settings", "mail.app": "Mail"}
        n = aliases.get(name.strip().lower(), name.strip())
        for k, a in self.apps.items():
            if k.lower() == n.lower():
                return a
        raise KeyError(name)

    @property
    def settings(self) -> Any:
        return self.apps["System Settings"]

    @property
    def theme(self) -> Theme:
        s = self.settings
        return Theme(dark=s.dark_mode, accent_name=s.accent_color)

    def invalidate(self) -> None:
        """Something changed outside GUI events (scripts, shell): redraw every app's windows."""
        for a in self.apps.values():
            a.touch()
        self.gen += 1

    def running_apps(self) -> list["App"]:
        return [a for a in self.apps.values() if a.running]

    def activate(self, app: "App", reopen: bool = True) -> None:
        """Bring ``app`` to the front (launching it if needed), like clicking its dock icon."""
        if not app.running:
            app.launch()
            app.running = True
        if app.background_only:  # no windows, no menu bar: it just runs
            self.gen += 1
            return
        app.hidden = False
        self.active = app
        mine = [w for w in self.windows if w.app is app]
        others = [w for w in self.windows if w.app is not app]
        self.windows = others + mine
        self.menu = None
        if reopen:
            app.reopen()
        self.gen += 1

    def app_quit(self, app: "App") -> None:
        if self.active is app:
            rest = [w.app for w in reversed(self.windows) if w.app is not app and not w.app.hidden]
            self.active = rest[0] if rest else self.apps.get("Finder")
            if self.active is not None and not self.active.running:
                self.active.running = True
        self.gen += 1

    def hide_app(self, app: "App") -> None:
        app.hidden = True
        if self.active is app:
            rest = [w.app for w in reversed(self.windows) if w.app is not app and not w.app.hidden]
            self.active = rest[0] if rest else self.apps["Finder"]
        self.gen += 1

    def hide_others(self, app: "App") -> None:
        for a in self.apps.values():
            if a is not app and a.running:
                a.hidden = True
        self.gen += 1

    def show_all(self) -> None:
        for a in self.apps.values():
            a.hidden = False
        self.gen += 1

    def about(self, app: "App") -> None:
        if app.name == "Finder":
            alert(app, None, "About This Mac", "macOS Tahoe 26.0 (simulated). Chip: Virtual. Memory: 4 GB.",
                  [("OK", lambda: None)], cancel=0)
        else:
            alert(app, None, app.name, f"Version 26.0 — {app.name} on the simulated macOS desktop.",
                  [("OK", lambda: None)], cancel=0)

    # ------------------------------------------------------------------------------ windows
    def visible_windows(self) -> list[Window]:
        return [w for w in self.windows if not w.minimized and (not w.app.hidden or w.kind == "spotlight")]

    def key_window(self) -> Window | None:
        """The window receiving keys: Spotlight when open, else the top visible window of the active
        app (its sheet, if any)."""
        if self.spotlight.is_open:
            return self.spotlight.window
        for w in reversed(self.visible_windows()):
            if w.app is self.active:
                return w
        return None

    def show_window(self, win: Window) -> None:
        """Put a new window (or sheet) on screen, in front, and make its app active."""
        if win.parent is not None:
            win.parent.sheet = win
            idx = self.windows.index(win.parent) if win.parent in self.windows else len(self.windows) - 1
            self.windows.insert(idx + 1, win)
        else:
            sw, sh = self.screen_size
            win.x = max(0, min(win.x, sw - 80))
            win.y = max(MENUBAR_H, min(win.y, sh - 60))
            self.windows.append(win)
        if not win.app.running:
            win.app.running = True
        self.active = win.app
        win.app.hidden = False
        if win.parent is None:
            self.raise_window(win)
        self.gen += 1

    def close_window(self, win: Window, force: bool = False) -> None:
        if win.sheet is not None:
            self.close_window(win.sheet, force=True)
        if win in self.windows:
            self.windows.remove(win)
        if win.parent is not None and win.parent.sheet is win:
            win.parent.sheet = None
            win.parent.touch()
        if self.pressed and self.pressed.get("window") is win:
            self.pressed = None
        win.app.window_closed(win)
        win.app.touch()
        self.gen += 1

    def raise_window(self, win: Window) -> None:
        top = win.parent or win
        group = [top] + ([top.sheet] if top.sheet is not None else [])
        self.windows = [w for w in self.windows if w not in group] + [w for w in group if w in self.windows]
        top.minimized = False
        self.active = top.app
        top.app.hidden = False
        self.gen += 1

    def minimize(self, win: Window) -> None:
        win.minimized = True
        self.gen += 1

    def zoom(self, win: Window) -> None:
        sw, sh = self.screen_size
        if win.zoomed_from is not None:
            win.x, win.y, win.w, win.h = win.zoomed_from
            win.zoomed_from = None
        else:
            win.zoomed_from = (win.x, win.y, win.w, win.h)
            win.x, win.y, win.w, win.h = 0, MENUBAR_H, sw, sh - MENUBAR_H - DOCK_ICON - 2 * DOCK_PAD - 6
        win.touch()
        self.gen += 1

    def window_at(self, x: int, y: int) -> Window | None:
        for w in reversed(self.visible_windows()):
            wx, wy, ww, wh = w.rect
            if wx <= x < wx + ww and wy <= y < wy + wh:
                return w
        return None

    def cascade_origin(self, w: int, h: int) -> tuple[int, int]:
        """Where a new window of w×h opens: centred, shifted for each window already open."""
        sw, sh = self.screen_size
        n = len([x for x in self.windows if x.parent is None]) % 6
        x = max(0, (sw - w) // 2 - 60 + n * 24)
        y = max(MENUBAR_H + 10, min((sh - h) // 2 - 30 + n * 22, sh - h - 80))
        return x, y

    # ------------------------------------------------------------------------------ menus
    def open_context_menu(self, items: list[MenuItem], x: int, y: int, min_width: int = 0) -> None:
        self.menu = OpenMenu(items, x, y, None, min_width)
        self.gen += 1

    def apple_menu(self) -> list[MenuItem]:
        return [
            MenuItem("About This Mac", lambda: self.about(self.apps["Finder"])),
            sep(),
            MenuItem("System Settings…", lambda: self.activate(self.settings)),
            MenuItem("App Store…", enabled=False),
            sep(),
            MenuItem("Recent Items", enabled=False),
            sep(),
            MenuItem("Force Quit…", lambda: self.active.quit() if self.active and self.active.name != "Finder" else None,
                     "cmd+option+esc"),
            sep(),
            MenuItem("Sleep", enabled=False),
            MenuItem("Restart…", enabled=False),
            MenuItem("Shut Down…", enabled=False),
            sep(),
            MenuItem("Lock Screen", enabled=False),
            MenuItem("Log Out…", enabled=False),
        ]

    def menubar_menus(self) -> list[tuple[str, list[MenuItem]]]:
        app = self.active or self.apps["Finder"]
        return [("\uf8ff", self.apple_menu())] + app.menus()

    def send_key(self, key: str, mods: frozenset) -> bool:
        """Deliver a key to the key window (used by Edit menu items)."""
        kw = self.key_window()
        if kw is None:
            return False
        handled = kw.key(key, mods)
        kw.touch()
        kw.app.touch()
        return handled

    # ------------------------------------------------------------------------------ files
    def open_path(self, path: Path) -> None:
        """Open a file or folder as Finder would (folders in Finder, text in TextEdit, web pages in Safari).
        Only real files and folders of the home open: a symlink or special file (FIFO, device) gets an
        alert, as nothing on the host follows or blocks on it."""
        files = self.home_files
        try:
            kind = files.kind(path)
        except OSError as exc:
            kind, reason = None, str(exc)
        else:
            reason = f"{files.shown(path)}: no such file or folder"
        if kind == "dir":
            self.activate(self.apps["Finder"], reopen=False)
            self.apps["Finder"].open_folder(path)
            return
        if kind != "file":
            detail = "It is a link or a special file; the simulated Mac opens only files and folders." \
                if kind in ("symlink", "other") else reason
            alert(self.apps["Finder"], None, f"The document “{path.name}” could not be opened.", detail,
                  [("OK", lambda: None)], cancel=0)
            self.gen += 1
            return
        suffix = path.suffix.lower()
        owner = next((a for a in self.apps.values() if suffix in a.open_suffixes), None)
        if owner is not None:
            self.activate(owner, reopen=False)
            owner.open_file(path)
        elif suffix in TEXT_SUFFIXES or _looks_text(files, path):
            self.activate(self.apps["TextEdit"], reopen=False)
            self.apps["TextEdit"].open_file(path)
        else:
            alert(self.apps["Finder"], None, f"There is no application set to open the document “{path.name}”.",
                  "Choose an application in the Finder's Get Info window.", [("OK", lambda: None)], cancel=0)
        self.gen += 1

    def display_path(self, path: Path) -> str:
        """``path`` as the agent knows it (``~/Desktop/a.txt``); never a host path."""
        return self.home_files.shown(path)

    def desktop_entries(self) -> list[Entry]:
        """The visible entries of ``~/Desktop`` (case-insensitive name order; symlinks are entries, not
        followed; names and kinds only)."""
        return self.pass_memo("desktop", self._list_desktop)

    def _list_desktop(self) -> list[Entry]:
        try:
            entries = self.home_files.listdir("Desktop", limit=DESKTOP_ICON_LIMIT, stat=False)
        except OSError:
            return []
        return sorted((e for e in entries if not e.name.startswith(".")), key=lambda e: e.name.lower())

    def desktop_files(self) -> list[str]:
        return [e.name for e in self.desktop_entries()]

    # ------------------------------------------------------------------------------ geometry
    def dock_geometry(self) -> tuple[int, int, int, int, list[tuple[str, int]]]:
        """(x, y, w, h, [(item, icon_x)]) of the dock; items are app names, "|" and "Trash"."""
        sw, sh = self.screen_size
        items = list(dock_apps()) + ["|", "Trash"]
        step = DOCK_ICON + DOCK_PAD
        w = DOCK_PAD + sum(12 if i == "|" else step for i in items)
        h = DOCK_ICON + 2 * DOCK_PAD + 4
        x = (sw - w) // 2
        y = sh - h - 4
        out, cx = [], x + DOCK_PAD
        for it in items:
            out.append((it, cx))
            cx += 12 if it == "|" else step
        return x, y, w, h, out

    def dock_item_at(self, px: int, py: int) -> str | None:
        x, y, w, h, items = self.dock_geometry()
        if not (x <= px < x + w and y <= py < y + h):
            return None
        for name, ix in items:
            if name != "|" and ix <= px < ix + DOCK_ICON + DOCK_PAD // 2:
                return name
        return None

    def desktop_icon_layout(self) -> list[tuple[str, tuple[int, int, int, int]]]:
        sw, sh = self.screen_size
        out = []
        cols_h = (sh - MENUBAR_H - 100) // 90
        for i, name in enumerate(self.desktop_files()):
            c, r = divmod(i, max(1, cols_h))
            out.append((name, (sw - 100 - c * 100, MENUBAR_H + 12 + r * 90, 96, 86)))
        return out

    # ------------------------------------------------------------------------------ rendering
    def render(self) -> np.ndarray:
        """The current screen as an H×W×3 uint8 array (reuses the last frame when nothing changed)."""
        with self.drawing_pass():
            return self._render()

    def _signature(self) -> tuple:
        """What a frame depends on beyond the layers' own keys: a frame made under the same signature is reused."""
        return (self.gen, tuple((w.id, w.version, w.app.version, w.signature_value()) for w in self.windows),
                self.now.replace(second=0, microsecond=0), tuple(self.desktop_files()))

    def _render(self) -> np.ndarray:
        sig = self._signature()
        if self._frame is not None and sig == self._frame_gen:
            return self._frame
        theme = self.theme
        base = self._base_layer(theme)
        kw = self.key_window()
        layers = []
        for w in self.visible_windows():
            arr = w.render(theme, w is kw or (kw is not None and kw.parent is w))
            layers.append((w, arr, w.rect, w.surface_serial))
        # everything below the front window is composed once and reused while it does not change
        below_key = (self._base_key, tuple((w.id, serial, rect) for w, _a, rect, serial in layers[:-1]))
        if below_key != self._below_key or self._below is None:
            below = base  # nothing below the front window: the base layer itself, no 3 MB copy
            if len(layers) > 1:
                below = self.buffers.below_layer()
                np.copyto(below, base)
                for w, arr, (x, y, ww, wh), _s in layers[:-1]:
                    composite.shadow(below, x, y, ww, wh, 100 if w.parent is None else 70)
                    composite.paste_window(below, arr, x, y)
            self._below_key, self._below = below_key, below
        dragging = self.pressed is not None and self.pressed.get("payload") is not None and self.pressed.get("dragging")
        overlay = self.menu is not None or dragging
        dock_shown = not self.settings.dock_autohide
        dock = self._dock_layer(theme) if dock_shown else None
        bar = self._menubar_layer(theme)
        # What the frame is composed from, but for the front window's pixels. While it stays the same,
        # the new frame is the last one with the front window pasted again (only its corners blend with
        # what is below), and every changed pixel lies inside the front window.
        front = layers[-1] if layers else None
        composition = (below_key, dock_shown, self._dock_key, self._bar_key, bool(overlay),
                       (front[0].id, front[2], front[0].parent is None) if front else None)
        incremental = front is not None and not overlay and composition == self._composition \
            and self._frame is not None and self._corners is not None
        # composed into the frame buffer not handed out last, so the caller can still compare with it
        frame = self.buffers.spare_frame(self._frame)
        within = None
        if incremental:
            w, arr, (x, y, ww, wh), _s = front
            np.copyto(frame, self._frame)
            composite.paste_window(frame, arr, x, y, under=self._corners)
            within = (x, y, x + ww, y + wh)
        else:
            np.copyto(frame, self._below)
            self._corners = None
            if front is not None:
                w, arr, (x, y, ww, wh), _s = front
                composite.shadow(frame, x, y, ww, wh, 120 if w.parent is None else 70)
                self._corners = composite.paste_window(frame, arr, x, y)
        if dock is not None:
            # the dock plate was composed over the wallpaper, so copying its whole rectangle is exact
            # except where a window reaches under the dock's rounded corners
            plate, _mask, (dx, dy) = dock
            frame[dy:dy + plate.shape[0], dx:dx + plate.shape[1]] = plate
        frame[:MENUBAR_H] = bar
        self._composition = composition
        if overlay:
            img = Image.fromarray(frame)
            d = Draw(img)
            if self.menu is not None:
                self.menu.draw(d, theme, *self.screen_size)
            if dragging:
                mx, my = self.mouse
                kind, items = self.pressed["payload"]
                label = f"{len(items)} items" if len(items) > 1 else (Path(items[0]).name if kind == "files" else str(items[0]))
                d.rounded_rectangle((mx + 8, my + 8, mx + 16 + text_width(label, 12), my + 28), 4, fill=theme.accent)
                d.text((mx + 12, my + 18), label, font=font(12), fill=(255, 255, 255), anchor="lm")
            frame = np.array(img)
        self._frame_gen = sig
        previous = self._frame
        changed = self._diff.box(frame, previous, within) if previous is not None else None
        if previous is not None and changed is None:
            return previous  # e.g. only the minute changed on a hidden clock: the same array again
        frame = frame.view()
        frame.flags.writeable = False
        self._frame = frame
        if previous is None:
            self._damage_log.clear()
        self._damage_log.append((weakref.ref(frame), changed))
        return frame

    def render_scaled(self, size: tuple[int, int]) -> np.ndarray:
        """The screen as ``render()`` downscaled to ``size`` (w, h) would look, composed at low
        resolution: each layer (the base, every window, the dock, the menu bar) is downscaled once per
        version and composed at 1/k of the screen (``composite.scale_factor``), shadows included; an
        open menu or a drag label is drawn at full size over its own rectangle only. No full-size frame
        is composed (``render()`` still makes one when asked). The same array comes back while the frame's
        signature is unchanged; arrays are read-only and never reused."""
        with self.drawing_pass():
            return self._render_scaled((int(size[0]), int(size[1])))

    def _render_scaled(self, size: tuple[int, int]) -> np.ndarray:
        sig = (self._signature(), size)
        if self._small_frame is not None and sig == self._small_gen:
            return self._small_frame
        sw, sh = self.screen_size
        k = composite.scale_factor(self.screen_size, size)
        cw, ch = composite.scaled(sw, k), composite.scaled(sh, k)
        theme = self.theme
        base = self._base_layer(theme)
        small_base = self._scaled_layer("sbase", self._base_key, base, (cw, ch), k)
        kw = self.key_window()
        windows = self.visible_windows()
        placed = []
        for w in windows:
            x, y, ww, wh = w.rect
            x0, y0 = composite.scaled(x, k), composite.scaled(y, k)
            x1, y1 = composite.scaled(x + ww, k), composite.scaled(y + wh, k)
            if x1 <= x0 or y1 <= y0 or x1 <= 0 or y1 <= 0 or x0 >= cw or y0 >= ch:
                continue
            arr = w.render_scaled(theme, w is kw or (kw is not None and kw.parent is w), (x1 - x0, y1 - y0), k,
                                  (x0 * k - x, y0 * k - y))
            placed.append((w, arr, (x, y, ww, wh), (x0, y0)))
        front = placed.pop() if placed and placed[-1][0] is windows[-1] else None
        radius = max(1, composite.scaled(composite.RADIUS, k))
        # everything below the front window is composed once and reused while it does not change
        below_key = (self._base_key, (cw, ch), tuple((w.id, w.small_serial, rect) for w, _a, rect, _p in placed))
        if below_key != self._small_below_key or self._small_below is None:
            below = small_base.copy()
            for w, arr, (x, y, ww, wh), (x0, y0) in placed:
                covered = composite.covered_box(x0, y0, arr.shape[1], arr.shape[0], radius)  # pasted over next
                composite.shadow_scaled(below, k, x, y, ww, wh, 100 if w.parent is None else 70, covered)
                composite.paste_window(below, arr, x0, y0, r=radius)
            below.flags.writeable = False
            self._small_below_key, self._small_below = below_key, below
        if front is not None:
            w, arr, (x, y, ww, wh), (x0, y0) = front
            opacity = 120 if w.parent is None else 70
            shadowed_key = (below_key, (x, y, ww, wh), opacity)  # the front window's shadow moves only with it
            if shadowed_key != self._small_shadowed_key or self._small_shadowed is None:
                shadowed = self._small_below.copy()
                # the front window (of this size, at this place) is pasted over every frame made from it
                covered = composite.covered_box(x0, y0, arr.shape[1], arr.shape[0], radius)
                composite.shadow_scaled(shadowed, k, x, y, ww, wh, opacity, covered)
                shadowed.flags.writeable = False
                self._small_shadowed_key, self._small_shadowed = shadowed_key, shadowed
            frame = self._small_shadowed.copy()
            composite.paste_window(frame, arr, x0, y0, r=radius)
        else:
            frame = self._small_below.copy()
        if not self.settings.dock_autohide:
            # the small dock is looked up by the dock's key first: a look seen before needs no full-size dock
            dx, dy, dw, dh, _items = self.dock_geometry()
            px0, py0 = composite.scaled(dx, k), composite.scaled(dy, k)
            px1, py1 = composite.scaled(dx + dw, k), composite.scaled(dy + dh, k)
            if px1 > px0 and py1 > py0:
                scaling = ((px1 - px0, py1 - py0), k, (px0 * k - dx, py0 * k - dy))
                small = _LAYERS.get(("sdock", self._dock_key_for(theme), *scaling))
                if small is None:
                    plate, _mask, _at = self._dock_layer(theme)
                    small = self._scaled_layer("sdock", self._dock_key, plate, *scaling)
                c = composite._clip(px0, py0, px1, py1, cw, ch)
                if c is not None:
                    frame[c[1]:c[3], c[0]:c[2]] = small[c[1] - py0:c[3] - py0, c[0] - px0:c[2] - px0]
        bar = self._menubar_layer(theme)
        bh = composite.scaled(MENUBAR_H, k)
        frame[:bh] = self._scaled_layer("sbar", self._bar_key, bar, (cw, bh), k)
        dragging = self.pressed is not None and self.pressed.get("payload") is not None and self.pressed.get("dragging")
        if self.menu is not None:
            mx, my, mw, mh = self.menu.layout(sw, sh)
            self._overlay_scaled(frame, k, (mx, my, mx + mw + 3, my + mh + 4),
                                 lambda d: self.menu.draw(d, theme, sw, sh))
        if dragging:
            mx, my = self.mouse
            kind, items = self.pressed["payload"]
            label = f"{len(items)} items" if len(items) > 1 else (Path(items[0]).name if kind == "files" else str(items[0]))
            tw = text_width(label, 12)

            def drag_label(d: Any) -> None:
                d.rounded_rectangle((mx + 8, my + 8, mx + 16 + tw, my + 28), 4, fill=theme.accent)
                d.text((mx + 12, my + 18), label, font=font(12), fill=(255, 255, 255), anchor="lm")

            self._overlay_scaled(frame, k, (mx + 6, my + 6, mx + 20 + tw, my + 31), drag_label)
        out = composite.area_resize(frame, size) if (cw, ch) != size else frame
        # a new array whenever the signature changed, even with the same pixels: the tracker reads the
        # accessibility tree again on a new array (a value may change below what a small frame shows)
        self._small_gen = sig
        out.flags.writeable = False
        self._small_frame = out
        return out

    def _scaled_layer(self, kind: str, key: tuple | None, layer: np.ndarray, size: tuple[int, int], k: int,
                      phase: tuple[int, int] = (0, 0)) -> np.ndarray:
        """A full-size layer (``key`` names its version) averaged over k×k blocks into ``size``
        (``composite.block_resize``), once (shared cache)."""
        skey = (kind, key, size, k, phase)
        small = _LAYERS.get(skey)
        if small is None:
            small = composite.block_resize(layer, size, k, phase)
            small.flags.writeable = False
            _LAYERS.put(skey, small)
        return small

    def _overlay_scaled(self, frame: np.ndarray, k: int, box: tuple[int, int, int, int], draw: Callable[[Any], None]) -> None:
        """Draw ``draw(d)`` (screen coordinates) over ``frame`` composed at 1/k, within the screen box
        ``box``: the box (widened to whole k×k blocks) is blown up from the frame, drawn on at full size
        and averaged back down, so only the pixels the drawing touches change."""
        ch, cw = frame.shape[:2]
        bx0, by0 = max(0, box[0] // k), max(0, box[1] // k)
        bx1, by1 = min(cw, -(-box[2] // k)), min(ch, -(-box[3] // k))
        if bx1 <= bx0 or by1 <= by0:
            return
        region = frame[by0:by1, bx0:bx1]
        big = np.ascontiguousarray(np.repeat(np.repeat(region, k, axis=0), k, axis=1))
        img = Image.fromarray(big)
        draw(composite.Shifted(Draw(img), bx0 * k, by0 * k))
        region[:] = composite.area_resize(np.asarray(img), (bx1 - bx0, by1 - by0))

    def damage_since(self, earlier: np.ndarray) -> Box | None:
        """A box outside which the current frame equals ``earlier`` (a frame this desktop returned a few
        frames ago; empty (0, 0, 0, 0) if it is the current one), or None when that is not known."""
        if earlier is self._frame:
            return (0, 0, 0, 0)
        x0, y0, x1, y1 = self.screen_size[0], self.screen_size[1], 0, 0
        for i in range(len(self._damage_log) - 1, 0, -1):
            _frame, (bx0, by0, bx1, by1) = self._damage_log[i]
            x0, y0, x1, y1 = min(x0, bx0), min(y0, by0), max(x1, bx1), max(y1, by1)
            if self._damage_log[i - 1][0]() is earlier:
                return x0, y0, x1, y1
        return None

    def _base_layer(self, theme: Theme) -> np.ndarray:
        entries = self.desktop_entries()
        files = tuple((e.name, e.kind == "dir") for e in entries)
        key = ("base", self.settings.wallpaper, theme.key, files, tuple(self.desktop_selection), self.screen_size)
        if key == self._base_key and self._base is not None:
            return self._base
        cached = _LAYERS.get(key)
        if cached is not None:
            self._icon_rects = self.desktop_icon_layout()
            self._base_key, self._base = key, cached
            return cached
        img = wallpaper(self.settings.wallpaper, self.screen_size, theme.dark).copy()
        d = Draw(img)
        self._icon_rects = self.desktop_icon_layout()
        folders = {name for name, is_dir in files if is_dir}
        for name, (x, y, w, h) in self._icon_rects:
            ic = load_icon("folder" if name in folders else "document", 52)
            if name in self.desktop_selection:
                d.rounded_rectangle((x + 20, y, x + 76, y + 56), 6, fill=(90, 90, 100))
            img.paste(ic, (x + 22, y + 2), ic)
            label = fit_text(name, 94, 12)
            tw = text_width(label, 12)
            if name in self.desktop_selection:
                d.rounded_rectangle((x + 48 - tw // 2 - 4, y + 60, x + 48 + tw // 2 + 4, y + 76), 4, fill=theme.accent)
            else:
                d.text((x + 49, y + 69), label, font=font(12), fill=(0, 0, 0), anchor="mm")
            d.text((x + 48, y + 68), label, font=font(12), fill=(255, 255, 255), anchor="mm")
        self._base_key, self._base = key, np.array(img)
        self._base.flags.writeable = False
        _LAYERS.put(key, self._base)
        return self._base

    def _dock_key_for(self, theme: Theme) -> tuple:
        """The key of the dock layer as it looks now (what ``_dock_layer`` draws)."""
        running = tuple(a.name for a in self.apps.values() if a.running)
        trash_full = self.apps["Finder"].trash_count() > 0 if "Finder" in self.apps else False
        return ("dock", theme.key, running, self.now.day, self.now.weekday(), trash_full, self.settings.wallpaper,
                self.screen_size)

    def _dock_layer(self, theme: Theme) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
        day = self.now.day
        key = self._dock_key_for(theme)
        running, trash_full = key[2], key[5]
        if key == self._dock_key and self._dock is not None:
            return self._dock
        cached = _LAYERS.get(key)
        if cached is not None:
            self._dock_key, self._dock = key, cached
            return cached
        # the plate without the running apps' dots is drawn once per look; the dots (below the icons, where
        # nothing else is drawn) go on a copy, so launching an app costs a copy, not a redraw
        x, y, w, h, items = self.dock_geometry()
        plate_key = ("dockp", theme.key, day, self.now.weekday(), trash_full, self.settings.wallpaper, self.screen_size)
        plate = _LAYERS.get(plate_key)
        if plate is None:
            region = wallpaper(self.settings.wallpaper, self.screen_size, theme.dark).crop((x, y, x + w, y + h)).convert("RGBA")
            overlay = Image.new("RGBA", (w, h), (0, 0, 0, 0))
            ImageDraw.Draw(overlay).rounded_rectangle((0, 0, w - 1, h - 1), 18, fill=theme.dock_tint,
                                                      outline=(255, 255, 255, 70) if not theme.dark else (120, 120, 120, 90))
            region = Image.alpha_composite(region, overlay)
            rd = ImageDraw.Draw(region)
            for name, ix in items:
                lx = ix - x
                if name == "|":
                    rd.line((lx + 5, 10, lx + 5, h - 10), fill=(150, 150, 150, 200), width=1)
                    continue
                # only Calendar's icon shows the date: the others are cached once, not once per day
                ic = load_icon(name, DOCK_ICON, day, self.now.strftime("%a").upper()) if name == "Calendar" else load_icon(name, DOCK_ICON)
                region.alpha_composite(ic, (lx, DOCK_PAD))
                if name == "Trash" and trash_full:
                    for k in range(3):
                        rd.rectangle((lx + 15 + k * 6, DOCK_PAD + 4, lx + 19 + k * 6, DOCK_PAD + 12), fill=(255, 255, 255, 230))
            plate = np.array(region.convert("RGB"))
            plate.flags.writeable = False
            _LAYERS.put(plate_key, plate)
        img = Image.fromarray(plate)  # a copy to draw the dots on
        rd = ImageDraw.Draw(img)
        for name, ix in items:
            if name != "|" and name in running:
                lx = ix - x
                rd.ellipse((lx + DOCK_ICON // 2 - 2, h - 7, lx + DOCK_ICON // 2 + 2, h - 3),
                           fill=(40, 40, 40) if not theme.dark else (230, 230, 230))
        mask = np.asarray(rounded_mask(w, h, 18)) > 127
        self._dock_key = key
        self._dock = (np.array(img), mask, (x, y))
        _LAYERS.put(key, self._dock)
        return self._dock

    def _menubar_layout(self) -> list[tuple[str, int, int]]:
        """(title, x0, x1) of the menu bar's menus (once per drawing pass: the frame and the tree both ask)."""
        return self.pass_memo("menubar_layout", self._compute_menubar_layout)

    def _compute_menubar_layout(self) -> list[tuple[str, int, int]]:
        rects = []
        x = 12
        for i, (title, _items) in enumerate(self.menubar_menus()):
            if title == "\uf8ff":
                rects.append((title, x, x + 22))
                x += 30
                continue
            tw = text_width(title, 13, "bold" if i == 1 else "regular")
            rects.append((title, x, x + tw + 18))
            x += tw + 18
        return rects

    def wifi_extra_x(self) -> int:
        """Left edge of the Wi‑Fi icon in the menu bar."""
        return self.screen_size[0] - 24 - text_width(self.clock_text(), 13) - 52

    def clock_text(self) -> str:
        t = self.now
        hour = t.hour % 12 or 12
        return f"{t.strftime('%a')} {t.strftime('%b')} {t.day}  {hour}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"

    def _menubar_layer(self, theme: Theme) -> np.ndarray:
        sw, _ = self.screen_size
        rects = self._menubar_layout()
        open_title = self.menu.title if self.menu is not None else None
        wifi = self.settings.wifi
        key = ("bar", theme.key, tuple(rects), open_title, self.clock_text(), wifi, self.settings.wallpaper, self.screen_size)
        if key != self._bar_key and key in _LAYERS:
            self._bar_key, self._bar = key, _LAYERS.get(key)
            self._bar_rects = rects
        if key != self._bar_key or self._bar is None:
            fg = theme.menubar_text
            # the menus' side is drawn once per look; the clock and the status icons (drawn after it, as
            # before) go on a copy, so a new minute costs a copy and a few glyphs, not a redraw
            left_key = ("barl", theme.key, tuple(rects), open_title, self.settings.wallpaper, self.screen_size)
            left = _LAYERS.get(left_key)
            if left is None:
                base = wallpaper(self.settings.wallpaper, self.screen_size, theme.dark).crop((0, 0, sw, MENUBAR_H)).convert("RGBA")
                bar = Image.alpha_composite(base, Image.new("RGBA", (sw, MENUBAR_H), theme.menubar_tint)).convert("RGB")
                d = Draw(bar)
                for i, (title, x0, x1) in enumerate(rects):
                    if title == open_title:
                        d.rounded_rectangle((x0 - 4, 2, x1 - 6, MENUBAR_H - 3), 4, fill=theme.selection)
                    if title == "\uf8ff":
                        _draw_apple(d, x0 + 4, 4, fg)
                    else:
                        d.text((x0 + 4, MENUBAR_H // 2), title, font=font(13, "bold" if i == 1 else "regular"), fill=fg, anchor="lm")
                left = np.array(bar)
                left.flags.writeable = False
                _LAYERS.put(left_key, left)
            bar = Image.fromarray(left)
            d = Draw(bar)
            ct = self.clock_text()
            d.text((sw - 14, MENUBAR_H // 2), ct, font=font(13), fill=fg, anchor="rm")
            cx = sw - 24 - text_width(ct, 13)
            _draw_control_center(d, cx - 18, 6, fg)
            _draw_wifi(d, cx - 50, 5, fg, wifi)
            _draw_battery(d, cx - 92, 7, fg)
            self._bar_key, self._bar = key, np.asarray(bar)
            self._bar_rects = rects
            _LAYERS.put(key, self._bar)
        return self._bar

    # ------------------------------------------------------------------------------ a11y
    def accessibility_tree(self) -> str:
        """What is on screen: one line per element with role, name, value and [x, y, w, h]."""
        with self.drawing_pass():
            return self._accessibility_tree()

    def _accessibility_tree(self) -> str:
        sw, sh = self.screen_size
        lines = [f'AXScreen [0, 0, {sw}, {sh}]']
        app = self.active
        lines.append(f'  AXMenuBar [0, 0, {sw}, {MENUBAR_H}]')
        for i, (title, x0, x1) in enumerate(self._menubar_layout()):
            name = "Apple" if title == "\uf8ff" else title
            lines.append(f'    AXMenuBarItem "{name}" [{x0}, 0, {x1 - x0}, {MENUBAR_H}]')
        lines.append(f'    AXMenuExtra "Clock" value="{self.clock_text()}" [{sw - 14 - text_width(self.clock_text(), 13)}, 0, '
                     f'{text_width(self.clock_text(), 13)}, {MENUBAR_H}]')
        lines.append(f'    AXMenuExtra "Wi‑Fi" value="{"on" if self.settings.wifi else "off"}" '
                     f'[{self.wifi_extra_x()}, 0, 24, {MENUBAR_H}]')
        if self.menu is not None:
            x, y, w, h = self.menu.layout(sw, sh)
            lines.append(f'  AXMenu "{self.menu.title or "context menu"}" [{x}, {y}, {w}, {h}]')
            for it, (ix, iy, iw, ih) in zip(self.menu.items, self.menu.rects):
                if it.separator:
                    continue
                fl = ("" if it.enabled else " disabled") + (" checked" if it.checked else "")
                sc = f' shortcut="{it.shortcut_label()}"' if it.shortcut else ""
                lines.append(f'    AXMenuItem "{it.title}"{sc} [{ix}, {iy}, {iw}, {ih}]{fl}')
        kw = self.key_window()
        for w in reversed(self.visible_windows()):
            if w.parent is not None:
                continue
            lines.append(f'  AXApplication "{w.app.name}"' + (" frontmost" if w.app is app else ""))
            lines.extend(w.a11y_lines("    ", w is kw or (kw is not None and kw.parent is w)))
            if w.sheet is not None:
                lines.extend(w.sheet.a11y_lines("      ", w.sheet is kw))
        if self._icon_rects or self.desktop_files():
            lines.append("  AXGroup \"Desktop\"")
            for name, (x, y, w, h) in self.desktop_icon_layout():
                fl = " selected" if name in self.desktop_selection else ""
                lines.append(f'    AXImage "{name}" [{x}, {y}, {w}, {h}]{fl}')
        x, y, w, h, items = self.dock_geometry()
        lines.append(f"  AXList \"Dock\" [{x}, {y}, {w}, {h}]")
        running = {a.name for a in self.apps.values() if a.running}
        for name, ix in items:
            if name == "|":
                continue
            fl = " running" if name in running else ""
            lines.append(f'    AXDockItem "{name}" [{ix}, {y + DOCK_PAD}, {DOCK_ICON}, {DOCK_ICON}]{fl}')
        return "\n".join(lines)

    # ------------------------------------------------------------------------------ time
    def advance(self, seconds: float) -> None:
        """Move the simulated clock forward (timers count down, alarms may fire)."""
        self.now = self.now + timedelta(seconds=seconds)
        if "Clock" in self.apps:
            self.apps["Clock"].tick()
        self.gen += 1


def _looks_text(files: ConfinedDir, path: Path) -> bool:
    """Whether the regular file ``path`` of the home starts like UTF-8 text (its first 2 KB, nothing more)."""
    try:
        chunk = files.read_head(path, 2048)
        chunk.decode("utf-8")
        return b"\x00" not in chunk
    except (OSError, UnicodeDecodeError):
        return False


def _draw_apple(d: ImageDraw.ImageDraw, x: int, y: int, fg: tuple) -> None:
    """The Apple logo from two circles, a bite and a leaf (no font has the glyph)."""
    d.ellipse((x, y + 3, x + 9, y + 15), fill=fg)
    d.ellipse((x + 5, y + 3, x + 14, y + 15), fill=fg)
    d.polygon([(x + 2, y + 12), (x + 12, y + 12), (x + 7, y + 16)], fill=fg)
    d.polygon([(x + 7, y + 3), (x + 10, y - 1), (x + 11, y + 0), (x + 8, y + 3)], fill=fg)


def _draw_wifi(d: ImageDraw.ImageDraw, x: int, y: int, fg: tuple, on: bool) -> None:
    c = fg if on else (150, 150, 150)
    for r in (12, 8, 4):
        d.arc((x + 8 - r, y + 12 - r, x + 8 + r, y + 12 + r), 225, 315, fill=c, width=2)
    d.ellipse((x + 6, y + 10, x + 10, y + 14), fill=c)
    if not on:
        d.line((x, y + 2, x + 16, y + 14), fill=c, width=2)


def _draw_battery(d: ImageDraw.ImageDraw, x: int, y: int, fg: tuple) -> None:
    d.rounded_rectangle((x, y, x + 22, y + 10), 3, outline=fg)
    d.rectangle((x + 2, y + 2, x + 17, y + 8), fill=fg)
    d.rectangle((x + 23, y + 3, x + 24, y + 7), fill=fg)


def _draw_control_center(d: ImageDraw.ImageDraw, x: int, y: int, fg: tuple) -> None:
    d.rounded_rectangle((x, y, x + 14, y + 5), 3, outline=fg)
    d.ellipse((x + 1, y + 1, x + 4, y + 4), fill=fg)
    d.rounded_rectangle((x, y + 7, x + 14, y + 12), 3, outline=fg)
    d.ellipse((x + 10, y + 8, x + 13, y + 11), fill=fg)

