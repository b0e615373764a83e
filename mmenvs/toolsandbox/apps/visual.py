"""Visual tools (paper Table 13): view, crop, draw a box, resize, rotate, enhance, size, save, show, plot.

They work on image ids of the episode's ``ImageStore``; boxes are ``[x1, y1, x2, y2]`` in 0–1000
coordinates normalised to the image's width and height. A tool that makes an image stores a new
id (with its parent and the operation in the store's lineage); originals never change.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance

from ..tools import tool
from ..world import ToolError, World

_MAX_SIDE = 4096
#: Longest label draw_bbox writes: drawing text costs time superlinear in its length (1 MB took > 75 s).
MAX_LABEL_CHARS = 500
_COLORS = {"red": (230, 30, 30), "green": (20, 170, 60), "blue": (30, 80, 230), "yellow": (240, 200, 0), "black": (0, 0, 0), "white": (255, 255, 255)}


def _pil(world: World, image_id: str) -> Image.Image:
    world.check_image(image_id)
    return Image.fromarray(world.images.rgb(image_id))


def _store(world: World, image: Image.Image, parent: str, op: str, **meta: Any) -> dict[str, Any]:
    new_id = world.images.add(image, parents=[parent], op=op, meta=meta)
    world.visible.add(new_id)
    return {"image_id": new_id, "width": image.width, "height": image.height}


def _box(bbox: list[float], width: int, height: int) -> tuple[int, int, int, int]:
    if len(bbox) != 4:
        raise ToolError(f"bbox must be [x1, y1, x2, y2] in 0-1000 coordinates, got {bbox!r}")
    x1, y1, x2, y2 = bbox
    if not all(0 <= v <= 1000 for v in bbox):
        raise ToolError(f"bbox values must lie in 0-1000 (normalised to the image size), got {bbox!r}")
    if x2 <= x1 or y2 <= y1:
        raise ToolError(f"bbox needs x1 < x2 and y1 < y2, got {bbox!r}")
    box = (int(x1 * width / 1000), int(y1 * height / 1000), int(round(x2 * width / 1000)), int(round(y2 * height / 1000)))
    if box[2] - box[0] < 1 or box[3] - box[1] < 1:
        raise ToolError(f"bbox {bbox!r} is smaller than one pixel on this {width}x{height} image")
    return box


@tool("visual", family="visual_inspect", kind="read")
def view_image(world: World, image_id: str) -> dict[str, Any]:
    """Look at an image: it is shown to you as the observation image of the next step.

    Args:
        image_id: id of the image, e.g. "img_0"
    """
    world.check_image(image_id)
    world.viewed.append(image_id)
    width, height = world.images.record(image_id).size
    return {"image_id": image_id, "width": width, "height": height, "shown": True}


@tool("visual", family="visual_inspect", kind="read")
def get_image_size(world: World, image_id: str) -> dict[str, int]:
    """The width and height of an image in pixels.

    Args:
        image_id: id of the image
    """
    world.check_image(image_id)
    width, height = world.images.record(image_id).size
    return {"width": width, "height": height}


@tool("visual", family="visual_edit")
def crop_image(world: World, image_id: str, bbox: list[float]) -> dict[str, Any]:
    """Crop an image to a box and return the new image's id (zoom in on small text).

    Args:
        image_id: id of the image
        bbox: [x1, y1, x2, y2] in 0-1000 coordinates relative to the image size
    """
    image = _pil(world, image_id)
    box = _box(bbox, image.width, image.height)
    return _store(world, image.crop(box), image_id, "crop", bbox=list(bbox))


@tool("visual", family="visual_edit")
def draw_bbox(world: World, image_id: str, bbox: list[float], color: Literal["red", "green", "blue", "yellow", "black", "white"] = "red",
              label: str | None = None, line_width: int = 3) -> dict[str, Any]:
    """Draw a rectangle (and optional label) on a copy of an image and return the new image's id.

    Args:
        image_id: id of the image
        bbox: [x1, y1, x2, y2] in 0-1000 coordinates
        color: outline colour
        label: text written above the box
        line_width: outline width in pixels (1-20)
    """
    if not 1 <= line_width <= 20:
        raise ToolError(f"line_width must be between 1 and 20, got {line_width}")
    if label is not None and len(label) > MAX_LABEL_CHARS:
        raise ToolError(f"label may hold at most {MAX_LABEL_CHARS} characters (MAX_LABEL_CHARS), got {len(label):,}")
    image = _pil(world, image_id)
    box = _box(bbox, image.width, image.height)
    draw = ImageDraw.Draw(image)
    draw.rectangle(box, outline=_COLORS[color], width=line_width)
    if label:
        draw.text((box[0] + 2, max(0, box[1] - 14)), label, fill=_COLORS[color])
    return _store(world, image, image_id, "draw_bbox", bbox=list(bbox), label=label)


@tool("visual", family="visual_edit")
def resize_image(world: World, image_id: str, width: int, height: int | None = None) -> dict[str, Any]:
    """Resize an image (keeping the aspect ratio when height is omitted) and return the new id.

    Args:
        image_id: id of the image
        width: new width in pixels (1-4096)
        height: new height in pixels (1-4096); omit to keep the aspect ratio
    """
    image = _pil(world, image_id)
    if height is None:
        height = max(1, round(image.height * width / image.width))
    if not (1 <= width <= _MAX_SIDE and 1 <= height <= _MAX_SIDE):
        raise ToolError(f"width and height must be between 1 and {_MAX_SIDE}, got {width}x{height}")
    world.images.check_new(width, height, "resize_image's output")  # the episode's pixel budget, before allocating
    return _store(world, image.resize((width, height), Image.Resampling.LANCZOS), image_id, "resize", size=[width, height])


@tool("visual", family="visual_edit")
def rotate_image(world: World, image_id: str, angle: float) -> dict[str, Any]:
    """Rotate an image counter-clockwise by an angle in degrees (the canvas grows to fit) and return the new id.

    Args:
        image_id: id of the image
        angle: degrees counter-clockwise, e.g. 90 or -90
    """
    if not -360 <= angle <= 360:
        raise ToolError(f"angle must be between -360 and 360, got {angle}")
    world.check_image(image_id)
    width, height = world.images.record(image_id).size
    radians = math.radians(angle)
    cos, sin = abs(math.cos(radians)), abs(math.sin(radians))
    # The expanded canvas grows up to 1.41x per side: checked against the budget before PIL allocates it.
    world.images.check_new(max(1, math.ceil(width * cos + height * sin)), max(1, math.ceil(width * sin + height * cos)), "rotate_image's output")
    image = _pil(world, image_id)
    return _store(world, image.rotate(angle, expand=True, fillcolor=(255, 255, 255)), image_id, "rotate", angle=angle)


@tool("visual", family="visual_edit")
def enhance_image(world: World, image_id: str, contrast: float = 1.8, sharpness: float = 1.5) -> dict[str, Any]:
    """Raise an image's contrast and sharpness (helps with faint text) and return the new id.

    Args:
        image_id: id of the image
        contrast: contrast factor (1 = unchanged, 0.1-5)
        sharpness: sharpness factor (1 = unchanged, 0.1-5)
    """
    if not (0.1 <= contrast <= 5 and 0.1 <= sharpness <= 5):
        raise ToolError("contrast and sharpness must lie between 0.1 and 5")
    image = ImageEnhance.Sharpness(ImageEnhance.Contrast(_pil(world, image_id)).enhance(contrast)).enhance(sharpness)
    return _store(world, image, image_id, "enhance", contrast=contrast, sharpness=sharpness)


@tool("visual", family="visual_share", kind="write")
def save_image(world: World, image_id: str) -> dict[str, str]:
    """Save an image to a temporary file and return its path (use files tools to keep it in the user's files).

    Args:
        image_id: id of the image
    """
    world.check_image(image_id)
    path = f"/tmp/images/{image_id}.png"
    world.saved_paths[path] = image_id
    return {"path": path, "image_id": image_id}


@tool("visual", family="visual_share")
def show_image_to_user(world: World, image_id: str, message: str = "") -> dict[str, Any]:
    """Show an image to the user with an optional message.

    Args:
        image_id: id of the image
        message: text shown with it
    """
    world.check_image(image_id)
    world.shown_to_user.append({"image_id": image_id, "message": message})
    return {"shown": image_id}


@tool("visual", family="visual_share")
def plot(world: World, kind: Literal["bar", "line", "scatter", "pie"], x: list[str | float], y: list[float],
         title: str = "", xlabel: str = "", ylabel: str = "") -> dict[str, Any]:
    """Draw a bar, line, scatter or pie chart with Matplotlib and return it as a new image id.

    Args:
        kind: chart type
        x: categories or x values
        y: values, same length as x
        title: chart title
        xlabel: x-axis label
        ylabel: y-axis label
    """
    if len(x) != len(y) or not x:
        raise ToolError(f"x and y must be non-empty and of equal length, got {len(x)} and {len(y)}")
    if len(x) > 500:
        raise ToolError("at most 500 points")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 4), dpi=100)
    canvas = FigureCanvasAgg(figure)
    axes = figure.subplots()
    labels = [str(v) for v in x]
    if kind == "bar":
        axes.bar(labels, y)
    elif kind == "line":
        axes.plot(x if all(isinstance(v, (int, float)) for v in x) else labels, y, marker="o")
    elif kind == "scatter":
        axes.scatter(x if all(isinstance(v, (int, float)) for v in x) else labels, y)
    else:
        if any(v < 0 for v in y):
            raise ToolError("a pie chart needs non-negative values")
        axes.pie(y, labels=labels)
    axes.set_title(title)
    if kind != "pie":
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
    figure.tight_layout()
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    new_id = world.images.add(pixels, op="plot", meta={"kind": kind, "title": title})
    world.visible.add(new_id)
    return {"image_id": new_id, "width": int(pixels.shape[1]), "height": int(pixels.shape[0])}
