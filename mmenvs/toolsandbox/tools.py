"""Tools: typed Python functions whose JSON schema is derived from their signature and docstring.

A tool function takes the ``World`` as its first positional parameter and then keyword parameters
annotated with ``int``, ``float``, ``str``, ``bool``, ``dict``, ``list[...]``, ``Literal[...]`` or
``X | None``. Its docstring has a summary and an ``Args:`` section (Google style); both go into the
schema an LLM reads. ``Tool.invoke`` checks and coerces JSON arguments against the signature,
then runs the function inside a database savepoint, so a failing call leaves the world unchanged.
"""

from __future__ import annotations

import inspect
import re
import sqlite3
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Union

from mmenvs.core.actions import check_argument_sizes
from mmenvs.core.budget import BudgetExceeded, current_deadline

from .world import ToolError, World

_ARG_LINE = re.compile(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


class ArgumentError(ToolError):
    """The arguments do not fit the tool's signature (missing, unknown or of the wrong type)."""


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    default: Any  # inspect.Parameter.empty when required
    description: str

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


@dataclass
class Tool:
    """One callable tool: name, app, the function, its parameters and description."""

    name: str
    app: str
    fn: Callable[..., Any]
    params: tuple[Param, ...]
    summary: str
    description: str
    family: str | None = None  # tools of one family merge together in the compact toolset
    kind: str = "action"  # "read" | "write" | "action" (for toolset merging)
    table: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the parameters (an OpenAI/Anthropic-style ``parameters`` object)."""
        properties = {}
        for p in self.params:
            prop = json_schema(p.annotation)
            if p.description:
                prop["description"] = p.description
            if not p.required and p.default is not None:
                prop["default"] = p.default
            properties[p.name] = prop
        return {
            "type": "object",
            "properties": properties,
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "app": self.app, "description": self.description, "parameters": self.schema()}

    def bind(self, arguments: dict[str, Any], *, max_argument_chars: int | None = None) -> dict[str, Any]:
        """Check ``arguments`` against the signature; return keyword arguments (defaults left to Python).

        An argument whose JSON form is longer than ``max_argument_chars`` (default: the default episode
        budget's ``tool_argument_chars``) is refused first, as an ``ArgumentError`` naming that limit."""
        if not isinstance(arguments, dict):
            raise ArgumentError(f"{self.name}: arguments must be an object of parameter names to values, got {type(arguments).__name__}")
        try:
            check_argument_sizes(self.name, arguments, max_argument_chars)
        except BudgetExceeded as exc:
            raise ArgumentError(str(exc)) from None
        known = {p.name: p for p in self.params}
        unknown = [k for k in arguments if k not in known]
        if unknown:
            shown = ", ".join(repr(str(k)[:64]) for k in unknown[:20]) + (f" and {len(unknown) - 20} more" if len(unknown) > 20 else "")
            raise ArgumentError(f"{self.name}: unknown parameter(s) {shown}; it takes {self.signature_text()}")
        missing = [p.name for p in self.params if p.required and p.name not in arguments]
        if missing:
            raise ArgumentError(f"{self.name}: missing required parameter(s) {', '.join(map(repr, missing))}; it takes {self.signature_text()}")
        return {name: coerce(value, known[name].annotation, f"{self.name}: parameter {name!r}") for name, value in arguments.items()}

    def invoke(self, world: World, arguments: dict[str, Any]) -> Any:
        """Validate and run; ``ToolError`` for bad arguments or refused actions (world unchanged then).

        Within the episode budget (``world.images.budget``: argument sizes, image pixels) and the action's
        deadline: a call made after it passed (code calling tools in a loop) is refused unrun."""
        kwargs = self.bind(arguments, max_argument_chars=world.images.budget.tool_argument_chars)
        deadline = current_deadline()
        if deadline is not None and deadline.expired():
            raise ToolError(f"{self.name} was not run: the action ran past its deadline action_timeout={deadline.seconds:g} s "
                            "(raise it with the env kwarg budget={'action_timeout': ...})")
        limit = world.images.budget.home_bytes
        limit_storage(world, limit)
        try:
            with world.transaction():
                return self.fn(world, **kwargs)
        except BudgetExceeded as exc:  # an image over the episode's pixel budget: a refusal like any other
            raise ToolError(f"{self.name}: {exc}") from None
        except sqlite3.OperationalError as exc:
            if "full" not in str(exc):
                raise
            raise ToolError(f"{self.name}: the phone's storage would exceed the episode budget home_bytes={limit:,} "
                            "(the call was undone; raise it with the env kwarg budget={'home_bytes': ...})") from None

    def signature_text(self) -> str:
        parts = []
        for p in self.params:
            text = f"{p.name}: {type_name(p.annotation)}"
            if not p.required:
                text += f" = {p.default!r}"
            parts.append(text)
        return f"({', '.join(parts)})"


def limit_storage(world: World, limit: int) -> None:
    """Cap the episode's database (the phone's storage, held in host memory) at ``limit`` bytes: SQLite then
    refuses a write past it as it happens ("database or disk is full"), however a tool multiplies its input."""
    page_size = world.conn.execute("PRAGMA page_size").fetchone()[0]
    world.conn.execute(f"PRAGMA max_page_count = {max(1, int(limit) // page_size)}")


# ---------------------------------------------------------------------- types → schema / coercion
def _is_optional(annotation: Any) -> tuple[bool, Any]:
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) < len(typing.get_args(annotation)):
            return True, (args[0] if len(args) == 1 else Union[tuple(args)])
    return False, annotation


def json_schema(annotation: Any) -> dict[str, Any]:
    """JSON schema of one parameter annotation."""
    optional, inner = _is_optional(annotation)
    schema = _json_schema_inner(inner)
    if optional:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def _json_schema_inner(annotation: Any) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is dict or origin is dict:
        return {"type": "object"}
    if annotation is Any:
        return {}
    if origin is list:
        (item,) = typing.get_args(annotation) or (Any,)
        return {"type": "array", "items": _json_schema_inner(item)}
    if origin is Literal:
        values = list(typing.get_args(annotation))
        kinds = {type(v) for v in values}
        base = {str: "string", int: "integer", float: "number", bool: "boolean"}[kinds.pop()] if len(kinds) == 1 else None
        return {"type": base, "enum": values} if base else {"enum": values}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_json_schema_inner(a) for a in typing.get_args(annotation)]}
    raise TypeError(f"unsupported tool parameter annotation {annotation!r}")


