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
                                       "https://nowhere.example/|nowhere|1"]
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


# ----------------------------------------------------------------- gaps the public benchmark's tasks expose

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import mmenvs  # noqa: E402,F401 - registers MacAgent-v0


def _task(tid: str, apps: list[str], setup: list[dict], checkpoints: list[dict], solution: list[str]) -> dict:
    return {"id": tid, "instruction": "Do it.", "category": "Productivity", "apps": apps,
            "reference_time": "2026-04-13T09:41:00", "setup": setup, "checkpoints": checkpoints,
            "reference_solution": solution}


def _osa_check(name: str, script: str, expected: str) -> dict:
    return {"name": name, "tag": "app_state", "getter": {"type": "applescript", "script": script},
            "metric": {"type": "equals", "expected": expected}}


@pytest.fixture()
def env():
    e = gym.make("MacAgent-v0")
    yield e
    e.close()


def _osa(script: str) -> str:
    return "```applescript\n" + script + "\n```"


def _bash(command: str) -> str:
    return "```bash\n" + command + "\n```"


# ---------------------------------------------------------------------------------- window bounds

@pytest.mark.parametrize("app,opener", [("TextEdit", 'make new document with properties {text:"hi"}'),
                                        ("Terminal", 'do script "echo hi"'),
                                        ("Safari", 'make new document with properties {URL:"https://www.apple.com/"}'),
                                        ("Pages", "make new document"), ("Keynote", "make new document"),
                                        ("Numbers", "make new document")])
def test_set_bounds_moves_and_resizes_the_real_window(env, app: str, opener: str) -> None:
    tell = f'tell application "{app}" to '
    task = _task(f"gap-bounds-{app.lower()}", [app], [{"type": "applescript", "script": tell + opener}],
                 [_osa_check("bounds", tell + "get bounds of front window", "100, 124, 900, 724")],
                 [_osa(tell + "set bounds of front window to {100, 124, 900, 724}")])
    obs, info = env.reset(options={"task": task})
    assert info["score"] == 0.0
    win = env.unwrapped.backend.app(app).windows[0]
    before = obs["image"].copy()
    obs, _, _, _, info = env.step(_osa(tell + "set bounds of front window to {100, 124, 900, 724}"))
    assert info.get("action_error") is None, obs["text"]
    assert (win.x, win.y, win.w, win.h) == (100, 124, 800, 600)  # the sim's window itself moved
    assert not np.array_equal(obs["image"], before)  # and the screenshot shows it
    obs, _, _, _, _ = env.step(_osa(tell + "get bounds of window 1"))
    assert obs["text"].strip() == "100, 124, 900, 724"
    # the top never goes under the menu bar; a window larger than the screen is fitted to it
    env.step(_osa(tell + "set bounds of front window to {0, 0, 700, 500}"))
    assert (win.x, win.y, win.w, win.h) == (0, 24, 700, 500)
    env.step(_osa(tell + "set bounds of front window to {-100, 0, 100000, 90000}"))
    sw, sh = env.unwrapped.backend.screen_size
    assert (win.x, win.y, win.w, win.h) == (0, 24, sw, sh - 24)
    obs, _, _, _, info = env.step(_osa(tell + "set bounds of front window to {100, 124, 900, 724}"))
    obs, reward, terminated, _, info = env.step("DONE")
    assert terminated and info["score"] == 1.0 and info["success"]


@pytest.mark.parametrize("value", ["{1, 2, 3}", '{"a", 0, 10, 10}', "{0, 0, 1.0E+30, 10}", "{500, 500, 100, 100}",
                                   "{0, 0, 99999999, 99999999}", '"wide"', "{true, 0, 10, 10}"])
def test_bad_bounds_are_script_errors_and_leave_the_window(b: SimBackend, value: str) -> None:
    b.run_applescript('tell application "TextEdit" to make new document')
    (win,) = b.app("TextEdit").windows
    before = (win.x, win.y, win.w, win.h)
    with pytest.raises(AppleScriptError) as err:
        b.run_applescript(f'tell application "TextEdit" to set bounds of front window to {value}')
    assert "bounds" in str(err.value) or "bounding rectangle" in str(err.value)
    assert (win.x, win.y, win.w, win.h) == before
    assert b.screenshot().shape == (b.screen_size[1], b.screen_size[0], 3)


def test_huge_bounds_keep_the_window_within_the_screen_pixels(b: SimBackend) -> None:
    b.run_applescript('tell application "Keynote" to make new document')
    b.run_applescript('tell application "Keynote" to set bounds of front window to {-999999, -999999, 999999, 999999}')
    (win,) = b.app("Keynote").windows
    sw, sh = b.screen_size
    assert win.w <= sw and win.h <= sh and win.render(b.desktop.theme, True).shape[:2] == (win.h, win.w)


# ------------------------------------------------------------------------------- /Users/<name>

