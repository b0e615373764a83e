"""The confined file layer: how host code touches a folder that an untrusted agent controls.

An agent's shell can put anything in its episode home: a symlink to ``/etc/shadow``, a symlinked
folder, a FIFO, a link to ``/dev/zero``, a file it swaps for a symlink in a loop. Host code that acts
for the agent (the simulated apps, host commands, tool implementations) runs as the researcher's
user, often root, so it must never follow a path out of the home, never block on a special file and
never read without a bound. ``ConfinedDir`` is the one way it does file work there:

* every path is resolved *by the kernel, relative to a directory fd of the root*, with no symlink
  followed at any component: ``openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | …)`` where the kernel
  has it (Linux ≥ 5.6), else a component-by-component walk with ``O_NOFOLLOW | O_DIRECTORY``. There is
  no check-then-open window for a swap to win;
* ``..`` and NUL bytes are refused before anything is opened, and a host path outside the root is
  refused lexically (it is never resolved);
* files are opened non-blocking and must be regular files (checked on the open fd with ``fstat``);
  folders must be real folders; reads are size-capped;
* symlinks inside the root are ordinary entries: they can be listed, renamed, deleted and created,
  but nothing reads, writes or lists *through* them;
* errors are ``ConfinementError`` (an ``OSError``, so existing handlers turn it into an observation)
  whose message names the path as the agent knows it (``~/Desktop/s.txt``), never the host path.

Paths are given relative to the root (``"Desktop/a.txt"``) or as host paths under it
(``root / "Desktop" / "a.txt"``); ``PurePosixPath`` and ``str`` both work.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat as stat_module
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

#: Default bound of one read (bytes): far above any document a task ships, far below host memory.
DEFAULT_MAX_READ_BYTES = 64 * 2**20
#: Folders whose fds ``ConfinedDir.usage`` keeps open at once besides the start (the deepest of the branch it walks).
USAGE_MAX_OPEN_FOLDERS = 64

EntryKind = Literal["file", "dir", "symlink", "other"]

_OPENAT2 = 437  # the syscall number is the same on every architecture (added after the unified table)
_RESOLVE_NO_XDEV, _RESOLVE_NO_MAGICLINKS, _RESOLVE_NO_SYMLINKS, _RESOLVE_BENEATH = 0x01, 0x02, 0x04, 0x08
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_AT_FDCWD = -100


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _load_openat2() -> object | None:
    """``syscall(openat2, …)`` through libc, or None where the kernel or libc cannot do it."""
    if not hasattr(os, "O_PATH"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
    except (OSError, AttributeError):
        return None
    syscall.restype = ctypes.c_long
    syscall.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_OpenHow), ctypes.c_size_t]
    probe = _OpenHow(os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, 0, _RESOLVE_BENEATH)
    fd = syscall(_OPENAT2, _AT_FDCWD, b".", ctypes.byref(probe), ctypes.sizeof(probe))
    if fd < 0:
        return None  # ENOSYS (old kernel) or blocked by a seccomp filter: use the walk
    os.close(fd)
    return syscall


_SYSCALL = _load_openat2()


class ConfinementError(OSError):
    """A path that host code may not use inside a confined folder, or a file it may not touch there."""


@dataclass(frozen=True)
class Entry:
    """One entry of a confined folder, as ``listdir`` reports it (symlinks are not followed)."""

    name: str
    kind: EntryKind
    size: int
    mtime: float


class ConfinedDir:
    """A folder that host code reaches only through this object (see the module docstring).

    ``root`` is the trusted host path of the folder (it may itself lie under symlinks such as a
    ``/tmp`` link); ``display`` is how the agent names it in messages (``"~"``); ``max_read_bytes``
    bounds every read. ``use_openat2=False`` forces the portable walk (tests use it to check both).
    """

    def __init__(self, root: str | os.PathLike[str], *, display: str = "~", max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
                 use_openat2: bool | None = None) -> None:
        self.root = Path(root)
        self.display_root = display
        self.max_read_bytes = int(max_read_bytes)
        self._syscall = _SYSCALL if use_openat2 is not False else None
        if use_openat2 and _SYSCALL is None:
            raise ConfinementError(errno.ENOSYS, "openat2 is not available on this kernel")
        self._root_handle: int | None = None  # the root's fd, opened on first use and kept (closed with the object)

    # ------------------------------------------------------------------ paths
    def parts(self, path: str | os.PathLike[str]) -> tuple[str, ...]:
        """The components of ``path`` below the root, checked lexically (nothing is opened)."""
        text = os.fspath(path)
        if "\0" in text:
            raise ConfinementError(errno.EINVAL, f"{self._shown(text)}: a path may not contain a NUL byte")
        if os.path.isabs(text):
            root = os.fspath(self.root).rstrip("/") or "/"
            if text != root and not text.startswith(root.rstrip("/") + "/"):
                raise ConfinementError(errno.EACCES, "a path outside the home folder is not reachable here")
            text = text[len(root):]
        # split by hand: PurePosixPath parsing was most of the layer's cost per call (host code calls it often)
        parts = tuple(p for p in text.split("/") if p and p != ".")
        if ".." in parts:
            raise ConfinementError(errno.EACCES, f"{self._shown(text)}: '..' may not be used in a path")
        return parts

    def relative(self, path: str | os.PathLike[str]) -> PurePosixPath:
        """``path`` as a path relative to the root (checked lexically)."""
        parts = self.parts(path)
        return PurePosixPath(*parts) if parts else PurePosixPath(".")

    def host_path(self, path: str | os.PathLike[str]) -> Path:
        """The host path of ``path`` (checked lexically) — for messages to trusted code and for
        building paths; never open it directly: use this object's methods."""
        return self.root.joinpath(*self.parts(path))

    def shown(self, path: str | os.PathLike[str]) -> str:
        """``path`` as the agent knows it: ``~/Desktop/a.txt``."""
        try:
            parts = self.parts(path)
        except ConfinementError:
            return "(a path outside the home folder)"
        return "/".join((self.display_root, *parts)) if parts else self.display_root

    def _shown(self, text: str) -> str:
        return self.display_root + "/" + text.lstrip("/") if not os.path.isabs(text) else "(path)"

    # ------------------------------------------------------------------ opening
    @contextmanager
    def _root_fd(self) -> Iterator[int]:
        """The root's fd: kept open between calls (resolving the root's own path each time cost a syscall
        walk per operation); reopened if the folder was removed meanwhile."""
        fd = self._root_handle
        if fd is not None and os.fstat(fd).st_nlink == 0:  # the folder was deleted (and maybe made anew)
            self.close()
            fd = None
        if fd is None:
            try:
                fd = os.open(self.root, _DIR_FLAGS)
            except OSError as exc:
                raise ConfinementError(exc.errno or errno.ENOENT, f"the home folder is not available ({exc.strerror})") from None
            self._root_handle = fd
            self._finalizer = weakref.finalize(self, os.close, fd)
        yield fd

    def close(self) -> None:
        """Close the kept fd of the root (the object stays usable: the next call opens it again)."""
        if self._root_handle is not None:
            self._finalizer()
            self._root_handle = None

    def _open_beneath(self, root_fd: int, parts: tuple[str, ...], flags: int, mode: int = 0o666) -> int:
        """Open ``parts`` relative to ``root_fd``, following no symlink anywhere; raise OSError."""
        flags |= os.O_CLOEXEC | os.O_NOFOLLOW
        if self._syscall is not None:
            how = _OpenHow(flags, mode if flags & os.O_CREAT else 0,
                           _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS | _RESOLVE_NO_XDEV)
            name = "/".join(parts).encode("utf-8", "surrogateescape") or b"."
            fd = self._syscall(_OPENAT2, root_fd, name, ctypes.byref(how), ctypes.sizeof(how))
            if fd < 0:
                code = ctypes.get_errno()
                raise OSError(code, os.strerror(code))
            return int(fd)
        current = os.dup(root_fd)
        try:
            for part in parts[:-1]:
                following = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=current)
                os.close(current)
                current = following
            if not parts:
                return os.open(".", flags, mode, dir_fd=current)
            return os.open(parts[-1], flags, mode, dir_fd=current)
        finally:
            os.close(current)

    def _fail(self, exc: OSError, path: str | os.PathLike[str], action: str) -> ConfinementError:
        shown = self.shown(path)
        if exc.errno in (errno.ELOOP, errno.EXDEV, errno.EMLINK):
            return ConfinementError(errno.EACCES, f"{shown}: cannot {action} through a symbolic link")
        if exc.errno == errno.ENOTDIR:
            return ConfinementError(errno.ENOTDIR, f"{shown}: a component of the path is not a folder")
        return ConfinementError(exc.errno or errno.EIO, f"{shown}: cannot {action} ({exc.strerror or exc})")

    @contextmanager
    def _dir_fd(self, path: str | os.PathLike[str], action: str) -> Iterator[int]:
        """An fd of the folder ``path`` (a real folder below the root)."""
        parts = self.parts(path)
        with self._root_fd() as root_fd:
            try:
                fd = self._open_beneath(root_fd, parts, _DIR_FLAGS) if parts else os.dup(root_fd)
            except OSError as exc:
                raise self._fail(exc, path, action) from None
        try:
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def _parent_fd(self, path: str | os.PathLike[str], action: str) -> Iterator[tuple[int, str]]:
        """An fd of the folder holding ``path`` and the entry's name in it (the entry itself is not opened)."""
        parts = self.parts(path)
        if not parts:
            raise ConfinementError(errno.EPERM, f"{self.display_root}: cannot {action} the home folder itself")
        with self._dir_fd(PurePosixPath(*parts[:-1]) if len(parts) > 1 else ".", action) as fd:
            yield fd, parts[-1]

    def _open_regular(self, path: str | os.PathLike[str], flags: int, action: str, mode: int = 0o644) -> int:
        parts = self.parts(path)
        if not parts:
            raise ConfinementError(errno.EISDIR, f"{self.display_root}: is a folder, not a file")
        with self._root_fd() as root_fd:
            try:
                # O_NONBLOCK: opening a FIFO must not wait for a writer; cleared again once it is known regular
                fd = self._open_beneath(root_fd, parts, flags | os.O_NONBLOCK, mode)
            except OSError as exc:
                raise self._fail(exc, path, action) from None
        info = os.fstat(fd)
        if not stat_module.S_ISREG(info.st_mode):
            os.close(fd)
            what = "a folder" if stat_module.S_ISDIR(info.st_mode) else "not a regular file"
            raise ConfinementError(errno.EISDIR if what == "a folder" else errno.EPERM, f"{self.shown(path)}: is {what}, not a file")
        os.set_blocking(fd, True)
        return fd

    # ------------------------------------------------------------------ reading
    def read_bytes(self, path: str | os.PathLike[str], *, limit: int | None = None) -> bytes:
        """The bytes of the regular file ``path``; refused if it is larger than ``limit`` (default ``max_read_bytes``)."""
        limit = self.max_read_bytes if limit is None else int(limit)
        fd = self._open_regular(path, os.O_RDONLY, "read")
        with os.fdopen(fd, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > limit:
                raise ConfinementError(errno.EFBIG, f"{self.shown(path)}: {size} bytes is larger than the {limit}-byte limit of one read")
            data = stream.read(limit + 1)  # the file may grow after fstat: never read more than the limit
        if len(data) > limit:
            raise ConfinementError(errno.EFBIG, f"{self.shown(path)}: larger than the {limit}-byte limit of one read")
        return data

    def read_head(self, path: str | os.PathLike[str], size: int) -> bytes:
        """At most the first ``size`` bytes of the regular file ``path`` (to sniff a file's type; no size limit
        applies, as nothing past ``size`` is read)."""
        fd = self._open_regular(path, os.O_RDONLY, "read")
        with os.fdopen(fd, "rb") as stream:
            return stream.read(max(0, int(size)))

    def read_text(self, path: str | os.PathLike[str], *, encoding: str = "utf-8", errors: str = "replace",
                  limit: int | None = None) -> str:
        """The text of the regular file ``path`` (decoding errors replaced by default)."""
        return self.read_bytes(path, limit=limit).decode(encoding, errors)

    # ------------------------------------------------------------------ writing
    def write_bytes(self, path: str | os.PathLike[str], data: bytes, *, exclusive: bool = False) -> None:
        """Create or replace the regular file ``path`` with ``data`` (an existing symlink or special file is refused;
        ``exclusive``: refuse if anything exists there)."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else 0)
        fd = self._open_regular(path, flags, "write")
        with os.fdopen(fd, "wb") as stream:
            stream.truncate(0)  # after the type check, so a FIFO or device is never truncated
            stream.write(data)

    def write_text(self, path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", exclusive: bool = False) -> None:
        """Create or replace the regular file ``path`` with ``text``."""
        self.write_bytes(path, text.encode(encoding), exclusive=exclusive)

    def append_bytes(self, path: str | os.PathLike[str], data: bytes) -> None:
        """Append ``data`` to the regular file ``path`` (created if missing)."""
        fd = self._open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, "write")
        with os.fdopen(fd, "ab") as stream:
            stream.write(data)

    # ------------------------------------------------------------------ entries
    def lstat(self, path: str | os.PathLike[str]) -> os.stat_result:
        """The entry's own status (a symlink is reported as a symlink); ``ConfinementError`` if missing."""
        parts = self.parts(path)
        if not parts:
            with self._root_fd() as fd:
                return os.fstat(fd)
        with self._parent_fd(path, "look at") as (fd, name):
            try:
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError as exc:
                raise self._fail(exc, path, "look at") from None

    def kind(self, path: str | os.PathLike[str]) -> EntryKind | None:
        """``"file"``, ``"dir"``, ``"symlink"``, ``"other"`` (FIFO, socket, device), or None if nothing is there."""
        try:
            mode = self.lstat(path).st_mode
        except ConfinementError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            raise
        return _kind(mode)

    def exists(self, path: str | os.PathLike[str]) -> bool:
        """Whether an entry (of any kind, a symlink included) is at ``path``."""
        return self.kind(path) is not None

    def is_file(self, path: str | os.PathLike[str]) -> bool:
        return self.kind(path) == "file"

    def is_dir(self, path: str | os.PathLike[str]) -> bool:
        return self.kind(path) == "dir"

    def listdir(self, path: str | os.PathLike[str] = ".", *, limit: int = 100_000, stat: bool = True) -> list[Entry]:
        """The entries of the folder ``path``, sorted by name (symlinks listed as such, never followed);
        at most ``limit`` entries are read. ``stat=False``: names and kinds only, from the folder's own
        records (no stat call per entry; ``size`` and ``mtime`` are 0) — for listings redrawn every frame."""
        entries = []
        with self._dir_fd(path, "list") as fd:
            with os.scandir(fd) as scan:
                for item in scan:
                    if len(entries) >= limit:
                        break
                    if not stat:
                        entries.append(Entry(item.name, _dirent_kind(item), 0, 0.0))
                        continue
                    try:
                        info = item.stat(follow_symlinks=False)
                    except OSError:
                        continue  # removed while listing
                    entries.append(Entry(item.name, _kind(info.st_mode), info.st_size, info.st_mtime))
        return sorted(entries, key=lambda e: e.name)

    def walk(self, path: str | os.PathLike[str] = ".", *, limit: int = 100_000) -> Iterator[tuple[PurePosixPath, Entry]]:
        """Every entry below the folder ``path`` (depth first, names sorted), as (relative path, entry);
        symlinked folders are listed, not entered; at most ``limit`` entries."""
        count = 0
        pending = [self.relative(path)]
        while pending and count < limit:
            folder = pending.pop()
            try:
                children = self.listdir(folder, limit=limit - count)
            except ConfinementError:
                continue  # swapped or removed while walking
            for entry in children:
                count += 1
                child = folder / entry.name if str(folder) != "." else PurePosixPath(entry.name)
                yield child, entry
                if entry.kind == "dir":
                    pending.append(child)
            pending.sort(reverse=True)

    def mkdir(self, path: str | os.PathLike[str], *, parents: bool = False, exist_ok: bool = False) -> None:
        """Make the folder ``path`` (and missing parents with ``parents=True``)."""
        parts = self.parts(path)
        if parents:
            for depth in range(1, len(parts)):
                if self.kind(PurePosixPath(*parts[:depth])) is None:
                    self.mkdir(PurePosixPath(*parts[:depth]), exist_ok=True)
        with self._parent_fd(path, "make a folder at") as (fd, name):
            try:
                os.mkdir(name, 0o755, dir_fd=fd)
            except FileExistsError:
                if not exist_ok or _kind(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode) != "dir":
                    raise ConfinementError(errno.EEXIST, f"{self.shown(path)}: already exists") from None
            except OSError as exc:
                raise self._fail(exc, path, "make a folder at") from None

    def rename(self, source: str | os.PathLike[str], target: str | os.PathLike[str], *, replace: bool = False) -> None:
        """Move the entry ``source`` to ``target`` (both below the root; a symlink moves as a link). An existing
        ``target`` is refused unless ``replace``; a folder is never replaced."""
        with self._parent_fd(source, "move") as (source_fd, source_name), self._parent_fd(target, "move to") as (target_fd, target_name):
            try:
                existing = os.stat(target_name, dir_fd=target_fd, follow_symlinks=False)
            except FileNotFoundError:
                existing = None
            if existing is not None and (not replace or stat_module.S_ISDIR(existing.st_mode)):
                raise ConfinementError(errno.EEXIST, f"{self.shown(target)}: already exists")
            try:
                os.rename(source_name, target_name, src_dir_fd=source_fd, dst_dir_fd=target_fd)
            except OSError as exc:
                raise self._fail(exc, source, "move") from None

    def unlink(self, path: str | os.PathLike[str]) -> None:
        """Delete the file, symlink or special file ``path`` (not a folder)."""
        with self._parent_fd(path, "delete") as (fd, name):
            try:
                os.unlink(name, dir_fd=fd)
            except OSError as exc:
                raise self._fail(exc, path, "delete") from None

    def rmtree(self, path: str | os.PathLike[str]) -> None:
        """Delete ``path`` and, for a folder, everything in it, never following a symlink."""
        if self.kind(path) != "dir":
            self.unlink(path)
            return
        with self._parent_fd(path, "delete") as (parent_fd, name):
            _remove_tree(parent_fd, name)

    def clear(self, path: str | os.PathLike[str] = ".") -> None:
        """Delete everything inside the folder ``path`` (the folder itself stays), by directory fds: a symlink
        inside is removed as a link, never followed."""
        with self._dir_fd(path, "empty") as fd:
            try:
                _remove_children(fd)
            except OSError as exc:
                raise self._fail(exc, path, "empty") from None

    def copy(self, source: str | os.PathLike[str], target: str | os.PathLike[str], *, replace: bool = False) -> None:
        """Copy the file or folder ``source`` to ``target`` (symlinks inside are copied as links, never followed;
        special files are refused)."""
        kind = self.kind(source)
        if kind is None:
            raise ConfinementError(errno.ENOENT, f"{self.shown(source)}: no such file or folder")
        if self.exists(target):
            if not replace or self.is_dir(target):
                raise ConfinementError(errno.EEXIST, f"{self.shown(target)}: already exists")
            self.unlink(target)
        if kind == "file":
            self.write_bytes(target, self.read_bytes(source), exclusive=True)
        elif kind == "symlink":
            self.symlink(self.readlink(source), target)
        elif kind == "dir":
            self.mkdir(target)
            for entry in self.listdir(source):
                self.copy(PurePosixPath(*self.parts(source), entry.name), PurePosixPath(*self.parts(target), entry.name))
        else:
            raise ConfinementError(errno.EPERM, f"{self.shown(source)}: is not a regular file")

    def readlink(self, path: str | os.PathLike[str]) -> str:
        """The target text of the symlink ``path`` (nothing is resolved)."""
        with self._parent_fd(path, "read the link") as (fd, name):
            try:
                return os.readlink(name, dir_fd=fd)
            except OSError as exc:
                raise self._fail(exc, path, "read the link") from None

    def symlink(self, target_text: str, path: str | os.PathLike[str]) -> None:
        """Make ``path`` a symlink whose text is ``target_text`` (host code never follows it)."""
        with self._parent_fd(path, "make a link at") as (fd, name):
            try:
                os.symlink(target_text, name, dir_fd=fd)
            except OSError as exc:
                raise self._fail(exc, path, "make a link at") from None

    def set_mtime(self, path: str | os.PathLike[str], mtime: float) -> None:
        """Set the modification (and access) time of the entry ``path`` without following a symlink."""
        with self._parent_fd(path, "change") as (fd, name):
            try:
                os.utime(name, (mtime, mtime), dir_fd=fd, follow_symlinks=False)
            except OSError as exc:
                raise self._fail(exc, path, "change") from None

    def chmod(self, path: str | os.PathLike[str], mode: int) -> None:
        """Set the permission bits of the regular file or folder ``path``."""
        kind = self.kind(path)
        if kind == "dir":
            with self._dir_fd(path, "change") as fd:
                os.fchmod(fd, mode)
            return
        fd = self._open_regular(path, os.O_RDONLY, "change")
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)

    def disk_usage(self, path: str | os.PathLike[str] = ".", *, limit: int = 100_000) -> int:
        """Bytes of the regular files below ``path`` (symlinks not followed; at most ``limit`` entries counted)."""
        return self.usage(path, limit=limit)[0]

    def usage(self, path: str | os.PathLike[str] = ".", *, limit: int = 100_000) -> tuple[int, int]:
        """(bytes of the regular files below the folder ``path``, entries counted): the sum and count of
        what ``walk(path, limit=limit)`` yields (every entry counts, folders and symlinks included; the
        same entries are counted up to ``limit``), walked by directory fds only — each child folder is
        opened from its parent's fd, never by a path from the root, following no symlink (and, with openat2,
        crossing no mount, as every path) — without Entry objects or sorted listings, with a stat only for
        regular files. A folder that is not one by the time it is entered (swapped for a symlink, removed)
        is skipped, as ``walk`` skips it."""
        parts = self.parts(path)
        if limit <= 0:
            return 0, 0
        try:
            with self._root_fd() as root_fd:
                start = self._open_beneath(root_fd, parts, _DIR_FLAGS) if parts else os.dup(root_fd)
        except OSError:
            return 0, 0  # not a folder below the root (missing, a file, a symlink): walk yields nothing either
        return self._usage_from(start, int(limit))

    def _usage_from(self, start: int, limit: int) -> tuple[int, int]:
        """``usage`` from the open folder ``start`` (closed here, with every fd opened on the way).

        Depth first, child folders in name order, as ``walk`` visits them (so that the entries counted
        before ``limit`` stops the walk are the same ones). ``frames[i]`` is the folder at depth i of the
        branch being walked: [fd (-1 once given up), (st_dev, st_ino) noted when it was given up, its child
        folders still to enter, sorted descending]. Open fds stay bounded at any depth: only the start and
        the deepest ``USAGE_MAX_OPEN_FOLDERS`` frames keep their fd; a shallower frame notes its folder's
        identity and closes it, and is opened again on the way back up as ``..`` of its child — used only
        if it is that very folder (same device and inode), else the folder was moved meanwhile and what
        was left of it, and of the given-up frames above it, is skipped (as walk skips a moved folder).
        Each folder thus costs O(1) opens whatever the depth (no re-resolution of long paths)."""
        size = count = 0
        frames: list[list] = []
        fd = start
        try:
            while fd >= 0:
                try:
                    got, seen, folders = _count_entries(fd, limit - count)
                except OSError:
                    got, seen, folders = 0, 0, []  # could not be listed (removed meanwhile): skipped
                size += got
                count += seen
                if count >= limit:
                    break
                if folders:
                    frames.append([fd, None, folders])
                    spare = len(frames) - 1 - USAGE_MAX_OPEN_FOLDERS
                    if spare >= 1 and frames[spare][0] >= 0:  # frames[0], the start, always keeps its fd
                        frames[spare][1] = _identity(frames[spare][0])
                        os.close(frames[spare][0])
                        frames[spare][0] = -1
                else:
                    os.close(fd)
                fd = -1
                while frames and fd < 0:
                    top = frames[-1]
                    if top[2]:
                        try:  # one component, relative to the parent's fd: no symlink (and with openat2 no mount) crossed
                            if self._syscall is None:
                                fd = os.open(top[2].pop(), _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=top[0])
                            else:
                                fd = self._open_beneath(top[0], (top[2].pop(),), _DIR_FLAGS)
                        except OSError:
                            pass  # swapped for a symlink or a file, or removed, since it was listed: skipped
                        continue
                    frames.pop()
                    if frames and frames[-1][0] < 0:
                        frames[-1][0] = _reopen_parent(top[0], frames[-1][1])
                        if frames[-1][0] < 0:
                            while len(frames) > 1 and frames[-1][0] < 0:
                                frames.pop()  # moved meanwhile: this folder and the given-up ones above it are skipped
                    os.close(top[0])
        finally:
            if fd >= 0:
                os.close(fd)
            for frame in frames:
                if frame[0] >= 0:
                    os.close(frame[0])
        return size, count


