"""``SimBackend``: the embedded macOS-like desktop behind the ``MacBackend`` interface."""

from __future__ import annotations

import contextlib
import functools
import os
import posixpath
import stat
import traceback
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from mmenvs.core.budget import DEFAULT_BUDGET
from mmenvs.core.confined import ConfinedDir, ConfinementError

from ..base import BackendError, MacBackend, ShellOutput, mouse_button, screen_point
from . import composite
from .apps import app_classes
from .desktop import Desktop
from .keys import canonical
from .shells import HOME_ALIASES, ShellSessions
from .skills_home import install_skills, shipped_skills
from ...skills import Skill



class SimInternalError(RuntimeError):
    """A fault inside the simulated desktop while handling valid input (a bug in the sim, not the
    agent's mistake); the original exception is chained as ``__cause__``. It is not a
    ``BackendError`` (the agent did nothing wrong): the env reports the step's error as "internal"
    and calls :meth:`SimBackend.recover`, which restarts ``app``, the app it came from (None: unknown)."""

    def __init__(self, message: str, app: str | None = None) -> None:
        super().__init__(message)
        self.app = app


def _guarded(fn: Any) -> Any:
    """Let ``BackendError`` through; turn any other exception into ``SimInternalError`` naming the
    app whose code raised it."""

    @functools.wraps(fn)
    def run(self: "SimBackend", *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except BackendError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported with its type, message and traceback chained
            app = None
            if self.desktop is not None:
                self.desktop.pressed = None  # do not leave a half-finished drag behind
                self.desktop.invalidate()
                app = _faulting_app(exc, self.desktop)
            where = f" in {app}" if app else ""
            raise SimInternalError(f"internal error in the simulated desktop{where} during {fn.__name__}: "
                                   f"{type(exc).__name__}: {_bounded(str(exc))}", app) from exc

    return run


class SimBackend(MacBackend):
    """A simulated macOS desktop: Pillow-rendered screen, apps with real state, a real confined
    shell over the episode's home folder, and AppleScript for the apps.

    ``screen_size`` is (width, height). ``shell_timeout`` bounds one shell command (seconds);
    ``max_output_chars`` caps what one command returns. ``web_pages`` maps URL → HTML for Safari
    (replace per task with :meth:`set_web_pages`).
    """

    dedups_frames = True  # screenshot() returns a new array only when the pixels changed
    simulated_clock = True  # the clock is the task's reference time, moved only by advance_time()

    def __init__(self, screen_size: tuple[int, int] = (1280, 800), *, shell_timeout: float = 10.0,
                 max_output_chars: int = 20000, web_pages: dict[str, str] | None = None) -> None:
        w, h = int(screen_size[0]), int(screen_size[1])
        if w < 640 or h < 400:
            raise ValueError(f"screen_size {screen_size!r} is too small; the desktop needs at least 640×400")
        self.screen_size = (w, h)
        self.shell_timeout = shell_timeout
        self.max_output_chars = max_output_chars
        self.budget = DEFAULT_BUDGET  # the episode budget (MacAgentEnv sets its own): home quota, AppleScript, media
        self.web_pages: dict[str, str] = dict(web_pages or {})
        self.desktop: Desktop | None = None
        self.home: Path | None = None
        self.shells = ShellSessions(self)  # "main": the agent's shell; "aux": do shell script / nested calls
        self.applescript_host: Any = None  # the episode's AppleScript host (bridge.SimHost), made on first use
        self.prefs: Any = None
        self._closed = False
        self._frame_buffers = composite.FrameBuffers(self.screen_size)  # reused by every episode's desktop

    # ------------------------------------------------------------------ lifecycle
    def reset(self, *, now: datetime, home: Path) -> None:
        """Fresh desktop at ``now`` over an emptied ``home`` with Desktop, Documents and Downloads."""
        if self._closed:
            raise BackendError("the backend was closed; create a new SimBackend")
        home = Path(home)
        if self.desktop is not None:
            self.desktop.release()
        self.home = home
        # The last episode's processes (a tmux server, its panes' programs) stop before the home
        # is emptied: still running, they could write into the next episode's home.
        self.shells.new_episode()
        _wipe(home)
        desk = Desktop(self.screen_size, home, now.replace(tzinfo=None) if now.tzinfo else now,
                       buffers=self._frame_buffers)
        for cls in app_classes():
            desk.register(cls(desk))
        desk.apps["Safari"].pages = self.web_pages
        # The standard folders are kept across episodes (emptied, not recreated): their modification time is
        # the episode's start, as a new folder's would be. Left as it was, a folder last changed more than a
        # second before this reset showed that host time in Finder (and an observation depended on timing).
        for name in STANDARD_DIRS:
            desk.home_files.set_mtime(name, desk.apps["Finder"].reset_host_time)
        desk.active = desk.apps["Finder"]
        desk.backend = self
        self.desktop = desk
        install_skills(desk)  # ~/.openclaw/skills/<name>/SKILL.md of the skill CLIs the sim ships
        from .bridge import Preferences

        self.prefs = Preferences(self)
        self.applescript_host = None

    def recover(self, error: BaseException) -> str:
        """Repair the desktop after an internal error ``error`` (a fault of the sim, see
        :class:`SimInternalError`): the app whose code raised it is restarted, as a crashed app is on
        a Mac (its windows close, its unsaved state is gone; files stay), and menus and drags in
        progress end. Returns what was done, for the agent; "" when no app was at fault."""
        desk = self.desktop
        if desk is None:
            return ""
        desk.menu = None
        desk.pressed = None
        desk.mods = set()
        desk.invalidate()
        name = error.app if isinstance(error, SimInternalError) and error.app else _faulting_app(error, desk)
        if name is None or name not in desk.apps:
            return ""
        self.restart_app(name)
        return f"{name} quit unexpectedly and was restarted (its windows closed; files on disk are kept)."

    def restart_app(self, name: str) -> None:
        """Replace app ``name`` by a fresh instance: its windows close without asking, its state is new."""
        desk = self.current_desktop()
        old = desk.apps[name]
        for win in [w for w in desk.windows if w.app is old]:
            win.release()
        desk.windows = [w for w in desk.windows if w.app is not old]
        fresh = type(old)(desk)
        desk.apps[name] = fresh
        if name == "Safari":
            fresh.pages = self.web_pages
        if desk.active is old:
            desk.active = desk.apps["Finder"]
        desk.invalidate()

    def close(self) -> None:
        """Stop the shell worker. Idempotent."""
        self.shells.close()
        self._closed = True

    def skills(self) -> tuple[Skill, ...]:
        """The skills installed in every episode home (``~/.openclaw/skills``): those whose CLIs the sim ships."""
        return shipped_skills()

    def set_web_pages(self, pages: dict[str, str]) -> None:
        """The offline web Safari (and ``curl``) serve: URL → HTML-ish text."""
        self.web_pages = dict(pages)
        if self.desktop is not None:
            self.desktop.apps["Safari"].pages = self.web_pages

    def advance_time(self, seconds: float) -> None:
        """Move the sim clock forward (e.g. for WAIT or sleep actions): timers count down."""
        self.current_desktop().advance(seconds)

    def app(self, name: str) -> Any:
        """The app object called ``name`` (see the package docstring for each app's API)."""
        try:
            return self.current_desktop().app(name)
        except KeyError:
            raise BackendError(f"no app named {name!r}; apps: {', '.join(self.current_desktop().apps)}") from None

    def app_state(self, name: str) -> dict[str, Any]:
        """``app(name).state()``: the app's state as JSON-able data."""
        return self.app(name).state()

    def current_desktop(self) -> Desktop:
        """The current episode's desktop; ``BackendError`` before the first :meth:`reset`."""
        if self.desktop is None:
            raise BackendError("the backend has not been reset yet; call reset(now=..., home=...) first")
        return self.desktop

    # ------------------------------------------------------------------ observation
    @_guarded
    def screenshot(self) -> np.ndarray:
        """The screen as an H×W×3 uint8 RGB array, read-only. While nothing on screen changes the same
        array comes back; it stays valid until the next changed frame has been returned, after which its
        memory is reused (copy a frame to keep it)."""
        return self.current_desktop().render()

    @_guarded
    def screenshot_scaled(self, size: tuple[int, int]) -> np.ndarray | None:
        """The screen composed at low resolution and downscaled to ``size`` (width, height): close to
        ``screenshot()`` downscaled by area averaging (``Desktop.render_scaled``), without composing a
        full-size frame. None when ``size`` is not much smaller than the screen (under half of it along
        an axis): the full frame costs little more there. The same array comes back while nothing changed."""
        if composite.scale_factor(self.screen_size, size) < 2:
            return None
        return self.current_desktop().render_scaled(size)

    def observing(self) -> contextlib.AbstractContextManager:
        """One drawing pass of the desktop (``Desktop.drawing_pass``): the frame and the accessibility
        tree of one observation share their folder listings and the menu bar's layout."""
        return self.desktop.drawing_pass() if self.desktop is not None else contextlib.nullcontext()

    def damage_since(self, earlier: np.ndarray) -> tuple[int, int, int, int] | None:
        """A box (x0, y0, x1, y1) outside which the current frame equals ``earlier``, a frame
        ``screenshot()`` returned within the last few changes; None when that is not known."""
        return self.desktop.damage_since(earlier) if self.desktop is not None else None

    @_guarded
    def accessibility_tree(self) -> str:
        """What is on screen: one line per element with role, name, value and [x, y, w, h]."""
        return self.current_desktop().accessibility_tree()

    # ------------------------------------------------------------------ GUI input

    @_guarded
    def mouse_move(self, x: int, y: int) -> None:
        xi, yi = screen_point(x, y, self.screen_size)
        self.current_desktop().mouse_move(xi, yi)

    @_guarded
    def mouse_down(self, button: str = "left") -> None:
        self.current_desktop().mouse_down(mouse_button(button), 1)

    @_guarded
    def mouse_up(self, button: str = "left") -> None:
        self.current_desktop().mouse_up(mouse_button(button))

    @_guarded
    def click(self, x: int, y: int, button: str = "left", clicks: int = 1) -> None:
        xi, yi = screen_point(x, y, self.screen_size)
        b = mouse_button(button)
        try:
            n = int(clicks)
        except (TypeError, ValueError):
            raise BackendError(f"clicks must be a positive integer, got {clicks!r}") from None
        if not 1 <= n <= 3:
            raise BackendError(f"clicks must be 1, 2 or 3, got {clicks!r}")
        d = self.current_desktop()
        d.mouse_move(xi, yi)
        for i in range(1, n + 1):
            d.mouse_down(b, i)
            d.mouse_up(b)

    @_guarded
    def drag_to(self, x: int, y: int, button: str = "left") -> None:
        xi, yi = screen_point(x, y, self.screen_size)
        b = mouse_button(button)
        d = self.current_desktop()
        sx, sy = d.mouse
        d.mouse_down(b, 1)
        # intermediate points so drag thresholds and hover targets see a real path
        for t in (0.25, 0.5, 0.75):
            d.mouse_move(int(sx + (xi - sx) * t), int(sy + (yi - sy) * t))
        d.mouse_move(xi, yi)
        d.mouse_up(b)

    @_guarded
    def scroll(self, amount: int, x: int | None = None, y: int | None = None) -> None:
        try:
            n = int(amount)
        except (TypeError, ValueError):
            raise BackendError(f"scroll amount must be an integer, got {amount!r}") from None
        d = self.current_desktop()
        if x is not None or y is not None:
            xi, yi = screen_point(d.mouse[0] if x is None else x, d.mouse[1] if y is None else y, self.screen_size)
            d.mouse_move(xi, yi)
        d.scroll(n)

    def _key(self, key: str) -> tuple[str, str]:
        try:
            return canonical(key)
        except KeyError:
            raise BackendError(f"unknown key name {key!r}; use pyautogui names such as 'enter', 'esc', 'tab', "
                               "'command', 'shift', 'left', 'a'") from None

    @_guarded
    def key_down(self, key: str) -> None:
        kind, name = self._key(key)
        d = self.current_desktop()
        if kind == "modifier":
            d.mods.add(name)
            d.gen += 1
        else:
            d.key_press(name, kind)

    @_guarded
    def key_up(self, key: str) -> None:
        kind, name = self._key(key)
        if kind == "modifier":
            self.current_desktop().mods.discard(name)

    @_guarded
    def press(self, key: str) -> None:
        kind, name = self._key(key)
        if kind != "modifier":
            self.current_desktop().key_press(name, kind)

    @_guarded
    def hotkey(self, *keys: str) -> None:
        if not keys:
            raise BackendError("hotkey needs at least one key")
        parsed = [self._key(k) for k in keys]  # validate all before acting: state stays unchanged on error
        d = self.current_desktop()
        held = set(d.mods)
        try:
            for kind, name in parsed:
                if kind == "modifier":
                    d.mods.add(name)
                else:
                    d.key_press(name, kind)
        finally:
            d.mods = held  # the chord is released even when a key's action failed

    @_guarded
    def type_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise BackendError(f"text to type must be a string, got {type(text).__name__}")
        d = self.current_desktop()
        for ch in text:
            if ch in "\n\r":
                d.key_press("return", "named")
            elif ch == "\t":
                d.key_press("tab", "named")
            elif ch == "\b":
                d.key_press("backspace", "named")
            elif "command" in d.mods or "ctrl" in d.mods:
                d.key_press(ch.lower(), "char")
            else:
                d.type_char(ch)

    # ------------------------------------------------------------------ scripting
    def run_shell(self, command: str, timeout: float | None = None) -> ShellOutput:
        """Run ``command`` in the episode's persistent shell, confined to the home folder."""
        return self.shells.run(command, timeout)

    def run_applescript(self, source: str) -> str:
        """Run AppleScript as ``osascript`` would; raises ``AppleScriptError`` with osascript's error text."""
        from .bridge import run_applescript

        return run_applescript(self, source)

    @_guarded
    def open_app(self, app: str) -> None:
        """Launch (or activate) ``app`` by name, e.g. "Notes"."""
        d = self.current_desktop()
        try:
            a = d.app(app)
        except KeyError:
            raise BackendError(f"Unable to find application named '{app}'. Apps: {', '.join(d.apps)}") from None
        d.activate(a)

    # ------------------------------------------------------------------ paths
    @property
    def posix_home(self) -> str:
        """The home folder as the shell and scripts see it (``/Users/user`` under bubblewrap)."""
        return self.shells.home_in_sandbox or "/Users/user"

    def posix_path(self, path: Path) -> str:
        """Host path inside the home → the path the agent sees (lexical: nothing on disk is looked at).
        A path outside the home is never shown: it becomes a placeholder."""
        files = self.current_desktop().home_files
        try:
            parts = files.parts(path)
        except ConfinementError:
            return "(a path outside the home folder)"
        return "/".join((self.posix_home.rstrip("/"), *parts)) if parts else self.posix_home

    def host_path(self, text: str) -> Path:
        """A path the agent wrote (``/Users/user/…``, ``~/…``, ``file://…``, HFS ``Macintosh HD:…``) → host path.
        The public tasks' fixed home (``/Users/pipiwu/…``, ``shells.HOME_ALIASES``) names the same home.

        Translation is lexical (``a/../b`` is collapsed as text, nothing is resolved): whether the
        path may be used — no symlink followed, regular files only — is decided when the file is
        opened through ``desktop.home_files``. Raises ``BackendError`` for paths outside the home
        folder and for a NUL byte."""
        from ...applescript.values import hfs_to_posix

        t = str(text)
        if "\0" in t:
            raise BackendError("a path may not contain a NUL byte")
        if t.startswith("file://"):
            t = t[7:]
        t = hfs_to_posix(t)
        home = self.current_desktop().home
        ph = self.posix_home.rstrip("/")
        if t == "~" or t.startswith("~/"):
            t = ph + t[1:]
        for prefix in (ph, *HOME_ALIASES, str(home)):
            if t == prefix or t.startswith(prefix + "/"):
                rel = posixpath.normpath("/" + t[len(prefix):].lstrip("/")).lstrip("/")
                return home.joinpath(*rel.split("/")) if rel else home
        raise BackendError(f"{text} is outside the home folder {ph}")

    def check_in_home(self, path: Path) -> None:
        """``BackendError`` unless ``path`` names an entry inside the home folder (lexically: no ``..``,
        no NUL, under the home's host path). What the entry is gets checked when it is opened."""
        try:
            self.current_desktop().home_files.parts(path)
        except ConfinementError as exc:
            raise BackendError(str(exc)) from None

    def shell_cwd(self) -> str:
        """The shell's working directory as the agent sees it."""
        return self.shells.cwd or self.posix_home

    def shell_cwd_display(self) -> str:
        cwd = self.shell_cwd().rstrip("/")
        ph = self.posix_home.rstrip("/")
        if cwd == ph:
            return "~"
        return cwd.rsplit("/", 1)[-1] or "/"


STANDARD_DIRS = ("Desktop", "Documents", "Downloads", ".Trash", "Library")


def _faulting_app(error: BaseException, desk: Desktop) -> str | None:
    """The name of the app whose code raised ``error``: the innermost frame (of the error and the
    errors it was raised from) running a method of one of ``desk``'s apps, of a window (its app) or of
    a widget in a window. None when no app's code was running (the desktop's own code)."""
    from .apps.base import App
    from .window import Window

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = [frame for frame, _line in traceback.walk_tb(current.__traceback__)]
        for frame in reversed(frames):  # innermost first
            owner = frame.f_locals.get("self")
            if isinstance(owner, Window):
                owner = owner.app
            elif not isinstance(owner, App) and isinstance(getattr(owner, "win", None), Window):
                owner = owner.win.app
            if isinstance(owner, App) and desk.apps.get(owner.name) is owner:
                return owner.name
        current = current.__cause__ or current.__context__
    return None


def _bounded(message: str, limit: int = 300) -> str:
    """An error message cut to ``limit`` characters (it may quote a huge agent input)."""
    return message if len(message) <= limit else message[:limit] + f"… [{len(message) - limit} more characters]"


def _wipe(home: Path, keep: tuple[str, ...] = STANDARD_DIRS) -> ConfinedDir:
    """Empty ``home`` (creating it if needed) without following symlinks out of it: every entry is
    removed through the confined layer (by directory fds, links removed as links). The standard
    folders are emptied but kept (cheaper than removing and recreating them every episode), and made
    where missing. Returns the home's layer."""
    try:
        info = os.lstat(home)  # the home's own path is the env's (trusted); what is inside is the agent's
    except FileNotFoundError:
        os.makedirs(home)
        info = os.lstat(home)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise BackendError(f"home {home} is not a real directory; give a real directory")
    files = ConfinedDir(home)
    kept = set()
    for entry in files.listdir(stat=False):
        if entry.kind == "dir" and entry.name in keep:
            files.clear(entry.name)
            kept.add(entry.name)
        else:
            files.rmtree(entry.name)
    for name in keep:
        if name not in kept:
            files.mkdir(name)
    return files
