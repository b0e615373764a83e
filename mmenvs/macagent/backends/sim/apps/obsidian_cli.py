"""``obsidian-cli`` (Yakitrak's Obsidian CLI) over the vaults the sim's Obsidian knows: a vault is named by
its folder's name in Obsidian's registry (``~/Library/Application Support/obsidian/obsidian.json``), the
default one is kept in obsidian-cli's own preferences
(``~/Library/Application Support/obsidian-cli/preferences.json``, ``{"default_vault_name": …}``).

Commands: ``set-default NAME``, ``print-default [--path-only]``, ``list [FOLDER]`` (the folder's entries,
``• name`` a line, folders with a trailing ``/``), ``print NOTE``, ``create NOTE [--content TEXT]
[--overwrite|--append] [--open]``, ``move OLD NEW [--open]`` (wiki links ``[[…]]`` and Markdown links to
the note follow it), ``delete NOTE``, ``open NOTE [--section S]``, ``daily``, ``search`` (fuzzy over note
paths; the query is the first line of stdin, what one types into its finder, or an argument),
``search-content TERM`` (``path:line: text`` a match) and ``frontmatter NOTE --print | --edit --key K --value V
| --delete --key K``. Every command takes ``--vault NAME`` (``-v``).

A note is a path from the vault's top (``Inbox/Call`` or ``Inbox/Call.md``). Paths never leave the vault:
a ``..``, an absolute path or a symlink on the way is refused; files are read and written through the
home's confined layer only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from .base import App, CommandContext
from .home_io import MAX_TEXT_BYTES, entry_kind, read_text
from .obsidian import BAD_NAME_CHARS, ObsidianApp, _LINK
from .skill_args import MAX_LIST_ITEMS, CliError, Option, parse, run_guarded, write_home_file

VERSION = "v0.2.3"
PREFS = "Library/Application Support/obsidian-cli/preferences.json"

_HELP = """obsidian-cli - CLI to open, search, move, create, delete and update notes

Usage:
  obsidian-cli [command]

Available Commands:
  create         Creates note in vault
  daily          Creates or opens daily note in vault
  delete         Delete note in vault
  frontmatter    View or modify a note's YAML frontmatter
  help           Help about any command
  list           List the entries of a vault folder
  move           Move or rename note in vault and update corresponding links
  open           Opens note in vault by note name
  print          Print contents of note
  print-default  Prints default vault name and path
  search         Fuzzy searches and opens note in vault
  search-content Search note content for search term
  set-default    Sets default vault

Flags:
  -h, --help      help for obsidian-cli
      --version   version for obsidian-cli

