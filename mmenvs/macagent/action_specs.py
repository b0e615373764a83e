"""MacAgent's action interfaces as declarations: the prompt text, the tool schemas and the dict formats of
other agent stacks, all read from the tables the parser checks against.

Three agent set-ups (the ``framework`` of ``action_description``/``tool_specs``):

- ``"pyautogui"`` (MacAgentBench Prompt 1a): a ```` ```python ```` block of the pyautogui calls the shim
  supports (``PyAutoGUIShim.FUNCTIONS``, signatures read from the shim itself), or ``WAIT``/``FAIL``/``DONE``.
- ``"computer_use"`` (Prompt 1b): one function, ``computer_use``, whose ``action`` is one of
  ``COMPUTER_USE_ACTIONS`` with the parameters declared there (Qwen's computer-use tool, restricted to
  what this desktop does: no horizontal scroll, no free-text ``answer``).
- ``"hybrid"`` (the AgentS3-style GUI + code space): the pyautogui grammar plus ```` ```bash ```` and
  ```` ```applescript ```` blocks; as tools, ``computer_use`` plus ``bash`` and ``applescript``.

Dicts the parser also takes, each translated into the same input events as the pyautogui calls it
stands for (``translate_dict`` returns those calls as straight-line pyautogui code, which the env runs on
its shim like any other; no other path reaches the desktop):

- a function call of these tools: ``{"name": "computer_use" | "bash" | "applescript", "arguments": {...}}``
  (also OpenAI's ``{"function": {...}}`` nesting, arguments as a JSON string);
- an OpenAI computer-use action (``{"type": "click", "x", "y", "button"}``, ``double_click``, ``scroll``
  with ``scroll_x``/``scroll_y`` in pixels, ``type``, ``keypress``, ``move``, ``drag`` with a ``path``,
  ``wait``, ``screenshot``), alone or inside its ``computer_call`` item;
- an Anthropic ``computer_20250124`` action (``{"action": "left_click", "coordinate": [x, y]}``, ``key``
  and ``hold_key`` with xdotool key names, ``type``, ``mouse_move``, ``left_click_drag`` with
  ``start_coordinate``, ``left_mouse_down``/``up``, ``right``/``middle``/``double``/``triple_click`` (held
  modifier keys in ``text``), ``scroll`` with ``scroll_direction``/``scroll_amount``, ``wait`` with a
  ``duration``, ``screenshot``, ``cursor_position``), alone or inside its ``tool_use`` block.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from mmenvs.core import ActionError, FunctionDecl, Param, function_spec, parse_tool_call

FRAMEWORKS = ("pyautogui", "computer_use", "hybrid")
CONTROL_WORDS = {"DONE": "the task is done (ends the episode)", "FAIL": "the task cannot be done (ends the episode)",
                 "WAIT": "let a few seconds pass and look again"}
#: Fenced blocks the parser runs, by tag (``osascript`` is an alias of ``applescript``).
FENCES = {"python": "pyautogui calls (``import pyautogui``; ``time.sleep`` moves the desktop clock)",
          "bash": "a shell command in the episode's home; output and exit code come back",
          "applescript": "an AppleScript, run as osascript would; its result comes back"}
#: Pixels of an OpenAI ``scroll`` per wheel notch (the desktop scrolls in notches, as pyautogui does):
#: Chromium's wheel delta. A non-zero scroll smaller than one notch still scrolls one.
OPENAI_SCROLL_PIXELS_PER_NOTCH = 100
MAX_NOTCHES = 500


# ---------------------------------------------------------------------------------------------- computer_use
@dataclass(frozen=True)
class Verb:
    """One action of a computer tool: what it does, its required and optional parameters."""

    description: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return self.required + self.optional


_POINT = dict(kind="array", items="number", item_minimum=0, min_items=2, max_items=2)
#: Every parameter of the computer_use tool (one declaration each; the verbs say which they take).
COMPUTER_USE_PARAMS: dict[str, Param] = {
    "keys": Param("keys", "array", "pyautogui key names, e.g. [\"command\", \"c\"] or [\"enter\"].", items="string", min_items=1),
    "text": Param("text", "string", "The text to type."),
    "coordinate": Param("coordinate", description="[x, y] in screen pixels from the top-left corner.", **_POINT),
    "pixels": Param("pixels", "integer", "Scroll wheel notches: positive scrolls up, negative down.",
                    minimum=-MAX_NOTCHES, maximum=MAX_NOTCHES),
    "time": Param("time", "number", "Seconds to wait (at most an hour).", minimum=0, maximum=3600),
    "status": Param("status", "string", "success: the task is done; failure: it cannot be done.", choices=("success", "failure")),
}
COMPUTER_USE_ACTIONS: dict[str, Verb] = {
    "key": Verb("Press the keys down in order, then release them in reverse order (one key: a key press).", ("keys",)),
    "type": Verb("Type a string of text on the keyboard.", ("text",)),
    "mouse_move": Verb("Move the pointer to coordinate.", ("coordinate",)),
    "left_click": Verb("Click the left button at coordinate (default: where the pointer is).", (), ("coordinate",)),
    "left_click_drag": Verb("Drag with the left button held from the pointer to coordinate.", ("coordinate",)),
    "right_click": Verb("Click the right button at coordinate (default: the pointer).", (), ("coordinate",)),
    "middle_click": Verb("Click the middle button at coordinate (default: the pointer).", (), ("coordinate",)),
    "double_click": Verb("Double-click the left button at coordinate (default: the pointer).", (), ("coordinate",)),
    "triple_click": Verb("Triple-click the left button at coordinate (default: the pointer).", (), ("coordinate",)),
    "scroll": Verb("Turn the scroll wheel by pixels notches at coordinate (default: the pointer).", ("pixels",), ("coordinate",)),
    "wait": Verb("Let time pass (time seconds; default a few seconds) and look again.", (), ("time",)),
    "terminate": Verb("End the task, reporting status.", ("status",)),
}
COMPUTER_USE_TOOL = "computer_use"
BASH_TOOL = FunctionDecl("bash", "Run a shell command (bash) in the episode's home folder; its output and exit code come back.",
                         (Param("command", "string", "The command line (several lines allowed)."),))
APPLESCRIPT_TOOL = FunctionDecl("applescript", "Run an AppleScript as osascript would; its result comes back.",
                                (Param("script", "string", "The AppleScript source."),))
CODE_TOOLS = {BASH_TOOL.name: BASH_TOOL, APPLESCRIPT_TOOL.name: APPLESCRIPT_TOOL}


def _check_verb(tool: str, verb_name: str, verbs: Mapping[str, Verb], params: Mapping[str, Param],
                arguments: Mapping[str, Any], ignored: Sequence[str] = ()) -> dict[str, Any]:
    """The arguments of one verb checked against its declaration (the verb's key itself and ``ignored``
    keys left out): unknown and missing parameters are refused, each value checked by its Param."""
    if not isinstance(verb_name, str) or verb_name not in verbs:
        raise ActionError("unknown_verb", f"{tool}: unknown action {verb_name!r}; use one of {', '.join(verbs)}.")
    verb = verbs[verb_name]
    given = {k: v for k, v in arguments.items() if k not in ignored}
    unknown = sorted(set(given) - set(verb.names))
    if unknown:
        takes = ", ".join(verb.names) or "no parameters"
        raise ActionError("bad_parameters", f"{tool} {verb_name!r} takes {takes}; unexpected: {', '.join(unknown)}.")
    missing = [name for name in verb.required if name not in given]
    if missing:
        raise ActionError("bad_parameters", f"{tool} {verb_name!r} needs {', '.join(missing)}.")
    return {name: params[name].check(value, f"{tool} {verb_name!r}: {name}") for name, value in given.items()}


def computer_use_spec(screen_size: tuple[int, int]) -> dict[str, Any]:
    """The computer_use tool's OpenAI schema: the verbs as the ``action`` enum, every parameter with
    the verbs that need or take it (from ``COMPUTER_USE_ACTIONS``)."""
    width, height = screen_size
    verbs = "\n".join(f"* `{name}`: {verb.description}" for name, verb in COMPUTER_USE_ACTIONS.items())
    properties: dict[str, Any] = {"action": {"type": "string", "enum": list(COMPUTER_USE_ACTIONS),
                                             "description": f"The action to perform:\n{verbs}"}}
    for name, param in COMPUTER_USE_PARAMS.items():
        needs = [v for v, verb in COMPUTER_USE_ACTIONS.items() if name in verb.required]
        takes = [v for v, verb in COMPUTER_USE_ACTIONS.items() if name in verb.optional]
        use = "; ".join(part for part in (f"required by action={', '.join(needs)}" if needs else "",
                                          f"optional for action={', '.join(takes)}" if takes else "") if part)
        schema = param.schema()
        schema["description"] = f"{schema['description']} ({use}.)"
        properties[name] = schema
    description = (f"Use the mouse and keyboard of a macOS desktop; a screenshot comes back after each call. "
                   f"The screen is {width}x{height} pixels; x grows rightwards, y downwards, (0, 0) is the top-left corner.")
    return function_spec(COMPUTER_USE_TOOL, description, {"type": "object", "properties": properties, "required": ["action"],
                                                          "additionalProperties": False})


def computer_use_code(arguments: Mapping[str, Any]) -> str:
    """A computer_use call as the action it stands for: pyautogui code (unfenced) or a control word."""
    verb = arguments.get("action")
    if not isinstance(verb, str) or verb not in COMPUTER_USE_ACTIONS:
        raise ActionError("unknown_verb", f"computer_use: action must be one of {', '.join(COMPUTER_USE_ACTIONS)}, got {verb!r}.")
    args = _check_verb("computer_use", verb, COMPUTER_USE_ACTIONS, COMPUTER_USE_PARAMS, arguments, ignored=("action",))
    point = _xy(args.get("coordinate"))
    if verb == "key":
        return _keys_code(args["keys"])
    if verb == "type":
        return _code(("write", (args["text"],)))
    if verb == "mouse_move":
        return _code(("moveTo", point))
    if verb == "left_click_drag":
        return _code(("dragTo", point))
    if verb in _CLICKS:
        return _code((_CLICKS[verb], point))
    if verb == "scroll":
        return _code(("scroll", (args["pixels"], *point)))
    if verb == "wait":
        return "WAIT" if "time" not in args else _code(("sleep", (args["time"],)))
    return "DONE" if args["status"] == "success" else "FAIL"  # terminate


_CLICKS = {"left_click": "click", "right_click": "rightClick", "middle_click": "middleClick",
           "double_click": "doubleClick", "triple_click": "tripleClick"}


# ---------------------------------------------------------------------------------------------- code generation
def _xy(point: Sequence[float] | None) -> tuple[Any, ...]:
    if point is None:
        return ()
    return tuple(int(v) if float(v).is_integer() else float(v) for v in point)


def _code(*calls: tuple[Any, ...]) -> str:
    """Straight-line pyautogui code with literal arguments (what the env's fast path runs on its shim);
    each call is ``(name, args)`` or ``(name, args, kwargs)``."""
    lines = ["import pyautogui"]
    for name, args, *rest in calls:
        kwargs = rest[0] if rest else {}
        arguments = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
        lines.append(f"pyautogui.{name}({', '.join(arguments)})")
    return "\n".join(lines)


def _keys_code(keys: Sequence[str]) -> str:
    return _code(("press", (keys[0],)) if len(keys) == 1 else ("hotkey", tuple(keys)))


def _held(modifiers: Sequence[str], *calls: tuple[str, tuple[Any, ...]]) -> str:
    """``calls`` with ``modifiers`` held down around them (released in reverse order)."""
    down = [("keyDown", (key,)) for key in modifiers]
    up = [("keyUp", (key,)) for key in reversed(modifiers)]
    return _code(*down, *calls, *up)


# ---------------------------------------------------------------------------------------------- key names
#: Key names of xdotool (Anthropic) and of OpenAI's computer-use (browser key names) that pyautogui
#: spells otherwise. Lower-cased lookups; anything else passes through to the desktop's key table.
FOREIGN_KEYS = {
    "return": "enter", "kp_enter": "enter", "escape": "esc", "delete": "del", "backspace": "backspace",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    "page_up": "pageup", "page_down": "pagedown", "prior": "pageup", "next": "pagedown",
    "super": "command", "super_l": "command", "super_r": "command", "meta": "command", "meta_l": "command",
    "cmd": "command", "control": "ctrl", "control_l": "ctrl", "control_r": "ctrl", "ctrl_l": "ctrl", "ctrl_r": "ctrl",
    "alt_l": "option", "alt_r": "option", "shift_l": "shift", "shift_r": "shift", "caps_lock": "capslock",
    "minus": "-", "equal": "=", "plus": "+", "comma": ",", "period": ".", "slash": "/", "backslash": "\\",
    "semicolon": ";", "apostrophe": "'", "grave": "`", "bracketleft": "[", "bracketright": "]", "space": "space",
    **{f"kp_{i}": f"num{i}" for i in range(10)},
}


def foreign_key(name: Any, *, fold_case: bool) -> str:
    """A foreign key name in pyautogui's spelling (``fold_case``: single letters lower-cased too, for
    OpenAI's upper-case key names)."""
    if not isinstance(name, str) or not name:
        raise ActionError("bad_parameters", f"a key name must be a non-empty string, got {name!r}")
    if len(name) == 1:
        return name.lower() if fold_case else name
    return FOREIGN_KEYS.get(name.lower(), name.lower())


def _xdotool_chords(text: Any, where: str) -> list[list[str]]:
    """xdotool ``key`` syntax: chords separated by spaces, keys of a chord by ``+`` (``"ctrl+s"``, ``"Return"``)."""
    if not isinstance(text, str) or not text.strip():
        raise ActionError("bad_parameters", f"{where}: text must name the keys, e.g. \"ctrl+s\" or \"Return\", got {text!r}")
    chords = []
    for chord in text.split():
        keys = chord.split("+") if chord != "+" else ["+"]
        if any(not k for k in keys):
            raise ActionError("bad_parameters", f"{where}: {chord!r} is not a key combination like \"ctrl+s\"")
        chords.append([foreign_key(k, fold_case=False) for k in keys])
    return chords


# ---------------------------------------------------------------------------------------------- OpenAI
_OPENAI_PARAMS: dict[str, Param] = {
    "x": Param("x", "number", "x in screen pixels.", minimum=0),
    "y": Param("y", "number", "y in screen pixels.", minimum=0),
    "button": Param("button", "string", "Mouse button.", choices=("left", "right", "wheel", "back", "forward")),
    "scroll_x": Param("scroll_x", "number", "Horizontal scroll in pixels."),
    "scroll_y": Param("scroll_y", "number", "Vertical scroll in pixels (positive: down)."),
    "text": Param("text", "string", "Text to type."),
    "keys": Param("keys", "array", "Keys pressed together.", items="string", min_items=1),
    "path": Param("path", "array", "Points of the drag, [{x, y}, ...].", min_items=2),
}
OPENAI_ACTIONS: dict[str, Verb] = {
    "click": Verb("click", ("x", "y"), ("button",)),
    "double_click": Verb("double click", ("x", "y")),
    "scroll": Verb("scroll", ("x", "y", "scroll_x", "scroll_y")),
    "type": Verb("type", ("text",)),
    "keypress": Verb("key chord", ("keys",)),
    "move": Verb("move", ("x", "y")),
    "drag": Verb("drag", ("path",)),
    "wait": Verb("wait"),
    "screenshot": Verb("screenshot"),
}
_OPENAI_BUTTONS = {"left": "left", "right": "right", "wheel": "middle"}


def openai_code(action: Mapping[str, Any]) -> str:
    """An OpenAI computer-use action as pyautogui code or a control word."""
    kind = action.get("type")
    args = _check_verb("OpenAI computer action", kind, OPENAI_ACTIONS, _OPENAI_PARAMS, action, ignored=("type",))
    point = (_num(args["x"]), _num(args["y"])) if "x" in args else ()
    if kind == "click":
        button = args.get("button", "left")
        if button not in _OPENAI_BUTTONS:
            raise ActionError("unsupported", f"OpenAI computer action 'click': the {button!r} button does not exist on this desktop; use left, right or wheel.")
        return _code(("click", point, {"button": _OPENAI_BUTTONS[button]}) if button != "left" else ("click", point))
    if kind == "double_click":
        return _code(("doubleClick", point))
    if kind == "move":
        return _code(("moveTo", point))
    if kind == "type":
        return _code(("write", (args["text"],)))
    if kind == "keypress":
        return _keys_code([foreign_key(k, fold_case=True) for k in args["keys"]])
    if kind == "scroll":
        if args["scroll_x"]:
            raise ActionError("unsupported", "OpenAI computer action 'scroll': horizontal scrolling (scroll_x) is not supported on this desktop; use scroll_y.")
        return _code(("scroll", (_notches(args["scroll_y"]), *point)))
    if kind == "drag":
        points = [_path_point(p, i) for i, p in enumerate(args["path"])]
        if len(points) == 2:  # pyautogui's own drag: press at the start, move, release at the end
            return _code(("moveTo", points[0]), ("dragTo", points[1]))
        return _code(("moveTo", points[0]), ("mouseDown", ()), *[("moveTo", p) for p in points[1:]], ("mouseUp", ()))
    if kind == "wait":
        return "WAIT"
    return _code()  # screenshot: no input event; the observation is the screenshot


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _notches(pixels: float) -> int:
    """OpenAI's vertical pixels (positive: down) as pyautogui wheel notches (positive: up)."""
    if not pixels:
        return 0
    notches = max(1, round(abs(pixels) / OPENAI_SCROLL_PIXELS_PER_NOTCH))
    return -notches if pixels > 0 else notches


def _path_point(point: Any, index: int) -> tuple[Any, Any]:
    if not (isinstance(point, Mapping) and set(point) == {"x", "y"}):
        raise ActionError("bad_parameters", f"OpenAI computer action 'drag': path[{index}] must be {{\"x\": …, \"y\": …}}, got {point!r}.")
    return (_num(_OPENAI_PARAMS["x"].check(point["x"], f"drag path[{index}].x")),
            _num(_OPENAI_PARAMS["y"].check(point["y"], f"drag path[{index}].y")))


# ---------------------------------------------------------------------------------------------- Anthropic
_ANTHROPIC_PARAMS: dict[str, Param] = {
    "coordinate": Param("coordinate", description="[x, y] in screen pixels.", **_POINT),
    "start_coordinate": Param("start_coordinate", description="[x, y] where a drag starts.", **_POINT),
    "text": Param("text", "string", "Text to type, keys (xdotool syntax) or modifier keys held during a click or scroll."),
    "duration": Param("duration", "number", "Seconds.", minimum=0, maximum=3600),
    "scroll_direction": Param("scroll_direction", "string", "Scroll direction.", choices=("up", "down", "left", "right")),
    "scroll_amount": Param("scroll_amount", "integer", "Wheel notches.", minimum=0, maximum=MAX_NOTCHES),
}
_MODIFIER_CLICK = ((), ("coordinate", "text"))
ANTHROPIC_ACTIONS: dict[str, Verb] = {
    "key": Verb("key", ("text",)),
    "hold_key": Verb("hold keys", ("text", "duration")),
    "type": Verb("type", ("text",)),
    "cursor_position": Verb("pointer position"),
    "mouse_move": Verb("move", ("coordinate",)),
    "left_mouse_down": Verb("press the left button", (), ("coordinate",)),
    "left_mouse_up": Verb("release the left button", (), ("coordinate",)),
    "left_click": Verb("click", *_MODIFIER_CLICK),
    "left_click_drag": Verb("drag", ("coordinate",), ("start_coordinate",)),
    "right_click": Verb("right click", *_MODIFIER_CLICK),
    "middle_click": Verb("middle click", *_MODIFIER_CLICK),
    "double_click": Verb("double click", *_MODIFIER_CLICK),
    "triple_click": Verb("triple click", *_MODIFIER_CLICK),
    "scroll": Verb("scroll", ("scroll_direction", "scroll_amount"), ("coordinate", "text")),
    "wait": Verb("wait", ("duration",)),
    "screenshot": Verb("screenshot"),
}


def anthropic_code(action: Mapping[str, Any]) -> str:
    """An Anthropic computer_20250124 action as pyautogui code or a control word."""
    verb = action.get("action")
    where = f"Anthropic computer action {verb!r}"
    args = _check_verb("Anthropic computer action", verb, ANTHROPIC_ACTIONS, _ANTHROPIC_PARAMS, action, ignored=("action",))
    point = _xy(args.get("coordinate"))
    modifiers = [k for chord in _xdotool_chords(args["text"], where) for k in chord] if "text" in args and verb not in ("key", "hold_key", "type") else []
    if verb == "key":
        chords = _xdotool_chords(args["text"], where)
        return _code(*[("press", (c[0],)) if len(c) == 1 else ("hotkey", tuple(c)) for c in chords])
    if verb == "hold_key":
        keys = [k for chord in _xdotool_chords(args["text"], where) for k in chord]
        return _held(keys, ("sleep", (args["duration"],)))
    if verb == "type":
        return _code(("write", (args["text"],)))
    if verb == "cursor_position":
        return _code(("position", ()))
    if verb == "mouse_move":
        return _code(("moveTo", point))
    if verb in ("left_mouse_down", "left_mouse_up"):
        return _code(("mouseDown" if verb == "left_mouse_down" else "mouseUp", point))
    if verb in _CLICKS:
        return _held(modifiers, (_CLICKS[verb], point))
    if verb == "left_click_drag":
        start = _xy(args.get("start_coordinate"))
        return _code(*([("moveTo", start)] if start else []), ("dragTo", point))
    if verb == "scroll":
        direction, amount = args["scroll_direction"], args["scroll_amount"]
        if direction in ("left", "right"):
            raise ActionError("unsupported", f"{where}: horizontal scrolling is not supported on this desktop; scroll up or down.")
        return _held(modifiers, ("scroll", (amount if direction == "up" else -amount, *point)))
    if verb == "wait":
        return _code(("sleep", (args["duration"],)))
    return _code()  # screenshot


# ---------------------------------------------------------------------------------------------- dispatch
def is_foreign_dict(action: Mapping[str, Any]) -> bool:
    """Whether ``action`` is one of the dict formats ``translate_dict`` reads (rather than OSWorld's
    ``computer_13`` dict or the env's own ``{"python": …}``-style dicts)."""
    if "action_type" in action:
        return False
    if "name" in action or isinstance(action.get("function"), Mapping):
        return True
    kind = action.get("type")
    if kind in ("computer_call", "tool_use") or kind in OPENAI_ACTIONS:
        return True
    verb = action.get("action")
    # Anthropic verbs are lower-case; computer_13 dicts may spell their verb under "action" with x/y.
    return verb in ANTHROPIC_ACTIONS and set(action) <= {"action", *_ANTHROPIC_PARAMS} and not (verb == "wait" and "duration" not in action)


def translate_dict(action: Mapping[str, Any]) -> tuple[str, str]:
    """``(kind, payload)`` for a foreign dict: ``("python", code)``, ``("bash", command)``,
    ``("applescript", source)`` or ``("control", word)``. Raises ``ActionError`` naming the problem."""
    if action.get("type") == "computer_call" and isinstance(action.get("action"), Mapping):
        return _as_action(openai_code(action["action"]))
    if action.get("type") == "tool_use" and isinstance(action.get("input"), Mapping):
        return _as_action(anthropic_code(action["input"]))
    if "name" in action or isinstance(action.get("function"), Mapping):
        call = parse_tool_call(dict(action))
        if call.name == COMPUTER_USE_TOOL:
            return _as_action(computer_use_code(call.arguments))
        if call.name in CODE_TOOLS:
            arguments = CODE_TOOLS[call.name].check_arguments(call.arguments)
            return call.name, arguments["command" if call.name == "bash" else "script"]
        raise ActionError("unknown_tool", f"Unknown tool {call.name!r}: this desktop's tools are "
                          f"{', '.join([COMPUTER_USE_TOOL, *CODE_TOOLS])}.")
    if action.get("type") in OPENAI_ACTIONS:
        return _as_action(openai_code(action))
    return _as_action(anthropic_code(action))


def _as_action(text: str) -> tuple[str, str]:
    return ("control", text) if text in CONTROL_WORDS else ("python", text)


# ---------------------------------------------------------------------------------------------- descriptions
def pyautogui_lines(shim_class: type) -> list[str]:
    """One line per pyautogui function the shim supports, its signature and summary read from the shim."""
    lines = []
    for name in shim_class.FUNCTIONS:
        method = getattr(shim_class, name)
        parameters = [p for p in inspect.signature(method).parameters.values()
                      if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD]
        signature = ", ".join(("*" + p.name) if p.kind is inspect.Parameter.VAR_POSITIONAL else
                              p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in parameters)
        summary = (inspect.getdoc(method) or "").split("\n")[0].replace("``", "`")  # reST quotes read as Markdown
        lines.append(f"- pyautogui.{name}({signature}): {summary}")
    return lines


def describe(framework: str | None, shim_class: type, screen_size: tuple[int, int], skills: Sequence[Any] = ()) -> str:
    """The action grammar of ``framework`` (None: everything the parser accepts) as prompt text. For
    "hybrid" it ends with the skill library the desktop ships (``skills``: :class:`~mmenvs.macagent.skills.Skill`
    objects), listed as OpenClaw lists them."""
    width, height = screen_size
    screen = f"The screen is {width}x{height} pixels; (0, 0) is the top-left corner, x grows rightwards, y downwards."
    controls = "\n".join(f"- {word}: {meaning}" for word, meaning in CONTROL_WORDS.items())
    pyautogui = ("A ```python block of pyautogui calls, one or more lines (import pyautogui first; key names are "
                 "pyautogui's, e.g. 'command', 'enter', 'a'):\n" + "\n".join(pyautogui_lines(shim_class))
                 + "\n- time.sleep(seconds): the same as pyautogui.sleep")
    if framework == "computer_use":
        verbs = "\n".join(f"- {name}({', '.join([*verb.required, *(o + '?' for o in verb.optional)])}): {verb.description}"
                          for name, verb in COMPUTER_USE_ACTIONS.items())
        params = "\n".join(f"- {p.name}: {p.description}" for p in COMPUTER_USE_PARAMS.values())
        return (f"{screen}\nCall the {COMPUTER_USE_TOOL} tool once per step with an action (? marks an optional "
                f"parameter):\n{verbs}\nParameters:\n{params}")
    if framework == "pyautogui":
        return f"{screen}\nReply with exactly one of:\n{pyautogui}\nor one of these words alone:\n{controls}"
    code = (f"- A ```bash block: {FENCES['bash']}.\n- An ```applescript block: {FENCES['applescript']}.")
    if framework == "hybrid":
        from mmenvs.macagent.skills import describe_skills

        listed = describe_skills(tuple(skills))
        return (f"{screen}\nReply with exactly one of:\n{pyautogui}\n{code}\nor one of these words alone:\n{controls}"
                + (f"\n{listed}" if listed else ""))
    if framework is not None:
        raise ValueError(f"MacAgent-v0: framework must be one of {FRAMEWORKS} (or None: everything), got {framework!r}")
    from mmenvs.macagent.actions import VERB_PARAMS  # the parser's computer_13 table

    verbs = "\n".join(f"- {verb}({', '.join(n if req else n + '?' for n, req in params.items())})" for verb, params in VERB_PARAMS.items())
    return (f"{screen}\nReply with exactly one of:\n{pyautogui}\n{code}\n"
            f"- A computer-use JSON object {{\"action_type\": VERB, ...parameters}} (? marks an optional parameter):\n{verbs}\n"
            f"- A call of the {COMPUTER_USE_TOOL}, bash or applescript tool as {{\"name\": ..., \"arguments\": {{...}}}}.\n"
            f"or one of these words alone:\n{controls}")


def tool_specs(framework: str | None, screen_size: tuple[int, int]) -> list[dict[str, Any]]:
    """The tools of ``framework``: computer_use, plus bash and applescript for "hybrid" (and None)."""
    if framework not in (*FRAMEWORKS, None):
        raise ValueError(f"MacAgent-v0: framework must be one of {FRAMEWORKS} (or None), got {framework!r}")
    specs = [computer_use_spec(screen_size)]
    if framework in ("hybrid", None):
        specs += [tool.openai() for tool in CODE_TOOLS.values()]
    return specs
