"""Getter kinds and the python getter registry: how a checkpoint's ``getter`` spec is run.

* ``shell``: a command run in the episode's shell; its stdout, lines, JSON or exit code (``SHELL_OUTPUTS``).
* ``applescript``: a script run as ``osascript`` would; its result text or list (``APPLESCRIPT_OUTPUTS``).
* ``python``: a function from :data:`GETTERS` with JSON arguments. The library registers itself with
  :func:`getter`: file and document getters in :mod:`.file_getters`, app state in :mod:`.app_getters`.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from mmenvs.macagent.backends.base import ShellOutput

from .context import GetterContext, GetterError, osascript_list

GETTER_TYPES = ("shell", "applescript", "python")
SHELL_OUTPUTS = ("text", "raw", "lines", "json", "exit_code", "int", "float")
APPLESCRIPT_OUTPUTS = ("text", "list", "int", "float", "bool")


PythonGetter = Callable[..., Any]
#: The getter library: name -> function(ctx, **args). Task files name these in ``{"type": "python"}`` getters.
GETTERS: dict[str, PythonGetter] = {}


def getter(name: str) -> Callable[[PythonGetter], PythonGetter]:
    """Register a python getter under ``name`` (its keyword parameters are the JSON ``args``)."""

    def register(fn: PythonGetter) -> PythonGetter:
        if name in GETTERS:
            raise ValueError(f"python getter {name!r} is registered twice")
        GETTERS[name] = fn
        return fn

    return register


# ---------------------------------------------------------------------------------------------- running getters
def run_getter(spec: Mapping[str, Any], ctx: GetterContext) -> Any:
    """Run one validated getter spec and return its value; failures raise ``GetterError``."""
    kind = spec["type"]
    if kind == "shell":
        return _shell_value(ctx.shell(spec["command"]), spec.get("output", "text"))
    if kind == "applescript":
        return _applescript_value(ctx.applescript(spec["script"]), spec.get("output", "text"))
    if kind == "python":
        return GETTERS[spec["function"]](ctx, **spec.get("args", {}))
    raise GetterError(f"unknown getter type {kind!r}")


def _shell_value(out: ShellOutput, output: str) -> Any:
    if output == "exit_code":
        return out.exit_code
    if out.timed_out:
        raise GetterError("shell getter timed out")
    if out.exit_code != 0:
        raise GetterError(f"shell getter exited with code {out.exit_code}: {out.stderr.strip()[-300:]}")
    if output == "raw":
        return out.stdout
    text = out.stdout.strip()
    if output == "text":
        return text
    if output == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    if output == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise GetterError(f"shell getter output is not JSON ({exc.msg})") from None
    return _number(text, output)


def _applescript_value(text: str, output: str) -> Any:
    text = text.strip()
    if output == "text":
        return text
    if output == "list":
        return [item.strip('"') for item in osascript_list(text)]
    if output == "bool":
        if text.lower() not in ("true", "false"):
            raise GetterError(f"AppleScript getter returned {text!r}, not true/false")
        return text.lower() == "true"
    return _number(text, output)


def _number(text: str, output: str) -> int | float:
    try:
        return int(text) if output == "int" else float(text)
    except ValueError:
        raise GetterError(f"getter output {text[:80]!r} is not a number") from None

