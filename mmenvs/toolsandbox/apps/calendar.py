"""Calendar tools: recurring and timed events, day and range listings, conflicts, free slots, invitations."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, parse_date, parse_datetime, validator


@validator("calendar_events")
def _event_rules(world: World, row: dict[str, Any]) -> None:
    if not row["title"].strip():
        raise ToolError("event.title must not be empty")
    if parse_datetime(row["end"]) <= parse_datetime(row["start"]):
        raise ToolError(f"event end {row['end']} must be after its start {row['start']}")
    if row["recurrence_end"] and row["recurrence"] == "none":
        raise ToolError("event.recurrence_end needs a recurrence other than 'none'")
    if row["recurrence_end"] and parse_date(row["recurrence_end"]) < parse_datetime(row["start"]).date():
        raise ToolError(f"event.recurrence_end {row['recurrence_end']} is before the event starts")


def _occurrences(event: dict[str, Any], start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    """Occurrences of ``event`` overlapping [start, end). A monthly (yearly) event on a day some months
    (years) lack, e.g. the 31st or 29 February, skips those months (years)."""
    first, last = parse_datetime(event["start"]), parse_datetime(event["end"])
    duration = last - first
    until = datetime.combine(parse_date(event["recurrence_end"]), time(23, 59, 59)) if event["recurrence_end"] else end
    out = []
    for index in range(5000 if event["recurrence"] != "none" else 1):
        if event["recurrence"] == "daily":
            current = first + timedelta(days=index)
        elif event["recurrence"] == "weekly":
            current = first + timedelta(weeks=index)
        elif event["recurrence"] == "monthly":
            month = first.month - 1 + index
            try:
                current = first.replace(year=first.year + month // 12, month=month % 12 + 1)
            except ValueError:
                continue
        elif event["recurrence"] == "yearly":
            try:
                current = first.replace(year=first.year + index)
            except ValueError:
                continue
        else:
            current = first
        if current >= end or current > until:
            break
        if current + duration > start:
            out.append((current, current + duration))
    return out


def _events_between(world: World, start: datetime, end: datetime) -> list[dict[str, Any]]:
    found = []
    for event in world.rows("calendar_events"):
        for a, b in _occurrences(event, start, end):
            found.append({**event, "occurrence_start": a.isoformat(), "occurrence_end": b.isoformat()})
    return sorted(found, key=lambda e: (e["occurrence_start"], e["id"]))


@tool("calendar", family="calendar_add", kind="write")
def calendar_create_recurring_event(world: World, title: str, start: str, end: str,
                                    recurrence: Literal["daily", "weekly", "monthly", "yearly"], recurrence_end: str | None = None,
                                    location: str | None = None, description: str | None = None, attendees: list[str] | None = None,
                                    calendar: Literal["personal", "work", "family"] = "personal") -> dict[str, Any]:
    """Create an event that repeats daily, weekly, monthly or yearly, optionally until a last date.

    Args:
        title: event title
        start: first start, YYYY-MM-DDTHH:MM:SS
        end: first end, YYYY-MM-DDTHH:MM:SS (after start)
        recurrence: how often it repeats
        recurrence_end: last date it may occur, YYYY-MM-DD; omit to repeat forever
        location: where it takes place
        description: details
        attendees: attendee names or emails
        calendar: which calendar
    """
    return world.insert("calendar_events", {"title": title, "start": start, "end": end, "recurrence": recurrence,
                                            "recurrence_end": recurrence_end, "location": location, "description": description,
                                            "attendees": attendees or [], "calendar": calendar})


@tool("calendar", family="calendar_add", kind="write")
def calendar_create_event_with_duration(world: World, title: str, start: str, duration_minutes: int, location: str | None = None,
                                        attendees: list[str] | None = None, calendar: Literal["personal", "work", "family"] = "personal") -> dict[str, Any]:
    """Create a one-off event from its start and length in minutes.

    Args:
        title: event title
        start: start, YYYY-MM-DDTHH:MM:SS
        duration_minutes: length in minutes (≥ 1)
        location: where it takes place
        attendees: attendee names or emails
        calendar: which calendar
    """
    if duration_minutes < 1:
        raise ToolError(f"duration_minutes must be at least 1, got {duration_minutes}")
    begin = parse_datetime(start, "start")
    return world.insert("calendar_events", {"title": title, "start": start, "end": (begin + timedelta(minutes=duration_minutes)).isoformat(),
                                            "location": location, "attendees": attendees or [], "calendar": calendar})


@tool("calendar", family="calendar_view", kind="read")
def calendar_list_events_on_date(world: World, date: str) -> list[dict[str, Any]]:
    """List the events (recurring ones expanded) that take place on a date.

    Args:
        date: the day, YYYY-MM-DD
    """
    day = parse_date(date, "date")
    start = datetime.combine(day, time())
    return _events_between(world, start, start + timedelta(days=1))


@tool("calendar", family="calendar_view", kind="read")
def calendar_list_events_between(world: World, start: str, end: str) -> list[dict[str, Any]]:
    """List event occurrences (recurring ones expanded) overlapping a time range.

    Args:
        start: range start, YYYY-MM-DDTHH:MM:SS
        end: range end, YYYY-MM-DDTHH:MM:SS
    """
    a, b = parse_datetime(start, "start"), parse_datetime(end, "end")
    if b <= a:
        raise ToolError("end must be after start")
    if (b - a).days > 366:
        raise ToolError("the range may span at most 366 days")
    return _events_between(world, a, b)


@tool("calendar", family="calendar_view", kind="read")
def calendar_get_next_event(world: World) -> dict[str, Any]:
    """The next event occurrence starting after the current time (within a year)."""
    upcoming = [e for e in _events_between(world, world.now, world.now + timedelta(days=366)) if e["occurrence_start"] > world.now_iso()]
    if not upcoming:
        raise ToolError("no upcoming event")
    return upcoming[0]


@tool("calendar", family="calendar_view", kind="read")
def calendar_check_conflicts(world: World, start: str, end: str) -> list[dict[str, Any]]:
    """List event occurrences that overlap a proposed time range.

    Args:
        start: proposed start, YYYY-MM-DDTHH:MM:SS
        end: proposed end, YYYY-MM-DDTHH:MM:SS
    """
    return calendar_list_events_between(world, start, end)


@tool("calendar", family="calendar_view", kind="read")
def calendar_find_free_slots(world: World, date: str, duration_minutes: int, day_start: str = "09:00", day_end: str = "18:00") -> list[dict[str, str]]:
    """Find free time slots of at least ``duration_minutes`` on a day, between working hours.

    Args:
        date: the day, YYYY-MM-DD
        duration_minutes: length of the slot needed (≥ 1)
        day_start: earliest start HH:MM
        day_end: latest end HH:MM
    """
    from ..world import parse_time

    day = parse_date(date, "date")
    lo, hi = datetime.combine(day, parse_time(day_start, "day_start")), datetime.combine(day, parse_time(day_end, "day_end"))
    if hi <= lo or duration_minutes < 1:
        raise ToolError("need day_start before day_end and duration_minutes ≥ 1")
    busy = sorted((parse_datetime(e["occurrence_start"]), parse_datetime(e["occurrence_end"])) for e in _events_between(world, lo, hi))
    slots, cursor = [], lo
    for a, b in busy + [(hi, hi)]:
        if (min(a, hi) - cursor) >= timedelta(minutes=duration_minutes):
            slots.append({"start": cursor.isoformat(), "end": min(a, hi).isoformat()})
        cursor = max(cursor, b)
    return slots


@tool("calendar", family="calendar_edit", kind="write")
def calendar_reschedule_event(world: World, event_id: int, new_start: str) -> dict[str, Any]:
    """Move an event to a new start, keeping its duration.

    Args:
        event_id: id of the event
        new_start: new start, YYYY-MM-DDTHH:MM:SS
    """
    event = world.get("calendar_events", event_id)
    duration = parse_datetime(event["end"]) - parse_datetime(event["start"])
    begin = parse_datetime(new_start, "new_start")
    return world.update("calendar_events", event_id, {"start": begin.isoformat(), "end": (begin + duration).isoformat()})


@tool("calendar", family="calendar_edit", kind="write")
def calendar_invite_attendees(world: World, event_id: int, attendees: list[str]) -> dict[str, Any]:
    """Add attendees to an event (names or emails already invited are skipped).

    Args:
        event_id: id of the event
        attendees: names or email addresses to add
    """
    event = world.get("calendar_events", event_id)
    new = [a for a in attendees if a not in event["attendees"]]
    if not new:
        raise ToolError("all of these attendees are already invited")
    return world.update("calendar_events", event_id, {"attendees": event["attendees"] + new})


@tool("calendar", family="calendar_edit", kind="write")
def calendar_duplicate_event(world: World, event_id: int, new_start: str) -> dict[str, Any]:
    """Copy an event to another start time (same duration, title, place and attendees; not recurring).

    Args:
        event_id: id of the event to copy
        new_start: start of the copy, YYYY-MM-DDTHH:MM:SS
    """
    event = world.get("calendar_events", event_id)
    duration = parse_datetime(event["end"]) - parse_datetime(event["start"])
    begin = parse_datetime(new_start, "new_start")
    copy = {k: v for k, v in event.items() if k not in ("id", "created_at", "recurrence", "recurrence_end")}
    return world.insert("calendar_events", {**copy, "start": begin.isoformat(), "end": (begin + duration).isoformat()})


@tool("calendar", family="calendar_edit", kind="write")
def calendar_end_recurrence(world: World, event_id: int, last_date: str) -> dict[str, Any]:
    """Stop a recurring event after a date (earlier occurrences are kept).

    Args:
        event_id: id of the recurring event
        last_date: last date it may occur, YYYY-MM-DD
    """
    event = world.get("calendar_events", event_id)
    if event["recurrence"] == "none":
        raise ToolError(f"event {event_id} is not recurring")
    return world.update("calendar_events", event_id, {"recurrence_end": last_date})
