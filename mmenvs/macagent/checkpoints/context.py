"""What a getter may use: the episode's backend (shell and AppleScript), and the text forms both speak.

A getter reads the desktop only through :class:`GetterContext`, which wraps the
:class:`~mmenvs.macagent.backends.base.MacBackend` interface, so a task file runs unchanged on the
simulator and on a real macOS VM.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from mmenvs.macagent.backends.base import MacBackend, ShellOutput


class GetterError(RuntimeError):
    """A getter could not read the state it asks for (command failed, script error, …)."""


# ---------------------------------------------------------------------------------------------- context
@dataclass
class GetterContext:
    """What a getter may use: the backend, through a few convenience calls."""

    backend: MacBackend
    shell_timeout: float = 10.0

    def run(self, command: str, timeout: float | None = None) -> ShellOutput:
        """Run ``command`` for a getter or a setup step: as a command of its own where the backend offers
        one (``run_command``: the VM backend's SSH exec, so a broken agent shell cannot break scoring),
        else in the episode's shell (the sim)."""
        run_command = getattr(self.backend, "run_command", None)
        if run_command is not None:
            return run_command(command, timeout=self.shell_timeout if timeout is None else timeout)
        return self.backend.run_shell(command, timeout=self.shell_timeout if timeout is None else timeout)

    def shell(self, command: str) -> ShellOutput:
        """Run ``command`` for a getter (see :meth:`run`)."""
        return self.run(command)

    def shell_ok(self, command: str) -> str:
        """Run ``command``; return stdout, raising ``GetterError`` with stderr when it exits non-zero."""
        out = self.shell(command)
        if out.timed_out or out.exit_code != 0:
            raise GetterError(f"shell getter command failed ({out.text.strip()[-300:]})")
        return out.stdout

    def applescript(self, source: str) -> str:
        """Run AppleScript; its result as osascript prints it."""
        return self.backend.run_applescript(source)


def shell_path(path: str) -> str:
    """``path`` as a shell word: ``~/…`` and ``$HOME/…`` expand to the episode's home, the rest is quoted.

    Task files name paths relative to the home (``~/Desktop/a b.txt``); the real home is the
    backend's business, so the shell expands it.
    """
    for prefix in ("~/", "$HOME/", "${HOME}/"):
        if path.startswith(prefix):
            rest = path[len(prefix):]
            return '"$HOME"/' + shlex.quote(rest) if rest else '"$HOME"'
    if path in ("~", "$HOME", "${HOME}"):
        return '"$HOME"'
    return shlex.quote(path)


# ---------------------------------------------------------------------------------------------- AppleScript text
def applescript_string(text: str) -> str:
    """``text`` as an AppleScript string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def osascript_list(text: str) -> list[str]:
    """Split osascript's printed list (``a, b, c``) into items; an empty result is an empty list."""
    text = text.strip()
    if not text:
        return []
    return [item.strip() for item in _split_top_level(text)]


def _split_top_level(text: str) -> list[str]:
    # osascript prints lists as "a, b, c"; quoted strings and nested braces keep their commas.
    items, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif not quoted and char == "{":
            depth += 1
        elif not quoted and char == "}":
            depth -= 1
        elif not quoted and depth == 0 and text.startswith(", ", index):
            items.append(text[start:index])
            start = index + 2
    items.append(text[start:])
    return items

