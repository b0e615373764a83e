"""Problem generators: one per VTC-Bench category, each with known answers and a reference chain.

Every generator draws an image whose answer it knows by construction, degrades it the way the paper
does (noise, low light, haze, blur, overexposure, rotation, flips, dense touching objects), and
writes the tool chain that recovers the answer. ``generate`` keeps a problem only if executing its
chain reproduces the answer (``problems.validate_problem``); otherwise it tries the next attempt of
the same seed, so ``(generator, seed, params)`` pins the image exactly and ``render`` can rebuild it.

The answer of an ``expr`` read-out comes from the chain's numbers; the answer of a ``visual`` read-out
(OCR text, a tag's code) is read by eye from the chain's final image, and validation checks that this
image matches the clean rendering (``Draft.target``) closely.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .problems import CATEGORIES, LETTERS, Problem, validate_problem

#: Named colours (RGB) and the HSV ranges (OpenCV units) that select them.
PALETTE: dict[str, tuple[tuple[int, int, int], list[int], list[int]]] = {
    "red": ((220, 30, 30), [170, 90, 60], [8, 255, 255]),
    "orange": ((245, 130, 20), [11, 90, 60], [19, 255, 255]),
    "yellow": ((235, 200, 20), [21, 90, 60], [32, 255, 255]),
    "green": ((30, 170, 60), [45, 90, 60], [80, 255, 255]),
    "cyan": ((20, 190, 200), [85, 90, 60], [100, 255, 255]),
    "blue": ((30, 70, 220), [105, 90, 60], [125, 255, 255]),
    "purple": ((140, 40, 180), [132, 90, 60], [148, 255, 255]),
}
_CODE_ALPHABET = "ACDEFHJKMNPRTUVWXY34679"  # no look-alikes (0/O, 1/I/L, 5/S, 8/B, 2/Z)
MAX_ATTEMPTS = 30


@dataclass
class Draft:
    """A generated problem before validation: image, question, answer, chain, read-out, clean target."""

    image: np.ndarray
    question: str
    answer: str
    choices: list[str] | None
    chain: list[dict[str, Any]]
    readout: dict[str, Any]
    target: np.ndarray | None = None
    truth: Any = None


# ---------------------------------------------------------------------------------------- helpers
@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)  # bundled with Pillow: identical on every machine


def _text(canvas: np.ndarray, xy: tuple[float, float], text: str, size: int, fill: Any, anchor: str = "mm") -> np.ndarray:
    return _texts(canvas, [(xy, text, size, fill, anchor)])


def _texts(canvas: np.ndarray, items: list[tuple[tuple[float, float], str, int, Any, str]]) -> np.ndarray:
    """``canvas`` with every (xy, text, size, fill, anchor) drawn in one PIL pass (one copy, not one per label)."""
    image = Image.fromarray(canvas)
    draw = ImageDraw.Draw(image)
    for xy, text, size, fill, anchor in items:
        draw.text(xy, text, fill=fill, font=_font(size), anchor=anchor)
    return np.array(image)


_NOISE_BANK: np.ndarray | None = None


def _noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """``image`` plus Gaussian noise of std ``sigma``. The noise is a window (at an ``rng``-drawn offset)
    of a fixed, seeded noise field: as random as a fresh draw for these images, ten times cheaper."""
    global _NOISE_BANK
    if sigma <= 0:
        return image
    if _NOISE_BANK is None:
        _NOISE_BANK = np.random.default_rng(20260315).standard_normal((1024, 1024, 3), dtype=np.float32)
    h, w = image.shape[:2]
    oy, ox = int(rng.integers(0, 1024 - h + 1)), int(rng.integers(0, 1024 - w + 1))
    field = _NOISE_BANK[oy : oy + h, ox : ox + w, : (image.shape[2] if image.ndim == 3 else 1)]
    if image.ndim == 2:
        field = field[:, :, 0]
    noisy = field * np.float32(sigma)  # the same float32 arithmetic as image + field·sigma, done in place
    noisy += image
    np.clip(noisy, 0, 255, out=noisy)
    return noisy.astype(np.uint8)


def _step(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


def _code(rng: np.random.Generator, length: int) -> str:
    return "".join(_CODE_ALPHABET[i] for i in rng.integers(0, len(_CODE_ALPHABET), size=length))


def _inrange(color: str, image: str = "$input") -> dict[str, Any]:
    _, lower, upper = PALETTE[color]
    return _step("inrange_color", image=image, lower=list(lower), upper=list(upper), space="hsv")


def numeric_choices(rng: np.random.Generator, truth: float, *, rel: float, min_step: float, fmt: str) -> tuple[list[str], str]:
    """Four ascending options spaced by ``max(rel·truth, min_step)``, the truth at a uniformly drawn rank
    (so guessing a position wins 1 time in 4). Returns the options and the answer letter."""
    step = max(abs(truth) * rel, min_step)
    max_rank = 3 if truth > 0 else 0
    while max_rank > 0 and truth - max_rank * step < 0.5 * step:
        max_rank -= 1  # keep every option clearly positive
    rank = int(rng.integers(0, max_rank + 1))
    values = [truth + (k - rank) * step for k in range(4)]
    options = [fmt.format(v) for v in values]
    if len(set(options)) < 4:
        raise ValueError(f"numeric_choices: options {options} collide; widen the spacing")
    return options, LETTERS[rank]


def categorical_choices(rng: np.random.Generator, truth: str, pool: list[str]) -> tuple[list[str], str]:
    """Four options (the truth and three others from ``pool``) in random order, and the answer letter."""
    others = [p for p in pool if p != truth]
    picked = [others[i] for i in rng.choice(len(others), size=3, replace=False)]
    options = picked + [truth]
    order = rng.permutation(4)
    options = [options[i] for i in order]
    return options, LETTERS[options.index(truth)]


# ---------------------------------------------------------------------------------------- Tier 1: robust OCR
def gen_ocr(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """Degraded rendered text (noise, blur, upside-down, mirrored under haze); open answer."""
    text = _code(rng, int(rng.integers(5, 8)))
    width, height = 360, 110
    clean = _text(np.full((height, width), 255, np.uint8), (width / 2, height / 2), text, 44, 0)
    ink = clean < 128
    background = float(rng.integers(175, 215))
    tint = np.array([1.0, rng.uniform(0.93, 1.0), rng.uniform(0.85, 0.97)], np.float32)
    variant = params.get("variant") or str(rng.choice(["noise", "blur", "upside_down", "mirrored"]))
    if variant == "noise":
        gray = np.where(ink, background - 42, background).astype(np.float32)
        image = _noise(np.clip(gray[:, :, None] * tint, 0, 255).astype(np.uint8), rng, 30)
        chain = [_step("colorspace", image="$input", target="gray"), _step("denoise", image="$0", h=35.0, template_window=7, search_window=11),
                 _step("blur", image="$1", method="median", ksize=3), _step("threshold", image="$2", method="otsu")]
        look = "is drowned in sensor noise"
    elif variant == "blur":
        gray = cv2.GaussianBlur(np.where(ink, background - 95, background).astype(np.float32), (0, 0), 2.2)
        image = _noise(np.clip(gray[:, :, None] * tint, 0, 255).astype(np.uint8), rng, 4)
        chain = [_step("colorspace", image="$input", target="gray"), _step("sharpen", image="$0", strength=3.0, ksize=9),
                 _step("threshold", image="$1", method="otsu")]
        look = "is out of focus"
    elif variant == "upside_down":
        gray = np.where(ink, background - 60, background).astype(np.float32)
        image = _noise(cv2.rotate(np.clip(gray[:, :, None] * tint, 0, 255).astype(np.uint8), cv2.ROTATE_180), rng, 20)
        chain = [_step("rotate", image="$input", angle=180.0), _step("colorspace", image="$0", target="gray"),
                 _step("blur", image="$1", method="median", ksize=5), _step("threshold", image="$2", method="otsu")]
        look = "was photographed upside down on grainy film"
    else:  # mirrored under haze
        gray = np.where(ink, background - 70, background).astype(np.float32) * 0.3 + 0.7 * 238
        image = _noise(cv2.flip(np.clip(gray[:, :, None] * tint, 0, 255).astype(np.uint8), 1), rng, 3)
        chain = [_step("flip", image="$input", direction="horizontal"), _step("colorspace", image="$0", target="gray"),
                 _step("histogram", image="$1", method="clahe", clip_limit=2.0), _step("blur", image="$2", method="median", ksize=5),
                 _step("threshold", image="$3", method="otsu")]
        look = "is seen in a mirror through haze"
    question = f"The text in this image {look}. What exactly does it say? Answer with the characters only."
    return Draft(image, question, text, None, chain, {"kind": "visual", "min_similarity": 0.6}, target=clean, truth=text)


# ---------------------------------------------------------------------------------------- Tier 1: perceptual restoration
_SHAPES = {"triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6, "circle": 0}
_BRIGHT = [(235, 200, 20), (20, 190, 200), (130, 230, 120), (235, 235, 235), (245, 150, 40)]


def _draw_shape(canvas: np.ndarray, shape: str, center: tuple[float, float], radius: float, rotation: float, color: Any) -> None:
    if shape == "circle":
        cv2.circle(canvas, (int(center[0]), int(center[1])), int(radius), color, -1, cv2.LINE_AA)
        return
    n = _SHAPES[shape]
    angles = rotation + np.arange(n) * 2 * math.pi / n
    points = np.stack([center[0] + radius * np.cos(angles), center[1] + radius * np.sin(angles)], axis=1)
    cv2.fillPoly(canvas, [np.round(points).astype(np.int32)], color, cv2.LINE_AA)


def gen_perceptual_restoration(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """One shape in a dark, hazy or speckled photo; which shape is it? (choice)."""
    width, height = 320, 240
    shape = str(rng.choice(list(_SHAPES)))
    background = int(rng.integers(30, 55))
    canvas = np.full((height, width, 3), background, np.uint8)
    color = tuple(int(c) for c in _BRIGHT[int(rng.integers(len(_BRIGHT)))])
    _draw_shape(canvas, shape, (160 + rng.uniform(-30, 30), 120 + rng.uniform(-15, 15)), rng.uniform(62, 88), rng.uniform(0, 2 * math.pi), color)
    variant = params.get("variant") or str(rng.choice(["low_light", "haze", "speckle", "dark_noise"]))
    if variant == "low_light":
        image = _noise((canvas.astype(np.float32) * rng.uniform(0.07, 0.11)).astype(np.uint8), rng, 1.5)
        chain = [_step("convertscaleabs", image="$input", alpha=9.0, beta=0.0), _step("blur", image="$0", method="median", ksize=5),
                 _step("threshold", image="$1", method="otsu")]
        look = "was taken in almost complete darkness"
    elif variant == "haze":
        image = _noise((canvas.astype(np.float32) * 0.25 + 0.75 * 228).astype(np.uint8), rng, 4)
        chain = [_step("histogram", image="$input", method="equalize"), _step("blur", image="$0", method="median", ksize=5),
                 _step("threshold", image="$1", method="otsu")]
        look = "is covered in thick haze"
    elif variant == "speckle":
        image = canvas.copy()
        salt = rng.random((height, width)) < 0.12
        image[salt] = np.where(rng.random((int(salt.sum()), 1)) < 0.5, 0, 255).astype(np.uint8)
        chain = [_step("blur", image="$input", method="median", ksize=5), _step("threshold", image="$0", method="otsu"),
                 _step("morphology", image="$1", operation="open", kernel_size=5, shape="ellipse")]
        look = "is covered in dust specks"
    else:  # dark and noisy
        image = _noise((canvas.astype(np.float32) * 0.12).astype(np.uint8), rng, 4)
        chain = [_step("convertscaleabs", image="$input", alpha=7.0, beta=0.0), _step("denoise", image="$0", h=30.0, template_window=5, search_window=11),
                 _step("threshold", image="$1", method="otsu"), _step("morphology", image="$2", operation="open", kernel_size=5, shape="ellipse")]
        look = "was taken at night with a noisy sensor"
    k = len(chain)
    chain.append(_step("approx_poly", image=f"${k - 1}", mode="external", epsilon_ratio=0.02))
    choices, answer = categorical_choices(rng, shape, list(_SHAPES))
    question = f"This photo {look}. What shape is the object in it?"
    return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": f"shape_name(${k}.vertex_count)"}, truth=shape)


# ---------------------------------------------------------------------------------------- Tier 1: attention focusing
def gen_attention_focusing(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """A tiny red tag with a code in a large cluttered, rotated or mirrored image (open)."""
    width, height = 960, 720
    canvas = np.full((height, width, 3), int(rng.integers(222, 240)), np.uint8)
    tag_w, tag_h = 46, 22
    tx, ty = int(rng.integers(60, width - 60 - tag_w)), int(rng.integers(60, height - 60 - tag_h))
    for _ in range(140):  # desaturated clutter (never red), kept off the tag
        cx, cy, size = int(rng.integers(0, width)), int(rng.integers(0, height)), int(rng.integers(5, 28))
        if tx - size - 8 < cx < tx + tag_w + size + 8 and ty - size - 8 < cy < ty + tag_h + size + 8:
            continue
        base = int(rng.integers(60, 200))
        color = (base, base + int(rng.integers(0, 30)), base + int(rng.integers(0, 45)))
        color = tuple(min(255, c) for c in color)
        if rng.random() < 0.5:
            cv2.circle(canvas, (cx, cy), size // 2, color, -1)
        else:
            cv2.rectangle(canvas, (cx, cy), (cx + size, cy + size // 2), color, -1)
    code = _code(rng, 3)
    tag = _text(np.full((tag_h, tag_w, 3), (215, 25, 30), np.uint8), (tag_w / 2, tag_h / 2), code, 15, (255, 255, 255))
    canvas[ty : ty + tag_h, tx : tx + tag_w] = tag
    target = tag
    variant = params.get("variant") or str(rng.choice(["rot90", "rot180", "rot270", "flip_h", "flip_v"]))
    if variant.startswith("rot"):
        turns = int(variant[3:]) // 90
        image = np.rot90(canvas, turns).copy()  # counter-clockwise quarter turns
        restore = _step("rotate", image="$input", angle=float(90 * turns), clockwise=True)
        look = "was saved rotated"
    else:
        image = cv2.flip(canvas, 1 if variant == "flip_h" else 0)
        restore = _step("flip", image="$input", direction="horizontal" if variant == "flip_h" else "vertical")
        look = "was saved mirrored"
    chain = [restore, _step("colorspace", image="$0", target="hsv"), _inrange("red", "$1"),
             _step("connected_components", image="$2", min_area=300), _step("zoom_in", image="$0", box="$3.components.0.bbox", scale=4.0)]
    question = f"This large photo {look}. Somewhere in it is a small red tag with a three-character code printed on it. What is the code?"
    return Draft(image, question, code, None, chain, {"kind": "visual", "min_similarity": 0.8}, target=target, truth=code)


# ---------------------------------------------------------------------------------------- Tier 2: measurement
def _measure_canvas(rng: np.random.Generator) -> tuple[np.ndarray, int, int]:
    width, height = 480, 360
    canvas = np.full((height, width, 3), 248, np.uint8)
    for g in range(0, width, 40):
        cv2.line(canvas, (g, 0), (g, height - 1), (214, 214, 214), 1)
    for g in range(0, height, 40):
        cv2.line(canvas, (0, g), (width - 1, g), (214, 214, 214), 1)
    bar_px = int(rng.integers(80, 161))
    bar_cm = int(rng.integers(1, 6))
    cv2.rectangle(canvas, (30, height - 44), (30 + bar_px - 1, height - 37), (0, 0, 0), -1)
    canvas = _text(canvas, (30 + bar_px + 12, height - 40), f"{bar_cm} cm", 16, (0, 0, 0), anchor="lm")
    return canvas, bar_px, bar_cm


def gen_measurement(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """Area, length, perimeter or diameter of a coloured object against a scale bar (choice)."""
    canvas, bar_px, bar_cm = _measure_canvas(rng)
    color = str(rng.choice(["red", "green", "blue", "purple", "orange"]))
    rgb = PALETTE[color][0]
    kind = params.get("variant") or str(rng.choice(["area", "length", "perimeter", "diameter"]))
    cm_per_px = bar_cm / bar_px
    if kind == "area" or kind == "perimeter":
        w, h = int(rng.integers(60, 200)), int(rng.integers(50, 160))
        x, y = int(rng.integers(40, 470 - w)), int(rng.integers(20, 300 - h))
        cv2.rectangle(canvas, (x, y), (x + w - 1, y + h - 1), rgb, -1)
        if kind == "area":
            truth, unit, measure = w * h * cm_per_px**2, "cm²", _step("contour_area", image="$3", mode="external")
            expr = f"$4.area * ({bar_cm} / $2.components.0.bbox.2) ** 2"
            what = f"the area of the {color} rectangle"
        else:
            truth, unit, measure = 2 * (w + h) * cm_per_px, "cm", _step("arc_length", image="$3", mode="external")
            expr = f"$4.length * {bar_cm} / $2.components.0.bbox.2"
            what = f"the perimeter of the {color} rectangle"
    elif kind == "diameter":
        r = int(rng.integers(30, 90))
        cx, cy = int(rng.integers(40 + r, 470 - r)), int(rng.integers(20 + r, 300 - r))
        cv2.circle(canvas, (cx, cy), r, rgb, -1)
        truth, unit, measure = (2 * r + 1) * cm_per_px, "cm", _step("contours", image="$3", mode="external")
        expr = f"$4.contours.0.bbox.2 * {bar_cm} / $2.components.0.bbox.2"
        what = f"the diameter of the {color} disc"
    else:
        length = rng.uniform(140, 320)
        angle = rng.uniform(0, math.pi)
        cx, cy = 240 + rng.uniform(-40, 40), 150 + rng.uniform(-30, 30)
        dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
        cv2.line(canvas, (int(cx - dx), int(cy - dy)), (int(cx + dx), int(cy + dy)), rgb, 5)
        truth, unit = length * cm_per_px, "cm"
        measure = _step("hough_lines", image="$3", threshold=40, min_line_length=40.0, max_line_gap=20.0)
        expr = f"$4.lines.0.length * {bar_cm} / $2.components.0.bbox.2"
        what = f"the length of the {color} line"
    image = _noise(cv2.GaussianBlur(canvas, (3, 3), 0), rng, float(rng.uniform(8, 16)))
    chain = [_step("blur", image="$input", method="median", ksize=5),
             _step("inrange_color", image="$0", lower=[0, 0, 0], upper=[80, 80, 80], space="rgb"),
             _step("connected_components", image="$1", min_area=100), _inrange(color, "$0"), measure]
    choices, answer = numeric_choices(rng, truth, rel=0.2, min_step=0.1, fmt="{:.1f} " + unit)
    question = f"The black scale bar is {bar_cm} cm long. What is {what}?"
    return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": expr}, truth=round(truth, 2))


# ---------------------------------------------------------------------------------------- Tier 2: colour
def gen_color(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """Colour proportions under uneven light and blur: a colour's share, or the dominant colour (choice)."""
    width, height = 400, 300
    canvas = np.full((height, width, 3), (236, 232, 224), np.uint8)
    names = [str(n) for n in rng.choice(list(PALETTE), size=3, replace=False)]
    labels = np.zeros((height, width), np.uint8)
    for _ in range(int(rng.integers(6, 12))):
        k = int(rng.integers(0, 3))
        x, y = int(rng.integers(0, width - 40)), int(rng.integers(0, height - 40))
        w, h = int(rng.integers(30, 130)), int(rng.integers(30, 110))
        for target, value in ((canvas, PALETTE[names[k]][0]), (labels, k + 1)):
            cv2.rectangle(target, (x, y), (min(width, x + w) - 1, min(height, y + h) - 1), value, -1)
    fractions = [float(np.mean(labels == k + 1)) for k in range(3)]
    ramp = np.linspace(rng.uniform(0.55, 0.7), 1.0, width if rng.random() < 0.5 else height, dtype=np.float32)
    light = ramp[None, :, None] if ramp.size == width else ramp[:, None, None]
    if rng.random() < 0.5:
        light = light[:, ::-1] if ramp.size == width else light[::-1]
    image = _noise(cv2.GaussianBlur((canvas.astype(np.float32) * light).astype(np.uint8), (5, 5), 0), rng, 8)
    base = [_step("blur", image="$input", method="gaussian", ksize=5), _step("colorspace", image="$0", target="hsv")]
    variant = params.get("variant") or str(rng.choice(["share", "share", "dominant", "dominant", "shade"]))
    if variant == "shade":  # uneven light only: one HSV range, read straight off the photo, is enough
        image = (canvas.astype(np.float32) * light).astype(np.uint8)
        k = int(rng.integers(0, 3))
        truth = 100 * fractions[k]
        if truth < 6:
            raise _Retry(f"{names[k]} covers only {truth:.1f}%")
        choices, answer = numeric_choices(rng, truth, rel=0.25, min_step=4.0, fmt="{:.0f}%")
        question = f"One side of this photo is in shadow. What percentage of the image is {names[k]}?"
        return Draft(image, question, answer, choices, [_inrange(names[k], "$input")], {"kind": "expr", "expr": "$0.fraction * 100"},
                     truth=round(truth, 1))
    if variant == "share":
        k = int(np.argmax(fractions)) if rng.random() < 0.3 else int(rng.integers(0, 3))
        truth = 100 * fractions[k]
        if truth < 6:
            raise _Retry(f"{names[k]} covers only {truth:.1f}%")
        chain = base + [_inrange(names[k], "$1")]
        choices, answer = numeric_choices(rng, truth, rel=0.25, min_step=4.0, fmt="{:.0f}%")
        question = f"The lighting in this photo is uneven. What percentage of the image is {names[k]}?"
        return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": "$2.fraction * 100"}, truth=round(truth, 1))
    order = sorted(range(3), key=lambda i: -fractions[i])
    if fractions[order[0]] < 1.3 * fractions[order[1]]:
        raise _Retry("no clearly dominant colour")
    chain = base + [_inrange(n, "$1") for n in names]
    expr = f"argmax_label({json.dumps(names)}, [$2.fraction, $3.fraction, $4.fraction])"
    pool = names + [str(n) for n in rng.choice([p for p in PALETTE if p not in names], size=1)]
    choices, answer = categorical_choices(rng, names[order[0]], pool)
    question = "The lighting in this photo is uneven. Which colour covers the largest area?"
    return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": expr}, truth=names[order[0]])