def test_the_public_tasks_fixed_home_is_the_episode_home(env) -> None:
    path = "/Users/pipiwu/Desktop/report.txt"
    task = _task("gap-users-home", ["Terminal", "TextEdit"], [{"type": "shell", "command": "mkdir -p ~/Desktop/out"}],
                 [{"name": "written", "tag": "file_ops",
                   "getter": {"type": "python", "function": "file_text", "args": {"path": path}},
                   "metric": {"type": "equals", "expected": "42"}}],
                 [_bash(f"echo 42 > {path}")])
    obs, info = env.reset(options={"task": task})
    obs, _, _, _, info = env.step(_bash("echo 42 > /Users/pipiwu/Desktop/report.txt; cat ~/Desktop/report.txt; "
                                        "cd /Users/pipiwu/Desktop/out && touch made-here && ls ~/Desktop/out"))
    assert obs["text"].splitlines()[:2] == ["42", "made-here"]
    home = env.unwrapped.backend.home
    assert (home / "Desktop" / "report.txt").read_text() == "42\n"
    # AppleScript file paths (POSIX file, alias) name the same files
    obs, _, _, _, info = env.step(_osa('tell application "TextEdit" to open POSIX file "/Users/pipiwu/Desktop/report.txt"'))
    assert info.get("action_error") is None, obs["text"]
    obs, _, _, _, _ = env.step(_osa('tell application "TextEdit" to get text of document 1'))
    assert obs["text"].strip() == "42"
    obs, _, _, _, _ = env.step(_osa('tell application "System Events" to exists POSIX file "/Users/pipiwu/Desktop/report.txt"'))
    assert obs["text"].strip() == "true"
    obs, _, _, _, _ = env.step(_osa('tell application "Pages" to save (make new document) in POSIX file "/Users/pipiwu/Documents/p.pages"'))
    assert (home / "Documents" / "p.pages").is_file()
    _, _, terminated, _, info = env.step("DONE")
    assert info["score"] == 1.0


def test_paths_escaping_the_fixed_home_stay_confined(b: SimBackend) -> None:
    out = b.run_shell("echo x > /Users/pipiwu/../escape.txt; echo $?; ls /Users; echo y > /Users/pipiwux/a 2>/dev/null; echo $?")
    lines = out.stdout.split()
    assert lines[0] != "0" and lines[-1] != "0"  # /Users itself is read-only; no other user folder exists
    assert not (b.home.parent / "escape.txt").exists()
    for p in ("/Users/pipiwu/../../etc/passwd", "/Users/pipiwu/../user/../../../etc/hostname"):
        with pytest.raises(AppleScriptError):
            b.run_applescript(f'tell application "TextEdit" to open POSIX file "{p}"')
    assert b.run_applescript('tell application "System Events" to exists POSIX file "/Users/pipiwu/../../etc/passwd"') == "false"
    # the home's host path never shows; the alias resolves lexically inside the home
    assert b.host_path("/Users/pipiwu/a/../b.txt") == b.home / "b.txt"
    assert b.host_path("/Users/pipiwu/../../etc") == b.home / "etc"
    with pytest.raises(Exception, match="outside the home"):
        b.host_path("/Users/someone/x")
    # a symlink in the home pointing out is not followed through the alias either
    (b.home / "Desktop" / "link").symlink_to("/etc/passwd")
    with pytest.raises(AppleScriptError):
        b.run_applescript('tell application "TextEdit" to open POSIX file "/Users/pipiwu/Desktop/link"')


# ------------------------------------------------------------------------------ tmux pane readiness

_SLOW_PANE = ("tmux new-session -d -s svc \"python3 -c 'import sys; sum(range(3 * 10**7)); print(\\\"READY\\\"); "
              "sys.stdout.flush(); print(\\\"got\\\", input()); sys.stdout.flush(); input()'\"")


def test_a_pane_is_ready_before_the_first_action(env) -> None:
    # the pane's program computes before it prints and reads: the setup command returns only once it
    # waits for input, so the agent's first look and first keys reach it (no waiting in the test)
    task = _task("gap-tmux-ready", ["Terminal"], [{"type": "shell", "command": _SLOW_PANE}],
                 [{"name": "answered", "tag": "app_state",
                   "getter": {"type": "shell", "command": "tmux capture-pane -p -t svc"},
                   "metric": {"type": "contains", "expected": "got hello"}}],
                 [_bash("tmux send-keys -t svc hello Enter")])
    obs, info = env.reset(options={"task": task})
    obs, _, _, _, _ = env.step(_bash("tmux capture-pane -p -t svc | grep -c READY"))
    assert obs["text"].splitlines()[0] == "1"
    env.step(_bash("tmux send-keys -t svc hello Enter"))
    from _wait import wait_until

    wait_until(lambda: env.unwrapped.backend.run_shell("tmux capture-pane -p -t svc").stdout,
               check=lambda s: "got hello" in s, what="the pane's program to answer")
    _, _, _, _, info = env.step("DONE")
    assert info["score"] == 1.0


