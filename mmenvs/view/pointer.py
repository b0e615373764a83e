"""Where a MacAgent GUI action pointed: clicks, drags, moves and scrolls, to mark on the screenshot.

The action is read exactly as the env reads it: ``parse_action`` (pyautogui code, computer_13 dicts,
computer_use / OpenAI / Anthropic computer-use calls, all turned into pyautogui calls) and the real
``PyAutoGUIShim``, run against a backend that only writes down the pointer events it receives. So the
marks follow pyautogui's conventions (a ``click()`` without coordinates clicks where the pointer is,
``dragRel`` is relative) without a second parser to keep in step. Code the env would send to the
sandbox (loops, variables) is not run here: it has no marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_SCREEN = (1280, 800)


@dataclass(frozen=True)
class Mark:
    """One pointer event in screen pixels: ``kind`` is click, move, drag, scroll, down or up; a drag
    starts at (``x0``, ``y0``). ``label`` says what happened ("left click", "right double-click", ...)."""

    kind: str
    x: int
    y: int
    label: str
    x0: int | None = None
    y0: int | None = None


class _PointerLog:
    """A stand-in desktop for the shim: it keeps the pointer events and ignores everything else."""

    def __init__(self, screen_size: tuple[int, int]) -> None:
        self.screen_size = screen_size
        self.marks: list[Mark] = []
        self.shim: Any = None

    def mouse_move(self, x: int, y: int) -> None:
        self.marks.append(Mark("move", x, y, "move"))

    def click(self, x: int, y: int, button: str, count: int) -> None:
        times = {1: "click", 2: "double-click", 3: "triple-click"}.get(count, f"{count} clicks")
        self.marks.append(Mark("click", x, y, f"{button} {times}"))

    def drag_to(self, x: int, y: int, button: str) -> None:
        self.marks.append(Mark("drag", x, y, f"{button} drag", self.shim.x, self.shim.y))

    def mouse_down(self, button: str) -> None:
        self.marks.append(Mark("down", self.shim.x, self.shim.y, f"{button} button down"))

    def mouse_up(self, button: str) -> None:
        self.marks.append(Mark("up", self.shim.x, self.shim.y, f"{button} button up"))

    def scroll(self, clicks: int, x: int, y: int) -> None:
        self.marks.append(Mark("scroll", x, y, f"scroll {'up' if clicks > 0 else 'down'} {abs(clicks)}"))

    def __getattr__(self, name: str) -> Any:  # keys, typing, the clock: nothing to mark
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


class PointerTracker:
    """Follows the pointer through an episode's actions (it persists between steps, as on the desktop)."""

    def __init__(self) -> None:
        self._position: tuple[int, int] | None = None

    def marks(self, action: Any, screen_size: tuple[int, int] | None = None) -> list[Mark]:
        """The pointer events of ``action`` on a screen of ``screen_size`` (width, height); [] for
        non-GUI actions, actions the env would refuse and code that needs the sandbox."""
        try:
            from mmenvs.core import ActionError
            from mmenvs.macagent.actions import PyAutoGUIShim, parse_action, run_calls, straight_line_calls
        except ImportError:  # MacAgent is not importable here: no marks, the action is still shown as text
            return []
        log = _PointerLog(tuple(screen_size or DEFAULT_SCREEN))
        shim = PyAutoGUIShim(log)  # type: ignore[arg-type]  (duck-typed desktop)
        log.shim = shim
        if self._position is not None:
            shim.x, shim.y = self._position
        try:
            parsed = parse_action(action)
            shim.begin_action()
            if parsed.kind == "computer":
                shim.perform(parsed.verb, parsed.params)
            elif parsed.kind == "python":
                calls = straight_line_calls(parsed.code)
                if calls:
                    run_calls(shim, calls)
        except (ActionError, TypeError, ValueError):
            pass  # the env refused it (or part of it): keep what ran before the refusal, as the desktop did
        self._position = (shim.x, shim.y)
        return log.marks
