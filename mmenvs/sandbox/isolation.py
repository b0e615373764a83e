"""Layers 2 and 3 of the sandbox: OS isolation with bubblewrap, rlimits and a pids cgroup.

The parent builds one ``bwrap`` command line per worker: every namespace unshared (user, pid,
net, ipc, uts, cgroup), all capabilities dropped, an empty environment plus a few fixed
variables, read-only binds of only what the program needs, a private size-capped tmpfs on
``/tmp`` and ``--die-with-parent``.  Inside, the process runs as uid/gid 1000.

Process-count limits: ``RLIMIT_NPROC`` does not bind for root (and a user namespace created by
root maps its users back to root), so the worker is placed in its own cgroup with ``pids.max``
when a pids cgroup hierarchy is writable (cgroup v1 ``/sys/fs/cgroup/pids`` or a cgroup v2
mount with the pids controller); otherwise, for a non-root user, ``RLIMIT_NPROC`` is used.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Iterable
from pathlib import Path

ISOLATION_MODES = ("auto", "strict", "bwrap", "rlimit-only")
BWRAP_ENV_VAR = "MMENVS_BWRAP"  # a path to use instead of `bwrap` on PATH; empty or missing path = unavailable
SANDBOX_UID = 1000
CGROUP_V1_PIDS = Path("/sys/fs/cgroup/pids")


class SandboxUnavailable(RuntimeError):
    """Raised when ``isolation="strict"`` is asked for but bubblewrap cannot run here."""


class SandboxWarning(RuntimeWarning):
    """Warned once per process when the sandbox falls back to rlimit-only isolation."""


_warned_fallback = False
_probe_lock = threading.Lock()
_open_sandboxes: weakref.WeakSet = weakref.WeakSet()


def close_at_exit(sandbox: object) -> None:
    """Close ``sandbox`` when the interpreter exits, if nobody did (removes cgroups and temp dirs)."""
    _open_sandboxes.add(sandbox)


@atexit.register
def _close_open_sandboxes() -> None:
    for sandbox in list(_open_sandboxes):
        try:
            sandbox.close()  # type: ignore[attr-defined]
        except Exception:
            pass


def find_bwrap(path: str | os.PathLike[str] | None = None) -> str | None:
    """Locate the bwrap binary: the ``path`` argument, else ``$MMENVS_BWRAP``, else ``bwrap`` on PATH."""
    if path is None:
        path = os.environ.get(BWRAP_ENV_VAR)
    if path is None:
        return shutil.which("bwrap")
    path = str(path)
    if not path:
        return None
    if os.sep not in path:
        return shutil.which(path)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


# ---------------------------------------------------------------------------------------------
# What a Python worker / a shell needs to see, read-only
# ---------------------------------------------------------------------------------------------

def _dedupe(paths: Iterable[str]) -> list[str]:
    """Existing real paths, without ones already covered by a bound parent directory."""
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.exists(p)})
    out: list[str] = []
    for p in real:
        if not any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            out.append(p)
    return out


@functools.lru_cache(maxsize=1)
def python_paths() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(paths to bind read-only for the Python runtime, site directories to put on sys.path)."""
    import site
    import sysconfig

    site_dirs = [*site.getsitepackages()]
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and os.path.isdir(user_site):
        site_dirs.append(user_site)
    for key in ("purelib", "platlib"):
        site_dirs.append(sysconfig.get_paths()[key])
    # Libraries the benchmarks use may live outside the interpreter prefix (e.g. a venv).
    for mod in ("numpy", "cv2", "PIL", "matplotlib", "scipy"):
        spec = importlib.util.find_spec(mod)
        if spec is not None and spec.submodule_search_locations:
            site_dirs.append(str(Path(list(spec.submodule_search_locations)[0]).parent))
    site_dirs = [d for d in dict.fromkeys(os.path.realpath(d) for d in site_dirs) if os.path.isdir(d)]
    stdlib = [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]]
    exe_dir = os.path.dirname(os.path.realpath(sys.executable))
    binds = [*stdlib, *site_dirs, exe_dir,
             os.path.join(sys.base_prefix, "lib"), os.path.join(sys.exec_prefix, "lib")]
    if sys.prefix != sys.base_prefix:
        binds.append(sys.prefix)
    return tuple(_dedupe(binds)), tuple(site_dirs)


