"""``mmenvs serve --mcp``: the official MCP SDK's client lists an episode's tools (the env's own schemas),
calls them on VTCBench, MacAgent and MMToolSandbox (whose list follows the working set), reaches the
oracle's score through tool calls only; bad calls are error results; sessions are reaped; nothing leaks."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from typing import Any, Awaitable, Callable

import gymnasium as gym
import httpx2
import numpy as np
import pytest
from _wait import is_running, wait_until
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image
from serve_support import TOKEN, Server

import mmenvs  # noqa: F401  (registers the env ids)

VTC = "VTCBench-v0"


def _run(url: str, body: Callable[[Client], Awaitable[Any]], *, token: str | None = TOKEN,
         message_handler: Any = None) -> Any:
    """Run ``body(client)`` with the SDK's client connected to the server's ``/mcp/`` endpoint."""

    async def main() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"} if token else {}, timeout=300)
        async with Client(streamable_http_client(url + "/mcp/", http_client=http), message_handler=message_handler,
                          cache=None) as client:
            return await body(client)

    return asyncio.run(main())


def _image(result: Any) -> np.ndarray:
    images = [c for c in result.content if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(images[0].data))) as image:
        return np.asarray(image.convert("RGB"))


def _specs_as_mcp(specs: list[dict]) -> dict[str, tuple[str | None, dict]]:
    return {s["function"]["name"]: (s["function"].get("description"), s["function"]["parameters"]) for s in specs}


def _listed(tools: Any) -> dict[str, tuple[str | None, dict]]:
    return {t.name: (t.description, t.input_schema) for t in tools.tools if t.name not in ("reset", "act")}


async def _oracle_episode(client: Client, local: gym.Env, seed: int) -> tuple[dict, float]:
    """Drive the served episode with the oracle of a local env of the same seed, by MCP tool calls only."""
    result = await client.call_tool("reset", {"seed": seed})
    obs, info = local.reset(seed=seed)
    assert result.structured_content["task_id"] == info["task_id"]
    done = False
    while not done:
        action = local.unwrapped.oracle_action(obs, info)
        obs, reward, terminated, truncated, info = local.step(action)
        call = json.loads(action) if isinstance(action, str) and action.lstrip().startswith("{") else action
        if isinstance(call, dict):
            result = await client.call_tool(call["name"], call.get("arguments", {}))
        else:
            result = await client.call_tool("act", {"action": action})
        assert not result.is_error, result.content[0].text
        assert result.content[0].text == obs["text"]
        done = result.structured_content["done"]
        assert done == (terminated or truncated)
    return result.structured_content, info["score"]


@pytest.fixture(scope="module")
def vtc_server():
    served = Server(VTC, "--mcp", "--max-sessions", "8", "--idle-timeout", "120")
    yield served
    served.stop()  # asserts: no worker, forkserver or temp folder outlives it


def test_lists_the_env_tools_with_their_schemas(vtc_server):
    local = gym.make(VTC)
    try:
        tools = _run(vtc_server.url, lambda client: client.list_tools())
        assert [t.name for t in tools.tools][:2] == ["reset", "act"]
        assert _listed(tools) == _specs_as_mcp(local.unwrapped.tool_specs())
        assert len(_listed(tools)) == 34
    finally:
        local.close()


def test_vtcbench_reset_and_tool_give_text_and_image_and_oracle_score(vtc_server):
    local = gym.make(VTC)

    async def body(client: Client) -> Any:
        first = await client.call_tool("reset", {"seed": 3})
        obs, info = local.reset(seed=3)
        assert first.content[0].text == obs["text"] and np.array_equal(_image(first), obs["image"])
        structured, local_score = await _oracle_episode(client, local, seed=3)
        return structured, local_score

    try:
        structured, local_score = _run(vtc_server.url, body)
        assert structured["score"] == local_score == 1.0 and structured["terminated"] is True
    finally:
        local.close()


def test_bad_calls_are_error_results_not_crashes(vtc_server):
    async def body(client: Client) -> list[Any]:
        before_reset = await client.call_tool("blur", {"image": "img_0", "method": "median", "ksize": 5})
        await client.call_tool("reset", {"seed": 0})
        results = [before_reset,
                   await client.call_tool("no_such_tool", {}),
                   await client.call_tool("blur", {"image": "img_0", "ksize": "seven"}),
                   await client.call_tool("reset", {"seed": "zero"}),
                   await client.call_tool("act", {"text": "oops"})]
        after = await client.call_tool("blur", {"image": "img_0", "method": "median", "ksize": 5})  # still usable
        return results + [after]

    *bad, good = _run(vtc_server.url, body)
    assert all(r.is_error for r in bad), [r.content[0].text for r in bad]
    assert "step before reset" in bad[0].content[0].text
    assert "unknown tool 'no_such_tool'" in bad[1].content[0].text
    assert "ksize" in bad[2].content[0].text and bad[2].structured_content["action_error"]
    assert "seed" in bad[3].content[0].text and "action" in bad[4].content[0].text
    assert not good.is_error and good.content[0].text.startswith("img_1 = blur(img_0)")
    assert vtc_server.health()["status"] == "healthy"


def test_a_wrong_token_is_refused(vtc_server):
    with pytest.raises(Exception):  # the SDK's client cannot even initialize
        _run(vtc_server.url, lambda client: client.list_tools(), token="wrong")
    request = httpx2.post(vtc_server.url + "/mcp/", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert request.status_code == 401 and request.json()["code"] == "UNAUTHORIZED"


def test_one_mcp_session_is_one_server_session_reaped_when_idle():
    served = Server(VTC, "--mcp", "--idle-timeout", "1.5")
    try:
        forkserver_and_describe = served.children()

        async def body(client: Client) -> Any:
            await client.call_tool("reset", {"seed": 1})
            opened = served.health()
            workers = served.children() - forkserver_and_describe
            # idle: the reaper closes the session (its worker exits) and its MCP id is over
            reaped = await asyncio.to_thread(wait_until, served.health, check=lambda h: h["sessions"] == 0 and h["reaped"] >= 1,
                                             what="the idle MCP session reaped")
            try:
                after = await client.call_tool("act", {"action": "<answer>A</answer>"})
            except Exception as exc:  # noqa: BLE001
                after = exc
            return opened, workers, reaped, after

        opened, workers, reaped, after = _run(served.url, body)
        assert opened["sessions"] == 1 and reaped["reaped"] >= 1 and workers
        assert not any(is_running(pid) for pid in workers), "the reaped session's worker still runs"
        # the episode went with its session: the SDK's client starts a new MCP session, which has no episode
        assert isinstance(after, Exception) or (after.is_error and "reset" in after.content[0].text)
        wait_until(served.health, check=lambda h: h["sessions"] == 0, what="the new idle session reaped too")
    finally:
        served.stop()


def test_macagent_bash_and_computer_use():
    served = Server("MacAgent-v0", "--mcp", "--idle-timeout", "300")
    local = gym.make("MacAgent-v0")
    try:
        async def body(client: Client) -> Any:
            tools = await client.list_tools()
            reset = await client.call_tool("reset", {"seed": 0})
            bash = await client.call_tool("bash", {"command": "echo mcp-says-hi"})
            click = await client.call_tool("computer_use", {"action": "left_click", "coordinate": [640, 400]})
            return tools, reset, bash, click

        tools, reset, bash, click = _run(served.url, body)
        assert _listed(tools) == _specs_as_mcp(local.unwrapped.tool_specs(framework="hybrid"))
        obs, info = local.reset(seed=0)
        assert reset.content[0].text.startswith(obs["text"]) and np.array_equal(_image(reset), obs["image"])
        assert not bash.is_error and "mcp-says-hi" in bash.content[0].text
        assert not click.is_error and _image(click).shape == obs["image"].shape
        assert bash.structured_content["task_id"] == info["task_id"] and bash.structured_content["done"] is False
    finally:
        local.close()
        served.stop()


def test_toolsandbox_working_set_announced_and_oracle_score():
    served = Server("MMToolSandbox-v0", "--mcp", "--kwargs", '{"mode": "tool"}', "--idle-timeout", "300")
    local = gym.make("MMToolSandbox-v0", mode="tool")
    notices: list[str] = []

    async def on_message(message: Any) -> None:
        method = getattr(message, "method", None) or getattr(getattr(message, "root", None), "method", None)
        if method == "notifications/tools/list_changed":
            notices.append(method)

    async def body(client: Client) -> Any:
        first = {t.name for t in (await client.list_tools()).tools}
        structured, local_score = await _oracle_episode(client, local, seed=0)
        last = {t.name for t in (await client.list_tools()).tools}
        return first, last, structured, local_score

    try:
        first, last, structured, local_score = _run(served.url, body, message_handler=on_message)
        assert first == {"reset", "act", "search_tools", "execute_code"}
        assert last - first and "todo_create_task" in last  # found by search_tools, callable through MCP
        assert last - {"reset", "act"} == set(_specs_as_mcp(local.unwrapped.tool_specs()))
        assert notices, "no notifications/tools/list_changed after the working set moved"
        assert structured["score"] == local_score == 1.0
    finally:
        local.close()
        served.stop()


def test_mcp_sessions_are_capped_by_max_sessions():
    """The cap is the server's own (verifiers pins an MCP SDK release without one): a new MCP session past
    ``--max-sessions`` is refused with 503 before the SDK makes a transport; ending one makes room."""
    served = Server(VTC, "--mcp", "--max-sessions", "2", "--idle-timeout", "120")
    try:
        def initialize() -> httpx2.Response:
            return httpx2.post(served.url + "/mcp/", headers={**served.headers(), "Accept": "application/json, text/event-stream"},
                               json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                                   "protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "cap-test", "version": "1"}}}, timeout=60)

        first, second = initialize(), initialize()
        ids = [r.headers.get("mcp-session-id") for r in (first, second)]
        assert all(ids) and ids[0] != ids[1] and first.status_code == second.status_code == 200
        third = initialize()
        assert third.status_code == 503 and "maximum of 2 MCP sessions" in third.json()["error"]["message"]
        ended = httpx2.delete(served.url + "/mcp/", headers={**served.headers(), "mcp-session-id": ids[0]}, timeout=60)
        assert ended.status_code in (200, 204)
        assert initialize().status_code == 200  # room again
    finally:
        served.stop()
