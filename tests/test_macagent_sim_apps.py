"""More GUI semantics of the sim's apps: alerts and sheets, settings controls, Finder drag targets,
Mail replies and drafts, Calendar views, Safari search and bookmark folders, Terminal keys,
Reminders lists, Clock, System Events keystrokes, minimise/restore."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

import random

from mmenvs.macagent.backends.base import BackendError
from mmenvs.macagent.backends.sim import SimBackend, SimInternalError
from test_macagent_sim import NOW, PAGES, click, elements, find


@pytest.fixture
def b(tmp_path: Path) -> SimBackend:
    be = SimBackend(web_pages=PAGES)
    be.reset(now=NOW, home=tmp_path / "home")
    yield be
    be.close()


def test_closing_an_unsaved_document_asks_first(b: SimBackend) -> None:
    b.open_app("TextEdit")
    b.type_text("draft text")
    win = b.app("TextEdit").windows[0]
    b.click(win.x + 18, win.y + 14)  # close button
    assert any(e[0] == "AXSheet" for e in elements(b))
    assert b.app("TextEdit").windows == [win]
    b.press("esc")  # Cancel keeps the document
    assert b.app("TextEdit").documents[0].text == "draft text"
    b.hotkey("command", "w")
    click(b, "AXButton", "Don’t Save")
    assert b.app("TextEdit").windows == [] and b.app("TextEdit").documents == []
    assert list((b.home / "Documents").iterdir()) == []


def test_settings_controls_change_state_and_pixels(b: SimBackend) -> None:
    b.open_app("System Settings")
    click(b, "AXRow", "Sound")
    x, y = find(b, "AXSlider", "Output volume")
    slider = [e for e in elements(b) if e[0] == "AXSlider" and e[1] == "Output volume"][0][3]
    b.click(slider[0] + slider[2] - 9, y)  # the right end
    assert b.app("System Settings").volume == 100
    click(b, "AXCheckBox", "Mute")
    assert b.app("System Settings").muted is True
    click(b, "AXRow", "Wi‑Fi")
    click(b, "AXCheckBox", "Wi‑Fi")
    assert b.app("System Settings").wifi is False
    assert 'AXMenuExtra "Wi‑Fi" value="off"' in b.accessibility_tree()
    before = b.screenshot().copy()
    click(b, "AXRow", "Wallpaper")
    click(b, "AXRadioButton", "Ventura")
    assert b.app("System Settings").wallpaper == "Ventura"
    after = b.screenshot()
    # the wallpaper shows in the top-left corner below the menu bar, away from any window
    assert not np.array_equal(before[30:60, 5:40], after[30:60, 5:40])
    assert b.run_shell("defaults read com.apple.dock autohide").stdout == "0\n"


def test_finder_drag_to_dock_trash_and_put_back(b: SimBackend) -> None:
    (b.home / "Downloads" / "setup.dmg").write_text("x")
    b.open_app("Finder")
    click(b, "AXRow", "Downloads")
    b.mouse_move(*find(b, "AXRow", "setup.dmg"))
    b.drag_to(*find(b, "AXDockItem", "Trash"))
    assert (b.home / ".Trash" / "setup.dmg").exists() and not (b.home / "Downloads" / "setup.dmg").exists()
    click(b, "AXRow", "Trash")
    click(b, "AXRow", "setup.dmg", button="right")
    click(b, "AXMenuItem", "Put Back")
    assert (b.home / "Downloads" / "setup.dmg").exists()


def test_desktop_icons_open_and_select(b: SimBackend) -> None:
    (b.home / "Desktop" / "Projects").mkdir()
    b.screenshot()
    x, y = find(b, "AXImage", "Projects")
    b.click(x, y)
    assert b.desktop.desktop_selection == ["Projects"]
    assert b.desktop.active.name == "Finder"
    b.click(x, y, clicks=2)
    finder = b.app("Finder")
    assert finder.windows and finder.windows[0].state["path"] == str(b.home / "Desktop" / "Projects")


def test_mail_reply_and_draft_alert(b: SimBackend) -> None:
    b.app("Mail").add_message("ana@example.com", "Lunch?", "Are you free at noon?")
    b.open_app("Mail")
    row = [e for e in elements(b) if e[0] == "AXRow" and e[1] == "ana@example.com"][0]
    assert "unread" in row[4] and row[2] == "9:41 AM | Lunch? — Are you free at noon?"
    click(b, "AXRow", "ana@example.com")
    assert b.app("Mail").messages()[0]["read"] is True
    b.hotkey("command", "r")
    fields = {e[1]: e[2] for e in elements(b) if e[0] in ("AXTextField", "AXTextArea")}
    assert fields["To"] == "ana@example.com" and fields["Subject"] == "Re: Lunch?"
    assert "\n> Are you free at noon?" in fields["Message body"]
    b.hotkey("command", "w")
    click(b, "AXButton", "Save")
    drafts = b.app("Mail").messages("Drafts")
    assert [d["subject"] for d in drafts] == ["Re: Lunch?"]
    # an empty address is refused with an alert, nothing is sent
    b.hotkey("command", "n")
    b.hotkey("command", "shift", "d")
    assert any(e[1] == "This message has no recipients." for e in elements(b))
    assert b.app("Mail").messages("Sent") == []


def test_calendar_month_view_select_and_delete(b: SimBackend) -> None:
    cal = b.app("Calendar")
    cal.add_event("Dentist", datetime(2026, 4, 22, 15), datetime(2026, 4, 22, 16), "Home")
    b.open_app("Calendar")
    click(b, "AXRadioButton", "Month")
    assert cal.view == "Month"
    click(b, "AXButton", "Dentist")
    assert cal.selected_event is not None
    b.press("backspace")
    assert cal.events() == []
    b.run_applescript('tell application "Calendar" to tell calendar "Work" to make new event with properties '
                      '{summary:"Review", start date:date "Tuesday, 14 April 2026 at 10:00:00", '
                      'end date:date "Tuesday, 14 April 2026 at 11:00:00"}')
    ev = cal.events("Work")
    assert [(e["summary"], e["start_date"]) for e in ev] == [("Review", datetime(2026, 4, 14, 10))]
    # a weekly event from the sheet shows on every Tuesday
    click(b, "AXButton", "Review")
    b.click(*find(b, "AXButton", "Review"), clicks=2)
    click(b, "AXPopUpButton", "Repeat")
    click(b, "AXMenuItem", "Every Week")
    b.press("enter")
    assert cal.events("Work")[0]["recurrence"] == "FREQ=WEEKLY;INTERVAL=1;BYDAY=TU"
    click(b, "AXButton", "Next")
    # May 2026 in the month grid (26 April – 6 June): six Tuesdays
    assert [e[1] for e in elements(b) if e[0] == "AXButton" and e[1] == "Review"] == ["Review"] * 6


def test_safari_search_and_bookmark_folder(b: SimBackend) -> None:
    b.open_app("Safari")
    click(b, "AXTextField", "Address and search")
    b.type_text("macOS released\n")
    text = b.run_applescript('tell application "Safari" to get text of document 1')
    assert "macOS - Apple" in text and "https://www.apple.com/macos/" in text
    click(b, "AXLink", "macOS - Apple")
    assert b.app("Safari").windows[0].state["url"] == "https://www.apple.com/macos/"
    b.hotkey("command", "shift", "n")
    b.type_text("agent task\n")
    assert [f["title"] for f in b.app("Safari").bookmark_tree()] == ["Favorites", "Bookmarks Menu", "agent task"]
    b.hotkey("command", "d")
    click(b, "AXPopUpButton", "Add this page to")
    click(b, "AXMenuItem", "agent task")
    b.press("enter")
    assert b.app("Safari").bookmark_tree()[2]["children"] == [{"title": "macOS - Apple", "url": "https://www.apple.com/macos/"}]


def test_terminal_keys_and_do_script(b: SimBackend) -> None:
    b.open_app("Terminal")
    b.type_text("echo never")
    b.hotkey("ctrl", "c")
    term = b.app("Terminal")
    assert term.windows[0].state["input"] == "" and "echo never^C" in term.contents(term.windows[0])
    assert term.history == []
    b.run_applescript('tell application "Terminal" to do script "echo scripted > ~/Documents/s.txt" in window 1')
    assert (b.home / "Documents" / "s.txt").read_text() == "scripted\n"
    b.hotkey("command", "k")
    assert term.windows[0].state["lines"] == []


def test_reminders_new_list_delete_and_drag_between_lists(b: SimBackend) -> None:
    rem = b.app("Reminders")
    rem.add_reminder("Call plumber")
    rem.add_reminder("Old task")
    b.open_app("Reminders")
    b.hotkey("command", "shift", "n")
    b.hotkey("command", "a")
    b.type_text("Home\n")
    assert rem.lists() == ["Reminders", "Home"]
    click(b, "AXRow", "Reminders")
    click(b, "AXRow", "Old task")
    b.press("backspace")
    assert [r["name"] for r in rem.reminders()] == ["Call plumber"]
    b.mouse_move(*find(b, "AXRow", "Call plumber"))
    b.drag_to(*find(b, "AXRow", "Home"))
    assert rem.reminders("Home")[0]["name"] == "Call plumber"


def test_clock_alarm_rings_when_time_passes(b: SimBackend) -> None:
    clock = b.app("Clock")
    clock.add_alarm(9, 45, "Stretch")
    clock.add_alarm(9, 50, "Weekends only", repeat=["Saturday", "Sunday"])
    b.advance_time(120)  # 9:43: nothing yet
    assert not any(e[1] == "Alarm" for e in elements(b))
    b.advance_time(180)  # 9:46
    assert any(e[1] == "Stretch — 9:45 AM" for e in elements(b))
    assert [a["enabled"] for a in clock.alarms()] == [False, True]  # the one-time alarm switched itself off
    b.advance_time(600)  # Monday 9:56: the weekend alarm does not ring
    assert not any(e[1].startswith("Weekends only") for e in elements(b))


def test_clock_stopwatch_and_world_clock(b: SimBackend) -> None:
    b.open_app("Clock")
    click(b, "AXRadioButton", "Stopwatch")
    click(b, "AXButton", "Start")
    b.advance_time(65)
    assert b.app("Clock").stopwatch["elapsed"] == 65.0
    assert any(e[0] == "AXStaticText" and e[1] == "01:05.00" for e in elements(b))
    click(b, "AXRadioButton", "World Clock")
    times = {e[1] for e in elements(b) if e[0] == "AXStaticText"}
    assert {"9:42 AM", "1:42 AM"} <= times  # Cupertino (the sim's zone) and Tokyo, 16 h ahead


def test_system_events_keystrokes_drive_the_gui(b: SimBackend) -> None:
    b.open_app("Notes")
    b.run_applescript('tell application "System Events" to keystroke "n" using command down')
    b.run_applescript('tell application "System Events" to keystroke "Typed by script"')
    assert [n["name"] for n in b.app("Notes").notes()] == ["Typed by script"]
    procs = b.run_applescript('tell application "System Events" to get name of every process whose frontmost is true')
    assert procs == "Notes"


def test_minimise_and_restore_from_the_dock(b: SimBackend) -> None:
    b.open_app("Notes")
    b.hotkey("command", "m")
    assert not any(e[0] == "AXWindow" and e[1] == "Notes" for e in elements(b))
    click(b, "AXDockItem", "Notes")
    assert any(e[0] == "AXWindow" and e[1] == "Notes" for e in elements(b))


def test_typing_shifted_and_unicode_characters(b: SimBackend) -> None:
    b.open_app("TextEdit")
    b.key_down("shift")
    b.press("a")
    b.press("1")
    b.key_up("shift")
    b.press("space")
    b.type_text("café – ✓")
    assert b.app("TextEdit").documents[0].text == "A! café – ✓"


def test_menus_show_their_shortcuts_in_the_tree(b: SimBackend) -> None:
    b.open_app("Finder")
    click(b, "AXMenuBarItem", "File")
    tree = b.accessibility_tree()
    assert 'AXMenuItem "New Folder" shortcut="⇧⌘N"' in tree
    assert 'AXMenuItem "Move to Trash" shortcut="⌘⌫"' in tree
    b.press("esc")
    click(b, "AXMenuBarItem", "Apple")
    assert 'AXMenuItem "Restart…"' in b.accessibility_tree() and "disabled" in b.accessibility_tree()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_gui_input_never_crashes(tmp_path: Path, seed: int) -> None:
    """Random clicks, drags, scrolls, keys, hotkeys and typing over every app: only BackendError
    for input the sim rejects may come out (never a SimInternalError), and the screen stays renderable."""
    keys = ["enter", "esc", "tab", "backspace", "del", "up", "down", "left", "right", "space", "a", "c", "v", "x", "z",
            "s", "n", "w", "q", "m", "k", "d", "r", "1", "[", "]", "home", "end", "f1"]
    rng = random.Random(seed)
    be = SimBackend(web_pages=PAGES)
    try:
        be.reset(now=NOW, home=tmp_path / "home")
        (be.home / "Documents" / "f.txt").write_text("x")
        be.app("Notes").add_note("N", "b")
        be.app("Reminders").add_reminder("R")
        be.app("Mail").add_message("a@b.example", "S", "C")
        be.app("Calendar").add_event("E", datetime(2026, 4, 13, 10), datetime(2026, 4, 13, 11))
        be.app("Clock").add_alarm(6, 30)
        apps = list(be.desktop.apps)
        for i in range(250):
            r = rng.random()
            try:
                if r < 0.1:
                    be.open_app(rng.choice(apps))
                elif r < 0.4:
                    be.click(rng.randrange(1280), rng.randrange(800), button=rng.choice(["left", "left", "right"]),
                             clicks=rng.choice([1, 1, 2]))
                elif r < 0.5:
                    be.mouse_move(rng.randrange(1280), rng.randrange(800))
                    be.drag_to(rng.randrange(1280), rng.randrange(800))
                elif r < 0.6:
                    be.scroll(rng.randint(-5, 5), rng.randrange(1280), rng.randrange(800))
                elif r < 0.75:
                    be.press(rng.choice(keys))
                elif r < 0.9:
                    be.hotkey(rng.choice(["command", "shift", "option", "ctrl"]), rng.choice(keys))
                else:
                    be.type_text(rng.choice(["hello", "x\n", "Ünïcode ✓", "\t", "2026-04-15 09:30"]))
            except SimInternalError:
                raise
            except BackendError:
                pass
            if i % 10 == 0:
                assert be.screenshot().shape == (800, 1280, 3)
                assert be.accessibility_tree().startswith("AXScreen")
    finally:
        be.close()


def test_spotlight_opens_apps_and_files(b: SimBackend) -> None:
    (b.home / "Documents" / "quarterly-report.txt").write_text("numbers")
    b.hotkey("command", "space")
    b.type_text("rem")
    hits = [e[1] for e in elements(b) if e[0] == "AXRow"]
    assert hits[0] == "Reminders"
    b.press("enter")
    assert b.desktop.active.name == "Reminders" and not b.desktop.spotlight.is_open
    b.hotkey("command", "space")
    b.type_text("quarterly")
    b.press("enter")
    assert b.desktop.active.name == "TextEdit" and b.app("TextEdit").documents[0].text == "numbers"
    b.hotkey("command", "space")
    b.type_text("x")
    b.press("esc")
    assert not b.desktop.spotlight.is_open
    assert b.desktop.active.name == "TextEdit"


def test_wifi_menu_extra_and_terminal_clear(b: SimBackend) -> None:
    click(b, "AXMenuExtra", "Wi‑Fi")
    click(b, "AXMenuItem", "Wi‑Fi")
    assert b.app("System Settings").wifi is False
    assert 'AXMenuExtra "Wi‑Fi" value="off"' in b.accessibility_tree()
    b.open_app("Terminal")
    b.type_text("echo one\n")
    b.type_text("clear\n")
    b.type_text("printf '\\033[1;31mred\\033[0m\\n'\n")
    term = b.app("Terminal")
    # clear empties the window (its own prompt line too); colour codes are not shown as text
    assert term.windows[0].state["lines"] == ["user@Mac ~ % printf '\\033[1;31mred\\033[0m\\n'", "red"]


def test_title_bar_drag_moves_and_corner_drag_resizes(b: SimBackend) -> None:
    b.open_app("Notes")
    win = b.app("Notes").windows[0]
    x0, y0, w0, h0 = win.x, win.y, win.w, win.h
    b.mouse_move(win.x + win.w // 2, win.y + 6)
    b.drag_to(win.x + win.w // 2 + 100, win.y + 6 + 50)
    assert (win.x, win.y) == (x0 + 100, y0 + 50)
    b.mouse_move(win.x + win.w - 4, win.y + win.h - 4)
    b.drag_to(win.x + win.w - 4 - 200, win.y + win.h - 4 - 100)
    assert (win.w, win.h) == (w0 - 200, h0 - 100)
    # a sheet blocks its window: clicks on the window behind it do nothing
    b.open_app("TextEdit")
    b.hotkey("command", "s")
    doc_win = b.app("TextEdit").windows[0]
    b.click(doc_win.x + 40, doc_win.y + doc_win.h - 40)
    assert b.desktop.key_window().kind == "sheet"


def test_safari_new_tab_takes_an_address(b: SimBackend) -> None:
    b.open_app("Safari")
    b.hotkey("command", "t")
    b.type_text("https://www.apple.com/macos/\n")
    safari = b.app("Safari")
    assert len(safari.windows) == 2 and safari.windows[0].state["url"] == "https://www.apple.com/macos/"


def test_file_dates_come_from_the_sim_clock_or_the_file(b: SimBackend) -> None:
    (b.home / "Documents" / "new.txt").write_text("x")
    b.run_shell("touch -t 202401021530 ~/Documents/old.txt")
    b.open_app("Finder")
    click(b, "AXRow", "Documents")
    rows = {e[1]: e[2] for e in elements(b) if e[0] == "AXRow"}
    assert rows["new.txt"].startswith("Today at 9:41 AM")
    assert rows["old.txt"].startswith("2 Jan 2024 at 3:30 PM")
    assert b.run_applescript('tell application "Finder" to get modification date of file "old.txt" of folder "Documents" of home') \
        == "Tuesday, 2 January 2024 at 15:30:00"


def test_a_fault_inside_the_sim_is_reported_not_crashing(b: SimBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    b.open_app("Notes")

    def broken(self: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(type(b.app("Notes")), "new_note", broken)
    with pytest.raises(SimInternalError, match="during hotkey: ZeroDivisionError: boom") as e:
        b.hotkey("command", "n")
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert b.desktop.mods == set()  # the chord was released
    monkeypatch.undo()
    b.hotkey("command", "n")  # the desktop keeps working
    assert len(b.app("Notes").notes()) == 1


def test_safari_menus_with_an_alert_in_front_render(b: SimBackend) -> None:
    """Seen in a 10^5-step soak: with a parentless alert of Safari's in front, building Safari's menu bar
    read the alert's (missing) URL and the screenshot raised KeyError: 'url'."""
    from mmenvs.macagent.backends.sim.window import alert

    desk = b.current_desktop()
    safari = desk.apps["Safari"]
    alert(safari, None, "Test", "an alert of Safari's own", [("OK", lambda: None)])
    assert desk.key_window().app is safari and desk.key_window().kind == "alert"
    frame = b.screenshot()  # raised SimInternalError before
    assert frame.shape == (800, 1280, 3)
    assert "Safari" in b.accessibility_tree()
