"""The Linux test guest: a Debian image the VM backend's tests (and anyone without a macOS image) run.

No registry pulls are possible on the machines the project is tested on, so the guest is built from
Debian packages only: a ``debootstrap`` rootfs (minbase, bookworm) from the machine's configured apt
mirror, then ``apt-get install`` in the rootfs of what a desktop guest needs (openssh-server, Xvfb,
x11vnc, python3 with python3-pynput, xterm, the xedit editor, xdotool, xwd), a user ``user``, an
SSH key pair made for this build, and an init script. The rootfs is packed into a tarball and
imported into Docker with the docker SDK (``import_image_from_file``), tagged
``mmenvs-test-guest:<recipe hash>``: a changed recipe gets a new tag and is built anew.

Everything is cached outside the clone, in ``$MMENVS_CACHE_DIR/guest`` (default ``/var/cache/mmenvs/guest``):

    guest/<hash>/rootfs.tar       the packed rootfs (imported again into a daemon that lacks the image)
    guest/<hash>/id_ed25519       the build's private key (``.pub`` beside it); the image trusts it
    guest/<hash>/build.json       what the build took (seconds per stage, sizes)
    guest/debs/                   downloaded .deb files, so a changed recipe downloads only what is new

Running the guest (host networking; every service binds 127.0.0.1)::

    client.containers.run(guest.image, detach=True, network_mode="host",
                          environment={"MMENVS_SSH_PORT": "2222", "MMENVS_VNC_PORT": "5901"})

The init script starts Xvfb (display ``MMENVS_DISPLAY``, ``21`` or ``:21``, default ``:<ssh port % 30000 + 10>``;
it must be unique per guest because X's abstract socket lives in the shared network namespace; screen
``MMENVS_SCREEN``, default ``1280x800x24``), x11vnc on ``MMENVS_VNC_PORT`` (no VNC when it is empty) and
sshd on ``MMENVS_SSH_PORT``; ``MMENVS_AUTHORIZED_KEY`` (one public key line) is trusted beside the build's
own key. SSH sessions get ``DISPLAY``; ``/run/mmenvs-ready`` appears once all three answer, and
``/run/mmenvs-guest.env`` holds the values used. Logins: ``user`` (uid 1000, ``/home/user``) and ``root``.

Command line: ``mmenvs vm build-test-guest`` (see ``cli.py``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPOSITORY = "mmenvs-test-guest"
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
USER = "user"
UID = 1000
HOME = f"/home/{USER}"
LABEL_GUEST = "mmenvs.guest"
LABEL_RECIPE = "mmenvs.recipe"
INIT_PATH = "/usr/local/sbin/mmenvs-guest-init"
READY_PATH = "/run/mmenvs-ready"
ENV_PATH = "/run/mmenvs-guest.env"

# Bump when a build step below changes in a way the recipe data does not show (the hash covers the
# data: packages, scripts, configuration texts).
RECIPE_VERSION = 1

# What the guest has, and why.
PACKAGES = (
    "openssh-server",      # sshd: commands, getters, SFTP
    "tini",                # PID 1: reaps zombies, forwards docker stop's signal
    "xvfb", "xfonts-base",  # the display (Xvfb needs the 'fixed' font of xfonts-base to start)
    "x11vnc",              # screenshots and input over VNC
    "python3", "python3-pynput", "python3-xlib", "python3-pil",  # the pynput input agent; Xlib/PIL captures
    "xterm",               # the terminal
    "x11-apps",            # xedit (the small text editor of the GUI tasks), xwd (screen capture)
    "x11-utils",           # xdpyinfo (the init script's display probe), xwininfo, xprop
    "xdotool",             # window queries for GUI getters (window names, focus)
    "procps",              # ps, pgrep, pkill for getters and setup steps
)

SSHD_CONFIG = """\
# mmenvs test guest: key login only, no DNS lookups, nothing printed at login
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UseDNS no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowTcpForwarding no
MaxSessions 32
MaxStartups 32:30:64
"""

INIT_SCRIPT = """\
#!/bin/sh
# mmenvs test guest: Xvfb + x11vnc + sshd, bound to 127.0.0.1 on the ports given in the environment.
set -eu
SSH_PORT="${MMENVS_SSH_PORT:-2222}"
VNC_PORT="${MMENVS_VNC_PORT:-}"
SCREEN="${MMENVS_SCREEN:-1280x800x24}"
case "$SCREEN" in *x*x*) ;; *) SCREEN="${SCREEN}x24" ;; esac
if [ -n "${MMENVS_DISPLAY:-}" ]; then
  DISPLAY=":${MMENVS_DISPLAY#:}"
