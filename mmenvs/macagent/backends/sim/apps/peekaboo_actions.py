"""peekaboo's automation commands in the simulated Mac (the capture and list commands are in
:mod:`.peekaboo_cli`): ``app``, ``open``, ``window``, ``type``, ``press``, ``hotkey``, ``click``,
``scroll``, ``clipboard``, ``sleep`` and ``see``. They act on the sim's desktop through the backend's
own input methods (the same path pyautogui actions take), so what they do is what a keystroke or a
click does in the sim.

``see`` captures a window (``--app``, else the frontmost) as a PNG and lists its UI elements from the
sim's accessibility tree with peekaboo-style ids (``B1`` buttons, ``T1`` text fields, ``L1`` links,
``G1`` other elements); ``--annotate`` draws each element's box and id on the capture. The last map is
kept in ``~/.peekaboo/snapshots/latest.json`` so ``click --on B1`` can target an element. Text for
``type`` takes ``\\n``, ``\\t`` and ``\\\\`` escapes as the real tool does (Return, Tab, a backslash).
"""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from mmenvs.core.budget import check_limit

from ...base import BackendError
from .cli_support import CliExit, int_value, layer, resolve, write_file

if TYPE_CHECKING:  # pragma: no cover
    from .base import App, CommandContext

USAGE_CODE = 64
SNAPSHOT = ".peekaboo/snapshots/latest.json"
MAX_TYPED = 100_000  # characters one ``type`` call enters
MAX_REPEAT = 100  # ``press --count`` / ``scroll --amount``

#: subcommand → value flags it takes (every command also takes --json/-j)
ACTION_FLAGS: dict[str, set[str]] = {
    "app": {"--app", "--to", "--pid"},
    "open": {"--app", "--bundle-id"},
    "window": {"--app", "--pid", "--window-title", "--window-index", "--x", "--y", "--width", "--height"},
    "type": {"--app", "--delay"},
    "press": {"--app", "--count", "--delay"},
    "hotkey": {"--keys", "--app", "--hold-duration"},
    "click": {"--app", "--on", "--id", "--coords", "--wait-for", "--snapshot"},
    "scroll": {"--app", "--direction", "--amount", "--on"},
    "clipboard": {"--action", "--text", "--file-path", "--output"},
    "sleep": set(),
    "see": {"--app", "--pid", "--window-title", "--path", "--mode"},
}
ACTION_BOOLS: dict[str, set[str]] = {
    "app": {"--wait-until-ready", "--no-focus", "--force", "--all"},
    "open": {"--wait-until-ready", "--no-focus"},
    "window": set(),
    "type": {"--clear", "--press-return", "--return", "--tab"},
    "press": set(),
    "hotkey": set(),
    "click": {"--double", "--right"},
    "scroll": {"--smooth"},
    "clipboard": set(),
    "sleep": set(),
    "see": {"--annotate"},
}

_KEY_NAMES = {"cmd": "command", "command": "command", "⌘": "command", "shift": "shift", "⇧": "shift", "alt": "option",
              "option": "option", "opt": "option", "⌥": "option", "ctrl": "ctrl", "control": "ctrl", "⌃": "ctrl",
              "fn": "fn", "return": "enter", "enter": "enter", "esc": "esc", "escape": "esc", "tab": "tab",
              "space": "space", "delete": "backspace", "backspace": "backspace", "forward_delete": "delete",
              "up": "up", "down": "down", "left": "left", "right": "right", "home": "home", "end": "end",
              "pageup": "pageup", "page_up": "pageup", "pagedown": "pagedown", "page_down": "pagedown"}


class Failure(Exception):
    """A peekaboo failure: the message and its error code (JSON ``error.code``)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message, code)
        self.message, self.code = message, code


def _backend_call(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except BackendError as e:
        raise Failure(str(e), "INVALID_ARGUMENT") from None


def unescape(text: str) -> str:
    """``\\n``, ``\\t``, ``\\\\`` as peekaboo's ``type`` reads them."""
    return re.sub(r"\\([ntr\\])", lambda m: {"n": "\n", "t": "\t", "r": "\n", "\\": "\\"}[m.group(1)], text)


def _focus(ctx: "CommandContext", find_app: Any, values: dict[str, str]) -> "App | None":
    """Bring the ``--app`` target to the front first (the real tool focuses its target before input)."""
    if "--app" not in values and "--pid" not in values:
        return None
    desk = ctx.backend.current_desktop()
    app = find_app(desk, values.get("--app"), values.get("--pid"))
    desk.activate(app)
    return app


