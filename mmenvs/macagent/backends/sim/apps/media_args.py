"""Command-line errors of the sim's media tools (``sips``, ``afinfo``, ``afconvert``, ``say``; Image
Events reuses sips' image operations): :class:`UsageError`, the message and exit status a tool
reports, and :func:`number_arg`, the numeric-argument parser that raises it."""

from __future__ import annotations


class UsageError(Exception):
    """A command-line error: the text the tool prints (stderr) and its exit status."""

    def __init__(self, text: str, code: int = 1) -> None:
        super().__init__(text, code)  # both in args: the error crosses a process boundary (pickled)
        self.text = text
        self.code = code


def number_arg(value: str, option: str) -> float:
    """``value`` as a number; a ``UsageError`` naming ``option`` when it is none."""
    try:
        return float(value)
    except ValueError:
        raise UsageError(f"Error: {option} needs a number, got {value!r}\n") from None
