"""What the scenario's images show: items (one per image) and the context images around them.

An *item* is the thing one image is about — an event (poster, ticket), a bill (receipt, invoice), a
product (product card) or a person (business card) — reduced to the fields the flows and app
groups reason with: ``label``, ``amount``, ``date``, ``time``, ``place`` and, for lookup chains, a
``pointer`` (a secondary detail that singles the image out: the venue, the invoice number, the brand).
Facts start from the renderers' own samplers (realistic, internally consistent) and are then pinned
to what the scenario needs (dates relative to its reference time, distinct labels and amounts).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..renderers import documents, events, products, vocab
from ..renderers import sampling as S

#: Item families and the renderer kinds that show them.
FAMILIES: dict[str, tuple[str, ...]] = {
    "events": ("event_poster", "ticket"),
    "bills": ("receipt", "invoice"),
    "invoices": ("invoice",),
    "products": ("product_card",),
    "people": ("business_card",),
}


@dataclass(frozen=True)
class Item:
    """One image's content as the generator reasons about it."""

    key: str
    kind: str
    family: str
    label: str
    amount: float | None = None
    date: str | None = None
    time: str | None = None
    end_time: str | None = None
    place: str | None = None
    pointer: str = ""
    pointer_phrase: str = ""
    rating: float | None = None
    person: dict[str, Any] | None = None
    facts: dict[str, Any] = field(default_factory=dict, compare=False)

    def with_(self, **changes: Any) -> "Item":
        return replace(self, **changes)


def _clock_after(rng: np.random.Generator, lo: int, hi: int) -> str:
    return S.clock(rng, lo, hi, 30)


def _event(rng: np.random.Generator, key: str, kind: str, day: str) -> Item:
    if kind == "event_poster":
        f = events.sample_event_poster_facts(rng)
        start = _clock_after(rng, 10, 21)
        f.update(date=day, start_time=start, end_time=S.add_minutes(start, int(S.pick(rng, (90, 120, 150)))))
        if not f["price"]:
            f["price"] = float(S.pick(rng, (12, 18, 24, 30, 45)))
        return Item(key, kind, "events", f["title"], float(f["price"]), day, f["start_time"], f["end_time"], f["venue"],
                    pointer=f["venue"], pointer_phrase=f"the one at {f['venue']}", facts=f)
    f = events.sample_ticket_facts(rng)
    while f["ticket_type"] != "event":
        f = events.sample_ticket_facts(rng)
    start = _clock_after(rng, 17, 22)
    f.update(date=day, time=start)
    return Item(key, kind, "events", f["event"], float(f["price"]), day, start, S.add_minutes(start, 120), f["venue"],
                pointer=f["venue"], pointer_phrase=f"the one at {f['venue']}", facts=f)


def _bill(rng: np.random.Generator, key: str, kind: str, day: str) -> Item:
    if kind == "receipt":
        f = documents.sample_receipt_facts(rng)
        f.update(date=day)
        return Item(key, kind, "bills", f["merchant"], float(f["total"]), day, f.get("time"), None, f.get("address"),
                    pointer=f["receipt_number"], pointer_phrase=f"receipt number {f['receipt_number']}", facts=f)
    f = documents.sample_invoice_facts(rng)
    issue = S.add_days(day, -int(S.pick(rng, (14, 21, 30))))
    f.update(issue_date=issue, due_date=day)
    return Item(key, kind, "bills", f["seller"]["name"], float(f["total"]), day, None, None, None,
                pointer=f["invoice_number"], pointer_phrase=f"invoice {f['invoice_number']}", facts=f)


def _product(rng: np.random.Generator, key: str) -> Item:
    f = products.sample_product_card_facts(rng)
    return Item(key, "product_card", "products", f["name"], float(f["price"]), rating=float(f.get("rating", 4.0)),
                pointer=f.get("brand", f["name"].split()[0]), pointer_phrase=f"the {f.get('brand', f['name'].split()[0])} one",
                facts=f)


def _person(rng: np.random.Generator, key: str, *, with_contact_details: bool = True) -> Item:
    f = documents.sample_business_card_facts(rng)
    if not with_contact_details:  # the card shows who and where, the phone book has the numbers
        f = {k: v for k, v in f.items() if k in ("name", "job_title", "company", "website", "address")}
    person = {"name": f["name"], "company": f["company"], "job_title": f.get("job_title"), "phone_number": f.get("phone"),
              "email": f.get("email"), "address": f.get("address")}
    return Item(key, "business_card", "people", f["name"], pointer=f["company"], pointer_phrase=f"the one from {f['company']}",
                person=person, facts=f)