# ---------------------------------------------------------------------------------------- Tier 2: counting
def gen_counting(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """Touching and overlapping coins to count (open or choice, ``params["answer_type"]``)."""
    width, height = 400, 300
    canvas = np.full((height, width, 3), (222, 214, 196), np.uint8)
    n_target = int(rng.integers(6, 15))
    coins: list[tuple[float, float, float]] = []
    for _ in range(400):
        if len(coins) == n_target:
            break
        r = rng.uniform(18, 22)
        if coins and rng.random() < 0.4:
            px, py, pr = coins[int(rng.integers(len(coins)))]
            theta = rng.uniform(0, 2 * math.pi)
            d = (r + pr) * rng.uniform(0.82, 0.95)
            x, y = px + d * math.cos(theta), py + d * math.sin(theta)
        else:
            x, y = rng.uniform(r + 4, width - r - 4), rng.uniform(r + 4, height - r - 4)
        if not (r + 4 <= x <= width - r - 4 and r + 4 <= y <= height - r - 4):
            continue
        if all(math.hypot(x - cx, y - cy) >= 0.82 * (r + cr) for cx, cy, cr in coins):
            coins.append((x, y, r))
    touching = sum(1 for i, a in enumerate(coins) for b in coins[i + 1 :] if math.hypot(a[0] - b[0], a[1] - b[1]) < a[2] + b[2])
    if touching == 0:
        raise _Retry("no touching coins")
    for x, y, r in coins:
        shade = int(rng.integers(60, 100))
        cv2.circle(canvas, (int(round(x)), int(round(y))), int(round(r)), (shade + 30, shade + 12, shade - 10), -1, cv2.LINE_AA)
    image = _noise(canvas, rng, 12)
    n = len(coins)
    chain = [_step("colorspace", image="$input", target="gray"), _step("blur", image="$0", method="gaussian", ksize=5),
             _step("threshold", image="$1", method="otsu", invert=True),
             _step("morphology", image="$2", operation="open", kernel_size=5, shape="ellipse"),
             _step("watershed", image="$3", marker_ratio=0.7, min_area=150)]
    question = "How many coins are in this picture? Some of them touch or overlap."
    if params.get("answer_type", "choice") == "open":
        return Draft(image, question + " Answer with a number.", str(n), None, chain, {"kind": "expr", "expr": "$4.count"}, truth=n)
    choices, answer = numeric_choices(rng, float(n), rel=0.0, min_step=1.0, fmt="{:.0f}")
    return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": "$4.count"}, truth=n)


# ---------------------------------------------------------------------------------------- Tier 3: chart
def gen_chart(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """A noisy bar chart without value labels except a grey reference bar (choice)."""
    width, height = 480, 360
    canvas = np.full((height, width, 3), 255, np.uint8)
    x0, base, top = 60, 320, 40
    px_per_unit = (base - top) / 120.0
    labels: list[tuple[tuple[float, float], str, int, Any, str]] = []
    for tick in range(0, 121, 20):
        y = int(round(base - tick * px_per_unit))
        if tick:
            cv2.line(canvas, (x0, y), (width - 20, y), (222, 222, 222), 1)
        labels.append(((x0 - 8, y), str(tick), 12, (0, 0, 0), "rm"))
    n_bars = int(rng.integers(4, 7))
    colors = [str(c) for c in rng.choice(list(PALETTE), size=n_bars - 1, replace=False)]
    ref_value = int(rng.choice([20, 30, 40, 50, 60, 80]))
    values = [int(v) for v in rng.integers(12, 111, size=n_bars - 1)]
    slots = list(rng.permutation(n_bars))
    bar_w = int((width - 20 - x0 - 20) / n_bars * 0.6)
    step = (width - 20 - x0 - 20) / n_bars
    entries = [("grey", ref_value)] + list(zip(colors, values))
    for (name, value), slot in zip(entries, slots):
        left = int(x0 + 20 + slot * step + (step - bar_w) / 2)
        bar_h = int(round(value * px_per_unit))
        rgb = (128, 128, 128) if name == "grey" else PALETTE[name][0]
        cv2.rectangle(canvas, (left, base - bar_h), (left + bar_w - 1, base - 1), rgb, -1)
        if name == "grey":
            labels.append(((left + bar_w / 2, base - bar_h - 12), str(value), 16, (0, 0, 0), "mm"))
    canvas = _texts(canvas, labels)
    cv2.line(canvas, (x0, top - 10), (x0, base), (0, 0, 0), 2)
    cv2.line(canvas, (x0, base), (width - 20, base), (0, 0, 0), 2)
    image = _noise(cv2.GaussianBlur(canvas, (3, 3), 0), rng, float(rng.uniform(10, 20)))
    grey = _step("inrange_color", image="$1", lower=[0, 0, 90], upper=[179, 45, 175], space="hsv")
    head = [_step("blur", image="$input", method="median", ksize=5), _step("colorspace", image="$0", target="hsv")]
    variant = params.get("variant") or str(rng.choice(["value", "difference", "total"]))
    if variant == "total":
        picked = [int(i) for i in rng.choice(n_bars - 1, size=3, replace=False)]
        chain = list(head)
        for i in picked:
            chain += [_inrange(colors[i], "$1"), _step("connected_components", image=f"${len(chain)}", min_area=100)]
        chain += [grey, _step("connected_components", image=f"${len(chain)}", min_area=100)]
        heights = " + ".join(f"${3 + 2 * j}.components.0.bbox.3" for j in range(3))
        expr = f"({heights}) / ${len(chain) - 1}.components.0.bbox.3 * {ref_value}"
        truth = float(sum(values[i] for i in picked))
        choices, answer = numeric_choices(rng, truth, rel=0.15, min_step=10.0, fmt="{:.0f}")
        names = ", ".join(colors[i] for i in picked[:2]) + f" and {colors[picked[2]]}"
        question = f"The grey bar's value is printed above it. What is the total of the {names} bars?"
    elif variant == "value":
        k = int(rng.integers(0, n_bars - 1))
        chain = head + [_inrange(colors[k], "$1"), _step("connected_components", image="$2", min_area=100), grey,
                        _step("connected_components", image="$4", min_area=100)]
        expr = f"$3.components.0.bbox.3 / $5.components.0.bbox.3 * {ref_value}"
        truth = float(values[k])
        choices, answer = numeric_choices(rng, truth, rel=0.2, min_step=6.0, fmt="{:.0f}")
        question = f"The grey bar's value is printed above it. What is the value of the {colors[k]} bar?"
    else:
        order = sorted(range(n_bars - 1), key=lambda i: -values[i])
        a, b = order[0], order[-1]
        truth = float(values[a] - values[b])
        if truth < 20:
            raise _Retry("bars too similar")
        chain = head + [_inrange(colors[a], "$1"), _step("connected_components", image="$2", min_area=100),
                        _inrange(colors[b], "$1"), _step("connected_components", image="$4", min_area=100), grey,
                        _step("connected_components", image="$6", min_area=100)]
        expr = f"($3.components.0.bbox.3 - $5.components.0.bbox.3) / $7.components.0.bbox.3 * {ref_value}"
        choices, answer = numeric_choices(rng, truth, rel=0.25, min_step=8.0, fmt="{:.0f}")
        question = f"The grey bar's value is printed above it. By how much does the {colors[a]} bar exceed the {colors[b]} bar?"
    return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": expr}, truth=truth)


# ---------------------------------------------------------------------------------------- Tier 3: math
def gen_math(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """Geometry that needs constructions: a marked triangle angle, a distance via an auxiliary line,
    a ratio of circle radii (choice)."""
    width, height = 400, 320
    canvas = np.full((height, width, 3), 255, np.uint8)
    variant = params.get("variant") or str(rng.choice(["angle", "distance", "radii"]))
    if variant == "angle":
        while True:
            a0, a1 = rng.uniform(35, 110, size=2)
            if 35 <= 180 - a0 - a1 <= 110:
                break
        angles = [float(a0), float(a1), float(180 - a0 - a1)]
        side = math.sin(math.radians(angles[1])) / math.sin(math.radians(angles[2]))  # |P0P2| for |P0P1| = 1 (law of sines)
        unit = np.array([[0.0, 0.0], [1.0, 0.0], [side * math.cos(math.radians(a0)), -side * math.sin(math.radians(a0))]])
        turn = rng.uniform(0, 2 * math.pi)
        unit = unit @ np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]]).T
        extent = unit.max(axis=0) - unit.min(axis=0)
        size = min(330 / extent[0], 250 / extent[1]) * rng.uniform(0.75, 1.0)
        pts = (unit - unit.min(axis=0)) * size
        pts += np.array([width, height]) / 2 - (pts.max(axis=0) + pts.min(axis=0)) / 2
        if min(np.linalg.norm(pts[i] - pts[(i + 1) % 3]) for i in range(3)) < 120:
            raise _Retry("triangle too small")
        k = int(rng.integers(0, 3))
        cv2.polylines(canvas, [np.round(pts).astype(np.int32)], True, (0, 0, 0), 3, cv2.LINE_AA)
        u, v = pts[k - 1] - pts[k], pts[(k + 1) % 3] - pts[k]
        bisector = u / np.linalg.norm(u) + v / np.linalg.norm(v)
        dot = pts[k] + 42 * bisector / np.linalg.norm(bisector)
        cv2.circle(canvas, (int(dot[0]), int(dot[1])), 5, PALETTE["red"][0], -1, cv2.LINE_AA)
        image = _noise(canvas, rng, 6)
        chain = [_step("colorspace", image="$input", target="gray"), _step("threshold", image="$0", method="binary", threshold_value=100.0, invert=True),
                 _step("approx_poly", image="$1", mode="external", epsilon_ratio=0.03), _inrange("red", "$input"),
                 _step("connected_components", image="$3", min_area=20)]
        truth = angles[k]
        choices, answer = numeric_choices(rng, round(truth), rel=0.0, min_step=12.0, fmt="{:.0f}°")
        question = "What is the interior angle of the triangle at the vertex marked by the red dot, in degrees?"
        expr = "angle_at($2.vertices, $4.components.0.centroid)"
    elif variant == "distance":
        grid = int(rng.choice([30, 40, 50]))
        for g in range(0, width, grid):
            cv2.line(canvas, (g, 0), (g, height - 1), (205, 205, 205), 1)
        for g in range(0, height, grid):
            cv2.line(canvas, (0, g), (width - 1, g), (205, 205, 205), 1)
        p = rng.uniform([20, 20], [380, 300])
        for _ in range(50):
            q = rng.uniform([20, 20], [380, 300])
            if np.linalg.norm(p - q) >= 120:
                break
        else:
            raise _Retry("points too close")
        for point in (p, q):
            cv2.circle(canvas, (int(round(point[0])), int(round(point[1]))), 6, PALETTE["blue"][0], -1, cv2.LINE_AA)
        image = _noise(canvas, rng, 6)
        truth = float(np.linalg.norm(np.round(p) - np.round(q)) / grid)
        chain = [_step("colorspace", image="$input", target="hsv"), _inrange("blue", "$0"), _step("connected_components", image="$1", min_area=20),
                 _step("draw_line", image="$input", start="$2.components.0.centroid", end="$2.components.1.centroid")]
        choices, answer = numeric_choices(rng, round(truth, 1), rel=0.2, min_step=0.5, fmt="{:.1f}")
        question = f"Each grid square is 1 unit wide ({grid} px). How far apart are the centres of the two blue dots, in units?"
        expr = f"$3.length / {grid}"
    else:
        r1 = float(rng.uniform(60, 100))
        r2 = float(rng.uniform(25, r1 / 1.3))
        c1 = rng.uniform([r1 + 10, r1 + 10], [width - r1 - 10, height - r1 - 10])
        for _ in range(50):
            c2 = rng.uniform([r2 + 10, r2 + 10], [width - r2 - 10, height - r2 - 10])
            if np.linalg.norm(c1 - c2) >= r1 + r2 + 15:
                break
        else:
            raise _Retry("circles overlap")
        for c, r in ((c1, r1), (c2, r2)):
            cv2.circle(canvas, (int(round(c[0])), int(round(c[1]))), int(round(r)), (0, 0, 0), 2, cv2.LINE_AA)
        image = _noise(canvas, rng, 14)
        truth = round(r1) / round(r2)
        chain = [_step("blur", image="$input", method="median", ksize=3), _step("colorspace", image="$0", target="gray"),
                 _step("threshold", image="$1", method="binary", threshold_value=128.0, invert=True),
                 _step("contours", image="$2", mode="external", min_area=200.0)]
        choices, answer = numeric_choices(rng, round(truth, 2), rel=0.15, min_step=0.1, fmt="{:.2f}")
        question = "What is the ratio of the larger circle's radius to the smaller circle's radius?"
        expr = "$3.contours.0.bbox.2 / $3.contours.1.bbox.2"
    return Draft(image, question, answer, choices, chain, {"kind": "expr", "expr": expr}, truth=round(float(truth), 2))


