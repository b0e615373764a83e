"""The widget toolkit of the simulated desktop.

Widgets are rebuilt from app state whenever a window is laid out (apps describe their windows
declaratively in ``build``); what must survive a rebuild — text being edited with its cursor,
selection and undo history, scroll offsets — lives in the window (``Window.editor``,
``Window.state``) under the widget's stable ``key``. Coordinates are window-local pixels.

Every widget answers hit-testing (``contains``), mouse, keyboard, text, scroll and drop events,
draws itself onto the window's surface, and describes itself for the accessibility tree.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from PIL import ImageDraw

from .icons import icon as load_icon
from .theme import RGB, Draw, Theme, font, text_width

if TYPE_CHECKING:  # pragma: no cover
    from .window import Window

Rect = tuple[int, int, int, int]  # x, y, w, h


def col(theme: Theme, c: Any) -> RGB:
    """Resolve a colour given as RGB or as the name of a Theme attribute ("text", "accent", …)."""
    if isinstance(c, str):
        return getattr(theme, c)
    return c


@dataclass
class MouseEvent:
    """A press in window-local coordinates; ``clicks`` is 2 for the second press of a double click."""

    x: int
    y: int
    button: str = "left"
    clicks: int = 1
    mods: frozenset = frozenset()
    was_focused: bool = True  # whether the widget had keyboard focus before this press


# ----------------------------------------------------------------------------------------- editing


class Editor:
    """Text being edited: content, cursor, selection anchor and undo history.

    ``synced`` is the model value the editor last agreed with; when the model changes behind the
    editor's back (AppleScript, shell) ``sync`` adopts the new value.
    """

    def __init__(self, text: str = "", multiline: bool = False) -> None:
        self.text = text
        self.multiline = multiline
        self.cursor = len(text)
        self.anchor = self.cursor
        self.synced = text
        self.undo_stack: list[tuple[str, int]] = []
        self.redo_stack: list[tuple[str, int]] = []
        self.scroll = 0  # first visible wrapped line (multi-line) / pixel offset (single line)
        self._layout_key: tuple | None = None
        self._layout: list[tuple[int, int]] = []
        # each paragraph's text and its wrapped rows, for the (width, size, weight) they were wrapped at
        self._paragraphs: list[tuple[str, list[tuple[int, int, int]]]] = []
        self._paragraphs_style: tuple | None = None

    def sync(self, value: str) -> None:
        if value != self.synced:
            self.text = value
            self.synced = value
            self.cursor = self.anchor = len(value)
            self.undo_stack.clear()

    @property
    def selection(self) -> tuple[int, int]:
        return (min(self.cursor, self.anchor), max(self.cursor, self.anchor))

    @property
    def selected_text(self) -> str:
        a, b = self.selection
        return self.text[a:b]

    def _push_undo(self) -> None:
        self.undo_stack.append((self.text, self.cursor))
        if len(self.undo_stack) > 200:
            del self.undo_stack[0]
        self.redo_stack.clear()

    def insert(self, s: str) -> None:
        if not self.multiline:
            s = s.replace("\r", " ").replace("\n", " ")
        self._push_undo()
        a, b = self.selection
        self.text = self.text[:a] + s + self.text[b:]
        self.cursor = self.anchor = a + len(s)

    def delete_back(self) -> None:
        a, b = self.selection
        if a == b:
            if a == 0:
                return
            a -= 1
        self._push_undo()
        self.text = self.text[:a] + self.text[b:]
        self.cursor = self.anchor = a

    def delete_forward(self) -> None:
        a, b = self.selection
        if a == b:
            if b >= len(self.text):
                return
            b += 1
        self._push_undo()
        self.text = self.text[:a] + self.text[b:]
        self.cursor = self.anchor = a

    def select_all(self) -> None:
        self.anchor, self.cursor = 0, len(self.text)

    def undo(self) -> bool:
        if not self.undo_stack:
            return False
        self.redo_stack.append((self.text, self.cursor))
        self.text, self.cursor = self.undo_stack.pop()
        self.anchor = self.cursor
        return True

    def redo(self) -> bool:
        if not self.redo_stack:
            return False
        self.undo_stack.append((self.text, self.cursor))
        self.text, self.cursor = self.redo_stack.pop()
        self.anchor = self.cursor
        return True

    def _line_bounds(self, i: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, i) + 1
        end = self.text.find("\n", i)
        return start, (len(self.text) if end < 0 else end)

    def move(self, key: str, extend: bool, mods: frozenset) -> None:
        """Move the cursor for an arrow/home/end key (cmd = line/document ends, alt = words)."""
        a, b = self.selection
        i = self.cursor
        n = len(self.text)
        if key == "left":
            if "command" in mods:
                i = self._line_bounds(i)[0]
            elif "option" in mods:
                m = list(re.finditer(r"\w+", self.text[:i]))
                i = m[-1].start() if m else 0
            elif a != b and not extend:
                i = a
            else:
                i = max(0, i - 1)
        elif key == "right":
            if "command" in mods:
                i = self._line_bounds(i)[1]
            elif "option" in mods:
                m = re.search(r"\w+", self.text[i:])
                i = i + m.end() if m else n
            elif a != b and not extend:
                i = b
            else:
                i = min(n, i + 1)
        elif key in ("home",) or (key == "up" and "command" in mods):
            i = 0 if (self.multiline and key == "up") or not self.multiline else self._line_bounds(i)[0]
        elif key in ("end",) or (key == "down" and "command" in mods):
            i = n if (self.multiline and key == "down") or not self.multiline else self._line_bounds(i)[1]
        elif key in ("up", "down"):
            if not self.multiline:
                i = 0 if key == "up" else n
            else:
                start, end = self._line_bounds(i)
                column = i - start
                if key == "up":
                    if start == 0:
                        i = 0
                    else:
                        ps, pe = self._line_bounds(start - 1)
                        i = min(ps + column, pe)
                else:
                    if end >= n:
                        i = n
                    else:
                        ns, ne = self._line_bounds(end + 1)
                        i = min(ns + column, ne)
        self.cursor = i
        if not extend:
            self.anchor = i

    def select_word_at(self, i: int) -> None:
        for m in re.finditer(r"\w+|\s+|[^\w\s]", self.text):
            if m.start() <= i < m.end() or (i == len(self.text) and m.end() == i):
                self.anchor, self.cursor = m.start(), m.end()
                return
        self.anchor = self.cursor = i

    def wrapped(self, width: int, size: int, weight: str) -> list[tuple[int, int]]:
        """Wrapped display lines as (start, end) offsets into ``text`` (word wrap at ``width`` px).

        Measuring text is the slow part of typing into a long paragraph, so each paragraph's rows are
        kept: unchanged paragraphs reuse theirs, and an edited one keeps the rows the edit cannot move
        (see :func:`_wrap_paragraph`)."""
        key = (self.text, width, size, weight)
        if key == self._layout_key:
            return self._layout
        f = font(size, weight)
        style = (width, size, weight)
        before = self._paragraphs if self._paragraphs_style == style else []
        known = dict(before)
        budget = _MeasureBudget(MEASURED_CHARS_PER_LAYOUT)
        out: list[tuple[int, int]] = []
        paragraphs: list[tuple[str, list[tuple[int, int, int]]]] = []
        pos = 0
        for index, line in enumerate(self.text.split("\n")):
            if not self.multiline:
                rows = [(0, len(line), len(line))]
            elif line in known:
                rows = known[line]
            else:
                rows = _wrap_paragraph(f, line, width, before[index] if index < len(before) else None, budget, size)
            paragraphs.append((line, rows))
            out.extend((pos + start, pos + end) for start, end, _need in rows)
            pos += len(line) + 1
        self._paragraphs, self._paragraphs_style = paragraphs, style
        self._layout_key, self._layout = key, out
        return out


#: Characters of text measured (``getlength``) per layout of an editor's text at most: a few screens of
#: ordinary rows. Beyond them rows are estimated without measuring (see :func:`_wrap_paragraph`), so
#: a paint of a two-million-character line costs about as much as a paint of a long letter.
MEASURED_CHARS_PER_LAYOUT = 120_000


class _MeasureBudget:
    """How many more characters one layout may measure."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def measure(self, f: Any, text: str) -> float:
        self.left -= len(text)
        return f.getlength(text)


