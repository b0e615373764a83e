"""Visual Studio Code: an editor over real files of the episode's home.

What is on disk is what the real app keeps there: user settings in
``~/Library/Application Support/Code/User/settings.json`` (JSON with comments, read leniently; the
Settings editor writes it, and edits made to the file show in the Settings editor), extensions in
``~/.vscode/extensions/<id>-<version>/`` with the index ``~/.vscode/extensions/extensions.json``.
Extensions come from an offline Marketplace catalogue shipped with the sim
(``data/vscode_catalogue.json``: ids, versions, dependencies, the settings and themes they
contribute).

The GUI: an activity bar (Explorer, Extensions, Settings), the Explorer over the opened folder
(click a file to open it in a tab; right-click for new file / new folder / rename / delete), tabs
with unsaved-change dots, editing (Tab inserts ``editor.tabSize`` spaces when
``editor.insertSpaces``), save (cmd-s; ``files.trimTrailingWhitespace``,
``files.insertFinalNewline`` and ``files.trimFinalNewlines`` apply on save, ``files.autoSave``
``afterDelay`` saves as you type), closing a changed tab asks first, Quick Open (cmd-p), Go to Line
(ctrl-g), the Command Palette (cmd-shift-p) with real command names, the Settings editor (cmd-,) with
search, and the Extensions view with Marketplace search, Install and Uninstall.

The ``code`` command in the episode's shell: ``code <path>`` (a folder opens in the Explorer, a file
in a tab; ``-g file:line[:col]`` goes to a line), ``--list-extensions [--show-versions]``,
``--install-extension <id>[@version]`` (with its dependencies), ``--uninstall-extension <id>``,
``--version``, ``--help``. Like the real app, VS Code has no AppleScript dictionary (scripts can only
``activate``/``quit`` it).
"""

from __future__ import annotations

import errno
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..menus import MenuItem, sep
from ..widgets import Box, Button, Checkbox, Label, ListView, PopupButton, Row, TextField, Widget
from ..window import Window, alert, text_prompt
from mmenvs.core.confined import ConfinementError

from .base import App, CommandContext
from .home_io import MAX_TEXT_BYTES, checked_name, entry_kind, error_text, read_text, save_text
from .obsidian import PickItem, TreeList, quick_pick

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop

CATALOGUE_PATH = Path(__file__).resolve().parent.parent / "data" / "vscode_catalogue.json"
SETTINGS_PATH = "Library/Application Support/Code/User/settings.json"
EXTENSIONS_DIR = ".vscode/extensions"
DARK_THEMES = frozenset({"Default Dark Modern", "Default Dark+", "Default High Contrast", "Abyss", "Kimbie Dark", "Monokai",
                         "Red", "Solarized Dark", "Tomorrow Night Blue", "One Dark Pro", "One Dark Pro Darker",
                         "One Dark Pro Flat", "Dracula Theme", "Dracula Theme Soft", "GitHub Dark Default",
                         "GitHub Dark Dimmed"})
LANGUAGES = {".py": "Python", ".js": "JavaScript", ".ts": "TypeScript", ".json": "JSON", ".md": "Markdown",
             ".html": "HTML", ".css": "CSS", ".sh": "Shell Script", ".yml": "YAML", ".yaml": "YAML", ".toml": "TOML",
             ".c": "C", ".h": "C", ".cpp": "C++", ".go": "Go", ".rs": "Rust", ".txt": "Plain Text", ".csv": "CSV",
             ".java": "Java", ".rb": "Ruby", ".sql": "SQL", ".xml": "XML", ".ini": "Ini", ".cfg": "Ini"}
_NOT_FOUND_HINT = "Make sure you use the full extension ID, including the publisher, e.g.: ms-dotnettools.csharp"
_WRITE_ERROR = ("Unable to write into user settings. Please open the user settings file to correct errors/warnings in it "
                "and try again.")


@functools.cache
def catalogue() -> dict[str, Any]:
    """The offline Marketplace and core settings (read once per process)."""
    return json.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))


def parse_jsonc(text: str) -> Any:
    """Parse JSON with comments (``//``, ``/* */``) and trailing commas, as VS Code reads settings.json.
    Raises ValueError naming the line and column of the problem."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            out.append(" " * ((n if j < 0 else j + 2) - i))  # keep columns for error positions
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    cleaned = re.sub(r",(\s*[}\]])", r" \1", "".join(out))
    if not cleaned.strip():
        return {}
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError as e:
        raise ValueError(f"settings.json: {e.msg} at line {e.lineno}, column {e.colno}") from None


def setting_title(key: str) -> str:
    """How the Settings editor shows a key: ``editor.fontSize`` → ``Editor: Font Size``,
    ``editor.minimap.enabled`` → ``Editor › Minimap: Enabled``."""
    parts = key.split(".")

    def words(s: str) -> str:
        s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", s.replace("_", " ").replace("-", " "))
        return " ".join(w[:1].upper() + w[1:] for w in s.split())

    if len(parts) == 1:
        return words(key)
    return " › ".join(words(p) for p in parts[:-1]) + ": " + words(parts[-1])


@dataclass
class Tab:
    """An open editor: a file (``path``; None for an untitled file), the Settings editor, or an
    extension's page."""

    id: int
    kind: str  # file | settings | extension
    name: str
    path: Path | None = None
    text: str = ""
    saved: str = ""  # the text as last read from / written to disk
    ext_id: str | None = None

    @property
    def dirty(self) -> bool:
        return self.kind == "file" and (self.text != self.saved if self.path is not None else bool(self.text))


class CodeField(TextField):
    """The code editor: Tab inserts spaces (``editor.insertSpaces``/``editor.tabSize``), ctrl-g asks
    for a line to go to."""

    app: "VSCodeApp"

    def key_event(self, win: Window, key: str, mods: frozenset) -> bool:
        if key == "tab" and not mods and self.app.setting("editor.insertSpaces"):
            size = int(self.app.setting("editor.tabSize") or 4)
            ed = self.editor
            col = ed.cursor - (ed.text.rfind("\n", 0, ed.cursor) + 1)
            self.text(win, " " * (size - col % size))
            return True
        if key == "g" and mods == {"ctrl"}:
            self.app.go_to_line_prompt()
            return True
        return super().key_event(win, key, mods)


def _parse_setting(text: str, kind: str) -> Any:
    """The value a Settings editor field means: a number field's int or float (None if not a number),
    a string field's text."""
    if kind != "number":
        return text
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    try:
        return float(t)
    except ValueError:
        return None


class FocusCheckbox(Checkbox):
    """A checkbox Tab can reach (space toggles it), as in VS Code's Settings editor."""

    focusable = True