def test_pane_readiness_is_bounded_and_keeps_tmux_exit_codes(b: SimBackend) -> None:
    # a pane that computes forever: new-session still returns (after the deadline), with tmux's status
    out = b.run_shell("export __TMUX_SETTLE_US=300000; tmux new-session -d -s spin 'while :; do :; done'; echo rc=$?")
    assert out.stdout.strip().endswith("rc=0"), out.text
    out = b.run_shell("tmux new-session -d -s spin 'true'; echo rc=$?")
    assert "duplicate session: spin" in out.stderr and out.stdout.strip() == "rc=1"
    out = b.run_shell("tmux kill-server; echo rc=$?")
    assert out.stdout.strip() == "rc=0"
    # a pane whose program ends at once is ready too (nothing left to wait for)
    out = b.run_shell("tmux new-session -d -s quick 'printf done'; echo rc=$?")
    assert out.stdout.strip() == "rc=0"


# ------------------------------------------------------------------------------------ Safari URLs

@pytest.mark.parametrize("typed,shown", [
    ("https://example.com", "https://example.com/"),
    ("HTTPS://Example.COM:443", "https://example.com/"),
    ("http://Example.com:80/a/../b/./c?q=a b#Top", "http://example.com/b/c?q=a%20b#Top"),
    ("https://bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe"),
    ("https://nowhere.example/macos", "https://nowhere.example/macos"),
    ("https://www.apple.com/macos", "https://www.apple.com/macos/"),  # the page lives at …/macos/ (a redirect)
    ("https://example.com:8443", "https://example.com:8443/"),
])
def test_safari_normalises_urls_as_safari_does(b: SimBackend, typed: str, shown: str) -> None:
    b.run_applescript(f'tell application "Safari" to make new document with properties {{URL:"{typed}"}}')
    assert b.run_applescript('tell application "Safari" to get URL of front document') == shown
    assert b.run_applescript('tell application "Safari" to get URL of current tab of window 1') == shown
    assert b.app("Safari").history[-1]["url"] == shown
    out = b.run_shell("sqlite3 ~/Library/Safari/History.db 'select url from history_items'")
    assert out.stdout.splitlines() == [shown]
    b.run_applescript(f'tell application "Safari" to set URL of front document to "{typed}"')
    assert b.run_applescript('tell application "Safari" to get URL of front document') == shown


def test_safari_bookmarks_and_address_bar_store_normalised_urls(env) -> None:
    task = _task("gap-safari-url", ["Safari"], [{"type": "open_app", "app": "Safari"}],
                 [_osa_check("url", 'tell application "Safari" to get URL of front document', "https://example.com/")],
                 [_osa('tell application "Safari" to set URL of front document to "https://EXAMPLE.com"')])
    obs, info = env.reset(options={"task": task})
    b = env.unwrapped.backend
    b.hotkey("command", "l")
    b.type_text("HTTPS://Example.com\n")
    safari = b.app("Safari")
    assert safari.windows[0].state["url"] == "https://example.com/"
    safari.add_bookmark(safari.windows[0].state["url"], "Example")
    safari.add_bookmark("HTTP://WWW.Example.com:80", "Other")
    assert [n.url for n in safari.bookmarks.children[0].children] == ["https://example.com/", "http://www.example.com/"]
    _, _, _, _, info = env.step("DONE")
    assert info["score"] == 1.0


@pytest.mark.parametrize("url", ["https://" + "a" * 9000 + ".com", "https://exa mple.com", "https://\u00ff\u0000x",
                                 "https://xn--.com/", "javascript:alert(1)", "https://[::1", "https://a.com:99999999999/"])
def test_odd_urls_never_raise(b: SimBackend, url: str) -> None:
    from mmenvs.macagent.backends.sim.apps.safari import normalize_url

    assert isinstance(normalize_url(url), str)
    src = url.replace("\\", "\\\\").replace('"', '\\"').replace("\u0000", "")
    b.run_applescript(f'tell application "Safari" to make new document with properties {{URL:"{src}"}}')
    assert isinstance(b.run_applescript('tell application "Safari" to get URL of front document'), str)


# ------------------------------------------------------------------------------ iWork object model

_KN = 'tell application "Keynote" to tell front document to '


def test_keynote_theme_ids_as_the_public_tasks_read_them(env) -> None:
    read = 'tell application "Keynote"\n tell front document\n return document theme\n end tell\nend tell'
    task = _task("gap-keynote-theme", ["Keynote"], [{"type": "open_app", "app": "Keynote"}],
                 [_osa_check("theme", read, "theme id Application/20_BasicBlack/Standard"),
                  _osa_check("name", 'tell application "Keynote" to get name of front document', "keynote_t1")],
                 [_osa('tell application "Keynote" to save (make new document with properties '
                       '{document theme:theme "Basic Black"}) in POSIX file "/Users/pipiwu/Documents/keynote_t1.key"')])
    obs, info = env.reset(options={"task": task})
    obs, _, _, _, _ = env.step(_osa('tell application "Keynote" to get name of every theme'))
    assert obs["text"].strip().startswith("Basic White, Basic Black, ")
    obs, _, _, _, _ = env.step(_osa('tell application "Keynote" to get id of theme "Basic White"'))
    assert obs["text"].strip() == "Application/21_BasicWhite/Standard"
    # a theme is found by its id too, and the document's theme prints as osascript prints it
    env.step(_osa('tell application "Keynote" to make new document with properties '
                  '{document theme:theme id "Application/20_BasicBlack/Standard"}'))
    obs, _, _, _, _ = env.step(_osa(read))
    assert obs["text"].strip().split(" ")[-1] == "Application/20_BasicBlack/Standard"
    b = env.unwrapped.backend
    assert b.app_state("Keynote")["documents"][0]["theme"] == "Basic Black"
    env.step(_osa('tell application "Keynote" to save front document in POSIX file "/Users/pipiwu/Documents/keynote_t1.key"'))
    _, _, _, _, info = env.step("DONE")
    assert info["score"] == 1.0, info["checkpoints"]
    with pytest.raises(AppleScriptError, match="Can’t get theme"):
        b.run_applescript('tell application "Keynote" to make new document with properties {document theme:theme id "Application/Nope/Standard"}')


