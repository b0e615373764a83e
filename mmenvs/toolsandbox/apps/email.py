"""Email tools: send, reply, forward, drafts with image attachments, inbox listings, labels, spam, archive."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World
from .shared import check_email


def _deliver(world: World, recipients: list[str], subject: str, body: str, cc: list[str] | None,
             attachments: list[str] | None, thread_id: int | None) -> dict[str, Any]:
    world.require_network("send an email")
    if not recipients:
        raise ToolError("an email needs at least one recipient")
    to = [check_email(r, "recipient") for r in recipients]
    copies = [check_email(r, "cc") for r in (cc or [])]
    images = world.check_images(attachments)
    if not subject.strip() and not body.strip():
        raise ToolError("an email needs a subject or a body")
    if thread_id is None:
        thread_id = world.insert("email_threads", {"subject": subject, "is_read": True})["id"]
    else:
        world.update("email_threads", thread_id, {"is_read": True})
    return world.insert("emails", {"thread_id": thread_id, "sender": world.self_email(), "recipients": to, "cc": copies,
                                   "subject": subject, "body": body, "attachments": images})


@tool("email", family="email_send")
def email_send_email(world: World, recipients: list[str], subject: str, body: str, cc: list[str] | None = None,
                     attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Send a new email (starts a thread), optionally with images attached. Needs a network connection.

    Args:
        recipients: email addresses to send to
        subject: subject line
        body: body text
        cc: addresses to copy
        attachment_image_ids: ids of images to attach, e.g. ["img_1"]
    """
    return _deliver(world, recipients, subject, body, cc, attachment_image_ids, None)


