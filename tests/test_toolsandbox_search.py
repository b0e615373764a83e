"""MMToolSandbox tool search (ranking, paging, LRU working set, pinned tools) and visual tools."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from mmenvs.core import ImageStore
from mmenvs.toolsandbox import toolset_tools
from mmenvs.toolsandbox.search import ToolSearch
from mmenvs.toolsandbox.tools import make_tool
from mmenvs.toolsandbox.world import ToolError, World, empty_template


def _tool(name: str, app: str, doc: str):
    def fn(world: World) -> None:
        return None

    fn.__doc__ = doc
    return make_tool(fn, app, name=name)


def small_index() -> dict:
    tools = [
        _tool("send_message", "messages", "Send a text message."),
        _tool("email_send_email", "email", "Send an email with a message body."),
        _tool("calendar_create_event", "calendar", "Create a calendar event."),
        _tool("notes_create_note", "notes", "Create a note; can hold a message."),
    ]
    return {t.name: t for t in tools}


def test_keyword_scores_follow_name_app_description_weights() -> None:
    search = ToolSearch(small_index())
    ranked = dict((name, score) for score, name in search.rank("send message"))
    # send_message: "send" in name (+2) and description (+1); "message" in name (+2), app "messages" (+1.5), description (+1)
    assert ranked["send_message"] == pytest.approx(7.5)
    # email_send_email: 'send' name+description (3), 'message' in description (1)
    assert ranked["email_send_email"] == pytest.approx(4.0)
    assert ranked["notes_create_note"] == pytest.approx(1.0)
    assert "calendar_create_event" not in ranked
    assert [name for _, name in search.rank("send message")][:2] == ["send_message", "email_send_email"]


def test_search_pages_and_admits_results() -> None:
    search = ToolSearch(toolset_tools("full"), pinned=["search_tools"])
    first = search.search("calendar event", page=0)
    second = search.search("calendar event", page=1)
    assert len(first["results"]) == 5 and first["total"] > 10 and first["pages"] == -(-first["total"] // 5)
    assert not {r["name"] for r in first["results"]} & {r["name"] for r in second["results"]}
    assert all(r["name"] in search.working for r in first["results"] + second["results"])
    assert search.surfaced[:5] == [r["name"] for r in first["results"]]
    with pytest.raises(ToolError, match="at least one word"):
        search.search("  !! ")


def test_working_set_lru_eviction_and_pinned_tools() -> None:
    tools = toolset_tools("full")
    names = list(tools)
    search = ToolSearch(tools, pinned=[names[0]], capacity=3)
    for name in names[1:3]:
        search._admit(name)
    search.require(names[1])  # refresh: names[2] is now least recently used
    search._admit(names[3])
    assert list(search.working) == [names[0], names[1], names[3]]
    search._admit(names[4])
    assert names[0] in search.working and names[1] not in search.working  # pinned survives, LRU leaves
    with pytest.raises(ToolError, match="not in your working set"):
        search.require(names[1])
    with pytest.raises(ToolError, match="no tool named 'teleport_user'"):
        search.require("teleport_user")
    assert search.invoked == [names[1]]


@pytest.fixture()
def world() -> World:
    images = ImageStore()
    pixels = np.zeros((100, 200, 3), dtype=np.uint8)
    pixels[:, 100:] = 255
    images.add(pixels)
    w = World.from_template(empty_template(), datetime(2025, 1, 1, 12), images)
    w.visible.add("img_0")
    yield w
    w.close()


def run(world: World, name: str, **arguments):
    return toolset_tools("full")[name].invoke(world, arguments)


def test_crop_uses_normalised_boxes_and_keeps_originals(world: World) -> None:
    original = world.images.get("img_0").copy()
    out = run(world, "crop_image", image_id="img_0", bbox=[500, 0, 1000, 500])
    assert out == {"image_id": "img_1", "width": 100, "height": 50}
    assert (world.images.get("img_1") == 255).all()
    assert world.images.parents("img_1") == ("img_0",) and world.images.record("img_1").op == "crop"
    assert np.array_equal(world.images.get("img_0"), original) and "img_1" in world.visible


def test_draw_resize_rotate_enhance_size(world: World) -> None:
    boxed = run(world, "draw_bbox", image_id="img_0", bbox=[100, 100, 400, 900], color="red")
    pixels = world.images.get(boxed["image_id"])
    assert tuple(pixels[10, 20]) == (230, 30, 30) and tuple(world.images.get("img_0")[10, 20]) == (0, 0, 0)
    assert run(world, "resize_image", image_id="img_0", width=100) == {"image_id": "img_2", "width": 100, "height": 50}
    rotated = run(world, "rotate_image", image_id="img_0", angle=90)
    assert (rotated["width"], rotated["height"]) == (100, 200)
    enhanced = run(world, "enhance_image", image_id="img_0")
    assert run(world, "get_image_size", image_id=enhanced["image_id"]) == {"width": 200, "height": 100}


def test_view_show_save_and_plot(world: World) -> None:
    assert run(world, "view_image", image_id="img_0")["shown"] is True and world.viewed == ["img_0"]
    run(world, "show_image_to_user", image_id="img_0", message="here")
    assert world.shown_to_user == [{"image_id": "img_0", "message": "here"}]
    assert run(world, "save_image", image_id="img_0")["path"] == "/tmp/images/img_0.png"
    chart = run(world, "plot", kind="bar", x=["a", "b"], y=[3, 5], title="t")
    assert world.images.get(chart["image_id"]).shape == (400, 600, 3)
    with pytest.raises(ToolError, match="equal length"):
        run(world, "plot", kind="line", x=[1, 2], y=[1])


def test_visual_tools_refuse_unshared_and_bad_boxes(world: World) -> None:
    world.images.add(np.zeros((10, 10, 3), dtype=np.uint8))  # exists but the user has not sent it
    with pytest.raises(ToolError, match="has not been shared"):
        run(world, "crop_image", image_id="img_1", bbox=[0, 0, 500, 500])
    with pytest.raises(ToolError, match="x1 < x2"):
        run(world, "crop_image", image_id="img_0", bbox=[600, 0, 500, 500])
    with pytest.raises(ToolError, match="ids look like"):
        run(world, "view_image", image_id="photo.png")
    assert len(world.images) == 2  # failed calls made no image
