"""``mmenvs vm gc``: remove what a crashed run of the VM backend left behind.

Everything the backend makes carries the label ``mmenvs.vm`` and its owner (``<host>:<pid>``):
containers, and the marker file of each per-guest temp disk folder (``mmenvs-vm-disk-*``). A stray is
one whose owner process is not alive on this host; ``everything=True`` (``--all``) removes every
labelled container and disk folder, running or not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from .config import LABEL, LABEL_OWNER
from .guest import DISK_MARKER, DISK_PREFIX


def owner_alive(owner: str | None) -> bool:
    """Whether ``<host>:<pid>`` names a live process on this host (another host's owner: unknown, so alive)."""
    if not owner or ":" not in owner:
        return False
    host, _, pid = owner.rpartition(":")
    if host != os.uname().nodename:
        return True
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def collect(client: Any, *, everything: bool = False, disk_dirs: list[Path] | None = None) -> dict[str, list[str]]:
    """Remove stray labelled containers and temp disks; returns their names."""
    removed: dict[str, list[str]] = {"containers": [], "disks": []}
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        if everything or not owner_alive(container.labels.get(LABEL_OWNER)):
            try:
                container.remove(force=True, v=True)
                removed["containers"].append(container.name)
            except Exception:  # noqa: BLE001 - removed meanwhile
                pass
    for folder in disk_dirs or [Path(tempfile.gettempdir())]:
        for disk in sorted(Path(folder).glob(DISK_PREFIX + "*")):
            marker = disk / DISK_MARKER
            try:
                owner = json.loads(marker.read_text()).get(LABEL_OWNER)
            except (OSError, ValueError):
                owner = None
                if not everything:
                    continue  # no marker: not recognisably ours
            if everything or not owner_alive(owner):
                shutil.rmtree(disk, ignore_errors=True)
                removed["disks"].append(str(disk))
    return removed


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> argparse.ArgumentParser:
    """Register ``mmenvs vm gc`` under the ``vm`` group."""
    gc = sub.add_parser("gc", help="remove containers and temp disks a crashed VM run left behind",
                        description="Remove containers labelled mmenvs.vm whose owner process is gone, and their temp "
                                    "disk folders (mmenvs-vm-disk-* in the temp folder or --disk-dir).")
    gc.add_argument("--docker-host", default=os.environ.get("MMENVS_DOCKER_HOST") or os.environ.get("DOCKER_HOST"),
                    metavar="URL", help="the daemon (default: $MMENVS_DOCKER_HOST, $DOCKER_HOST, else the standard socket)")
    gc.add_argument("--all", action="store_true", help="remove every labelled container and disk, even of live runs")
    gc.add_argument("--disk-dir", action="append", metavar="DIR", help="where overlays were made (default: the temp folder)")
    gc.set_defaults(func=_cmd_gc)
    return gc


def _cmd_gc(args: argparse.Namespace) -> int:
    from .guest import docker_client

    try:
        client = docker_client(args.docker_host)
        client.ping()
    except Exception as error:  # noqa: BLE001 - any failure to reach the daemon
        print(f"mmenvs vm gc: no Docker daemon answers at {args.docker_host or 'the standard socket'} ({error})",
              file=sys.stderr)
        return 2
    try:
        removed = collect(client, everything=args.all, disk_dirs=[Path(d) for d in args.disk_dir] if args.disk_dir else None)
    finally:
        client.close()
    print(f"removed {len(removed['containers'])} container(s)" + "".join(f"\n  {n}" for n in removed["containers"]))
    print(f"removed {len(removed['disks'])} temp disk folder(s)" + "".join(f"\n  {n}" for n in removed["disks"]))
    return 0
