"""Issue 14 class 1, the static guard: no host-side MacAgent module touches files except through the
confined layer (``mmenvs/core/confined.py``, reached as ``desktop.home_files``).

The agent controls everything in its episode home: a symlink to ``/etc/shadow``, a FIFO, a link to
``/dev/zero``, a file swapped for a link in a loop. Host code that opens, lists, renames or stats a home
path with the standard library follows those links; the confined layer does not. This test reads every
host-side module of the MacAgent package (the sim, its apps, the checkpoints, the env) as an AST and
fails for each file call it finds outside the layer — ``open()``, ``Path.open/read_text/read_bytes/
write_text/write_bytes/iterdir/glob/rglob/exists/is_file/is_dir/stat/unlink/rename/replace/mkdir/
rmdir/touch/resolve``, ``os.*`` file calls (``os.walk``, ``os.scandir``, ``os.path.exists``, …),
``shutil.*``, ``glob.*``, ``Image.open(path)``, ``sqlite3.connect(path)`` — unless the call is on the
allowlist below, each entry of which names the file, the function and why the call provably does not
touch the home (package data shipped with mmenvs, a private temp dir of the host, the env's own
temp dir that holds the home).

One test per module, so a run names every file that still has such calls and lists them by line.
Calls on ``home_files`` / ``files`` / ``confined`` receivers are the layer's own methods and pass.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mmenvs" / "macagent"
LAYER = ROOT / "mmenvs" / "core" / "confined.py"

#: methods of ``pathlib.Path`` (and ``os.DirEntry``) that touch the file system
PATH_METHODS = frozenset({
    "open", "read_text", "read_bytes", "write_text", "write_bytes", "iterdir", "glob", "rglob", "exists",
    "is_file", "is_dir", "is_symlink", "is_fifo", "is_socket", "is_block_device", "is_char_device", "stat",
    "lstat", "unlink", "rename", "replace", "mkdir", "rmdir", "touch", "resolve", "chmod", "lchmod", "readlink",
    "symlink_to", "hardlink_to", "link_to", "samefile", "walk", "expanduser", "absolute",
})
#: of these, a call on a receiver that does not look like a path is an app's or a window's own method
#: (``win.touch()`` redraws a window): they are flagged on path-like receivers only (see ``_path_like``)
GENERIC_METHODS = frozenset({"touch", "open", "rename", "walk", "absolute"})
#: ``os`` functions that reach a path (``os.path`` ones are below)
OS_FILE_FUNCTIONS = frozenset({
    "open", "stat", "lstat", "listdir", "scandir", "walk", "fwalk", "remove", "unlink", "rmdir", "removedirs",
    "rename", "renames", "replace", "mkdir", "makedirs", "symlink", "link", "readlink", "chmod", "lchmod",
    "chown", "lchown", "utime", "truncate", "mkfifo", "mknod", "access", "chdir", "chroot", "statvfs",
    "startfile", "popen", "system",
})
OS_PATH_FILE_FUNCTIONS = frozenset({
    "exists", "lexists", "isfile", "isdir", "islink", "ismount", "getsize", "getmtime", "getatime", "getctime",
    "realpath", "samefile", "sameopenfile", "samestat", "expanduser",
})
#: the last name of a receiver that is the confined layer (``desktop.home_files``, ``self.files``, …)
CONFINED_RECEIVERS = frozenset({"home_files", "files", "confined", "layer"})
#: a host PATH lookup, never a home path
HARMLESS = frozenset({"shutil.which"})
#: calls of this name are a module's own helpers that read through the layer (apps/home_io.py)
CONFINED_HELPERS = frozenset({"read_text", "save_text"})


@dataclass(frozen=True)
class Call:
    """One file call found outside the layer."""

    file: str  # relative to the repository
    function: str  # the enclosing def (dotted: Class.method), "<module>" at module level
    call: str  # the called expression as source text, e.g. "Path.exists" or "os.scandir"
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line} in {self.function}: {self.call}(…)"


@dataclass(frozen=True)
class Allowed:
    """A call that provably does not touch the home: ``file``, ``function`` and ``call`` as :class:`Call`
    names them (``call`` may be a prefix of the call text), and ``why``."""

    file: str
    function: str
    call: str
    why: str

    def matches(self, found: Call) -> bool:
        return found.file == self.file and found.function == self.function and found.call.startswith(self.call)


_SIM = "mmenvs/macagent/backends/sim"
_VM = "mmenvs/macagent/backends/vm"
ALLOWLIST: tuple[Allowed, ...] = (
    # --- the episode home's own root, as the env made it (trusted: the agent cannot replace it)
    Allowed(f"{_SIM}/backend.py", "_wipe", "os.lstat",
            "the home's own path (the env's temp dir), checked to be a real folder before the layer opens it"),
    Allowed(f"{_SIM}/backend.py", "_wipe", "os.makedirs", "creates the home's own path when it is missing (given by the env)"),
    # --- the user's checkout of the public benchmark's task folder (a path the user gave, read before any
    # episode exists; never the home) and the report file the CLI user names
    *(Allowed("mmenvs/macagent/official.py", "task_folder", call,
              "the user's official_dir (the benchmark's task/ folder), checked before anything is loaded")
      for call in ("path.is_dir", "(path / 'task').is_dir")),
    *(Allowed("mmenvs/macagent/official.py", "load_official", call,
              "lists and sizes the task files of the user's official_dir (symlinked files are skipped), never the home")
      for call in ("folder.glob", "p.is_file", "p.is_symlink", "file.stat")),
    Allowed("mmenvs/macagent/official.py", "list_official", "Path(report).write_text",
            "the report file named on the command line (mmenvs list --report), written by the user's own process"),
    Allowed("mmenvs/macagent/env.py", "MacAgentEnv.__init__", "self._home.mkdir",
            "the home inside the env's private mkdtemp folder, made before any agent code runs"),
    Allowed("mmenvs/macagent/env.py", "_remove_env_folder", "shutil.rmtree",
            "removes the env's private mkdtemp folder (holding the home) at close, on a failed construction or "
            "when the env is collected: shutil.rmtree walks by dir fds and never follows a link on Linux "
            "(shutil.rmtree.avoids_symlink_attacks)"),
    # --- a private temp dir of the host (made by tempfile, never in the home)
    Allowed(f"{_SIM}/screens.py", "render_all", "out_dir.mkdir",
            "the docs screenshot generator's output folder, given on the command line (not a home path)"),
    Allowed(f"{_SIM}/apps/safari.py", "_database_from", "open",
            "Python 3.10 only (no sqlite3 deserialize): History.db's bytes, read through the layer, into a private TemporaryDirectory"),
    Allowed(f"{_SIM}/apps/safari.py", "_database_from", "sqlite3.connect", "opens that private temporary copy (Python 3.10 only)"),
    Allowed(f"{_SIM}/apps/safari.py", "_database_image", "sqlite3.connect",
            "Python 3.10 only: the in-memory History.db backed up into a private TemporaryDirectory"),
    Allowed(f"{_SIM}/apps/safari.py", "_database_image", "open", "reads that private temporary copy back (Python 3.10 only)"),
    # --- package data shipped with mmenvs (read-only, never under the home)
    Allowed(f"{_SIM}/apps/github_model.py", "<module>", "Path(__file__).resolve",
            "locates the package's data/github folder (the offline repositories)"),
    Allowed(f"{_SIM}/apps/github_model.py", "GitHubStore.repos", "DATA_DIR.glob", "lists the package's data/github/*.json"),
    Allowed(f"{_SIM}/apps/github_model.py", "GitHubStore.repos", "p.read_text", "reads a package data/github/*.json file"),
    Allowed(f"{_SIM}/apps/github_model.py", "load_repo", "path.read_text",
            "reads one package data/github/*.json snapshot (called by GitHubStore.repos with DATA_DIR's files only)"),
    Allowed(f"{_SIM}/apps/vscode.py", "<module>", "Path(__file__).resolve", "locates the package's data/vscode_catalogue.json"),
    Allowed(f"{_SIM}/apps/vscode.py", "catalogue", "CATALOGUE_PATH.read_text", "reads the package's data/vscode_catalogue.json"),
    Allowed("mmenvs/macagent/tasks.py", "load_suite", "folder.is_file",
            "the task suite folder (the shipped tasks or the researcher's own), read before any episode runs"),
    Allowed("mmenvs/macagent/tasks.py", "load_suite", "folder.rglob", "lists the task suite folder's *.json (as above)"),
    # --- `mmenvs vm build-test-guest`: builds the Linux test guest in the host's cache folder (as root, before any
    # episode, from Debian packages); no path of it is an episode home or comes from an agent
    *(Allowed("mmenvs/macagent/backends/vm/guest_image.py", function, "",
              "the guest builder's own files: /etc/apt sources, the rootfs and keys it makes under the cache folder")
      for function in ("apt_sources", "_write", "_copy_debs", "build_rootfs", "ensure_test_guest",
                       "_prune_other_recipes")),
    # --- the VM backend (backends/vm): the host never reads an episode home (the guest's home is inside the guest,
    # reached over SSH/SFTP); its host files are its own: the shipped input agent, the researcher's key and disk
    # image paths, per-guest overlay folders it made in the temp folder, its port lock files
    Allowed(f"{_VM}/backend.py", "VMBackend._prepare_guest", "Path(guest_agent.__file__).read_bytes",
            "reads the package's own guest_agent.py to copy it into the guest"),
    Allowed(f"{_VM}/config.py", "GuestConfig.__post_init__", "",
            "checks that the researcher's key_path and disk_image settings name files, before any guest starts"),
    Allowed(f"{_VM}/guest.py", "Guest._disk_volumes", "",
            "resolves the configured disk image and writes the marker of the overlay folder it just made (mkdtemp)"),
    Allowed(f"{_VM}/guest.py", "Guest.destroy", "shutil.rmtree", "removes the guest's own overlay folder (mkdtemp)"),
    Allowed(f"{_VM}/gc.py", "collect", "",
            "`mmenvs vm gc`: lists and removes mmenvs-vm-disk-* overlay folders in the temp folder (the backend's own)"),
    Allowed(f"{_VM}/ports.py", "allocate", "", "the port lock files in the backend's lock folder"),
    Allowed(f"{_VM}/ssh.py", "SSHLink.put_bytes", "self.sftp().chmod", "an SFTP call: it acts inside the guest, not on the host"),
    # --- the home's own path, compared (not its contents)
    Allowed(f"{_SIM}/shells.py", "ShellSessions.new_episode",
            "Path(self._home).resolve", "compares the last and the new episode's home root (the env's paths; the agent "
            "cannot replace the home folder itself or its parents)"),
    Allowed(f"{_SIM}/shells.py", "ShellSessions.new_episode", "Path(self.backend.home).resolve", "as above"),
)


def host_modules() -> list[Path]:
    """Every module of the MacAgent package: all of it runs on the host, outside the sandbox."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name → the dotted name it was imported as (``import os.path as p`` → p: os.path)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST, imports: dict[str, str]) -> str | None:
    """``os.path.exists`` for a chain of names rooted at an imported module; None otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imports:
        return None
    return ".".join([imports[node.id], *reversed(parts)])


def _receiver_name(node: ast.AST) -> str | None:
    """The last name of a method call's receiver: ``files`` for ``self.desktop.files.exists``,
    ``home_files`` for ``home_files(ctx).read_bytes``."""
    if isinstance(node, ast.Call):
        return _receiver_name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _path_like(node: ast.AST) -> bool:
    """A receiver that looks like a path: ``a / b``, ``Path(…)``, or a name that says so (path, file, dest…)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Path", "PurePath", "PosixPath"):
        return True
    name = (_receiver_name(node) or "").lower()
    return name in ("p", "f") or any(w in name for w in ("path", "file", "dir", "folder", "dest", "target", "src",
                                                          "root", "home", "config", "trash"))


