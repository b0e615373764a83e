"""Async vectorisation by default (issue 19 item 5): ``gym.make_vec(ID, vectorization_mode="async")``
with gymnasium's default ``shared_memory=True`` works for every env id, and its results equal the
sync vector env's step by step (texts through the UnicodeText shared-memory buffer included)."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

import mmenvs  # noqa: F401
from mmenvs.core import UnicodeText
from mmenvs.core.spaces import SharedTextBatch

# Per env id: make_vec kwargs and the action pairs sent to its 2 envs, step by step. Each list ends
# an episode in at least one env, so the autoreset path passes texts through shared memory too.
CASES = {
    "DebugEcho-v0": ({}, [("SAY héllo → 日本", "SAY x"), ("<answer>nope</answer>", "SAY \x1b[31m"), ("SAY again", "FAIL")]),
    "VTCBench-v0": ({}, [('{"name": "colorspace", "arguments": {"image": "img_0", "target": "gray"}}', "not a call"),
                         ("<answer>A</answer>", '{"name": "flip", "arguments": {"image": "img_0"}}')]),
    "MacAgent-v0": ({"obs_size": (100, 160)}, [("```bash\necho héllo > ~/Desktop/a.txt; ls ~/Desktop\n```", "WAIT"),
                                               ("DONE", "```bash\npwd\n```")]),
    "MMToolSandbox-v0": ({"mode": "tool"}, [('{"name": "search_tools", "arguments": {"query": "create contact"}}', "Hello, which contact?"),
                                            ('{"name": "no_such_tool", "arguments": {}}', "Done.")]),
}

#: What the first step's text of env 0 holds (the action really ran in the worker).
EXPECTED_TEXT = {"DebugEcho-v0": "héllo → 日本", "VTCBench-v0": "img_1 = colorspace", "MacAgent-v0": "a.txt",
                 "MMToolSandbox-v0": "Result of search_tools"}


def _run(env_id: str, mode: str, kwargs: dict, actions: list[tuple[str, str]]) -> list[tuple]:
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, **kwargs)
    try:
        if mode == "async":
            assert envs.shared_memory, "the async vector env should use its default shared memory"
        obs, info = envs.reset(seed=7)
        results = [(tuple(obs["text"]), obs["image"].copy(), tuple(info["task_id"]))]
        for pair in actions:
            obs, reward, terminated, truncated, info = envs.step(list(pair))
            results.append((tuple(obs["text"]), obs["image"].copy(), reward.tolist(), terminated.tolist(), truncated.tolist(),
                            [float(s) for s in info["score"]]))
        return results
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", sorted(CASES))
def test_async_make_vec_equals_sync(env_id):
    kwargs, actions = CASES[env_id]
    sync = _run(env_id, "sync", kwargs, actions)
    async_ = _run(env_id, "async", kwargs, actions)
    assert len(sync) == len(async_) == len(actions) + 1
    for step, (a, s) in enumerate(zip(async_, sync)):
        assert a[0] == s[0], f"{env_id} step {step}: texts differ"
        assert np.array_equal(a[1], s[1]), f"{env_id} step {step}: images differ"
        assert a[2:] == s[2:], f"{env_id} step {step}: rewards/terminated/truncated/scores differ"
    assert EXPECTED_TEXT[env_id] in async_[1][0][0], async_[1][0][0][:300]  # the first action's result came through


def test_async_debug_echo_texts_and_autoreset_through_shared_memory():
    envs = gym.make_vec("DebugEcho-v0", num_envs=2, vectorization_mode="async")
    try:
        envs.reset(seed=0)
        obs, reward, terminated, _, _ = envs.step(["SAY héllo \ud800 日本", "FAIL"])
        assert obs["text"] == ("héllo \\ud800 日本", "You gave up.")  # the env escaped the lone surrogate
        assert terminated.tolist() == [False, True]
        obs, *_ = envs.step(["SAY second", "SAY ignored"])  # env 1 autoresets: its text is the instruction again
        assert obs["text"][0] == "second" and obs["text"][1].startswith("What word is written on the card?")
    finally:
        envs.close()


def test_unicode_text_shared_memory_roundtrip_and_views():
    space = UnicodeText(12)
    memory = create_shared_memory(space, n=3)
    batch = read_from_shared_memory(space, memory, n=3)
    assert isinstance(batch, SharedTextBatch) and batch == ("", "", "")
    write_to_shared_memory(space, 1, "é\ud800日\n\x00b", memory)
    write_to_shared_memory(space, 2, "x" * 12, memory)
    assert batch[1] == "é\ud800日\n\x00b" and batch[-1] == "x" * 12 and len(batch) == 3  # a live view
    snapshot = copy.deepcopy(batch)
    assert type(snapshot) is tuple and snapshot == ("", "é\ud800日\n\x00b", "x" * 12)
    assert pickle.loads(pickle.dumps(batch)) == snapshot and copy.copy(batch) == snapshot
    write_to_shared_memory(space, 2, "short", memory)  # a shorter string replaces a longer one whole
    assert batch[2] == "short" and snapshot[2] == "x" * 12
    with pytest.raises(ValueError, match="at most 12 characters"):
        write_to_shared_memory(space, 0, "y" * 13, memory)
    with pytest.raises(IndexError):
        batch[3]
