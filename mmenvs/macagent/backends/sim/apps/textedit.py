"""TextEdit: plain-text documents in windows; New, Open… (an open panel over the home folder),
Save / Save As… (a save sheet with name and location, and a Replace alert when the file exists),
closing with unsaved changes asks to save. Files are written as UTF-8 plain text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....applescript.errors import ERR_APP_GENERIC, ERR_NO_SUCH_OBJECT, AppleScriptError
from ....applescript.model import STANDARD_COMMANDS, ObjectRef, Terminology
from ..menus import MenuItem, sep
from ..scripting import WindowScripting, path_text
from ..widgets import Box, TextField, Widget
from ..window import Window
from .documents import DocumentApp
from . import file_panels
from .home_io import error_text, file_alert, read_text, save_text

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop


@dataclass
class Document:
    """An open TextEdit document."""

    id: int
    name: str
    text: str = ""
    path: Path | None = None
    modified: bool = False


class TextEditScripting(WindowScripting):
    """TextEdit's dictionary: documents (name, text, path, modified), windows (their document);
    open/save/close. Windows' name, index, id, bounds and the lifecycle come from WindowScripting."""

    version = "1.20"

    def __init__(self, app: "TextEditApp") -> None:
        self.app = app
        self.name = "TextEdit"
        cmds = dict(STANDARD_COMMANDS)
        self.terminology = Terminology(classes={"document": "documents", "window": "windows"},
                                       properties=frozenset({"name", "text", "path", "modified", "id", "document",
                                                             "index", "visible", "bounds", "frontmost", "version"}),
                                       commands=cmds)

    def _doc(self, obj: ObjectRef) -> Document:
        for d in self.app.documents:
            if d.id == obj.id:
                return d
        raise AppleScriptError(f"Can’t get {self.describe(obj)}.", ERR_NO_SUCH_OBJECT)

    def describe(self, obj: ObjectRef) -> str:
        if obj.cls == "document":
            for d in self.app.documents:
                if d.id == obj.id:
                    return f'document "{d.name}" of application "TextEdit"'
        return super().describe(obj)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls == "document":
            return [ObjectRef("document", d.id) for d in self.app.documents_front_first()]
        return super().elements(container, cls)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None or obj.cls == "window" and prop != "document":
            return super().get_property(obj, prop)
        if obj.cls == "window":
            return ObjectRef("document", self.window(obj).doc.id)
        d = self._doc(obj)
        if prop == "name":
            return d.name
        if prop == "text":
            return d.text
        if prop == "path":
            return self.app.desktop.backend.posix_path(d.path) if d.path is not None else None
        if prop == "modified":
            return d.modified
        if prop == "id":
            return d.id
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and obj.cls == "document" and prop in ("text", "name"):
            d = self._doc(obj)
            if prop == "text":
                d.text = str(value)
                d.modified = True
            else:
                d.name = str(value)
            self.app.touch()
            return
        super().set_property(obj, prop, value)

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        if cls != "document":
            raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)
        doc = self.app.new_document(text=str(properties.get("text", "")), name=properties.get("name"))
        return ObjectRef("document", doc.id)

    def delete(self, obj: ObjectRef) -> None:
        d = self._doc(obj)
        self.app.close_document(d)

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name == "save":
            doc = self._doc(_ref(direct, "document")) if direct is not None else self.app.front_document()
            if doc is None:
                raise AppleScriptError("Can’t get document 1.", ERR_NO_SUCH_OBJECT)
            target = params.get("in")
            path = self.app.desktop.backend.host_path(path_text(target)) if target is not None else doc.path
            if path is None:
                raise AppleScriptError(f"The document “{doc.name}” has never been saved; give a file with “in”.", ERR_APP_GENERIC)
            try:
                self.app.write(doc, path)
            except OSError as e:
                raise AppleScriptError(f"The document “{doc.name}” could not be saved. {error_text(e)}", ERR_APP_GENERIC) from None
            return None
        if name == "open":
            items = direct if isinstance(direct, list) else [direct]
            out = []
            for it in items:
                path = self.app.desktop.backend.host_path(path_text(it))
                if not self.app.desktop.home_files.exists(path):
                    raise AppleScriptError(f"The file “{path.name}” couldn’t be opened because there is no such file.", -43)
                try:
                    doc = self.app.load(path)
                except OSError as e:
                    raise AppleScriptError(f"The document “{path.name}” could not be opened. {error_text(e)}", -43) from None
                out.append(ObjectRef("document", doc.id))
            return out[0] if len(out) == 1 else out
        if name == "close":
            if direct is None:
                doc = self.app.front_document()
                if doc is not None:
                    self.app.close_document(doc)
                return None
            items = direct if isinstance(direct, list) else [direct]
            for it in items:
                ref = _ref(it, "document")
                if ref.cls == "window":
                    w = self.window(ref)
                    self.app.close_document(w.doc)
                else:
                    self.app.close_document(self._doc(ref))
            return None
        return super().command(name, direct, params)


