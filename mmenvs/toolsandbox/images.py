"""Scenario images: loaded from ``registry/`` or rendered from a generator spec with Pillow.

A generator spec is a JSON object with ``"generator"`` naming the layout and the content to draw.
The content is known to the scenario (so its expected changes can depend on it) but the user
simulator never reads it. Layouts:

* ``receipt``: ``merchant``, ``date``, ``items`` ([[name, price], …]), optional ``tax``; the total is drawn
* ``business_card``: ``name``, ``title``, ``company``, ``phone``, ``email``, optional ``address``
* ``poster``: ``title``, ``lines`` (event details)
* ``product_card``: ``name``, ``price``, optional ``brand``, ``rating``, ``lines``
* ``document``: ``title``, ``lines`` (a memo, a list, a schedule)
* ``chart``: ``title``, ``labels``, ``values`` (a bar chart with value labels)
* ``chat_screenshot``: ``contact``, ``messages`` ([[sender, text], …]) drawn as a phone chat
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mmenvs.core import registry_path

_INK = (25, 25, 30)
_MUTED = (95, 95, 105)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _canvas(width: int, height: int, color: tuple[int, int, int]) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), color)
    return image, ImageDraw.Draw(image)


def _need(spec: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = spec.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ValueError(f"{where}.{key} must be a {expected}, got {value!r}")
    return value


def _receipt(spec: Mapping[str, Any], where: str) -> Image.Image:
    items = _need(spec, "items", list, where)
    for i, item in enumerate(items):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], (int, float))):
            raise ValueError(f"{where}.items[{i}] must be [name, price], got {item!r}")
    tax = float(spec.get("tax", 0.0))
    image, draw = _canvas(380, 170 + 28 * len(items) + (28 if tax else 0), (250, 248, 240))
    draw.text((190, 30), _need(spec, "merchant", str, where), fill=_INK, font=_font(26), anchor="mm")
    draw.text((190, 62), _need(spec, "date", str, where), fill=_MUTED, font=_font(16), anchor="mm")
    y = 100
    draw.line((20, y - 10, 360, y - 10), fill=_MUTED, width=1)
    for name, price in items:
        draw.text((24, y), name, fill=_INK, font=_font(18))
        draw.text((356, y), f"${price:.2f}", fill=_INK, font=_font(18), anchor="ra")
        y += 28
    draw.line((20, y + 4, 360, y + 4), fill=_MUTED, width=1)
    subtotal = sum(p for _, p in items)
    if tax:
        draw.text((24, y + 14), "Tax", fill=_MUTED, font=_font(18))
        draw.text((356, y + 14), f"${tax:.2f}", fill=_MUTED, font=_font(18), anchor="ra")
        y += 28
    draw.text((24, y + 18), "TOTAL", fill=_INK, font=_font(22))
    draw.text((356, y + 18), f"${subtotal + tax:.2f}", fill=_INK, font=_font(22), anchor="ra")
    return image


def _business_card(spec: Mapping[str, Any], where: str) -> Image.Image:
    image, draw = _canvas(520, 300, (245, 247, 252))
    draw.rectangle((0, 0, 14, 300), fill=(40, 90, 170))
    draw.text((40, 40), _need(spec, "name", str, where), fill=_INK, font=_font(32))
    draw.text((40, 84), _need(spec, "title", str, where), fill=_MUTED, font=_font(20))
    draw.text((40, 114), _need(spec, "company", str, where), fill=(40, 90, 170), font=_font(22))
    lines = [f"Tel: {_need(spec, 'phone', str, where)}", f"Email: {_need(spec, 'email', str, where)}"]
    if spec.get("address"):
        lines.append(str(spec["address"]))
    for i, line in enumerate(lines):
        draw.text((40, 180 + 30 * i), line, fill=_INK, font=_font(19))
    return image


def _poster(spec: Mapping[str, Any], where: str) -> Image.Image:
    lines = [str(v) for v in _need(spec, "lines", list, where)]
    image, draw = _canvas(480, 220 + 40 * len(lines), (32, 36, 64))
    draw.text((240, 70), _need(spec, "title", str, where), fill=(255, 214, 90), font=_font(34), anchor="mm")
    for i, line in enumerate(lines):
        draw.text((240, 150 + 40 * i), line, fill=(240, 240, 250), font=_font(22), anchor="mm")
    return image


def _product_card(spec: Mapping[str, Any], where: str) -> Image.Image:
    lines = [str(v) for v in spec.get("lines", [])]
    image, draw = _canvas(420, 300 + 28 * len(lines), (255, 255, 255))
    draw.rectangle((20, 20, 400, 150), fill=(225, 232, 240))
    draw.text((210, 85), spec.get("brand", "") or "PRODUCT", fill=_MUTED, font=_font(22), anchor="mm")
    draw.text((24, 170), _need(spec, "name", str, where), fill=_INK, font=_font(22))
    price = _need(spec, "price", (int, float), where)
    draw.text((24, 205), f"${price:.2f}", fill=(180, 30, 30), font=_font(28))
    if "rating" in spec:
        draw.text((396, 212), f"rating {float(spec['rating']):.1f}/5", fill=_MUTED, font=_font(18), anchor="ra")
    for i, line in enumerate(lines):
        draw.text((24, 255 + 28 * i), line, fill=_INK, font=_font(18))
    return image


def _document(spec: Mapping[str, Any], where: str) -> Image.Image:
    lines = [str(v) for v in _need(spec, "lines", list, where)]
    image, draw = _canvas(560, 130 + 30 * len(lines), (255, 255, 252))
    draw.text((36, 34), _need(spec, "title", str, where), fill=_INK, font=_font(28))
    draw.line((36, 78, 524, 78), fill=_MUTED, width=2)
    for i, line in enumerate(lines):
        draw.text((36, 98 + 30 * i), line, fill=_INK, font=_font(19))
    return image


def _chart(spec: Mapping[str, Any], where: str) -> Image.Image:
    labels = [str(v) for v in _need(spec, "labels", list, where)]
    values = _need(spec, "values", list, where)
    if len(labels) != len(values) or not values or not all(isinstance(v, (int, float)) and v >= 0 for v in values):
        raise ValueError(f"{where}: labels and values must be equally long, non-empty, values non-negative numbers")
    width = max(420, 90 * len(values) + 80)
    image, draw = _canvas(width, 360, (255, 255, 255))
    draw.text((width // 2, 26), _need(spec, "title", str, where), fill=_INK, font=_font(22), anchor="mm")
    top, base = max(values) or 1, 300
    for i, (label, value) in enumerate(zip(labels, values)):
        x = 60 + 90 * i
        height = int(220 * value / top)
        draw.rectangle((x, base - height, x + 56, base), fill=(70, 120, 200))
        draw.text((x + 28, base - height - 16), f"{value:g}", fill=_INK, font=_font(16), anchor="mm")
        draw.text((x + 28, base + 18), label, fill=_INK, font=_font(15), anchor="mm")
    draw.line((50, base, width - 20, base), fill=_INK, width=2)
    return image


def _chat_screenshot(spec: Mapping[str, Any], where: str) -> Image.Image:
    messages = _need(spec, "messages", list, where)
    image, draw = _canvas(420, 110 + 86 * len(messages), (236, 236, 240))
    draw.rectangle((0, 0, 420, 64), fill=(250, 250, 252))
    draw.text((210, 32), _need(spec, "contact", str, where), fill=_INK, font=_font(22), anchor="mm")
    body = _font(17)
    for i, message in enumerate(messages):
        if not (isinstance(message, list) and len(message) == 2 and all(isinstance(m, str) for m in message)):
            raise ValueError(f"{where}.messages[{i}] must be [sender, text], got {message!r}")
        sender, text = message
        mine = sender == "me"
        y = 84 + 86 * i
        width = min(396, int(draw.textlength(text, font=body)) + 28)
        if mine:
            box = (408 - width, y + 18, 408, y + 62)
        else:
            draw.text((14, y), sender, fill=_MUTED, font=_font(14))  # group chats name each sender
            box = (12, y + 18, 12 + width, y + 62)
        draw.rounded_rectangle(box, radius=14, fill=(60, 130, 246) if mine else (255, 255, 255))
        draw.text((box[0] + 14, y + 30), text, fill=(255, 255, 255) if mine else _INK, font=body)
    return image


GENERATORS: dict[str, Callable[[Mapping[str, Any], str], Image.Image]] = {
    "receipt": _receipt, "business_card": _business_card, "poster": _poster, "product_card": _product_card,
    "document": _document, "chart": _chart, "chat_screenshot": _chat_screenshot,
}


def render_image(spec: Mapping[str, Any] | str, where: str) -> np.ndarray:
    """The pixels of one scenario image: a registry path (str or {"path": …}) or a generator spec.

    ``where`` names the scenario field for error messages.
    """
    if isinstance(spec, str):
        spec = {"path": spec}
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where} must be a registry path or an object with 'path' or 'generator', got {spec!r}")
    if "path" in spec:
        path = Path(str(spec["path"]))
        full = path if path.is_absolute() else registry_path(*path.parts)
        try:
            with Image.open(full) as image:
                return np.asarray(image.convert("RGB"))
        except OSError as exc:
            raise ValueError(f"{where}: cannot read image file {full}: {exc}") from None
    kind = spec.get("generator")
    if kind not in GENERATORS:
        # The scenario generator registers its "rendered" images when imported; scenario files that use
        # them must load in a process that never imported it, so import it on first need.
        import mmenvs.toolsandbox.generator  # noqa: F401
    if kind not in GENERATORS:
        raise ValueError(f"{where}.generator must be one of {', '.join(GENERATORS)}, got {kind!r}")
    return np.asarray(GENERATORS[kind](spec, where))
