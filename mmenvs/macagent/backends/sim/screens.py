"""Render the example screenshots in ``docs/macagent-screens/`` (run: ``python -m mmenvs.macagent.backends.sim.screens``).

Each scene is built through the same GUI and scripting calls an agent or a task setup would use."""

from __future__ import annotations

import io
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from PIL import Image

from mmenvs.core.confined import ConfinedDir

from .backend import SimBackend

NOW = datetime(2026, 4, 13, 9, 41)
PAGES = {
    "https://www.apple.com/macos/": (
        "<title>macOS Tahoe - Apple</title><h1>macOS Tahoe</h1>"
        "<p>The most advanced desktop operating system, now with a fresh design that brings more personality "
        "to your Mac. Released in September 2025 as macOS 26.</p>"
        "<h2>What is new</h2><ul><li>Liquid Glass design across the system</li><li>Spotlight actions</li>"
        "<li>Phone app on the Mac</li></ul><p>See the <a href='https://www.apple.com/macos/compatibility/'>"
        "compatible Mac models</a> or read the <a href='https://support.apple.com/'>release notes</a>.</p>"),
}


def _scene_notes(be: SimBackend) -> None:
    notes = be.app("Notes")
    notes.add_folder("Work")
    notes.add_note("Groceries", "Eggs\nMilk\nCoffee beans")
    notes.add_note("Trip to Lisbon", "Flights booked for 3 May.\nHotel near Alfama.")
    notes.add_note("Project Ideas", "1. Offline desktop for agents\n2. Checkpoint scoring\n3. Faster resets")
    files = _files(be)
    files.write_text("Documents/Budget.numbers", "")
    be.open_app("Finder")
    be.open_app("Notes")
    win = notes.windows[0]
    win.x, win.y = 200, 110
    notes.selected_note = [n["id"] for n in notes.notes() if n["name"] == "Project Ideas"][0]
    notes.touch()
    be.click(win.x + 700, win.y + 300)
    be.type_text("\n4. Reviewed on Tuesday.")


def _scene_finder(be: SimBackend) -> None:
    docs, files = be.home / "Documents", _files(be)
    for name in ("Invoices", "Photos 2026"):
        files.mkdir(docs / name)
    for name, size in (("Annual report.pdf", 182_000), ("meeting-notes.txt", 2_400), ("budget.csv", 9_100),
                       ("Resume.docx", 41_000)):
        files.write_bytes(docs / name, b"x" * size)
    for name in ("todo.txt", "Screenshot 2026-04-12.png"):
        files.write_text(f"Desktop/{name}", "x")
    be.open_app("Finder")
    finder = be.app("Finder")
    win = finder.windows[0]
    finder.navigate(win, docs)
    win.state["selection"] = ["meeting-notes.txt"]
    win.touch()


def _scene_safari(be: SimBackend) -> None:
    be.set_web_pages(PAGES)
    safari = be.app("Safari")
    safari.add_folder("agent task")
    safari.add_bookmark("https://www.apple.com/", "Apple", "Favorites")
    safari.add_bookmark("https://www.apple.com/macos/", "macOS Tahoe", "agent task")
    be.open_app("Safari")
    safari.show_sidebar = True
    safari.open_url("https://www.apple.com/macos/")


def _scene_settings_dark(be: SimBackend) -> None:
    be.run_applescript('tell application "System Events" to tell appearance preferences to set dark mode to true')
    be.open_app("System Settings")
    be.app("System Settings").set_accent("purple")
    be.app("Reminders").add_list("Apple Systems", "purple")
    be.app("Reminders").add_reminder("Tahoe Release", "Apple Systems", due=datetime(2025, 9, 15, 10, 0), priority=1)
    be.open_app("Reminders")
    be.app("Reminders").selected = "list:" + be.app("Reminders").store.all("list")[1].id
    be.open_app("System Settings")


def _scene_calendar(be: SimBackend) -> None:
    cal = be.app("Calendar")
    day = NOW.replace(hour=0, minute=0)
    for d, h, m, dur, title, c, loc in ((0, 10, 0, 30, "Standup", "Work", "Room 4"), (0, 13, 0, 60, "Lunch with Ana", "Home", "Café"),
                                        (1, 9, 30, 90, "Design review", "Work", ""), (2, 15, 0, 60, "Dentist", "Home", ""),
                                        (3, 11, 0, 120, "Lab Meeting", "Work", "B-201"), (4, 17, 0, 60, "Gym", "Home", "")):
        start = day + timedelta(days=d - 1 + 1, hours=h, minutes=m)
        cal.add_event(title, start, start + timedelta(minutes=dur), c, location=loc)
    be.open_app("Calendar")


