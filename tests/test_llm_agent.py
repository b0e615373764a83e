"""The LLM agent against the project's own OpenAI-compatible server on 127.0.0.1, through the real
openai client: the oracle's score through the LLM path, images, re-prompts, retries, infrastructure
failures, the ledger and the response cache."""

from __future__ import annotations

import io
import json
import socket

import gymnasium as gym
import openai  # noqa: F401  (the llm extra is part of dev: these tests fail, not skip, without it)
import pytest
import tenacity  # noqa: F401
from PIL import Image

import llm_support
from mmenvs.baselines import InfrastructureFailure, load_agent
from mmenvs.baselines.llm import RequestRejected, resolve_framework
from mmenvs.baselines.llm.testserver import IMAGE_TOKENS, OpenAITestServer, image_urls, replay, tool_call, tool_calls
from mmenvs.wrappers.chat import ImageOptions, decode_data_url

FAST = {"backoff": 0.01, "backoff_max": 0.05, "timeout": 10.0}


def _agent(server: OpenAITestServer, **options):
    return load_agent("llm", model="scripted", base_url=server.base_url, api_key="test-key", **{**FAST, **options})


def _play(agent, env, task_id: str, max_steps: int = 20):
    """One episode as the runner plays it; returns (actions, final info)."""
    agent.bind(env)
    obs, info = env.reset(seed=0, options={"task_id": task_id})
    agent.reset(info)
    actions = []
    for _ in range(max_steps):
        action = agent.act(obs, info)
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return actions, info


@pytest.fixture
def env():
    environment = llm_support.DescribedEcho()
    yield environment
    environment.close()


@pytest.mark.parametrize("framework", ["text", "tool"])
def test_every_task_reaches_the_oracle_score_through_the_llm_path(env, framework):
    policy = llm_support.echo_policy(llm_support.card_words(), as_tool=framework == "tool")
    with OpenAITestServer(policy) as server:
        agent = _agent(server, framework=framework)
        for task_id in env.task_ids():
            actions, info = _play(agent, env, task_id)
            assert info["score"] == 1.0 and info["success"], (task_id, actions)
        assert len(server.answered) == len(env.task_ids())
        request = server.answered[-1]
        assert ("tools" in request) == (framework == "tool")
        if framework == "tool":
            assert {t["function"]["name"] for t in request["tools"]} == {"answer", "say"}
            assert actions == [{"answer": env.task["word"]}]  # the env's tool_call_action hook shaped the action
        assert env.action_description() in request["messages"][0]["content"]  # the grammar comes from the env


def test_requests_carry_data_url_images_of_the_configured_size_and_at_most_n(env):
    replies = [f"SAY w{i}" for i in range(5)] + ["<answer>x</answer>"]
    with OpenAITestServer(replay(*replies)) as server:
        agent = _agent(server, max_images=2, max_image_side=80, image_format="png")
        _play(agent, env, "echo-00")
        counts = [len(image_urls(r)) for r in server.answered]
        assert counts == [1, 2, 2, 2, 2, 2]
        last = server.answered[-1]
        for url in image_urls(last):
            mime, data = decode_data_url(url)
            image = Image.open(io.BytesIO(data))
            assert mime == "image/png" and image.format == "PNG" and max(image.size) == 80
        texts = [p["text"] for m in last["messages"] if isinstance(m["content"], list) for p in m["content"] if p["type"] == "text"]
        assert [t for t in texts if t.endswith("omitted]")] == [f"[image img_{i} omitted]" for i in range(4)]
        assert len(image_urls({"messages": agent.messages()})) == 2


def test_an_unusable_reply_is_re_prompted_with_the_error_shown(env):
    env.reset(seed=0, options={"task_id": "echo-03"})
    word = env.task["word"]
    bad_json = {"content": None, "tool_calls": [{"name": "answer", "arguments": "{word: oops"}]}
    with OpenAITestServer(replay(bad_json, {"content": ""}, tool_call("answer", word=word))) as server:
        agent = _agent(server, framework="tool", max_reprompts=2)
        actions, info = _play(agent, env, "echo-03")
        assert actions == [{"answer": word}] and info["success"]
        assert agent.ledger()["reprompts"] == 2 and agent.ledger()["calls"] == 3
        second, third = server.answered[1]["messages"], server.answered[2]["messages"]
        tool_answer = next(m for m in second if m["role"] == "tool")
        assert tool_answer["tool_call_id"] == "call_0" and "not valid JSON" in tool_answer["content"]
        assert "could not be used" in second[-1]["content"][0]["text"]
        assert "Your reply was empty" in third[-1]["content"][0]["text"]


