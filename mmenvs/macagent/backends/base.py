"""The interface every MacAgent backend implements: the embedded simulator (``backends/sim``) and
the real macOS VM (``backends/vm``). Tasks, checkpoints and the env talk only to this interface,
so the same task file runs on both.

Coordinates are screen pixels of the screenshot (origin top-left). Key names follow pyautogui
(``"enter"``, ``"esc"``, ``"tab"``, ``"command"``/``"cmd"``, ``"shift"``, ``"left"``, ``"a"``, …).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class ShellOutput:
    """Result of one shell command run in the episode's shell."""

    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool = False
    truncated: bool = False

    @property
    def text(self) -> str:
        """What the agent reads: output, errors and the exit status."""
        parts = [self.stdout.rstrip("\n")] if self.stdout else []
        if self.stderr:
            parts.append(self.stderr.rstrip("\n"))
        if self.timed_out:
            parts.append("[command timed out and was killed]")
        parts.append(f"[exit code {self.exit_code}]")
        return "\n".join(parts)


class BackendError(RuntimeError):
    """An input the backend rejects (a key name that does not exist, a click off screen, …).
    The message is for the agent; the backend state is unchanged."""


@runtime_checkable
class MacBackend(Protocol):
    """A desktop the MacAgent env drives.

    Two optional members make GUI steps cheaper; the env uses them when present (the sim has both):
    ``dedups_frames = True`` promises that ``screenshot()`` returns the very same array while the
    pixels have not changed, so the env need not compare pixels; ``damage_since(frame)`` returns a box
    (x0, y0, x1, y1) outside which the current screen equals an earlier frame (or None if unknown),
    so the observation is refitted only there.
    """

    #: (width, height) of screenshots in pixels.
    screen_size: tuple[int, int]

    def reset(self, *, now: datetime, home: Path) -> None:
        """Start a fresh desktop whose clock reads ``now`` and whose user home is ``home`` (emptied)."""

    def close(self) -> None:
        """Release processes and files. Idempotent."""

    # --- observation
    def screenshot(self) -> np.ndarray:
        """The screen as an H×W×3 uint8 RGB array, read-only. It stays valid until the next changed
        frame has been returned; a backend may then reuse its memory (the sim composes into two
        alternating buffers), so copy a frame to keep it longer."""

    def accessibility_tree(self) -> str:
        """What is on screen as indented text lines: role, name, value, bounds."""

    # --- GUI input (raise BackendError for invalid input)
    def mouse_move(self, x: int, y: int) -> None: ...
    def mouse_down(self, button: str = "left") -> None: ...
    def mouse_up(self, button: str = "left") -> None: ...
    def click(self, x: int, y: int, button: str = "left", clicks: int = 1) -> None: ...
    def drag_to(self, x: int, y: int, button: str = "left") -> None: ...
    def scroll(self, amount: int, x: int | None = None, y: int | None = None) -> None: ...
    def key_down(self, key: str) -> None: ...
    def key_up(self, key: str) -> None: ...
    def press(self, key: str) -> None: ...
    def hotkey(self, *keys: str) -> None: ...
    def type_text(self, text: str) -> None: ...

    # --- scripting
    def run_shell(self, command: str, timeout: float | None = None) -> ShellOutput:
        """Run ``command`` in the episode's persistent shell (cwd and variables persist)."""

    def run_applescript(self, source: str) -> str:
        """Run AppleScript as ``osascript`` would; raise ``AppleScriptError`` with osascript's error text."""

    def open_app(self, app: str) -> None:
        """Launch (or activate) ``app`` by its name, e.g. "Notes"."""
