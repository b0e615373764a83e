"""tmux in the MacAgent sim: the real tmux inside the episode's confined shell — a round trip with a
program in a pane, the server surviving between commands but not into the next episode (nor
writing into its home), the sandbox's limits binding it, both shells seeing one server, ``tmux
attach`` in the simulated Terminal, and the sandbox's ``keep_running`` option underneath. The tests
wait (tests/_wait.py) for what tmux does on its own time: a pane's program starting or answering."""

from __future__ import annotations

import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from _wait import is_running, wait_until

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


def capture(backend: SimBackend, session: str) -> str:
    out, err, code = sh(backend, f"tmux capture-pane -p -t {session}")
    assert code == 0, err
    return out


def wait_for(backend: SimBackend, session: str, pattern: str) -> str:
    """The pane's text once a line matches the regular expression ``pattern`` (the pane's program
    answers on its own time)."""
    return wait_until(lambda: capture(backend, session), check=lambda screen: re.search(pattern, screen, re.M),
                      what=f"a line matching {pattern!r} in tmux session {session}")


def _comm_and_parent(pid: int) -> tuple[str, int] | None:
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None  # exited meanwhile
    return comm, ppid


def tmux_servers(pids: set[int]) -> list[int]:
    """The tmux servers among ``pids``. A pane's process carries the server's name from its fork to its
    exec, so a "tmux: server" whose parent is a tmux server is a pane starting, not a second server."""
    servers = []
    for pid in pids:
        info = _comm_and_parent(pid)
        if info is not None and info[0] == "tmux: server" and (_comm_and_parent(info[1]) or ("",))[0] != "tmux: server":
            servers.append(pid)
    return sorted(servers)


def server_pids(backend: SimBackend) -> list[int]:
    """Host pids of tmux servers inside the backend's main shell (its cgroup or process tree)."""
    return tmux_servers(backend.shells.sandbox("main")._current_pids())


def window_commands(backend: SimBackend, session: str) -> list[str]:
    out, err, code = sh(backend, f"tmux list-windows -t {session} -F '#{{pane_current_command}}'")
    assert code == 0, err
    return out.split()


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
    # processes started inside the session later belong to the server and stay too; the new pane
    # shows "bash" (the shell tmux runs the command with) until that shell has exec'd sleep
    assert sh(backend, "tmux new-window -t svc 'sleep 300'")[2] == 0
    wait_until(lambda: window_commands(backend, "svc"), check=lambda names: names == ["bash", "sleep"],
               what="the new window's pane to run sleep")
    assert window_commands(backend, "svc") == ["bash", "sleep"]  # still there after more commands


def test_no_tmux_server_survives_into_the_next_episode(backend, tmp_path):
    start_responder(backend)
    pids = server_pids(backend)
    assert len(pids) == 1 and is_running(pids[0])
    backend.reset(now=NOW, home=tmp_path / "home")
    assert not is_running(pids[0])  # reset returns once the last episode's processes have exited
    out, err, code = sh(backend, "tmux ls")
    assert code == 1 and out == ""
    assert err.startswith(("no server running on", "error connecting to"))
    assert server_pids(backend) == []


def test_a_program_of_the_last_episode_writes_nothing_into_the_next_ones_home(backend, tmp_path):
    # a pane writing into the home without pause: had it still run while the home was emptied, its
    # file would be waiting in the next episode's home
    (backend.home / "writer.sh").write_text("while :; do : > ~/left-over; done\n")
    assert sh(backend, "tmux new-session -d -s w 'bash ~/writer.sh'")[2] == 0
    wait_until(lambda: (backend.home / "left-over").exists(), what="the pane's program to write ~/left-over")
    [server] = server_pids(backend)
    backend.reset(now=NOW, home=tmp_path / "home")
    assert not is_running(server)
    assert not (backend.home / "left-over").exists() and not (backend.home / "writer.sh").exists()


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
        pids = tmux_servers(shell._current_pids())
        assert len(pids) == 1
        shell.reset()
        assert not is_running(pids[0])  # reset returns once the old shell's processes have exited
        assert shell.run("export TMUX_TMPDIR=$HOME; tmux has-session -t k").exit_code == 1
        assert shell.run("tmux new-session -d -s k2 'sleep 300'").exit_code == 0
        pids = tmux_servers(shell._current_pids())
        assert len(pids) == 1
    assert not is_running(pids[0]) and os.path.exists("/proc/self")  # close() too
