"""``remindctl`` (steipete's Reminders CLI) over the sim's Reminders: the same lists and reminders the
app shows and AppleScript reads.

* show: ``remindctl [today|tomorrow|week|overdue|upcoming|completed|all|YYYY-MM-DD]`` (also as
  ``remindctl show FILTER [--list NAME]``), ``remindctl list [NAME]``;
* change: ``list NAME --create|--rename NEW|--delete``, ``add [TITLE] --title --list --due --notes
  --priority``, ``edit ID --title --list --due --clear-due --notes --priority --complete --incomplete``,
  ``complete ID…``, ``delete ID… [--force]``; ``status``, ``authorize``;
* output: the standard lines (``[1] [ ] Title [List] — due``), ``--plain`` (tab-separated: id, list,
  completed 0/1, priority, due, title), ``--json`` (pretty, sorted keys, ISO 8601 dates) and ``--quiet``
  (counts).

An ID is a reminder's index in the standard listing of ``remindctl all`` (``1``, ``2``, …) or its id (or a
prefix of at least 4 characters, case-insensitive). Ids are stable UUIDs derived from the sim's record ids.
Due dates take ``today``, ``tomorrow``, ``yesterday``, ``YYYY-MM-DD`` (all-day), ``YYYY-MM-DD HH:mm`` and
ISO 8601; the desktop's clock is "now" and its time zone UTC.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from ....applescript.model import ObjectRef
from .base import App, CommandContext
from .reminders import RemindersApp
from .skill_args import MAX_LIST_ITEMS, CliError, Option, Parsed, parse, run_guarded

VERSION = "remindctl 0.4.0"
PRIORITY = {0: "none", 1: "high", 5: "medium", 9: "low"}
PRIORITY_VALUE = {"none": 0, "high": 1, "medium": 5, "low": 9}
FILTERS = ("today", "tomorrow", "week", "overdue", "upcoming", "open", "completed", "all")
#: the short spellings remindctl takes for its filters
FILTER_ALIASES = {"tday": "today", "t": "tomorrow", "w": "week", "o": "overdue", "u": "upcoming", "done": "completed",
                  "c": "completed", "a": "all"}

_HELP = """remindctl — Fast CLI for Apple Reminders

Usage:
  remindctl [filter] [options]          show reminders (default: today)
  remindctl show [filter] [--list NAME]
  remindctl list [NAME] [--create | --rename NEW | --delete]
  remindctl add [TITLE] [--title T] [--list NAME] [--due DATE] [--notes TEXT] [--priority P]
  remindctl edit ID [--title T] [--list NAME] [--due DATE | --clear-due] [--notes TEXT] [--priority P]
                    [--complete | --incomplete]
  remindctl complete ID...
  remindctl delete ID... [--force]
  remindctl status
  remindctl authorize

Filters: today, tomorrow, week, overdue, upcoming, open, completed, all, or a date (YYYY-MM-DD)
Dates: today, tomorrow, yesterday, YYYY-MM-DD, YYYY-MM-DD HH:mm, ISO 8601
Priority: none, low, medium, high
IDs: the index shown in the listing ([1], [2], …) or the reminder id (a prefix of 4+ characters)

Options:
  --json        emit JSON
  --plain       emit tab-separated lines
  -q, --quiet   emit counts only
  --no-color    disable colors
  --no-input    never prompt
  -h, --help    show this help
  -V, --version show the version
"""

_OUTPUT = [Option(("--json", "-j")), Option(("--plain",)), Option(("-q", "--quiet")), Option(("--no-color",)),
           Option(("--no-input",)), Option(("-h", "--help")), Option(("-V", "--version"))]


def _err(text: str, code: int = 1) -> CliError:
    return CliError(f"Error: {text}", code)


class RemindctlTool(App):
    """``remindctl``: no window, no state of its own (the reminders are the Reminders app's)."""

    name = "remindctl"
    bundle_id = "com.steipete.remindctl"
    in_dock = False
    text_editing = False
    # ``delete`` without --force reads its confirmation from stdin
    shell_commands = {"remindctl": True}

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("remindctl", lambda: _Remindctl(self.desktop.apps["Reminders"], stdin).run(argv[1:]), ctx)


def _uid(kind: str, rid: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"mmenvs-sim-{kind}:{rid}")).upper()


