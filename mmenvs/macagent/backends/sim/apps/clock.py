"""Clock: World Clock, Alarms (time, label, repeat days, sound, on/off), Stopwatch and Timers.
Time is the simulation's clock (``Desktop.now``): timers count down only when the backend
advances time. The real Clock app has no AppleScript dictionary; the sim exposes ``alarms`` and
``timers`` to scripts so sim-only checkpoints can read them (Python getters use ``state()``)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ....applescript.model import ClassSpec, ObjectRef, RecordStoreApp
from ..menus import MenuItem
from ..widgets import Box, Button, Checkbox, Label, ListView, PopupButton, Row, Segmented, TextField, Widget
from ..window import Window, alert
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

TABS = ("World Clock", "Alarms", "Stopwatch", "Timers")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SOUNDS = ("Radar", "Waves", "Beacon", "Chimes", "Circuit", "Constellation", "Cosmic", "Crystals", "Hillside",
          "Illuminate", "Night Owl", "Opening", "Playtime", "Presto", "Radiate", "Reflection", "Ripples", "Sencha",
          "Signal", "Silk", "Slow Rise", "Stargaze", "Summit", "Twinkle", "Uplift")
DEFAULT_TIMER = "00:05:00"
CITIES = (("Cupertino", 0), ("New York", 3), ("London", 8), ("Tokyo", 16))  # hours ahead of the sim's local time


def time_label(h: int, m: int) -> str:
    return f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"


def repeat_label(days: list[str]) -> str:
    s = set(days)
    if not s:
        return "Never"
    if s == set(DAYS):
        return "Every day"
    if s == set(DAYS[:5]):
        return "Weekdays"
    if s == set(DAYS[5:]):
        return "Weekends"
    return ", ".join(d[:3] for d in DAYS if d in s)


def parse_hhmm(text: str) -> tuple[int, int]:
    t = text.strip().upper().replace(".", ":")
    ampm = None
    for suf in ("AM", "PM"):
        if t.endswith(suf):
            ampm, t = suf, t[:-2].strip()
    parts = t.split(":")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"“{text}” is not a time; use HH:MM (24-hour) or H:MM AM/PM")
    h, m = int(parts[0]), int(parts[1])
    if ampm:
        if not 1 <= h <= 12:
            raise ValueError(f"“{text}”: the hour must be 1–12 with AM/PM")
        h = h % 12 + (12 if ampm == "PM" else 0)
    if not (0 <= h < 24 and 0 <= m < 60):
        raise ValueError(f"“{text}” is not a valid time of day")
    return h, m


class ClockApp(App):
    """Clock; ``store`` keeps alarms and timers (scriptable as "Clock" in the sim only)."""

    name = "Clock"
    bundle_id = "com.apple.clock"
    text_editing = True

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.store = RecordStoreApp("Clock", [
            ClassSpec("alarm", properties={"name": "Alarm", "hour": 0, "minute": 0, "enabled": True, "repeat days": None,
                                           "sound": "Radar", "snooze": True}),
            ClassSpec("timer", properties={"name": "Timer", "duration": 0, "remaining": 0, "running": False,
                                           "finished": False}),
        ], app_elements=("alarm", "timer"))
        self.tab = "Alarms"
        self.selected_alarm: str | None = None
        self.stopwatch = {"elapsed": 0.0, "running": False, "laps": []}
        self._last_tick = desktop.now

    # ------------------------------------------------------------------ model
    def add_alarm(self, hour: int, minute: int, label: str = "Alarm", repeat: list[str] | None = None,
                  sound: str = "Radar", enabled: bool = True) -> str:
        bad = [d for d in (repeat or []) if d not in DAYS]
        if bad:
            raise ValueError(f"unknown weekday {bad[0]!r}; expected one of {', '.join(DAYS)}")
        if sound not in SOUNDS:
            raise ValueError(f"unknown alarm sound {sound!r}")
        ref = self.store.add("alarm", {"name": label, "hour": hour, "minute": minute, "repeat days": list(repeat or []),
                                       "sound": sound, "enabled": enabled})
        self.touch()
        return ref.id

    def add_timer(self, seconds: int, label: str = "Timer", start: bool = True) -> str:
        ref = self.store.add("timer", {"name": label, "duration": int(seconds), "remaining": int(seconds), "running": start})
        self.touch()
        return ref.id

    def alarms(self) -> list[dict[str, Any]]:
        out = []
        for a in self.store.all("alarm"):
            r = self.store.record(a)
            out.append({"id": a.id, "label": r["name"], "hour": r["hour"], "minute": r["minute"],
                        "time": f"{r['hour']:02d}:{r['minute']:02d}", "enabled": r["enabled"],
                        "repeat": list(r["repeat days"] or []), "sound": r["sound"]})
        return sorted(out, key=lambda d: (d["hour"], d["minute"]))

    def timers(self) -> list[dict[str, Any]]:
        return [{"id": t.id, "label": self.store.record(t)["name"], "duration": self.store.record(t)["duration"],
                 "remaining": self.store.record(t)["remaining"], "running": self.store.record(t)["running"],
                 "finished": self.store.record(t)["finished"]} for t in self.store.all("timer")]

    def tick(self) -> None:
        """Advance timers, the stopwatch and alarms to the sim clock: a finished timer or an alarm whose
        time passed shows an alert; a one-time alarm then switches itself off, as on a Mac."""
        now = self.desktop.now
        start = self._last_tick
        dt = (now - start).total_seconds()
        self._last_tick = now
        if dt <= 0:
            return
        for a in self.store.all("alarm"):
            r = self.store.record(a)
            if r["enabled"] and self._rings_between(r, start, now):
                alert(self, None, "Alarm", f"{r['name']} — {time_label(r['hour'], r['minute'])}", [("Stop", lambda: None)],
                      cancel=0)
                if not r["repeat days"]:
                    r["enabled"] = False
        for t in self.store.all("timer"):
            r = self.store.record(t)
            if r["running"] and not r["finished"]:
                r["remaining"] = max(0, int(round(r["remaining"] - dt)))
                if r["remaining"] == 0:
                    r["running"], r["finished"] = False, True
                    alert(self, None, "Timer", f"“{r['name']}” has finished.", [("Stop", lambda: None)], cancel=0)
        if self.stopwatch["running"]:
            self.stopwatch["elapsed"] += dt
        self.touch()

    @staticmethod
    def _rings_between(r: dict[str, Any], start: "datetime", end: "datetime") -> bool:
        """Whether the alarm's time of day falls in (start, end] on a day it repeats (or any day if it does not)."""
        day = start.date()
        while day <= end.date():
            when = datetime.combine(day, datetime.min.time()).replace(hour=r["hour"], minute=r["minute"])
            if start < when <= end and (not r["repeat days"] or DAYS[day.weekday()] in r["repeat days"]):
                return True
            day += timedelta(days=1)
        return False

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "alarms": [{k: v for k, v in a.items() if k != "id"} for a in self.alarms()],
                "timers": [{k: v for k, v in t.items() if k != "id"} for t in self.timers()],
                "stopwatch": {"elapsed": self.stopwatch["elapsed"], "running": self.stopwatch["running"]}}

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        w, h = 620, 520
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Clock", (x, y, w, h), self._build, title_h=52)
        if self.tab == "Timers":
            win.focus_key = "timer:duration"
            win.editor("timer:duration", initial=DEFAULT_TIMER).select_all()
        self.desktop.show_window(win)
        return win

    def app_menus(self) -> list:
        fw = self._front()
        return [("File", [MenuItem("New Alarm", lambda: self.alarm_sheet(fw or self.new_window(), None), "cmd+n"),
                          MenuItem("Close", self._close_front, "cmd+w", enabled=fw is not None)])]

    def extra_menus(self) -> list:
        return [("View", [MenuItem(t, (lambda t=t: self.select_tab(t)), f"cmd+{i + 1}", checked=self.tab == t)
                          for i, t in enumerate(TABS)])]

    def select_tab(self, tab: str) -> None:
        """Show a section (toolbar tabs, View ▸ cmd-1…4). Timers puts the keyboard in the duration
        entry with its digits selected, so typing sets the duration, as in Clock."""
        self.tab = tab
        if tab == "Timers":
            for w in self.windows:
                w.focus("timer:duration")
                w.editor("timer:duration", initial=DEFAULT_TIMER).select_all()
        self.touch()

    def alarm_sheet(self, win: Window, aid: str | None) -> Window:
        """Add/edit an alarm: time, repeat days, label, sound."""
        w, h = 460, 330
        rec = self.store.records.get(aid) if aid else None
        form = {"repeat": set(rec["repeat days"] or []) if rec else set(), "sound": rec["sound"] if rec else "Radar"}

        def build(sheet: Window) -> list[Widget]:
            e_time = sheet.editor("alarm:time", initial=f"{rec['hour']:02d}:{rec['minute']:02d}" if rec else "07:00")
            e_label = sheet.editor("alarm:label", initial=rec["name"] if rec else "Alarm")
            out: list[Widget] = [Label((20, 12, w - 40, 22), "Edit Alarm" if rec else "Add Alarm", 14, "bold"),
                                 Label((20, 46, 80, 24), "Time", 13, align="right"),
                                 TextField("alarm:time", (110, 46, 120, 24), e_time, name="Time", placeholder="HH:MM"),
                                 Label((20, 84, 80, 24), "Repeat", 13, align="right")]
            for i, d in enumerate(DAYS):
                out.append(Checkbox(f"alarm:day:{d}", (110 + (i % 4) * 82, 84 + (i // 4) * 28, 80, 24), d[:3], d in form["repeat"],
                                    lambda v, d=d: (form["repeat"].add(d) if v else form["repeat"].discard(d), sheet.touch())))
            out += [Label((20, 150, 80, 24), "Label", 13, align="right"),
                    TextField("alarm:label", (110, 150, w - 130, 24), e_label, name="Label"),
                    Label((20, 188, 80, 24), "Sound", 13, align="right"),
                    PopupButton("alarm:sound", (110, 188, 160, 24), list(SOUNDS), form["sound"],
                                lambda v: (form.__setitem__("sound", v), sheet.touch()), name="Sound"),
                    Button("alarm:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: self.desktop.close_window(sheet), cancel=True),
                    Button("alarm:save", (w - 104, h - 44, 84, 26), "Save", lambda: save(), default=True)]
            if rec:
                out.append(Button("alarm:delete", (20, h - 44, 84, 26), "Delete",
                                  lambda: (self.desktop.close_window(sheet), self._delete_alarm(aid))))
            return out

        def save() -> None:
            try:
                hh, mm = parse_hhmm(sheet.editors["alarm:time"].text)
            except ValueError as e:
                alert(self, None, "Invalid Time", str(e), [("OK", lambda: None)], cancel=0)
                return
            props = {"name": sheet.editors["alarm:label"].text or "Alarm", "hour": hh, "minute": mm,
                     "repeat days": [d for d in DAYS if d in form["repeat"]], "sound": form["sound"]}
            if rec is not None and aid in self.store.records:
                self.store.records[aid].update(props)
            else:
                self.selected_alarm = self.store.add("alarm", props).id
            self.desktop.close_window(sheet)
            self.touch()

        sheet = Window(self, "Alarm", (0, 0, w, h), build, parent=win, kind="sheet")
        sheet.focus_key = "alarm:time"
        sheet.editor("alarm:time", initial=f"{rec['hour']:02d}:{rec['minute']:02d}" if rec else "07:00").select_all()
        self.desktop.show_window(sheet)
        return sheet

    def _delete_alarm(self, aid: str | None) -> None:
        if aid in self.store.records:
            self.store.delete(ObjectRef("alarm", aid))
        self.selected_alarm = None
        self.touch()

    def _toggle_alarm(self, aid: str, value: bool) -> None:
        if aid in self.store.records:
            self.store.records[aid]["enabled"] = value

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        out: list[Widget] = [Box((0, 52, W, H - 52), "content_bg"),
                             Segmented("clock:tabs", (W // 2 - 200, 14, 400, 24), list(TABS), self.tab,
                                       self.select_tab, name="Clock sections")]
        now = self.desktop.now
        if self.tab == "World Clock":
            for i, (city, off) in enumerate(CITIES):
                t = now + timedelta(hours=off)
                y = 70 + i * 60
                day = "Today" if t.date() == now.date() else ("Tomorrow" if t.date() > now.date() else "Yesterday")
                out.append(Label((30, y, 300, 22), city, 16, "bold", key=f"clock:city:{city}"))
                out.append(Label((30, y + 24, 300, 18), f"{day}, {'+' if off >= 0 else ''}{off}HRS", 12, color="secondary_text"))
                out.append(Label((W - 260, y, 230, 40), time_label(t.hour, t.minute), 28, align="right", key=f"clock:time:{city}"))
        elif self.tab == "Alarms":
            out.append(Button("clock:add", (W - 48, 14, 32, 24), "Add Alarm", lambda: self.alarm_sheet(win, None), style="toolbar",
                              symbol="+", size=20))
            rows = []
            for a in self.alarms():
                rows.append(Row(a["id"], [time_label(a["hour"], a["minute"])],
                                detail=f"{a['label']}, {repeat_label(a['repeat'])} — {a['sound']}"))
            sel = [self.selected_alarm] if self.selected_alarm in self.store.records else []
            lst = ListView("clock:alarms", (20, 64, W - 110, H - 80), rows, sel, name="Alarms",
                           on_select=lambda ks: setattr(self, "selected_alarm", ks[0] if ks else None),
                           on_activate=lambda k: self.alarm_sheet(win, k), on_delete=lambda ks: [self._delete_alarm(k) for k in ks],
                           on_context=lambda ks: [MenuItem("Edit", lambda: self.alarm_sheet(win, ks[0])),
                                                  MenuItem("Delete", lambda: self._delete_alarm(ks[0]))],
                           empty_text="No Alarms", row_height=52)
            out.append(lst)
            for i, a in enumerate(self.alarms()):
                out.append(Checkbox(f"clock:enabled:{a['id']}", (W - 80, 64 + i * lst.row_height + 14, 40, 24), "",
                                    a["enabled"], lambda v, aid=a["id"]: self._toggle_alarm(aid, v), style="switch"))
        elif self.tab == "Stopwatch":
            el = self.stopwatch["elapsed"]
            out.append(Label((0, 120, W, 80), f"{int(el // 60):02d}:{el % 60:05.2f}", 56, align="center", key="clock:stopwatch"))
            out.append(Button("clock:sw-toggle", (W // 2 + 10, 240, 90, 30), "Stop" if self.stopwatch["running"] else "Start",
                              self._sw_toggle, default=not self.stopwatch["running"]))
            out.append(Button("clock:sw-reset", (W // 2 - 100, 240, 90, 30), "Reset", self._sw_reset))
        else:
            e_dur = win.editor("timer:duration", initial=DEFAULT_TIMER)
            e_lab = win.editor("timer:label", initial="Timer")
            out += [Label((20, 66, 80, 24), "Duration", 13, align="right"),
                    TextField("timer:duration", (110, 66, 110, 24), e_dur, name="Duration", placeholder="HH:MM:SS"),
                    Label((230, 66, 50, 24), "Label", 13, align="right"),
                    TextField("timer:label", (290, 66, 160, 24), e_lab, name="Label"),
                    Button("timer:start", (470, 66, 80, 24), "Start", lambda: self._start_timer(win), default=True)]
            for i, t in enumerate(self.timers()):
                y = 110 + i * 56
                rem = t["remaining"]
                txt = f"{rem // 3600:02d}:{rem % 3600 // 60:02d}:{rem % 60:02d}"
                out.append(Label((30, y, 200, 30), txt, 24, key=f"timer:{t['id']}"))
                out.append(Label((240, y + 4, 150, 22), t["label"] + (" — done" if t["finished"] else ""), 13, color="secondary_text"))
                out.append(Button(f"timer:pause:{t['id']}", (W - 200, y, 80, 26), "Pause" if t["running"] else "Resume",
                                  lambda tid=t["id"]: self._pause(tid), enabled=not t["finished"]))
                out.append(Button(f"timer:cancel:{t['id']}", (W - 110, y, 80, 26), "Cancel", lambda tid=t["id"]: self._cancel(tid)))
        return out

    def _sw_toggle(self) -> None:
        self.stopwatch["running"] = not self.stopwatch["running"]

    def _sw_reset(self) -> None:
        self.stopwatch.update({"elapsed": 0.0, "running": False, "laps": []})

    def _start_timer(self, win: Window) -> None:
        text = win.editors["timer:duration"].text.strip()
        parts = text.split(":")
        try:
            nums = [int(p) for p in parts]
            if not 1 <= len(nums) <= 3 or any(n < 0 for n in nums):
                raise ValueError
        except ValueError:
            alert(self, None, "Invalid Duration", f"“{text}” is not a duration; use HH:MM:SS.", [("OK", lambda: None)], cancel=0)
            return
        secs = 0
        for n in nums:
            secs = secs * 60 + n
        if secs <= 0:
            return
        self.add_timer(secs, win.editors["timer:label"].text or "Timer")

    def _pause(self, tid: str) -> None:
        r = self.store.records.get(tid)
        if r is not None and not r["finished"]:
            r["running"] = not r["running"]

    def _cancel(self, tid: str) -> None:
        if tid in self.store.records:
            self.store.delete(ObjectRef("timer", tid))
