"""Payments tools: send and request money, split bills, pay or decline requests, wallet funds, transactions."""

from __future__ import annotations

from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, parse_date
from .shared import CENT, positive_amount


def _user(world: World, username: str) -> dict[str, Any]:
    rows = world.rows("payment_users", "lower(username) = lower(?)", (username.strip().lstrip("@"),))
    if not rows:
        raise ToolError(f"no payment user with username {username!r} (search users by name or phone first)")
    return rows[0]


def _debit_wallet(world: World, amount: float) -> None:
    balance = world.get("wallet", 1)["balance"]
    if balance + CENT < amount:
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
    value = positive_amount(amount)
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
    return world.insert("payment_requests", {"counterparty": user["username"], "direction": "outgoing", "amount": positive_amount(amount), "note": note})


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
    cents = round(positive_amount(total_amount, "total_amount") * 100)
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
    value = positive_amount(amount)
    card = world.get("payment_cards", card_id)
    if card["available_credit"] + CENT < value:
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
    _debit_wallet(world, positive_amount(amount))
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
