"""The sim's scripting plumbing: the AppleScript host over the desktop's apps, the session every
episode shell starts with (:func:`session_script`; the shells themselves are :mod:`.shells`) and the
macOS commands the shell finds on its PATH, answered by the desktop: ``osascript``, ``open``,
``defaults``, ``pbcopy``, ``pbpaste``, ``networksetup``, ``sw_vers``, ``curl`` (the offline web) and
``screencapture``."""

from __future__ import annotations

import calendar
import functools
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...applescript import AppleScriptError, AppleScriptHost
from ...applescript.model import ShellResult as ASShellResult
from ...applescript.model import Limits
from mmenvs.core.budget import EpisodeBudget, current_deadline
from mmenvs.core.confined import ConfinementError

from ..base import BackendError
from .apps import app_class, shell_commands, shell_init
from .apps.base import CommandContext, web_request
from .apps.settings import MACOS_BUILD, MACOS_VERSION
from .keys import base_key
from .scripting import AppProxy, FinderScripting, LifecycleOnly, SimSystemEvents, TerminalScripting, highlight_defaults
from .theme import ACCENT_CODES

if TYPE_CHECKING:  # pragma: no cover
    from .backend import SimBackend

# ---------------------------------------------------------------------------------- AppleScript

_KEY_CODES = {36: "return", 76: "return", 48: "tab", 49: "space", 51: "backspace", 117: "fwddelete", 53: "esc",
              123: "left", 124: "right", 125: "down", 126: "up", 115: "home", 119: "end", 116: "pageup",
              121: "pagedown"}
_KEY_CODES.update({code: ch for code, ch in zip(
    (0, 11, 8, 2, 14, 3, 5, 4, 34, 38, 40, 37, 46, 45, 31, 35, 12, 15, 1, 17, 32, 9, 13, 7, 16, 6),
    "abcdefghijklmnopqrstuvwxyz")})
_KEY_CODES.update({code: str(d) for code, d in zip((29, 18, 19, 20, 21, 23, 22, 26, 28, 25), range(10))})
_MOD_NAMES = {"command down": "command", "shift down": "shift", "option down": "option", "control down": "ctrl"}


class SimHost(AppleScriptHost):
    """The AppleScript host of one backend: apps, the sim clock, ``do shell script``, keystrokes."""

    def __init__(self, backend: "SimBackend") -> None:
        self.backend = backend
        super().__init__(self._app, now=lambda: backend.current_desktop().now, shell=self._shell,
                         keystroke=self._keystroke, key_code=self._key_code,
                         home=backend.posix_home, user="user", path_exists=self._path_exists,
                         limits=script_limits(backend.budget))
        self._apps_cache: dict[str, Any] = {}

    def _app(self, name: str) -> Any:
        key = name.strip().lower()
        if key in self._apps_cache:
            return self._apps_cache[key]
        desk = self.backend.current_desktop()
        app: Any
        if key == "system events":
            app = SimSystemEvents(self, desk.settings, processes=self._processes,
                                  activate=lambda n: desk.activate(desk.app(n)))
        elif key == "finder":
            app = FinderScripting(self.backend)
        elif key == "terminal":
            app = TerminalScripting(self.backend)
        else:
            try:
                a = desk.app({"ical": "Calendar"}.get(key, name))
            except KeyError:
                raise AppleScriptError(f"Can’t get application \"{name}\".", -1728) from None
            inner = getattr(a, "store", None) or getattr(a, "scripting", None)
            app = AppProxy(a, inner) if inner is not None else LifecycleOnly(a)
        self._apps_cache[key] = app
        return app

    def _path_exists(self, path: str) -> bool:
        try:
            return self.backend.current_desktop().home_files.exists(self.backend.host_path(path))
        except (BackendError, OSError):
            return path.rstrip("/") in ("", "/Users", "/Applications", "/System", "/tmp", "/private/tmp")

    def get_clipboard(self) -> Any:
        """``the clipboard``: the desktop's pasteboard (shared with cmd-c/v and pbcopy/pbpaste)."""
        return self.backend.current_desktop().clipboard.text

    def set_clipboard(self, value: Any) -> None:
        from ...applescript.values import coerce

        self.backend.current_desktop().clipboard.set_text(coerce(value, "text"))

    def _processes(self) -> list[dict[str, Any]]:
        desk = self.backend.current_desktop()
        return [{"name": a.name, "frontmost": desk.active is a, "visible": not a.hidden, "bundle identifier": a.bundle_id}
                for a in desk.running_apps()]

    def _shell(self, command: str) -> ASShellResult:
        # do shell script: a fresh /bin/sh in "/" on a real Mac, so nothing leaks into the agent's session
        deadline = current_deadline()  # the script's: do shell script ends with it
        timeout = None if deadline is None else max(0.05, deadline.remaining())
        out = self.backend.shells.run("(\ncd /\n" + command + "\n)", timeout=timeout, which="aux")
        # raw output: the interpreter applies do shell script's line-ending rules (or not, given
        # ``without altering line endings``)
        return ASShellResult(out.exit_code, out.stdout, out.stderr)

    def _keystroke(self, text: str, modifiers: list[str]) -> None:
        desk = self.backend.current_desktop()
        mods = {_MOD_NAMES.get(m, m) for m in modifiers}
        held = set(desk.mods)
        desk.mods |= mods
        try:
            if mods & {"command", "ctrl"}:
                for ch in text:
                    k, shift = base_key(ch)
                    if shift:
                        desk.mods.add("shift")
                    desk.key_press(k.lower(), "char")
            else:
                for ch in text:
                    if ch in "\r\n":
                        desk.key_press("return", "named")
                    elif ch == "\t":
                        desk.key_press("tab", "named")
                    else:
                        desk.type_char(ch)
        finally:
            desk.mods = held

    def _key_code(self, code: int, modifiers: list[str]) -> None:
        desk = self.backend.current_desktop()
        key = _KEY_CODES.get(code)
        if key is None:
            raise AppleScriptError(f"Unsupported key code {code}.", -1700)
        held = set(desk.mods)
        desk.mods |= {_MOD_NAMES.get(m, m) for m in modifiers}
        try:
            desk.key_press(key, "char" if len(key) == 1 else "named")
        finally:
            desk.mods = held

    def delay(self, seconds: float) -> None:
        """``delay n`` advances the sim clock instead of sleeping."""
        if seconds > 0:
            self.backend.current_desktop().advance(float(seconds))