def test_re_prompts_are_bounded_then_the_env_reports_the_error(env):
    with OpenAITestServer(replay("", "", "hello there", "<answer>x</answer>")) as server:
        agent = _agent(server, max_reprompts=1)
        actions, info = _play(agent, env, "echo-00")
        assert actions[0] == "" and agent.ledger()["reprompts"] == 1
        # the env's own parse error of a bad action is what the model sees next
        assert actions[1] == "hello there"
        last_user = server.answered[-1]["messages"][-1]["content"][0]["text"]
        assert last_user.startswith("Error: Unknown action") and agent.ledger()["action_errors"] == 2


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_statuses_are_retried_then_succeed(env, status):
    with OpenAITestServer(replay("<answer>x</answer>")) as server:
        server.fail(status, times=2, retry_after=0 if status == 429 else None)
        agent = _agent(server, retries=3)
        actions, _ = _play(agent, env, "echo-00")
        assert actions == ["<answer>x</answer>"]
        assert len(server.requests) == 3 and len(server.answered) == 1
        assert agent.ledger()["retries"] == 2 and agent.ledger()["calls"] == 1


def test_a_hanging_call_times_out_and_a_dropped_one_is_retried(env):
    with OpenAITestServer(replay("<answer>x</answer>")) as server:
        server.hang(times=1, seconds=60)
        server.drop(times=1)
        agent = _agent(server, retries=3, timeout=0.5)
        actions, _ = _play(agent, env, "echo-00")
        assert actions == ["<answer>x</answer>"] and agent.ledger()["retries"] == 2


def test_an_endpoint_failing_past_the_retries_is_an_infrastructure_failure(env):
    with OpenAITestServer(replay("<answer>x</answer>")) as server:
        server.fail(500, times=10)
        agent = _agent(server, retries=2)
        with pytest.raises(InfrastructureFailure, match="HTTP 500 after 3 tries") as caught:
            _play(agent, env, "echo-00")
        assert caught.value.kind == "http_500" and len(server.requests) == 3
        dead_url = server.base_url
    # the server is gone: connection refused, retried, then an infrastructure failure
    agent = load_agent("llm", model="scripted", base_url=dead_url, api_key="k", retries=1, **FAST)
    with pytest.raises(InfrastructureFailure, match="cannot connect after 2 tries") as caught:
        _play(agent, env, "echo-00")
    assert caught.value.kind == "connection" and agent.ledger()["retries"] == 1


def test_config_errors_are_infrastructure_and_bad_requests_are_agent_errors(env):
    with OpenAITestServer(replay()) as server:  # an exhausted policy answers 400
        agent = _agent(server)
        with pytest.raises(RequestRejected, match="HTTP 400"):
            _play(agent, env, "echo-00")
        assert len(server.requests) == 1  # a 400 is not retried
        server.fail(401, times=1)
        with pytest.raises(InfrastructureFailure, match="HTTP 401") as caught:
            _play(_agent(server), env, "echo-00")
        assert caught.value.kind == "http_401"


def test_the_ledger_adds_up_to_the_servers_usage_and_prices(env):
    with OpenAITestServer(replay("SAY one two three", "SAY four", "<answer>x</answer>")) as server:
        agent = _agent(server, price_prompt=2.5, price_completion=10.0, temperature=0.3, max_tokens=64, seed=7)
        _play(agent, env, "echo-00")
        ledger = agent.ledger()
        assert ledger["calls"] == 3 and ledger["completion_tokens"] == 4 + 2 + 1
        assert ledger["prompt_tokens"] == server.usage["prompt_tokens"] and ledger["total_tokens"] == server.usage["total_tokens"]
        assert ledger["cost_usd"] == pytest.approx((ledger["prompt_tokens"] * 2.5 + ledger["completion_tokens"] * 10.0) / 1e6)
        # images are counted by the server at IMAGE_TOKENS each: the ledger saw them
        assert ledger["prompt_tokens"] > 3 * IMAGE_TOKENS
        request = server.answered[0]
        assert (request["temperature"], request["max_tokens"], request["seed"]) == (0.3, 64, 7)
        assert agent.config()["sampling"] == {"temperature": 0.3, "max_tokens": 64, "seed": 7}
        assert "test-key" not in json.dumps(agent.config())
        agent.reset({})
        assert agent.ledger()["calls"] == 0  # per episode


