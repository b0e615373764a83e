"""System Settings: appearance (light/dark/auto), accent colour, window tinting, wallpaper, Wi‑Fi,
Bluetooth, sound, Focus, Dock and the computer name. These values also back ``defaults``
(NSGlobalDomain AppleInterfaceStyle / AppleAccentColor, com.apple.dock autohide), System Events'
appearance preferences in AppleScript, and ``networksetup``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..scripting import HIGHLIGHT_DEFAULTS
from ..theme import ACCENT_COLORS, WALLPAPERS, Theme, font, wallpaper_thumbnail
from ..widgets import Box, Checkbox, Custom, Label, ListView, PopupButton, Row, Slider, TextField, Widget
from ..window import Window
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

PANES = ("Wi‑Fi", "Bluetooth", "Appearance", "Desktop & Dock", "Wallpaper", "Sound", "Focus", "General")
ACCENT_ORDER = ("multicolor", "blue", "purple", "pink", "red", "orange", "yellow", "green", "graphite")
SIDEBAR_SIZES = ("Small", "Medium", "Large")
HIGHLIGHT_NAMES = ("Blue", "Purple", "Pink", "Red", "Orange", "Yellow", "Green", "Graphite")  # the Highlight colour menu
MACOS_VERSION = "26.0"
MACOS_NAME = "macOS Tahoe"
MACOS_BUILD = "25A354"


class SettingsApp(App):
    """System Settings; its fields are the system's settings."""

    name = "System Settings"
    bundle_id = "com.apple.systempreferences"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.appearance = "Light"  # Light | Dark | Auto (Auto follows the clock: dark 19:00–07:00)
        self.accent_color = "multicolor"
        # AppleHighlightColor ("r g b Name") when a highlight colour is chosen; None follows the accent
        self.highlight_color: str | None = None
        self.tint_windows = True
        self.sidebar_icon_size = "Medium"
        self.wallpaper = "Sequoia"
        self.wifi = True
        self.wifi_network = "Home Wi‑Fi"
        self.bluetooth = True
        self.volume = 50  # output volume 0–100
        self.alert_volume = 75
        self.muted = False
        self.do_not_disturb = False
        self.dock_autohide = False
        self.computer_name = "Agent’s Mac"
        self.pane = "Appearance"

    @property
    def dark_mode(self) -> bool:
        if self.appearance == "Auto":
            return self.desktop.now.hour >= 19 or self.desktop.now.hour < 7
        return self.appearance == "Dark"

    def set_dark_mode(self, dark: bool) -> None:
        self.appearance = "Dark" if dark else "Light"
        self.changed()

    def set_accent(self, name: str) -> None:
        if name not in ACCENT_COLORS:
            raise ValueError(f"unknown accent colour {name!r}; expected one of {', '.join(ACCENT_ORDER)}")
        self.accent_color = name
        self.changed()

    def set_highlight(self, value: str | None) -> None:
        """Set the highlight colour (an AppleHighlightColor value; None: follow the accent colour)."""
        self.highlight_color = value
        self.changed()

    def highlight_name(self) -> str:
        """The highlight colour as System Settings names it: Accent Colour (following the accent), one
        of its colours, or Other (a colour set with ``defaults`` or System Events' RGB)."""
        if self.highlight_color is None:
            return "Accent Colour"
        for name in HIGHLIGHT_NAMES:
            if self.highlight_color == HIGHLIGHT_DEFAULTS[name.lower()]:
                return name
        return "Other"

    def _choose_highlight(self, name: str) -> None:
        if name == "Accent Colour":
            self.set_highlight(None)
        elif name in HIGHLIGHT_NAMES:
            self.set_highlight(HIGHLIGHT_DEFAULTS[name.lower()])

    def set_wallpaper(self, name: str) -> None:
        if name not in WALLPAPERS:
            raise ValueError(f"unknown wallpaper {name!r}; expected one of {', '.join(WALLPAPERS)}")
        self.wallpaper = name
        self.changed()

    def changed(self) -> None:
        """System-wide look changed: every window redraws."""
        self.desktop.invalidate()

    def state(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "appearance": self.appearance,
            "dark_mode": self.dark_mode,
            "accent_color": self.accent_color,
            "highlight_color": self.highlight_color,
            "tint_windows": self.tint_windows,
            "sidebar_icon_size": self.sidebar_icon_size,
            "wallpaper": self.wallpaper,
            "wifi": self.wifi,
            "wifi_network": self.wifi_network if self.wifi else None,
            "bluetooth": self.bluetooth,
            "volume": self.volume,
            "alert_volume": self.alert_volume,
            "muted": self.muted,
            "do_not_disturb": self.do_not_disturb,
            "dock_autohide": self.dock_autohide,
            "computer_name": self.computer_name,
        }

    # ------------------------------------------------------------------ GUI
    def app_menus(self) -> list:
        from ..menus import MenuItem

        return [("View", [MenuItem(p, (lambda p=p: self.show_pane(p))) for p in PANES])]

    def show_pane(self, pane: str) -> None:
        if pane not in PANES:
            raise ValueError(f"unknown settings pane {pane!r}; expected one of {', '.join(PANES)}")
        self.pane = pane
        self.reopen()
        self.touch()

    def new_window(self) -> Window:
        w, h = 720, 540
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "System Settings", (x, y, w, h), self._build, title_h=28)
        self.desktop.show_window(win)
        return win

    def reopen(self) -> None:
        if self.windows:
            self.desktop.raise_window(self.windows[0])
        else:
            self.new_window()

    def _set(self, attr: str, value: Any) -> None:
        setattr(self, attr, value)
        self.changed()

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        side = 200
        out: list[Widget] = [Box((0, 28, side, H - 28), "sidebar_bg")]
        rows = [Row("user", [self.computer_name.replace("’s Mac", "")], detail="Apple Account")]
        out.append(ListView("settings:account", (0, 36, side, 48), rows, [], name="Account", sidebar=True))
        out.append(ListView("settings:panes", (0, 90, side, H - 100), [Row(p, [p]) for p in PANES], [self.pane],
                            name="Settings panes", sidebar=True,
                            on_select=lambda keys: self.show_pane(keys[0]) if keys else None))
        cx, cy, cw = side + 24, 44, W - side - 48
        out.append(Label((cx, cy, cw, 28), self.pane, 20, "bold", key="settings:title"))
        cy += 44
        pane = self.pane
        if pane == "Wi‑Fi":
            out.append(Checkbox("settings:wifi", (cx, cy, cw, 28), "Wi‑Fi", self.wifi, lambda v: self._set("wifi", v), style="switch"))
            out.append(Label((cx, cy + 40, cw, 20), f"Connected to “{self.wifi_network}”" if self.wifi else "Wi‑Fi is turned off.",
                             13, color="secondary_text", key="settings:wifi-status"))
        elif pane == "Bluetooth":
            out.append(Checkbox("settings:bluetooth", (cx, cy, cw, 28), "Bluetooth", self.bluetooth,
                                lambda v: self._set("bluetooth", v), style="switch"))
            out.append(Label((cx, cy + 40, cw, 20), "This Mac is discoverable as “" + self.computer_name + "”." if self.bluetooth
                             else "Bluetooth is off.", 13, color="secondary_text"))
        elif pane == "Appearance":
            out.append(Label((cx, cy, 120, 20), "Appearance", 13))
            tiles = ("Light", "Dark", "Auto")

            def paint_tiles(d: Any, theme: Theme, rect: tuple) -> None:
                x, y, w, h = rect
                for i, t in enumerate(tiles):
                    tx = x + i * 96
                    sel = t == self.appearance
                    d.rounded_rectangle((tx, y, tx + 80, y + 52), 8, fill=(250, 250, 250) if t == "Light" else (40, 40, 44)
                                        if t == "Dark" else (150, 150, 155), outline=theme.accent if sel else theme.control_border,
                                        width=3 if sel else 1)
                    d.rounded_rectangle((tx + 10, y + 10, tx + 70, y + 24), 3, fill=(220, 220, 224) if t != "Dark" else (80, 80, 84))
                    d.text((tx + 40, y + 66), t, font=font(12, "bold" if sel else "regular"), fill=theme.text, anchor="mm")

            def click_tiles(w: Window, ev: Any) -> None:
                i = (ev.x - (cx + 120)) // 96
                if 0 <= i < 3 and (ev.x - (cx + 120)) % 96 <= 80:
                    self._set("appearance", tiles[i])

            out.append(Custom("settings:appearance", (cx + 120, cy, 290, 76), paint_tiles, on_click=click_tiles,
                              role="AXRadioGroup", name="Appearance", value=self.appearance,
                              children=[("AXRadioButton", t, None, (cx + 120 + i * 96, cy, 80, 52),
                                         "selected" if t == self.appearance else "") for i, t in enumerate(tiles)]))
            cy += 96
            out.append(Label((cx, cy, 120, 20), "Accent colour", 13))

            def paint_acc(d: Any, theme: Theme, rect: tuple) -> None:
                x, y, w, h = rect
                for i, a in enumerate(ACCENT_ORDER):
                    ax = x + i * 26
                    if a == "multicolor":
                        for k, c in enumerate(((255, 59, 48), (255, 204, 0), (52, 199, 89), (10, 122, 255))):
                            d.pieslice((ax, y, ax + 18, y + 18), k * 90, k * 90 + 90, fill=c)
                    else:
                        d.ellipse((ax, y, ax + 18, y + 18), fill=ACCENT_COLORS[a])
                    if a == self.accent_color:
                        d.ellipse((ax + 6, y + 6, ax + 12, y + 12), fill=(255, 255, 255))
                d.text((x, y + 30), self.accent_color.capitalize() if self.accent_color != "multicolor" else "Multicolour",
                       font=font(11), fill=theme.secondary_text)

            def click_acc(w: Window, ev: Any) -> None:
                i = (ev.x - (cx + 120)) // 26
                if 0 <= i < len(ACCENT_ORDER):
                    self.set_accent(ACCENT_ORDER[i])

            out.append(Custom("settings:accent", (cx + 120, cy, 26 * 9, 46), paint_acc, on_click=click_acc,
                              role="AXRadioGroup", name="Accent colour", value=self.accent_color,
                              children=[("AXRadioButton", a, None, (cx + 120 + i * 26, cy, 18, 18),
                                         "selected" if a == self.accent_color else "") for i, a in enumerate(ACCENT_ORDER)]))
            cy += 60
            # Highlight colour (as in System Settings ▸ Appearance): follows the accent by default
            current = self.highlight_name()
            options = ["Accent Colour", *HIGHLIGHT_NAMES] + (["Other"] if current == "Other" else [])
            out.append(Label((cx, cy, 200, 24), "Highlight colour", 13))
            out.append(PopupButton("settings:highlight", (cx + 200, cy, 160, 24), options, current,
                                   self._choose_highlight, name="Highlight colour"))
            cy += 40
            out.append(Label((cx, cy, 200, 24), "Sidebar icon size", 13))
            out.append(PopupButton("settings:sidebar-size", (cx + 200, cy, 120, 24), list(SIDEBAR_SIZES), self.sidebar_icon_size,
                                   lambda v: self._set("sidebar_icon_size", v), name="Sidebar icon size"))
            cy += 40
            out.append(Checkbox("settings:tint", (cx, cy, cw, 28), "Allow wallpaper tinting in windows", self.tint_windows,
                                lambda v: self._set("tint_windows", v), style="switch"))
        elif pane == "Desktop & Dock":
            out.append(Checkbox("settings:dock-autohide", (cx, cy, cw, 28), "Automatically hide and show the Dock",
                                self.dock_autohide, lambda v: self._set("dock_autohide", v), style="switch"))
        elif pane == "Wallpaper":
            def paint_wp(d: Any, theme: Theme, rect: tuple) -> None:
                x, y, w, h = rect
                for i, name in enumerate(WALLPAPERS):
                    r, c = divmod(i, 3)
                    tx, ty = x + c * 150, y + r * 120
                    thumb = wallpaper_thumbnail(name, (128, 80), theme.dark)
                    d._image.paste(thumb, (tx, ty))  # noqa: SLF001
                    sel = name == self.wallpaper
                    d.rounded_rectangle((tx - 3, ty - 3, tx + 131, ty + 83), 6, outline=theme.accent if sel else theme.separator,
                                        width=3 if sel else 1)
                    d.text((tx + 64, ty + 98), name, font=font(12, "bold" if sel else "regular"), fill=theme.text, anchor="mm")

            def click_wp(w: Window, ev: Any) -> None:
                c, r = (ev.x - cx) // 150, (ev.y - cy) // 120
                i = r * 3 + c
                if 0 <= c < 3 and 0 <= i < len(WALLPAPERS):
                    self.set_wallpaper(WALLPAPERS[i])

            out.append(Custom("settings:wallpaper", (cx, cy, 450, 240), paint_wp, on_click=click_wp, role="AXRadioGroup",
                              name="Wallpaper", value=self.wallpaper,
                              children=[("AXRadioButton", n, None, (cx + (i % 3) * 150, cy + (i // 3) * 120, 128, 80),
                                         "selected" if n == self.wallpaper else "") for i, n in enumerate(WALLPAPERS)]))
        elif pane == "Sound":
            out.append(Label((cx, cy, 140, 24), "Output volume", 13))
            out.append(Slider("settings:volume", (cx + 150, cy, cw - 160, 24), self.volume / 100,
                              lambda v: self._set("volume", int(round(v * 100))), name="Output volume"))
            cy += 40
            out.append(Checkbox("settings:mute", (cx + 150, cy, 120, 24), "Mute", self.muted, lambda v: self._set("muted", v)))
            cy += 40
            out.append(Label((cx, cy, 140, 24), "Alert volume", 13))
            out.append(Slider("settings:alert-volume", (cx + 150, cy, cw - 160, 24), self.alert_volume / 100,
                              lambda v: self._set("alert_volume", int(round(v * 100))), name="Alert volume"))
        elif pane == "Focus":
            out.append(Checkbox("settings:dnd", (cx, cy, cw, 28), "Do Not Disturb", self.do_not_disturb,
                                lambda v: self._set("do_not_disturb", v), style="switch"))
        elif pane == "General":
            out.append(Label((cx, cy, 120, 24), "Name", 13))
            ed = win.editor("settings:name", self.computer_name)
            out.append(TextField("settings:name", (cx + 130, cy, 260, 24), ed, name="Name",
                                 on_change=lambda t: setattr(self, "computer_name", t)))
            for i, (k, v) in enumerate((("macOS", f"{MACOS_NAME} {MACOS_VERSION}"), ("Build", MACOS_BUILD),
                                        ("Chip", "Virtual"), ("Memory", "4 GB"))):
                out.append(Label((cx, cy + 40 + i * 28, 120, 24), k, 13))
                out.append(Label((cx + 130, cy + 40 + i * 28, 300, 24), v, 13, color="secondary_text", key=f"settings:about:{k}"))
        return out
