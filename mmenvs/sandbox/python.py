"""PythonSandbox: a persistent, isolated Python worker per episode, with tools as proxies."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmenvs.core.actions import clip_for_log

from . import _worker as wire
from .isolation import (
    PidsCgroup,
    bwrap_command,
    close_at_exit,
    process_tree,
    process_limit_kind,
    python_paths,
    resolve_isolation,
    seccomp_fd,
    terminate,
)
from .policy import DEFAULT_ALLOWED_IMPORTS, Policy
from .spawn import popen

_WORKER_SOURCE = Path(wire.__file__).read_text(encoding="utf-8")


@dataclass
class RunResult:
    """What one :meth:`PythonSandbox.run` produced.  ``text`` is what an agent should read."""

    stdout: str = ""
    value: str | None = None
    error: str | None = None
    error_kind: str | None = None  # policy|syntax|exception|memory|recursion|timeout|output|process_limit|cpu|crash
    truncated: bool = False
    restarted: bool = False
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    isolation: str = "bwrap"

    @property
    def ok(self) -> bool:
        """True when the code ran to the end without an error (a truncated output is not an error)."""
        return self.error is None or self.error_kind == "output"

    @property
    def text(self) -> str:
        """stdout, the trailing expression's value and the error, with notices, as one string."""
        parts = []
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.value is not None:
            parts.append(self.value)
        if self.error:
            parts.append(self.error.rstrip("\n"))
        if not parts:
            parts.append("(no output)")
        return "\n".join(parts)


class _Timeout(Exception):
    pass


class _ChannelBroken(Exception):
    pass


def _set_nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


