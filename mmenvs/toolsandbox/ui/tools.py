"""The UI tools of paper Table 13 and the server that runs them for one episode.

Agent-side tools (in the catalog of ``mode="ui"``): ``render_ui_screen``, ``show_ui_to_user`` and the
doc tools ``ui_get_quick_start``, ``ui_explore_capabilities``, ``ui_list_items``,
``ui_get_item_details``, ``ui_search_docs``. ``ui_user_interact`` is the *user's* tool (paper Fig. 3):
the user simulator calls it on a screen it was shown, and the environment resolves the call into
structured data (element clicked, selections, form values) that it returns to the agent as the result
of ``show_ui_to_user``. The tool functions below carry the signatures and docstrings (hence the JSON
schemas); ``UIServer.call`` runs them against the episode's state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from mmenvs.core import ImageNotFound

from ..tools import Tool, make_tool
from ..world import ToolError, World
from . import docs
from .decide import Reaction
from .render import render_screen, screen_array
from .schema import ScreenError, ValidatedScreen, validate_screen

_RUN_BY_ENV = "UI tools are run by the environment's UIServer"


def render_ui_screen(world: World, screen: dict | str) -> dict[str, Any]:
    """Validate a declarative JSON screen and render it to an image; returns its screen_id, image_id and interactive elements.

    A screen is {"title": str (optional), "children": [components]}; component types: text, image, divider, button,
    row, card, list, form (see ui_get_quick_start). Buttons, cards, lists, list items, forms and fields need an "id"
    unique in the screen. An invalid screen is an error naming the JSON path, e.g.
    "screen.children[2].items[0].image: unknown image id 'img_9'".

    Args:
        screen: the screen as a JSON object (or a JSON string)
    """
    raise RuntimeError(_RUN_BY_ENV)


def show_ui_to_user(world: World, screen_id: str | None = None, message: str = "") -> dict[str, Any]:
    """Show a rendered UI screen to the user (the most recent one by default) and return how the user interacted with it.

    The result's "user_interaction" holds the element the user clicked (element_id, card_id or form_id), the ids
    selected in lists ("selected") and form values ("form_values"); it is null, with a "note", when the user found
    nothing to do on the screen.

    Args:
        screen_id: id returned by render_ui_screen; omit for the most recently rendered screen
        message: text shown to the user with the screen
    """
    raise RuntimeError(_RUN_BY_ENV)


def ui_user_interact(world: World, screen_id: str, element_id: str, selected: dict | None = None,
                     form_values: dict | None = None) -> dict[str, Any]:
    """Click a button or interact with an element on a UI shown by the agent (the user's tool).

    Args:
        screen_id: the screen the user is looking at
        element_id: the button, card or list item clicked (a form is submitted by clicking its submit button)
        selected: list id -> ids of the items selected in it
        form_values: form field id -> value entered
    """
    raise RuntimeError(_RUN_BY_ENV)


def ui_get_quick_start(world: World) -> dict[str, Any]:
    """Get a complete guide for rendering UI screens: components, the render -> show -> interaction flow, an example."""
    raise RuntimeError(_RUN_BY_ENV)


def ui_explore_capabilities(world: World) -> dict[str, Any]:
    """List the categories of UI documentation available (components, patterns, interactions, guides, schema)."""
    raise RuntimeError(_RUN_BY_ENV)


def ui_list_items(world: World, category: Literal["components", "patterns", "interactions", "guides", "schema"]) -> dict[str, Any]:
    """List the items in a UI documentation category with a one-line summary each.

    Args:
        category: one of components, patterns, interactions, guides, schema
    """
    raise RuntimeError(_RUN_BY_ENV)


def ui_get_item_details(world: World, name: str, part: Literal["all", "doc", "schema", "example"] = "all",
                        category: str | None = None) -> dict[str, Any]:
    """Get the schema, documentation, or example JSON for a UI item (a component such as "card", a pattern, a guide).

    Args:
        name: item name, e.g. "card", "list", "product_picker", "quick_start", "screen"
        part: "doc", "schema", "example" or "all"
        category: the item's category, when a name exists in several
    """
    raise RuntimeError(_RUN_BY_ENV)


def ui_search_docs(world: World, query: str, limit: int = 5) -> dict[str, Any]:
    """Search across all UI documentation and examples by keywords.

    Args:
        query: keywords, e.g. "multiple selection list" or "form date field"
        limit: how many results (1-20)
    """
    raise RuntimeError(_RUN_BY_ENV)


AGENT_TOOLS: dict[str, Tool] = {f.__name__: make_tool(f, "ui", kind=k) for f, k in (
    (render_ui_screen, "action"), (show_ui_to_user, "action"), (ui_get_quick_start, "read"), (ui_explore_capabilities, "read"),
    (ui_list_items, "read"), (ui_get_item_details, "read"), (ui_search_docs, "read"))}
USER_TOOL: Tool = make_tool(ui_user_interact, "ui")


@dataclass
class ScreenView:
    """What the user gets with a shown screen: the screen, its picture's id, element boxes, the agent's message."""

    screen_id: str
    image_id: str
    screen: ValidatedScreen
    boxes: dict[str, list[int]]
    message: str = ""


@dataclass
class UIServer:
    """Per-episode UI state: rendered screens, what was shown, and the user's interactions.

    ``react(view)`` is the user's side (``UserSimulator.interact``); ``on_user_tool(arguments, result)``
    lets the env record the user's ``ui_user_interact`` calls in the transcript.
    """

    world: World
    react: Callable[[ScreenView], Reaction | None]
    on_user_tool: Callable[[dict[str, Any], dict[str, Any] | None, str], None] = lambda args, result, error: None
    screens: dict[str, ScreenView] = field(default_factory=dict)
    last: str | None = None
    counts: dict[str, int] = field(default_factory=lambda: {"screens_rendered": 0, "render_errors": 0, "screens_shown": 0,
                                                              "user_interactions": 0, "no_interaction": 0})

    def call(self, name: str, kwargs: dict[str, Any]) -> Any:
        """Run the agent-side UI tool ``name`` with bound keyword arguments."""
        return getattr(self, f"_{name}")(**kwargs)

    # -------------------------------------------------------------- rendering and showing
    def _image_problem(self, image_id: str) -> str | None:
        try:
            self.world.images.record(image_id)
        except ImageNotFound:
            return f"unknown image id {image_id!r}"
        if image_id not in self.world.visible:
            return f"image {image_id!r} has not been shared with you yet"
        return None

    def _render_ui_screen(self, screen: dict | str) -> dict[str, Any]:
        if isinstance(screen, str):
            try:
                screen = json.loads(screen)
            except json.JSONDecodeError as exc:
                self.counts["render_errors"] += 1
                raise ToolError(f"screen: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
        try:
            validated = validate_screen(screen, self._image_problem)
        except ScreenError as exc:
            self.counts["render_errors"] += 1
            raise ToolError(str(exc)) from None
        rendered = render_screen(validated, self.world.images)
        screen_id = f"screen_{len(self.screens) + 1}"
        used = sorted({c for c in _image_ids(validated.screen)}, key=lambda i: int(i.split("_")[1]))
        image_id = self.world.images.add(screen_array(rendered), parents=used, op="render_ui_screen", meta={"screen_id": screen_id})
        self.world.visible.add(image_id)
        self.screens[screen_id] = ScreenView(screen_id, image_id, validated, rendered.boxes)
        self.last = screen_id
        self.counts["screens_rendered"] += 1
        return {"screen_id": screen_id, "image_id": image_id, "width": rendered.image.width, "height": rendered.image.height,
                "elements": [_describe(e, rendered.boxes) for e in validated.elements],
                "next": "call show_ui_to_user to show it to the user"}

    def _show_ui_to_user(self, screen_id: str | None = None, message: str = "") -> dict[str, Any]:
        if screen_id is None:
            if self.last is None:
                raise ToolError("no UI screen has been rendered yet; call render_ui_screen first")
            screen_id = self.last
        if screen_id not in self.screens:
            raise ToolError(f"unknown screen_id {screen_id!r}; rendered screens: {', '.join(self.screens) or 'none'}")
        base = self.screens[screen_id]
        view = ScreenView(base.screen_id, base.image_id, base.screen, base.boxes, message)
        self.world.shown_to_user.append({"image_id": view.image_id, "message": message, "screen_id": screen_id})
        self.counts["screens_shown"] += 1
        reaction = self.react(view)
        result: dict[str, Any] = {"shown": screen_id, "image_id": view.image_id, "user_interaction": None}
        if reaction is None or reaction.arguments is None:
            self.counts["no_interaction"] += 1
            result["note"] = reaction.note if reaction is not None and reaction.note else "The user did not interact with the screen."
            return result
        try:
            interaction = self.interact(**USER_TOOL.bind(reaction.arguments))
        except ToolError as exc:  # a user (e.g. LLM-backed) that called ui_user_interact wrongly
            self.on_user_tool(reaction.arguments, None, str(exc))
            self.counts["no_interaction"] += 1
            result["note"] = "The user's interaction could not be resolved on this screen."
            return result
        self.on_user_tool(reaction.arguments, interaction, "")
        self.counts["user_interactions"] += 1
        result["user_interaction"] = interaction
        return result

    # -------------------------------------------------------------- the user's tool
    def interact(self, screen_id: str, element_id: str, selected: dict | None = None, form_values: dict | None = None) -> dict[str, Any]:
        """Resolve a ``ui_user_interact`` call into the structured interaction the agent receives."""
        if screen_id not in self.screens:
            raise ToolError(f"ui_user_interact: unknown screen_id {screen_id!r}")
        screen = self.screens[screen_id].screen
        element = screen.element(element_id)
        if element is None or element.kind not in ("button", "card", "item"):
            clickable = [e.id for e in screen.elements if e.kind in ("button", "card", "item")]
            raise ToolError(f"ui_user_interact: {element_id!r} is not a clickable element of {screen_id}; clickable: {', '.join(clickable)}")
        chosen: dict[str, list[str]] = {}
        for list_id, ids in (selected or {}).items():
            owner = screen.element(list_id)
            if owner is None or owner.kind != "list":
                raise ToolError(f"ui_user_interact: selected names {list_id!r}, which is not a list of {screen_id}")
            items = {i["id"] for i in owner.data["items"]}
            ids = ids if isinstance(ids, list) else [ids]
            if any(i not in items for i in ids):
                raise ToolError(f"ui_user_interact: selected[{list_id!r}] holds ids that are not its items: {ids}")
            if owner.data["selection"] == "none" or (owner.data["selection"] == "single" and len(ids) > 1):
                raise ToolError(f"ui_user_interact: list {list_id!r} allows selection {owner.data['selection']!r}, got {len(ids)} ids")
            chosen[list_id] = list(ids)
        values: dict[str, Any] = {}
        form_id = element.parent if element.kind == "button" and (screen.element(element.parent or "") or element).kind == "form" else None
        if form_id is not None:  # a submit: every field of the form, defaults where the user left one alone
            for f in (e for e in screen.elements if e.kind == "field" and e.parent == form_id):
                values[f.id] = f.data.get("value", False if f.data["kind"] == "checkbox" else None)
        for field_id, value in (form_values or {}).items():
            target = screen.element(field_id)
            if target is None or target.kind != "field":
                raise ToolError(f"ui_user_interact: form_values names {field_id!r}, which is not a form field of {screen_id}")
            if target.data["kind"] == "select" and value not in target.data["options"]:
                raise ToolError(f"ui_user_interact: {field_id!r} must be one of {target.data['options']}, got {value!r}")
            values[field_id] = value
        if element.kind == "item":  # selecting an item is itself the interaction
            chosen.setdefault(element.parent or "", [element.id])
        out: dict[str, Any] = {"screen_id": screen_id, "event": "click" if element.kind == "button" else "select",
                               "element_id": element_id, "element_type": element.kind}
        if element.kind == "button":
            out["label"] = element.data["label"]
            owner = screen.element(element.parent or "")
            if owner is not None and owner.kind == "card":
                out["card_id"] = owner.id
                out["card_title"] = owner.data["title"]
            if form_id is not None:
                out["form_id"] = form_id
        else:
            out["title"] = element.data["title"]
        if chosen:
            out["selected"] = chosen
        if values:
            out["form_values"] = values
        return out

    # -------------------------------------------------------------- documentation
    def _ui_get_quick_start(self) -> dict[str, Any]:
        return {"guide": docs.QUICK_START}

    def _ui_explore_capabilities(self) -> dict[str, Any]:
        return {"categories": [{"category": c, "description": d, "items": sum(i.category == c for i in docs.ITEMS)}
                               for c, d in docs.CATEGORIES.items()],
                "next": "ui_list_items(category) lists a category; ui_get_item_details(name) shows one item"}

    def _ui_list_items(self, category: str) -> dict[str, Any]:
        if category not in docs.CATEGORIES:
            raise ToolError(f"unknown category {category!r}; categories: {', '.join(docs.CATEGORIES)}")
        return {"category": category, "items": [{"name": i.name, "summary": i.summary} for i in docs.ITEMS if i.category == category]}

    def _ui_get_item_details(self, name: str, part: str = "all", category: str | None = None) -> dict[str, Any]:
        if part not in ("all", "doc", "schema", "example"):
            raise ToolError(f"part must be one of all, doc, schema, example, got {part!r}")
        item = docs.find_item(name, category)
        if item is None:
            names = ", ".join(sorted({i.name for i in docs.ITEMS}))
            raise ToolError(f"no UI documentation item named {name!r}{f' in {category!r}' if category else ''}; items: {names}")
        return item.details(part)

    def _ui_search_docs(self, query: str, limit: int = 5) -> dict[str, Any]:
        if not 1 <= limit <= 20:
            raise ToolError(f"limit must be between 1 and 20, got {limit}")
        hits = docs.search(query, limit)
        if not hits:
            return {"query": query, "results": [], "hint": "no match; try ui_explore_capabilities()"}
        return {"query": query, "results": hits}


def _image_ids(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["image"]] if isinstance(node.get("image"), str) else []
        return found + [i for v in node.values() for i in _image_ids(v)]
    if isinstance(node, list):
        return [i for v in node for i in _image_ids(v)]
    return []


def _describe(element: Any, boxes: dict[str, list[int]]) -> dict[str, Any]:
    data = element.data
    out: dict[str, Any] = {"id": element.id, "type": element.kind}
    label = data.get("label") or data.get("title")
    if label:
        out["label"] = label
    if element.parent:
        out["in"] = element.parent
    if element.id in boxes:
        out["bbox"] = boxes[element.id]
    return out
