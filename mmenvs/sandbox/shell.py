"""ShellSandbox: a persistent bash per episode, confined to a per-episode home directory.

Inside bubblewrap the home is bind-mounted read-write at a fixed path (``/home/user`` by default,
see :attr:`ShellSandbox.home_in_sandbox`) so that paths the agent sees do not depend on where the
host keeps the episode; everything else is read-only (``/usr``) or private (``/tmp``).

Host commands (e.g. ``osascript`` answered by MacAgent's simulated desktop) are small scripts on
PATH inside the sandbox that send ``{argv, stdin}`` over a unix socket to the parent, which runs
the registered Python callable and sends back ``{stdout, stderr, code}`` as JSON.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.budget import Deadline, deadline_scope
from ..core.confined import ConfinedDir
from .isolation import (
    PidsCgroup,
    bwrap_command,
    close_at_exit,
    process_limit_kind,
    process_tree,
    python_paths,
    resolve_isolation,
    seccomp_fd,
    terminate,
)
from ._worker import unencodable_char
from .spawn import popen

HostCommand = Callable[[list[str], str], tuple[str, str, int]]

_RUN_DIR = "/run/mmenvs"
_NAME_OK = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
_ENV_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MAX_REQUEST = 16 * 1024 * 1024
#: Seconds a host-command request may take to arrive (at most the command's own deadline).
HOST_REQUEST_SECONDS = 2.0
#: How often (at most) the home is measured against ``home_bytes`` while a command runs.
HOME_CHECK_SECONDS = 0.05
#: Entries of the home counted by the quota (a home with more is over budget).
HOME_MAX_ENTRIES = 100_000

# The shell reads NUL-separated (token, command) pairs, evaluates the command in the shell
# itself (so cd/export persist) with stdin from /dev/null, then prints the token, the exit
# status and the working directory on stdout, and the token on stderr.
_LOOP = r"""
while IFS= read -r -d '' __mm_tok && IFS= read -r -d '' __mm_cmd; do
  eval "$__mm_cmd" </dev/null
  __mm_rc=$?
  printf '\n%s %d %s\n' "$__mm_tok" "$__mm_rc" "$PWD"
  printf '\n%s\n' "$__mm_tok" >&2
done
"""

_SHIM = """#!{exe} -S
# mmenvs host command shim: forwards argv and stdin to the parent process over a unix socket.
import json, os, socket, sys
data = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
req = json.dumps({{"argv": [{name!r}] + sys.argv[1:], "stdin": data.decode("utf-8", "replace")}}).encode()
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(os.environ.get("MMENVS_HOST_SOCK", "{sock}"))
    s.sendall(req)
    s.shutdown(socket.SHUT_WR)
    chunks = []
    while True:
        c = s.recv(65536)
        if not c:
            break
        chunks.append(c)
    r = json.loads(b"".join(chunks))
except (OSError, ValueError) as e:
    sys.stderr.write({name!r} + ": host is not answering (" + str(e) + ")\\n")
    sys.exit(127)
sys.stdout.write(r.get("stdout", ""))
sys.stderr.write(r.get("stderr", ""))
sys.exit(int(r.get("code", 1)))
"""


@dataclass
class ShellResult:
    """What one :meth:`ShellSandbox.run` produced.  ``text`` is what an agent should read."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    timed_out: bool = False
    truncated: bool = False
    restarted: bool = False
    host_calls: list[dict[str, Any]] = field(default_factory=list)
    isolation: str = "bwrap"
    notice: str = ""

    @property
    def text(self) -> str:
        """stdout, stderr, a non-zero exit status and notices, as one string."""
        parts = []
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.stderr:
            parts.append(self.stderr.rstrip("\n"))
        if self.exit_code not in (0, None) and not self.timed_out:
            parts.append(f"[exit code {self.exit_code}]")
        if self.notice:
            parts.append(self.notice)
        return "\n".join(parts) if parts else "(no output)"


@dataclass(frozen=True)
class KeptDaemon:
    """A kind of process a command may leave running (``ShellSandbox(keep_running=…)``), told apart
    from the agent's other processes by what the agent cannot forge.

    ``comm`` (what ``/proc/<pid>/comm`` shows, e.g. ``"tmux: server"``) is only a first filter: any
    process may write its own comm. A process is kept when, besides, ``/proc/<pid>/exe`` is the very
    file ``executable`` names (same device and inode: the read-only system binary, not a copy or a
    script) and, with ``listens``, it holds a listening unix socket (a daemon's socket; a client or a
    process that merely renamed itself has none). A name alone means the command of that name on
    PATH (``"tmux: server"`` → ``tmux``)."""

    comm: str
    executable: str
    listens: bool = True

    @classmethod
    def named(cls, comm: str) -> "KeptDaemon":
        """The daemon ``comm`` run by the PATH command named like its first word (``"tmux: server"``: tmux)."""
        command = re.split(r"[:\s]", comm.strip(), maxsplit=1)[0]
        return cls(comm, shutil.which(command, path="/usr/bin:/bin:/usr/sbin:/sbin") or command)

    def identity(self) -> tuple[int, int] | None:
        """(device, inode) of ``executable``; None when it does not exist (nothing is then kept)."""
        try:
            info = os.stat(self.executable)
        except OSError:
            return None
        return info.st_dev, info.st_ino

    def matches(self, pid: int, identity: tuple[int, int] | None) -> bool:
        """Whether process ``pid`` (whose comm is ``comm``) is this daemon; ``identity`` is :meth:`identity`."""
        if identity is None:
            return False
        try:
            info = os.stat(f"/proc/{pid}/exe")  # the kernel's link to the running binary
        except OSError:
            return False
        if (info.st_dev, info.st_ino) != identity:
            return False
        return not self.listens or _listens_on_unix_socket(pid)


