"""Cell addresses, typed input and the formula language of the sim's Numbers.

A small, safe evaluator (a tokenizer and a recursive-descent parser; nothing is ever ``eval``-ed):
numbers, text in double quotes, cell references (``B3``, ``$B$3``), ranges (``A1:B5``, whole
columns ``B:B``), ``+ - * / ^ &``, comparisons (``= <> < > <= >=``), postfix ``%``, parentheses and
the functions in :data:`FUNCTIONS`. Errors are values (:class:`CellError`): ``#REF!`` (a reference
outside the table, or a circular one), ``#DIV/0!``, ``#VALUE!`` (text where a number is needed),
``#NAME?`` (an unknown function), ``#ERROR!`` (a formula that does not parse), ``#NUM!``.

Addresses are 0-based ``(row, column)`` internally; ``"A1"`` names row 0, column 0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

MAX_ROWS = 1000      # a table never grows past this (keeps hostile input cheap)
MAX_COLUMNS = 200


@dataclass(frozen=True)
class CellError:
    """An error value a formula produced (``#DIV/0!``, ``#REF!``, …)."""

    code: str

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True)
class Formula:
    """A cell's formula as typed, starting with ``=``."""

    text: str


Value = float | str | bool | CellError | None  # what a cell shows (None = empty)
Input = float | str | bool | Formula | None     # what a cell holds

# ---------------------------------------------------------------------------------------- addresses

_ADDR = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")


def column_name(c: int) -> str:
    """0 → ``A``, 25 → ``Z``, 26 → ``AA``."""
    if c < 0:
        raise ValueError(f"column index must be ≥ 0, got {c}")
    out = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        out = chr(65 + rem) + out
    return out


def column_index(name: str) -> int:
    """``A`` → 0, ``AA`` → 26 (letters only, any case)."""
    if not name or not name.isalpha() or not name.isascii():
        raise ValueError(f"not a column name: {name!r} (expected letters such as A, B, AA)")
    n = 0
    for ch in name.upper():
        n = n * 26 + ord(ch) - 64
    return n - 1


def address(row: int, col: int) -> str:
    """(0, 0) → ``A1``."""
    return f"{column_name(col)}{row + 1}"


def parse_address(text: str) -> tuple[int, int]:
    """``A1`` → (0, 0); ``$B$3`` → (2, 1). Raises ValueError naming the text otherwise."""
    m = _ADDR.match(text.strip())
    if m is None or int(m.group(2)) < 1:
        raise ValueError(f"not a cell address: {text!r} (expected a column letter and a row number, e.g. A1)")
    return int(m.group(2)) - 1, column_index(m.group(1))


def parse_range(text: str) -> tuple[int, int, int, int]:
    """``A1:C3`` (or one address) → (top, left, bottom, right), normalised so top ≤ bottom."""
    parts = text.strip().split(":")
    if len(parts) == 1:
        r, c = parse_address(parts[0])
        return r, c, r, c
    if len(parts) != 2:
        raise ValueError(f"not a cell range: {text!r} (expected e.g. A1:C3)")
    r1, c1 = parse_address(parts[0])
    r2, c2 = parse_address(parts[1])
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def range_name(top: int, left: int, bottom: int, right: int) -> str:
    return f"{address(top, left)}:{address(bottom, right)}"


# ---------------------------------------------------------------------------------------- input

_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][+-]?\d+)?%?$")


def parse_number(text: str) -> float | None:
    """A number as Numbers reads typed text (``12``, ``-3.5``, ``1,250``, ``1e3``, ``15%``), else None."""
    t = text.strip()
    if not t or not _NUMBER.match(t) or not any(ch.isdigit() for ch in t):
        return None
    pct = t.endswith("%")
    try:
        x = float(t.rstrip("%").replace(",", ""))
    except ValueError:
        return None
    if not math.isfinite(x):
        return None
    return x / 100 if pct else x


def parse_input(text: str) -> Input:
    """What typing ``text`` into a cell stores: empty → None, ``=…`` → a Formula, a number, else text."""
    if text is None:
        return None
    t = str(text)
    if not t.strip():
        return None
    if t.startswith("=") and len(t.strip()) > 1:
        return Formula(t.strip())
    n = parse_number(t)
    return n if n is not None else t


def format_number(x: float) -> str:
    """A number as Numbers' automatic format shows it (``5``, ``2.5``, ``0.3333333333``)."""
    if isinstance(x, bool):
        return "TRUE" if x else "FALSE"
    if not math.isfinite(x):
        return "#NUM!"
    r = round(x, 10)
    if r == int(r) and abs(r) < 1e15:
        return str(int(r))
    return f"{r:.15g}"


