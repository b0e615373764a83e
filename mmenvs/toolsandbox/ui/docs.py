"""The documentation corpus behind the ``ui_*`` doc tools: components, patterns, interactions, guides.

Every entry has a name, a one-line summary and a body; components also carry a JSON schema and an
example screen (tests render every example, so the documentation cannot drift from the validator).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .schema import BUTTON_STYLES, FIELD_KINDS, MAX_CARD_BUTTONS, MAX_CHILDREN, MAX_FIELDS, MAX_ITEMS, MAX_LINES, MAX_ROW, SELECTIONS, TEXT_STYLES


@dataclass(frozen=True)
class DocItem:
    category: str
    name: str
    summary: str
    body: str
    schema: dict[str, Any] | None = None
    example: dict[str, Any] | None = None
    related: tuple[str, ...] = field(default_factory=tuple)

    def details(self, part: str = "all") -> dict[str, Any]:
        out: dict[str, Any] = {"category": self.category, "name": self.name, "summary": self.summary}
        if part in ("all", "doc"):
            out["doc"] = self.body
        if part in ("all", "schema") and self.schema is not None:
            out["schema"] = self.schema
        if part in ("all", "example") and self.example is not None:
            out["example"] = self.example
        if self.related:
            out["related"] = list(self.related)
        return out


_ID = {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$", "description": "unique in the screen"}
_IMG = {"type": "string", "description": "an image id you may use, e.g. 'img_0' (a user image or one a tool made)"}
_BUTTON = {"type": "object", "required": ["id", "label"], "additionalProperties": False,
           "properties": {"type": {"const": "button"}, "id": _ID, "label": {"type": "string", "maxLength": 60},
                          "style": {"enum": list(BUTTON_STYLES), "default": "primary"}}}


def _component(kind: str, required: list[str], props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["type", *required], "additionalProperties": False,
            "properties": {"type": {"const": kind}, **props}}


def _screen(*children: dict[str, Any], title: str | None = None) -> dict[str, Any]:
    return ({"title": title} if title else {}) | {"children": list(children)}


COMPONENTS: tuple[DocItem, ...] = (
    DocItem("components", "text", "A paragraph, heading or caption.",
            f"Plain text, wrapped to the width. `style` is one of {', '.join(TEXT_STYLES)} (default body). "
            "Use a title for the question you ask the user and body text for context.",
            _component("text", ["text"], {"text": {"type": "string", "maxLength": 400}, "style": {"enum": list(TEXT_STYLES)}}),
            _screen({"type": "text", "text": "Which flight should I book?", "style": "title"},
                    {"type": "text", "text": "Prices include taxes.", "style": "caption"})),
    DocItem("components", "image", "An image shown by id (a photo the user sent, a crop you made).",
            "Shows an image from the conversation by its id, scaled to fit (at most 280 px high), with an optional caption. "
            "Only ids you can use are accepted: images the user has sent and images your tools made. "
            "Unknown ids fail validation with the path of the field, e.g. `screen.children[0].image: unknown image id 'img_9'`.",
            _component("image", ["image"], {"image": _IMG, "caption": {"type": "string"}}),
            _screen({"type": "image", "image": "img_0", "caption": "The receipt you sent"}), ("card", "list")),
    DocItem("components", "divider", "A horizontal rule between sections.", "Takes no fields besides type.",
            _component("divider", [], {}), _screen({"type": "text", "text": "Above"}, {"type": "divider"}, {"type": "text", "text": "Below"})),
    DocItem("components", "button", "A clickable button; the user's click comes back with its id.",
            f"`id` and `label` are required; `style` is one of {', '.join(BUTTON_STYLES)}. A primary button also confirms "
            "the selections and form values on the screen: when the user clicks it, the interaction carries the ids "
            "selected in every list. Give buttons that stand for an option a label naming that option.",
            _BUTTON, _screen({"type": "text", "text": "Send the invoice to Helen now?"},
                             {"type": "row", "children": [{"type": "button", "id": "send", "label": "Send"},
                                                          {"type": "button", "id": "cancel", "label": "Cancel", "style": "secondary"}]}),
            ("row", "card")),
    DocItem("components", "row", "Lays 1-4 components side by side in equal columns.",
            f"`children`: 1-{MAX_ROW} components of type text, image, divider, button or card (no rows, lists or forms inside). "
            "Use a row of cards to compare options, or a row of buttons for a choice.",
            _component("row", ["children"], {"children": {"type": "array", "minItems": 1, "maxItems": MAX_ROW}}),
            _screen({"type": "row", "children": [{"type": "button", "id": "yes", "label": "Yes"}, {"type": "button", "id": "no", "label": "No", "style": "secondary"}]})),
    DocItem("components", "card", "A boxed summary of one option: title, details, optional image and buttons.",
            f"`id` and `title` are required; `subtitle`, `badge` (a short tag such as a price), `image` (an image id), "
            f"`lines` (up to {MAX_LINES} detail lines) and `buttons` (up to {MAX_CARD_BUTTONS}) are optional. "
            "When the user clicks a card's button the interaction names the button and the card (`card_id`). "
            "Put every fact the user needs to decide (price, date, rating, …) on the card.",
            _component("card", ["id", "title"], {"id": _ID, "title": {"type": "string"}, "subtitle": {"type": "string"}, "badge": {"type": "string"},
                                                 "image": _IMG, "lines": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LINES},
                                                 "buttons": {"type": "array", "items": _BUTTON, "maxItems": MAX_CARD_BUTTONS}}),
            _screen({"type": "row", "children": [
                {"type": "card", "id": "p1", "title": "AquaPure Bottle", "badge": "$18.99", "lines": ["Rating 4.4"],
                 "buttons": [{"type": "button", "id": "pick_p1", "label": "Choose"}]},
                {"type": "card", "id": "p2", "title": "TrailMate Bottle", "badge": "$15.49", "lines": ["Rating 4.1"],
                 "buttons": [{"type": "button", "id": "pick_p2", "label": "Choose"}]}]}, title="Pick a bottle"),
            ("row", "button", "product_picker")),
    DocItem("components", "list", "A list of items the user can select (one or several).",
            f"`id` and `items` (1-{MAX_ITEMS}; each with `id`, `title`, optional `subtitle`, `badge`, `image`) are required. "
            f"`selection` is one of {', '.join(SELECTIONS)} (default single); `label` is a heading. Add a primary button "
            "(or a form) to confirm: its click carries `selected: {list_id: [item ids]}`. Without a confirming button, "
            "selecting an item is itself the interaction.",
            _component("list", ["id", "items"], {"id": _ID, "label": {"type": "string"}, "selection": {"enum": list(SELECTIONS)},
                                                 "items": {"type": "array", "minItems": 1, "maxItems": MAX_ITEMS, "items": {
                                                     "type": "object", "required": ["id", "title"], "additionalProperties": False,
                                                     "properties": {"id": _ID, "title": {"type": "string"}, "subtitle": {"type": "string"},
                                                                    "badge": {"type": "string"}, "image": _IMG}}}}),
            _screen({"type": "list", "id": "songs", "label": "Songs to add", "selection": "multiple", "items": [
                {"id": "s1", "title": "Blue Harbor", "subtitle": "Mira Vale - 3:41"},
                {"id": "s2", "title": "Night Drive", "subtitle": "The Lanterns - 4:05"}]},
                {"type": "button", "id": "add", "label": "Add selected"}), ("selection_list", "multi_select")),
    DocItem("components", "form", "Input fields (text, number, date, select, checkbox) with a submit button.",
            f"`id`, `fields` (1-{MAX_FIELDS}) and `submit` (a button) are required. A field has `id`, `label`, `kind` "
            f"({', '.join(FIELD_KINDS)}), optional `value` (default), `required`, and `options` (select only). "
            "The submit click carries `form_values: {field_id: value}` with defaults for fields the user left alone. "
            "Label fields plainly (\"Quantity\", \"Date\") so the user knows what to enter.",
            _component("form", ["id", "fields", "submit"], {"id": _ID, "submit": _BUTTON, "fields": {
                "type": "array", "minItems": 1, "maxItems": MAX_FIELDS, "items": {
                    "type": "object", "required": ["id", "label", "kind"], "additionalProperties": False,
                    "properties": {"id": _ID, "label": {"type": "string"}, "kind": {"enum": list(FIELD_KINDS)},
                                   "options": {"type": "array", "items": {"type": "string"}}, "value": {},
                                   "required": {"type": "boolean"}}}}}),
            _screen({"type": "form", "id": "order", "fields": [
                {"id": "qty", "label": "Quantity", "kind": "number", "value": 1},
                {"id": "ship", "label": "Ship to", "kind": "select", "options": ["Home", "Office"], "value": "Home"}],
                "submit": {"type": "button", "id": "place", "label": "Place order"}}), ("form_entry",)),
)

SCREEN_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["children"], "additionalProperties": False,
    "properties": {"title": {"type": "string"},
                   "children": {"type": "array", "minItems": 1, "maxItems": MAX_CHILDREN,
                                "items": {"oneOf": [c.schema for c in COMPONENTS]}}},
}

PATTERNS: tuple[DocItem, ...] = (
    DocItem("patterns", "product_picker", "Compare options as cards, one Choose button each.",
            "Use when the user picks one of a few options and needs their details side by side. One card per option "
            "with the facts that differ (price, rating, date, size) and a Choose button; the click names the button "
            "and `card_id`. Give the card ids you can map back to entities (e.g. the product id).",
            example=COMPONENTS[5].example, related=("card", "row")),
    DocItem("patterns", "selection_list", "A single-choice list with a confirm button.",
            "Use for many options (up to 20). A list with `selection: single` and a primary button such as Continue. "
            "The click carries `selected: {list_id: [item_id]}`.",
            example=_screen({"type": "text", "text": "Which address should I ship to?", "style": "title"},
                            {"type": "list", "id": "address", "items": [{"id": "a1", "title": "Home", "subtitle": "12 Elm Street"},
                                                                        {"id": "a2", "title": "Office", "subtitle": "400 Market Street"}]},
                            {"type": "button", "id": "continue", "label": "Continue"}), related=("list",)),
    DocItem("patterns", "multi_select", "Let the user tick several items, then confirm.",
            "A list with `selection: multiple` plus a primary button. The click carries every ticked item id.",
            example=COMPONENTS[6].example, related=("list",)),
    DocItem("patterns", "confirmation_dialog", "Ask yes/no before an irreversible action.",
            "A title stating exactly what will happen, then a row with a primary confirm button and a secondary cancel button.",
            example=COMPONENTS[3].example, related=("button", "row")),
    DocItem("patterns", "form_entry", "Ask for values the user has to type or pick.",
            "A form with one field per value and a submit button. Pre-fill defaults you already know.",
            example=COMPONENTS[7].example, related=("form",)),
    DocItem("patterns", "image_choice", "Let the user choose between images they sent.",
            "Cards with the `image` field set to each image id and a Choose button per card, titled with what the image shows.",
            example=_screen({"type": "row", "children": [
                {"type": "card", "id": "c0", "title": "First photo", "image": "img_0", "buttons": [{"type": "button", "id": "use_0", "label": "Use this"}]},
                {"type": "card", "id": "c1", "title": "Second photo", "image": "img_1", "buttons": [{"type": "button", "id": "use_1", "label": "Use this"}]}]}),
            related=("card", "image")),
)

INTERACTIONS: tuple[DocItem, ...] = (
    DocItem("interactions", "flow", "render_ui_screen -> show_ui_to_user -> the user's interaction.",
            "1. render_ui_screen(screen) validates and draws the screen; it returns screen_id, the image id of the picture "
            "and the interactive elements. Fix any validation error (it names the JSON path) and render again.\n"
            "2. show_ui_to_user(screen_id, message) shows it. The user looks at it and acts with ui_user_interact; "
            "show_ui_to_user returns that interaction as `user_interaction` (or `user_interaction: null` and a `note` "
            "when the user found nothing to do).\n3. Act on the ids in the interaction with the app tools."),
    DocItem("interactions", "click", "What a button click returns.",
            "`{\"screen_id\", \"event\": \"click\", \"element_id\", \"element_type\": \"button\", \"label\", "
            "\"card_id\" (a card's button), \"form_id\" (a form's submit), \"selected\": {list_id: [item ids]}, "
            "\"form_values\": {field_id: value}}`. `selected` and `form_values` hold what was chosen on the screen "
            "when the button was clicked."),
    DocItem("interactions", "select", "What selecting an item or tapping a card returns.",
            "When a list has no confirming button (or a card has no buttons), choosing it is the interaction: "
            "`{\"event\": \"select\", \"element_id\": item or card id, \"element_type\": \"item\" | \"card\", \"title\", \"selected\"}`."),
    DocItem("interactions", "no_interaction", "When the user does not act on a screen.",
            "If the screen does not show the choice the user has to make (for example the options are missing, "
            "or there is nothing to click), show_ui_to_user returns `user_interaction: null` with a note. Render a "
            "screen with the options and facts the user needs, and a way to choose."),
)

GUIDES: tuple[DocItem, ...] = (
    DocItem("guides", "quick_start", "Everything needed to render a first screen.", ""),  # body filled below
    DocItem("guides", "validation_errors", "How validation errors read and how to fix them.",
            "Errors start with the JSON path of the first problem: `screen.children[2].items[0].image: unknown image id 'img_9'`. "
            "Paths count from 0. Typical causes: a missing required field, an unknown field, an unknown component type, "
            "a duplicate id, an image id you cannot use, a select field without options, too many children."),
    DocItem("guides", "limits", "Size limits of screens.",
            f"At most {MAX_CHILDREN} top-level components, {MAX_ROW} per row, {MAX_ITEMS} list items, {MAX_FIELDS} form "
            f"fields, {MAX_LINES} card lines, {MAX_CARD_BUTTONS} card buttons; strings up to 400 characters; ids 1-64 "
            "characters of letters, digits, '_', '.', '-'. The picture is 720 px wide."),
)

QUICK_START = "\n".join([
    "UI screens: the user decides through screens you render (their criterion is private, so ask through the UI).",
    "",
    "A screen is JSON: {\"title\": \"...\", \"children\": [components]}. Components (field `type`):",
    *(f"- {c.name}: {c.summary}" for c in COMPONENTS),
    "",
    "Interactive elements (buttons, cards, lists and their items, forms and their fields) need an `id`, unique in the screen.",
    "",
    "Steps: render_ui_screen(screen) -> show_ui_to_user(screen_id, message) -> read `user_interaction` "
    "(element_id, card_id, selected, form_values) -> act on it with the app tools.",
    "",
    "Example (choose one of two products):",
    json.dumps(COMPONENTS[5].example, ensure_ascii=False),
    "",
    "More: ui_explore_capabilities(), ui_list_items(category), ui_get_item_details(name), ui_search_docs(query).",
])

ITEMS: tuple[DocItem, ...] = (*COMPONENTS, *PATTERNS, *INTERACTIONS,
                              DocItem("guides", "quick_start", GUIDES[0].summary, QUICK_START), *GUIDES[1:],
                              DocItem("schema", "screen", "The JSON schema of a whole screen.",
                                      "A screen object holds an optional title and 1-30 components.", SCREEN_SCHEMA,
                                      COMPONENTS[5].example))
CATEGORIES: dict[str, str] = {
    "components": "the building blocks of a screen (text, image, divider, button, row, card, list, form)",
    "patterns": "screens for common decisions (pick a product, choose from a list, confirm, fill a form)",
    "interactions": "what happens after show_ui_to_user and what the user's interaction looks like",
    "guides": "the quick start, validation errors, size limits",
    "schema": "the JSON schema of a screen",
}
_WORD = re.compile(r"[a-z0-9]+")


def find_item(name: str, category: str | None = None) -> DocItem | None:
    return next((i for i in ITEMS if i.name == name and (category is None or i.category == category)), None)


def search(query: str, limit: int = 5) -> list[dict[str, Any]]:
    """Entries ranked by keyword score: +3 per query word in the name, +2 in the summary, +1 in the body."""
    words = _WORD.findall(query.lower())
    scored = []
    for item in ITEMS:
        name, summary, body = item.name.lower(), item.summary.lower(), item.body.lower()
        score = sum(3.0 * (w in name) + 2.0 * (w in summary) + 1.0 * (w in body) for w in words)
        if score > 0:
            scored.append((score, item))
    scored.sort(key=lambda pair: (-pair[0], pair[1].category, pair[1].name))
    return [{"category": i.category, "name": i.name, "summary": i.summary, "score": s} for s, i in scored[:limit]]
