"""The document bookkeeping TextEdit, Pages, Keynote and Numbers share: ``documents`` holds the open
documents, each shown in one window (``win.doc``; the app's other windows have no document), and a
document has a ``name``, a ``path`` (None until saved) and a ``modified`` flag. The apps' Open panel and
save sheets are in :mod:`.file_panels`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..window import Window, alert
from .base import App
from .home_io import file_alert

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop


def _parts(files: Any, path: Path) -> tuple[str, ...] | None:
    try:
        return files.parts(path)
    except OSError:
        return None


class DocumentApp(App):
    """An app of documents in windows. Subclasses create documents and their windows (``new_window``)
    and implement ``write`` and ``save_sheet``."""

    save_button = "Save"  # the close alert's first button (TextEdit says "Save…")

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.documents: list[Any] = []

    def write(self, doc: Any, path: Path) -> None:
        """Write ``doc`` to the file ``path``; it becomes the document's file (not modified any more)."""
        raise NotImplementedError

    def save_sheet(self, win: Window, then_close: bool = False) -> Window:
        """Ask for a name and location (see :func:`.file_panels.save_sheet`), then ``finish_save``."""
        raise NotImplementedError

    def save(self, win: Window | None, then_close: bool = False, save_as: bool = False) -> None:
        """File > Save (Save As / Duplicate with ``save_as``): write the document to its file, or ask with
        the save sheet when it has none; ``then_close`` closes the window after writing."""
        if win is None or win.doc is None:
            return
        if win.doc.path is not None and not save_as:
            self.finish_save(win, win.doc.path, then_close)
        else:
            self.save_sheet(win, then_close)

    def finish_save(self, win: Window, path: Path, then_close: bool) -> None:
        """Write ``win``'s document to ``path``; with ``then_close`` (Save in the close alert) the
        window closes after. A file that cannot be written (a symlink, a special file, a folder in the
        way: ``OSError``) is reported in an alert on the window, which stays open."""
        try:
            self.write(win.doc, path)
        except OSError as e:
            file_alert(self, win, f"The document “{win.doc.name}” could not be saved.", e)
            return
        if then_close:
            self.desktop.close_window(win)

    def documents_front_first(self) -> list[Any]:
        """The open documents: those in windows from the front window back, then any without one."""
        seen: list[Any] = []
        for w in self.windows:
            if w.doc is not None and w.doc not in seen:
                seen.append(w.doc)
        return seen + [d for d in self.documents if d not in seen]

    def front_document(self) -> Any | None:
        docs = self.documents_front_first()
        return docs[0] if docs else None

    def window_of(self, doc: Any) -> Window | None:
        return next((w for w in self.windows if w.doc is doc), None)

    def untitled_name(self) -> str:
        """"Untitled", else the first free "Untitled 2", "Untitled 3", … among the open documents."""
        names = {d.name for d in self.documents}
        n = 1
        while (f"Untitled {n}" if n > 1 else "Untitled") in names:
            n += 1
        return f"Untitled {n}" if n > 1 else "Untitled"

    def already_open(self, path: Path) -> Any | None:
        """The open document saved at ``path``, its window brought to the front; None if there is none
        (opening a file twice shows the first one again, as on a Mac)."""
        files = self.desktop.home_files
        try:
            wanted = files.parts(path)
        except OSError:
            return None
        for d in self.documents:
            # compared lexically (paths are the home's own names; nothing is resolved through a link)
            if d.path is not None and _parts(files, d.path) == wanted:
                w = self.window_of(d)
                if w is not None:
                    self.desktop.raise_window(w)
                return d
        return None

    def close_document(self, doc: Any) -> None:
        """Close ``doc`` and its window without asking."""
        for w in list(self.windows):
            if w.doc is doc:
                self.desktop.close_window(w, force=True)
        if doc in self.documents:
            self.documents.remove(doc)
        self.touch()

    def reopen(self) -> None:
        # minimized windows stay in the Dock: activating the app with no visible window starts a new one
        if not [w for w in self.windows if not w.minimized]:
            self.new_window()

    def window_closed(self, win: Window) -> None:
        if win.doc in self.documents and not any(w.doc is win.doc for w in self.windows):
            self.documents.remove(win.doc)

    def request_close(self, win: Window) -> None:
        """Close ``win``; with unsaved changes, first ask: Save (then close), Cancel or Don’t Save."""
        doc = win.doc
        if doc is None or not doc.modified:
            self.desktop.close_window(win)
            return
        alert(self, win, f"Do you want to save the changes made to the document “{doc.name}”?",
              "Your changes will be lost if you don’t save them.",
              [(self.save_button, lambda: self.save(win, then_close=True)), ("Cancel", lambda: None),
               ("Don’t Save", lambda: self.desktop.close_window(win))], default=0, cancel=1)
