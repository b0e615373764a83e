"""Issue 14, classes 3 and 4 for the host side of VTCBench and MMToolSandbox and the env core: every
attack goes through ``env.step`` as an agent would send it, and must end with a clear error that names
the budget limit (or the deadline), keep host memory within a bound, end within the deadline plus a
margin, and leave the episode usable (the next benign step works).

Bounds are generous (a loaded 2-core machine): memory within a couple of hundred MB where the
unbounded attack took gigabytes, time within the deadline plus tens of seconds where it took minutes.
"""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from PIL import Image

from mmenvs.core.actions import json_size
from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.vtc.env import VTCBenchEnv

MiB = 2**20
#: Host memory an attack may leave behind (the unbounded versions grew the host by 1.6-4.4 GiB).
MEMORY_BOUND = 300 * MiB
#: Time beyond a deadline a step may take to end (process kills, a busy machine).
TIME_MARGIN = 30.0
BENIGN_VTC = {"name": "crop", "arguments": {"image": "img_0", "box": [0, 0, 8, 8]}}  # fits even a full store


def rss() -> int:
    gc.collect()
    return psutil.Process().memory_info().rss


def assert_refused(info: dict, limit: str) -> None:
    assert info["action_error"] is not None and limit in info["action_error"], info["action_error"]


def assert_benign_vtc_step_works(env: VTCBenchEnv) -> None:
    _, _, terminated, truncated, info = env.step(BENIGN_VTC)
    assert info["action_error"] is None and not terminated and not truncated
    assert info["images"] and info["images"][0] in env.unwrapped.images


@pytest.fixture
def vtc() -> VTCBenchEnv:
    env = VTCBenchEnv(budget={"image_store_pixels": 2_000_000}, max_steps=200)
    env.reset(options={"task_id": env.task_ids()[0]})
    yield env
    env.close()


@pytest.fixture(scope="module")
def vtc_code() -> VTCBenchEnv:
    env = VTCBenchEnv(mode="code", budget={"image_pixels": 1_000_000, "image_store_pixels": 3_000_000}, max_steps=200,
                      sandbox_options={"timeout": 20.0})
    yield env
    env.close()


def noise_task(tmp_path: Path, side: int) -> dict:
    """An inline problem whose image is noise (what makes hough_circles and contours slow), opted in via image_root."""
    path = tmp_path / "noise.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (side, side, 3), dtype=np.uint8)).save(path)
    return {"id": "noise", "category": "counting", "question": "How many?", "answer": "3", "image_path": str(path)}


# ---------------------------------------------------------------------------------------- image budgets
def test_chained_rotations_stop_at_the_store_budget(vtc: VTCBenchEnv) -> None:
    before = rss()
    latest, refused = "img_0", None
    for _ in range(60):  # each 45° turn grows both sides by 1.41: unbounded, this reached +4.4 GiB
        _, _, _, _, info = vtc.step({"name": "rotate", "arguments": {"image": latest, "angle": 45}})
        if info["action_error"]:
            refused = info
            break
        latest = info["images"][0]
    assert refused is not None, "60 chained rotations were all accepted"
    assert "image_store_pixels" in refused["action_error"] or "at most" in refused["action_error"]
    store = vtc.unwrapped.images
    assert store.held_pixels() <= store.budget.image_store_pixels
    assert rss() - before < MEMORY_BOUND
    assert_benign_vtc_step_works(vtc)


def test_a_growing_tool_is_refused_from_its_parameters_before_allocating(vtc: VTCBenchEnv) -> None:
    store = vtc.unwrapped.images
    held = store.held_pixels()
    _, _, _, _, info = vtc.step({"name": "resize", "arguments": {"image": "img_0", "width": 2048, "height": 2048}})
    assert_refused(info, "image_store_pixels=2,000,000")  # 4.2 MP > the 2 MP the store may hold
    assert info["images"] == [] and store.held_pixels() == held
    log = info["tool_calls"][-1]
    assert log["tool"] == "resize" and log["ok"] is False and "image_store_pixels" in log["error"]
    assert_benign_vtc_step_works(vtc)