def _is_bytes_buffer(node: ast.AST) -> bool:
    """``io.BytesIO(...)`` / ``BytesIO(...)``: an in-memory file."""
    return isinstance(node, ast.Call) and (
        isinstance(node.func, ast.Attribute) and node.func.attr == "BytesIO"
        or isinstance(node.func, ast.Name) and node.func.id == "BytesIO")


def file_calls_in(source: str, file: str) -> list[Call]:
    """The file calls outside the layer in ``source`` (the rules in the module docstring)."""
    tree = ast.parse(source)
    imports = _imports(tree)
    shadowed = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} \
        | {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    found: list[Call] = []

    def flag(node: ast.Call, function: str) -> None:
        found.append(Call(file, function, ast.unparse(node.func), node.lineno))

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, child.name if function == "<module>" else f"{function}.{child.name}")
                continue
            if isinstance(child, ast.Call):
                check(child, function)
            visit(child, function)

    def check(node: ast.Call, function: str) -> None:
        func = node.func
        dotted = _dotted(func, imports)
        if isinstance(func, ast.Name) and func.id == "open" and "open" not in shadowed:
            flag(node, function)
            return
        if dotted is not None:
            module, _, name = dotted.rpartition(".")
            if module == "os" and name in OS_FILE_FUNCTIONS or module == "os.path" and name in OS_PATH_FILE_FUNCTIONS \
                    or dotted.startswith("shutil.") and dotted not in HARMLESS or module in ("glob", "io", "codecs") and name in ("glob", "iglob", "open") \
                    or module == "pathlib.Path" and name in PATH_METHODS:
                flag(node, function)
            elif dotted == "sqlite3.connect":
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Constant) and first.value == ":memory:"):
                    flag(node, function)
            elif dotted == "PIL.Image.open" and not (node.args and _is_bytes_buffer(node.args[0])):
                flag(node, function)
            return
        if isinstance(func, ast.Attribute) and func.attr in PATH_METHODS:
            if _receiver_name(func.value) in CONFINED_RECEIVERS:
                return  # the layer's own methods
            if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls", "super"):
                return  # the class's own method (no class here subclasses Path)
            if func.attr in GENERIC_METHODS and not _path_like(func.value):
                return
            if func.attr == "replace" and len(node.args) != 1:
                return  # str.replace(old, new): Path.replace takes one target
            if func.attr == "resolve" and node.args:
                return  # an app's own resolve(name) (wiki links, URLs); Path.resolve takes no positional path
            if isinstance(func.value, ast.Name) and func.value.id in imports:
                return  # a module's function (``ast.walk``): the module rules above judged it
            flag(node, function)

    visit(tree, "<module>")
    return found