def script_limits(budget: EpisodeBudget) -> Limits:
    """The AppleScript interpreter's limits from the episode budget: the action deadline, value sizes
    and what one run may build in all."""
    return Limits(max_seconds=budget.action_timeout, max_text_length=budget.script_value_chars,
                  max_list_length=min(Limits.max_list_length, budget.script_value_chars),
                  max_built_chars=budget.script_built_chars)


def run_applescript(backend: "SimBackend", source: str) -> str:
    from ...applescript import run_applescript as _run

    desk = backend.current_desktop()
    if backend.applescript_host is None:
        backend.applescript_host = SimHost(backend)
    try:
        return _run(source, backend.applescript_host)
    finally:
        desk.invalidate()


# ---------------------------------------------------------------------------------- shell


# Commands that take relative paths get the shell's current directory as a hidden first argument
# (a host command runs in the parent, which does not see a ``cd`` made earlier in the same line).
_CWD_AWARE = ("open", "curl", "screencapture", "osascript")
_CWD_FLAG = "--mm-cwd="
_HOST_COMMANDS = ("osascript", "open", "defaults", "pbcopy", "pbpaste", "networksetup", "sw_vers", "curl",
                  "screencapture")

# The sandbox answers host commands through a Python shim on PATH; starting Python costs 20-100 ms a
# call. In the session, each command is instead a shell function that speaks the same protocol (JSON
# ``{"argv", "stdin"}`` over the unix socket in $MMENVS_HOST_SOCK, reply ``{"stdout", "stderr", "code"}``)
# from a few lines of Perl, which starts in 2-3 ms (perl-base is part of every Debian; no module is
# loaded: AF_UNIX and SOCK_STREAM are 1 on Linux). Without Perl, or when the session's variable is
# gone, the function falls back to the shim.
_PERL_CLIENT = r"""
sub fixutf { my $s = shift; return $s if utf8::decode($s);
  $s =~ s/([\xC2-\xDF][\x80-\xBF]|[\xE0-\xEF][\x80-\xBF]{2}|[\xF0-\xF4][\x80-\xBF]{3})|[\x80-\xFF]/defined $1 ? $1 : "\xEF\xBF\xBD"/ge;
  utf8::decode($s); return $s; }
sub esc { my $o = ord shift; return sprintf("\\u%04x", $o) if $o < 0x10000; $o -= 0x10000;
  return sprintf("\\u%04x\\u%04x", 0xD800 + ($o >> 10), 0xDC00 + ($o & 0x3FF)); }
sub js { my $s = fixutf(shift); $s =~ s/([\x00-\x1f"\\\x{7f}-\x{10ffff}])/esc($1)/ge; return "\"$s\""; }
my %E = (b => "\b", f => "\f", n => "\n", r => "\r", t => "\t");
sub un { my $t = shift;
  $t =~ s/\\(u[0-9a-fA-F]{4}|.)/length($1) == 5 ? chr(hex substr($1, 1)) : exists $E{$1} ? $E{$1} : $1/ge;
  $t =~ s/([\x{D800}-\x{DBFF}])([\x{DC00}-\x{DFFF}])/chr(0x10000 + ((ord($1) - 0xD800) << 10) + ord($2) - 0xDC00)/ge;
  return $t; }
my $in = "";
if (!-t STDIN) { local $/; binmode STDIN; $in = <STDIN>; $in = "" unless defined $in; }
my $req = "{\"argv\": [" . join(", ", map { js($_) } @ARGV) . "], \"stdin\": " . js($in) . "}";
sub fail { print STDERR "$ARGV[0]: host is not answering ($_[0])\n"; exit 127; }
socket(my $s, 1, 1, 0) or fail($!);
connect($s, pack("S Z108", 1, $ENV{MMENVS_HOST_SOCK})) or fail($!);
while (length $req) { my $n = syswrite($s, $req); fail($!) unless defined $n; substr($req, 0, $n) = ""; }
shutdown($s, 1);
my $r = ""; while (1) { my $n = sysread($s, my $buf, 65536); fail($!) unless defined $n; last unless $n; $r .= $buf; }
sub field { my $at = index($r, "\"$_[0]\": \""); return "" if $at < 0;
  my $st = $at + length($_[0]) + 5; pos($r) = $st; 1 while $r =~ /\G(?:[^"\\]+|\\.)/gc;
  return un(substr($r, $st, pos($r) - $st)); }
my %v = (stdout => field("stdout"), stderr => field("stderr"));
my ($code) = $r =~ /"code": (-?\d+)/;
fail("malformed reply") unless defined $code;
binmode STDOUT, ":utf8"; binmode STDERR, ":utf8";
print STDOUT $v{stdout}; print STDERR $v{stderr};
exit($code & 255);
"""
assert "'" not in _PERL_CLIENT  # it lives in a single-quoted shell string


