"""Shopping tools: the cart, checkout and buy-now, orders (cancel, return, reorder, track), products, defaults."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World
from .shared import CENT


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
    if card["available_credit"] + CENT < total:
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
