"""Action menus: each env's text actions as a fixed-size ``Discrete`` space with an action mask.

An RL policy picks an index; the menu turns it into one action of the env's grammar. A menu has a
fixed size (``Discrete(n)``) and a fixed *layout* (which index range means what, see each class's
docstring and ``layout()``); what a slot holds may change with the state (the elements on screen,
the image the next tool works on), and a slot that holds nothing now is masked out:

- ``info["action_mask"]`` (after ``reset`` and every ``step``) and ``action_masks()`` give the mask, a
  bool array of length ``n`` (True: available). sb3-contrib's ``MaskablePPO`` reads ``action_masks()``
  through any outer wrappers (``get_wrapper_attr``); at least one slot is always available.
- ``describe()`` lists what every slot holds now (a label, or None), ``info["menu_action"]`` the label of
  the option taken, ``info["menu_valid"]`` whether it was available.
- Choosing a masked slot is not an exception: the env receives an action its grammar rejects (see
  ``unavailable_action``), so the step counts, its observation carries the error and nothing changes.

Classes: ``DebugEchoMenu``, ``VTCBenchMenu`` (this module), ``MacAgentMenu`` (``mac_menu``),
``MMToolSandboxMenu`` (``toolsandbox_menu``); ``action_menu(env)`` picks the one for an env.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces


@dataclass(frozen=True)
class MenuOption:
    """One slot's content now: a label for people, the env action it sends, and facts about it."""

    label: str
    action: str | dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)


class ActionMenu(gym.Wrapper):
    """Base class: ``Discrete(size)`` over options rebuilt from the state after every reset and step.

    Subclasses implement ``build_menu(obs, info) -> list[MenuOption | None]`` (exactly ``size`` entries,
    None for a slot that holds nothing now), ``layout()`` and ``unavailable_action(index)``."""

    def __init__(self, env: gym.Env, size: int) -> None:
        super().__init__(env)
        if size < 1:
            raise ValueError(f"{type(self).__name__}: the menu needs at least one slot, got size {size}")
        self.size = int(size)
        self.action_space = spaces.Discrete(self.size)
        self._options: list[MenuOption | None] = [None] * self.size
        self._mask = np.zeros(self.size, dtype=bool)

    # ------------------------------------------------------------------ subclass hooks
    def build_menu(self, obs: Any, info: dict[str, Any]) -> list[MenuOption | None]:
        raise NotImplementedError

    def layout(self) -> list[tuple[range, str]]:
        """The index ranges of the menu and what each means (the same for every state)."""
        raise NotImplementedError

    def unavailable_action(self, index: int) -> str | dict[str, Any]:
        """What the env receives for a masked slot: an action its grammar rejects without effect."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the wrapper
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._refresh(obs, info)
        info["action_mask"] = self._mask.copy()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        index = self._index(action)
        option = self._options[index]
        sent = option.action if option is not None else self.unavailable_action(index)
        obs, reward, terminated, truncated, info = self.env.step(sent)
        info["menu_action"] = option.label if option is not None else f"(slot {index} holds nothing now)"
        info["menu_valid"] = option is not None
        self._refresh(obs, info)
        info["action_mask"] = self._mask.copy()
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The current mask (a copy): True where a slot holds an option (sb3-contrib's MaskablePPO)."""
        return self._mask.copy()

    def describe(self) -> list[str | None]:
        """The label of every slot now (None: masked)."""
        return [None if o is None else o.label for o in self._options]

    def option(self, index: int) -> MenuOption | None:
        """What slot ``index`` holds now."""
        return self._options[self._index(index)]

    def layout_text(self) -> str:
        """``layout()`` as lines ``0-63: …``."""
        return "\n".join(f"{r.start}-{r.stop - 1}: {what}" if len(r) > 1 else f"{r.start}: {what}"
                         for r, what in self.layout() if len(r))

    def _index(self, action: Any) -> int:
        try:
            index = int(np.asarray(action).reshape(()))
        except (TypeError, ValueError):
            raise ValueError(f"{type(self).__name__}: an action is a menu index (an integer), got {action!r}") from None
        if not 0 <= index < self.size:
            raise ValueError(f"{type(self).__name__}: action {index} is outside the menu 0..{self.size - 1}")
        return index

    def _refresh(self, obs: Any, info: dict[str, Any]) -> None:
        options = list(self.build_menu(obs, info))
        if len(options) != self.size:
            raise RuntimeError(f"{type(self).__name__}.build_menu returned {len(options)} slots, expected {self.size}")
        self._options = options
        self._mask = np.array([o is not None for o in options], dtype=bool)
        if not self._mask.any():
            raise RuntimeError(f"{type(self).__name__}: no slot of the menu is available (a menu must always offer one)")