# Commands that never read their stdin are given /dev/null: otherwise the client would swallow the
# input of an enclosing ``while read`` loop. osascript reads a script from stdin only when it has
# no -e and no script file; curl only for ``-d @-`` / ``-T -``; pbcopy always.
_STDIN_RULES = {
    "pbcopy": "",
    "osascript": 'case " $* " in *" -e "*) __mm_in=0;; esac; '
                 '[ $# -gt 0 ] && case "${@: -1}" in -*) ;; *) __mm_in=0;; esac; ',
    "curl": 'local __a; __mm_in=0; for __a in "$@"; do case "$__a" in @-|-) __mm_in=1;; esac; done; ',
}


def _command_function(name: str, cwd_aware: bool, reads_stdin: bool | str | None) -> str:
    """The shell function for host command ``name``. ``reads_stdin``: True/False, or (an app's own rule)
    shell code that sets ``__mm_in=0`` when this call does not read its input, like ``_STDIN_RULES``."""
    cwd = f' "{_CWD_FLAG}$PWD"' if cwd_aware else ""
    call = f'__mm_host {name}{cwd} "$@"'
    if name in _STDIN_RULES or isinstance(reads_stdin, str):
        rule = _STDIN_RULES.get(name, reads_stdin)
        if not rule:
            return f'{name}() {{ {call}; }}'
        return (f'{name}() {{ local __mm_in=1; {rule}'
                f'if [ "$__mm_in" = 1 ]; then {call}; else {call} </dev/null; fi; }}')
    return f'{name}() {{ {call}{"" if reads_stdin else " </dev/null"}; }}'


