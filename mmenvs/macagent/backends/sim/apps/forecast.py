"""The sim's weather: one deterministic forecast per (city, local date) that the Weather app, ``curl
wttr.in`` and ``curl api.open-meteo.com`` all show.

Each day's numbers come from a generator seeded by a stable hash of the city and the date, on top
of the city's climate (its January and July normal highs, diurnal range and chance of a wet day),
so the same task date gives the same weather on every run and machine. Sunrise and sunset are the
astronomical ones for the city's coordinates. The Mac's clock is read as UTC (the shell's ``date``
says UTC too); each city shows its own local time and its own "today".

A task may pin values (force rain tomorrow in a city) with a JSON file the setup writes at
:data:`PINS_PATH` under the home folder: a list of ``{"city", "day" | "date", <field>: value}``
objects, fields as in :data:`PIN_FIELDS` (°C, km/h, mm). A real Mac has no such file (its forecast
is live), which is why tasks that pin values are sim-only.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote_plus, urlparse

import numpy as np

from mmenvs.core.confined import ConfinedDir, ConfinementError
from mmenvs.macagent.weather_cities import CITIES, City, find_city, search_cities  # noqa: F401 - the sim's weather API

from .home_io import MAX_TEXT_BYTES, error_text

PINS_PATH = "Library/Containers/com.apple.weather/Data/Library/Caches/ForecastPins.json"
FORECAST_DAYS = 10


# ------------------------------------------------------------------------------------------- cities
# the city table (and its lookups) is shared with the checkpoints: mmenvs/macagent/weather_cities.py
HOME_CITY = "Cupertino"  # "My Location" of the simulated Mac


# ------------------------------------------------------------------------------------------- conditions
@dataclass(frozen=True)
class Condition:
    name: str  # as the Weather app words it
    wwo: int  # WorldWeatherOnline code (wttr.in's weatherCode)
    wttr: str  # wttr.in's description
    emoji: str
    art: str  # wttr's ASCII picture
    wmo: int  # WMO code (Open-Meteo's weather_code)
    wet: bool  # precipitation falls
    glyph: str  # the app's symbol (one the UI font has)


CONDITIONS: dict[str, Condition] = {c.name: c for c in (
    Condition("Sunny", 113, "Sunny", "☀️", "sunny", 0, False, "☀"),
    Condition("Mostly Sunny", 116, "Partly cloudy", "🌤", "partly", 1, False, "☀"),
    Condition("Partly Cloudy", 116, "Partly cloudy", "⛅️", "partly", 2, False, "☁"),
    Condition("Mostly Cloudy", 119, "Cloudy", "☁️", "cloudy", 3, False, "☁"),
    Condition("Cloudy", 122, "Overcast", "☁️", "cloudy", 3, False, "☁"),
    Condition("Foggy", 248, "Fog", "🌫", "fog", 45, False, "≋"),
    Condition("Drizzle", 266, "Light drizzle", "🌦", "light", 53, True, "☂"),
    Condition("Rain", 302, "Moderate rain", "🌧", "rain", 63, True, "☂"),
    Condition("Heavy Rain", 308, "Heavy rain", "🌧", "heavy", 65, True, "☔"),
    Condition("Thunderstorms", 389, "Moderate or heavy rain with thunder", "⛈", "thunder", 95, True, "⚡"),
    Condition("Snow", 332, "Moderate snow", "❄️", "snow", 73, True, "❄"),
)}
RAIN_CONDITIONS = frozenset({"Drizzle", "Rain", "Heavy Rain", "Thunderstorms"})
_DRY = ("Sunny", "Mostly Sunny", "Partly Cloudy", "Mostly Cloudy", "Cloudy")
_POINTS16 = ("N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW")


# ------------------------------------------------------------------------------------------- model
@dataclass(slots=True)
class Hour:
    """One local hour of a day's forecast (metric units)."""

    time: datetime  # local wall time of the city
    temp: float
    condition: str
    precip_chance: int
    precip_mm: float
    wind_kmh: float
    wind_deg: int
    humidity: int
    cloud: int
    uv: int

    @property
    def feels_like(self) -> float:
        return feels_like(self.temp, self.wind_kmh, self.humidity)

    @property
    def is_day(self) -> bool:
        return 6 <= self.time.hour < 19


@dataclass(slots=True)
class Day:
    """A city's forecast for one local date (°C, km/h, mm, %)."""

    city: City
    date: date
    condition: str
    high: float
    low: float
    precip_chance: int
    precip_mm: float
    wind_kmh: float
    wind_deg: int
    humidity: int
    uv: int
    sunrise: datetime
    sunset: datetime
    pinned: tuple[str, ...] = ()
    hours: list[Hour] = field(default_factory=list)

    @property
    def rain(self) -> bool:
        """Whether rain falls this day (drizzle, rain, heavy rain or thunderstorms)."""
        return self.condition in RAIN_CONDITIONS

    def as_dict(self) -> dict[str, Any]:
        """The day's fields as the ``weather_forecast`` getter names them."""
        return {"date": self.date.isoformat(), "condition": self.condition, "high": round(self.high), "low": round(self.low),
                "precip_chance": self.precip_chance, "precip_mm": round(self.precip_mm, 1), "rain": self.rain,
                "wind_kmh": round(self.wind_kmh), "humidity": self.humidity, "uv": self.uv,
                "sunrise": self.sunrise.strftime("%H:%M"), "sunset": self.sunset.strftime("%H:%M")}


