"""Key names as pyautogui spells them, mapped to the sim's canonical names."""

from __future__ import annotations

import string

MODIFIERS: dict[str, str] = {
    "command": "command", "cmd": "command", "win": "command", "winleft": "command", "winright": "command",
    "shift": "shift", "shiftleft": "shift", "shiftright": "shift",
    "option": "option", "optionleft": "option", "optionright": "option", "alt": "option", "altleft": "option",
    "altright": "option",
    "ctrl": "ctrl", "ctrlleft": "ctrl", "ctrlright": "ctrl", "control": "ctrl",
    "fn": "fn",
}

# Named (non-character) keys → canonical name. macOS' "delete" key is backspace; "del" is forward delete.
NAMED: dict[str, str] = {
    "enter": "return", "return": "return", "\n": "return", "\r": "return",
    "esc": "esc", "escape": "esc",
    "tab": "tab", "\t": "tab",
    "space": "space", " ": "space",
    "backspace": "backspace", "delete": "backspace", "\b": "backspace",
    "del": "fwddelete", "forwarddelete": "fwddelete",
    "up": "up", "down": "down", "left": "left", "right": "right",
    "home": "home", "end": "end", "pageup": "pageup", "pagedown": "pagedown", "pgup": "pageup", "pgdn": "pagedown",
    "capslock": "capslock", "numlock": "numlock", "scrolllock": "scrolllock", "insert": "insert",
    "printscreen": "printscreen", "prtsc": "printscreen", "prtscr": "printscreen", "prntscrn": "printscreen",
    "print": "printscreen", "pause": "pause", "clear": "clear", "help": "help", "select": "select",
    "execute": "execute", "apps": "apps", "sleep": "sleep",
    "volumeup": "volumeup", "volumedown": "volumedown", "volumemute": "volumemute",
    "playpause": "playpause", "nexttrack": "nexttrack", "prevtrack": "prevtrack", "stop": "stop",
    "browserback": "browserback", "browserforward": "browserforward", "browserrefresh": "browserrefresh",
    "browserhome": "browserhome", "browsersearch": "browsersearch", "browserstop": "browserstop",
    "browserfavorites": "browserfavorites", "launchmail": "launchmail", "launchapp1": "launchapp1",
    "launchapp2": "launchapp2", "launchmediaselect": "launchmediaselect",
}
NAMED.update({f"f{i}": f"f{i}" for i in range(1, 25)})
NAMED.update({f"num{i}": str(i) for i in range(10)})

CHARS = set(string.ascii_lowercase + string.digits + "`-=[]\\;',./" + '~!@#$%^&*()_+{}|:"<>?' + string.ascii_uppercase)

_SHIFTED = dict(zip("`1234567890-=[]\\;',./", '~!@#$%^&*()_+{}|:"<>?'))


def canonical(key: str) -> tuple[str, str]:
    """(kind, name) for a pyautogui key name: kind is "modifier", "named" or "char".

    Raises ``KeyError`` with the offending name when the key does not exist.
    """
    if not isinstance(key, str) or not key:
        raise KeyError(key)
    k = key if len(key) == 1 else key.lower()
    if k in MODIFIERS:
        return "modifier", MODIFIERS[k]
    if k in NAMED:
        return "named", NAMED[k]
    if len(k) == 1 and (k in CHARS or k.isprintable()):
        return "char", k
    raise KeyError(key)


def char_for(ch: str, mods: frozenset) -> str:
    """The character a key produces with shift held (US layout)."""
    if "shift" in mods:
        if ch.isalpha():
            return ch.upper()
        return _SHIFTED.get(ch, ch)
    return ch


def base_key(ch: str) -> tuple[str, bool]:
    """The unshifted key for a typed character and whether shift is needed ("A" → ("a", True))."""
    if ch.isalpha() and ch.isupper() and ch.lower() != ch:
        return ch.lower(), True
    for k, v in _SHIFTED.items():
        if v == ch:
            return k, True
    return ch, False
