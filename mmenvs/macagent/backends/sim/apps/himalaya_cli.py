"""``himalaya`` (pimalaya's mail CLI, v1.1 command set) over the sim's Mail: one account, ``icloud``
(``user@icloud.com``), whose folders are Mail's mailboxes (Inbox, Drafts, Sent, Junk, Trash, Archive and
any the task or the agent adds). It answers, non-interactively as in a script:

* ``account list``; ``folder list|add|delete``;
* ``envelope list [-f FOLDER] [-p PAGE] [-s PAGE_SIZE] [QUERY…]`` with himalaya's search grammar
  (``subject|from|to|body PATTERN``, ``date|before|after YYYY-MM-DD``, ``flag FLAG``, ``not``, ``and``,
  ``or``, parentheses, ``order by date|from|to|subject [asc|desc]``), newest first, 10 a page by default,
  a page past the last one an "out of bounds" error;
* ``flag add|set|remove [-f FOLDER] ID… FLAG…``;
* ``message read|export|send|save|copy|move|delete``, ``template write|reply|forward|send``;
* ``-o json`` (the global ``--output``) for machine-readable output: an envelope is
  ``{"id", "flags", "subject", "from": {"name", "addr"}, "to": {"name", "addr"}, "date", "has_attachment"}``.

Message ids are the Mail store's ids: unique across folders and kept when a message moves. Dates are
shown in the desktop's clock, UTC (the shell's ``TZ``). What needs an interactive editor
(``message write|reply|forward`` without a body) says so and points at ``template write`` + ``message send``.
"""

from __future__ import annotations

import json
import re
import shlex
from datetime import datetime, timezone
from email import policy
from email.message import EmailMessage
from email.parser import Parser
from email.utils import format_datetime, getaddresses, parseaddr, parsedate_to_datetime
from typing import Any, Callable

from ....applescript.errors import AppleScriptError
from ....applescript.model import ObjectRef
from .base import App, CommandContext
from .mail import _ADDR, ACCOUNT_EMAIL, MailApp
from .skill_args import MAX_ARG_CHARS, MAX_LIST_ITEMS, CliError, Option, parse, run_guarded, write_home_file

VERSION = "himalaya v1.1.0 +imap +smtp +maildir +sendmail"
ACCOUNT = "icloud"
DEFAULT_PAGE_SIZE = 10
#: folder names himalaya users type for the standard mailboxes (IMAP's and iCloud's own names)
ALIASES = {"inbox": "Inbox", "sent": "Sent", "sent messages": "Sent", "drafts": "Drafts", "trash": "Trash",
           "deleted messages": "Trash", "junk": "Junk", "spam": "Junk", "archive": "Archive"}
FLAGS = {"seen": "Seen", "answered": "Answered", "flagged": "Flagged", "deleted": "Deleted", "draft": "Draft"}

_HELP = """CLI to manage emails

Usage: himalaya [OPTIONS] [COMMAND]

Commands:
  account     Configure, list and diagnose your accounts
  folder      Create, list and purge your folders (as known as mailboxes)
  envelope    List, search and sort your envelopes
  flag        Add, change and remove your envelopes flags
  message     Read, write, send, copy, move and delete your messages
  attachment  Download your message attachments
  template    Generate, save and send message templates
  help        Print this message or the help of the given subcommand(s)

Options:
  -c, --config <PATH>      Override the default configuration file path
  -o, --output <FORMAT>    Customize the output format [default: plain] [possible values: plain, json]
      --debug              Enable logs with spantrace
      --trace              Enable verbose logs with backtrace
  -q, --quiet              Disable all logs
  -h, --help               Print help (see more with '--help')
  -V, --version            Print version
"""

_SUB_HELP = {
    "envelope list": """List all envelopes.

This command allows you to list all envelopes included in the given folder, matching the given query.

Usage: himalaya envelope list [OPTIONS] [QUERY]...

Arguments:
  [QUERY]...  The query, as a filter and/or a sort: `subject foo and not from bar order by date desc`.
              Filters: date|before|after <yyyy-mm-dd>, from|to|subject|body <pattern>, flag <flag>,
              combined with not, and, or and parentheses. Sorts: order by date|from|to|subject [asc|desc]

Options:
  -f, --folder <NAME>        The name of the folder [default: INBOX]
  -p, --page <NUMBER>        The page number [default: 1]
  -s, --page-size <NUMBER>   The page size
  -w, --max-width <PIXELS>   The maximum width the table should not exceed
  -a, --account <NAME>       Override the default account
  -h, --help                 Print help
""",
    "message read": """Read a message.

Usage: himalaya message read [OPTIONS] <ID>...

Options:
  -f, --folder <NAME>       The name of the folder [default: INBOX]
  -p, --preview             Read the message without marking it as seen
  -r, --raw                 Read the raw version of the message
      --no-headers          Do not print the headers
  -H, --header <NAME>       Headers to print (repeatable)
  -a, --account <NAME>      Override the default account
  -h, --help                Print help
""",
    "message export": """Export a message.

Usage: himalaya message export [OPTIONS] <ID>

Options:
  -f, --folder <NAME>          The name of the folder [default: INBOX]
  -F, --full                   Export the full raw message as one .eml file
  -d, --destination <PATH>     Where to export (default: the standard output)
  -a, --account <NAME>         Override the default account
  -h, --help                   Print help
""",
    "message send": """Send a message.

The raw message (headers, an empty line, the body) is read from the arguments, else from the standard input.

Usage: himalaya message send [OPTIONS] [MESSAGE]...
""",
    "message move": """Move a message from a source folder to a target folder.

Usage: himalaya message move [OPTIONS] <TARGET> <ID>...

Options:
  -f, --folder <NAME>   The name of the source folder [default: INBOX]
""",
}


