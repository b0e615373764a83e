"""Samplers for the small facts every renderer needs: people, companies, addresses, dates, prices."""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from typing import Any

import numpy as np

from . import vocab
from .base import pick


def person(rng: np.random.Generator) -> str:
    """A full name, e.g. ``"Amara Okafor"``."""
    return f"{pick(rng, vocab.FIRST_NAMES)} {pick(rng, vocab.LAST_NAMES)}"


def company(rng: np.random.Generator) -> str:
    """A fictional company name, e.g. ``"Kestrel Analytics"``."""
    return f"{pick(rng, vocab.COMPANY_STEMS)} {pick(rng, vocab.COMPANY_SUFFIXES)}"


def slug(text: str) -> str:
    """ASCII lowercase letters and digits only: ``"Chloé O'Brien"`` → ``"chloeobrien"``."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", plain.lower())


def city(rng: np.random.Generator) -> tuple[str, str, str, str]:
    """(city, state, zip prefix, area code)."""
    return pick(rng, vocab.CITIES)


def street_address(rng: np.random.Generator, where: tuple[str, str, str, str] | None = None) -> str:
    """``"1742 Juniper Ave, Denver, CO 80214"``."""
    c, st, zp, _ = where or city(rng)
    num = int(rng.integers(12, 9800))
    return f"{num} {pick(rng, vocab.STREET_NAMES)} {pick(rng, vocab.STREET_TYPES)}, {c}, {st} {zp}{int(rng.integers(0, 100)):02d}"


def phone(rng: np.random.Generator, where: tuple[str, str, str, str] | None = None) -> str:
    """A fictional US number in the reserved 555-01xx block: ``"+1-503-555-0142"``."""
    area = (where or city(rng))[3]
    return f"+1-{area}-555-01{int(rng.integers(0, 100)):02d}"


def email_for(name: str, domain: str) -> str:
    """``"Amara Okafor", "kestrel.example"`` → ``"amara.okafor@kestrel.example"``."""
    parts = [slug(p) for p in name.split()]
    return f"{parts[0]}.{parts[-1]}@{domain}"


def company_domain(company_name: str) -> str:
    """``"Kestrel Analytics"`` → ``"kestrelanalytics.example"``."""
    return f"{slug(company_name)[:18]}.example"


def date_between(rng: np.random.Generator, start: str = "2026-01-05", days: int = 330) -> str:
    """An ISO date within ``days`` after ``start``."""
    d = _dt.date.fromisoformat(start) + _dt.timedelta(days=int(rng.integers(0, days)))
    return d.isoformat()


def add_days(iso: str, days: int) -> str:
    """ISO date ``days`` after ``iso``."""
    return (_dt.date.fromisoformat(iso) + _dt.timedelta(days=days)).isoformat()


def clock(rng: np.random.Generator, lo_hour: int, hi_hour: int, step_min: int = 15) -> str:
    """A time ``HH:MM`` between ``lo_hour`` and ``hi_hour`` on a ``step_min`` grid."""
    slots = (hi_hour - lo_hour) * 60 // step_min
    minutes = lo_hour * 60 + int(rng.integers(0, max(slots, 1))) * step_min
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def add_minutes(hhmm: str, minutes: int) -> str:
    """``"19:30", 90`` → ``"21:00"`` (wraps at midnight)."""
    h, m = (int(p) for p in hhmm.split(":"))
    t = (h * 60 + m + minutes) % (24 * 60)
    return f"{t // 60:02d}:{t % 60:02d}"


def price(rng: np.random.Generator, lo: float, hi: float, *, endings: tuple[float, ...] = (0.0, 0.49, 0.5, 0.95, 0.99, 0.25, 0.75)) -> float:
    """A price in [lo, hi] with a shop-like ending (.99, .50, …)."""
    base = int(rng.integers(int(lo), int(max(hi, lo + 1))))
    return round(base + float(pick(rng, endings)), 2)


def code(rng: np.random.Generator, alphabet: str, n: int) -> str:
    """A random code of ``n`` characters drawn from ``alphabet``."""
    return "".join(alphabet[int(i)] for i in rng.integers(0, len(alphabet), size=n))


def jsonable(obj: Any) -> Any:
    """Convert numpy scalars inside ``obj`` to Python numbers (facts must be JSON-serialisable)."""
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    return obj
