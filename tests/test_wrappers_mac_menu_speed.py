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
