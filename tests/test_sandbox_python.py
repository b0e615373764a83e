"""PythonSandbox behaviour: state, values, errors, tools and arrays, limits, modes, wire format."""

from __future__ import annotations

import json
import os
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest
from _wait import is_running, wait_until

from mmenvs.sandbox import (
    DEFAULT_ALLOWED_IMPORTS,
    PythonSandbox,
    RunResult,
    SandboxUnavailable,
    SandboxWarning,
)
from mmenvs.sandbox import _worker as wire
from mmenvs.sandbox import isolation as iso
from mmenvs.sandbox.isolation import find_bwrap, probe_bwrap

_flags, _reason = probe_bwrap(find_bwrap())
requires_bwrap = pytest.mark.skipif(_flags is None, reason=f"bubblewrap unusable here: {_reason}")
MODES = [pytest.param("strict", marks=requires_bwrap), "rlimit-only"]


class ImageTools:
    """A stand-in for VTCBench's code-mode tools: images by id, new ids for saved arrays."""

    def __init__(self) -> None:
        self.images = {"img_0": np.arange(2 * 4 * 3, dtype=np.uint8).reshape(2, 4, 3)}
        self.parents: dict[str, list[str]] = {}

    def load_image(self, image_id: str) -> np.ndarray:
        if image_id not in self.images:
            raise KeyError(f"no image {image_id!r}; known: {sorted(self.images)}")
        return self.images[image_id]

    def save_image(self, arr: np.ndarray, parents: list[str] = ()) -> str:
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"save_image needs an array, got {type(arr).__name__}")
        new = f"img_{len(self.images)}"
        self.images[new] = arr
        self.parents[new] = list(parents)
        return new

    def tools(self) -> dict:
        return {"load_image": self.load_image, "save_image": self.save_image}


@pytest.fixture(params=MODES)
def sb(request: pytest.FixtureRequest) -> PythonSandbox:
    box = PythonSandbox(isolation=request.param, timeout=5)
    yield box
    box.close()


def test_state_persists_and_trailing_value_is_returned(sb: PythonSandbox) -> None:
    assert sb.run("x = 20\ny = x + 1").value is None
    res = sb.run("print('hello', x)\nx * 2 + y")
    assert res.stdout == "hello 20\n" and res.value == "61"
    assert res.error is None and res.ok
    assert res.text == "hello 20\n61"
    assert sb.run("import math\nmath.sqrt(16)").value == "4.0"
    assert sb.run("math.pi > 3").value == "True"
    assert sb.run("None").value is None and sb.run("None").text == "(no output)"


def test_errors_show_only_agent_frames(sb: PythonSandbox) -> None:
    sb.run("def inner(d):\n    return d['missing']\n")
    res = sb.run("def outer():\n    return inner({})\nouter()")
    assert res.error_kind == "exception"
    assert 'File "<cell 2>", line 3, in <module>' in res.error
    assert "return d['missing']" in res.error
    assert res.error.rstrip().endswith("KeyError: 'missing'")
    assert "_worker" not in res.error and "mmenvs" not in res.error
    syn = sb.run("def broken(:\n  pass")
    assert syn.error_kind == "syntax" and "SyntaxError" in syn.error
    assert sb.run("1 + 1").value == "2"


def test_policy_error_lists_allowed_imports_and_tools() -> None:
    tools = ImageTools()
    with PythonSandbox(tools=tools.tools(), isolation="rlimit-only") as sb:
        res = sb.run("import shutil\nshutil.rmtree('/')")
        assert res.error_kind == "policy"
        assert "line 1: `import shutil` is not allowed" in res.error
        assert "numpy" in res.error and "load_image, save_image" in res.error


