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


def test_a_memory_budget_packs_the_oldest_images_and_reads_them_back_exactly() -> None:
    from mmenvs.core import images as images_module

    rng = np.random.default_rng(0)
    frames = [np.repeat(rng.integers(0, 256, (100, 1000, 1), dtype=np.uint8), 3, axis=2) for _ in range(6)]  # 300 KB each
    store = ImageStore(max_raw_bytes=700_000)
    ids = [store.add(f, op="screenshot") for f in frames]
    assert store.raw_bytes() <= 700_000
    images_module._packer.submit(lambda: None).result()  # one packing thread, first in first out
    packed = [store.record(i).pixels.packed is not None for i in ids]
    assert packed == [True, True, True, True, False, False]  # the newest stay raw
    for image_id, frame in zip(ids, frames):
        got = store.get(image_id)
        assert np.array_equal(got, frame) and not got.flags.writeable
        assert store.record(image_id).op == "screenshot"
    store.clear()
    assert store.raw_bytes() == 0 and len(store) == 0


def test_without_a_budget_nothing_is_packed() -> None:
    store = ImageStore()
    ids = [store.add(np.full((50, 50, 3), k, dtype=np.uint8)) for k in range(5)]
    assert all(store.record(i).pixels.raw is not None for i in ids)
    assert store.raw_bytes() == 5 * 50 * 50 * 3


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_a_packed_images_buffer_is_reused_for_the_next_image_of_its_shape() -> None:
    from mmenvs.core import images as images_module

    rng = np.random.default_rng(1)
    frames = [rng.integers(0, 256, (200, 300, 3), dtype=np.uint8) for _ in range(8)]
    store = ImageStore(max_raw_bytes=200_000)  # one raw frame (180 KB) fits
    ids = [store.add(frames[0])]
    first_address = _address(store.get(ids[0]))
    for frame in frames[1:3]:
        ids.append(store.add(frame))
        images_module._packer.submit(lambda: None).result()
    # img_0 was packed; the add after that took over its buffer instead of allocating a new one
    assert _address(store.get(ids[2])) == first_address
    assert store.record(ids[0]).pixels.raw is None
    for image_id, frame in zip(ids, frames):
        assert np.array_equal(store.get(image_id), frame)


def test_a_buffer_someone_still_holds_is_never_reused() -> None:
    from mmenvs.core import images as images_module

    rng = np.random.default_rng(2)
    frames = [rng.integers(0, 256, (100, 100, 3), dtype=np.uint8) for _ in range(6)]
    store = ImageStore(max_raw_bytes=40_000)
    held = store.get(store.add(frames[0]))  # the caller keeps the first image's array
    for frame in frames[1:]:
        store.add(frame)
        images_module._packer.submit(lambda: None).result()
    assert np.array_equal(held, frames[0])  # untouched by later adds
    assert all(np.array_equal(store.get(f"img_{k}"), f) for k, f in enumerate(frames))


def test_packing_backlog_is_bounded() -> None:
    import threading

    from mmenvs.core import images as images_module

    store = ImageStore(max_raw_bytes=1)
    gate = threading.Event()
    images_module._run_packer(lambda: None).result()  # start the packing thread
    blocker = images_module._packer.submit(gate.wait)  # hold the packing thread
    added = threading.Thread(target=lambda: [store.add(np.full((10, 10), k, np.uint8)) for k in range(8)])
    added.start()
    added.join(timeout=1.0)
    assert added.is_alive()  # add() waits once packings pile up instead of growing without bound
    assert len(store._packing) <= images_module._MAX_PENDING + 1
    gate.set()
    added.join(timeout=10)
    blocker.result()
    assert not added.is_alive() and len(store) == 8
    assert all(int(store.get(f"img_{k}")[0, 0]) == k for k in range(8))


def test_the_pixel_budget_refuses_before_copying_and_counts_what_is_held():
    from mmenvs.core.budget import BudgetExceeded, EpisodeBudget

    store = ImageStore(budget=EpisodeBudget(image_pixels=1_000_000, image_store_pixels=1_500_000))
    virtual = np.broadcast_to(np.zeros(3, np.uint8), (100_000, 100_000, 3))  # 30 GB if it were ever copied
    with pytest.raises(BudgetExceeded, match="image_pixels=1,000,000") as caught:
        store.add(virtual)
    assert caught.value.limit == "image_pixels" and len(store) == 0 and store.held_pixels() == 0
    store.add(np.zeros((1000, 1000), np.uint8))
    assert store.held_pixels() == 1_000_000
    with pytest.raises(BudgetExceeded, match="image_store_pixels=1,500,000"):
        store.add(Image.new("RGB", (800, 800)))  # 0.64 MP more than the store may hold
    store.check_new(700, 700)  # what still fits
    with pytest.raises(BudgetExceeded, match="image_store_pixels"):
        store.check_new(800, 800)
    store.clear()
    assert store.held_pixels() == 0 and store.add(Image.new("RGB", (800, 800))) == "img_0"


def test_packed_images_count_by_their_packed_size():
    from _wait import wait_until

    from mmenvs.core.budget import EpisodeBudget

    store = ImageStore(max_raw_bytes=1, budget=EpisodeBudget(image_store_pixels=2_000_000))
    for count in range(1, 6):  # flat screenshots pack to almost nothing: five fit where two raw ones would not
        store.add(np.full((800, 1000, 3), 200, np.uint8))
        held = wait_until(store.held_pixels, what=f"the older of {count} images packed", check=lambda held: held < 900_000)
        assert held >= 800_000  # the newest stays raw and counts in full
    assert np.array_equal(store.get("img_0"), np.full((800, 1000, 3), 200, np.uint8))
