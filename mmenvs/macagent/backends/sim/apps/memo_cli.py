"""``memo`` (antoniorodr's Apple Notes and Reminders CLI) over the sim's Notes and Reminders.

``memo notes`` lists every note as ``N. Folder - Title`` (``-f FOLDER`` filters, ``-v N`` shows note N as
Markdown, ``-fl`` lists the folders); ``-a`` (with ``-f``) and ``-e`` open ``$EDITOR`` on a Markdown file
(``# Title``, a blank line, the text) and save what the editor leaves; ``-d``, ``-m`` and ``-r`` ask for
the note number, the target folder or the folder to remove on stdin, as memo's prompts do; ``-ex``
exports every note as HTML (``~/Desktop/notes/<folder>/<title>.html`` by default) after its two
confirmations; ``-s`` is memo's fuzzy search: the query is the first line of stdin (what one types into
its finder) or, in the sim, an argument after ``-s``. ``memo rem`` lists the open reminders with a due
date (``N. Title | YYYY-MM-DD HH:MM:SS | Due …``); ``-a``, ``-c``, ``-d``, ``-e`` prompt like memo.

The editor step runs in the episode's shell: the ``memo`` shell function (``shell_init``) writes the
Markdown into a temporary file, runs ``$EDITOR`` on it (default ``vim``) and hands the result to this
host command. A program that runs ``memo`` without that function (``bash -c`` from Python) reaches the
plain host command, which has no editor to run: ``-a``/``-e`` then cancel, as memo does when the editor
saved nothing.
"""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from typing import Any

from ....applescript.model import ObjectRef
from .base import App, CommandContext
from .home_io import checked_name
from .notes import NotesApp
from .skill_args import MAX_ARG_CHARS, MAX_LIST_ITEMS, CliError, Option, parse, run_guarded, write_home_file

VERSION = "memo, version 0.5.2"
TEMPLATE = "# Your note title\n\nWrite your note here..."
#: separates what the fetch phase of ``memo notes -e`` prints from the note it hands to the editor step
_MARK = "\x1e"

# The editor step (see the module docstring). ``--mm-edited`` tells the host command that stdin holds
# the file the editor left; ``--mm-fetch`` asks it for the note to edit (its Markdown after _MARK).
_SHELL_INIT = r"""memo() {
  local __a __mode=""
  [ "${1-}" = notes ] && for __a in "$@"; do case "$__a" in -a|--add) __mode=add;; -e|--edit) __mode=edit;; esac; done
  if [ -z "$__mode" ]; then __mm_host memo "--mm-cwd=$PWD" "$@"; return; fi
  local __f __rc __out __id
  __f=$(mktemp "${TMPDIR:-/tmp}/memo.XXXXXX.md") || return 1
  if [ "$__mode" = add ]; then
    printf '%s' '# Your note title

Write your note here...' > "$__f"
  else
    __out=$(__mm_host memo "--mm-cwd=$PWD" "$@" --mm-fetch); __rc=$?
    printf '%s' "${__out%%$'\x1e'*}"
    if [ $__rc -ne 0 ] || [ "$__out" = "${__out%%$'\x1e'*}" ]; then rm -f "$__f"; return $__rc; fi
    __out=${__out#*$'\x1e'}; __id=${__out%%$'\n'*}
    printf '%s' "${__out#*$'\n'}" > "$__f"
  fi
  "${EDITOR:-vim}" "$__f" </dev/null >/dev/null 2>&1
  __mm_host memo "--mm-cwd=$PWD" "$@" --mm-edited ${__id:+"--mm-note=$__id"} < "$__f"; __rc=$?
  rm -f "$__f"
  return $__rc
}
"""