@pytest.mark.parametrize("mode", MODES)
def test_tools_carry_json_and_numpy_arrays_both_ways(mode: str) -> None:
    t = ImageTools()
    with PythonSandbox(tools=t.tools(), isolation=mode) as box:
        res = box.run("import numpy as np\n"
                      "img = load_image('img_0')\n"
                      "img[0, 0, 0] = 200  # arrays arrive writable\n"
                      "new_id = save_image((img.astype(np.float32) / 2), parents=['img_0'])\n"
                      "(new_id, img.dtype.name, img.shape)")
        assert res.error is None, res.text
        assert res.value == "('img_1', 'uint8', (2, 4, 3))"
        saved = t.images["img_1"]
        assert saved.dtype == np.float32 and saved.shape == (2, 4, 3)
        assert saved[0, 0, 0] == 100.0 and saved[1, 3, 2] == 11.5
        assert t.parents["img_1"] == ["img_0"]
        assert t.images["img_0"][0, 0, 0] == 0  # the original never changes
        assert [c["name"] for c in res.tool_calls] == ["load_image", "save_image"]
        assert all(c["ok"] for c in res.tool_calls)
        assert res.tool_calls[1]["kwargs"] == {"parents": ["img_0"]}


def test_tool_errors_become_catchable_exceptions() -> None:
    t = ImageTools()

    def weird(x):
        raise LookupError("custom failure")

    class MyError(Exception):
        pass

    def custom():
        raise MyError("not a builtin type")

    with PythonSandbox(tools={**t.tools(), "weird": weird, "custom": custom}, isolation="rlimit-only") as sb:
        res = sb.run("try:\n    load_image('img_9')\nexcept KeyError as e:\n    print('caught:', e)")
        assert res.stdout.startswith("caught: ") and "no image 'img_9'; known: ['img_0']" in res.stdout
        res = sb.run("weird(1)")
        assert res.error.rstrip().endswith("LookupError: custom failure")
        res = sb.run("try:\n    custom()\nexcept ToolError as e:\n    print('tool error:', e)")
        assert res.stdout == "tool error: MyError: not a builtin type\n"
        assert res.tool_calls == [{"name": "custom", "args": [], "kwargs": {}, "ok": False,
                                   "error": "MyError: not a builtin type"}]
        res = sb.run("save_image({1, 2})")
        assert "cannot cross the sandbox" in res.error and res.tool_calls == []


def test_tool_results_that_cannot_cross_are_reported() -> None:
    with PythonSandbox(tools={"bad": lambda: object(), "objarr": lambda: np.array([1, None])},
                       isolation="rlimit-only") as sb:
        res = sb.run("bad()")
        assert "tool 'bad' returned a value that cannot cross the sandbox" in res.error
        res = sb.run("objarr()")
        assert "dtype object cannot cross the sandbox" in res.error


def test_dotted_tools_become_importable_modules() -> None:
    clicks = []
    tools = {"pyautogui.click": lambda x, y: clicks.append((x, y)) or "ok",
             "pyautogui.typewrite": lambda s, interval=0.0: len(s),
             "desktop.apps.open": lambda name: f"opened {name}"}
    with PythonSandbox(tools=tools, isolation="rlimit-only") as sb:
        res = sb.run("import pyautogui\npyautogui.click(10, 20)\nn = pyautogui.typewrite('hi', interval=0.1)\n"
                     "from desktop.apps import open as open_app\n(n, open_app('Notes'))")
        assert res.error is None, res.text
        assert res.value == "(2, 'opened Notes')"
        assert clicks == [(10, 20)]
        assert [c["name"] for c in res.tool_calls] == ["pyautogui.click", "pyautogui.typewrite", "desktop.apps.open"]


def test_bad_tool_names_are_refused() -> None:
    with pytest.raises(ValueError, match="not a \\(dotted\\) Python identifier"):
        PythonSandbox(tools={"bad name": print}, isolation="rlimit-only")
    with pytest.raises(ValueError, match="shadow the standard module 'os'"):
        PythonSandbox(tools={"os.system": print}, isolation="rlimit-only")
    with pytest.raises(ValueError, match="'gui' is also the namespace of other tools \\(e.g. 'gui.click'\\)"):
        PythonSandbox(tools={"gui": print, "gui.click": print}, isolation="rlimit-only")


def test_preload_defines_helpers_and_runs_after_restart() -> None:
    with PythonSandbox(preload="def helper(x):\n    return x * 3\nimport os as _os", isolation="rlimit-only",
                       timeout=1) as sb:
        assert sb.run("helper(4)").value == "12"
        res = sb.run("while True: pass")
        assert res.restarted and res.error_kind == "timeout"
        assert sb.run("helper(5)").value == "15"
    with pytest.raises(RuntimeError, match="preload code failed"):
        PythonSandbox(preload="1/0", isolation="rlimit-only").run("1")


