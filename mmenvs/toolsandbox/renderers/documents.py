"""Paper documents: receipts, invoices, document pages with a table, business cards, restaurant menus."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mmenvs.core.fonts import font

from . import sampling as S
from . import vocab
from .base import (
    Canvas, Rendered, as_number, date_text, finish, fit_font, ink_on, money, number, pick, prepare,
    require_sum, sample_without, shade, time_text, wrap,
)

PAPER_TONES = ((255, 255, 255), (252, 250, 244), (248, 246, 238), (255, 253, 247), (246, 247, 250))


# ===================================================================================== receipt
def _check_lines(facts: dict[str, Any], kind: str, items_key: str = "items") -> None:
    items = facts[items_key]
    if not isinstance(items, list) or not items:
        raise ValueError(f"{kind}.{items_key}: expected a non-empty list of line items")
    for i, it in enumerate(items):
        for k in ("quantity", "unit_price", "amount"):
            if k not in it:
                raise ValueError(f"{kind}.{items_key}[{i}]: missing {k!r}")
        q, u, a = (as_number(it[k], f"{kind}.{items_key}[{i}].{k}") for k in ("quantity", "unit_price", "amount"))
        if abs(round(q * u, 2) - a) > 0.006:
            raise ValueError(f"{kind}.{items_key}[{i}]: quantity × unit_price = {q * u:.2f} but amount is {a:.2f}")
    require_sum([it["amount"] for it in items], facts["subtotal"], f"{kind}.subtotal")
    require_sum([facts["subtotal"], facts["tax"]], facts["total"], f"{kind}.total")
    if facts.get("currency", "USD") not in ("USD", "EUR", "GBP", "CAD", "AUD", "JPY"):
        raise ValueError(f"{kind}.currency: unknown currency {facts.get('currency')!r}")


def _line_items(rng: np.random.Generator, pool: tuple[tuple[str, float, float], ...], n: int) -> list[dict[str, Any]]:
    items = []
    for name, lo, hi in sample_without(rng, pool, n):
        q = int(pick(rng, (1, 1, 1, 1, 2, 2, 3)))
        unit = S.price(rng, lo, hi, endings=(0.29, 0.49, 0.79, 0.99, 0.5, 0.25, 0.0))
        items.append({"name": name, "quantity": q, "unit_price": unit, "amount": round(q * unit, 2)})
    return items


def sample_receipt_facts(rng: np.random.Generator) -> dict[str, Any]:
    """Plausible receipt facts: merchant, date/time, line items, subtotal, tax, total, payment."""
    mtype = pick(rng, tuple(vocab.MERCHANTS))
    where = S.city(rng)
    items = _line_items(rng, vocab.MERCHANT_ITEMS[mtype], int(rng.integers(3, 8)))
    subtotal = round(sum(i["amount"] for i in items), 2)
    rate = float(pick(rng, (0.0, 4.0, 5.5, 6.25, 7.0, 8.25, 8.875, 9.5, 10.0)))
    tax = round(subtotal * rate / 100.0, 2)
    method = pick(rng, vocab.PAYMENT_METHODS)
    return {
        "merchant": pick(rng, vocab.MERCHANTS[mtype]),
        "address": S.street_address(rng, where),
        "phone": S.phone(rng, where),
        "date": S.date_between(rng),
        "time": S.clock(rng, 8, 21, 1),
        "receipt_number": S.code(rng, "0123456789", 6),
        "items": items,
        "subtotal": subtotal,
        "tax_rate": rate,
        "tax": tax,
        "total": round(subtotal + tax, 2),
        "currency": "USD",
        "payment_method": method,
        "card_last_four": None if method == "CASH" else S.code(rng, "0123456789", 4),
    }


def render_receipt(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                   size: tuple[int, int] | None = None) -> Rendered:
    """A till receipt photographed on a table: merchant header, line items, subtotal, tax, total, payment.

    Facts: merchant, date, items [{name, quantity, unit_price, amount}], subtotal, tax, total, currency;
    optional address, phone, time, receipt_number, tax_rate (percent), payment_method, card_last_four.
    """
    facts, d = prepare("receipt", rng, facts, difficulty, sample_receipt_facts,
                       ("merchant", "date", "items", "subtotal", "tax", "total", "currency"),
                       lambda f: _check_lines(f, "receipt"))
    cur = facts["currency"]
    family = pick(rng, ("mono", "mono", "typewriter", "sans"))
    if family == "typewriter" and not (json.dumps(facts, ensure_ascii=False).isascii() and money(0, facts["currency"]).isascii()):
        family = "mono"  # the typewriter face has ASCII glyphs only
    fs = int(rng.integers(14, 17))
    f = font(fs, family)
    fb = font(fs, family, bold=True)
    width = int(rng.integers(380, 440))
    pad = 22
    lh = int(fs * 1.45)
    items = facts["items"]
    n_ads = int(rng.integers(0, 2)) + int(round(d * 3 * rng.uniform(0.5, 1.0)))
    ads = sample_without(rng, vocab.AD_LINES, n_ads)
    coupon = pick(rng, vocab.COUPON_LINES) if d > 0.3 and rng.uniform() < 0.5 + d / 2 else None
    extra_lines = sum(len(it["name"]) // 24 for it in items)  # generous room for wrapped long names
    height = pad * 2 + lh * (10 + 2 * len(items) + extra_lines + len(ads)) + (90 if coupon else 0) + 60
    paper = pick(rng, PAPER_TONES)
    ink = pick(rng, ((20, 20, 20), (40, 38, 60), (34, 34, 34)))
    cv = Canvas(width, height, paper)
    cx = width // 2
    y = pad
    head = fit_font(facts["merchant"].upper(), family, width - 2 * pad, fs + 8, bold=True)
    if head.size < fs + 2:  # a long name goes on two or more lines rather than shrinking to a whisper
        head = font(fs + 4, family, bold=True)
    for line in wrap(facts["merchant"].upper(), head, width - 2 * pad):
        cv.text((cx, y), line, fit_font(line, family, width - 2 * pad, head.size, bold=True), ink, key="merchant", anchor="ma")
        y += head.size + 4
    y += 4
    for k in ("address", "phone"):
        if facts.get(k):
            line = facts[k]
            fl = fit_font(line, family, width - 2 * pad, fs)
            cv.text((cx, y), line, fl, ink, key=k, anchor="ma")
            y += lh
    y += 4
    dstyle = pick(rng, ("us", "iso", "short", "eu"))
    twelve = bool(rng.integers(0, 2))
    cv.text((pad, y), date_text(facts["date"], dstyle), f, ink, key="date")
    if facts.get("time"):
        cv.text((width - pad, y), time_text(facts["time"], twelve), f, ink, key="time", anchor="ra")
    y += lh
    if facts.get("receipt_number"):
        cv.text((pad, y), f"Receipt #{facts['receipt_number']}", f, ink, key="receipt_number")
        y += lh
    sep = "-" * int((width - 2 * pad) / max(f.getlength("-"), 1))
    cv.text((pad, y), sep, f, ink)
    y += lh
    columns = rng.uniform() < 0.4  # a till that prints a quantity column on every line
    if columns:
        qty_w = f.getlength("QTY") + 12
        cv.text((pad, y), "QTY", fb, ink)
        cv.text((pad + qty_w, y), "ITEM", fb, ink)
        cv.text((width - pad, y), "AMOUNT", fb, ink, anchor="ra")
        y += lh
    for i, it in enumerate(items):
        name = it["name"]
        room = width - 2 * pad - f.getlength(money(it["amount"], cur, symbol=False)) - 14
        if columns:
            cv.text((pad, y), str(it["quantity"]), f, ink, key=f"items.{i}.quantity")
            lines = wrap(name, f, room - qty_w)
            for line in lines[:-1]:
                cv.text((pad + qty_w, y), line, f, ink, key=f"items.{i}.name")
                y += lh
            cv.text((pad + qty_w, y), lines[-1], f, ink, key=f"items.{i}.name")
            amount_keys = [f"items.{i}.amount"] + ([f"items.{i}.unit_price"] if it["quantity"] == 1 else [])
            cv.text((width - pad, y), money(it["amount"], cur, symbol=False), f, ink, key=amount_keys, anchor="ra")
            if it["quantity"] != 1:
                y += lh
                cv.text((pad + qty_w + 12, y), f"{money(it['unit_price'], cur, symbol=False)} each", f, ink, key=f"items.{i}.unit_price")
            y += lh
            continue
        if it["quantity"] != 1:
            for line in wrap(f"{it['quantity']} x {name}", f, width - 2 * pad):
                cv.text((pad, y), line, f, ink, key=(f"items.{i}.quantity", f"items.{i}.name"))
                y += lh
            cv.text((pad + 24, y), f"@ {money(it['unit_price'], cur, symbol=False)} ea", f, ink, key=f"items.{i}.unit_price")
        else:
            lines = wrap(name, f, room)  # a long name wraps; the price goes on its last line
            for line in lines[:-1]:
                cv.text((pad, y), line, f, ink, key=f"items.{i}.name")
                y += lh
            cv.text((pad, y), lines[-1], f, ink, key=f"items.{i}.name")
        # a one-unit line prints one price: it is both the amount and the unit price
        amount_keys = [f"items.{i}.amount"] + ([f"items.{i}.unit_price"] if it["quantity"] == 1 else [])
        cv.text((width - pad, y), money(it["amount"], cur, symbol=False), f, ink, key=amount_keys, anchor="ra")
        y += lh
    cv.text((pad, y), sep, f, ink)
    y += lh
    rows = [("SUBTOTAL", "subtotal")]
    tax_label = f"TAX {number(facts['tax_rate'])}%" if "tax_rate" in facts else "TAX"
    rows.append((tax_label, "tax"))
    for label, k in rows:
        cv.text((pad, y), label, f, ink, key="tax_rate" if k == "tax" and "tax_rate" in facts else None)
        cv.text((width - pad, y), money(facts[k], cur, symbol=False), f, ink, key=k, anchor="ra")
        y += lh
    ft = font(fs + 3, family, bold=True)
    cv.text((pad, y), "TOTAL", ft, ink)
    cv.text((width - pad, y), money(facts["total"], cur), ft, ink, key="total", anchor="ra")
    y += lh + 8
    if facts.get("payment_method"):
        pm = facts["payment_method"]
        if facts.get("card_last_four"):
            cv.text((pad, y), f"{pm} **** {facts['card_last_four']}", f, ink, key=("payment_method", "card_last_four"))
        else:
            cv.text((pad, y), pm, f, ink, key="payment_method")
        y += lh
    y += 6
    cv.text((cx, y), pick(rng, ("THANK YOU!", "Thank you for your visit", "Have a great day!")), fb, ink, anchor="ma", distractor=True)
    y += lh
    for ad in ads:
        fa = fit_font(ad, family, width - 2 * pad, fs - 2)
        cv.text((cx, y), ad, fa, ink, anchor="ma", distractor=True)
        y += lh
    if coupon:
        y += 8
        cv.draw.rectangle((pad, y, width - pad, y + 70), outline=ink, width=2)
        for j, line in enumerate(wrap(coupon, fb, width - 2 * pad - 20)[:2]):
            cv.text((cx, y + 12 + j * lh), line, fb, ink, anchor="ma", distractor=True)
        y += 80
    cv.crop_height(y + pad)
    return finish("receipt", cv, facts, rng, d, size, "photo", surface=pick(rng, ((92, 70, 52), (60, 62, 70), (140, 120, 96))))


# ===================================================================================== invoice
def sample_invoice_facts(rng: np.random.Generator) -> dict[str, Any]:
    """Invoice facts: number, dates, seller, client, line items, subtotal, tax, total."""
    seller = S.company(rng)
    where = S.city(rng)
    n = int(rng.integers(2, 6))
    services = (
        ("Consulting hours", 85, 220), ("UX audit", 900, 2400), ("Website hosting (annual)", 240, 600),
        ("Logo design", 350, 1200), ("Data migration", 600, 3000), ("On-site training", 450, 1500),
        ("Photography session", 300, 900), ("Copywriting (per page)", 60, 180), ("Maintenance plan", 120, 480),
        ("Cloud storage 1 TB", 9, 30), ("Hardware installation", 150, 650), ("Project management", 75, 160),
    )
    items = []
    for name, lo, hi in sample_without(rng, services, n):
        q = int(pick(rng, (1, 1, 2, 3, 4, 5, 8, 10, 12)))
        unit = float(int(rng.integers(lo, hi)))
        items.append({"description": name, "quantity": q, "unit_price": unit, "amount": round(q * unit, 2)})
    subtotal = round(sum(i["amount"] for i in items), 2)
    rate = float(pick(rng, (0.0, 5.0, 7.5, 8.0, 10.0, 20.0)))
    tax = round(subtotal * rate / 100, 2)
    issue = S.date_between(rng)
    terms = int(pick(rng, (14, 30, 45)))
    client_name = S.person(rng)
    return {
        "invoice_number": f"INV-{S.date_between(rng)[:4]}-{S.code(rng, '0123456789', 4)}",
        "issue_date": issue,
        "due_date": S.add_days(issue, terms),
        "seller": {"name": seller, "address": S.street_address(rng, where), "email": f"billing@{S.company_domain(seller)}",
                   "phone": S.phone(rng, where)},
        "client": {"name": client_name, "company": S.company(rng), "address": S.street_address(rng)},
        "items": items,
        "subtotal": subtotal,
        "tax_rate": rate,
        "tax": tax,
        "total": round(subtotal + tax, 2),
        "currency": "USD",
        "payment_terms": f"Net {terms}",
    }


def render_invoice(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                   size: tuple[int, int] | None = None) -> Rendered:
    """A scanned business invoice: seller letterhead, bill-to block, item table, totals and due date.

    Facts: invoice_number, issue_date, due_date, seller {name, address, email, phone}, client {name,
    company, address}, items [{description, quantity, unit_price, amount}], subtotal, tax_rate, tax,
    total, currency, payment_terms.
    """
    facts, d = prepare("invoice", rng, facts, difficulty, sample_invoice_facts,
                       ("invoice_number", "issue_date", "due_date", "seller", "client", "items", "subtotal", "tax", "total", "currency"),
                       lambda f: _check_lines(f, "invoice"))
    cur = facts["currency"]
    W = 640
    items = facts["items"]
    H = 560 + 30 * len(items)
    family = pick(rng, ("sans", "serif", "stix"))
    accent = pick(rng, ((30, 80, 150), (160, 40, 50), (20, 110, 90), (70, 60, 140), (40, 40, 40), (190, 100, 20)))
    cv = Canvas(W, H, pick(rng, PAPER_TONES))
    ink = (25, 25, 30)
    grey = (95, 95, 105)
    m = 40
    f = font(13, family)
    fb = font(13, family, bold=True)
    seller, client = facts["seller"], facts["client"]
    title = pick(rng, ("INVOICE", "Invoice", "TAX INVOICE"))
    ds = pick(rng, ("short", "long", "us", "iso"))
    meta = [("Invoice no.", facts["invoice_number"], "invoice_number"), ("Date", date_text(facts["issue_date"], ds), "issue_date"),
            ("Due date", date_text(facts["due_date"], ds), "due_date")]
    if rng.uniform() < 0.5:
        # letterhead: monogram + seller name on the left, title and numbers on the right
        initials = "".join(w[0] for w in seller["name"].split()[:2]).upper()
        cv.draw.rounded_rectangle((m, m, m + 44, m + 44), radius=8, fill=accent)
        cv.text((m + 22, m + 22), initials, font(18, "sans", bold=True), ink_on(accent), anchor="mm")
        cv.text((m + 56, m + 2), seller["name"], fit_font(seller["name"], family, 250, 20, bold=True), ink, key="seller.name")
        y = m + 28
        for k in ("address", "email", "phone"):
            if seller.get(k):
                cv.text((m + 56, y), seller[k], font(11, family), grey, key=f"seller.{k}")
                y += 15
        cv.text((W - m, m), title, fit_font(title, family, 215, 28, bold=True), accent, anchor="ra")
        yy = m + 40
        for label, value, k in meta:
            cv.text((W - m - 240, yy), label, f, grey)
            cv.text((W - m, yy), value, fb, ink, key=k, anchor="ra")
            yy += 18
        y = max(y, yy) + 18
        cv.text((m, y), "BILL TO", font(11, family, bold=True), accent)
        y += 17
        for k in ("name", "company", "address"):
            if client.get(k):
                cv.text((m, y), client[k], fb if k == "name" else f, ink, key=f"client.{k}")
                y += 17
    else:
        # a coloured band with the title, the seller under it, then numbers (left) beside bill-to (right)
        cv.draw.rectangle((0, 0, W, 74), fill=accent)
        band_ink = ink_on(accent)
        cv.text((m, 37), title, fit_font(title, family, 240, 30, bold=True), band_ink, anchor="lm")
        cv.text((W - m, 26), seller["name"], fit_font(seller["name"], family, 300, 17, bold=True), band_ink, key="seller.name", anchor="ra")
        contact = " · ".join(seller[k] for k in ("email", "phone") if seller.get(k))
        if contact:
            cv.text((W - m, 50), contact, fit_font(contact, family, 330, 11), band_ink,
                    key=[f"seller.{k}" for k in ("email", "phone") if seller.get(k)], anchor="ra")
        y = 94
        if seller.get("address"):
            cv.text((W - m, y), seller["address"], font(11, family), grey, key="seller.address", anchor="ra")
        y += 28
        yy = y
        for label, value, k in meta:
            cv.text((m, yy), label.upper(), font(10, family, bold=True), grey)
            cv.text((m, yy + 13), value, fb, ink, key=k)
            yy += 36
        xr = W // 2 + 20
        cv.text((xr, y), "BILLED TO", font(10, family, bold=True), grey)
        y += 14
        for k in ("name", "company", "address"):
            if client.get(k):
                cv.text((xr, y), client[k], fit_font(client[k], family, W - m - xr, 13, bold=k == "name"), ink, key=f"client.{k}")
                y += 17
        y = max(y, yy)
    y += 16
    # item table
    cols = (m, W - m - 250, W - m - 150, W - m)
    cv.draw.rectangle((m, y, W - m, y + 26), fill=accent)
    th = ink_on(accent)
    cv.text((cols[0] + 8, y + 13), "Description", fb, th, anchor="lm")
    cv.text((cols[1] + 40, y + 13), "Qty", fb, th, anchor="rm")
    cv.text((cols[2] + 40, y + 13), "Unit price", fb, th, anchor="rm")
    cv.text((cols[3] - 8, y + 13), "Amount", fb, th, anchor="rm")
    y += 26
    zebra = shade(accent, 1.9)
    for i, it in enumerate(items):
        if i % 2 == 1:
            cv.draw.rectangle((m, y, W - m, y + 28), fill=zebra)
        cy = y + 14
        cv.text((cols[0] + 8, cy), it["description"], fit_font(it["description"], family, cols[1] - cols[0] - 30, 13), ink, key=f"items.{i}.description", anchor="lm")
        cv.text((cols[1] + 40, cy), number(it["quantity"]), f, ink, key=f"items.{i}.quantity", anchor="rm")
        cv.text((cols[2] + 40, cy), money(it["unit_price"], cur), f, ink, key=f"items.{i}.unit_price", anchor="rm")
        cv.text((cols[3] - 8, cy), money(it["amount"], cur), f, ink, key=f"items.{i}.amount", anchor="rm")
        y += 28
    cv.draw.line((m, y, W - m, y), fill=grey, width=1)
    y += 12
    tot = [("Subtotal", "subtotal", f)]
    tot.append((f"Tax ({number(facts['tax_rate'])}%)" if "tax_rate" in facts else "Tax", "tax", f))
    for label, k, fnt in tot:
        cv.text((W - m - 200, y), label, fnt, grey, key="tax_rate" if k == "tax" and "tax_rate" in facts else None)
        cv.text((W - m - 8, y), money(facts[k], cur), fnt, ink, key=k, anchor="ra")
        y += 20
    cv.draw.rectangle((W - m - 210, y, W - m, y + 32), fill=shade(accent, 1.75))
    cv.text((W - m - 200, y + 16), "Total due", font(15, family, bold=True), ink, anchor="lm")
    cv.text((W - m - 8, y + 16), money(facts["total"], cur), font(15, family, bold=True), ink, key="total", anchor="rm")
    y += 52
    if facts.get("payment_terms"):
        cv.text((m, y), f"Payment terms: {facts['payment_terms']}", f, ink, key="payment_terms")
        y += 18
    # bank line and thanks: real invoices have them, but they are not facts to act on
    bank = f"Bank transfer: ACCT {S.code(rng, '0123456789', 8)} · ROUTING {S.code(rng, '0123456789', 9)}"
    cv.text((m, y), bank, font(11, family), grey, distractor=True)
    y += 16
    if d > 0.2:
        late = f"Late payments incur a {int(pick(rng, (2, 3, 5)))}% monthly fee."
        cv.text((m, y), late, font(11, family), grey, distractor=True)
        y += 16
    y += 24
    cv.text((W // 2, y), pick(rng, ("Thank you for your business!", "We appreciate your prompt payment.")),
            font(12, family, italic=True), grey, anchor="ma", distractor=True)
    cv.crop_height(y + 40)
    return finish("invoice", cv, facts, rng, d, size, "scan")


# ===================================================================================== document page
_DOC_TABLES = ("budget", "schedule", "staffing")


def _doc_table(rng: np.random.Generator, kind: str, date0: str) -> dict[str, Any]:
    if kind == "budget":
        lines = sample_without(rng, ("Software licences", "Travel", "Contractors", "Hardware", "Training", "Marketing", "Office supplies", "Catering"), int(rng.integers(3, 6)))
        rows = []
        for name in lines:
            q1, q2 = (int(rng.integers(4, 90)) * 100 for _ in range(2))
            rows.append([name, q1, q2, q1 + q2])
        return {"caption": "Table 1. Budget by line item (USD)", "columns": ["Item", "Q1", "Q2", "Total"], "rows": rows}
    if kind == "schedule":
        tasks = sample_without(rng, ("Requirements sign-off", "Vendor selection", "Pilot launch", "Data clean-up", "User training", "Go-live", "Retrospective", "Security review"), int(rng.integers(3, 6)))
        rows = []
        offset = 3
        for t in tasks:
            offset += int(rng.integers(4, 20))
            rows.append([t, S.person(rng), S.add_days(date0, offset), pick(rng, ("Done", "On track", "At risk", "Not started"))])
        return {"caption": "Table 1. Milestones", "columns": ["Milestone", "Owner", "Due", "Status"], "rows": rows}
    people = [S.person(rng) for _ in range(int(rng.integers(3, 6)))]
    rows = [[p, pick(rng, vocab.JOB_TITLES), int(rng.integers(4, 41)), int(rng.integers(45, 180))] for p in people]
    return {"caption": "Table 1. Team allocation", "columns": ["Name", "Role", "Hours/week", "Rate ($/h)"], "rows": rows}


def sample_document_page_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A memo/report page: title, date, author, department, two or three paragraphs and a table."""
    project = pick(rng, vocab.PROJECT_NAMES)
    dept = pick(rng, vocab.DEPARTMENTS)
    date0 = S.date_between(rng)
    author = S.person(rng)
    meeting = S.add_days(date0, int(rng.integers(3, 20)))
    room = pick(rng, vocab.ROOMS)
    budget = int(rng.integers(12, 240)) * 1000
    kind = pick(rng, vocab.DOC_KINDS)
    title = {"memo": f"Memo: {project} update", "report": f"{project} — Status Report", "minutes": f"Minutes: {project} steering meeting",
             "notice": f"Notice: {project} schedule change"}[kind]
    paras = [
        f"This {kind} summarises the current state of {project}, run by the {dept} department. "
        f"The approved budget for the current phase is ${budget:,}, and spending so far remains within the plan.",
        f"The next review meeting is scheduled for {date_text(meeting, 'long')} in {room}. "
        f"Please send questions to {author} before then so they can be added to the agenda.",
    ]
    if rng.uniform() < 0.6:
        paras.append(pick(rng, (
            "Risks are tracked weekly; items marked at risk need an owner's mitigation note by Friday.",
            "All figures are preliminary and may change after the quarterly audit.",
            "Teams should record their hours in the shared tracker every Thursday afternoon.",
        )))
    return {
        "doc_type": kind,
        "title": title,
        "date": date0,
        "author": author,
        "department": dept,
        "paragraphs": paras,
        "key_facts": {"project": project, "budget": budget, "meeting_date": meeting, "meeting_room": room},
        "table": _doc_table(rng, pick(rng, _DOC_TABLES), date0),
    }