def feels_like(t: float, wind_kmh: float, humidity: int) -> float:
    """Apparent temperature: wind chill when cold and windy, heat index when hot, else the temperature."""
    if t <= 10 and wind_kmh > 4.8:
        v = wind_kmh ** 0.16
        return 13.12 + 0.6215 * t - 11.37 * v + 0.3965 * t * v
    if t >= 27:
        f = t * 9 / 5 + 32
        hi = (-42.379 + 2.04901523 * f + 10.14333127 * humidity - 0.22475541 * f * humidity - 6.83783e-3 * f * f
              - 5.481717e-2 * humidity * humidity + 1.22874e-3 * f * f * humidity + 8.5282e-4 * f * humidity * humidity
              - 1.99e-6 * f * f * humidity * humidity)
        return max(t, (hi - 32) * 5 / 9)
    return t


def c_to_f(c: float) -> float:
    return c * 9 / 5 + 32


def _seed(*parts: Any) -> int:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


@lru_cache(maxsize=8192)
def _z(city_key: str, d: date) -> float:
    """The day's standard-normal weather anomaly (shared with the next days for some persistence)."""
    return float(np.random.default_rng(_seed("anomaly", city_key, d.isoformat())).standard_normal())


def _season(city: City, d: date) -> float:
    """0 in mid-January, 1 in mid-July (a cosine through the year)."""
    doy = d.timetuple().tm_yday
    return (1 - math.cos(2 * math.pi * (doy - 15) / 365.25)) / 2


def sun_times(city: City, d: date) -> tuple[datetime, datetime]:
    """Local sunrise and sunset (NOAA's approximation; polar day/night clamp to the day's ends)."""
    doy = d.timetuple().tm_yday
    g = 2 * math.pi / 365 * (doy - 1)
    eqt = 229.18 * (0.000075 + 0.001868 * math.cos(g) - 0.032077 * math.sin(g) - 0.014615 * math.cos(2 * g)
                    - 0.040849 * math.sin(2 * g))
    decl = (0.006918 - 0.399912 * math.cos(g) + 0.070257 * math.sin(g) - 0.006758 * math.cos(2 * g)
            + 0.000907 * math.sin(2 * g) - 0.002697 * math.cos(3 * g) + 0.00148 * math.sin(3 * g))
    lat = math.radians(city.lat)
    cos_ha = math.cos(math.radians(90.833)) / (math.cos(lat) * math.cos(decl)) - math.tan(lat) * math.tan(decl)
    ha = math.degrees(math.acos(max(-1.0, min(1.0, cos_ha))))
    noon_utc = 720 - 4 * city.lon - eqt  # minutes after UTC midnight
    base = datetime(d.year, d.month, d.day, tzinfo=timezone.utc)
    offset = datetime(d.year, d.month, d.day, 12, tzinfo=city.zone).utcoffset() or timedelta(0)
    rise = (base + timedelta(minutes=noon_utc - 4 * ha) + offset).replace(tzinfo=None)
    sset = (base + timedelta(minutes=noon_utc + 4 * ha) + offset).replace(tzinfo=None)
    return rise, sset


@lru_cache(maxsize=512)  # a day with its hours is about 6 KB: the cache stays near 3 MB
def base_day(city: City, d: date) -> Day:
    """The generated (unpinned) forecast of ``city`` on local date ``d``."""
    rng = np.random.default_rng(_seed("day", city.key, d.isoformat()))
    s = _season(city, d)
    normal_high = city.jan_high + (city.jul_high - city.jan_high) * s
    anomaly = 3.2 * (0.6 * _z(city.key, d) + 0.3 * _z(city.key, d - timedelta(1)) + 0.1 * _z(city.key, d - timedelta(2)))
    wet_p = city.wet_jan + (city.wet_jul - city.wet_jan) * s
    u_wet, u_kind, u_cloud, u_chance = rng.random(4)
    wet = u_wet < wet_p
    high = normal_high + anomaly - (1.5 if wet else 0.0)
    spread = city.spread * (0.65 if wet else 1.0) * (0.85 + 0.3 * float(rng.random()))
    low = high - spread
    if wet:
        mm = float(rng.gamma(1.3, 4.0)) + 0.3
        if high <= 1.5:
            cond = "Snow"
        elif high > 24 and u_kind < 0.35:
            cond = "Thunderstorms"
            mm += 6
        elif mm > 11:
            cond = "Heavy Rain"
        elif mm > 2.5:
            cond = "Rain"
        else:
            cond = "Drizzle"
        chance = int(60 + 10 * math.floor(u_chance * 5))
    else:
        mm = 0.0
        if u_kind < 0.05 and city.spread < 10 and wet_p > 0.2:
            cond = "Foggy"
        else:
            cond = _DRY[min(4, int(u_cloud ** (1.0 + 1.5 * (1 - wet_p)) * 5))]
        chance = int(10 * math.floor(u_chance * (4 if wet_p > 0.2 else 2)))
    wind = float(rng.gamma(2.2, 5.5)) + (6 if wet else 0)
    wind_deg = int(rng.integers(0, 360))
    humidity = int(min(98, max(12, 45 + 40 * wet_p + (25 if wet else 0) - 0.6 * max(0, high - 20) + 8 * rng.standard_normal())))
    clear = {"Sunny": 1.0, "Mostly Sunny": 0.9, "Partly Cloudy": 0.75, "Mostly Cloudy": 0.5}.get(cond, 0.35)
    noon_sun = max(0.0, math.cos(math.radians(city.lat - 23.44 * math.cos(2 * math.pi * (d.timetuple().tm_yday + 10) / 365.25) * -1)))
    uv = int(round(max(0.0, 12.5 * noon_sun ** 2.5 * clear)))
    rise, sset = sun_times(city, d)
    return Day(city, d, cond, round(high, 1), round(low, 1), chance, round(mm, 1), round(wind, 1), wind_deg, humidity, uv,
               rise, sset)