def test_keynote_images_tables_shapes_and_text_items(env, tmp_path: Path) -> None:
    from PIL import Image

    task = _task("gap-keynote-items", ["Keynote"],
                 [{"type": "file", "path": "~/Desktop/pic.png", "generator": {"name": "png", "args": {"width": 800, "height": 600}}},
                  {"type": "applescript", "script": 'tell application "Keynote" to make new document'}],
                 [_osa_check("image width", _KN + "tell slide 1 to tell image 1 to return width", "1920"),
                  _osa_check("image position", _KN + "tell slide 1 to tell image 1 to return position", "0, 0"),
                  _osa_check("table", _KN + "tell slide 1 to tell table 1 to tell row 2 to tell cell 3 to return value", "Hi")],
                 [])
    obs, info = env.reset(options={"task": task})
    b = env.unwrapped.backend
    before = obs["image"].copy()
    obs, _, _, _, info = env.step(_osa(
        'tell application "Keynote"\n tell slide 1 of front document\n'
        '  set img to make new image with properties {file:POSIX file "/Users/pipiwu/Desktop/pic.png"}\n'
        '  set width of img to 1920\n  set height of img to 1080\n  set position of img to {0, 0}\n'
        '  set t to make new table with properties {row count:3, column count:4}\n'
        '  set value of cell 3 of row 2 of t to "Hi"\n'
        '  set s to make new shape with properties {width:300, height:200, position:{10, 20}}\n'
        '  set ti to make new text item with properties {object text:"Launch"}\n'
        '  set color of object text of ti to {65535, 0, 0}\n  set size of object text of ti to 64\n'
        '  set font of object text of ti to "Helvetica Neue"\n end tell\nend tell'))
    assert info.get("action_error") is None, obs["text"]
    assert not np.array_equal(obs["image"], before)  # the slide shows what was added
    osa = b.run_applescript
    assert osa(_KN + "tell slide 1 to return {count every image, count every table}") == "1, 1"
    assert osa(_KN + "tell slide 1 to tell table 1 to return {row count, column count}") == "3, 4"
    assert osa(_KN + "tell slide 1 to tell table 1 to return name of cell 3 of row 2") == "C2"
    shape = osa(_KN + "tell slide 1 to tell shape 3 to return properties")
    assert shape.startswith("opacity:100, parent:slide 1 of ") and "position:10, 20, object text:, width:300" in shape
    # the added text box is text item 1: the default title and body items are shapes, not text items
    style = osa(_KN + "tell slide 1 to tell text item 1 to tell object text to return properties")
    assert style == "font:HelveticaNeue, color:65535, 0, 0, class:text, size:64"
    assert osa(_KN + "tell slide 1 to return object text of text item 1") == "Launch"
    assert osa(_KN + "tell slide 1 to return {count every text item, count every shape}") == "1, 3"
    # the default title/body items are Keynote's placeholders, with their geometry and text style
    assert osa(_KN + "tell slide 1 to return position of default title item") == "150, 250"
    assert osa(_KN + "tell slide 1 to return color of object text of default title item") == "0, 0, 0"
    # saved and reopened, everything is still there (the .key file keeps the items)
    osa('tell application "Keynote" to close front document saving in POSIX file "/Users/user/Documents/deck.key"')
    osa('tell application "Keynote" to open POSIX file "/Users/user/Documents/deck.key"')
    assert osa(_KN + "tell slide 1 to tell image 1 to return {width, height, file name}") == "1920, 1080, pic.png"
    _, _, _, _, info = env.step("DONE")
    assert info["score"] == 1.0, info["checkpoints"]


@pytest.mark.parametrize("script,error", [
    ("make new table with properties {row count:100000, column count:3}", "row count"),
    ("make new table with properties {row count:200, column count:60}", "at most 6000 cells"),
    ('make new image with properties {file:POSIX file "/Users/pipiwu/../../etc/passwd"}', "couldn’t be opened"),
    ('make new image with properties {file:POSIX file "/etc/hostname"}', "outside the home"),
    ('make new image with properties {file:POSIX file "/Users/user/Desktop/notes.txt"}', "not an image"),
    ("make new shape with properties {width:1.0E+12}", "width"),
    ("make new shape with properties {position:{1, 2, 3}}", "position"),
    ("make new text item with properties {color:{70000, 0, 0}}", "RGB color"),
])
def test_keynote_items_refuse_what_is_out_of_bounds(b: SimBackend, script: str, error: str) -> None:
    (b.home / "Desktop" / "notes.txt").write_text("not a picture")
    b.run_applescript('tell application "Keynote" to make new document')
    with pytest.raises(AppleScriptError, match=error):
        b.run_applescript(f'tell application "Keynote" to tell slide 1 of front document to {script}')
    assert b.run_applescript(_KN + "tell slide 1 to return count every iWork item") == "2"  # nothing half-made stays