def _listens_on_unix_socket(pid: int) -> bool:
    """Whether process ``pid`` holds a listening unix socket (from the kernel's socket table)."""
    try:
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        if not inodes:
            return False
        with open(f"/proc/{pid}/net/unix") as fh:
            next(fh, None)  # header
            for line in fh:
                fields = line.split()
                # Num RefCount Protocol Flags Type St Inode [Path]; flag 0x10000 is __SO_ACCEPTCON (listening)
                if len(fields) >= 7 and fields[6] in inodes and int(fields[3], 16) & 0x10000:
                    return True
    except (OSError, ValueError):
        return False
    return False


class _Capture:
    """Collects one output stream up to a byte budget, finding the end-of-command marker."""

    def __init__(self, keep_bytes: int, marker: bytes) -> None:
        self.keep = keep_bytes
        self.marker = marker
        self.head = bytearray()
        self.total = 0
        self.pending = b""
        self.after = b""
        self.found = False

    def _commit(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]

    def feed(self, chunk: bytes) -> None:
        if self.found:
            self.after += chunk[:4096]
            return
        data = self.pending + chunk
        idx = data.find(self.marker)
        if idx >= 0:
            self._commit(data[:idx])
            self.after = data[idx + len(self.marker):]
            self.pending = b""
            self.found = True
            return
        # Keep a tail that could be the start of a marker split across reads.
        split = max(0, len(data) - (len(self.marker) - 1))
        self._commit(data[:split])
        self.pending = data[split:]

    def flush(self) -> None:
        self._commit(self.pending)
        self.pending = b""

    def text(self, max_chars: int) -> tuple[str, bool]:
        s = self.head.decode("utf-8", errors="replace")
        cut = len(s) > max_chars or self.total > len(self.head)
        if cut:
            s = s[:max_chars] + f"\n... [output truncated: {self.total} bytes in all, {max_chars} characters shown]"
        return s, cut


class _Timeout(Exception):
    pass