# ---------------------------------------------------------------------------------------- Tier 3: spatial
_DIRECTIONS = ["left", "right", "above", "below"]


def _compass(delta: np.ndarray) -> str:
    dx, dy = float(delta[0]), float(delta[1])
    return ("left" if dx < 0 else "right") if abs(dx) > abs(dy) else ("above" if dy < 0 else "below")


def gen_spatial(rng: np.random.Generator, params: dict[str, Any]) -> Draft:
    """Relative position of two coloured objects under overexposure or heavy blur (choice)."""
    width, height = 400, 300
    gray = int(rng.integers(120, 140))
    names = [str(n) for n in rng.choice(["red", "yellow", "green", "blue", "cyan"], size=3, replace=False)]
    wanted = _DIRECTIONS[int(rng.integers(4))]  # drawn first and kept, so every answer letter is equally likely
    for _layout in range(50):
        centers: list[np.ndarray] = []
        for _ in range(300):
            c = rng.uniform([50, 50], [width - 50, height - 50])
            if all(np.linalg.norm(c - o) > 90 for o in centers):
                centers.append(c)
                if len(centers) == 3:
                    break
        clear = [(i, j) for i in range(3) for j in range(3) if i != j and len(centers) == 3
                 and max(abs(centers[i] - centers[j])) >= 1.8 * min(abs(centers[i] - centers[j])) + 1
                 and _compass(centers[i] - centers[j]) == wanted]
        if clear:
            break
    else:
        raise _Retry(f"no layout with a pair clearly {wanted} of another")
    canvas = np.full((height, width, 3), gray, np.uint8)
    for name, c in zip(names, centers):
        _draw_shape(canvas, str(rng.choice(list(_SHAPES))), (float(c[0]), float(c[1])), rng.uniform(24, 36), rng.uniform(0, 6.28), PALETTE[name][0])
    a, b = clear[int(rng.integers(len(clear)))]
    truth = wanted
    variant = params.get("variant") or str(rng.choice(["overexposed", "blurred"]))
    if variant == "overexposed":
        image = _noise(np.clip(canvas.astype(np.int16) + int(rng.integers(110, 125)), 0, 255).astype(np.uint8), rng, 3)
        chain = [_step("convertscaleabs", image="$input", alpha=2.0, beta=-255.0), _step("colorspace", image="$0", target="hsv")]
        look = "is badly overexposed"
    else:
        image = _noise(cv2.GaussianBlur(canvas, (41, 41), 0), rng, 4)
        chain = [_step("blur", image="$input", method="median", ksize=5), _step("colorspace", image="$0", target="hsv")]
        look = "is heavily blurred"
    chain += [_inrange(names[a], "$1"), _step("connected_components", image="$2", min_area=150),
              _inrange(names[b], "$1"), _step("connected_components", image="$4", min_area=150)]
    question = f"This photo {look}. Where is the {names[a]} object relative to the {names[b]} object?"
    answer = LETTERS[_DIRECTIONS.index(truth)]
    return Draft(image, question, answer, list(_DIRECTIONS), chain,
                 {"kind": "expr", "expr": "direction($3.components.0.centroid, $5.components.0.centroid)"}, truth=truth)


