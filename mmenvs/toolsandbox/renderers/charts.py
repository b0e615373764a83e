"""Charts with labelled values: bar (vertical or horizontal), line (one or two series) and pie.

Drawn with Pillow rather than matplotlib: a minimal matplotlib bar chart (figure, bars, bar labels,
title, Agg draw) measured 107–360 ms median wall clock (81 ms CPU) on the shared 2-core machine, over
the 80 ms limit, while these Pillow charts take 12–26 ms there; drawing ourselves also gives exact pixel
boxes for every label and bar.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mmenvs.core.fonts import font

from . import vocab
from .base import Canvas, Rendered, Supersampled, as_number, finish, fit_font, number, pick, prepare, shade, wrap

PALETTES = (
    ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75), (227, 119, 194)),
    ((38, 70, 83), (42, 157, 143), (233, 196, 106), (244, 162, 97), (231, 111, 81), (120, 120, 160), (90, 160, 200)),
    ((0, 63, 92), (88, 80, 141), (188, 80, 144), (255, 99, 97), (255, 166, 0), (60, 140, 120), (150, 150, 150)),
    ((27, 158, 119), (217, 95, 2), (117, 112, 179), (231, 41, 138), (102, 166, 30), (230, 171, 2), (166, 118, 29)),
)


def _fmt(v: float, unit: str) -> str:
    """A value as printed next to its bar/point/slice: ``"42%"``, ``"$1,200"``, ``"$K 340"`` → ``"340"``."""
    text = number(v)
    if unit == "%":
        return text + "%"
    if unit == "$":
        return "$" + text
    return text


def _axis_unit(unit: str) -> str:
    return {"$": "USD", "%": "percent"}.get(unit, unit)


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / max(ticks, 1)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _check_data(facts: dict[str, Any], kind: str) -> None:
    data = facts["data"]
    if not isinstance(data, list) or not 2 <= len(data) <= 10:
        raise ValueError(f"{kind}.data: expected a list of 2–10 {{label, value}} items")
    for i, item in enumerate(data):
        if "label" not in item or "value" not in item:
            raise ValueError(f"{kind}.data[{i}]: needs 'label' and 'value'")
        if as_number(item["value"], f"{kind}.data[{i}].value") < 0:
            raise ValueError(f"{kind}.data[{i}].value: expected a non-negative number, got {item['value']!r}")


def _round_value(v: float, span: float) -> float | int:
    return int(round(v)) if span >= 20 else round(v, 1)


# ===================================================================================== bar chart
def sample_bar_chart_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A single-series bar chart: title, unit, y-axis label and labelled values."""
    title, unit, labels, (lo, hi) = pick(rng, vocab.BAR_TOPICS)
    n = int(rng.integers(min(4, len(labels)), len(labels) + 1))
    data = [{"label": lab, "value": _round_value(float(rng.uniform(lo, hi)), hi - lo)} for lab in labels[:n]]
    year = int(rng.integers(2021, 2027))
    return {"title": f"{title} ({year})", "unit": unit, "y_label": _axis_unit(unit), "data": data}


