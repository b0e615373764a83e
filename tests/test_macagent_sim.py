"""The MacAgent sim backend: desktop, widgets, per-app GUI semantics, scripting, determinism."""

from __future__ import annotations

import plistlib
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from mmenvs.macagent.applescript import AppleScriptError
from mmenvs.macagent.backends.base import BackendError, MacBackend
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.solutions import A11yElement, accessibility_elements

NOW = datetime(2026, 4, 13, 9, 41)
PAGES = {
    "https://www.apple.com/": "<html><head><title>Apple</title></head><body><h1>Apple</h1>"
                              "<p>Discover the <a href='/macos/'>macOS page</a> today.</p></body></html>",
    "https://www.apple.com/macos/": "<title>macOS - Apple</title><h1>macOS Tahoe</h1><p>Released in 2025.</p>",
}


@pytest.fixture
def b(tmp_path: Path) -> SimBackend:
    be = SimBackend(web_pages=PAGES)
    be.reset(now=NOW, home=tmp_path / "home")
    yield be
    be.close()


class Element(NamedTuple):
    """A named on-screen element: by field (``e.role``) or by position (``e[0]``, as the app tests read it)."""

    role: str
    name: str
    value: str | None
    bounds: tuple[int, int, int, int]
    flags: frozenset[str]

    @property
    def center(self) -> tuple[int, int]:
        x, y, w, h = self.bounds
        return x + w // 2, y + h // 2


def elements(be: SimBackend) -> list[Element]:
    """The named on-screen elements of the accessibility tree (parsed as reference solutions parse it)."""
    parsed: list[A11yElement] = accessibility_elements(be.accessibility_tree())
    return [Element(e.role, e.name, e.value, e.bounds, e.flags) for e in parsed if e.name is not None and e.bounds is not None]


def find(be: SimBackend, role: str, name: str, nth: int = 0) -> tuple[int, int]:
    """Centre of the nth on-screen element with this role and name (from the accessibility tree)."""
    hits = [e for e in elements(be) if e.role == role and e.name == name]
    assert len(hits) > nth, f"no {role} {name!r} on screen:\n{be.accessibility_tree()}"
    return hits[nth].center


def click(be: SimBackend, role: str, name: str, clicks: int = 1, button: str = "left") -> None:
    x, y = find(be, role, name)
    be.click(x, y, button=button, clicks=clicks)


def test_implements_protocol_and_renders_a_desktop(b: SimBackend) -> None:
    assert isinstance(b, MacBackend)
    img = b.screenshot()
    assert img.shape == (800, 1280, 3) and img.dtype == np.uint8
    # translucent light menu bar over the wallpaper, a dock plate near the bottom
    assert img[:24].mean() > 150
    tree = b.accessibility_tree()
    assert 'AXMenuExtra "Clock" value="Mon Apr 13  9:41 AM"' in tree
    assert 'AXDockItem "Notes"' in tree and 'AXDockItem "Trash"' in tree


def test_dock_click_opens_app_and_menu_bar_follows(b: SimBackend) -> None:
    click(b, "AXDockItem", "Notes")
    assert b.desktop.active.name == "Notes"
    assert any(e.role == "AXWindow" and e.name == "Notes" for e in elements(b))
    assert 'AXMenuBarItem "Notes"' in b.accessibility_tree()


def test_notes_click_a_note_and_type(b: SimBackend) -> None:
    notes = b.app("Notes")
    notes.add_note("Shopping", "eggs")
    notes.add_note("Project Ideas", "First idea")
    b.open_app("Notes")
    click(b, "AXRow", "Project Ideas")
    x, y = find(b, "AXTextArea", "Note body")
    b.click(x, y + 200)  # below the text: the cursor goes to the end
    b.type_text("\nReviewed on Tuesday.")
    got = {n["name"]: n["plaintext"] for n in notes.notes()}
    assert got["Project Ideas"] == "Project Ideas\nFirst idea\nReviewed on Tuesday."
    assert got["Shopping"] == "Shopping\neggs"
    assert b.run_applescript('tell application "Notes" to get plaintext of note "Project Ideas"').endswith("Reviewed on Tuesday.")


def test_notes_new_note_with_hotkey(b: SimBackend) -> None:
    b.open_app("Notes")
    b.hotkey("command", "n")
    b.type_text("Groceries\nmilk")
    names = [n["name"] for n in b.app("Notes").notes()]
    assert names == ["Groceries"]
    assert b.app("Notes").notes()[0]["body"] == "milk"


def test_reminders_create_with_gui_and_set_due_date(b: SimBackend) -> None:
    b.open_app("Reminders")
    click(b, "AXButton", "Add Reminder")
    b.type_text("Dentist follow-up\n")
    rems = b.app("Reminders").reminders()
    assert [r["name"] for r in rems] == ["Dentist follow-up"] and rems[0]["due_date"] is None
    click(b, "AXRow", "Dentist follow-up")
    click(b, "AXButton", "Show Details")
    click(b, "AXTextField", "Due date")
    b.type_text("2026-04-15 09:30")
    b.press("enter")  # Return presses the sheet's default button
    r = b.app("Reminders").reminders()[0]
    assert r["due_date"] == datetime(2026, 4, 15, 9, 30)
    # completing through the circle
    x, y = find(b, "AXRow", "Dentist follow-up")
    row = [e for e in elements(b) if e.name == "Dentist follow-up"][0].bounds
    b.click(row[0] + 12, y)
    assert b.app("Reminders").reminders()[0]["completed"] is True
    out = b.run_applescript('tell application "Reminders" to get completed of reminder "Dentist follow-up"')
    assert out == "true"


