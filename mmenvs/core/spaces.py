"""Observation and action spaces shared by every mmenvs environment.

``UnicodeText`` is a text space that accepts any Unicode string up to a length bound: agents emit
JSON, code and non-Latin text, which ``gymnasium.spaces.Text``'s default alphanumeric charset rejects.
``image_space`` and ``letterbox`` give the fixed-size ``uint8`` image every observation carries.
"""

from __future__ import annotations

import multiprocessing
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import (batch_differing_spaces, create_empty_array, create_shared_memory, read_from_shared_memory,
                                    write_to_shared_memory)

# Characters sample() draws from: printable ASCII plus a few scripts and symbols, so samples exercise
# JSON punctuation, whitespace and non-Latin text the way agent output does.
_SAMPLE_ALPHABET = (
    "".join(chr(c) for c in range(32, 127))
    + "\n\t"
    + "éüßçñ"  # Latin-1 letters
    + "дижсте"  # Cyrillic
    + "日本語中文"  # CJK
    + "مرحبا"  # Arabic
    + "→✓€…"  # symbols
)


class UnicodeText(spaces.Space[str]):
    """A space of Unicode strings with ``min_length <= len(s) <= max_length``.

    Unlike ``gymnasium.spaces.Text`` it places no restriction on the characters: any ``str`` of a
    permitted length is a member. ``sample()`` draws from a mixed alphabet (ASCII, accented, Cyrillic,
    CJK, Arabic, symbols) using the space's own seeded generator.
    """

    def __init__(self, max_length: int = 65_536, *, min_length: int = 0, seed: int | np.random.Generator | None = None):
        if not (0 <= min_length <= max_length):
            raise ValueError(f"UnicodeText: need 0 <= min_length <= max_length, got {min_length}, {max_length}")
        self.min_length = int(min_length)
        self.max_length = int(max_length)
        super().__init__(dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        upper = min(self.max_length, 64)  # samples stay short; the bound is what matters
        length = int(self.np_random.integers(self.min_length, max(self.min_length, upper) + 1))
        picks = self.np_random.integers(0, len(_SAMPLE_ALPHABET), size=length)
        return "".join(_SAMPLE_ALPHABET[i] for i in picks)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and (other.min_length, other.max_length) == (self.min_length, self.max_length)

    def to_jsonable(self, sample_n: Sequence[str]) -> list[str]:
        return list(sample_n)

    def from_jsonable(self, sample_n: Sequence[str]) -> list[str]:
        return list(sample_n)


# Vector envs batch custom spaces as tuples; they only need to know what an empty batch looks like.
@create_empty_array.register(UnicodeText)
def _empty_text_batch(space: UnicodeText, n: int = 1, fn: Any = np.zeros) -> tuple[str, ...]:
    return tuple("" for _ in range(n))


@batch_differing_spaces.register(UnicodeText)
def _batch_text_spaces(space_list: Sequence[UnicodeText]) -> spaces.Tuple:
    return spaces.Tuple([UnicodeText(s.max_length, min_length=s.min_length) for s in space_list])


# AsyncVectorEnv (shared_memory=True, its default) passes observations through shared memory: each env
# of the batch gets a row of ``max_length + 1`` uint32 cells, the string's length and then its code
# points (UTF-32, lone surrogates included, so every member of the space round-trips unchanged).
@create_shared_memory.register(UnicodeText)
def _create_text_shared_memory(space: UnicodeText, n: int = 1, ctx: Any = multiprocessing) -> Any:
    return ctx.Array(np.dtype(np.uint32).char, n * (space.max_length + 1), lock=False)


def _text_rows(space: UnicodeText, shared_memory: Any) -> np.ndarray:
    return np.frombuffer(shared_memory, dtype=np.uint32).reshape(-1, space.max_length + 1)


class SharedTextBatch(Sequence):
    """The strings of a batch as they stand in shared memory now: a read-only sequence that decodes
    row ``i`` when it is read. AsyncVectorEnv reads its observation buffer once and hands it out
    after every step, so the batch must be a view (as numpy arrays are for ``Box``), not a snapshot.
    Copying it (``copy.copy``, ``copy.deepcopy``: what ``AsyncVectorEnv(copy=True)`` does) or
    pickling it gives a plain tuple of str."""

    __slots__ = ("_space", "_memory", "_n")

    def __init__(self, space: UnicodeText, shared_memory: Any, n: int) -> None:
        self._space, self._memory, self._n = space, shared_memory, int(n)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        index = range(self._n)[index]  # negative indices, and IndexError past the end
        row = _text_rows(self._space, self._memory)[index]
        return row[1 : 1 + int(row[0])].tobytes().decode("utf-32-le", "surrogatepass")

    def __eq__(self, other: Any) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, (SharedTextBatch, tuple, list)) else other)

    __hash__ = None  # type: ignore[assignment]  # mutable (the workers write into it)

    def __copy__(self) -> tuple[str, ...]:
        return tuple(self)

    def __deepcopy__(self, memo: Any) -> tuple[str, ...]:
        return tuple(self)

    def __reduce__(self) -> Any:
        return (tuple, (tuple(self),))

    def __repr__(self) -> str:
        return f"SharedTextBatch({tuple(self)!r})"


