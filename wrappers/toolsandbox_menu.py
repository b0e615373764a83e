"""``MMToolSandboxMenu``: MM-ToolSandBox as a candidate-call (option-set) menu.

The option-set formulation: the policy does not write calls; at each step it picks one of a bounded
set of candidate actions built from the state, as in text games with admissible commands or tool
benchmarks that give each query its relevant APIs. Here the candidates are complete tool calls over
the *scenario's tools* with arguments taken from *the values visible so far*; everything the menu
uses is something the agent has been shown, except which tools the scenario needs (the ToolBench-style
"relevant APIs", padded with distractor tools of the same apps).
"""

from __future__ import annotations

import functools
import json
import re
import typing
from typing import Any, Sequence

import gymnasium as gym

from .menus import ActionMenu, MenuOption, _unwrapped_env

#: Replies the menu offers (a reply moves the conversation on: the user answers, corrects, or ends it).
REPLIES = ("Done.", "Could you tell me more about what you need?")
_QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|“([^”\n]{1,200})”")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_IMAGE_PARAM = re.compile(r"image(_id)?s?$")
_RESULT = re.compile(r"Result of (\w+):\n")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+")


def _message_values(text: str) -> list[Any]:
    """The values a user message shows: quoted phrases, e-mail addresses, runs of capitalised words
    (names: "Mateo Abernathy"), numbers."""
    values: list[Any] = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    values += [m.group() for m in _EMAIL.finditer(text)]
    values += [m.group() for m in _CAPITALISED.finditer(text)]
    for m in _NUMBER.finditer(text):
        number = float(m.group())
        values.append(int(number) if number.is_integer() else number)
    return values