def test_keynote_item_limit_per_slide(b: SimBackend) -> None:
    from mmenvs.macagent.backends.sim.apps.iwork_items import MAX_ITEMS

    b.run_applescript('tell application "Keynote" to make new document')
    b.run_applescript(_KN + f"tell slide 1 to repeat {MAX_ITEMS} times\n make new shape\nend repeat")
    with pytest.raises(AppleScriptError, match=f"at most {MAX_ITEMS} items"):
        b.run_applescript(_KN + "tell slide 1 to make new shape")


_PG = 'tell application "Pages" to tell front document to '


def test_pages_templates_pages_and_character_styles(env) -> None:
    task = _task("gap-pages", ["Pages"], [{"type": "applescript", "script":
                                           'tell application "Pages" to make new document with properties '
                                           '{document template:template "Blank Black"}'}],
                 [_osa_check("template", _PG + "return document template", "template id Application/20_Blank_Black/Traditional"),
                  _osa_check("page 2", _PG + "tell page 2 to return body text", "The quick brown fox"),
                  _osa_check("red", _PG + "return color of character 1 of body text", "65535, 0, 0"),
                  _osa_check("font", _PG + "return font of character 5 of body text", "Courier")],
                 [])
    obs, info = env.reset(options={"task": task})
    b = env.unwrapped.backend
    osa = b.run_applescript
    osa(_PG + 'set body text to "Passwd: 111111"')
    assert osa(_PG + "tell page 1 to return body text") == "Passwd: 111111"
    assert osa(_PG + "return color of character 1 of body text") == "65535, 65535, 65535"  # white on Blank Black
    assert osa(_PG + "return font of character 1 of body text") == "HelveticaNeue"
    # a page break (Insert ▸ Page Break in the window) starts page 2
    b.open_app("Pages")
    b.hotkey("command", "down")
    click(b, "AXMenuBarItem", "Insert")
    click(b, "AXMenuItem", "Page Break")
    b.type_text("The quick brown fox")
    assert osa(_PG + "return count of pages") == "2"
    assert osa(_PG + "tell page 1 to return body text") == "Passwd: 111111"
    obs, _, _, _, info = env.step(_osa(_PG + "set color of word 1 of body text to {65535, 0, 0}"))
    assert info.get("action_error") is None, obs["text"]
    env.step(_osa(_PG + 'set font of paragraph 1 of body text to "Courier"'))
    assert osa(_PG + "return color of character 6 of body text") == "65535, 0, 0"  # the d of Passwd
    assert osa(_PG + "return color of character 7 of body text") == "65535, 65535, 65535"  # the colon after it
    assert osa(_PG + "return every word of body text") == "Passwd, 111111, The, quick, brown, fox"
    assert osa(_PG + "return font of word 3 of body text") == "HelveticaNeue"  # page 2 was not in paragraph 1
    # styles survive editing around them and a save/reopen
    b.type_text(" jumps")
    assert osa(_PG + "return color of character 1 of body text") == "65535, 0, 0"
    osa('tell application "Pages" to save front document in POSIX file "/Users/user/Documents/styled.pages"')
    osa('tell application "Pages" to close front document')
    osa('tell application "Pages" to open POSIX file "/Users/user/Documents/styled.pages"')
    assert osa(_PG + "return {color of character 1 of body text, font of character 5 of body text}") == "65535, 0, 0, Courier"
    _, _, _, _, info = env.step("DONE")
    assert [c["passed"] for c in info["checkpoints"]] == [True, False, True, True]  # page 2 has " jumps" now
    assert osa(_PG + "tell page 2 to return body text") == "The quick brown fox jumps"


def test_pages_tables_shapes_alignment_and_bad_values(b: SimBackend) -> None:
    osa = b.run_applescript
    osa('tell application "Pages" to make new document with properties {body text:"One\\nTwo"}')
    osa(_PG + "make new table with properties {row count:3, column count:3}")
    osa(_PG + 'set value of cell 1 of row 1 of first table to "Hi"')
    assert osa(_PG + "return value of cell 1 of row 1 of first table") == "Hi"
    osa(_PG + "make new shape")
    osa(_PG + "tell front shape to set position to {0, 0}")
    osa(_PG + "tell front shape to set width to 4 * 72")
    osa(_PG + "tell front shape to set height to 288")
    assert osa(_PG + "tell front shape to return {position, width, height}") == "0, 0, 288, 288"
    osa(_PG + "set alignment of paragraph 2 of body text to center")
    assert osa(_PG + "return alignment of paragraph 2 of body text") == "center"
    assert osa(_PG + "return alignment of paragraph 1 of body text") == "left"
    for bad, msg in [("set color of character 1 of body text to {1, 2}", "RGB color"),
                     ('set font of character 1 of body text to ""', "a font is its name"),
                     ("set size of body text to 100000", "size"),
                     ('set alignment of paragraph 1 of body text to "sideways"', "alignment"),
                     ("make new table with properties {row count:5000, column count:5000}", "row count"),
                     ("return color of character 99 of body text", "Can’t get character 99")]:
        with pytest.raises(AppleScriptError, match=msg):
            osa(_PG + bad)
    assert osa(_PG + "return body text") == "One\nTwo"


