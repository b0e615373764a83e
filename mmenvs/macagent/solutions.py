"""Reference-solution steps that point at a screen element by its accessibility name.

A reference solution (``reference_solution`` in a task file) is a list of actions in the agent's grammar,
plus two forms only task authors use::

    {"click_element": {"name": "Save", "role": "button", "within": "TextEdit", "double": true, "button": "right"}}
    {"drag_element": {"from": {"name": "report.txt", "role": "row"}, "to": {"name": "Archive", "role": "row"}}}

They name the element as the accessibility tree shows it, so a solution survives a widget that moves
or a screen of another size. When the oracle plays such a step it reads the backend's accessibility
tree, finds the one element that matches and sends an ordinary action at its place: a computer-use
``CLICK``, or pyautogui ``moveTo`` + ``dragTo`` for a drag. The agents' action grammar is unchanged;
the env never sees these forms.

An element is named by ``name`` (required: exactly as the tree shows it, unescaped); ``role``
(optional: ``"AXButton"`` or just ``"button"``, case-insensitive); ``within`` (optional: the name of an
element that contains it: an application, a window or sheet title, a list, a menu, ``"Dock"``,
``"Desktop"``, ``"Menu Bar"``); ``index`` (optional: the n-th of several matches, 0 first, in tree order:
the menu bar, an open menu, then windows front-most first, desktop icons, the Dock); ``offset``
(optional: ``[dx, dy]`` pixels from the element's top-left corner, for a spot that is not its centre,
e.g. the checkbox at a row's left end). A click adds ``double`` (true: a double click) and ``button``
(``left``, the default, ``right`` or ``middle``); a drag names its two ends in ``from`` and ``to``.

Resolution is strict, because a click that lands elsewhere fails later and far from its cause: no
match, several matches (without ``index``), an element without area, a disabled one or one hidden
under a window or menu in front of it each raise :class:`ElementNotFoundError`, naming the task file,
the task, the step and what the screen holds instead.

``MacBackend.accessibility_tree()`` is the one form every backend gives (the simulator and a real Mac
alike; there is no structured variant in the interface): indented lines
``<role> "<name>" value="…" [x, y, w, h] <flags>``. :func:`accessibility_elements` reads it into
records once per step; matching works on those.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from mmenvs.macagent.backends.base import BUTTONS

ELEMENT_CLICK = "click_element"
ELEMENT_DRAG = "drag_element"
#: field -> (required, what it must be) of an element target, for validation messages
TARGET_FIELDS: dict[str, tuple[bool, str]] = {
    "name": (True, "the element's accessibility name (a non-empty string)"),
    "role": (False, 'an accessibility role such as "AXButton" or "button"'),
    "within": (False, "the name of an enclosing application, window, sheet, list, menu, \"Dock\" or \"Desktop\""),
    "index": (False, "a non-negative integer (which of several matches, 0 first)"),
    "offset": (False, "[dx, dy]: non-negative integer pixels from the element's top-left corner"),
}
CLICK_FIELDS: dict[str, tuple[bool, str]] = {
    **TARGET_FIELDS,
    "double": (False, "true or false"),
    "button": (False, f"one of {', '.join(BUTTONS)}"),
}
DRAG_FIELDS: dict[str, tuple[bool, str]] = {
    "from": (True, 'the element the drag starts on: {"name": …, "role": …}'),
    "to": (True, 'the element the drag ends on: {"name": …, "role": …}'),
}

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_LINE = re.compile(
    rf"^(?P<indent> *)(?P<role>AX\w+)(?: {_QUOTED})?(?: value={_QUOTED})?(?: shortcut={_QUOTED})?"
    r"(?: \[(-?\d+), (-?\d+), (-?\d+), (-?\d+)\])?(?P<flags>(?: [\w-]+)*)$"
)
_UNESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class A11yElement:
    """One element of the accessibility tree, with the names of the elements that contain it."""

    role: str
    name: str | None
    value: str | None
    bounds: tuple[int, int, int, int] | None  # x, y, width, height in screen pixels
    flags: frozenset[str]
    ancestors: tuple[str, ...]  # names of the enclosing elements, outermost first (unnamed ones skipped)
    position: int = 0  # where the element stands in tree order
    enclosing: tuple[int, ...] = ()  # positions of the enclosing elements

    @property
    def center(self) -> tuple[int, int]:
        """The point a click on the element aims at."""
        assert self.bounds is not None
        x, y, w, h = self.bounds
        return x + w // 2, y + h // 2

    def describe(self) -> str:
        """The element as the tree shows it, with the innermost container."""
        where = f" in {self.ancestors[-1]!r}" if self.ancestors else ""
        return f'{self.role} "{self.name}"{where}' + (f" {list(self.bounds)}" if self.bounds else "")


def _unescape(text: str | None) -> str | None:
    return None if text is None else _UNESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def accessibility_elements(tree: str) -> list[A11yElement]:
    """The elements of an accessibility tree in its text form, in tree order (lines that do not
    follow the format are skipped)."""
    elements: list[A11yElement] = []
    for indent, role, name, value, bounds, flags, ancestors, enclosing in accessibility_rows(tree):
        elements.append(A11yElement(role=role, name=name, value=value, bounds=bounds, flags=flags, ancestors=ancestors,
                                    position=len(elements), enclosing=enclosing))
    return elements


#: One parsed tree line: (indent, role, name, value, bounds, flags).
A11yLine = tuple[int, str, "str | None", "str | None", "tuple[int, int, int, int] | None", frozenset]
#: One element of :func:`accessibility_rows`: the line's fields, then its ancestors' names and positions.
A11yRow = tuple[int, str, "str | None", "str | None", "tuple[int, int, int, int] | None", frozenset,
                tuple[str, ...], tuple[int, ...]]


# 4096 lines: a tree's lines and the next steps' (97.7% hits in a random-policy run, 97.9% with no bound);
# a larger bound only keeps past episodes' lines (~0.75 KB each: 16384 of them would hold 12 MB)
@functools.lru_cache(maxsize=4096)
def parse_accessibility_line(line: str) -> A11yLine | None:
    """One line of the tree's text form as (indent, role, name, value, bounds, flags), or None when it
    does not follow the format. Cached: a tree read after every step repeats most of its lines."""
    match = _LINE.match(line)
    if match is None:
        return None
    name = _unescape(match.group(3))
    role = match.group("role")
    if role == "AXMenuBar" and name is None:
        name = "Menu Bar"  # the tree gives the menu bar no name; let ``within`` reach it
    bounds = None if match.group(6) is None else tuple(int(match.group(i)) for i in range(6, 10))
    return (len(match.group("indent")), role, name, _unescape(match.group(4)), bounds,  # type: ignore[return-value]
            frozenset(match.group("flags").split()))


def accessibility_rows(tree: str) -> list[A11yRow]:
    """:func:`accessibility_elements` as plain tuples (cheaper to make when only a few are kept): per
    element its line's fields (:func:`parse_accessibility_line`), the names of its named containers
    (outermost first) and the positions of all its containers; an element's position is its index."""
    rows: list[A11yRow] = []
    # the open containers: (indent, the names and positions of it and its containers), so closing some
    # restores what the one left open had (no tuples rebuilt from the whole stack)
    stack: list[tuple[int, tuple[str, ...], tuple[int, ...]]] = []
    ancestors: tuple[str, ...] = ()
    enclosing: tuple[int, ...] = ()
    parse = parse_accessibility_line
    for line in tree.splitlines():
        parsed = parse(line)
        if parsed is None:
            continue
        indent = parsed[0]
        if stack and stack[-1][0] >= indent:
            while stack and stack[-1][0] >= indent:
                stack.pop()
            ancestors, enclosing = (stack[-1][1], stack[-1][2]) if stack else ((), ())
        position = len(rows)
        rows.append((*parsed, ancestors, enclosing))
        name = parsed[2]
        if name:
            ancestors = ancestors + (name,)
        enclosing = enclosing + (position,)
        stack.append((indent, ancestors, enclosing))
    return rows


