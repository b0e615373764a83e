"""Music, files and photo-gallery tools."""

from __future__ import annotations

from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, validator
from .commerce import email_send_email
from .personal import messaging_send_message


# ---------------------------------------------------------------------- music
@validator("playlists")
def _playlist_rules(world: World, row: dict[str, Any]) -> None:
    if not row["name"].strip():
        raise ToolError("playlist.name must not be empty")
    for song_id in row["song_ids"]:
        if not isinstance(song_id, int) or world.find("songs", song_id) is None:
            raise ToolError(f"playlist.song_ids: no song with id {song_id!r}")


def _player(world: World) -> dict[str, Any]:
    return world.get("player_state", 1)


def _set_player(world: World, **changes: Any) -> dict[str, Any]:
    sets = ", ".join(f'"{k}" = ?' for k in changes)
    values = [int(v) if isinstance(v, bool) else v for v in changes.values()]
    world.conn.execute(f"UPDATE player_state SET {sets} WHERE id = 1", values)
    return _player(world)


@tool("music", family="music_player", kind="write")
def music_play_song(world: World, song_id: int) -> dict[str, Any]:
    """Start playing a song (streams it, so it needs a network connection).

    Args:
        song_id: id of the song
    """
    world.require_network("stream music")
    song = world.get("songs", song_id)
    world.conn.execute("UPDATE songs SET play_count = play_count + 1 WHERE id = ?", (song_id,))
    return {"now_playing": song["title"], "artist": song["artist"], "player": _set_player(world, current_song_id=song_id, is_playing=True)}


@tool("music", family="music_player", kind="write")
def music_pause(world: World) -> dict[str, Any]:
    """Pause playback."""
    if not _player(world)["is_playing"]:
        raise ToolError("nothing is playing")
    return _set_player(world, is_playing=False)


@tool("music", family="music_player", kind="write")
def music_resume(world: World) -> dict[str, Any]:
    """Resume the paused song (needs a network connection)."""
    world.require_network("stream music")
    player = _player(world)
    if player["current_song_id"] is None:
        raise ToolError("no song to resume; play a song first")
    return _set_player(world, is_playing=True)


@tool("music", family="music_player", kind="write")
def music_next_song(world: World) -> dict[str, Any]:
    """Skip to the first song in the queue (removing it from the queue)."""
    queue = world.rows("play_queue", order="position, id")
    if not queue:
        raise ToolError("the queue is empty")
    world.delete("play_queue", queue[0]["id"])
    world.conn.execute("UPDATE play_queue SET position = position - 1")
    return music_play_song(world, queue[0]["song_id"])


@tool("music", family="music_player", kind="write")
def music_set_shuffle(world: World, on: bool) -> dict[str, Any]:
    """Turn shuffle on or off.

    Args:
        on: true for shuffle
    """
    return _set_player(world, shuffle=on)


@tool("music", family="music_player", kind="write")
def music_set_repeat(world: World, mode: Literal["off", "one", "all"]) -> dict[str, Any]:
    """Set the repeat mode.

    Args:
        mode: off, one (repeat the song) or all (repeat the queue)
    """
    return _set_player(world, repeat=mode)


@tool("music", family="music_player", kind="write")
def music_set_player_volume(world: World, level: int) -> dict[str, Any]:
    """Set the player's volume.

    Args:
        level: 0-100
    """
    if not 0 <= level <= 100:
        raise ToolError(f"level must be between 0 and 100, got {level}")
    return _set_player(world, volume=level)


@tool("music", family="music_queue", kind="write")
def music_add_to_queue(world: World, song_id: int) -> dict[str, Any]:
    """Add a song to the end of the play queue.

    Args:
        song_id: id of the song
    """
    world.get("songs", song_id)
    position = world.count("play_queue")
    return world.insert("play_queue", {"song_id": song_id, "position": position})


@tool("music", family="music_queue", kind="write")
def music_clear_queue(world: World) -> dict[str, int]:
    """Remove every song from the play queue."""
    return {"removed": world.conn.execute("DELETE FROM play_queue").rowcount}


@tool("music", family="music_queue", kind="read")
def music_view_queue(world: World) -> list[dict[str, Any]]:
    """The play queue in order, with song titles."""
    return [{**q, "title": world.get("songs", q["song_id"])["title"]} for q in world.rows("play_queue", order="position, id")]


@tool("music", family="music_playlists", kind="write")
def music_create_playlist_with_songs(world: World, name: str, song_ids: list[int], description: str = "", is_public: bool = False) -> dict[str, Any]:
    """Create a playlist already holding some songs.

    Args:
        name: playlist name
        song_ids: song ids in order (no duplicates)
        description: description
        is_public: visible to others
    """
    if len(set(song_ids)) != len(song_ids):
        raise ToolError("song_ids contains duplicates")
    return world.insert("playlists", {"name": name, "song_ids": song_ids, "description": description, "is_public": is_public})


