"""Contacts, messaging, phone (calls and alarms), reminders and profile tools."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from ..tools import tool
from ..world import ToolError, World, parse_datetime, parse_time, validator

_PHONE = re.compile(r"^\+?[0-9][0-9 ()\-.]{5,}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def check_phone(number: str, what: str = "phone number") -> str:
    if not isinstance(number, str) or not _PHONE.match(number.strip()):
        raise ToolError(f"{what} {number!r} is not a valid phone number (digits, optional leading +, dashes or spaces)")
    return number.strip()


def check_email(address: str, what: str = "email address") -> str:
    if not isinstance(address, str) or not _EMAIL.match(address.strip()):
        raise ToolError(f"{what} {address!r} is not a valid email address")
    return address.strip()


@validator("contacts")
def _contact_rules(world: World, row: dict[str, Any]) -> None:
    if not row["name"].strip():
        raise ToolError("contact.name must not be empty")
    if row["phone_number"]:
        check_phone(row["phone_number"], "contact.phone_number")
    if row["email"]:
        check_email(row["email"], "contact.email")


# ---------------------------------------------------------------------- contacts
@tool("contacts", family="contacts_lookup", kind="read")
def contacts_find_contacts_by_name(world: World, name: str) -> list[dict[str, Any]]:
    """Find contacts whose name contains the given text (case-insensitive), e.g. a first name.

    Args:
        name: full or partial name to look for
    """
    needle = name.strip().lower()
    if not needle:
        raise ToolError("name must not be empty")
    return [r for r in world.rows("contacts") if needle in r["name"].lower()]


@tool("contacts", family="contacts_lookup", kind="read")
def contacts_list_favorite_contacts(world: World) -> list[dict[str, Any]]:
    """List the contacts marked as favourites."""
    return world.rows("contacts", "is_favorite = 1")


@tool("contacts", family="contacts_lookup", kind="read")
def contacts_list_contacts_at_company(world: World, company: str) -> list[dict[str, Any]]:
    """List contacts who work at a company (case-insensitive match on the company name).

    Args:
        company: company name
    """
    return world.rows("contacts", "lower(company) = lower(?)", (company.strip(),))


@tool("contacts", family="contacts_lookup", kind="read")
def contacts_list_upcoming_birthdays(world: World, days: int = 30) -> list[dict[str, Any]]:
    """List contacts whose birthday falls within the next ``days`` days (from the current date).

    Args:
        days: how many days ahead to look (1-366)
    """
    if not 1 <= days <= 366:
        raise ToolError(f"days must be between 1 and 366, got {days}")
    today = world.today()
    found = []
    for row in world.rows("contacts", "birthday IS NOT NULL"):
        born = datetime.fromisoformat(row["birthday"]).date()
        for year in (today.year, today.year + 1):
            try:
                upcoming = born.replace(year=year)
            except ValueError:  # 29 February in a common year
                upcoming = born.replace(year=year, day=28)
            if 0 <= (upcoming - today).days <= days:
                found.append({**row, "next_birthday": upcoming.isoformat(), "days_until": (upcoming - today).days})
                break
    return sorted(found, key=lambda r: r["days_until"])


@tool("contacts", family="contacts_edit", kind="write")
def contacts_merge_contacts(world: World, keep_contact_id: int, duplicate_contact_id: int) -> dict[str, Any]:
    """Merge a duplicate contact into another: empty fields of the kept contact are filled from the duplicate, then the duplicate is deleted.

    Args:
        keep_contact_id: id of the contact to keep
        duplicate_contact_id: id of the contact to merge in and delete
    """
    if keep_contact_id == duplicate_contact_id:
        raise ToolError("cannot merge a contact with itself")
    keep = world.get("contacts", keep_contact_id)
    dup = world.get("contacts", duplicate_contact_id)
    fill = {k: v for k, v in dup.items() if k not in ("id", "created_at") and not keep.get(k) and v not in (None, "", False)}
    world.delete("contacts", duplicate_contact_id)
    return world.update("contacts", keep_contact_id, fill) if fill else keep


@tool("contacts", family="contacts_edit", kind="write")
def contacts_share_contact(world: World, contact_id: int, recipient_phone_number: str) -> dict[str, Any]:
    """Send a contact card (name, phone, email) to a phone number as a text message. Needs a network connection.

    Args:
        contact_id: id of the contact to share
        recipient_phone_number: phone number to send the card to
    """
    contact = world.get("contacts", contact_id)
    card = f"Contact: {contact['name']}" + "".join(f"\n{k}: {contact[k]}" for k in ("phone_number", "email") if contact[k])
    return messaging_send_message(world, recipient_phone_number, card)


# ---------------------------------------------------------------------- messaging
@tool("messaging", family="messaging_send")
def messaging_send_message(world: World, recipient_phone_number: str, content: str = "", attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Send a text message, optionally with images attached (by image id). Needs a network connection.

    Args:
        recipient_phone_number: the recipient's phone number (look it up in contacts)
        content: message text
        attachment_image_ids: ids of images to attach, e.g. ["img_0"]
    """
    world.require_network("send a message")
    number = check_phone(recipient_phone_number, "recipient_phone_number")
    attachments = world.check_images(attachment_image_ids)
    if not content.strip() and not attachments:
        raise ToolError("a message needs text or at least one attachment")
    return world.insert("messages", {
        "sender_phone_number": world.self_phone(), "recipient_phone_number": number, "content": content,
        "attachments": attachments, "is_read": True,
    })