def test_the_cache_replays_a_run_with_the_server_stopped(env, tmp_path):
    policy = llm_support.echo_policy(llm_support.card_words())
    with OpenAITestServer(policy) as server:
        agent = _agent(server, cache=tmp_path / "cache")
        first = [_play(agent, env, t)[0] for t in ("echo-00", "echo-01")]
        assert len(server.answered) == 2
        url = server.base_url
    replayer = load_agent("llm", model="scripted", base_url=url, api_key="k", cache=tmp_path / "cache", cache_mode="replay", **FAST)
    again = [_play(replayer, env, t)[0] for t in ("echo-00", "echo-01")]
    assert again == first and replayer.ledger()["cached_calls"] == replayer.ledger()["calls"] == 1
    with pytest.raises(InfrastructureFailure, match="no entry for this request") as caught:
        _play(replayer, env, "echo-05")
    assert caught.value.kind == "cache_miss"


def test_several_tool_calls_in_one_reply_run_one_per_step(env):
    env.reset(seed=0, options={"task_id": "echo-04"})
    word = env.task["word"]
    with OpenAITestServer(replay(tool_calls(("say", {"text": "a"}), ("answer", {"word": word})))) as server:
        agent = _agent(server, framework="tool")
        actions, info = _play(agent, env, "echo-04")
        assert actions == [{"say": "a"}, {"answer": word}] and info["success"] and len(server.answered) == 1
        tool_messages = [m for m in agent.messages() if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == ["call_0"]  # the second's result came with the episode's end
        assert tool_messages[0]["content"] == "a"


def test_frameworks_are_validated_per_env_and_the_interface_is_required():
    macagent_like = type("MacAgentEnv", (), {})()
    assert resolve_framework(macagent_like, None).name == "pyautogui"
    for name in ("pyautogui", "computer_use", "hybrid"):
        assert resolve_framework(macagent_like, name).name == name
    with pytest.raises(ValueError, match=r"framework 'code' is not available for MacAgentEnv: choose one of \['computer_use', 'hybrid', 'pyautogui'\]"):
        resolve_framework(macagent_like, "code")
    sandbox = type("MMToolSandboxEnv", (), {"mode": "code"})()
    assert resolve_framework(sandbox, None).name == "code"
    with pytest.raises(ValueError, match="needs MMToolSandboxEnv made with mode in \\['tool', 'ui'\\].*mode='code'"):
        resolve_framework(sandbox, "tool")
    vtc = type("VTCBenchEnv", (), {"mode": "tool"})()
    assert resolve_framework(vtc, None).name == "tool" and resolve_framework(vtc, None).uses_tools
    agent = load_agent("llm", model="m", base_url="http://127.0.0.1:9/v1", api_key="k")
    with pytest.raises(TypeError, match=r"BareEcho does not offer action_description\(\) and tool_specs\(\)"):
        agent.bind(llm_support.BareEcho())
    with pytest.raises(ValueError, match="model must be"):
        load_agent("llm", model="", base_url="x")
    with pytest.raises(ValueError, match="cache_mode='replay' needs cache"):
        load_agent("llm", model="m", cache_mode="replay")


def test_the_test_server_stops_cleanly_and_frees_its_port():
    server = OpenAITestServer(replay("hi")).start()
    port = server.port
    server.hang(times=1, seconds=600)
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=0.3)
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    server.stop()  # releases the hanging handler at once
    assert not server.running
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0  # nothing listens any more
    assert gym.spec(llm_support.ENV_ID) is not None
    assert ImageOptions().image_format == "jpeg"


def test_the_request_body_is_sent_as_built_with_extra_body_merged(env):
    """The agent posts its plain-JSON request through the client as it is (no client-side rewrite):
    sampling options at the top level, ``extra_body`` keys merged in, the messages unchanged."""
    with OpenAITestServer(replay("<answer>x</answer>")) as server:
        agent = _agent(server, temperature=0.0, max_tokens=64, seed=7, extra_body={"top_k": 20, "repetition_penalty": 1.1})
        _play(agent, env, "echo-00")
        body = server.answered[0]
        assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 64, 7)
        assert (body["top_k"], body["repetition_penalty"]) == (20, 1.1) and "extra_body" not in body
        assert body["model"] == "scripted" and body["messages"][:2] == agent.messages()[:2]
