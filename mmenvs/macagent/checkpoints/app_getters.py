"""Python getters that read app state: Safari's bookmarks and history, ``defaults``, the forecast the
Weather app shows, the clipboard, and AppleScript records of any scriptable app.
"""

from __future__ import annotations

import json
import shlex
from datetime import datetime
from typing import Any

from mmenvs.macagent.weather_cities import find_city

from .context import GetterContext, GetterError, applescript_string, osascript_list
from .file_getters import read_bytes
from .getters import getter


def _read_plist(ctx: GetterContext, path: str) -> Any:
    """The property list (binary or XML) at ``path``; None if the file is missing."""
    import plistlib

    data = read_bytes(ctx, path)
    if data is None:
        return None
    try:
        return plistlib.loads(data)
    except Exception as exc:  # plistlib raises several types for malformed data
        raise GetterError(f"{path} is not a property list ({exc})") from None


@getter("safari_bookmarks")
def safari_bookmarks(ctx: GetterContext, path: str = "~/Library/Safari/Bookmarks.plist") -> list[dict[str, str]]:
    """Safari's bookmarks from its ``Bookmarks.plist`` (binary or XML) as ``{"title", "url", "folder"}`` dicts,
    in file order; ``folder`` is the path of folder titles (``BookmarksBar``, ``BookmarksBar/Work``, …).
    An absent file means no bookmarks."""
    root = _read_plist(ctx, path)
    if root is None:
        return []
    found: list[dict[str, str]] = []

    def walk(node: Any, folder: str) -> None:
        if not isinstance(node, dict):
            return
        if node.get("WebBookmarkType") == "WebBookmarkTypeLeaf":
            title = (node.get("URIDictionary") or {}).get("title", "")
            found.append({"title": str(title), "url": str(node.get("URLString", "")), "folder": folder})
            return
        title = str(node.get("Title", ""))
        inner = f"{folder}/{title}" if folder and title else (title or folder)
        for child in node.get("Children", []) or []:
            walk(child, inner)

    walk(root, "")
    return found


@getter("safari_bookmark_folders")
def safari_bookmark_folders(ctx: GetterContext, path: str = "~/Library/Safari/Bookmarks.plist") -> list[str]:
    """Every bookmark folder in Safari's ``Bookmarks.plist`` as its path of titles (``BookmarksBar``,
    ``agent task``, ``BookmarksBar/Work``, …), empty folders included, in file order; an absent file means none.
    (``safari_bookmarks`` lists only bookmarks, so a folder with nothing in it would not show there.)"""
    root = _read_plist(ctx, path)
    if root is None:
        return []
    found: list[str] = []

    def walk(node: Any, folder: str) -> None:
        if not isinstance(node, dict) or node.get("WebBookmarkType") == "WebBookmarkTypeLeaf":
            return
        title = str(node.get("Title", ""))
        inner = f"{folder}/{title}" if folder and title else (title or folder)
        if title:
            found.append(inner)
        for child in node.get("Children", []) or []:
            walk(child, inner)

    walk(root, "")
    return found


@getter("safari_history")
def safari_history(ctx: GetterContext, path: str = "~/Library/Safari/History.db") -> list[dict[str, Any]]:
    """Safari's visits from its ``History.db`` (SQLite: ``history_visits`` joined to ``history_items``),
    oldest first, as ``{"url", "title", "visit_time", "visit_count"}`` dicts; ``visit_time`` is ISO
    text (History.db's Core Data seconds since 2001-01-01 UTC) and ``visit_count`` the URL's total.
    An absent file means no history."""
    import sqlite3
    from datetime import timedelta

    data = read_bytes(ctx, path)
    if data is None:
        return []
    con = sqlite3.connect(":memory:")
    try:
        con.deserialize(data)
        rows = con.execute("SELECT i.url, v.title, v.visit_time, i.visit_count FROM history_visits v "
                           "JOIN history_items i ON i.id = v.history_item ORDER BY v.visit_time, v.id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise GetterError(f"{path} is not Safari's History.db: expected an SQLite file with history_visits and "
                          f"history_items tables ({exc})") from None
    finally:
        con.close()
    epoch = datetime(2001, 1, 1)
    return [{"url": url, "title": title or "", "visit_time": (epoch + timedelta(seconds=t)).isoformat(timespec="seconds"),
             "visit_count": count} for url, title, t, count in rows]