def _role_key(role: str) -> str:
    role = role.strip().lower()
    return role[2:] if role.startswith("ax") else role


def is_element_step(action: Any) -> bool:
    """Whether a reference-solution step is a ``click_element`` or ``drag_element`` step."""
    return isinstance(action, Mapping) and (ELEMENT_CLICK in action or ELEMENT_DRAG in action)


def element_step_problem(action: Mapping[str, Any]) -> tuple[str, str] | None:
    """What is wrong with a ``click_element``/``drag_element`` step, as (field path below the step,
    message), or None when it is well formed."""
    form = ELEMENT_CLICK if ELEMENT_CLICK in action else ELEMENT_DRAG
    if len(action) != 1:
        return "", f'a {form} step is {{"{form}": {{…}}}} with nothing else; got keys {sorted(action)}'
    if form == ELEMENT_CLICK:
        return _fields_problem(action[form], form, CLICK_FIELDS)
    problem = _fields_problem(action[form], form, DRAG_FIELDS)
    if problem is not None:
        return problem
    for end in ("from", "to"):
        problem = _fields_problem(action[form][end], f"{form}.{end}", TARGET_FIELDS)
        if problem is not None:
            return problem
    return None


def _fields_problem(spec: Any, path: str, fields: Mapping[str, tuple[bool, str]]) -> tuple[str, str] | None:
    if not isinstance(spec, Mapping):
        return path, f'must be an object like {{"name": "Save", "role": "button"}}, got {json.dumps(spec)[:80]}'
    unknown = sorted(set(spec) - set(fields))
    if unknown:
        return path, f"unknown field(s) {unknown}; allowed: {sorted(fields)}"
    for key, (required, what) in fields.items():
        if key not in spec:
            if required:
                return f"{path}.{key}", f"is required: {what}"
            continue
        if not _valid(key, spec[key]):
            return f"{path}.{key}", f"must be {what}, got {json.dumps(spec[key])[:80]}"
    return None