class ShellSandbox:
    """A persistent bash for untrusted commands, confined to ``home``.

    ``home`` is the only writable place (plus a private /tmp).  With bubblewrap it appears at
    ``home_in_sandbox`` (default ``/home/user``); in the rlimit-only fallback it keeps its host
    path.  cwd, shell variables and exported variables persist between :meth:`run` calls; a
    timed-out command is killed (the shell survives when only child processes were running).
    ``host_commands`` maps command names to ``callable(argv, stdin) -> (stdout, stderr, code)``
    run in the parent.
    """

    def __init__(
        self,
        home: str | os.PathLike[str],
        timeout: float = 10.0,
        max_output_chars: int = 10_000,
        host_commands: dict[str, HostCommand] | None = None,
        env: dict[str, str] | None = None,
        isolation: str = "auto",
        *,
        home_in_sandbox: str = "/home/user",
        memory_mb: int = 1024,
        max_processes: int = 64,
        tmpfs_mb: int = 256,
        cpu_seconds: int | None = None,
        start_timeout: float = 10.0,
        bwrap: str | os.PathLike[str] | None = None,
        spare: bool = True,
        keep_running: tuple[str | KeptDaemon, ...] = (),
        home_bytes: int | None = None,
        home_aliases: tuple[str, ...] = (),
    ) -> None:
        """Create the sandbox and start its shell (see the class docstring for the arguments).

        ``home_aliases`` are more absolute paths (bubblewrap only) where the same home appears too, e.g.
        the fixed ``/Users/<name>`` a task's commands were written for.

        ``spare`` keeps a second shell pre-started so that :meth:`reset` and restarts are instant.
        ``keep_running`` names processes (:class:`KeptDaemon`, or a name as ``/proc/<pid>/comm`` shows
        it, e.g. ``"tmux: server"``) that a command may leave running, with everything they start: they
        stay up between commands (like a daemon on a real machine) and end with the shell, at
        :meth:`reset` or :meth:`close`. Such a process is recognised by its binary and its listening
        socket, not by its name (which any process can give itself). Every other process a command
        leaves behind is stopped when the command returns.

        ``home_bytes`` is the home's byte budget (``EpisodeBudget.home_bytes``), enforced in three ways:
        no single file may grow past it (RLIMIT_FSIZE, with ``tmpfs_mb``); the home is measured every
        :data:`HOME_CHECK_SECONDS` (or twice the time a measurement takes) while a command runs, and a command that takes it over the budget is
        stopped like a timed-out one; while the home is over the budget, commands run with RLIMIT_FSIZE 0
        (no file may grow; deleting works) until the agent has made room.
        """
        self.home = Path(home).resolve()
        if not self.home.is_dir():
            raise ValueError(f"home={str(home)!r} is not an existing directory")
        if not home_in_sandbox.startswith("/") or home_in_sandbox.rstrip("/") in ("", "/usr", "/tmp", "/proc", "/dev"):
            raise ValueError(f"home_in_sandbox={home_in_sandbox!r} must be an absolute path outside /usr, /tmp, /proc, /dev")
        self.host_commands: dict[str, HostCommand] = dict(host_commands or {})
        for name in self.host_commands:
            if not _NAME_OK.match(name):
                raise ValueError(f"host command name {name!r} is not a plain command name")
        self.extra_env = dict(env or {})
        for k, v in self.extra_env.items():
            if not _ENV_OK.match(k) or not isinstance(v, str) or "\0" in v:
                raise ValueError(f"env entry {k!r}={v!r} is not a valid environment variable")
        self.isolation, self._bwrap_path, self._bwrap_flags = resolve_isolation(isolation, bwrap)
        self.home_in_sandbox = home_in_sandbox.rstrip("/") if self.isolation == "bwrap" else str(self.home)
        for alias in home_aliases:
            if not alias.startswith("/") or alias.rstrip("/") in ("", "/usr", "/tmp", "/proc", "/dev", "/etc") \
                    or ".." in alias.split("/") or alias.rstrip("/") == self.home_in_sandbox:
                raise ValueError(f"home_aliases entry {alias!r} must be an absolute path outside /usr, /tmp, /proc, /dev, /etc")
        self.home_aliases = tuple(a.rstrip("/") for a in home_aliases) if self.isolation == "bwrap" else ()
        self.timeout = float(timeout)
        self.max_output_chars = int(max_output_chars)
        self.memory_mb = int(memory_mb)
        self.max_processes = int(max_processes) if max_processes else 0
        self.tmpfs_mb = int(tmpfs_mb)
        self.home_bytes = int(home_bytes) if home_bytes else None
        self._home_files = ConfinedDir(self.home)
        self.cpu_seconds = int(cpu_seconds) if cpu_seconds else int(max(600, 60 * self.timeout))
        self.start_timeout = float(start_timeout)
        daemons = [k if isinstance(k, KeptDaemon) else KeptDaemon.named(str(k)) for k in keep_running]
        self.keep_running: dict[str, tuple[KeptDaemon, tuple[int, int] | None]] = {
            d.comm: (d, d.identity()) for d in daemons}
        self._closed = False
        self._owner_pid = os.getpid()
        self._runtime = tempfile.mkdtemp(prefix="mmenvs-sh-")
        self._listener = self._make_host_channel()
        self.use_spare = spare
        self._cur: _ShellProc | None = None
        self._spare: _ShellProc | None = None
        self._cwd = self.home_in_sandbox
        close_at_exit(self)
        self._start()
        self.process_limit = process_limit_kind(self._cgroup, self.max_processes or None)

    # The current shell's process state (kept in a _ShellProc so a spare can be pre-started).
    @property
    def _proc(self) -> subprocess.Popen[bytes] | None:
        return self._cur.proc if self._cur is not None else None

    @property
    def _cgroup(self) -> PidsCgroup | None:
        return self._cur.cgroup if self._cur is not None else None

    @property
    def _base(self) -> set[int]:
        return self._cur.base if self._cur is not None else set()

    @property
    def runtime_dir(self) -> str:
        """The host-side folder of the host commands' shims and socket (rebuilt if it goes missing)."""
        return self._runtime

    @property
    def cwd(self) -> str:
        """The shell's working directory as seen inside the sandbox (updated after every command)."""
        return self._cwd

    # -- setup --------------------------------------------------------------------------
    def _make_host_channel(self) -> socket.socket | None:
        bin_dir = Path(self._runtime, "bin")
        sock_dir = Path(self._runtime, "sock")
        bin_dir.mkdir()
        sock_dir.mkdir()
        if not self.host_commands:
            return None
        sock_path = str(sock_dir / "host.sock")
        inside_sock = f"{_RUN_DIR}/sock/host.sock" if self.isolation == "bwrap" else sock_path
        exe = os.path.realpath(sys.executable)
        for name in self.host_commands:
            shim = bin_dir / name
            shim.write_text(_SHIM.format(exe=exe, name=name, sock=inside_sock))
            shim.chmod(0o755)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(sock_path)
        listener.listen(16)
        listener.setblocking(False)
        return listener

    def _env(self, tmpdir: str | None) -> dict[str, str]:
        if self.isolation == "bwrap":
            path = f"{_RUN_DIR}/bin:/usr/local/bin:/usr/bin:/bin"
            sock, tmp = f"{_RUN_DIR}/sock/host.sock", "/tmp"
        else:
            path = f"{self._runtime}/bin:/usr/local/bin:/usr/bin:/bin"
            sock, tmp = f"{self._runtime}/sock/host.sock", str(tmpdir)
        env = {"PATH": path, "HOME": self.home_in_sandbox, "USER": "user", "LOGNAME": "user",
               "SHELL": "/bin/bash", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "TZ": "UTC",
               "TMPDIR": tmp, "MMENVS_HOST_SOCK": sock, "PYTHONDONTWRITEBYTECODE": "1"}
        env.update(self.extra_env)
        return env

    def _spawn(self) -> _ShellProc:
        """Start a shell process; it waits for its first command (see :meth:`_activate`)."""
        sp = _ShellProc()
        sp.cgroup = PidsCgroup.create(self.max_processes) if self.max_processes else None
        argv = ["/bin/bash", "--noprofile", "--norc", "-c", self._limits_prefix(sp.cgroup) + _LOOP]
        data_fds: list[int] = []
        if self.isolation == "bwrap":
            files = []
            for dest, text in (("/etc/passwd", f"user:x:1000:1000:user:{self.home_in_sandbox}:/bin/bash\n"),
                               ("/etc/group", "user:x:1000:\n"), ("/etc/hostname", "sandbox\n")):
                r, w = os.pipe()
                os.write(w, text.encode())
                os.close(w)
                data_fds.append(r)
                files.append((r, dest))
            ro, _ = python_paths()
            sfd = seccomp_fd(self._bwrap_flags)
            if sfd is not None:
                data_fds.append(sfd)
            cmd = bwrap_command(
                self._bwrap_path, argv, env=self._env(None), ro_binds=ro, full_usr=True, seccomp=sfd,
                ro_binds_at=[(f"{self._runtime}/bin", f"{_RUN_DIR}/bin"), (f"{self._runtime}/sock", f"{_RUN_DIR}/sock")],
                rw_binds=[(str(self.home), inside) for inside in (self.home_in_sandbox, *self.home_aliases)],
                data_files=files,
                tmpfs_mb=self.tmpfs_mb, chdir=self.home_in_sandbox, flags=self._bwrap_flags)
            cwd = None
        else:
            sp.tmpdir = tempfile.mkdtemp(prefix="mmenvs-shtmp-")
            cmd, cwd = argv, str(self.home)
        # No preexec_fn (it would force a slow full fork() of this process): bash sets its own
        # rlimits first thing, and the process tree joins the cgroup before any command runs.
        try:
            # forked from a thread that lasts (bwrap's --die-with-parent ties the shell to that thread)
            sp.proc = popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            pass_fds=tuple(data_fds), start_new_session=True,
                            env=self._env(sp.tmpdir), cwd=cwd)
        except BaseException:
            sp.kill()
            raise
        finally:
            for fd in data_fds:
                os.close(fd)
        if sp.cgroup is not None:
            sp.cgroup.add(sp.proc.pid)
        for f in (sp.proc.stdin, sp.proc.stdout, sp.proc.stderr):
            os.set_blocking(f.fileno(), False)
        return sp

    def _activate(self, sp: _ShellProc) -> None:
        """Make ``sp`` the current shell: its first command proves it is up and sets the cwd."""
        self._cur = sp
        first = f"cd {shlex.quote(self._cwd)} 2>/dev/null || cd ~"
        try:
            res = self._exchange(first, time.monotonic() + self.start_timeout, [])
        except (_Timeout, _ShellDied):
            res = None
        if res is None or res[2] != 0:
            err = res[1].decode(errors="replace") if res else ""
            if res is None and sp.proc is not None and sp.proc.stderr is not None:
                try:
                    err = (sp.proc.stderr.read() or b"").decode(errors="replace")
                except OSError:
                    pass
            self._stop()
            raise RuntimeError(f"the sandbox shell failed to start: {err.strip() or 'no error output'}")
        if sp.cgroup is not None and sp.proc is not None:
            # bwrap may have forked before its pid joined the cgroup (writes are slow: only the missing)
            for pid in set(process_tree(sp.proc.pid)) - set(sp.cgroup.pids()):
                sp.cgroup.add(pid)
        sp.base = self._current_pids()

    def _runtime_intact(self) -> bool:
        """Whether the runtime folder (the host commands' shims and socket) is still in place."""
        if not os.path.isdir(os.path.join(self._runtime, "bin")):
            return False
        return self._listener is None or os.path.exists(os.path.join(self._runtime, "sock", "host.sock"))

    def _rebuild_runtime(self) -> None:
        """A new runtime folder, after something removed the old one from the temp directory (a temp
        cleaner during a long training run): shells bound to the old one cannot reach the host, so
        the spare is dropped too.  A fresh ``mkdtemp``, not the old path, which anyone may have taken."""
        old_listener, old_runtime = self._listener, self._runtime
        self._runtime = tempfile.mkdtemp(prefix="mmenvs-sh-")
        self._listener = self._make_host_channel()
        if old_listener is not None:
            old_listener.close()
        shutil.rmtree(old_runtime, ignore_errors=True)
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.kill(True)

    def _start(self) -> None:
        """Make a shell current: the pre-started spare if there is one, then start a new spare."""
        if not self._runtime_intact():
            self._rebuild_runtime()
        spare, self._spare = self._spare, None
        self._activate(spare if spare is not None else self._spawn())
        if self.use_spare:
            self._spare = self._spawn()

    def _limits_prefix(self, cgroup: PidsCgroup | None) -> str:
        """``ulimit`` lines run by bash before anything else (soft = hard: they cannot be raised)."""
        file_kib = self.tmpfs_mb * 1024 if self.home_bytes is None else min(self.tmpfs_mb * 1024, max(1, self.home_bytes // 1024))
        lines = ["ulimit -c 0", f"ulimit -v {self.memory_mb * 1024}", f"ulimit -t {self.cpu_seconds}",
                 f"ulimit -f {file_kib}"]
        if cgroup is None and self.max_processes and os.geteuid() != 0:
            lines.append(f"ulimit -u {self.max_processes}")
        return " && ".join(lines) + " || exit 97\n"

    def _tree_pids(self) -> set[int]:
        if self._proc is None:
            return set()
        return set(process_tree(self._proc.pid))

    # -- one command --------------------------------------------------------------------
    def _exchange(self, command: str, deadline: float, host_calls: list[dict[str, Any]], watch_home: bool = False
                  ) -> tuple[bytes, bytes, int, str, _Capture, _Capture] | None:
        """Send one command; return (stdout, stderr, rc, cwd, captures) or None if the shell died.

        Raises _Timeout when the deadline passes first, _HomeFull when ``watch_home`` and the home went
        over ``home_bytes`` (captures are kept on the exception).
        """
        assert self._proc is not None and self._proc.stdin and self._proc.stdout and self._proc.stderr
        tok = "__MMENVS_END_" + secrets.token_hex(8)
        marker = ("\n" + tok).encode()
        keep = self.max_output_chars * 4 + 16
        out, err = _Capture(keep, marker + b" "), _Capture(keep, marker + b"\n")
        payload = memoryview(tok.encode() + b"\0" + command.encode("utf-8", "surrogateescape") + b"\0")
        fo, fe, fi = self._proc.stdout.fileno(), self._proc.stderr.fileno(), self._proc.stdin.fileno()
        open_fds = {fo: out, fe: err}
        next_home_check = time.monotonic() + HOME_CHECK_SECONDS if watch_home and self.home_bytes else None
        while True:
            if out.found and b"\n" in out.after and err.found:
                break
            now = time.monotonic()
            if next_home_check is not None and now >= next_home_check:
                if self.home_over_budget() is not None:
                    exc = _HomeFull()
                    exc.captures = (out, err)  # type: ignore[attr-defined]
                    raise exc
                # a large home takes longer to measure: at most a third of the time goes to measuring
                spent = time.monotonic() - now
                next_home_check = time.monotonic() + max(HOME_CHECK_SECONDS, 2 * spent)
            remaining = deadline - now
            if remaining <= 0:
                exc = _Timeout()
                exc.captures = (out, err)  # type: ignore[attr-defined]
                raise exc
            if next_home_check is not None:
                remaining = max(0.0, min(remaining, next_home_check - now))
            rlist: list[Any] = list(open_fds)
            if self._listener is not None:
                rlist.append(self._listener)
            wlist = [fi] if payload else []
            if not rlist and not wlist:
                return None
            ready_r, ready_w, _ = select.select(rlist, wlist, [], remaining)
            if ready_w:
                try:
                    payload = payload[os.write(fi, payload):]
                except BlockingIOError:
                    pass
                except OSError:
                    return None
            for fd in ready_r:
                if fd is self._listener:
                    self._serve_host(deadline, host_calls)
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    del open_fds[fd]
                    if fd == fo and not out.found:
                        out.flush()
                        err.flush()
                        exc = _ShellDied()
                        exc.captures = (out, err)  # type: ignore[attr-defined]
                        raise exc
                    continue
                open_fds[fd].feed(chunk)
        line = out.after.split(b"\n", 1)[0].decode("utf-8", "replace")
        rc_text, _, cwd = line.partition(" ")
        try:
            rc = int(rc_text)
        except ValueError:
            rc = -1
        return bytes(out.head), bytes(err.head), rc, cwd, out, err

    def _serve_host(self, deadline: float, host_calls: list[dict[str, Any]]) -> None:
        assert self._listener is not None
        try:
            conn, _ = self._listener.accept()
        except (BlockingIOError, OSError):
            return
        with conn:
            # One deadline for the whole request (not a timeout renewed by every byte): a client that
            # trickles its request cannot hold the step past it.
            request_deadline = min(deadline, time.monotonic() + HOST_REQUEST_SECONDS)
            chunks, size = [], 0
            try:
                while size <= _MAX_REQUEST:
                    left = request_deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError
                    conn.settimeout(left)
                    c = conn.recv(1 << 16)
                    if not c:
                        break
                    chunks.append(c)
                    size += len(c)
                if size > _MAX_REQUEST:
                    raise ValueError
                req = json.loads(b"".join(chunks))
            except (OSError, ValueError) as exc:
                why = (f"the request did not arrive within {HOST_REQUEST_SECONDS:g} s" if isinstance(exc, TimeoutError)
                       else f"the request is malformed or over {_MAX_REQUEST} bytes")
                try:
                    conn.settimeout(0.05)
                    conn.sendall(json.dumps({"stdout": "", "stderr": f"host command refused: {why}\n", "code": 2}).encode())
                except OSError:
                    pass
                return
            argv = req.get("argv") if isinstance(req, dict) else None
            stdin = req.get("stdin", "") if isinstance(req, dict) else ""
            if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
                    and isinstance(stdin, str) and argv[0] in self.host_commands):
                reply = {"stdout": "", "stderr": "host command request is malformed\n", "code": 2}
            else:
                record: dict[str, Any] = {"argv": argv, "stdin": stdin}
                try:
                    # The host command works under the shell command's deadline (AppleScript, media tools
                    # find it with current_deadline()).
                    with deadline_scope(Deadline(max(0.0, deadline - time.monotonic()), f"the host command {argv[0]!r}")):
                        o, e, code = self.host_commands[argv[0]](list(argv), stdin)
                    reply = {"stdout": str(o), "stderr": str(e), "code": int(code)}
                except Exception as exc:  # a failing host command is an error for the agent, not the parent
                    reply = {"stdout": "", "stderr": f"{argv[0]}: {type(exc).__name__}: {exc}\n", "code": 1}
                record.update(reply)
                host_calls.append(record)
            try:
                conn.settimeout(max(0.05, deadline - time.monotonic()))
                conn.sendall(json.dumps(reply).encode())
            except OSError:
                pass

    def run(self, command: str, *, trusted: bool = False) -> ShellResult:
        """Run ``command`` in the persistent shell; never raises for faults of the command.

        ``trusted`` marks the env's own setup (shell functions of a session): it runs in the shell itself
        even while the home is over its budget (an agent's command then runs in a no-write subshell)."""
        if self._closed:
            raise RuntimeError("this ShellSandbox is closed")
        if os.getpid() != self._owner_pid:
            raise RuntimeError("this ShellSandbox belongs to the process that created it; create a new one after fork")
        res = ShellResult(isolation=self.isolation)
        rebuilt_notice = ""
        if not isinstance(command, str) or "\0" in command:
            res.stderr, res.exit_code = "the command must be a string without NUL characters", 2
            return res
        unencodable = unencodable_char(command, "surrogateescape")
        if unencodable is not None:
            res.stderr, res.exit_code = f"the command is not valid text: {unencodable}\n", 2
            return res
        if self._proc is None:
            self._start()
            res.restarted = True
        elif not self._runtime_intact():
            self._restart()  # rebuilds the runtime folder: the running shell's host channel is gone
            res.restarted = True
            rebuilt_notice = "[the shell's runtime folder had been removed; a new shell was started; shell variables were reset]"
        guard_notice = self._stop_home_guard()  # the command's own home watch takes over
        deadline = time.monotonic() + self.timeout
        over = self.home_over_budget()
        if over is not None and not trusted:
            # No file may grow while the home is over its budget (rm, mv and truncation still work); the
            # command runs in a subshell so the limit ends with it.
            command = f"( ulimit -f 0 || exit 97; eval {shlex.quote(command)} )"
        try:
            got = self._exchange(command, deadline, res.host_calls, watch_home=over is None)
        except _Timeout as t:
            return self._after_timeout(res, t.captures)  # type: ignore[attr-defined]
        except _HomeFull as t:
            return self._after_timeout(res, t.captures, why=self.home_over_budget() or "the home is over its budget")  # type: ignore[attr-defined]
        except _ShellDied as d:
            out, err = d.captures  # type: ignore[attr-defined]
            res.stdout, c1 = out.text(self.max_output_chars)
            res.stderr, c2 = err.text(self.max_output_chars)
            res.truncated = c1 or c2
            res.exit_code = self._proc.wait(timeout=5) if self._proc else None
            self._restart()
            res.restarted = True
            res.notice = (f"[the shell exited (status {res.exit_code}); a new shell was started in {self._cwd}; "
                          "shell variables were reset]")
            return res
        except BaseException:
            # Interrupted from the parent's side (Ctrl-C, a host command raising SystemExit): the
            # shell is mid-command with unread output, so it cannot be reused.
            self._stop(background=True)
            raise
        if got is None:
            self._restart()
            res.restarted, res.exit_code = True, -1
            res.notice = f"[the shell stopped responding; a new shell was started in {self._cwd}]"
            return res
        _, _, res.exit_code, cwd, out, err = got
        self._cwd = cwd or self._cwd
        res.stdout, c1 = out.text(self.max_output_chars)
        res.stderr, c2 = err.text(self.max_output_chars)
        res.truncated = c1 or c2
        strays = len(self._kill_strays())
        notices = [n for n in (rebuilt_notice, guard_notice) if n]
        if strays:
            notices.append(f"[{strays} background process(es) left by the command were stopped]")
        self._start_home_guard()
        over_after = self.home_over_budget()
        if over_after is not None:
            notices.append(f"[{over_after}: until files are deleted, commands may not write files]")
        elif over is not None:
            notices.append("[the home is back under its budget home_bytes: files may be written again]")
        res.notice = "\n".join(notices)
        return res

    def _start_home_guard(self) -> None:
        """While ``keep_running`` daemons outlive the command (a tmux pane writing file after file, each
        under RLIMIT_FSIZE), a host thread measures the home between commands and stops every process
        left beyond the shell once it is over ``home_bytes``."""
        if self.home_bytes is None or not (self._current_pids() - self._base):
            return
        stop = threading.Event()
        base, cgroup_pids = set(self._base), self._current_pids

        def guard() -> None:
            interval = HOME_CHECK_SECONDS
            while not stop.wait(interval):
                started = time.monotonic()
                over = self.home_over_budget()
                interval = max(HOME_CHECK_SECONDS, 2 * (time.monotonic() - started))
                left = cgroup_pids() - base
                if not left:
                    return
                if over is not None and not stop.is_set():
                    for pid in left:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
                    self._home_guard_notice = f"[{over}: the processes left running (tmux, …) were stopped]"
                    return

        thread = threading.Thread(target=guard, name="mmenvs-home-guard", daemon=True)
        self._home_guard = (stop, thread)
        thread.start()

    def _stop_home_guard(self) -> str:
        """Stop the between-commands home guard; what it did, as a notice ("" when nothing)."""
        guard = getattr(self, "_home_guard", None)
        if guard is not None:
            guard[0].set()
            guard[1].join()
            self._home_guard = None
        notice, self._home_guard_notice = getattr(self, "_home_guard_notice", ""), ""
        return notice

    def home_usage(self) -> tuple[int, int]:
        """(bytes of the home's regular files, entries counted); symlinks are not followed, and the
        count stops at :data:`HOME_MAX_ENTRIES` entries (walked by directory fds: ``ConfinedDir.usage``)."""
        return self._home_files.usage(limit=HOME_MAX_ENTRIES)

    def home_over_budget(self) -> str | None:
        """None while the home is within ``home_bytes`` (or there is no budget); else why it is not."""
        if self.home_bytes is None:
            return None
        size, count = self.home_usage()
        if size > self.home_bytes:
            return f"the home holds {size:,} bytes, over its budget home_bytes={self.home_bytes:,}"
        if count >= HOME_MAX_ENTRIES:
            return f"the home holds {HOME_MAX_ENTRIES:,} entries or more, over its budget (home_bytes counts at most that many)"
        return None

    def _current_pids(self) -> set[int]:
        if self._cgroup is not None:
            return set(self._cgroup.pids())
        return self._tree_pids()

    def _kill_strays(self, budget: float = 2.0) -> set[int]:
        """Stop every process the command left behind (background jobs, fork bombs); the pids stopped."""
        killed: set[int] = set()
        deadline = time.monotonic() + budget
        while time.monotonic() < deadline:
            strays = self._current_pids() - self._base
            if strays and self.keep_running:
                strays -= self._kept(strays)
            if not strays:
                break
            for pid in strays:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            killed |= strays
            time.sleep(0.002)
        return killed

    def _kept(self, pids: set[int]) -> set[int]:
        """The processes among ``pids`` that are ``keep_running`` daemons (checked by binary and
        socket, see :class:`KeptDaemon`), with all their descendants."""
        kept: set[int] = set()
        for pid in pids:
            try:
                with open(f"/proc/{pid}/comm") as fh:
                    name = fh.read().rstrip("\n")
            except OSError:
                continue
            entry = self.keep_running.get(name)
            if entry is not None and entry[0].matches(pid, entry[1]):
                kept.update(process_tree(pid))
        return kept

    def _after_timeout(self, res: ShellResult, captures: tuple[_Capture, _Capture], why: str | None = None) -> ShellResult:
        """Stop a command that ran out of time (or, with ``why``, one that took the home over its budget)."""
        res.timed_out = True
        res.exit_code = 124
        # First stop only what the command started: if the shell itself is idle it answers and
        # keeps its state.  A busy shell is replaced: one in a builtin loop (no answer), or one that
        # goes on with the command after its child was stopped (it starts another process: the rest
        # of a `for` loop must not run after "the command was stopped").
        running = self._current_pids() - self._base
        stopped_pids = self._kill_strays(budget=0.5)
        try:
            if stopped_pids - running:
                raise _ShellWentOn()
            got = self._drain(captures, time.monotonic() + 0.3, stopped_pids)
        except (_Timeout, _ShellDied, _ShellWentOn):
            got = None
        out, err = captures
        stopped = f"{why}, the command was stopped" if why else f"timed out after {self.timeout:g} s: the command was stopped"
        if got is not None:
            self._cwd = got or self._cwd
            res.notice = f"[{stopped}; the shell kept its state]"
        else:
            self._restart()
            res.restarted = True
            res.notice = f"[{stopped}; the shell was restarted in {self._cwd}; shell variables were reset]"
        out.flush()
        err.flush()
        res.stdout, c1 = out.text(self.max_output_chars)
        res.stderr, c2 = err.text(self.max_output_chars)
        res.truncated = c1 or c2
        return res

    def _drain(self, captures: tuple[_Capture, _Capture], deadline: float, stopped: set[int]) -> str | None:
        """Keep reading after a stop until the end marker; returns the cwd or None.  Raises
        :class:`_ShellWentOn` when the shell starts a process not among ``stopped`` meanwhile."""
        assert self._proc is not None and self._proc.stdout and self._proc.stderr
        out, err = captures
        fds = {self._proc.stdout.fileno(): out, self._proc.stderr.fileno(): err}
        while not (out.found and b"\n" in out.after and err.found):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not fds:
                return None
            started = self._current_pids() - self._base - stopped
            if started and self.keep_running:
                started -= self._kept(started)
            if started:
                raise _ShellWentOn()
            ready, _, _ = select.select(list(fds), [], [], min(remaining, 0.005))
            for fd in ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    del fds[fd]
                    continue
                fds[fd].feed(chunk)
        line = out.after.split(b"\n", 1)[0].decode("utf-8", "replace")
        return line.partition(" ")[2]

    # -- lifecycle ----------------------------------------------------------------------
    def _stop(self, background: bool = False) -> None:
        self._stop_home_guard()
        cur, self._cur = self._cur, None
        if cur is not None:
            cur.kill(background)

    def _restart(self) -> None:
        self._stop(background=True)
        self._start()

    def reset(self) -> None:
        """A fresh shell for a new episode: cwd back to home, variables cleared (home files stay).

        Returns once every process of the last shell has exited, ``keep_running`` daemons included,
        so none of them can still write into the home (a caller may empty it for the next episode).
        """
        if self._closed:
            raise RuntimeError("this ShellSandbox is closed")
        self._cwd = self.home_in_sandbox
        old_cgroup, old_pids = self._cgroup, self._current_pids()
        self._restart()  # kills the old shell (reaped in the background) and activates the spare
        _await_exit(old_cgroup, old_pids, timeout=self.start_timeout)

    def close(self) -> None:
        """Stop the shell and remove the runtime directory.  Safe to call more than once.

        Like :meth:`reset`, returns once every process of the shell has exited."""
        if self._closed:
            return
        self._closed = True
        if os.getpid() != self._owner_pid:
            return  # a forked copy: the shell belongs to the parent process, leave it alone
        old_cgroup, old_pids = self._cgroup, self._current_pids()
        self._stop()
        _await_exit(old_cgroup, old_pids, timeout=self.start_timeout)
        if self._spare is not None:
            self._spare.kill()
            self._spare = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        shutil.rmtree(self._runtime, ignore_errors=True)

    def __enter__(self) -> ShellSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _await_exit(cgroup: PidsCgroup | None, pids: set[int], timeout: float) -> None:
    """Wait until the killed processes ``pids`` and every task of ``cgroup`` have exited.

    SIGKILL is not instant: a process in the middle of a system call (say, creating a file) finishes
    it first, and a fork racing the kill is killed a moment later by the reaper thread. A cgroup
    lists no exited task (zombies included), and an exited process has closed its files.
    """
    deadline = time.monotonic() + timeout
    while True:
        left = {pid for pid in pids | set(cgroup.pids() if cgroup is not None else ()) if _running(pid)}
        if not left or time.monotonic() >= deadline:
            return
        time.sleep(0.001)


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and has not exited (a zombie has: it only waits to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


class _ShellDied(Exception):
    pass


class _ShellWentOn(Exception):
    """After a command's processes were stopped, the shell went on with the command (it started another)."""


class _HomeFull(Exception):
    pass


class _ShellProc:
    """One shell process tree: the Popen handle, its pids cgroup, its private tmp (fallback only)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.cgroup: PidsCgroup | None = None
        self.tmpdir: str | None = None
        self.base: set[int] = set()

    def kill(self, background: bool = False) -> None:
        """SIGKILL the shell's process group and cgroup now; the rest can happen in a thread."""
        proc, self.proc = self.proc, None
        cgroup, self.cgroup = self.cgroup, None
        tmpdir, self.tmpdir = self.tmpdir, None
        terminate(proc, cgroup, tmpdir, background=background, thread_name="mmenvs-shell-reaper")
