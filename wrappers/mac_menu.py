"""``MacAgentMenu``: MacAgent-v0's desktop as a fixed-size ``Discrete`` space with an action mask."""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym

from .menus import ActionMenu, MenuOption, _unwrapped_env

#: Accessibility roles the menu offers as click targets (containers, windows, static text and the
#: screen itself are left out: a click on them does nothing a click on their children does not).
ACTIONABLE_ROLES = ("AXButton", "AXCheckBox", "AXRadioButton", "AXPopUpButton", "AXMenuBarItem", "AXMenuItem", "AXMenuExtra",
                    "AXDockItem", "AXRow", "AXCell", "AXTextField", "AXTextArea", "AXLink", "AXImage", "AXSlider")
#: Key presses and chords of the menu, in slot order (pyautogui key names).
HOTKEYS: tuple[tuple[str, ...], ...] = (
    ("enter",), ("tab",), ("esc",), ("backspace",), ("space",), ("up",), ("down",), ("left",), ("right",),
    ("command", "a"), ("command", "c"), ("command", "v"), ("command", "s"), ("command", "n"), ("command", "w"),
    ("command", "z"), ("command", "f"), ("command", "space"),
)
#: Click kinds a menu may offer per element: the computer-use verb and its parameters.
CLICK_KINDS = {
    "click": ("CLICK", {"button": "left", "num_clicks": 1}),
    "double_click": ("DOUBLE_CLICK", {}),
    "right_click": ("RIGHT_CLICK", {}),
}
_SURFACES = ("AXWindow", "AXSheet", "AXMenu")
SCROLL_NOTCHES = 5


