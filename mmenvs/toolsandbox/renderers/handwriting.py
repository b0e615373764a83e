"""Handwritten notes: shopping lists, to-do lists and phone messages on ruled paper or sticky notes.

There is no handwriting font among the project's fonts, so the hand is simulated: every glyph is
placed on its own with jittered size, baseline and spacing; each line gets its own slant (a shear)
and a smooth random displacement field makes the strokes wobble like ink.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw

from mmenvs.core.fonts import font

from . import sampling as S
from . import vocab
from .base import Canvas, Rendered, date_text, finish, pick, prepare, sample_without, time_text

NOTE_TYPES = ("shopping_list", "todo", "phone_message")
INKS = ((24, 42, 140), (28, 28, 34), (70, 70, 78), (20, 80, 160))


def sample_handwritten_note_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A shopping list (items with quantities), a to-do list (tasks, some with due dates) or a phone
    message (caller, number, time, message)."""
    kind = pick(rng, NOTE_TYPES)
    if kind == "shopping_list":
        items = []
        for name in sample_without(rng, vocab.GROCERY_LIST, int(rng.integers(4, 8))):
            q = int(pick(rng, (1, 1, 2, 2, 3, 4, 6))) if rng.uniform() < 0.6 else None
            items.append({"name": name, "quantity": q})
        return {"note_type": kind, "title": pick(rng, ("Groceries", "Shopping", "Market run", "To buy")), "items": items}
    if kind == "todo":
        base = S.date_between(rng)
        items = []
        for task in sample_without(rng, vocab.TODO_TASKS, int(rng.integers(3, 6))):
            due = S.add_days(base, int(rng.integers(0, 10))) if rng.uniform() < 0.5 else None
            items.append({"task": task, "due": due})
        return {"note_type": kind, "title": pick(rng, ("To do", "This week", "Don't forget!")), "items": items}
    who = S.person(rng)
    return {
        "note_type": kind,
        "title": pick(rng, ("While you were out", "Phone message", "Call back!")),
        "caller": who,
        "phone": S.phone(rng),
        "time": S.clock(rng, 8, 19, 5),
        "message": pick(rng, (
            "Wants to move Thursday's meeting to 3 pm",
            "Your order is ready for pickup",
            "Please call back about the invoice",
            "Running late, will bring the documents tomorrow",
            "Asked for the address of the venue",
        )),
    }


def _check_note(facts: dict[str, Any]) -> None:
    kind = facts["note_type"]
    if kind not in NOTE_TYPES:
        raise ValueError(f"handwritten_note.note_type: expected one of {', '.join(NOTE_TYPES)}, got {kind!r}")
    need = {"shopping_list": ("items",), "todo": ("items",), "phone_message": ("caller", "phone")}[kind]
    missing = [k for k in need if k not in facts]
    if missing:
        raise ValueError(f"handwritten_note ({kind}): facts lack {', '.join(missing)}")
    if kind == "shopping_list":
        for i, it in enumerate(facts["items"]):
            if "name" not in it:
                raise ValueError(f"handwritten_note.items[{i}]: needs 'name'")
    if kind == "todo":
        for i, it in enumerate(facts["items"]):
            if "task" not in it:
                raise ValueError(f"handwritten_note.items[{i}]: needs 'task'")


