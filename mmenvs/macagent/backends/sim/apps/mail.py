"""Mail: one iCloud account (``user@icloud.com``) with Inbox, Drafts, Sent, Junk, Trash and
Archive; a viewer (mailboxes, message list, preview), compose windows (To, Cc, Subject, body;
Send puts the message into Sent), reply/forward, delete to Trash, read and flag status.
AppleScript: ``inbox``, ``sent mailbox``…, ``make new outgoing message``, recipients, ``send``."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ....applescript.errors import ERR_APP_GENERIC, AppleScriptError
from ....applescript.model import ClassSpec, ObjectRef, RecordStoreApp
from ..menus import MenuItem, sep
from ..widgets import Box, Button, Label, ListView, Row, TextField, Widget
from ..window import Window, alert, text_prompt
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

ACCOUNT_EMAIL = "user@icloud.com"
MAILBOXES = ("Inbox", "Drafts", "Sent", "Junk", "Trash", "Archive")
SPECIAL = {"inbox": "Inbox", "drafts mailbox": "Drafts", "sent mailbox": "Sent", "junk mailbox": "Junk",
           "trash mailbox": "Trash"}
_ADDR = re.compile(r"^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$")


def split_addresses(text: str) -> list[str]:
    return [a.strip() for a in re.split(r"[,;]", text) if a.strip()]


class MailStore(RecordStoreApp):
    """Mail's dictionary over records."""

    def __init__(self, app: "MailApp") -> None:
        self.app = app
        recip = {"address": "", "name": ""}
        super().__init__("Mail", [
            ClassSpec("account", properties={"name": "", "email addresses": None, "full name": "", "enabled": True},
                      elements=("mailbox",)),
            ClassSpec("mailbox", plural="mailboxes", properties={"name": ""}, elements=("message", "mailbox"),
                      computed={"unread count": lambda r: 0}),
            ClassSpec("message", properties={"subject": "", "sender": "", "content": "", "date sent": None,
                                             "date received": None, "read status": False, "flagged status": False,
                                             "message id": "", "reply to": "", "deleted status": False},
                      elements=("to recipient", "cc recipient", "bcc recipient"), parent_class="mailbox"),
            ClassSpec("outgoing message", properties={"subject": "", "sender": "", "content": "", "visible": False},
                      elements=("to recipient", "cc recipient", "bcc recipient")),
            ClassSpec("to recipient", plural="to recipients", properties=dict(recip)),
            ClassSpec("cc recipient", plural="cc recipients", properties=dict(recip)),
            ClassSpec("bcc recipient", plural="bcc recipients", properties=dict(recip)),
        ], app_elements=("account", "outgoing message"), command_params={"send": ()},
            app_properties={k: None for k in SPECIAL},
            commands={"send": lambda store, direct, params: store.app.send(direct),
                      "check for new mail": lambda store, direct, params: None})

    def mailbox(self, name: str) -> ObjectRef:
        for m in self.all("mailbox"):
            if self.record(m)["name"].lower() == name.lower():
                return m
        raise AppleScriptError(f"Can’t get mailbox \"{name}\".", -1728)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None and prop in SPECIAL:
            return self.mailbox(SPECIAL[prop])
        if obj is not None and obj.cls == "mailbox" and prop == "unread count":
            return len([m for m in self.elements(obj, "message") if not self.record(m)["read status"]])
        if obj is not None and obj.cls == "message" and prop == "mailbox":
            pid = self.parents[obj.id]
            return ObjectRef("mailbox", pid)
        return super().get_property(obj, prop)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls == "mailbox":
            return self.all("mailbox")
        if container is not None and container.cls == "account" and cls == "mailbox":
            # the standard mailboxes (Inbox, Sent …) belong to the one account, as in real Mail
            return [m for m in self.all("mailbox") if self.parents.get(m.id) in (None, container.id)]
        if container is None and cls == "message":
            raise AppleScriptError("Can’t get every message.", -1728)
        return super().elements(container, cls)

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        props = dict(properties)
        if cls == "outgoing message":
            props.setdefault("sender", ACCOUNT_EMAIL)
            ref = super().make(cls, props, None)
            if bool(props.get("visible")):
                self.app.compose_window(ref)
            return ref
        if cls.endswith(" recipient") and at is None:
            # a recipient lives in a message: "make new to recipient at end of to recipients of m"
            raise AppleScriptError(f"Can’t make class {cls}: give the message with “at end of {cls}s of …”.", ERR_APP_GENERIC)
        if cls == "mailbox" and at is None:
            at = self.all("account")[0]
        return super().make(cls, props, at)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        super().set_property(obj, prop, value)
        if obj is not None and obj.cls == "outgoing message" and prop == "visible" and value:
            self.app.compose_window(obj)

    def delete(self, obj: ObjectRef) -> None:
        if obj.cls == "message":
            trash = self.mailbox("Trash")
            if self.parents[obj.id] != trash.id:
                self.app.move(obj.id, "Trash")
                return
        for w in list(self.app.windows):
            if w.doc == obj.id:
                self.app.desktop.close_window(w, force=True)
        super().delete(obj)


