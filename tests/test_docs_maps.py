"""The code maps in README.md and docs/*.md name modules that exist: a module moved or renamed
without its map line fails here (only paths written in backticks are read, e.g. `mmenvs/core/env.py`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# a repository path of a Python module under one of the code roots; a placeholder (`mmenvs/<pkg>/bench.py`)
# has characters outside this set and is not a path
_MODULE_PATH = re.compile(r"(?<![\w/.-])((?:mmenvs|baselines|wrappers)/[\w./-]*\.py)\b")


def module_paths(markdown: str) -> list[str]:
    """The ``mmenvs/…py``, ``baselines/…py`` and ``wrappers/…py`` paths inside backticks in ``markdown``."""
    return [path for span in _CODE_SPAN.findall(markdown) for path in _MODULE_PATH.findall(span)]


def test_module_paths_are_read_from_code_spans_only() -> None:
    text = ("See `mmenvs/core/env.py` and `baselines/llm/agent.py:LLMAgent`, `wrappers/chat.py` (ChatMessages);\n"
            "not mmenvs/outside/backticks.py, nor a placeholder `mmenvs/<pkg>/bench.py`, nor `tests/test_x.py`.")
    assert module_paths(text) == ["mmenvs/core/env.py", "baselines/llm/agent.py", "wrappers/chat.py"]


def test_every_module_path_in_the_docs_exists() -> None:
    missing, seen = [], 0
    for doc in DOCS:
        for path in module_paths(doc.read_text(encoding="utf-8")):
            seen += 1
            if not (ROOT / path).is_file():
                missing.append(f"{doc.relative_to(ROOT)}: `{path}`")
    assert seen > 20, f"only {seen} module paths found in {len(DOCS)} documents: is the pattern still right?"
    assert not missing, "paths in the docs that are not in the tree (update the code map):\n" + "\n".join(missing)
