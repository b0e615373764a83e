"""Windows and sheets: title bar with traffic lights, widget layout from the app's builder,
keyboard focus, per-window UI state, a cached rendered surface, and accessibility lines."""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from PIL import Image, ImageDraw

from . import composite, display_list
from .theme import Draw, Theme, font
from .widgets import Button, Editor, MouseEvent, Rect, TextField, Widget, fit_text

if TYPE_CHECKING:  # pragma: no cover
    from .apps.base import App
    from .desktop import Desktop

Builder = Callable[["Window"], list[Widget]]

_TRAFFIC = ((255, 95, 87), (254, 188, 46), (40, 200, 64))


@functools.lru_cache(maxsize=64)
def rounded_mask(w: int, h: int, r: int) -> Image.Image:
    """An L mask of a w×h rounded rectangle (cached per size)."""
    m = Image.new("L", (w, h), 0)
    ImageDraw.Draw(m).rounded_rectangle((0, 0, w - 1, h - 1), r, fill=255)
    return m


class _SmallSurfaces:
    """Downscaled window surfaces by the display list that drew them, shared by every window of the
    process: a window whose drawing makes the same calls as one drawn before (the Finder window every
    episode starts with, an app opened again from the Dock, a row selected again) gets those pixels
    without rasterising (the calls on the same background give the same pixels: see ``display_list``).
    Bounded by the surfaces' bytes (~50 KB each at 128x128) and by the recorded calls the keys hold (a
    few hundred bytes each), least recently used out: within 4 MB (tests/test_macagent_cache_bounds.py). In a random menu run about a
    quarter of the redraws that differ from a window's last drawing are found here."""

    MAX_ENTRIES = 128
    MAX_BYTES = 3 << 20
    MAX_OPS = 3000

    def __init__(self) -> None:
        self.items: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.ops = 0
        self.nbytes = 0

    @staticmethod
    def key(ops: list[tuple], scaling: tuple, size: tuple[int, int], background: Any) -> tuple | None:
        key = (tuple(ops), scaling, size, background)
        try:
            hash(key)
        except TypeError:  # an unhashable argument: not cached
            return None
        return key

    def get(self, key: tuple) -> np.ndarray | None:
        small = self.items.get(key)
        if small is not None:
            self.items.move_to_end(key)
        return small

    def put(self, key: tuple, small: np.ndarray) -> None:
        if key in self.items:
            self.items.move_to_end(key)
            return
        self.items[key] = small
        self.ops += len(key[0])
        self.nbytes += small.nbytes
        while self.items and (len(self.items) > self.MAX_ENTRIES or self.ops > self.MAX_OPS or self.nbytes > self.MAX_BYTES):
            old, dropped = self.items.popitem(last=False)
            self.ops -= len(old[0])
            self.nbytes -= dropped.nbytes

    def clear(self) -> None:
        self.items.clear()
        self.ops = self.nbytes = 0


SMALL_SURFACES = _SmallSurfaces()