else
  DISPLAY=":$(( (SSH_PORT % 30000) + 10 ))"
fi
export DISPLAY LANG=C.UTF-8
rm -f /run/mmenvs-ready
if [ -n "${MMENVS_AUTHORIZED_KEY:-}" ]; then  # a key of the caller's, beside the build's own
  for home in /root /home/user; do
    printf '%s\n' "$MMENVS_AUTHORIZED_KEY" >> "$home/.ssh/authorized_keys"
  done
fi
printf 'DISPLAY=%s\\nSSH_PORT=%s\\nVNC_PORT=%s\\nSCREEN=%s\\n' "$DISPLAY" "$SSH_PORT" "$VNC_PORT" "$SCREEN" > /run/mmenvs-guest.env
mkdir -p /run/sshd /tmp/.X11-unix
chmod 1777 /tmp/.X11-unix

port_open() {
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.5).close()' "$1" 2>/dev/null
}
wait_for() {  # wait_for WHAT COMMAND... : up to 60 s
  what="$1"; shift
  tries=0
  until "$@"; do
    tries=$((tries + 1))
    if [ "$tries" -ge 600 ]; then echo "mmenvs-guest: $what did not come up" >&2; exit 1; fi
    sleep 0.1
  done
}

# -ac: no X access control, so the agent user's clients (over SSH) reach the display
Xvfb "$DISPLAY" -screen 0 "$SCREEN" -nolisten tcp -ac -noreset >/tmp/xvfb.log 2>&1 &
wait_for "Xvfb on $DISPLAY" xdpyinfo -display "$DISPLAY" >/dev/null 2>&1
if [ -n "$VNC_PORT" ]; then
  x11vnc -display "$DISPLAY" -rfbport "$VNC_PORT" -listen 127.0.0.1 -nopw -forever -shared -noipv6 \\
    -noxdamage -quiet >/tmp/x11vnc.log 2>&1 &
  wait_for "x11vnc on port $VNC_PORT" port_open "$VNC_PORT"
fi
/usr/sbin/sshd -D -e -p "$SSH_PORT" -o ListenAddress=127.0.0.1 \\
  -o "SetEnv=DISPLAY=$DISPLAY LANG=C.UTF-8" >/tmp/sshd.log 2>&1 &
