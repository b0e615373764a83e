"""Weather: a sidebar of cities (My Location first) with search (cmd-f) to preview and add a city,
the selected city's current conditions, an hourly strip, a 10-day forecast and details, and a
°C/°F switch. The forecast is :mod:`.forecast`'s, the same that ``curl wttr.in/<City>`` and the
Open-Meteo API answer.

Like the real app, Weather has no AppleScript dictionary (activate/quit only). Its settings live in
the ``com.apple.weather`` defaults domain, so ``defaults read/write`` reach them: ``Cities`` (an
array of city names, My Location not included) and ``TemperatureUnit`` (``C`` or ``F``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PIL import Image

from ..menus import MenuItem, sep
from ..theme import Theme, font
from ..widgets import Box, Button, Custom, Label, ListView, Row, Segmented, TextField, Widget
from ..window import Window
from . import forecast as fx
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

DOMAIN = "com.apple.weather"
DEFAULT_CITIES = ("San Francisco", "New York", "London")
MY_LOCATION = "My Location"


class WeatherApp(App):
    """Weather; ``forecasts`` is the desktop's forecast service (also serving wttr.in and Open-Meteo)."""

    name = "Weather"
    bundle_id = "com.apple.weather"
    web_hosts = frozenset({"wttr.in", "www.wttr.in", "api.open-meteo.com", "geocoding-api.open-meteo.com"})

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.forecasts = fx.Forecasts(lambda: desktop.now, desktop.home, desktop.home_files)
        self.selected = MY_LOCATION  # a saved city's name or My Location
        self.preview: str | None = None  # a searched city shown before it is added
        self.search = ""

    # ------------------------------------------------------------------ settings (defaults domain)
    def _domain(self, create: bool = False) -> dict[str, Any]:
        prefs = getattr(self.desktop.backend, "prefs", None)
        if prefs is None:
            return {}
        if create:
            return prefs.domains.setdefault(DOMAIN, {})
        return prefs.domains.get(DOMAIN, {})

    @property
    def cities(self) -> list[str]:
        """The saved cities, in sidebar order (names the sim knows; others are skipped like stale entries)."""
        raw = self._domain().get("Cities", list(DEFAULT_CITIES))
        items = raw if isinstance(raw, list) else [raw]
        out: list[str] = []
        for name in items:
            c = fx.find_city(str(name))
            if c is not None and c.name not in out:
                out.append(c.name)
        return out

    def _save_cities(self, names: list[str]) -> None:
        self._domain(create=True)["Cities"] = list(names)
        self.touch()

    @property
    def unit(self) -> str:
        """``C`` or ``F``."""
        u = str(self._domain().get("TemperatureUnit", "C")).strip().upper()
        return "F" if u in ("F", "FAHRENHEIT") else "C"

    def set_unit(self, unit: str) -> None:
        u = unit.strip().upper().lstrip("°")
        if u not in ("C", "F"):
            raise ValueError(f"temperature unit must be C or F, got {unit!r}")
        self._domain(create=True)["TemperatureUnit"] = u
        self.touch()

    # ------------------------------------------------------------------ model API
    def add_city(self, name: str) -> str:
        """Add ``name`` to the saved cities (no-op if saved); returns the city's canonical name."""
        c = fx.find_city(name)
        if c is None:
            raise ValueError(f"Weather has no city named {name!r}")
        if c.name not in self.cities:
            self._save_cities(self.cities + [c.name])
        self.selected, self.preview, self.search = c.name, None, ""
        for w in self.windows:
            w.editors.pop("weather:search", None)
        self.touch()
        return c.name

    def remove_city(self, name: str) -> None:
        names = [n for n in self.cities if n != name]
        if len(names) != len(self.cities):
            self._save_cities(names)
            if self.selected == name:
                self.selected = MY_LOCATION

    def city_of(self, key: str) -> fx.City:
        c = fx.find_city(fx.HOME_CITY if key == MY_LOCATION else key)
        assert c is not None
        return c

    def shown_city(self) -> fx.City:
        if self.preview is not None:
            return self.city_of(self.preview)
        if self.selected != MY_LOCATION and self.selected not in self.cities:
            self.selected = MY_LOCATION
        return self.city_of(self.selected)

    def temp(self, c: float) -> str:
        return f"{round(fx.c_to_f(c) if self.unit == 'F' else c)}°"

    def state(self) -> dict[str, Any]:
        city = self.shown_city()
        now = self.forecasts.current(city)
        today = self.forecasts.day(city, 0)
        return {"running": self.running, "cities": self.cities, "unit": self.unit, "selected": self.selected,
                "preview": self.preview, "search": self.search,
                "shown": {"city": city.name, "condition": fx.condition_label(now.condition, now.is_day),
                          "temp": self.temp(now.temp), "high": self.temp(today.high), "low": self.temp(today.low)}}

    # ------------------------------------------------------------------ web (wttr.in, Open-Meteo)
    def serve_web(self, method: str, url: str, data: str | None, browser: bool) -> tuple[int, str, str]:
        """wttr.in pages and Open-Meteo JSON from this desktop's forecasts."""
        host = url.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].lower()
        if "open-meteo" in host:
            return fx.open_meteo(self.forecasts, url)
        return fx.wttr(self.forecasts, url, browser=browser)

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        w, h = 980, 640
        x, y = self.desktop.cascade_origin(w, h)
        # the clock is part of what it shows (local times, "now" in the hourly strip): redraw as minutes pass
        win = Window(self, "Weather", (x, y, w, h), self._build, title_h=52,
                     signature=lambda: self.desktop.now.replace(second=0, microsecond=0))
        win.focus_key = "weather:cities"
        self.desktop.show_window(win)
        return win

    def focus_search(self) -> None:
        self.reopen()
        self.desktop.activate(self, reopen=False)
        for w in self.windows[:1]:
            w.focus("weather:search")
            w.editor("weather:search", self.search).select_all()

    def extra_menus(self) -> list:
        return [("View", [
            MenuItem("Celsius", lambda: self.set_unit("C"), checked=self.unit == "C"),
            MenuItem("Fahrenheit", lambda: self.set_unit("F"), checked=self.unit == "F"),
            sep(),
            MenuItem("Search for a City", self.focus_search, "cmd+f"),
            MenuItem("Add to My Cities", lambda: self.add_city(self.preview) if self.preview else None,
                     enabled=self.preview is not None),
        ])]

    def _set_search(self, text: str) -> None:
        self.search = text
        self.touch()

    def _commit_search(self, win: Window, text: str) -> None:
        hits = fx.search_cities(text) if text.strip() else []
        exact = fx.find_city(text)
        city = exact or (hits[0] if hits else None)
        if city is None:
            return
        self._open_city(win, city.name)

    def _open_city(self, win: Window, name: str) -> None:
        """Show a searched city: a saved one is selected, another is previewed with an Add button."""
        self.search = ""
        win.editors.pop("weather:search", None)
        if name in self.cities:
            self.selected, self.preview = name, None
            win.focus_key = "weather:cities"
        else:
            self.preview = name
            win.focus_key = None  # Return now presses the default button (Add)
        self.touch()

    def _cancel_preview(self) -> None:
        self.preview = None
        self.touch()

    def _select(self, key: str) -> None:
        if key.startswith("result:"):
            win = self.windows[0] if self.windows else None
            if win is not None:
                self._open_city(win, key[len("result:"):])
            return
        self.selected, self.preview = key, None

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side = 270
        fc = self.forecasts
        out: list[Widget] = [Box((0, 0, side, H), "sidebar_bg"), Box((side, 0, 1, H), "separator")]
        ed = win.editor("weather:search", self.search)
        out.append(TextField("weather:search", (12, 58, side - 24, 26), ed, placeholder="Search for a city or airport",
                             name="Search", on_change=self._set_search, on_commit=lambda t: self._commit_search(win, t),
                             on_cancel=lambda: (self._set_search(""), win.editors.pop("weather:search", None))))
        rows: list[Row] = []
        if self.search.strip():
            for c in fx.search_cities(self.search)[:12]:
                rows.append(Row("result:" + c.name, [c.name], detail=f"{c.region}, {c.country}"))
            selected: list[str] = []
            empty = "No Results"
        else:
            for key in [MY_LOCATION] + self.cities:
                c = self.city_of(key)
                now = fc.current(c)
                today = fc.day(c, 0)
                local = fc.local_now(c)
                title = key if key != MY_LOCATION else MY_LOCATION
                when = f"{c.name}" if key == MY_LOCATION else f"{local.hour % 12 or 12}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
                rows.append(Row(key, [title, self.temp(now.temp)],
                                detail=f"{when} · {fx.condition_label(now.condition, now.is_day)} · H:{self.temp(today.high)} L:{self.temp(today.low)}"))
            selected = [self.selected] if self.preview is None else []
            empty = ""
        out.append(ListView("weather:cities", (0, 92, side, H - 92), rows, selected, name="Cities", sidebar=True,
                            on_select=lambda keys: self._select(keys[0]) if keys else None,
                            on_delete=lambda keys: [self.remove_city(k) for k in keys if k not in (MY_LOCATION,) and not k.startswith("result:")],
                            on_context=lambda keys: [MenuItem("Delete", lambda: self.remove_city(keys[0]),
                                                              enabled=keys[0] in self.cities)] if keys else [],
                            empty_text=empty))
        # toolbar: units, and Add/Cancel while previewing
        out.append(Segmented("weather:units", (W - 120, 14, 100, 24), ["°C", "°F"], "°" + self.unit,
                             lambda o: self.set_unit(o), name="Temperature unit"))
        if self.preview is not None:
            out.append(Button("weather:cancel", (W - 320, 14, 84, 24), "Cancel", self._cancel_preview, cancel=True))
            out.append(Button("weather:add", (W - 226, 14, 84, 24), "Add", lambda: self.add_city(self.preview or ""), default=True))
        out += self._detail(win, side)
        return out

    def _detail(self, win: Window, side: int) -> list[Widget]:
        W, H = win.w, win.h
        fc = self.forecasts
        city = self.shown_city()
        now = fc.current(city)
        days = fc.days(city)
        local = fc.local_now(city)
        x0 = side + 1
        out: list[Widget] = [Box((x0, 52, W - x0, H - 52), "content_bg")]
        title = city.name if not (self.preview is None and self.selected == MY_LOCATION) else MY_LOCATION
        out.append(Label((x0, 62, W - x0, 30), title, 24, "bold", align="center", key="weather:city"))
        if title == MY_LOCATION:
            out.append(Label((x0, 92, W - x0, 16), city.name.upper(), 11, "bold", color="secondary_text", align="center"))
        out.append(Label((x0, 106, W - x0, 64), self.temp(now.temp), 54, align="center", key="weather:temp"))
        out.append(Label((x0, 172, W - x0, 20), fx.condition_label(now.condition, now.is_day), 15, align="center",
                         key="weather:condition"))
        out.append(Label((x0, 192, W - x0, 20), f"H:{self.temp(days[0].high)}  L:{self.temp(days[0].low)}", 15,
                         align="center", key="weather:hilo"))
        # hourly strip: now and the next 11 hours (into tomorrow when needed)
        hours = (days[0].hours + days[1].hours)[local.hour:local.hour + 12]
        sx, sy, sw, sh = x0 + 20, 222, W - x0 - 40, 92
        col_w = sw / len(hours)
        cells = []
        for i, h in enumerate(hours):
            label = "Now" if i == 0 else f"{h.time.hour % 12 or 12}{'AM' if h.time.hour < 12 else 'PM'}"
            glyph = "☾" if not h.is_day and h.condition in ("Sunny", "Mostly Sunny") else fx.CONDITIONS[h.condition].glyph
            cells.append((label, glyph, self.temp(h.temp),
                          f"{h.precip_chance}%" if fx.CONDITIONS[h.condition].wet else ""))

        def paint_hours(d: Any, theme: Theme, rect: tuple) -> None:
            x, y, w, hh = rect
            d.rounded_rectangle((x, y, x + w - 1, y + hh - 1), 10, fill=theme.control_bg, outline=theme.separator)
            for i, (lab, glyph, t, pc) in enumerate(cells):
                mx = x + col_w * (i + 0.5)
                d.text((mx, y + 16), lab, font=font(12, "bold" if i == 0 else "regular"), fill=theme.text, anchor="mm")
                d.text((mx, y + 42), glyph, font=font(18), fill=theme.accent, anchor="mm")
                if pc:
                    d.text((mx, y + 58), pc, font=font(10), fill=theme.accent, anchor="mm")
                d.text((mx, y + 76), t, font=font(14, "bold"), fill=theme.text, anchor="mm")

        out.append(Custom("weather:hourly", (sx, sy, sw, sh), paint_hours, role="AXGroup", name="Hourly forecast",
                          children=[("AXStaticText", f"{lab} {t}" + (f" {pc}" if pc else ""), None,
                                     (sx + int(col_w * i), sy, int(col_w), sh), "") for i, (lab, _g, t, pc) in enumerate(cells)]))
        # 10-day forecast
        ly = sy + sh + 14
        lw = int((W - x0 - 40) * 0.62)
        out.append(Label((x0 + 20, ly, lw, 18), f"{fx.FORECAST_DAYS}-DAY FORECAST", 11, "bold", color="secondary_text"))
        rows = []
        for i, d in enumerate(days):
            name = "Today" if i == 0 else d.date.strftime("%a")
            cond = fx.CONDITIONS[d.condition]
            rows.append(Row(f"day:{i}", [name, f"{cond.glyph} {d.condition}", f"{d.precip_chance}%" if d.precip_chance else "",
                                         self.temp(d.low), self.temp(d.high)]))
        row_h = 26
        out.append(ListView("weather:days", (x0 + 20, ly + 20, lw, 24 + row_h * len(rows)), rows, [], name="10-day forecast",
                            columns=[("Day", 70), ("Conditions", lw - 70 - 180), ("Rain", 60), ("Low", 60), ("High", 60)],
                            row_height=row_h))
        # details
        dx = x0 + 40 + lw
        dw = W - dx - 20
        today = days[0]
        details = [("FEELS LIKE", self.temp(now.feels_like)), ("HUMIDITY", f"{now.humidity}%"),
                   ("WIND", f"{round(now.wind_kmh if self.unit == 'C' else now.wind_kmh / 1.609344)} {'km/h' if self.unit == 'C' else 'mph'} {fx._point16(now.wind_deg)}"),
                   ("UV INDEX", f"{now.uv} of 11"), ("PRECIPITATION", f"{today.precip_mm:.1f} mm today" if self.unit == "C" else f"{today.precip_mm / 25.4:.2f} in today"),
                   ("SUNRISE", today.sunrise.strftime("%H:%M")), ("SUNSET", today.sunset.strftime("%H:%M"))]
        for i, (k, v) in enumerate(details):
            y = ly + i * 40
            out.append(Box((dx, y, dw, 36), "control_bg", radius=8))
            out.append(Label((dx + 10, y + 2, dw - 20, 14), k, 10, "bold", color="secondary_text"))
            out.append(Label((dx + 10, y + 16, dw - 20, 18), v, 14, key=f"weather:detail:{k.lower()}"))
        return out

    # ------------------------------------------------------------------ icon
    @staticmethod
    def draw_icon(size: int) -> Image.Image:
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (64, 156, 255), (22, 92, 206))
        # sun behind a cloud
        c, r = S * 0.40, S * 0.17
        d.ellipse((c - r, S * 0.36 - r, c + r, S * 0.36 + r), fill=(255, 214, 10))
        for k in range(8):
            a = k * math.pi / 4
            d.line((c + math.cos(a) * r * 1.25, S * 0.36 + math.sin(a) * r * 1.25, c + math.cos(a) * r * 1.6,
                    S * 0.36 + math.sin(a) * r * 1.6), fill=(255, 214, 10), width=max(2, S // 40))
        white = (255, 255, 255)
        d.ellipse((S * 0.30, S * 0.46, S * 0.56, S * 0.72), fill=white)
        d.ellipse((S * 0.46, S * 0.40, S * 0.76, S * 0.70), fill=white)
        d.ellipse((S * 0.20, S * 0.56, S * 0.40, S * 0.76), fill=white)
        d.rounded_rectangle((S * 0.26, S * 0.60, S * 0.80, S * 0.76), S * 0.08, fill=white)
        return _finish(img, size)
