"""Mouse and keyboard routing for the desktop (mixed into ``Desktop``): menus first, then the
menu bar, the dock, windows top-down (title bar, traffic lights, resize corner, widgets), then the
desktop itself; keys go to menu shortcuts, then the key window's focused widget."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .keys import char_for

if TYPE_CHECKING:  # pragma: no cover
    from .desktop import Desktop as _D
    from .window import Window

MENUBAR_H = 24
DRAG_THRESHOLD = 4


class EventRouter:
    """Input handling; all coordinates are screen pixels."""

    # ------------------------------------------------------------------------------ mouse
    def mouse_move(self: "_D", x: int, y: int) -> None:
        self.mouse = (x, y)
        p = self.pressed
        if p is None:
            if self.menu is not None:
                i = self.menu.item_at(x, y)
                if i != self.menu.highlight:
                    self.menu.highlight = i
                    self.gen += 1
            return
        dx, dy = x - p["x"], y - p["y"]
        kind = p["kind"]
        win: Window | None = p.get("window")
        if kind == "title" and win is not None:
            sw, sh = self.screen_size
            win.x = max(-win.w + 60, min(sw - 60, p["wx"] + dx))
            win.y = max(MENUBAR_H, min(sh - 40, p["wy"] + dy))
            self.gen += 1
        elif kind == "resize" and win is not None:
            win.w = max(win.min_size[0], p["ww"] + dx)
            win.h = max(win.min_size[1], p["wh"] + dy)
            win.touch()
            self.gen += 1
        elif kind == "widget" and win is not None:
            if p.get("payload") is None and not p.get("dragging") and abs(dx) + abs(dy) >= DRAG_THRESHOLD:
                payload = p["widget"].drag_payload(win, p["x"] - win.rect[0], p["y"] - win.rect[1])
                if payload is not None:
                    p["payload"] = payload
                p["dragging"] = True
            if p.get("payload") is None:
                p["widget"].mouse_drag(win, x - win.rect[0], y - win.rect[1])
                win.touch()
            self.gen += 1
        elif kind == "desktop-icon":
            if abs(dx) + abs(dy) >= DRAG_THRESHOLD:
                p["dragging"] = True
                self.gen += 1

    def mouse_down(self: "_D", button: str = "left", clicks: int = 1) -> None:
        x, y = self.mouse
        mods = frozenset(self.mods)
        self.gen += 1
        # an open menu takes the click
        if self.menu is not None:
            i = self.menu.item_at(x, y)
            menu = self.menu
            if i is not None:
                self.menu = None
                it = menu.items[i]
                if it.enabled and it.action is not None:
                    it.action()
                    self._touch_all_active()
                return
            self.menu = None
            if y >= MENUBAR_H or menu.title is None:
                return  # a click outside only closes the menu (as on macOS)
        sp = self.spotlight
        if sp.is_open and sp.window is not None:
            sx, sy, sw_, sh_ = sp.window.rect
            if not (sx <= x < sx + sw_ and sy <= y < sy + sh_):
                sp.close()  # a click elsewhere dismisses Spotlight and then acts as usual
        if y < MENUBAR_H:
            self._menubar_click(x)
            return
        item = self.dock_item_at(x, y)
        if item is not None:
            if button == "left":
                self._dock_click(item)
            return
        win = self.window_at(x, y)
        if win is None:
            self._desktop_click(x, y, button, clicks)
            return
        top = win.parent or win
        if top.sheet is not None and win is top:
            # a window with a sheet only comes forward; its content is blocked
            self.raise_window(top)
            return
        if self.key_window() is not win and win.parent is None:
            self.raise_window(win)
        wx, wy, ww, wh = win.rect
        lx, ly = x - wx, y - wy
        if win.parent is None and ly < win.title_h:
            light = win.traffic_light_at(lx, ly)
            if light == "close":
                win.app.request_close(win)
            elif light == "minimize":
                self.minimize(win)
            elif light == "zoom":
                self.zoom(win)
            else:
                w = win.widget_at(lx, ly)
                if w is not None and button == "left":
                    win.mouse_down(lx, ly, button, clicks, mods)
                    win.touch()
                    win.app.touch()
                elif clicks == 2:
                    self.zoom(win)
                else:
                    self.pressed = {"kind": "title", "window": win, "x": x, "y": y, "wx": win.x, "wy": win.y}
            return
        if win.parent is None and lx >= ww - 12 and ly >= wh - 12:
            self.pressed = {"kind": "resize", "window": win, "x": x, "y": y, "ww": win.w, "wh": win.h}
            return
        w = win.mouse_down(lx, ly, button, clicks, mods)
        win.touch()
        win.app.touch()
        if w is not None and button == "left":
            self.pressed = {"kind": "widget", "window": win, "widget": w, "x": x, "y": y}

    def mouse_up(self: "_D", button: str = "left") -> None:
        p, self.pressed = self.pressed, None
        self.gen += 1
        if p is None:
            return
        x, y = self.mouse
        win = p.get("window")
        if p["kind"] == "widget" and win is not None:
            if p.get("payload") is not None:
                self._drop(p["payload"], x, y)
            else:
                p["widget"].mouse_up(win, x - win.rect[0], y - win.rect[1])
            win.touch()
            win.app.touch()
        elif p["kind"] == "desktop-icon" and p.get("dragging"):
            self._drop(("files", [str(self.home / "Desktop" / n) for n in p["names"]]), x, y)

    def _drop(self: "_D", payload: Any, x: int, y: int) -> None:
        kind, items = payload
        target = self.window_at(x, y)
        if target is not None:
            lx, ly = x - target.rect[0], y - target.rect[1]
            for w in reversed(target.layout()):
                if w.contains(lx, ly) and w.accepts_drop(target, payload, lx, ly):
                    w.drop(target, payload, lx, ly)
                    target.app.touch()
                    return
            return
        if kind != "files":
            return
        item = self.dock_item_at(x, y)
        finder = self.apps["Finder"]
        if item == "Trash":
            finder.move_to_trash([Path(p) for p in items])
        elif item is None and y >= MENUBAR_H:
            finder.move_items([Path(p) for p in items], self.home / "Desktop")
        finder.touch()

    def _touch_all_active(self: "_D") -> None:
        """After a menu command: redraw the active app (and the app it came from). Commands that
        change other apps' look (System Settings) invalidate the whole desktop themselves."""
        for a in {self.active, *(w.app for w in self.windows[-1:])}:
            if a is not None:
                a.touch()

    def _menubar_click(self: "_D", x: int) -> None:
        wx = self.wifi_extra_x()
        if wx <= x < wx + 24:
            from .menus import MenuItem, OpenMenu, sep

            s = self.settings
            self.menu = OpenMenu([
                MenuItem("Wi‑Fi", lambda: (setattr(s, "wifi", not s.wifi), s.changed()), checked=s.wifi),
                sep(),
                MenuItem(s.wifi_network, enabled=False, checked=s.wifi),
                sep(),
                MenuItem("Wi‑Fi Settings…", lambda: s.show_pane("Wi‑Fi")),
            ], wx - 4, MENUBAR_H, "Wi‑Fi")
            return
        for (title, items), (_t, x0, x1) in zip(self.menubar_menus(), self._menubar_layout()):
            if x0 <= x < x1:
                from .menus import OpenMenu

                self.menu = OpenMenu(items, x0 - 4, MENUBAR_H, title)
                return

    def _dock_click(self: "_D", item: str) -> None:
        if item == "Trash":
            finder = self.apps["Finder"]
            self.activate(finder, reopen=False)
            finder.open_folder(finder.trash_dir)
            return
        self.activate(self.app(item))

    def _desktop_click(self: "_D", x: int, y: int, button: str, clicks: int) -> None:
        finder = self.apps["Finder"]
        if not finder.running:
            finder.running = True
        self.active = finder
        hit = None
        for name, (ix, iy, iw, ih) in self.desktop_icon_layout():
            if ix <= x < ix + iw and iy <= y < iy + ih:
                hit = name
                break
        if hit is None:
            self.desktop_selection = []
            if button == "right":
                from .menus import MenuItem

                self.open_context_menu([MenuItem("New Folder", lambda: finder.new_folder(self.home / "Desktop"))], x, y)
            return
        if "command" in self.mods:
            sel = list(self.desktop_selection)
            self.desktop_selection = [n for n in sel if n != hit] if hit in sel else sel + [hit]
        elif hit not in self.desktop_selection:
            self.desktop_selection = [hit]
        if button == "right":
            from .menus import MenuItem, sep

            paths = [self.home / "Desktop" / n for n in self.desktop_selection]
            self.open_context_menu([
                MenuItem("Open", lambda: [self.open_path(p) for p in paths]),
                sep(),
                MenuItem("Move to Trash", lambda: finder.move_to_trash(paths)),
                MenuItem("Rename", lambda: finder.rename_prompt(paths[0]), enabled=len(paths) == 1),
            ], x, y)
            return
        if clicks >= 2:
            self.open_path(self.home / "Desktop" / hit)
            return
        self.pressed = {"kind": "desktop-icon", "x": x, "y": y, "names": list(self.desktop_selection)}

    def scroll(self: "_D", dy: int) -> None:
        x, y = self.mouse
        self.gen += 1
        win = self.window_at(x, y)
        if win is None:
            return
        lx, ly = x - win.rect[0], y - win.rect[1]
        for w in reversed(win.layout()):
            if w.contains(lx, ly) and w.scroll(win, dy):
                win.touch()
                return

    # ------------------------------------------------------------------------------ keyboard
    def key_press(self: "_D", key: str, kind: str) -> None:
        """A non-modifier key pressed with the currently held modifiers."""
        mods = frozenset(self.mods - {"fn"})
        self.gen += 1
        if self.menu is not None:
            self._menu_key(key)
            return
        # typing a character without command/ctrl is text input
        if kind == "char" and not (mods & {"command", "ctrl"}):
            self.type_char(char_for(key, mods))
            return
        if key == "space" and not (mods & {"command", "ctrl"}):
            kw = self.key_window()
            fw = kw.focused_widget() if kw is not None else None
            if fw is not None and fw.role in ("AXTextField", "AXTextArea"):
                self.type_char(" ")
                return
        if "command" in mods:
            if key == "space" and mods == {"command"}:
                self.spotlight.toggle()
                return
            if key == "tab":
                self._switch_app(reverse="shift" in mods)
                return
            combo = (mods, key.lower())
            for _title, items in self.menubar_menus():
                for it in items:
                    if it.combo == combo and it.enabled and it.action is not None:
                        it.action()
                        self._touch_all_active()
                        return
        kw = self.key_window()
        if kw is None:
            if self.active is not None and self.active.name == "Finder" and key in ("backspace",) and "command" in mods:
                finder = self.apps["Finder"]
                finder.move_to_trash([self.home / "Desktop" / n for n in self.desktop_selection])
                self.desktop_selection = []
            return
        kw.key(key, mods)
        kw.touch()
        kw.app.touch()

    def type_char(self: "_D", ch: str) -> None:
        self.gen += 1
        kw = self.key_window()
        if kw is None:
            return
        kw.text(ch)
        kw.touch()
        kw.app.touch()

    def _menu_key(self: "_D", key: str) -> None:
        m = self.menu
        assert m is not None
        if key == "esc":
            self.menu = None
            return
        enabled = [i for i, it in enumerate(m.items) if not it.separator and it.enabled]
        if not m.rects:
            m.layout(*self.screen_size)
        if key in ("down", "up") and enabled:
            if m.highlight is None:
                m.highlight = enabled[0] if key == "down" else enabled[-1]
            else:
                cand = [i for i in enabled if (i > m.highlight if key == "down" else i < m.highlight)]
                if cand:
                    m.highlight = cand[0] if key == "down" else cand[-1]
        elif key in ("return", "space") and m.highlight is not None:
            it = m.items[m.highlight]
            self.menu = None
            if it.enabled and it.action is not None:
                it.action()
                self._touch_all_active()
        elif key in ("left", "right") and m.title is not None:
            menus = self.menubar_menus()
            titles = [t for t, _ in menus]
            i = titles.index(m.title) if m.title in titles else 0
            i = (i + (1 if key == "right" else -1)) % len(titles)
            from .menus import OpenMenu

            x0 = self._menubar_layout()[i][1]
            self.menu = OpenMenu(menus[i][1], x0 - 4, MENUBAR_H, titles[i])

    def _switch_app(self: "_D", reverse: bool = False) -> None:
        order: list = []
        for w in reversed(self.windows):
            if w.app not in order and w.app.running:
                order.append(w.app)
        for a in self.apps.values():
            if a.running and a not in order:
                order.append(a)
        if len(order) < 2:
            return
        target = order[-1] if reverse else order[1]
        self.activate(target)
