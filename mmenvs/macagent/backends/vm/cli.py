"""``mmenvs vm ...``: commands for the MacAgent VM backend's guests.

``mmenvs vm build-test-guest``  build (or import from the cache) the Linux test guest image (guest_image.py)
``mmenvs vm gc``                remove what a crashed run left behind (gc.py)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> argparse.ArgumentParser:
    """Register ``mmenvs vm`` and its subcommands; returns the ``vm`` parser."""
    vm = commands.add_parser("vm", help="guests of MacAgent's VM backend (the Linux test guest, cleanup)",
                             description="Commands for the guests MacAgent-v0 runs on with backend='vm'.")
    sub = vm.add_subparsers(dest="vm_command", required=True)

    build = sub.add_parser("build-test-guest", help="build the Linux test guest image from Debian packages",
                           description="Build the Linux test guest (a debootstrap bookworm rootfs with sshd, Xvfb, "
                                       "x11vnc, python3-pynput, xterm and xedit) from this machine's apt mirror, and "
                                       "import it into Docker as mmenvs-test-guest:<recipe hash>. Cached outside the "
                                       "clone: a second run rebuilds nothing. Needs root and debootstrap.")
    build.add_argument("--docker-host", default=os.environ.get("DOCKER_HOST"), metavar="URL",
                       help="the daemon to import into (default: $DOCKER_HOST, else the standard socket)")
    build.add_argument("--cache-dir", metavar="DIR",
                       help="cache folder (default: $MMENVS_CACHE_DIR or /var/cache/mmenvs); the rootfs, key and build "
                            "record go to DIR/guest/<hash>/")
    build.add_argument("--no-import", action="store_true", help="only build the cached rootfs tarball and key (no daemon)")
    build.add_argument("--force", action="store_true", help="build anew even if the image or the rootfs is cached")
    build.set_defaults(func=_cmd_build_test_guest)

    from .gc import add_parser as add_gc_parser

    add_gc_parser(sub)  # `mmenvs vm gc`: strays of a crashed run (gc.py)
    return vm


def _cmd_build_test_guest(args: argparse.Namespace) -> int:
    from .guest_image import GuestBuildError, ensure_test_guest

    client = None
    if not args.no_import:
        try:
            import docker
        except ImportError:
            print("mmenvs vm build-test-guest: the docker SDK is not installed (pip install -e '.[vm]'), "
                  "or pass --no-import", file=sys.stderr)
            return 2
        try:
            client = docker.DockerClient(base_url=args.docker_host) if args.docker_host else docker.from_env()
            client.ping()
        except Exception as error:  # noqa: BLE001 - any failure to reach the daemon
            where = args.docker_host or os.environ.get("DOCKER_HOST") or "the standard socket"
            print(f"mmenvs vm build-test-guest: no Docker daemon answers at {where} ({error}); start dockerd, "
                  f"pass --docker-host unix:///path/to/docker.sock, or --no-import to build the rootfs only",
                  file=sys.stderr)
            return 2
    try:
        guest = ensure_test_guest(client, Path(args.cache_dir) if args.cache_dir else None, force=args.force,
                                  import_image=not args.no_import, log=lambda message: print(message, flush=True))
    except GuestBuildError as error:
        print(f"mmenvs vm build-test-guest: {error}", file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()
    stages = ", ".join(f"{name} {seconds:g} s" for name, seconds in guest.stages.items()) or "nothing to do"
    print(f"{guest.image}: {guest.action} in {guest.seconds:g} s ({stages})")
    print(f"rootfs: {guest.key_path.parent / 'rootfs.tar'}")
    print(f"ssh key: {guest.key_path} (users: {guest.user}, root)")
    if not args.no_import:
        print(f"run: docker run -d --network host -e MMENVS_SSH_PORT=2222 -e MMENVS_VNC_PORT=5901 {guest.image}")
    return 0
