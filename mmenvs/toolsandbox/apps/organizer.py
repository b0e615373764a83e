"""Calendar, device settings, notes and to-do tools."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, parse_date, parse_datetime, validator
from .personal import check_email, messaging_send_message


# ---------------------------------------------------------------------- calendar
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


# ---------------------------------------------------------------------- settings
def _set(world: World, **changes: Any) -> dict[str, Any]:
    return world.update("device_settings", 1, changes)


@tool("settings", family="settings_network", kind="write")
def settings_set_wifi(world: World, on: bool) -> dict[str, Any]:
    """Turn Wi-Fi on or off (turning it on also ends airplane mode).

    Args:
        on: true to turn it on
    """
    return _set(world, wifi=on, **({"airplane_mode": False} if on else {}))


@tool("settings", family="settings_network", kind="write")
def settings_set_cellular(world: World, on: bool) -> dict[str, Any]:
    """Turn cellular data on or off (turning it on also ends airplane mode).

    Args:
        on: true to turn it on
    """
    return _set(world, cellular=on, **({"airplane_mode": False} if on else {}))


@tool("settings", family="settings_network", kind="write")
def settings_set_bluetooth(world: World, on: bool) -> dict[str, Any]:
    """Turn Bluetooth on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, bluetooth=on)


@tool("settings", family="settings_network", kind="write")
def settings_set_airplane_mode(world: World, on: bool) -> dict[str, Any]:
    """Turn airplane mode on (which switches Wi-Fi, cellular and Bluetooth off) or off.

    Args:
        on: true to turn it on
    """
    return _set(world, airplane_mode=on, **({"wifi": False, "cellular": False, "bluetooth": False} if on else {}))


@tool("settings", family="settings_network", kind="read")
def settings_get_network_status(world: World) -> dict[str, Any]:
    """Whether the device is online and through which connection."""
    s = world.settings()
    online = not s["airplane_mode"] and (s["wifi"] or s["cellular"])
    return {"online": online, "wifi": s["wifi"], "cellular": s["cellular"], "airplane_mode": s["airplane_mode"]}


@tool("settings", family="settings_device", kind="write")
def settings_set_location_service(world: World, on: bool) -> dict[str, Any]:
    """Turn location services on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, location_service=on)


@tool("settings", family="settings_device", kind="write")
def settings_set_low_battery_mode(world: World, on: bool) -> dict[str, Any]:
    """Turn low-power mode on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, low_battery_mode=on)


