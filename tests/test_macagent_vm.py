"""MacAgent-v0 with backend="vm" on the Linux test guest, in a private dockerd (tests/vm_support.py).

Real components only: dockerd, the imported test guest image, sshd, Xvfb + x11vnc, the pynput input
agent. Without dockerd these tests FAIL (``MMENVS_REQUIRE_DOCKER=0`` turns that into a skip).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mmenvs  # noqa: F401  (registers the env ids)
from _wait import wait_until
from vm_support import docker_daemon, test_guest  # noqa: F401  (session fixtures)

LABEL = "mmenvs.vm"

SHELL_TASK = {
    "id": "vm-shell-note",
    "instruction": "Write the line hello-vm into ~/Desktop/note.txt, next to the copy of ~/Documents/src.txt you make there.",
    "category": "Development",
    "platform": "linux",
    "apps": ["bash"],
    "reference_time": "2026-03-17T10:00:00",
    "setup": [{"type": "file", "path": "~/Documents/src.txt", "content": "alpha\nbeta\n"}],
    "checkpoints": [
        {"name": "note written", "tag": "file_ops", "metric": {"type": "equals", "expected": "hello-vm"},
         "getter": {"type": "shell", "command": "cat ~/Desktop/note.txt", "output": "text"}},
        {"name": "copy made", "tag": "file_ops", "metric": {"type": "equals", "expected": "alpha\nbeta"},
         "getter": {"type": "shell", "command": "cat ~/Desktop/src.txt", "output": "text"}},
    ],
    "reference_solution": ["```bash\ncd ~/Desktop\necho hello-vm > note.txt\n```", "```bash\ncp ../Documents/src.txt .\n```"],
}

GUI_TASK = {
    "id": "vm-gui-terminal",
    "instruction": "In the terminal window, run `echo gui-ok > ~/Desktop/gui.txt` by typing it.",
    "category": "Development",
    "platform": "linux",
    "apps": ["xterm"],
    "reference_time": "2026-03-17T10:00:00",
    "setup": [{"type": "open_app", "app": "xterm"},
              {"type": "shell", "command": "for i in $(seq 100); do pgrep -x xterm >/dev/null && break; sleep 0.1; done"}],
    "checkpoints": [
        {"name": "typed in the terminal", "tag": "file_ops", "metric": {"type": "equals", "expected": "gui-ok"},
         "getter": {"type": "shell", "command": "cat ~/Desktop/gui.txt", "output": "text"}},
    ],
    "reference_solution": ["```python\nimport pyautogui\npyautogui.click(120, 120)\npyautogui.write('echo gui-ok > ~/Desktop/gui.txt\\n')\n```"],
}

MAC_TASK = {
    "id": "vm-needs-macos",
    "instruction": "Make a note in Notes.",
    "category": "Productivity",
    "apps": ["Notes"],
    "reference_time": "2026-03-17T10:00:00",
    "setup": [{"type": "applescript", "script": "tell application \"Notes\" to make new note with properties {body:\"x\"}"}],
    "checkpoints": [
        {"name": "note", "tag": "app_state", "metric": {"type": "equals", "expected": 2},
         "getter": {"type": "applescript", "script": "tell application \"Notes\" to count notes", "output": "int"}},
    ],
    "reference_solution": ["DONE"],
}


def ours(client, env=None) -> list:
    """Containers a VM backend made (labelled), in any state; with ``env``: only that env's."""
    label = LABEL if env is None else f"mmenvs.vm.session={env.unwrapped.backend.pool.session}"
    return client.containers.list(all=True, filters={"label": label})


def make_env(daemon, guest, **kwargs):
    # settle: a screenshot after input waits up to this long for the guest to draw it (the machine is loaded)
    return gym.make("MacAgent-v0", backend="vm", vm_docker_url=daemon.base_url, vm_image=guest.image,
                    vm_user=guest.user, vm_key_path=str(guest.key_path), vm_settle=3.0, **kwargs)


@pytest.fixture(scope="module")
def env(docker_daemon, test_guest):
    env = make_env(docker_daemon, test_guest, pool_size=1, suite="linux")
    yield env
    env.close()
    assert ours(docker_daemon.client) == [], "the env left containers behind after close()"


def run_solution(env, task):
    obs, info = env.reset(seed=0, options={"task": task})
    for action in task["reference_solution"]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["action_error"] is None, info["action_error"]
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert terminated
    return reward, info


