"""Look of the simulated desktop: fonts, colours for light and dark appearance, accent colours and
the generated wallpapers. Everything here is cached at module level so that every backend in the
process (and every episode) shares the same fonts and wallpaper bitmaps."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mmenvs.core.fonts import font as core_font

RGB = tuple[int, int, int]

# System Settings' accent colours with the integer macOS stores in AppleAccentColor
# (multicolour is the absence of the key).
ACCENT_COLORS: dict[str, RGB] = {
    "multicolor": (10, 122, 255),
    "blue": (10, 122, 255),
    "purple": (149, 61, 150),
    "pink": (247, 79, 158),
    "red": (224, 56, 62),
    "orange": (247, 130, 27),
    "yellow": (255, 199, 38),
    "green": (98, 186, 70),
    "graphite": (140, 140, 140),
}
ACCENT_CODES: dict[str, int] = {
    "graphite": -1, "red": 0, "orange": 1, "yellow": 2, "green": 3, "blue": 4, "purple": 5, "pink": 6,
}

WALLPAPERS: tuple[str, ...] = ("Sequoia", "Sonoma", "Ventura", "Big Sur", "Graphite", "Blue")


# weight -> (family, bold) of the project's one font loader (DejaVu shipped with matplotlib, BASIC layout)
_FONT_STYLES = {"regular": ("sans", False), "bold": ("sans", True), "mono": ("mono", False), "mono-bold": ("mono", True)}


def font(size: int, weight: str = "regular") -> ImageFont.FreeTypeFont:
    """A TrueType font of ``size`` px; ``weight`` is regular, bold, mono or mono-bold."""
    family, bold = _FONT_STYLES[weight]
    return core_font(size, family, bold=bold)


@functools.lru_cache(maxsize=4096)
def text_width(text: str, size: int, weight: str = "regular") -> int:
    """Rendered width of ``text`` in pixels (cached: layout asks for the same strings often)."""
    return int(round(font(size, weight).getlength(text)))


@dataclass(frozen=True)
class Theme:
    """Colours of one appearance (light or dark) with one accent colour."""

    dark: bool
    accent_name: str = "blue"

    @property
    def key(self) -> tuple[bool, str]:
        return (self.dark, self.accent_name)

    @property
    def accent(self) -> RGB:
        return ACCENT_COLORS.get(self.accent_name, ACCENT_COLORS["blue"])

    @property
    def selection(self) -> RGB:
        """Background of selected rows / text (a lighter accent in light mode)."""
        r, g, b = self.accent
        if self.dark:
            return (int(r * 0.7), int(g * 0.7), int(b * 0.7))
        return (int(r + (255 - r) * 0.55), int(g + (255 - g) * 0.55), int(b + (255 - b) * 0.55))

    # Window chrome and content
    @property
    def window_bg(self) -> RGB:
        return (40, 40, 42) if self.dark else (246, 246, 246)

    @property
    def content_bg(self) -> RGB:
        return (30, 30, 30) if self.dark else (255, 255, 255)

    @property
    def sidebar_bg(self) -> RGB:
        return (46, 44, 50) if self.dark else (232, 230, 236)

    @property
    def titlebar_bg(self) -> RGB:
        return (52, 52, 54) if self.dark else (236, 236, 236)

    @property
    def text(self) -> RGB:
        return (235, 235, 235) if self.dark else (28, 28, 30)

    @property
    def secondary_text(self) -> RGB:
        return (152, 152, 157) if self.dark else (128, 128, 133)

    @property
    def separator(self) -> RGB:
        return (64, 64, 66) if self.dark else (214, 214, 214)

    @property
    def control_bg(self) -> RGB:
        return (88, 88, 92) if self.dark else (255, 255, 255)

    @property
    def control_border(self) -> RGB:
        return (100, 100, 104) if self.dark else (196, 196, 198)

    @property
    def field_bg(self) -> RGB:
        return (28, 28, 30) if self.dark else (255, 255, 255)

    @property
    def menubar_tint(self) -> tuple[int, int, int, int]:
        return (28, 28, 30, 150) if self.dark else (246, 246, 246, 170)

    @property
    def menubar_text(self) -> RGB:
        return (245, 245, 245) if self.dark else (20, 20, 20)

    @property
    def menu_bg(self) -> RGB:
        return (44, 44, 46) if self.dark else (240, 240, 242)

    @property
    def dock_tint(self) -> tuple[int, int, int, int]:
        return (40, 40, 44, 150) if self.dark else (240, 240, 245, 120)

    @property
    def link(self) -> RGB:
        return (82, 156, 255) if self.dark else (0, 102, 204)


def _smooth(t: np.ndarray) -> np.ndarray:
    return t * t * (3 - 2 * t)


def _gradient(w: int, h: int, stops: list[RGB], waves: list[tuple[float, float, float, RGB, float]]) -> np.ndarray:
    """A vertical multi-stop gradient with soft sinusoidal bands (the macOS wallpaper look)."""
    ys = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    xs = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :]
    n = len(stops) - 1
    pos = np.clip(ys * n, 0, n - 1e-6)
    idx = pos.astype(np.int32)
    frac = _smooth(pos - idx)
    cols = np.array(stops, dtype=np.float32)
    img = cols[idx[:, 0]][:, None, :] * (1 - frac[..., None]) + cols[idx[:, 0] + 1][:, None, :] * frac[..., None]
    img = np.broadcast_to(img, (h, w, 3)).copy()
    for base, amp, freq, color, strength in waves:
        curve = base + amp * np.sin(xs * freq * np.pi * 2 + base * 7.0)
        dist = ys - curve
        band = np.exp(-(dist**2) / 0.004) * strength
        under = np.clip(dist * 6, 0, 1) * strength * 0.5
        a = np.clip(band + under, 0, 1)[..., None]
        img = img * (1 - a) + np.array(color, dtype=np.float32) * a
    return np.clip(img, 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=1)  # 4 MB at full screen: only the current one (another takes ~20 ms to render)
def wallpaper(name: str, size: tuple[int, int], dark: bool) -> Image.Image:
    """The named wallpaper rendered at ``size`` (deterministic; cached for the process)."""
    return _render_wallpaper(name, size, dark)


@functools.lru_cache(maxsize=16)
def wallpaper_thumbnail(name: str, size: tuple[int, int], dark: bool) -> Image.Image:
    """A small rendering of the named wallpaper (System Settings' chooser), cached apart from the
    full-screen ones so a chooser full of thumbnails never evicts the desktop's wallpaper."""
    return _render_wallpaper(name, size, dark)


def _render_wallpaper(name: str, size: tuple[int, int], dark: bool) -> Image.Image:
    w, h = size
    if name == "Sequoia":
        stops = [(24, 40, 96), (70, 60, 160), (220, 110, 140)] if not dark else [(8, 14, 40), (36, 28, 90), (110, 50, 90)]
        waves = [(0.55, 0.08, 0.8, (255, 150, 120) if not dark else (150, 70, 90), 0.55),
                 (0.72, 0.06, 1.1, (250, 90, 110) if not dark else (120, 40, 70), 0.6)]
    elif name == "Sonoma":
        stops = [(120, 170, 220), (170, 200, 210), (90, 150, 90)] if not dark else [(20, 40, 70), (40, 60, 80), (20, 60, 40)]
        waves = [(0.62, 0.05, 0.7, (110, 170, 90) if not dark else (30, 80, 50), 0.7),
                 (0.78, 0.04, 1.3, (60, 120, 60) if not dark else (15, 50, 30), 0.8)]
    elif name == "Ventura":
        stops = [(250, 190, 120), (240, 110, 60), (150, 40, 40)] if not dark else [(90, 40, 30), (120, 40, 20), (40, 10, 10)]
        waves = [(0.5, 0.1, 0.6, (255, 210, 150) if not dark else (160, 70, 40), 0.5)]
    elif name == "Big Sur":
        stops = [(60, 80, 170), (200, 100, 160), (250, 170, 120)] if not dark else [(10, 20, 60), (70, 30, 80), (120, 60, 50)]
        waves = [(0.6, 0.07, 0.9, (40, 60, 140) if not dark else (20, 20, 60), 0.6)]
    elif name == "Graphite":
        stops = [(110, 112, 118), (70, 72, 78)] if not dark else [(50, 52, 56), (24, 24, 28)]
        waves = []
    elif name == "Blue":
        stops = [(40, 110, 200), (20, 70, 150)] if not dark else [(16, 50, 110), (8, 24, 60)]
        waves = []
    else:
        raise ValueError(f"unknown wallpaper {name!r}; expected one of {', '.join(WALLPAPERS)}")
    # Generate at a quarter of the size and upscale: smooth gradients lose nothing and it is 16x cheaper.
    small = _gradient(max(w // 4, 1), max(h // 4, 1), stops, waves)
    return Image.fromarray(small, "RGB").resize((w, h), Image.BILINEAR)


def blend(a: RGB, b: RGB, t: float) -> RGB:
    """Linear mix of two colours (t=0 → a, t=1 → b)."""
    return (int(a[0] + (b[0] - a[0]) * t), int(a[1] + (b[1] - a[1]) * t), int(a[2] + (b[2] - a[2]) * t))


# 2048 masks: every label of the screens in use (97.4% hits in a random-policy run, the same with no bound);
# a larger bound only keeps past episodes' labels (names, times), each mask ~1 KB outside Python's heap
@functools.lru_cache(maxsize=2048)
def _text_mask(fnt: ImageFont.FreeTypeFont, text: str, anchor: str | None) -> tuple[Any, tuple[int, int]]:
    """The rendered coverage mask of ``text`` and its offset from the anchor point (cached:
    the same labels are drawn frame after frame, and FreeType rendering dominates a redraw)."""
    return fnt.getmask2(text, "L", anchor=anchor)


class Draw(ImageDraw.ImageDraw):
    """ImageDraw whose single-line ``text`` reuses cached glyph masks (pixel-identical output for
    integer coordinates; other cases fall back to Pillow's path)."""

    def text(self, xy: Any, text: Any, fill: Any = None, font: Any = None, anchor: str | None = None,  # type: ignore[override]
             *args: Any, **kwargs: Any) -> None:
        if (args or kwargs or not isinstance(text, str) or "\n" in text or not text
                or not isinstance(font, ImageFont.FreeTypeFont)):
            super().text(xy, text, fill, font, anchor, *args, **kwargs)
            return
        x, y = int(round(xy[0])), int(round(xy[1]))
        mask, (ox, oy) = _text_mask(font, text, anchor)
        ink = self._getink(fill)[0]
        self.draw.draw_bitmap((x + ox, y + oy), mask, ink)
