"""Render a validated screen to an image with Pillow (a phone-like light theme).

``render_screen`` lays components out top to bottom (``row`` children side by side in equal
columns), draws images referenced by id from the episode's ``ImageStore`` as thumbnails, and
returns the picture together with the bounding box of every interactive element — the metadata the
environment hands to the user with the screen. Output depends only on the screen and the images
(fonts come from ``mmenvs.core.fonts``), so the same screen gives the same bytes on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from mmenvs.core.fonts import font
from mmenvs.core.images import ImageStore

from .schema import ValidatedScreen

WIDTH = 720
MAX_HEIGHT = 4000
PAD = 20
GAP = 12
_BG = (244, 245, 248)
_SURFACE = (255, 255, 255)
_BORDER = (214, 218, 226)
_INK = (28, 30, 36)
_MUTED = (104, 110, 122)
_ACCENT = (34, 96, 214)
_DANGER = (196, 48, 48)
_BADGE = (232, 240, 254)
_SIZES = {"title": 26, "body": 18, "caption": 14}


@dataclass(frozen=True)
class RenderedScreen:
    """The picture of a screen and ``boxes``: element id → ``[x1, y1, x2, y2]`` in pixels."""

    image: Image.Image
    boxes: dict[str, list[int]]


@lru_cache(maxsize=4096)
def _length(text: str, size: int, bold: bool) -> float:
    """Advance width of ``text`` (cached: wrapping measures the same prefixes on every render)."""
    return font(size, bold=bold).getlength(text)


class _Painter:
    def __init__(self, images: ImageStore | None) -> None:
        self.images = images
        self.canvas = Image.new("RGB", (WIDTH, MAX_HEIGHT), _BG)
        self.draw = ImageDraw.Draw(self.canvas)
        self.boxes: dict[str, list[int]] = {}

    # -------------------------------------------------------------- primitives
    def wrap(self, text: str, size: int, width: int, *, bold: bool = False, max_lines: int = 6) -> list[str]:
        lines: list[str] = []
        for paragraph in text.split("\n"):
            current = ""
            for word in paragraph.split(" "):
                trial = f"{current} {word}".strip() if current else word
                if _length(trial, size, bold) <= width or not current:
                    current = trial
                else:
                    lines.append(current)
                    current = word
                while _length(current, size, bold) > width and len(current) > 1:  # one word wider than the box
                    cut = max(1, int(len(current) * width / _length(current, size, bold)) - 1)
                    lines.append(current[:cut])
                    current = current[cut:]
            lines.append(current)
        if len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = lines[-1].rstrip() + " …"
        return lines

    def text(self, text: str, x: int, y: int, width: int, size: int, *, color: tuple[int, int, int] = _INK,
             bold: bool = False, max_lines: int = 6) -> int:
        face = font(size, bold=bold)
        line_height = int(size * 1.35)
        for line in self.wrap(text, size, width, bold=bold, max_lines=max_lines):
            self.draw.text((x, y), line, font=face, fill=color)
            y += line_height
        return y

    def thumbnail(self, image_id: str, x: int, y: int, width: int, height: int) -> tuple[int, int]:
        """Draw ``image_id`` fitted into the box (centred horizontally); return the drawn size."""
        if self.images is None:
            self.draw.rectangle((x, y, x + width, y + height), fill=_BORDER)
            return width, height
        picture = Image.fromarray(self.images.rgb(image_id))
        scale = min(width / picture.width, height / picture.height, 1.0)
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        picture = picture.resize(size, Image.Resampling.BILINEAR)
        left = x + (width - size[0]) // 2
        self.canvas.paste(picture, (left, y))
        self.draw.rectangle((left - 1, y - 1, left + size[0], y + size[1]), outline=_BORDER)
        return size

    def button(self, b: dict[str, Any], x: int, y: int, width: int | None = None) -> tuple[int, int]:
        face = font(17, bold=True)
        label_width = int(_length(b["label"], 17, True))
        w = width if width is not None else min(label_width + 36, WIDTH - 2 * PAD)
        h = 40
        style = b.get("style", "primary")
        if style == "primary":
            self.draw.rounded_rectangle((x, y, x + w, y + h), radius=10, fill=_ACCENT)
            color = (255, 255, 255)
        else:
            edge = _DANGER if style == "danger" else _ACCENT
            self.draw.rounded_rectangle((x, y, x + w, y + h), radius=10, fill=_SURFACE, outline=edge, width=2)
            color = edge
        label = self.wrap(b["label"], 17, w - 16, bold=True, max_lines=1)[0]
        self.draw.text((x + w // 2, y + h // 2), label, font=face, fill=color, anchor="mm")
        self.boxes[b["id"]] = [x, y, x + w, y + h]
        return w, h

    def badge(self, text: str, right: int, y: int) -> int:
        face = font(13, bold=True)
        w = int(_length(text, 13, True)) + 16
        self.draw.rounded_rectangle((right - w, y, right, y + 22), radius=11, fill=_BADGE)
        self.draw.text((right - w // 2, y + 11), text, font=face, fill=_ACCENT, anchor="mm")
        return w

    # -------------------------------------------------------------- components
    def component(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        """Draw ``c`` with its top-left at (x, y) in ``width`` pixels; return the y below it."""
        return getattr(self, f"_{c['type']}")(c, x, y, width)

    def _text(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        style = c.get("style", "body")
        color = _MUTED if style == "caption" else _INK
        return self.text(c["text"], x, y, width, _SIZES[style], color=color, bold=style == "title", max_lines=10)

    def _image(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        _, h = self.thumbnail(c["image"], x, y, width, 280)
        y += h + 4
        if c.get("caption"):
            y = self.text(c["caption"], x, y, width, _SIZES["caption"], color=_MUTED, max_lines=2)
        return y

    def _divider(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        self.draw.line((x, y + 4, x + width, y + 4), fill=_BORDER, width=2)
        return y + 10

    def _button(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        _, h = self.button(c, x, y, None if width >= WIDTH - 2 * PAD else width)
        return y + h

    def _row(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        count = len(c["children"])
        column = (width - GAP * (count - 1)) // count
        bottom = y
        for i, child in enumerate(c["children"]):
            bottom = max(bottom, self.component(child, x + i * (column + GAP), y, column))
        return bottom

    def _card(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        top = y
        inner_x, inner_w = x + 14, width - 28
        y += 14
        text_x, text_w = inner_x, inner_w
        thumb_bottom = y
        if c.get("image"):
            side = min(120, inner_w // 3)
            _, h = self.thumbnail(c["image"], inner_x, y, side, side)
            thumb_bottom = y + h
            text_x, text_w = inner_x + side + 14, inner_w - side - 14
        if c.get("badge"):
            self.badge(c["badge"], x + width - 14, y)
            text_w -= min(text_w // 2, int(_length(c["badge"], 13, True)) + 24)
        y = self.text(c["title"], text_x, y, text_w, 20, bold=True, max_lines=3)
        if c.get("subtitle"):
            y = self.text(c["subtitle"], text_x, y, text_w, 15, color=_MUTED, max_lines=2)
        for line in c.get("lines", []):
            y = self.text(line, text_x, y + 2, text_w, 16, max_lines=2)
        y = max(y, thumb_bottom) + 8
        if c.get("buttons"):
            bx = inner_x
            for b in c["buttons"]:
                w, _ = self.button(b, bx, y, min(inner_w, max(90, int(_length(b["label"], 17, True)) + 36)))
                bx += w + 8
            y += 48
        bottom = y + 6
        self.draw.rounded_rectangle((x, top, x + width, bottom), radius=12, outline=_BORDER, width=2)
        self.boxes[c["id"]] = [x, top, x + width, bottom]
        return bottom

    def _list(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        top = y
        if c.get("label"):
            y = self.text(c["label"], x, y, width, 16, color=_MUTED, bold=True, max_lines=2) + 4
        marker = {"single": "radio", "multiple": "check", "none": None}[c["selection"]]
        for item in c["items"]:
            row_top = y
            tx = x + 14
            if marker is not None:
                cy = y + 24
                if marker == "radio":
                    self.draw.ellipse((tx, cy - 9, tx + 18, cy + 9), outline=_ACCENT, width=2)
                else:
                    self.draw.rectangle((tx, cy - 9, tx + 18, cy + 9), outline=_ACCENT, width=2)
                tx += 30
            right = x + width - 12
            if item.get("image"):
                w, h = self.thumbnail(item["image"], right - 64, y + 8, 64, 64)
                right -= 76
            if item.get("badge"):
                right -= self.badge(item["badge"], right, y + 12) + 8
            y = self.text(item["title"], tx, y + 12, right - tx, 18, bold=True, max_lines=2)
            if item.get("subtitle"):
                y = self.text(item["subtitle"], tx, y, right - tx, 15, color=_MUTED, max_lines=2)
            y = max(y + 10, row_top + (84 if item.get("image") else 48))
            self.draw.rectangle((x, row_top, x + width, y), outline=_BORDER, width=1)
            self.boxes[item["id"]] = [x, row_top, x + width, y]
        self.boxes[c["id"]] = [x, top, x + width, y]
        return y

    def _form(self, c: dict[str, Any], x: int, y: int, width: int) -> int:
        top = y
        y += 12
        inner_x, inner_w = x + 14, width - 28
        for f in c["fields"]:
            field_top = y
            y = self.text(f["label"] + (" *" if f.get("required") else ""), inner_x, y, inner_w, 15, color=_MUTED, bold=True, max_lines=2)
            if f["kind"] == "checkbox":
                self.draw.rectangle((inner_x, y + 2, inner_x + 20, y + 22), outline=_ACCENT, width=2, fill=_ACCENT if f.get("value") else _SURFACE)
                y += 28
            elif f["kind"] == "select":
                ox = inner_x
                for option in f["options"]:
                    face = font(15)
                    w = int(_length(option, 15, False)) + 24
                    if ox + w > inner_x + inner_w and ox > inner_x:
                        ox, y = inner_x, y + 34
                    chosen = f.get("value") == option
                    self.draw.rounded_rectangle((ox, y, ox + w, y + 28), radius=14, outline=_ACCENT, width=1, fill=_BADGE if chosen else _SURFACE)
                    self.draw.text((ox + w // 2, y + 14), option, font=face, fill=_ACCENT, anchor="mm")
                    ox += w + 8
                y += 36
            else:
                self.draw.rounded_rectangle((inner_x, y, inner_x + inner_w, y + 36), radius=6, outline=_BORDER, width=2, fill=_SURFACE)
                shown = "" if f.get("value") is None else str(f["value"])
                placeholder = {"text": "text", "number": "0", "date": "YYYY-MM-DD"}[f["kind"]]
                self.draw.text((inner_x + 10, y + 18), shown or placeholder, font=font(16), fill=_INK if shown else _BORDER, anchor="lm")
                y += 44
            self.boxes[f["id"]] = [inner_x, field_top, inner_x + inner_w, y]
        _, h = self.button(c["submit"], inner_x, y + 4)
        y += h + 18
        self.draw.rounded_rectangle((x, top, x + width, y), radius=12, outline=_BORDER, width=2)
        self.boxes[c["id"]] = [x, top, x + width, y]
        return y


def render_screen(validated: ValidatedScreen, images: ImageStore | None = None) -> RenderedScreen:
    """Draw a validated screen; image ids are read from ``images`` (gray boxes when it is None)."""
    painter = _Painter(images)
    screen = validated.screen
    y = 0
    if screen.get("title"):
        painter.draw.rectangle((0, 0, WIDTH, 64), fill=_SURFACE)
        painter.draw.line((0, 64, WIDTH, 64), fill=_BORDER, width=2)
        painter.text(painter.wrap(screen["title"], 24, WIDTH - 2 * PAD, bold=True, max_lines=1)[0], PAD, 16, WIDTH - 2 * PAD, 24, bold=True, max_lines=1)
        y = 64
    y += PAD
    for child in screen["children"]:
        y = painter.component(child, PAD, y, WIDTH - 2 * PAD) + GAP
        if y > MAX_HEIGHT - 60:  # the rest does not fit: cut the screen (validation bounds make this rare)
            break
    height = min(MAX_HEIGHT, y + PAD)
    return RenderedScreen(painter.canvas.crop((0, 0, WIDTH, height)), painter.boxes)


def screen_array(rendered: RenderedScreen) -> np.ndarray:
    return np.asarray(rendered.image, dtype=np.uint8)
