"""Issue 14, class 7: loose task and image paths. A hostile task file (VTCBench problem, TSV suite,
MMToolSandbox scenario) is loaded through ``env.reset(options={"task": ...})`` or the env's suite, and
must be refused with an error naming its field, before anything outside the allowed roots (the registry,
and an ``image_root=`` the user opted in) is opened; absurd generator parameters are refused, not ignored;
the env then runs a benign task as before.

"Before anything is opened" is proven with FIFOs: opening one for reading blocks until a writer comes, so
a loader that tried the path would hang the test instead of refusing it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from mmenvs.toolsandbox.env import MMToolSandboxEnv
from mmenvs.toolsandbox.scenario import shipped_scenario_paths
from mmenvs.vtc.env import VTCBenchEnv

#: A refusal is a path check, not I/O: generous for a loaded machine, far below a hang.
QUICK = 20.0


@pytest.fixture(scope="module")
def vtc() -> VTCBenchEnv:
    env = VTCBenchEnv()
    yield env
    env.close()


def vtc_task(**fields: Any) -> dict[str, Any]:
    return {"id": "t", "category": "math", "question": "q?", "answer": "A", "choices": ["1", "2"], **fields}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "trap.png"
    path.parent.mkdir()
    os.mkfifo(path)
    return path


def refused(env: Any, task: Any, *fragments: str) -> str:
    started = time.monotonic()
    with pytest.raises(ValueError) as caught:
        env.reset(options={"task": task})
    assert time.monotonic() - started < QUICK
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)
    return str(caught.value)


def assert_benign_vtc_reset_works(env: VTCBenchEnv) -> None:
    _, info = env.reset(options={"task_id": env.task_ids()[0]})
    _, _, _, _, info = env.step({"name": "colorspace", "arguments": {"image": "img_0", "target": "gray"}})
    assert info["action_error"] is None


# ---------------------------------------------------------------------------------------- VTCBench problems
@pytest.mark.parametrize("path", ["../../../../etc/passwd", "vtc/../../../etc/passwd", "/etc/passwd", "/proc/self/environ"])
def test_vtc_image_paths_outside_the_registry_are_refused(vtc: VTCBenchEnv, path: str) -> None:
    refused(vtc, vtc_task(image_path=path), "field 'image_path'")
    assert_benign_vtc_reset_works(vtc)


def test_vtc_image_path_is_refused_before_it_is_opened(vtc: VTCBenchEnv, fifo: Path) -> None:
    refused(vtc, vtc_task(image_path=str(fifo)), "field 'image_path'", "outside the allowed image folders", "image_root")
    env = VTCBenchEnv(image_root=str(fifo.parent))  # opted in: the path is allowed, but a FIFO is not a regular file
    try:
        refused(env, vtc_task(image_path=str(fifo)), "field 'image_path'", "not a regular file")
    finally:
        env.close()


def test_vtc_image_root_opts_a_folder_in_and_symlinks_out_of_it_are_refused(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    Image.fromarray(np.full((20, 30, 3), 77, np.uint8)).save(mine / "ok.png")
    (mine / "link.png").symlink_to("/etc/passwd")
    env = VTCBenchEnv(image_root=str(mine))
    try:
        obs, _ = env.reset(options={"task": vtc_task(image_path="ok.png")})  # relative to image_root
        assert env.unwrapped.images.get("img_0").shape == (20, 30, 3)
        refused(env, vtc_task(image_path=str(mine / "link.png")), "field 'image_path'", "outside")
        refused(env, vtc_task(image_path="link.png"), "field 'image_path'", "outside")
        refused(env, vtc_task(image_path="../mine/ok.png"), "field 'image_path'", "'..'")
    finally:
        env.close()


@pytest.mark.parametrize(("fields", "fragments"), [
    ({"params": {"width": 1e9}}, ("field 'params'", "'width'")),
    ({"params": {"height": -5}}, ("field 'params'", "'height'")),
    ({"params": {"variant": "bogus"}}, ("field 'params'.variant", "noise")),
    ({"params": {"attempt": 10**9}}, ("field 'params'.attempt",)),
    ({"params": "big"}, ("field 'params'", "object")),
    ({"seed": -5}, ("field 'seed'",)),
    ({"seed": 2**70}, ("field 'seed'",)),
    ({"seed": "1"}, ("field 'seed'",)),
    ({"generator": "ocr", "image_path": "vtc/suite.jsonl"}, ("not both",)),
    ({"width": 1e9}, ("unknown field", "'width'")),
])
def test_vtc_absurd_generator_parameters_name_their_field(vtc: VTCBenchEnv, fields: dict, fragments: tuple[str, ...]) -> None:
    task = {"id": "g", "category": "ocr", "question": "What does it say?", "answer": "AB", "generator": "ocr", "seed": 1, **fields}
    refused(vtc, task, *fragments)
    assert_benign_vtc_reset_works(vtc)


def test_vtc_a_valid_generated_task_still_loads(vtc: VTCBenchEnv) -> None:
    task = {"id": "g", "category": "ocr", "question": "What does it say?", "answer": "AB", "generator": "ocr", "seed": 1,
            "params": {"variant": "blur"}}
    vtc.reset(options={"task": task})
    assert vtc.unwrapped.images.get("img_0").shape == (110, 360, 3)


def test_vtc_task_file_with_a_traversal_path_names_the_file_and_field(vtc: VTCBenchEnv, tmp_path: Path) -> None:
    task_file = tmp_path / "task.json"
    task_file.write_text(json.dumps(vtc_task(image_path="../../../../etc/passwd")))
    message = refused(vtc, str(task_file), "field 'image_path'", "'..'")
    assert str(task_file) in message


def test_vtc_tsv_image_cells_stay_inside_image_dir(tmp_path: Path, fifo: Path) -> None:
    images = tmp_path / "images"
    images.mkdir()
    header = "index\tid\tcategory\timage\tquestion\tanswer\tA\tB\n"
    for cell in ("../outside/trap.png", str(fifo)):
        suite = tmp_path / "s.tsv"
        suite.write_text(header + f"0\tx\tmath\t{cell}\tq?\tA\t1\t2\n")
        started = time.monotonic()
        with pytest.raises(ValueError, match=r"row 2, column 'image'"):
            VTCBenchEnv(suite=str(suite), image_dir=str(images))
        assert time.monotonic() - started < QUICK


# ---------------------------------------------------------------------------------------- MMToolSandbox scenarios
@pytest.fixture(scope="module")
def sandbox_env() -> MMToolSandboxEnv:
    env = MMToolSandboxEnv(mode="tool")
    yield env
    env.close()


def scenario_with(image: Any) -> dict[str, Any]:
    data = json.loads(shipped_scenario_paths()["contacts_business_card"].read_text())
    key = next(iter(data["images"]))
    data["images"][key] = image
    return data


def assert_benign_toolsandbox_reset_works(env: MMToolSandboxEnv) -> None:
    env.reset(options={"task_id": "contacts_business_card"})
    _, _, _, _, info = env.step({"name": "search_tools", "arguments": {"query": "contact"}})
    assert info["action_error"] is None


@pytest.mark.parametrize("image", ["../../../../etc/passwd", {"path": "toolsandbox/../../../etc/passwd"}, "/etc/passwd",
                                   {"path": "/proc/self/environ"}])
def test_toolsandbox_image_paths_outside_the_registry_are_refused(sandbox_env: MMToolSandboxEnv, image: Any) -> None:
    refused(sandbox_env, scenario_with(image), "field 'images.")
    assert_benign_toolsandbox_reset_works(sandbox_env)


def test_toolsandbox_image_path_is_refused_before_it_is_opened(sandbox_env: MMToolSandboxEnv, fifo: Path) -> None:
    refused(sandbox_env, scenario_with(str(fifo)), "field 'images.", "outside the allowed image folders")
    env = MMToolSandboxEnv(mode="tool", image_root=str(fifo.parent))
    try:
        refused(env, scenario_with(str(fifo)), "not a regular file")
        picture = fifo.parent / "card.png"
        Image.fromarray(np.full((32, 64, 3), 9, np.uint8)).save(picture)
        env.reset(options={"task": scenario_with(str(picture))})  # opted in
        assert env.unwrapped.images.get("img_0").shape == (32, 64, 3)
    finally:
        env.close()


@pytest.mark.parametrize(("spec", "fragment"), [
    ({"generator": "rendered", "kind": "receipt", "seed": -5, "facts": {}}, ".seed"),
    ({"generator": "rendered", "kind": "receipt", "seed": 1, "difficulty": 1e9, "facts": {}}, ".difficulty"),
    ({"generator": "rendered", "kind": "receipt", "seed": 1, "facts": {}, "width": 1e9}, "'width'"),
])
def test_toolsandbox_absurd_rendered_specs_name_their_field(sandbox_env: MMToolSandboxEnv, spec: dict, fragment: str) -> None:
    refused(sandbox_env, scenario_with(spec), "field 'images.", fragment)
    assert_benign_toolsandbox_reset_works(sandbox_env)
