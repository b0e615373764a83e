"""tmux in the MacAgent sim: the real tmux inside the episode's confined shell — a round trip with a
program in a pane, the server surviving between commands but not into the next episode, the
sandbox's limits binding it, both shells seeing one server, ``tmux attach`` in the simulated
Terminal, and the sandbox's ``keep_running`` option underneath."""

from __future__ import annotations

import os
import shutil
import time
from datetime import datetime
from pathlib import Path

import pytest

from mmenvs.macagent.backends.sim.apps import APPS, CLI_APPS, shell_daemons
from mmenvs.macagent.backends.sim.backend import SimBackend
from mmenvs.sandbox import ShellSandbox

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (./setup.sh installs it)")

NOW = datetime(2026, 4, 8, 10, 15)
RESPONDER = ("while IFS= read -r c; do case \"$c\" in status) echo '{\"status\": \"ok\"}';; "
             "*) echo \"unknown: $c\";; esac; done")


@pytest.fixture()
def backend(tmp_path: Path):
    b = SimBackend()
    b.reset(now=NOW, home=tmp_path / "home")
    yield b
    b.close()


def sh(backend: SimBackend, command: str) -> tuple[str, str, int]:
    out = backend.run_shell(command)
    return out.stdout, out.stderr, out.exit_code


def start_responder(backend: SimBackend, name: str = "svc") -> None:
    (backend.home / "responder.sh").write_text(RESPONDER + "\n")
    out, err, code = sh(backend, f"tmux new-session -d -s {name} -x 120 -y 20 'bash ~/responder.sh'")
    assert code == 0, err


def wait_for(backend: SimBackend, session: str, pattern: str) -> str:
    """The pane's text once a line matches ``pattern`` (grep -E), polling inside the shell."""
    out, err, code = sh(backend, f"for i in $(seq 100); do tmux capture-pane -p -t {session} | grep -qE '{pattern}' && break; "
                                 f"sleep 0.05; done; tmux capture-pane -p -t {session}")
    assert code == 0, err
    return out


def server_pids(backend: SimBackend) -> list[int]:
    """Host pids of tmux servers inside the backend's main shell (its cgroup or process tree)."""
    shell = backend.shells.sandbox("main")
    pids = []
    for pid in shell._current_pids():
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "tmux: server":
                pids.append(pid)
        except OSError:
            continue
    return pids


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_tmux_is_a_cli_app_with_its_server_as_the_shell_daemon():
    assert "tmux" in CLI_APPS and "tmux" in APPS
    assert "tmux: server" in shell_daemons()


def test_send_keys_round_trip_through_a_program_in_a_pane(backend):
    start_responder(backend)
    out, err, code = sh(backend, "tmux ls -F '#{session_name} #{session_windows}'")
    assert (out, code) == ("svc 1\n", 0)
    # a separate command: the server and the pane's program kept running in between
    assert sh(backend, "tmux send-keys -t svc status Enter")[2] == 0
    screen = wait_for(backend, "svc", "^\\{")
    lines = [line for line in screen.splitlines() if line]
    assert lines == ["status", '{"status": "ok"}']
    sh(backend, "tmux send-keys -t svc reboot Enter")
    assert "unknown: reboot" in wait_for(backend, "svc", "^unknown")


def test_the_server_is_kept_but_other_leftovers_are_stopped(backend):
    start_responder(backend)
    out = backend.run_shell("sleep 300 &")
    assert "background process(es) left by the command were stopped" in out.stderr
    assert sh(backend, "tmux has-session -t svc")[2] == 0
    # processes started inside the session later belong to the server and stay too
    sh(backend, "tmux new-window -t svc 'sleep 300'")
    out, _, _ = sh(backend, "tmux list-windows -t svc -F '#{pane_current_command}'")
    assert out.split() == ["bash", "sleep"]


