"""The Linux test guest (`mmenvs vm build-test-guest`): the recipe and its hash, the apt mirror it builds
from, the built image in a private dockerd (sshd, Xvfb, x11vnc and pynput really work in a running
guest, over SSH with paramiko), the cache (a second call rebuilds nothing; a daemon without the image
imports the cached rootfs), and the starter Linux-guest task files.

Needs dockerd and debootstrap: without dockerd these tests fail, unless MMENVS_REQUIRE_DOCKER=0.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from _wait import wait_until
from vm_support import Daemon, docker_daemon, free_display, free_ports, test_guest  # noqa: F401 - fixtures

from mmenvs.macagent.backends.vm import guest_image

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


def ssh_client(guest, port: int, user: str | None = None, timeout: float = 90.0):
    """A paramiko client logged into the guest on ``port`` with the build's key (waits for sshd)."""
    import paramiko

    key = guest.private_key()

    def attempt():
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        try:
            client.connect("127.0.0.1", port=port, username=user or guest.user, pkey=key, timeout=5,
                           allow_agent=False, look_for_keys=False, banner_timeout=10, auth_timeout=10)
            return client
        except Exception as error:  # noqa: BLE001 - not up yet
            client.close()
            return f"{type(error).__name__}: {error}"

    return wait_until(attempt, check=lambda v: not isinstance(v, str), what=f"an SSH login on 127.0.0.1:{port}",
                      timeout=timeout, interval=0.3)


def run(client, command: str, timeout: float = 60.0) -> tuple[int, str, str]:
    _, stdout, stderr = client.exec_command(command, timeout=timeout)
    out = stdout.read().decode()
    err = stderr.read().decode()
    return stdout.channel.recv_exit_status(), out, err


@pytest.fixture
def running_guest(docker_daemon, test_guest):
    """A running test guest container on fresh loopback ports and display; removed afterwards."""
    ssh_port, vnc_port = free_ports(2)
    display = free_display()
    container = docker_daemon.client.containers.run(
        test_guest.image, detach=True, network_mode="host",
        environment={"MMENVS_SSH_PORT": str(ssh_port), "MMENVS_VNC_PORT": str(vnc_port),
                     "MMENVS_DISPLAY": str(display), "MMENVS_SCREEN": "1024x768"},
        labels={"mmenvs.test": "vm-guest"})
    try:
        client = ssh_client(test_guest, ssh_port)
        try:
            wait_until(lambda: run(client, "test -e /run/mmenvs-ready")[0] == 0, what="/run/mmenvs-ready in the guest",
                       timeout=90, interval=0.3)
            yield {"container": container, "ssh": client, "ssh_port": ssh_port, "vnc_port": vnc_port,
                   "display": display, "guest": test_guest}
        finally:
            client.close()
    finally:
        logs = container.logs().decode(errors="replace")
        container.remove(force=True)
        assert "did not come up" not in logs, logs


# --- the private daemon ----------------------------------------------------------------------------


@pytest.mark.parametrize("opt_out", [None, "0"])
def test_without_dockerd_the_fixture_fails_unless_opted_out(monkeypatch, tmp_path, opt_out):
    import vm_support

    monkeypatch.setenv("MMENVS_CACHE_DIR", str(tmp_path / "cache"))
    if opt_out is None:
        monkeypatch.delenv("MMENVS_REQUIRE_DOCKER", raising=False)
    else:
        monkeypatch.setenv("MMENVS_REQUIRE_DOCKER", opt_out)
    monkeypatch.setattr(vm_support.shutil, "which", lambda name: None)
    daemon = Daemon()
    expected = pytest.fail.Exception if opt_out is None else pytest.skip.Exception
    with pytest.raises(expected, match="dockerd is not installed"):
        daemon.start()
    assert not daemon.run_dir.exists()  # nothing left behind: no run folder, the data-root lock released
    other = Daemon()
    assert other.data_root == tmp_path / "cache" / "dockerd" and not other.own_data_root
    other.stop()


# --- the recipe -------------------------------------------------------------------------------------


def test_recipe_hash_is_stable_and_follows_the_recipe(monkeypatch):
    first = guest_image.recipe_hash()
    assert first == guest_image.recipe_hash()
    assert len(first) == 16 and int(first, 16) >= 0
    monkeypatch.setattr(guest_image, "PACKAGES", guest_image.PACKAGES + ("nano",))
    assert guest_image.recipe_hash() != first
    monkeypatch.undo()
    monkeypatch.setattr(guest_image, "INIT_SCRIPT", guest_image.INIT_SCRIPT + "# changed\n")
    assert guest_image.recipe_hash() != first


