"""Music tools: the player, the queue, playlists, the library and liked songs."""

from __future__ import annotations

from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, validator


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
