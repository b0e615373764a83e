"""The public MacAgentBench task format: import a user's checkout of the benchmark's ``task/`` folder.

``gym.make("MacAgent-v0", suite="official", official_dir=PATH)`` runs the tasks of ``PATH`` (the
``task/`` folder, or the checkout holding it), one file a task: ``task/<app>/<N>_<k>.json``. Nothing of
that repository ships here: this module only reads the format and translates each file into our own
task format (``tasks.py``), which then validates it as any task file.

The translation, field by field:

* **id** — from the file's path (``keynote/6_1.json`` → ``keynote_6_1``): the public set repeats
  three of its own ``id`` values, so the path is the only unique name. The file's ``id`` is kept in
  the task's ``metadata``.
* **config** — setup. A ``cmd`` step's commands run in the episode's shell, one setup step each; as
  the public harness does, a failing command does not stop the setup: it is tolerated and reported
  (``info["setup_notes"]``). The named seeding helpers (``new_apple_notes_seed_folder[_and_note]``,
  ``pages_create_new_doc``, ``pages_init_content``, ``numbers_init_table``) become AppleScript steps
  that do what the helper's name and parameters say.
* **evaluator** — ``func[i]`` with ``parameters[i]`` and ``expected[i]`` becomes checkpoint ``i``: the
  python getter ``official_check`` runs our implementation of that check (:data:`CHECKS`, written from
  the check's name and parameters, reading the desktop only through the backend: shell, AppleScript)
  and the rule ``is_true``/``is_false`` becomes the metric ``truthy``/``falsy``. ``conj: "and"`` is our
  scoring (every checkpoint must pass); ``conj: "or"`` becomes one checkpoint over all the checks.
* **reference_command** — the oracle's solution (one fenced bash action). Tasks that have none (the
  iWork tasks) get one derived from their checks' parameters (:data:`ORACLES`, AppleScript), and the
  speech-synthesis tasks, whose reference needs a model that cannot ship, use the sim's ``say``.
* **assets** the public harness's machine image has (``~/Desktop/Ode to Joy.mp3``, the octopus GIF in
  ``~/Downloads``, ``benchmark_source.mp4``) and the network feeds and GIF search the tasks read are
  made here: a file setup step of a generated tone recording, GIF or video, and offline ``web_pages``
  for each feed URL and GIF query the task names (our own generated text).
* **skills** — which skill CLIs the task's reference command uses (:data:`SKILL_COMMANDS`), so
  ``info["task_meta"]["skill_covered"]`` splits results as the paper's Table 4 does.

A task that cannot be translated (an unknown check, helper or rule, a speech-recognition model) is
skipped with the reason: :func:`load_official` returns both lists, ``mmenvs list MacAgent-v0 --details
--official-dir PATH`` prints them, and :func:`verify_official` runs each imported task with its oracle
and with ``DONE`` alone (``--verify``).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from mmenvs.core import load_json
from mmenvs.macagent.checkpoints import GetterContext, GetterError, getter, parse_datetime, shell_path
from mmenvs.macagent.checkpoints.context import applescript_string, osascript_list
from mmenvs.macagent.tasks import SeedTask, TaskFormatError, validate_seed

#: The reference time of every official task (the public tasks' dates are in April 2026).
REFERENCE_TIME = "2026-04-14T09:00:00"
#: The largest task file read, in bytes.
MAX_TASK_BYTES = 1 << 20
#: Seconds an ``expected_command`` (a check that compares with a live command's output) may run.
LIVE_TIMEOUT = 60.0
#: The largest file a check reads from the home, in bytes.
MAX_READ_BYTES = 16 << 20

#: ``related_apps`` names → our app names (``terminal_no_reset``: the Terminal the harness keeps open).
APP_NAMES = {
    "notes": "Notes", "reminders": "Reminders", "keynote": "Keynote", "numbers": "Numbers", "pages": "Pages",
    "obsidian": "Obsidian", "safari": "Safari", "textedit": "TextEdit", "terminal": "Terminal",
    "terminal_no_reset": "Terminal", "finder": "Finder", "mail": "Mail", "calendar": "Calendar",
}
#: Task folders → our categories.
CATEGORIES = {
    "keynote": "Productivity", "numbers": "Productivity", "pages": "Productivity",
    "new_apple_notes": "Productivity", "new_reminders": "Productivity", "new_obsidian": "Productivity",
    "new_himalaya": "Internet", "new_blogwatcher": "Internet", "new_github": "Development",
    "new_weather": "Internet", "new_clawhub": "Development", "new_tmux": "Development",
    "new_peekaboo": "System", "new_gifgrep": "Multimedia", "new_songsee": "Multimedia",
    "new_video_frames": "Multimedia", "new_whisper": "Multimedia", "new_sherpa_onnx_tts": "Multimedia",
}
#: A command word in a reference command → the skill (the CLI the skill documents) that covers the task.
SKILL_COMMANDS = {
    "memo": "memo", "remindctl": "remindctl", "obsidian-cli": "obsidian-cli", "himalaya": "himalaya",
    "clawhub": "clawhub", "peekaboo": "peekaboo", "blogwatcher": "blogwatcher", "gifgrep": "gifgrep",
    "songsee": "songsee", "gh": "gh", "tmux": "tmux", "ffmpeg": "ffmpeg", "whisper": "whisper",
    "sherpa-onnx-tts.cjs": "sherpa-onnx-tts", "wttr.in": "weather", "open-meteo.com": "weather",
}


class OfficialSkip(Exception):
    """A task file that cannot be translated; the message is the reason."""


@dataclass(frozen=True)
class SkippedTask:
    """A task left out of the import: its id, its file and why."""

    id: str
    path: str
    reason: str


@dataclass
class OfficialSuite:
    """What :func:`load_official` read: the imported seeds (one concrete task each) and the skipped files."""

    folder: Path
    seeds: list[SeedTask] = field(default_factory=list)
    skipped: list[SkippedTask] = field(default_factory=list)
    oracle: dict[str, str] = field(default_factory=dict)  # task id -> "reference_command" | "derived" | "sim-native" | "none"

    @property
    def total(self) -> int:
        return len(self.seeds) + len(self.skipped)

    def summary_lines(self) -> list[str]:
        """The import report: counts, the oracle kinds, each skipped task with its reason."""
        lines = [f"official tasks in {self.folder}: {self.total}; importable {len(self.seeds)}, skipped {len(self.skipped)}"]
        kinds: dict[str, int] = {}
        for kind in self.oracle.values():
            kinds[kind] = kinds.get(kind, 0) + 1
        if kinds:
            lines.append("  oracle solutions: " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))
        for skip in self.skipped:
            lines.append(f"  skipped {skip.id} ({skip.path}): {skip.reason}")
        return lines


# ---------------------------------------------------------------------------------------------- loading
def task_folder(path: str | Path) -> Path:
    """The ``task/`` folder of a checkout (``path`` itself when it holds ``<app>/*.json`` files)."""
    path = Path(path)
    if not path.is_dir():
        raise TaskFormatError(f"{path}: official_dir must be a folder (the benchmark's task/ folder or its checkout)")
    if (path / "task").is_dir():
        path = path / "task"
    return path


def official_id(app: str, stem: str) -> str:
    """The task id of ``task/<app>/<stem>.json``."""
    return re.sub(r"[^a-z0-9_-]+", "_", f"{app}_{stem}".lower()).strip("_-")


def load_official(path: str | Path) -> OfficialSuite:
    """Translate every ``<app>/<name>.json`` under ``path``; files that cannot be translated are skipped
    with the reason (never an exception for one bad file)."""
    folder = task_folder(path)
    suite = OfficialSuite(folder)
    files = sorted(p for p in folder.glob("*/*.json") if p.is_file() and not p.is_symlink())
    if not files:
        raise TaskFormatError(f"{folder}: no official task files (<app>/<name>.json) found")
    for file in files:
        app, stem = file.parent.name, file.stem
        task_id = official_id(app, stem)
        rel = f"{app}/{file.name}"
        try:
            if file.stat().st_size > MAX_TASK_BYTES:
                raise OfficialSkip(f"the file is larger than {MAX_TASK_BYTES} bytes")
            raw = load_json(file, "MacAgentBench task file")
            data, oracle = translate(raw, app, task_id, rel)
            suite.seeds.append(validate_seed(data, f"{file}"))
            suite.oracle[task_id] = oracle
        except OfficialSkip as exc:
            suite.skipped.append(SkippedTask(task_id, rel, str(exc)))
        except (TaskFormatError, ValueError) as exc:
            suite.skipped.append(SkippedTask(task_id, rel, f"does not translate into a valid task: {exc}"))
    return suite


# ---------------------------------------------------------------------------------------------- translation
def translate(raw: Any, app: str, task_id: str, rel: str) -> tuple[dict[str, Any], str]:
    """Our task data for one official task, and the kind of its oracle solution."""
    if not isinstance(raw, dict):
        raise OfficialSkip("a task must be a JSON object")
    instruction = raw.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise OfficialSkip("field 'instruction' must be a non-empty string")
    evaluator = raw.get("evaluator")
    if not isinstance(evaluator, dict):
        raise OfficialSkip("field 'evaluator' must be an object")
    funcs, params, expected = evaluator.get("func"), evaluator.get("parameters"), evaluator.get("expected")
    if not (isinstance(funcs, list) and funcs and isinstance(params, list) and isinstance(expected, list)
            and len(funcs) == len(params) == len(expected)):
        raise OfficialSkip("evaluator: 'func', 'parameters' and 'expected' must be lists of the same non-zero length")
    conj = evaluator.get("conj", "and")
    if conj not in ("and", "or"):
        raise OfficialSkip(f"evaluator: conj {conj!r} is neither 'and' nor 'or'")
    reference = raw.get("reference_command", "")
    if not isinstance(reference, str):
        raise OfficialSkip("field 'reference_command' must be a string")
    checks = []
    for i, (func, param, rule) in enumerate(zip(funcs, params, expected)):
        if not isinstance(func, str) or func not in CHECKS:
            raise OfficialSkip(f"evaluator.func[{i}]: no translation for the check {func!r}"
                               + (f" ({UNMAPPABLE[func]})" if func in UNMAPPABLE else ""))
        if not isinstance(param, dict):
            raise OfficialSkip(f"evaluator.parameters[{i}] must be an object")
        want = _rule(rule, i)
        CHECKS[func].validate(param, f"evaluator.parameters[{i}]")
        checks.append((func, param, want))
    setup, assets = _setup(raw.get("config", []), instruction + "\n" + reference + json.dumps(params) + json.dumps(funcs))
    # The mail account the himalaya tasks search held mail on the public harness's machine image
    if "himalaya" in skills_of(reference) or any("himalaya" in str(p.get("expected_command", "")) for p in params if isinstance(p, dict)):
        assets.insert(0, _mailbox())
    # The skills the public machine image had installed in OpenClaw's workspace (what `clawhub list` lists)
    for p in params:
        if isinstance(p, dict) and isinstance(p.get("skill_slugs"), str) and "install_dir" not in p:
            for slug in [x.strip() for x in p["skill_slugs"].split(",") if x.strip()]:
                assets.append({"type": "shell", "command": f"mkdir -p ~/.openclaw/workspace && cd ~/.openclaw/workspace && clawhub install {shlex.quote(slug)} >/dev/null"})
    # The Obsidian vault the tasks name was registered on the public harness's machine image
    vaults = {str(p["vault_path"]) for p in params if isinstance(p, dict) and p.get("vault_path")}
    for vault in sorted(vaults):
        assets.insert(0, _obsidian_vault(vault))
    # Notes folders the reference command files notes into existed on the public harness's machine image
    for folder in dict.fromkeys(re.findall(r"memo\s+notes\b[^\n|]*?(?:-f|--folder)\s+(\"[^\"]+\"|'[^']+'|\S+)", reference)):
        assets.append({"type": "applescript", "script": _notes_folder(shlex.split(folder)[0])})
    web_pages = _web_pages(raw, reference, params)
    solution, oracle = _solution(reference, checks)
    skills = skills_of(reference)
    apps = _apps(raw.get("related_apps", []))
    if len(checks) > 1 and conj == "or":
        checkpoints = [{"name": "any of " + ", ".join(f for f, _, _ in checks), "tag": CHECKS[checks[0][0]].tag,
                        "getter": {"type": "python", "function": "official_any",
                                   "args": {"checks": [{"check": f, "params": p, "want": w} for f, p, w in checks]}},
                        "metric": {"type": "truthy"}}]
    else:
        checkpoints = [{"name": f"{i + 1}. {func}", "tag": CHECKS[func].tag,
                        "getter": {"type": "python", "function": "official_check", "args": {"check": func, "params": param}},
                        "metric": {"type": "truthy" if want else "falsy"}} for i, (func, param, want) in enumerate(checks)]
    data: dict[str, Any] = {
        "id": task_id, "instruction": instruction, "category": CATEGORIES.get(app, "Productivity"), "apps": apps,
        "reference_time": REFERENCE_TIME, "setup": assets + setup, "checkpoints": checkpoints,
        "reference_solution": solution, "skills": skills, "web_pages": web_pages,
        "metadata": {"official_file": rel, "official_id": raw.get("id"), "oracle": oracle,
                     "setup_commands": len([s for s in setup if s["type"] == "shell"])},
    }
    return data, oracle


def _rule(rule: Any, i: int) -> bool:
    if not (isinstance(rule, dict) and isinstance(rule.get("rules"), dict)):
        raise OfficialSkip(f"evaluator.expected[{i}] must be {{'type': 'common', 'rules': {{'func': …}}}}")
    func = rule["rules"].get("func")
    if func == "is_true":
        return True
    if func == "is_false":
        return False
    raise OfficialSkip(f"evaluator.expected[{i}]: no translation for the rule {func!r} (only is_true and is_false)")


def skills_of(command: str) -> list[str]:
    """The skills (see :data:`SKILL_COMMANDS`) a shell command uses, sorted."""
    found = set()
    for word, skill in SKILL_COMMANDS.items():
        if "." in word:
            if word in command:
                found.add(skill)
        elif re.search(rf"(?<![\w./-]){re.escape(word)}(?![\w-])", command):
            found.add(skill)
    return sorted(found)


def _apps(related: Any) -> list[str]:
    from mmenvs.macagent.backends.sim.apps import APPS

    apps: list[str] = []
    for name in related if isinstance(related, list) else []:
        mapped = APP_NAMES.get(str(name).lower())
        if mapped and mapped not in apps:
            apps.append(mapped)
    # the skill CLIs a task uses are its 'skills', not more apps: multi_app stays the public set's related_apps
    if not apps:
        apps.append("Terminal")
    return [a for a in apps if a in APPS] or ["Terminal"]


# ---------------------------------------------------------------------------------------------- setup
def _setup(config: Any, text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Our setup steps for the ``config`` list, and the asset files the task's text refers to."""
    if not isinstance(config, list):
        raise OfficialSkip("field 'config' must be a list")
    steps: list[dict[str, Any]] = []
    for i, step in enumerate(config):
        if not isinstance(step, dict):
            raise OfficialSkip(f"config[{i}] must be an object")
        kind = step.get("type")
        parameters = step.get("parameters") or {}
        if not isinstance(parameters, dict):
            raise OfficialSkip(f"config[{i}].parameters must be an object")
        if kind == "cmd":
            commands = parameters.get("command", [])
            commands = [commands] if isinstance(commands, str) else commands
            if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
                raise OfficialSkip(f"config[{i}].parameters.command must be a list of shell commands")
            steps += [{"type": "shell", "command": c, "tolerate_failure": True} for c in commands]
        elif kind in HELPERS:
            try:
                steps += HELPERS[kind](**parameters)
            except TypeError as exc:
                raise OfficialSkip(f"config[{i}]: helper {kind!r}: {exc}") from None
        else:
            raise OfficialSkip(f"config[{i}]: no translation for the setup helper {kind!r}")
    return steps, _assets(text)


def _notes_folder(folder_name: str) -> str:
    name = applescript_string(folder_name)
    return f'tell application "Notes"\nif not (exists folder {name}) then make new folder with properties {{name:{name}}}\nend tell'


#: The stand-in mailbox of the himalaya tasks: (folder, sender, subject, body), oldest first.
MAILBOX = [
    ("Inbox", "Alice Park <alice@example.com>", "Lunch on Friday?", "Are you free for lunch on Friday at noon?"),
    ("Inbox", "Weekly Digest <news@updates.example.org>", "Product newsletter: April edition", "What shipped this month, and what is next."),
    ("Inbox", "Security Team <ops@security.example.com>", "Security review scheduled", "The quarterly security review is on Thursday."),
    ("Inbox", "Billing <billing@shop.example.net>", "Your receipt for order A-1093", "Thanks for your order. Your discount code SPRING10 was applied."),
    ("Inbox", "Team Updates <newsletter@company.example.com>", "Engineering Newsletter #42", "Build times are down 20% this quarter."),
    ("Inbox", "Security Team <alerts@security.example.com>", "Security alert: new sign-in from Safari", "We noticed a new sign-in to your account."),
    ("Inbox", "Security Team <alerts@security.example.com>", "Your verification code is 482913", "Use code 482913 to sign in. It expires in 10 minutes."),
    ("Archive", "Old Friend <friend@example.net>", "Photos from the trip", "Here are the photos I promised."),
]


def _mailbox() -> dict[str, Any]:
    saves = []
    for folder, sender, subject, body in MAILBOX:
        message = f"From: {sender}\nTo: user@icloud.com\nSubject: {subject}\n\n{body}\n"
        saves.append(f"printf %s {shlex.quote(message)} | himalaya message save --folder {shlex.quote(folder)} >/dev/null")
    return {"type": "shell", "command": " && ".join(saves), "timeout": 60}


def _obsidian_vault(path: str) -> dict[str, Any]:
    """A setup step that makes the vault folder and registers it with Obsidian (and as obsidian-cli's default)."""
    vid = hashlib.sha256(path.encode()).hexdigest()[:16]
    registry = json.dumps({"vaults": {vid: {"path": path, "ts": 1776157200000, "open": True}}})
    prefs = json.dumps({"default_vault_name": Path(path).name})
    support = '"$HOME/Library/Application Support"'
    return {"type": "shell", "command": (
        f"mkdir -p {shell_path(path + '/.obsidian')} {support}/obsidian {support}/obsidian-cli"
        f" && printf %s {shlex.quote(registry)} > {support}/obsidian/obsidian.json"
        f" && printf %s {shlex.quote(prefs)} > {support}/obsidian-cli/preferences.json")}


def _seed_folder(folder_name: str) -> list[dict[str, Any]]:
    return [{"type": "applescript", "script": _notes_folder(str(folder_name))}]


def _seed_folder_and_note(folder_name: str, note_title: str, note_body: str = "") -> list[dict[str, Any]]:
    note = (f'tell application "Notes" to make new note at folder {applescript_string(str(folder_name))} with properties '
            f'{{name:{applescript_string(str(note_title))}, body:{applescript_string(str(note_body))}}}')
    return _seed_folder(folder_name) + [{"type": "applescript", "script": note}]


def _pages_new_doc() -> list[dict[str, Any]]:
    return [{"type": "applescript", "script": 'tell application "Pages" to make new document'}]


def _pages_content(content: str) -> list[dict[str, Any]]:
    return [{"type": "applescript", "script": f'tell application "Pages" to set body text of front document to {applescript_string(str(content))}'}]


#: The values ``numbers_init_table`` fills a table with, row by row (cycled): 1…22 with 5 four times and no
#: other number holding the digit 5, so a find-and-replace of "5" changes exactly the cells whose value is 5.
NUMBERS_VALUES = (3, 12, 5, 18, 7, 21, 1, 14, 9, 5, 16, 2, 11, 20, 6, 13, 5, 19, 8, 4, 22, 10, 17, 5, 12)


def numbers_table_value(row: int, col: int, cols: int) -> int:
    """The value ``numbers_init_table`` puts at (row, col), both from 1."""
    return NUMBERS_VALUES[((row - 1) * cols + (col - 1)) % len(NUMBERS_VALUES)]


def _numbers_table(rows: int, cols: int) -> list[dict[str, Any]]:
    rows, cols = int(rows), int(cols)
    if not (1 <= rows <= 50 and 1 <= cols <= 26):
        raise TypeError(f"rows must be 1..50 and cols 1..26, got {rows}x{cols}")
    lines = ['tell application "Numbers"', "make new document", "tell table 1 of sheet 1 of front document",
             f"set row count to {rows}", f"set column count to {cols}"]
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            lines.append(f"set value of cell {c} of row {r} to {numbers_table_value(r, c, cols)}")
    lines += ["end tell", "end tell"]
    return [{"type": "applescript", "script": "\n".join(lines)}]


#: The named seeding helpers of the public harness → our setup steps.
HELPERS: dict[str, Callable[..., list[dict[str, Any]]]] = {
    "new_apple_notes_seed_folder": _seed_folder,
    "new_apple_notes_seed_folder_and_note": _seed_folder_and_note,
    "pages_create_new_doc": _pages_new_doc,
    "pages_init_content": _pages_content,
    "numbers_init_table": _numbers_table,
}


_MELODY = [330, 330, 349, 392, 392, 349, 330, 294, 262, 262, 294, 330, 330, 294, 294, 0]

#: Files of the public harness's machine image the tasks refer to → the setup step that makes a stand-in.
#: The audio file keeps its name but holds linear-PCM WAVE (the sim's media tools read no MP3): a 48 s
#: tone melody; the GIF and the video come from ffmpeg's test source in the episode's shell.
ASSETS: dict[str, dict[str, Any]] = {
    "$HOME/Desktop/Ode to Joy.mp3": {
        "type": "file", "path": "~/Desktop/Ode to Joy.mp3",
        "generator": {"name": "wav", "args": {"sample_rate": 11025, "tones": [
            {"freq": f, "seconds": 0.5} for f in _MELODY * 6]}}},
    "$HOME/Downloads/a_drawing_of_an_octopus_in_a_suit_with_a_chat_enabled_sign_above_him.gif": {
        "type": "shell", "timeout": 60, "command": "ffmpeg -v error -y -f lavfi -i testsrc=duration=1.2:size=96x72:rate=10 -f gif "
        + shell_path("$HOME/Downloads/a_drawing_of_an_octopus_in_a_suit_with_a_chat_enabled_sign_above_him.gif")},
    "$HOME/Desktop/benchmark_source.mp4": {
        "type": "shell", "timeout": 60, "command": "ffmpeg -v error -y -f lavfi -i testsrc=duration=3:size=1280x720:rate=25 -pix_fmt yuv420p "
        + shell_path("$HOME/Desktop/benchmark_source.mp4")},
}


def _assets(text: str) -> list[dict[str, Any]]:
    steps = [dict(step) for path, step in ASSETS.items() if path in text or path.replace("$HOME/", "~/") in text]
    if "keynote_test_image_insertion" in text:  # "an image from Desktop which is named 'pic'"
        steps.append({"type": "file", "path": "~/Desktop/pic.png", "generator": {"name": "png", "args": {"width": 640, "height": 360, "text": "pic"}}})
    return steps


# ---------------------------------------------------------------------------------------------- offline web
_BLOG_ADD = re.compile(r"blogwatcher\s+add\s+(\"[^\"]*\"|'[^']*')\s+(\"[^\"]*\"|'[^']*')(?:\s+--feed-url\s+(\"[^\"]*\"|'[^']*'))?")


def _web_pages(raw: Mapping[str, Any], reference: str, params: list[Any]) -> dict[str, str]:
    """Offline pages for the feeds (blogwatcher) and GIF searches (gifgrep) the task names."""
    text = json.dumps(raw.get("config", [])) + "\n" + reference
    commands = [c for step in raw.get("config", []) if isinstance(step, dict)
                for c in ((step.get("parameters") or {}).get("command") or []) if isinstance(c, str)] + [reference]
    pages: dict[str, str] = {}
    titles = [str(p.get("article_title")) for p in params if isinstance(p, dict) and p.get("article_title")]
    for command in commands:
        for match in _BLOG_ADD.finditer(command):
            name, url, feed = (shlex.split(g)[0] if g else None for g in match.groups())
            feed = feed or url
            pages[feed] = _feed(name or "Blog", url or feed, titles, atom=feed.endswith(".atom"))
            if url and url != feed:
                pages.setdefault(url, f'<html><head><link rel="alternate" type="application/rss+xml" href="{feed}"></head><body>{name}</body></html>')
    slugs: dict[str, str] = {}
    for slug, version in re.findall(r"clawhub\s+install\s+([a-z0-9][a-z0-9._-]*)(?:[^\n]*?--version\s+([0-9][\w.-]*))?", reference):
        slugs[slug] = version or "1.0.0"
    for p in params:
        if isinstance(p, dict) and isinstance(p.get("skill_slugs"), str):
            for slug in p["skill_slugs"].split(","):
                slugs.setdefault(slug.strip(), "1.0.0")
    for slug, version in slugs.items():
        pages.update(clawhub_pages(slug, version))
    queries = {str(p["query"]): str(p.get("source", "tenor")) for p in params if isinstance(p, dict) and p.get("query") and "gifgrep" in text + reference}
    for query, source in queries.items():
        if source == "tenor":
            index = _tenor_index(query)
            pages["https://tenor.googleapis.com/v2/search"] = index
            for k, result in enumerate(json.loads(index)["results"]):
                pages[result["media_formats"]["gif"]["url"]] = "data:image/gif;base64," + base64.b64encode(_small_gif(k)).decode()
    return pages


def clawhub_pages(slug: str, version: str) -> dict[str, str]:
    """The offline ClawHub registry pages of one skill at one version (a SKILL.md of our own text)."""
    base = f"https://clawhub.ai/api/v1/skills/{slug}"
    title = slug.replace("-", " ").title()
    skill_md = f"---\nname: {slug}\ndescription: {title} (a stand-in skill of the offline registry)\n---\n\n# {title}\n\nSteps for {title.lower()}.\n"
    return {
        base: json.dumps({"skill": {"slug": slug, "displayName": title, "summary": f"{title} skill", "tags": {"latest": version}},
                          "latestVersion": {"version": version}, "owner": {"handle": "openclaw"}}),
        f"{base}/versions": json.dumps({"items": [{"version": version, "createdAt": 1776157200000, "changelog": "first release"}]}),
        f"{base}/versions/{version}": json.dumps({"version": {"version": version, "files": [{"path": "SKILL.md", "size": len(skill_md)}]}}),
        f"{base}/file?path=SKILL.md&version={version}": skill_md,
        f"{base}/file?path=SKILL.md": skill_md,
    }


def _small_gif(seed: int) -> bytes:
    """A small animated GIF (4 frames of a moving dot), different for each ``seed``."""
    from PIL import Image, ImageDraw

    frames = []
    for k in range(4):
        image = Image.new("RGB", (80, 60), ((40 * seed) % 256, 90, 160))
        ImageDraw.Draw(image).ellipse((6 + 14 * k, 20, 26 + 14 * k, 40), fill=(250, 200, 60))
        frames.append(image)
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=120, loop=0)
    return buffer.getvalue()


def _feed(name: str, url: str, titles: list[str], atom: bool) -> str:
    items = titles + [f"{name}: weekly notes {k}" for k in (1, 2, 3)]
    digest = hashlib.sha256(url.encode()).hexdigest()[:8]
    if atom:
        entries = "".join(
            f"<entry><title>{_xml(t)}</title><link href=\"{_xml(url)}/{digest}-{k}\"/><id>{_xml(url)}/{digest}-{k}</id>"
            f"<updated>2026-04-1{k % 4}T08:00:00Z</updated><summary>{_xml(t)}</summary></entry>" for k, t in enumerate(items))
        return f'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>{_xml(name)}</title>{entries}</feed>'
    entries = "".join(
        f"<item><title>{_xml(t)}</title><link>{_xml(url)}/{digest}-{k}</link><guid>{_xml(url)}/{digest}-{k}</guid>"
        f"<pubDate>{['Mon', 'Sun', 'Sat', 'Fri'][k % 4]}, 1{3 - k % 4} Apr 2026 08:00:00 GMT</pubDate><description>{_xml(t)}</description></item>"
        for k, t in enumerate(items))
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>{_xml(name)}</title><link>{_xml(url)}</link>{entries}</channel></rss>'


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _tenor_index(query: str) -> str:
    words = query.split()
    results = []
    for k in range(1, 6):
        gid = hashlib.sha256(f"{query}/{k}".encode()).hexdigest()[:12]
        results.append({"id": gid, "title": f"{query} {k}", "content_description": f"{' '.join(words)} animation {k}",
                        "tags": words, "itemurl": f"https://tenor.com/view/{gid}",
                        "media_formats": {"gif": {"url": f"https://media.tenor.com/{gid}/{'-'.join(words)}-{k}.gif", "dims": [160, 120]},
                                          "tinygif": {"url": f"https://media.tenor.com/{gid}/tiny-{k}.gif", "dims": [80, 60]}}})
    return json.dumps({"results": results, "next": ""})


# ---------------------------------------------------------------------------------------------- oracle
def _solution(reference: str, checks: list[tuple[str, dict[str, Any], bool]]) -> tuple[list[str], str]:
    if reference.strip():
        speech = re.search(r"sherpa-onnx-tts\.cjs\"?\s+-o\s+(\"[^\"]+\"|\S+)\s+(\"[^\"]*\"|'[^']*')\s*$", reference.strip())
        if speech:  # the TTS model cannot ship: the sim's say makes the same WAVE file
            out, sentence = speech.group(1), speech.group(2)
            return [f"```bash\nsay -o {out} --data-format=LEI16@22050 {sentence}\n```"], "sim-native"
        return [f"```bash\n{reference}\n```"], "reference_command"
    actions: list[str] = []
    for func, param, want in checks:
        derive = ORACLES.get(func)
        if derive is None or not want:
            return [], "none"
        try:
            actions += derive(**param)
        except (TypeError, ValueError, GetterError) as exc:
            raise OfficialSkip(f"no solution can be derived from {func!r}: {exc}") from None
    return actions, "derived" if actions else "none"


def _script(source: str) -> str:
    return f"```applescript\n{source}\n```"


def _osascript(*lines: str) -> str:
    """A bash action running AppleScript lines (so that ``$HOME`` can name files in the home)."""
    return "```bash\nosascript" + "".join(f" -e {_dq(line)}" for line in lines) + "\n```"


def _dq(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'


def _kn(*lines: str) -> str:
    return _script("\n".join(['tell application "Keynote"', "if (count of documents) = 0 then make new document", "tell front document", *lines, "end tell", "end tell"]))


def _nm(*lines: str) -> str:
    return _script("\n".join(['tell application "Numbers"', "if (count of documents) = 0 then make new document",
                               f"tell {_NUMBERS_TABLE.replace(' of front document', '')} of front document", *lines, "end tell", "end tell"]))


def _pg(*lines: str) -> str:
    return _script("\n".join(['tell application "Pages"', "if (count of documents) = 0 then make new document", "tell front document", *lines, "end tell", "end tell"]))


def _geometry_lines(item: str, x: float, y: float, w: float, h: float) -> list[str]:
    return [f"set width of {item} to {w}", f"set height of {item} to {h}", f"set position of {item} to {{{x}, {y}}}"]


def _oracle_keynote_doc(template_name: str, doc_name: str) -> list[str]:
    return [_script(f'tell application "Keynote" to make new document with properties {{document theme:theme {_as(template_name)}}}'),
            _osascript(f'tell application "Keynote" to save front document in POSIX file "$HOME/Documents/{doc_name}.key"')]


def _oracle_keynote_delete(del_cnt: int) -> list[str]:
    parts = ["body", "title"][: int(del_cnt)]  # removing a layout's text box hides it (Keynote's "showing" properties)
    return [_kn("set s to make new slide", *[f"set {part} showing of s to false" for part in parts])]


def _oracle_keynote_image(width: float, height: float, posx: float, posy: float, rotation: float = 0) -> list[str]:
    return [_osascript('tell application "Keynote"', "if (count of documents) = 0 then make new document",
                       'tell slide 1 of front document to set i to make new image with properties {file:POSIX file "$HOME/Desktop/pic.png"}',
                       *[f"tell slide 1 of front document to {line}" for line in
                         _geometry_lines("i", posx, posy, width, height) + [f"set rotation of i to {rotation}"]], "end tell")]


def _oracle_keynote_table(rows: int, cols: int, row: int, col: int, content: str) -> list[str]:
    return [_kn(f"tell slide 1 to set t to make new table with properties {{row count:{int(rows)}, column count:{int(cols)}}}",
                f"tell slide 1 to set value of cell {int(col)} of row {int(row)} of t to {_as(content)}")]


def _oracle_keynote_text(content: str, color: str = "", font_size: float = 0, font: str = "") -> list[str]:
    lines = [f"tell slide 1 to set t to make new text item with properties {{object text:{_as(content)}}}"]
    if color in _COLORS:
        lines.append(f"tell slide 1 to set color of object text of t to {{{', '.join(map(str, _COLORS[color]))}}}")
    if font:
        lines.append(f"tell slide 1 to set font of object text of t to {_as(font)}")
    if font_size:
        lines.append(f"tell slide 1 to set size of object text of t to {font_size}")
    return [_kn(*lines)]


def _oracle_keynote_shapes(width: float, height: float, positions: list[tuple[float, float]]) -> list[str]:
    lines = []
    for k, (x, y) in enumerate(positions):
        lines += [f"tell slide 1 to set s{k} to make new shape"] + [f"tell slide 1 to {line}" for line in _geometry_lines(f"s{k}", x, y, width, height)]
    return [_kn(*lines)]


def _oracle_keynote_slides(insert_cnt: int, skip_idx: int) -> list[str]:
    return [_kn(*["make new slide"] * int(insert_cnt), f"set skipped of slide {int(skip_idx)} to true")]


def _oracle_numbers_create(doc_name: str, file_name: str, sheet_name: str, table_name: str, template_name: str = "") -> list[str]:
    path = file_name if file_name.startswith("/") else f"$HOME/{file_name}"
    return [_script("\n".join(['tell application "Numbers"', "make new document", f"set name of sheet 1 of front document to {_as(sheet_name)}",
                               f"set name of table 1 of sheet 1 of front document to {_as(table_name)}", "end tell"])),
            _osascript(f'tell application "Numbers" to save front document in POSIX file "{path}"')]


def _oracle_numbers_cells(cells: list[list[int]], values: list[Any]) -> list[str]:
    return [_nm(*[f"set value of cell {int(col)} of row {int(row)} to {_as(str(value))}" for (row, col), value in zip(cells, values)])]


def _oracle_numbers_replace(rows: int, cols: int, target_value: Any, replace_value: Any) -> list[str]:
    rows, cols = _grid(rows, cols)
    return [_nm(*[f"set value of cell {c} of row {r} to {replace_value}" for r in range(1, int(rows) + 1) for c in range(1, int(cols) + 1)
                  if float(numbers_table_value(r, c, int(cols))) == float(target_value)])]


def _column(n: int) -> str:
    return chr(ord("A") + int(n) - 1)


def _oracle_numbers_merge(merged_cell: list[int], rows: int = 0, cols: int = 0) -> list[str]:
    c1, r1, c2, r2 = (int(v) for v in merged_cell)
    return [_nm(f'merge range "{_column(c1)}{r1}:{_column(c2)}{r2}"')]


def _oracle_numbers_bgcolor(rows: int, cols: int, is_larger: bool = False, min: float = 0, is_smaller: bool = False,
                            max: float = 0, is_equal: bool = False) -> list[str]:
    rows, cols = _grid(rows, cols)
    lines = []
    for r in range(1, int(rows) + 1):
        for c in range(1, int(cols) + 1):
            value = float(numbers_table_value(r, c, int(cols)))
            if ((not is_larger or value > float(min) or (is_equal and value == float(min)))
                    and (not is_smaller or value < float(max) or (is_equal and value == float(max)))):
                lines.append(f"set background color of cell {c} of row {r} to {{65535, 0, 0}}")
    return [_nm(*lines)]


def _oracle_pages_create(template_name: str, doc_name: str, content: str) -> list[str]:
    return [_script("\n".join(['tell application "Pages"', f"make new document with properties {{document template:template {_as(template_name)}}}",
                               f"set body text of front document to {_as(content)}", "end tell"])),
            _osascript(f'tell application "Pages" to save front document in POSIX file "$HOME/Documents/{doc_name}.pages"')]


def _oracle_pages_color(color: str) -> list[str]:
    return [_pg("if body text is \"\" then set body text to \"Passwd: 111111\"",
                f"set color of body text to {{{', '.join(map(str, _COLORS.get(color, (0, 0, 0))))}}}")]


def _oracle_pages_font(idx: int, target_font: str) -> list[str]:
    return [_pg("if body text is \"\" then set body text to \"passwd: 111111\"", f"set font of body text to {_as(target_font)}")]


def _oracle_pages_table(col: int, row: int, target_val: str) -> list[str]:
    return [_pg("set t to make new table", f"set value of cell {int(col)} of row {int(row)} of t to {_as(target_val)}")]


def _oracle_pages_find_replace(content: str, target: str, replace: str) -> list[str]:
    return [_pg(f"set body text to {_as(content.replace(target, replace))}")]


def _oracle_pages_shape(pos: str, width: float, height: float) -> list[str]:
    x, y = _pos(pos)
    return [_pg("set s to make new shape", *_geometry_lines("s", x, y, float(width) * 72, float(height) * 72))]


def _oracle_pages_page(p_idx: int, expected_text: str) -> list[str]:
    breaks = " & ".join(["(character id 12)"] * (int(p_idx) - 1)) or '""'  # a page break is a form feed in Pages' text
    return [_pg(f"set body text to body text & {breaks} & {_as(expected_text)}")]


def _oracle_file(file_path: str) -> list[str]:
    """A file an iWork app exports: a PowerPoint from Keynote, an EPUB from Pages."""
    path = file_path.replace("~/", "$HOME/", 1)
    if path.endswith(".pptx"):
        return [_script('tell application "Keynote" to if (count of documents) = 0 then make new document'),
                _osascript(f'tell application "Keynote" to export front document to POSIX file "{path}" as Microsoft PowerPoint')]
    if path.endswith(".epub"):
        return [_osascript(f'tell application "Pages" to export front document to POSIX file "{path}" as EPUB')]
    return []


#: Checks of tasks without a reference command → actions that satisfy them (AppleScript), derived from
#: the check's parameters.
ORACLES: dict[str, Callable[..., list[str]]] = {
    "keynote_test_doc_creation": _oracle_keynote_doc,
    "keynote_test_item_delection": _oracle_keynote_delete,
    "keynote_test_image_insertion": _oracle_keynote_image,
    "keynote_test_table_insertion": _oracle_keynote_table,
    "keynote_test_text_box_insertion": _oracle_keynote_text,
    "keynote_test_shape_insertion": lambda width, height, posx, posy: _oracle_keynote_shapes(width, height, [(posx, posy)]),
    "keynote_test_shape_insertion_multi": lambda width, height, pos1, pos2, pos3: _oracle_keynote_shapes(width, height, [_pos(pos1), _pos(pos2), _pos(pos3)]),
    "keynote_test_slide_insertion": _oracle_keynote_slides,
    "numbers_test_create_and_save_table": _oracle_numbers_create,
    "numbers_test_cell_operation": _oracle_numbers_cells,
    "numbers_test_value_replacement": _oracle_numbers_replace,
    "numbers_test_cell_merge": _oracle_numbers_merge,
    "numbers_test_change_bgcolor": _oracle_numbers_bgcolor,
    "pages_test_create_and_enter_content": _oracle_pages_create,
    "pages_test_change_font_color": _oracle_pages_color,
    "pages_test_change_text_font": _oracle_pages_font,
    "pages_test_insert_table": _oracle_pages_table,
    "pages_test_find_and_replace": _oracle_pages_find_replace,
    "pages_test_shape_pos_and_size": _oracle_pages_shape,
    "pages_check_body_text": _oracle_pages_page,
    "check_file_exists": _oracle_file,
}


# ---------------------------------------------------------------------------------------------- checks
@dataclass(frozen=True)
class Check:
    """One official check: our implementation, the parameters it needs and its capability tag."""

    fn: Callable[..., bool]
    required: tuple[str, ...]
    tag: str

    def validate(self, params: Mapping[str, Any], where: str) -> None:
        missing = [name for name in self.required if name not in params]
        if missing:
            raise OfficialSkip(f"{where}: missing parameter(s) {missing}")


CHECKS: dict[str, Check] = {}
#: Checks that exist in the public set but cannot be implemented here, with the reason.
UNMAPPABLE = {
    "new_whisper_check_file_matches_live_output": "it compares with a live run of the Whisper speech-recognition model, which cannot ship here",
}


def check(name: str, *required: str, tag: str = "content_match") -> Callable[[Callable[..., bool]], Callable[..., bool]]:
    def register(fn: Callable[..., bool]) -> Callable[..., bool]:
        CHECKS[name] = Check(fn, required, tag)
        return fn

    return register


@getter("official_check")
def official_check(ctx: GetterContext, check: str, params: dict[str, Any]) -> bool:
    """An official MacAgentBench check (``official.CHECKS``) with its parameters: True or False.
    A state the check cannot read (a missing file, a note that is not there) is False, as in the public harness."""
    if check not in CHECKS:
        raise GetterError(f"no official check named {check!r}")
    try:
        return bool(CHECKS[check].fn(ctx, **params))
    except _Missing:
        return False
    except TypeError as exc:
        raise GetterError(f"official check {check!r}: {exc}") from None


@getter("official_any")
def official_any(ctx: GetterContext, checks: list[dict[str, Any]]) -> bool:
    """True when any of ``checks`` ({"check", "params", "want"}) gives its wanted value (``conj: "or"``)."""
    return any(official_check(ctx, c["check"], c["params"]) == bool(c.get("want", True)) for c in checks)


class _Missing(Exception):
    """What a check reads is not there (the check is False)."""


# --- reading helpers (all through the backend: the episode's shell and AppleScript)
def _path(path: str) -> str:
    return shell_path(str(path))


def _read(ctx: GetterContext, path: str) -> str:
    out = ctx.shell(f"test -f {_path(path)} && head -c {MAX_READ_BYTES} -- {_path(path)}")
    if out.exit_code != 0 or out.timed_out:
        raise _Missing(path)
    return out.stdout


def _exists(ctx: GetterContext, path: str, kind: str = "-e") -> bool:
    return ctx.shell(f"test {kind} {_path(path)}").exit_code == 0


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _json_file(ctx: GetterContext, path: str) -> Any:
    try:
        return json.loads(_read(ctx, path))
    except json.JSONDecodeError:
        raise _Missing(path) from None


def _live(ctx: GetterContext, command: str) -> str:
    """The output of a check's ``expected_command`` (run in the episode's shell, as the public harness runs it)."""
    out = ctx.backend.run_shell(command, timeout=max(LIVE_TIMEOUT, ctx.shell_timeout))
    if out.timed_out:
        raise GetterError("the check's expected_command timed out")
    return out.stdout


def _script_list(ctx: GetterContext, source: str) -> list[str]:
    try:
        return [item.strip().strip('"') for item in osascript_list(ctx.applescript(source))]
    except Exception as exc:  # AppleScriptError: the object is not there
        raise _Missing(str(exc)) from None


def _script_text(ctx: GetterContext, source: str) -> str:
    try:
        return ctx.applescript(source).strip()
    except Exception as exc:
        raise _Missing(str(exc)) from None


def _as(text: str) -> str:
    return applescript_string(str(text))


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().splitlines())


def _contains_all(lines: Iterable[str], wanted: Iterable[str]) -> bool:
    have = {line.strip() for line in lines}
    return all(w.strip() in have for w in wanted)


# --- Apple Notes
def _note_names(ctx: GetterContext, folder: str | None = None) -> list[str]:
    where = f" of folder {_as(folder)}" if folder else ""
    return _script_list(ctx, f'tell application "Notes" to get name of notes{where}')


@check("new_apple_notes_check_file_contains_all_note_titles", "output_file")
def _notes_all_titles(ctx: GetterContext, output_file: str) -> bool:
    names = _note_names(ctx)
    return _contains_all(_lines(_read(ctx, output_file)), names)


@check("new_apple_notes_check_file_contains_all_titles_in_folder", "folder_name", "output_file")
def _notes_folder_titles(ctx: GetterContext, folder_name: str, output_file: str) -> bool:
    names = _note_names(ctx, folder_name)
    return bool(names) and _contains_all(_lines(_read(ctx, output_file)), names)


@check("new_apple_notes_check_note_absent", "note_title", tag="app_state")
def _notes_absent(ctx: GetterContext, note_title: str) -> bool:
    return note_title not in _note_names(ctx)


@check("new_apple_notes_check_note_exists_in_folder", "note_title", "folder_name", tag="app_state")
def _notes_in_folder(ctx: GetterContext, note_title: str, folder_name: str) -> bool:
    return note_title in _note_names(ctx, folder_name)


@check("new_apple_notes_check_note_exists_with_content", "note_title", "note_content", tag="app_state")
def _notes_with_content(ctx: GetterContext, note_title: str, note_content: str) -> bool:
    if note_title not in _note_names(ctx):
        return False
    text = _script_text(ctx, f'tell application "Notes" to get plaintext of note {_as(note_title)}')
    return " ".join(note_content.split()) in " ".join(text.split())


@check("new_apple_notes_check_export_contains_note_title", "export_dir", "note_title", tag="file_ops")
def _notes_export(ctx: GetterContext, export_dir: str, note_title: str) -> bool:
    out = ctx.shell(f"test -d {_path(export_dir)} && grep -rlF -- {shlex.quote(note_title)} {_path(export_dir)} | head -n 1")
    names = ctx.shell(f"test -d {_path(export_dir)} && find {_path(export_dir)} -type f | head -n 1000")
    return out.exit_code == 0 and bool(out.stdout.strip()) or note_title in names.stdout


# --- Reminders
def _reminders(ctx: GetterContext, list_name: str | None = None) -> list[dict[str, Any]]:
    where = f" of list {_as(list_name)}" if list_name else ""
    names = _script_list(ctx, f'tell application "Reminders" to get name of reminders{where}')
    rows = []
    for i, name in enumerate(names, start=1):  # one at a time: AppleScript's dates hold commas
        due = _script_text(ctx, f'tell application "Reminders" to get due date of reminder {i}{where}')
        done = _script_text(ctx, f'tell application "Reminders" to get completed of reminder {i}{where}')
        rows.append({"title": name, "due": None if due in ("missing value", "") else parse_datetime(due), "completed": done == "true"})
    return rows


def _now(ctx: GetterContext):
    from datetime import datetime

    return datetime.strptime(ctx.shell("date '+%Y-%m-%d %H:%M:%S'").stdout.strip(), "%Y-%m-%d %H:%M:%S")


@check("new_reminders_check_reminder_exists", "title", tag="app_state")
def _rem_exists(ctx: GetterContext, title: str) -> bool:
    return any(r["title"] == title for r in _reminders(ctx))


@check("new_reminders_check_reminder_absent", "title", tag="app_state")
def _rem_absent(ctx: GetterContext, title: str) -> bool:
    return not any(r["title"] == title for r in _reminders(ctx))


@check("new_reminders_check_reminder_exists_in_list", "title", "list_name", tag="app_state")
def _rem_in_list(ctx: GetterContext, title: str, list_name: str) -> bool:
    return any(r["title"] == title for r in _reminders(ctx, list_name))


@check("new_reminders_check_reminder_due_datetime", "title", "due_datetime", tag="app_state")
def _rem_due(ctx: GetterContext, title: str, due_datetime: str) -> bool:
    want = parse_datetime(due_datetime)
    return want is not None and any(r["title"] == title and r["due"] == want for r in _reminders(ctx))


@check("new_reminders_check_reminder_due_date_in_list", "title", "list_name", "due_date", tag="app_state")
def _rem_due_date(ctx: GetterContext, title: str, list_name: str, due_date: str) -> bool:
    want = parse_datetime(due_date)
    return want is not None and any(r["title"] == title and r["due"] is not None and r["due"].date() == want.date()
                                    for r in _reminders(ctx, list_name))


@check("new_reminders_check_reminder_completed", "title", tag="app_state")
def _rem_completed(ctx: GetterContext, title: str) -> bool:
    return any(r["title"] == title and r["completed"] for r in _reminders(ctx))


def _list_names(ctx: GetterContext) -> list[str]:
    return _script_list(ctx, 'tell application "Reminders" to get name of lists')


@check("new_reminders_check_list_exists", "list_name", tag="app_state")
def _rem_list_exists(ctx: GetterContext, list_name: str) -> bool:
    return list_name in _list_names(ctx)


@check("new_reminders_check_list_absent", "list_name", tag="app_state")
def _rem_list_absent(ctx: GetterContext, list_name: str) -> bool:
    return list_name not in _list_names(ctx)


def _titles_in_file(ctx: GetterContext, output_file: str, titles: list[str]) -> bool:
    lines = _lines(_read(ctx, output_file))
    return bool(titles) and _contains_all(lines, titles)


@check("new_reminders_check_file_contains_today_titles", "output_file")
def _rem_today(ctx: GetterContext, output_file: str) -> bool:
    today = _now(ctx).date()
    return _titles_in_file(ctx, output_file, [r["title"] for r in _reminders(ctx)
                                              if r["due"] is not None and r["due"].date() == today and not r["completed"]])


@check("new_reminders_check_file_contains_overdue_titles", "output_file")
def _rem_overdue(ctx: GetterContext, output_file: str) -> bool:
    now = _now(ctx)
    titles = [r["title"] for r in _reminders(ctx) if r["due"] is not None and r["due"] < now and not r["completed"]
              and r["due"].date() < now.date()]
    if not titles:  # nothing overdue: the file must exist (and may be empty)
        _read(ctx, output_file)
        return True
    return _titles_in_file(ctx, output_file, titles)


@check("new_reminders_check_file_contains_all_titles_in_list", "list_name", "output_file")
def _rem_list_titles(ctx: GetterContext, list_name: str, output_file: str) -> bool:
    return _titles_in_file(ctx, output_file, [r["title"] for r in _reminders(ctx, list_name)])


# --- Obsidian (the vault is a folder of Markdown files)
def _note_file(vault_path: str, note_path: str) -> str:
    note = note_path if note_path.endswith(".md") else note_path + ".md"
    if ".." in Path(note).parts or note.startswith("/"):
        raise GetterError(f"note path {note_path!r} leaves the vault")
    return f"{vault_path.rstrip('/')}/{note}"


def _vault_notes(ctx: GetterContext, vault_path: str, folder: str = "", recursive: bool = True) -> list[str]:
    base = f"{vault_path.rstrip('/')}/{folder.strip('/')}".rstrip("/")
    depth = "" if recursive else "-maxdepth 1"
    out = ctx.shell(f"cd {_path(base)} && find . {depth} -type f -name '*.md' -not -path './.obsidian/*' | head -n 10000")
    if out.exit_code != 0:
        raise _Missing(base)
    prefix = f"{folder.strip('/')}/" if folder.strip("/") else ""
    return sorted(prefix + line[2:] for line in _lines(out.stdout))


def _paths_listed(lines: list[str], paths: list[str]) -> bool:
    have = {line.strip().lstrip("•").strip() for line in lines}
    have |= {h[:-3] for h in have if h.endswith(".md")}
    return bool(paths) and all(p in have or p[:-3] in have for p in paths)


@check("new_obsidian_check_file_contains_all_note_paths_in_folder", "vault_path", "folder_path", "output_file")
def _obs_folder_list(ctx: GetterContext, vault_path: str, folder_path: str, output_file: str) -> bool:
    return _paths_listed(_lines(_read(ctx, output_file)), _vault_notes(ctx, vault_path, folder_path, recursive=False))


@check("new_obsidian_check_file_contains_all_search_matches", "vault_path", "query", "output_file")
def _obs_search(ctx: GetterContext, vault_path: str, query: str, output_file: str) -> bool:
    out = ctx.shell(f"cd {_path(vault_path)} && grep -rlF --include='*.md' -- {shlex.quote(query)} . | head -n 10000")
    matches = sorted(line[2:] for line in _lines(out.stdout))
    return _paths_listed(_lines(_read(ctx, output_file)), matches)


@check("new_obsidian_check_file_equals_note_content", "vault_path", "note_path", "output_file")
def _obs_copy(ctx: GetterContext, vault_path: str, note_path: str, output_file: str) -> bool:
    return _norm(_read(ctx, output_file)) == _norm(_read(ctx, _note_file(vault_path, note_path)))


def _frontmatter(text: str) -> dict[str, str]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    values = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep:
            values[key.strip()] = value.strip().strip("'\"")
    return values


@check("new_obsidian_check_frontmatter_value", "vault_path", "note_path", "key", "expected_value", tag="app_state")
def _obs_frontmatter(ctx: GetterContext, vault_path: str, note_path: str, key: str, expected_value: Any) -> bool:
    return _frontmatter(_read(ctx, _note_file(vault_path, note_path))).get(key) == str(expected_value)


@check("new_obsidian_check_links_updated_after_move", "vault_path", "referrer_note_path", "old_link_text", "new_link_text", tag="app_state")
def _obs_links(ctx: GetterContext, vault_path: str, referrer_note_path: str, old_link_text: str, new_link_text: str) -> bool:
    text = _read(ctx, _note_file(vault_path, referrer_note_path))
    old_forms = {old_link_text, old_link_text.replace(" ", "%20")}
    new_forms = {new_link_text, new_link_text.replace(" ", "%20")}
    return any(f in text for f in new_forms) and not any(re.search(rf"(?<![\w/]){re.escape(f)}", text) for f in old_forms)


@check("new_obsidian_check_note_absent", "vault_path", "note_path", tag="file_ops")
def _obs_absent(ctx: GetterContext, vault_path: str, note_path: str) -> bool:
    return not _exists(ctx, _note_file(vault_path, note_path))


@check("new_obsidian_check_note_contains_all_texts", "vault_path", "note_path", "expected_texts")
def _obs_contains(ctx: GetterContext, vault_path: str, note_path: str, expected_texts: list[str]) -> bool:
    text = _read(ctx, _note_file(vault_path, note_path))
    return all(str(t) in text for t in expected_texts)


@check("new_obsidian_check_note_exists_with_exact_content", "vault_path", "note_path", "expected_content")
def _obs_exact(ctx: GetterContext, vault_path: str, note_path: str, expected_content: str) -> bool:
    return _norm(_read(ctx, _note_file(vault_path, note_path))) == _norm(expected_content)


@check("new_obsidian_check_note_moved", "vault_path", "source_note_path", "target_note_path", tag="file_ops")
def _obs_moved(ctx: GetterContext, vault_path: str, source_note_path: str, target_note_path: str, expected_text: str = "") -> bool:
    if _exists(ctx, _note_file(vault_path, source_note_path)):
        return False
    return str(expected_text) in _read(ctx, _note_file(vault_path, target_note_path))


# --- tmux (result files and panes)
def _json_key(ctx: GetterContext, output_file: str, key: str) -> Any:
    data = _json_file(ctx, output_file)
    if not isinstance(data, dict) or key not in data:
        raise _Missing(key)
    return data[key]


@check("new_tmux_check_json_key_value", "output_file", "key", "expected_value")
def _tmux_key_value(ctx: GetterContext, output_file: str, key: str, expected_value: Any) -> bool:
    value = _json_key(ctx, output_file, key)
    return value == expected_value and type(value) is type(expected_value)


@check("new_tmux_check_json_key_contains_text", "output_file", "key", "expected_text")
def _tmux_key_text(ctx: GetterContext, output_file: str, key: str, expected_text: str) -> bool:
    return str(expected_text) in str(_json_key(ctx, output_file, key))


@check("new_tmux_check_json_list_exact", "output_file", "key", "expected_list")
def _tmux_key_list(ctx: GetterContext, output_file: str, key: str, expected_list: list[Any]) -> bool:
    value = _json_key(ctx, output_file, key)
    return isinstance(value, list) and sorted(map(str, value)) == sorted(map(str, expected_list))


@check("new_tmux_check_pane_contains_text", "target", "expected_text", tag="app_state")
def _tmux_pane(ctx: GetterContext, target: str, expected_text: str) -> bool:
    out = ctx.shell(f"tmux capture-pane -p -t {shlex.quote(target)}")
    return out.exit_code == 0 and str(expected_text) in out.stdout


# --- checks against a live command's output (himalaya, GitHub, weather)
@check("new_himalaya_check_single_kv_equals", "output_file", "expected_command")
def _kv_equals(ctx: GetterContext, output_file: str, expected_command: str) -> bool:
    want = _lines(_live(ctx, expected_command))
    got = _lines(_read(ctx, output_file))
    return bool(want) and [" ".join(l.split()) for l in got] == [" ".join(l.split()) for l in want]


@check("new_himalaya_check_json_equals_live", "output_file", "expected_command")
def _json_live(ctx: GetterContext, output_file: str, expected_command: str) -> bool:
    try:
        want = json.loads(_live(ctx, expected_command))
    except json.JSONDecodeError:
        raise GetterError("the check's expected_command printed no JSON") from None
    return _json_file(ctx, output_file) == want


@check("new_himalaya_check_file_equals_live_output", "output_file", "expected_command")
def _file_live(ctx: GetterContext, output_file: str, expected_command: str) -> bool:
    want = _norm(_live(ctx, expected_command))
    return bool(want) and _norm(_read(ctx, output_file)) == want


@check("new_himalaya_check_keyword_moved_after", "source_folder", "target_folder", "keyword", tag="app_state")
def _mail_moved(ctx: GetterContext, source_folder: str, target_folder: str, keyword: str) -> bool:
    def subjects(folder: str) -> list[str]:
        found: list[str] = []
        for page in range(1, 51):
            out = ctx.shell(f"himalaya envelope list --folder {shlex.quote(folder)} --page {page} --page-size 100 -o json")
            try:
                rows = json.loads(out.stdout) if out.exit_code == 0 else []
            except json.JSONDecodeError:
                rows = []
            if not rows:
                break
            found += [str(r.get("subject") or "") for r in rows if isinstance(r, dict)]
        return found

    word = keyword.casefold()
    return (not any(word in s.casefold() for s in subjects(source_folder))
            and any(word in s.casefold() for s in subjects(target_folder)))


@check("new_github_check_file_contains_live_lines", "output_file", "expected_command")
def _gh_lines(ctx: GetterContext, output_file: str, expected_command: str, min_overlap: int = 1) -> bool:
    want = _lines(_live(ctx, expected_command))
    got = _lines(_read(ctx, output_file))
    if not want:
        return not got
    return len(set(want) & set(got)) >= min(int(min_overlap), len(want))


def _gh_json(ctx: GetterContext, command: str) -> Any:
    try:
        return json.loads(_live(ctx, command))
    except json.JSONDecodeError:
        raise GetterError(f"{command!r} printed no JSON") from None


@check("new_github_check_repo_info_matches", "output_file", "repo")
def _gh_repo(ctx: GetterContext, output_file: str, repo: str) -> bool:
    info = _gh_json(ctx, f"gh api repos/{shlex.quote(repo)}")
    text = _read(ctx, output_file)
    values = [info.get("full_name"), info.get("description"), (info.get("license") or {}).get("name") or "NO LICENSE",
              info.get("homepage"), info.get("language")]
    return all(str(v) in text for v in values if v)


@check("new_github_check_top_issue_values_present", "output_file", "repo")
def _gh_issue(ctx: GetterContext, output_file: str, repo: str) -> bool:
    rows = _gh_json(ctx, f"gh issue list --repo {shlex.quote(repo)} --state open --limit 1 --json number,title,state,author,labels")
    text = _read(ctx, output_file)
    if not rows:
        return not text.strip()
    top = rows[0]
    values = [str(top.get("number")), top.get("title"), top.get("state"), (top.get("author") or {}).get("login")]
    values += [label.get("name") for label in top.get("labels") or []]
    return all(str(v) in text for v in values if v)


def _numbers_in(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"[-+]?\d+(?:\.\d+)?", text)]


