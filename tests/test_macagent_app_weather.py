"""The sim's Weather: deterministic forecasts shared by the app, ``curl wttr.in`` (formats 1–4, %-codes,
j1 JSON, the text report) and the Open-Meteo API; pins from the task's file; the GUI (search and add a city,
°C/°F, delete); settings in the ``com.apple.weather`` defaults domain; the ``weather_forecast`` getter; bad
input (unknown cities, malformed pin files)."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from mmenvs.core.confined import ConfinedDir

from mmenvs.macagent.backends.base import BackendError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim.apps import forecast as fx
from mmenvs.macagent.checkpoints import GETTERS, GetterContext, GetterError
from test_macagent_sim import elements, find

NOW = datetime(2026, 5, 4, 16, 0)  # read as UTC: 09:00 in San Francisco, 18:00 in Paris


def sh(b: SimBackend, cmd: str) -> str:
    out = b.run_shell(cmd)
    assert out.exit_code == 0, out.text
    return out.stdout


def pin(b: SimBackend, pins: list[dict]) -> None:
    p = b.home / fx.PINS_PATH
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(pins))


# ----------------------------------------------------------------------------------- the model
def test_forecast_is_deterministic_per_city_and_date_and_differs_between_them() -> None:
    sf, oslo = fx.find_city("San Francisco"), fx.find_city("oslo")
    a = fx.base_day(sf, date(2026, 5, 5)).as_dict()
    fx.base_day.cache_clear()
    fx._z.cache_clear()
    assert fx.base_day(sf, date(2026, 5, 5)).as_dict() == a  # recomputed from the seed, not remembered
    assert fx.base_day(oslo, date(2026, 5, 5)).as_dict() != a
    assert fx.base_day(sf, date(2026, 5, 6)).as_dict() != a
    assert a["condition"] in fx.CONDITIONS and a["low"] < a["high"]


def test_climate_shapes_the_numbers() -> None:
    cairo, reykjavik, sydney = (fx.find_city(n) for n in ("Cairo", "Reykjavik", "Sydney"))
    july = [date(2026, 7, 1) + timedelta(days=i) for i in range(30)]
    assert min(fx.base_day(cairo, d).high for d in july) > max(fx.base_day(reykjavik, d).high for d in july)
    assert sum(fx.base_day(cairo, d).rain for d in july) == 0  # a dry month in a dry place
    # the southern hemisphere is warmer in January than in July
    jan = [date(2026, 1, 1) + timedelta(days=i) for i in range(30)]
    assert sum(fx.base_day(sydney, d).high for d in jan) > sum(fx.base_day(sydney, d).high for d in july)


def test_sunrise_and_sunset_are_astronomical_in_local_time() -> None:
    rise, sset = fx.sun_times(fx.find_city("London"), date(2026, 6, 21))
    assert (rise.hour, sset.hour) == (4, 21)  # BST: about 04:43 and 21:21
    rise, sset = fx.sun_times(fx.find_city("Singapore"), date(2026, 3, 20))
    assert 6 <= rise.hour <= 7 and 19 <= sset.hour <= 20


def test_city_lookup_accepts_forms_people_type() -> None:
    assert fx.find_city("san+francisco").name == "San Francisco"
    assert fx.find_city("NYC").name == "New York"
    assert fx.find_city("Sao Paulo").name == "São Paulo"
    assert fx.find_city("Paris, France").name == "Paris"
    assert fx.find_city("Atlantis") is None
    assert [c.name for c in fx.search_cities("san")][:1] == ["San Francisco"]
    assert len(fx.CITIES) >= 40 and len({c.name for c in fx.CITIES}) == len(fx.CITIES)


def test_each_city_has_its_own_today(b: SimBackend) -> None:
    fc = b.app("Weather").forecasts
    assert fc.local_now(fx.find_city("San Francisco")) == datetime(2026, 5, 4, 9, 0)
    assert fc.local_now(fx.find_city("Tokyo")) == datetime(2026, 5, 5, 1, 0)
    assert fc.day(fx.find_city("Tokyo"), 0).date == date(2026, 5, 5)


# ----------------------------------------------------------------------------------- pins
def test_pins_override_one_day_and_keep_views_consistent(b: SimBackend) -> None:
    pin(b, [{"city": "Madrid", "day": 1, "condition": "Heavy Rain", "high": 12, "low": 8},
            {"city": "Madrid", "date": "2026-05-06", "condition": "Sunny"}])
    fc = b.app("Weather").forecasts
    madrid = fx.find_city("Madrid")
    tomorrow = fc.day(madrid, 1)
    assert (tomorrow.condition, tomorrow.high, tomorrow.low, tomorrow.rain) == ("Heavy Rain", 12.0, 8.0, True)
    assert tomorrow.precip_mm > 0 and tomorrow.precip_chance >= 80
    assert any(h.condition == "Heavy Rain" for h in tomorrow.hours) and max(h.temp for h in tomorrow.hours) <= 12
    assert fc.day(madrid, 2).condition == "Sunny" and fc.day(madrid, 2).precip_mm == 0
    j1 = json.loads(sh(b, "curl -s 'wttr.in/Madrid?format=j1'"))
    assert j1["weather"][1]["maxtempC"] == "12" and j1["weather"][1]["mintempC"] == "8"
    assert any("Heavy rain" in h["weatherDesc"][0]["value"] for h in j1["weather"][1]["hourly"])
    ctx = GetterContext(b)
    assert GETTERS["weather_forecast"](ctx, city="Madrid", day_offset=1, field="high") == 12.0
    assert GETTERS["weather_forecast"](ctx, city="Madrid", day_offset=1, field="rain") is True
    assert GETTERS["weather_forecast"](ctx, city="Madrid", day_offset=2, field="rain") is False


@pytest.mark.parametrize("pins, words", [
    ("not json", "not valid JSON"),
    ([{"city": "Gotham", "day": 1}], "unknown city 'Gotham'"),
    ([{"city": "Paris", "day": 1, "date": "2026-05-05"}], "exactly one of 'day'"),
    ([{"city": "Paris", "day": 12}], "field 'day'"),
    ([{"city": "Paris", "date": "May 5"}], "field 'date'"),
    ([{"city": "Paris", "day": 1, "condition": "Hail"}], "'Hail' is not one of"),
    ([{"city": "Paris", "day": 1, "high": "warm"}], "field 'high': expected a number"),
    ([{"city": "Paris", "day": 1, "sunny": True}], "unknown field 'sunny'"),
])
def test_bad_pin_files_are_reported_with_entry_and_field(tmp_path: Path, pins, words) -> None:
    p = tmp_path / "pins.json"
    p.write_text(pins if isinstance(pins, str) else json.dumps(pins))
    with pytest.raises(fx.PinError, match=re.escape(words)):
        fx.load_pins(p, ConfinedDir(tmp_path))


def test_a_bad_pin_file_shows_in_curl_as_a_server_error(b: SimBackend) -> None:
    (b.home / fx.PINS_PATH).parent.mkdir(parents=True)
    (b.home / fx.PINS_PATH).write_text("[{\"city\": \"Gotham\", \"day\": 1}]")
    out = b.run_shell("curl -s wttr.in/Paris; curl -sf wttr.in/Paris; echo code=$?")
    assert "unknown city 'Gotham'" in out.stdout and "code=22" in out.stdout


# ----------------------------------------------------------------------------------- wttr.in
def test_wttr_one_line_formats(b: SimBackend) -> None:
    fc = b.app("Weather").forecasts
    paris = fx.find_city("Paris")
    now = fc.current(paris)
    t = f"{round(now.temp):+d}°C"
    assert sh(b, "curl -s 'wttr.in/Paris?format=1'").strip().endswith(t)
    two = sh(b, "curl -s 'wttr.in/Paris?format=2'")
    assert "🌡️" + t in two and re.search(r"🌬️.\d+km/h", two)
    assert re.fullmatch(r"Paris: \S+\s+" + re.escape(t) + "\n", sh(b, "curl -s 'wttr.in/Paris?format=3'"))
    assert sh(b, "curl -s 'wttr.in/Paris?format=4'").startswith("Paris: ")
    custom = sh(b, "curl -s 'wttr.in/Paris?format=%l:+%C+%h+%t'").strip()
    assert custom == f"Paris: {fx.CONDITIONS[now.condition].wttr if now.condition != 'Sunny' else 'Sunny'} {now.humidity}% {t}"
    assert sh(b, "curl -s 'wttr.in/Paris?format=%t&u'").strip() == f"{round(fx.c_to_f(now.temp)):+d}°F"
    assert sh(b, "curl -s 'wttr.in/New+York?format=3'").startswith("New York: ")


def test_wttr_j1_matches_the_app_and_has_three_days(b: SimBackend) -> None:
    data = json.loads(sh(b, "curl -s 'https://wttr.in/San%20Francisco?format=j1'"))
    fc = b.app("Weather").forecasts
    sf = fx.find_city("San Francisco")
    assert [d["date"] for d in data["weather"]] == ["2026-05-04", "2026-05-05", "2026-05-06"]
    for i, d in enumerate(data["weather"]):
        day = fc.day(sf, i)
        assert d["maxtempC"] == str(round(day.high)) and d["mintempC"] == str(round(day.low))
        assert len(d["hourly"]) == 8 and d["hourly"][3]["time"] == "900"
        assert all(isinstance(v, str) for v in d["hourly"][0].values() if not isinstance(v, list))
    assert data["current_condition"][0]["temp_C"] == str(round(fc.current(sf).temp))
    assert data["nearest_area"][0]["areaName"][0]["value"] == "San Francisco"
    # 2026-05-01 was a full moon: three days later the moon wanes
    assert data["weather"][0]["astronomy"][0]["moon_phase"] == "Waning Gibbous"


def test_wttr_text_report_lists_three_days_and_flags(b: SimBackend) -> None:
    text = sh(b, "curl -s wttr.in/London")
    assert text.startswith("Weather report: London\n")
    assert text.count("┤  ") == 3 and "Mon 04 May" in text and "Wed 06 May" in text
    assert "Morning" in text and "Night" in text and "Follow @igor_chubin" in text
    assert sh(b, "curl -s 'wttr.in/London?1'").count("┤  ") == 1
    quiet = sh(b, "curl -s 'wttr.in/London?0q'")
    assert "Weather report" not in quiet and "┤" not in quiet
    assert "°F" in sh(b, "curl -s 'wttr.in/London?u'")
    assert "Cupertino" in sh(b, "curl -s wttr.in")  # no place: the Mac's location


def test_wttr_unknown_place_and_help(b: SimBackend) -> None:
    out = b.run_shell("curl -s wttr.in/Gotham; echo code=$?")
    assert "Unknown location; please try ~Gotham" in out.stdout and "code=0" in out.stdout
    assert sh(b, "curl -s 'wttr.in/~Eiffel+tower'").endswith("please try ~Eiffel tower\n")
    out = b.run_shell("curl -fs wttr.in/Gotham")
    assert out.exit_code == 22 and "returned error: 404" in out.stderr
    assert "format=j1" in sh(b, "curl -s wttr.in/:help")


def test_wttr_in_safari_shows_the_report_as_text(b: SimBackend) -> None:
    b.open_app("Safari")
    b.app("Safari").open_url("https://wttr.in/Berlin")
    assert b.run_applescript('tell application "Safari" to get name of document 1') == "Weather report: Berlin"
    assert "Weather report: Berlin" in b.run_applescript('tell application "Safari" to get text of document 1')


# ----------------------------------------------------------------------------------- Open-Meteo
def test_open_meteo_daily_hourly_and_geocoding(b: SimBackend) -> None:
    geo = json.loads(sh(b, "curl -s 'https://geocoding-api.open-meteo.com/v1/search?name=Berlin&count=1'"))
    r = geo["results"][0]
    assert (r["name"], r["timezone"]) == ("Berlin", "Europe/Berlin")
    url = (f"https://api.open-meteo.com/v1/forecast?latitude={r['latitude']}&longitude={r['longitude']}"
           "&daily=temperature_2m_max,weather_code&hourly=temperature_2m&timezone=auto&forecast_days=10&temperature_unit=fahrenheit")
    data = json.loads(sh(b, f"curl -s '{url}'"))
    berlin = fx.find_city("Berlin")
    fc = b.app("Weather").forecasts
    assert len(data["daily"]["time"]) == 10 and data["daily"]["time"][0] == "2026-05-04"
    assert data["daily"]["temperature_2m_max"][3] == round(fx.c_to_f(fc.day(berlin, 3).high), 1)
    assert data["daily"]["weather_code"][3] == fx.CONDITIONS[fc.day(berlin, 3).condition].wmo
    assert len(data["hourly"]["time"]) == 240 and data["daily_units"]["temperature_2m_max"] == "°F"
    assert data["timezone"] == "Europe/Berlin" and data["utc_offset_seconds"] == 7200


@pytest.mark.parametrize("query, words", [
    ("latitude=48.85", "'longitude' is required"),
    ("latitude=0&longitude=0", "No forecast for latitude 0.0"),
    ("latitude=48.85&longitude=2.35&daily=snowfall_fancy", "invalid String value snowfall_fancy"),
    ("latitude=48.85&longitude=2.35&forecast_days=30", "between 1 and 10"),
])
def test_open_meteo_errors_name_the_parameter(b: SimBackend, query: str, words: str) -> None:
    out = json.loads(sh(b, f"curl -s 'https://api.open-meteo.com/v1/forecast?{query}'"))
    assert out["error"] is True and words in out["reason"]


# ----------------------------------------------------------------------------------- the app
def test_gui_search_preview_add_and_fahrenheit(b: SimBackend) -> None:
    app = b.app("Weather")
    b.open_app("Weather")
    assert app.cities == ["San Francisco", "New York", "London"]  # defaults before anything is written
    b.hotkey("command", "f")
    b.type_text("Atlantis")
    assert app.search == "Atlantis" and not [e for e in elements(b) if e[0] == "AXRow" and e[1] == "New York"]
    b.press("return")  # nothing matches: nothing happens
    assert app.preview is None
    b.hotkey("command", "a")
    b.type_text("Osl")
    assert [e[2] for e in elements(b) if e[0] == "AXRow" and e[1] == "Oslo"] == ["Oslo, Norway"]
    b.press("return")
    assert app.preview == "Oslo" and app.state()["shown"]["city"] == "Oslo"
    assert find(b, "AXButton", "Add")
    b.press("return")  # the default button
    assert app.cities[-1] == "Oslo" and app.selected == "Oslo" and app.preview is None
    assert "Oslo" in sh(b, "defaults read com.apple.weather Cities")
    hi_c = app.state()["shown"]["high"]
    ux, uy = find(b, "AXRadioButton", "°F")
    b.click(ux, uy)
    assert sh(b, "defaults read com.apple.weather TemperatureUnit").strip() == "F"
    oslo_high = b.app("Weather").forecasts.day(fx.find_city("Oslo"), 0).high
    assert app.state()["shown"]["high"] == f"{round(fx.c_to_f(oslo_high))}°" != hi_c
    today = [e for e in elements(b) if e[0] == "AXRow" and e[1] == "Today"]
    assert len(today) == 1 and today[0][2].endswith(f"| {round(fx.c_to_f(oslo_high))}°")


def test_defaults_written_by_a_task_reach_the_app_and_delete_key_removes_a_city(b: SimBackend) -> None:
    sh(b, "defaults write com.apple.weather Cities -array Tokyo 'Not A City' Paris && "
          "defaults write com.apple.weather TemperatureUnit -string F")
    app = b.app("Weather")
    assert app.cities == ["Tokyo", "Paris"] and app.unit == "F"  # unknown names are skipped
    b.open_app("Weather")
    x, y = find(b, "AXRow", "Tokyo")
    b.click(x, y)
    assert app.selected == "Tokyo"
    b.press("delete")
    assert app.cities == ["Paris"] and app.selected == "My Location"
    assert "Tokyo" not in sh(b, "defaults read com.apple.weather Cities")
    with pytest.raises(ValueError, match="no city named 'Gotham'"):
        app.add_city("Gotham")
    with pytest.raises(ValueError, match="C or F, got 'K'"):
        app.set_unit("K")


def test_app_shows_ten_days_hourly_strip_and_details(b: SimBackend) -> None:
    b.open_app("Weather")
    els = elements(b)
    days = [e for e in els if e[0] == "AXRow" and e[1] in ("Today", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")]
    assert len(days) == 10 and days[0][1] == "Today"
    hourly = [e for e in els if e[0] == "AXStaticText" and e[1].startswith("Now ")]
    assert len(hourly) == 1
    names = {e[1] for e in els}
    assert {"FEELS LIKE", "HUMIDITY", "SUNRISE", "SUNSET", "My Location"} <= names


def test_times_follow_the_clock(b: SimBackend) -> None:
    b.open_app("Weather")
    def sf() -> str:
        return [e[2] for e in elements(b) if e[0] == "AXRow" and e[1] == "San Francisco"][0]

    assert " | 9:00 AM · " in sf()
    b.advance_time(3600)
    assert " | 10:00 AM · " in sf()


def test_weather_has_no_dictionary_but_activates_and_quits(b: SimBackend) -> None:
    b.run_applescript('tell application "Weather" to activate')
    assert b.app("Weather").running and b.app("Weather").windows
    b.run_applescript('tell application "Weather" to quit')
    assert not b.app("Weather").running


def test_weather_forecast_getter_fields_and_errors(b: SimBackend) -> None:
    ctx = GetterContext(b)
    f = GETTERS["weather_forecast"]
    fc = b.app("Weather").forecasts
    day = fc.day(fx.find_city("Seattle"), 2)
    assert f(ctx, city="Seattle", day_offset=2, field="low") == round(day.low, 1)
    assert f(ctx, city="Seattle", day_offset=2, field="high", unit="F") == round(fx.c_to_f(day.high), 1)
    assert f(ctx, city="Seattle", day_offset=2, field="weekday") == "Wednesday"
    assert f(ctx, city="Seattle", day_offset=2, field="sunrise") == day.sunrise.strftime("%H:%M")
    with pytest.raises(GetterError, match="unknown field 'humidity'"):
        f(ctx, city="Seattle", field="humidity")
    with pytest.raises(GetterError, match="no coordinates for city 'Gotham'"):
        f(ctx, city="Gotham")
    with pytest.raises(GetterError, match="day_offset must be an integer 0..9"):
        f(ctx, city="Seattle", day_offset=10)


def test_icon_draws() -> None:
    from mmenvs.macagent.backends.sim.icons import icon

    im = icon("Weather", 48)
    assert im.size == (48, 48) and im.getpixel((24, 4))[3] > 0


def test_bad_backend_input_is_rejected(b: SimBackend) -> None:
    with pytest.raises(BackendError):
        b.app("Wether")
