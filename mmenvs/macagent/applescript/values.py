"""AppleScript values in Python, their coercions, comparisons and the two printed forms.

Mapping: ``text`` → ``str``, ``integer`` → ``int``, ``real`` → ``float``, ``boolean`` → ``bool``,
``list`` → ``list`` (mutable and shared, as in AppleScript), ``record`` → ``dict`` (keys are the
lower-case labels), ``date`` → naive ``datetime``, ``missing value`` → ``None``; constants and
class names (``March``, ``yes``, ``text``, ``note``) → :class:`Constant`; application objects →
:class:`AppObject`; ``application "X"`` → :class:`Application`.

Two printed forms exist, as in real AppleScript:

* :func:`format_result` — what ``osascript`` prints for a result (human readable: strings without
  quotes, lists as ``a, b, c``, records as ``name:x, body:y``);
* :func:`source_form` — the literal form used inside error messages (``{1, "a"}``, ``date "…"``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from .errors import ERR_COERCION, ERR_OUT_OF_MEMORY, AppleScriptError

MAX_INTEGER = 536870911        # AppleScript integers are 30-bit; bigger results become reals
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class Constant:
    """An enumerated constant or a class name used as a value (``March``, ``yes``, ``text``, ``note``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Constant) and other.name.lower() == self.name.lower()

    def __hash__(self) -> int:
        return hash(("Constant", self.name.lower()))

    def __repr__(self) -> str:
        return f"Constant({self.name!r})"


@dataclass(frozen=True)
class Application:
    """``application "Notes"`` as a value."""

    name: str


@dataclass(eq=False)
class AppObject:
    """A resolved reference to an object inside a scriptable application.

    ``desc`` is how the script reached it (``note "Groceries"``), used in error messages the way the
    real runtime echoes the failing specifier.
    """

    app_name: str
    app: Any
    ref: Any
    desc: str = ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AppObject) and other.app_name == self.app_name and other.ref == self.ref

    def __hash__(self) -> int:
        return hash((self.app_name, self.ref))


class RichText(str):
    """Text an app hands out that is also one of its objects (Pages' ``body text``, Keynote's ``object
    text``): it reads as plain text everywhere (printing, comparing, ``&``), while its ``characters``,
    ``words`` and ``paragraphs`` and properties such as ``color``, ``font`` and ``size`` are asked of the
    app. ``ref`` is the app's handle of the text; the interpreter binds it to the app (:class:`BoundText`)."""

    ref: Any

    def __new__(cls, text: str, ref: Any) -> "RichText":
        obj = super().__new__(cls, text)
        obj.ref = ref
        return obj


class BoundText(str):
    """A :class:`RichText` inside a running script: the text, and ``obj``, the app object it is."""

    obj: AppObject

    def __new__(cls, text: str, obj: AppObject) -> "BoundText":
        value = super().__new__(cls, text)
        value.obj = obj
        return value


#: properties of rich text that are the text's own (``length of body text``), not asked of the app
TEXT_VALUE_PROPERTIES = frozenset({"length", "quoted form", "id", "posix path", "class"})


@dataclass(eq=False)
class ItemRef:
    """``item i of <list>``: the loop variable of ``repeat with x in <list>`` is such a reference.

    As in real AppleScript, most operations see through it, but ``=``/``≠`` do not (compare
    ``contents of x`` instead), and a result that is one prints as ``item 1 of {…}``.
    """

    items: list
    index: int  # 1-based

    def get(self) -> Any:
        return self.items[self.index - 1]


@dataclass(frozen=True)
class FileRef:
    """``POSIX file "/x"`` / ``alias`` / the result of ``path to desktop``: a path on the (simulated) disk."""

    path: str
    kind: str = "file"  # "file" or "alias"

    def hfs(self) -> str:
        parts = [p for p in self.path.split("/") if p]
        text = "Macintosh HD:" + ":".join(parts)
        if self.path.endswith("/") and parts:
            text += ":"
        return text


def deref(value: Any) -> Any:
    while isinstance(value, ItemRef):
        value = value.get()
    return value


# ---------------------------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------------------------

