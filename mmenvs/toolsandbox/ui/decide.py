"""The scripted user's private UI decisions: how a scenario states them and how the user acts on a screen.

A UI round carries ``"ui"``: one decision or a list of them. A decision is private to the user
simulator — the agent never sees it — and says how the user reacts to a screen the agent shows:

.. code-block:: json

    {"options": {"trailmate": {"match": ["TrailMate"], "facts": {"price": 15.49}},
                 "aquapure":  {"match": ["AquaPure"],  "facts": {"price": 18.99}}},
     "choose": {"min": "price"},
     "pick": "one",
     "form": {"quantity": 5}}

* ``options``: what the user is choosing between. An element of the screen (list item, card, button,
  or an option of a select field) *shows* an option when its text contains one of the option's
  ``match`` strings as whole words (case-insensitive) and no other option's.
* ``choose``: the private criterion, applied to the options the screen shows: ``{"min": fact}``,
  ``{"max": fact}`` (numbers in ``facts``), ``{"where": {fact: value, …}}`` (all facts equal), or
  ``{"prefer": [option, …]}`` (the first one shown, in this order). Ties go to the earlier option.
* ``pick``: ``"one"`` (default) or ``"all"`` (every option meeting a ``where``/``prefer`` criterion;
  needs a list with ``"selection": "multiple"`` to select them all at once).
* ``form``: values the user types into form fields; a key fills the field whose id or label contains
  all of the key's words (``"quantity"`` fills a field labelled "Quantity"). A decision may hold only
  ``form`` (no options): the user then fills and submits the form.

Given a screen, the user takes the first decision of the round that the screen concerns (one of its
options is shown, or, for a form-only decision, a form field matches a key) and answers with the
arguments of a ``ui_user_interact`` call: the element clicked, list selections and form values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .schema import Element, ValidatedScreen

_WORD = re.compile(r"[a-z0-9]+")
CRITERIA = ("min", "max", "where", "prefer")
_CONFIRM = ("confirm", "select", "choose", "buy", "continue", "submit", "ok", "done", "save", "book", "add", "send", "pay",
            "next", "apply", "order", "go", "yes", "pick", "use", "checkout", "create", "schedule", "set", "delete", "remove",
            "request", "invite", "split", "file", "archive")


@dataclass(frozen=True)
class UIOption:
    key: str
    match: tuple[str, ...]
    facts: dict[str, Any] = field(default_factory=dict, compare=False)  # options are told apart by key and match


@dataclass(frozen=True)
class UIDecision:
    """One private decision of the user (see the module docstring)."""

    options: tuple[UIOption, ...] = ()
    criterion: tuple[str, Any] | None = None
    pick: str = "one"
    form: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reaction:
    """The user's reaction to a screen: ``arguments`` of a ``ui_user_interact`` call, or a ``note`` when
    the user finds nothing to do (the note never reveals the criterion)."""

    arguments: dict[str, Any] | None
    note: str = ""


def parse_decisions(value: Any, path: str) -> tuple[UIDecision, ...]:
    """Validate a round's ``ui`` field; errors are ``ValueError("field '<path>' …")``."""
    items = value if isinstance(value, list) else [value]
    if not items:
        raise ValueError(f"field '{path}' must be a decision object or a non-empty list of them")
    return tuple(_decision(v, f"{path}[{i}]" if isinstance(value, list) else path) for i, v in enumerate(items))