def _unwrapped_env(env: gym.Env, expected: str) -> Any:
    base = env.unwrapped
    if type(base).__name__ != expected:
        raise ValueError(f"this menu is for {expected}, but the wrapped env is {type(base).__name__}")
    return base


# ====================================================================== DebugEcho
class DebugEchoMenu(ActionMenu):
    """DebugEcho-v0 as ``Discrete(V + 2)``, V = the number of distinct words of the shipped cards (12),
    the same for ``suite="train"`` and any ``task_filter``.

    Layout: ``0..V-1`` answer word ``i`` of the suite's vocabulary (sorted: ``vocabulary``), sending
    ``<answer>word</answer>``; ``V`` ``SAY hello`` (a no-op step); ``V+1`` ``FAIL``. Every slot is
    always available (the mask is all True)."""

    def __init__(self, env: gym.Env) -> None:
        _unwrapped_env(env, "DebugEchoEnv")
        from mmenvs.core import load_json, registry_path

        # every word of the shipped cards, whatever the env's suite or task_filter: one layout for training and evaluation
        tasks = load_json(registry_path("debug", "tasks.json"), "DebugEcho task suite")["tasks"]
        self.vocabulary = sorted({t["word"] for t in tasks})
        super().__init__(env, len(self.vocabulary) + 2)
        answers = [MenuOption(f"answer {w!r}", f"<answer>{w}</answer>", {"kind": "answer", "word": w}) for w in self.vocabulary]
        self._fixed = [*answers, MenuOption("SAY hello", "SAY hello", {"kind": "say"}), MenuOption("FAIL", "FAIL", {"kind": "fail"})]

    def build_menu(self, obs: Any, info: dict[str, Any]) -> list[MenuOption | None]:
        return list(self._fixed)

    def layout(self) -> list[tuple[range, str]]:
        v = len(self.vocabulary)
        return [(range(0, v), "answer the i-th word of the suite's vocabulary"), (range(v, v + 1), "SAY hello"),
                (range(v + 1, v + 2), "FAIL")]

    def unavailable_action(self, index: int) -> str:
        return f"(menu slot {index} is not available)"


