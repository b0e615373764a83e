"""Expense-splitting tools: groups, shared expenses and receipts, balances, debts and settling up."""

from __future__ import annotations

from typing import Any, Literal

from ..tools import tool
from ..world import ToolError, World, validator
from .shared import positive_amount


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
    value = positive_amount(amount)
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
    return world.insert("settlements", {"group_id": group_id, "payer": payer, "payee": payee, "amount": positive_amount(round(amount, 2)),
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