@read_from_shared_memory.register(UnicodeText)
def _read_text_from_shared_memory(space: UnicodeText, shared_memory: Any, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(space, shared_memory, n)


@write_to_shared_memory.register(UnicodeText)
def _write_text_to_shared_memory(space: UnicodeText, index: int, value: str, shared_memory: Any) -> None:
    if not space.contains(value):
        shown = f"a str of {len(value):,} characters" if isinstance(value, str) else type(value).__name__
        raise ValueError(f"UnicodeText shared memory: the value must be a str of at most {space.max_length:,} characters, got {shown}")
    codes = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    row = _text_rows(space, shared_memory)[index]
    row[0] = len(codes)
    row[1 : 1 + len(codes)] = codes


_CLIP_MARKER = "\n…[truncated {n} characters]"

# Characters that must not reach an agent raw: C0 controls but tab and newline (ESC starts terminal
# escape sequences, NUL ends C strings), a carriage return not ending a line (it hides what precedes
# it on a terminal), DEL, C1 controls (U+009B is a one-character CSI) and lone surrogates (not encodable
# as UTF-8: they break every JSON or log writer downstream).
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]|\r(?!\n)")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible_text(text: str) -> str:
    """``text`` with every control character (but newline and tab), DEL and lone surrogate written
    as a visible escape (``\\x1b``, ``\\x00``, ``\\ud800``); ordinary Unicode is kept as it is."""
    if not _may_need_escapes(text):
        return text
    return _INVISIBLE.sub(_escape_char, text)


# Bytes of the C0 controls (carriage return included) and DEL, in UTF-8.
_CONTROL_BYTES = bytes(range(0, 9)) + bytes(range(11, 32)) + b"\x7f"


