"""Issue 14, class 8: the smaller ones, each through ``env.step`` as an agent would send it.

* raw ESC and NUL bytes never reach an observation: they are escaped, once, where every env's text
  passes (``MMEnv``'s observation: ``mmenvs.core.spaces.observation_text``);
* a lone surrogate in code or a command is a clear error, and the next step works;
* a huge integer argument is a tool error (``bad_parameter``), not an OverflowError inside a tool;
* threads calling tools at once get correct results (or a clear error once their cell has ended);
* a step from a short-lived thread leaves a working sandbox behind (bwrap's ``--die-with-parent`` is
  tied to the thread that forked it: sandboxes are forked from a thread that lasts).
"""

from __future__ import annotations

import os
import signal
import threading

import gymnasium as gym
import pytest
from _wait import is_running, wait_until

import mmenvs  # noqa: F401 - registers the env ids
from mmenvs.core import Param
from mmenvs.core.actions import ActionError
from mmenvs.core.spaces import observation_text, visible_text
from mmenvs.macagent.env import MacAgentEnv
from mmenvs.sandbox import PythonSandbox
from mmenvs.sandbox.isolation import process_tree
from mmenvs.sandbox.policy import DEFAULT_ALLOWED_IMPORTS

RAW = ("\x1b", "\x00")


def code(source: str) -> str:
    return f"```python\n{source}\n```"


def bash(source: str) -> str:
    return f"```bash\n{source}\n```"


def no_raw_controls(obs: dict) -> None:
    for key, value in obs.items():
        if isinstance(value, str):
            assert not any(ch in value for ch in RAW), (key, value[:200])


@pytest.fixture(scope="module")
def mac():
    env = MacAgentEnv()
    yield env
    env.close()


# ------------------------------------------------------------------ ESC and NUL


def test_escaping_keeps_unicode_newlines_and_tabs_and_escapes_controls_once():
    text = "a\x1b[31mb\x00c\té日本\n\r\nd\re\x9b\ud800"
    shown = visible_text(text)
    assert shown == "a\\x1b[31mb\\x00c\té日本\n\r\nd\\x0de\\x9b\\ud800"
    assert visible_text("plain é日本\n\t") == "plain é日本\n\t"
    assert observation_text(text, 100) == shown
    clipped = observation_text("\x00" * 1000, 50)
    assert len(clipped) <= 50 and "\x00" not in clipped and "truncated" in clipped


def test_debug_echo_say_escapes_esc_and_nul():
    env = gym.make("DebugEcho-v0").unwrapped
    try:
        env.reset(seed=0)
        obs, _, _, _, info = env.step("SAY red\x1b[31m nul\x00 é日本")
        no_raw_controls(obs)
        assert "red\\x1b[31m nul\\x00 é日本" in obs["text"]
        assert "\\\\x1b" not in obs["text"]  # escaped once, not twice
    finally:
        env.close()


def test_macagent_shell_output_and_a11y_escape_esc_and_nul(mac):
    mac.reset(seed=0)
    obs, _, _, _, info = mac.step(bash("printf 'x\\x1b[31my\\x00z\\n'; touch ~/Desktop/$'bell\\x07\\x1b[2Jname'"))
    no_raw_controls(obs)
    assert "x\\x1b[31my\\x00z" in obs["text"], obs["text"]
    obs, _, _, _, info = mac.step({"action_type": "CLICK", "x": 5, "y": 300})  # the desktop icon is drawn and listed
    no_raw_controls(obs)
    assert "bell\\x07\\x1b[2Jname" in obs["a11y"]


@pytest.mark.parametrize("env_id, kwargs", [("VTCBench-v0", {"mode": "code"}), ("MMToolSandbox-v0", {})])
def test_code_print_escapes_esc_and_nul(env_id, kwargs):
    env = gym.make(env_id, **kwargs).unwrapped
    try:
        env.reset(seed=0)
        obs, _, _, _, info = env.step(code("print('p\\x1b[31mq\\x00r')"))
        no_raw_controls(obs)
        assert "p\\x1b[31mq\\x00r" in obs["text"], obs["text"]
    finally:
        env.close()


# ------------------------------------------------------------------ lone surrogates


def test_a_lone_surrogate_in_code_is_a_clear_error_and_the_next_step_works():
    env = gym.make("VTCBench-v0", mode="code").unwrapped
    try:
        env.reset(seed=0)
        obs, _, _, _, info = env.step(code("x = '\ud800'\nprint(x)"))
        assert info["action_error_kind"] != "internal"
        assert "lone surrogate character U+D800 at line 1, column 6" in obs["text"], obs["text"]
        obs, _, _, _, info = env.step(code("print(40 + 2)"))
        assert obs["text"].strip() == "42"
    finally:
        env.close()


def test_a_lone_surrogate_in_a_shell_command_or_pyautogui_code_is_a_clear_error(mac):
    mac.reset(seed=0)
    obs, _, _, _, info = mac.step(bash("echo a\ud800b"))
    assert info["action_error_kind"] != "internal"
    assert "lone surrogate character U+D800" in obs["text"], obs["text"]
    obs, _, _, _, info = mac.step(code("import pyautogui\nprint('\udfff', pyautogui.size())"))
    assert info["action_error_kind"] not in (None, "internal") and "lone surrogate character U+DFFF" in obs["text"]
    obs, _, _, _, info = mac.step(bash("echo fine"))
    assert info["action_error"] is None and obs["text"].startswith("fine")