# ---------------------------------------------------------------------------------------- driver
class _Retry(Exception):
    """The drawn layout does not make a good problem (too ambiguous); try the next attempt."""


GENERATORS: dict[str, Callable[[np.random.Generator, dict[str, Any]], Draft]] = {
    "ocr": gen_ocr, "perceptual_restoration": gen_perceptual_restoration, "attention_focusing": gen_attention_focusing,
    "measurement": gen_measurement, "color": gen_color, "counting": gen_counting, "chart": gen_chart, "math": gen_math,
    "spatial": gen_spatial,
}
_KEYS = {name: i + 1 for i, name in enumerate(GENERATORS)}
#: The variants each generator draws from (``params["variant"]`` picks one; counting has none).
VARIANTS: dict[str, tuple[str, ...]] = {
    "ocr": ("noise", "blur", "upside_down", "mirrored"), "perceptual_restoration": ("low_light", "haze", "speckle", "dark_noise"),
    "attention_focusing": ("rot90", "rot180", "rot270", "flip_h", "flip_v"), "measurement": ("area", "length", "perimeter", "diameter"),
    "color": ("share", "dominant", "shade"), "counting": (), "chart": ("value", "difference", "total"), "math": ("angle", "distance", "radii"),
    "spatial": ("overexposed", "blurred"),
}
#: Largest seed a problem may name (numpy seeds are non-negative; this keeps them 64-bit).
MAX_SEED = 2**63 - 1


