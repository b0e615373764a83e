"""MacAgent's VM backend: tasks on a real guest (a Docker-OSX macOS VM, or the Linux test guest) through
the docker SDK, paramiko (SSH, SFTP), VNC and a pynput input agent. See docs/vm.md.

``gym.make("MacAgent-v0", backend="vm", vm_image=..., pool_size=...)`` makes one; ``VMBackend`` is the class.
The docker SDK and paramiko are the ``vm`` extra (``pip install -e '.[vm]'``).
"""

from __future__ import annotations

from .backend import TaskNeedsMacOS, VMBackend
from .config import GuestConfig, GuestConfigError, docker_osx
from .guest import GuestLost, GuestStartError

__all__ = ["GuestConfig", "GuestConfigError", "GuestLost", "GuestStartError", "TaskNeedsMacOS", "VMBackend", "docker_osx"]