def _decision(value: Any, path: str) -> UIDecision:
    if not isinstance(value, Mapping):
        raise ValueError(f"field '{path}' must be an object with options/choose/pick/form, got {value!r}")
    unknown = set(value) - {"options", "choose", "pick", "form"}
    if unknown:
        raise ValueError(f"field '{path}' has unknown keys {sorted(unknown)}; allowed: options, choose, pick, form")
    raw_options = value.get("options", {})
    if not isinstance(raw_options, Mapping):
        raise ValueError(f"field '{path}.options' must be an object of option key -> {{match, facts}}, got {raw_options!r}")
    options = []
    for key, spec in raw_options.items():
        where = f"{path}.options.{key}"
        if not isinstance(spec, Mapping) or set(spec) - {"match", "facts"}:
            raise ValueError(f"field '{where}' must be {{'match': [strings], 'facts': {{…}}}}, got {spec!r}")
        match = spec.get("match")
        if not isinstance(match, list) or not match or not all(isinstance(m, str) and m.strip() for m in match):
            raise ValueError(f"field '{where}.match' must be a non-empty list of non-empty strings, got {match!r}")
        facts = spec.get("facts", {})
        if not isinstance(facts, Mapping):
            raise ValueError(f"field '{where}.facts' must be an object, got {facts!r}")
        options.append(UIOption(key, tuple(m.casefold() for m in match), dict(facts)))
    keys = [o.key for o in options]
    criterion = None
    if "choose" in value:
        choose = value["choose"]
        if not isinstance(choose, Mapping) or len(choose) != 1 or next(iter(choose)) not in CRITERIA:
            raise ValueError(f"field '{path}.choose' must be one of {{'min': fact}}, {{'max': fact}}, {{'where': {{fact: value}}}}, "
                             f"{{'prefer': [option keys]}}, got {choose!r}")
        kind, arg = next(iter(choose.items()))
        if kind in ("min", "max"):
            missing = [o.key for o in options if not isinstance(o.facts.get(arg), (int, float)) or isinstance(o.facts.get(arg), bool)]
            if not isinstance(arg, str) or missing:
                raise ValueError(f"field '{path}.choose.{kind}' names fact {arg!r}, which options {missing} lack as a number")
        elif kind == "where":
            if not isinstance(arg, Mapping) or not arg:
                raise ValueError(f"field '{path}.choose.where' must be a non-empty object of fact -> value, got {arg!r}")
        else:
            if not isinstance(arg, list) or not arg or any(k not in keys for k in arg):
                raise ValueError(f"field '{path}.choose.prefer' must list option keys from {keys}, got {arg!r}")
        criterion = (kind, arg)
    if options and criterion is None:
        raise ValueError(f"field '{path}.choose' is missing: a decision with options needs a criterion")
    if criterion is not None and not options:
        raise ValueError(f"field '{path}.options' is missing: a criterion needs options to choose from")
    pick = value.get("pick", "one")
    if pick not in ("one", "all"):
        raise ValueError(f"field '{path}.pick' must be 'one' or 'all', got {pick!r}")
    form = value.get("form", {})
    if not isinstance(form, Mapping) or not all(isinstance(k, str) and _WORD.search(k.lower()) for k in form):
        raise ValueError(f"field '{path}.form' must be an object of field words -> value, got {form!r}")
    if not options and not form:
        raise ValueError(f"field '{path}' needs options (with choose) or form values")
    return UIDecision(tuple(options), criterion, pick, dict(form))


