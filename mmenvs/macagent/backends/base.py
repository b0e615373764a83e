"""The interface every MacAgent backend implements: the embedded simulator (``backends/sim``) and
the real macOS VM (``backends/vm``). Tasks, checkpoints and the env talk only to this interface,
so the same task file runs on both.

Coordinates are screen pixels of the screenshot (origin top-left). Key names follow pyautogui
(``"enter"``, ``"esc"``, ``"tab"``, ``"command"``/``"cmd"``, ``"shift"``, ``"left"``, ``"a"``, …).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Mapping

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


#: The mouse buttons a backend takes (after ``mouse_button`` maps the computer-use names).
BUTTONS = ("left", "right", "middle")


def screen_point(x: object, y: object, screen_size: tuple[int, int]) -> tuple[int, int]:
    """``(x, y)`` as integer pixels on a screen of ``screen_size``; a :class:`BackendError` naming the
    value when it is not a number or lies off the screen."""
    try:
        xi, yi = int(round(float(x))), int(round(float(y)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise BackendError(f"coordinates must be numbers, got x={x!r}, y={y!r}") from None
    w, h = screen_size
    if not (0 <= xi < w and 0 <= yi < h):
        raise BackendError(f"point ({xi}, {yi}) is outside the screen (0..{w - 1}, 0..{h - 1})")
    return xi, yi


def mouse_button(button: object) -> str:
    """A button name of :data:`BUTTONS` ("primary"/"secondary" as computer-use tools say them map to
    left/right); a :class:`BackendError` for any other."""
    b = {"primary": "left", "secondary": "right"}.get(str(button).lower(), str(button).lower())
    if b not in BUTTONS:
        raise BackendError(f"unknown mouse button {button!r}; expected one of {', '.join(BUTTONS)}")
    return b


class MacBackend(ABC):
    """A desktop the MacAgent env drives: subclass it and implement the abstract methods.

    Beyond the required members, a backend declares what it can do more cheaply or at all, so the env
    asks no questions at run time. The defaults describe the plainest desktop (a real Mac):

    * ``dedups_frames`` (False): True promises that ``screenshot()`` returns the very same array while the
      pixels have not changed, so the env need not compare pixels.
    * ``damage_since(frame)`` (None: unknown): a box (x0, y0, x1, y1) outside which the current screen
      equals an earlier frame, so the observation is refitted only there.
    * ``screenshot_scaled(size)`` (None: unsupported): the screen as the screenshot downscaled to ``size``
      would look, made without a full-size frame, for observations much smaller than the screen.
    * ``simulated_clock`` (False): True when the desktop's clock moves only by ``advance_time(seconds)``
      (WAIT and ``pyautogui.sleep`` call it); a real desktop's clock runs by itself.
    * ``set_web_pages(pages)``: the offline web a task serves; a backend without one refuses any page.
    """

    #: Whether ``screenshot()`` returns the same array object while nothing on screen changed.
    dedups_frames: bool = False
    #: Whether the desktop's clock moves only by ``advance_time()`` (a simulated desktop).
    simulated_clock: bool = False

    #: (width, height) of screenshots in pixels.
    screen_size: tuple[int, int]

    @abstractmethod
    def reset(self, *, now: datetime, home: Path) -> None:
        """Start a fresh desktop whose clock reads ``now`` and whose user home is ``home`` (emptied)."""

    @abstractmethod
    def close(self) -> None:
        """Release processes and files. Idempotent."""

    # --- observation
    @abstractmethod
    def screenshot(self) -> np.ndarray:
        """The screen as an H×W×3 uint8 RGB array, read-only. It stays valid until the next changed
        frame has been returned; a backend may then reuse its memory (the sim composes into two
        alternating buffers), so copy a frame to keep it longer."""

    @abstractmethod
    def accessibility_tree(self) -> str:
        """What is on screen as indented text lines: role, name, value, bounds."""

    # --- GUI input (raise BackendError for invalid input)
    @abstractmethod
    def mouse_move(self, x: int, y: int) -> None:
        """Move the pointer to (x, y)."""

    @abstractmethod
    def mouse_down(self, button: str = "left") -> None:
        """Press ``button`` ("left", "right", "middle") where the pointer is."""

    @abstractmethod
    def mouse_up(self, button: str = "left") -> None:
        """Release ``button``."""

    @abstractmethod
    def click(self, x: int, y: int, button: str = "left", clicks: int = 1) -> None:
        """Move to (x, y) and click ``clicks`` times (2: a double click)."""

    @abstractmethod
    def drag_to(self, x: int, y: int, button: str = "left") -> None:
        """Drag with ``button`` held from the pointer to (x, y)."""

    @abstractmethod
    def scroll(self, amount: int, x: int | None = None, y: int | None = None) -> None:
        """Scroll ``amount`` notches (positive: up, as in pyautogui) at (x, y), or where the pointer is."""

    @abstractmethod
    def key_down(self, key: str) -> None:
        """Hold ``key`` down."""

    @abstractmethod
    def key_up(self, key: str) -> None:
        """Release ``key``."""

    @abstractmethod
    def press(self, key: str) -> None:
        """Press and release ``key``."""

    @abstractmethod
    def hotkey(self, *keys: str) -> None:
        """Press ``keys`` in order, then release them in reverse (``hotkey("command", "s")``)."""

    @abstractmethod
    def type_text(self, text: str) -> None:
        """Type ``text`` into whatever has keyboard focus."""

    # --- scripting
    @abstractmethod
    def run_shell(self, command: str, timeout: float | None = None) -> ShellOutput:
        """Run ``command`` in the episode's persistent shell (cwd and variables persist)."""

    @abstractmethod
    def run_applescript(self, source: str) -> str:
        """Run AppleScript as ``osascript`` would; raise ``AppleScriptError`` with osascript's error text."""

    @abstractmethod
    def open_app(self, app: str) -> None:
        """Launch (or activate) ``app`` by its name, e.g. "Notes"."""

    # --- optional features (see the class docstring); the defaults are a desktop without them
    def damage_since(self, earlier: np.ndarray) -> tuple[int, int, int, int] | None:
        """A box (x0, y0, x1, y1) outside which the current screen equals ``earlier`` (a frame
        ``screenshot()`` returned before), or None when that is not known (the default)."""
        return None

    def screenshot_scaled(self, size: tuple[int, int]) -> np.ndarray | None:
        """The screen as ``screenshot()`` downscaled to ``size`` (width, height) by area averaging would look
        (close, not necessarily identical), composed at low resolution without a full-size frame; None when
        the backend cannot (the default: the env then downscales full screenshots). Read-only; with
        ``dedups_frames`` the same array comes back while the screen is unchanged."""
        return None

    def advance_time(self, seconds: float) -> None:
        """Move a simulated clock forward by ``seconds`` (only when ``simulated_clock`` is True)."""
        raise NotImplementedError(f"{type(self).__name__} has no simulated clock (simulated_clock is False): "
                                  "its time passes by itself, so nothing may move it")

    def observing(self) -> contextlib.AbstractContextManager:
        """A context in which the screen is read for one observation (screenshot, small frame,
        accessibility tree, back to back, with no input between): a backend may compute what they share
        once in it. The default shares nothing."""
        return contextlib.nullcontext()

    def skills(self) -> tuple:
        """The skill library installed in every episode home (``~/.openclaw/skills``, listed by the hybrid
        set-up): :class:`~mmenvs.macagent.skills.Skill` objects. The default installs none."""
        return ()

    def recover(self, error: BaseException) -> str:
        """Repair the backend after an internal error ``error`` raised while a step used it, and say what was
        done (for the agent's observation). The default repairs nothing and returns ""."""
        return ""

    def set_web_pages(self, pages: Mapping[str, str]) -> None:
        """Serve ``pages`` (URL → HTML) as the offline web for the next episodes (a task's ``web_pages``).

        The default has no offline web: it accepts only an empty mapping and refuses pages with a
        ``BackendError`` naming the URLs."""
        if pages:
            urls = ", ".join(sorted(pages)[:3]) + (", …" if len(pages) > 3 else "")
            raise BackendError(f"{type(self).__name__} cannot serve offline web pages (asked for {len(pages)}: {urls}); "
                               "override MacBackend.set_web_pages to support tasks with web_pages")
