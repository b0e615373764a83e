"""Photo-gallery tools: save images to albums, list and move photos, captions, share by message or email."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World, validator
from .email import email_send_email
from .messaging import messaging_send_message


@validator("photos")
def _photo_rules(world: World, row: dict[str, Any]) -> None:
    world.check_image(row["image_id"])
    if world.rows("photos", "image_id = ? AND id != ?", (row["image_id"], row["id"])):
        raise ToolError(f"image {row['image_id']} is already in the gallery")


@tool("photos", family="photos_gallery", kind="write")
def photos_save_image_to_gallery(world: World, image_id: str, album: str = "Camera Roll", caption: str | None = None) -> dict[str, Any]:
    """Save an image into the photo gallery.

    Args:
        image_id: id of the image, e.g. "img_0"
        album: album name
        caption: caption
    """
    return world.insert("photos", {"image_id": image_id, "album": album, "caption": caption})


@tool("photos", family="photos_gallery", kind="read")
def photos_list_albums(world: World) -> list[dict[str, Any]]:
    """List gallery albums with how many photos each holds."""
    return [{"album": a, "photos": n} for a, n in world.conn.execute("SELECT album, COUNT(*) FROM photos GROUP BY album ORDER BY album")]


@tool("photos", family="photos_gallery", kind="read")
def photos_list_album_photos(world: World, album: str) -> list[dict[str, Any]]:
    """List the photos in an album.

    Args:
        album: album name
    """
    return world.rows("photos", "album = ?", (album,))


@tool("photos", family="photos_gallery", kind="write")
def photos_move_to_album(world: World, photo_id: int, album: str) -> dict[str, Any]:
    """Move a photo to another album.

    Args:
        photo_id: id of the photo
        album: album name
    """
    if not album.strip():
        raise ToolError("album must not be empty")
    return world.update("photos", photo_id, {"album": album})


@tool("photos", family="photos_share")
def photos_share_photo_by_message(world: World, photo_id: int, recipient_phone_number: str, text: str = "") -> dict[str, Any]:
    """Send a gallery photo in a text message. Needs a network connection.

    Args:
        photo_id: id of the photo
        recipient_phone_number: phone number to send it to
        text: message text
    """
    photo = world.get("photos", photo_id)
    return messaging_send_message(world, recipient_phone_number, text, [photo["image_id"]])


@tool("photos", family="photos_share")
def photos_share_photo_by_email(world: World, photo_id: int, recipients: list[str], subject: str, body: str = "") -> dict[str, Any]:
    """Email a gallery photo as an attachment. Needs a network connection.

    Args:
        photo_id: id of the photo
        recipients: email addresses
        subject: subject line
        body: body text
    """
    photo = world.get("photos", photo_id)
    return email_send_email(world, recipients, subject, body, None, [photo["image_id"]])


@tool("photos", family="photos_gallery", kind="write")
def photos_set_caption(world: World, photo_id: int, caption: str) -> dict[str, Any]:
    """Set a photo's caption.

    Args:
        photo_id: id of the photo
        caption: new caption (empty clears it)
    """
    world.get("photos", photo_id)
    world.set_raw("photos", photo_id, "caption", caption or None)
    return world.get("photos", photo_id)