def test_settings_dark_mode_changes_rendered_menu_bar(b: SimBackend) -> None:
    light = b.screenshot()[:24].astype(int).mean()
    b.open_app("System Settings")
    click(b, "AXRadioButton", "Dark")
    assert b.app("System Settings").dark_mode is True
    dark = b.screenshot()[:24].astype(int).mean()
    assert dark < light - 40
    click(b, "AXRadioButton", "purple")
    assert b.app("System Settings").accent_color == "purple"
    assert b.run_applescript('tell application "System Events" to tell appearance preferences to get dark mode') == "true"


def test_finder_new_folder_rename_move_and_trash_on_disk(b: SimBackend) -> None:
    home = b.home
    (home / "Documents" / "report.txt").write_text("data")
    b.open_app("Finder")
    click(b, "AXRow", "Documents")
    b.hotkey("command", "shift", "n")
    assert (home / "Documents" / "untitled folder").is_dir()
    b.hotkey("command", "a")
    b.type_text("Projects\n")
    assert (home / "Documents" / "Projects").is_dir() and not (home / "Documents" / "untitled folder").exists()
    # drag the file onto the folder
    sx, sy = find(b, "AXRow", "report.txt")
    tx, ty = find(b, "AXRow", "Projects")
    b.mouse_move(sx, sy)
    b.drag_to(tx, ty)
    assert (home / "Documents" / "Projects" / "report.txt").read_text() == "data"
    # rename with Return, then move to the trash with cmd-backspace
    click(b, "AXRow", "Projects")
    b.press("enter")
    b.type_text("Archive\n")
    assert (home / "Documents" / "Archive").is_dir()
    click(b, "AXRow", "Archive")
    b.hotkey("command", "backspace")
    assert not (home / "Documents" / "Archive").exists()
    assert (home / ".Trash" / "Archive" / "report.txt").exists()
    # a name that is taken gives Finder's alert and changes nothing
    (home / "Documents" / "a").mkdir()
    (home / "Documents" / "b").mkdir()
    click(b, "AXRow", "a")
    b.press("enter")
    b.type_text("b\n")
    assert (home / "Documents" / "a").exists()
    assert any(e.name.startswith("The name “b” is already taken") for e in elements(b))


def test_finder_double_click_opens_textedit(b: SimBackend) -> None:
    (b.home / "Desktop" / "todo.txt").write_text("buy milk")
    b.open_app("Finder")
    click(b, "AXRow", "Desktop")
    click(b, "AXRow", "todo.txt", clicks=2)
    assert b.desktop.active.name == "TextEdit"
    assert b.app("TextEdit").state()["documents"][0]["text"] == "buy milk"


def test_terminal_typing_runs_the_command(b: SimBackend) -> None:
    b.open_app("Terminal")
    b.type_text("echo hello > ~/Desktop/t.txt && echo done\n")
    assert (b.home / "Desktop" / "t.txt").read_text() == "hello\n"
    contents = b.app("Terminal").state()["windows"][0]["contents"]
    assert "% echo hello > ~/Desktop/t.txt && echo done\ndone" in contents
    b.press("up")
    assert b.app("Terminal").windows[0].state["input"].startswith("echo hello")


def test_safari_navigation_link_and_bookmark(b: SimBackend) -> None:
    b.open_app("Safari")
    click(b, "AXTextField", "Address and search")
    b.type_text("apple.com\n")
    safari = b.app("Safari")
    assert safari.windows[0].state["url"] == "https://www.apple.com/"
    click(b, "AXLink", "macOS page")
    assert safari.windows[0].state["url"] == "https://www.apple.com/macos/"
    assert b.run_applescript('tell application "Safari" to get text of document 1') == "macOS Tahoe\nReleased in 2025."
    b.hotkey("command", "d")
    b.press("enter")
    assert safari.bookmark_tree()[0] == {"title": "Favorites", "children": [{"title": "macOS - Apple", "url": "https://www.apple.com/macos/"}]}
    plist = plistlib.loads((b.home / "Library" / "Safari" / "Bookmarks.plist").read_bytes())
    assert plist["Children"][0]["Title"] == "BookmarksBar"
    assert plist["Children"][0]["Children"][0]["URLString"] == "https://www.apple.com/macos/"
    b.hotkey("command", "[")
    assert safari.windows[0].state["url"] == "https://www.apple.com/"
    assert [h["url"] for h in safari.history] == ["https://www.apple.com/", "https://www.apple.com/macos/", "https://www.apple.com/"]
    click(b, "AXTextField", "Address and search")
    b.type_text("nowhere.example\n")
    assert "Safari can’t find the server “nowhere.example”" in b.run_applescript('tell application "Safari" to get text of document 1')