def check_params(name: str, params: Any, where: str = "params") -> dict[str, Any]:
    """``params`` of generator ``name`` checked (a copy): only the keys the generator reads, each of its
    type and range (``variant`` one of the generator's, ``answer_type`` open/choice for counting,
    ``attempt`` 0..MAX_ATTEMPTS-1). Errors are ValueErrors naming ``where``, the key and what was expected:
    an unknown key (``width: 1e9``) is refused, not ignored."""
    if name not in GENERATORS:
        raise ValueError(f"unknown generator {name!r}; known: {', '.join(GENERATORS)}")
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ValueError(f"{where} must be an object, got {type(params).__name__}")
    allowed = ["attempt"] + (["variant"] if VARIANTS[name] else []) + (["answer_type"] if name == "counting" else [])
    unknown = sorted(str(k)[:64] for k in params if k not in allowed)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown} for generator {name!r}; it takes {', '.join(allowed)}")
    attempt = params.get("attempt", 0)
    if isinstance(attempt, bool) or not isinstance(attempt, (int, np.integer)) or not 0 <= attempt < MAX_ATTEMPTS:
        raise ValueError(f"{where}.attempt must be an integer in 0..{MAX_ATTEMPTS - 1}, got {str(attempt)[:64]!r}")
    if "variant" in params and params["variant"] is not None and params["variant"] not in VARIANTS[name]:
        raise ValueError(f"{where}.variant must be one of {', '.join(VARIANTS[name])} for generator {name!r}, got {str(params['variant'])[:64]!r}")
    if "answer_type" in params and params["answer_type"] not in ("open", "choice"):
        raise ValueError(f"{where}.answer_type must be 'open' or 'choice', got {str(params['answer_type'])[:64]!r}")
    return dict(params)


