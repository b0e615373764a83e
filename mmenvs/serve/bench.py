"""``mmenvs bench`` rows for ``mmenvs serve``: what the network path adds to a step, and how many idle
sessions one core holds.

* **Per-step overhead** of the WebSocket path and of HTTP (``POST /step``, one keep-alive connection),
  against the same env in-process. Both run DebugEcho-v0 (a 448x448 image and a text; its step costs
  well under a millisecond, so the round trip is mostly what the server adds) with the same action. The
  observation's PNG encoding (done in the session worker) is measured on its own and subtracted, so the
  ``overhead`` rows compare with the target (WebSocket <= 2 ms + image encoding): overhead = median
  round trip - median in-process step - median PNG encoding. The note gives CPU time per step of the
  client and of the server's process tree (the machine may be loaded: wall time alone misleads).
* **Sessions per core**: ``IDLE_SESSIONS`` WebSocket sessions each with its env made and reset, then
  left idle; the row gives the proportional memory (PSS) each adds to the server's process tree, the
  server's CPU use while they idle, and the step latency of one active session while they are open
  (``ratio``: that latency over the latency with no other session). One core keeps them responsive
  while that ratio stays near 1; memory, not CPU, bounds the count (the note: sessions per GB).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import signal
import subprocess
import sys
import time
import urllib.parse
from typing import Any, Iterator

ENV_ID = "DebugEcho-v0"
ACTION = "hello"
STEPS = 200
IDLE_SESSIONS = 32
WS_TARGET_MS = 2.0


@contextlib.contextmanager
def _server(*args: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """``mmenvs serve ENV_ID`` on a free loopback port (no token, loopback only), stopped afterwards."""
    command = [sys.executable, "-m", "mmenvs.cli", "serve", ENV_ID, "--port", "0", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
        if not match:
            raise RuntimeError(f"mmenvs serve did not start: {line!r}")
        yield match.group(1), process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its descendants, the exited ones too
    (a session's worker exits when its session closes; its parent, the forkserver, waited for it)."""
    import psutil

    total = 0.0
    root = psutil.Process(pid)
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
    return total


def _episode_steps(reset: Any, step: Any, count: int) -> tuple[list[float], float, list[float]]:
    """Wall milliseconds of ``count`` steps (resets between episodes are not timed), the client's CPU
    seconds spent in them, and per step the milliseconds the worker spent in the env and in encoding
    (its ``server_timing``; empty in-process), so the wire's share is measured pair by pair."""
    samples, worker, cpu = [], [], 0.0
    reset()
    while len(samples) < count:
        cpu_start, start = time.process_time(), time.perf_counter()
        done, timing = step()
        samples.append((time.perf_counter() - start) * 1000.0)
        cpu += time.process_time() - cpu_start
        if timing is not None:
            worker.append((timing["env_ms"], timing["encode_ms"]))
        if done:
            reset()
    return samples, cpu, worker


