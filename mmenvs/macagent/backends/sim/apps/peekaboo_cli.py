"""``peekaboo`` in the simulated Mac: steipete's Peekaboo CLI over the sim's own renderer, window list
and input.

* ``peekaboo image`` saves real PNG (or JPEG) files: the whole screen (``--mode screen``), one window
  of an app (``--app``/``--pid`` with ``--window-title``/``--window-index``/``--window-id``), the
  frontmost window (``--mode frontmost``, the default with no target), every window of an app
  (``--mode multi``) or the menu bar (``--app menubar``). A window is captured from its own pixels, as
  ScreenCaptureKit does, so windows in front of it do not show; a minimized window cannot be captured.
* ``peekaboo list apps|windows|screens|permissions`` (``list`` alone = ``list apps``), ``permissions``.
* The automation commands (``see``, ``app``, ``open``, ``window``, ``type``, ``press``, ``hotkey``,
  ``click``, ``scroll``, ``clipboard``, ``sleep``) are in :mod:`.peekaboo_actions`: they drive the
  desktop through the backend's input methods, as pyautogui actions do.

Human-readable text by default; ``--json`` (alias ``--json-output``, ``-j``) prints
``{"success": true, "data": …}`` or ``{"success": false, "error": {"message", "code"}}``. Usage errors
exit 64 (as Swift ArgumentParser's do), failures 1. Process ids are the sim's: stable per app, not real
processes. Left out: ``menu``, ``dock``, ``dialog``, ``space``, ``drag``/``swipe``, the agent and MCP
commands, and ``--analyze`` (no AI provider in the sim: it fails with the real tool's "no provider"
error)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mmenvs.core.budget import check_limit

from .base import App, CommandContext
from .cli_support import CliExit, int_value, layer, resolve, run_guarded, take_value, write_file
from .peekaboo_actions import ACTION_BOOLS, ACTION_FLAGS, Failure, run_action

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop
    from ..window import Window

VERSION = "Peekaboo 3.0.0 (sim)"
USAGE_CODE = 64
MENUBAR_H = 24  # the sim's menu bar height (desktop.MENUBAR_H)

_HELP = """OVERVIEW: Peekaboo - screenshots and window inventory for the simulated Mac

USAGE: peekaboo <subcommand> [options]

SUBCOMMANDS:
  image          Capture screenshots of the screen, a window, the frontmost window or the menu bar
  see            Capture a window with a map of its UI elements (--annotate draws their ids)
  list           List running apps, their windows, the screens or the permissions
  permissions    Show Screen Recording / Accessibility permission status
  app            launch | quit | relaunch | hide | unhide | switch | list
  open           Open a URL or file (--app to choose the app)
  window         close | minimize | maximize | focus | move | resize | set-bounds | list (--app)
  type           Type text into the focused field (\\n is Return; --clear, --press-return)
  press          Press keys (return, tab, escape, arrows, …; --count)
  hotkey         Press a key combination (--keys "cmd,shift,t")
  click          Click an element by text, by id from 'see' (--on B1) or at --coords x,y
  scroll         Scroll (--direction up|down, --amount)
  clipboard      --action get | set (--text) | clear
  sleep          Pause for <milliseconds>

OPTIONS (every subcommand):
  --json, -j     Print machine-readable JSON ({"success": ..., "data": ...}); alias --json-output
  --version      Show the version
  -h, --help     Show help information

See 'peekaboo help <subcommand>' for detailed help.
"""

_IMAGE_HELP = """OVERVIEW: Capture screenshots

USAGE: peekaboo image [--app <app>] [--pid <pid>] [--window-title <title>] [--window-index <n>]
                      [--window-id <id>] [--mode <mode>] [--screen-index <n>] [--path <path>]
                      [--format <format>] [--capture-focus <focus>] [--json]

