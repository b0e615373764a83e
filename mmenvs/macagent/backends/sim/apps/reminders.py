"""Reminders: lists and reminders (name, notes, due date, completed, priority, flagged), smart
lists (Today, Scheduled, All, Flagged, Completed), inline creation, a details sheet and deletion."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ....applescript.model import ClassSpec, ObjectRef, RecordStoreApp
from ..menus import MenuItem, sep
from ..widgets import Box, Button, Label, ListView, PopupButton, Row, TextField, Widget
from ..window import Window, alert, text_prompt
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

PRIORITIES = {"None": 0, "High": 1, "Medium": 5, "Low": 9}  # AppleScript's priority numbers
PRIORITY_NAMES = {v: k for k, v in PRIORITIES.items()}
LIST_COLORS = {"blue": (10, 122, 255), "red": (255, 59, 48), "orange": (255, 149, 0), "yellow": (255, 204, 0),
               "green": (52, 199, 89), "purple": (175, 82, 222), "brown": (162, 132, 94)}
SMART = ("Today", "Scheduled", "All", "Flagged", "Completed")


def parse_due(text: str) -> datetime | None:
    """Parse a due date typed in the details sheet: "2026-04-15 09:30", "2026-04-15", "15/04/2026 9:30"."""
    t = text.strip()
    if not t:
        return None
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%d/%m/%Y %H:%M", "%d/%m/%Y", "%Y-%m-%dT%H:%M",
                "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(t, fmt)
        except ValueError:
            continue
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})\s+(\d{1,2}):(\d{2})\s*([AaPp][Mm])", t)
    if m:
        h = int(m.group(2)) % 12 + (12 if m.group(4).lower() == "pm" else 0)
        return datetime.strptime(f"{m.group(1)} {h:02d}:{m.group(3)}", "%Y-%m-%d %H:%M")
    raise ValueError(f"“{text}” is not a date; use YYYY-MM-DD HH:MM")


def due_text(d: datetime | None) -> str:
    if d is None:
        return ""
    hour = d.hour % 12 or 12
    return f"{d.day:02d}/{d.month:02d}/{d.year}, {hour}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"


class RemindersStore(RecordStoreApp):
    """Reminders' dictionary: list → reminder; completing sets the completion date."""

    def __init__(self, app: "RemindersApp") -> None:
        self.app = app
        super().__init__("Reminders", [
            ClassSpec("list", properties={"name": "", "color": "blue"}, elements=("reminder",),
                      id_format="x-apple-reminder-list://SIM-{n}"),
            ClassSpec("reminder", properties={"name": "", "body": "", "due date": None, "allday due date": None,
                                              "remind me date": None, "completed": False, "completion date": None,
                                              "priority": 0, "flagged": False, "creation date": None,
                                              "modification date": None},
                      parent_class="list", readonly=frozenset({"creation date", "modification date"}),
                      id_format="x-apple-reminder://SIM-{n}"),
        ], app_elements=("list", "reminder"), app_properties={"default list": None})

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None and prop == "default list":
            return self.all("list")[0]
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        super().set_property(obj, prop, value)
        if obj is not None and obj.cls == "reminder":
            r = self.record(obj)
            if prop == "completed":
                r["completion date"] = self.app.desktop.now if r["completed"] else None
            r["modification date"] = self.app.desktop.now

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        ref = super().make(cls, properties, at)
        if cls == "reminder":
            r = self.record(ref)
            r["creation date"] = r["modification date"] = self.app.desktop.now
            if r["completed"] and r["completion date"] is None:
                r["completion date"] = self.app.desktop.now
        return ref


