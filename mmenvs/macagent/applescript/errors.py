"""AppleScript errors, formatted the way ``osascript`` prints them.

``osascript`` reports a failure on stderr as ``<start>:<end>: <kind> error: <message> (<number>)``
where ``start``/``end`` are 0-based character offsets of the offending range in the source, and
``kind`` is ``syntax`` (the script did not compile) or ``execution`` (it failed while running).
:class:`AppleScriptError` carries the same data plus the 1-based line and column of ``start``.
"""

from __future__ import annotations

# Error numbers used by the real AppleScript runtime (OSA / Apple Event Manager codes).
ERR_GENERIC = -2700            # error "…" without a number
ERR_DIVIDE_BY_ZERO = -2701
ERR_STACK_OVERFLOW = -2706
ERR_SYNTAX = -2741             # "Expected … but found …"
ERR_SYNTAX_ORDER = -2740       # "A … can’t go after this …"
ERR_UNDEFINED_VARIABLE = -2753
ERR_NO_SUCH_OBJECT = -1728     # "Can’t get …"
ERR_COERCION = -1700           # "Can’t make … into type …"
ERR_NOT_UNDERSTOOD = -1708     # "… doesn’t understand the “…” message." / "Can’t continue …"
ERR_PARAMS = -1721             # handler called with the wrong number of parameters
ERR_TIMEOUT = -1712            # "AppleEvent timed out." (used for the step budget)
ERR_CANT_SET = -10006          # "Can’t set … to …"
ERR_APP_GENERIC = -10000       # "AppleEvent handler failed."
ERR_OUT_OF_MEMORY = -108
ERR_USER_CANCELED = -128


def line_col(source: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a 0-based character offset (``\\r``, ``\\n`` and ``\\r\\n`` end lines)."""
    offset = max(0, min(offset, len(source)))
    line, start, i = 1, 0, 0
    while i < offset:
        ch = source[i]
        if ch == "\r" and i + 1 < len(source) and source[i + 1] == "\n":
            i += 1
            if i >= offset:
                break
            ch = "\n"
        if ch in "\r\n":
            line += 1
            start = i + 1
        i += 1
    return line, offset - start + 1


class AppleScriptError(Exception):
    """A compile (``kind="syntax"``) or run-time (``kind="execution"``) AppleScript error.

    ``str(err)`` is exactly what ``osascript`` writes to stderr (without the trailing newline), e.g.
    ``12:17: execution error: Notes got an error: Can’t get note "X". (-1728)``.
    ``message`` already includes the ``"<App> got an error: "`` prefix when an application raised it,
    as it does in a real ``on error msg`` handler.
    """

    def __init__(self, message: str, number: int = ERR_GENERIC, line: int = 0, column: int = 0, *,
                 start: int = 0, end: int = 0, kind: str = "execution", app: str | None = None,
                 partial_result: object = None, offending: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.number = number
        self.line = line
        self.column = column
        self.start = start
        self.end = end
        self.kind = kind
        self.app = app
        self.partial_result = partial_result
        self.offending = offending
        self.positioned = False

    def at(self, source: str, start: int, end: int) -> "AppleScriptError":
        """Attach the source range (first attachment wins: the innermost statement)."""
        if not self.positioned:
            self.start, self.end = start, end
            self.line, self.column = line_col(source, start)
            self.positioned = True
        return self

    def from_app(self, app_name: str) -> "AppleScriptError":
        """Prefix the message with ``"<App> got an error: "`` once, as the OSA runtime does."""
        if self.app is None and not self.message.startswith(f"{app_name} got an error: "):
            self.app = app_name
            self.message = f"{app_name} got an error: {self.message}"
            self.args = (self.message,)
        return self

    def __str__(self) -> str:
        return f"{self.start}:{self.end}: {self.kind} error: {self.message} ({self.number})"


class StepBudgetExceeded(AppleScriptError):
    """The script ran longer than the host's step budget (an endless ``repeat``, runaway recursion)."""


class DeadlinePassed(StepBudgetExceeded):
    """The script ran past its wall-clock deadline (``Limits.max_seconds`` or the enclosing action's)."""


def out_of_memory(what: str, limit: int, unit: str = "characters") -> AppleScriptError:
    """osascript's "Out of memory." for a value over the episode budget ``script_value_chars``, naming it."""
    return AppleScriptError(f"Out of memory: {what} would hold more than {limit:,} {unit} "
                            f"(the episode budget script_value_chars).", ERR_OUT_OF_MEMORY)


def syntax_error(message: str, start: int, end: int, source: str, number: int = ERR_SYNTAX) -> AppleScriptError:
    line, col = line_col(source, start)
    err = AppleScriptError(message, number, line, col, start=start, end=end, kind="syntax")
    err.positioned = True
    return err
