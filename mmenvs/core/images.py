"""Per-episode image store with stable ids and lineage.

Every image an episode sees (the task's inputs, screenshots, tool outputs) is appended here and
gets the next id ``img_0, img_1, …``. Stored arrays are read-only, so an original can never change;
a derived image records the ids it was made from and the operation that made it, which is what
VTC-Bench's effective-chain metric walks back through.

A store may be given a memory budget (``max_raw_bytes``): past it, the oldest images are packed with
Zstandard (level 1, lossless) on a background thread — it releases the GIL, so the packing runs beside
the env — and unpacked on each read. Screenshot histories (3 MB a 1280×800 frame) then cost about
a twentieth of that, while the newest images stay raw for the agent and the recorder. The raw buffer
of a packed image is reused for the next image of its shape unless someone still holds it: a fresh
multi-megabyte array costs a millisecond or more of page faults.

A store also has a pixel budget (from the episode's :class:`~mmenvs.core.budget.EpisodeBudget`):
``add`` refuses, before copying anything, an image over ``image_pixels`` or one that would take what
the store holds over ``image_store_pixels``. What is held counts a raw image by its pixels and a
packed one by its packed size (in pixels of that image's depth), so a long screenshot history that
packs well stays cheap while incompressible images meet the limit. ``check_new`` is the same check for
a tool that knows its output's size before it allocates it.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
import zstandard
from PIL import Image

from .budget import DEFAULT_BUDGET, EpisodeBudget, check_limit
from .spaces import to_rgb

_ID_PATTERN = re.compile(r"^img_(\d+)$")


Box = tuple[int, int, int, int]  # (x0, y0, x1, y1) in pixels, end-exclusive


class FrameDiff:
    """The bounding box of where two same-shaped frames differ, with a reused scratch buffer.

    A GUI step usually changes a small part of the screen; knowing which part lets consumers redo only
    that (e.g. :class:`mmenvs.core.spaces.FrameFitter`). Comparing 64-bit words, this costs less than
    ``np.array_equal``.
    """

    def __init__(self) -> None:
        self._unequal: np.ndarray | None = None

    def box(self, new: np.ndarray, old: np.ndarray, within: Box | None = None) -> Box | None:
        """Where ``new`` differs from ``old``; None if they are identical. ``within`` limits the
        comparison to a box known to hold every change. Frames of another shape count as different
        everywhere."""
        if new.shape != old.shape or new.dtype != old.dtype or new.ndim < 2:
            return (0, 0, new.shape[1], new.shape[0]) if new.ndim >= 2 else (0, 0, 0, 0)
        height, width = new.shape[:2]
        x0, y0, x1, y1 = within if within is not None else (0, 0, width, height)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
        if x0 >= x1 or y0 >= y1:
            return None
        pixel_bytes = new.itemsize * (new.size // (height * width))
        if pixel_bytes == 3:  # whole 8-pixel groups: 24-byte aligned rows, compared as 64-bit words
            x0, x1 = x0 - x0 % 8, min(width, -(-x1 // 8) * 8)
        a = new[y0:y1, x0:x1].reshape(y1 - y0, -1).view(np.uint8)
        b = old[y0:y1, x0:x1].reshape(y1 - y0, -1).view(np.uint8)
        word = 8 if a.shape[1] % 8 == 0 and a.strides[1] == 1 and b.strides[1] == 1 else 1
        if word == 8:
            a, b = a.view(np.uint64), b.view(np.uint64)
        if self._unequal is None or self._unequal.size < a.size:
            self._unequal = np.empty(a.size, bool)
        unequal = self._unequal[: a.size].reshape(a.shape)
        np.not_equal(a, b, out=unequal)
        rows = np.flatnonzero(unequal.any(axis=1))
        if rows.size == 0:
            return None
        top, bottom = int(rows[0]), int(rows[-1]) + 1
        columns = np.flatnonzero(unequal[top:bottom].any(axis=0))
        left = x0 + int(columns[0]) * word // pixel_bytes
        right = min(width, x0 + -(-(int(columns[-1]) + 1) * word // pixel_bytes))
        return left, y0 + top, right, y0 + bottom


class ImageNotFound(KeyError):
    """An image id that this episode's store does not hold."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class _Pixels:
    """An image's pixels: the raw read-only array, or its packing once the store spilled it.

    ``raw`` is read and dropped under the store's lock, so the packing thread can tell whether anyone
    outside the store still holds the array before handing its memory to the next image.
    """

    __slots__ = ("raw", "packed", "shape", "lock", "held")

    def __init__(self, raw: np.ndarray, lock: threading.Lock) -> None:
        self.raw: np.ndarray | None = raw
        self.packed: bytes | None = None
        self.shape = raw.shape
        self.lock = lock
        self.held = _pixel_count(raw.shape)  # what this image costs the store's budget, in pixels

    def get(self) -> np.ndarray:
        with self.lock:
            raw = self.raw
        if raw is not None:
            return raw
        data = zstandard.ZstdDecompressor().decompress(self.packed)
        return np.frombuffer(data, dtype=np.uint8).reshape(self.shape)  # read-only


