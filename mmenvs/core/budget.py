"""One resource budget per episode for the work host code does on the agent's behalf (issue 14, classes 3-4).

Everything that runs on the host for an agent (the simulator's apps, AppleScript, the tools of every
env, the parsing of actions) is bounded by the same :class:`EpisodeBudget`: how large an image, a file
or an argument may be, how much the home and the tmpfs mounts may hold, what is logged, and how long
one action may keep the host busy. Limits are checked *before* the work is done, and a refusal is a
:class:`BudgetExceeded` (an :class:`~mmenvs.core.actions.ActionError`, so it comes back to the agent as an
observation) whose message names the limit and the kwarg that raises it.

Set from an env's ``budget`` kwarg: ``gym.make("MacAgent-v0", budget={"home_bytes": 2**30})``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from .actions import ActionError

MiB = 2**20
GiB = 2**30


class BudgetExceeded(ActionError):
    """An action asked for more than the episode budget allows. ``limit`` is the budget field's name,
    ``allowed`` its value and ``requested`` what the action asked for (when known)."""

    def __init__(self, limit: str, message: str, *, allowed: float | None = None, requested: float | None = None):
        super().__init__("budget_exceeded", message)
        self.limit, self.allowed, self.requested = limit, allowed, requested

    def __reduce__(self) -> Any:  # crosses process boundaries (host tools run in a child)
        return (_budget_exceeded, (self.limit, self.args[0], self.allowed, self.requested))


class DeadlineExceeded(ActionError):
    """Host work on an action ran past the action deadline (``EpisodeBudget.action_timeout``)."""

    def __init__(self, message: str, *, seconds: float | None = None):
        super().__init__("deadline_exceeded", message)
        self.limit, self.allowed = "action_timeout", seconds

    def __reduce__(self) -> Any:
        return (_deadline_exceeded, (self.args[0], self.allowed))


def _budget_exceeded(limit: str, message: str, allowed: float | None, requested: float | None) -> BudgetExceeded:
    return BudgetExceeded(limit, message, allowed=allowed, requested=requested)


def _deadline_exceeded(message: str, seconds: float | None) -> DeadlineExceeded:
    return DeadlineExceeded(message, seconds=seconds)


@dataclass(frozen=True)
class EpisodeBudget:
    """The limits of one episode's host-side work. Sizes are in bytes, characters or pixels as named.

    The defaults fit every shipped task with a wide margin and keep a runaway episode to a few hundred
    MB of host memory and disk and to ``action_timeout`` seconds of host work per action."""

    #: Pixels (width x height) of one image any host code makes or decodes (a 1280x800 screen is 1 MP;
    #: 6000x6000 fits).
    image_pixels: int = 36_000_000
    #: Pixels all images kept in the env's image store may hold at once.
    image_store_pixels: int = 200_000_000
    #: Bytes the episode home may hold (files written by the shell, the apps and the tools).
    home_bytes: int = 512 * MiB
    #: Bytes each tmpfs mount of the sandbox (/dev/shm, /tmp) may hold: tmpfs pages are host memory.
    tmpfs_bytes: int = 64 * MiB
    #: Characters of one action (what ``env.step`` is given), checked before it is parsed.
    action_chars: int = 1_048_576
    #: Characters of one tool argument (a string, or a list/dict argument's JSON form).
    tool_argument_chars: int = 1_048_576
    #: Characters the env keeps per episode in its call logs and histories (longer entries are cut).
    logged_chars: int = 16 * MiB
    #: Characters (or list items, up to a million) of one value a host-side interpreter (AppleScript) builds.
    script_value_chars: int = 5_000_000
    #: Characters and list items a host-side interpreter may build in one action, summed over every
    #: value it makes (bounds its memory whatever it keeps alive).
    script_built_chars: int = 64 * MiB
    #: Characters of text a host tool turns into media (``say``, speech files).
    speech_chars: int = 50_000
    #: Address space of a host child process (media tools): an rlimit on top of the checks above.
    child_memory_bytes: int = 1 * GiB
    #: Seconds of host work per action (AppleScript, host tools, host commands): the same deadline
    #: sandboxed code gets.
    action_timeout: float = 10.0

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"EpisodeBudget.{item.name} must be a positive number, got {value!r}")
            if item.type in ("int", int) and value != int(value):
                raise ValueError(f"EpisodeBudget.{item.name} must be a whole number, got {value!r}")
            object.__setattr__(self, item.name, type(item.default)(value))

    # ------------------------------------------------------------------ construction
    @classmethod
    def field_names(cls) -> list[str]:
        """The budget's field names (what the ``budget`` kwarg accepts)."""
        return [item.name for item in dataclasses.fields(cls)]

    @classmethod
    def from_option(cls, option: EpisodeBudget | Mapping[str, Any] | None, base: EpisodeBudget | None = None) -> EpisodeBudget:
        """The budget an env's ``budget`` kwarg asks for: ``None`` (``base`` or the defaults), an
        ``EpisodeBudget``, or a mapping of fields that override ``base``. Unknown fields are a TypeError
        that lists the known ones."""
        base = base or cls()
        if option is None:
            return base
        if isinstance(option, EpisodeBudget):
            return option
        if not isinstance(option, Mapping):
            raise TypeError(f"budget must be an EpisodeBudget or a dict of its fields, got {type(option).__name__}")
        unknown = sorted(set(option) - set(cls.field_names()))
        if unknown:
            raise TypeError(f"budget: unknown field(s) {unknown}; the fields are {cls.field_names()}")
        return dataclasses.replace(base, **dict(option))

    def replace(self, **changes: Any) -> EpisodeBudget:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ checks
    def check(self, limit: str, requested: float, what: str) -> None:
        """Refuse ``what`` (e.g. "a 30000x30000 image") when ``requested`` exceeds the field ``limit``."""
        check_limit(limit, getattr(self, limit), requested, what)

    def check_image(self, width: int, height: int, what: str = "an image") -> None:
        """Refuse an image of ``width`` x ``height`` pixels over ``image_pixels`` (or with a side ≤ 0)."""
        if width <= 0 or height <= 0:
            raise BudgetExceeded("image_pixels", f"{what} must be at least 1x1 pixels, got {width}x{height}")
        self.check("image_pixels", int(width) * int(height), f"{what} of {width}x{height} pixels")

    def deadline(self, what: str = "this action") -> Deadline:
        """A deadline ``action_timeout`` seconds from now for host work on ``what``."""
        return Deadline(self.action_timeout, what)