def make_items(rng: np.random.Generator, family: str, n: int, ref_date: str, *, keys: list[str],
               contact_details: bool = True) -> list[Item]:
    """``n`` items of ``family`` with distinct labels, amounts, pointers and (events) dates."""
    kinds = FAMILIES[family]
    out: list[Item] = []
    seen_labels: set[str] = set()
    seen_amounts: set[float] = set()
    seen_pointers: set[str] = set()
    seen_days: set[str] = set()
    seen_times: set[str] = set()  # distinct start times: alarms for two events must not clash
    attempts = 0
    while len(out) < n:
        attempts += 1
        if attempts > 400:
            raise RuntimeError(f"could not draw {n} distinct {family} items")  # vocabularies are far larger than 6
        kind = kinds[len(out) % len(kinds)] if len(kinds) > 1 and rng.uniform() < 0.7 else S.pick(rng, kinds)
        key = keys[len(out)]
        if family == "events":
            day = S.add_days(ref_date, int(rng.integers(2, 40)))
            item = _event(rng, key, kind, day)
        elif family in ("bills", "invoices"):
            if kind == "receipt":
                day = S.add_days(ref_date, -int(rng.integers(1, 25)))
            else:
                day = S.add_days(ref_date, int(rng.integers(3, 35)))
            item = _bill(rng, key, kind, day)
        elif family == "products":
            item = _product(rng, key)
        elif family == "people":
            item = _person(rng, key, with_contact_details=contact_details)
        else:
            raise ValueError(f"unknown item family {family!r}; valid: {', '.join(FAMILIES)}")
        if (item.label.lower() in seen_labels or (item.amount is not None and item.amount in seen_amounts)
                or item.pointer.lower() in seen_pointers
                or (family == "events" and (item.date in seen_days or item.time in seen_times))):
            continue
        seen_labels.add(item.label.lower())
        seen_pointers.add(item.pointer.lower())
        if item.amount is not None:
            seen_amounts.add(item.amount)
        if item.date:
            seen_days.add(item.date)
        if item.time:
            seen_times.add(item.time)
        out.append(item)
    return out


# ----------------------------------------------------------------------------- context images
def chat_facts(rng: np.random.Generator, contact: str, lines: list[tuple[str, str]], day: str) -> dict[str, Any]:
    """A chat screenshot with ``contact``: ``lines`` are (sender, text), sender "me" or "them"."""
    t = S.clock(rng, 9, 20, 1)
    messages = []
    for sender, text in lines:
        messages.append({"sender": "me" if sender == "me" else contact, "text": text, "time": t})
        t = S.add_minutes(t, int(rng.integers(1, 9)))
    return {"contact": contact, "date": day, "messages": messages}


def list_note_facts(title: str, entries: list[str], shopping: bool) -> dict[str, Any]:
    """A handwritten list: a shopping list of product names or a to-do list of entries."""
    if shopping:
        return {"note_type": "shopping_list", "title": title, "items": [{"name": e, "quantity": None} for e in entries]}
    return {"note_type": "todo", "title": title, "items": [{"task": e, "due": None} for e in entries]}


def person_name(rng: np.random.Generator, avoid: set[str] = frozenset()) -> str:
    """A full name not in ``avoid``."""
    for _ in range(200):
        name = S.person(rng)
        if name not in avoid:
            return name
    raise RuntimeError("name vocabulary exhausted")


def lookalike_names(rng: np.random.Generator, name: str, n: int, avoid: set[str]) -> list[str]:
    """Names that share the first or the last name with ``name`` (distractors for a contact lookup)."""
    first, last = name.split()[0], name.split()[-1]
    out: list[str] = []
    for _ in range(400):
        if len(out) >= n:
            break
        other = S.person(rng)
        cand = f"{first} {other.split()[-1]}" if len(out) % 2 == 0 else f"{other.split()[0]} {last}"
        if cand != name and cand not in avoid and cand not in out:
            out.append(cand)
    return out


def weekday(iso: str) -> str:
    return vocab_weekday(dt.date.fromisoformat(iso).weekday())


def vocab_weekday(i: int) -> str:
    return ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[i]


def nice_date(iso: str) -> str:
    """``2026-03-14`` → ``March 14``."""
    d = dt.date.fromisoformat(iso)
    return f"{('January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December')[d.month - 1]} {d.day}"


def money(x: float) -> str:
    return f"${x:,.2f}"


__all__ = ["FAMILIES", "Item", "chat_facts", "list_note_facts", "lookalike_names", "make_items", "money", "nice_date",
           "person_name", "vocab", "weekday"]