def violations(path: Path) -> list[Call]:
    rel = path.relative_to(ROOT).as_posix()
    return [c for c in file_calls_in(path.read_text(encoding="utf-8"), rel) if not any(a.matches(c) for a in ALLOWLIST)]


# ---------------------------------------------------------------------------------------------- the guard
@pytest.mark.parametrize("module", host_modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_host_module_touches_files_only_through_the_confined_layer(module: Path) -> None:
    found = violations(module)
    assert not found, (f"{len(found)} file call(s) outside mmenvs/core/confined.py (use desktop.home_files, or add an "
                       "ALLOWLIST entry naming why the call cannot touch the home):\n  " + "\n  ".join(map(str, found)))


def test_every_allowlist_entry_is_still_needed() -> None:
    """An entry whose call is gone is removed, so the list stays a list of real exceptions."""
    calls = [c for p in host_modules() for c in file_calls_in(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())]
    stale = [a for a in ALLOWLIST if not any(a.matches(c) for c in calls)]
    assert not stale, "allowlist entries that match no call any more: " + "; ".join(f"{a.file} {a.function} {a.call}" for a in stale)
    assert all(a.why.strip() for a in ALLOWLIST)


def test_the_layer_itself_is_outside_the_scan() -> None:
    assert LAYER.is_file() and LAYER not in host_modules()


# ---------------------------------------------------------------------------------------------- the scanner
SAMPLE = '''
import os, shutil, sqlite3
import os.path as osp
from pathlib import Path
from shutil import rmtree
from PIL import Image
import io

def reads(p: Path, home_files):
    open(p)
    p.read_text()
    p.exists()
    os.scandir(p)
    os.walk(p)
    osp.isdir(p)
    shutil.copy2(p, p)
    rmtree(p)
    p.rename(p)
    p.replace(p)
    Path(p).resolve()
    sqlite3.connect(str(p))
    Image.open(p)

def fine(p, home_files, self):
    home_files.read_text(p)
    self.desktop.home_files.exists(p)
    self.files.listdir(p)
    "a".replace("a", "b")
    sqlite3.connect(":memory:")
    Image.open(io.BytesIO(b""))
    self.index(p).resolve("target")
'''


def test_the_scanner_finds_every_kind_of_file_call() -> None:
    calls = file_calls_in(SAMPLE, "sample.py")
    assert {c.function for c in calls} == {"reads"}, [str(c) for c in calls if c.function != "reads"]
    assert [c.call for c in calls] == ["open", "p.read_text", "p.exists", "os.scandir", "os.walk", "osp.isdir",
                                       "shutil.copy2", "rmtree", "p.rename", "p.replace", "Path(p).resolve",
                                       "sqlite3.connect", "Image.open"]


def test_the_allowlist_matches_by_file_function_and_call() -> None:
    entry = Allowed("a.py", "f", "os.lstat", "why")
    assert entry.matches(Call("a.py", "f", "os.lstat", 3))
    assert not entry.matches(Call("a.py", "g", "os.lstat", 3))
    assert not entry.matches(Call("b.py", "f", "os.lstat", 3))
    assert not entry.matches(Call("a.py", "f", "os.scandir", 3))
