"""The sim's low-resolution render path (issue 19 item 8): an observation much smaller than the screen is
made from a frame composed at low resolution, the full screenshot is drawn only when asked for."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401  (registers the ids)
from mmenvs.core.spaces import letterbox
from mmenvs.macagent.backends.sim import composite
from mmenvs.macagent.backends.sim.desktop import Desktop
from mmenvs.macagent.solutions import accessibility_elements

TASK = "skill-obsidian-move-and-status-v2"  # opens with an Obsidian window in front
OBS = (128, 128)
PSNR_MIN = 30.0  # dB between the small observation and the full frame letterboxed


def _make(**kwargs):
    options = {"obs_size": OBS, "store_screenshots": False, **kwargs}
    return gym.make("MacAgent-v0", **options).unwrapped


def _centre(a11y: str, role: str, name: str) -> dict:
    for element in accessibility_elements(a11y):
        if element.role == role and element.name == name and element.bounds:
            x, y = element.center
            return {"action_type": "CLICK", "x": x, "y": y}
    raise AssertionError(f"no {role} {name!r} on screen:\n{a11y[:2000]}")


def _script(env, obs):
    """A fixed walk through states that exercise every layer: windows over windows, a menu open (the
    overlay), a sheet-less dialog-free state change, the dock and the menu bar; yields each observation."""
    yield obs
    for role, name in (("AXDockItem", "Notes"), ("AXDockItem", "Calendar"), ("AXMenuBarItem", "File"), (None, "esc"),
                       ("AXDockItem", "Finder"), ("AXMenuBarItem", "Edit"), (None, "esc"), ("AXDockItem", "Terminal")):
        action = {"action_type": "PRESS", "key": name} if role is None else _centre(obs["a11y"], role, name)
        obs, _r, terminated, truncated, info = env.step(action)
        assert not info.get("action_error"), info
        assert not (terminated or truncated)
        yield obs


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def test_small_observation_is_close_to_the_full_frame_letterboxed_and_no_full_frame_is_drawn(monkeypatch) -> None:
    composed = []
    full_render = Desktop._render
    monkeypatch.setattr(Desktop, "_render", lambda self: composed.append(1) or full_render(self))
    env = _make()
    try:
        obs, _info = env.reset(seed=0, options={"task_id": TASK})
        assert env.screen.low_res, "128x128 of a 1280x800 screen without stored screenshots must take the low-res path"
        desktop = env.backend.desktop
        values, menus, asked = [], 0, 0
        for obs in _script(env, obs):
            assert len(composed) == asked, "a step composed a full-size frame nobody asked for"
            menus += desktop.menu is not None
            image = obs["image"].copy()
            full = env.frame()  # drawn now, on request
            asked += 1
            assert len(composed) == asked and full.shape == (800, 1280, 3)
            values.append(_psnr(image, letterbox(full, OBS)))
        assert menus == 2  # the two menus were open in their steps (the overlay is drawn small)
        assert min(values) >= PSNR_MIN, values
        # the letterbox bars stay black, the content sits centred (1280x800 -> 128x80 at rows 24..104)
        assert not obs["image"][:24].any() and not obs["image"][104:].any() and obs["image"][24:104].any()
    finally:
        env.close()


def test_full_screenshot_on_request_equals_the_default_paths_frame() -> None:
    low = _make(render_mode="rgb_array")
    ref = _make(render_mode="rgb_array", low_res_render=False)
    try:
        assert not ref.screen.low_res
        obs_low, _ = low.reset(seed=3, options={"task_id": TASK})
        obs_ref, _ = ref.reset(seed=3, options={"task_id": TASK})
        walk_low, walk_ref = _script(low, obs_low), _script(ref, obs_ref)
        compared = 0
        for step, (a, b) in enumerate(zip(walk_low, walk_ref)):
            assert a["a11y"] == b["a11y"]  # coordinates and the tree are the full screen's
            if step % 2 == 0:  # ask for the full frame only now and then: it is drawn lazily, from any earlier state
                assert np.array_equal(low.render(), ref.render())
                assert np.array_equal(low.frame(), ref.frame())
                compared += 1
            assert _psnr(a["image"], b["image"]) >= PSNR_MIN
        assert compared == 5
        # the backend's own screenshot (what screencapture and getters read) is the same too
        assert np.array_equal(low.backend.screenshot(), ref.backend.screenshot())
    finally:
        low.close()
        ref.close()


def test_state_changes_show_in_the_small_observation() -> None:
    env = _make()
    try:
        obs, _ = env.reset(seed=0, options={"task_id": TASK})
        before = obs["image"].copy()
        obs, *_ = env.step(_centre(obs["a11y"], "AXMenuBarItem", "File"))
        menu = obs["image"].copy()
        x, y, w, h = env.backend.desktop.menu.layout(1280, 800)
        # the menu's rectangle at 1/10 (+ the 24 px letterbox bar) changed; far from it nothing did
        r0, r1, c0, c1 = 24 + y // 10, 24 + (y + h) // 10, x // 10, (x + w) // 10
        assert np.abs(menu[r0:r1, c0:c1].astype(int) - before[r0:r1, c0:c1]).mean() > 10
        assert np.array_equal(menu[60:70, 100:128], before[60:70, 100:128])
        obs, *_ = env.step({"action_type": "PRESS", "key": "esc"})
        assert np.abs(obs["image"].astype(int) - before).max() <= 2  # the menu closed: the first screen again
        obs, *_ = env.step(_centre(obs["a11y"], "AXDockItem", "Terminal"))
        assert np.abs(obs["image"].astype(int) - before).mean() > 1  # a Terminal window opened in front
        assert "AXApplication \"Terminal\" frontmost" in obs["a11y"]
        # an unchanged screen hands back the same observation pixels
        again, *_ = env.step("WAIT")
        assert np.abs(again["image"].astype(int) - obs["image"]).max() <= 2
    finally:
        env.close()


def test_same_seed_same_small_observations() -> None:
    runs = []
    for _ in range(2):
        env = _make()
        try:
            obs, _ = env.reset(seed=7, options={"task_id": TASK})
            runs.append([o["image"].copy() for o in _script(env, obs)])
        finally:
            env.close()
    assert len(runs[0]) == len(runs[1]) == 9
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("kwargs", [{"obs_size": (400, 640)}, {"store_screenshots": True}, {"low_res_render": False}])
def test_the_low_res_path_is_off_where_it_does_not_apply(kwargs) -> None:
    env = _make(**kwargs)
    try:
        env.reset(seed=0, options={"task_id": TASK})
        assert not env.screen.low_res
        assert env.backend.desktop._frame is not None  # the observation came from the full frame
    finally:
        env.close()


def test_scale_factor_and_edges() -> None:
    assert composite.scale_factor((1280, 800), (128, 80)) == 5
    assert composite.scale_factor((1280, 800), (640, 400)) == 1  # the default obs: no low-res path
    assert composite.scale_factor((1280, 800), (84, 52)) == 7
    assert [composite.scaled(v, 5) for v in (0, 2, 3, 7, 8, 1280)] == [0, 0, 1, 1, 2, 256]
    # the downscaled shadow equals the full one downscaled: a flat grey background shadowed both ways
    grey = np.full((300, 400, 3), 200, np.uint8)
    full = grey.copy()
    composite.shadow(full, 60, 50, 250, 180, 120)
    full[50:230, 60:310] = 0  # where the window goes
    small = np.full((60, 80, 3), 200, np.uint8)
    composite.shadow_scaled(small, 5, 60, 50, 250, 180, 120)
    small[10:46, 12:62] = 0
    assert _psnr(small, composite.area_resize(full, (80, 60))) >= 35


@pytest.mark.parametrize("x, y", [(60, 50), (-40, -30), (1200, 700)])  # on screen, over the top-left and bottom-right edges
def test_a_shadow_leaves_the_box_the_window_covers_and_is_the_same_after_the_paste(x, y) -> None:
    rng = np.random.default_rng(1)
    background = rng.integers(0, 256, (160, 256, 3), dtype=np.uint8)
    k, w, h, r = 5, 250, 180, 2
    x0, y0 = composite.scaled(x, k), composite.scaled(y, k)
    surf = rng.integers(0, 256, (composite.scaled(y + h, k) - y0, composite.scaled(x + w, k) - x0, 3), dtype=np.uint8)
    whole, banded = background.copy(), background.copy()
    composite.shadow_scaled(whole, k, x, y, w, h, 120)
    covered = composite.covered_box(x0, y0, surf.shape[1], surf.shape[0], r)
    composite.shadow_scaled(banded, k, x, y, w, h, 120, covered)
    cx0, cy0, cx1, cy1 = max(0, covered[0]), max(0, covered[1]), covered[2], covered[3]
    inside = np.zeros(background.shape[:2], bool)
    inside[cy0:max(cy0, cy1), cx0:max(cx0, cx1)] = True
    assert np.array_equal(banded[inside], background[inside])  # left alone
    assert np.array_equal(banded[~inside], whole[~inside]) and not np.array_equal(whole, background)
    composite.paste_window(whole, surf, x0, y0, r=r)
    composite.paste_window(banded, surf, x0, y0, r=r)
    assert np.array_equal(whole, banded)  # once the window is on it, nobody can tell


def test_the_rl_bench_env_takes_the_low_res_path() -> None:
    from mmenvs.wrappers import bench

    env = bench._mac_menu_env()
    try:
        env.reset(seed=0)
        base = env.unwrapped
        assert base.screen.low_res and not base.store_screenshots
        assert base.backend.desktop._frame is None  # no full-size frame was composed for the first observation
    finally:
        env.close()