class _Worker:
    """One worker process (inside bwrap or rlimit-only) and the parent's end of its channel."""

    def __init__(self, sb: PythonSandbox) -> None:
        self.sb = sb
        self.dirty = False
        self.ready = False
        self.proc: subprocess.Popen[bytes] | None = None
        self.tmpdir: str | None = None
        self.base_pids: set[int] = set()
        self.buf = bytearray()
        self.cgroup = PidsCgroup.create(sb.max_processes) if sb.max_processes else None
        p2w_r, p2w_w = os.pipe()
        w2p_r, w2p_w = os.pipe()
        _, site_dirs = python_paths()
        exe = os.path.realpath(sys.executable)
        limits = {"as": sb.memory_mb * 1024 * 1024, "cpu": sb.cpu_seconds, "fsize": sb.tmpfs_mb * 1024 * 1024,
                  "core": 0, "nproc": sb.max_processes if self.cgroup is None and sb.max_processes and
                  os.geteuid() != 0 else None}
        argv = [exe, "-S", "-B", "-c", _WORKER_SOURCE, str(p2w_r), str(w2p_w), json.dumps(limits), *site_dirs]
        env = {
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC",
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "MPLBACKEND": "Agg",
        }
        sfd: int | None = None
        if sb.isolation == "bwrap":
            env.update(HOME="/tmp", TMPDIR="/tmp", MPLCONFIGDIR="/tmp/.matplotlib")
            ro, _ = python_paths()
            sfd = seccomp_fd(sb._bwrap_flags)
            cmd = bwrap_command(sb._bwrap_path, argv, env=env, ro_binds=ro, tmpfs_mb=sb.tmpfs_mb,
                                chdir="/tmp", flags=sb._bwrap_flags, seccomp=sfd)
            cwd = None
        else:
            # No namespaces: the best we can do is a private working directory and an empty env.
            self.tmpdir = tempfile.mkdtemp(prefix="mmenvs-sandbox-")
            env.update(HOME=self.tmpdir, TMPDIR=self.tmpdir, MPLCONFIGDIR=os.path.join(self.tmpdir, ".matplotlib"))
            cmd, cwd = argv, self.tmpdir
        # No preexec_fn: it would force a full fork() of this (large) process.  The worker sets its
        # own rlimits before it reads anything, and joins the cgroup below.
        try:
            # forked from a thread that lasts: bwrap's --die-with-parent ties the worker to that thread
            self.proc = popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                pass_fds=(p2w_r, w2p_w) + ((sfd,) if sfd is not None else ()),
                start_new_session=True, env=env, cwd=cwd)
        finally:
            os.close(p2w_r)
            os.close(w2p_w)
            if sfd is not None:
                os.close(sfd)
        if self.cgroup is not None:
            self.cgroup.add(self.proc.pid)
        self.wfd, self.rfd = p2w_w, w2p_r
        _set_nonblocking(self.rfd)
        _set_nonblocking(self.wfd)
        self.poller = select.poll()
        self.poller.register(self.rfd, select.POLLIN | select.POLLHUP | select.POLLERR)
        init = {"op": "init", "tools": sorted(sb._tools), "preload": sb.preload, "prewarm": list(sb.prewarm),
                "max_output": sb.max_output_chars, "max_value": sb.max_value_chars,
                "max_bytes": sb.max_message_bytes}
        try:
            self.send(init, time.monotonic() + sb.start_timeout)
        except (_Timeout, _ChannelBroken):
            pass  # reported by wait_ready with the worker's stderr

    # -- channel ------------------------------------------------------------------------
    def send(self, msg: dict | list, deadline: float) -> None:
        """Write a message (a dict, or a list of buffers already encoded) before ``deadline``."""
        bufs = [memoryview(b).cast("B") for b in (wire.encode_frame(msg) if isinstance(msg, dict) else msg)]
        data = memoryview(b"".join(bufs)) if len(bufs) > 1 else bufs[0]
        while data:
            try:
                n = os.write(self.wfd, data)
                data = data[n:]
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Timeout from None
                select.select([], [self.wfd], [], remaining)
            except (BrokenPipeError, OSError) as exc:
                raise _ChannelBroken(str(exc)) from None

    def _fill_buf(self, deadline: float, want: int) -> None:
        """Wait (until ``deadline``) for data and read at least one chunk into the buffer."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout
            if not self.poller.poll(max(1, int(remaining * 1000) + 1)):
                continue
            try:
                chunk = os.read(self.rfd, max(65536, min(want, 1 << 24)))
            except BlockingIOError:
                continue
            except OSError as exc:
                raise _ChannelBroken(str(exc)) from None
            if not chunk:
                raise _ChannelBroken("worker closed its channel")
            self.buf += chunk
            return

    def recv(self, deadline: float) -> dict:
        while len(self.buf) < wire.HEADER.size:
            self._fill_buf(deadline, wire.HEADER.size)
        body_len, blob_len = wire.HEADER.unpack_from(self.buf)
        total = wire.HEADER.size + body_len + blob_len
        if body_len > self.sb.max_body_bytes or blob_len > self.sb.max_message_bytes:
            raise _ChannelBroken(f"worker sent a message of {body_len} JSON bytes and {blob_len} array bytes; "
                                 f"the limits are {self.sb.max_body_bytes} and {self.sb.max_message_bytes}")
        while len(self.buf) < total:
            self._fill_buf(deadline, total - len(self.buf))
        start = wire.HEADER.size
        body = bytes(self.buf[start:start + body_len])
        blob = self.buf[start + body_len:total] if blob_len else bytearray()
        del self.buf[:total]
        try:
            return wire.decode_frame(body, blob, self.sb.max_message_bytes)
        except wire.WireError as exc:
            raise _ChannelBroken(f"malformed message from worker: {exc}") from None

    def converse(self, deadline: float, calls: list[dict[str, Any]] | None) -> dict:
        """Serve tool calls until the worker sends a final message (done/ready)."""
        while True:
            msg = self.recv(deadline)
            if msg.get("op") == "call":
                reply = self.sb._call_tool(msg, calls)
                self.send(reply, deadline)
            else:
                return msg

    def wait_ready(self) -> None:
        if self.ready:
            return
        try:
            msg = self.converse(time.monotonic() + self.sb.start_timeout, None)
        except (_Timeout, _ChannelBroken) as exc:
            detail = self.stderr_text()
            self.kill()
            raise RuntimeError(f"the sandbox worker failed to start ({exc.__class__.__name__.strip('_')}): "
                               f"{detail or 'no error output'}") from None
        if msg.get("op") != "ready":
            self.kill()
            raise RuntimeError(f"the sandbox worker sent {msg.get('op')!r} instead of 'ready'")
        if msg.get("preload_error"):
            self.kill()
            raise RuntimeError(f"the sandbox preload code failed:\n{msg['preload_error']}")
        self.ready = True
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()
        if self.proc is not None:
            tree = process_tree(self.proc.pid)
            self.base_pids = set(tree)
            if self.cgroup is not None:
                # bwrap may have forked before its pid joined the cgroup: move the rest of the tree
                # in now, before any agent code runs, so everything the agent starts is counted.
                # (Writes to cgroup.procs are slow, so only the missing pids are written.)
                for pid in set(tree) - set(self.cgroup.pids()):
                    self.cgroup.add(pid)
                self.base_pids = set(self.cgroup.pids())

    def stderr_text(self) -> str:
        if self.proc is None or self.proc.stderr is None or self.proc.stderr.closed:
            return ""
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        try:
            _set_nonblocking(self.proc.stderr.fileno())
            data = self.proc.stderr.read(8000) or b""
        except (OSError, ValueError):
            data = b""
        return data.decode(errors="replace").strip()

    def reap_strays(self) -> int:
        """Kill processes the agent left running in the background; returns how many."""
        if self.cgroup is not None:
            current = self.cgroup.pids()
        elif self.proc is not None:
            current = process_tree(self.proc.pid)  # without a cgroup: the worker's descendants
        else:
            return 0
        strays = [p for p in current if p not in self.base_pids]
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return len(strays)

    def exit_status(self) -> int | None:
        if self.proc is None:
            return None
        try:
            return self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return None

    def kill(self, background: bool = False) -> None:
        """SIGKILL the worker's process group and cgroup now; with ``background`` the waiting and
        cleanup (reaping, cgroup removal, temp dir) happen in a thread so a reset does not wait."""
        proc, self.proc = self.proc, None
        cgroup, self.cgroup = self.cgroup, None
        tmpdir, self.tmpdir = self.tmpdir, None
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.rfd = self.wfd = -1
        terminate(proc, cgroup, tmpdir, background=background, thread_name="mmenvs-sandbox-reaper")


_SIGNAL_KINDS = {signal.SIGXCPU: "cpu", signal.SIGSEGV: "crash", signal.SIGKILL: "crash", signal.SIGABRT: "crash"}


class PythonSandbox:
    """A persistent Python interpreter for untrusted agent code.

    Code is checked by an AST policy, then run in a worker process inside bubblewrap (or, as a
    fallback, a plain subprocess with rlimits) under wall-clock, CPU, memory, process and output
    limits.  Variables persist between :meth:`run` calls until :meth:`reset`.  Host functions in
    ``tools`` are reachable from the code as proxies (dotted names become importable modules);
    arguments and results are JSON values, bytes or numpy arrays.

    ``run`` never raises for faults of the agent's code: they come back in the :class:`RunResult`.
    """

    def __init__(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        allowed_imports: Iterable[str] = DEFAULT_ALLOWED_IMPORTS,
        isolation: str = "auto",
        timeout: float = 10.0,
        memory_mb: int = 1024,
        max_output_chars: int = 10_000,
        max_value_chars: int = 10_000,
        max_processes: int = 64,
        preload: str = "",
        *,
        prewarm: Iterable[str] = (),
        enforce_policy: bool = True,
        spare: bool = True,
        cpu_seconds: int | None = None,
        tmpfs_mb: int = 256,
        max_message_bytes: int | None = None,
        start_timeout: float = 30.0,
        bwrap: str | os.PathLike[str] | None = None,
    ) -> None:
        """Create the sandbox and start its worker.

        Extra keyword arguments: ``prewarm`` modules imported at worker start (e.g. ``("numpy",
        "cv2")``: the cost moves off the first run); ``enforce_policy=False`` skips layer 1 (used by
        tests that check the OS layers on their own); ``spare`` keeps a pre-started worker so that
        restarts and resets are instant; ``cpu_seconds`` is the worker's lifetime CPU budget
        (default ``max(300, 30 * timeout)``); ``tmpfs_mb`` caps the private /tmp and file sizes;
        ``bwrap`` overrides the bubblewrap binary (else ``$MMENVS_BWRAP``, else PATH);
        ``max_message_bytes`` caps the array bytes of one message (default ``min(memory_mb, 256)`` MB).
        """
        self._tools: dict[str, Callable[..., Any]] = dict(tools or {})
        for name in self._tools:
            parts = name.split(".")
            if not all(p.isidentifier() and not p.startswith("__") for p in parts):
                raise ValueError(f"tool name {name!r} is not a (dotted) Python identifier")
            if len(parts) > 1 and parts[0] in sys.stdlib_module_names:
                raise ValueError(f"tool name {name!r} would shadow the standard module {parts[0]!r}")
        prefixes = {".".join(n.split(".")[:i]) for n in self._tools for i in range(1, n.count(".") + 1)}
        clash = sorted(prefixes & set(self._tools))
        if clash:
            raise ValueError(f"tool name {clash[0]!r} is also the namespace of other tools "
                             f"(e.g. {next(n for n in sorted(self._tools) if n.startswith(clash[0] + '.'))!r})")
        if timeout <= 0 or memory_mb <= 0:
            raise ValueError(f"timeout and memory_mb must be positive, got {timeout} and {memory_mb}")
        self.isolation, self._bwrap_path, self._bwrap_flags = resolve_isolation(isolation, bwrap)
        self.timeout = float(timeout)
        self.memory_mb = int(memory_mb)
        self.max_output_chars = int(max_output_chars)
        self.max_value_chars = int(max_value_chars)
        self.max_processes = int(max_processes) if max_processes else 0
        self.preload = preload
        self.prewarm = tuple(prewarm)
        self.enforce_policy = enforce_policy
        self.cpu_seconds = int(cpu_seconds) if cpu_seconds else int(max(300, 30 * self.timeout))
        self.tmpfs_mb = int(tmpfs_mb)
        self.max_message_bytes = int(max_message_bytes or min(self.memory_mb, 256) * 1024 * 1024)
        # The JSON part of a message from the worker (stdout, value, tool arguments) stays small;
        # arrays travel in the blob part.  A hostile worker cannot make the parent parse more.
        self.max_body_bytes = 8 * 1024 * 1024 + 4 * (self.max_output_chars + self.max_value_chars)
        self.start_timeout = float(start_timeout)
        self.use_spare = spare
        dotted = [n.rsplit(".", 1)[0] for n in self._tools if "." in n]
        self.policy = Policy(allowed_imports, extra_modules=dotted, tool_names=self._tools)
        self._closed = False
        self._owner_pid = os.getpid()
        self._run_lock = threading.Lock()
        self._running_in: int | None = None  # the thread inside run() now
        self._worker: _Worker | None = _Worker(self)
        self._spare: _Worker | None = None
        close_at_exit(self)
        self.process_limit = process_limit_kind(self._worker.cgroup, self.max_processes or None)

    # -- public API ---------------------------------------------------------------------
    def run(self, code: str) -> RunResult:
        """Run ``code`` in the episode's namespace and report stdout, value and error."""
        if self._closed:
            raise RuntimeError("this PythonSandbox is closed")
        if os.getpid() != self._owner_pid:
            raise RuntimeError("this PythonSandbox belongs to the process that created it; create a new one "
                               "after fork (e.g. inside the env factory of a vector env)")
        res = RunResult(isolation=self.isolation)
        if not isinstance(code, str):
            res.error, res.error_kind = f"TypeError: code must be a str, not {type(code).__name__}", "policy"
            return res
        unencodable = wire.unencodable_char(code)
        if unencodable is not None:
            res.error, res.error_kind = (f"SyntaxError: the code is not valid text: {unencodable}; inside a string "
                                         "literal write such a character as an escape, e.g. '\\ud800'."), "syntax"
            return res
        # One run at a time: two threads sharing the worker's channel would read each other's replies.
        me = threading.get_ident()
        if self._running_in == me:
            raise RuntimeError("PythonSandbox.run was called again from inside one of its own tool calls; "
                               "a tool may not run code in the sandbox that called it")
        with self._run_lock:
            self._running_in = me
            try:
                return self._run_checked(code, res)
            finally:
                self._running_in = None

    def _run_checked(self, code: str, res: RunResult) -> RunResult:
        if self.enforce_policy:
            violations = self.policy.check(code)
            if violations:
                res.error, res.error_kind = self.policy.format(violations), "policy"
                return res
        worker = self._ready_worker()
        worker.dirty = True
        deadline = time.monotonic() + self.timeout
        try:
            worker.send({"op": "run", "code": code}, deadline)
            msg = worker.converse(deadline, res.tool_calls)
        except _Timeout:
            self._replace_worker()
            res.error = (f"TimeoutError: the code ran longer than {self.timeout:g} s and was stopped.\n"
                         "[sandbox restarted: variables and imports from earlier runs are gone]")
            res.error_kind, res.restarted = "timeout", True
            return res
        except _ChannelBroken as exc:
            status = worker.exit_status()
            if status is not None and status > 128 and self.isolation == "bwrap":
                status = 128 - status  # bwrap reports a child killed by signal N as exit status 128+N
            self._replace_worker()
            res.error_kind = self._crash_kind(status)
            res.error = self._crash_message(status, res.error_kind, str(exc))
            res.restarted = True
            return res
        except BaseException:
            # Interrupted from the parent's side (Ctrl-C, a tool raising SystemExit): the worker
            # is mid-run and its channel out of step, so it cannot be reused.
            self._replace_worker()
            raise
        if msg.get("op") != "done":
            self._replace_worker()
            res.error, res.error_kind, res.restarted = (
                "SandboxError: the worker broke the protocol and was replaced.\n"
                "[sandbox restarted: variables and imports from earlier runs are gone]", "crash", True)
            return res
        self._fill(res, msg)
        strays = worker.reap_strays()
        if strays:
            note = f"[sandbox: {strays} background process(es) left by the code were stopped]"
            res.error = f"{res.error}\n{note}" if res.error else note
            res.error_kind = res.error_kind or "process_limit"
        return res

    def reset(self) -> None:
        """Start a fresh namespace for a new episode (a fresh worker if the old one ran any code)."""
        if self._closed:
            raise RuntimeError("this PythonSandbox is closed")
        if self._worker is not None and not self._worker.dirty:
            return
        self._replace_worker()

    def close(self) -> None:
        """Stop the workers.  Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        if os.getpid() != self._owner_pid:
            return  # a forked copy: the workers belong to the parent process, leave them alone
        for w in (self._worker, self._spare):
            if w is not None:
                w.kill()
        self._worker = self._spare = None

    def __enter__(self) -> PythonSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # -- internals ----------------------------------------------------------------------
    def _ready_worker(self) -> _Worker:
        if self._worker is None:
            self._worker = self._take_spare()
        self._worker.wait_ready()
        if self.use_spare and self._spare is None:
            self._spare = _Worker(self)
        return self._worker

    def _take_spare(self) -> _Worker:
        spare, self._spare = self._spare, None
        return spare if spare is not None else _Worker(self)

    def _replace_worker(self) -> None:
        old, self._worker = self._worker, None
        if old is not None:
            old.kill(background=True)
        self._worker = self._take_spare()
        if self.use_spare:
            self._spare = _Worker(self)

    def _call_tool(self, msg: dict, calls: list[dict[str, Any]] | None) -> list:
        """Run one host tool for the worker; returns the encoded reply frame."""
        reply = self._tool_reply(msg, calls)
        if isinstance(reply, list):
            return reply
        return wire.encode_frame(reply)

    def _tool_reply(self, msg: dict, calls: list[dict[str, Any]] | None) -> dict | list:
        name = msg.get("tool")
        args = msg.get("args")
        kwargs = msg.get("kwargs")
        # The run's call record keeps a clipped copy: a loop of calls with megabyte arguments must not pile up on the host.
        record: dict[str, Any] = {"name": name, "args": clip_for_log(args), "kwargs": clip_for_log(kwargs), "ok": False}
        if calls is not None:
            calls.append(record)
        fn = self._tools.get(name) if isinstance(name, str) else None
        if fn is None:
            record["error"] = f"no tool named {name!r}"
            return {"op": "result", "ok": False, "etype": "NameError", "error": record["error"]}
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            record["error"] = "malformed tool call"
            return {"op": "result", "ok": False, "etype": "TypeError", "error": record["error"]}
        try:
            value = fn(*args, **kwargs)
        except Exception as exc:  # a failing tool becomes an exception in the agent's code
            # KeyError's str() is the repr of its key; pass the key itself so it is not quoted twice.
            text = str(exc.args[0]) if type(exc) is KeyError and len(exc.args) == 1 else str(exc)
            record["error"] = f"{type(exc).__name__}: {text}"
            # The worker re-raises the nearest built-in type, so `except KeyError` catches an
            # ImageNotFound(KeyError); the original class name stays in the message.
            base = next((c for c in type(exc).__mro__ if c.__module__ == "builtins"), Exception)
            if base is not type(exc):
                text = f"{type(exc).__name__}: {text}"
            return {"op": "result", "ok": False, "etype": base.__name__, "error": text}
        try:
            frame = wire.encode_frame({"op": "result", "ok": True, "value": value})
        except (wire.WireError, ValueError, TypeError, RecursionError) as exc:
            record["error"] = f"result cannot cross the sandbox: {exc}"
            return {"op": "result", "ok": False, "etype": "TypeError",
                    "error": f"tool {name!r} returned a value that cannot cross the sandbox: {exc}"}
        record["ok"] = True
        return frame

    def _fill(self, res: RunResult, msg: dict) -> None:
        stdout = msg.get("stdout") if isinstance(msg.get("stdout"), str) else ""
        total = msg.get("out_total") if isinstance(msg.get("out_total"), int) else len(stdout)
        stdout = stdout[: self.max_output_chars]
        if total > len(stdout):
            res.truncated = True
            stdout += f"\n... [output truncated: {total - len(stdout)} more characters not shown]"
        res.stdout = stdout
        value = msg.get("value")
        res.value = value[: self.max_value_chars + 80] if isinstance(value, str) else None
        if msg.get("value_truncated"):
            res.truncated = True
        error = msg.get("error")
        kind = msg.get("error_kind")
        if isinstance(error, str) and error:
            res.error = error[:6000]
            res.error_kind = str(kind) if kind else "exception"
            low = res.error.lower()
            if "resource temporarily unavailable" in low and ("fork" in low or "errno 11" in low):
                res.error_kind = "process_limit"
                res.error += (f"\n[the sandbox allows at most {self.max_processes} processes; "
                              "background processes are not available]")
            elif res.error_kind == "memory":
                res.error += f"\n[the sandbox allows {self.memory_mb} MB of memory]"
        elif total > self.max_output_chars:
            res.error_kind = "output"
            res.error = (f"OutputLimit: the code printed {total} characters; only the first "
                         f"{self.max_output_chars} are shown.")

    def _crash_kind(self, status: int | None) -> str:
        if status is not None and status < 0:
            return _SIGNAL_KINDS.get(-status, "crash")
        return "crash"

    def _crash_message(self, status: int | None, kind: str, detail: str) -> str:
        if kind == "cpu":
            why = f"it used up its CPU budget of {self.cpu_seconds} s"
        elif status is not None and status < 0:
            why = f"it was killed by signal {signal.Signals(-status).name}"
            if -status == signal.SIGSEGV:
                why += " (often a too-deep recursion or a crash in a C extension)"
            elif -status == signal.SIGKILL:
                # Not the sandbox's memory limit: going over RLIMIT_AS raises MemoryError in the code.
                why += (" from outside its code (e.g. the host's out-of-memory killer, or its CPU time hard "
                        f"limit of {self.cpu_seconds + 5} s)")
        elif status is not None:
            why = f"it exited with status {status}"
        else:
            why = detail or "its channel broke"
        return (f"SandboxError: the Python worker stopped: {why}.\n"
                "[sandbox restarted: variables and imports from earlier runs are gone]")