_NB = 'tell application "Numbers" to tell front document to tell sheet 1 to tell table 1 to '


def test_numbers_background_color_and_merge_as_the_public_getters_read_them(env) -> None:
    names = ('tell application "Numbers"\n tell front document\'s sheet 1\'s table 1\n  set nameList to ""\n'
             '  repeat with r from 1 to 2\n   repeat with c from 1 to 3\n    set nameList to nameList & name of cell c of row r & ","\n'
             '   end repeat\n  end repeat\n  return nameList\n end tell\nend tell')
    bg = ('tell application "Numbers" to tell front document to tell sheet 1 to tell table 1\n'
          ' set bg to background color of cell 2 of row 4\n'
          ' return (item 1 of bg as string) & "," & (item 2 of bg as string) & "," & (item 3 of bg as string)\nend tell')
    task = _task("gap-numbers", ["Numbers"],
                 [{"type": "applescript", "script": 'tell application "Numbers"\n set d to make new document\n'
                   ' tell active sheet of d\n  delete every table\n  set t to make new table with properties {row count:5, column count:5}\n'
                   '  tell t\n   repeat with r from 1 to 5\n    repeat with c from 1 to 5\n     set value of cell c of row r to (r * c)\n'
                   '    end repeat\n   end repeat\n  end tell\n end tell\nend tell'}],
                 [_osa_check("merged", names, "A1,A1,A1,A1,A1,A1,"), _osa_check("red", bg, "65535,0,0")],
                 [_osa(_NB + 'merge range "A1:C2"'), _osa(_NB + "set background color of cell 2 of row 4 to {65535, 0, 0}")])
    obs, info = env.reset(options={"task": task})
    assert info["score"] == 0.0
    before = obs["image"].copy()
    obs, _, _, _, info = env.step(_osa(_NB + 'merge range "A1:C2"'))
    assert info.get("action_error") is None, obs["text"]
    b = env.unwrapped.backend
    osa = b.run_applescript
    assert osa(_NB + "return {row span of cell 1 of row 1, column span of cell 3 of row 2, value of cell 1 of row 1}") == "2, 3, 1.0"
    assert osa(_NB + "return value of cell 2 of row 2") == "1.0"  # inside the merge: the merged cell
    assert osa(_NB + "return name of cell 4 of row 1") == "D1" and osa(_NB + "return row span of cell 4 of row 1") == "1"
    assert osa(_NB + "return background color of cell 2 of row 4") == "missing value"
    obs, _, _, _, info = env.step(_osa(_NB + "set background color of cell 2 of row 4 to {65535, 0, 0}"))
    assert not np.array_equal(obs["image"], before)  # the fill and the merge show in the window
    osa(_NB + 'set background color of range "D4:E5" to {0, 0, 65535}')
    assert osa(_NB + "return background color of cell 5 of row 5") == "0, 0, 65535"
    osa(_NB + 'unmerge range "A1:A1"')
    assert osa(_NB + "return name of cell 2 of row 2") == "B2"
    osa(_NB + 'merge range "A1:C2"')
    # a file saved and reopened keeps fills and merges
    osa('tell application "Numbers" to save front document in POSIX file "/Users/user/Documents/m.numbers"')
    osa('tell application "Numbers" to close front document saving no')
    osa('tell application "Numbers" to open POSIX file "/Users/user/Documents/m.numbers"')
    _, _, _, _, info = env.step("DONE")
    assert info["score"] == 1.0, info["checkpoints"]


def test_numbers_merge_and_fill_attacks(b: SimBackend) -> None:
    osa = b.run_applescript
    osa('tell application "Numbers" to make new document')
    osa('tell application "Numbers" to tell front document to tell sheet 1 to make new table with properties '
        '{row count:1000, column count:200}')
    tb = 'tell application "Numbers" to tell front document to tell sheet 1 to tell table 2 to '
    osa(tb + 'merge range "A1:GR1000"')  # the whole largest table: one merge, bounded work
    assert osa(tb + "return {row span of cell 1 of row 1, column span of cell 200 of row 1000}") == "1000, 200"
    osa(tb + 'set background color of range "A1:GR1000" to {1, 2, 3}')
    assert osa(tb + "return background color of cell 7 of row 900") == "1, 2, 3"
    for bad in ['merge range "A1:ZZ5000"', "set background color of cell 1 of row 1 to {1, 2}",
                "set background color of cell 1 of row 1 to {70000, 0, 0}", 'set background color of cell 1 of row 1 to "red"']:
        with pytest.raises(AppleScriptError):
            osa(tb + bad)


