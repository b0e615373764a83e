"""Frame memory of the simulated desktop and the env's observation: reused buffers, damage boxes and
incremental refits must give exactly the pixels a from-scratch render and letterbox would give."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from PIL import Image, ImageDraw

from mmenvs.core.images import FrameDiff
from mmenvs.core.spaces import FrameFitter, letterbox
from mmenvs.macagent.backends.sim import composite

SIDEBAR_X, SIDEBAR_ROWS_Y = 265, (215, 237)  # Finder's "Desktop" and "Documents" rows in its first window


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


# --------------------------------------------------------------------------- FrameFitter
def test_halving_matches_pillows_box_reduce_and_cv2_area() -> None:
    import cv2

    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (80, 128, 3), dtype=np.uint8)
    fitted = FrameFitter((40, 64))(frame)
    assert np.array_equal(fitted, np.array(Image.fromarray(frame).reduce(2)))
    assert np.array_equal(fitted, cv2.resize(frame, (64, 40), interpolation=cv2.INTER_AREA))


def test_refitting_only_the_changed_box_gives_the_full_refit() -> None:
    rng = np.random.default_rng(1)
    fitter = FrameFitter((50, 70))
    frame = rng.integers(0, 256, (100, 140, 3), dtype=np.uint8)
    fitter(frame)
    for _ in range(60):
        new = frame.copy()
        y0, x0 = int(rng.integers(0, 100)), int(rng.integers(0, 140))
        y1, x1 = int(rng.integers(y0 + 1, 101)), int(rng.integers(x0 + 1, 141))  # odd edges too
        new[y0:y1, x0:x1] = rng.integers(0, 256, (y1 - y0, x1 - x0, 3), dtype=np.uint8)
        assert np.array_equal(fitter(new, (x0, y0, x1, y1)), np.array(Image.fromarray(new).reduce(2)))
        frame = new


def test_other_sizes_fall_back_to_the_letterbox_and_same_size_is_a_copy() -> None:
    rng = np.random.default_rng(2)
    frame = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    assert np.array_equal(FrameFitter((60, 60))(frame), letterbox(frame, (60, 60)))
    same = FrameFitter((90, 120))
    out = same(frame)
    assert np.array_equal(out, frame) and not np.shares_memory(out, frame)
    # a changed box on a frame of another shape than last time is ignored: the whole frame is refitted
    fitter = FrameFitter((45, 60))
    fitter(rng.integers(0, 256, (90, 120, 3), dtype=np.uint8))
    other = rng.integers(0, 256, (45, 60, 3), dtype=np.uint8)
    assert np.array_equal(fitter(other, (0, 0, 1, 1)), other)


# --------------------------------------------------------------------------- FrameDiff
@pytest.mark.parametrize("shape", [(64, 96, 3), (37, 41, 3), (9, 13, 4), (11, 7)])
def test_the_diff_box_holds_every_change_and_little_else(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(3)
    diff = FrameDiff()
    for k in range(80):
        old = rng.integers(0, 256, shape, dtype=np.uint8)
        new = old.copy()
        y0, x0 = int(rng.integers(0, shape[0])), int(rng.integers(0, shape[1]))
        y1, x1 = int(rng.integers(y0 + 1, shape[0] + 1)), int(rng.integers(x0 + 1, shape[1] + 1))
        new[y0:y1, x0:x1] ^= 1
        within = (x0 - 3, y0 - 2, x1 + 5, y1 + 1) if k % 2 else None
        bx0, by0, bx1, by1 = diff.box(new, old, within)
        assert (by0, by1) == (y0, y1)
        assert bx0 <= x0 and bx1 >= x1 and (bx1 - bx0) - (x1 - x0) <= 6  # word-aligned at most
        patched = old.copy()
        patched[by0:by1, bx0:bx1] = new[by0:by1, bx0:bx1]
        assert np.array_equal(patched, new)
        assert diff.box(old, old.copy()) is None
    assert diff.box(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 5, 3), np.uint8)) == (0, 0, 4, 4)


# --------------------------------------------------------------------------- the shared canvas
def _draw_sample(img: Image.Image) -> None:
    d = ImageDraw.Draw(img)
    d.rectangle((3, 4, 40, 20), fill=(10, 200, 30))
    d.rounded_rectangle((20, 10, 90, 50), 8, outline=(0, 0, 255), width=2)
    d.ellipse((50, 5, 70, 25), fill=(250, 100, 0))
    d.text((5, 30), "Héllo 12:30", fill=(20, 20, 20))
    icon = Image.new("RGBA", (16, 16), (0, 0, 0, 0))
    ImageDraw.Draw(icon).ellipse((0, 0, 15, 15), fill=(200, 0, 200, 180))
    img.paste(icon, (60, 40), icon)
    sub = img.crop((0, 0, 30, 12))
    ImageDraw.Draw(sub).line((0, 0, 30, 12), fill=(255, 255, 0))
    img.paste(sub, (64, 0))


def test_drawing_on_the_shared_canvas_gives_the_pixels_of_a_plain_rgb_image() -> None:
    reference = Image.new("RGB", (100, 60), (236, 236, 236))
    _draw_sample(reference)
    with composite.canvas((100, 60), (236, 236, 236)) as (img, rgbx):
        _draw_sample(img)
        rgb = composite.rgb_from_rgbx(rgbx)
    assert np.array_equal(rgb, np.asarray(reference))


def test_a_canvas_opened_inside_another_gets_its_own_memory() -> None:
    with composite.canvas((40, 30), (1, 2, 3)) as (_outer, outer_px):
        with composite.canvas((40, 30), (9, 9, 9)) as (_inner, inner_px):
            assert not np.shares_memory(outer_px, inner_px)
        assert (outer_px[..., :3] == (1, 2, 3)).all()  # the inner fill did not land on the outer canvas


def test_a_windows_pixels_are_rewritten_in_place(b) -> None:
    window = b.desktop.apps["Finder"].open_folder(b.home)
    before = window.render(b.desktop.theme, True)
    address = _address(before)
    window.state["probe"] = 1  # any state change re-renders the window
    after = window.render(b.desktop.theme, True)
    assert window.surface_serial >= 2
    assert _address(after) == address and after.flags.c_contiguous and after.shape == (window.h, window.w, 3)


# --------------------------------------------------------------------------- the desktop's frames
@pytest.fixture
def finder():
    """The Finder window of the bench task, whose sidebar rows change the window when clicked."""
    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv(store_screenshots=False)
    env.reset(options={"task_id": "finder-folder-and-move-v0"})
    yield env.backend
    env.close()


def _next_frame(b, i: int) -> np.ndarray:
    b.click(SIDEBAR_X, SIDEBAR_ROWS_Y[i % 2])
    return b.screenshot()


def test_frames_alternate_between_two_buffers_and_the_last_one_stays_valid(finder) -> None:
    b = finder
    first = b.screenshot()
    assert b.screenshot() is first and not first.flags.writeable  # nothing changed: the very same array
    frames = [_next_frame(b, i) for i in range(5)]
    assert len({_address(f) for f in frames}) == 2  # two buffers, used in turn
    b.click(SIDEBAR_X, SIDEBAR_ROWS_Y[0])  # the row already selected: nothing changes
    assert b.screenshot() is frames[-1]
    last, last_pixels = frames[-1], frames[-1].copy()
    newer = _next_frame(b, 1)
    assert not np.shares_memory(newer, last) and np.array_equal(last, last_pixels)  # still intact
    newest = _next_frame(b, 0)
    assert np.shares_memory(newest, last)  # ...until the frame after next reuses its memory


def test_damage_since_bounds_every_difference_over_several_frames(finder) -> None:
    b = finder
    frames, copies = [], []
    actions = [lambda: b.click(SIDEBAR_X, SIDEBAR_ROWS_Y[1]), lambda: b.click(74, 12),  # the Finder menu
               lambda: b.press("esc"), lambda: b.click(SIDEBAR_X, SIDEBAR_ROWS_Y[0]),
               lambda: b.hotkey("command", "n"), lambda: b.click(SIDEBAR_X, SIDEBAR_ROWS_Y[1])]
    for act in actions:
        act()
        frames.append(b.screenshot())
        copies.append(frames[-1].copy())
    current = frames[-1]
    assert b.damage_since(current) == (0, 0, 0, 0)
    for earlier, pixels in zip(frames[:-1], copies[:-1]):
        box = b.damage_since(earlier)
        assert box is not None
        x0, y0, x1, y1 = box
        outside = np.ones(current.shape[:2], bool)
        outside[y0:y1, x0:x1] = False
        assert np.array_equal(current[outside], pixels[outside])
    assert b.damage_since(np.zeros_like(current)) is None  # not a frame of this desktop


def test_the_damage_log_does_not_keep_menu_frames_alive(finder) -> None:
    import weakref

    b = finder
    b.click(74, 12)  # the Finder menu opens: frames with a menu are fresh arrays
    menu_frame = b.screenshot()
    assert not any(np.shares_memory(menu_frame, f) for f in b.desktop.buffers._frames)  # noqa: SLF001
    ref = weakref.ref(menu_frame)
    b.press("esc")
    b.screenshot()
    del menu_frame
    gc.collect()
    assert ref() is None


# --------------------------------------------------------------------------- through the env
@pytest.mark.parametrize("task_id", ["finder-folder-and-move-v0", "keynote-title-slide-save-v0", "mail-forward-message-v0",
                                     "calendar-rename-event-v0"])  # GUI-only reference solutions
def test_every_observation_equals_a_fresh_fit_of_the_screen(task_id: str) -> None:
    """Incremental refits never drift: each step's image is what letterboxing the screen anew gives."""
    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv(render_mode="rgb_array")
    try:
        obs, info = env.reset(options={"task_id": task_id})
        rendered = []
        done, steps = False, 0
        while not done and steps < 60:
            frame = env.frame()
            assert np.array_equal(obs["image"], np.array(Image.fromarray(frame).reduce(2)))
            rendered.append((env.render(), frame.copy()))
            obs, _r, terminated, truncated, info = env.step(env.oracle_action(obs, info))
            done, steps = terminated or truncated, steps + 1
        assert info["success"]
        assert len({image.tobytes() for image, _pixels in rendered}) >= 2  # the screen did change
        # render() hands out copies: frames taken earlier are untouched by the buffers' reuse
        for image, pixels in rendered:
            assert np.array_equal(image, pixels)
    finally:
        env.close()


