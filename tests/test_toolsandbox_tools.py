"""MMToolSandbox tools: catalogue shape, each app's behaviour on the database, domain rules, bad input."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import numpy as np
import pytest

from mmenvs.core import ImageStore
from mmenvs.toolsandbox import tool_catalog, toolset_tools
from mmenvs.toolsandbox.catalog import TOOLSETS, full_name_map
from mmenvs.toolsandbox.schema import APPS, TABLES, column_kinds
from mmenvs.toolsandbox.scoring import snapshot
from mmenvs.toolsandbox.world import ToolError, World, build_template

NOW = datetime(2025, 3, 10, 9, 0, 0)
ENTITIES: dict[str, list[dict[str, Any]]] = {
    "user_profile": [{"first_name": "Alex", "last_name": "Morgan", "email": "alex@example.com", "phone_number": "+1-555-0100", "home_address": "12 Elm St"}],
    "contacts": [
        {"name": "Dana Whitfield", "phone_number": "+1-555-0142", "email": "dana@example.com", "birthday": "1991-03-20"},
        {"name": "Marco Bellini", "phone_number": "+1-555-0199", "company": "Acme"},
    ],
    "messages": [{"sender_phone_number": "+1-555-0142", "recipient_phone_number": "+1-555-0100", "content": "Lunch?", "sent_at": "2025-03-09T12:00:00"}],
    "calendar_events": [{"title": "Standup", "start": "2025-03-10T10:00:00", "end": "2025-03-10T10:15:00", "recurrence": "daily", "recurrence_end": "2025-03-14"}],
    "notes": [{"title": "Ideas", "content": "one", "tags": ["work"]}, {"title": "Recipes", "content": "soup", "tags": ["home", "food"]}],
    "todo_projects": [{"name": "Home"}],
    "todo_tasks": [{"content": "Fix sink", "project_id": 1}, {"content": "Buy washer", "project_id": 1, "parent_id": 1}],
    "email_labels": [{"name": "finance"}],
    "email_threads": [{"subject": "Invoice"}],
    "emails": [{"thread_id": 1, "sender": "billing@shop.com", "recipients": ["alex@example.com"], "subject": "Invoice", "body": "Pay by Friday"}],
    "payment_users": [{"display_name": "Dana", "username": "dana-w"}],
    "payment_requests": [{"counterparty": "dana-w", "direction": "incoming", "amount": 35.0, "note": "tickets", "status": "pending"}],
    "wallet": [{"balance": 50.0}],
    "expense_groups": [{"name": "Trip", "members": ["me", "Dana", "Marco"]}],
    "products": [{"name": "Blue Mug", "brand": "Cupco", "category": "kitchen", "price": 12.5, "rating": 4.2, "stock": 3, "description": "ceramic mug"},
                 {"name": "Red Mug", "brand": "Cupco", "category": "kitchen", "price": 9.0, "rating": 3.9, "stock": 10, "description": "ceramic mug"}],
    "addresses": [{"label": "Home", "recipient_name": "Alex", "street": "12 Elm St", "city": "Springfield", "is_default": True}],
    "payment_cards": [{"cardholder_name": "Alex", "card_type": "visa", "last_four": "4421", "expiry": "09/27", "available_credit": 100.0, "is_default": True}],
    "songs": [{"title": "Song A", "artist": "X"}, {"title": "Song B", "artist": "Y"}, {"title": "Song C", "artist": "X"}],
    "playlists": [{"name": "Mix", "song_ids": [1]}],
    "folders": [{"name": "Documents"}, {"name": "Work", "parent_id": 1}],
    "files": [{"name": "a.txt", "folder_id": 1, "content": "hello"}],
}


@pytest.fixture(scope="module")
def template() -> bytes:
    return build_template(ENTITIES, NOW, "test entities")


@pytest.fixture()
def world(template: bytes) -> World:
    images = ImageStore()
    images.add(np.full((40, 60, 3), 200, dtype=np.uint8))
    images.add(np.zeros((30, 30, 3), dtype=np.uint8))
    w = World.from_template(template, NOW, images)
    w.visible.add("img_0")  # img_1 exists but was not shared with the agent
    yield w
    w.close()


TOOLS = toolset_tools("full")


def call(world: World, tool_name: str, /, **arguments: Any) -> Any:
    return TOOLS[tool_name].invoke(world, arguments)


def fails(world: World, tool_name: str, fragment: str, /, **arguments: Any) -> None:
    """The call raises a ToolError mentioning ``fragment`` and leaves every table unchanged."""
    before = snapshot(world.conn)
    with pytest.raises(ToolError) as caught:
        call(world, tool_name, **arguments)
    assert fragment.lower() in str(caught.value).lower(), str(caught.value)
    assert snapshot(world.conn) == before


# ---------------------------------------------------------------------- catalogue
def _check_schema(schema: dict[str, Any], where: str) -> None:
    assert schema["type"] == "object" and schema["additionalProperties"] is False, where
    assert set(schema["required"]) <= set(schema["properties"]), where
    allowed_types = {"string", "integer", "number", "boolean", "array", "object", "null"}

    def check(node: dict[str, Any], path: str) -> None:
        assert isinstance(node, dict), path
        if "anyOf" in node:
            assert node["anyOf"], path
            for i, option in enumerate(node["anyOf"]):
                check(option, f"{path}.anyOf[{i}]")
        if "type" in node:
            assert node["type"] in allowed_types, path
        if node.get("type") == "array":
            check(node["items"], f"{path}.items")
        if "enum" in node:
            assert node["enum"] and len(set(map(repr, node["enum"]))) == len(node["enum"]), path
        assert {"type", "anyOf", "enum"} & set(node), f"{path} has no type"

    for name, prop in schema["properties"].items():
        check(prop, f"{where}.{name}")
        assert isinstance(prop.get("description"), str) and prop["description"], f"{where}.{name} lacks a description"
    json.dumps(schema)


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_catalogue_schemas_are_valid(toolset: str) -> None:
    catalog = tool_catalog(toolset)
    names = [spec["name"] for spec in catalog]
    assert len(names) == len(set(names))
    for spec in catalog:
        assert set(spec) == {"name", "app", "description", "parameters"}
        assert spec["description"].strip(), spec["name"]
        _check_schema(spec["parameters"], spec["name"])


def test_catalogue_can_lead_with_meta_tools() -> None:
    specs = tool_catalog("mini", meta=("search_tools", "execute_code"))
    assert [s["name"] for s in specs[:2]] == ["search_tools", "execute_code"] and len(specs) == len(tool_catalog("mini")) + 2
    assert specs[0]["parameters"]["required"] == ["query"]
    _check_schema(specs[1]["parameters"], "execute_code")
    with pytest.raises(ValueError, match="unknown meta tools"):
        tool_catalog("full", meta=("teleport",))


def test_toolset_sizes_and_full_coverage() -> None:
    sizes = {t: len(tool_catalog(t)) for t in TOOLSETS}
    assert sizes["full"] >= 511
    assert 240 <= sizes["medium"] <= 300 and 140 <= sizes["compact"] <= 190 and 25 <= sizes["mini"] <= 40
    apps = {spec["app"] for spec in tool_catalog("full")}
    assert set(APPS) | {"visual"} <= apps
    for toolset in TOOLSETS:  # smaller sets never drop a capability
        assert set(full_name_map(toolset)) == set(TOOLS)


def test_column_kinds_cover_every_table() -> None:
    kinds = column_kinds()
    assert set(kinds) == {t.name for t in TABLES}
    allowed = {"id", "enum", "number", "bool", "list", "text", "datetime", "json", "bookkeeping"}
    for table, cols in kinds.items():
        assert cols["id"] == "id" and set(cols.values()) <= allowed, table


def test_merged_tool_dispatches_and_rejects_foreign_parameters(world: World) -> None:
    mini = toolset_tools("mini")
    created = mini["contacts_act"].invoke(world, {"action": "create_contact", "name": "Zoe", "phone_number": "+1-555-0111"})
    assert world.get("contacts", created["id"])["name"] == "Zoe"
    with pytest.raises(ToolError, match="does not take"):
        mini["contacts_act"].invoke(world, {"action": "delete_contact", "contact_id": 1, "name": "x"})
    with pytest.raises(ToolError, match="must be one of"):
        mini["contacts_act"].invoke(world, {"action": "launch_rocket"})


# ---------------------------------------------------------------------- apps
def test_contacts(world: World) -> None:
    new = call(world, "contacts_create_contact", name="Ana Lima", phone_number="+1-555-0177", relationship="coworker")
    assert world.get("contacts", new["id"])["relationship"] == "coworker"
    assert [r["name"] for r in call(world, "contacts_find_contacts_by_name", name="lima")] == ["Ana Lima"]
    assert call(world, "contacts_get_contact_by_phone_number", value="+1-555-0199")["name"] == "Marco Bellini"
    assert [r["name"] for r in call(world, "contacts_list_upcoming_birthdays", days=30)] == ["Dana Whitfield"]
    call(world, "contacts_merge_contacts", keep_contact_id=new["id"], duplicate_contact_id=2)
    merged = world.get("contacts", new["id"])
    assert merged["company"] == "Acme" and world.find("contacts", 2) is None
    fails(world, "contacts_create_contact", "not a valid phone", name="Bad", phone_number="call me")
    fails(world, "contacts_update_contact", "'relationship' must be one of", contact_id=1, relationship="enemy")


def test_messaging_attachments_and_network(world: World) -> None:
    sent = call(world, "messaging_send_message", recipient_phone_number="+1-555-0142", content="hi", attachment_image_ids=["img_0"])
    row = world.get("messages", sent["id"])
    assert row["attachments"] == ["img_0"] and row["sender_phone_number"] == "+1-555-0100"
    fails(world, "messaging_send_message", "not been shared", recipient_phone_number="+1-555-0142", content="x", attachment_image_ids=["img_1"])
    fails(world, "messaging_send_message", "unknown image id", recipient_phone_number="+1-555-0142", content="x", attachment_image_ids=["img_9"])
    reply = call(world, "messaging_reply_to_message", message_id=1, content="Sure")
    assert world.get("messages", reply["id"])["recipient_phone_number"] == "+1-555-0142"
    call(world, "settings_set_airplane_mode", on=True)
    fails(world, "messaging_send_message", "no network", recipient_phone_number="+1-555-0142", content="x")
    call(world, "settings_set_cellular", on=True)
    assert world.settings()["airplane_mode"] is False
    call(world, "messaging_send_message", recipient_phone_number="+1-555-0142", content="back online")
    assert call(world, "messaging_mark_conversation_read", phone_number="+1-555-0142") == {"marked_read": 1}


def test_phone_calls_and_alarms(world: World) -> None:
    alarm = call(world, "phone_set_alarm", time="06:45", label="Gym", repeat_days=["mon", "wed"])
    assert world.get("alarms", alarm["id"])["repeat_days"] == ["mon", "wed"]
    fails(world, "phone_set_alarm", "already exists", time="06:45", repeat_days=["mon", "wed"])
    fails(world, "phone_set_alarm", "24-hour time", time="25:00")
    fails(world, "phone_set_alarm", "unknown weekdays", time="07:00", repeat_days=["funday"])
    nxt = call(world, "phone_get_next_alarm")
    assert nxt["rings_at"] == "2025-03-12T06:45:00"  # now is Monday 09:00, so the next ring is Wednesday
    call(world, "phone_make_call", phone_number="+1-555-0142")
    assert world.rows("calls")[-1]["direction"] == "outgoing"
    call(world, "settings_set_cellular", on=False)
    fails(world, "phone_make_call", "cellular is off", phone_number="+1-555-0142")


def test_messages_and_calls_between_two_times(world: World) -> None:
    # Both tools read rows of their table whose time column lies in [start, end], ends included.
    assert [m["content"] for m in call(world, "messaging_list_messages_between", start="2025-03-09T12:00:00", end="2025-03-09T12:00:00")] == ["Lunch?"]
    assert call(world, "messaging_list_messages_between", start="2025-03-09T12:00:01", end="2025-03-10T09:00:00") == []
    fails(world, "messaging_list_messages_between", "end must not be before start", start="2025-03-10T00:00:00", end="2025-03-09T00:00:00")
    call(world, "phone_make_call", phone_number="+1-555-0142")  # starts now, 2025-03-10 09:00
    calls = call(world, "phone_list_calls_between", start="2025-03-10T08:00:00", end="2025-03-10T09:00:00")
    assert [(c["phone_number"], c["started_at"]) for c in calls] == [("+1-555-0142", "2025-03-10T09:00:00")]
    assert call(world, "phone_list_calls_between", start="2025-03-09T00:00:00", end="2025-03-10T08:59:59") == []
    fails(world, "phone_list_calls_between", "end must not be before start", start="2025-03-10T09:00:00", end="2025-03-10T08:00:00")
    fails(world, "phone_list_calls_between", "start", start="yesterday", end="2025-03-10T08:00:00")

def test_reminders(world: World) -> None:
    r = call(world, "reminders_add_reminder", content="Call mom", reminder_time="2025-03-11T18:00:00")
    fails(world, "reminders_add_reminder", "not in the future", content="late", reminder_time="2025-03-01T18:00:00")
    fails(world, "reminders_add_reminder", "date-time like", content="bad", reminder_time="tomorrow at six")
    call(world, "reminders_snooze_reminder", reminder_id=r["id"], minutes=30)
    assert world.get("reminders", r["id"])["reminder_time"] == "2025-03-11T18:30:00"
    call(world, "settings_set_location_service", on=False)
    fails(world, "reminders_add_location_reminder", "location services", content="x", location_name="Gym", latitude=1.0, longitude=2.0,
          reminder_time="2025-03-12T10:00:00")


def test_calendar_rules_and_recurrence(world: World) -> None:
    fails(world, "calendar_create_event", "must be after its start", title="Bad", start="2025-03-12T10:00:00", end="2025-03-12T09:00:00")
    ev = call(world, "calendar_create_recurring_event", title="Yoga", start="2025-03-13T19:00:00", end="2025-03-13T20:00:00",
              recurrence="weekly", recurrence_end="2025-03-27")
    between = call(world, "calendar_list_events_between", start="2025-03-10T00:00:00", end="2025-04-01T00:00:00")
    assert [e["occurrence_start"][:10] for e in between if e["title"] == "Yoga"] == ["2025-03-13", "2025-03-20", "2025-03-27"]
    assert len([e for e in between if e["title"] == "Standup"]) == 5
    call(world, "calendar_reschedule_event", event_id=ev["id"], new_start="2025-03-14T18:00:00")
    assert world.get("calendar_events", ev["id"])["end"] == "2025-03-14T19:00:00"
    slots = call(world, "calendar_find_free_slots", date="2025-03-10", duration_minutes=60)
    assert slots[0] == {"start": "2025-03-10T09:00:00", "end": "2025-03-10T10:00:00"}


def test_settings_and_notes(world: World) -> None:
    call(world, "settings_set_wifi", on=False)
    call(world, "settings_set_cellular", on=False)
    assert call(world, "settings_get_network_status")["online"] is False
    fails(world, "settings_set_brightness", "at most 100", level=140)
    call(world, "notes_append_to_note", note_id=1, text="two")
    assert world.get("notes", 1)["content"] == "one\ntwo"
    call(world, "notes_add_note_tag", note_id=1, value="urgent")
    fails(world, "notes_add_note_tag", "already", note_id=1, value="urgent")
    assert call(world, "notes_rename_tag", old_tag="work", new_tag="job") == {"notes_changed": 1}
    assert world.get("notes", 1)["tags"] == ["job", "urgent"]
    assert [n["title"] for n in call(world, "notes_search_notes", query="soup")] == ["Recipes"]


def test_todo(world: World) -> None:
    call(world, "todo_complete_task", task_id=1)
    assert world.get("todo_tasks", 2)["is_completed"] is True  # sub-tasks complete with their parent
    fails(world, "todo_complete_task", "already completed", task_id=1)
    made = call(world, "todo_create_project_with_tasks", name="Trip", tasks=["Book", "Pack"], due_date="2025-03-20")
    pid = made["project"]["id"]
    assert [t["content"] for t in call(world, "todo_list_project_tasks", project_id=pid)] == ["Book", "Pack"]
    call(world, "todo_move_task", task_id=1, project_id=pid)
    assert world.get("todo_tasks", 2)["project_id"] == pid
    out = call(world, "todo_delete_project_and_tasks", project_id=pid)
    assert world.count("todo_tasks", "project_id = ?", (pid,)) == 0 and len(out["deleted_task_ids"]) == 4
    fails(world, "todo_create_task", "priority must be at most 4", content="x", priority=9)


def test_email(world: World) -> None:
    sent = call(world, "email_send_email", recipients=["dana@example.com"], subject="Hi", body="See attached", attachment_image_ids=["img_0"])
    assert world.get("emails", sent["id"])["attachments"] == ["img_0"] and world.get("email_threads", sent["thread_id"])["subject"] == "Hi"
    fails(world, "email_send_email", "not a valid email", recipients=["dana"], subject="x", body="y")
    reply = call(world, "email_reply_to_thread", thread_id=1, body="Paid")
    assert reply["recipients"] == ["billing@shop.com"] and reply["subject"] == "Re: Invoice"
    draft = call(world, "email_create_draft", recipients=["dana@example.com"], subject="Draft", body="b")
    call(world, "email_send_draft", draft_id=draft["id"])
    assert world.find("email_drafts", draft["id"]) is None
    fails(world, "email_apply_label", "no mailbox label", thread_id=1, label="travel")
    call(world, "email_apply_label", thread_id=1, label="finance")
    assert world.get("email_threads", 1)["labels"] == ["finance"]


def test_payments_balance_rules(world: World) -> None:
    fails(world, "payments_send_money", "insufficient balance", username="dana-w", amount=80.0, note="rent")
    fails(world, "payments_send_money", "no payment user", username="ghost", amount=5.0, note="x")
    fails(world, "payments_send_money", "must be positive", username="dana-w", amount=-5.0, note="x")
    call(world, "payments_send_money", username="@dana-w", amount=20.0, note="pizza")
    assert world.get("wallet", 1)["balance"] == 30.0
    fails(world, "payments_pay_request", "insufficient balance", request_id=1)
    call(world, "payments_add_funds", card_id=1, amount=10.0)
    call(world, "payments_pay_request", request_id=1)
    assert world.get("payment_requests", 1)["status"] == "paid" and world.get("wallet", 1)["balance"] == 5.0
    fails(world, "payments_pay_request", "only incoming pending", request_id=1)


def test_expenses_split_and_balances(world: World) -> None:
    e = call(world, "expenses_split_expense", group_id=1, description="Dinner", amount=100.0, paid_by="me")
    assert world.get("expenses", e["id"])["shares"] == {"me": 33.34, "Dana": 33.33, "Marco": 33.33}
    call(world, "expenses_split_expense", group_id=1, description="Taxi", amount=30.0, paid_by="Dana", split="percent", shares={"me": 50, "Dana": 50})
    balances = call(world, "expenses_get_group_balances", group_id=1)["balances"]
    assert balances == {"me": 51.66, "Dana": -18.33, "Marco": -33.33}
    fails(world, "expenses_split_expense", "not a member", group_id=1, description="x", amount=5.0, paid_by="Zed")
    fails(world, "expenses_split_expense", "add up to", group_id=1, description="x", amount=10.0, paid_by="me", split="exact", shares={"me": 3, "Dana": 3})
    call(world, "expenses_settle_up", group_id=1, payer="Marco", payee="me")
    assert call(world, "expenses_get_group_balances", group_id=1)["balances"]["Marco"] == 0.0
    fails(world, "expenses_remove_settled_member", "still has a balance", group_id=1, member="Dana")


def test_shopping_cart_checkout(world: World) -> None:
    call(world, "shopping_add_to_cart", product_id=1, quantity=2)
    call(world, "shopping_add_to_cart", product_id=1, quantity=1)
    assert [(i["product_id"], i["quantity"]) for i in world.rows("cart_items")] == [(1, 3)]
    fails(world, "shopping_add_to_cart", "in stock", product_id=1, quantity=1)
    call(world, "shopping_add_to_cart", product_id=2, quantity=10)
    fails(world, "shopping_checkout", "the order costs", )  # 37.50 + 90.00 exceeds the card's 100.00
    call(world, "shopping_update_cart_quantity", product_id=2, quantity=2)
    order = call(world, "shopping_checkout")
    assert order["total"] == 55.5 and order["status"] == "placed" and world.count("cart_items") == 0
    assert world.get("products", 1)["stock"] == 0 and world.get("payment_cards", 1)["available_credit"] == 44.5
    call(world, "shopping_cancel_order", order_id=order["id"])
    assert world.get("products", 1)["stock"] == 3 and world.get("payment_cards", 1)["available_credit"] == 100.0
    fails(world, "shopping_cancel_order", "only placed", order_id=order["id"])
    fails(world, "shopping_checkout", "cart is empty")
    assert [p["name"] for p in call(world, "shopping_search_products_by_price", query="mug", max_price=10)] == ["Red Mug"]


def test_music_playlists_and_player(world: World) -> None:
    call(world, "music_add_songs_to_playlist", playlist_id=1, song_ids=[3, 2])
    assert world.get("playlists", 1)["song_ids"] == [1, 3, 2]
    fails(world, "music_add_songs_to_playlist", "already in playlist", playlist_id=1, song_ids=[2])
    fails(world, "music_create_playlist_with_songs", "no song with id", name="Bad", song_ids=[99])
    call(world, "music_move_song_in_playlist", playlist_id=1, song_id=2, new_position=0)
    assert world.get("playlists", 1)["song_ids"] == [2, 1, 3]
    call(world, "music_play_playlist", playlist_id=1)
    assert world.get("player_state", 1)["current_song_id"] == 2 and [q["song_id"] for q in world.rows("play_queue", order="position")] == [1, 3]
    call(world, "music_next_song")
    assert world.get("player_state", 1)["current_song_id"] == 1
    assert [s["title"] for s in call(world, "music_list_artist_songs", artist="x")] == ["Song A", "Song C"]


def test_files_and_photos(world: World) -> None:
    saved = call(world, "files_save_image_as_file", image_id="img_0", name="scan", folder_path="Documents/Scans")
    assert call(world, "files_get_path", file_id=saved["id"]) == {"path": "/Documents/Scans/scan.png"}
    call(world, "files_move_file", file_id=1, folder_id=2)
    assert world.get("files", 1)["folder_id"] == 2
    call(world, "files_create_file", name="a.txt", folder_id=1)
    fails(world, "files_move_file", "already exists", file_id=1, folder_id=1)
    fails(world, "files_move_folder", "inside itself", folder_id=1, parent_id=2)
    assert call(world, "files_find_by_path", path="/Documents/Work/a.txt")["id"] == 1
    photo = call(world, "photos_save_image_to_gallery", image_id="img_0", album="Scans")
    fails(world, "photos_save_image_to_gallery", "already in the gallery", image_id="img_0")
    call(world, "photos_move_to_album", photo_id=photo["id"], album="Keep")
    assert call(world, "photos_list_albums") == [{"album": "Keep", "photos": 1}]


def test_profile_tools(world: World) -> None:
    assert call(world, "profile_get_current_date_time") == {"datetime": "2025-03-10T09:00:00", "date": "2025-03-10", "weekday": "Monday"}
    assert call(world, "profile_get_profile")["first_name"] == "Alex"
    fails(world, "profile_get_app_credentials", "no credentials", app="spotify")


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("name", "arguments", "fragment"), [
    ("contacts_get_contact", {}, "missing required parameter"),
    ("contacts_get_contact", {"contact_id": "one"}, "must be int"),
    ("contacts_get_contact", {"contact_id": True}, "must be int"),
    ("contacts_get_contact", {"contact_id": 999}, "no contact with id 999"),
    ("contacts_get_contact", {"contact_id": 1, "extra": 2}, "unknown parameter"),
    ("contacts_create_contact", {"name": 5}, "must be str"),
    ("calendar_create_event", {"title": "x", "start": "2025/03/12 10:00", "end": "2025-03-12T11:00:00"}, "date-time like"),
    ("todo_set_task_due_date", {"task_id": 1, "due_date": "2025-02-30"}, "date like"),
    ("messaging_send_group_message", {"recipient_phone_numbers": "+1-555-0142", "content": "x"}, "must be list"),
    ("crop_image", {"image_id": "img_0", "bbox": [0, 0, 1200, 10]}, "0-1000"),
])
def test_bad_arguments_leave_the_world_unchanged(world: World, name: str, arguments: dict[str, Any], fragment: str) -> None:
    before = snapshot(world.conn)
    with pytest.raises(ToolError) as caught:
        TOOLS[name].invoke(world, arguments)
    assert fragment.lower() in str(caught.value).lower(), str(caught.value)
    assert snapshot(world.conn) == before


def test_integral_floats_are_accepted_for_ints(world: World) -> None:
    assert call(world, "contacts_get_contact", contact_id=1.0)["name"] == "Dana Whitfield"


@pytest.mark.slow
def test_every_tool_either_succeeds_or_refuses_cleanly(template: bytes) -> None:
    """Random arguments for all tools: JSON-able results or a ToolError with the world untouched, never a crash."""
    from mmenvs.toolsandbox.env import _random_value

    rng = np.random.default_rng(7)
    images = ImageStore()
    images.add(np.full((40, 60, 3), 120, dtype=np.uint8))
    w = World.from_template(template, NOW, images)
    w.visible.add("img_0")
    outcomes = {"ok": 0, "refused": 0}
    try:
        for name, tool in TOOLS.items():
            for _ in range(2):
                arguments = {p.name: _random_value(p.annotation, rng) for p in tool.params if p.required or rng.random() < 0.5}
                before = snapshot(w.conn)
                try:
                    result = tool.invoke(w, arguments)
                except ToolError:
                    outcomes["refused"] += 1
                    assert snapshot(w.conn) == before, name
                else:
                    outcomes["ok"] += 1
                    json.dumps(result)
    finally:
        w.close()
    assert outcomes["ok"] > 200 and outcomes["refused"] > 200, outcomes


SAMPLE_ROWS: dict[str, dict[str, Any]] = {
    "contacts": {"name": "Kim", "phone_number": "+1-555-0400"}, "alarms": {"time": "05:30"},
    "reminders": {"content": "x", "reminder_time": "2025-03-12T08:00:00"},
    "calendar_events": {"title": "x", "start": "2025-03-12T08:00:00", "end": "2025-03-12T09:00:00"},
    "notes": {"title": "x"}, "todo_projects": {"name": "x"}, "todo_sections": {"project_id": 1, "name": "s"},
    "todo_tasks": {"content": "x"}, "todo_labels": {"name": "x"}, "todo_comments": {"task_id": 1, "content": "x"},
    "email_labels": {"name": "x"}, "email_drafts": {"recipients": ["a@b.co"]}, "payment_users": {"display_name": "x", "username": "xx"},
    "expense_groups": {"name": "x", "members": ["me"]}, "expenses": {"group_id": 1, "description": "x", "amount": 3.0, "paid_by": "me"},
    "addresses": {"label": "x", "recipient_name": "x", "street": "x", "city": "x"},
    "payment_cards": {"cardholder_name": "x", "card_type": "amex", "last_four": "0001", "expiry": "01/30"},
    "wishlist_items": {"product_id": 1}, "product_reviews": {"product_id": 1, "rating": 4}, "playlists": {"name": "x"},
    "folders": {"name": "x"}, "files": {"name": "x.txt"}, "photos": {"image_id": "img_0"},
}


@pytest.mark.parametrize("table_name", [t.name for t in TABLES if "create" in t.ops])
def test_generated_crud_tools_round_trip(world: World, table_name: str) -> None:
    from mmenvs.toolsandbox.schema import table

    tbl = table(table_name)
    app, entity, plural = tbl.app, tbl.entity, tbl.plural
    count = call(world, f"{app}_count_{plural}")["count"]
    row = call(world, f"{app}_create_{entity}", **SAMPLE_ROWS[table_name])
    assert world.get(table_name, row["id"]) == row and call(world, f"{app}_count_{plural}")["count"] == count + 1
    assert call(world, f"{app}_get_{entity}", **{f"{entity}_id": row["id"]}) == row
    listed = call(world, f"{app}_list_{plural}", limit=1, offset=count)
    assert listed["total"] == count + 1 and listed["items"] == [row]
    if "update" in tbl.ops:
        fails(world, f"{app}_update_{entity}", "at least one field", **{f"{entity}_id": row["id"]})
    if "delete_many" in tbl.ops:
        call(world, f"{app}_delete_many_{plural}", ids=[row["id"]])
    else:
        call(world, f"{app}_delete_{entity}", **{f"{entity}_id": row["id"]})
    assert world.find(table_name, row["id"]) is None


def test_monthly_events_skip_short_months_and_bills_add_up(world: World) -> None:
    call(world, "calendar_create_recurring_event", title="Rent", start="2025-01-31T09:00:00", end="2025-01-31T09:30:00", recurrence="monthly")
    starts = [e["occurrence_start"][:10] for e in call(world, "calendar_list_events_between", start="2025-01-01T00:00:00", end="2025-06-01T00:00:00")
              if e["title"] == "Rent"]
    assert starts == ["2025-01-31", "2025-03-31", "2025-05-31"]
    requests = call(world, "payments_split_bill", usernames=["dana-w"], total_amount=10.01, note="x", include_self=True)
    assert [r["amount"] for r in requests] == [5.0]
    call(world, "payments_create_user", display_name="Bo", username="bo")
    requests = call(world, "payments_split_bill", usernames=["dana-w", "bo"], total_amount=10.01, note="y", include_self=False)
    assert [r["amount"] for r in requests] == [5.01, 5.0]