def test_textedit_save_dialog_writes_file_and_replace_alert(b: SimBackend) -> None:
    b.open_app("TextEdit")
    b.type_text("Hello from TextEdit")
    b.hotkey("command", "s")
    assert any(e.role == "AXSheet" for e in elements(b))
    b.type_text("greeting")  # the stem is selected in the Save As field
    b.press("enter")
    assert (b.home / "Documents" / "greeting.txt").read_text() == "Hello from TextEdit"
    assert b.app("TextEdit").state()["documents"][0]["path"] == "/Users/user/Documents/greeting.txt"
    # a second document saved under the same name asks to replace
    b.hotkey("command", "n")
    b.type_text("Other")
    b.hotkey("command", "s")
    b.type_text("greeting\n")
    assert any(e.name.startswith("“greeting.txt” already exists") for e in elements(b))
    click(b, "AXButton", "Replace")
    assert (b.home / "Documents" / "greeting.txt").read_text() == "Other"


def test_mail_compose_and_send(b: SimBackend) -> None:
    b.app("Mail").add_message("boss@example.com", "Status", "Please send the report.")
    b.open_app("Mail")
    b.hotkey("command", "n")
    b.type_text("alice@example.com")
    click(b, "AXTextField", "Subject")
    b.type_text("Report")
    click(b, "AXTextArea", "Message body")
    b.type_text("Attached.")
    b.hotkey("command", "shift", "d")
    sent = b.app("Mail").messages("Sent")
    assert len(sent) == 1 and sent[0]["to"] == ["alice@example.com"] and sent[0]["subject"] == "Report"
    assert sent[0]["content"] == "Attached." and sent[0]["date_sent"] == NOW
    out = b.run_applescript('tell application "Mail" to get subject of every message of sent mailbox')
    assert out == "Report"


def test_keyboard_focus_tab_clipboard_and_undo(b: SimBackend) -> None:
    b.open_app("TextEdit")
    b.type_text("alpha beta")
    b.hotkey("command", "a")
    b.hotkey("command", "c")
    assert b.desktop.clipboard.text == "alpha beta"
    b.press("right")
    b.hotkey("command", "v")
    doc = b.app("TextEdit").documents[0]
    assert doc.text == "alpha betaalpha beta"
    b.hotkey("command", "z")
    assert doc.text == "alpha beta"
    b.key_down("shift")
    b.press("left")
    b.press("left")
    b.key_up("shift")
    b.hotkey("command", "x")
    assert doc.text == "alpha be" and b.desktop.clipboard.text == "ta"
    # tab moves focus between the fields of a sheet
    b.hotkey("command", "s")
    sheet = b.desktop.key_window()
    assert sheet.focus_key == "save:name"
    b.press("esc")
    assert b.desktop.key_window() is not sheet


def test_window_z_order_focus_and_close(b: SimBackend) -> None:
    b.open_app("Notes")
    b.open_app("Reminders")
    assert b.desktop.active.name == "Reminders"
    notes_win = b.app("Notes").windows[0]
    # a point of the Notes window not covered by Reminders
    x, y = notes_win.x + 40, notes_win.y + 200
    assert b.desktop.window_at(x, y) is notes_win
    b.click(x, y)
    assert b.desktop.active.name == "Notes" and b.desktop.windows[-1] is notes_win
    b.hotkey("command", "tab")
    assert b.desktop.active.name == "Reminders"
    rem = b.app("Reminders").windows[0]
    b.click(rem.x + 18, rem.y + 14)  # the red traffic light
    assert b.app("Reminders").windows == []
    b.hotkey("command", "q")
    assert not b.app("Reminders").running


def test_menu_bar_menu_opens_and_runs_item(b: SimBackend) -> None:
    b.open_app("TextEdit")
    click(b, "AXMenuBarItem", "File")
    assert 'AXMenu "File"' in b.accessibility_tree()
    click(b, "AXMenuItem", "New")
    assert len(b.app("TextEdit").documents) == 2
    click(b, "AXMenuBarItem", "File")
    b.press("esc")
    assert b.desktop.menu is None
    # keyboard navigation inside a menu
    click(b, "AXMenuBarItem", "File")
    b.press("down")
    b.press("enter")
    assert len(b.app("TextEdit").documents) == 3


def test_right_click_context_menu_and_double_click(b: SimBackend) -> None:
    (b.home / "Desktop" / "old.txt").write_text("x")
    b.open_app("Finder")
    click(b, "AXRow", "Desktop")
    click(b, "AXRow", "old.txt", button="right")
    click(b, "AXMenuItem", "Move to Trash")
    assert not (b.home / "Desktop" / "old.txt").exists() and (b.home / ".Trash" / "old.txt").exists()


def test_scroll_moves_a_long_list(b: SimBackend) -> None:
    for i in range(60):
        (b.home / "Documents" / f"file{i:02d}.txt").write_text("")
    b.open_app("Finder")
    click(b, "AXRow", "Documents")
    assert any(e.name == "file00.txt" for e in elements(b))
    x, y = find(b, "AXRow", "file05.txt")
    b.scroll(-20, x, y)
    names = [e.name for e in elements(b) if e.role == "AXRow"]
    assert "file00.txt" not in names and "file30.txt" in names


def test_invalid_input_raises_and_changes_nothing(b: SimBackend) -> None:
    b.open_app("Notes")
    before = b.screenshot().copy()
    tree = b.accessibility_tree()
    with pytest.raises(BackendError, match="outside the screen"):
        b.click(5000, 10)
    with pytest.raises(BackendError, match="unknown key name 'hyper'"):
        b.press("hyper")
    with pytest.raises(BackendError, match="unknown key name"):
        b.hotkey("command", "nosuchkey")
    with pytest.raises(BackendError, match="mouse button"):
        b.click(10, 10, button="thumb")
    assert b.desktop.mods == set()
    assert np.array_equal(b.screenshot(), before) and b.accessibility_tree() == tree
    with pytest.raises(AppleScriptError) as e:
        b.run_applescript('tell application "Notes" to get body of note "Missing"')
    assert "-1728" in str(e.value)


