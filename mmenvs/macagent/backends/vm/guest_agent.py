"""The input agent that runs *inside* the guest: pyautogui-style input through pynput.

The VM backend copies this file into the guest over SFTP and starts it with ``python3`` over SSH; it
then sends one JSON request per line on the agent's stdin and reads one JSON reply per line::

    {"op": "click", "x": 10, "y": 20, "button": "left", "clicks": 2}   ->   {"ok": true}
    {"op": "windows"}                                                  ->   {"ok": true, "result": [...]}
    a failure                                                          ->   {"ok": false, "error": "..."}

It imports pynput (and python-xlib on X11) only in :func:`main`, so the host can import this module for
the key table (:data:`KEYS`) without a display. Key names are pyautogui's.
"""

from __future__ import annotations

import json
import sys
import time

#: pyautogui key name -> pynput ``Key`` attribute (single characters are typed as themselves).
KEYS = {
    "enter": "enter", "return": "enter", "esc": "esc", "escape": "esc", "tab": "tab", "backspace": "backspace",
    "delete": "delete", "del": "delete", "space": "space", "up": "up", "down": "down", "left": "left",
    "right": "right", "home": "home", "end": "end", "pageup": "page_up", "pgup": "page_up",
    "pagedown": "page_down", "pgdn": "page_down", "shift": "shift", "shiftleft": "shift", "shiftright": "shift_r",
    "ctrl": "ctrl", "control": "ctrl", "ctrlleft": "ctrl", "ctrlright": "ctrl_r", "alt": "alt", "altleft": "alt",
    "altright": "alt_r", "option": "alt", "optionleft": "alt", "optionright": "alt_r", "command": "cmd",
    "cmd": "cmd", "win": "cmd", "winleft": "cmd", "winright": "cmd_r", "super": "cmd", "capslock": "caps_lock",
    "insert": "insert", "printscreen": "print_screen", "prtsc": "print_screen", "menu": "menu",
    "volumeup": "media_volume_up", "volumedown": "media_volume_down", "volumemute": "media_volume_mute",
    **{f"f{n}": f"f{n}" for n in range(1, 21)},
}
BUTTONS = ("left", "right", "middle")


def known_key(name: str) -> bool:
    """Whether ``name`` is a key the agent can press: a pyautogui key name or one character."""
    return isinstance(name, str) and (len(name) == 1 or name.lower() in KEYS)


