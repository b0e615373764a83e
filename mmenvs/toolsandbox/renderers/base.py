"""What every renderer shares: the ``Rendered`` result, a recording canvas, formatting and degradation.

A renderer draws on a :class:`Canvas`. Every string goes through :meth:`Canvas.text`, which

* remembers the pixel box of the string under a fact key (``"total"``, ``"items.2.name"``) so crop
  tools and tests know where a fact is;
* notes strings that are distractors (ads, coupons, unrelated labels);
* reports the call to any active :func:`record_draw_calls` block — the test hook that proves a fact
  string really went onto the image.

:func:`finish` then applies the difficulty-scaled degradation (lighting, contrast, rotation and
perspective, blur, noise, JPEG artefacts) with every random draw taken from the renderer's
``np.random.Generator``, moves the fact boxes with the geometry, and fits the result to ``size``.
"""

from __future__ import annotations

import copy
import json
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping, Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mmenvs.core.fonts import font

Box = tuple[int, int, int, int]
RGB = tuple[int, int, int]

#: Degradation styles: a photo of a physical object, a scanned page, or a digital capture.
MODES = ("photo", "scan", "digital")


@dataclass
class Rendered:
    """One rendered image and everything known about it.

    ``image``: H×W×3 uint8 RGB. ``kind``: the renderer's name. ``facts``: every fact drawn on the
    image that a scenario may ask about (JSON-serialisable; numbers are numbers, dates ISO-8601, money
    a number plus a ``currency`` field). ``distractors``: text drawn that is not a fact to use (ads,
    coupons, slogans). ``boxes``: pixel boxes ``(x0, y0, x1, y1)`` of key facts in the final image,
    keyed by a dotted path into ``facts`` (``"total"``, ``"items.0.name"``).
    """

    image: np.ndarray
    kind: str
    facts: dict[str, Any]
    distractors: list[str] = field(default_factory=list)
    boxes: dict[str, Box] = field(default_factory=dict)


# ------------------------------------------------------------------------------------ test hook
@dataclass(frozen=True)
class DrawCall:
    """One string drawn on a canvas: its text, the fact key it shows (or None), whether it is a
    distractor, and its box on the canvas before degradation (None when unknown)."""

    text: str
    key: str | None
    distractor: bool
    box: Box | None = None


_RECORDERS: list[list[DrawCall]] = []


@contextmanager
def record_draw_calls() -> Iterator[list[DrawCall]]:
    """Collect every string drawn while the block runs (used by tests to prove facts are drawn)."""
    calls: list[DrawCall] = []
    _RECORDERS.append(calls)
    try:
        yield calls
    finally:
        _RECORDERS.remove(calls)


# ------------------------------------------------------------------------------------ formatting
CURRENCY_SYMBOLS: dict[str, str] = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "CA$", "AUD": "A$", "JPY": "¥"}


def money(amount: float, currency: str = "USD", *, symbol: bool = True) -> str:
    """``12.5, "USD"`` → ``"$12.50"`` (JPY without decimals); with ``symbol=False`` just ``"12.50"``."""
    if currency not in CURRENCY_SYMBOLS:
        raise ValueError(f"unknown currency {currency!r}; expected one of {', '.join(CURRENCY_SYMBOLS)}")
    text = f"{amount:,.0f}" if currency == "JPY" else f"{amount:,.2f}"
    return CURRENCY_SYMBOLS[currency] + text if symbol else text


def number(value: float, decimals: int | None = None) -> str:
    """A number as people print it: integers without decimals, thousands separated."""
    if decimals is None:  # as many decimals as the value has (up to 4), so 8.875 stays 8.875
        decimals = next((k for k in range(5) if round(float(value), k) == float(value)), 4)
    return f"{value:,.{decimals}f}"


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def parse_date(iso: str, where: str) -> tuple[int, int, int]:
    """``"2026-03-14"`` → (2026, 3, 14); a clear error naming ``where`` otherwise."""
    import datetime as _dt

    try:
        d = _dt.date.fromisoformat(iso)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: expected an ISO date YYYY-MM-DD, got {iso!r}") from None
    return d.year, d.month, d.day