def run_action(cmd: str, pos: list[str], v: dict[str, str], ctx: "CommandContext", find_app: Any,
               capture: Any) -> tuple[dict[str, Any], str]:
    """Carry out one automation command: (JSON data, text output). ``find_app(desk, name, pid)`` resolves
    an app (raising :class:`Failure`); ``capture(desk, win)`` returns a window's pixels."""
    desk = ctx.backend.current_desktop()
    be = ctx.backend
    if cmd == "sleep":
        if len(pos) != 1:
            raise CliExit("Error: Missing expected argument '<duration>' (milliseconds)\n", USAGE_CODE)
        ms = int_value(pos[0], "<duration>", "peekaboo", USAGE_CODE)
        if ms < 0:
            raise CliExit("Error: the duration must be >= 0 milliseconds\n", USAGE_CODE)
        # the simulated Mac has nothing running in the background to wait for: the pause ends at once
        return {"requested_duration": ms, "actual_duration": ms}, f"✅ Paused for {ms}ms\n"
    if cmd == "app":
        return _app(pos, v, ctx, find_app)
    if cmd == "open":
        return _open(pos, v, ctx, find_app)
    if cmd == "window":
        return _window(pos, v, ctx, find_app)
    if cmd == "clipboard":
        return _clipboard(pos, v, ctx)
    if cmd == "see":
        return _see(pos, v, ctx, find_app, capture)
    if cmd == "type":
        if not pos and not v.get("--press-return") and "--clear" not in v:
            raise CliExit("Error: Missing expected argument '<text>'\n", USAGE_CODE)
        text = unescape(" ".join(pos))
        check_limit("tool_argument_chars", min(MAX_TYPED, be.budget.tool_argument_chars), len(text),
                    f"peekaboo type: a text of {len(text):,} characters")
        _focus(ctx, find_app, v)
        if v.get("--clear"):
            _backend_call(be.hotkey, "command", "a")
            _backend_call(be.press, "backspace")
        _backend_call(be.type_text, text)
        if v.get("--press-return") or v.get("--return"):
            _backend_call(be.press, "enter")
        if v.get("--tab"):
            _backend_call(be.press, "tab")
        return {"typed_text": text, "characters": len(text)}, f"✅ Typed {len(text)} characters\n"
    if cmd == "press":
        if not pos:
            raise CliExit("Error: Missing expected argument '<keys>'\n", USAGE_CODE)
        count = int_value(v.get("--count", "1"), "--count", "peekaboo", USAGE_CODE)
        if not 1 <= count <= MAX_REPEAT:
            raise CliExit(f"Error: --count must be between 1 and {MAX_REPEAT}\n", USAGE_CODE)
        keys = [_key(k) for k in pos]
        _focus(ctx, find_app, v)
        for _ in range(count):
            for k in keys:
                _backend_call(be.press, k)
        return {"keys": pos, "count": count}, f"✅ Pressed {' '.join(pos)}" + (f" x{count}" if count > 1 else "") + "\n"
    if cmd == "hotkey":
        combo = v.get("--keys") or (pos[0] if pos else "")
        if not combo:
            raise CliExit("Error: Missing expected argument '--keys <keys>' (e.g. \"cmd,c\")\n", USAGE_CODE)
        keys = [_key(k) for k in re.split(r"[,+ ]+", combo.strip()) if k]
        _focus(ctx, find_app, v)
        _backend_call(be.hotkey, *keys)
        return {"keys": combo}, f"✅ Pressed {combo}\n"
    if cmd == "click":
        return _click(pos, v, ctx, find_app)
    if cmd == "scroll":
        direction = v.get("--direction", "down").lower()
        if direction not in ("up", "down", "left", "right"):
            raise CliExit(f"Error: The value '{direction}' is invalid for '--direction' (up, down, left, right)\n",
                          USAGE_CODE)
        amount = int_value(v.get("--amount", "3"), "--amount", "peekaboo", USAGE_CODE)
        if not 1 <= amount <= MAX_REPEAT:
            raise CliExit(f"Error: --amount must be between 1 and {MAX_REPEAT}\n", USAGE_CODE)
        _focus(ctx, find_app, v)
        if direction in ("up", "down"):
            _backend_call(be.scroll, amount if direction == "up" else -amount)
        return {"direction": direction, "amount": amount}, f"✅ Scrolled {direction} {amount}\n"
    raise CliExit(f"Error: Unexpected argument '{cmd}'\n", USAGE_CODE)


