import json

import numpy as np
import pytest

from mmenvs.core import UnicodeText, clip_text, image_space, letterbox, to_rgb


def test_unicode_text_accepts_json_code_and_non_latin_text():
    space = UnicodeText(1000)
    for text in [json.dumps({"name": "crop", "arguments": {"x": [1, 2]}}), "```python\nprint('hi')\n```",
                 "日本語のテキスト", "Привет, мир", "مرحبا", "", "tab\tnew\nline"]:
        assert space.contains(text), text
    assert not space.contains("x" * 1001)
    assert not space.contains(b"bytes")
    assert not space.contains(None)


def test_unicode_text_sample_is_member_and_seeded():
    a, b = UnicodeText(50, seed=3), UnicodeText(50, seed=3)
    samples = [a.sample() for _ in range(20)]
    assert samples == [b.sample() for _ in range(20)]
    assert all(a.contains(s) for s in samples)
    assert any(ord(c) > 127 for s in samples for c in s)  # the alphabet really is mixed


def test_min_length_respected_and_bad_bounds_rejected():
    space = UnicodeText(10, min_length=4, seed=0)
    assert all(4 <= len(space.sample()) <= 10 for _ in range(50))
    assert not space.contains("abc")
    with pytest.raises(ValueError):
        UnicodeText(3, min_length=5)


def test_clip_text_keeps_bound_and_says_what_was_cut():
    clipped = clip_text("a" * 5000, 200)
    assert len(clipped) <= 200
    assert clipped.startswith("a" * 100)
    assert "truncated" in clipped
    assert clip_text("short", 200) == "short"


def test_letterbox_keeps_aspect_ratio_and_centres():
    wide = np.full((100, 400, 3), 200, dtype=np.uint8)  # 4:1
    out = letterbox(wide, (200, 200))
    assert out.shape == (200, 200, 3) and out.dtype == np.uint8
    rows = np.where(out[:, 100, 0] == 200)[0]
    assert rows.min() == 75 and rows.max() == 124  # 50 rows of image, 75 of padding above and below
    assert out[0, 0, 0] == 0 and out[199, 199, 0] == 0


def test_letterbox_upscales_small_images_and_handles_gray_and_none():
    gray = np.arange(16, dtype=np.uint8).reshape(4, 4)
    out = letterbox(gray, (8, 16))
    assert out.shape == (8, 16, 3)
    assert (out[:, :4] == 0).all() and (out[:, 12:] == 0).all()  # pillarbox
    assert letterbox(None, (5, 7)).shape == (5, 7, 3)


def test_image_space_and_to_rgb():
    space = image_space((30, 40))
    assert space.shape == (30, 40, 3) and space.dtype == np.uint8
    rgba = np.zeros((2, 2, 4), dtype=np.uint8)
    assert to_rgb(rgba).shape == (2, 2, 3)
    with pytest.raises(ValueError):
        image_space((0, 10))
