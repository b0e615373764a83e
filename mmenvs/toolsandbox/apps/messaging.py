"""Messaging tools: send (with image attachments), reply, forward and read text messages and conversations."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World
from .shared import check_phone, rows_between


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
    return rows_between(world, "messages", "sent_at", start, end)