@tool("email", family="email_send")
def email_reply_to_thread(world: World, thread_id: int, body: str, reply_all: bool = False,
                          attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Reply in a thread to the sender of its latest email you did not send (all participants with reply_all).

    Args:
        thread_id: id of the thread
        body: reply text
        reply_all: also reply to the other recipients and cc
        attachment_image_ids: ids of images to attach
    """
    thread = world.get("email_threads", thread_id)
    me = world.self_email()
    received = [e for e in world.rows("emails", "thread_id = ?", (thread_id,), order="sent_at, id") if e["sender"] != me]
    if not received:
        raise ToolError(f"thread {thread_id} has no received email to reply to")
    last = received[-1]
    to = [last["sender"]] + ([r for r in last["recipients"] if r != me and r != last["sender"]] if reply_all else [])
    cc = [c for c in last["cc"] if c != me] if reply_all else []
    subject = thread["subject"] if (thread["subject"] or "").lower().startswith("re:") else f"Re: {thread['subject']}"
    return _deliver(world, to, subject, body, cc, attachment_image_ids, thread_id)


@tool("email", family="email_send")
def email_forward_email(world: World, email_id: int, recipients: list[str], note: str = "") -> dict[str, Any]:
    """Forward an email (with its attachments) to new recipients. Needs a network connection.

    Args:
        email_id: id of the email to forward
        recipients: addresses to forward to
        note: text added above the forwarded message
    """
    email = world.get("emails", email_id)
    body = f"{note}\n\n---------- Forwarded message ----------\nFrom: {email['sender']}\n\n{email['body']}".strip()
    images = [a for a in email["attachments"] if a in world.visible]
    return _deliver(world, recipients, f"Fwd: {email['subject']}", body, None, images, None)


@tool("email", family="email_send")
def email_send_draft(world: World, draft_id: int) -> dict[str, Any]:
    """Send a saved draft (the draft is removed once sent). Needs a network connection.

    Args:
        draft_id: id of the draft
    """
    draft = world.get("email_drafts", draft_id)
    sent = _deliver(world, draft["recipients"], draft["subject"], draft["body"], draft["cc"], draft["attachments"], draft["thread_id"])
    world.delete("email_drafts", draft_id)
    return sent


@tool("email", family="email_drafts_extra", kind="write")
def email_attach_image_to_draft(world: World, draft_id: int, image_id: str) -> dict[str, Any]:
    """Attach an image to a draft.

    Args:
        draft_id: id of the draft
        image_id: id of the image, e.g. "img_2"
    """
    draft = world.get("email_drafts", draft_id)
    world.check_image(image_id)
    if image_id in draft["attachments"]:
        raise ToolError(f"{image_id} is already attached to draft {draft_id}")
    return world.update("email_drafts", draft_id, {"attachments": draft["attachments"] + [image_id]})


@tool("email", family="email_view", kind="read")
def email_list_inbox(world: World, limit: int = 20) -> list[dict[str, Any]]:
    """List inbox threads (not archived, not spam), newest first, with their latest email.

    Args:
        limit: maximum number of threads
    """
    out = []
    for thread in world.rows("email_threads", "is_archived = 0", order="updated_at DESC, id DESC"):
        if "spam" in thread["labels"]:
            continue
        emails = world.rows("emails", "thread_id = ?", (thread["id"],), order="sent_at DESC, id DESC")
        out.append({**thread, "latest_email": emails[0] if emails else None})
    return out[: max(1, limit)]


@tool("email", family="email_view", kind="read")
def email_list_sent_emails(world: World, limit: int = 20) -> list[dict[str, Any]]:
    """List emails the user sent, newest first.

    Args:
        limit: maximum number of emails
    """
    return world.rows("emails", "sender = ?", (world.self_email(),), order="sent_at DESC, id DESC")[: max(1, limit)]


@tool("email", family="email_view", kind="read")
def email_get_thread_emails(world: World, thread_id: int) -> list[dict[str, Any]]:
    """All emails of a thread, oldest first.

    Args:
        thread_id: id of the thread
    """
    world.get("email_threads", thread_id)
    return world.rows("emails", "thread_id = ?", (thread_id,), order="sent_at, id")


@tool("email", family="email_view", kind="read")
def email_list_unread_threads(world: World) -> list[dict[str, Any]]:
    """List unread threads."""
    return world.rows("email_threads", "is_read = 0")


@tool("email", family="email_view", kind="read")
def email_search_emails_from(world: World, sender: str) -> list[dict[str, Any]]:
    """List emails whose sender address contains the given text.

    Args:
        sender: full or partial sender address
    """
    return world.rows("emails", "lower(sender) LIKE ?", (f"%{sender.strip().lower()}%",))


@tool("email", family="email_view", kind="read")
def email_list_threads_with_label(world: World, label: str) -> list[dict[str, Any]]:
    """List threads carrying a label.

    Args:
        label: label name
    """
    return [t for t in world.rows("email_threads") if label in t["labels"]]


@tool("email", family="email_organize", kind="write")
def email_apply_label(world: World, thread_id: int, label: str) -> dict[str, Any]:
    """Put an existing mailbox label on a thread (create the label first with the label tools).

    Args:
        thread_id: id of the thread
        label: label name (must exist)
    """
    if not world.rows("email_labels", "name = ?", (label,)):
        names = [r["name"] for r in world.rows("email_labels")]
        raise ToolError(f"no mailbox label {label!r}; existing labels: {names}")
    thread = world.get("email_threads", thread_id)
    if label in thread["labels"]:
        raise ToolError(f"thread {thread_id} already has label {label!r}")
    return world.update("email_threads", thread_id, {"labels": thread["labels"] + [label]})


@tool("email", family="email_organize", kind="write")
def email_mark_as_spam(world: World, thread_id: int) -> dict[str, Any]:
    """Mark a thread as spam (labels it 'spam' and archives it).

    Args:
        thread_id: id of the thread
    """
    thread = world.get("email_threads", thread_id)
    labels = thread["labels"] + (["spam"] if "spam" not in thread["labels"] else [])
    return world.update("email_threads", thread_id, {"labels": labels, "is_archived": True})


@tool("email", family="email_organize", kind="write")
def email_archive_threads(world: World, thread_ids: list[int]) -> dict[str, Any]:
    """Archive several threads at once.

    Args:
        thread_ids: ids of the threads
    """
    if not thread_ids:
        raise ToolError("thread_ids must name at least one thread")
    return {"archived": [world.update("email_threads", i, {"is_archived": True})["id"] for i in thread_ids]}
