"""Keeping an env process's memory from ratcheting up (glibc only; a no-op elsewhere).

Two glibc behaviours make a long-running env look larger than it is. (1) After a large block is
freed, malloc raises its mmap threshold, so the next frames and images (megabytes each) come from
the heap, whose freed holes are rarely handed back. Fixing the threshold keeps every block above it
in its own mapping, returned to the OS on free. (2) Freed small allocations stay in the heap until
``malloc_trim`` releases the pages; an env calls it between episodes (about a millisecond).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Any

MMAP_THRESHOLD = 256 * 1024  # bytes: frames, layers and images are all far above this
_M_MMAP_THRESHOLD = -3  # mallopt parameter number in glibc's malloc.h


def _libc() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 - glibc has both
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _libc()
_tuned = False


def tune_allocator() -> bool:
    """Fix glibc's mmap threshold for this process (once; skipped when ``MMENVS_NO_MALLOC_TUNING`` is
    set). Returns whether the allocator is tuned."""
    global _tuned
    if not _tuned and _LIBC is not None and not os.environ.get("MMENVS_NO_MALLOC_TUNING"):
        _tuned = bool(_LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    return _tuned


def release_free_memory() -> None:
    """Hand freed heap pages back to the OS (glibc's ``malloc_trim(0)``)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
