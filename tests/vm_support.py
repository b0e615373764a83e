"""A private ``dockerd`` for the VM-backend tests, and the Linux test guest image it runs.

The tests never use the machine's own Docker daemon (if it has one): they start their own ``dockerd``
with a private socket, exec root and pid file in a short temp folder, no TCP listener, no iptables
rules, no bridge and no IP masquerading (containers use the host's network and bind 127.0.0.1), and
stop it again when the test session ends. Nothing outlives the run: the daemon is started with a
parent-death signal, its containers are removed before it stops, and every process below it is
killed by pid if it is still there afterwards.

The daemon's data root (where the imported guest image lives) is kept in the cache folder outside the
clone (``$MMENVS_CACHE_DIR/dockerd``, default ``/var/cache/mmenvs/dockerd``), so the built image
survives between runs where the machine keeps that folder. Only one daemon can use a data root at a
time: a second test run on the machine (two suites side by side) gets a data root of its own in the
cache folder, imports the cached guest rootfs into it, and removes it when it stops.

Fixtures (import them in a test module with ``from vm_support import docker_daemon, test_guest``):

- ``docker_daemon`` (session): a :class:`Daemon` with ``.client`` (a ``docker.DockerClient``),
  ``.socket`` (the socket path) and ``.base_url`` (``unix://...``).
- ``test_guest`` (session): the test guest image, built once per run if missing
  (:func:`mmenvs.macagent.backends.vm.guest_image.ensure_test_guest`): a ``TestGuest`` with the image
  tag, the SSH user and the private key path.

Without ``dockerd`` the fixtures FAIL (a VM test must not pass by not running); ``MMENVS_REQUIRE_DOCKER=0``
turns that into a skip with the reason.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from _wait import wait_until

# A daemon that has to start its own containerd on a loaded 2-core machine can take a while.
START_TIMEOUT = 120.0
STOP_TIMEOUT = 60.0


def cache_root() -> Path:
    """The cache folder outside the clone: ``$MMENVS_CACHE_DIR`` or ``/var/cache/mmenvs``."""
    configured = os.environ.get("MMENVS_CACHE_DIR", "").strip()
    return Path(configured) if configured else Path("/var/cache/mmenvs")


def docker_required() -> bool:
    return os.environ.get("MMENVS_REQUIRE_DOCKER", "1").strip() not in ("0", "false", "no", "")


def missing_docker(reason: str) -> None:
    """Fail (the default) or skip (``MMENVS_REQUIRE_DOCKER=0``) a test that needs dockerd."""
    if docker_required():
        pytest.fail(f"{reason} (the VM tests need a real dockerd: install docker.io with ./setup.sh, "
                    f"or set MMENVS_REQUIRE_DOCKER=0 to skip them)", pytrace=False)
    pytest.skip(f"{reason}; MMENVS_REQUIRE_DOCKER=0")


def _parent_death_signal() -> None:
    """In the child before exec: get SIGTERM when the test process dies, so a killed pytest leaves no daemon."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; stop() and atexit still clean up
        pass
    os.setsid()


