"""To-do tools: tasks (complete, reschedule, prioritise, subtasks, move), listings and projects."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, parse_date, validator


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