def _scene_mail_terminal(be: SimBackend) -> None:
    mail = be.app("Mail")
    mail.add_message("Ana Costa <ana@example.com>", "Slides for Thursday", "Hi! Here are the slides for Thursday.\n\nAna",
                     date=NOW - timedelta(hours=2))
    mail.add_message("GitHub <noreply@github.com>", "[mmenvs] CI passed", "All checks have passed.", date=NOW - timedelta(days=1),
                     read=True)
    mail.add_message("Bank <alerts@bank.example>", "Your statement is ready", "Your April statement is available.",
                     date=NOW - timedelta(days=2), read=True)
    be.open_app("Mail")
    w = mail.windows[0]
    w.x, w.y = 40, 40
    mail.selected_message = mail.messages("Inbox")[0]["id"]
    mail.touch()
    be.open_app("Terminal")
    t = be.app("Terminal").windows[0]
    t.x, t.y = 520, 330
    be.type_text("sw_vers\n")
    be.type_text("echo 'otp_code: 482913' > ~/Desktop/mail_otp.txt && cat ~/Desktop/mail_otp.txt\n")
    be.type_text("osascript -e 'tell application \"Mail\" to get subject of every message of inbox'\n")


def _scene_numbers(be: SimBackend) -> None:
    be.run_applescript('tell application "Numbers" to make new document with properties '
                       '{document template:template "Personal Budget"}')
    actual = {"C2": 362.4, "C3": 75, "C4": 40, "C5": 900, "C6": 168.9, "C7": 95}
    be.run_applescript('tell application "Numbers" to tell table 1 of sheet 1 of document 1\n'
                       + "\n".join(f'set value of cell "{k}" to {v}' for k, v in actual.items()) + "\nend tell")
    for key in ("down",) * 7 + ("right", "right"):  # C8, the Utilities row's actual amount
        be.press(key)
    be.type_text("=B8*1.1")


def _scene_pages(be: SimBackend) -> None:
    be.open_app("Pages")
    be.press("return")  # Blank
    be.type_text("Quarterly Report\nSales grew by 12 percent in the first quarter, led by the new subscription "
                 "plans in Europe.\nNext steps\nHire two support engineers and open the Lisbon office in June.")
    be.hotkey("command", "up")
    pages = be.app("Pages")
    pages.set_style(pages.windows[0], "Title")
    be.press("down")
    be.press("down")
    pages.set_style(pages.windows[0], "Heading")


def _scene_keynote(be: SimBackend) -> None:
    be.open_app("Keynote")
    be.press("right")  # Basic Black
    be.press("return")
    be.type_text("Launch Plan")
    be.press("tab")
    be.type_text("April 2026")
    be.hotkey("command", "shift", "n")
    be.type_text("Goals")
    be.press("tab")
    be.type_text("Grow revenue by 20 percent\nShip version 2 in June\nOpen the Lisbon office")
    be.app("Keynote").toggle_notes()
    be.click(600, 650)
    be.type_text("Mention the hiring plan before the Q&A.")


def _scene_obsidian(be: SimBackend) -> None:
    root, files = be.home / "Documents" / "Work", _files(be)
    for rel, text in (("Projects/Roadmap 2026.md", "# Roadmap 2026\nShip offline desktops in Q2 #todo\nSee [[Customer Interviews]] "
                       "and [[Pricing]].\n\n## Risks\n- Reset time under 50 ms\n- Memory per env #review\n"),
                      ("Research/Customer Interviews.md", "Five teams asked for [[Roadmap 2026|the roadmap]]. #research\n"),
                      ("Inbox/Vendor Call Notes.md", "Vendor: Northwind\n- Renewal price up 4%\nLinks: [[Roadmap 2026]]\n"),
                      ("Pricing.md", "Draft pricing table. #todo\n"), ("Welcome.md", "This vault holds my work notes.\n")):
        files.mkdir((root / rel).parent, parents=True, exist_ok=True)
        files.write_text(root / rel, text)
    be.app("Obsidian").register_vault(root)
    be.run_shell("open 'obsidian://open?vault=Work&file=Projects%2FRoadmap%202026'")