@tool("messaging", family="messaging_send")
def messaging_send_message_to_contact(world: World, contact_id: int, content: str = "", attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Send a text message to a contact's phone number (by contact id). Needs a network connection.

    Args:
        contact_id: id of the contact
        content: message text
        attachment_image_ids: ids of images to attach
    """
    contact = world.get("contacts", contact_id)
    if not contact["phone_number"]:
        raise ToolError(f"contact {contact['name']!r} has no phone number")
    return messaging_send_message(world, contact["phone_number"], content, attachment_image_ids)


@tool("messaging", family="messaging_send")
def messaging_send_group_message(world: World, recipient_phone_numbers: list[str], content: str, attachment_image_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """Send the same message to several phone numbers (one message per recipient). Needs a network connection.

    Args:
        recipient_phone_numbers: phone numbers of the recipients
        content: message text
        attachment_image_ids: ids of images to attach
    """
    if not recipient_phone_numbers:
        raise ToolError("recipient_phone_numbers must name at least one number")
    if len(set(recipient_phone_numbers)) != len(recipient_phone_numbers):
        raise ToolError("recipient_phone_numbers contains duplicates")
    return [messaging_send_message(world, n, content, attachment_image_ids) for n in recipient_phone_numbers]


@tool("messaging", family="messaging_send")
def messaging_reply_to_message(world: World, message_id: int, content: str, attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Reply to a received message (sent to its sender). Needs a network connection.

    Args:
        message_id: id of the message replied to
        content: reply text
        attachment_image_ids: ids of images to attach
    """
    message = world.get("messages", message_id)
    if message["sender_phone_number"] == world.self_phone():
        raise ToolError(f"message {message_id} was sent by you; reply to a received message")
    return messaging_send_message(world, message["sender_phone_number"], content, attachment_image_ids)


@tool("messaging", family="messaging_send")
def messaging_forward_message(world: World, message_id: int, recipient_phone_number: str) -> dict[str, Any]:
    """Forward a message (text and attachments) to another phone number. Needs a network connection.

    Args:
        message_id: id of the message to forward
        recipient_phone_number: phone number to forward to
    """
    message = world.get("messages", message_id)
    visible = [a for a in message["attachments"] if a in world.visible]
    return messaging_send_message(world, recipient_phone_number, message["content"], visible)


@tool("messaging", family="messaging_read", kind="write")
def messaging_mark_conversation_read(world: World, phone_number: str) -> dict[str, int]:
    """Mark every message received from a phone number as read.

    Args:
        phone_number: the other party's phone number
    """
    cursor = world.conn.execute("UPDATE messages SET is_read = 1 WHERE sender_phone_number = ? AND is_read = 0", (phone_number.strip(),))
    return {"marked_read": cursor.rowcount}


@tool("messaging", family="messaging_read", kind="read")
def messaging_get_conversation(world: World, phone_number: str, limit: int = 50) -> list[dict[str, Any]]:
    """The messages exchanged with one phone number, oldest first.

    Args:
        phone_number: the other party's phone number
        limit: maximum number of (most recent) messages
    """
    number = phone_number.strip()
    rows = world.rows("messages", "sender_phone_number = ? OR recipient_phone_number = ?", (number, number), order="sent_at, id")
    return rows[-max(1, limit):]


@tool("messaging", family="messaging_read", kind="read")
def messaging_list_conversations(world: World) -> list[dict[str, Any]]:
    """List conversations: one entry per other phone number with its last message, unread count and contact name."""
    me = world.self_phone()
    names = {r["phone_number"]: r["name"] for r in world.rows("contacts") if r["phone_number"]}
    convos: dict[str, dict[str, Any]] = {}
    for m in world.rows("messages", order="sent_at, id"):
        other = m["recipient_phone_number"] if m["sender_phone_number"] == me else m["sender_phone_number"]
        entry = convos.setdefault(other, {"phone_number": other, "contact_name": names.get(other), "unread": 0})
        entry["last_message"] = m["content"]
        entry["last_sent_at"] = m["sent_at"]
        entry["unread"] += int(not m["is_read"] and m["sender_phone_number"] != me)
    return sorted(convos.values(), key=lambda e: e["last_sent_at"] or "", reverse=True)


@tool("messaging", family="messaging_read", kind="read")
def messaging_list_unread_messages(world: World) -> list[dict[str, Any]]:
    """List received messages that are not read yet."""
    return world.rows("messages", "is_read = 0 AND sender_phone_number != ?", (world.self_phone(),))


@tool("messaging", family="messaging_read", kind="read")
def messaging_list_messages_between(world: World, start: str, end: str) -> list[dict[str, Any]]:
    """List messages sent between two date-times.

    Args:
        start: earliest date-time (YYYY-MM-DDTHH:MM:SS)
        end: latest date-time (YYYY-MM-DDTHH:MM:SS)
    """
    a, b = parse_datetime(start, "start"), parse_datetime(end, "end")
    if b < a:
        raise ToolError("end must not be before start")
    return world.rows("messages", "sent_at >= ? AND sent_at <= ?", (a.isoformat(), b.isoformat()))


# ---------------------------------------------------------------------- phone: calls and alarms
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


# ---------------------------------------------------------------------- reminders
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


# ---------------------------------------------------------------------- profile / supervisor
@tool("profile", family="profile", kind="read")
def profile_show_account_passwords(world: World) -> list[dict[str, Any]]:
    """Show the stored app account names and passwords."""
    return world.rows("credentials")


@tool("profile", family="profile", kind="read")
def profile_get_app_credentials(world: World, app: str) -> dict[str, Any]:
    """The stored username and password for one app.

    Args:
        app: app name, e.g. "shopping"
    """
    rows = world.rows("credentials", "lower(app) = lower(?)", (app.strip(),))
    if not rows:
        raise ToolError(f"no credentials stored for app {app!r}")
    return rows[0]


@tool("profile", family="profile", kind="read")
def profile_show_addresses(world: World) -> list[dict[str, Any]]:
    """Show the user's saved addresses (shipping addresses plus home and work from the profile)."""
    profile = world.get("user_profile", 1)
    extra = [{"label": k.split("_")[0].title(), "address": profile[k]} for k in ("home_address", "work_address") if profile[k]]
    return extra + world.rows("addresses")


@tool("profile", family="profile", kind="read")
def profile_show_payment_cards(world: World) -> list[dict[str, Any]]:
    """Show the user's saved payment cards."""
    return world.rows("payment_cards")


@tool("profile", family="profile", kind="read")
def profile_get_current_date_time(world: World) -> dict[str, str]:
    """The current date, time and weekday on the device."""
    return {"datetime": world.now_iso(), "date": world.today().isoformat(), "weekday": world.now.strftime("%A")}


@tool("contacts", family="contacts_edit", kind="write")
def contacts_add_contact_note(world: World, contact_id: int, text: str) -> dict[str, Any]:
    """Append a line to a contact's notes.

    Args:
        contact_id: id of the contact
        text: text to add
    """
    contact = world.get("contacts", contact_id)
    if not text.strip():
        raise ToolError("text must not be empty")
    return world.update("contacts", contact_id, {"notes": f"{contact['notes']}\n{text}" if contact["notes"] else text})


@tool("contacts", family="contacts_lookup", kind="read")
def contacts_find_contacts_by_phone_digits(world: World, digits: str) -> list[dict[str, Any]]:
    """Find contacts whose phone number ends with some digits (punctuation ignored), e.g. the last four.

    Args:
        digits: trailing digits of the number (at least 3)
    """
    wanted = "".join(ch for ch in digits if ch.isdigit())
    if len(wanted) < 3:
        raise ToolError("give at least 3 digits")
    return [r for r in world.rows("contacts") if r["phone_number"] and "".join(ch for ch in r["phone_number"] if ch.isdigit()).endswith(wanted)]


@tool("phone", family="phone_calls", kind="read")
def phone_list_calls_between(world: World, start: str, end: str) -> list[dict[str, Any]]:
    """List calls that started between two date-times.

    Args:
        start: earliest date-time (YYYY-MM-DDTHH:MM:SS)
        end: latest date-time (YYYY-MM-DDTHH:MM:SS)
    """
    a, b = parse_datetime(start, "start"), parse_datetime(end, "end")
    if b < a:
        raise ToolError("end must not be before start")
    return world.rows("calls", "started_at >= ? AND started_at <= ?", (a.isoformat(), b.isoformat()))


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
