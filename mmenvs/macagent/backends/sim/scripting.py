"""AppleScript access to the sim's apps: a proxy that routes lifecycle commands (activate, quit…)
to the desktop, Finder's dictionary over the real home folder, Terminal's ``do script``, and
System Events' appearance preferences backed by System Settings."""

from __future__ import annotations

from collections.abc import MutableMapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from mmenvs.core.confined import ConfinedDir

from ...applescript.errors import ERR_APP_GENERIC, ERR_NO_SUCH_OBJECT, AppleScriptError
from ...applescript.model import STANDARD_COMMANDS, ObjectRef, ScriptableAppBase, Terminology
from ...applescript.system_events import HIGHLIGHT_COLORS, SystemEventsApp
from ...applescript.values import Constant, FileRef, hfs_to_posix, source_form
from ..base import BackendError
from .apps.finder import KINDS, LISTING_LIMIT, check_name

if TYPE_CHECKING:  # pragma: no cover
    from .apps.base import App
    from .backend import SimBackend

_LIFECYCLE = ("activate", "reopen", "launch", "run")
ERR_DUPLICATE = -48  # "a file of that name already exists" / a name Finder will not take
ERR_BAD_NAME = -37  # bad file name
ERR_ACCESS = -5000  # the operation is not allowed on that item


def path_text(value: Any) -> str:
    """The POSIX path text of a script value (``POSIX file "…"``, an alias, a path string, HFS)."""
    if isinstance(value, FileRef):
        return value.path
    if isinstance(value, list) and len(value) == 1:
        return path_text(value[0])
    return hfs_to_posix(str(value))


def with_windows(terms: Terminology) -> Terminology:
    """``terms`` plus the standard suite's ``window`` class and its ``bounds`` (an app whose own
    dictionary has no windows still has them, as every Cocoa app's standard suite does)."""
    classes = dict(terms.classes)
    classes.setdefault("window", "windows")
    return Terminology(classes=classes, properties=terms.properties | {"bounds", "index", "id", "name"},
                       commands=terms.commands, constants=terms.constants)


class StandardWindows:
    """The standard suite's windows of an app whose dictionary lacks them: ``windows`` front to back,
    a window's ``name``, ``id``, ``index``, ``visible`` and ``bounds`` (settable, see
    :func:`set_window_bounds`)."""

    def __init__(self, app: "App", app_name: str) -> None:
        self.app = app
        self.app_name = app_name

    def refs(self) -> list[ObjectRef]:
        return [ObjectRef("window", w.id) for w in self.app.windows]

    def window(self, obj: ObjectRef) -> Any:
        for w in self.app.windows:
            if w.id == obj.id:
                return w
        raise AppleScriptError(f"Can’t get window id {obj.id} of application \"{self.app_name}\".", ERR_NO_SUCH_OBJECT)

    def get(self, obj: ObjectRef, prop: str) -> Any:
        w = self.window(obj)
        values = {"name": w.title, "id": w.id, "index": self.app.windows.index(w) + 1, "visible": not w.minimized,
                  "bounds": window_bounds(w)}
        if prop in values:
            return values[prop]
        if prop == "properties":
            return {"class": Constant("window"), **values}
        raise AppleScriptError(f"Can’t get {prop} of window id {w.id} of application \"{self.app_name}\".", ERR_NO_SUCH_OBJECT)

    def set(self, obj: ObjectRef, prop: str, value: Any) -> None:
        w = self.window(obj)
        if prop != "bounds":
            raise AppleScriptError(f"Can’t set {prop} of window id {w.id} of application \"{self.app_name}\".", -10006)
        set_window_bounds(w, value, f'window id {w.id} of application "{self.app_name}"')