def test_save_image_refuses_an_array_over_the_image_budget(vtc_code: VTCBenchEnv) -> None:
    vtc_code.reset(options={"task_id": vtc_code.task_ids()[0]})
    before = rss()
    code = ("ids = []\nfor i in range(12):\n    try:\n        ids.append(save_image(np.zeros((2000, 2000, 3), np.uint8)))\n"
            "    except ValueError as e:\n        print('refused:', e)\n        break\nprint(len(ids))")
    obs, _, _, _, info = vtc_code.step(f"```python\n{code}\n```")
    assert "refused:" in obs["text"] and "image_pixels=1,000,000" in obs["text"]  # 4 MP > 1 MP per image
    assert len(vtc_code.unwrapped.images) == 1
    code = ("ids = []\nfor i in range(12):\n    try:\n        ids.append(save_image(np.zeros((900, 1000, 3), np.uint8)))\n"
            "    except ValueError as e:\n        print('refused:', e)\n        break\nprint(len(ids))")
    obs, _, _, _, info = vtc_code.step(f"```python\n{code}\n```")
    assert "image_store_pixels=3,000,000" in obs["text"]  # 12 x 0.9 MP would not fit the store
    store = vtc_code.unwrapped.images
    assert store.held_pixels() <= 3_000_000 and len(store) < 12
    assert rss() - before < MEMORY_BOUND
    obs, _, _, _, info = vtc_code.step("```python\nprint(colorspace(image='img_0', target='gray')['image'])\n```")
    assert info["action_error"] is None and "img_" in obs["text"]


# ---------------------------------------------------------------------------------------- action, argument and log sizes
def test_an_action_over_the_budget_is_refused_before_parsing(vtc: VTCBenchEnv) -> None:
    huge = json.dumps({"name": "crop", "arguments": {"image": "img_0", "box": [0, 0, 1, 1], "x": "9" * (2 * MiB)}})
    started = time.monotonic()
    _, _, terminated, _, info = vtc.step(huge)
    assert time.monotonic() - started < TIME_MARGIN
    assert_refused(info, "action_chars")
    assert info["action_error_kind"] == "budget_exceeded" and not terminated
    _, _, _, _, info = vtc.step({"name": "crop", "arguments": {"image": "img_0", "x": "y" * (2 * MiB)}})  # a dict action too
    assert_refused(info, "action_chars")
    assert_benign_vtc_step_works(vtc)


def test_a_huge_tool_argument_is_refused_and_never_logged_whole() -> None:
    env = VTCBenchEnv(budget={"tool_argument_chars": 10_000})
    try:
        env.reset(options={"task_id": env.task_ids()[0]})
        _, _, _, _, info = env.step({"name": "threshold", "arguments": {"image": "img_0", "method": "m" * 500_000}})
        assert_refused(info, "tool_argument_chars=10,000")
        assert "'method'" in info["action_error"]
        assert json_size(info["tool_calls"]) < 20_000  # the call log keeps a clipped copy (unbounded: +4.2 GiB)
        assert_benign_vtc_step_works(env)
    finally:
        env.close()


def test_failed_calls_with_large_arguments_are_logged_clipped(vtc: VTCBenchEnv) -> None:
    for _ in range(30):  # 30 calls with a 600 KB argument each: the log must not keep 18 MB
        _, _, _, _, info = vtc.step({"name": "threshold", "arguments": {"image": "img_0", "method": "m" * 600_000}})
        assert info["action_error"] is not None and "must be one of" in info["action_error"]
        assert len(info["action_error"]) < 2_000  # the error shows the value cut, not the megabyte
    assert json_size(info["tool_calls"]) < 200_000


def test_toolsandbox_label_argument_and_action_log_budgets() -> None:
    env = MMToolSandboxEnv(mode="tool", max_steps=50, pinned_tools=("draw_bbox",))
    try:
        env.reset(options={"task_id": "contacts_business_card"})
        before = rss()
        started = time.monotonic()
        call = {"name": "draw_bbox", "arguments": {"image_id": "img_0", "bbox": [0, 0, 500, 500], "label": "W" * 1_000_000}}
        _, _, _, _, info = env.step(call)  # unbounded: > 75 s drawing a 1 MB label on the host
        assert time.monotonic() - started < TIME_MARGIN
        assert "MAX_LABEL_CHARS" in info["action_error"]
        _, _, _, _, info = env.step({**call, "arguments": {**call["arguments"], "label": "W" * (2 * MiB)}})
        assert_refused(info, "action_chars")
        assert json_size(env.agent_actions) < 50_000 and rss() - before < MEMORY_BOUND
        _, _, _, _, info = env.step({**call, "arguments": {**call["arguments"], "label": "total"}})
        assert info["action_error"] is None and info["images"]
    finally:
        env.close()


