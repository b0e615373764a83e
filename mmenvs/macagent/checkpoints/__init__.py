"""Checkpoints: a getter that reads state from the desktop and a metric that judges it.

A task's checkpoints are data (see ``tasks.py``); this package holds what they may name:

* **getters** — ``shell`` (a command run in the episode's shell; its stdout, lines, JSON or exit code),
  ``applescript`` (a script run as ``osascript`` would; its result text or list), and ``python``
  (a function from :data:`GETTERS`, with JSON arguments). Every getter reads the desktop only through
  the :class:`~mmenvs.macagent.backends.base.MacBackend` interface, so a task file runs unchanged on
  the simulator and on a real macOS VM.
* **metrics** — functions from :data:`METRICS`: ``metric(got, expected, **options) -> bool``.

Scoring follows MacAgentBench §3.5: each checkpoint passes or fails; the score is the fraction
passed, the task succeeds when all pass. A checkpoint whose metric is ``unchanged`` guards state the
agent must not touch: its baseline is read right after setup and compared at evaluation.

Modules, one job each:

* :mod:`.context` — :class:`GetterContext` (the backend, as a getter may use it), ``GetterError``,
  shell paths and AppleScript text;
* :mod:`.getters` — the getter kinds, the python getter registry and :func:`run_getter`;
* :mod:`.file_getters` / :mod:`.app_getters` — the python getter library (files and documents; app state);
* :mod:`.metrics` — the metric library;
* :mod:`.evaluation` — :class:`Checkpoint`, reading and judging it (:func:`evaluate_checkpoint`).

Everything the rest of the code uses is importable from this package.
"""

from __future__ import annotations

from .context import GetterContext, GetterError, shell_path
from .getters import APPLESCRIPT_OUTPUTS, GETTER_TYPES, GETTERS, SHELL_OUTPUTS, PythonGetter, getter, run_getter
from . import file_getters, app_getters  # noqa: F401  (register the python getter library, in this order)
from .metrics import METRICS, NO_EXPECTED, Metric, metric, parse_datetime
from .evaluation import (
    TAGS, Checkpoint, CheckpointResult, callable_options, evaluate_checkpoint, jsonable, read_checkpoint,
)

__all__ = [
    "APPLESCRIPT_OUTPUTS", "GETTERS", "GETTER_TYPES", "METRICS", "NO_EXPECTED", "SHELL_OUTPUTS", "TAGS",
    "Checkpoint", "CheckpointResult", "GetterContext", "GetterError", "Metric", "PythonGetter",
    "callable_options", "evaluate_checkpoint", "getter", "jsonable", "metric", "parse_datetime",
    "read_checkpoint", "run_getter", "shell_path",
]