def test_oracle_scores_one_and_empty_attempt_zero(env):
    reward, info = run_solution(env, SHELL_TASK)
    assert reward == 1.0 and info["success"] is True
    assert [c["passed"] for c in info["checkpoints"]] == [True, True]
    assert "infra_failure" not in info
    env.reset(seed=0, options={"task": SHELL_TASK})  # a fresh guest: nothing of the last episode is left
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert terminated and reward == 0.0 and info["score"] == 0.0
    assert [c["passed"] for c in info["checkpoints"]] == [False, False]


def test_linux_starter_suite_oracle_one_and_done_zero(env):
    """Every variant of the shipped Linux-guest tasks (registry/macagent/linux_tasks): the oracle scores 1.0;
    DONE at once scores 0 (the first variant of each seed)."""
    ids = env.unwrapped.task_ids()
    assert len(ids) >= 20
    failed = {}
    for task_id in ids:
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        for _ in range(env.unwrapped.max_steps):
            obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action(obs, info))
            if terminated or truncated:
                break
        if reward != 1.0:
            failed[task_id] = [(c["name"], c["got"]) for c in info["checkpoints"] if not c["passed"]]
    assert failed == {}
    for seed in env.unwrapped.seeds():
        env.reset(seed=0, options={"task_id": seed.variant_ids()[0]})
        obs, reward, terminated, truncated, info = env.step("DONE")
        assert reward == 0.0, (seed.id, info["checkpoints"])


def test_sim_refuses_a_linux_task():
    from mmenvs.macagent.tasks import TaskSetupError

    env = gym.make("MacAgent-v0", suite="linux")
    try:
        with pytest.raises(TaskSetupError, match="linux guest"):
            env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    finally:
        env.close()


def test_shell_keeps_cwd_and_variables_and_reports_exit_codes(env):
    env.reset(seed=0, options={"task": SHELL_TASK})
    env.step("```bash\ncd ~/Documents && export MARK=42\n```")
    obs, *_ , info = env.step("```bash\npwd; echo $MARK; cat src.txt; ls /nonexistent\n```")
    text = obs["text"]
    assert "/Documents" in text and "42" in text and "alpha" in text
    assert "[exit code 2]" in text and info["exit_code"] == 2


def test_gui_action_changes_the_next_screenshot_and_solves_the_task(env):
    obs, info = env.reset(seed=0, options={"task": GUI_TASK})
    assert "AXWindow" in obs["a11y"]  # the xterm the setup opened
    obs, *_ = env.step({"action_type": "CLICK", "x": 120, "y": 120})  # no window manager: keys go to the window under the pointer
    before = obs["image"].copy()
    obs, reward, terminated, truncated, info = env.step(
        {"action_type": "TYPING", "text": "echo typed-by-the-agent-through-pynput"})
    assert info["action_error"] is None
    assert not np.array_equal(before, obs["image"]), "typing into the terminal did not change the screenshot"
    assert info["images"], "the changed screen is a new image in the store"
    env.step({"action_type": "HOTKEY", "keys": ["ctrl", "u"]})  # clear the line again (readline's kill)
    for action in GUI_TASK["reference_solution"]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["action_error"] is None, info["action_error"]
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert reward == 1.0, info["checkpoints"]


def test_bad_input_is_an_observation_not_an_exception(env):
    env.reset(seed=0, options={"task": SHELL_TASK})
    obs, reward, terminated, truncated, info = env.step({"action_type": "PRESS", "key": "no-such-key"})
    assert info["action_error"] and "no-such-key" in info["action_error"] and not terminated
    obs, reward, terminated, truncated, info = env.step("```applescript\nreturn 1\n```")
    assert "macOS guest" in info["action_error"]
    obs, reward, terminated, truncated, info = env.step("```bash\necho still-here\n```")
    assert "still-here" in obs["text"] and info["action_error"] is None