def test_toolsandbox_rotations_stop_at_the_store_budget() -> None:
    env = MMToolSandboxEnv(mode="tool", max_steps=100, pinned_tools=("rotate_image", "get_image_size"), budget={"image_store_pixels": 4_000_000})
    try:
        env.reset(options={"task_id": "contacts_business_card"})
        latest, error = "img_0", None
        for _ in range(40):
            _, _, _, _, info = env.step({"name": "rotate_image", "arguments": {"image_id": latest, "angle": 45}})
            if info["action_error"]:
                error = info["action_error"]
                break
            latest = json.loads(env.agent_actions[-1]["result"])["image_id"]
        assert error is not None and "image_store_pixels" in error
        assert env.unwrapped.images.held_pixels() <= 4_000_000
        _, _, _, _, info = env.step({"name": "get_image_size", "arguments": {"image_id": "img_0"}})
        assert info["action_error"] is None
    finally:
        env.close()


def test_toolsandbox_code_mode_log_is_clipped() -> None:
    env = MMToolSandboxEnv(mode="code", max_steps=50, pinned_tools=("draw_bbox", "get_image_size"))
    try:
        env.reset(options={"task_id": "contacts_business_card"})
        code = "for i in range(3):\n    try:\n        draw_bbox('img_0', [0, 0, 500, 500], label='W' * 900_000)\n    except Exception as e:\n        print(str(e)[:200])"
        started = time.monotonic()
        obs, _, _, _, info = env.step(f"```python\n{code}\n```")
        assert time.monotonic() - started < 10.0 + TIME_MARGIN
        assert "MAX_LABEL_CHARS" in obs["text"]
        assert json_size(env.agent_actions) < 100_000  # three 900 KB arguments, logged cut
        obs, _, _, _, info = env.step("```python\nprint(get_image_size('img_0'))\n```")
        assert info["action_error"] is None and "width" in obs["text"]
    finally:
        env.close()


# ---------------------------------------------------------------------------------------- deadlines
def test_hough_circles_on_noise_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    env = VTCBenchEnv(image_root=str(tmp_path), budget={"action_timeout": 2.0})
    try:
        env.reset(options={"task": noise_task(tmp_path, 512)})
        started = time.monotonic()
        _, _, _, _, info = env.step({"name": "hough_circles", "arguments": {"image": "img_0", "dp": 1.0, "min_dist": 1,
                                                                           "param1": 1, "param2": 1}})
        assert time.monotonic() - started < 2.0 + TIME_MARGIN  # unbounded: minutes
        assert_refused(info, "action_timeout=2")
        assert info["action_error_kind"] == "deadline_exceeded"
        assert_benign_vtc_step_works(env)
    finally:
        env.close()


def test_contours_of_noise_stop_at_the_deadline(tmp_path: Path) -> None:
    env = VTCBenchEnv(image_root=str(tmp_path), budget={"action_timeout": 0.5})
    try:
        env.reset(options={"task": noise_task(tmp_path, 1400)})
        started = time.monotonic()
        _, _, _, _, info = env.step({"name": "contours", "arguments": {"image": "img_0", "mode": "list"}})
        assert time.monotonic() - started < 0.5 + TIME_MARGIN
        assert_refused(info, "action_timeout=0.5")
        assert_benign_vtc_step_works(env)
    finally:
        env.close()


def test_morphology_at_its_parameter_maxima_is_refused_up_front(tmp_path: Path) -> None:
    env = VTCBenchEnv(image_root=str(tmp_path))
    try:
        env.reset(options={"task": noise_task(tmp_path, 2000)})
        started = time.monotonic()
        _, _, _, _, info = env.step({"name": "morphology", "arguments": {"image": "img_0", "operation": "gradient", "kernel_size": 51,
                                                                        "iterations": 20, "shape": "ellipse"}})
        assert time.monotonic() - started < TIME_MARGIN  # unbounded: 12 s at 2048², more on a busy machine
        assert info["action_error_kind"] == "too_costly" and "too much work" in info["action_error"]
        assert_benign_vtc_step_works(env)
    finally:
        env.close()


