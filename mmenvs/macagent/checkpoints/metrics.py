"""Metrics: ``metric(got, expected, **options) -> bool``, registered in :data:`METRICS` by name.

A checkpoint's metric judges what its getter read; the metric spec's keys other than ``type`` and
``expected`` are the metric's keyword options (``{"type": "equals", "expected": "Hi", "ignore_case": true}``).
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from typing import Any, Callable


Metric = Callable[..., bool]
#: The metric library: name -> function(got, expected, **options) -> bool.
METRICS: dict[str, Metric] = {}
#: Metrics that take no ``expected`` from the task file.
NO_EXPECTED = {"unchanged", "file_exists", "not_exists", "truthy", "falsy"}


def metric(name: str) -> Callable[[Metric], Metric]:
    """Register a metric under ``name`` (its keyword-only parameters are the metric spec's options)."""

    def register(fn: Metric) -> Metric:
        if name in METRICS:
            raise ValueError(f"metric {name!r} is registered twice")
        METRICS[name] = fn
        return fn

    return register


def _norm_text(value: Any, ignore_case: bool, collapse_space: bool) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    text = text.strip()
    if collapse_space:
        text = " ".join(text.split())
    return text.casefold() if ignore_case else text


def _to_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        match = re.search(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", value.replace(",", ""))
        return float(match.group()) if match else None
    return None


_TRUE_WORDS = {"true", "yes", "1", "on"}
_FALSE_WORDS = {"false", "no", "0", "off", ""}


def _to_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        return True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    return None


@metric("equals")
def equals(got: Any, expected: Any, *, ignore_case: bool = False, collapse_space: bool = True) -> bool:
    """``got`` equals ``expected``. Text is compared stripped (and with runs of whitespace collapsed unless
    ``collapse_space`` is false); a number or bool expected is compared with the number/boolean read from text."""
    if got is None:
        return expected is None
    if isinstance(expected, bool):
        return _to_bool(got) is expected
    if isinstance(expected, (int, float)):
        number = _to_number(got)
        return number is not None and number == float(expected)
    if isinstance(expected, str):
        return _norm_text(got, ignore_case, collapse_space) == _norm_text(expected, ignore_case, collapse_space)
    return got == expected


@metric("not_equals")
def not_equals(got: Any, expected: Any, *, ignore_case: bool = False, collapse_space: bool = True) -> bool:
    """The negation of ``equals`` (a missing value, ``None``, counts as not equal unless ``expected`` is null)."""
    return not equals(got, expected, ignore_case=ignore_case, collapse_space=collapse_space)


def _contains_one(got: Any, item: Any, ignore_case: bool) -> bool:
    if isinstance(got, (list, tuple, set)):
        return any(equals(element, item, ignore_case=ignore_case) for element in got)
    if isinstance(got, dict):
        return any(_norm_text(k, ignore_case, True) == _norm_text(item, ignore_case, True) for k in got)
    return _norm_text(item, ignore_case, True) in _norm_text(got, ignore_case, True)


@metric("contains")
def contains(got: Any, expected: Any, *, ignore_case: bool = False) -> bool:
    """Text ``got`` contains ``expected`` as a substring (whitespace runs collapsed), or list ``got`` holds an
    element equal to it. A list ``expected`` requires every item."""
    if got is None:
        return False
    items = expected if isinstance(expected, list) else [expected]
    return all(_contains_one(got, item, ignore_case) for item in items)


@metric("not_contains")
def not_contains(got: Any, expected: Any, *, ignore_case: bool = False) -> bool:
    """None of ``expected``'s items (one value or a list) is in ``got``; a missing value (``None``) passes."""
    if got is None:
        return True
    items = expected if isinstance(expected, list) else [expected]
    return not any(_contains_one(got, item, ignore_case) for item in items)


@metric("regex")
def regex(got: Any, expected: str, *, ignore_case: bool = False, full_match: bool = False) -> bool:
    """The regular expression ``expected`` matches the text of ``got`` (anywhere, or whole if ``full_match``)."""
    if got is None:
        return False
    text = got if isinstance(got, str) else "\n".join(map(str, got)) if isinstance(got, list) else str(got)
    flags = re.IGNORECASE if ignore_case else 0
    return bool((re.fullmatch if full_match else re.search)(expected, text.strip() if full_match else text, flags | re.MULTILINE))


@metric("number_close")
def number_close(got: Any, expected: float, *, abs_tol: float = 1e-6, rel_tol: float = 0.0) -> bool:
    """The number in ``got`` (the first number in text) is within ``abs_tol`` or ``rel_tol`` of ``expected``."""
    number = _to_number(got)
    return number is not None and math.isclose(number, float(expected), abs_tol=abs_tol, rel_tol=rel_tol)


@metric("number_in_range")
def number_in_range(got: Any, expected: list[float]) -> bool:
    """The number in ``got`` lies in ``[expected[0], expected[1]]`` (inclusive)."""
    number = _to_number(got)
    return number is not None and float(expected[0]) <= number <= float(expected[1])


def _canonical(value: Any, ignore_list_order: bool) -> Any:
    if isinstance(value, dict):
        return {str(k): _canonical(v, ignore_list_order) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v, ignore_list_order) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True)) if ignore_list_order else items
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@metric("json_equal")
def json_equal(got: Any, expected: Any, *, ignore_list_order: bool = False, parse_text: bool = True) -> bool:
    """``got`` (a JSON value, or text holding one) is structurally equal to ``expected``; key order never
    matters, list order only unless ``ignore_list_order``. Text is parsed as JSON unless ``parse_text`` is
    false (set for a getter whose ``output`` is ``json``: its value is parsed already, and a JSON string
    value must not be parsed a second time)."""
    if isinstance(got, str) and parse_text:
        try:
            got = json.loads(got)
        except json.JSONDecodeError:
            return False
    return _canonical(got, ignore_list_order) == _canonical(expected, ignore_list_order)


