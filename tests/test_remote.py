"""RemoteEnv (check_env, gym.vector), the real openenv-core client, and `mmenvs eval --server`."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from serve_support import TOKEN, Server

from mmenvs.core.recorder import to_jsonable
from mmenvs.remote import RemoteEnv

ENV = "VTCBench-v0"


@pytest.fixture(scope="module")
def server():
    served = Server(ENV, "--oracle", "--max-sessions", "16", "--idle-timeout", "120")
    yield served
    served.stop()


def test_remote_env_passes_check_env_and_matches_local(server):
    env = RemoteEnv(server.url, ENV, token=TOKEN)
    local = gym.make(ENV)
    try:
        assert env.observation_space == local.observation_space and env.action_space == local.action_space
        check_env(env, skip_render_check=True)
        obs, info = env.reset(seed=5)
        local_obs, local_info = local.reset(seed=5)
        assert obs["text"] == local_obs["text"] and np.array_equal(obs["image"], local_obs["image"])  # PNG: exact
        assert info["task_id"] == local_info["task_id"]
    finally:
        env.close()
        local.close()


def test_remote_env_refuses_other_ids_and_kwargs(server):
    with pytest.raises(ValueError, match="serves 'VTCBench-v0', not 'DebugEcho-v0'"):
        RemoteEnv(server.url, "DebugEcho-v0", token=TOKEN)
    with pytest.raises(ValueError, match="gym.make kwargs"):
        RemoteEnv(server.url, ENV, token=TOKEN, obs_size=[64, 64])


# AsyncVectorEnv: UnicodeText has no shared-memory layout (as for local envs), so observations travel by pipe
@pytest.mark.parametrize("vector", [gym.vector.SyncVectorEnv,
                                    lambda fns: gym.vector.AsyncVectorEnv(fns, shared_memory=False)])
def test_remote_env_in_vector_envs(server, vector):
    url = server.url
    envs = vector([lambda: RemoteEnv(url, ENV, token=TOKEN) for _ in range(2)])
    try:
        obs, infos = envs.reset(seed=[0, 1])
        assert obs["image"].shape == (2, 448, 448, 3) and len(obs["text"]) == 2
        obs, rewards, terminated, truncated, infos = envs.step(["<answer>Z</answer>", "<answer>Z</answer>"])
        assert terminated.tolist() == [True, True] and rewards.shape == (2,)
    finally:
        envs.close()


def test_openenv_core_client_drives_an_episode(server):
    from openenv.core import GenericEnvClient

    local = gym.make(ENV)
    client = GenericEnvClient(base_url=server.url)
    sync = client.sync()
    try:
        # openenv-core's connect takes no headers: the token travels as its websockets client allows
        import openenv.core.env_client as env_client

        original = env_client.ws_connect
        env_client.ws_connect = lambda url, **kw: original(url, additional_headers={"Authorization": f"Bearer {TOKEN}"}, **kw)
        try:
            result = sync.reset(seed=2)
            obs, info = local.reset(seed=2)
            assert result.observation["text"] == obs["text"] and result.done is False
            done = False
            while not done:  # the oracle from a local env of the same task and seed
                action = local.unwrapped.oracle_action(obs, info)
                obs, reward, terminated, truncated, info = local.step(action)
                result = sync.step({"action": action})
                assert result.observation["text"] == obs["text"] and result.reward == pytest.approx(reward)
                done = result.done
            assert terminated and reward == 1.0
            state = sync.state()
            assert state["step_count"] >= 1 and state["done"] is True
        finally:
            env_client.ws_connect = original
    finally:
        sync.close()
        local.close()


def test_eval_against_the_server(server, tmp_path, monkeypatch):
    from mmenvs.cli import main

    monkeypatch.setenv("MMENVS_TOKEN", TOKEN)
    out = tmp_path / "run"
    assert main(["eval", ENV, "--server", server.url, "--tasks", "3", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mean_score"] == 1.0 and summary["episodes"] == 3


def _lockstep_oracle_episode(remote: RemoteEnv, local: gym.Env, seed: int) -> tuple[dict, dict]:
    """Run the local env's oracle on both envs in lockstep; every observation (PNG: exact images), reward,
    flags and info key set must agree. Returns the last infos (remote, local)."""

    def same(obs: dict, local_obs: dict) -> None:
        assert set(obs) == set(local_obs)
        for key, value in local_obs.items():
            if isinstance(value, np.ndarray):
                assert np.array_equal(obs[key], value), key
            else:
                assert obs[key] == value, key

    obs, info = remote.reset(seed=seed)
    local_obs, local_info = local.reset(seed=seed)
    same(obs, local_obs)
    assert set(info) == set(local_info) and info["task_id"] == local_info["task_id"]
    done = False
    while not done:
        action = local.unwrapped.oracle_action(local_obs, local_info)
        obs, reward, terminated, truncated, info = remote.step(action)
        local_obs, local_reward, local_terminated, local_truncated, local_info = local.step(action)
        same(obs, local_obs)
        assert (reward, terminated, truncated) == (pytest.approx(local_reward), local_terminated, local_truncated)
        assert set(info) == set(local_info) and info["score"] == pytest.approx(local_info["score"])
        assert info == json.loads(json.dumps(to_jsonable(local_info)))  # the values too, as JSON carries them
        done = terminated or truncated
    return info, local_info


@pytest.mark.parametrize(("env_id", "kwargs"), [("MacAgent-v0", {}), ("MMToolSandbox-v0", {"mode": "tool"})])
def test_remote_env_runs_the_other_benchmarks_like_a_local_env(env_id, kwargs):
    served = Server(env_id, "--kwargs", json.dumps(kwargs), "--max-sessions", "2", "--idle-timeout", "300")
    remote = RemoteEnv(served.url, env_id, token=TOKEN, **kwargs)
    local = gym.make(env_id, **kwargs)
    try:
        info, local_info = _lockstep_oracle_episode(remote, local, seed=1)
        assert info["score"] == local_info["score"] == 1.0 and info["success"] is True
    finally:
        remote.close()
        local.close()
        served.stop()


def test_server_connections_send_without_nagle_delay():
    """The listening socket says TCP, so asyncio turns Nagle off on every accepted connection (with it on,
    each keep-alive HTTP response waited ~40 ms for the client's delayed ACK)."""
    import asyncio
    import socket

    from mmenvs.serve.app import listening_socket

    async def accepted_nodelay() -> int:
        seen: asyncio.Future = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=listening_socket("127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            value = await asyncio.wait_for(seen, 30)
        server.close()
        await server.wait_closed()
        return value

    assert asyncio.run(accepted_nodelay()) != 0


def test_serve_bench_rows(monkeypatch):
    """The `mmenvs bench` rows of the serve path (few steps and sessions here): overhead rows subtract the
    worker's own env and encoding time (server_timing) step by step; the sessions row holds its sessions."""
    from mmenvs.benchmarks.harness import HARNESS_WORKLOADS, workload_modules
    from mmenvs.serve import bench

    assert HARNESS_WORKLOADS["mmenvs.serve.bench"] == "DebugEcho-v0" and "mmenvs.serve.bench" not in workload_modules()
    monkeypatch.setattr(bench, "STEPS", 12)
    monkeypatch.setattr(bench, "IDLE_SESSIONS", 2)
    rows = {row["name"].split(" (")[0]: row for row in bench.workloads()}
    assert set(rows) == {"serve: in-process step", "serve: PNG encoding of the DebugEcho-v0 observation image",
                         "serve: WebSocket per-step overhead", "serve: HTTP per-step overhead",
                         "serve: a WebSocket step with 2 idle sessions open"}
    websocket = rows["serve: WebSocket per-step overhead"]
    assert websocket["target_ms"] == 2.0 and websocket["per_s"] > 0 and "CPU per step" in websocket["note"]
    assert rows["serve: a WebSocket step with 2 idle sessions open"]["tree_pss_mb"] > 0