def date_text(iso: str, style: str, where: str = "date") -> str:
    """Print an ISO date in one of the styles people use: ``us`` 03/14/2026, ``long`` March 14, 2026,
    ``short`` Mar 14, 2026, ``weekday`` Saturday, March 14, ``iso`` 2026-03-14, ``eu`` 14.03.2026."""
    import datetime as _dt

    y, m, d = parse_date(iso, where)
    wd = WEEKDAYS[_dt.date(y, m, d).weekday()]
    styles = {
        "us": f"{m:02d}/{d:02d}/{y}",
        "long": f"{MONTHS[m - 1]} {d}, {y}",
        "short": f"{MONTHS[m - 1][:3]} {d}, {y}",
        "weekday": f"{wd}, {MONTHS[m - 1]} {d}, {y}",
        "dayfirst": f"{d} {MONTHS[m - 1]} {y}",
        "iso": iso,
        "eu": f"{d:02d}.{m:02d}.{y}",
    }
    if style not in styles:
        raise ValueError(f"unknown date style {style!r}; expected one of {', '.join(styles)}")
    return styles[style]


def time_text(hhmm: str, twelve_hour: bool, where: str = "time") -> str:
    """``"19:30"`` → ``"7:30 PM"`` (12 h) or ``"19:30"``."""
    try:
        h, m = (int(p) for p in hhmm.split(":"))
        if not (0 <= h < 24 and 0 <= m < 60) or len(hhmm.split(":")[1]) != 2:
            raise ValueError
    except (AttributeError, ValueError):
        raise ValueError(f"{where}: expected a time HH:MM (24 h), got {hhmm!r}") from None
    if not twelve_hour:
        return f"{h:02d}:{m:02d}"
    return f"{(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"


# ------------------------------------------------------------------------------------ canvas
def union(a: Box | None, b: Sequence[float]) -> Box:
    """The smallest box holding ``a`` (may be None) and ``b``."""
    bx = (int(math.floor(b[0])), int(math.floor(b[1])), int(math.ceil(b[2])), int(math.ceil(b[3])))
    if a is None:
        return bx
    return (min(a[0], bx[0]), min(a[1], bx[1]), max(a[2], bx[2]), max(a[3], bx[3]))


class Canvas:
    """A Pillow RGB image plus the bookkeeping of what was drawn where."""

    def __init__(self, width: int, height: int, background: RGB | Image.Image) -> None:
        if isinstance(background, Image.Image):
            self.img = background.convert("RGB")
        else:
            self.img = Image.new("RGB", (int(width), int(height)), background)
        self.draw = ImageDraw.Draw(self.img)
        self.boxes: dict[str, Box] = {}
        self.distractors: list[str] = []

    @property
    def width(self) -> int:
        return self.img.width

    @property
    def height(self) -> int:
        return self.img.height

    def text(
        self,
        xy: tuple[float, float],
        s: str,
        fnt: ImageFont.FreeTypeFont,
        fill: RGB,
        *,
        key: str | Sequence[str] | None = None,
        anchor: str = "la",
        distractor: bool = False,
        stroke: int = 0,
    ) -> Box:
        """Draw ``s`` and return its pixel box; ``key`` names the fact it shows."""
        self.draw.text(xy, s, font=fnt, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill)
        box = union(None, self.draw.textbbox(xy, s, font=fnt, anchor=anchor, stroke_width=stroke))
        self.note(s, key, box, distractor)
        return box

    def note(self, s: str, key: str | Sequence[str] | None, box: Sequence[float] | None, distractor: bool = False) -> None:
        """Record a string drawn by other means (per-glyph handwriting, pasted layers).

        ``key`` may name several facts when one string shows them together (``"2 x Oat Milk"``).
        """
        keys: tuple[str | None, ...] = (key,) if key is None or isinstance(key, str) else tuple(key)
        b = union(None, box) if box is not None else None
        for k in keys:
            if k is not None and b is not None:
                self.boxes[k] = union(self.boxes.get(k), b)
            for rec in _RECORDERS:
                rec.append(DrawCall(s, k, distractor, b))
        if distractor:
            self.distractors.append(s)

    def crop_height(self, height: int) -> None:
        """Cut the canvas to ``height`` rows (layouts that size themselves after drawing)."""
        self.img = self.img.crop((0, 0, self.width, max(1, min(int(height), self.height))))
        self.draw = ImageDraw.Draw(self.img)

    def paste(self, layer: Image.Image, xy: tuple[int, int]) -> None:
        """Paste an RGB or RGBA layer (alpha used as mask)."""
        if layer.mode == "RGBA":
            self.img.paste(layer, (int(xy[0]), int(xy[1])), layer)
        else:
            self.img.paste(layer, (int(xy[0]), int(xy[1])))