def _lines(facts: dict[str, Any], rng: np.random.Generator) -> list[tuple[str, list[str], str]]:
    """(text, fact keys, bullet style) for each written line."""
    out: list[tuple[str, list[str], str]] = []
    kind = facts["note_type"]
    if kind == "shopping_list":
        qty_first = rng.uniform() < 0.5
        for i, it in enumerate(facts["items"]):
            q = it.get("quantity")
            if q is None:
                out.append((it["name"], [f"items.{i}.name"], "dash"))
            elif qty_first:
                out.append((f"{q} {it['name']}", [f"items.{i}.quantity", f"items.{i}.name"], "dash"))
            else:
                out.append((f"{it['name']} x{q}", [f"items.{i}.name", f"items.{i}.quantity"], "dash"))
    elif kind == "todo":
        style = pick(rng, ("us", "weekday_short"))
        for i, it in enumerate(facts["items"]):
            if it.get("due"):
                due = date_text(it["due"], "us")[:5] if style == "us" else date_text(it["due"], "short").rsplit(",", 1)[0]
                out.append((f"{it['task']} (by {due})", [f"items.{i}.task", f"items.{i}.due"], "box"))
            else:
                out.append((it["task"], [f"items.{i}.task"], "box"))
    else:
        out.append((facts["caller"], ["caller"], "none"))
        out.append((facts["phone"], ["phone"], "none"))
        if facts.get("time"):
            out.append((f"called at {time_text(facts['time'], True)}", ["time"], "none"))
        if facts.get("message"):
            out.append((facts["message"], ["message"], "none"))
    return out


@lru_cache(maxsize=4096)
def _advance(ch: str, size: int, family: str) -> float:
    return font(size, family, italic=True).getlength(ch)


def _write(layer: Image.Image, text: str, x: float, baseline: float, size: int, family: str, rng: np.random.Generator,
           max_x: float, spacing: float) -> tuple[list[tuple[str, float, float, int]], float]:
    """Place glyphs one by one with jitter; wrap at ``max_x``. Returns the glyph placements and the last baseline."""
    draw = ImageDraw.Draw(layer)
    placements = []
    x0 = x
    words = text.split(" ")
    for wi, word in enumerate(words):
        wlen = sum(_advance(c, size, family) for c in word) * 1.02
        if x + wlen > max_x and x > x0:
            x = x0 + 12
            baseline += spacing
        for ch in word:
            sz = max(8, size + int(rng.integers(-1, 2)))
            f = font(sz, family, italic=True)
            dy = float(rng.normal(0, 1.1))
            draw.text((x, baseline + dy), ch, font=f, fill=255, anchor="ls")
            placements.append((ch, x, baseline + dy, sz))
            x += _advance(ch, sz, family) * float(rng.uniform(0.92, 1.08)) + float(rng.uniform(-0.4, 0.8))
        if wi < len(words) - 1:
            x += _advance(" ", size, family) * float(rng.uniform(0.9, 1.4))
    return placements, baseline