@getter("defaults_read")
def defaults_read(ctx: GetterContext, domain: str, key: str) -> str | None:
    """``defaults read <domain> <key>`` (``None`` when the key is not set)."""
    out = ctx.shell(f"defaults read {shlex.quote(domain)} {shlex.quote(key)}")
    return out.stdout.strip() if out.exit_code == 0 else None


@getter("weather_forecast")
def weather_forecast(ctx: GetterContext, city: str, day_offset: int = 0, field: str = "high", unit: str = "C") -> Any:
    """One value of ``city``'s daily forecast for its local today + ``day_offset`` (0–9), read through the
    Open-Meteo API with ``curl`` (what a real Mac would ask too). ``field``: ``high``, ``low`` (°C, or °F with
    ``unit="F"``), ``precip_mm``, ``precip_chance`` (%), ``wind_kmh``, ``uv``, ``weather_code`` (WMO), ``rain``
    (true when rain, drizzle or thunderstorms fall), ``date`` (YYYY-MM-DD), ``weekday`` (Monday …), ``sunrise``
    and ``sunset`` (HH:MM). Compare numbers with ``number_close``."""
    columns = {"high": "temperature_2m_max", "low": "temperature_2m_min", "precip_mm": "precipitation_sum",
               "precip_chance": "precipitation_probability_max", "wind_kmh": "wind_speed_10m_max", "uv": "uv_index_max",
               "weather_code": "weather_code", "rain": "weather_code", "date": "time", "weekday": "time",
               "sunrise": "sunrise", "sunset": "sunset"}
    if field not in columns:
        raise GetterError(f"weather_forecast: unknown field {field!r}; fields: {', '.join(columns)}")
    if unit not in ("C", "F"):
        raise GetterError(f"weather_forecast: unit must be 'C' or 'F', got {unit!r}")
    place = find_city(city)
    if place is None:
        raise GetterError(f"weather_forecast: no coordinates for city {city!r}")
    if not isinstance(day_offset, int) or not 0 <= day_offset <= 9:
        raise GetterError(f"weather_forecast: day_offset must be an integer 0..9, got {day_offset!r}")
    url = (f"https://api.open-meteo.com/v1/forecast?latitude={place.lat}&longitude={place.lon}&timezone=auto"
           f"&forecast_days=10&daily={','.join(sorted(set(columns.values()) - {'time'}))}"
           + ("&temperature_unit=fahrenheit" if unit == "F" else ""))
    try:
        daily = json.loads(ctx.shell_ok(f"curl -s {shlex.quote(url)}"))["daily"]
        value = daily[columns[field]][day_offset]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise GetterError(f"weather_forecast: unexpected answer from Open-Meteo for {city!r} ({exc})") from None
    if field == "rain":
        return int(value) in (51, 53, 55, 61, 63, 65, 80, 81, 82, 95, 96, 99)
    if field == "weekday":
        return datetime.fromisoformat(value).strftime("%A")
    if field in ("sunrise", "sunset"):
        return str(value)[11:16]
    return value


@getter("clipboard")
def clipboard(ctx: GetterContext) -> str:
    """The clipboard's text (``pbpaste``)."""
    return ctx.shell_ok("pbpaste")


@getter("applescript_records")
def applescript_records(ctx: GetterContext, app: str, element: str, properties: list[str], where: str | None = None,
                        container: str | None = None) -> list[dict[str, str]]:
    """Properties of every ``element`` of ``app`` (optionally ``of container`` and ``whose where``) as a list of dicts.

    Runs one AppleScript per property (``get name of every note``), so it stays within the subset
    both the simulator and real macOS answer; values are compared as text. osascript prints lists as
    ``a, b, c``, so a value holding ", " is ambiguous: the getter then fails rather than guess.
    """
    if not properties:
        raise GetterError("applescript_records: give at least one property")
    target = f"every {element}" + (f" of {container}" if container else "") + (f" whose {where}" if where else "")
    columns = []
    for prop in properties:
        script = f'tell application {applescript_string(app)} to get {prop} of {target}'
        columns.append(osascript_list(ctx.applescript(script)))
    lengths = {len(c) for c in columns}
    if len(lengths) != 1:
        raise GetterError(f"applescript_records: properties of {target} came back with different counts {sorted(lengths)}")
    return [dict(zip(properties, values)) for values in zip(*columns)]