OPTIONS:
  --app <app>             Target app: name, bundle id, PID:1234, 'frontmost' or 'menubar'
  --pid <pid>             Target app by process id
  --window-title <title>  Capture the window whose title contains this text
  --window-index <n>      Capture the window at this index (0 = front-most)
  --window-id <id>        Capture the window with this id (see 'list windows --include-details ids')
  --mode <mode>           screen | window | frontmost | multi (default: window with a target, else frontmost)
  --screen-index <n>      Screen to capture in screen mode (the simulated Mac has one: 0)
  --path <path>           Output file or folder (default: the current folder, named after app and time)
  --format <format>       png (default) | jpg
  --capture-focus <f>     auto | background | foreground (accepted; capture never needs focus here)
  --analyze <prompt>      Ask an AI provider about the capture (none is configured in the simulator)
  --json, -j              JSON output
"""

_LIST_HELP = """OVERVIEW: List running apps, windows, screens or permissions

USAGE: peekaboo list <subcommand> [options]

SUBCOMMANDS:
  apps (default)    Running GUI apps with bundle id, PID, focus and window count
  windows           Windows of one app: --app <name|bundle|PID:n> | --pid <n>
                    [--include-details bounds,ids,off_screen]
  screens           Connected displays
  permissions       Screen Recording / Accessibility status

OPTIONS:
  --json, -j        JSON output
"""

_PERMISSIONS_HELP = """OVERVIEW: Show permission status

USAGE: peekaboo permissions [status] [--json]
"""


def _action_help(cmd: str) -> str:
    flags = sorted(ACTION_FLAGS[cmd]) + sorted(ACTION_BOOLS[cmd])
    return (f"OVERVIEW: peekaboo {cmd} in the simulated Mac\n\nUSAGE: peekaboo {cmd} [options]\n\nOPTIONS:\n"
            + "".join(f"  {f}\n" for f in flags) + "  --json, -j\n")


def _pid(desk: "Desktop", app: App) -> int:
    """The simulated process id of ``app``: stable for the desktop's app list (not a real process)."""
    names = list(desk.apps)
    return 401 + 17 * names.index(app.name)


def _gui_apps(desk: "Desktop") -> list[App]:
    return [a for a in desk.running_apps() if not a.background_only]


