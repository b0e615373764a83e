"""Device settings tools: radios, airplane mode, location, battery, do-not-disturb, brightness, volume."""

from __future__ import annotations

from typing import Any

from ..tools import tool
from ..world import World


def _set(world: World, **changes: Any) -> dict[str, Any]:
    return world.update("device_settings", 1, changes)


@tool("settings", family="settings_network", kind="write")
def settings_set_wifi(world: World, on: bool) -> dict[str, Any]:
    """Turn Wi-Fi on or off (turning it on also ends airplane mode).

    Args:
        on: true to turn it on
    """
    return _set(world, wifi=on, **({"airplane_mode": False} if on else {}))


@tool("settings", family="settings_network", kind="write")
def settings_set_cellular(world: World, on: bool) -> dict[str, Any]:
    """Turn cellular data on or off (turning it on also ends airplane mode).

    Args:
        on: true to turn it on
    """
    return _set(world, cellular=on, **({"airplane_mode": False} if on else {}))


@tool("settings", family="settings_network", kind="write")
def settings_set_bluetooth(world: World, on: bool) -> dict[str, Any]:
    """Turn Bluetooth on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, bluetooth=on)


@tool("settings", family="settings_network", kind="write")
def settings_set_airplane_mode(world: World, on: bool) -> dict[str, Any]:
    """Turn airplane mode on (which switches Wi-Fi, cellular and Bluetooth off) or off.

    Args:
        on: true to turn it on
    """
    return _set(world, airplane_mode=on, **({"wifi": False, "cellular": False, "bluetooth": False} if on else {}))


@tool("settings", family="settings_network", kind="read")
def settings_get_network_status(world: World) -> dict[str, Any]:
    """Whether the device is online and through which connection."""
    s = world.settings()
    online = not s["airplane_mode"] and (s["wifi"] or s["cellular"])
    return {"online": online, "wifi": s["wifi"], "cellular": s["cellular"], "airplane_mode": s["airplane_mode"]}


@tool("settings", family="settings_device", kind="write")
def settings_set_location_service(world: World, on: bool) -> dict[str, Any]:
    """Turn location services on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, location_service=on)


@tool("settings", family="settings_device", kind="write")
def settings_set_low_battery_mode(world: World, on: bool) -> dict[str, Any]:
    """Turn low-power mode on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, low_battery_mode=on)


@tool("settings", family="settings_device", kind="write")
def settings_set_do_not_disturb(world: World, on: bool) -> dict[str, Any]:
    """Turn do-not-disturb on or off.

    Args:
        on: true to turn it on
    """
    return _set(world, do_not_disturb=on)


@tool("settings", family="settings_device", kind="write")
def settings_set_brightness(world: World, level: int) -> dict[str, Any]:
    """Set the screen brightness.

    Args:
        level: brightness 0-100
    """
    return _set(world, brightness=level)


@tool("settings", family="settings_device", kind="write")
def settings_set_volume(world: World, level: int) -> dict[str, Any]:
    """Set the media volume.

    Args:
        level: volume 0-100
    """
    return _set(world, volume=level)


@tool("settings", family="settings_device", kind="read")
def settings_get_current_location(world: World) -> dict[str, Any]:
    """The device's current location (the owner's home address in this simulation); needs location services on."""
    world.require_location("read the current location")
    return {"address": world.get("user_profile", 1)["home_address"]}
