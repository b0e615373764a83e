"""A small test double of ``MacBackend`` (the MacAgent env's desktop interface), and checks of it.

``FakeBackend`` runs real shell commands (bash, HOME set to the episode's home), answers a tiny
AppleScript subset over a list of notes, and models one text field: typed text collects in it and
``enter`` turns it into a note. That is enough for tasks whose checkpoints use every getter type
and whose reference solutions are GUI-only, CLI-only or mixed, without the simulated desktop.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import numpy as np

from mmenvs.macagent.backends.base import BackendError, MacBackend, ShellOutput

KEYS = {"enter", "return", "esc", "escape", "tab", "backspace", "delete", "up", "down", "left", "right", "space",
        "command", "cmd", "shift", "ctrl", "option", "alt"} | set("abcdefghijklmnopqrstuvwxyz0123456789")


class FakeBackend(MacBackend):
    """A MacBackend test double (see the module docstring). It declares none of the optional features
    (no frame dedup, no damage boxes, no simulated clock, no offline web): the interface's defaults."""

    def __init__(self, screen_size: tuple[int, int] = (320, 200), max_output_chars: int = 20_000) -> None:
        self.screen_size = screen_size
        self.max_output_chars = max_output_chars
        self.home: Path | None = None
        self.now: datetime | None = None
        self.notes: list[dict[str, str]] = []
        self.events: list[tuple] = []
        self.field = ""
        self.front = "Finder"
        self.closed = 0

    def reset(self, *, now: datetime, home: Path) -> None:
        self.home, self.now = Path(home), now
        if self.home.exists():
            shutil.rmtree(self.home)
        for sub in ("Desktop", "Documents", "Downloads"):
            (self.home / sub).mkdir(parents=True)
        self.notes, self.events, self.field, self.front = [], [], "", "Finder"

    def close(self) -> None:
        self.closed += 1

    def screenshot(self) -> np.ndarray:
        width, height = self.screen_size
        image = np.full((height, width, 3), 235, dtype=np.uint8)
        image[: min(height, 4 * len(self.notes) + 2), :20] = (30, 120, 220)  # one bar per note
        image[-2:, : min(width, len(self.field) * 4)] = 0
        return image

    def accessibility_tree(self) -> str:
        lines = [f"application {self.front}", f"  text field 'New note' value={self.field!r} bounds=(10, 10, 200, 20)"]
        lines += [f"  row note {n['name']!r}" for n in self.notes]
        return "\n".join(lines)

    def _point(self, x: int, y: int) -> None:
        width, height = self.screen_size
        if not (0 <= x < width and 0 <= y < height):
            raise BackendError(f"({x}, {y}) is off the screen")

    def _key(self, key: str) -> str:
        if key.lower() not in KEYS:
            raise BackendError(f"unknown key {key!r}")
        return key.lower()

    def mouse_move(self, x: int, y: int) -> None:
        self._point(x, y)
        self.events.append(("move", x, y))

    def mouse_down(self, button: str = "left") -> None:
        self.events.append(("down", button))

    def mouse_up(self, button: str = "left") -> None:
        self.events.append(("up", button))

    def click(self, x: int, y: int, button: str = "left", clicks: int = 1) -> None:
        self._point(x, y)
        self.events.append(("click", x, y, button, clicks))

    def drag_to(self, x: int, y: int, button: str = "left") -> None:
        self._point(x, y)
        self.events.append(("drag", x, y, button))

    def scroll(self, amount: int, x: int | None = None, y: int | None = None) -> None:
        self.events.append(("scroll", amount, x, y))

    def key_down(self, key: str) -> None:
        self.events.append(("key_down", self._key(key)))

    def key_up(self, key: str) -> None:
        self.events.append(("key_up", self._key(key)))

    def press(self, key: str) -> None:
        key = self._key(key)
        self.events.append(("press", key))
        if key in ("enter", "return") and self.field:
            self.notes.append({"name": self.field, "body": ""})
            self.field = ""
        elif key == "backspace":
            self.field = self.field[:-1]

    def hotkey(self, *keys: str) -> None:
        self.events.append(("hotkey", *[self._key(k) for k in keys]))

    def type_text(self, text: str) -> None:
        self.events.append(("type", text))
        self.field += text

    def run_shell(self, command: str, timeout: float | None = None) -> ShellOutput:
        env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
        try:
            done = subprocess.run(["bash", "-c", command], cwd=self.home, env=env, capture_output=True, text=True, timeout=timeout or 10)
        except subprocess.TimeoutExpired:
            return ShellOutput("", "", 124, timed_out=True)
        cut = len(done.stdout) > self.max_output_chars  # like the sim, long output is truncated
        return ShellOutput(done.stdout[: self.max_output_chars], done.stderr, done.returncode, truncated=cut)

    def run_applescript(self, source: str) -> str:
        source = source.strip()
        if re.fullmatch(r'tell application "Notes" to get name of every note', source):
            return ", ".join(n["name"] for n in self.notes)
        if re.fullmatch(r'tell application "Notes" to get body of every note', source):
            return ", ".join(n["body"] for n in self.notes)
        if re.fullmatch(r'tell application "Notes" to count notes', source):
            return str(len(self.notes))
        made = re.fullmatch(r'tell application "Notes" to make new note with properties \{name:"([^"]*)", body:"([^"]*)"\}', source)
        if made:
            self.notes.append({"name": made.group(1), "body": made.group(2)})
            return f'note "{made.group(1)}"'
        raise BackendError(f"0:{len(source)}: syntax error: the fake backend does not understand this script (-2741)")

    def open_app(self, app: str) -> None:
        self.front = app
        self.events.append(("open", app))


def test_fake_backend_implements_the_interface(tmp_path):
    backend = FakeBackend()
    assert isinstance(backend, MacBackend)
    backend.reset(now=datetime(2026, 3, 10, 9, 0), home=tmp_path / "home")
    out = backend.run_shell("echo hi > ~/Desktop/a.txt && cat ~/Desktop/a.txt")
    assert out.stdout == "hi\n" and out.exit_code == 0
    backend.type_text("Groceries")
    backend.press("enter")
    assert backend.run_applescript('tell application "Notes" to get name of every note') == "Groceries"
    assert backend.screenshot().shape == (200, 320, 3)