@functools.cache
def session_script() -> str:
    """What every episode shell runs when it starts: the host commands and the apps' commands as shell
    functions (see :func:`host_commands`), the apps' shell set-up and a ``date`` that reads the desktop's clock."""
    lines = [f"__mm_host_pl='{_PERL_CLIENT}'",
             '__mm_host() { if [ -n "$__mm_host_pl" ] && [ -x /usr/bin/perl ]; then '
             '/usr/bin/perl -e "$__mm_host_pl" -- "$@"; else command "$@"; fi; }']
    for c in _HOST_COMMANDS:
        lines.append(_command_function(c, c in _CWD_AWARE, None))
    for c, app in shell_commands().items():
        lines.append(_command_function(c, True, app_class(app).shell_commands[c]))
    lines.append(shell_init())  # what the apps and CLI tools set up (tmux's socket folder, python3, …)
    # ``date`` shows the desktop's clock (the task's time), not the host's; a date given with -d/-r/-f
    # or setting the clock (-s) goes to the real command as it is
    lines.append('date() { local __a; for __a in "$@"; do case "$__a" in -I*) ;; '
                 '-[drfs]*|-[!-]*[drfs]*|--date*|--reference*|--file*|--set*) command date "$@"; return;; esac; done; '
                 'local __t; __t=$(__mm_host __mm_clock) && [ -n "$__t" ] || { command date "$@"; return; }; '
                 'command date -d "@$__t" "$@"; }')
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- host commands


