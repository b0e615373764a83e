"""Reminders tools: timed and location reminders, snoozing, upcoming and overdue lists."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..tools import tool
from ..world import ToolError, World, parse_datetime, validator


@validator("reminders")
def _reminder_rules(world: World, row: dict[str, Any]) -> None:
    if not row["content"].strip():
        raise ToolError("reminder.content must not be empty")
    if (row["latitude"] is None) != (row["longitude"] is None):
        raise ToolError("reminder latitude and longitude must be given together")


@tool("reminders", family="reminders_add", kind="write")
def reminders_add_reminder(world: World, content: str, reminder_time: str, location_name: str | None = None) -> dict[str, Any]:
    """Add a reminder at a date-time in the future.

    Args:
        content: what to be reminded of
        reminder_time: when to remind, YYYY-MM-DDTHH:MM:SS (after the current time)
        location_name: optional place the reminder is about
    """
    when = parse_datetime(reminder_time, "reminder_time")
    if when <= world.now:
        raise ToolError(f"reminder_time {reminder_time} is not in the future (now is {world.now_iso()})")
    return world.insert("reminders", {"content": content, "reminder_time": reminder_time, "location_name": location_name})


@tool("reminders", family="reminders_add", kind="write")
def reminders_add_reminder_in(world: World, content: str, minutes_from_now: int) -> dict[str, Any]:
    """Add a reminder a number of minutes from the current time.

    Args:
        content: what to be reminded of
        minutes_from_now: minutes from now (≥ 1)
    """
    if minutes_from_now < 1:
        raise ToolError(f"minutes_from_now must be at least 1, got {minutes_from_now}")
    return world.insert("reminders", {"content": content, "reminder_time": (world.now + timedelta(minutes=minutes_from_now)).isoformat()})


@tool("reminders", family="reminders_add", kind="write")
def reminders_add_location_reminder(world: World, content: str, location_name: str, latitude: float, longitude: float, reminder_time: str) -> dict[str, Any]:
    """Add a reminder tied to a place (needs location services on).

    Args:
        content: what to be reminded of
        location_name: name of the place
        latitude: latitude of the place
        longitude: longitude of the place
        reminder_time: when to remind, YYYY-MM-DDTHH:MM:SS
    """
    world.require_location("add a location reminder")
    return world.insert("reminders", {"content": content, "location_name": location_name, "latitude": latitude,
                                      "longitude": longitude, "reminder_time": reminder_time})


@tool("reminders", family="reminders_edit", kind="write")
def reminders_snooze_reminder(world: World, reminder_id: int, minutes: int) -> dict[str, Any]:
    """Push a reminder later by some minutes.

    Args:
        reminder_id: id of the reminder
        minutes: minutes to add (1-10080)
    """
    if not 1 <= minutes <= 10080:
        raise ToolError(f"minutes must be between 1 and 10080, got {minutes}")
    row = world.get("reminders", reminder_id)
    later = parse_datetime(row["reminder_time"]) + timedelta(minutes=minutes)
    return world.update("reminders", reminder_id, {"reminder_time": later.isoformat()})


@tool("reminders", family="reminders_edit", kind="read")
def reminders_list_upcoming_reminders(world: World, days: int = 7) -> list[dict[str, Any]]:
    """List open reminders due between now and ``days`` days from now, soonest first.

    Args:
        days: how many days ahead (≥ 1)
    """
    if days < 1:
        raise ToolError(f"days must be at least 1, got {days}")
    end = (world.now + timedelta(days=days)).isoformat()
    return world.rows("reminders", "is_completed = 0 AND reminder_time >= ? AND reminder_time <= ?", (world.now_iso(), end), order="reminder_time, id")


@tool("reminders", family="reminders_edit", kind="read")
def reminders_list_overdue_reminders(world: World) -> list[dict[str, Any]]:
    """List open reminders whose time has passed."""
    return world.rows("reminders", "is_completed = 0 AND reminder_time < ?", (world.now_iso(),), order="reminder_time, id")


@tool("reminders", family="reminders_edit", kind="write")
def reminders_clear_completed_reminders(world: World) -> dict[str, int]:
    """Delete every completed reminder."""
    return {"deleted": world.conn.execute("DELETE FROM reminders WHERE is_completed = 1").rowcount}


@tool("reminders", family="reminders_edit", kind="write")
def reminders_reschedule_reminder(world: World, reminder_id: int, reminder_time: str) -> dict[str, Any]:
    """Move a reminder to a new date-time in the future.

    Args:
        reminder_id: id of the reminder
        reminder_time: new time, YYYY-MM-DDTHH:MM:SS (after the current time)
    """
    if parse_datetime(reminder_time, "reminder_time") <= world.now:
        raise ToolError(f"reminder_time {reminder_time} is not in the future (now is {world.now_iso()})")
    return world.update("reminders", reminder_id, {"reminder_time": reminder_time})