def text_width(s: str, fnt: ImageFont.FreeTypeFont) -> float:
    """Advance width of ``s`` in pixels."""
    return fnt.getlength(s)


def wrap(s: str, fnt: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """Greedy word wrap of ``s`` to lines no wider than ``max_width``; a word wider than a line is split."""
    lines: list[str] = []
    current = ""
    words: list[str] = []
    for word in s.split():
        while fnt.getlength(word) > max_width and len(word) > 1:  # an over-long token (an email) breaks mid-word
            cut = max(1, max(i for i in range(1, len(word) + 1) if fnt.getlength(word[:i]) <= max_width or i == 1))
            words.append(word[:cut])
            word = word[cut:]
        words.append(word)
    for word in words:
        trial = word if not current else current + " " + word
        if current and fnt.getlength(trial) > max_width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines


def fit_font(s: str, family: str, max_width: float, start: int, minimum: int = 8, *, bold: bool = False,
             italic: bool = False) -> ImageFont.FreeTypeFont:
    """The largest font size ≤ ``start`` at which ``s`` fits in ``max_width``."""
    size = start
    while size > minimum and font(size, family, bold=bold, italic=italic).getlength(s) > max_width:
        size -= 1
    return font(size, family, bold=bold, italic=italic)


def gradient(width: int, height: int, top: RGB, bottom: RGB, *, horizontal: bool = False) -> Image.Image:
    """A linear colour gradient image."""
    n = width if horizontal else height
    t = np.linspace(0.0, 1.0, max(n, 1), dtype=np.float32)[:, None]
    ramp = (np.asarray(top, np.float32) * (1 - t) + np.asarray(bottom, np.float32) * t).astype(np.uint8)
    strip = Image.fromarray(ramp[None, :, :] if horizontal else ramp[:, None, :], "RGB")
    return strip.resize((int(width), int(height)), Image.Resampling.NEAREST)


def shade(color: RGB, factor: float) -> RGB:
    """Darken (factor < 1) or lighten (factor > 1, towards white) a colour."""
    if factor <= 1:
        return tuple(int(round(c * factor)) for c in color)  # type: ignore[return-value]
    t = min(factor - 1, 1.0)
    return tuple(int(round(c + (255 - c) * t)) for c in color)  # type: ignore[return-value]


def luminance(color: RGB) -> float:
    """Relative luminance 0–255 (Rec. 601 weights)."""
    return 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2]


def ink_on(background: RGB, dark: RGB = (20, 20, 24), light: RGB = (250, 250, 250)) -> RGB:
    """The readable text colour (dark or light) for ``background``."""
    return dark if luminance(background) > 140 else light


def pick(rng: np.random.Generator, seq: Sequence[Any]) -> Any:
    """One element of ``seq`` chosen with ``rng``."""
    return seq[int(rng.integers(len(seq)))]


def sample_without(rng: np.random.Generator, seq: Sequence[Any], n: int) -> list[Any]:
    """``n`` distinct elements of ``seq`` in random order."""
    idx = rng.choice(len(seq), size=min(n, len(seq)), replace=False)
    return [seq[int(i)] for i in idx]


