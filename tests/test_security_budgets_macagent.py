"""Issue 14, class 3 in MacAgent: the episode budget bounds host memory and disk, checked before the work.

Each attack goes through ``env.step`` as an agent would, with a budget made small through the
``budget`` kwarg so the test is fast while the mechanism is the one that holds at the defaults.
Asserted: an error naming the limit, host memory (RSS of the env process and its children) and the
home's disk use within a bound, and a benign step that works afterwards."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import psutil
import pytest

import mmenvs  # noqa: F401 - registers the envs
from mmenvs.core.budget import EpisodeBudget

MiB = 2**20
BUDGET = {"tmpfs_bytes": 8 * MiB, "home_bytes": 16 * MiB, "action_chars": 20_000, "script_built_chars": 40_000_000,
          "image_pixels": 4_000_000, "speech_chars": 5_000, "child_memory_bytes": 512 * MiB, "action_timeout": 8.0}


@pytest.fixture(scope="module")
def module_env():
    e = gym.make("MacAgent-v0", budget=BUDGET).unwrapped
    yield e
    e.close()


@pytest.fixture
def env(module_env):
    module_env.reset(seed=0)  # a fresh episode (and home) per test
    return module_env


def _rss() -> int:
    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total


def _home_bytes(env) -> int:
    return env.backend.current_desktop().home_files.disk_usage()


def bash(env, code: str) -> str:
    obs, *_ = env.step(f"```bash\n{code}\n```")
    return obs["text"]


def applescript(env, code: str) -> str:
    obs, *_ = env.step(f"```applescript\n{code}\n```")
    return obs["text"]


def _benign_step_works(env) -> None:
    out = bash(env, "echo still-fine")
    assert out.startswith("still-fine\n") and out.endswith("[exit code 0]"), out


def test_budget_kwarg_reaches_every_host_side_part(env) -> None:
    assert env.budget == EpisodeBudget.from_option(BUDGET)
    assert env.backend.budget is env.budget
    with pytest.raises(TypeError, match="unknown field"):
        gym.make("MacAgent-v0", budget={"home_byte": 1})


def test_sandbox_tmpfs_mounts_are_sized_from_the_budget(env) -> None:
    out = bash(env, "for f in 1 2 3 4 5 6; do head -c 20M /dev/zero > /dev/shm/f$f 2>/dev/null; done; "
                    "df -B1 --output=used /dev/shm | tail -n1; df -B1 --output=size /dev/shm /tmp | tail -n2; touch /dev/x 2>&1")
    lines = out.splitlines()
    assert int(lines[0]) <= 8 * MiB  # six 20 MB files: at most the tmpfs budget is ever held
    assert [int(x) for x in lines[1:3]] == [8 * MiB, 8 * MiB]
    assert "Read-only file system" in out  # bwrap's own /dev tmpfs (unsized) cannot be written
    bash(env, "rm -f /dev/shm/f*")
    _benign_step_works(env)


def test_home_quota_stops_the_command_and_refuses_writes_until_room_is_made(env) -> None:
    before = _home_bytes(env)
    out = bash(env, "for i in $(seq 1 200); do head -c 3M /dev/zero > ~/Documents/f$i; done; echo finished")
    assert "home_bytes=16,777,216" in out and "the command was stopped" in out and "finished" not in out
    # Each file is capped by RLIMIT_FSIZE at the budget, and the loop is stopped at the next check.
    assert _home_bytes(env) - before < 200 * 3 * MiB // 2
    out = bash(env, "echo more > ~/Documents/more.txt; echo rc=$?")
    assert "until files are deleted, commands may not write files" in out
    assert env.backend.current_desktop().home_files.lstat("Documents/more.txt").st_size == 0  # made, but nothing written
    out = bash(env, "rm -f ~/Documents/f*")
    assert "back under its budget" in out
    assert bash(env, "echo more > ~/Documents/more.txt && cat ~/Documents/more.txt").startswith("more\n")
    assert _home_bytes(env) < 1 * MiB


def test_oversized_action_is_refused_before_parsing(env) -> None:
    rss = _rss()
    code = "import pyautogui\n" + "pyautogui.moveTo(1, 1)\n" * 200_000  # ~4.6 MB of calls
    obs, _, _, _, info = env.step(f"```python\n{code}```")
    assert info["action_error_kind"] == "budget_exceeded"
    assert "action_chars=20,000" in obs["text"]
    assert _rss() - rss < 64 * MiB
    _benign_step_works(env)


def test_applescript_cannot_build_past_its_budget(env) -> None:
    rss = _rss()
    out = applescript(env, 'set s to "ab"\nrepeat 19 times\nset s to s & s\nend repeat\n'  # 1M characters
                           "set l to {}\nrepeat 300 times\nset end of l to s & \"y\"\nend repeat\ncount l")
    assert "Out of memory" in out and "script_built_chars" in out and "(-108)" in out
    assert _rss() - rss < 200 * MiB  # 300 one-million-character strings would be 300 MB or more
    out = applescript(env, 'set s to "ab"\nrepeat 22 times\nset s to s & s\nend repeat')
    assert "script_value_chars" in out  # one text over the value budget (5M characters by default)
    assert applescript(env, "1 + 1") == "2"


def test_sips_refuses_images_over_the_pixel_budget_before_the_work(env) -> None:
    bash(env, "python3 -c \"from PIL import Image; Image.new('RGB', (40, 30), 'red').save('/Users/user/Desktop/pic.png')\"")
    rss = _rss()
    out = bash(env, "sips -z 30000 30000 ~/Desktop/pic.png --out ~/Desktop/big.png")
    assert "image_pixels=4,000,000" in out and "30000x30000" in out
    out = bash(env, "sips -p 3000 3000 ~/Desktop/pic.png")
    assert "image_pixels" in out and "padded" in out
    assert _rss() - rss < 128 * MiB
    assert not env.backend.current_desktop().home_files.exists("Desktop/big.png")
    # An image whose header is over the budget is refused before it is decoded (a decompression bomb).
    bash(env, "python3 -c \"from PIL import Image; Image.new('1', (3000, 3000)).save('/Users/user/Desktop/wide.png')\"")
    assert "image_pixels" in bash(env, "sips -g pixelWidth ~/Desktop/wide.png")
    assert "pixelWidth: 40" in bash(env, "sips -g pixelWidth ~/Desktop/pic.png")


def test_image_events_checks_the_pixel_budget(env) -> None:
    bash(env, "python3 -c \"from PIL import Image; Image.new('RGB', (40, 30), 'red').save('/Users/user/Desktop/ie.png')\"")
    out = applescript(env, 'tell application "Image Events"\nset img to open POSIX file "/Users/user/Desktop/ie.png"\n'
                           "scale img by factor 1000\nend tell")
    assert "image_pixels" in out
    assert applescript(env, "3 * 3") == "9"


def test_say_refuses_text_over_the_speech_budget(env) -> None:
    bash(env, "head -c 200000 /dev/zero | tr '\\0' 'a' | sed 's/a\\{10\\}/& /g' > ~/Documents/long.txt")
    out = bash(env, "say -f ~/Documents/long.txt -o ~/Documents/long.aiff")
    assert "speech_chars=5,000" in out
    assert not env.backend.current_desktop().home_files.exists("Documents/long.aiff")
    assert bash(env, "say -o ~/Documents/hi.aiff hello; ls ~/Documents/hi.aiff").startswith("/Users/user/Documents/hi.aiff\n")


@pytest.mark.parametrize("plant", ["ln -s /etc/passwd ~/Desktop/evil.png", "ln -s /dev/zero ~/Desktop/evil.png",
                                   "mkfifo ~/Desktop/evil.png", "ln -s /etc ~/Desktop/evildir"])
def test_media_tools_never_follow_links_or_open_special_files(env, plant: str) -> None:
    bash(env, "rm -rf ~/Desktop/evil.png ~/Desktop/evildir; " + plant)
    target = "~/Desktop/evildir/passwd" if "evildir" in plant else "~/Desktop/evil.png"
    out = bash(env, f"sips -g pixelWidth {target}; afinfo {target}; say -f {target} -o ~/Desktop/x.aiff")
    assert "root:" not in out and "/etc" not in out.replace("ln -s /etc", "")
    assert not re.search(r"/tmp/mmenvs-mac-", out)  # no host path of the home
    out = applescript(env, f'tell application "Image Events" to open POSIX file "/Users/user/{target[2:]}"')
    assert "root:" not in out
    bash(env, "rm -rf ~/Desktop/evil.png ~/Desktop/evildir ~/Desktop/x.aiff")
    _benign_step_works(env)


def test_media_write_is_checked_against_the_home_budget(env, tmp_path: Path) -> None:
    bash(env, "python3 -c \"from PIL import Image; Image.new('RGB', (40, 30), 'red').save('/Users/user/Desktop/p2.png')\"")
    bash(env, "head -c 15M /dev/urandom > ~/Documents/filler")
    out = bash(env, "sips -z 1900 1900 ~/Desktop/p2.png --out ~/Desktop/p3.bmp -s format bmp")
    assert "home_bytes" in out
    assert not env.backend.current_desktop().home_files.exists("Desktop/p3.bmp")
    bash(env, "rm -f ~/Documents/filler")
    _benign_step_works(env)


def test_host_child_memory_is_capped(env) -> None:
    # Resampling a second of speech to 2 GHz would take gigabytes: the tool's child hits its memory cap
    # (RLIMIT_AS) instead of growing the host.
    bash(env, "say -o ~/Documents/hi.wav --data-format=LEI16 hello")
    rss = _rss()
    out = bash(env, "afconvert -d LEI16@2000000000 -f WAVE ~/Documents/hi.wav ~/Documents/big.wav")
    assert "child_memory_bytes=536,870,912" in out
    assert _rss() - rss < 128 * MiB
    assert not env.backend.current_desktop().home_files.exists("Documents/big.wav")
    _benign_step_works(env)
