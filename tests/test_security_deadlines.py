"""Issue 14, class 4: host work on an action ends with the action deadline (``budget.action_timeout``).

Each attack goes through ``env.step``; the deadline is made short through the ``budget`` kwarg. A
step must end within the deadline plus a generous margin (the machine is loaded), with an error
naming the limit, and the next benign step must work."""

from __future__ import annotations

import time

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401 - registers the envs
from mmenvs.core.budget import Deadline, DeadlineExceeded, current_deadline, deadline_scope
from mmenvs.sandbox.shell import HOST_REQUEST_SECONDS

DEADLINE = 2.0
MARGIN = 20.0  # a loaded 2-core machine; the attacks below ran 33 s to 75 s before the fix

_BIG_TEXT = 'set s to "ab"\nrepeat 21 times\nset s to s & s\nend repeat\n'  # 4M characters


@pytest.fixture(scope="module")
def module_env():
    e = gym.make("MacAgent-v0", budget={"action_timeout": DEADLINE}).unwrapped
    yield e
    e.close()


@pytest.fixture
def env(module_env):
    module_env.reset(seed=0)
    return module_env


def _timed_step(env, action: str) -> tuple[str, float]:
    start = time.monotonic()
    obs, *_ = env.step(action)
    return obs["text"], time.monotonic() - start


def _benign_step_works(env) -> None:
    obs, *_ = env.step("```applescript\n6 * 7\n```")
    assert obs["text"] == "42"


def test_applescript_costly_builtin_loop_ends_at_the_deadline(env) -> None:
    script = _BIG_TEXT + 'set n to 0\nrepeat 8000 times\nset n to n + (offset of "zz" in s)\nend repeat\nn'
    text, took = _timed_step(env, f"```applescript\n{script}\n```")
    assert "AppleEvent timed out" in text and f"action_timeout={DEADLINE:g} s" in text and "(-1712)" in text
    assert took < DEADLINE + MARGIN
    _benign_step_works(env)


def test_applescript_one_statement_of_many_builtins_ends_at_the_deadline(env) -> None:
    # 3000 `offset of` calls in one list literal: a single statement, so the step counter alone would not stop it
    calls = ", ".join(['(offset of "zz" in s)'] * 3000)
    text, took = _timed_step(env, f"```applescript\n{_BIG_TEXT}set r to {{{calls}}}\ncount r\n```")
    assert "action_timeout" in text and took < DEADLINE + MARGIN
    _benign_step_works(env)


def test_osascript_from_the_shell_ends_with_the_deadline(env) -> None:
    script = _BIG_TEXT + 'repeat 8000 times\noffset of "zz" in s\nend repeat'
    text, took = _timed_step(env, f"```bash\nosascript -e '{script}'\n```")
    assert "AppleEvent timed out" in text and took < DEADLINE + MARGIN
    _benign_step_works(env)


def test_trickled_host_request_cannot_hold_the_step(env) -> None:
    # A client that sends its host-command request one byte at a time (each byte once renewed the
    # server's timeout: 40 s for a 40-byte request at 1 byte/s).
    client = ("import socket, os, time\n"
              "s = socket.socket(socket.AF_UNIX); s.connect(os.environ['MMENVS_HOST_SOCK'])\n"
              "try:\n"
              "    for c in b'{\"argv\": [\"sw_vers\"], \"stdin\": \"\"}':\n"
              "        s.send(bytes([c])); time.sleep(1)\n"
              "except OSError as e:\n"
              "    print('cut off:', e)\n")
    text, took = _timed_step(env, f"```bash\npython3 -c \"$(cat <<'EOF'\n{client}EOF\n)\"\n```")
    assert took < HOST_REQUEST_SECONDS + MARGIN  # far below the 35 s the trickle asks for
    assert "cut off" in text
    obs, *_ = env.step("```bash\nsw_vers -productName\n```")
    assert obs["text"].startswith("macOS")


def test_media_tool_child_ends_at_the_deadline(env) -> None:
    env.step("```bash\nsay -o ~/Documents/hi.wav --data-format=LEI16 hello\n```")
    # 30 MHz keeps within the child's memory cap but takes far longer than the deadline to resample
    text, took = _timed_step(env, "```bash\nfor i in 1 2 3 4 5 6 7 8; do afconvert -d LEI16@30000000 -f WAVE "
                                  "~/Documents/hi.wav ~/Documents/big$i.wav; done\n```")
    assert took < DEADLINE * 8 + MARGIN
    assert "action_timeout" in text or "child_memory_bytes" in text or "timed out" in text
    _benign_step_works(env)


def test_deadline_scope_nests_to_the_earlier_deadline() -> None:
    with deadline_scope(Deadline(1.0, "outer")) as outer:
        with deadline_scope(Deadline(100.0, "inner")) as inner:
            assert inner is outer and current_deadline() is outer
    assert current_deadline() is None
    with pytest.raises(DeadlineExceeded, match="action_timeout=0 s"):
        Deadline(0.0).check()
