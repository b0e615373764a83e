"""Helpers several apps share: checks of phone numbers, email addresses and money amounts; rows in a time range."""

from __future__ import annotations

import re
from typing import Any

from ..world import ToolError, World, parse_datetime

_PHONE = re.compile(r"^\+?[0-9][0-9 ()\-.]{5,}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
CENT = 0.005  # money comparisons tolerate half a cent of float rounding


def check_phone(number: str, what: str = "phone number") -> str:
    """``number`` stripped, or a ToolError naming ``what`` when it is not a phone number."""
    if not isinstance(number, str) or not _PHONE.match(number.strip()):
        raise ToolError(f"{what} {number!r} is not a valid phone number (digits, optional leading +, dashes or spaces)")
    return number.strip()


def check_email(address: str, what: str = "email address") -> str:
    """``address`` stripped, or a ToolError naming ``what`` when it is not an email address."""
    if not isinstance(address, str) or not _EMAIL.match(address.strip()):
        raise ToolError(f"{what} {address!r} is not a valid email address")
    return address.strip()


def rows_between(world: World, table_name: str, column: str, start: str, end: str) -> list[dict[str, Any]]:
    """Rows of ``table_name`` whose date-time ``column`` lies in ``[start, end]`` (a ToolError if end is before start)."""
    a, b = parse_datetime(start, "start"), parse_datetime(end, "end")
    if b < a:
        raise ToolError("end must not be before start")
    return world.rows(table_name, f"{column} >= ? AND {column} <= ?", (a.isoformat(), b.isoformat()))


def positive_amount(amount: float, what: str = "amount") -> float:
    """``amount`` rounded to cents, or a ToolError when it is not positive or has more than two decimals."""
    if amount <= 0:
        raise ToolError(f"{what} must be positive, got {amount}")
    if round(amount, 2) != round(amount, 6):
        raise ToolError(f"{what} must have at most two decimals, got {amount}")
    return round(amount, 2)
