"""Images for the sim's ``sips`` and Image Events (on Pillow): the formats sips reads and writes,
reading a file, the properties ``sips -g`` reports, the transforms (rotate, flip, resample, crop,
pad) and encoding with a format, quality and resolution."""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

from mmenvs.core.budget import DEFAULT_BUDGET, check_limit

from .media_args import UsageError, number_arg

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

# sips -s format values → (Pillow format, typeIdentifier)
IMAGE_FORMATS = {"png": ("PNG", "public.png"), "jpeg": ("JPEG", "public.jpeg"), "tiff": ("TIFF", "public.tiff"),
                 "bmp": ("BMP", "com.microsoft.bmp"), "gif": ("GIF", "com.compuserve.gif")}
_PIL_TO_SIPS = {v[0]: k for k, v in IMAGE_FORMATS.items()}


def read_image(data: bytes, max_pixels: int = DEFAULT_BUDGET.image_pixels) -> tuple["Image.Image", str, tuple[Any, Any]]:
    """The image file ``data`` (read through the home's confined layer) decoded, its format as sips names
    it and its resolution (x, y) in dpi (72 when the file has none). An image over ``max_pixels`` is
    refused from its header, before it is decoded (``BudgetExceeded``). Pillow's errors for a file it
    cannot read pass through: sips and Image Events each say so in their own words."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        check_pixels(im.width, im.height, max_pixels, "the image")
        im.load()
        img = im.copy()
        fmt = _PIL_TO_SIPS.get(im.format or "", (im.format or "").lower())
        dpi = im.info.get("dpi", (72.0, 72.0))
    return img, fmt, dpi


JPEG_QUALITY = {"low": 25, "normal": 50, "high": 75, "best": 100, "default": 85}
SIPS_PROPERTIES = ("pixelWidth", "pixelHeight", "typeIdentifier", "format", "formatOptions", "dpiWidth", "dpiHeight",
                   "samplesPerPixel", "bitsPerSample", "hasAlpha", "space", "profile")


def check_pixels(width: int, height: int, max_pixels: int, what: str) -> None:
    """Refuse an image of ``width`` x ``height`` over the episode budget ``image_pixels``, before it is made."""
    check_limit("image_pixels", max_pixels, int(width) * int(height), f"{what} of {width}x{height} pixels")


def _positive_int(value: str, option: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise UsageError(f"Error: {option} needs a whole number of pixels, got {value!r}\n") from None
    if n <= 0:
        raise UsageError(f"Error: {option} needs a positive number of pixels, got {n}\n")
    return n


def sips_property(img: "Image.Image", key: str, state: dict[str, Any]) -> str | None:
    bands = img.getbands()
    alpha = "A" in bands or (img.mode == "P" and "transparency" in img.info)
    values = {
        "pixelWidth": str(img.width), "pixelHeight": str(img.height),
        "typeIdentifier": IMAGE_FORMATS.get(state["format"], ("", f"public.{state['format']}"))[1],
        "format": state["format"], "formatOptions": state["formatOptions"],
        "dpiWidth": f"{state['dpi'][0]:.3f}", "dpiHeight": f"{state['dpi'][1]:.3f}",
        "samplesPerPixel": str(len(bands) if img.mode != "P" else (4 if alpha else 3)),
        "bitsPerSample": "16" if img.mode.startswith("I;16") else ("1" if img.mode == "1" else "8"),
        "hasAlpha": "yes" if alpha else "no",
        "space": "Gray" if img.mode in ("L", "LA", "1") or img.mode.startswith("I") else "RGB",
        "profile": "Generic Gray Profile" if img.mode in ("L", "LA", "1") else "sRGB IEC61966-2.1",
    }
    return values.get(key)


def sips_transform(img: "Image.Image", name: str, vals: list[str], crop_offset: tuple[int, int] | None,
                   pad_color: str, max_pixels: int = DEFAULT_BUDGET.image_pixels) -> "Image.Image":
    """``img`` after one sips operation; the result's size is checked against ``max_pixels`` (the
    episode budget ``image_pixels``) before any pixel of it is made."""
    from PIL import Image, ImageOps

    if name == "rotate":
        deg = number_arg(vals[0], "--rotate") % 360
        exact = {90.0: Image.Transpose.ROTATE_270, 180.0: Image.Transpose.ROTATE_180, 270.0: Image.Transpose.ROTATE_90}
        if deg == 0:
            return img
        if deg in exact:  # sips turns clockwise; Pillow's named turns are counter-clockwise
            return img.transpose(exact[deg])
        rad = math.radians(deg)
        turned = (math.ceil(abs(img.width * math.cos(rad)) + abs(img.height * math.sin(rad))),
                  math.ceil(abs(img.width * math.sin(rad)) + abs(img.height * math.cos(rad))))
        check_pixels(*turned, max_pixels, "the rotated image")
        fill = (0, 0, 0, 0) if "A" in img.getbands() else "white"
        return img.convert("RGBA" if "A" in img.getbands() else "RGB").rotate(
            -deg, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=fill)
    if name == "flip":
        if vals[0] == "horizontal":
            return ImageOps.mirror(img)
        if vals[0] == "vertical":
            return ImageOps.flip(img)
        raise UsageError(f"Error: --flip takes horizontal or vertical, got {vals[0]!r}\n")
    if name == "resampleMax":
        m = _positive_int(vals[0], "--resampleHeightWidthMax")
        scale = m / max(img.width, img.height)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
    elif name == "resampleWidth":
        w = _positive_int(vals[0], "--resampleWidth")
        size = (w, max(1, round(img.height * w / img.width)))
    elif name == "resampleHeight":
        h = _positive_int(vals[0], "--resampleHeight")
        size = (max(1, round(img.width * h / img.height)), h)
    elif name == "resample":
        size = (_positive_int(vals[1], "--resampleHeightWidth"), _positive_int(vals[0], "--resampleHeightWidth"))
    elif name == "crop":
        h, w = _positive_int(vals[0], "--cropToHeightWidth"), _positive_int(vals[1], "--cropToHeightWidth")
        if crop_offset is not None:
            top, left = crop_offset
        else:
            top, left = (img.height - h) // 2, (img.width - w) // 2
        check_pixels(w, h, max_pixels, "the cropped image")  # a crop larger than the image is padded out
        return img.crop((left, top, left + w, top + h))
    else:  # pad
        h, w = _positive_int(vals[0], "--padToHeightWidth"), _positive_int(vals[1], "--padToHeightWidth")
        check_pixels(max(w, img.width), max(h, img.height), max_pixels, "the padded image")
        base = img.convert("RGBA" if "A" in img.getbands() else "RGB")
        canvas = Image.new(base.mode, (max(w, img.width), max(h, img.height)), "#" + pad_color)
        canvas.paste(base, ((canvas.width - img.width) // 2, (canvas.height - img.height) // 2))
        return canvas
    check_pixels(size[0], size[1], max_pixels, "the resampled image")
    mode = img.mode
    work = img if mode in ("RGB", "RGBA", "L", "LA") else img.convert("RGBA" if "A" in img.getbands() or
                                                                       "transparency" in img.info else "RGB")
    return work.resize(size, Image.Resampling.LANCZOS)


def sips_encode(img: "Image.Image", state: dict[str, Any]) -> bytes:
    fmt = state["format"]
    pil_format = IMAGE_FORMATS[fmt][0] if fmt in IMAGE_FORMATS else None
    if pil_format is None:
        raise UsageError(f"Error: the simulator's sips cannot write {fmt} images; convert with -s format png|jpeg|tiff|bmp|gif\n")
    buf = io.BytesIO()
    dpi = tuple(round(d) for d in state["dpi"])
    if pil_format == "JPEG":
        opt = state["formatOptions"]
        quality = JPEG_QUALITY.get(opt) or min(100, max(1, int(opt.rstrip("%"))))
        rgb = img.convert("L") if img.mode in ("L", "1") else img.convert("RGB")
        rgb.save(buf, format="JPEG", quality=quality, dpi=dpi)
    elif pil_format == "GIF":
        from PIL import Image

        (img if img.mode == "P" else img.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE)).save(buf, format="GIF")
    elif pil_format == "BMP":
        (img if img.mode in ("RGB", "RGBA", "L", "1", "P") else img.convert("RGB")).save(buf, format="BMP")
    else:
        (img if img.mode != "P" or pil_format == "PNG" else img.convert("RGBA")).save(buf, format=pil_format, dpi=dpi)
    return buf.getvalue()