def test_agent_cannot_fake_getter_output_or_lock_the_backend_out(env, docker_daemon):
    """Attack: the agent plants ~/.ssh/rc (sshd runs it before every command of its user: it would print
    the expected answer ahead of every getter's output) and empties its authorized_keys. The backend logs
    in as root and runs commands as the user through runuser, so getters read the truth and a reconnect works."""
    env.reset(seed=0, options={"task": SHELL_TASK})
    env.step("```bash\nprintf 'echo hello-vm; exit 0\\n' > ~/.ssh/rc; : > ~/.ssh/authorized_keys\n```")
    backend = env.unwrapped.backend
    out = backend.run_command("cat ~/.ssh/rc; echo $HOME $USER; id -un")
    assert out.stdout.startswith("echo hello-vm"), out
    assert out.stdout.splitlines()[-1] == "user" and "/home/user user" in out.stdout
    container = docker_daemon.client.containers.get(backend.guest.name)
    container.exec_run(["pkill", "-KILL", "-f", "sshd: [a-z]+@"])
    wait_until(lambda: not backend.guest.link.alive, what="the SSH connection to notice the drop", timeout=30)
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert reward == 0.0 and "infra_failure" not in info
    assert [c["got"] for c in info["checkpoints"]][0] in (None, "")  # no note.txt: the planted rc did not answer


def test_output_flood_is_bounded_and_a_killed_input_agent_is_restarted(env):
    """Attack: a command printing 50 MB, then the agent killing the input agent; both end as observations."""
    env.reset(seed=0, options={"task": SHELL_TASK})
    obs, reward, terminated, truncated, info = env.step("```bash\nhead -c 50000000 /dev/zero | tr '\\0' x\n```")
    assert "[output cut at" in obs["text"] and len(obs["text"]) < 50_000
    env.step("```bash\npkill -f mmenvs-input-agent; sleep 0.2\n```")
    obs, reward, terminated, truncated, info = env.step({"action_type": "CLICK", "x": 10, "y": 10})
    assert info["action_error"] is None, info["action_error"]
    obs, reward, terminated, truncated, info = env.step("```bash\necho alive\n```")
    assert "alive" in obs["text"]


def test_task_that_needs_macos_is_refused_with_the_reason(env):
    from mmenvs.macagent.backends.vm import TaskNeedsMacOS

    with pytest.raises(TaskNeedsMacOS, match="needs a macOS guest.*AppleScript"):
        env.reset(seed=0, options={"task": MAC_TASK})


def test_ssh_drop_reconnects(env, docker_daemon):
    env.reset(seed=0, options={"task": SHELL_TASK})
    backend = env.unwrapped.backend
    env.step("```bash\necho before\n```")
    # kill every sshd session process of the guest's user (the listener stays): the connection drops
    container = docker_daemon.client.containers.get(backend.guest.name)
    container.exec_run(["pkill", "-KILL", "-f", "sshd: [a-z]+@"])  # session processes ("sshd: root@notty"), not the listener
    wait_until(lambda: not backend.guest.link.alive, what="the SSH connection to notice the drop", timeout=30)
    obs, reward, terminated, truncated, info = env.step("```bash\necho after-drop\n```")
    assert "after-drop" in obs["text"] and "re-established" in obs["text"]
    assert info["action_error"] is None and not truncated
    assert backend.status()["reconnects"] >= 1
    obs, *_ = env.step({"action_type": "CLICK", "x": 5, "y": 5})  # the input agent is restarted as well
    obs, reward, terminated, truncated, info = env.step("```bash\necho hello-vm > ~/Desktop/note.txt; cp ~/Documents/src.txt ~/Desktop/\n```")
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert reward == 1.0 and "infra_failure" not in info


def test_killed_guest_is_an_infra_failure_and_the_next_reset_gets_a_new_guest(env, docker_daemon):
    env.reset(seed=0, options={"task": SHELL_TASK})
    backend = env.unwrapped.backend
    dead = backend.guest.name
    docker_daemon.client.containers.get(dead).kill()
    obs, reward, terminated, truncated, info = env.step("```bash\necho hello-vm > ~/Desktop/note.txt\n```")
    assert truncated, "a step on a dead guest must end the episode"
    assert info["infra_failure"]["kind"] == "vm_guest_lost" and dead in info["infra_failure"]["error"]
    assert info["action_error"] and info["action_error_kind"] == "internal"
    obs, info = env.reset(seed=0, options={"task": SHELL_TASK})
    assert backend.guest.name != dead and "infra_failure" not in info
    reward, info = run_solution(env, SHELL_TASK)
    assert reward == 1.0
    assert dead not in [c.name for c in ours(docker_daemon.client)], "the dead guest's container was not removed"


