"""Event posters and tickets (event admission tickets and airline boarding passes)."""

from __future__ import annotations

from typing import Any

import numpy as np
from mmenvs.core.fonts import font

from . import sampling as S
from . import vocab
from .base import (
    Canvas, Rendered, Supersampled, as_number, date_text, finish, fit_font, gradient, ink_on, money, pick, prepare, sample_without,
    time_text, wrap,
)

# (background top, background bottom, accent) — dark and light poster palettes
POSTER_PALETTES = (
    ((18, 24, 60), (70, 20, 90), (255, 196, 60)),
    ((10, 40, 50), (20, 90, 100), (250, 240, 200)),
    ((250, 236, 210), (246, 206, 170), (170, 40, 40)),
    ((235, 244, 240), (200, 226, 214), (20, 90, 70)),
    ((30, 30, 30), (60, 60, 60), (240, 90, 70)),
    ((255, 250, 240), (255, 226, 120), (30, 30, 90)),
    ((60, 10, 30), (140, 30, 50), (255, 230, 210)),
)


# ===================================================================================== poster
def sample_event_poster_facts(rng: np.random.Generator) -> dict[str, Any]:
    """An event: title, subtitle, date, times, venue, address, price, organizer, contact."""
    kind = pick(rng, tuple(vocab.EVENT_KINDS))
    spec = vocab.EVENT_KINDS[kind]
    start = S.clock(rng, 9 if kind in ("community", "workshop", "conference") else 18, 20 if kind != "concert" else 22, 30)
    free = kind == "community" and rng.uniform() < 0.6
    organizer = S.company(rng) if kind == "conference" else pick(rng, ("Friends of the Library", "City Arts Council", "Eastside Neighbors", S.company(rng)))
    facts: dict[str, Any] = {
        "title": pick(rng, spec["titles"]),
        "subtitle": pick(rng, spec["subtitles"]),
        "date": S.date_between(rng),
        "start_time": start,
        "end_time": S.add_minutes(start, int(pick(rng, (90, 120, 150, 180, 240)))),
        "venue": pick(rng, spec["venues"]),
        "address": S.street_address(rng),
        "price": 0.0 if free else float(pick(rng, (5, 10, 12, 15, 20, 25, 35, 45, 60, 85))),
        "currency": "USD",
        "organizer": organizer,
        "contact": f"www.{S.slug(pick(rng, spec['titles']))[:16]}.example",
    }
    return facts


def _check_price(facts: dict[str, Any], kind: str) -> None:
    as_number(facts["price"], f"{kind}.price")