def _recomposed(backend) -> np.ndarray:
    """The screen composed from scratch (no reuse of the last frame)."""
    desk = backend.desktop
    desk._composition = desk._corners = None  # noqa: SLF001 - forces the full composition path
    desk._frame_gen = -1  # noqa: SLF001
    return backend.screenshot()


@pytest.mark.parametrize("task_id", ["finder-folder-and-move-v0", "keynote-title-slide-save-v0", "mail-forward-message-v0"])
def test_frames_built_on_the_last_one_equal_a_full_composition(task_id: str) -> None:
    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv(store_screenshots=False)
    try:
        obs, info = env.reset(options={"task_id": task_id})
        done, steps = False, 0
        while not done:
            frame = env.backend.screenshot().copy()
            assert np.array_equal(_recomposed(env.backend), frame), f"step {steps}"
            obs, _r, terminated, truncated, info = env.step(env.oracle_action(obs, info))
            done, steps = terminated or truncated, steps + 1
        assert info["success"]
    finally:
        env.close()


def test_typing_and_a_window_over_the_dock_compose_exactly(b) -> None:
    b.open_app("TextEdit")
    b.hotkey("command", "n")
    window = b.desktop.key_window()
    assert window is not None
    window.x, window.y = 300, 500  # reaches under the dock and off the bottom of the screen
    window.touch()
    for ch in "Hello, dock!":
        b.type_text(ch)
        frame = b.screenshot().copy()
        assert np.array_equal(_recomposed(b), frame)
    assert b.desktop._corners is not None  # noqa: SLF001 - the frames above were built incrementally


def test_shadows_from_the_reference_equal_the_direct_blur() -> None:
    from mmenvs.macagent.backends.sim import composite

    for w, h in ((256, 256), (257, 300), (640, 480), (1280, 777), (300, 1000)):
        for opacity in (70, 100, 120):
            assembled = composite._shadow_keep.__wrapped__(w, h, opacity)
            direct = composite._blurred_keep.__wrapped__(w, h, opacity)
            assert assembled.shape == direct.shape == (h + 2 * composite.SHADOW, w + 2 * composite.SHADOW)
            assert np.array_equal(assembled, direct), (w, h, opacity)