def test_apt_mirror_is_read_from_deb822_and_one_line_sources(tmp_path, monkeypatch):
    monkeypatch.delenv("MMENVS_DEBIAN_MIRROR", raising=False)
    apt = tmp_path / "apt"
    (apt / "sources.list.d").mkdir(parents=True)
    (apt / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\n# a comment\nURIs: http://security.example/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\nTypes: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\nComponents: main\n\n"
        "Types: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm bookworm-updates\nComponents: main contrib\n")
    (apt / "sources.list.d" / "other.list.disabled").write_text("deb http://disabled.example/debian bookworm main\n")
    assert guest_image.apt_mirror(apt) == "http://mirror.example/debian"
    (apt / "sources.list").write_text("# old style\ndeb [arch=amd64 signed-by=/k.gpg] http://one.example/debian bookworm main\n")
    assert guest_image.apt_mirror(apt) == "http://one.example/debian"
    monkeypatch.setenv("MMENVS_DEBIAN_MIRROR", "http://override.example/debian")
    assert guest_image.apt_mirror(apt) == "http://override.example/debian"
    monkeypatch.delenv("MMENVS_DEBIAN_MIRROR")
    assert guest_image.apt_mirror(tmp_path / "nothing") == guest_image.DEFAULT_MIRROR


# --- the image --------------------------------------------------------------------------------------


def test_image_exists_with_its_labels_entrypoint_and_key(docker_daemon, test_guest):
    image = docker_daemon.client.images.get(test_guest.image)
    assert test_guest.image == f"mmenvs-test-guest:{guest_image.recipe_hash()}"
    labels = image.attrs["Config"]["Labels"]
    assert labels[guest_image.LABEL_GUEST] == "linux-test"
    assert labels[guest_image.LABEL_RECIPE] == guest_image.recipe_hash()
    assert image.attrs["Config"]["Entrypoint"] == ["/usr/bin/tini", "-g", "--", guest_image.INIT_PATH]
    assert test_guest.key_path.is_file() and oct(test_guest.key_path.stat().st_mode & 0o777) == "0o600"
    assert test_guest.key_path.with_suffix(".pub").read_text().startswith("ssh-ed25519 ")
    assert test_guest.key_path.parent == guest_image.default_cache_root() / "guest" / guest_image.recipe_hash()
    assert not str(test_guest.key_path).startswith(str(REPO))  # the cache lives outside the clone


def test_running_guest_has_sshd_xvfb_vnc_and_pynput(running_guest):
    ssh, display = running_guest["ssh"], running_guest["display"]
    code, out, err = run(ssh, "id -un; echo $HOME; echo $DISPLAY; cat /run/mmenvs-guest.env")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:3] == ["user", "/home/user", f":{display}"]
    assert f"VNC_PORT={running_guest['vnc_port']}" in lines
    assert "SCREEN=1024x768x24" in lines

    # the display is Xvfb at the configured size
    code, out, err = run(ssh, "xdpyinfo | grep dimensions")
    assert code == 0, err
    assert "1024x768 pixels" in out

    # pynput (Debian's python3-pynput) drives the X pointer and keyboard: move, read back; type into an xterm
    script = ("from pynput.mouse import Controller; m = Controller(); m.position = (123, 234); "
              "import time; time.sleep(0.05); print(tuple(m.position))")
    code, out, err = run(ssh, f"python3 -c '{script}'")
    assert code == 0, err
    assert out.strip() == "(123, 234)"

    # sshd is bound to loopback only, and x11vnc speaks RFB on its port
    code, out, err = run(ssh, "cat /proc/net/tcp")
    listening = {line.split()[1] for line in out.splitlines()[1:] if line.split()[3] == "0A"}
    assert f"0100007F:{running_guest['ssh_port']:04X}" in listening
    assert f"00000000:{running_guest['ssh_port']:04X}" not in listening
    with socket.create_connection(("127.0.0.1", running_guest["vnc_port"]), timeout=10) as sock:
        sock.settimeout(10)
        assert sock.recv(12).startswith(b"RFB 003.")

    # root logs in with the same key; SFTP works for the user
    root = ssh_client(running_guest["guest"], running_guest["ssh_port"], user="root")
    try:
        assert run(root, "id -u")[1].strip() == "0"
    finally:
        root.close()
    sftp = ssh.open_sftp()
    try:
        with sftp.open("/home/user/hello.txt", "w") as handle:
            handle.write("over sftp\n")
    finally:
        sftp.close()
    assert run(ssh, "cat ~/hello.txt")[1] == "over sftp\n"