def norm_number(value: int | float) -> int | float:
    """Integers past AppleScript's range turn into reals, as the real runtime does."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        return float(value)
    return value


def format_real(x: float) -> str:
    """AppleScript's display of reals: ``2.0``, ``3.333333333333``, ``1.0E+4``, ``1.0E-5``."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0:
        return "0.0"
    ax = abs(x)
    if ax >= 1e4 or ax < 1e-4:
        exp = math.floor(math.log10(ax))
        mant = x / 10 ** exp
        if abs(mant) >= 10:  # float rounding at the boundary
            mant /= 10
            exp += 1
        text = f"{mant:.12g}"
        if "." not in text:
            text += ".0"
        return f"{text}E{'+' if exp >= 0 else '-'}{abs(exp)}"
    # 12 decimal places, trailing zeros dropped, like the real runtime (10 / 3 → 3.333333333333)
    text = f"{x:.12f}".rstrip("0")
    if text.endswith("."):
        text += "0"
    return text


# ---------------------------------------------------------------------------------------------
# dates
# ---------------------------------------------------------------------------------------------

def format_date(d: datetime) -> str:
    return f"{date_string(d)} at {time_string(d)}"


def date_string(d: datetime) -> str:
    return f"{WEEKDAYS[d.weekday()]}, {d.day} {MONTHS[d.month - 1]} {d.year}"


def short_date_string(d: datetime) -> str:
    return f"{d.day:02d}/{d.month:02d}/{d.year:04d}"


def time_string(d: datetime) -> str:
    return f"{d.hour:02d}:{d.minute:02d}:{d.second:02d}"


_MONTH_LOOKUP = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}
_MONTH_LOOKUP.update({m.lower()[:3]: i + 1 for i, m in enumerate(MONTHS)})
_MONTH_LOOKUP["sept"] = 9
_WEEKDAY_WORDS = {w.lower() for w in WEEKDAYS} | {w.lower()[:3] for w in WEEKDAYS}
_TIME_RE = re.compile(r"(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?\s*([ap]\.?m\.?)?", re.I)
_ISO_RE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](.*))?$")


def parse_date(text: str, now: datetime) -> datetime:
    """Parse a date the way ``date "…"`` does (lenient about the format, as AppleScript is).

    Accepts ``Monday, 3 March 2025 at 10:00:00``, ``3 March 2025 10:00``, ``March 3, 2025 10:00 AM``,
    ``2025-03-03 10:00``, ``03/03/2025`` (day/month/year), a bare time (today at that time) and a
    date without time (midnight). Raises the ``Invalid date and time`` error otherwise.
    """
    raw = text.strip()
    bad = AppleScriptError(f"Invalid date and time date {raw}.", -30720)
    if not raw:
        raise bad
    iso = _ISO_RE.match(raw)
    hour = minute = second = None
    day = month = year = None
    rest = raw
    if iso:
        year, month, day = int(iso.group(1)), int(iso.group(2)), int(iso.group(3))
        rest = iso.group(4) or ""
    tm = _TIME_RE.search(rest)
    if tm:
        hour, minute, second = int(tm.group(1)), int(tm.group(2)), int(tm.group(3) or 0)
        ampm = (tm.group(4) or "").replace(".", "").lower()
        if ampm:
            if not 1 <= hour <= 12:
                raise bad
            hour = hour % 12 + (12 if ampm == "pm" else 0)
        rest = rest[:tm.start()] + " " + rest[tm.end():]
    if not iso:
        words = re.findall(r"[A-Za-z]+|\d+", rest)
        nums: list[int] = []
        for w in words:
            lw = w.lower()
            if w.isdigit():
                nums.append(int(w))
            elif lw in _MONTH_LOOKUP:
                if month is not None:
                    raise bad
                month = _MONTH_LOOKUP[lw]
            elif lw in _WEEKDAY_WORDS or lw in {"at", "of", "the", "st", "nd", "rd", "th"}:
                continue
            else:
                raise bad
        if month is not None:
            for n in nums:
                if n > 31 or (day is not None and year is None):
                    if year is not None:
                        raise bad
                    year = n
                elif day is None:
                    day = n
                else:
                    raise bad
        elif nums:
            if len(nums) != 3:
                raise bad
            if nums[0] > 31:        # year/month/day
                year, month, day = nums
            else:                   # day/month/year (the locale this simulator uses)
                day, month, year = nums
        if year is not None and year < 100:
            year += 2000
        if day is None and month is None and year is None:
            if hour is None:
                raise bad
            year, month, day = now.year, now.month, now.day
        if year is None:
            year = now.year
        if day is None:
            day = 1
        if month is None:
            raise bad
    try:
        return datetime(year, month, day, hour or 0, minute or 0, second or 0)
    except (ValueError, TypeError):
        raise bad from None