# ------------------------------------------------------------------ huge numbers


def test_a_huge_int_to_canny_is_a_tool_error_and_the_next_call_works():
    env = gym.make("VTCBench-v0").unwrapped
    try:
        env.reset(seed=0)
        for huge in (10**400, -(10**5000), float("inf")):
            obs, _, _, _, info = env.step({"name": "canny", "arguments": {"image": "img_0", "low_threshold": huge}})
            assert info["action_error_kind"] == "bad_parameter", (huge, info["action_error"])
            assert "low_threshold" in obs["text"]
        obs, _, _, _, info = env.step({"name": "canny", "arguments": {"image": "img_0", "low_threshold": 10}})
        assert info["action_error"] is None and "edge_pixels" in obs["text"]
    finally:
        env.close()


def test_declared_numbers_out_of_range_are_bad_parameters():
    for kind in ("integer", "number"):
        param = Param("n", kind, "a number")
        for value in (10**400, -(2**60)):
            with pytest.raises(ActionError, match="out of range") as raised:
                param.check(value, "tool: parameter 'n'")
            assert raised.value.kind == "bad_parameter"
        assert param.check(2**53, "n") == 2**53
    with pytest.raises(ActionError, match="an integer of about 5000 digits"):
        Param("n", "integer", "").check(10**5000, "n")


# ------------------------------------------------------------------ threads


def test_agent_threads_calling_tools_at_once_get_correct_results_or_a_clear_error():
    threads_allowed = {"allowed_imports": sorted(DEFAULT_ALLOWED_IMPORTS | {"threading"})}
    env = gym.make("VTCBench-v0", mode="code", sandbox_options=threads_allowed).unwrapped
    try:
        env.reset(seed=0)
        obs, _, _, _, info = env.step(code(
            "import threading\n"
            "out = {}\n"
            "def work(k):\n"
            "    out[k] = [canny(image='img_0', low_threshold=j)['low'] for j in range(5)]\n"
            "ts = [threading.Thread(target=work, args=(k,)) for k in range(6)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "print(sorted(out) == list(range(6)) and all(v == [0.0, 1.0, 2.0, 3.0, 4.0] for v in out.values()))"))
        assert obs["text"].strip().endswith("True"), obs["text"]
        # a thread left running calls a tool after its cell ended: a clear error in that thread
        obs, _, _, _, info = env.step(code(
            "import threading, time\n"
            "late = []\n"
            "def later():\n"
            "    time.sleep(0.2)\n"
            "    try:\n"
            "        canny(image='img_0')\n"
            "    except Exception as exc:\n"
            "        late.append(str(exc))\n"
            "threading.Thread(target=later).start()"))
        def late_error():
            return env.step(code("print(late)"))[0]["text"]
        text = wait_until(late_error, check=lambda t: "after the code cell finished" in t, what="the late call's error")
        assert "join your threads" in text
        obs, _, _, _, info = env.step(code("print(load_image('img_0').shape[2])"))
        assert obs["text"].strip() == "3"
    finally:
        env.close()


def test_host_threads_running_code_at_once_each_get_their_own_result():
    with PythonSandbox(tools={"add": lambda a, b: a + b}) as sandbox:
        results: dict[int, str] = {}

        def run(k: int) -> None:
            results[k] = sandbox.run(f"add({k}, 1000)").text

        threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == {k: str(k + 1000) for k in range(6)}
        assert sandbox.run("add(1, 1)").text == "2"


def test_a_step_from_a_short_lived_thread_leaves_a_working_sandbox():
    env = gym.make("VTCBench-v0", mode="code").unwrapped
    try:
        env.reset(seed=0)
        out = {}
        # the first code action starts the sandbox, in this thread, which then ends
        thread = threading.Thread(target=lambda: out.update(obs=env.step(code("x = 6 * 7\nprint(x)"))[0]))
        thread.start()
        thread.join()
        assert out["obs"]["text"].strip() == "42"
        worker = env.sandbox._worker.proc.pid
        obs, _, _, _, info = env.step(code("print(x + 1)"))  # the same worker: variables kept
        assert obs["text"].strip() == "43", obs["text"]
        assert env.sandbox._worker.proc.pid == worker and is_running(worker)
        env.reset(seed=1)  # the spare (also started in that thread) takes over
        obs, _, _, _, info = env.step(code("print('fresh')"))
        assert obs["text"].strip() == "fresh", obs["text"]
    finally:
        env.close()


def test_a_worker_killed_from_outside_is_not_blamed_on_the_memory_limit():
    with PythonSandbox() as sandbox:
        assert sandbox.run("1").text == "1"
        tree = process_tree(sandbox._worker.proc.pid)  # bwrap, its init, the worker
        os.kill(tree[-1], signal.SIGKILL)
        wait_until(lambda: not is_running(tree[-1]), what="the worker to die")
        result = sandbox.run("2")
        assert result.restarted and "SIGKILL from outside its code" in result.error
        assert "memory limit" not in result.error
        assert sandbox.run("3").text == "3"