def test_no_tmux_server_survives_into_the_next_episode(backend, tmp_path):
    start_responder(backend)
    pids = server_pids(backend)
    assert len(pids) == 1 and alive(pids[0])
    backend.reset(now=NOW, home=tmp_path / "home")
    deadline = time.monotonic() + 5
    while alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pids[0])
    out, err, code = sh(backend, "tmux ls")
    assert code == 1 and out == ""
    assert err.startswith(("no server running on", "error connecting to"))
    assert server_pids(backend) == []


def test_the_server_stays_inside_the_shell_limits(backend):
    start_responder(backend)
    [pid] = server_pids(backend)
    shell = backend.shells.sandbox("main")
    if shell._cgroup is not None:  # the pids cgroup counts the server and its panes
        assert pid in shell._cgroup.pids()
    limits = Path(f"/proc/{pid}/limits").read_text()
    address_space = next(line for line in limits.splitlines() if line.startswith("Max address space"))
    assert address_space.split()[3] == str(shell.memory_mb * 1024 * 1024)


def test_sockets_live_in_library_and_do_shell_script_reaches_the_same_server(backend):
    start_responder(backend, "shared")
    out, _, _ = sh(backend, 'echo "$TMUX_TMPDIR"; ls ~/Library/tmux-*/')
    assert out.split() == ["/Users/user/Library", "default"]
    # AppleScript's do shell script runs in the second shell: it sees the session too
    assert backend.run_applescript('do shell script "tmux ls -F \'#{session_name}\'"') == "shared"


def test_attach_shows_the_pane_and_detaches(backend):
    start_responder(backend)
    sh(backend, "tmux send-keys -t svc status Enter")
    wait_for(backend, "svc", "^\\{")
    out, err, code = sh(backend, "tmux attach -t svc")
    assert code == 0 and err == ""
    assert out == 'status\n{"status": "ok"}\n[detached (from session svc)]\n'
    out, err, code = sh(backend, "tmux a -t nope")
    assert (out, err, code) == ("", "can't find session: nope\n", 1)
    out, err, code = sh(backend, "tmux attach-session -z")
    assert code == 1 and err == "command attach-session: unknown flag -z\n"


def test_attach_without_sessions_and_in_the_terminal_window(backend):
    out, err, code = sh(backend, "tmux attach")
    assert (out, err, code) == ("", "no sessions\n", 1)
    start_responder(backend, "work")
    terminal = backend.app("Terminal")
    backend.open_app("Terminal")
    win = terminal.windows[0]
    terminal.run_command(win, "tmux attach -t work")
    assert win.state["lines"][-1] == "[detached (from session work)]"


def test_keep_running_is_what_lets_a_daemon_outlive_its_command(tmp_path):
    def run(keep: tuple[str, ...]) -> tuple[str, str]:
        home = tmp_path / f"h{len(keep)}"
        home.mkdir()
        with ShellSandbox(home, keep_running=keep) as shell:
            # sockets in the sandbox's home: never a host tmux server, whatever the isolation
            started = shell.run("export TMUX_TMPDIR=$HOME; tmux new-session -d -s k 'sleep 300'")
            return started.notice, shell.run("tmux has-session -t k && echo up").stdout

    notice, status = run(())
    assert "were stopped" in notice and status == ""
    notice, status = run(("tmux: server",))
    assert notice == "" and status == "up\n"


def test_keep_running_ends_with_reset_and_close(tmp_path):
    with ShellSandbox(tmp_path, keep_running=("tmux: server",)) as shell:
        shell.run("export TMUX_TMPDIR=$HOME; tmux new-session -d -s k 'sleep 300'")
        pids = [p for p in shell._current_pids() if Path(f"/proc/{p}/comm").read_text().strip() == "tmux: server"]
        assert len(pids) == 1
        shell.reset()
        deadline = time.monotonic() + 5
        while alive(pids[0]) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(pids[0])
        assert shell.run("export TMUX_TMPDIR=$HOME; tmux has-session -t k").exit_code == 1
        shell.run("tmux new-session -d -s k2 'sleep 300'")
        pids = [p for p in shell._current_pids() if Path(f"/proc/{p}/comm").read_text().strip() == "tmux: server"]
    deadline = time.monotonic() + 5
    while alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pids[0]) and os.path.exists("/proc/self")