def _valid(key: str, value: Any) -> bool:
    if key in ("name", "role", "within"):
        return isinstance(value, str) and bool(value.strip())
    if key == "index":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if key == "offset":
        return (isinstance(value, list) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value))
    if key == "double":
        return isinstance(value, bool)
    if key == "button":
        return value in BUTTONS
    return True  # "from"/"to": checked field by field


class ElementNotFoundError(LookupError):
    """An element step that no element (or more than one) on screen answers; the message names the
    step, what it asked for and what the screen holds instead."""


def find_element(elements: list[A11yElement], spec: Mapping[str, Any]) -> A11yElement:
    """The element a target spec (``name``, ``role``, ``within``, ``index``) names; raises
    ``ElementNotFoundError`` saying why when none or several do."""
    wanted = f"{json.dumps(dict(spec), ensure_ascii=False)}"
    named = [e for e in elements if e.name == spec["name"]]
    role = _role_key(spec["role"]) if "role" in spec else None
    matches = [e for e in named if (role is None or _role_key(e.role) == role)
               and ("within" not in spec or spec["within"] in e.ancestors)]
    if not matches:
        if named:
            seen = "; ".join(e.describe() for e in named[:8])
            raise ElementNotFoundError(f"no element on screen matches {wanted}; elements named {spec['name']!r}: {seen}")
        near = sorted({e.name for e in elements if e.name and (role is None or _role_key(e.role) == role)})
        kind = f"{spec['role']} elements" if role else "named elements"
        raise ElementNotFoundError(f"no element named {spec['name']!r} on screen (asked for {wanted}); "
                                   f"{kind} on screen: {', '.join(repr(n) for n in near[:40]) or 'none'}")
    index = spec.get("index")
    if index is None and len(matches) > 1:
        seen = "; ".join(f"[{i}] {e.describe()}" for i, e in enumerate(matches[:8]))
        raise ElementNotFoundError(f"{len(matches)} elements match {wanted}: {seen}; narrow it with 'role', 'within' or 'index'")
    if index is not None and index >= len(matches):
        raise ElementNotFoundError(f"{wanted} asks for match {index}, but only {len(matches)} element(s) match")
    element = matches[index or 0]
    if element.bounds is None or element.bounds[2] <= 0 or element.bounds[3] <= 0:
        raise ElementNotFoundError(f"{element.describe()} (asked for {wanted}) has no area on screen to click")
    if "disabled" in element.flags:
        raise ElementNotFoundError(f"{element.describe()} (asked for {wanted}) is disabled")
    return element