class _Stop(Exception):
    """Help or version text: printed on stdout, exit 0."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _usage(text: str, usage: str) -> CliError:
    return CliError(f"error: {text}\n\nUsage: {usage}\n\nFor more information, try '--help'.", 2)


def _fail(*lines: str) -> CliError:
    """himalaya's error report: ``Error:`` then the chain of causes, numbered."""
    return CliError("Error: \n" + "".join(f"   {i}: {line}\n" for i, line in enumerate(lines)), 1)


class HimalayaTool(App):
    """``himalaya``: no window, no state of its own (the messages are Mail's); see the module docstring."""

    name = "himalaya"
    bundle_id = "org.pimalaya.himalaya"
    in_dock = False
    text_editing = False
    # ``message send``/``save`` and ``template send`` read the message from stdin
    # only `message send|save` and `template send|save` read a message from stdin; any other call given
    # /dev/null, or it would swallow the input of an enclosing `while read` loop
    shell_commands = {"himalaya": 'local __a; __mm_in=0; for __a in "$@"; do case "$__a" in send|save) __mm_in=1;; esac; done; '}

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("himalaya", lambda: _Himalaya(self.desktop.apps["Mail"], ctx, stdin).run(argv[1:]), ctx)


_GLOBAL = [Option(("-c", "--config"), True), Option(("-o", "--output"), True), Option(("--debug",)),
           Option(("--trace",)), Option(("-q", "--quiet")), Option(("-h", "--help")), Option(("-V", "--version")),
           Option(("-a", "--account"), True)]