class MacAgentMenu(ActionMenu):
    """MacAgent-v0 as ``Discrete(n)``: click targets from the accessibility tree, typing the task's
    parameter strings, hotkeys, scrolling, WAIT and DONE.

    Layout, with ``E = max_elements`` (64), ``K = len(clicks)`` (1: ``("click",)``), ``P = max_params`` (16),
    ``H = len(hotkeys)`` (18), ``X = len(extra_actions)`` (0); ``n = E*K + P + H + 2 + X + 2``:

    - ``k*E + i`` (``0 <= i < E``, ``0 <= k < K``): click kind ``clicks[k]`` ("click", "double_click",
      "right_click") at the centre of actionable element ``i``: the elements of the accessibility tree
      whose role is in ``roles`` (``ACTIONABLE_ROLES``), with an area, not disabled, whose centre lies on
      the screen and is not hidden under a window, sheet or menu in front, in tree order (the menu bar,
      an open menu, the windows front-most first, the desktop, the Dock), at most one per centre point.
      Sent as a computer-use dict ``{"action_type": "CLICK", "x": cx, "y": cy, ...}``. Masked when the
      screen has fewer elements.
    - ``E*K + j``: type parameter string ``j`` of the task (``TYPING``): the task's ``params`` values
      flattened in order (strings and numbers, lists and dicts walked, duplicates dropped, at most
      ``max_param_chars`` characters). Masked past the task's count.
    - then ``H`` slots: press ``hotkeys[h]`` (one key: ``PRESS``; a chord: ``HOTKEY``).
    - then 2 slots: scroll up, scroll down (``SCROLL`` ±5 notches at the pointer).
    - then ``X`` slots: ``extra_actions`` as given (any action of the env's grammar, e.g. a shell command).
    - then ``WAIT``, then ``DONE`` (always available).

    ``elements()`` gives the click targets in slot order (``A11yElement`` records); an option's
    ``meta`` holds the element (``"element"``) and the point (``"point"``).
    """

    def __init__(self, env: gym.Env, *, max_elements: int = 64, max_params: int = 16, clicks: Sequence[str] = ("click",),
                 roles: Sequence[str] = ACTIONABLE_ROLES, hotkeys: Sequence[Sequence[str]] = HOTKEYS, scroll: bool = True,
                 extra_actions: Sequence[str | dict[str, Any]] = (), max_param_chars: int = 500) -> None:
        base = _unwrapped_env(env, "MacAgentEnv")
        unknown = [c for c in clicks if c not in CLICK_KINDS]
        if unknown or not clicks:
            raise ValueError(f"MacAgentMenu: clicks must be a non-empty list of {sorted(CLICK_KINDS)}, got {list(clicks)}")
        if max_elements < 0 or max_params < 0:
            raise ValueError("MacAgentMenu: max_elements and max_params must be >= 0")
        self._base = base
        self.max_elements, self.max_params, self.max_param_chars = int(max_elements), int(max_params), int(max_param_chars)
        self.clicks, self.roles = tuple(clicks), frozenset(roles)
        self.hotkeys = tuple(tuple(h) for h in hotkeys)
        self.scroll = bool(scroll)
        self.extra_actions = list(extra_actions)
        self._tree_seen: str | None = None
        self._elements: list[Any] = []
        # the last tree's click targets by (row, position): an element that stays put keeps its record and
        # its options (made once, not once per step); only the current tree's targets are kept
        self._targets: dict[tuple, tuple[Any, list[MenuOption]]] = {}
        self._target_options: list[list[MenuOption]] = []
        self._typing: tuple[Any, list[MenuOption | None]] | None = None  # (task, its typing options)
        size = self.max_elements * len(self.clicks) + self.max_params + len(self.hotkeys) + 2 * self.scroll + len(self.extra_actions) + 2
        super().__init__(env, size)
        self._fixed = self._fixed_options()

    # ------------------------------------------------------------------ layout
    def layout(self) -> list[tuple[range, str]]:
        spans, start = [], 0
        for kind in self.clicks:
            spans.append((range(start, start + self.max_elements), f"{kind} actionable element i (accessibility tree order)"))
            start += self.max_elements
        for count, what in ((self.max_params, "type the task's parameter string j"), (len(self.hotkeys), "press hotkey h"),
                            (2 * self.scroll, "scroll up, scroll down"), (len(self.extra_actions), "extra action x"),
                            (1, "WAIT"), (1, "DONE")):
            spans.append((range(start, start + count), what))
            start += count
        return spans

    def _fixed_options(self) -> list[MenuOption]:
        options = []
        for keys in self.hotkeys:
            action = {"action_type": "PRESS", "key": keys[0]} if len(keys) == 1 else {"action_type": "HOTKEY", "keys": list(keys)}
            options.append(MenuOption("press " + "+".join(keys), action, {"kind": "hotkey"}))
        if self.scroll:
            options.append(MenuOption("scroll up", {"action_type": "SCROLL", "dy": SCROLL_NOTCHES}, {"kind": "scroll"}))
            options.append(MenuOption("scroll down", {"action_type": "SCROLL", "dy": -SCROLL_NOTCHES}, {"kind": "scroll"}))
        for i, action in enumerate(self.extra_actions):
            options.append(MenuOption(f"extra action {i}: {str(action)[:80]}", action, {"kind": "extra"}))
        options.append(MenuOption("WAIT", "WAIT", {"kind": "wait"}))
        options.append(MenuOption("DONE", "DONE", {"kind": "done"}))
        return options

    # ------------------------------------------------------------------ the menu
    def elements(self) -> list[Any]:
        """The click targets now, in slot order (at most ``max_elements``)."""
        return list(self._elements)

    def parameter_strings(self) -> list[str]:
        """The current task's parameter strings, in slot order (at most ``max_params``)."""
        return _flatten_params(self._base.task.params, self.max_param_chars)[: self.max_params]

    def build_menu(self, obs: Any, info: dict[str, Any]) -> list[MenuOption | None]:
        self._read_elements()
        options: list[MenuOption | None] = []
        padding = [None] * (self.max_elements - len(self._elements))
        for k in range(len(self.clicks)):
            options.extend(per_kind[k] for per_kind in self._target_options)
            options.extend(padding)
        task = self._base.task
        if self._typing is None or self._typing[0] is not task:  # made once per task, not once per step
            strings = self.parameter_strings()
            self._typing = (task, [MenuOption(f"type {strings[j]!r}", {"action_type": "TYPING", "text": strings[j]}, {"kind": "type"})
                                   if j < len(strings) else None for j in range(self.max_params)])
        options.extend(self._typing[1])
        options.extend(self._fixed)
        return options

    def _read_elements(self) -> None:
        base = self._base
        tree = base.screen.a11y() if base.use_a11y else base.backend.accessibility_tree()
        if tree is self._tree_seen or tree == self._tree_seen:
            return
        from mmenvs.macagent.solutions import A11yElement, accessibility_rows

        width, height = base.backend.screen_size
        rows = accessibility_rows(tree)
        # the windows, sheets and menus with bounds, front-most first in tree order: what may cover an element
        surfaces = [(i, row[4]) for i, row in enumerate(rows) if row[1] in _SURFACES and row[4]]
        targets, options, centres = [], [], set()
        known, kept = self._targets, {}
        roles = self.roles
        for position, row in enumerate(rows):
            _indent, role, name, value, bounds, flags, ancestors, enclosing = row
            if role not in roles or bounds is None or "disabled" in flags:
                continue
            x, y, w, h = bounds
            if w <= 0 or h <= 0:
                continue
            cx, cy = x + w // 2, y + h // 2
            if not (0 <= cx < width and 0 <= cy < height) or (cx, cy) in centres \
                    or _covered(surfaces, position, enclosing, cx, cy):
                continue
            centres.add((cx, cy))
            key = (row, position)
            target = known.get(key)
            if target is None:
                element = A11yElement(role=role, name=name, value=value, bounds=bounds, flags=flags, ancestors=ancestors,
                                      position=position, enclosing=enclosing)
                target = (element, self._click_options(element))
            kept[key] = target
            targets.append(target[0])
            options.append(target[1])
            if len(targets) == self.max_elements:
                break
        self._tree_seen, self._elements = tree, targets
        self._targets, self._target_options = kept, options

    def _click_options(self, element: Any) -> list[MenuOption]:
        """The options of ``element``, one per click kind (in ``clicks`` order)."""
        x, y = element.center
        where = f" in {element.ancestors[-1]!r}" if element.ancestors else ""
        out = []
        for kind in self.clicks:
            verb, extra = CLICK_KINDS[kind]
            out.append(MenuOption(f'{kind} {element.role} "{element.name or ""}"{where} at ({x}, {y})',
                                  {"action_type": verb, "x": x, "y": y, **extra},
                                  {"kind": kind, "element": element, "point": (x, y)}))
        return out

    def unavailable_action(self, index: int) -> str:
        return f"(menu slot {index} is not available)"  # not in the action grammar: an error observation


def _covered(surfaces: list[tuple[int, tuple[int, int, int, int]]], position: int, enclosing: tuple[int, ...],
             x: int, y: int) -> bool:
    """Whether a window, sheet or menu in front of the element at ``position`` (earlier in tree order and
    not one of its containers, ``enclosing``) lies over the point (x, y). ``surfaces``: (position, bounds)
    of the tree's windows, sheets and menus, in tree order."""
    for other, (ox, oy, ow, oh) in surfaces:
        if other >= position:
            return False
        if other not in enclosing and ox <= x < ox + ow and oy <= y < oy + oh:
            return True
    return False


def _flatten_params(value: Any, max_chars: int) -> list[str]:
    """The strings and numbers in ``value`` (dicts in key order, lists in order), each once, as text."""
    out: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, dict):
            for v in item.values():
                walk(v)
        elif isinstance(item, (list, tuple)):
            for v in item:
                walk(v)
        elif isinstance(item, bool) or item is None:
            return
        elif isinstance(item, (str, int, float)):
            text = str(item)
            if text and len(text) <= max_chars and text not in out:
                out.append(text)

    walk(value)
    return out
