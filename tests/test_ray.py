"""``mmenvs eval --ray``: episodes on Ray actors (mmenvs/distributed/ray_runner.py).

One local Ray instance serves the whole test run (``ray.init(num_cpus=2)``, no dashboard); at the end it
is shut down and none of its processes (``raylet``, ``gcs_server``, workers) may survive. Ray is a test
dependency (the ``dev`` extra pulls ``dist``): without it this module fails to import, it does not skip.

The crash tests use the agents below, loaded in the Ray workers as ``test_ray:ClassName`` (the fixture
puts ``tests/`` on the workers' ``PYTHONPATH``): their process ends with ``os._exit`` in the middle of an
episode, the way a segfault or the OOM killer ends a worker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
import ray  # a hard dependency of these tests: missing Ray is a failure, not a skip

import mmenvs  # noqa: F401
from _wait import wait_until
from mmenvs.baselines import OracleAgent
from mmenvs.distributed.ray_runner import ACTOR_DIED, run_on_ray
from mmenvs.runner import evaluate, plan_jobs, read_records

TESTS_DIR = str(Path(__file__).resolve().parent)
RAY_DAEMONS = ("raylet", "gcs_server")


class CrashingAgent(OracleAgent):
    """The oracle, but on task ``task_id`` its worker process dies at the first step (``os._exit``).

    Each death appends a line to ``log``; with ``times=N`` only the first N episodes of that task die
    (the log, a file, survives the worker), so ``times=1`` dies once and then plays its retry through.
    """

    def __init__(self, task_id: str, log: str, times: int = 1_000_000) -> None:
        super().__init__()
        self.target, self.log, self.times = task_id, Path(log), times
        self._task: str | None = None

    def reset(self, task_info: dict[str, Any]) -> None:
        super().reset(task_info)
        self._task = task_info.get("task_id")

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Any:
        if self._task == self.target:
            deaths = len(self.log.read_text().splitlines()) if self.log.exists() else 0
            if deaths < self.times:
                with open(self.log, "a") as handle:
                    handle.write(f"{os.getpid()}\n")
                os._exit(17)  # mid-episode: the env was reset and the agent was asked for an action
        return super().act(obs, info)


def _daemons() -> list[psutil.Process]:
    """This test process's Ray daemons (a local ``ray.init`` starts them as its children)."""
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if any(name in process.name() for name in RAY_DAEMONS):
                found.append(process)
        except psutil.Error:
            pass
    return found


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray instance for the test run; shut down at the end with no process left behind."""
    temp_dir = tempfile.mkdtemp(prefix="mmenvs-raytest-")
    # what other session fixtures started before (the VM tests' private dockerd) is not Ray's to stop
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=temp_dir, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": TESTS_DIR}})
    daemons = _daemons()
    assert {name for p in daemons for name in RAY_DAEMONS if name in p.name()} == set(RAY_DAEMONS), \
        f"expected a raylet and a gcs_server below this test, found {[p.name() for p in daemons]}"
    everything = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()
    survivors = wait_until(lambda: [p.pid for p in everything if _alive(p)],
                           check=lambda alive: not alive, what="every process of the test's Ray instance to exit")
    assert survivors == []
    assert _daemons() == []
    shutil.rmtree(temp_dir, ignore_errors=True)


def _by_episode(records: list[dict[str, Any]]) -> dict[tuple[str, int], tuple]:
    return {(r["task_id"], r["attempt"]): (r["score"], r["success"], r["steps"], r["return"], r["error"] is None)
            for r in records}


@pytest.mark.parametrize("env_id, agent, tasks, attempts", [
    ("DebugEcho-v0", "random", "all", 2),   # random actions: a mix of scores, all fixed by the seeds
    ("VTCBench-v0", "oracle", "6", 1),
])
def test_ray_gives_the_process_pools_summary(ray_cluster, tmp_path, env_id, agent, tasks, attempts):
    common = dict(agent=agent, tasks=tasks, attempts=attempts, workers=2, seed=3, progress=False)
    pool = evaluate(env_id, out=tmp_path / "pool", **common)
    on_ray = evaluate(env_id, out=tmp_path / "ray", ray_address="local", **common)
    assert on_ray == pool
    pool_records = read_records(tmp_path / "pool" / "episodes.jsonl")
    ray_records = read_records(tmp_path / "ray" / "episodes.jsonl")
    assert _by_episode(ray_records) == _by_episode(pool_records)
    assert len(ray_records) == on_ray["episodes"] == len(pool_records)
    assert json.loads((tmp_path / "ray" / "summary.json").read_text()) == json.loads((tmp_path / "pool" / "summary.json").read_text())
    assert (tmp_path / "ray" / "summary.png").stat().st_size > 1000
    # the actors wrote the same per-step records as the pool's workers
    pool_steps = sorted(p.relative_to(tmp_path / "pool") for p in (tmp_path / "pool" / "episodes").rglob("steps.jsonl"))
    ray_steps = sorted(p.relative_to(tmp_path / "ray") for p in (tmp_path / "ray" / "episodes").rglob("steps.jsonl"))
    assert ray_steps == pool_steps and len(ray_steps) == len(ray_records)
    for path in ray_steps[:3]:
        assert (tmp_path / "ray" / path).read_text().count("\n") == (tmp_path / "pool" / path).read_text().count("\n")


def test_an_actor_killed_mid_episode_is_restarted_and_its_episode_retried(ray_cluster, tmp_path):
    log = tmp_path / "deaths.log"
    summary = evaluate("DebugEcho-v0", agent="test_ray:CrashingAgent", tasks="4", workers=2, ray_address="local",
                       agent_kwargs={"task_id": "echo-01", "log": str(log), "times": 1}, out=tmp_path / "run",
                       progress=False)
    assert len(log.read_text().splitlines()) == 1  # its worker died once ...
    records = {r["task_id"]: r for r in read_records(tmp_path / "run" / "episodes.jsonl")}
    retried = records["echo-01"]
    assert retried["success"] is True and retried["score"] == 1.0 and retried["ray_tries"] == 2  # ... and the retry won
    assert all("ray_tries" not in r for task, r in records.items() if task != "echo-01")
    assert summary["episodes"] == 4 and summary["mean_score"] == 1.0 and summary["infra_failures"] == 0


def test_an_episode_whose_actor_dies_twice_is_an_infrastructure_failure(ray_cluster, tmp_path):
    log = tmp_path / "deaths.log"
    summary = evaluate("DebugEcho-v0", agent="test_ray:CrashingAgent", tasks="4", workers=2, ray_address="local",
                       agent_kwargs={"task_id": "echo-02", "log": str(log)}, out=tmp_path / "run", progress=False)
    assert len(log.read_text().splitlines()) == 2  # tried, retried once, then given up on (not a third time)
    records = {r["task_id"]: r for r in read_records(tmp_path / "run" / "episodes.jsonl")}
    failed = records["echo-02"]
    assert failed["score"] is None and failed["success"] is None and failed["ray_tries"] == 2
    assert failed["infra_failure"]["kind"] == ACTOR_DIED and "Actor" in failed["infra_failure"]["error"]
    assert failed["env_id"] == "DebugEcho-v0" and failed["attempt"] == 0 and failed["steps"] == 0
    # counted apart, never as a 0: the other three episodes are the whole score
    assert summary["infra_failures"] == 1 and summary["infra_failure_kinds"] == {ACTOR_DIED: 1}
    assert summary["episodes"] == 3 and summary["mean_score"] == 1.0
    assert all(r["score"] == 1.0 for task, r in records.items() if task != "echo-02")


def test_an_actor_out_of_restarts_is_replaced(ray_cluster, tmp_path):
    """With no restarts granted, the dead actor gives way to a new one and the retry still runs."""
    log = tmp_path / "deaths.log"
    jobs = plan_jobs("DebugEcho-v0", ["echo-00", "echo-01", "echo-02"], agent="test_ray:CrashingAgent",
                     agent_kwargs={"task_id": "echo-00", "log": str(log), "times": 1})
    records: dict[int, dict[str, Any]] = {}
    run_on_ray(jobs, records.__setitem__, address="local", actors=1, max_restarts=0)
    assert len(log.read_text().splitlines()) == 1
    assert sorted(records) == [0, 1, 2] and all(r["success"] for r in records.values())
    assert records[0]["ray_tries"] == 2


def _cli_command(*args: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "mmenvs.cli", "eval", "DebugEcho-v0", "--tasks", "3", "--workers", "2",
            "--out", str(out), *args]


def _run_cli(*args: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(_cli_command(*args, out=out), capture_output=True, text=True, timeout=300)


def test_cli_ray_connects_to_a_running_cluster(ray_cluster, tmp_path):
    done = _run_cli("--ray", ray_cluster, out=tmp_path / "run")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pass@1=1.000" in done.stdout and "infrastructure failures (not scored): 0" in done.stdout
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["episodes"] == 3 and summary["mean_score"] == 1.0
    assert {"episodes.jsonl", "summary.json", "summary.png", "episodes"} <= {p.name for p in (tmp_path / "run").iterdir()}
    assert ray.is_initialized()  # the cluster it connected to keeps running


def test_cli_ray_without_address_starts_and_removes_a_local_instance(tmp_path):
    # The CLI gets a temp folder of its own (short: Ray's socket paths live below it), so another run's Ray
    # instance on the same machine (a second test suite beside this one) is neither counted nor waited for.
    own_tmp = tempfile.mkdtemp(prefix="mr-", dir="/tmp")
    try:
        with subprocess.Popen(_cli_command("--ray", out=tmp_path / "run"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": own_tmp}) as cli:
            # the instance is made in the CLI's temp folder (so what is checked below is the CLI's own)
            made = wait_until(lambda: list(Path(own_tmp).glob("mmenvs-ray-*")) or cli.poll() is not None,
                              what="the CLI's Ray temp folder", timeout=120, interval=0.01)
            _out, err = cli.communicate(timeout=300)
        assert made is not True, "the CLI ended before its Ray temp folder was seen"
        assert cli.returncode == 0, err[-2000:]
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert summary["episodes"] == 3 and summary["mean_score"] == 1.0
        assert len(read_records(tmp_path / "run" / "episodes.jsonl")) == 3

        # its Ray instance is gone with it: no process under its temp folder, and the folder removed
        def leftovers() -> list[int]:
            found = []
            for process in psutil.process_iter(["pid", "cmdline"]):
                if any(own_tmp in part for part in (process.info["cmdline"] or [])):
                    found.append(process.info["pid"])
            return found
        wait_until(leftovers, check=lambda pids: not pids, what="no process of the CLI's Ray instance")
        assert list(Path(own_tmp).glob("mmenvs-ray-*")) == []
    finally:
        shutil.rmtree(own_tmp, ignore_errors=True)


def test_cli_ray_names_the_missing_extra(tmp_path):
    """Without Ray importable, --ray fails with a message naming the extra to install (exit 2)."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "ray.py").write_text("raise ImportError('ray is blocked for this test')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    done = subprocess.run([sys.executable, "-m", "mmenvs.cli", "eval", "DebugEcho-v0", "--tasks", "1", "--ray",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 2 and "mmenvs[dist]" in done.stderr


def test_rollout_example_collects_on_actors_and_reports_throughput(ray_cluster, capsys):
    from mmenvs.baselines.ray_rollouts import main

    stats = main(["--env", "DebugEcho-v0", "--actors", "2", "--steps", "30"])
    assert stats["steps"] == 60 and stats["actors"] == 2 and stats["steps_per_s"] > 0
    assert 1 <= stats["episodes"] <= 60  # DebugEcho's episodes are a few steps: several ended and were reset
    assert 0.0 <= stats["mean_episode_score"] <= 1.0
    assert f"60 steps, {stats['episodes']} episodes on 2 actors" in capsys.readouterr().out


def test_the_documented_rllib_env_creator_runs_inside_a_ray_worker(ray_cluster):
    """docs/ray.md's register_env creator, called where RLlib calls it: in a Ray worker, from an id."""
    from mmenvs.baselines.ray_rollouts import make_rllib_env

    @ray.remote
    def episode(config: dict[str, Any]) -> tuple[str, str, float]:
        from gymnasium.utils.env_checker import check_env

        env = make_rllib_env(config)
        check_env(env.unwrapped, skip_render_check=True)
        obs, info = env.reset(seed=0, options={"task_id": "echo-00"})
        assert obs.shape == env.observation_space.shape and obs.dtype == np.uint8
        _, _, terminated, _, info = env.step(1)  # index 1 of the menu: echo-00's word
        env.close()
        assert terminated
        return type(env.action_space).__name__, type(env.observation_space).__name__, float(info["score"])

    config = {"env_id": "DebugEcho-v0", "actions": ["FAIL", "<answer>apple</answer>"]}
    action_space, observation_space, score = ray.get(episode.remote(config))
    assert (action_space, observation_space) == ("Discrete", "Box") and score == 1.0
    with pytest.raises(ValueError, match="needs 'actions'"):
        make_rllib_env({"env_id": "DebugEcho-v0"})