@check("new_weather_check_contains_live_current_values", "output_file", "expected_command")
def _weather_now(ctx: GetterContext, output_file: str, expected_command: str) -> bool:
    want = _numbers_in(_live(ctx, expected_command))
    got = _numbers_in(_read(ctx, output_file))
    return bool(want) and all(any(abs(w - g) < 1e-9 for g in got) for w in want)


def _kv(text: str, key: str) -> str | None:
    for line in _lines(text):
        name, sep, value = line.partition(":")
        if sep and name.strip() == key:
            return value.strip()
    return None


@check("new_weather_check_yes_no_matches_live", "output_file", "expected_command", "output_key")
def _weather_yes_no(ctx: GetterContext, output_file: str, expected_command: str, output_key: str) -> bool:
    want = _kv(_live(ctx, expected_command), output_key)
    return want is not None and _kv(_read(ctx, output_file), output_key) == want


@check("new_weather_check_rain_dates_exact", "output_file", "expected_command")
def _weather_dates(ctx: GetterContext, output_file: str, expected_command: str) -> bool:
    want = _lines(_live(ctx, expected_command))
    return bool(want) and sorted(_lines(_read(ctx, output_file))) == sorted(want)


@check("new_weather_check_temp_range_with_tolerance", "output_file", "expected_command")
def _weather_range(ctx: GetterContext, output_file: str, expected_command: str, tolerance_c: float = 2.0) -> bool:
    def range_of(text: str) -> tuple[float, float] | None:
        hi, lo = re.search(r"max=\s*([-+]?\d+(?:\.\d+)?)", text), re.search(r"min=\s*([-+]?\d+(?:\.\d+)?)", text)
        return (float(hi.group(1)), float(lo.group(1))) if hi and lo else None

    want, got = range_of(_live(ctx, expected_command)), range_of(_read(ctx, output_file))
    return want is not None and got is not None and all(abs(w - g) <= float(tolerance_c) for w, g in zip(want, got))