DEFAULT_BUDGET = EpisodeBudget()


def check_limit(limit: str, allowed: float, requested: float, what: str) -> None:
    """Raise :class:`BudgetExceeded` for ``what`` when ``requested`` exceeds ``allowed``, the value of the
    budget field ``limit`` (for callers holding the value rather than the budget)."""
    if requested > allowed:
        raise BudgetExceeded(limit, f"{what} exceeds the episode budget {limit}={allowed:,} (asked for {requested:,}; "
                                    f"raise it with the env kwarg budget={{'{limit}': ...}})",
                             allowed=allowed, requested=requested)


class Deadline:
    """A point in (monotonic) time host work must end by; ``check()`` raises :class:`DeadlineExceeded`
    once it has passed. Cheap enough to call in an interpreter's loop."""

    __slots__ = ("seconds", "what", "ends_at")

    def __init__(self, seconds: float, what: str = "this action") -> None:
        self.seconds, self.what = float(seconds), what
        self.ends_at = time.monotonic() + self.seconds

    def remaining(self) -> float:
        """Seconds left (0 when passed)."""
        return max(0.0, self.ends_at - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.ends_at

    def check(self) -> None:
        """Raise :class:`DeadlineExceeded` when the deadline has passed."""
        if time.monotonic() >= self.ends_at:
            raise DeadlineExceeded(f"{self.what} ran past the action deadline action_timeout={self.seconds:g} s "
                                   "and was stopped (raise it with the env kwarg budget={'action_timeout': ...})",
                                   seconds=self.seconds)


_current_deadline: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("mmenvs_deadline", default=None)


def current_deadline() -> Deadline | None:
    """The deadline of the action whose host work is running now (set by :func:`deadline_scope`), if any."""
    return _current_deadline.get()


@contextlib.contextmanager
def deadline_scope(deadline: Deadline) -> Iterator[Deadline]:
    """Run host work under ``deadline``: code it calls finds it with :func:`current_deadline` (a host
    command served for the shell, an AppleScript run, a media tool). An enclosing earlier deadline wins."""
    outer = _current_deadline.get()
    effective = outer if outer is not None and outer.ends_at <= deadline.ends_at else deadline
    token = _current_deadline.set(effective)
    try:
        yield effective
    finally:
        _current_deadline.reset(token)
