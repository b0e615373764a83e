"""Issue 14 classes 1 and 2 in the sim's document and data apps, attacked as an agent would.

Every attack goes through ``env.step`` on ``gym.make("MacAgent-v0")``: a ```bash block plants a symlink
to a canary outside the home (a file or a folder), a FIFO, a link to /dev/zero or /proc/self/environ, a
folder where a file is expected or a 200 MB sparse file; then an app opens, saves, exports or lists it
through AppleScript, its CLI or a URL. Each step must keep the canary's content out of the observation,
info, a11y tree and app state, leave the canary unchanged, show no host path, end within the step's
deadline plus a margin, and the next benign step must work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mmenvs  # noqa: F401 - registers the envs
from _attacks import macagent_env  # noqa: F401  (the module's env fixture)
from _attacks import STEP_BOUND_S, assert_no_leak, canary_snapshot, home_host_paths, make_canary, seen_texts, timed_step

SECRET = "CANARY-7f3e-host-secret"
SECRET_NAME = "canary-entry-4b1d"  # a file name in the canary folder: never listed by an app
ENV_SECRET = "CANARY-env-91ac"  # in the host process's environment (/proc/self/environ)
DOCS = "/Users/user/Documents"

PLANTS = {
    "link to a host file": "ln -s {canary} {target}",
    "FIFO": "mkfifo {target}",
    "link to /dev/zero": "ln -s /dev/zero {target}",
    "link to /proc/self/environ": "ln -s /proc/self/environ {target}",
    "folder": "mkdir {target}",
    "200 MB sparse file": "truncate -s 200M {target}",
}

# opener: (file name in ~/Documents, the action that opens it, the app whose state is checked)
OPENERS = {
    "TextEdit AppleScript": ("x.txt", f'```applescript\ntell application "TextEdit" to open POSIX file "{DOCS}/x.txt"\n```',
                             "TextEdit"),
    "TextEdit open -a": ("x.txt", "```bash\nopen -a TextEdit ~/Documents/x.txt\n```", "TextEdit"),
    "Pages AppleScript": ("x.pages", f'```applescript\ntell application "Pages" to open POSIX file "{DOCS}/x.pages"\n```',
                          "Pages"),
    "Keynote AppleScript": ("x.key", f'```applescript\ntell application "Keynote" to open POSIX file "{DOCS}/x.key"\n```',
                            "Keynote"),
    "Numbers AppleScript": ("x.numbers", f'```applescript\ntell application "Numbers" to open POSIX file "{DOCS}/x.numbers"\n```',
                            "Numbers"),
    "Numbers CSV import": ("x.csv", "```bash\nopen -a Numbers ~/Documents/x.csv\n```", "Numbers"),
    "VS Code CLI": ("x.txt", "```bash\ncode ~/Documents/x.txt\n```", "Visual Studio Code"),
    "Safari file URL": ("x.html", f'```applescript\ntell application "Safari" to open location "file://{DOCS}/x.html"\n```',
                        "Safari"),
    "Obsidian URL": ("Vault/x.md", "```bash\nopen 'obsidian://open?vault=Vault&file=x'\n```", "Obsidian"),
}

REGISTER_VAULT = ("mkdir -p ~/Documents/Vault/.obsidian \"$HOME/Library/Application Support/obsidian\"\n"
                  "printf '%s' '{\"vaults\": {\"v1\": {\"path\": \"/Users/user/Documents/Vault\", \"open\": true}}}' "
                  "> \"$HOME/Library/Application Support/obsidian/obsidian.json\"\n")


@pytest.fixture
def canary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A host file and a host folder outside the home, holding the secret."""
    monkeypatch.setenv("MMENVS_TEST_CANARY", ENV_SECRET)
    return make_canary(tmp_path, SECRET, SECRET_NAME)


def fresh(env) -> None:
    env.reset(options={"task_id": "terminal-count-errors-v2"})


def plant(env, script: str) -> None:
    obs, *_ = timed_step(env, f"```bash\n{script}\necho planted\n```")
    assert "planted" in obs["text"], obs["text"]


def assert_nothing_leaked(env, obs: dict, info: dict, elapsed: float, before: Any, canary: dict[str, Any],
                          app: str | None = None) -> None:
    state = json.dumps(env.unwrapped.backend.app_state(app), default=str) if app else ""
    assert_no_leak(seen_texts(obs, info, state), (SECRET, ENV_SECRET, SECRET_NAME),
                   {*home_host_paths(env.unwrapped), str(canary["root"])}, "the step")
    assert canary_snapshot(canary) == before, "the host canary changed"
    assert elapsed < STEP_BOUND_S, f"the step took {elapsed:.1f} s"
    after, *_ = timed_step(env, "```bash\necho benign-step-ok\n```")
    assert "benign-step-ok" in after["text"], after["text"]


