"""Products: studio-style product drawings, single product cards and a shopping-results page."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw

from mmenvs.core.fonts import font

from . import sampling as S
from . import vocab
from .base import (
    Canvas, Rendered, as_number, finish, fit_font, gradient, ink_on, money, number, pick, prepare, shade,
    wrap,
)

SHAPES = ("mug", "bottle", "kettle", "box", "headphones", "speaker", "laptop", "keyboard", "monitor", "watch",
          "backpack", "shoe", "lantern", "lamp", "candle")


# ===================================================================================== drawings
@lru_cache(maxsize=96)
def _cylinder_fill(w: int, h: int, color: tuple[int, int, int], highlight: float = 0.35) -> Image.Image:
    """A colour ramp that makes a flat shape look like a lit cylinder (dark edges, bright band)."""
    x = np.linspace(0.0, 1.0, max(w, 2), dtype=np.float32)
    light = 0.62 + 0.55 * np.exp(-((x - highlight) ** 2) / 0.03) + 0.25 * np.sin(np.pi * x)
    ramp = np.clip(np.asarray(color, np.float32)[None, :] * light[:, None] + 30 * np.exp(-((x - highlight) ** 2) / 0.004)[:, None], 0, 255)
    strip = Image.fromarray(ramp.astype(np.uint8)[None, :, :], "RGB")
    return strip.resize((w, h), Image.Resampling.NEAREST)


def draw_product(shape: str, color: tuple[int, int, int], width: int, height: int, rng: np.random.Generator) -> Image.Image:
    """An RGBA product illustration (shaded like a studio photo, with a soft shadow)."""
    if shape not in SHAPES:
        raise ValueError(f"unknown product shape {shape!r}; expected one of {', '.join(SHAPES)}")
    k = 2  # supersampling factor
    W, H = width * k, height * k
    cx = W / 2
    out = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    # soft contact shadow: blurred on a 1/8 grid and only in the bottom strip where it lies
    # (a wide blur or resize over the whole layer costs more than the drawing itself)
    top = int(0.8 * H)
    sh, sw = max((H - top) // 8, 4), max(W // 8, 4)
    small = np.zeros((sh, sw), np.uint8)
    cv2.ellipse(small, (int(cx / 8), int((0.93 * H - top) / 8)), (max(1, int(0.36 * W / 8)), max(1, int(0.04 * H / 8))), 0, 0, 360, 110, -1)
    small = cv2.GaussianBlur(small, (0, 0), sigmaX=max(0.5, 0.03 * W / 8))
    alpha = Image.new("L", (W, H), 0)
    alpha.paste(Image.fromarray(small, "L").resize((W, H - top), Image.Resampling.BILINEAR), (0, top))
    out.putalpha(alpha)

    def part(draw_fn, fill: Image.Image | tuple[int, int, int]) -> None:
        """Draw one part's mask, then paint it (flat colour or a shaded fill) inside its bounding box only."""
        mask = Image.new("L", (W, H), 0)
        draw_fn(ImageDraw.Draw(mask))
        box = mask.getbbox()
        if box is None:
            return
        m = mask.crop(box)
        if isinstance(fill, Image.Image):
            out.paste(fill.crop(box), box[:2], m)
        else:
            out.paste(tuple(fill) + (255,), box, m)

    cyl = _cylinder_fill(W, H, tuple(color), highlight=round(float(rng.uniform(0.25, 0.45)), 2))
    dark = shade(color, 0.55)
    darker = shade(color, 0.35)
    metal = _cylinder_fill(W, H, (170, 172, 178))
    black = _cylinder_fill(W, H, (40, 42, 48))
    if shape == "mug":
        part(lambda d: d.rounded_rectangle((cx + 0.14 * W, 0.36 * H, cx + 0.40 * W, 0.72 * H), radius=0.1 * W, outline=255, width=int(0.05 * W)), dark)
        part(lambda d: d.rounded_rectangle((cx - 0.28 * W, 0.25 * H, cx + 0.22 * W, 0.85 * H), radius=0.05 * W, fill=255), cyl)
        part(lambda d: d.ellipse((cx - 0.28 * W, 0.21 * H, cx + 0.22 * W, 0.29 * H), fill=255), darker)
    elif shape in ("bottle", "candle", "lantern"):
        if shape == "bottle":
            part(lambda d: d.rounded_rectangle((cx - 0.07 * W, 0.06 * H, cx + 0.07 * W, 0.2 * H), radius=0.02 * W, fill=255), black)
            part(lambda d: d.polygon([(cx - 0.08 * W, 0.2 * H), (cx + 0.08 * W, 0.2 * H), (cx + 0.18 * W, 0.32 * H), (cx - 0.18 * W, 0.32 * H)], fill=255), cyl)
            part(lambda d: d.rounded_rectangle((cx - 0.18 * W, 0.3 * H, cx + 0.18 * W, 0.92 * H), radius=0.05 * W, fill=255), cyl)
            part(lambda d: d.rectangle((cx - 0.18 * W, 0.5 * H, cx + 0.18 * W, 0.68 * H), fill=255), shade(color, 1.6))
        elif shape == "candle":
            part(lambda d: d.rounded_rectangle((cx - 0.26 * W, 0.35 * H, cx + 0.26 * W, 0.9 * H), radius=0.04 * W, fill=255), _cylinder_fill(W, H, (225, 215, 200)))
            part(lambda d: d.rectangle((cx - 0.26 * W, 0.52 * H, cx + 0.26 * W, 0.74 * H), fill=255), cyl)
            part(lambda d: d.ellipse((cx - 0.26 * W, 0.31 * H, cx + 0.26 * W, 0.39 * H), fill=255), (240, 232, 220))
            part(lambda d: d.line((cx, 0.35 * H, cx, 0.27 * H), fill=255, width=int(0.01 * W) + 1), (40, 40, 40))
            part(lambda d: d.ellipse((cx - 0.03 * W, 0.15 * H, cx + 0.03 * W, 0.28 * H), fill=255), (255, 180, 60))
        else:
            part(lambda d: d.arc((cx - 0.14 * W, 0.04 * H, cx + 0.14 * W, 0.26 * H), 180, 360, fill=255, width=int(0.02 * W)), darker)
            part(lambda d: d.rounded_rectangle((cx - 0.22 * W, 0.14 * H, cx + 0.22 * W, 0.26 * H), radius=0.03 * W, fill=255), cyl)
            part(lambda d: d.rectangle((cx - 0.18 * W, 0.26 * H, cx + 0.18 * W, 0.76 * H), fill=255), _cylinder_fill(W, H, (250, 236, 180)))
            part(lambda d: d.rounded_rectangle((cx - 0.22 * W, 0.76 * H, cx + 0.22 * W, 0.9 * H), radius=0.03 * W, fill=255), cyl)
    elif shape == "kettle":
        part(lambda d: d.line([(cx + 0.2 * W, 0.7 * H), (cx + 0.38 * W, 0.4 * H)], fill=255, width=int(0.05 * W)), metal)
        part(lambda d: d.arc((cx - 0.2 * W, 0.12 * H, cx + 0.2 * W, 0.5 * H), 180, 360, fill=255, width=int(0.04 * W)), black)
        part(lambda d: d.polygon([(cx - 0.22 * W, 0.3 * H), (cx + 0.22 * W, 0.3 * H), (cx + 0.3 * W, 0.88 * H), (cx - 0.3 * W, 0.88 * H)], fill=255), cyl)
        part(lambda d: d.ellipse((cx - 0.06 * W, 0.25 * H, cx + 0.06 * W, 0.32 * H), fill=255), black)
    elif shape == "box":
        top = [(cx - 0.3 * W, 0.3 * H), (cx + 0.05 * W, 0.2 * H), (cx + 0.35 * W, 0.28 * H), (cx, 0.38 * H)]
        part(lambda d: d.polygon([(cx - 0.3 * W, 0.3 * H), (cx, 0.38 * H), (cx, 0.9 * H), (cx - 0.3 * W, 0.8 * H)], fill=255), color)
        part(lambda d: d.polygon([(cx, 0.38 * H), (cx + 0.35 * W, 0.28 * H), (cx + 0.35 * W, 0.78 * H), (cx, 0.9 * H)], fill=255), dark)
        part(lambda d: d.polygon(top, fill=255), shade(color, 1.35))
        part(lambda d: d.line([(cx - 0.26 * W, 0.55 * H), (cx - 0.04 * W, 0.61 * H)], fill=255, width=int(0.012 * W)), shade(color, 1.6))
    elif shape == "headphones":
        part(lambda d: d.arc((cx - 0.33 * W, 0.1 * H, cx + 0.33 * W, 0.8 * H), 185, 355, fill=255, width=int(0.05 * W)), black)
        for sx in (-1, 1):
            x0 = cx + sx * 0.33 * W
            part(lambda d, x0=x0: d.rounded_rectangle((x0 - 0.1 * W, 0.42 * H, x0 + 0.1 * W, 0.82 * H), radius=0.08 * W, fill=255), cyl)
            part(lambda d, x0=x0, sx=sx: d.rounded_rectangle((x0 - sx * 0.02 * W - 0.06 * W, 0.46 * H, x0 - sx * 0.02 * W + 0.06 * W, 0.78 * H), radius=0.05 * W, fill=255), darker)
    elif shape == "speaker":
        part(lambda d: d.rounded_rectangle((cx - 0.3 * W, 0.15 * H, cx + 0.3 * W, 0.88 * H), radius=0.1 * W, fill=255), cyl)
        part(lambda d: d.ellipse((cx - 0.18 * W, 0.38 * H, cx + 0.18 * W, 0.74 * H), fill=255), darker)
        part(lambda d: d.ellipse((cx - 0.06 * W, 0.5 * H, cx + 0.06 * W, 0.62 * H), fill=255), metal)
        part(lambda d: d.ellipse((cx - 0.06 * W, 0.2 * H, cx + 0.06 * W, 0.32 * H), fill=255), darker)
    elif shape in ("laptop", "monitor"):
        if shape == "laptop":
            part(lambda d: d.rounded_rectangle((cx - 0.34 * W, 0.12 * H, cx + 0.34 * W, 0.7 * H), radius=0.02 * W, fill=255), _cylinder_fill(W, H, color, 0.3))
            part(lambda d: d.rectangle((cx - 0.31 * W, 0.15 * H, cx + 0.31 * W, 0.67 * H), fill=255), gradient(W, H, (40, 90, 160), (120, 60, 150)))
            part(lambda d: d.polygon([(cx - 0.36 * W, 0.7 * H), (cx + 0.36 * W, 0.7 * H), (cx + 0.46 * W, 0.8 * H), (cx - 0.46 * W, 0.8 * H)], fill=255), metal)
        else:
            part(lambda d: d.rectangle((cx - 0.04 * W, 0.62 * H, cx + 0.04 * W, 0.82 * H), fill=255), metal)
            part(lambda d: d.ellipse((cx - 0.2 * W, 0.8 * H, cx + 0.2 * W, 0.88 * H), fill=255), metal)
            part(lambda d: d.rounded_rectangle((cx - 0.44 * W, 0.12 * H, cx + 0.44 * W, 0.66 * H), radius=0.015 * W, fill=255), black)
            part(lambda d: d.rectangle((cx - 0.42 * W, 0.14 * H, cx + 0.42 * W, 0.63 * H), fill=255), gradient(W, H, shade(color, 1.3), (20, 30, 60)))
    elif shape == "keyboard":
        part(lambda d: d.rounded_rectangle((cx - 0.46 * W, 0.35 * H, cx + 0.46 * W, 0.7 * H), radius=0.03 * W, fill=255), cyl)

        def keys(d: ImageDraw.ImageDraw) -> None:
            for r in range(4):
                for c in range(13):
                    x0 = cx - 0.43 * W + c * 0.066 * W
                    y0 = 0.38 * H + r * 0.078 * H
                    d.rounded_rectangle((x0, y0, x0 + 0.056 * W, y0 + 0.064 * H), radius=0.008 * W, fill=255)
        part(keys, shade(color, 1.4) if sum(color) < 300 else shade(color, 0.75))
    elif shape == "watch":
        part(lambda d: d.rounded_rectangle((cx - 0.1 * W, 0.02 * H, cx + 0.1 * W, 0.98 * H), radius=0.04 * W, fill=255), cyl)
        part(lambda d: d.rounded_rectangle((cx - 0.2 * W, 0.28 * H, cx + 0.2 * W, 0.72 * H), radius=0.07 * W, fill=255), metal)
        part(lambda d: d.rounded_rectangle((cx - 0.17 * W, 0.31 * H, cx + 0.17 * W, 0.69 * H), radius=0.05 * W, fill=255), (18, 18, 22))
        part(lambda d: d.arc((cx - 0.11 * W, 0.38 * H, cx + 0.11 * W, 0.62 * H), 200, 100, fill=255, width=int(0.02 * W)), (90, 220, 140))
    elif shape == "backpack":
        part(lambda d: d.arc((cx - 0.12 * W, 0.06 * H, cx + 0.12 * W, 0.26 * H), 180, 360, fill=255, width=int(0.025 * W)), darker)
        part(lambda d: d.rounded_rectangle((cx - 0.28 * W, 0.14 * H, cx + 0.28 * W, 0.92 * H), radius=0.14 * W, fill=255), cyl)
        part(lambda d: d.rounded_rectangle((cx - 0.2 * W, 0.56 * H, cx + 0.2 * W, 0.86 * H), radius=0.06 * W, fill=255), dark)
        part(lambda d: d.line([(cx - 0.18 * W, 0.6 * H), (cx + 0.18 * W, 0.6 * H)], fill=255, width=int(0.008 * W) + 1), (210, 210, 210))
    elif shape == "shoe":
        body = [(cx - 0.42 * W, 0.58 * H), (cx - 0.3 * W, 0.4 * H), (cx - 0.12 * W, 0.36 * H), (cx + 0.05 * W, 0.5 * H),
                (cx + 0.36 * W, 0.58 * H), (cx + 0.44 * W, 0.68 * H), (cx - 0.44 * W, 0.7 * H)]
        part(lambda d: d.polygon(body, fill=255), _cylinder_fill(W, H, color, 0.4))
        part(lambda d: d.rounded_rectangle((cx - 0.46 * W, 0.66 * H, cx + 0.46 * W, 0.76 * H), radius=0.04 * W, fill=255), (240, 240, 236))
        part(lambda d: d.line([(cx - 0.18 * W, 0.44 * H), (cx + 0.02 * W, 0.52 * H)], fill=255, width=int(0.012 * W)), (245, 245, 245))
    else:  # lamp
        part(lambda d: d.ellipse((cx - 0.22 * W, 0.84 * H, cx + 0.22 * W, 0.94 * H), fill=255), metal)
        part(lambda d: d.line([(cx - 0.02 * W, 0.88 * H), (cx - 0.12 * W, 0.5 * H), (cx + 0.12 * W, 0.3 * H)], fill=255, width=int(0.025 * W)), metal)
        part(lambda d: d.polygon([(cx + 0.02 * W, 0.18 * H), (cx + 0.22 * W, 0.18 * H), (cx + 0.34 * W, 0.42 * H), (cx - 0.08 * W, 0.42 * H)], fill=255), cyl)
    return out.reduce(k)


