"""Test-only pieces for the LLM-agent tests.

``DescribedEcho`` is DebugEcho with its own fixed ``action_description``/``tool_specs`` (so these
tests do not follow DebugEcho's declarations), a ``tool_call_action`` hook and, to exercise the image
window, a new card image for every ``SAY``. ``echo_policy`` is a scripted "model" that reads the
card the way a vision model would have to: it looks the request's newest image up in a table of the
cards' data URLs and answers the word (as text or as a tool call).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

from mmenvs.baselines.llm.testserver import ServerFault, image_urls, tool_call
from mmenvs.core import ActionOutcome
from mmenvs.debug.env import DebugEchoEnv, _draw_card
from mmenvs.wrappers.chat import ImageOptions

ENV_ID = "LLMEcho-v0"


class DescribedEcho(DebugEchoEnv):
    """DebugEcho plus ``action_description()``/``tool_specs()``; ``SAY x`` also shows a card of x."""

    def action_description(self) -> str:
        return "One of: SAY <text> (echoed back) | <answer>word</answer> (ends the episode) | FAIL."

    def tool_specs(self) -> list[dict[str, Any]]:
        word = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
        text = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        return [{"type": "function", "function": {"name": "answer", "description": "Answer the word on the card.", "parameters": word}},
                {"type": "function", "function": {"name": "say", "description": "Say something (echoed back).", "parameters": text}}]

    def tool_call_action(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"answer": arguments.get("word", "")} if name == "answer" else {"say": arguments.get("text", "")}

    def act(self, action: str | dict[str, Any]) -> ActionOutcome:
        outcome = super().act(action)
        said = action.get("say") if isinstance(action, dict) else (action.strip()[4:] if action.strip().upper().startswith("SAY ") else None)
        if said is not None:
            self.images.add(_draw_card(str(said)[:12] or "-", (40, 40, 40)))
        return outcome


class BareEcho(DebugEchoEnv):
    """An env without the LLM interface (the agent must refuse it clearly): DebugEcho's two methods hidden."""

    action_description = None  # type: ignore[assignment]
    tool_specs = None  # type: ignore[assignment]


def register() -> None:
    if ENV_ID not in gym.registry:
        gym.register(ENV_ID, entry_point=DescribedEcho)


register()


def card_words(options: ImageOptions | None = None) -> dict[str, str]:
    """``{data URL of a task's card: its word}`` for every task, encoded as the agent encodes images."""
    options = options or ImageOptions()
    env = DescribedEcho()
    table = {}
    for task_id in env.task_ids():
        _, info = env.reset(seed=0, options={"task_id": task_id})
        table[options.encode(env.images.rgb(info["images"][0]))] = env.task["word"]
    env.close()
    return table


def echo_policy(table: dict[str, str], *, as_tool: bool = False, fail_words: set[str] | None = None):
    """Answers the word of the first image of the conversation; ``fail_words``: answer HTTP 500 instead."""
    def policy(request: dict[str, Any]) -> Any:
        word = table.get(image_urls(request)[0], "unknown")
        if fail_words and word in fail_words:
            raise ServerFault(500)
        return tool_call("answer", word=word) if as_tool else f"The card says {word}.\n<answer>{word}</answer>"

    return policy


class SlowAgent:
    """For the Ctrl-C test: answers the first two tasks at once; on the others it writes its pid to
    ``$SLOW_AGENT_DIR`` and waits for a long time (unless ``SLOW_AGENT_FAST`` is set)."""

    def bind(self, env: Any) -> None:
        self._env = env

    def reset(self, task_info: dict[str, Any]) -> None:
        self._task = task_info["task_id"]

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._task not in ("echo-00", "echo-01") and not os.environ.get("SLOW_AGENT_FAST"):
            folder = Path(os.environ["SLOW_AGENT_DIR"])
            (folder / f"{os.getpid()}.pid").write_text(str(os.getpid()))
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                time.sleep(0.2)
        return self._env.oracle_action(obs, info)