def render_event_poster(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                        size: tuple[int, int] | None = None) -> Rendered:
    """A printed event poster photographed on a wall: title, date, time, venue, price, organizer.

    Facts: title, date, start_time, venue, price (0 = free), currency; optional subtitle, end_time,
    address, organizer, contact.
    """
    facts, d = prepare("event_poster", rng, facts, difficulty, sample_event_poster_facts,
                       ("title", "date", "start_time", "venue", "price", "currency"), lambda f: _check_price(f, "event_poster"))
    W, H = 480, 680
    top, bottom, accent = pick(rng, POSTER_PALETTES)
    cv = Canvas(W, H, gradient(W, H, top, bottom))
    ink = ink_on(top, dark=(20, 20, 30), light=(250, 250, 250))
    # decorative shapes (anti-aliased), kept in the top band and the margins so text stays legible
    band = 160
    deco = Supersampled(W, band, 2)
    for _ in range(int(rng.integers(3, 7))):
        r = float(rng.uniform(30, 90))
        cx, cy = float(rng.uniform(0, W)), float(rng.uniform(0, band - r))
        col = tuple(int(c) for c in accent) + (int(rng.integers(40, 90)),)
        deco.draw.ellipse(deco.s(cx - r, cy - r, cx + r, cy + r), fill=col)
    cv.paste(deco.result(), (0, 0))
    cv.draw.rectangle((0, H - 14, W, H), fill=accent)
    family = pick(rng, ("sans", "serif", "stix"))
    layout = pick(rng, ("center", "left"))
    m = 36
    cx = W // 2 if layout == "center" else m
    anchor_top = "ma" if layout == "center" else "la"
    y = 170
    title_lines = wrap(facts["title"].upper(), font(44, family, bold=True), W - 2 * m)
    size_t = 44 if len(title_lines) <= 2 else 34
    ft = font(size_t, family, bold=True)
    for line in wrap(facts["title"].upper(), ft, W - 2 * m):
        cv.text((cx, y), line, fit_font(line, family, W - 2 * m, size_t, bold=True), ink, key="title", anchor=anchor_top)
        y += size_t + 6
    if facts.get("subtitle"):
        y += 4
        for line in wrap(facts["subtitle"], font(17, family, italic=True), W - 2 * m):
            cv.text((cx, y), line, font(17, family, italic=True), ink, key="subtitle", anchor=anchor_top)
            y += 22
    y += 22
    # date block
    box_h = 96
    cv.draw.rectangle((m, y, W - m, y + box_h), fill=accent)
    bink = ink_on(accent)
    twelve = bool(rng.integers(0, 2))
    cv.text((W // 2, y + 14), date_text(facts["date"], pick(rng, ("weekday", "long"))), fit_font(date_text(facts["date"], "weekday"), family, W - 2 * m - 20, 24, bold=True),
            bink, key="date", anchor="ma")
    tline = time_text(facts["start_time"], twelve)
    keys: list[str] = ["start_time"]
    if facts.get("end_time"):
        tline += " – " + time_text(facts["end_time"], twelve)
        keys.append("end_time")
    cv.text((W // 2, y + 54), tline, font(22, family), bink, key=keys, anchor="ma")
    y += box_h + 24
    cv.text((cx, y), facts["venue"], fit_font(facts["venue"], family, W - 2 * m, 22, bold=True), ink, key="venue", anchor=anchor_top)
    y += 30
    if facts.get("address"):
        cv.text((cx, y), facts["address"], fit_font(facts["address"], family, W - 2 * m, 15), ink, key="address", anchor=anchor_top)
        y += 26
    price = float(facts["price"])
    ptxt = "FREE ENTRY" if price == 0 else f"Tickets {money(price, facts['currency'])}"
    y += 6
    cv.text((cx, y), ptxt, font(24, family, bold=True), ink, key="price", anchor=anchor_top)
    y += 40
    for k, prefix in (("organizer", "Presented by "), ("contact", "")):
        if facts.get(k):
            s = prefix + facts[k]
            cv.text((cx, y), s, fit_font(s, family, W - 2 * m, 14), ink, key=k, anchor=anchor_top)
            y += 22
    n_distr = int(round(d * 2 + rng.uniform(0, 1)))
    extras = ("All ages welcome", "Doors open 30 minutes early", "Sponsored by Brightwater Realty", "Limited seating",
              "#liveandlocal", "Food trucks on site", "No refunds")
    for j, s in enumerate(sample_without(rng, extras, n_distr)):
        cv.text((W - m, 22 + 20 * j), s, font(12, family, italic=True), ink, anchor="ra", distractor=True)
    return finish("event_poster", cv, facts, rng, d, size, "photo", surface=pick(rng, ((150, 140, 128), (90, 86, 80), (176, 168, 150))))


# ===================================================================================== ticket
def sample_ticket_facts(rng: np.random.Generator) -> dict[str, Any]:
    """An admission ticket (event, venue, date, time, section/row/seat, price) or a boarding pass."""
    if rng.uniform() < 0.5:
        kind = pick(rng, ("concert", "theatre", "conference"))
        spec = vocab.EVENT_KINDS[kind]
        return {
            "ticket_type": "event",
            "event": pick(rng, spec["titles"]),
            "venue": pick(rng, spec["venues"]),
            "date": S.date_between(rng),
            "time": S.clock(rng, 18, 21, 30),
            "section": pick(rng, ("A", "B", "C", "101", "112", "Balcony", "Orchestra", "GA")),
            "row": pick(rng, ("A", "C", "F", "H", "K", "M", "12", "7")),
            "seat": int(rng.integers(1, 40)),
            "price": float(pick(rng, (25, 35, 42.5, 55, 68, 75, 89, 120))),
            "currency": "USD",
            "ticket_number": S.code(rng, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10),
            "holder": S.person(rng),
        }
    airline, code = pick(rng, vocab.AIRLINES)
    (a, ac), (b, bc) = (vocab.AIRPORTS[int(i)] for i in rng.choice(len(vocab.AIRPORTS), 2, replace=False))
    dep = S.clock(rng, 6, 22, 5)
    return {
        "ticket_type": "flight",
        "passenger": S.person(rng).upper(),
        "airline": airline,
        "flight": f"{code} {int(rng.integers(100, 2999))}",
        "from": a,
        "from_city": ac,
        "to": b,
        "to_city": bc,
        "date": S.date_between(rng),
        "departure_time": dep,
        "boarding_time": S.add_minutes(dep, -int(pick(rng, (30, 40, 45)))),
        "gate": f"{pick(rng, ('A', 'B', 'C', 'D'))}{int(rng.integers(1, 40))}",
        "seat": f"{int(rng.integers(1, 38))}{pick(rng, 'ABCDEF')}",
        "class": pick(rng, ("Economy", "Economy", "Premium", "Business")),
        "booking_ref": S.code(rng, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 6),
    }


def _barcode(cv: Canvas, rng: np.random.Generator, box: tuple[int, int, int, int], ink: tuple[int, int, int], vertical: bool = False) -> None:
    x0, y0, x1, y1 = box
    pos = x0 if not vertical else y0
    end = x1 if not vertical else y1
    while pos < end - 2:
        w = int(rng.integers(1, 4))
        if rng.uniform() < 0.6:
            if vertical:
                cv.draw.rectangle((x0, pos, x1, pos + w - 1), fill=ink)
            else:
                cv.draw.rectangle((pos, y0, pos + w - 1, y1), fill=ink)
        pos += w + int(rng.integers(1, 3))


def _check_ticket(facts: dict[str, Any]) -> None:
    t = facts.get("ticket_type")
    need = {"event": ("event", "venue", "date", "time", "seat"), "flight": ("passenger", "flight", "from", "to", "date", "departure_time", "seat")}
    if t not in need:
        raise ValueError(f"ticket.ticket_type: expected 'event' or 'flight', got {t!r}")
    missing = [k for k in need[t] if k not in facts]
    if missing:
        raise ValueError(f"ticket ({t}): facts lack {', '.join(missing)}")
    if "price" in facts:
        as_number(facts["price"], "ticket.price")


def render_ticket(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                  size: tuple[int, int] | None = None) -> Rendered:
    """A photographed ticket: an admission ticket with stub and barcode, or an airline boarding pass.

    Facts (``ticket_type`` "event"): event, venue, date, time, seat, and optional section, row, price,
    currency, ticket_number, holder. (``ticket_type`` "flight"): passenger, flight, from, to, date,
    departure_time, seat, and optional airline, from_city, to_city, boarding_time, gate, class, booking_ref.
    """
    facts, d = prepare("ticket", rng, facts, difficulty, sample_ticket_facts, ("ticket_type",), _check_ticket)
    family = pick(rng, ("sans", "sans", "mono", "serif"))
    if facts["ticket_type"] == "event":
        cv = _event_ticket(facts, rng, family)
    else:
        cv = _boarding_pass(facts, rng, family)
    if d > 0.3:
        fine = pick(rng, ("Non-transferable. No re-entry.", "Subject to terms at the venue.", "Keep this ticket with you.",
                          "Valid only with photo ID."))
        cv.text((12, cv.height - 16), fine, font(10, family), (110, 110, 110), distractor=True)
    return finish("ticket", cv, facts, rng, d, size, "photo", surface=pick(rng, ((84, 64, 50), (50, 56, 64), (170, 160, 150))))


def _event_ticket(facts: dict[str, Any], rng: np.random.Generator, family: str) -> Canvas:
    W, H = 680, 270
    stub = 170
    base = pick(rng, ((250, 246, 236), (240, 248, 255), (255, 250, 250)))
    accent = pick(rng, ((150, 30, 60), (20, 80, 150), (20, 110, 80), (200, 110, 20), (60, 40, 120)))
    cv = Canvas(W, H, base)
    cv.draw.rectangle((0, 0, W - stub, 54), fill=accent)
    ink, head = (25, 25, 30), ink_on(accent)
    cv.text((20, 27), "ADMIT ONE", font(20, family, bold=True), head, anchor="lm")
    if facts.get("price") is not None:
        cv.text((W - stub - 20, 27), money(float(facts["price"]), facts.get("currency", "USD")), font(20, family, bold=True), head,
                key="price", anchor="rm")
    cv.text((20, 70), facts["event"], fit_font(facts["event"], family, W - stub - 40, 26, bold=True), ink, key="event")
    cv.text((20, 106), facts["venue"], fit_font(facts["venue"], family, W - stub - 40, 16), ink, key="venue")
    twelve = bool(rng.integers(0, 2))
    cv.text((20, 132), date_text(facts["date"], pick(rng, ("weekday", "short"))), font(16, family, bold=True), ink, key="date")
    cv.text((W - stub - 20, 132), time_text(facts["time"], twelve), font(16, family, bold=True), ink, key="time", anchor="ra")
    # seat grid
    cells = [(k, lab) for k, lab in (("section", "SECTION"), ("row", "ROW"), ("seat", "SEAT")) if facts.get(k) is not None]
    cw = (W - stub - 40) // max(len(cells), 1)
    for i, (k, lab) in enumerate(cells):
        x = 20 + i * cw
        cv.draw.rectangle((x, 166, x + cw - 10, 222), outline=accent, width=2)
        cv.text((x + 8, 172), lab, font(11, family, bold=True), accent)
        cv.text((x + 8, 190), str(facts[k]), font(22, family, bold=True), ink, key=k)
    if facts.get("holder"):
        cv.text((20, 236), f"Holder: {facts['holder']}", font(12, family), ink, key="holder")
    # perforation and stub
    for yy in range(6, H, 12):
        cv.draw.ellipse((W - stub - 3, yy, W - stub + 3, yy + 6), fill=(200, 200, 200))
    sx = W - stub + 14
    # the stub repeats the event and seat (no fact boxes here: the boxes point at the main part)
    cv.text((sx, 14), facts["event"], fit_font(facts["event"], family, stub - 28, 12, bold=True), ink)
    seat_line = " · ".join(str(facts[k]) for k, _ in cells)
    cv.text((sx, 34), seat_line, font(12, family), ink)
    _barcode(cv, rng, (sx, 60, W - 14, 200), (20, 20, 20))
    if facts.get("ticket_number"):
        cv.text((sx, 210), facts["ticket_number"], font(12, "mono"), ink, key="ticket_number")
    return cv


def _boarding_pass(facts: dict[str, Any], rng: np.random.Generator, family: str) -> Canvas:
    W, H = 700, 280
    accent = pick(rng, ((16, 60, 130), (170, 30, 40), (10, 110, 110), (90, 40, 130)))
    cv = Canvas(W, H, (252, 252, 252))
    cv.draw.rectangle((0, 0, W, 48), fill=accent)
    head = ink_on(accent)
    ink, grey = (25, 25, 30), (110, 110, 118)
    if facts.get("airline"):
        cv.text((20, 24), facts["airline"], font(20, family, bold=True), head, key="airline", anchor="lm")
    cv.text((W - 20, 24), "BOARDING PASS", font(16, family, bold=True), head, anchor="rm")
    lab = font(10, family, bold=True)
    val = font(17, family, bold=True)

    def field(x: int, y: int, label: str, key: str, text: str | None = None, fnt=val) -> None:
        cv.text((x, y), label, lab, grey)
        cv.text((x, y + 14), text if text is not None else str(facts[key]), fnt, ink, key=key)

    field(20, 62, "PASSENGER", "passenger")
    field(330, 62, "FLIGHT", "flight")
    field(450, 62, "DATE", "date", date_text(facts["date"], pick(rng, ("short", "dayfirst"))))
    big = font(40, family, bold=True)
    cv.text((20, 108), facts["from"], big, ink, key="from")
    cv.text((170, 126), "→", font(28, "sans"), accent)
    cv.text((220, 108), facts["to"], big, ink, key="to")
    if facts.get("from_city"):
        cv.text((20, 156), facts["from_city"], font(13, family), grey, key="from_city")
    if facts.get("to_city"):
        cv.text((220, 156), facts["to_city"], font(13, family), grey, key="to_city")
    twelve = bool(rng.integers(0, 2))
    x = 20
    for label, key in (("BOARDING", "boarding_time"), ("DEPARTS", "departure_time"), ("GATE", "gate"), ("SEAT", "seat"), ("CLASS", "class")):
        if facts.get(key) is None:
            continue
        text = time_text(facts[key], twelve) if key.endswith("_time") else str(facts[key])
        field(x, 190, label, key, text)
        x += max(96, int(val.getlength(text)) + 24)
    if facts.get("booking_ref"):
        field(450, 108, "BOOKING REF", "booking_ref")
    # 2-D code at the right
    qx, qy, n, c = W - 150, 110, 21, 6
    cv.draw.rectangle((qx - 4, qy - 4, qx + n * c + 4, qy + n * c + 4), fill=(255, 255, 255))
    bits = rng.integers(0, 2, size=(n, n))
    for i in range(n):
        for j in range(n):
            corner = (i < 7 and j < 7) or (i < 7 and j >= n - 7) or (i >= n - 7 and j < 7)
            on = ((i in (0, 6) or j in (0, 6) or (2 <= i <= 4 and 2 <= j <= 4)) if i < 7 and j < 7 else False) if corner else bits[i, j]
            if corner and i < 7 and j >= n - 7:
                ii, jj = i, j - (n - 7)
                on = ii in (0, 6) or jj in (0, 6) or (2 <= ii <= 4 and 2 <= jj <= 4)
            if corner and i >= n - 7 and j < 7:
                ii, jj = i - (n - 7), j
                on = ii in (0, 6) or jj in (0, 6) or (2 <= ii <= 4 and 2 <= jj <= 4)
            if on:
                cv.draw.rectangle((qx + j * c, qy + i * c, qx + j * c + c - 1, qy + i * c + c - 1), fill=(10, 10, 10))
    cv.text((20, H - 44), pick(rng, ("Gate closes 15 minutes before departure", "Have your ID ready at the gate")), font(11, family, italic=True), grey, distractor=True)
    return cv
