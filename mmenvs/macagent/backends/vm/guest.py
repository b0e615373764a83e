"""One guest: a labelled container started from a :class:`GuestConfig`, its ports, its temp disk, and
the SSH link to it. :meth:`Guest.start` returns at once; :meth:`Guest.wait_ready` waits (with a
deadline) until sshd answers and the desktop is up; :meth:`Guest.destroy` removes everything it made.
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from .config import LABEL, LABEL_OWNER, LABEL_ROLE, READY_FILE, GuestConfig, owner_label
from .ports import PortLease, allocate
from .ssh import ConnectionLost, Endpoint, SSHLink, user_prefix

#: Name prefix of the temp folders that hold per-guest disks (``mmenvs vm gc`` looks for it).
DISK_PREFIX = "mmenvs-vm-disk-"
DISK_MARKER = ".mmenvs-vm.json"
_SEQ = itertools.count()


class GuestLost(RuntimeError):
    """The guest is gone (its container stopped or was removed): an infrastructure failure, not the
    agent's doing. ``infra_kind`` tells the runner to record the episode apart from scores."""

    infra_kind = "vm_guest_lost"


class GuestStartError(RuntimeError):
    """A guest did not come up (the message has the container's log tail)."""

    infra_kind = "vm_guest_start"


def docker_client(url: str | None = None) -> Any:
    """A docker SDK client for ``url`` (``unix:///…``), else ``$MMENVS_DOCKER_HOST``/``$DOCKER_HOST``."""
    import docker

    url = url or os.environ.get("MMENVS_DOCKER_HOST") or None
    if url:
        return docker.DockerClient(base_url=url, timeout=120)
    return docker.from_env(timeout=120)


