"""Display lists: a window's drawing recorded as the calls it makes, compared with the last frame's,
and replayed onto real pixels only when they differ.

A window is redrawn whenever anything its key covers changes (any app or window version bump: a key
press the focused field ignores, a click that selects what was selected). Its pixels, however, are a
pure function of the drawing calls made on a canvas filled with the window's background: the same
calls in the same order with the same arguments give the same pixels. The low-resolution compositor
records the calls (running every widget's drawing code, with its side effects) without rasterising
them, and reuses the last downscaled surface when the list equals the last one; otherwise it replays the
list on the shared canvas, which rasterises exactly what a direct drawing would have.

Anything the recorder cannot account for (reading pixels back, a drawing method it does not know)
raises :class:`Unrecordable` and the window is drawn directly, as before.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import Any

from PIL import Image

#: ImageDraw methods that only paint (their effect is a function of their arguments and the pixels below).
PAINT_METHODS = frozenset({"text", "rounded_rectangle", "rectangle", "line", "ellipse", "polygon", "arc", "pieslice",
                           "chord", "point", "multiline_text", "regular_polygon"})


#: Whether windows record display lists and keep their accessibility lines (tests turn it off to compare
#: with direct drawing and fresh lines).
enabled = True


class Unrecordable(Exception):
    """The drawing did something a display list cannot replay exactly (e.g. it read pixels back)."""


def _frozen(value: list) -> tuple:
    """A list argument (points) as a tuple of tuples: a later change to the caller's list cannot alter the
    record, and the record can be hashed."""
    return tuple(tuple(v) if type(v) is list else v for v in value)


class _ImageHandle:
    """What ``draw._image`` gives a widget while recording: pastes are recorded (with the pasted image's
    content, so an icon re-made with the same pixels compares equal); reading pixels is not possible."""

    def __init__(self, recorder: "DrawRecorder") -> None:
        self._recorder = recorder

    @property
    def size(self) -> tuple[int, int]:
        return self._recorder.size

    @property
    def width(self) -> int:
        return self._recorder.size[0]

    @property
    def height(self) -> int:
        return self._recorder.size[1]

    @property
    def mode(self) -> str:
        return "RGB"

    def paste(self, im: Any, box: Any = None, mask: Any = None) -> None:
        self._recorder.record_paste(im, box, mask)

    def __getattr__(self, name: str) -> Any:
        raise Unrecordable(f"image.{name} while recording a display list")


#: Keys of images that never change (the icon cache's), by id, while they live: an icon row pasted on every
#: redraw is not read back and digested each time.
_frozen_keys: dict[int, tuple] = {}


def _digest_key(im: Image.Image) -> tuple:
    return ("image", im.mode, im.size, hashlib.blake2b(im.tobytes(), digest_size=16).digest())


def register_frozen(im: Image.Image) -> Image.Image:
    """Declare ``im`` immutable (a shared cached image nobody draws on): its record key is computed once."""
    key = id(im)
    if key not in _frozen_keys:
        _frozen_keys[key] = _digest_key(im)
        weakref.finalize(im, _frozen_keys.pop, key, None)
    return im


def _image_key(im: Any) -> Any:
    """What a pasted image contributes to a record: its mode, size and a 128-bit digest of its pixels (the
    pixels themselves would make every record of an icon row hold its own copy)."""
    if isinstance(im, Image.Image):
        known = _frozen_keys.get(id(im))
        return known if known is not None else _digest_key(im)
    return ("value", _frozen(im) if type(im) is list else im)


class DrawRecorder:
    """Stands in for ``theme.Draw`` over a ``size`` canvas: records every painting call in ``ops``."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = (int(size[0]), int(size[1]))
        self.ops: list[tuple] = []  # what the drawing did, comparable with ==
        self._replay: list[tuple] = []  # the same, with the objects a replay needs (images)
        self._image = _ImageHandle(self)

    def record_paste(self, im: Any, box: Any, mask: Any) -> None:
        self.ops.append(("paste", _image_key(im), tuple(box) if type(box) is list else box,
                         None if mask is None else _image_key(mask)))
        self._replay.append(("paste", im, box, mask))

    def __getattr__(self, name: str) -> Any:
        if name not in PAINT_METHODS:
            raise Unrecordable(f"draw.{name} while recording a display list")

        def record(*args: Any, **kwargs: Any) -> None:
            # lists (points) become tuples; keyword order is the call site's (a different order only misses)
            op = (name, tuple(_frozen(a) if type(a) is list else a for a in args),
                  tuple((k, _frozen(v) if type(v) is list else v) for k, v in kwargs.items()) if kwargs else ())
            self.ops.append(op)
            self._replay.append(op)

        return record

    def replay(self, img: Image.Image, within: tuple[int, int, int, int] | None = None) -> None:
        """Make the recorded calls on ``img`` (a canvas of ``size`` filled with the window background).
        With ``within`` (a box), only the calls that may paint inside it: the box's pixels come out as
        a whole replay makes them, the rest of the canvas is left undefined."""
        from .theme import Draw

        d = Draw(img)
        for op, recorded in zip(self._replay, self.ops):
            if within is not None:
                box = op_bbox(recorded)
                if box is not None and (box[2] <= within[0] or box[0] >= within[2] or box[3] <= within[1] or box[1] >= within[3]):
                    continue
            if op[0] == "paste":
                _name, im, box, mask = op
                img.paste(im, box, mask)
            else:
                name, args, kwargs = op
                getattr(d, name)(*args, **dict(kwargs))