class RemindersApp(App):
    """Reminders; scriptable as "Reminders"."""

    name = "Reminders"
    bundle_id = "com.apple.reminders"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.store = RemindersStore(self)
        self.store.add("list", {"name": "Reminders", "color": "blue"})
        self.selected = "list:" + self.store.all("list")[0].id  # "smart:Today" or "list:<id>"
        self.selected_reminder: str | None = None
        self.show_completed = False
        self.adding = False

    # ------------------------------------------------------------------ model API
    def lists(self) -> list[str]:
        return [self.store.record(r)["name"] for r in self.store.all("list")]

    def _list_ref(self, name: str) -> ObjectRef:
        for r in self.store.all("list"):
            if self.store.record(r)["name"] == name:
                return r
        raise ValueError(f"Reminders has no list named {name!r}; lists: {', '.join(self.lists())}")

    def add_list(self, name: str, color: str = "blue") -> str:
        ref = self.store.make("list", {"name": name, "color": color}, None)
        self.touch()
        return ref.id

    def add_reminder(self, name: str, list_name: str | None = None, due: datetime | None = None, priority: int = 0,
                     body: str = "", completed: bool = False, flagged: bool = False) -> str:
        at = self._list_ref(list_name) if list_name else None
        ref = self.store.make("reminder", {"name": name, "due date": due, "priority": priority, "body": body,
                                           "completed": completed, "flagged": flagged}, at)
        self.touch()
        return ref.id

    def reminders(self, list_name: str | None = None) -> list[dict[str, Any]]:
        out = []
        for ref in self.store.all("reminder"):
            r = self.store.record(ref)
            lname = self.store.records[self.store.parents[ref.id]]["name"]
            if list_name is not None and lname != list_name:
                continue
            out.append({"id": ref.id, "name": r["name"], "list": lname, "body": r["body"], "due_date": r["due date"],
                        "completed": r["completed"], "completion_date": r["completion date"], "priority": r["priority"],
                        "flagged": r["flagged"]})
        return out

    def state(self) -> dict[str, Any]:
        def ser(d: dict) -> dict:
            return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in d.items() if k != "id"}

        return {"running": self.running, "lists": self.lists(), "reminders": [ser(r) for r in self.reminders()]}

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        w, h = 820, 540
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Reminders", (x, y, w, h), self._build, title_h=52)
        win.focus_key = "reminders:items"
        self.desktop.show_window(win)
        return win

    def app_menus(self) -> list:
        return [("File", [
            MenuItem("New Reminder", self.start_adding, "cmd+n"),
            MenuItem("New List", lambda: self.new_list_prompt(), "cmd+shift+n"),
            sep(),
            MenuItem("Close", self._close_front, "cmd+w", enabled=bool(self.windows)),
        ])]

    def extra_menus(self) -> list:
        return [("View", [MenuItem("Show Completed", self._toggle_completed, "cmd+shift+h", checked=self.show_completed)])]

    def _toggle_completed(self) -> None:
        self.show_completed = not self.show_completed

    def new_list_prompt(self) -> None:
        if not self.windows:
            self.new_window()
        text_prompt(self, self.windows[0], "New List", "Name:", "New List", self._new_list)

    def _new_list(self, name: str) -> None:
        name = name.strip()
        if not name:
            return
        self.selected = "list:" + self.add_list(name)

    def start_adding(self) -> None:
        if self.selected.startswith("smart:"):
            self.selected = "list:" + self.store.all("list")[0].id
        self.reopen()
        self.adding = True
        for w in self.windows:
            w.editors.pop("reminders:new", None)
            w.focus_key = "reminders:new"
        self.touch()

    def _commit_new(self, win: Window, text: str) -> None:
        """Return in the new reminder's title: as in Reminders, a typed title is kept and a fresh
        empty reminder opens below it for the next one; Return on the empty one ends editing."""
        win.editors.pop("reminders:new", None)
        if not text.strip():
            self.adding = False
            win.focus_key = "reminders:items"
            return
        lid = self.selected.split(":", 1)[1]
        ref = self.store.make("reminder", {"name": text.strip(), "flagged": False}, ObjectRef("list", lid))
        self.selected_reminder = ref.id
        win.focus_key = "reminders:new"

    def _cancel_new(self, win: Window) -> None:
        self.adding = False
        win.focus_key = "reminders:items"
        win.editors.pop("reminders:new", None)

    def _visible(self) -> list[ObjectRef]:
        kind, _, key = self.selected.partition(":")
        today = self.desktop.now.date()
        out = []
        for ref in self.store.all("reminder"):
            r = self.store.record(ref)
            if kind == "list":
                if self.store.parents[ref.id] != key or (r["completed"] and not self.show_completed):
                    continue
            elif key == "Completed":
                if not r["completed"]:
                    continue
            else:
                if r["completed"] and not self.show_completed:
                    continue
                if key == "Today" and not (r["due date"] and r["due date"].date() <= today):
                    continue
                if key == "Scheduled" and r["due date"] is None:
                    continue
                if key == "Flagged" and not r["flagged"]:
                    continue
            out.append(ref)
        return out

    def _set_completed(self, rid: str, value: bool) -> None:
        self.store.set_property(ObjectRef("reminder", rid), "completed", value)

    def delete(self, rids: list[str]) -> None:
        for rid in rids:
            if rid in self.store.records:
                self.store.delete(ObjectRef("reminder", rid))
        self.selected_reminder = None

    def details(self, win: Window, rid: str) -> None:
        """The info sheet: title, notes, due date, priority, list and flag."""
        ref = ObjectRef("reminder", rid)
        r = self.store.record(ref)
        w, h = 440, 300
        form = {"priority": PRIORITY_NAMES.get(r["priority"], "None"),
                "list": self.store.records[self.store.parents[rid]]["name"], "flagged": r["flagged"]}

        def build(sheet: Window) -> list[Widget]:
            e_title = sheet.editor("rem:title", initial=r["name"])
            e_notes = sheet.editor("rem:notes", initial=r["body"])
            e_due = sheet.editor("rem:due", initial=r["due date"].strftime("%Y-%m-%d %H:%M") if r["due date"] else "")
            out: list[Widget] = [Label((20, 14, w - 40, 22), "Details", 14, "bold")]
            rows = (("Title", "rem:title", e_title), ("Notes", "rem:notes", e_notes), ("Due date", "rem:due", e_due))
            for i, (label, key, ed) in enumerate(rows):
                out.append(Label((20, 48 + i * 36, 90, 24), label, 13, align="right"))
                out.append(TextField(key, (120, 48 + i * 36, w - 140, 24), ed, name=label,
                                     placeholder="YYYY-MM-DD HH:MM" if key == "rem:due" else ""))
            out.append(Label((20, 156, 90, 24), "Priority", 13, align="right"))
            out.append(PopupButton("rem:priority", (120, 156, 130, 24), list(PRIORITIES), form["priority"],
                                   lambda v: (form.__setitem__("priority", v), sheet.touch()), name="Priority"))
            out.append(Label((20, 192, 90, 24), "List", 13, align="right"))
            out.append(PopupButton("rem:list", (120, 192, 180, 24), self.lists(), form["list"],
                                   lambda v: (form.__setitem__("list", v), sheet.touch()), name="List"))
            from ..widgets import Checkbox

            out.append(Checkbox("rem:flag", (310, 192, 100, 24), "Flagged", form["flagged"],
                                lambda v: (form.__setitem__("flagged", v), sheet.touch())))

            def ok() -> None:
                try:
                    due = parse_due(e_due.text)
                except ValueError as e:
                    alert(self, None, "Invalid Date", str(e), [("OK", lambda: None)], cancel=0)
                    return
                if rid not in self.store.records:
                    self.desktop.close_window(sheet)
                    return
                rec = self.store.record(ref)
                rec.update({"name": e_title.text, "body": e_notes.text, "due date": due,
                            "priority": PRIORITIES[form["priority"]], "flagged": form["flagged"],
                            "modification date": self.desktop.now})
                target = self._list_ref(form["list"])
                if self.store.parents[rid] != target.id:
                    old = self.store.parents[rid]
                    self.store.children[old].remove(rid)
                    self.store.children[target.id].append(rid)
                    self.store.parents[rid] = target.id
                self.desktop.close_window(sheet)
                self.touch()

            out.append(Button("rem:cancel", (w - 196, h - 44, 84, 26), "Cancel", lambda: self.desktop.close_window(sheet), cancel=True))
            out.append(Button("rem:ok", (w - 104, h - 44, 84, 26), "OK", ok, default=True))
            return out

        sheet = Window(self, "Details", (0, 0, w, h), build, parent=win, kind="sheet")
        sheet.focus_key = "rem:title"
        self.desktop.show_window(sheet)

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side = 220
        out: list[Widget] = [Box((0, 0, side, H), "sidebar_bg"), Box((side, 0, W - side, H), "content_bg")]
        counts = {k: 0 for k in SMART}
        today = self.desktop.now.date()
        for ref in self.store.all("reminder"):
            r = self.store.record(ref)
            if r["completed"]:
                counts["Completed"] += 1
                continue
            counts["All"] += 1
            if r["due date"] is not None:
                counts["Scheduled"] += 1
                if r["due date"].date() <= today:
                    counts["Today"] += 1
            if r["flagged"]:
                counts["Flagged"] += 1
        rows = [Row("smart:" + k, [k], badge=str(counts[k]), swatch=c) for k, c in
                zip(SMART, ((10, 122, 255), (255, 59, 48), (60, 60, 67), (255, 149, 0), (120, 120, 128)))]
        rows.append(Row("hdr", ["My Lists"], header=True))
        for ref in self.store.all("list"):
            rec = self.store.record(ref)
            n = len([c for c in self.store.elements(ref, "reminder") if not self.store.record(c)["completed"]])
            rows.append(Row("list:" + ref.id, [rec["name"]], badge=str(n), swatch=LIST_COLORS.get(rec["color"], (10, 122, 255))))
        out.append(ListView("reminders:lists", (0, 52, side, H - 90), rows, [self.selected], name="Lists", sidebar=True,
                            row_height=30, on_select=lambda keys: self._select(keys[0]) if keys else None,
                            drop_ok=lambda key, payload: key.startswith("list:") and payload[0] == "reminders",
                            on_drop=self._drop))
        out.append(Button("reminders:addlist", (10, H - 34, 110, 24), "Add List", self.new_list_prompt, style="plain",
                          symbol="⊕ Add List"))
        kind, _, key = self.selected.partition(":")
        if kind == "list" and key in self.store.records:
            title = self.store.records[key]["name"]
            color = LIST_COLORS.get(self.store.records[key]["color"], (10, 122, 255))
        else:
            title, color = key, (10, 122, 255)
        out.append(Label((side + 24, 56, 400, 36), title, 26, "bold", color=color, key="reminders:title"))
        visible = self._visible()
        out.append(Label((W - 80, 56, 60, 36), str(len(visible)), 26, "bold", color=color, align="right", key="reminders:count"))
        out.append(Button("reminders:add", (W - 48, 14, 32, 24), "Add Reminder", self.start_adding, style="toolbar",
                          symbol="+", size=20))
        out.append(Button("reminders:info", (W - 86, 14, 32, 24), "Show Details",
                          lambda: self.details(win, self.selected_reminder) if self.selected_reminder else None,
                          style="toolbar", symbol="ℹ", size=16, enabled=self.selected_reminder is not None))
        items = []
        for ref in visible:
            r = self.store.record(ref)
            detail = " ".join(x for x in (due_text(r["due date"]), r["body"].split("\n")[0]) if x)
            marks = "!" * {1: 3, 5: 2, 9: 1}.get(r["priority"], 0)
            items.append(Row(ref.id, [(marks + " " if marks else "") + r["name"] + (" ⚑" if r["flagged"] else "")],
                             detail=detail, check=r["completed"], color=None))
        sel = [self.selected_reminder] if self.selected_reminder in [i.key for i in items] else []
        list_h = H - 110 - (36 if self.adding else 0)
        out.append(ListView("reminders:items", (side + 14, 100, W - side - 28, list_h), items, sel, name=title,
                            row_height=36, on_select=lambda keys: self._select_reminder(keys),
                            on_activate=lambda rid: self.details(win, rid), on_check=self._set_completed,
                            on_delete=self.delete, drag_kind="reminders",
                            on_context=lambda keys: [MenuItem("Show Info", lambda: self.details(win, keys[0])),
                                                     MenuItem("Delete", lambda: self.delete(keys))],
                            empty_text="" if self.adding else "No Reminders"))
        if self.adding:
            ed = win.editor("reminders:new", initial="")
            y = 100 + list_h + 4
            out.append(TextField("reminders:new", (side + 44, y, W - side - 70, 26), ed, name="New Reminder",
                                 placeholder="New Reminder", on_commit=lambda t: self._commit_new(win, t),
                                 on_cancel=lambda: self._cancel_new(win)))
        return out

    def _select(self, key: str) -> None:
        if key != "hdr":
            self.selected = key
            self.selected_reminder = None

    def _select_reminder(self, keys: list[str]) -> None:
        self.selected_reminder = keys[-1] if keys else None

    def _drop(self, key: str, payload: Any) -> None:
        lid = key.split(":", 1)[1]
        for rid in payload[1]:
            if rid in self.store.records and self.store.parents[rid] != lid:
                old = self.store.parents[rid]
                self.store.children[old].remove(rid)
                self.store.children[lid].append(rid)
                self.store.parents[rid] = lid
