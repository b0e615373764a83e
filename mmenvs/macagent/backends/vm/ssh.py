"""SSH to a guest with paramiko: one persistent shell per episode, exec for getters and setup, SFTP
for files, the input agent's channel, and reconnection when the connection drops.

Every network failure surfaces as :class:`ConnectionLost`; the backend then asks Docker whether the
guest is still running (a dropped connection: reconnect) or not (the guest is gone: an
infrastructure failure).
"""

from __future__ import annotations

import base64
import json
import secrets
import shlex
import socket
import time
from dataclasses import dataclass
from typing import Any

import paramiko

from ..base import ShellOutput

_MARK = "\x1eMMENVS-END"


class ConnectionLost(RuntimeError):
    """The SSH connection (or one of its channels) broke."""


_NET_ERRORS = (paramiko.SSHException, EOFError, OSError, socket.timeout)


class _AcceptNewKeys(paramiko.MissingHostKeyPolicy):
    """A fresh guest has a fresh host key, on a loopback port this process allocated: accept it
    (kept for this connection only)."""

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        return None


@dataclass
class Endpoint:
    host: str
    port: int
    user: str
    key_path: str | None = None
    password: str | None = None
    #: a command prefix that runs what follows as the episode's user with a clean environment, when the
    #: login is a control user (root): ``runuser -u user -- env -i HOME=… bash --noprofile --norc -c …``.
    #: Then nothing the agent writes in its home (``~/.ssh/rc``, ``authorized_keys``, rc files) touches
    #: the commands the backend runs or the logins it makes.
    as_user: str | None = None

    def command(self, command: str) -> str:
        """``command`` as the backend runs it: through ``as_user`` when set."""
        if not self.as_user:
            return command
        return f"{self.as_user} bash --noprofile --norc -c {shlex.quote(command)}"


def user_prefix(user: str, home: str, display: str | None) -> str:
    """The ``as_user`` prefix for a root login: the user's identity, home and display, nothing else."""
    env = [f"HOME={shlex.quote(home)}", f"USER={shlex.quote(user)}", f"LOGNAME={shlex.quote(user)}", "SHELL=/bin/bash",
           "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"]
    if display:
        env.append(f"DISPLAY={shlex.quote(display)}")
    return f"cd {shlex.quote(home)} && exec runuser -u {shlex.quote(user)} -- env -i {' '.join(env)}"


