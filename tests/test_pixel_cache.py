"""The disk cache of deterministic renderings (mmenvs.core.pixel_cache) and its use by MMToolSandbox's images."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmenvs.core import pixel_cache
from mmenvs.core.pixel_cache import PixelDiskCache, source_version
from mmenvs.toolsandbox import images

SPEC = {"generator": "rendered", "kind": "receipt", "seed": 11, "difficulty": 0.3,
        "facts": {"merchant": "Cache Cafe", "date": "2026-03-04", "currency": "USD", "subtotal": 11.5, "tax": 1.0, "total": 12.5,
                  "items": [{"name": "Tea", "quantity": 1, "unit_price": 11.5, "amount": 11.5}]}}


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(pixel_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(images, "_disk", None)  # rebuilt under the new root
    images.clear_cache()
    yield tmp_path / "cache"
    images.clear_cache()
    monkeypatch.setattr(images, "_disk", None)


def _entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.png"))


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
    entry.write_bytes(b"\x89PNG not really")
    images.clear_cache()
    assert np.array_equal(images.render_spec(SPEC, "img"), drawn)
    assert entry.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and entry.stat().st_size > 1000  # rewritten whole


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
