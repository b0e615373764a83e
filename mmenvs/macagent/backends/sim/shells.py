"""The sim's episode shells: :class:`ShellSessions`, the agent's shell (``"main"``) and a second one
(``"aux"``) for ``do shell script`` and for a command issued while the first is busy. Each is a
confined :class:`~mmenvs.sandbox.ShellSandbox` over the episode's home folder, started on first use
and kept across episodes. What a shell runs when it starts (the macOS commands as shell functions)
and what those commands do come from :mod:`.bridge`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..base import BackendError, ShellOutput
from .apps import shell_daemons

if TYPE_CHECKING:  # pragma: no cover
    from ....sandbox import ShellSandbox
    from .backend import SimBackend

SHELLS = ("main", "aux")
#: other paths of the home: the fixed home of the user MacAgentBench's public tasks and harness were
#: written for (its guest's user is ``pipiwu``), so a command or script naming ``/Users/pipiwu/…`` works
#: on the episode home as it does on the benchmark's Mac. The sim's own user stays ``user``.
HOME_ALIASES = ("/Users/pipiwu",)


class ShellSessions:
    """The two shells of one :class:`~.backend.SimBackend` and which of them an episode used or is
    running a command in. A shell outlives the episode while the home folder stays the same; a new
    episode restarts the shells the last one used."""

    def __init__(self, backend: "SimBackend") -> None:
        self.backend = backend  # its home, shell_timeout and max_output_chars configure a new shell
        self._sandboxes: dict[str, ShellSandbox] = {}
        self._home: Path | None = None  # the home folder the started shells confine to
        self._used: set[str] = set()  # shells the current episode ran a command in
        self._busy: set[str] = set()  # shells running a command now (a nested command goes to the other)

    # ------------------------------------------------------------------ what a started shell shows
    @property
    def home_in_sandbox(self) -> str | None:
        """The home folder as a started shell sees it; None before either shell started."""
        sh = self._sandboxes.get("main") or self._sandboxes.get("aux")
        return sh.home_in_sandbox if sh is not None else None

    @property
    def cwd(self) -> str | None:
        """The agent's shell's working directory (updated after every command); None before it started."""
        sh = self._sandboxes.get("main")
        return sh.cwd if sh is not None else None

    def sandbox(self, which: str = "main") -> "ShellSandbox | None":
        """The shell ``which`` ("main" or "aux") if it has started (to inspect its processes)."""
        return self._sandboxes.get(which)

    # ------------------------------------------------------------------ lifecycle
    def new_episode(self) -> None:
        """Fresh shells for the new episode: restart one the last episode used; drop one whose home
        folder is not the backend's home any more (it starts again over the new home on first use)."""
        for which in SHELLS:
            sh = self._sandboxes.get(which)
            if sh is None:
                continue
            if self._home is None or Path(self._home).resolve() != Path(self.backend.home).resolve():
                sh.close()
                del self._sandboxes[which]
                continue
            if which in self._used:
                sh.reset()
                self._start_session(sh)
        self._used.clear()

    def close(self) -> None:
        """Stop both shells. Idempotent."""
        while self._sandboxes:
            _, sh = self._sandboxes.popitem()
            sh.close()

    # ------------------------------------------------------------------ commands
    def run(self, command: str, timeout: float | None = None, which: str = "main") -> ShellOutput:
        """Run ``command`` in shell ``which`` (``timeout`` seconds instead of the backend's
        ``shell_timeout``). A command issued while that shell is busy (``osascript`` running ``do
        shell script`` or Terminal's ``do script``) goes to the second shell instead of waiting on the
        first forever; a third level is refused."""
        self.backend.current_desktop()  # BackendError before the first reset
        if not isinstance(command, str):
            raise BackendError(f"shell command must be a string, got {type(command).__name__}")
        if which in self._busy:
            which = "aux"
        if which in self._busy:
            return ShellOutput("", "sh: shell commands nested more than two deep are not supported by the simulator\n", 126)
        sh = self._sandbox_for(which)
        self._used.add(which)
        self._busy.add(which)
        old = sh.timeout
        if timeout is not None:
            sh.timeout = float(timeout)
        try:
            res = sh.run(command)
        finally:
            sh.timeout = old
            self._busy.discard(which)
        desk = self.backend.current_desktop()
        desk.fs_epoch += 1  # the command may have changed files: views of the disk re-read it
        if res.restarted or res.timed_out:
            self._start_session(sh)  # a new shell process lost the session's functions
        if res.host_calls:
            desk.invalidate()
        stderr = res.stderr
        if res.notice:
            stderr = (stderr.rstrip("\n") + "\n" if stderr else "") + res.notice + "\n"
        code = res.exit_code if res.exit_code is not None else -1
        return ShellOutput(res.stdout, stderr, code, bool(res.timed_out), bool(res.truncated))

    def _sandbox_for(self, which: str) -> "ShellSandbox":
        """Shell ``which``, started (over the backend's home, with the desktop's commands) if need be."""
        sh = self._sandboxes.get(which)
        if sh is None:
            from ....sandbox import ShellSandbox

            from .bridge import host_commands  # not at import time: the bridge loads the AppleScript interpreter

            backend = self.backend
            cmds = host_commands(backend)
            try:
                sh = ShellSandbox(backend.home, timeout=backend.shell_timeout, max_output_chars=backend.max_output_chars,
                                  host_commands=cmds, home_in_sandbox="/Users/user", home_aliases=HOME_ALIASES,
                                  env={"TERM": "xterm-256color", "USER": "user"}, keep_running=shell_daemons(),
                                  home_bytes=backend.budget.home_bytes, tmpfs_mb=max(1, backend.budget.tmpfs_bytes >> 20))
            except Exception as e:  # noqa: BLE001 - surfaced to the caller as a backend error with the cause
                raise BackendError(f"could not start the episode shell: {type(e).__name__}: {e}") from e
            self._sandboxes[which] = sh
            self._home = backend.home
            self._start_session(sh)
        return sh

    @staticmethod
    def _start_session(sh: "ShellSandbox") -> None:
        from .bridge import session_script

        sh.run(session_script(), trusted=True)  # its functions must land in the shell even over the home budget
