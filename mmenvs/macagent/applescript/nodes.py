"""Syntax tree of a compiled AppleScript (plain data; every node keeps its source range)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Node:
    start: int
    end: int


# ----------------------------------------------------------------------------- expressions
@dataclass(eq=False)
class Lit(Node):
    value: Any


@dataclass(eq=False)
class ListLit(Node):
    items: list[Node]


@dataclass(eq=False)
class RecordLit(Node):
    pairs: list[tuple[str, Node]]


@dataclass(eq=False)
class Var(Node):
    name: str
    text: str


@dataclass(eq=False)
class Chain(Node):
    """Left-associative operators evaluated in a loop: ``first op1 x1 op2 x2 …``."""

    first: Node
    rest: list[tuple[str, Node]]


@dataclass(eq=False)
class Unary(Node):
    op: str  # "-", "+", "not"
    operand: Node


@dataclass(eq=False)
class Coerce(Node):
    operand: Node
    type_name: str


@dataclass(eq=False)
class Its(Node):
    pass


@dataclass(eq=False)
class Me(Node):
    pass


@dataclass(eq=False)
class ScriptObj(Node):
    """``AppleScript`` in ``AppleScript's text item delimiters``."""


@dataclass(eq=False)
class Prop(Node):
    name: str
    container: Node | None  # None: the current target (tell target, whose element, or the script)


@dataclass(eq=False)
class PropList(Node):
    """``{name, body} of note 1``: several properties (or element references) of one object."""

    items: list[Node]   # Prop / Elements nodes without a container
    container: Node


@dataclass(eq=False)
class Elements(Node):
    cls: str
    sel: str                 # index | name | id | range | every | ordinal
    arg: Node | None = None
    arg2: Node | None = None
    ordinal: Any = None      # 1.. / -1 last / "middle" / "some"
    container: Node | None = None
    filter: Node | None = None
    text: str = ""           # class as written, for messages


@dataclass(eq=False)
class Insertion(Node):
    position: str            # end | beginning | front | back | after | before
    container: Node | None


@dataclass(eq=False)
class AppSpec(Node):
    name: Node


@dataclass(eq=False)
class DateLit(Node):
    operand: Node


@dataclass(eq=False)
class FileLit(Node):
    operand: Node
    kind: str


@dataclass(eq=False)
class Exists(Node):
    operand: Node


@dataclass(eq=False)
class Call(Node):
    name: str
    args: list[Node]
    my: bool = False


@dataclass(eq=False)
class Command(Node):
    """A command: builtins (``count``, ``get``, ``make``, ``delete``, ``display dialog`` …) and app
    commands (``activate``, ``open location``, ``keystroke`` …)."""

    name: str
    direct: Node | None
    params: dict[str, Node] = field(default_factory=dict)
    cls: str | None = None   # make new <cls>


# ----------------------------------------------------------------------------- statements
@dataclass(eq=False)
class ExprStmt(Node):
    expr: Node


@dataclass(eq=False)
class Set(Node):
    target: Node
    value: Node


@dataclass(eq=False)
class Copy(Node):
    value: Node
    target: Node


@dataclass(eq=False)
class Tell(Node):
    target: Node
    body: list[Node]


@dataclass(eq=False)
class If(Node):
    branches: list[tuple[Node, list[Node]]]
    orelse: list[Node] | None


@dataclass(eq=False)
class Repeat(Node):
    kind: str                # forever | times | while | until | from | in
    body: list[Node]
    var: str | None = None
    a: Node | None = None
    b: Node | None = None
    step: Node | None = None


@dataclass(eq=False)
class Exit(Node):
    pass


@dataclass(eq=False)
class Return(Node):
    value: Node | None


@dataclass(eq=False)
class Try(Node):
    body: list[Node]
    handler: list[Node] | None
    msg_var: str | None = None
    num_var: str | None = None
    from_var: str | None = None
    partial_var: str | None = None
    to_var: str | None = None


@dataclass(eq=False)
class Raise(Node):
    message: Node | None
    number: Node | None
    from_: Node | None = None
    partial: Node | None = None


@dataclass(eq=False)
class HandlerDef(Node):
    name: str
    params: list[str]
    body: list[Node]


@dataclass(eq=False)
class PropertyDecl(Node):
    name: str
    value: Node


@dataclass(eq=False)
class Declare(Node):
    scope: str  # global | local
    names: list[str]


@dataclass(eq=False)
class Log(Node):
    value: Node


@dataclass(eq=False)
class Delay(Node):
    value: Node | None


@dataclass(eq=False)
class Considering(Node):
    attrs: dict[str, bool]   # attribute → considered?
    body: list[Node]


@dataclass(eq=False)
class Block(Node):
    """``with timeout``, ``using terms from``, ``with transaction``: just a body here."""

    body: list[Node]


@dataclass(eq=False)
class Script(Node):
    body: list[Node]
    handlers: dict[str, HandlerDef]
    properties: list[PropertyDecl]