def render_handwritten_note(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                            size: tuple[int, int] | None = None) -> Rendered:
    """A photographed handwritten note on ruled paper or a sticky note, with a wobbly slanted hand.

    Facts: note_type ("shopping_list": items [{name, quantity?}]; "todo": items [{task, due? ISO}];
    "phone_message": caller, phone, time?, message?), title?.
    """
    facts, d = prepare("handwritten_note", rng, facts, difficulty, sample_handwritten_note_facts, ("note_type",), _check_note)
    lines = _lines(facts, rng)
    sticky = rng.uniform() < 0.3
    W = 420 if sticky else 480
    spacing = 38
    n_rows = len(lines) + 3 + sum(len(t) // 30 for t, _, _ in lines)
    H = max(W if sticky else 520, 90 + spacing * n_rows)
    paper = pick(rng, ((255, 240, 140), (255, 214, 170), (200, 236, 200))) if sticky else pick(rng, ((253, 252, 246), (255, 252, 215), (250, 250, 250)))
    cv = Canvas(W, H, paper)
    first = 96
    if not sticky:
        rule = (150, 190, 225)
        for yy in range(first, H - 10, spacing):
            cv.draw.line((0, yy, W, yy), fill=rule, width=1)
        cv.draw.line((62, 0, 62, H), fill=(235, 120, 120), width=2)
        for hy in (H * 0.2, H * 0.5, H * 0.8):
            cv.draw.ellipse((16, hy - 9, 34, hy + 9), fill=(215, 212, 205))
    else:
        cv.draw.rectangle((0, 0, W, 34), fill=tuple(max(0, c - 14) for c in paper))
    ink = pick(rng, INKS)
    family = pick(rng, ("sans", "serif", "stix"))
    size_px = int(rng.integers(21, 26))
    layer = Image.new("L", (W, H), 0)
    left = 78 if not sticky else 30
    max_x = W - 20
    boxes: list[tuple[list[str], str, tuple[float, float, float, float]]] = []
    baseline = first - 8
    if facts.get("title"):
        pl, _ = _write(layer, facts["title"], left + 10, baseline - spacing + 14, size_px + 5, family, rng, max_x, spacing)
        boxes.append((["title"], facts["title"], _extent(pl)))
    for text, keys, bullet in lines:
        baseline += spacing
        x = left
        draw = ImageDraw.Draw(layer)
        if bullet == "dash":
            draw.line((x, baseline - 8, x + 10, baseline - 9), fill=255, width=2)
            x += 20
        elif bullet == "box":
            draw.rectangle((x, baseline - 17, x + 14, baseline - 3), outline=255, width=2)
            x += 24
        pl, last = _write(layer, text, x, baseline, size_px, family, rng, max_x, spacing)
        boxes.append((keys, text, _extent(pl)))
        baseline = last
    # per-note slant (shear about the top) and an ink wobble (smooth displacement field)
    slant = float(rng.uniform(-0.08, 0.12))
    wobble = float(rng.uniform(0.8, 1.8))
    arr = np.asarray(layer)
    gy, gx = max(H // 40, 2), max(W // 40, 2)
    field_x = cv2.resize(rng.normal(0, wobble, (gy, gx)).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    field_y = cv2.resize(rng.normal(0, wobble, (gy, gx)).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    map_x = field_x
    map_x += np.arange(W, dtype=np.float32)[None, :]
    map_x += (slant * (np.arange(H, dtype=np.float32) - H / 2))[:, None]
    map_y = field_y
    map_y += np.arange(H, dtype=np.float32)[:, None]
    warped = cv2.remap(arr, map_x, map_y, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # pen pressure: slightly lighter ink overall; composite the ink colour through the stroke mask
    pressure = float(rng.uniform(0.85, 1.0))
    mask = Image.fromarray(cv2.convertScaleAbs(warped, alpha=pressure), "L")
    cv.img.paste(ink, (0, 0, W, H), mask)
    pad = wobble + 2  # the ink wobble moves strokes by about ``wobble`` pixels
    for keys, text, (x0, y0, x1, y1) in boxes:
        # the shear moves a point at row y by -slant*(y - H/2) horizontally in the output
        sx = [x - slant * (y - H / 2) for x in (x0, x1) for y in (y0, y1)]
        cv.note(text, keys, (min(sx) - pad, y0 - pad, max(sx) + pad, y1 + pad))
    if d > 0.3 and rng.uniform() < 0.4 + 0.5 * d:  # a crossed-out line is not a fact
        pool = {"shopping_list": vocab.GROCERY_LIST, "todo": vocab.TODO_TASKS}.get(facts["note_type"], ("Mom called", "Dentist called", "ask about Friday"))
        scrap = pick(rng, pool)
        y = min(H - 20, baseline + spacing)
        f = font(size_px, family, italic=True)
        cv.text((left + 20, y), scrap, f, ink, anchor="ls", distractor=True)
        w = f.getlength(scrap)
        cv.draw.line((left + 16, y - size_px * 0.35, left + 24 + w, y - size_px * 0.3), fill=ink, width=3)
    return finish("handwritten_note", cv, facts, rng, d, size, "photo", surface=pick(rng, ((120, 92, 66), (70, 72, 78), (188, 180, 168))))


def _extent(placements: list[tuple[str, float, float, int]]) -> tuple[float, float, float, float]:
    """Box around placed glyphs (baseline-anchored, so ascent above and descent below)."""
    if not placements:
        return (0.0, 0.0, 0.0, 0.0)
    x0 = min(p[1] for p in placements)
    x1 = max(p[1] + p[3] * 0.75 for p in placements)
    y0 = min(p[2] - p[3] * 0.8 for p in placements)
    y1 = max(p[2] + p[3] * 0.25 for p in placements)
    return (x0, y0, x1, y1)