# --- blogwatcher (its SQLite database, read with the shell's python3)
def _blog_rows(ctx: GetterContext, query: str, *args: str) -> list[list[Any]]:
    script = ("import json, os, sqlite3, sys\np = os.path.expanduser('~/.blogwatcher/blogwatcher.db')\n"
              "if not os.path.isfile(p): print('[]'); sys.exit(0)\n"
              "c = sqlite3.connect('file:' + p + '?mode=ro', uri=True)\n"
              f"print(json.dumps([list(r) for r in c.execute({query!r}, sys.argv[1:])]))")
    out = ctx.shell(f"python3 -c {shlex.quote(script)} " + " ".join(shlex.quote(a) for a in args))
    if out.exit_code != 0:
        raise GetterError(f"cannot read blogwatcher's database: {out.stderr.strip()[-200:]}")
    return json.loads(out.stdout)


def _blog_columns(ctx: GetterContext, table: str) -> list[str]:
    return [row[1] for row in _blog_rows(ctx, f"PRAGMA table_info({table})")]


@check("new_blogwatcher_check_blog_exists", "blog_name", tag="app_state")
def _blog_exists(ctx: GetterContext, blog_name: str) -> bool:
    return bool(_blog_rows(ctx, "SELECT 1 FROM blogs WHERE name = ?", blog_name))