def test_accessibility_tree_lists_what_is_on_screen(b: SimBackend) -> None:
    b.app("Reminders").add_reminder("Pay rent", priority=1)
    b.open_app("Reminders")
    els = elements(b)
    roles = {e.role for e in els}
    assert {"AXWindow", "AXButton", "AXList", "AXRow", "AXMenuBarItem", "AXDockItem"} <= roles
    win = [e for e in els if e.role == "AXWindow" and e.name == "Reminders"][0]
    assert "focused" in win.flags
    row = [e for e in els if e.role == "AXRow" and "Pay rent" in e.name][0]
    x, y, w, h = row.bounds
    assert 0 <= x < 1280 and 0 <= y < 800 and w > 100 and h > 10
    assert "unchecked" in row.flags


def test_same_actions_give_identical_screenshots(tmp_path: Path) -> None:
    shots = []
    for k in range(2):
        be = SimBackend()
        be.reset(now=NOW, home=tmp_path / f"h{k}")
        be.open_app("Notes")
        be.hotkey("command", "n")
        be.type_text("Same\nbytes")
        be.open_app("Calendar")
        be.app("Calendar").add_event("Standup", datetime(2026, 4, 13, 10), datetime(2026, 4, 13, 10, 30), "Work")
        be.open_app("System Settings")
        click(be, "AXRadioButton", "Dark")
        shots.append(be.screenshot().tobytes())
        be.close()
    assert shots[0] == shots[1]


def test_reset_clears_everything(b: SimBackend, tmp_path: Path) -> None:
    b.app("Notes").add_note("Temp", "x")
    b.app("System Settings").set_dark_mode(True)
    (b.home / "Desktop" / "junk.txt").write_text("x")
    b.open_app("Safari")
    b.desktop.clipboard.set_text("secret")
    b.reset(now=datetime(2026, 5, 1, 8, 0), home=b.home)
    assert b.app("Notes").notes() == []
    assert b.app("System Settings").dark_mode is False
    # .openclaw holds the skill library (~/.openclaw/skills/<name>/SKILL.md), written afresh at every reset
    assert sorted(p.name for p in b.home.iterdir()) == [".Trash", ".openclaw", "Desktop", "Documents", "Downloads", "Library"]
    assert list((b.home / "Desktop").iterdir()) == []
    assert b.desktop.clipboard.text == "" and b.app("Safari").windows == []
    assert 'value="Fri May 1  8:00 AM"' in b.accessibility_tree()


def test_calendar_new_event_from_the_grid(b: SimBackend) -> None:
    b.open_app("Calendar")
    grid = [e for e in elements(b) if e.role == "AXGroup" and e.name.startswith("Week of")][0].bounds
    # double-click Monday 13 April (second column) in the first visible hour (8 AM)
    gx, gy, gw, gh = grid
    col_w = (gw - 50) / 7
    b.click(int(gx + 50 + col_w * 1.5), gy + 40 + 60, clicks=2)
    b.type_text("Lab Meeting")
    click(b, "AXTextField", "Location")
    b.type_text("Room 4")
    b.press("enter")
    ev = b.app("Calendar").events()
    assert [(e["summary"], e["start_date"], e["end_date"], e["location"]) for e in ev] == [
        ("Lab Meeting", datetime(2026, 4, 13, 9), datetime(2026, 4, 13, 10), "Room 4")]
    assert any(e.role == "AXButton" and e.name == "Lab Meeting" for e in elements(b))
    out = b.run_applescript('tell application "Calendar" to get summary of every event of calendar "Home"')
    assert out == "Lab Meeting"


def test_clock_alarm_sheet(b: SimBackend) -> None:
    b.open_app("Clock")
    click(b, "AXButton", "Add Alarm")
    b.type_text("06:30")
    for d in ("Mon", "Tue", "Wed", "Thu", "Fri"):
        click(b, "AXCheckBox", d)
    click(b, "AXTextField", "Label")
    b.hotkey("command", "a")
    b.type_text("Morning run")
    click(b, "AXPopUpButton", "Sound")
    click(b, "AXMenuItem", "Waves")
    b.press("enter")
    alarms = b.app("Clock").alarms()
    assert [(a["time"], a["label"], a["sound"], a["repeat"], a["enabled"]) for a in alarms] == [
        ("06:30", "Morning run", "Waves", ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], True)]
    click(b, "AXCheckBox", "")
    assert b.app("Clock").alarms()[0]["enabled"] is False
    b.app("Clock").add_timer(90, "Tea")
    b.advance_time(100)
    assert b.app("Clock").timers()[0]["finished"] is True


