"""Issue 14, class 5: a crash must not poison the episode.

An internal error (a bug in the env, or input it did not foresee) ends at most the step it happens
in: ``env.step`` never raises for it, the step reports it (``info["action_error_kind"] ==
"internal"``, an observation naming what failed), the env recovers (the sim restarts the app the
error came from) or, when it cannot, truncates the episode with the reason; later steps work. The
attacks go through ``env.step`` as an agent's actions would.
"""

from __future__ import annotations

import time
import types
import warnings

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401 - registers the env ids
from mmenvs.macagent.backends.sim.desktop import Desktop
from mmenvs.macagent.env import MacAgentEnv

STEP_DEADLINE = 120.0  # generous: a loaded 2-core machine; the point is that the step ends at all


def bash(code: str) -> str:
    return f"```bash\n{code}\n```"


@pytest.fixture
def env():
    e = MacAgentEnv()
    yield e
    e.close()


def step(env, action):
    """One step that must return (never raise) within the deadline."""
    started = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # internal errors are also warned, with their traceback
        result = env.step(action)
    assert time.monotonic() - started < STEP_DEADLINE
    obs, _reward, _terminated, _truncated, _info = result
    assert env.observation_space.contains(obs)
    assert str(env._home) not in obs["text"] + obs["a11y"]  # no host path, whatever failed
    return result


def test_a_two_million_character_line_opens_in_textedit_and_the_episode_goes_on(env):
    env.reset(seed=0)
    obs, _, _, _, info = step(env, bash("head -c 2000000 /dev/zero | tr '\\0' 'x' > ~/Desktop/big.txt && wc -c < ~/Desktop/big.txt"))
    assert "2000000" in obs["text"], obs["text"]
    obs, _, terminated, truncated, info = step(
        env, '```applescript\ntell application "TextEdit" to open POSIX file "/Users/user/Desktop/big.txt"\n```')
    assert info["action_error"] is None and not (terminated or truncated), info["action_error"]
    assert env.backend.app("TextEdit").windows, "the document window is open"
    frame_before = env.frame().copy()
    # the window shows the text and every later step works: typing at the end, scrolling, moving the cursor
    assert not np.array_equal(obs["image"], np.zeros_like(obs["image"]))
    for action in ({"action_type": "TYPING", "text": "tail"}, {"action_type": "SCROLL", "dy": -10},
                   {"action_type": "PRESS", "key": "up"}, bash("echo still-here")):
        obs, _, terminated, truncated, info = step(env, action)
        assert info["action_error"] is None and not (terminated or truncated), (action, info["action_error"])
    assert obs["text"].startswith("still-here")
    assert not np.array_equal(env.frame(), frame_before)  # the typed text and the scroll were drawn
    text_area = [line for line in obs["a11y"].splitlines() if "AXTextArea" in line]
    assert text_area and len(obs["a11y"]) <= 65_536


def test_a_paint_fault_in_an_app_reports_internal_restarts_the_app_and_later_steps_work(env, monkeypatch):
    env.reset(seed=0)
    step(env, bash("open -a Notes"))
    notes = env.backend.app("Notes")
    window = notes.windows[0]

    def broken_build(win):
        raise ZeroDivisionError("paint fault injected by the test")

    monkeypatch.setattr(window, "builder", broken_build)  # the window's state is broken, not the app's code
    window.app.touch()  # its widgets are rebuilt on the next paint
    obs, _, terminated, truncated, info = step(env, bash("echo the shell ran"))  # the screen is drawn afterwards
    assert obs["text"].startswith("the shell ran")
    assert info["action_error_kind"] == "internal"
    assert "ZeroDivisionError: paint fault injected by the test" in info["action_error"]
    assert "Notes quit unexpectedly and was restarted" in obs["text"]
    assert info["internal_error"][0]["phase"] == "building the observation"
    assert not (terminated or truncated)
    assert env.backend.app("Notes") is not notes and not env.backend.app("Notes").windows  # a fresh Notes
    for action in (bash("open -a Notes"), {"action_type": "TYPING", "text": "hello"}, bash("echo fine")):
        obs, _, terminated, truncated, info = step(env, action)
        assert info["action_error"] is None and not (terminated or truncated), (action, info["action_error"])
    assert obs["text"].startswith("fine")
    assert env.backend.app("Notes").windows  # reopened and drawn