@check("new_blogwatcher_check_blog_absent", "blog_name", tag="app_state")
def _blog_absent(ctx: GetterContext, blog_name: str) -> bool:
    return not _blog_rows(ctx, "SELECT 1 FROM blogs WHERE name = ?", blog_name)


def _articles(ctx: GetterContext, blog_name: str | None = None) -> list[dict[str, Any]]:
    cols = _blog_columns(ctx, "articles")
    read_col = "is_read" if "is_read" in cols else "read" if "read" in cols else None
    select = f"SELECT a.title, {'a.' + read_col if read_col else '0'}, b.name FROM articles a JOIN blogs b ON a.blog_id = b.id"
    rows = _blog_rows(ctx, select + (" WHERE b.name = ?" if blog_name else ""), *([blog_name] if blog_name else []))
    return [{"title": r[0], "read": bool(r[1]), "blog": r[2]} for r in rows]


@check("new_blogwatcher_check_scan_success_for_blog", "blog_name", tag="app_state")
def _blog_scanned(ctx: GetterContext, blog_name: str) -> bool:
    return bool(_articles(ctx, blog_name))


@check("new_blogwatcher_check_article_title_is_read", "blog_name", "article_title", tag="app_state")
def _blog_article_read(ctx: GetterContext, blog_name: str, article_title: str) -> bool:
    return any(a["title"] == article_title and a["read"] for a in _articles(ctx, blog_name))


