"""Keeping an env process's memory from ratcheting up (glibc only; a no-op elsewhere).

Two glibc behaviours make a long-running env look larger than it is. (1) After a large block is
freed, malloc raises its mmap threshold, so the next frames and images (megabytes each) come from
the heap, whose freed holes are rarely handed back. Fixing the threshold keeps every block above it
in its own mapping, returned to the OS on free. (2) Freed small allocations stay in the heap until
``malloc_trim`` releases the pages; an env calls it between episodes (about a millisecond).

The price of (1) is that every fresh array above the threshold is faulted in page by page (about 1 ms
per MB on a small VM), so per-step buffers are reused instead; :class:`RecycledArrays` does it for
arrays handed to callers.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from typing import Any

import numpy as np

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


class RecycledArrays:
    """Arrays of one shape handed out again once nobody holds them (CPython reference counts).

    An env returns a fresh observation array every step. With the mmap threshold fixed, each fresh
    array of more than 256 KB is a new mapping faulted in page by page; most callers drop last step's
    observation before the next step (SB3 and vector envs copy it into their own buffers), so its memory
    can be handed out again. An array someone still references (kept in a list, a view, a tensor
    sharing its memory) is never reused.
    """

    def __init__(self, shape: tuple[int, ...], dtype: Any = np.uint8, keep: int = 2) -> None:
        self.shape, self.dtype, self.keep = tuple(shape), np.dtype(dtype), keep
        self._arrays: list[np.ndarray] = []

    def take(self) -> np.ndarray:
        """An array of the shape that no one outside this pool references (contents undefined)."""
        for i in range(len(self._arrays)):
            if sys.getrefcount(self._arrays[i]) == 2:  # the list's reference and getrefcount's argument
                return self._arrays[i]
        array = np.empty(self.shape, self.dtype)
        self._arrays.append(array)
        if len(self._arrays) > self.keep:
            self._arrays.pop(0)  # someone holds it: let it go with them
        return array