def host_commands(backend: "SimBackend") -> dict[str, Any]:
    """The macOS commands the shell sees, each ``fn(argv, stdin) -> (stdout, stderr, code)``."""
    cwd_box: list[str | None] = [None]

    def with_cwd(fn: Any) -> Any:
        def run(argv: list[str], stdin: str) -> tuple[str, str, int]:
            if len(argv) > 1 and argv[1].startswith(_CWD_FLAG):
                cwd_box[0] = argv[1][len(_CWD_FLAG):]
                argv = [argv[0]] + argv[2:]
            else:
                cwd_box[0] = None
            try:
                return fn(argv, stdin)
            except (BackendError, ConfinementError) as exc:  # their messages name paths as the agent wrote them
                return "", f"{argv[0]}: {exc}\n", 1
            except OSError as exc:  # a plain OSError's text may hold a host path: only its reason is shown
                return "", f"{argv[0]}: {exc.strerror or type(exc).__name__}\n", 1
            finally:
                cwd_box[0] = None

        return run

    def resolve(path: str) -> Path:
        return _resolve(backend, path, cwd_box[0])

    def osascript(argv: list[str], stdin: str) -> tuple[str, str, int]:
        args = argv[1:]
        lines: list[str] = []
        files: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-e":
                if i + 1 >= len(args):
                    return "", "osascript: option requires an argument -- e\n", 1
                lines.append(args[i + 1])
                i += 2
            elif a == "-l":
                lang = args[i + 1] if i + 1 < len(args) else ""
                if lang != "AppleScript":
                    return "", f"osascript: {lang or 'language'}: only AppleScript is available in the simulator\n", 1
                i += 2
            elif a in ("-s", "-i"):
                i += 2 if a == "-s" else 1
            elif a.startswith("-") and not files:
                return "", f"osascript: illegal option -- {a.lstrip('-')[:1]}\n", 1
            else:
                files.append(a)
                i += 1
        if lines:
            source = "\n".join(lines)
        elif files:
            try:
                source = backend.current_desktop().home_files.read_text(resolve(files[0]), errors="strict")
            except (OSError, BackendError, UnicodeDecodeError) as e:
                return "", f"osascript: {files[0]}: {e}\n", 1
        else:
            source = stdin
        try:
            out = run_applescript(backend, source)
        except AppleScriptError as e:
            return "", f"{e}\n", 1
        return (out + "\n") if out else "", "", 0

    def open_cmd(argv: list[str], stdin: str) -> tuple[str, str, int]:
        desk = backend.current_desktop()
        args = argv[1:]
        app_name = None
        targets: list[str] = []
        reveal = False
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-a", "-b"):
                if i + 1 >= len(args):
                    return "", f"open: option requires an argument -- {a[1]}\n", 1
                app_name = args[i + 1]
                if a == "-b":
                    match = [x.name for x in desk.apps.values() if x.bundle_id.lower() == app_name.lower()]
                    if not match:
                        return "", f"Unable to find application with bundle identifier {app_name}\n", 1
                    app_name = match[0]
                i += 2
            elif a == "-e":
                app_name = "TextEdit"
                i += 1
            elif a == "-R":
                reveal = True
                i += 1
            elif a in ("-n", "-g", "-F", "-W", "-j", "-t"):
                if a == "-t":
                    app_name = "TextEdit"
                i += 1
            else:
                targets.append(a)
                i += 1
        if app_name is not None:
            name = app_name[:-4] if app_name.endswith(".app") else app_name
            name = name.rsplit("/", 1)[-1]
            try:
                app = desk.app(name)
            except KeyError:
                return "", f"Unable to find application named '{app_name}'\n", 1
            desk.activate(app, reopen=not targets)
            for t in targets:
                if "://" in t and t.split("://", 1)[0].lower() in app.url_schemes:
                    app.open_url(t)
                    continue
                p = resolve(t)
                refused = _not_openable(desk, p, t)
                if refused:
                    return "", refused, 1
                if app.can_open(p):
                    app.open_file(p)
                else:
                    return "", f"{app.name} cannot open {t} in the simulator.\n", 1
            return "", "", 0
        if not targets:
            return "", "Usage: open [-e] [-t] [-R] [-a <application>] [-b <bundle identifier>] [filenames] [URLs]\n", 1
        for t in targets:
            scheme_owner = next((a for a in desk.apps.values() if "://" in t
                                 and t.split("://", 1)[0].lower() in a.url_schemes), None)
            if scheme_owner is not None:
                desk.activate(scheme_owner, reopen=False)
                scheme_owner.open_url(t)
                continue
            if t.startswith("mailto:"):
                desk.activate(desk.apps["Mail"], reopen=False)
                desk.apps["Mail"].compose(to=t[7:].split("?")[0])
                continue
            if "://" in t:
                return "", f"No application knows how to open URL {t}.\n", 1
            p = resolve(t)
            refused = _not_openable(desk, p, t, reveal)
            if refused:
                return "", refused, 1
            if reveal:
                w = desk.apps["Finder"].open_folder(p.parent)
                w.state["selection"] = [p.name]
                desk.activate(desk.apps["Finder"], reopen=False)
            else:
                desk.open_path(p)
        return "", "", 0

    def defaults(argv: list[str], stdin: str) -> tuple[str, str, int]:
        return backend.prefs.command(argv[1:])

    def pbcopy(argv: list[str], stdin: str) -> tuple[str, str, int]:
        backend.current_desktop().clipboard.set_text(stdin)
        return "", "", 0

    def pbpaste(argv: list[str], stdin: str) -> tuple[str, str, int]:
        return backend.current_desktop().clipboard.text, "", 0

    def networksetup(argv: list[str], stdin: str) -> tuple[str, str, int]:
        s = backend.current_desktop().settings
        args = argv[1:]
        if len(args) >= 2 and args[0] == "-getairportpower":
            return f"Wi-Fi Power ({args[1]}): {'On' if s.wifi else 'Off'}\n", "", 0
        if len(args) >= 3 and args[0] == "-setairportpower":
            v = args[2].lower()
            if v not in ("on", "off"):
                return "", f"{args[2]} is not a valid setting; use on or off.\n", 1
            s.wifi = v == "on"
            s.changed()
            return "", "", 0
        if len(args) >= 2 and args[0] == "-getairportnetwork":
            if not s.wifi:
                return "You are not associated with an AirPort network.\nWi-Fi power is currently off.\n", "", 0
            return f"Current Wi-Fi Network: {s.wifi_network}\n", "", 0
        if args and args[0] == "-listallhardwareports":
            return "\nHardware Port: Wi-Fi\nDevice: en0\nEthernet Address: 00:00:5e:00:53:01\n", "", 0
        return "", "Usage: networksetup -getairportpower <device> | -setairportpower <device> <on off> | " \
                   "-getairportnetwork <device> | -listallhardwareports\n", 1

    def sw_vers(argv: list[str], stdin: str) -> tuple[str, str, int]:
        fields = {"-productName": "macOS", "-productVersion": MACOS_VERSION, "-buildVersion": MACOS_BUILD}
        if len(argv) > 1:
            if argv[1] not in fields:
                return "", f"sw_vers: unrecognized option '{argv[1]}'\n", 1
            return fields[argv[1]] + "\n", "", 0
        return f"ProductName:\t\tmacOS\nProductVersion:\t\t{MACOS_VERSION}\nBuildVersion:\t\t{MACOS_BUILD}\n", "", 0

    def curl(argv: list[str], stdin: str) -> tuple[str, str, int]:
        args = argv[1:]
        out_file = None
        urls = []
        method, data, fail = "GET", None, False
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-o", "--output"):
                out_file = args[i + 1] if i + 1 < len(args) else None
                i += 2
            elif a in ("-X", "--request", "-d", "--data", "--data-raw"):
                if a in ("-X", "--request"):
                    method = args[i + 1] if i + 1 < len(args) else method
                else:
                    data = args[i + 1] if i + 1 < len(args) else ""
                    method = "POST" if method == "GET" else method
                i += 2
            elif a in ("-H", "-A", "-u", "-e", "-m", "--max-time", "--header", "--user-agent"):
                i += 2
            elif a.startswith("-"):
                fail = fail or a == "--fail" or (not a.startswith("--") and "f" in a[1:])
                i += 1
            else:
                urls.append(a)
                i += 1
        if not urls:
            return "", "curl: no URL specified!\n", 2
        safari = backend.current_desktop().apps["Safari"]
        found = safari._lookup(urls[0] if "://" in urls[0] else "http://" + urls[0])  # noqa: SLF001
        served = None if found is not None else web_request(backend.current_desktop(), urls[0], method, data)
        if served is not None:  # a site an app serves (wttr.in, api.github.com, …)
            if fail and served[0] >= 400:
                return "", f"curl: (22) The requested URL returned error: {served[0]}\n", 22
            found = (urls[0], served[2])
        if found is None:
            host = urls[0].split("://", 1)[-1].split("/", 1)[0]
            return "", f"curl: (6) Could not resolve host: {host}\n", 6
        if out_file:
            # a symlink, FIFO or device at the name is refused, never written through
            backend.current_desktop().home_files.write_text(resolve(out_file), found[1])
            return "", "", 0
        return found[1], "", 0

    def screencapture(argv: list[str], stdin: str) -> tuple[str, str, int]:
        from PIL import Image

        files = [a for a in argv[1:] if not a.startswith("-")]
        region = None
        for a in argv[1:]:
            if a.startswith("-R"):
                try:
                    region = tuple(int(v) for v in a[2:].split(","))
                except ValueError:
                    return "", f"screencapture: bad region {a[2:]!r}; use -Rx,y,w,h\n", 1
        if not files:
            return "", "usage: screencapture [-x] [-Rx,y,w,h] file\n", 1
        img = Image.fromarray(backend.screenshot())
        if region is not None and len(region) == 4:
            x, y, w, h = region
            img = img.crop((x, y, x + w, y + h))
        p = resolve(files[0])
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        # written through the confined layer: a symlink (or FIFO, device) at the name is refused, never followed
        backend.current_desktop().home_files.write_bytes(p, buf.getvalue())
        return "", "", 0

    def clock(argv: list[str], stdin: str) -> tuple[str, str, int]:
        # the desktop's clock as seconds since the epoch, read as UTC (the shell's TZ), so that the
        # session's ``date`` shows the time the menu bar shows
        return f"{calendar.timegm(backend.current_desktop().now.timetuple())}\n", "", 0

    def app_command(argv: list[str], stdin: str) -> tuple[str, str, int]:
        desk = backend.current_desktop()
        owner = owners[argv[0]]
        # a CLI tool (CLI_MODULES) keeps no state and has no place on the desktop: a fresh one per call
        app = desk.apps[owner] if owner in desk.apps else app_class(owner)(desk)
        ctx = CommandContext(backend, resolve, backend.posix_path)
        return app.run_command(argv, stdin, ctx)

    owners = shell_commands()
    commands = {"osascript": with_cwd(osascript), "open": with_cwd(open_cmd), "defaults": defaults, "pbcopy": pbcopy,
                "pbpaste": pbpaste, "networksetup": networksetup, "sw_vers": sw_vers, "curl": with_cwd(curl),
                "screencapture": with_cwd(screencapture), "__mm_clock": clock}
    for name in owners:
        if name in commands:
            raise ValueError(f"shell command {name!r} of {owners[name]} shadows a built-in host command")
        commands[name] = with_cwd(app_command)
    return commands