def _hours(day: Day) -> list[Hour]:
    """The day's 24 hours: temperature from low at sunrise to high mid-afternoon; a wet day's rain falls in
    one window of hours, the others are cloudy."""
    rng = np.random.default_rng(_seed("hours", day.city.key, day.date.isoformat(), day.condition, day.high, day.low))
    start = int(rng.integers(2, 15))
    length = int(rng.integers(5, 10))
    rise_h = day.sunrise.hour + day.sunrise.minute / 60
    out = []
    cond = CONDITIONS[day.condition]
    for h in range(24):
        if rise_h <= h <= 15:
            t = day.low + (day.high - day.low) * (1 - math.cos(math.pi * (h - rise_h) / (15 - rise_h))) / 2
        else:
            since = (h - 15) if h > 15 else (h + 9)
            total = 24 - 15 + rise_h
            t = day.high - (day.high - day.low) * (1 - math.cos(math.pi * since / total)) / 2
        t += 0.4 * float(rng.standard_normal())
        t = min(day.high, max(day.low, t))
        if cond.wet:
            raining = start <= h < start + length
            hc = day.condition if raining else "Cloudy"
            chance = day.precip_chance if raining else max(10, day.precip_chance - 40)
            mm = round(day.precip_mm / length, 1) if raining else 0.0
            cloud = 95 if raining else 80
        else:
            hc = day.condition
            chance = min(day.precip_chance, 10 * int(rng.integers(0, 3)))
            mm = 0.0
            cloud = {"Sunny": 5, "Mostly Sunny": 20, "Partly Cloudy": 45, "Mostly Cloudy": 70, "Cloudy": 90, "Foggy": 85}[hc]
        wind = max(0.0, day.wind_kmh * (0.7 + 0.5 * math.sin(math.pi * h / 24)) + float(rng.normal(0, 1.5)))
        daylight = day.sunrise.hour <= h <= day.sunset.hour
        uv = int(round(day.uv * max(0.0, math.sin(math.pi * (h - rise_h) / max(1.0, (day.sunset.hour - rise_h)))))) if daylight else 0
        hum = int(min(100, max(10, day.humidity + (day.high - t) * 2)))
        out.append(Hour(datetime(day.date.year, day.date.month, day.date.day, h), round(t, 1), hc, int(chance), mm,
                        round(wind, 1), (day.wind_deg + int(rng.integers(-20, 21))) % 360, hum, cloud, uv))
    return out


# ------------------------------------------------------------------------------------------- pins
PIN_FIELDS = {"condition": str, "high": float, "low": float, "precip_chance": int, "precip_mm": float,
              "wind_kmh": float, "humidity": int, "uv": int}


class PinError(ValueError):
    """The pin file (:data:`PINS_PATH`) is malformed: the message names the entry and field."""


def load_pins(path: Path, files: ConfinedDir) -> list[dict[str, Any]]:
    """Read and check the pin file at host path ``path`` through the home's layer ``files`` (a missing
    file pins nothing; a symlink or special file is refused)."""
    where = f"~/{PINS_PATH}"
    try:
        raw = files.read_bytes(path, limit=MAX_TEXT_BYTES)
    except ConfinementError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return []
        raise PinError(error_text(e)) from None  # the layer's message names ~/…/ForecastPins.json
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        raise PinError(f"{where}: not valid JSON ({e})") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise PinError(f"{where}: expected a list of pins, got {type(data).__name__}")
    out = []
    for i, pin in enumerate(data):
        if not isinstance(pin, dict):
            raise PinError(f"{where}: entry [{i}] must be an object, got {pin!r}")
        if find_city(str(pin.get("city", ""))) is None:
            raise PinError(f"{where}: entry [{i}] field 'city': unknown city {pin.get('city')!r}; known: "
                           + ", ".join(c.name for c in CITIES))
        if ("day" in pin) == ("date" in pin):
            raise PinError(f"{where}: entry [{i}] needs exactly one of 'day' (0 = today, 1 = tomorrow, …) or 'date' (YYYY-MM-DD)")
        if "date" in pin:
            try:
                date.fromisoformat(str(pin["date"]))
            except ValueError:
                raise PinError(f"{where}: entry [{i}] field 'date': expected YYYY-MM-DD, got {pin['date']!r}") from None
        elif not isinstance(pin["day"], int) or not 0 <= pin["day"] < FORECAST_DAYS:
            raise PinError(f"{where}: entry [{i}] field 'day': expected an integer 0..{FORECAST_DAYS - 1}, got {pin['day']!r}")
        for k, v in pin.items():
            if k in ("city", "day", "date"):
                continue
            if k not in PIN_FIELDS:
                raise PinError(f"{where}: entry [{i}] has unknown field {k!r}; fields: {', '.join(PIN_FIELDS)}")
            if k == "condition":
                if v not in CONDITIONS:
                    raise PinError(f"{where}: entry [{i}] field 'condition': {v!r} is not one of {', '.join(CONDITIONS)}")
            elif isinstance(v, bool) or not isinstance(v, (int, float)):
                raise PinError(f"{where}: entry [{i}] field {k!r}: expected a number, got {v!r}")
        out.append(pin)
    return out


