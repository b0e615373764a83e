"""Checkpoints and their evaluation: read a checkpoint's getter, judge the value with its metric.

Scoring follows MacAgentBench §3.5: each checkpoint passes or fails; the score is the fraction
passed, the task succeeds when all pass. A checkpoint whose metric is ``unchanged`` guards state the
agent must not touch: its baseline is read right after setup and compared at evaluation.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from mmenvs.macagent.backends.base import BackendError

from .context import GetterContext, GetterError
from .getters import run_getter
from .metrics import METRICS

TAGS = ("research", "app_state", "content_match", "file_ops", "system_config")


@dataclass(frozen=True)
class Checkpoint:
    """One validated checkpoint of a task (see ``tasks.py`` for the JSON form)."""

    name: str
    tag: str
    getter: dict[str, Any]
    metric: dict[str, Any]

    @property
    def guard(self) -> bool:
        """Whether the checkpoint guards pre-existing state (its metric is ``unchanged``)."""
        return self.metric["type"] == "unchanged"

    def options(self) -> dict[str, Any]:
        """The metric spec's options (every key but ``type`` and ``expected``)."""
        return {k: v for k, v in self.metric.items() if k not in ("type", "expected")}


@dataclass
class CheckpointResult:
    """Outcome of one checkpoint: what the getter read and whether the metric passed."""

    name: str
    tag: str
    passed: bool
    got: Any
    guard: bool = False
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON-able form that goes into ``info["checkpoints"]``."""
        record = {"name": self.name, "tag": self.tag, "passed": self.passed, "got": self.got, "guard": self.guard}
        if self.error is not None:
            record["error"] = self.error
        return record


def read_checkpoint(checkpoint: Checkpoint, ctx: GetterContext) -> tuple[Any, str | None]:
    """Run the checkpoint's getter: ``(value, None)``, or ``(None, error text)`` when it failed."""
    try:
        return run_getter(checkpoint.getter, ctx), None
    except (GetterError, BackendError) as exc:
        return None, str(exc)
    except Exception as exc:  # AppleScriptError and the like: a getter failure fails the checkpoint, never the env
        return None, f"{type(exc).__name__}: {exc}"


def evaluate_checkpoint(checkpoint: Checkpoint, ctx: GetterContext, baseline: Any = None) -> CheckpointResult:
    """Read and judge one checkpoint. ``baseline`` is the post-setup value of a guard checkpoint."""
    got, error = read_checkpoint(checkpoint, ctx)
    if error is not None:
        return CheckpointResult(checkpoint.name, checkpoint.tag, False, None, checkpoint.guard, error)
    expected = baseline if checkpoint.guard else checkpoint.metric.get("expected")
    try:
        passed = bool(METRICS[checkpoint.metric["type"]](got, expected, **checkpoint.options()))
    except (TypeError, ValueError, re.error) as exc:
        return CheckpointResult(checkpoint.name, checkpoint.tag, False, jsonable(got), checkpoint.guard, f"metric error: {exc}")
    return CheckpointResult(checkpoint.name, checkpoint.tag, passed, jsonable(got), checkpoint.guard)


#: How guard checkpoints count in training rewards (``MacAgent-v0``'s ``reward_guards``): "always" (the
#: paper's Score) or "after_goal" (only once a goal checkpoint passes).
REWARD_GUARDS = ("always", "after_goal")


def reward_parts(records: list[dict[str, Any]], reward_guards: str) -> dict[str, float]:
    """The training-reward parts of checkpoint results (``CheckpointResult.as_dict()`` records):
    ``{"goal_checkpoints": goals passed / n, "guard_checkpoints": guards passed / n}``. With
    ``reward_guards="after_goal"`` the guards count only once a goal checkpoint passed (a task whose
    checkpoints are all guards counts them as they are). The sum is the paper's Score when the guards count."""
    if reward_guards not in REWARD_GUARDS:
        raise ValueError(f"reward_guards must be one of {REWARD_GUARDS}, got {reward_guards!r}")
    total = len(records)
    if total == 0:
        return {"goal_checkpoints": 0.0, "guard_checkpoints": 0.0}
    goals = [bool(r["passed"]) for r in records if not r.get("guard")]
    guards = sum(bool(r["passed"]) for r in records if r.get("guard"))
    if reward_guards == "after_goal" and goals and not any(goals):
        guards = 0
    return {"goal_checkpoints": sum(goals) / total, "guard_checkpoints": guards / total}


def jsonable(value: Any) -> Any:
    """``value`` if it is JSON-able, else its repr (what ``info`` can carry)."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def callable_options(fn: Callable[..., Any], skip: int) -> tuple[set[str], set[str]]:
    """(all keyword names, required keyword names) of ``fn`` after its first ``skip`` positional parameters."""
    params = list(inspect.signature(fn).parameters.values())[skip:]
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    required = {p.name for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, required