@tool("music", family="music_playlists", kind="write")
def music_add_songs_to_playlist(world: World, playlist_id: int, song_ids: list[int]) -> dict[str, Any]:
    """Append songs to a playlist (songs already in it are refused).

    Args:
        playlist_id: id of the playlist
        song_ids: ids of the songs to add, in order
    """
    playlist = world.get("playlists", playlist_id)
    dupes = [s for s in song_ids if s in playlist["song_ids"]] + [s for i, s in enumerate(song_ids) if s in song_ids[:i]]
    if dupes:
        raise ToolError(f"songs {sorted(set(dupes))} are already in playlist {playlist['name']!r} or repeated")
    return world.update("playlists", playlist_id, {"song_ids": playlist["song_ids"] + song_ids})


@tool("music", family="music_playlists", kind="write")
def music_remove_songs_from_playlist(world: World, playlist_id: int, song_ids: list[int]) -> dict[str, Any]:
    """Remove songs from a playlist.

    Args:
        playlist_id: id of the playlist
        song_ids: ids of songs to remove (each must be in the playlist)
    """
    playlist = world.get("playlists", playlist_id)
    missing = [s for s in song_ids if s not in playlist["song_ids"]]
    if missing:
        raise ToolError(f"songs {missing} are not in playlist {playlist['name']!r}")
    return world.update("playlists", playlist_id, {"song_ids": [s for s in playlist["song_ids"] if s not in song_ids]})


@tool("music", family="music_playlists", kind="write")
def music_move_song_in_playlist(world: World, playlist_id: int, song_id: int, new_position: int) -> dict[str, Any]:
    """Move a song to another position in a playlist (0 = first).

    Args:
        playlist_id: id of the playlist
        song_id: id of a song in it
        new_position: target index
    """
    playlist = world.get("playlists", playlist_id)
    songs = list(playlist["song_ids"])
    if song_id not in songs:
        raise ToolError(f"song {song_id} is not in playlist {playlist['name']!r}")
    if not 0 <= new_position < len(songs):
        raise ToolError(f"new_position must be between 0 and {len(songs) - 1}")
    songs.remove(song_id)
    songs.insert(new_position, song_id)
    return world.update("playlists", playlist_id, {"song_ids": songs})


@tool("music", family="music_playlists", kind="read")
def music_get_playlist_songs(world: World, playlist_id: int) -> list[dict[str, Any]]:
    """The songs of a playlist in order.

    Args:
        playlist_id: id of the playlist
    """
    return [world.get("songs", s) for s in world.get("playlists", playlist_id)["song_ids"]]


@tool("music", family="music_playlists", kind="write")
def music_play_playlist(world: World, playlist_id: int) -> dict[str, Any]:
    """Play a playlist: its first song starts and the rest replace the queue. Needs a network connection.

    Args:
        playlist_id: id of the playlist
    """
    songs = world.get("playlists", playlist_id)["song_ids"]
    if not songs:
        raise ToolError(f"playlist {playlist_id} is empty")
    world.conn.execute("DELETE FROM play_queue")
    for position, song_id in enumerate(songs[1:]):
        world.insert("play_queue", {"song_id": song_id, "position": position})
    return music_play_song(world, songs[0])


@tool("music", family="music_library", kind="read")
def music_list_liked_songs(world: World) -> list[dict[str, Any]]:
    """List the user's liked songs."""
    return world.rows("songs", "is_liked = 1")


@tool("music", family="music_library", kind="read")
def music_list_album_songs(world: World, album_id: int) -> list[dict[str, Any]]:
    """List the songs of an album.

    Args:
        album_id: id of the album
    """
    world.get("albums", album_id)
    return world.rows("songs", "album_id = ?", (album_id,))


@tool("music", family="music_library", kind="read")
def music_list_artist_songs(world: World, artist: str) -> list[dict[str, Any]]:
    """List songs by an artist (case-insensitive exact artist name).

    Args:
        artist: artist name
    """
    return world.rows("songs", "lower(artist) = lower(?)", (artist.strip(),))


@tool("music", family="music_library", kind="read")
def music_find_song(world: World, title: str, artist: str | None = None) -> dict[str, Any]:
    """Find one song by its exact title (case-insensitive), optionally by artist too.

    Args:
        title: song title
        artist: artist name to disambiguate
    """
    rows = world.rows("songs", "lower(title) = lower(?)", (title.strip(),))
    if artist:
        rows = [r for r in rows if r["artist"].lower() == artist.strip().lower()]
    if not rows:
        raise ToolError(f"no song titled {title!r}" + (f" by {artist!r}" if artist else ""))
    if len(rows) > 1:
        raise ToolError(f"{len(rows)} songs are titled {title!r}; give the artist: {[r['artist'] for r in rows]}")
    return rows[0]