def check_seed(seed: Any, where: str = "seed") -> int:
    """A problem's seed: an integer in 0..MAX_SEED (ValueError naming ``where`` otherwise)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{where} must be an integer in 0..{MAX_SEED}, got {str(seed)[:64]!r}")
    return int(seed)


def build(name: str, seed: int, params: dict[str, Any] | None = None) -> Draft:
    """The draft of generator ``name`` for ``seed`` at ``params["attempt"]`` (default 0), unvalidated.
    Deterministic: the same arguments give the same pixels, question and chain."""
    params = check_params(name, params, f"generator {name!r} params")
    check_seed(seed, f"generator {name!r} seed")
    attempt = int(params.pop("attempt", 0))
    rng = np.random.default_rng([_KEYS[name], int(seed), attempt])
    return GENERATORS[name](rng, params)


_RENDER_CACHE: OrderedDict[str, np.ndarray] = OrderedDict()
_RENDER_CACHE_SIZE = 64


def render(name: str, seed: int, params: dict[str, Any] | None = None) -> np.ndarray:
    """The image of a generated problem (cached: pinned problems are reset often)."""
    key = json.dumps([name, int(seed), params or {}], sort_keys=True)
    cached = _RENDER_CACHE.get(key)
    if cached is not None:
        _RENDER_CACHE.move_to_end(key)
        return cached
    image = build(name, seed, params).image
    image.flags.writeable = False
    _RENDER_CACHE[key] = image
    if len(_RENDER_CACHE) > _RENDER_CACHE_SIZE:
        _RENDER_CACHE.popitem(last=False)
    return image


def generate(name: str, seed: int, params: dict[str, Any] | None = None, *, problem_id: str | None = None,
             validate: bool = True) -> Problem:
    """A problem of generator ``name`` whose reference chain reproduces its answer: attempts 0, 1, …
    of ``seed`` are tried until one validates. The kept attempt is recorded in ``params``."""
    base = {k: v for k, v in (params or {}).items() if k != "attempt"}
    reasons = []
    for attempt in range(MAX_ATTEMPTS):
        full = {**base, "attempt": attempt} if attempt else dict(base)
        try:
            draft = build(name, seed, full)
        except _Retry as why:
            reasons.append(str(why))
            continue
        problem = Problem(id=problem_id or f"gen_{name}_{seed}", category=name, question=draft.question, answer=draft.answer,
                          choices=draft.choices, reference_chain=draft.chain, readout=draft.readout, generator=name, seed=int(seed),
                          params=full, image=draft.image)
        if not validate:
            return problem
        check = validate_problem(problem, draft.image, draft.target)
        if check.ok:
            return problem
        reasons.append(check.detail)
    raise RuntimeError(f"generator {name!r} seed {seed}: no valid problem in {MAX_ATTEMPTS} attempts; last reasons: {reasons[-3:]}")


def sample_problem(rng: np.random.Generator) -> Problem:
    """A fresh validated problem for training: the category drawn with the suite's weights, a new seed."""
    names = list(CATEGORIES)
    weights = np.array([CATEGORIES[n] for n in names], dtype=float)
    name = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    seed = int(rng.integers(1_000_000, 2**31 - 1))  # pinned suite seeds are small; training seeds never collide
    return generate(name, seed, train_params(name, seed), problem_id=f"train_{name}_{seed}")


