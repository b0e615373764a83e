"""Fonts for every renderer in the project, from files shipped with a dependency (matplotlib's
DejaVu and STIX families), so text renders identically on every machine and nothing is downloaded.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from PIL import ImageFont

# matplotlib's data folder, found without importing matplotlib (that import costs ~10 MB per process)
FONT_DIR = Path(find_spec("matplotlib").origin).parent / "mpl-data" / "fonts" / "ttf"

# family -> (regular, bold, italic, bold italic) file names
_FAMILIES: dict[str, tuple[str, str, str, str]] = {
    "sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"),
    "serif": ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf"),
    "mono": ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Oblique.ttf", "DejaVuSansMono-BoldOblique.ttf"),
    "stix": ("STIXGeneral.ttf", "STIXGeneralBol.ttf", "STIXGeneralItalic.ttf", "STIXGeneralBolIta.ttf"),
    "typewriter": ("cmtt10.ttf", "cmtt10.ttf", "cmtt10.ttf", "cmtt10.ttf"),
}
FAMILIES = tuple(_FAMILIES)


@lru_cache(maxsize=256)
def font(size: int, family: str = "sans", *, bold: bool = False, italic: bool = False) -> ImageFont.FreeTypeFont:
    """A cached Pillow font: ``family`` in ``FAMILIES``, ``size`` in pixels."""
    if family not in _FAMILIES:
        raise ValueError(f"unknown font family {family!r}; choose one of {', '.join(FAMILIES)}")
    if size < 1:
        raise ValueError(f"font size must be a positive number of pixels, got {size}")
    name = _FAMILIES[family][int(bold) + 2 * int(italic)]
    # BASIC layout: identical glyph placement whether or not libraqm is installed (determinism across
    # machines), and several times faster for the Latin text the renderers draw.
    return ImageFont.truetype(str(FONT_DIR / name), size=int(size), layout_engine=ImageFont.Layout.BASIC)