def _check_doc(facts: dict[str, Any]) -> None:
    t = facts["table"]
    if not isinstance(t, dict) or "columns" not in t or "rows" not in t:
        raise ValueError("document_page.table: expected {'columns': [...], 'rows': [[...], ...]}")
    for i, r in enumerate(t["rows"]):
        if len(r) != len(t["columns"]):
            raise ValueError(f"document_page.table.rows[{i}]: {len(r)} cells but {len(t['columns'])} columns")
    if not isinstance(facts["paragraphs"], list) or not all(isinstance(p, str) for p in facts["paragraphs"]):
        raise ValueError("document_page.paragraphs: expected a list of strings")


def _cell_text(v: Any, date_style: str) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return number(v)
    if isinstance(v, str) and len(v) == 10 and v[4] == "-" and v[7] == "-":
        try:
            return date_text(v, date_style)
        except ValueError:
            return v
    return str(v)


def render_document_page(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                         size: tuple[int, int] | None = None) -> Rendered:
    """A scanned office document: heading, author/date line, paragraphs and a data table.

    Facts: title, date, author, department, paragraphs [str], table {caption, columns, rows} (cells
    typed: numbers as numbers, dates ISO), optional doc_type and key_facts (values named in the text).
    """
    facts, d = prepare("document_page", rng, facts, difficulty, sample_document_page_facts,
                       ("title", "paragraphs", "table"), _check_doc)
    W = 620
    family = pick(rng, ("serif", "sans", "stix"))
    body = font(14, family)
    bold = font(14, family, bold=True)
    ink = (22, 22, 26)
    accent = pick(rng, ((25, 60, 120), (20, 20, 20), (120, 30, 40), (30, 90, 70)))
    m = 48
    lines = [wrap(p, body, W - 2 * m) for p in facts["paragraphs"]]
    table = facts["table"]
    H = m * 2 + 120 + sum(len(ls) * 21 + 12 for ls in lines) + 28 * (len(table["rows"]) + 2) + 70
    cv = Canvas(W, H, pick(rng, PAPER_TONES))
    y = m
    if facts.get("department"):
        cv.text((m, y), facts["department"].upper() + " DEPARTMENT", font(11, family, bold=True), accent, key="department")
    cv.text((W - m, y), pick(rng, ("INTERNAL", "CONFIDENTIAL", "DRAFT", "FOR REVIEW")), font(11, family, bold=True), (150, 150, 150),
            anchor="ra", distractor=True)
    y += 24
    tf = fit_font(facts["title"], family, W - 2 * m, 22, bold=True)
    cv.text((m, y), facts["title"], tf, ink, key="title")
    y += tf.size + 10
    parts = []
    if facts.get("author"):
        parts.append(("Prepared by ", None))
        parts.append((facts["author"], "author"))
    if facts.get("date"):
        parts.append(("  ·  " if parts else "", None))
        parts.append((date_text(facts["date"], pick(rng, ("long", "dayfirst", "iso"))), "date"))
    x = m
    small = font(12, family, italic=True)
    for s, k in parts:
        if s:
            box = cv.text((x, y), s, small, (90, 90, 96), key=k)
            x = box[2]
    y += 22
    cv.draw.line((m, y, W - m, y), fill=accent, width=2)
    y += 14
    for i, ls in enumerate(lines):
        for line in ls:
            cv.text((m, y), line, body, ink, key=f"paragraphs.{i}")
            y += 21
        y += 12
    # table
    cols = table["columns"]
    widths = []
    ds = pick(rng, ("short", "iso", "us"))
    cells = [[_cell_text(v, ds) for v in row] for row in table["rows"]]
    for j, c in enumerate(cols):
        widths.append(max([bold.getlength(str(c))] + [body.getlength(r[j]) for r in cells]) + 18)
    scale = min(1.0, (W - 2 * m) / sum(widths))
    widths = [w * scale for w in widths]
    tf2 = body if scale >= 1 else font(max(10, int(14 * scale)), family)
    tb2 = bold if scale >= 1 else font(max(10, int(14 * scale)), family, bold=True)
    xs = [m]
    for w in widths:
        xs.append(xs[-1] + w)
    header_bg = shade(accent, 1.85)
    cv.draw.rectangle((m, y, xs[-1], y + 26), fill=header_bg)
    for j, c in enumerate(cols):
        cv.text((xs[j] + 8, y + 13), str(c), tb2, ink, key=f"table.columns.{j}", anchor="lm")
    y += 26
    for i, row in enumerate(cells):
        for j, s in enumerate(row):
            numeric = isinstance(table["rows"][i][j], (int, float)) and not isinstance(table["rows"][i][j], bool)
            if numeric:
                cv.text((xs[j + 1] - 8, y + 13), s, tf2, ink, key=f"table.rows.{i}.{j}", anchor="rm")
            else:
                cv.text((xs[j] + 8, y + 13), s, tf2, ink, key=f"table.rows.{i}.{j}", anchor="lm")
        y += 26
        cv.draw.line((m, y, xs[-1], y), fill=(200, 200, 205), width=1)
    cv.draw.rectangle((m, y - 26 * (len(cells) + 1), xs[-1], y), outline=(120, 120, 130), width=1)
    y += 8
    if table.get("caption"):
        cv.text((m, y), table["caption"], font(12, family, italic=True), (80, 80, 88), key="table.caption")
    y += 40
    cv.text((W // 2, y), f"Page 1 of {int(rng.integers(1, 5))}", font(11, family), (130, 130, 136), anchor="ma", distractor=True)
    cv.crop_height(y + 36)
    return finish("document_page", cv, facts, rng, d, size, "scan")


# ===================================================================================== business card
def sample_business_card_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A person's card: name, title, company, phone, email, website, address."""
    name = S.person(rng)
    comp = S.company(rng)
    where = S.city(rng)
    dom = S.company_domain(comp)
    facts = {
        "name": name,
        "job_title": pick(rng, vocab.JOB_TITLES),
        "company": comp,
        "phone": S.phone(rng, where),
        "email": S.email_for(name, dom),
        "website": f"www.{dom}",
        "address": S.street_address(rng, where),
    }
    if rng.uniform() < 0.4:
        facts["mobile"] = S.phone(rng, where)
    return facts


def render_business_card(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                         size: tuple[int, int] | None = None) -> Rendered:
    """A photographed business card in one of three layouts (band, centred, logo-left).

    Facts: name, company, and optional job_title, phone, mobile, email, website, address.
    """
    facts, d = prepare("business_card", rng, facts, difficulty, sample_business_card_facts, ("name", "company"))
    W, H = 560, 320
    layout = pick(rng, ("band", "centered", "logo"))
    dark = rng.uniform() < 0.25
    bg = pick(rng, ((28, 32, 44), (20, 60, 70), (60, 24, 40))) if dark else pick(rng, ((255, 255, 255), (248, 245, 238), (240, 244, 248)))
    accent = pick(rng, ((200, 70, 40), (30, 110, 190), (40, 150, 110), (200, 160, 40), (150, 70, 170)))
    ink = ink_on(bg)
    sub = shade(ink, 0.6) if not dark else (205, 210, 220)
    family = pick(rng, ("sans", "serif", "stix"))
    cv = Canvas(W, H, bg)
    contact = [(k, facts[k]) for k in ("phone", "mobile", "email", "website", "address") if facts.get(k)]
    labels = {"phone": "T", "mobile": "M", "email": "E", "website": "W", "address": "A"}
    if layout == "band":
        cv.draw.rectangle((0, 0, 18, H), fill=accent)
        x, y = 48, 40
        cv.text((x, y), facts["name"], fit_font(facts["name"], family, W - 90, 28, bold=True), ink, key="name")
        y += 38
        if facts.get("job_title"):
            cv.text((x, y), facts["job_title"], font(15, family, italic=True), sub, key="job_title")
            y += 24
        cv.text((x, y), facts["company"], font(16, family, bold=True), accent if not dark else shade(accent, 1.4), key="company")
        y = H - 30 - 22 * len(contact)
        for k, v in contact:
            cv.text((x, y), f"{labels[k]}  ", font(13, "mono", bold=True), accent if not dark else shade(accent, 1.4))
            cv.text((x + 26, y), v, fit_font(v, family, W - x - 60, 14), ink, key=k)
            y += 22
    elif layout == "centered":
        cx = W // 2
        cv.draw.line((cx - 40, 36, cx + 40, 36), fill=accent, width=3)
        cv.text((cx, 52), facts["company"].upper(), fit_font(facts["company"].upper(), family, W - 60, 15, bold=True), accent if not dark else shade(accent, 1.4), key="company", anchor="ma")
        cv.text((cx, 96), facts["name"], fit_font(facts["name"], family, W - 60, 30), ink, key="name", anchor="ma")
        y = 138
        if facts.get("job_title"):
            cv.text((cx, y), facts["job_title"], font(14, family, italic=True), sub, key="job_title", anchor="ma")
        y = H - 26 - 20 * len(contact)
        for k, v in contact:
            cv.text((cx, y), v, fit_font(v, family, W - 60, 13), ink, key=k, anchor="ma")
            y += 20
    else:
        cv.draw.ellipse((36, 40, 116, 120), fill=accent)
        initials = "".join(w[0] for w in facts["company"].split()[:2]).upper()
        cv.text((76, 80), initials, font(30, "sans", bold=True), ink_on(accent), anchor="mm")
        cv.text((76, 136), facts["company"], fit_font(facts["company"], family, 130, 12, bold=True), ink, key="company", anchor="ma")
        cv.draw.line((160, 36, 160, H - 36), fill=sub, width=1)
        x = 184
        cv.text((x, 40), facts["name"], fit_font(facts["name"], family, W - x - 24, 26, bold=True), ink, key="name")
        if facts.get("job_title"):
            cv.text((x, 76), facts["job_title"], fit_font(facts["job_title"], family, W - x - 24, 14, italic=True), sub, key="job_title")
        y = H - 30 - 22 * len(contact)
        for k, v in contact:
            cv.text((x, y), v, fit_font(v, family, W - x - 24, 14), ink, key=k)
            y += 22
    if d > 0.4 and rng.uniform() < d:
        slogan = pick(rng, ("Building better tomorrows", "Since 1998", "Award-winning service", "Think ahead."))
        cv.text((W - 20, 16), slogan, font(11, family, italic=True), sub, anchor="ra", distractor=True)
    return finish("business_card", cv, facts, rng, d, size, "photo", surface=pick(rng, ((112, 84, 60), (48, 52, 58), (180, 176, 168))))


# ===================================================================================== restaurant menu
def sample_restaurant_menu_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A menu: restaurant, sections of dishes with descriptions, prices and dietary tags."""
    cuisine = pick(rng, tuple(vocab.CUISINES))
    sections = []
    names = list(vocab.CUISINES[cuisine])
    for sec in sample_without(rng, names, int(rng.integers(2, min(4, len(names)) + 1))):
        dishes = vocab.CUISINES[cuisine][sec]
        items = []
        for name, desc, lo, hi, tags in sample_without(rng, dishes, int(rng.integers(2, min(4, len(dishes)) + 1))):
            items.append({"name": name, "description": desc, "price": S.price(rng, lo, hi, endings=(0.0, 0.5, 0.95, 0.0)), "tags": list(tags)})
        sections.append({"name": sec, "items": items})
    sections.sort(key=lambda s: names.index(s["name"]))
    where = S.city(rng)
    return {
        "restaurant": pick(rng, vocab.RESTAURANT_NAMES[cuisine]),
        "sections": sections,
        "currency": "USD",
        "phone": S.phone(rng, where),
        "address": S.street_address(rng, where),
        "hours": pick(rng, ("Tue–Sun 5–10 pm", "Daily 11:30 am – 10 pm", "Mon–Sat 12–3 pm & 6–11 pm")),
    }


def _check_menu(facts: dict[str, Any]) -> None:
    for i, sec in enumerate(facts["sections"]):
        for j, it in enumerate(sec.get("items", [])):
            if "name" not in it or "price" not in it:
                raise ValueError(f"restaurant_menu.sections[{i}].items[{j}]: needs 'name' and 'price'")
            as_number(it["price"], f"restaurant_menu.sections[{i}].items[{j}].price")


def render_restaurant_menu(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                           size: tuple[int, int] | None = None) -> Rendered:
    """A printed restaurant menu: name, sections, dishes with descriptions, dietary tags and prices.

    Facts: restaurant, sections [{name, items [{name, price, description?, tags?}]}], currency;
    optional phone, address, hours.
    """
    facts, d = prepare("restaurant_menu", rng, facts, difficulty, sample_restaurant_menu_facts,
                       ("restaurant", "sections", "currency"), _check_menu)
    cur = facts["currency"]
    W = 540
    style = pick(rng, ("classic", "modern", "chalk"))
    if style == "chalk":
        paper = (38, 44, 41)
        ink, sub, accent = (240, 240, 232), (200, 204, 196), (240, 200, 110)
        family_h, family_b = "serif", "sans"
    elif style == "modern":
        paper = (250, 250, 250)
        ink, sub, accent = (20, 20, 20), (100, 100, 100), pick(rng, ((210, 80, 40), (30, 120, 110), (160, 40, 70)))
        family_h, family_b = "sans", "sans"
    else:
        paper = (250, 244, 230)
        ink, sub, accent = (50, 36, 24), (110, 90, 70), (140, 30, 30)
        family_h, family_b = "stix", "serif"
    fp = font(15, family_b, bold=style != "classic")
    n_items = sum(len(s["items"]) for s in facts["sections"])
    H = 150 + 52 * len(facts["sections"]) + 44 * n_items + 80
    cv = Canvas(W, H, paper)
    if style == "chalk":
        cv.draw.rectangle((8, 8, W - 8, H - 8), outline=(120, 96, 60), width=6)
    elif style == "classic":
        cv.draw.rectangle((14, 14, W - 14, H - 14), outline=accent, width=1)
        cv.draw.rectangle((19, 19, W - 19, H - 19), outline=accent, width=1)
    cx = W // 2
    name_font = fit_font(facts["restaurant"], family_h, W - 80, 34, bold=True)
    cv.text((cx, 40), facts["restaurant"], name_font, accent if style != "modern" else ink, key="restaurant", anchor="ma")
    y = 40 + name_font.size + 14
    tagline = pick(rng, ("est. 2009", "— fresh · local · seasonal —", "family recipes since 1987", "kitchen open late"))
    cv.text((cx, y), tagline, font(12, family_b, italic=True), sub, anchor="ma", distractor=True)
    y += 30
    m = 48
    for i, sec in enumerate(facts["sections"]):
        sf = font(19, family_h, bold=True)
        label = sec["name"].upper() if style != "classic" else sec["name"]
        cv.text((cx, y), label, sf, accent, key=f"sections.{i}.name", anchor="ma")
        y += 30
        for j, it in enumerate(sec["items"]):
            base = f"sections.{i}.items.{j}"
            nb = cv.text((m, y), it["name"], fit_font(it["name"], family_b, W - 2 * m - 150, 15, bold=True), ink, key=f"{base}.name")
            tags = it.get("tags") or []
            if tags:
                cv.text((nb[2] + 8, y + 2), " ".join(tags), font(11, family_b, bold=True), accent, key=f"{base}.tags")
            pb = cv.text((W - m, y), money(it["price"], cur, symbol=bool(style == "modern")) if cur == "USD" else money(it["price"], cur),
                         fp, ink, key=f"{base}.price", anchor="ra")
            if style == "classic":  # dotted leader between name and price
                x0 = nb[2] + (60 if tags else 10)
                for x in range(int(x0), int(pb[0]) - 6, 6):
                    cv.draw.point((x, y + 12), fill=sub)
            y += 20
            if it.get("description"):
                cv.text((m, y), it["description"], fit_font(it["description"], family_b, W - 2 * m, 12, italic=True), sub, key=f"{base}.description")
            y += 24
        y += 16
    foot = []
    for k in ("address", "phone", "hours"):
        if facts.get(k):
            foot.append(k)
    fy = H - 30 - 16 * len(foot)
    for k in foot:
        cv.text((cx, fy), facts[k], font(11, family_b), sub, key=k, anchor="ma")
        fy += 16
    if d > 0.3:
        note = pick(rng, ("A 20% service charge is added for parties of 6+", "Ask about our daily specials", "Please inform staff of any allergies"))
        cv.text((cx, y), note, font(11, family_b, italic=True), sub, anchor="ma", distractor=True)
    return finish("restaurant_menu", cv, facts, rng, d, size, "photo", surface=pick(rng, ((96, 72, 50), (58, 52, 48))))
