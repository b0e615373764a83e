"""An AppleScript interpreter for the simulated macOS desktop of MacAgent-v0.

It runs the subset of real AppleScript that agents and task getters use on Mac apps (see
``docs/applescript.md``), against apps that implement :class:`ScriptableApp`, and prints results and
errors exactly as ``osascript`` does, so the same getters run unchanged on a real Mac.

>>> from mmenvs.macagent.applescript import AppleScriptHost, run_applescript
>>> run_applescript('set l to {"a", "b"}\\nset end of l to "c"\\nl', AppleScriptHost())
'a, b, c'
"""

from __future__ import annotations

from typing import Any

from .errors import AppleScriptError, StepBudgetExceeded, line_col
from .interpreter import NOTHING, Interpreter
from .model import (STANDARD_COMMANDS, AppleScriptHost, ClassSpec, DialogReply, DialogRequest, Limits,
                    ObjectRef, RecordStoreApp, ScriptableApp, ScriptableAppBase, ShellResult, Terminology)
from .nodes import Script
from .parser import parse
from .system_events import SystemEventsApp
from .values import AppObject, Application, Constant, FileRef, deref, format_result, source_form

__all__ = [
    "AppObject", "Application", "AppleScriptError", "AppleScriptHost", "ClassSpec", "Constant", "DialogReply",
    "DialogRequest", "FileRef", "Limits", "ObjectRef", "RecordStoreApp", "STANDARD_COMMANDS", "ScriptableApp",
    "ScriptableAppBase", "ShellResult", "StepBudgetExceeded", "SystemEventsApp", "Terminology", "compile_script",
    "evaluate", "format_result", "line_col", "run_applescript", "source_form",
]


def compile_script(source: str, host: AppleScriptHost) -> Script:
    """Parse ``source`` with the dictionaries of the host's apps; raises a syntax ``AppleScriptError``."""
    if not isinstance(source, str):
        raise TypeError(f"AppleScript source must be str, got {type(source).__name__}")

    def terms(name: str) -> Terminology | None:
        try:
            app = host.app(name)
        except AppleScriptError:
            raise
        except Exception as exc:  # a failing host: the tell reports it when it runs
            raise AppleScriptError(str(exc) or type(exc).__name__) from exc
        return getattr(app, "terminology", None)

    try:
        return parse(source, terms, host.limits.max_nesting, host.limits.max_source_chars)
    except RecursionError:
        raise AppleScriptError("Stack overflow.", -2706, kind="syntax") from None


def evaluate(source: str, host: AppleScriptHost, argv: list[str] | None = None) -> Any:
    """Run a script and return its result as a Python value (``None`` when there is no result).

    ``argv`` is what ``osascript script arg1 arg2`` passes to ``on run argv``.

    Lists come back as ``list``, records as ``dict`` (lower-case labels), dates as ``datetime``,
    app objects as :class:`AppObject`, constants as :class:`Constant`.
    """
    value = _run(source, host, argv)
    if value is NOTHING:
        return None
    value = deref(value)  # a ``repeat with x in`` reference is its item here
    return list(value) if isinstance(value, list) else value


def run_applescript(source: str, host: AppleScriptHost, argv: list[str] | None = None) -> str:
    """Run a script and return what ``osascript`` would print on stdout (without the final newline).

    ``argv`` is what ``osascript script arg1 arg2`` passes to ``on run argv``; ``log`` lines go to
    ``host.log`` (``osascript`` prints them on stderr).

    Raises :class:`AppleScriptError`; ``str(error)`` is ``osascript``'s stderr line, e.g.
    ``0:46: execution error: Notes got an error: Can’t get note "X". (-1728)``.
    """
    value = _run(source, host, argv)
    if value is NOTHING:
        return ""
    try:
        return format_result(value)
    except RecursionError:
        raise AppleScriptError("Stack overflow.", -2706) from None


def _run(source: str, host: AppleScriptHost, argv: list[str] | None = None) -> Any:
    script = compile_script(source, host)
    interp = Interpreter(script, source, host, argv)
    try:
        return interp.run()
    except RecursionError:
        raise AppleScriptError("Stack overflow.", -2706).at(source, 0, len(source)) from None