class _Himalaya:
    def __init__(self, mail: MailApp, ctx: CommandContext, stdin: str) -> None:
        self.mail, self.ctx, self.stdin = mail, ctx, stdin
        self.json = False

    # ------------------------------------------------------------------ dispatch
    def run(self, args: list[str]) -> tuple[str, str, int]:
        try:
            return self._run(args)
        except _Stop as s:
            return s.text, "", 0

    def _opts(self, args: list[str], usage: str, extra: list[Option], help_key: str = "") -> Any:
        p = parse(args, _GLOBAL + extra,
                  unknown=lambda n: _usage(f"unexpected argument '{n}' found", usage),
                  missing=lambda n: _usage(f"a value is required for '{n}' but none was supplied", usage))
        if p.flag("help"):
            raise _Stop(_SUB_HELP.get(help_key, f"Usage: {usage}\n"))
        out = p.get("output")
        if out is not None:
            if out not in ("plain", "json"):
                raise _usage(f"invalid value '{out}' for '--output <FORMAT>'\n  [possible values: plain, json]", usage)
            self.json = out == "json"
        acct = p.get("account")
        if acct is not None and acct != ACCOUNT:
            raise _fail(f"cannot find account {acct}")
        return p

    def _run(self, args: list[str]) -> tuple[str, str, int]:
        # global options before the command
        i = 0
        while i < len(args) and args[i].startswith("-"):
            a = args[i]
            if a in ("-h", "--help"):
                raise _Stop(_HELP)
            if a in ("-V", "--version"):
                raise _Stop(VERSION + "\n")
            if a in ("-o", "--output", "-c", "--config", "-a", "--account"):
                if i + 1 >= len(args):
                    raise _usage(f"a value is required for '{a}' but none was supplied", "himalaya [OPTIONS] [COMMAND]")
                if a in ("-o", "--output"):
                    self._opts([a, args[i + 1]], "himalaya [OPTIONS] [COMMAND]", [])
                i += 2
                continue
            if a.startswith("--output="):
                self._opts([a], "himalaya [OPTIONS] [COMMAND]", [])
                i += 1
                continue
            if a in ("--debug", "--trace", "-q", "--quiet"):
                i += 1
                continue
            raise _usage(f"unexpected argument '{a}' found", "himalaya [OPTIONS] [COMMAND]")
        rest = args[i:]
        if not rest:
            # without a command himalaya lists the envelopes of the inbox
            return self.envelope_list([])
        cmd, sub, tail = rest[0], (rest[1] if len(rest) > 1 else ""), rest[2:]
        if cmd == "help":
            raise _Stop(_HELP)
        table: dict[str, dict[str, Callable[[list[str]], tuple[str, str, int]]]] = {
            "account": {"list": self.account_list},
            "folder": {"list": self.folder_list, "add": self.folder_add, "create": self.folder_add,
                       "delete": self.folder_delete},
            "envelope": {"list": self.envelope_list},
            "flag": {"add": lambda a: self.flag(a, "add"), "set": lambda a: self.flag(a, "set"),
                     "remove": lambda a: self.flag(a, "remove")},
            "message": {"read": self.message_read, "export": self.message_export, "send": self.message_send,
                        "save": self.message_save, "copy": lambda a: self.message_transfer(a, "copy"),
                        "move": lambda a: self.message_transfer(a, "move"), "delete": self.message_delete,
                        "write": self.needs_editor, "reply": self.needs_editor, "forward": self.needs_editor},
            "template": {"write": self.template_write, "reply": self.template_reply,
                         "forward": self.template_forward, "send": self.message_send, "save": self.message_save},
        }
        if cmd not in table and cmd != "attachment":
            raise _usage(f"unrecognized subcommand '{cmd}'", "himalaya [OPTIONS] [COMMAND]")
        if cmd == "attachment":
            return self.attachment(rest[1:])
        if sub in ("-h", "--help", "help", ""):
            names = "".join(f"  {n}\n" for n in table[cmd])
            if sub == "":
                raise _usage("'himalaya " + cmd + "' requires a subcommand but one was not provided\n"
                             f"  [subcommands: {', '.join(table[cmd])}]", f"himalaya {cmd} [OPTIONS] <COMMAND>")
            raise _Stop(f"Usage: himalaya {cmd} [OPTIONS] <COMMAND>\n\nCommands:\n{names}")
        if sub not in table[cmd]:
            raise _usage(f"unrecognized subcommand '{sub}'", f"himalaya {cmd} [OPTIONS] <COMMAND>")
        return table[cmd][sub](tail)

    # ------------------------------------------------------------------ folders
    def _folder(self, name: str | None) -> ObjectRef:
        wanted = "Inbox" if name is None else ALIASES.get(name.strip().lower(), name)
        try:
            return self.mail.store.mailbox(wanted)
        except AppleScriptError:
            raise _fail(f"cannot select folder {name}", f"Mailbox doesn't exist: {name}") from None

    def _folder_name(self, box: ObjectRef) -> str:
        return self.mail.store.record(box)["name"]

    def account_list(self, args: list[str]) -> tuple[str, str, int]:
        self._opts(args, "himalaya account list [OPTIONS]", [Option(("-w", "--max-width"), True)])
        if self.json:
            return json.dumps([{"name": ACCOUNT, "backend": "IMAP, SMTP", "default": True}]) + "\n", "", 0
        return _table(["NAME", "BACKENDS", "DEFAULT"], [[ACCOUNT, "IMAP, SMTP", "yes"]]), "", 0

    def folder_list(self, args: list[str]) -> tuple[str, str, int]:
        self._opts(args, "himalaya folder list [OPTIONS]", [Option(("-w", "--max-width"), True)])
        names = [self.mail.store.record(b)["name"] for b in self.mail.store.all("mailbox")]
        if self.json:
            return json.dumps([{"name": n, "desc": ""} for n in names], separators=(",", ":")) + "\n", "", 0
        return _table(["NAME", "DESC"], [[n, ""] for n in names]), "", 0

    def folder_add(self, args: list[str]) -> tuple[str, str, int]:
        p = self._opts(args, "himalaya folder add [OPTIONS] <NAME>", [])
        if len(p.args) != 1:
            raise _usage("the following required arguments were not provided:\n  <NAME>", "himalaya folder add [OPTIONS] <NAME>")
        name = p.args[0]
        if not name.strip() or "/" in name or len(name) > 255 or "\0" in name:
            raise _fail(f"cannot create folder {name}", "invalid mailbox name")
        try:
            self.mail.store.mailbox(name)
            raise _fail(f"cannot create folder {name}", "Mailbox already exists")
        except AppleScriptError:
            pass
        self.mail.store.add("mailbox", {"name": name}, parent=self.mail.store.all("account")[0])
        self.mail.touch()
        return f"Folder {name} successfully created!\n", "", 0

    def folder_delete(self, args: list[str]) -> tuple[str, str, int]:
        p = self._opts(args, "himalaya folder delete [OPTIONS] <NAME>", [Option(("-y", "--yes"))])
        if len(p.args) != 1:
            raise _usage("the following required arguments were not provided:\n  <NAME>", "himalaya folder delete [OPTIONS] <NAME>")
        box = self._folder(p.args[0])
        name = self._folder_name(box)
        if name in ("Inbox", "Drafts", "Sent", "Junk", "Trash"):
            raise _fail(f"cannot delete folder {name}", "the standard mailboxes cannot be deleted")
        if not p.flag("yes"):
            raise _fail(f"cannot delete folder {name}", "deleting a folder needs confirmation: add --yes (no terminal to ask)")
        self.mail.store.delete(box)
        self.mail.touch()
        return f"Folder {name} successfully deleted!\n", "", 0

    # ------------------------------------------------------------------ envelopes
    def _messages(self, box: ObjectRef) -> list[dict[str, Any]]:
        st = self.mail.store
        out = []
        for m in st.elements(box, "message"):
            r = st.record(m)
            out.append({"ref": m, "id": str(m.id), "r": r,
                        "to": [st.record(t)["address"] for t in st.elements(m, "to recipient")],
                        "cc": [st.record(t)["address"] for t in st.elements(m, "cc recipient")]})
        return out

    def envelope_list(self, args: list[str]) -> tuple[str, str, int]:
        usage = "himalaya envelope list [OPTIONS] [QUERY]..."
        p = self._opts(args, usage, [Option(("-f", "--folder"), True), Option(("-p", "--page"), True),
                                     Option(("-s", "--page-size"), True), Option(("-w", "--max-width"), True),
                                     Option(("--disable-cache",))], "envelope list")
        page = _count(p.get("page", "1"), "--page <NUMBER>", usage)
        size = _count(p.get("page_size", str(DEFAULT_PAGE_SIZE)), "--page-size <NUMBER>", usage)
        box = self._folder(p.get("folder"))
        query = _Query.parse(p.args)
        rows = [m for m in self._messages(box) if query.match(m)]
        rows = query.sort(rows)
        start = (max(page, 1) - 1) * size
        if size and start and start >= len(rows):
            raise _fail(f"cannot list envelopes from folder {self._folder_name(box)}",
                        f"page {page} out of bounds")
        if size:  # a page size of 0 lists every envelope
            rows = rows[start:start + size]
        rows = rows[:MAX_LIST_ITEMS]
        if self.json:
            return json.dumps([self._envelope(m) for m in rows], ensure_ascii=False, separators=(",", ":")) + "\n", "", 0
        body = [[m["id"], _flag_marks(m["r"]), m["r"]["subject"], _display_name(m["r"]["sender"]), _date(m["r"])]
                for m in rows]
        return _table(["ID", "FLAGS", "SUBJECT", "FROM", "DATE"], body), "", 0

    def _envelope(self, m: dict[str, Any]) -> dict[str, Any]:
        name, addr = parseaddr(m["r"]["sender"])
        to_name, to_addr = parseaddr(m["to"][0]) if m["to"] else ("", "")
        return {"id": m["id"], "flags": _flags(m["r"]), "subject": m["r"]["subject"],
                "from": {"name": name or None, "addr": addr or m["r"]["sender"]},
                "to": {"name": to_name or None, "addr": to_addr},
                "date": _date(m["r"]), "has_attachment": False}

    # ------------------------------------------------------------------ flags
    def flag(self, args: list[str], how: str) -> tuple[str, str, int]:
        usage = f"himalaya flag {how} [OPTIONS] <ID-OR-FLAG>..."
        p = self._opts(args, usage, [Option(("-f", "--folder"), True)])
        ids = [a for a in p.args if a.isdigit()]
        flags = [a.lower() for a in p.args if not a.isdigit()]
        if not ids or not flags:
            raise _usage("the following required arguments were not provided:\n  <ID-OR-FLAG>...", usage)
        bad = [f for f in flags if f not in FLAGS]
        if bad:
            raise _fail(f"cannot parse flag {bad[0]}", "possible flags: seen, answered, flagged, deleted, draft")
        box = self._folder(p.get("folder"))
        for m in self._find(box, ids):
            r = m["r"]
            if how == "set":
                r["read status"] = r["flagged status"] = r["deleted status"] = False
            on = how != "remove"
            for f in flags:
                key = {"seen": "read status", "flagged": "flagged status", "deleted": "deleted status"}.get(f)
                if key:
                    r[key] = on
        self.mail.touch()
        verb = {"add": "added", "set": "set", "remove": "removed"}[how]
        return f"Flag(s) successfully {verb}!\n", "", 0

    def _find(self, box: ObjectRef, ids: list[str]) -> list[dict[str, Any]]:
        msgs = {m["id"]: m for m in self._messages(box)}
        out = []
        for i in ids:
            if i not in msgs:
                raise _fail(f"cannot get messages from folder {self._folder_name(box)}",
                            f"cannot find message {i}")
            out.append(msgs[i])
        return out

    # ------------------------------------------------------------------ messages
    def message_read(self, args: list[str]) -> tuple[str, str, int]:
        usage = "himalaya message read [OPTIONS] <ID>..."
        p = self._opts(args, usage, [Option(("-f", "--folder"), True), Option(("-p", "--preview")),
                                     Option(("-r", "--raw")), Option(("--no-headers",)),
                                     Option(("-H", "--header"), True, repeat=True), Option(("--html",))],
                       "message read")
        if not p.args:
            raise _usage("the following required arguments were not provided:\n  <ID>...", usage)
        box = self._folder(p.get("folder"))
        parts = []
        for m in self._find(box, p.args):
            if p.flag("raw"):
                parts.append(self._mime(m))
            else:
                heads = p.get("header") or ["From", "To", "Cc", "Subject"]
                lines = []
                if not p.flag("no_headers"):
                    for h in heads:
                        v = self._header(m, h)
                        if v:
                            lines.append(f"{h.title() if h.lower() != 'cc' else 'Cc'}: {v}")
                text = ("\n".join(lines) + "\n\n" if lines else "") + m["r"]["content"]
                parts.append(text.rstrip("\n") + "\n")
            if not p.flag("preview"):
                m["r"]["read status"] = True
        self.mail.touch()
        out = "\n\n".join(parts)
        return (out if not self.json else json.dumps(out, ensure_ascii=False) + "\n"), "", 0

    def _header(self, m: dict[str, Any], name: str) -> str:
        key = name.lower()
        r = m["r"]
        return {"from": r["sender"], "to": ", ".join(m["to"]), "cc": ", ".join(m["cc"]), "subject": r["subject"],
                "date": _rfc_date(r), "message-id": r["message id"]}.get(key, "")

    def _mime(self, m: dict[str, Any]) -> str:
        r = m["r"]
        msg = EmailMessage(policy=policy.default)
        msg["Message-ID"] = r["message id"] or f"<sim-{m['id']}@icloud.com>"
        msg["Date"] = _rfc_date(r)
        msg["From"] = r["sender"]
        if m["to"]:
            msg["To"] = ", ".join(m["to"])
        if m["cc"]:
            msg["Cc"] = ", ".join(m["cc"])
        msg["Subject"] = r["subject"]
        msg.set_content(r["content"] if r["content"].endswith("\n") else r["content"] + "\n")
        return msg.as_string()

    def message_export(self, args: list[str]) -> tuple[str, str, int]:
        usage = "himalaya message export [OPTIONS] <ID>"
        p = self._opts(args, usage, [Option(("-f", "--folder"), True), Option(("-F", "--full")),
                                     Option(("-d", "--destination", "--dest"), True, key="destination"),
                                     Option(("-O", "--open"))], "message export")
        if len(p.args) != 1:
            raise _usage("the following required arguments were not provided:\n  <ID>" if not p.args
                         else f"unexpected argument '{p.args[1]}' found", usage)
        box = self._folder(p.get("folder"))
        m = self._find(box, p.args)[0]
        text = self._mime(m) if p.flag("full") else m["r"]["content"]
        m["r"]["read status"] = True  # exporting fetches the message: it is seen
        self.mail.touch()
        dest = p.get("destination")
        if dest is None:
            return text, "", 0
        path = self.ctx.resolve(dest)
        files = self.ctx.backend.current_desktop().home_files
        if files.kind(path) == "dir":
            path = path / (f"{m['id']}.eml" if p.flag("full") else f"{m['id']}.txt")
        write_home_file(self.ctx, path, text.encode("utf-8"))
        return f"Message {m['id']} successfully exported at {self.ctx.posix(path)}!\n\n", "", 0

    def _parse_raw(self, args: list[str]) -> EmailMessage:
        raw = "\n".join(args) if args else self.stdin
        if len(raw) > MAX_ARG_CHARS:
            raise _fail("cannot send message", f"the message has {len(raw):,} characters; the simulator's limit "
                        f"is {MAX_ARG_CHARS:,}")
        if not raw.strip():
            raise _fail("cannot send message", "the message is empty: give it as arguments or on the standard input")
        return Parser(policy=policy.default).parsestr(raw.replace("\r\n", "\n"))  # type: ignore[return-value]

    @staticmethod
    def _body(msg: EmailMessage) -> str:
        try:
            part = msg.get_body(preferencelist=("plain", "html"))
            text = part.get_content() if part is not None else msg.get_payload()
        except (KeyError, LookupError, AttributeError):
            text = msg.get_payload()
        return (text if isinstance(text, str) else "").rstrip("\n")

    def message_send(self, args: list[str]) -> tuple[str, str, int]:
        p = self._opts(args, "himalaya message send [OPTIONS] [MESSAGE]...", [], "message send")
        msg = self._parse_raw(p.args)
        to = [a for _n, a in getaddresses(msg.get_all("To", []))]
        cc = [a for _n, a in getaddresses(msg.get_all("Cc", []))]
        bcc = [a for _n, a in getaddresses(msg.get_all("Bcc", []))]
        if not (to or cc or bcc):
            raise _fail("cannot send message", "cannot send message without a recipient")
        bad = [a for a in to + cc + bcc if not _ADDR.match(a)]
        if bad:
            raise _fail("cannot send message", f"invalid recipient address {bad[0]}")
        sender = str(msg.get("From") or ACCOUNT_EMAIL)
        self.mail._deliver(str(msg.get("Subject") or ""), self._body(msg), to, cc + bcc, sender)  # noqa: SLF001
        return "Message successfully sent!\n", "", 0

    def message_save(self, args: list[str]) -> tuple[str, str, int]:
        p = self._opts(args, "himalaya message save [OPTIONS] [MESSAGE]...", [Option(("-f", "--folder"), True)])
        msg = self._parse_raw(p.args)
        box = self._folder(p.get("folder"))
        to = [a for _n, a in getaddresses(msg.get_all("To", []))]
        when = None
        if msg.get("Date"):  # a saved message keeps its Date header (shown in the desktop's clock, UTC)
            try:
                d = parsedate_to_datetime(str(msg.get("Date")))
                when = d.astimezone(timezone.utc).replace(tzinfo=None) if d.tzinfo else d
            except (TypeError, ValueError):
                raise _fail("cannot save message", f"invalid Date header {msg.get('Date')!r}") from None
        self.mail.add_message(str(msg.get("From") or ACCOUNT_EMAIL), str(msg.get("Subject") or ""), self._body(msg),
                              mailbox=self._folder_name(box), to=to or [ACCOUNT_EMAIL], date=when, read=True)
        return f"Message successfully saved to {self._folder_name(box)}!\n", "", 0

    def message_transfer(self, args: list[str], how: str) -> tuple[str, str, int]:
        usage = f"himalaya message {how} [OPTIONS] <TARGET> <ID>..."
        p = self._opts(args, usage, [Option(("-f", "--folder"), True)], "message move")
        if len(p.args) < 2:
            raise _usage("the following required arguments were not provided:\n  <TARGET>\n  <ID>...", usage)
        src = self._folder(p.get("folder"))
        dst = self._folder(p.args[0])
        msgs = self._find(src, p.args[1:])
        st = self.mail.store
        for m in msgs:
            if how == "move":
                self.mail.move(m["ref"].id, self._folder_name(dst))
            else:
                r = m["r"]
                new = self.mail.add_message(r["sender"], r["subject"], r["content"], mailbox=self._folder_name(dst),
                                            to=m["to"] or [ACCOUNT_EMAIL], date=r["date sent"], read=r["read status"],
                                            flagged=r["flagged status"])
                for a in m["cc"]:
                    st.add("cc recipient", {"address": a}, parent=ObjectRef("message", new))
        self.mail.touch()
        verb = "moved" if how == "move" else "copied"
        return f"Message(s) successfully {verb} from {self._folder_name(src)} to {self._folder_name(dst)}!\n", "", 0

    def message_delete(self, args: list[str]) -> tuple[str, str, int]:
        usage = "himalaya message delete [OPTIONS] <ID>..."
        p = self._opts(args, usage, [Option(("-f", "--folder"), True)])
        if not p.args:
            raise _usage("the following required arguments were not provided:\n  <ID>...", usage)
        box = self._folder(p.get("folder"))
        for m in self._find(box, p.args):
            if self._folder_name(box) == "Trash":
                m["r"]["deleted status"] = True  # flagged deleted; an expunge would remove it
            else:
                self.mail.move(m["ref"].id, "Trash")
        self.mail.touch()
        return f"Message(s) successfully removed from {self._folder_name(box)}!\n", "", 0

    def needs_editor(self, args: list[str]) -> tuple[str, str, int]:
        raise _fail("cannot edit message", "no interactive editor: the simulator's terminal is not a TTY",
                    "write the message with `himalaya template write -H 'To: …' -H 'Subject: …' BODY` and "
                    "pipe it to `himalaya message send` (or give the raw message to `message send`)")

    # ------------------------------------------------------------------ templates
    def template_write(self, args: list[str]) -> tuple[str, str, int]:
        p = self._opts(args, "himalaya template write [OPTIONS] [BODY]...", [Option(("-H", "--header"), True, repeat=True)])
        heads = {"From": ACCOUNT_EMAIL, "To": "", "Subject": ""}
        for h in p.get("header") or []:
            k, sep, v = h.partition(":")
            if not sep:
                raise _usage(f"invalid value '{h}' for '--header <KEY:VAL>': expected KEY:VAL", "himalaya template write [OPTIONS] [BODY]...")
            heads[k.strip().title() if k.strip().lower() != "cc" else "Cc"] = v.strip()
        body = " ".join(p.args)
        return "".join(f"{k}: {v}\n" for k, v in heads.items()) + "\n" + body + ("\n" if body else ""), "", 0

    def _quoted(self, args: list[str], how: str) -> tuple[dict[str, Any], list[str]]:
        usage = f"himalaya template {how} [OPTIONS] <ID> [BODY]..."
        p = self._opts(args, usage, [Option(("-f", "--folder"), True), Option(("-A", "--all")),
                                     Option(("-H", "--header"), True, repeat=True)])
        if not p.args:
            raise _usage("the following required arguments were not provided:\n  <ID>", usage)
        box = self._folder(p.get("folder"))
        return self._find(box, p.args[:1])[0], p.args[1:]

    def template_reply(self, args: list[str]) -> tuple[str, str, int]:
        m, body = self._quoted(args, "reply")
        r = m["r"]
        subject = r["subject"] if r["subject"].lower().startswith("re:") else f"Re: {r['subject']}"
        quoted = "\n".join("> " + line for line in r["content"].split("\n"))
        text = " ".join(body)
        return (f"From: {ACCOUNT_EMAIL}\nTo: {r['sender']}\nSubject: {subject}\nIn-Reply-To: {r['message id']}\n\n"
                f"{text}\n\nOn {_rfc_date(r)}, {r['sender']} wrote:\n{quoted}\n"), "", 0

    def template_forward(self, args: list[str]) -> tuple[str, str, int]:
        m, body = self._quoted(args, "forward")
        r = m["r"]
        subject = r["subject"] if r["subject"].lower().startswith("fwd:") else f"Fwd: {r['subject']}"
        return (f"From: {ACCOUNT_EMAIL}\nTo: \nSubject: {subject}\n\n{' '.join(body)}\n\n"
                f"-------- Forwarded Message --------\nFrom: {r['sender']}\nSubject: {r['subject']}\n\n{r['content']}\n"), "", 0

    def attachment(self, args: list[str]) -> tuple[str, str, int]:
        usage = "himalaya attachment download [OPTIONS] <ID>..."
        if not args or args[0] != "download":
            raise _usage("unrecognized subcommand" + (f" '{args[0]}'" if args else ""), "himalaya attachment [OPTIONS] <COMMAND>")
        p = self._opts(args[1:], usage, [Option(("-f", "--folder"), True), Option(("-d", "--downloads-dir"), True)])
        if not p.args:
            raise _usage("the following required arguments were not provided:\n  <ID>...", usage)
        box = self._folder(p.get("folder"))
        msgs = self._find(box, p.args)
        return "".join(f"No attachment found for message {m['id']}!\n" for m in msgs), "", 0