def test_a_fault_while_acting_reports_internal_and_the_restarted_app_works(env, monkeypatch):
    env.reset(seed=0)
    step(env, bash("open -a Notes"))
    notes = env.backend.app("Notes")

    def broken_new_note(self):
        raise KeyError("fault injected while acting")

    monkeypatch.setattr(notes, "new_note", types.MethodType(broken_new_note, notes))  # a bug in this app's code
    obs, _, terminated, truncated, info = step(env, {"action_type": "HOTKEY", "keys": ["command", "n"]})
    assert info["action_error_kind"] == "internal" and not (terminated or truncated)
    assert "could not carry out this action" in obs["text"] and "in Notes" in info["action_error"]
    assert info["internal_error"][0]["phase"] == "carrying out the action"
    fresh = env.backend.app("Notes")
    assert fresh is not notes
    step(env, bash("open -a Notes"))
    obs, _, _, _, info = step(env, {"action_type": "HOTKEY", "keys": ["command", "n"]})
    assert info["action_error"] is None and len(fresh.notes()) >= 1


def test_a_fault_that_recovery_cannot_fix_truncates_the_episode_and_reset_works(env, monkeypatch):
    env.reset(seed=0)

    def broken_menubar(self, theme):
        raise RuntimeError("the menu bar cannot be drawn")

    monkeypatch.setattr(Desktop, "_menubar_layer", broken_menubar)  # the desktop's own code: no app to restart
    env.backend.desktop.invalidate()
    obs, reward, terminated, truncated, info = step(env, bash("echo hi"))
    assert info["action_error_kind"] == "internal" and truncated and not terminated
    assert "could not recover: the episode was truncated" in obs["text"]
    assert obs["text"].startswith("hi")  # what the action did is still shown
    assert obs["image"].shape == (*env.obs_size, 3) and not obs["image"].any()  # a blank image stands in
    assert len(info["internal_error"]) == env.OBSERVATION_ATTEMPTS
    assert info["internal_error"][-1]["recovery"] is None
    obs, reward, terminated, truncated, info = step(env, bash("echo after the end"))  # no raise either
    assert info["action_error_kind"] == "episode_over"
    monkeypatch.undo()
    obs, info = env.reset(seed=0)
    obs, _, terminated, truncated, info = step(env, bash("echo next episode"))
    assert info["action_error"] is None and obs["text"].startswith("next episode") and obs["image"].any()


def test_every_phase_of_a_step_is_safe_for_every_env(monkeypatch):
    """The mechanism is MMEnv's: a DebugEcho whose scoring and observation fail once."""
    env = gym.make("DebugEcho-v0").unwrapped
    try:
        env.reset(seed=0)
        calls = {"evaluate": 0, "image": 0}
        real_evaluate, real_image = env.evaluate, env.observation_image

        def flaky_evaluate():
            calls["evaluate"] += 1
            if calls["evaluate"] == 1:
                raise ValueError("scoring fault")
            return real_evaluate()

        def flaky_image():
            calls["image"] += 1
            if calls["image"] == 1:
                raise MemoryError("drawing fault")
            return real_image()

        monkeypatch.setattr(env, "evaluate", flaky_evaluate)
        monkeypatch.setattr(env, "observation_image", flaky_image)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            obs, _, terminated, truncated, info = env.step("SAY hello")
        assert info["action_error_kind"] == "internal" and not (terminated or truncated)
        assert [f["phase"] for f in info["internal_error"]] == ["scoring the state", "building the observation"]
        assert "ValueError: scoring fault" in obs["text"] and "MemoryError: drawing fault" in obs["text"]
        assert env.observation_space.contains(obs)
        obs, _, _, _, info = env.step("SAY again")
        assert info["action_error"] is None and "internal_error" not in info
    finally:
        env.close()