def _may_need_escapes(text: str) -> bool:
    """False when ``text`` surely holds nothing :data:`_INVISIBLE` matches. A regex scan costs ~15 ns a
    character (a step's 64K-character accessibility tree: ~1 ms), this C-speed byte test ~2 ns: C1
    controls and surrogates can only be there when their UTF-8 lead bytes (0xC2, 0xED) are."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data.translate(None, _CONTROL_BYTES)) != len(data):
        return True
    return not text.isascii() and (b"\xc2" in data or b"\xed" in data)


def observation_text(text: str, max_length: int) -> str:
    """What an agent is shown of ``text``: control characters escaped (:func:`visible_text`), then cut to
    ``max_length`` (:func:`clip_text`). Only the first ``max_length`` characters are scanned: an
    escape never makes text shorter, so what lies beyond them would be cut anyway."""
    head = visible_text(text[:max_length])
    if len(head) == min(len(text), max_length):  # nothing was escaped (an escape lengthens the text)
        return clip_text(text, max_length)
    if len(text) <= max_length and len(head) <= max_length:
        return head
    keep = max(0, max_length - len(_CLIP_MARKER.format(n=len(head) + len(text))))
    cut = max(0, len(text) - max_length) + len(head) - keep  # characters not shown (escapes counted as shown)
    return (head[:keep] + _CLIP_MARKER.format(n=cut))[:max_length]


def clip_text(text: str, max_length: int, marker: str = _CLIP_MARKER) -> str:
    """Return ``text`` cut to at most ``max_length`` characters, ending with a marker saying how much was cut."""
    if len(text) <= max_length:
        return text
    # The marker's length with the largest possible count bounds its real length.
    keep = max(0, max_length - len(marker.format(n=len(text))))
    return (text[:keep] + marker.format(n=len(text) - keep))[:max_length]


def image_space(obs_size: tuple[int, int]) -> spaces.Box:
    """The ``(H, W, 3)`` uint8 Box for an ``obs_size=(height, width)`` observation image."""
    height, width = _check_size(obs_size)
    return spaces.Box(low=0, high=255, shape=(height, width, 3), dtype=np.uint8)


def to_rgb(image: np.ndarray) -> np.ndarray:
    """View any uint8 image (H×W gray, H×W×1, H×W×3 RGB, H×W×4 RGBA) as H×W×3 RGB uint8."""
    image = np.asarray(image)
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2:
        return np.repeat(image[:, :, None], 3, axis=2)
    if image.ndim == 3 and image.shape[2] == 1:
        return np.repeat(image, 3, axis=2)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    raise ValueError(f"to_rgb: expected an H×W, H×W×1, H×W×3 or H×W×4 image, got shape {image.shape}")


def letterbox(image: np.ndarray | None, obs_size: tuple[int, int], fill: int = 0) -> np.ndarray:
    """Fit ``image`` into ``obs_size=(height, width)`` keeping its aspect ratio, padding with ``fill``.

    Never stretches: the scale is the same on both axes and the image is centred. ``None`` gives a
    blank frame (an episode with no image yet).
    """
    height, width = _check_size(obs_size)
    canvas = np.full((height, width, 3), fill, dtype=np.uint8)
    if image is None:
        return canvas
    rgb = to_rgb(image)
    src_h, src_w = rgb.shape[:2]
    if src_h == 0 or src_w == 0:
        return canvas
    scale = min(height / src_h, width / src_w)
    new_h, new_w = max(1, round(src_h * scale)), max(1, round(src_w * scale))
    if (new_h, new_w) != (src_h, src_w):
        import cv2  # here, not at the top: envs that never letterbox do not pay cv2's ~20 MB

        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        rgb = cv2.resize(rgb, (new_w, new_h), interpolation=interpolation)
    top, left = (height - new_h) // 2, (width - new_w) // 2
    canvas[top : top + new_h, left : left + new_w] = rgb
    return canvas


class FrameFitter:
    """``letterbox`` for a stream of same-sized frames, written into one reused output array.

    A GUI env fits a new screenshot into its observation every step. When the frame is exactly twice
    the observation size (a 1280×800 screen into 640×400, the default) the 2×2 box average is computed
    with numpy in preallocated buffers: the same pixels as Pillow's ``reduce(2)`` and cv2's
    ``INTER_AREA`` (``(sum + 2) >> 2``), without a fresh frame-sized allocation per step. Given the box
    where the frame differs from the one fitted last (``changed``), only that part is recomputed: each
    output pixel depends on its own 2×2 block alone. Other sizes fall back to :func:`letterbox`.

    The returned array is overwritten by the next call: copy it to keep it.
    """

    _STRIP_ROWS = 32  # output rows halved per pass

    def __init__(self, obs_size: tuple[int, int]) -> None:
        self.obs_size = _check_size(obs_size)
        height, width = self.obs_size
        self._out = np.empty((height, width, 3), np.uint8)
        self._rows: np.ndarray | None = None  # uint16 sums of row pairs, allocated on the first halving
        self._sums: np.ndarray | None = None
        self._last_shape: tuple[int, ...] | None = None  # shape of the frame now in _out (None: not reusable)

    def __call__(self, frame: np.ndarray | None, changed: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """``frame`` fitted to ``obs_size``. ``changed`` = (x0, y0, x1, y1): the frame equals the one of
        the previous call outside this box."""
        height, width = self.obs_size
        if frame is None or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            self._last_shape = None
            return letterbox(frame, self.obs_size)
        if frame.shape[:2] not in ((height, width), (2 * height, 2 * width)):
            self._last_shape = None
            return letterbox(frame, self.obs_size)
        full = (0, 0, frame.shape[1], frame.shape[0])
        x0, y0, x1, y1 = changed if changed is not None and frame.shape == self._last_shape else full
        self._last_shape = frame.shape
        if frame.shape[:2] == (height, width):
            self._out[y0:y1, x0:x1] = frame[y0:y1, x0:x1]
        else:  # whole 2×2 blocks around the change
            self._halve(frame, x0 // 2, y0 // 2, (x1 + 1) // 2, (y1 + 1) // 2)
        return self._out

    def _halve(self, frame: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
        """Output pixels [y0:y1, x0:x1] from the frame's 2×2 blocks, a strip of rows at a time (the
        uint16 sums then take ~0.4 MB, not 4.5 MB, for a 1280×800 frame)."""
        width = self.obs_size[1]
        strip = self._STRIP_ROWS
        if self._rows is None or self._sums is None:
            self._rows = np.empty((strip, 2 * width, 3), np.uint16)
            self._sums = np.empty((strip, width, 3), np.uint16)
        w = x1 - x0
        for top in range(y0, y1, strip):
            h = min(strip, y1 - top)
            block = frame[2 * top: 2 * (top + h), 2 * x0: 2 * x1]
            rows, sums = self._rows[:h, : 2 * w], self._sums[:h, :w]
            np.add(block[0::2], block[1::2], out=rows, dtype=np.uint16)
            for c in range(3):  # channel by channel: long strided rows instead of 3-element runs (4x faster)
                np.add(rows[:, 0::2, c], rows[:, 1::2, c], out=sums[:, :, c])
            np.add(sums, 2, out=sums)
            np.right_shift(sums, 2, out=sums)
            np.copyto(self._out[top: top + h, x0:x1], sums, casting="unsafe")


def _check_size(obs_size: Sequence[int]) -> tuple[int, int]:
    try:
        height, width = (int(v) for v in obs_size)
    except (TypeError, ValueError):
        raise ValueError(f"obs_size must be (height, width), got {obs_size!r}") from None
    if height < 1 or width < 1:
        raise ValueError(f"obs_size must be positive (height, width), got {obs_size!r}")
    return height, width
