"""The MacAgent screen tracker (``mmenvs/macagent/screen.py``) and the optional features every backend
declares on ``MacBackend`` (defaults for a plain desktop, the sim's own), used by the env without probing."""

from __future__ import annotations

import gc
import json
from datetime import datetime

import numpy as np
import pytest

from mmenvs.core import letterbox
from mmenvs.macagent.backends.base import BackendError, MacBackend
from mmenvs.macagent.env import WAIT_SECONDS, MacAgentEnv
from mmenvs.macagent.screen import ScreenTracker
from mmenvs.macagent.tasks import TaskSetupError
from test_macagent_env import FAKE_TASKS
from test_macagent_env_fake import FakeBackend


class CountingBackend(FakeBackend):
    """FakeBackend that counts what the tracker asks for (a new array per screenshot, like a real desktop)."""

    def __init__(self) -> None:
        super().__init__()
        self.shots = 0
        self.trees = 0

    def screenshot(self) -> np.ndarray:
        self.shots += 1
        return super().screenshot()

    def accessibility_tree(self) -> str:
        self.trees += 1
        return super().accessibility_tree() + "\n  file /host/home/Desktop/a.txt"


class DedupBackend(CountingBackend):
    """Declares ``dedups_frames`` and ``damage_since``: the same array while nothing changed, and the box of a change."""

    dedups_frames = True

    def __init__(self) -> None:
        super().__init__()
        self._frame: np.ndarray | None = None
        self.damage_asked: list[np.ndarray] = []

    def screenshot(self) -> np.ndarray:
        self.shots += 1
        frame = FakeBackend.screenshot(self)
        if self._frame is None or not np.array_equal(frame, self._frame):
            self._frame = frame
        return self._frame

    def damage_since(self, earlier: np.ndarray) -> tuple[int, int, int, int] | None:
        self.damage_asked.append(earlier)
        return (0, 0, self.screen_size[0], self.screen_size[1])


@pytest.fixture()
def backend(tmp_path) -> CountingBackend:
    made = CountingBackend()
    made.reset(now=datetime(2026, 3, 10, 9, 0), home=tmp_path / "home")
    return made


def _tracker(backend: MacBackend, stored: list[np.ndarray], **kwargs) -> ScreenTracker:
    return ScreenTracker(backend, (100, 160), scrub=lambda text: text.replace("/host/home", "~"),
                         on_new_frame=lambda frame: stored.append(frame.copy()), **kwargs)


# --------------------------------------------------------------------------- the interface's declarations
def test_a_backend_without_optional_features_gets_the_plain_defaults() -> None:
    plain = FakeBackend()
    assert plain.dedups_frames is False and plain.simulated_clock is False
    assert plain.damage_since(np.zeros((200, 320, 3), np.uint8)) is None
    with pytest.raises(NotImplementedError, match="FakeBackend has no simulated clock"):
        plain.advance_time(5.0)
    plain.set_web_pages({})  # no pages: nothing to refuse
    with pytest.raises(BackendError, match=r"FakeBackend cannot serve offline web pages \(asked for 1: https://example.com/\)"):
        plain.set_web_pages({"https://example.com/": "<p>hi</p>"})


def test_the_interface_is_abstract_and_the_sim_declares_its_features() -> None:
    from mmenvs.macagent.backends.sim import SimBackend

    with pytest.raises(TypeError, match="abstract"):
        MacBackend()
    assert issubclass(SimBackend, MacBackend)
    assert SimBackend.dedups_frames is True and SimBackend.simulated_clock is True


# --------------------------------------------------------------------------- the tracker
def test_the_screen_is_read_once_per_invalidation(backend) -> None:
    stored: list[np.ndarray] = []
    tracker = _tracker(backend, stored)
    first = tracker.frame()
    assert tracker.a11y().endswith("file ~/Desktop/a.txt")  # scrubbed once per read
    tracker.observation_image()
    assert (backend.shots, backend.trees, len(stored)) == (1, 1, 1)
    tracker.invalidate()
    assert tracker.frame() is first  # the same pixels in a new array: the earlier frame stays current
    assert (backend.shots, backend.trees, len(stored)) == (2, 2, 1)  # no new frame to store
    backend.type_text("abc")
    tracker.invalidate()
    changed = tracker.frame()
    assert changed is not first and not np.array_equal(changed, first) and len(stored) == 2
    assert np.array_equal(stored[-1], changed)


def test_without_a11y_the_tree_is_never_read(backend) -> None:
    tracker = _tracker(backend, [], read_a11y=False)
    tracker.frame()
    assert tracker.a11y() == "" and backend.trees == 0


def test_reset_forgets_the_last_episodes_frames(backend) -> None:
    stored: list[np.ndarray] = []
    tracker = _tracker(backend, stored)
    tracker.frame()
    tracker.reset()
    tracker.frame()  # the same pixels, but the first frame of a new episode: stored again
    assert backend.shots == 2 and len(stored) == 2