def _key(name: str) -> str:
    k = name.strip().lower()
    if k in _KEY_NAMES:
        return _KEY_NAMES[k]
    if re.fullmatch(r"f([1-9]|1[0-9]|20)", k) or len(k) == 1:
        return k
    raise CliExit(f"Error: Unknown key '{name}' (e.g. cmd, shift, option, ctrl, return, tab, escape, space, delete, "
                  "up, a, 1)\n", USAGE_CODE)


# ---------------------------------------------------------------------------------------------- app / open
def _app(pos: list[str], v: dict[str, str], ctx: "CommandContext", find_app: Any) -> tuple[dict[str, Any], str]:
    desk = ctx.backend.current_desktop()
    if not pos:
        raise CliExit("Error: Missing expected argument '<subcommand>' (launch, quit, relaunch, hide, unhide, switch, "
                      "list)\n", USAGE_CODE)
    sub, rest = pos[0], pos[1:]
    if sub == "list":
        apps = [a for a in desk.running_apps() if not a.background_only]
        return ({"applications": [{"app_name": a.name, "bundle_id": a.bundle_id} for a in apps]},
                "".join(f"{a.name}\n" for a in apps))
    name = v.get("--to") if sub == "switch" else (rest[0] if rest else v.get("--app"))
    if sub not in ("launch", "quit", "relaunch", "hide", "unhide", "switch"):
        raise CliExit(f"Error: Unexpected argument '{sub}'\n", USAGE_CODE)
    if not name and "--pid" not in v:
        raise CliExit(f"Error: Missing expected argument: the app to {sub} (a name or --app)\n", USAGE_CODE)
    if sub == "launch":
        target = next((a for a in desk.apps.values() if name and name.lower() in (a.name.lower(), a.bundle_id.lower())),
                      None)
        if target is None or target.background_only:
            raise Failure(f"Application '{name}' not found", "APP_NOT_FOUND")
        if v.get("--no-focus"):
            if not target.running:
                target.launch()
                target.reopen()
                others = [a for a in desk.running_apps() if a is not target and a.windows]
                if others:
                    desk.activate(others[0], reopen=False)
        else:
            desk.activate(target)
        return {"app_name": target.name, "bundle_id": target.bundle_id, "launched": True}, f"✅ Launched {target.name}\n"
    app = find_app(desk, name, v.get("--pid"))
    if sub == "quit":
        if app.name == "Finder":
            raise Failure("Finder cannot be quit", "OPERATION_FAILED")
        app.quit()
        return {"app_name": app.name, "terminated": True}, f"✅ Quit {app.name}\n"
    if sub == "relaunch":
        if app.name != "Finder":
            app.quit()
        desk.activate(app)
        return {"app_name": app.name, "relaunched": True}, f"✅ Relaunched {app.name}\n"
    if sub == "hide":
        desk.hide_app(app)
        return {"app_name": app.name, "hidden": True}, f"✅ Hid {app.name}\n"
    desk.activate(app)  # unhide / switch
    verb = "Unhid" if sub == "unhide" else "Switched to"
    return {"app_name": app.name, "active": True}, f"✅ {verb} {app.name}\n"


def _open(pos: list[str], v: dict[str, str], ctx: "CommandContext", find_app: Any) -> tuple[dict[str, Any], str]:
    desk = ctx.backend.current_desktop()
    if len(pos) != 1:
        raise CliExit("Error: Missing expected argument '<target>' (a URL or a file path)\n", USAGE_CODE)
    target = pos[0]
    app_name = v.get("--app")
    if "://" in target:
        scheme = target.split("://", 1)[0].lower()
        if app_name:
            app = next((a for a in desk.apps.values() if app_name.lower() in (a.name.lower(), a.bundle_id.lower())), None)
            if app is None:
                raise Failure(f"Application '{app_name}' not found", "APP_NOT_FOUND")
        else:
            app = next((a for a in desk.apps.values() if scheme in a.url_schemes), None)
        if app is None or scheme not in app.url_schemes:
            raise Failure(f"No application can open {target}" + (f" with {app.name}" if app else ""), "OPERATION_FAILED")
        if not v.get("--no-focus"):
            desk.activate(app, reopen=False)
        app.open_url(target)
        return {"target": target, "app_name": app.name}, f"✅ Opened {target} with {app.name}\n"
    p = resolve(ctx, target, "peekaboo")
    if layer(ctx).kind(p) not in ("file", "dir"):
        raise Failure(f"File not found: {target}", "FILE_NOT_FOUND")
    if app_name:
        app = find_app(desk, app_name, None) if any(a.name.lower() == app_name.lower() and a.running
                                                     for a in desk.apps.values()) else \
            next((a for a in desk.apps.values() if a.name.lower() == app_name.lower()), None)
        if app is None:
            raise Failure(f"Application '{app_name}' not found", "APP_NOT_FOUND")
        if not app.can_open(p):
            raise Failure(f"{app.name} cannot open {target} in the simulator", "OPERATION_FAILED")
        desk.activate(app, reopen=False)
        app.open_file(p)
        return {"target": ctx.posix(p), "app_name": app.name}, f"✅ Opened {target} with {app.name}\n"
    desk.open_path(p)
    return {"target": ctx.posix(p)}, f"✅ Opened {target}\n"


