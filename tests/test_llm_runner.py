"""The runner and CLI with the LLM agent: infrastructure failures counted apart, the ledger in records
and summary, --resume, and a clean Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import openai  # noqa: F401  (the llm extra is part of dev: these tests fail, not skip, without it)
import pytest

import llm_support
from _wait import is_running, wait_until
from mmenvs.baselines.llm.testserver import OpenAITestServer
from mmenvs.cli import main
from mmenvs.runner import evaluate, read_records

TESTS = Path(__file__).resolve().parent


def _llm_kwargs(server: OpenAITestServer, **extra):
    return {"model": "scripted", "base_url": server.base_url, "api_key": "k", "retries": 1, "backoff": 0.01,
            "backoff_max": 0.02, "timeout": 10.0, **extra}


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def test_infrastructure_failures_are_counted_apart_and_run_again_on_resume(tmp_path):
    table = llm_support.card_words()
    failing = {llm_support.DescribedEcho().load_task("echo-01")["word"]}  # the endpoint fails on this task only
    out = tmp_path / "run"
    with OpenAITestServer(llm_support.echo_policy(table, fail_words=failing)) as server:
        summary = evaluate(llm_support.ENV_ID, agent="llm", tasks="4", out=out, progress=False,
                           agent_kwargs=_llm_kwargs(server, price_prompt=1.0, price_completion=2.0))
    records = _records(out)
    infra = [r for r in records if r.get("infra_failure")]
    scored = [r for r in records if not r.get("infra_failure")]
    assert len(records) == 4 and len(infra) == 1  # the one task whose word the endpoint "fails" on
    assert all(r["score"] is None and r["success"] is None and r["infra_failure"]["kind"] == "http_500" for r in infra)
    assert all(r["success"] for r in scored)
    # never a 0 in the scores: the failed episodes are simply not there
    assert summary["infra_failures"] == len(infra) and summary["episodes"] == len(scored) == 4 - len(infra)
    assert summary["pass@1"] == 1.0 and summary["mean_score"] == 1.0 and summary["errors"] == 0
    assert summary["infra_failure_kinds"] == {"http_500": len(infra)}
    # the ledger: per record, and totals that add up
    assert all(r["ledger"]["calls"] == 1 for r in scored) and all(r["ledger"]["calls"] == 0 for r in infra)
    assert all(r["ledger"]["retries"] == 1 for r in infra)
    assert summary["ledger"]["calls"] == sum(r["ledger"]["calls"] for r in records) == len(scored)
    assert summary["ledger"]["prompt_tokens"] == sum(r["ledger"]["prompt_tokens"] for r in records)
    assert summary["ledger"]["cost_usd"] == pytest.approx(sum(r["ledger"]["cost_usd"] for r in records))
    assert records[0]["agent_config"]["model"] == "scripted" and "api_key" not in records[0]["agent_config"]
    # --resume with the endpoint healthy again runs only the failed episodes
    with OpenAITestServer(llm_support.echo_policy(table)) as server:
        resumed = evaluate(llm_support.ENV_ID, agent="llm", tasks="4", agent_kwargs=_llm_kwargs(server), out=out,
                           progress=False, resume=True)
        assert len(server.answered) == len(infra)
    assert resumed["resumed_episodes"] == len(scored) and resumed["infra_failures"] == 0
    assert resumed["episodes"] == 4 and resumed["pass@1"] == 1.0
    final = _records(out)
    assert len(final) == 4 and not any(r.get("infra_failure") for r in final)


def test_resume_skips_finished_episodes_and_a_torn_last_line(tmp_path):
    table = llm_support.card_words()
    out = tmp_path / "run"
    with OpenAITestServer(llm_support.echo_policy(table)) as server:
        evaluate(llm_support.ENV_ID, agent="llm", tasks="4", attempts=2, agent_kwargs=_llm_kwargs(server), out=out, progress=False)
        assert len(server.answered) == 8
        lines = (out / "episodes.jsonl").read_text().splitlines()
        (out / "episodes.jsonl").write_text("\n".join(lines[:5]) + '\n{"task_id": "echo-0')  # killed mid-write
        assert len(read_records(out / "episodes.jsonl")) == 5
        summary = evaluate(llm_support.ENV_ID, agent="llm", tasks="4", attempts=2, agent_kwargs=_llm_kwargs(server), out=out,
                           progress=False, resume=True)
        assert len(server.answered) == 8 + 3  # only the three unfinished episodes ran
    assert summary["resumed_episodes"] == 5 and summary["episodes"] == 8 and summary["pass^2"] == 1.0
    keys = sorted((r["task_id"], r["attempt"]) for r in _records(out))
    assert keys == sorted((f"echo-0{t}", a) for t in range(4) for a in range(2))
    with pytest.raises(ValueError, match="cannot resume: it holds episodes of env 'LLMEcho-v0' with agent 'llm'"):
        evaluate(llm_support.ENV_ID, agent="oracle", tasks="4", out=out, progress=False, resume=True)


def test_cli_eval_with_the_llm_agent(tmp_path, capsys, monkeypatch):
    table = llm_support.card_words()
    monkeypatch.setenv("MY_TEST_KEY", "secret-value")
    out = tmp_path / "cli"
    with OpenAITestServer(llm_support.echo_policy(table, as_tool=True)) as server:
        status = main(["eval", llm_support.ENV_ID, "--agent", "llm", "--model", "scripted", "--base-url", server.base_url,
                       "--api-key-env", "MY_TEST_KEY", "--framework", "tool", "--tasks", "3", "--temperature", "0",
                       "--price-prompt", "3", "--price-completion", "15", "--out", str(out)])
        assert status == 0
        assert server.answered[0]["temperature"] == 0 and "tools" in server.answered[0]
    printed = capsys.readouterr().out
    assert "infrastructure failures (not scored): 0" in printed and "model calls: 3" in printed and "cost $" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 1.0 and summary["ledger"]["calls"] == 3
    assert "secret-value" not in (out / "episodes.jsonl").read_text()
    assert main(["eval", llm_support.ENV_ID, "--agent", "llm", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "needs --model" in capsys.readouterr().err
    assert main(["eval", llm_support.ENV_ID, "--agent", "oracle", "--model", "x"]) == 2
    assert "configure --agent llm" in capsys.readouterr().err
    assert main(["eval", llm_support.ENV_ID, "--agent", "llm", "--model", "m", "--api-key-env", "NOT_SET_ANYWHERE_42"]) == 2
    assert "NOT_SET_ANYWHERE_42: that environment variable is not set" in capsys.readouterr().err


def test_ctrl_c_stops_cleanly_and_resume_finishes_the_run(tmp_path):
    out, pids = tmp_path / "run", tmp_path / "pids"
    pids.mkdir()
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
                   "SLOW_AGENT_DIR": str(pids)}
    command = [sys.executable, "-m", "mmenvs.cli", "eval", "DebugEcho-v0", "--agent", "llm_support:SlowAgent",
               "--tasks", "6", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: (out / "episodes.jsonl").exists() and len((out / "episodes.jsonl").read_text().splitlines()) >= 2,
                   timeout=240, what="the two quick episodes to be recorded")
        worker_pids = wait_until(lambda: [int(p.stem) for p in pids.glob("*.pid")], check=lambda found: len(found) >= 2,
                                 timeout=120, what="both workers to be busy")
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr[-2000:]
    assert "--resume" in stderr
    records = _records(out)
    assert len(records) == 2 and all(r["success"] for r in records)
    for pid in worker_pids:
        wait_until(lambda: not is_running(pid), what=f"worker {pid} to end")
    done = subprocess.run(command + ["--resume"], env={**environment, "SLOW_AGENT_FAST": "1"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed_episodes"] == 2 and summary["episodes"] == 6 and summary["pass@1"] == 1.0