def test_reset_gives_fresh_namespace_and_close_is_idempotent(sb: PythonSandbox) -> None:
    sb.run("secret_state = 1")
    sb.reset()
    res = sb.run("secret_state")
    assert "NameError" in res.error
    sb.reset()
    sb.reset()  # nothing ran since: the same worker is kept
    assert sb.run("2 + 2").value == "4"
    sb.close()
    sb.close()
    with pytest.raises(RuntimeError, match="closed"):
        sb.run("1")


@pytest.mark.parametrize("mode", MODES)
def test_output_and_value_caps(mode: str) -> None:
    with PythonSandbox(isolation=mode, max_output_chars=50, max_value_chars=20) as box:
        res = box.run("for i in range(100):\n    print(i)\nlist(range(100))")
        assert res.truncated and res.error_kind == "output"
        assert "... [output truncated: 240 more characters not shown]" in res.stdout
        assert res.value == "[0, 1, 2, 3, 4, 5, 6... [value truncated: 370 more characters]"


def test_prewarm_imports_modules_before_first_run() -> None:
    with PythonSandbox(isolation="rlimit-only", prewarm=("numpy",)) as sb:
        assert sb.run("import sys\n'numpy' in sys.modules").error_kind == "policy"  # sys is not allowed
    with PythonSandbox(isolation="rlimit-only", prewarm=("numpy",), enforce_policy=False) as sb:
        assert sb.run("import sys\n'numpy' in sys.modules").value == "True"


def test_hash_seed_is_fixed_for_deterministic_output() -> None:
    outs = []
    for _ in range(2):
        with PythonSandbox(isolation="rlimit-only") as sb:
            outs.append(sb.run("list({'apple', 'banana', 'cherry', 'date', 'elder'})").value)
    assert outs[0] == outs[1]


def test_non_string_code_is_an_error_not_an_exception(sb: PythonSandbox) -> None:
    res = sb.run(b"1+1")  # type: ignore[arg-type]
    assert res.error_kind == "policy" and "code must be a str" in res.error


def test_timeout_in_rlimit_only_mode_kills_children_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    with PythonSandbox(isolation="rlimit-only", enforce_policy=False, timeout=3) as sb:
        assert sb.process_limit in ("cgroup", "rlimit")
        res = sb.run("import os, time\n"
                     "ready_r, ready_w = os.pipe()\n"
                     "if os.fork() == 0:\n"
                     "    os.setsid()  # out of the worker's process group\n"
                     f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                     "    os.write(ready_w, b'x')\n"
                     "    time.sleep(600)\n"
                     "    os._exit(0)\n"
                     "os.read(ready_r, 1)  # the child is up and has written its pid\n"
                     "time.sleep(600)")
        assert res.error_kind == "timeout" and res.restarted
        assert pid_file.exists(), "the child did not start within the 3 s timeout"
        child = int(pid_file.read_text())
        # killed by the timeout, not by close()
        wait_until(lambda: not is_running(child), what=f"the worker's child (pid {child}) to be killed")


def test_rlimit_only_worker_gets_empty_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMENVS_TEST_SECRET", "leaky-value")
    with PythonSandbox(isolation="rlimit-only", enforce_policy=False) as sb:
        res = sb.run("import os\nsorted(os.environ)")
        names = eval(res.value)
        assert "MMENVS_TEST_SECRET" not in names and "PATH" in names
        assert sb.isolation == "rlimit-only" and res.isolation == "rlimit-only"


def test_memory_limit_in_rlimit_only_mode() -> None:
    with PythonSandbox(isolation="rlimit-only", memory_mb=512) as sb:
        sb.run("keep = 7")
        res = sb.run("x = bytearray(2 * 1024**3)")
        assert res.error_kind == "memory" and "512 MB" in res.error
        assert sb.run("keep").value == "7"


# --------------------------------------------------------------------------------------------
# Isolation modes: strict refuses, auto falls back loudly once
# --------------------------------------------------------------------------------------------