@check("new_blogwatcher_check_blog_has_no_unread_articles", "blog_name", tag="app_state")
def _blog_all_read(ctx: GetterContext, blog_name: str) -> bool:
    articles = _articles(ctx, blog_name)
    return bool(articles) and all(a["read"] for a in articles)


@check("new_blogwatcher_check_file_contains_all_blog_names", "output_file")
def _blog_names_file(ctx: GetterContext, output_file: str) -> bool:
    names = [r[0] for r in _blog_rows(ctx, "SELECT name FROM blogs")]
    text = _read(ctx, output_file)
    return bool(names) and all(n in text for n in names)


@check("new_blogwatcher_check_file_contains_all_article_titles", "output_file")
def _blog_titles_file(ctx: GetterContext, output_file: str) -> bool:
    titles = [a["title"] for a in _articles(ctx)]
    text = _read(ctx, output_file)
    return bool(titles) and all(t in text for t in titles)


# --- clawhub
@check("new_clawhub_check_skill_installed", "install_dir", "skill_slug", tag="file_ops")
def _claw_installed(ctx: GetterContext, install_dir: str, skill_slug: str) -> bool:
    return _exists(ctx, f"{install_dir.rstrip('/')}/{skill_slug}/SKILL.md", "-f")


@check("new_clawhub_check_list_output_contains_all_skills", "output_file", "skill_slugs")
def _claw_list(ctx: GetterContext, output_file: str, skill_slugs: str | list[str]) -> bool:
    slugs = skill_slugs if isinstance(skill_slugs, list) else [s.strip() for s in str(skill_slugs).split(",") if s.strip()]
    text = _read(ctx, output_file)
    return bool(slugs) and all(s in text for s in slugs)