def render_bar_chart(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                     size: tuple[int, int] | None = None) -> Rendered:
    """A bar chart with a value printed on every bar (vertical or horizontal layout).

    Facts: title, data [{label, value}] (values ≥ 0), unit ("%", "$", or a word such as "mm"); optional
    y_label. Boxes: ``data.i.label``, ``data.i.value`` and ``bars.i`` (the bar itself).
    """
    facts, d = prepare("bar_chart", rng, facts, difficulty, sample_bar_chart_facts, ("title", "data", "unit"),
                       lambda f: _check_data(f, "bar_chart"))
    W, H = 640, 440
    data = facts["data"]
    unit = facts["unit"]
    palette = pick(rng, PALETTES)
    multicolor = rng.uniform() < 0.4
    horizontal = rng.uniform() < 0.35
    family = pick(rng, ("sans", "sans", "serif"))
    bg = pick(rng, ((255, 255, 255), (250, 250, 252), (247, 245, 240)))
    cv = Canvas(W, H, bg)
    ink, grey, grid = (30, 30, 36), (100, 100, 110), (222, 222, 228)
    tf = fit_font(facts["title"], family, W - 40, 20, bold=True)
    cv.text((W // 2, 16), facts["title"], tf, ink, key="title", anchor="ma")
    vmax = max(float(x["value"]) for x in data)
    step = _nice_step(vmax * 1.1 if vmax > 0 else 1.0)
    top = step * math.ceil((vmax * 1.08 if vmax > 0 else 1.0) / step)
    small = font(12, family)
    vf = font(12, family, bold=True)
    if not horizontal:
        left, right, y0, y1 = 70, W - 24, 60, H - 56
        t = 0.0
        while t <= top + 1e-9:
            yy = y1 - (y1 - y0) * t / top
            cv.draw.line((left, yy, right, yy), fill=grid)
            cv.text((left - 8, yy), number(round(t, 2)), small, grey, anchor="rm")
            t += step
        if facts.get("y_label"):
            cv.text((left - 8, y0 - 16), facts["y_label"], small, grey, key="y_label", anchor="rm")
        slot = (right - left) / len(data)
        bw = slot * float(rng.uniform(0.5, 0.72))
        for i, item in enumerate(data):
            v = float(item["value"])
            xc = left + slot * (i + 0.5)
            yb = y1 - (y1 - y0) * v / top
            col = palette[i % len(palette)] if multicolor else palette[0]
            cv.draw.rectangle((xc - bw / 2, yb, xc + bw / 2, y1), fill=col)
            cv.boxes[f"bars.{i}"] = (int(round(xc - bw / 2)), min(int(round(yb)), y1 - 1), int(round(xc + bw / 2)), y1)
            cv.text((xc, yb - 4), _fmt(v, unit), vf, ink, key=f"data.{i}.value", anchor="md")
            lf = fit_font(item["label"], family, slot - 4, 13)
            cv.text((xc, y1 + 8), item["label"], lf, ink, key=f"data.{i}.label", anchor="ma")
        cv.draw.line((left, y1, right, y1), fill=ink, width=1)
    else:
        lf = font(13, family)
        left = 24 + int(max(lf.getlength(x["label"]) for x in data)) + 10
        right, y0, y1 = W - 70, 62, H - 40
        t = 0.0
        while t <= top + 1e-9:
            xx = left + (right - left) * t / top
            cv.draw.line((xx, y0, xx, y1), fill=grid)
            cv.text((xx, y1 + 6), number(round(t, 2)), small, grey, anchor="ma")
            t += step
        if facts.get("y_label"):
            cv.text((W - 12, y1 + 22), facts["y_label"], small, grey, key="y_label", anchor="ra")
        slot = (y1 - y0) / len(data)
        bh = slot * float(rng.uniform(0.5, 0.7))
        for i, item in enumerate(data):
            v = float(item["value"])
            yc = y0 + slot * (i + 0.5)
            xe = left + (right - left) * v / top
            col = palette[i % len(palette)] if multicolor else palette[0]
            cv.draw.rectangle((left, yc - bh / 2, xe, yc + bh / 2), fill=col)
            cv.boxes[f"bars.{i}"] = (left, int(round(yc - bh / 2)), max(int(round(xe)), left + 1), int(round(yc + bh / 2)))
            cv.text((xe + 6, yc), _fmt(v, unit), vf, ink, key=f"data.{i}.value", anchor="lm")
            cv.text((left - 10, yc), item["label"], lf, ink, key=f"data.{i}.label", anchor="rm")
        cv.draw.line((left, y0, left, y1), fill=ink, width=1)
    if rng.uniform() < 0.3 + 0.6 * d:
        note = pick(rng, ("Source: internal data", "Preliminary figures", "Chart: Analytics team", f"Updated {int(rng.integers(1, 28))} days ago"))
        cv.text((10, H - 8), note, font(10, family, italic=True), grey, anchor="ld", distractor=True)
    return finish("bar_chart", cv, facts, rng, d, size, "scan")


# ===================================================================================== line chart
def sample_line_chart_facts(rng: np.random.Generator) -> dict[str, Any]:
    """One or two series over 6–8 x labels, every point labelled with its value."""
    title, unit, labels, (lo, hi), names = pick(rng, vocab.LINE_TOPICS)
    n_series = int(rng.integers(1, 3))
    series = []
    for s in range(n_series):
        v = float(rng.uniform(lo, hi))
        vals = []
        for _ in labels:
            v = min(hi, max(lo, v + float(rng.normal(0, (hi - lo) * 0.15))))
            vals.append(_round_value(v, hi - lo))
        series.append({"name": names[s], "values": vals})
    return {"title": title, "unit": unit, "x_labels": list(labels), "series": series}


def _check_line(facts: dict[str, Any]) -> None:
    n = len(facts["x_labels"])
    if not 2 <= n <= 12:
        raise ValueError("line_chart.x_labels: expected 2–12 labels")
    if not 1 <= len(facts["series"]) <= 3:
        raise ValueError("line_chart.series: expected 1–3 series")
    for i, s in enumerate(facts["series"]):
        if len(s.get("values", [])) != n:
            raise ValueError(f"line_chart.series[{i}].values: expected {n} values (one per x label), got {len(s.get('values', []))}")
        for j, v in enumerate(s["values"]):
            as_number(v, f"line_chart.series[{i}].values[{j}]")


def render_line_chart(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                      size: tuple[int, int] | None = None) -> Rendered:
    """A line chart of one to three series with every point's value printed beside it and a legend.

    Facts: title, x_labels [str], series [{name, values [number per x label]}], unit.
    Boxes: ``series.i.values.j`` (value labels), ``x_labels.j``, ``series.i.name`` (legend).
    """
    facts, d = prepare("line_chart", rng, facts, difficulty, sample_line_chart_facts, ("title", "x_labels", "series", "unit"), _check_line)
    W, H = 680, 440
    unit = facts["unit"]
    palette = pick(rng, PALETTES)
    family = pick(rng, ("sans", "serif"))
    cv = Canvas(W, H, pick(rng, ((255, 255, 255), (250, 251, 253))))
    ink, grey, grid = (30, 30, 36), (100, 100, 110), (226, 226, 232)
    cv.text((24, 16), facts["title"], fit_font(facts["title"], family, W - 260, 20, bold=True), ink, key="title")
    allv = [float(v) for s in facts["series"] for v in s["values"]]
    lo_v, hi_v = min(allv), max(allv)
    span = max(hi_v - lo_v, 0.2 * abs(hi_v), 1.0)  # a flat series still gets a readable axis
    step = _nice_step(span * 1.3)
    bottom = step * math.floor((lo_v - 0.15 * span) / step)
    bottom = max(bottom, 0.0) if lo_v >= 0 else bottom
    top = step * math.ceil((hi_v + 0.15 * span) / step)
    left, right, y0, y1 = 64, W - 30, 70, H - 50
    small = font(12, family)
    t = bottom
    while t <= top + 1e-9:
        yy = y1 - (y1 - y0) * (t - bottom) / (top - bottom)
        cv.draw.line((left, yy, right, yy), fill=grid)
        cv.text((left - 8, yy), number(round(t, 2)), small, grey, anchor="rm")
        t += step
    cv.text((left - 8, y0 - 18), _axis_unit(unit), small, grey, anchor="rm")
    n = len(facts["x_labels"])
    xs = [left + (right - left) * (j + 0.5) / n for j in range(n)]
    for j, lab in enumerate(facts["x_labels"]):
        cv.text((xs[j], y1 + 8), lab, fit_font(lab, family, (right - left) / n - 4, 13), ink, key=f"x_labels.{j}", anchor="ma")
    cv.draw.line((left, y1, right, y1), fill=ink)
    layer = Supersampled(W, H, 2)
    pts_all = []
    for i, s in enumerate(facts["series"]):
        col = palette[i]
        pts = [(xs[j], y1 - (y1 - y0) * (float(v) - bottom) / (top - bottom)) for j, v in enumerate(s["values"])]
        pts_all.append(pts)
        layer.draw.line([tuple(layer.s(*p)) for p in pts], fill=col + (255,), width=2 * 3, joint="curve")
        for p in pts:
            r = 4.5
            layer.draw.ellipse(layer.s(p[0] - r, p[1] - r, p[0] + r, p[1] + r), fill=col + (255,), outline=(255, 255, 255, 255), width=3)
    cv.paste(layer.result(), (0, 0))
    vf = font(11, family, bold=True)
    for i, s in enumerate(facts["series"]):
        for j, v in enumerate(s["values"]):
            y = pts_all[i][j][1]
            # the upper series labels above its point, the lower one below, so two series never collide
            others = [pts_all[k][j][1] for k in range(len(pts_all)) if k != i]
            above = not others or y <= min(others)
            cv.text((xs[j], y - 9 if above else y + 9), _fmt(float(v), unit), vf, shade(palette[i], 0.7), key=f"series.{i}.values.{j}",
                    anchor="md" if above else "ma")
    # legend, top right
    lx = W - 24
    for i in reversed(range(len(facts["series"]))):
        name = facts["series"][i]["name"]
        b = cv.text((lx, 24), name, font(13, family), ink, key=f"series.{i}.name", anchor="rm")
        cv.draw.line((b[0] - 30, 24, b[0] - 8, 24), fill=palette[i], width=3)
        lx = b[0] - 44
    if rng.uniform() < 0.3 + 0.6 * d:
        cv.text((W - 10, H - 8), pick(rng, ("Data: public records", "Not seasonally adjusted", "Provisional")), font(10, family, italic=True),
                grey, anchor="rd", distractor=True)
    return finish("line_chart", cv, facts, rng, d, size, "scan")


# ===================================================================================== pie chart
def sample_pie_chart_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A pie of 3–6 shares in whole percent that sum to 100."""
    title, labels = pick(rng, vocab.PIE_TOPICS)
    k = int(rng.integers(3, len(labels) + 1))
    w = rng.dirichlet(np.ones(k) * 2.0)
    pct = np.floor(w * 100).astype(int)
    pct = np.maximum(pct, 2)
    pct[int(np.argmax(pct))] += 100 - int(pct.sum())  # make the shares sum to exactly 100
    order = np.argsort(-pct, kind="stable")
    data = [{"label": labels[int(i)], "value": int(pct[int(i)])} for i in order]
    return {"title": title, "unit": "%", "data": data}


def _check_pie(facts: dict[str, Any]) -> None:
    _check_data(facts, "pie_chart")
    if facts["unit"] == "%":
        total = sum(float(x["value"]) for x in facts["data"])
        if abs(total - 100) > 0.51:
            raise ValueError(f"pie_chart.data: percentages must sum to 100, got {total:g}")
    if sum(float(x["value"]) for x in facts["data"]) <= 0:
        raise ValueError("pie_chart.data: values sum to 0")


def render_pie_chart(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                     size: tuple[int, int] | None = None) -> Rendered:
    """A pie (or donut) chart whose slices are labelled with their values, in a legend or beside the slice.

    Facts: title, data [{label, value}], unit ("%" — values sum to 100 — or "$"/a word for amounts).
    """
    facts, d = prepare("pie_chart", rng, facts, difficulty, sample_pie_chart_facts, ("title", "data", "unit"), _check_pie)
    W, H = 640, 450
    data = facts["data"]
    unit = facts["unit"]
    palette = pick(rng, PALETTES)
    family = pick(rng, ("sans", "serif"))
    donut = rng.uniform() < 0.4
    legend = rng.uniform() < 0.5
    cv = Canvas(W, H, pick(rng, ((255, 255, 255), (249, 249, 251), (246, 244, 238))))
    ink, grey = (30, 30, 36), (100, 100, 110)
    cv.text((W // 2, 14), facts["title"], fit_font(facts["title"], family, W - 40, 20, bold=True), ink, key="title", anchor="ma")
    cx, cy, r = (210 if legend else W // 2), 240, 140
    total = sum(float(x["value"]) for x in data)
    layer = Supersampled(W, H, 2)
    a0 = -90.0
    mids = []
    for i, item in enumerate(data):
        sweep = 360.0 * float(item["value"]) / total
        col = palette[i % len(palette)]
        layer.draw.pieslice(layer.s(cx - r, cy - r, cx + r, cy + r), a0, a0 + sweep, fill=col + (255,), outline=(255, 255, 255, 255), width=4)
        mids.append(math.radians(a0 + sweep / 2))
        a0 += sweep
    if donut:
        hole = r * 0.55
        layer.draw.ellipse(layer.s(cx - hole, cy - hole, cx + hole, cy + hole), fill=tuple(cv.img.getpixel((2, 2))) + (255,))
    cv.paste(layer.result(), (0, 0))
    if legend:
        lf = font(14, family)
        room = W - 24 - 60 - 424
        rows = [wrap(item["label"], lf, room) or [item["label"]] for item in data]
        y = cy - sum(8 + 18 * len(r) for r in rows) / 2
        for i, (item, lines) in enumerate(zip(data, rows)):
            col = palette[i % len(palette)]
            cv.draw.rectangle((400, y + 2, 414, y + 16), fill=col)
            cv.text((W - 24, y), _fmt(float(item["value"]), unit), font(14, family, bold=True), ink, key=f"data.{i}.value", anchor="ra")
            for line in lines:  # long labels wrap instead of running into the value column
                cv.text((424, y), line, fit_font(line, family, room, 14), ink, key=f"data.{i}.label")
                y += 18
            y += 8
    else:
        lf = font(13, family)
        for i, (item, a) in enumerate(zip(data, mids)):
            ex, ey = cx + (r + 10) * math.cos(a), cy + (r + 10) * math.sin(a)
            tx, ty = cx + (r + 26) * math.cos(a), cy + (r + 26) * math.sin(a)
            cv.draw.line((cx + (r - 4) * math.cos(a), cy + (r - 4) * math.sin(a), ex, ey), fill=grey)
            anchor = "la" if math.cos(a) >= 0 else "ra"
            room = (W - 8 - tx) if anchor == "la" else (tx - 8)
            lines = wrap(item["label"], lf, room) or [item["label"]]
            yy = ty - 8 * len(lines) - 6
            for line in lines:
                cv.text((tx, yy), line, fit_font(line, family, room, 13), ink, key=f"data.{i}.label", anchor=anchor)
                yy += 16
            cv.text((tx, yy), _fmt(float(item["value"]), unit), font(13, family, bold=True), ink, key=f"data.{i}.value", anchor=anchor)
    if rng.uniform() < 0.3 + 0.6 * d:
        cv.text((10, H - 8), pick(rng, ("n = 1,240 respondents", "Figures rounded", "Source: annual report")), font(10, family, italic=True),
                grey, anchor="ld", distractor=True)
    return finish("pie_chart", cv, facts, rng, d, size, "scan")
