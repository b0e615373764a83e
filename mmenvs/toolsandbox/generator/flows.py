"""The seven information flows (paper §4.1): how what the images show becomes the records to act on.

Each flow lays out its images (the items and any context image: a chat, a handwritten list) and
answers, for any set of images the agent has seen, which records follow — under the user's
original request (``"main"``) and under the changed goal (``"alt"``, for the goal-change challenge).
Answering for a subset of the images is what lets the generator describe an agent that acts before
the last image arrives.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..renderers import sampling as S
from .items import Item, chat_facts, list_note_facts, make_items, money, nice_date, person_name
from .model import Context, Record
from .sinks import Sink

FLOWS: tuple[str, ...] = ("aggregate", "compare", "filter", "compute", "validate", "lookup_chain", "cross_reference")

#: Which app groups each flow can drive (an app group missing here raises a ValueError naming these).
FLOW_APPS: dict[str, tuple[str, ...]] = {
    "aggregate": ("reminders", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping"),
    "compare": ("calendar", "reminders", "phone", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping"),
    "filter": ("calendar", "reminders", "phone", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping", "contacts"),
    "compute": ("calendar", "reminders", "phone", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping"),
    "validate": ("calendar", "reminders", "phone", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping", "contacts"),
    "lookup_chain": ("calendar", "reminders", "phone", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping", "contacts"),
    "cross_reference": ("calendar", "reminders", "phone", "notes", "todo", "files", "messaging", "email", "payments", "expenses", "shopping", "contacts"),
}

_WORD = {"event_poster": "poster", "ticket": "ticket", "receipt": "receipt", "invoice": "invoice", "product_card": "product photo",
         "business_card": "business card", "chat_screenshot": "chat screenshot", "handwritten_note": "handwritten list"}
_FAMILY_WORD = {"events": "events", "bills": "bills", "invoices": "invoices", "products": "products", "people": "people"}


def kind_word(kind: str) -> str:
    return _WORD.get(kind, kind.replace("_", " "))


def record_text(rec: Record) -> str:
    """The one-line description of a record that goes into messages, notes and files."""
    if rec.kind == "person" and rec.person:
        p = rec.person
        return f"{p['name']}, {p.get('job_title') or ''} at {p['company']}".replace(",  at", " at")
    if rec.kind in ("event_poster", "ticket"):
        return f"{rec.label}: {nice_date(rec.date)} at {rec.time}, {rec.place}, {money(rec.amount or 0)}"
    if rec.kind == "receipt":
        return f"{rec.label}: {money(rec.amount or 0)} on {nice_date(rec.date)}"
    if rec.kind == "invoice":
        return f"{rec.label}: {money(rec.amount or 0)} due {nice_date(rec.date)}"
    if rec.kind == "product_card":
        return f"{rec.quantity} x {rec.label} at {money(rec.amount or 0)}" if rec.quantity > 1 else f"{rec.label}: {money(rec.amount or 0)}"
    if rec.kind in ("total", "share"):
        return rec.text
    return rec.text or rec.label


def to_record(item: Item, **changes: Any) -> Record:
    rec = Record(label=item.label, text="", amount=item.amount, date=item.date, time=item.time, end_time=item.end_time,
                 place=item.place, image=item.key, person=dict(item.person) if item.person else None, kind=item.kind if item.family != "people" else "person")
    rec = rec.with_(**changes)
    return rec.with_(text=record_text(rec))


@dataclass
class Plan:
    """A flow's layout and answers (see the module docstring)."""

    items: list[Item]
    context: list[tuple[str, str, dict[str, Any]]]  # (key, kind, facts) of context images
    select: Callable[[set[str], str], list[Record]]
    what: Callable[[str], str]
    pivot: str  # the user's goal change (to "alt")
    info: Callable[[list[str]], str] = lambda keys: ""
    order: list[str] = field(default_factory=list)  # image keys in a natural order

    def images(self) -> list[tuple[str, str, dict[str, Any]]]:
        by_key = {i.key: (i.key, i.kind, i.facts) for i in self.items}
        by_key.update({k: (k, kind, f) for k, kind, f in self.context})
        keys = self.order or list(by_key)
        return [by_key[k] for k in keys]


