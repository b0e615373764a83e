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


# ---------------------------------------------------------------- usage: sizes by directory fds


def _walk_usage(confined, path=".", limit=100_000):
    """What disk_usage / home_usage computed before usage(): the sum and count of walk's entries."""
    size = count = 0
    for _, entry in confined.walk(path, limit=limit):
        count += 1
        size += entry.size if entry.kind == "file" else 0
    return size, count


def _open_fds():
    import gc

    gc.collect()  # a file object of an earlier test closed meanwhile would change the count
    return len(os.listdir("/proc/self/fd"))


def _mixed_tree(home, outside):
    """Nested folders with files of distinct sizes, links to files and folders in and out of the root,
    a FIFO, empty folders, names whose order as strings and as paths differ (a, a.b, a-b)."""
    sizes = iter(range(1, 10_000))
    for folder in ("a/x/deep/er", "a.b/y", "a-b", "b/empty", "c/d/e/f", "zz"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    for folder in ("", "a", "a/x", "a/x/deep", "a/x/deep/er", "a.b", "a.b/y", "a-b", "c/d", "c/d/e/f", "zz"):
        for name in ("f1.txt", "f2.bin", "F3"):
            (home / folder / name).write_bytes(b"x" * next(sizes) * 7)
    os.symlink(outside, home / "a" / "to_outside_file")
    os.symlink(outside.parent, home / "a" / "x" / "to_outside_folder")
    os.symlink("../a.b", home / "c" / "to_inside_folder")
    os.symlink("f1.txt", home / "a-b" / "to_inside_file")
    os.symlink("/nonexistent/dangling", home / "zz" / "dangling")
    os.mkfifo(home / "c" / "d" / "pipe")


def test_usage_equals_the_walk_sum_at_every_limit(setup):
    confined, home, outside = setup
    for i in range(40):  # a secret folder outside the root, with big files, reachable only through links
        (outside.parent / f"big{i}.bin").write_bytes(b"s" * 100_000)
    _mixed_tree(home, outside)
    total = _walk_usage(confined)
    # 15 folders (Desktop included), 34 files (7, 14, … 231 bytes and note.txt's 5), 5 links, a FIFO;
    # nothing of the outside folder
    assert total == (7 * sum(range(1, 34)) + 5, 55)
    assert confined.usage() == total and confined.disk_usage() == total[0]
    for limit in range(0, total[1] + 3):
        assert confined.usage(limit=limit) == _walk_usage(confined, limit=limit), limit
        assert confined.disk_usage(limit=limit) == _walk_usage(confined, limit=limit)[0]
    for sub in ("a", "a/x", "c", "b/empty", "a-b"):
        for limit in (1, 2, 5, 100):
            assert confined.usage(sub, limit=limit) == _walk_usage(confined, sub, limit=limit), (sub, limit)
    for not_a_folder in ("f1.txt", "a/to_outside_file", "a/x/to_outside_folder", "c/to_inside_folder", "c/d/pipe", "missing"):
        assert confined.usage(not_a_folder) == (0, 0) == _walk_usage(confined, not_a_folder)
    with pytest.raises(ConfinementError):
        confined.usage("../home")


def test_usage_never_enters_a_symlinked_folder_out_of_the_root(setup):
    confined, home, outside = setup
    (outside.parent / "loot").mkdir()
    (outside.parent / "loot" / "big.bin").write_bytes(b"s" * 50_000)
    os.symlink(outside.parent / "loot", home / "Desktop" / "loot")
    os.symlink(outside.parent, home / "up")
    # Desktop, note.txt (5 bytes), the two links: 4 entries, 5 bytes; the 50,000 outside are not counted
    assert confined.usage() == (5, 4)
    assert confined.usage("Desktop/loot") == (0, 0) and confined.usage("up") == (0, 0)


def test_usage_skips_a_folder_swapped_for_a_symlink_after_it_was_listed(setup, monkeypatch):
    """The race: a folder is listed as a folder, then replaced by a link to the outside before it is
    entered. The swap is made at that very moment (the listing of its parent is wrapped)."""
    import mmenvs.core.confined as confined_module

    confined, home, outside = setup
    (outside.parent / "loot").mkdir()
    (outside.parent / "loot" / "big.bin").write_bytes(b"s" * 50_000)
    (home / "Desktop" / "sub").mkdir()
    (home / "Desktop" / "sub" / "inner.txt").write_text("inner")
    real = confined_module._count_entries
    swapped = []

    def listing_then_swap(fd, budget):
        got = real(fd, budget)
        if "sub" in got[2] and not swapped:  # Desktop was just listed, with sub as a folder
            os.rename(home / "Desktop" / "sub", home / "moved-away")
            os.symlink(outside.parent / "loot", home / "Desktop" / "sub")
            swapped.append(True)
        return got

    monkeypatch.setattr(confined_module, "_count_entries", listing_then_swap)
    size, count = confined.usage("Desktop")
    assert swapped == [True]
    assert (size, count) == (5, 2)  # note.txt and the entry "sub"; neither inner.txt nor the 50,000 outside


def test_usage_of_very_deep_nesting_counts_everything_and_leaves_no_fd_open(setup, monkeypatch):
    """300 levels, each with a file and (every level) an empty sibling folder entered after the deep
    branch, so that going back up needs the folders whose fds were given up (more than 64 levels)."""
    import mmenvs.core.confined as confined_module

    confined, home, _ = setup
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(300):  # by fds: the host path would pass PATH_MAX with longer names
            with open(os.open("file.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as out:
                out.write(b"x" * (level + 1))
            os.mkdir("zsibling", dir_fd=fd)
            os.mkdir("d" * 100, dir_fd=fd)  # 300 x 101 characters: old path-based opens fail past ~40 levels
            following = os.open("d" * 100, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = following
    finally:
        os.close(fd)
    expected = (5 + sum(range(1, 301)), 2 + 300 * 3)  # Desktop/note.txt; per level a file, a sibling, a folder
    confined.usage()  # the kept root fd is opened by the first call
    before = _open_fds()
    assert confined.usage() == expected
    assert _open_fds() == before
    peak = []
    real_scandir = os.scandir

    def counting_scandir(arg):
        peak.append(len(os.listdir("/proc/self/fd")))
        return real_scandir(arg)

    monkeypatch.setattr(confined_module.os, "scandir", counting_scandir)
    assert confined.usage() == expected
    assert max(peak) <= before + confined_module.USAGE_MAX_OPEN_FOLDERS + 3  # bounded whatever the depth
    assert max(peak) >= before + confined_module.USAGE_MAX_OPEN_FOLDERS  # (and the bound was reached)
    monkeypatch.setattr(confined_module.os, "scandir", real_scandir)
    assert _open_fds() == before
    for limit in (1, 150, 299, 300, 301, 600, 901, 902, 5000):  # counted in walk's order (over PATH_MAX walk stops)
        if limit <= 120:
            assert confined.usage(limit=limit) == _walk_usage(confined, limit=limit), limit
        assert confined.usage(limit=limit)[1] == min(limit, expected[1])
    assert _open_fds() == before


def test_usage_with_a_small_fd_bound_equals_the_walk_and_skips_a_moved_folder(setup, monkeypatch):
    import mmenvs.core.confined as confined_module

    confined, home, outside = setup
    monkeypatch.setattr(confined_module, "USAGE_MAX_OPEN_FOLDERS", 2)
    _mixed_tree(home, outside)
    path = home
    for level in range(12):  # a comb: each level has a deep branch and folders after it
        path = path / f"n{level}"
        for sibling in ("o", "p"):
            (path.parent / sibling / "s").mkdir(parents=True, exist_ok=True)
            (path.parent / sibling / "s" / "f").write_bytes(b"y" * (level + 3))
        path.mkdir()
        (path / "leaf").write_bytes(b"z" * 11)
    total = _walk_usage(confined)
    before = _open_fds()
    for limit in range(0, total[1] + 2):
        assert confined.usage(limit=limit) == _walk_usage(confined, limit=limit), limit
    assert confined.usage() == total and _open_fds() == before


def test_usage_does_not_take_the_new_parent_of_a_moved_folder_for_a_folder_it_gave_up(setup, monkeypatch):
    """k0/k1/k2/k3/k4, each with a folder z holding one file; with 2 fds kept, k0..k2 give theirs up on the
    way down. While k4 is listed, k3 is moved into Desktop: k3 (still open) is finished, but ".." of k3 is
    now Desktop, not k2, so k2's, k1's and k0's folders left (their z) are skipped — not looked for in
    Desktop and above."""
    import mmenvs.core.confined as confined_module

    confined, home, _ = setup
    monkeypatch.setattr(confined_module, "USAGE_MAX_OPEN_FOLDERS", 2)
    (home / "Desktop" / "z").mkdir()
    (home / "Desktop" / "z" / "d.bin").write_bytes(b"d" * 70_000)
    (home / "z").mkdir()  # what k1's z would be, looked for in Desktop's parent
    (home / "z" / "h.bin").write_bytes(b"h" * 300_000)
    chain = home
    for level in range(5):
        chain = chain / f"k{level}"
        (chain / "z").mkdir(parents=True)
        (chain / "z" / "f.bin").write_bytes(b"f" * 10**level)
    assert confined.usage() == _walk_usage(confined) == (5 + 70_000 + 300_000 + 11_111, 3 + 1 + 2 + 1 + 4 * 2 + 1 + 5)
    real = confined_module._count_entries
    moved = []

    def listing_then_move(fd, budget):
        got = real(fd, budget)
        if not moved and os.path.samestat(os.fstat(fd), os.stat(chain)):
            os.rename(home / "k0" / "k1" / "k2" / "k3", home / "Desktop" / "k3")
            moved.append(True)
        return got

    monkeypatch.setattr(confined_module, "_count_entries", listing_then_move)
    before = _open_fds()
    size, count = confined.usage()
    assert moved == [True] and _open_fds() == before
    # home: Desktop, k0, z, z/h.bin; Desktop: note.txt, z, z/d.bin; k0..k3: k(i+1) and z each; k4: z;
    # k4/z/f.bin and k3/z/f.bin (10,000 and 1,000 bytes); not the files of k2/z, k1/z, k0/z, nor those of
    # Desktop/z or z a second time
    assert (size, count) == (5 + 70_000 + 300_000 + 10_000 + 1_000, 3 + 1 + 2 + 1 + 4 * 2 + 1 + 2)
