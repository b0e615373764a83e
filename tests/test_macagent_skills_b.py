"""Issue 15 item 1 (helper B): the skill CLIs ``peekaboo``, ``blogwatcher``, ``gifgrep`` and ``songsee`` in the
MacAgent sim, driven as an agent drives them (``bash`` actions through ``env.step``), against sim state:
outputs and exit codes as the real tools document them, real PNG/GIF/JPEG/SQLite files decoded and
checked, and the attacks an agent can mount on host code (symlinks, bombs, huge inputs), each refused
with an error while the episode goes on."""

from __future__ import annotations

import base64
import io
import json
import re
import sqlite3

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

import mmenvs  # noqa: F401 - registers the envs
from mmenvs.macagent.formats.audio import tone_wav

RSS = """<?xml version="1.0"?><rss version="2.0"><channel><title>Tech</title>
<item><title>First post</title><link>https://tech.example.com/p/1</link>
<pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate><category>ai</category></item>
<item><title>Second post</title><link>https://tech.example.com/p/2</link>
<pubDate>Tue, 03 Mar 2026 10:00:00 GMT</pubDate></item>
</channel></rss>"""
ATOM = """<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Notes</title>
<entry><title>Atom one</title><link href="https://atom.example.org/a1"/><updated>2026-03-01T08:00:00Z</updated></entry>
</feed>"""
TENOR = {"results": [
    {"id": "555", "title": "Kitten nap", "tags": ["cat"],
     "media_formats": {"gif": {"url": "https://media.tenor.com/555/nap.gif", "dims": [64, 64]}}},
    {"id": "111", "title": "Happy cat dance", "content_description": "a cat dancing", "tags": ["cat", "dance"],
     "media_formats": {"gif": {"url": "https://media.tenor.com/111/cat.gif", "dims": [220, 160]},
                       "tinygif": {"url": "https://media.tenor.com/111/tiny.gif", "dims": [110, 80]}}},
    {"id": "222", "title": "Office handshake", "tags": ["office", "deal"],
     "media_formats": {"gif": {"url": "https://media.tenor.com/222/hand.gif", "dims": [300, 200]}}},
    {"id": "333", "title": "", "content_description": "sleepy cat", "tags": ["cat"],
     "media_formats": {"gif": {"url": "https://media.tenor.com/333/sleep.gif", "dims": [200, 200]}}},
    {"id": "444", "title": "Dog with a cat hat", "tags": ["dog"],
     "media_formats": {"gif": {"url": "https://media.tenor.com/444/dog.gif", "dims": [100, 60]}}},
]}


def _tiny_gif() -> bytes:
    frames = [Image.new("RGB", (12, 10), c) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=200, loop=0)
    return buf.getvalue()


TINY_GIF = _tiny_gif()
PAGES = {
    "https://tech.example.com/": '<html><head><link rel="alternate" type="application/rss+xml" href="/rss.xml">'
                                 "</head><body>Tech</body></html>",
    "https://tech.example.com/rss.xml": RSS,
    "https://atom.example.org/": "<html><body>no link tag: the feed is at a common path</body></html>",
    "https://atom.example.org/atom.xml": ATOM,
    "https://noscrape.example.net/": '<article><h2><a href="/x">Scraped title</a></h2></article>'
                                     '<div class="post"><h2><a href="/y">Not in an article</a></h2></div>',
    "https://tenor.googleapis.com/v2/search": json.dumps(TENOR),
    "https://tenor.googleapis.com/v2/search?q=party": json.dumps({"results": [r for r in TENOR["results"] if r["id"] == "222"]}),
    "https://media.tenor.com/222/hand.gif": "data:image/gif;base64," + base64.b64encode(TINY_GIF).decode(),
}


def _task(pages: dict[str, str] | None = None) -> dict:
    return {"id": "skills-b", "instruction": "Use the skill CLIs.", "category": "Internet", "apps": ["Safari"],
            "reference_time": "2026-03-10T09:00", "setup": [],
            "checkpoints": [{"name": "never", "tag": "file_ops", "getter": {"type": "shell", "command": "true"},
                             "metric": {"type": "equals", "expected": "never"}}],
            "reference_solution": ["```bash\ntrue\n```"], "web_pages": dict(PAGES if pages is None else pages)}


@pytest.fixture(scope="module")
def module_env():
    e = gym.make("MacAgent-v0").unwrapped
    yield e
    e.close()


@pytest.fixture
def env(module_env):
    module_env.reset(options={"task": _task()})
    return module_env


def run(env, code: str) -> tuple[str, int]:
    """The output of one bash action and its exit status (the env appends ``[exit code N]``)."""
    obs, *_ = env.step(f"```bash\n{code}\n```")
    text = obs["text"]
    m = re.search(r"\[exit code (-?\d+)\]\s*$", text)
    assert m, text
    return text[:m.start()], int(m.group(1))


def files(env):
    return env.backend.current_desktop().home_files


def image(env, rel: str) -> Image.Image:
    img = Image.open(io.BytesIO(files(env).read_bytes(rel)))
    img.load()
    return img


def benign(env) -> None:
    out, code = run(env, "echo still-fine")
    assert (out.strip(), code) == ("still-fine", 0)


# ============================================================================================ shell + help
def test_every_cli_is_on_the_path_and_answers_help(env) -> None:
    out, code = run(env, "for c in peekaboo blogwatcher gifgrep songsee; do type -t $c; done")
    assert (out.split(), code) == (["function"] * 4, 0)
    for cli, needle in (("peekaboo", "USAGE: peekaboo <subcommand>"), ("blogwatcher", "Available Commands:"),
                        ("gifgrep", "Usage: gifgrep <command> [flags]"), ("songsee", "Usage: songsee <input> [flags]")):
        out, code = run(env, f"{cli} --help")
        assert needle in out and code == 0, (cli, out)
    assert run(env, "peekaboo image --help")[0].startswith("OVERVIEW: Capture screenshots")
    assert "--scrape-selector" in run(env, "blogwatcher add --help")[0]
    # no arguments: gifgrep and songsee show their usage with status 2, as the real tools
    assert run(env, "gifgrep >/dev/null; echo $?")[0].strip() == "2"
    assert run(env, "songsee 2>/dev/null; echo $?")[0].strip() == "2"