def test_xedit_takes_text_typed_through_pynput_and_saves_on_a_click(running_guest):
    """xedit (the starter GUI tasks' editor) at +0+0 opens a file, takes text typed through pynput's XTest
    path, and saves it when its Save button (at 55,10 with the guest's fixed font) is clicked."""
    ssh = running_guest["ssh"]
    assert run(ssh, "printf 'old\\n' > ~/note.txt")[0] == 0
    run(ssh, "cd ~ && (setsid xedit -geometry 600x400+0+0 note.txt >/tmp/xedit.log 2>&1 &)")
    wait_until(lambda: run(ssh, "xdotool search --name '^xedit$'")[1].strip(), what="the xedit window", timeout=60,
               interval=0.3)
    # pynput's character keys go out as XSendEvent to the focus window, which X clients may ignore; keys made
    # from keysyms (vk) go through XTest like a real keyboard
    script = "\n".join([
        "import time",
        "from Xlib import XK",
        "from pynput.mouse import Button, Controller as Mouse",
        "from pynput.keyboard import Controller as Keyboard, KeyCode",
        "m, k = Mouse(), Keyboard()",
        "m.position = (300, 300); time.sleep(0.2); m.click(Button.left); time.sleep(0.2)",
        "for ch in 'typed here':",
        "    key = KeyCode.from_vk(XK.string_to_keysym('space' if ch == ' ' else ch))",
        "    k.press(key); k.release(key)",
        "time.sleep(0.3)",
        "m.position = (55, 10); time.sleep(0.2); m.click(Button.left)",
    ])
    sftp = ssh.open_sftp()
    try:
        with sftp.open("/tmp/type.py", "w") as handle:
            handle.write(script)
    finally:
        sftp.close()
    code, _, err = run(ssh, "python3 /tmp/type.py")
    assert code == 0, err
    wait_until(lambda: run(ssh, "cat ~/note.txt")[1], check=lambda text: text == "old\ntyped here",
               what="xedit to save the typed text", timeout=30, interval=0.3)


# --- the cache --------------------------------------------------------------------------------------


def test_a_second_call_rebuilds_nothing(docker_daemon, test_guest):
    tar_path = test_guest.key_path.parent / "rootfs.tar"
    before = (tar_path.stat().st_mtime_ns, test_guest.key_path.read_bytes(),
              docker_daemon.client.images.get(test_guest.image).id)
    again = guest_image.ensure_test_guest(docker_daemon.client)
    assert again.action == "cached"
    assert again.image == test_guest.image
    assert again.stages == {}
    after = (tar_path.stat().st_mtime_ns, again.key_path.read_bytes(), docker_daemon.client.images.get(again.image).id)
    assert after == before


def test_a_daemon_without_the_image_imports_the_cached_rootfs(test_guest, tmp_path_factory):
    tar_path = test_guest.key_path.parent / "rootfs.tar"
    mtime = tar_path.stat().st_mtime_ns
    # a daemon with a data root of its own (what a second test run side by side gets)
    daemon = Daemon(data_root=Path(tmp_path_factory.mktemp("dockerd-data")))
    daemon.start()
    try:
        assert not [i for i in daemon.client.images.list() if test_guest.image in i.tags]
        guest = guest_image.ensure_test_guest(daemon.client)
        assert guest.action == "imported"
        assert set(guest.stages) == {"import"}
        assert daemon.client.images.get(guest.image).labels[guest_image.LABEL_RECIPE] == guest_image.recipe_hash()
        assert guest_image.ensure_test_guest(daemon.client).action == "cached"
    finally:
        daemon.stop()
    assert tar_path.stat().st_mtime_ns == mtime
    assert not daemon.processes()


def test_the_build_record_names_its_stages(test_guest):
    record = json.loads((test_guest.key_path.parent / "build.json").read_text())
    assert record["image"] == test_guest.image
    assert record["action"] == "built"
    assert {"debootstrap", "apt_install", "configure", "pack"} <= set(record["stages"])
    assert record["rootfs_bytes"] == (test_guest.key_path.parent / "rootfs.tar").stat().st_size


# --- the starter Linux-guest tasks ----------------------------------------------------------------

LINUX_TASKS = REPO / "registry" / "macagent" / "linux_tasks"


class SSHShell:
    """Just enough of a backend for GetterContext and run_setup: commands over SSH exec (the way the VM
    backend runs getters and setup), so the tasks' getters run here exactly as they will there."""

    def __init__(self, client):
        self.client = client

    def run_command(self, command: str, timeout: float | None = None):
        from mmenvs.macagent.backends.base import ShellOutput

        code, out, err = run(self.client, command, timeout=timeout or 30.0)
        return ShellOutput(out, err, code)

    run_shell = run_command


def xdotool_pyautogui(shell: SSHShell):
    """A pyautogui stand-in that drives the guest with xdotool (XTest), to check the GUI reference
    solutions' coordinates and keys on the real guest; the VM backend's own input agent is pynput."""
    import shlex
    import types

    keys = {"enter": "Return", "tab": "Tab", "esc": "Escape", "backspace": "BackSpace"}

    def xdo(arguments: str) -> None:
        out = shell.run_command(f"xdotool {arguments}")
        assert out.exit_code == 0, out.text

    module = types.ModuleType("pyautogui")
    module.click = lambda x, y: xdo(f"mousemove {int(x)} {int(y)} sleep 0.2 click 1 sleep 0.2")
    module.write = lambda text: xdo(f"type --delay 20 -- {shlex.quote(text)}")
    module.press = lambda key: xdo(f"key {keys.get(key, key)}")
    return module