_HELP = """Usage: memo [OPTIONS] COMMAND [ARGS]...

Options:
  --version  Show the version and exit.
  --help     Show this message and exit.

Commands:
  notes
  recordings  Manage call recordings from Apple Notes.
  rem
"""
_NOTES_HELP = """Usage: memo notes [OPTIONS]

Options:
  -f, --folder TEXT  Specify a folder to filter the notes (leave empty to get all).
  -a, --add          Add a note to the specified folder. Specify a folder using the --folder flag.
  -e, --edit         Edit a note in the specified folder. Specify a folder using the --folder flag.
  -d, --delete       Delete a note in the specified folder. Specify a folder using the --folder flag.
  -m, --move         Move a note to a different folder.
  -fl, --flist       List all the folders and subfolders.
  -s, --search       Fuzzy search your notes.
  -r, --remove       Remove the folder you specified.
  -ex, --export      Export your notes to the Desktop.
  -nc, --no-cache    Bypass the notes cache and fetch fresh data from Notes.
  -v, --view INTEGER Display the content of note N from the list.
  --help             Show this message and exit.
"""
_REM_HELP = """Usage: memo rem [OPTIONS]

Options:
  -c, --complete  Mark a reminder as completed.
  -a, --add       Add a new reminder.
  -d, --delete    Delete a reminder.
  -e, --edit      Edit a reminder.
  --help          Show this message and exit.
"""


def _usage(cmd: str, text: str) -> CliError:
    return CliError(f"Usage: memo {cmd} [OPTIONS]\nTry 'memo {cmd} --help' for help.\n\nError: {text}", 2)


class _Prompts:
    """memo's click prompts over a piped stdin: the prompt text goes to stdout, the answer is the next
    line; no line left is click's ``Aborted!`` (status 1)."""

    def __init__(self, stdin: str, out: list[str]) -> None:
        self.lines = stdin.split("\n") if stdin else []
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.out = out

    def ask(self, text: str, default: str | None = None) -> str:
        self.out.append(f"{text}{f' [{default}]' if default is not None else ''}: ")
        if not self.lines:
            raise CliError("\nAborted!", 1, "".join(self.out))
        answer = self.lines.pop(0).strip()  # piped input is not echoed: no newline after the prompt
        return answer if answer or default is None else default

    def confirm(self, text: str, default: bool = False) -> bool:
        while True:
            self.out.append(f"{text} [{'Y/n' if default else 'y/N'}]: ")
            if not self.lines:
                raise CliError("\nAborted!", 1, "".join(self.out))
            a = self.lines.pop(0).strip().lower()
            if not a:
                return default
            if a in ("y", "yes"):
                return True
            if a in ("n", "no"):
                return False
            self.out.append("Error: invalid input\n")

    def number(self, text: str) -> int:
        while True:
            a = self.ask(text)
            try:
                return int(a)
            except ValueError:
                self.out.append(f"Error: '{a}' is not a valid integer.\n")


class MemoTool(App):
    """``memo``: no window, no state of its own (the notes are Notes', the reminders Reminders')."""

    name = "memo"
    bundle_id = "com.antoniorodr.memo"
    in_dock = False
    text_editing = False
    shell_commands = {"memo": True}
    shell_init = _SHELL_INIT

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("memo", lambda: _Memo(self.desktop, ctx, stdin).run(argv[1:]), ctx)


def md_to_html(md: str) -> str:
    """The HTML Notes stores for memo's Markdown: headings, list items and paragraphs, text escaped."""
    out: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append("<p>" + "<br>".join(html.escape(x) for x in para) + "</p>")
            para.clear()

    for line in md.split("\n"):
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            flush()
            n = len(m.group(1))
            out.append(f"<h{n}>{html.escape(m.group(2).strip())}</h{n}>")
        elif re.match(r"^\s*[-*+]\s+", line):
            flush()
            out.append("<ul><li>" + html.escape(re.sub(r"^\s*[-*+]\s+", "", line)) + "</li></ul>")
        elif not line.strip():
            flush()
        else:
            para.append(line)
    flush()
    return "\n".join(out)


