"""Issue 14 classes 1 and 2 on the MacAgent sim: links and special files in the home are never followed
by host code, names are never paths, and no host path reaches an observation.

Every attack goes through ``env.step`` as an agent would send it: a ```bash block plants a symlink to a
canary file (or folder) outside the home, a FIFO or a link to ``/dev/zero``; then Finder (GUI and
AppleScript), Spotlight, the Open panel, ``open``, ``osascript``, ``screencapture`` and ``curl -o`` are
pointed at it. Each test asserts that the canary is unchanged, that its secret and the home's host
path appear in no observation text, a11y tree or info, that the step ended within the action deadline
plus a generous margin, and that the next benign step works.
"""

from __future__ import annotations

import os
import re
import uuid

import psutil
import pytest

import mmenvs  # noqa: F401  (registers the ids)
from _attacks import macagent_env  # noqa: F401  (the module's env fixture)
from _attacks import STEP_BOUND_S, assert_no_leak, canary_snapshot, home_host_paths, make_canary, seen_texts, timed_step
from mmenvs.core.confined import ConfinedDir

TASK = {
    "id": "security-files", "instruction": "Explore the files.", "category": "System", "apps": ["Finder"],
    "reference_time": "2026-03-10T09:30:00",
    "setup": [{"type": "file", "path": "~/Desktop/a.txt", "content": "hello"}],
    "checkpoints": [{"name": "a kept", "tag": "file_ops", "metric": {"type": "file_exists", "path": "~/Desktop/a.txt"}}],
    "reference_solution": ["```bash\ntrue\n```"],
}


@pytest.fixture
def canary(tmp_path):
    """A host file and a host folder outside the home, each holding a secret the agent must never see."""
    return make_canary(tmp_path, f"HOST-SECRET-{uuid.uuid4().hex}")


class Agent:
    """Sends actions through ``env.step`` and checks every observation for leaks."""

    def __init__(self, env, canary: dict) -> None:
        self.env, self.canary = env, canary
        self.obs, self.info = env.reset(options={"task": TASK})
        self.core = env.unwrapped
        self.home = self.core.backend.home
        self.host_markers = home_host_paths(self.core)
        self.before = canary_snapshot(canary)

    def step(self, action):
        obs, info, ended, elapsed = timed_step(self.env, action)
        assert elapsed < STEP_BOUND_S, f"the step took {elapsed:.1f} s: {action!r}"
        assert not ended, info
        self.assert_clean(obs, info, action)
        self.obs, self.info = obs, info
        return obs, info

    def bash(self, command: str):
        return self.step(f"```bash\n{command}\n```")

    def applescript(self, source: str):
        return self.step(f"```applescript\n{source}\n```")

    def gui(self, code: str):
        return self.step(f"```python\nimport pyautogui\n{code}\n```")

    def assert_clean(self, obs, info, action) -> None:
        assert_no_leak(seen_texts(obs, info), [self.canary["secret"]], self.host_markers, action)

    def center(self, role: str, name: str) -> tuple[int, int]:
        """The centre of the a11y element ``role "name" [x, y, w, h]`` in the current observation."""
        match = re.search(rf'{role} "{re.escape(name)}"[^\n]*?\[(\d+), (\d+), (\d+), (\d+)\]', self.obs["a11y"])
        assert match, f"no {role} {name!r} on screen:\n{self.obs['a11y'][:3000]}"
        x, y, w, h = (int(v) for v in match.groups())
        return x + w // 2, y + h // 2

    def dismiss_alerts(self) -> None:
        for _ in range(3):
            if '"OK"' not in self.obs["a11y"]:
                return
            self.gui("pyautogui.press('enter')")

    def home_holds_secret(self) -> bool:
        """Whether any regular file in the home holds the secret (read through the layer, links not followed)."""
        files = ConfinedDir(self.home)
        return any(entry.kind == "file" and self.canary["secret"].encode() in files.read_bytes(path)
                   for path, entry in files.walk())

    def finish(self) -> None:
        """The host is unchanged and the next benign step works."""
        assert canary_snapshot(self.canary) == self.before, "a file outside the home changed"
        assert not self.home_holds_secret(), "the canary's content was copied into the home"
        obs, _ = self.bash("echo still-working")
        assert "still-working" in obs["text"]


