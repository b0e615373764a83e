"""Layer 1 of the sandbox: a static AST check with messages an agent can act on.

This layer exists for clear feedback, not for security: it rejects the obvious ways out
(imports of os/subprocess/socket, ``open``, ``eval``, dunder attributes, frame walks) before the
code runs, and says what to do instead.  Code that slips past it still runs inside the OS
sandbox (layer 2) under limits (layer 3).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_ALLOWED_IMPORTS: frozenset[str] = frozenset({
    # pure computation from the standard library
    "math", "cmath", "decimal", "fractions", "random", "statistics", "numbers",
    "json", "re", "string", "textwrap", "unicodedata", "difflib",
    "datetime", "time", "calendar", "zoneinfo",
    "collections", "itertools", "functools", "operator", "heapq", "bisect", "array",
    "copy", "dataclasses", "enum", "typing", "abc", "contextlib", "pprint", "reprlib",
    "base64", "binascii", "hashlib", "hmac", "struct", "uuid", "colorsys", "csv", "io",
    # numerical and imaging libraries the benchmarks use
    "numpy", "PIL", "cv2", "matplotlib", "scipy",
})

# Calls and names that reach outside the computation or defeat the checks below.
BLOCKED_NAMES: dict[str, str] = {
    "open": "there is no file access here; read and write data through the provided tools",
    "exec": "running generated code is not allowed; write the code directly",
    "eval": "running generated code is not allowed; write the expression directly",
    "compile": "compiling code is not allowed; write the code directly",
    "__import__": "use a plain `import` statement of an allowed module",
    "globals": "namespace introspection is not allowed; use your variables directly",
    "locals": "namespace introspection is not allowed; use your variables directly",
    "vars": "namespace introspection is not allowed; use the object's attributes directly",
    "getattr": "dynamic attribute access is not allowed; write `obj.name` directly",
    "setattr": "dynamic attribute access is not allowed; write `obj.name = value` directly",
    "delattr": "dynamic attribute access is not allowed; write `del obj.name` directly",
    "breakpoint": "there is no debugger here; print values instead",
    "input": "there is no interactive input; the data you need comes from the tools",
    "help": "interactive help is not available; tool docstrings are in the tool list",
    "exit": "ending the interpreter is not allowed; just stop writing code",
    "quit": "ending the interpreter is not allowed; just stop writing code",
    "memoryview": "raw memory access is not allowed; use bytes or numpy arrays",
    "__builtins__": "the builtins module is not reachable; call builtins by name",
    "__loader__": "import machinery is not reachable",
    "__spec__": "import machinery is not reachable",
}

# Attributes that expose interpreter internals (frames, code objects, globals of functions).
BLOCKED_ATTRIBUTES: frozenset[str] = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame", "ag_code",
    "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame", "tb_next",
    "co_code", "func_globals", "format_map", "mro",
})

_DUNDER_IN_STRING = re.compile(r"__\w+__")


@dataclass(frozen=True)
class PolicyViolation:
    """One rule broken by the code: where (1-based line) and what to do instead."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _top(module: str) -> str:
    return module.split(".", 1)[0]


class Policy:
    """The static check for one sandbox configuration.

    ``allowed_imports`` are top-level module names (a submodule of an allowed module is allowed);
    ``extra_modules`` are virtual modules made by the sandbox itself (dotted tool names);
    ``tool_names`` only improve the messages.
    """

    def __init__(self, allowed_imports: Iterable[str] = DEFAULT_ALLOWED_IMPORTS,
                 extra_modules: Iterable[str] = (), tool_names: Iterable[str] = (),
                 max_code_chars: int = 100_000) -> None:
        self.allowed = frozenset(allowed_imports) | frozenset(_top(m) for m in extra_modules)
        self.tool_names = sorted(tool_names)
        # A tool may be named like a blocked builtin (e.g. "input", "open"): calling it is fine.
        self.tool_globals = frozenset(n.split(".", 1)[0] for n in self.tool_names)
        self.max_code_chars = max_code_chars

    def _hint(self) -> str:
        mods = ", ".join(sorted(self.allowed))
        hint = f"Allowed imports: {mods}."
        if self.tool_names:
            shown = ", ".join(self.tool_names[:12]) + (", ..." if len(self.tool_names) > 12 else "")
            hint += f" Reach files, images and the outside world through the tools: {shown}."
        return hint

    def check(self, code: str) -> list[PolicyViolation]:
        """Return every violation found in ``code`` (empty when the code may run)."""
        if len(code) > self.max_code_chars:
            return [PolicyViolation(1, f"the code is {len(code)} characters long; the limit is "
                                       f"{self.max_code_chars}. Split it into smaller runs.")]
        try:
            tree = ast.parse(code, "<cell>", "exec")
        except SyntaxError:
            # Reported by the worker with the usual caret display; nothing to check statically.
            return []
        except (RecursionError, MemoryError, ValueError) as exc:
            return [PolicyViolation(1, f"the code cannot be parsed ({type(exc).__name__}); "
                                       "it nests too deeply or contains NUL bytes. Simplify it.")]
        found: list[PolicyViolation] = []
        seen: set[tuple[int, str]] = set()

        def add(node: ast.AST, msg: str) -> None:
            key = (getattr(node, "lineno", 1), msg)
            if key not in seen:
                seen.add(key)
                found.append(PolicyViolation(key[0], msg))

        for node in ast.walk(tree):  # ast.walk is iterative: deep trees cannot blow the stack here
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _top(alias.name) not in self.allowed:
                        add(node, f"`import {alias.name}` is not allowed in this sandbox. {self._hint()}")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    add(node, "relative imports are not allowed; there is no package here.")
                elif node.module is None or _top(node.module) not in self.allowed:
                    add(node, f"`from {node.module} import ...` is not allowed in this sandbox. {self._hint()}")
            elif isinstance(node, ast.Name):
                if node.id in self.tool_globals:
                    continue
                if node.id in BLOCKED_NAMES:
                    add(node, f"`{node.id}` is blocked: {BLOCKED_NAMES[node.id]}.")
                elif node.id.startswith("__") and node.id.endswith("__") and node.id not in ("__name__",):
                    add(node, f"the name `{node.id}` is blocked: interpreter internals are not reachable.")
            elif isinstance(node, ast.Attribute):
                if node.attr.startswith("__") and node.attr.endswith("__"):
                    add(node, f"the attribute `.{node.attr}` is blocked: dunder attributes expose "
                              "interpreter internals. Use the object's public API instead.")
                elif (node.attr in ("open", "FileIO", "open_code") and isinstance(node.value, ast.Name)
                      and node.value.id == "io"):
                    add(node, f"`io.{node.attr}` is blocked: {BLOCKED_NAMES['open']}.")
                elif node.attr in BLOCKED_ATTRIBUTES:
                    add(node, f"the attribute `.{node.attr}` is blocked: it exposes interpreter "
                              "internals (frames, code objects or formatter traversal).")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                m = _DUNDER_IN_STRING.search(node.value)
                if m and m.group(0) != "__main__":
                    add(node, f"strings naming dunder attributes (`{m.group(0)}`) are blocked: they are "
                              "used to reach interpreter internals via format strings or getattr.")
        return sorted(found, key=lambda v: v.line)

    def format(self, violations: list[PolicyViolation]) -> str:
        """A short message listing the violations, for the agent to read."""
        head = "PolicyError: the code was not run because it breaks the sandbox rules:"
        return "\n".join([head, *(f"  - {v}" for v in violations[:10])] +
                         ([f"  ... and {len(violations) - 10} more"] if len(violations) > 10 else []))