def test_observation_arrays_are_recycled_once_dropped_and_equal_a_fresh_fit(backend) -> None:
    tracker = _tracker(backend, [])
    image = tracker.observation_image()
    assert np.array_equal(image, letterbox(tracker.frame(), (100, 160)))
    held = image
    other = tracker.observation_image()
    assert other is not held  # the caller still holds the first one: never overwritten
    snapshot = held.copy()
    backend.type_text("abcdefgh")
    tracker.invalidate()
    newest = tracker.observation_image()
    assert np.array_equal(held, snapshot) and np.array_equal(newest, letterbox(tracker.frame(), (100, 160)))
    address = newest.__array_interface__["data"][0]
    del image, held, other, newest
    gc.collect()
    again = tracker.observation_image()
    recycled = {a.__array_interface__["data"][0] for a in tracker._arrays._arrays}  # noqa: SLF001 - the pool itself
    assert again.__array_interface__["data"][0] in recycled and address in recycled  # no fresh allocation


def test_a_deduping_backend_is_not_compared_and_refits_inside_its_damage(tmp_path) -> None:
    backend = DedupBackend()
    backend.reset(now=datetime(2026, 3, 10, 9, 0), home=tmp_path / "home")
    stored: list[np.ndarray] = []
    tracker = _tracker(backend, stored)
    first_fit = tracker.observation_image().copy()
    fitted_from = tracker.frame()
    assert backend.damage_asked == []  # the first fit of an episode is a whole one
    tracker.invalidate()
    tracker.observation_image()
    assert backend.trees == 1 and backend.damage_asked == []  # the same array: no re-read of the tree, no refit
    backend.type_text("abcdefgh")
    tracker.invalidate()
    image = tracker.observation_image()
    assert len(backend.damage_asked) == 1 and backend.damage_asked[0] is fitted_from
    assert np.array_equal(image, letterbox(tracker.frame(), (100, 160))) and not np.array_equal(image, first_fit)
    assert len(stored) == 2


# --------------------------------------------------------------------------- through the env
@pytest.fixture()
def task_dir(tmp_path):
    (tmp_path / "fake.json").write_text(json.dumps({"tasks": FAKE_TASKS}))
    return tmp_path


class ClockBackend(FakeBackend):
    simulated_clock = True

    def __init__(self) -> None:
        super().__init__()
        self.advanced: list[float] = []

    def advance_time(self, seconds: float) -> None:
        self.advanced.append(seconds)


def test_wait_and_sleep_move_only_a_simulated_clock(task_dir) -> None:
    for backend, expected in ((FakeBackend(), None), (ClockBackend(), [WAIT_SECONDS, 2.0])):
        env = MacAgentEnv(backend=backend, tasks=task_dir)
        try:
            env.reset(options={"task_id": "fake-note-gui-v0"})
            obs, _, _, _, info = env.step("WAIT")
            assert info["action_error"] is None and obs["text"] == f"Waited {WAIT_SECONDS:g} s."
            _, _, _, _, info = env.step("```python\nimport pyautogui\npyautogui.sleep(2)\n```")
            assert info["action_error"] is None
            assert getattr(backend, "advanced", None) == expected
        finally:
            env.close()


def test_a_task_with_web_pages_needs_a_backend_that_serves_them(task_dir) -> None:
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir)
    try:
        data = dict(FAKE_TASKS[1], id="with-web", web_pages={"https://example.com/": "<p>hi</p>"})
        with pytest.raises(TaskSetupError, match=r"inline task: task 'with-web-v0' serves web pages: FakeBackend cannot serve"):
            env.reset(options={"task": data})
        _, info = env.reset(options={"task": dict(FAKE_TASKS[1], id="without-web")})  # no pages: fine
        assert info["task_id"] == "without-web-v0"
    finally:
        env.close()


def test_the_sandbox_is_configured_by_sandbox_options(task_dir) -> None:
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir, sandbox_options={"timeout": 3.5})
    try:
        env.reset(options={"task_id": "fake-note-gui-v0"})
        assert not env.sandbox_started and "sandbox" not in env.step("WAIT")[4]
        _, _, _, _, info = env.step("```python\nimport pyautogui\nfor k in 'ab':\n    pyautogui.write(k)\n```")
        assert env.sandbox.timeout == 3.5 and info["sandbox"] == env.sandbox.isolation and env.backend.field == "ab"
    finally:
        env.close()
    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir)
    try:
        assert env.sandbox.timeout == 10.0  # sandbox_defaults()
    finally:
        env.close()
    backend = FakeBackend()
    with pytest.raises(TypeError, match=r"python_timeout=… became sandbox_options=\{'timeout': seconds\}"):
        MacAgentEnv(backend=backend, tasks=task_dir, python_timeout=1.0)
    assert backend.closed == 1  # nothing left behind


def test_each_reset_makes_a_fresh_episode_state(task_dir) -> None:
    from mmenvs.macagent.env import MacAgentEpisode

    env = MacAgentEnv(backend=FakeBackend(), tasks=task_dir)
    try:
        env.reset(options={"task_id": "fake-file-cli-v0"})
        first = env.episode
        assert first.fresh and set(first.baselines) == {"original kept", "keep.md untouched"}
        env.step("```bash\nls\n```")
        assert not first.fresh
        env.reset(options={"task_id": "fake-note-gui-v0"})
        assert isinstance(env.episode, MacAgentEpisode) and env.episode is not first
        assert env.episode.fresh and env.episode.baselines == {}
    finally:
        env.close()