class AppProxy:
    """Wraps an app's scriptable store: ``activate``/``quit``/``frontmost`` act on the desktop; when
    the store has no ``window`` class, the standard suite's windows (:class:`StandardWindows`) answer."""

    def __init__(self, app: "App", inner: Any) -> None:
        self._app = app
        self._inner = inner
        self.name = inner.name
        self._windows = None if "window" in inner.terminology.classes else StandardWindows(app, inner.name)
        self.terminology = inner.terminology if self._windows is None else with_windows(inner.terminology)

    def __getattr__(self, item: str) -> Any:
        return getattr(self._inner, item)

    def _is_window(self, obj: ObjectRef | None) -> bool:
        return self._windows is not None and obj is not None and obj.cls == "window"

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if self._windows is not None and container is None and cls == "window":
            return self._windows.refs()
        return self._inner.elements(container, cls)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if self._is_window(obj):
            return self._windows.get(obj, prop)
        if obj is None and prop == "frontmost":
            return self._app.desktop.active is self._app
        if obj is None and prop == "running":
            return self._app.running
        if obj is None and prop == "visible":
            return self._app.running and not self._app.hidden
        return self._inner.get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if self._is_window(obj):
            self._windows.set(obj, prop, value)
            return
        if obj is None and prop == "frontmost":
            if value:
                self._app.desktop.activate(self._app)
            return
        if obj is None and prop == "visible":
            if value:
                self._app.desktop.activate(self._app, reopen=False)
            else:
                self._app.desktop.hide_app(self._app)
            return
        self._inner.set_property(obj, prop, value)
        self._app.touch()

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        ref = self._inner.make(cls, properties, at)
        self._app.touch()
        return ref

    def delete(self, obj: ObjectRef) -> None:
        self._inner.delete(obj)
        self._app.touch()

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name in _LIFECYCLE:
            self._app.desktop.activate(self._app, reopen=(name != "launch"))
            return None
        if name == "quit":
            self._app.quit()
            return None
        out = self._inner.command(name, direct, params)
        self._app.touch()
        return out

    def class_plural(self, plural: str) -> str | None:
        if self._windows is not None and plural == "windows":
            return "window"
        return self._inner.class_plural(plural)

    def describe(self, obj: ObjectRef) -> str:
        if self._is_window(obj):
            return f'window id {obj.id} of application "{self.name}"'
        return self._inner.describe(obj)


