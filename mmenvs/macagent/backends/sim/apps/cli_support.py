"""What the skill CLIs of the simulated Mac (``peekaboo``, ``blogwatcher``, ``gifgrep``, ``songsee``) share:
:class:`CliExit` (a message and exit status, the way the real tool ends on bad input), a small flag
parser, writing an output file into the home through the confined layer within the home budget, and
:func:`run_guarded`, which runs a tool body and turns every failure into stderr + an exit code (in a
short-lived child process with the action's deadline and a memory bound for the tools that decode
agent-supplied files).

Every argument is agent-controlled: paths go through ``ctx.resolve`` (refused outside the home) and the
home's :class:`~mmenvs.core.confined.ConfinedDir` (no symlink, FIFO or device is followed), sizes are
checked against the episode budget before the work, and no exception leaves :func:`run_guarded`."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, Callable

from mmenvs.core.budget import BudgetExceeded, DeadlineExceeded, check_limit, current_deadline
from mmenvs.core.confined import ConfinedDir, ConfinementError
from mmenvs.core.offload import run_in_child

from ...base import BackendError
from .base import CommandContext


class CliExit(Exception):
    """End the tool: ``stdout`` and ``stderr`` as printed, exit status ``code``."""

    def __init__(self, stderr: str, code: int = 1, stdout: str = "") -> None:
        super().__init__(stderr, code, stdout)  # every field in args: it crosses a process boundary (pickled)
        self.stderr, self.code, self.stdout = stderr, code, stdout


def layer(ctx: CommandContext) -> ConfinedDir:
    """The episode home's confined layer."""
    return ctx.backend.current_desktop().home_files


def resolve(ctx: CommandContext, text: str, tool: str) -> Path:
    """The host path of the path ``text`` as the shell wrote it; a ``CliExit`` when it is outside the home."""
    if "\0" in text:
        raise CliExit(f"{tool}: {text!r}: a path may not contain a NUL byte\n")
    try:
        return ctx.resolve(text)
    except BackendError:
        raise CliExit(f"{tool}: {text}: the simulated Mac's tools work on files in the home folder "
                      f"({ctx.backend.posix_home})\n") from None