def _as_items(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    if isinstance(value, (list, tuple, set)):
        return [_norm_text(v, False, True) for v in value]
    return [_norm_text(value, False, True)]


@metric("set_equal")
def set_equal(got: Any, expected: list[Any], *, ignore_case: bool = False) -> bool:
    """The items of ``got`` (a list, or text with one item a line) are, as a set, the items of ``expected``."""
    items = _as_items(got)
    if items is None:
        return False
    fold = (lambda s: s.casefold()) if ignore_case else (lambda s: s)
    return {fold(i) for i in items} == {fold(_norm_text(e, False, True)) for e in expected}


@metric("lines_equal")
def lines_equal(got: Any, expected: list[str] | str, *, ignore_case: bool = False) -> bool:
    """The non-blank lines of ``got`` (stripped, in order) equal ``expected``'s (a list, or text)."""
    items, wanted = _as_items(got), _as_items(expected)
    if items is None or wanted is None:
        return False
    if ignore_case:
        items, wanted = [i.casefold() for i in items], [w.casefold() for w in wanted]
    return items == wanted


@metric("length_equals")
def length_equals(got: Any, expected: int) -> bool:
    """``got`` (a list, a dict, or text counted in non-blank lines) has exactly ``expected`` items."""
    if got is None:
        return expected == 0
    items = got if isinstance(got, (list, dict)) else _as_items(got)
    return len(items) == int(expected)


@metric("one_of")
def one_of(got: Any, expected: list[Any], *, ignore_case: bool = False) -> bool:
    """``got`` equals one of the values in ``expected``."""
    return any(equals(got, option, ignore_case=ignore_case) for option in expected)


@metric("truthy")
def truthy(got: Any, expected: None = None) -> bool:
    """``got`` is true: True, a non-zero number, "yes"/"true"/"1"/"on", or a non-empty list."""
    if isinstance(got, (list, dict)):
        return bool(got)
    return _to_bool(got) is True


@metric("falsy")
def falsy(got: Any, expected: None = None) -> bool:
    """``got`` is false: None, False, 0, "no"/"false"/"0"/"off"/"", or an empty list."""
    if got is None or isinstance(got, (list, dict)):
        return not got
    return _to_bool(got) is False


def _exists_flags(got: Any) -> list[bool]:
    if isinstance(got, dict):
        return [bool(v) for v in got.values()]
    return [bool(_to_bool(got))] if not isinstance(got, list) else [bool(got)]


@metric("file_exists")
def file_exists(got: Any, expected: None = None) -> bool:
    """Every path asked about exists. Without a getter the checkpoint reads ``path_exists`` of its ``path``;
    with one, ``got`` is read as a yes/no answer (a dict of answers, or a non-empty list of found paths)."""
    flags = _exists_flags(got)
    return bool(flags) and all(flags)


@metric("not_exists")
def not_exists(got: Any, expected: None = None) -> bool:
    """No path asked about exists (the counterpart of ``file_exists``)."""
    return not any(_exists_flags(got))


@metric("unchanged")
def unchanged(got: Any, expected: Any) -> bool:
    """A guard: the value equals the one the same getter read right after setup (the env passes it as ``expected``)."""
    return got == expected


_DATE_FORMATS = (
    "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d",
    "%A, %B %d, %Y at %I:%M:%S %p", "%A, %B %d, %Y at %H:%M:%S", "%A, %B %d, %Y at %I:%M %p",
    "%A %d %B %Y at %H:%M:%S", "%A, %d %B %Y at %H:%M:%S", "%d %B %Y at %H:%M:%S", "%A, %d %B %Y", "%B %d, %Y at %I:%M:%S %p", "%B %d, %Y", "%A, %B %d, %Y", "%d/%m/%Y %H:%M",
)


def parse_datetime(value: Any) -> datetime | None:
    """A datetime read from ISO text or from the way AppleScript prints dates
    (``date "Wednesday, April 15, 2026 at 9:30:00 AM"``); ``None`` when unreadable."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.startswith("date "):
        text = text[5:].strip()
    text = text.strip('"').replace("\u202f", " ").strip()
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


@metric("datetime_equals")
def datetime_equals(got: Any, expected: str, *, tolerance_minutes: float = 0.0, date_only: bool = False) -> bool:
    """The date in ``got`` (ISO or AppleScript's long form) equals ``expected`` within ``tolerance_minutes``
    (``date_only`` compares the calendar day only)."""
    left, right = parse_datetime(got), parse_datetime(expected)
    if left is None or right is None:
        return False
    if date_only:
        return left.date() == right.date()
    return abs((left - right).total_seconds()) <= tolerance_minutes * 60