class Window:
    """A top-level window (or, with ``parent``, a sheet attached to one)."""

    def __init__(self, app: "App", title: str, rect: Rect, builder: Builder, *, title_h: int = 28,
                 parent: "Window | None" = None, kind: str = "window", min_size: tuple[int, int] = (480, 300),
                 signature: Callable[[], Any] | None = None, doc: Any = None) -> None:
        self.id = app.desktop.next_window_id()  # per desktop: the same episode gives the same ids
        self.app = app
        self.title = title
        self.x, self.y, self.w, self.h = rect
        self.builder = builder
        self.title_h = 0 if parent is not None else title_h
        self.parent = parent
        self.kind = kind  # window | sheet | alert
        self.min_size = min_size
        self.signature = signature  # extra cache key (e.g. a folder listing) for state outside the app
        self.doc = doc  # the document / object the window shows (TextEdit document, Mail draft, …)
        self.sheet: Window | None = None
        self.state: dict[str, Any] = {}
        self.editors: dict[str, Editor] = {}
        self.focus_key: str | None = None
        self.widgets: list[Widget] = []
        self.version = 0
        self.minimized = False
        self.zoomed_from: Rect | None = None
        self._layout_key: tuple | None = None
        self._surface_key: tuple | None = None
        self._surface_arr: np.ndarray | None = None
        self._small_key: tuple | None = None  # render_scaled's cache: key and the downscaled pixels
        self._small_arr: np.ndarray | None = None
        self._list_key: tuple | None = None  # the display list (and scaling) _small_arr was drawn from
        self._a11y_key: tuple | None = None  # a11y_lines's cache: what they were made from, and the lines
        self._a11y_lines: list[str] = []
        self.small_serial = 0
        self.surface_serial = 0  # bumps on every re-render (compositing caches key on it)

    def release(self) -> None:
        """Forget the rendered surface and widgets (their closures reference the app)."""
        self._surface_arr = self._small_arr = None
        self._list_key = self._a11y_key = None
        self._a11y_lines = []
        self.widgets = []
        self._layout_key = self._surface_key = self._small_key = None
        if self.sheet is not None:
            self.sheet.release()

    # ------------------------------------------------------------------------------ helpers
    @property
    def desktop(self) -> "Desktop":
        return self.app.desktop

    @property
    def rect(self) -> Rect:
        if self.parent is not None:
            p = self.parent
            return (p.x + (p.w - self.w) // 2, p.y + p.title_h, self.w, self.h)
        return (self.x, self.y, self.w, self.h)

    def touch(self) -> None:
        self.version += 1

    def editor(self, key: str, value: str | None = None, multiline: bool = False, initial: str = "") -> Editor:
        """The persistent editor for text field ``key``. With ``value`` (a model-bound field) the
        editor adopts the model's value when it changed elsewhere; without, it keeps its own text
        (dialog fields, created with ``initial``)."""
        ed = self.editors.get(key)
        if ed is None:
            ed = self.editors[key] = Editor(value if value is not None else initial, multiline)
        elif value is not None:
            ed.sync(value)
        return ed

    def focus(self, key: str | None) -> None:
        self.focus_key = key
        self.touch()

    def signature_value(self) -> Any:
        return self.signature() if self.signature is not None else None

    def layout(self) -> list[Widget]:
        """(Re)build the widgets when app state, window state or size changed."""
        sig = self.signature_value()
        key = (self.app.version, self.version, self.w, self.h, sig)
        if key != self._layout_key:
            self.widgets = self.builder(self)
            for wd in self.widgets:
                wd.win = self
            # a builder may size its window to the content (Spotlight): key on the size it chose
            self._layout_key = (self.app.version, self.version, self.w, self.h, sig)
        return self.widgets

    def focused_widget(self) -> Widget | None:
        if self.focus_key is None:
            return None
        for wd in self.layout():
            if wd.key == self.focus_key and wd.focusable:
                return wd
        return None

    def focusables(self) -> list[Widget]:
        return [wd for wd in self.layout() if wd.focusable and wd.enabled]

    def widget_at(self, lx: int, ly: int) -> Widget | None:
        for wd in reversed(self.layout()):
            if wd.contains(lx, ly):
                return wd
        return None

    def find(self, key: str) -> Widget | None:
        for wd in self.layout():
            if wd.key == key:
                return wd
        return None

    # ------------------------------------------------------------------------------ events
    def traffic_light_at(self, lx: int, ly: int) -> str | None:
        if self.parent is not None or not (4 <= ly <= 22):
            return None
        for i, name in enumerate(("close", "minimize", "zoom")):
            cx = 18 + i * 20
            if abs(lx - cx) <= 7:
                return name
        return None

    def mouse_down(self, lx: int, ly: int, button: str, clicks: int, mods: frozenset) -> Widget | None:
        wd = self.widget_at(lx, ly)
        if wd is None:
            return None
        was_focused = self.focus_key == wd.key and self.desktop.key_window() is self
        if wd.focusable and wd.enabled:
            self.focus_key = wd.key
        wd.mouse_down(self, MouseEvent(lx, ly, button, clicks, mods, was_focused))
        return wd

    def key(self, key: str, mods: frozenset) -> bool:
        """Deliver a key press: the focused widget first, then Tab / Return / Escape behaviour."""
        fw = self.focused_widget()
        if fw is not None and fw.key_event(self, key, mods):
            return True
        if key == "tab" and not (mods - {"shift"}):
            items = self.focusables()
            if items:
                keys = [w.key for w in items]
                i = keys.index(self.focus_key) if self.focus_key in keys else -1
                i = (i - 1) % len(keys) if "shift" in mods else (i + 1) % len(keys)
                self.focus_key = keys[i]
                return True
            return False
        if key in ("return", "esc") and not mods:
            for wd in self.layout():
                if isinstance(wd, Button) and wd.enabled and ((key == "return" and wd.default) or (key == "esc" and wd.cancel)):
                    wd.press()
                    return True
        return False

    def text(self, s: str) -> bool:
        fw = self.focused_widget()
        if fw is not None:
            return fw.text(self, s)
        return False

    # ------------------------------------------------------------------------------ drawing
    def _surface_state(self, theme: Theme, active: bool) -> tuple[list[Widget], tuple]:
        """The widgets and the key of what the window's pixels show now."""
        widgets = self.layout()
        key = (self._layout_key, theme.key, active, self.title, self.focus_key,
               tuple(e.cursor for e in self.editors.values()), tuple(e.anchor for e in self.editors.values()),
               tuple(e.scroll for e in self.editors.values()), tuple(sorted((k, repr(v)) for k, v in self.state.items())))
        return widgets, key

    def render(self, theme: Theme, active: bool) -> np.ndarray:
        """The window's pixels (cached until app state, window state, theme or focus change)."""
        widgets, key = self._surface_state(theme, active)
        if key == self._surface_key and self._surface_arr is not None:
            return self._surface_arr
        with composite.canvas((self.w, self.h), theme.window_bg) as (img, rgbx):
            self._draw(img, widgets, theme, active)
            # the window's own buffer is rewritten in place: compositing copies from it, never keeps it
            self._surface_arr = composite.rgb_from_rgbx(rgbx, self._surface_arr)
        self._surface_key = key
        self.surface_serial += 1
        return self._surface_arr

    def render_scaled(self, theme: Theme, active: bool, size: tuple[int, int], k: int,
                      phase: tuple[int, int] = (0, 0)) -> np.ndarray:
        """The window's pixels averaged over k×k blocks into ``size`` (w, h), for a desktop composing at
        1/k (``phase``: see ``composite.block_resize``); cached per version like :meth:`render` (``small_serial`` counts new ones). The full-size
        surface is not kept (drawn again only when a full-size frame is asked for), unless it is already
        up to date."""
        widgets, key = self._surface_state(theme, active)
        key = (key, tuple(size), k, tuple(phase))
        if key == self._small_key and self._small_arr is not None:
            return self._small_arr
        if key[0] == self._surface_key and self._surface_arr is not None:
            small = composite.block_resize(self._surface_arr, size, k, phase)
            self._list_key = None  # these pixels come from the full surface (cv2), not from a display list
        else:
            small = self._draw_scaled(widgets, theme, active, key[1:])
            if small is self._small_arr:  # the same drawing as last time: the same pixels, nothing to recompose
                self._small_key = key
                return small
        small.flags.writeable = False
        self._small_key, self._small_arr = key, small
        self.small_serial += 1
        return small

    def _draw_scaled(self, widgets: list[Widget], theme: Theme, active: bool, scaling: tuple) -> np.ndarray:
        """The window drawn and reduced by ``scaling`` (size, k, phase). The drawing is first recorded as a
        display list: when it makes the same calls as the one that made the current small surface, that
        surface is returned as it is (no pixels drawn); otherwise the list is replayed onto the canvas."""
        size, k, phase = scaling
        if display_list.enabled:
            recorder = display_list.DrawRecorder((self.w, self.h))
            try:
                self._paint(recorder, widgets, theme, active)
            except display_list.Unrecordable:
                self._list_key = None
            else:
                list_key = (recorder.ops, scaling, self.w, self.h, theme.window_bg)
                previous, self._list_key = self._list_key, list_key
                same_scaling = previous is not None and previous[1:] == list_key[1:] and self._small_arr is not None
                if same_scaling and previous[0] == recorder.ops:
                    return self._small_arr
                shared = SMALL_SURFACES.key(recorder.ops, scaling, (self.w, self.h), theme.window_bg)
                small = SMALL_SURFACES.get(shared) if shared is not None else None
                if small is not None:  # drawn before, by this window or another: the same pixels
                    return small
                small = self._replay_scaled(recorder, theme, scaling, previous[0] if same_scaling else None)
                if shared is not None:
                    small.flags.writeable = False  # shared: nobody writes into it
                    SMALL_SURFACES.put(shared, small)
                return small
        with composite.canvas((self.w, self.h), theme.window_bg) as (img, _rgbx):
            self._draw(img, widgets, theme, active)
            return composite.block_reduce(img, size, k, phase)

    def _replay_scaled(self, recorder: display_list.DrawRecorder, theme: Theme, scaling: tuple,
                       previous: list[tuple] | None) -> np.ndarray:
        """``recorder``'s drawing reduced by ``scaling``; with ``previous`` (the display list that made the
        current small surface, at the same scaling) only the blocks where the two may differ are drawn."""
        size, k, phase = scaling
        if previous is not None:
            # only the blocks where the two drawings may differ are drawn and reduced again
            changed = display_list.changed_box(previous, recorder.ops)
            region = composite.reduced_region((self.h, self.w), size, k, phase, changed) if changed else None
            if region is not None and region[1] is None:
                return self._small_arr  # the calls that changed paint only margins the reduction drops
            if region is not None:
                box = region[1]
                with composite.canvas((self.w, self.h), theme.window_bg) as (img, _rgbx):
                    recorder.replay(img, within=box)
                    return composite.patch_reduced(self._small_arr, img, region, size, k, phase)
        with composite.canvas((self.w, self.h), theme.window_bg) as (img, _rgbx):
            recorder.replay(img)
            return composite.block_reduce(img, size, k, phase)  # a new image's pixels: the canvas is shared

    def _draw(self, img: Image.Image, widgets: list[Widget], theme: Theme, active: bool) -> None:
        self._paint(Draw(img), widgets, theme, active)

    def _paint(self, d: Any, widgets: list[Widget], theme: Theme, active: bool) -> None:
        """Draw the window's frame and widgets with ``d`` (a ``theme.Draw`` or a display-list recorder)."""
        if self.title_h:
            d.rectangle((0, 0, self.w, self.title_h - 1), fill=theme.titlebar_bg)
            d.line((0, self.title_h - 1, self.w, self.title_h - 1), fill=theme.separator)
        focused = self.focused_widget() if active else None
        for wd in widgets:
            if wd.rect[2] > 0 and wd.rect[3] > 0:  # a window resized very small squeezes some out
                wd.draw(d, theme, wd is focused)
        if self.title_h:
            # lights and title go over the content: sidebars reach up into the title bar
            for i, c in enumerate(_TRAFFIC):
                cx = 18 + i * 20
                fill = c if active else ((80, 80, 84) if theme.dark else (205, 205, 208))
                d.ellipse((cx - 6, 8, cx + 6, 20), fill=fill)
            if self.title and self.title_h <= 28:
                d.text((self.w // 2, 14), fit_text(self.title, self.w - 160, 13, "bold"), font=font(13, "bold"),
                       fill=theme.text if active else theme.secondary_text, anchor="mm")
        if self.parent is not None or self.title_h == 0:
            d.rounded_rectangle((0, 0, self.w - 1, self.h - 1), 10, outline=theme.control_border)

    def a11y_lines(self, indent: str, active: bool) -> list[str]:
        """The window's lines of the accessibility tree. Kept while what its pixels show is unchanged (the
        key ``render`` caches on, with the theme that drew them last) and the window stays where it is;
        the editors' texts are part of the key too, as a value may change below what is drawn."""
        theme = self.desktop.theme
        key = (self._surface_state(theme, active)[1], self.rect, indent, active,
               tuple(e.text for e in self.editors.values())) if display_list.enabled else None
        if key is not None and key == self._a11y_key:
            return self._a11y_lines
        lines = self._make_a11y_lines(indent, active)
        self._a11y_key, self._a11y_lines = key, lines
        return lines

    def _make_a11y_lines(self, indent: str, active: bool) -> list[str]:
        x0, y0, _, _ = self.rect
        role = "AXSheet" if self.parent is not None else "AXWindow"
        flags = " focused" if active else ""
        lines = [f'{indent}{role} "{self.title}" [{x0}, {y0}, {self.w}, {self.h}]{flags}']
        sub = indent + "  "
        if self.parent is None:
            for i, name in enumerate(("close", "minimize", "zoom")):
                lines.append(f'{sub}AXButton "{name}" [{x0 + 12 + i * 20}, {y0 + 8}, 12, 12]')
        focused = self.focused_widget()
        for wd in self.layout():
            if not wd.role:
                continue
            if wd.role == "AXStaticText" and not wd.name:
                continue
            x, y, w, h = wd.rect
            v = wd.value()
            val = "" if v is None or wd.role == "AXStaticText" else f' value="{_short(v)}"'
            fl = " focused" if wd is focused and active else ""
            if not wd.enabled:
                fl += " disabled"
            lines.append(f'{sub}{wd.role} "{_short(wd.name)}"{val} [{x0 + x}, {y0 + y}, {w}, {h}]{fl}')
            for role, name, value, (cx, cy, cw, ch), cflags in wd.a11y_children():
                val = "" if value is None else f' value="{_short(value)}"'
                fl = f" {cflags}" if cflags else ""
                lines.append(f'{sub}  {role} "{_short(name)}"{val} [{x0 + cx}, {y0 + cy}, {cw}, {ch}]{fl}')
        return lines


def _short(s: str, n: int = 200) -> str:
    s = s.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
    return s if len(s) <= n else s[: n - 1] + "…"


# --------------------------------------------------------------------------------- dialogs


def alert(app: "App", parent: "Window | None", message: str, info: str, buttons: list[tuple[str, Callable[[], Any]]],
          *, default: int = 0, cancel: int | None = None) -> Window:
    """Show a modal alert (as a sheet on ``parent`` or centred on screen). ``buttons`` are listed
    right to left as on macOS; each closes the alert and then runs its action."""
    w = 420
    h = 150 + (18 if len(info) > 60 else 0)

    def build(win: Window) -> list[Widget]:
        from .widgets import Icon, Label

        out: list[Widget] = [Icon((20, 20, 48, 48), app.icon_name)]
        out.append(Label((84, 18, w - 100, 20), message, 13, "bold", key="alert:message"))
        out.append(Label((84, 42, w - 100, 40), info, 12, wrap=True, key="alert:info"))
        bx = w - 20
        for i, (title, action) in enumerate(buttons):
            bw = max(80, 24 + len(title) * 8)
            bx -= bw

            def press(action=action) -> None:
                app.desktop.close_window(win)
                action()

            out.append(Button(f"alert:{i}", (bx, h - 44, bw, 26), title, press, default=(i == default),
                              cancel=(i == cancel)))
            bx -= 12
        return out

    win = Window(app, "Alert", (0, 0, w, h), build, parent=parent, kind="alert")
    if parent is None:
        sw, sh = app.desktop.screen_size
        win.x, win.y, win.title_h = (sw - w) // 2, sh // 4, 0
    app.desktop.show_window(win)
    return win


def text_prompt(app: "App", parent: Window, message: str, label: str, initial: str,
                on_ok: Callable[[str], Any], ok_title: str = "OK") -> Window:
    """A sheet with one text field (e.g. New List, Add Bookmark name, Rename)."""
    w, h = 400, 150

    def build(win: Window) -> list[Widget]:
        from .widgets import Label

        ed = win.editor("prompt:field", initial=initial)

        def ok(_t: str | None = None) -> None:
            text = ed.text
            app.desktop.close_window(win)
            on_ok(text)

        return [
            Label((20, 16, w - 40, 20), message, 13, "bold"),
            Label((20, 48, 90, 24), label, 13, align="right"),
            TextField("prompt:field", (116, 48, w - 136, 24), ed, on_commit=ok, name=label),
            Button("prompt:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: app.desktop.close_window(win), cancel=True),
            Button("prompt:ok", (w - 104, h - 44, 84, 26), ok_title, ok, default=True),
        ]

    win = Window(app, message, (0, 0, w, h), build, parent=parent, kind="sheet")
    win.focus_key = "prompt:field"
    win.editor("prompt:field", initial=initial).select_all()
    app.desktop.show_window(win)
    return win
