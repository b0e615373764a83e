"""Calendar: calendars (Home, Work) with events (summary, start/end date, all-day, location,
description, recurrence); Day, Week and Month views with navigation; double-click a slot to add
an event, double-click an event to edit it in the event sheet; delete removes."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ....applescript.model import ClassSpec, ObjectRef, RecordStoreApp
from ..menus import MenuItem, sep
from ..theme import Theme, font
from ..widgets import Box, Button, Checkbox, Custom, Label, ListView, MouseEvent, PopupButton, Row, Segmented, TextField, Widget
from ..window import Window, alert
from .base import App
from .reminders import parse_due

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

CAL_COLORS = {"Home": (10, 122, 255), "Work": (255, 149, 0)}
PALETTE = [(10, 122, 255), (255, 149, 0), (52, 199, 89), (175, 82, 222), (255, 59, 48), (255, 204, 0)]
HOUR_H = 40
VIEWS = ("Day", "Week", "Month")
REPEATS = {"None": "", "Every Day": "FREQ=DAILY;INTERVAL=1", "Every Week": "FREQ=WEEKLY;INTERVAL=1",
           "Every Month": "FREQ=MONTHLY;INTERVAL=1", "Every Year": "FREQ=YEARLY;INTERVAL=1"}
_DAYCODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def repeat_name(rule: str) -> str:
    """The Repeat popup's label for an RRULE (custom rules show as "Custom")."""
    r = (rule or "").upper()
    if not r:
        return "None"
    for name, base in REPEATS.items():
        if base and r.startswith(base.split(";")[0]) and ("INTERVAL=" not in r or "INTERVAL=1" in r):
            return name
    return "Custom"


class CalendarStore(RecordStoreApp):
    """Calendar's dictionary: calendar → event."""

    def __init__(self, app: "CalendarApp") -> None:
        self.app = app
        super().__init__("Calendar", [
            ClassSpec("calendar", properties={"name": "", "color": None, "description": "", "writable": True},
                      elements=("event",)),
            ClassSpec("event", properties={"summary": "", "start date": None, "end date": None, "allday event": False,
                                           "location": "", "description": "", "recurrence": "", "status": "none",
                                           "url": "", "stamp date": None},
                      parent_class="calendar", readonly=frozenset({"stamp date"}),
                      computed={"uid": lambda r: r["_uid"]}),
        ], app_elements=("calendar",),
            commands={"switch view": lambda store, direct, params: store.app.switch_view(params.get("to")),
                      "view calendar": lambda store, direct, params: store.app.view_date(params.get("at"))},
            command_params={"switch view": ("to",), "view calendar": ("at",)},
            constants=("day view", "week view", "month view"))

    def add(self, cls: str, properties: Any = None, parent: ObjectRef | None = None, id: Any = None) -> ObjectRef:
        if cls == "event":
            props = dict(properties or {})
            uid = props.pop("_uid", None)
            ref = super().add(cls, props, parent, id)
            rec = self.records[ref.id]
            rec["_uid"] = uid or f"SIM-EVENT-{ref.id}"
            if rec["start date"] is None:
                rec["start date"] = self.app.desktop.now.replace(second=0, microsecond=0)
            if rec["end date"] is None:
                rec["end date"] = rec["start date"] + timedelta(hours=1)
            rec["stamp date"] = self.app.desktop.now
            return ref
        return super().add(cls, properties, parent, id)