Use "obsidian-cli [command] --help" for more information about a command.
"""

_USAGE = {
    "set-default": "obsidian-cli set-default <vault-name>",
    "print-default": "obsidian-cli print-default [flags]",
    "list": "obsidian-cli list [folder] [flags]",
    "print": "obsidian-cli print <note> [flags]",
    "create": "obsidian-cli create <note> [flags]",
    "move": "obsidian-cli move <from-note-path> <to-note-path> [flags]",
    "delete": "obsidian-cli delete <note> [flags]",
    "open": "obsidian-cli open <note> [flags]",
    "daily": "obsidian-cli daily [flags]",
    "search": "obsidian-cli search [flags]",
    "search-content": "obsidian-cli search-content <term> [flags]",
    "frontmatter": "obsidian-cli frontmatter <note> [--print | --edit --key K --value V | --delete --key K] [flags]",
}


def _err(text: str) -> CliError:
    return CliError(f"Error: {text}", 1)


def _usage_err(cmd: str, text: str) -> CliError:
    return CliError(f"Error: {text}\nUsage:\n  {_USAGE[cmd]}\n\nRun 'obsidian-cli {cmd} --help' for usage.", 1)


class ObsidianCliTool(App):
    """``obsidian-cli``: no window, no state of its own (the vaults are folders, Obsidian's registry lists them)."""

    name = "obsidian-cli"
    bundle_id = "com.yakitrak.obsidian-cli"
    in_dock = False
    text_editing = False
    # ``search`` reads its query from stdin
    shell_commands = {"obsidian-cli": True}

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("obsidian-cli", lambda: _ObsidianCli(self.desktop.apps["Obsidian"], ctx, stdin).run(argv[1:]), ctx)


class _ObsidianCli:
    def __init__(self, app: ObsidianApp, ctx: CommandContext, stdin: str) -> None:
        self.app, self.ctx, self.stdin = app, ctx, stdin
        self.files = app.desktop.home_files

    def run(self, args: list[str]) -> tuple[str, str, int]:
        if not args or args[0] in ("-h", "--help", "help"):
            return _HELP, "", 0
        if args[0] in ("--version", "-V"):
            return f"obsidian-cli version {VERSION}\n", "", 0
        cmd, rest = args[0], args[1:]
        handlers = {"set-default": self.set_default, "print-default": self.print_default, "list": self.list,
                    "l": self.list, "print": self.print, "p": self.print, "create": self.create, "c": self.create,
                    "move": self.move, "m": self.move, "delete": self.delete, "d": self.delete, "open": self.open,
                    "o": self.open, "daily": self.daily, "search": self.search, "s": self.search,
                    "search-content": self.search_content, "sc": self.search_content, "frontmatter": self.frontmatter,
                    "fm": self.frontmatter}
        if cmd not in handlers:
            raise CliError(f"Error: unknown command \"{cmd}\" for \"obsidian-cli\"\nRun 'obsidian-cli --help' for usage.", 1)
        return handlers[cmd](rest)

    # ------------------------------------------------------------------ options, vaults, notes
    def _parse(self, cmd: str, args: list[str], extra: list[Option], nargs: tuple[int, int]) -> Any:
        canon = {"l": "list", "p": "print", "c": "create", "m": "move", "d": "delete", "o": "open", "s": "search",
                 "sc": "search-content", "fm": "frontmatter"}.get(cmd, cmd)
        p = parse(args, [Option(("-v", "--vault"), True), Option(("-h", "--help"))] + extra,
                  unknown=lambda n: _usage_err(canon, f"unknown flag: {n}" if n.startswith("--")
                                               else f"unknown shorthand flag: '{n.lstrip('-')[:1]}' in {n}"),
                  missing=lambda n: _usage_err(canon, f"flag needs an argument: {n}"))
        if p.flag("help"):
            raise CliError("", 0, f"Usage:\n  {_USAGE[canon]}\n\nFlags:\n  -v, --vault string   vault name\n  -h, --help           help\n")
        lo, hi = nargs
        if not lo <= len(p.args) <= hi:
            want = f"accepts {lo} arg(s)" if lo == hi else f"accepts between {lo} and {hi} arg(s)"
            raise _usage_err(canon, f"{want}, received {len(p.args)}")
        return p

    def _prefs_path(self) -> Path:
        return self.app.desktop.home / PREFS

    def _default_name(self) -> str:
        try:
            data = json.loads(self.files.read_bytes(self._prefs_path(), limit=MAX_TEXT_BYTES))
            name = data.get("default_vault_name") if isinstance(data, dict) else None
        except (OSError, ValueError):
            name = None
        if not isinstance(name, str) or not name:
            raise _err("cannot find default vault: set one with `obsidian-cli set-default <vault-name>` "
                       "or pass --vault <vault-name>")
        return name

    def _vault(self, p: Any) -> dict[str, Any]:
        name = p.get("vault") or self._default_name()
        for v in self.app.vaults():
            if v["name"] == name:
                return v
        raise _err(f"obsidian vault cannot be found. Please ensure the vault \"{name}\" is set up on Obsidian "
                   f"(known vaults: {', '.join(sorted(v['name'] for v in self.app.vaults())) or 'none'})")

    @staticmethod
    def _rel(note: str) -> str:
        """A note argument as a vault path ending in ``.md``, checked: never absolute, never ``..``."""
        text = note.strip().replace("\\", "/")
        parts = [x for x in text.split("/") if x not in ("", ".")]
        if text.startswith("/") or ".." in parts or "\0" in text or not parts:
            raise _err(f"the note path {note!r} must be a path inside the vault (no leading '/', no '..')")
        rel = "/".join(parts)
        return rel if rel.lower().endswith(".md") else rel + ".md"

    def _path(self, v: dict[str, Any], rel: str) -> Path:
        return self.app._inside(v["root"], rel)  # noqa: SLF001 - lexical check; the layer refuses symlinks

    def _existing(self, v: dict[str, Any], note: str) -> str:
        rel = self._rel(note)
        kind = entry_kind(self.files, self._path(v, rel))
        if kind == "file":
            return rel
        if kind in ("symlink", "other"):
            raise _err(f"{rel}: is a symbolic link or a special file, not a note of the vault")
        # a bare name: the note of that name anywhere in the vault, as Obsidian resolves it
        if "/" not in note.strip("/"):
            found = self.app.index(v["root"]).resolve(note)
            if found is not None:
                return found
        raise _err(f"cannot find note {note!r} in vault {v['name']!r}")

    def _read(self, v: dict[str, Any], rel: str) -> str:
        return read_text(self.files, self._path(v, rel), limit=MAX_TEXT_BYTES)

    def _write(self, v: dict[str, Any], rel: str, text: str) -> None:
        for part in rel.split("/"):
            stem = part[:-3] if part.lower().endswith(".md") else part
            bad = [c for c in BAD_NAME_CHARS if c in stem and c != "/"]
            if bad or not stem.strip():
                raise _err(f"the note path {rel!r} has a name Obsidian refuses (empty, or one of * \" \\ < > : | ?)")
        write_home_file(self.ctx, self._path(v, rel), text.encode("utf-8"))
        self.app._written.add(rel)  # noqa: SLF001 - the app re-reads a note written within one timestamp tick
        self.app.touch()

    def _open_in_app(self, v: dict[str, Any], rel: str) -> None:
        self.app.open_url(f"obsidian://open?vault={quote(v['name'])}&file={quote(rel)}")
        self.app.desktop.activate(self.app)

    # ------------------------------------------------------------------ commands
    def set_default(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("set-default", args, [], (1, 1))
        name = p.args[0]
        if not any(v["name"] == name for v in self.app.vaults()):
            raise _err(f"obsidian vault cannot be found. Please ensure the vault \"{name}\" is set up on Obsidian")
        write_home_file(self.ctx, self._prefs_path(), (json.dumps({"default_vault_name": name}) + "\n").encode())
        v = next(v for v in self.app.vaults() if v["name"] == name)
        return f"Default vault set to: {name}\nDefault vault path set to: {self.ctx.posix(v['root'])}\n", "", 0

    def print_default(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("print-default", args, [Option(("--path-only",))], (0, 0))
        v = self._vault(p)
        path = self.ctx.posix(v["root"])
        if p.flag("path_only"):
            return path + "\n", "", 0
        return f"Default vault name: {v['name']}\nDefault vault path: {path}\n", "", 0

    def list(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("list", args, [], (0, 1))
        v = self._vault(p)
        folder = p.args[0].strip().strip("/") if p.args else ""
        if folder:
            parts = folder.split("/")
            if ".." in parts or "\0" in folder:
                raise _err(f"the folder {folder!r} must be inside the vault")
        path = v["root"] / folder if folder else v["root"]
        kind = entry_kind(self.files, path)
        if kind != "dir":
            raise _err(f"cannot list {folder or '/'}: " + ("no such folder in the vault" if kind is None
                                                            else "not a folder of the vault"))
        entries = sorted((e for e in self.files.listdir(path, limit=MAX_LIST_ITEMS) if not e.name.startswith(".")),
                         key=lambda e: e.name.lower())
        return "".join(f"• {e.name}{'/' if e.kind == 'dir' else ''}\n" for e in entries), "", 0

    def print(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("print", args, [Option(("-m", "--mentions"))], (1, 1))
        v = self._vault(p)
        rel = self._existing(v, p.args[0])
        text = self._read(v, rel)
        if p.flag("mentions"):
            idx = self.app.index(v["root"])
            back = idx.backlinks.get(rel, [])
            text += "".join(f"\n--- mentioned in {b} ---\n" for b in back)
        return text if text.endswith("\n") or not text else text + "\n", "", 0

    def create(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("create", args, [Option(("-c", "--content"), True), Option(("-a", "--append")),
                                         Option(("-o", "--overwrite")), Option(("--open",)), Option(("-e", "--editor"))],
                        (1, 1))
        if p.flag("append") and p.flag("overwrite"):
            raise _usage_err("create", "use either --append or --overwrite, not both")
        v = self._vault(p)
        rel = self._rel(p.args[0])
        content = (p.get("content") or "").replace("\\n", "\n")
        path = self._path(v, rel)
        kind = entry_kind(self.files, path)
        if kind in ("symlink", "other", "dir"):
            raise _err(f"cannot write {rel}: it is a symbolic link, a folder or a special file")
        if kind == "file" and p.flag("overwrite"):
            self._write(v, rel, content)
        elif kind == "file" and p.flag("append"):
            old = self._read(v, rel)
            self._write(v, rel, old + content)
        else:
            if kind == "file":  # as Obsidian does for a taken name: "Note 1.md"
                folder, _, name = rel.rpartition("/")
                rel = self.app.unique_note(v["root"], folder, name[:-3])
            self._write(v, rel, content)
        if p.flag("open"):
            self._open_in_app(v, rel)
        return "", "", 0

    def delete(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("delete", args, [], (1, 1))
        v = self._vault(p)
        rel = self._rel(p.args[0])
        path = self._path(v, rel)
        kind = entry_kind(self.files, path)
        if kind is None:
            raise _err(f"cannot find note {p.args[0]!r} in vault {v['name']!r}")
        if kind != "file":
            raise _err(f"{rel}: is not a note file (a folder, a symbolic link or a special file is not deleted)")
        self.files.unlink(path)
        if self.app.open_note == rel:
            self.app.open_note = None
        self.app.touch()
        return f"Deleted note: {rel}\n", "", 0

    def move(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("move", args, [Option(("-o", "--open")), Option(("-e", "--editor"))], (2, 2))
        v = self._vault(p)
        src = self._existing(v, p.args[0])
        dst = self._rel(p.args[1])
        if dst == src:
            return "", "", 0
        src_p, dst_p = self._path(v, src), self._path(v, dst)
        if entry_kind(self.files, dst_p) is not None and dst.lower() != src.lower():
            raise _err(f"cannot move {src} to {dst}: {dst} already exists")
        before = self.app.index(v["root"])
        texts = {n: t for n, t in before.texts.items() if n != src}
        parts = self.files.parts(dst_p)
        if len(parts) > 1:
            self.files.mkdir(Path(*parts[:-1]), parents=True, exist_ok=True)
        self.files.rename(src_p, dst_p, replace=dst.lower() == src.lower())
        old_stem, new_stem = src[:-3], dst[:-3]
        for n, text in texts.items():
            new_text = _relink(text, before, src, old_stem, new_stem)
            if new_text != text:
                self._write(v, n, new_text)
        if self.app.open_note == src:
            self.app.open_note = dst
        self.app.touch()
        if p.flag("open"):
            self._open_in_app(v, dst)
        return "", "", 0

    def open(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("open", args, [Option(("-s", "--section"), True)], (1, 1))
        v = self._vault(p)
        rel = self._existing(v, p.args[0])
        self._open_in_app(v, rel)
        return "", "", 0

    def daily(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("daily", args, [], (0, 0))
        v = self._vault(p)
        folder = ""
        try:
            cfg = json.loads(self.files.read_bytes(v["root"] / ".obsidian" / "daily-notes.json", limit=MAX_TEXT_BYTES))
            if isinstance(cfg, dict) and isinstance(cfg.get("folder"), str):
                folder = cfg["folder"].strip("/")
        except (OSError, ValueError):
            pass
        name = self.app.desktop.now.strftime("%Y-%m-%d") + ".md"
        rel = self._rel(f"{folder}/{name}" if folder else name)
        if entry_kind(self.files, self._path(v, rel)) is None:
            self._write(v, rel, "")
        self._open_in_app(v, rel)
        return "", "", 0

    def search(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("search", args, [Option(("-e", "--editor"))], (0, 1))
        v = self._vault(p)
        query = p.args[0] if p.args else (self.stdin.split("\n", 1)[0] if self.stdin else "")
        q = query.strip().lower()
        notes = self.app.index(v["root"]).notes

        def fuzzy(path: str) -> bool:
            it = iter(path.lower())
            return all(ch in it for ch in q)

        hits = [n for n in notes if fuzzy(n)][:MAX_LIST_ITEMS]
        if not hits:
            raise _err(f"no notes match {query!r}")
        if len(hits) == 1:
            self._open_in_app(v, hits[0])
        return "".join(h + "\n" for h in hits), "", 0

    def search_content(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("search-content", args, [Option(("-e", "--editor"))], (1, 1))
        v = self._vault(p)
        term = p.args[0]
        if not term:
            raise _usage_err("search-content", "the search term is empty")
        idx = self.app.index(v["root"])
        out = []
        for n in idx.notes:
            for i, line in enumerate(idx.texts.get(n, "").split("\n"), 1):
                if term.lower() in line.lower():
                    out.append(f"{n}:{i}: {line.strip()}")
                    if len(out) >= MAX_LIST_ITEMS:
                        break
        if not out:
            return f"No notes found containing '{term}'\n", "", 0
        return "\n".join(out) + "\n", "", 0

    def frontmatter(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse("frontmatter", args, [Option(("--print",)), Option(("--edit",)), Option(("--delete",)),
                                              Option(("-k", "--key"), True), Option(("--value",), True)], (1, 1))
        modes = [m for m in ("print", "edit", "delete") if p.flag(m)]
        if len(modes) != 1:
            raise _usage_err("frontmatter", "give exactly one of --print, --edit or --delete")
        v = self._vault(p)
        rel = self._existing(v, p.args[0])
        text = self._read(v, rel)
        head, body = _split_frontmatter(text)
        if modes == ["print"]:
            return (head + "\n" if head else ""), "", 0
        key = p.get("key")
        if not key or not re.fullmatch(r"[^\s:#][^:\n]*", key):
            raise _usage_err("frontmatter", "--key is required (a YAML key, without ':' or a newline)")
        lines = head.split("\n") if head else []
        at = next((i for i, ln in enumerate(lines) if ln.split(":", 1)[0].strip() == key and ":" in ln), None)
        if modes == ["edit"]:
            value = p.get("value")
            if value is None:
                raise _usage_err("frontmatter", "--value is required with --edit")
            if "\n" in value:
                raise _usage_err("frontmatter", "--value must be one line")
            entry = f"{key}: {_yaml_scalar(value)}"
            if at is None:
                lines.append(entry)
            else:
                end = at + 1  # a block value (indented or "- " lines) is replaced with the new value
                while end < len(lines) and (lines[end].startswith((" ", "\t", "- "))):
                    end += 1
                lines[at:end] = [entry]
        else:
            if at is None:
                raise _err(f"key {key!r} not found in the frontmatter of {rel}")
            end = at + 1
            while end < len(lines) and (lines[end].startswith((" ", "\t", "- "))):
                end += 1
            del lines[at:end]
        new = ("---\n" + "\n".join(lines) + "\n---\n" if lines else "") + body
        self._write(v, rel, new)
        return "", "", 0


def _split_frontmatter(text: str) -> tuple[str, str]:
    m = re.match(r"\A---\n(.*?)\n?---[ \t]*(?:\n|\Z)", text, re.S)
    if not m:
        return "", text
    return m.group(1), text[m.end():]


def _yaml_scalar(value: str) -> str:
    if value == "" or re.search(r"[:#\[\]{},&*!|>'\"%@`]|^\s|\s$|^-", value):
        return json.dumps(value, ensure_ascii=False)
    return value


def _relink(text: str, before: Any, src: str, old_stem: str, new_stem: str) -> str:
    """``text`` with its links to note ``src`` pointing at the note's new path (wiki links that name the
    path keep a path, bare-name links the name; Markdown links ``(old.md)``, plain or %-encoded)."""

    def wiki(m: re.Match) -> str:
        target = m.group(1).strip()
        if not target or before.resolve(target) != src:
            return m.group(0)
        repl = new_stem if "/" in target else new_stem.rsplit("/", 1)[-1]
        return m.group(0).replace(target, repl, 1)

    out = _LINK.sub(wiki, text)

    def md(m: re.Match) -> str:
        target = m.group(2)
        plain = unquote(target)
        if plain.removesuffix(".md") != old_stem:
            return m.group(0)
        new = new_stem + ".md" if plain.endswith(".md") else new_stem
        return f"{m.group(1)}({quote(new) if '%' in target else new})"

    return re.sub(r"(\[[^\]\n]*\])\(([^)\s]+)\)", md, out)