class Supersampled:
    """An RGBA layer drawn at ``scale``× and downsampled, for anti-aliased shapes (Pillow draws them aliased)."""

    def __init__(self, width: int, height: int, scale: int = 3) -> None:
        self.scale = scale
        self.size = (int(width), int(height))
        self.img = Image.new("RGBA", (int(width) * scale, int(height) * scale), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.img)

    def s(self, *values: float) -> list[float]:
        """Scale coordinates from layer pixels to the supersampled grid."""
        return [v * self.scale for v in values]

    def result(self) -> Image.Image:
        return self.img.reduce(self.scale)


# ------------------------------------------------------------------------------------ facts plumbing
def prepare(
    kind: str,
    rng: np.random.Generator,
    facts: Mapping[str, Any] | None,
    difficulty: float,
    sample: Callable[[np.random.Generator], dict[str, Any]],
    required: Sequence[str],
    check: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[dict[str, Any], float]:
    """Validate the common arguments, then return (a private copy of the facts, difficulty).

    Without ``facts`` the renderer samples them from ``rng``. Given facts must hold the ``required``
    keys, be JSON-serialisable and pass the kind's ``check`` (e.g. sums that must add up).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"render_{kind}: rng must be a numpy.random.Generator, got {type(rng).__name__}")
    try:
        d = float(difficulty)
    except (TypeError, ValueError):
        raise ValueError(f"render_{kind}: difficulty must be a number in [0, 1], got {difficulty!r}") from None
    if not 0.0 <= d <= 1.0:
        raise ValueError(f"render_{kind}: difficulty must be in [0, 1], got {difficulty!r}")
    if facts is None:
        out = sample(rng)
    else:
        if not isinstance(facts, Mapping):
            raise ValueError(f"render_{kind}: facts must be a dict, got {type(facts).__name__}")
        missing = [k for k in required if k not in facts]
        if missing:
            raise ValueError(f"render_{kind}: facts lack required field(s) {', '.join(missing)}; "
                             f"expected at least {', '.join(required)}")
        out = copy.deepcopy(dict(facts))
    try:
        json.dumps(out, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"render_{kind}: facts must be JSON-serialisable: {exc}") from None
    if check is not None:
        check(out)
    return out, d


def require_sum(parts: Sequence[float], total: float, where: str, tol: float = 0.006) -> None:
    """Raise if ``sum(parts)`` differs from ``total`` by more than rounding."""
    s = float(sum(parts))
    if abs(s - float(total)) > tol:
        raise ValueError(f"{where}: parts sum to {s:.2f} but the stated total is {float(total):.2f}")


def as_number(value: Any, where: str) -> float:
    """``value`` as a float, or a ValueError naming the field."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    return float(value)


# ------------------------------------------------------------------------------------ degradation
def _contrast(arr: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """Scale contrast about mid-grey by ``alpha`` and shift brightness by ``beta``."""
    return cv2.convertScaleAbs(arr, alpha=alpha, beta=128.0 * (1.0 - alpha) + beta)


def _homography(w: int, h: int, rng: np.random.Generator, angle_deg: float, skew: float, zoom: float) -> np.ndarray:
    """Rotation about the centre plus a random corner jitter (perspective), shrunk to stay in frame."""
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    cx, cy = w / 2.0, h / 2.0
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    jitter = rng.uniform(-1.0, 1.0, size=(4, 2)) * skew * np.float32([w, h])
    dst = []
    for (x, y), (jx, jy) in zip(src, jitter):
        dx, dy = x - cx, y - cy
        dst.append([cx + ca * dx - sa * dy + jx, cy + sa * dx + ca * dy + jy])
    dst_arr = np.float32(dst)
    lo, hi = dst_arr.min(axis=0), dst_arr.max(axis=0)
    fit = min(w / (hi[0] - lo[0]), h / (hi[1] - lo[1])) * zoom
    dst_arr = (dst_arr - (lo + hi) / 2.0) * fit + np.float32([cx, cy])
    return cv2.getPerspectiveTransform(src, np.ascontiguousarray(dst_arr, dtype=np.float32))


def _move_boxes(boxes: dict[str, Box], m: np.ndarray, w: int, h: int) -> dict[str, Box]:
    out: dict[str, Box] = {}
    for key, (x0, y0, x1, y1) in boxes.items():
        pts = np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]])
        q = cv2.perspectiveTransform(pts, m)[0]
        out[key] = (max(0, int(math.floor(q[:, 0].min()))), max(0, int(math.floor(q[:, 1].min()))),
                    min(w, int(math.ceil(q[:, 0].max()))), min(h, int(math.ceil(q[:, 1].max()))))
    return out


