"""Phone tools: calls and the call history, and alarms."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ..tools import tool
from ..world import ToolError, World, parse_time, validator
from .shared import check_phone, rows_between

_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@tool("phone", family="phone_calls")
def phone_make_call(world: World, phone_number: str) -> dict[str, Any]:
    """Call a phone number (logged in the call history). Needs cellular service and no airplane mode.

    Args:
        phone_number: number to call
    """
    settings = world.settings()
    if settings["airplane_mode"] or not settings["cellular"]:
        raise ToolError("cannot place a call: cellular is off or airplane mode is on")
    return world.insert("calls", {"phone_number": check_phone(phone_number), "direction": "outgoing", "duration_seconds": 0})


@tool("phone", family="phone_calls")
def phone_call_contact(world: World, contact_id: int) -> dict[str, Any]:
    """Call a contact by contact id.

    Args:
        contact_id: id of the contact to call
    """
    contact = world.get("contacts", contact_id)
    if not contact["phone_number"]:
        raise ToolError(f"contact {contact['name']!r} has no phone number")
    return phone_make_call(world, contact["phone_number"])


@tool("phone", family="phone_calls", kind="read")
def phone_list_missed_calls(world: World) -> list[dict[str, Any]]:
    """List missed calls, newest first."""
    return world.rows("calls", "direction = 'missed'", order="started_at DESC, id DESC")


@tool("phone", family="phone_calls", kind="read")
def phone_get_call_history_with(world: World, phone_number: str) -> list[dict[str, Any]]:
    """List every call with one phone number, newest first.

    Args:
        phone_number: the other party's number
    """
    return world.rows("calls", "phone_number = ?", (phone_number.strip(),), order="started_at DESC, id DESC")


@validator("alarms")
def _alarm_rules(world: World, row: dict[str, Any]) -> None:
    clash = world.rows("alarms", "time = ? AND id != ? AND enabled = 1 AND repeat_days = ?", (row["time"], row["id"], _dump(row["repeat_days"])))
    if row["enabled"] and clash:
        raise ToolError(f"an enabled alarm at {row['time']} with the same repeat days already exists (id {clash[0]['id']})")


def _dump(value: Any) -> str:
    import json

    return json.dumps(value)


@tool("phone", family="phone_alarms", kind="write")
def phone_set_alarm(world: World, time: str, label: str = "", repeat_days: list[str] | None = None) -> dict[str, Any]:
    """Set an alarm at a time of day, optionally repeating on weekdays.

    Args:
        time: 24-hour time HH:MM, e.g. "06:45"
        label: label shown when it rings
        repeat_days: weekdays to repeat on (mon, tue, wed, thu, fri, sat, sun); omit for a one-time alarm
    """
    return world.insert("alarms", {"time": time, "label": label, "repeat_days": repeat_days or [], "enabled": True})


@tool("phone", family="phone_alarms", kind="write")
def phone_set_alarm_in(world: World, minutes_from_now: int, label: str = "") -> dict[str, Any]:
    """Set a one-time alarm a number of minutes from the current time.

    Args:
        minutes_from_now: minutes until it rings (1-1440)
        label: label shown when it rings
    """
    if not 1 <= minutes_from_now <= 1440:
        raise ToolError(f"minutes_from_now must be between 1 and 1440, got {minutes_from_now}")
    at = world.now + timedelta(minutes=minutes_from_now)
    return phone_set_alarm(world, at.strftime("%H:%M"), label)


@tool("phone", family="phone_alarms", kind="read")
def phone_get_next_alarm(world: World) -> dict[str, Any]:
    """The enabled alarm that rings next after the current time, with the date-time it rings."""
    best: tuple[datetime, dict[str, Any]] | None = None
    for alarm in world.rows("alarms", "enabled = 1"):
        t = parse_time(alarm["time"])
        for offset in range(8):
            day = world.now.date() + timedelta(days=offset)
            at = datetime.combine(day, t)
            if at <= world.now or (alarm["repeat_days"] and _WEEKDAYS[day.weekday()] not in alarm["repeat_days"]):
                continue
            if best is None or at < best[0]:
                best = (at, alarm)
            break
    if best is None:
        raise ToolError("no enabled alarm")
    return {**best[1], "rings_at": best[0].isoformat(timespec="seconds")}


@tool("phone", family="phone_alarms", kind="write")
def phone_disable_all_alarms(world: World) -> dict[str, int]:
    """Turn off every enabled alarm."""
    return {"disabled": world.conn.execute("UPDATE alarms SET enabled = 0 WHERE enabled = 1").rowcount}


@tool("phone", family="phone_calls", kind="read")
def phone_list_calls_between(world: World, start: str, end: str) -> list[dict[str, Any]]:
    """List calls that started between two date-times.

    Args:
        start: earliest date-time (YYYY-MM-DDTHH:MM:SS)
        end: latest date-time (YYYY-MM-DDTHH:MM:SS)
    """
    return rows_between(world, "calls", "started_at", start, end)


@tool("phone", family="phone_alarms", kind="read")
def phone_list_alarms_on_day(world: World, weekday: str) -> list[dict[str, Any]]:
    """List enabled alarms that ring on a weekday (repeating on it, or one-time alarms).

    Args:
        weekday: mon, tue, wed, thu, fri, sat or sun
    """
    day = weekday.strip().lower()[:3]
    if day not in _WEEKDAYS:
        raise ToolError(f"weekday must be one of {', '.join(_WEEKDAYS)}, got {weekday!r}")
    return [a for a in world.rows("alarms", "enabled = 1", order="time, id") if not a["repeat_days"] or day in a["repeat_days"]]
