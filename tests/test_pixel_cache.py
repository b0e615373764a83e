"""The disk cache of deterministic renderings (mmenvs.core.pixel_cache) and its use by MMToolSandbox's images."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from mmenvs.core import pixel_cache
from mmenvs.core.pixel_cache import PixelDiskCache, source_version
from mmenvs.core.spaces import letterbox
from mmenvs.toolsandbox import images
from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.toolsandbox.scenario import load_scenario, shipped_scenario_paths

SPEC = {"generator": "rendered", "kind": "receipt", "seed": 11, "difficulty": 0.3,
        "facts": {"merchant": "Cache Cafe", "date": "2026-03-04", "currency": "USD", "subtotal": 11.5, "tax": 1.0, "total": 12.5,
                  "items": [{"name": "Tea", "quantity": 1, "unit_price": 11.5, "amount": 11.5}]}}


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(images, "_disk", None)  # rebuilt under the new root
    monkeypatch.setattr(images, "_fitted_disk", None)
    images.clear_cache()
    yield tmp_path / "cache"
    images.clear_cache()
    monkeypatch.setattr(images, "_disk", None)
    monkeypatch.setattr(images, "_fitted_disk", None)


def _entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.px"))


def _pixels(height: int = 37, width: int = 53, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


def test_a_rendering_is_stored_once_and_read_back_identically(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = images.render_spec(SPEC, "img")
    assert len(_entries(cache_dir)) == 1
    images.clear_cache()  # as a new process: the memory cache is empty, the disk one is not
    calls: list[str] = []
    monkeypatch.setattr(images, "render", lambda *a, **k: calls.append("drawn"))
    again = images.render_spec(SPEC, "img")
    assert calls == [] and again.dtype == np.uint8 and np.array_equal(again, drawn)  # lossless, not redrawn
    assert not again.flags.writeable


def test_a_damaged_entry_is_drawn_again(cache_dir: Path) -> None:
    drawn = images.render_spec(SPEC, "img")
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"MMENVSPX not really")
    images.clear_cache()
    assert np.array_equal(images.render_spec(SPEC, "img"), drawn)
    assert entry.read_bytes()[:8] == b"MMENVSPX" and entry.stat().st_size == 64 + drawn.nbytes  # rewritten whole


def _flip(offset: int) -> Callable[[bytes], bytes]:
    def flipped(data: bytes) -> bytes:
        at = offset % len(data)
        return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]
    return flipped


# every way an entry can go bad: each must read as missing, never as wrong pixels, never raise
DAMAGE = {
    "truncated": lambda data: data[:-1],
    "header only": lambda data: data[:64],
    "half a header": lambda data: data[:30],
    "empty": lambda data: b"",
    "padded": lambda data: data + b"\0",
    "a pixel bit flipped": _flip(64 + 1000),
    "the last pixel byte flipped": _flip(-1),
    "the crc flipped": _flip(20),
    "the magic flipped": _flip(0),
    "the key digest flipped": _flip(30),
    "a header padding byte set": _flip(63),
    "height and width swapped": lambda data: data[:8] + data[12:16] + data[8:12] + data[16:],
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_entry_reads_as_missing_and_is_replaced_by_the_next_put(damage: str, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path))
    cache = PixelDiskCache("ns", "v1")
    rgb = _pixels(30, 50)
    cache.put("key", rgb)
    (entry,) = tmp_path.rglob("*.px")
    sound = entry.read_bytes()
    assert len(sound) == 64 + rgb.nbytes and np.array_equal(cache.get("key"), rgb)
    entry.write_bytes(DAMAGE[damage](sound))
    assert entry.read_bytes() != sound
    assert cache.get("key") is None
    cache.put("key", rgb)
    assert entry.read_bytes() == sound and np.array_equal(cache.get("key"), rgb)


def test_an_entry_of_another_key_or_shape_is_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path))
    cache = PixelDiskCache("ns", "v1")
    cache.put("a", _pixels(seed=1))
    cache.put("b", _pixels(seed=2))
    entry_a, entry_b = (cache.folder / name for name in sorted(os.listdir(cache.folder)))
    by_key = {np.array_equal(cache.get("a"), _pixels(seed=1)): "a"}
    assert by_key == {True: "a"}
    # an entry moved into another key's place (a sound file, for the wrong key) reads as missing
    a_bytes, b_bytes = entry_a.read_bytes(), entry_b.read_bytes()
    entry_a.write_bytes(b_bytes)
    entry_b.write_bytes(a_bytes)
    assert cache.get("a") is None and cache.get("b") is None
    # a folder or an unreadable name in an entry's place is a miss too, not an error
    entry_a.unlink()
    entry_a.mkdir()
    assert cache.get("a") is None
    # only H x W x 3 uint8 images are stored
    cache.put("gray", np.zeros((4, 4), np.uint8))
    cache.put("floats", np.zeros((4, 4, 3), np.float32))
    assert cache.get("gray") is None and cache.get("floats") is None


def test_a_read_back_entry_is_read_only_and_equal_to_a_non_contiguous_original(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path))
    cache = PixelDiskCache("ns", "v1")
    wide = _pixels(30, 90)
    view = wide[:, ::3]  # a strided view is stored by its pixels, not its memory
    cache.put("view", view)
    again = cache.get("view")
    assert again.shape == (30, 30, 3) and np.array_equal(again, view) and not again.flags.writeable


def test_off_disables_the_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, "off")
    cache = PixelDiskCache("x", "v1")
    cache.put("k", np.zeros((4, 4, 3), np.uint8))
    assert cache.get("k") is None and cache.folder is None


def test_the_version_follows_the_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path))
    source = tmp_path / "renderer.py"
    source.write_text("A = 1\n")
    v1 = source_version([source], "lib 1.0")
    old = PixelDiskCache("ns", v1)
    old.put("key", np.full((3, 5, 3), 7, np.uint8))
    source.write_text("A = 2\n")  # a changed renderer must not read the old picture
    v2 = source_version([source], "lib 1.0")
    assert v2 != v1 and source_version([source], "lib 1.1") != v2
    assert PixelDiskCache("ns", v2).get("key") is None
    assert PixelDiskCache("ns", v1).get("key").tolist() == np.full((3, 5, 3), 7, np.uint8).tolist()
    # keys are hashed: a key naming a path never becomes one
    PixelDiskCache("ns", v1).put("../../escape", np.zeros((2, 2, 3), np.uint8))
    assert not (tmp_path / "escape.png").exists() and all(p.parent == tmp_path / "ns" / v1 for p in tmp_path.rglob("*.png"))


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_the_namespace_is_pruned_to_its_bound_least_recently_used_first(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path))
    entry_size = 64 + 20 * 20 * 3
    monkeypatch.setenv(pixel_cache.MAX_MB_ENV, str(10 * entry_size / 2**20))  # room for 10 entries
    old = PixelDiskCache("ns", "old-version")
    for i in range(4):
        old.put(f"old{i}", _pixels(20, 20, seed=i))
    for path in old.folder.iterdir():
        _age(path, 7200)  # a stale version's entries are never read: they age
    cache = PixelDiskCache("ns", "v1")
    assert cache.limit == 10 * entry_size
    for i in range(6):
        cache.put(f"k{i}", _pixels(20, 20, seed=10 + i))
    paths = {f"k{i}": cache.folder / (__import__("hashlib").sha256(f"k{i}".encode()).hexdigest()[:40] + ".px") for i in range(6)}
    for i, key in enumerate(paths):
        _age(paths[key], 3600 - i * 60)  # k0 oldest ... k5 newest
    assert cache.get("k0") is not None  # a read an hour later makes k0 the most recently used
    stale_part = cache.folder / ".part-dead-writer"
    stale_part.write_bytes(b"x" * 100)
    _age(stale_part, 2 * 3600)
    fresh_part = cache.folder / ".part-live-writer"
    fresh_part.write_bytes(b"x" * 100)
    assert cache.prune() == 0 + 100  # 10 entries fit: only the dead writer's temp file goes
    assert not stale_part.exists() and fresh_part.exists()
    cache.put("k6", _pixels(20, 20, seed=99))  # 11 entries: over the bound, pruned to 90 % of it (9)
    assert len(list(tmp_path.rglob("*.px"))) == 9 and len(list(old.folder.iterdir())) == 2  # the stale version's go first
    cache.put("k7", _pixels(20, 20, seed=98))  # 10: at the bound, nothing goes
    assert len(list(tmp_path.rglob("*.px"))) == 10
    cache.put("k8", _pixels(20, 20, seed=97))
    assert len(list(tmp_path.rglob("*.px"))) == 9 and not old.folder.exists()  # the emptied version's folder went too
    cache.put("k9", _pixels(20, 20, seed=96))
    cache.put("k10", _pixels(20, 20, seed=95))  # then the least recently used of v1: k1 and k2, not k0 (read)
    assert [k for k in paths if not paths[k].exists()] == ["k1", "k2"]
    assert all(cache.get(f"k{i}") is not None for i in (0, 3, 4, 5, 6, 7, 8, 9, 10))


def test_writes_check_the_bound_and_a_bad_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv(pixel_cache.MAX_MB_ENV, "0")  # nothing may stay
    cache = PixelDiskCache("ns", "v1")
    for i in range(3):
        cache.put(f"k{i}", _pixels(seed=i))
        assert list(tmp_path.rglob("*.px")) == []  # each write is over the bound of 0: pruned at once
    monkeypatch.setenv(pixel_cache.MAX_MB_ENV, "lots")
    with pytest.raises(ValueError, match="MMENVS_CACHE_MAX_MB.*'lots'"):
        PixelDiskCache("ns", "v1")
    monkeypatch.setenv(pixel_cache.MAX_MB_ENV, "-1")
    with pytest.raises(ValueError, match="MMENVS_CACHE_MAX_MB"):
        PixelDiskCache("ns", "v1")
    monkeypatch.delenv(pixel_cache.MAX_MB_ENV)
    assert PixelDiskCache("ns", "v1").limit == pixel_cache.DEFAULT_MAX_MB * 2**20


def test_the_disk_caches_follow_the_cache_folder(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    images.render_spec(SPEC, "img")
    assert len(_entries(cache_dir)) == 1
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path / "elsewhere"))
    images.clear_cache()
    images.render_spec(SPEC, "img")
    assert len(_entries(tmp_path / "elsewhere")) == 1
    monkeypatch.setenv(pixel_cache.CACHE_ENV, "off")
    images.clear_cache()
    images.render_spec(SPEC, "img")
    assert len(_entries(cache_dir)) == 1 and len(_entries(tmp_path / "elsewhere")) == 1


def test_a_fitted_rendering_is_the_letterbox_of_its_pixels_and_is_cached(cache_dir: Path) -> None:
    drawn = images.render_spec(SPEC, "img")
    fitted = images.fitted_image(SPEC, drawn, (96, 128))
    assert np.array_equal(fitted, letterbox(drawn, (96, 128))) and not fitted.flags.writeable
    (entry,) = (cache_dir / "toolsandbox-fitted").rglob("*.px")
    again = images.fitted_image(SPEC, np.zeros_like(drawn), (96, 128))  # read back: the pixels given are not used
    assert np.array_equal(again, fitted)
    entry.write_bytes(entry.read_bytes()[:-5])  # damaged: fitted again from the pixels given
    assert np.array_equal(images.fitted_image(SPEC, drawn, (96, 128)), fitted)
    # another observation size is another entry; an image file's fitting is not kept
    assert images.fitted_image(SPEC, drawn, (64, 64)).shape == (64, 64, 3)
    assert len(list((cache_dir / "toolsandbox-fitted").rglob("*.px"))) == 2
    path_fit = images.fitted_image("toolsandbox/images/x.png", drawn, (32, 32))
    assert np.array_equal(path_fit, letterbox(drawn, (32, 32)))
    assert len(list((cache_dir / "toolsandbox-fitted").rglob("*.px"))) == 2


def _two_image_scenario():
    return load_scenario(shipped_scenario_paths()["expenses_trip_receipts"], load_images=True)


def test_a_reset_from_the_disk_cache_shows_what_a_drawing_reset_shows(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def first_observation(obs_size: tuple[int, int]) -> tuple[np.ndarray, str, list[np.ndarray]]:
        env = MMToolSandboxEnv(mode="tool", obs_size=obs_size)
        try:
            obs, info = env.reset(seed=0, options={"task": _two_image_scenario()})
            return obs["image"], obs["text"], [env.images.get(i) for i in env.images.ids()]
        finally:
            env.close()

    monkeypatch.setenv(pixel_cache.CACHE_ENV, "off")
    images.clear_cache()
    drawn_image, drawn_text, drawn_store = first_observation((120, 160))
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(cache_dir))
    for _ in range(2):  # the first fills the cache, the second reads it (pixels and fitting)
        images.clear_cache()
        image, text, store = first_observation((120, 160))
        assert np.array_equal(image, drawn_image) and text == drawn_text
        assert len(store) == len(drawn_store) == 2 and all(np.array_equal(a, b) for a, b in zip(store, drawn_store))
    assert len(_entries(cache_dir / "toolsandbox-images")) == 2 and len(_entries(cache_dir / "toolsandbox-fitted")) == 1
    assert drawn_image.std() > 0  # a real picture, not a blank frame


def test_placeholders_reach_the_image_threads_and_never_leave_their_block(cache_dir: Path) -> None:
    scenario = load_scenario(shipped_scenario_paths()["shopping_compare_checkout"])
    with images.placeholder_images():
        scenario.start_loading_pixels()  # loaded on the image threads: the caller's block must hold there
        blanks = scenario.pixels()
    assert len(blanks) == 3 and all(p.shape == (8, 8, 3) for p in blanks) and scenario.pixels_are_placeholders
    assert _entries(cache_dir) == []  # nothing was drawn
    real = scenario.pixels()  # outside the block: the real images, loaded now
    assert not scenario.pixels_are_placeholders and all(p.shape[0] > 100 for p in real)
    assert all(np.array_equal(a, b) for a, b in zip(real, [images.render_image(s, "x") for s in scenario.images.values()]))
    # an env reset inside the block, then outside it, with the same scenario object: the real picture
    env = MMToolSandboxEnv(mode="tool", obs_size=(64, 64))
    try:
        scenario = load_scenario(shipped_scenario_paths()["shopping_compare_checkout"])
        images.clear_cache()
        with images.placeholder_images():
            obs, _ = env.reset(options={"task": scenario})
        placeholder_obs = obs["image"]
        obs, _ = env.reset(options={"task": scenario})
        assert np.array_equal(obs["image"], letterbox(env.images.get(env.episode.current_image), (64, 64)))
        assert env.images.get(env.episode.current_image).shape[0] > 100
        assert not np.array_equal(obs["image"], placeholder_obs)
    finally:
        env.close()


def test_an_image_error_started_early_is_raised_by_pixels(cache_dir: Path) -> None:
    data = {**__import__("json").loads(shipped_scenario_paths()["expenses_trip_receipts"].read_text())}
    key = next(iter(data["images"]))
    data["images"] = {**data["images"], key: {**data["images"][key], "kind": "no_such_renderer"}}
    scenario = load_scenario(data, load_images=True)  # parsing checks the spec's form; drawing finds the kind unknown
    with pytest.raises(ValueError, match=f"images.{key}"):
        scenario.pixels()
