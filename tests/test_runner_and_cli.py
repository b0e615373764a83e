"""The evaluation runner, the recorder under a crash, the CLI and the bench harness, on DebugEcho-v0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401
from mmenvs.baselines import OracleAgent, RandomAgent, load_agent
from mmenvs.core import EpisodeRecorder, read_episode
from mmenvs.runner import evaluate, select_tasks


def test_eval_end_to_end_with_two_workers(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "mmenvs.cli", "eval", "DebugEcho-v0", "--agent", "oracle",
                           "--tasks", "4", "--attempts", "2", "--workers", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {"episodes.jsonl", "summary.json", "summary.png"} <= {p.name for p in out.iterdir()}
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 8 and all(r["success"] and r["error"] is None for r in records)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 1.0 and summary["pass^2"] == 1.0 and summary["episodes"] == 8
    assert set(summary["breakdowns"]["category"]) == {"fruit"}
    assert (out / "summary.png").stat().st_size > 1000
    steps = read_episode(out / "episodes" / "echo-00__a1")
    assert steps[0]["event"] == "reset" and steps[-1]["reward"] == 1.0
    assert (out / "episodes" / "echo-00__a1" / "images" / "img_0.png").exists()
    assert "pass@2" in done.stdout


def test_random_agent_scores_near_zero_and_oracle_full(tmp_path):
    random_summary = evaluate("DebugEcho-v0", agent="random", attempts=2, out=tmp_path / "r", progress=False, record_steps=False)
    oracle_summary = evaluate("DebugEcho-v0", agent="oracle", out=tmp_path / "o", progress=False, record_steps=False)
    assert random_summary["mean_score"] <= 0.05
    assert oracle_summary["mean_score"] == 1.0 and oracle_summary["episodes"] == 12


def test_task_selection():
    assert select_tasks("DebugEcho-v0", "2", {}) == ["echo-00", "echo-01"]
    assert select_tasks("DebugEcho-v0", "echo-03,echo-01", {}) == ["echo-03", "echo-01"]
    assert len(select_tasks("DebugEcho-v0", "all", {})) == 12
    with pytest.raises(ValueError, match="unknown task ids"):
        select_tasks("DebugEcho-v0", "echo-99", {})


def test_load_agent_by_name_and_module():
    assert isinstance(load_agent("random"), RandomAgent)
    assert isinstance(load_agent("oracle"), OracleAgent)
    assert isinstance(load_agent("mmenvs.baselines:RandomAgent", seed=3), RandomAgent)
    with pytest.raises(ValueError, match="cannot import"):
        load_agent("no_such_module_xyz:Agent")
    with pytest.raises(ValueError, match="unknown agent"):
        load_agent("gpt")


def test_recorder_keeps_finished_steps_when_the_worker_is_killed(tmp_path):
    folder = tmp_path / "episode"
    script = textwrap.dedent(f"""
        import time, gymnasium as gym, mmenvs
        from mmenvs.core import EpisodeRecorder
        env = gym.make("DebugEcho-v0", max_steps=1000)
        obs, info = env.reset(seed=0)
        recorder = EpisodeRecorder({str(folder)!r})
        recorder.record_reset(obs, info, env.unwrapped.images)
        for i in range(1000):
            obs, r, term, trunc, info = env.step(f"SAY step {{i}}")
            recorder.record_step(f"SAY step {{i}}", obs, r, term, trunc, info, env.unwrapped.images)
            if i == 4:
                print("ready", flush=True)
                time.sleep(60)
    """)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "ready"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    lines = read_episode(folder)
    assert [line["step"] for line in lines] == [0, 1, 2, 3, 4, 5]
    assert lines[-1]["text"] == "step 4"
    assert (folder / "images" / "img_0.png").exists()


def test_recorder_skips_a_torn_last_line(tmp_path):
    with EpisodeRecorder(tmp_path) as recorder:
        recorder.record_reset({"text": "hello"}, {"images": []})
    with open(tmp_path / "steps.jsonl", "a") as handle:
        handle.write('{"step": 1, "ev')  # a crash mid-write
    assert [line["text"] for line in read_episode(tmp_path)] == ["hello"]


def test_cli_list_and_details():
    done = subprocess.run([sys.executable, "-m", "mmenvs.cli", "list", "--details", "DebugEcho-v0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "DebugEcho-v0" in done.stdout and "12 tasks" in done.stdout
    assert "by category" in done.stdout and "fruit" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "mmenvs.cli", "list", "--details", "Nope-v0"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown env ids" in bad.stderr


def test_cli_bench_prints_and_records(tmp_path):
    results = tmp_path / "RESULTS.md"
    done = subprocess.run([sys.executable, "-m", "mmenvs.cli", "bench", "DebugEcho-v0", "--no-workloads", "--record", str(results)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "DebugEcho-v0: reset" in done.stdout and "DebugEcho-v0: step (oracle actions)" in done.stdout
    text = results.read_text()
    assert "Machine:" in text and "cores" in text and "| DebugEcho-v0: reset |" in text
    row = next(line for line in text.splitlines() if line.startswith("| DebugEcho-v0: step"))
    median_ms = float(row.split("|")[2])
    assert median_ms > 0


def test_bench_timing_helpers():
    from mmenvs.benchmarks.harness import measure, timing_row

    samples = measure(lambda: sum(range(1000)), repeat=10, warmup=1)
    assert len(samples) == 10 and all(s >= 0 for s in samples)
    row = timing_row("x", [1.0, 2.0, 3.0, 4.0, 100.0])
    assert row["median_ms"] == 3.0 and 4.0 < row["p95_ms"] <= 100.0


def test_an_in_process_run_closes_its_envs_and_a_remote_env_is_never_reused_locally(tmp_path, monkeypatch):
    """With one worker the episodes run in this process: their envs end with the run (no sandbox or session
    outlives evaluate()), and the env cache tells a server's env from a local one of the same id."""
    from mmenvs import runner

    closed = []
    real_close = gym.Env.close

    def spy_close(self):
        closed.append(type(self.unwrapped).__name__)
        return real_close(self)

    monkeypatch.setattr(gym.Env, "close", spy_close)
    summary = runner.evaluate("DebugEcho-v0", agent="oracle", tasks=["echo-01"], out=tmp_path / "a", progress=False)
    assert summary["mean_score"] == 1.0
    assert runner._WORKER_ENVS == {} and "DebugEchoEnv" in closed

    job = runner.EpisodeJob("DebugEcho-v0", "echo-01", 0, "oracle", 0, {}, {}, None)
    local = runner._env_for(job)
    try:
        remote_job = runner.EpisodeJob("DebugEcho-v0", "echo-01", 0, "oracle", 0, {}, {}, None, server="http://127.0.0.1:9")
        key = ("DebugEcho-v0", "{}", "http://127.0.0.1:9")
        assert key not in runner._WORKER_ENVS and runner._env_for(job) is local
        with pytest.raises(Exception):  # nothing listens there: a RemoteEnv is tried, never the local env
            runner._env_for(remote_job)
    finally:
        runner.close_worker_envs()