def test_runner_records_a_lost_guest_as_infra_failure(docker_daemon, test_guest, tmp_path, monkeypatch):
    """run_episode: a guest killed mid-episode gives score None and infra_failure (not a 0)."""
    from mmenvs import runner

    env = make_env(docker_daemon, test_guest, pool_size=0, tasks=str(_task_dir(tmp_path)))
    killer = {"done": False}

    class KillAgent:
        def reset(self, info):
            pass

        def act(self, obs, info):
            if not killer["done"]:
                killer["done"] = True
                docker_daemon.client.containers.get(env.unwrapped.backend.guest.name).kill()
            return "```bash\necho x\n```"

    job = runner.EpisodeJob("MacAgent-v0", "vm-shell-note-v0", 0, "kill", 0)
    monkeypatch.setattr(runner, "_env_for", lambda job: env)
    import mmenvs.baselines as baselines

    monkeypatch.setattr(baselines, "load_agent", lambda name, **kw: KillAgent())
    try:
        record = runner.run_episode(job)
    finally:
        env.close()
    assert record["score"] is None and record["success"] is None
    assert record["infra_failure"]["kind"] == "vm_guest_lost"
    assert not runner.is_scored(record)
    assert ours(docker_daemon.client, env) == []


def _task_dir(tmp_path):
    import json

    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "vm-shell-note.json").write_text(json.dumps(SHELL_TASK))
    return folder


def test_two_guest_pool_hides_reset_latency_and_cleans_up(docker_daemon, test_guest):
    env = make_env(docker_daemon, test_guest, pool_size=2)
    backend = env.unwrapped.backend
    try:
        assert backend.pool.wait_warm(240), "two guests did not boot"
        assert len(ours(docker_daemon.client, env)) == 2
        names = set()
        for _ in range(3):
            env.reset(seed=0, options={"task": SHELL_TASK})
            assert backend.last_reset["pool_hit"] is True
            names.add(backend.guest.name)
            obs, *_ = env.step("```bash\necho $HOSTNAME-$((6*7))\n```")
            assert "42" in obs["text"]
            assert backend.pool.wait_warm(240)
        assert len(names) == 3, "each episode must run on a fresh guest"
        # a guest in use plus two warm ones; the used ones are gone
        assert len(ours(docker_daemon.client, env)) == 3
        ports = {backend.guest.ssh_port, backend.guest.vnc_port}
        assert len(ports) == 2
    finally:
        env.close()
        env.close()  # twice is fine
    assert ours(docker_daemon.client, env) == []


def test_gc_removes_strays_of_dead_owners_only(docker_daemon, test_guest, tmp_path):
    from mmenvs.macagent.backends.vm.gc import collect

    client = docker_daemon.client
    stray = client.containers.run(test_guest.image, command=["sleep", "600"], detach=True,
                                  labels={LABEL: "1", "mmenvs.vm.owner": _dead_owner(), "mmenvs.vm.role": "guest"},
                                  network_mode="none")
    mine = client.containers.run(test_guest.image, command=["sleep", "600"], detach=True,
                                 labels={LABEL: "1", "mmenvs.vm.owner": _owner(), "mmenvs.vm.role": "guest"},
                                 network_mode="none")
    try:
        dead_disk = tmp_path / "mmenvs-vm-disk-dead"
        dead_disk.mkdir()
        (dead_disk / ".mmenvs-vm.json").write_text('{"mmenvs.vm.owner": "%s"}' % _dead_owner())
        live_disk = tmp_path / "mmenvs-vm-disk-live"
        live_disk.mkdir()
        (live_disk / ".mmenvs-vm.json").write_text('{"mmenvs.vm.owner": "%s"}' % _owner())
        report = collect(client, disk_dirs=[tmp_path])
        assert report["disks"] == [str(dead_disk)] and live_disk.exists() and not dead_disk.exists()
        assert stray.name in report["containers"] and mine.name not in report["containers"]
        names = [c.name for c in ours(client)]
        assert stray.name not in names and mine.name in names
        report = collect(client, everything=True, disk_dirs=[tmp_path])
        assert mine.name in report["containers"] and mine.name not in [c.name for c in ours(client)]
    finally:
        for c in (stray, mine):
            try:
                c.remove(force=True)
            except Exception:
                pass


def _dead_owner():
    import os

    return f"{os.uname().nodename}:999999999"  # above Linux's pid_max: never a live process


def _owner():
    from mmenvs.macagent.backends.vm.config import owner_label

    return owner_label()


