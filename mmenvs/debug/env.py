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
from mmenvs.core.families import check_task_filter, matches

_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
#: What ``suite=`` selects: the 12 pinned cards, or fresh training cards (a pinned word on a new background).
SUITES = ("pinned", "train")
#: How far (sum of channel differences) a training card's background stays from its word's pinned one.
TRAIN_BACKGROUND_DISTANCE = 90
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
    ``suite="pinned"`` (default): a task from ``registry/debug/tasks.json``, chosen by ``options`` or
    drawn with ``np_random``. ``suite="train"``: a fresh card for every reset, one of the pinned words
    on a background drawn with ``np_random`` at least ``TRAIN_BACKGROUND_DISTANCE`` away from that
    word's pinned background (so a policy trained on it is evaluated on cards it never saw).
    ``task_filter={"category": ...}`` keeps one family (fruit, animal, colour) in either suite.

    ## Episode End
    Terminated on an answer or ``FAIL``; truncated after ``max_steps`` (10) steps.

    ## Arguments
    ``suite``, ``task_filter``, ``obs_size`` (height, width), ``reward_mode``, ``render_mode``, ``max_steps``.

    ## Examples
    >>> import gymnasium as gym, mmenvs
    >>> env = gym.make("DebugEcho-v0")
    >>> obs, info = env.reset(seed=0)
    """

    max_steps = 10

    def __init__(self, *, suite: str = "pinned", task_filter: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if suite not in SUITES:
            raise ValueError(f"DebugEcho-v0: suite must be one of {SUITES}, got {suite!r}")
        super().__init__(**kwargs)
        self.suite = suite
        self._all_tasks = {t["id"]: t for t in load_json(registry_path("debug", "tasks.json"), "DebugEcho task suite")["tasks"]}
        self.set_task_filter(task_filter)
        self._answer: str | None = None

    def set_task_filter(self, task_filter: Mapping[str, Any] | None) -> None:
        """Select the family (``task_filter``, see ``mmenvs.core.families``) from the next reset on."""
        self.task_filter = check_task_filter("DebugEcho-v0", task_filter, {"category": sorted({t["category"] for t in self._all_tasks.values()})})
        self._tasks = {i: t for i, t in self._all_tasks.items() if matches(t, self.task_filter)}
        if not self._tasks:
            raise ValueError(f"DebugEcho-v0: task_filter {self.task_filter} matches no task")

    # --- tasks
    def task_ids(self) -> list[str]:
        """The pinned tasks of the family ("train" has none: it draws a fresh card per reset)."""
        return [] if self.suite == "train" else list(self._tasks)

    def sample_task(self, rng: np.random.Generator) -> dict[str, Any]:
        if self.suite != "train":
            return super().sample_task(rng)
        pinned = list(self._tasks.values())
        base = pinned[int(rng.integers(len(pinned)))]
        while True:  # a background far from the word's pinned one (a few draws at most)
            background = [int(v) for v in rng.integers(0, 256, size=3)]
            if sum(abs(a - b) for a, b in zip(background, base["background"])) >= TRAIN_BACKGROUND_DISTANCE:
                break
        colour = "".join(f"{v:02x}" for v in background)
        return {"id": f"train-{base['word']}-{colour}", "word": base["word"], "category": base["category"], "background": background}

    def load_task(self, task_id: str) -> dict[str, Any]:
        if task_id.startswith("train-") and task_id.count("-") == 2:  # a training card, named by word and colour
            _, word, colour = task_id.split("-")
            base = next((t for t in self._all_tasks.values() if t["word"] == word), None)
            if base is not None and len(colour) == 6 and all(c in "0123456789abcdef" for c in colour):
                return {"id": task_id, "word": word, "category": base["category"],
                        "background": [int(colour[i:i + 2], 16) for i in (0, 2, 4)]}
        if task_id not in self._all_tasks:
            raise ValueError(f"DebugEcho-v0: unknown task_id {task_id!r}; valid ids: {', '.join(self._all_tasks)} "
                             "(or train-<word>-<rrggbb>)")
        return self._all_tasks[task_id]

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