def test_a_link_to_a_host_file_is_never_read_by_open_finder_spotlight_or_panels(env, canary):
    agent = Agent(env, canary)
    agent.bash(f"ln -s {canary['file']} ~/Desktop/s.txt && ln -s {canary['file']} ~/Documents/s.txt")
    obs, _ = agent.bash("open ~/Desktop/s.txt; open -a TextEdit ~/Desktop/s.txt; open -e ~/Documents/s.txt")
    assert "is a link or a special file" in obs["text"]
    obs, _ = agent.bash("osascript ~/Desktop/s.txt")
    assert "symbolic link" in obs["text"]
    # Finder: AppleScript open, then a double-click on the desktop icon
    agent.applescript('tell application "Finder" to open file "s.txt" of desktop')
    agent.dismiss_alerts()
    x, y = agent.center("AXImage", "s.txt")
    agent.gui(f"pyautogui.doubleClick({x}, {y})")
    assert "could not be opened" in agent.obs["a11y"]
    agent.dismiss_alerts()
    # Spotlight finds the link by name; opening it is refused the same way
    agent.gui("pyautogui.hotkey('command', 'space')")
    agent.gui("pyautogui.write('s.txt')")
    agent.gui("pyautogui.press('enter')")
    agent.dismiss_alerts()
    # TextEdit's Open panel lists the link but does not open it
    agent.bash("open -a TextEdit")
    agent.gui("pyautogui.hotkey('command', 'o')")
    x, y = agent.center("AXRow", "s.txt") if 'AXRow "s.txt"' in agent.obs["a11y"] else agent.center("AXCell", "s.txt")
    agent.gui(f"pyautogui.doubleClick({x}, {y})")
    agent.dismiss_alerts()
    texts = [d["text"] for d in env.unwrapped.backend.app_state("TextEdit")["documents"]]
    assert not any(canary["secret"] in t for t in texts)
    agent.finish()


def test_finder_renames_copies_moves_and_trashes_a_link_as_a_link(env, canary):
    agent = Agent(env, canary)
    agent.bash(f"ln -s {canary['file']} ~/Desktop/s.txt")
    agent.applescript('tell application "Finder" to set name of file "s.txt" of desktop to "t.txt"')
    obs, _ = agent.bash("readlink ~/Desktop/t.txt")
    assert str(canary["file"]) in obs["text"]  # the link moved; what it points to did not
    agent.applescript('tell application "Finder" to duplicate file "t.txt" of desktop')
    agent.applescript('tell application "Finder" to move file "t.txt" of desktop to folder "Documents" of home')
    obs, _ = agent.bash("ls ~/Desktop ~/Documents")
    assert "t copy.txt" in obs["text"] and "t.txt" in obs["text"]
    agent.applescript('tell application "Finder" to delete file "t.txt" of folder "Documents" of home')
    agent.applescript('tell application "Finder" to empty trash')
    # the GUI: a Finder window on the Desktop, the link selected, Duplicate and Move to Trash
    agent.bash("open ~/Desktop")
    x, y = agent.center("AXRow", "t copy.txt") if 'AXRow "t copy.txt"' in agent.obs["a11y"] else agent.center("AXCell", "t copy.txt")
    agent.gui(f"pyautogui.click({x}, {y})")
    agent.gui("pyautogui.hotkey('command', 'd')")
    agent.gui("pyautogui.hotkey('command', 'backspace')")
    obs, _ = agent.bash("ls -la ~/.Trash ~/Desktop")
    assert "->" in obs["text"]  # links stayed links wherever they went
    agent.finish()


def test_a_symlinked_folder_is_never_listed_entered_or_moved_into(env, canary):
    agent = Agent(env, canary)
    agent.bash(f"ln -s {canary['folder']} ~/Desktop/dir")
    obs, _ = agent.applescript('tell application "Finder" to get name of every file of folder "dir" of desktop')
    assert "inside-secret" not in obs["text"]
    agent.applescript('tell application "Finder" to move file "a.txt" of desktop to folder "dir" of desktop')
    obs, _ = agent.bash("open ~/Desktop/dir; ls ~/Desktop")
    assert "a.txt" in obs["text"]
    agent.bash("open ~/Desktop")
    x, y = agent.center("AXRow", "dir") if 'AXRow "dir"' in agent.obs["a11y"] else agent.center("AXCell", "dir")
    agent.gui(f"pyautogui.doubleClick({x}, {y})")
    assert "inside-secret" not in agent.obs["a11y"]
    agent.dismiss_alerts()
    agent.gui("pyautogui.hotkey('command', 'space')")
    agent.gui("pyautogui.write('inside-secret')")
    assert "inside-secret.txt" not in agent.obs["a11y"]  # Spotlight does not index through the link
    agent.gui("pyautogui.press('esc')")
    agent.finish()


def test_a_fifo_and_a_link_to_dev_zero_neither_hang_nor_read_without_bound(env, canary):
    agent = Agent(env, canary)
    process = psutil.Process()
    rss_before = process.memory_info().rss
    agent.bash("mkfifo ~/Desktop/pipe.txt && ln -s /dev/zero ~/Desktop/zero.txt && mkfifo ~/Desktop/shot.png")
    obs, _ = agent.bash("open ~/Desktop/pipe.txt; open ~/Desktop/zero.txt; open -a TextEdit ~/Desktop/pipe.txt; "
                        "osascript ~/Desktop/pipe.txt; osascript ~/Desktop/zero.txt; screencapture -x ~/Desktop/shot.png; "
                        "echo done-probing")
    assert "done-probing" in obs["text"]
    for name in ("pipe.txt", "zero.txt"):
        agent.applescript(f'tell application "Finder" to duplicate file "{name}" of desktop')
        agent.applescript(f'tell application "Finder" to open file "{name}" of desktop')
        agent.dismiss_alerts()
        x, y = agent.center("AXImage", name)
        agent.gui(f"pyautogui.doubleClick({x}, {y})")
        agent.dismiss_alerts()
    agent.gui("pyautogui.hotkey('command', 'space')")
    agent.gui("pyautogui.write('zero')")
    agent.gui("pyautogui.press('enter')")
    agent.dismiss_alerts()
    grown = process.memory_info().rss - rss_before
    assert grown < 300 * 2**20, f"host memory grew by {grown / 2**20:.0f} MB"
    agent.finish()