# ---------------------------------------------------------------------- reacting to a screen
def _mentions(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words ("me" is not found in "Marco", "Home" not in "HomeGoods")."""
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", text) is not None


def _shows(element_text: str, options: tuple[UIOption, ...]) -> UIOption | None:
    text = element_text.casefold()
    hits = [o for o in options if any(_mentions(text, m) for m in o.match)]
    return hits[0] if len(hits) == 1 else None


def _candidates(screen: ValidatedScreen, options: tuple[UIOption, ...]) -> list[tuple[UIOption, Element, str | None]]:
    """(option, element, select-option string) for every element that shows exactly one option, in screen order."""
    found = []
    for element in screen.elements:
        if element.kind == "field" and element.data["kind"] == "select":
            for choice in element.data["options"]:
                option = _shows(choice, options)
                if option is not None:
                    found.append((option, element, choice))
        elif element.kind in ("card", "item", "button"):
            if element.kind == "item" and _list_of(screen, element)["selection"] == "none":
                continue
            option = _shows(element.text, options)
            if option is not None:
                found.append((option, element, None))
    return found


def _list_of(screen: ValidatedScreen, item: Element) -> dict[str, Any]:
    owner = screen.element(item.parent or "")
    return owner.data if owner is not None else {"selection": "none"}


def _chosen(decision: UIDecision, shown: list[UIOption]) -> list[UIOption]:
    kind, arg = decision.criterion  # type: ignore[misc]
    if kind in ("min", "max"):
        best = (min if kind == "min" else max)(o.facts[arg] for o in shown)
        return [next(o for o in shown if o.facts[arg] == best)]
    if kind == "where":
        hits = [o for o in shown if all(o.facts.get(k) == v for k, v in arg.items())]
    else:
        hits = [o for key in arg for o in shown if o.key == key]
    return hits if decision.pick == "all" else hits[:1]


def _field_for(key: str, fields: list[Element]) -> Element | None:
    words = _WORD.findall(key.lower())
    for f in fields:
        have = set(_WORD.findall(f.id.lower())) | set(_WORD.findall(f.data["label"].lower()))
        if all(w in have for w in words):
            return f
    return None


def _fill(decision: UIDecision, fields: list[Element]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in decision.form.items():
        target = _field_for(key, fields)
        if target is None:
            continue
        kind = target.data["kind"]
        if kind == "select":
            match = next((o for o in target.data["options"] if o.casefold() == str(value).casefold()), None)
            if match is None:
                continue
            value = match
        elif kind == "checkbox":
            value = bool(value)
        elif kind == "number" and isinstance(value, str):
            try:
                value = float(value) if "." in value else int(value)
            except ValueError:
                continue
        elif kind in ("text", "date"):
            value = str(value)
        values[target.id] = value
    return values


def _confirm_button(screen: ValidatedScreen, options: tuple[UIOption, ...]) -> Element | None:
    """A top-level button that confirms a selection (not one that shows an option, not a secondary one such as Cancel)."""
    buttons = [e for e in screen.elements if e.kind == "button" and screen.element(e.parent or "") is None
               and _shows(e.text, options) is None and e.data.get("style", "primary") != "secondary"]
    for b in buttons:
        if set(_WORD.findall(b.text.lower())) & set(_CONFIRM):
            return b
    return buttons[0] if buttons else None


def react(decisions: tuple[UIDecision, ...], screen: ValidatedScreen, screen_id: str) -> Reaction:
    """How the scripted user answers ``screen`` given the round's private ``decisions``."""
    fields = [e for e in screen.elements if e.kind == "field"]
    for decision in decisions:
        if decision.options:
            candidates = _candidates(screen, decision.options)
            if candidates:
                return _choose(decision, screen, screen_id, candidates, fields)
        elif any(_field_for(k, fields) is not None for k in decision.form):
            form_id = next(_field_for(k, fields).parent for k in decision.form if _field_for(k, fields) is not None)  # type: ignore[union-attr]
            form = screen.element(form_id or "")
            values = _fill(decision, [f for f in fields if f.parent == form_id])
            return Reaction({"screen_id": screen_id, "element_id": form.data["submit"]["id"], "form_values": values})  # type: ignore[union-attr]
    if not screen.elements:
        return Reaction(None, "The user looked at the screen; it has nothing to click or fill in.")
    return Reaction(None, "The user looked at the screen but did not find the choice they have to make on it.")


def _choose(decision: UIDecision, screen: ValidatedScreen, screen_id: str,
            candidates: list[tuple[UIOption, Element, str | None]], fields: list[Element]) -> Reaction:
    shown = list(dict.fromkeys(o for o, _, _ in candidates))
    order = {o.key: i for i, o in enumerate(decision.options)}
    shown.sort(key=lambda o: order[o.key])
    chosen = _chosen(decision, shown)
    if not chosen:
        return Reaction(None, "The user looked at the options on the screen; none of them is what they want.")
    first = next((c for c in candidates if c[0] == chosen[0]), None)
    assert first is not None
    _, element, choice = first
    arguments: dict[str, Any] = {"screen_id": screen_id}
    if element.kind == "item":
        listing = _list_of(screen, element)
        picked = [e.id for o in chosen for (oo, e, _) in candidates if oo == o and e.kind == "item" and e.parent == element.parent]
        picked = list(dict.fromkeys(picked))
        arguments["selected"] = {listing["id"]: picked if listing["selection"] == "multiple" else picked[:1]}
        forms = [e for e in screen.elements if e.kind == "form"]
        confirm = _confirm_button(screen, decision.options)
        if forms:
            arguments["element_id"] = forms[0].data["submit"]["id"]
            arguments["form_values"] = _fill(decision, [f for f in fields if f.parent == forms[0].id])
        elif confirm is not None:
            arguments["element_id"] = confirm.id
        else:
            arguments["element_id"] = element.id
    elif element.kind == "card":
        buttons = element.data.get("buttons", [])
        primary = [b for b in buttons if b.get("style", "primary") == "primary"] or buttons
        arguments["element_id"] = primary[0]["id"] if primary else element.id
    elif element.kind == "button":
        arguments["element_id"] = element.id
    else:  # an option of a select field: choose it and submit its form
        form = screen.element(element.parent or "")
        values = _fill(decision, [f for f in fields if f.parent == element.parent])
        values[element.id] = choice
        arguments["element_id"] = form.data["submit"]["id"]  # type: ignore[union-attr]
        arguments["form_values"] = values
    return Reaction(arguments)


def interaction_mismatches(expected: list[dict[str, Any]], actual: list[dict[str, Any] | None]) -> list[str]:
    """Compare the reference solution's ``expect`` entries with the user's interactions, in order.

    ``actual`` holds one resolved interaction (or None) per ``show_ui_to_user`` call. Each expected key must
    equal the interaction's value (``selected`` lists compared as sets). Returns readable problems ([] = all match).
    """
    problems = []
    if len(actual) != len(expected):
        problems.append(f"{len(expected)} screens expected to be shown, {len(actual)} were")
    for index, (want, got) in enumerate(zip(expected, actual)):
        for key, value in want.items():
            have = None if got is None else got.get(key)
            if key == "selected" and isinstance(value, dict) and isinstance(have, dict):
                same = {k: sorted(v) for k, v in value.items()} == {k: sorted(v) for k, v in have.items()}
            else:
                same = have == value
            if not same:
                problems.append(f"screen #{index + 1}: expected {key}={value!r}, the user gave {have!r}")
    return problems