def test_applescript_round_trips(b: SimBackend) -> None:
    run = b.run_applescript
    run('tell application "Notes" to make new note with properties {name:"Meeting Notes", body:"Agenda"}')
    assert b.app("Notes").notes()[0]["plaintext"] == "Meeting Notes\nAgenda"
    run('tell application "Reminders"\nmake new list with properties {name:"Apple Systems"}\n'
        'make new reminder at end of list "Apple Systems" with properties {name:"Tahoe Release", priority:1}\nend tell')
    r = b.app("Reminders").reminders("Apple Systems")
    assert [(x["name"], x["priority"]) for x in r] == [("Tahoe Release", 1)]
    assert run('tell application "Reminders" to count reminders of list "Apple Systems"') == "1"
    run('tell application "System Events" to tell appearance preferences to set dark mode to true')
    assert b.app("System Settings").dark_mode is True
    run('tell application "System Events" to tell every desktop to set picture to "/System/Library/Desktop Pictures/Ventura.heic"')
    assert b.app("System Settings").wallpaper == "Ventura"
    assert run('tell application "System Events" to get picture of desktop 1') == "/System/Library/Desktop Pictures/Ventura.heic"
    run('tell application "Finder" to make new folder at desktop with properties {name:"Reports"}')
    assert (b.home / "Desktop" / "Reports").is_dir()
    assert run('tell application "Finder" to get name of every item of desktop') == "Reports"
    run('tell application "TextEdit" to make new document with properties {text:"abc"}')
    run('tell application "TextEdit" to save document 1 in POSIX file "/Users/user/Desktop/abc.txt"')
    assert (b.home / "Desktop" / "abc.txt").read_text() == "abc"
    run('tell application "Mail"\nset m to make new outgoing message with properties {subject:"Hi", content:"Yo"}\n'
        'make new to recipient at end of to recipients of m with properties {address:"bob@example.com"}\n'
        'send m\nend tell')
    assert b.app("Mail").messages("Sent")[0]["to"] == ["bob@example.com"]
    run('tell application "Notes" to show note "Meeting Notes"')
    assert b.desktop.active.name == "Notes" and b.app("Notes").state()["selected_note"] == "Meeting Notes"
    run('tell application "Calendar" to switch view to month view')
    assert b.app("Calendar").view == "Month"
    run('set the clipboard to "from a script"')
    assert b.desktop.clipboard.text == "from a script"
    assert run('exists POSIX file "/Users/user/Desktop/abc.txt"') == "true"
    with pytest.raises(AppleScriptError) as e:
        run('tell application "Notes" to get name of note "Nope"')
    assert "Notes got an error" in str(e.value)


def test_shell_host_commands_talk_to_the_sim(b: SimBackend) -> None:
    out = b.run_shell('osascript -e \'tell application "Notes" to make new note with properties {name:"CLI", body:"b"}\' '
                      '>/dev/null && osascript -e \'tell application "Notes" to get name of every note\'')
    assert out.exit_code == 0 and out.stdout == "CLI\n"
    err = b.run_shell("osascript -e 'tell application \"Notes\" to get foo bar baz'")
    assert err.exit_code == 1 and "error" in err.stderr
    assert b.run_shell("defaults write -g AppleInterfaceStyle Dark && defaults read -g AppleInterfaceStyle").stdout == "Dark\n"
    assert b.app("System Settings").dark_mode is True
    assert b.run_shell("defaults write com.example.app Count -int 3; defaults read com.example.app Count").stdout == "3\n"
    missing = b.run_shell("defaults read com.example.app Nope")
    assert missing.exit_code == 1 and "does not exist" in missing.stderr
    assert b.run_shell("printf 'copied' | pbcopy; pbpaste").stdout == "copied"
    assert b.desktop.clipboard.text == "copied"
    assert b.run_shell("sw_vers -productVersion").stdout == "26.0\n"
    assert "macOS Tahoe" in b.run_shell("curl -s https://www.apple.com/macos/").stdout
    assert b.run_shell("curl -s https://nowhere.example/").exit_code == 6
    assert b.run_shell("networksetup -setairportpower en0 off; networksetup -getairportpower en0").stdout == "Wi-Fi Power (en0): Off\n"
    assert b.app("System Settings").wifi is False
    assert b.run_shell("open -a Reminders").exit_code == 0 and b.desktop.active.name == "Reminders"
    b.run_shell("cd ~/Documents && echo hi > a.txt && open a.txt")
    assert b.desktop.active.name == "TextEdit" and b.app("TextEdit").documents[0].text == "hi\n"
    assert b.run_shell("open -a NoSuchApp").exit_code == 1
    b.run_shell("screencapture -x ~/Desktop/shot.png")
    from PIL import Image

    assert Image.open(b.home / "Desktop" / "shot.png").size == (1280, 800)


def test_shell_confined_timeout_and_flood(b: SimBackend) -> None:
    assert b.run_shell("pwd").stdout == "/Users/user\n"
    assert b.run_shell("cd /Users/user/Documents; pwd").stdout == "/Users/user/Documents\n"
    assert b.run_shell("pwd").stdout == "/Users/user/Documents\n"
    # do shell script runs in its own shell (in "/", as on a Mac) and may be nested inside osascript
    assert b.run_applescript('do shell script "cd /Users/user; pwd"') == "/Users/user"
    assert b.run_shell("pwd").stdout == "/Users/user/Documents\n"
    nested = b.run_shell("osascript -e 'do shell script \"echo nested\"'")
    assert (nested.exit_code, nested.stdout, nested.timed_out) == (0, "nested\n", False)
    slow = b.run_shell("sleep 5", timeout=0.5)
    assert slow.timed_out
    big = b.run_shell("yes | head -c 100000")
    assert big.truncated and len(big.stdout) <= b.max_output_chars + 200
    assert b.run_shell("echo ok").stdout == "ok\n"


