"""Checks several domains share: phone numbers, email addresses and money amounts."""

from __future__ import annotations

import re

from ..world import ToolError

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


def positive_amount(amount: float, what: str = "amount") -> float:
    """``amount`` rounded to cents, or a ToolError when it is not positive or has more than two decimals."""
    if amount <= 0:
        raise ToolError(f"{what} must be positive, got {amount}")
    if round(amount, 2) != round(amount, 6):
        raise ToolError(f"{what} must have at most two decimals, got {amount}")
    return round(amount, 2)
