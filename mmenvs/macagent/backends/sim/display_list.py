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

from typing import Any

from PIL import Image

#: ImageDraw methods that only paint (their effect is a function of their arguments and the pixels below).
PAINT_METHODS = frozenset({"text", "rounded_rectangle", "rectangle", "line", "ellipse", "polygon", "arc", "pieslice",
                           "chord", "point", "multiline_text", "regular_polygon"})


#: Whether windows record display lists (tests turn it off to compare with direct drawing).
enabled = True


class Unrecordable(Exception):
    """The drawing did something a display list cannot replay exactly (e.g. it read pixels back)."""


def _frozen(value: Any) -> Any:
    """``value`` with lists turned into tuples (a later change to a caller's list cannot alter the record)."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, tuple) and any(isinstance(v, list) for v in value):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Image.Image):
        raise Unrecordable("an image passed to a drawing method")
    return value


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


def _image_key(im: Any) -> Any:
    if isinstance(im, Image.Image):
        return ("image", im.mode, im.size, im.tobytes())
    return ("value", _frozen(im))


class DrawRecorder:
    """Stands in for ``theme.Draw`` over a ``size`` canvas: records every painting call in ``ops``."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = (int(size[0]), int(size[1]))
        self.ops: list[tuple] = []  # what the drawing did, comparable with ==
        self._replay: list[tuple] = []  # the same, with the objects a replay needs (images)
        self._image = _ImageHandle(self)

    def record_paste(self, im: Any, box: Any, mask: Any) -> None:
        self.ops.append(("paste", _image_key(im), _frozen(box), None if mask is None else _image_key(mask)))
        self._replay.append(("paste", im, box, mask))

    def __getattr__(self, name: str) -> Any:
        if name not in PAINT_METHODS:
            raise Unrecordable(f"draw.{name} while recording a display list")

        def record(*args: Any, **kwargs: Any) -> None:
            op = (name, tuple(_frozen(a) for a in args), tuple(sorted((k, _frozen(v)) for k, v in kwargs.items())))
            self.ops.append(op)
            self._replay.append(op)

        return record

    def replay(self, img: Image.Image) -> None:
        """Make the recorded calls on ``img`` (a canvas of ``size`` filled with the window background)."""
        from .theme import Draw

        d = Draw(img)
        for op in self._replay:
            if op[0] == "paste":
                _name, im, box, mask = op
                img.paste(im, box, mask)
            else:
                name, args, kwargs = op
                getattr(d, name)(*args, **dict(kwargs))
