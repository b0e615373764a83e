"""Task families: selecting an env's tasks by field (``task_filter=``), the same way in every env.

A filter is a mapping ``{field: condition}``; a task belongs to the family when every condition holds.
A condition is

- a value (``"chart"``, ``0.4``): the task's field equals it; for a list-valued field (MacAgent
  ``apps`` and ``tags``, MMToolSandbox ``apps``) the list contains it;
- a list of values: any of them (``{"category": ["chart", "math"]}``);
- a range ``{"min": a, "max": b}`` (either bound may be left out), for numeric fields
  (MMToolSandbox ``difficulty``).

Each env declares which fields it filters on (``FILTER_FIELDS`` in its module) and applies the
filter to its pinned suites (``task_ids()`` lists only the family) and to its training stream
(``suite="train"`` draws only tasks of the family, from the generators of that family: no
rejection sampling where a generator can be asked for the family directly).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

TaskFilter = Mapping[str, Any]


def check_task_filter(env_name: str, task_filter: Any, fields: Mapping[str, Iterable[Any] | None]) -> dict[str, Any]:
    """``task_filter`` validated against the env's filterable ``fields`` (field -> its known values,
    or None when any value or a range is allowed). Returns a normalised copy whose conditions are
    lists of values or ``{"min", "max"}`` ranges; raises ``ValueError`` naming the field and value."""
    if task_filter is None:
        return {}
    if not isinstance(task_filter, Mapping):
        raise ValueError(f"{env_name}: task_filter must be a dict {{field: value | [values] | {{'min','max'}}}}, "
                         f"got {type(task_filter).__name__}")
    out: dict[str, Any] = {}
    for field, condition in task_filter.items():
        if field not in fields:
            raise ValueError(f"{env_name}: task_filter field {field!r} is not filterable; fields: {', '.join(fields)}")
        known = fields[field]
        if isinstance(condition, Mapping):
            unknown = sorted(set(condition) - {"min", "max"})
            if unknown or not condition:
                raise ValueError(f"{env_name}: task_filter[{field!r}] as a range takes 'min' and/or 'max', got {dict(condition)!r}")
            for bound in condition.values():
                if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                    raise ValueError(f"{env_name}: task_filter[{field!r}] range bounds must be numbers, got {dict(condition)!r}")
            low, high = condition.get("min", float("-inf")), condition.get("max", float("inf"))
            if low > high:
                raise ValueError(f"{env_name}: task_filter[{field!r}] has min {low} > max {high}")
            out[field] = {"min": float(low), "max": float(high)}
            continue
        values = list(condition) if isinstance(condition, (list, tuple, set, frozenset)) else [condition]
        if not values:
            raise ValueError(f"{env_name}: task_filter[{field!r}] is an empty list (no task could match)")
        if known is not None:
            known = list(known)
            bad = [v for v in values if v not in known]
            if bad:
                raise ValueError(f"{env_name}: task_filter[{field!r}] has unknown value(s) {bad}; known: {', '.join(map(str, known))}")
        out[field] = values
    return out


def condition_holds(value: Any, condition: Any) -> bool:
    """Whether a task's field ``value`` (a scalar or a list) satisfies one normalised condition."""
    if isinstance(condition, Mapping):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return condition["min"] - 1e-9 <= float(value) <= condition["max"] + 1e-9
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(item in condition for item in value)
    return value in condition


def matches(metadata: Mapping[str, Any], task_filter: Mapping[str, Any]) -> bool:
    """Whether a task with ``metadata`` belongs to the family of the normalised ``task_filter``."""
    return all(field in metadata and condition_holds(metadata[field], condition) for field, condition in task_filter.items())


def allowed_values(condition: Any, universe: Iterable[Any]) -> list[Any]:
    """The values of ``universe`` a condition admits (for choosing a generator per family)."""
    return [value for value in universe if condition_holds(value, condition)]
