"""Tree-walking evaluator for compiled AppleScript (:mod:`.nodes`).

Semantics follow the real runtime where scripts can tell the difference: text comparison ignores
case unless ``considering case``; ``1 = "1"`` is false; ``repeat with x in l`` binds a reference
(``item i of l``) that ``=`` does not see through; handlers see only their parameters, globals
and properties; inside ``tell application "X"`` a plain handler call goes to the app (use
``my``); app errors read ``"X got an error: …"``; integers overflow into reals; ``do shell
script`` turns line feeds into returns. Every statement, loop turn, handler call and ``whose``
test costs one step of the host's budget.
"""

from __future__ import annotations

import math
import re
import time
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import Any

from mmenvs.core.budget import Deadline, current_deadline, deadline_scope
from mmenvs.core.confined import ConfinementError

from . import nodes as N
from .errors import (ERR_CANT_SET, ERR_COERCION, ERR_DIVIDE_BY_ZERO, ERR_GENERIC, ERR_NO_SUCH_OBJECT,
                     ERR_NOT_UNDERSTOOD, ERR_OUT_OF_MEMORY, ERR_PARAMS, ERR_STACK_OVERFLOW, ERR_TIMEOUT,
                     ERR_UNDEFINED_VARIABLE, ERR_USER_CANCELED, AppleScriptError, DeadlinePassed, StepBudgetExceeded,
                     out_of_memory)
from .model import AppleScriptHost, DialogRequest, ObjectRef
from .values import (MAX_INTEGER, MONTHS, TEXT_VALUE_PROPERTIES, WEEKDAYS, AppObject, Application, BoundText,
                     Constant, FileRef, ItemRef, RichText, add_seconds,
                     class_name, coerce, compare, date_string, deref, fold, format_result,
                     hfs_to_posix, norm_number, short_date_string, source_form, time_string,
                     values_equal)


class _Nothing:
    """No result (a command that returns nothing)."""

    def __repr__(self) -> str:
        return "NOTHING"


NOTHING = _Nothing()


