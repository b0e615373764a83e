"""The declarative screen format of UI mode and its validation.

A screen is a JSON object ``{"title": str?, "children": [component, ...]}``. Components (loosely after
Google's A2UI protocol, which the paper's UI tools follow) are objects with a ``"type"``:

========  ===========================================================================================
type      fields (``*`` = required)
========  ===========================================================================================
text      ``text``\\*, ``style`` (title | body | caption)
image     ``image``\\* (an image id such as ``img_0``), ``caption``
divider   —
button    ``id``\\*, ``label``\\*, ``style`` (primary | secondary | danger)
row       ``children``\\* (1–4 components laid out side by side; no rows or forms inside)
card      ``id``\\*, ``title``\\*, ``subtitle``, ``image``, ``lines`` (≤ 8 strings), ``badge``, ``buttons`` (≤ 3 buttons)
list      ``id``\\*, ``items``\\* (1–20 items: ``id``\\*, ``title``\\*, ``subtitle``, ``image``, ``badge``),
          ``selection`` (single | multiple | none; default single), ``label``
form      ``id``\\*, ``fields``\\* (1–10 fields: ``id``\\*, ``label``\\*, ``kind``\\* (text | number | date |
          select | checkbox), ``options`` (select only, 1–20 strings), ``value`` (a default), ``required``),
          ``submit``\\* (a button)
========  ===========================================================================================

Every ``id`` is unique in the screen (letters, digits, ``_ . -``, at most 64 characters). Validation
errors are ``ScreenError`` whose message starts with the JSON path of the wrong value, e.g.
``screen.children[2].items[0].image: unknown image id 'img_9'``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

COMPONENT_TYPES = ("text", "image", "divider", "button", "row", "card", "list", "form")
TEXT_STYLES = ("title", "body", "caption")
BUTTON_STYLES = ("primary", "secondary", "danger")
SELECTIONS = ("single", "multiple", "none")
FIELD_KINDS = ("text", "number", "date", "select", "checkbox")
ROW_CHILD_TYPES = ("text", "image", "divider", "button", "card")

MAX_CHILDREN = 30
MAX_ROW = 4
MAX_ITEMS = 20
MAX_FIELDS = 10
MAX_OPTIONS = 20
MAX_LINES = 8
MAX_CARD_BUTTONS = 3
MAX_TEXT = 400
_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

#: Allowed keys per component type (besides "type").
FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("text", "style"),
    "image": ("image", "caption"),
    "divider": (),
    "button": ("id", "label", "style"),
    "row": ("children",),
    "card": ("id", "title", "subtitle", "image", "lines", "badge", "buttons"),
    "list": ("id", "items", "selection", "label"),
    "form": ("id", "fields", "submit"),
}
ITEM_FIELDS = ("id", "title", "subtitle", "image", "badge")
FORM_FIELD_FIELDS = ("id", "label", "kind", "options", "value", "required")
SCREEN_FIELDS = ("title", "children")


class ScreenError(ValueError):
    """A screen that does not fit the schema; the message starts with the JSON path of the problem."""


@dataclass(frozen=True)
class Element:
    """An interactive element of a validated screen (what the user can click, select or fill).

    ``kind`` is ``button`` | ``card`` | ``list`` | ``item`` | ``form`` | ``field``; ``parent`` is the id
    of the card, list or form holding it (None at the top level); ``text`` is everything it displays.
    """

    id: str
    kind: str
    path: str
    parent: str | None
    text: str
    data: dict[str, Any]


class _Validator:
    def __init__(self, check_image: Callable[[str], str | None]) -> None:
        self.check_image = check_image
        self.ids: dict[str, str] = {}
        self.elements: list[Element] = []

    # -------------------------------------------------------------- helpers
    def fail(self, path: str, message: str) -> ScreenError:
        return ScreenError(f"{path}: {message}")

    def obj(self, value: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...], what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected {what} (a JSON object), got {_kind(value)}")
        unknown = [k for k in value if k not in allowed]
        if unknown:
            raise self.fail(f"{path}.{unknown[0]}", f"unknown field for {what}; allowed: {', '.join(allowed) or 'none'}")
        for key in required:
            if key not in value:
                raise self.fail(f"{path}.{key}", f"missing (required for {what})")
        return value

    def string(self, value: Any, path: str, *, empty: bool = False, limit: int = MAX_TEXT) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected a string, got {_kind(value)}")
        if not empty and not value.strip():
            raise self.fail(path, "must not be empty")
        if len(value) > limit:
            raise self.fail(path, f"is {len(value)} characters long; at most {limit} allowed")
        return value

    def choice(self, value: Any, path: str, allowed: tuple[str, ...]) -> str:
        if value not in allowed:
            raise self.fail(path, f"must be one of {', '.join(allowed)}, got {value!r}")
        return value

    def ident(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not _ID.match(value):
            raise self.fail(path, f"must be an id of 1-64 letters, digits, '_', '.' or '-', got {value!r}")
        if value in self.ids:
            raise self.fail(path, f"duplicate id {value!r} (already used at {self.ids[value]})")
        self.ids[value] = path
        return value

    def image(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected an image id like 'img_0', got {_kind(value)}")
        problem = self.check_image(value)
        if problem:
            raise self.fail(path, problem)
        return value

    def sequence(self, value: Any, path: str, low: int, high: int, what: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list of {what}, got {_kind(value)}")
        if not low <= len(value) <= high:
            raise self.fail(path, f"must hold {low}-{high} {what}, got {len(value)}")
        return value

    # -------------------------------------------------------------- components
    def screen(self, value: Any) -> dict[str, Any]:
        screen = self.obj(value, "screen", SCREEN_FIELDS, ("children",), "a screen")
        out: dict[str, Any] = {}
        if "title" in screen:
            out["title"] = self.string(screen["title"], "screen.title")
        children = self.sequence(screen["children"], "screen.children", 1, MAX_CHILDREN, "components")
        out["children"] = [self.component(c, f"screen.children[{i}]", top=True, parent=None) for i, c in enumerate(children)]
        return out

    def component(self, value: Any, path: str, *, top: bool, parent: str | None) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a component (a JSON object with 'type'), got {_kind(value)}")
        if "type" not in value:
            raise self.fail(f"{path}.type", f"missing; one of {', '.join(COMPONENT_TYPES)}")
        kind = value["type"]
        if kind not in COMPONENT_TYPES:
            raise self.fail(f"{path}.type", f"unknown component type {kind!r}; one of {', '.join(COMPONENT_TYPES)}")
        if not top and kind not in ROW_CHILD_TYPES:
            raise self.fail(f"{path}.type", f"a {kind!r} cannot sit inside a row; rows hold {', '.join(ROW_CHILD_TYPES)}")
        allowed = ("type", *FIELDS[kind])
        return getattr(self, f"_{kind}")(self.obj(value, path, allowed, (), f"a {kind} component"), path, parent)

    def _text(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("text",), "text")
        return {"type": "text", "text": self.string(c["text"], f"{path}.text"),
                "style": self.choice(c.get("style", "body"), f"{path}.style", TEXT_STYLES)}

    def _image(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("image",), "image")
        out = {"type": "image", "image": self.image(c["image"], f"{path}.image")}
        if "caption" in c:
            out["caption"] = self.string(c["caption"], f"{path}.caption")
        return out

    def _divider(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        return {"type": "divider"}

    def _button(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("id", "label"), "button")
        out = {"type": "button", "id": self.ident(c["id"], f"{path}.id"), "label": self.string(c["label"], f"{path}.label", limit=60),
               "style": self.choice(c.get("style", "primary"), f"{path}.style", BUTTON_STYLES)}
        self.elements.append(Element(out["id"], "button", path, parent, out["label"], out))
        return out

    def _row(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("children",), "row")
        children = self.sequence(c["children"], f"{path}.children", 1, MAX_ROW, "components")
        return {"type": "row", "children": [self.component(x, f"{path}.children[{i}]", top=False, parent=parent) for i, x in enumerate(children)]}

    def _card(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("id", "title"), "card")
        out: dict[str, Any] = {"type": "card", "id": self.ident(c["id"], f"{path}.id"), "title": self.string(c["title"], f"{path}.title", limit=120)}
        for key in ("subtitle", "badge"):
            if key in c:
                out[key] = self.string(c[key], f"{path}.{key}", limit=120)
        if "image" in c:
            out["image"] = self.image(c["image"], f"{path}.image")
        lines = self.sequence(c.get("lines", []), f"{path}.lines", 0, MAX_LINES, "strings")
        out["lines"] = [self.string(x, f"{path}.lines[{i}]", limit=160) for i, x in enumerate(lines)]
        text = " | ".join([out["title"], out.get("subtitle", ""), out.get("badge", ""), *out["lines"]])
        self.elements.append(Element(out["id"], "card", path, parent, text, out))
        buttons = self.sequence(c.get("buttons", []), f"{path}.buttons", 0, MAX_CARD_BUTTONS, "buttons")
        out["buttons"] = []
        for i, b in enumerate(buttons):
            bpath = f"{path}.buttons[{i}]"
            if not isinstance(b, dict) or b.get("type", "button") != "button":
                raise self.fail(bpath, "expected a button {'type': 'button', 'id': ..., 'label': ...}")
            out["buttons"].append(self._button(self.obj(b, bpath, ("type", *FIELDS["button"]), (), "a button"), bpath, out["id"]))
        return out

    def _list(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("id", "items"), "list")
        out: dict[str, Any] = {"type": "list", "id": self.ident(c["id"], f"{path}.id"),
                               "selection": self.choice(c.get("selection", "single"), f"{path}.selection", SELECTIONS)}
        if "label" in c:
            out["label"] = self.string(c["label"], f"{path}.label", limit=120)
        self.elements.append(Element(out["id"], "list", path, parent, out.get("label", ""), out))
        items = self.sequence(c["items"], f"{path}.items", 1, MAX_ITEMS, "items")
        out["items"] = []
        for i, raw in enumerate(items):
            ipath = f"{path}.items[{i}]"
            item = self.obj(raw, ipath, ITEM_FIELDS, ("id", "title"), "a list item")
            entry = {"id": self.ident(item["id"], f"{ipath}.id"), "title": self.string(item["title"], f"{ipath}.title", limit=120)}
            for key in ("subtitle", "badge"):
                if key in item:
                    entry[key] = self.string(item[key], f"{ipath}.{key}", limit=160)
            if "image" in item:
                entry["image"] = self.image(item["image"], f"{ipath}.image")
            out["items"].append(entry)
            text = " | ".join([entry["title"], entry.get("subtitle", ""), entry.get("badge", "")])
            self.elements.append(Element(entry["id"], "item", ipath, out["id"], text, entry))
        return out

    def _form(self, c: dict[str, Any], path: str, parent: str | None) -> dict[str, Any]:
        self.require(c, path, ("id", "fields", "submit"), "form")
        out: dict[str, Any] = {"type": "form", "id": self.ident(c["id"], f"{path}.id")}
        self.elements.append(Element(out["id"], "form", path, parent, "", out))
        fields = self.sequence(c["fields"], f"{path}.fields", 1, MAX_FIELDS, "fields")
        out["fields"] = [self.field(f, f"{path}.fields[{i}]", out["id"]) for i, f in enumerate(fields)]
        spath = f"{path}.submit"
        submit = c["submit"]
        if not isinstance(submit, dict) or submit.get("type", "button") != "button":
            raise self.fail(spath, "expected a button {'id': ..., 'label': ...}")
        out["submit"] = self._button(self.obj(submit, spath, ("type", *FIELDS["button"]), (), "a button"), spath, out["id"])
        return out

    def field(self, value: Any, path: str, form_id: str) -> dict[str, Any]:
        f = self.obj(value, path, FORM_FIELD_FIELDS, ("id", "label", "kind"), "a form field")
        out: dict[str, Any] = {"id": self.ident(f["id"], f"{path}.id"), "label": self.string(f["label"], f"{path}.label", limit=80),
                               "kind": self.choice(f["kind"], f"{path}.kind", FIELD_KINDS)}
        if out["kind"] == "select":
            if "options" not in f:
                raise self.fail(f"{path}.options", "missing (a select field needs its options)")
            options = self.sequence(f["options"], f"{path}.options", 1, MAX_OPTIONS, "options")
            out["options"] = [self.string(o, f"{path}.options[{i}]", limit=120) for i, o in enumerate(options)]
            if len(set(out["options"])) != len(out["options"]):
                raise self.fail(f"{path}.options", "options must be distinct")
        elif "options" in f:
            raise self.fail(f"{path}.options", f"only select fields take options (this field is {out['kind']!r})")
        if "required" in f:
            if not isinstance(f["required"], bool):
                raise self.fail(f"{path}.required", f"expected true or false, got {_kind(f['required'])}")
            out["required"] = f["required"]
        if "value" in f:
            out["value"] = self.default(f["value"], f"{path}.value", out)
        text = " | ".join([out["label"], *out.get("options", [])])
        self.elements.append(Element(out["id"], "field", path, form_id, text, out))
        return out

    def default(self, value: Any, path: str, field: dict[str, Any]) -> Any:
        kind = field["kind"]
        if kind == "checkbox":
            if not isinstance(value, bool):
                raise self.fail(path, f"a checkbox value must be true or false, got {_kind(value)}")
        elif kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.fail(path, f"a number field's value must be a number, got {_kind(value)}")
        elif kind == "select":
            if value not in field["options"]:
                raise self.fail(path, f"must be one of the field's options, got {value!r}")
        elif kind == "date":
            if not isinstance(value, str) or not _DATE.match(value):
                raise self.fail(path, f"a date field's value must look like '2025-03-14', got {value!r}")
        else:
            self.string(value, path, empty=True)
        return value

    def require(self, c: dict[str, Any], path: str, keys: tuple[str, ...], what: str) -> None:
        for key in keys:
            if key not in c:
                raise self.fail(f"{path}.{key}", f"missing (required for a {what} component)")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class ValidatedScreen:
    """A screen that passed validation: the normalised JSON (defaults filled in) and its interactive elements."""

    screen: dict[str, Any]
    elements: tuple[Element, ...]

    def element(self, element_id: str) -> Element | None:
        return next((e for e in self.elements if e.id == element_id), None)


def validate_screen(screen: Any, check_image: Callable[[str], str | None] = lambda _id: None) -> ValidatedScreen:
    """Validate ``screen`` against the schema; ``check_image(id)`` returns a problem text for an unusable image id.

    Raises ``ScreenError`` whose message begins with the JSON path of the first problem.
    """
    validator = _Validator(check_image)
    normalised = validator.screen(screen)
    return ValidatedScreen(normalised, tuple(validator.elements))
