"""Every env that runs agent code reports how that code was isolated, in info["sandbox"]."""

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401

CASES = [
    ("VTCBench-v0", {"mode": "code"}, "```python\nprint(1)\n```"),
    ("MMToolSandbox-v0", {"mode": "code"}, "```python\nprint(1)\n```"),
    ("MacAgent-v0", {}, "```python\nimport pyautogui\nx = [1]\npyautogui.moveTo(10, 10 + len(x))\n```"),
]


@pytest.mark.parametrize("env_id, kwargs, code", CASES)
def test_info_reports_sandbox_isolation_once_code_runs(env_id, kwargs, code):
    env = gym.make(env_id, **kwargs)
    try:
        _, info = env.reset(seed=0)
        assert info.get("sandbox") in (None, "bwrap", "rlimit-only")  # present once a sandbox exists
        _, _, _, _, info = env.step(code)
        assert info["action_error"] is None
        assert info["sandbox"] in ("bwrap", "rlimit-only")
        assert info["sandbox"] == env.unwrapped.sandbox_in_use()
    finally:
        env.close()