def _scene_vscode(be: SimBackend) -> None:
    proj, files = be.home / "Projects" / "calculator", _files(be)
    files.mkdir(proj / "tests", parents=True)
    files.write_text(proj / "calc.py", '"""A tiny calculator."""\n\n\ndef add(a, b):\n    return a + b\n\n\n'
                                  'def mean(xs):\n    return sum(xs) / len(xs)\n')
    files.write_text(proj / "tests" / "test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    files.write_text(proj / "README.md", "# calculator\n")
    be.run_shell("code --install-extension ms-python.python && code ~/Projects/calculator && code -g ~/Projects/calculator/calc.py:9:29")
    be.type_text("  # the average")
    be.hotkey("command", "shift", "p")
    be.type_text("preferences")


def _scene_weather(be: SimBackend) -> None:
    be.run_shell("defaults write com.apple.weather Cities -array 'San Francisco' London Paris Tokyo")
    be.open_app("Weather")
    weather = be.app("Weather")
    w = weather.windows[0]
    w.x, w.y = 150, 60
    be.hotkey("command", "f")
    be.type_text("Paris\n")


def _scene_github(be: SimBackend) -> None:
    be.open_app("Safari")
    safari = be.app("Safari")
    w = safari.windows[0]
    w.x, w.y = 30, 34
    safari.open_url("https://github.com/openclaw/openclaw/issues?q=is%3Aissue+is%3Aopen+label%3Abug")
    be.open_app("Terminal")
    t = be.app("Terminal").windows[0]
    t.x, t.y = 560, 380
    be.type_text("gh issue list -R openclaw/openclaw --label bug --limit 3 --json number,title --jq '.[] | \"#\\(.number) \\(.title)\"'\n")


def _scene_tmux(be: SimBackend) -> None:
    files = _files(be)
    files.mkdir("services")
    files.write_text("services/console.sh",
        "while IFS= read -r c; do case \"$c\" in status) echo '{\"service\": \"billing-api\", \"status\": \"ok\", "
        "\"version\": \"2.4.1\"}';; *) echo \"error: unknown command '$c'\";; esac; done\n")
    be.run_shell("tmux new-session -d -s billing -x 120 -y 12 'bash ~/services/console.sh'")
    be.run_shell("tmux new-session -d -s build -c ~ 'bash'")
    be.open_app("Terminal")
    t = be.app("Terminal").windows[0]
    t.x, t.y = 250, 120
    be.type_text("tmux ls -F '#{session_name}: #{session_windows} windows, running #{pane_current_command}'\n")
    be.type_text("tmux send-keys -t billing status Enter; sleep 0.3\n")
    be.type_text("tmux capture-pane -p -t billing | grep '^{' > ~/Desktop/tmux_result.json\n")
    be.type_text("tmux attach -t billing\n")


def _scene_media_tools(be: SimBackend) -> None:
    files, picture = _files(be), io.BytesIO()
    files.mkdir("Pictures")
    Image.new("RGB", (1600, 1200), (47, 111, 143)).save(picture, format="PNG")
    files.write_bytes("Pictures/harbour.png", picture.getvalue())
    be.open_app("Finder")
    be.app("Finder").navigate(be.app("Finder").windows[0], be.home / "Desktop")
    be.open_app("Terminal")
    t = be.app("Terminal").windows[0]
    t.x, t.y = 330, 200
    be.type_text("sips -s format jpeg -Z 800 ~/Pictures/harbour.png --out ~/Desktop/harbour.jpg\n")
    be.type_text("sips -g pixelWidth -g pixelHeight -g format ~/Desktop/harbour.jpg\n")
    be.type_text("say -v Daniel -o ~/Desktop/reminder.aiff 'Take your vitamins with breakfast.'\n")
    be.type_text("afinfo ~/Desktop/reminder.aiff | sed -n '2p;5p;7p'\n")


SCENES = {
    "notes": _scene_notes,
    "finder": _scene_finder,
    "safari": _scene_safari,
    "settings-dark": _scene_settings_dark,
    "calendar": _scene_calendar,
    "mail-terminal": _scene_mail_terminal,
    "numbers": _scene_numbers,
    "pages": _scene_pages,
    "keynote": _scene_keynote,
    "obsidian": _scene_obsidian,
    "vscode": _scene_vscode,
    "weather": _scene_weather,
    "github-safari": _scene_github,
    "tmux": _scene_tmux,
    "media-tools": _scene_media_tools,
}


def _files(be: SimBackend) -> ConfinedDir:
    """The episode home's confined layer: scenes write their files through it like every host module."""
    return be.current_desktop().home_files


def render_all(out_dir: Path) -> list[Path]:
    """Write one PNG per scene into ``out_dir``; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    with tempfile.TemporaryDirectory(prefix="mmenvs-screens-") as tmp:
        be = SimBackend()
        try:
            for name, scene in SCENES.items():
                be.reset(now=NOW, home=Path(tmp) / "home")
                scene(be)
                p = out_dir / f"{name}.png"
                Image.fromarray(be.screenshot()).save(p, optimize=True)
                paths.append(p)
        finally:
            be.close()
    return paths


if __name__ == "__main__":  # pragma: no cover - manual run
    for p in render_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/macagent-screens")):
        print(p)
