"""File work of the sim's apps in the episode home, through the confined layer (``desktop.home_files``).

The agent's shell controls the home: any file an app opens may be a symlink out of it, a FIFO, a link
to ``/dev/zero`` or a folder. The apps therefore never open home paths themselves; they call the
helpers here (or ``desktop.home_files`` directly), which refuse all of those with a
``ConfinementError`` whose message names the file as the agent knows it (``~/Documents/x.md``). The
apps turn that error into what a Mac shows: an alert on screen, or the AppleScript/CLI error.

``checked_name`` is the rule for a name the agent gives an app (save as, rename, a new note): a name,
never a path.
"""

from __future__ import annotations

import errno
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from mmenvs.core.confined import ConfinedDir, ConfinementError
from mmenvs.macagent.formats.iwork_container import MAX_DOCUMENT_BYTES  # noqa: F401 - one document's bound, shared with the getters

from ..window import Window, alert

if TYPE_CHECKING:  # pragma: no cover
    from .base import App

#: Bound of one text file opened in a text editor (characters are laid out and drawn: keep it small).
MAX_TEXT_BYTES = 4 * 2**20


def read_text(files: ConfinedDir, path: Path | PurePosixPath | str, *, limit: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text (undecodable bytes replaced) of the regular file ``path``, at most ``limit`` bytes."""
    return files.read_bytes(path, limit=limit).decode("utf-8", "replace")


def save_bytes(files: ConfinedDir, path: Path | PurePosixPath | str, data: bytes) -> None:
    """Write ``data`` as the regular file ``path``, making its folder if missing (a symlink or special
    file at ``path`` or on the way is refused, never followed)."""
    parts = files.parts(path)
    if len(parts) > 1:
        files.mkdir(PurePosixPath(*parts[:-1]), parents=True, exist_ok=True)
    files.write_bytes(path, data)


def save_text(files: ConfinedDir, path: Path | PurePosixPath | str, text: str) -> None:
    """``save_bytes`` of ``text`` in UTF-8."""
    save_bytes(files, path, text.encode("utf-8"))


def error_text(exc: BaseException) -> str:
    """A user-facing message for a failed file operation, without any host path (an ``OSError``'s
    ``filename`` is the host's; ``ConfinementError`` messages name the agent's ``~/…`` path)."""
    if isinstance(exc, ConfinementError):
        return exc.strerror or str(exc)
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)


def file_alert(app: "App", win: Window | None, title: str, exc: BaseException) -> Window:
    """Show ``title`` with the reason of ``exc`` in an alert (on ``win`` as a sheet, else free-standing)."""
    return alert(app, win, title, error_text(exc), [("OK", lambda: None)], cancel=0)


def checked_name(name: str, what: str = "name") -> str:
    """``name`` as a file name: refused (``ValueError`` naming it) when empty, "." or "..", when it
    contains "/" or a NUL byte; a name is never a path."""
    text = str(name)
    if not text.strip() or text in (".", "..") or "/" in text or "\0" in text:
        raise ValueError(f"the {what} {text!r} is not a valid file name: a name may not be empty, "
                         "'.' or '..', nor contain '/'")
    return text


def kind_error(path_shown: str, expected: str) -> ConfinementError:
    """The error for an entry of the wrong kind (a folder where a file is expected, …)."""
    return ConfinementError(errno.EISDIR if expected == "file" else errno.ENOTDIR,
                            f"{path_shown}: is not a {expected}")


def entry_kind(files: ConfinedDir, path: Path | PurePosixPath | str) -> str | None:
    """What is at ``path`` ("file", "dir", "symlink", "other"), None if nothing; a path that cannot be
    reached (through a symlinked folder, past a file, with '..') counts as "other", never raises."""
    try:
        return files.kind(path)
    except ConfinementError:
        return "other"