def free_ports(count: int) -> list[int]:
    """``count`` loopback ports nobody listens on now (the kernel picks them; held open together so they differ)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def free_display(first: int = 300, last: int = 900) -> int:
    """An X display number no X server on the host network uses: guests share the host's network namespace,
    where each X server binds the abstract socket ``@/tmp/.X11-unix/X<n>``; a number whose socket this
    process can bind is free."""
    start = first + os.getpid() % (last - first)
    for offset in range(last - first):
        number = first + (start - first + offset) % (last - first)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(f"\0/tmp/.X11-unix/X{number}")
            return number
        except OSError:
            continue
        finally:
            sock.close()
    raise AssertionError(f"no free X display number in {first}..{last}")


class Daemon:
    """A private ``dockerd``: ``start()`` waits until it answers, ``stop()`` removes its containers,
    stops it and checks that none of its processes is left."""

    def __init__(self, data_root: Path | None = None) -> None:
        self.cache = cache_root()
        # Unix socket paths are limited to 108 bytes, and containerd puts its own sockets below the exec
        # root: keep the run folder short and in /tmp.
        self.run_dir = Path(tempfile.mkdtemp(prefix="mmd-", dir="/tmp"))
        self.socket = str(self.run_dir / "docker.sock")
        self.base_url = f"unix://{self.socket}"
        self.log_path = self.run_dir / "dockerd.log"
        self._lock_handle = None
        self.own_data_root = False
        self.data_root = data_root if data_root is not None else self._pick_data_root()
        self.process: subprocess.Popen | None = None
        self.client = None
        self._seen: set[int] = set()

    def _pick_data_root(self) -> Path:
        """The shared cached data root if no other daemon holds it, else one for this run alone."""
        self.cache.mkdir(parents=True, exist_ok=True)
        handle = open(self.cache / "dockerd.lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            self.own_data_root = True
            return Path(tempfile.mkdtemp(prefix=f"dockerd-run-{os.getpid()}-", dir=self.cache))
        self._lock_handle = handle
        root = self.cache / "dockerd"
        root.mkdir(parents=True, exist_ok=True)
        return root

    def start(self) -> "Daemon":
        binary = shutil.which("dockerd")
        if binary is None:
            self.stop()
            missing_docker("dockerd is not installed (no `dockerd` on PATH)")
        try:
            import docker
        except ImportError:
            self.stop()
            missing_docker("the docker SDK is not installed (pip install -e '.[vm]')")
        command = [
            binary, "--host", self.base_url,
            "--data-root", str(self.data_root),
            "--exec-root", str(self.run_dir / "exec"),
            "--pidfile", str(self.run_dir / "docker.pid"),
            "--iptables=false", "--ip-masq=false", "--bridge=none",
            "--userland-proxy=false", "--log-level=warn",
        ]
        log = open(self.log_path, "w")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        preexec_fn=_parent_death_signal)
        log.close()

        def answers() -> bool | str:
            if self.process.poll() is not None:
                return f"dockerd exited with {self.process.returncode}"
            self._remember_children()
            try:
                # the client asks the daemon for its API version when it is made: make it once the socket answers
                if self.client is None:
                    self.client = docker.DockerClient(base_url=self.base_url, timeout=300)
                return bool(self.client.ping())
            except Exception as error:  # noqa: BLE001 - not up yet
                return f"not answering yet: {type(error).__name__}"

        try:
            state = wait_until(answers, check=lambda v: v is True or (isinstance(v, str) and v.startswith("dockerd exited")),
                               what=f"the private dockerd on {self.socket} to answer", timeout=START_TIMEOUT, interval=0.2)
        except AssertionError:
            self.stop()
            raise AssertionError(f"the private dockerd did not answer within {START_TIMEOUT:g} s; log:\n{self.log_tail()}")
        if state is not True:
            self.stop()
            raise AssertionError(f"the private dockerd did not start ({state}); log:\n{self.log_tail()}")
        return self

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def _remember_children(self) -> None:
        if self.process is None:
            return
        try:
            self._seen.update(p.pid for p in psutil.Process(self.process.pid).children(recursive=True))
        except psutil.Error:
            pass

    def processes(self) -> list[psutil.Process]:
        """The daemon and every process below it that is still alive (containerd, shims, guests)."""
        alive = []
        pids = set(self._seen)
        if self.process is not None:
            pids.add(self.process.pid)
        for pid in pids:
            try:
                proc = psutil.Process(pid)
                if proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc)
            except psutil.Error:
                pass
        return alive

    def remove_containers(self) -> None:
        if self.client is None:
            return
        try:
            for container in self.client.containers.list(all=True):
                try:
                    container.remove(force=True)
                except Exception:  # noqa: BLE001 - already gone
                    pass
        except Exception:  # noqa: BLE001 - daemon already down
            pass

    def stop(self) -> None:
        """Remove the containers, stop the daemon (SIGTERM, then SIGKILL), kill what is left below it by
        pid, unmount what it left mounted under the run folder, and remove the run folder (and a
        per-run data root). Safe to call twice."""
        if self.process is not None:
            self._remember_children()
            self.remove_containers()
            if self.client is not None:
                try:
                    self.client.close()
                except Exception:  # noqa: BLE001
                    pass
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=STOP_TIMEOUT)
            for proc in self.processes():
                try:
                    proc.kill()
                except psutil.Error:
                    pass
            wait_until(self.processes, check=lambda left: not left, what="no process of the private dockerd left",
                       timeout=STOP_TIMEOUT)
            self.process = None
        self._unmount_below(self.run_dir)
        if self.own_data_root:
            self._unmount_below(self.data_root)
            shutil.rmtree(self.data_root, ignore_errors=True)
        shutil.rmtree(self.run_dir, ignore_errors=True)
        self._release()

    @staticmethod
    def _unmount_below(folder: Path) -> None:
        prefix = str(folder) + "/"
        try:
            mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
        except OSError:
            return
        for point in sorted((m for m in mounts if m.startswith(prefix)), key=len, reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True)

    def _release(self) -> None:
        if self._lock_handle is not None:
            self._lock_handle.close()
            self._lock_handle = None


# Each test module that imports the fixtures gets its own copy of them in pytest's eyes (fixtures are
# registered per module), so the daemon is shared here: started by the first, stopped by the last.
_SHARED: dict = {"daemon": None, "users": 0}


@pytest.fixture(scope="session")
def docker_daemon():
    """A private dockerd for the whole test session (see the module docstring), one for every module."""
    if _SHARED["daemon"] is None:
        daemon = Daemon()
        daemon.start()
        _SHARED["daemon"] = daemon
    _SHARED["users"] += 1
    daemon = _SHARED["daemon"]
    try:
        yield daemon
    finally:
        _SHARED["users"] -= 1
        if _SHARED["users"] == 0:
            _SHARED["daemon"] = None
            daemon.stop()
            assert not daemon.processes(), "processes of the private dockerd outlived it"


@pytest.fixture(scope="session")
def test_guest(docker_daemon):
    """The Linux test guest image in the private daemon, built (or imported from the cached rootfs)
    once per run if missing."""
    from mmenvs.macagent.backends.vm.guest_image import ensure_test_guest

    return ensure_test_guest(docker_daemon.client)