def _system_binds(full_usr: bool) -> list[str]:
    args: list[str] = []
    usr = ["/usr"] if full_usr else ["/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32",
                                       "/usr/local/lib", "/usr/share/zoneinfo", "/usr/share/fonts"]
    for p in usr:
        if os.path.isdir(p):
            args += ["--ro-bind", p, p]
    for p in ("/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"):
        if not full_usr and p in ("/bin", "/sbin"):
            continue
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    etc = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"]
    if full_usr:
        etc += ["/etc/alternatives", "/etc/localtime", "/etc/inputrc"]
    for p in etc:
        if os.path.exists(p):
            args += ["--ro-bind", p, p]
    return args


# ---------------------------------------------------------------------------------------------
# seccomp: deny syscalls sandboxed code never needs and that widen the kernel attack surface
# ---------------------------------------------------------------------------------------------

# Denied with EPERM: tracing and cross-process memory access, kernel keyrings (not namespaced
# by uid mapping), BPF, perf, userfaultfd, io_uring, module/kexec loading, mounts, swap,
# reboot, accounting, the kernel log, and entering or creating namespaces.
_DENIED_SYSCALLS = {
    "x86_64": (0xC000003E, {
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
        "add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "mount": 165, "umount2": 166, "pivot_root": 155, "swapon": 167,
        "swapoff": 168, "reboot": 169, "acct": 163, "syslog": 103, "unshare": 272, "setns": 308,
        "fsopen": 430, "fsmount": 432, "open_tree": 428, "move_mount": 429}),
    "aarch64": (0xC00000B7, {
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272,
        "add_key": 217, "request_key": 218, "keyctl": 219, "bpf": 280, "perf_event_open": 241,
        "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "mount": 40, "umount2": 39, "pivot_root": 41, "swapon": 224,
        "swapoff": 225, "reboot": 142, "acct": 89, "syslog": 116, "unshare": 97, "setns": 268,
        "fsopen": 430, "fsmount": 432, "open_tree": 428, "move_mount": 429}),
}


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp program (as bwrap's ``--seccomp`` reads it) for this CPU, or None.

    Other architectures are killed (no syscall confusion through a foreign ABI); on x86_64 the
    x32 ABI (syscall numbers with bit 30 set) is denied as a whole.
    """
    import platform
    import struct

    machine = machine or platform.machine()
    if machine not in _DENIED_SYSCALLS:
        return None
    arch, table = _DENIED_SYSCALLS[machine]
    ld_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny, kill = 0x7FFF0000, 0x00050000 | 1, 0x80000000  # RET_ALLOW, RET_ERRNO|EPERM, RET_KILL_PROCESS
    nrs = sorted(set(table.values()))
    # Layout: [ld arch, jeq arch, ret kill, ld nr, (jge x32), jeq nr..., ret allow, ret deny]
    prog: list[tuple[int, int, int, int]] = [(ld_abs, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill), (ld_abs, 0, 0, 0)]
    checks = ([(jge, 0x40000000)] if machine == "x86_64" else []) + [(jeq, nr) for nr in nrs]
    deny_index = len(prog) + len(checks) + 1
    for code, k in checks:
        here = len(prog)
        prog.append((code, deny_index - here - 1, 0, k))
    prog += [(ret, 0, 0, allow), (ret, 0, 0, deny)]
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def seccomp_fd(flags: frozenset[str]) -> int | None:
    """A pipe read end holding the seccomp program when ``flags`` allow it (the caller closes it)."""
    if "seccomp" not in flags:
        return None
    program = seccomp_filter()
    if program is None:
        return None
    r, w = os.pipe()
    os.write(w, program)
    os.close(w)
    return r


def bwrap_command(bwrap: str, argv: list[str], *, env: dict[str, str], ro_binds: Iterable[str] = (),
                  rw_binds: Iterable[tuple[str, str]] = (), ro_binds_at: Iterable[tuple[str, str]] = (),
                  data_files: Iterable[tuple[int, str]] = (), tmpfs_mb: int = 256, chdir: str = "/tmp",
                  full_usr: bool = False, flags: frozenset[str] = frozenset(),
                  seccomp: int | None = None) -> list[str]:
    """The bwrap command line that runs ``argv`` in a fresh sandbox.

    ``flags`` comes from :func:`probe_bwrap` and says which optional features work here;
    ``seccomp`` is an fd from :func:`seccomp_fd` (it must be passed to the child).
    """
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--clearenv", "--hostname", "sandbox"]
    if "userns" in flags:
        cmd += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
        if "disable-userns" in flags:
            cmd += ["--disable-userns"]
    if seccomp is not None:
        cmd += ["--seccomp", str(seccomp)]
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    cmd += _system_binds(full_usr)
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    # Every writable tmpfs is sized (tmpfs pages are host memory): /tmp and /dev/shm get tmpfs_mb
    # each. bwrap's own /dev tmpfs cannot be sized, so it is made read-only (its device nodes are
    # separate mounts and stay usable); without --size support /dev/shm stays a read-only directory.
    if "tmpfs-size" in flags:
        cmd += ["--size", str(tmpfs_mb * 1024 * 1024), "--tmpfs", "/dev/shm"]
    cmd += ["--remount-ro", "/dev"]
    if "tmpfs-size" in flags:
        cmd += ["--size", str(tmpfs_mb * 1024 * 1024)]
    cmd += ["--tmpfs", "/tmp"]
    for p in ro_binds:
        cmd += ["--ro-bind", p, p]
    for host, inside in ro_binds_at:
        cmd += ["--ro-bind", host, inside]
    for host, inside in rw_binds:
        cmd += ["--bind", host, inside]
    for fd, dest in data_files:
        cmd += ["--perms", "0644", "--ro-bind-data", str(fd), dest]
    # The sandbox's root is bwrap's own tmpfs: make it read-only so only /tmp (size-capped) and
    # explicit rw binds can be written.
    cmd += ["--remount-ro", "/", "--chdir", chdir, "--", *argv]
    return cmd


_probe_cache: dict[str, tuple[frozenset[str] | None, str]] = {}


def probe_bwrap(bwrap: str | None) -> tuple[frozenset[str] | None, str]:
    """Check that bwrap can start Python here; returns (feature flags or None, reason if not)."""
    if bwrap is None:
        return None, "bubblewrap (`bwrap`) was not found (install the Debian package `bubblewrap`)"
    with _probe_lock:
        if bwrap in _probe_cache:
            return _probe_cache[bwrap]
        ro, _ = python_paths()
        last_err = ""
        result: tuple[frozenset[str] | None, str] | None = None
        full = ["seccomp", "disable-userns", "tmpfs-size", "userns"]
        # Try everything, then drop optional features one at a time (oldest bwrap / kernel last).
        for flags in [frozenset(full[i:]) for i in range(len(full))] + [frozenset()]:
            fd = seccomp_fd(flags)
            cmd = bwrap_command(bwrap, [os.path.realpath(sys.executable), "-S", "-c", "pass"],
                                env={"PATH": "/usr/bin:/bin"}, ro_binds=ro, flags=flags, seccomp=fd)
            try:
                proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                                      pass_fds=(fd,) if fd is not None else ())
            except (OSError, subprocess.TimeoutExpired) as exc:
                last_err = str(exc)
                break
            finally:
                if fd is not None:
                    os.close(fd)
            if proc.returncode == 0:
                result = (flags if fd is not None or "seccomp" not in flags else flags - {"seccomp"}, "")
                break
            last_err = proc.stderr.decode(errors="replace").strip()[-300:]
        if result is None:
            result = (None, f"bubblewrap at {bwrap} cannot create a sandbox here: {last_err or 'unknown error'}")
        _probe_cache[bwrap] = result
        return result


def resolve_isolation(isolation: str, bwrap: str | os.PathLike[str] | None = None
                      ) -> tuple[str, str | None, frozenset[str]]:
    """Decide the isolation actually used: ("bwrap" | "rlimit-only", bwrap path, feature flags).

    ``"auto"`` uses bwrap when it works and otherwise falls back with one loud warning per process;
    ``"strict"`` (alias ``"bwrap"``) raises :class:`SandboxUnavailable` instead of falling back.
    """
    global _warned_fallback
    if isolation not in ISOLATION_MODES:
        raise ValueError(f"isolation={isolation!r} is not one of {ISOLATION_MODES}")
    if isolation == "rlimit-only":
        return "rlimit-only", None, frozenset()
    path = find_bwrap(bwrap)
    flags, reason = probe_bwrap(path)
    if flags is not None:
        return "bwrap", path, flags
    if isolation in ("strict", "bwrap"):
        raise SandboxUnavailable(f"isolation={isolation!r} refused: {reason}")
    if not _warned_fallback:
        _warned_fallback = True
        warnings.warn(
            f"mmenvs.sandbox: {reason}. Falling back to rlimit-only isolation: untrusted code runs as a "
            "plain subprocess with resource limits and is NOT isolated from this machine's files or "
            "network. Use isolation='strict' to refuse instead.", SandboxWarning, stacklevel=3)
    return "rlimit-only", None, frozenset()


# ---------------------------------------------------------------------------------------------
# Process-count limit: a pids cgroup per worker
# ---------------------------------------------------------------------------------------------

def _pids_root() -> Path | None:
    """A writable directory of a pids cgroup hierarchy in which we may create children."""
    base = CGROUP_V1_PIDS
    if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
        return base
    return _pids_root_v2()


def _pids_root_v2() -> Path | None:
    root = Path("/sys/fs/cgroup")
    try:
        if "pids" not in (root / "cgroup.controllers").read_text().split():
            return None
        if "pids" not in (root / "cgroup.subtree_control").read_text().split():
            (root / "cgroup.subtree_control").write_text("+pids")
    except OSError:
        return None
    return root if os.access(root, os.W_OK) else None


_counter = 0
_counter_lock = threading.Lock()


class PidsCgroup:
    """A private pids cgroup for one sandbox process tree (created, filled, killed, removed)."""

    def __init__(self, path: Path, max_pids: int) -> None:
        self.path = path
        path.mkdir()
        (path / "pids.max").write_text(str(max_pids))
        self.procs_file = str(path / "cgroup.procs")

    @classmethod
    def create(cls, max_pids: int) -> PidsCgroup | None:
        """A new cgroup limited to ``max_pids`` tasks, or None when no pids hierarchy is writable."""
        global _counter
        root = _pids_root()
        if root is None:
            return None
        parent = root / "mmenvs-sandbox"
        try:
            parent.mkdir(exist_ok=True)
            _sweep(parent)
            with _counter_lock:
                _counter += 1
                n = _counter
            return cls(parent / f"p{os.getpid()}-{n}", max_pids)
        except OSError:
            return None

    def add(self, pid: int) -> None:
        """Move a task (and, for threads, its whole process) into this cgroup."""
        try:
            with open(self.procs_file, "w") as fh:
                fh.write(str(pid))
        except ProcessLookupError:
            pass

    def pids(self) -> list[int]:
        try:
            return [int(x) for x in Path(self.procs_file).read_text().split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, timeout: float = 2.0) -> None:
        """SIGKILL every task in the cgroup until it is empty (forks racing the kill are caught too)."""
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            if time.monotonic() > deadline:
                return
            time.sleep(0.001)

    def remove(self) -> None:
        """Kill what is left and delete the cgroup directory."""
        self.kill_all()
        for _ in range(200):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.005)


def _sweep(parent: Path) -> None:
    """Remove empty cgroups left behind by parents that died without cleaning up."""
    for child in parent.iterdir():
        try:
            owner = int(child.name[1:].split("-")[0])
        except ValueError:
            continue
        if owner != os.getpid() and not Path(f"/proc/{owner}").exists():
            try:
                child.rmdir()
            except OSError:
                pass


def terminate(proc: subprocess.Popen | None, cgroup: "PidsCgroup | None", tmpdir: str | os.PathLike[str] | None, *,
              background: bool = False, thread_name: str = "mmenvs-sandbox-reaper") -> None:
    """SIGKILL a sandboxed process group and every pid of its cgroup now. Reaping, closing its pipes,
    removing the cgroup and the temp dir follow, in a thread with ``background`` so a reset need not wait."""
    if proc is not None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    if cgroup is not None:
        for pid in cgroup.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def finish() -> None:
        if cgroup is not None:
            cgroup.kill_all()
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
        if cgroup is not None:
            cgroup.remove()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)

    if background:
        threading.Thread(target=finish, name=thread_name, daemon=True).start()
    else:
        finish()


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants, via /proc/<pid>/task/<tid>/children (psutil if absent)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
            except FileNotFoundError:
                if not os.path.exists(f"/proc/{p}/task/{tid}"):
                    continue
                import psutil  # kernel without CONFIG_PROC_CHILDREN

                try:
                    return [pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))]
                except psutil.Error:
                    return [pid]
            except (OSError, ValueError):
                continue
    return out


_warned_nproc = False


def process_limit_kind(cgroup: PidsCgroup | None, max_processes: int | None) -> str:
    """How the process-count limit is enforced: "cgroup", "rlimit" or "none" (warned once)."""
    global _warned_nproc
    if not max_processes:
        return "none"
    if cgroup is not None:
        return "cgroup"
    if os.geteuid() != 0:
        return "rlimit"
    if not _warned_nproc:
        _warned_nproc = True
        warnings.warn("mmenvs.sandbox: running as root without a writable pids cgroup "
                      f"({CGROUP_V1_PIDS} or cgroup v2 with the pids controller): RLIMIT_NPROC does not bind "
                      "for root, so the process-count limit is NOT enforced (fork bombs are stopped only by "
                      "the timeout).", SandboxWarning, stacklevel=3)
    return "none"