def _row_window(width: int, size: int) -> int:
    """At most how many characters fit in ``width`` px at ``size`` pt: no printing glyph is narrower
    than a quarter of the size (a hair-thin run is broken at this many characters instead)."""
    return max(16, int(width / max(1.0, size * 0.25)) + 2)


def _common_prefix_length(a: str, b: str) -> int:
    """``len(os.path.commonprefix([a, b]))`` by comparing slices (C speed on long paragraphs)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:  # a[:lo] == b[:lo] and a[:hi + 1] != b[:hi + 1]
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _wrap_paragraph(f: Any, line: str, width: int,
                    previous: tuple[str, list[tuple[int, int, int]]] | None = None,
                    budget: _MeasureBudget | None = None, size: int = 13) -> list[tuple[int, int, int]]:
    """Rows (start, end, need) of one paragraph word-wrapped at ``width`` px: the longest prefix that
    fits, cut back to its last space. A row depends only on ``line[start:need]`` (the prefix that fits
    and the first character that does not), so rows of ``previous`` whose ``need`` lies inside the
    text both versions share are kept without measuring.

    The work is bounded: a row is looked for among the next :func:`_row_window` characters only (not
    the whole rest of the paragraph), and once ``budget`` is spent the remaining rows are cut without
    measuring, as many characters as the widest letter allows (they never overflow ``width`` for
    Latin text; the page shows them until the layout is redone)."""
    rows: list[tuple[int, int, int]] = []
    start = 0
    if previous is not None:
        old_line, old_rows = previous
        common = _common_prefix_length(old_line, line)
        for row in old_rows:
            if row[2] > common or row[1] >= len(old_line):  # the last row depends on the whole rest
                break
            rows.append(row)
            start = row[1]
    if not line:
        return [(0, 0, 0)]
    budget = budget if budget is not None else _MeasureBudget(MEASURED_CHARS_PER_LAYOUT)
    window = _row_window(width, size)
    estimated = 0
    while start < len(line):
        if budget.left <= 0:
            if not estimated:
                estimated = max(1, int(width // max(1.0, f.getlength("W"))))
            end = need = min(len(line), start + estimated)
            if end < len(line):
                sp = line.rfind(" ", start, end)
                if sp > start:
                    end = sp + 1
            rows.append((start, end, need))
            start = end
            continue
        end = need = min(len(line), start + window)
        if budget.measure(f, line[start:end]) > width:
            lo, hi = start + 1, end
            while lo < hi:  # longest prefix that fits
                mid = (lo + hi + 1) // 2
                if budget.measure(f, line[start:mid]) <= width:
                    lo = mid
                else:
                    hi = mid - 1
            end, need = lo, lo + 1
            sp = line.rfind(" ", start, end)
            if sp > start:
                end = sp + 1
        elif end < len(line):  # a window of hair-thin glyphs that all fit: break it here
            need = end
        rows.append((start, end, need))
        start = end
    return rows


def _index_at_x(text: str, x: float, size: int, weight: str) -> int:
    """Character boundary nearest to ``x`` px from the start of ``text``."""
    f = font(size, weight)
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        if f.getlength(text[: mid + 1]) - f.getlength(text[mid : mid + 1]) / 2 < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ----------------------------------------------------------------------------------------- widgets


class Widget:
    """Base class: a rectangle with an accessibility role; ignores every event."""

    role = "AXGroup"
    focusable = False

    def __init__(self, key: str, rect: Rect, name: str = "", enabled: bool = True) -> None:
        self.key = key
        self.rect = rect
        self.name = name
        self.enabled = enabled
        self.win: "Window | None" = None  # set by the window after layout

    def contains(self, x: int, y: int) -> bool:
        rx, ry, rw, rh = self.rect
        return rx <= x < rx + rw and ry <= y < ry + rh

    # events (window-local coordinates) ------------------------------------------------------
    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        pass

    def mouse_drag(self, win: "Window", x: int, y: int) -> None:
        pass

    def mouse_up(self, win: "Window", x: int, y: int) -> None:
        pass

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        return False

    def text(self, win: "Window", s: str) -> bool:
        return False

    def scroll(self, win: "Window", dy: int) -> bool:
        return False

    def drag_payload(self, win: "Window", x: int, y: int) -> Any:
        """What dragging from (x, y) carries, or None if this widget is not a drag source."""
        return None

    def accepts_drop(self, win: "Window", payload: Any, x: int, y: int) -> bool:
        return False

    def drop(self, win: "Window", payload: Any, x: int, y: int) -> None:
        pass

    # drawing and accessibility --------------------------------------------------------------
    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        pass

    def value(self) -> str | None:
        return None

    def a11y_children(self) -> list[tuple[str, str, str | None, Rect, str]]:
        """(role, name, value, rect, flags) of sub-elements (rows of a list)."""
        return []


class Box(Widget):
    """A filled (optionally rounded / outlined) rectangle: backgrounds, sidebars, separators."""

    role = ""

    def __init__(self, rect: Rect, fill: Any = None, radius: int = 0, outline: Any = None) -> None:
        super().__init__("", rect)
        self.fill, self.radius, self.outline = fill, radius, outline

    def contains(self, x: int, y: int) -> bool:
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        fill = col(theme, self.fill) if self.fill is not None else None
        outline = col(theme, self.outline) if self.outline is not None else None
        if self.radius:
            d.rounded_rectangle((x, y, x + w - 1, y + h - 1), self.radius, fill=fill, outline=outline)
        else:
            d.rectangle((x, y, x + w - 1, y + h - 1), fill=fill, outline=outline)


class Label(Widget):
    """Static text (single line, clipped with an ellipsis, or wrapped when ``wrap``)."""

    role = "AXStaticText"

    def __init__(self, rect: Rect, text: str, size: int = 13, weight: str = "regular", color: Any = "text",
                 align: str = "left", wrap: bool = False, key: str = "") -> None:
        super().__init__(key, rect, text)
        self.size, self.weight, self.color, self.align, self.wrap = size, weight, color, align, wrap

    def contains(self, x: int, y: int) -> bool:
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        f = font(self.size, self.weight)
        c = col(theme, self.color)
        if self.wrap:
            ed = Editor(self.name, multiline=True)
            lh = int(self.size * 1.35)
            for i, (a, b) in enumerate(ed.wrapped(w, self.size, self.weight)):
                if (i + 1) * lh > h:
                    break
                d.text((x, y + i * lh), self.name[a:b].rstrip("\n"), font=f, fill=c)
            return
        s = fit_text(self.name, w, self.size, self.weight)
        tw = text_width(s, self.size, self.weight)
        tx = x if self.align == "left" else (x + (w - tw) // 2 if self.align == "center" else x + w - tw)
        d.text((tx, y + h // 2), s, font=f, fill=c, anchor="lm")

    def value(self) -> str | None:
        return self.name


def fit_text(s: str, width: int, size: int, weight: str = "regular") -> str:
    """``s`` truncated with an ellipsis to fit ``width`` px (only the characters that could fit are
    measured: a label may hold a whole file's text)."""
    window = _row_window(width, size)
    if len(s) > window:
        s = s[:window]
    elif text_width(s, size, weight) <= width:
        return s
    f = font(size, weight)
    lo, hi = 0, len(s)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if f.getlength(s[:mid] + "…") <= width:
            lo = mid
        else:
            hi = mid - 1
    return s[:lo] + "…"


class Icon(Widget):
    """An icon image (apps, folders, documents)."""

    role = "AXImage"

    def __init__(self, rect: Rect, icon_name: str, name: str = "") -> None:
        super().__init__("", rect, name)
        self.icon_name = icon_name

    def contains(self, x: int, y: int) -> bool:
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        im = load_icon(self.icon_name, min(w, h))
        d._image.paste(im, (x, y), im)  # noqa: SLF001


class Button(Widget):
    """Push button (``style`` push/plain/toolbar/link); ``default`` draws it in the accent colour
    and makes Return press it in dialogs; ``cancel`` makes Escape press it."""

    role = "AXButton"

    def __init__(self, key: str, rect: Rect, title: str, on_press: Callable[[], Any] | None = None, *,
                 default: bool = False, cancel: bool = False, style: str = "push", size: int = 13,
                 enabled: bool = True, symbol: str | None = None) -> None:
        super().__init__(key, rect, title, enabled)
        self.on_press, self.default, self.cancel, self.style, self.size = on_press, default, cancel, style, size
        self.symbol = symbol

    def press(self) -> None:
        if self.enabled and self.on_press is not None:
            self.on_press()

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        if ev.button == "left":
            self.press()

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        if key == "space":
            self.press()
            return True
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        label = self.symbol or self.name
        fg = theme.text if self.enabled else theme.secondary_text
        if self.style == "push":
            if self.default and self.enabled:
                d.rounded_rectangle((x, y, x + w - 1, y + h - 1), 6, fill=theme.accent)
                fg = (255, 255, 255)
            else:
                d.rounded_rectangle((x, y, x + w - 1, y + h - 1), 6, fill=theme.control_bg, outline=theme.control_border)
        elif self.style == "toolbar":
            d.rounded_rectangle((x, y, x + w - 1, y + h - 1), 5, fill=theme.control_bg, outline=theme.control_border)
            fg = theme.secondary_text if not self.enabled else theme.text
        elif self.style == "link":
            fg = theme.accent
        f = font(self.size, "bold" if self.style == "toolbar" and self.symbol else "regular")
        d.text((x + w // 2, y + h // 2), fit_text(label, w - 6, self.size), font=f, fill=fg, anchor="mm")


class Checkbox(Widget):
    """Checkbox, switch (``style="switch"``), radio button or Reminders-style completion circle."""

    role = "AXCheckBox"

    def __init__(self, key: str, rect: Rect, label: str, checked: bool, on_toggle: Callable[[bool], Any], *,
                 style: str = "checkbox", color: Any = "accent") -> None:
        super().__init__(key, rect, label)
        self.checked, self.on_toggle, self.style, self.color = checked, on_toggle, style, color
        if style == "radio":
            self.role = "AXRadioButton"

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        if ev.button == "left":
            self.on_toggle(not self.checked)

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        if key == "space":
            self.on_toggle(not self.checked)
            return True
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        cy = y + h // 2
        accent = col(theme, self.color)
        if self.style == "switch":
            sw, sh = 32, 18
            sx = x + w - sw if self.name else x
            d.rounded_rectangle((sx, cy - sh // 2, sx + sw, cy + sh // 2), sh // 2,
                                fill=accent if self.checked else theme.separator)
            kx = sx + sw - sh + 1 if self.checked else sx + 1
            d.ellipse((kx, cy - sh // 2 + 1, kx + sh - 2, cy + sh // 2 - 1), fill=(255, 255, 255))
            if self.name:
                d.text((x, cy), self.name, font=font(13), fill=theme.text, anchor="lm")
            return
        s = 14
        if self.style in ("radio", "circle"):
            s = 16 if self.style == "circle" else 14
            d.ellipse((x, cy - s // 2, x + s, cy + s // 2), outline=accent if self.style == "circle" else theme.control_border,
                      fill=accent if (self.checked and self.style == "radio") else theme.field_bg, width=1 if self.style == "radio" else 2)
            if self.checked:
                if self.style == "radio":
                    d.ellipse((x + 4, cy - 3, x + s - 4, cy + 3), fill=(255, 255, 255))
                else:
                    d.ellipse((x + 3, cy - s // 2 + 3, x + s - 3, cy + s // 2 - 3), fill=accent)
        else:
            d.rounded_rectangle((x, cy - s // 2, x + s, cy + s // 2), 3,
                                fill=accent if self.checked else theme.field_bg, outline=theme.control_border)
            if self.checked:
                d.line((x + 3, cy, x + 6, cy + 3, x + 11, cy - 4), fill=(255, 255, 255), width=2)
        if self.name:
            d.text((x + s + 6, cy), self.name, font=font(13), fill=theme.text, anchor="lm")

    def value(self) -> str | None:
        return "1" if self.checked else "0"


class TextField(Widget):
    """Editable text, single line or multi-line (``editor.multiline``): cursor, selection by
    shift-arrows, click, double-click (word) and drag, clipboard and undo hotkeys.

    ``on_change(text)`` runs after every edit; ``on_commit(text)`` on Return (single line);
    ``on_cancel()`` on Escape.
    """

    role = "AXTextField"
    focusable = True

    def __init__(self, key: str, rect: Rect, editor: Editor, *, on_change: Callable[[str], Any] | None = None,
                 on_commit: Callable[[str], Any] | None = None, on_cancel: Callable[[], Any] | None = None,
                 placeholder: str = "", size: int = 13, weight: str = "regular", bordered: bool = True,
                 name: str = "", secure: bool = False, color: Any = "text", line_height: int | None = None,
                 enabled: bool = True, select_on_focus: bool = False, title_weight: str | None = None) -> None:
        super().__init__(key, rect, name or placeholder, enabled)
        self.editor = editor
        self.on_change, self.on_commit, self.on_cancel = on_change, on_commit, on_cancel
        self.placeholder, self.size, self.weight, self.bordered = placeholder, size, weight, bordered
        self.secure, self.color, self.select_on_focus = secure, color, select_on_focus
        self.title_weight = title_weight  # Notes: the first line (the note's name) is drawn in this weight
        self.line_height = line_height or int(size * 1.45)
        if editor.multiline:
            self.role = "AXTextArea"

    @property
    def _pad(self) -> int:
        return 6 if self.bordered else (12 if self.editor.multiline else 2)

    def _changed(self) -> None:
        self.editor.synced = self.editor.text
        if self.on_change:
            self.on_change(self.editor.text)

    # geometry ----------------------------------------------------------------------------
    def _weight_at(self, line_start: int) -> str:
        """Font weight of the display line starting at ``line_start``."""
        if self.title_weight is None:
            return self.weight
        nl = self.editor.text.find("\n")
        return self.title_weight if nl < 0 or line_start < nl or line_start == 0 else self.weight

    def _visible_lines(self) -> int:
        return max(1, (self.rect[3] - 2 * self._pad) // self.line_height)

    def _layout(self) -> list[tuple[int, int]]:
        return self.editor.wrapped(self.rect[2] - 2 * self._pad, self.size, self.weight)

    def _index_at(self, x: int, y: int) -> int:
        ed = self.editor
        rx, ry, rw, rh = self.rect
        if not ed.multiline:
            return _index_at_x(ed.text, x - rx - self._pad + ed.scroll, self.size, self.weight)
        lines = self._layout()
        row = ed.scroll + max(0, (y - ry - self._pad) // self.line_height)
        if row >= len(lines):
            return len(ed.text)
        a, b = lines[row]
        seg = ed.text[a:b]
        if seg.endswith("\n"):
            seg = seg[:-1]
        return a + min(_index_at_x(seg, x - rx - self._pad, self.size, self._weight_at(a)), len(seg.rstrip(" ")) if b < len(ed.text) and row + 1 < len(lines) and lines[row + 1][0] == b else len(seg))

    def _ensure_visible(self) -> None:
        ed = self.editor
        if ed.multiline:
            lines = self._layout()
            row = _row_of(lines, ed.cursor)
            vis = self._visible_lines()
            if row < ed.scroll:
                ed.scroll = row
            elif row >= ed.scroll + vis:
                ed.scroll = row - vis + 1
        else:
            inner = self.rect[2] - 2 * self._pad
            cx = text_width(ed.text[: ed.cursor], self.size, self.weight)
            if cx - ed.scroll > inner:
                ed.scroll = cx - inner
            elif cx < ed.scroll:
                ed.scroll = cx
            if text_width(ed.text, self.size, self.weight) <= inner:
                ed.scroll = 0

    # events ------------------------------------------------------------------------------
    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        if not self.enabled or ev.button != "left":
            return
        ed = self.editor
        if self.select_on_focus and not ev.was_focused:
            ed.select_all()  # like Safari's address bar: the first click selects the whole URL
            return
        i = self._index_at(ev.x, ev.y)
        if ev.clicks == 2:
            ed.select_word_at(i)
        elif ev.clicks >= 3:
            ed.select_all()
        elif "shift" in ev.mods:
            ed.cursor = i
        else:
            ed.cursor = ed.anchor = i

    def mouse_drag(self, win: "Window", x: int, y: int) -> None:
        self.editor.cursor = self._index_at(x, y)
        self._ensure_visible()

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        ed = self.editor
        if not self.enabled:
            return False
        cmd = "command" in mods
        if cmd and key in ("a", "c", "x", "v", "z"):
            if key == "a":
                ed.select_all()
            elif key == "c":
                if ed.selected_text:
                    win.desktop.clipboard.set_text(ed.selected_text)
            elif key == "x":
                if ed.selected_text:
                    win.desktop.clipboard.set_text(ed.selected_text)
                    ed.delete_back()
                    self._changed()
            elif key == "v":
                t = win.desktop.clipboard.text
                if t:
                    ed.insert(t)
                    self._changed()
            elif key == "z":
                if (ed.redo() if "shift" in mods else ed.undo()):
                    self._changed()
            self._ensure_visible()
            return True
        if key in ("left", "right", "up", "down", "home", "end"):
            if key in ("up", "down") and not ed.multiline and not cmd:
                return False  # lets lists / combo boxes react
            ed.move(key, "shift" in mods, mods)
            self._ensure_visible()
            return True
        if key in ("backspace",):
            if "option" in mods and ed.cursor == ed.anchor:
                ed.move("left", True, frozenset({"option"}))
            elif cmd and ed.cursor == ed.anchor:
                ed.move("left", True, frozenset({"command"}))
            ed.delete_back()
            self._changed()
            self._ensure_visible()
            return True
        if key == "fwddelete":
            ed.delete_forward()
            self._changed()
            return True
        if key in ("enter", "return"):
            if ed.multiline and not cmd:
                ed.insert("\n")
                self._changed()
                self._ensure_visible()
                return True
            if self.on_commit is not None:
                self.on_commit(ed.text)
                return True
            return False
        if key in ("esc", "escape"):
            if self.on_cancel is not None:
                self.on_cancel()
                return True
            return False
        if key == "tab" and ed.multiline and not mods:
            ed.insert("\t")
            self._changed()
            return True
        return False

    def text(self, win: "Window", s: str) -> bool:
        if not self.enabled:
            return False
        self.editor.insert(s)
        self._changed()
        self._ensure_visible()
        return True

    def scroll(self, win: "Window", dy: int) -> bool:
        ed = self.editor
        if not ed.multiline:
            return False
        n = len(self._layout())
        ed.scroll = max(0, min(max(0, n - self._visible_lines()), ed.scroll - dy))
        return True

    # drawing -----------------------------------------------------------------------------
    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        ed = self.editor
        pad = self._pad
        if self.bordered:
            d.rounded_rectangle((x, y, x + w - 1, y + h - 1), 5, fill=theme.field_bg,
                                outline=theme.accent if focused else theme.control_border, width=2 if focused else 1)
        f = font(self.size, self.weight)
        fg = col(theme, self.color)
        text = "•" * len(ed.text) if self.secure else ed.text
        a, b = ed.selection
        if not ed.multiline:
            ty = y + h // 2
            if not text and self.placeholder:
                d.text((x + pad, ty), fit_text(self.placeholder, w - 2 * pad, self.size), font=f,
                       fill=theme.secondary_text, anchor="lm")
            tx = x + pad - ed.scroll
            if a != b and focused:
                sx = tx + text_width(text[:a], self.size, self.weight)
                ex = tx + text_width(text[:b], self.size, self.weight)
                d.rectangle((max(sx, x + pad), ty - self.size * 0.7, min(ex, x + w - pad), ty + self.size * 0.7), fill=theme.selection)
            # clip by drawing into a sub-image when the text overflows
            if text_width(text, self.size, self.weight) > w - 2 * pad:
                from PIL import Image as _Image

                sub = _Image.new("RGB", (w - 2 * pad, h), theme.field_bg if self.bordered else (0, 0, 0))
                if not self.bordered:
                    sub = d._image.crop((x + pad, y, x + w - pad, y + h))  # noqa: SLF001
                sd = Draw(sub)
                if a != b and focused:
                    sx = text_width(text[:a], self.size, self.weight) - ed.scroll
                    ex = text_width(text[:b], self.size, self.weight) - ed.scroll
                    sd.rectangle((sx, h // 2 - self.size * 0.7, ex, h // 2 + self.size * 0.7), fill=theme.selection)
                sd.text((-ed.scroll, h // 2), text, font=f, fill=fg, anchor="lm")
                if focused and a == b:
                    cx = text_width(text[: ed.cursor], self.size, self.weight) - ed.scroll
                    sd.line((cx, h // 2 - self.size * 0.65, cx, h // 2 + self.size * 0.65), fill=fg, width=1)
                d._image.paste(sub, (x + pad, y))  # noqa: SLF001
                return
            d.text((tx, ty), text, font=f, fill=fg, anchor="lm")
            if focused and a == b:
                cx = tx + text_width(text[: ed.cursor], self.size, self.weight)
                d.line((cx, ty - self.size * 0.65, cx, ty + self.size * 0.65), fill=fg, width=1)
            return
        lines = self._layout()
        lh = self.line_height
        vis = self._visible_lines()
        if not text and self.placeholder:
            d.text((x + pad, y + pad), self.placeholder, font=f, fill=theme.secondary_text)
        crow = _row_of(lines, ed.cursor)
        for row in range(ed.scroll, min(len(lines), ed.scroll + vis)):
            la, lb = lines[row]
            ly = y + pad + (row - ed.scroll) * lh
            seg = text[la:lb]
            wt = self._weight_at(la)
            if a != b and focused and a < lb + (1 if lb < len(text) else 0) and b > la:
                sa, sb = max(a, la), min(b, lb)
                sx = x + pad + text_width(seg[: sa - la], self.size, wt)
                ex = x + pad + text_width(seg[: sb - la], self.size, wt) + (4 if b > lb else 0)
                d.rectangle((sx, ly, ex, ly + lh - 1), fill=theme.selection)
            d.text((x + pad, ly + (lh - self.size) // 2 - 1), seg, font=font(self.size, wt), fill=fg)
            if focused and a == b and row == crow:
                cx = x + pad + text_width(seg[: ed.cursor - la], self.size, wt)
                d.line((cx, ly + 1, cx, ly + lh - 2), fill=fg, width=1)

    def value(self) -> str | None:
        return "•" * len(self.editor.text) if self.secure else self.editor.text


def _row_of(lines: list[tuple[int, int]], i: int) -> int:
    """The display row holding offset ``i`` (rows start at strictly increasing offsets: a binary search,
    not a walk over every row of a long text)."""
    row = bisect.bisect_right(lines, i, key=lambda r: r[0]) - 1
    if row >= 0 and i <= lines[row][1]:
        return row
    return max(0, len(lines) - 1)


@dataclass
class Row:
    """One row of a ListView: ``cells`` by column, an optional icon name and style."""

    key: str
    cells: list[str]
    icon: str | None = None
    bold: bool = False
    color: Any = None
    header: bool = False  # a non-selectable section heading
    detail: str = ""  # second line (Notes / Mail style two-line rows)
    badge: str = ""  # right-aligned count
    check: bool | None = None  # Reminders: draw a completion circle
    swatch: Any = None  # colour dot before the text
    unread: bool = False  # Mail: a blue dot in the margin


class ListView(Widget):
    """A list or table with selection (click, cmd-click, shift-click, arrows, cmd-a), activation
    (double click, Return/cmd-down via ``on_activate``), deletion, right-click context menus,
    scrolling, dragging rows out and dropping onto rows."""

    role = "AXList"
    focusable = True

    def __init__(self, key: str, rect: Rect, rows: list[Row], selected: list[str], *, name: str = "",
                 on_select: Callable[[list[str]], Any] | None = None,
                 on_activate: Callable[[str], Any] | None = None,
                 on_return: Callable[[str], Any] | None = None,
                 on_delete: Callable[[list[str]], Any] | None = None,
                 on_context: Callable[[list[str]], list] | None = None,
                 on_check: Callable[[str, bool], Any] | None = None,
                 columns: list[tuple[str, int]] | None = None, row_height: int = 22, multi: bool = False,
                 drag_kind: str | None = None, drop_ok: Callable[[str, Any], bool] | None = None,
                 on_drop: Callable[[str, Any], Any] | None = None, sidebar: bool = False,
                 empty_text: str = "") -> None:
        super().__init__(key, rect, name)
        self.rows, self.selected = rows, list(selected)
        self.on_select, self.on_activate, self.on_return = on_select, on_activate, on_return
        self.on_delete, self.on_context, self.on_check = on_delete, on_context, on_check
        self.columns = columns
        self.row_height = row_height if not any(r.detail for r in rows) else max(row_height, 44)
        self.multi, self.drag_kind, self.drop_ok, self.on_drop = multi, drag_kind, drop_ok, on_drop
        self.sidebar, self.empty_text = sidebar, empty_text
        if columns:
            self.role = "AXTable"

    @property
    def _header_h(self) -> int:
        return 24 if self.columns else 0

    def _scroll(self, win: "Window") -> int:
        return int(win.state.get(self.key + ":scroll", 0))

    def _row_at(self, win: "Window", x: int, y: int) -> int | None:
        rx, ry, rw, rh = self.rect
        top = ry + self._header_h
        if y < top:
            return None
        i = (y - top) // self.row_height + self._scroll(win)
        if 0 <= i < len(self.rows):
            return int(i)
        return None

    def _select(self, keys: list[str]) -> None:
        self.selected = keys
        if self.on_select:
            self.on_select(keys)

    def _selectable(self) -> list[int]:
        return [i for i, r in enumerate(self.rows) if not r.header]

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        i = self._row_at(win, ev.x, ev.y)
        if i is None or self.rows[i].header:
            if ev.button == "left" and i is None and ev.clicks == 1:
                self._select([])
            return
        row = self.rows[i]
        if row.check is not None and self.on_check and ev.button == "left" and ev.x < self.rect[0] + 30:
            self.on_check(row.key, not row.check)
            return
        if ev.button == "right":
            if row.key not in self.selected:
                self._select([row.key])
            if self.on_context:
                items = self.on_context(self.selected)
                if items:
                    win.desktop.open_context_menu(items, win.x + ev.x, win.y + ev.y)
            return
        if ev.clicks >= 2:
            if self.on_activate:
                self.on_activate(row.key)
            return
        if self.multi and "command" in ev.mods:
            sel = [k for k in self.selected if k != row.key] if row.key in self.selected else self.selected + [row.key]
            self._select(sel)
        elif self.multi and "shift" in ev.mods and self.selected:
            keys = [r.key for r in self.rows]
            j = keys.index(self.selected[0]) if self.selected[0] in keys else i
            lo, hi = min(i, j), max(i, j)
            self._select([keys[k] for k in range(lo, hi + 1) if not self.rows[k].header])
        else:
            self._select([row.key])

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        sel_idx = self._selectable()
        if not sel_idx:
            return False
        keys = [r.key for r in self.rows]
        cur = keys.index(self.selected[-1]) if self.selected and self.selected[-1] in keys else None
        if key in ("up", "down") and "command" not in mods:
            if cur is None:
                nxt = sel_idx[0] if key == "down" else sel_idx[-1]
            else:
                cands = [i for i in sel_idx if (i > cur if key == "down" else i < cur)]
                nxt = (cands[0] if key == "down" else cands[-1]) if cands else cur
            self._select([keys[nxt]])
            self._scroll_to(win, nxt)
            return True
        if key == "down" and "command" in mods and self.selected and self.on_activate:
            self.on_activate(self.selected[-1])
            return True
        if key in ("enter", "return") and self.selected:
            if self.on_return:
                self.on_return(self.selected[-1])
                return True
            if self.on_activate:
                self.on_activate(self.selected[-1])
                return True
            return False
        if key in ("backspace", "fwddelete") and self.selected and self.on_delete:
            if self.drag_kind == "files" and "command" not in mods:
                return False  # Finder needs cmd-delete to move to the trash
            self.on_delete(list(self.selected))
            return True
        if key == "a" and "command" in mods and self.multi:
            self._select([keys[i] for i in sel_idx])
            return True
        if key == "space" and self.selected and self.on_check:
            r = self.rows[keys.index(self.selected[-1])]
            if r.check is not None:
                self.on_check(r.key, not r.check)
                return True
        return False

    def _scroll_to(self, win: "Window", i: int) -> None:
        vis = max(1, (self.rect[3] - self._header_h) // self.row_height)
        s = self._scroll(win)
        if i < s:
            win.state[self.key + ":scroll"] = i
        elif i >= s + vis:
            win.state[self.key + ":scroll"] = i - vis + 1

    def scroll(self, win: "Window", dy: int) -> bool:
        vis = max(1, (self.rect[3] - self._header_h) // self.row_height)
        mx = max(0, len(self.rows) - vis)
        win.state[self.key + ":scroll"] = max(0, min(mx, self._scroll(win) - dy))
        return True

    def drag_payload(self, win: "Window", x: int, y: int) -> Any:
        if not self.drag_kind:
            return None
        i = self._row_at(win, x, y)
        if i is None or self.rows[i].header:
            return None
        keys = self.selected if self.rows[i].key in self.selected else [self.rows[i].key]
        return (self.drag_kind, list(keys))

    def accepts_drop(self, win: "Window", payload: Any, x: int, y: int) -> bool:
        i = self._row_at(win, x, y)
        if i is None or self.drop_ok is None:
            return False
        return bool(self.drop_ok(self.rows[i].key, payload))

    def drop(self, win: "Window", payload: Any, x: int, y: int) -> None:
        i = self._row_at(win, x, y)
        if i is not None and self.on_drop is not None:
            self.on_drop(self.rows[i].key, payload)

    def row_rect(self, win: "Window", i: int) -> Rect:
        rx, ry, rw, rh = self.rect
        return (rx, ry + self._header_h + (i - self._scroll(win)) * self.row_height, rw, self.row_height)

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        self._draw(d, theme, focused, self._scroll(self.win) if self.win is not None else 0)

    def _draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool, scroll: int) -> None:
        rx, ry, rw, rh = self.rect
        hh = self._header_h
        if self.columns:
            d.rectangle((rx, ry, rx + rw - 1, ry + hh - 1), fill=theme.content_bg)
            d.line((rx, ry + hh - 1, rx + rw, ry + hh - 1), fill=theme.separator)
            cx = rx + 8
            for title, cw in self.columns:
                d.text((cx, ry + hh // 2), title, font=font(11, "bold"), fill=theme.secondary_text, anchor="lm")
                cx += cw
        if not self.rows and self.empty_text:
            d.text((rx + rw // 2, ry + rh // 2), self.empty_text, font=font(15), fill=theme.secondary_text, anchor="mm")
        vis = max(1, (rh - hh) // self.row_height) + 1
        for i in range(scroll, min(len(self.rows), scroll + vis)):
            r = self.rows[i]
            y0 = ry + hh + (i - scroll) * self.row_height
            if y0 + self.row_height > ry + rh + self.row_height // 2:
                break
            selected = r.key in self.selected and not r.header
            fg = col(theme, r.color) if r.color is not None else theme.text
            if selected:
                fill = theme.accent if focused or not self.sidebar else theme.separator
                if self.sidebar:
                    d.rounded_rectangle((rx + 6, y0 + 1, rx + rw - 7, y0 + self.row_height - 2), 5, fill=fill)
                else:
                    d.rectangle((rx, y0, rx + rw - 1, y0 + self.row_height - 1), fill=fill)
                if focused or not self.sidebar:
                    fg = (255, 255, 255)
            elif self.columns and i % 2 == 1:
                d.rectangle((rx, y0, rx + rw - 1, y0 + self.row_height - 1),
                            fill=(36, 36, 38) if theme.dark else (244, 245, 247))
            if r.header:
                d.text((rx + 12, y0 + self.row_height - 6), r.cells[0], font=font(11, "bold"),
                       fill=theme.secondary_text, anchor="ls")
                continue
            x = rx + (14 if self.sidebar else 8)
            if r.unread:
                cy = y0 + (self.row_height // 2 if not r.detail else 14)
                d.ellipse((rx + 2, cy - 3, rx + 8, cy + 3), fill=(255, 255, 255) if selected else theme.accent)
                x += 4
            if r.check is not None:
                cy = y0 + (self.row_height // 2 if not r.detail else 14)
                c = col(theme, r.color) if r.color is not None else theme.accent
                d.ellipse((x, cy - 8, x + 16, cy + 8), outline=c if r.check else theme.control_border, width=2)
                if r.check:
                    d.ellipse((x + 4, cy - 4, x + 12, cy + 4), fill=c)
                x += 26
                fg = theme.secondary_text if r.check and not selected else (theme.text if not selected else fg)
            if r.swatch is not None:
                cy = y0 + self.row_height // 2
                d.ellipse((x, cy - 9, x + 18, cy + 9), fill=col(theme, r.swatch))
                x += 26
            if r.icon:
                sz = 16 if self.row_height < 30 else 24
                im = load_icon(r.icon, sz)
                d._image.paste(im, (x, y0 + (self.row_height - sz) // 2), im)  # noqa: SLF001
                x += sz + 6
            if self.columns:
                cx = rx + 8
                for ci, (title, cw) in enumerate(self.columns):
                    txt = r.cells[ci] if ci < len(r.cells) else ""
                    tx = x if ci == 0 else cx
                    avail = cw - (tx - cx) - 8
                    d.text((tx, y0 + self.row_height // 2), fit_text(txt, avail, 13), font=font(13),
                           fill=fg if ci == 0 else (fg if selected else theme.secondary_text), anchor="lm")
                    cx += cw
            else:
                weight = "bold" if r.bold else "regular"
                avail = rx + rw - x - 10 - (text_width(r.badge, 12) + 8 if r.badge else 0)
                if r.detail:
                    if len(r.cells) > 1 and r.cells[1]:
                        d.text((rx + rw - 10, y0 + 14), r.cells[1], font=font(11), fill=fg if selected else theme.secondary_text,
                               anchor="rm")
                        avail -= text_width(r.cells[1], 11) + 8
                    d.text((x, y0 + 14), fit_text(r.cells[0], avail, 13, "bold"), font=font(13, "bold"), fill=fg, anchor="lm")
                    d.text((x, y0 + 32), fit_text(r.detail, avail, 12), font=font(12),
                           fill=fg if selected else theme.secondary_text, anchor="lm")
                    if not selected:
                        d.line((x, y0 + self.row_height - 1, rx + rw - 10, y0 + self.row_height - 1), fill=theme.separator)
                else:
                    d.text((x, y0 + self.row_height // 2), fit_text(r.cells[0], avail, 13, weight), font=font(13, weight),
                           fill=fg, anchor="lm")
                    if len(r.cells) > 1 and r.cells[1]:
                        d.text((rx + rw - 10 - (text_width(r.badge, 12) + 8 if r.badge else 0), y0 + self.row_height // 2),
                               r.cells[1], font=font(12), fill=fg if selected else theme.secondary_text, anchor="rm")
                if r.badge:
                    d.text((rx + rw - 12, y0 + self.row_height // 2), r.badge, font=font(12),
                           fill=fg if selected else theme.secondary_text, anchor="rm")

    def a11y_children(self) -> list[tuple[str, str, str | None, Rect, str]]:
        out = []
        for i, r in enumerate(self.rows):
            if r.header:
                continue
            flags = "selected" if r.key in self.selected else ""
            value = " | ".join(c for c in [*r.cells[1:], r.detail] if c) or None
            if r.check is not None:
                flags = (flags + " " if flags else "") + ("checked" if r.check else "unchecked")
            if r.unread:
                flags = (flags + " " if flags else "") + "unread"
            rect = self.row_rect(self.win, i) if self.win is not None else (self.rect[0], self.rect[1], self.rect[2], self.row_height)
            if rect[1] < self.rect[1] + self._header_h or rect[1] + rect[3] > self.rect[1] + self.rect[3]:
                continue  # scrolled out of view
            out.append(("AXRow", r.cells[0], value, rect, flags))
        return out


class PopupButton(Widget):
    """A pop-up menu button: clicking opens a menu of ``options``; choosing calls ``on_choose``."""

    role = "AXPopUpButton"
    focusable = False

    def __init__(self, key: str, rect: Rect, options: list[str], selected: str, on_choose: Callable[[str], Any],
                 name: str = "") -> None:
        super().__init__(key, rect, name)
        self.options, self.selected, self.on_choose = options, selected, on_choose

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        """Open the menu as macOS does: over the button, with the chosen item level with the button
        and its title over the button's title, that item highlighted (sheets included: the position
        comes from the window's on-screen rect, which for a sheet follows its parent)."""
        from .menus import MenuItem, OpenMenu

        items = [MenuItem(o, action=(lambda o=o: self.on_choose(o)), checked=(o == self.selected)) for o in self.options]
        wx, wy, _, _ = win.rect
        bx, by, bw, bh = self.rect
        chosen = self.options.index(self.selected) if self.selected in self.options else 0
        probe = OpenMenu(items, 0, 0)
        # item titles start 24 px into the menu, the button's title 8 px into the button
        x = wx + bx + 8 - 24
        y = wy + by + (bh - OpenMenu.ITEM_H) // 2 - probe.item_top(chosen)
        win.desktop.open_context_menu(items, x, y, min_width=bw + 16)
        menu = win.desktop.menu
        if menu is not None:
            menu.popup = True
            menu.highlight = chosen if self.options else None

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        d.rounded_rectangle((x, y, x + w - 1, y + h - 1), 5, fill=theme.control_bg, outline=theme.control_border)
        d.text((x + 8, y + h // 2), fit_text(self.selected, w - 30, 13), font=font(13), fill=theme.text, anchor="lm")
        ax = x + w - 14
        d.polygon([(ax - 4, y + h // 2 - 2), (ax + 4, y + h // 2 - 2), (ax, y + h // 2 + 3)], fill=theme.text)

    def value(self) -> str | None:
        return self.selected


class Slider(Widget):
    """A horizontal slider over [0, 1]; click or drag sets the value, arrows step by 1/16."""

    role = "AXSlider"
    focusable = True

    def __init__(self, key: str, rect: Rect, value: float, on_change: Callable[[float], Any], name: str = "") -> None:
        super().__init__(key, rect, name)
        self.val, self.on_change = value, on_change

    def _set_from_x(self, x: int) -> None:
        rx, _, rw, _ = self.rect
        v = min(1.0, max(0.0, (x - rx - 8) / max(1, rw - 16)))
        self.val = v
        self.on_change(v)

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        self._set_from_x(ev.x)

    def mouse_drag(self, win: "Window", x: int, y: int) -> None:
        self._set_from_x(x)

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        if key in ("left", "right", "up", "down"):
            step = 1 / 16 if key in ("right", "up") else -1 / 16
            self.val = min(1.0, max(0.0, self.val + step))
            self.on_change(self.val)
            return True
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        cy = y + h // 2
        d.rounded_rectangle((x + 8, cy - 2, x + w - 8, cy + 2), 2, fill=theme.separator)
        kx = x + 8 + int(self.val * (w - 16))
        d.rounded_rectangle((x + 8, cy - 2, kx, cy + 2), 2, fill=theme.accent)
        d.ellipse((kx - 8, cy - 8, kx + 8, cy + 8), fill=(255, 255, 255), outline=theme.control_border)

    def value(self) -> str | None:
        return f"{self.val:.2f}"


class Segmented(Widget):
    """A segmented control (tabs such as Day / Week, or the Clock app's sections)."""

    role = "AXTabGroup"

    def __init__(self, key: str, rect: Rect, options: list[str], selected: str, on_choose: Callable[[str], Any],
                 name: str = "") -> None:
        super().__init__(key, rect, name)
        self.options, self.selected, self.on_choose = options, selected, on_choose

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        x, y, w, h = self.rect
        i = int((ev.x - x) * len(self.options) // max(1, w))
        if 0 <= i < len(self.options):
            self.on_choose(self.options[i])

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        x, y, w, h = self.rect
        d.rounded_rectangle((x, y, x + w - 1, y + h - 1), 6, fill=theme.separator)
        sw = w / len(self.options)
        for i, o in enumerate(self.options):
            sx = x + int(i * sw)
            if o == self.selected:
                d.rounded_rectangle((sx + 2, y + 2, x + int((i + 1) * sw) - 3, y + h - 3), 5, fill=theme.control_bg)
            d.text((sx + sw / 2, y + h // 2), o, font=font(12), fill=theme.text, anchor="mm")

    def value(self) -> str | None:
        return self.selected

    def a11y_children(self) -> list[tuple[str, str, str | None, Rect, str]]:
        x, y, w, h = self.rect
        sw = w // len(self.options)
        return [("AXRadioButton", o, None, (x + i * sw, y, sw, h), "selected" if o == self.selected else "")
                for i, o in enumerate(self.options)]


class Custom(Widget):
    """A widget with its own painter and click handler (calendar grids, web pages, colour swatches)."""

    def __init__(self, key: str, rect: Rect, painter: Callable[[ImageDraw.ImageDraw, Theme, Rect], Any], *,
                 on_click: Callable[["Window", MouseEvent], Any] | None = None, role: str = "AXGroup",
                 name: str = "", value: str | None = None, on_scroll: Callable[[int], Any] | None = None,
                 children: list[tuple[str, str, str | None, Rect, str]] | None = None,
                 on_key: Callable[[str, frozenset], bool] | None = None, focusable: bool = False) -> None:
        super().__init__(key, rect, name)
        self.painter, self.on_click, self.role, self._value = painter, on_click, role, value
        self.on_scroll, self._children, self.on_key = on_scroll, children or [], on_key
        self.focusable = focusable

    def mouse_down(self, win: "Window", ev: MouseEvent) -> None:
        if self.on_click:
            self.on_click(win, ev)

    def key_event(self, win: "Window", key: str, mods: frozenset) -> bool:
        return bool(self.on_key and self.on_key(key, mods))

    def scroll(self, win: "Window", dy: int) -> bool:
        if self.on_scroll:
            self.on_scroll(dy)
            return True
        return False

    def draw(self, d: ImageDraw.ImageDraw, theme: Theme, focused: bool) -> None:
        self.painter(d, theme, self.rect)

    def value(self) -> str | None:
        return self._value

    def a11y_children(self) -> list[tuple[str, str, str | None, Rect, str]]:
        return self._children