_SURFACES = ("AXWindow", "AXSheet", "AXMenu")


def _covering(elements: list[A11yElement], element: A11yElement, x: int, y: int) -> A11yElement | None:
    """A window, sheet or menu in front of ``element`` (earlier in tree order, not one of its
    containers) over the point (x, y): a click there would land on that instead."""
    for other in elements[:element.position]:
        if other.role in _SURFACES and other.bounds and other.position not in element.enclosing:
            ox, oy, ow, oh = other.bounds
            if ox <= x < ox + ow and oy <= y < oy + oh:
                return other
    return None


def click_point(element: A11yElement, spec: Mapping[str, Any]) -> tuple[int, int]:
    """Where to click ``element``: its centre, or ``spec["offset"]`` from its top-left corner (which must
    fall inside it)."""
    if "offset" not in spec:
        return element.center
    assert element.bounds is not None
    x, y, w, h = element.bounds
    dx, dy = spec["offset"]
    if dx >= w or dy >= h:
        raise ElementNotFoundError(f"offset {list(spec['offset'])} lies outside {element.describe()}, which is {w}x{h} px")
    return x + dx, y + dy


def element_point(elements: list[A11yElement], spec: Mapping[str, Any]) -> tuple[int, int]:
    """The screen point an element target names: found, offset applied, and not hidden under a window
    or menu in front of it (raises ``ElementNotFoundError``)."""
    element = find_element(elements, spec)
    x, y = click_point(element, spec)
    cover = _covering(elements, element, x, y)
    if cover is not None:
        raise ElementNotFoundError(f"{element.describe()} (asked for {json.dumps(dict(spec), ensure_ascii=False)}) "
                                   f"is hidden under {cover.describe()}")
    return x, y


def element_action(step: Mapping[str, Any], tree: str) -> str | dict[str, Any]:
    """The action that carries out a ``click_element``/``drag_element`` step on the screen ``tree``
    describes: a computer-use ``CLICK``, or a pyautogui block that moves to one element and drags to
    the other."""
    elements = accessibility_elements(tree)
    if ELEMENT_CLICK in step:
        spec = step[ELEMENT_CLICK]
        x, y = element_point(elements, spec)
        return {"action_type": "CLICK", "x": x, "y": y, "button": spec.get("button", "left"),
                "num_clicks": 2 if spec.get("double") else 1}
    drag = step[ELEMENT_DRAG]
    (x0, y0), (x1, y1) = element_point(elements, drag["from"]), element_point(elements, drag["to"])
    return f"```python\nimport pyautogui\npyautogui.moveTo({x0}, {y0})\npyautogui.dragTo({x1}, {y1}, button='left')\n```"


def solution_step(task: Any, index: int, backend: Any) -> str | dict[str, Any]:
    """Step ``index`` of ``task``'s reference solution as an action the env takes (``DONE`` after the
    last): a ``click_element``/``drag_element`` step is resolved against ``backend``'s screen now.

    ``task`` is a ``MacTask`` and ``backend`` a ``MacBackend``; raises ``ElementNotFoundError`` naming the
    task file, the task and the step when the element is not on screen.
    """
    solution = task.reference_solution
    if index >= len(solution):
        return "DONE"
    step = solution[index]
    if not is_element_step(step):
        return step
    try:
        return element_action(step, backend.accessibility_tree())
    except ElementNotFoundError as exc:
        raise ElementNotFoundError(f"{task.source}: task {task.id!r}: reference_solution[{index}]: {exc}") from None