@tool("music", family="music_library", kind="write")
def music_like_songs(world: World, song_ids: list[int]) -> dict[str, Any]:
    """Add several songs to the liked songs.

    Args:
        song_ids: ids of the songs
    """
    for song_id in song_ids:
        world.get("songs", song_id)
    world.conn.executemany("UPDATE songs SET is_liked = 1 WHERE id = ?", [(s,) for s in song_ids])
    return {"liked": song_ids}


# ---------------------------------------------------------------------- files
@validator("files")
def _file_rules(world: World, row: dict[str, Any]) -> None:
    name = row["name"].strip()
    if not name or "/" in name:
        raise ToolError(f"file.name {row['name']!r} must be non-empty and contain no '/'")
    folder = "folder_id IS NULL" if row["folder_id"] is None else "folder_id = ?"
    params = () if row["folder_id"] is None else (row["folder_id"],)
    if world.rows("files", f"{folder} AND name = ? AND id != ?", (*params, row["name"], row["id"])):
        raise ToolError(f"a file named {row['name']!r} already exists in that folder")
    if row["image_id"] is not None:
        world.check_image(row["image_id"])


@validator("folders")
def _folder_rules(world: World, row: dict[str, Any]) -> None:
    if not row["name"].strip() or "/" in row["name"]:
        raise ToolError(f"folder.name {row['name']!r} must be non-empty and contain no '/'")
    seen, parent = {row["id"]}, row["parent_id"]
    while parent is not None:
        if parent in seen:
            raise ToolError("a folder cannot be moved inside itself")
        seen.add(parent)
        parent = world.get("folders", parent)["parent_id"]
    where = "parent_id IS NULL" if row["parent_id"] is None else "parent_id = ?"
    params = () if row["parent_id"] is None else (row["parent_id"],)
    if world.rows("folders", f"{where} AND name = ? AND id != ?", (*params, row["name"], row["id"])):
        raise ToolError(f"a folder named {row['name']!r} already exists there")


def folder_path(world: World, folder_id: int | None) -> str:
    parts = []
    while folder_id is not None:
        folder = world.get("folders", folder_id)
        parts.append(folder["name"])
        folder_id = folder["parent_id"]
    return "/" + "/".join(reversed(parts))


def ensure_folder_path(world: World, path: str) -> int | None:
    parent: int | None = None
    for name in [p for p in path.strip().split("/") if p]:
        where = "parent_id IS NULL" if parent is None else "parent_id = ?"
        rows = world.rows("folders", f"{where} AND name = ?", (() if parent is None else (parent,)) + (name,))
        parent = rows[0]["id"] if rows else world.insert("folders", {"name": name, "parent_id": parent})["id"]
    return parent


@tool("files", family="files_organize", kind="write")
def files_move_file(world: World, file_id: int, folder_id: int | None = None) -> dict[str, Any]:
    """Move a file into a folder (omit folder_id for the root). Fails if the folder already has a file of that name.

    Args:
        file_id: id of the file
        folder_id: destination folder id; omit for the root
    """
    world.get("files", file_id)
    if folder_id is not None:
        world.get("folders", folder_id)
    world.set_raw("files", file_id, "folder_id", folder_id)
    return world.update("files", file_id, {})


@tool("files", family="files_organize", kind="write")
def files_copy_file(world: World, file_id: int, folder_id: int | None = None, new_name: str | None = None) -> dict[str, Any]:
    """Copy a file into a folder, optionally under a new name.

    Args:
        file_id: id of the file
        folder_id: destination folder id; omit for the root
        new_name: name of the copy; default the same name
    """
    source = world.get("files", file_id)
    copy = {k: v for k, v in source.items() if k not in ("id", "created_at", "updated_at")}
    return world.insert("files", {**copy, "folder_id": folder_id, "name": new_name or source["name"]})


@tool("files", family="files_organize", kind="write")
def files_rename_file(world: World, file_id: int, new_name: str) -> dict[str, Any]:
    """Rename a file.

    Args:
        file_id: id of the file
        new_name: new file name with extension
    """
    return world.update("files", file_id, {"name": new_name})


@tool("files", family="files_organize", kind="write")
def files_move_folder(world: World, folder_id: int, parent_id: int | None = None) -> dict[str, Any]:
    """Move a folder (with its contents) under another folder (omit parent_id for the root).

    Args:
        folder_id: id of the folder to move
        parent_id: new parent folder id; omit for the root
    """
    world.get("folders", folder_id)
    if parent_id is not None:
        world.get("folders", parent_id)
    world.set_raw("folders", folder_id, "parent_id", parent_id)
    return world.update("folders", folder_id, {})