def display(value: Value) -> str:
    """The text a cell shows for ``value``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float | int):
        return format_number(float(value))
    return str(value)


def input_text(raw: Input) -> str:
    """The text of a cell's content for editing: the formula, the number or the text."""
    if raw is None:
        return ""
    if isinstance(raw, Formula):
        return raw.text
    if isinstance(raw, bool):
        return "TRUE" if raw else "FALSE"
    if isinstance(raw, float | int):
        return format_number(float(raw))
    return str(raw)


# ---------------------------------------------------------------------------------------- tokens

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"]|"")*")
  | (?P<ref>\$?[A-Za-z]{1,3}\$?[0-9]{1,7}(?![A-Za-z0-9_(]))
  | (?P<col>\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![A-Za-z0-9_(]))
  | (?P<num>(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<op><>|<=|>=|[-+*/^&=<>%(),:;])
""", re.VERBOSE)


class FormulaSyntaxError(ValueError):
    """A formula that does not parse (shown as ``#ERROR!``)."""


def tokenize(src: str) -> list[tuple[str, str, int, int]]:
    """(kind, text, start, end) tokens of a formula body (without the leading ``=``)."""
    out = []
    i = 0
    while i < len(src):
        m = _TOKEN.match(src, i)
        if m is None:
            raise FormulaSyntaxError(f"unexpected character {src[i]!r} at {i + 1}")
        kind = m.lastgroup or ""
        if kind != "ws":
            out.append((kind, m.group(), m.start(), m.end()))
        i = m.end()
    return out


# ---------------------------------------------------------------------------------------- parser

# AST: ("num", x) ("str", s) ("ref", r, c) ("range", r1, c1, r2, c2) ("neg", a) ("pct", a)
#      ("bin", op, a, b) ("call", NAME, [args])
Node = tuple
_MAX_DEPTH = 50  # nested parentheses / calls / signs (each level costs several Python frames)


class _Parser:
    def __init__(self, tokens: list[tuple[str, str, int, int]]) -> None:
        self.toks = tokens
        self.i = 0
        self.depth = 0

    def peek(self) -> tuple[str, str]:
        if self.i < len(self.toks):
            k, t, _, _ = self.toks[self.i]
            return k, t
        return "end", ""

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        k, t = self.take()
        if t != text:
            raise FormulaSyntaxError(f"expected {text!r}, found {t or 'the end'!r}")

    def parse(self) -> Node:
        node = self.comparison()
        if self.peek()[0] != "end":
            raise FormulaSyntaxError(f"unexpected {self.peek()[1]!r}")
        return node

    def comparison(self) -> Node:
        node = self.concat()
        while self.peek()[1] in ("=", "<>", "<", ">", "<=", ">="):
            op = self.take()[1]
            node = ("bin", op, node, self.concat())
        return node

    def concat(self) -> Node:
        node = self.additive()
        while self.peek()[1] == "&":
            self.take()
            node = ("bin", "&", node, self.additive())
        return node

    def additive(self) -> Node:
        node = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            node = ("bin", op, node, self.term())
        return node

    def term(self) -> Node:
        node = self.power()
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            node = ("bin", op, node, self.power())
        return node

    def power(self) -> Node:
        node = self.unary()
        while self.peek()[1] == "^":
            self.take()
            node = ("bin", "^", node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek()[1] in ("-", "+"):
            op = self.take()[1]
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise FormulaSyntaxError("formula nested too deeply")
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if op == "-" else inner
        node = self.primary()
        while self.peek()[1] == "%":
            self.take()
            node = ("pct", node)
        return node

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            return ("num", float(text))
        if kind == "str":
            return ("str", text[1:-1].replace('""', '"'))
        if kind == "ref":
            r, c = parse_address(text)
            if self.peek()[1] == ":":
                self.take()
                k2, t2 = self.take()
                if k2 != "ref":
                    raise FormulaSyntaxError(f"expected a cell after ':', found {t2 or 'the end'!r}")
                r2, c2 = parse_address(t2)
                return ("range", min(r, r2), min(c, c2), max(r, r2), max(c, c2))
            return ("ref", r, c)
        if kind == "col":
            a, b = (column_index(x.replace("$", "")) for x in text.split(":"))
            return ("range", 0, min(a, b), MAX_ROWS - 1, max(a, b))
        if kind == "name":
            name = text.upper()
            if self.peek()[1] == "(":
                self.take()
                args: list[Node] = []
                self.depth += 1
                if self.depth > _MAX_DEPTH:
                    raise FormulaSyntaxError("formula nested too deeply")
                if self.peek()[1] != ")":
                    while True:
                        args.append(self.comparison())
                        if self.peek()[1] in (",", ";"):
                            self.take()
                            continue
                        break
                self.expect(")")
                self.depth -= 1
                return ("call", name, args)
            if name in ("TRUE", "FALSE"):
                return ("bool", name == "TRUE")
            raise FormulaSyntaxError(f"unknown name {text!r}")
        if text == "(":
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise FormulaSyntaxError("formula nested too deeply")
            node = self.comparison()
            self.expect(")")
            self.depth -= 1
            return node
        raise FormulaSyntaxError(f"unexpected {text or 'end of formula'!r}")


def parse_formula(text: str) -> Node:
    """The syntax tree of ``=…`` (raises FormulaSyntaxError)."""
    body = text[1:] if text.startswith("=") else text
    if len(body) > 4000:
        raise FormulaSyntaxError("formula longer than 4000 characters")
    try:
        return _Parser(tokenize(body)).parse()
    except RecursionError:
        raise FormulaSyntaxError("formula nested too deeply") from None


def references(text: str) -> list[tuple[int, int, int, int]]:
    """Every reference in a formula as (top, left, bottom, right) (empty if it does not parse)."""
    try:
        node = parse_formula(text)
    except (FormulaSyntaxError, ValueError):
        return []
    out: list[tuple[int, int, int, int]] = []

    def walk(n: Node) -> None:
        if n[0] == "ref":
            out.append((n[1], n[2], n[1], n[2]))
        elif n[0] == "range":
            out.append(n[1:5])
        elif n[0] in ("neg", "pct"):
            walk(n[1])
        elif n[0] == "bin":
            walk(n[2])
            walk(n[3])
        elif n[0] == "call":
            for a in n[2]:
                walk(a)

    walk(node)
    return out


# ---------------------------------------------------------------------------------------- shifting


def shift_formula(text: str, axis: str, at: int, delta: int) -> str:
    """``text`` with its references moved for rows (``axis="row"``) or columns (``"column"``)
    inserted (``delta`` > 0) or deleted (``delta`` < 0) at index ``at``: references past ``at`` move
    by ``delta``, ranges grow or shrink, and a reference to a deleted row/column becomes ``#REF!``."""
    body = text[1:] if text.startswith("=") else text
    try:
        tokens = tokenize(body)
    except FormulaSyntaxError:
        return text
    gap_end = at - delta  # when deleting: indexes [at, gap_end) go away

    def moved(n: int, role: str) -> int | None:
        # role: "one" (a single reference), "start" or "end" of a range
        if delta > 0:
            return n + delta if n >= at else n
        if n < at:
            return n
        if n >= gap_end:
            return n + delta
        return {"one": None, "start": at, "end": at - 1}[role]

    def rewrite(tok: str, role: str) -> tuple[str | None, int]:
        m = re.match(r"^(\$?)([A-Za-z]{1,3})(\$?)([0-9]+)$", tok)
        assert m is not None
        dc, letters, dr, digits = m.groups()
        if axis == "row":
            n = moved(int(digits) - 1, role)
            return (None, -1) if n is None else (f"{dc}{letters}{dr}{n + 1}", n)
        n = moved(column_index(letters), role)
        return (None, -1) if n is None else (f"{dc}{column_name(n) if n >= 0 else 'A'}{dr}{digits}", n)

    out, last, ti = [], 0, 0
    while ti < len(tokens):
        kind, tok, s, e = tokens[ti]
        if kind != "ref":
            ti += 1
            continue
        is_range = ti + 2 < len(tokens) and tokens[ti + 1][1] == ":" and tokens[ti + 2][0] == "ref"
        out.append(body[last:s])
        if is_range:
            a, na = rewrite(tok, "start")
            b, nb = rewrite(tokens[ti + 2][1], "end")
            out.append("#REF!" if a is None or b is None or nb < na else f"{a}:{b}")
            last = tokens[ti + 2][3]
            ti += 3
        else:
            a, _ = rewrite(tok, "one")
            out.append("#REF!" if a is None else a)
            last = e
            ti += 1
    out.append(body[last:])
    return "=" + "".join(out)


def move_rows_formula(text: str, old_row: int, new_row: int) -> str:
    """A formula moved (by a sort) from ``old_row`` to ``new_row``: references to its own row follow
    it (``=B2*C2`` in row 2 becomes ``=B5*C5`` in row 5); other references stay."""
    if old_row == new_row:
        return text
    try:
        tokens = tokenize(text[1:])
    except FormulaSyntaxError:
        return text
    body = text[1:]
    out, last = [], 0
    for kind, tok, s, e in tokens:
        if kind != "ref":
            continue
        m = re.match(r"^(\$?)([A-Za-z]{1,3})(\$?)([0-9]+)$", tok)
        assert m is not None
        dc, letters, dr, digits = m.groups()
        if int(digits) - 1 == old_row and not dr:
            out.append(body[last:s])
            out.append(f"{dc}{letters}{new_row + 1}")
            last = e
    out.append(body[last:])
    return "=" + "".join(out)


# ---------------------------------------------------------------------------------------- evaluation

class _Raise(Exception):
    def __init__(self, code: str) -> None:
        self.code = code


def _num(v: Any) -> float:
    if isinstance(v, CellError):
        raise _Raise(v.code)
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, float | int):
        return float(v)
    n = parse_number(str(v))
    if n is None:
        raise _Raise("#VALUE!")
    return n


def _text(v: Any) -> str:
    if isinstance(v, CellError):
        raise _Raise(v.code)
    return display(v)


def _flat(args: list[Any]) -> list[tuple[Any, bool]]:
    """(value, came from a range/reference) for every argument, ranges expanded."""
    out = []
    for a in args:
        if isinstance(a, _Cells):
            out.extend((v, True) for v in a.values)
        else:
            out.append((a, False))
    return out


def _numbers(args: list[Any]) -> list[float]:
    """Numbers of the arguments: in ranges text and empty cells are skipped, errors propagate."""
    out = []
    for v, from_ref in _flat(args):
        if isinstance(v, CellError):
            raise _Raise(v.code)
        if from_ref:
            if isinstance(v, float | int) and not isinstance(v, bool):
                out.append(float(v))
        else:
            out.append(_num(v))
    return out


def _sum(args: list[Any]) -> float:
    return math.fsum(_numbers(args))


def _average(args: list[Any]) -> float:
    xs = _numbers(args)
    if not xs:
        raise _Raise("#DIV/0!")
    return math.fsum(xs) / len(xs)


def _min(args: list[Any]) -> float:
    xs = _numbers(args)
    return min(xs) if xs else 0.0


def _max(args: list[Any]) -> float:
    xs = _numbers(args)
    return max(xs) if xs else 0.0


def _count(args: list[Any]) -> float:
    return float(sum(1 for v, _ in _flat(args) if isinstance(v, float | int) and not isinstance(v, bool)))


def _counta(args: list[Any]) -> float:
    return float(sum(1 for v, _ in _flat(args) if v is not None and v != ""))


def _round(args: list[Any]) -> float:
    if not 1 <= len(args) <= 2:
        raise _Raise("#VALUE!")
    x = _num(_scalar(args[0]))
    digits = int(_num(_scalar(args[1]))) if len(args) == 2 else 0
    # half away from zero, as spreadsheets round (Python's round() is half-to-even)
    q = 10.0 ** digits
    y = math.floor(abs(x) * q + 0.5 + 1e-9) / q
    return math.copysign(y, x) if y else 0.0


def _abs(args: list[Any]) -> float:
    if len(args) != 1:
        raise _Raise("#VALUE!")
    return abs(_num(_scalar(args[0])))


def _product(args: list[Any]) -> float:
    return math.prod(_numbers(args)) if _numbers(args) else 0.0


def _median(args: list[Any]) -> float:
    xs = sorted(_numbers(args))
    if not xs:
        raise _Raise("#NUM!")
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


FUNCTIONS: dict[str, Callable[[list[Any]], Any]] = {
    "SUM": _sum, "AVERAGE": _average, "MIN": _min, "MAX": _max, "COUNT": _count, "COUNTA": _counta,
    "ROUND": _round, "ABS": _abs, "PRODUCT": _product, "MEDIAN": _median,
}
# IF is lazy (only the branch taken is evaluated) and handled in the evaluator


@dataclass
class _Cells:
    values: list[Any]


def _scalar(v: Any) -> Any:
    if isinstance(v, _Cells):
        if len(v.values) != 1:
            raise _Raise("#VALUE!")
        return v.values[0]
    return v


class Evaluator:
    """Evaluates one table's formulas. ``raw(row, col)`` gives a cell's content; ``rows``/``cols``
    the table's size (references outside are ``#REF!``). Results are cached per evaluator: make a
    new one after the table changes."""

    def __init__(self, raw: Callable[[int, int], Input], rows: int, cols: int) -> None:
        self.raw = raw
        self.rows, self.cols = rows, cols
        self.cache: dict[tuple[int, int], Value] = {}
        self.active: set[tuple[int, int]] = set()
        self.steps = 0

    def value(self, row: int, col: int) -> Value:
        """The value cell (row, col) shows."""
        key = (row, col)
        if key in self.cache:
            return self.cache[key]
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            return CellError("#REF!")
        raw = self.raw(row, col)
        if not isinstance(raw, Formula):
            return raw
        if key in self.active:
            return CellError("#REF!")  # circular
        self.active.add(key)
        try:
            try:
                if "#REF!" in raw.text:  # a reference whose row or column was deleted
                    raise ValueError("deleted reference")
                node = parse_formula(raw.text)
            except FormulaSyntaxError:
                out: Value = CellError("#ERROR!")
            except ValueError:
                out = CellError("#REF!")
            else:
                try:
                    v = _scalar(self.ev(node))
                    out = v if not (isinstance(v, float) and not math.isfinite(v)) else CellError("#NUM!")
                except _Raise as e:
                    out = CellError(e.code)
                except (OverflowError, ZeroDivisionError):
                    out = CellError("#NUM!")
                except RecursionError:
                    out = CellError("#REF!")
        finally:
            self.active.discard(key)
        if isinstance(out, int) and not isinstance(out, bool):
            out = float(out)
        self.cache[key] = out
        return out

    def ev(self, n: Node) -> Any:
        self.steps += 1
        if self.steps > 200_000:
            raise _Raise("#NUM!")
        kind = n[0]
        if kind == "num":
            return n[1]
        if kind == "str":
            return n[1]
        if kind == "bool":
            return n[1]
        if kind == "ref":
            v = self.value(n[1], n[2])
            if isinstance(v, CellError):
                raise _Raise(v.code)
            return v
        if kind == "range":
            top, left, bottom, right = n[1:5]
            if left >= self.cols or top >= self.rows or (bottom >= self.rows and bottom != MAX_ROWS - 1) or right >= self.cols:
                raise _Raise("#REF!")
            bottom = min(bottom, self.rows - 1)
            return _Cells([self.value(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)
                           if (r, c) not in self.active])
        if kind == "neg":
            return -_num(_scalar(self.ev(n[1])))
        if kind == "pct":
            return _num(_scalar(self.ev(n[1]))) / 100
        if kind == "bin":
            op = n[1]
            a, b = _scalar(self.ev(n[2])), _scalar(self.ev(n[3]))
            if op == "&":
                return _text(a) + _text(b)
            if op in ("=", "<>", "<", ">", "<=", ">="):
                return _compare(op, a, b)
            x, y = _num(a), _num(b)
            if op == "+":
                return x + y
            if op == "-":
                return x - y
            if op == "*":
                return x * y
            if op == "/":
                if y == 0:
                    raise _Raise("#DIV/0!")
                return x / y
            if op == "^":
                if x == 0 and y < 0:
                    raise _Raise("#DIV/0!")
                try:
                    r = x ** y
                except OverflowError:
                    raise _Raise("#NUM!") from None
                if isinstance(r, complex):
                    raise _Raise("#NUM!")
                return r
        if kind == "call":
            name, args = n[1], n[2]
            if name == "IF":
                if not 2 <= len(args) <= 3:
                    raise _Raise("#VALUE!")
                cond = _scalar(self.ev(args[0]))
                truth = bool(_num(cond)) if not isinstance(cond, str) else bool(cond)
                if truth:
                    return self.ev(args[1])
                return self.ev(args[2]) if len(args) == 3 else False
            fn = FUNCTIONS.get(name)
            if fn is None:
                raise _Raise("#NAME?")
            return fn([self.ev(a) for a in args])
        raise _Raise("#ERROR!")


def _compare(op: str, a: Any, b: Any) -> bool:
    for v in (a, b):
        if isinstance(v, CellError):
            raise _Raise(v.code)
    if isinstance(a, str) or isinstance(b, str):
        x: Any = _text(a).casefold()
        y: Any = _text(b).casefold()
    else:
        x, y = _num(a), _num(b)
    return {"=": x == y, "<>": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