# ====================================================================== VTCBench
#: Tool presets of ``VTCBenchMenu``: (tool, arguments without the image). Drawn from the reference chains
#: of the pinned suite's generators (their most used calls), plus the geometric fixes a degraded image needs.
VTC_PRESETS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("colorspace", {"target": "gray"}),
    ("colorspace", {"target": "hsv"}),
    ("blur", {"method": "median", "ksize": 3}),
    ("blur", {"method": "median", "ksize": 5}),
    ("blur", {"method": "gaussian", "ksize": 5}),
    ("denoise", {"h": 30.0, "template_window": 5, "search_window": 11}),
    ("sharpen", {"strength": 3.0, "ksize": 9}),
    ("histogram", {"method": "equalize"}),
    ("histogram", {"method": "clahe", "clip_limit": 2.0}),
    ("convertscaleabs", {"alpha": 2.0, "beta": -255.0}),
    ("convertscaleabs", {"alpha": 7.0, "beta": 0.0}),
    ("rotate", {"angle": 90.0, "clockwise": True}),
    ("rotate", {"angle": 180.0}),
    ("rotate", {"angle": 270.0, "clockwise": True}),
    ("flip", {"direction": "horizontal"}),
    ("flip", {"direction": "vertical"}),
    ("inrange_color", {"lower": [170, 90, 60], "upper": [8, 255, 255], "space": "hsv"}),  # red
    ("inrange_color", {"lower": [11, 90, 60], "upper": [19, 255, 255], "space": "hsv"}),  # orange
    ("inrange_color", {"lower": [21, 90, 60], "upper": [32, 255, 255], "space": "hsv"}),  # yellow
    ("inrange_color", {"lower": [45, 90, 60], "upper": [80, 255, 255], "space": "hsv"}),  # green
    ("inrange_color", {"lower": [85, 90, 60], "upper": [100, 255, 255], "space": "hsv"}),  # cyan
    ("inrange_color", {"lower": [105, 90, 60], "upper": [125, 255, 255], "space": "hsv"}),  # blue
    ("inrange_color", {"lower": [132, 90, 60], "upper": [148, 255, 255], "space": "hsv"}),  # purple
    ("inrange_color", {"lower": [0, 0, 90], "upper": [179, 45, 175], "space": "hsv"}),  # grey
    ("inrange_color", {"lower": [0, 0, 0], "upper": [80, 80, 80], "space": "rgb"}),  # dark
    ("threshold", {"method": "otsu"}),
    ("threshold", {"method": "otsu", "invert": True}),
    ("threshold", {"method": "binary", "threshold_value": 128.0, "invert": True}),
    ("morphology", {"operation": "open", "kernel_size": 5, "shape": "ellipse"}),
    ("connected_components", {"min_area": 20}),
    ("connected_components", {"min_area": 100}),
    ("watershed", {"marker_ratio": 0.7, "min_area": 150}),
    ("contours", {"mode": "external", "min_area": 200.0}),
    ("contour_area", {"mode": "external"}),
    ("arc_length", {"mode": "external"}),
    ("approx_poly", {"mode": "external", "epsilon_ratio": 0.02}),
    ("hough_lines", {"threshold": 40, "min_line_length": 40.0, "max_line_gap": 20.0}),
    ("canny", {"level": "medium"}),
)