# ============================================================================================ peekaboo
def test_peekaboo_lists_running_apps_and_windows_as_the_desktop_has_them(env) -> None:
    run(env, "open -a TextEdit")
    desk = env.backend.current_desktop()
    out, code = run(env, "peekaboo list apps --json")
    assert code == 0
    data = json.loads(out)
    assert data["success"] is True
    apps = {a["app_name"]: a for a in data["data"]["applications"]}
    assert set(apps) == {a.name for a in desk.running_apps() if not a.background_only}
    te = apps["TextEdit"]
    assert (te["bundle_id"], te["is_active"], te["window_count"]) == ("com.apple.TextEdit", True, 1)
    assert apps["Finder"]["is_active"] is False
    text, code = run(env, "peekaboo list")  # list alone = list apps
    assert code == 0 and f"TextEdit [ACTIVE]\n   Bundle ID: com.apple.TextEdit\n   PID: {te['pid']}\n   Windows: 1" in text

    win = desk.apps["TextEdit"].windows[0]
    out, code = run(env, f"peekaboo list windows --app PID:{te['pid']} --include-details bounds,ids,off-screen -j")
    data = json.loads(out)["data"]
    assert code == 0 and data["target_application_info"]["app_name"] == "TextEdit"
    assert data["windows"] == [{"window_title": win.title, "window_index": 0, "window_id": win.id,
                                "bounds": {"x": win.x, "y": win.y, "width": win.w, "height": win.h}, "is_on_screen": True}]
    out, _ = run(env, "peekaboo list windows --app textedit")  # names match case-insensitively
    assert f'[0] "{win.title}"' in out and "Bounds" not in out
    out, code = run(env, "peekaboo list screens --json")
    assert json.loads(out)["data"]["screens"][0]["frame"] == {"x": 0, "y": 0, "width": desk.screen_size[0],
                                                              "height": desk.screen_size[1]}


def test_peekaboo_window_capture_is_a_real_png_of_the_windows_own_pixels(env) -> None:
    run(env, "open -a TextEdit")
    win = env.backend.current_desktop().apps["TextEdit"].windows[0]
    out, code = run(env, "peekaboo image --app TextEdit --path ~/Desktop/te.png --json")
    assert code == 0, out
    saved = json.loads(out)["data"]["saved_files"]
    assert [(s["path"], s["mime_type"], s["window_title"], s["window_id"], s["width"], s["height"]) for s in saved] == [
        ("/Users/user/Desktop/te.png", "image/png", win.title, win.id, win.w, win.h)]
    png = image(env, "Desktop/te.png")
    assert (png.format, png.mode, png.size) == ("PNG", "RGB", (win.w, win.h))
    # TextEdit is the front window: its inside is what the screen shows there (corners blend with the desktop)
    screen = np.asarray(env.backend.screenshot())
    inner = np.asarray(png)[40:-40, 40:-40]
    assert np.array_equal(inner, screen[win.y + 40:win.y + win.h - 40, win.x + 40:win.x + win.w - 40])
    # a window behind another is still captured from its own pixels, not the one in front of it
    run(env, "open -a Notes")
    out, code = run(env, "peekaboo image --app TextEdit --window-index 0 --path ~/te2.png")
    assert code == 0 and "te2.png" in out
    assert np.array_equal(np.asarray(image(env, "te2.png"))[40:-40, 40:-40], inner)


def test_peekaboo_screen_menubar_frontmost_and_jpeg(env) -> None:
    desk = env.backend.current_desktop()
    sw, sh = desk.screen_size
    out, code = run(env, "cd ~/Documents && peekaboo image --mode screen")
    assert code == 0
    m = re.search(r"(/Users/user/Documents/screen0_20260310_\d{6}\.png)", out)
    assert m, out
    shot = image(env, m.group(1).removeprefix("/Users/user/"))
    assert shot.size == (sw, sh)
    same = np.mean(np.all(np.asarray(shot) == np.asarray(env.backend.screenshot()), axis=2))
    assert same > 0.97  # the whole screen as the renderer draws it (the clock may tick in the menu bar)
    out, code = run(env, "peekaboo image --app menubar --path ~/bar.png")
    assert code == 0 and image(env, "bar.png").size == (sw, 24)
    run(env, "open -a TextEdit")
    out, code = run(env, "peekaboo image --path ~/front.jpg --format jpg")
    front = image(env, "front.jpg")
    win = desk.apps["TextEdit"].windows[0]
    assert code == 0 and (front.format, front.size) == ("JPEG", (win.w, win.h))


def test_peekaboo_failures_exit_like_the_real_tool(env) -> None:
    out, code = run(env, "peekaboo image --app Nonexistent --json")
    assert code == 1 and json.loads(out)["error"]["code"] == "APP_NOT_FOUND"
    out, code = run(env, "peekaboo image --app Mail")  # known but not running
    assert code == 1 and "is not running" in out
    for bad in ("peekaboo image --mode sideways", "peekaboo image --format gif", "peekaboo frobnicate",
                "peekaboo image --bogus", "peekaboo list windows", "peekaboo list windows --app Finder --include-details x"):
        out, code = run(env, bad)
        assert code == 64 and out.startswith("Error:"), (bad, out)
    run(env, "open -a TextEdit")
    out, code = run(env, "peekaboo image --app TextEdit --window-index 7")
    assert code == 1 and "out of range" in out
    out, code = run(env, "peekaboo image --app TextEdit --window-title 'no such title' -j")
    assert code == 1 and json.loads(out)["error"]["code"] == "WINDOW_NOT_FOUND"
    out, code = run(env, "peekaboo image --analyze 'what is this'")
    assert code == 1 and "No AI provider" in out
    env.backend.current_desktop().minimize(env.backend.current_desktop().apps["TextEdit"].windows[0])
    out, code = run(env, "peekaboo image --app TextEdit --path ~/m.png")
    assert code == 1 and "minimized" in out and not files(env).exists("m.png")