class FinderScripting(ScriptableAppBase):
    """Finder's dictionary over the home folder: items, files and folders (name, name extension,
    size, kind, modification date, container, URL), ``desktop``, ``home``, ``trash``; make new
    folder/file, delete (to the Trash), move, duplicate, open, reveal, empty trash."""

    def __init__(self, backend: "SimBackend") -> None:
        self.backend = backend
        self.name = "Finder"
        cmds = dict(STANDARD_COMMANDS)
        cmds.update({"empty": (), "empty trash": (), "reveal": (), "open": ("using",)})
        self.terminology = Terminology(
            classes={"item": "items", "file": "files", "folder": "folders", "document file": "document files",
                     "disk": "disks", "window": "windows", "Finder window": "Finder windows"},
            properties=frozenset({"name", "name extension", "displayed name", "size", "kind", "modification date",
                                  "creation date", "container", "URL", "POSIX path", "desktop", "home", "trash",
                                  "startup disk", "selection", "target", "index", "frontmost", "version", "comment",
                                  "bounds", "id"}),
            commands=cmds)

    @property
    def finder(self) -> Any:
        return self.backend.desktop.apps["Finder"]

    @property
    def files(self) -> ConfinedDir:
        """The home folder as host code may touch it: every file operation of the dictionary goes here."""
        return self.backend.current_desktop().home_files

    def _host_path(self, text: str) -> Path:
        """A path from the script on the host (lexical), as a script error when it is outside the home."""
        try:
            return self.backend.host_path(text)
        except BackendError as exc:
            raise AppleScriptError(str(exc), ERR_NO_SUCH_OBJECT) from None

    def _path(self, obj: ObjectRef) -> Path:
        if obj.cls == "disk":
            return self.backend.home
        return self._host_path(str(obj.id))

    def _ref(self, p: Path) -> ObjectRef:
        cls = "folder" if self.files.is_dir(p) else "document file"
        return ObjectRef(cls, self.backend.posix_path(p))

    @staticmethod
    def _name(value: Any) -> str:
        """A name given to Finder (``with properties {name:…}``, ``set name of …``): a name, never a path."""
        try:
            return check_name(str(value))
        except ValueError as exc:
            raise AppleScriptError(str(exc), ERR_BAD_NAME) from None

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "disk":
            return 'startup disk of application "Finder"'
        if obj.cls in ("window", "Finder window"):
            return f'Finder window id {obj.id} of application "Finder"'
        parts = [x for x in str(obj.id).split("/") if x]
        if not parts:
            return 'startup disk of application "Finder"'
        kind = "folder" if obj.cls == "folder" else "document file"
        out = f'{kind} "{parts[-1]}"'
        for name in reversed(parts[:-1]):
            out += f' of folder "{name}"'
        return out + ' of startup disk of application "Finder"'

    def _children(self, folder: Path, cls: str) -> list[ObjectRef]:
        if not self.files.is_dir(folder):  # a symlinked folder is not listed: it could lead out of the home
            raise AppleScriptError(f"Can’t get every {cls} of {self.describe(self._ref(folder))}.", ERR_NO_SUCH_OBJECT)
        entries = sorted((e for e in self.files.listdir(folder, limit=LISTING_LIMIT) if not e.name.startswith(".")),
                         key=lambda e: e.name.lower())
        out = []
        for e in entries:
            is_dir = e.kind == "dir"
            if cls == "folder" and not is_dir or cls in ("file", "document file") and is_dir:
                continue
            out.append(ObjectRef("folder" if is_dir else "document file", self.backend.posix_path(folder / e.name)))
        return out

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if cls in ("window", "Finder window"):
            if container is None:
                return [ObjectRef("Finder window", w.id) for w in self.finder.browser_windows]
        if cls == "disk" and container is None:
            return [ObjectRef("disk", "/")]
        if cls in ("item", "file", "folder", "document file"):
            folder = self.backend.home / "Desktop" if container is None else self._path(container)
            return self._children(folder, cls)
        return super().elements(container, cls)

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if cls not in ("item", "file", "folder", "document file"):
            return None
        folder = self.backend.home / "Desktop" if container is None else self._path(container)
        name = str(name)
        if not name or name.startswith(".") or "/" in name or "\0" in name:
            return None
        kind = self.files.kind(folder / name)
        if kind is None or cls == "folder" and kind != "dir" or cls in ("file", "document file") and kind == "dir":
            return None
        return self._ref(folder / name)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        home = self.backend.home
        if obj is None:
            if prop == "desktop":
                return self._ref(home / "Desktop")
            if prop == "home":
                return self._ref(home)
            if prop == "trash":
                return ObjectRef("folder", self.backend.posix_path(home / ".Trash"))
            if prop == "startup disk":
                return ObjectRef("disk", "/")
            if prop == "frontmost":
                return self.backend.desktop.active is self.finder
            if prop == "version":
                return "26.0"
            if prop == "selection":
                w = self.finder.browser_windows[0] if self.finder.browser_windows else None
                if w is None:
                    return [self._ref(home / "Desktop" / n) for n in self.backend.desktop.desktop_selection]
                return [self._ref(Path(w.state["path"]) / n) for n in w.state.get("selection", [])]
            return super().get_property(obj, prop)
        if obj.cls in ("window", "Finder window"):
            for w in self.finder.browser_windows:
                if w.id == obj.id:
                    if prop == "target":
                        return self._ref(Path(w.state["path"]))
                    if prop == "name":
                        return w.title
                    if prop == "index":
                        return self.finder.browser_windows.index(w) + 1
                    if prop == "bounds":
                        return window_bounds(w)
                    if prop == "id":
                        return w.id
            raise AppleScriptError(f"Can’t get {prop} of {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        p = self._path(obj)
        files = self.files
        kind = files.kind(p)
        if kind is None:
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        st = files.lstat(p)  # the entry itself: a symlink's own status, never its target's
        is_dir = kind == "dir"
        if prop in ("name", "displayed name"):
            # the name as the script sees it: the home folder is ``user`` whatever the host calls it
            return "Macintosh HD" if obj.cls == "disk" else self.backend.posix_path(p).rstrip("/").rsplit("/", 1)[-1]
        if prop == "name extension":
            return p.suffix[1:] if kind == "file" and "." in p.name[1:] else ""
        if prop == "size":
            return files.disk_usage(p) if is_dir else st.st_size if kind == "file" else 0
        if prop == "kind":
            return "Folder" if is_dir else "Alias" if kind == "symlink" else KINDS.get(p.suffix.lower(), "Document")
        if prop in ("modification date", "creation date"):
            return self.backend.desktop.now if st.st_mtime >= self.finder.reset_host_time - 1 else datetime.fromtimestamp(st.st_mtime, timezone.utc).replace(tzinfo=None)
        if prop == "container":
            return self._ref(p.parent)
        if prop == "URL":
            return "file://" + self.backend.posix_path(p) + ("/" if is_dir else "")
        if prop == "POSIX path":
            return self.backend.posix_path(p) + ("/" if is_dir else "")
        if prop == "comment":
            return ""
        raise AppleScriptError(f"Can’t get {prop} of {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def coerce(self, obj: ObjectRef, type_name: str) -> Any:
        """``item … as alias`` / ``as «class furl»`` / ``as text`` (the HFS path, ``…:Documents:``),
        as Finder answers them; anything else is left to AppleScript."""
        if obj.cls not in ("folder", "document file", "file", "item", "disk"):
            return NotImplemented
        p = self._path(obj)
        kind = self.files.kind(p)
        if kind is None:
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        ref = FileRef(self.backend.posix_path(p) + ("/" if kind == "dir" else ""), "file")
        t = type_name.lower()
        if t in ("alias", "file", "«class furl»", "posix file"):
            return FileRef(ref.path, "alias" if t == "alias" else "file")
        if t in ("text", "string", "unicode text"):
            return ref.hfs()
        return NotImplemented

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls in ("window", "Finder window") and prop == "bounds":
            for w in self.finder.browser_windows:
                if w.id == obj.id:
                    set_window_bounds(w, value, self.describe(obj))
                    return
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        if obj is not None and obj.cls in ("folder", "document file", "file", "item") and prop == "name":
            name, path = self._name(value), self._path(obj)
            if not self.files.exists(path):
                raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
            try:
                self.finder.rename(path, name)
            except ValueError as e:
                raise AppleScriptError(str(e), ERR_DUPLICATE) from None
            return
        super().set_property(obj, prop, value)

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        folder = self.backend.home / "Desktop" if at is None else self._path(at)
        if not self.files.is_dir(folder):
            raise AppleScriptError("Can’t make or move that element into that container.", -10024)
        name = self._name(properties.get("name", "untitled folder" if cls == "folder" else "untitled"))
        if cls in ("folder", "file", "document file") and self.files.exists(folder / name):
            raise AppleScriptError("The operation can’t be completed because there is already an item with that name.",
                                   ERR_DUPLICATE)
        if cls == "folder":
            try:
                return self._ref(self.finder.new_folder(folder, name, rename=False))
            except ValueError as e:
                raise AppleScriptError(str(e), ERR_DUPLICATE) from None
        if cls in ("file", "document file"):
            p = folder / name
            self.files.write_bytes(p, b"", exclusive=True)
            self.finder.touch()
            return self._ref(p)
        raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)

    def delete(self, obj: ObjectRef) -> None:
        p = self._path(obj)
        if not self.files.exists(p):
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        self._finder_op(self.finder.move_to_trash, [p])

    @staticmethod
    def _finder_op(fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a Finder file operation for a script: what it could not do is a script error."""
        try:
            return fn(*args, raise_errors=True, **kwargs)
        except ValueError as e:
            raise AppleScriptError(str(e), ERR_ACCESS) from None

    def _items(self, direct: Any) -> list[Path]:
        items = direct if isinstance(direct, list) else [direct]
        out = []
        for it in items:
            ref = it if isinstance(it, ObjectRef) else getattr(it, "ref", None)
            if isinstance(ref, ObjectRef):
                out.append(self._path(ref))
            else:
                out.append(self._host_path(path_text(it)))
        return out

    def _target(self, value: Any) -> Path:
        ref = value if isinstance(value, ObjectRef) else getattr(value, "ref", None)
        return self._path(ref) if isinstance(ref, ObjectRef) else self._host_path(path_text(value))

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        finder = self.finder
        if name == "move":
            dest = self._target(params.get("to"))
            moved = self._finder_op(finder.move_items, self._items(direct), dest)
            res = [self._ref(p) for p in moved]
            return res[0] if len(res) == 1 else res
        if name == "duplicate":
            dest = self._target(params["to"]) if "to" in params else None
            srcs = self._items(direct)
            made = self._finder_op(finder.copy_items, srcs, dest or srcs[0].parent, duplicate_suffix=dest is None)
            res = [self._ref(p) for p in made]
            return res[0] if len(res) == 1 else res
        if name == "open":
            for p in self._items(direct):
                self.backend.desktop.open_path(p)
            return None
        if name in ("reveal", "select"):
            for p in self._items(direct):
                w = finder.open_folder(p.parent if not self.files.is_dir(p) or name == "reveal" else p)
                w.state["selection"] = [p.name]
            return None
        if name in ("empty", "empty trash"):
            finder.empty_trash()
            return None
        if name in _LIFECYCLE:
            self.backend.desktop.activate(finder)
            return None
        if name == "quit":
            return None
        return super().command(name, direct, params)


class AppLifecycle(ScriptableAppBase):
    """What every sim app's dictionary answers the same way: ``activate``/``reopen``/``launch``/``run``
    bring the app forward (opening its window when it has none), ``quit`` quits it, and the app's
    ``frontmost`` is read from the desktop. Subclasses set ``app`` (the sim app)."""

    app: Any

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None and prop == "frontmost":
            return self.app.desktop.active is self.app
        return super().get_property(obj, prop)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name in _LIFECYCLE:
            self.app.desktop.activate(self.app)
            return None
        if name == "quit":
            self.app.quit()
            return None
        return super().command(name, direct, params)


#: the window properties :class:`WindowScripting` answers
WINDOW_PROPERTIES = frozenset({"name", "index", "id", "bounds"})

#: how far a window may be moved off the screen: macOS keeps this much of it (and its title bar) reachable
_KEEP_ON_SCREEN = 60
#: the largest coordinate a script may give (far beyond any screen; a bigger number is a mistake, not a place)
_MAX_COORD = 1_000_000


def window_bounds(win: Any) -> list[int]:
    """A window's ``bounds``: {left, top, right, bottom} in screen points (top-left origin)."""
    return [win.x, win.y, win.x + win.w, win.y + win.h]


def set_window_bounds(win: Any, value: Any, what: str) -> None:
    """``set bounds of window … to {left, top, right, bottom}``, as macOS places the window: the size is
    kept between the window's minimum size and the screen (below the menu bar), the top never goes
    above the menu bar and some of the window stays on screen. ``what`` names the window in errors.
    Anything but four numbers is the error AppleScript gives (-1700), never a Python exception; the
    window's pixels stay within the screen's, whatever the numbers."""
    from .desktop import MENUBAR_H

    nums = value if isinstance(value, list) else None
    if nums is None or len(nums) != 4 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in nums):
        raise AppleScriptError(f"Can’t make {source_form(value)[:200]} into type bounding rectangle: bounds are "
                               "{left, top, right, bottom}, four numbers.", -1700)
    if not all(abs(v) <= _MAX_COORD for v in nums):  # also catches inf and nan
        raise AppleScriptError(f"Can’t set bounds of {what}: {source_form(value)[:200]} is off any screen "
                               f"(coordinates are within ±{_MAX_COORD}).", -10003)
    left, top, right, bottom = (int(round(v)) for v in nums)
    if right <= left or bottom <= top:
        raise AppleScriptError(f"Can’t set bounds of {what} to {{{left}, {top}, {right}, {bottom}}}: the right edge must "
                               "be right of the left edge and the bottom below the top.", -10003)
    sw, sh = win.desktop.screen_size
    mw, mh = win.min_size
    w = max(min(right - left, sw), min(mw, sw))
    h = max(min(bottom - top, sh - MENUBAR_H), min(mh, sh - MENUBAR_H))
    # a window asked to be larger than the screen is fitted to it; otherwise it goes where it was asked,
    # with at least _KEEP_ON_SCREEN points of it left on the screen
    x = 0 if right - left > sw else max(_KEEP_ON_SCREEN - w, min(left, sw - _KEEP_ON_SCREEN))
    y = MENUBAR_H if bottom - top > sh - MENUBAR_H else max(MENUBAR_H, min(top, sh - _KEEP_ON_SCREEN))
    win.x, win.y, win.w, win.h = x, y, w, h
    win.zoomed_from = None
    win.touch()
    win.desktop.gen += 1


class WindowScripting(AppLifecycle):
    """The window part of a document app's dictionary (Safari, TextEdit, Terminal): the app's
    ``windows`` front to back (``window_classes`` may add aliases, e.g. Safari's ``documents``),
    a window's ``name`` (its title), ``index``, ``id`` and ``bounds`` ({left, top, right, bottom}),
    with ``single_tab`` a window's one ``tab`` (the sim shows one tab per window; it has the window's
    id), and the app's ``version``. Subclasses answer their own classes and properties first and
    defer the rest here; :meth:`window` finds the window an object reference names."""

    version = ""
    window_classes: tuple[str, ...] = ("window",)
    single_tab = False

    def window(self, obj: ObjectRef) -> Any:
        """The app's window whose id ``obj`` carries (a window, or a document/tab shown in one)."""
        for w in self.app.windows:
            if w.id == obj.id:
                return w
        raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls in self.window_classes:
            return [ObjectRef(cls, w.id) for w in self.app.windows]
        if self.single_tab and container is not None and container.cls == "window" and cls == "tab":
            self.window(container)
            return [ObjectRef("tab", container.id)]
        return super().elements(container, cls)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None and prop == "version" and self.version:
            return self.version
        if obj is not None and obj.cls == "window" and prop in WINDOW_PROPERTIES:
            w = self.window(obj)
            if prop == "name":
                return w.title
            if prop == "index":
                return self.app.windows.index(w) + 1
            if prop == "id":
                return w.id
            return window_bounds(w)
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "window" and prop == "bounds":
            set_window_bounds(self.window(obj), value, self.describe(obj))
            return
        super().set_property(obj, prop, value)


class TerminalScripting(WindowScripting):
    """Terminal's ``do script`` (runs a command in a window, visible in the transcript) and
    windows' (and their tab's) ``contents``/``history``."""

    single_tab = True

    def __init__(self, backend: "SimBackend") -> None:
        self.backend = backend
        self.name = "Terminal"
        cmds = dict(STANDARD_COMMANDS)
        cmds["do script"] = ("in",)
        self.terminology = Terminology(classes={"window": "windows", "tab": "tabs"},
                                       properties=frozenset({"contents", "history", "name", "busy", "selected tab",
                                                             "frontmost", "index", "id", "bounds"}),
                                       commands=cmds)

    @property
    def app(self) -> Any:  # looked up each time: the backend's desktop is new after every reset
        return self.backend.desktop.apps["Terminal"]

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None or obj.cls == "window" and prop in WINDOW_PROPERTIES:
            return super().get_property(obj, prop)
        w = self.window(obj)  # a window, or its one tab
        if prop in ("contents", "history"):
            return self.app.contents(w) + "\n"
        if prop == "selected tab":
            return ObjectRef("tab", w.id)
        if prop == "name":
            return w.title
        if prop == "busy":
            return False
        if prop == "id":
            return w.id
        return super().get_property(obj, prop)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name == "do script":
            target = params.get("in")
            ref = target if isinstance(target, ObjectRef) else getattr(target, "ref", None)
            term = self.app
            win = self.window(ref) if isinstance(ref, ObjectRef) else term.new_window()
            self.backend.desktop.activate(term, reopen=False)
            if direct is not None:
                term.run_command(win, str(direct))
            return ObjectRef("tab", win.id)
        return super().command(name, direct, params)


class LifecycleOnly(AppLifecycle):
    """An app scripts can only activate or quit (System Settings has no dictionary to speak of)."""

    def __init__(self, app: "App") -> None:
        self.app = app
        self.name = app.name
        self._windows = StandardWindows(app, app.name)
        self.terminology = with_windows(Terminology(commands=dict(STANDARD_COMMANDS),
                                                    properties=frozenset({"frontmost", "name"})))

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls == "window":
            return self._windows.refs()
        return super().elements(container, cls)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is not None and obj.cls == "window":
            return self._windows.get(obj, prop)
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "window":
            self._windows.set(obj, prop, value)
            return
        super().set_property(obj, prop, value)

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "window":
            return f'window id {obj.id} of application "{self.name}"'
        return super().describe(obj)


#: AppleHighlightColor as macOS writes it ("r g b Name", components 0–1) for System Settings' highlight
#: colours, and for System Events' two older names (gold, silver) that System Settings shows as Other
HIGHLIGHT_DEFAULTS = {
    "blue": "0.698039 0.843137 1.000000 Blue", "purple": "0.968627 0.831373 1.000000 Purple",
    "pink": "1.000000 0.749020 0.823529 Pink", "red": "1.000000 0.733333 0.721569 Red",
    "orange": "1.000000 0.874510 0.701961 Orange", "yellow": "1.000000 0.937255 0.690196 Yellow",
    "green": "0.752941 0.964706 0.678431 Green", "graphite": "0.847059 0.847059 0.862745 Graphite",
    "gold": "1.000000 0.937255 0.690196 Other", "silver": "0.776471 0.776471 0.776471 Other",
}


def highlight_defaults(settings: Any) -> str | None:
    """NSGlobalDomain's AppleHighlightColor: the colour chosen for highlights, or, while the
    highlight follows the accent colour (System Settings' default), that accent's highlight;
    ``None`` (no key) with the multicolour accent."""
    if settings.highlight_color is not None:
        return str(settings.highlight_color)
    return HIGHLIGHT_DEFAULTS.get(settings.accent_color)


def highlight_script_value(text: str | None) -> Constant | list[int]:
    """System Events' ``highlight color`` for an AppleHighlightColor value: the enumerator when the
    value is one of System Events' named colours, otherwise its RGB color (three integers 0–65535)."""
    if text is None:
        return Constant("blue")
    for name in HIGHLIGHT_COLORS:
        if text == HIGHLIGHT_DEFAULTS[name]:
            return Constant(name)
    try:
        parts = [float(v) for v in text.split()[:3]]
    except ValueError:
        parts = []
    if len(parts) != 3:  # not a colour macOS can read: it highlights in blue
        return Constant("blue")
    return [round(min(1.0, max(0.0, v)) * 65535) for v in parts]


class AppearanceMapping(MutableMapping):
    """System Events' appearance preferences, read from and written to System Settings (``highlight
    color`` is AppleHighlightColor: System Settings' highlight colour, by default the accent's)."""

    def __init__(self, settings: Any) -> None:
        self.s = settings
        self.extra: dict[str, Any] = {"font smoothing": True, "scroll bar action": Constant("jump to next page")}

    def __getitem__(self, key: str) -> Any:
        if key == "dark mode":
            return self.s.dark_mode
        if key == "highlight color":
            return highlight_script_value(highlight_defaults(self.s))
        return self.extra[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key == "dark mode":
            self.s.set_dark_mode(bool(value))
        elif key == "highlight color":
            # System Events checked the value (an enumerator or an RGB list) before it got here
            if isinstance(value, Constant):
                self.s.set_highlight(HIGHLIGHT_DEFAULTS[value.name.lower()])
            else:
                self.s.set_highlight(" ".join(f"{c / 65535:.6f}" for c in value) + " Other")
        else:
            self.extra[key] = value

    def __delitem__(self, key: str) -> None:
        raise AppleScriptError(f"Can’t delete {key} of appearance preferences.", ERR_APP_GENERIC)

    def __iter__(self) -> Iterator[str]:
        return iter(["dark mode", "highlight color", *self.extra])

    def __len__(self) -> int:
        return 2 + len(self.extra)


WALLPAPER_DIR = "/System/Library/Desktop Pictures"


class SimSystemEvents(SystemEventsApp):
    """System Events plus ``desktop`` objects whose ``picture`` is the wallpaper
    (``/System/Library/Desktop Pictures/<Name>.heic``), set from System Settings' wallpapers."""

    def __init__(self, host: Any, settings: Any, **kw: Any) -> None:
        super().__init__(host, AppearanceMapping(settings), **kw)
        self.settings = settings
        t = self.terminology
        self.terminology = Terminology(classes={**t.classes, "desktop": "desktops", "window": "windows"},
                                       properties=t.properties | {"picture", "display name", "position", "size",
                                                                  "title", "properties"},
                                       commands=t.commands, constants=t.constants)

    # a process's windows (GUI scripting): position {x, y} and size {w, h} move and resize the sim's window
    def _app_windows(self, proc: Any) -> list[Any]:
        desk = self.host.backend.current_desktop()
        app = desk.apps.get(str(proc))
        if app is None:
            raise AppleScriptError(f"Can’t get process \"{proc}\".", ERR_NO_SUCH_OBJECT)
        front_first = [w for w in reversed(desk.windows) if w.app is app and w.parent is None]
        return front_first + [w for w in app.windows if w.parent is None and w not in front_first]

    def _process_window(self, obj: ObjectRef) -> Any:
        proc, wid = obj.id
        for w in self._app_windows(proc):
            if w.id == wid:
                return w
        raise AppleScriptError(f"Can’t get window {wid} of process \"{proc}\": it was closed.", ERR_NO_SUCH_OBJECT)

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "window" and isinstance(obj.id, tuple):
            return f'window id {obj.id[1]} of process "{obj.id[0]}" of application "System Events"'
        return super().describe(obj)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls == "desktop":
            return [ObjectRef("desktop", 1)]
        if container is not None and container.cls in ("process", "application process") and cls == "window":
            return [ObjectRef("window", (container.id, w.id)) for w in self._app_windows(container.id)]
        return super().elements(container, cls)

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if container is not None and container.cls in ("process", "application process") and cls == "window":
            for w in self._app_windows(container.id):
                if w.title == str(name):
                    return ObjectRef("window", (container.id, w.id))
            return None
        return super().element_by_name(container, cls, name)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is not None and obj.cls == "window" and isinstance(obj.id, tuple):
            w = self._process_window(obj)
            values = {"name": w.title, "title": w.title, "position": [w.x, w.y], "size": [w.w, w.h]}
            if prop in values:
                return values[prop]
            if prop == "properties":
                return {"class": Constant("window"), **values}
            raise AppleScriptError(f"Can’t get {prop} of {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)
        if obj is not None and obj.cls == "desktop":
            if prop == "picture":
                return f"{WALLPAPER_DIR}/{self.settings.wallpaper}.heic"
            if prop in ("display name", "name"):
                return "Built-in Display"
            if prop == "id":
                return obj.id
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "window" and isinstance(obj.id, tuple) and prop in ("position", "size"):
            w = self._process_window(obj)
            if not (isinstance(value, list) and len(value) == 2):
                raise AppleScriptError(f"Can’t make {source_form(value)[:200]} into type list of two numbers for "
                                       f"{prop} of {self.describe(obj)}.", -1700)
            rect = [value[0], value[1], value[0] + w.w, value[1] + w.h] if prop == "position" and all(
                isinstance(v, (int, float)) for v in value) else [w.x, w.y, w.x + value[0], w.y + value[1]] if all(
                isinstance(v, (int, float)) for v in value) else value + value
            set_window_bounds(w, rect, self.describe(obj))
            return
        if obj is not None and obj.cls == "desktop" and prop == "picture":
            from .theme import WALLPAPERS

            name = path_text(value).rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
            match = [w for w in WALLPAPERS if w.lower() == name.lower()]
            if not match:
                raise AppleScriptError(f"Can’t set picture of desktop 1 to {path_text(value)!r}: the simulator has the "
                                       f"wallpapers {', '.join(WALLPAPERS)} in {WALLPAPER_DIR}.", ERR_APP_GENERIC)
            self.settings.set_wallpaper(match[0])
            return
        super().set_property(obj, prop, value)