def test_strict_refuses_when_bwrap_is_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-bwrap")
    with pytest.raises(SandboxUnavailable, match="was not found"):
        PythonSandbox(isolation="strict", bwrap=missing)
    monkeypatch.setenv(iso.BWRAP_ENV_VAR, missing)
    with pytest.raises(SandboxUnavailable, match="install the Debian package `bubblewrap`"):
        PythonSandbox(isolation="strict")


def test_strict_refuses_when_bwrap_cannot_sandbox(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="No permissions to create new namespace"):
        PythonSandbox(isolation="strict", bwrap=str(fake))


def test_auto_falls_back_with_one_warning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(iso, "_warned_fallback", False)
    monkeypatch.setenv(iso.BWRAP_ENV_VAR, str(tmp_path / "missing"))
    with pytest.warns(SandboxWarning, match="rlimit-only isolation"):
        first = PythonSandbox(isolation="auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = PythonSandbox(isolation="auto")
    try:
        assert first.isolation == second.isolation == "rlimit-only"
        res = first.run("6 * 7")
        assert res.value == "42" and res.isolation == "rlimit-only"
    finally:
        first.close()
        second.close()


def test_unknown_isolation_mode_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="isolation='docker' is not one of"):
        PythonSandbox(isolation="docker")


@requires_bwrap
def test_bwrap_mode_reports_itself() -> None:
    with PythonSandbox(isolation="auto") as sb:
        assert sb.isolation == "bwrap"
        res = sb.run("1")
        assert res.isolation == "bwrap"


def test_default_allowed_imports_cover_the_benchmarks() -> None:
    for mod in ("math", "json", "re", "datetime", "collections", "itertools", "statistics",
                "numpy", "PIL", "cv2", "matplotlib"):
        assert mod in DEFAULT_ALLOWED_IMPORTS
    for mod in ("os", "sys", "subprocess", "socket", "ctypes", "importlib", "pickle", "shutil"):
        assert mod not in DEFAULT_ALLOWED_IMPORTS


@pytest.mark.slow
@requires_bwrap
def test_imaging_libraries_work_inside_bwrap() -> None:
    with PythonSandbox(isolation="strict", timeout=30) as sb:
        res = sb.run("import numpy as np, cv2\nfrom PIL import Image\nimport matplotlib\n"
                     "matplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                     "a = np.zeros((8, 8, 3), np.uint8)\n"
                     "g = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY)\n"
                     "im = Image.fromarray(a)\n"
                     "fig = plt.figure()\n"
                     "(g.shape, im.size)")
        assert res.error is None, res.text
        assert res.value == "((8, 8), (8, 8))"


def test_runresult_text_combines_parts() -> None:
    r = RunResult(stdout="a\n", value="1", error="Boom", error_kind="exception")
    assert r.text == "a\n1\nBoom" and not r.ok


# --------------------------------------------------------------------------------------------
# Wire format: the parent only ever parses JSON and plain numeric arrays
# --------------------------------------------------------------------------------------------

def _frame_parts(doc: dict, blob: bytes = b"") -> tuple[bytes, bytes]:
    """A raw frame body ``[blob specs, message]`` from a message with its specs under "blobs"."""
    doc = dict(doc)
    specs = doc.pop("blobs", [])
    return json.dumps([specs, doc]).encode(), blob