_packer: ThreadPoolExecutor | None = None
_packer_lock = threading.Lock()
_MAX_PENDING = 2  # packings queued per store before add() waits: memory stays bounded if packing is slower


def _run_packer(job: Callable[[], None]) -> Future:
    global _packer
    with _packer_lock:
        if _packer is None:
            _packer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mmenvs-image-pack")
    return _packer.submit(job)


@dataclass(frozen=True)
class ImageRecord:
    """One stored image: its id, pixels (read-only), parent ids, the operation that made it, extra facts."""

    id: str
    pixels: _Pixels = field(repr=False)
    parents: tuple[str, ...] = ()
    op: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def array(self) -> np.ndarray:
        """The read-only pixels (unpacked on each read if the store spilled them)."""
        return self.pixels.get()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.array.shape[1]), int(self.array.shape[0])


def _pixel_count(shape: tuple[int, ...]) -> int:
    return int(shape[0]) * int(shape[1]) if len(shape) >= 2 else int(np.prod(shape))


def _check_array_form(dtype: np.dtype, shape: tuple[int, ...]) -> None:
    if dtype != np.uint8:
        raise ValueError(f"ImageStore.add: expected a uint8 image, got dtype {dtype}")
    if not (len(shape) == 2 or (len(shape) == 3 and shape[2] in (1, 3, 4))):
        raise ValueError(f"ImageStore.add: expected shape H×W, H×W×1, H×W×3 or H×W×4, got {shape}")


def _shape_of(image: Any) -> tuple[int, ...] | None:
    """The array shape ``image`` would have, without converting it (None when unknown)."""
    if isinstance(image, np.ndarray):
        return image.shape
    if isinstance(image, Image.Image):
        return (image.height, image.width)
    shape = getattr(image, "shape", None)
    return tuple(shape) if isinstance(shape, tuple) else None


