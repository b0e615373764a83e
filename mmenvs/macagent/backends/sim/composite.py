"""Fast compositing of window surfaces onto the screen with numpy: plain slice copies for the
body, alpha blending only where it matters (the rounded corners and the drop-shadow band).

Pixel buffers are reused rather than allocated per frame. An env process fixes glibc's mmap threshold
(``mmenvs.core.memory``), so every fresh megabyte-sized array is a new mapping the kernel must fault
in page by page: about 1 ms per MB on a small VM, which is most of a GUI step. Windows therefore draw
into one shared canvas (:func:`canvas`), keep their own pixels in a buffer that is rewritten in place,
and the screen is composed into one of two alternating frame buffers (:class:`FrameBuffers`).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any, Iterator

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

SHADOW = 22  # px the shadow spreads around a window
RADIUS = 10  # window corner radius


@functools.lru_cache(maxsize=64)
def _corner_alpha(r: int) -> np.ndarray:
    """(r, r) uint16 alpha 0..256 of a top-left rounded corner (supersampled edge)."""
    m = Image.new("L", (r * 4, r * 4), 0)
    ImageDraw.Draw(m).ellipse((0, 0, r * 8, r * 8), fill=255)
    a = np.asarray(m.resize((r, r), Image.LANCZOS), dtype=np.uint16)
    return a + (a >> 7)  # 255 → 256 so that full coverage copies exactly


# Windows at least this big in both directions get their shadow from one blurred reference of this size:
# away from the corners a blurred straight edge is the same at every position, so the reference's middle
# row and column are repeated to the window's size. Exact (the blur's support is finite: ±~35 px here;
# tests compare with the direct blur), and ~10x cheaper than blurring a new size.
_SHADOW_REFERENCE = 256


@functools.lru_cache(maxsize=6)  # up to ~1 MB each: the windows on screen now, not every size seen
def _shadow_keep(w: int, h: int, opacity: int) -> np.ndarray:
    """(h+2S, w+2S) uint16 factor 0..256 to multiply the background by for a window's shadow."""
    if w < _SHADOW_REFERENCE or h < _SHADOW_REFERENCE:
        return _blurred_keep(w, h, opacity)
    ref = _blurred_keep(_SHADOW_REFERENCE, _SHADOW_REFERENCE, opacity)
    mid = ref.shape[1] // 2
    cols = np.concatenate([np.arange(mid), np.full(w - _SHADOW_REFERENCE, mid), np.arange(mid, ref.shape[1])])
    rows = np.concatenate([np.arange(mid), np.full(h - _SHADOW_REFERENCE, mid), np.arange(mid, ref.shape[0])])
    return ref[np.ix_(rows, cols)]


@functools.lru_cache(maxsize=12)
def _blurred_keep(w: int, h: int, opacity: int) -> np.ndarray:
    """:func:`_shadow_keep` drawn and blurred at this size."""
    s = SHADOW
    m = Image.new("L", (w + 2 * s, h + 2 * s), 0)
    ImageDraw.Draw(m).rounded_rectangle((s, s + 5, s + w, s + h + 5), RADIUS, fill=opacity)
    a = np.asarray(m.filter(ImageFilter.GaussianBlur(s / 2.2)), dtype=np.uint16)
    return 256 - (a + (a >> 7))


def _clip(x0: int, y0: int, x1: int, y1: int, W: int, H: int) -> tuple[int, int, int, int] | None:
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if cx0 >= cx1 or cy0 >= cy1:
        return None
    return cx0, cy0, cx1, cy1


def shadow(frame: np.ndarray, x: int, y: int, w: int, h: int, opacity: int = 100) -> None:
    """Darken the band around the window rectangle (x, y, w, h) in place (the interior is
    skipped: the window covers it)."""
    H, W = frame.shape[:2]
    keep = _shadow_keep(w, h, opacity)
    s = SHADOW
    band = s + RADIUS
    X0, Y0 = x - s, y - s
    kh, kw = keep.shape
    strips = ((0, 0, kw, band), (0, kh - band - 6, kw, kh), (0, band, band, kh - band - 6), (kw - band, band, kw, kh - band - 6))
    for sx0, sy0, sx1, sy1 in strips:
        c = _clip(X0 + sx0, Y0 + sy0, X0 + sx1, Y0 + sy1, W, H)
        if c is None:
            continue
        fx0, fy0, fx1, fy1 = c
        k = keep[fy0 - Y0: fy1 - Y0, fx0 - X0: fx1 - X0]
        region = frame[fy0:fy1, fx0:fx1]
        region[:] = ((region.astype(np.uint16) * k[..., None]) >> 8).astype(np.uint8)


