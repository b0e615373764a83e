"""App groups ("sinks"): where the information read from the images ends up.

Each app group knows how to seed its app with realistic state (including distractors that make
lookups non-trivial), how a ``Record`` becomes a row, and which tool calls of the full toolset
create, change or remove that row. ``multi`` groups make one row per record (a calendar event per
concert); the others merge all records into one row (a single message listing them).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..renderers import sampling as S
from ..renderers import vocab
from ..renderers.base import sample_without
from .items import lookalike_names, money, person_name
from .model import Context, Record, Step


def _call(tool: str, **arguments: Any) -> Step:
    return {"tool": tool, "arguments": {k: v for k, v in arguments.items() if v is not None}}


def _dt(date: str, time: str | None) -> str:
    return f"{date}T{(time or '09:00')}:00"


def _shift(date: str, time: str, minutes: int) -> tuple[str, str]:
    t = dt.datetime.fromisoformat(f"{date}T{time}:00") + dt.timedelta(minutes=minutes)
    return t.date().isoformat(), t.strftime("%H:%M")


def _slug(text: str) -> str:
    return "-".join(S.slug(w) for w in text.split() if S.slug(w))[:40] or "notes"


class Sink:
    """One app group. Subclasses fill in the table, the row of a record and the tool calls."""

    name = ""
    apps: tuple[str, ...] = ()
    table = ""
    families: tuple[str, ...] = ()
    multi = True
    person = False  # the action goes to a person in the phone book
    #: how a row already written is changed after a goal change: "update" (edit it in place),
    #: "append" (a sent message stays; a follow-up goes out), "cancel" (a payment request is cancelled)
    revise = "update"
    error_field = "amount"  # what a user's wrong detail is about: amount | time | product | phone
    columns: tuple[str, ...] = ()

    # -- state
    def setup(self, ctx: Context, records: list[Record]) -> None:
        """Add the app's initial entities (the user's own rows and distractors)."""

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        raise NotImplementedError

    # -- tool calls
    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        raise NotImplementedError

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step] | None:
        """Steps that turn row ``rid`` (written for ``old``) into ``new``; None when it cannot be edited."""
        return None

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        raise NotImplementedError

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        """Read steps the reference solution makes before acting (looking the target up)."""
        return []

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        """An initial row that is an outdated version of ``rec`` (state mutation updates or replaces it)."""
        row = self.row(rec, ctx)
        return row

    def stale_table(self) -> str:
        return self.table

    def side_rows(self, rec: Record, ctx: Context) -> list[tuple[str, dict[str, Any], tuple[str, ...]]]:
        """Rows in other tables that creating ``rec`` also makes (table, row, compared columns)."""
        return []

    def ask(self, what: str, ctx: Context) -> str:
        raise NotImplementedError

    def merge(self, records: list[Record], ctx: Context) -> list[Record]:
        """Records as this group writes them: one row each (multi) or one row for all."""
        if self.multi or len(records) <= 1:
            return records
        text = "; ".join(r.text for r in records)
        amounts = [r.amount for r in records if r.amount is not None]
        return [Record(label=ctx.title, text=text, amount=round(sum(amounts), 2) if amounts else None,
                       date=records[0].date, time=records[0].time, kind="merged")]


# ----------------------------------------------------------------------------------------- people
def add_profile(ctx: Context) -> None:
    if "user_profile" not in ctx.world.entities:
        ctx.world.add("user_profile", {"first_name": "Alex", "last_name": "Morgan", "email": "alex.morgan@mailbox.example",
                                       "phone_number": "+1-555-0100", "home_address": "12 Elm Street, Springfield"})


def ensure_recipient(ctx: Context, name: str | None = None) -> dict[str, Any]:
    """The person the action is for, in the phone book with look-alike distractors (same first or last name)."""
    if ctx.recipient is not None:
        return ctx.recipient
    rng = ctx.rng
    name = name or person_name(rng, ctx.names)
    ctx.names.add(name)
    domain = S.pick(rng, vocab.EMAIL_DOMAINS)
    used_numbers: set[str] = {"+1-555-0100"}

    def number() -> str:
        while True:
            n = S.phone(rng)
            if n not in used_numbers:
                used_numbers.add(n)
                return n

    recipient = {"name": name, "phone_number": number(), "email": S.email_for(name, domain),
                 "username": S.slug(name)[:12] + str(int(rng.integers(10, 99)))}
    others = lookalike_names(rng, name, max(2, ctx.distractors - 1), ctx.names)
    people = [recipient] + [{"name": o, "phone_number": number(), "email": S.email_for(o, S.pick(rng, vocab.EMAIL_DOMAINS)),
                             "username": S.slug(o)[:12] + str(int(rng.integers(10, 99)))} for o in others]
    order = [int(i) for i in rng.permutation(len(people))]
    for i in order:
        p = people[i]
        ctx.names.add(p["name"])
        ctx.world.add("contacts", {"name": p["name"], "phone_number": p["phone_number"], "email": p["email"],
                                   "relationship": S.pick(ctx.rng, ("friend", "coworker", "family", "other"))})
    ctx.recipient = recipient
    ctx.notes["people"] = [people[i] for i in order]
    return recipient


# ----------------------------------------------------------------------------------------- calendar
class CalendarSink(Sink):
    name, apps, table, families = "calendar", ("calendar",), "calendar_events", ("events",)
    error_field = "time"
    columns = ("title", "start", "end", "location")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        for _ in range(ctx.distractors):
            day = S.add_days(ctx.ref_date, int(ctx.rng.integers(1, 40)))
            start = S.clock(ctx.rng, 8, 18, 30)
            ctx.world.add(self.table, {"title": S.pick(ctx.rng, ("Dentist", "Team sync", "Gym", "Lunch with Sam", "Piano lesson", "Book club")),
                                       "start": _dt(day, start), "end": _dt(day, S.add_minutes(start, 60)), "calendar": "personal"})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        end = rec.end_time or S.add_minutes(rec.time or "09:00", 120)
        end_date = rec.date if end > (rec.time or "00:00") else S.add_days(rec.date, 1)
        return {"title": rec.label, "start": _dt(rec.date, rec.time), "end": _dt(end_date, end), "location": rec.place}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        r = self.row(rec, ctx)
        return [_call("calendar_create_event", title=r["title"], start=r["start"], end=r["end"], location=r["location"])]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        r = self.row(new, ctx)
        return [_call("calendar_update_event", event_id=rid, title=r["title"], start=r["start"], end=r["end"], location=r["location"])]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("calendar_delete_event", event_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("calendar_search_events", query=rec.label)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        row = self.row(rec, ctx)
        wrong = S.add_days(rec.date, 7)
        row.update(start=_dt(wrong, rec.time), end=row["end"].replace(rec.date, wrong), location=None)
        return {k: v for k, v in row.items() if v is not None}

    def ask(self, what: str, ctx: Context) -> str:
        return (f"put {what} in my calendar (title, date, start and end time — 2 hours if the picture shows no end — "
                f"and the venue as the location)")


class RemindersSink(Sink):
    name, apps, table, families = "reminders", ("reminders",), "reminders", ("events", "invoices")
    error_field = "time"
    columns = ("content", "reminder_time")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        for text in sample_without(ctx.rng, ("Water the plants", "Call mom", "Renew passport", "Pick up dry cleaning",
                                               "Buy birthday card", "Take out recycling", "Book car service"), ctx.distractors):
            day = S.add_days(ctx.ref_date, int(ctx.rng.integers(1, 30)))
            ctx.world.add(self.table, {"content": text, "reminder_time": _dt(day, S.clock(ctx.rng, 8, 20, 30))})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        content = rec.label if rec.kind != "invoice" else f"Pay {rec.label} invoice ({money(rec.amount or 0)})"
        if rec.kind == "merged":
            content = f"{ctx.title}: {rec.text}"
        return {"content": content, "reminder_time": _dt(rec.date, rec.time)}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        r = self.row(rec, ctx)
        return [_call("reminders_create_reminder", content=r["content"], reminder_time=r["reminder_time"])]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        r = self.row(new, ctx)
        return [_call("reminders_update_reminder", reminder_id=rid, content=r["content"], reminder_time=r["reminder_time"])]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("reminders_delete_reminder", reminder_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("reminders_search_reminders", query=rec.label)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        row = self.row(rec, ctx)
        row["reminder_time"] = _dt(S.add_days(rec.date, -3), "18:00")
        return row

    def ask(self, what: str, ctx: Context) -> str:
        return f"set a reminder for {what} (events at their start time, invoices at 9:00 on the due date)"


class PhoneSink(Sink):
    name, apps, table, families = "phone", ("phone",), "alarms", ("events",)
    error_field = "time"
    columns = ("time", "label")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        for label, t in (("Wake up", "06:47"), ("Gym", "17:35"), ("Meds", "21:05"), ("Standup", "09:52"), ("Walk", "12:41"), ("Sleep", "22:49"))[:ctx.distractors]:
            ctx.world.add(self.table, {"time": t, "label": label, "enabled": True})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"time": rec.time, "label": rec.label}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("phone_create_alarm", time=rec.time, label=rec.label)]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        return [_call("phone_update_alarm", alarm_id=rid, time=new.time, label=new.label)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("phone_delete_alarm", alarm_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("phone_search_alarms", query=rec.label)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        # off the half-hour grid every event time is on, so it never clashes with a new alarm
        return {"time": S.add_minutes(rec.time or "09:00", -97), "label": rec.label, "enabled": True}

    def ask(self, what: str, ctx: Context) -> str:
        return f"set a phone alarm for {what}, labelled with the event's name"


# ----------------------------------------------------------------------------------------- text apps
class NotesSink(Sink):
    name, apps, table, families = "notes", ("notes",), "notes", ("events", "bills", "products")
    multi = False
    columns = ("title", "content")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        for title in sample_without(ctx.rng, ("Packing list", "Gift ideas", "Wifi password", "Books to read",
                                                "Recipes to try", "Car maintenance", "Garden plan"), ctx.distractors):
            ctx.world.add(self.table, {"title": title, "content": "…", "tags": []})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"title": ctx.title, "content": rec.text}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("notes_create_note", title=ctx.title, content=rec.text)]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        return [_call("notes_update_note", note_id=rid, content=new.text)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("notes_delete_note", note_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("notes_search_notes", query=ctx.title)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"title": ctx.title, "content": "to fill in", "tags": []}

    def ask(self, what: str, ctx: Context) -> str:
        return f"write {what} into a note titled '{ctx.title}'"


class TodoSink(Sink):
    name, apps, table, families = "todo", ("todo",), "todo_tasks", ("events", "invoices", "products")
    columns = ("content", "due_date")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        pid = ctx.world.add("todo_projects", {"name": "Errands", "color": "blue"})
        for task in sample_without(ctx.rng, vocab.TODO_TASKS, ctx.distractors):
            ctx.world.add(self.table, {"content": task, "project_id": pid, "priority": 1})

    def _content(self, rec: Record) -> str:
        if rec.kind == "merged":
            return rec.text
        verb = {"invoice": "Pay", "receipt": "File receipt", "product_card": "Buy"}.get(rec.kind, "Go to")
        text = f"{verb} {rec.label}"
        return text + (f" ({money(rec.amount)})" if rec.amount is not None and rec.kind in ("invoice", "product_card") else "")

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"content": self._content(rec), "due_date": rec.date}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("todo_create_task", content=self._content(rec), due_date=rec.date)]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        return [_call("todo_update_task", task_id=rid, content=self._content(new), due_date=new.date)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("todo_delete_task", task_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("todo_search_tasks", query=rec.label)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        row = {"content": f"Look into {rec.label}"}
        if rec.date:
            row["due_date"] = S.add_days(rec.date, 10)
        return row

    def ask(self, what: str, ctx: Context) -> str:
        return f"add a to-do for {what}, due on its date if it has one"


class FilesSink(Sink):
    name, apps, table, families = "files", ("files",), "files", ("events", "bills", "products")
    multi = False
    columns = ("name", "folder_id", "content")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        for folder in ("Documents", "Finance", "Travel", "Home"):
            ctx.world.add("folders", {"name": folder})
        ctx.notes["folder"] = int(ctx.rng.integers(1, 5))
        ctx.notes["folder_name"] = ("Documents", "Finance", "Travel", "Home")[ctx.notes["folder"] - 1]
        for name in sample_without(ctx.rng, ("lease.txt", "passwords-old.txt", "budget-2025.csv", "recipes.md", "ideas.txt"), ctx.distractors):
            ctx.world.add(self.table, {"name": name, "folder_id": int(ctx.rng.integers(1, 5)), "content": "…", "mime_type": "text/plain"})

    def filename(self, ctx: Context) -> str:
        return _slug(ctx.title) + ".txt"

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"name": self.filename(ctx), "folder_id": ctx.notes["folder"], "content": rec.text}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("files_create_file", name=self.filename(ctx), folder_id=ctx.notes["folder"], content=rec.text)]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        return [_call("files_update_file", file_id=rid, content=new.text)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("files_delete_file", file_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("files_search_folders", query=ctx.notes["folder_name"])]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"name": self.filename(ctx), "folder_id": ctx.notes["folder"], "content": "draft", "mime_type": "text/plain"}

    def ask(self, what: str, ctx: Context) -> str:
        return f"save {what} in a text file named '{self.filename(ctx)}' in my {ctx.notes['folder_name']} folder"


# ----------------------------------------------------------------------------------------- people apps
class MessagingSink(Sink):
    name, apps, table, families = "messaging", ("messaging", "contacts"), "messages", ("events", "bills", "products")
    multi, person, revise = False, True, "append"
    columns = ("recipient_phone_number", "content")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        ensure_recipient(ctx)
        for p in ctx.notes["people"][: ctx.distractors]:
            ctx.world.add(self.table, {"sender_phone_number": p["phone_number"], "recipient_phone_number": "+1-555-0100",
                                       "content": S.pick(ctx.rng, ("See you soon!", "Thanks!", "Running late", "Call me later"))})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"recipient_phone_number": ctx.recipient["phone_number"], "content": rec.text}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("messaging_send_message", recipient_phone_number=ctx.recipient["phone_number"], content=rec.text)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("messaging_delete_message", message_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("contacts_search_contacts", query=ctx.recipient["name"])]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"sender_phone_number": "+1-555-0100", "recipient_phone_number": ctx.recipient["phone_number"],
                "content": f"Details to follow: {rec.label}"}

    def ask(self, what: str, ctx: Context) -> str:
        return f"text {ctx.recipient['name']} {what}"


class EmailSink(Sink):
    name, apps, table, families = "email", ("email", "contacts"), "emails", ("events", "bills", "products")
    multi, person, revise = False, True, "append"
    columns = ("recipients", "subject", "body")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        ensure_recipient(ctx)
        for p in ctx.notes["people"][: ctx.distractors]:
            tid = ctx.world.add("email_threads", {"subject": f"Re: {S.pick(ctx.rng, ('Weekend', 'Quick question', 'Photos', 'Plans'))}"})
            ctx.world.add(self.table, {"thread_id": tid, "sender": p["email"], "recipients": ["alex.morgan@mailbox.example"],
                                       "subject": ctx.world.rows("email_threads")[-1]["subject"], "body": "Hi Alex, …"})

    def subject(self, ctx: Context) -> str:
        return ctx.title

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"recipients": [ctx.recipient["email"]], "subject": self.subject(ctx), "body": rec.text}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("email_send_email", recipients=[ctx.recipient["email"]], subject=self.subject(ctx), body=rec.text)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("contacts_search_contacts", query=ctx.recipient["name"])]

    def stale_table(self) -> str:
        return "email_drafts"

    def side_rows(self, rec: Record, ctx: Context) -> list[tuple[str, dict[str, Any], tuple[str, ...]]]:
        return [("email_threads", {"subject": self.subject(ctx)}, ("subject",))]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"recipients": [ctx.recipient["email"]], "subject": self.subject(ctx), "body": "(draft — details to add)"}

    def delete_stale(self, rid: int) -> list[Step]:
        return [_call("email_delete_draft", draft_id=rid)]

    def ask(self, what: str, ctx: Context) -> str:
        return f"email {ctx.recipient['name']} {what}, subject '{self.subject(ctx)}'"


class PaymentsSink(Sink):
    name, apps, table, families = "payments", ("payments", "contacts"), "payment_requests", ("bills", "events")
    person, revise = True, "cancel"
    columns = ("counterparty", "direction", "amount", "note", "status")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        ensure_recipient(ctx)
        for p in ctx.notes["people"]:
            ctx.world.add("payment_users", {"display_name": p["name"], "username": p["username"], "phone_number": p["phone_number"],
                                            "is_friend": True})
        ctx.world.add("wallet", {"balance": 250.0})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"counterparty": ctx.recipient["username"], "direction": "outgoing", "amount": rec.amount, "note": rec.label,
                "status": "pending"}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("payments_request_money", username=ctx.recipient["username"], amount=rec.amount, note=rec.label)]

    def cancel(self, rid: int) -> list[Step]:
        return [_call("payments_cancel_request", request_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("payments_search_users", query=ctx.recipient["name"])]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {**self.row(rec, ctx), "amount": round((rec.amount or 10) + 10, 2)}

    def ask(self, what: str, ctx: Context) -> str:
        return (f"request {what} from {ctx.recipient['name']} on the payments app (as the note: the name on the picture, "
                f"or '{ctx.title}' for a total or a share)")


class ExpensesSink(Sink):
    name, apps, table, families = "expenses", ("expenses",), "expenses", ("bills", "events")
    columns = ("group_id", "description", "amount", "paid_by", "date")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        friends = [person_name(ctx.rng, ctx.names) for _ in range(3)]
        ctx.names.update(friends)
        groups = ["Apartment", "Road trip", "Book club"]
        ctx.notes["group"] = int(ctx.rng.integers(1, 4))
        ctx.notes["group_name"] = groups[ctx.notes["group"] - 1]
        for g in groups:
            ctx.world.add("expense_groups", {"name": g, "members": ["me", *friends], "group_type": "other"})
        for _ in range(ctx.distractors):
            ctx.world.add(self.table, {"group_id": int(ctx.rng.integers(1, 4)), "description": S.pick(ctx.rng, ("Groceries", "Gas", "Internet bill", "Parking")),
                                       "amount": float(S.price(ctx.rng, 8, 90)), "paid_by": "me",
                                       "date": S.add_days(ctx.ref_date, -int(ctx.rng.integers(1, 30)))})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"group_id": ctx.notes["group"], "description": rec.label, "amount": rec.amount, "paid_by": "me", "date": rec.date}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("expenses_create_expense", group_id=ctx.notes["group"], description=rec.label, amount=rec.amount,
                      paid_by="me", date=rec.date)]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        return [_call("expenses_update_expense", expense_id=rid, description=new.label, amount=new.amount, date=new.date)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("expenses_delete_expense", expense_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("expenses_search_groups", query=ctx.notes["group_name"])]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {**self.row(rec, ctx), "amount": round((rec.amount or 10) * 2, 2)}

    def ask(self, what: str, ctx: Context) -> str:
        return (f"log {what} as an expense I paid in our '{ctx.notes['group_name']}' group (described by the name on the "
                f"picture, or '{ctx.title}' for a total or a share, and dated as on the picture)")


class ShoppingSink(Sink):
    name, apps, table, families = "shopping", ("shopping",), "cart_items", ("products",)
    error_field = "product"
    columns = ("product_id", "quantity")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        items = ctx.notes["items"]
        rows = []
        for it in items:
            rows.append({"name": it.label, "brand": it.facts.get("brand"), "category": it.facts.get("category", "home"),
                         "price": it.amount, "rating": it.rating, "stock": 50, "description": it.facts.get("shape", "")})
            # a look-alike listing: same brand and line, another model and price
            rows.append({"name": f"{it.label} {S.pick(ctx.rng, ('(Refurbished)', 'Bundle', 'XL', 'Kids'))}", "brand": it.facts.get("brand"),
                         "category": it.facts.get("category", "home"), "price": round(float(it.amount) * 1.3 + 5, 2),
                         "rating": 3.9, "stock": 20, "description": it.facts.get("shape", "")})
        order = [int(i) for i in ctx.rng.permutation(len(rows))]
        ids = {}
        for i in order:
            ids[rows[i]["name"]] = ctx.world.add("products", rows[i])
        ctx.notes["product_ids"] = ids
        ctx.notes["lookalike"] = {rows[2 * k]["name"]: rows[2 * k + 1]["name"] for k in range(len(items))}

    def pid(self, rec: Record, ctx: Context) -> int:
        return ctx.notes["product_ids"][rec.label]

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"product_id": self.pid(rec, ctx), "quantity": rec.quantity}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("shopping_add_to_cart", product_id=self.pid(rec, ctx), quantity=rec.quantity)]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step] | None:
        if old.label != new.label:
            return None
        return [_call("shopping_update_cart_quantity", product_id=self.pid(new, ctx), quantity=new.quantity)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("shopping_delete_cart_item", cart_item_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("shopping_search_products", query=rec.label)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        return {"product_id": self.pid(rec, ctx), "quantity": rec.quantity + 2}

    def ask(self, what: str, ctx: Context) -> str:
        return f"add {what} to my shopping cart"


class ContactsSink(Sink):
    name, apps, table, families = "contacts", ("contacts",), "contacts", ("people",)
    error_field = "phone"
    columns = ("name", "phone_number", "email", "company", "job_title")

    def setup(self, ctx: Context, records: list[Record]) -> None:
        add_profile(ctx)
        for rec in records:
            if rec.person:
                ctx.names.add(rec.person["name"])
        for _ in range(ctx.distractors):
            name = person_name(ctx.rng, ctx.names)
            ctx.names.add(name)
            ctx.world.add(self.table, {"name": name, "phone_number": S.phone(ctx.rng), "relationship": "other"})

    def row(self, rec: Record, ctx: Context) -> dict[str, Any]:
        p = rec.person or {}
        return {"name": p.get("name"), "phone_number": p.get("phone_number"), "email": p.get("email"),
                "company": p.get("company"), "job_title": p.get("job_title")}

    def create(self, rec: Record, ctx: Context, rid: int) -> list[Step]:
        return [_call("contacts_create_contact", **self.row(rec, ctx))]

    def update(self, rid: int, old: Record, new: Record, ctx: Context) -> list[Step]:
        r = self.row(new, ctx)
        return [_call("contacts_update_contact", contact_id=rid, **r)]

    def delete(self, rid: int, ctx: Context) -> list[Step]:
        return [_call("contacts_delete_contact", contact_id=rid)]

    def find(self, rec: Record, ctx: Context) -> list[Step]:
        return [_call("contacts_search_contacts", query=rec.label)]

    def stale(self, rec: Record, ctx: Context) -> dict[str, Any]:
        p = rec.person or {}
        return {"name": p.get("name"), "company": "(old job)", "relationship": "business"}

    def ask(self, what: str, ctx: Context) -> str:
        return f"save {what} as a contact (name, phone, email, company and job title from the card)"


SINKS: dict[str, Sink] = {s.name: s for s in (
    CalendarSink(), RemindersSink(), PhoneSink(), NotesSink(), TodoSink(), FilesSink(), MessagingSink(), EmailSink(),
    PaymentsSink(), ExpensesSink(), ShoppingSink(), ContactsSink(),
)}
APP_GROUPS: tuple[str, ...] = tuple(SINKS)
