"""The bwrap command line and the pids cgroup: the security-relevant parts, checked directly."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _wait import wait_until

from mmenvs.sandbox import isolation as iso


def _cmd(flags: frozenset[str]) -> list[str]:
    return iso.bwrap_command("/usr/bin/bwrap", ["/bin/true"], env={"A": "1"}, ro_binds=["/opt/py"],
                             rw_binds=[("/host/home", "/home/user")], tmpfs_mb=64, flags=flags)


def test_bwrap_command_unshares_everything_and_drops_privileges() -> None:
    cmd = _cmd(frozenset({"userns", "disable-userns", "tmpfs-size"}))
    joined = " ".join(cmd)
    for part in ("--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop ALL",
                 "--clearenv", "--uid 1000 --gid 1000", "--disable-userns", "--proc /proc", "--dev /dev",
                 f"--size {64 * 1024 * 1024} --tmpfs /tmp", "--ro-bind /opt/py /opt/py",
                 "--bind /host/home /home/user", "--setenv A 1", "--remount-ro /"):
        assert part in joined, part
    assert cmd[-2:] == ["--", "/bin/true"]
    # The read-only remount of the root comes after every mount it must not undo.
    root_ro = max(i for i, t in enumerate(cmd) if t == "--remount-ro" and cmd[i + 1] == "/")
    assert root_ro > cmd.index("--tmpfs") and root_ro > cmd.index("--bind")
    # Every writable tmpfs is sized (tmpfs is host memory): /dev/shm and /tmp; bwrap's /dev itself is read-only.
    assert f"--size {64 * 1024 * 1024} --tmpfs /dev/shm" in joined and "--remount-ro /dev" in joined
    assert cmd.index("--remount-ro", cmd.index("/dev/shm")) == cmd.index("/dev/shm") + 1
    # Nothing broad from the host is bound: no /etc, /root, /home, /work, /sys or / itself.
    sources = [cmd[i + 1] for i, t in enumerate(cmd) if t in ("--ro-bind", "--bind", "--dev-bind")]
    for token in ("/", "/etc", "/etc/shadow", "/root", "/home", "/work", "/sys", "/proc"):
        assert token not in sources, token


def test_bwrap_command_without_optional_features() -> None:
    cmd = _cmd(frozenset())
    assert "--unshare-user" not in cmd and "--size" not in cmd and "--disable-userns" not in cmd
    # Without --size, /dev/shm is not an unbounded tmpfs: it stays a directory of the read-only /dev.
    assert "/dev/shm" not in cmd and "--remount-ro /dev" in " ".join(cmd)
    assert "--unshare-all" in cmd and "--cap-drop" in cmd


def test_python_paths_cover_the_interpreter_and_site_packages() -> None:
    ro, site_dirs = iso.python_paths()
    exe_dir = os.path.dirname(os.path.realpath(sys.executable))
    assert any(exe_dir == p or exe_dir.startswith(p + "/") for p in ro)
    import numpy

    np_dir = os.path.dirname(os.path.dirname(os.path.realpath(numpy.__file__)))
    assert np_dir in site_dirs
    # No bound path contains another one.
    assert all(not (a != b and b.startswith(a + "/")) for a in ro for b in ro)


def test_find_bwrap_honours_argument_and_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    fake = tmp_path / "bw"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert iso.find_bwrap(str(fake)) == str(fake)
    assert iso.find_bwrap(str(tmp_path / "missing")) is None
    monkeypatch.setenv(iso.BWRAP_ENV_VAR, "")
    assert iso.find_bwrap() is None
    monkeypatch.setenv(iso.BWRAP_ENV_VAR, str(fake))
    assert iso.find_bwrap() == str(fake)


def test_process_tree_lists_descendants() -> None:
    proc = subprocess.Popen(["/bin/sh", "-c", "sleep 300 & sleep 300 & wait"])
    try:
        # the shell forks its two children on its own time
        tree = wait_until(lambda: iso.process_tree(proc.pid), check=lambda tree: len(tree) >= 3,
                          what="the shell and its two sleeps")
        assert tree[0] == proc.pid and len(tree) == 3
    finally:
        for pid in iso.process_tree(proc.pid)[1:]:
            os.kill(pid, 9)
        proc.kill()
        proc.wait()


def test_pids_cgroup_limits_forks_and_cleans_up() -> None:
    cg = iso.PidsCgroup.create(4)
    if cg is None:
        pytest.skip("no writable pids cgroup hierarchy on this machine")
    try:
        code = ("import os, sys, time\n"
                "sys.stdin.readline()  # forks only once the test has put this process in the cgroup\n"
                "n = 0\n"
                "try:\n"
                "    for _ in range(20):\n"
                "        if os.fork() == 0:\n"
                "            os.close(1)  # let the test read the parent's output without waiting\n"
                "            time.sleep(300)  # killed by cg.remove()\n"
                "            os._exit(0)\n"
                "        n += 1\n"
                "except OSError:\n"
                "    pass\n"
                "print(n)\n")
        proc = subprocess.Popen([sys.executable, "-S", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        cg.add(proc.pid)
        out, _ = proc.communicate("go\n", timeout=60)
        assert int(out) == 3  # 4 tasks in all: the python process and three children
        assert len(cg.pids()) == 3  # the children still sleep inside the cgroup
    finally:
        path = cg.path
        cg.remove()
    assert not path.exists()


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_seccomp_program_is_well_formed(machine: str) -> None:
    import struct

    prog = iso.seccomp_filter(machine)
    assert prog is not None and len(prog) % 8 == 0
    ins = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    arch, table = iso._DENIED_SYSCALLS[machine]
    assert ins[0] == (0x20, 0, 0, 4) and ins[1][3] == arch  # load arch, compare
    assert ins[-2] == (0x06, 0, 0, 0x7FFF0000) and ins[-1] == (0x06, 0, 0, 0x00050001)  # allow, EPERM
    for i, (code, jt, jf, k) in enumerate(ins):
        if code in (0x15, 0x35) and i > 1:
            assert i + 1 + jt == len(ins) - 1, "every syscall check jumps to the deny return"
    checked = {k for code, _, _, k in ins[4:-2] if code == 0x15}
    assert checked == set(table.values())
    assert iso.seccomp_filter("sparc") is None