# ---------------------------------------------------------------------------------------------- helpers
def _count(text: str, flag: str, usage: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise _usage(f"invalid value '{text}' for '{flag}': invalid digit found in string", usage)
    return int(text)


def _flags(r: dict[str, Any]) -> list[str]:
    return [f for f, on in (("Seen", r["read status"]), ("Flagged", r["flagged status"]),
                            ("Deleted", r.get("deleted status"))) if on]


def _flag_marks(r: dict[str, Any]) -> str:
    return ("*" if not r["read status"] else " ") + ("!" if r["flagged status"] else " ")


def _display_name(sender: str) -> str:
    name, addr = parseaddr(sender)
    return name or addr or sender


def _when(r: dict[str, Any]) -> datetime:
    d = r["date sent"] or r["date received"] or datetime(1970, 1, 1)
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


def _date(r: dict[str, Any]) -> str:
    d = _when(r)
    off = d.strftime("%z")
    return d.strftime("%Y-%m-%d %H:%M") + f"{off[:3]}:{off[3:]}"


def _rfc_date(r: dict[str, Any]) -> str:
    return format_datetime(_when(r))


def _table(head: list[str], rows: list[list[str]]) -> str:
    cells = [head] + [[str(c).replace("\n", " ") for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(head), sep] + [line(r) for r in cells[1:]]) + "\n"


class _Query:
    """himalaya's search query: a filter tree (``not``/``and``/``or`` over conditions) and a sort."""

    KEYS = ("date", "before", "after", "from", "to", "subject", "body", "flag")

    def __init__(self, tree: Any, order: list[tuple[str, bool]]) -> None:
        self.tree, self.order = tree, order

    @classmethod
    def parse(cls, args: list[str]) -> "_Query":
        tokens: list[str] = []
        for a in args:
            first = a.split(" ", 1)[0].lstrip("(").lower()
            if " " in a and first in cls.KEYS + ("not", "order"):
                try:  # the whole query as one argument: split it as a shell would
                    tokens += shlex.split(a)
                except ValueError:
                    tokens += a.split()
            else:
                tokens.append(a)
        # parentheses glued to words: "(subject" → "(", "subject"; "x)" → "x", ")"
        split: list[str] = []
        for t in tokens:
            lead = len(t) - len(t.lstrip("("))
            core = t.strip("()") if t.strip("()") else ""
            trail = len(t) - len(t.rstrip(")")) if core else 0
            if not core:
                split += list(t)
                continue
            split += ["("] * lead + [core] + [")"] * trail
        tokens = split
        order: list[tuple[str, bool]] = []
        low = [t.lower() for t in tokens]
        if "order" in low:
            at = low.index("order")
            if low[at + 1:at + 2] != ["by"]:
                raise _fail("cannot parse search query", "expected `by` after `order`")
            sort = tokens[at + 2:]
            tokens = tokens[:at]
            i = 0
            while i < len(sort):
                key = sort[i].lower()
                if key not in ("date", "from", "to", "subject"):
                    raise _fail("cannot parse search query", f"unknown sort key {sort[i]}: expected date, from, to or subject")
                desc = False
                if i + 1 < len(sort) and sort[i + 1].lower() in ("asc", "desc"):
                    desc = sort[i + 1].lower() == "desc"
                    i += 1
                order.append((key, desc))
                i += 1
        pos = [0]

        def peek() -> str | None:
            return tokens[pos[0]] if pos[0] < len(tokens) else None

        def take() -> str:
            if pos[0] >= len(tokens):
                raise _fail("cannot parse search query", "unexpected end of query")
            pos[0] += 1
            return tokens[pos[0] - 1]

        def expr() -> Any:
            left = term()
            while (peek() or "").lower() == "or":
                take()
                left = ("or", left, term())
            return left

        def term() -> Any:
            left = factor()
            while (peek() or "").lower() == "and":
                take()
                left = ("and", left, factor())
            return left

        def factor() -> Any:
            t = take()
            low_t = t.lower()
            if low_t == "not":
                return ("not", factor())
            if t == "(":
                inner = expr()
                if take() != ")":
                    raise _fail("cannot parse search query", "expected `)`")
                return inner
            if low_t in cls.KEYS:
                val = take()
                if low_t in ("date", "before", "after"):
                    try:
                        day = datetime.strptime(val, "%Y-%m-%d").date()
                    except ValueError:
                        raise _fail("cannot parse search query", f"invalid date {val}: expected YYYY-MM-DD") from None
                    return (low_t, day)
                if low_t == "flag" and val.lower() not in FLAGS:
                    raise _fail("cannot parse search query", f"unknown flag {val}")
                return (low_t, val.lower())
            raise _fail("cannot parse search query", f"unexpected token {t}: expected a condition "
                        "(date, before, after, from, to, subject, body, flag), not, or a parenthesis")

        tree = None
        if tokens:
            tree = expr()
            if pos[0] != len(tokens):
                raise _fail("cannot parse search query", f"unexpected token {tokens[pos[0]]}")
        return cls(tree, order)

    def match(self, m: dict[str, Any]) -> bool:
        return self.tree is None or self._eval(self.tree, m)

    def _eval(self, node: Any, m: dict[str, Any]) -> bool:
        op = node[0]
        if op == "not":
            return not self._eval(node[1], m)
        if op in ("and", "or"):
            a = self._eval(node[1], m)
            return (a and self._eval(node[2], m)) if op == "and" else (a or self._eval(node[2], m))
        r, val = m["r"], node[1]
        if op in ("date", "before", "after"):
            day = _when(r).date()
            return day == val if op == "date" else (day < val if op == "before" else day > val)
        if op == "flag":
            return FLAGS[val] in _flags(r)
        text = {"from": r["sender"], "to": " ".join(m["to"] + m["cc"]), "subject": r["subject"],
                "body": r["content"]}[op]
        return val in text.lower()

    def sort(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        order = self.order or [("date", True)]
        out = sorted(rows, key=lambda m: int(m["id"]) if m["id"].isdigit() else 0, reverse=True)
        for key, desc in reversed(order):
            if key == "date":
                out.sort(key=lambda m: _when(m["r"]), reverse=desc)
            else:
                field = {"from": lambda m: m["r"]["sender"].lower(), "to": lambda m: " ".join(m["to"]).lower(),
                         "subject": lambda m: m["r"]["subject"].lower()}[key]
                out.sort(key=field, reverse=desc)
        return out


