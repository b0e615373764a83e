"""Typed parameter declarations and the OpenAI function-calling schemas built from them.

Every env describes its actions from the declarations its parser checks against, so a prompt can
never drift from a parser (issue 13, item 1). This module holds the pieces they share:

- ``Param``: one parameter (JSON kind, description, default, bounds, choices, array items). Its
  ``schema()`` is the JSON Schema an LLM sees; its ``check(value, where)`` is the validation the
  parser runs, so the two are one declaration.
- ``FunctionDecl``: a named function with ``Param`` s: its ``parameters_schema()``, the
  ``openai()`` tool spec, a one-line ``signature()`` for prompt text, and ``check_arguments()``
  (unknown parameters refused, missing ones named, defaults filled in).
- ``function_spec(name, description, parameters)``: the OpenAI ``tools=`` entry for any
  ``parameters`` schema (used by envs whose declarations have their own schema builder, e.g.
  MMToolSandbox's typed Python functions).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .actions import ActionError


class _Required:
    """The default of a parameter that has none (the caller must give it)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
#: The JSON kinds ``Param`` knows; subclasses may add their own (and build their schema).
BASIC_KINDS = ("integer", "number", "string", "boolean", "array", "object")


def function_spec(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """One OpenAI function-calling tool: ``{"type": "function", "function": {name, description, parameters}}``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"function_spec: a tool name must be a non-empty string, got {name!r}")
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        raise ValueError(f"function_spec: the parameters of {name!r} must be a JSON Schema of type 'object', got {parameters!r}")
    return {"type": "function", "function": {"name": name, "description": str(description), "parameters": dict(parameters)}}


@dataclass(frozen=True)
class Param:
    """One declared parameter.

    ``kind`` is a JSON type from ``BASIC_KINDS``. ``default`` absent (``REQUIRED``) makes it required.
    Numbers take ``minimum``/``maximum``; strings ``choices`` (an enum) or ``pattern``; arrays
    ``items`` (the item kind), ``item_minimum``/``item_maximum`` and ``min_items``/``max_items``.
    ``nullable`` also allows null. ``choices_case_insensitive`` accepts any letter case (the value
    is lower-cased), as some parsers do.
    """

    name: str
    kind: str
    description: str = ""
    default: Any = REQUIRED
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    pattern: str | None = None
    items: str | None = None
    item_minimum: float | None = None
    item_maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    choices_case_insensitive: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    # ------------------------------------------------------------------ schema
    def base_schema(self) -> dict[str, Any]:
        """The schema of a non-null value (subclasses override it for kinds of their own)."""
        if self.kind in ("integer", "number"):
            out: dict[str, Any] = {"type": self.kind}
            if self.minimum is not None:
                out["minimum"] = self.minimum
            if self.maximum is not None:
                out["maximum"] = self.maximum
        elif self.kind == "string":
            out = {"type": "string"}
            if self.choices:
                out["enum"] = list(self.choices)
            if self.pattern:
                out["pattern"] = self.pattern
        elif self.kind == "boolean":
            out = {"type": "boolean"}
        elif self.kind == "array":
            item: dict[str, Any] = {"type": self.items} if self.items else {}
            if self.item_minimum is not None:
                item["minimum"] = self.item_minimum
            if self.item_maximum is not None:
                item["maximum"] = self.item_maximum
            out = {"type": "array", "items": item}
            if self.min_items is not None:
                out["minItems"] = self.min_items
            if self.max_items is not None:
                out["maxItems"] = self.max_items
        elif self.kind == "object":
            out = {"type": "object"}
        else:
            raise ValueError(f"parameter {self.name!r}: unknown kind {self.kind!r} (known: {', '.join(BASIC_KINDS)})")
        return out

    def schema_description(self) -> str:
        return self.description

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of this parameter (description and default included)."""
        out = self.base_schema()
        if self.nullable:
            out = {"anyOf": [out, {"type": "null"}]}
        description = self.schema_description()
        if description:
            out["description"] = description
        if not self.required:
            out["default"] = self.default
        return out

    # ------------------------------------------------------------------ validation
    def check(self, value: Any, where: str) -> Any:
        """``value`` checked against the declaration (``where`` names it in the error); returns it
        normalised (integral floats as ints, numbers as floats, case-insensitive choices lower-cased).
        Raises ``ActionError("bad_parameter", ...)``."""
        if value is None:
            if self.nullable:
                return None
            raise ActionError("bad_parameter", f"{where} may not be null.")
        kind = self.kind
        if kind in ("integer", "number"):
            value = _number(value, kind == "integer", where)
            self._check_bounds(value, self.minimum, self.maximum, where)
            return value
        if kind == "string":
            if not isinstance(value, str):
                raise ActionError("bad_parameter", f"{where} must be a string, got {value!r}.")
            if self.choices:
                candidate = value.strip().lower() if self.choices_case_insensitive else value
                if candidate not in self.choices:
                    raise ActionError("bad_parameter", f"{where} must be one of {', '.join(map(str, self.choices))}; got {value!r}.")
                return candidate
            return value
        if kind == "boolean":
            if not isinstance(value, bool):
                raise ActionError("bad_parameter", f"{where} must be true or false, got {value!r}.")
            return value
        if kind == "array":
            if not isinstance(value, (list, tuple)):
                raise ActionError("bad_parameter", f"{where} must be a list, got {value!r}.")
            if self.min_items is not None and len(value) < self.min_items or self.max_items is not None and len(value) > self.max_items:
                size = (f"exactly {self.min_items}" if self.min_items == self.max_items else
                        f"{self.min_items if self.min_items is not None else 0} to {self.max_items if self.max_items is not None else 'any number of'}")
                raise ActionError("bad_parameter", f"{where} must hold {size} items, got {len(value)}: {list(value)!r}.")
            return [self._check_item(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if kind == "object":
            if not isinstance(value, Mapping):
                raise ActionError("bad_parameter", f"{where} must be an object, got {value!r}.")
            return dict(value)
        raise ValueError(f"parameter {self.name!r}: no validation for kind {kind!r}")

    def _check_item(self, value: Any, where: str) -> Any:
        if self.items in ("integer", "number"):
            value = _number(value, self.items == "integer", where)
            self._check_bounds(value, self.item_minimum, self.item_maximum, where)
            return value
        if self.items == "string" and not isinstance(value, str):
            raise ActionError("bad_parameter", f"{where} must be a string, got {value!r}.")
        if self.items == "boolean" and not isinstance(value, bool):
            raise ActionError("bad_parameter", f"{where} must be true or false, got {value!r}.")
        return value

    @staticmethod
    def _check_bounds(value: float, minimum: float | None, maximum: float | None, where: str) -> None:
        if minimum is not None and value < minimum or maximum is not None and value > maximum:
            raise ActionError("bad_parameter", f"{where} must lie in [{minimum}, {maximum}], got {value}.")

    def text(self) -> str:
        """``name`` or ``name=default`` (JSON-spelled), for a signature line."""
        return self.name if self.required else f"{self.name}={json.dumps(self.default)}"


#: Magnitude bound of every number argument (what a C double holds exactly as an integer): a larger one
#: is a clear ``bad_parameter`` error here, not an OverflowError deep inside a tool.
NUMBER_LIMIT = 2**53


def within_number_limit(value: int | float) -> bool:
    """Whether ``value`` is finite and within ±:data:`NUMBER_LIMIT` (compared exactly: a huge int is
    never converted to a float, which would raise OverflowError)."""
    return -NUMBER_LIMIT <= value <= NUMBER_LIMIT  # False for NaN and the infinities too


def _number(value: Any, integer: bool, where: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and not math.isfinite(value)):
        raise ActionError("bad_parameter", f"{where} must be {'an integer' if integer else 'a finite number'}, got {_shown(value)}.")
    if not within_number_limit(value):
        raise ActionError("bad_parameter", f"{where} is out of range: {_shown(value)} (numbers must lie within ±2**53).")
    if integer:
        if isinstance(value, float) and not value.is_integer():
            raise ActionError("bad_parameter", f"{where} must be an integer, got {value!r}.")
        return int(value)
    return value


def _shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters (a huge int's repr is thousands of digits, or refused)."""
    try:
        text = repr(value)
    except ValueError:  # ints beyond sys.get_int_max_str_digits() have no decimal repr
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


@dataclass(frozen=True)
class FunctionDecl:
    """A function an agent may call: name, description and declared parameters.

    ``check_arguments`` is what a parser runs, ``parameters_schema``/``openai`` what an LLM is given,
    ``signature`` what a text prompt shows; all three read the same ``params``.
    """

    name: str
    description: str
    params: tuple[Param, ...] = ()
    #: Properties every call has besides ``params`` (e.g. VTC-Bench's input ``image``), as schemas.
    extra_properties: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON Schema of the call's arguments object (no other properties allowed)."""
        properties = {name: dict(schema) for name, schema in self.extra_properties.items()}
        properties.update({p.name: p.schema() for p in self.params})
        return {"type": "object", "properties": properties, "required": [p.name for p in self.params if p.required],
                "additionalProperties": False}

    def openai(self) -> dict[str, Any]:
        """The OpenAI ``tools=`` entry."""
        return function_spec(self.name, self.description, self.parameters_schema())

    def signature(self, leading: Sequence[str] = ()) -> str:
        """``name(a, b=1)``; ``leading`` names come first (e.g. ``image``)."""
        return f"{self.name}({', '.join([*leading, *(p.text() for p in self.params)])})"

    def check_arguments(self, arguments: Any, *, allowed_extra: Iterable[str] = ()) -> dict[str, Any]:
        """The arguments checked against the declaration, defaults filled in. Raises ``ActionError``:
        ``bad_arguments`` (not an object), ``unknown_parameter``, ``missing_parameter``, ``bad_parameter``."""
        if not isinstance(arguments, Mapping):
            raise ActionError("bad_arguments", f"{self.name}: arguments must be an object, got {type(arguments).__name__}.")
        known = {p.name: p for p in self.params}
        extra = set(allowed_extra) | set(self.extra_properties)
        unknown = sorted(set(arguments) - set(known) - extra)
        if unknown:
            allowed = ", ".join([*sorted(extra), *known]) or "(none)"
            raise ActionError("unknown_parameter", f"{self.name}: unknown parameter(s) {', '.join(map(repr, unknown))}; allowed: {allowed}.")
        out: dict[str, Any] = {}
        for param in self.params:
            if param.name in arguments:
                out[param.name] = param.check(arguments[param.name], f"{self.name}: parameter {param.name!r}")
            elif param.required:
                hint = f" ({param.description})" if param.description else ""
                raise ActionError("missing_parameter", f"{self.name}: missing required parameter {param.name!r}{hint}.")
            else:
                out[param.name] = param.default
        return out


def signature_lines(decls: Iterable[FunctionDecl], *, leading: Sequence[str] = (), with_description: bool = False) -> str:
    """One signature per line (``- name(a, b=1): description`` with ``with_description``)."""
    lines = []
    for decl in decls:
        line = decl.signature(leading)
        lines.append(f"- {line}: {decl.description}" if with_description else line)
    return "\n".join(lines)
