"""Contacts tools: look people up, list favourites, colleagues and birthdays, merge, annotate and share contacts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..tools import tool
from ..world import ToolError, World, validator
from .messaging import messaging_send_message
from .shared import check_email, check_phone


@validator("contacts")
def _contact_rules(world: World, row: dict[str, Any]) -> None:
    if not row["name"].strip():
        raise ToolError("contact.name must not be empty")
    if row["phone_number"]:
        check_phone(row["phone_number"], "contact.phone_number")
    if row["email"]:
        check_email(row["email"], "contact.email")


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
