"""ShellSandbox: a persistent, confined shell with host commands, in both isolation modes."""

from __future__ import annotations

import shutil
import os
import socket
import time
from pathlib import Path

import pytest
from _wait import NewProcesses

from mmenvs.sandbox import SandboxUnavailable, ShellResult, ShellSandbox
from mmenvs.sandbox.isolation import find_bwrap, probe_bwrap

REPO = Path(__file__).resolve().parents[1]
SECRET = "mmenvs-shell-secret-77d2"
_flags, _reason = probe_bwrap(find_bwrap())
requires_bwrap = pytest.mark.skipif(_flags is None, reason=f"bubblewrap unusable here: {_reason}")
MODES = [pytest.param("strict", marks=requires_bwrap), "rlimit-only"]


class Desktop:
    """A tiny stand-in for MacAgent's simulated desktop answering host commands."""

    def __init__(self) -> None:
        self.clipboard = ""
        self.calls: list[list[str]] = []

    def osascript(self, argv: list[str], stdin: str) -> tuple[str, str, int]:
        self.calls.append(argv)
        script = " ".join(argv[2:]) if argv[1:2] == ["-e"] else stdin
        if "get name of front window" in script:
            return "Notes\n", "", 0
        return "", f"osascript: cannot run {script!r}\n", 1

    def pbcopy(self, argv: list[str], stdin: str) -> tuple[str, str, int]:
        self.clipboard = stdin
        return "", "", 0

    def pbpaste(self, argv: list[str], stdin: str) -> tuple[str, str, int]:
        return self.clipboard, "", 0

    def commands(self) -> dict:
        def broken(argv: list[str], stdin: str) -> tuple[str, str, int]:
            raise RuntimeError("desktop crashed")

        return {"osascript": self.osascript, "pbcopy": self.pbcopy, "pbpaste": self.pbpaste, "broken": broken}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MMENVS_TEST_SECRET", SECRET)
    h = tmp_path / "home"
    (h / "Desktop").mkdir(parents=True)
    (h / "Desktop" / "note.txt").write_text("hello from the host\n")
    return h


@pytest.mark.parametrize("mode", MODES)
def test_cwd_and_exports_persist_and_home_is_writable(home: Path, mode: str) -> None:
    with ShellSandbox(home, isolation=mode, timeout=5) as sh:
        inside = sh.home_in_sandbox
        assert inside == ("/home/user" if mode == "strict" else str(home.resolve()))
        r = sh.run("pwd; echo $HOME; cat Desktop/note.txt")
        assert r.stdout == f"{inside}\n{inside}\nhello from the host\n" and r.exit_code == 0
        assert sh.run("cd Desktop && export GREETING=hi && LOCAL=1").exit_code == 0
        r = sh.run("pwd; echo $GREETING $LOCAL; echo made > new.txt")
        assert r.stdout == f"{inside}/Desktop\nhi 1\n"
        assert (home / "Desktop" / "new.txt").read_text() == "made\n"
        r = sh.run("echo oops >&2; false")
        assert r.stderr == "oops\n" and r.exit_code == 1
        assert r.text == "oops\n[exit code 1]"
        sh.reset()
        r = sh.run("pwd; echo \"[$GREETING]\"")
        assert r.stdout == f"{inside}\n[]\n"
        assert (home / "Desktop" / "new.txt").exists()  # home files survive a shell reset