# ---------------------------------------------------------------------------------------------- window
def _target_window(desk: Any, app: "App", v: dict[str, str]) -> Any:
    wins = app.windows
    if not wins:
        raise Failure(f"Application '{app.name}' has no windows", "WINDOW_NOT_FOUND")
    if "--window-index" in v:
        i = int_value(v["--window-index"], "--window-index", "peekaboo", USAGE_CODE)
        if not 0 <= i < len(wins):
            raise Failure(f"Window index {i} is out of range ({app.name} has {len(wins)} window(s))", "WINDOW_NOT_FOUND")
        return wins[i]
    if "--window-title" in v:
        want = v["--window-title"].lower()
        for w in wins:
            if want in w.title.lower():
                return w
        raise Failure(f"Window with title containing '{v['--window-title']}' not found in {app.name}", "WINDOW_NOT_FOUND")
    return wins[0]


def _window(pos: list[str], v: dict[str, str], ctx: "CommandContext", find_app: Any) -> tuple[dict[str, Any], str]:
    from ..scripting import AppleScriptError, set_window_bounds

    desk = ctx.backend.current_desktop()
    subs = ("close", "minimize", "maximize", "focus", "move", "resize", "set-bounds", "list")
    if not pos or pos[0] not in subs:
        raise CliExit(f"Error: Missing or unknown subcommand (expected one of: {', '.join(subs)})\n", USAGE_CODE)
    sub = pos[0]
    if "--app" not in v and "--pid" not in v:
        raise CliExit(f"Error: Missing expected argument '--app <app>'\nUsage: peekaboo window {sub} --app <app>\n",
                      USAGE_CODE)
    need = {"move": ("--x", "--y"), "resize": ("--width", "--height"),
            "set-bounds": ("--x", "--y", "--width", "--height")}.get(sub, ())
    missing = [f for f in need if f not in v]
    if missing:
        raise CliExit(f"Error: Missing expected argument '{missing[0]} <{missing[0][2:]}>'\n", USAGE_CODE)
    nums = {f: int_value(v[f], f, "peekaboo", USAGE_CODE) for f in need}
    app = find_app(desk, v.get("--app"), v.get("--pid"))
    if sub == "list":
        rows = [{"window_title": w.title, "window_index": i, "window_id": w.id,
                 "bounds": {"x": w.x, "y": w.y, "width": w.w, "height": w.h}} for i, w in enumerate(app.windows)]
        return {"windows": rows}, "".join(f"[{r['window_index']}] \"{r['window_title']}\" x={r['bounds']['x']} "
                                          f"y={r['bounds']['y']} {r['bounds']['width']}x{r['bounds']['height']}\n"
                                          for r in rows)
    win = _target_window(desk, app, v)
    if sub == "close":
        desk.close_window(win)
        return {"window_title": win.title, "closed": True}, f"✅ Closed window '{win.title}'\n"
    if sub == "minimize":
        desk.minimize(win)
        return {"window_title": win.title, "minimized": True}, f"✅ Minimized window '{win.title}'\n"
    if sub == "focus":
        win.minimized = False
        desk.activate(app, reopen=False)
        desk.raise_window(win)
        return {"window_title": win.title, "focused": True}, f"✅ Focused window '{win.title}'\n"
    if sub == "maximize":
        desk.zoom(win)
        return {"window_title": win.title, "bounds": _bounds(win)}, f"✅ Maximized window '{win.title}'\n"
    x, y = nums.get("--x", win.x), nums.get("--y", win.y)
    w, h = nums.get("--width", win.w), nums.get("--height", win.h)
    try:
        set_window_bounds(win, [x, y, x + w, y + h], f"window \"{win.title}\" of {app.name}")
    except AppleScriptError as e:
        raise Failure(str(e), "INVALID_ARGUMENT") from None
    return {"window_title": win.title, "bounds": _bounds(win)}, (
        f"✅ Window '{win.title}' of {app.name}: x={win.x} y={win.y} width={win.w} height={win.h}\n")