def test_the_backend_keeps_its_shells_in_one_shell_sessions_object(b: SimBackend, tmp_path: Path) -> None:
    shells = b.shells
    assert (shells.sandbox("main"), shells.sandbox("aux"), shells.cwd) == (None, None, None)  # started on first use
    assert b.run_shell("cd ~/Documents").exit_code == 0
    assert shells.home_in_sandbox == b.posix_home and shells.cwd == b.shell_cwd() == b.posix_home + "/Documents"
    assert shells.sandbox("aux") is None  # the agent's commands run in "main" only
    # main runs osascript → do shell script in aux → osascript → do shell script: a third level is refused
    (b.home / "inner.applescript").write_text('do shell script "echo deep"\n')
    out = b.run_shell("osascript -e 'do shell script \"osascript ~/inner.applescript\"'")
    assert out.exit_code == 1 and "shell commands nested more than two deep" in out.stderr
    main, aux = shells.sandbox("main"), shells.sandbox("aux")
    assert aux is not None and aux is not main
    b.reset(now=NOW, home=b.home)  # same home: the shells are kept, restarted in the home folder
    assert (shells.sandbox("main"), shells.sandbox("aux"), shells.cwd) == (main, aux, b.posix_home)
    b.reset(now=NOW, home=tmp_path / "elsewhere")  # another home: both are dropped
    assert (shells.sandbox("main"), shells.sandbox("aux")) == (None, None) and b.shells is shells


def test_reported_script_integration_cases(b: SimBackend) -> None:
    """The scripts helpers reported as failing against the sim (each one a regression guard)."""
    run = b.run_applescript
    ev = ' with properties {summary:"Lab", start date:date "13 April 2026 10:00", end date:date "13 April 2026 11:00"}'
    run('tell application "Calendar"\ntell calendar "Work"\nmake new event at end of events' + ev + '\nend tell\nend tell')
    run('tell application "Calendar" to tell calendar "Work" to make new event at end of events' + ev)
    assert [e["calendar"] for e in b.app("Calendar").events()] == ["Work", "Work"]
    mail = b.app("Mail")
    mail.add_message("ann@example.com", "Lunch x", "Noon?")
    mail.add_message("me@example.com", "Report x", "Done.", mailbox="Sent")
    mail.add_message("me@example.com", "Other", "…", mailbox="Sent")
    assert run('tell application "Mail" to count messages of inbox') == "1"
    assert run('tell application "Mail" to get subject of messages of sent mailbox whose subject contains "x"') == "Report x"
    assert run('tell application "Mail" to count mailboxes') == "6"
    assert run('tell application "Mail" to get name of mailboxes of account 1').startswith("Inbox, Drafts, Sent")
    run('tell application "Mail"\nset m to make new outgoing message with properties {subject:"Hi", content:"Yo"}\n'
        'tell m to make new to recipient at end of to recipients with properties {address:"bob@example.com"}\n'
        'send m\nend tell')
    assert [m["to"] for m in mail.messages("Sent") if m["subject"] == "Hi"] == [["bob@example.com"]]
    assert run('tell application "Notes" to get name of default account') == "iCloud"
    run('tell application "Notes" to make new note with properties {body:"<div><h1>Plan</h1></div><div>Step one</div>"}')
    assert run('tell application "Notes" to get {name, plaintext} of note 1') == "Plan, Plan\nStep one"


def test_terminal_contents_and_history_are_text(b: SimBackend) -> None:
    b.run_applescript('tell application "Terminal" to do script "echo hello-there"')
    out = b.run_applescript('tell application "Terminal" to get contents of window 1')
    assert "% echo hello-there\nhello-there\n" in out
    assert b.run_applescript('tell application "Terminal" to get history of tab 1 of window 1') == out
    assert b.run_applescript('tell application "Terminal" to get contents of selected tab of window 1') == out


def test_finder_items_coerce_to_alias_and_text(b: SimBackend) -> None:
    (b.home / "Desktop" / "a.txt").write_text("x")
    run = b.run_applescript
    assert run('tell application "Finder" to get file "a.txt" of desktop as alias') == \
        "alias Macintosh HD:Users:user:Desktop:a.txt"
    assert run('tell application "Finder" to get (folder "Documents" of home) as alias') == \
        "alias Macintosh HD:Users:user:Documents:"
    assert run('tell application "Finder" to POSIX path of (folder "Documents" of home as alias)') == "/Users/user/Documents/"
    assert run('tell application "Finder" to get (folder "Documents" of home) as text') == "Macintosh HD:Users:user:Documents:"
    assert run('tell application "Finder" to get name of home') == "user"  # not the host folder's name
    assert run('tell application "Finder" to get every file of desktop as alias list') == \
        "alias Macintosh HD:Users:user:Desktop:a.txt"


def test_do_shell_script_line_endings(b: SimBackend) -> None:
    run = b.run_applescript
    assert run('do shell script "printf \'a\\\\nb\\\\n\\\\n\'"') == "a\rb\r"  # one trailing ending removed
    assert run('do shell script "printf \'a\\\\nb\\\\n\\\\n\'" without altering line endings') == "a\nb\n\n"
    assert run('do shell script "echo hi"') == "hi"


