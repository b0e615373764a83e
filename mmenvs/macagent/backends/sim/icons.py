"""App, folder and file icons, drawn with Pillow primitives (supersampled for smooth edges) and cached."""

from __future__ import annotations

import functools
import math

from PIL import Image, ImageDraw

from .theme import font

_SS = 3  # supersampling factor


def _canvas(s: int) -> tuple[Image.Image, ImageDraw.ImageDraw, int]:
    S = s * _SS
    img = Image.new("RGBA", (S, S), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img), S


def _squircle(d: ImageDraw.ImageDraw, S: int, top: tuple, bottom: tuple | None = None) -> None:
    """The rounded-square app icon plate, optionally with a vertical two-tone gradient."""
    m = int(S * 0.06)
    r = int(S * 0.22)
    if bottom is None:
        d.rounded_rectangle((m, m, S - m, S - m), r, fill=top)
        return
    mask = Image.new("L", (S, S), 0)
    ImageDraw.Draw(mask).rounded_rectangle((m, m, S - m, S - m), r, fill=255)
    grad = Image.new("RGBA", (S, S))
    gd = ImageDraw.Draw(grad)
    for y in range(S):
        t = y / max(S - 1, 1)
        gd.line((0, y, S, y), fill=tuple(int(top[i] + (bottom[i] - top[i]) * t) for i in range(3)) + (255,))
    d._image.paste(grad, (0, 0), mask)  # noqa: SLF001 - ImageDraw exposes its image only privately


def _finish(img: Image.Image, s: int) -> Image.Image:
    return img.resize((s, s), Image.LANCZOS)