# --- peekaboo (desktop state)
def _app_title(name: str) -> str:
    return _as(name)


@check("new_peekaboo_check_app_running", "app_name", tag="app_state")
def _pk_running(ctx: GetterContext, app_name: str) -> bool:
    return app_name in _script_list(ctx, 'tell application "System Events" to get name of every process')


@check("new_peekaboo_check_frontmost_app", "app_name", tag="app_state")
def _pk_front(ctx: GetterContext, app_name: str) -> bool:
    return _script_text(ctx, 'tell application "System Events" to get name of first process whose frontmost is true') == app_name


@check("new_peekaboo_check_textedit_document_equals", "expected_content", tag="app_state")
def _pk_textedit(ctx: GetterContext, expected_content: str) -> bool:
    return _norm(_script_text(ctx, 'tell application "TextEdit" to get text of document 1')) == _norm(expected_content)


@check("new_peekaboo_check_safari_front_url", "expected_url", tag="app_state")
def _pk_url(ctx: GetterContext, expected_url: str) -> bool:
    return _script_text(ctx, 'tell application "Safari" to get URL of current tab of front window') == expected_url


@check("new_peekaboo_check_window_bounds", "app_name", "expected_x", "expected_y", "expected_width", "expected_height", tag="system_config")
def _pk_bounds(ctx: GetterContext, app_name: str, expected_x: float, expected_y: float, expected_width: float,
               expected_height: float, tolerance: float = 0) -> bool:
    values = [float(v) for v in _script_list(ctx, f"tell application {_app_title(app_name)} to get bounds of front window")]
    if len(values) != 4:
        return False
    x1, y1, x2, y2 = values
    got = (x1, y1, x2 - x1, y2 - y1)
    want = (expected_x, expected_y, expected_width, expected_height)
    return all(abs(g - float(w)) <= float(tolerance) for g, w in zip(got, want))


@check("new_peekaboo_check_window_count_at_least", "app_name", "min_count", tag="app_state")
def _pk_windows(ctx: GetterContext, app_name: str, min_count: int) -> bool:
    text = _script_text(ctx, f"tell application {_app_title(app_name)} to count windows")
    return text.isdigit() and int(text) >= int(min_count)


@check("new_peekaboo_check_clipboard_empty", tag="system_config")
def _pk_clipboard(ctx: GetterContext) -> bool:
    out = ctx.shell("pbpaste")
    return out.exit_code == 0 and out.stdout == ""


# --- media: renders compared with a render of the same inputs made at check time, in the episode's shell
_SCRATCH = "$HOME/.mmenvs-official-check"
# Compares two images in the episode's shell (its python3 has Pillow and numpy): prints the mean absolute
# pixel difference, or "size" when the sizes differ; exits 1 when a file is not an image.
_COMPARE = """import sys
import numpy as np
from PIL import Image
a, b = (Image.open(p) for p in sys.argv[1:3])
a.load(); b.load()
if a.size != b.size:
    print("size")
else:
    print(float(np.abs(np.asarray(a.convert("RGB"), dtype=np.int16) - np.asarray(b.convert("RGB"), dtype=np.int16)).mean()))
"""


def _same_file(ctx: GetterContext, a: str, b: str) -> bool:
    out = ctx.shell(f"cmp -s -- {a} {b}")
    return out.exit_code == 0


def _same_image(ctx: GetterContext, got: str, want: str, tolerance: float = 4.0) -> bool:
    """Whether two image files (shell words) hold the same picture (mean pixel difference ≤ ``tolerance``)."""
    if _same_file(ctx, got, want):
        return True
    out = ctx.shell(f"python3 -c {shlex.quote(_COMPARE)} {got} {want}")
    if out.exit_code != 0 or out.stdout.strip() == "size":
        return False
    try:
        return float(out.stdout.strip()) <= tolerance
    except ValueError:
        return False


def _rendered(ctx: GetterContext, output_file: str, command: str, suffix: str, compare: Callable[[str, str], bool]) -> bool:
    """Run ``command`` with ``{out}`` a scratch file in the home, compare it with ``output_file``, remove it."""
    if not _exists(ctx, output_file, "-f"):
        raise _Missing(output_file)
    target = _path(f"{_SCRATCH}/expected.{suffix}")
    try:
        out = ctx.backend.run_shell(f"mkdir -p {_path(_SCRATCH)} && {command.replace('{out}', target)}",
                                    timeout=max(LIVE_TIMEOUT, ctx.shell_timeout))
        if out.exit_code != 0 or out.timed_out:
            raise GetterError(f"the reference render failed: {out.text.strip()[-300:]}")
        return compare(_path(output_file), target)
    finally:
        ctx.shell(f"rm -rf {_path(_SCRATCH)}")


def _head(ctx: GetterContext, path: str, count: int) -> bytes:
    out = ctx.shell(f"test -f {_path(path)} && head -c {int(count)} -- {_path(path)} | base64 -w0")
    if out.exit_code != 0 or out.timed_out:
        raise _Missing(path)
    return base64.b64decode(out.stdout.strip() or b"")


def _size(ctx: GetterContext, path: str) -> int:
    out = ctx.shell(f"test -f {_path(path)} && stat -c %s -- {_path(path)}")
    if out.exit_code != 0 or not out.stdout.strip().isdigit():
        raise _Missing(path)
    return int(out.stdout.strip())


_FORMAT_MAGIC = {"png": b"\x89PNG", "jpg": b"\xff\xd8\xff", "jpeg": b"\xff\xd8\xff"}
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF8")


@check("new_peekaboo_check_image_exists_nonempty", "output_file", tag="file_ops")
def _pk_image(ctx: GetterContext, output_file: str, min_size_bytes: int = 1) -> bool:
    return _size(ctx, output_file) >= int(min_size_bytes) and _head(ctx, output_file, 8).startswith(_IMAGE_MAGIC)