def test_notes_plaintext_after_appending_html(b: SimBackend) -> None:
    run = b.run_applescript
    run('tell application "Notes" to make new note with properties {name:"Trip", body:"Pack\\n\\nBook hotel"}')
    body = run('tell application "Notes" to get body of note "Trip"')
    assert body.startswith("<div><h1>Trip</h1></div>")
    run('tell application "Notes" to set body of note "Trip" to (body of note "Trip") & "<div>Call Dana</div>"')
    # nested block ends and the line breaks between the <div>s are one break each; <div><br></div> is an empty line
    assert run('tell application "Notes" to get plaintext of note "Trip"') == "Trip\nPack\n\nBook hotel\nCall Dana"
    assert b.app("Notes").notes()[0]["plaintext"] == "Trip\nPack\n\nBook hotel\nCall Dana"


@pytest.mark.parametrize("app,script", [
    ("Notes", 'tell application "Notes" to make new note with properties {name:"A", body:"b"}'),
    ("Reminders", 'tell application "Reminders" to make new reminder with properties {name:"R"}'),
    ("TextEdit", 'tell application "TextEdit" to make new document with properties {text:"abc"}'),
])
def test_first_frame_after_setup_is_not_stale(b: SimBackend, app: str, script: str) -> None:
    # a redraw forced by any later script must not change a frame nothing changed since
    # (Notes used to resolve its selection after drawing the toolbar's Delete button)
    b.run_applescript(script)
    b.open_app(app)
    shot, tree = b.screenshot().copy(), b.accessibility_tree()
    b.run_applescript("1")
    assert b.accessibility_tree() == tree
    assert np.array_equal(b.screenshot(), shot)


def test_sim_commands_in_the_session_skip_the_python_shim(b: SimBackend) -> None:
    # the session's functions talk to the host socket from Perl: they work with no PATH at all,
    # where the Python shim on PATH could not even be found
    r = b.run_shell("(PATH=/nowhere; osascript -e 'return 7'; defaults read com.apple.dock autohide)")
    assert (r.stdout, r.exit_code) == ("7\n0\n", 0)
    assert b.run_shell("(PATH=/nowhere; command osascript -e 'return 7')").exit_code == 127
    # text survives both directions: quotes, backslashes, tabs, non-ASCII, astral characters, no final newline
    text = 'héllo "q" \\ back\ttab 😀\r\nend'
    b.desktop.clipboard.set_text(text)
    assert b.run_shell("pbpaste").stdout == text
    r = b.run_shell("pbpaste | pbcopy; osascript -e 'return \"ünï 😀\"'")
    assert (b.desktop.clipboard.text, r.stdout) == (text, "ünï 😀\n")
    # errors: osascript's stderr line and its exit status
    r = b.run_shell("osascript -e 'bad syntax here'; echo rc=$?")
    assert r.stdout == "rc=1\n" and "syntax error" in r.stderr
    # large output with many escapes (a regex-per-string reader would give up on it)
    big = "".join(f'line {i} "x"\n' for i in range(40000))
    b.desktop.clipboard.set_text(big)
    assert b.run_shell("pbpaste | wc -c").stdout.strip() == str(len(big.encode()))
    assert b.run_shell("pbpaste | tail -1").stdout == 'line 39999 "x"\n'
    # without the session's client the shim still answers
    assert b.run_shell("unset __mm_host_pl; osascript -e 'return 8'").stdout == "8\n"


def test_shell_date_is_the_desktop_clock(b: SimBackend) -> None:
    assert b.run_shell("date '+%Y-%m-%d %H:%M'").stdout == NOW.strftime("%Y-%m-%d %H:%M") + "\n"
    b.advance_time(90 * 60)
    assert b.run_shell("date -u +%H:%M").stdout == "11:11\n"
    assert b.run_applescript('do shell script "date +%F"') == NOW.strftime("%Y-%m-%d")
    # an explicit date is the real command's business
    assert b.run_shell("date -d 2024-01-02 +%F; date -ud '2024-01-02 10:00' +%H").stdout == "2024-01-02\n10\n"


def test_opening_a_local_page_shows_the_agents_path_not_the_host_one():
    import gymnasium as gym

    import mmenvs  # noqa: F401

    env = gym.make("MacAgent-v0")
    try:
        env.reset(seed=0)
        command = "mkdir -p ~/Documents && echo '<h1>Hello page</h1>' > ~/Documents/p.html && "
        for opener in ("open -a Safari ~/Documents/p.html", "open ~/Documents/p.html"):
            obs, *_ = env.step(f"```bash\n{command}{opener}\n```")
            assert 'value="file:///Users/user/Documents/p.html"' in obs["a11y"]
            assert env.unwrapped.backend.home.as_posix() not in obs["a11y"] + obs["text"]
    finally:
        env.close()


def test_host_commands_inside_while_read_keep_the_loop_input(b: SimBackend) -> None:
    # osascript -e, curl and defaults must not swallow the loop's remaining lines; pbcopy and
    # osascript without a script argument do read stdin
    out = b.run_shell("printf 'a\\nb\\nc\\n' > list.txt; n=0; while read x; do "
                      "osascript -e \"tell application \\\"Notes\\\" to make new note with properties {name:\\\"$x\\\"}\" >/dev/null; "
                      "curl -s https://www.apple.com/macos/ >/dev/null; defaults read -g AppleInterfaceStyle >/dev/null 2>&1; "
                      "n=$((n+1)); done < list.txt; echo $n")
    assert out.stdout.strip() == "3", out
    names = b.run_shell("osascript -e 'tell application \"Notes\" to get name of every note'").stdout
    assert all(x in names for x in ("a", "b", "c")), names
    assert b.run_shell("echo 'return 6 * 7' | osascript").stdout == "42\n"
    assert b.run_shell("printf 'clip' | pbcopy; pbpaste").stdout == "clip"