def _ref(value: Any, cls: str) -> ObjectRef:
    if isinstance(value, ObjectRef):
        return value
    obj = getattr(value, "ref", None)
    if isinstance(obj, ObjectRef):
        return obj
    raise AppleScriptError(f"Can’t make {value!r} into type {cls}.", -1700)


class TextEditApp(DocumentApp):
    """TextEdit; ``documents`` are the open documents."""

    name = "TextEdit"
    bundle_id = "com.apple.TextEdit"
    save_button = "Save…"
    documents: list[Document]

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self._next = 1
        self.scripting = TextEditScripting(self)

    # ------------------------------------------------------------------ model
    def new_document(self, text: str = "", name: str | None = None) -> Document:
        if name is None:
            n = len([d for d in self.documents if d.path is None]) + 1
            name = "Untitled" if n == 1 else f"Untitled {n}"
        doc = Document(self._next, str(name), text, None, bool(text))
        self._next += 1
        self.documents.append(doc)
        self._open_window(doc)
        return doc

    def can_open(self, path: Path) -> bool:
        """``open -a TextEdit`` (or ``open -e``) opens any file as text."""
        return True

    def open_file(self, path: Path) -> Document | None:
        """Finder / ``open``: open the file as text, or say in an alert why it cannot be opened."""
        try:
            return self.load(path)
        except OSError as e:
            file_alert(self, None, f"The document “{path.name}” could not be opened.", e)
            return None

    def load(self, path: Path) -> Document:
        """Open the file at ``path`` as text (its window shown); raises ``OSError`` (a ``ConfinementError``
        naming the file) for a symlink, a special file, a folder or a file over ``MAX_TEXT_BYTES``."""
        doc = self.already_open(path)
        if doc is not None:
            return doc
        text = read_text(self.desktop.home_files, path)
        doc = Document(self._next, path.name, text, path, False)
        self._next += 1
        self.documents.append(doc)
        self._open_window(doc)
        return doc

    def write(self, doc: Document, path: Path) -> None:
        """Save ``doc`` as UTF-8 plain text at ``path`` (inside the home folder)."""
        save_text(self.desktop.home_files, path, doc.text)
        doc.path, doc.name, doc.modified = path, path.name, False
        for w in self.windows:
            if w.doc is doc:
                w.title = doc.name
        self.touch()

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "documents": [
            {"name": d.name, "text": d.text, "path": self.desktop.backend.posix_path(d.path) if d.path else None,
             "modified": d.modified} for d in self.documents_front_first()]}

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window | None:
        return self.window_of(self.new_document())

    def _open_window(self, doc: Document) -> Window:
        w, h = 640, 480
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, doc.name, (x, y, w, h), self._build, doc=doc)
        win.focus_key = "textedit:text"
        self.desktop.show_window(win)
        return win

    def save_sheet(self, win: Window, then_close: bool = False) -> Window:
        """The save panel: "Save As", "Where" (a location popup), Cancel and Save; a name without an
        extension gets ".txt"."""
        doc: Document = win.doc
        default = doc.name if "." in doc.name else doc.name + ".txt"
        return file_panels.save_sheet(self, win, verb="Save", default=default,
                                      selected=default.rfind(".") if "." in default else len(default),
                                      file_name=lambda name: name if "." in name else name + ".txt",
                                      on_save=lambda path: self.finish_save(win, path, then_close),
                                      format_text="Plain Text (UTF-8)")

    def open_panel(self) -> Window:
        """The open panel: choose a location, pick a file, Open."""
        return file_panels.open_panel(self)

    def app_menus(self) -> list:
        fw = self._front()
        is_doc = fw is not None and fw.doc is not None
        return [("File", [
            MenuItem("New", self.new_document, "cmd+n"),
            MenuItem("Open…", self.open_panel, "cmd+o"),
            sep(),
            MenuItem("Close", self._close_front, "cmd+w", enabled=fw is not None),
            MenuItem("Save…", lambda: self.save(fw), "cmd+s", enabled=is_doc),
            MenuItem("Save As…", lambda: self.save(fw, save_as=True), "cmd+shift+s", enabled=is_doc),
        ])]

    def extra_menus(self) -> list:
        return [("Format", [MenuItem("Make Plain Text", enabled=False, checked=True)])]

    def _build(self, win: Window) -> list[Widget]:
        doc: Document = win.doc
        win.title = doc.name + (" — Edited" if doc.modified else "")
        ed = win.editor("textedit:text", doc.text, multiline=True)

        def changed(t: str) -> None:
            doc.text = t
            doc.modified = True

        return [Box((0, 28, win.w, win.h - 28), "content_bg"),
                TextField("textedit:text", (0, 28, win.w, win.h - 28), ed, bordered=False, name=doc.name, size=13,
                          on_change=changed)]