@tool("files", family="files_organize", kind="write")
def files_delete_folder_recursive(world: World, folder_id: int) -> dict[str, Any]:
    """Delete a folder with every sub-folder and file inside it.

    Args:
        folder_id: id of the folder
    """
    world.get("folders", folder_id)
    pending, folders, files = [folder_id], [], []
    while pending:
        current = pending.pop()
        folders.append(current)
        files += [f["id"] for f in world.rows("files", "folder_id = ?", (current,))]
        pending += [f["id"] for f in world.rows("folders", "parent_id = ?", (current,))]
    for f in files:
        world.delete("files", f)
    for f in reversed(folders):
        world.delete("folders", f)
    return {"deleted_folders": folders, "deleted_files": files}


@tool("files", family="files_paths", kind="write")
def files_create_folder_path(world: World, path: str) -> dict[str, Any]:
    """Create a folder path like "Documents/Receipts/2025", making missing folders; returns the last one.

    Args:
        path: folder names separated by '/'
    """
    folder_id = ensure_folder_path(world, path)
    if folder_id is None:
        raise ToolError("path must name at least one folder")
    return world.get("folders", folder_id)


@tool("files", family="files_paths", kind="read")
def files_get_path(world: World, file_id: int) -> dict[str, str]:
    """The full path of a file.

    Args:
        file_id: id of the file
    """
    row = world.get("files", file_id)
    base = folder_path(world, row["folder_id"])
    return {"path": f"{base.rstrip('/')}/{row['name']}"}


@tool("files", family="files_paths", kind="read")
def files_find_by_path(world: World, path: str) -> dict[str, Any]:
    """The file or folder at a path like "/Documents/notes.txt".

    Args:
        path: absolute path
    """
    parts = [p for p in path.strip().split("/") if p]
    if not parts:
        raise ToolError("path is empty")
    parent: int | None = None
    for index, name in enumerate(parts):
        where = "parent_id IS NULL" if parent is None else "parent_id = ?"
        folders = world.rows("folders", f"{where} AND name = ?", (() if parent is None else (parent,)) + (name,))
        if folders:
            parent = folders[0]["id"]
            if index == len(parts) - 1:
                return {"type": "folder", **folders[0]}
            continue
        if index == len(parts) - 1:
            fwhere = "folder_id IS NULL" if parent is None else "folder_id = ?"
            files = world.rows("files", f"{fwhere} AND name = ?", (() if parent is None else (parent,)) + (name,))
            if files:
                return {"type": "file", **files[0]}
        break
    raise ToolError(f"nothing at path {path!r}")


@tool("files", family="files_paths", kind="read")
def files_list_folder(world: World, folder_id: int | None = None) -> dict[str, Any]:
    """The sub-folders and files directly inside a folder (omit folder_id for the root).

    Args:
        folder_id: id of the folder; omit for the root
    """
    if folder_id is None:
        return {"path": "/", "folders": world.rows("folders", "parent_id IS NULL"), "files": world.rows("files", "folder_id IS NULL")}
    world.get("folders", folder_id)
    return {"path": folder_path(world, folder_id), "folders": world.rows("folders", "parent_id = ?", (folder_id,)),
            "files": world.rows("files", "folder_id = ?", (folder_id,))}


@tool("files", family="files_paths", kind="write")
def files_append_to_file(world: World, file_id: int, text: str) -> dict[str, Any]:
    """Append a line of text to a text file.

    Args:
        file_id: id of the file
        text: text to append
    """
    row = world.get("files", file_id)
    if row["image_id"] is not None:
        raise ToolError(f"file {row['name']!r} is an image, not a text file")
    return world.update("files", file_id, {"content": f"{row['content']}\n{text}" if row["content"] else text})


@tool("files", family="files_paths", kind="write")
def files_save_image_as_file(world: World, image_id: str, name: str, folder_path: str = "Pictures") -> dict[str, Any]:
    """Store an image as a PNG file in a folder path (missing folders are created).

    Args:
        image_id: id of the image, e.g. "img_0"
        name: file name; ".png" is added when missing
        folder_path: folder path like "Pictures/Receipts"
    """
    world.check_image(image_id)
    file_name = name if name.lower().endswith(".png") else f"{name}.png"
    folder_id = ensure_folder_path(world, folder_path)
    return world.insert("files", {"name": file_name, "folder_id": folder_id, "image_id": image_id, "mime_type": "image/png"})


# ---------------------------------------------------------------------- photos
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
