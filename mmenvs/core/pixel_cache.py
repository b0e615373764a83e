"""A cache on disk of deterministic renderings, so a new process (a training worker, a fresh eval run)
does not draw again what an earlier one drew.

Entries are raw pixels, not a compressed picture: reading one back is a file read and a checksum
(~0.5 ms for a 640×560 image), where decoding a PNG took ~5 ms and drawing it ~18 ms. They live under
``$MMENVS_CACHE_DIR`` (default ``~/.cache/mmenvs``; ``MMENVS_CACHE_DIR=off`` disables the cache), in a
folder per namespace and *version*. The version is a hash of whatever decides the pixels (the renderers'
source, the font files, the library versions) and of the entry format, so a changed renderer never reads
an old picture.

Safety. Writes are atomic (a temp file renamed into place), so concurrent workers never see half a
file. Each entry carries its size, the digest of its key and a CRC-32 of its header and pixels; an entry
that is truncated, padded, damaged or written for another key is treated as missing (the caller draws
the image again and the new entry replaces the bad one), never trusted and never an exception. Only
the project's own renderings go in: nothing an agent controls names a file here (keys are hashed).

Disk use. An entry costs its raw size (H×W×3 bytes + 64: ~1 MB for a 640×560 image; the pinned
MMToolSandbox suites' 1,659 images take ~1.5 GB in ``toolsandbox-images``; ``toolsandbox-fitted`` holds
the observations letterboxed from those shown, ~0.6 MB each at 448×448). Each namespace is bounded by
``$MMENVS_CACHE_MAX_MB`` (default 2048 MB, all its versions together): a process that writes checks
the total now and then and, over the bound, deletes the least recently used entries (a read refreshes
an entry's mtime; a stale version's entries are never read, so they go first) until the namespace is
under 90 % of it. Temp files of writers that died are deleted after an hour.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Iterable

import numpy as np

#: Set ``MMENVS_CACHE_DIR=off`` to disable the disk cache.
CACHE_ENV = "MMENVS_CACHE_DIR"
#: The most megabytes one namespace of the cache keeps on disk (all its versions together).
MAX_MB_ENV = "MMENVS_CACHE_MAX_MB"
DEFAULT_MAX_MB = 2048

#: The entry layout: magic, height, width, channels, CRC-32, the key's SHA-256; padded to 64 bytes.
_MAGIC = b"MMENVSPX"
_HEADER = struct.Struct("<8sIII I32s")
_HEADER_SIZE = 64
#: Part of every version: a change of the entry layout must not read files of the old one.
FORMAT = "raw-rgb-crc32-v1"
_SUFFIX = ".px"
_MAX_SIDE = 1 << 15  # sides a header may claim before its file's size is even compared
_TOUCH_AFTER_S = 600.0  # a read refreshes an entry's mtime (its LRU age) at most this often
_PART_STALE_S = 3600.0  # a temp file this old belongs to a writer that died


def cache_root() -> Path | None:
    """The cache folder, or None when disabled with ``MMENVS_CACHE_DIR=off``."""
    value = os.environ.get(CACHE_ENV)
    if value == "off":
        return None
    if value:
        return Path(value)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mmenvs"


def max_bytes() -> int:
    """The bound of one namespace on disk: ``$MMENVS_CACHE_MAX_MB`` megabytes (default 2048)."""
    value = os.environ.get(MAX_MB_ENV, "").strip()
    try:
        megabytes = float(value) if value else DEFAULT_MAX_MB
    except ValueError:
        raise ValueError(f"{MAX_MB_ENV} must be a number of megabytes, got {value[:40]!r}") from None
    if not megabytes >= 0:
        raise ValueError(f"{MAX_MB_ENV} must be a number of megabytes >= 0, got {value[:40]!r}")
    return int(megabytes * 1024 * 1024)


def source_version(files: Iterable[Path], *extra: str) -> str:
    """A short hash of the bytes of ``files``, the ``extra`` strings (e.g. library versions) and the entry format."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for item in (*extra, FORMAT):
        digest.update(item.encode())
    return digest.hexdigest()[:16]


def _checksum(height: int, width: int, channels: int, key_digest: bytes, pixels: memoryview | np.ndarray) -> int:
    """CRC-32 of the header's fields and the pixels (zlib releases the GIL for the pixels)."""
    return zlib.crc32(pixels, zlib.crc32(struct.pack("<III32s", height, width, channels, key_digest)))


