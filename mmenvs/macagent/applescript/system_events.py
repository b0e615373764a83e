"""``System Events``: appearance preferences, processes and synthetic keystrokes.

The desktop owns the state; this app only exposes it to AppleScript:

* ``appearance`` — a mutable mapping holding ``dark mode`` (bool) and the other appearance
  preferences (``highlight color``, ``font smoothing``, ``scroll bar action`` …). ``highlight color``
  is one of System Events' enumerators (``blue``, ``gold``, ``graphite``, ``green``, ``orange``,
  ``purple``, ``red``, ``silver``) or an RGB color (a list of three integers 0–65535); the app checks
  values against that before the mapping sees them;
* ``processes`` — a callable returning the running apps as dicts with ``name``, ``frontmost``,
  ``visible`` and optionally ``bundle identifier``;
* ``activate`` — called with an app name when a script sets ``frontmost`` (or ``visible``) of a
  process to true; ``hide`` when it sets ``visible`` to false;
* ``desktop`` — a mutable mapping for ``desktop 1``/``current desktop``: ``picture`` (the wallpaper's
  POSIX path; a ``POSIX file`` is accepted too) and ``display name``;
* ``keystroke`` / ``key code`` go to the host's ``keystroke`` / ``key_code`` callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from .errors import ERR_CANT_SET, ERR_NO_SUCH_OBJECT, AppleScriptError
from .model import STANDARD_COMMANDS, AppleScriptHost, ObjectRef, ScriptableAppBase, Terminology
from .values import Constant, FileRef, source_form

APPEARANCE = ObjectRef("appearance preferences object", "appearance preferences")
#: System Events' ``highlight color`` enumeration (the property also takes an RGB color)
HIGHLIGHT_COLORS = ("blue", "gold", "graphite", "green", "orange", "purple", "red", "silver")
DESKTOP = ObjectRef("desktop", 1)
_PROCESS_PROPS = ("name", "frontmost", "visible", "bundle identifier", "displayed name", "unix id",
                  "background only")


class SystemEventsApp(ScriptableAppBase):
    """The ``System Events`` application over desktop-provided state (see the module docstring)."""

    name = "System Events"

    def __init__(self, host: AppleScriptHost, appearance: MutableMapping[str, Any] | None = None,
                 processes: Callable[[], list[dict[str, Any]]] | None = None,
                 activate: Callable[[str], None] | None = None,
                 hide: Callable[[str], None] | None = None,
                 desktop: MutableMapping[str, Any] | None = None) -> None:
        self.host = host
        self.appearance: MutableMapping[str, Any] = appearance if appearance is not None else {
            "dark mode": False, "highlight color": Constant("blue"), "font smoothing": True,
            "scroll bar action": Constant("jump to next page")}
        self._processes = processes or (lambda: [])
        self._activate = activate
        self._hide = hide
        # the (single) display's desktop: ``picture`` is the wallpaper's POSIX path
        self.desktop: MutableMapping[str, Any] = desktop if desktop is not None else {
            "picture": "/System/Library/Desktop Pictures/Sequoia.heic", "display name": "Built-in Display"}
        self.terminology = Terminology(
            classes={"process": "processes", "application process": "application processes",
                     "appearance preferences object": "appearance preferences objects",
                     "desktop": "desktops"},
            properties=frozenset({"appearance preferences", "dark mode", "highlight color", "font smoothing",
                                  "scroll bar action", "name", "frontmost", "visible", "bundle identifier",
                                  "displayed name", "unix id", "version", "background only", "picture",
                                  "display name", "current desktop"}),
            commands={**STANDARD_COMMANDS, "keystroke": ("using",), "key code": ("using",)},
            constants=frozenset({"jump to here", "jump to next page", *HIGHLIGHT_COLORS}))

    def describe(self, obj: ObjectRef) -> str:
        if obj == DESKTOP:
            return 'desktop 1 of application "System Events"'
        if obj == APPEARANCE:
            return 'appearance preferences of application "System Events"'
        return f'{obj.cls} {source_form(obj.id)} of application "System Events"'

    def _procs(self) -> list[dict[str, Any]]:
        return list(self._processes())

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls in ("process", "application process"):
            return [ObjectRef(cls, p["name"]) for p in self._procs()]
        if container is None and cls == "desktop":
            return [DESKTOP]
        return super().elements(container, cls)

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if container is None and cls in ("process", "application process"):
            for p in self._procs():
                if str(p["name"]).lower() == str(name).lower():
                    return ObjectRef(cls, p["name"])
        return None

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None:
            if prop == "appearance preferences":
                return APPEARANCE
            if prop == "current desktop":
                return DESKTOP
            if prop == "name":
                return self.name
            if prop == "version":
                return "1.3.6"
            raise AppleScriptError(f"Can’t get {prop}.", ERR_NO_SUCH_OBJECT)
        if obj == APPEARANCE:
            if prop in self.appearance:
                return self.appearance[prop]
            raise AppleScriptError(f"Can’t get {prop} of appearance preferences.", ERR_NO_SUCH_OBJECT)
        if obj == DESKTOP:
            if prop == "name":
                return self.desktop.get("display name", "")
            if prop in self.desktop:
                return self.desktop[prop]
            raise AppleScriptError(f"Can’t get {prop} of desktop 1.", ERR_NO_SUCH_OBJECT)
        for p in self._procs():
            if p["name"] == obj.id:
                if prop in p:
                    return p[prop]
                if prop == "displayed name":
                    return p["name"]
                if prop == "background only":
                    return False
                if prop in _PROCESS_PROPS:
                    return None
                break
        raise AppleScriptError(f"Can’t get {prop} of {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj == APPEARANCE and prop in self.appearance:
            if prop in ("dark mode", "font smoothing") and not isinstance(value, bool):
                raise AppleScriptError(f"Can’t make {source_form(value)} into type boolean.", -1700)
            if prop == "highlight color":
                value = highlight_value(value)
            self.appearance[prop] = value
            return
        if obj == DESKTOP and prop == "picture":
            path = value.path if isinstance(value, FileRef) else value
            if not isinstance(path, str):
                raise AppleScriptError(f"Can’t make {source_form(value)} into type file.", -1700)
            self.desktop["picture"] = path
            return
        if obj is not None and obj.cls in ("process", "application process"):
            if prop == "frontmost" and value is True and self._activate is not None:
                self._activate(str(obj.id))
                return
            if prop == "visible" and value is False and self._hide is not None:
                self._hide(str(obj.id))
                return
            if prop == "visible" and value is True and self._activate is not None:
                self._activate(str(obj.id))
                return
        target = "application" if obj is None else self.describe(obj)
        raise AppleScriptError(f"Can’t set {prop} of {target} to {source_form(value)}.", ERR_CANT_SET)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        using = params.get("using", [])
        mods = [m.name if isinstance(m, Constant) else str(m) for m in (using if isinstance(using, list) else [using])]
        if name == "keystroke":
            if not isinstance(direct, str):
                raise AppleScriptError(f"Can’t make {source_form(direct)} into type text.", -1700)
            self.host.keystroke(direct, mods)
            return None
        if name == "key code":
            codes = direct if isinstance(direct, list) else [direct]
            for code in codes:
                if not isinstance(code, int) or isinstance(code, bool):
                    raise AppleScriptError(f"Can’t make {source_form(code)} into type integer.", -1700)
                self.host.key_code(code, mods)
            return None
        return super().command(name, direct, params)


def highlight_value(value: Any) -> Constant | list[int]:
    """A value for ``highlight color``: one of :data:`HIGHLIGHT_COLORS` or an RGB color ``{r, g, b}``
    (integers 0–65535); anything else is refused as System Events refuses it."""
    if isinstance(value, Constant) and value.name.lower() in HIGHLIGHT_COLORS:
        return Constant(value.name.lower())
    if (isinstance(value, list) and len(value) == 3
            and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 65535 for c in value)):
        return list(value)
    raise AppleScriptError(f"Can’t make {source_form(value)} into type RGB color: a highlight color is one of "
                           f"{', '.join(HIGHLIGHT_COLORS)} or a list of three integers from 0 to 65535.", -1700)