class ThemedButton(Button):
    """A borderless button drawn in the editor theme's colour (tabs, activity bar), not the system's."""

    def __init__(self, *args: Any, fg: tuple[int, int, int] = (204, 204, 204), **kwargs: Any) -> None:
        super().__init__(*args, style="plain", **kwargs)
        self.fg = fg

    def draw(self, d: Any, theme: Any, focused: bool) -> None:
        from ..theme import font
        from ..widgets import fit_text

        x, y, w, h = self.rect
        label = self.symbol or self.name
        d.text((x + w // 2, y + h // 2), fit_text(label, w - 6, self.size), font=font(self.size), fill=self.fg, anchor="mm")


class VSCodeApp(App):
    """Visual Studio Code with one window: ``folder`` (the opened folder), ``tabs``, ``active``."""

    name = "Visual Studio Code"
    bundle_id = "com.microsoft.VSCode"
    shell_commands = {"code": False}

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.folder: Path | None = None
        self.tabs: list[Tab] = []
        self.active: Tab | None = None
        self.sidebar = "Explorer"  # Explorer | Extensions
        self.ext_query = ""
        self.settings_query = ""
        self.settings_selected: str | None = None
        self.collapsed: set[str] = set()
        self._ids = 0
        self.message = ""  # the last notification (bottom right), e.g. an error writing settings
        self._memo: dict[str, tuple[tuple, Any]] = {}

    def _cached(self, name: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` memoized until the desktop handles an event (gen), a shell command runs (fs_epoch)
        or this app changes something (version): disk state cannot change in between."""
        d = self.desktop
        key = (d.gen, getattr(d, "fs_epoch", 0), self.version)
        hit = self._memo.get(name)
        if hit is None or hit[0] != key:
            hit = self._memo[name] = (key, compute())
        return hit[1]

    # ------------------------------------------------------------------ settings
    @property
    def settings_file(self) -> Path:
        return self.desktop.home / SETTINGS_PATH

    def read_settings(self) -> tuple[dict[str, Any], str | None]:
        """(user settings, error): a missing file is no settings; a broken one gives its error."""
        data, err = self._cached("settings", self._read_settings)
        return dict(data), err

    def _read_settings(self) -> tuple[dict[str, Any], str | None]:
        try:
            text = self.desktop.home_files.read_bytes(self.settings_file, limit=MAX_TEXT_BYTES).decode("utf-8")
        except ConfinementError as e:
            if e.errno == errno.ENOENT:
                return {}, None
            return {}, f"settings.json: {error_text(e)}"
        except UnicodeDecodeError as e:
            return {}, f"settings.json: {e}"
        try:
            data = parse_jsonc(text)
        except ValueError as e:
            return {}, str(e)
        if not isinstance(data, dict):
            return {}, f"settings.json: expected an object at the top level, got {type(data).__name__}"
        return data, None

    def known_settings(self) -> list[dict[str, Any]]:
        """Core settings, then those of installed extensions."""
        out = list(catalogue()["settings"])
        installed = {e["id"].lower() for e in self.installed()}
        for ext in catalogue()["extensions"]:
            if ext["id"].lower() in installed:
                out += ext.get("settings", [])
        return out

    def setting_spec(self, key: str) -> dict[str, Any] | None:
        return next((s for s in self.known_settings() if s["key"] == key), None)

    def setting(self, key: str) -> Any:
        """The effective value of ``key``: the user's, else the default."""
        data, _err = self.read_settings()
        if key in data:
            return data[key]
        spec = self.setting_spec(key)
        return spec["default"] if spec else None

    def set_setting(self, key: str, value: Any) -> None:
        """Write ``key`` into settings.json (a value equal to the default removes the entry, as the
        Settings editor does). Raises ValueError when the file cannot be parsed."""
        data, err = self.read_settings()
        if err is not None:
            raise ValueError(f"{_WRITE_ERROR} ({err})")
        spec = self.setting_spec(key)
        if spec is not None and value == spec["default"]:
            data.pop(key, None)
        else:
            data[key] = value
        self._write_settings(data)
        self.touch()

    def _write_settings(self, data: dict[str, Any]) -> None:
        """Write settings.json through the home's layer (a symlinked file: ValueError with the reason)."""
        try:
            save_text(self.desktop.home_files, self.settings_file, json.dumps(data, indent=4, ensure_ascii=False) + "\n")
        except OSError as e:
            raise ValueError(f"{_WRITE_ERROR} ({error_text(e)})") from None

    def reset_setting(self, key: str) -> None:
        data, err = self.read_settings()
        if err is not None:
            raise ValueError(f"{_WRITE_ERROR} ({err})")
        if key in data:
            del data[key]
            self._write_settings(data)
        self.touch()

    def themes(self) -> list[str]:
        out = list(catalogue()["themes"])
        installed = {e["id"].lower() for e in self.installed()}
        for ext in catalogue()["extensions"]:
            if ext["id"].lower() in installed:
                out += ext.get("themes", [])
        return out

    @property
    def dark(self) -> bool:
        return str(self.setting("workbench.colorTheme")) in DARK_THEMES

    # ------------------------------------------------------------------ extensions
    @property
    def extensions_dir(self) -> Path:
        return self.desktop.home / EXTENSIONS_DIR

    @staticmethod
    def find_extension(ext_id: str) -> dict[str, Any] | None:
        low = ext_id.lower()
        return next((e for e in catalogue()["extensions"] if e["id"].lower() == low), None)

    def _index(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.desktop.home_files.read_bytes(self.extensions_dir / "extensions.json", limit=MAX_TEXT_BYTES))
        except (OSError, ValueError):
            return []
        return [e for e in data if isinstance(e, dict) and isinstance(e.get("identifier"), dict)] if isinstance(data, list) else []

    def installed(self) -> list[dict[str, Any]]:
        """Installed extensions (``id``, ``version``, ``name``): entries of extensions.json whose folder exists."""
        return list(self._cached("installed", self._installed))

    def _installed(self) -> list[dict[str, Any]]:
        out = []
        for e in self._index():
            rel = e.get("relativeLocation") or ""
            if isinstance(rel, str) and rel and entry_kind(self.desktop.home_files, self.extensions_dir / rel) == "dir":
                cat = self.find_extension(e["identifier"].get("id", ""))
                out.append({"id": cat["id"] if cat else e["identifier"].get("id", ""), "version": e.get("version", ""),
                            "name": cat["name"] if cat else e["identifier"].get("id", "")})
        return sorted(out, key=lambda e: e["id"].lower())

    def is_installed(self, ext_id: str) -> bool:
        return any(e["id"].lower() == ext_id.lower() for e in self.installed())

    def install(self, spec: str, force: bool = False) -> list[str]:
        """Install ``id`` or ``id@version`` from the catalogue, dependencies first. Returns the
        messages the CLI prints; raises ValueError with the CLI's message when it cannot."""
        ext_id, _, version = spec.partition("@")
        ext = self.find_extension(ext_id)
        if ext is None:
            raise ValueError(f"Extension '{ext_id}' not found.\n{_NOT_FOUND_HINT}")
        if version and version != ext["version"]:
            raise ValueError(f"Can't install '{ext['id']}' extension because version '{version}' is not available in the "
                             f"Marketplace; the Marketplace has version {ext['version']}.")
        if self.is_installed(ext["id"]) and not force:
            return [f"Extension '{ext['id']}' v{ext['version']} is already installed. Use '--force' option to update to "
                    f"latest version or provide '@<version>' to install a specific version, for example: "
                    f"'{ext['id']}@1.2.3'."]
        out = []
        for dep in ext.get("dependencies", []):
            if not self.is_installed(dep):
                out += self.install(dep)
        self._write_extension(ext)
        out.append(f"Extension '{ext['id']}' v{ext['version']} was successfully installed.")
        self.touch()
        return out

    def _write_extension(self, ext: dict[str, Any]) -> None:
        folder_name = f"{ext['id'].lower()}-{ext['version']}"
        folder = self.extensions_dir / folder_name
        files = self.desktop.home_files
        try:
            files.mkdir(folder, parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"Cannot install '{ext['id']}': {error_text(e)}") from None
        publisher, _, name = ext["id"].partition(".")
        contributes: dict[str, Any] = {}
        if ext.get("settings"):
            contributes["configuration"] = {"title": ext["name"], "properties": {
                s["key"]: {k: v for k, v in s.items() if k != "key"} for s in ext["settings"]}}
        if ext.get("themes"):
            contributes["themes"] = [{"label": t, "uiTheme": "vs-dark"} for t in ext["themes"]]
        manifest = {"name": name, "publisher": publisher, "displayName": ext["name"], "version": ext["version"],
                    "description": ext["description"], "categories": ext["categories"],
                    "extensionDependencies": ext.get("dependencies", []), "contributes": contributes}
        self._write_json(folder / "package.json", manifest, indent=2)
        index = [e for e in self._index() if e["identifier"].get("id", "").lower() != ext["id"].lower()]
        index.append({"identifier": {"id": ext["id"].lower()}, "version": ext["version"],
                      "location": {"$mid": 1, "path": self.desktop.backend.posix_path(folder), "scheme": "file"},
                      "relativeLocation": folder_name, "metadata": {"installedTimestamp": int(self.desktop.now.timestamp() * 1000),
                                                                     "source": "gallery"}})
        self._write_json(self.extensions_dir / "extensions.json", index)

    def _write_json(self, path: Path, data: Any, indent: int | None = None) -> None:
        """Write an extension file through the home's layer (refused: ValueError with the reason, as the CLI prints it)."""
        try:
            save_text(self.desktop.home_files, path, json.dumps(data, indent=indent) + "\n")
        except OSError as e:
            raise ValueError(f"Cannot write {self.desktop.home_files.shown(path)}: {error_text(e)}") from None

    def uninstall(self, ext_id: str) -> list[str]:
        """Remove an installed extension; refused while another installed extension depends on it."""
        match = [e for e in self.installed() if e["id"].lower() == ext_id.lower()]
        if not match:
            raise ValueError(f"Extension '{ext_id}' is not installed.\n{_NOT_FOUND_HINT}")
        ext = match[0]
        for other in self.installed():
            cat = self.find_extension(other["id"])
            if cat and ext["id"].lower() in (d.lower() for d in cat.get("dependencies", [])):
                raise ValueError(f"Cannot uninstall '{ext['name']}' extension. '{other['name']}' extension depends on this.")
        index = self._index()
        keep = []
        for e in index:
            if e["identifier"].get("id", "").lower() == ext["id"].lower():
                rel = e.get("relativeLocation")
                try:  # through the layer: a '..' or a symlink in relativeLocation never reaches outside the home
                    self.desktop.home_files.rmtree(self.extensions_dir / rel) if isinstance(rel, str) and rel else None
                except (OSError, ValueError):
                    pass
            else:
                keep.append(e)
        self._write_json(self.extensions_dir / "extensions.json", keep)
        self.touch()
        return [f"Uninstalling {ext['id']}...", f"Extension '{ext['id']}' was successfully uninstalled!"]

    # ------------------------------------------------------------------ files and tabs
    def _new_id(self) -> int:
        self._ids += 1
        return self._ids

    def open_folder(self, path: Path) -> None:
        """Show ``path`` in the Explorer (the window's workspace)."""
        self.desktop.backend.check_in_home(path)
        kind = entry_kind(self.desktop.home_files, path)
        if kind != "dir":  # a symlinked folder is never listed through
            self._file_error(f"Cannot open the folder {self.desktop.home_files.shown(path)}",
                             "it is a symbolic link" if kind == "symlink" else "it is not a folder")
            return
        self.folder = path
        self.sidebar = "Explorer"
        self.collapsed.clear()
        self._show()
        self.touch()

    def open_file(self, path: Path, line: int | None = None, column: int = 1) -> Tab | None:
        """Open ``path`` in a tab (a path that does not exist yet opens empty and is created on save);
        ``line`` puts the cursor there. A symlink, special file or oversized file is not opened: an
        error dialog says why (None)."""
        self.desktop.backend.check_in_home(path)
        files = self.desktop.home_files
        kind = entry_kind(files, path)
        if kind == "dir":
            self.open_folder(path)
            return self.active
        tab = next((t for t in self.tabs if t.path is not None and t.path == path), None)
        if tab is None:
            try:
                text = read_text(files, path) if kind is not None else ""
            except OSError as e:
                self._file_error(f"Cannot open {files.shown(path)}", error_text(e))
                return None
            tab = Tab(self._new_id(), "file", path.name, path, text, text)
            self.tabs.append(tab)
        self.active = tab
        win = self._show()
        win.focus_key = f"vscode:editor:{tab.id}"
        if line is not None:
            self._goto(tab, line, column)
        self.touch()
        return tab

    def can_open(self, path: Path) -> bool:
        """``open -a "Visual Studio Code" <path>``: any folder or file."""
        return True

    def _file_error(self, title: str, detail: str) -> None:
        """VS Code's error dialog on the workbench."""
        alert(self, self._show(), title, detail, [("OK", lambda: None)], cancel=0)

    def _goto(self, tab: Tab, line: int, column: int = 1) -> None:
        win = self._show()
        ed = win.editor(f"vscode:editor:{tab.id}", tab.text, multiline=True)
        lines = tab.text.split("\n")
        li = max(1, min(line, len(lines)))
        offset = sum(len(x) + 1 for x in lines[: li - 1]) + max(0, min(column - 1, len(lines[li - 1])))
        ed.cursor = ed.anchor = offset
        win.focus_key = f"vscode:editor:{tab.id}"

    def new_untitled(self) -> Tab:
        n = 1
        names = {t.name for t in self.tabs}
        while f"Untitled-{n}" in names:
            n += 1
        tab = Tab(self._new_id(), "file", f"Untitled-{n}")
        self.tabs.append(tab)
        self.active = tab
        win = self._show()
        win.focus_key = f"vscode:editor:{tab.id}"
        self.touch()
        return tab

    def _on_save(self, text: str) -> str:
        """The text as written: the save-time settings applied."""
        if self.setting("files.trimTrailingWhitespace"):
            text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
        if self.setting("files.trimFinalNewlines"):
            stripped = text.rstrip("\n")
            text = stripped + ("\n" if text.endswith("\n") and stripped else "")
        if self.setting("files.insertFinalNewline") and text and not text.endswith("\n"):
            text += "\n"
        return text

    def save(self, tab: Tab | None = None) -> bool:
        """Save ``tab`` (the active one); an untitled file asks for a path first. False if not saved now."""
        tab = tab or self.active
        if tab is None or tab.kind != "file":
            return False
        if tab.path is None:
            self.save_as_prompt(tab)
            return False
        text = self._on_save(tab.text)
        self.desktop.backend.check_in_home(tab.path)
        try:
            save_text(self.desktop.home_files, tab.path, text)
        except OSError as e:
            self._file_error(f"Failed to save '{tab.name}'", error_text(e))
            return False
        tab.text = tab.saved = text
        self.touch()
        return True

    def save_all(self) -> None:
        for t in list(self.tabs):
            if t.dirty and t.path is not None:
                self.save(t)

    def save_as_prompt(self, tab: Tab) -> None:
        win = self._show()
        base = self.folder if self.folder is not None else self.desktop.home / "Documents"
        initial = self.desktop.backend.posix_path(base).replace(self.desktop.backend.posix_home, "~", 1) + "/" + tab.name + ".txt"

        def chosen(path: str) -> None:
            try:
                p = self.desktop.backend.host_path(path.strip())
            except Exception as e:  # noqa: BLE001 - shown to the user as VS Code's error dialog
                alert(self, win, "Cannot save", str(e), [("OK", lambda: None)], cancel=0)
                return
            if entry_kind(self.desktop.home_files, p) == "dir":
                alert(self, win, "Cannot save", f"{path.strip()} is a folder; give a file name.", [("OK", lambda: None)], cancel=0)
                return
            tab.path, tab.name = p, p.name
            self.save(tab)

        text_prompt(self, win, "Save As", "Path:", initial, chosen, ok_title="Save")

    def close_tab(self, tab: Tab, force: bool = False) -> None:
        """Close ``tab``; a changed file asks to save first (unless ``force``)."""
        if tab.dirty and not force:
            win = self._show()

            def save_then_close() -> None:
                if self.save(tab):
                    self.close_tab(tab, force=True)

            alert(self, win, f"Do you want to save the changes you made to {tab.name}?",
                  "Your changes will be lost if you don't save them.",
                  [("Save", save_then_close), ("Don't Save", lambda: self.close_tab(tab, force=True)), ("Cancel", lambda: None)],
                  default=0, cancel=2)
            return
        if tab in self.tabs:
            i = self.tabs.index(tab)
            self.tabs.remove(tab)
            if self.active is tab:
                self.active = self.tabs[min(i, len(self.tabs) - 1)] if self.tabs else None
        for w in self.windows:
            w.editors.pop(f"vscode:editor:{tab.id}", None)
        self.touch()

    def _sync_tabs(self) -> None:
        """Unchanged tabs follow their file on disk (edited by the shell, the Settings editor, …)."""
        for t in self.tabs:
            if t.kind == "file" and t.path is not None and not t.dirty:
                try:  # a file swapped for a symlink or a FIFO is not followed: the tab keeps its text
                    disk = read_text(self.desktop.home_files, t.path)
                except OSError:
                    continue
                if disk != t.saved:
                    t.text = t.saved = disk

    def open_settings(self) -> Tab:
        tab = next((t for t in self.tabs if t.kind == "settings"), None)
        if tab is None:
            tab = Tab(self._new_id(), "settings", "Settings")
            self.tabs.append(tab)
        self.active = tab
        win = self._show()
        win.focus_key = "vscode:settings-search"
        self.touch()
        return tab

    def open_settings_json(self) -> Tab:
        p = self.settings_file
        if entry_kind(self.desktop.home_files, p) is None:
            try:
                save_text(self.desktop.home_files, p, "{\n}\n")
            except OSError:
                pass  # open_file says why
        return self.open_file(p)

    def open_extension_page(self, ext_id: str) -> Tab:
        ext = self.find_extension(ext_id)
        name = ext["name"] if ext else ext_id
        tab = next((t for t in self.tabs if t.kind == "extension" and t.ext_id == ext_id), None)
        if tab is None:
            tab = Tab(self._new_id(), "extension", f"Extension: {name}", ext_id=ext_id)
            self.tabs.append(tab)
        self.active = tab
        self._show()
        self.touch()
        return tab

    def show_sidebar(self, which: str) -> None:
        self.sidebar = which
        win = self._show()
        win.focus_key = "vscode:ext-search" if which == "Extensions" else "vscode:explorer"
        self.touch()

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        posix = self.desktop.backend.posix_path
        settings, err = self.read_settings()
        return {"running": self.running, "folder": posix(self.folder) if self.folder else None,
                "tabs": [{"name": t.name, "kind": t.kind, "path": posix(t.path) if t.path else None, "dirty": t.dirty}
                         for t in self.tabs],
                "active": self.active.name if self.active else None,
                "active_text": self.active.text if self.active and self.active.kind == "file" else None,
                "sidebar": self.sidebar, "settings": settings, "settings_error": err,
                "extensions": [f"{e['id']}@{e['version']}" for e in self.installed()],
                "color_theme": self.setting("workbench.colorTheme")}

    # ------------------------------------------------------------------ the code command
    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        """``code``: open paths, manage extensions, print the version."""
        args = argv[1:]
        out: list[str] = []
        err: list[str] = []
        code = 0
        paths: list[str] = []
        goto = False
        i = 0
        cat = catalogue()["version"]
        while i < len(args):
            a = args[i]
            if a in ("-v", "--version"):
                return f"{cat['code']}\n{cat['commit']}\n{cat['arch']}\n", "", 0
            if a in ("-h", "--help"):
                return _HELP.format(version=cat["code"]), "", 0
            if a in ("--list-extensions",):
                show = "--show-versions" in args
                category = args[args.index("--category") + 1] if "--category" in args and args.index("--category") + 1 < len(args) else None
                for e in self.installed():
                    c = self.find_extension(e["id"])
                    if category and (c is None or category.lower() not in (x.lower() for x in c["categories"])):
                        continue
                    out.append(f"{e['id']}@{e['version']}" if show else e["id"])
                return "".join(x + "\n" for x in out), "", 0
            if a in ("--install-extension", "--uninstall-extension"):
                if i + 1 >= len(args) or args[i + 1].startswith("-"):
                    err.append(f"Option '{a[2:]}' requires a non empty value. Ignoring the option.")
                    i += 1
                    continue
                target = args[i + 1]
                i += 2
                if a == "--install-extension":
                    if target.endswith(".vsix"):
                        err.append(f"Failed Installing Extensions: {target}: installing from a VSIX file is not available "
                                   "in the simulator; use an extension ID from the Marketplace.")
                        code = 1
                        continue
                    out.append("Installing extensions...")
                    out.append(f"Installing extension '{target.partition('@')[0]}'...")
                    try:
                        out += self.install(target, force="--force" in args)
                    except ValueError as e:
                        err.append(str(e))
                        err.append(f"Failed Installing Extensions: {target}")
                        code = 1
                else:
                    try:
                        out += self.uninstall(target)
                    except ValueError as e:
                        err.append(str(e))
                        code = 1
                continue
            if a in ("-g", "--goto"):
                goto = True
            elif a in ("-n", "--new-window", "-r", "--reuse-window", "-w", "--wait", "--force", "--show-versions"):
                pass
            elif a in ("-d", "--diff", "-m", "--merge", "-a", "--add"):
                err.append(f"code: option '{a}' is not available in the simulator.")
                code = 1
                n_args = {"-d": 2, "--diff": 2, "-m": 4, "--merge": 4, "-a": 1, "--add": 1}[a]
                i += n_args
            elif a.startswith("-") and a != "-":
                err.append(f"Warning: '{a.lstrip('-')}' is not in the list of known options, but still passed to "
                           "Electron/Chromium.")
            elif a == "-":
                err.append("code: reading from stdin is not available in the simulator.")
                code = 1
            else:
                paths.append(a)
            i += 1
        if code == 0 and not out and not paths and not err:
            self.desktop.activate(self)
            return "", "", 0
        for p in paths:
            line = col = None
            target = p
            if goto:
                m = re.match(r"^(.*?):(\d+)(?::(\d+))?$", p)
                if m:
                    target, line, col = m.group(1), int(m.group(2)), int(m.group(3) or 1)
            try:
                host = ctx.resolve(target)
            except Exception as e:  # noqa: BLE001 - a path outside the home folder: the CLI reports it
                err.append(f"code: {target}: {e}")
                code = 1
                continue
            files = self.desktop.home_files
            kind = entry_kind(files, host)
            if kind is None and entry_kind(files, host.parent) != "dir":
                err.append(f"code: {target}: the folder {ctx.posix(host.parent)} does not exist")
                code = 1
                continue
            if kind in ("symlink", "other"):
                err.append(f"code: {target}: cannot open {files.shown(host)}: it is "
                           + ("a symbolic link" if kind == "symlink" else "not a regular file or folder"))
                code = 1
                continue
            self.desktop.activate(self, reopen=False)
            if kind == "dir":
                self.open_folder(host)
            else:
                self.open_file(host, line, col or 1)
        return "".join(x + "\n" for x in out), "".join(x + "\n" for x in err), code

    # ------------------------------------------------------------------ windows and menus
    def reopen(self) -> None:
        if not [w for w in self.windows if not w.minimized]:
            self.new_window()

    def new_window(self) -> Window:
        return self._show()

    def _show(self) -> Window:
        for w in self.windows:
            if w.doc == "workbench":
                if w.minimized:
                    w.minimized = False
                return w
        w, h = 1100, 660
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Visual Studio Code", (x, y, w, h), self._build, doc="workbench", min_size=(760, 420),
                     signature=self._signature)
        win.focus_key = "vscode:explorer"
        self.desktop.show_window(win)
        return win

    def _signature(self) -> Any:
        """What on disk the window shows: the folder's files, open files, settings and extensions."""
        return self._cached("signature", self._disk_signature)

    def _disk_signature(self) -> Any:
        out: list[Any] = []
        paths = [self.settings_file, self.extensions_dir / "extensions.json"] + [t.path for t in self.tabs if t.path]
        files = self.desktop.home_files
        for p in paths:
            try:
                st = files.lstat(p)
                out.append((str(p), st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(str(p))
        if self.folder is not None:
            for rel, entry in files.walk(self.folder, limit=400):
                out.append((str(rel), entry.kind, entry.size, entry.mtime))
        return tuple(out)

    def window_closed(self, win: Window) -> None:
        self.touch()

    def request_close(self, win: Window) -> None:
        dirty = [t for t in self.tabs if t.dirty]
        if not dirty:
            self.desktop.close_window(win)
            return
        alert(self, win, f"Do you want to save the changes you made to {len(dirty)} file{'s' if len(dirty) > 1 else ''}?",
              "Your changes will be lost if you don't save them.",
              [("Save All", lambda: (self.save_all(), self.desktop.close_window(win) if not any(t.dirty for t in self.tabs) else None)),
               ("Don't Save", lambda: self.desktop.close_window(win)), ("Cancel", lambda: None)], default=0, cancel=2)

    def app_menus(self) -> list:
        tab = self.active
        return [("File", [
            MenuItem("New Text File", self.new_untitled, "cmd+n"),
            MenuItem("Open Folder…", self.open_folder_prompt, "cmd+o"),
            sep(),
            MenuItem("Save", lambda: self.save(), "cmd+s", enabled=tab is not None and tab.kind == "file"),
            MenuItem("Save All", self.save_all, "cmd+option+s"),
            sep(),
            MenuItem("Close Editor", lambda: self.close_tab(self.active) if self.active else self._close_front(), "cmd+w",
                     enabled=bool(self.windows)),
            MenuItem("Close Folder", self._close_folder, enabled=self.folder is not None),
        ])]

    def extra_menus(self) -> list:
        return [("View", [
            MenuItem("Command Palette…", self.command_palette, "cmd+shift+p"),
            MenuItem("Explorer", lambda: self.show_sidebar("Explorer"), "cmd+shift+e"),
            MenuItem("Extensions", lambda: self.show_sidebar("Extensions"), "cmd+shift+x"),
            MenuItem("Settings", self.open_settings, "cmd+,"),
            sep(),
            MenuItem("Word Wrap", self.toggle_word_wrap, checked=self.setting("editor.wordWrap") == "on"),
        ]), ("Go", [
            MenuItem("Go to File…", self.quick_open, "cmd+p"),
            MenuItem("Go to Line/Column…", self.go_to_line_prompt, enabled=self.active is not None and self.active.kind == "file"),
        ])]

    def _close_folder(self) -> None:
        self.folder = None
        self.touch()

    def open_folder_prompt(self) -> None:
        win = self._show()

        def chosen(path: str) -> None:
            try:
                p = self.desktop.backend.host_path(path.strip() or "~")
            except Exception as e:  # noqa: BLE001 - shown as the app's error dialog
                alert(self, win, "Cannot open folder", str(e), [("OK", lambda: None)], cancel=0)
                return
            if entry_kind(self.desktop.home_files, p) != "dir":
                alert(self, win, "Cannot open folder", f"The folder {path.strip()} does not exist.", [("OK", lambda: None)], cancel=0)
                return
            self.open_folder(p)

        text_prompt(self, win, "Open Folder", "Folder:", "~/", chosen, ok_title="Open")

    def toggle_word_wrap(self) -> None:
        self._try_set("editor.wordWrap", "off" if self.setting("editor.wordWrap") == "on" else "on")

    def _try_set(self, key: str, value: Any) -> None:
        try:
            self.set_setting(key, value)
            self.message = ""
        except ValueError as e:
            self.message = str(e)
            self.touch()

    # ------------------------------------------------------------------ palettes
    def commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """The Command Palette: (title, keybinding, action)."""
        def on_lines(fn: Callable[[list[str]], list[str]]) -> Callable[[], Any]:
            return lambda: self._transform_lines(fn)

        return [
            ("File: Save", "⌘S", lambda: self.save()),
            ("File: Save All", "⌥⌘S", self.save_all),
            ("File: New Untitled Text File", "⌘N", self.new_untitled),
            ("File: Open Folder...", "⌘O", self.open_folder_prompt),
            ("View: Close Editor", "⌘W", lambda: self.close_tab(self.active) if self.active else None),
            ("View: Show Explorer", "⇧⌘E", lambda: self.show_sidebar("Explorer")),
            ("View: Show Extensions", "⇧⌘X", lambda: self.show_sidebar("Extensions")),
            ("Extensions: Install Extensions", "", lambda: self.show_sidebar("Extensions")),
            ("View: Toggle Word Wrap", "⌥Z", self.toggle_word_wrap),
            ("View: Toggle Minimap", "", lambda: self._try_set("editor.minimap.enabled", not self.setting("editor.minimap.enabled"))),
            ("Preferences: Open User Settings", "⌘,", self.open_settings),
            ("Preferences: Open User Settings (JSON)", "", self.open_settings_json),
            ("Preferences: Color Theme", "⌘K ⌘T", self.theme_picker),
            ("Go to File...", "⌘P", self.quick_open),
            ("Go to Line/Column...", "⌃G", self.go_to_line_prompt),
            ("Sort Lines Ascending", "", on_lines(lambda ls: sorted(ls))),
            ("Sort Lines Descending", "", on_lines(lambda ls: sorted(ls, reverse=True))),
            ("Delete Duplicate Lines", "", on_lines(lambda ls: list(dict.fromkeys(ls)))),
            ("Transform to Uppercase", "", lambda: self._transform_selection(str.upper)),
            ("Transform to Lowercase", "", lambda: self._transform_selection(str.lower)),
            ("Trim Trailing Whitespace", "⌘K ⌘X", on_lines(lambda ls: [x.rstrip(" \t") for x in ls])),
        ]

    def _active_editor(self) -> tuple[Tab, Any] | None:
        tab = self.active
        if tab is None or tab.kind != "file":
            return None
        win = self._show()
        return tab, win.editor(f"vscode:editor:{tab.id}", tab.text, multiline=True)

    def _apply_edit(self, tab: Tab, ed: Any, text: str, a: int, b: int) -> None:
        ed._push_undo()  # noqa: SLF001 - the edit is undoable like typing
        ed.text = text
        ed.anchor, ed.cursor = a, b
        ed.synced = text
        tab.text = text
        self._after_edit(tab)

    def _transform_lines(self, fn: Callable[[list[str]], list[str]]) -> None:
        """Apply ``fn`` to the selected lines (every line when nothing is selected), as VS Code does."""
        got = self._active_editor()
        if got is None:
            return
        tab, ed = got
        text = ed.text
        a, b = ed.selection
        if a == b:
            start, end = 0, len(text)
        else:
            start = text.rfind("\n", 0, a) + 1
            end = text.find("\n", b - (1 if b > a and text[b - 1:b] == "\n" else 0))
            end = len(text) if end < 0 else end
        block = text[start:end]
        trailing = block.endswith("\n")
        lines = block.split("\n")
        if trailing:
            lines = lines[:-1]
        new_block = "\n".join(fn(lines)) + ("\n" if trailing else "")
        self._apply_edit(tab, ed, text[:start] + new_block + text[end:], start, start + len(new_block))

    def _transform_selection(self, fn: Callable[[str], str]) -> None:
        got = self._active_editor()
        if got is None:
            return
        tab, ed = got
        a, b = ed.selection
        if a == b:  # no selection: the word at the cursor
            ed.select_word_at(a)
            a, b = ed.selection
        self._apply_edit(tab, ed, ed.text[:a] + fn(ed.text[a:b]) + ed.text[b:], a, b)

    def _after_edit(self, tab: Tab) -> None:
        if self.setting("files.autoSave") == "afterDelay" and tab.path is not None:
            self.save(tab)
        self.touch()

    def palette(self, title: str, items: list[PickItem], placeholder: str, prefix: str = "") -> Window:
        """A quick-pick sheet over the workbench (see :func:`~.obsidian.quick_pick`)."""
        return quick_pick(self, self._show(), title, items, placeholder, prefix)

    def command_palette(self) -> Window:
        """cmd-shift-p."""
        return self.palette("Command Palette", self.commands(), "Type the name of a command to run.", prefix=">")

    def quick_open(self) -> Window:
        """cmd-p: the opened folder's files by name."""
        files: list[tuple[str, str, Callable[[], Any]]] = []
        if self.folder is not None:
            layer = self.desktop.home_files
            base = layer.relative(self.folder)
            for found, entry in layer.walk(self.folder, limit=5000):
                rel = found.relative_to(base) if str(base) != "." else found  # walk names paths from the home
                parts = rel.parts
                if entry.kind == "dir" or any(x.startswith(".") or x == "node_modules" for x in parts):
                    continue
                p = self.folder / rel
                files.append((entry.name, str(rel.parent) if len(parts) > 1 else "", lambda p=p: self.open_file(p)))
                if len(files) > 500:
                    break
        return self.palette("Go to File", files, "Search files by name")

    def theme_picker(self) -> Window:
        current = self.setting("workbench.colorTheme")
        items = [(t, "current" if t == current else "", (lambda t=t: self._try_set("workbench.colorTheme", t)))
                 for t in self.themes()]
        return self.palette("Select Color Theme", items, "Select Color Theme")

    def go_to_line_prompt(self) -> None:
        tab = self.active
        if tab is None or tab.kind != "file":
            return
        win = self._show()

        def go(text: str) -> None:
            m = re.match(r"^\s*(\d+)(?::(\d+))?\s*$", text)
            if m:
                self._goto(tab, int(m.group(1)), int(m.group(2) or 1))
                self.touch()

        text_prompt(self, win, "Go to Line/Column", "Line:", "", go, ok_title="Go")

    # ------------------------------------------------------------------ explorer actions
    def _tree_rows(self) -> list[Row]:
        rows: list[Row] = []
        root = self.folder
        if root is None:
            return rows

        files = self.desktop.home_files

        def walk(folder: Path, rel: str, depth: int) -> None:
            try:  # through the layer: a symlinked folder is a row, never listed through
                entries = sorted(files.listdir(folder, limit=2000), key=lambda e: (e.kind != "dir", e.name.lower()))
            except OSError:
                return
            for e in entries:
                if e.name in (".git", ".DS_Store"):
                    continue
                r = (rel + "/" if rel else "") + e.name
                pad = "    " * depth
                if e.kind == "dir":
                    rows.append(Row("d:" + r, [pad + ("▸ " if r in self.collapsed else "▾ ") + e.name], color=self._fg()))
                    if r not in self.collapsed:
                        walk(folder / e.name, r, depth + 1)
                else:
                    rows.append(Row("f:" + r, [pad + "    " + e.name], color=self._fg()))
                if len(rows) > 400:
                    return

        walk(root, "", 0)
        return rows

    def _tree_select(self, key: str) -> None:
        kind, _, rel = key.partition(":")
        if self.folder is None:
            return
        if kind == "d":
            self.collapsed.symmetric_difference_update({rel})
            self.touch()
        elif kind == "f":
            self.open_file(self.folder / rel)

    def _tree_context(self, keys: list[str]) -> list[MenuItem]:
        if not keys or self.folder is None:
            return []
        kind, _, rel = keys[0].partition(":")
        base = rel if kind == "d" else rel.rpartition("/")[0]
        return [MenuItem("New File…", lambda: self._new_entry(base, folder=False)),
                MenuItem("New Folder…", lambda: self._new_entry(base, folder=True)), sep(),
                MenuItem("Rename…", lambda: self._rename_entry(rel)),
                MenuItem("Delete", lambda: self._delete_entry(rel))]

    def _new_entry(self, base: str, folder: bool) -> None:
        win = self._show()
        root = self.folder
        if root is None:
            return

        def made(name: str) -> None:
            name = name.strip()
            if not name or name.startswith("/") or ".." in name.split("/"):
                alert(self, win, "Invalid name", f"A file or folder name must be given, not {name!r}.", [("OK", lambda: None)], cancel=0)
                return
            p = root / base / name if base else root / name
            files = self.desktop.home_files
            if entry_kind(files, p) is not None:
                alert(self, win, "Already exists", f"A file or folder {name} already exists at this location. "
                      "Please choose a different name.", [("OK", lambda: None)], cancel=0)
                return
            try:
                if folder:
                    files.mkdir(p, parents=True)
                else:
                    save_text(files, p, "")
            except OSError as e:
                alert(self, win, f"Cannot create {name}", error_text(e), [("OK", lambda: None)], cancel=0)
                return
            if not folder:
                self.open_file(p)
            self.touch()

        text_prompt(self, win, "New Folder" if folder else "New File", "Name:", "", made, ok_title="Create")

    def _rename_entry(self, rel: str) -> None:
        win = self._show()
        root = self.folder
        if root is None:
            return
        src = root / rel

        def renamed(name: str) -> None:
            name = name.strip()
            try:
                checked_name(name)
            except ValueError:
                alert(self, win, "Invalid name", f"The name {name!r} is not valid as a file or folder name.",
                      [("OK", lambda: None)], cancel=0)
                return
            dst = src.parent / name
            if dst == src:
                return
            files = self.desktop.home_files
            if entry_kind(files, dst) is not None:
                alert(self, win, "Already exists", f"A file or folder {name} already exists at this location.",
                      [("OK", lambda: None)], cancel=0)
                return
            try:
                files.rename(src, dst)
            except OSError as e:
                alert(self, win, f"Cannot rename {src.name}", error_text(e), [("OK", lambda: None)], cancel=0)
                return
            for t in self.tabs:
                if t.path is not None and (t.path == src or src in t.path.parents):
                    t.path = dst / t.path.relative_to(src) if t.path != src else dst
                    t.name = t.path.name
            self.touch()

        text_prompt(self, win, "Rename", "Name:", src.name, renamed, ok_title="Rename")

    def _delete_entry(self, rel: str) -> None:
        root = self.folder
        if root is None:
            return
        p = root / rel
        win = self._show()

        def delete() -> None:
            self.desktop.apps["Finder"].move_to_trash([p])
            for t in list(self.tabs):
                if t.path is not None and (t.path == p or p in t.path.parents):
                    self.close_tab(t, force=True)
            self.touch()

        alert(self, win, f"Are you sure you want to delete '{p.name}'?", "You can restore this file from the Trash.",
              [("Move to Trash", delete), ("Cancel", lambda: None)], default=0, cancel=1)

    # ------------------------------------------------------------------ drawing
    def _fg(self) -> tuple[int, int, int]:
        return (204, 204, 204) if self.dark else (59, 59, 59)

    def _palette_colors(self) -> dict[str, tuple[int, int, int]]:
        if self.dark:
            return {"editor": (31, 31, 31), "side": (24, 24, 24), "bar": (24, 24, 24), "tab": (24, 24, 24),
                    "tab_active": (31, 31, 31), "fg": (204, 204, 204), "muted": (140, 140, 140), "line": (43, 43, 43)}
        return {"editor": (255, 255, 255), "side": (248, 248, 248), "bar": (248, 248, 248), "tab": (243, 243, 243),
                "tab_active": (255, 255, 255), "fg": (59, 59, 59), "muted": (110, 110, 110), "line": (229, 229, 229)}

    def _build(self, win: Window) -> list[Widget]:
        self._sync_tabs()
        c = self._palette_colors()
        W, H = win.w, win.h
        act, side = 48, 260
        ex = act + side
        status_h = 22
        tab = self.active
        folder_name = self.folder.name if self.folder is not None else None
        win.title = " — ".join(x for x in [tab.name if tab else None, folder_name] if x) or "Visual Studio Code"
        out: list[Widget] = [Box((0, 28, act, H - 28 - status_h), c["bar"]), Box((act, 28, side, H - 28 - status_h), c["side"]),
                             Box((ex, 28, W - ex, H - 28 - status_h), c["editor"]), Box((ex - 1, 28, 1, H - 28 - status_h), c["line"])]
        # activity bar
        for i, (label, sym, fn) in enumerate((("Explorer", "❐", lambda: self.show_sidebar("Explorer")),
                                              ("Extensions", "⊞", lambda: self.show_sidebar("Extensions")))):
            out.append(ThemedButton(f"vscode:act:{label}", (6, 36 + i * 44, 36, 36), label, fn, symbol=sym, size=20,
                                    fg=c["fg"] if self.sidebar == label else c["muted"]))
            if self.sidebar == label:
                out.append(Box((0, 36 + i * 44, 2, 36), "accent"))
        out.append(ThemedButton("vscode:act:Settings", (6, H - status_h - 46, 36, 36), "Manage Settings", self.open_settings,
                                symbol="⚙", size=20, fg=c["muted"]))
        # sidebar
        if self.sidebar == "Explorer":
            out.append(Label((act + 16, 32, side - 32, 22), "EXPLORER", 11, color=c["muted"], key="vscode:explorer-title"))
            if self.folder is None:
                out.append(Label((act + 16, 64, side - 32, 40), "You have not yet opened a folder.", 12, color=c["fg"], wrap=True,
                                 key="vscode:nofolder"))
                out.append(Button("vscode:openfolder", (act + 16, 110, side - 32, 26), "Open Folder", self.open_folder_prompt,
                                  default=True))
            else:
                out.append(Label((act + 16, 56, side - 32, 20), self.folder.name.upper(), 11, "bold", color=c["fg"],
                                 key="vscode:folder"))
                sel = ["f:" + str(tab.path.relative_to(self.folder))] if tab and tab.path and self.folder in tab.path.parents else []
                tree = self._tree_rows()
                for r in tree:
                    if r.key in sel and self.dark:
                        r.color = (28, 28, 28)  # on the light grey pill of an unfocused selection
                out.append(TreeList("vscode:explorer", (act, 80, side - 1, H - 80 - status_h), tree, sel,
                                    name="Explorer", sidebar=True,
                                    on_select=lambda ks: self._tree_select(ks[0]) if ks else None,
                                    on_context=self._tree_context, empty_text="Empty folder"))
        else:
            out.append(Label((act + 16, 32, side - 32, 22), "EXTENSIONS", 11, color=c["muted"], key="vscode:ext-title"))
            sed = win.editor("vscode:ext-search", self.ext_query)
            out.append(TextField("vscode:ext-search", (act + 12, 58, side - 24, 24), sed, name="Search Extensions in Marketplace",
                                 placeholder="Search Extensions in Marketplace", on_change=self._set_ext_query))
            installed = {e["id"].lower(): e for e in self.installed()}
            if self.ext_query.strip():
                words = self.ext_query.lower().split()
                hits = [e for e in catalogue()["extensions"]
                        if all(w in (e["id"] + " " + e["name"] + " " + e["description"] + " " + " ".join(e["categories"])).lower()
                               for w in words)]
                hits.sort(key=lambda e: -e["installs"])
                rows = [Row(e["id"], [e["name"], "Installed" if e["id"].lower() in installed else e["publisher"]],
                            detail=e["description"], color=c["fg"]) for e in hits]
                label = "MARKETPLACE"
            else:
                rows = [Row(e["id"], [e["name"], "v" + e["version"]], detail=e["id"], color=c["fg"]) for e in installed.values()]
                label = f"INSTALLED ({len(rows)})"
            out.append(Label((act + 16, 88, side - 32, 18), label, 11, "bold", color=c["muted"], key="vscode:ext-section"))
            out.append(ListView("vscode:extensions", (act, 108, side - 1, H - 108 - status_h), rows, [], name="Extensions",
                                sidebar=True, on_select=lambda ks: self.open_extension_page(ks[0]) if ks else None,
                                empty_text="No extensions found."))
        # tabs
        tx = ex
        for t in self.tabs:
            label = t.name + (" ●" if t.dirty else "")
            tw = min(220, 40 + len(label) * 7)
            if t is tab:
                out.append(Box((tx, 28, tw, 34), c["tab_active"]))
                out.append(Box((tx, 28, tw, 2), "accent"))
            out.append(ThemedButton(f"vscode:tab:{t.id}", (tx, 30, tw - 22, 32), label, (lambda t=t: self._activate_tab(t)),
                                    size=12, fg=c["fg"] if t is tab else c["muted"]))
            out.append(ThemedButton(f"vscode:close:{t.id}", (tx + tw - 22, 36, 18, 20), f"Close {t.name}",
                                    (lambda t=t: self.close_tab(t)), symbol="×", size=13, fg=c["muted"]))
            tx += tw
            if tx > W - 60:
                break
        out.append(Box((ex, 62, W - ex, 1), c["line"]))
        body = (ex, 63, W - ex, H - 63 - status_h)
        if tab is None:
            out += self._welcome(body, c)
        elif tab.kind == "file":
            ed = win.editor(f"vscode:editor:{tab.id}", tab.text, multiline=True)

            def changed(text: str, t: Tab = tab) -> None:
                t.text = text
                self._after_edit(t)

            field = CodeField(f"vscode:editor:{tab.id}", (body[0] + 8, body[1] + 4, body[2] - 16, body[3] - 8), ed,
                              bordered=False, size=int(self.setting("editor.fontSize") or 12) + 1, name=tab.name,
                              color=c["fg"], on_change=changed)
            field.app = self
            out.append(field)
        elif tab.kind == "settings":
            out += self._settings_editor(win, body, c)
        else:
            out += self._extension_page(tab, body, c)
        # status bar
        out.append(Box((0, H - status_h, W, status_h), (0, 122, 204)))
        parts = []
        if tab is not None and tab.kind == "file":
            ed = win.editors.get(f"vscode:editor:{tab.id}")
            pos = ed.cursor if ed is not None else 0
            line = tab.text.count("\n", 0, pos) + 1
            col = pos - (tab.text.rfind("\n", 0, pos) + 1) + 1
            spaces = f"Spaces: {self.setting('editor.tabSize')}" if self.setting("editor.insertSpaces") else \
                f"Tab Size: {self.setting('editor.tabSize')}"
            lang = LANGUAGES.get(tab.path.suffix.lower(), "Plain Text") if tab.path else "Plain Text"
            parts = [f"Ln {line}, Col {col}", spaces, "UTF-8", "LF", lang]
        out.append(Label((W - 520, H - status_h, 500, status_h), "    ".join(parts), 11, color=(255, 255, 255), align="right",
                         key="vscode:status"))
        out.append(Label((10, H - status_h, 300, status_h), self.message or ("⊗ 0  ⚠ 0"), 11, color=(255, 255, 255),
                         key="vscode:notification"))
        return out

    def _activate_tab(self, t: Tab) -> None:
        self.active = t
        for w in self.windows:
            if t.kind == "file":
                w.focus_key = f"vscode:editor:{t.id}"
        self.touch()

    def _set_ext_query(self, text: str) -> None:
        self.ext_query = text

    def _welcome(self, body: tuple[int, int, int, int], c: dict) -> list[Widget]:
        x, y, w, h = body
        return [Label((x, y + 60, w, 40), "Visual Studio Code", 28, color=c["fg"], align="center", key="vscode:welcome"),
                Label((x, y + 100, w, 24), "Editing evolved", 15, color=c["muted"], align="center", key="vscode:tagline"),
                Button("vscode:welcome-new", (x + w // 2 - 100, y + 160, 200, 22), "New File…", self.new_untitled, style="link"),
                Button("vscode:welcome-open", (x + w // 2 - 100, y + 188, 200, 22), "Open Folder…", self.open_folder_prompt,
                       style="link")]

    def _settings_editor(self, win: Window, body: tuple[int, int, int, int], c: dict) -> list[Widget]:
        x, y, w, h = body
        data, err = self.read_settings()
        out: list[Widget] = []
        sed = win.editor("vscode:settings-search", self.settings_query)
        out.append(TextField("vscode:settings-search", (x + 20, y + 12, w - 40, 26), sed, name="Search settings",
                             placeholder="Search settings", on_change=self._set_settings_query))
        if err is not None:
            out.append(Label((x + 20, y + 42, w - 40, 18), f"⚠ {err}", 11, color=(230, 90, 80), key="vscode:settings-error"))
        specs = self.known_settings()
        known = {s["key"] for s in specs}
        specs += [{"key": k, "type": type(v).__name__, "default": None, "description": "Unknown configuration setting"}
                  for k, v in data.items() if k not in known]
        words = self.settings_query.lower().split()
        shown = [s for s in specs if all(wd in (s["key"] + " " + setting_title(s["key"]) + " " + s["description"]).lower()
                                         for wd in words)]
        if self.settings_selected not in [s["key"] for s in shown]:
            self.settings_selected = shown[0]["key"] if shown else None

        def show(v: Any) -> str:
            return json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v

        rows = [Row(s["key"], [setting_title(s["key"]), show(data.get(s["key"], s["default"]))],
                    detail=("Modified · " if s["key"] in data else "") + s["key"], color=c["fg"]) for s in shown]
        list_h = max(88, h - 230)
        out.append(Label((x + 20, y + 60, w - 40, 18), f"{len(shown)} Setting{'s' if len(shown) != 1 else ''} Found", 11,
                         color=c["muted"], key="vscode:settings-count"))
        out.append(ListView("vscode:settings", (x + 10, y + 80, w - 20, list_h), rows,
                            [self.settings_selected] if self.settings_selected else [], name="Settings",
                            on_select=self._select_setting, empty_text="No Settings Found"))
        key = self.settings_selected
        if key is None:
            return out
        spec = next(s for s in shown if s["key"] == key)
        dy = y + 90 + list_h
        out.append(Label((x + 20, dy, w - 40, 20), setting_title(key), 13, "bold", color=c["fg"], key="vscode:setting-title"))
        out.append(Label((x + 20, dy + 22, w - 40, 18), spec["description"], 12, color=c["muted"], key="vscode:setting-desc"))
        value = data.get(key, spec["default"])
        cy = dy + 48
        if spec["type"] == "boolean":
            out.append(FocusCheckbox("vscode:setting-value", (x + 20, cy, w - 40, 22), setting_title(key).split(": ", 1)[-1],
                                bool(value), lambda v: self._try_set(key, bool(v))))
        elif spec.get("enum"):
            out.append(PopupButton("vscode:setting-value", (x + 20, cy, 260, 24), [str(o) for o in spec["enum"]], str(value),
                                   lambda v: self._try_set(key, v), name=setting_title(key)))
        elif spec["type"] in ("number", "string"):
            ekey = f"vscode:setting-value:{key}"
            model = show(value) if spec["type"] == "number" else str(value)
            ed = win.editors.get(ekey)
            # the field keeps what is typed ("4." on the way to "4.5", or a refused "abc"); a value changed
            # elsewhere (settings.json edited, Reset Setting) replaces it
            if ed is None:
                ed = win.editor(ekey, initial=model)
            elif win.state.get(ekey + ":model", model) != model and _parse_setting(ed.text, spec["type"]) != value:
                ed.text = ed.synced = model
                ed.cursor = ed.anchor = len(model)
            win.state[ekey + ":model"] = model

            def typed(text: str, key: str = key, kind: str = spec["type"]) -> None:
                v = _parse_setting(text, kind)
                if v is None:
                    self.message = f"Value must be a number: {text!r}"
                    self.touch()
                    return
                self._try_set(key, v)

            out.append(TextField(f"vscode:setting-value:{key}", (x + 20, cy, min(420, w - 40), 24), ed, name=setting_title(key),
                                 on_change=typed))
        else:
            out.append(Button("vscode:setting-json", (x + 20, cy, 180, 24), "Edit in settings.json", self.open_settings_json,
                              style="link"))
        if key in data:
            out.append(Button("vscode:setting-reset", (x + w - 150, cy, 130, 24), "Reset Setting",
                              lambda: self._reset(key)))
        return out

    def _reset(self, key: str) -> None:
        try:
            self.reset_setting(key)
        except ValueError as e:
            self.message = str(e)
        for w in self.windows:
            w.editors.pop(f"vscode:setting-value:{key}", None)

    def _select_setting(self, keys: list[str]) -> None:
        if keys:
            self.settings_selected = keys[0]

    def _set_settings_query(self, text: str) -> None:
        self.settings_query = text

    def _extension_page(self, tab: Tab, body: tuple[int, int, int, int], c: dict) -> list[Widget]:
        x, y, w, h = body
        ext = self.find_extension(tab.ext_id or "")
        if ext is None:
            return [Label((x + 20, y + 20, w - 40, 20), f"Extension '{tab.ext_id}' not found.", 14, color=c["fg"], key="vscode:ext-missing")]
        inst = self.is_installed(ext["id"])
        out: list[Widget] = [
            Label((x + 24, y + 24, w - 48, 30), ext["name"], 22, "bold", color=c["fg"], key="vscode:ext-name"),
            Label((x + 24, y + 58, w - 48, 18), f"{ext['publisher']}  |  {ext['id']}  |  v{ext['version']}  |  "
                  f"{ext['installs']:,} installs", 12, color=c["muted"], key="vscode:ext-meta"),
            Label((x + 24, y + 82, w - 48, 40), ext["description"], 13, color=c["fg"], wrap=True, key="vscode:ext-desc"),
        ]
        if inst:
            out.append(Button("vscode:ext-uninstall", (x + 24, y + 130, 110, 26), "Uninstall", lambda: self._gui_uninstall(ext["id"])))
        else:
            out.append(Button("vscode:ext-install", (x + 24, y + 130, 110, 26), "Install", lambda: self._gui_install(ext["id"]),
                              default=True))
        if ext.get("dependencies"):
            out.append(Label((x + 24, y + 170, w - 48, 18), "Dependencies: " + ", ".join(ext["dependencies"]), 12,
                             color=c["muted"], key="vscode:ext-deps"))
        return out

    def _gui_install(self, ext_id: str) -> None:
        try:
            self.install(ext_id)
            self.message = ""
        except ValueError as e:
            self.message = str(e).split("\n")[0]
        self.touch()

    def _gui_uninstall(self, ext_id: str) -> None:
        try:
            self.uninstall(ext_id)
            self.message = ""
        except ValueError as e:
            self.message = str(e).split("\n")[0]
        self.touch()

    # ------------------------------------------------------------------ icon
    @staticmethod
    def draw_icon(size: int) -> "Image.Image":
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (250, 250, 252), (226, 230, 238))
        # the folded blue ribbon: a dark left wing, a bright right band
        d.polygon([(S * 0.20, S * 0.38), (S * 0.28, S * 0.32), (S * 0.52, S * 0.50), (S * 0.28, S * 0.68), (S * 0.20, S * 0.62),
                   (S * 0.38, S * 0.50)], fill=(0, 101, 169))
        d.polygon([(S * 0.62, S * 0.16), (S * 0.80, S * 0.25), (S * 0.80, S * 0.75), (S * 0.62, S * 0.84), (S * 0.28, S * 0.50)],
                  fill=(0, 122, 204))
        d.polygon([(S * 0.62, S * 0.30), (S * 0.62, S * 0.70), (S * 0.42, S * 0.50)], fill=(250, 250, 252))
        return _finish(img, size)


_HELP = """Visual Studio Code {version}

Usage: code [options][paths...]

Options
  -g --goto <file:line[:character]>  Open a file at the path on the specified line and character position.
  -n --new-window                    Force to open a new window.
  -r --reuse-window                  Force to open a file or folder in an already opened window.
  -w --wait                          Wait for the files to be closed before returning.
  -h --help                          Print usage.
  -v --version                       Print version.

Extensions Management
  --list-extensions                  List the installed extensions.
  --show-versions                    Show versions of installed extensions, when using --list-extensions.
  --category <category>              Filters installed extensions by provided category, when using --list-extensions.
  --install-extension <ext-id>       Installs or updates an extension. Use `--force` to update without prompting.
                                     To install a specific version provide `@${{version}}`. For example: 'vscode.csharp@1.2.3'.
  --uninstall-extension <ext-id>     Uninstalls an extension.
"""