def test_system_events_moves_and_resizes_a_process_window(b: SimBackend) -> None:
    se = 'tell application "System Events" to tell process "TextEdit" to '
    b.run_applescript('tell application "TextEdit" to make new document')
    (win,) = b.app("TextEdit").windows
    assert b.run_applescript(se + "count windows") == "1"
    b.run_applescript(se + "set position of window 1 to {10, 50}")
    b.run_applescript(se + "set size of front window to {700, 500}")
    assert (win.x, win.y, win.w, win.h) == (10, 50, 700, 500)
    assert b.run_applescript(se + "get {position, size} of window 1") == "10, 50, 700, 500"
    assert b.run_applescript('tell application "TextEdit" to get bounds of window 1') == "10, 50, 710, 550"
    assert b.run_applescript(se + f'get size of window "{win.title}"') == "700, 500"
    for bad in ['{"a", 2}', "{1, 2, 3}", "{1.0E+300, 2}", "7"]:
        with pytest.raises(AppleScriptError):
            b.run_applescript(se + f"set size of window 1 to {bad}")
    assert (win.w, win.h) == (700, 500)
    with pytest.raises(AppleScriptError):
        b.run_applescript('tell application "System Events" to tell process "Nope" to get count of windows')


@pytest.mark.parametrize("app", ["Keynote", "Pages"])
def test_insert_menu_adds_shapes_tables_and_text_boxes(b: SimBackend, app: str) -> None:
    b.open_app(app)
    b.press("return")  # the chooser's first template / theme
    where = "tell slide 1 of front document to " if app == "Keynote" else "tell front document to "
    count = f'tell application "{app}" to {where}return {{count every shape, count every table, count every text item}}'
    before = b.run_applescript(count).split(", ")
    shot = b.screenshot().copy()
    for item in ("Shape", "Table", "Text Box"):
        click(b, "AXMenuBarItem", "Insert")
        click(b, "AXMenuItem", item)
    after = b.run_applescript(count).split(", ")
    assert [int(a) - int(x) for a, x in zip(after, before)] == [1, 1, 1]
    assert not np.array_equal(b.screenshot(), shot)
    assert b.app(app).documents[0].modified


def test_rich_text_still_reads_as_text_in_scripts(b: SimBackend) -> None:
    osa = b.run_applescript
    osa('tell application "Pages" to make new document with properties {body text:"a,b,c\\nsecond line"}')
    assert osa('set AppleScript\'s text item delimiters to ","\n'
               'tell application "Pages" to set parts to text items of (body text of front document)\n'
               'set AppleScript\'s text item delimiters to ""\nreturn parts') == "a, b, c\nsecond line"
    assert osa(_PG + "return text 1 thru 3 of body text") == "a,b"
    assert osa(_PG + 'return (body text) & "!"') == "a,b,c\nsecond line!"
    assert osa(_PG + "return (count of paragraphs of body text) & (count words of body text)") == "2, 5"
    assert osa(_PG + 'return body text is "a,b,c" & linefeed & "second line"') == "true"
    assert osa(_PG + "return class of body text") == "text" and osa(_PG + "return length of body text") == "17"
    osa('tell application "Pages" to make new document')
    osa('tell application "Pages" to set body text of document 1 to body text of document 2')
    assert osa('tell application "Pages" to get body text of document 1') == "a,b,c\nsecond line"


@pytest.mark.parametrize("app", ["Notes", "Mail", "Reminders", "Calendar", "Finder", "System Settings", "Clock"])
def test_every_windowed_app_has_settable_bounds(b: SimBackend, app: str) -> None:
    b.open_app(app)
    tell = f'tell application "{app}" to '
    win = b.app(app).windows[0]
    shot = b.screenshot().copy()
    b.run_applescript(tell + "set bounds of front window to {10, 40, 910, 640}")
    assert (win.x, win.y, win.w, win.h) == (10, 40, 900, 600)
    assert b.run_applescript(tell + "get bounds of window 1") == "10, 40, 910, 640"
    assert b.run_applescript(tell + "count windows") == "1"
    assert not np.array_equal(b.screenshot(), shot)
    with pytest.raises(AppleScriptError):
        b.run_applescript(tell + "set bounds of front window to {1, 2}")


def test_numbers_blank_black_document_as_the_public_task_checks_it(env) -> None:
    checks = [_osa_check("template", 'tell application "Numbers" to get name of document template of front document',
                         "Blank Black"),
              _osa_check("sheet", 'tell application "Numbers" to tell front document to exists sheet "test sheet"', "true"),
              _osa_check("table", 'tell application "Numbers" to tell front document to tell sheet "test sheet" to '
                                  'exists table "table 111"', "true"),
              _osa_check("file", 'tell application "System Events" to exists POSIX file "/Users/pipiwu/Documents/test.numbers"',
                         "true")]
    solution = ('tell application "Numbers"\n set d to make new document with properties {document template:template "Blank Black"}\n'
                ' set name of sheet 1 of d to "test sheet"\n set name of table 1 of sheet 1 of d to "table 111"\n'
                ' save d in POSIX file "/Users/pipiwu/Documents/test.numbers"\nend tell')
    obs, info = env.reset(options={"task": _task("gap-numbers-1", ["Numbers"], [], checks, [_osa(solution)])})
    assert info["score"] == 0.0
    obs, _, _, _, info = env.step(_osa(solution))
    assert info.get("action_error") is None, obs["text"]
    _, _, _, _, info = env.step("DONE")
    assert info["score"] == 1.0, info["checkpoints"]