class CalendarApp(App):
    """Calendar; scriptable as "Calendar"."""

    name = "Calendar"
    bundle_id = "com.apple.iCal"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.store = CalendarStore(self)
        for name in ("Home", "Work"):
            self.store.add("calendar", {"name": name, "color": list(CAL_COLORS[name])})
        self.view = "Week"
        self.focus_date: date = desktop.now.date()
        self.hidden_calendars: set[str] = set()
        self.selected_event: str | None = None
        self.scroll_hour = 8

    # ------------------------------------------------------------------ model API
    def calendars(self) -> list[str]:
        return [self.store.record(c)["name"] for c in self.store.all("calendar")]

    def _cal(self, name: str) -> ObjectRef:
        for c in self.store.all("calendar"):
            if self.store.record(c)["name"] == name:
                return c
        raise ValueError(f"Calendar has no calendar named {name!r}; calendars: {', '.join(self.calendars())}")

    def add_event(self, summary: str, start: datetime, end: datetime | None = None, calendar: str = "Home",
                  location: str = "", description: str = "", allday: bool = False, recurrence: str = "") -> str:
        ref = self.store.add("event", {"summary": summary, "start date": start, "end date": end or start + timedelta(hours=1),
                                       "location": location, "description": description, "allday event": allday,
                                       "recurrence": recurrence}, parent=self._cal(calendar))
        self.touch()
        return ref.id

    def events(self, calendar: str | None = None) -> list[dict[str, Any]]:
        out = []
        for e in self.store.all("event"):
            r = self.store.record(e)
            cname = self.store.records[self.store.parents[e.id]]["name"]
            if calendar is not None and cname != calendar:
                continue
            out.append({"id": e.id, "uid": r["_uid"], "summary": r["summary"], "start_date": r["start date"],
                        "end_date": r["end date"], "allday": r["allday event"], "location": r["location"],
                        "description": r["description"], "recurrence": r["recurrence"], "calendar": cname})
        return sorted(out, key=lambda d: d["start_date"])

    def switch_view(self, to: Any) -> None:
        """AppleScript ``switch view to week view`` (day view / week view / month view)."""
        name = str(getattr(to, "name", to)).lower()
        views = {"day view": "Day", "week view": "Week", "month view": "Month"}
        if name not in views:
            from ....applescript.errors import AppleScriptError

            raise AppleScriptError(f"Can’t switch view to {name}; use day view, week view or month view.", -1700)
        self.view = views[name]
        self.touch()

    def view_date(self, at: Any) -> None:
        """AppleScript ``view calendar at date "…"``: show that day."""
        if not isinstance(at, datetime):
            from ....applescript.errors import AppleScriptError

            raise AppleScriptError("view calendar needs “at <date>”.", -1700)
        self.focus_date = at.date()
        self.desktop.activate(self)
        self.touch()

    def state(self) -> dict[str, Any]:
        def ser(d: dict) -> dict:
            return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in d.items() if k not in ("id",)}

        return {"running": self.running, "calendars": self.calendars(), "view": self.view,
                "focus_date": self.focus_date.isoformat(), "events": [ser(e) for e in self.events()]}

    def occurs_on(self, r: dict[str, Any], day: date) -> bool:
        """Whether an event (with a simple RRULE FREQ=DAILY/WEEKLY/MONTHLY/YEARLY) falls on ``day``."""
        start = r["start date"].date()
        if day < start:
            return False
        if start <= day <= r["end date"].date() and (day < r["end date"].date() or r["end date"].time() > datetime.min.time()
                                                    or start == day):
            return True
        rule = (r["recurrence"] or "").upper()
        if "FREQ=DAILY" in rule:
            return True
        if "FREQ=WEEKLY" in rule:
            if "BYDAY=" in rule:
                days = rule.split("BYDAY=")[1].split(";")[0].split(",")
                return ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][day.weekday()] in days
            return day.weekday() == start.weekday()
        if "FREQ=MONTHLY" in rule:
            return day.day == start.day
        if "FREQ=YEARLY" in rule:
            return (day.month, day.day) == (start.month, start.day)
        return False

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        w, h = 1000, 620
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Calendar", (x, y, w, h), self._build, title_h=52)
        self.desktop.show_window(win)
        return win

    def app_menus(self) -> list:
        fw = self._front()
        return [("File", [
            MenuItem("New Event", lambda: self.event_sheet(fw or self.new_window(), None,
                                                           datetime.combine(self.focus_date, datetime.min.time()).replace(hour=9)),
                     "cmd+n"),
            MenuItem("New Calendar", lambda: self._new_calendar(fw)),
            sep(),
            MenuItem("Close", self._close_front, "cmd+w", enabled=fw is not None),
        ])]

    def extra_menus(self) -> list:
        return [("View", [MenuItem("By Day", lambda: self._set_view("Day"), "cmd+1", checked=self.view == "Day"),
                          MenuItem("By Week", lambda: self._set_view("Week"), "cmd+2", checked=self.view == "Week"),
                          MenuItem("By Month", lambda: self._set_view("Month"), "cmd+3", checked=self.view == "Month"),
                          sep(),
                          MenuItem("Go to Today", self._today, "cmd+t")])]

    def _new_calendar(self, win: Window | None) -> None:
        from ..window import text_prompt

        if win is None:
            win = self.new_window()
        text_prompt(self, win, "New Calendar", "Name:", "Untitled", lambda t: self.store.add(
            "calendar", {"name": t.strip() or "Untitled", "color": list(PALETTE[len(self.calendars()) % len(PALETTE)])}))

    def _set_view(self, v: str) -> None:
        self.view = v

    def _today(self) -> None:
        self.focus_date = self.desktop.now.date()

    def _step(self, sign: int) -> None:
        if self.view == "Day":
            self.focus_date += timedelta(days=sign)
        elif self.view == "Week":
            self.focus_date += timedelta(days=7 * sign)
        else:
            m = self.focus_date.month - 1 + sign
            y = self.focus_date.year + m // 12
            self.focus_date = date(y, m % 12 + 1, 1)

    def _color(self, cal_id: str) -> tuple:
        c = self.store.records[cal_id]["color"]
        return tuple(c[:3]) if isinstance(c, (list, tuple)) and len(c) >= 3 else (10, 122, 255)

    def event_sheet(self, win: Window, eid: str | None, start: datetime) -> Window:
        """New/edit event sheet: title, location, start, end, calendar; Delete for existing events."""
        w, h = 460, 326
        rec = self.store.records.get(eid) if eid else None
        form = {"calendar": self.store.records[self.store.parents[eid]]["name"] if rec else self.calendars()[0],
                "allday": rec["allday event"] if rec else False,
                "repeat": repeat_name(rec["recurrence"]) if rec else "None"}
        init = {"ev:title": rec["summary"] if rec else "New Event", "ev:location": rec["location"] if rec else "",
                "ev:start": (rec["start date"] if rec else start).strftime("%Y-%m-%d %H:%M"),
                "ev:end": (rec["end date"] if rec else start + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")}

        def build(sheet: Window) -> list[Widget]:
            out: list[Widget] = [Label((20, 12, w - 40, 22), "Edit Event" if rec else "New Event", 14, "bold")]
            for i, (label, key) in enumerate((("Title", "ev:title"), ("Location", "ev:location"), ("Starts", "ev:start"),
                                              ("Ends", "ev:end"))):
                ed = sheet.editor(key, initial=init[key])
                out.append(Label((20, 44 + i * 34, 80, 24), label, 13, align="right"))
                out.append(TextField(key, (110, 44 + i * 34, w - 130, 24), ed, name=label,
                                     placeholder="YYYY-MM-DD HH:MM" if key in ("ev:start", "ev:end") else ""))
            out.append(Label((20, 180, 80, 24), "Calendar", 13, align="right"))
            out.append(PopupButton("ev:calendar", (110, 180, 160, 24), self.calendars(), form["calendar"],
                                   lambda v: (form.__setitem__("calendar", v), sheet.touch()), name="Calendar"))
            out.append(Checkbox("ev:allday", (290, 180, 120, 24), "All-day", form["allday"],
                                lambda v: (form.__setitem__("allday", v), sheet.touch())))
            out.append(Label((20, 216, 80, 24), "Repeat", 13, align="right"))
            options = list(REPEATS) + (["Custom"] if form["repeat"] == "Custom" else [])
            out.append(PopupButton("ev:repeat", (110, 216, 160, 24), options, form["repeat"],
                                   lambda v: (form.__setitem__("repeat", v), sheet.touch()), name="Repeat"))
            if rec:
                out.append(Button("ev:delete", (20, h - 44, 84, 26), "Delete", lambda: (self.desktop.close_window(sheet),
                                                                                       self._delete([eid]))))
            out.append(Button("ev:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: self.desktop.close_window(sheet), cancel=True))
            out.append(Button("ev:ok", (w - 104, h - 44, 84, 26), "OK", lambda: ok(), default=True))
            return out

        def ok() -> None:
            try:
                s = parse_due(sheet.editors["ev:start"].text)
                e = parse_due(sheet.editors["ev:end"].text)
            except ValueError as err:
                alert(self, None, "Invalid Date", str(err), [("OK", lambda: None)], cancel=0)
                return
            if s is None or e is None or e < s:
                alert(self, None, "Invalid Dates", "The event must start before it ends.", [("OK", lambda: None)], cancel=0)
                return
            props = {"summary": sheet.editors["ev:title"].text, "location": sheet.editors["ev:location"].text,
                     "start date": s, "end date": e, "allday event": form["allday"]}
            if form["repeat"] != "Custom":
                rule = REPEATS[form["repeat"]]
                if form["repeat"] == "Every Week":
                    rule += ";BYDAY=" + _DAYCODES[s.weekday()]
                props["recurrence"] = rule
            cal = self._cal(form["calendar"])
            if rec is not None and eid in self.store.records:
                self.store.records[eid].update(props)
                if self.store.parents[eid] != cal.id:
                    old = self.store.parents[eid]
                    self.store.children[old].remove(eid)
                    self.store.children[cal.id].append(eid)
                    self.store.parents[eid] = cal.id
                self.selected_event = eid
            else:
                self.selected_event = self.store.add("event", props, parent=cal).id
            self.focus_date = s.date()
            self.desktop.close_window(sheet)
            self.touch()

        sheet = Window(self, "Event", (0, 0, w, h), build, parent=win, kind="sheet")
        sheet.focus_key = "ev:title"
        sheet.editor("ev:title", initial=init["ev:title"]).select_all()
        self.desktop.show_window(sheet)
        return sheet

    def _delete(self, ids: list[str]) -> None:
        for eid in ids:
            if eid in self.store.records:
                self.store.delete(ObjectRef("event", eid))
        self.selected_event = None
        self.touch()

    def _visible_events(self, day: date) -> list[tuple[str, dict[str, Any]]]:
        out = []
        for e in self.store.all("event"):
            cal = self.store.parents[e.id]
            if cal in self.hidden_calendars:
                continue
            r = self.store.record(e)
            if self.occurs_on(r, day):
                out.append((e.id, r))
        return sorted(out, key=lambda t: (not t[1]["allday event"], t[1]["start date"].time()))

    def _days(self) -> list[date]:
        if self.view == "Day":
            return [self.focus_date]
        start = self.focus_date - timedelta(days=(self.focus_date.weekday() + 1) % 7)  # weeks start on Sunday
        return [start + timedelta(days=i) for i in range(7)]

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side = 180
        out: list[Widget] = [Box((0, 0, side, H), "sidebar_bg"), Box((side, 52, W - side, H - 52), "content_bg")]
        rows = [Row("hdr", ["iCloud"], header=True)]
        for c in self.store.all("calendar"):
            rows.append(Row(c.id, [self.store.record(c)["name"]], swatch=self._color(c.id)))
        out.append(ListView("cal:calendars", (0, 52, side, 200), rows, [], name="Calendars", sidebar=True))
        for i, c in enumerate(self.store.all("calendar")):
            out.append(Checkbox(f"cal:show:{c.id}", (side - 30, 52 + 22 * (i + 1) + 4, 16, 16), "", c.id not in self.hidden_calendars,
                                lambda v, cid=c.id: self.hidden_calendars.discard(cid) if v else self.hidden_calendars.add(cid),
                                color=self._color(c.id)))
        out.append(Segmented("cal:view", (W // 2 - 90, 14, 180, 24), list(VIEWS), self.view, self._set_view, name="View"))
        out.append(Button("cal:prev", (W - 150, 14, 28, 24), "Previous", lambda: self._step(-1), style="toolbar", symbol="‹", size=20))
        out.append(Button("cal:today", (W - 120, 14, 60, 24), "Today", self._today))
        out.append(Button("cal:next", (W - 56, 14, 28, 24), "Next", lambda: self._step(1), style="toolbar", symbol="›", size=20))
        fd = self.focus_date
        title = fd.strftime("%B %Y") if self.view != "Day" else f"{fd.day} {fd.strftime('%B %Y')}"
        out.append(Label((side + 20, 60, 400, 32), title, 24, "bold", key="cal:title"))
        gx, gy, gw, gh = side, 100, W - side, H - 100
        today = self.desktop.now.date()
        if self.view == "Month":
            first = date(fd.year, fd.month, 1)
            start = first - timedelta(days=(first.weekday() + 1) % 7)
            cells = [start + timedelta(days=i) for i in range(42)]
            cw, ch = gw / 7, (gh - 20) / 6
            blocks = []
            for i, d in enumerate(cells):
                x, y = gx + (i % 7) * cw, gy + 20 + (i // 7) * ch
                for k, (eid, r) in enumerate(self._visible_events(d)[:3]):
                    blocks.append((eid, r, (int(x + 4), int(y + 22 + k * 17), int(cw - 8), 15)))

            def paint_month(d: Any, theme: Theme, rect: tuple) -> None:
                for k, name in enumerate(("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")):
                    d.text((gx + k * cw + cw - 8, gy + 10), name, font=font(11), fill=theme.secondary_text, anchor="rm")
                for i, day in enumerate(cells):
                    x, y = gx + (i % 7) * cw, gy + 20 + (i // 7) * ch
                    d.rectangle((x, y, x + cw, y + ch), outline=theme.separator)
                    color = theme.text if day.month == fd.month else theme.secondary_text
                    if day == today:
                        d.ellipse((x + cw - 30, y + 3, x + cw - 6, y + 25), fill=(255, 59, 48))
                        color = (255, 255, 255)
                    d.text((x + cw - 18, y + 14), str(day.day), font=font(12), fill=color, anchor="mm")
                for eid, r, (bx, by, bw, bh) in blocks:
                    col = self._color(self.store.parents[eid])
                    if eid == self.selected_event:
                        d.rounded_rectangle((bx, by, bx + bw, by + bh), 3, fill=col)
                    d.text((bx + 4, by + bh // 2), r["summary"][:24], font=font(11),
                           fill=(255, 255, 255) if eid == self.selected_event else theme.text, anchor="lm")

            def click_month(w: Window, ev: MouseEvent) -> None:
                for eid, r, (bx, by, bw, bh) in blocks:
                    if bx <= ev.x <= bx + bw and by <= ev.y <= by + bh:
                        self.selected_event = eid
                        if ev.clicks >= 2:
                            self.event_sheet(win, eid, r["start date"])
                        return
                i = int((ev.y - gy - 20) // ch) * 7 + int((ev.x - gx) // cw)
                if 0 <= i < 42:
                    self.selected_event = None
                    self.focus_date = cells[i]
                    if ev.clicks >= 2:
                        self.event_sheet(win, None, datetime.combine(cells[i], datetime.min.time()).replace(hour=9))

            out.append(Custom("cal:grid", (gx, gy, gw, gh), paint_month, on_click=click_month, role="AXGroup", name="Month",
                              children=[("AXButton", r["summary"], r["start date"].strftime("%Y-%m-%d %H:%M"), rect,
                                         "selected" if eid == self.selected_event else "") for eid, r, rect in blocks],
                              on_key=lambda k, m: self._grid_key(k), focusable=True))
            return out
        days = self._days()
        label_w = 50
        col_w = (gw - label_w) / len(days)
        top = gy + 40
        hours_visible = int((gh - 40) // HOUR_H)
        first_hour = max(0, min(24 - hours_visible, self.scroll_hour))
        blocks = []
        for di, d in enumerate(days):
            for eid, r in self._visible_events(d):
                x = gx + label_w + di * col_w
                if r["allday event"]:
                    blocks.append((eid, r, (int(x + 2), gy + 22, int(col_w - 4), 16)))
                    continue
                s = r["start date"] if r["start date"].date() == d else datetime.combine(d, r["start date"].time())
                e = r["end date"] if r["end date"].date() == d else datetime.combine(d, r["end date"].time())
                if e <= s:
                    e = s + timedelta(minutes=30)
                y0 = top + (s.hour + s.minute / 60 - first_hour) * HOUR_H
                y1 = top + (e.hour + e.minute / 60 - first_hour) * HOUR_H
                if y1 <= top or y0 >= gy + gh:
                    continue
                blocks.append((eid, r, (int(x + 2), int(max(top, y0)), int(col_w - 4), int(min(gy + gh, y1) - max(top, y0)))))

        def paint(d: Any, theme: Theme, rect: tuple) -> None:
            for di, day in enumerate(days):
                x = gx + label_w + di * col_w
                txt = f"{day.strftime('%a')} {day.day}"
                if day == today:
                    d.rounded_rectangle((x + col_w / 2 - 34, gy + 2, x + col_w / 2 + 34, gy + 20), 9, fill=(255, 59, 48))
                d.text((x + col_w / 2, gy + 11), txt, font=font(12, "bold" if day == today else "regular"),
                       fill=(255, 255, 255) if day == today else theme.text, anchor="mm")
                d.line((x, gy, x, gy + gh), fill=theme.separator)
            d.line((gx, top - 1, gx + gw, top - 1), fill=theme.separator)
            for k in range(hours_visible + 1):
                hr = first_hour + k
                y = top + k * HOUR_H
                if hr > 24:
                    break
                d.line((gx + label_w, y, gx + gw, y), fill=theme.separator)
                label = "Noon" if hr == 12 else f"{hr % 12 or 12} {'AM' if hr < 12 else 'PM'}"
                d.text((gx + label_w - 6, y), label, font=font(10), fill=theme.secondary_text, anchor="rm")
            if today in days:
                now = self.desktop.now
                y = top + (now.hour + now.minute / 60 - first_hour) * HOUR_H
                if top <= y <= gy + gh:
                    x = gx + label_w + days.index(today) * col_w
                    d.line((x, y, x + col_w, y), fill=(255, 59, 48), width=2)
            for eid, r, (bx, by, bw, bh) in blocks:
                col = self._color(self.store.parents[eid])
                sel = eid == self.selected_event
                light = tuple(int(c + (255 - c) * 0.75) for c in col) if not theme.dark else tuple(int(c * 0.45) for c in col)
                d.rounded_rectangle((bx, by, bx + bw, by + max(bh, 14)), 4, fill=col if sel else light)
                d.rectangle((bx, by, bx + 3, by + max(bh, 14)), fill=col)
                fg = (255, 255, 255) if sel else theme.text
                d.text((bx + 7, by + 2), r["summary"][: max(4, int(bw // 7))], font=font(11, "bold"), fill=fg)
                if bh > 30:
                    sub = r["start date"].strftime("%H:%M") + (f"  {r['location']}" if r["location"] else "")
                    d.text((bx + 7, by + 16), sub[: max(4, int(bw // 7))], font=font(10), fill=fg)

        def click(w: Window, ev: MouseEvent) -> None:
            for eid, r, (bx, by, bw, bh) in reversed(blocks):
                if bx <= ev.x <= bx + bw and by <= ev.y <= by + max(bh, 14):
                    self.selected_event = eid
                    if ev.clicks >= 2:
                        self.event_sheet(win, eid, r["start date"])
                    elif ev.button == "right":
                        self.desktop.open_context_menu([MenuItem("Get Info", lambda: self.event_sheet(win, eid, r["start date"])),
                                                        MenuItem("Delete", lambda: self._delete([eid]))],
                                                       win.x + ev.x, win.y + ev.y)
                    return
            self.selected_event = None
            di = int((ev.x - gx - label_w) // col_w)
            if ev.y >= top and 0 <= di < len(days):
                hour = first_hour + int((ev.y - top) // HOUR_H)
                if ev.clicks >= 2 and 0 <= hour < 24:
                    self.event_sheet(win, None, datetime.combine(days[di], datetime.min.time()).replace(hour=hour))

        def on_scroll(dy: int) -> None:
            self.scroll_hour = max(0, min(24 - hours_visible, first_hour - dy))

        out.append(Custom("cal:grid", (gx, gy, gw, gh), paint, on_click=click, on_scroll=on_scroll, role="AXGroup",
                          name=f"{self.view} of {days[0].isoformat()}", focusable=True, on_key=lambda k, m: self._grid_key(k),
                          children=[("AXButton", r["summary"], r["start date"].strftime("%Y-%m-%d %H:%M") +
                                     (f" @ {r['location']}" if r["location"] else ""), rect,
                                     "selected" if eid == self.selected_event else "") for eid, r, rect in blocks]))
        return out

    def _grid_key(self, key: str) -> bool:
        if key in ("backspace", "fwddelete") and self.selected_event:
            self._delete([self.selected_event])
            return True
        if key == "left":
            self._step(-1)
            return True
        if key == "right":
            self._step(1)
            return True
        return False