Corners = list  # what lies under a window's rounded corners: paste_window's return value


def covered_box(x: int, y: int, w: int, h: int, r: int = RADIUS) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) that :func:`paste_window` of a (h, w) surface at (x, y) with corner radius
    ``r`` overwrites whole, whatever was below: its rows between the rounded corners."""
    return x, y + r, x + w, y + h - r


def paste_window(frame: np.ndarray, surf: np.ndarray, x: int, y: int, r: int = RADIUS,
                 under: Corners | None = None) -> Corners:
    """Copy a window surface (h, w, 3) to (x, y) with rounded corners, clipped to the frame.

    Returns the background pixels under the corners; pass them as ``under`` to paste the same window
    at the same place over a frame that already shows it (only the corners blend with what is below).
    """
    H, W = frame.shape[:2]
    h, w = surf.shape[:2]
    c = _clip(x, y, x + w, y + h, W, H)
    if c is None:
        return []
    fx0, fy0, fx1, fy1 = c
    ca = _corner_alpha(r)
    if under is None:  # keep what is under the corners before covering it
        under = []
        for cx, cy, flip_x, flip_y in ((0, 0, False, False), (w - r, 0, True, False), (0, h - r, False, True),
                                       (w - r, h - r, True, True)):
            cc = _clip(x + cx, y + cy, x + cx + r, y + cy + r, W, H)
            if cc is None:
                continue
            under.append((cx, cy, flip_x, flip_y, cc, frame[cc[1]:cc[3], cc[0]:cc[2]].copy()))
    frame[fy0:fy1, fx0:fx1] = surf[fy0 - y: fy1 - y, fx0 - x: fx1 - x]
    for cx, cy, flip_x, flip_y, (ax0, ay0, ax1, ay1), background in under:
        a = ca
        if flip_x:
            a = a[:, ::-1]
        if flip_y:
            a = a[::-1, :]
        a = a[ay0 - (y + cy): ay1 - (y + cy), ax0 - (x + cx): ax1 - (x + cx)]
        top = surf[ay0 - y: ay1 - y, ax0 - x: ax1 - x].astype(np.uint16)
        frame[ay0:ay1, ax0:ax1] = ((top * a[..., None] + background.astype(np.uint16) * (256 - a[..., None])) >> 8).astype(np.uint8)
    return under


def paste_masked(frame: np.ndarray, img: np.ndarray, mask: np.ndarray, x: int, y: int) -> None:
    """Copy ``img`` where boolean ``mask`` is set (the dock's rounded plate)."""
    H, W = frame.shape[:2]
    h, w = img.shape[:2]
    c = _clip(x, y, x + w, y + h, W, H)
    if c is None:
        return
    fx0, fy0, fx1, fy1 = c
    sub = frame[fy0:fy1, fx0:fx1]
    m = mask[fy0 - y: fy1 - y, fx0 - x: fx1 - x]
    sub[m] = img[fy0 - y: fy1 - y, fx0 - x: fx1 - x][m]


def rgb_from_rgbx(rgbx: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Copy the RGB channels of an (h, w, 4) array into a contiguous (h, w, 3) one, reusing ``out``
    when it has that shape. One channel at a time: numpy copies long strided rows quickly but pays a
    call per pixel when the innermost run is only 3 bytes (6× slower here)."""
    h, w = rgbx.shape[:2]
    if out is None or out.shape != (h, w, 3):
        out = np.empty((h, w, 3), np.uint8)
    for c in range(3):
        np.copyto(out[:, :, c], rgbx[:, :, c])
    return out


_canvas_lock = threading.Lock()
_canvas_memory = np.empty(0, np.uint8)


@contextlib.contextmanager
def canvas(size: tuple[int, int], fill: tuple[int, ...]) -> Iterator[tuple[Image.Image, np.ndarray]]:
    """A (w, h) Pillow image filled with ``fill`` to draw on, and its pixels as an (h, w, 4) RGBX array.

    The image is mapped onto memory shared by every window of the process (grown to the largest
    window seen), so drawing a window touches no fresh pages. Copy what you need out of it (e.g. with
    :func:`rgb_from_rgbx`) before the ``with`` block ends: the next window draws over it.
    """
    global _canvas_memory
    w, h = size
    shared = _canvas_lock.acquire(blocking=False)  # in use (another thread, or drawing inside a drawing): own memory
    try:
        if not shared:
            memory = np.empty(w * h * 4, np.uint8)
        else:
            if _canvas_memory.size < w * h * 4:
                _canvas_memory = np.empty(w * h * 4, np.uint8)
            memory = _canvas_memory
        pixels = memory[: w * h * 4].reshape(h, w, 4)
        img = Image.frombuffer("RGBX", (w, h), pixels, "raw", "RGBX", 0, 1)
        # frombuffer marks the image read-only (Pillow would copy it on the first draw); the memory is
        # ours and writable, so drawing straight into it is what we want
        img.readonly = 0
        img.paste(fill[:3], (0, 0, w, h))
        yield img, pixels
    finally:
        if shared:
            _canvas_lock.release()


class FrameBuffers:
    """Screen-sized pixel buffers a desktop composes into, kept for the backend's lifetime.

    Frames alternate between two buffers: a frame handed out stays intact while the next one is
    composed (so a caller can compare the new frame with the last), and is overwritten by the one after
    that. ``below_layer()`` is the buffer for the windows under the front one, when there are any;
    ``release_below()`` drops it (at the next episode, which may never need it).
    """

    def __init__(self, screen_size: tuple[int, int]) -> None:
        w, h = screen_size
        self.shape = (h, w, 3)
        self._frames: list[np.ndarray] = []
        self._below: np.ndarray | None = None

    def spare_frame(self, current: np.ndarray | None) -> np.ndarray:
        """A writable frame buffer that does not hold ``current`` (the frame handed out last)."""
        for buf in self._frames:
            if current is None or not np.shares_memory(buf, current):
                return buf
        buf = np.empty(self.shape, np.uint8)
        self._frames.append(buf)
        return buf

    def below_layer(self) -> np.ndarray:
        """The writable buffer the layer below the front window is composed in."""
        if self._below is None:
            self._below = np.empty(self.shape, np.uint8)
        return self._below

    def release_below(self) -> None:
        """Drop the below-layer buffer; the frame pair is kept."""
        self._below = None


# ------------------------------------------------------------------------------ low resolution
# When the observation is much smaller than the screen (an RL policy's 128×128), the desktop composes
# its frame at 1/k of the screen (``scale_factor``) from layers each downscaled once per version, and
# the observation is made from that: a few hundred kilobytes of pixels a frame instead of 3 MB.


def scale_factor(screen_size: tuple[int, int], size: tuple[int, int]) -> int:
    """The integer factor k a desktop of ``screen_size`` (w, h) composes at to make a frame of ``size``
    (w, h): the largest k that keeps at least twice the output's pixels along each axis (so edges land
    within a fraction of an output pixel), 1 when the output is too big for any saving."""
    sw, sh = screen_size
    w, h = size
    return max(1, int(min(sw / max(1, w), sh / max(1, h)) // 2))


def scaled(v: int, k: int) -> int:
    """Screen coordinate ``v`` at 1/k, rounded half up (the same rule for every layer's edges)."""
    return (2 * v + k) // (2 * k)


def area_resize(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``img`` resized to ``size`` (w, h) by pixel-area averaging (cv2 ``INTER_AREA``), contiguous."""
    import cv2  # only the low-resolution path needs it (an episode at the default obs_size never imports it)

    h, w = img.shape[:2]
    if (w, h) == tuple(size):
        return np.ascontiguousarray(img)
    return cv2.resize(img, (int(size[0]), int(size[1])), interpolation=cv2.INTER_AREA)


def _blocks(shape: tuple[int, ...], size: tuple[int, int], k: int, phase: tuple[int, int]) -> tuple[int, ...] | None:
    """(ox, oy, fw, fh, pad_l, pad_t): the whole k×k blocks of an (h, w) layer that ``block_resize``
    averages, and the output columns/rows before them that repeat their neighbour; None if there are none."""
    tw, th = int(size[0]), int(size[1])
    h, w = shape[:2]
    px, py = int(phase[0]), int(phase[1])
    pad_l, ox = (1, px + k) if px < 0 else (0, px)
    pad_t, oy = (1, py + k) if py < 0 else (0, py)
    fw, fh = min(tw - pad_l, (w - ox) // k), min(th - pad_t, (h - oy) // k)
    if k < 2 or fw < 1 or fh < 1:
        return None
    return ox, oy, fw, fh, pad_l, pad_t


def _pad_edges(out: np.ndarray, size: tuple[int, int], pad_l: int, pad_t: int) -> np.ndarray:
    th, tw = int(size[1]), int(size[0])
    fh, fw = out.shape[:2]
    if (fw, fh) == (tw, th):
        return out
    pads = ((pad_t, th - fh - pad_t), (pad_l, tw - fw - pad_l)) + ((0, 0),) * (out.ndim - 2)
    return np.pad(out, pads, mode="edge")


def block_resize(img: np.ndarray, size: tuple[int, int], k: int, phase: tuple[int, int] = (0, 0)) -> np.ndarray:
    """``img`` (a layer on the screen) averaged over the screen's k×k blocks into ``size`` (w, h):
    cv2's integer-factor area path, ~2.5× faster than an arbitrary ratio. ``phase`` (px, py) is where
    the first output pixel's block starts in ``img`` (``scaled(x, k) * k - x`` for a layer at x): when
    negative, that first block hangs over the layer's edge and repeats its neighbour, as does an edge the
    rounded target reaches beyond whole blocks."""
    import cv2

    blocks = _blocks(img.shape, size, k, phase)
    if blocks is None:
        return area_resize(img, size)
    ox, oy, fw, fh, pad_l, pad_t = blocks
    out = cv2.resize(img[oy: oy + fh * k, ox: ox + fw * k], (fw, fh), interpolation=cv2.INTER_AREA)
    return _pad_edges(out, size, pad_l, pad_t)


def block_reduce(img: Image.Image, size: tuple[int, int], k: int, phase: tuple[int, int] = (0, 0)) -> np.ndarray:
    """:func:`block_resize` of a Pillow image (a window just drawn) into an (h, w, 3) RGB array, by
    Pillow's integer ``reduce`` (half the time of cv2 on the RGBX canvas; within 1 of it per channel)."""
    blocks = _blocks((img.height, img.width), size, k, phase)
    if blocks is None:
        return area_resize(np.asarray(img.convert("RGB")), size)
    ox, oy, fw, fh, pad_l, pad_t = blocks
    out = np.asarray(img.reduce(k, box=(ox, oy, ox + fw * k, oy + fh * k)).convert("RGB"))
    return _pad_edges(out, size, pad_l, pad_t)


#: a changed box covering more than this share of a layer's blocks is reduced whole (a patch saves nothing)
PATCH_SHARE = 0.5


def reduced_region(shape: tuple[int, ...], size: tuple[int, int], k: int, phase: tuple[int, int],
                   box: tuple[int, int, int, int]) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int] | None] | None:
    """For :func:`block_reduce` of an (h, w) layer into ``size``: the output blocks (j0, i0, j1, i1) whose
    source pixels meet ``box`` (layer coordinates), and the layer box they cover (None when no whole
    block meets it: the output does not change). None when a patch is not worth it or not exact here."""
    blocks = _blocks(shape, size, k, phase)
    if blocks is None:
        return None
    ox, oy, fw, fh, _pad_l, _pad_t = blocks
    j0, i0 = max(0, (box[0] - ox) // k), max(0, (box[1] - oy) // k)
    j1, i1 = min(fw, -(-(box[2] - ox) // k)), min(fh, -(-(box[3] - oy) // k))
    if j1 <= j0 or i1 <= i0:
        return (0, 0, 0, 0), None
    if (j1 - j0) * (i1 - i0) > PATCH_SHARE * fw * fh:
        return None
    return (j0, i0, j1, i1), (ox + j0 * k, oy + i0 * k, ox + j1 * k, oy + i1 * k)


def patch_reduced(previous: np.ndarray, img: Image.Image, region: tuple, size: tuple[int, int], k: int,
                  phase: tuple[int, int]) -> np.ndarray:
    """``block_reduce(img, size, k, phase)`` when it equals ``previous`` outside ``region``
    (:func:`reduced_region`) and ``img`` is up to date inside it: only the region's blocks are reduced
    (each output pixel averages its own block, so they come out as a whole reduction makes them), and the
    edge rows and columns that repeat a neighbour are repeated again."""
    (j0, i0, j1, i1), box = region
    _ox, _oy, fw, fh, pad_l, pad_t = _blocks((img.height, img.width), size, k, phase)
    out = np.array(previous)
    core = out[pad_t: pad_t + fh, pad_l: pad_l + fw]
    core[i0:i1, j0:j1] = np.asarray(img.reduce(k, box=box).convert("RGB"))
    return np.ascontiguousarray(_pad_edges(core, size, pad_l, pad_t))


@functools.lru_cache(maxsize=32)  # small: (h+2S)/k × (w+2S)/k each
def _scaled_keep(w: int, h: int, opacity: int, size: tuple[int, int], k: int, phase: tuple[int, int]) -> np.ndarray:
    if w < _SHADOW_REFERENCE or h < _SHADOW_REFERENCE:
        out = block_resize(_shadow_keep(w, h, opacity), size, k, phase)
    else:  # as _shadow_keep, at 1/k: the downscaled reference's middle row and column repeated to the size
        ref = _scaled_reference(opacity, k)
        tw, th = size
        rh, rw = ref.shape
        mid_x, mid_y = rw // 2, rh // 2
        cols = np.concatenate([np.arange(mid_x), np.full(max(0, tw - rw), mid_x), np.arange(mid_x, rw)])[:tw]
        rows = np.concatenate([np.arange(mid_y), np.full(max(0, th - rh), mid_y), np.arange(mid_y, rh)])[:th]
        if tw < rw:  # cannot happen for w >= the reference, but keep the right edge where it belongs
            cols = np.concatenate([np.arange(tw - tw // 2), np.arange(rw - tw // 2, rw)])
        if th < rh:
            rows = np.concatenate([np.arange(th - th // 2), np.arange(rh - th // 2, rh)])
        out = ref[np.ix_(rows, cols)]
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=8)
def _scaled_reference(opacity: int, k: int) -> np.ndarray:
    ref = _blurred_keep(_SHADOW_REFERENCE, _SHADOW_REFERENCE, opacity)
    return block_resize(ref, (scaled(ref.shape[1], k), scaled(ref.shape[0], k)), k)


def shadow_scaled(frame: np.ndarray, k: int, x: int, y: int, w: int, h: int, opacity: int = 100,
                  covered: tuple[int, int, int, int] | None = None) -> None:
    """:func:`shadow` of the screen rectangle (x, y, w, h) on a frame composed at 1/k: the blurred
    factor downscaled (cached per size) and applied to the shadow rectangle. ``covered`` (x0, y0, x1, y1
    on the frame) is a box the caller then covers entirely with the window (its rows between the rounded
    corners, see ``paste_window``): it is left as it is, its pixels never show (without it, the whole
    rectangle is darkened)."""
    H, W = frame.shape[:2]
    s = SHADOW
    X0, Y0, X1, Y1 = scaled(x - s, k), scaled(y - s, k), scaled(x + w + s, k), scaled(y + h + s, k)
    if X1 <= X0 or Y1 <= Y0:
        return
    keep = _scaled_keep(w, h, opacity, (X1 - X0, Y1 - Y0), k, (X0 * k - (x - s), Y0 * k - (y - s)))
    c = _clip(X0, Y0, X1, Y1, W, H)
    if c is None:
        return
    fx0, fy0, fx1, fy1 = c
    parts = [(fx0, fy0, fx1, fy1)]
    if covered is not None:
        cx0, cy0, cx1, cy1 = max(covered[0], fx0), max(covered[1], fy0), min(covered[2], fx1), min(covered[3], fy1)
        if cx0 < cx1 and cy0 < cy1:  # the band around the covered box: above, below, left, right of it
            parts = [(fx0, fy0, fx1, cy0), (fx0, cy1, fx1, fy1), (fx0, cy0, cx0, cy1), (cx1, cy0, fx1, cy1)]
    for px0, py0, px1, py1 in parts:
        if px1 <= px0 or py1 <= py0:
            continue
        kk = keep[py0 - Y0: py1 - Y0, px0 - X0: px1 - X0, None]
        region = frame[py0:py1, px0:px1]
        product = np.multiply(region, kk, dtype=np.uint16)
        product >>= 8
        region[:] = product


class Shifted:
    """A drawing context forwarding to ``draw`` with every coordinate moved by (-dx, -dy): code that
    draws in screen coordinates (an open menu) draws into a canvas covering only part of the screen."""

    _XY_FIRST = frozenset({"rectangle", "rounded_rectangle", "line", "ellipse", "polygon", "text", "arc", "chord",
                           "pieslice", "point", "multiline_text", "bitmap"})

    def __init__(self, draw: Any, dx: int, dy: int) -> None:
        self._draw, self._dx, self._dy = draw, dx, dy

    def _shift(self, xy: Any) -> Any:
        if isinstance(xy, (list, tuple)) and xy and isinstance(xy[0], (list, tuple)):
            return [(p[0] - self._dx, p[1] - self._dy) for p in xy]
        if isinstance(xy, (list, tuple)):
            return tuple(v - (self._dx if i % 2 == 0 else self._dy) for i, v in enumerate(xy))
        return xy

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._draw, name)
        if name not in self._XY_FIRST:
            return target

        def shifted(xy: Any, *args: Any, **kwargs: Any) -> Any:
            return target(self._shift(xy), *args, **kwargs)

        return shifted