def test_a_slide_full_of_huge_tables_draws_a_bounded_number_of_widgets(b: SimBackend) -> None:
    from mmenvs.macagent.backends.sim.apps.iwork_items import MAX_ITEMS, _MAX_DRAWN_CELLS

    b.run_applescript('tell application "Keynote" to make new document')
    slide = b.app("Keynote").documents[0].model.slides[0]
    cells = {f"{r},{c}": "x" for r in range(100) for c in range(60)}
    slide.items = [{"class": "table", "id": i + 1, "row count": 100, "column count": 60, "cells": cells,
                    "position": [0, 0], "width": 1920, "height": 1080, "rotation": 0, "opacity": 100,
                    "locked": False, "reflection showing": False, "reflection value": 0} for i in range(MAX_ITEMS)]
    b.app("Keynote").touch()
    b.open_app("Keynote")
    assert b.screenshot().shape[2] == 3
    win = b.app("Keynote").windows[0]
    labels = [w for w in win.layout() if type(w).__name__ == "Label"]
    assert len(labels) <= _MAX_DRAWN_CELLS + 20


def test_pages_font_popup_and_postscript_names(b: SimBackend) -> None:
    osa = b.run_applescript
    b.open_app("Pages")
    b.press("return")  # Blank
    b.type_text("passwd: 111111")
    b.hotkey("command", "a")
    click(b, "AXPopUpButton", "Font")
    click(b, "AXMenuItem", "HanziPen TC")
    assert osa(_PG + "return font of character 1 of body text") == "HanziPenTC-W3"  # the name the public task expects
    assert [e[2] for e in elements(b) if e[0] == "AXPopUpButton" and e[1] == "Font"] == ["HanziPen TC"]
    osa(_PG + 'set font of word 1 of body text to "Times New Roman"')
    assert osa(_PG + "return {font of character 1 of body text, font of character 9 of body text}") == \
        "TimesNewRomanPSMT, HanziPenTC-W3"
    osa(_PG + 'set font of body text to "Some Font Of Mine"')  # a font the sim does not know stays as named
    assert osa(_PG + "return font of character 3 of body text") == "Some Font Of Mine"


def test_pages_find_and_replace_all(b: SimBackend) -> None:
    content = "This is a test file, which is used to test the ability of replacing all 'test' with other pattern"
    osa = b.run_applescript
    osa('tell application "Pages" to make new document')
    osa(_PG + f'set body text to "{content.replace(chr(39), chr(39))}"')
    osa(_PG + "set color of word 1 of body text to {65535, 0, 0}")
    b.open_app("Pages")
    b.hotkey("command", "f")
    b.type_text("test")
    b.press("tab")
    b.type_text("Test")
    click(b, "AXButton", "Replace All")
    assert osa(_PG + "tell page 1 to return body text") == content.replace("test", "Test")
    assert [e[1] for e in elements(b) if e[0] == "AXStaticText" and "replaced" in e[1]] == ["3 replaced"]
    assert osa(_PG + "return color of character 1 of body text") == "65535, 0, 0"  # styles kept
    # "test" is now "Test" everywhere: with Match Case nothing matches, without it all three do
    click(b, "AXCheckBox", "Match Case")
    click(b, "AXButton", "Replace All")
    assert [e[1] for e in elements(b) if e[0] == "AXStaticText" and e[1] == "Not found"] == ["Not found"]
    click(b, "AXCheckBox", "Match Case")
    click(b, "AXButton", "Replace All")
    assert [e[1] for e in elements(b) if e[0] == "AXStaticText" and "replaced" in e[1]] == ["3 replaced"]
    click(b, "AXButton", "Done")
    assert osa(_PG + "return body text") == content.replace("test", "Test")
    assert b.app("Pages").documents[0].modified


def test_keynote_insert_choose_puts_a_desktop_image_on_the_slide(b: SimBackend) -> None:
    from PIL import Image

    Image.new("RGB", (640, 480), (10, 120, 200)).save(b.home / "Desktop" / "pic.png")
    (b.home / "Desktop" / "notes.txt").write_text("not listed")
    b.open_app("Keynote")
    b.press("return")
    click(b, "AXMenuBarItem", "Insert")
    click(b, "AXMenuItem", "Choose…")
    rows = [e[1] for e in elements(b) if e[0] == "AXRow"]
    assert "pic.png" in rows and "notes.txt" not in rows
    click(b, "AXRow", "pic.png")
    click(b, "AXButton", "Insert")
    osa = b.run_applescript
    assert osa(_KN + "tell slide 1 to tell image 1 to return {width, height, file name}") == "640, 480, pic.png"
    assert osa(_KN + "tell slide 1 to tell image 1 to return position") == "640, 300"  # centred on the slide
