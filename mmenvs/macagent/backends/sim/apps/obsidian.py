"""Obsidian: a Markdown vault app over real folders of the episode's home.

A vault is a folder (e.g. ``~/Documents/Work``) with a ``.obsidian/`` config folder; its notes are
``.md`` files any shell tool can read and write. Like the real app, the vaults Obsidian knows are
listed in ``~/Library/Application Support/obsidian/obsidian.json``
(``{"vaults": {"<id>": {"path": …, "ts": …, "open": true}}}``), and the open note is recorded in the
vault's ``.obsidian/workspace.json`` (``lastOpenFiles``, newest first).

The GUI: a file tree (folders collapse on click; right-click for new note / new folder / rename /
delete), the editor of the open note (an inline title that renames the file, and the Markdown
source, saved as you type), the quick switcher (cmd-o: open a note by name, or create it —
``Folder/Note`` creates it in a subfolder), search over note contents (cmd-shift-f: words, quoted
phrases, ``tag:``, ``file:``, ``path:``, ``-word``), and on the right the open note's backlinks
(notes whose ``[[wiki links]]`` resolve to it), outgoing links and tags. Without a vault a chooser
creates one or opens a folder as a vault.

Real Obsidian has no AppleScript dictionary: scripts can only ``activate``/``quit`` it. What a Mac
does offer is its URL scheme, handled here through ``open``: ``obsidian://open?vault=V&file=F``
(or ``&path=/abs/path``), ``obsidian://new?vault=V&name=N&content=C`` (also ``file=``, ``append``,
``overwrite``, ``silent``) and ``obsidian://search?vault=V&query=Q``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import parse_qs, urlsplit

from ..menus import MenuItem, sep
from ..widgets import Box, Button, Editor, Label, ListView, MouseEvent, Rect, Row, Segmented, TextField, Widget
from ..window import Window, alert, text_prompt
from mmenvs.core.confined import ConfinedDir, ConfinementError

from .base import App
from .home_io import MAX_TEXT_BYTES, entry_kind, error_text, read_text, save_text

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop

REGISTRY = "Library/Application Support/obsidian/obsidian.json"
VERSION = "1.7.7"
# characters Obsidian refuses in a file name
BAD_NAME_CHARS = '*"\\/<>:|?'
_LINK = re.compile(r"\[\[([^\]\|#\^]*)(?:[#\^][^\]\|]*)?(?:\|[^\]]*)?\]\]")
_TAG = re.compile(r"(?:(?<=\s)|^)#([A-Za-z0-9_\-/]*[A-Za-z_\-/][A-Za-z0-9_\-/]*)", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FRONTMATTER = re.compile(r"\A---\n(.*?)\n---(?:\n|\Z)", re.S)


# ---------------------------------------------------------------------------------------- Markdown


def frontmatter_tags(text: str) -> list[str]:
    """Tags listed in YAML front matter: ``tags: [a, b]``, ``tags: a, b`` or a ``- a`` list."""
    m = _FRONTMATTER.match(text)
    if not m:
        return []
    lines = m.group(1).split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        key, sep_, rest = line.partition(":")
        if not sep_ or key.strip().lower() not in ("tags", "tag"):
            continue
        rest = rest.strip()
        if rest:
            out += [t.strip().strip("'\"").lstrip("#") for t in rest.strip("[]").split(",")]
        else:
            for item in lines[i + 1:]:
                if not item.strip().startswith("- "):
                    break
                out.append(item.strip()[2:].strip().strip("'\"").lstrip("#"))
    return [t for t in out if t]


def note_tags(text: str) -> list[str]:
    """The note's tags without ``#``, in order of first appearance: front matter, then inline ``#tag``
    (not inside code, not headings, not purely numeric)."""
    body = _FRONTMATTER.sub("", text, count=1)
    body = _INLINE_CODE.sub("", _FENCE.sub("", body))
    out: list[str] = []
    for t in frontmatter_tags(text) + _TAG.findall(body):
        if t.lower() not in (x.lower() for x in out):
            out.append(t)
    return out


def wiki_links(text: str) -> list[str]:
    """Targets of ``[[Target]]``, ``[[Target|alias]]`` and ``[[Target#Heading]]`` links, in order."""
    body = _INLINE_CODE.sub("", _FENCE.sub("", text))
    return [m.strip() for m in _LINK.findall(body) if m.strip()]


def _split_terms(query: str) -> list[str]:
    try:
        return shlex.split(query)
    except ValueError:  # an unbalanced quote: take the words as they are
        return query.split()


#: Entries of one vault scan at most (the file tree, search and links are built from them).
MAX_VAULT_ENTRIES = 20_000


def scan_vault(files: ConfinedDir, root: Path) -> tuple[tuple[str, bool, int, int], ...]:
    """Every entry of the vault at ``root`` (hidden ones skipped) as (vault path, is a folder, size,
    mtime in ns), depth first with folders before files, names sorted case-insensitively; listed
    through the home's layer ``files``: a symlinked folder is an entry, never entered."""
    out: list[tuple[str, bool, int, int]] = []

    def walk(folder: Path, rel: str) -> None:
        try:
            entries = sorted((e for e in files.listdir(folder, limit=MAX_VAULT_ENTRIES) if not e.name.startswith(".")),
                             key=lambda e: (e.kind != "dir", e.name.lower()))
        except ConfinementError:
            return
        for e in entries:
            if len(out) >= MAX_VAULT_ENTRIES:
                return
            r = rel + e.name
            if e.kind == "dir":
                out.append((r, True, 0, 0))
                walk(folder / e.name, r + "/")
            else:
                out.append((r, False, e.size, int(e.mtime * 1e9)))

    walk(root, "")
    return tuple(out)


class VaultIndex:
    """One scan of a vault: its entries (what the window shows), the notes' texts, and for each note
    its resolved wiki links, its tags and the notes linking to it. Texts of notes whose size and
    mtime did not change are taken over from the previous index instead of being read again."""

    def __init__(self, files: ConfinedDir, root: Path, entries: tuple[tuple[str, bool, int, int], ...],
                 previous: "VaultIndex | None" = None, fresh: frozenset[str] = frozenset()) -> None:
        self.root, self.entries = root, entries
        self.notes = sorted((r for r, is_dir, _s, _m in entries if not is_dir and r.endswith(".md")), key=str.lower)
        self.folders = sorted((r for r, is_dir, _s, _m in entries if is_dir), key=str.lower)
        old = {r: (s, m) for r, is_dir, s, m in previous.entries if not is_dir} if previous is not None else {}
        stamps = {r: (s, m) for r, is_dir, s, m in entries if not is_dir}
        self.texts: dict[str, str] = {}
        for n in self.notes:
            if previous is not None and n not in fresh and old.get(n) == stamps[n] and n in previous.texts:
                self.texts[n] = previous.texts[n]
            else:
                try:  # a symlink, FIFO or oversized "note" has no text here (opening it says why)
                    self.texts[n] = read_text(files, root / n)
                except OSError:
                    self.texts[n] = ""
        self._paths = {n[:-3].lower(): n for n in self.notes}
        self._names: dict[str, list[str]] = {}
        for n in sorted(self.notes, key=lambda n: (n.count("/"), n)):
            self._names.setdefault(n[:-3].rsplit("/", 1)[-1].lower(), []).append(n)
        # parsing is redone only for notes whose text changed; resolving only when the set of notes did
        same_notes = previous is not None and previous.notes == self.notes
        self.links: dict[str, list[tuple[str, str | None]]] = {}
        self.tags: dict[str, list[str]] = {}
        for n in self.notes:
            if previous is not None and previous.texts.get(n) is self.texts[n]:
                self.tags[n] = previous.tags[n]
                self.links[n] = previous.links[n] if same_notes else [(t, self.resolve(t)) for t, _r in previous.links[n]]
            else:
                self.tags[n] = note_tags(self.texts[n])
                self.links[n] = [(t, self.resolve(t)) for t in wiki_links(self.texts[n])]
        self.backlinks: dict[str, list[str]] = {}
        for n in self.notes:
            for target in dict.fromkeys(r for _t, r in self.links[n] if r is not None and r != n):
                self.backlinks.setdefault(target, []).append(n)

    def resolve(self, target: str) -> str | None:
        """The note a ``[[target]]`` link points to: a vault path (with or without ``.md``), else the
        shortest-path note with that name (case-insensitive, like on macOS)."""
        t = target.strip().removesuffix(".md").lower()
        if t in self._paths:
            return self._paths[t]
        cands = self._names.get(t.rsplit("/", 1)[-1])
        return cands[0] if cands else None


PickItem = tuple[str, str, Callable[[], Any]]  # (label, detail such as a shortcut, action)


class PickField(TextField):
    """The query field above a list of results (command palette, quick switcher): Up/Down move
    ``state["sel"]`` through the ``count()`` results, wrapping round; other keys edit the query."""

    def __init__(self, key: str, rect: Rect, editor: Editor, state: dict[str, Any], count: Callable[[], int],
                 **kw: Any) -> None:
        super().__init__(key, rect, editor, **kw)
        self.state, self.count = state, count

    def key_event(self, win: Window, key: str, mods: frozenset) -> bool:
        if key in ("up", "down") and not mods:
            n = self.count()
            if n:
                self.state["sel"] = (self.state["sel"] + (1 if key == "down" else -1)) % n
            win.touch()
            return True
        return super().key_event(win, key, mods)


def quick_pick(app: App, parent: Window, title: str, items: list[PickItem], placeholder: str,
               prefix: str = "") -> Window:
    """A command-palette sheet on ``parent``: typing filters ``items`` (every word must occur in the
    label or detail), Up/Down move the selection, Return runs the selected item, Escape closes.
    ``prefix`` starts the field (VS Code's ``>``) and is ignored when matching."""
    if parent.sheet is not None:
        app.desktop.close_window(parent.sheet, force=True)
    w = 600
    state = {"query": prefix, "sel": 0}

    def matches() -> list[PickItem]:
        words = state["query"].removeprefix(prefix).lower().split()
        return [it for it in items if all(x in (it[0] + " " + it[1]).lower() for x in words)][:12]

    def run(i: int | None = None) -> None:
        hits = matches()
        app.desktop.close_window(sheet, force=True)
        if hits:
            hits[min(state["sel"] if i is None else i, len(hits) - 1)][2]()
        app.touch()

    def build(s: Window) -> list[Widget]:
        hits = matches()
        s.h = 56 + max(1, len(hits)) * 26
        ed = s.editor("palette:query", initial=prefix)

        def changed(t: str) -> None:
            state["query"] = t
            state["sel"] = 0

        out: list[Widget] = [PickField("palette:query", (10, 10, w - 20, 28), ed, state, lambda: len(matches()),
                                       name=placeholder, placeholder=placeholder,
                                       size=14, on_change=changed, on_commit=lambda t: run(),
                                       on_cancel=lambda: app.desktop.close_window(s, force=True))]
        if hits:
            rows = [Row(str(i), [label, detail]) for i, (label, detail, _a) in enumerate(hits)]
            out.append(ListView("palette:items", (0, 46, w, len(hits) * 26), rows, [str(min(state["sel"], len(hits) - 1))],
                                name=title, row_height=26,
                                on_select=lambda ks: state.__setitem__("sel", int(ks[0])) if ks else None,
                                on_activate=lambda k: run(int(k))))
        else:
            out.append(Label((16, 50, w - 32, 20), "No matching results", 13, color="secondary_text", key="palette:none"))
        return out

    sheet = Window(app, title, (0, 0, w, 90), build, parent=parent, kind="sheet")
    sheet.focus_key = "palette:query"
    app.desktop.show_window(sheet)
    return sheet


class TreeList(ListView):
    """The file tree: a list whose rows are indented by depth; the accessibility tree names rows
    without the indentation and the disclosure arrow, and says which rows are folders. A right click
    only opens the context menu (it neither opens a note nor folds a folder)."""

    def mouse_down(self, win: Window, ev: MouseEvent) -> None:
        if ev.button != "right":
            super().mouse_down(win, ev)
            return
        on_select, self.on_select = self.on_select, None
        try:
            super().mouse_down(win, ev)
        finally:
            self.on_select = on_select

    def a11y_children(self) -> list[tuple[str, str, str | None, tuple[int, int, int, int], str]]:
        out = []
        for role, name, value, rect, flags in super().a11y_children():
            bare = name.strip()
            if bare[:2] in ("▸ ", "▾ "):
                value = "collapsed folder" if bare[0] == "▸" else "expanded folder"
                bare = bare[2:]
            out.append((role, bare, value, rect, flags))
        return out


# ---------------------------------------------------------------------------------------- the app


class ObsidianApp(App):
    """Obsidian over the vaults in its registry; the open note and vault are ``open_note``/``vault``."""

    name = "Obsidian"
    bundle_id = "md.obsidian"
    url_schemes = frozenset({"obsidian"})

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.vault_id: str | None = None  # the vault shown; None = the registry's open (or first) vault
        self.open_note: str | None = None  # path of the open note inside the vault ("Inbox/Call.md")
        self.side = "Files"  # left sidebar: Files | Search
        self.search_query = ""
        self.collapsed: set[str] = set()  # folders collapsed in the file tree
        # disk reads are memoized per desktop event, shell command and app change (see _memo_key)
        self._current_key: tuple | None = None
        self._current: dict[str, Any] | None = None
        self._index_key: tuple | None = None
        self._index: VaultIndex | None = None
        self._written: set[str] = set()  # notes this app wrote since the last scan: read them again

    # ------------------------------------------------------------------ vault registry
    @property
    def registry_path(self) -> Path:
        return self.desktop.home / REGISTRY

    def registry(self) -> dict[str, dict[str, Any]]:
        """``vaults`` of obsidian.json (an unreadable file counts as no vaults, as Obsidian starts fresh)."""
        try:
            data = json.loads(self.desktop.home_files.read_bytes(self.registry_path, limit=MAX_TEXT_BYTES))
        except (OSError, ValueError):
            return {}
        vaults = data.get("vaults") if isinstance(data, dict) else None
        return {str(k): v for k, v in vaults.items() if isinstance(v, dict) and isinstance(v.get("path"), str)} \
            if isinstance(vaults, dict) else {}

    def _write_registry(self, vaults: dict[str, dict[str, Any]]) -> None:
        save_text(self.desktop.home_files, self.registry_path, json.dumps({"vaults": vaults}, indent=2) + "\n")
        self._current_key = None

    def _memo_key(self) -> tuple:
        """Disk state can only have changed when the desktop handled an event (gen), a shell command ran
        (fs_epoch) or this app wrote something (version)."""
        d = self.desktop
        return (d.gen, getattr(d, "fs_epoch", 0), self.version, self.vault_id)

    def _vault_root(self, entry: dict[str, Any]) -> Path | None:
        try:
            p = self.desktop.backend.host_path(entry["path"])
        except Exception:  # noqa: BLE001 - a vault outside the home folder is not reachable in the sim
            return None
        return p if entry_kind(self.desktop.home_files, p) == "dir" else None  # a symlinked folder is no vault

    def vaults(self) -> list[dict[str, Any]]:
        """Registered vaults whose folder exists: ``id``, ``name`` (the folder's name), ``root`` (host path)."""
        out = []
        for vid, entry in self.registry().items():
            root = self._vault_root(entry)
            if root is not None:
                out.append({"id": vid, "name": root.name, "root": root, "open": bool(entry.get("open"))})
        return out

    def current(self) -> dict[str, Any] | None:
        """The vault shown: the one picked in the app, else the registry's open one, else the first."""
        key = self._memo_key()
        if key != self._current_key:
            self._current, self._current_key = self._find_current(), key
        return self._current

    def _find_current(self) -> dict[str, Any] | None:
        vs = self.vaults()
        for v in vs:
            if v["id"] == self.vault_id:
                return v
        for v in vs:
            if v["open"]:
                return v
        return vs[0] if vs else None

    def find_vault(self, name_or_id: str) -> dict[str, Any] | None:
        for v in self.vaults():
            if v["id"] == name_or_id:
                return v
        for v in self.vaults():
            if v["name"] == name_or_id:
                return v
        low = name_or_id.lower()
        return next((v for v in self.vaults() if v["name"].lower() == low), None)

    def register_vault(self, root: Path) -> str:
        """Add the folder ``root`` to the registry (if new), create its ``.obsidian`` folder, open it."""
        files = self.desktop.home_files
        files.mkdir(root, parents=True, exist_ok=True)  # refuses a symlinked folder (ConfinementError)
        cfg = root / ".obsidian"
        files.mkdir(cfg, exist_ok=True)
        for fname, content in (("app.json", {}), ("appearance.json", {}),
                               ("core-plugins.json", ["file-explorer", "global-search", "switcher", "backlink",
                                                      "outgoing-link", "tag-pane", "page-preview"])):
            if not files.exists(cfg / fname):
                files.write_text(cfg / fname, json.dumps(content, indent=2) + "\n")
        posix = self.desktop.backend.posix_path(root)
        vaults = self.registry()
        vid = next((k for k, v in vaults.items() if v.get("path", "").rstrip("/") == posix), None)
        if vid is None:
            vid = hashlib.md5(posix.encode()).hexdigest()[:16]
            vaults[vid] = {"path": posix, "ts": int(self.desktop.now.timestamp() * 1000)}
        self._set_open(vaults, vid)
        return vid

    def _set_open(self, vaults: dict[str, dict[str, Any]], vid: str) -> None:
        for k, v in vaults.items():
            if k == vid:
                v["open"] = True
            else:
                v.pop("open", None)
        self._write_registry(vaults)
        if self.vault_id != vid:
            self.vault_id = vid
            self.open_note = None
            self.collapsed.clear()
            root = self.current()["root"] if self.current() else None
            if root is not None:
                self.open_note = self._last_open(root)
        self.touch()

    def switch_vault(self, vid: str) -> None:
        vaults = self.registry()
        if vid in vaults:
            self._set_open(vaults, vid)
            v = self.current()
            if v is not None:
                self.register_vault(v["root"])  # make sure its config folder exists
            self._show_main()

    # ------------------------------------------------------------------ notes on disk
    def index(self, root: Path | None = None) -> VaultIndex | None:
        """The scan of the vault at ``root`` (default: the current vault), memoized (see ``_memo_key``)."""
        if root is None:
            v = self.current()
            if v is None:
                return None
            root = v["root"]
        key = self._memo_key() + (str(root),)
        if key != self._index_key or self._index is None:
            files = self.desktop.home_files
            entries = scan_vault(files, root)
            prev = self._index if self._index is not None and self._index.root == root else None
            if prev is None or prev.entries != entries or self._written:
                # a write within the file system's timestamp tick may leave size and mtime as they were
                self._index = VaultIndex(files, root, entries, prev, frozenset(self._written))
            self._written.clear()
            self._index_key = key
        return self._index

    def note_paths(self, root: Path) -> list[str]:
        """Every ``.md`` note of the vault at ``root`` as a vault path, sorted; hidden folders skipped."""
        return list(self.index(root).notes)

    def folder_paths(self, root: Path) -> list[str]:
        return list(self.index(root).folders)

    @staticmethod
    def _inside(root: Path, rel: str) -> Path:
        """The host path of vault path ``rel``, checked lexically (no leading "/", no ".."); symlinks on
        the way are refused when the layer opens it."""
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts or "\0" in rel:
            raise ValueError(f"the path {rel!r} leads outside the vault {root.name!r}")
        return root / rel

    def read(self, root: Path, rel: str) -> str:
        idx = self.index(root)
        if rel in idx.texts:
            return idx.texts[rel]
        try:
            return read_text(self.desktop.home_files, self._inside(root, rel))
        except (OSError, ValueError):
            return ""

    def write(self, root: Path, rel: str, text: str) -> None:
        """Save note ``rel`` through the home's layer (``OSError`` if it is a symlink or special file)."""
        save_text(self.desktop.home_files, self._inside(root, rel), text)
        self._written.add(rel)
        self.touch()

    def resolve_link(self, root: Path, target: str) -> str | None:
        """The note a ``[[target]]`` link points to (see :meth:`VaultIndex.resolve`)."""
        return self.index(root).resolve(target)

    def backlinks(self, root: Path, rel: str) -> list[str]:
        """Notes with a wiki link that resolves to ``rel``."""
        return list(self.index(root).backlinks.get(rel, []))

    def tag_counts(self, root: Path) -> dict[str, int]:
        counts: dict[str, int] = {}
        for tags in self.index(root).tags.values():
            for t in tags:
                counts[t] = counts.get(t, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].lower())))

    def search(self, root: Path, query: str) -> list[tuple[str, str]]:
        """(note, first matching line) for every note matching all terms of ``query``."""
        terms = _split_terms(query)
        if not terms:
            return []
        idx = self.index(root)
        out = []
        for n in idx.notes:
            text = idx.texts[n]
            low = text.lower()
            tags = [t.lower() for t in idx.tags[n]]
            ok, first = True, None
            for term in terms:
                neg = term.startswith("-") and len(term) > 1
                t = term[1:] if neg else term
                key, colon, val = t.partition(":")
                if colon and key.lower() == "tag":
                    v = val.lstrip("#").lower()
                    hit = any(x == v or x.startswith(v + "/") for x in tags)
                elif colon and key.lower() == "file":
                    hit = val.lower() in n.rsplit("/", 1)[-1].lower()
                elif colon and key.lower() == "path":
                    hit = val.lower() in n.lower()
                else:
                    hit = t.lower() in low
                    if hit and not neg and first is None:
                        first = next((ln.strip() for ln in text.split("\n") if t.lower() in ln.lower()), None)
                if hit == neg:
                    ok = False
                    break
            if ok:
                out.append((n, first or ""))
        return out

    def unique_note(self, root: Path, folder: str, stem: str) -> str:
        """A free vault path for a note called ``stem`` in ``folder`` ("Untitled", "Untitled 1", …)."""
        prefix = folder + "/" if folder else ""
        rel = f"{prefix}{stem}.md"
        i = 1
        while entry_kind(self.desktop.home_files, root / rel) is not None:
            rel = f"{prefix}{stem} {i}.md"
            i += 1
        return rel

    @staticmethod
    def check_name(name: str) -> None:
        """Raise ValueError with Obsidian's message if ``name`` cannot be a file name."""
        if not name.strip():
            raise ValueError("File name cannot be empty.")
        bad = [c for c in BAD_NAME_CHARS if c in name]
        if bad:
            raise ValueError(f'File name cannot contain any of the following characters: * " \\ / < > : | ?  (got {name!r})')
        if name.startswith("."):
            raise ValueError("File name cannot start with a dot.")

    # ------------------------------------------------------------------ note operations
    def open(self, rel: str | None) -> None:
        """Show note ``rel`` of the current vault and record it in workspace.json."""
        v = self.current()
        if v is None or rel is None:
            self.open_note = None
            self.touch()
            return
        kind = entry_kind(self.desktop.home_files, self._inside(v["root"], rel))
        if kind != "file":  # a symlink, FIFO or folder named like a note is never followed
            what = {"symlink": "a symbolic link", "dir": "a folder", None: "missing"}.get(kind, "not a regular file")
            self._notice(f"Cannot open “{rel}”: it is {what}, not a note file.")
            return
        self.open_note = rel
        self._record_open(v["root"], rel)
        parts = rel.split("/")[:-1]
        for i in range(len(parts)):
            self.collapsed.discard("/".join(parts[: i + 1]))  # reveal it in the tree
        for w in self.windows:
            w.editors.pop("obsidian:editor", None)
            w.editors.pop("obsidian:title", None)
        self.touch()

    def _record_open(self, root: Path, rel: str) -> None:
        ws = root / ".obsidian" / "workspace.json"
        files = self.desktop.home_files
        try:
            data = json.loads(files.read_bytes(ws, limit=MAX_TEXT_BYTES))
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        last = [rel] + [x for x in data.get("lastOpenFiles", []) if x != rel]
        leaf = {"id": "leaf-1", "type": "leaf",
                "state": {"type": "markdown", "state": {"file": rel, "mode": "source", "source": False},
                          "title": rel.rsplit("/", 1)[-1][:-3]}}
        data.update({"main": {"id": "main", "type": "split", "direction": "vertical",
                              "children": [{"id": "tabs-1", "type": "tabs", "children": [leaf]}]},
                     "active": "leaf-1", "lastOpenFiles": last[:10]})
        try:
            save_text(files, ws, json.dumps(data, indent=2) + "\n")
        except OSError:
            pass  # a symlinked .obsidian or workspace.json: the note opens, the workspace is not recorded

    def _last_open(self, root: Path) -> str | None:
        files = self.desktop.home_files
        try:
            data = json.loads(files.read_bytes(root / ".obsidian" / "workspace.json", limit=MAX_TEXT_BYTES))
            last = data.get("lastOpenFiles", []) if isinstance(data, dict) else []
        except (OSError, ValueError):
            return None
        for f in last if isinstance(last, list) else []:
            try:
                if isinstance(f, str) and entry_kind(files, self._inside(root, f)) == "file":
                    return f
            except ValueError:
                continue
        return None

    def create_note(self, path: str, content: str = "", open_it: bool = True) -> str:
        """Create a note at vault path ``path`` ("Inbox/Call" or "Inbox/Call.md"; folders are created).
        An existing name gets a number ("Call 1"). Returns the new vault path."""
        v = self.current()
        if v is None:
            raise ValueError("Obsidian has no vault open; create one or open a folder as a vault first")
        path = path.strip().strip("/").removesuffix(".md")
        folder, _, stem = path.rpartition("/")
        self.check_name(stem)
        for part in [p for p in folder.split("/") if p]:
            self.check_name(part)
        rel = self.unique_note(v["root"], folder, stem)
        try:
            self.write(v["root"], rel, content)
        except OSError as e:  # a symlinked folder on the way, a FIFO named like the note
            raise ValueError(f"Cannot create “{rel}”: {error_text(e)}") from None
        if open_it:
            self.open(rel)
        return rel

    def new_note(self) -> None:
        """cmd-n: "Untitled" in the vault root, opened with its title selected for renaming."""
        if self.current() is None:
            self.reopen()
            return
        self.create_note("Untitled")
        self.reopen()
        for w in self.windows:
            if w.kind == "window" and w.doc == "vault":
                w.focus_key = "obsidian:title"
                ed = w.editor("obsidian:title", initial=Path(self.open_note or "").stem)
                ed.select_all()

    def new_folder(self, parent: str = "", name: str = "Untitled") -> str:
        v = self.current()
        if v is None:
            raise ValueError("Obsidian has no vault open")
        self.check_name(name)
        prefix = parent + "/" if parent else ""
        rel, i = prefix + name, 1
        while entry_kind(self.desktop.home_files, v["root"] / rel) is not None:
            rel = f"{prefix}{name} {i}"
            i += 1
        try:
            self.desktop.home_files.mkdir(self._inside(v["root"], rel), parents=True)
        except OSError as e:
            raise ValueError(f"Cannot create the folder “{rel}”: {error_text(e)}") from None
        self.collapsed.discard(parent)
        self.touch()
        return rel

    def rename(self, rel: str, new_name: str) -> str:
        """Rename note or folder ``rel`` (same folder); wiki links to a renamed note follow it, as with
        Obsidian's "Automatically update internal links". Returns the new vault path."""
        v = self.current()
        if v is None:
            raise ValueError("Obsidian has no vault open")
        is_note = entry_kind(self.desktop.home_files, self._inside(v["root"], rel)) == "file"
        new_name = new_name.strip().removesuffix(".md") if is_note else new_name.strip()
        self.check_name(new_name)
        parent = rel.rpartition("/")[0]
        return self._relocate(rel, (parent + "/" if parent else "") + new_name + (".md" if is_note else ""))

    def move(self, rel: str, folder: str) -> str:
        """Move note ``rel`` into vault folder ``folder`` ("" = the vault root); links follow it."""
        v = self.current()
        if v is None:
            raise ValueError("Obsidian has no vault open")
        folder = folder.strip().strip("/")
        if folder and entry_kind(self.desktop.home_files, self._inside(v["root"], folder)) != "dir":
            raise ValueError(f"The vault {v['name']!r} has no folder {folder!r}.")
        return self._relocate(rel, (folder + "/" if folder else "") + rel.rsplit("/", 1)[-1])

    def _relocate(self, rel: str, new_rel: str) -> str:
        """Rename/move ``rel`` to ``new_rel`` and rewrite the wiki links that pointed to the note."""
        v = self.current()
        root = v["root"]
        if new_rel == rel:
            return rel
        files = self.desktop.home_files
        src, dst = self._inside(root, rel), self._inside(root, new_rel)
        kind = entry_kind(files, src)
        if kind is None:
            raise ValueError(f"There is no {rel!r} in the vault {v['name']!r}.")
        if kind not in ("file", "dir"):  # a symlink is never renamed for the agent: its target is outside the app
            raise ValueError(f"Cannot move “{rel}”: it is not a note or a folder of the vault.")
        # the same entry under another case is a rename on a case-insensitive Mac
        if entry_kind(files, dst) is not None and new_rel.lower() != rel.lower():
            where = new_rel.rpartition("/")[0]
            raise ValueError(f"A file named {dst.name.removesuffix('.md')!r} already exists in {where or v['name']!r}.")
        is_note = kind == "file"
        before = self.index(root)  # links resolve as they did before the move
        linking = dict(before.texts) if is_note else {}
        try:
            files.rename(src, dst, replace=new_rel.lower() == rel.lower())
        except OSError as e:
            raise ValueError(f"Cannot move “{rel}” to “{new_rel}”: {error_text(e)}") from None
        if is_note:
            new_stem = new_rel[:-3]
            for n, text in linking.items():
                n_now = new_rel if n == rel else n

                def swap(m: re.Match) -> str:
                    target = m.group(1).strip()
                    if before.resolve(target) != rel:
                        return m.group(0)
                    repl = new_stem if "/" in target else new_stem.rsplit("/", 1)[-1]
                    return m.group(0).replace(target, repl, 1)

                new_text = _LINK.sub(swap, text)
                if new_text != text:
                    self.write(root, n_now, new_text)
            if self.open_note == rel:
                self.open_note = new_rel
                self._record_open(root, new_rel)
        elif self.open_note and self.open_note.startswith(rel + "/"):
            self.open_note = new_rel + self.open_note[len(rel):]
        self.touch()
        return new_rel

    def delete(self, rel: str) -> None:
        """Move note or folder ``rel`` to the system Trash (Obsidian's default)."""
        v = self.current()
        if v is None:
            return
        p = self._inside(v["root"], rel)
        if entry_kind(self.desktop.home_files, p) is None:
            return
        self.desktop.apps["Finder"].move_to_trash([p])
        if self.open_note and (self.open_note == rel or self.open_note.startswith(rel + "/")):
            self.open_note = None
        self.touch()

    # ------------------------------------------------------------------ URL scheme
    def open_url(self, url: str) -> None:
        """``obsidian://open|new|search?…`` as the real app handles it; problems show a notice."""
        parts = urlsplit(url)
        action = (parts.netloc or parts.path.lstrip("/")).lower()
        q = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        try:
            self._url_action(action, q, url)
        except ValueError as e:
            self._notice(str(e))

    def _url_action(self, action: str, q: dict[str, str], url: str) -> None:
        if action not in ("open", "new", "search"):
            raise ValueError(f"Unsupported Obsidian URL action {action!r} in {url}; use open, new or search.")
        if "path" in q and action in ("open", "new"):
            try:
                target = self.desktop.backend.host_path(q["path"]) if q["path"] else None
            except Exception:  # noqa: BLE001 - a path outside the home has no vault (the backend's message names host paths)
                target = None
            # lexical: the layer refuses a symlink on the way when the note opens
            match = [v for v in self.vaults() if target is not None
                     and (target == v["root"] or v["root"] in target.parents)]
            if not match:
                raise ValueError(f"Unable to find a vault for the URL {url}")
            v = match[0]
            rel = str(target.relative_to(v["root"]))
            q = {**q, "vault": v["id"], "file": rel}
        name = q.get("vault")
        v = self.find_vault(name) if name else self.current()
        if v is None:
            raise ValueError(f"Vault not found. Unable to find a vault for the URL {url}")
        if v["id"] != self.current()["id"]:
            self.switch_vault(v["id"])
        self.register_vault(v["root"])
        root = v["root"]
        if action == "open":
            f = q.get("file")
            if f:
                rel = self.resolve_link(root, f)
                if rel is None:
                    raise ValueError(f"Unable to find a note matching {f!r} in vault {v['name']!r}.")
                self.open(rel)
            self._show_main()
            return
        if action == "search":
            self.side = "Search"
            self.search_query = q.get("query", "")
            for w in self.windows:
                w.editors.pop("obsidian:search", None)
            self._show_main()
            return
        # new
        content = q.get("content", "")
        target = q.get("file") or q.get("name") or "Untitled"
        path = target.removesuffix(".md")
        silent = "silent" in q and q["silent"].lower() not in ("false", "0")
        if entry_kind(self.desktop.home_files, root / (path + ".md")) == "file" and ("append" in q or "overwrite" in q):
            rel = path + ".md"
            if "overwrite" in q:
                self.write(root, rel, content)
            else:
                old = self.read(root, rel)
                self.write(root, rel, old + ("\n" if old and not old.endswith("\n") else "") + content)
            if not silent:
                self.open(rel)
        else:
            self.create_note(path, content, open_it=not silent)
        self._show_main()

    def _notice(self, text: str) -> None:
        self.reopen()
        win = next((w for w in self.windows if w.kind == "window"), None)
        alert(self, win, "Obsidian", text, [("OK", lambda: None)], cancel=0)

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        v = self.current()
        notes = self.note_paths(v["root"]) if v else []
        return {"running": self.running,
                "vaults": [{"id": x["id"], "name": x["name"], "path": self.desktop.backend.posix_path(x["root"])}
                           for x in self.vaults()],
                "vault": v["name"] if v else None, "open_note": self.open_note,
                "open_note_text": self.read(v["root"], self.open_note) if v and self.open_note else None,
                "notes": notes, "folders": self.folder_paths(v["root"]) if v else [],
                "sidebar": self.side, "search": self.search_query}

    # ------------------------------------------------------------------ windows
    def reopen(self) -> None:
        if not [w for w in self.windows if not w.minimized]:
            self.new_window()

    def new_window(self) -> Window:
        if self.current() is None:
            return self.open_vault_chooser()
        return self._show_main()

    def _show_main(self) -> Window:
        for w in self.windows:
            if w.doc == "vault":
                self.desktop.raise_window(w)
                w.touch()
                return w
        for w in list(self.windows):
            if w.doc == "chooser":
                self.desktop.close_window(w, force=True)
        w, h = 1080, 640
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Obsidian", (x, y, w, h), self._build, doc="vault", min_size=(760, 420),
                     signature=self._signature)
        win.focus_key = "obsidian:editor" if self.open_note else "obsidian:files"
        self.desktop.show_window(win)
        return win

    def _signature(self) -> Any:
        """What on disk the window shows: the vault and every entry's size and mtime."""
        idx = self.index()
        return None if idx is None else (str(idx.root), idx.entries)

    def open_vault_chooser(self) -> Window:
        for w in self.windows:
            if w.doc == "chooser":
                self.desktop.raise_window(w)
                return w
        w, h = 620, 400
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Obsidian", (x, y, w, h), self._build_chooser, doc="chooser", min_size=(520, 320))
        win.focus_key = "obsidian:vaults"
        self.desktop.show_window(win)
        return win

    def _build_chooser(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        vs = self.vaults()
        rows = [Row(v["id"], [v["name"]], icon="folder", detail=self.desktop.backend.posix_path(v["root"])) for v in vs]
        return [
            Box((0, 28, 240, H - 28), "sidebar_bg"),
            ListView("obsidian:vaults", (0, 36, 240, H - 44), rows, [], name="Vaults", sidebar=True,
                     on_select=lambda ks: self.switch_vault(ks[0]) if ks else None, empty_text="No vaults"),
            Label((260, 60, W - 280, 30), "Obsidian", 24, "bold", align="center", key="obsidian:brand"),
            Label((260, 92, W - 280, 20), f"Version {VERSION}", 12, color="secondary_text", align="center", key="obsidian:ver"),
            Label((270, 150, 200, 20), "Create new vault", 13, "bold", key="obsidian:c1"),
            Button("obsidian:create-vault", (W - 110, 146, 90, 26), "Create", lambda: self._create_vault_prompt(win), default=True),
            Label((270, 200, 200, 20), "Open folder as vault", 13, "bold", key="obsidian:c2"),
            Button("obsidian:open-folder", (W - 110, 196, 90, 26), "Open", lambda: self._open_folder_prompt(win)),
        ]

    def _create_vault_prompt(self, win: Window) -> None:
        def make(name: str) -> None:
            name = name.strip()
            try:
                self.check_name(name)
            except ValueError as e:
                alert(self, None, "Cannot create vault", str(e), [("OK", lambda: None)], cancel=0)
                return
            root = self.desktop.home / "Documents" / name
            if entry_kind(self.desktop.home_files, root) is not None:
                alert(self, None, "Cannot create vault", f"Vault folder already exists: {self.desktop.backend.posix_path(root)}",
                      [("OK", lambda: None)], cancel=0)
                return
            self._open_vault_folder(root)

        text_prompt(self, win, "Create new vault", "Vault name:", "", make, ok_title="Create")

    def _open_folder_prompt(self, win: Window) -> None:
        def opened(path: str) -> None:
            try:
                root = self.desktop.backend.host_path(path.strip() or "~")
            except Exception:  # noqa: BLE001 - the backend's message names host paths: say it in the agent's terms
                alert(self, None, "Cannot open folder", f"{path.strip()} is outside the home folder.",
                      [("OK", lambda: None)], cancel=0)
                return
            kind = entry_kind(self.desktop.home_files, root)
            if kind != "dir":
                detail = ("it is a symbolic link; open the folder it points to instead" if kind == "symlink"
                          else "Folder not found" if kind is None else "it is not a folder")
                alert(self, None, "Cannot open folder", f"{path.strip()}: {detail}" if kind else f"{detail}: {path.strip()}",
                      [("OK", lambda: None)], cancel=0)
                return
            self._open_vault_folder(root)

        text_prompt(self, win, "Open folder as vault", "Folder:", "~/Documents/", opened, ok_title="Open")

    def _open_vault_folder(self, root: Path) -> None:
        """Make ``root`` a vault and show it, or say in an alert why it cannot be one."""
        try:
            self.switch_vault(self.register_vault(root))
        except OSError as e:
            alert(self, None, "Cannot open folder", error_text(e), [("OK", lambda: None)], cancel=0)

    def window_closed(self, win: Window) -> None:
        self.touch()

    # ------------------------------------------------------------------ menus
    def app_menus(self) -> list:
        has_vault = self.current() is not None
        return [("File", [
            MenuItem("New note", self.new_note, "cmd+n", enabled=has_vault),
            MenuItem("New folder", lambda: self._new_folder_gui(""), enabled=has_vault),
            MenuItem("Open quick switcher", self.quick_switcher, "cmd+o", enabled=has_vault),
            MenuItem("Open command palette", self.command_palette, "cmd+p", enabled=has_vault),
            MenuItem("Search in all files", self.show_search, "cmd+shift+f", enabled=has_vault),
            sep(),
            MenuItem("Rename note…", lambda: self._rename_gui(self.open_note), enabled=self.open_note is not None),
            MenuItem("Delete note", lambda: self._delete_gui(self.open_note), enabled=self.open_note is not None),
            sep(),
            MenuItem("Open another vault…", self.open_vault_chooser),
            MenuItem("Close", self._close_front, "cmd+w", enabled=bool(self.windows)),
        ])]

    # ------------------------------------------------------------------ GUI actions
    def _main_window(self) -> Window | None:
        return next((w for w in self.windows if w.doc == "vault"), None)

    def show_search(self) -> None:
        if self.current() is None:
            return
        self.side = "Search"
        win = self._show_main()
        win.focus_key = "obsidian:search"
        win.editor("obsidian:search", initial=self.search_query).select_all()
        self.touch()

    def _new_folder_gui(self, parent: str) -> None:
        win = self._main_window()
        if win is None:
            return

        def made(name: str) -> None:
            try:
                self.new_folder(parent, name.strip())
            except (ValueError, OSError) as e:
                alert(self, win, "Cannot create folder", str(e), [("OK", lambda: None)], cancel=0)

        text_prompt(self, win, "New folder", "Name:", "Untitled", made, ok_title="Create")

    def _rename_gui(self, rel: str | None) -> None:
        win = self._main_window()
        if win is None or rel is None:
            return
        current = rel.rsplit("/", 1)[-1].removesuffix(".md")

        def renamed(name: str) -> None:
            try:
                self.rename(rel, name)
            except (ValueError, OSError) as e:
                alert(self, win, "Cannot rename", str(e), [("OK", lambda: None)], cancel=0)

        text_prompt(self, win, "Rename", "New name:", current, renamed, ok_title="Rename")

    def _delete_gui(self, rel: str | None) -> None:
        win = self._main_window()
        if win is None or rel is None:
            return
        name = rel.rsplit("/", 1)[-1].removesuffix(".md")
        alert(self, win, "Delete file", f"Are you sure you want to delete “{name}”? It will be moved to your system trash.",
              [("Delete", lambda: self.delete(rel)), ("Cancel", lambda: None)], default=0, cancel=1)

    def _commit_title(self, win: Window, text: str) -> bool:
        """Rename the open note to the inline title's text; False (and an alert) when refused."""
        rel = self.open_note
        if rel is None:
            return True
        current = rel.rsplit("/", 1)[-1][:-3]
        if text.strip() == current:
            return True
        try:
            self.rename(rel, text)
        except (ValueError, OSError) as e:
            win.editors.pop("obsidian:title", None)
            alert(self, win, "Cannot rename", str(e), [("OK", lambda: None)], cancel=0)
            return False
        return True

    def commands(self) -> list[PickItem]:
        """The command palette (⌘P), with Obsidian's command names."""
        out: list[PickItem] = [
            ("Create new note", "⌘N", self.new_note),
            ("Quick switcher: Open quick switcher", "⌘O", self.quick_switcher),
            ("Search: Search in all files", "⇧⌘F", self.show_search),
            ("Open another vault", "", self.open_vault_chooser),
        ]
        if self.open_note is not None:
            now = self.desktop.now
            out += [
                ("Rename file", "", self.rename_current),
                ("Move current file to another folder", "", self.move_current_prompt),
                ("Delete current file", "", lambda: self._delete_gui(self.open_note)),
                ("Files: Reveal current file in navigation", "", self.reveal_current),
                ("Templates: Insert current date", "", lambda: self.insert_text(now.strftime("%Y-%m-%d"))),
                ("Templates: Insert current time", "", lambda: self.insert_text(now.strftime("%H:%M"))),
            ]
        return out

    def command_palette(self) -> Window | None:
        if self.current() is None:
            return None
        return quick_pick(self, self._show_main(), "Command palette", self.commands(), "Select a command...")

    def rename_current(self) -> None:
        """"Rename file": the inline title takes the focus with the name selected."""
        win = self._main_window()
        if win is None or self.open_note is None:
            return
        win.focus_key = "obsidian:title"
        win.editors.pop("obsidian:title", None)
        win.editor("obsidian:title", initial=self.open_note.rsplit("/", 1)[-1][:-3]).select_all()
        win.touch()

    def move_current_prompt(self) -> None:
        """"Move current file to another folder": pick the folder (``/`` is the vault root)."""
        v, rel = self.current(), self.open_note
        win = self._main_window()
        if v is None or rel is None or win is None:
            return

        def move_to(folder: str) -> None:
            try:
                self.move(rel, folder)
            except (ValueError, OSError) as e:
                alert(self, win, "Cannot move", str(e), [("OK", lambda: None)], cancel=0)

        items = [("/", "", lambda: move_to(""))] + [(f, "", (lambda f=f: move_to(f))) for f in self.folder_paths(v["root"])]
        quick_pick(self, win, "Move file", items, "Type a folder")

    def reveal_current(self) -> None:
        if self.open_note is None:
            return
        self.side = "Files"
        self.open(self.open_note)  # opening unfolds the folders above it

    def insert_text(self, text: str) -> None:
        """Type ``text`` at the cursor of the open note's editor (the templates' insert commands)."""
        win, v, rel = self._main_window(), self.current(), self.open_note
        if win is None or v is None or rel is None:
            return
        ed = win.editor("obsidian:editor", self.read(v["root"], rel), multiline=True)
        ed.insert(text)
        ed.synced = ed.text
        self.write(v["root"], rel, ed.text)
        win.focus_key = "obsidian:editor"

    def quick_switcher(self) -> Window | None:
        """cmd-o: a field over the vault's notes. Return opens the selected note, or creates the typed
        name when nothing matches; shift-Return always creates; Escape closes."""
        v = self.current()
        if v is None:
            return None
        parent = self._show_main()
        if parent.sheet is not None:
            self.desktop.close_window(parent.sheet, force=True)
        w = 560
        state = {"query": "", "sel": 0}

        def matches() -> list[str]:
            q = state["query"].strip().removesuffix(".md").lower()
            notes = self.note_paths(v["root"])
            if not q:
                return notes[:8]
            hits = [n for n in notes if q in n[:-3].lower()]
            hits.sort(key=lambda n: (n[:-3].rsplit("/", 1)[-1].lower() != q.rsplit("/", 1)[-1],
                                     not n[:-3].rsplit("/", 1)[-1].lower().startswith(q.rsplit("/", 1)[-1]), n.lower()))
            return hits[:8]

        def go(create: bool) -> None:
            query = state["query"].strip()
            hits = matches()
            self.desktop.close_window(sheet, force=True)
            if not create and hits:
                self.open(hits[min(state["sel"], len(hits) - 1)])
            elif query:
                try:
                    self.create_note(query)
                except ValueError as e:
                    alert(self, parent, "Cannot create note", str(e), [("OK", lambda: None)], cancel=0)
                    return
            else:
                return
            parent.focus_key = "obsidian:editor"

        class SwitcherField(PickField):
            def key_event(self, win: Window, key: str, mods: frozenset) -> bool:
                if key in ("return", "enter") and mods <= {"shift"}:
                    go(create="shift" in mods)
                    return True
                return super().key_event(win, key, mods)

        def build(s: Window) -> list[Widget]:
            hits = matches()
            s.h = 60 + max(1, len(hits)) * 30 + 30
            ed = s.editor("switcher:query", initial="")

            def changed(t: str) -> None:
                state["query"] = t
                state["sel"] = 0

            out: list[Widget] = [SwitcherField("switcher:query", (12, 12, w - 24, 30), ed, state, lambda: len(matches()),
                                               name="Find or create a note",
                                               placeholder="Find or create a note...", size=15, on_change=changed,
                                               on_cancel=lambda: self.desktop.close_window(s, force=True))]
            if hits:
                rows = [Row(str(i), [n[:-3].rsplit("/", 1)[-1], n.rsplit("/", 1)[0] + "/" if "/" in n else ""])
                        for i, n in enumerate(hits)]
                out.append(ListView("switcher:hits", (0, 52, w, len(hits) * 30), rows, [str(min(state["sel"], len(hits) - 1))],
                                    name="Matching notes", row_height=30,
                                    on_select=lambda ks: state.__setitem__("sel", int(ks[0])) if ks else None,
                                    on_activate=lambda k: (state.__setitem__("sel", int(k)), go(False))))
            elif state["query"].strip():
                out.append(Label((16, 58, w - 32, 24), "No notes found. Press ↵ to create “"
                                 + state["query"].strip() + "”.", 13, color="secondary_text", key="switcher:none"))
            out.append(Label((16, s.h - 26, w - 32, 20), "↑↓ to navigate   ↵ to open   ⇧↵ to create   esc to dismiss", 11,
                             color="secondary_text", key="switcher:help"))
            return out

        sheet = Window(self, "Quick switcher", (0, 0, w, 120), build, parent=parent, kind="sheet")
        sheet.focus_key = "switcher:query"
        self.desktop.show_window(sheet)
        return sheet

    # ------------------------------------------------------------------ main window
    def _tree_rows(self, root: Path) -> list[Row]:
        rows: list[Row] = []
        for r, is_dir, _size, _mtime in self.index(root).entries:  # depth first, folders first
            parts = r.split("/")
            if any("/".join(parts[:i]) in self.collapsed for i in range(1, len(parts))):
                continue  # inside a collapsed folder
            pad, name = "    " * (len(parts) - 1), parts[-1]
            if is_dir:
                rows.append(Row("d:" + r, [pad + ("▸ " if r in self.collapsed else "▾ ") + name], icon="folder"))
            elif name.endswith(".md"):
                rows.append(Row("f:" + r, [pad + "    " + name[:-3]]))
            else:
                rows.append(Row("o:" + r, [pad + "    " + name], color="secondary_text"))
        return rows

    def _tree_select(self, key: str) -> None:
        kind, _, rel = key.partition(":")
        if kind == "d":
            if rel in self.collapsed:
                self.collapsed.discard(rel)
            else:
                self.collapsed.add(rel)
            self.touch()
        elif kind == "f":
            self.open(rel)

    def _tree_context(self, keys: list[str]) -> list[MenuItem]:
        if not keys:
            return []
        kind, _, rel = keys[0].partition(":")
        if kind == "d":
            return [MenuItem("New note", lambda: self._new_note_in(rel)),
                    MenuItem("New folder", lambda: self._new_folder_gui(rel)), sep(),
                    MenuItem("Rename…", lambda: self._rename_gui(rel)),
                    MenuItem("Delete", lambda: self._delete_gui(rel))]
        if kind == "f":
            return [MenuItem("Open", lambda: self.open(rel)), sep(),
                    MenuItem("Rename…", lambda: self._rename_gui(rel)),
                    MenuItem("Delete", lambda: self._delete_gui(rel))]
        return []

    def _new_note_in(self, folder: str) -> None:
        self.create_note((folder + "/" if folder else "") + "Untitled")
        win = self._main_window()
        if win is not None:
            win.focus_key = "obsidian:title"
            win.editor("obsidian:title", initial="Untitled").select_all()

    def _build(self, win: Window) -> list[Widget]:
        v = self.current()
        if v is None:
            return [Label((0, win.h // 2 - 10, win.w, 20), "No vault is open.", 14, align="center", key="obsidian:novault")]
        root = v["root"]
        if self.open_note is not None and entry_kind(self.desktop.home_files, root / self.open_note) != "file":
            self.open_note = None  # deleted or moved away from under the app
        W, H = win.w, win.h
        side, right = 250, 240
        ex0, ex1 = side, W - right
        note = self.open_note
        title = note.rsplit("/", 1)[-1][:-3] if note else ""
        win.title = f"{title} - {v['name']} - Obsidian {VERSION}" if note else f"{v['name']} - Obsidian {VERSION}"
        # a title left by moving focus away (click elsewhere) renames the note, as blurring the inline title does
        ted = win.editors.get("obsidian:title")
        if note and ted is not None and win.focus_key != "obsidian:title" and ted.text.strip() != title:
            if self._commit_title(win, ted.text):
                note = self.open_note
                title = note.rsplit("/", 1)[-1][:-3] if note else ""
            win.editors.pop("obsidian:title", None)
        out: list[Widget] = [Box((0, 28, side, H - 28), "sidebar_bg"), Box((ex1, 28, right, H - 28), "sidebar_bg"),
                             Box((side - 1, 28, 1, H - 28), "separator"), Box((ex1, 28, 1, H - 28), "separator")]
        out.append(Segmented("obsidian:sidetabs", (10, 36, side - 20, 24), ["Files", "Search"], self.side,
                             self._set_side, name="Sidebar"))
        if self.side == "Files":
            out.append(Button("obsidian:newnote", (10, 68, 100, 22), "New note", self.new_note, style="plain", symbol="✎ New note"))
            out.append(Button("obsidian:newfolder", (116, 68, 110, 22), "New folder", lambda: self._new_folder_gui(""),
                              style="plain", symbol="⊕ New folder"))
            sel = ["f:" + note] if note else []
            out.append(TreeList("obsidian:files", (0, 96, side - 1, H - 140), self._tree_rows(root), sel, name="Files",
                                sidebar=True, on_select=lambda ks: self._tree_select(ks[0]) if ks else None,
                                on_context=self._tree_context, empty_text="No notes yet"))
        else:
            sed = win.editor("obsidian:search", self.search_query)
            out.append(TextField("obsidian:search", (10, 68, side - 20, 24), sed, placeholder="Search…", name="Search",
                                 on_change=self._set_query))
            if self.search_query.strip():
                hits = self.search(root, self.search_query)
                out.append(Label((12, 96, side - 24, 18), f"{len(hits)} result{'s' if len(hits) != 1 else ''}", 11,
                                 color="secondary_text", key="obsidian:searchcount"))
                rows = [Row("f:" + n, [n[:-3].rsplit("/", 1)[-1]], detail=line or n) for n, line in hits]
                out.append(ListView("obsidian:results", (0, 118, side - 1, H - 162), rows, ["f:" + note] if note else [],
                                    name="Search results", sidebar=True,
                                    on_select=lambda ks: self.open(ks[0][2:]) if ks else None))
            else:  # an empty query lists the vault's tags (Obsidian's tag pane): a click searches one
                out.append(Label((12, 96, side - 24, 18), "Tags in this vault", 11, color="secondary_text",
                                 key="obsidian:searchcount"))
                rows = [Row("t:" + t, ["#" + t, str(c)]) for t, c in self.tag_counts(root).items()]
                out.append(ListView("obsidian:vault-tags", (0, 118, side - 1, H - 162), rows, [], name="Vault tags",
                                    sidebar=True, on_select=lambda ks: self._search_tag(ks[0][2:]) if ks else None,
                                    empty_text="No tags yet"))
        out.append(Button("obsidian:vault", (10, H - 36, side - 20, 26), v["name"], self.open_vault_chooser,
                          style="plain", symbol=f"⌄ {v['name']}"))
        # editor
        if note is None:
            out.append(Label((ex0, H // 2 - 60, ex1 - ex0, 24), "No file is open", 18, "bold", align="center",
                             key="obsidian:empty"))
            out.append(Button("obsidian:create", (ex0 + (ex1 - ex0) // 2 - 110, H // 2 - 20, 220, 24),
                              "Create new note (⌘ N)", self.new_note, style="link"))
            out.append(Button("obsidian:goto", (ex0 + (ex1 - ex0) // 2 - 110, H // 2 + 10, 220, 24),
                              "Go to file (⌘ O)", self.quick_switcher, style="link"))
        else:
            text = self.read(root, note)
            out.append(Box((ex0, 28, ex1 - ex0, 30), "content_bg"))
            out.append(Label((ex0 + 16, 32, ex1 - ex0 - 32, 22), (note.rsplit("/", 1)[0] + " / " if "/" in note else "") + title,
                             12, color="secondary_text", key="obsidian:crumb"))
            ted = win.editor("obsidian:title", initial=title)
            if win.focus_key != "obsidian:title" and ted.text != title:
                ted.text, ted.cursor, ted.anchor = title, len(title), len(title)

            def commit(t: str) -> None:
                if self._commit_title(win, t):
                    win.editors.pop("obsidian:title", None)
                    win.focus_key = "obsidian:editor"
                    win.touch()

            class TitleField(TextField):
                def key_event(self, w: Window, key: str, mods: frozenset) -> bool:
                    if key == "tab" and not mods:
                        commit(self.editor.text)
                        return True
                    return super().key_event(w, key, mods)

            out.append(TitleField("obsidian:title", (ex0 + 24, 66, ex1 - ex0 - 48, 36), ted, bordered=False, size=22,
                                  weight="bold", name="Note title", on_commit=commit))
            ed = win.editor("obsidian:editor", text, multiline=True)
            rel = note

            def typed(t: str) -> None:
                try:
                    self.write(root, rel, t)  # Obsidian saves as you type
                except OSError as e:  # swapped for a symlink or FIFO since it opened
                    self._notice(f"Cannot save “{rel}”: {error_text(e)}")

            out.append(TextField("obsidian:editor", (ex0 + 12, 108, ex1 - ex0 - 24, H - 140), ed, bordered=False, size=14,
                                 name="Note body", on_change=typed))
            words = len(re.findall(r"\S+", _FRONTMATTER.sub("", text, count=1)))
            back = self.backlinks(root, note)
            out.append(Label((ex0 + 12, H - 26, ex1 - ex0 - 24, 20),
                             f"{len(back)} backlink{'s' if len(back) != 1 else ''}   {words} word{'s' if words != 1 else ''}"
                             f"   {len(text)} character{'s' if len(text) != 1 else ''}", 11, color="secondary_text",
                             align="right", key="obsidian:status"))
            # right sidebar: backlinks, outgoing links, tags of the open note
            y = 36
            out.append(Label((ex1 + 12, y, right - 24, 20), f"Linked mentions ({len(back)})", 12, "bold", key="obsidian:bl"))
            out.append(ListView("obsidian:backlinks", (ex1 + 1, y + 22, right - 2, 150),
                                [Row("f:" + n, [n[:-3].rsplit("/", 1)[-1]]) for n in back], [], name="Backlinks",
                                sidebar=True, on_select=lambda ks: self.open(ks[0][2:]) if ks else None,
                                empty_text="No backlinks found."))
            y += 182
            links = []
            for t in wiki_links(text):
                if t not in [x[0] for x in links]:
                    links.append((t, self.resolve_link(root, t)))
            out.append(Label((ex1 + 12, y, right - 24, 20), f"Outgoing links ({len(links)})", 12, "bold", key="obsidian:ol"))
            out.append(ListView("obsidian:outgoing", (ex1 + 1, y + 22, right - 2, 150),
                                [Row(("f:" + r) if r else ("u:" + t), [t], color=None if r else "secondary_text",
                                     detail="" if r else "") for t, r in links], [], name="Outgoing links", sidebar=True,
                                on_select=lambda ks: self._follow(ks[0]) if ks else None, empty_text="No links."))
            y += 182
            tags = note_tags(text)
            out.append(Label((ex1 + 12, y, right - 24, 20), f"Tags ({len(tags)})", 12, "bold", key="obsidian:tg"))
            out.append(ListView("obsidian:tags", (ex1 + 1, y + 22, right - 2, H - y - 30),
                                [Row("t:" + t, ["#" + t]) for t in tags], [], name="Tags", sidebar=True,
                                on_select=lambda ks: self._search_tag(ks[0][2:]) if ks else None, empty_text="No tags."))
        return out

    def _follow(self, key: str) -> None:
        """Open an outgoing link's note; an unresolved link creates the note, as clicking it does."""
        kind, _, target = key.partition(":")
        if kind == "f":
            self.open(target)
        elif kind == "u":
            self.create_note(target)

    def _search_tag(self, tag: str) -> None:
        self.side = "Search"
        self.search_query = f"tag:#{tag}"
        for w in self.windows:
            w.editors.pop("obsidian:search", None)
        self.touch()

    def _set_side(self, side: str) -> None:
        self.side = side
        self.touch()

    def _set_query(self, text: str) -> None:
        self.search_query = text

    # ------------------------------------------------------------------ icon
    @staticmethod
    def draw_icon(size: int) -> "Image.Image":
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (70, 40, 120), (30, 16, 56))
        # the faceted purple crystal
        top, left, right, bottom = (S * 0.52, S * 0.16), (S * 0.26, S * 0.5), (S * 0.74, S * 0.44), (S * 0.46, S * 0.86)
        mid = (S * 0.5, S * 0.52)
        d.polygon([top, left, mid], fill=(196, 150, 255))
        d.polygon([top, right, mid], fill=(150, 96, 240))
        d.polygon([left, bottom, mid], fill=(124, 70, 220))
        d.polygon([right, bottom, mid], fill=(92, 44, 190))
        return _finish(img, size)
