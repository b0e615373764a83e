"""The MacAgent action grammar, the pyautogui shim and the computer-use dict.

An action is a string in one of these forms (or the same action as a dict):

* ``DONE`` / ``FAIL`` / ``WAIT`` — end the episode (declaring success or giving up) or let time pass.
* a fenced ```` ```python ```` block of pyautogui calls — ``import pyautogui`` is a shim whose calls go
  to the desktop backend with pyautogui's argument conventions (``x, y, clicks, interval, button``).
  Bare pyautogui code without a fence is accepted too (OSWorld agents emit it).
* a fenced ```` ```bash ```` block — run in the episode's shell; output and exit code come back as text.
* a fenced ```` ```applescript ```` block — run as ``osascript`` would.
* a computer-use dict in OSWorld's ``computer_13`` convention, as a dict or as JSON text:
  ``{"action_type": "CLICK", "x": 10, "y": 20, "button": "left", "num_clicks": 1}`` (parameters may also sit
  under ``"parameters"``). Verbs: MOVE_TO, CLICK, RIGHT_CLICK, DOUBLE_CLICK, DRAG_TO, SCROLL, TYPING, PRESS,
  KEY_DOWN, KEY_UP, HOTKEY, MOUSE_DOWN, MOUSE_UP, and WAIT / FAIL / DONE.
* dict forms of the others: ``{"python": code}``, ``{"bash": command}``, ``{"applescript": source}``,
  ``{"control": "DONE"}``.
* function calls of the ``computer_use``, ``bash`` and ``applescript`` tools, OpenAI computer-use actions
  and Anthropic ``computer_20250124`` actions: ``action_specs`` declares them (and the prompt text and
  tool schemas of each agent set-up) and translates them into pyautogui calls.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from mmenvs.core import ActionError, code_blocks, control_word
from mmenvs.core.budget import DEFAULT_BUDGET, check_limit
from mmenvs.macagent import action_specs
from mmenvs.macagent.backends.base import BackendError, MacBackend

ActionKind = Literal["control", "python", "bash", "applescript", "computer"]

VERBS = (
    "MOVE_TO", "CLICK", "RIGHT_CLICK", "DOUBLE_CLICK", "DRAG_TO", "SCROLL", "TYPING", "PRESS", "KEY_DOWN", "KEY_UP",
    "HOTKEY", "MOUSE_DOWN", "MOUSE_UP",
)
#: Parameters of each verb: name -> required?
VERB_PARAMS: dict[str, dict[str, bool]] = {
    "MOVE_TO": {"x": True, "y": True},
    "CLICK": {"x": False, "y": False, "button": False, "num_clicks": False},
    "RIGHT_CLICK": {"x": False, "y": False},
    "DOUBLE_CLICK": {"x": False, "y": False},
    "DRAG_TO": {"x": True, "y": True},
    "SCROLL": {"dx": False, "dy": False},
    "TYPING": {"text": True},
    "PRESS": {"key": True},
    "KEY_DOWN": {"key": True},
    "KEY_UP": {"key": True},
    "HOTKEY": {"keys": True},
    "MOUSE_DOWN": {"button": False},
    "MOUSE_UP": {"button": False},
}
GRAMMAR_HINT = (
    "Send one of: DONE, FAIL, WAIT; a ```python block of pyautogui calls; a ```bash block; an ```applescript block; "
    'or a computer-use JSON object like {"action_type": "CLICK", "x": 100, "y": 200}.'
)
MAX_SLEEP_S = 3600.0
MAX_EVENTS = 2_000  # input events one action may send (a runaway loop ends with an error, not a hang)
MAX_TYPE_CHARS = 10_000  # characters one write() may type
MAX_REPEAT = 500  # presses / scroll notches one call may ask for
BUTTONS = {"left": "left", "right": "right", "middle": "middle", "primary": "left", "secondary": "right"}


@dataclass(frozen=True)
class MacAction:
    """A parsed action: its kind and payload (``code`` for code, ``word`` for control, ``verb``/``params``)."""

    kind: ActionKind
    code: str = ""
    word: str = ""
    verb: str = ""
    params: dict[str, Any] = field(default_factory=dict)


def parse_action(action: str | dict[str, Any], max_chars: int = DEFAULT_BUDGET.action_chars) -> MacAction:
    """Parse an action string or dict; raise ``ActionError`` naming what is wrong and what to send.

    An action over ``max_chars`` characters (``EpisodeBudget.action_chars``; a dict counts its JSON
    form) is refused before any parsing: host memory for parsing grows with the action."""
    _check_action_size(action, max_chars)
    if isinstance(action, dict):
        return _parse_dict(action)
    if not isinstance(action, str):
        raise ActionError("bad_action_type", f"Expected a string or a dict, got {type(action).__name__}. {GRAMMAR_HINT}")
    word = control_word(action)
    if word is not None:
        return MacAction("control", word=word)
    blocks = [b for b in code_blocks(action) if b.language in ("python", "bash", "applescript", "osascript", "")]
    if not blocks and action.count("```") % 2 == 1:
        raise ActionError("unclosed_code_block", "Your code block is not closed: end it with a line of three backticks (```).")
    if len(blocks) > 1:
        raise ActionError("multiple_code_blocks", f"Found {len(blocks)} code blocks; send exactly one block per step.")
    if blocks:
        block = blocks[0]
        if block.language in ("applescript", "osascript"):
            return MacAction("applescript", code=block.code)
        if block.language == "bash":
            return MacAction("bash", code=block.code)
        if block.language == "" and not _looks_like_python(block.code):
            raise ActionError("untagged_code_block", "Tag your code block: ```python for pyautogui code or ```bash for shell commands.")
        return MacAction("python", code=block.code)
    other = code_blocks(action)
    if other and other[0].language != "json":
        raise ActionError("wrong_code_language", f"Found a ```{other[0].language} block; this desktop runs python (pyautogui), bash or applescript.")
    stripped = action.strip()
    if "action_type" in stripped:
        return _parse_dict(_json_object(stripped))
    if _looks_like_python(stripped):
        return MacAction("python", code=stripped)
    raise ActionError("unknown_action", f"Could not read this action. {GRAMMAR_HINT}")


def _check_action_size(action: Any, max_chars: int) -> None:
    if isinstance(action, str):
        size = len(action)
    elif isinstance(action, dict):
        try:
            size = len(json.dumps(action, default=str))
        except (TypeError, ValueError, RecursionError):
            raise ActionError("bad_action_type", f"A dict action must be JSON data. {GRAMMAR_HINT}") from None
    else:
        return
    check_limit("action_chars", max_chars, size, f"This action's {size:,} characters")


def _looks_like_python(code: str) -> bool:
    first = next((line.strip() for line in code.splitlines() if line.strip() and not line.strip().startswith("#")), "")
    return first.startswith(("import pyautogui", "from pyautogui", "pyautogui.", "import time", "import "))


def _json_object(text: str) -> dict[str, Any]:
    for block in code_blocks(text):
        if block.language in ("json", ""):
            text = block.code
    start = text.find("{")
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, start) if start >= 0 else (None, 0)
    except json.JSONDecodeError as exc:
        raise ActionError("invalid_json", f"Your computer-use action is not valid JSON ({exc.msg}). {GRAMMAR_HINT}") from None
    if not isinstance(obj, dict):
        raise ActionError("invalid_json", f"A computer-use action must be one JSON object. {GRAMMAR_HINT}")
    return obj


def _parse_dict(action: dict[str, Any]) -> MacAction:
    if action_specs.is_foreign_dict(action):  # tool calls, OpenAI and Anthropic computer-use actions
        kind, payload = action_specs.translate_dict(action)
        return MacAction("control", word=payload) if kind == "control" else MacAction(kind, code=payload)  # type: ignore[arg-type]
    for key, kind in (("python", "python"), ("bash", "bash"), ("applescript", "applescript")):
        if key in action:
            if set(action) != {key} or not isinstance(action[key], str):
                raise ActionError("bad_action_dict", f'A {key} action dict is {{"{key}": "<code>"}} with nothing else.')
            return MacAction(kind, code=action[key])  # type: ignore[arg-type]
    if "control" in action:
        word = control_word(str(action["control"]))
        if word is None or set(action) != {"control"}:
            raise ActionError("bad_action_dict", 'A control action dict is {"control": "DONE" | "FAIL" | "WAIT"}.')
        return MacAction("control", word=word)
    verb = action.get("action_type", action.get("action"))
    if not isinstance(verb, str):
        raise ActionError("bad_action_dict", f'A dict action needs "action_type" (one of {", ".join(VERBS)}, WAIT, FAIL, DONE).')
    verb = verb.strip().upper()
    if verb in ("WAIT", "FAIL", "DONE"):
        return MacAction("control", word=verb)
    if verb not in VERB_PARAMS:
        raise ActionError("unknown_verb", f"Unknown action_type {verb!r}; use one of {', '.join(VERBS)}, WAIT, FAIL, DONE.")
    if "parameters" in action:
        if not isinstance(action["parameters"], dict):
            raise ActionError("bad_action_dict", f'"parameters" of {verb} must be an object.')
        params = dict(action["parameters"])
        extra = set(action) - {"action_type", "action", "parameters"}
    else:
        params = {k: v for k, v in action.items() if k not in ("action_type", "action")}
        extra = set()
    spec = VERB_PARAMS[verb]
    unknown = (set(params) - set(spec)) | extra
    if unknown:
        raise ActionError("bad_parameters", f"{verb} takes {', '.join(spec) or 'no parameters'}; unexpected: {', '.join(sorted(unknown))}.")
    missing = [name for name, required in spec.items() if required and name not in params]
    if missing:
        raise ActionError("bad_parameters", f"{verb} needs {', '.join(missing)}.")
    if ("x" in params) != ("y" in params):
        raise ActionError("bad_parameters", f"{verb}: give both x and y, or neither (to act at the pointer).")
    return MacAction("computer", verb=verb, params=params)


# ---------------------------------------------------------------------------------------------- the shim
class PyAutoGUIShim:
    """pyautogui's API on a ``MacBackend``: what ``import pyautogui`` gives agent code.

    Coordinates must lie on the screen (pyautogui's fail-safe corner is not emulated: every on-screen
    point is valid). Key names are pyautogui's; the backend rejects unknown ones. Nothing really sleeps:
    ``sleep(n)`` moves the desktop's clock on by ``n`` seconds when the backend has one to move
    (``advance_time``; timers count down), and ``duration``/``interval`` arguments are accepted and ignored.
    Every method raises ``ActionError`` on bad input, before touching the desktop.
    """

    #: Names agent code may call as ``pyautogui.<name>``.
    FUNCTIONS = (
        "click", "doubleClick", "tripleClick", "rightClick", "middleClick", "moveTo", "moveRel", "move", "dragTo",
        "dragRel", "drag", "mouseDown", "mouseUp", "scroll", "vscroll", "write", "typewrite", "press", "hotkey",
        "keyDown", "keyUp", "sleep", "position", "size", "onScreen",
    )

    def __init__(self, backend: MacBackend) -> None:
        self.backend = backend
        width, height = backend.screen_size
        self.x, self.y = width // 2, height // 2  # the pointer starts mid-screen
        self.events = 0  # input events sent (for the step's text)

    def reset(self) -> None:
        """Put the pointer back mid-screen (a new episode)."""
        width, height = self.backend.screen_size
        self.x, self.y = width // 2, height // 2
        self.events = 0

    # --- helpers
    def _point(self, x: Any, y: Any, fn: str) -> tuple[int, int]:
        if isinstance(x, (tuple, list)) and y is None:
            if len(x) != 2:
                raise ActionError("bad_arguments", f"pyautogui.{fn}: a point is (x, y), got {x!r}")
            x, y = x
        if x is None and y is None:
            return self.x, self.y
        if x is None:
            x = self.x
        if y is None:
            y = self.y
        for name, value in (("x", x), ("y", y)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ActionError("bad_arguments", f"pyautogui.{fn}: {name} must be a number, got {value!r}")
        px, py = int(round(x)), int(round(y))
        width, height = self.backend.screen_size
        if not (0 <= px < width and 0 <= py < height):
            raise ActionError("off_screen", f"pyautogui.{fn}: ({px}, {py}) is off the screen; it is {width}x{height} (x 0..{width - 1}, y 0..{height - 1}).")
        return px, py

    @staticmethod
    def _button(button: Any, fn: str) -> str:
        if not isinstance(button, str) or button.lower() not in BUTTONS:
            raise ActionError("bad_arguments", f"pyautogui.{fn}: button must be 'left', 'right' or 'middle', got {button!r}")
        return BUTTONS[button.lower()]

    @staticmethod
    def _count(value: Any, name: str, fn: str, low: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < low:
            raise ActionError("bad_arguments", f"pyautogui.{fn}: {name} must be an integer >= {low}, got {value!r}")
        return int(value)

    @staticmethod
    def _key(key: Any, fn: str) -> str:
        if not isinstance(key, str) or not key:
            raise ActionError("bad_arguments", f"pyautogui.{fn}: a key name must be a non-empty string, got {key!r}")
        return key if len(key) == 1 else key.lower()

    def begin_action(self) -> None:
        """Start counting the events of a new action (the per-action cap is MAX_EVENTS)."""
        self._action_events = 0

    def _send(self, call: Callable[..., None], *args: Any) -> None:
        self._action_events = getattr(self, "_action_events", 0) + 1
        if self._action_events > MAX_EVENTS:
            raise ActionError("too_many_events", f"This action sent more than {MAX_EVENTS} input events; split the work over several steps.")
        try:
            call(*args)
        except BackendError as exc:
            raise ActionError("backend_rejected", str(exc)) from None
        self.events += 1

    # --- mouse
    def moveTo(self, x: Any = None, y: Any = None, duration: float = 0.0, tween: Any = None, **_: Any) -> None:
        """Move the pointer to (x, y)."""
        self.x, self.y = px, py = self._point(x, y, "moveTo")
        self._send(self.backend.mouse_move, px, py)

    def moveRel(self, xOffset: Any = 0, yOffset: Any = 0, duration: float = 0.0, **_: Any) -> None:
        """Move the pointer by (xOffset, yOffset)."""
        if isinstance(xOffset, (tuple, list)):
            xOffset, yOffset = xOffset
        self.moveTo(self.x + xOffset, self.y + yOffset)

    move = moveRel

    def click(self, x: Any = None, y: Any = None, clicks: Any = 1, interval: float = 0.0, button: Any = "left",
              duration: float = 0.0, **_: Any) -> None:
        """Click ``clicks`` times with ``button`` at (x, y) (default: where the pointer is)."""
        px, py = self._point(x, y, "click")
        count = self._count(clicks, "clicks", "click")
        if count > 3:
            raise ActionError("bad_arguments", f"pyautogui.click: clicks must be 0 to 3 (single, double, triple), got {count}")
        name = self._button(button, "click")
        self.x, self.y = px, py
        if count:
            self._send(self.backend.click, px, py, name, count)

    def doubleClick(self, x: Any = None, y: Any = None, interval: float = 0.0, button: Any = "left", **_: Any) -> None:
        """Double-click at (x, y)."""
        self.click(x, y, clicks=2, button=button)

    def tripleClick(self, x: Any = None, y: Any = None, interval: float = 0.0, button: Any = "left", **_: Any) -> None:
        """Triple-click at (x, y)."""
        self.click(x, y, clicks=3, button=button)

    def rightClick(self, x: Any = None, y: Any = None, **_: Any) -> None:
        """Right-click at (x, y)."""
        self.click(x, y, button="right")

    def middleClick(self, x: Any = None, y: Any = None, **_: Any) -> None:
        """Middle-click at (x, y)."""
        self.click(x, y, button="middle")

    def mouseDown(self, x: Any = None, y: Any = None, button: Any = "left", **_: Any) -> None:
        """Press ``button`` (after moving to (x, y) if given)."""
        name = self._button(button, "mouseDown")
        if x is not None or y is not None:
            self.moveTo(x, y)
        self._send(self.backend.mouse_down, name)

    def mouseUp(self, x: Any = None, y: Any = None, button: Any = "left", **_: Any) -> None:
        """Release ``button`` (after moving to (x, y) if given)."""
        name = self._button(button, "mouseUp")
        if x is not None or y is not None:
            self.moveTo(x, y)
        self._send(self.backend.mouse_up, name)

    def dragTo(self, x: Any = None, y: Any = None, duration: float = 0.0, button: Any = "left", **_: Any) -> None:
        """Drag from the pointer to (x, y) holding ``button``."""
        px, py = self._point(x, y, "dragTo")
        name = self._button(button, "dragTo")
        self._send(self.backend.drag_to, px, py, name)
        self.x, self.y = px, py

    def dragRel(self, xOffset: Any = 0, yOffset: Any = 0, duration: float = 0.0, button: Any = "left", **_: Any) -> None:
        """Drag by (xOffset, yOffset) holding ``button``."""
        if isinstance(xOffset, (tuple, list)):
            xOffset, yOffset = xOffset
        self.dragTo(self.x + xOffset, self.y + yOffset, button=button)

    drag = dragRel

    def scroll(self, clicks: Any, x: Any = None, y: Any = None, **_: Any) -> None:
        """Scroll the wheel ``clicks`` notches (positive is up) at (x, y) or the pointer."""
        if isinstance(clicks, bool) or not isinstance(clicks, (int, float)) or abs(clicks) > MAX_REPEAT:
            raise ActionError("bad_arguments", f"pyautogui.scroll: clicks must be a number within ±{MAX_REPEAT}, got {clicks!r}")
        px, py = self._point(x, y, "scroll")
        self.x, self.y = px, py
        self._send(self.backend.scroll, int(clicks), px, py)

    vscroll = scroll

    # --- keyboard
    def write(self, message: Any, interval: float = 0.0, **_: Any) -> None:
        """Type ``message``; a list is pressed key by key (pyautogui's typewrite convention)."""
        if isinstance(message, (list, tuple)):
            for key in message:
                self.press(key)
            return
        if not isinstance(message, str):
            raise ActionError("bad_arguments", f"pyautogui.write: message must be a string, got {message!r}")
        if len(message) > MAX_TYPE_CHARS:
            raise ActionError("bad_arguments", f"pyautogui.write: at most {MAX_TYPE_CHARS} characters per call, got {len(message)}")
        if message:
            self._send(self.backend.type_text, message)

    typewrite = write

    def press(self, keys: Any, presses: Any = 1, interval: float = 0.0, **_: Any) -> None:
        """Press (and release) a key, or each key of a list, ``presses`` times."""
        names = [self._key(k, "press") for k in (keys if isinstance(keys, (list, tuple)) else [keys])]
        count = self._count(presses, "presses", "press")
        if count * len(names) > MAX_REPEAT:
            raise ActionError("bad_arguments", f"pyautogui.press: at most {MAX_REPEAT} key presses per call, got {count * len(names)}")
        for _ in range(count):
            for name in names:
                self._send(self.backend.press, name)

    def hotkey(self, *keys: Any, interval: float = 0.0, **_: Any) -> None:
        """Press the keys down in order and release them in reverse (a chord such as ``hotkey('command', 'c')``)."""
        if len(keys) == 1 and isinstance(keys[0], (list, tuple)):
            keys = tuple(keys[0])
        if not keys:
            raise ActionError("bad_arguments", "pyautogui.hotkey: give at least one key")
        self._send(self.backend.hotkey, *[self._key(k, "hotkey") for k in keys])

    def keyDown(self, key: Any, **_: Any) -> None:
        """Hold ``key`` down."""
        self._send(self.backend.key_down, self._key(key, "keyDown"))

    def keyUp(self, key: Any, **_: Any) -> None:
        """Release ``key``."""
        self._send(self.backend.key_up, self._key(key, "keyUp"))

    # --- the rest
    def sleep(self, seconds: Any = 0) -> None:
        """Let ``seconds`` pass on the desktop's clock (at most an hour per call); never sleeps for real."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise ActionError("bad_arguments", f"pyautogui.sleep: seconds must be a number >= 0, got {seconds!r}")
        if seconds and self.backend.simulated_clock:  # a real desktop's clock moves by itself
            self.backend.advance_time(min(float(seconds), MAX_SLEEP_S))

    def position(self) -> tuple[int, int]:
        """The pointer's (x, y)."""
        return self.x, self.y

    def size(self) -> tuple[int, int]:
        """The screen's (width, height)."""
        width, height = self.backend.screen_size
        return int(width), int(height)

    def onScreen(self, x: Any, y: Any = None) -> bool:
        """Whether (x, y) lies on the screen."""
        if isinstance(x, (tuple, list)):
            x, y = x
        width, height = self.backend.screen_size
        return 0 <= int(x) < width and 0 <= int(y) < height

    def tools(self) -> dict[str, Callable[..., Any]]:
        """The shim as sandbox tools: ``{"pyautogui.click": self.click, …}``."""
        return {f"pyautogui.{name}": getattr(self, name) for name in self.FUNCTIONS}

    # --- computer-use dicts
    def perform(self, verb: str, params: dict[str, Any]) -> None:
        """Carry out a computer_13 verb with its parameters."""
        x, y = params.get("x"), params.get("y")
        if verb == "MOVE_TO":
            self.moveTo(x, y)
        elif verb == "CLICK":
            self.click(x, y, clicks=params.get("num_clicks", 1), button=params.get("button", "left"))
        elif verb == "RIGHT_CLICK":
            self.rightClick(x, y)
        elif verb == "DOUBLE_CLICK":
            self.doubleClick(x, y)
        elif verb == "DRAG_TO":
            self.dragTo(x, y)
        elif verb == "SCROLL":
            dx, dy = params.get("dx", 0), params.get("dy", 0)
            for name, value in (("dx", dx), ("dy", dy)):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ActionError("bad_parameters", f"SCROLL: {name} must be a number, got {value!r}")
            if dx:
                raise ActionError("unsupported", "SCROLL: horizontal scrolling (dx) is not supported on this desktop; use dy.")
            self.scroll(dy)
        elif verb == "TYPING":
            if not isinstance(params["text"], str):
                raise ActionError("bad_parameters", f"TYPING: text must be a string, got {params['text']!r}")
            self.write(params["text"])
        elif verb in ("PRESS", "KEY_DOWN", "KEY_UP"):
            method = {"PRESS": self.press, "KEY_DOWN": self.keyDown, "KEY_UP": self.keyUp}[verb]
            method(params["key"])
        elif verb == "HOTKEY":
            keys = params["keys"]
            if not isinstance(keys, list) or not keys:
                raise ActionError("bad_parameters", f"HOTKEY: keys must be a non-empty list like [\"command\", \"c\"], got {keys!r}")
            self.hotkey(*keys)
        elif verb == "MOUSE_DOWN":
            self.mouseDown(button=params.get("button", "left"))
        elif verb == "MOUSE_UP":
            self.mouseUp(button=params.get("button", "left"))
        else:  # parse_action only lets known verbs through
            raise ActionError("unknown_verb", f"Unknown action_type {verb!r}.")


# ---------------------------------------------------------------------------------------------- fast path
@dataclass(frozen=True)
class ShimCall:
    """One ``pyautogui.<name>(*args, **kwargs)`` call with literal arguments."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


_IGNORED_ATTRIBUTES = {"PAUSE", "FAILSAFE", "MINIMUM_DURATION", "DARWIN_CATCH_UP_TIME"}


def straight_line_calls(code: str) -> list[ShimCall] | None:
    """The calls of ``code`` if it is nothing but ``import pyautogui``/``import time``, pyautogui calls with
    literal arguments, ``time.sleep(n)`` and assignments of pyautogui's tuning constants; else ``None``.

    Such code needs no interpreter: the env runs it on the host shim directly (the common case for
    agents, and much faster). Everything else goes to the sandbox. Raises ``ActionError`` on a syntax error.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise ActionError("syntax_error", f"SyntaxError: {exc.msg} (line {exc.lineno})") from None
    calls: list[ShimCall] = []
    for node in tree.body:
        if isinstance(node, ast.Import) and all(a.name in ("pyautogui", "time") and a.asname is None for a in node.names):
            continue
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                and _is_name(node.targets[0].value, "pyautogui") and node.targets[0].attr in _IGNORED_ATTRIBUTES):
            continue
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            return None
        call = node.value
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        if _is_name(func.value, "time") and func.attr == "sleep":
            name = "sleep"
        elif _is_name(func.value, "pyautogui") and func.attr in PyAutoGUIShim.FUNCTIONS:
            name = func.attr
        else:
            return None
        try:
            args = tuple(ast.literal_eval(a) for a in call.args if not isinstance(a, ast.Starred))
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg is not None}
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
        if len(args) != len(call.args) or len(kwargs) != len(call.keywords):
            return None
        calls.append(ShimCall(name, args, kwargs))
    return calls


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def run_calls(shim: PyAutoGUIShim, calls: list[ShimCall]) -> None:
    """Run parsed calls on the shim; a wrong signature is reported like Python would."""
    for call in calls:
        method = getattr(shim, call.name)
        try:
            method(*call.args, **call.kwargs)
        except TypeError as exc:
            raise ActionError("bad_arguments", f"pyautogui.{call.name}: {exc}") from None