def _bounds(win: Any) -> dict[str, int]:
    return {"x": win.x, "y": win.y, "width": win.w, "height": win.h}


# ---------------------------------------------------------------------------------------------- clipboard
def _clipboard(pos: list[str], v: dict[str, str], ctx: "CommandContext") -> tuple[dict[str, Any], str]:
    board = ctx.backend.current_desktop().clipboard
    action = v.get("--action") or (pos[0] if pos else "get")
    if action == "get":
        return {"text": board.text}, board.text + ("\n" if board.text and not board.text.endswith("\n") else "")
    if action == "clear":
        board.set_text("")
        return {"cleared": True}, "✅ Clipboard cleared\n"
    if action == "set":
        if "--text" in v:
            text = v["--text"]
        elif "--file-path" in v:
            p = resolve(ctx, v["--file-path"], "peekaboo")
            text = layer(ctx).read_bytes(p, limit=ctx.backend.budget.tool_argument_chars).decode("utf-8", "replace")
        else:
            raise CliExit("Error: clipboard set needs --text <text> or --file-path <path>\n", USAGE_CODE)
        check_limit("tool_argument_chars", ctx.backend.budget.tool_argument_chars, len(text),
                    f"peekaboo clipboard: a text of {len(text):,} characters")
        board.set_text(text)
        return {"set": True, "characters": len(text)}, f"✅ Clipboard set ({len(text)} characters)\n"
    raise CliExit(f"Error: The value '{action}' is invalid for '--action' (get, set, clear)\n", USAGE_CODE)


# ---------------------------------------------------------------------------------------------- see / click
_TREE_LINE = re.compile(r'^(?P<indent> *)(?P<role>AX\w+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?: value="(?P<value>(?:[^"\\]|\\.)*)")?'
                        r'.*?\[(?P<x>-?\d+), (?P<y>-?\d+), (?P<w>\d+), (?P<h>\d+)\]')
_PREFIX = {"AXButton": "B", "AXTextField": "T", "AXTextArea": "T", "AXSearchField": "T", "AXLink": "L",
           "AXCheckBox": "C", "AXMenuItem": "M", "AXMenuBarItem": "M", "AXPopUpButton": "B", "AXRow": "R"}


def ui_elements(desk: Any, win: Any) -> list[dict[str, Any]]:
    """The elements of ``win`` in the accessibility tree, with peekaboo-style ids."""
    lines = desk.accessibility_tree().splitlines()
    out: list[dict[str, Any]] = []
    inside, depth = False, 0
    counters: dict[str, int] = {}
    for line in lines:
        m = _TREE_LINE.match(line)
        if m is None:
            continue
        indent = len(m.group("indent"))
        if m.group("role") == "AXWindow":
            rect = tuple(int(m.group(k)) for k in "xywh")
            inside = rect == (win.x, win.y, win.w, win.h) and (m.group("name") or "") == win.title
            depth = indent
            continue
        if inside and indent <= depth:
            inside = False
        if not inside:
            continue
        role = m.group("role")
        prefix = _PREFIX.get(role, "G")
        counters[prefix] = counters.get(prefix, 0) + 1
        out.append({"id": f"{prefix}{counters[prefix]}", "role": role, "title": m.group("name") or "",
                    "value": m.group("value"), "is_actionable": prefix in ("B", "T", "L", "C", "M", "R"),
                    "bounds": {"x": int(m.group("x")), "y": int(m.group("y")), "width": int(m.group("w")),
                               "height": int(m.group("h"))}})
    return out


