"""Serving a report on 127.0.0.1 with the standard library's http.server.

The server's document root is the deepest folder holding the report and its runs (image paths are
relative between them), but it answers only for files inside the report's folder and the run
folders: nothing else under that root (or reached through a symlink) is served, and folders are
never listed.
"""

from __future__ import annotations

import functools
import os
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote


class _ReportHandler(SimpleHTTPRequestHandler):
    """Static files of the allowed folders only (anything else: 404); no folder listings, no request log."""

    def __init__(self, *args: Any, allowed: tuple[str, ...], **kwargs: Any) -> None:
        self.allowed = allowed
        super().__init__(*args, **kwargs)

    def send_head(self) -> Any:
        local = os.path.realpath(self.translate_path(self.path))  # symlinks resolved: a link out is outside
        if not (os.path.isfile(local) and any(local.startswith(root + os.sep) for root in self.allowed)):
            self.send_error(404, "not part of this report")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404, "folders are not listed")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        pass


def make_server(index: Path, roots: list[Path], port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """A server (not started) for the report ``index`` that may read ``roots``, and the report's URL."""
    resolved = [os.path.realpath(root) for root in roots]
    base = os.path.commonpath(resolved + [os.path.realpath(index.parent)])
    handler = functools.partial(_ReportHandler, directory=base, allowed=tuple(resolved))
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    relative = Path(os.path.relpath(os.path.realpath(index), base)).as_posix()
    return server, f"http://127.0.0.1:{server.server_address[1]}/{quote(relative)}"


def serve(index: Path, roots: list[Path], port: int = 0, announce: Callable[[str], None] | None = None) -> None:
    """Serve the report until Ctrl-C; ``announce`` gets its URL (default: printed to stdout)."""
    server, url = make_server(index, roots, port)
    (announce or (lambda text: (print(f"serving {text} (Ctrl-C to stop)"), sys.stdout.flush())))(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
