"""mmenvs.integrations.verifiers: VTCBench-v0 as a verifiers environment, rolled out with verifiers' own
API (``Env.serving`` + ``Env.run_episode``) against the project's scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401
from mmenvs.baselines.llm.testserver import OpenAITestServer, image_urls, tool_call
from mmenvs.integrations.verifiers import MMEnvsEnv, load_environment, model_context


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "unused-by-the-test-server")


def _rollouts(env: MMEnvsEnv, base_url: str) -> list:
    async def run() -> list:
        async with env.serving():
            return [await env.run_episode(task, model_context("scripted", base_url=base_url)) for task in env.taskset]

    return asyncio.run(run())


def _answers(ids):
    u = gym.make("VTCBench-v0").unwrapped
    return {i: u.load_task(i).answer for i in ids}


def test_vtcbench_rollouts_step_the_env_and_are_rewarded_with_its_score():
    ids = gym.make("VTCBench-v0", task_filter={"category": "spatial"}).unwrapped.task_ids()[:2]
    answers = _answers(ids)
    requests: list[dict] = []

    def policy(request: dict) -> str:
        requests.append(request)
        first_user = next(m for m in request["messages"] if m["role"] == "user")
        if len([m for m in request["messages"] if m["role"] == "assistant"]) == 0:
            return '{"name": "colorspace", "arguments": {"image": "img_0", "target": "gray"}}'
        # second turn: answer task 0 right, task 1 wrong (the scripted model tells them apart by the order of episodes)
        episode = sum(1 for r in requests if len([m for m in r["messages"] if m["role"] == "assistant"]) == 0) - 1
        assert first_user["content"][0]["type"] == "text"
        return f"<answer>{answers[ids[0]]}</answer>" if episode == 0 else "<answer>not a direction</answer>"

    env = load_environment("VTCBench-v0", env_kwargs={"task_filter": {"category": "spatial"}}, num_tasks=2)
    with OpenAITestServer(policy) as server:
        episodes = _rollouts(env, server.base_url)
    assert [e.ok for e in episodes] == [True, True], [e.errors for e in episodes]
    traces = [e.traces[0] for e in episodes]
    assert [t.reward for t in traces] == [1.0, 0.0]
    assert [t.info["task_id"] for t in traces] == ids
    assert [t.info["steps"] for t in traces] == [2, 2] and all(t.info["terminated"] for t in traces)
    assert traces[0].info["success"] is True and traces[1].info["success"] is False
    assert len(requests) == 4
    # what the model saw: the action grammar as system prompt, the question with the input image, then the tool's result
    first, second = requests[0], requests[1]
    assert first["messages"][0]["role"] == "system" and "colorspace" in first["messages"][0]["content"]
    assert "Where is the" in json.dumps(first["messages"][1]) and len(image_urls(first)) == 1
    assert image_urls(first)[0].startswith("data:image/jpeg;base64,")
    tail = json.dumps(second["messages"][-1])
    assert second["messages"][-1]["role"] == "user" and "img_1 = colorspace" in tail and len(image_urls(second)) == 2


def test_tool_calls_are_offered_and_answered_through_the_env():
    task_id = gym.make("VTCBench-v0").unwrapped.task_ids()[0]
    answer = _answers([task_id])[task_id]
    seen: list[dict] = []

    def policy(request: dict):
        seen.append(request)
        if len(seen) == 1:
            return tool_call("colorspace", image="img_0", target="gray")
        return f"<answer>{answer}</answer>"

    env = load_environment("VTCBench-v0", num_tasks=1, tools=True)
    with OpenAITestServer(policy) as server:
        (episode,) = _rollouts(env, server.base_url)
    assert episode.ok, episode.errors
    trace = episode.traces[0]
    assert trace.reward == 1.0 and trace.info["task_id"] == task_id and trace.info["steps"] == 2
    names = {t["function"]["name"] for t in seen[0]["tools"]}
    assert {"colorspace", "crop", "histogram"} <= names
    # the tool call was answered by a tool message carrying the env's result for its call id
    tool_messages = [m for m in seen[1]["messages"] if m["role"] == "tool"]
    assert tool_messages and tool_messages[0]["tool_call_id"] == "call_0" and "img_1 = colorspace" in json.dumps(tool_messages[0])


def test_a_stream_without_task_ids_and_unknown_ids():
    env = load_environment("VTCBench-v0", env_kwargs={"suite": "train", "task_filter": {"category": "color"}}, num_tasks=3, seed=5)
    tasks = list(env.taskset)
    assert [t.data.seed for t in tasks] == [5, 6, 7] and all(t.data.task_id is None for t in tasks)
    with pytest.raises(ValueError, match="unknown env id 'Nope-v0'"):
        load_environment("Nope-v0")