class Plural(list):
    """Elements resolved from a plural reference (``every note``): property access maps over them."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _ExitRepeat(Exception):
    pass


class _Frame:
    __slots__ = ("locals", "globals", "is_run", "result")

    def __init__(self, locals_: dict[str, Any], is_run: bool) -> None:
        self.locals = locals_
        self.globals: set[str] = set()
        self.is_run = is_run
        self.result: Any = NOTHING


_BUILTIN_ELEMENT_CLASSES = {"item", "character", "word", "paragraph", "text item", "text", "string",
                            "integer", "real", "number", "list", "record", "boolean", "date",
                            "unicode text"}
_TYPE_FILTER = {"integer": "integer", "real": "real", "number": "number", "text": "text",
                "string": "text", "unicode text": "text", "list": "list", "record": "record",
                "boolean": "boolean", "date": "date"}


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:['’.,][^\W_]+)*", text)


def _paragraphs(text: str) -> list[str]:
    if not text:
        return []
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


_NEEDS_DIRECT = {"round", "ascii character", "ascii number", "offset", "delete", "exists", "do shell script",
                 "display dialog", "display alert", "display notification"}


class Interpreter:
    """Runs one compiled script against a host. Use :func:`~.run_applescript` normally."""

    def __init__(self, script: N.Script, source: str, host: AppleScriptHost, argv: list[str] | None = None) -> None:
        self.script = script
        self.argv = list(argv or [])
        self.source = source
        self.host = host
        self.limits = host.limits
        self.steps = 0
        self.call_depth = 0
        self.built = 0  # characters and list items made by this run (Limits.max_built_chars)
        self.deadline = _run_deadline(self.limits)
        self.globals: dict[str, Any] = {}
        self.properties: dict[str, Any] = {}
        self.declared_globals: set[str] = set()
        self.tid: list[str] = [""]
        self.case_sensitive = False
        self.targets: list[Any] = []
        self.whose: list[Any] = []
        self.frame = _Frame(self.globals, True)
        self._eval = {
            N.Lit: self.ev_lit, N.ListLit: self.ev_list, N.RecordLit: self.ev_record, N.Var: self.ev_var,
            N.Chain: self.ev_chain, N.Unary: self.ev_unary, N.Coerce: self.ev_coerce, N.Its: self.ev_its,
            N.Me: lambda n: Constant("«script»"), N.ScriptObj: lambda n: Constant("AppleScript"),
            N.Prop: self.ev_prop, N.PropList: self.ev_prop_list, N.Elements: self.ev_elements, N.Insertion: self.ev_insertion,
            N.AppSpec: self.ev_appspec, N.DateLit: self.ev_date, N.FileLit: self.ev_file,
            N.Exists: self.ev_exists, N.Call: self.ev_call, N.Command: self.ev_command,
        }
        self._exec = {
            N.ExprStmt: self.ex_expr, N.Set: self.ex_set, N.Copy: self.ex_copy, N.Tell: self.ex_tell,
            N.If: self.ex_if, N.Repeat: self.ex_repeat, N.Exit: self.ex_exit, N.Return: self.ex_return,
            N.Try: self.ex_try, N.Raise: self.ex_raise, N.Declare: self.ex_declare, N.Log: self.ex_log,
            N.Delay: self.ex_delay, N.Considering: self.ex_considering, N.Block: self.ex_block,
        }

    # ------------------------------------------------------------------ entry
    def run(self) -> Any:
        # Host work the script starts (do shell script, app commands) runs under the script's deadline.
        with deadline_scope(self.deadline) if self.deadline is not None else nullcontext():
            return self._run_script()

    def _run_script(self) -> Any:
        for decl in self.script.properties:
            self.properties[decl.name] = self.guard(decl, lambda d=decl: self.eval(d.value))
        try:
            run = self.script.handlers.get("run")
            if run is not None:
                self.exec_block(self.script.body)
                return self.call_handler(run, [list(self.argv)] if run.params else [], run)
            self.exec_block(self.script.body)
        except _Return as r:
            return r.value
        except _ExitRepeat:
            raise AppleScriptError("Can’t exit outside of a repeat loop.", -2700) from None
        return self.frame.result

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.limits.max_steps:
            raise StepBudgetExceeded(
                f"The script was stopped after {self.limits.max_steps} steps (step budget exceeded: an endless "
                f"loop?).", ERR_TIMEOUT)
        self.check_deadline()

    def check_deadline(self) -> None:
        """End the script once its wall-clock deadline has passed (called every step and by costly builtins)."""
        if self.deadline is not None and time.monotonic() >= self.deadline.ends_at:
            raise DeadlinePassed(f"AppleEvent timed out: the script ran past the action deadline "
                                 f"action_timeout={self.deadline.seconds:g} s and was stopped.", ERR_TIMEOUT)

    def charge(self, size: int) -> None:
        """Count ``size`` characters or list items the script just built against ``Limits.max_built_chars``
        (a bound on the memory a run can take, whatever it keeps alive)."""
        self.built += size
        if self.built > self.limits.max_built_chars:
            raise AppleScriptError(f"Out of memory: the script built more than {self.limits.max_built_chars:,} characters "
                                   f"and list items in all (the episode budget script_built_chars).", ERR_OUT_OF_MEMORY)

    def guard(self, node: N.Node, fn: Any) -> Any:
        try:
            return fn()
        except AppleScriptError as e:
            raise e.at(self.source, node.start, node.end)

    # ------------------------------------------------------------------ statements
    def exec_block(self, body: list[N.Node]) -> None:
        for stmt in body:
            self.tick()
            try:
                self._exec[type(stmt)](stmt)
            except AppleScriptError as e:
                raise e.at(self.source, stmt.start, stmt.end)

    def set_result(self, value: Any) -> None:
        self.frame.result = value

    def ex_expr(self, node: N.ExprStmt) -> None:
        value = self.eval_node(node.expr, raw=True)
        if value is not NOTHING:
            value = self.strip_plural(value)
        self.set_result(value)

    def ex_set(self, node: N.Set) -> None:
        value = self.eval(node.value, raw=isinstance(node.value, N.Var))
        self.assign(node.target, self.strip_plural(value))
        self.set_result(value)

    def ex_copy(self, node: N.Copy) -> None:
        value = self.eval(node.value)
        dup = _copy_value(self.strip_plural(value))
        self.assign(node.target, dup)
        self.set_result(value)

    def ex_tell(self, node: N.Tell) -> None:
        target = self.eval(node.target)
        if isinstance(target, Application):
            self.host_call(self.host.app, target.name)
        self.targets.append(target)
        try:
            self.exec_block(node.body)
        finally:
            self.targets.pop()

    def ex_if(self, node: N.If) -> None:
        for cond, body in node.branches:
            if self.truth(self.eval(cond)):
                self.exec_block(body)
                return
        if node.orelse is not None:
            self.exec_block(node.orelse)

    def ex_repeat(self, node: N.Repeat) -> None:
        try:
            if node.kind == "forever":
                while True:
                    self.tick()
                    self.exec_block(node.body)
            elif node.kind == "times":
                n = coerce(self.eval(node.a), "integer")  # type: ignore[arg-type]
                for _ in range(max(0, n)):
                    self.tick()
                    self.exec_block(node.body)
            elif node.kind in ("while", "until"):
                want = node.kind == "while"
                while self.truth(self.eval(node.a)) == want:  # type: ignore[arg-type]
                    self.tick()
                    self.exec_block(node.body)
            elif node.kind == "from":
                a = self.number(self.eval(node.a))  # type: ignore[arg-type]
                b = self.number(self.eval(node.b))  # type: ignore[arg-type]
                step = self.number(self.eval(node.step)) if node.step is not None else 1
                if step == 0:
                    raise AppleScriptError("The “by” value of a repeat loop can’t be zero.", -2700)
                i = a
                while (i <= b) if step > 0 else (i >= b):
                    self.tick()
                    self.set_var(node.var, i)  # type: ignore[arg-type]
                    self.exec_block(node.body)
                    i = norm_number(i + step)
            else:  # in
                seq = deref(self.eval(node.a, raw=True))  # type: ignore[arg-type]
                if isinstance(seq, str):
                    seq = list(seq)
                elif isinstance(seq, dict):
                    raise AppleScriptError(f"Can’t make {source_form(seq)} into type list.", ERR_COERCION)
                elif not isinstance(seq, list):
                    seq = [seq]
                if isinstance(seq, Plural):
                    seq = list(seq)
                count = len(seq)
                for i in range(1, count + 1):
                    self.tick()
                    if i > len(seq):
                        break
                    self.set_var(node.var, ItemRef(seq, i))  # type: ignore[arg-type]
                    self.exec_block(node.body)
        except _ExitRepeat:
            pass

    def ex_exit(self, node: N.Exit) -> None:
        raise _ExitRepeat()

    def ex_return(self, node: N.Return) -> None:
        value = NOTHING if node.value is None else self.strip_plural(self.eval(node.value, raw=True))
        raise _Return(value)

    def ex_try(self, node: N.Try) -> None:
        try:
            self.exec_block(node.body)
        except StepBudgetExceeded:
            raise
        except AppleScriptError as e:
            if node.handler is None:
                return
            if node.msg_var:
                self.set_var(node.msg_var, e.message)
            if node.num_var:
                self.set_var(node.num_var, e.number)
            if node.from_var:
                self.set_var(node.from_var, e.offending)
            if node.partial_var:
                self.set_var(node.partial_var, e.partial_result)
            if node.to_var:
                self.set_var(node.to_var, None)
            self.exec_block(node.handler)

    def ex_raise(self, node: N.Raise) -> None:
        number = ERR_GENERIC if node.number is None else coerce(self.eval(node.number), "integer")
        if node.message is None:
            message = f"An error of type {number} has occurred."
        else:
            message = coerce(self.eval(node.message), "text")
        offending = self.eval(node.from_) if node.from_ is not None else None
        partial = self.eval(node.partial) if node.partial is not None else None
        raise AppleScriptError(message, number, offending=offending, partial_result=partial)

    def ex_declare(self, node: N.Declare) -> None:
        for name in node.names:
            if node.scope == "global":
                self.frame.globals.add(name)
                if self.frame.is_run:
                    self.declared_globals.add(name)
            elif not self.frame.is_run:
                self.frame.locals.setdefault(name, NOTHING)

    def ex_log(self, node: N.Log) -> None:
        value = self.eval(node.value)
        self.host_call(self.host.log, format_result(self.strip_plural(value)))

    def ex_delay(self, node: N.Delay) -> None:
        seconds = 0 if node.value is None else self.number(self.eval(node.value))
        self.host_call(self.host.delay, float(seconds))

    def ex_considering(self, node: N.Considering) -> None:
        saved = self.case_sensitive
        if "case" in node.attrs:
            self.case_sensitive = node.attrs["case"]
        try:
            self.exec_block(node.body)
        finally:
            self.case_sensitive = saved

    def ex_block(self, node: N.Block) -> None:
        self.exec_block(node.body)

    # ------------------------------------------------------------------ variables
    def get_var(self, name: str, text: str) -> Any:
        if name == "result":
            return None if self.frame.result is NOTHING else self.frame.result
        f = self.frame
        if name in f.locals and (f.is_run or name not in f.globals):
            value = f.locals[name]
        elif (name in f.globals or name in self.declared_globals) and name in self.globals:
            value = self.globals[name]
        elif name in self.properties:
            value = self.properties[name]
        else:
            value = NOTHING
        if value is NOTHING:
            raise AppleScriptError(f"The variable {text} is not defined.", ERR_UNDEFINED_VARIABLE)
        return value

    def set_var(self, name: str, value: Any) -> None:
        f = self.frame
        if f.is_run:
            if name in self.properties and name not in self.globals:
                self.properties[name] = value
            else:
                self.globals[name] = value
            return
        if name in f.globals or (name in self.declared_globals and name not in f.locals):
            self.globals[name] = value
        elif name in self.properties and name not in f.locals:
            self.properties[name] = value
        else:
            f.locals[name] = value

    # ------------------------------------------------------------------ evaluation core
    def eval(self, node: N.Node, raw: bool = False) -> Any:
        value = self.eval_node(node, raw)
        if value is NOTHING:
            raise AppleScriptError("No result was returned from some part of this expression.", -2763)
        return value

    def eval_node(self, node: N.Node, raw: bool = False) -> Any:
        value = self._eval[type(node)](node)
        return value if raw else deref(value)

    def truth(self, value: Any) -> bool:
        return bool(coerce(value, "boolean"))

    def number(self, value: Any) -> int | float:
        value = deref(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        return coerce(value, "number")

    @staticmethod
    def strip_plural(value: Any) -> Any:
        return list(value) if isinstance(value, Plural) else value

    def ev_lit(self, node: N.Lit) -> Any:
        return node.value

    def ev_list(self, node: N.ListLit) -> Any:
        out = [self.strip_plural(self.eval(item, raw=True)) for item in node.items]
        self.charge(len(out))
        return out

    def ev_record(self, node: N.RecordLit) -> Any:
        rec: dict[str, Any] = {}
        for key, expr in node.pairs:
            rec[key] = self.strip_plural(self.eval(expr))
        return rec

    def ev_var(self, node: N.Var) -> Any:
        if node.name == "applescript":
            return Constant("AppleScript")
        return self.get_var(node.name, node.text)

    def ev_its(self, node: N.Its) -> Any:
        if self.whose:
            return self.whose[-1]
        if self.targets:
            return self.targets[-1]
        return Constant("«script»")

    def ev_appspec(self, node: N.AppSpec) -> Any:
        name = coerce(self.eval(node.name), "text")
        return Application(name)

    def ev_date(self, node: N.DateLit) -> Any:
        value = self.eval(node.operand)
        if isinstance(value, datetime):
            return value
        return self.guard(node, lambda: coerce(value, "date", now=self.host.now()))

    def ev_file(self, node: N.FileLit) -> Any:
        value = self.eval(node.operand)
        if isinstance(value, FileRef):
            return FileRef(value.path, node.kind)
        return FileRef(hfs_to_posix(coerce(value, "text")), node.kind)

    def ev_coerce(self, node: N.Coerce) -> Any:
        value = self.strip_plural(self.eval(node.operand))
        if node.type_name == "alias list":  # Finder's ``every file of desktop as alias list``
            items = value if isinstance(value, list) else [value]
            return [self.coerce_value(deref(v), "alias", node) for v in items]
        return self.coerce_value(value, node.type_name, node)

    def coerce_value(self, value: Any, type_name: str, node: N.Node) -> Any:
        if isinstance(value, AppObject) and hasattr(value.app, "coerce"):
            # an app object is coerced by its app (Finder turns an item into an alias), as the real
            # runtime sends the requested type along with the ``get``
            out = self.guard(node, lambda: self.app_call(value.app_name, value.app.coerce, value.ref, type_name))
            if out is not NotImplemented:
                return self.wrap(value.app_name, value.app, out, value.desc)
        self.check_deadline()
        out = self.guard(node, lambda: coerce(value, type_name, self.tid, self.host.now(),
                                              self.limits.max_text_length))
        if isinstance(out, (str, list)) and out is not value:
            self.charge(len(out))
        if isinstance(out, FileRef) and out.kind == "alias" and not self.guard(
                node, lambda: self.host_call(self.host.path_exists, out.path)):
            raise AppleScriptError(f"File {out.hfs()} wasn’t found.", -43).at(self.source, node.start, node.end)
        return out

    def ev_unary(self, node: N.Unary) -> Any:
        value = self.eval(node.operand)
        if node.op == "not":
            return not self.truth(value)
        n = self.number(value)
        return norm_number(-n) if node.op == "-" else n

    def ev_chain(self, node: N.Chain) -> Any:
        try:
            first_raw = bool(node.rest) and node.rest[0][0] in ("=", "≠")
            acc = self.eval(node.first, raw=first_raw)
            for idx, (op, operand) in enumerate(node.rest):
                if op == "and":
                    if not self.truth(acc):
                        acc = False
                        break
                    acc = self.truth(self.eval(operand))
                    continue
                if op == "or":
                    if self.truth(acc):
                        acc = True
                        break
                    acc = self.truth(self.eval(operand))
                    continue
                right = self.eval(operand, raw=op in ("=", "≠"))
                acc = self.binop(op, acc, right)
            return acc
        except AppleScriptError as e:
            raise e.at(self.source, node.start, node.end)

    def binop(self, op: str, a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int and op in ("+", "-", "*"):  # the common loop-counter case
            r = a + b if op == "+" else (a - b if op == "-" else a * b)
            return r if -MAX_INTEGER <= r <= MAX_INTEGER else float(r)
        cs = self.case_sensitive
        if op == "=":
            return values_equal(self.strip_plural(a), self.strip_plural(b), cs)
        if op == "≠":
            return not values_equal(self.strip_plural(a), self.strip_plural(b), cs)
        a, b = deref(a), deref(b)
        if op == "&":
            return self.concat(a, b)
        if op in ("+", "-"):
            if isinstance(a, datetime):
                if op == "-" and isinstance(b, datetime):
                    return norm_number(int((a - b).total_seconds()))
                secs = self.number(b)
                return add_seconds(a, secs if op == "+" else -secs)
            if isinstance(b, datetime) and op == "+":
                return add_seconds(b, self.number(a))
            x, y = self.number(a), self.number(b)
            return _finite(norm_number(x + y if op == "+" else x - y))
        if op in ("*", "/", "div", "mod", "^"):
            x, y = self.number(a), self.number(b)
            if op == "*":
                return _finite(norm_number(x * y))
            if op == "^":
                try:
                    return _finite(float(x) ** float(y))
                except (OverflowError, ZeroDivisionError):
                    raise AppleScriptError("Result is out of range.", -2702) from None
            if y == 0:
                raise AppleScriptError(f"Can’t divide {format_result(float(x) if op == '/' else x)} by zero.",
                                       ERR_DIVIDE_BY_ZERO)
            if op == "/":
                return _finite(x / y)
            if op == "div":
                return norm_number(int(x / y))
            r = math.fmod(x, y)
            return norm_number(int(r)) if isinstance(x, int) and isinstance(y, int) else r
        if op in ("<", ">", "≤", "≥"):
            c = compare(a, b, cs)
            return {"<": c < 0, ">": c > 0, "≤": c <= 0, "≥": c >= 0}[op]
        if op in ("contains", "!contains", "in", "!in"):
            if op in ("in", "!in"):
                a, b = b, a
            result = self.contains(a, b)
            return (not result) if op.startswith("!") else result
        if op in ("starts", "!starts", "ends", "!ends"):
            result = self.starts_ends(a, b, op.lstrip("!") == "starts")
            return (not result) if op.startswith("!") else result
        raise AppleScriptError(f"Unknown operator {op}.", ERR_GENERIC)

    def concat(self, a: Any, b: Any) -> Any:
        a, b = self.strip_plural(a), self.strip_plural(b)
        self.check_deadline()
        if isinstance(a, str):
            right = coerce(b, "text", self.tid, None, self.limits.max_text_length)
            if len(a) + len(right) > self.limits.max_text_length:
                raise out_of_memory("a text", self.limits.max_text_length)
            self.charge(len(a) + len(right))
            return a + right
        if isinstance(a, dict) and isinstance(b, dict):
            seen = {k.casefold() for k in a}
            return {**a, **{k: v for k, v in b.items() if k.casefold() not in seen}}
        left = list(a) if isinstance(a, list) else [a]
        right = list(b) if isinstance(b, list) else (list(b.values()) if isinstance(b, dict) else [b])
        if len(left) + len(right) > self.limits.max_list_length:
            raise out_of_memory("a list", self.limits.max_list_length, "items")
        self.charge(len(left) + len(right))
        return left + right

    def contains(self, a: Any, b: Any) -> bool:
        cs = self.case_sensitive
        a, b = self.strip_plural(a), self.strip_plural(b)
        self.check_deadline()
        if isinstance(a, str):
            return fold(coerce(b, "text", self.tid), cs) in fold(a, cs)
        if isinstance(a, list):
            sub = b if isinstance(b, list) else [b]
            if not sub:
                return True
            for i in range(len(a) - len(sub) + 1):
                if i & 4095 == 4095:
                    self.check_deadline()
                if all(values_equal(deref(a[i + j]), deref(sub[j]), cs) for j in range(len(sub))):
                    return True
            return False
        if isinstance(a, dict):
            if not isinstance(b, dict):
                raise AppleScriptError(f"Can’t make {source_form(b)} into type record.", ERR_COERCION)
            return all(_record_key(a, k) is not None and values_equal(a[_record_key(a, k)], v, cs)
                       for k, v in b.items())
        raise AppleScriptError(f"Can’t make {source_form(a)} into type list.", ERR_COERCION)

    def starts_ends(self, a: Any, b: Any, starts: bool) -> bool:
        cs = self.case_sensitive
        a, b = self.strip_plural(a), self.strip_plural(b)
        self.check_deadline()
        if isinstance(a, str):
            x, y = fold(a, cs), fold(coerce(b, "text", self.tid), cs)
            return x.startswith(y) if starts else x.endswith(y)
        if isinstance(a, list):
            sub = b if isinstance(b, list) else [b]
            if len(sub) > len(a):
                return False
            part = a[:len(sub)] if starts else a[len(a) - len(sub):]
            return all(values_equal(deref(x), deref(y), cs) for x, y in zip(part, sub))
        raise AppleScriptError(f"Can’t make {source_form(a)} into type list.", ERR_COERCION)

    # ------------------------------------------------------------------ applications
    def app_of(self, target: Any) -> tuple[str, Any] | None:
        if isinstance(target, Application):
            return target.name, self.host_call(self.host.app, target.name)
        if isinstance(target, AppObject):
            return target.app_name, target.app
        return None

    def app_call(self, app_name: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except StepBudgetExceeded:
            raise
        except AppleScriptError as e:
            raise e.from_app(app_name)
        except (RecursionError, MemoryError):
            raise
        except ConfinementError as exc:  # a file the app may not touch (a symlink, a FIFO, …): the layer names it
            raise AppleScriptError(exc.strerror or str(exc), ERR_GENERIC).from_app(app_name) from None
        except Exception as exc:  # an app bug must not crash the script runner
            raise AppleScriptError("AppleEvent handler failed.", -10000).from_app(app_name) from exc

    def wrap(self, app_name: str, app: Any, value: Any, desc: str) -> Any:
        """App results → script values (handles become objects of that app; rich text stays text bound to it)."""
        if isinstance(value, RichText):
            return BoundText(value, AppObject(app_name, app, value.ref, desc))
        if isinstance(value, ObjectRef):
            return AppObject(app_name, app, value, desc)
        if isinstance(value, list):
            return [self.wrap(app_name, app, v, desc) for v in value]
        if isinstance(value, dict):
            return {str(k): self.wrap(app_name, app, v, desc) for k, v in value.items()}
        return value

    def unwrap(self, value: Any) -> Any:
        """Script values → what apps receive (objects become their handles)."""
        value = deref(value)
        if isinstance(value, BoundText):
            return str(value)  # apps get the text, never the script's object
        if isinstance(value, AppObject):
            return value.ref
        if isinstance(value, list):
            return [self.unwrap(v) for v in value]
        if isinstance(value, dict):
            return {k: self.unwrap(v) for k, v in value.items()}
        return value

    def host_call(self, fn: Any, *args: Any) -> Any:
        """Call a host service; its own failures (a shell timeout, a closed desktop) become script
        errors with the host's message instead of escaping the interpreter."""
        try:
            return fn(*args)
        except AppleScriptError:
            raise
        except (RecursionError, MemoryError):
            raise
        except Exception as exc:
            raise AppleScriptError(str(exc) or type(exc).__name__, ERR_GENERIC) from exc

    def current_target(self) -> Any:
        if self.whose:
            return self.whose[-1]
        if self.targets:
            return self.targets[-1]
        return None

    # ------------------------------------------------------------------ properties
    def ev_prop(self, node: N.Prop) -> Any:
        try:
            if node.container is None:
                target = self.current_target()
                if target is None:
                    return self.script_property(node.name)
            elif isinstance(node.container, (N.Me, N.ScriptObj)):
                return self.script_property(node.name)
            else:
                target = self.eval(node.container, raw=node.name == "contents")
            return self.property_of(target, node.name)
        except AppleScriptError as e:
            raise e.at(self.source, node.start, node.end)

    def ev_prop_list(self, node: N.PropList) -> Any:
        # the object is evaluated once; each item is then read from it as inside ``tell`` it
        target = self.eval(node.container)
        self.whose.append(target)
        try:
            return [self.strip_plural(self.eval(item)) for item in node.items]
        finally:
            self.whose.pop()

    def script_property(self, name: str) -> Any:
        if name == "text item delimiters":
            return list(self.tid) if len(self.tid) != 1 else self.tid[0]
        if name == "clipboard":
            return self.host_call(self.host.get_clipboard)
        if name in ("name",) and name not in self.globals and name not in self.properties:
            return "osascript"
        return self.get_var(name, name)

    def property_of(self, target: Any, name: str) -> Any:
        if name == "contents":
            # ``contents of`` a loop reference (``repeat with w in windows``) is the item; ``contents of``
            # an app object is the object itself, unless the app's dictionary declares a ``contents``
            # property (Terminal's tabs and windows): then the app is asked
            if isinstance(target, ItemRef) or not (isinstance(target, AppObject)
                                                   and self._app_declares(target.app, "contents")):
                return deref(target)
        target = deref(target)
        if isinstance(target, Plural):
            return Plural(self.property_of(t, name) for t in target)
        if isinstance(target, BoundText) and name.lower() not in TEXT_VALUE_PROPERTIES:
            target = target.obj  # ``color of body text``: the app's text object answers
        if isinstance(target, AppObject):
            if name == "class":
                return Constant(target.ref.cls)
            value = self.app_call(target.app_name, target.app.get_property, target.ref, name)
            return self.wrap(target.app_name, target.app, value, f"{name} of {target.desc or describe_short(target)}")
        if isinstance(target, Application):
            if name == "name" and not self._has_app(target.name):
                return target.name
            app = self.host_call(self.host.app, target.name)
            if name == "class":
                return Constant("application")
            value = self.app_call(target.name, app.get_property, None, name)
            return self.wrap(target.name, app, value, name)
        return self.value_property(target, name)

    @staticmethod
    def _app_declares(app: Any, prop: str) -> bool:
        terms = getattr(app, "terminology", None)
        return terms is not None and prop in terms.properties

    def _has_app(self, name: str) -> bool:
        try:
            self.host_call(self.host.app, name)
            return True
        except AppleScriptError:
            return False

    def value_property(self, value: Any, name: str) -> Any:
        if isinstance(value, dict):
            key = _record_key(value, name)
            if key is not None:
                return value[key]
            if name == "length":
                return len(value)
            if name == "class":
                return Constant("record")
            raise AppleScriptError(f"Can’t get {name} of {source_form(value)}.", ERR_NO_SUCH_OBJECT, offending=value)
        if name == "class":
            return Constant(class_name(value))
        if name == "length" and isinstance(value, (str, list)):
            return len(value)
        if isinstance(value, list):
            if name == "rest":
                return value[1:]
            if name == "reverse":
                return value[::-1]
        if isinstance(value, str):
            if name == "quoted form":
                return "'" + value.replace("'", "'\\''") + "'"
            if name.lower() == "posix path":  # an app's dictionary spells it ``POSIX path``
                return hfs_to_posix(value)
            if name == "id":
                ids = [ord(c) for c in value]
                return ids[0] if len(ids) == 1 else ids
        if isinstance(value, FileRef) and name.lower() == "posix path":
            return value.path
        if isinstance(value, datetime):
            props = {
                "year": lambda d: d.year, "month": lambda d: Constant(MONTHS[d.month - 1]),
                "day": lambda d: d.day, "weekday": lambda d: Constant(WEEKDAYS[d.weekday()]),
                "hours": lambda d: d.hour, "minutes": lambda d: d.minute, "seconds": lambda d: d.second,
                "time": lambda d: d.hour * 3600 + d.minute * 60 + d.second,
                "date string": date_string, "time string": time_string,
                "short date string": short_date_string,
            }
            if name in props:
                return props[name](value)
        raise AppleScriptError(f"Can’t get {name} of {source_form(value)}.", ERR_NO_SUCH_OBJECT, offending=value)

    def set_date_property(self, d: datetime, name: str, value: Any) -> datetime:
        n = value
        try:
            if name == "year":
                return d.replace(year=coerce(n, "integer"))
            if name == "month":
                month = MONTHS.index(n.name) + 1 if isinstance(n, Constant) and n.name in MONTHS else coerce(n, "integer")
                return d.replace(month=month)
            if name == "day":
                return d.replace(day=1) + timedelta(days=coerce(n, "integer") - 1)
            if name == "hours":
                return d.replace(hour=0) + timedelta(hours=coerce(n, "integer"))
            if name == "minutes":
                return d.replace(minute=0) + timedelta(minutes=coerce(n, "integer"))
            if name == "seconds":
                return d.replace(second=0) + timedelta(seconds=coerce(n, "integer"))
            if name == "time":
                return d.replace(hour=0, minute=0, second=0) + timedelta(seconds=coerce(n, "integer"))
        except (ValueError, OverflowError):
            pass
        raise AppleScriptError(f"Can’t set {name} of {source_form(d)} to {source_form(value)}.", ERR_CANT_SET)

    # ------------------------------------------------------------------ elements
    def ev_insertion(self, node: N.Insertion) -> Any:
        container = self.eval(node.container) if node.container is not None else None
        if isinstance(container, Plural) or isinstance(container, list):
            if not container:
                raise AppleScriptError(f"Can’t get {node.position} of {source_form(list(container))}.",
                                       ERR_NO_SUCH_OBJECT)
            return container[-1] if node.position == "end" else container[0]
        raise AppleScriptError(f"Can’t get {node.position} of {source_form(container)}.", ERR_NO_SUCH_OBJECT)

    def ev_elements(self, node: N.Elements) -> Any:
        try:
            return self.resolve_elements(node)
        except AppleScriptError as e:
            raise e.at(self.source, node.start, node.end)

    def describe_spec(self, node: N.Elements, arg: Any = None, arg2: Any = None) -> str:
        if node.sel == "every":
            return f"every {node.cls}"
        if node.sel == "ordinal":
            words = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh",
                     8: "eighth", 9: "ninth", 10: "tenth", -1: "last", "middle": "middle", "some": "some"}
            return f"{words.get(node.ordinal, str(node.ordinal))} {node.cls}"
        if node.sel == "id":
            return f"{node.cls} id {source_form(arg)}"
        if node.sel == "range":
            return f"{node.text or node.cls} {source_form(arg)} thru {source_form(arg2)}"
        return f"{node.cls} {source_form(arg)}"

    def resolve_elements(self, node: N.Elements) -> Any:
        if node.sel == "id" and node.cls in ("character", "text", "string", "unicode text") and node.container is None:
            return self.text_from_ids(self.eval(node.arg))  # type: ignore[arg-type]
        if node.container is None:
            container = self.current_target()
            if container is None:
                arg = self.eval(node.arg) if node.arg is not None else None
                raise AppleScriptError(f"Can’t get {self.describe_spec(node, arg)}.", ERR_NO_SUCH_OBJECT)
        else:
            container = self.eval(node.container)
        container = deref(container)
        if isinstance(container, Plural) and container and all(isinstance(c, AppObject) for c in container):
            return Plural(self.select_from(node, c) for c in container)
        return self.select_from(node, container)

    def select_from(self, node: N.Elements, container: Any) -> Any:
        arg = self.eval(node.arg) if node.arg is not None else None
        arg2 = self.eval(node.arg2) if node.arg2 is not None else None
        if isinstance(container, BoundText) and node.cls in ("character", "word", "paragraph"):
            # ``character 3 of body text``: the app's text elements, each again text bound to the app
            # (``text items of``, ``text 1 thru 5 of`` … stay AppleScript's own, on the text)
            found = self.select_app(node, container.obj, arg, arg2)
            return Plural(self.bound_text(o) for o in found) if isinstance(found, Plural) else self.bound_text(found)
        if isinstance(container, (AppObject, Application)):
            return self.select_app(node, container, arg, arg2)
        return self.select_value(node, container, arg, arg2)

    def select_app(self, node: N.Elements, container: Any, arg: Any, arg2: Any) -> Any:
        app_name, app = self.app_of(container)  # type: ignore[misc]
        cref = container.ref if isinstance(container, AppObject) else None
        spec = self.describe_spec(node, arg, arg2)
        where = f" of {container.desc or describe_short(container)}" if isinstance(container, AppObject) else ""
        desc = spec + where

        def missing() -> AppleScriptError:
            return AppleScriptError(f"Can’t get {desc}.", ERR_NO_SUCH_OBJECT).from_app(app_name)

        cls = node.cls
        if node.filter is None and node.sel in ("name", "id", "index") and (
                node.sel != "index" or isinstance(arg, str)):
            hook = getattr(app, "element_by_id" if node.sel == "id" else "element_by_name", None)
            if hook is not None:
                found = self.app_call(app_name, hook, cref, cls, arg)
                if found is not None:
                    return AppObject(app_name, app, found, desc)
        refs = self.app_call(app_name, app.elements, cref, cls)
        if node.filter is not None:
            kept = []
            for ref in refs:
                self.tick()
                obj = AppObject(app_name, app, ref, f"{cls} id {source_form(ref.id)}")
                self.whose.append(obj)
                try:
                    ok = self.truth(self.eval(node.filter))
                finally:
                    self.whose.pop()
                if ok:
                    kept.append(ref)
            refs = kept
            desc = f"{spec} whose {self.source[node.filter.start:node.filter.end]}{where}"
        objs = [AppObject(app_name, app, r, f"{cls} id {source_form(r.id)}{where}") for r in refs]
        sel = node.sel
        if sel == "every":
            return Plural(objs)
        if sel == "index" and isinstance(arg, str):
            sel = "name"
        if sel == "name":
            for o in objs:
                name = self.app_call(app_name, app.get_property, o.ref, "name")
                if isinstance(name, str) and fold(name, self.case_sensitive) == fold(coerce(arg, "text"), self.case_sensitive):
                    o.desc = desc
                    return o
            raise missing()
        if sel == "id":
            for o in objs:
                if values_equal(o.ref.id, arg):
                    return o
            raise missing()
        if sel == "range":
            lo, hi = self.range_bounds(arg, arg2, len(objs), missing)
            return Plural(objs[lo:hi])
        if sel == "index":
            i = self.index_of(arg, len(objs), missing)
            objs[i].desc = desc
            return objs[i]
        # ordinal
        i = self.ordinal_index(node.ordinal, len(objs), missing)
        objs[i].desc = desc
        return objs[i]

    def bound_text(self, obj: Any) -> Any:
        """A text element the app returned, as text bound to the app (its ``text`` property)."""
        if not isinstance(obj, AppObject):
            return obj
        text = self.app_call(obj.app_name, obj.app.get_property, obj.ref, "text")
        return BoundText(str(text), obj) if isinstance(text, str) else obj

    def text_from_ids(self, ids: Any) -> str:
        """``character id 65`` / ``string id {72, 105}``: text from Unicode code points."""
        codes = ids if isinstance(ids, list) else [ids]
        out = []
        for c in codes:
            n = coerce(c, "integer")
            if not 0 <= n <= 0x10FFFF:
                raise AppleScriptError(f"Can’t make {source_form(ids)} into type text.", ERR_COERCION)
            out.append(chr(n))
        self.charge(len(out))
        return "".join(out)

    def index_of(self, arg: Any, n: int, missing: Any) -> int:
        try:
            i = coerce(arg, "integer")
        except AppleScriptError:
            raise missing() from None
        if i == 0 or abs(i) > n:
            raise missing()
        return i - 1 if i > 0 else n + i

    def ordinal_index(self, which: Any, n: int, missing: Any) -> int:
        if n == 0:
            raise missing()
        if which == "middle":
            return (n - 1) // 2
        if which == "some":
            return self.host.rng.randrange(n)
        return self.index_of(which, n, missing)

    def range_bounds(self, a: Any, b: Any, n: int, missing: Any) -> tuple[int, int]:
        i = self.index_of(a, n, missing)
        j = self.index_of(b, n, missing)
        if i > j:
            i, j = j, i
        return i, j + 1

    def select_value(self, node: N.Elements, container: Any, arg: Any, arg2: Any) -> Any:
        cls = node.cls
        desc = f"{self.describe_spec(node, arg, arg2)} of {source_form(container)}"

        def missing() -> AppleScriptError:
            return AppleScriptError(f"Can’t get {desc}.", ERR_NO_SUCH_OBJECT, offending=container)

        if node.filter is not None:
            raise missing()
        if cls not in _BUILTIN_ELEMENT_CLASSES:
            raise missing()
        self.check_deadline()
        if isinstance(container, str):
            if cls in ("text", "string", "unicode text") and node.sel == "range":
                lo, hi = self.range_bounds(arg, arg2, len(container), missing)
                self.charge(hi - lo)
                return container[lo:hi]
            if cls in ("character", "item") and len(container) > self.limits.max_list_length:
                raise out_of_memory("a list", self.limits.max_list_length, "items")  # before the list is built
            if cls in ("character", "item"):
                items: list[Any] = list(container)
            elif cls == "word":
                items = _words(container)
            elif cls == "paragraph":
                items = _paragraphs(container)
            elif cls == "text item":
                items = self.text_items(container)
            else:
                raise missing()
        elif isinstance(container, list):
            if cls == "item":
                items = container
            elif cls in _TYPE_FILTER:
                want = _TYPE_FILTER[cls]
                items = [v for v in container if (class_name(v) == want or (
                    want == "number" and class_name(v) in ("integer", "real")))]
            else:
                raise missing()
        elif isinstance(container, dict) and cls == "item":
            items = list(container.values())
        else:
            raise missing()
        if len(items) > self.limits.max_list_length:
            raise out_of_memory("a list", self.limits.max_list_length, "items")
        sel = node.sel
        if sel == "every":
            self.charge(len(items))
            return list(items)
        if sel == "range":
            lo, hi = self.range_bounds(arg, arg2, len(items), missing)
            self.charge(max(0, hi - lo))
            return list(items[lo:hi])
        if sel == "index":
            if isinstance(arg, str):
                raise missing()
            return items[self.index_of(arg, len(items), missing)]
        if sel == "ordinal":
            return items[self.ordinal_index(node.ordinal, len(items), missing)]
        raise missing()

    def text_items(self, text: str) -> list[str]:
        delims = [d for d in self.tid if d != ""]
        if not delims:
            return list(text) if text else []
        if len(delims) == 1:
            if self.case_sensitive:
                return text.split(delims[0])
            return re.split(re.escape(delims[0]), text, flags=re.I)
        pattern = "|".join(re.escape(d) for d in sorted(delims, key=len, reverse=True))
        return re.split(pattern, text, flags=0 if self.case_sensitive else re.I)

    # ------------------------------------------------------------------ assignment
    def assign(self, target: N.Node, value: Any) -> None:
        if isinstance(target, N.Var):
            if target.name == "applescript":
                raise AppleScriptError("Can’t set AppleScript.", ERR_CANT_SET)
            self.set_var(target.name, value)
            return
        if isinstance(target, N.ListLit):
            value = deref(value)
            if not isinstance(value, list) or len(value) < len(target.items):
                raise AppleScriptError(f"Can’t get item {len(target.items)} of {source_form(value)}.",
                                       ERR_NO_SUCH_OBJECT)
            for sub, v in zip(target.items, value):
                self.assign(sub, v)
            return
        if isinstance(target, N.Prop):
            self.assign_property(target, value)
            return
        if isinstance(target, N.Insertion):
            container = deref(self.eval(target.container)) if target.container is not None else None
            if isinstance(container, list) and not isinstance(container, Plural):
                if len(container) >= self.limits.max_list_length:
                    raise out_of_memory("a list", self.limits.max_list_length, "items")
                self.charge(1)
                if target.position == "end":
                    container.append(value)
                else:
                    container.insert(0, value)
                return
            raise AppleScriptError(f"Can’t set {target.position} of {source_form(container)} to {source_form(value)}.",
                                   ERR_CANT_SET)
        if isinstance(target, N.Elements):
            container = deref(self.eval(target.container)) if target.container is not None else None
            if isinstance(container, list) and not isinstance(container, Plural) and target.cls == "item" \
                    and target.sel in ("index", "ordinal"):
                arg = self.eval(target.arg) if target.arg is not None else None

                def missing() -> AppleScriptError:
                    return AppleScriptError(f"Can’t set {self.describe_spec(target, arg)} of {source_form(container)} "
                                            f"to {source_form(value)}.", ERR_CANT_SET)
                i = (self.index_of(arg, len(container), missing) if target.sel == "index"
                     else self.ordinal_index(target.ordinal, len(container), missing))
                container[i] = value
                return
            raise AppleScriptError(f"Can’t set {self.describe_spec(target)} to {source_form(value)}.", ERR_CANT_SET)
        raise AppleScriptError(f"Can’t set {source_form(value)}.", ERR_CANT_SET)

    def assign_property(self, target: N.Prop, value: Any) -> None:
        name = target.name
        if target.container is None:
            owner = self.current_target()
            if owner is None:
                self.set_script_property(name, value)
                return
        elif isinstance(target.container, (N.Me, N.ScriptObj)):
            self.set_script_property(name, value)
            return
        else:
            owner = self.eval(target.container)
        self.set_property_of(owner, name, value, target.container)

    def set_script_property(self, name: str, value: Any) -> None:
        if name == "text item delimiters":
            value = deref(value)
            items = value if isinstance(value, list) else [value]
            self.tid = [coerce(v, "text") for v in items] or [""]
            return
        if name == "clipboard":
            self.host_call(self.host.set_clipboard, self.unwrap(value))
            return
        self.set_var(name, value)

    def set_property_of(self, owner: Any, name: str, value: Any, container_node: N.Node | None) -> None:
        owner = deref(owner)
        if isinstance(owner, BoundText):
            owner = owner.obj
        if isinstance(owner, Plural):
            for o in owner:
                self.set_property_of(o, name, value, None)
            return
        if isinstance(owner, AppObject):
            self.app_call(owner.app_name, owner.app.set_property, owner.ref, name, self.unwrap(value))
            return
        if isinstance(owner, Application):
            app = self.host_call(self.host.app, owner.name)
            self.app_call(owner.name, app.set_property, None, name, self.unwrap(value))
            return
        if isinstance(owner, dict):
            owner[_record_key(owner, name) or name] = value
            return
        if isinstance(owner, datetime) and isinstance(container_node, N.Var):
            self.set_var(container_node.name, self.set_date_property(owner, name, value))
            return
        raise AppleScriptError(f"Can’t set {name} of {source_form(owner)} to {source_form(value)}.", ERR_CANT_SET)

    # ------------------------------------------------------------------ exists / handlers
    def ev_exists(self, node: N.Exists) -> Any:
        try:
            value = self.eval(node.operand)
        except StepBudgetExceeded:
            raise
        except AppleScriptError as e:
            if e.number in (ERR_NO_SUCH_OBJECT, -1719):
                return False
            raise
        if isinstance(value, Plural):
            return len(value) > 0
        if isinstance(value, FileRef):
            return self.host_call(self.host.path_exists, value.path)
        return value is not None

    def ev_call(self, node: N.Call) -> Any:
        try:
            handler = self.script.handlers.get(node.name)
            if not node.my:
                for target in reversed(self.targets):
                    if isinstance(target, (Application, AppObject)):
                        app_name = target.name if isinstance(target, Application) else target.app_name
                        raise AppleScriptError(f"Can’t continue {node.name}.", ERR_NOT_UNDERSTOOD).from_app(app_name)
            if handler is None:
                raise AppleScriptError(f"«script» doesn’t understand the “{node.name}” message.", ERR_NOT_UNDERSTOOD)
            args = [self.strip_plural(self.eval(a, raw=True)) for a in node.args]
            return self.call_handler(handler, args, node)
        except AppleScriptError as e:
            raise e.at(self.source, node.start, node.end)

    def call_handler(self, handler: N.HandlerDef, args: list[Any], node: N.Node) -> Any:
        if len(args) != len(handler.params):
            raise AppleScriptError(f"{source_form(args)} doesn’t match the parameters {{{', '.join(handler.params)}}} "
                                   f"for {handler.name}.", ERR_PARAMS)
        self.tick()
        if self.call_depth >= self.limits.max_call_depth:
            raise AppleScriptError("Stack overflow.", ERR_STACK_OVERFLOW)
        frame = _Frame(dict(zip(handler.params, args)), is_run=handler.name == "run")
        if frame.is_run:
            frame.locals = self.globals
            for p, a in zip(handler.params, args):
                self.globals[p] = a
        saved = (self.frame, self.targets, self.whose)
        self.frame, self.targets, self.whose = frame, [], []
        self.call_depth += 1
        try:
            self.exec_block(handler.body)
            return frame.result
        except _Return as r:
            return r.value
        except RecursionError:
            # Python's own stack ran out before max_call_depth: the same error, raised here so
            # that it is positioned and a script's ``try`` can catch it, as on a real Mac
            raise AppleScriptError("Stack overflow.", ERR_STACK_OVERFLOW) from None
        except _ExitRepeat:
            raise AppleScriptError("Can’t exit outside of a repeat loop.", -2700) from None
        finally:
            self.call_depth -= 1
            self.frame, self.targets, self.whose = saved

    # ------------------------------------------------------------------ commands
    def ev_command(self, node: N.Command) -> Any:
        try:
            return self.command(node)
        except AppleScriptError as e:
            raise e.at(self.source, node.start, node.end)

    def command(self, node: N.Command) -> Any:
        name = node.name
        if node.direct is None and name in _NEEDS_DIRECT:
            raise AppleScriptError(f"Some parameter is missing for {name}.", -1701)
        if name == "get":
            return NOTHING if node.direct is None else self.eval(node.direct)
        if name == "count":
            return self.count(node)
        if name == "exists":
            if node.direct is None:
                raise AppleScriptError("Expected a reference for exists.", -1708)
            return self.ev_exists(N.Exists(node.start, node.end, node.direct))
        if name == "make":
            return self.make(node)
        if name == "delete":
            return self.delete(node)
        if name == "current date":
            return self.host.now()
        if name == "do shell script":
            return self.shell(node)
        if name in ("display dialog", "display alert"):
            return self.dialog(node)
        if name == "display notification":
            text = "" if node.direct is None else coerce(self.eval(node.direct), "text")
            title = self.param_text(node, "with title")
            subtitle = self.param_text(node, "subtitle")
            self.host_call(self.host.notify, text, title, subtitle)
            return NOTHING
        if name == "offset":
            self.check_deadline()
            needle = coerce(self.eval(node.direct), "text")  # type: ignore[arg-type]
            hay = coerce(self.eval(node.params["in"]), "text")
            return fold(hay, self.case_sensitive).find(fold(needle, self.case_sensitive)) + 1
        if name == "ascii character":
            code = coerce(self.eval(node.direct), "integer")  # type: ignore[arg-type]
            if not 0 <= code <= 255:
                raise AppleScriptError(f"Can’t make {code} into type character.", ERR_COERCION)
            return chr(code)
        if name == "ascii number":
            text = coerce(self.eval(node.direct), "text")  # type: ignore[arg-type]
            if not text:
                raise AppleScriptError("Can’t get ASCII number of \"\".", -1728)
            return ord(text[0])
        if name == "round":
            return self.round(node)
        if name == "random number":
            return self.random_number(node)
        if name == "path to":
            what = str(node.direct.value)  # type: ignore[union-attr]
            path = self.host_call(self.host.path_to, what)
            if path is None:
                raise AppleScriptError(f"Can’t make {what} into type constant.", ERR_COERCION)
            return FileRef(path, "alias")
        if name in ("beep", "say"):
            if node.direct is not None:
                self.eval(node.direct)
            return NOTHING
        return self.app_command(node)

    def param_text(self, node: N.Command, label: str) -> str | None:
        if label not in node.params:
            return None
        return coerce(self.eval(node.params[label]), "text")

    def count(self, node: N.Command) -> Any:
        if node.direct is None:
            target = self.current_target()
            if target is None:
                raise AppleScriptError("«script» doesn’t understand the “count” message.", ERR_NOT_UNDERSTOOD)
            value = target
        else:
            value = self.eval(node.direct)
        value = deref(value)
        if isinstance(value, (list, str, dict)):
            return len(value)
        if isinstance(value, AppObject):
            return 1
        raise AppleScriptError(f"Can’t get count of {source_form(value)}.", ERR_NO_SUCH_OBJECT)

    def command_target(self, name: str) -> tuple[str, Any, Any]:
        """(app name, app, default direct object) for a command sent inside the current tell."""
        for target in reversed(self.targets):
            found = self.app_of(target)
            if found is not None:
                default = target if isinstance(target, AppObject) else None
                return found[0], found[1], default
        raise AppleScriptError(f"«script» doesn’t understand the “{name}” message.", ERR_NOT_UNDERSTOOD)

    def location(self, node: N.Node) -> Any:
        """The container of a ``make … at <location>`` (``end of notes of folder 1`` → folder 1)."""
        inner: N.Node | None = node
        if isinstance(inner, N.Insertion):
            inner = inner.container
        if isinstance(inner, N.Elements) and inner.sel == "every" and inner.filter is None:
            return None if inner.container is None else self.eval(inner.container)
        if inner is None:
            return None
        return self.eval(inner)

    def make(self, node: N.Command) -> Any:
        app_name, app, _ = self.command_target("make")
        props = {}
        if "with properties" in node.params:
            rec = self.eval(node.params["with properties"])
            if not isinstance(rec, dict):
                raise AppleScriptError(f"Can’t make {source_form(rec)} into type record.", ERR_COERCION)
            props = {k: self.unwrap(v) for k, v in rec.items()}
        if "with data" in node.params:
            props["data"] = self.unwrap(self.eval(node.params["with data"]))
        at = None
        loc = deref(self.location(node.params["at"])) if "at" in node.params else None
        if isinstance(loc, AppObject):
            at = loc.ref
        elif loc is not None and not isinstance(loc, Application):
            raise AppleScriptError("Can’t make or move that element into that container.", -10024).from_app(app_name)
        elif loc is None:
            # no location, or ``at end of events`` inside ``tell calendar "Work"``: the tell target
            target = self.current_target()
            if isinstance(target, AppObject):
                at = target.ref
        ref = self.app_call(app_name, app.make, node.cls, props, at)
        return AppObject(app_name, app, ref, f"{node.cls} id {source_form(ref.id)}")

    def delete(self, node: N.Command) -> Any:
        if node.direct is None:
            raise AppleScriptError("«script» doesn’t understand the “delete” message.", ERR_NOT_UNDERSTOOD)
        value = self.eval(node.direct)
        objs = list(value) if isinstance(value, list) else [value]
        for obj in objs:
            obj = deref(obj)
            if not isinstance(obj, AppObject):
                raise AppleScriptError(f"Can’t delete {source_form(obj)}.", -10000)
            self.tick()
            self.app_call(obj.app_name, obj.app.delete, obj.ref)
        return NOTHING

    def app_command(self, node: N.Command) -> Any:
        name = node.name
        direct = deref(self.eval(node.direct)) if node.direct is not None else None
        if isinstance(direct, Application):
            # ``activate application "Notes"``/``quit app "X"``: the event goes to that application
            app_name, app, default = direct.name, self.host_call(self.host.app, direct.name), None
            direct = None
        elif isinstance(direct, AppObject) and not any(
                isinstance(t, (Application, AppObject)) for t in self.targets):
            app_name, app, default = direct.app_name, direct.app, None
        else:
            try:
                app_name, app, default = self.command_target(name)
            except AppleScriptError:
                if name in ("activate", "launch", "run", "reopen"):
                    return NOTHING  # the script itself (osascript) is activated
                raise
        if direct is None:
            direct = default
        params = {label: self.unwrap(self.eval(expr)) for label, expr in node.params.items()}
        result = self.app_call(app_name, app.command, name, self.unwrap(direct), params)
        if result is None:
            return NOTHING
        return self.wrap(app_name, app, result, name)

    def shell(self, node: N.Command) -> Any:
        cmd = coerce(self.eval(node.direct), "text") if node.direct is not None else ""  # type: ignore[arg-type]
        res = self.host_call(self.host.shell, cmd)
        if res.status != 0:
            msg = (res.stderr or "").rstrip("\n") or "The command exited with a non-zero status."
            raise AppleScriptError(msg, res.status)
        out = res.stdout
        keep = node.params.get("altering line endings")
        if not (isinstance(keep, N.Lit) and keep.value is False):
            # the default: every line ending becomes \r and one trailing line ending is removed;
            # ``without altering line endings`` returns stdout exactly as written
            out = out.replace("\r\n", "\r").replace("\n", "\r")
            if out.endswith("\r"):
                out = out[:-1]
        if len(out) > self.limits.max_text_length:
            raise out_of_memory("the output of do shell script", self.limits.max_text_length)
        self.charge(len(out))
        return out

    def dialog(self, node: N.Command) -> Any:
        text = coerce(self.eval(node.direct), "text") if node.direct is not None else ""
        alert = node.name == "display alert"
        buttons_v = self.eval(node.params["buttons"]) if "buttons" in node.params else (["OK"] if alert else ["Cancel", "OK"])
        buttons = [coerce(b, "text") for b in (buttons_v if isinstance(buttons_v, list) else [buttons_v])]
        if not buttons or len(buttons) > 3:
            raise AppleScriptError("Can’t display dialog: between 1 and 3 buttons are allowed.", -50)

        def which(label: str) -> str | None:
            if label not in node.params:
                return None
            v = self.eval(node.params[label])
            if isinstance(v, int) and not isinstance(v, bool):
                if not 1 <= v <= len(buttons):
                    raise AppleScriptError(f"Can’t find button {v}.", -1728)
                return buttons[v - 1]
            return coerce(v, "text")
        default_button = which("default button")
        cancel_button = which("cancel button")
        if cancel_button is None and not alert and "buttons" not in node.params:
            cancel_button = "Cancel"
        if default_button is None and not alert and "buttons" not in node.params:
            default_button = "OK"
        default_answer = self.param_text(node, "default answer")
        giving = self.eval(node.params["giving up after"]) if "giving up after" in node.params else None
        req = DialogRequest(text=text, buttons=buttons, default_button=default_button, cancel_button=cancel_button,
                            default_answer=default_answer, title=self.param_text(node, "with title"),
                            giving_up_after=None if giving is None else float(self.number(giving)),
                            kind="alert" if alert else "dialog")
        reply = self.host_call(self.host.dialog, req)
        if cancel_button is not None and reply.button == cancel_button and not reply.gave_up:
            raise AppleScriptError("User canceled.", ERR_USER_CANCELED)
        out: dict[str, Any] = {"button returned": "" if reply.gave_up else reply.button}
        if default_answer is not None:
            out["text returned"] = reply.text if reply.text is not None else default_answer
        if giving is not None:
            out["gave up"] = reply.gave_up
        return out

    def round(self, node: N.Command) -> Any:
        x = self.number(self.eval(node.direct))  # type: ignore[arg-type]
        mode = self.eval(node.params["rounding"]).name if "rounding" in node.params else "to nearest"
        if mode == "up":
            r = math.ceil(x)
        elif mode == "down":
            r = math.floor(x)
        elif mode == "toward zero":
            r = math.trunc(x)
        elif mode == "as taught in school":
            r = math.floor(abs(x) + 0.5) * (1 if x >= 0 else -1)
        else:
            r = round(x)
        return norm_number(int(r))

    def random_number(self, node: N.Command) -> Any:
        rng = self.host.rng
        if "with seed" in node.params:
            rng.seed(self.number(self.eval(node.params["with seed"])))
        lo = self.number(self.eval(node.params["from"])) if "from" in node.params else None
        hi = self.number(self.eval(node.params["to"])) if "to" in node.params else None
        if node.direct is not None:
            hi = self.number(self.eval(node.direct))
            lo = 0 if lo is None else lo
        if lo is None and hi is None:
            return rng.random()
        lo = 0 if lo is None else lo
        hi = 1 if hi is None else hi
        if isinstance(lo, int) and isinstance(hi, int):
            return rng.randint(min(lo, hi), max(lo, hi))
        return rng.uniform(lo, hi)


