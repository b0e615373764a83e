"""The simulated apps, one module each. ``APP_MODULES`` is the one list of them: the desktop
creates every app named here, the dock shows them in this order (System Settings last, as on a
fresh Mac) and task files may name them in ``apps``. Adding an app = one module with an
:class:`~.base.App` subclass + one line here (see docs/macagent.md, "Adding an app")."""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .base import App

# app name → "module:Class" inside this package
APP_MODULES: dict[str, str] = {
    "Finder": "finder:FinderApp",
    "Safari": "safari:SafariApp",
    "Mail": "mail:MailApp",
    "Notes": "notes:NotesApp",
    "Reminders": "reminders:RemindersApp",
    "Calendar": "calendar:CalendarApp",
    "Clock": "clock:ClockApp",
    "TextEdit": "textedit:TextEditApp",
    "Terminal": "terminal:TerminalApp",
    "Pages": "pages:PagesApp",
    "Numbers": "numbers:NumbersApp",
    "Keynote": "keynote:KeynoteApp",
    "Weather": "weather:WeatherApp",
    "GitHub": "github:GitHubApp",
    "Obsidian": "obsidian:ObsidianApp",
    "Visual Studio Code": "vscode:VSCodeApp",
    "Image Events": "imageevents:ImageEventsApp",
    "System Settings": "settings:SettingsApp",
}

# Command-line programs the paper counts among its apps (tmux, media tools): no window, but a task may
# list them in ``apps`` and the suite breakdown counts them. Each is implemented by the simulator (shell
# commands, shell setup, background daemons): name → "module:Class" (an :class:`~.base.App` subclass
# that never appears on the desktop).
CLI_MODULES: dict[str, str] = {
    "tmux": "tmux:TmuxTool",
    "Media Tools": "media:MediaTools",
    "peekaboo": "peekaboo_cli:PeekabooTool",
    "blogwatcher": "blogwatcher_cli:BlogwatcherTool",
    "gifgrep": "gifgrep_cli:GifgrepTool",
    "songsee": "songsee_cli:SongseeTool",
    "himalaya": "himalaya_cli:HimalayaTool",
    "remindctl": "remindctl_cli:RemindctlTool",
    "memo": "memo_cli:MemoTool",
    "obsidian-cli": "obsidian_cli:ObsidianCliTool",
    "clawhub": "clawhub_cli:ClawHubTool",
}
CLI_APPS: tuple[str, ...] = tuple(CLI_MODULES)

SIM_APPS: tuple[str, ...] = tuple(APP_MODULES)
APPS: tuple[str, ...] = SIM_APPS + CLI_APPS


@cache
def app_class(name: str) -> "type[App]":
    """The class of the app called ``name`` (exactly as in ``APP_MODULES`` or ``CLI_MODULES``)."""
    module, cls = (APP_MODULES[name] if name in APP_MODULES else CLI_MODULES[name]).split(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def app_classes() -> "list[type[App]]":
    """Every app class, System Settings first (the other apps read the settings when they start)."""
    names = ["System Settings"] + [n for n in APP_MODULES if n != "System Settings"]
    return [app_class(n) for n in names]


def dock_apps() -> tuple[str, ...]:
    """The apps the dock shows, left to right."""
    names = [n for n in APP_MODULES if n != "System Settings" and app_class(n).in_dock]
    return tuple(names + ["System Settings"])


def shell_commands() -> dict[str, str]:
    """Command name → app name, for every command an app answers in the episode's shell."""
    out: dict[str, str] = {}
    for name in (*APP_MODULES, *CLI_MODULES):
        for command in app_class(name).shell_commands:
            if command in out:
                raise ValueError(f"shell command {command!r} is claimed by both {out[command]} and {name}")
            out[command] = name
    return out


def shell_init() -> str:
    """Shell code every episode shell runs when it starts (the apps' and CLI tools' ``shell_init``)."""
    return "".join(app_class(n).shell_init for n in (*APP_MODULES, *CLI_MODULES))


def shell_daemons() -> tuple[str, ...]:
    """Names (as ``/proc/<pid>/comm`` shows them) of processes that may outlive the shell command that
    started them, until the episode ends (e.g. the tmux server)."""
    return tuple(d for n in (*APP_MODULES, *CLI_MODULES) for d in app_class(n).daemons)