# ------------------------------------------------------------------------------------------- service
class Forecasts:
    """The forecasts of one desktop: ``now`` (read as UTC) from its clock, pins from its home folder."""

    def __init__(self, now: Any, home: Path | None, files: ConfinedDir | None = None) -> None:
        self._now = now  # a callable returning the desktop clock
        self._home = home
        # the home's confined layer (pins are agent-controlled: never followed out of the home)
        self.home_files = files if files is not None or home is None else ConfinedDir(home)
        self._pins_key: tuple | None = None
        self._pins: list[dict[str, Any]] = []

    def now_utc(self) -> datetime:
        return self._now()

    def local_now(self, city: City) -> datetime:
        """The city's wall-clock time now."""
        return self._now().replace(tzinfo=timezone.utc).astimezone(city.zone).replace(tzinfo=None)

    def today(self, city: City) -> date:
        return self.local_now(city).date()

    def pins(self) -> list[dict[str, Any]]:
        if self._home is None:
            return []
        path = self._home / PINS_PATH
        try:
            st = self.home_files.lstat(path)
            key = (st.st_mtime_ns, st.st_size, st.st_mode)
        except OSError:
            key = None
        if key != self._pins_key:
            self._pins = load_pins(path, self.home_files) if key is not None else []
            self._pins_key = key
        return self._pins

    def day(self, city: City, offset: int = 0, on: date | None = None) -> Day:
        """The forecast of ``city`` for its local today + ``offset`` (or the local date ``on``)."""
        today = self.today(city)
        d = on if on is not None else today + timedelta(days=offset)
        out = base_day(city, d)
        applied: dict[str, Any] = {}
        for pin in self.pins():
            if find_city(str(pin["city"])) is not city:
                continue
            pd = date.fromisoformat(pin["date"]) if "date" in pin else today + timedelta(days=int(pin["day"]))
            if pd == d:
                applied.update({k: v for k, v in pin.items() if k in PIN_FIELDS})
        if applied:
            out = replace(out, **{k: PIN_FIELDS[k](v) for k, v in applied.items()}, pinned=tuple(sorted(applied)), hours=[])
            if "condition" in applied and not CONDITIONS[out.condition].wet:
                out = replace(out, precip_mm=float(applied.get("precip_mm", 0.0)),
                              precip_chance=int(applied.get("precip_chance", min(out.precip_chance, 20))))
            elif "condition" in applied and "precip_mm" not in applied and out.precip_mm == 0:
                out = replace(out, precip_mm=6.0 if out.condition != "Drizzle" else 1.2,
                              precip_chance=int(applied.get("precip_chance", max(out.precip_chance, 80))))
            if out.low > out.high:
                out = replace(out, low=out.high - 1 if "high" in applied else out.low, high=out.high if "high" in applied else out.low + 1)
        if not out.hours:
            out.hours = _hours(out)
        return out

    def days(self, city: City, n: int = FORECAST_DAYS) -> list[Day]:
        return [self.day(city, i) for i in range(n)]

    def current(self, city: City) -> Hour:
        """The conditions now: the current local hour of today's forecast (night turns Sunny into Clear)."""
        now = self.local_now(city)
        return self.day(city, 0).hours[now.hour]


def condition_label(name: str, is_day: bool) -> str:
    """The app's words for a condition at this time of day."""
    if not is_day:
        return {"Sunny": "Clear", "Mostly Sunny": "Mostly Clear"}.get(name, name)
    return name


# ------------------------------------------------------------------------------------------- wttr.in
_ART = {
    "sunny": ["    \\   /    ", "     .-.     ", "  ― (   ) ―  ", "     `-’     ", "    /   \\    "],
    "partly": ["   \\  /      ", ' _ /"".-.    ', "   \\_(   ).  ", "   /(___(__) ", "             "],
    "cloudy": ["             ", "     .--.    ", "  .-(    ).  ", " (___.__)__) ", "             "],
    "fog": ["             ", " _ - _ - _ - ", "  _ - _ - _  ", " _ - _ - _ - ", "             "],
    "light": [" _`/\"\".-.    ", "  ,\\_(   ).  ", "   /(___(__) ", "     ‘ ‘ ‘ ‘ ", "    ‘ ‘ ‘ ‘  "],
    "rain": ["     .-.     ", "    (   ).   ", "   (___(__)  ", "    ‘ ‘ ‘ ‘  ", "   ‘ ‘ ‘ ‘   "],
    "heavy": ["     .-.     ", "    (   ).   ", "   (___(__)  ", "  ‚‘‚‘‚‘‚‘   ", "  ‚’‚’‚’‚’   "],
    "thunder": ["     .-.     ", "    (   ).   ", "   (___(__)  ", "  ‚‘ϟ‘‚ϟ‚‘  ", "  ‚’‚’ϟ’‚’   "],
    "snow": ["     .-.     ", "    (   ).   ", "   (___(__)  ", "    *  *  *  ", "   *  *  *   "],
}
_ARROWS = ("↓", "↙", "←", "↖", "↑", "↗", "→", "↘")  # the way the wind blows from, as wttr draws it