def test_code_calling_tools_in_a_loop_stops_at_the_deadline() -> None:
    env = VTCBenchEnv(mode="code", sandbox_options={"timeout": 3.0}, budget={"image_store_pixels": 3_000_000})
    try:
        env.reset(options={"task_id": env.task_ids()[0]})
        # Calls refused by the full store are caught, so only the deadline (host tools share the sandbox's) ends the loop.
        code = ("while True:\n    try:\n        flip(image='img_0')\n    except ValueError as e:\n"
                "        if 'deadline' in str(e):\n            raise")
        started = time.monotonic()
        obs, _, _, _, info = env.step(f"```python\n{code}\n```")
        assert time.monotonic() - started < 3.0 + TIME_MARGIN
        assert "action_timeout=3" in obs["text"] or "longer than 3 s" in obs["text"], obs["text"][-500:]
        assert json_size(info["tool_calls"]) <= env.unwrapped.budget.logged_chars + 10_000
        obs, _, _, _, info = env.step("```python\nprint(crop(image='img_0', box=[0, 0, 4, 4])['image'])\n```")
        assert info["action_error"] is None and "img_" in obs["text"]
    finally:
        env.close()


def test_a_runs_call_records_keep_clipped_arguments() -> None:
    from mmenvs.sandbox import PythonSandbox

    with PythonSandbox(tools={"measure": lambda text, **extra: len(text)}) as sandbox:
        result = sandbox.run("print([measure('a' * 500_000, note='b' * 500_000) for _ in range(3)])")
    assert "500000" in result.text and len(result.tool_calls) == 3
    assert json_size(result.tool_calls) < 20_000  # unclipped, three calls would keep 3 MB until the run ends
    assert "498,000 more characters not logged" in result.tool_calls[0]["args"][0]


def test_toolsandbox_storage_stops_at_home_bytes_and_replacements_are_sized_first() -> None:
    tools = ("notes_append_to_note", "notes_duplicate_note", "notes_replace_in_note", "notes_list_tags")
    env = MMToolSandboxEnv(mode="tool", max_steps=100, pinned_tools=tools, budget={"home_bytes": 8 * MiB})
    try:
        env.reset(options={"task_id": "notes_whiteboard_cleanup"})
        world = env.unwrapped.world
        error = None
        for _ in range(40):  # 600 KB a call, then copies of the note: the phone's storage is host memory
            _, _, _, _, info = env.step({"name": "notes_append_to_note", "arguments": {"note_id": 1, "text": "n" * 600_000}})
            if info["action_error"] is None:
                _, _, _, _, info = env.step({"name": "notes_duplicate_note", "arguments": {"note_id": 1}})
            if info["action_error"]:
                error = info["action_error"]
                break
        assert error is not None and "home_bytes=8,388,608" in error and "undone" in error
        pages = world.conn.execute("PRAGMA page_count").fetchone()[0] * world.conn.execute("PRAGMA page_size").fetchone()[0]
        assert pages <= 8 * MiB
        started = time.monotonic()  # one 'n' -> 1000 characters in a 600 KB note would be 600 MB
        _, _, _, _, info = env.step({"name": "notes_replace_in_note", "arguments": {"note_id": 1, "old_text": "n", "new_text": "m" * 1000}})
        assert time.monotonic() - started < TIME_MARGIN
        assert "tool_argument_chars" in info["action_error"]
        _, _, _, _, info = env.step({"name": "notes_list_tags", "arguments": {}})
        assert info["action_error"] is None
    finally:
        env.close()


def test_toolsandbox_search_queries_are_bounded() -> None:
    env = MMToolSandboxEnv(mode="tool")
    try:
        env.reset(options={"task_id": "contacts_business_card"})
        started = time.monotonic()  # unbounded: a 900 KB query ranked for > 10 s on the host
        _, _, _, _, info = env.step({"name": "search_tools", "arguments": {"query": "contact " * 110_000}})
        assert time.monotonic() - started < TIME_MARGIN
        assert "MAX_QUERY_CHARS" in info["action_error"]
        _, _, _, _, info = env.step({"name": "search_tools", "arguments": {"query": "create contact"}})
        assert info["action_error"] is None
    finally:
        env.close()


def test_sandboxed_code_and_host_tools_share_the_budget_deadline() -> None:
    for env in (VTCBenchEnv(mode="code", budget={"action_timeout": 4.0}), MMToolSandboxEnv(mode="code", budget={"action_timeout": 4.0})):
        try:
            assert env.host_deadline().seconds == 4.0 and env.sandbox.timeout == 4.0
        finally:
            env.close()
    env = VTCBenchEnv(mode="code", budget={"action_timeout": 4.0}, sandbox_options={"timeout": 6.0})
    try:  # an explicit sandbox timeout is the deadline of both
        assert env.host_deadline().seconds == 6.0 and env.sandbox.timeout == 6.0
    finally:
        env.close()
