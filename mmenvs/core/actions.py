"""Parsing what an LLM (or any agent) emits into structured actions.

Every benchmark's action is a string; these helpers pull out the parts the envs understand:
fenced code blocks, JSON tool calls (tolerant of the usual LLM wrappings), ``<answer>`` tags and
the control words DONE / FAIL / WAIT. Each failure raises an ``ActionError`` whose ``kind`` names
the failure mode and whose message tells the agent what to send instead.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping


class ActionError(ValueError):
    """An action the env cannot carry out. ``kind`` is a stable short code, the message is for the agent."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class CodeBlock:
    """A fenced code block: its language tag (lower-cased, '' if none) and its body."""

    language: str
    code: str


@dataclass(frozen=True)
class ToolCall:
    """One tool call: a tool name and its keyword arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


CONTROL_WORDS = ("DONE", "FAIL", "WAIT")
Control = Literal["DONE", "FAIL", "WAIT"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+\-.]*)[^\n]*\n(.*?)```", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_TOOL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL | re.IGNORECASE)
_MAX_JSON_STARTS = 64
_LANGUAGE_ALIASES = {"py": "python", "python3": "python", "sh": "bash", "shell": "bash", "zsh": "bash", "console": "bash"}


def code_blocks(text: str) -> list[CodeBlock]:
    """All fenced blocks in ``text`` in order, language tags normalised (py→python, sh/shell/zsh→bash)."""
    blocks = []
    for match in _FENCE.finditer(text):
        language = match.group(1).lower()
        blocks.append(CodeBlock(_LANGUAGE_ALIASES.get(language, language), match.group(2)))
    return blocks


def extract_code(text: str, languages: tuple[str, ...] = ("python",), *, allow_untagged: bool = True) -> CodeBlock | None:
    """The single fenced block in one of ``languages`` (or untagged), or ``None`` when there is no fence.

    Raises ``ActionError`` for an unclosed fence, for a block in another language, and for several
    candidate blocks (the agent should send one block per step).
    """
    blocks = code_blocks(text)
    if not blocks:
        if text.count("```") % 2 == 1:
            raise ActionError("unclosed_code_block", "Your code block is not closed: end it with a line of three backticks (```).")
        return None
    wanted = [b for b in blocks if b.language in languages or (allow_untagged and b.language == "")]
    if not wanted:
        found = ", ".join(sorted({b.language or "untagged" for b in blocks}))
        raise ActionError(
            "wrong_code_language",
            f"Found a code block in {found}, but this environment runs {' or '.join(languages)}: "
            f"use ```{languages[0]} … ```.",
        )
    if len(wanted) > 1:
        raise ActionError("multiple_code_blocks", f"Found {len(wanted)} code blocks; send exactly one per step.")
    return wanted[0]


def extract_answer(text: str) -> str | None:
    """The text inside the last ``<answer>…</answer>``, stripped; ``None`` without the tag.

    Raises ``ActionError`` if ``<answer>`` is opened but never closed.
    """
    matches = _ANSWER.findall(text)
    if matches:
        return matches[-1].strip()
    if "<answer>" in text.lower():
        raise ActionError("unclosed_answer", "Your <answer> tag is not closed: write <answer>your answer</answer>.")
    return None


def control_word(text: str) -> Control | None:
    """``DONE``, ``FAIL`` or ``WAIT`` when the whole action is that word (case-insensitive, optional
    trailing punctuation or a code fence around it); otherwise ``None``."""
    stripped = text.strip().strip("`").strip().rstrip(".!").strip().upper()
    return stripped if stripped in CONTROL_WORDS else None  # type: ignore[return-value]


def parse_tool_call(action: str | dict[str, Any], *, max_argument_chars: int | None = None) -> ToolCall:
    """Parse one tool call from a dict or from text.

    Accepted: ``{"name": ..., "arguments": {...}}`` (also ``"parameters"``/``"args"``/``"param"`` for the
    arguments, arguments given as a JSON string, OpenAI's ``{"function": {...}}`` nesting), a list
    holding exactly one such call, inside ``<tool_call>`` tags or a ```json fence, or with prose around it.
    An argument whose JSON form is longer than ``max_argument_chars`` (default: the episode budget's
    ``tool_argument_chars``) is refused with ``BudgetExceeded`` before any tool validates it.
    """
    call = _parse_tool_call(action)
    check_argument_sizes(call.name, call.arguments, max_argument_chars)
    return call


def check_argument_sizes(tool: str, arguments: Any, max_chars: int | None = None) -> None:
    """Refuse (``BudgetExceeded`` naming ``tool_argument_chars``) a tool argument whose JSON form is longer
    than ``max_chars`` (default: the default budget's): a string by its length, a list or dict by its
    JSON size, counted without building the JSON and stopping at the limit."""
    from .budget import DEFAULT_BUDGET, check_limit  # budget imports this module

    limit = DEFAULT_BUDGET.tool_argument_chars if max_chars is None else int(max_chars)
    items = arguments.items() if isinstance(arguments, Mapping) else enumerate(arguments if isinstance(arguments, (list, tuple)) else ())
    for key, value in items:
        size = json_size(value, limit)
        if size > limit:
            check_limit("tool_argument_chars", limit, size, f"{tool}: the argument {str(key)[:64]!r} (at least {size:,} characters as JSON)")


def json_size(value: Any, limit: int | None = None) -> int:
    """About how many characters ``value`` takes as JSON (strings by length plus quotes, escapes not
    counted), walked without building the text. Stops once past ``limit`` (returning the count so far, a
    lower bound above the limit), so a gigabyte argument costs little to measure; a cycle counts as past
    any limit."""
    bound = math.inf if limit is None else int(limit)
    total = 0
    stack: list[Any] = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, (bool, type(None))):
            total += 5
        elif isinstance(item, int):
            total += len(str(item)) if -10**18 < item < 10**18 else item.bit_length() // 3 + 1  # no str() of a huge int
        elif isinstance(item, float):
            total += 24
        elif isinstance(item, Mapping):
            if id(item) in seen:
                return int(min(bound, 2**62)) + 1
            seen.add(id(item))
            total += 2 + 2 * len(item)
            for key, member in item.items():
                stack.append(key if isinstance(key, str) else str(key)[:64])
                stack.append(member)
        elif isinstance(item, (list, tuple)):
            if id(item) in seen:
                return int(min(bound, 2**62)) + 1
            seen.add(id(item))
            total += 2 + len(item)
            stack.extend(item)
        else:  # numpy arrays and other objects a code-mode call may pass
            nbytes = getattr(item, "nbytes", None)
            total += int(nbytes) * 4 if isinstance(nbytes, int) else 24
        if total > bound:
            return total
    return total


#: What one logged string or list keeps at most (``clip_for_log``).
LOG_STRING_CHARS = 2_000
LOG_ITEMS = 64
_LOG_DEPTH = 8


def clip_for_log(value: Any, max_string: int = LOG_STRING_CHARS, max_items: int = LOG_ITEMS, _depth: int = 0) -> Any:
    """A copy of ``value`` small enough for a call log: long strings cut with a marker saying how much
    was left out, long lists and dicts cut to ``max_items``, deep nesting and other objects summarised.
    Logs keep what an agent sent or got for judges and metrics; they must not keep a gigabyte of it."""
    if isinstance(value, str):
        return value if len(value) <= max_string else value[:max_string] + f"…[{len(value) - max_string:,} more characters not logged]"
    if value is None or isinstance(value, (bool, int, float)):
        if isinstance(value, int) and not isinstance(value, bool) and not -10**18 < value < 10**18:
            return f"[an integer of {value.bit_length():,} bits]"
        return value
    if _depth >= _LOG_DEPTH:
        return f"[{type(value).__name__} nested too deeply to log]"
    if isinstance(value, Mapping):
        out = {}
        for index, (key, member) in enumerate(value.items()):
            if index >= max_items:
                out["…"] = f"[{len(value) - max_items:,} more entries not logged]"
                break
            out[clip_for_log(key if isinstance(key, str) else str(key)[:max_string], max_string, max_items, _depth + 1)] = \
                clip_for_log(member, max_string, max_items, _depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        kept = [clip_for_log(member, max_string, max_items, _depth + 1) for member in value[:max_items]]
        if len(value) > max_items:
            kept.append(f"[{len(value) - max_items:,} more items not logged]")
        return kept
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return f"[{type(value).__name__} of shape {shape}]"
    return clip_for_log(repr(value)[: max_string + 1], max_string, max_items, _depth + 1)


def _parse_tool_call(action: str | dict[str, Any]) -> ToolCall:
    if isinstance(action, dict):
        return _tool_call_from_obj(action)
    if not isinstance(action, str):
        raise ActionError("bad_action_type", f"Expected a string or a dict, got {type(action).__name__}.")
    candidates: list[str] = [m.strip() for m in _TOOL_TAG.findall(action)]
    candidates += [b.code for b in code_blocks(action) if b.language in ("json", "")]
    candidates.append(action)
    last_error: ActionError | None = None
    for candidate in candidates:
        for obj in _json_objects(candidate):
            try:
                return _tool_call_from_obj(obj)
            except ActionError as error:  # a JSON value that is not a call: keep looking
                last_error = error
    if last_error is not None:
        raise last_error
    if "{" in action or "[" in action:
        raise ActionError(
            "invalid_json",
            "Could not parse your tool call as JSON. Send one object like "
            '{"name": "tool_name", "arguments": {"param": "value"}} with double-quoted keys and strings.',
        )
    raise ActionError(
        "no_tool_call",
        'No tool call found. Send one JSON object like {"name": "tool_name", "arguments": {...}}.',
    )


def _tool_call_from_obj(obj: Any) -> ToolCall:
    if isinstance(obj, list):
        if len(obj) != 1:
            raise ActionError("multiple_tool_calls", f"Found a list of {len(obj)} tool calls; send exactly one call per step.")
        obj = obj[0]
    if not isinstance(obj, dict):
        raise ActionError("not_a_tool_call", f"A tool call must be a JSON object, got {type(obj).__name__}.")
    if "function" in obj and isinstance(obj["function"], dict):  # OpenAI-style nesting
        obj = obj["function"]
    name = obj.get("name", obj.get("tool"))
    if not isinstance(name, str) or not name.strip():
        raise ActionError("missing_tool_name", 'The tool call has no "name": give the tool name as a string, e.g. {"name": "crop", …}.')
    arguments: Any = {}
    for key in ("arguments", "parameters", "args", "param", "params"):
        if key in obj:
            arguments = obj[key]
            break
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            raise ActionError("invalid_arguments_json", f"The arguments of {name!r} are a string that is not valid JSON.") from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ActionError("bad_arguments", f'The "arguments" of {name!r} must be a JSON object of parameter names to values, got {type(arguments).__name__}.')
    return ToolCall(name.strip(), arguments)


def _json_objects(text: str) -> list[Any]:
    """Every JSON object or array that can be decoded starting at some '{' or '[' in ``text``, in order."""
    decoder = json.JSONDecoder()
    found = []
    index = 0
    # Bounded so a hostile megabyte of brackets costs milliseconds, not minutes.
    for _attempt in range(_MAX_JSON_STARTS):
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            return found
        start = min(starts)
        try:
            obj, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            index = start + 1
            continue
        found.append(obj)
        index = end
    return found