def test_peekaboo_attack_paths_outside_the_home_and_symlinks_are_refused(env, tmp_path) -> None:
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"precious")
    files(env).symlink(str(victim), "link.png")
    out, code = run(env, "peekaboo image --mode screen --path ~/link.png")
    assert code == 1 and "symbolic link" in out
    out, code = run(env, "peekaboo image --mode screen --path /etc/evil.png")
    assert code == 1 and "home folder" in out
    out, code = run(env, "peekaboo image --mode screen --path ~/../../escape.png")
    assert code == 1 or "Saved screen0: /Users/user/" in out  # refused, or kept inside the home by the sim's paths
    assert victim.read_bytes() == b"precious"
    # a window larger than the episode's image_pixels is refused before it is drawn
    run(env, "open -a TextEdit")
    budget = env.backend.budget
    env.backend.budget = budget.replace(image_pixels=200_000)
    try:
        out, code = run(env, "peekaboo image --app TextEdit --path ~/big.png")
    finally:
        env.backend.budget = budget
    assert code == 1 and "image_pixels=200,000" in out and not files(env).exists("big.png")
    benign(env)


def _applescript(env, code: str) -> str:
    obs, *_ = env.step(f"```applescript\n{code}\n```")
    return obs["text"]


def test_peekaboo_automation_as_the_public_tasks_use_it(env) -> None:
    desk = env.backend.current_desktop()
    # app launch brings the app to the front (new_peekaboo 1)
    assert run(env, 'peekaboo app launch "TextEdit"') == ("✅ Launched TextEdit\n", 0)
    assert desk.active is desk.apps["TextEdit"] and desk.apps["TextEdit"].windows
    # type: \n is Return (new_peekaboo 2)
    out, code = run(env, "peekaboo type 'Quarterly ops review\\n- Confirm vendor timeline\\n- Send final budget draft'")
    assert code == 0 and out == "✅ Typed 72 characters\n"
    assert _applescript(env, 'tell application "TextEdit" to get text of document 1').startswith(
        "Quarterly ops review\n- Confirm vendor timeline\n- Send final budget draft")
    # open a URL in an app (new_peekaboo 3); sleep returns at once
    out, code = run(env, 'peekaboo open "https://example.com" --app "Safari" --wait-until-ready && peekaboo sleep 2')
    assert code == 0 and out == "✅ Opened https://example.com with Safari\n✅ Paused for 2ms\n"
    assert _applescript(env, 'tell application "Safari" to get URL of front document').startswith("https://example.com/")
    # hotkey to an app (new_peekaboo 5): cmd-n makes a second Safari window
    assert run(env, 'peekaboo hotkey --keys "cmd,n" --app "Safari"')[1] == 0
    assert len(desk.apps["Safari"].windows) == 2
    # window set-bounds (new_peekaboo 4)
    run(env, "open -a Terminal")
    out, code = run(env, 'peekaboo window set-bounds --app "Terminal" --x 0 --y 25 --width 1200 --height 700 --json')
    w = desk.apps["Terminal"].windows[0]
    assert code == 0 and json.loads(out)["data"]["bounds"] == {"x": 0, "y": 25, "width": 1200, "height": 700}
    assert (w.x, w.y, w.w, w.h) == (0, 25, 1200, 700)
    # clipboard clear (new_peekaboo 10), set and get
    run(env, "printf 'clipboard seed' | pbcopy")
    out, code = run(env, "peekaboo clipboard --action clear --json")
    assert code == 0 and json.loads(out)["success"] and desk.clipboard.text == ""
    run(env, "peekaboo clipboard --action set --text 'from peekaboo'")
    assert desk.clipboard.text == "from peekaboo" and run(env, "peekaboo clipboard --action get")[0] == "from peekaboo\n"
    # app hide / quit
    assert run(env, "peekaboo app hide --app Terminal")[1] == 0 and desk.apps["Terminal"].hidden
    assert run(env, "peekaboo app quit --app Terminal")[1] == 0 and not desk.apps["Terminal"].running