_NOISE_SIDE = 1536


@lru_cache(maxsize=1)
def _noise_tile() -> np.ndarray:
    """A fixed field of unit Gaussian noise; images take random windows of it (drawing fresh normals
    for every pixel costs more than the whole rest of a render)."""
    return np.random.default_rng(0x5EED).standard_normal((_NOISE_SIDE, _NOISE_SIDE), dtype=np.float32)


def _noise_field(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """An h×w unit-noise field (a copy): a random window of the fixed field, tiled for huge images."""
    tile = _noise_tile()
    if h > _NOISE_SIDE // 2 or w > _NOISE_SIDE // 2:
        tile = np.tile(tile, (-(-2 * h // _NOISE_SIDE), -(-2 * w // _NOISE_SIDE)))
    oy = int(rng.integers(0, tile.shape[0] - h + 1))
    ox = int(rng.integers(0, tile.shape[1] - w + 1))
    return tile[oy:oy + h, ox:ox + w].copy()


def degrade(
    arr: np.ndarray,
    boxes: dict[str, Box],
    rng: np.random.Generator,
    difficulty: float,
    mode: str,
    surface: RGB = (70, 66, 60),
) -> tuple[np.ndarray, dict[str, Box]]:
    """Apply the difficulty-scaled perturbations of ``mode`` and move ``boxes`` along.

    ``photo``: uneven lighting, low contrast, rotation up to ±4°, perspective skew, blur, sensor noise,
    JPEG; the exposed border shows ``surface`` (a table top). ``scan``: contrast, a slight tilt, blur,
    noise, JPEG. ``digital``: dimmed/low contrast, down-and-up scaling and JPEG (a re-shared screenshot).
    Difficulty 0 returns the image untouched. Every random number comes from ``rng``.
    """
    if mode not in MODES:
        raise ValueError(f"unknown degradation mode {mode!r}; expected one of {', '.join(MODES)}")
    if difficulty <= 0.0:
        return arr, boxes
    d = float(difficulty)
    h, w = arr.shape[:2]
    u = rng.uniform(0.0, 1.0, size=8)  # fixed draw count keeps later draws aligned across modes
    out = arr
    # geometry first, so lighting, noise and compression also cover the exposed border
    if mode in ("photo", "scan"):
        angle = (u[0] * 2 - 1) * (4.0 if mode == "photo" else 1.5) * d
        skew = (0.035 if mode == "photo" else 0.006) * d
        zoom = 1.0 - (0.06 if mode == "photo" else 0.02) * d * u[1]
        m = _homography(w, h, rng, angle, skew, zoom)
        border = surface if mode == "photo" else tuple(int(c) for c in arr[2, 2])
        out = cv2.warpPerspective(out, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                  borderValue=tuple(int(c) for c in border))
        boxes = _move_boxes(boxes, m, w, h)
    # contrast and brightness
    alpha = 1.0 - d * (0.35 + 0.3 * u[2])
    beta = (u[3] * 2 - 1) * 25.0 * d
    out = _contrast(out, alpha, beta)
    quality = int(round(92 - 62 * d * (0.5 + 0.5 * u[7])))
    if mode == "digital":
        # a screenshot that was shrunk, compressed when shared, and shown at its old size again
        f = 1.0 - 0.45 * d * u[5]
        small = cv2.resize(out, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
        return cv2.resize(_jpeg(small, quality), (w, h), interpolation=cv2.INTER_LINEAR), boxes
    else:
        sigma = (0.3 + 0.9 * u[5]) * d
        k = 3 if sigma < 0.8 else 5  # a small fixed kernel: OpenCV's default size for these sigmas is 2x wider for no visible gain
        out = cv2.GaussianBlur(out, (k, k), sigmaX=sigma)
        # sensor noise (grey, per pixel) and, for photos, a soft linear shadow, added in one int16 pass
        noise_sd = (4.0 + 8.0 * u[6]) * d
        field = _noise_field(h, w, rng)
        field *= np.float32(noise_sd)
        if mode == "photo":
            gx, gy = math.cos(u[4] * 2 * math.pi), math.sin(u[4] * 2 * math.pi)
            shadow = np.linspace(-gx, gx, w, dtype=np.float32)[None, :] + np.linspace(-gy, gy, h, dtype=np.float32)[:, None]
            field += shadow * np.float32(-12.0 * d) - np.float32(24.0 * d)  # darker towards one side
        f16 = field.astype(np.int16)
        out = cv2.add(out, cv2.merge([f16, f16, f16]), dtype=cv2.CV_8U)  # saturating
    return _jpeg(out, quality), boxes


def _jpeg(rgb: np.ndarray, quality: int) -> np.ndarray:
    """Round-trip through JPEG at ``quality`` (blocking and ringing artefacts)."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # OpenCV's JPEG encoder only fails on invalid input, which a rendered RGB image is not
        raise RuntimeError(f"JPEG encoding failed for an image of shape {rgb.shape}")
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _fit_size(arr: np.ndarray, boxes: dict[str, Box], size: tuple[int, int], pad: RGB) -> tuple[np.ndarray, dict[str, Box]]:
    """Scale to fit ``size`` = (width, height) keeping the aspect ratio; pad with ``pad``."""
    try:
        tw, th = int(size[0]), int(size[1])
    except (TypeError, ValueError, IndexError):
        raise ValueError(f"size must be (width, height) in pixels, got {size!r}") from None
    if tw < 16 or th < 16 or tw > 8192 or th > 8192:
        raise ValueError(f"size must be (width, height) between 16 and 8192 pixels, got {size!r}")
    h, w = arr.shape[:2]
    s = min(tw / w, th / h)
    nw, nh = max(1, int(round(w * s))), max(1, int(round(h * s)))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    scaled = cv2.resize(arr, (nw, nh), interpolation=interp)
    canvas = np.empty((th, tw, 3), np.uint8)
    canvas[:] = pad
    ox, oy = (tw - nw) // 2, (th - nh) // 2
    canvas[oy:oy + nh, ox:ox + nw] = scaled
    moved = {k: (int(ox + b[0] * s), int(oy + b[1] * s), int(math.ceil(ox + b[2] * s)), int(math.ceil(oy + b[3] * s)))
             for k, b in boxes.items()}
    return canvas, moved


def finish(
    kind: str,
    canvas: Canvas,
    facts: dict[str, Any],
    rng: np.random.Generator,
    difficulty: float,
    size: tuple[int, int] | None,
    mode: str,
    surface: RGB = (70, 66, 60),
) -> Rendered:
    """Degrade, resize and package a finished canvas."""
    arr = np.asarray(canvas.img, dtype=np.uint8)
    boxes = dict(canvas.boxes)  # not clipped: a box outside the canvas is a layout bug the tests must see
    arr, boxes = degrade(arr, boxes, rng, difficulty, mode, surface)
    if size is not None:
        # photos extend their table top, scans their paper; screenshots get black bars
        pad = surface if mode == "photo" else (tuple(int(c) for c in arr[0, 0]) if mode == "scan" else (0, 0, 0))
        arr, boxes = _fit_size(arr, boxes, size, pad)
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    return Rendered(image=arr, kind=kind, facts=facts, distractors=list(canvas.distractors), boxes=boxes)
