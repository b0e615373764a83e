"""Gaps of the MacAgent sim found while writing the suite, each closed the way real macOS behaves:
Mail replies start in the body, Safari keeps ~/Library/Safari/History.db, System Events sets the
highlight colour (AppleHighlightColor), pop-up menus open over their button (sheets too), Clock's
Timers tab focuses the duration, Return in Reminders starts the next reminder, and the window
scripting Safari, TextEdit and Terminal share."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from mmenvs.macagent.applescript import AppleScriptError
from mmenvs.macagent.applescript.model import ObjectRef
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.checkpoints import GETTERS, GetterContext, GetterError
from test_macagent_sim import NOW, b, click, elements  # noqa: F401 - b: the sim backend fixture


def _focused(be: SimBackend) -> tuple[str, str, str | None]:
    hits = [e for e in elements(be) if "focused" in e.flags and e[0] not in ("AXWindow", "AXSheet")]
    assert len(hits) == 1, be.accessibility_tree()
    return hits[0][0], hits[0][1], hits[0][2]


# ------------------------------------------------------------------------------------------ Mail


def test_mail_reply_starts_in_the_body_above_the_quote(b: SimBackend) -> None:
    b.app("Mail").add_message("ana@example.com", "Lunch?", "Are you free at noon?")
    b.open_app("Mail")
    b.press("down")  # selects the message in the list
    b.hotkey("command", "r")
    assert _focused(b)[:2] == ("AXTextArea", "Message body")
    b.type_text("Yes, see you there.")
    b.hotkey("command", "shift", "d")
    sent = b.app("Mail").messages("Sent")
    assert len(sent) == 1 and sent[0]["to"] == ["ana@example.com"] and sent[0]["subject"] == "Re: Lunch?"
    # typed above the quoted original, not after it
    assert sent[0]["content"].startswith("Yes, see you there.\n\nOn 13 Apr 2026, ana@example.com wrote:")
    assert sent[0]["content"].endswith("> Are you free at noon?")


def test_mail_reply_all_addresses_everyone_but_me(b: SimBackend) -> None:
    mail = b.app("Mail")
    mid = mail.add_message("ana@example.com", "Plan", "Thoughts?", to=["user@icloud.com", "bo@example.com"])
    mail.store.add("cc recipient", {"address": "cy@example.com"}, parent=ObjectRef("message", mid))
    b.open_app("Mail")
    b.press("down")
    b.hotkey("command", "shift", "r")
    fields = {e[1]: e[2] for e in elements(b) if e[0] in ("AXTextField", "AXTextArea")}
    assert fields["To"] == "ana@example.com, bo@example.com" and fields["Cc"] == "cy@example.com"
    assert _focused(b)[:2] == ("AXTextArea", "Message body")
    # Forward has no recipient yet: it starts in To
    b.hotkey("command", "w")
    click(b, "AXButton", "Don’t Save")
    b.hotkey("command", "shift", "f")
    assert _focused(b)[:2] == ("AXTextField", "To")


# ------------------------------------------------------------------------------------ pop-up menus


def _menu_items(be: SimBackend) -> dict[str, tuple[int, int, int, int]]:
    return {e[1]: e[3] for e in elements(be) if e[0] == "AXMenuItem"}


def test_sheet_popup_opens_over_its_button_with_the_choice_highlighted(b: SimBackend) -> None:
    b.open_app("TextEdit")
    b.type_text("notes")
    b.hotkey("command", "s")
    (bx, by, bw, bh), = [e[3] for e in elements(b) if e[0] == "AXPopUpButton" and e[1] == "Where"]
    click(b, "AXPopUpButton", "Where")
    items = _menu_items(b)
    ix, iy, iw, ih = items["Documents"]  # the current choice sits on the button, as on macOS
    assert abs((iy + ih // 2) - (by + bh // 2)) <= 1
    assert ix <= bx and ix + iw >= bx + bw
    (mx, my, mw, mh), = [e[3] for e in elements(b) if e[0] == "AXMenu"]
    assert my < by < my + mh and mx <= bx + bw // 2 < mx + mw
    # the choice is highlighted: Down moves to the item after it
    b.press("down")
    b.press("return")
    assert [e[2] for e in elements(b) if e[0] == "AXPopUpButton"] == ["Downloads"]
    b.press("return")  # Save
    assert (b.home / "Downloads" / "Untitled.txt").read_text() == "notes"


def test_popup_near_the_screen_edge_slides_onto_the_screen(b: SimBackend) -> None:
    b.open_app("Clock")
    b.hotkey("command", "n")  # the Add Alarm sheet: its Sound pop-up has 25 sounds
    click(b, "AXPopUpButton", "Sound")
    (mx, my, mw, mh), = [e[3] for e in elements(b) if e[0] == "AXMenu"]
    sw, sh = b.screen_size
    assert my >= 24 and my + mh <= sh
    (bx, by, bw, bh), = [e[3] for e in elements(b) if e[0] == "AXPopUpButton" and e[1] == "Sound"]
    assert my < by and by + bh < my + mh and mx <= bx < mx + mw  # still over its button, shifted up
    ix, iy, iw, ih = _menu_items(b)["Radar"]
    assert iy < by  # no room below for 25 sounds: the first is above the button
    click(b, "AXMenuItem", "Chimes")
    assert [e[2] for e in elements(b) if e[0] == "AXPopUpButton"] == ["Chimes"]


# ------------------------------------------------------------------------------------------ Clock


def test_clock_timers_tab_focuses_the_duration_and_return_starts(b: SimBackend) -> None:
    b.open_app("Clock")
    b.hotkey("command", "4")  # View ▸ Timers
    assert _focused(b) == ("AXTextField", "Duration", "00:05:00")
    b.type_text("00:25:00\n")  # typing replaces the selected duration; Return presses Start
    clock = b.app("Clock")
    assert [(t["duration"], t["running"]) for t in clock.timers()] == [(1500, True)]
    # choosing the tab with the mouse does the same
    click(b, "AXRadioButton", "Alarms")
    click(b, "AXRadioButton", "Timers")
    assert _focused(b)[:2] == ("AXTextField", "Duration")
    b.type_text("1:30")
    click(b, "AXButton", "Start")
    assert [t["duration"] for t in clock.timers()] == [1500, 90]


# -------------------------------------------------------------------------------------- Reminders


def test_reminders_return_starts_the_next_reminder_and_empty_return_ends(b: SimBackend) -> None:
    b.open_app("Reminders")
    b.hotkey("command", "n")
    b.type_text("Buy milk\n")
    # the title is kept and a new empty reminder is being edited below it
    assert [r["name"] for r in b.app("Reminders").reminders()] == ["Buy milk"]
    assert _focused(b) == ("AXTextField", "New Reminder", "")
    b.type_text("Call Dana\nPay rent\n")
    assert [r["name"] for r in b.app("Reminders").reminders()] == ["Buy milk", "Call Dana", "Pay rent"]
    b.press("return")  # on the empty new reminder: editing ends, nothing is added
    assert not any(e[0] == "AXTextField" and e[1] == "New Reminder" for e in elements(b))
    assert len(b.app("Reminders").reminders()) == 3
    assert _focused(b)[:2] == ("AXList", "Reminders")


# ----------------------------------------------------------------------------------- Safari history


def _visit(be: SimBackend, text: str) -> None:
    be.hotkey("command", "l")
    be.type_text(text + "\n")


def test_safari_history_db_is_readable_from_the_shell_and_a_getter(b: SimBackend) -> None:
    b.open_app("Safari")
    db = b.home / "Library" / "Safari" / "History.db"
    assert db.is_file()  # Safari has its History.db from launch on
    _visit(b, "apple.com")
    b.desktop.advance(90)
    click(b, "AXLink", "macOS page")
    b.desktop.advance(30)
    _visit(b, "https://www.apple.com/")
    _visit(b, "nowhere.example")
    out = b.run_shell("sqlite3 ~/Library/Safari/History.db "
                      "'select url, domain_expansion, visit_count from history_items order by id'")
    assert out.exit_code == 0, out.text
    assert out.stdout.splitlines() == ["https://www.apple.com/|apple|2", "https://www.apple.com/macos/|apple|1",
                                       "https://nowhere.example|nowhere|1"]
    # visit_time is Core Data time: seconds since 2001-01-01 (UTC)
    out = b.run_shell("sqlite3 ~/Library/Safari/History.db \"select datetime(visit_time + 978307200, 'unixepoch'), title, "
                      "load_successful from history_visits order by visit_time, id\"")
    assert out.stdout.splitlines() == ["2026-04-13 09:41:00|Apple|1", "2026-04-13 09:42:30|macOS - Apple|1",
                                       "2026-04-13 09:43:00|Apple|1", "2026-04-13 09:43:00|Failed to open page|0"]
    got = GETTERS["safari_history"](GetterContext(b))
    assert [(v["url"], v["visit_time"], v["visit_count"]) for v in got[:2]] == [
        ("https://www.apple.com/", "2026-04-13T09:41:00", 2), ("https://www.apple.com/macos/", "2026-04-13T09:42:30", 1)]
    assert got[1]["title"] == "macOS - Apple" and len(got) == 4
    # History ▸ Clear History empties the file too
    b.app("Safari")._clear_history()
    assert GETTERS["safari_history"](GetterContext(b)) == []
    assert b.run_shell("sqlite3 ~/Library/Safari/History.db 'select count(*) from history_tombstones'").stdout.strip() == "1"
    # Safari's dictionary has no history: a script cannot read it (as on a Mac)
    with pytest.raises(AppleScriptError):
        b.run_applescript('tell application "Safari" to get history')


def test_safari_history_db_survives_a_damaged_file_and_reads_setup_visits(b: SimBackend, tmp_path: Path) -> None:
    db = b.home / "Library" / "Safari" / "History.db"
    db.parent.mkdir(parents=True)
    # a task's setup may write history before Safari starts: Safari shows it (History menu, state)
    seeded = tmp_path / "seed.db"
    from mmenvs.macagent.backends.sim.apps.safari import HISTORY_SCHEMA

    con = sqlite3.connect(seeded)
    con.executescript(HISTORY_SCHEMA)
    con.execute("INSERT INTO history_items (url, domain_expansion, visit_count, daily_visit_counts, "
                "should_recompute_derived_visit_counts, visit_count_score) VALUES ('https://news.example/', 'news', 1, x'', 0, 100)")
    t = (NOW - timedelta(days=1) - datetime(2001, 1, 1)).total_seconds()
    con.execute("INSERT INTO history_visits (history_item, visit_time, title) VALUES (1, ?, 'News')", (t,))
    con.commit()
    con.close()
    db.write_bytes(seeded.read_bytes())
    b.open_app("Safari")
    safari = b.app("Safari")
    assert [(h["url"], h["visit_time"]) for h in safari.history] == [("https://news.example/", NOW - timedelta(days=1))]
    # the agent overwrites the file: the next visit rebuilds it from Safari's own history
    db.write_text("not a database")
    _visit(b, "apple.com")
    assert [v["url"] for v in GETTERS["safari_history"](GetterContext(b))] == ["https://news.example/", "https://www.apple.com/"]
    # the getter names the file it could not read
    db.write_text("still not a database")
    with pytest.raises(GetterError, match="History.db is not Safari's History.db"):
        GETTERS["safari_history"](GetterContext(b))


# ------------------------------------------------------------------------------ highlight colour

_SE = 'tell application "System Events" to tell appearance preferences to '


def test_system_events_highlight_color_is_apple_highlight_color_not_the_accent(b: SimBackend) -> None:
    settings = b.app("System Settings")

    def defaults() -> str:
        out = b.run_shell("defaults read -g AppleHighlightColor")
        return out.stdout.strip() if out.exit_code == 0 else "<absent>"

    # the default highlight follows the accent colour (multicolour: blue, no key written)
    assert b.run_applescript(_SE + "get highlight color") == "blue" and defaults() == "<absent>"
    settings.set_accent("purple")
    assert b.run_applescript(_SE + "get highlight color") == "purple"
    assert defaults() == "0.968627 0.831373 1.000000 Purple"
    # setting the highlight leaves the accent alone
    b.run_applescript(_SE + "set highlight color to green")
    assert settings.accent_color == "purple" and defaults() == "0.752941 0.964706 0.678431 Green"
    assert b.run_applescript(_SE + "get highlight color") == "green"
    assert b.run_shell("defaults read -g AppleAccentColor").stdout.strip() == "5"
    b.run_applescript(_SE + "set highlight color to gold")  # a System Events name System Settings calls Other
    assert b.run_applescript(_SE + "get highlight color") == "gold" and defaults().endswith(" Other")
    # an RGB color (16-bit components) round-trips
    b.run_applescript(_SE + "set highlight color to {65535, 32768, 0}")
    assert defaults() == "1.000000 0.500008 0.000000 Other"
    assert b.run_applescript(_SE + "get highlight color") == "65535, 32768, 0"
    # defaults write works the other way; colours System Events has no name for read as RGB
    b.run_shell('defaults write -g AppleHighlightColor -string "1.000000 0.749020 0.823529 Pink"')
    assert settings.highlight_color == "1.000000 0.749020 0.823529 Pink"
    assert b.run_applescript(_SE + "get highlight color") == "65535, 49087, 53970"
    b.run_shell("defaults delete -g AppleHighlightColor")  # back to following the accent
    assert b.run_applescript(_SE + "get highlight color") == "purple"


def test_system_settings_highlight_colour_menu(b: SimBackend) -> None:
    settings = b.app("System Settings")
    b.open_app("System Settings")  # opens on Appearance
    assert [e[2] for e in elements(b) if e[0] == "AXPopUpButton" and e[1] == "Highlight colour"] == ["Accent Colour"]
    click(b, "AXPopUpButton", "Highlight colour")
    click(b, "AXMenuItem", "Graphite")
    assert settings.highlight_color == "0.847059 0.847059 0.862745 Graphite" and settings.accent_color == "multicolor"
    assert b.run_applescript(_SE + "get highlight color") == "graphite"
    # a colour set from a script shows as Other; choosing Accent Colour follows the accent again
    b.run_applescript(_SE + "set highlight color to {0, 0, 65535}")
    assert [e[2] for e in elements(b) if e[0] == "AXPopUpButton" and e[1] == "Highlight colour"] == ["Other"]
    click(b, "AXPopUpButton", "Highlight colour")
    click(b, "AXMenuItem", "Accent Colour")
    assert settings.highlight_color is None
    assert b.run_shell("defaults read -g AppleHighlightColor").exit_code != 0


@pytest.mark.parametrize("value", ['"pink"', "pink", "{1, 2}", "{70000, 0, 0}", "true"])
def test_system_events_refuses_what_is_not_a_highlight_color(b: SimBackend, value: str) -> None:
    with pytest.raises(AppleScriptError) as err:
        b.run_applescript(_SE + f"set highlight color to {value}")
    assert b.app("System Settings").highlight_color is None
    if value != "pink":  # a bare word that is no System Events term is an undefined variable
        assert "into type RGB color" in str(err.value) and "blue, gold, graphite" in str(err.value)


# ------------------------------------------------------------------------ shared window scripting


@pytest.mark.parametrize("app,opener", [("Safari", 'make new document with properties {URL:"https://www.apple.com/"}'),
                                        ("TextEdit", 'make new document with properties {text:"hi"}'),
                                        ("Terminal", 'do script "echo hi"')])
def test_window_scripting_is_the_same_in_safari_textedit_and_terminal(b: SimBackend, app: str, opener: str) -> None:
    tell = f'tell application "{app}" to '
    b.run_applescript(tell + opener)
    b.run_applescript(tell + opener)
    wins = b.app(app).windows  # front to back
    assert len(wins) == 2 and b.run_applescript(tell + "count windows") == "2"
    front, back = wins
    assert b.run_applescript(tell + "get name of window 1") == front.title
    assert b.run_applescript(tell + "get id of window 2") == str(back.id)
    assert b.run_applescript(tell + f"get index of window id {back.id}") == "2"
    assert b.run_applescript(tell + "get bounds of window 1") == \
        f"{front.x}, {front.y}, {front.x + front.w}, {front.y + front.h}"
    with pytest.raises(AppleScriptError, match=f'{app} got an error: Can’t get window id 999'):
        b.run_applescript(tell + "get name of window id 999")
    assert b.run_applescript(tell + "get frontmost") == "true"
    b.run_applescript(tell + "quit")
    assert not b.app(app).running and b.app(app).windows == []
    b.run_applescript(tell + "activate")
    assert b.app(app).running and b.desktop.active is b.app(app)
