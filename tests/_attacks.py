"""What the MacAgent attack tests (issue 14 classes 1-2: ``test_security_files.py``,
``test_security_documents.py``) share: a host canary outside the episode home, a snapshot that shows
any change to it, a timed ``env.step`` and the check that no secret or host path reached what the
agent sees."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401  (registers the ids)

#: The action deadline is 10 s; a loaded 2-core machine (and a child-process exporter) may add a lot,
#: but a hang is minutes.
STEP_BOUND_S = 60.0


@pytest.fixture(scope="module", name="env")
def macagent_env() -> Iterator[gym.Env]:
    """``env``: one ``MacAgent-v0`` per test module (import this name to get the fixture)."""
    environment = gym.make("MacAgent-v0")
    yield environment
    environment.close()


def make_canary(root: Path, secret: str, entry_name: str = "inside-secret.txt") -> dict[str, Any]:
    """A host file (``file``) and a host folder (``folder``, holding ``entry_name``) below ``root``, each
    holding ``secret``: what an attack must never read, list or change."""
    file = root / "canary.txt"
    file.write_text(secret + "\n")
    folder = root / "canary-dir"
    folder.mkdir()
    (folder / entry_name).write_text(secret)
    return {"secret": secret, "file": file, "folder": folder, "root": root}


def canary_snapshot(canary: dict[str, Any]) -> dict[str, tuple[str, bytes | None, int]]:
    """Every entry below the canary's root, links not followed: its kind, a regular file's bytes, its
    mtime. Equal snapshots mean nothing there was written, replaced, added or removed."""
    root = canary["root"]
    entries = {}
    for folder, dirs, files in os.walk(root):  # os.walk does not descend into symlinked folders
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            kind = "dir" if stat.S_ISDIR(info.st_mode) else "file" if stat.S_ISREG(info.st_mode) else "other"
            entries[str(path.relative_to(root))] = (kind, path.read_bytes() if kind == "file" else None, info.st_mtime_ns)
    return entries


def timed_step(env, action: Any) -> tuple[dict, dict, bool, float]:
    """``env.step(action)``: the observation, the info, whether the episode ended and the seconds it took."""
    started = time.monotonic()
    obs, _reward, terminated, truncated, info = env.step(action)
    return obs, info, terminated or truncated, time.monotonic() - started


def home_host_paths(core) -> set[str]:
    """The episode home's host paths as the MacAgent env ``core`` (the unwrapped env) knows them."""
    home = core.backend.home
    return {str(home), str(core._home_dir), os.path.realpath(home)}  # noqa: SLF001


def seen_texts(obs: dict, info: dict, *more: str) -> list[str]:
    """What the agent sees of a step (observation text, a11y tree, info) plus ``more`` (e.g. app state)."""
    return [obs.get("text", ""), obs.get("a11y", ""), json.dumps(info, default=str), *more]


def assert_no_leak(texts: Iterable[str], secrets: Iterable[str], host_paths: Iterable[str], action: Any) -> None:
    """No secret and no host path appears in any of ``texts`` (what ``action`` made the agent see)."""
    secrets, host_paths = list(secrets), list(host_paths)
    for text in texts:
        for secret in secrets:
            assert secret not in text, f"{secret!r} reached the observation after {action!r}: {text[:400]!r}"
        for path in host_paths:
            assert path not in text, f"a host path ({path}) reached the observation after {action!r}: {text[:400]!r}"