class _Remindctl:
    def __init__(self, app: RemindersApp, stdin: str) -> None:
        self.app, self.st, self.stdin = app, app.store, stdin
        self.now: datetime = app.desktop.now
        self.fmt = "standard"

    # ------------------------------------------------------------------ parsing
    def _parse(self, args: list[str], extra: list[Option], usage: str) -> Parsed:
        p = parse(args, _OUTPUT + extra, unknown=lambda n: _err(f"Unknown option: {n}\nUsage: {usage}", 64),
                  missing=lambda n: _err(f"Missing value for {n}\nUsage: {usage}", 64))
        if p.flag("help"):
            raise CliError("", 0, _HELP)
        if p.flag("version"):
            raise CliError("", 0, VERSION + "\n")
        self.fmt = "json" if p.flag("json") else "plain" if p.flag("plain") else "quiet" if p.flag("quiet") else "standard"
        return p

    def run(self, args: list[str]) -> tuple[str, str, int]:
        try:
            return self._run(args)
        except CliError as e:
            if e.code == 0:  # help / version
                return e.stdout, "", 0
            raise

    def _run(self, args: list[str]) -> tuple[str, str, int]:
        cmd = next((a for a in args if not a.startswith("-")), None)
        if cmd is None or cmd in FILTERS or cmd in FILTER_ALIASES or _is_date(cmd) or cmd == "show":
            rest = list(args)
            if cmd == "show":
                rest.remove("show")
            p = self._parse(rest, [Option(("-l", "--list"), True)], "remindctl show [filter] [--list NAME]")
            if len(p.args) > 1:
                raise _err(f"Unexpected argument: {p.args[1]}", 64)
            return self.show(p.args[0] if p.args else "today", p.get("list"))
        rest = list(args)
        rest.remove(cmd)
        handler = {"list": self.lists, "add": self.add, "edit": self.edit, "complete": self.complete,
                   "delete": self.delete, "status": self.status, "authorize": self.status, "help": None}.get(cmd)
        if cmd == "help":
            return _HELP, "", 0
        if handler is None:
            raise _err(f"Unknown command or filter: {cmd}\nRun 'remindctl --help' for usage.", 64)
        return handler(rest)

    # ------------------------------------------------------------------ model
    def _items(self) -> list[dict[str, Any]]:
        out = []
        for ref in self.st.all("reminder"):
            r = self.st.record(ref)
            lid = self.st.parents[ref.id]
            out.append({"ref": ref, "r": r, "id": _uid("reminder", ref.id), "list": self.st.records[lid]["name"],
                        "list_id": _uid("list", lid)})
        return out

    @staticmethod
    def _due(item: dict[str, Any]) -> datetime | None:
        return item["r"]["due date"]

    def _sorted(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # remindctl's order: by due date (none last), then by title
        return sorted(items, key=lambda i: (self._due(i) is None, self._due(i) or datetime.min, i["r"]["name"]))

    def _list_ref(self, name: str) -> ObjectRef:
        for ref in self.st.all("list"):
            if self.st.record(ref)["name"] == name:
                return ref
        low = name.lower()
        for ref in self.st.all("list"):
            if self.st.record(ref)["name"].lower() == low:
                return ref
        raise _err(f"List not found: {name}")

    def _resolve(self, ids: list[str]) -> list[dict[str, Any]]:
        ordered = self._sorted(self._items())
        out = []
        for token in ids:
            if token.isdigit() and len(token) < 10:
                n = int(token)
                if not 1 <= n <= len(ordered):
                    raise _err(f"Reminder not found: {token}")
                out.append(ordered[n - 1])
                continue
            t = token.upper()
            hits = [i for i in ordered if i["id"] == t] or ([i for i in ordered if i["id"].startswith(t)] if len(t) >= 4 else [])
            if not hits:
                raise _err(f"Reminder not found: {token}")
            if len(hits) > 1:
                raise _err(f"Ambiguous reminder id: {token} matches {len(hits)} reminders")
            out.append(hits[0])
        return out

    def _parse_due(self, text: str) -> tuple[datetime, bool]:
        t = text.strip()
        low = t.lower()
        day = self.now.replace(hour=0, minute=0, second=0, microsecond=0)
        rel = {"today": 0, "tomorrow": 1, "yesterday": -1}
        if low in rel:
            return day + timedelta(days=rel[low]), True
        for fmt, all_day in (("%Y-%m-%d", True), ("%Y-%m-%d %H:%M", False), ("%Y-%m-%dT%H:%M", False),
                             ("%Y-%m-%d %H:%M:%S", False), ("%Y-%m-%dT%H:%M:%S", False)):
            try:
                return datetime.strptime(t, fmt), all_day
            except ValueError:
                pass
        try:
            d = datetime.fromisoformat(t.replace("Z", "+00:00"))
            if d.tzinfo is not None:
                d = d.astimezone(timezone.utc).replace(tzinfo=None)
            return d, False
        except ValueError:
            raise _err(f"Invalid date: {text} (use today, tomorrow, yesterday, YYYY-MM-DD, YYYY-MM-DD HH:mm "
                       "or ISO 8601)") from None

    def _priority(self, text: str) -> int:
        if text.lower() not in PRIORITY_VALUE:
            raise _err(f"Invalid priority: {text} (use none, low, medium or high)")
        return PRIORITY_VALUE[text.lower()]

    # ------------------------------------------------------------------ output
    def _json_item(self, i: dict[str, Any]) -> dict[str, Any]:
        r = i["r"]
        iso = lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ") if d else None  # noqa: E731
        return {"id": i["id"], "title": r["name"], "notes": r["body"] or None, "isCompleted": bool(r["completed"]),
                "completionDate": iso(r["completion date"]), "creationDate": iso(r["creation date"]),
                "lastModifiedDate": iso(r["modification date"]), "priority": PRIORITY.get(_prio_class(r["priority"]), "none"),
                "dueDate": iso(r["due date"]), "dueDateIsAllDay": r["allday due date"] is not None,
                "listID": i["list_id"], "listName": i["list"]}

    def _display_due(self, i: dict[str, Any]) -> str:
        d = i["r"]["due date"]
        if d is None:
            return "no due date"
        if i["r"]["allday due date"] is not None:
            return d.strftime("%b %-d, %Y")
        return d.strftime("%b %-d, %Y at %-I:%M %p")

    def _plain(self, i: dict[str, Any]) -> str:
        r = i["r"]
        d = r["due date"]
        due = "" if d is None else (d.strftime("%Y-%m-%d") if r["allday due date"] is not None
                                    else d.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
        return "\t".join([i["id"], i["list"], "1" if r["completed"] else "0",
                          PRIORITY.get(_prio_class(r["priority"]), "none"), due, r["name"]])

    def _print_items(self, items: list[dict[str, Any]]) -> tuple[str, str, int]:
        items = self._sorted(items)[:MAX_LIST_ITEMS]
        if self.fmt == "json":
            return _dump([self._json_item(i) for i in items]), "", 0
        if self.fmt == "plain":
            return "".join(self._plain(i) + "\n" for i in items), "", 0
        if self.fmt == "quiet":
            return f"{len(items)}\n", "", 0
        if not items:
            return "No reminders found\n", "", 0
        lines = []
        for n, i in enumerate(items, 1):
            pr = PRIORITY.get(_prio_class(i["r"]["priority"]), "none")
            lines.append(f"[{n}] [{'x' if i['r']['completed'] else ' '}] {i['r']['name']} [{i['list']}] — "
                         f"{self._display_due(i)}{'' if pr == 'none' else ' priority=' + pr}")
        return "\n".join(lines) + "\n", "", 0

    def _print_one(self, i: dict[str, Any]) -> str:
        if self.fmt == "json":
            return _dump(self._json_item(i))
        if self.fmt == "plain":
            return self._plain(i) + "\n"
        if self.fmt == "quiet":
            return ""
        return f"✓ {i['r']['name']} [{i['list']}] — {self._display_due(i)}\n"

    # ------------------------------------------------------------------ commands
    def show(self, flt: str, list_name: str | None) -> tuple[str, str, int]:
        items = self._items()
        if list_name is not None:
            name = self.st.record(self._list_ref(list_name))["name"]
            items = [i for i in items if i["list"] == name]
        flt = FILTER_ALIASES.get(flt.lower(), flt.lower())
        today = self.now.date()
        open_ = [i for i in items if not i["r"]["completed"]]
        due = lambda i: self._due(i)  # noqa: E731
        if flt == "all":
            pass
        elif flt == "completed":
            items = [i for i in items if i["r"]["completed"]]
        elif flt == "open":
            items = open_
        elif flt == "today":  # due today, or overdue
            items = [i for i in open_ if due(i) is not None and due(i).date() <= today]
        elif flt == "tomorrow":
            items = [i for i in open_ if due(i) is not None and due(i).date() == today + timedelta(days=1)]
        elif flt == "week":  # the calendar week (Sunday to Saturday, the en_US week) holding today
            start = today - timedelta(days=(today.weekday() + 1) % 7)
            items = [i for i in open_ if due(i) is not None and start <= due(i).date() <= start + timedelta(days=7)]
        elif flt == "overdue":  # due before today began
            items = [i for i in open_ if due(i) is not None and due(i).date() < today]
        elif flt == "upcoming":  # every open reminder with a due date
            items = [i for i in open_ if due(i) is not None]
        else:
            try:
                day = datetime.strptime(flt, "%Y-%m-%d").date()
            except ValueError:
                raise _err(f"Unknown filter: {flt}", 64) from None
            items = [i for i in open_ if due(i) is not None and due(i).date() == day]
        return self._print_items(items)

    def lists(self, args: list[str]) -> tuple[str, str, int]:
        usage = "remindctl list [NAME] [--create | --rename NEW | --delete]"
        p = self._parse(args, [Option(("--create",)), Option(("--rename",), True), Option(("--delete",)),
                               Option(("-f", "--force"))], usage)
        if len(p.args) > 1:
            raise _err(f"Unexpected argument: {p.args[1]}", 64)
        if not p.args:
            if p.flag("create") or p.get("rename") or p.flag("delete"):
                raise _err(f"A list name is required\nUsage: {usage}", 64)
            summaries = []
            for ref in self.st.all("list"):
                kids = [self.st.record(ObjectRef("reminder", c)) for c in self.st.children.get(ref.id, [])]
                open_ = [k for k in kids if not k["completed"]]
                overdue = [k for k in open_ if k["due date"] is not None and k["due date"] < self.now]
                summaries.append({"id": _uid("list", ref.id), "title": self.st.record(ref)["name"],
                                  "reminderCount": len(open_), "overdueCount": len(overdue)})
            summaries.sort(key=lambda s: s["title"])
            if self.fmt == "json":
                return _dump(summaries), "", 0
            if self.fmt == "plain":
                return "".join(f"{s['title']}\t{s['reminderCount']}\t{s['overdueCount']}\n" for s in summaries), "", 0
            if self.fmt == "quiet":
                return f"{len(summaries)}\n", "", 0
            if not summaries:
                return "No reminder lists found\n", "", 0
            return "".join(f"{s['title']} — {s['reminderCount']} reminders"
                           f"{f' ({o} overdue)' if (o := s['overdueCount']) else ''}\n" for s in summaries), "", 0
        name = p.args[0]
        if p.flag("create"):
            if not name.strip():
                raise _err("List name cannot be empty")
            if any(self.st.record(r)["name"] == name for r in self.st.all("list")):
                raise _err(f"List already exists: {name}")
            self.app.add_list(name)
            return ("" if self.fmt == "quiet" else f"Created list {name}\n"), "", 0
        ref = self._list_ref(name)
        shown = self.st.record(ref)["name"]
        if p.get("rename") is not None:
            new = p.get("rename")
            if not new.strip():
                raise _err("List name cannot be empty")
            self.st.record(ref)["name"] = new
            self.app.touch()
            return ("" if self.fmt == "quiet" else f"Renamed list {shown} to {new}\n"), "", 0
        if p.flag("delete"):
            if len(self.st.all("list")) == 1:
                raise _err(f"Cannot delete {shown}: it is the only reminder list")
            if self.app.selected == "list:" + ref.id:
                self.app.selected = "smart:Today"
            self.st.delete(ref)
            self.app.touch()
            return ("" if self.fmt == "quiet" else f"Deleted list {shown}\n"), "", 0
        items = [i for i in self._items() if i["list"] == shown and not i["r"]["completed"]]
        return self._print_items(items)

    def add(self, args: list[str]) -> tuple[str, str, int]:
        usage = "remindctl add [TITLE] [--title T] [--list NAME] [--due DATE] [--notes TEXT] [--priority P]"
        p = self._parse(args, [Option(("-t", "--title"), True), Option(("-l", "--list"), True), Option(("-d", "--due"), True),
                               Option(("-n", "--notes"), True), Option(("-p", "--priority"), True)], usage)
        title = p.get("title") if p.get("title") is not None else " ".join(p.args)
        if not title.strip():
            raise _err(f"A title is required\nUsage: {usage}", 64)
        at = self._list_ref(p.get("list")) if p.get("list") is not None else self.st.all("list")[0]
        props: dict[str, Any] = {"name": title, "body": p.get("notes") or "", "flagged": False}
        if p.get("priority") is not None:
            props["priority"] = self._priority(p.get("priority"))
        if p.get("due") is not None:
            d, all_day = self._parse_due(p.get("due"))
            props["due date"] = d
            if all_day:
                props["allday due date"] = d
        ref = self.st.make("reminder", props, at)
        self.app.touch()
        item = next(i for i in self._items() if i["ref"].id == ref.id)
        return self._print_one(item), "", 0

    def edit(self, args: list[str]) -> tuple[str, str, int]:
        usage = ("remindctl edit ID [--title T] [--list NAME] [--due DATE | --clear-due] [--notes TEXT] [--priority P] "
                 "[--complete | --incomplete]")
        p = self._parse(args, [Option(("-t", "--title"), True), Option(("-l", "--list"), True), Option(("-d", "--due"), True),
                               Option(("--clear-due",)), Option(("-n", "--notes"), True), Option(("-p", "--priority"), True),
                               Option(("--complete",)), Option(("--incomplete",))], usage)
        if len(p.args) != 1:
            raise _err(f"Exactly one reminder ID is required\nUsage: {usage}", 64)
        item = self._resolve(p.args)[0]
        ref = item["ref"]
        changes: dict[str, Any] = {}
        if p.get("title") is not None:
            if not p.get("title").strip():
                raise _err("Title cannot be empty")
            changes["name"] = p.get("title")
        if p.get("notes") is not None:
            changes["body"] = p.get("notes")
        if p.get("priority") is not None:
            changes["priority"] = self._priority(p.get("priority"))
        if p.get("due") is not None and p.flag("clear_due"):
            raise _err("Use either --due or --clear-due, not both", 64)
        if p.get("due") is not None:
            d, all_day = self._parse_due(p.get("due"))
            changes["due date"], changes["allday due date"] = d, (d if all_day else None)
        if p.flag("clear_due"):
            changes["due date"] = changes["allday due date"] = None
        if p.flag("complete") and p.flag("incomplete"):
            raise _err("Use either --complete or --incomplete, not both", 64)
        target = self._list_ref(p.get("list")) if p.get("list") is not None else None
        if not changes and target is None and not (p.flag("complete") or p.flag("incomplete")):
            raise _err("Nothing to change: give at least one of --title, --list, --due, --clear-due, --notes, "
                       "--priority, --complete, --incomplete", 64)
        for k, v in changes.items():
            self.st.set_property(ref, k, v)
        if p.flag("complete") or p.flag("incomplete"):
            self.st.set_property(ref, "completed", p.flag("complete"))
        if target is not None and target.id != self.st.parents[ref.id]:
            old = self.st.parents[ref.id]
            self.st.children[old].remove(ref.id)
            self.st.children[target.id].append(ref.id)
            self.st.parents[ref.id] = target.id
        self.app.touch()
        item = next(i for i in self._items() if i["ref"].id == ref.id)
        return self._print_one(item), "", 0

    def complete(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [], "remindctl complete ID...")
        if not p.args:
            raise _err("At least one reminder ID is required\nUsage: remindctl complete ID...", 64)
        items = self._resolve(p.args)
        for i in items:
            self.st.set_property(i["ref"], "completed", True)
        self.app.touch()
        fresh = {i["ref"].id: i for i in self._items()}
        if self.fmt == "json":
            return _dump([self._json_item(fresh[i["ref"].id]) for i in items]), "", 0
        return "".join(self._print_one(fresh[i["ref"].id]) for i in items), "", 0

    def delete(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("-f", "--force"))], "remindctl delete ID... [--force]")
        if not p.args:
            raise _err("At least one reminder ID is required\nUsage: remindctl delete ID... [--force]", 64)
        items = self._resolve(p.args)
        if not p.flag("force"):
            answer = self.stdin.split("\n", 1)[0].strip().lower()
            if p.flag("no_input") or answer not in ("y", "yes"):
                prompt = f"Delete {len(items)} reminder(s)? [y/N] "
                raise CliError(f"{prompt}\nError: Deletion cancelled (confirm with y, or pass --force)", 1)
        for i in items:
            self.st.delete(i["ref"])
        self.app.selected_reminder = None
        self.app.touch()
        if self.fmt == "json":
            return _dump({"deleted": len(items)}), "", 0
        if self.fmt == "plain":
            return f"{len(items)}\n", "", 0
        if self.fmt == "quiet":
            return "", "", 0
        return f"Deleted {len(items)} reminder(s)\n", "", 0

    def status(self, args: list[str]) -> tuple[str, str, int]:
        self._parse(args, [], "remindctl status")
        if self.fmt == "json":
            return _dump({"authorized": True, "status": "full-access"}), "", 0
        if self.fmt == "plain":
            return "full-access\n", "", 0
        if self.fmt == "quiet":
            return "1\n", "", 0
        return "Reminders access: Full access\n", "", 0


def _prio_class(value: int) -> int:
    v = int(value or 0)
    return 1 if 1 <= v <= 4 else 5 if v == 5 else 9 if 6 <= v <= 9 else 0


def _is_date(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m-%d")
        return True
    except ValueError:
        return False


def _dump(payload: Any) -> str:
    return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