# ---------------------------------------------------------------------------------------------
# printing
# ---------------------------------------------------------------------------------------------

def describe_object(obj: AppObject) -> str:
    describe = getattr(obj.app, "describe", None)
    text = describe(obj.ref) if describe is not None else None
    if text:
        return text
    return f"{obj.ref.cls} id {source_form(obj.ref.id)} of application \"{obj.app_name}\""


def source_form(value: Any) -> str:
    """The AppleScript literal for a value (as echoed in error messages and by ``-s s``)."""
    if isinstance(value, ItemRef):
        return f"item {value.index} of {source_form(value.items)}"
    if value is None:
        return "missing value"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_real(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "{" + ", ".join(source_form(v) for v in value) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}:{source_form(v)}" for k, v in value.items()) + "}"
    if isinstance(value, datetime):
        return f'date "{format_date(value)}"'
    if isinstance(value, Constant):
        return value.name
    if isinstance(value, Application):
        return f'application "{value.name}"'
    if isinstance(value, AppObject):
        return describe_object(value)
    if isinstance(value, FileRef):
        return f'{value.kind} "{value.hfs()}"'
    return repr(value)


def format_result(value: Any, top: bool = True) -> str:
    """What ``osascript`` prints for a script result (its default, human-readable form). An app may
    give an object its human-readable form with ``display_form(ref)`` (unquoted, without ``of
    application``, as osascript prints Keynote's ``theme id Application/20_BasicBlack/Standard``)."""
    if isinstance(value, ItemRef):
        return source_form(value)
    if isinstance(value, AppObject):
        display = getattr(value.app, "display_form", None)
        text = display(value.ref) if display is not None else None
        if text:
            return text
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(format_result(v, top=False) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}:{format_result(v, top=False)}" for k, v in value.items())
    if isinstance(value, datetime):
        return format_date(value) if top else f"date {format_date(value)}"
    if isinstance(value, FileRef):
        return f"{value.kind} {value.hfs()}"
    return source_form(value)


# ---------------------------------------------------------------------------------------------
# classes, coercion, comparison
# ---------------------------------------------------------------------------------------------

def class_name(value: Any) -> str:
    value = deref(value)
    if value is None:
        return "missing value"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "record"
    if isinstance(value, datetime):
        return "date"
    if isinstance(value, Constant):
        return "constant" if value.name[:1].islower() else "class"
    if isinstance(value, Application):
        return "application"
    if isinstance(value, AppObject):
        return value.ref.cls
    if isinstance(value, FileRef):
        return "«class furl»" if value.kind == "file" else "alias"
    return "item"


TEXT_TYPES = {"text", "string", "unicode text", "styled text"}
NUMBER_TYPES = {"integer", "real", "number"}


def coercion_error(value: Any, type_name: str) -> AppleScriptError:
    return AppleScriptError(f"Can’t make {source_form(value)} into type {type_name}.", ERR_COERCION,
                            offending=value)


def _number_from_text(text: str) -> int | float | None:
    t = text.strip()
    if re.fullmatch(r"[+-]?\d+", t):
        return norm_number(int(t))
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
        return float(t)
    return None