class PixelDiskCache:
    """``get(key)`` / ``put(key, rgb)`` of H×W×3 uint8 images for one ``namespace`` and ``version``."""

    def __init__(self, namespace: str, version: str) -> None:
        root = self.root = cache_root()
        self.namespace_folder = None if root is None else root / namespace
        self.folder = None if root is None else root / namespace / version
        self.limit = max_bytes()  # read once: a bad value is refused here, naming the variable
        self._unchecked_bytes = 0  # written by this object since the folder's size was last checked
        self._checked_once = False
        self._prune_lock = threading.Lock()

    def _path(self, key_digest: bytes) -> Path:
        assert self.folder is not None
        return self.folder / (key_digest.hex()[:40] + _SUFFIX)

    def get(self, key: str) -> np.ndarray | None:
        """The cached RGB pixels of ``key`` (read-only), or None when missing or not a sound entry."""
        if self.folder is None:
            return None
        key_digest = hashlib.sha256(key.encode()).digest()
        try:
            with open(self._path(key_digest), "rb", buffering=0) as fh:
                status = os.fstat(fh.fileno())
                header = fh.read(_HEADER_SIZE)
                if len(header) != _HEADER_SIZE:
                    return None
                magic, height, width, channels, crc, stored_key = _HEADER.unpack_from(header)
                if (magic != _MAGIC or stored_key != key_digest or channels != 3 or header[_HEADER.size:].strip(b"\0")
                        or not (0 < height <= _MAX_SIDE and 0 < width <= _MAX_SIDE)
                        or status.st_size != _HEADER_SIZE + height * width * channels):
                    return None
                rgb = np.empty((height, width, channels), np.uint8)
                view = memoryview(rgb).cast("B")
                filled = 0
                while filled < len(view):  # a regular file fills it in one read; be exact anyway
                    count = fh.readinto(view[filled:])
                    if not count:
                        return None
                    filled += count
                if fh.read(1):  # grew since fstat: not the file the header describes
                    return None
            if _checksum(height, width, channels, key_digest, view) != crc:
                return None
            if time.time() - status.st_mtime > _TOUCH_AFTER_S:
                os.utime(self._path(key_digest))  # recently used: the last to be pruned
        except OSError:
            return None
        rgb.setflags(write=False)
        return rgb

    def put(self, key: str, rgb: np.ndarray) -> None:
        """Store ``rgb``; a full disk or a read-only home only costs the speed-up."""
        if self.folder is None or rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
            return
        height, width, channels = (int(n) for n in rgb.shape)
        if not (0 < height <= _MAX_SIDE and 0 < width <= _MAX_SIDE):
            return
        pixels = np.ascontiguousarray(rgb)
        key_digest = hashlib.sha256(key.encode()).digest()
        crc = _checksum(height, width, channels, key_digest, pixels)
        header = _HEADER.pack(_MAGIC, height, width, channels, crc, key_digest).ljust(_HEADER_SIZE, b"\0")
        path = self._path(key_digest)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(header)
                    fh.write(memoryview(pixels).cast("B"))
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return
        self._account(_HEADER_SIZE + pixels.nbytes)

    def _account(self, written: int) -> None:
        """Check the namespace's size at the first write and after every sixteenth of the bound written."""
        with self._prune_lock:
            self._unchecked_bytes += written
            if self._checked_once and self._unchecked_bytes < max(self.limit // 16, 1):
                return
            self._checked_once = True
            self._unchecked_bytes = 0
        self.prune()

    def prune(self, limit: int | None = None) -> int:
        """Delete entries of this namespace (every version) until they take at most 90 % of ``limit``
        bytes (default: this cache's ``limit``) when they take more; the least recently used go first.
        Interrupted writes' temp files older than an hour always go. Returns the bytes deleted."""
        if self.namespace_folder is None:
            return 0
        limit = self.limit if limit is None else limit
        entries: list[tuple[float, int, Path]] = []
        freed = 0
        now = time.time()
        try:
            versions = [d for d in os.scandir(self.namespace_folder) if d.is_dir(follow_symlinks=False)]
        except OSError:
            return 0
        for version in versions:
            try:
                with os.scandir(version.path) as files:
                    for item in files:
                        if not item.is_file(follow_symlinks=False):
                            continue
                        try:
                            status = item.stat(follow_symlinks=False)
                        except OSError:
                            continue  # deleted meanwhile by another process
                        if item.name.startswith(".part-"):
                            if now - status.st_mtime > _PART_STALE_S:
                                freed += _unlink(Path(item.path), status.st_size)
                            continue
                        entries.append((status.st_mtime, status.st_size, Path(item.path)))
            except OSError:
                continue
        total = sum(size for _, size, _ in entries)
        if total <= limit:
            return freed
        target = int(limit * 0.9)
        for _mtime, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= target:
                break
            total -= size
            freed += _unlink(path, size)
        for version in versions:  # a version folder emptied by the pruning goes too
            try:
                os.rmdir(version.path)
            except OSError:
                pass  # not empty, or already gone
        return freed


def _unlink(path: Path, size: int) -> int:
    """Delete ``path``; the bytes freed (0 when another process deleted it first)."""
    try:
        path.unlink()
    except OSError:
        return 0
    return size