def _see(pos: list[str], v: dict[str, str], ctx: "CommandContext", find_app: Any, capture: Any
         ) -> tuple[dict[str, Any], str]:
    from PIL import Image, ImageDraw

    desk = ctx.backend.current_desktop()
    if "--app" in v or "--pid" in v:
        app = find_app(desk, v.get("--app"), v.get("--pid"))
        win = _target_window(desk, app, v)
    else:
        win = next((w for w in reversed(desk.windows) if w.parent is None and w.kind != "spotlight"
                    and not w.minimized and not w.app.hidden), None)
        if win is None:
            raise Failure("No frontmost window to capture", "WINDOW_NOT_FOUND")
    if win.minimized:
        raise Failure(f"Window '{win.title}' is minimized and cannot be captured", "CAPTURE_FAILED")
    arr = capture(desk, win)
    elements = ui_elements(desk, win)
    img = Image.fromarray(np.ascontiguousarray(arr), "RGB")
    if v.get("--annotate"):
        d = ImageDraw.Draw(img)
        for e in elements:
            if not e["is_actionable"]:
                continue
            b = e["bounds"]
            x0, y0 = b["x"] - win.x, b["y"] - win.y
            d.rectangle((x0, y0, x0 + b["width"] - 1, y0 + b["height"] - 1), outline=(255, 45, 85), width=2)
            d.rectangle((x0, y0, x0 + 7 * len(e["id"]) + 4, y0 + 12), fill=(255, 45, 85))
            d.text((x0 + 2, y0), e["id"], fill=(255, 255, 255))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    stamp = desk.now.strftime("%Y%m%d_%H%M%S")
    path_text = v.get("--path") or f"peekaboo_see_{stamp}.png"
    dest = resolve(ctx, path_text, "peekaboo")
    write_file(ctx, dest, buf.getvalue(), parents=True)
    snapshot = {"snapshot_id": f"{win.app.name}-{win.id}-{stamp}", "application_name": win.app.name,
                "window_title": win.title, "window_id": win.id, "screenshot": ctx.posix(dest),
                "annotated": bool(v.get("--annotate")), "ui_elements": elements}
    write_file(ctx, resolve(ctx, "~/" + SNAPSHOT, "peekaboo"), json.dumps(snapshot, indent=2).encode(), parents=True)
    lines = [f"🖼  Screenshot saved to: {ctx.posix(dest)}", f"🧭 {win.app.name} - {win.title}: "
             f"{len(elements)} UI elements ({sum(e['is_actionable'] for e in elements)} interactive)", ""]
    for e in elements:
        if e["is_actionable"]:
            lines.append(f"  {e['id']:<5} {e['role'][2:]:<12} \"{e['title']}\"")
    return snapshot, "\n".join(lines) + "\n"


def _click(pos: list[str], v: dict[str, str], ctx: "CommandContext", find_app: Any) -> tuple[dict[str, Any], str]:
    desk = ctx.backend.current_desktop()
    be = ctx.backend
    _focus(ctx, find_app, v)
    target = v.get("--on") or v.get("--id")
    if "--coords" in v:
        m = re.fullmatch(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*", v["--coords"])
        if m is None:
            raise CliExit(f"Error: --coords must be 'x,y', got {v['--coords']!r}\n", USAGE_CODE)
        x, y, label = int(m.group(1)), int(m.group(2)), v["--coords"]
    elif target:
        try:
            snap = json.loads(layer(ctx).read_bytes(resolve(ctx, "~/" + SNAPSHOT, "peekaboo"), limit=8 * 2**20))
        except (OSError, ValueError):
            raise Failure("No snapshot: run 'peekaboo see' first to map the UI elements", "SNAPSHOT_NOT_FOUND") from None
        hit = next((e for e in snap.get("ui_elements", []) if isinstance(e, dict) and e.get("id") == target), None)
        if hit is None:
            raise Failure(f"Element '{target}' not found in the latest snapshot", "ELEMENT_NOT_FOUND")
        b = hit["bounds"]
        x, y, label = b["x"] + b["width"] // 2, b["y"] + b["height"] // 2, f"{target} ({hit.get('title', '')})"
    elif pos:
        query = " ".join(pos).lower()
        found = None
        for line in desk.accessibility_tree().splitlines():
            m = _TREE_LINE.match(line)
            if m and m.group("role") not in ("AXWindow", "AXApplication", "AXMenuBar", "AXList") \
                    and query in (m.group("name") or "").lower():
                found = m
                break
        if found is None:
            raise Failure(f"No element matching '{' '.join(pos)}' is on screen", "ELEMENT_NOT_FOUND")
        x = int(found.group("x")) + int(found.group("w")) // 2
        y = int(found.group("y")) + int(found.group("h")) // 2
        label = f"{found.group('role')[2:]} \"{found.group('name')}\""
    else:
        raise CliExit("Error: click needs a query, --on <element id> or --coords x,y\n", USAGE_CODE)
    _backend_call(be.click, x, y, "right" if v.get("--right") else "left", 2 if v.get("--double") else 1)
    return {"clicked": label, "x": x, "y": y}, f"✅ Clicked {label} at ({x}, {y})\n"