def _arrow(deg: int) -> str:
    return _ARROWS[int(((deg % 360) + 22.5) // 45) % 8]


def _point16(deg: int) -> str:
    return _POINTS16[int(((deg % 360) + 11.25) // 22.5) % 16]


class WttrError(ValueError):
    """A wttr.in request the site answers with an error (status, text)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


def wttr(fc: Forecasts, url: str, browser: bool = False) -> tuple[int, str, str]:
    """Answer a wttr.in URL: (HTTP status, content type, body). ``browser`` gives the HTML page Safari sees."""
    u = urlparse(url if "://" in url else "http://" + url)
    loc = unquote_plus(u.path.strip("/"))
    # options come as ?format=3&u or ?0Tu (single-letter flags) like the real site
    raw_q = u.query
    params = parse_qs(raw_q, keep_blank_values=True)
    flags = "".join(k for k, v in params.items() if v == [""] and len(k) <= 4 and k.isalnum() and k not in ("format", "lang"))
    fmt = params.get("format", [""])[0]
    metric = "u" not in flags  # the sim's Mac is outside the US: metric unless ?u
    if not loc:
        city = find_city(HOME_CITY)
        shown = city.name if city else HOME_CITY
    else:
        if loc.startswith(":") or loc in (":help", "help"):
            return 200, "text/plain", _WTTR_HELP
        city = find_city(loc)
        shown = loc.replace("+", " ")
    if city is None:
        body = f"Unknown location; please try ~{loc.lstrip('~')}\n"
        return (404, "text/plain", body) if not browser else (404, "text/html", f"<title>wttr.in</title><pre>{body}</pre>")
    try:
        if fmt == "j1" or fmt == "j2":
            return 200, "application/json", json.dumps(wttr_json(fc, city, loc or city.name, hourly=fmt == "j1"), indent=1, ensure_ascii=False) + "\n"
        if fmt:
            line = wttr_line(fc, city, shown, fmt, metric)
            return 200, "text/plain", line + "\n"
        days = 1 if "1" in flags else 0 if "0" in flags else 2 if "2" in flags else 3
        text = wttr_report(fc, city, shown, metric, days, narrow="n" in flags, quiet="q" in flags or "Q" in flags,
                           footer="F" not in flags)
    except PinError as e:
        return 500, "text/plain", f"{e}\n"
    if browser:
        import html

        return 200, "text/html", f"<title>Weather report: {html.escape(shown)}</title><pre>{html.escape(text)}</pre>"
    return 200, "text/plain", text


_WTTR_HELP = """Usage:

    $ curl wttr.in          # current location
    $ curl wttr.in/muc      # weather in the Munich airport

Units:

    m                       # metric (SI) (used by default everywhere except US)
    u                       # USCS (used by default in US)

View options:

    0                       # only current weather
    1                       # current weather + today's forecast
    2                       # current weather + today's + tomorrow's forecast
    F                       # do not show the "Follow" line
    n                       # narrow version (only day and night)
    q                       # quiet version (no "Weather report" text)
    Q                       # superquiet version (no "Weather report", no city name)
    T                       # switch terminal sequences off (no colors)

One-line output:

    ?format=1 … ?format=4   # predefined formats; or a format string with %c %C %t %f %h %w %l %p %P %u %S %s %T %Z %m %M
    ?format=j1              # JSON
"""


def _temp(c: float, metric: bool, unit: bool = True) -> str:
    v = round(c if metric else c_to_f(c))
    return f"{v:+d}" + (("°C" if metric else "°F") if unit else "")


def _wind(kmh: float, deg: int, metric: bool) -> str:
    return f"{_arrow(deg)}{round(kmh if metric else kmh / 1.609344)}{'km/h' if metric else 'mph'}"


_MOON = ("🌑", "🌒", "🌓", "🌔", "🌕", "🌖", "🌗", "🌘")
_MOON_PHASES = ("New Moon", "Waxing Crescent", "First Quarter", "Waxing Gibbous", "Full Moon", "Waning Gibbous",
                "Last Quarter", "Waning Crescent")


def _moon_day(d: date) -> int:
    """Days since the last new moon (0..29), from a reference new moon and the synodic month."""
    ref = date(2000, 1, 6)
    return int(((d - ref).days % 29.530588853))


def wttr_line(fc: Forecasts, city: City, shown: str, fmt: str, metric: bool) -> str:
    """One-line output: ``format`` 1–4 or a string with %-codes."""
    preset = {"1": "%c %t", "2": "%c 🌡️%t 🌬️%w", "3": "%l: %c %t", "4": "%l: %c 🌡️%t 🌬️%w"}
    fmt = preset.get(fmt, fmt)
    now = fc.current(city)
    day = fc.day(city, 0)
    cond = CONDITIONS[now.condition]
    local = fc.local_now(city)
    codes = {
        "c": cond.emoji + " " * (2 if len(cond.emoji) > 1 else 3), "C": condition_label(now.condition, now.is_day) if now.condition in ("Sunny",) else cond.wttr,
        "x": cond.art, "t": _temp(now.temp, metric), "f": _temp(now.feels_like, metric), "h": f"{now.humidity}%",
        "w": _wind(now.wind_kmh, now.wind_deg, metric), "l": shown, "p": f"{now.precip_mm:.1f}mm" if metric else f"{now.precip_mm / 25.4:.1f}in",
        "P": f"{1016 - (8 if cond.wet else 0)}hPa", "u": str(now.uv), "S": day.sunrise.strftime("%H:%M:%S"),
        "s": day.sunset.strftime("%H:%M:%S"), "T": local.strftime("%H:%M:%S") + (local.replace(tzinfo=city.zone).strftime("%z")),
        "Z": city.tz, "m": _MOON[int(_moon_day(local.date()) / 29.53 * 8) % 8], "M": str(_moon_day(local.date())), "%": "%",
    }
    out = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "%" and i + 1 < len(fmt) and fmt[i + 1] in codes:
            out.append(codes[fmt[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _cell(hours: list[Hour], metric: bool, width: int) -> list[str]:
    """One period box of the report (icon + 5 text lines) from the hours it spans."""
    mid = hours[len(hours) // 2]
    wet = [h for h in hours if CONDITIONS[h.condition].wet]
    h = wet[0] if wet else mid
    cond = CONDITIONS[h.condition]
    lo, hi = min(x.temp for x in hours), max(x.temp for x in hours)
    t = _temp(lo, metric, False) + (".." + _temp(hi, metric, False) if round(lo) != round(hi) else "") + (" °C" if metric else " °F")
    wind = f"{_arrow(h.wind_deg)} {round(h.wind_kmh if metric else h.wind_kmh / 1.609)} {'km/h' if metric else 'mph'}"
    mm = sum(x.precip_mm for x in hours)
    lines = [condition_label(h.condition, h.is_day) if h.condition == "Sunny" else cond.wttr, t, wind,
             f"{10 if h.condition != 'Foggy' else 1} km", f"{mm:.1f} mm | {max(x.precip_chance for x in hours)}%"]
    art = _ART[cond.art]
    return [(art[i] + " " + lines[i])[:width].ljust(width) for i in range(5)]


def wttr_report(fc: Forecasts, city: City, shown: str, metric: bool, days: int = 3, narrow: bool = False,
                quiet: bool = False, footer: bool = True) -> str:
    """The full-text report: current conditions, then ``days`` days in four periods."""
    now = fc.current(city)
    cond = CONDITIONS[now.condition]
    out = [] if quiet else [f"Weather report: {shown}", ""]
    cur = [condition_label(now.condition, now.is_day) if now.condition == "Sunny" else cond.wttr,
           f"{_temp(now.temp, metric, False)}({_temp(now.feels_like, metric, False)}) {'°C' if metric else '°F'}",
           f"{_arrow(now.wind_deg)} {round(now.wind_kmh if metric else now.wind_kmh / 1.609)} {'km/h' if metric else 'mph'}",
           "10 km" if metric else "6 miles", f"{now.precip_mm:.1f} mm" if metric else f"{now.precip_mm / 25.4:.1f} in"]
    art = _ART[cond.art]
    out += [f"{art[i]} {cur[i]}".rstrip() for i in range(5)]
    periods = [("Night", (0, 6)), ("Morning", (6, 12)), ("Noon", (12, 18)), ("Evening", (18, 24))]
    if narrow:
        periods = [("Noon", (9, 18)), ("Night", (18, 24))]
    order = [p for p in periods if p[0] != "Night"] + [p for p in periods if p[0] == "Night"]
    w = 30
    for i in range(days):
        day = fc.day(city, i)
        label = day.date.strftime("%a %d %b")
        total = len(order) * (w + 1) + 1
        out.append(("┌─────────────┐").center(total).rstrip())
        top = "┌" + "┬".join("─" * w for _ in order) + "┐"
        mid_at = total // 2
        top = top[: mid_at - 7] + "┤  " + label + " ├" + top[mid_at + 8:]
        out.append(top)
        out.append("│" + "│".join(name.center(w) for name, _ in order) + "│")
        out.append("├" + "┼".join("─" * w for _ in order) + "┤")
        cells = [_cell(day.hours[a:b], metric, w) for _, (a, b) in order]
        for r in range(5):
            out.append("│" + "│".join(c[r] for c in cells) + "│")
        out.append("└" + "┴".join("─" * w for _ in order) + "┘")
    if not quiet:
        out.append(f"Location: {city.name}, {city.region}, {city.country} [{city.lat},{city.lon}]")
    if footer and not quiet:
        out += ["", "Follow @igor_chubin for wttr.in updates"]
    return "\n".join(out) + "\n"


def _s(v: Any) -> str:
    return str(int(round(v))) if isinstance(v, float) else str(v)


def _ampm(t: datetime) -> str:
    return t.strftime("%I:%M %p")


def wttr_json(fc: Forecasts, city: City, query: str, hourly: bool = True) -> dict[str, Any]:
    """wttr.in's ``?format=j1`` JSON (values are strings, as on the real site); ``j2`` leaves out the hours."""
    now = fc.current(city)
    local = fc.local_now(city)
    cond = CONDITIONS[now.condition]

    def desc(c: Condition, h: Hour) -> str:
        return condition_label("Sunny", h.is_day) if c.name == "Sunny" and not h.is_day else c.wttr

    current = {"FeelsLikeC": _s(now.feels_like), "FeelsLikeF": _s(c_to_f(now.feels_like)), "cloudcover": str(now.cloud),
               "humidity": str(now.humidity), "localObsDateTime": local.strftime("%Y-%m-%d %I:%M %p"),
               "observation_time": fc.now_utc().strftime("%I:%M %p"), "precipInches": f"{now.precip_mm / 25.4:.1f}",
               "precipMM": f"{now.precip_mm:.1f}", "pressure": str(1016 - (8 if cond.wet else 0)),
               "pressureInches": "30", "temp_C": _s(now.temp), "temp_F": _s(c_to_f(now.temp)), "uvIndex": str(now.uv),
               "visibility": "10", "visibilityMiles": "6", "weatherCode": str(cond.wwo),
               "weatherDesc": [{"value": desc(cond, now)}], "weatherIconUrl": [{"value": ""}],
               "winddir16Point": _point16(now.wind_deg), "winddirDegree": str(now.wind_deg),
               "windspeedKmph": _s(now.wind_kmh), "windspeedMiles": _s(now.wind_kmh / 1.609344)}
    weather = []
    for i in range(3):
        day = fc.day(city, i)
        entry: dict[str, Any] = {
            "astronomy": [{"moon_illumination": str(int(50 - 50 * math.cos(2 * math.pi * _moon_day(day.date) / 29.53))),
                           "moon_phase": _MOON_PHASES[int(_moon_day(day.date) / 29.53 * 8 + 0.5) % 8],
                           "sunrise": _ampm(day.sunrise), "sunset": _ampm(day.sunset)}],
            "avgtempC": _s((day.high + day.low) / 2), "avgtempF": _s(c_to_f((day.high + day.low) / 2)),
            "date": day.date.isoformat(), "maxtempC": _s(day.high), "maxtempF": _s(c_to_f(day.high)),
            "mintempC": _s(day.low), "mintempF": _s(c_to_f(day.low)),
            "sunHour": f"{(day.sunset - day.sunrise).seconds / 3600 * (1 if not CONDITIONS[day.condition].wet else 0.4):.1f}",
            "totalSnow_cm": f"{day.precip_mm / 10 * 1.0 if day.condition == 'Snow' else 0.0:.1f}", "uvIndex": str(day.uv)}
        if hourly:
            rows = []
            for h in day.hours[::3]:
                c = CONDITIONS[h.condition]
                rows.append({"DewPointC": _s(h.temp - (100 - h.humidity) / 5), "FeelsLikeC": _s(h.feels_like),
                             "FeelsLikeF": _s(c_to_f(h.feels_like)), "WindGustKmph": _s(h.wind_kmh * 1.5),
                             "chanceoffog": "0" if h.condition != "Foggy" else "80", "chanceofrain": str(h.precip_chance if h.condition != "Snow" else 0),
                             "chanceofsnow": str(h.precip_chance if h.condition == "Snow" else 0),
                             "chanceofthunder": "60" if h.condition == "Thunderstorms" else "0",
                             "cloudcover": str(h.cloud), "humidity": str(h.humidity), "precipInches": f"{h.precip_mm / 25.4:.1f}",
                             "precipMM": f"{h.precip_mm:.1f}", "pressure": str(1016 - (8 if c.wet else 0)), "tempC": _s(h.temp),
                             "tempF": _s(c_to_f(h.temp)), "time": str(h.time.hour * 100), "uvIndex": str(h.uv),
                             "visibility": "10", "weatherCode": str(c.wwo), "weatherDesc": [{"value": desc(c, h)}],
                             "weatherIconUrl": [{"value": ""}], "winddir16Point": _point16(h.wind_deg),
                             "winddirDegree": str(h.wind_deg), "windspeedKmph": _s(h.wind_kmh),
                             "windspeedMiles": _s(h.wind_kmh / 1.609344)})
            entry["hourly"] = rows
        weather.append(entry)
    area = {"areaName": [{"value": city.name}], "country": [{"value": city.country}], "latitude": f"{city.lat:.3f}",
            "longitude": f"{city.lon:.3f}", "population": "0", "region": [{"value": city.region}], "weatherUrl": [{"value": ""}]}
    return {"current_condition": [current], "nearest_area": [area],
            "request": [{"query": f"Lat {city.lat:.2f} and Lon {city.lon:.2f}", "type": "LatLon"}], "weather": weather}


# ------------------------------------------------------------------------------------------- Open-Meteo
_DAILY = {
    "weather_code": lambda d, f: CONDITIONS[d.condition].wmo,
    "temperature_2m_max": lambda d, f: round(c_to_f(d.high) if f else d.high, 1),
    "temperature_2m_min": lambda d, f: round(c_to_f(d.low) if f else d.low, 1),
    "precipitation_sum": lambda d, f: d.precip_mm,
    "rain_sum": lambda d, f: d.precip_mm if d.condition != "Snow" else 0.0,
    "precipitation_probability_max": lambda d, f: d.precip_chance,
    "wind_speed_10m_max": lambda d, f: round(max(h.wind_kmh for h in d.hours), 1),
    "wind_direction_10m_dominant": lambda d, f: d.wind_deg,
    "uv_index_max": lambda d, f: float(d.uv),
    "sunrise": lambda d, f: d.sunrise.strftime("%Y-%m-%dT%H:%M"),
    "sunset": lambda d, f: d.sunset.strftime("%Y-%m-%dT%H:%M"),
}
_HOURLY = {
    "temperature_2m": lambda h, f: round(c_to_f(h.temp) if f else h.temp, 1),
    "apparent_temperature": lambda h, f: round(c_to_f(h.feels_like) if f else h.feels_like, 1),
    "relative_humidity_2m": lambda h, f: h.humidity,
    "precipitation_probability": lambda h, f: h.precip_chance,
    "precipitation": lambda h, f: h.precip_mm,
    "weather_code": lambda h, f: CONDITIONS[h.condition].wmo,
    "cloud_cover": lambda h, f: h.cloud,
    "wind_speed_10m": lambda h, f: h.wind_kmh,
    "uv_index": lambda h, f: float(h.uv),
}
_DAILY_UNITS = {"weather_code": "wmo code", "precipitation_sum": "mm", "rain_sum": "mm", "precipitation_probability_max": "%",
                "wind_speed_10m_max": "km/h", "wind_direction_10m_dominant": "°", "uv_index_max": "", "sunrise": "iso8601",
                "sunset": "iso8601"}


def nearest_city(lat: float, lon: float, within_km: float = 60.0) -> City | None:
    best, best_d = None, within_km
    for c in CITIES:
        p1, p2 = math.radians(lat), math.radians(c.lat)
        a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(c.lon - lon) / 2) ** 2
        dist = 2 * 6371 * math.asin(min(1.0, math.sqrt(a)))
        if dist <= best_d:
            best, best_d = c, dist
    return best


def open_meteo(fc: Forecasts, url: str) -> tuple[int, str, str]:
    """Answer Open-Meteo's forecast (``api.open-meteo.com/v1/forecast``) and geocoding
    (``geocoding-api.open-meteo.com/v1/search``) endpoints from the same forecasts."""
    u = urlparse(url if "://" in url else "https://" + url)
    q = {k: v[-1] for k, v in parse_qs(u.query).items()}

    def error(reason: str) -> tuple[int, str, str]:
        return 400, "application/json", json.dumps({"error": True, "reason": reason})

    if u.netloc.startswith("geocoding-api"):
        if u.path.rstrip("/") != "/v1/search":
            return 404, "application/json", json.dumps({"error": True, "reason": "Not Found"})
        name = q.get("name", "")
        try:
            count = int(q.get("count", "10"))
        except ValueError:
            return error(f"Parameter 'count' must be an integer, got {q.get('count')!r}")
        hits = ([find_city(name)] if find_city(name) else search_cities(name))[:count] if len(name) >= 2 else []
        results = [{"id": 1000 + CITIES.index(c), "name": c.name, "latitude": c.lat, "longitude": c.lon, "country": c.country,
                    "admin1": c.region, "timezone": c.tz} for c in hits if c is not None]
        return 200, "application/json", json.dumps({"results": results, "generationtime_ms": 0.5} if results else {"generationtime_ms": 0.5})
    if u.path.rstrip("/") != "/v1/forecast":
        return 404, "application/json", json.dumps({"error": True, "reason": "Not Found"})
    try:
        lat, lon = float(q["latitude"]), float(q["longitude"])
    except KeyError as e:
        return error(f"Parameter '{e.args[0]}' is required")
    except ValueError:
        return error("Parameters 'latitude' and 'longitude' must be numbers")
    city = nearest_city(lat, lon)
    if city is None:
        return error(f"No forecast for latitude {lat}, longitude {lon} in the simulator: it has weather for "
                     + ", ".join(c.name for c in CITIES))
    fahrenheit = q.get("temperature_unit", "celsius") == "fahrenheit"
    try:
        ndays = int(q.get("forecast_days", "7"))
    except ValueError:
        return error("Parameter 'forecast_days' must be an integer")
    if not 1 <= ndays <= FORECAST_DAYS:
        return error(f"Parameter 'forecast_days' must be between 1 and {FORECAST_DAYS} in the simulator")
    out: dict[str, Any] = {"latitude": city.lat, "longitude": city.lon, "generationtime_ms": 0.1,
                           "utc_offset_seconds": int((fc.local_now(city) - fc.now_utc()).total_seconds() // 60 * 60),
                           "timezone": city.tz if q.get("timezone") else "GMT", "elevation": 0.0}
    days = fc.days(city, ndays)
    tunit = "°F" if fahrenheit else "°C"
    for part, table in (("daily", _DAILY), ("hourly", _HOURLY)):
        if part not in q:
            continue
        names = [n for n in q[part].split(",") if n]
        bad = [n for n in names if n not in table]
        if bad:
            return error(f"Cannot initialize WeatherVariable from invalid String value {bad[0]} for key {part}")
        if part == "daily":
            data: dict[str, list] = {"time": [d.date.isoformat() for d in days]}
            for n in names:
                data[n] = [table[n](d, fahrenheit) for d in days]
        else:
            hours = [h for d in days for h in d.hours]
            data = {"time": [h.time.strftime("%Y-%m-%dT%H:%M") for h in hours]}
            for n in names:
                data[n] = [table[n](h, fahrenheit) for h in hours]
        out[part + "_units"] = {"time": "iso8601", **{n: (tunit if "temperature" in n else _DAILY_UNITS.get(n, "")) for n in names}}
        out[part] = data
    if q.get("current"):
        h = fc.current(city)
        names = [n for n in q["current"].split(",") if n]
        bad = [n for n in names if n not in _HOURLY]
        if bad:
            return error(f"Cannot initialize WeatherVariable from invalid String value {bad[0]} for key current")
        out["current"] = {"time": fc.local_now(city).strftime("%Y-%m-%dT%H:%M"), **{n: _HOURLY[n](h, fahrenheit) for n in names}}
    return 200, "application/json", json.dumps(out)