class ImageStore:
    """Append-only image store for one episode. Ids are ``img_<n>`` in insertion order.

    Arrays are uint8, H×W (gray) or H×W×3 (RGB) or H×W×4 (RGBA); they are copied on ``add`` and
    frozen (``writeable=False``) so neither the agent's tools nor the caller can alter an original.
    ``budget`` sets the pixel limits (``image_pixels``, ``image_store_pixels``; the defaults of
    :class:`~mmenvs.core.budget.EpisodeBudget` when not given).
    """

    def __init__(self, max_raw_bytes: int | None = None, *, budget: EpisodeBudget | None = None) -> None:
        self._records: list[ImageRecord] = []
        self.max_raw_bytes = max_raw_bytes
        self.budget = budget or DEFAULT_BUDGET
        self._held_pixels = 0  # raw images by their pixels, packed ones by their packed size (guarded by _lock)
        self._generation = 0  # bumped by clear(), so a packing finishing afterwards does not count
        self._raw: list[tuple[int, _Pixels]] = []  # (bytes, pixels) of images not yet sent to packing
        self._raw_bytes = 0
        self._packing: deque[Future] = deque()  # packings queued or running
        self._lock = threading.Lock()  # guards every _Pixels.raw of this store and _spare
        self._spare: np.ndarray | None = None  # a packed image's raw buffer, free for the next add

    def add(
        self,
        image: np.ndarray | Image.Image,
        *,
        parents: Iterable[str] = (),
        op: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> str:
        """Store a copy of ``image`` and return its new id. ``parents`` must be ids already stored.

        Raises :class:`~mmenvs.core.budget.BudgetExceeded` (before copying) for an image over the
        per-image pixel limit or one the store's budget cannot hold."""
        shape = _shape_of(image)
        if isinstance(image, np.ndarray):  # refused before the copy, which is the allocation
            _check_array_form(image.dtype, image.shape)
        if shape is not None and len(shape) >= 2:
            if shape[0] == 0 or shape[1] == 0:
                raise ValueError(f"ImageStore.add: empty image of shape {tuple(shape)}")
            self.check_new(int(shape[1]), int(shape[0]), "the image")
        if isinstance(image, Image.Image) and image.mode not in ("L", "RGB", "RGBA"):
            image = image.convert("RGB")
        array = self._copy(image)
        _check_array_form(array.dtype, array.shape)
        if array.ndim == 3 and array.shape[2] == 1:
            array = array[:, :, 0]
        if array.shape[0] == 0 or array.shape[1] == 0:
            raise ValueError(f"ImageStore.add: empty image of shape {array.shape}")
        parent_ids = tuple(parents)
        for parent in parent_ids:
            self._index(parent)  # raises with a clear message for unknown parents
        array = np.ascontiguousarray(array)
        array.flags.writeable = False
        if shape is None:  # not an array or image up front: checked now, before it is kept
            self.check_new(int(array.shape[1]), int(array.shape[0]), "the image")
        image_id = f"img_{len(self._records)}"
        pixels = _Pixels(array, self._lock)
        with self._lock:
            self._held_pixels += pixels.held
        self._records.append(ImageRecord(image_id, pixels, parent_ids, op, dict(meta or {})))
        if self.max_raw_bytes is not None:
            self._raw.append((array.nbytes, pixels))
            self._raw_bytes += array.nbytes
            while self._raw_bytes > self.max_raw_bytes and len(self._raw) > 1:  # the newest stays raw
                nbytes, oldest = self._raw.pop(0)
                self._raw_bytes -= nbytes
                self._packing.append(_run_packer(functools.partial(self._pack, oldest, self._generation)))
            while self._packing and self._packing[0].done():
                self._packing.popleft().result()  # a packing error surfaces here
            while len(self._packing) > _MAX_PENDING:
                self._packing.popleft().result()
        return image_id

    def check_new(self, width: int, height: int, what: str = "the image") -> None:
        """Refuse (``BudgetExceeded``) a new ``width`` × ``height`` image over ``image_pixels`` or one that
        would take the store over ``image_store_pixels``: for tools to call before they allocate it."""
        self.budget.check_image(width, height, what)
        pixels = int(width) * int(height)
        held = self.held_pixels()
        if held + pixels > self.budget.image_store_pixels:
            check_limit("image_store_pixels", self.budget.image_store_pixels, held + pixels,
                        f"{what} of {width}x{height} pixels, added to the {held:,} pixels this episode's images hold,")

    def held_pixels(self) -> int:
        """What the stored images cost the budget now: raw ones by pixels, packed ones by packed size."""
        with self._lock:
            return self._held_pixels

    def _copy(self, image: np.ndarray | Image.Image) -> np.ndarray:
        """A private copy of ``image``, into the spare buffer when it has the same shape."""
        with self._lock:
            spare = self._spare
            if spare is not None and isinstance(image, np.ndarray) and image.shape == spare.shape \
                    and image.dtype == spare.dtype:
                self._spare = None
            else:
                spare = None
        if spare is None:
            return np.array(image)
        spare.flags.writeable = True  # allowed: the buffer owns its memory and nobody else holds it
        np.copyto(spare, image)
        return spare

    def _pack(self, pixels: _Pixels, generation: int) -> None:
        """On the packing thread: pack, drop the raw array, and keep its buffer as the spare when no
        caller holds it (references left: ``raw`` here and getrefcount's argument)."""
        raw = pixels.raw
        if raw is None or pixels.packed is not None:
            return
        packed = zstandard.ZstdCompressor(level=1).compress(raw)
        with self._lock:
            pixels.packed = packed  # set before raw is dropped, so a reader always finds one
            pixels.raw = None
            depth = max(1, raw.nbytes // max(1, _pixel_count(raw.shape)))
            if generation == self._generation:  # a store cleared meanwhile no longer counts it
                packed_pixels = -(-len(packed) // depth)
                self._held_pixels += packed_pixels - pixels.held
                pixels.held = packed_pixels
            if self._spare is None and raw.base is None and sys.getrefcount(raw) == 2:
                self._spare = raw

    def raw_bytes(self) -> int:
        """Bytes of pixels held unpacked (packing that is still queued counts as done)."""
        if self.max_raw_bytes is None:
            return sum(r.array.nbytes for r in self._records)
        return self._raw_bytes

    def get(self, image_id: str) -> np.ndarray:
        """The read-only pixels of ``image_id``."""
        return self._records[self._index(image_id)].array

    def record(self, image_id: str) -> ImageRecord:
        """The full record (pixels, parents, op, meta) of ``image_id``."""
        return self._records[self._index(image_id)]

    def rgb(self, image_id: str) -> np.ndarray:
        """``image_id`` as H×W×3 RGB (gray and RGBA converted)."""
        return to_rgb(self.get(image_id))

    def parents(self, image_id: str) -> tuple[str, ...]:
        return self.record(image_id).parents

    def lineage(self, image_id: str) -> list[str]:
        """All ancestors of ``image_id`` and itself, oldest first (each id once)."""
        seen: set[str] = set()
        order: list[str] = []

        def visit(node: str) -> None:
            if node in seen:
                return
            seen.add(node)
            for parent in self.record(node).parents:
                visit(parent)
            order.append(node)

        visit(image_id)
        return order

    def roots(self, image_id: str) -> list[str]:
        """The original images (no parents) that ``image_id`` derives from."""
        return [i for i in self.lineage(image_id) if not self.record(i).parents]

    def ids(self) -> list[str]:
        return [r.id for r in self._records]

    def ids_since(self, count: int) -> list[str]:
        """Ids added after the store held ``count`` images (what is new this step)."""
        return [r.id for r in self._records[count:]]

    def latest(self) -> str | None:
        return self._records[-1].id if self._records else None

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, image_id: object) -> bool:
        if not isinstance(image_id, str):
            return False
        match = _ID_PATTERN.match(image_id)
        return bool(match) and int(match.group(1)) < len(self._records)

    def clear(self) -> None:
        """Forget every image (a new episode starts)."""
        with self._lock:
            self._held_pixels = 0
            self._generation += 1
        self._records.clear()
        self._raw.clear()
        self._raw_bytes = 0
        self._packing.clear()  # queued packings finish on images nobody can read any more
        self._spare = None

    def export_png(self, image_id: str, path: str | Path) -> Path:
        """Write ``image_id`` to ``path`` as PNG and return the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Fast zlib level: episode recording writes many images and PNG stays lossless at any level.
        Image.fromarray(self.get(image_id)).save(path, format="PNG", compress_level=1)
        return path

    def export_all(self, folder: str | Path) -> list[Path]:
        """Write every image as ``<folder>/<id>.png``."""
        return [self.export_png(i, Path(folder) / f"{i}.png") for i in self.ids()]

    def _index(self, image_id: str) -> int:
        match = _ID_PATTERN.match(image_id) if isinstance(image_id, str) else None
        if not match:
            raise ImageNotFound(f"invalid image id {image_id!r}: ids look like 'img_0', 'img_1', …")
        index = int(match.group(1))
        if index >= len(self._records):
            known = f"img_0 … img_{len(self._records) - 1}" if self._records else "none yet"
            raise ImageNotFound(f"unknown image id {image_id!r}: this episode holds {known}")
        return index


# ---------------------------------------------------------------------------------------- image files named by tasks
def allowed_image_path(value: Any, roots: Iterable[str | Path], where: str) -> Path:
    """The file a task's image path names, refused unless it lies inside one of ``roots`` (the registry,
    and a folder the user opted in with an env's ``image_root=`` kwarg).

    Checked before anything is opened: the value must be a plain relative path (resolved against each
    root in turn) or an absolute one, without ``..`` components or NUL bytes, and its real path (symlinks
    resolved) must stay inside the root's real path. ``where`` names the task field in the ValueError."""
    root_list = [Path(root) for root in roots]
    shown = "; ".join(str(root) for root in root_list) or "none"
    if not isinstance(value, str) or not value.strip() or len(value) > 4096 or "\0" in value:
        raise ValueError(f"{where} must be a non-empty path string without NUL bytes, got {str(value)[:80]!r}")
    path = Path(value)
    if ".." in path.parts:
        raise ValueError(f"{where}: {value[:200]!r} must not contain '..'; image paths name files inside the allowed folders ({shown})")
    candidates = [(root, path) for root in root_list] if path.is_absolute() else [(root, root / path) for root in root_list]
    inside, escapes = [], False
    for root, candidate in candidates:  # lstat and readlink only: nothing is opened
        real_root = Path(os.path.realpath(root))
        real = Path(os.path.realpath(candidate))
        if real != real_root and real_root in real.parents:
            inside.append(real)
        elif not path.is_absolute() and os.path.lexists(candidate):
            escapes = True  # e.g. a symlink in the root that points out of it
    existing = next((real for real in inside if os.path.lexists(real)), None)
    if existing is not None or (inside and not escapes):
        return existing or inside[0]  # a relative path names the first root that holds it
    hint = " (pass image_root=<folder> to the env to allow a folder of your own)"
    raise ValueError(f"{where}: {value[:200]!r} lies outside the allowed image folders ({shown}){hint}")


def read_image_file(path: str | Path, where: str, budget: EpisodeBudget | None = None) -> np.ndarray:
    """An image file's pixels as RGB, refused from its header (before decoding) when it holds more than
    ``budget.image_pixels`` pixels, and only if it is a regular file. Errors are ValueErrors naming ``where``."""
    budget = budget or DEFAULT_BUDGET
    path = Path(path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"{where}: {path.name!r} is not a regular file")
        with Image.open(path) as image:
            width, height = image.size
            budget.check_image(width, height, f"{where}: the image file {path.name!r}")
            return np.asarray(image.convert("RGB"))
    except (OSError, Image.DecompressionBombError) as exc:
        raise ValueError(f"{where}: cannot read image file {path.name!r}: {exc}") from None