# ===================================================================================== facts
def _product(rng: np.random.Generator, category: str | None = None) -> dict[str, Any]:
    cat = category or pick(rng, tuple(vocab.PRODUCTS))
    base, brands, (lo, hi), shape, specs = pick(rng, vocab.PRODUCTS[cat])
    brand = pick(rng, brands)
    color_name, _ = pick(rng, vocab.PRODUCT_COLORS)
    name = f"{brand} {base}" + (f" {pick(rng, vocab.PRODUCT_ADJECTIVES)}" if rng.uniform() < 0.6 else "")
    spec_rows = []
    for label, a, b, step, unit in specs:
        if step == 0:
            spec_rows.append({"label": label, "value": unit, "unit": ""})
            continue
        n = int(round((b - a) / step))
        v = a + step * int(rng.integers(0, n + 1))
        v = round(v, 2)
        spec_rows.append({"label": label, "value": int(v) if float(v).is_integer() else float(v), "unit": unit})
    price = S.price(rng, lo, hi, endings=(0.99, 0.99, 0.0, 0.95, 0.49))
    p: dict[str, Any] = {
        "name": name,
        "brand": brand,
        "category": cat,
        "price": price,
        "currency": "USD",
        "rating": round(float(rng.uniform(3.1, 4.95)), 1),
        "reviews": int(rng.integers(3, 5000)),
        "color": color_name,
        "specs": spec_rows,
        "shape": shape,
    }
    if rng.uniform() < 0.35:
        p["old_price"] = round(price * float(pick(rng, (1.15, 1.2, 1.25, 1.3, 1.5))) // 1 + 0.99, 2)
    return p


def _color_rgb(name: str, rng: np.random.Generator) -> tuple[int, int, int]:
    for n, rgb in vocab.PRODUCT_COLORS:
        if n == name:
            return rgb
    return tuple(int(v) for v in rng.integers(40, 220, size=3))  # type: ignore[return-value]


def _spec_text(spec: dict[str, Any]) -> str:
    v = spec["value"]
    text = number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
    return f"{text} {spec['unit']}".strip() if spec.get("unit") else text


def sample_product_card_facts(rng: np.random.Generator) -> dict[str, Any]:
    """One product: name, brand, category, price (and maybe a struck-out old price), rating, reviews,
    colour, specs [{label, value, unit}], SKU."""
    p = _product(rng)
    p["sku"] = S.code(rng, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 8)
    return p


def _check_product(p: dict[str, Any], where: str) -> None:
    as_number(p["price"], f"{where}.price")
    if "old_price" in p:
        as_number(p["old_price"], f"{where}.old_price")
    if "rating" in p and not 0 <= as_number(p["rating"], f"{where}.rating") <= 5:
        raise ValueError(f"{where}.rating: expected 0–5, got {p['rating']!r}")
    if "shape" in p and p["shape"] not in SHAPES:
        raise ValueError(f"{where}.shape: expected one of {', '.join(SHAPES)}, got {p['shape']!r}")


def _stars(cv: Canvas, x: float, y: float, rating: float, size: int, color: tuple[int, int, int]) -> float:
    """Five stars, filled up to ``rating``; returns the x after them."""
    for i in range(5):
        cx, cy = x + i * (size + 2) + size / 2, y + size / 2
        pts = []
        for j in range(10):
            r = size / 2 if j % 2 == 0 else size / 4.5
            a = -math.pi / 2 + j * math.pi / 5
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
        filled = rating >= i + 0.75 or (rating >= i + 0.25)
        cv.draw.polygon(pts, fill=color if filled else None, outline=color)
    return x + 5 * (size + 2)


def render_product_card(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                        size: tuple[int, int] | None = None) -> Rendered:
    """A product listing card: a studio-style product picture, brand, name, rating, price and specs.

    Facts: name, price, currency; optional brand, category, old_price, rating, reviews, color, specs
    [{label, value, unit}], sku, shape (which drawing to use; not printed).
    """
    facts, d = prepare("product_card", rng, facts, difficulty, sample_product_card_facts, ("name", "price", "currency"),
                       lambda f: _check_product(f, "product_card"))
    W = 520
    specs = facts.get("specs") or []
    family = pick(rng, ("sans", "sans", "serif"))
    accent = pick(rng, ((230, 90, 30), (20, 110, 200), (200, 30, 80), (20, 140, 100)))
    H = 380 + 220 + 26 * len(specs) + 70
    cv = Canvas(W, H, (255, 255, 255))
    studio = gradient(W - 40, 340, pick(rng, ((246, 246, 248), (240, 244, 250), (250, 246, 240))), (222, 222, 228))
    cv.paste(studio, (20, 20))
    shape = facts.get("shape") or pick(rng, SHAPES)
    pic = draw_product(shape, _color_rgb(facts.get("color", ""), rng), 300, 300, rng)
    cv.paste(pic, ((W - 300) // 2, 40))
    ink, grey = (24, 24, 28), (110, 110, 118)
    y = 372
    if facts.get("category"):
        crumb = f"Shop › {facts['category'].title()}"
        cv.text((24, y), crumb, font(11, family), (130, 130, 138), key="category")
        y += 18
    if facts.get("old_price") is not None and float(facts["old_price"]) > float(facts["price"]):
        pct = int(round(100 * (1 - float(facts["price"]) / float(facts["old_price"]))))
        cv.draw.rounded_rectangle((34, 34, 34 + 84, 62), radius=6, fill=accent)
        cv.text((76, 48), f"-{pct}%", font(15, family, bold=True), ink_on(accent), anchor="mm", distractor=True)
    if facts.get("brand"):
        cv.text((24, y), facts["brand"].upper(), font(13, family, bold=True), accent, key="brand")
        y += 20
    nf = font(21, family, bold=True)
    for line in wrap(facts["name"], nf, W - 48):
        cv.text((24, y), line, nf, ink, key="name")
        y += 27
    y += 2
    if facts.get("rating") is not None:
        x = _stars(cv, 24, y, float(facts["rating"]), 15, (245, 170, 20))
        cv.text((x + 6, y), number(float(facts["rating"]), 1), font(14, family, bold=True), ink, key="rating")
        if facts.get("reviews") is not None:
            cv.text((x + 40, y), f"({facts['reviews']:,} reviews)", font(13, family), grey, key="reviews")
        y += 26
    pb = cv.text((24, y), money(float(facts["price"]), facts["currency"]), font(30, family, bold=True), ink, key="price")
    if facts.get("old_price") is not None:
        ob = cv.text((pb[2] + 14, y + 10), money(float(facts["old_price"]), facts["currency"]), font(17, family), grey, key="old_price")
        cv.draw.line((ob[0], (ob[1] + ob[3]) // 2, ob[2], (ob[1] + ob[3]) // 2), fill=grey, width=2)
    y += 44
    if facts.get("color"):
        cv.text((24, y), "Colour: ", font(14, family), grey)
        cv.text((24 + font(14, family).getlength("Colour: "), y), facts["color"], font(14, family, bold=True), ink, key="color")
        y += 24
    if specs:
        y += 4
        cv.draw.line((24, y, W - 24, y), fill=(225, 225, 230))
        y += 8
        for i, sp in enumerate(specs):
            cv.text((24, y), sp["label"], font(14, family), grey, key=f"specs.{i}.label")
            cv.text((W - 24, y), _spec_text(sp), font(14, family, bold=True), ink, key=f"specs.{i}.value", anchor="ra")
            y += 26
    if facts.get("sku"):
        cv.text((24, y + 4), f"SKU {facts['sku']}", font(11, "mono"), grey, key="sku")
        y += 22
    y += 8
    cv.draw.rounded_rectangle((24, y, W - 24, y + 40), radius=8, fill=accent)
    cv.text((W // 2, y + 20), pick(rng, ("Add to cart", "Buy now", "Add to basket")), font(16, family, bold=True), ink_on(accent), anchor="mm")
    y += 52
    if d > 0.3:
        promo = pick(rng, ("Free shipping on orders over $50", "Only 3 left in stock – order soon", "Members save an extra 5%"))
        cv.text((W // 2, y), promo, font(12, family, italic=True), accent, anchor="ma", distractor=True)
        y += 22
    cv.crop_height(y + 10)
    return finish("product_card", cv, facts, rng, d, size, "digital")


# ===================================================================================== shopping page
def sample_shopping_page_screenshot_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A results page: store, search query, 4–6 products (name, brand, price, rating, reviews, maybe
    an old price and a badge) and the cart count."""
    cat = pick(rng, tuple(vocab.PRODUCTS))
    products = []
    names = set()
    while len(products) < int(rng.integers(4, 7)) + 0 * len(products):
        p = _product(rng, cat if rng.uniform() < 0.7 else None)
        if p["name"] in names:
            continue
        names.add(p["name"])
        item = {k: p[k] for k in ("name", "brand", "price", "rating", "reviews", "shape")}
        if "old_price" in p:
            item["old_price"] = p["old_price"]
        if rng.uniform() < 0.25:
            item["badge"] = pick(rng, ("Best seller", "New", "Limited deal", "Eco choice"))
        item["color"] = p["color"]
        products.append(item)
        if len(products) >= 6:
            break
    query = {"kitchen": "kitchen essentials", "audio": "bluetooth audio", "computing": "laptop accessories", "wearables": "smartwatch",
             "outdoor": "hiking gear", "home": "home decor", "beauty": "beauty"}[cat]
    return {"store": pick(rng, ("ShopNest", "Cartwheel", "Marketly", "BuyBright", "Parcelia")), "query": query, "currency": "USD",
            "products": products, "cart_count": int(rng.integers(0, 6))}


def _check_shop(facts: dict[str, Any]) -> None:
    ps = facts["products"]
    if not isinstance(ps, list) or not 1 <= len(ps) <= 8:
        raise ValueError("shopping_page_screenshot.products: expected a list of 1–8 products")
    for i, p in enumerate(ps):
        if "name" not in p or "price" not in p:
            raise ValueError(f"shopping_page_screenshot.products[{i}]: needs 'name' and 'price'")
        _check_product(p, f"shopping_page_screenshot.products[{i}]")


def render_shopping_page_screenshot(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                                    size: tuple[int, int] | None = None) -> Rendered:
    """A screenshot of a shop's search results: header with store and search box, a grid of product
    tiles (picture, name, rating, price, old price, badge), filters and a cart counter.

    Facts: store, products [{name, price, brand?, rating?, reviews?, old_price?, badge?, color?, shape?}],
    currency; optional query, cart_count.
    """
    facts, d = prepare("shopping_page_screenshot", rng, facts, difficulty, sample_shopping_page_screenshot_facts,
                       ("store", "products", "currency"), _check_shop)
    products = facts["products"]
    phone = rng.uniform() < 0.35
    cols = 2 if phone else 3
    W = 420 if phone else 780
    tile_w = (W - 24 - 12 * (cols - 1)) // cols
    pic_h = int(tile_w * 0.72)
    tile_h = pic_h + 128
    rows = -(-len(products) // cols)
    top = 118
    H = top + rows * (tile_h + 12) + 20
    accent = pick(rng, ((255, 153, 0), (0, 113, 206), (232, 65, 60), (30, 150, 110), (120, 70, 200)))
    family = "sans"
    cv = Canvas(W, H, (244, 245, 247))
    cv.draw.rectangle((0, 0, W, 56), fill=shade(accent, 0.55) if sum(accent) > 400 else accent)
    hb = ink_on(shade(accent, 0.55) if sum(accent) > 400 else accent)
    cv.text((14, 28), facts["store"], font(22, family, bold=True), hb, key="store", anchor="lm")
    sx0 = 14 + int(font(22, family, bold=True).getlength(facts["store"])) + 18
    cv.draw.rounded_rectangle((sx0, 12, W - 70, 44), radius=16, fill=(255, 255, 255))
    if facts.get("query"):
        cv.text((sx0 + 14, 28), facts["query"], fit_font(facts["query"], family, W - 100 - sx0, 14), (40, 40, 40), key="query", anchor="lm")
    # cart icon with count
    cv.draw.rectangle((W - 52, 20, W - 30, 38), outline=hb, width=2)
    if facts.get("cart_count") is not None:
        cv.draw.ellipse((W - 36, 8, W - 16, 28), fill=(230, 40, 40))
        cv.text((W - 26, 18), str(facts["cart_count"]), font(12, family, bold=True), (255, 255, 255), key="cart_count", anchor="mm")
    # filter bar (not facts)
    cv.draw.rectangle((0, 56, W, 100), fill=(255, 255, 255))
    fx = 14
    chips = ["Sort: Featured", "Price", "Rating 4+", "Brand", "Prime" if not phone else "More"]
    for chip in chips[: (3 if phone else 5)]:
        wchip = int(font(12, family).getlength(chip)) + 20
        cv.draw.rounded_rectangle((fx, 66, fx + wchip, 90), radius=12, outline=(200, 200, 205), fill=(250, 250, 250))
        cv.text((fx + 10, 78), chip, font(12, family), (70, 70, 70), anchor="lm", distractor=True)
        fx += wchip + 8
    n_results = int(rng.integers(len(products) * 3, 400))
    cv.text((14, 104), f"{n_results} results", font(11, family), (110, 110, 110), distractor=True)
    ink, grey = (20, 20, 24), (110, 110, 118)
    for i, p in enumerate(products):
        r, c = divmod(i, cols)
        x, y = 12 + c * (tile_w + 12), top + r * (tile_h + 12)
        cv.draw.rounded_rectangle((x, y, x + tile_w, y + tile_h), radius=8, fill=(255, 255, 255), outline=(226, 226, 230))
        shape = p.get("shape") or pick(rng, SHAPES)
        side = min(pic_h - 10, tile_w - 20)
        pic = draw_product(shape, _color_rgb(p.get("color", ""), rng), side, side, rng)
        cv.paste(pic, (x + (tile_w - side) // 2, y + 6))
        if p.get("badge"):
            bw = int(font(11, family, bold=True).getlength(p["badge"])) + 12
            cv.draw.rectangle((x + 6, y + 6, x + 6 + bw, y + 24), fill=accent)
            cv.text((x + 12, y + 15), p["badge"], font(11, family, bold=True), ink_on(accent), key=f"products.{i}.badge", anchor="lm")
        ty = y + pic_h + 4
        nf = font(13, family)
        lines = wrap(p["name"], nf, tile_w - 16)
        if len(lines) > 2:  # keep the tile height: shrink rather than cut the name
            nf = font(11, family)
            lines = wrap(p["name"], nf, tile_w - 16)
        for line in lines[:3]:
            cv.text((x + 8, ty), line, nf, ink, key=f"products.{i}.name")
            ty += nf.size + 3
        ty = y + pic_h + 44
        if p.get("rating") is not None:
            sx = _stars(cv, x + 8, ty, float(p["rating"]), 11, (245, 170, 20))
            cv.text((sx + 4, ty - 1), number(float(p["rating"]), 1), font(11, family, bold=True), ink, key=f"products.{i}.rating")
            if p.get("reviews") is not None:
                cv.text((sx + 28, ty - 1), f"({p['reviews']:,})", font(11, family), grey, key=f"products.{i}.reviews")
        ty += 20
        pb = cv.text((x + 8, ty), money(float(p["price"]), facts["currency"]), font(19, family, bold=True), ink, key=f"products.{i}.price")
        if p.get("old_price") is not None:
            ob = cv.text((pb[2] + 8, ty + 5), money(float(p["old_price"]), facts["currency"]), font(12, family), grey, key=f"products.{i}.old_price")
            cv.draw.line((ob[0], (ob[1] + ob[3]) // 2 + 1, ob[2], (ob[1] + ob[3]) // 2 + 1), fill=grey, width=1)
        ty += 30
        if p.get("brand"):
            cv.text((x + 8, ty), f"by {p['brand']}", font(11, family), grey, key=f"products.{i}.brand")
        if rng.uniform() < 0.3 + 0.5 * d:
            cv.text((x + tile_w - 8, ty), pick(rng, ("Free delivery", "Ships tomorrow", "Sponsored", "Low stock")), font(10, family, italic=True),
                    accent if sum(accent) < 500 else (30, 120, 60), anchor="ra", distractor=True)
    return finish("shopping_page_screenshot", cv, facts, rng, d, size, "digital")
