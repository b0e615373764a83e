"""LLM agents for mmenvs (``mmenvs.baselines.llm``): any OpenAI-compatible endpoint, each paper's set-up.

- ``LLMAgent`` (``agent.py``; also ``load_agent("llm", ...)``): the agent, its ledger and response cache.
- ``prompts.py``: the frameworks (system prompts per paper, which env and mode each needs).
- ``testserver.py``: a real OpenAI-compatible HTTP server on 127.0.0.1 answering from a scripted
  policy, with fault injection (standard library only; usable without the ``llm`` extra).

``LLMAgent`` needs the ``llm`` extra (openai, tenacity) and is imported on first use.
"""

from __future__ import annotations

from typing import Any

from .prompts import FRAMEWORKS, GENERIC_FRAMEWORKS, Framework, describe_frameworks, resolve_framework

__all__ = ["FRAMEWORKS", "GENERIC_FRAMEWORKS", "Framework", "LLMAgent", "Ledger", "RequestRejected", "ResponseCache",
           "describe_frameworks", "resolve_framework"]


def __getattr__(name: str) -> Any:
    if name in ("LLMAgent", "Ledger", "RequestRejected", "ResponseCache"):
        from . import agent

        return getattr(agent, name)
    raise AttributeError(f"module 'mmenvs.baselines.llm' has no attribute {name!r}")
