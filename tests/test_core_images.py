import numpy as np
import pytest
from PIL import Image

from mmenvs.core import ImageNotFound, ImageStore


def test_ids_are_sequential_and_originals_cannot_change():
    store = ImageStore()
    source = np.zeros((4, 5, 3), dtype=np.uint8)
    first = store.add(source)
    source[:] = 255  # the caller's array changing must not affect the stored copy
    assert first == "img_0"
    assert store.get("img_0").max() == 0
    with pytest.raises(ValueError):
        store.get("img_0")[0, 0, 0] = 1
    assert store.add(np.ones((2, 2), dtype=np.uint8)) == "img_1"
    assert store.ids() == ["img_0", "img_1"] and len(store) == 2


def test_lineage_and_roots():
    store = ImageStore()
    a = store.add(np.zeros((2, 2, 3), np.uint8))
    b = store.add(np.zeros((2, 2, 3), np.uint8))
    c = store.add(np.zeros((1, 1, 3), np.uint8), parents=[a], op="crop")
    d = store.add(np.zeros((1, 1, 3), np.uint8), parents=[c, b], op="blend")
    assert store.parents(d) == (c, b)
    assert store.lineage(d) == [a, c, b, d]
    assert store.roots(d) == [a, b]
    assert store.record(c).op == "crop"
    assert store.ids_since(2) == [c, d]


def test_unknown_and_malformed_ids_give_clear_errors():
    store = ImageStore()
    store.add(np.zeros((2, 2, 3), np.uint8))
    with pytest.raises(ImageNotFound, match="img_0 … img_0"):
        store.get("img_7")
    with pytest.raises(ImageNotFound, match="ids look like"):
        store.get("../etc/passwd")
    with pytest.raises(ImageNotFound):
        store.add(np.zeros((2, 2, 3), np.uint8), parents=["img_9"])
    assert "img_0" in store and "img_1" not in store and 3 not in store


def test_rejects_bad_arrays():
    store = ImageStore()
    with pytest.raises(ValueError, match="uint8"):
        store.add(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="shape"):
        store.add(np.zeros((2, 2, 5), np.uint8))


def test_png_export_round_trips(tmp_path):
    store = ImageStore()
    pixels = np.random.default_rng(0).integers(0, 256, (6, 7, 3), dtype=np.uint8)
    store.add(Image.fromarray(pixels))
    paths = store.export_all(tmp_path)
    assert [p.name for p in paths] == ["img_0.png"]
    assert np.array_equal(np.asarray(Image.open(paths[0])), pixels)