def test_peekaboo_see_maps_and_annotates_elements_and_click_uses_the_map(env) -> None:
    run(env, "peekaboo app launch TextEdit")
    desk = env.backend.current_desktop()
    win = desk.apps["TextEdit"].windows[0]
    out, code = run(env, 'peekaboo see --app "TextEdit" --path "$HOME/Desktop/plain.png" --json')
    snap = json.loads(out)["data"]
    ids = {e["id"]: e for e in snap["ui_elements"]}
    assert code == 0 and {"B1", "B2", "B3", "T1"} <= set(ids) and ids["T1"]["role"] == "AXTextArea"
    assert ids["B1"]["title"] == "close" and snap["window_id"] == win.id
    plain = np.asarray(image(env, "Desktop/plain.png"))
    out, code = run(env, 'peekaboo see --app "TextEdit" --annotate --path "$HOME/Desktop/ann.png"')
    ann = np.asarray(image(env, "Desktop/ann.png"))
    assert code == 0 and "B1" in out and ann.shape == plain.shape == (win.h, win.w, 3)
    b = ids["T1"]["bounds"]
    x0, y0 = b["x"] - win.x, b["y"] - win.y
    assert tuple(ann[y0 + b["height"] // 2, x0]) == (255, 45, 85)  # the box edge drawn on the element
    assert not np.array_equal(ann, plain)
    assert files(env).read_text(".peekaboo/snapshots/latest.json")  # the map click --on reads
    # click --on the minimize button of the map: the window minimizes
    out, code = run(env, "peekaboo click --on B2")
    assert code == 0 and out.startswith("✅ Clicked B2 (minimize)") and win.minimized
    out, code = run(env, "peekaboo click --on B99")
    assert code == 1 and "not found in the latest snapshot" in out


def test_peekaboo_automation_failures(env) -> None:
    cases = [("peekaboo app launch Nonexistent", 1, "not found"), ("peekaboo app frob X", 64, "Unexpected argument"),
             ("peekaboo window set-bounds --app Finder --x 1", 64, "Missing expected argument"),
             ("peekaboo window resize --app Finder --width 10 --height 10", 1, "has no windows"),
             ("peekaboo press bogus", 64, "Unknown key 'bogus'"), ("peekaboo hotkey", 64, "--keys"),
             ("peekaboo type", 64, "<text>"), ("peekaboo sleep soon", 64, "whole number"),
             ("peekaboo clipboard --action paint", 64, "invalid for '--action'"),
             ("peekaboo click 'No Such Button Anywhere'", 1, "No element matching"),
             ("peekaboo open ~/missing.txt", 1, "File not found"), ("peekaboo menu list --app Finder", 64, "no 'menu'")]
    for cmd, status, needle in cases:
        out, code = run(env, cmd)
        assert code == status and needle in out, (cmd, out)
    out, code = run(env, "peekaboo type " + "x" * 5000 + " --json")  # long text: typed, bounded by the budget
    assert code == 0 and json.loads(out)["data"]["characters"] == 5000
    benign(env)


# ============================================================================================ blogwatcher
def _db(env) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.deserialize(files(env).read_bytes(".blogwatcher/blogwatcher.db"))
    return con


def test_blogwatcher_tracks_feeds_from_the_tasks_pages(env) -> None:
    out, code = run(env, "blogwatcher blogs")
    assert (out, code) == ("No blogs tracked yet. Use 'blogwatcher add' to add one.\n", 0)
    out, code = run(env, "blogwatcher add Tech https://tech.example.com/ && blogwatcher add Notes https://atom.example.org/"
                         " && blogwatcher add Scraped https://noscrape.example.net/ --scrape-selector 'article h2 a'")
    assert (out, code) == ("Added blog 'Tech'\nAdded blog 'Notes'\nAdded blog 'Scraped'\n", 0)
    out, code = run(env, "blogwatcher scan")
    assert code == 0
    assert out == ("Scanning 3 blog(s)...\n\n"
                   "  Notes\n    Source: RSS | Found: 1 | New: 1\n"
                   "  Scraped\n    Source: HTML | Found: 1 | New: 1\n"
                   "  Tech\n    Source: RSS | Found: 2 | New: 2\n\n"
                   "Found 4 new article(s) total!\n")
    # discovered feeds are remembered: <link rel=alternate> for Tech, the common path /atom.xml for Notes
    out, _ = run(env, "blogwatcher blogs")
    assert "  Tech\n    URL: https://tech.example.com/\n    Feed: https://tech.example.com/rss.xml\n" in out
    assert "    Feed: https://atom.example.org/atom.xml\n" in out and "    Selector: article h2 a\n" in out
    assert "Last scanned: 2026-03-10 09:00" in out  # the desktop's clock, not the host's
    out, _ = run(env, "blogwatcher scan --silent")
    assert out == "scan done\n"
    out, _ = run(env, "blogwatcher scan Tech")
    assert out == "  Tech\n    Source: RSS | Found: 2 | New: 0\n"

    con = _db(env)
    rows = con.execute("SELECT a.id, b.name, a.title, a.url, a.published_date, a.is_read FROM articles a "
                       "JOIN blogs b ON b.id = a.blog_id ORDER BY a.id").fetchall()
    titles = {r[2]: r for r in rows}
    assert set(titles) == {"First post", "Second post", "Atom one", "Scraped title"}
    assert titles["Second post"][3:5] == ("https://tech.example.com/p/2", "2026-03-03 10:00:00")
    assert titles["Scraped title"][3] == "https://noscrape.example.net/x"
    first = titles["First post"][0]

    out, code = run(env, "blogwatcher articles --blog Tech")
    assert code == 0 and out.startswith("Unread articles (2):\n\n")
    assert (f"  [{first}] [new] First post\n       Blog: Tech\n       URL: https://tech.example.com/p/1\n"
            "       Published: 2026-03-02\n") in out
    out, _ = run(env, "blogwatcher articles --category ai")
    assert "First post" in out and "Second post" not in out
    assert run(env, f"blogwatcher read {first}")[0] == f"Marked article {first} as read\n"
    assert run(env, f"blogwatcher read {first}")[0] == f"Article {first} is already marked as read.\n"
    out, _ = run(env, "blogwatcher articles")
    assert out.startswith("Unread articles (3):") and "First post" not in out
    assert f"[{first}] [read] First post" in run(env, "blogwatcher articles --all")[0]
    assert run(env, f"blogwatcher unread {first}")[0] == f"Marked article {first} as unread\n"
    # read-all asks on stdin; "n" keeps everything, "y" marks
    out, code = run(env, "echo n | blogwatcher read-all --blog Tech")
    assert (out, code) == ("Mark 2 article(s) from 'Tech' as read? [y/N]: \n", 0)  # the env ends the output's line
    out, code = run(env, "echo y | blogwatcher read-all")
    assert out == "Mark 4 article(s) all blogs as read? [y/N]: Marked 4 article(s) as read\n" and code == 0
    assert run(env, "blogwatcher articles")[0] == "No unread articles!\n"
    assert _db(env).execute("SELECT count(*) FROM articles WHERE is_read = 1").fetchone()[0] == 4
    out, code = run(env, "blogwatcher remove Tech -y")
    assert (out, code) == ("Removed blog 'Tech'\n", 0)
    assert _db(env).execute("SELECT count(*) FROM articles").fetchone()[0] == 2  # its articles went with it


def test_blogwatcher_errors_and_exit_codes(env) -> None:
    run(env, "blogwatcher add Tech https://tech.example.com/")
    cases = [
        ("blogwatcher add Tech https://other.example/", "Error: Blog with name 'Tech' already exists\n", 1),
        ("blogwatcher add Other https://tech.example.com/", "Error: Blog with URL 'https://tech.example.com/' already exists\n", 1),
        ("blogwatcher remove Nope -y", "Error: Blog 'Nope' not found\n", 1),
        ("blogwatcher scan Nope", "Error: Blog 'Nope' not found\n", 1),
        ("blogwatcher read 99", "Error: Article 99 not found\n", 1),
        ("blogwatcher read abc", "invalid article id: abc\n", 1),
        ("blogwatcher add OnlyName", "accepts 2 arg(s), received 1\n", 1),
        ("blogwatcher frob", "unknown command \"frob\" for \"blogwatcher\"\n\nRun 'blogwatcher --help' for usage.\n", 1),
        ("blogwatcher articles --bogus", "unknown flag: --bogus\n", 1),
        ("blogwatcher articles --blog Nope", "Error: Blog 'Nope' not found\n", 1),
    ]
    for cmd, expected, status in cases:
        assert run(env, cmd) == (expected, status), cmd
    out, code = run(env, "blogwatcher remove Tech </dev/null")  # no answer on stdin: the prompt, then EOF
    assert code == 1 and out.startswith("Remove blog 'Tech' and all its articles? [y/N]: ") and "EOF" in out
    run(env, "blogwatcher add Gone https://gone.example.com/ --feed-url https://gone.example.com/feed")
    out, code = run(env, "blogwatcher scan Gone")
    assert code == 0 and out == ("  Gone\n    Error: failed to fetch feed: Get \"https://gone.example.com/feed\": "
                                 "dial tcp: lookup gone.example.com: no such host\n")


def test_blogwatcher_attacks_bombs_huge_feeds_and_crafted_databases(module_env, tmp_path) -> None:
    laughs = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
              + ']><rss><channel><item><title>&lol9;</title><link>https://b/1</link></item></channel></rss>')
    many = ("<rss><channel>" + "".join(f"<item><title>t{i}</title><link>https://many.example/{i}</link></item>"
                                       for i in range(12_000)) + "</channel></rss>")
    pages = dict(PAGES, **{"https://bomb.example/feed": laughs, "https://huge.example/feed": "<rss>" + "x" * (5 * 2**20),
                           "https://many.example/feed": many})
    env = module_env
    env.reset(options={"task": _task(pages)})
    run(env, "blogwatcher add Bomb https://bomb.example/ --feed-url https://bomb.example/feed; "
             "blogwatcher add Huge https://huge.example/ --feed-url https://huge.example/feed; "
             "blogwatcher add Many https://many.example/ --feed-url https://many.example/feed")
    out, code = run(env, "blogwatcher scan")
    assert code == 0
    assert "  Bomb\n    Error: failed to parse feed: XML entity declarations are not allowed\n" in out
    assert "  Huge\n    Error: failed to fetch feed: the response has" in out
    assert "  Many\n    Source: RSS | Found: 10000 | New: 10000\n" in out  # at most 10,000 items a feed
    # a crafted database: garbage, then a symlink out of the home in its place
    files(env).write_bytes(".blogwatcher/blogwatcher.db", b"SQLite format 3\x00" + b"\xff" * 4000)
    out, code = run(env, "blogwatcher blogs")
    assert code == 1 and "not a blogwatcher database" in out
    victim = tmp_path / "victim.db"
    victim.write_bytes(b"precious")
    files(env).unlink(".blogwatcher/blogwatcher.db")
    files(env).symlink(str(victim), ".blogwatcher/blogwatcher.db")
    out, code = run(env, "blogwatcher add X https://x.example/")
    assert code == 1 and "symbolic link" in out
    assert victim.read_bytes() == b"precious"
    benign(env)


# ============================================================================================ gifgrep
def test_gifgrep_searches_the_declared_index(env) -> None:
    out, code = run(env, "gifgrep cats")
    # every word must match ("cats" finds "cat"); hits in the title rank first, then tags
    assert (out, code) == ("https://media.tenor.com/111/cat.gif\nhttps://media.tenor.com/333/sleep.gif\n"
                           "https://media.tenor.com/444/dog.gif\nhttps://media.tenor.com/555/nap.gif\n", 0)
    out, code = run(env, "gifgrep search --json cat --max 2")
    assert code == 0 and json.loads(out) == [
        {"id": "111", "title": "Happy cat dance", "url": "https://media.tenor.com/111/cat.gif",
         "preview_url": "https://media.tenor.com/111/tiny.gif", "tags": ["cat", "dance"], "width": 220, "height": 160},
        {"id": "333", "title": "sleepy cat", "url": "https://media.tenor.com/333/sleep.gif",
         "preview_url": "https://media.tenor.com/333/sleep.gif", "tags": ["cat"], "width": 200, "height": 200}]
    assert run(env, "gifgrep sleepy cat --format tsv -n")[0] == "1\tsleepy cat\thttps://media.tenor.com/333/sleep.gif\n"
    assert run(env, "gifgrep office --format md")[0] == "- [Office handshake](https://media.tenor.com/222/hand.gif)\n"
    assert run(env, "gifgrep office --format comment")[0] == "https://media.tenor.com/222/hand.gif  # Office handshake\n"
    # a page declared for the query itself answers it as it is
    assert run(env, "gifgrep Party")[0] == "https://media.tenor.com/222/hand.gif\n"
    assert run(env, "gifgrep zebra") == ("", 0)


def test_gifgrep_downloads_real_gifs_and_makes_stills_and_sheets(env) -> None:
    out, code = run(env, "gifgrep cat --download --max 2 -v")
    assert code == 0 and "saved /Users/user/Downloads/Happy_cat_dance.gif" in out
    cat = image(env, "Downloads/Happy_cat_dance.gif")
    assert (cat.format, cat.size, cat.n_frames) == ("GIF", (220, 160), 8)
    frames = [np.asarray(f.convert("RGB")) for f in __import__("PIL.ImageSequence", fromlist=["Iterator"]).Iterator(cat)]
    assert not np.array_equal(frames[0], frames[-1])  # animated
    run(env, "gifgrep cat --download --max 1")
    assert image(env, "Downloads/Happy_cat_dance-1.gif").size == (220, 160)  # no overwrite: -1 suffix
    # a GIF the task declares as a data: URL is downloaded byte for byte; --reveal shows it in Finder
    run(env, "gifgrep office --download --reveal")
    assert files(env).read_bytes("Downloads/Office_handshake.gif") == TINY_GIF
    desk = env.backend.current_desktop()
    finder = desk.apps["Finder"]
    assert desk.active is finder and finder.windows[0].state["selection"] == ["Office_handshake.gif"]
    out, code = run(env, "gifgrep sheet ~/Downloads/Happy_cat_dance.gif --frames 4 --padding 3 -o ~/sheet.png")
    sheet = image(env, "sheet.png")
    assert code == 0 and (sheet.format, sheet.size) == ("PNG", (2 * 220 + 3, 2 * 160 + 3))
    assert np.array_equal(np.asarray(sheet.convert("RGB"))[:160, :220], frames[0])
    out, code = run(env, "gifgrep still ~/Downloads/Office_handshake.gif --at 0.45s -o ~/still.png")
    still = np.asarray(image(env, "still.png").convert("RGB"))
    assert code == 0 and still.shape == (10, 12, 3) and tuple(still[5, 5]) == (0, 0, 255)  # frame 3 starts at 0.4 s
    out, code = run(env, "cd ~/Documents && gifgrep still https://media.tenor.com/444/dog.gif --at 0")
    assert code == 0 and image(env, "Documents/still.png").size == (100, 60)


def test_gifgrep_errors_and_exit_codes(env) -> None:
    assert run(env, "gifgrep search") == ("missing query\n", 1)
    out, code = run(env, "gifgrep cat --bogus")
    assert code == 2 and "gifgrep: error: unknown flag --bogus" in out
    out, code = run(env, "gifgrep cat --source myspace")
    assert code == 2 and 'must be one of "auto","klipy","tenor","giphy"' in out
    out, code = run(env, "gifgrep cat --source giphy")
    assert code == 1 and out == ('Get "https://api.giphy.com/v1/gifs/search?q=cat&limit=20": dial tcp: '
                                 "lookup api.giphy.com: no such host\n")
    out, code = run(env, "gifgrep still x.gif")
    assert code == 2 and "missing flags: --at=DURATION" in out
    assert run(env, "gifgrep still nope.gif --at 1") == ("gifgrep: open nope.gif: no such file or directory\n", 1)
    out, code = run(env, "gifgrep tui cats")
    assert code == 1 and "terminal" in out
    assert run(env, "gifgrep still https://unknown.example/a.gif --at 0")[1] == 1


def test_gifgrep_attacks_huge_index_bombs_and_symlinks(module_env, tmp_path) -> None:
    huge = json.dumps({"results": [{"id": str(i), "media_formats": {"gif": {"url": "u"}}} for i in range(120_000)]})
    giphy = json.dumps({"data": [{"id": "g1", "title": "giant cat", "images": {
        "original": {"url": "https://m/giant.gif", "width": "90000", "height": "90000"}}}]})
    env = module_env
    env.reset(options={"task": _task({"https://tenor.googleapis.com/v2/search": huge,
                                       "https://api.giphy.com/v1/gifs/search": giphy})})
    out, code = run(env, "gifgrep cat --source tenor")
    assert code == 1 and "120,000 results" in out
    env.backend.set_web_pages({"https://tenor.googleapis.com/v2/search": " " * (9 * 2**20),
                               "https://api.giphy.com/v1/gifs/search": giphy})
    out, code = run(env, "gifgrep cat --source tenor")
    assert code == 1 and "more than the 8,388,608" in out
    # a result claiming a 90000x90000 GIF is downloaded at a bounded size
    out, code = run(env, "gifgrep giant --source giphy --download")
    assert code == 0
    g = image(env, "Downloads/giant_cat.gif")
    assert max(g.size) <= 1024
    # a GIF whose header claims 30000x30000 pixels: refused before decoding
    bomb = bytearray(TINY_GIF)
    bomb[6:10] = (30000).to_bytes(2, "little") * 2
    files(env).write_bytes("bomb.gif", bytes(bomb))
    out, code = run(env, "gifgrep still ~/bomb.gif --at 0 -o ~/b.png")
    assert code == 1 and "image_pixels" in out and not files(env).exists("b.png")
    # ~/Downloads as a symlink out of the home: nothing is written through it
    outside = tmp_path / "out"
    outside.mkdir()
    files(env).rmtree("Downloads")
    files(env).symlink(str(outside), "Downloads")
    out, code = run(env, "gifgrep giant --source giphy --download")
    assert code == 1 and list(outside.iterdir()) == []
    files(env).symlink(str(tmp_path / "secret.gif"), "link.gif")
    (tmp_path / "secret.gif").write_bytes(TINY_GIF)
    out, code = run(env, "gifgrep still ~/link.gif --at 0 -o ~/s.png")
    assert code == 1 and "not a regular file" in out
    benign(env)


# ============================================================================================ songsee
def _tone(env, rel: str, segments: list[dict], rate: int = 22050) -> None:
    files(env).write_bytes(rel, tone_wav(segments, sample_rate=rate))


def _row_profile(panel: np.ndarray) -> np.ndarray:
    """Mean brightness per row, bottom row first."""
    return panel.astype(float).mean(axis=(1, 2))[::-1]


def test_songsee_writes_the_default_jpeg_beside_the_input(env) -> None:
    files(env).mkdir("Music", exist_ok=True)
    _tone(env, "Music/a440.wav", [{"freq": 440, "seconds": 1.0}])
    out, code = run(env, "songsee ~/Music/a440.wav")
    assert (out, code) == ("/Users/user/Music/a440.jpg\n", 0)
    jpg = image(env, "Music/a440.jpg")
    assert (jpg.format, jpg.size) == ("JPEG", (1920, 1080))
    out, code = run(env, "cd ~/Music && songsee a440.wav -o spec --format png -q")
    assert (out, code) == ("", 0) and image(env, "Music/spec").format == "PNG"  # --format given: no extension added
    out, code = run(env, "cd ~/Music && songsee a440.wav -o spec2 -v")
    assert code == 0 and out.startswith("spec2.jpg\n") and "decoded: 22050 samples @ 22050 Hz" in out


def test_songsee_spectrogram_and_chroma_show_the_tones_frequency(env) -> None:
    _tone(env, "a.wav", [{"freq": 440, "seconds": 1.5}])
    out, code = run(env, "songsee a.wav -o spec.png --style gray --width 300 --height 400 --max-freq 2000")
    assert code == 0, out
    prof = _row_profile(np.asarray(image(env, "spec.png")))
    assert abs(int(np.argmax(prof)) - 440 / 2000 * 400) <= 4  # the bright row sits at 440 Hz
    out, code = run(env, "songsee a.wav -o chroma.png --viz chroma --style gray --width 120 --height 240")
    prof = _row_profile(np.asarray(image(env, "chroma.png")))
    bands = [prof[k * 20:(k + 1) * 20].mean() for k in range(12)]
    assert code == 0 and int(np.argmax(bands)) == 9  # pitch class A (C at the bottom)
    # a tone, then silence: loudness is high on the left, low on the right
    _tone(env, "ts.wav", [{"freq": 300, "seconds": 1.0}, {"freq": 0, "seconds": 1.0}])
    run(env, "songsee ts.wav -o loud.png --viz loudness --style gray --width 200 --height 100")
    loud = np.asarray(image(env, "loud.png")).astype(float).max(axis=2)
    ys_left = np.nonzero(loud[:, 40])[0]
    ys_right = np.nonzero(loud[:, 170])[0]
    assert ys_left.size and ys_right.size and ys_left.mean() < 20 and ys_right.mean() > 80


def test_songsee_grid_of_every_visualisation(env) -> None:
    _tone(env, "mix.wav", [{"freq": 440, "seconds": 0.7}, {"freq": [523.25, 659.25], "seconds": 0.7}])
    viz = "spectrogram,mel,chroma,hpss,selfsim,loudness,tempogram,mfcc --viz flux"
    out, code = run(env, f"songsee mix.wav -o grid.png --viz {viz} --width 616 --height 616 --style magma")
    assert code == 0, out
    grid = np.asarray(image(env, "grid.png"))
    assert grid.shape == (616, 616, 3)
    # 9 panels: 3 x 3 cells of 200 px with 8 px black gaps between them
    assert grid[:, 200:208].max() == 0 and grid[200:208, :].max() == 0 and grid[:, 408:416].max() == 0
    for r in range(3):
        for c in range(3):
            cell = grid[r * 208:r * 208 + 200, c * 208:c * 208 + 200]
            assert cell.max() > 0, (r, c)  # every panel drew something


def test_songsee_errors_and_exit_codes(env) -> None:
    _tone(env, "a.wav", [{"freq": 440, "seconds": 0.5}])
    for bad, msg in (("--window 1000", "--window must be a power of two"), ("--style neon", "unknown style"),
                     ("--viz nope", "unknown viz: nope"), ("--format gif", "--format must be jpg or png"),
                     ("--width 0", "--width and --height must be > 0"), ("--min-freq 500 --max-freq 100",
                                                                         "--max-freq must be > --min-freq"),
                     ("--bogus", "unknown flag --bogus")):
        out, code = run(env, f"songsee a.wav {bad}")
        assert code == 2 and out.startswith(f"songsee: {msg}\nUsage: songsee <input> [flags]"), (bad, out)
    assert run(env, "songsee missing.wav") == ("songsee: open missing.wav: no such file or directory\n", 1)
    files(env).write_bytes("song.mp3", b"ID3\x03\x00" + b"\x00" * 200)
    out, code = run(env, "songsee song.mp3")  # the shell function hands it to ffmpeg, which cannot decode it
    assert code == 1 and "songsee: decode song.mp3: ffmpeg could not decode the file" in out
    files(env).write_text("notes.txt", "not audio")
    out, code = run(env, "songsee notes.txt")
    assert code == 1 and "songsee: decode notes.txt: ffmpeg could not decode the file" in out
    out, code = run(env, "songsee a.wav --start 10")
    assert code == 1 and "beyond the end" in out
    out, code = run(env, "songsee - < a.wav")
    assert code == 1 and "stdin" in out


def test_songsee_decodes_mp3_with_the_sandboxs_ffmpeg_as_the_public_tasks_need(env, tmp_path) -> None:
    out, code = run(env, 'ffmpeg -nostdin -loglevel error -f lavfi -i "sine=frequency=440:duration=3" '
                         '-c:a libmp3lame -b:a 64k "$HOME/Desktop/Ode to Joy.mp3"')
    assert code == 0, out
    # new_songsee 1, 3 and 9: default, a slice, many panels with every flag
    assert run(env, 'songsee "$HOME/Desktop/Ode to Joy.mp3" -o "$HOME/Desktop/songsee_spectrogram_1.png"') == (
        "/Users/user/Desktop/songsee_spectrogram_1.png\n", 0)
    assert image(env, "Desktop/songsee_spectrogram_1.png").size == (1920, 1080)
    out, code = run(env, 'songsee "$HOME/Desktop/Ode to Joy.mp3" --viz spectrogram,mel,chroma,mfcc --start 1 --duration '
                         "1.5 --style magma --width 1600 --height 900 --window 4096 --hop 512 --min-freq 80 "
                         '--max-freq 8000 --format png -o "$HOME/Desktop/songsee_combo_1.png"')
    assert code == 0 and image(env, "Desktop/songsee_combo_1.png").size == (1600, 900)
    out, code = run(env, 'cd ~/Desktop && songsee "Ode to Joy.mp3" --start 0.5 --duration 1 -v')
    assert code == 0 and out.startswith("Ode to Joy.jpg\n")  # named after the MP3, beside it
    assert "decoded: 132300 samples @ 44100 Hz" in out and "slice: 0.50s + 1.00s => 44100 samples" in out
    out, code = run(env, 'songsee "$HOME/Desktop/Ode to Joy.mp3" -o ~/mp3spec.png --style gray --width 300 '
                         "--height 400 --max-freq 2000 --sample-rate 22050")
    prof = _row_profile(np.asarray(image(env, "mp3spec.png")))
    assert code == 0 and abs(int(np.argmax(prof)) - 440 / 2000 * 400) <= 4  # the tone survives MP3 and ffmpeg
    assert [e.name for e in files(env).listdir("Library/Caches/songsee")] == []  # the decoded WAVE is removed
    # the decode folder as a symlink out of the home: the host does not read through it
    outside = tmp_path / "caches"
    outside.mkdir()
    files(env).rmtree("Library/Caches/songsee")
    files(env).symlink(str(outside), "Library/Caches/songsee")
    out, code = run(env, 'songsee "$HOME/Desktop/Ode to Joy.mp3" -o ~/z.png')
    assert code == 1 and not files(env).exists("z.png")
    benign(env)


def test_songsee_attacks_huge_images_long_stfts_and_symlinks(env, tmp_path) -> None:
    _tone(env, "a.wav", [{"freq": 440, "seconds": 3.0}])
    out, code = run(env, "songsee a.wav --width 20000 --height 20000")
    assert code == 1 and "image_pixels" in out and not files(env).exists("a.jpg")
    out, code = run(env, "songsee a.wav --hop 1")  # 1 + (66,150 - 2,048) frames x 1,025 bins: refused before the work
    assert code == 1 and "64,103 frames x 1,025 bins is more than the 32,000,000 cells" in out
    victim = tmp_path / "victim.jpg"
    victim.write_bytes(b"precious")
    files(env).symlink(str(victim), "out.jpg")
    out, code = run(env, "songsee a.wav -o ~/out.jpg")
    assert code == 1 and "symbolic link" in out and victim.read_bytes() == b"precious"
    (tmp_path / "secret.wav").write_bytes(files(env).read_bytes("a.wav"))
    files(env).symlink(str(tmp_path / "secret.wav"), "in.wav")
    out, code = run(env, "songsee ~/in.wav -o x.png")
    assert code == 1 and "not a regular file" in out
    benign(env)


# ============================================================================================ SKILL.md
def test_each_cli_has_its_skill_md_in_the_home_and_the_hybrid_prompt(env) -> None:
    for name in ("peekaboo", "blogwatcher", "gifgrep", "songsee"):
        out, code = run(env, f"cat ~/.openclaw/skills/{name}/SKILL.md")
        assert code == 0 and out.startswith(f"---\nname: {name}\n"), out[:200]
        assert f'"requires": {{"bins": ["{name}"]}}' in out
        # every command line the skill shows in backticks starts with its CLI, which the shell has
        shown = re.findall(r"`((?:peekaboo|blogwatcher|gifgrep|songsee)\b[^`]*)`", out)
        assert shown and all(s.split()[0] == name for s in shown)
    names = {s.name for s in env.backend.skills()}
    assert {"peekaboo", "blogwatcher", "gifgrep", "songsee"} <= names
    assert "<name>songsee</name>" in env.action_description("hybrid")


def test_the_docs_example_pages_work_with_blogwatcher_and_gifgrep(module_env) -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "macagent.md").read_text(encoding="utf-8")
    section = text[text.index("### peekaboo, blogwatcher, gifgrep, songsee"):]
    pages = json.loads(re.search(r"```json\n(.*?)```\n", section, re.DOTALL).group(1))["web_pages"]
    env = module_env
    env.reset(options={"task": _task(pages)})
    out, code = run(env, "blogwatcher add Blog https://blog.example.com/ && blogwatcher scan -s && blogwatcher articles")
    assert code == 0 and "[1] [new] Hello\n       Blog: Blog\n       URL: https://blog.example.com/hello\n" in out
    assert run(env, "gifgrep cats") == ("https://media.tenor.com/7/cat.gif\n", 0)


