"""App screenshots: a messaging conversation and a calendar (week grid or agenda list)."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from mmenvs.core.fonts import font

from . import sampling as S
from . import vocab
from .base import (
    MONTHS, WEEKDAYS, Canvas, Rendered, date_text, finish, fit_font, ink_on, money, parse_date, pick, prepare, shade, time_text,
    wrap,
)

# ===================================================================================== chat
CHAT_THEMES = {
    # background, my bubble, my text, their bubble, their text, header, header text, meta text
    "ios": ((255, 255, 255), (10, 132, 255), (255, 255, 255), (233, 233, 235), (0, 0, 0), (247, 247, 247), (0, 0, 0), (140, 140, 146)),
    "green": ((236, 229, 221), (217, 253, 211), (17, 27, 33), (255, 255, 255), (17, 27, 33), (0, 128, 105), (255, 255, 255), (102, 119, 129)),
    "dark": ((0, 0, 0), (48, 110, 230), (255, 255, 255), (38, 38, 41), (235, 235, 240), (22, 22, 24), (240, 240, 245), (150, 150, 158)),
    "violet": ((250, 248, 255), (124, 77, 255), (255, 255, 255), (237, 233, 250), (30, 20, 60), (255, 255, 255), (30, 20, 60), (130, 120, 150)),
}


def _conversation(rng: np.random.Generator, them: str, today: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """(sender, text) turns of one of several everyday conversations held on ``today`` and the facts they state."""
    topic = pick(rng, ("dinner", "money", "address", "meeting", "number"))
    if topic == "dinner":
        cuisine = pick(rng, tuple(vocab.RESTAURANT_NAMES))
        place = pick(rng, vocab.RESTAURANT_NAMES[cuisine])
        where = S.street_address(rng)
        t = S.clock(rng, 18, 21, 15)
        day = S.add_days(today, int(rng.integers(1, 6)))
        n = int(rng.integers(2, 7))
        turns = [
            (them, f"Are we still on for dinner on {date_text(day, 'weekday').rsplit(',', 1)[0]}?"),
            ("me", "Yes! Where did you book?"),
            (them, f"{place}, {where}. Table for {n} at {time_text(t, True)}"),
            ("me", pick(rng, ("Perfect, see you there :)", "Great, I'll be there", "Sounds good!"))),
        ]
        return turns, {"topic": "dinner", "restaurant": place, "address": where, "date": day, "time": t, "party_size": n}
    if topic == "money":
        what = pick(rng, ("concert tickets", "groceries", "cabin rental", "birthday gift for Sam", "taxi to the airport"))
        people = int(rng.integers(2, 5))
        total = round(float(rng.integers(30, 400)) + float(pick(rng, (0.0, 0.5, 0.8, 0.6))), 2)
        share = round(total / people, 2)
        total = round(share * people, 2)
        turns = [
            (them, f"Hey! The {what} came to {money(total)} in total"),
            (them, f"Split {people} ways that's {money(share)} each"),
            ("me", pick(rng, ("Thanks for covering it! Sending now", "Oh nice, I'll pay you back tonight", "Got it, will send it over"))),
        ]
        return turns, {"topic": "money", "item": what, "total": total, "people": people, "share": share, "currency": "USD"}
    if topic == "address":
        where = S.street_address(rng)
        door = S.code(rng, "0123456789", 4)
        turns = [
            ("me", "What's your new address again?"),
            (them, f"It's {where}"),
            (them, f"Apartment {int(rng.integers(1, 40))}{pick(rng, 'ABCD')}, door code {door}"),
            ("me", "Thanks! Saved it"),
        ]
        apt = turns[2][1].split(",")[0].replace("Apartment ", "")
        return turns, {"topic": "address", "address": where, "apartment": apt, "door_code": door}
    if topic == "meeting":
        day = S.add_days(today, int(rng.integers(1, 14)))
        t = S.clock(rng, 9, 17, 30)
        dom = S.company_domain(S.company(rng))
        email = S.email_for(them, dom)
        turns = [
            (them, f"Hi, could we move our call to {date_text(day, 'long')} at {time_text(t, True)}?"),
            ("me", "That works for me"),
            (them, f"Great, please send the invite to {email}"),
        ]
        return turns, {"topic": "meeting", "date": day, "time": t, "email": email}
    other = S.person(rng)
    number = S.phone(rng)
    turns = [
        ("me", f"Do you have {other.split()[0]}'s number?"),
        (them, f"Sure, {other}: {number}"),
        (them, pick(rng, ("She's expecting your call", "He said to text first", "Tell them I said hi"))),
    ]
    return turns, {"topic": "contact", "name": other, "phone": number}


def sample_chat_screenshot_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A conversation with one contact: the contact's name, the date, messages (sender, text, time),
    and ``details``: the structured facts the messages state (place, time, amount, address, …)."""
    them = S.person(rng)
    today = S.date_between(rng)
    turns, details = _conversation(rng, them, today)
    t = S.clock(rng, 8, 21, 1)
    messages = []
    for sender, text in turns:
        messages.append({"sender": sender, "text": text, "time": t})
        t = S.add_minutes(t, int(rng.integers(0, 6)))
    return {"contact": them, "date": today, "messages": messages, "details": details}


