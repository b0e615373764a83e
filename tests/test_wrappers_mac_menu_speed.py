"""MacAgentMenu's fast paths give what the plain computation gives: the click targets read through the
cached line parser, and (below) the observations the sim's caches produce, replayed against a desktop
whose caches are turned off."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401

SURFACES = ("AXWindow", "AXSheet", "AXMenu")


def _reference_targets(tree: str, roles: frozenset, size: tuple[int, int], limit: int) -> list:
    """The menu's click targets computed the plain way: every element parsed, every one in front checked."""
    from mmenvs.macagent.solutions import A11yElement, _LINE, _unescape

    elements: list[A11yElement] = []
    stack: list[tuple[int, str | None, int]] = []
    for line in tree.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        indent = len(match.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = _unescape(match.group(3))
        role = match.group("role")
        if role == "AXMenuBar" and name is None:
            name = "Menu Bar"
        bounds = None if match.group(6) is None else tuple(int(match.group(i)) for i in range(6, 10))
        elements.append(A11yElement(role, name, _unescape(match.group(4)), bounds, frozenset(match.group("flags").split()),
                                    tuple(n for _, n, _ in stack if n), len(elements), tuple(p for _, _, p in stack)))
        stack.append((indent, name, len(elements) - 1))
    out, centres = [], set()
    for e in elements:
        if e.role not in roles or e.bounds is None or "disabled" in e.flags or e.bounds[2] <= 0 or e.bounds[3] <= 0:
            continue
        cx, cy = e.center
        covered = any(o.role in SURFACES and o.bounds and o.position not in e.enclosing
                      and o.bounds[0] <= cx < o.bounds[0] + o.bounds[2] and o.bounds[1] <= cy < o.bounds[1] + o.bounds[3]
                      for o in elements[: e.position])
        if not (0 <= cx < size[0] and 0 <= cy < size[1]) or (cx, cy) in centres or covered:
            continue
        centres.add((cx, cy))
        out.append(e)
        if len(out) == limit:
            break
    return out


def test_accessibility_rows_match_the_elements_and_the_line_parser():
    from mmenvs.macagent.solutions import accessibility_elements, accessibility_rows, parse_accessibility_line

    tree = ('AXScreen [0, 0, 100, 80]\n  AXMenuBar [0, 0, 100, 24]\n    AXMenuBarItem "File" [10, 0, 30, 24]\n'
            'not a tree line\n  AXApplication "Notes" frontmost\n    AXWindow "A \\"q\\"" [5, 30, 60, 40] focused\n'
            '      AXTextField "Title" value="x\\ny" [10, 40, 20, 10] disabled\n  AXList "Dock" [0, 70, 100, 10]')
    rows = accessibility_rows(tree)
    elements = accessibility_elements(tree)
    assert [(r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows] == \
        [(e.role, e.name, e.value, e.bounds, e.flags, e.ancestors, e.enclosing) for e in elements]
    assert [e.position for e in elements] == list(range(7))
    field = elements[5]
    assert (field.name, field.value, field.ancestors, field.enclosing) == ("Title", "x\ny", ("Notes", 'A "q"'), (0, 3, 4))
    assert elements[1].name == "Menu Bar" and elements[6].ancestors == () and elements[6].enclosing == (0,)
    assert parse_accessibility_line("not a tree line") is None
    assert parse_accessibility_line('  AXButton "OK" [1, 2, 3, 4] checked') == (2, "AXButton", "OK", None, (1, 2, 3, 4),
                                                                                 frozenset({"checked"}))


def test_menu_targets_equal_the_plain_computation_along_a_random_run():
    from mmenvs.wrappers import MacAgentMenu

    env = MacAgentMenu(gym.make("MacAgent-v0", obs_size=(128, 128), store_screenshots=False))
    try:
        rng = np.random.default_rng(3)
        obs, info = env.reset(seed=3)
        size = env.unwrapped.backend.screen_size
        seen_trees = set()
        for _ in range(120):
            expected = _reference_targets(obs["a11y"], env.roles, size, env.max_elements)
            assert env.elements() == expected
            seen_trees.add(obs["a11y"])
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, _r, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                obs, info = env.reset()
        assert len(seen_trees) > 20  # the run went through many screens
    finally:
        env.close()


# ---------------------------------------------------------------------------------------------- the sim's caches
def _replay(seed: int, steps: int, full_frame_every: int = 0) -> list[tuple]:
    """Observations (image, a11y, the menu's labels) of a masked random run, and every
    ``full_frame_every`` steps the full-size screenshot, from a fresh env."""
    from mmenvs.wrappers import MacAgentMenu

    env = MacAgentMenu(gym.make("MacAgent-v0", obs_size=(128, 128), store_screenshots=False))
    try:
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        out = [(obs["image"].copy(), obs["a11y"], tuple(env.describe()), None)]
        for i in range(steps):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, _r, terminated, truncated, info = env.step(action)
            full = env.unwrapped.frame().copy() if full_frame_every and i % full_frame_every == 0 else None
            out.append((obs["image"].copy(), obs["a11y"], tuple(env.describe()), full))
            if terminated or truncated:
                obs, info = env.reset()
                out.append((obs["image"].copy(), obs["a11y"], tuple(env.describe()), None))
        return out
    finally:
        env.close()


def _caches_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from mmenvs.macagent.backends.sim import desktop, display_list

    monkeypatch.setattr(display_list, "enabled", False)
    desktop._LAYERS.items.clear()  # nothing drawn with the caches on is reused


@pytest.mark.parametrize("seed", [0, 5])
def test_low_res_observations_equal_the_uncached_path_for_the_same_actions(seed, monkeypatch):
    fast = _replay(seed, 150, full_frame_every=7)
    _caches_off(monkeypatch)
    plain = _replay(seed, 150, full_frame_every=7)
    assert len(fast) == len(plain)
    changed_images = 0
    for i, ((image, a11y, labels, full), (p_image, p_a11y, p_labels, p_full)) in enumerate(zip(fast, plain)):
        assert a11y == p_a11y, f"step {i}: the accessibility tree differs"
        assert labels == p_labels, f"step {i}: the menu differs"
        assert np.array_equal(image, p_image), f"step {i}: the observation image differs"
        if full is not None:
            assert np.array_equal(full, p_full), f"step {i}: the full-size screenshot differs"
        changed_images += i > 0 and not np.array_equal(image, fast[i - 1][0])
    assert changed_images > 30  # the run changed the screen often: the caches were exercised


def test_display_lists_compare_every_call_argument_and_pasted_pixels():
    from PIL import Image

    from mmenvs.macagent.backends.sim import display_list
    from mmenvs.macagent.backends.sim.theme import font

    def record(text: str, fill: tuple, icon: Image.Image) -> display_list.DrawRecorder:
        r = display_list.DrawRecorder((40, 30))
        r.rectangle((0, 0, 9, 9), fill=fill)
        r.text((5, 15), text, font=font(12), fill=(0, 0, 0), anchor="lm")
        r.polygon([(1, 1), (5, 1), (3, 4)], fill=fill)
        r._image.paste(icon, (20, 10), icon)
        return r

    red = Image.new("RGBA", (8, 8), (255, 0, 0, 255))
    base = record("abc", (1, 2, 3), red)
    assert record("abc", (1, 2, 3), red.copy()).ops == base.ops  # an equal icon made again compares equal
    assert record("abd", (1, 2, 3), red).ops != base.ops
    assert record("abc", (1, 2, 4), red).ops != base.ops
    assert record("abc", (1, 2, 3), Image.new("RGBA", (8, 8), (255, 0, 1, 255))).ops != base.ops
    with pytest.raises(display_list.Unrecordable):
        base._image.crop((0, 0, 4, 4))  # reading pixels back cannot be recorded
    with pytest.raises(display_list.Unrecordable):
        base.bitmap((0, 0), red)
    # a replay paints what direct drawing paints
    direct, replayed = Image.new("RGB", (40, 30), (9, 9, 9)), Image.new("RGB", (40, 30), (9, 9, 9))
    from mmenvs.macagent.backends.sim.theme import Draw

    d = Draw(direct)
    d.rectangle((0, 0, 9, 9), fill=(1, 2, 3))
    d.text((5, 15), "abc", font=font(12), fill=(0, 0, 0), anchor="lm")
    d.polygon([(1, 1), (5, 1), (3, 4)], fill=(1, 2, 3))
    direct.paste(red, (20, 10), red)
    base.replay(replayed)
    assert np.array_equal(np.asarray(direct), np.asarray(replayed)) and np.asarray(direct).std() > 0


def test_a_recorded_call_paints_only_inside_its_box():
    from PIL import Image

    from mmenvs.macagent.backends.sim import display_list
    from mmenvs.macagent.backends.sim.theme import Draw, font

    rng = np.random.default_rng(7)
    icon = Image.new("RGBA", (9, 7), (200, 10, 10, 255))
    checked = 0
    for trial in range(400):
        r = display_list.DrawRecorder((120, 90))
        x0, y0 = (float(v) for v in rng.integers(-20, 110, 2))
        x1, y1 = x0 + float(rng.integers(0, 60)), y0 + float(rng.integers(0, 40))
        width = int(rng.integers(1, 6))
        kind = trial % 9
        if kind == 0:
            r.rectangle((x0, y0, x1, y1), fill=(255, 0, 0), outline=(0, 255, 0), width=width)
        elif kind == 1:
            r.rounded_rectangle((x0, y0, x1, y1), int(rng.integers(0, 12)), fill=None, outline=(0, 0, 255), width=width)
        elif kind == 2:
            r.ellipse([(x0, y0), (x1, y1)], outline=(255, 255, 0), width=width)
        elif kind == 3:
            r.line((x0, y0, x1 - 0.7, y1 + 0.3), fill=(255, 0, 255), width=width)
        elif kind == 4:
            r.polygon([(x0, y0), (x1, y0 + 3), (x0 + 5, y1)], fill=(0, 255, 255), outline=(9, 9, 9))
        elif kind == 5:
            r.arc((x0, y0, x1, y1), 20, 250, fill=(120, 0, 0), width=width)
        elif kind == 6:
            r.text((x0 + 0.5, y0), "Wg Ây", font=font(int(rng.integers(9, 30))), fill=(250, 250, 250),
                   anchor=["lm", "mm", "rm", "la", None][int(rng.integers(5))])
        elif kind == 7:
            r._image.paste(icon, (int(x0), int(y0)), icon)
        else:
            r.pieslice((x0, y0, x1, y1), 0, 300, fill=(0, 120, 0), outline=(1, 1, 1), width=width)
        box = display_list.op_bbox(r.ops[0])
        assert box is not None, r.ops[0][0]
        img = Image.new("RGB", (120, 90), (0, 0, 0))
        r.replay(img)
        painted = np.argwhere(np.asarray(img).any(axis=2))
        if len(painted):
            checked += 1
            assert box[0] <= painted[:, 1].min() and painted[:, 1].max() < box[2], (r.ops[0], box)
            assert box[1] <= painted[:, 0].min() and painted[:, 0].max() < box[3], (r.ops[0], box)
    assert checked > 300
    # the part of a drawing inside a box is replayed exactly by the calls that reach it
    r = display_list.DrawRecorder((120, 90))
    for i in range(30):
        r.rectangle((i * 4, i * 3, i * 4 + 20, i * 3 + 15), fill=(i * 8, 255 - i * 8, 100))
        r.text((i * 4, i * 3 + 5), f"t{i}", font=font(11), fill=(0, 0, 0), anchor="lm")
    whole, part = Image.new("RGB", (120, 90), (5, 5, 5)), Image.new("RGB", (120, 90), (5, 5, 5))
    r.replay(whole)
    r.replay(part, within=(40, 30, 70, 60))
    assert np.array_equal(np.asarray(whole)[30:60, 40:70], np.asarray(part)[30:60, 40:70])
    assert not np.array_equal(np.asarray(whole), np.asarray(part))  # calls outside the box were skipped
    assert display_list.changed_box(r.ops, r.ops) == (0, 0, 0, 0)
    other = list(r.ops)
    other[12] = ("rectangle", ((48, 36, 68, 51),), (("fill", (1, 2, 3)),))
    box = display_list.changed_box(r.ops, other)  # what the old call (24, 18, 44, 33) and the new one paint
    assert box[0] <= 24 and box[1] <= 18 and box[2] >= 69 and box[3] >= 52 and box[2] - box[0] < 60 and box[3] - box[1] < 45


def test_patched_reduction_equals_a_whole_one():
    from PIL import Image

    from mmenvs.macagent.backends.sim import composite

    rng = np.random.default_rng(11)
    patched = 0
    for _ in range(200):
        w, h, k = int(rng.integers(30, 260)), int(rng.integers(30, 180)), int(rng.integers(2, 7))
        phase = (int(rng.integers(-k + 1, k)), int(rng.integers(-k + 1, k)))
        size = (composite.scaled(w, k), composite.scaled(h, k))
        before = rng.integers(0, 255, (h, w, 4), dtype=np.uint8)
        after = before.copy()
        x0, y0 = int(rng.integers(-5, w)), int(rng.integers(-5, h))
        box = (x0, y0, x0 + int(rng.integers(1, w // 2 + 2)), y0 + int(rng.integers(1, h // 2 + 2)))
        cx0, cy0, cx1, cy1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
        if cx1 > cx0 and cy1 > cy0:
            after[cy0:cy1, cx0:cx1] = rng.integers(0, 255, (cy1 - cy0, cx1 - cx0, 4), dtype=np.uint8)
        old = composite.block_reduce(Image.frombuffer("RGBX", (w, h), before, "raw", "RGBX", 0, 1), size, k, phase)
        new_img = Image.frombuffer("RGBX", (w, h), after, "raw", "RGBX", 0, 1)
        expected = composite.block_reduce(new_img, size, k, phase)
        region = composite.reduced_region((h, w), size, k, phase, box)
        assert region is not None
        if region[1] is None:
            assert np.array_equal(old, expected)
            continue
        assert np.array_equal(composite.patch_reduced(old, new_img, region, size, k, phase), expected)
        patched += 1
    assert patched > 150


def test_kept_standard_folders_show_the_sim_clock_whatever_an_earlier_episode_did():
    import os
    import shutil

    env = gym.make("MacAgent-v0", obs_size=(128, 128), store_screenshots=False)
    try:
        task = {"task_id": "calendar-all-day-event-v0"}  # its setup writes nothing into ~/Documents
        env.reset(options=task)
        base = env.unwrapped
        documents = base._home / "Documents"
        for entry in documents.iterdir():  # empty, so emptying it at the next reset does not touch it
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        long_ago = documents.stat().st_mtime - 3600  # as if an earlier episode changed it an hour ago (host time)
        os.utime(documents, (long_ago, long_ago))
        env.reset(options=task)
        assert not any(documents.iterdir())
        finder = base.backend.app("Finder")
        shown = finder._date_text(documents.stat().st_mtime)
        assert shown == finder._date_text(finder.reset_host_time) and shown.startswith("Today at ")
    finally:
        env.close()


def test_a_drawing_made_before_comes_from_the_shared_surface_cache_with_the_same_pixels(monkeypatch):
    from mmenvs.macagent.backends.sim import window

    window.SMALL_SURFACES.clear()
    first = _replay(3, 12)
    cached = dict(window.SMALL_SURFACES.items)
    assert cached  # the run's window drawings were kept
    hits = []
    get = window.SMALL_SURFACES.get
    monkeypatch.setattr(window.SMALL_SURFACES, "get", lambda key: hits.append(get(key)) or hits[-1])
    again = _replay(3, 12)  # the same episode again: its windows make the calls they made the first time
    assert any(h is not None for h in hits)
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(first, again))
    _caches_off(monkeypatch)
    plain = _replay(3, 12)
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(again, plain))


def test_a_cached_icon_is_recorded_by_the_digest_of_its_pixels_without_reading_them_again(monkeypatch):
    from mmenvs.macagent.backends.sim import display_list
    from mmenvs.macagent.backends.sim.icons import icon

    folder = icon("folder", 16)
    assert icon("folder", 16) is folder
    key = display_list._image_key(folder)
    assert key == display_list._digest_key(folder) == display_list._image_key(folder.copy())
    monkeypatch.setattr(display_list, "_digest_key", lambda im: pytest.fail("the cached icon was read again"))
    assert display_list._image_key(folder) == key
