"""What every simulated app shares: lifecycle (launch, activate, reopen, quit), windows, the
standard menus (app menu, Edit, Window), a version counter that invalidates cached drawing, and
``state()`` for Python getters."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..menus import MenuItem, sep

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..backend import SimBackend
    from ..desktop import Desktop
    from ..window import Window


@dataclass
class CommandContext:
    """What an app's shell command can use besides argv and stdin: ``resolve`` turns a path as the
    shell wrote it (absolute in the sandbox, ``~``-relative or relative to the shell's cwd) into the
    host path; ``posix`` turns a host path back into the path the agent sees."""

    backend: "SimBackend"
    resolve: Callable[[str], Path]
    posix: Callable[[Path], str]


class App:
    """Base of the simulated apps. Subclasses set ``name`` and implement ``new_window`` and
    ``state``; they add their own menus in ``app_menus``."""

    name = "App"
    bundle_id = "com.apple.app"
    text_editing = True  # has an Edit menu acting on the focused text field
    in_dock = True
    # a faceless app (LSBackgroundOnly, e.g. Image Events): launching it never brings it to the front
    background_only = False
    # suffixes of the document types this app owns: Finder double-clicks and ``open`` send them here
    # (only the app's own formats: generic text goes to TextEdit)
    open_suffixes: frozenset[str] = frozenset()
    # URL schemes ``open <scheme>://…`` hands to this app (e.g. "obsidian")
    url_schemes: frozenset[str] = frozenset()
    # commands the app answers in the episode's shell: name → whether the command reads its stdin
    # (commands that do not are given /dev/null, so a ``while read`` loop keeps its input), or shell
    # code deciding it per call (it sets ``__mm_in=0`` when this call reads nothing; see bridge.py)
    shell_commands: dict[str, bool | str] = {}
    # web hosts the app answers for Safari and ``curl`` (an offline site or API such as "wttr.in"): see ``serve_web``
    web_hosts: frozenset[str] = frozenset()
    # shell code (functions, exported variables) every episode shell runs when it starts
    shell_init: str = ""
    # process names (``/proc/<pid>/comm``) a shell command may leave running until the episode ends
    daemons: tuple[str, ...] = ()

    def __init__(self, desktop: "Desktop") -> None:
        self.desktop = desktop
        self.version = 0
        self.running = False
        self.hidden = False

    # ------------------------------------------------------------------ lifecycle
    @property
    def icon_name(self) -> str:
        return self.name

    def touch(self) -> None:
        """Mark the app's model changed: every window of the app is rebuilt and redrawn."""
        self.version += 1

    @property
    def windows(self) -> list["Window"]:
        """Top-level windows of this app, front-most first."""
        return [w for w in reversed(self.desktop.windows) if w.app is self and w.parent is None and w.kind != "spotlight"]

    def launch(self) -> None:
        self.running = True

    def reopen(self) -> None:
        """Activated with no visible window (dock click, ``open -a``): open the main window."""
        visible = [w for w in self.windows if not w.minimized]
        if not visible:
            mini = [w for w in self.windows if w.minimized]
            if mini:
                mini[0].minimized = False
                self.desktop.raise_window(mini[0])
            else:
                self.new_window()

    def new_window(self) -> "Window | None":
        """Open the app's main (or a new document) window."""
        return None

    def window_closed(self, win: "Window") -> None:
        """Hook run after one of the app's windows closed."""

    def request_close(self, win: "Window") -> None:
        """The close button / cmd-w; apps with unsaved documents ask first."""
        self.desktop.close_window(win)

    def quit(self) -> None:
        for w in list(self.windows):
            self.desktop.close_window(w, force=True)
        self.running = False
        self.hidden = False
        self.desktop.app_quit(self)

    def open_file(self, path: Path) -> None:
        """Open the document at host path ``path`` (one of ``open_suffixes``) — override."""
        raise NotImplementedError(f"{self.name} does not open files")

    def can_open(self, path: Path) -> bool:
        """Whether ``open -a <this app> <path>`` opens ``path`` here (default: the app's own document types)."""
        return path.suffix.lower() in self.open_suffixes

    def open_url(self, url: str) -> None:
        """Handle ``open <url>`` for one of ``url_schemes`` — override."""
        raise NotImplementedError(f"{self.name} does not open URLs")

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        """Answer one of ``shell_commands`` (``argv[0]`` is its name): (stdout, stderr, exit code)."""
        return "", f"{argv[0]}: not implemented by {self.name}\n", 127

    def serve_web(self, method: str, url: str, data: str | None, browser: bool) -> tuple[int, str, str]:
        """Answer a request for one of ``web_hosts``: (HTTP status, content type, body). ``browser`` is
        true when Safari asks (a page to show), false for ``curl`` — override."""
        raise NotImplementedError(f"{self.name} serves no web pages")

    @staticmethod
    def draw_icon(size: int) -> "Image.Image | None":
        """The app's dock icon at ``size`` px (RGBA), for apps whose icon is not in icons.py."""
        return None

    # ------------------------------------------------------------------ menus
    def app_menus(self) -> list[tuple[str, list[MenuItem]]]:
        """Menus between the app menu and Edit/Window (File, View, …) — override."""
        return [("File", [MenuItem("Close Window", self._close_front, "cmd+w", enabled=bool(self.windows))])]

    def extra_menus(self) -> list[tuple[str, list[MenuItem]]]:
        """Menus after Edit (View, Format, …) — override."""
        return []

    def menus(self) -> list[tuple[str, list[MenuItem]]]:
        d = self.desktop
        app_menu = [
            MenuItem(f"About {self.name}", lambda: d.about(self)),
            sep(),
            MenuItem(f"Hide {self.name}", lambda: d.hide_app(self), "cmd+h"),
            MenuItem("Hide Others", lambda: d.hide_others(self), "cmd+option+h"),
            MenuItem("Show All", d.show_all),
            sep(),
            MenuItem(f"Quit {self.name}", self.quit, "cmd+q"),
        ]
        out = [(self.name, app_menu)] + self.app_menus()
        if self.text_editing:
            out.append(("Edit", [
                MenuItem("Undo", lambda: d.send_key("z", frozenset({"command"})), "cmd+z"),
                MenuItem("Redo", lambda: d.send_key("z", frozenset({"command", "shift"})), "cmd+shift+z"),
                sep(),
                MenuItem("Cut", lambda: d.send_key("x", frozenset({"command"})), "cmd+x"),
                MenuItem("Copy", lambda: d.send_key("c", frozenset({"command"})), "cmd+c"),
                MenuItem("Paste", lambda: d.send_key("v", frozenset({"command"})), "cmd+v"),
                MenuItem("Select All", lambda: d.send_key("a", frozenset({"command"})), "cmd+a"),
            ]))
        out += self.extra_menus()
        wins = [w for w in self.windows]
        out.append(("Window", [
            MenuItem("Minimize", self._minimize_front, "cmd+m", enabled=bool(wins)),
            MenuItem("Zoom", self._zoom_front, enabled=bool(wins)),
            sep(),
            MenuItem("Bring All to Front", lambda: d.activate(self)),
        ] + ([sep()] if wins else []) + [
            MenuItem(w.title or "Untitled", (lambda w=w: d.raise_window(w)), checked=(w is d.key_window()))
            for w in wins
        ]))
        out.append(("Help", [MenuItem(f"{self.name} Help", lambda: d.about(self))]))
        return out

    def _front(self) -> "Window | None":
        kw = self.desktop.key_window()
        if kw is not None and kw.kind == "spotlight":
            kw = self.windows[0] if self.windows else None
        if kw is not None and kw.app is self:
            return kw.parent or kw
        return None

    def _close_front(self) -> None:
        w = self._front()
        if w is not None:
            self.request_close(w)

    def _minimize_front(self) -> None:
        w = self._front()
        if w is not None:
            self.desktop.minimize(w)

    def _zoom_front(self) -> None:
        w = self._front()
        if w is not None:
            self.desktop.zoom(w)

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        """The app's state as JSON-able data (for Python getters)."""
        return {"running": self.running}


def web_request(desktop: "Desktop", url: str, method: str = "GET", data: str | None = None,
                browser: bool = False) -> tuple[int, str, str] | None:
    """The answer (status, content type, body) of the app whose ``web_hosts`` has ``url``'s host, or
    ``None`` when no app serves that host (task-supplied ``web_pages`` are looked up before this)."""
    from urllib.parse import urlparse

    host = (urlparse(url if "://" in url else "http://" + url).hostname or "").lower()
    for app in desktop.apps.values():
        if host and host in app.web_hosts:
            return app.serve_web(method.upper(), url, data, browser)
    return None