def type_name(annotation: Any) -> str:
    optional, inner = _is_optional(annotation)
    origin = typing.get_origin(inner)
    if origin is Literal:
        text = " | ".join(repr(v) for v in typing.get_args(inner))
    elif origin is list:
        text = f"list[{type_name(typing.get_args(inner)[0])}]"
    elif origin in (Union, types.UnionType):
        text = " | ".join(type_name(a) for a in typing.get_args(inner))
    else:
        text = getattr(inner, "__name__", str(inner))
    return f"{text} | None" if optional else text


def coerce(value: Any, annotation: Any, where: str) -> Any:
    """``value`` checked against ``annotation`` (ints given as 3.0 become 3, ints are accepted as floats)."""
    optional, inner = _is_optional(annotation)
    if value is None:
        if optional:
            return None
        raise ArgumentError(f"{where} must be {type_name(inner)}, got null")
    origin = typing.get_origin(inner)
    if inner is Any:
        return value
    if inner is bool:
        if isinstance(value, bool):
            return value
    elif inner is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif inner is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif inner is str:
        if isinstance(value, str):
            return value
    elif inner is dict or origin is dict:
        if isinstance(value, dict):
            return value
    elif origin is list:
        if isinstance(value, (list, tuple)):
            (item,) = typing.get_args(inner) or (Any,)
            return [coerce(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    elif origin is Literal:
        if value in typing.get_args(inner) and not isinstance(value, bool):
            return value
        raise ArgumentError(f"{where} must be one of {', '.join(repr(v) for v in typing.get_args(inner))}, got {_shown(value)}")
    elif origin in (Union, types.UnionType):
        for option in typing.get_args(inner):
            try:
                return coerce(value, option, where)
            except ArgumentError:
                continue
    raise ArgumentError(f"{where} must be {type_name(inner)}, got {type(value).__name__} {_shown(value)}")


def _shown(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to ``limit`` characters for an error message (an argument may be a megabyte)."""
    text = repr(value[:64]) + "…" if isinstance(value, (list, tuple)) and len(value) > 64 else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


# ---------------------------------------------------------------------- building tools from functions
def parse_docstring(doc: str) -> tuple[str, str, dict[str, str]]:
    """(summary, full description without the Args section, {param: description})."""
    doc = inspect.cleandoc(doc or "")
    lines = doc.splitlines()
    args: dict[str, str] = {}
    body: list[str] = []
    in_args = False
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if in_args:
            if stripped and not line.startswith(" "):
                in_args = False
            else:
                match = _ARG_LINE.match(line)
                if match and not line.startswith("        "):
                    current = match.group(1)
                    args[current] = match.group(2).strip()
                elif current and stripped:
                    args[current] += " " + stripped
                continue
        body.append(line)
    description = "\n".join(body).strip()
    summary = description.split("\n\n")[0].replace("\n", " ").strip()
    return summary, description, args


def make_tool(fn: Callable[..., Any], app: str, *, name: str | None = None, family: str | None = None, kind: str = "action",
              table: str | None = None, meta: dict[str, Any] | None = None) -> Tool:
    """A ``Tool`` from a function ``fn(world, ...)`` with annotations and a docstring (both required)."""
    tool_name = name or fn.__name__
    if not fn.__doc__:
        raise TypeError(f"tool {tool_name} has no docstring")
    signature = inspect.signature(fn)
    hints = typing.get_type_hints(fn) if not getattr(fn, "__signature__", None) else {}
    summary, description, arg_docs = parse_docstring(fn.__doc__)
    params = []
    for index, p in enumerate(signature.parameters.values()):
        if index == 0:
            continue  # the world
        annotation = hints.get(p.name, p.annotation)
        if annotation is inspect.Parameter.empty:
            raise TypeError(f"tool {tool_name}: parameter {p.name!r} has no type annotation")
        json_schema(annotation)  # fails early on an unsupported annotation
        params.append(Param(p.name, annotation, p.default, arg_docs.get(p.name, "")))
    missing_docs = [p.name for p in params if not p.description]
    if missing_docs:
        raise TypeError(f"tool {tool_name}: parameters {missing_docs} are not described in the docstring's Args section")
    return Tool(tool_name, app, fn, tuple(params), summary, description, family, kind, table, dict(meta or {}))


#: Hand-written tools register here (app modules use the ``tool`` decorator at import).
REGISTERED: list[Tool] = []


def tool(app: str, *, family: str | None = None, kind: str = "action") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``fn`` as a tool of ``app`` (name = function name)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        REGISTERED.append(make_tool(fn, app, family=family, kind=kind))
        return fn

    return register


def synthesize(name: str, params: list[inspect.Parameter], annotations: dict[str, Any], doc: str,
               body: Callable[..., Any]) -> Callable[..., Any]:
    """A real function named ``name`` with the given signature and docstring that calls ``body(world, **kwargs)``.

    Used for tools generated from table declarations and for merged tools: they get a genuine
    ``inspect.Signature`` so schema derivation treats them like hand-written tools.
    """

    def function(world: World, **kwargs: Any) -> Any:
        return body(world, **kwargs)

    world_param = inspect.Parameter("world", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=World)
    function.__signature__ = inspect.Signature([world_param, *params])  # type: ignore[attr-defined]
    function.__annotations__ = {"world": World, **annotations}
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def kw(name: str, annotation: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