class VTCBenchMenu(ActionMenu):
    """VTCBench-v0 as ``Discrete(P + C + K + 1)``: tool presets over the current image, then answers.

    Layout (defaults ``P = len(VTC_PRESETS)`` = 38, ``C = max_choices`` = 4, ``K = max_number + 1`` = 31):

    - ``0..P-1``: preset ``i`` of ``presets`` applied to the *current image* (the newest image of the
      episode: the input at reset, then each tool's output, so presets chain), sent as the JSON call
      ``{"name": tool, "arguments": {"image": <current id>, **preset}}``. Always available.
    - ``P..P+C-1``: answer choice letter ``A``, ``B``, … (available for the problem's choices only).
    - ``P+C..P+C+K-1``: answer the number ``0..max_number`` (available for open-answer counting
      problems; open text answers, such as OCR, have no menu slot and cannot be answered).
    - ``P+C+K``: answer with the text of the first numbers the last tool call reported, when the last
      call reported a count (``count``, ``num_components`` …): the "read it off the tool" answer.

    Works in ``mode="tool"`` and ``mode="code"`` (the env accepts JSON calls as dict actions in both).
    """

    COUNT_KEYS = ("count", "num_components", "num_contours", "num_lines", "num_circles", "num_keypoints")

    def __init__(self, env: gym.Env, presets: Sequence[tuple[str, dict[str, Any]]] = VTC_PRESETS, max_choices: int = 4,
                 max_number: int = 30) -> None:
        base = _unwrapped_env(env, "VTCBenchEnv")
        from mmenvs.vtc.problems import LETTERS
        from mmenvs.vtc.tools import TOOLS

        for i, (tool, arguments) in enumerate(presets):
            if tool not in TOOLS:
                raise ValueError(f"VTCBenchMenu: presets[{i}] names the unknown tool {tool!r}; tools: {', '.join(TOOLS)}")
            if "image" in arguments:
                raise ValueError(f"VTCBenchMenu: presets[{i}] sets 'image'; the menu applies presets to the current image")
        if not 1 <= max_choices <= len(LETTERS):
            raise ValueError(f"VTCBenchMenu: max_choices must be 1..{len(LETTERS)}, got {max_choices}")
        self._base = base
        self.presets = [(tool, dict(arguments)) for tool, arguments in presets]
        self.letters = LETTERS[:max_choices]
        self.max_number = int(max_number)
        super().__init__(env, len(self.presets) + len(self.letters) + self.max_number + 2)

    def layout(self) -> list[tuple[range, str]]:
        p, c, k = len(self.presets), len(self.letters), self.max_number + 1
        return [(range(0, p), "tool preset i on the current image"), (range(p, p + c), "answer choice letter A, B, …"),
                (range(p + c, p + c + k), "answer the number 0..max_number (open counting problems)"),
                (range(p + c + k, p + c + k + 1), "answer the count the last tool call reported")]

    def build_menu(self, obs: Any, info: dict[str, Any]) -> list[MenuOption | None]:
        base = self._base
        current = base.images.latest() or "img_0"
        options: list[MenuOption | None] = []
        for tool, arguments in self.presets:
            call = {"name": tool, "arguments": {"image": current, **arguments}}
            options.append(MenuOption(f"{tool}({_short(arguments)}) on {current}", call, {"kind": "tool", "tool": tool}))
        problem = base.task
        choices = list(problem.choices or [])
        for i, letter in enumerate(self.letters):
            options.append(MenuOption(f"answer {letter} ({choices[i]})", f"<answer>{letter}</answer>", {"kind": "choice"})
                           if i < len(choices) else None)
        numeric = not choices and problem.category == "counting"
        for n in range(self.max_number + 1):
            options.append(MenuOption(f"answer {n}", f"<answer>{n}</answer>", {"kind": "number"}) if numeric else None)
        count = self._reported_count(base)
        options.append(MenuOption(f"answer the reported count {count}", f"From {current}: <answer>{count}</answer>",
                                  {"kind": "reported"}) if numeric and count is not None else None)
        return options

    def _reported_count(self, base: Any) -> int | None:
        if not base.episode.results:
            return None
        numbers = base.episode.results[-1].numbers
        for key in self.COUNT_KEYS:
            value = numbers.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None

    def unavailable_action(self, index: int) -> str:
        return f"(menu slot {index} is not available)"  # neither a call nor an answer: an error observation


def _short(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in arguments.items())


def action_menu(env: gym.Env, **kwargs: Any) -> ActionMenu:
    """The menu wrapper for ``env``'s benchmark (DebugEcho, VTCBench, MacAgent or MMToolSandbox), with ``kwargs``."""
    name = type(env.unwrapped).__name__
    if name == "DebugEchoEnv":
        return DebugEchoMenu(env, **kwargs)
    if name == "VTCBenchEnv":
        return VTCBenchMenu(env, **kwargs)
    if name == "MacAgentEnv":
        from .mac_menu import MacAgentMenu

        return MacAgentMenu(env, **kwargs)
    if name == "MMToolSandboxEnv":
        from .toolsandbox_menu import MMToolSandboxMenu

        return MMToolSandboxMenu(env, **kwargs)
    raise ValueError(f"action_menu: no menu for {name}; menus exist for DebugEcho, VTCBench, MacAgent and MMToolSandbox")
