"""What the sim's skill CLIs (``memo``, ``remindctl``, ``obsidian-cli``, ``himalaya``, ``clawhub``) share:
a small command-line parser that reports errors the way each tool words them, a ``CliError`` that
carries the tool's message and exit status, output bounds, and the home's byte budget for writes.

Every argument is the agent's: nothing here raises anything but ``CliError`` for bad input, and a
command's ``run_command`` turns that (and a confined-layer refusal) into stderr plus an exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Callable

from mmenvs.core.budget import BudgetExceeded, check_limit
from mmenvs.core.confined import ConfinedDir, ConfinementError

if TYPE_CHECKING:  # pragma: no cover
    from .base import CommandContext

#: Characters of one argument a skill CLI accepts (a note body, a mail, a search): far above any task's
#: text, far below host memory. Longer arguments are refused with the tool's usage error.
MAX_ARG_CHARS = 1_000_000
#: Items one listing prints at most (envelopes of a page, notes, reminders).
MAX_LIST_ITEMS = 10_000


class CliError(Exception):
    """A failure the tool reports: ``text`` goes to stderr (a newline is added), ``code`` is the exit status;
    ``stdout`` is what the tool printed before it failed."""

    def __init__(self, text: str, code: int = 1, stdout: str = "") -> None:
        super().__init__(text)
        self.text, self.code, self.stdout = text.rstrip("\n") + "\n", code, stdout


@dataclass
class Option:
    """One option: its names (``("-f", "--folder")``), whether it takes a value, and its key in the result."""

    names: tuple[str, ...]
    value: bool = False
    key: str = ""
    repeat: bool = False

    def __post_init__(self) -> None:
        if not self.key:
            longest = max(self.names, key=len)
            self.key = longest.lstrip("-").replace("-", "_")


@dataclass
class Parsed:
    opts: dict[str, Any] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        return self.opts.get(key, default)

    def flag(self, key: str) -> bool:
        return bool(self.opts.get(key))


def parse(argv: list[str], options: list[Option], *, unknown: Callable[[str], CliError],
          missing: Callable[[str], CliError], intermixed: bool = True) -> Parsed:
    """Parse ``argv`` against ``options``: long options as ``--name value`` or ``--name=value``, short ones
    as ``-n value``, ``-nvalue`` only for single-letter names; ``--`` ends the options. ``unknown(name)``
    and ``missing(name)`` build the tool's own errors. With ``intermixed=False`` the first positional
    argument ends option parsing (the rest are positionals)."""
    by_name: dict[str, Option] = {n: o for o in options for n in o.names}
    out = Parsed()
    i = 0
    while i < len(argv):
        a = argv[i]
        if len(a) > MAX_ARG_CHARS:
            raise CliError(f"argument of {len(a):,} characters is longer than the simulator's limit "
                           f"of {MAX_ARG_CHARS:,}", 2)
        if a == "--":
            out.args += argv[i + 1:]
            break
        if a.startswith("-") and a != "-" and not _is_number(a):
            name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
            opt = by_name.get(name)
            if opt is None and not a.startswith("--") and len(a) > 2 and a[:2] in by_name and by_name[a[:2]].value:
                opt, name, eq, val = by_name[a[:2]], a[:2], "=", a[2:]
            if opt is None:
                raise unknown(name)
            if opt.value:
                if not eq:
                    if i + 1 >= len(argv):
                        raise missing(name)
                    val = argv[i + 1]
                    i += 1
                if opt.repeat:
                    out.opts.setdefault(opt.key, []).append(val)
                else:
                    out.opts[opt.key] = val
            else:
                if eq:
                    raise unknown(a)
                out.opts[opt.key] = True
            i += 1
            continue
        out.args.append(a)
        if not intermixed:
            out.args += argv[i + 1:]
            break
        i += 1
    return out


def _is_number(a: str) -> bool:
    try:
        float(a)
        return True
    except ValueError:
        return False


def write_home_file(ctx: "CommandContext", path: Path, data: bytes) -> None:
    """Write ``data`` as the regular file ``path`` of the home (its folder made if missing), within the
    home's byte budget; a symlink or special file at the name or on the way is refused, never followed."""
    files: ConfinedDir = ctx.backend.current_desktop().home_files
    try:
        old = files.lstat(path).st_size if files.is_file(path) else 0
    except OSError:
        old = 0
    check_limit("home_bytes", ctx.backend.budget.home_bytes, files.disk_usage() - old + len(data),
                f"{ctx.posix(path)}: writing {len(data):,} bytes into the home")
    parts = files.parts(path)
    if len(parts) > 1:
        files.mkdir(PurePosixPath(*parts[:-1]), parents=True, exist_ok=True)
    files.write_bytes(path, data)


def run_guarded(tool: str, fn: Callable[[], tuple[str, str, int]], ctx: "CommandContext") -> tuple[str, str, int]:
    """Run one CLI invocation: a ``CliError`` becomes its message and status, a refusal of the confined
    layer or an over-budget write the tool's error (status 1); nothing else is expected to escape."""
    try:
        return fn()
    except CliError as e:
        if e.code == 0:  # help text: stdout only
            return e.stdout, "", 0
        return e.stdout, e.text, e.code
    except BudgetExceeded as e:
        return "", f"{tool}: {e}\n", 1
    except ConfinementError as e:
        return "", f"{tool}: {e.strerror or e}\n", 1
    except OSError as e:  # a plain OSError's filename is a host path: only its reason is shown
        shown = ctx.posix(Path(e.filename)) + ": " if getattr(e, "filename", None) else ""
        return "", f"{tool}: {shown}{e.strerror or type(e).__name__}\n", 1