@pytest.mark.parametrize("kind", list(PLANTS))
@pytest.mark.parametrize("opener", list(OPENERS))
def test_opening_a_planted_file_never_follows_blocks_or_reads_unbounded(env, canary, opener: str, kind: str) -> None:
    fresh(env)
    name, action, app = OPENERS[opener]
    target = f"~/Documents/{name}"
    setup = REGISTER_VAULT if name.startswith("Vault/") else ""
    plant(env, setup + PLANTS[kind].format(canary=canary["file"], target=target))
    before = canary_snapshot(canary)
    obs, info, _ended, elapsed = timed_step(env, action)
    assert_nothing_leaked(env, obs, info, elapsed, before, canary, app)
    assert "Traceback" not in obs["text"] and "internal error" not in obs["text"].lower()


def _applescript(text: str) -> str:
    return f"```applescript\n{text}\n```"


# writer: (the file name planted as a link to the canary file, the steps that write there, the app)
WRITERS = {
    "TextEdit save": ("w.txt", [_applescript('tell application "TextEdit" to make new document with properties {text:"overwrite"}'),
                                _applescript(f'tell application "TextEdit" to save document 1 in POSIX file "{DOCS}/w.txt"')],
                      "TextEdit"),
    "Pages save": ("w.pages", [_applescript('tell application "Pages" to make new document'),
                               _applescript(f'tell application "Pages" to save document 1 in POSIX file "{DOCS}/w.pages"')],
                   "Pages"),
    "Pages export PDF": ("w.pdf", [_applescript('tell application "Pages" to make new document'),
                                   _applescript(f'tell application "Pages" to export document 1 to POSIX file "{DOCS}/w.pdf" as PDF')],
                         "Pages"),
    "Pages export text": ("w.txt", [_applescript('tell application "Pages" to make new document'),
                                    _applescript(f'tell application "Pages" to export document 1 to POSIX file "{DOCS}/w.txt" '
                                                 "as unformatted text")], "Pages"),
    "Keynote export PowerPoint": ("w.pptx", [_applescript('tell application "Keynote" to make new document'),
                                             _applescript(f'tell application "Keynote" to export document 1 to POSIX file '
                                                          f'"{DOCS}/w.pptx" as Microsoft PowerPoint')], "Keynote"),
    "Numbers export CSV": ("w.csv", [_applescript('tell application "Numbers" to make new document'),
                                     _applescript(f'tell application "Numbers" to export document 1 to POSIX file "{DOCS}/w.csv" as CSV')],
                           "Numbers"),
    "Numbers save": ("w.numbers", [_applescript('tell application "Numbers" to make new document'),
                                   _applescript(f'tell application "Numbers" to save document 1 in POSIX file "{DOCS}/w.numbers"')],
                     "Numbers"),
    "Obsidian new note over a link": ("Vault/w.md", ["```bash\nopen 'obsidian://new?vault=Vault&file=w&content=overwrite&overwrite=true'\n```"],
                                      "Obsidian"),
    "Safari History.db": ("../Library/Safari/History.db",
                          [_applescript('tell application "Safari" to open location "https://www.apple.com/"')], "Safari"),
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_saving_or_exporting_onto_a_link_never_writes_the_host_file(env, canary, writer: str) -> None:
    fresh(env)
    name, actions, app = WRITERS[writer]
    setup = REGISTER_VAULT if name.startswith("Vault/") else ""
    plant(env, setup + f"mkdir -p ~/Library/Safari; rm -f ~/Documents/{name}; ln -s {canary['file']} ~/Documents/{name}")
    before = canary_snapshot(canary)
    for action in actions:
        obs, info, _ended, elapsed = timed_step(env, action)
        assert_nothing_leaked(env, obs, info, elapsed, before, canary, app)
    assert canary["file"].read_text() == SECRET + "\n"


# a symlinked folder where an app lists, writes into, or makes a vault / workspace
FOLDER_ATTACKS = {
    "VS Code opens a linked folder": ("```bash\nln -s {dir} ~/Documents/linked\ncode ~/Documents/linked\n```", "Visual Studio Code"),
    "Obsidian vault is a linked folder": (
        "```bash\nmkdir -p \"$HOME/Library/Application Support/obsidian\"\nln -s {dir} ~/Documents/LinkVault\n"
        "printf '%s' '{{\"vaults\": {{\"v2\": {{\"path\": \"/Users/user/Documents/LinkVault\", \"open\": true}}}}}}' "
        "> \"$HOME/Library/Application Support/obsidian/obsidian.json\"\n"
        "open 'obsidian://new?vault=LinkVault&file=planted&content=x'\n```", "Obsidian"),
    "Obsidian note in a linked subfolder": (
        "```bash\n" + REGISTER_VAULT.replace("{", "{{").replace("}", "}}") + "ln -s {dir} ~/Documents/Vault/sub\n"
        "open 'obsidian://new?vault=Vault&file=sub/planted&content=x'\n```", "Obsidian"),
    "Keynote slide images into a linked folder": (
        "```applescript\ntell application \"Keynote\"\nmake new document\n"
        f"do shell script \"ln -s {{dir}} {DOCS}/slides\"\n"
        f"export document 1 to POSIX file \"{DOCS}/slides\" as slide images\nend tell\n```", "Keynote"),
    "Numbers CSV folder export into a linked folder": (
        "```applescript\ntell application \"Numbers\"\nmake new document\n"
        "tell document 1 to tell sheet 1 to make new table\n"
        f"do shell script \"ln -s {{dir}} {DOCS}/w\"\n"
        f"export document 1 to POSIX file \"{DOCS}/w.csv\" as CSV\nend tell\n```", "Numbers"),
}


@pytest.mark.parametrize("attack", list(FOLDER_ATTACKS))
def test_a_symlinked_folder_is_never_listed_or_written_through(env, canary, attack: str) -> None:
    fresh(env)
    action, app = FOLDER_ATTACKS[attack]
    before = canary_snapshot(canary)
    obs, info, _ended, elapsed = timed_step(env, action.format(dir=canary["folder"]))
    assert_nothing_leaked(env, obs, info, elapsed, before, canary, app)
    assert sorted(p.name for p in canary["folder"].iterdir()) == [SECRET_NAME]


def test_a_linked_weather_pin_file_is_a_server_error_not_a_read(env, canary) -> None:
    fresh(env)
    pins = "~/Library/Containers/com.apple.weather/Data/Library/Caches/ForecastPins.json"
    plant(env, f"mkdir -p $(dirname {pins}); ln -s {canary['file']} {pins}")
    before = canary_snapshot(canary)
    obs, info, _ended, elapsed = timed_step(env, "```bash\ncurl -s wttr.in/Paris?format=3; echo code=$?\n```")
    # (no app state: Weather's state raises on a bad pin file, as before this issue; class 5's concern)
    assert_nothing_leaked(env, obs, info, elapsed, before, canary)
    assert "symbolic link" in obs["text"], obs["text"]


def test_gh_body_file_through_a_link_is_refused(env, canary) -> None:
    fresh(env)
    plant(env, f"ln -s {canary['file']} ~/body.md")
    before = canary_snapshot(canary)
    obs, info, _ended, elapsed = timed_step(env, "```bash\ngh issue create -R openclaw/openclaw --title t --body-file ~/body.md; echo code=$?\n```")
    assert_nothing_leaked(env, obs, info, elapsed, before, canary)
    assert "code=1" in obs["text"] and "symbolic link" in obs["text"], obs["text"]


def test_an_app_error_names_the_file_as_the_agent_knows_it(env, canary) -> None:
    """The refusal is a clear app error (the AppleScript error names ~/Documents/…), not a crash."""
    fresh(env)
    plant(env, f"ln -s {canary['file']} ~/Documents/x.pages")
    obs, *_ = timed_step(env, OPENERS["Pages AppleScript"][1])
    assert "could not be opened" in obs["text"] and "~/Documents/x.pages" in obs["text"], obs["text"]
    assert "symbolic link" in obs["text"], obs["text"]


@pytest.mark.parametrize("name", ["../../../../escape", "a/b", ".."])
def test_a_slide_image_name_is_a_name_not_a_path(env, canary, name: str) -> None:
    """Keynote names slide images after the document: a name that is a path never leaves the folder."""
    fresh(env)
    before = canary_snapshot(canary)
    obs, info, _ended, elapsed = timed_step(env, _applescript(
        f'tell application "Keynote"\nset d to make new document with properties {{name:"{name}"}}\n'
        f'export d to POSIX file "{DOCS}/imgs" as slide images\nend tell'))
    assert_nothing_leaked(env, obs, info, elapsed, before, canary, "Keynote")
    home = Path(env.unwrapped._home)
    images = [p for p in home.parent.rglob("*.png")]  # the env's private folder around the home
    assert all(p.parent == home / "Documents" / "imgs" for p in images), images