def _visible(items: list[Item], seen: set[str]) -> list[Item]:
    return [i for i in items if i.key in seen]


_PREFIX = {"events": "event", "bills": "bill", "invoices": "invoice", "products": "product", "people": "card"}


def _keys(family: str, n: int) -> list[str]:
    """Image keys of a family's items: ``event1``, ``event2``, …"""
    return [f"{_PREFIX[family]}{i + 1}" for i in range(n)]


def _time_sink(sink: Sink) -> bool:
    return sink.name in ("calendar", "reminders", "phone")


def _reminder_time(rec: Record) -> Record:
    # invoices are reminded at 9:00 on their due date; events at their start
    return rec.with_(time="09:00") if rec.kind == "invoice" else rec


def _finish(sink: Sink, recs: list[Record]) -> list[Record]:
    if sink.name == "reminders":
        recs = [_reminder_time(r) for r in recs]
    return recs


# ---------------------------------------------------------------------------------------------- flows
def aggregate(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    ctx.notes["items"] = items
    leave_out = items[-1]
    word = _FAMILY_WORD[family]

    def select(seen: set[str], variant: str) -> list[Record]:
        chosen = [i for i in _visible(items, seen) if not (variant == "alt" and i.key == leave_out.key)]
        if not chosen:
            return []
        if sink.name == "shopping":
            return [to_record(i) for i in chosen]
        total = round(sum(i.amount or 0 for i in chosen), 2)
        names = ", ".join(i.label for i in chosen)
        if sink.name == "reminders":  # one reminder at the earliest due date, for all invoices
            first = min(chosen, key=lambda i: i.date or "")
            return [Record(label=ctx.title, text=f"{names} ({money(total)})", amount=total, date=first.date, time="09:00", kind="total")]
        # a total has no single date of its own: no due date, no expense date
        return [Record(label=ctx.title, text=f"Total {money(total)}: {names}", amount=total, kind="total")]

    def what(variant: str) -> str:
        base = f"all of these {word} together" if sink.name == "shopping" else f"the combined total of all these {word}"
        if sink.name == "reminders":
            base = "all these invoices together (one reminder at 9:00 on the earliest due date, with their total)"
        return base

    pivot = f"Actually, leave out {leave_out.label} — that one isn't part of it. Please fix what you did."
    return Plan(items, [], lambda seen, v: _finish(sink, select(seen, v)), what, pivot)


def compare(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    ctx.notes["items"] = items
    options: list[tuple[str, Callable[[Item], Any], bool]] = [("cheapest", lambda i: i.amount, False),
                                                              ("most expensive", lambda i: i.amount, True)]
    if family == "events":
        options += [("earliest", lambda i: (i.date, i.time), False), ("latest", lambda i: (i.date, i.time), True)]
    if family == "products":
        options += [("best-rated", lambda i: (i.rating, -(i.amount or 0)), True)]
    order = [int(k) for k in ctx.rng.permutation(len(options))]
    main, alt = options[order[0]], options[order[1]]

    def pick(seen: set[str], crit: tuple[str, Callable[[Item], Any], bool]) -> list[Item]:
        vis = _visible(items, seen)
        if not vis:
            return []
        return [sorted(vis, key=crit[1], reverse=crit[2])[0]]

    # the two criteria must pick different items over all images, or the goal change changes nothing
    if pick({i.key for i in items}, main)[0].key == pick({i.key for i in items}, alt)[0].key:
        alt = next(o for o in options if pick({i.key for i in items}, o)[0].key != pick({i.key for i in items}, main)[0].key)

    def select(seen: set[str], variant: str) -> list[Record]:
        return _finish(sink, [to_record(i) for i in pick(seen, main if variant == "main" else alt)])

    word = {"events": "event", "bills": "bill", "invoices": "invoice", "products": "product"}[family]

    def what(variant: str) -> str:
        return f"the {(main if variant == 'main' else alt)[0]} {word} of these"

    return Plan(items, [], select, what, f"Actually, I changed my mind: go with the {alt[0]} {word} instead. Please fix what you did.")


def filter_(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    if family == "people":
        # two or three cards from one company; the filter keeps those
        company = items[0].person["company"]
        k = 2 if n < 5 else 3
        chosen = [int(i) for i in ctx.rng.choice(n, size=k, replace=False)]
        for idx in chosen:
            it = items[idx]
            email = S.email_for(it.person["name"], S.company_domain(company))
            facts = dict(it.facts, company=company, email=email, website=f"www.{S.company_domain(company)}")
            items[idx] = it.with_(person={**it.person, "company": company, "email": email}, pointer=company, facts=facts)
        items[0] = items[0]
        alt_company = next(i.person["company"] for i in items if i.person["company"] != company)
        ctx.notes["items"] = items

        def select(seen: set[str], variant: str) -> list[Record]:
            want = company if variant == "main" else alt_company
            return [to_record(i) for i in _visible(items, seen) if i.person["company"] == want]

        return Plan(items, [], select, lambda v: f"everyone whose card says {company if v == 'main' else alt_company}",
                    f"Actually, I meant the people from {alt_company}, not {company}. Please fix what you did.")
    ctx.notes["items"] = items
    amounts = sorted(i.amount for i in items)
    cut = int(ctx.rng.integers(1, n - 1)) if n > 2 else 1
    budget = round((amounts[cut - 1] + amounts[cut]) / 2)  # a round limit between two prices
    if not (amounts[cut - 1] <= budget < amounts[cut]):
        budget = round((amounts[cut - 1] + amounts[cut]) / 2, 2)
    word = _FAMILY_WORD[family]

    def select(seen: set[str], variant: str) -> list[Record]:
        keep = [i for i in _visible(items, seen) if ((i.amount or 0) <= budget) == (variant == "main")]
        return _finish(sink, [to_record(i) for i in keep])

    def what(variant: str) -> str:
        return f"each of these {word} that costs {'at most' if variant == 'main' else 'more than'} {money(budget)}"

    return Plan(items, [], select, what, f"Actually, I got that backwards: I meant the ones over {money(budget)}, not the cheaper ones. Please fix what you did.")


def compute(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    ctx.notes["items"] = items
    friend = person_name(ctx.rng, ctx.names)
    ctx.names.add(friend)
    day = ctx.ref_date
    if _time_sink(sink):
        lead = int(S.pick(ctx.rng, (30, 45, 60, 90)))
        alt_lead = lead + 30
        chat = chat_facts(ctx.rng, friend, [("them", "Are we still on for these?"), ("me", "Yes! When should we meet?"),
                                            ("them", f"Let's meet {lead} minutes before each one starts")], day)
        word = "events"

        def shifted(i: Item, minutes: int) -> Record:
            d, t = i.date, S.add_minutes(i.time, -minutes)
            if t > i.time:  # crossed midnight backwards
                d = S.add_days(i.date, -1)
            return to_record(i, date=d, time=t, end_time=i.end_time)

        def select(seen: set[str], variant: str) -> list[Record]:
            minutes = (lead if "chat" in seen else 0) if variant == "main" else alt_lead
            return [shifted(i, minutes) for i in _visible(items, seen)]

        def what(variant: str) -> str:
            if variant == "main":
                return f"each of these {word}, starting at the meeting time {friend} suggests in the chat"
            return f"each of these {word}, starting {alt_lead} minutes before it begins"

        return Plan(items, [("chat", "chat_screenshot", chat)], select, what,
                    f"Actually, make it {alt_lead} minutes before each one instead — we need more time. Please fix what you did.",
                    order=[i.key for i in items] + ["chat"])
    if sink.person and family in ("bills", "events") and ctx.rng.uniform() < 0.5:
        return _compute_by_chart(ctx, sink, items)
    people = int(ctx.rng.integers(3, 6))
    chat = chat_facts(ctx.rng, friend, [("them", "Who's in for splitting these?"), ("me", "Me, you and the others from the group"),
                                        ("them", f"Great, so we're {people} people in total")], day)

    def count(seen: set[str], variant: str) -> int:
        base = people if "chat" in seen else 2  # without the chat an agent can only guess
        return base + (1 if variant == "alt" else 0)

    def select(seen: set[str], variant: str) -> list[Record]:
        vis = _visible(items, seen)
        if not vis:
            return []
        k = count(seen, variant)
        if sink.name == "shopping":
            return [to_record(i, quantity=k) for i in vis]
        total = round(sum(i.amount or 0 for i in vis), 2)
        share = round(total / k, 2)
        names = ", ".join(i.label for i in vis)
        return _finish(sink, [Record(label=ctx.title, text=f"Each person's share of {money(total)} ({names}) split {k} ways: {money(share)}",
                                     amount=share, kind="share")])

    def what(variant: str) -> str:
        if sink.name == "shopping":
            return "one of each of these per person in the chat (the chat says how many we are)"
        return "each person's share of the total of these (split evenly among the people in the chat)"

    return Plan(items, [("chat", "chat_screenshot", chat)], select, what,
                f"Actually, one more person is joining, so count {people + 1} people. Please fix what you did.",
                order=[i.key for i in items] + ["chat"])


def _compute_by_chart(ctx: Context, sink: Sink, items: list[Item]) -> Plan:
    """Compute, chart variant: the person's share of the total is their slice of a pie chart."""
    who = ctx.recipient["name"]
    others = []
    for _ in range(int(ctx.rng.integers(1, 3))):
        other = person_name(ctx.rng, ctx.names)
        ctx.names.add(other)
        others.append(other)
    names = ["Me", who, *others]
    k = len(names)
    weights = ctx.rng.dirichlet(np.ones(k) * 3.0)
    pct = [10 + int(w * (100 - 10 * k)) for w in weights]
    pct[int(np.argmax(pct))] += 100 - sum(pct)  # whole percentages summing to exactly 100
    order = [int(i) for i in ctx.rng.permutation(k)]
    chart = {"title": S.pick(ctx.rng, ("How we split the costs", "Cost sharing", "Who pays what")), "unit": "%",
             "data": [{"label": names[i], "value": int(pct[i])} for i in order]}
    share_pct = pct[1]

    def select(seen: set[str], variant: str) -> list[Record]:
        vis = _visible(items, seen)
        if not vis:
            return []
        total = round(sum(i.amount or 0 for i in vis), 2)
        if variant == "alt":
            share, how = round(total / k, 2), f"split evenly {k} ways"
        elif "chart" in seen:
            share, how = round(total * share_pct / 100, 2), f"{share_pct}% as the chart shows"
        else:  # without the chart an agent can only guess an even split between two
            share, how = round(total / 2, 2), "split in half"
        names_text = ", ".join(i.label for i in vis)
        return [Record(label=ctx.title, text=f"{who}'s share of {money(total)} ({names_text}), {how}: {money(share)}",
                       amount=share, kind="share")]

    def what(variant: str) -> str:
        if variant == "main":
            return "their share of the total of these, as the pie chart splits it"
        return f"their share of the total of these, split evenly among the {k} of us on the chart"

    return Plan(items, [("chart", "pie_chart", chart)], select, what,
                f"Actually, let's just split it evenly between the {k} of us on the chart. Please fix what you did.",
                order=[i.key for i in items] + ["chart"])


def validate(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    ctx.notes["items"] = items
    k = 1 if n <= 3 else int(ctx.rng.integers(1, n - 1))
    blocked = {items[int(i)].key for i in ctx.rng.choice(n, size=k, replace=False)}
    world = ctx.world
    context: list[tuple[str, str, dict[str, Any]]] = []
    if family == "events" and ctx.notes.get("calendar_screenshot"):
        # the clashes are in a screenshot of the user's work calendar, not in the phone's calendar
        ref = dt.date.fromisoformat(ctx.ref_date)
        monday = (ref - dt.timedelta(days=ref.weekday())).isoformat()
        entries = []
        for i in items:
            if i.key in blocked:
                entries.append({"title": S.pick(ctx.rng, ("Quarterly review", "Client dinner", "Release night", "Board prep")),
                                "date": i.date, "start": S.add_minutes(i.time, -30), "end": S.add_minutes(i.time, 60)})
        busy_days = {i.date for i in items}
        for _ in range(3):
            day = S.add_days(ctx.ref_date, int(ctx.rng.integers(1, 40)))
            if day not in busy_days:
                start = S.clock(ctx.rng, 9, 16, 30)
                entries.append({"title": S.pick(ctx.rng, ("1:1 with manager", "Team standup", "Design review", "Offsite")),
                                "date": day, "start": start, "end": S.add_minutes(start, 60)})
        entries.sort(key=lambda e: (e["date"], e["start"]))
        context.append(("calendar", "calendar_screenshot", {"view": "agenda", "week_start": monday, "events": entries}))
        check = "that doesn't clash with anything in my work calendar (the screenshot)"
        extra_app = "calendar"
    elif family == "events":
        for i in items:
            if i.key in blocked:  # a clash: something already booked at that time
                world.add("calendar_events", {"title": S.pick(ctx.rng, ("Dinner with the Parkers", "Work offsite", "Kids' recital", "Flight home")),
                                              "start": f"{i.date}T{S.add_minutes(i.time, -30)}:00", "end": f"{i.date}T{S.add_minutes(i.time, 60)}:00"})
        check = "that doesn't clash with anything already in my calendar"
        extra_app = "calendar"
    elif family in ("bills", "invoices"):
        gid = world.add("expense_groups", {"name": "Household", "members": ["me"], "group_type": "home"}) if "expense_groups" not in world.entities else 1
        for i in items:
            if i.key in blocked:
                world.add("expenses", {"group_id": gid, "description": i.label, "amount": i.amount, "paid_by": "me", "date": i.date})
        check = "that isn't already logged in my expenses app"
        extra_app = "expenses"
    elif family == "products":
        ctx.notes["pending_cart"] = [i.label for i in items if i.key in blocked]
        check = "that isn't already in my shopping cart"
        extra_app = "shopping"
    else:
        for i in items:
            if i.key in blocked:
                world.add("contacts", {"name": i.person["name"], "phone_number": i.person.get("phone_number"), "company": i.person["company"],
                                       "relationship": "business"})
        check = "who isn't in my contacts yet"
        extra_app = "contacts"
    ctx.notes["validate_app"] = extra_app
    free = [i for i in items if i.key not in blocked]
    # the goal change skips one more item, or (a single one passes) takes a failing one anyway
    skip = free[-1] if len(free) >= 2 else None
    anyway = None if skip else next(i for i in items if i.key in blocked)

    def select(seen: set[str], variant: str) -> list[Record]:
        known = blocked if (not context or "calendar" in seen) else set()  # without the screenshot no clash is known
        ok = [i for i in _visible(items, seen) if (i.key not in known or (variant == "alt" and anyway is not None and i.key == anyway.key))
              and not (variant == "alt" and skip and i.key == skip.key)]
        return _finish(sink, [to_record(i) for i in ok])

    word = _FAMILY_WORD[family]
    pivot = (f"Actually, skip {skip.label} as well — I'm not doing that one. Please fix what you did." if skip
             else f"Actually, include {anyway.label} as well, whatever the check says. Please fix what you did.")
    return Plan(items, context, select, lambda v: f"each of these {word} {check}", pivot,
                order=[i.key for i in items] + [k for k, _, _ in context])


def lookup_chain(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    ctx.notes["items"] = items
    target, other = items[int(ctx.rng.integers(n))], None
    other = next(i for i in items if i.key != target.key)
    friend = ctx.recipient["name"] if ctx.recipient else person_name(ctx.rng, ctx.names)
    ctx.names.add(friend)
    ctx.notes["chat_contact"] = friend
    if family == "people":
        lines = [("me", "Who was the person you wanted me to meet?"), ("them", f"The one from {target.person['company']} — I gave you the card")]
    else:
        lines = [("me", "Which one should we pick?"), ("them", f"Let's do {target.pointer_phrase}!"), ("me", "Sounds good")]
    chat = chat_facts(ctx.rng, friend, lines, ctx.ref_date)

    def select(seen: set[str], variant: str) -> list[Record]:
        vis = _visible(items, seen)
        if not vis:
            return []
        want = target if variant == "main" else other
        if "chat" not in seen and variant == "main":
            want = vis[0]  # without the chat the agent can only guess
        return _finish(sink, [to_record(want)] if want in vis else [])

    word = {"events": "event", "bills": "bill", "invoices": "invoice", "products": "product", "people": "person"}[family]
    return Plan(items, [("chat", "chat_screenshot", chat)], select,
                lambda v: (f"the {word} {friend} picked in our chat" if v == "main" else f"{other.pointer_phrase}"),
                f"Actually, {friend} changed their mind: it's {other.pointer_phrase}. Please fix what you did.",
                order=["chat"] + [i.key for i in items])


def cross_reference(ctx: Context, sink: Sink, family: str, n: int) -> Plan:
    items = make_items(ctx.rng, family, n, ctx.ref_date, keys=_keys(family, n))
    ctx.notes["items"] = items
    k = int(ctx.rng.integers(2, n)) if n > 2 else 1
    listed = [items[int(i)] for i in sorted(ctx.rng.choice(n, size=k, replace=False))]
    decoy = S.pick(ctx.rng, ("Batteries", "Umbrella", "Birthday card", "Stamps", "Light bulbs"))
    entries = [i.label for i in listed]
    entries.insert(int(ctx.rng.integers(len(entries) + 1)), decoy)
    note = list_note_facts(S.pick(ctx.rng, ("My list", "To sort out", "Don't forget")), entries, family == "products")
    # the goal change crosses one entry off, or (a one-entry list) adds an item that is not on it
    dropped = listed[0] if len(listed) >= 2 else None
    added = None if dropped else next(i for i in items if i not in listed)

    def select(seen: set[str], variant: str) -> list[Record]:
        if "list" not in seen:  # without the list an agent can only act on everything
            chosen = _visible(items, seen)
        else:
            wanted = [i for i in listed if not (variant == "alt" and dropped and i.key == dropped.key)]
            if variant == "alt" and added is not None:
                wanted.append(added)
            chosen = [i for i in _visible(items, seen) if i in wanted]
        return _finish(sink, [to_record(i) for i in chosen])

    word = _FAMILY_WORD[family]
    pivot = (f"Actually, I crossed {dropped.label} off my list. Please fix what you did." if dropped
             else f"Actually, add {added.label} too, even though it's not on my list. Please fix what you did.")
    return Plan(items, [("list", "handwritten_note", note)], select, lambda v: f"each of these {word} that is also on my handwritten list",
                pivot, order=["list"] + [i.key for i in items])


FLOW_BUILDERS: dict[str, Callable[[Context, Sink, str, int], Plan]] = {
    "aggregate": aggregate, "compare": compare, "filter": filter_, "compute": compute, "validate": validate,
    "lookup_chain": lookup_chain, "cross_reference": cross_reference,
}

#: The families a flow can work with (intersected with the app group's families).
FLOW_FAMILIES: dict[str, tuple[str, ...]] = {
    "aggregate": ("bills", "events", "products", "invoices"),
    "compare": ("events", "bills", "products", "invoices"),
    "filter": ("events", "bills", "products", "invoices", "people"),
    "compute": ("events", "bills", "products", "invoices"),
    "validate": ("events", "bills", "products", "invoices", "people"),
    "lookup_chain": ("events", "bills", "products", "invoices", "people"),
    "cross_reference": ("events", "bills", "products", "invoices", "people"),
}