def train_params(name: str, seed: int) -> dict[str, Any]:
    """Generator parameters of training problem ``train_<name>_<seed>`` (counting alternates open/choice by seed parity)."""
    return {"answer_type": "open" if seed % 2 == 0 else "choice"} if name == "counting" else {}


#: Counting problems with an open answer in the pinned suite (so the suite has 142 open, 538 choice as the paper).
OPEN_COUNTING = 47


def build_suite() -> list[Problem]:
    """The pinned 680-problem suite: the paper's category counts, seeds 0..n-1 per category."""
    problems = []
    for name, count in CATEGORIES.items():
        for seed in range(count):
            params = {"answer_type": "open" if seed < OPEN_COUNTING else "choice"} if name == "counting" else {}
            problem = generate(name, seed, params, problem_id=f"vtc_{name}_{seed:03d}")
            problem.image = None  # the suite stores no pixels
            problems.append(problem)
    return problems


def main(argv: list[str] | None = None) -> None:
    """``python -m mmenvs.vtc.generators [path]``: rebuild the pinned suite file (default: the registry's)."""
    import sys

    from mmenvs.core import registry_path

    from .problems import SUITE_FILE, write_suite

    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else str(registry_path(*SUITE_FILE))
    problems = build_suite()
    write_suite(problems, path)
    print(f"wrote {len(problems)} problems to {path}")


if __name__ == "__main__":
    main()
