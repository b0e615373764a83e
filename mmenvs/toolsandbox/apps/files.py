"""Files tools: move, copy and rename files and folders, folder paths, listings, appending, saving images."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World, validator


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