@requires_bwrap
def test_only_home_and_private_tmp_are_writable(home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    with ShellSandbox(home, isolation="strict") as sh:
        for target in ("/usr/pwned", "/etc/pwned", "/pwned", str(outside), str(REPO / "pwned")):
            r = sh.run(f"echo x > {target}")
            assert r.exit_code != 0, target
        r = sh.run("echo t > /tmp/mmenvs_pwned && cat /tmp/mmenvs_pwned")
        assert r.stdout == "t\n"
    assert not outside.exists() and not (REPO / "pwned").exists()
    assert not Path("/tmp/mmenvs_pwned").exists()


@requires_bwrap
def test_host_secrets_and_files_are_invisible(home: Path) -> None:
    with ShellSandbox(home, isolation="strict") as sh:
        r = sh.run("env; cat /proc/1/environ; cat /etc/shadow; ls /root /work; id -u; cat /proc/*/environ")
        assert SECRET not in r.text
        assert "No such file or directory" in r.stderr
        assert "1000" in r.stdout.split()
        r = sh.run(f"ls {REPO}")
        assert r.exit_code != 0
        r = sh.run("ls /proc | grep -c '^[0-9]'")
        assert int(r.stdout) < 10  # a private pid namespace


@requires_bwrap
def test_no_network(home: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    port = server.getsockname()[1]
    try:
        with ShellSandbox(home, isolation="strict") as sh:
            r = sh.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
            assert "connected" not in r.stdout and r.exit_code != 0
            with pytest.raises(socket.timeout):
                server.accept()
            assert sh.run("echo still here").stdout == "still here\n"
    finally:
        server.close()


@pytest.mark.parametrize("mode", MODES)
def test_host_commands_run_in_the_parent(home: Path, mode: str) -> None:
    desk = Desktop()
    with ShellSandbox(home, isolation=mode, host_commands=desk.commands(), timeout=10) as sh:
        r = sh.run("osascript -e 'tell application \"System Events\" to get name of front window'")
        assert r.stdout == "Notes\n" and r.exit_code == 0
        assert desk.calls == [["osascript", "-e", 'tell application "System Events" to get name of front window']]
        assert r.host_calls[0]["argv"][0] == "osascript" and r.host_calls[0]["code"] == 0
        r = sh.run("osascript -e 'do shell script \"rm -rf /\"'")
        assert r.exit_code == 1 and "cannot run" in r.stderr
        r = sh.run("printf 'clip me' | pbcopy && pbpaste | tr a-z A-Z")
        assert r.stdout == "CLIP ME" and desk.clipboard == "clip me"
        r = sh.run("broken arg")
        assert r.exit_code == 1 and "broken: RuntimeError: desktop crashed" in r.stderr
        r = sh.run("which osascript pbcopy")
        assert r.exit_code == 0 and "osascript" in r.stdout


@requires_bwrap
def test_forged_host_requests_are_refused(home: Path) -> None:
    desk = Desktop()
    with ShellSandbox(home, isolation="strict", host_commands=desk.commands()) as sh:
        # The agent talks to the socket directly, naming a command that is not registered.
        py = os.path.realpath(os.sys.executable)
        code = ("import socket, json, os; s = socket.socket(socket.AF_UNIX); "
                "s.connect(os.environ['MMENVS_HOST_SOCK']); "
                "s.sendall(json.dumps({'argv': ['rm', '-rf', '/'], 'stdin': ''}).encode()); "
                "s.shutdown(socket.SHUT_WR); print(s.recv(1000).decode())")
        r = sh.run(f"{py} -S -c \"{code}\"")
        assert "host command request is malformed" in r.stdout
        r = sh.run(f"{py} -S -c \"import socket, os; s = socket.socket(socket.AF_UNIX); "
                   f"s.connect(os.environ['MMENVS_HOST_SOCK']); s.sendall(b'not json'); "
                   f"s.shutdown(socket.SHUT_WR); print(repr(s.recv(100)))\"")
        assert "host command refused: the request is malformed" in r.stdout  # answered, never run
        assert desk.calls == []


@pytest.mark.parametrize("mode", MODES)
def test_timeout_keeps_shell_when_only_a_child_hangs(home: Path, mode: str) -> None:
    with ShellSandbox(home, isolation=mode, timeout=0.5) as sh:
        sh.run("cd Desktop; export KEEP=yes")
        t0 = time.monotonic()
        r = sh.run("echo before; sleep 300")
        assert time.monotonic() - t0 < 60  # far below the sleep (whatever the load): stopped, not waited for
        assert r.timed_out and not r.restarted and r.exit_code == 124
        assert r.stdout == "before\n"
        assert "the shell kept its state" in r.text
        assert sh.run("pwd; echo $KEEP").stdout.endswith("Desktop\nyes\n")


@pytest.mark.parametrize("mode", MODES)
def test_busy_shell_is_restarted_in_the_same_directory(home: Path, mode: str) -> None:
    with ShellSandbox(home, isolation=mode, timeout=0.5) as sh:
        sh.run("cd Desktop; export LOST=yes")
        r = sh.run("while :; do :; done")
        assert r.timed_out and r.restarted
        assert "shell variables were reset" in r.text
        assert sh.run("pwd; echo \"[$LOST]\"").stdout.endswith("Desktop\n[]\n")


@pytest.mark.parametrize("mode", MODES)
def test_exit_restarts_and_says_so(home: Path, mode: str) -> None:
    with ShellSandbox(home, isolation=mode) as sh:
        r = sh.run("echo bye; exit 7")
        assert r.stdout == "bye\n" and r.exit_code == 7 and r.restarted
        assert "the shell exited (status 7)" in r.text
        assert sh.run("echo back").stdout == "back\n"


@pytest.mark.parametrize("mode", MODES)
def test_output_cap_with_marker(home: Path, mode: str) -> None:
    with ShellSandbox(home, isolation=mode, max_output_chars=100) as sh:
        r = sh.run("head -c 100000000 /dev/zero | tr '\\0' x; echo; echo err >&2")
        assert r.truncated and r.exit_code == 0
        assert r.stdout.startswith("x" * 100 + "\n... [output truncated: 100000001 bytes in all")
        assert r.stderr == "err\n"
        assert sh.run("echo ok").stdout == "ok\n"


@pytest.mark.parametrize("mode", MODES)
def test_syntax_errors_and_stdin_do_not_break_the_protocol(home: Path, mode: str) -> None:
    with ShellSandbox(home, isolation=mode) as sh:
        r = sh.run('echo "unterminated')
        assert r.exit_code == 2 and "unexpected EOF" in r.stderr
        r = sh.run("cat")  # stdin is /dev/null, so it ends at once
        assert r.exit_code == 0 and r.stdout == ""
        r = sh.run("read line; echo \"[$line]\"")
        assert r.stdout == "[]\n"
        assert sh.run("echo fine").stdout == "fine\n"
        r = sh.run("echo a\0b")
        assert r.exit_code == 2 and "NUL" in r.stderr


@requires_bwrap
def test_shell_fork_bomb_is_contained(home: Path) -> None:
    procs = NewProcesses()

    with ShellSandbox(home, isolation="strict", max_processes=32, timeout=5) as sh:
        assert sh.process_limit == "cgroup"
        sh.run("export KEEP=1")
        r = sh.run(":(){ :|:& };:")
        assert "background process(es) left by the command were stopped" in r.text or r.timed_out
        assert procs.at_most(6) <= 6  # bwrap, its init and bash, for the shell and its spare
        r2 = sh.run("echo alive $KEEP")
        assert r2.stdout in ("alive 1\n", "alive \n")
        assert r2.stdout == "alive 1\n" or r.restarted
        # More background jobs than the cgroup allows: fork fails inside, the host is untouched.
        sh.timeout = 2
        r = sh.run("for i in $(seq 100); do sleep 30 & done")
        assert "fork: retry: Resource temporarily unavailable" in r.stderr
        assert procs.at_most(6) <= 6
        assert sh.run("echo alive").stdout == "alive\n"
    assert procs.at_most(0) == 0


@pytest.mark.slow
@requires_bwrap
def test_shell_memory_limit(home: Path) -> None:
    with ShellSandbox(home, isolation="strict", memory_mb=128, timeout=10) as sh:
        r = sh.run("x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}")
        assert "cannot allocate" in r.stderr
        assert r.restarted and "the shell exited" in r.text
        assert sh.run("echo ok").stdout == "ok\n"


def test_strict_refuses_without_bwrap(home: Path, tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match="was not found"):
        ShellSandbox(home, isolation="strict", bwrap=str(tmp_path / "nope"))


def test_bad_arguments_are_clear_errors(home: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not an existing directory"):
        ShellSandbox(tmp_path / "missing", isolation="rlimit-only")
    with pytest.raises(ValueError, match="host command name 'a b' is not a plain command name"):
        ShellSandbox(home, isolation="rlimit-only", host_commands={"a b": lambda a, s: ("", "", 0)})
    with pytest.raises(ValueError, match="env entry"):
        ShellSandbox(home, isolation="rlimit-only", env={"BAD-NAME": "x"})
    with pytest.raises(ValueError, match="home_in_sandbox"):
        ShellSandbox(home, isolation="rlimit-only", home_in_sandbox="relative")


def test_env_is_passed_and_close_is_idempotent(home: Path) -> None:
    sh = ShellSandbox(home, isolation="rlimit-only", env={"TASK_ID": "t-1"})
    assert sh.run("echo $TASK_ID; echo ${MMENVS_TEST_SECRET:-none}").stdout == "t-1\nnone\n"
    sh.close()
    sh.close()
    with pytest.raises(RuntimeError, match="closed"):
        sh.run("true")


def test_shellresult_text() -> None:
    assert ShellResult(stdout="a\n", stderr="b\n", exit_code=3).text == "a\nb\n[exit code 3]"
    assert ShellResult(exit_code=0).text == "(no output)"


@pytest.mark.parametrize("spare", [True, False])
def test_reset_with_and_without_spare_shell(home: Path, spare: bool) -> None:
    with ShellSandbox(home, isolation="rlimit-only", spare=spare) as sh:
        for i in range(3):
            r = sh.run(f"cd Desktop && export N={i} && echo $N")
            assert r.stdout == f"{i}\n" and sh.cwd.endswith("/Desktop")
            sh.reset()
            assert sh.cwd == sh.home_in_sandbox
            assert sh.run("pwd; echo \"[$N]\"").stdout == f"{sh.home_in_sandbox}\n[]\n"


def test_interrupt_in_a_host_command_replaces_the_shell(home: Path) -> None:
    def boom(argv: list[str], stdin: str) -> tuple[str, str, int]:
        raise KeyboardInterrupt

    with ShellSandbox(home, isolation="rlimit-only", host_commands={"boom": boom}) as sh:
        with pytest.raises(KeyboardInterrupt):
            sh.run("boom")
        r = sh.run("echo after")
        assert r.stdout == "after\n" and r.restarted


@pytest.mark.parametrize("mode", MODES)
def test_a_removed_runtime_folder_is_rebuilt(home: Path, mode: str) -> None:
    """A temp cleaner removing the runtime folder mid-run (seen in a long PPO run: "bwrap: Can't find
    source path …/bin" at reset) costs a new shell, not the env."""
    desk = Desktop()
    with ShellSandbox(home, isolation=mode, host_commands=desk.commands()) as sh:
        assert sh.run("echo hi | pbcopy; pbpaste").stdout == "hi\n"
        old = sh.runtime_dir
        shutil.rmtree(old)
        r = sh.run("echo again | pbcopy; pbpaste")  # the running shell's host channel was gone
        assert r.restarted and "runtime folder had been removed" in r.text
        assert r.stdout == "again\n" and sh.runtime_dir != old and Path(sh.runtime_dir, "bin").is_dir()
        shutil.rmtree(sh.runtime_dir)
        sh.reset()  # what failed in the training run
        assert sh.run("echo third | pbcopy; pbpaste").stdout == "third\n"
        kept = sh.runtime_dir
    assert not Path(kept).exists()  # close() removes the rebuilt folder