class Guest:
    def __init__(self, config: GuestConfig, client: Any, *, session: str, lock_dir: Path | None = None) -> None:
        self.config = config
        self.client = client
        self.session = session
        self.lock_dir = lock_dir
        self.name = f"mmenvs-vm-{os.getpid()}-{next(_SEQ)}-{secrets.token_hex(3)}"
        self.container: Any = None
        self.lease: PortLease | None = None
        self.disk_dir: Path | None = None
        self.link: SSHLink | None = None
        self.ssh_port = self.vnc_port = 0
        self.display: str | None = None
        self.started_at = 0.0
        self.ready_at = 0.0
        self.used = False
        self.vnc: Any = None  # the backend's VNC client, connected while the guest waited in the pool

    @property
    def labels(self) -> dict[str, str]:
        return {LABEL: "1", LABEL_OWNER: owner_label(), LABEL_ROLE: "guest", "mmenvs.vm.session": self.session}

    # ------------------------------------------------------------------ start
    def start(self) -> "Guest":
        cfg = self.config
        self.started_at = time.monotonic()
        self.lease = allocate(2, lock_dir=self.lock_dir)
        self.ssh_port, self.vnc_port = self.lease.ports
        env = {str(k): str(v) for k, v in cfg.environment.items()}
        kwargs: dict[str, Any] = {}
        if cfg.network == "host":
            kwargs["network_mode"] = "host"
            env[cfg.port_env[0]], env[cfg.port_env[1]] = str(self.ssh_port), str(self.vnc_port)
            if cfg.display_env and cfg.os == "linux":
                self.display = f":{self.ssh_port - 20000}"  # unique per guest: X's abstract socket is per network namespace
                env[cfg.display_env] = self.display
        else:
            kwargs["ports"] = {f"{cfg.guest_ssh_port}/tcp": ("127.0.0.1", self.ssh_port),
                               f"{cfg.guest_vnc_port}/tcp": ("127.0.0.1", self.vnc_port)}
        if cfg.os == "linux":
            env.setdefault("MMENVS_SCREEN", f"{cfg.screen_size[0]}x{cfg.screen_size[1]}x24")
        else:
            env.setdefault("WIDTH", str(cfg.screen_size[0]))
            env.setdefault("HEIGHT", str(cfg.screen_size[1]))
        if cfg.cpu_flags:
            env["CPUID_FLAGS"] = cfg.cpu_flags
        volumes = {}
        if cfg.disk_image:
            volumes.update(self._disk_volumes())
        try:
            self.container = self.client.containers.run(
                cfg.image, detach=True, name=self.name, labels=self.labels, environment=env,
                devices=list(cfg.devices) or None, volumes=volumes or None, **kwargs)
        except Exception as exc:
            self.destroy()
            raise GuestStartError(f"could not start a container of image {cfg.image!r}: {type(exc).__name__}: {exc}") from exc
        return self

    def _disk_volumes(self) -> dict[str, dict[str, str]]:
        cfg = self.config
        base = str(Path(cfg.disk_image).resolve())
        if not cfg.overlay:
            return {base: {"bind": cfg.disk_mount, "mode": "rw"}}
        qemu_img = shutil.which("qemu-img")
        if qemu_img is None:
            raise GuestStartError("overlay=True needs qemu-img on the host (apt-get install qemu-utils), "
                                  "or set overlay=False to boot the disk image itself")
        self.disk_dir = Path(tempfile.mkdtemp(prefix=DISK_PREFIX, dir=cfg.overlay_dir))
        (self.disk_dir / DISK_MARKER).write_text(json.dumps({**self.labels, "container": self.name}))
        overlay = self.disk_dir / "overlay.qcow2"
        done = subprocess.run([qemu_img, "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", base, str(overlay)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise GuestStartError(f"qemu-img could not make an overlay over {base}: {done.stderr.strip()[-400:]}")
        # the overlay names its backing file by its host path: mount the base at that same path, read-only
        return {str(overlay): {"bind": cfg.disk_mount, "mode": "rw"}, base: {"bind": base, "mode": "ro"}}

    # ------------------------------------------------------------------ ready
    def running(self) -> bool:
        """Whether the container is still running (False when it stopped or vanished)."""
        if self.container is None:
            return False
        try:
            self.container.reload()
        except Exception:  # noqa: BLE001 - removed, or the daemon is gone
            return False
        return self.container.status == "running"

    def wait_ready(self, timeout: float | None = None) -> "Guest":
        """Wait until the guest takes SSH logins and its desktop is up (``timeout``: the config's
        ``boot_timeout``). Raises ``GuestStartError`` with the container's log tail."""
        cfg = self.config
        deadline = time.monotonic() + (cfg.boot_timeout if timeout is None else timeout)
        as_user = user_prefix(cfg.user, cfg.home, self.display) if cfg.control_user else None
        link = SSHLink(Endpoint("127.0.0.1", self.ssh_port, cfg.control_user or cfg.user, cfg.key_path, cfg.password,
                                as_user=as_user), connect_timeout=5.0)
        check = cfg.ready_command or (f"test -e {READY_FILE}" if cfg.os == "linux" else "pgrep -x Dock >/dev/null")
        last = "not started"
        delay = 0.05
        while True:
            if not self.running():
                raise GuestStartError(f"guest {self.name} stopped while booting; log:\n{self.log_tail()}")
            try:
                link.ensure()
                out = link.exec(check, timeout=10.0)
                if out.exit_code == 0:
                    break
                last = f"readiness check {check!r} exited {out.exit_code}"
            except ConnectionLost as exc:
                last = str(exc)
                link.drop()
            if time.monotonic() > deadline:
                link.drop()
                raise GuestStartError(f"guest {self.name} ({cfg.image}) not ready within "
                                      f"{cfg.boot_timeout if timeout is None else timeout:g} s ({last}); log:\n{self.log_tail()}")
            time.sleep(delay)
            delay = min(delay * 1.5, 1.0)
        self.link = link
        self.ready_at = time.monotonic()
        return self

    def log_tail(self, chars: int = 1500) -> str:
        try:
            return self.container.logs(tail=40).decode(errors="replace")[-chars:]
        except Exception:  # noqa: BLE001
            return "(no log)"

    # ------------------------------------------------------------------ end
    def kill(self) -> None:
        """Stop the container now (the tests use it to fake a crashed guest)."""
        if self.container is not None:
            self.container.kill()

    def destroy(self) -> None:
        """Remove the container, its temp disk and its ports. Idempotent, never raises."""
        if self.vnc is not None:
            self.vnc.close()
            self.vnc = None
        if self.link is not None:
            self.link.drop()
            self.link = None
        if self.container is not None:
            try:
                self.container.remove(force=True, v=True)
            except Exception:  # noqa: BLE001 - already gone; gc finds anything left
                try:
                    self.client.api.remove_container(self.name, force=True, v=True)
                except Exception:  # noqa: BLE001
                    pass
            self.container = None
        if self.disk_dir is not None:
            shutil.rmtree(self.disk_dir, ignore_errors=True)
            self.disk_dir = None
        if self.lease is not None:
            self.lease.release()
            self.lease = None