def test_wire_roundtrip_of_nested_values() -> None:
    value = {"a": [1, 2.5, None, True, "x"], "arr": np.arange(6, dtype=np.int16).reshape(2, 3),
             "raw": b"\x00\x01", 3: (np.float32(1.5), [np.zeros((0, 4), np.uint8)])}
    bufs = wire.encode_frame({"op": "result", "value": value})
    data = b"".join(bytes(memoryview(b).cast("B")) for b in bufs)
    body_len, blob_len = wire.HEADER.unpack_from(data)
    body = data[wire.HEADER.size:wire.HEADER.size + body_len]
    blob = bytearray(data[wire.HEADER.size + body_len:])
    assert len(blob) == blob_len
    out = wire.decode_frame(body, blob, 1 << 20)["value"]
    assert out["a"] == [1, 2.5, None, True, "x"]
    assert out["arr"].dtype == np.int16 and out["arr"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert out["raw"] == b"\x00\x01"
    assert out["3"][0] == 1.5 and out["3"][1][0].shape == (0, 4)


@pytest.mark.parametrize("dtype", ["O", "|O", "V8", "[('a', '<i4')]", "<U4", "M8[s]"])
def test_wire_rejects_non_numeric_dtypes(dtype: str) -> None:
    body, blob = _frame_parts({"value": {"\x00nd": 0}, "blobs": [[dtype, [1]]]}, b"\x00" * 16)
    with pytest.raises(wire.WireError):
        wire.decode_frame(body, bytearray(blob), 1 << 20)


@pytest.mark.parametrize("doc,blob", [
    ({"value": {"\x00nd": 0}, "blobs": [["<i4", [4]]]}, b"\x00" * 8),        # too short
    ({"value": {"\x00nd": 0}, "blobs": [["<i4", [1]]]}, b"\x00" * 8),        # too long
    ({"value": {"\x00nd": 5}, "blobs": [["<i4", [1]]]}, b"\x00" * 4),        # missing blob
    ({"value": 1, "blobs": [["<i4", [-1]]]}, b""),                          # negative shape
    ({"value": 1, "blobs": [["<f8", [1 << 40, 1 << 40]]]}, b""),            # absurd size
    ({"value": 1, "blobs": "nope"}, b""),
])
def test_wire_rejects_inconsistent_frames(doc: dict, blob: bytes) -> None:
    body, blob = _frame_parts(doc, blob)
    with pytest.raises(wire.WireError):
        wire.decode_frame(body, bytearray(blob), 1 << 20)


def test_wire_rejects_non_json_and_pickles() -> None:
    import pickle

    with pytest.raises(wire.WireError, match="malformed JSON"):
        wire.decode_frame(pickle.dumps({"op": "done"}), bytearray(), 1 << 20)
    for body in (b"[1, 2]", b'{"op": "done"}', b"[[], [1]]"):
        with pytest.raises(wire.WireError, match="frame document is not"):
            wire.decode_frame(body, bytearray(), 1 << 20)
    with pytest.raises(wire.WireError, match="longer than its specs say"):
        wire.decode_frame(b'[[], {"op": "done"}]', bytearray(b"x"), 1 << 20)


def test_forged_frames_from_the_worker_kill_only_the_worker() -> None:
    # Agent code that writes garbage on the channel (here: a pickle in a valid-length frame).
    with PythonSandbox(isolation="rlimit-only", enforce_policy=False) as sb:
        sb.run("keep = 1")
        res = sb.run("import os, pickle, struct\n"
                     "body = pickle.dumps(os.system)\n"
                     "for fd in os.listdir('/proc/self/fd'):\n"
                     "    try:\n"
                     "        os.write(int(fd), struct.pack('!IQ', len(body), 0) + body)\n"
                     "    except OSError:\n"
                     "        pass\n"
                     "import time\ntime.sleep(5)")
        assert res.error_kind == "crash" and res.restarted
        assert "malformed message" in res.error or "SandboxError" in res.error
        assert sb.run("1 + 2").value == "3"


def test_wire_header_is_network_order() -> None:
    assert wire.HEADER.size == 12 and wire.HEADER.pack(1, 2) == struct.pack("!IQ", 1, 2)
    assert os.path.basename(wire.__file__) == "_worker.py"


def test_image_tools_over_the_episode_store() -> None:
    from mmenvs.core.images import ImageStore
    from mmenvs.sandbox.images import image_tools

    store = ImageStore()
    first = store.add(np.full((4, 5, 3), 10, np.uint8))
    with PythonSandbox(tools=image_tools(store), isolation="rlimit-only") as sb:
        res = sb.run(f"img = load_image({first!r})\n"
                     "brighter = (img + 5).astype(img.dtype)\n"
                     f"save_image(brighter, parents=[{first!r}])")
        assert res.value == "'img_1'", res.text
        assert store.get("img_1")[0, 0, 0] == 15 and store.parents("img_1") == ("img_0",)
        assert store.record("img_1").op == "code"
        assert store.get("img_0")[0, 0, 0] == 10
        res = sb.run("try:\n    load_image('img_7')\nexcept KeyError as e:\n    print('missing:', e)")
        assert res.stdout.startswith("missing: ") and "ImageNotFound" in res.stdout
        res = sb.run("save_image(img.astype('float32'))")
        assert "ValueError: save_image expects dtype uint8" in res.error
        assert len(store) == 2


def test_process_limit_kind_reports_how_processes_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    assert iso.process_limit_kind(None, 0) == "none"
    monkeypatch.setattr(iso, "_warned_nproc", False)
    monkeypatch.setattr(iso.os, "geteuid", lambda: 0)
    with pytest.warns(SandboxWarning, match="process-count limit is NOT enforced"):
        assert iso.process_limit_kind(None, 64) == "none"
    monkeypatch.setattr(iso.os, "geteuid", lambda: 1000)
    assert iso.process_limit_kind(None, 64) == "rlimit"


def test_oversized_messages_from_the_worker_are_refused() -> None:
    # The policy-free worker writes one frame announcing 100 MB of JSON: the parent refuses to read it.
    with PythonSandbox(isolation="rlimit-only", enforce_policy=False) as sb:
        sb.run("keep = 1")
        res = sb.run("import os, struct\n"
                     "for fd in os.listdir('/proc/self/fd'):\n"
                     "    try:\n"
                     "        os.write(int(fd), struct.pack('!IQ', 100 * 2**20, 0) + b'{' * 1000)\n"
                     "    except OSError:\n"
                     "        pass\n"
                     "import time\ntime.sleep(5)")
        assert res.error_kind == "crash" and res.restarted
        assert "100 MB" not in res.error and ("limits are" in res.error or "SandboxError" in res.error)
        assert sb.run("keep").error_kind == "exception"  # a fresh worker
        with PythonSandbox(isolation="rlimit-only", tools={"size": lambda a: a.nbytes}) as big:
            res = big.run("import numpy as np\nsize(np.zeros((1000, 1000, 3), np.uint8))")
            assert res.value == "3000000"


def test_background_processes_are_stopped_without_a_cgroup() -> None:
    # max_processes=0: no cgroup; strays are found as descendants of the worker instead.
    with PythonSandbox(isolation="rlimit-only", enforce_policy=False, max_processes=0) as sb:
        assert sb.process_limit == "none"
        res = sb.run("import os, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n'parent'")
        assert res.value == "'parent'"
        assert "1 background process(es) left by the code were stopped" in res.error
        assert sb.run("1 + 1").value == "2"


def test_a_forked_copy_neither_runs_nor_kills_the_parents_worker() -> None:
    with PythonSandbox(isolation="rlimit-only") as sb:
        sb.run("x = 5")
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: using the copy must fail clearly, closing it must not kill anything
            try:
                sb.run("x")
                code = 1
            except RuntimeError as e:
                code = 0 if "create a new one after fork" in str(e) else 2
            sb.close()
            os.write(w, bytes([code]))
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(r, 1) == b"\x00"
        os.close(r)
        os.close(w)
        assert sb.run("x").value == "5"  # the parent's worker is untouched


def test_interrupt_in_a_tool_replaces_the_worker() -> None:
    def boom() -> None:
        raise KeyboardInterrupt

    with PythonSandbox(tools={"boom": boom}, isolation="rlimit-only") as sb:
        sb.run("x = 1")
        with pytest.raises(KeyboardInterrupt):
            sb.run("boom()")
        res = sb.run("x")  # a fresh worker: the old one was mid-run
        assert "NameError" in res.error
        assert sb.run("2 * 21").value == "42"


def test_unusual_text_crosses_the_wire() -> None:
    # Lone surrogates and non-ASCII text in output and values must not break the channel.
    with PythonSandbox(isolation="rlimit-only", tools={"echo": lambda s: s}) as sb:
        res = sb.run("s = 'caf\\u00e9 \\ud800 \\U0001F600'\nprint(s)\necho(s) == s")
        assert res.error is None, res.text
        assert res.stdout == "caf\u00e9 \ud800 \U0001F600\n" and res.value == "True"