# ------------------------------------------------------------------------------ where each call paints
#: Position of the ``width`` argument of each shape method (Pillow's signatures), for the outline's reach.
_WIDTH_AT = {"rectangle": 3, "rounded_rectangle": 4, "ellipse": 3, "line": 2, "polygon": 3, "arc": 4, "pieslice": 5,
             "chord": 5, "regular_polygon": 5, "point": None}
_TEXT_KWARGS = frozenset({"fill", "font", "anchor"})
_bbox_memo: dict[tuple, tuple[int, int, int, int] | None] = {}
_BBOX_MEMO_LIMIT = 8192  # records of a few hundred bytes each: a few MB at most


def _points(xy: Any) -> list[tuple[float, float]]:
    """The points of a Pillow ``xy`` argument: (x0, y0, x1, y1), ((x0, y0), (x1, y1)), [(x, y), …] or flat."""
    items = list(xy)
    if items and isinstance(items[0], (tuple, list)):
        return [(float(p[0]), float(p[1])) for p in items]
    if len(items) % 2:
        raise ValueError("odd number of coordinates")
    return [(float(items[i]), float(items[i + 1])) for i in range(0, len(items), 2)]


def _reach(points: list[tuple[float, float]], pad: float) -> tuple[int, int, int, int]:
    import math

    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (math.floor(min(xs) - pad), math.floor(min(ys) - pad), math.ceil(max(xs) + pad) + 1, math.ceil(max(ys) + pad) + 1)


def _compute_bbox(op: tuple) -> tuple[int, int, int, int] | None:
    name = op[0]
    if name == "paste":
        _name, image_key, box, _mask = op
        if box is None or image_key[0] != "image":
            return None
        if len(box) == 4:
            return int(box[0]), int(box[1]), int(box[2]), int(box[3])
        w, h = image_key[2]
        return int(box[0]), int(box[1]), int(box[0]) + w, int(box[1]) + h
    _name, args, kwargs = op
    kw = dict(kwargs)
    if name == "text":
        from PIL import ImageFont

        from .theme import _text_mask

        if len(args) > 5 or set(kw) - _TEXT_KWARGS:
            return None
        xy, text = args[0], args[1]
        fnt = args[3] if len(args) > 3 else kw.get("font")
        anchor = args[4] if len(args) > 4 else kw.get("anchor")
        if not isinstance(text, str) or not text or "\n" in text or not isinstance(fnt, ImageFont.FreeTypeFont):
            return None
        mask, (ox, oy) = _text_mask(fnt, text, anchor)
        x, y = int(round(xy[0])) + ox, int(round(xy[1])) + oy
        w, h = mask.size
        return x - 1, y - 1, x + w + 1, y + h + 1
    if name not in _WIDTH_AT:
        return None
    at = _WIDTH_AT[name]
    width = kw.get("width", args[at] if at is not None and len(args) > at else 1)
    pad = 2 + (float(width) if isinstance(width, (int, float)) else 0)
    if name == "regular_polygon":
        cx, cy, r = (*args[0][0], args[0][1]) if isinstance(args[0][0], (tuple, list)) else args[0]
        return _reach([(cx - r, cy - r), (cx + r, cy + r)], pad)
    return _reach(_points(args[0]), pad)


def op_bbox(op: tuple) -> tuple[int, int, int, int] | None:
    """A box (x0, y0, x1, y1) outside which the recorded call ``op`` changes no pixel, or None when that
    is not known (the call may paint anywhere)."""
    try:
        return _bbox_memo[op]
    except KeyError:
        pass
    except TypeError:  # an unhashable argument
        return None
    try:
        box = _compute_bbox(op)
    except Exception:  # noqa: BLE001 - an argument form not foreseen: the call may paint anywhere
        box = None
    if len(_bbox_memo) >= _BBOX_MEMO_LIMIT:
        _bbox_memo.clear()
    _bbox_memo[op] = box
    return box


def changed_box(old: list[tuple], new: list[tuple]) -> tuple[int, int, int, int] | None:
    """A box outside which the drawings ``old`` and ``new`` (display lists on the same background) have
    the same pixels: the union of what the calls between their common prefix and suffix paint; None when
    that is not known. (0, 0, 0, 0) when the lists are equal."""
    n_old, n_new = len(old), len(new)
    p = 0
    limit = min(n_old, n_new)
    while p < limit and old[p] == new[p]:
        p += 1
    s = 0
    while s < limit - p and old[n_old - 1 - s] == new[n_new - 1 - s]:
        s += 1
    x0 = y0 = 1 << 30
    x1 = y1 = -(1 << 30)
    for op in (*old[p:n_old - s], *new[p:n_new - s]):
        box = op_bbox(op)
        if box is None:
            return None
        x0, y0, x1, y1 = min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3])
    return (0, 0, 0, 0) if x1 < x0 else (x0, y0, x1, y1)