def _count_entries(fd: int, budget: int) -> tuple[int, int, list[str]]:
    """(bytes of the regular files, entries counted, child folders sorted descending) of the open folder
    ``fd``, at most ``budget`` entries in the folder's own order — as ``listdir(limit=budget)`` reads them.
    Kinds come from the folder's records; only regular files are stat'ed (without following anything)."""
    size = count = 0
    folders: list[str] = []
    with os.scandir(fd) as scan:
        for item in scan:
            if count >= budget:
                break
            try:
                if item.is_dir(follow_symlinks=False):
                    folders.append(item.name)
                elif item.is_file(follow_symlinks=False):
                    size += item.stat(follow_symlinks=False).st_size
            except OSError:
                continue  # removed while listing: not counted (listdir skips it)
            count += 1
    folders.sort(reverse=True)  # entered from the end: smallest name first, walk's order
    return size, count, folders


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        info = os.fstat(fd)
    except OSError:
        return None  # then never matched: the folder is skipped on the way back up
    return info.st_dev, info.st_ino


def _reopen_parent(child_fd: int, identity: tuple[int, int] | None) -> int:
    """An fd of the folder holding the open folder ``child_fd`` if it is still the folder of ``identity``
    (``usage`` gave up its fd on the way down), else -1."""
    if identity is None:
        return -1
    try:
        fd = os.open("..", _DIR_FLAGS, dir_fd=child_fd)
    except OSError:
        return -1
    if _identity(fd) != identity:
        os.close(fd)
        return -1
    return fd