def run_reference(task, shell: SSHShell) -> None:
    from mmenvs.macagent.actions import parse_action

    for step in task.reference_solution:
        action = parse_action(step)
        if action.kind == "bash":
            out = shell.run_command(action.code)
            assert out.exit_code == 0, out.text
        elif action.kind == "python":
            import sys

            saved = sys.modules.get("pyautogui")
            sys.modules["pyautogui"] = xdotool_pyautogui(shell)  # what the code's `import pyautogui` finds
            try:
                exec(compile(action.code, task.id, "exec"), {"__name__": "reference"})
            finally:
                if saved is None:
                    del sys.modules["pyautogui"]
                else:
                    sys.modules["pyautogui"] = saved
        else:
            assert action.word == "DONE", step


def score(task, ctx) -> list[bool]:
    from mmenvs.macagent.checkpoints.evaluation import evaluate_checkpoint

    return [evaluate_checkpoint(checkpoint, ctx).passed for checkpoint in task.checkpoints]


def test_the_starter_task_files_are_valid_linux_tasks():
    from mmenvs.macagent.apps_catalog import LINUX_APPS
    from mmenvs.macagent.tasks import load_suite

    seeds = load_suite(LINUX_TASKS)
    assert len(seeds) >= 6
    tasks = [seed.variant(k) for seed in seeds for k in range(4)]
    assert {t.platform for t in tasks} == {"linux"}
    assert {app for t in tasks for app in t.apps} == set(LINUX_APPS)
    assert {t.interaction for t in tasks} == {"cli", "gui"}
    assert {"file_ops", "content_match", "system_config", "app_state"} <= {tag for t in tasks for tag in t.tags}
    # no getter of a Linux task speaks AppleScript
    assert all(c.getter["type"] in ("shell", "python") for t in tasks for c in t.checkpoints)
    assert len({t.id for t in tasks}) == len(tasks)


def test_a_linux_task_rejects_mac_apps_and_a_mac_task_linux_apps():
    from mmenvs.macagent.tasks import TaskFormatError, task_from_data

    base = json.loads((LINUX_TASKS / "linux-shell-create-file.json").read_text())
    with pytest.raises(TaskFormatError, match=r"apps\[0\].*unknown app 'Finder' for platform 'linux'"):
        task_from_data({**base, "apps": ["Finder"]})
    with pytest.raises(TaskFormatError, match=r"apps\[0\].*unknown app 'xedit' for platform 'macos'"):
        task_from_data({**{k: v for k, v in base.items() if k != "platform"}, "apps": ["xedit"]})
    with pytest.raises(TaskFormatError, match=r"field 'platform': unknown platform 'windows'"):
        task_from_data({**base, "platform": "windows"})


@pytest.mark.parametrize("seed_id", sorted(p.stem for p in LINUX_TASKS.glob("*.json")))
def test_a_starter_task_scores_0_untouched_and_1_with_its_reference_on_the_guest(seed_id, docker_daemon, test_guest):
    """Setup, getters and the reference solution of variant 1 on a fresh guest, through the checkpoint
    code the env uses (getters over SSH exec)."""
    from mmenvs.macagent.checkpoints import GetterContext
    from mmenvs.macagent.tasks import load_seed_file, run_setup

    (seed,) = load_seed_file(LINUX_TASKS / f"{seed_id}.json")
    task = seed.variant(1)
    ssh_port, vnc_port = free_ports(2)
    container = docker_daemon.client.containers.run(
        test_guest.image, detach=True, network_mode="host", labels={"mmenvs.test": "vm-guest-task"},
        environment={"MMENVS_SSH_PORT": str(ssh_port), "MMENVS_VNC_PORT": str(vnc_port), "MMENVS_DISPLAY": str(free_display())})
    try:
        client = ssh_client(test_guest, ssh_port)
        try:
            wait_until(lambda: run(client, "test -e /run/mmenvs-ready")[0] == 0, what="/run/mmenvs-ready", timeout=90,
                       interval=0.3)
            shell = SSHShell(client)
            ctx = GetterContext(backend=shell, shell_timeout=30.0)
            run_setup(task, ctx)
            assert score(task, ctx) == [False] * len(task.checkpoints)
            run_reference(task, shell)
            assert score(task, ctx) == [True] * len(task.checkpoints)
        finally:
            client.close()
    finally:
        container.remove(force=True)