@check("new_songsee_check_render_matches_expected", "output_file", "input_audio", tag="file_ops")
def _songsee(ctx: GetterContext, output_file: str, input_audio: str, image_format: str = "png", viz_list: str = "",
             start_seconds: Any = None, duration_seconds: Any = None, style: str = "", width: Any = None, height: Any = None,
             window: Any = None, hop: Any = None, min_freq: Any = None, max_freq: Any = None) -> bool:
    fmt = str(image_format).lower()
    if not _head(ctx, output_file, 8).startswith(_FORMAT_MAGIC.get(fmt, b"")):
        return False
    options = [("--viz", viz_list), ("--start", start_seconds), ("--duration", duration_seconds), ("--style", style),
               ("--width", width), ("--height", height), ("--window", window), ("--hop", hop),
               ("--min-freq", min_freq), ("--max-freq", max_freq), ("--format", image_format)]
    flags = " ".join(f"{flag} {shlex.quote(str(value))}" for flag, value in options if value not in (None, ""))
    return _rendered(ctx, output_file, f"songsee {_path(input_audio)} {flags} -o {{out}} >/dev/null", fmt,
                     lambda a, b: _same_image(ctx, a, b))


@check("new_gifgrep_check_still_matches_expected_hash", "output_file", "input_gif_path", tag="file_ops")
def _gif_still(ctx: GetterContext, output_file: str, input_gif_path: str, at_time: str = "0s") -> bool:
    return _rendered(ctx, output_file, f"gifgrep still {_path(input_gif_path)} --at {shlex.quote(str(at_time))} -o {{out}} >/dev/null",
                     "png", lambda a, b: _same_image(ctx, a, b, tolerance=0.0))


@check("new_gifgrep_check_sheet_matches_expected_hash", "output_file", "input_gif_path", tag="file_ops")
def _gif_sheet(ctx: GetterContext, output_file: str, input_gif_path: str, frames: int = 0, cols: int = 0) -> bool:
    opts = (f" --frames {int(frames)}" if frames else "") + (f" --cols {int(cols)}" if cols else "")
    return _rendered(ctx, output_file, f"gifgrep sheet {_path(input_gif_path)}{opts} -o {{out}} >/dev/null", "png",
                     lambda a, b: _same_image(ctx, a, b, tolerance=0.0))


def _gif_urls(ctx: GetterContext, query: str, source: str) -> list[str]:
    return _lines(_live(ctx, f"gifgrep {shlex.quote(query)} --source {shlex.quote(source)} --format url"))


@check("new_gifgrep_check_url_file_has_min_lines", "output_file", "query")
def _gif_url_file(ctx: GetterContext, output_file: str, query: str, source: str = "tenor", min_lines: int = 1, min_overlap: int = 1) -> bool:
    lines = _lines(_read(ctx, output_file))
    if len(lines) < int(min_lines) or not all(re.match(r"https?://\S+$", line) for line in lines):
        return False
    return len(set(lines) & set(_gif_urls(ctx, query, source))) >= int(min_overlap)


@check("new_gifgrep_check_download_matches_first_result", "output_file", "query", tag="file_ops")
def _gif_download(ctx: GetterContext, output_file: str, query: str, source: str = "tenor") -> bool:
    urls = _gif_urls(ctx, query, source)
    if not urls or _size(ctx, output_file) == 0:
        return False
    return _rendered(ctx, output_file, f"curl -sL {shlex.quote(urls[0])} -o {{out}}", "gif", lambda a, b: _same_file(ctx, a, b))


def _video_frame(ctx: GetterContext, output_file: str, input_video: str, seek: str = "", scale: str = "") -> bool:
    suffix = output_file.rsplit(".", 1)[-1].lower() if "." in output_file.rsplit("/", 1)[-1] else "png"
    seek_arg = f"-ss {shlex.quote(seek)} " if seek else ""
    vf = f"-vf {shlex.quote(scale)} " if scale else ""
    return _rendered(ctx, output_file, f"ffmpeg -v error -y {seek_arg}-i {_path(input_video)} {vf}-frames:v 1 -update 1 {{out}}",
                     suffix, lambda a, b: _same_image(ctx, a, b, tolerance=8.0))


@check("new_video_frames_check_first_frame_matches_expected", "output_file", "input_video", tag="file_ops")
def _vf_first(ctx: GetterContext, output_file: str, input_video: str) -> bool:
    return _video_frame(ctx, output_file, input_video)


@check("new_video_frames_check_timestamp_frame_matches_expected", "output_file", "input_video", "timestamp", tag="file_ops")
def _vf_time(ctx: GetterContext, output_file: str, input_video: str, timestamp: str) -> bool:
    return _video_frame(ctx, output_file, input_video, seek=str(timestamp))


@check("new_video_frames_check_scaled_frame_matches_expected", "output_file", "input_video", "timestamp", "width", "height", tag="file_ops")
def _vf_scaled(ctx: GetterContext, output_file: str, input_video: str, timestamp: str, width: int, height: int) -> bool:
    return _video_frame(ctx, output_file, input_video, seek=str(timestamp), scale=f"scale={int(width)}:{int(height)}")


# --- speech synthesis output
def wav_seconds(header: bytes) -> float | None:
    """The duration of a RIFF/WAVE file from its first bytes (the ``fmt `` and ``data`` chunk headers)."""
    import struct

    if len(header) < 12 or header[:4] != b"RIFF" or header[8:12] != b"WAVE":
        return None
    pos, byte_rate = 12, None
    while pos + 8 <= len(header):
        chunk, size = header[pos:pos + 4], struct.unpack("<I", header[pos + 4:pos + 8])[0]
        if chunk == b"fmt " and pos + 20 <= len(header):
            byte_rate = struct.unpack("<I", header[pos + 16:pos + 20])[0]
        if chunk == b"data":
            return size / byte_rate if byte_rate else None
        pos += 8 + size + (size & 1)
    return None


@check("new_sherpa_onnx_tts_check_wav_properties", "output_file", tag="file_ops")
def _wav(ctx: GetterContext, output_file: str, min_duration_seconds: float = 0.0, max_duration_seconds: float = 1e9,
         min_size_bytes: int = 0) -> bool:
    seconds = wav_seconds(_head(ctx, output_file, 4096))
    return (seconds is not None and _size(ctx, output_file) >= int(min_size_bytes)
            and float(min_duration_seconds) <= seconds <= float(max_duration_seconds))


# --- iWork (the front document, read with AppleScript as the public harness reads it)
def _tell(app: str, target: str, expr: str) -> str:
    return f'tell application "{app}" to tell {target} to get {expr}' if target else f'tell application "{app}" to get {expr}'