SSHD=$!
wait_for "sshd on port $SSH_PORT" port_open "$SSH_PORT"
touch /run/mmenvs-ready
echo "mmenvs-guest ready: ssh=127.0.0.1:$SSH_PORT vnc=${VNC_PORT:-none} display=$DISPLAY"
wait "$SSHD"
"""

# dpkg leaves documentation, manual pages and translations out of the guest (copyright files stay)
DPKG_NODOC = """\
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
"""

POLICY_RC = "#!/bin/sh\n# no services start while the rootfs is built\nexit 101\n"


def recipe() -> dict:
    """Everything the image is made of, as data: its hash is the image tag."""
    return {"version": RECIPE_VERSION, "suite": SUITE, "variant": "minbase", "packages": list(PACKAGES),
            "user": USER, "uid": UID, "sshd_config": SSHD_CONFIG, "init": INIT_SCRIPT, "dpkg": DPKG_NODOC}


def recipe_hash() -> str:
    data = json.dumps(recipe(), sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def default_cache_root() -> Path:
    """``$MMENVS_CACHE_DIR`` or ``/var/cache/mmenvs`` (outside the clone, kept between runs where the machine keeps it)."""
    configured = os.environ.get("MMENVS_CACHE_DIR", "").strip()
    return Path(configured) if configured else Path("/var/cache/mmenvs")


@dataclass
class TestGuest:
    """A guest image ready in a daemon, and how to log into it."""

    __test__ = False  # not a pytest test class

    image: str
    recipe_hash: str
    key_path: Path
    user: str = USER
    home: str = HOME
    # what ensure_test_guest had to do: "cached" (image present), "imported" (from the cached rootfs), "built"
    action: str = "cached"
    seconds: float = 0.0
    stages: dict = field(default_factory=dict)

    def private_key(self):
        import paramiko

        return paramiko.Ed25519Key.from_private_key_file(str(self.key_path))


class GuestBuildError(RuntimeError):
    """A build step failed; the message names the step, the command and the end of its output."""


# ---------------------------------------------------------------------------------------------
# the apt mirror


def _deb822_stanzas(text: str) -> list[dict[str, str]]:
    stanzas, current, key = [], {}, None
    for line in text.splitlines():
        if not line.strip():
            if current:
                stanzas.append(current)
            current, key = {}, None
            continue
        if line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" and key:
            current[key] += " " + line.strip()
            continue
        if ":" in line:
            key, value = line.split(":", 1)
            key = key.strip().lower()
            current[key] = value.strip()
    if current:
        stanzas.append(current)
    return stanzas


def apt_sources(apt_dir: Path = Path("/etc/apt")) -> list[tuple[str, list[str], list[str]]]:
    """(URI, suites, components) of every enabled ``deb`` source in sources.list, sources.list.d/*.list
    and sources.list.d/*.sources (deb822)."""
    found: list[tuple[str, list[str], list[str]]] = []
    files = [apt_dir / "sources.list"]
    folder = apt_dir / "sources.list.d"
    if folder.is_dir():
        files += sorted(p for p in folder.iterdir() if p.suffix in (".list", ".sources"))
    for path in files:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        if path.suffix == ".sources":
            for stanza in _deb822_stanzas(text):
                if "deb" not in stanza.get("types", "").split():
                    continue
                if stanza.get("enabled", "yes").lower() == "no":
                    continue
                for uri in stanza.get("uris", "").split():
                    found.append((uri, stanza.get("suites", "").split(), stanza.get("components", "").split()))
            continue
        for line in text.splitlines():
            words = line.split("#", 1)[0].split()
            if not words or words[0] != "deb":
                continue
            words = words[1:]
            if words and words[0].startswith("["):  # options: [arch=amd64 signed-by=...]
                while words and not words[0].endswith("]"):
                    words.pop(0)
                words = words[1:]
            if len(words) >= 2:
                found.append((words[0], [words[1]], words[2:]))
    return found


def apt_mirror(apt_dir: Path = Path("/etc/apt")) -> str:
    """The Debian mirror this machine's apt uses for the main archive (``$MMENVS_DEBIAN_MIRROR`` overrides):
    the first ``deb`` source carrying a ``bookworm`` suite and the ``main`` component, not the security archive."""
    override = os.environ.get("MMENVS_DEBIAN_MIRROR", "").strip()
    if override:
        return override
    for uri, suites, components in apt_sources(apt_dir):
        if "security" in uri or not uri.startswith(("http://", "https://", "file:/")):
            continue
        if SUITE in suites and "main" in components:
            return uri.rstrip("/")
    return DEFAULT_MIRROR


# ---------------------------------------------------------------------------------------------
# building


def _run(step: str, command: list[str], *, env: dict | None = None, timeout: float = 3600) -> str:
    full_env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive",
                **(env or {})}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=full_env, timeout=timeout)
    except FileNotFoundError as error:
        raise GuestBuildError(f"{step}: {command[0]!r} is not installed ({error}); ./setup.sh installs debootstrap") from error
    except subprocess.TimeoutExpired as error:
        raise GuestBuildError(f"{step}: `{' '.join(command)}` did not finish within {timeout:g} s") from error
    if done.returncode != 0:
        output = (done.stdout + done.stderr)[-3000:]
        raise GuestBuildError(f"{step}: `{' '.join(command)}` exited with {done.returncode}:\n{output}")
    return done.stdout


def _write(root: Path, inside: str, text: str, mode: int = 0o644) -> None:
    path = root / inside.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def _copy_debs(source: Path, dest: Path) -> int:
    dest.mkdir(parents=True, exist_ok=True)
    count = 0
    if not source.is_dir():
        return 0
    for deb in source.glob("*.deb"):
        target = dest / deb.name
        if not target.exists():
            shutil.copy2(deb, target)
            count += 1
    return count


def build_rootfs(rootfs: Path, key_dir: Path, debs: Path, *, mirror: str, log: Callable[[str], None]) -> dict:
    """Make the guest's root file system in ``rootfs`` (an empty or missing folder) and its key pair in
    ``key_dir``; returns seconds per stage."""
    stages: dict[str, float] = {}
    if os.geteuid() != 0:
        raise GuestBuildError("building the test guest needs root (debootstrap and chroot); run it as root")
    if shutil.which("debootstrap") is None:
        raise GuestBuildError("debootstrap is not installed (apt-get install debootstrap, or ./setup.sh)")
    if rootfs.exists():
        shutil.rmtree(rootfs)
    rootfs.mkdir(parents=True)
    (debs / "debootstrap").mkdir(parents=True, exist_ok=True)

    start = time.monotonic()
    log(f"debootstrap {SUITE} (minbase) from {mirror} ...")
    _run("debootstrap", ["debootstrap", "--variant=minbase", f"--cache-dir={debs / 'debootstrap'}",
                         SUITE, str(rootfs), mirror])
    stages["debootstrap"] = round(time.monotonic() - start, 1)

    start = time.monotonic()
    _write(rootfs, "/usr/sbin/policy-rc.d", POLICY_RC, 0o755)
    _write(rootfs, "/etc/dpkg/dpkg.cfg.d/mmenvs-nodoc", DPKG_NODOC)
    shutil.copy2("/etc/resolv.conf", rootfs / "etc/resolv.conf")
    archives = rootfs / "var/cache/apt/archives"
    _copy_debs(debs / "apt", archives)
    log(f"apt-get install {len(PACKAGES)} packages in the rootfs ...")
    _run("apt-get update (in the rootfs)", ["chroot", str(rootfs), "apt-get", "-q", "update"])
    _run("apt-get install (in the rootfs)", ["chroot", str(rootfs), "apt-get", "install", "-y", "-q",
                                             "--no-install-recommends", *PACKAGES])
    _copy_debs(archives, debs / "apt")
    _run("apt-get clean (in the rootfs)", ["chroot", str(rootfs), "apt-get", "clean"])
    stages["apt_install"] = round(time.monotonic() - start, 1)

    start = time.monotonic()
    log("configuring the user, sshd, keys and the init script ...")
    _run("useradd", ["chroot", str(rootfs), "useradd", "--create-home", "--uid", str(UID), "--shell", "/bin/bash", USER])
    # '*' (no password) rather than '!' (locked): sshd refuses key logins to locked accounts
    _run("usermod", ["chroot", str(rootfs), "usermod", "-p", "*", USER])
    _run("usermod", ["chroot", str(rootfs), "usermod", "-p", "*", "root"])
    _write(rootfs, "/etc/ssh/sshd_config.d/mmenvs.conf", SSHD_CONFIG)
    for old in (rootfs / "etc/ssh").glob("ssh_host_*"):
        old.unlink()
    _run("ssh-keygen -A (host keys)", ["chroot", str(rootfs), "ssh-keygen", "-A"])
    key_dir.mkdir(parents=True, exist_ok=True)
    for old in key_dir.glob("id_ed25519*"):
        old.unlink()
    _run("ssh-keygen (the build's key pair)", ["chroot", str(rootfs), "ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                                                "-C", f"mmenvs-test-guest-{recipe_hash()}", "-f", "/tmp/mmenvs_key"])
    private = rootfs / "tmp/mmenvs_key"
    public = rootfs / "tmp/mmenvs_key.pub"
    key_text = public.read_text()
    shutil.move(str(private), key_dir / "id_ed25519")
    shutil.move(str(public), key_dir / "id_ed25519.pub")
    (key_dir / "id_ed25519").chmod(0o600)
    for account, home, uid in (("root", "/root", 0), (USER, HOME, UID)):
        ssh_dir = rootfs / home.lstrip("/") / ".ssh"
        ssh_dir.mkdir(parents=True, exist_ok=True)
        (ssh_dir / "authorized_keys").write_text(key_text)
        ssh_dir.chmod(0o700)
        (ssh_dir / "authorized_keys").chmod(0o600)
        for path in (ssh_dir, ssh_dir / "authorized_keys"):
            os.chown(path, uid, uid)
    _write(rootfs, INIT_PATH, INIT_SCRIPT, 0o755)
    (rootfs / "usr/sbin/policy-rc.d").unlink()
    (rootfs / "etc/resolv.conf").write_text("")
    (rootfs / "etc/hostname").write_text("mmenvs-guest\n")
    for lists in (rootfs / "var/lib/apt/lists").glob("*_*"):
        lists.unlink()
    stages["configure"] = round(time.monotonic() - start, 1)
    return stages


def pack_rootfs(rootfs: Path, tar_path: Path) -> None:
    """Pack ``rootfs`` into ``tar_path`` (numeric owners, written beside and renamed into place)."""
    partial = tar_path.with_suffix(".tar.partial")
    _run("tar (packing the rootfs)", ["tar", "--numeric-owner", "--xattrs", "-C", str(rootfs), "-cf", str(partial),
                                      "--exclude=./proc/*", "--exclude=./sys/*", "--exclude=./tmp/*", "."])
    partial.rename(tar_path)


def image_changes(hash_: str) -> list[str]:
    return [f'ENTRYPOINT ["/usr/bin/tini", "-g", "--", "{INIT_PATH}"]',
            "ENV LANG=C.UTF-8",
            f"LABEL {LABEL_GUEST}=linux-test",
            f"LABEL {LABEL_RECIPE}={hash_}"]


def _has_image(client, tag: str) -> bool:
    import docker

    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False


def import_rootfs(client, tar_path: Path, hash_: str) -> str:
    """Import the packed rootfs as ``mmenvs-test-guest:<hash>`` with the guest's entrypoint and labels."""
    tag = f"{REPOSITORY}:{hash_}"
    client.api.import_image_from_file(str(tar_path), repository=REPOSITORY, tag=hash_, changes=image_changes(hash_))
    if not _has_image(client, tag):
        raise GuestBuildError(f"docker import of {tar_path} did not produce the image {tag}")
    return tag


def ensure_test_guest(client=None, cache_root: Path | None = None, *, force: bool = False,
                      log: Callable[[str], None] = lambda message: None, import_image: bool = True) -> TestGuest:
    """Make sure the test guest image of the current recipe is in ``client``'s daemon.

    Present (and its key cached): nothing to do. Missing but its rootfs tarball cached: import it.
    Otherwise (or with ``force``): build the rootfs, pack it, import it. Concurrent callers on one machine
    wait for each other (a lock file in the cache). ``import_image=False`` (or ``client=None``) stops after the tarball.
    """
    hash_ = recipe_hash()
    tag = f"{REPOSITORY}:{hash_}"
    cache = (cache_root or default_cache_root()) / "guest"
    folder = cache / hash_
    tar_path = folder / "rootfs.tar"
    key_path = folder / "id_ed25519"
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    with open(cache / "build.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        have_files = tar_path.is_file() and key_path.is_file()
        if not force and have_files and client is not None and import_image and _has_image(client, tag):
            return TestGuest(image=tag, recipe_hash=hash_, key_path=key_path, action="cached",
                             seconds=round(time.monotonic() - started, 2))
        stages: dict[str, float] = {}
        action = "imported"
        if force or not have_files:
            action = "built"
            if client is not None and _has_image(client, tag):
                client.images.remove(tag, force=True)  # its key is gone with the old files: build both anew
            rootfs = folder / "rootfs"
            try:
                stages = build_rootfs(rootfs, folder, cache / "debs", mirror=apt_mirror(), log=log)
                start = time.monotonic()
                log(f"packing the rootfs into {tar_path} ...")
                pack_rootfs(rootfs, tar_path)
                stages["pack"] = round(time.monotonic() - start, 1)
            finally:
                shutil.rmtree(rootfs, ignore_errors=True)
        if client is not None and import_image:
            start = time.monotonic()
            log(f"docker import {tar_path} as {tag} ...")
            import_rootfs(client, tar_path, hash_)
            stages["import"] = round(time.monotonic() - start, 1)
        else:
            action = "built" if action == "built" else "cached"
        seconds = round(time.monotonic() - started, 1)
        record = {"image": tag, "action": action, "seconds": seconds, "stages": stages,
                  "rootfs_bytes": tar_path.stat().st_size}
        if action == "built":
            (folder / "build.json").write_text(json.dumps(record, indent=2) + "\n")
            _prune_other_recipes(cache, hash_, client if import_image else None)
        return TestGuest(image=tag, recipe_hash=hash_, key_path=key_path, action=action, seconds=seconds, stages=stages)


def _prune_other_recipes(cache: Path, keep: str, client) -> None:
    """After a build: remove the cached rootfs folders and the images of other recipes (superseded builds)."""
    for folder in cache.iterdir():
        if folder.is_dir() and folder.name != keep and len(folder.name) == 16 and (folder / "id_ed25519").exists():
            shutil.rmtree(folder, ignore_errors=True)
    if client is None:
        return
    for image in client.images.list(name=REPOSITORY):
        for tag in image.tags:
            if tag.startswith(f"{REPOSITORY}:") and tag != f"{REPOSITORY}:{keep}":
                try:
                    client.images.remove(tag, force=True)
                except Exception:  # noqa: BLE001 - in use by a running guest: leave it
                    pass