def _run_deadline(limits: Any) -> Deadline | None:
    """The earlier of the run's own wall clock (``limits.max_seconds``) and the enclosing action's deadline."""
    outer = current_deadline()
    own = Deadline(limits.max_seconds, "the AppleScript") if limits.max_seconds else None
    if outer is None or (own is not None and own.ends_at < outer.ends_at):
        return own
    return outer


def _finite(x: Any) -> Any:
    """Arithmetic results: overflow, NaN and complex powers are AppleScript's range error."""
    if isinstance(x, complex) or (isinstance(x, float) and (math.isinf(x) or math.isnan(x))):
        raise AppleScriptError("Result is out of range.", -2702)
    return x


def _copy_value(value: Any) -> Any:
    """``copy``: duplicate lists and records (recursively); objects, dates and text are values."""
    if isinstance(value, list):
        return [_copy_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy_value(v) for k, v in value.items()}
    return value


def _record_key(record: dict[str, Any], name: str) -> str | None:
    """The record's label for ``name``: labels, like identifiers, ignore case."""
    if name in record:
        return name
    folded = name.casefold()
    return next((k for k in record if k.casefold() == folded), None)


def describe_short(obj: AppObject) -> str:
    return f"{obj.ref.cls} id {source_form(obj.ref.id)}"
