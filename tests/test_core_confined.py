"""The confined file layer: host code never follows a path out of the folder an agent controls."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from mmenvs.core.confined import ConfinedDir, ConfinementError, _SYSCALL

MODES = ["walk"] + (["openat2"] if _SYSCALL is not None else [])


@pytest.fixture(params=MODES)
def setup(request, tmp_path):
    home = tmp_path / "home"
    (home / "Desktop").mkdir(parents=True)
    (home / "Desktop" / "note.txt").write_text("hello")
    outside = tmp_path / "secret.txt"
    outside.write_text("HOST SECRET")
    confined = ConfinedDir(home, use_openat2=request.param == "openat2")
    return confined, home, outside


def test_openat2_is_used_where_the_kernel_has_it():
    import platform

    major, minor = (int(x) for x in platform.release().split(".")[:2])
    if (major, minor) >= (5, 6):
        assert _SYSCALL is not None, "this kernel has openat2; the layer should use it"


def test_reads_writes_and_lists_inside_the_root(setup):
    confined, home, _ = setup
    assert confined.read_text("Desktop/note.txt") == "hello"
    assert confined.read_text(home / "Desktop" / "note.txt") == "hello"  # a host path under the root
    confined.write_text("Desktop/new.txt", "made")
    assert (home / "Desktop" / "new.txt").read_text() == "made"
    confined.write_text("Desktop/new.txt", "shorter")
    assert (home / "Desktop" / "new.txt").read_text() == "shorter"
    confined.mkdir("Documents/a/b", parents=True)
    assert confined.is_dir("Documents/a/b")
    names = [(e.name, e.kind) for e in confined.listdir("Desktop")]
    assert names == [("new.txt", "file"), ("note.txt", "file")]
    confined.rename("Desktop/new.txt", "Documents/a/moved.txt")
    assert confined.read_text("Documents/a/moved.txt") == "shorter" and not confined.exists("Desktop/new.txt")
    confined.copy("Documents", "Copy")
    assert confined.read_text("Copy/a/moved.txt") == "shorter"
    assert sorted(str(p) for p, _ in confined.walk("Copy")) == ["Copy/a", "Copy/a/b", "Copy/a/moved.txt"]
    confined.rmtree("Copy")
    assert not confined.exists("Copy")


@pytest.mark.parametrize("how", ["file", "folder", "middle"])
def test_symlinks_out_of_the_root_are_never_followed(setup, how):
    confined, home, outside = setup
    if how == "file":
        os.symlink(outside, home / "Desktop" / "s.txt")
        path = "Desktop/s.txt"
    elif how == "folder":
        os.symlink(outside.parent, home / "Desktop" / "linked")
        path = "Desktop/linked/secret.txt"
    else:
        os.symlink(outside.parent, home / "Documents")
        path = "Documents/secret.txt"
    with pytest.raises(ConfinementError) as caught:
        confined.read_text(path)
    assert "HOST SECRET" not in str(caught.value) and str(home) not in str(caught.value)
    with pytest.raises(ConfinementError):
        confined.write_text(path, "overwritten")
    assert outside.read_text() == "HOST SECRET"
    if how != "file":
        with pytest.raises(ConfinementError):
            confined.listdir(path.rsplit("/", 1)[0])
        with pytest.raises(ConfinementError):
            confined.rename(path, "Desktop/stolen.txt")
        assert outside.exists()


def test_symlinks_are_entries_that_can_be_listed_moved_and_deleted(setup):
    confined, home, outside = setup
    os.symlink(outside, home / "Desktop" / "s.txt")
    assert confined.kind("Desktop/s.txt") == "symlink"
    assert ("s.txt", "symlink") in [(e.name, e.kind) for e in confined.listdir("Desktop")]
    confined.rename("Desktop/s.txt", "Desktop/t.txt")
    assert confined.readlink("Desktop/t.txt") == str(outside)
    confined.copy("Desktop", "Backup")  # the link is copied as a link, its target untouched
    assert confined.kind("Backup/t.txt") == "symlink"
    confined.rmtree("Backup")
    confined.unlink("Desktop/t.txt")
    assert outside.read_text() == "HOST SECRET"


def test_dot_dot_nul_and_outside_host_paths_are_refused_before_opening(setup, tmp_path):
    confined, home, outside = setup
    for bad in ("../secret.txt", "Desktop/../../secret.txt", "a\0b", str(outside), str(home) + "2/x"):
        with pytest.raises(ConfinementError):
            confined.read_bytes(bad)
    with pytest.raises(ConfinementError):
        confined.mkdir("../escaped")
    assert not (tmp_path / "escaped").exists()


def test_special_files_are_refused_without_blocking(setup):
    confined, home, _ = setup
    os.mkfifo(home / "Desktop" / "pipe")
    os.symlink("/dev/zero", home / "Desktop" / "zero")
    started = time.monotonic()
    for path in ("Desktop/pipe", "Desktop/zero", "Desktop"):
        with pytest.raises(ConfinementError):
            confined.read_bytes(path)
    with pytest.raises(ConfinementError):
        confined.write_bytes("Desktop/pipe", b"x")
    assert confined.kind("Desktop/pipe") == "other"
    with pytest.raises(ConfinementError):
        confined.copy("Desktop/pipe", "Desktop/pipe2")
    assert time.monotonic() - started < 30  # a FIFO open would block forever


def test_reads_are_size_capped(setup):
    confined, home, _ = setup
    (home / "big.bin").write_bytes(b"x" * 5000)
    assert len(confined.read_bytes("big.bin", limit=5000)) == 5000
    with pytest.raises(ConfinementError, match="larger than the 4999-byte limit"):
        confined.read_bytes("big.bin", limit=4999)


def test_a_file_swapped_for_a_symlink_in_a_loop_never_leaks(setup):
    """The swap race a check-then-open loses: the kernel resolves each open without following links."""
    confined, home, outside = setup
    target = home / "Desktop" / "race.txt"
    target.write_text("benign")
    stop = threading.Event()

    def swap() -> None:
        spare = home / "Desktop" / "spare"
        while not stop.is_set():
            try:
                os.symlink(outside, spare)
                os.replace(spare, target)
                spare.write_text("benign")
                os.replace(spare, target)
            except OSError:
                pass

    thread = threading.Thread(target=swap)
    thread.start()
    seen = set()
    try:
        for _ in range(3000):
            try:
                seen.add(confined.read_text("Desktop/race.txt"))
            except ConfinementError:
                seen.add("refused")
    finally:
        stop.set()
        thread.join()
    assert "HOST SECRET" not in seen and "benign" in seen


def test_read_head_reads_only_the_start_of_a_regular_file(setup):
    confined, home, outside = setup
    (home / "Desktop" / "big.txt").write_bytes(b"abc" * 1000)
    assert confined.read_head("Desktop/big.txt", 5) == b"abcab"
    os.symlink(outside, home / "Desktop" / "link.txt")
    with pytest.raises(ConfinementError):
        confined.read_head("Desktop/link.txt", 5)
    os.mkfifo(home / "Desktop" / "pipe")
    with pytest.raises(ConfinementError):
        confined.read_head("Desktop/pipe", 5)  # refused at once, never waiting for a writer


def test_listdir_without_stat_gives_names_and_kinds_only(setup):
    confined, home, outside = setup
    os.symlink(outside, home / "Desktop" / "link.txt")
    os.mkfifo(home / "Desktop" / "pipe")
    (home / "Desktop" / "folder").mkdir()
    quick = [(e.name, e.kind, e.size) for e in confined.listdir("Desktop", stat=False)]
    assert quick == [("folder", "dir", 0), ("link.txt", "symlink", 0), ("note.txt", "file", 0), ("pipe", "other", 0)]
    assert [(e.name, e.kind) for e in confined.listdir("Desktop")] == [(n, k) for n, k, _ in quick]


def test_clear_empties_a_folder_without_following_links(setup):
    confined, home, outside = setup
    (home / "Desktop" / "sub" / "deeper").mkdir(parents=True)
    os.symlink(outside.parent, home / "Desktop" / "sub" / "out")  # a link to the folder holding the secret
    os.mkfifo(home / "Desktop" / "pipe")
    confined.clear("Desktop")
    assert confined.listdir("Desktop") == [] and outside.read_text() == "HOST SECRET"
    with pytest.raises(ConfinementError):
        confined.clear("Desktop/missing")


def test_the_root_fd_is_kept_and_reopened_when_the_folder_is_made_anew(tmp_path):
    import shutil

    home = tmp_path / "home"
    home.mkdir()
    (home / "a.txt").write_text("first")
    confined = ConfinedDir(home)
    open_fds = len(os.listdir("/proc/self/fd"))
    for _ in range(200):
        assert confined.read_text("a.txt") == "first"
    assert len(os.listdir("/proc/self/fd")) <= open_fds + 1  # one kept fd, no leak per call
    shutil.rmtree(home)
    home.mkdir()
    (home / "a.txt").write_text("second")
    assert confined.read_text("a.txt") == "second"  # not the deleted folder's fd
    confined.close()
    assert confined.read_text("a.txt") == "second"
