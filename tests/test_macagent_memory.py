"""Memory regressions for MacAgent (issue 7: ≤ 150 MB per env). The figure itself is measured by
``mmenvs bench``; these tests pin the causes found: heavy imports and caches that grew per episode."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from mmenvs.macagent.applescript import parser
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim import desktop as desktop_module


def test_a_macagent_episode_imports_neither_cv2_nor_matplotlib() -> None:
    # cv2 (~20 MB) and matplotlib (~10 MB) are only needed by other envs; an episode at the default
    # observation size must not load them
    code = ("import sys, gymnasium as gym, mmenvs\n"
            "env = gym.make('MacAgent-v0')\n"
            "env.reset(seed=0)\n"
            "env.step({'action_type': 'CLICK', 'x': 640, 'y': 400})\n"
            "env.close()\n"
            "print(json.dumps(sorted(m for m in ('cv2', 'matplotlib') if m in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_applescript_term_tables_are_shared_between_episodes(tmp_path: Path) -> None:
    # every episode builds new app objects with equal dictionaries; each must not get its own table
    be = SimBackend()
    try:
        for _ in range(6):
            be.reset(now=datetime(2025, 3, 3, 9, 0), home=tmp_path / "home")
            assert be.run_applescript('tell application "Notes" to count notes') == "0"
            be.run_applescript('tell application "Reminders" to count reminders')
        def tables() -> int:  # distinct compiled tables alive in the parser's cache
            return len({id(table) for _terms, table in parser._TABLE_CACHE.values()})

        distinct = tables()
        for _ in range(6):
            be.reset(now=datetime(2025, 3, 3, 9, 0), home=tmp_path / "home")
            be.run_applescript('tell application "Notes" to count notes')
            be.run_applescript('tell application "Reminders" to count reminders')
        assert tables() == distinct
    finally:
        be.close()


def test_rendered_layer_cache_is_bounded(tmp_path: Path) -> None:
    be = SimBackend()
    try:
        for i in range(6):  # six different desktops (a file on the Desktop changes the base layer)
            be.reset(now=datetime(2025, 3, 3, 9, i), home=tmp_path / "home")
            (be.home / "Desktop" / f"f{i}.txt").write_text("x")
            be.screenshot()
        kinds = [k[0] for k in desktop_module._LAYERS.items]
        for kind, limit in desktop_module._LayerCache.LIMITS.items():
            assert kinds.count(kind) <= limit
        assert kinds.count("base") == desktop_module._LayerCache.LIMITS["base"]
    finally:
        be.close()


def test_office_documents_are_written_and_read_without_their_libraries_in_the_env_process() -> None:
    # Pages exports Word and PDF, Keynote PowerPoint; the checkpoints read them back. The oracle must
    # still pass, and python-docx / python-pptx / pypdf / lxml must never load in the env process.
    code = ("import json, sys, gymnasium as gym, mmenvs\n"
            "from mmenvs.baselines import OracleAgent\n"
            "env = gym.make('MacAgent-v0'); agent = OracleAgent(); agent.bind(env.unwrapped)\n"
            "scores = []\n"
            "for task in ('pages-title-style-word-v0', 'pages-export-pdf-v0', 'keynote-theme-deck-pptx-v0'):\n"
            "    obs, info = env.reset(options={'task_id': task}); agent.reset(info); done = False\n"
            "    while not done:\n"
            "        obs, r, term, trunc, info = env.step(agent.act(obs, info)); done = term or trunc\n"
            "    scores.append(info['score'])\n"
            "env.close()\n"
            "print(json.dumps([scores, sorted(m for m in ('docx', 'pptx', 'pypdf', 'lxml', 'openpyxl') if m in sys.modules)]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    scores, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert scores == [1.0, 1.0, 1.0]
    assert loaded == []


def test_a_long_gui_episode_keeps_its_screenshot_history_packed() -> None:
    import numpy as np

    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv()
    try:
        env.reset(options={"task_id": "finder-folder-and-move-v0"})
        for i in range(24):  # Finder's sidebar rows in turn: every click changes the screen
            env.step({"action_type": "CLICK", "x": 265, "y": (215, 237)[i % 2]})
        assert len(env.images) >= 20
        assert env.images.raw_bytes() <= MacAgentEnv.image_memory_budget
        first = env.images.get("img_0")  # packed long ago, read back whole
        assert first.shape == (800, 1280, 3) and first.dtype == np.uint8 and first.std() > 0
    finally:
        env.close()