class MMToolSandboxMenu(ActionMenu):
    """MMToolSandbox-v0 (``mode="tool"``) as ``Discrete(T * (1 + C) + R)``.

    Candidate tools (``tools()``, fixed for the episode): the tools the scenario's reference solution
    calls (its "relevant APIs", in the toolset's names), then up to ``distractors`` other tools of the
    scenario's apps (a seeded draw, the same for the same scenario), at most ``max_tools`` = ``T`` (8).

    Visible values (``values()``, growing during the episode), most recent first, without duplicates:
    the ids of the images the agent has (``info["images"]`` so far); every string and number leaf of
    the JSON results the observations showed so far (``Result of <tool>:``; not ``search_tools``'), with
    the field name it came from; and from the user's messages the quoted phrases, e-mail addresses,
    runs of capitalised words (names) and numbers.

    Candidate calls of a tool: each required parameter gets its candidates by type (``Literal``: its
    choices; ``bool``: True, False; a parameter named ``image``/``image_id``: the image ids; a result
    field of the same name, or ``id`` for a parameter ending in ``_id``: those values first; ``str``: the
    string values; ``int``/``float``: the numbers), at most ``values_per_param`` (4) each; optional
    parameters are left out. The calls are the product of these lists in order, at most ``C =
    calls_per_tool`` (8).

    Layout: for tool ``t`` (``0 <= t < T``) slot ``t*(1+C)`` is ``search_tools`` with a query that finds
    it (available while the tool is not in the working set), slots ``t*(1+C)+1 .. t*(1+C)+C`` its
    candidate calls (available once it is callable and the call exists); then ``R = len(replies)``
    replies to the user (always available). Tools that take no required parameter have one call.
    """

    def __init__(self, env: gym.Env, *, max_tools: int = 6, calls_per_tool: int = 48, values_per_param: int = 48,
                 distractors: int = 2, replies: Sequence[str] = REPLIES, image_facts: bool = True) -> None:
        base = _unwrapped_env(env, "MMToolSandboxEnv")
        if base.mode != "tool":
            raise ValueError(f"MMToolSandboxMenu needs mode='tool' (one JSON call per step), got mode={base.mode!r}")
        if not replies:
            raise ValueError("MMToolSandboxMenu: give at least one reply")
        self._base = base
        self.max_tools, self.calls_per_tool, self.values_per_param = int(max_tools), int(calls_per_tool), int(values_per_param)
        self.distractors = int(distractors)
        self.image_facts = bool(image_facts)
        self.replies = list(replies)
        self._tools: list[str] = []
        self._search: dict[str, dict[str, Any]] = {}
        self._result_values: list[tuple[str | None, Any]] = []
        super().__init__(env, self.max_tools * (1 + self.calls_per_tool) + len(self.replies))

    def layout(self) -> list[tuple[range, str]]:
        spans, block = [], 1 + self.calls_per_tool
        for t in range(self.max_tools):
            spans.append((range(t * block, t * block + 1), f"search_tools for candidate tool {t}"))
            spans.append((range(t * block + 1, (t + 1) * block), f"candidate call c of tool {t}"))
        start = self.max_tools * block
        spans.append((range(start, start + len(self.replies)), "reply r to the user"))
        return spans

    # ------------------------------------------------------------------ state
    def tools(self) -> list[str]:
        """The candidate tools of this episode, in slot order."""
        return list(self._tools)

    def _choose_tools(self) -> None:
        import numpy as np

        from mmenvs.toolsandbox.catalog import full_name_map

        base, task = self._base, self._base.task
        names = full_name_map(base.toolset)
        relevant = [n for n in (names.get(t, t) for t in task.reference_tools()) if n in base.tools]
        relevant = list(dict.fromkeys(relevant))
        apps = set(task.metadata.get("apps", ())) | {base.tools[n].app for n in relevant}
        others = sorted(n for n, tool in base.tools.items() if tool.app in apps and n not in relevant)
        seed = int.from_bytes(task.id.encode("utf-8")[:8].ljust(8, b"\0"), "little")
        rng = np.random.default_rng(seed)
        picks = [others[i] for i in rng.permutation(len(others))[: self.distractors]] if others else []
        self._tools = (relevant + picks)[: self.max_tools]
        self._search = {name: self._query_for(name) for name in self._tools}

    def _query_for(self, name: str) -> dict[str, Any]:
        query = " ".join(re.findall(r"[a-z0-9]+", name.lower()))
        ranked = [n for _, n in self._base.search.rank(query)]
        page = ranked.index(name) // 5 if name in ranked else 0
        return {"query": query, "page": page}

    def values(self) -> list[tuple[str | None, Any]]:
        """The visible values, most recent first: (the result field, or "user", and the value)."""
        found: list[tuple[str | None, Any]] = []
        if self.image_facts:
            for image_id in reversed(self._images()):  # oldest first: the newest image's facts end up first
                facts = self._facts(image_id)
                if facts:
                    _leaves(facts, None, found)
        found.extend(self._result_values)
        for message in self._base.episode.transcript:
            if message.get("role") == "user" and isinstance(message.get("text"), str):
                found.extend(("user", v) for v in _message_values(message["text"]))
        seen: set[tuple[Any, ...]] = set()
        ordered: list[tuple[str | None, Any]] = []
        for source, value in reversed(found):
            key = (source, type(value).__name__, value)  # 1 and 1.0 and "1" stay apart
            if key not in seen:
                seen.add(key)
                ordered.append((source, value))
        return ordered

    def _note_result(self, text: Any) -> None:
        """Keep the leaves of a tool result the observation shows (``Result of <tool>:`` + JSON)."""
        match = _RESULT.match(text) if isinstance(text, str) else None
        if match is None or match.group(1) == "search_tools":  # search results describe tools, not the world
            return
        try:
            result, _ = json.JSONDecoder().raw_decode(text, match.end())
        except ValueError:
            return
        _leaves(result, None, self._result_values)

    def _facts(self, image_id: str) -> Any:
        """What a scenario image shows (the generator's ``facts`` of it), or None for other images."""
        task = self._base.task
        for key, spec in task.images.items():
            if task.image_id(key) == image_id:
                return spec.get("facts") if isinstance(spec, dict) else None
        return None

    def _images(self) -> list[str]:
        from mmenvs.toolsandbox.world import _image_order

        world = self._base.world
        return sorted(world.visible, key=_image_order, reverse=True) if world is not None else []

    def calls(self, name: str) -> list[dict[str, Any]]:
        """The candidate calls of tool ``name`` now (at most ``calls_per_tool``)."""
        tool = self._base.tools[name]
        values, images = self.values(), self._images()
        lists, optional = [], {}
        for param in tool.params:
            if param.required:
                candidates = _candidates(param, values, images)[: self.values_per_param]
                if not candidates:
                    return []
                lists.append([(param.name, v) for v in candidates])
            else:
                matched = _candidates(param, values, images, matching_only=True)
                if matched:
                    optional[param.name] = matched[0]
        while lists and _product_size(lists) > MAX_COMBINATIONS:  # shorten the longest list until the product is small
            longest = max(range(len(lists)), key=lambda i: len(lists[i]))
            lists[longest] = lists[longest][:-1]
        picks = _best_index_tuples([len(options) for options in lists], self.calls_per_tool)  # best-ranked values first
        return [{**dict(lists[k][i] for k, i in enumerate(indices)), **optional} for indices in picks]

    # ------------------------------------------------------------------ the menu
    def build_menu(self, obs: Any, info: dict[str, Any]) -> list[MenuOption | None]:
        if self._base.steps == 0:  # a new episode
            self._choose_tools()
            self._result_values = []
        else:
            self._note_result(obs.get("text") if isinstance(obs, dict) else None)
        working = self._base.search.working
        options: list[MenuOption | None] = []
        for t in range(self.max_tools):
            if t >= len(self._tools):
                options.extend([None] * (1 + self.calls_per_tool))
                continue
            name = self._tools[t]
            callable_now = name in working
            search = self._search[name]
            options.append(None if callable_now else MenuOption(
                f"search_tools({search['query']!r}, page={search['page']}) to find {name}",
                json.dumps({"name": "search_tools", "arguments": search}), {"kind": "search", "tool": name}))
            calls = self.calls(name) if callable_now else []
            for c in range(self.calls_per_tool):
                if c < len(calls):
                    call = {"name": name, "arguments": calls[c]}
                    options.append(MenuOption(f"{name}({_short(calls[c])})", json.dumps(call, ensure_ascii=False),
                                              {"kind": "call", "tool": name, "arguments": calls[c]}))
                else:
                    options.append(None)
        for reply in self.replies:
            options.append(MenuOption(f"reply {reply!r}", {"reply": reply}, {"kind": "reply"}))
        return options

    def unavailable_action(self, index: int) -> str:
        # A call of a tool no toolset has: the env answers with an error (no reply reaches the user).
        return json.dumps({"name": "menu_slot_unavailable", "arguments": {"slot": index}})


