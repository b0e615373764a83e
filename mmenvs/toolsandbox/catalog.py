"""Toolsets: the same backend exposed at four granularities.

``full`` holds every tool (generated per table plus hand-written, ≥ 511). The smaller sets never drop
a capability: they merge several full tools into one tool that takes an ``action`` parameter naming
the operation, plus the union of the members' parameters:

* ``medium``: the generic tools of a table merge into one read tool (``<app>_query_<plural>``) and
  one write tool (``<app>_manage_<plural>``); hand-written tools stay as they are.
* ``compact``: as medium but deletions get their own ``<app>_remove_<plural>`` tool, and hand-written
  tools merge by family and kind (e.g. the cart's write operations into ``shopping_cart_write``).
* ``mini``: one read tool and one action tool per app (``contacts_read``, ``contacts_act``, …).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, Union

from .crud import build_generic_tools
from .tools import REGISTERED, Tool, kw, make_tool, synthesize
from .world import ToolError, World

TOOLSETS = ("full", "medium", "compact", "mini")


@lru_cache(maxsize=1)
def full_tools() -> tuple[Tool, ...]:
    """Every tool of the full set, grouped by app in schema order."""
    from . import apps  # noqa: F401  (registers the hand-written tools)
    from .schema import APPS

    tools = list(build_generic_tools()) + list(REGISTERED)
    order = {app: i for i, app in enumerate((*APPS, "visual"))}
    names = [t.name for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RuntimeError(f"duplicate tool names: {duplicates}")
    return tuple(sorted(tools, key=lambda t: (order.get(t.app, 99), t.table or "~", t.name)))


def _action_name(t: Tool) -> str:
    prefix = f"{t.app}_"
    return t.name[len(prefix):] if t.name.startswith(prefix) else t.name


def _group_key(t: Tool, toolset: str) -> str | None:
    """Name of the merged tool ``t`` belongs to in ``toolset`` (None: it stays a tool of its own)."""
    if toolset == "full":
        return None
    if toolset == "mini":
        return f"{t.app}_read" if t.kind == "read" else f"{t.app}_act"
    if t.table is not None:
        from .schema import table

        plural = table(t.table).plural
        if t.kind == "read":
            return f"{t.app}_query_{plural}"
        if toolset == "compact" and t.meta.get("op") in ("delete", "delete_many"):
            return f"{t.app}_remove_{plural}"
        return f"{t.app}_manage_{plural}"
    if toolset == "compact" and t.family:
        return t.family if t.kind in ("read", "action") else f"{t.family}_{t.kind}"
    return None


def merge_tools(name: str, app: str, members: list[Tool]) -> Tool:
    """One tool that runs any of ``members`` chosen by its ``action`` parameter."""
    actions = {_action_name(m): m for m in members}
    param_types: dict[str, list[Any]] = {}
    param_docs: dict[str, list[str]] = {}
    for m in members:
        for p in m.params:
            _, inner = _strip_none(p.annotation)
            if inner not in param_types.setdefault(p.name, []):
                param_types[p.name].append(inner)
            param_docs.setdefault(p.name, []).append(_action_name(m))
    params = [kw("action", Literal[tuple(actions)])]  # type: ignore[misc]
    annotations: dict[str, Any] = {"action": Literal[tuple(actions)]}  # type: ignore[misc]
    for pname, types_ in param_types.items():
        annotation = (types_[0] if len(types_) == 1 else Union[tuple(types_)]) | None  # type: ignore[operator]
        params.append(kw(pname, annotation, None))
        annotations[pname] = annotation
    lines = [f"{app} operations, chosen by `action`. Pass only the parameters the chosen action takes.", "", "Actions:"]
    for action, m in actions.items():
        lines.append(f"- {action}{m.signature_text()}: {m.summary}")
    lines += ["", "Args:", "    action: which operation to run: " + ", ".join(actions)]
    for pname in param_types:
        used_by = param_docs[pname]
        first = next(p for m in members for p in m.params if p.name == pname)
        lines.append(f"    {pname}: {first.description} (used by: {', '.join(used_by)})")

    def body(world: World, action: str, **given: Any) -> Any:
        member = actions[action]
        accepted = {p.name for p in member.params}
        provided = {k: v for k, v in given.items() if v is not None}
        stray = [k for k in provided if k not in accepted]
        if stray:
            raise ToolError(f"{name}: action {action!r} does not take {', '.join(map(repr, stray))}; it takes {member.signature_text()}")
        return member.fn(world, **member.bind(provided))

    fn = synthesize(name, params, annotations, "\n".join(lines), body)
    tool = make_tool(fn, app, kind="read" if all(m.kind == "read" for m in members) else "write",
                     meta={"members": {a: m.name for a, m in actions.items()}})
    return tool


def _strip_none(annotation: Any) -> tuple[bool, Any]:
    from .tools import _is_optional

    return _is_optional(annotation)


@lru_cache(maxsize=None)
def toolset_tools(toolset: str = "full") -> dict[str, Tool]:
    """``{name: Tool}`` of a toolset."""
    if toolset not in TOOLSETS:
        raise ValueError(f"unknown toolset {toolset!r}; choose one of {', '.join(TOOLSETS)}")
    groups: dict[str, list[Tool]] = {}
    singles: list[Tool] = []
    for t in full_tools():
        key = _group_key(t, toolset)
        if key is None:
            singles.append(t)
        else:
            groups.setdefault(key, []).append(t)
    out: dict[str, Tool] = {}
    for t in full_tools():  # keep catalogue order: a group appears where its first member was
        key = _group_key(t, toolset)
        if key is None or (len(groups[key]) == 1 and toolset != "mini"):  # a group of one stays as it is
            out[t.name] = t
        elif key not in out:
            out[key] = merge_tools(key, t.app, groups[key])
    return out


@lru_cache(maxsize=None)
def full_name_map(toolset: str) -> dict[str, str]:
    """``{full tool name: name of the tool that carries it in toolset}``."""
    mapping = {}
    for name, t in toolset_tools(toolset).items():
        members = t.meta.get("members")
        if members:
            for full in members.values():
                mapping[full] = name
        else:
            mapping[name] = name
    return mapping


def ui_tools() -> dict[str, Tool]:
    """The agent-side UI tools of paper Table 13 (``render_ui_screen``, ``show_ui_to_user``, the ``ui_*`` doc tools).

    They join the toolset (every granularity, unmerged) only in ``mode="ui"``: in the other modes no user
    has a private decision to make on a screen, so they could change nothing and would only crowd search results.
    """
    from .ui.tools import AGENT_TOOLS

    return dict(AGENT_TOOLS)


def tool_catalog(toolset: str = "full", *, meta: tuple[str, ...] = (), ui: bool = False) -> list[dict[str, Any]]:
    """Specs of a toolset: ``[{name, app, description, parameters (JSON schema)}]``.

    ``meta`` adds the env-run meta tools first, e.g. ``("search_tools", "execute_code")`` for tool mode;
    ``ui=True`` appends the UI tools (what ``mode="ui"`` offers).
    """
    from .meta import EXECUTE_TOOL, SEARCH_TOOL

    known = {"search_tools": SEARCH_TOOL, "execute_code": EXECUTE_TOOL}
    unknown = [m for m in meta if m not in known]
    if unknown:
        raise ValueError(f"unknown meta tools {unknown}; choose from {', '.join(known)}")
    extra = [t.spec() for t in ui_tools().values()] if ui else []
    return [known[m].spec() for m in meta] + [t.spec() for t in toolset_tools(toolset).values()] + extra


__all__ = ["TOOLSETS", "full_name_map", "full_tools", "merge_tools", "tool_catalog", "toolset_tools", "ui_tools"]