def _num(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise _Missing(text) from None


def _count(ctx: GetterContext, app: str, target: str, what: str) -> int:
    return int(_num(_script_text(ctx, _tell(app, target, f"count of {what}"))))


def _numbers_of(ctx: GetterContext, source: str) -> list[float]:
    return [_num(v) for v in _script_list(ctx, source)]


def _doc_name(ctx: GetterContext, app: str) -> str:
    return re.sub(r"\.(key|pages|numbers)$", "", _script_text(ctx, f'tell application "{app}" to get name of front document'))


def _close(a: float, b: float, tolerance: float = 1.0) -> bool:
    return abs(float(a) - float(b)) <= tolerance


_KEYNOTE_SLIDES = 'tell application "Keynote" to tell front document to get count of slides'


def _keynote_items(ctx: GetterContext, kind: str) -> list[tuple[int, int]]:
    """(slide, index) of every ``kind`` (shape, image, table, text item) on the front document's slides."""
    items = []
    for slide in range(1, int(_num(_script_text(ctx, _KEYNOTE_SLIDES))) + 1):
        for i in range(1, _count(ctx, "Keynote", f"slide {slide} of front document", f"{kind}s") + 1):
            items.append((slide, i))
    return items


def _geometry(ctx: GetterContext, app: str, item: str) -> tuple[float, float, float, float]:
    x, y = _numbers_of(ctx, f'tell application "{app}" to get position of {item}')
    w = _num(_script_text(ctx, f'tell application "{app}" to get width of {item}'))
    h = _num(_script_text(ctx, f'tell application "{app}" to get height of {item}'))
    return x, y, w, h


@check("keynote_test_doc_creation", "template_name", "doc_name", tag="app_state")
def _kn_doc(ctx: GetterContext, template_name: str, doc_name: str) -> bool:
    theme = _script_text(ctx, 'tell application "Keynote" to get name of document theme of front document')
    return theme == template_name and _doc_name(ctx, "Keynote") == doc_name


@check("keynote_test_item_delection", "del_cnt", tag="app_state")
def _kn_deleted(ctx: GetterContext, del_cnt: int) -> bool:
    """The slide added to the new document has ``del_cnt`` of its layout's text boxes (title, body) removed."""
    slides = int(_num(_script_text(ctx, _KEYNOTE_SLIDES)))
    if slides < 2:
        return False
    added = f"slide {slides} of front document"
    hidden = sum(_script_text(ctx, f'tell application "Keynote" to get {part} showing of {added}') == "false" for part in ("title", "body"))
    return hidden == int(del_cnt)


@check("keynote_test_image_insertion", "width", "height", "posx", "posy", tag="app_state")
def _kn_image(ctx: GetterContext, width: float, height: float, posx: float, posy: float, rotation: float = 0) -> bool:
    for slide, i in _keynote_items(ctx, "image"):
        item = f"image {i} of slide {slide} of front document"
        x, y, w, h = _geometry(ctx, "Keynote", item)
        turn = _num(_script_text(ctx, f'tell application "Keynote" to get rotation of {item}'))
        if _close(x, posx) and _close(y, posy) and _close(w, width) and _close(h, height) and _close(turn, rotation):
            return True
    return False


@check("keynote_test_table_insertion", "rows", "cols", "row", "col", "content", tag="app_state")
def _kn_table(ctx: GetterContext, rows: int, cols: int, row: int, col: int, content: str) -> bool:
    for slide, i in _keynote_items(ctx, "table"):
        table = f"table {i} of slide {slide} of front document"
        counts = [_num(_script_text(ctx, f'tell application "Keynote" to get {what} of {table}')) for what in ("row count", "column count")]
        value = _script_text(ctx, f'tell application "Keynote" to get value of cell {int(col)} of row {int(row)} of {table}')
        if counts == [int(rows), int(cols)] and value == str(content):
            return True
    return False


_COLORS = {"red": (65535, 0, 0), "green": (0, 65535, 0), "blue": (0, 0, 65535), "black": (0, 0, 0), "white": (65535, 65535, 65535)}


def _is_color(values: list[float], name: str) -> bool:
    want = _COLORS.get(str(name).lower())
    return want is not None and len(values) == 3 and all(abs(v - w) <= 2048 for v, w in zip(values, want))


@check("keynote_test_text_box_insertion", "content", tag="app_state")
def _kn_text(ctx: GetterContext, content: str, color: str = "", font_size: float = 0, font: str = "") -> bool:
    for slide, i in _keynote_items(ctx, "text item"):
        text = f"object text of text item {i} of slide {slide} of front document"
        if _script_text(ctx, f'tell application "Keynote" to get {text}') != content:
            continue
        ok = not color or _is_color(_numbers_of(ctx, f'tell application "Keynote" to get color of {text}'), color)
        ok = ok and (not font_size or _close(_num(_script_text(ctx, f'tell application "Keynote" to get size of {text}')), font_size, 0.01))
        ok = ok and (not font or _script_text(ctx, f'tell application "Keynote" to get font of {text}') == font)
        if ok:
            return True
    return False


def _kn_shapes(ctx: GetterContext) -> list[tuple[float, float, float, float]]:
    return [_geometry(ctx, "Keynote", f"shape {i} of slide {slide} of front document") for slide, i in _keynote_items(ctx, "shape")]


@check("keynote_test_shape_insertion", "width", "height", "posx", "posy", tag="app_state")
def _kn_shape(ctx: GetterContext, width: float, height: float, posx: float, posy: float) -> bool:
    return any(_close(x, posx) and _close(y, posy) and _close(w, width) and _close(h, height) for x, y, w, h in _kn_shapes(ctx))


def _pos(text: str) -> tuple[float, float]:
    x, y = (float(v) for v in str(text).split(","))
    return x, y


@check("keynote_test_shape_insertion_multi", "width", "height", "pos1", "pos2", "pos3", tag="app_state")
def _kn_shapes_multi(ctx: GetterContext, width: float, height: float, pos1: str, pos2: str, pos3: str) -> bool:
    shapes = _kn_shapes(ctx)
    return all(any(_close(x, px) and _close(y, py) and _close(w, width) and _close(h, height) for x, y, w, h in shapes)
               for px, py in (_pos(pos1), _pos(pos2), _pos(pos3)))


@check("keynote_test_slide_insertion", "insert_cnt", "skip_idx", tag="app_state")
def _kn_slides(ctx: GetterContext, insert_cnt: int, skip_idx: int) -> bool:
    slides = int(_num(_script_text(ctx, _KEYNOTE_SLIDES)))
    skipped = _script_text(ctx, f'tell application "Keynote" to get skipped of slide {int(skip_idx)} of front document') if slides >= int(skip_idx) else ""
    return slides == 1 + int(insert_cnt) and skipped == "true"


_NUMBERS_TABLE = "table 1 of sheet 1 of front document"
MAX_CELLS = 2000  # a check reads at most this many cells (a task file's rows x cols is untrusted)


def _grid(rows: Any, cols: Any) -> tuple[int, int]:
    rows, cols = int(rows), int(cols)
    if not (0 < rows and 0 < cols and rows * cols <= MAX_CELLS):
        raise GetterError(f"rows x cols must be between 1 and {MAX_CELLS} cells, got {rows} x {cols}")
    return rows, cols


def _cell(ctx: GetterContext, row: int, col: int, app: str = "Numbers", table: str = _NUMBERS_TABLE) -> str:
    return _script_text(ctx, f'tell application "{app}" to get value of cell {int(col)} of row {int(row)} of {table}')


def _same_value(got: str, want: Any) -> bool:
    try:
        return float(got) == float(want)
    except (TypeError, ValueError):
        return got == str(want)


@check("numbers_test_create_and_save_table", "doc_name", "file_name", "sheet_name", "table_name", tag="app_state")
def _nm_create(ctx: GetterContext, doc_name: str, file_name: str, sheet_name: str, table_name: str, template_name: str = "") -> bool:
    # the sim's Numbers has no "Blank Black" template: the document's name, file, sheet and table are checked
    path = file_name if file_name.startswith(("/", "~", "$HOME")) else f"~/{file_name}"
    return (_exists(ctx, path) and _doc_name(ctx, "Numbers") == doc_name
            and _script_text(ctx, 'tell application "Numbers" to get name of sheet 1 of front document') == sheet_name
            and _script_text(ctx, 'tell application "Numbers" to get name of table 1 of sheet 1 of front document') == table_name)


@check("numbers_test_cell_operation", "cells", "values", tag="app_state")
def _nm_cells(ctx: GetterContext, cells: list[list[int]], values: list[Any]) -> bool:
    if len(cells) > MAX_CELLS:
        raise GetterError(f"at most {MAX_CELLS} cells, got {len(cells)}")
    return bool(cells) and all(_same_value(_cell(ctx, r, c), v) for (r, c), v in zip(cells, values))


@check("numbers_test_value_replacement", "rows", "cols", "target_value", "replace_value", tag="app_state")
def _nm_replace(ctx: GetterContext, rows: int, cols: int, target_value: Any, replace_value: Any) -> bool:
    rows, cols = _grid(rows, cols)
    for r in range(1, int(rows) + 1):
        for c in range(1, int(cols) + 1):
            seeded = numbers_table_value(r, c, int(cols))
            want = replace_value if float(seeded) == float(target_value) else seeded
            if not _same_value(_cell(ctx, r, c), want):
                return False
    return True


@check("numbers_test_cell_merge", "merged_cell", tag="app_state")
def _nm_merge(ctx: GetterContext, merged_cell: list[int], rows: int = 0, cols: int = 0) -> bool:
    c1, r1, c2, r2 = (int(v) for v in merged_cell)  # [column, row, column, row] of the range's corners: A1:A2 = [1, 1, 1, 2]
    _grid(r2 - r1 + 1, c2 - c1 + 1)
    first = _script_text(ctx, f'tell application "Numbers" to get name of cell {c1} of row {r1} of {_NUMBERS_TABLE}')
    return (c1, r1) != (c2, r2) and all(
        _script_text(ctx, f'tell application "Numbers" to get name of cell {c} of row {r} of {_NUMBERS_TABLE}') == first
        for r in range(r1, r2 + 1) for c in range(c1, c2 + 1))


@check("numbers_test_change_bgcolor", "rows", "cols", tag="app_state")
def _nm_bgcolor(ctx: GetterContext, rows: int, cols: int, is_larger: bool = False, min: float = 0, is_smaller: bool = False,
                max: float = 0, is_equal: bool = False) -> bool:
    rows, cols = _grid(rows, cols)
    for r in range(1, int(rows) + 1):
        for c in range(1, int(cols) + 1):
            value = float(numbers_table_value(r, c, int(cols)))
            wanted = ((not is_larger or value > float(min) or (is_equal and value == float(min)))
                      and (not is_smaller or value < float(max) or (is_equal and value == float(max))))
            color = _script_text(ctx, f'tell application "Numbers" to get background color of cell {c} of row {r} of {_NUMBERS_TABLE}')
            values = [float(v) for v in color.split(",")] if "," in color else []
            if _is_color(values, "red") != wanted:
                return False
    return True


_PAGES_DOC = 'tell application "Pages" to get body text of front document'


@check("pages_test_create_and_enter_content", "template_name", "doc_name", "content", tag="app_state")
def _pg_create(ctx: GetterContext, template_name: str, doc_name: str, content: str) -> bool:
    template = _script_text(ctx, 'tell application "Pages" to get name of document template of front document')
    return template == template_name and _doc_name(ctx, "Pages") == doc_name and str(content) in _script_text(ctx, _PAGES_DOC)


def _pages_chars(ctx: GetterContext) -> int:
    return len(_script_text(ctx, _PAGES_DOC))


@check("pages_test_change_font_color", "color", tag="app_state")
def _pg_color(ctx: GetterContext, color: str) -> bool:
    count = _pages_chars(ctx)
    return count > 0 and all(_is_color(_numbers_of(ctx, f'tell application "Pages" to get color of character {i} of body text of front document'), color)
                             for i in sorted({1, (count + 1) // 2, count}))


@check("pages_test_change_text_font", "idx", "target_font", tag="app_state")
def _pg_font(ctx: GetterContext, idx: int, target_font: str) -> bool:
    return _pages_chars(ctx) >= int(idx) and _script_text(
        ctx, f'tell application "Pages" to get font of character {int(idx)} of body text of front document') == target_font


@check("pages_test_insert_table", "col", "row", "target_val", tag="app_state")
def _pg_table(ctx: GetterContext, col: int, row: int, target_val: str) -> bool:
    tables = _count(ctx, "Pages", "front document", "tables")
    return any(_cell(ctx, row, col, "Pages", f"table {i} of front document") == str(target_val) for i in range(1, tables + 1))


@check("pages_test_find_and_replace", "content", "target", "replace", tag="app_state")
def _pg_replace(ctx: GetterContext, content: str, target: str, replace: str) -> bool:
    return _script_text(ctx, _PAGES_DOC).strip() == content.replace(target, replace).strip()


@check("pages_test_shape_pos_and_size", "pos", "width", "height", tag="app_state")
def _pg_shape(ctx: GetterContext, pos: str, width: float, height: float) -> bool:
    px, py = _pos(pos)
    points = 72.0  # the task gives inches; AppleScript answers points
    shapes = _count(ctx, "Pages", "front document", "shapes")
    for i in range(1, shapes + 1):
        x, y, w, h = _geometry(ctx, "Pages", f"shape {i} of front document")
        if _close(x, px) and _close(y, py) and _close(w, float(width) * points) and _close(h, float(height) * points):
            return True
    return False


@check("pages_check_body_text", "p_idx", "expected_text", tag="content_match")
def _pg_page(ctx: GetterContext, p_idx: int, expected_text: str) -> bool:
    return str(expected_text) in _script_text(ctx, f'tell application "Pages" to get body text of page {int(p_idx)} of front document')


# --- files
@check("check_file_exists", "file_path", tag="file_ops")
def _file_exists(ctx: GetterContext, file_path: str) -> bool:
    return _exists(ctx, file_path)


# ---------------------------------------------------------------------------------------------- verification
def verify_official(env: Any, task_ids: Iterable[str] | None = None, max_steps: int = 30) -> list[dict[str, Any]]:
    """Run each task twice: its oracle's solution, and ``DONE`` alone. One row a task: id, the oracle's
    score, the empty attempt's score, and what went wrong (setup notes, failed checkpoints)."""
    rows = []
    base = env.unwrapped
    for task_id in task_ids if task_ids is not None else base.task_ids():
        row: dict[str, Any] = {"id": task_id, "oracle": None, "done": None, "detail": ""}
        try:
            obs, info = env.reset(options={"task_id": task_id})
            for _ in range(max_steps):
                obs, reward, terminated, truncated, info = env.step(base.oracle_action(obs, info))
                if terminated or truncated:
                    break
            row["oracle"] = float(info["score"])
            if row["oracle"] < 1.0:
                failed = [f"{c['name']}: {c.get('error') or c.get('got')}" for c in info.get("checkpoints", []) if not c["passed"]]
                row["detail"] = "; ".join(failed)[:300]
                if info.get("setup_notes"):
                    row["detail"] += " | setup: " + "; ".join(info["setup_notes"])[:200]
            obs, info = env.reset(options={"task_id": task_id})
            obs, reward, terminated, truncated, info = env.step("DONE")
            row["done"] = float(info["score"])
        except Exception as exc:  # a task that breaks the env is reported, the others still run
            row["detail"] = f"{type(exc).__name__}: {exc}"[:300]
        rows.append(row)
    return rows


def report_markdown(suite: OfficialSuite, rows: list[dict[str, Any]] | None = None) -> str:
    """The per-task table (id, status, reason) as Markdown."""
    by_id = {row["id"]: row for row in rows or []}
    lines = ["| id | status | oracle | DONE | reason |", "|---|---|---|---|---|"]
    for seed in suite.seeds:
        row = by_id.get(seed.id)
        if row is None:
            lines.append(f"| {seed.id} | imported | | | oracle: {suite.oracle.get(seed.id)} |")
            continue
        ok = row["oracle"] == 1.0 and row["done"] == 0.0
        status = "pass" if ok else "fail"
        reason = f"oracle: {suite.oracle.get(seed.id)}" + (f"; {row['detail']}" if row["detail"] else "")
        lines.append(f"| {seed.id} | {status} | {row['oracle']} | {row['done']} | {reason.replace('|', '/')} |")
    for skip in suite.skipped:
        lines.append(f"| {skip.id} | skipped | | | {skip.reason.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def list_official(path: str | Path, *, details: bool = False, verify: bool = False, report: str | Path | None = None,
                  out: Callable[[str], None] = print) -> int:
    """``mmenvs list --official-dir PATH [--details] [--verify] [--report FILE]``: the import report of a
    checkout (counts, the oracle kinds, every skipped task and why), with ``--details`` the suite's
    breakdowns, with ``--verify`` each task's oracle and DONE scores and the totals."""
    import gymnasium as gym

    env = gym.make("MacAgent-v0", suite="official", official_dir=str(path))
    try:
        base = env.unwrapped
        suite = base.official
        for line in suite.summary_lines():
            out(line)
        if details:
            size = len(base.task_ids())
            for name, counts in base.suite_breakdown().items():
                if name in ("seed", "variant"):  # one task a seed, all of variant "official"
                    continue
                out(f"  by {name}:")
                for value, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
                    out(f"    {value:<32} {count:>5}  ({count / size:.0%})")
        rows = None
        if verify:
            rows = verify_official(env)
            for row in rows:
                ok = row["oracle"] == 1.0 and row["done"] == 0.0
                out(f"  {'pass' if ok else 'FAIL'} {row['id']}: oracle {row['oracle']}, DONE {row['done']}"
                    + (f" ({row['detail']})" if row["detail"] else ""))
            oracle = sum(r["oracle"] == 1.0 for r in rows)
            zero = sum(r["done"] == 0.0 for r in rows)
            both = sum(r["oracle"] == 1.0 and r["done"] == 0.0 for r in rows)
            out(f"imported {len(suite.seeds)}/{suite.total}; oracle scores 1.0 on {oracle}/{suite.total}; "
                f"DONE scores 0 on {zero}/{len(rows)}; both on {both}/{suite.total} ({both / max(suite.total, 1):.0%})")
        if report:
            Path(report).write_text(report_markdown(suite, rows), encoding="utf-8")
            out(f"wrote {report}")
    finally:
        env.close()
    return 0