def _leaves(value: Any, key: str | None, out: list[tuple[str | None, Any]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _leaves(v, str(k), out)
    elif isinstance(value, list):
        for v in value:
            _leaves(v, key, out)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float)) or (isinstance(value, str) and 2 <= len(value) <= 200):
        out.append((key, value))


#: Argument combinations a tool's candidate calls are chosen from (the value lists are shortened to fit).
MAX_COMBINATIONS = 4096


def _product_size(lists: list[list[Any]]) -> int:
    size = 1
    for options in lists:
        size *= len(options)
    return size


def _best_index_tuples(sizes: list[int], limit: int) -> list[tuple[int, ...]]:
    """The first ``limit`` index tuples (``0 <= t[k] < sizes[k]``) in the order of (sum of the indices, the
    tuple): the combinations of the best-ranked values first. Enumerated by sum, without building the product."""
    if not sizes:
        return [()]
    out: list[tuple[int, ...]] = []

    def fill(prefix: tuple[int, ...], k: int, left: int) -> None:
        if len(out) >= limit:
            return
        if k == len(sizes) - 1:
            if left < sizes[k]:
                out.append((*prefix, left))
            return
        rest = sum(size - 1 for size in sizes[k + 1:])  # the most the later indices can add up to
        for i in range(max(0, left - rest), min(sizes[k] - 1, left) + 1):
            fill((*prefix, i), k + 1, left - i)

    for total in range(sum(size - 1 for size in sizes) + 1):
        fill((), 0, total)
        if len(out) >= limit:
            break
    return out[:limit]


@functools.lru_cache(maxsize=4096)
def _words(name: str | None) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+", (name or "").lower())) - {"id", "ids", "of", "the", "a"}


def _matches(param: str, source: str | None) -> int:
    """How well a value's source field names a parameter: 2 the same name (or ``id`` for ``*_id``), 1 a
    shared word (``phone`` for ``phone_number``), 0 none."""
    if source is None or source == "user":
        return 0
    if source == param or (param.endswith("_id") and source == "id"):
        return 2
    return 1 if _words(param) & _words(source) else 0


def _candidates(param: Any, values: list[tuple[str | None, Any]], images: list[str], matching_only: bool = False) -> list[Any]:
    """Candidate values of ``param``: by type, the values whose source field matches its name first
    (then, unless ``matching_only``, the other values of the type, most recent first)."""
    annotation = param.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", typing.Union)) and len(args) == 1:
        annotation, origin, args = args[0], typing.get_origin(args[0]), list(typing.get_args(args[0]))
    if origin is typing.Literal:
        choices = list(args)
        if not matching_only:
            return choices
        return [v for k, v in values if _matches(param.name, k) and v in choices][:1]
    if annotation is bool:
        return [] if matching_only else [True, False]
    if annotation is str and _IMAGE_PARAM.search(param.name):
        return [] if matching_only else list(images)
    if annotation in (int, float):
        kinds: tuple[type, ...] = (int,) if annotation is int else (int, float)
        typed = [(k, v) for k, v in values if isinstance(v, kinds) and not isinstance(v, bool)]
    elif annotation is str:
        typed = [(k, v) for k, v in values if isinstance(v, str)]
    else:
        return []
    ranked = sorted(range(len(typed)), key=lambda i: (-_matches(param.name, typed[i][0]), i))  # stable: recency within a rank
    picked = [typed[i][1] for i in ranked if not matching_only or _matches(param.name, typed[i][0])]
    return list(dict.fromkeys(picked))


def _short(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)[:40]}" for k, v in arguments.items())