class _Args:
    """The parsed flags of one subcommand."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.positional: list[str] = []
        self.json = False


_FLAGS = {
    "image": {"--app", "--pid", "--window-title", "--window-index", "--window-id", "--mode", "--screen-index",
              "--path", "--format", "--capture-focus", "--analyze"},
    "list": {"--app", "--pid", "--include-details"},
    "permissions": set(),
    **ACTION_FLAGS,
}
_BOOL = {"image": {"--retina"}, "list": set(), "permissions": set(), **ACTION_BOOLS}


def _parse(cmd: str, args: list[str]) -> _Args:
    out = _Args()
    i = 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0] if a.startswith("--") else a
        if a in ("--json", "-j", "--json-output"):
            out.json = True
            i += 1
        elif name in _FLAGS[cmd]:
            out.values[name], i = take_value(args, i, name, "peekaboo")
        elif name in _BOOL[cmd]:
            out.values[name] = "1"
            i += 1
        elif a.startswith("-") and a != "-":
            raise CliExit(f"Error: Unknown option '{a}'\nUsage: peekaboo {cmd} --help\n", USAGE_CODE)
        else:
            out.positional.append(a)
            i += 1
    return out


_Failure = Failure  # the failure type the automation commands raise too


def _emit(as_json: bool, data: dict[str, Any], text: str) -> tuple[str, str, int]:
    if as_json:
        return json.dumps({"success": True, "data": data}, indent=2, ensure_ascii=False) + "\n", "", 0
    return text, "", 0


def _fail(as_json: bool, failure: _Failure) -> tuple[str, str, int]:
    if as_json:
        body = {"success": False, "error": {"message": failure.message, "code": failure.code}}
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n", "", 1
    return "", f"Error: {failure.message}\n", 1


def _find_app(desk: "Desktop", text: str | None, pid: str | None) -> App:
    """The running app named by ``--app`` (name, bundle id, ``PID:n``, fuzzy prefix) or ``--pid``."""
    apps = _gui_apps(desk)
    if pid is not None or (text and text.upper().startswith("PID:")):
        raw = pid if pid is not None else text[4:]  # type: ignore[index]
        n = int_value(raw.strip(), "--pid", "peekaboo", USAGE_CODE)
        for a in apps:
            if _pid(desk, a) == n:
                return a
        raise _Failure(f"No running application with PID {n}", "APP_NOT_FOUND")
    assert text is not None
    want = text.strip().lower()
    for a in apps:
        if a.name.lower() == want or a.bundle_id.lower() == want:
            return a
    close = [a for a in apps if a.name.lower().startswith(want)] or [a for a in apps if want and want in a.name.lower()]
    if len(close) == 1:
        return close[0]
    if len(close) > 1:
        raise _Failure(f"Multiple applications match '{text}': {', '.join(a.name for a in close)}", "AMBIGUOUS_APP_IDENTIFIER")
    known = {a.name.lower() for a in desk.apps.values()} | {a.bundle_id.lower() for a in desk.apps.values()}
    if want in known:
        raise _Failure(f"Application '{text}' is not running", "APP_NOT_FOUND")
    raise _Failure(f"Application '{text}' not found", "APP_NOT_FOUND")


def _window_pixels(desk: "Desktop", win: "Window", max_pixels: int) -> np.ndarray:
    """The pixels of ``win`` (with an attached sheet drawn over it), as the window server holds them."""
    check_limit("image_pixels", max_pixels, win.w * win.h, f"peekaboo: a capture of {win.w}x{win.h} pixels")
    theme = desk.theme
    kw = desk.key_window()
    with desk.drawing_pass():
        arr = np.array(win.render(theme, kw is win or (kw is not None and kw.parent is win))[:, :, :3])
        sheet = win.sheet
        if sheet is not None and not sheet.minimized:
            sx, sy, _sw, _sh = sheet.rect
            s = np.array(sheet.render(theme, kw is sheet)[:, :, :3])
            ox, oy = sx - win.x, sy - win.y
            h = max(0, min(s.shape[0], arr.shape[0] - oy))
            w = max(0, min(s.shape[1], arr.shape[1] - ox))
            if h and w and ox >= 0 and oy >= 0:
                arr[oy:oy + h, ox:ox + w] = s[:h, :w]
    return arr


def _encode(arr: np.ndarray, fmt: str) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    img = Image.fromarray(np.ascontiguousarray(arr[:, :, :3]), "RGB")
    if fmt == "jpg":
        img.save(buf, format="JPEG", quality=92)
    else:
        img.save(buf, format="PNG")
    return buf.getvalue()


def _safe_label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "capture"


class PeekabooTool(App):
    """``peekaboo`` (see the module docstring). No window, no state: it reads the desktop."""

    name = "Peekaboo"
    bundle_id = "boo.peekaboo.cli"
    in_dock = False
    text_editing = False
    shell_commands = {"peekaboo": False}

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("peekaboo", self._main, argv[1:], stdin, ctx, child=False)

    # ------------------------------------------------------------------ dispatch
    def _main(self, args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        if not args or args[0] in ("-h", "--help"):
            return _HELP, "", 0
        if args[0] == "--version" or args[0] == "version":
            return VERSION + "\n", "", 0
        if args[0] == "help":
            topic = args[1] if len(args) > 1 else ""
            helps = {"image": _IMAGE_HELP, "list": _LIST_HELP, "permissions": _PERMISSIONS_HELP}
            return (helps[topic] if topic in helps else _action_help(topic) if topic in ACTION_FLAGS else _HELP), "", 0
        cmd, rest = args[0], args[1:]
        if cmd not in _FLAGS:
            if cmd in ("move", "drag", "swipe", "menu", "menubar", "dock", "dialog", "space", "agent", "mcp", "capture",
                       "run", "clean", "config", "learn", "tools", "paste", "bridge", "daemon", "visualizer"):
                raise CliExit(f"Error: the simulated Mac's peekaboo has no '{cmd}' command (it has: image, see, list, "
                              "permissions, app, open, window, type, press, hotkey, click, scroll, clipboard, "
                              "sleep)\n", USAGE_CODE)
            raise CliExit(f"Error: Unexpected argument '{cmd}'\nUsage: peekaboo <subcommand>\n"
                          "  See 'peekaboo --help' for more information.\n", USAGE_CODE)
        if any(a in ("-h", "--help") for a in rest):
            helps = {"image": _IMAGE_HELP, "list": _LIST_HELP, "permissions": _PERMISSIONS_HELP}
            return (helps[cmd] if cmd in helps else _action_help(cmd)), "", 0
        parsed = _parse(cmd, rest)
        try:
            if cmd in ACTION_FLAGS:
                data, text = run_action(cmd, parsed.positional, parsed.values, ctx, _find_app,
                                        lambda desk, win: _window_pixels(desk, win, ctx.backend.budget.image_pixels))
                return _emit(parsed.json, data, text)
            if cmd == "image":
                return self._image(parsed, ctx)
            if cmd == "list":
                return self._list(parsed, ctx)
            return self._permissions(parsed)
        except _Failure as f:
            return _fail(parsed.json, f)

    # ------------------------------------------------------------------ permissions
    @staticmethod
    def _permissions(p: _Args) -> tuple[str, str, int]:
        if p.positional and p.positional != ["status"]:
            raise CliExit(f"Error: Unexpected argument '{p.positional[0]}'\n", USAGE_CODE)
        data = {"permissions": [{"name": "Screen Recording", "isRequired": True, "isGranted": True},
                                {"name": "Accessibility", "isRequired": False, "isGranted": True}]}
        return _emit(p.json, data, "Screen Recording (Required): Granted\nAccessibility (Optional): Granted\n")

    # ------------------------------------------------------------------ list
    def _list(self, p: _Args, ctx: CommandContext) -> tuple[str, str, int]:
        desk = ctx.backend.current_desktop()
        what = p.positional[0] if p.positional else "apps"
        if len(p.positional) > 1:
            raise CliExit(f"Error: Unexpected argument '{p.positional[1]}'\n", USAGE_CODE)
        if what == "permissions":
            return self._permissions(_Args() if not p.json else p)
        if what == "screens":
            sw, sh = desk.screen_size
            data = {"screens": [{"index": 0, "name": "Built-in Display", "isPrimary": True, "scaleFactor": 1.0,
                                 "frame": {"x": 0, "y": 0, "width": sw, "height": sh},
                                 "visibleFrame": {"x": 0, "y": MENUBAR_H, "width": sw, "height": sh - MENUBAR_H}}]}
            text = f"Screens (1):\n\n  0. Built-in Display (Primary)\n     Resolution: {sw}x{sh}\n     Scale: 1.0x\n"
            return _emit(p.json, data, text)
        if what == "apps":
            apps = _gui_apps(desk)
            rows = [{"app_name": a.name, "bundle_id": a.bundle_id, "pid": _pid(desk, a), "is_active": a is desk.active,
                     "is_hidden": bool(a.hidden), "window_count": len(a.windows)} for a in apps]
            lines = [f"Running Applications ({len(rows)}):", ""]
            for n, r in enumerate(rows, 1):
                lines += [f"{n}. {r['app_name']}{' [ACTIVE]' if r['is_active'] else ''}{' [HIDDEN]' if r['is_hidden'] else ''}",
                          f"   Bundle ID: {r['bundle_id']}", f"   PID: {r['pid']}", f"   Windows: {r['window_count']}", ""]
            return _emit(p.json, {"applications": rows}, "\n".join(lines))
        if what == "windows":
            if "--app" not in p.values and "--pid" not in p.values:
                raise CliExit("Error: Missing expected argument '--app <app>'\nUsage: peekaboo list windows --app <app>\n",
                              USAGE_CODE)
            details = {d.strip().lower().replace("-", "_") for d in p.values.get("--include-details", "").split(",") if d.strip()}
            details = {"off_screen" if d == "offscreen" else d for d in details}
            unknown = details - {"bounds", "ids", "off_screen"}
            if unknown:
                raise CliExit(f"Error: --include-details: unknown value '{sorted(unknown)[0]}' (bounds, ids, off_screen)\n",
                              USAGE_CODE)
            app = _find_app(desk, p.values.get("--app"), p.values.get("--pid"))
            rows = []
            for i, w in enumerate(app.windows):
                row: dict[str, Any] = {"window_title": w.title, "window_index": i}
                if "ids" in details:
                    row["window_id"] = w.id
                if "bounds" in details:
                    row["bounds"] = {"x": w.x, "y": w.y, "width": w.w, "height": w.h}
                if "off_screen" in details:
                    row["is_on_screen"] = not (w.minimized or app.hidden)
                rows.append(row)
            info = {"app_name": app.name, "bundle_id": app.bundle_id, "pid": _pid(desk, app), "is_active": app is desk.active}
            lines = [f"Windows for {app.name} (PID: {info['pid']}): {len(rows)}", ""]
            for r in rows:
                lines.append(f"  [{r['window_index']}] \"{r['window_title']}\"")
                if "window_id" in r:
                    lines.append(f"      ID: {r['window_id']}")
                if "bounds" in r:
                    b = r["bounds"]
                    lines.append(f"      Bounds: x={b['x']} y={b['y']} width={b['width']} height={b['height']}")
                if "is_on_screen" in r:
                    lines.append(f"      On screen: {'yes' if r['is_on_screen'] else 'no'}")
            if not rows:
                lines.append("  (no windows)")
            return _emit(p.json, {"target_application_info": info, "windows": rows}, "\n".join(lines) + "\n")
        raise CliExit(f"Error: Unexpected argument '{what}'\nUsage: peekaboo list <apps|windows|screens|permissions>\n",
                      USAGE_CODE)

    # ------------------------------------------------------------------ image
    def _image(self, p: _Args, ctx: CommandContext) -> tuple[str, str, int]:
        desk = ctx.backend.current_desktop()
        v = p.values
        if p.positional:
            raise CliExit(f"Error: Unexpected argument '{p.positional[0]}'\nUsage: peekaboo image --help\n", USAGE_CODE)
        fmt = v.get("--format", "png").lower()
        fmt = "jpg" if fmt == "jpeg" else fmt
        if fmt not in ("png", "jpg"):
            raise CliExit(f"Error: The value '{v['--format']}' is invalid for '--format <format>' (png, jpg)\n", USAGE_CODE)
        focus = v.get("--capture-focus", "auto")
        if focus not in ("auto", "background", "foreground"):
            raise CliExit(f"Error: The value '{focus}' is invalid for '--capture-focus' (auto, background, foreground)\n",
                          USAGE_CODE)
        if "--analyze" in v:
            raise _Failure("No AI provider is configured (set PEEKABOO_AI_PROVIDERS); the simulated Mac has none",
                           "AI_PROVIDER_UNAVAILABLE")
        app_arg = v.get("--app")
        target = app_arg is not None or "--pid" in v
        mode = v.get("--mode") or ("window" if target else "frontmost")
        if mode not in ("screen", "window", "frontmost", "multi"):
            raise CliExit(f"Error: The value '{mode}' is invalid for '--mode <mode>' (screen, window, frontmost, multi)\n",
                          USAGE_CODE)
        if "--screen-index" in v:
            idx = int_value(v["--screen-index"], "--screen-index", "peekaboo", USAGE_CODE)
            if idx != 0:
                raise _Failure(f"Screen index {idx} is out of range (1 screen connected: index 0)", "INVALID_ARGUMENT")
        # the captures: (label, window or None, pixels)
        shots: list[tuple[str, "Window | None", np.ndarray]] = []
        if app_arg is not None and app_arg.lower() == "menubar":
            shots.append(("menubar", None, np.array(desk.render()[:MENUBAR_H])))
        elif mode == "screen" or (mode == "multi" and not target):
            shots.append(("screen0", None, np.array(desk.render())))
        elif mode == "frontmost" or (app_arg is not None and app_arg.lower() == "frontmost"):
            front = next((w for w in reversed(desk.windows) if w.parent is None and w.kind != "spotlight"
                          and not w.minimized and not w.app.hidden), None)
            if front is None:
                raise _Failure("No frontmost window to capture", "WINDOW_NOT_FOUND")
            shots.append((front.app.name, front, _window_pixels(desk, front, ctx.backend.budget.image_pixels)))
        else:
            app = _find_app(desk, app_arg, v.get("--pid"))
            wins = app.windows
            if not wins:
                raise _Failure(f"Application '{app.name}' has no windows", "WINDOW_NOT_FOUND")
            chosen = list(wins) if mode == "multi" else None
            if chosen is None:
                if "--window-id" in v:
                    wid = int_value(v["--window-id"], "--window-id", "peekaboo", USAGE_CODE)
                    chosen = [w for w in wins if w.id == wid]
                    if not chosen:
                        raise _Failure(f"Window with id {wid} not found in {app.name}", "WINDOW_NOT_FOUND")
                elif "--window-index" in v:
                    wi = int_value(v["--window-index"], "--window-index", "peekaboo", USAGE_CODE)
                    if not 0 <= wi < len(wins):
                        raise _Failure(f"Window index {wi} is out of range ({app.name} has {len(wins)} window(s))",
                                       "WINDOW_NOT_FOUND")
                    chosen = [wins[wi]]
                elif "--window-title" in v:
                    want = v["--window-title"].lower()
                    chosen = [w for w in wins if want in w.title.lower()][:1]
                    if not chosen:
                        raise _Failure(f"Window with title containing '{v['--window-title']}' not found in {app.name}",
                                       "WINDOW_NOT_FOUND")
                else:
                    chosen = [next((w for w in wins if not w.minimized), wins[0])]
            for w in chosen:
                if w.minimized:
                    if mode == "multi":
                        continue
                    raise _Failure(f"Window '{w.title}' of {app.name} is minimized and cannot be captured", "CAPTURE_FAILED")
                shots.append((app.name, w, _window_pixels(desk, w, ctx.backend.budget.image_pixels)))
            if not shots:
                raise _Failure(f"Application '{app.name}' has no capturable windows", "WINDOW_NOT_FOUND")
        dests = self._destinations(ctx, v.get("--path"), shots, fmt)
        saved = []
        for (label, win, arr), dest in zip(shots, dests):
            write_file(ctx, dest, _encode(arr, fmt), parents=True)
            rec: dict[str, Any] = {"path": ctx.posix(dest), "item_label": label,
                                   "mime_type": "image/png" if fmt == "png" else "image/jpeg",
                                   "width": int(arr.shape[1]), "height": int(arr.shape[0])}
            if win is not None:
                rec.update(window_title=win.title, window_id=win.id, window_index=win.app.windows.index(win))
            saved.append(rec)
        text = "".join(f"📸 Saved {r['item_label']}{' - ' + r['window_title'] if r.get('window_title') else ''}: "
                       f"{r['path']} ({r['width']}x{r['height']})\n" for r in saved)
        return _emit(p.json, {"saved_files": saved}, text)

    @staticmethod
    def _destinations(ctx: CommandContext, path: str | None, shots: list, fmt: str) -> list[Path]:
        desk = ctx.backend.current_desktop()
        stamp = desk.now.strftime("%Y%m%d_%H%M%S")
        files = layer(ctx)
        ext = "." + fmt
        if path is None:
            folder = resolve(ctx, ".", "peekaboo")
            base = None
        else:
            target = resolve(ctx, path, "peekaboo")
            if path.endswith("/") or files.is_dir(target):
                folder, base = target, None
            else:
                folder, base = target.parent, target
        out = []
        for i, (label, win, _arr) in enumerate(shots):
            if base is not None:
                out.append(base if len(shots) == 1 else base.with_name(f"{base.stem}_{i}{base.suffix or ext}"))
            else:
                tail = f"_window{i}" if len(shots) > 1 else ""
                out.append(folder / f"{_safe_label(label)}{tail}_{stamp}{ext}")
        return out
