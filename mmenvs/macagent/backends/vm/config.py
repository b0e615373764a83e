"""What a guest is: the image, how to start it, how to reach it.

Two kinds of guest share one transport (SSH for commands and files, VNC or the guest's capture command
for screenshots, a pynput input agent for GUI input):

* ``os="linux"``: any image whose default command brings up sshd, an X display and a VNC server on the
  loopback ports it is given in its environment (``MMENVS_SSH_PORT``, ``MMENVS_VNC_PORT``,
  ``MMENVS_DISPLAY``, ``MMENVS_SCREEN``) and writes ``/run/mmenvs-ready`` when they are up: the
  test guest ``mmenvs vm build-test-guest`` builds is one.
* ``os="macos"``: a Docker-OSX image (QEMU + KVM inside the container). Its macOS disk is a qcow2 file
  on the host; with ``overlay=True`` (the default) each guest boots from a fresh qcow2 overlay over
  that disk in a temp folder, so an episode's changes vanish with the guest (MacAgentBench's start).
  QEMU forwards the guest's sshd and Screen Sharing to the container; with ``network="bridge"`` the
  container's ports are published on 127.0.0.1 only; with ``network="host"`` the forwards are moved to
  allocated ports through Docker-OSX's ``INTERNAL_SSH_PORT`` / ``SCREEN_SHARE_PORT``.

See docs/vm.md for a walk-through.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

#: Labels put on everything the backend creates (containers, and the marker of its temp disks).
LABEL = "mmenvs.vm"
LABEL_OWNER = "mmenvs.vm.owner"  # "<hostname>:<pid>" of the process that made it
LABEL_ROLE = "mmenvs.vm.role"
OSES = ("linux", "macos")
NETWORKS = ("host", "bridge")
CAPTURES = ("auto", "vnc", "ssh")
READY_FILE = "/run/mmenvs-ready"  # the test guest writes it when sshd, X and VNC answer


class GuestConfigError(ValueError):
    """A guest setting that cannot work (names the field, the value and what was expected)."""


@dataclass(frozen=True)
class GuestConfig:
    """How to start and reach one kind of guest.

    image           the Docker image to run (e.g. ``mmenvs-test-guest:<hash>`` or a Docker-OSX tag)
    os              "linux" or "macos": what the guest runs (decides AppleScript, screenshots, key names)
    user            the SSH user (``user`` on the test guest, ``user`` on Docker-OSX)
    key_path        private key file for SSH (None: ``password``)
    password        SSH password (Docker-OSX's default user has ``alpine``); None: key only
    home            the user's home in the guest (None: asked over SSH)
    network         "host": the guest listens on the allocated loopback ports itself; "bridge": the
                    container's ``guest_ssh_port``/``guest_vnc_port`` are published on 127.0.0.1
    guest_ssh_port, guest_vnc_port   the ports inside the container (bridge mode)
    port_env        environment names that pass the allocated (ssh, vnc) ports to the image (host mode)
    display_env     environment name of the X display number (linux, host mode; None: not passed)
    environment     more environment for the container (Docker-OSX: ``EXTRA``, ``CPU``, ``RAM``, ``WIDTH``…)
    devices         devices for the container (Docker-OSX: ``/dev/kvm``)
    cpu_flags       Docker-OSX's ``CPUID_FLAGS`` (None: the image's default)
    disk_image      host path of the macOS disk (qcow2); mounted at ``disk_mount`` (Docker-OSX's ``/image``)
    overlay         boot each guest from a fresh qcow2 overlay over ``disk_image`` (needs ``qemu-img``)
    overlay_dir     where overlays go (None: the system temp folder)
    boot_timeout    seconds a guest may take from start to ready (macOS first boot: minutes)
    capture         "auto" (measure both, keep the faster), "vnc" or "ssh" (xwd on X11, screencapture on macOS)
    vnc_password    the guest's VNC password (None: none)
    ready_command   shell command that exits 0 once the desktop is up (None: the os's default)
    control_user    log in as this user (``root`` on the test guest, same key) and run every command as ``user``
                    through ``runuser`` with a clean environment, so nothing the agent puts in its home
                    (``~/.ssh/rc`` printing fake getter output, a changed ``authorized_keys``) reaches the
                    backend's commands or logins; None: log in as ``user`` (macOS guests: no root login)
    """

    image: str
    os: str = "linux"
    user: str = "user"
    key_path: str | None = None
    password: str | None = None
    home: str | None = None
    network: str = "host"
    guest_ssh_port: int = 22
    guest_vnc_port: int = 5900
    port_env: tuple[str, str] = ("MMENVS_SSH_PORT", "MMENVS_VNC_PORT")
    display_env: str | None = "MMENVS_DISPLAY"
    environment: Mapping[str, str] = field(default_factory=dict)
    devices: tuple[str, ...] = ()
    cpu_flags: str | None = None
    disk_image: str | None = None
    disk_mount: str = "/image"
    overlay: bool = True
    overlay_dir: str | None = None
    boot_timeout: float = 180.0
    capture: str = "auto"
    vnc_password: str | None = None
    ready_command: str | None = None
    screen_size: tuple[int, int] = (1280, 800)
    control_user: str | None = None

    def __post_init__(self) -> None:
        def bad(name: str, value: Any, expected: str) -> GuestConfigError:
            return GuestConfigError(f"vm guest setting {name}={value!r}: expected {expected}")

        if not isinstance(self.image, str) or not self.image:
            raise bad("image", self.image, "a Docker image name (vm_image='mmenvs-test-guest:…' or a Docker-OSX tag)")
        if self.os not in OSES:
            raise bad("os", self.os, f"one of {OSES}")
        if self.network not in NETWORKS:
            raise bad("network", self.network, f"one of {NETWORKS}")
        if self.capture not in CAPTURES:
            raise bad("capture", self.capture, f"one of {CAPTURES}")
        if self.control_user is not None and not self.home:
            raise bad("home", self.home, "the user's home in the guest (needed with control_user)")
        if self.key_path is None and self.password is None:
            raise bad("key_path", None, "a private key file (or password=...) to log in with")
        if self.key_path is not None and not Path(self.key_path).is_file():
            raise bad("key_path", self.key_path, "an existing private key file")
        if self.disk_image is not None and not Path(self.disk_image).is_file():
            raise bad("disk_image", self.disk_image, "an existing disk image file on the host")
        if not (isinstance(self.boot_timeout, (int, float)) and self.boot_timeout > 0):
            raise bad("boot_timeout", self.boot_timeout, "seconds > 0")
        w, h = self.screen_size
        if w < 320 or h < 200:
            raise bad("screen_size", self.screen_size, "(width, height) of at least 320x200")

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "GuestConfig":
        """From keyword options (``image=``, ``os=``, …); unknown names are refused, naming the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise GuestConfigError(f"unknown vm guest setting(s) {unknown}; known: {', '.join(sorted(known))}")
        values = dict(options)
        for name in ("port_env", "devices", "screen_size"):
            if name in values and isinstance(values[name], list):
                values[name] = tuple(values[name])
        return cls(**values)

    def with_(self, **changes: Any) -> "GuestConfig":
        return replace(self, **changes)


def docker_osx(image: str = "sickcodes/docker-osx:naked", *, disk_image: str, user: str = "user",
               password: str | None = "alpine", key_path: str | None = None, cpus: int = 4, ram_gb: int = 8,
               cpu: str = "Haswell-noTSX", cpu_flags: str | None = None, **more: Any) -> GuestConfig:
    """A macOS guest on a Docker-OSX "naked" image booting ``disk_image`` (see docs/vm.md): KVM,
    ``cpus`` cores, ``ram_gb`` GiB, QEMU CPU model ``cpu``, VNC from QEMU's own server (display :99,
    port 5999 in the container), a qcow2 overlay per guest."""
    env = {"NOPICKER": "true", "RAM": str(ram_gb), "CPU": cpu, "IMAGE_PATH": "/image", "IMAGE_FORMAT": "qcow2",
           "EXTRA": f"-smp {cpus},sockets=1,cores={cpus} -display none -vnc 0.0.0.0:99"}
    env.update(more.pop("environment", {}))
    return GuestConfig(image=image, os="macos", user=user, password=password, key_path=key_path, network=more.pop("network", "bridge"),
                       guest_ssh_port=10022, guest_vnc_port=5999, port_env=("INTERNAL_SSH_PORT", "SCREEN_SHARE_PORT"),
                       display_env=None, environment=env, devices=("/dev/kvm:/dev/kvm:rwm",), cpu_flags=cpu_flags,
                       disk_image=disk_image, boot_timeout=more.pop("boot_timeout", 900.0), **more)


def owner_label() -> str:
    return f"{os.uname().nodename}:{os.getpid()}"
