"""Terminal: windows showing a zsh-like session over the episode's shell. Typing a command and
Return runs it through the backend's confined shell; output scrolls in the window. Up/Down walk
the history, ctrl-c abandons the line, cmd-k clears. AppleScript's ``do script`` runs a command
in a Terminal window the same way."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..menus import MenuItem, sep
from ..theme import Theme, font
from ..widgets import Custom, MouseEvent, Widget
from ..window import Window
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

MAX_LINES = 2000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]")
_CLEAR = re.compile(r"\x1b\[[23]?J")
LINE_H = 16
FONT_SIZE = 12


class TerminalApp(App):
    """Terminal; ``sessions`` keep each window's transcript."""

    name = "Terminal"
    bundle_id = "com.apple.Terminal"

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.history: list[str] = []
        self.cwd_display = "~"

    # ------------------------------------------------------------------ model
    def prompt(self) -> str:
        return f"user@Mac {self.cwd_display} % "

    def run_command(self, win: Window | None, command: str) -> str:
        """Run ``command`` in the shell, append it and its output to ``win``'s transcript; returns the output."""
        backend = self.desktop.backend
        lines = win.state["lines"] if win is not None else None
        if lines is not None:
            lines.append(self.prompt() + command)
        out = ""
        if command.strip():
            self.history.append(command)
            if backend is None:
                out = "zsh: the shell is not available"
            else:
                res = backend.run_shell(command)
                out = "\n".join(p.rstrip("\n") for p in (res.stdout, res.stderr) if p)
                if res.timed_out:
                    out += ("\n" if out else "") + "[command timed out and was killed]"
                self.cwd_display = backend.shell_cwd_display()
        if lines is not None:
            if _CLEAR.search(out):  # `clear` (or any erase-display sequence) empties the window
                del lines[:]
                out = _CLEAR.split(out)[-1]
            out = _ANSI.sub("", out).replace("\r\n", "\n")
            if out:
                lines.extend(line.expandtabs(8) for line in out.split("\n"))
            del lines[:-MAX_LINES]
            win.state["scroll"] = 0
            win.touch()
        self.touch()
        return out

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "history": list(self.history),
                "windows": [{"contents": "\n".join(w.state["lines"] + [self.prompt() + w.state["input"]])}
                            for w in self.windows]}

    def contents(self, win: Window) -> str:
        return "\n".join(win.state["lines"] + [self.prompt() + win.state["input"]])

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        w, h = 700, 440
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "", (x, y, w, h), self._build, title_h=28)
        win.state.update({"lines": ["Last login: " + self.desktop.now.strftime("%a %b %d %H:%M:%S") + " on ttys000"],
                          "input": "", "cursor": 0, "scroll": 0, "hist": None})
        win.title = self._title(win)
        win.focus_key = "terminal:screen"
        self.desktop.show_window(win)
        return win

    def _title(self, win: Window) -> str:
        return f"user — -zsh — {win.w // 8}×{(win.h - 28) // LINE_H}"

    def app_menus(self) -> list:
        return [("Shell", [
            MenuItem("New Window", self.new_window, "cmd+n"),
            sep(),
            MenuItem("Close Window", self._close_front, "cmd+w", enabled=bool(self.windows)),
            MenuItem("Clear to Start", self._clear_front, "cmd+k", enabled=bool(self.windows)),
        ])]

    def _clear_front(self) -> None:
        w = self._front()
        if w is not None:
            w.state["lines"] = []
            w.touch()

    def menus(self) -> list:
        out = super().menus()
        fw = self._front()
        for title, items in out:
            if title == "Edit" and fw is not None:
                for it in items:
                    if it.title == "Paste":
                        it.action = lambda: self._insert(fw, self.desktop.clipboard.text.replace("\n", " "))
                    elif it.title == "Copy":
                        it.action = lambda: self.desktop.clipboard.set_text(self.contents(fw))
                    elif it.title in ("Cut", "Undo", "Redo", "Select All"):
                        it.enabled = False
        return out

    def _insert(self, win: Window, s: str) -> None:
        st = win.state
        st["input"] = st["input"][: st["cursor"]] + s + st["input"][st["cursor"]:]
        st["cursor"] += len(s)
        win.touch()

    def _key(self, win: Window, key: str, mods: frozenset) -> bool:
        st = win.state
        if "ctrl" in mods and key == "c":
            st["lines"].append(self.prompt() + st["input"] + "^C")
            st["input"], st["cursor"], st["hist"] = "", 0, None
            return True
        if "ctrl" in mods and key in ("a", "e"):
            st["cursor"] = 0 if key == "a" else len(st["input"])
            return True
        if "ctrl" in mods and key == "u":
            st["input"], st["cursor"] = st["input"][st["cursor"]:], 0
            return True
        if mods & {"command", "ctrl"}:
            return False
        if key == "return":
            cmd = st["input"]
            st["input"], st["cursor"], st["hist"] = "", 0, None
            self.run_command(win, cmd)
            return True
        if key == "backspace":
            if st["cursor"] > 0:
                st["input"] = st["input"][: st["cursor"] - 1] + st["input"][st["cursor"]:]
                st["cursor"] -= 1
            return True
        if key == "fwddelete":
            st["input"] = st["input"][: st["cursor"]] + st["input"][st["cursor"] + 1:]
            return True
        if key == "left":
            st["cursor"] = max(0, st["cursor"] - 1)
            return True
        if key == "right":
            st["cursor"] = min(len(st["input"]), st["cursor"] + 1)
            return True
        if key in ("up", "down"):
            if not self.history:
                return True
            i = st["hist"]
            if key == "up":
                i = len(self.history) - 1 if i is None else max(0, i - 1)
            else:
                i = None if i is None or i + 1 >= len(self.history) else i + 1
            st["hist"] = i
            st["input"] = self.history[i] if i is not None else ""
            st["cursor"] = len(st["input"])
            return True
        if key == "tab":
            return True  # no completion; keep focus in the terminal
        if key == "space":
            self._insert(win, " ")
            return True
        return False

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        win.title = self._title(win)
        st = win.state

        def paint(d: Any, theme: Theme, rect: tuple) -> None:
            x, y, w, h = rect
            bg = (30, 30, 30) if theme.dark else (255, 255, 255)
            fg = (230, 230, 230) if theme.dark else (20, 20, 20)
            d.rectangle((x, y, x + w, y + h), fill=bg)
            f = font(FONT_SIZE, "mono")
            cols = max(10, (w - 12) // max(1, int(f.getlength("m"))))
            display: list[str] = []
            for line in st["lines"] + [self.prompt() + st["input"]]:
                line = line.expandtabs(8)
                while len(line) > cols:
                    display.append(line[:cols])
                    line = line[cols:]
                display.append(line)
            rows = max(1, (h - 8) // LINE_H)
            end = len(display) - st.get("scroll", 0)
            start = max(0, end - rows)
            for i, line in enumerate(display[start:end]):
                d.text((x + 6, y + 4 + i * LINE_H), line, font=f, fill=fg)
            if st.get("scroll", 0) == 0:
                # block cursor after the prompt
                plen = len(self.prompt()) + st["cursor"]
                cy = min(len(display) - start - 1, rows - 1) - (len(self.prompt() + st["input"]) // cols - plen // cols)
                cx = x + 6 + int(f.getlength("m")) * (plen % cols)
                d.rectangle((cx, y + 4 + cy * LINE_H, cx + int(f.getlength("m")) - 1, y + 4 + cy * LINE_H + LINE_H - 2),
                            fill=(150, 150, 150))

        def on_scroll(dy: int) -> None:
            total = len(st["lines"]) + 1
            st["scroll"] = max(0, min(total - 1, st.get("scroll", 0) + dy))

        def on_key(key: str, mods: frozenset) -> bool:
            return self._key(win, key, mods)

        screen = TerminalScreen("terminal:screen", (0, 28, W, H - 28), paint, on_scroll=on_scroll, on_key=on_key,
                                role="AXTextArea", name="shell", value=self.contents(win), focusable=True)
        screen.app_ref, screen.window_ref = self, win
        return [screen]


class TerminalScreen(Custom):
    """The terminal's text area: printable characters go to the command line."""

    app_ref: TerminalApp
    window_ref: Window

    def text(self, win: Window, s: str) -> bool:
        self.app_ref._insert(win, s)  # noqa: SLF001 - the screen is part of the app
        return True

    def mouse_down(self, win: Window, ev: MouseEvent) -> None:
        win.focus_key = self.key
