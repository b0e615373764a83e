"""DebugEcho-v0: read a word drawn in an image and answer it.

Kept as a documented test env: it is the smallest complete ``MMEnv`` (task data in the registry,
an image, a text grammar, a score), so the runner, recorder, CLI and contract tests have a fast
subject that does not depend on any benchmark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mmenvs.core import (ActionError, ActionOutcome, Evaluation, FunctionDecl, MMEnv, Param, control_word, extract_answer,
                         load_json, parse_tool_call, registry_path)

_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
#: The actions, each with its text form: the parser, the description and the tool specs read these.
ACTIONS: dict[str, tuple[FunctionDecl, str]] = {
    "say": (FunctionDecl("say", "Say something; it is echoed back (the episode goes on).",
                         (Param("text", "string", "What to say."),)), "SAY <text>"),
    "answer": (FunctionDecl("answer", "Answer the word on the card (ends the episode).",
                            (Param("word", "string", "The word written on the card."),)), "<answer>word</answer>"),
    "fail": (FunctionDecl("fail", "Give up (ends the episode)."), "FAIL"),
}


class DebugEchoEnv(MMEnv):
    """Read the word in the picture and answer it.

    ## Description
    Each task shows one word drawn on a coloured card. The agent may ``SAY <text>`` (echoed back, a
    no-op step) any number of times and ends the episode with ``<answer>word</answer>`` (or ``FAIL``).

    ## Observation Space
    ``Dict(text=UnicodeText, image=Box(0, 255, (H, W, 3), uint8))``: the instruction, then the echo
    or error text; the card, letterboxed to ``obs_size``.

    ## Action Space
    A string: ``SAY <text>``, ``<answer>…</answer>``, ``FAIL``; or a dict ``{"say": …}`` / ``{"answer": …}``,
    or a function call ``{"name": "say" | "answer" | "fail", "arguments": {...}}`` (``tool_specs()``).

    ## Rewards
    1.0 if the answer equals the word (case- and space-insensitive), else 0.0; paid at the end
    (``reward_mode="final"``) or as the change in score (``"progress"``).

    ## Starting State
    A task from ``registry/debug/tasks.json``, chosen by ``options`` or drawn with ``np_random``.

    ## Episode End
    Terminated on an answer or ``FAIL``; truncated after ``max_steps`` (10) steps.

    ## Arguments
    ``obs_size`` (height, width), ``reward_mode``, ``render_mode``, ``max_steps``.

    ## Examples
    >>> import gymnasium as gym, mmenvs
    >>> env = gym.make("DebugEcho-v0")
    >>> obs, info = env.reset(seed=0)
    """

    max_steps = 10

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._tasks = {t["id"]: t for t in load_json(registry_path("debug", "tasks.json"), "DebugEcho task suite")["tasks"]}
        self._answer: str | None = None

    # --- tasks
    def task_ids(self) -> list[str]:
        return list(self._tasks)

    def load_task(self, task_id: str) -> dict[str, Any]:
        if task_id not in self._tasks:
            raise ValueError(f"DebugEcho-v0: unknown task_id {task_id!r}; valid ids: {', '.join(self._tasks)}")
        return self._tasks[task_id]

    def task_from_spec(self, spec: Mapping[str, Any] | str | Path) -> dict[str, Any]:
        data = load_json(spec, "DebugEcho task") if isinstance(spec, (str, Path)) else dict(spec)
        source = str(spec) if isinstance(spec, (str, Path)) else "inline task"
        for key, kind in (("id", str), ("word", str), ("category", str), ("background", list)):
            if not isinstance(data.get(key), kind):
                raise ValueError(f"{source}: field {key!r} must be a {kind.__name__}, got {data.get(key)!r}")
        if len(data["background"]) != 3 or not all(isinstance(v, int) and 0 <= v <= 255 for v in data["background"]):
            raise ValueError(f"{source}: field 'background' must be three integers in 0..255, got {data['background']!r}")
        return data

    def task_metadata(self) -> dict[str, Any]:
        return {"category": self.task["category"]}

    # --- episode
    def begin(self, task: dict[str, Any]) -> str:
        self._answer = None
        self.images.add(_draw_card(task["word"], tuple(task["background"])))
        return "What word is written on the card? Reply <answer>word</answer>. You may also SAY <text>."

    def action_description(self) -> str:
        """The grammar as prompt text, from ``ACTIONS`` (what ``act`` parses)."""
        lines = [f"- {text}: {decl.description}" for decl, text in ACTIONS.values()]
        calls = ", ".join(decl.signature() for decl, _ in ACTIONS.values())
        return "One action per step, one of:\n" + "\n".join(lines) + f"\nAs function calls: {calls}."

    def tool_specs(self) -> list[dict[str, Any]]:
        """``ACTIONS`` as OpenAI function-calling specs."""
        return [decl.openai() for decl, _ in ACTIONS.values()]

    def act(self, action: str | dict[str, Any]) -> ActionOutcome:
        if isinstance(action, dict) and "name" in action:
            action = _call_as_text(action)
        if isinstance(action, dict):
            if "answer" in action:
                action = f"<answer>{action['answer']}</answer>"
            elif "say" in action:
                action = f"SAY {action['say']}"
            else:
                raise ActionError("bad_action_dict", 'A dict action must have the key "answer" or "say".')
        answer = extract_answer(action)
        if answer is not None:
            self._answer = answer
            return ActionOutcome(text=f"You answered {answer!r}.", terminated=True)
        if control_word(action) == "FAIL":
            return ActionOutcome(text="You gave up.", terminated=True)
        stripped = action.strip()
        if stripped.upper().startswith("SAY "):
            return ActionOutcome(text=stripped[4:])
        raise ActionError("unknown_action", "Unknown action: send SAY <text>, <answer>word</answer> or FAIL.")

    def evaluate(self) -> Evaluation:
        correct = self._answer is not None and _normalise(self._answer) == _normalise(self.task["word"])
        return Evaluation(float(correct), correct, {"answer": self._answer})

    # --- agents
    def oracle_action(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        return f"<answer>{self.task['word']}</answer>"

    def random_action(self, rng: np.random.Generator) -> str:
        word = "".join(_ALPHABET[i] for i in rng.integers(0, 26, size=int(rng.integers(3, 8))))
        return [f"SAY {word}", f"<answer>{word}</answer>", "FAIL"][int(rng.choice(3, p=[0.6, 0.3, 0.1]))]


def _call_as_text(action: dict[str, Any]) -> str:
    """A function call of ``ACTIONS`` as the text action it stands for (arguments checked)."""
    call = parse_tool_call(action)
    if call.name not in ACTIONS:
        raise ActionError("unknown_tool", f"Unknown function {call.name!r}: call one of {', '.join(ACTIONS)}.")
    arguments = ACTIONS[call.name][0].check_arguments(call.arguments)
    if call.name == "say":
        return f"SAY {arguments['text']}"
    if call.name == "answer":
        return f"<answer>{arguments['word']}</answer>"
    return "FAIL"


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def _draw_card(word: str, background: tuple[int, int, int]) -> np.ndarray:
    card = Image.new("RGB", (320, 160), background)
    draw = ImageDraw.Draw(card)
    font = ImageFont.load_default(size=40)
    ink = (255, 255, 255) if sum(background) < 384 else (0, 0, 0)
    draw.text((160, 80), word, fill=ink, font=font, anchor="mm")
    return np.asarray(card)
