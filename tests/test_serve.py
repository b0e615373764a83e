"""``mmenvs serve`` under load and abuse (loopback only): 64 concurrent oracle episodes, a worker killed
mid-episode, 100 half-open connections reaped, 4xx answers, no leaked processes or temp files."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest
from _wait import wait_until
from serve_support import TOKEN, Server
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from mmenvs.remote import RemoteEnv, RemoteEnvError

ENV = "VTCBench-v0"


@pytest.fixture(scope="module")
def server():
    served = Server(ENV, "--oracle", "--max-sessions", "80", "--idle-timeout", "60",
                    "--max-message-bytes", "65536")
    yield served
    served.stop()


def _oracle_episode(url: str, seed: int) -> dict:
    env = RemoteEnv(url, ENV, token=TOKEN)
    try:
        obs, info = env.reset(seed=seed)
        done, steps = False, 0
        while not done:
            obs, reward, terminated, truncated, info = env.step(env.oracle_action())
            done, steps = terminated or truncated, steps + 1
        return {"score": info["score"], "steps": steps, "task_id": info["task_id"]}
    finally:
        env.close()


def test_64_concurrent_sessions_finish_oracle_episodes(server):
    results: dict[int, object] = {}

    def run(seed: int) -> None:
        try:
            results[seed] = _oracle_episode(server.url, seed)
        except Exception as exc:  # kept to fail the test with the reason
            results[seed] = exc

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(64)]
    for thread in threads:
        thread.start()
    peak = wait_until(lambda: (server.health()["sessions"], sum(t.is_alive() for t in threads)),
                      check=lambda v: v[0] >= 32 or v[1] == 0, what="many sessions open at once", timeout=120)
    for thread in threads:
        thread.join(timeout=150)
    failures = {seed: r for seed, r in results.items() if not isinstance(r, dict)}
    assert not failures, failures
    assert len(results) == 64 and all(r["score"] == 1.0 and r["steps"] >= 1 for r in results.values())
    assert len({r["task_id"] for r in results.values()}) > 1
    assert peak[0] >= 32 or peak[1] == 0
    wait_until(lambda: server.health()["sessions"], check=lambda n: n == 0, what="every session closed")


def test_killed_worker_costs_only_its_session(server):
    envs = [RemoteEnv(server.url, ENV, token=TOKEN) for _ in range(3)]
    try:
        for seed, env in enumerate(envs):
            env.reset(seed=seed)
        victim = envs[0].state()["worker_pid"]
        assert victim and victim in server.children()
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(RemoteEnvError) as error:
            envs[0].step(envs[0].oracle_action())
        assert error.value.code == "WORKER_DIED" and "died" in str(error.value)
        with pytest.raises(RemoteEnvError, match="died"):  # the session stays over
            envs[0].step("<answer>A</answer>")
        for env in envs[1:]:
            done = False
            while not done:
                _, _, terminated, truncated, info = env.step(env.oracle_action())
                done = terminated or truncated
            assert info["score"] == 1.0
        assert server.health()["status"] == "healthy"
    finally:
        for env in envs:
            env.close()


def _post(server, path: str, body: bytes, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(server.url + path, data=body, method="POST",
                                     headers={"Content-Type": "application/json", **server.headers(), **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_http_session_episode_and_4xx(server):
    status, reset = _post(server, "/reset", json.dumps({"seed": 3}).encode())
    assert status == 200 and reset["done"] is False and reset["observation"]["image"].startswith("data:image/png;base64,")
    session = reset["session_id"]
    status, step = _post(server, "/step", json.dumps({"session_id": session, "action": "<answer>Z</answer>"}).encode())
    assert status == 200 and step["done"] is True and isinstance(step["info"], dict) and "score" in step["info"]
    assert server.get(f"/state?session_id={session}")["step_count"] == 1

    status, body = _post(server, "/reset", b"{not json")
    assert status == 400 and "Invalid JSON" in body["detail"]
    status, body = _post(server, "/step", json.dumps({"session_id": "nope", "action": "x"}).encode())
    assert status == 404 and "no open session 'nope'" in body["detail"]
    status, body = _post(server, "/step", json.dumps({"session_id": session}).encode())
    assert status == 400 and "needs 'action'" in body["detail"]
    status, body = _post(server, "/reset", json.dumps({"seed": "zero"}).encode())
    assert status == 400 and "seed" in body["detail"]
    status, body = _post(server, "/step", b'{"action": "' + b"x" * 100_000 + b'"}')
    assert status == 413 and "over the server's limit" in body["detail"]
    status, body = _post(server, "/reset", b"{}", headers={"Authorization": "Bearer wrong"})
    assert status == 401 and "bearer token" in body["detail"]
    with pytest.raises(urllib.error.HTTPError) as denied:
        urllib.request.urlopen(server.url + "/schema", timeout=30)
    assert denied.value.code == 401
    assert _post(server, "/close", json.dumps({"session_id": session}).encode())[0] == 200
    assert _post(server, "/step", json.dumps({"session_id": session, "action": "x"}).encode())[0] == 404


def test_websocket_errors_are_clear(server):
    with pytest.raises(InvalidStatus) as denied:
        connect(server.url.replace("http", "ws") + "/ws", additional_headers={"Authorization": "Bearer wrong"})
    assert denied.value.response.status_code == 403
    with connect(server.url.replace("http", "ws") + "/ws", additional_headers=server.headers()) as ws:
        ws.send("{oops")
        reply = json.loads(ws.recv(timeout=30))
        assert reply["type"] == "error" and reply["data"]["code"] == "INVALID_JSON"
        ws.send(json.dumps({"type": "jump"}))
        assert json.loads(ws.recv(timeout=30))["data"]["code"] == "UNKNOWN_TYPE"
        ws.send(json.dumps({"type": "step", "data": {"action": "x"}}))
        assert "before reset" in json.loads(ws.recv(timeout=30))["data"]["message"]
        ws.send(json.dumps({"type": "step", "data": {"action": "x" * 100_000}}))
        assert json.loads(ws.recv(timeout=30))["data"]["code"] == "MESSAGE_TOO_LARGE"
        ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))  # the session still works
        assert json.loads(ws.recv(timeout=60))["type"] == "observation"


def test_half_open_connections_are_reaped():
    served = Server(ENV, "--max-sessions", "120", "--idle-timeout", "2")
    sockets: list[socket.socket] = []
    sessions = []
    try:
        host, port = served.url[len("http://"):].split(":")
        for _ in range(50):  # TCP connections that never send a byte
            sockets.append(socket.create_connection((host, int(port)), timeout=30))
        for _ in range(50):  # WebSocket sessions that never send a message
            sessions.append(connect(served.url.replace("http", "ws") + "/ws", additional_headers=served.headers()))
        assert served.health()["sessions"] == 50
        wait_until(lambda: served.health()["sessions"], check=lambda n: n == 0, what="the silent sessions reaped")
        for sock in sockets:
            sock.settimeout(30)
            assert sock.recv(1) == b""  # closed by the server
        for ws in sessions:
            reply = json.loads(ws.recv(timeout=30))
            assert reply["data"]["code"] == "SESSION_CLOSED" and "idle" in reply["data"]["message"]
        assert served.health()["reaped"] == 50
    finally:
        for sock in sockets:
            sock.close()
        for ws in sessions:
            ws.close()
        served.stop()


@pytest.mark.parametrize("args, message", [
    (["Nope-v0"], "Nope-v0"),
    ([ENV, "--host", "0.0.0.0"], "not a loopback address"),
    ([ENV, "--host", "0.0.0.0", "--allow-remote"], "needs a bearer token"),
    ([ENV, "--kwargs", "[1]"], "JSON object"),
])
def test_refused_start_ups(args, message):
    result = subprocess.run([sys.executable, "-m", "mmenvs.cli", "serve", *args, "--port", "0"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode != 0 and message in result.stderr, result.stderr[-1500:]
