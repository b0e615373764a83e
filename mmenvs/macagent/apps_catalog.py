"""The apps a MacAgent task may name, per guest platform; no backend owns this list.

Task files list the apps they use (``apps``) and may open one in a setup step (``open_app``). The
names are checked here, so loading a task never imports a backend: the same task and checkpoint code
runs on the embedded sim and over SSH on a real guest.

- ``MAC_APPS``: macOS desktop apps. The sim implements each (``backends/sim/apps/__init__.py``,
  ``APP_MODULES``, in dock order); a real macOS guest has them (or the task needs them installed).
- ``CLI_TOOLS``: command-line programs the paper counts among its apps (tmux, media tools, skill CLIs):
  no window. The sim implements each (``CLI_MODULES``); on a real Mac they must be installed.
- ``LINUX_APPS``: what the Linux test guest (``mmenvs vm build-test-guest``) offers its tasks: ``bash``
  (command-line tasks), ``xterm`` and the ``xedit`` editor.

Adding a sim app or CLI tool means one name here and one line in the sim's ``APP_MODULES`` /
``CLI_MODULES`` (tests/test_macagent_import_boundary.py checks that the two agree).
"""

from __future__ import annotations

MAC_APPS: tuple[str, ...] = (
    "Finder", "Safari", "Mail", "Notes", "Reminders", "Calendar", "Clock", "TextEdit", "Terminal", "Pages", "Numbers",
    "Keynote", "Weather", "GitHub", "Obsidian", "Visual Studio Code", "Image Events", "System Settings",
)

CLI_TOOLS: tuple[str, ...] = (
    "tmux", "Media Tools", "peekaboo", "blogwatcher", "gifgrep", "songsee", "himalaya", "remindctl", "memo",
    "obsidian-cli", "clawhub",
)

LINUX_APPS: tuple[str, ...] = ("bash", "xterm", "xedit")

#: The platforms a task may target (the task field ``platform``; default ``macos``).
PLATFORMS: tuple[str, ...] = ("macos", "linux")

#: The app names a task of each platform may list.
APPS_BY_PLATFORM: dict[str, tuple[str, ...]] = {"macos": MAC_APPS + CLI_TOOLS, "linux": LINUX_APPS}

#: Every macOS app name (desktop apps, then command-line tools): what a task without ``platform`` may list.
APPS: tuple[str, ...] = APPS_BY_PLATFORM["macos"]