def _finder(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (120, 200, 250), (30, 120, 230))
    m, r = int(S * 0.06), int(S * 0.22)
    # right half lighter face
    mask = Image.new("L", (S, S), 0)
    md = ImageDraw.Draw(mask)
    md.rounded_rectangle((m, m, S - m, S - m), r, fill=255)
    md.rectangle((0, 0, int(S * 0.52), S), fill=0)
    img.paste(Image.new("RGBA", (S, S), (235, 240, 248, 255)), (0, 0), mask)
    w = max(2, S // 28)
    d.line((int(S * 0.52), m, int(S * 0.44), int(S * 0.6), int(S * 0.52), S - m), fill=(20, 40, 80), width=w)
    for ex in (0.32, 0.70):
        d.rounded_rectangle((int(S * ex) - w, int(S * 0.3), int(S * ex) + w, int(S * 0.44)), w, fill=(20, 40, 80))
    d.arc((int(S * 0.22), int(S * 0.42), int(S * 0.8), int(S * 0.78)), 30, 150, fill=(20, 40, 80), width=w)
    return _finish(img, s)


def _safari(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (250, 250, 252), (225, 228, 235))
    c, R = S / 2, S * 0.36
    d.ellipse((c - R, c - R, c + R, c + R), fill=(30, 140, 240))
    R2 = R * 0.86
    d.ellipse((c - R2, c - R2, c + R2, c + R2), fill=(80, 180, 250))
    for k in range(24):
        a = k * math.pi / 12
        d.line((c + math.cos(a) * R2 * 0.85, c + math.sin(a) * R2 * 0.85, c + math.cos(a) * R2, c + math.sin(a) * R2),
               fill=(255, 255, 255), width=max(1, S // 90))
    a = -math.pi / 4
    tip = (c + math.cos(a) * R2 * 0.8, c + math.sin(a) * R2 * 0.8)
    tail = (c - math.cos(a) * R2 * 0.8, c - math.sin(a) * R2 * 0.8)
    side = (math.cos(a + math.pi / 2) * S * 0.06, math.sin(a + math.pi / 2) * S * 0.06)
    d.polygon([tip, (c + side[0], c + side[1]), (c - side[0], c - side[1])], fill=(240, 60, 60))
    d.polygon([tail, (c + side[0], c + side[1]), (c - side[0], c - side[1])], fill=(250, 250, 250))
    return _finish(img, s)


def _mail(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (90, 180, 255), (20, 110, 240))
    x0, y0, x1, y1 = S * 0.2, S * 0.3, S * 0.8, S * 0.7
    d.rectangle((x0, y0, x1, y1), fill=(255, 255, 255))
    d.line((x0, y0, S / 2, S * 0.53, x1, y0), fill=(120, 170, 230), width=max(2, S // 40))
    return _finish(img, s)


def _notes(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (255, 255, 255))
    m, r = int(S * 0.06), int(S * 0.22)
    mask = Image.new("L", (S, S), 0)
    md = ImageDraw.Draw(mask)
    md.rounded_rectangle((m, m, S - m, S - m), r, fill=255)
    md.rectangle((0, int(S * 0.3), S, S), fill=0)
    img.paste(Image.new("RGBA", (S, S), (252, 200, 40, 255)), (0, 0), mask)
    for k in range(4):
        y = S * (0.45 + k * 0.12)
        d.line((S * 0.16, y, S * 0.84, y), fill=(205, 205, 205), width=max(1, S // 60))
    for k in range(12):
        x = S * (0.12 + k * 0.068)
        d.ellipse((x, S * 0.295, x + S * 0.025, S * 0.32), fill=(160, 150, 140))
    return _finish(img, s)


def _reminders(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (255, 255, 255))
    for k, col in enumerate([(10, 122, 255), (255, 60, 48), (255, 149, 0)]):
        y = S * (0.28 + k * 0.22)
        d.ellipse((S * 0.18, y - S * 0.07, S * 0.32, y + S * 0.07), fill=col)
        d.ellipse((S * 0.2, y - S * 0.05, S * 0.30, y + S * 0.05), fill=(255, 255, 255))
        d.ellipse((S * 0.215, y - S * 0.035, S * 0.285, y + S * 0.035), fill=col)
        d.line((S * 0.4, y, S * 0.82, y), fill=(200, 200, 205), width=max(2, S // 40))
    return _finish(img, s)


def _calendar(s: int, day: int = 1, weekday: str = "MON") -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (255, 255, 255))
    f = font(max(6, int(S * 0.14)), "bold")
    d.text((S / 2, S * 0.24), weekday, font=f, fill=(240, 60, 50), anchor="mm")
    f2 = font(max(8, int(S * 0.44)), "regular")
    d.text((S / 2, S * 0.6), str(day), font=f2, fill=(30, 30, 30), anchor="mm")
    return _finish(img, s)


def _clock(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (30, 30, 32))
    c, R = S / 2, S * 0.36
    d.ellipse((c - R, c - R, c + R, c + R), fill=(250, 250, 250))
    for k in range(12):
        a = k * math.pi / 6
        d.line((c + math.cos(a) * R * 0.82, c + math.sin(a) * R * 0.82, c + math.cos(a) * R * 0.95,
                c + math.sin(a) * R * 0.95), fill=(40, 40, 40), width=max(1, S // 70))
    w = max(2, S // 36)
    d.line((c, c, c + R * 0.45 * math.cos(-2.1), c + R * 0.45 * math.sin(-2.1)), fill=(20, 20, 20), width=w)
    d.line((c, c, c + R * 0.7 * math.cos(-0.6), c + R * 0.7 * math.sin(-0.6)), fill=(20, 20, 20), width=w)
    d.line((c, c, c + R * 0.75 * math.cos(1.2), c + R * 0.75 * math.sin(1.2)), fill=(255, 150, 0), width=max(1, w // 2))
    return _finish(img, s)


def _textedit(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (235, 235, 240), (205, 205, 212))
    d.rectangle((S * 0.22, S * 0.16, S * 0.78, S * 0.86), fill=(255, 255, 255), outline=(190, 190, 190))
    for k in range(6):
        y = S * (0.3 + k * 0.09)
        d.line((S * 0.3, y, S * (0.7 if k % 3 else 0.6), y), fill=(150, 150, 155), width=max(1, S // 70))
    d.polygon([(S * 0.62, S * 0.7), (S * 0.86, S * 0.3), (S * 0.92, S * 0.34), (S * 0.68, S * 0.74)], fill=(60, 60, 64))
    return _finish(img, s)


def _terminal(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (70, 70, 74), (30, 30, 32))
    d.rounded_rectangle((S * 0.14, S * 0.16, S * 0.86, S * 0.84), S * 0.06, fill=(18, 18, 18))
    f = font(max(6, int(S * 0.26)), "mono-bold")
    d.text((S * 0.22, S * 0.28), ">_", font=f, fill=(240, 240, 240))
    return _finish(img, s)


def _settings(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    _squircle(d, S, (160, 160, 168), (100, 100, 108))
    c = S / 2
    R1, R2 = S * 0.33, S * 0.25
    pts = []
    for k in range(48):
        a = k * math.pi / 24
        r = R1 if (k // 2) % 2 == 0 else R2
        pts.append((c + math.cos(a) * r, c + math.sin(a) * r))
    d.polygon(pts, fill=(60, 60, 66))
    d.ellipse((c - S * 0.2, c - S * 0.2, c + S * 0.2, c + S * 0.2), fill=(200, 200, 206))
    d.ellipse((c - S * 0.08, c - S * 0.08, c + S * 0.08, c + S * 0.08), fill=(90, 90, 96))
    return _finish(img, s)


def _trash(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    d.rounded_rectangle((S * 0.24, S * 0.22, S * 0.76, S * 0.9), S * 0.04, fill=(215, 218, 225, 235), outline=(150, 150, 160))
    d.rectangle((S * 0.2, S * 0.14, S * 0.8, S * 0.22), fill=(190, 192, 200))
    for k in range(5):
        x = S * (0.32 + k * 0.09)
        d.line((x, S * 0.3, x, S * 0.84), fill=(160, 160, 170), width=max(1, S // 60))
    return _finish(img, s)


def _folder(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    d.rounded_rectangle((S * 0.08, S * 0.2, S * 0.48, S * 0.4), S * 0.05, fill=(80, 160, 230))
    d.rounded_rectangle((S * 0.08, S * 0.28, S * 0.92, S * 0.84), S * 0.06, fill=(110, 190, 245))
    d.line((S * 0.08, S * 0.36, S * 0.92, S * 0.36), fill=(150, 210, 250), width=max(1, S // 40))
    return _finish(img, s)


def _document(s: int) -> Image.Image:
    img, d, S = _canvas(s)
    d.polygon([(S * 0.2, S * 0.08), (S * 0.62, S * 0.08), (S * 0.8, S * 0.26), (S * 0.8, S * 0.92), (S * 0.2, S * 0.92)],
              fill=(255, 255, 255), outline=(170, 170, 175))
    d.polygon([(S * 0.62, S * 0.08), (S * 0.62, S * 0.26), (S * 0.8, S * 0.26)], fill=(220, 220, 225), outline=(170, 170, 175))
    for k in range(5):
        y = S * (0.38 + k * 0.1)
        d.line((S * 0.3, y, S * 0.7, y), fill=(190, 190, 195), width=max(1, S // 60))
    return _finish(img, s)


_DRAWERS = {
    "Finder": _finder,
    "Safari": _safari,
    "Mail": _mail,
    "Notes": _notes,
    "Reminders": _reminders,
    "Clock": _clock,
    "TextEdit": _textedit,
    "Terminal": _terminal,
    "System Settings": _settings,
    "Trash": _trash,
    "folder": _folder,
    "document": _document,
}


@functools.lru_cache(maxsize=256)
def icon(name: str, size: int, day: int = 1, weekday: str = "MON") -> Image.Image:
    """RGBA icon ``name`` (an app name, "Trash", "folder" or "document") at ``size`` px.
    Calendar's icon shows ``weekday`` and ``day`` like the real one. Shared: never draw on it (copy it)."""
    from .display_list import register_frozen

    return register_frozen(_icon(name, size, day, weekday))


def _icon(name: str, size: int, day: int, weekday: str) -> Image.Image:
    if name == "Calendar":
        return _calendar(size, day, weekday)
    if name in _DRAWERS:
        return _DRAWERS[name](size)
    from .apps import APP_MODULES, app_class

    drawn = app_class(name).draw_icon(size) if name in APP_MODULES else None
    if drawn is None:
        raise ValueError(f"no icon named {name!r}")
    return drawn