def _local_steps() -> tuple[list[float], list[float]]:
    import gymnasium as gym
    import numpy as np

    import mmenvs  # noqa: F401
    from mmenvs.benchmarks.harness import measure
    from mmenvs.wrappers.chat import encode_image

    env = gym.make(ENV_ID)
    try:
        observations: list[Any] = []

        def step() -> bool:
            obs, _, terminated, truncated, _ = env.step(ACTION)
            observations.append(obs["image"])
            return terminated or truncated, None

        samples, _, _ = _episode_steps(lambda: env.reset(seed=0), step, STEPS)
        image = np.asarray(observations[-1])
    finally:
        env.close()
    # the worker's encoding of an observation image (protocol.encode_observation), timed on its own
    return samples, measure(lambda: encode_image(image, image_format="png"), repeat=STEPS // 2)


def _result(data: dict[str, Any]) -> tuple[bool, dict[str, float]]:
    return data["done"], data["server_timing"]


def _ws_steps(url: str, count: int = STEPS) -> tuple[list[float], float, list[float]]:
    from websockets.sync.client import connect

    with connect("ws" + url[4:] + "/ws", max_size=None) as ws:
        def call(message: dict[str, Any]) -> dict[str, Any]:
            ws.send(json.dumps(message))
            reply = json.loads(ws.recv())
            if reply["type"] == "error":
                raise RuntimeError(reply["data"])
            return reply["data"]

        return _episode_steps(lambda: call({"type": "reset", "data": {"seed": 0}}),
                              lambda: _result(call({"type": "step", "data": {"action": ACTION}})), count)


def _http_steps(url: str, count: int = STEPS) -> tuple[list[float], float, list[float]]:
    parsed = urllib.parse.urlparse(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    session: dict[str, str] = {}

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        data = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"POST {path}: HTTP {response.status}: {data}")
        return data

    def reset() -> None:
        session["id"] = post("/reset", {"seed": 0, **({"session_id": session["id"]} if session else {})})["session_id"]

    try:
        return _episode_steps(reset, lambda: _result(post("/step", {"session_id": session["id"], "action": ACTION})),
                              count)
    finally:
        with contextlib.suppress(Exception):
            post("/close", {"session_id": session["id"]})
        connection.close()


def _overhead_row(name: str, samples: list[float], worker: list[tuple[float, float]], client_cpu: float,
                  server_cpu: float, local_ms: float, target: float | None) -> dict[str, Any]:
    import numpy as np

    from mmenvs.benchmarks.harness import timing_row

    overhead = [total - env_ms - encode_ms for total, (env_ms, encode_ms) in zip(samples, worker)]
    env_ms, encode_ms = (float(np.median([w[i] for w in worker])) for i in (0, 1))
    row = timing_row(name, overhead, per_s=1000.0 / float(np.median(samples)),
                     peer=f"{ENV_ID} in-process step", ratio=float(np.median(samples)) / local_ms,
                     note=f"per step, paired: round trip (median {np.median(samples):.2f} ms) - the worker's env step "
                          f"(median {env_ms:.2f}; in-process {local_ms:.2f}) - its PNG encoding (median {encode_ms:.2f}); "
                          f"CPU per step: client {1000 * client_cpu / len(samples):.2f} ms, server tree (workers "
                          f"included) {1000 * server_cpu / len(samples):.2f} ms, of which beyond the env step and "
                          f"encoding {1000 * server_cpu / len(samples) - env_ms - encode_ms:.2f} ms")
    if target is not None:
        row["target_ms"] = target
    return row


def _sessions_row(url: str, process: subprocess.Popen) -> dict[str, Any]:
    import numpy as np
    from websockets.sync.client import connect

    from mmenvs.benchmarks.harness import timing_row, tree_pss_mb

    alone, _, _ = _ws_steps(url, STEPS // 2)
    before = tree_pss_mb(process.pid)
    sockets = []
    try:
        for seed in range(IDLE_SESSIONS):
            ws = connect("ws" + url[4:] + "/ws", max_size=None).__enter__()
            sockets.append(ws)
            ws.send(json.dumps({"type": "reset", "data": {"seed": seed}}))
            assert json.loads(ws.recv())["type"] == "observation", "an idle session failed to reset"
        held = tree_pss_mb(process.pid)
        with_idle, _, _ = _ws_steps(url, STEPS // 2)  # one active session among the idle ones
        # the server's CPU while only idle sessions exist (reaper ticks, WebSocket pings), per session and second
        idle_start, idle_cpu_start = time.perf_counter(), _tree_cpu_s(process.pid)
        time.sleep(2.0)  # a measuring window, not a synchronisation
        idle_cpu = (_tree_cpu_s(process.pid) - idle_cpu_start) / (time.perf_counter() - idle_start)
    finally:
        for ws in sockets:
            with contextlib.suppress(Exception):
                ws.close()
    per_session = (held - before) / IDLE_SESSIONS
    ratio = float(np.median(with_idle) / np.median(alone))
    return timing_row(f"serve: a WebSocket step with {IDLE_SESSIONS} idle sessions open ({ENV_ID})", with_idle,
                      tree_pss_mb=held, peer="the same step with no other session", ratio=ratio,
                      note=f"PSS per idle session {per_session:.1f} MB (~{1024 / max(per_session, 0.1):.0f} sessions "
                           f"per GB); server CPU while idle {100 * idle_cpu:.2f}% of a core for {IDLE_SESSIONS} "
                           f"sessions; alone {np.median(alone):.2f} ms")


def workloads() -> list[dict[str, Any]]:
    """Rows: WebSocket and HTTP overhead per step (PNG encoding apart), PNG encoding, idle sessions per core."""
    import numpy as np

    from mmenvs.benchmarks.harness import timing_row

    local, encode = _local_steps()
    local_ms = float(np.median(local))
    rows = [timing_row(f"serve: in-process step ({ENV_ID}, the peer)", local),
            timing_row(f"serve: PNG encoding of the {ENV_ID} observation image (448x448)", encode,
                       note="in this process; the session worker encodes every reset/step observation and reports its "
                            "own time (server_timing), which the overhead rows subtract step by step")]
    with _server("--max-sessions", str(IDLE_SESSIONS + 4), "--idle-timeout", "300") as (url, process):
        for name, run, target in (("WebSocket", _ws_steps, WS_TARGET_MS), ("HTTP", _http_steps, None)):
            cpu_start = _tree_cpu_s(process.pid)
            samples, client_cpu, worker = run(url, STEPS)
            server_cpu = _tree_cpu_s(process.pid) - cpu_start
            rows.append(_overhead_row(f"serve: {name} per-step overhead ({ENV_ID}, env step and PNG encoding excluded)",
                                      samples, worker, client_cpu, server_cpu, local_ms, target))
        rows.append(_sessions_row(url, process))
    return rows
