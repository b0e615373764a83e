"""MacAgent backends: the embedded simulator (``sim``, the default) and, later, a real macOS VM.
Both implement ``base.MacBackend``, so the same task files run on either."""

from .base import BackendError, MacBackend, ShellOutput

__all__ = ["BackendError", "MacBackend", "ShellOutput"]