@tool("settings", family="settings_device", kind="write")
def settings_set_do_not_disturb(world: World, on: bool) -> dict[str, Any]:
    """Turn do-not-disturb on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, do_not_disturb=on)


@tool("settings", family="settings_device", kind="write")
def settings_set_brightness(world: World, level: int) -> dict[str, Any]:
    """Set the screen brightness.

    Args:
        level: brightness 0-100
    """
    return _set(world, brightness=level)


@tool("settings", family="settings_device", kind="write")
def settings_set_volume(world: World, level: int) -> dict[str, Any]:
    """Set the media volume.

    Args:
        level: volume 0-100
    """
    return _set(world, volume=level)


@tool("settings", family="settings_device", kind="read")
def settings_get_current_location(world: World) -> dict[str, Any]:
    """The device's current location (the owner's home address in this simulation); needs location services on."""
    world.require_location("read the current location")
    return {"address": world.get("user_profile", 1)["home_address"]}


# ---------------------------------------------------------------------- notes
@validator("notes")
def _note_rules(world: World, row: dict[str, Any]) -> None:
    if not row["title"].strip():
        raise ToolError("note.title must not be empty")


@tool("notes", family="notes_edit", kind="write")
def notes_append_to_note(world: World, note_id: int, text: str) -> dict[str, Any]:
    """Append text to the end of a note (on a new line).

    Args:
        note_id: id of the note
        text: text to add
    """
    note = world.get("notes", note_id)
    content = f"{note['content']}\n{text}" if note["content"] else text
    return world.update("notes", note_id, {"content": content})


@tool("notes", family="notes_edit", kind="write")
def notes_replace_in_note(world: World, note_id: int, old_text: str, new_text: str) -> dict[str, Any]:
    """Replace every occurrence of some text inside a note.

    Args:
        note_id: id of the note
        old_text: text to replace (must occur in the note)
        new_text: replacement
    """
    note = world.get("notes", note_id)
    if not old_text or old_text not in note["content"]:
        raise ToolError(f"{old_text!r} does not occur in note {note_id}")
    return world.update("notes", note_id, {"content": note["content"].replace(old_text, new_text)})


@tool("notes", family="notes_edit", kind="write")
def notes_duplicate_note(world: World, note_id: int, new_title: str | None = None) -> dict[str, Any]:
    """Copy a note (content and tags) under a new title.

    Args:
        note_id: id of the note to copy
        new_title: title of the copy; default "<title> (copy)"
    """
    note = world.get("notes", note_id)
    return world.insert("notes", {"title": new_title or f"{note['title']} (copy)", "content": note["content"], "tags": note["tags"]})


@tool("notes", family="notes_tags", kind="read")
def notes_find_notes_by_tag(world: World, tag: str) -> list[dict[str, Any]]:
    """List notes carrying a tag.

    Args:
        tag: the tag
    """
    return [n for n in world.rows("notes") if tag in n["tags"]]


@tool("notes", family="notes_tags", kind="read")
def notes_list_tags(world: World) -> list[dict[str, Any]]:
    """List every tag used by notes, with how many notes carry it."""
    counts: dict[str, int] = {}
    for note in world.rows("notes"):
        for t in note["tags"]:
            counts[t] = counts.get(t, 0) + 1
    return [{"tag": t, "notes": n} for t, n in sorted(counts.items())]


@tool("notes", family="notes_tags", kind="write")
def notes_rename_tag(world: World, old_tag: str, new_tag: str) -> dict[str, int]:
    """Rename a tag on every note that carries it.

    Args:
        old_tag: tag to rename
        new_tag: new name
    """
    changed = 0
    for note in world.rows("notes"):
        if old_tag in note["tags"]:
            tags = list(dict.fromkeys(new_tag if t == old_tag else t for t in note["tags"]))
            world.update("notes", note["id"], {"tags": tags})
            changed += 1
    if not changed:
        raise ToolError(f"no note carries the tag {old_tag!r}")
    return {"notes_changed": changed}


@tool("notes", family="notes_tags", kind="read")
def notes_list_pinned_notes(world: World) -> list[dict[str, Any]]:
    """List pinned notes."""
    return world.rows("notes", "is_pinned = 1")


@tool("notes", family="notes_share")
def notes_share_note_by_message(world: World, note_id: int, recipient_phone_number: str) -> dict[str, Any]:
    """Send a note's title and content as a text message. Needs a network connection.

    Args:
        note_id: id of the note
        recipient_phone_number: phone number to send it to
    """
    note = world.get("notes", note_id)
    return messaging_send_message(world, recipient_phone_number, f"{note['title']}\n{note['content']}")


@tool("notes", family="notes_share")
def notes_share_note_by_email(world: World, note_id: int, recipient: str) -> dict[str, Any]:
    """Email a note (subject = title, body = content). Needs a network connection.

    Args:
        note_id: id of the note
        recipient: email address to send it to
    """
    from .commerce import email_send_email

    note = world.get("notes", note_id)
    return email_send_email(world, [check_email(recipient, "recipient")], note["title"], note["content"])


# ---------------------------------------------------------------------- todo
@validator("todo_tasks")
def _task_rules(world: World, row: dict[str, Any]) -> None:
    if not row["content"].strip():
        raise ToolError("task.content must not be empty")
    if row["parent_id"] == row["id"]:
        raise ToolError("a task cannot be its own parent")
    if row["section_id"] is not None:
        section = world.get("todo_sections", row["section_id"])
        if section["project_id"] != row["project_id"]:
            raise ToolError(f"section {row['section_id']} belongs to project {section['project_id']}, not to the task's project {row['project_id']}")


@validator("todo_projects")
def _project_rules(world: World, row: dict[str, Any]) -> None:
    if not row["name"].strip():
        raise ToolError("project.name must not be empty")


@tool("todo", family="todo_tasks_state", kind="write")
def todo_complete_task(world: World, task_id: int) -> dict[str, Any]:
    """Mark a task and all its sub-tasks as completed.

    Args:
        task_id: id of the task
    """
    task = world.get("todo_tasks", task_id)
    if task["is_completed"]:
        raise ToolError(f"task {task_id} is already completed")
    pending = [task_id]
    while pending:
        current = pending.pop()
        world.update("todo_tasks", current, {"is_completed": True})
        pending += [r["id"] for r in world.rows("todo_tasks", "parent_id = ? AND is_completed = 0", (current,))]
    return world.get("todo_tasks", task_id)


@tool("todo", family="todo_tasks_state", kind="write")
def todo_reopen_task(world: World, task_id: int) -> dict[str, Any]:
    """Mark a completed task as not completed.

    Args:
        task_id: id of the task
    """
    if not world.get("todo_tasks", task_id)["is_completed"]:
        raise ToolError(f"task {task_id} is not completed")
    return world.update("todo_tasks", task_id, {"is_completed": False})


@tool("todo", family="todo_tasks_state", kind="write")
def todo_set_task_due_date(world: World, task_id: int, due_date: str) -> dict[str, Any]:
    """Set a task's due date.

    Args:
        task_id: id of the task
        due_date: YYYY-MM-DD
    """
    return world.update("todo_tasks", task_id, {"due_date": due_date})


@tool("todo", family="todo_tasks_state", kind="write")
def todo_postpone_task(world: World, task_id: int, days: int) -> dict[str, Any]:
    """Move a task's due date later by some days (a task without a due date counts from today).

    Args:
        task_id: id of the task
        days: days to add (≥ 1)
    """
    if days < 1:
        raise ToolError(f"days must be at least 1, got {days}")
    task = world.get("todo_tasks", task_id)
    base = parse_date(task["due_date"]) if task["due_date"] else world.today()
    return world.update("todo_tasks", task_id, {"due_date": (base + timedelta(days=days)).isoformat()})


@tool("todo", family="todo_tasks_state", kind="write")
def todo_set_task_priority(world: World, task_id: int, priority: int) -> dict[str, Any]:
    """Set a task's priority.

    Args:
        task_id: id of the task
        priority: 1 (normal) to 4 (urgent)
    """
    return world.update("todo_tasks", task_id, {"priority": priority})


@tool("todo", family="todo_tasks_edit", kind="write")
def todo_add_subtask(world: World, parent_task_id: int, content: str, due_date: str | None = None) -> dict[str, Any]:
    """Add a sub-task under a task (same project and section).

    Args:
        parent_task_id: id of the parent task
        content: sub-task title
        due_date: YYYY-MM-DD, optional
    """
    parent = world.get("todo_tasks", parent_task_id)
    return world.insert("todo_tasks", {"content": content, "parent_id": parent_task_id, "project_id": parent["project_id"],
                                       "section_id": parent["section_id"], "due_date": due_date})


@tool("todo", family="todo_tasks_edit", kind="write")
def todo_move_task(world: World, task_id: int, project_id: int | None = None, section_id: int | None = None) -> dict[str, Any]:
    """Move a task (and its sub-tasks) to another project and/or section; omit both to move it to the inbox.

    Args:
        task_id: id of the task
        project_id: destination project (omit with section_id to use the section's project)
        section_id: destination section, optional
    """
    world.get("todo_tasks", task_id)
    if section_id is not None:
        section = world.get("todo_sections", section_id)
        if project_id is not None and project_id != section["project_id"]:
            raise ToolError(f"section {section_id} belongs to project {section['project_id']}, not {project_id}")
        project_id = section["project_id"]
    if project_id is not None:
        world.get("todo_projects", project_id)
    moved = [task_id]
    pending = [task_id]
    while pending:
        current = pending.pop()
        world.set_raw("todo_tasks", current, "project_id", project_id)
        world.set_raw("todo_tasks", current, "section_id", section_id)
        children = [r["id"] for r in world.rows("todo_tasks", "parent_id = ?", (current,))]
        moved += children
        pending += children
    return {"moved_task_ids": moved, "project_id": project_id, "section_id": section_id}


@tool("todo", family="todo_tasks_view", kind="read")
def todo_list_project_tasks(world: World, project_id: int, include_completed: bool = False) -> list[dict[str, Any]]:
    """List the tasks of a project.

    Args:
        project_id: id of the project
        include_completed: also list completed tasks
    """
    world.get("todo_projects", project_id)
    return world.rows("todo_tasks", "project_id = ?" + ("" if include_completed else " AND is_completed = 0"), (project_id,))


@tool("todo", family="todo_tasks_view", kind="read")
def todo_list_tasks_due_on(world: World, date: str) -> list[dict[str, Any]]:
    """List open tasks due on a date.

    Args:
        date: YYYY-MM-DD
    """
    return world.rows("todo_tasks", "is_completed = 0 AND due_date = ?", (parse_date(date).isoformat(),))


@tool("todo", family="todo_tasks_view", kind="read")
def todo_list_overdue_tasks(world: World) -> list[dict[str, Any]]:
    """List open tasks whose due date is before today."""
    return world.rows("todo_tasks", "is_completed = 0 AND due_date < ?", (world.today().isoformat(),))


@tool("todo", family="todo_tasks_view", kind="read")
def todo_list_tasks_with_label(world: World, label: str) -> list[dict[str, Any]]:
    """List tasks carrying a label.

    Args:
        label: label name
    """
    return [t for t in world.rows("todo_tasks") if label in t["labels"]]


@tool("todo", family="todo_projects_extra", kind="write")
def todo_create_project_with_tasks(world: World, name: str, tasks: list[str],
                                   color: Literal["grey", "red", "orange", "yellow", "green", "blue", "violet"] = "grey",
                                   due_date: str | None = None) -> dict[str, Any]:
    """Create a project and fill it with tasks in one call.

    Args:
        name: project name
        tasks: task titles, in order
        color: project colour
        due_date: due date for every task, YYYY-MM-DD, optional
    """
    if not tasks:
        raise ToolError("tasks must list at least one task title")
    project = world.insert("todo_projects", {"name": name, "color": color})
    created = [world.insert("todo_tasks", {"content": t, "project_id": project["id"], "due_date": due_date}) for t in tasks]
    return {"project": project, "tasks": created}


@tool("todo", family="todo_projects_extra", kind="write")
def todo_delete_project_and_tasks(world: World, project_id: int) -> dict[str, Any]:
    """Delete a project together with its sections, tasks and their comments.

    Args:
        project_id: id of the project
    """
    world.get("todo_projects", project_id)
    task_ids = [r["id"] for r in world.rows("todo_tasks", "project_id = ?", (project_id,))]
    for task_id in task_ids:
        world.conn.execute("DELETE FROM todo_comments WHERE task_id = ?", (task_id,))
    world.conn.execute("DELETE FROM todo_tasks WHERE project_id = ?", (project_id,))
    world.conn.execute("DELETE FROM todo_sections WHERE project_id = ?", (project_id,))
    world.delete("todo_projects", project_id)
    return {"deleted_project_id": project_id, "deleted_task_ids": task_ids}


@tool("todo", family="todo_projects_extra", kind="read")
def todo_get_project_progress(world: World, project_id: int) -> dict[str, Any]:
    """How many of a project's tasks are done.

    Args:
        project_id: id of the project
    """
    world.get("todo_projects", project_id)
    total = world.count("todo_tasks", "project_id = ?", (project_id,))
    done = world.count("todo_tasks", "project_id = ? AND is_completed = 1", (project_id,))
    return {"project_id": project_id, "total": total, "completed": done, "percent": round(100 * done / total, 1) if total else 0.0}


@tool("todo", family="todo_projects_extra", kind="write")
def todo_find_or_create_project(world: World, name: str) -> dict[str, Any]:
    """Return the project with this name (case-insensitive) or create it.

    Args:
        name: project name
    """
    rows = world.rows("todo_projects", "lower(name) = lower(?)", (name.strip(),))
    return rows[0] if rows else world.insert("todo_projects", {"name": name.strip()})

