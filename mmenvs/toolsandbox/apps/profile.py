"""Profile tools (the supervisor's account): passwords, app credentials, addresses, payment cards, the date."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import ToolError, World


@tool("profile", family="profile", kind="read")
def profile_show_account_passwords(world: World) -> list[dict[str, Any]]:
    """Show the stored app account names and passwords."""
    return world.rows("credentials")


@tool("profile", family="profile", kind="read")
def profile_get_app_credentials(world: World, app: str) -> dict[str, Any]:
    """The stored username and password for one app.

    Args:
        app: app name, e.g. "shopping"
    """
    rows = world.rows("credentials", "lower(app) = lower(?)", (app.strip(),))
    if not rows:
        raise ToolError(f"no credentials stored for app {app!r}")
    return rows[0]


@tool("profile", family="profile", kind="read")
def profile_show_addresses(world: World) -> list[dict[str, Any]]:
    """Show the user's saved addresses (shipping addresses plus home and work from the profile)."""
    profile = world.get("user_profile", 1)
    extra = [{"label": k.split("_")[0].title(), "address": profile[k]} for k in ("home_address", "work_address") if profile[k]]
    return extra + world.rows("addresses")


@tool("profile", family="profile", kind="read")
def profile_show_payment_cards(world: World) -> list[dict[str, Any]]:
    """Show the user's saved payment cards."""
    return world.rows("payment_cards")


@tool("profile", family="profile", kind="read")
def profile_get_current_date_time(world: World) -> dict[str, str]:
    """The current date, time and weekday on the device."""
    return {"datetime": world.now_iso(), "date": world.today().isoformat(), "weekday": world.now.strftime("%A")}