def _not_openable(desk: Any, path: Path, shown: str, reveal: bool = False) -> str:
    """Why ``open`` refuses ``path`` (the message, naming it as the agent wrote it), or "" when it may open:
    only real files and folders open; a symlink or special file is revealed at most, never followed."""
    kind = desk.home_files.kind(path)
    if kind is None:
        return f"The file {shown} does not exist.\n"
    if kind in ("symlink", "other") and not reveal:
        return f"open: {shown} is a link or a special file; the simulator opens only files and folders.\n"
    return ""


def _resolve(backend: "SimBackend", path: str, cwd: str | None = None) -> Path:
    """A path from the shell (absolute in the sandbox, ~-relative, or relative to its cwd) on the host."""
    if path.startswith(("/", "~")):
        return backend.host_path(path)
    return backend.host_path((cwd or backend.shell_cwd()).rstrip("/") + "/" + path)


# ---------------------------------------------------------------------------------- defaults


class Preferences:
    """``defaults`` domains. System settings are views of System Settings (NSGlobalDomain
    AppleInterfaceStyle / AppleAccentColor / AppleHighlightColor, com.apple.dock autohide);
    any other domain/key is stored as written."""

    def __init__(self, backend: "SimBackend") -> None:
        self.backend = backend
        self.domains: dict[str, dict[str, Any]] = {}

    def _settings(self) -> Any:
        return self.backend.current_desktop().settings

    def _virtual(self, domain: str) -> dict[str, Any]:
        s = self._settings()
        if domain == "NSGlobalDomain":
            out: dict[str, Any] = {}
            if s.dark_mode and s.appearance != "Auto":
                out["AppleInterfaceStyle"] = "Dark"
            if s.appearance == "Auto":
                out["AppleInterfaceStyleSwitchesAutomatically"] = True
            if s.accent_color != "multicolor":
                out["AppleAccentColor"] = ACCENT_CODES[s.accent_color]
            highlight = highlight_defaults(s)
            if highlight is not None:
                out["AppleHighlightColor"] = highlight
            return out
        if domain == "com.apple.dock":
            return {"autohide": s.dock_autohide}
        return {}

    def _write_virtual(self, domain: str, key: str, value: Any) -> bool:
        s = self._settings()
        if domain == "NSGlobalDomain" and key == "AppleInterfaceStyle":
            s.set_dark_mode(str(value).lower() == "dark")
            return True
        if domain == "NSGlobalDomain" and key == "AppleInterfaceStyleSwitchesAutomatically":
            s.appearance = "Auto" if value else ("Dark" if s.dark_mode else "Light")
            s.changed()
            return True
        if domain == "NSGlobalDomain" and key == "AppleAccentColor":
            names = {v: k for k, v in ACCENT_CODES.items()}
            try:
                s.set_accent(names[int(value)])
            except (KeyError, ValueError):
                return False
            return True
        if domain == "NSGlobalDomain" and key == "AppleHighlightColor":
            s.set_highlight(str(value))
            return True
        if domain == "com.apple.dock" and key == "autohide":
            s.dock_autohide = bool(value)
            s.changed()
            return True
        return False

    def _delete_virtual(self, domain: str, key: str) -> bool:
        s = self._settings()
        if domain == "NSGlobalDomain" and key == "AppleInterfaceStyle":
            s.set_dark_mode(False)
            return True
        if domain == "NSGlobalDomain" and key == "AppleAccentColor":
            s.set_accent("multicolor")
            return True
        if domain == "NSGlobalDomain" and key == "AppleHighlightColor":
            s.set_highlight(None)
            return True
        return False

    def read(self, domain: str) -> dict[str, Any]:
        out = dict(self.domains.get(domain, {}))
        out.update(self._virtual(domain))
        return out

    @staticmethod
    def _fmt(v: Any, indent: str = "") -> str:
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, (int, float)):
            return str(v)
        if isinstance(v, list):
            inner = ",\n".join(indent + "    " + Preferences._fmt(x, indent + "    ") for x in v)
            return "(\n" + inner + ("\n" if v else "") + indent + ")"
        if isinstance(v, dict):
            inner = "".join(f"{indent}    {Preferences._key(k)} = {Preferences._fmt(x, indent + '    ')};\n" for k, x in v.items())
            return "{\n" + inner + indent + "}"
        s = str(v)
        return s if s.replace("_", "").replace(".", "").isalnum() else '"' + s.replace('"', '\\"') + '"'

    @staticmethod
    def _key(k: str) -> str:
        return k if k.replace("_", "").replace(".", "").isalnum() else f'"{k}"'

    def command(self, args: list[str]) -> tuple[str, str, int]:
        if args and args[0] == "-currentHost":
            args = args[1:]
        if not args:
            return "", "Command line interface to a user's defaults.\nSyntax: 'defaults' [-currentHost | -host <hostname>] followed by one of: read, write, delete, domains, read-type\n", 255
        verb, rest = args[0], args[1:]
        if verb == "domains":
            names = sorted(set(self.domains) | {"com.apple.dock"})
            return ", ".join(names) + "\n", "", 0
        if not rest:
            return "", f"defaults {verb}: a domain is required\n", 255
        domain = "NSGlobalDomain" if rest[0] in ("-g", "-globalDomain", "NSGlobalDomain") else rest[0]
        key = rest[1] if len(rest) > 1 else None
        shown = "kCFPreferencesAnyApplication" if domain == "NSGlobalDomain" else domain
        if verb == "read":
            data = self.read(domain)
            if key is None:
                if not data:
                    return "", f"\nDomain {domain} does not exist\n", 1
                return self._fmt(data) + "\n", "", 0
            if key not in data:
                return "", f"\nThe domain/default pair of ({shown}, {key}) does not exist\n", 1
            value = data[key]
            # a key's own string prints as it is (quotes only appear inside arrays and dictionaries)
            return (value if isinstance(value, str) else self._fmt(value)) + "\n", "", 0
        if verb == "read-type":
            data = self.read(domain)
            if key is None or key not in data:
                return "", f"\nThe domain/default pair of ({shown}, {key}) does not exist\n", 1
            v = data[key]
            t = "boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else "float" if isinstance(v, float) \
                else "array" if isinstance(v, list) else "dictionary" if isinstance(v, dict) else "string"
            return f"Type is {t}\n", "", 0
        if verb == "write":
            if key is None or len(rest) < 3:
                return "", "defaults write: usage: defaults write <domain> <key> [-type] <value>\n", 255
            vals = rest[2:]
            try:
                value = _parse_value(vals)
            except ValueError as e:
                return "", f"defaults write: {e}\n", 255
            if not self._write_virtual(domain, key, value):
                self.domains.setdefault(domain, {})[key] = value
            return "", "", 0
        if verb == "delete":
            if key is None:
                if domain not in self.domains:
                    return "", f"\nDomain ({domain}) not found.\nDefaults have not been changed.\n", 1
                del self.domains[domain]
                return "", "", 0
            if self._delete_virtual(domain, key):
                return "", "", 0
            if key not in self.domains.get(domain, {}):
                return "", f"\nDomain ({shown}) not found.\nDefaults have not been changed.\n", 1
            del self.domains[domain][key]
            return "", "", 0
        return "", f"defaults: unknown command {verb!r}; use read, write, delete, domains or read-type\n", 255


def _parse_value(vals: list[str]) -> Any:
    t = vals[0]
    if t in ("-string",):
        return " ".join(vals[1:])
    if t in ("-int", "-integer"):
        try:
            return int(vals[1])
        except (IndexError, ValueError):
            raise ValueError(f"-int needs an integer, got {vals[1:]!r}") from None
    if t == "-float":
        try:
            return float(vals[1])
        except (IndexError, ValueError):
            raise ValueError(f"-float needs a number, got {vals[1:]!r}") from None
    if t in ("-bool", "-boolean"):
        v = vals[1].lower() if len(vals) > 1 else ""
        if v in ("true", "yes", "1"):
            return True
        if v in ("false", "no", "0"):
            return False
        raise ValueError(f"-bool needs true/false/yes/no, got {vals[1:]!r}")
    if t == "-array":
        return list(vals[1:])
    if t == "-dict":
        items = vals[1:]
        if len(items) % 2:
            raise ValueError("-dict needs key/value pairs")
        return {items[i]: items[i + 1] for i in range(0, len(items), 2)}
    if t.startswith("-") and t not in ("-",):
        raise ValueError(f"unknown type {t}")
    return " ".join(vals)

