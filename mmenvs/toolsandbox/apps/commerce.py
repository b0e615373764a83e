"""Email, payments, expense splitting and shopping tools."""

from __future__ import annotations

from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, parse_date, validator
from .personal import check_email

_CENT = 0.005  # money comparisons tolerate half a cent of float rounding


# ---------------------------------------------------------------------- email
def _deliver(world: World, recipients: list[str], subject: str, body: str, cc: list[str] | None,
             attachments: list[str] | None, thread_id: int | None) -> dict[str, Any]:
    world.require_network("send an email")
    if not recipients:
        raise ToolError("an email needs at least one recipient")
    to = [check_email(r, "recipient") for r in recipients]
    copies = [check_email(r, "cc") for r in (cc or [])]
    images = world.check_images(attachments)
    if not subject.strip() and not body.strip():
        raise ToolError("an email needs a subject or a body")
    if thread_id is None:
        thread_id = world.insert("email_threads", {"subject": subject, "is_read": True})["id"]
    else:
        world.update("email_threads", thread_id, {"is_read": True})
    return world.insert("emails", {"thread_id": thread_id, "sender": world.self_email(), "recipients": to, "cc": copies,
                                   "subject": subject, "body": body, "attachments": images})


@tool("email", family="email_send")
def email_send_email(world: World, recipients: list[str], subject: str, body: str, cc: list[str] | None = None,
                     attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Send a new email (starts a thread), optionally with images attached. Needs a network connection.

    Args:
        recipients: email addresses to send to
        subject: subject line
        body: body text
        cc: addresses to copy
        attachment_image_ids: ids of images to attach, e.g. ["img_1"]
    """
    return _deliver(world, recipients, subject, body, cc, attachment_image_ids, None)


@tool("email", family="email_send")
def email_reply_to_thread(world: World, thread_id: int, body: str, reply_all: bool = False,
                          attachment_image_ids: list[str] | None = None) -> dict[str, Any]:
    """Reply in a thread to the sender of its latest email you did not send (all participants with reply_all).

    Args:
        thread_id: id of the thread
        body: reply text
        reply_all: also reply to the other recipients and cc
        attachment_image_ids: ids of images to attach
    """
    thread = world.get("email_threads", thread_id)
    me = world.self_email()
    received = [e for e in world.rows("emails", "thread_id = ?", (thread_id,), order="sent_at, id") if e["sender"] != me]
    if not received:
        raise ToolError(f"thread {thread_id} has no received email to reply to")
    last = received[-1]
    to = [last["sender"]] + ([r for r in last["recipients"] if r != me and r != last["sender"]] if reply_all else [])
    cc = [c for c in last["cc"] if c != me] if reply_all else []
    subject = thread["subject"] if (thread["subject"] or "").lower().startswith("re:") else f"Re: {thread['subject']}"
    return _deliver(world, to, subject, body, cc, attachment_image_ids, thread_id)


@tool("email", family="email_send")
def email_forward_email(world: World, email_id: int, recipients: list[str], note: str = "") -> dict[str, Any]:
    """Forward an email (with its attachments) to new recipients. Needs a network connection.

    Args:
        email_id: id of the email to forward
        recipients: addresses to forward to
        note: text added above the forwarded message
    """
    email = world.get("emails", email_id)
    body = f"{note}\n\n---------- Forwarded message ----------\nFrom: {email['sender']}\n\n{email['body']}".strip()
    images = [a for a in email["attachments"] if a in world.visible]
    return _deliver(world, recipients, f"Fwd: {email['subject']}", body, None, images, None)


@tool("email", family="email_send")
def email_send_draft(world: World, draft_id: int) -> dict[str, Any]:
    """Send a saved draft (the draft is removed once sent). Needs a network connection.

    Args:
        draft_id: id of the draft
    """
    draft = world.get("email_drafts", draft_id)
    sent = _deliver(world, draft["recipients"], draft["subject"], draft["body"], draft["cc"], draft["attachments"], draft["thread_id"])
    world.delete("email_drafts", draft_id)
    return sent


@tool("email", family="email_drafts_extra", kind="write")
def email_attach_image_to_draft(world: World, draft_id: int, image_id: str) -> dict[str, Any]:
    """Attach an image to a draft.

    Args:
        draft_id: id of the draft
        image_id: id of the image, e.g. "img_2"
    """
    draft = world.get("email_drafts", draft_id)
    world.check_image(image_id)
    if image_id in draft["attachments"]:
        raise ToolError(f"{image_id} is already attached to draft {draft_id}")
    return world.update("email_drafts", draft_id, {"attachments": draft["attachments"] + [image_id]})


@tool("email", family="email_view", kind="read")
def email_list_inbox(world: World, limit: int = 20) -> list[dict[str, Any]]:
    """List inbox threads (not archived, not spam), newest first, with their latest email.

    Args:
        limit: maximum number of threads
    """
    out = []
    for thread in world.rows("email_threads", "is_archived = 0", order="updated_at DESC, id DESC"):
        if "spam" in thread["labels"]:
            continue
        emails = world.rows("emails", "thread_id = ?", (thread["id"],), order="sent_at DESC, id DESC")
        out.append({**thread, "latest_email": emails[0] if emails else None})
    return out[: max(1, limit)]


@tool("email", family="email_view", kind="read")
def email_list_sent_emails(world: World, limit: int = 20) -> list[dict[str, Any]]:
    """List emails the user sent, newest first.

    Args:
        limit: maximum number of emails
    """
    return world.rows("emails", "sender = ?", (world.self_email(),), order="sent_at DESC, id DESC")[: max(1, limit)]


@tool("email", family="email_view", kind="read")
def email_get_thread_emails(world: World, thread_id: int) -> list[dict[str, Any]]:
    """All emails of a thread, oldest first.

    Args:
        thread_id: id of the thread
    """
    world.get("email_threads", thread_id)
    return world.rows("emails", "thread_id = ?", (thread_id,), order="sent_at, id")


@tool("email", family="email_view", kind="read")
def email_list_unread_threads(world: World) -> list[dict[str, Any]]:
    """List unread threads."""
    return world.rows("email_threads", "is_read = 0")


@tool("email", family="email_view", kind="read")
def email_search_emails_from(world: World, sender: str) -> list[dict[str, Any]]:
    """List emails whose sender address contains the given text.

    Args:
        sender: full or partial sender address
    """
    return world.rows("emails", "lower(sender) LIKE ?", (f"%{sender.strip().lower()}%",))


@tool("email", family="email_view", kind="read")
def email_list_threads_with_label(world: World, label: str) -> list[dict[str, Any]]:
    """List threads carrying a label.

    Args:
        label: label name
    """
    return [t for t in world.rows("email_threads") if label in t["labels"]]


@tool("email", family="email_organize", kind="write")
def email_apply_label(world: World, thread_id: int, label: str) -> dict[str, Any]:
    """Put an existing mailbox label on a thread (create the label first with the label tools).

    Args:
        thread_id: id of the thread
        label: label name (must exist)
    """
    if not world.rows("email_labels", "name = ?", (label,)):
        names = [r["name"] for r in world.rows("email_labels")]
        raise ToolError(f"no mailbox label {label!r}; existing labels: {names}")
    thread = world.get("email_threads", thread_id)
    if label in thread["labels"]:
        raise ToolError(f"thread {thread_id} already has label {label!r}")
    return world.update("email_threads", thread_id, {"labels": thread["labels"] + [label]})


@tool("email", family="email_organize", kind="write")
def email_mark_as_spam(world: World, thread_id: int) -> dict[str, Any]:
    """Mark a thread as spam (labels it 'spam' and archives it).

    Args:
        thread_id: id of the thread
    """
    thread = world.get("email_threads", thread_id)
    labels = thread["labels"] + (["spam"] if "spam" not in thread["labels"] else [])
    return world.update("email_threads", thread_id, {"labels": labels, "is_archived": True})


@tool("email", family="email_organize", kind="write")
def email_archive_threads(world: World, thread_ids: list[int]) -> dict[str, Any]:
    """Archive several threads at once.

    Args:
        thread_ids: ids of the threads
    """
    if not thread_ids:
        raise ToolError("thread_ids must name at least one thread")
    return {"archived": [world.update("email_threads", i, {"is_archived": True})["id"] for i in thread_ids]}


# ---------------------------------------------------------------------- payments
def _user(world: World, username: str) -> dict[str, Any]:
    rows = world.rows("payment_users", "lower(username) = lower(?)", (username.strip().lstrip("@"),))
    if not rows:
        raise ToolError(f"no payment user with username {username!r} (search users by name or phone first)")
    return rows[0]


def _positive(amount: float, what: str = "amount") -> float:
    if amount <= 0:
        raise ToolError(f"{what} must be positive, got {amount}")
    if round(amount, 2) != round(amount, 6):
        raise ToolError(f"{what} must have at most two decimals, got {amount}")
    return round(amount, 2)


def _debit_wallet(world: World, amount: float) -> None:
    balance = world.get("wallet", 1)["balance"]
    if balance + _CENT < amount:
        raise ToolError(f"insufficient balance: ${balance:.2f} available, ${amount:.2f} needed (add funds from a card first)")
    world.update("wallet", 1, {"balance": round(balance - amount, 2)})


@tool("payments", family="payments_move")
def payments_send_money(world: World, username: str, amount: float, note: str,
                        privacy: Literal["public", "friends", "private"] = "private") -> dict[str, Any]:
    """Pay someone from the wallet balance. Fails when the balance is too low. Needs a network connection.

    Args:
        username: the recipient's username (without @)
        amount: dollars, positive, at most two decimals
        note: what the payment is for
        privacy: who can see the payment
    """
    world.require_network("send money")
    user = _user(world, username)
    value = _positive(amount)
    _debit_wallet(world, value)
    return world.insert("payment_transactions", {"counterparty": user["username"], "direction": "sent", "amount": value,
                                                 "note": note, "privacy": privacy, "funding_source": "balance"})


@tool("payments", family="payments_move")
def payments_request_money(world: World, username: str, amount: float, note: str) -> dict[str, Any]:
    """Ask someone to pay you. Needs a network connection.

    Args:
        username: who should pay (username without @)
        amount: dollars, positive
        note: what it is for
    """
    world.require_network("request money")
    user = _user(world, username)
    return world.insert("payment_requests", {"counterparty": user["username"], "direction": "outgoing", "amount": _positive(amount), "note": note})


@tool("payments", family="payments_move")
def payments_split_bill(world: World, usernames: list[str], total_amount: float, note: str, include_self: bool = True) -> list[dict[str, Any]]:
    """Request an equal share of a bill from each person. Shares are whole cents: with include_self the user
    keeps any leftover cent, otherwise the first people named pay one cent more so the requests add up to the total.

    Args:
        usernames: people to request from
        total_amount: the whole bill in dollars
        note: what it was for
        include_self: whether the user also pays a share (the total is split over len(usernames)+1 people)
    """
    if not usernames or len(set(usernames)) != len(usernames):
        raise ToolError("usernames must list distinct people")
    people = len(usernames) + (1 if include_self else 0)
    cents = round(_positive(total_amount, "total_amount") * 100)
    share, leftover = divmod(cents, people)
    extra = [0] * len(usernames) if include_self else [1 if i < leftover else 0 for i in range(len(usernames))]
    return [payments_request_money(world, u, (share + e) / 100, note) for u, e in zip(usernames, extra)]


@tool("payments", family="payments_requests", kind="write")
def payments_pay_request(world: World, request_id: int) -> dict[str, Any]:
    """Pay an incoming pending request from the wallet balance. Needs a network connection.

    Args:
        request_id: id of the request
    """
    world.require_network("pay a request")
    request = world.get("payment_requests", request_id)
    if request["direction"] != "incoming" or request["status"] != "pending":
        raise ToolError(f"request {request_id} is {request['direction']} and {request['status']}; only incoming pending requests can be paid")
    _debit_wallet(world, request["amount"])
    world.conn.execute("UPDATE payment_requests SET status = 'paid' WHERE id = ?", (request_id,))
    return world.insert("payment_transactions", {"counterparty": request["counterparty"], "direction": "sent", "amount": request["amount"],
                                                 "note": request["note"], "funding_source": "balance"})


@tool("payments", family="payments_requests", kind="write")
def payments_decline_request(world: World, request_id: int) -> dict[str, Any]:
    """Decline an incoming pending request.

    Args:
        request_id: id of the request
    """
    request = world.get("payment_requests", request_id)
    if request["direction"] != "incoming" or request["status"] != "pending":
        raise ToolError(f"request {request_id} is {request['direction']} and {request['status']}; only incoming pending requests can be declined")
    world.conn.execute("UPDATE payment_requests SET status = 'declined' WHERE id = ?", (request_id,))
    return world.get("payment_requests", request_id)


@tool("payments", family="payments_requests", kind="write")
def payments_cancel_request(world: World, request_id: int) -> dict[str, Any]:
    """Cancel a pending request you sent.

    Args:
        request_id: id of the request
    """
    request = world.get("payment_requests", request_id)
    if request["direction"] != "outgoing" or request["status"] != "pending":
        raise ToolError(f"request {request_id} is {request['direction']} and {request['status']}; only your pending requests can be cancelled")
    world.conn.execute("UPDATE payment_requests SET status = 'cancelled' WHERE id = ?", (request_id,))
    return world.get("payment_requests", request_id)


@tool("payments", family="payments_requests", kind="read")
def payments_list_pending_requests(world: World, direction: Literal["incoming", "outgoing"] | None = None) -> list[dict[str, Any]]:
    """List pending money requests.

    Args:
        direction: only incoming (people asking you) or outgoing (you asking them)
    """
    if direction:
        return world.rows("payment_requests", "status = 'pending' AND direction = ?", (direction,))
    return world.rows("payment_requests", "status = 'pending'")


@tool("payments", family="payments_wallet", kind="write")
def payments_add_funds(world: World, card_id: int, amount: float) -> dict[str, Any]:
    """Move money from a saved card into the wallet (uses the card's available credit).

    Args:
        card_id: id of the payment card
        amount: dollars to add
    """
    value = _positive(amount)
    card = world.get("payment_cards", card_id)
    if card["available_credit"] + _CENT < value:
        raise ToolError(f"card ending {card['last_four']} has only ${card['available_credit']:.2f} available")
    world.update("payment_cards", card_id, {"available_credit": round(card["available_credit"] - value, 2)})
    balance = world.get("wallet", 1)["balance"]
    world.conn.execute("UPDATE wallet SET balance = ? WHERE id = 1", (round(balance + value, 2),))
    return world.get("wallet", 1)


@tool("payments", family="payments_wallet", kind="write")
def payments_transfer_to_bank(world: World, amount: float) -> dict[str, Any]:
    """Move money from the wallet to the user's bank account.

    Args:
        amount: dollars to transfer
    """
    _debit_wallet(world, _positive(amount))
    return world.get("wallet", 1)


@tool("payments", family="payments_wallet", kind="read")
def payments_list_transactions_with(world: World, username: str) -> list[dict[str, Any]]:
    """List every payment exchanged with one person, newest first.

    Args:
        username: the other party's username
    """
    user = _user(world, username)
    return world.rows("payment_transactions", "counterparty = ?", (user["username"],), order="created_at DESC, id DESC")


@tool("payments", family="payments_wallet", kind="read")
def payments_get_spending_summary(world: World, start_date: str, end_date: str) -> dict[str, Any]:
    """Total sent and received between two dates (inclusive).

    Args:
        start_date: YYYY-MM-DD
        end_date: YYYY-MM-DD
    """
    a, b = parse_date(start_date, "start_date").isoformat(), parse_date(end_date, "end_date").isoformat() + "T23:59:59"
    rows = world.rows("payment_transactions", "created_at >= ? AND created_at <= ?", (a, b))
    sent = sum(r["amount"] for r in rows if r["direction"] == "sent")
    received = sum(r["amount"] for r in rows if r["direction"] == "received")
    return {"sent": round(sent, 2), "received": round(received, 2), "transactions": len(rows)}


# ---------------------------------------------------------------------- expense splitting
@validator("expenses")
def _expense_rules(world: World, row: dict[str, Any]) -> None:
    group = world.get("expense_groups", row["group_id"])
    if row["paid_by"] not in group["members"]:
        raise ToolError(f"expense.paid_by {row['paid_by']!r} is not a member of group {group['name']!r} ({group['members']})")
    shares = row["shares"]
    if shares is None:
        return
    if not isinstance(shares, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in shares.values()):
        raise ToolError("expense.shares must map member names to non-negative amounts")
    strangers = [m for m in shares if m not in group["members"]]
    if strangers:
        raise ToolError(f"expense.shares names non-members {strangers}; members: {group['members']}")
    if abs(sum(shares.values()) - row["amount"]) > 0.011:
        raise ToolError(f"expense.shares add up to {sum(shares.values()):.2f}, not the amount {row['amount']:.2f}")


@validator("settlements")
def _settlement_rules(world: World, row: dict[str, Any]) -> None:
    group = world.get("expense_groups", row["group_id"])
    for who in (row["payer"], row["payee"]):
        if who not in group["members"]:
            raise ToolError(f"{who!r} is not a member of group {group['name']!r} ({group['members']})")
    if row["payer"] == row["payee"]:
        raise ToolError("payer and payee must differ")


def _equal_shares(amount: float, members: list[str]) -> dict[str, float]:
    cents = round(amount * 100)
    base, extra = divmod(cents, len(members))
    return {m: (base + (1 if i < extra else 0)) / 100 for i, m in enumerate(members)}


def _balances(world: World, group_id: int) -> dict[str, float]:
    group = world.get("expense_groups", group_id)
    balance = {m: 0.0 for m in group["members"]}
    for e in world.rows("expenses", "group_id = ?", (group_id,)):
        shares = e["shares"] or _equal_shares(e["amount"], group["members"])
        balance[e["paid_by"]] = balance.get(e["paid_by"], 0.0) + e["amount"]
        for member, owed in shares.items():
            balance[member] = balance.get(member, 0.0) - owed
    for s in world.rows("settlements", "group_id = ?", (group_id,)):
        balance[s["payer"]] = balance.get(s["payer"], 0.0) + s["amount"]
        balance[s["payee"]] = balance.get(s["payee"], 0.0) - s["amount"]
    return {m: round(v, 2) for m, v in balance.items()}


@tool("expenses", family="expenses_add", kind="write")
def expenses_split_expense(world: World, group_id: int, description: str, amount: float, paid_by: str,
                           split: Literal["equal", "exact", "percent"] = "equal", among: list[str] | None = None,
                           shares: dict | None = None,
                           category: Literal["food", "groceries", "rent", "utilities", "transport", "entertainment", "travel", "other"] = "other",
                           date: str | None = None, receipt_image_id: str | None = None) -> dict[str, Any]:
    """Add a group expense split equally, by exact amounts or by percentages.

    Args:
        group_id: id of the group
        description: what was bought
        amount: total in dollars
        paid_by: member who paid ('me' for the user)
        split: "equal" (over `among`, default all members), "exact" (shares are dollar amounts) or "percent" (shares are percentages summing to 100)
        among: members sharing an equal split; default every member
        shares: for exact/percent splits, {member: value}
        category: expense category
        date: YYYY-MM-DD; default today
        receipt_image_id: image id of the receipt, e.g. "img_0"
    """
    group = world.get("expense_groups", group_id)
    value = _positive(amount)
    if split == "equal":
        if shares:
            raise ToolError("an equal split takes `among`, not `shares`")
        members = among or group["members"]
        computed = _equal_shares(value, members)
    elif not shares:
        raise ToolError(f"a {split} split needs `shares`")
    elif split == "exact":
        computed = {m: round(float(v), 2) for m, v in shares.items()}
    else:
        if abs(sum(shares.values()) - 100) > 0.01:
            raise ToolError(f"percent shares must add up to 100, got {sum(shares.values())}")
        cents = round(value * 100)
        raw = {m: cents * float(p) / 100 for m, p in shares.items()}
        floor = {m: int(v) for m, v in raw.items()}
        left = cents - sum(floor.values())
        for m in sorted(raw, key=lambda k: raw[k] - floor[k], reverse=True)[:left]:
            floor[m] += 1
        computed = {m: c / 100 for m, c in floor.items()}
    if receipt_image_id is not None:
        world.check_image(receipt_image_id)
    return world.insert("expenses", {"group_id": group_id, "description": description, "amount": value, "paid_by": paid_by,
                                     "shares": computed, "category": category, "date": date or world.today().isoformat(),
                                     "receipt_image_id": receipt_image_id})


@tool("expenses", family="expenses_add", kind="write")
def expenses_attach_receipt(world: World, expense_id: int, image_id: str) -> dict[str, Any]:
    """Attach a receipt image to an expense.

    Args:
        expense_id: id of the expense
        image_id: image id of the receipt
    """
    world.check_image(image_id)
    return world.update("expenses", expense_id, {"receipt_image_id": image_id})


@tool("expenses", family="expenses_add", kind="write")
def expenses_change_split(world: World, expense_id: int, shares: dict) -> dict[str, Any]:
    """Replace how an expense is split (exact dollar amounts that add up to its total).

    Args:
        expense_id: id of the expense
        shares: {member: dollars}
    """
    return world.update("expenses", expense_id, {"shares": {m: round(float(v), 2) for m, v in shares.items()}})


@tool("expenses", family="expenses_balances", kind="read")
def expenses_get_group_balances(world: World, group_id: int) -> dict[str, Any]:
    """Each member's net balance in a group (positive = is owed money, negative = owes).

    Args:
        group_id: id of the group
    """
    return {"group_id": group_id, "balances": _balances(world, group_id)}


@tool("expenses", family="expenses_balances", kind="write")
def expenses_settle_up(world: World, group_id: int, payer: str, payee: str, amount: float | None = None, date: str | None = None) -> dict[str, Any]:
    """Record a payment from one member to another; by default the payer's whole debt (capped at what the payee is owed).

    Args:
        group_id: id of the group
        payer: member who pays
        payee: member who receives
        amount: dollars; default settle the full debt
        date: YYYY-MM-DD; default today
    """
    balances = _balances(world, group_id)
    for who in (payer, payee):
        if who not in balances:
            raise ToolError(f"{who!r} is not a member of group {group_id} ({list(balances)})")
    if amount is None:
        amount = min(-balances[payer], balances[payee])
        if amount <= 0:
            raise ToolError(f"{payer} owes {payee} nothing to settle (balances: {balances})")
    return world.insert("settlements", {"group_id": group_id, "payer": payer, "payee": payee, "amount": _positive(round(amount, 2)),
                                        "date": date or world.today().isoformat()})


@tool("expenses", family="expenses_balances", kind="read")
def expenses_get_my_balance_summary(world: World) -> list[dict[str, Any]]:
    """The user's ('me') balance in every group."""
    return [{"group_id": g["id"], "group": g["name"], "balance": _balances(world, g["id"]).get("me", 0.0)}
            for g in world.rows("expense_groups") if "me" in g["members"]]


@tool("expenses", family="expenses_balances", kind="read")
def expenses_get_total_spent(world: World, group_id: int, member: str | None = None) -> dict[str, Any]:
    """Total of a group's expenses, or one member's share of them.

    Args:
        group_id: id of the group
        member: member whose share to total; omit for the whole group
    """
    group = world.get("expense_groups", group_id)
    rows = world.rows("expenses", "group_id = ?", (group_id,))
    if member is None:
        return {"group_id": group_id, "total": round(sum(r["amount"] for r in rows), 2)}
    if member not in group["members"]:
        raise ToolError(f"{member!r} is not a member of {group['name']!r}")
    share = sum((r["shares"] or _equal_shares(r["amount"], group["members"])).get(member, 0.0) for r in rows)
    return {"group_id": group_id, "member": member, "total": round(share, 2)}


@tool("expenses", family="expenses_balances", kind="read")
def expenses_list_group_expenses(world: World, group_id: int, category: str | None = None) -> list[dict[str, Any]]:
    """List a group's expenses, optionally of one category.

    Args:
        group_id: id of the group
        category: only this category
    """
    world.get("expense_groups", group_id)
    if category:
        return world.rows("expenses", "group_id = ? AND category = ?", (group_id, category))
    return world.rows("expenses", "group_id = ?", (group_id,))


# ---------------------------------------------------------------------- shopping
def _product(world: World, product_id: int) -> dict[str, Any]:
    return world.get("products", product_id)


@tool("shopping", family="shopping_cart", kind="write")
def shopping_add_to_cart(world: World, product_id: int, quantity: int = 1) -> dict[str, Any]:
    """Put a product in the cart (adds to the quantity if it is already there). Fails beyond the stock.

    Args:
        product_id: id of the product
        quantity: units to add (≥ 1)
    """
    if quantity < 1:
        raise ToolError(f"quantity must be at least 1, got {quantity}")
    product = _product(world, product_id)
    existing = world.rows("cart_items", "product_id = ?", (product_id,))
    total = quantity + (existing[0]["quantity"] if existing else 0)
    if total > product["stock"]:
        raise ToolError(f"only {product['stock']} of {product['name']!r} in stock; cannot have {total} in the cart")
    if existing:
        return world.update("cart_items", existing[0]["id"], {"quantity": total})
    return world.insert("cart_items", {"product_id": product_id, "quantity": quantity})


@tool("shopping", family="shopping_cart", kind="write")
def shopping_update_cart_quantity(world: World, product_id: int, quantity: int) -> dict[str, Any]:
    """Set how many units of a product are in the cart (0 removes it).

    Args:
        product_id: id of the product in the cart
        quantity: new quantity (≥ 0)
    """
    items = world.rows("cart_items", "product_id = ?", (product_id,))
    if not items:
        raise ToolError(f"product {product_id} is not in the cart")
    if quantity < 0:
        raise ToolError(f"quantity must be ≥ 0, got {quantity}")
    if quantity == 0:
        return {"removed": world.delete("cart_items", items[0]["id"])}
    product = _product(world, product_id)
    if quantity > product["stock"]:
        raise ToolError(f"only {product['stock']} of {product['name']!r} in stock")
    return world.update("cart_items", items[0]["id"], {"quantity": quantity})


@tool("shopping", family="shopping_cart", kind="write")
def shopping_remove_from_cart(world: World, product_id: int) -> dict[str, Any]:
    """Take a product out of the cart.

    Args:
        product_id: id of the product
    """
    return shopping_update_cart_quantity(world, product_id, 0)


@tool("shopping", family="shopping_cart", kind="write")
def shopping_clear_cart(world: World) -> dict[str, int]:
    """Empty the cart."""
    return {"removed": world.conn.execute("DELETE FROM cart_items").rowcount}


@tool("shopping", family="shopping_cart", kind="read")
def shopping_view_cart(world: World) -> dict[str, Any]:
    """The cart's items with product names and prices, and the subtotal."""
    items = []
    for item in world.rows("cart_items"):
        product = _product(world, item["product_id"])
        items.append({**item, "name": product["name"], "unit_price": product["price"], "line_total": round(product["price"] * item["quantity"], 2)})
    return {"items": items, "subtotal": round(sum(i["line_total"] for i in items), 2)}


def _default(world: World, table_name: str, given: int | None, what: str) -> dict[str, Any]:
    if given is not None:
        return world.get(table_name, given)
    rows = world.rows(table_name, "is_default = 1") or world.rows(table_name)
    if not rows:
        raise ToolError(f"no saved {what}; add one first")
    return rows[0]


def _place_order(world: World, lines: list[tuple[dict[str, Any], int]], address_id: int | None, card_id: int | None,
                 gift_message: str | None) -> dict[str, Any]:
    world.require_network("place an order")
    address = _default(world, "addresses", address_id, "address")
    card = _default(world, "payment_cards", card_id, "payment card")
    total = round(sum(p["price"] * q for p, q in lines), 2)
    if card["available_credit"] + _CENT < total:
        raise ToolError(f"card ending {card['last_four']} has ${card['available_credit']:.2f} available; the order costs ${total:.2f}")
    for product, quantity in lines:
        if quantity > product["stock"]:
            raise ToolError(f"only {product['stock']} of {product['name']!r} in stock")
        world.conn.execute("UPDATE products SET stock = stock - ? WHERE id = ?", (quantity, product["id"]))
    world.update("payment_cards", card["id"], {"available_credit": round(card["available_credit"] - total, 2)})
    items = [{"product_id": p["id"], "quantity": q, "unit_price": p["price"]} for p, q in lines]
    return world.insert("orders", {"items": items, "total": total, "address_id": address["id"], "card_id": card["id"],
                                   "status": "placed", "gift_message": gift_message})


@tool("shopping", family="shopping_orders")
def shopping_checkout(world: World, address_id: int | None = None, card_id: int | None = None, gift_message: str | None = None) -> dict[str, Any]:
    """Order everything in the cart, charged to a card and shipped to an address (defaults when omitted); empties the cart. Needs a network connection.

    Args:
        address_id: shipping address id; default the default address
        card_id: payment card id; default the default card
        gift_message: optional gift message
    """
    cart = world.rows("cart_items")
    if not cart:
        raise ToolError("the cart is empty")
    order = _place_order(world, [(_product(world, i["product_id"]), i["quantity"]) for i in cart], address_id, card_id, gift_message)
    world.conn.execute("DELETE FROM cart_items")
    return order


@tool("shopping", family="shopping_orders")
def shopping_buy_now(world: World, product_id: int, quantity: int = 1, address_id: int | None = None, card_id: int | None = None) -> dict[str, Any]:
    """Order one product directly, without the cart. Needs a network connection.

    Args:
        product_id: id of the product
        quantity: units (≥ 1)
        address_id: shipping address id; default the default address
        card_id: payment card id; default the default card
    """
    if quantity < 1:
        raise ToolError(f"quantity must be at least 1, got {quantity}")
    return _place_order(world, [(_product(world, product_id), quantity)], address_id, card_id, None)


def _restock_and_refund(world: World, order: dict[str, Any]) -> None:
    for line in order["items"]:
        world.conn.execute("UPDATE products SET stock = stock + ? WHERE id = ?", (line["quantity"], line["product_id"]))
    if order["card_id"] is not None and world.find("payment_cards", order["card_id"]):
        card = world.get("payment_cards", order["card_id"])
        world.update("payment_cards", card["id"], {"available_credit": round(card["available_credit"] + order["total"], 2)})


@tool("shopping", family="shopping_orders", kind="write")
def shopping_cancel_order(world: World, order_id: int) -> dict[str, Any]:
    """Cancel an order that has not shipped yet (refunds the card, restocks the products).

    Args:
        order_id: id of the order
    """
    order = world.get("orders", order_id)
    if order["status"] != "placed":
        raise ToolError(f"order {order_id} is {order['status']}; only placed (not yet shipped) orders can be cancelled")
    _restock_and_refund(world, order)
    world.conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = ?", (order_id,))
    return world.get("orders", order_id)


@tool("shopping", family="shopping_orders", kind="write")
def shopping_return_order(world: World, order_id: int) -> dict[str, Any]:
    """Return a delivered order (refunds the card, restocks the products).

    Args:
        order_id: id of the order
    """
    order = world.get("orders", order_id)
    if order["status"] != "delivered":
        raise ToolError(f"order {order_id} is {order['status']}; only delivered orders can be returned")
    _restock_and_refund(world, order)
    world.conn.execute("UPDATE orders SET status = 'returned' WHERE id = ?", (order_id,))
    return world.get("orders", order_id)


@tool("shopping", family="shopping_orders", kind="write")
def shopping_reorder(world: World, order_id: int) -> dict[str, Any]:
    """Put the items of a past order back into the cart.

    Args:
        order_id: id of the past order
    """
    order = world.get("orders", order_id)
    return {"cart": [shopping_add_to_cart(world, line["product_id"], line["quantity"]) for line in order["items"]]}


@tool("shopping", family="shopping_orders", kind="read")
def shopping_track_order(world: World, order_id: int) -> dict[str, Any]:
    """An order's status with product names.

    Args:
        order_id: id of the order
    """
    order = world.get("orders", order_id)
    names = [world.get("products", line["product_id"])["name"] for line in order["items"]]
    return {"order_id": order_id, "status": order["status"], "products": names, "total": order["total"]}


@tool("shopping", family="shopping_catalog", kind="read")
def shopping_search_products_by_price(world: World, query: str = "", max_price: float | None = None, min_price: float | None = None,
                                      min_rating: float | None = None, category: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
    """Find products by keywords with price, rating and category filters (cheapest first).

    Args:
        query: words that must all appear in the name, brand or description (may be empty)
        max_price: highest unit price
        min_price: lowest unit price
        min_rating: lowest average rating
        category: category name
        limit: maximum number of results
    """
    words = query.lower().split()
    found = []
    for p in world.rows("products", order="price, id"):
        text = f"{p['name']} {p['brand']} {p['description']}".lower()
        if any(w not in text for w in words):
            continue
        if (max_price is not None and p["price"] > max_price) or (min_price is not None and p["price"] < min_price):
            continue
        if (min_rating is not None and (p["rating"] or 0) < min_rating) or (category and (p["category"] or "").lower() != category.lower()):
            continue
        found.append(p)
    return found[: max(1, limit)]


@tool("shopping", family="shopping_catalog", kind="read")
def shopping_compare_products(world: World, product_ids: list[int]) -> dict[str, Any]:
    """Compare products side by side; names the cheapest and the best rated.

    Args:
        product_ids: ids of two or more products
    """
    if len(product_ids) < 2:
        raise ToolError("give at least two product ids")
    rows = [_product(world, i) for i in product_ids]
    return {"products": rows, "cheapest_id": min(rows, key=lambda r: (r["price"], r["id"]))["id"],
            "best_rated_id": max(rows, key=lambda r: (r["rating"] or 0, -r["id"]))["id"]}


@tool("shopping", family="shopping_catalog", kind="read")
def shopping_list_categories(world: World) -> list[dict[str, Any]]:
    """List product categories with how many products each has."""
    return [{"category": c, "products": n} for c, n in world.conn.execute("SELECT category, COUNT(*) FROM products GROUP BY category ORDER BY category")]


@tool("shopping", family="shopping_account", kind="write")
def shopping_move_wishlist_item_to_cart(world: World, wishlist_item_id: int, quantity: int = 1) -> dict[str, Any]:
    """Move a wishlist product into the cart (removing it from the wishlist).

    Args:
        wishlist_item_id: id of the wishlist entry
        quantity: units to put in the cart
    """
    item = world.delete("wishlist_items", wishlist_item_id)
    return shopping_add_to_cart(world, item["product_id"], quantity)


@tool("shopping", family="shopping_account", kind="write")
def shopping_set_default_address(world: World, address_id: int) -> dict[str, Any]:
    """Make an address the default shipping address.

    Args:
        address_id: id of the address
    """
    world.get("addresses", address_id)
    world.conn.execute("UPDATE addresses SET is_default = (id = ?)", (address_id,))
    return world.get("addresses", address_id)


@tool("shopping", family="shopping_account", kind="write")
def shopping_set_default_card(world: World, card_id: int) -> dict[str, Any]:
    """Make a card the default payment card.

    Args:
        card_id: id of the card
    """
    world.get("payment_cards", card_id)
    world.conn.execute("UPDATE payment_cards SET is_default = (id = ?)", (card_id,))
    return world.get("payment_cards", card_id)


@tool("expenses", family="expenses_add", kind="write")
def expenses_create_group_with_friends(world: World, name: str, members: list[str],
                                       group_type: Literal["home", "trip", "couple", "other"] = "other") -> dict[str, Any]:
    """Create an expense group with the user ('me') and the given friends.

    Args:
        name: group name
        members: friends' names (the user 'me' is added automatically)
        group_type: kind of group
    """
    if not members:
        raise ToolError("members must name at least one friend")
    everyone = ["me"] + [m for m in dict.fromkeys(members) if m != "me"]
    return world.insert("expense_groups", {"name": name, "members": everyone, "group_type": group_type})


@tool("expenses", family="expenses_balances", kind="write")
def expenses_remove_settled_member(world: World, group_id: int, member: str) -> dict[str, Any]:
    """Remove a member from a group; refused while the member's balance is not zero.

    Args:
        group_id: id of the group
        member: member name
    """
    group = world.get("expense_groups", group_id)
    balance = _balances(world, group_id).get(member)
    if member not in group["members"]:
        raise ToolError(f"{member!r} is not a member of {group['name']!r}")
    if balance and abs(balance) >= 0.01:
        raise ToolError(f"{member} still has a balance of {balance:+.2f} in {group['name']!r}; settle up first")
    if world.count("expenses", "group_id = ? AND paid_by = ?", (group_id, member)):
        raise ToolError(f"{member} paid expenses in this group; they must stay a member")
    return world.update("expense_groups", group_id, {"members": [m for m in group["members"] if m != member]})


@tool("expenses", family="expenses_balances", kind="read")
def expenses_list_debts(world: World, group_id: int) -> list[dict[str, Any]]:
    """Who should pay whom to settle a group (greedy simplification of the balances).

    Args:
        group_id: id of the group
    """
    balances = _balances(world, group_id)
    debtors = sorted(([m, -v] for m, v in balances.items() if v < -0.005), key=lambda p: -p[1])
    creditors = sorted(([m, v] for m, v in balances.items() if v > 0.005), key=lambda p: -p[1])
    debts = []
    while debtors and creditors:
        amount = round(min(debtors[0][1], creditors[0][1]), 2)
        debts.append({"payer": debtors[0][0], "payee": creditors[0][0], "amount": amount})
        debtors[0][1] -= amount
        creditors[0][1] -= amount
        if debtors[0][1] < 0.005:
            debtors.pop(0)
        if creditors[0][1] < 0.005:
            creditors.pop(0)
    return debts