def _kind(mode: int) -> EntryKind:
    if stat_module.S_ISLNK(mode):
        return "symlink"
    if stat_module.S_ISDIR(mode):
        return "dir"
    if stat_module.S_ISREG(mode):
        return "file"
    return "other"


def _dirent_kind(item: os.DirEntry) -> EntryKind:
    """An entry's kind from its directory record (``d_type``; an lstat only where the file system has none)."""
    try:
        if item.is_symlink():
            return "symlink"
        if item.is_dir(follow_symlinks=False):
            return "dir"
        return "file" if item.is_file(follow_symlinks=False) else "other"
    except OSError:
        return "other"  # removed while listing


def _remove_tree(parent_fd: int, name: str) -> None:
    """Remove the folder ``name`` of ``parent_fd`` with everything in it, by fds only."""
    try:
        fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            os.unlink(name, dir_fd=parent_fd)  # became a link or file meanwhile: remove the entry itself
            return
        raise
    try:
        _remove_children(fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent_fd)


def _remove_children(fd: int) -> None:
    """Remove every entry of the open folder ``fd`` (folders with their contents), by fds only: a symlink is
    removed as a link, never followed."""
    # Listed first, removed after: deleting while the scan is open could skip entries.
    with os.scandir(fd) as scan:
        children = [(item.name, item.is_dir(follow_symlinks=False)) for item in scan]
    for child, is_dir in children:
        if is_dir:
            _remove_tree(fd, child)
        else:
            os.unlink(child, dir_fd=fd)