def coerce(value: Any, type_name: str, delimiters: list[str] | None = None,
           now: datetime | None = None, max_len: int = 10_000_000) -> Any:
    """``value as <type_name>`` with AppleScript's rules (``delimiters`` = text item delimiters)."""
    value = deref(value)
    t = type_name.lower()
    if t in TEXT_TYPES:
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return format_real(value)
        if isinstance(value, datetime):
            return format_date(value)
        if isinstance(value, Constant):
            return value.name
        if value is None:
            return "missing value"
        if isinstance(value, FileRef):
            return value.hfs()
        if isinstance(value, list):
            sep = (delimiters or [""])[0]
            parts = [coerce(v, "text", delimiters, now, max_len) for v in value]
            if sum(len(p) for p in parts) + len(sep) * len(parts) > max_len:
                raise AppleScriptError("Out of memory.", ERR_OUT_OF_MEMORY)
            return sep.join(parts)
        raise coercion_error(value, "text")
    if t in NUMBER_TYPES:
        if isinstance(value, bool):
            if t == "integer":
                return 1 if value else 0
            raise coercion_error(value, t)
        if isinstance(value, (int, float)):
            if t == "integer":
                if isinstance(value, float):
                    if math.isnan(value) or math.isinf(value) or abs(value) > MAX_INTEGER:
                        raise coercion_error(value, "integer")
                    return int(round(value))
                return value
            if t == "real":
                return float(value)
            return value
        if isinstance(value, str):
            n = _number_from_text(value)
            if n is None:
                raise coercion_error(value, t)
            return coerce(n, t)
        if isinstance(value, list) and len(value) == 1:
            return coerce(value[0], t, delimiters, now, max_len)
        if isinstance(value, Constant) and value.name in MONTHS and t in ("integer", "number"):
            return MONTHS.index(value.name) + 1
        if isinstance(value, Constant) and value.name in WEEKDAYS and t in ("integer", "number"):
            return (WEEKDAYS.index(value.name) + 1) % 7 + 1  # Sunday is 1
        raise coercion_error(value, t)
    if t == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if isinstance(value, list) and len(value) == 1:
            return coerce(value[0], t, delimiters, now, max_len)
        raise coercion_error(value, "boolean")
    if t == "list":
        if isinstance(value, list):
            return value
        if isinstance(value, dict):
            return list(value.values())
        return [value]
    if t == "record":
        if isinstance(value, dict):
            return value
        raise coercion_error(value, "record")
    if t == "date":
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            return parse_date(value, now or datetime(2000, 1, 1))
        raise coercion_error(value, "date")
    if t in ("alias", "file", "«class furl»", "posix file"):
        if isinstance(value, FileRef):
            return FileRef(value.path, "alias" if t == "alias" else "file")
        if isinstance(value, str):
            return FileRef(hfs_to_posix(value), "alias" if t == "alias" else "file")
        raise coercion_error(value, t)
    if t == "class" or t == "constant":
        if isinstance(value, Constant):
            return value
        raise coercion_error(value, t)
    if t in ("item", "anything"):
        return value
    if t == class_name(value):
        return value
    raise coercion_error(value, t)


def hfs_to_posix(path: str) -> str:
    """``Macintosh HD:Users:me:`` → ``/Users/me/``; a path already in POSIX form stays."""
    if ":" not in path or path.startswith("/"):
        return path
    parts = path.split(":")
    rest = parts[1:]
    out = "/" + "/".join(p for p in rest if p)
    if path.endswith(":") and out != "/":
        out += "/"
    return out


def fold(text: str, case_sensitive: bool) -> str:
    return text if case_sensitive else text.casefold()


def values_equal(a: Any, b: Any, case_sensitive: bool = False) -> bool:
    """AppleScript ``=``: no coercion across classes (``1 = "1"`` is false), text ignores case."""
    if isinstance(a, ItemRef) or isinstance(b, ItemRef):
        return a is b or (isinstance(a, ItemRef) and isinstance(b, ItemRef)
                          and a.items is b.items and a.index == b.index)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return fold(a, case_sensitive) == fold(b, case_sensitive)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(deref(x), deref(y), case_sensitive) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        fa = {k.casefold(): v for k, v in a.items()}
        fb = {k.casefold(): v for k, v in b.items()}
        return fa.keys() == fb.keys() and all(values_equal(fa[k], fb[k], case_sensitive) for k in fa)
    if type(a) is not type(b):
        return False
    return a == b


def compare(a: Any, b: Any, case_sensitive: bool = False) -> int:
    """Ordering for ``<``/``>``: the right operand is coerced to the left operand's class."""
    a, b = deref(a), deref(b)
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        b = coerce(b, "number")
        return (a > b) - (a < b)
    if isinstance(a, str):
        b = fold(coerce(b, "text"), case_sensitive)
        a = fold(a, case_sensitive)
        return (a > b) - (a < b)
    if isinstance(a, datetime):
        if not isinstance(b, datetime):
            raise AppleScriptError(f"Can’t make {source_form(b)} into type date.", ERR_COERCION)
        return (a > b) - (a < b)
    raise AppleScriptError(f"Can’t compare {source_form(a)} to {source_form(b)}.", -1700)


def add_seconds(d: datetime, seconds: int | float) -> datetime:
    try:
        return d + timedelta(seconds=round(seconds))
    except (OverflowError, ValueError):
        raise AppleScriptError(f"Can’t make {source_form(seconds)} into type date.", ERR_COERCION) from None
