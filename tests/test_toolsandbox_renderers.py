"""Image renderers of MMToolSandbox: determinism, truthful facts, fact boxes, degradation, bad input."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from typing import Any, Iterator

import numpy as np
import pytest

from mmenvs.toolsandbox.renderers import RENDERERS, record_draw_calls, render, sample_facts
from mmenvs.toolsandbox.renderers.base import MONTHS, date_text, money, number, time_text

KINDS = sorted(RENDERERS)
EXPECTED_KINDS = {
    "receipt", "invoice", "event_poster", "ticket", "product_card", "business_card", "restaurant_menu", "bar_chart",
    "line_chart", "pie_chart", "document_page", "handwritten_note", "chat_screenshot", "shopping_page_screenshot",
    "calendar_screenshot",
}
# Leaves that are deliberately not printed as text: shown as pictures/colours, or the structured
# restatement of text that is printed (chat details, document key facts), or units folded into labels.
NOT_TEXT = {
    "receipt": [r"currency"],
    "invoice": [r"currency"],
    "event_poster": [r"currency"],
    "ticket": [r"ticket_type", r"currency"],
    "product_card": [r"currency", r"shape", r"specs\.\d+\.unit"],
    "business_card": [],
    "restaurant_menu": [r"currency"],
    "bar_chart": [r"unit"],
    "line_chart": [r"unit"],
    "pie_chart": [r"unit"],
    "document_page": [r"doc_type", r"key_facts\..*"],
    "handwritten_note": [r"note_type"],
    "chat_screenshot": [r"details\..*", r"messages\.\d+\.sender"],
    "shopping_page_screenshot": [r"currency", r"products\.\d+\.(shape|color)"],
    "calendar_screenshot": [r"view", r"week_start"],
}


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def leaves(obj: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every scalar in a facts tree."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, f"{prefix}.{i}" if prefix else str(i))
    else:
        yield prefix, obj


def lookup(facts: dict, path: str) -> Any:
    cur: Any = facts
    for part in path.split("."):
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    return cur


def shown_forms(value: Any) -> list[str]:
    """Every way a renderer may print ``value`` (the test's own list, not the renderer's choice)."""
    if isinstance(value, list):
        return [" ".join(str(v) for v in value)]
    if isinstance(value, bool):
        return ["yes" if value else "no"]
    if isinstance(value, (int, float)):
        forms = {number(value), f"{value:,.2f}", f"{value:.2f}", str(value)}
        if value == 0:
            forms |= {"FREE", "Free"}
        return sorted(forms)
    text = str(value)
    forms = {text, text.upper(), text.title()}
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        d = dt.date.fromisoformat(text)
        forms |= {date_text(text, s) for s in ("us", "long", "short", "weekday", "dayfirst", "iso", "eu")}
        forms |= {f"{d.month:02d}/{d.day:02d}", f"{MONTHS[d.month - 1]} {d.day}", f"{MONTHS[d.month - 1][:3]} {d.day}", str(d.day)}
    if re.fullmatch(r"\d{2}:\d{2}", text):
        forms |= {time_text(text, True), time_text(text, False)}
    return sorted(forms)


def drawn_text_by_key(calls) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    for c in calls:
        if c.key is not None:
            out.setdefault(c.key, []).append(c.text)
    return {k: " ".join(v) for k, v in out.items()}  # wrapped lines join with a space


def squash(s: str) -> str:
    """Whitespace removed: wrapping may break a line anywhere, even inside an email address."""
    return "".join(s.split())


def luminance(img: np.ndarray) -> np.ndarray:
    return img.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)


def box_contrast(img: np.ndarray, box: tuple[int, int, int, int]) -> float:
    x0, y0, x1, y1 = box
    patch = luminance(img[y0:y1, x0:x1])
    return float(np.percentile(patch, 98) - np.percentile(patch, 2))


# ------------------------------------------------------------------------------------ registry
def test_registry_has_every_kind_and_render_dispatches() -> None:
    assert set(RENDERERS) == EXPECTED_KINDS
    r = render("receipt", rng(0))
    assert r.kind == "receipt"
    with pytest.raises(ValueError, match="unknown image kind 'poster'.*bar_chart.*receipt"):
        render("poster", rng(0))


# ------------------------------------------------------------------------------------ per kind
@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_gives_identical_bytes(kind: str) -> None:
    for d in (0.0, 0.7):
        a = render(kind, rng(11), difficulty=d)
        b = render(kind, rng(11), difficulty=d)
        assert a.image.tobytes() == b.image.tobytes()
        assert a.image.shape == b.image.shape and a.image.dtype == np.uint8 and a.image.shape[2] == 3
        assert a.facts == b.facts and a.boxes == b.boxes and a.distractors == b.distractors


@pytest.mark.parametrize("kind", KINDS)
def test_different_seeds_give_different_images_and_facts(kind: str) -> None:
    a, b = render(kind, rng(1)), render(kind, rng(2))
    assert a.facts != b.facts
    assert a.image.shape != b.image.shape or not np.array_equal(a.image, b.image)


@pytest.mark.parametrize("kind", KINDS)
def test_given_facts_are_echoed_exactly_and_not_mutated(kind: str) -> None:
    facts = render(kind, rng(3)).facts
    given = copy.deepcopy(facts)
    with record_draw_calls() as calls:
        r = render(kind, rng(99), facts=given)  # another seed: a different layout, the same facts
    assert r.facts == facts
    assert given == facts  # the caller's dict is untouched
    r.facts["__probe__"] = 1
    assert "__probe__" not in given  # Rendered holds its own copy
    assert calls, "nothing was drawn"


@pytest.mark.parametrize("kind", KINDS)
def test_facts_are_json_and_typed(kind: str) -> None:
    for seed in range(5):
        facts = render(kind, rng(seed)).facts
        assert json.loads(json.dumps(facts)) == facts
        for path, v in leaves(facts):
            last = path.rsplit(".", 1)[-1]
            if last in {"date", "issue_date", "due_date", "week_start", "meeting_date", "due"} and v is not None:
                dt.date.fromisoformat(v)  # ISO-8601 dates
            if last in {"price", "total", "subtotal", "tax", "amount", "unit_price", "old_price", "share"}:
                assert isinstance(v, (int, float)) and not isinstance(v, bool), (path, v)
            if last in {"time", "start", "end", "start_time", "end_time", "departure_time", "boarding_time"}:
                assert re.fullmatch(r"\d{2}:\d{2}", v), (path, v)
        if any(p.rsplit(".", 1)[-1] in {"price", "total"} for p, _ in leaves(facts)):
            assert "currency" in json.dumps(facts), "money without a currency field"


@pytest.mark.parametrize("kind", KINDS)
def test_every_fact_is_drawn_in_its_box(kind: str) -> None:
    """(d) every printed fact went through a draw call under its key, and that text shows the value."""
    skip = [re.compile(p) for p in NOT_TEXT[kind]]
    for seed in range(6):
        with record_draw_calls() as calls:
            r = render(kind, rng(seed))
        text = drawn_text_by_key(calls)
        # each reported box belongs to a drawn key whose text shows the fact value
        for key in r.boxes:
            if key.startswith("bars."):
                continue
            assert key in text, f"{kind} seed {seed}: box {key!r} has no draw call"
            value = lookup(r.facts, key)
            assert any(squash(f) in squash(text[key]) for f in shown_forms(value)), f"{kind} seed {seed}: {key}={value!r} not in {text[key]!r}"
        # each fact leaf (except pictures and restatements) has a box, itself or an ancestor (a list of tags)
        for path, value in leaves(r.facts):
            if value is None or any(p.fullmatch(path) for p in skip):
                continue
            if kind == "receipt" and re.fullmatch(r"items\.\d+\.quantity", path) and value == 1:
                continue  # a receipt line without a count means one unit
            parts = path.split(".")
            ancestors = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
            assert ancestors & set(r.boxes), f"{kind} seed {seed}: fact {path}={value!r} has no box"


@pytest.mark.parametrize("kind", KINDS)
def test_fact_boxes_are_legible_at_difficulty_zero(kind: str) -> None:
    """Text in the reported boxes contrasts strongly with its background on clean images."""
    for seed in range(4):
        r = render(kind, rng(seed))
        h, w = r.image.shape[:2]
        values = []
        for key, (x0, y0, x1, y1) in r.boxes.items():
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, (key, (x0, y0, x1, y1), (w, h))
            if key.startswith("bars."):
                continue
            c = box_contrast(r.image, (x0, y0, x1, y1))
            assert c >= 60, f"{kind} seed {seed}: box {key} has contrast {c:.0f}"
            values.append(c)
        assert np.median(values) >= 100


@pytest.mark.parametrize("kind", KINDS)
def test_difficulty_one_is_measurably_harder(kind: str) -> None:
    """(f) the same facts at difficulty 1: less contrast in the fact boxes and a noisier, blurrier image."""
    for seed in range(3):
        facts = render(kind, rng(seed)).facts
        easy = render(kind, rng(seed + 50), facts=facts, difficulty=0.0)
        hard = render(kind, rng(seed + 50), facts=facts, difficulty=1.0)  # same style draws, degraded
        keys = [k for k in easy.boxes if k in hard.boxes and not k.startswith("bars.")]
        c_easy = np.mean([box_contrast(easy.image, easy.boxes[k]) for k in keys])
        c_hard = np.mean([box_contrast(hard.image, hard.boxes[k]) for k in keys])
        assert c_hard < 0.85 * c_easy, (kind, seed, c_easy, c_hard)
        if easy.image.shape == hard.image.shape:
            assert np.abs(easy.image.astype(np.int16) - hard.image.astype(np.int16)).mean() > 5.0


@pytest.mark.parametrize("kind", KINDS)
def test_distractors_are_drawn_and_are_not_facts(kind: str) -> None:
    facts_text = {str(v) for _, v in leaves(render(kind, rng(5)).facts)}
    found_any = False
    for seed in range(5):
        with record_draw_calls() as calls:
            r = render(kind, rng(seed), difficulty=1.0)
        flagged = [c.text for c in calls if c.distractor]
        assert sorted(flagged) == sorted(r.distractors)
        assert all(c.key is None for c in calls if c.distractor)
        assert not set(r.distractors) & facts_text
        found_any |= bool(r.distractors)
    assert found_any, f"{kind}: no distractor text at difficulty 1"


@pytest.mark.parametrize("kind", KINDS)
def test_size_fits_the_image_and_moves_boxes(kind: str) -> None:
    r0 = render(kind, rng(4))
    r = render(kind, rng(4), size=(320, 240))
    assert r.image.shape == (240, 320, 3)
    assert set(r.boxes) == set(r0.boxes)
    for x0, y0, x1, y1 in r.boxes.values():
        assert 0 <= x0 <= x1 <= 320 and 0 <= y0 <= y1 <= 240


# ------------------------------------------------------------------------------------ consistency (e)
@pytest.mark.parametrize("kind", ["receipt", "invoice"])
def test_line_items_add_up(kind: str) -> None:
    for seed in range(40):
        f = sample_facts(kind, rng(seed))  # the facts alone: no need to draw
        for it in f["items"]:
            assert it["amount"] == pytest.approx(round(it["quantity"] * it["unit_price"], 2), abs=0.005)
        assert f["subtotal"] == pytest.approx(sum(it["amount"] for it in f["items"]), abs=0.005)
        assert f["total"] == pytest.approx(f["subtotal"] + f["tax"], abs=0.005)
        if f.get("tax_rate") is not None:
            assert f["tax"] == pytest.approx(f["subtotal"] * f["tax_rate"] / 100, abs=0.006)


def test_receipt_total_is_printed_with_currency() -> None:
    with record_draw_calls() as calls:
        r = render("receipt", rng(7))
    assert money(r.facts["total"], r.facts["currency"]) in drawn_text_by_key(calls)["total"]


def test_bar_heights_are_proportional_to_values() -> None:
    for seed in range(12):
        r = render("bar_chart", rng(seed))
        # orientation: vertical bars share a bottom edge, horizontal bars share a left edge
        bottoms = {r.boxes[f"bars.{i}"][3] for i in range(len(r.facts["data"]))}
        lefts = {r.boxes[f"bars.{i}"][0] for i in range(len(r.facts["data"]))}
        vertical = len(bottoms) == 1
        assert vertical or len(lefts) == 1
        px = [(b[3] - b[1]) if vertical else (b[2] - b[0]) for b in (r.boxes[f"bars.{i}"] for i in range(len(r.facts["data"])))]
        vals = [item["value"] for item in r.facts["data"]]
        k = max(px) / max(vals)
        for p, v in zip(px, vals):
            assert p == pytest.approx(v * k, abs=2.0), (seed, px, vals)


def test_pie_percentages_sum_to_100_and_every_slice_is_labelled() -> None:
    for seed in range(12):
        with record_draw_calls() as calls:
            r = render("pie_chart", rng(seed))
        assert sum(x["value"] for x in r.facts["data"]) == 100
        text = drawn_text_by_key(calls)
        for i, item in enumerate(r.facts["data"]):
            assert text[f"data.{i}.label"] == item["label"]
            assert text[f"data.{i}.value"] == f"{item['value']}%"


def test_line_chart_labels_sit_at_their_values() -> None:
    """Higher values are drawn higher: point labels are ordered like the values they show."""
    for seed in range(10):
        r = render("line_chart", rng(seed))
        for i, s in enumerate(r.facts["series"]):
            vals = s["values"]
            span = max(vals) - min(vals)
            centers = [(r.boxes[f"series.{i}.values.{j}"][1] + r.boxes[f"series.{i}.values.{j}"][3]) / 2 for j in range(len(vals))]
            for a in range(len(vals)):
                for b in range(len(vals)):
                    if vals[a] - vals[b] > 0.25 * span and span > 0:
                        assert centers[a] < centers[b] + 12, (seed, i, vals, centers)


def test_chat_details_are_stated_in_the_messages() -> None:
    for seed in range(40):
        f = sample_facts("chat_screenshot", rng(seed))
        text = " ".join(m["text"] for m in f["messages"])
        for key, value in f["details"].items():
            if key in ("topic", "currency", "item") or isinstance(value, int) and key == "people":
                continue
            assert any(form in text for form in shown_forms(value)), (seed, key, value, text)


def test_document_key_facts_appear_in_the_paragraphs() -> None:
    for seed in range(40):
        f = sample_facts("document_page", rng(seed))
        text = " ".join(f["paragraphs"])
        for key, value in f["key_facts"].items():
            assert any(form in text for form in shown_forms(value) + [f"${value:,}" if isinstance(value, int) else ""] if form), (key, value)


# ------------------------------------------------------------------------------------ bad input
def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"difficulty must be in \[0, 1\]"):
        render("receipt", rng(0), difficulty=1.5)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        render("receipt", 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lack required field.*total"):
        render("receipt", rng(0), facts={"merchant": "X", "date": "2026-01-02", "items": [], "subtotal": 0, "tax": 0, "currency": "USD"})
    facts = render("receipt", rng(0)).facts
    wrong = copy.deepcopy(facts)
    wrong["total"] = round(wrong["total"] + 1.0, 2)
    with pytest.raises(ValueError, match="receipt.total"):
        render("receipt", rng(0), facts=wrong)
    bad_date = copy.deepcopy(facts)
    bad_date["date"] = "14/03/2026"
    with pytest.raises(ValueError, match="ISO date"):
        render("receipt", rng(0), facts=bad_date)
    with pytest.raises(ValueError, match="size must be"):
        render("receipt", rng(0), size=(4, 4))
    pie = render("pie_chart", rng(0)).facts
    pie["data"][0]["value"] += 5
    with pytest.raises(ValueError, match="sum to 100"):
        render("pie_chart", rng(0), facts=pie)
    cal = render("calendar_screenshot", rng(0)).facts
    cal["events"][0]["end"] = cal["events"][0]["start"]
    with pytest.raises(ValueError, match=r"events\[0\].*not after start"):
        render("calendar_screenshot", rng(0), facts=cal)
    with pytest.raises(ValueError, match="JSON-serialisable"):
        render("business_card", rng(0), facts={"name": "A", "company": "B", "phone": object()})


def test_given_facts_render_with_optional_fields_absent() -> None:
    """A generator may pass only the required facts; nothing else is invented onto the image."""
    minimal = {"merchant": "Tiny Shop", "date": "2026-05-04", "currency": "USD",
               "items": [{"name": "Tea", "quantity": 2, "unit_price": 1.5, "amount": 3.0}], "subtotal": 3.0, "tax": 0.24, "total": 3.24}
    with record_draw_calls() as calls:
        r = render("receipt", rng(1), facts=minimal)
    assert r.facts == minimal
    assert {c.key for c in calls if c.key} <= {"merchant", "date", "items.0.name", "items.0.quantity", "items.0.unit_price",
                                                "items.0.amount", "subtotal", "tax", "total"}
    card = render("business_card", rng(2), facts={"name": "Ada Quinn", "company": "Quinn & Co"})
    assert set(card.boxes) == {"name", "company"}


def test_long_strings_wrap_inside_the_image() -> None:
    """Generator-chosen facts with long names still fit: every box inside the image, every fact drawn."""
    long = "Extra-Large Family Size Organic Gluten-Free Multigrain Breakfast Cereal"
    cases = {
        "receipt": {"merchant": "A Very Long Merchant Name Incorporated Worldwide Holdings", "date": "2026-02-03", "currency": "USD",
                    "items": [{"name": long, "quantity": 1, "unit_price": 12.99, "amount": 12.99},
                              {"name": long, "quantity": 3, "unit_price": 2.0, "amount": 6.0}],
                    "subtotal": 18.99, "tax": 1.01, "total": 20.0},
        "pie_chart": {"title": "Shares of a rather long list of categories in the annual survey", "unit": "%",
                      "data": [{"label": "An extremely long category label number one", "value": 50},
                               {"label": "Another quite long label", "value": 30}, {"label": "Short", "value": 20}]},
        "restaurant_menu": {"restaurant": "The Extraordinarily Long-Named Neighbourhood Bistro", "currency": "USD",
                            "sections": [{"name": "Mains", "items": [{"name": "Slow-Braised Heritage Pork Shoulder with Apple", "price": 28.5,
                                                                      "description": "celeriac purée, charred hispi cabbage, cider jus, crackling"}]}]},
        "chat_screenshot": {"contact": "Maximilian Alexander Wolfeschlegel", "messages": [{"sender": "me", "text": long + " " + long, "time": "09:05"},
                                                                                   {"sender": "Max", "text": "mail oluwaseun.oyelaran@ironbarkconsulting.example", "time": "09:06"}]},
    }
    for kind, facts in cases.items():
        for seed in range(3):
            with record_draw_calls() as calls:
                r = render(kind, rng(seed), facts=facts)
            h, w = r.image.shape[:2]
            text = drawn_text_by_key(calls)
            for key, (x0, y0, x1, y1) in r.boxes.items():
                assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, (kind, key)
                value = lookup(r.facts, key)
                assert any(squash(f) in squash(text[key]) for f in shown_forms(value)), (kind, key, text[key])


def test_calendar_week_view_shows_overlapping_and_out_of_hours_events() -> None:
    facts = {"view": "week", "week_start": "2026-03-02", "events": [
        {"title": "Quarterly planning with the whole leadership team", "date": "2026-03-03", "start": "09:00", "end": "10:30", "location": "Boardroom"},
        {"title": "Dentist", "date": "2026-03-03", "start": "09:30", "end": "10:00"},
        {"title": "Call with Priya", "date": "2026-03-03", "start": "09:45", "end": "10:15", "location": "Zoom"},
        {"title": "Late dinner", "date": "2026-03-05", "start": "21:00", "end": "22:30"},
        {"title": "Early run", "date": "2026-03-07", "start": "06:30", "end": "07:15"}]}
    r = render("calendar_screenshot", rng(0), facts=facts)
    h, w = r.image.shape[:2]
    titles = [r.boxes[f"events.{i}.title"] for i in range(3)]
    for a in range(3):
        for b in range(a + 1, 3):  # side by side, never on top of each other
            A, B = titles[a], titles[b]
            assert A[2] <= B[0] or B[2] <= A[0] or A[3] <= B[1] or B[3] <= A[1], (A, B)
    for key, box in r.boxes.items():
        assert 0 <= box[0] < box[2] <= w and 0 <= box[1] < box[3] <= h, key
        assert box_contrast(r.image, box) >= 60, key


def test_sample_facts_matches_what_the_renderer_samples() -> None:
    from mmenvs.toolsandbox.renderers import SAMPLERS

    assert set(SAMPLERS) == EXPECTED_KINDS
    for kind in KINDS:
        assert sample_facts(kind, rng(5)) == render(kind, rng(5)).facts
    with pytest.raises(ValueError, match="valid kinds"):
        sample_facts("selfie", rng(0))


@pytest.mark.parametrize("kind", KINDS)
def test_distractors_never_cover_a_fact(kind: str) -> None:
    """Ads, banners, stamps and notes are placed clear of every fact string (checked on the canvas)."""
    for seed in range(8):
        with record_draw_calls() as calls:
            render(kind, rng(seed), difficulty=1.0)
        facts_boxes = [c.box for c in calls if c.key is not None and c.box is not None]
        for c in calls:
            if not c.distractor or c.box is None:
                continue
            for f in facts_boxes:
                overlap_w = min(c.box[2], f[2]) - max(c.box[0], f[0])
                overlap_h = min(c.box[3], f[3]) - max(c.box[1], f[1])
                assert overlap_w <= 1 or overlap_h <= 1, (kind, seed, c.text, c.box, f)


@pytest.mark.parametrize("kind", KINDS)
def test_fact_strings_do_not_overlap_each_other(kind: str) -> None:
    for seed in range(6):
        with record_draw_calls() as calls:
            render(kind, rng(seed))
        drawn = list({(c.text, c.box): c.box for c in calls if c.key is not None and c.box is not None}.values())
        for i, a in enumerate(drawn):
            for b in drawn[i + 1:]:
                overlap_w = min(a[2], b[2]) - max(a[0], b[0])
                overlap_h = min(a[3], b[3]) - max(a[1], b[1])
                assert overlap_w <= 2 or overlap_h <= 2, (kind, seed, a, b)


def test_images_are_identical_across_processes() -> None:
    """No hash-order or process state leaks into an image: two interpreters with different hash seeds agree."""
    import os
    import subprocess
    import sys

    code = (
        "import hashlib, numpy as np\n"
        "from mmenvs.toolsandbox.renderers import RENDERERS\n"
        "m = hashlib.sha256()\n"
        "for kind, fn in sorted(RENDERERS.items()):\n"
        "    r = fn(np.random.default_rng(7), difficulty=0.8)\n"
        "    m.update(r.image.tobytes()); m.update(repr(r.facts).encode()); m.update(repr(sorted(r.boxes.items())).encode())\n"
        "print(m.hexdigest())\n"
    )
    digests = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=True)
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1] and len(digests[0]) == 64