class SSHLink:
    """The connection to one guest; reconnects on demand (:meth:`ensure`)."""

    def __init__(self, endpoint: Endpoint, *, connect_timeout: float = 10.0, max_output_chars: int = 20_000) -> None:
        self.endpoint = endpoint
        self.connect_timeout = connect_timeout
        self.max_output_chars = max_output_chars
        self.client: paramiko.SSHClient | None = None
        self.reconnects = 0
        self._shell: _Shell | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._agent: _AgentChannel | None = None

    # ------------------------------------------------------------------ connection
    def connect(self) -> None:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(_AcceptNewKeys())
        e = self.endpoint
        try:
            client.connect(e.host, e.port, username=e.user, key_filename=e.key_path, password=e.password,
                           look_for_keys=False, allow_agent=False, timeout=self.connect_timeout,
                           banner_timeout=self.connect_timeout, auth_timeout=self.connect_timeout)
        except _NET_ERRORS as exc:
            client.close()
            raise ConnectionLost(f"ssh {e.user}@{e.host}:{e.port}: {type(exc).__name__}: {exc}") from exc
        transport = client.get_transport()
        if transport is not None:
            transport.set_keepalive(5)
        self.client = client

    @property
    def alive(self) -> bool:
        transport = self.client.get_transport() if self.client is not None else None
        return bool(transport is not None and transport.is_active())

    def ensure(self) -> bool:
        """Connect if not connected; True when a new connection was made after an earlier one dropped."""
        if self.alive:
            return False
        had = self.client is not None
        self.drop()
        self.connect()
        if had:
            self.reconnects += 1
        return had

    def drop(self) -> None:
        """Close the connection and its channels (the persistent shell ends)."""
        for part in (self._agent, self._shell):
            if part is not None:
                part.close()
        self._agent = self._shell = None
        if self._sftp is not None:
            try:
                self._sftp.close()
            except Exception:  # noqa: BLE001
                pass
            self._sftp = None
        if self.client is not None:
            self.client.close()
            self.client = None

    close = drop

    # ------------------------------------------------------------------ exec
    def exec(self, command: str, timeout: float = 30.0, stdin: bytes | None = None) -> ShellOutput:
        """Run ``command`` in a new session (the guest user's login shell runs it), bounded by ``timeout``."""
        self.ensure()
        try:
            channel = self.client.get_transport().open_session(timeout=self.connect_timeout)
            channel.exec_command(self.endpoint.command(command))
            if stdin is not None:
                channel.sendall(stdin)
            channel.shutdown_write()
            return _collect(channel, timeout, self.max_output_chars, until_exit=True)
        except _NET_ERRORS as exc:
            raise ConnectionLost(f"ssh exec: {type(exc).__name__}: {exc}") from exc

    def exec_bytes(self, command: str, timeout: float = 30.0, limit: int = 64 << 20) -> bytes:
        """``command``'s raw stdout (for screenshots), at most ``limit`` bytes; ``ConnectionLost`` or
        ``RuntimeError`` on failure."""
        self.ensure()
        try:
            channel = self.client.get_transport().open_session(timeout=self.connect_timeout)
            channel.exec_command(self.endpoint.command(command))
            channel.shutdown_write()
            chunks, deadline = [], time.monotonic() + timeout
            channel.settimeout(max(0.1, timeout))
            while True:
                data = channel.recv(1 << 20)
                if not data:
                    break
                chunks.append(data)
                size = sum(map(len, chunks)) if len(chunks) % 64 == 0 else 0
                if size > limit:
                    channel.close()
                    raise RuntimeError(f"{command!r} printed more than {limit} bytes")
                if time.monotonic() > deadline:
                    channel.close()
                    raise RuntimeError(f"{command!r} took longer than {timeout:g} s")
            status = channel.recv_exit_status()
            channel.close()
        except _NET_ERRORS as exc:
            raise ConnectionLost(f"ssh exec: {type(exc).__name__}: {exc}") from exc
        if status != 0:
            raise RuntimeError(f"{command!r} exited with {status}")
        return b"".join(chunks)

    # ------------------------------------------------------------------ files
    def sftp(self) -> paramiko.SFTPClient:
        self.ensure()
        if self._sftp is None:
            try:
                self._sftp = self.client.open_sftp()
            except _NET_ERRORS as exc:
                raise ConnectionLost(f"sftp: {type(exc).__name__}: {exc}") from exc
        return self._sftp

    def put_bytes(self, data: bytes, path: str, mode: int = 0o644) -> None:
        try:
            with self.sftp().open(path, "wb") as handle:
                handle.write(data)
            self.sftp().chmod(path, mode)
        except _NET_ERRORS as exc:
            self._sftp = None
            raise ConnectionLost(f"sftp put {path}: {type(exc).__name__}: {exc}") from exc

    def get_bytes(self, path: str, limit: int = 64 << 20) -> bytes:
        try:
            with self.sftp().open(path, "rb") as handle:
                data = handle.read(limit + 1)
        except _NET_ERRORS as exc:
            self._sftp = None
            raise ConnectionLost(f"sftp get {path}: {type(exc).__name__}: {exc}") from exc
        if len(data) > limit:
            raise RuntimeError(f"{path} is larger than {limit} bytes")
        return data

    # ------------------------------------------------------------------ the persistent shell
    def shell(self, command: str, timeout: float) -> tuple[ShellOutput, str]:
        """Run ``command`` in the episode's persistent shell (cwd and variables persist). Returns the
        output and a note for the agent ("" normally; says so when the shell had to be restarted)."""
        note = ""
        if self.ensure():
            note = "[the connection to the guest dropped and was re-established; the shell was restarted]"
        if self._shell is None or not self._shell.usable:
            if self._shell is not None and not note:
                note = "[the previous shell ended; a new one was started]"
            self._shell = _Shell(self)
        try:
            return self._shell.run(command, timeout), note
        except _NET_ERRORS as exc:
            self._shell = None
            raise ConnectionLost(f"ssh shell: {type(exc).__name__}: {exc}") from exc

    def reset_shell(self) -> None:
        """End the persistent shell (a new episode gets a new one)."""
        if self._shell is not None:
            self._shell.close()
            self._shell = None

    # ------------------------------------------------------------------ the input agent
    def agent(self, script_path: str, python: str = "python3") -> "_AgentChannel":
        self.ensure()
        if self._agent is None or not self._agent.usable:
            try:
                prefix = self.endpoint.as_user
                command = f"{prefix} {python} -u {script_path}" if prefix else f"exec {python} -u {script_path}"
                self._agent = _AgentChannel(self, command, self.connect_timeout * 3)
            except _NET_ERRORS as exc:
                self._agent = None
                raise ConnectionLost(f"input agent: {type(exc).__name__}: {exc}") from exc
        return self._agent