class MailApp(App):
    """Mail; scriptable as "Mail"."""

    name = "Mail"
    bundle_id = "com.apple.mail"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.store = MailStore(self)
        acct = self.store.add("account", {"name": "iCloud", "email addresses": [ACCOUNT_EMAIL], "full name": "User"})
        for name in MAILBOXES:
            self.store.add("mailbox", {"name": name}, parent=acct)
        self.selected_mailbox = self.store.mailbox("Inbox").id
        self.selected_message: str | None = None
        self._msg_counter = 0

    # ------------------------------------------------------------------ model API
    def add_message(self, sender: str, subject: str, content: str, mailbox: str = "Inbox", to: list[str] | None = None,
                    date: datetime | None = None, read: bool = False, flagged: bool = False) -> str:
        """Put a message into a mailbox (task setup)."""
        box = self.store.mailbox(mailbox)
        self._msg_counter += 1
        when = date or self.desktop.now
        ref = self.store.add("message", {"sender": sender, "subject": subject, "content": content, "date sent": when,
                                         "date received": when, "read status": read, "flagged status": flagged,
                                         "message id": f"<sim-{self._msg_counter}@icloud.com>"}, parent=box)
        for addr in to or [ACCOUNT_EMAIL]:
            self.store.add("to recipient", {"address": addr}, parent=ref)
        self.touch()
        return ref.id

    def messages(self, mailbox: str = "Inbox") -> list[dict[str, Any]]:
        box = self.store.mailbox(mailbox)
        out = []
        for m in self.store.elements(box, "message"):
            r = self.store.record(m)
            out.append({"id": m.id, "subject": r["subject"], "sender": r["sender"], "content": r["content"],
                        "to": [self.store.record(t)["address"] for t in self.store.elements(m, "to recipient")],
                        "cc": [self.store.record(t)["address"] for t in self.store.elements(m, "cc recipient")],
                        "date_sent": r["date sent"], "read": r["read status"], "flagged": r["flagged status"]})
        return sorted(out, key=lambda d: d["date_sent"] or datetime.min, reverse=True)

    def move(self, mid: str, mailbox: str) -> None:
        box = self.store.mailbox(mailbox)
        old = self.store.parents[mid]
        self.store.children[old].remove(mid)
        self.store.children[box.id].append(mid)
        self.store.parents[mid] = box.id
        if self.selected_message == mid:
            self.selected_message = None
        self.touch()

    def send(self, direct: Any) -> bool:
        """Send an outgoing message: it becomes a message in Sent (recipients validated first)."""
        ref = direct if isinstance(direct, ObjectRef) else getattr(direct, "ref", None)
        if not isinstance(ref, ObjectRef) or ref.cls != "outgoing message":
            raise AppleScriptError("Can’t send that: expected an outgoing message.", ERR_APP_GENERIC)
        to = [self.store.record(t)["address"] for t in self.store.elements(ref, "to recipient")]
        cc = [self.store.record(t)["address"] for t in self.store.elements(ref, "cc recipient")]
        if not to and not cc:
            raise AppleScriptError("The message has no recipients.", ERR_APP_GENERIC)
        bad = [a for a in to + cc if not _ADDR.match(a)]
        if bad:
            raise AppleScriptError(f"The address “{bad[0]}” is not a valid email address.", ERR_APP_GENERIC)
        r = self.store.record(ref)
        self._deliver(r["subject"], r["content"], to, cc, r["sender"] or ACCOUNT_EMAIL)
        self.store.delete(ref)
        return True

    def _deliver(self, subject: str, content: str, to: list[str], cc: list[str], sender: str) -> str:
        self._msg_counter += 1
        sent = self.store.mailbox("Sent")
        now = self.desktop.now
        m = self.store.add("message", {"sender": sender, "subject": subject, "content": content, "date sent": now,
                                       "date received": now, "read status": True, "message id": f"<sim-{self._msg_counter}@icloud.com>"},
                           parent=sent)
        for a in to:
            self.store.add("to recipient", {"address": a}, parent=m)
        for a in cc:
            self.store.add("cc recipient", {"address": a}, parent=m)
        self.touch()
        return m.id

    def state(self) -> dict[str, Any]:
        def ser(d: dict) -> dict:
            return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in d.items() if k != "id"}

        return {"running": self.running,
                "mailboxes": {self.store.record(b)["name"]: [ser(m) for m in self.messages(self.store.record(b)["name"])]
                              for b in self.store.all("mailbox")},
                "drafts_open": [self.store.record(ObjectRef("outgoing message", w.doc))["subject"] for w in self.windows
                                if w.doc in self.store.records]}

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        w, h = 1000, 600
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Inbox", (x, y, w, h), self._build, title_h=52)
        win.focus_key = "mail:list"
        self.desktop.show_window(win)
        return win

    def reopen(self) -> None:
        viewers = [w for w in self.windows if w.doc is None]
        if viewers:
            self.desktop.raise_window(viewers[0])
        else:
            self.new_window()

    def compose(self, to: str = "", subject: str = "", content: str = "", cc: str = "",
                focus: str = "compose:to") -> Window:
        """A compose window; ``focus`` is the field that gets the keyboard (a reply starts in the body)."""
        ref = self.store.make("outgoing message", {"subject": subject, "content": content}, None)
        for a in split_addresses(to):
            self.store.add("to recipient", {"address": a}, parent=ref)
        for a in split_addresses(cc):
            self.store.add("cc recipient", {"address": a}, parent=ref)
        return self.compose_window(ref, focus)

    def compose_window(self, ref: ObjectRef, focus: str = "compose:to") -> Window:
        for w in self.windows:
            if w.doc == ref.id:
                self.desktop.raise_window(w)
                return w
        w, h = 640, 480
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "New Message", (x, y, w, h), self._build_compose, title_h=52, doc=ref.id)
        r = self.store.record(ref)
        win.title = r["subject"] or "New Message"
        win.editor("compose:to", initial=", ".join(self.store.record(t)["address"] for t in self.store.elements(ref, "to recipient")))
        win.editor("compose:cc", initial=", ".join(self.store.record(t)["address"] for t in self.store.elements(ref, "cc recipient")))
        if focus == "compose:body":
            # as in Mail: the insertion point sits at the top of the body, above the quoted original
            body = win.editor("compose:body", r["content"], multiline=True)
            body.cursor = body.anchor = 0
        win.focus_key = focus
        self.desktop.show_window(win)
        return win

    def send_window(self, win: Window) -> None:
        ref = ObjectRef("outgoing message", win.doc)
        if win.doc not in self.store.records:
            return
        to = split_addresses(win.editors["compose:to"].text)
        cc = split_addresses(win.editors["compose:cc"].text)
        if not to and not cc:
            alert(self, win, "This message has no recipients.", "Enter at least one recipient in the To field.",
                  [("OK", lambda: None)], cancel=0)
            return
        bad = [a for a in to + cc if not _ADDR.match(a)]
        if bad:
            alert(self, win, "Invalid address", f"“{bad[0]}” does not appear to be a valid email address.",
                  [("OK", lambda: None)], cancel=0)
            return
        r = self.store.record(ref)
        self._deliver(r["subject"], r["content"], to, cc, r["sender"] or ACCOUNT_EMAIL)
        self.desktop.close_window(win, force=True)
        self.store.delete(ref)

    def request_close(self, win: Window) -> None:
        if win.doc is None or win.doc not in self.store.records:
            self.desktop.close_window(win)
            return
        r = self.store.record(ObjectRef("outgoing message", win.doc))
        if not (r["subject"] or r["content"]):
            self.store.delete(ObjectRef("outgoing message", win.doc))
            self.desktop.close_window(win)
            return

        def save_draft() -> None:
            drafts = self.store.mailbox("Drafts")
            m = self.store.add("message", {"sender": r["sender"], "subject": r["subject"], "content": r["content"],
                                           "date sent": self.desktop.now, "date received": self.desktop.now, "read status": True},
                               parent=drafts)
            for a in split_addresses(win.editors["compose:to"].text):
                self.store.add("to recipient", {"address": a}, parent=m)
            discard()

        def discard() -> None:
            if win.doc in self.store.records:
                self.store.delete(ObjectRef("outgoing message", win.doc))
            self.desktop.close_window(win, force=True)

        alert(self, win, "Do you want to save this message as a draft?",
              "You can finish this message later from the Drafts mailbox.",
              [("Save", save_draft), ("Cancel", lambda: None), ("Don’t Save", discard)], default=0, cancel=1)

    def reply(self, mid: str | None, forward: bool = False, reply_all: bool = False) -> None:
        """Reply (to the sender), Reply All (the sender and every other To recipient, the Cc
        recipients in Cc; never the account's own address) or Forward. Replies start typing in the
        body above the quoted original, as Mail does; a forward starts in To (it has no recipient)."""
        if mid not in self.store.records:
            return
        m = ObjectRef("message", mid)
        r = self.store.record(m)
        quoted = "\n".join("> " + line for line in r["content"].split("\n"))
        if forward:
            self.compose("", "Fwd: " + r["subject"], "\n\nBegin forwarded message:\n\n" + r["content"])
            return
        to, cc = [r["sender"]], []
        if reply_all:
            mine = {ACCOUNT_EMAIL.lower(), r["sender"].lower()}
            for cls, out in (("to recipient", to), ("cc recipient", cc)):
                for t in self.store.elements(m, cls):
                    addr = self.store.record(t)["address"]
                    if addr.lower() not in mine:
                        mine.add(addr.lower())
                        out.append(addr)
        subj = r["subject"] if r["subject"].lower().startswith("re:") else "Re: " + r["subject"]
        self.compose(", ".join(to), subj, f"\n\nOn {r['date sent']:%d %b %Y}, {r['sender']} wrote:\n\n{quoted}",
                     cc=", ".join(cc), focus="compose:body")

    def delete_messages(self, ids: list[str]) -> None:
        for mid in ids:
            if mid in self.store.records:
                self.store.delete(ObjectRef("message", mid))
        self.selected_message = None
        self.touch()

    def _toggle(self, mid: str | None, prop: str) -> None:
        if mid in self.store.records:
            r = self.store.record(ObjectRef("message", mid))
            r[prop] = not r[prop]

    def app_menus(self) -> list:
        fw = self._front()
        return [("File", [
            MenuItem("New Message", lambda: self.compose(), "cmd+n"),
            MenuItem("New Viewer Window", self.new_window, "cmd+option+n"),
            sep(),
            MenuItem("Close Window", self._close_front, "cmd+w", enabled=fw is not None),
        ])]

    def extra_menus(self) -> list:
        fw = self._front()
        is_compose = fw is not None and fw.doc is not None
        mid = self.selected_message
        return [
            ("Mailbox", [MenuItem("New Mailbox…", lambda: self._new_mailbox(fw)),
                         MenuItem("Erase Deleted Items", self._erase_trash)]),
            ("Message", [
                MenuItem("Send", lambda: self.send_window(fw), "cmd+shift+d", enabled=is_compose),
                MenuItem("Reply", lambda: self.reply(mid), "cmd+r", enabled=mid is not None and not is_compose),
                MenuItem("Reply All", lambda: self.reply(mid, reply_all=True), "cmd+shift+r",
                         enabled=mid is not None and not is_compose),
                MenuItem("Forward", lambda: self.reply(mid, forward=True), "cmd+shift+f", enabled=mid is not None and not is_compose),
                sep(),
                MenuItem("Mark as Unread", lambda: self._toggle(mid, "read status"), "cmd+shift+u", enabled=mid is not None),
                MenuItem("Flag", lambda: self._toggle(mid, "flagged status"), "cmd+shift+l", enabled=mid is not None),
                MenuItem("Archive", lambda: self.move(mid, "Archive") if mid else None, "cmd+ctrl+a", enabled=mid is not None),
            ]),
        ]

    def _new_mailbox(self, win: Window | None) -> None:
        if win is None:
            win = self.new_window()
        text_prompt(self, win, "New Mailbox", "Name:", "untitled mailbox",
                    lambda t: self.store.make("mailbox", {"name": t.strip()}, None) if t.strip() else None)

    def _erase_trash(self) -> None:
        trash = self.store.mailbox("Trash")
        for m in list(self.store.elements(trash, "message")):
            RecordStoreApp.delete(self.store, m)

    def _select_message(self, mid: str | None) -> None:
        self.selected_message = mid
        if mid in self.store.records:
            self.store.record(ObjectRef("message", mid))["read status"] = True

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side, mid_w = 200, 320
        out: list[Widget] = [Box((0, 0, side, H), "sidebar_bg"), Box((side, 52, W - side, H - 52), "content_bg"),
                             Box((side + mid_w, 52, 1, H - 52), "separator")]
        rows = [Row("hdr", ["iCloud"], header=True)]
        for b in self.store.all("mailbox"):
            rec = self.store.record(b)
            unread = self.store.get_property(b, "unread count")
            rows.append(Row(b.id, [rec["name"]], icon="folder", badge=str(unread) if unread and rec["name"] != "Sent" else ""))
        if self.selected_mailbox not in self.store.records:
            self.selected_mailbox = self.store.mailbox("Inbox").id
        box = ObjectRef("mailbox", self.selected_mailbox)
        box_name = self.store.record(box)["name"]
        win.title = box_name
        out.append(ListView("mail:mailboxes", (0, 52, side, H - 52), rows, [self.selected_mailbox], name="Mailboxes",
                            sidebar=True, on_select=lambda ks: self._select_box(ks[0]) if ks else None,
                            drop_ok=lambda k, p: p[0] == "messages" and k != "hdr",
                            on_drop=lambda k, p: [self.move(m, self.store.records[k]["name"]) for m in p[1]]))
        out.append(Label((side + 16, 10, 300, 18), box_name, 15, "bold", key="mail:title"))
        msgs = self.store.elements(box, "message")
        recs = sorted(((m, self.store.record(m)) for m in msgs), key=lambda t: t[1]["date received"] or datetime.min, reverse=True)
        n_unread = len([1 for _, r in recs if not r["read status"]])
        out.append(Label((side + 16, 30, 300, 16), f"{len(recs)} message{'s' if len(recs) != 1 else ''}" +
                         (f", {n_unread} unread" if n_unread else ""), 11,
                         color="secondary_text", key="mail:count"))
        out.append(Button("mail:compose", (W - 48, 14, 32, 24), "New Message", lambda: self.compose(), style="toolbar",
                          symbol="✎", size=17))
        out.append(Button("mail:reply", (W - 88, 14, 32, 24), "Reply", lambda: self.reply(self.selected_message), style="toolbar",
                          symbol="↩", size=17, enabled=self.selected_message is not None))
        out.append(Button("mail:delete", (W - 128, 14, 32, 24), "Delete",
                          lambda: self.delete_messages([self.selected_message]) if self.selected_message else None,
                          style="toolbar", symbol="⌫", size=15, enabled=self.selected_message is not None))
        mrows = []
        for m, r in recs:
            who = r["sender"] if box_name not in ("Sent", "Drafts") else "To: " + ", ".join(
                self.store.record(t)["address"] for t in self.store.elements(m, "to recipient"))
            d = r["date received"]
            when = (f"{d.hour % 12 or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}" if d.date() == self.desktop.now.date()
                    else d.strftime("%d/%m/%Y")) if d else ""
            mrows.append(Row(m.id, [who, when], unread=not r["read status"],
                             detail=(r["subject"] or "(No Subject)") + " — " + r["content"].split("\n")[0][:60]))
        sel = [self.selected_message] if self.selected_message in [r.key for r in mrows] else []
        out.append(ListView("mail:list", (side, 52, mid_w, H - 52), mrows, sel, name=box_name,
                            on_select=lambda ks: self._select_message(ks[-1] if ks else None),
                            on_activate=lambda k: self.reply(k) if box_name == "Drafts" else None,
                            on_delete=self.delete_messages, drag_kind="messages",
                            on_context=lambda ks: [MenuItem("Reply", lambda: self.reply(ks[0])),
                                                   MenuItem("Reply All", lambda: self.reply(ks[0], reply_all=True)),
                                                   MenuItem("Forward", lambda: self.reply(ks[0], True)),
                                                   MenuItem("Delete", lambda: self.delete_messages(ks))],
                            empty_text="No Messages"))
        px = side + mid_w + 20
        if sel:
            m = ObjectRef("message", sel[0])
            r = self.store.record(m)
            to = ", ".join(self.store.record(t)["address"] for t in self.store.elements(m, "to recipient"))
            out.append(Label((px, 62, W - px - 20, 22), r["subject"] or "(No Subject)", 17, "bold", key="mail:subject"))
            out.append(Label((px, 88, W - px - 20, 18), "From: " + r["sender"], 12, color="secondary_text", key="mail:from"))
            out.append(Label((px, 106, W - px - 20, 18), "To: " + to, 12, color="secondary_text", key="mail:to"))
            out.append(Label((px, 124, W - px - 20, 18), r["date sent"].strftime("%d %B %Y at %H:%M") if r["date sent"] else "", 12,
                             color="secondary_text", key="mail:date"))
            out.append(Box((px, 148, W - px - 20, 1), "separator"))
            out.append(Label((px, 158, W - px - 20, H - 170), r["content"], 13, wrap=True, key="mail:content"))
        else:
            out.append(Label((px, H // 2, W - px - 20, 20), "No Message Selected", 15, color="secondary_text", align="center"))
        return out

    def _select_box(self, key: str) -> None:
        if key != "hdr":
            self.selected_mailbox = key
            self.selected_message = None

    def _build_compose(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        if win.doc not in self.store.records:
            return [Label((20, 80, W - 40, 20), "This message was sent or discarded.", 13, color="secondary_text")]
        ref = ObjectRef("outgoing message", win.doc)
        r = self.store.record(ref)
        win.title = r["subject"] or "New Message"
        out: list[Widget] = [Box((0, 52, W, H - 52), "content_bg")]
        out.append(Button("compose:send", (W - 60, 14, 44, 24), "Send", lambda: self.send_window(win), style="toolbar",
                          symbol="➤", size=16))
        e_to = win.editor("compose:to")
        e_cc = win.editor("compose:cc")
        e_subject = win.editor("compose:subject", r["subject"])
        e_body = win.editor("compose:body", r["content"], multiline=True)

        def set_field(prop: str, t: str) -> None:
            r[prop] = t

        for i, (label, key, ed) in enumerate((("To:", "compose:to", e_to), ("Cc:", "compose:cc", e_cc),
                                              ("Subject:", "compose:subject", e_subject))):
            y = 60 + i * 32
            out.append(Label((12, y, 70, 24), label, 13, color="secondary_text", align="right"))
            out.append(TextField(key, (88, y, W - 100, 24), ed, name=label.rstrip(":"), bordered=False,
                                 on_change=(lambda t: set_field("subject", t)) if key == "compose:subject" else None))
            out.append(Box((12, y + 27, W - 24, 1), "separator"))
        out.append(TextField("compose:body", (0, 158, W, H - 158), e_body, bordered=False, name="Message body",
                             on_change=lambda t: set_field("content", t)))
        return out