def test_screencapture_and_curl_never_write_through_a_link(env, canary):
    agent = Agent(env, canary)
    agent.bash(f"ln -s {canary['file']} ~/Desktop/link.png && ln -s {canary['file']} ~/Desktop/page.html")
    obs, _ = agent.bash("screencapture -x ~/Desktop/link.png; echo rc=$?")
    assert "rc=1" in obs["text"] and "symbolic link" in obs["text"]
    obs, _ = agent.bash(f"ln -s {canary['folder']} ~/Desktop/dir; screencapture -x ~/Desktop/dir/shot.png; echo rc=$?")
    assert "rc=1" in obs["text"]
    agent.bash("curl -o ~/Desktop/page.html https://www.apple.com/; echo rc=$?")
    obs, _ = agent.bash("screencapture -x ~/Desktop/real.png && ls ~/Desktop")
    assert "real.png" in obs["text"]  # a plain name still works
    agent.finish()


def test_names_given_to_finder_are_names_never_paths(env, canary):
    agent = Agent(env, canary)
    core = env.unwrapped
    outside_before = sorted(os.listdir(core._home_dir))  # noqa: SLF001
    for script in ('tell application "Finder" to make new folder at desktop with properties {name:"../../../../x"}',
                   'tell application "Finder" to make new file at desktop with properties {name:"../escape.txt"}',
                   'tell application "Finder" to make new folder at desktop with properties {name:"a/b"}',
                   'tell application "Finder" to make new folder at desktop with properties {name:"a" & (character id 0) & "b"}',
                   'tell application "Finder" to set name of file "a.txt" of desktop to "../moved.txt"',
                   'tell application "Finder" to set name of file "a.txt" of desktop to ".."'):
        obs, _ = agent.applescript(script)
        assert "can’t be used" in obs["text"] or "can't be used" in obs["text"], (script, obs["text"])
    assert sorted(os.listdir(core._home_dir)) == outside_before  # noqa: SLF001
    assert not (core._home_dir.parent / "x").exists()  # noqa: SLF001
    obs, _ = agent.bash("ls -A ~ ~/Desktop")
    assert "escape" not in obs["text"] and "moved" not in obs["text"]
    # a benign name still works, and the reply names the item as the agent knows it
    obs, _ = agent.applescript('tell application "Finder" to make new folder at desktop with properties {name:"ok"}')
    assert 'folder "ok"' in obs["text"]
    agent.finish()


def test_no_host_path_in_replies_and_errors(env, canary):
    agent = Agent(env, canary)
    # every reply below is checked by Agent.step for the home's host path
    agent.bash("open /Users/user/nothing.txt; open ~/nothing.txt; open ../../../../etc; open -R /etc/passwd")
    agent.bash("osascript ~/missing.scpt; screencapture -x /etc/x.png; curl -o /tmp/x https://www.apple.com/")
    obs, _ = agent.applescript('tell application "Finder" to get POSIX path of (desktop as alias)')
    assert "/Users/user/Desktop" in obs["text"]
    agent.applescript('tell application "Finder" to get URL of file "a.txt" of desktop')
    agent.applescript('tell application "Finder" to open POSIX file "/etc/passwd"')
    agent.applescript('tell application "Finder" to duplicate file "missing.txt" of desktop')
    agent.finish()


def test_a_swap_loop_never_leaks_the_canary_into_an_app(env, canary):
    agent = Agent(env, canary)
    # one step: a loop in the background swaps a benign file and a link to the canary as fast as it can,
    # while the host opens and copies that name again and again
    script = (
        "cd ~/Desktop; echo benign > plain.txt; ln -s " + str(canary["file"]) + " link.txt; "
        "( for i in $(seq 4000); do cp -P link.txt next && mv -f next swap.txt; cp plain.txt next && mv -f next swap.txt; "
        "done ) & "
        "for i in $(seq 25); do open -a TextEdit ~/Desktop/swap.txt 2>/dev/null; "
        "osascript -e 'tell application \"TextEdit\" to close every document saving no' "
        "-e 'tell application \"Finder\" to duplicate file \"swap.txt\" of desktop' >/dev/null 2>&1; done; wait; echo swapped"
    )
    obs, _ = agent.bash(script)
    assert "swapped" in obs["text"]
    texts = [d["text"] for d in env.unwrapped.backend.app_state("TextEdit")["documents"]]
    assert not any(canary["secret"] in t for t in texts)
    agent.finish()