class _Memo:
    def __init__(self, desktop: Any, ctx: CommandContext, stdin: str) -> None:
        self.notes_app: NotesApp = desktop.apps["Notes"]
        self.rem_app = desktop.apps["Reminders"]
        self.desktop, self.ctx, self.stdin = desktop, ctx, stdin
        self.out: list[str] = []

    def run(self, args: list[str]) -> tuple[str, str, int]:
        if not args or args[0] in ("--help", "-h"):
            return _HELP, "", 0
        if args[0] == "--version":
            return VERSION + "\n", "", 0
        cmd, rest = args[0], args[1:]
        if cmd == "notes":
            return self.notes(rest)
        if cmd == "rem":
            return self.rem(rest)
        if cmd == "recordings":
            if "--help" in rest:
                return "Usage: memo recordings [OPTIONS]\n\n  Manage call recordings from Apple Notes.\n", "", 0
            return ("\nFetching call recordings...\n\nNo call recordings found.\n"
                    "Call recordings are saved by iOS 18.1+ in the 'Call Recordings' folder.\n"), "", 0
        if cmd.startswith("-"):
            raise CliError(f"Usage: memo [OPTIONS] COMMAND [ARGS]...\nTry 'memo --help' for help.\n\nError: No such option: {cmd}", 2)
        raise CliError(f"Usage: memo [OPTIONS] COMMAND [ARGS]...\nTry 'memo --help' for help.\n\nError: No such command '{cmd}'.", 2)

    # ------------------------------------------------------------------ notes
    def _list(self) -> list[dict[str, Any]]:
        return self.notes_app.notes()[:MAX_LIST_ITEMS]

    def _folders(self) -> list[str]:
        return [f["name"] for f in self.notes_app.folders()]

    def _md(self, note: dict[str, Any]) -> str:
        return f"# {note['name']}\n\n{note['body']}".rstrip("\n") if note["body"] else f"# {note['name']}"

    def notes(self, args: list[str]) -> tuple[str, str, int]:
        opts = [Option(("-f", "--folder"), True), Option(("-a", "--add")), Option(("-e", "--edit")),
                Option(("-d", "--delete")), Option(("-m", "--move")), Option(("-fl", "--flist")),
                Option(("-s", "--search")), Option(("-r", "--remove")), Option(("-ex", "--export")),
                Option(("-nc", "--no-cache")), Option(("-v", "--view"), True), Option(("--help",)),
                Option(("--mm-edited",)), Option(("--mm-fetch",)), Option(("--mm-note",), True)]
        p = parse(args, opts, unknown=lambda n: _usage("notes", f"No such option: {n}"),
                  missing=lambda n: _usage("notes", f"Option '{n}' requires an argument."))
        if p.flag("help"):
            return _NOTES_HELP, "", 0
        if p.args and not p.flag("search"):
            raise _usage("notes", f"Got unexpected extra argument ({p.args[0]})")
        folder = p.get("folder", "")
        view = p.get("view")
        used = {k: p.flag(k) for k in ("edit", "delete", "move", "add", "flist", "search", "remove", "export")}
        if used["add"] and not folder:
            raise _usage("notes", "--add/ must be used indicating a folder to create the note to.")
        if used["flist"] and (sum(used.values()) > 1 or folder):
            raise _usage("notes", "--flist must be used alone. It cannot be combined with other flags or --folder.")
        if sum(used[k] for k in ("edit", "delete", "move", "remove", "search")) > 1:
            raise _usage("notes", "Only one of --edit, --delete, --move, --remove or search can be used at a time.")
        notes = self._list()
        numbered = list(enumerate(notes, start=1))
        entries = [(n, f"{x['folder']} - {x['name']}") for n, x in numbered]
        shown = [(n, e) for n, e in entries if folder in e]
        folders_text = "\n".join(self._folders())
        ask = _Prompts(self.stdin, self.out)
        if view is not None:
            try:
                v = int(view)
            except ValueError:
                raise _usage("notes", f"Invalid value for '--view' / '-v': '{view}' is not a valid integer.") from None
            if not 1 <= v <= len(notes):
                return f"\nNote {v} not found.\n", "", 0
            return f"\n{self._md(notes[v - 1])}\n", "", 0
        if not (used["flist"] or used["search"] or used["remove"] or used["export"]) \
                and not (used["edit"] and p.flag("mm_edited")):
            self.out.append("\nFetching notes...\n")
            if folder not in folders_text:
                self.out.append("\nThe folder does not exists.\n\nUse 'memo notes -fl' to see your folders\n")
            elif not shown:
                self.out.append("\nNo notes found.\n")
            else:
                title = f"Your Notes in folder {folder}:" if folder else "All your notes:"
                self.out.append(f"\n{title}\n\n" + "".join(f"{n}. {e}\n" for n, e in shown))
        if used["edit"]:
            self._edit(p, shown, notes, ask)
        if used["add"]:
            self._add(p, folder)
        if used["move"]:
            nid = self._pick(shown, notes, "move", ask)
            target = ask.ask("\nEnter the folder you want to move the note to")
            if target not in self._folders():
                self.out.append(f"\nError: The folder '{target}' does not exist.\n")
                return "".join(self.out), "", 1
            self._move(nid, target)
            self.out.append(f"\nNote moved to '{target}' folder.\n")
        if used["delete"]:
            nid = self._pick(shown, notes, "delete", ask)
            self.notes_app.delete_note(nid)
            self.out.append("\nNote deleted successfully.\n")
        if used["flist"]:
            self.out.append(f"\nFolders and subfolders in Notes:\n\n{folders_text}\n")
        if used["search"]:
            self._search(p.args, entries, notes, ask)
        if used["remove"]:
            self.out.append(f"\n{folders_text}\n")
            self.out.append("\n⚠️ Make sure the folder is empty, because the notes it includes will be deleted too.\n")
            name = ask.ask("\nEnter the name of the folder to delete")
            self._remove_folder(name)
        if used["export"]:
            self._export(ask)
        return "".join(self.out), "", 0

    def _pick(self, shown: list[tuple[int, str]], notes: list[dict[str, Any]], action: str, ask: _Prompts) -> str:
        self.out.append("\nRemember: Due to AppleScript limitations, the images will be preserved at the end of the note.\n")
        valid = {n for n, _e in shown}
        while True:
            choice = ask.number(f"\nEnter the number of the note you want to {action}")
            if choice in valid:
                return notes[choice - 1]["id"]
            self.out.append("\nInvalid selection. The note you selected is not in the list.\n")

    def _edited(self, p: Any) -> str | None:
        """The Markdown the editor step left (``--mm-edited``: stdin), else None (no editor ran)."""
        if not p.flag("mm_edited"):
            return None
        return _bounded(self.stdin).strip()

    def _add(self, p: Any, folder: str) -> None:
        md = self._edited(p)
        if md is None or not md or md == TEMPLATE:
            self.out.append("\nNote creation cancelled.\n")
            return
        if folder not in self._folders():
            self.out.append("\nError: Could not create note. Check if the folder exists.\n")
            return
        at = next(f for f in self.notes_app.store.all("folder") if self.notes_app.store.record(f)["name"] == folder)
        self.notes_app.store.make("note", {"body": md_to_html(md)}, at)
        self.notes_app.touch()
        self.out.append(f"\nNote created in '{folder}' folder.\n")

    def _edit(self, p: Any, shown: list[tuple[int, str]], notes: list[dict[str, Any]], ask: _Prompts) -> None:
        if p.flag("mm_edited"):  # the editor step: store what the editor left in the note it fetched
            nid = p.get("mm_note")
            if nid is None or nid not in self.notes_app.store.records:
                raise CliError("memo: the note to save is gone", 1)
            md = _bounded(self.stdin).strip()
            if not md:
                self.out.append("\nNote edit cancelled.\n")
                return
            self.notes_app.store.set_property(ObjectRef("note", nid), "body", md_to_html(md))
            self.notes_app.touch()
            self.out.append("\nNote updated successfully.\n")
            return
        nid = self._pick(shown, notes, "edit", ask)
        if p.flag("mm_fetch"):
            note = next(n for n in notes if n["id"] == nid)
            self.out.append(f"{_MARK}{nid}\n{self._md(note)}\n")
            return
        self.out.append("\nNote edit cancelled.\n")  # no editor ran (the shell function was bypassed)

    def _move(self, nid: str, target: str) -> None:
        st = self.notes_app.store
        dst = next(f for f in st.all("folder") if st.record(f)["name"] == target)
        old = st.parents[nid]
        st.children[old].remove(nid)
        st.children[dst.id].append(nid)
        st.parents[nid] = dst.id
        self.notes_app.touch()

    def _remove_folder(self, name: str) -> None:
        st = self.notes_app.store
        match = [f for f in st.all("folder") if st.record(f)["name"] == name]
        if not match:
            self.out.append(f"\nError: The folder '{name}' does not exist.\n")
            return
        if len(st.all("folder")) == 1:
            self.out.append(f"\nError: Could not delete the folder '{name}': it is the only folder.\n")
            return
        if self.notes_app.selected_folder == match[0].id:
            self.notes_app.selected_folder = None
        st.delete(match[0])
        self.notes_app.selected_note = None
        self.notes_app.touch()
        self.out.append(f"\nFolder '{name}' deleted successfully.\n")

    def _search(self, args: list[str], entries: list[tuple[int, str]], notes: list[dict[str, Any]],
                ask: _Prompts) -> None:
        self.out.append("\nFetching notes...\n\n")
        query = " ".join(args) if args else ask.ask("Search")
        q = query.lower().strip()

        def fuzzy(text: str) -> bool:
            it = iter(text.lower())
            return all(ch in it for ch in q)

        hits = [(n, e) for (n, e), note in zip(entries, notes)
                if q in e.lower() or q in note["body"].lower() or fuzzy(e)]
        if not hits:
            self.out.append("No notes found.\n")
            return
        self.out.append("".join(f"{n}. {e}\n" for n, e in hits))

    def _export(self, ask: _Prompts) -> None:
        if not ask.confirm("\nAre you sure you want to export your notes to HTML?"):
            return
        home = self.ctx.backend.posix_home.rstrip("/")
        if ask.confirm("\nDo you want to export to the default path (Desktop/notes)?", default=True):
            shown = f"{home}/Desktop/notes/"
            self.out.append(f"\nExporting to: {shown}\n")
        else:
            shown = ask.ask("\nEnter custom path")
            if self.desktop.home_files.kind(self.ctx.resolve(shown)) != "dir":
                self.out.append("\nThe specified path does not exist. Please create all the missing folders.\n")
                return
        root = self.ctx.resolve(shown)
        count = 0
        for note in self._list():
            folder = _safe(note["folder"] or "Notes")
            name = _safe(note["name"] or "Untitled")
            page = (f"<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>{html.escape(note['name'])}</title></head>\n"
                    f"<body>\n{self.notes_app.store.get_property(ObjectRef('note', note['id']), 'body')}\n</body>\n</html>\n")
            write_home_file(self.ctx, root / folder / f"{name}.html", page.encode("utf-8"))
            count += 1
        self.out.append(f"\nExported {count} notes successfully.\n")

    # ------------------------------------------------------------------ reminders
    def _reminders(self) -> list[dict[str, Any]]:
        items = [r for r in self.rem_app.reminders() if not r["completed"] and r["due_date"] is not None]
        return sorted(items, key=lambda r: r["due_date"])[:MAX_LIST_ITEMS]

    def rem(self, args: list[str]) -> tuple[str, str, int]:
        p = parse(args, [Option(("-c", "--complete")), Option(("-a", "--add")), Option(("-d", "--delete")),
                         Option(("-e", "--edit")), Option(("--help",))],
                  unknown=lambda n: _usage("rem", f"No such option: {n}"),
                  missing=lambda n: _usage("rem", f"Option '{n}' requires an argument."))
        if p.flag("help"):
            return _REM_HELP, "", 0
        if p.args:
            raise _usage("rem", f"Got unexpected extra argument ({p.args[0]})")
        ask = _Prompts(self.stdin, self.out)
        if p.flag("add"):
            title = ask.ask("\nEnter the title of the reminder")
            date = ask.ask("Enter the due date (YYYY-MM-DD)")
            time = ask.ask("Enter the due time (HH:MM)")
            try:
                due = datetime.strptime(f"{date} {time}", "%Y-%m-%d %H:%M")
            except ValueError:
                raise CliError(f"ValueError: time data '{date} {time}' does not match format '%Y-%m-%d %H:%M'",
                               1, "".join(self.out)) from None
            self.rem_app.add_reminder(title, due=due)
            self.out.append(f"\nReminder '{title}' added successfully.\n")
            return "".join(self.out), "", 0
        items = self._reminders()
        base = self.desktop.now - timedelta(days=1)
        self.out.append("\nYour Reminders:\n\n")
        for n, r in enumerate(items, 1):
            days = (r["due_date"] - base).days
            tail = ((f"Due on {days} day" if days > 0 else "Due today") if days <= 1 else f"Due on {days} days")
            self.out.append(f"{n}. {r['name']} | {r['due_date'].strftime('%Y-%m-%d %H:%M:%S')} | {tail}\n")
        for action in ("complete", "delete", "edit"):
            if not p.flag(action):
                continue
            choice = ask.number(f"\nEnter the number of the reminder you want to {action}")
            if not 1 <= choice <= len(items):
                raise CliError("IndexError: The reminder you selected is not in the list.", 1, "".join(self.out))
            rid = items[choice - 1]["id"]
            ref = ObjectRef("reminder", rid)
            st = self.rem_app.store
            if action == "complete":
                st.set_property(ref, "completed", True)
                self.out.append("\nReminder completed.\n")
            elif action == "delete":
                st.delete(ref)
                self.out.append("\nReminder deleted.\n")
            else:
                part = ask.ask("\nEnter the part to edit ('title' or 'due date')").lower()
                if part == "title":
                    st.set_property(ref, "name", ask.ask("\nEnter the new title"))
                elif part == "due date":
                    date = ask.ask("Enter the new due date (YYYY-MM-DD)")
                    time = ask.ask("Enter the new due time (HH:MM)")
                    try:
                        st.set_property(ref, "due date", datetime.strptime(f"{date} {time}", "%Y-%m-%d %H:%M"))
                    except ValueError:
                        raise CliError(f"ValueError: time data '{date} {time}' does not match format '%Y-%m-%d %H:%M'",
                                       1, "".join(self.out)) from None
                else:
                    self.out.append("\nInvalid option. Use 'title' or 'due date'.\n")
                    return "".join(self.out), "", 1
                self.out.append("\nReminder updated.\n")
            self.rem_app.touch()
        return "".join(self.out), "", 0


def _bounded(text: str) -> str:
    """The note the editor left, refused when it is longer than one argument may be."""
    if len(text) > MAX_ARG_CHARS:
        raise CliError(f"memo: the note has {len(text):,} characters; the simulator's limit is {MAX_ARG_CHARS:,}", 1)
    return text


def _safe(name: str) -> str:
    """A note or folder name as one file name (``/`` and NUL replaced, never ``.``/``..``)."""
    text = name.replace("/", "-").replace("\0", "").strip() or "Untitled"
    text = text[:200]
    if text in (".", ".."):
        text = "_" + text
    return checked_name(text)


