"""Every VTC tool against hand-computed results on small synthetic images, plus the catalog and validation."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from mmenvs.core import ImageStore
from mmenvs.vtc import tool_catalog
from mmenvs.vtc.tools import GROUPS, TOOLS, ToolError, call_tool, map_paper_name


def run(tool: str, image: np.ndarray, **arguments):
    store = ImageStore()
    store.add(image)
    result = call_tool(store, tool, {"image": "img_0", **arguments})
    return store.get(result.output), result.numbers


def blank(h: int, w: int, value: int = 0, channels: int = 3) -> np.ndarray:
    return np.full((h, w, channels) if channels else (h, w), value, np.uint8)


def squares() -> np.ndarray:
    """White 10×10 and 20×20 squares on black (gray)."""
    img = np.zeros((60, 80), np.uint8)
    img[5:15, 5:15] = 255
    img[30:50, 40:60] = 255
    return img


# ------------------------------------------------------------------------------ catalog
def test_catalog_lists_the_33_public_tools_plus_sharpen_with_schemas():
    catalog = tool_catalog()
    names = [t["name"] for t in catalog]
    assert len(names) == 34 and len(set(names)) == 34
    assert {"resize", "rotate", "translate", "flip", "crop", "zoom_in", "pyramid", "colorspace", "inrange_color", "blur", "denoise",
            "threshold", "morphology", "histogram", "convertscaleabs", "inpaint", "sharpen", "canny", "gradients", "watershed", "grabcut",
            "floodfill", "connected_components", "features", "hough_lines", "hough_circles", "template_match", "dft", "contours",
            "contour_area", "arc_length", "approx_poly", "draw_line", "draw_circle"} == set(names)
    for tool in catalog:
        assert tool["group"] in GROUPS
        assert len(tool["description"]) > 30
        schema = tool["parameters"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert schema["properties"]["image"]["default"] == "img_0"
        for name, prop in schema["properties"].items():
            assert prop["description"], (tool["name"], name)
    assert sum(t["group"] == "geometry" for t in catalog) == 7


def test_public_defaults_follow_the_reference_implementation():
    defaults = {(t, p.name): p.default for t, spec in TOOLS.items() for p in spec.params}
    assert defaults[("translate", "distance")] == 32
    assert defaults[("denoise", "h")] == 10.0
    assert defaults[("morphology", "kernel_size")] == 3 and defaults[("morphology", "iterations")] == 1
    assert defaults[("convertscaleabs", "alpha")] == 1.0 and defaults[("convertscaleabs", "beta")] == 0.0
    assert (defaults[("hough_lines", "threshold")], defaults[("hough_lines", "min_line_length")], defaults[("hough_lines", "max_line_gap")]) == (80, 50.0, 10.0)
    assert (defaults[("hough_circles", "dp")], defaults[("hough_circles", "min_dist")], defaults[("hough_circles", "param1")],
            defaults[("hough_circles", "param2")], defaults[("hough_circles", "min_radius")]) == (1.2, 50.0, 100.0, 50.0, 10)
    assert defaults[("approx_poly", "epsilon_ratio")] == 0.02
    assert TOOLS["blur"].params[1].odd and TOOLS["blur"].params[1].minimum == 3 and TOOLS["blur"].params[1].maximum == 51


def test_paper_names_map_onto_ours():
    assert map_paper_name("Canny Edge") == "canny"
    assert map_paper_name("Conn. Components") == "connected_components"
    assert map_paper_name("Adjust Brightness") == "convertscaleabs"
    assert map_paper_name("Zoom In") == "zoom_in"
    assert map_paper_name("Keypoint Features") == "features"
    assert map_paper_name("Draw Contours") == "contours"
    assert map_paper_name("In-Range Color") == "inrange_color"
    assert map_paper_name("Sharpen") == "sharpen"
    assert map_paper_name("teleport") is None


# ------------------------------------------------------------------------------ validation and lineage
@pytest.mark.parametrize("tool, arguments, kind, fragment", [
    ("warp_drive", {}, "unknown_tool", "Unknown tool 'warp_drive'"),
    ("blur", {"ksize": 4}, "bad_parameter", "must be odd"),
    ("blur", {"ksize": 53}, "bad_parameter", "[3, 51]"),
    ("blur", {"method": "boxy"}, "bad_parameter", "one of average, gaussian, median, bilateral"),
    ("blur", {"sigma": 2}, "unknown_parameter", "'sigma'"),
    ("threshold", {"invert": "yes"}, "bad_parameter", "true or false"),
    ("crop", {"x": 0, "y": 0, "width": 50, "height": 5}, "bad_parameter", "reaches outside"),
    ("crop", {"x": 0}, "missing_parameter", "missing y, width, height"),
    ("floodfill", {"y": 1}, "missing_parameter", "'x'"),
    ("inrange_color", {"lower": [0, 0], "upper": [1, 1, 1]}, "bad_parameter", "list of 3 numbers"),
    ("colorspace", {"image": "img_9"}, "unknown_image", "unknown image id 'img_9'"),
    ("colorspace", {"image": 3}, "bad_parameter", "image id string"),
])
def test_bad_calls_are_refused_with_a_clear_message(tool, arguments, kind, fragment):
    store = ImageStore()
    store.add(blank(10, 20))
    with pytest.raises(ToolError) as caught:
        call_tool(store, tool, arguments)
    assert caught.value.kind == kind
    assert fragment in str(caught.value)
    assert len(store) == 1  # nothing was added


def test_a_call_adds_a_new_image_with_lineage():
    store = ImageStore()
    store.add(blank(10, 20, 7))
    first = call_tool(store, "flip", {"image": "img_0"})
    second = call_tool(store, "template_match", {"image": "img_1", "template": "img_0"})
    assert (first.output, second.output) == ("img_1", "img_2")
    assert store.parents("img_1") == ("img_0",) and store.record("img_1").op == "flip"
    assert store.parents("img_2") == ("img_1", "img_0")
    assert store.lineage("img_2") == ["img_0", "img_1", "img_2"]
    assert first.text().startswith("img_1 = flip(img_0): ")


# ------------------------------------------------------------------------------ geometry
def test_resize():
    img = np.arange(10 * 20 * 3, dtype=np.uint8).reshape(10, 20, 3)
    out, n = run("resize", img, width=10)
    assert out.shape == (5, 10, 3) and n == {"width": 10, "height": 5, "scale_x": 0.5, "scale_y": 0.5}
    out, n = run("resize", img, preset="double", interpolation="nearest")
    assert out.shape == (20, 40, 3) and np.array_equal(out[::2, ::2], img)
    with pytest.raises(ToolError, match="either 'preset'"):
        run("resize", img, preset="half", width=3)


def test_rotate():
    img = np.arange(6, dtype=np.uint8).reshape(2, 3)
    out, n = run("rotate", img, angle=90)
    assert np.array_equal(out, np.rot90(img, 1)) and (n["width"], n["height"]) == (2, 3)
    out, _ = run("rotate", img, angle=90, clockwise=True)
    assert np.array_equal(out, np.rot90(img, -1))
    out, _ = run("rotate", img, angle=180)
    assert np.array_equal(out, img[::-1, ::-1])
    out, n = run("rotate", blank(10, 10, 200), angle=45)
    assert (n["width"], n["height"]) == (14, 14)  # 10·cos45 + 10·sin45 = 14.1: the canvas grows
    assert out[7, 7, 0] == 200 and out[0, 0, 0] == 0


def test_translate():
    img = np.arange(20, dtype=np.uint8).reshape(4, 5) + 1
    out, n = run("translate", img, direction="right", distance=2)
    assert n == {"dx": 2, "dy": 0}
    assert np.array_equal(out[:, 2:], img[:, :-2]) and not out[:, :2].any()
    out, _ = run("translate", img, direction="up", distance=1)
    assert np.array_equal(out[:-1], img[1:]) and not out[-1].any()


def test_flip():
    img = np.arange(6, dtype=np.uint8).reshape(2, 3)
    assert np.array_equal(run("flip", img)[0], img[:, ::-1])
    assert np.array_equal(run("flip", img, direction="vertical")[0], img[::-1])
    assert np.array_equal(run("flip", img, direction="both")[0], img[::-1, ::-1])


def test_crop():
    img = np.arange(100, dtype=np.uint8).reshape(10, 10)
    out, n = run("crop", img, x=2, y=3, width=4, height=5)
    assert np.array_equal(out, img[3:8, 2:6]) and n["box"] == [2, 3, 4, 5]
    out, _ = run("crop", img, box=[2, 3, 4, 5])
    assert np.array_equal(out, img[3:8, 2:6])
    with pytest.raises(ToolError, match="not both"):
        run("crop", img, box=[0, 0, 2, 2], x=1)


def test_zoom_in():
    img = np.zeros((10, 10), np.uint8)
    img[2:6, 2:6] = 90
    out, n = run("zoom_in", img, box=[2, 2, 4, 4], scale=3)
    assert out.shape == (12, 12) and np.all(out == 90) and (n["width"], n["height"]) == (12, 12)


def test_pyramid():
    out, n = run("pyramid", blank(16, 16, 80))
    assert out.shape == (8, 8, 3) and np.all(out == 80)
    assert run("pyramid", blank(16, 16, 80), levels=2)[0].shape == (4, 4, 3)
    out, n = run("pyramid", blank(16, 16, 80), mode="pyr_up")
    assert (n["width"], n["height"]) == (32, 32) and np.all(out == 80)


# ------------------------------------------------------------------------------ enhancement
def test_colorspace():
    red = np.zeros((2, 2, 3), np.uint8)
    red[..., 0] = 255
    out, n = run("colorspace", red, target="hsv")
    assert tuple(out[0, 0]) == (0, 255, 255) and n["channel_means"] == [0.0, 255.0, 255.0]
    gray, _ = run("colorspace", red, target="gray")
    assert gray.ndim == 2 and gray[0, 0] == 76  # 0.299 · 255
    lab, _ = run("colorspace", blank(2, 2, 255), target="lab")
    assert lab[0, 0, 0] == 255


def test_inrange_color_hsv_wraps_red_and_bgr_bounds_are_reordered():
    img = np.zeros((4, 4, 3), np.uint8)
    img[:, :2] = (230, 20, 20)  # red
    img[:, 2:] = (20, 20, 230)  # blue
    mask, n = run("inrange_color", img, lower=[170, 100, 100], upper=[10, 255, 255])
    assert n == {"pixel_count": 8, "fraction": 0.5}
    assert mask[:, :2].all() and not mask[:, 2:].any()
    mask, n = run("inrange_color", img, lower=[0, 0, 200], upper=[60, 60, 255], space="bgr")  # B,G,R order: high R = red
    assert mask[:, :2].all() and not mask[:, 2:].any()
    with pytest.raises(ToolError, match="one-channel"):
        run("inrange_color", np.zeros((3, 3), np.uint8), lower=[0, 0, 0], upper=[1, 1, 1])


def test_blur():
    img = blank(9, 9, 100, channels=0)
    img[4, 4] = 255
    out, _ = run("blur", img, method="median", ksize=3)
    assert np.all(out == 100)
    out, _ = run("blur", blank(9, 9, 50), method="gaussian", ksize=5)
    assert np.all(out == 50)
    out, _ = run("blur", img, method="average", ksize=3)
    assert out[4, 4] == round((8 * 100 + 255) / 9)


def test_denoise_reduces_noise():
    rng = np.random.default_rng(0)
    img = np.clip(128 + rng.normal(0, 20, (40, 40)), 0, 255).astype(np.uint8)
    out, n = run("denoise", img, h=30)
    assert out.std() < img.std() / 2 and n["mean_abs_change"] > 5


def test_threshold():
    ramp = np.tile(np.arange(256, dtype=np.uint8), (2, 1))
    out, n = run("threshold", ramp, method="binary", threshold_value=127)
    assert n["threshold"] == 127.0 and n["foreground_fraction"] == 0.5 and out[0, 128] == 255 and out[0, 127] == 0
    two = np.zeros((4, 4), np.uint8)
    two[:, :2], two[:, 2:] = 50, 200
    out, n = run("threshold", two, method="otsu", invert=True)
    assert 50 <= n["threshold"] < 200 and out[:, :2].all() and not out[:, 2:].any()
    out, n = run("threshold", two, method="adaptive_mean", block_size=3)
    assert out.shape == two.shape and n["threshold"] is None


def test_morphology():
    dot = np.zeros((9, 9), np.uint8)
    dot[4, 4] = 255
    assert not run("morphology", dot, operation="open")[0].any()
    out, n = run("morphology", dot, operation="dilate", kernel_size=3)
    assert int((out == 255).sum()) == 9 and n["foreground_fraction"] == round(9 / 81, 4)
    holed = np.full((9, 9), 255, np.uint8)
    holed[4, 4] = 0
    assert run("morphology", holed, operation="close")[0].all()


def test_histogram_equalize_stretches_contrast():
    img = np.zeros((4, 4), np.uint8)
    img[:, :2], img[:, 2:] = 100, 110
    out, n = run("histogram", img, method="equalize")
    assert set(np.unique(out)) == {0, 255} and n["mean_before"] == 105.0 and n["mean_after"] == 127.5
    out, n = run("histogram", blank(8, 8, 90), method="clahe")
    assert out.shape == (8, 8, 3)


def test_convertscaleabs():
    img = blank(2, 2, 100, channels=0)
    assert run("convertscaleabs", img, alpha=2.0, beta=-50)[0][0, 0] == 150
    assert run("convertscaleabs", img, alpha=3.0)[0][0, 0] == 255  # saturates
    assert run("convertscaleabs", img, beta=-150)[0][0, 0] == 50  # absolute value of -50


def test_inpaint_fills_bright_damage():
    img = blank(20, 20, 100)
    img[8:12, 8:12] = 255
    out, n = run("inpaint", img)
    assert n["repaired_pixels"] == 16 and np.abs(out[8:12, 8:12].astype(int) - 100).max() <= 2
    store = ImageStore()
    store.add(img)
    mask = np.zeros((20, 20), np.uint8)
    mask[8:12, 8:12] = 255
    store.add(mask)
    result = call_tool(store, "inpaint", {"image": "img_0", "mask": "img_1"})
    assert result.numbers["repaired_pixels"] == 16 and store.parents(result.output) == ("img_0", "img_1")


def test_sharpen_overshoots_at_edges_and_keeps_flat_areas():
    img = np.zeros((10, 10), np.uint8)
    img[:, 5:] = 100
    out, _ = run("sharpen", img, strength=1.0, ksize=3)
    assert out[5, 0] == 0 and out[5, 9] == 100
    assert out[5, 5] > 100  # bright side of the edge pushed up


# ------------------------------------------------------------------------------ feature extraction
def test_canny_finds_the_square_outline():
    img = np.full((40, 40), 255, np.uint8)
    img[10:30, 10:30] = 0
    out, n = run("canny", img)
    assert (n["low"], n["high"]) == (100.0, 200.0) and n["edge_pixels"] > 60
    ys, xs = np.nonzero(out)
    assert xs.min() >= 8 and xs.max() <= 31 and not out[15:25, 15:25].any()
    with pytest.raises(ToolError, match="exceeds"):
        run("canny", img, low_threshold=200, high_threshold=100)


def test_gradients_respond_to_the_edge_direction():
    img = np.zeros((10, 10), np.uint8)
    img[:, 5:] = 100
    _, nx = run("gradients", img, method="sobel_x")
    _, ny = run("gradients", img, method="sobel_y")
    assert nx["max"] == 400.0 and ny["max"] == 0.0  # Sobel 3×3 on a 100 step: (1+2+1)·100


def test_watershed_splits_two_overlapping_discs():
    img = np.zeros((80, 120), np.uint8)
    cv2.circle(img, (40, 40), 22, 255, -1)
    cv2.circle(img, (76, 40), 22, 255, -1)
    _, n = run("watershed", img, marker_ratio=0.7)
    assert n["count"] == 2
    centroids = sorted(s["centroid"][0] for s in n["segments"])
    assert abs(centroids[0] - 40) < 4 and abs(centroids[1] - 76) < 4
    assert run("connected_components", img)[1]["count"] == 1  # plain labelling cannot split them


def test_grabcut_extracts_the_central_object():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 60, (60, 60, 3)).astype(np.uint8)
    img[20:40, 20:40] = (240, 200, 40)
    out, n = run("grabcut", img, mode="rect", box=[10, 10, 40, 40])
    x, y, w, h = n["bbox"]
    assert abs(x - 20) <= 2 and abs(y - 20) <= 2 and abs(w - 20) <= 3 and abs(h - 20) <= 3
    assert not out[0:5, 0:5].any()


def test_floodfill_fills_the_seed_region():
    img = np.zeros((10, 20, 3), np.uint8)
    img[:, 10:] = 200
    out, n = run("floodfill", img, x=2, y=2, color=[0, 255, 0])
    assert n["area"] == 100 and n["bbox"] == [0, 0, 10, 10]
    assert tuple(out[5, 5]) == (0, 255, 0) and tuple(out[5, 15]) == (200, 200, 200)
    with pytest.raises(ToolError, match="outside"):
        run("floodfill", img, x=20, y=2)


def test_connected_components_counts_areas_and_centroids():
    out, n = run("connected_components", squares())
    assert n["count"] == 2
    big, small = n["components"]
    assert (big["area"], big["bbox"], big["centroid"]) == (400, [40, 30, 20, 20], [49.5, 39.5])
    assert (small["area"], small["bbox"]) == (100, [5, 5, 10, 10])
    assert run("connected_components", squares(), min_area=200)[1]["count"] == 1
    diagonal = np.zeros((4, 4), np.uint8)
    diagonal[0, 0] = diagonal[1, 1] = 255
    assert run("connected_components", diagonal, connectivity=8)[1]["count"] == 1
    assert run("connected_components", diagonal, connectivity=4)[1]["count"] == 2
    inverted = 255 - squares()
    assert run("connected_components", inverted, invert=True)[1]["count"] == 2


def test_features_find_the_square_corners():
    img = np.zeros((50, 50), np.uint8)
    img[10:40, 10:40] = 255
    _, n = run("features", img, method="shi_tomasi", max_features=4)
    corners = sorted((round(x), round(y)) for x, y in n["keypoints"])
    assert n["count"] == 4
    for (x, y), (ex, ey) in zip(corners, [(10, 10), (10, 39), (39, 10), (39, 39)]):
        assert abs(x - ex) <= 1 and abs(y - ey) <= 1
    big = np.zeros((120, 120), np.uint8)
    big[30:90, 30:90] = 255
    _, n = run("features", big, method="sift")  # SIFT finds blobs: the square itself
    assert n["count"] >= 1 and all(20 <= x <= 100 and 20 <= y <= 100 for x, y in n["keypoints"])
    out, n = run("features", big, method="harris")
    assert out.shape == (120, 120, 3) and n["count"] == 4
    # FAST and ORB fire on texture, not on right-angle corners: a smooth random texture, checked against the bare detectors
    texture = cv2.resize(np.random.default_rng(3).integers(0, 256, (30, 30)).astype(np.uint8), (120, 120), interpolation=cv2.INTER_CUBIC)
    assert run("features", texture, method="fast", max_features=5000)[1]["count"] == len(cv2.FastFeatureDetector_create().detect(texture, None)) > 10
    assert run("features", texture, method="orb")[1]["count"] == len(cv2.ORB_create(nfeatures=500).detect(texture, None)) > 10


def test_hough_lines_measure_length_and_angle():
    img = np.zeros((100, 150), np.uint8)
    cv2.line(img, (20, 50), (119, 50), 255, 1)
    _, n = run("hough_lines", img, threshold=30)
    best = n["lines"][0]
    assert abs(best["length"] - 99) <= 2 and best["angle"] == 0.0 and (best["y1"], best["y2"]) == (50, 50)
    img = np.zeros((150, 100), np.uint8)
    cv2.line(img, (50, 20), (50, 119), 255, 1)
    assert abs(run("hough_lines", img, threshold=30)[1]["lines"][0]["angle"] - 90) < 1


def test_hough_circles_find_a_circle():
    img = np.full((120, 120), 255, np.uint8)
    cv2.circle(img, (60, 55), 30, 0, 2)
    _, n = run("hough_circles", img, param2=30)
    c = n["circles"][0]
    assert abs(c["x"] - 60) <= 2 and abs(c["y"] - 55) <= 2 and abs(c["r"] - 30) <= 2


def test_template_match_locates_the_patch():
    img = np.random.default_rng(2).integers(0, 255, (40, 50)).astype(np.uint8)
    _, n = run("template_match", img, template_box=[12, 7, 10, 8])
    assert n["box"] == [12, 7, 10, 8] and n["score"] == pytest.approx(1.0, abs=1e-3)
    store = ImageStore()
    store.add(img)
    store.add(np.ascontiguousarray(img[20:30, 30:45]))
    assert call_tool(store, "template_match", {"template": "img_1"}).numbers["box"] == [30, 20, 15, 10]
    with pytest.raises(ToolError, match="exactly one"):
        call_tool(store, "template_match", {})


def test_dft_peak_is_the_stripe_frequency():
    x = np.arange(64)
    img = np.tile((127 + 100 * np.cos(2 * np.pi * 8 * x / 64)).astype(np.uint8), (64, 1))
    out, n = run("dft", img, peaks=1)
    assert out.shape == (64, 64) and (n["peaks"][0]["u"], n["peaks"][0]["v"]) == (8, 0)


# ------------------------------------------------------------------------------ drawing and shape measurement
def test_contours_report_area_and_perimeter_largest_first():
    _, n = run("contours", squares())
    assert n["count"] == 2
    big, small = n["contours"]
    assert (big["area"], big["perimeter"], big["bbox"]) == (361.0, 76.0, [40, 30, 20, 20])  # pixel centres: 19 × 19
    assert (small["area"], small["perimeter"]) == (81.0, 36.0)


def test_contour_area_and_arc_length_pick_by_index():
    _, n = run("contour_area", squares(), index=1)
    assert n["area"] == 81.0 and n["areas"] == [361.0, 81.0]
    assert run("arc_length", squares())[1]["length"] == 76.0
    with pytest.raises(ToolError, match="out of range"):
        run("contour_area", squares(), index=2)
    with pytest.raises(ToolError, match="no contours"):
        run("arc_length", np.zeros((5, 5), np.uint8))


def test_approx_poly_counts_vertices():
    tri = np.zeros((100, 100), np.uint8)
    cv2.fillPoly(tri, [np.array([[10, 90], [90, 90], [50, 10]], np.int32)], 255)
    _, n = run("approx_poly", tri)
    assert n["vertex_count"] == 3
    assert sorted(map(tuple, n["vertices"])) == [(10, 90), (50, 10), (90, 90)]
    assert run("approx_poly", squares())[1]["vertex_count"] == 4


def test_draw_line_reports_length_and_angle():
    out, n = run("draw_line", blank(50, 50), start=[0, 0], end=[30, 40], color=[0, 0, 255], thickness=1)
    assert n["length"] == 50.0 and n["angle"] == pytest.approx(126.87, abs=0.01)
    assert out[20, 15, 2] > 200 and out[20, 15, 0] == 0 and not out[5, 40].any()


def test_draw_circle_reports_size():
    out, n = run("draw_circle", blank(50, 50), center=[25, 25], radius=10, thickness=-1)
    assert n["area"] == pytest.approx(math.pi * 100, abs=0.01) and n["circumference"] == pytest.approx(20 * math.pi, abs=0.01)
    assert tuple(out[25, 25]) == (0, 255, 0) and tuple(out[0, 0]) == (0, 0, 0)
    with pytest.raises(ToolError, match="thickness"):
        run("draw_circle", blank(5, 5), center=[2, 2], radius=1, thickness=0)


def test_every_tool_is_covered_by_a_test_here():
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    missing = [name for name in TOOLS if f'"{name}"' not in source]
    assert not missing


def test_costly_jobs_are_refused_with_a_hint():
    big = np.zeros((1500, 1500, 3), np.uint8)
    with pytest.raises(ToolError, match="crop, resize or pyramid") as caught:
        run("denoise", big)
    assert caught.value.kind == "too_costly"
    with pytest.raises(ToolError, match="too much work"):
        run("grabcut", big)
    with pytest.raises(ToolError, match="at most"):
        run("resize", blank(10, 10), width=4000, height=4000)