class _Shell:
    """``bash`` reading commands on stdin; each command runs through ``eval`` (so cd and variables
    persist) with stdin from /dev/null, followed by an end marker on stdout and stderr."""

    def __init__(self, link: SSHLink) -> None:
        self.link = link
        self.channel = link.client.get_transport().open_session(timeout=link.connect_timeout)
        prefix = link.endpoint.as_user
        self.channel.exec_command(f"{prefix} bash --noprofile --norc" if prefix else "exec bash --noprofile --norc")
        self.pid: int | None = None
        out = self.run("cd ~; echo $$", 15.0)
        try:
            self.pid = int(out.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            self.pid = None

    @property
    def usable(self) -> bool:
        return not (self.channel.closed or self.channel.exit_status_ready())

    def close(self) -> None:
        try:
            self.channel.close()
        except Exception:  # noqa: BLE001
            pass

    def run(self, command: str, timeout: float) -> ShellOutput:
        nonce = secrets.token_hex(6)
        encoded = base64.b64encode(command.encode("utf-8", "surrogateescape")).decode("ascii")
        line = (f"eval \"$(printf %s {encoded} | base64 -d)\" </dev/null; __mm_rc=$?; "
                f"printf '\\n{_MARK} {nonce} %d\\n' $__mm_rc; printf '\\n{_MARK} {nonce}\\n' >&2\n")
        self.channel.sendall(line.encode("ascii"))
        result = _collect(self.channel, timeout, self.link.max_output_chars, nonce=nonce)
        if result.timed_out:
            self._stop_command()
        return result

    def _stop_command(self) -> None:
        """Kill what the timed-out command started; if the shell itself stays busy, end it (the next
        command gets a new shell)."""
        if self.pid is not None:
            try:
                self.link.exec(f"pkill -KILL -P {self.pid}", timeout=5.0)
            except Exception:  # noqa: BLE001
                pass
        self.close()  # its output stream is out of step now: a fresh shell is cleaner


def _collect(channel: paramiko.Channel, timeout: float, limit: int, *, nonce: str | None = None,
             until_exit: bool = False) -> ShellOutput:
    """Read stdout and stderr until the end markers of ``nonce`` (the persistent shell) or the
    channel's exit (``until_exit``). At most about ``4 * limit`` bytes per stream are kept."""
    streams = {"out": _Stream(4 * limit + 4096), "err": _Stream(4 * limit + 4096)}
    out_mark = f"\n{_MARK} {nonce} ".encode() if nonce else b""
    err_mark = f"\n{_MARK} {nonce}\n".encode() if nonce else b""
    deadline = time.monotonic() + timeout
    channel.settimeout(0.05)
    exit_code: int | None = None
    while True:
        progressed = False
        while channel.recv_ready():
            data = channel.recv(1 << 16)
            if not data:
                break
            progressed = True
            streams["out"].add(data)
        while channel.recv_stderr_ready():
            data = channel.recv_stderr(1 << 16)
            if not data:
                break
            progressed = True
            streams["err"].add(data)
        if nonce is not None:
            code = streams["out"].marker_code(out_mark)
            if code is not None and streams["err"].has_marker(err_mark):
                exit_code = code
                streams["out"].cut(out_mark)
                streams["err"].cut(err_mark)
                break
        if channel.exit_status_ready() and not channel.recv_ready() and not channel.recv_stderr_ready():
            # exec finished, or the persistent shell ended (``exit`` in the command): its output and status
            exit_code = channel.recv_exit_status()
            channel.close()
            break
        if channel.closed:
            raise EOFError("the channel closed")
        if time.monotonic() > deadline:
            return _shell_output(streams, 124, limit, timed_out=True)
        if not progressed:
            _wait_readable(channel)
    if until_exit:
        channel.close()
    return _shell_output(streams, exit_code if exit_code is not None else -1, limit)


class _Stream:
    """One output stream: the first ``cap`` bytes, and the newest bytes (where the end marker is)."""

    def __init__(self, cap: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.cap = cap
        self.dropped = False

    def add(self, data: bytes) -> None:
        room = self.cap - len(self.head)
        if room > 0:
            self.head.extend(data[:room])
        if len(data) > room:
            self.dropped = True
        self.tail.extend(data)
        del self.tail[:-512]

    def marker_code(self, mark: bytes) -> int | None:
        where = self.tail.rfind(mark)
        if where < 0:
            return None
        rest = self.tail[where + len(mark):]
        if not rest.endswith(b"\n"):
            return None
        try:
            return int(rest.strip() or b"0")
        except ValueError:
            return None

    def has_marker(self, mark: bytes) -> bool:
        return self.tail.endswith(mark)

    def cut(self, mark: bytes) -> None:
        where = self.head.rfind(mark)
        if where >= 0 and not self.dropped:
            del self.head[where:]

    def text(self) -> str:
        return bytes(self.head).decode("utf-8", "replace")


def _wait_readable(channel: paramiko.Channel) -> None:
    import select

    select.select([channel], [], [], 0.02)


def _shell_output(streams: dict[str, "_Stream"], code: int, limit: int, timed_out: bool = False) -> ShellOutput:
    stdout, stderr = streams["out"].text(), streams["err"].text()
    truncated = streams["out"].dropped or streams["err"].dropped
    if len(stdout) > limit or streams["out"].dropped:
        stdout, truncated = stdout[:limit] + f"\n[output cut at {limit} characters]", True
    if len(stderr) > limit or streams["err"].dropped:
        stderr, truncated = stderr[:limit] + f"\n[errors cut at {limit} characters]", True
    return ShellOutput(stdout, stderr, code, timed_out=timed_out, truncated=truncated)


class _AgentChannel:
    """The input agent's JSON-lines channel."""

    def __init__(self, link: SSHLink, command: str, timeout: float) -> None:
        self.channel = link.client.get_transport().open_session(timeout=link.connect_timeout)
        self.channel.exec_command(command)
        self.file = self.channel.makefile("rb")
        self.timeout = timeout
        self.channel.settimeout(timeout)
        first = self._read()
        if first.get("result") != "ready":
            raise RuntimeError(f"the input agent did not start: {first}")

    @property
    def usable(self) -> bool:
        return not (self.channel.closed or self.channel.exit_status_ready())

    def _read(self) -> dict[str, Any]:
        line = self.file.readline()
        if not line:
            err = b""
            while self.channel.recv_stderr_ready():
                err += self.channel.recv_stderr(1 << 16)
            raise EOFError(f"the input agent ended{': ' + err.decode(errors='replace')[-500:] if err else ''}")
        return json.loads(line)

    def call(self, request: dict[str, Any]) -> Any:
        self.channel.sendall((json.dumps(request) + "\n").encode())
        reply = self._read()
        if not reply.get("ok"):
            raise ValueError(reply.get("error", "input agent error"))
        return reply.get("result")

    def close(self) -> None:
        try:
            self.channel.close()
        except Exception:  # noqa: BLE001
            pass
