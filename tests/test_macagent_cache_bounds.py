"""Caches that fill with per-episode content stay small (issue 19 item 9: a soak's memory crept up while
they filled over tens of thousands of steps). Each test counts entries, and the bytes of entries made
the way episodes make them; no timing."""

from __future__ import annotations

import gc
import tracemalloc

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401
from mmenvs.macagent.backends.sim import theme
from mmenvs.macagent.env import TASK_CACHE_SIZE
from mmenvs.macagent.solutions import parse_accessibility_line

BUDGET_MB = 4.0  # per cache, at its bound


@pytest.fixture(scope="module")
def mac_env():
    env = gym.make("MacAgent-v0", obs_size=(64, 64), store_screenshots=False)
    yield env.unwrapped
    env.close()


def test_the_task_cache_keeps_only_the_recently_used_tasks(mac_env) -> None:
    ids = mac_env.task_ids()[: 2 * TASK_CACHE_SIZE + 5]
    first = mac_env.load_task(ids[0])
    loaded = [mac_env.load_task(task_id) for task_id in ids]
    assert len(mac_env._cache) == TASK_CACHE_SIZE  # not every task the env ever drew
    assert mac_env.load_task(ids[-1]) is loaded[-1]  # the recent ones are kept
    again = mac_env.load_task(ids[0])  # dropped long ago: loaded again, the same task
    assert again is not first and (again.id, again.instruction, again.params) == (first.id, first.instruction, first.params)
    assert len(mac_env._cache) == TASK_CACHE_SIZE


def test_accessibility_line_cache_is_bounded_within_budget(mac_env) -> None:
    mac_env.reset(seed=0)
    lines = [line for line in mac_env.screen.a11y().splitlines() if '"' in line]
    assert lines
    bound = parse_accessibility_line.cache_info().maxsize
    assert bound is not None
    parse_accessibility_line.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(bound + 100):  # lines of episodes gone by: names made per episode, each seen once
            line = lines[i % len(lines)]
            quote = line.index('"')
            assert parse_accessibility_line(f'{line[:quote + 1]}Episode {i} {line[quote + 1:]}') is not None
        gc.collect()
        held_mb = (tracemalloc.get_traced_memory()[0] - before) / 2**20
    finally:
        tracemalloc.stop()
        parse_accessibility_line.cache_clear()
    assert parse_accessibility_line.cache_info().currsize == 0
    assert held_mb <= BUDGET_MB, f"{bound} cached a11y lines hold {held_mb:.1f} MB"


def test_text_mask_cache_is_bounded_within_budget() -> None:
    bound = theme._text_mask.cache_info().maxsize
    assert bound is not None
    fnt = theme.font(13)
    theme._text_mask.cache_clear()
    try:
        mask_bytes = 0
        for i in range(bound + 50):  # labels of episodes gone by: file names, times
            mask, _offset = theme._text_mask(fnt, f"Note {i}", None)
            if i < bound:
                mask_bytes += mask.size[0] * mask.size[1]  # one byte per pixel ("L"), outside Python's heap
        assert theme._text_mask.cache_info().currsize == bound
    finally:
        theme._text_mask.cache_clear()
    assert mask_bytes / 2**20 <= BUDGET_MB, f"{bound} cached text masks hold {mask_bytes / 2**20:.1f} MB"


def test_shared_small_surface_cache_is_bounded_within_budget(mac_env) -> None:
    import numpy as np

    from mmenvs.macagent.backends.sim import window

    mac_env.reset(seed=0)
    drawn = [w for w in mac_env.backend.desktop.windows if w._list_key is not None]
    assert drawn, "the low-resolution path recorded no window drawing"
    ops = list(drawn[0]._list_key[0])
    cache = window._SmallSurfaces()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(400):  # drawings of episodes gone by: a window's calls with one label of its own
            variant = [*ops, ("text", ((10, 10), f"Episode {i}"), (("fill", (0, 0, 0)),))]
            key = cache.key(variant, ((160, 120), 5, (0, 0)), (800, 600), (255, 255, 255))
            assert key is not None
            cache.put(key, np.zeros((120, 160, 3), np.uint8))
        gc.collect()
        held_mb = (tracemalloc.get_traced_memory()[0] - before) / 2**20
    finally:
        tracemalloc.stop()
    assert len(cache.items) <= cache.MAX_ENTRIES and cache.nbytes <= cache.MAX_BYTES and cache.ops <= cache.MAX_OPS
    assert cache.nbytes == sum(a.nbytes for a in cache.items.values())
    assert cache.ops == sum(len(k[0]) for k in cache.items)
    assert held_mb <= BUDGET_MB, f"{len(cache.items)} cached small surfaces hold {held_mb:.1f} MB"