def read_file(ctx: CommandContext, path: Path, limit: int, tool: str, shown: str) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``: a larger file is refused, not cut)."""
    files = layer(ctx)
    kind = files.kind(path)
    if kind is None:
        raise CliExit(f"{tool}: open {shown}: no such file or directory\n")
    if kind == "dir":
        raise CliExit(f"{tool}: read {shown}: is a directory\n")
    if kind != "file":
        raise CliExit(f"{tool}: {shown}: not a regular file (symbolic links and special files are not read)\n")
    size = files.lstat(path).st_size
    if size > limit:
        raise CliExit(f"{tool}: {shown}: the file has {size:,} bytes, more than the {limit:,} this tool reads\n")
    return files.read_bytes(path, limit=limit)


def write_file(ctx: CommandContext, dest: Path, data: bytes, *, parents: bool = False) -> None:
    """Write ``data`` as the regular file ``dest`` in the home, within the home's byte budget (checked
    before the write); ``parents`` makes missing folders. A symlink or special file is refused."""
    files = layer(ctx)
    try:
        ctx.backend.check_in_home(dest)
    except BackendError:
        raise CliExit(f"{ctx.posix(dest)}: the simulated Mac's tools write files in the home folder only\n") from None
    try:
        old = files.lstat(dest).st_size if files.is_file(dest) else 0
    except OSError:
        old = 0
    check_limit("home_bytes", ctx.backend.budget.home_bytes, files.disk_usage() - old + len(data),
                f"{ctx.posix(dest)}: writing {len(data):,} bytes into the home")
    if parents:
        rel = files.parts(dest)
        if len(rel) > 1:
            files.mkdir(Path(files.root, *rel[:-1]), parents=True, exist_ok=True)
    try:
        files.write_bytes(dest, data)
    except ConfinementError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR) and "symbolic link" not in str(e):
            raise OSError(e.errno, os.strerror(e.errno), str(dest)) from None
        raise


def take_value(args: list[str], i: int, flag: str, tool: str) -> tuple[str, int]:
    """The value of ``flag`` at ``args[i]`` (``--flag value`` or ``--flag=value``) and the next index."""
    a = args[i]
    if "=" in a and a.startswith("--"):
        return a.split("=", 1)[1], i + 1
    if i + 1 >= len(args):
        raise CliExit(f"{tool}: error: flag {flag} needs a value\n", 2)
    return args[i + 1], i + 2


def int_value(text: str, flag: str, tool: str, code: int = 2) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise CliExit(f"{tool}: error: {flag}: expected a whole number, got {text!r}\n", code) from None


def float_value(text: str, flag: str, tool: str, code: int = 2) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CliExit(f"{tool}: error: {flag}: expected a number, got {text!r}\n", code) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise CliExit(f"{tool}: error: {flag}: expected a finite number, got {text!r}\n", code)
    return value


def run_guarded(tool: str, body: Callable[..., tuple[str, str, int]], args: list[str], stdin: str,
                ctx: CommandContext, *, child: bool) -> tuple[str, str, int]:
    """``body(args, stdin, ctx)`` with every failure as (stdout, stderr, code). With ``child`` the body
    runs in a forked child under the action deadline and ``child_memory_bytes`` (for decoding files
    the agent controls); otherwise in this process (bodies that read the live desktop)."""
    budget = ctx.backend.budget
    try:
        if child:
            deadline = current_deadline() or budget.deadline()
            return run_in_child(body, args, stdin, ctx, timeout=max(0.05, deadline.remaining()),
                                memory_bytes=budget.child_memory_bytes)
        return body(args, stdin, ctx)
    except CliExit as e:
        return e.stdout, e.stderr, e.code
    except BudgetExceeded as e:
        return "", f"{tool}: {e}\n", 1
    except (TimeoutError, DeadlineExceeded):
        return "", (f"{tool}: stopped: it ran past the action deadline action_timeout={budget.action_timeout:g} s "
                    "(the episode budget)\n"), 1
    except MemoryError:
        return "", (f"{tool}: out of memory: the work needs more than the episode budget "
                    f"child_memory_bytes={budget.child_memory_bytes:,}\n"), 1
    except ConfinementError as e:
        return "", f"{tool}: {e.strerror or e}\n", 1
    except BackendError as e:
        return "", f"{tool}: {e}\n", 1
    except OSError as e:
        where = ctx.posix(Path(e.filename)) + ": " if e.filename else ""
        return "", f"{tool}: {where}{e.strerror or type(e).__name__}\n", 1
    except Exception as e:  # noqa: BLE001 - a tool never raises out of the shell command
        return "", f"{tool}: internal error: {type(e).__name__}: {e}\n", 70


def check_deadline() -> None:
    """Raise ``DeadlineExceeded`` when the current action's deadline has passed (loops over agent data)."""
    d = current_deadline()
    if d is not None:
        d.check()


def no_extra(args: Any, tool: str, what: str) -> None:
    if args:
        raise CliExit(f"{tool}: error: unexpected argument {args[0]!r} for {what}\n", 2)


def fetch_url(ctx: CommandContext, url: str) -> tuple[int, str] | None:
    """GET ``url`` from the simulated Mac's offline web: the task's ``web_pages`` (looked up as Safari and
    ``curl`` look them up: http/https and www. variants, a trailing slash) or a site an app serves.
    (status, body), or ``None`` when no page answers (the host does not resolve)."""
    from .base import web_request

    desk = ctx.backend.current_desktop()
    safari = desk.apps.get("Safari")
    if safari is not None:
        found = safari._lookup(url if "://" in url else "http://" + url)  # noqa: SLF001 - the one page table
        if found is not None:
            return 200, found[1]
    served = web_request(desk, url)
    if served is not None:
        return served[0], served[2]
    return None
