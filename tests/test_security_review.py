"""Review of issue 14's fixes: attacks that still got through, each sent through ``env.step`` as an
agent would (see tests/_attacks.py for the shared helpers)."""

from __future__ import annotations

import gymnasium as gym

import mmenvs  # noqa: F401  (registers the ids)
from _attacks import STEP_BOUND_S, timed_step
from _wait import wait_until
from mmenvs.core.confined import ConfinedDir

TASK = {
    "id": "security-review", "instruction": "Explore the files.", "category": "System", "apps": ["Finder"],
    "reference_time": "2026-03-10T09:30:00",
    "setup": [{"type": "file", "path": "~/Desktop/a.txt", "content": "hello"}],
    "checkpoints": [{"name": "a kept", "tag": "file_ops", "metric": {"type": "file_exists", "path": "~/Desktop/a.txt"}}],
    "reference_solution": ["```bash\ntrue\n```"],
}
HOME_BYTES = 8 * 2**20


def test_a_tmux_pane_writing_between_steps_is_held_to_the_home_budget():
    """A kept daemon (the tmux server and its panes) runs between steps, outside any command's home
    watch: a pane writing file after file (each under RLIMIT_FSIZE) took an 8 MiB home to 120 MB."""
    env = gym.make("MacAgent-v0", budget={"home_bytes": HOME_BYTES})
    try:
        env.reset(options={"task": TASK})
        home = ConfinedDir(env.unwrapped.backend.home)
        obs, info, ended, elapsed = timed_step(env, (
            "```bash\ntmux new-session -d -s fill 'sleep 0.5; for i in $(seq 1 40); do "
            "head -c 4000000 /dev/zero > ~/Documents/f$i; sleep 0.05; done; sleep 600'\necho started\n```"))
        assert "started" in obs["text"] and not ended and elapsed < STEP_BOUND_S
        # the pane either is stopped once the home goes over budget, or finishes its 40 files (160 MB)
        shell = env.unwrapped.backend.shells._sandbox_for("main")  # noqa: SLF001
        wait_until(lambda: home.disk_usage() > 100e6 or not (shell._current_pids() - shell._base),  # noqa: SLF001
                   what="the pane stopped or its 40 files written", timeout=60)
        assert home.disk_usage() < 4 * HOME_BYTES, f"the home grew to {home.disk_usage():,} bytes between steps"
        obs, *_ = env.step("```bash\nrm -f ~/Documents/f*; echo still-working > ~/ok; cat ~/ok\n```")
        assert "still-working" in obs["text"]
        assert "the processes left running (tmux, …) were stopped" in obs["text"]
    finally:
        env.close()