def _check_chat(facts: dict[str, Any]) -> None:
    msgs = facts["messages"]
    if not isinstance(msgs, list) or not msgs:
        raise ValueError("chat_screenshot.messages: expected a non-empty list")
    for i, m in enumerate(msgs):
        if "sender" not in m or "text" not in m:
            raise ValueError(f"chat_screenshot.messages[{i}]: needs 'sender' ('me' or a name) and 'text'")


def _status_bar(cv: Canvas, bg: tuple[int, int, int], rng: np.random.Generator, family: str, clock: str) -> None:
    ink = ink_on(bg)
    cv.text((28, 14), time_text(clock, True).replace(" AM", "").replace(" PM", ""), font(14, family, bold=True), ink, distractor=True)
    W = cv.width
    level = int(rng.integers(15, 100))
    cv.draw.rounded_rectangle((W - 46, 16, W - 22, 28), radius=3, outline=ink, width=1)
    cv.draw.rectangle((W - 44, 18, W - 44 + int(20 * level / 100), 26), fill=ink)
    for i in range(4):
        cv.draw.rectangle((W - 86 + i * 6, 26 - 3 * i, W - 82 + i * 6, 28), fill=ink)


def render_chat_screenshot(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                           size: tuple[int, int] | None = None) -> Rendered:
    """A phone screenshot of a messaging conversation: header with the contact, a date separator,
    bubbles (mine right, theirs left) with times, and the input bar.

    Facts: contact, messages [{sender: "me" or a name, text, time?}]; optional date, details (the
    structured facts the texts state — echoed, not drawn separately).
    """
    facts, d = prepare("chat_screenshot", rng, facts, difficulty, sample_chat_screenshot_facts, ("contact", "messages"), _check_chat)
    theme_name = pick(rng, tuple(CHAT_THEMES))
    bg, mine, mine_t, theirs, theirs_t, head, head_t, meta = CHAT_THEMES[theme_name]
    family = "sans"
    W = 390
    bf = font(15, family)
    maxw = int(W * 0.68)
    layouts = [wrap(m["text"], bf, maxw - 24) for m in facts["messages"]]
    banner = d > 0.4  # a notification sliding in over the top of the chat; the layout leaves it room
    H = 150 + sum(len(ls) * 20 + 40 for ls in layouts) + 90 + (50 if banner else 0)
    H = max(H, 560)
    cv = Canvas(W, H, bg)
    cv.draw.rectangle((0, 0, W, 104), fill=head)
    times = [m["time"] for m in facts["messages"] if m.get("time")]
    _status_bar(cv, head, rng, family, S.add_minutes(max(times), int(rng.integers(1, 30))) if times else S.clock(rng, 7, 23, 1))
    cv.text((16, 62), "‹", font(34, family), head_t if theme_name != "ios" else (10, 132, 255), anchor="lm")
    initials = "".join(p[0] for p in facts["contact"].split()[:2]).upper()
    av = pick(rng, ((255, 149, 0), (88, 86, 214), (52, 199, 89), (255, 45, 85), (90, 200, 250)))
    if theme_name in ("ios", "dark"):
        cv.draw.ellipse((W // 2 - 18, 40, W // 2 + 18, 76), fill=av)
        cv.text((W // 2, 58), initials, font(14, family, bold=True), (255, 255, 255), anchor="mm")
        cv.text((W // 2, 80), facts["contact"], fit_font(facts["contact"], family, W - 120, 13), head_t, key="contact", anchor="ma")
    else:
        cv.draw.ellipse((44, 44, 80, 80), fill=av)
        cv.text((62, 62), initials, font(14, family, bold=True), (255, 255, 255), anchor="mm")
        cv.text((92, 50), facts["contact"], fit_font(facts["contact"], family, W - 150, 17, bold=True), head_t, key="contact")
        cv.text((92, 72), pick(rng, ("online", "last seen today", "typing…")), font(12, family), shade(head_t, 0.9) if theme_name != "green" else (210, 240, 230), distractor=True)
    y = 118 + (50 if banner else 0)
    if facts.get("date"):
        label = date_text(facts["date"], "weekday")
        lw = font(12, family, bold=True).getlength(label)
        cv.draw.rounded_rectangle((W / 2 - lw / 2 - 10, y - 2, W / 2 + lw / 2 + 10, y + 18), radius=9,
                                  fill=shade(bg, 0.93) if sum(bg) > 300 else shade(bg, 1.15))
        cv.text((W // 2, y + 8), label, font(12, family, bold=True), meta if sum(bg) > 300 else (200, 200, 205), key="date", anchor="mm")
        y += 34
    twelve = bool(rng.integers(0, 2))
    mf = font(11, family)
    for i, (m, lines) in enumerate(zip(facts["messages"], layouts)):
        me = m["sender"] == "me"
        text_w = max(bf.getlength(line) for line in lines)
        time_s = time_text(m["time"], twelve) if m.get("time") else ""
        bw = int(max(text_w, mf.getlength(time_s) if time_s else 0) + 24)
        bh = len(lines) * 20 + (26 if time_s else 12)
        x0 = W - 12 - bw if me else 12
        fill = mine if me else theirs
        tcol = mine_t if me else theirs_t
        cv.draw.rounded_rectangle((x0, y, x0 + bw, y + bh), radius=16, fill=fill)
        if not me and m["sender"] != facts["contact"]:  # group chats: the sender's name over the bubble
            cv.text((x0 + 12, y - 14), m["sender"], font(11, family, bold=True), meta, key=f"messages.{i}.sender")
        ty = y + 8
        for line in lines:
            cv.text((x0 + 12, ty), line, bf, tcol, key=f"messages.{i}.text")
            ty += 20
        if time_s:
            tc = shade(tcol, 0.75) if sum(tcol) > 300 else shade(tcol, 1.6)
            cv.text((x0 + bw - 10, ty + 1), time_s, mf, tc, key=f"messages.{i}.time", anchor="ra")
        y += bh + 12
    # input bar
    bar_y = H - 64
    cv.draw.rectangle((0, bar_y, W, H), fill=head if theme_name != "green" else (240, 240, 240))
    cv.draw.rounded_rectangle((48, bar_y + 14, W - 56, bar_y + 48), radius=17, fill=bg if theme_name != "green" else (255, 255, 255),
                              outline=shade(meta, 1.3))
    cv.text((64, bar_y + 31), pick(rng, ("Message", "iMessage", "Type a message")), font(14, family), meta, anchor="lm", distractor=True)
    cv.text((22, bar_y + 31), "+", font(26, family), meta, anchor="mm")
    if banner:  # unrelated to the task
        bannr = pick(rng, ("Mail: Your order has shipped", "Calendar: Gym in 15 min", "News: Markets close higher", "Bank: $12.40 card payment"))
        cv.draw.rounded_rectangle((10, 108, W - 10, 150), radius=12, fill=(245, 245, 247) if sum(bg) > 300 else (50, 50, 54))
        cv.text((24, 129), bannr, font(13, family), (30, 30, 30) if sum(bg) > 300 else (235, 235, 240), anchor="lm", distractor=True)
    return finish("chat_screenshot", cv, facts, rng, d, size, "digital")


# ===================================================================================== calendar
EVENT_TITLES = (
    "Team standup", "Dentist appointment", "Lunch with {p}", "Yoga class", "Project review: {proj}", "1:1 with {p}",
    "Parent-teacher meeting", "Flight to {city}", "Haircut", "Book club", "Quarterly planning", "Coffee with {p}",
    "Piano lesson", "Vet appointment", "Design critique", "Interview: {p}", "Gym", "Pick up kids",
)
EVENT_COLORS = ((66, 133, 244), (234, 67, 53), (251, 188, 4), (52, 168, 83), (142, 36, 170), (0, 172, 193), (244, 81, 30), (121, 85, 72))


def _monday(iso: str) -> str:
    y, m, d = parse_date(iso, "date")
    day = _dt.date(y, m, d)
    return (day - _dt.timedelta(days=day.weekday())).isoformat()


def sample_calendar_screenshot_facts(rng: np.random.Generator) -> dict[str, Any]:
    """A week of events (title, date, start, end, optional location) and the view (week grid or agenda)."""
    week = _monday(S.date_between(rng))
    events = []
    used: set[tuple[int, int]] = set()
    for _ in range(int(rng.integers(4, 9))):
        day = int(rng.integers(0, 7))
        hour = int(rng.integers(8, 18))
        if (day, hour) in used or (day, hour - 1) in used or (day, hour + 1) in used:
            continue
        used.add((day, hour))
        start = f"{hour:02d}:{pick(rng, ('00', '00', '30'))}"
        dur = int(pick(rng, (30, 45, 60, 60, 90)))
        title = pick(rng, EVENT_TITLES).format(p=pick(rng, vocab.FIRST_NAMES), proj=pick(rng, vocab.PROJECT_NAMES).replace("Project ", ""),
                                               city=pick(rng, vocab.CITIES)[0])
        ev: dict[str, Any] = {"title": title, "date": S.add_days(week, day), "start": start, "end": S.add_minutes(start, dur)}
        if rng.uniform() < 0.5:
            ev["location"] = pick(rng, vocab.ROOMS + ("Zoom", "Main St Clinic", "Café Luna", "Gym"))
        events.append(ev)
    events.sort(key=lambda e: (e["date"], e["start"]))
    return {"view": pick(rng, ("week", "agenda")), "week_start": week, "events": events}


def _check_calendar(facts: dict[str, Any]) -> None:
    if facts["view"] not in ("week", "agenda"):
        raise ValueError(f"calendar_screenshot.view: expected 'week' or 'agenda', got {facts['view']!r}")
    parse_date(facts["week_start"], "calendar_screenshot.week_start")
    start = _dt.date.fromisoformat(facts["week_start"])
    for i, e in enumerate(facts["events"]):
        for k in ("title", "date", "start", "end"):
            if k not in e:
                raise ValueError(f"calendar_screenshot.events[{i}]: missing {k!r}")
        parse_date(e["date"], f"calendar_screenshot.events[{i}].date")
        time_text(e["start"], False, f"calendar_screenshot.events[{i}].start")
        time_text(e["end"], False, f"calendar_screenshot.events[{i}].end")
        if e["end"] <= e["start"]:
            raise ValueError(f"calendar_screenshot.events[{i}]: end {e['end']} is not after start {e['start']}")
        offset = (_dt.date.fromisoformat(e["date"]) - start).days
        if facts["view"] == "week" and not 0 <= offset < 7:
            raise ValueError(f"calendar_screenshot.events[{i}].date {e['date']} is outside the week starting {facts['week_start']}")


def render_calendar_screenshot(rng: np.random.Generator, *, facts: dict | None = None, difficulty: float = 0.0,
                               size: tuple[int, int] | None = None) -> Rendered:
    """A calendar app screenshot: a 7-day week grid with event blocks, or an agenda list by day.

    Facts: view ("week" | "agenda"), week_start (ISO Monday), events [{title, date, start, end,
    location?}] (times HH:MM, 24 h).
    """
    facts, d = prepare("calendar_screenshot", rng, facts, difficulty, sample_calendar_screenshot_facts, ("view", "week_start", "events"),
                       _check_calendar)
    family = "sans"
    twelve = bool(rng.integers(0, 2))
    dark = rng.uniform() < 0.2
    bg = (32, 33, 36) if dark else (255, 255, 255)
    ink = (232, 234, 237) if dark else (32, 33, 36)
    meta = (154, 160, 166) if dark else (95, 99, 104)
    line = (60, 64, 67) if dark else (218, 220, 224)
    palette = list(EVENT_COLORS)
    y0w, m0w, d0w = parse_date(facts["week_start"], "week_start")
    start = _dt.date(y0w, m0w, d0w)
    if facts["view"] == "week":
        H = 760
        left, top, bottom = 62, 110, H - 12
        mins = [(int(e["start"][:2]) * 60 + int(e["start"][3:]), int(e["end"][:2]) * 60 + int(e["end"][3:])) for e in facts["events"]]
        first_h = min([8] + [a // 60 for a, _ in mins])
        last_h = max([20] + [-(-b // 60) for _, b in mins])
        hours = list(range(first_h, last_h))  # the grid grows to show early and late events
        row_h = (bottom - top) / len(hours)
        lane_w = 104.0
        title_font = font(11, family, bold=True)
        small = font(10, family)

        def block_lines(e: dict[str, Any], i: int) -> list[tuple[str, Any, list[str]]]:
            """(text, font, fact keys) of each line inside an event block of width ``lane_w``."""
            out = [(ln, title_font, [f"events.{i}.title"]) for ln in wrap(e["title"], title_font, lane_w - 12)]
            t_start, t_end = time_text(e["start"], twelve), time_text(e["end"], twelve)
            if small.getlength(f"{t_start} – {t_end}") <= lane_w - 10:
                out.append((f"{t_start} – {t_end}", small, [f"events.{i}.start", f"events.{i}.end"]))
            else:
                out += [(f"{t_start} –", small, [f"events.{i}.start"]), (t_end, small, [f"events.{i}.end"])]
            if e.get("location"):
                out += [(ln, small, [f"events.{i}.location"]) for ln in wrap(e["location"], small, lane_w - 10)]
            return out

        lines_of = {i: block_lines(e, i) for i, e in enumerate(facts["events"])}
        need_px = {i: 6 + sum(13 if f is title_font else 12 for _, f, _ in ls) for i, ls in lines_of.items()}
        # overlapping events sit side by side in lanes (as calendar apps draw them); a day is as wide as its lanes
        vis_end = {i: max(mins[i][1], mins[i][0] + int(60 * need_px[i] / row_h) + 1) for i in range(len(mins))}
        lane: dict[int, int] = {}
        lanes_of_day = [1] * 7
        for col in range(7):
            day_iso = (start + _dt.timedelta(days=col)).isoformat()
            ends: list[int] = []
            for i in sorted((i for i, e in enumerate(facts["events"]) if e["date"] == day_iso), key=lambda i: mins[i][0]):
                free = next((k for k, end in enumerate(ends) if end <= mins[i][0]), None)
                if free is None:
                    ends.append(vis_end[i])
                    free = len(ends) - 1
                ends[free] = vis_end[i]
                lane[i] = free
            lanes_of_day[col] = max(1, len(ends))
        col_x = [float(left)]
        for n in lanes_of_day:
            col_x.append(col_x[-1] + lane_w * n)
        W = int(col_x[-1]) + 12
        cv = Canvas(W, H, bg)
        end = start + _dt.timedelta(days=6)
        title = f"{MONTHS[start.month - 1]} {start.year}" if start.month == end.month else f"{MONTHS[start.month - 1][:3]} – {MONTHS[end.month - 1][:3]} {end.year}"
        cv.text((20, 18), title, font(22, family), ink)
        cv.draw.rounded_rectangle((W - 170, 16, W - 100, 44), radius=6, outline=line)
        cv.text((W - 135, 30), "Today", font(13, family), ink, anchor="mm", distractor=True)
        cv.draw.rounded_rectangle((W - 90, 16, W - 20, 44), radius=6, outline=line)
        cv.text((W - 55, 30), "Week", font(13, family), ink, anchor="mm", distractor=True)
        for i in range(7):
            day = start + _dt.timedelta(days=i)
            cx = (col_x[i] + col_x[i + 1]) / 2
            cv.text((cx, 62), WEEKDAYS[i][:3].upper(), font(11, family, bold=True), meta, anchor="ma")
            on_day = [f"events.{j}.date" for j, e in enumerate(facts["events"]) if e["date"] == day.isoformat()]
            cv.text((cx, 78), str(day.day), font(20, family), ink, anchor="ma", key=on_day or None)
            cv.draw.line((col_x[i], top, col_x[i], bottom), fill=line)
        for j, h in enumerate(hours):
            yy = top + row_h * j
            cv.draw.line((left, yy, W - 12, yy), fill=line)
            lab = time_text(f"{h:02d}:00", True).replace(":00", "") if twelve else f"{h:02d}:00"
            cv.text((left - 8, yy), lab, font(10, family), meta, anchor="rm")
        for i, e in enumerate(facts["events"]):
            col = (_dt.date.fromisoformat(e["date"]) - start).days
            x0 = col_x[col] + 2 + lane[i] * lane_w
            ya = top + (mins[i][0] / 60 - hours[0]) * row_h + 1
            yb = max(top + (mins[i][1] / 60 - hours[0]) * row_h - 1, ya + need_px[i])
            color = palette[i % len(palette)]
            cv.draw.rounded_rectangle((x0, ya, x0 + lane_w - 4, yb), radius=4, fill=color)
            tc = ink_on(color)
            ty = ya + 3
            for text, fnt, keys in lines_of[i]:
                cv.text((x0 + 4, ty), text, fnt, tc, key=keys)
                ty += 13 if fnt is title_font else 12
        canvas_h = H
    else:
        W = 420
        facts_events = sorted(facts["events"], key=lambda e: (e["date"], e["start"]))
        if facts_events != facts["events"]:
            raise ValueError("calendar_screenshot.events: the agenda view needs events sorted by date and start time")
        n_days = len({e["date"] for e in facts["events"]})
        H = 120 + n_days * 40 + len(facts["events"]) * 56 + 20
        cv = Canvas(W, H, bg)
        cv.draw.rectangle((0, 0, W, 40), fill=bg)
        cv.text((20, 20), f"{MONTHS[start.month - 1]} {start.year}", font(22, family, bold=True), ink, anchor="lm")
        cv.text((W - 20, 20), "Agenda", font(13, family), meta, anchor="rm", distractor=True)
        y = 64
        current = None
        for i, e in enumerate(facts["events"]):
            if e["date"] != current:
                current = e["date"]
                day = _dt.date.fromisoformat(current)
                same_day = [f"events.{j}.date" for j, other in enumerate(facts["events"]) if other["date"] == current]
                cv.text((20, y), f"{WEEKDAYS[day.weekday()]}, {MONTHS[day.month - 1]} {day.day}", font(14, family, bold=True),
                        palette[0] if not dark else (138, 180, 248), key=same_day)
                y += 30
            color = palette[i % len(palette)]
            cv.draw.rounded_rectangle((20, y, 26, y + 44), radius=3, fill=color)
            cv.text((38, y + 2), e["title"], fit_font(e["title"], family, W - 60, 15, bold=True), ink, key=f"events.{i}.title")
            tline = f"{time_text(e['start'], twelve)} – {time_text(e['end'], twelve)}"
            tb = cv.text((38, y + 24), tline, font(13, family), meta, key=[f"events.{i}.start", f"events.{i}.end"])
            if e.get("location"):
                cv.text((tb[2] + 10, y + 24), f"· {e['location']}", font(13, family), meta, key=f"events.{i}.location")
            y += 56
        canvas_h = H
    if d > 0.3:  # in the header, clear of any event
        hint = pick(rng, ("Holidays in United States", "Tip: press C to create an event", "3 tasks due this week"))
        if facts["view"] == "week":
            cv.text((W - 180, 30), hint, font(10, family, italic=True), meta, anchor="rm", distractor=True)
        else:
            cv.text((W - 12, canvas_h - 8), hint, font(10, family, italic=True), meta, anchor="rd", distractor=True)
    return finish("calendar_screenshot", cv, facts, rng, d, size, "digital")
