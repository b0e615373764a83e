"""Issue 14, class 6: no process outlives the step it was started in, but the real tmux server.

The sandbox stops every process a command leaves behind, except ``keep_running`` daemons (the sim's
tmux server and its panes' programs, until the episode ends). A daemon is recognised by what the
agent cannot forge, its binary (``/proc/<pid>/exe``) and its listening socket, never by the name it
gives itself: a loop that writes ``tmux: server`` to ``/proc/self/comm`` is stopped like any other.
The attacks go through ``env.step`` as an agent's shell commands would.
"""

from __future__ import annotations

import os
import shutil

import pytest
from _wait import is_running, wait_until

from mmenvs.macagent.env import MacAgentEnv
from mmenvs.sandbox import ShellSandbox
from mmenvs.sandbox.shell import KeptDaemon

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs the tmux package")

# A bash loop that renames itself like the tmux server, waits until the rename is visible, and then
# appends to a file in the home forever (it would keep doing so between steps if it were kept).
FORGER = ("bash -c 'echo \"tmux: server\" > /proc/self/comm; while :; do echo tick >> ~/forged.log; sleep 0.05; done' & "
          "for i in $(seq 100); do [ -s ~/forged.log ] && break; sleep 0.05; done; echo forger-started")


def bash(code: str) -> str:
    return f"```bash\n{code}\n```"


def named(pids: set[int], comm: str) -> set[int]:
    out = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as fh:
                if fh.read().rstrip("\n") == comm and is_running(pid):
                    out.add(pid)
        except OSError:
            continue
    return out


def is_real_tmux(pid: int) -> bool:
    try:
        return os.path.samefile(f"/proc/{pid}/exe", shutil.which("tmux"))
    except OSError:
        return False


@pytest.fixture
def env():
    e = MacAgentEnv()
    yield e
    e.close()


def shell_pids(env) -> set[int]:
    return env.backend.shells.sandbox("main")._current_pids()


def test_a_process_renamed_tmux_server_does_not_outlive_its_step(env):
    env.reset(seed=0)
    obs, _, _, _, info = env.step(bash(FORGER))
    assert "forger-started" in obs["text"], obs["text"]
    assert "were stopped" in obs["text"]  # the sandbox says it stopped what the command left behind
    wait_until(lambda: named(shell_pids(env), "tmux: server"), check=lambda pids: not pids,
               what="no process named 'tmux: server' left in the shell")
    log = env._home / "forged.log"
    size = log.stat().st_size
    obs, _, _, _, info = env.step(bash("wc -c < ~/forged.log"))
    assert obs["text"].split()[0] == str(size)  # nothing wrote to it between the steps


def test_the_real_tmux_server_is_kept_and_the_forger_next_to_it_is_not(env):
    env.reset(seed=0)
    obs, _, _, _, info = env.step(bash("tmux new-session -d -s work 'sleep 300'; " + FORGER))
    assert "forger-started" in obs["text"], obs["text"]
    survivors = wait_until(lambda: named(shell_pids(env), "tmux: server"), check=lambda pids: len(pids) == 1,
                           what="one process named 'tmux: server' (the real one)")
    (server,) = survivors
    assert is_real_tmux(server)
    obs, _, _, _, info = env.step(bash("tmux has-session -t work && echo up"))
    assert obs["text"].startswith("up")
    env.reset(seed=1)  # the episode's daemons end with it
    wait_until(lambda: not is_running(server), what=f"the tmux server {server} to stop at reset")


def test_a_copy_of_the_tmux_binary_is_not_the_tmux_server(tmp_path):
    """A real tmux server run from a copy of the binary (same code, same name, a listening socket):
    its /proc/<pid>/exe is not the system's tmux, so it is stopped with its command."""
    with ShellSandbox(tmp_path, keep_running=("tmux: server",)) as shell:
        # named tmux too: the server then calls itself "tmux: server" like the real one
        made = shell.run(f"mkdir -p $HOME/bin && cp {shutil.which('tmux')} $HOME/bin/tmux && export TMUX_TMPDIR=$HOME && "
                         "$HOME/bin/tmux new-session -d -s fake 'sleep 300' && echo made")
        assert made.stdout == "made\n", (made.stdout, made.stderr)
        assert "were stopped" in made.notice
        wait_until(lambda: named(shell._current_pids(), "tmux: server"), check=lambda pids: not pids,
                   what="the copied tmux server to be stopped")
        real = shell.run("export TMUX_TMPDIR=$HOME/r; mkdir -p $TMUX_TMPDIR; tmux new-session -d -s real 'sleep 300'; "
                         "tmux has-session -t real && echo up")
        assert real.stdout == "up\n" and real.notice == ""


def test_a_process_that_renames_itself_and_listens_on_a_socket_is_still_stopped(tmp_path):
    """The socket test alone would not tell a daemon: the binary must be the daemon's."""
    code = ("import os, socket, time\n"
            "open('/proc/self/comm', 'w').write('tmux: server')\n"
            "s = socket.socket(socket.AF_UNIX); s.bind(os.path.expanduser('~/sock')); s.listen()\n"
            "open(os.path.expanduser('~/ready'), 'w').close()\n"
            "time.sleep(300)\n")
    (tmp_path / "fake.py").write_text(code)
    with ShellSandbox(tmp_path, keep_running=("tmux: server",)) as shell:
        started = shell.run("python3 ~/fake.py & for i in $(seq 200); do [ -e ~/ready ] && break; sleep 0.05; done; "
                            "ls ~/ready")
        assert started.stdout.strip().endswith("ready"), (started.stdout, started.stderr)
        assert "were stopped" in started.notice
        wait_until(lambda: named(shell._current_pids(), "tmux: server"), check=lambda pids: not pids,
                   what="the socket-holding impostor to be stopped")


def test_kept_daemon_names_the_path_binary_and_refuses_a_missing_one():
    tmux = KeptDaemon.named("tmux: server")
    assert tmux.comm == "tmux: server" and os.path.samefile(tmux.executable, shutil.which("tmux"))
    assert tmux.identity() == (os.stat(shutil.which("tmux")).st_dev, os.stat(shutil.which("tmux")).st_ino)
    missing = KeptDaemon("ghost: server", "/nonexistent/ghost")
    assert missing.identity() is None and not missing.matches(os.getpid(), missing.identity())
