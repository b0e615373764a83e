"""The object model the simulated Mac apps implement so the interpreter can script them.

An app is a :class:`ScriptableApp`: it lists its elements (``elements``), reads and writes
properties (``get_property`` / ``set_property``), creates (``make``) and deletes (``delete``)
objects, answers other commands (``command``), and declares its dictionary (:class:`Terminology`)
so the parser knows its multi-word terms (``start date``, ``due date``, ``dark mode``) the way the
real AppleScript compiler reads an app's ``.sdef``.

Objects are :class:`ObjectRef` handles: the app picks the ``id`` (stable for the object's life)
and the ``cls`` (singular class name). Everything else — index, name, id, range, ``whose``
filters, ``every``, ``first``/``last`` — is done by the interpreter on top of ``elements``.

:class:`RecordStoreApp` is a complete dict-backed app: declare classes as data
(:class:`ClassSpec`) and it does the rest. :class:`AppleScriptHost` is what the interpreter is
given: the apps, the clock, the shell and the UI callbacks.

Conventions for implementers
----------------------------
* Class and property names are lower-case AppleScript terms, singular for classes
  (``"note"``, ``"reminder"``, ``"start date"``).
* ``elements(None, cls)`` are the application's own elements (``every note`` of Notes);
  ``elements(obj, cls)`` the elements of an object (``notes of folder "Work"``). Return them in
  display order; an unknown class for that container must raise
  ``AppleScriptError("Can’t get every <cls> of <container>.", -1728)``.
* Property values use the Python forms of :mod:`.values` (``str``, ``int``, ``float``, ``bool``,
  naive ``datetime``, ``list``, ``dict`` for records, ``None`` for ``missing value``), or
  :class:`ObjectRef` (the interpreter wraps it as an object of the same app).
* Errors are :class:`~.errors.AppleScriptError` with the real message and number; the interpreter
  adds the ``"<App> got an error: "`` prefix and the source position.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, Protocol, runtime_checkable

from .errors import (ERR_APP_GENERIC, ERR_CANT_SET, ERR_NO_SUCH_OBJECT, ERR_NOT_UNDERSTOOD,
                     ERR_USER_CANCELED, AppleScriptError)
from .values import Constant, coerce, source_form

# ---------------------------------------------------------------------------------------------
# handles and dictionaries
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ObjectRef:
    """An app-defined handle: ``cls`` is the singular class name, ``id`` the stable identity."""

    cls: str
    id: Any


@dataclass(frozen=True)
class Terminology:
    """An application's scripting dictionary, as far as the parser needs it.

    ``classes`` maps singular → plural (``{"note": "notes", "list": "lists"}``); ``properties``
    and ``constants`` are the property and enumeration names (multi-word allowed);
    ``commands`` maps a command name to the labels of its named parameters
    (``{"open location": (), "keystroke": ("using",), "duplicate": ("to",)}``).
    """

    classes: Mapping[str, str] = field(default_factory=dict)
    properties: frozenset[str] = frozenset()
    commands: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    constants: frozenset[str] = frozenset()

    def plural_to_singular(self) -> dict[str, str]:
        return {p: s for s, p in self.classes.items()}


# Commands of AppleScript's standard suite every app understands (named parameters per command).
STANDARD_COMMANDS: dict[str, tuple[str, ...]] = {
    "activate": (), "quit": ("saving",), "launch": (), "run": (), "reopen": (),
    "open": ("using", "with properties"), "close": ("saving", "saving in"),
    "save": ("in", "as"), "print": ("with properties", "print dialog"),
    "duplicate": ("to", "with properties"), "move": ("to",), "select": (), "reveal": (),
}


@runtime_checkable
class ScriptableApp(Protocol):
    """What an application must provide to be scripted (see the module docstring)."""

    name: str
    terminology: Terminology

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]: ...

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any: ...

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None: ...

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef: ...

    def delete(self, obj: ObjectRef) -> None: ...

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any: ...

    def class_plural(self, plural: str) -> str | None: ...


class ScriptableAppBase:
    """Defaults for the optional parts of :class:`ScriptableApp`; subclass and fill in the rest.

    Optional hooks the interpreter uses when present: ``element_by_name(container, cls, name)``
    and ``element_by_id(container, cls, id)`` (fast lookups; return ``None`` when absent),
    ``describe(obj) -> str`` (how ``osascript`` prints the object, e.g.
    ``note id "x-coredata://…/p3" of application "Notes"``) and ``coerce(obj, type_name)``
    (``obj as alias``/``as text`` answered by the app; return ``NotImplemented`` to fall back to
    AppleScript's own coercions).
    """

    name: str = "Application"
    terminology: Terminology = Terminology()

    def class_plural(self, plural: str) -> str | None:
        return self.terminology.plural_to_singular().get(plural)

    def describe(self, obj: ObjectRef) -> str:
        return f'{obj.cls} id {source_form(obj.id)} of application "{self.name}"'

    def _show(self, value: Any) -> str:
        """A value as error messages print it (objects by their reference)."""
        if isinstance(value, ObjectRef):
            return self.describe(value)
        if isinstance(value, list):
            return "{" + ", ".join(self._show(v) for v in value) + "}"
        return source_form(value)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        where = "" if container is None else f" of {self.describe(container)}"
        raise AppleScriptError(f"Can’t get every {cls}{where}.", ERR_NO_SUCH_OBJECT)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None and prop == "name":
            return self.name
        target = "application" if obj is None else self.describe(obj)
        raise AppleScriptError(f"Can’t get {prop} of {target}.", ERR_NO_SUCH_OBJECT)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        target = "application" if obj is None else self.describe(obj)
        raise AppleScriptError(f"Can’t set {prop} of {target} to {self._show(value)}.", ERR_CANT_SET)

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)

    def delete(self, obj: ObjectRef) -> None:
        raise AppleScriptError(f"Can’t delete {self.describe(obj)}.", ERR_APP_GENERIC)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name in ("activate", "launch", "run", "reopen"):
            return None
        raise AppleScriptError(f"{self.name} doesn’t understand the “{name}” message.", ERR_NOT_UNDERSTOOD)


# ---------------------------------------------------------------------------------------------
# RecordStoreApp: a dict-backed app declared as data
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassSpec:
    """One scriptable class of a :class:`RecordStoreApp`.

    ``properties`` maps each property to its default (its Python type sets the coercion applied on
    ``set``/``make``: ``str`` → text, ``bool`` → boolean, ``int`` → integer, ``float`` → real,
    ``datetime`` → date; a ``None`` default accepts anything). ``elements`` are the classes an
    object of this class contains; ``parent_class`` is where ``make`` puts a new object when no
    ``at`` is given (the first object of that class, e.g. the default folder), or ``None`` if it may
    live at the application level. ``readonly`` properties cannot be set by scripts. ``id_format``
    makes the id from a counter (``"x-coredata://notes/p{n}"``). ``computed`` properties are
    functions of the stored record.
    """

    name: str
    plural: str = ""
    properties: Mapping[str, Any] = field(default_factory=dict)
    elements: tuple[str, ...] = ()
    parent_class: str | None = None
    readonly: frozenset[str] = frozenset()
    id_format: str = "{n}"
    computed: Mapping[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)

    @property
    def plural_name(self) -> str:
        return self.plural or self.name + "s"


_TYPE_NAMES = {str: "text", bool: "boolean", int: "integer", float: "real", datetime: "date"}


class RecordStoreApp(ScriptableAppBase):
    """A complete scriptable app over plain dicts.

    >>> notes = RecordStoreApp("Notes", [
    ...     ClassSpec("folder", properties={"name": ""}, elements=("note",)),
    ...     ClassSpec("note", properties={"name": "", "body": ""}, parent_class="folder")],
    ...     app_elements=("folder", "note"))
    >>> folder = notes.add("folder", {"name": "Notes"})
    >>> notes.add("note", {"name": "Groceries", "body": "milk"}, parent=folder).cls
    'note'

    ``app_elements`` are the classes listed at the application level: for each, ``every <cls>`` of
    the app returns all objects of that class wherever they live (as Notes and Reminders do).
    ``commands`` maps extra command names to ``fn(app, direct, params)``. ``extra_properties``
    declares property terms that a subclass answers itself in ``get_property`` (e.g. Notes'
    ``default account``), so the parser knows them. Every object has the read-only properties
    ``id``, ``class``, ``container`` and ``properties``.
    """

    def __init__(self, name: str, classes: Iterable[ClassSpec], *, app_elements: Iterable[str] = (),
                 app_properties: Mapping[str, Any] | None = None,
                 commands: Mapping[str, Callable[["RecordStoreApp", Any, dict[str, Any]], Any]] | None = None,
                 command_params: Mapping[str, tuple[str, ...]] | None = None,
                 constants: Iterable[str] = (), extra_properties: Iterable[str] = ()) -> None:
        self.name = name
        self.classes: dict[str, ClassSpec] = {c.name: c for c in classes}
        self.app_elements = tuple(app_elements)
        for cls in self.app_elements:
            if cls not in self.classes:
                raise ValueError(f"RecordStoreApp {name!r}: app_elements names unknown class {cls!r}")
        for spec in self.classes.values():
            for cls in spec.elements:
                if cls not in self.classes:
                    raise ValueError(f"RecordStoreApp {name!r}: class {spec.name!r} contains unknown class {cls!r}")
        self.app_properties: dict[str, Any] = {"name": name, "frontmost": False, "version": "1.0", "running": True}
        self.app_properties.update(app_properties or {})
        self.extra_commands = dict(commands or {})
        self.records: dict[Any, dict[str, Any]] = {}       # id → stored properties
        self.kinds: dict[Any, str] = {}                    # id → class
        self.parents: dict[Any, Any] = {}                  # id → parent id (None = application)
        self.children: dict[Any, list[Any]] = {None: []}  # parent id → ordered child ids
        self._counter = itertools.count(1)
        props: set[str] = {"id", "class", "container", "properties"} | set(self.app_properties) | set(extra_properties)
        for spec in self.classes.values():
            props |= set(spec.properties) | set(spec.computed)
        cmds = dict(STANDARD_COMMANDS)
        cmds.update(command_params or {})
        for cmd in self.extra_commands:
            cmds.setdefault(cmd, ())
        self.terminology = Terminology(
            classes={c.name: c.plural_name for c in self.classes.values()},
            properties=frozenset(props), commands=cmds, constants=frozenset(constants))

    # -- building state from Python (setup code, tests) -------------------------------------
    def add(self, cls: str, properties: Mapping[str, Any] | None = None, parent: ObjectRef | None = None,
            id: Any = None) -> ObjectRef:
        """Create an object directly (no AppleScript): returns its handle."""
        spec = self._spec(cls)
        rec = {k: v for k, v in spec.properties.items()}
        for k, v in (properties or {}).items():
            if k not in spec.properties:
                raise ValueError(f"{self.name}: class {cls!r} has no property {k!r} (known: {sorted(spec.properties)})")
            rec[k] = v
        oid = id if id is not None else spec.id_format.format(n=next(self._counter))
        if oid in self.records:
            raise ValueError(f"{self.name}: duplicate id {oid!r}")
        pid = parent.id if parent is not None else None
        if pid is not None and pid not in self.records:
            raise ValueError(f"{self.name}: parent {parent!r} does not exist")
        self.records[oid] = rec
        self.kinds[oid] = cls
        self.parents[oid] = pid
        self.children.setdefault(pid, []).append(oid)
        self.children[oid] = []
        return ObjectRef(cls, oid)

    def record(self, obj: ObjectRef) -> dict[str, Any]:
        """The stored properties of an object (live dict)."""
        self._check(obj)
        return self.records[obj.id]

    def all(self, cls: str) -> list[ObjectRef]:
        """Every object of a class, in creation order."""
        return [ObjectRef(k, i) for i, k in self.kinds.items() if k == cls]

    # -- ScriptableApp --------------------------------------------------------------------------
    def _spec(self, cls: str) -> ClassSpec:
        spec = self.classes.get(cls)
        if spec is None:
            raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)
        return spec

    def _check(self, obj: ObjectRef) -> None:
        if obj.id not in self.records or self.kinds[obj.id] != obj.cls:
            raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None:
            if cls in self.app_elements:
                return self.all(cls)
            ids = [i for i in self.children[None] if self.kinds[i] == cls]
            if ids or cls in self.classes and self.classes[cls].parent_class is None:
                return [ObjectRef(cls, i) for i in ids]
            raise AppleScriptError(f"Can’t get every {cls}.", ERR_NO_SUCH_OBJECT)
        self._check(container)
        if cls not in self.classes[container.cls].elements:
            raise AppleScriptError(f"Can’t get every {cls} of {self.describe(container)}.", ERR_NO_SUCH_OBJECT)
        return [ObjectRef(cls, i) for i in self.children[container.id] if self.kinds[i] == cls]

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None:
            if prop in self.app_properties:
                return self.app_properties[prop]
            raise AppleScriptError(f"Can’t get {prop}.", ERR_NO_SUCH_OBJECT)
        self._check(obj)
        spec = self.classes[obj.cls]
        rec = self.records[obj.id]
        if prop == "id":
            return obj.id
        if prop == "class":
            return Constant(obj.cls)
        if prop == "container":
            pid = self.parents[obj.id]
            return ObjectRef(self.kinds[pid], pid) if pid is not None else None
        if prop in spec.computed:
            return spec.computed[prop](rec)
        if prop == "properties":
            out = {"class": Constant(obj.cls), "id": obj.id}
            out.update(rec)
            out.update({k: f(rec) for k, f in spec.computed.items()})
            return out
        if prop in rec:
            return rec[prop]
        raise AppleScriptError(f"Can’t get {prop} of {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def _coerce_prop(self, spec: ClassSpec, prop: str, value: Any) -> Any:
        default = spec.properties.get(prop)
        type_name = _TYPE_NAMES.get(type(default))
        if type_name is None or value is None:
            return value
        return coerce(value, type_name)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is None:
            if prop in self.app_properties and prop not in ("name", "version", "running"):
                self.app_properties[prop] = value
                return
            raise AppleScriptError(f"Can’t set {prop} to {self._show(value)}.", ERR_CANT_SET)
        self._check(obj)
        spec = self.classes[obj.cls]
        if prop in ("id", "class", "container") or prop in spec.readonly or prop in spec.computed \
                or prop not in spec.properties:
            raise AppleScriptError(f"Can’t set {prop} of {self.describe(obj)} to {self._show(value)}.", ERR_CANT_SET)
        self.records[obj.id][prop] = self._coerce_prop(spec, prop, value)

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        spec = self._spec(cls)
        parent = at
        if parent is not None:
            self._check(parent)
            if cls not in self.classes[parent.cls].elements:
                raise AppleScriptError("Can’t make or move that element into that container.", -10024)
        elif spec.parent_class is not None:
            candidates = self.all(spec.parent_class)
            if not candidates:
                raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)
            parent = candidates[0]
        values: dict[str, Any] = {}
        for k, v in properties.items():
            if k in spec.properties and k not in spec.readonly:
                values[k] = self._coerce_prop(spec, k, v)
            # labels the class does not have are ignored, as real apps do
        return self.add(cls, values, parent)

    def delete(self, obj: ObjectRef) -> None:
        self._check(obj)
        for child in list(self.children.get(obj.id, [])):
            self.delete(ObjectRef(self.kinds[child], child))
        pid = self.parents.pop(obj.id)
        self.children[pid].remove(obj.id)
        del self.children[obj.id], self.records[obj.id], self.kinds[obj.id]

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name in self.extra_commands:
            return self.extra_commands[name](self, direct, params)
        if name in ("activate", "reopen"):
            self.app_properties["frontmost"] = True
            self.app_properties["running"] = True
            return None
        if name in ("launch", "run"):
            self.app_properties["running"] = True
            return None
        if name == "quit":
            self.app_properties["running"] = False
            self.app_properties["frontmost"] = False
            return None
        if name in ("move", "duplicate"):
            objs = direct if isinstance(direct, list) else [direct]
            if not objs or not all(isinstance(o, ObjectRef) for o in objs):
                raise AppleScriptError(f"Can’t {name} {self._show(direct)}.", ERR_APP_GENERIC)
            dest = params.get("to")
            if name == "move" and not isinstance(dest, ObjectRef):
                raise AppleScriptError(f"Can’t move {self._show(direct)} to {self._show(dest)}.", ERR_APP_GENERIC)
            out = [self._move(o, dest) if name == "move" else self._duplicate(o, dest) for o in objs]
            return out if isinstance(direct, list) else out[0]
        return super().command(name, direct, params)

    def _container_ok(self, cls: str, dest: ObjectRef) -> None:
        self._check(dest)
        if cls not in self.classes[dest.cls].elements:
            raise AppleScriptError("Can’t make or move that element into that container.", -10024)

    def _move(self, obj: ObjectRef, dest: ObjectRef) -> ObjectRef:
        """``move obj to container``: the object keeps its id and moves to the end of ``dest``."""
        self._check(obj)
        self._container_ok(obj.cls, dest)
        node = dest.id
        while node is not None:  # a folder cannot move into itself or its own subfolder
            if node == obj.id:
                raise AppleScriptError("Can’t make or move that element into that container.", -10024)
            node = self.parents[node]
        old = self.parents[obj.id]
        self.children[old].remove(obj.id)
        self.parents[obj.id] = dest.id
        self.children[dest.id].append(obj.id)
        return obj

    def _duplicate(self, obj: ObjectRef, dest: Any) -> ObjectRef:
        """``duplicate obj [to container]``: a copy of its properties (not its elements)."""
        self._check(obj)
        if isinstance(dest, ObjectRef):
            self._container_ok(obj.cls, dest)
            parent = dest
        else:
            pid = self.parents[obj.id]
            parent = ObjectRef(self.kinds[pid], pid) if pid is not None else None
        return self.add(obj.cls, dict(self.records[obj.id]), parent)

    def describe(self, obj: ObjectRef) -> str:
        return f'{obj.cls} id {source_form(obj.id)} of application "{self.name}"'

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        return None  # the interpreter's generic lookup is fine for a dict store


# ---------------------------------------------------------------------------------------------
# the host
# ---------------------------------------------------------------------------------------------


class ShellResult(NamedTuple):
    """What a ``do shell script`` callback may return (a plain ``str`` means status 0)."""

    status: int
    stdout: str
    stderr: str = ""


@dataclass
class DialogRequest:
    """A ``display dialog`` / ``display alert`` the host must answer."""

    text: str
    buttons: list[str]
    default_button: str | None = None
    cancel_button: str | None = None
    default_answer: str | None = None
    title: str | None = None
    giving_up_after: float | None = None
    kind: str = "dialog"  # or "alert"


@dataclass
class DialogReply:
    """The user's answer: the button pressed, the text typed, and whether it timed out."""

    button: str
    text: str | None = None
    gave_up: bool = False


@dataclass
class Limits:
    """Resource limits for one script run. All are deterministic except ``max_seconds``, the wall clock
    (the env's action deadline, ``EpisodeBudget.action_timeout``): a costly builtin repeated within the
    step budget must still end. An enclosing deadline (``mmenvs.core.budget.current_deadline``, e.g. the
    shell command that runs ``osascript``) ends the script too."""

    max_steps: int = 100_000           # statements, loop turns, handler calls and whose tests
    max_source_chars: int = 200_000
    max_nesting: int = 60              # nested blocks / parentheses in the source
    max_call_depth: int = 100          # nested handler calls → "Stack overflow."
    max_text_length: int = 5_000_000   # characters in one text value → "Out of memory."
    max_list_length: int = 1_000_000
    max_built_chars: int = 64 * 2**20  # characters and list items built in one run, summed → "Out of memory."
    max_seconds: float | None = None   # wall clock of one run → "AppleEvent timed out."


class AppleScriptHost:
    """Everything outside the script: applications, clock, shell, UI and logging.

    ``apps`` is a mapping (names matched case-insensitively) or a callable ``name -> app`` that
    raises ``AppleScriptError`` for unknown apps. The other callables are optional; without them
    ``do shell script`` fails with status 127, dialogs answer with their default button (or the
    last one), keystrokes are recorded in ``self.keystrokes``, notifications in
    ``self.notifications`` and ``log`` lines in ``self.logs``. ``now`` is the injected clock;
    ``path_exists`` answers ``exists POSIX file "…"`` and ``… as alias``.
    """

    def __init__(self, apps: Mapping[str, ScriptableApp] | Callable[[str], ScriptableApp] | None = None, *,
                 now: Callable[[], datetime] | datetime | None = None,
                 shell: Callable[[str], ShellResult | str] | None = None,
                 dialog: Callable[[DialogRequest], DialogReply | str] | None = None,
                 notify: Callable[[str, str | None, str | None], None] | None = None,
                 keystroke: Callable[[str, list[str]], None] | None = None,
                 key_code: Callable[[int, list[str]], None] | None = None,
                 path_exists: Callable[[str], bool] | None = None,
                 home: str = "/Users/user", user: str = "user", limits: Limits | None = None,
                 seed: int = 0) -> None:
        self._apps = apps if apps is not None else {}
        self._now = now
        self._shell = shell
        self._dialog = dialog
        self._notify = notify
        self._keystroke = keystroke
        self._key_code = key_code
        self._path_exists = path_exists
        self.home = home.rstrip("/") or "/"
        self.user = user
        self.limits = limits or Limits()
        self.rng = random.Random(seed)
        self.logs: list[str] = []
        self.clipboard: Any = ""
        self.notifications: list[tuple[str, str | None, str | None]] = []
        self.keystrokes: list[tuple[str, Any, list[str]]] = []

    def app(self, name: str) -> ScriptableApp:
        """The app called ``name``; ``Can’t get application "X". (-1728)`` if there is none."""
        if callable(self._apps) and not isinstance(self._apps, Mapping):
            return self._apps(name)
        for key, app in self._apps.items():
            if key.lower() == name.lower():
                return app
        raise AppleScriptError(f"Can’t get application \"{name}\".", ERR_NO_SUCH_OBJECT)

    def now(self) -> datetime:
        if self._now is None:
            return datetime(2025, 3, 3, 10, 0, 0)
        if isinstance(self._now, datetime):
            return self._now
        return self._now()

    def shell(self, command: str) -> ShellResult:
        if self._shell is None:
            return ShellResult(127, "", "sh: do shell script is not available here")
        out = self._shell(command)
        return ShellResult(0, out) if isinstance(out, str) else out

    def dialog(self, request: DialogRequest) -> DialogReply:
        if self._dialog is None:
            button = request.default_button or (request.buttons[-1] if request.buttons else "OK")
            return DialogReply(button, request.default_answer)
        reply = self._dialog(request)
        return DialogReply(reply, request.default_answer) if isinstance(reply, str) else reply

    def notify(self, text: str, title: str | None, subtitle: str | None) -> None:
        self.notifications.append((text, title, subtitle))
        if self._notify is not None:
            self._notify(text, title, subtitle)

    def keystroke(self, text: str, modifiers: list[str]) -> None:
        self.keystrokes.append(("keystroke", text, modifiers))
        if self._keystroke is not None:
            self._keystroke(text, modifiers)

    def key_code(self, code: int, modifiers: list[str]) -> None:
        self.keystrokes.append(("key code", code, modifiers))
        if self._key_code is not None:
            self._key_code(code, modifiers)

    def path_exists(self, path: str) -> bool:
        """Whether a POSIX path exists on the simulated disk (``exists POSIX file …``, ``as alias``)."""
        if self._path_exists is None:
            raise AppleScriptError(f"Can’t get POSIX file \"{path}\": this host has no file system.",
                                   ERR_NO_SUCH_OBJECT)
        return bool(self._path_exists(path))

    def get_clipboard(self) -> Any:
        """``the clipboard`` (override to share the desktop's pasteboard)."""
        return self.clipboard

    def set_clipboard(self, value: Any) -> None:
        """``set the clipboard to …``."""
        self.clipboard = value

    def log(self, text: str) -> None:
        self.logs.append(text)

    def delay(self, seconds: float) -> None:
        """``delay n``: the simulation does not sleep (override to advance a virtual clock)."""

    def path_to(self, name: str) -> str | None:
        """POSIX path for ``path to <name>`` (``desktop``, ``documents folder``, ``home folder`` …)."""
        folders = {"desktop": "Desktop", "documents folder": "Documents", "downloads folder": "Downloads",
                   "home folder": "", "pictures folder": "Pictures", "music folder": "Music",
                   "movies folder": "Movies", "library folder": "Library", "applications folder": None,
                   "temporary items": None, "startup disk": None}
        if name not in folders:
            return None
        if name == "applications folder":
            return "/Applications/"
        if name == "temporary items":
            return "/private/tmp/"
        if name == "startup disk":
            return "/"
        sub = folders[name]
        return f"{self.home}/{sub}/" if sub else f"{self.home}/"

    def cancel(self) -> AppleScriptError:
        return AppleScriptError("User canceled.", ERR_USER_CANCELED)