def test_apps_come_from_one_registry(b: SimBackend) -> None:
    from mmenvs.macagent.backends.sim.apps import APP_MODULES, APPS, dock_apps
    from mmenvs.macagent.tasks import APPS as TASK_APPS

    assert set(APP_MODULES) == set(b.desktop.apps)
    assert TASK_APPS == APPS and set(APP_MODULES) <= set(APPS)
    dock = [name for name, _ in b.desktop.dock_geometry()[4] if name not in ("|", "Trash")]
    assert dock == list(dock_apps()) and dock[-1] == "System Settings"


def test_every_declared_document_type_url_scheme_and_web_host_has_its_handler() -> None:
    # the base App raises for these hooks; an app that declares the matching attribute must override them
    from mmenvs.macagent.backends.sim.apps import APP_MODULES, app_class
    from mmenvs.macagent.backends.sim.apps.base import App

    for name in APP_MODULES:
        cls = app_class(name)
        if cls.open_suffixes:
            assert cls.open_file is not App.open_file, name
        if cls.url_schemes:
            assert cls.open_url is not App.open_url, name
        if getattr(cls, "web_hosts", ()):
            assert cls.serve_web is not App.serve_web, name


def test_open_routes_files_and_urls_through_the_apps_hooks(b: SimBackend) -> None:
    (b.home / "Documents" / "page.html").write_text("<title>Local</title><h1>Local page</h1>")
    (b.home / "Documents" / "notes.txt").write_text("plain")
    assert b.run_shell("open ~/Documents/page.html").exit_code == 0
    assert b.desktop.active.name == "Safari"
    assert b.run_shell("open -a TextEdit ~/Documents/page.html").exit_code == 0
    assert b.desktop.active.name == "TextEdit"
    assert b.run_shell("open -a Finder ~/Documents/notes.txt").exit_code == 0
    assert b.desktop.active.name == "Finder"
    assert b.run_shell("open https://www.apple.com/macos/").exit_code == 0
    assert b.desktop.active.name == "Safari"
    bad = b.run_shell("open gopher://example.org/")
    assert bad.exit_code == 1 and "No application knows how to open URL" in bad.stderr
    refused = b.run_shell("open -a Numbers ~/Documents/page.html")
    assert refused.exit_code == 1 and "Numbers cannot open" in refused.stderr


def test_rewrapping_after_edits_equals_wrapping_from_scratch() -> None:
    """Typing re-wraps only what an edit can move; the rows must be exactly a fresh wrap's."""
    import random

    from mmenvs.macagent.backends.sim.widgets import Editor

    rng = random.Random(0)
    words = ["words", "a", "Zebra", "AVATAR", "kernel", "to", "Tomorrow,", "i", "WWW", "lorem-ipsum"]
    for trial in range(120):
        text = "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(0, 40))) for _ in range(rng.randint(1, 4)))
        editor = Editor(text, multiline=True)
        width = rng.choice([80, 150, 300])
        editor.wrapped(width, 13, "regular")
        for _ in range(6):
            i = rng.randint(0, len(editor.text))
            op = rng.random()
            if op < 0.5:
                editor.text = editor.text[:i] + rng.choice(["a", " ", "WW ", "xyz"]) + editor.text[i:]
            elif op < 0.8:
                editor.text = editor.text[:max(0, i - 2)] + editor.text[i:]
            else:
                editor.text += rng.choice(["a", " q", "\nnew line"])
            rows = editor.wrapped(width, 13, "regular")
            assert rows == Editor(editor.text, multiline=True).wrapped(width, 13, "regular"), (trial, editor.text)


def test_typing_at_the_end_of_a_long_paragraph_measures_only_its_last_rows() -> None:
    from mmenvs.macagent.backends.sim.theme import font
    from mmenvs.macagent.backends.sim.widgets import _wrap_paragraph

    class Counting:
        calls = 0

        def getlength(self, text: str) -> float:
            Counting.calls += 1
            return font(13, "regular").getlength(text)

    line = "words " * 80
    rows = _wrap_paragraph(Counting(), line, 200)
    fresh_calls, Counting.calls = Counting.calls, 0
    again = _wrap_paragraph(Counting(), line + "a", 200, (line, rows))
    assert again == _wrap_paragraph(font(13, "regular"), line + "a", 200)
    assert len(rows) >= 8 and Counting.calls * 4 < fresh_calls


def test_every_document_app_implements_writing_and_its_save_sheet() -> None:
    """DocumentApp.write and save_sheet are abstract hooks: an app that forgot one would raise on Save."""
    from mmenvs.macagent.backends.sim.apps import app_classes
    from mmenvs.macagent.backends.sim.apps.documents import DocumentApp

    document_apps = [cls for cls in app_classes() if issubclass(cls, DocumentApp)]
    assert len(document_apps) >= 4  # TextEdit, Pages, Keynote, Numbers
    for cls in document_apps:
        for hook in ("write", "save_sheet"):
            assert getattr(cls, hook) is not getattr(DocumentApp, hook), f"{cls.__name__} lacks {hook}"