class Agent:
    def __init__(self) -> None:
        from pynput import keyboard, mouse

        self.keyboard_mod, self.mouse_mod = keyboard, mouse
        self.kb = keyboard.Controller()
        self.mouse = mouse.Controller()
        self.display = None
        try:
            from Xlib import display as xdisplay  # X11 guests: flush events, list windows

            self.display = xdisplay.Display()
        except Exception:  # noqa: BLE001 - macOS guests have no Xlib
            self.display = None

    def key(self, name: str):
        if len(name) == 1:
            return name
        attr = KEYS.get(name.lower())
        if attr is None or not hasattr(self.keyboard_mod.Key, attr):
            raise ValueError(f"unknown key name {name!r}")
        return getattr(self.keyboard_mod.Key, attr)

    # On X11, keys go through XTest (real key events) rather than pynput's XSendEvent for characters,
    # which xterm and other clients ignore as synthetic; pynput's Key table gives the keysyms.
    def _keysym(self, key) -> int:
        if isinstance(key, str):
            code = ord(key)
            return code if code < 0x100 else 0x01000000 | code
        return int(key.value.vk)

    def _keycode(self, keysym: int) -> tuple[int, bool]:
        d = self.display
        keycode = d.keysym_to_keycode(keysym)
        if keycode:
            return keycode, d.keycode_to_keysym(keycode, 0) != keysym and d.keycode_to_keysym(keycode, 1) == keysym
        borrowed = self.__dict__.setdefault("_borrowed", {})
        if keysym not in borrowed:  # a character the keymap lacks: map it onto a spare keycode
            first, count = d.display.info.min_keycode, d.display.info.max_keycode - d.display.info.min_keycode + 1
            mapping = d.get_keyboard_mapping(first, count)
            spare = [first + i for i, syms in enumerate(mapping) if not any(syms) and first + i not in borrowed.values()]
            if not spare:
                raise ValueError(f"no spare keycode to type {chr(keysym & 0xFFFFFF)!r}")
            d.change_keyboard_mapping(spare[-1], [(keysym, keysym)])
            d.sync()
            borrowed[keysym] = spare[-1]
        return borrowed[keysym], False

    def _x_key(self, key, down: bool) -> None:
        from Xlib import X
        from Xlib.ext import xtest

        keycode, shift = self._keycode(self._keysym(key))
        shift_code = self.display.keysym_to_keycode(0xFFE1)  # Shift_L
        if down:
            if shift:
                xtest.fake_input(self.display, X.KeyPress, shift_code)
            xtest.fake_input(self.display, X.KeyPress, keycode)
        else:
            xtest.fake_input(self.display, X.KeyRelease, keycode)
            if shift:
                xtest.fake_input(self.display, X.KeyRelease, shift_code)
        self.display.sync()

    def key_press(self, key) -> None:
        if self.display is not None:
            self._x_key(key, True)
        else:
            self.kb.press(key)

    def key_release(self, key) -> None:
        if self.display is not None:
            self._x_key(key, False)
        else:
            self.kb.release(key)

    def tap(self, key) -> None:
        self.key_press(key)
        self.key_release(key)

    def button(self, name: str):
        if name not in BUTTONS:
            raise ValueError(f"unknown mouse button {name!r}")
        return getattr(self.mouse_mod.Button, name)

    def sync(self) -> None:
        if self.display is not None:
            self.display.sync()

    def handle(self, req: dict):
        op = req.get("op")
        if op == "ping":
            return "pong"
        if op == "move":
            self.mouse.position = (int(req["x"]), int(req["y"]))
        elif op == "down":
            self.mouse.press(self.button(req.get("button", "left")))
        elif op == "up":
            self.mouse.release(self.button(req.get("button", "left")))
        elif op == "click":
            self.mouse.position = (int(req["x"]), int(req["y"]))
            self.mouse.click(self.button(req.get("button", "left")), int(req.get("clicks", 1)))
        elif op == "drag":
            button = self.button(req.get("button", "left"))
            sx, sy = self.mouse.position
            x, y = int(req["x"]), int(req["y"])
            self.mouse.press(button)
            for t in (0.25, 0.5, 0.75, 1.0):  # a real path, so drag thresholds and hover targets see it
                self.mouse.position = (int(sx + (x - sx) * t), int(sy + (y - sy) * t))
                self.sync()
                time.sleep(0.01)
            self.mouse.release(button)
        elif op == "scroll":
            if req.get("x") is not None and req.get("y") is not None:
                self.mouse.position = (int(req["x"]), int(req["y"]))
            self.mouse.scroll(0, int(req["amount"]))
        elif op == "key_down":
            self.key_press(self.key(req["key"]))
        elif op == "key_up":
            self.key_release(self.key(req["key"]))
        elif op == "press":
            self.tap(self.key(req["key"]))
        elif op == "hotkey":
            keys = [self.key(k) for k in req["keys"]]
            pressed = []
            try:
                for key in keys:
                    self.key_press(key)
                    pressed.append(key)
            finally:
                for key in reversed(pressed):
                    self.key_release(key)
        elif op == "type":
            for ch in str(req["text"]):
                if ch in "\r\n":
                    self.tap(self.keyboard_mod.Key.enter)
                elif ch == "\t":
                    self.tap(self.keyboard_mod.Key.tab)
                elif self.display is not None:
                    self.tap(ch)
                else:
                    self.kb.type(ch)
        elif op == "position":
            return list(self.mouse.position)
        elif op == "windows":
            return self.windows()
        else:
            raise ValueError(f"unknown op {op!r}")
        self.sync()
        return None

    def windows(self) -> list:
        """Top-level mapped windows front-most first: [title, x, y, w, h] (X11 only; [] elsewhere)."""
        if self.display is None:
            return []
        from Xlib import X

        root = self.display.screen().root
        found = []
        for win in root.query_tree().children:
            try:
                attrs = win.get_attributes()
                if attrs.map_state != X.IsViewable:
                    continue
                geo = win.get_geometry()
                title = win.get_wm_name()
                if title is None:
                    for child in win.query_tree().children:  # a reparenting manager's frame holds the client
                        title = child.get_wm_name()
                        if title:
                            break
                pos = win.translate_coords(root, 0, 0)
                found.append([str(title or ""), -pos.x, -pos.y, geo.width, geo.height])
            except Exception:  # noqa: BLE001 - a window that vanished meanwhile
                continue
        found.reverse()  # query_tree lists bottom-most first
        return found


def main() -> None:
    agent = Agent()
    out = sys.stdout
    out.write(json.dumps({"ok": True, "result": "ready"}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            req = json.loads(line)
            reply = {"ok": True, "result": agent.handle(req)}
        except Exception as exc:  # noqa: BLE001 - every failure is an answer
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