def test_bench_rows_say_why_without_a_daemon(monkeypatch, tmp_path):
    from mmenvs.macagent.backends.vm import bench_vm

    monkeypatch.setenv("MMENVS_DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")
    rows = bench_vm.workloads()
    assert [r["name"] for r in rows] == list(bench_vm.ROWS)
    assert all("no Docker daemon" in r["note"] and "median_ms" not in r for r in rows)


def test_eval_with_two_workers_runs_two_guests_and_leaves_none(docker_daemon, test_guest, tmp_path):
    """`mmenvs eval --workers 2`: each worker process has its own env and guest; the oracle solves both
    tasks; the workers end with os._exit, and their guests are still removed (exit finalizers)."""
    from mmenvs.runner import evaluate

    kwargs = {"backend": "vm", "suite": "linux", "vm_docker_url": docker_daemon.base_url, "vm_image": test_guest.image,
              "vm_user": test_guest.user, "vm_key_path": str(test_guest.key_path), "vm_settle": 3.0, "pool_size": 0}
    tasks = ["linux-shell-create-file-v0", "linux-files-sort-downloads-v1"]
    summary = evaluate("MacAgent-v0", agent="oracle", tasks=tasks, workers=2, env_kwargs=kwargs, out=tmp_path / "run",
                       progress=False)
    records = [__import__("json").loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in records) == sorted(tasks)
    assert all(r["score"] == 1.0 and not r.get("infra_failure") for r in records), records
    assert summary["infra_failures"] == 0
    wait_until(lambda: ours(docker_daemon.client), check=lambda left: left == [] or all(
        c.labels.get("mmenvs.vm.owner", "").endswith(f":{__import__('os').getpid()}") for c in left),
        what="the workers' guests to be removed", timeout=60)


def test_ports_are_never_shared_between_processes_and_busy_ports_are_skipped(tmp_path):
    import socket
    import subprocess
    import sys

    from mmenvs.macagent.backends.vm.ports import allocate

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    taken = busy.getsockname()[1]
    script = ("import sys, time; from pathlib import Path; from mmenvs.macagent.backends.vm.ports import allocate; "
              f"lease = allocate(20, lock_dir=Path({str(tmp_path)!r}), port_range=({taken - 100}, {taken + 100}), start={taken - 100}); "
              "print(' '.join(map(str, lease.ports)), flush=True); sys.stdin.read()")
    children = [subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for _ in range(2)]
    try:
        leases = [set(map(int, child.stdout.readline().split())) for child in children]
        assert all(len(lease) == 20 for lease in leases)
        assert not (leases[0] & leases[1]), "two processes got the same port"
        assert taken not in leases[0] | leases[1], "a port in use was handed out"
        mine = allocate(5, lock_dir=tmp_path, port_range=(taken - 100, taken + 100), start=taken - 100)
        assert not set(mine.ports) & (leases[0] | leases[1])
        mine.release()
        for child in children:
            child.stdin.close()
            child.wait(timeout=30)
        # the children are gone: the kernel dropped their locks, their ports are handed out again
        again = allocate(40, lock_dir=tmp_path, port_range=(taken - 100, taken + 100), start=taken - 100)
        assert len(again.ports) == 40 and taken not in again.ports
        assert set(again.ports) & (leases[0] | leases[1])
        again.release()
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=30)
        busy.close()


def test_xwd_and_vnc_parsing_refuse_implausible_input():
    import struct

    from mmenvs.macagent.backends.vm.capture import CaptureError, parse_xwd

    w, h = 4, 3
    header = [104, 7, 2, 24, w, h, 0, 0, 32, 0, 32, 32, w * 4, 4, 0xFF0000, 0xFF00, 0xFF, 8, 0, 0, w, h, 0, 0, 0]
    pixels = np.zeros((h, w, 4), np.uint8)
    pixels[..., 2], pixels[..., 1], pixels[..., 0] = 200, 100, 50  # LSBFirst: B, G, R, pad
    image = parse_xwd(struct.pack(">25I", *header) + b"abc\0" + pixels.tobytes())
    assert image.shape == (h, w, 3) and image[0, 0].tolist() == [200, 100, 50]
    with pytest.raises(CaptureError, match="cut short"):
        parse_xwd(struct.pack(">25I", *header) + b"abc\0" + pixels.tobytes()[:-1])
    huge = list(header)
    huge[4] = huge[5] = 1 << 20  # a guest claiming a 1M x 1M screen is refused before anything is allocated
    with pytest.raises(CaptureError, match="implausible"):
        parse_xwd(struct.pack(">25I", *huge) + b"abc\0")
