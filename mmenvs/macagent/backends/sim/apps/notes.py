"""Notes: an iCloud account with folders and notes. A note's name is its first line; ``body`` reads
as HTML (``<div><h1>Name</h1></div><div>line</div>…`` as the real app returns it) and
``plaintext`` as the text with the name as its first line."""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ....applescript.model import ClassSpec, ObjectRef, RecordStoreApp
from ..menus import MenuItem, sep
from ..widgets import Box, Button, Label, ListView, Row, TextField, Widget
from ..window import Window, alert, text_prompt
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

_TAG = re.compile(r"(<[^>]+>)")
_TAG_NAME = re.compile(r"<\s*(/?)\s*([a-zA-Z][a-zA-Z0-9]*)")
_BLOCKS = {"div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "blockquote", "pre", "table", "tr"}


def html_to_text(s: str) -> str:
    """Plain text of Notes' HTML, as a browser lays it out: every block (``<div>``, ``<h1>`` …) is a
    line, nested block boundaries make one break, ``<br>`` is a break (``<div><br></div>`` an empty
    line) and layout whitespace between tags is not text. Text without tags stays as it is."""
    if "<" not in s:
        return s
    out: list[str] = []
    line_open = False  # the current line has text
    for part in _TAG.split(s):
        if not part:
            continue
        if part.startswith("<") and part.endswith(">"):
            m = _TAG_NAME.match(part)
            if m is None:
                continue  # a comment or doctype
            name = m.group(2).lower()
            if name == "br":
                out.append("\n")
                line_open = False
            elif name in _BLOCKS and line_open:
                out.append("\n")  # a block starts or ends after text on the current line
                line_open = False
            continue
        if not part.strip() and "\n" in part:
            continue  # source formatting between tags
        text = html.unescape(part)
        out.append(text)
        line_open = not text.endswith("\n")
    text = "".join(out)
    return text[:-1] if text.endswith("\n") else text


def text_to_html(name: str, body: str) -> str:
    out = [f"<div><h1>{html.escape(name)}</h1></div>"]
    for line in body.split("\n") if body else []:
        out.append(f"<div>{html.escape(line) if line else '<br>'}</div>")
    return "\n".join(out)


class NotesStore(RecordStoreApp):
    """Notes' scripting dictionary over records: account → folder → note."""

    def __init__(self, app: "NotesApp") -> None:
        self.app = app
        super().__init__("Notes", [
            ClassSpec("account", properties={"name": ""}, elements=("folder", "note"), id_format="x-coredata://SIM/ICAccount/p{n}"),
            ClassSpec("folder", properties={"name": ""}, elements=("note", "folder"), parent_class="account",
                      id_format="x-coredata://SIM/ICFolder/p{n}"),
            ClassSpec("note", properties={"name": "", "body": "", "creation date": None, "modification date": None,
                                          "password protected": False, "shared": False},
                      parent_class="folder", readonly=frozenset({"creation date", "modification date", "password protected", "shared"}),
                      computed={"plaintext": lambda r: (r["name"] + ("\n" + r["body"] if r["body"] else ""))},
                      id_format="x-coredata://SIM/ICNote/p{n}"),
        ], app_elements=("account", "folder", "note"), app_properties={"default account": None},
            commands={"show": lambda store, direct, params: store.app.show(direct)}, command_params={"show": ()})

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is not None and obj.cls == "note" and prop == "body":
            r = self.record(obj)
            return text_to_html(r["name"], r["body"])
        if obj is None and prop == "default account":
            return self.all("account")[0]
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "note" and prop == "body":
            text = html_to_text(str(value))
            name, _, rest = text.partition("\n")
            r = self.record(obj)
            r["name"], r["body"] = name, rest
            r["modification date"] = self.app.desktop.now
            return
        super().set_property(obj, prop, value)
        if obj is not None and obj.cls == "note":
            self.record(obj)["modification date"] = self.app.desktop.now

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        props = dict(properties)
        if cls == "note":
            now = self.app.desktop.now
            body = html_to_text(str(props.get("body", "")))
            name = props.get("name")
            if name is None:
                name, _, body = body.partition("\n")
            elif body.split("\n", 1)[0] == str(name):
                body = body.partition("\n")[2]
            props.update({"name": str(name), "body": body})
            ref = super().make(cls, props, at)
            r = self.record(ref)
            r["creation date"] = r["modification date"] = now
            return ref
        return super().make(cls, props, at)


class NotesApp(App):
    """Notes with folders, a note list and an editor; the store is scriptable as "Notes"."""

    name = "Notes"
    bundle_id = "com.apple.Notes"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.store = NotesStore(self)
        acct = self.store.add("account", {"name": "iCloud"})
        self.store.add("folder", {"name": "Notes"}, parent=acct)
        self.selected_folder: str | None = None  # folder id; None = first folder
        self.selected_note: str | None = None
        self.search = ""
        self._raw: dict[str, str] = {}  # note id -> text as typed in the editor

    # ------------------------------------------------------------------ model API (Python getters)
    def folders(self) -> list[dict[str, Any]]:
        return [{"id": f.id, "name": self.store.record(f)["name"]} for f in self.store.all("folder")]

    def notes(self, folder: str | None = None) -> list[dict[str, Any]]:
        """Notes (optionally of the folder named ``folder``), newest-modified first like the app."""
        out = []
        for n in self.store.all("note"):
            r = self.store.record(n)
            parent = self.store.parents[n.id]
            fname = self.store.records[parent]["name"] if parent in self.store.records else None
            if folder is not None and fname != folder:
                continue
            out.append({"id": n.id, "name": r["name"], "body": r["body"], "plaintext": self.store.get_property(n, "plaintext"),
                        "folder": fname, "creation_date": r["creation date"], "modification_date": r["modification date"]})
        return sorted(out, key=lambda d: d["modification_date"] or datetime.min, reverse=True)

    def add_folder(self, name: str) -> str:
        acct = self.store.all("account")[0]
        ref = self.store.make("folder", {"name": name}, acct)
        self.touch()
        return ref.id

    def add_note(self, name: str, body: str = "", folder: str | None = None) -> str:
        at = None
        if folder is not None:
            match = [f for f in self.store.all("folder") if self.store.record(f)["name"] == folder]
            if not match:
                raise ValueError(f"Notes has no folder named {folder!r}")
            at = match[0]
        ref = self.store.make("note", {"name": name, "body": body}, at)
        self.touch()
        return ref.id

    def show(self, direct: Any) -> None:
        """AppleScript ``show note …`` / ``show folder …``: bring Notes forward with it selected."""
        ref = direct if isinstance(direct, ObjectRef) else getattr(direct, "ref", None)
        if not isinstance(ref, ObjectRef) or ref.id not in self.store.records:
            from ....applescript.errors import AppleScriptError

            raise AppleScriptError("Can’t show that: expected a note or a folder.", -1728)
        if ref.cls == "note":
            self.selected_folder = self.store.parents[ref.id]
            self._select_note(ref.id)
        elif ref.cls == "folder":
            self._select_folder(ref.id)
        self.desktop.activate(self)
        self.touch()

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "folders": [f["name"] for f in self.folders()],
                "notes": [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in n.items() if k != "id"}
                          for n in self.notes()],
                "selected_note": self._note_name(self.selected_note)}

    def _note_name(self, nid: str | None) -> str | None:
        return self.store.records[nid]["name"] if nid in self.store.records else None

    # ------------------------------------------------------------------ GUI actions
    def _current_folder(self) -> ObjectRef:
        folders = self.store.all("folder")
        for f in folders:
            if f.id == self.selected_folder:
                return f
        return folders[0]

    def new_note(self) -> None:
        ref = self.store.make("note", {"name": "", "body": ""}, self._current_folder())
        self.selected_note = ref.id
        self.search = ""
        self.touch()
        self.reopen()
        for w in self.windows:
            w.focus_key = "notes:editor"
            w.editors.pop("notes:editor", None)

    def delete_note(self, nid: str | None) -> None:
        if nid in self.store.records:
            self.store.delete(ObjectRef("note", nid))
            # deleted notes go to "Recently Deleted" in the real app; the sim removes them
            self.selected_note = None
            self.touch()

    def new_folder_prompt(self, win: Window) -> None:
        text_prompt(self, win, "New Folder", "Name:", "New Folder", lambda t: self._new_folder(t.strip()))

    def _new_folder(self, name: str) -> None:
        if not name:
            return
        if any(f["name"] == name for f in self.folders()):
            alert(self, None, "Name Already Taken", f"Please choose a different name. “{name}” is already used.",
                  [("OK", lambda: None)], cancel=0)
            return
        self.selected_folder = self.add_folder(name)
        self.selected_note = None

    def _edit(self, nid: str, text: str) -> None:
        if nid not in self.store.records:
            return
        r = self.store.records[nid]
        name, _, body = text.partition("\n")
        r["name"], r["body"] = name, body
        r["modification date"] = self.desktop.now
        self._raw[nid] = text

    def _date_label(self, d: datetime | None) -> str:
        if d is None:
            return ""
        hour = d.hour % 12 or 12
        return f"{d.day} {d.strftime('%B %Y')} at {hour}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"

    def new_window(self) -> Window:
        w, h = 940, 580
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Notes", (x, y, w, h), self._build, title_h=52)
        win.focus_key = "notes:list"
        self.desktop.show_window(win)
        return win

    def app_menus(self) -> list:
        return [("File", [
            MenuItem("New Note", self.new_note, "cmd+n"),
            MenuItem("New Folder", lambda: self.new_folder_prompt(self.windows[0]) if self.windows else None, "cmd+shift+n",
                     enabled=bool(self.windows)),
            sep(),
            MenuItem("Close", self._close_front, "cmd+w", enabled=bool(self.windows)),
            MenuItem("Delete", lambda: self.delete_note(self.selected_note), enabled=self.selected_note is not None),
        ])]

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side, mid = 200, 270
        out: list[Widget] = [Box((0, 0, side, H), "sidebar_bg"), Box((side, 52, mid, H - 52), "content_bg"),
                             Box((side + mid, 52, W - side - mid, H - 52), "content_bg"),
                             Box((side + mid, 52, 1, H - 52), "separator"), Box((side, 51, W - side, 1), "separator")]
        folders = self.store.all("folder")
        cur = self._current_folder()
        rows = [Row("hdr", ["iCloud"], header=True)]
        for f in folders:
            count = len(self.store.elements(f, "note"))
            rows.append(Row(f.id, [self.store.record(f)["name"]], icon="folder", badge=str(count)))
        out.append(ListView("notes:folders", (0, 52, side, H - 90), rows, [cur.id], name="Folders", sidebar=True,
                            on_select=lambda keys: self._select_folder(keys[0]) if keys else None))
        out.append(Button("notes:newfolder", (10, H - 34, 120, 24), "New Folder", lambda: self.new_folder_prompt(win),
                          style="plain", symbol="⊕ New Folder"))
        # the note list and its selection come first: the toolbar's Delete button depends on the selection
        notes = [n for n in self.store.elements(cur, "note")]
        recs = [(n, self.store.record(n)) for n in notes]
        if self.search:
            q = self.search.lower()
            recs = [(n, r) for n, r in recs if q in r["name"].lower() or q in r["body"].lower()]
        recs.sort(key=lambda t: t[1]["modification date"] or datetime.min, reverse=True)
        if self.selected_note not in [n.id for n, _ in recs]:
            self.selected_note = recs[0][0].id if recs else None
        # toolbar
        out.append(Button("notes:new", (side + mid - 44, 14, 32, 24), "New Note", self.new_note, style="toolbar", symbol="✎", size=17))
        out.append(Button("notes:delete", (side + 12, 14, 32, 24), "Delete", lambda: self.delete_note(self.selected_note),
                          style="toolbar", symbol="⌫", size=15, enabled=self.selected_note is not None))
        sed = win.editor("notes:search", self.search)
        out.append(TextField("notes:search", (W - 230, 14, 210, 24), sed, placeholder="Search", name="Search",
                             on_change=lambda t: self._set_search(t)))
        # note list
        nrows = []
        for n, r in recs:
            d = r["modification date"]
            when = f"{d.hour % 12 or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}" if d and d.date() == self.desktop.now.date() \
                else (d.strftime("%d/%m/%Y") if d else "")
            snippet = r["body"].split("\n", 1)[0] or "No additional text"
            nrows.append(Row(n.id, [r["name"] or "New Note"], detail=f"{when}  {snippet}"))
        out.append(ListView("notes:list", (side, 52, mid, H - 52), nrows, [self.selected_note] if self.selected_note else [],
                            name="Notes", on_select=lambda keys: self._select_note(keys[0]) if keys else None,
                            on_delete=lambda keys: self.delete_note(keys[0]),
                            on_context=lambda keys: [MenuItem("Delete", lambda: self.delete_note(keys[0]))],
                            empty_text="No Notes"))
        # editor
        ex = side + mid
        if self.selected_note is not None:
            r = self.store.records[self.selected_note]
            raw = self._raw.get(self.selected_note)
            # the typed text, unless the note changed elsewhere (AppleScript) since it was typed
            text = raw if raw is not None and raw.partition("\n")[::2] == (r["name"], r["body"]) else \
                r["name"] + ("\n" + r["body"] if r["body"] else "")
            ed = win.editor("notes:editor", text, multiline=True)
            out.append(Label((ex, 60, W - ex, 20), self._date_label(r["modification date"]), 11, color="secondary_text",
                             align="center", key="notes:date"))
            nid = self.selected_note
            out.append(TextField("notes:editor", (ex + 20, 88, W - ex - 40, H - 100), ed, bordered=False, size=14,
                                 name="Note body", on_change=lambda t: self._edit(nid, t), title_weight="bold"))
        return out

    def _set_search(self, t: str) -> None:
        self.search = t

    def _select_folder(self, fid: str) -> None:
        if fid == "hdr":
            return
        self.selected_folder = fid
        self.selected_note = None

    def _select_note(self, nid: str) -> None:
        self.selected_note = nid
        for w in self.windows:
            w.editors.pop("notes:editor", None)