def test_a_task_over_the_four_clis_is_solved_by_its_reference_and_not_by_done(module_env) -> None:
    py = "python3 -c "
    task = _task()
    task.update(
        id="skills-b-e2e", apps=["Safari", "TextEdit", "peekaboo", "blogwatcher", "gifgrep", "songsee"],
        instruction="Follow the Tech blog and mark its first post read, download the office handshake GIF, save a "
                    "spectrogram of ~/Music/tone.wav as ~/Desktop/spec.png and a capture of TextEdit as ~/Desktop/te.png.",
        setup=[{"type": "file", "path": "~/Music/tone.wav", "generator": {"name": "wav", "args": {"tones": [
            {"freq": 440, "seconds": 1.0}]}}}, {"type": "open_app", "app": "TextEdit"}],
        checkpoints=[
            {"name": "one unread post left", "tag": "app_state",
             "getter": {"type": "shell", "command": py + "\"import sqlite3; c = sqlite3.connect('/Users/user/.blogwatcher/"
                                                         "blogwatcher.db'); print(c.execute('select title from articles "
                                                         "where is_read = 0').fetchall())\""},
             "metric": {"type": "equals", "expected": "[('Second post',)]"}},
            {"name": "gif downloaded", "tag": "file_ops",
             "getter": {"type": "shell", "command": py + "\"from PIL import Image; im = Image.open('/Users/user/Downloads/"
                                                         "Office_handshake.gif'); print(im.format, im.n_frames)\""},
             "metric": {"type": "equals", "expected": "GIF 3"}},
            {"name": "spectrogram", "tag": "file_ops",
             "getter": {"type": "shell", "command": py + "\"from PIL import Image; im = Image.open('/Users/user/Desktop/"
                                                         "spec.png'); print(im.format, im.size)\""},
             "metric": {"type": "equals", "expected": "PNG (800, 400)"}},
            {"name": "capture", "tag": "file_ops",
             "getter": {"type": "shell", "command": "peekaboo list windows --app TextEdit --include-details bounds -j | "
                                                    + py + "\"import json, sys; b = json.load(sys.stdin)['data']['windows']"
                                                           "[0]['bounds']; from PIL import Image; "
                                                           "print(Image.open('/Users/user/Desktop/te.png').size == "
                                                           "(b['width'], b['height']))\""},
             "metric": {"type": "equals", "expected": "True"}},
        ],
        reference_solution=[
            "```bash\nblogwatcher add Tech https://tech.example.com/ && blogwatcher scan Tech >/dev/null && "
            "blogwatcher read \"$(blogwatcher articles | grep -F 'First post' | sed 's/^ *\\[\\([0-9]*\\)\\].*/\\1/')\"\n```",
            "```bash\ngifgrep office handshake --download --max 1\n```",
            "```bash\nsongsee ~/Music/tone.wav -o ~/Desktop/spec.png --width 800 --height 400\n```",
            "```bash\npeekaboo image --app TextEdit --path ~/Desktop/te.png\n```",
        ])
    env = module_env
    obs, info = env.reset(options={"task": task})
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(env.oracle_action(obs, info))
        done = terminated or truncated
    assert info["success"] and info["score"] == 1.0, info["checkpoints"]
    env.reset(options={"task": task})
    *_, info = env.step("DONE")
    assert info["score"] == 0.0, info["checkpoints"]
