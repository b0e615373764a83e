"""Notes tools: edit notes, tags and pins, and share notes by message or email."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World, validator
from .email import email_send_email
from .messaging import messaging_send_message
from .shared import check_email


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
        raise ToolError(f"{old_text[:200]!r} does not occur in note {note_id}")
    # Sized before the replacement is made: one short old_text in a long note multiplies new_text.
    size = len(note["content"]) + note["content"].count(old_text) * (len(new_text) - len(old_text))
    limit = max(len(note["content"]), world.images.budget.tool_argument_chars)
    if size > limit:
        raise ToolError(f"the note would grow to {size:,} characters, more than the episode budget tool_argument_chars="
                        f"{world.images.budget.tool_argument_chars:,} lets one call make")
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
    note = world.get("notes", note_id)
    return email_send_email(world, [check_email(recipient, "recipient")], note["title"], note["content"])
