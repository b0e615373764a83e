"""Menus: menu-bar menus, context menus and pop-up button menus, with keyboard shortcuts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from PIL import ImageDraw

from .theme import Theme, font, text_width

_SYMBOLS = {"command": "⌘", "shift": "⇧", "option": "⌥", "ctrl": "⌃"}
_KEY_SYMBOLS = {"backspace": "⌫", "delete": "⌦", "return": "↩", "enter": "↩", "tab": "⇥", "esc": "Esc",
                "left": "←", "right": "→", "up": "↑", "down": "↓", "space": "Space"}


@dataclass
class MenuItem:
    """One menu entry; ``shortcut`` like "cmd+shift+n"; a title of "-" is a separator."""

    title: str
    action: Callable[[], Any] | None = None
    shortcut: str = ""
    enabled: bool = True
    checked: bool = False

    @property
    def separator(self) -> bool:
        return self.title == "-"

    @property
    def combo(self) -> tuple[frozenset, str] | None:
        """(modifier set, key) of the shortcut, with canonical modifier names."""
        if not self.shortcut:
            return None
        parts = self.shortcut.lower().split("+")
        mods = frozenset({"command" if p in ("cmd", "command") else "option" if p in ("alt", "option") else
                          "ctrl" if p in ("ctrl", "control") else p for p in parts[:-1]})
        return mods, parts[-1]

    def shortcut_label(self) -> str:
        c = self.combo
        if c is None:
            return ""
        mods, key = c
        order = ["ctrl", "option", "shift", "command"]
        return "".join(_SYMBOLS[m] for m in order if m in mods) + _KEY_SYMBOLS.get(key, key.upper())


def sep() -> MenuItem:
    """A separator line."""
    return MenuItem("-")


@dataclass
class OpenMenu:
    """A menu currently shown on screen at (x, y); ``title`` names its menu-bar title, if any."""

    items: list[MenuItem]
    x: int
    y: int
    title: str | None = None
    min_width: int = 0
    highlight: int | None = None
    rects: list[tuple[int, int, int, int]] = field(default_factory=list)
    # a pop-up button's menu: kept on screen by sliding it (its chosen item stays level with the
    # button where it can), where a context menu flips above the pointer instead
    popup: bool = False

    ITEM_H = 22
    SEP_H = 10
    PAD = 5  # above the first item and below the last

    def item_top(self, index: int) -> int:
        """Offset of item ``index``'s top from the menu's top."""
        return self.PAD + sum(self.SEP_H if i.separator else self.ITEM_H for i in self.items[:index])

    def layout(self, screen_w: int, screen_h: int) -> tuple[int, int, int, int]:
        w = max([self.min_width, 160] + [text_width(i.title, 13) + text_width(i.shortcut_label(), 13) + 64
                                          for i in self.items if not i.separator])
        h = 2 * self.PAD + sum(self.SEP_H if i.separator else self.ITEM_H for i in self.items)
        x = max(0, min(self.x, screen_w - w - 2))
        if self.popup:
            y = max(24, min(self.y, screen_h - h - 2))
        else:
            y = self.y if self.y + h <= screen_h else max(24, self.y - h)
        self.rects = []
        cy = y + self.PAD
        for it in self.items:
            ih = self.SEP_H if it.separator else self.ITEM_H
            self.rects.append((x, cy, w, ih))
            cy += ih
        return (x, y, w, h)

    def item_at(self, px: int, py: int) -> int | None:
        for i, (x, y, w, h) in enumerate(self.rects):
            if x <= px < x + w and y <= py < y + h and not self.items[i].separator:
                return i
        return None

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, screen_w: int, screen_h: int) -> None:
        x, y, w, h = self.layout(screen_w, screen_h)
        d.rounded_rectangle((x + 1, y + 2, x + w + 1, y + h + 2), 7, fill=(0, 0, 0) if theme.dark else (150, 150, 150))
        d.rounded_rectangle((x, y, x + w, y + h), 7, fill=theme.menu_bg, outline=theme.separator)
        f = font(13)
        for i, (it, (ix, iy, iw, ih)) in enumerate(zip(self.items, self.rects)):
            if it.separator:
                d.line((ix + 10, iy + ih // 2, ix + iw - 10, iy + ih // 2), fill=theme.separator)
                continue
            fg = theme.text if it.enabled else theme.secondary_text
            if i == self.highlight and it.enabled:
                d.rounded_rectangle((ix + 5, iy, ix + iw - 5, iy + ih - 1), 4, fill=theme.accent)
                fg = (255, 255, 255)
            if it.checked:
                d.text((ix + 10, iy + ih // 2), "✓", font=f, fill=fg, anchor="lm")
            d.text((ix + 24, iy + ih // 2), it.title, font=f, fill=fg, anchor="lm")
            sc = it.shortcut_label()
            if sc:
                d.text((ix + iw - 12, iy + ih // 2), sc, font=f, fill=fg if i == self.highlight else theme.secondary_text,
                       anchor="rm")
