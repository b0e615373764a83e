"""Training families for ``mmenvs train``: which tasks a run trains and evaluates on, the action menu
the policy picks from, and what it observes.

A family names an env, the ``task_filter`` that selects its tasks (``mmenvs.core.families``), the
training stream (``suite="train"``: fresh seeds or generated tasks) and the pinned suite it is
evaluated on (never the same tasks: ``tests/test_train.py`` checks this for every family), a
``Discrete`` action menu (each index documented in ``menu_doc``) and an observation for SB3:

- ``image``: the env's image at ``obs_size`` (a ``Box`` for ``CnnPolicy``);
- ``image+text``: a ``Dict`` with the image and a hashed bag-of-words of the task text (the first
  observation's text: the question or instruction), the last step's text, and the step count
  (for ``MultiInputPolicy``).

Menus expose ``action_masks()`` (sb3-contrib's ``MaskablePPO`` reads it) — all actions are legal in
these menus, so the mask is all ones unless a family says otherwise.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

#: A menu entry: a fixed action, or a function of the unwrapped env giving the action now
#: (e.g. a tool call on the newest image id).
MenuEntry = str | dict[str, Any] | Callable[[Any], str | dict[str, Any]]


class MenuActions(gym.ActionWrapper):
    """``Discrete(len(entries))`` over a fixed list of actions; callable entries are built from the
    unwrapped env when chosen (so a tool call can name the newest image)."""

    def __init__(self, env: gym.Env, entries: Sequence[MenuEntry], labels: Sequence[str]) -> None:
        super().__init__(env)
        if not entries or len(entries) != len(labels):
            raise ValueError(f"MenuActions: {len(entries)} entries and {len(labels)} labels (need the same, at least one)")
        self.entries = list(entries)
        self.labels = list(labels)
        self.action_space = spaces.Discrete(len(self.entries))

    def action(self, action: int | np.integer) -> str | dict[str, Any]:
        index = int(action)
        if not 0 <= index < len(self.entries):
            raise ValueError(f"MenuActions: action {index} is outside 0..{len(self.entries) - 1}")
        entry = self.entries[index]
        return entry(self.env.unwrapped) if callable(entry) else entry

    def action_masks(self) -> np.ndarray:
        return np.ones(len(self.entries), dtype=bool)


def hashed_words(text: str, dim: int) -> np.ndarray:
    """A bag of words hashed into ``dim`` buckets (stable across processes: sha1, not ``hash``), 0/1."""
    vector = np.zeros(dim, dtype=np.float32)
    for word in re.findall(r"[a-z0-9]+", str(text).lower()):
        vector[int.from_bytes(hashlib.sha1(word.encode()).digest()[:4], "little") % dim] = 1.0
    return vector


class ImageOnly(gym.ObservationWrapper):
    """Keep ``obs["image"]`` (uint8 H×W×3, for ``CnnPolicy``)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["image"]

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return observation["image"]


class ImageAndText(gym.Wrapper):
    """``Dict(image, task, last, step)``: the image, the hashed words of the task text (the reset
    observation's text, or ``obs[task_key]`` when the env has that key), of the last text, and the
    step count scaled to 0..1 by ``max_steps``. ``image=False`` leaves the image out (an MLP policy)."""

    def __init__(self, env: gym.Env, *, dim: int = 256, task_key: str | None = None, max_steps: int = 20, image: bool = True) -> None:
        super().__init__(env)
        self.dim, self.task_key, self.max_steps, self.image = dim, task_key, max_steps, image
        self.observation_space = spaces.Dict({
            **({"image": env.observation_space["image"]} if image else {}),
            "task": spaces.Box(0.0, 1.0, (dim,), np.float32),
            "last": spaces.Box(0.0, 1.0, (dim,), np.float32),
            "step": spaces.Box(0.0, 1.0, (1,), np.float32),
        })
        self._task = np.zeros(dim, np.float32)
        self._steps = 0

    def _encode(self, observation: dict[str, Any]) -> dict[str, Any]:
        encoded = {"task": self._task, "last": hashed_words(observation["text"], self.dim),
                   "step": np.array([min(1.0, self._steps / self.max_steps)], np.float32)}
        return {"image": observation["image"], **encoded} if self.image else encoded

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        observation, info = self.env.reset(**kwargs)
        self._steps = 0
        source = observation.get(self.task_key) if self.task_key else observation["text"]
        self._task = hashed_words(source, self.dim)
        return self._encode(observation), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._steps += 1
        return self._encode(observation), reward, terminated, truncated, info


@dataclass(frozen=True)
class Family:
    """One training family: see the module docstring."""

    env_id: str
    name: str
    description: str
    task_filter: Mapping[str, Any]
    train_kwargs: Mapping[str, Any]  # gym.make kwargs of the training stream (besides task_filter, obs_size)
    eval_kwargs: Mapping[str, Any]  # gym.make kwargs of the held-out pinned suite
    heldout: str  # the held-out suite, as eval.json names it
    menu: Callable[[], tuple[list[MenuEntry], list[str]]]
    observation: str = "image"  # "image" | "image+text" | "text"
    obs_size: tuple[int, int] = (84, 84)
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)  # both streams (max_steps, mode, …)
    task_key: str | None = None  # observation key holding the task text (image+text), else the reset text
    text_dim: int = 256
    algo_kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: A state-dependent menu wrapper (an ``mmenvs.wrappers.ActionMenu``) used instead of ``menu``'s fixed list;
    #: ``menu`` then only documents its layout (labels, entries unused).
    menu_wrapper: Callable[[gym.Env], gym.Env] | None = None  # SB3 arguments tuned for the family (over train.ALGO_DEFAULTS)

    def make(self, *, split: str, obs_size: tuple[int, int] | None = None, extra: Mapping[str, Any] | None = None) -> gym.Env:
        """The wrapped env of ``split`` ("train" or "eval"): menu actions, SB3 observations."""
        if split not in ("train", "eval"):
            raise ValueError(f"split must be 'train' or 'eval', got {split!r}")
        kwargs = {**self.env_kwargs, **(self.train_kwargs if split == "train" else self.eval_kwargs),
                  "task_filter": dict(self.task_filter), "obs_size": tuple(obs_size or self.obs_size), **(extra or {})}
        env = gym.make(self.env_id, **kwargs)
        if self.menu_wrapper is not None:
            env = self.menu_wrapper(env)
        else:
            entries, labels = self.menu()
            env = MenuActions(env, entries, labels)
        if self.observation == "image":
            return ImageOnly(env)
        if self.observation in ("image+text", "text"):
            return ImageAndText(env, dim=self.text_dim, task_key=self.task_key, max_steps=env.unwrapped.max_steps,
                                image=self.observation == "image+text")
        raise ValueError(f"family {self.name!r}: unknown observation {self.observation!r}")

    def menu_doc(self) -> list[str]:
        """What each action index means (a state-dependent menu: its layout)."""
        labels = self.menu()[1]
        return list(labels) if self.menu_wrapper is not None else [f"{i}: {label}" for i, label in enumerate(labels)]


# ---------------------------------------------------------------------------------------------- DebugEcho
def _echo_words(category: str | None = None) -> list[str]:
    from mmenvs.core import load_json, registry_path

    tasks = load_json(registry_path("debug", "tasks.json"), "DebugEcho task suite")["tasks"]
    return [t["word"] for t in tasks if category is None or t["category"] == category]


def _echo_menu() -> tuple[list[MenuEntry], list[str]]:
    words = _echo_words()
    return [f"<answer>{w}</answer>" for w in words] + ["SAY hello"], [f"answer {w!r}" for w in words] + ["SAY hello (no-op)"]


# ---------------------------------------------------------------------------------------------- VTCBench
def _on_newest(name: str, **arguments: Any) -> Callable[[Any], dict[str, Any]]:
    def build(env: Any) -> dict[str, Any]:
        return {"name": name, "arguments": {"image": env.images.latest(), **arguments}}

    build.__name__ = f"{name}_on_newest"
    return build


_SHAPES = ("triangle", "square", "pentagon", "hexagon", "circle")


def _vtc_shape_menu() -> tuple[list[MenuEntry], list[str]]:
    tools = [("histogram", {"method": "equalize"}), ("convertscaleabs", {"alpha": 8.0, "beta": 0.0}),
             ("blur", {"method": "median", "ksize": 5}), ("threshold", {"method": "otsu"})]
    entries: list[MenuEntry] = [_on_newest(name, **args) for name, args in tools]
    labels = [f"{name}({', '.join(f'{k}={v}' for k, v in args.items())}) on the newest image" for name, args in tools]
    entries += [f"<answer>{shape}</answer>" for shape in _SHAPES]
    labels += [f"answer {shape!r} (the option's text)" for shape in _SHAPES]
    return entries, labels


# ---------------------------------------------------------------------------------------------- MacAgent
#: Seed tasks whose reference program is the same for every parameter draw (checked by a test): the
#: "programs" family's policy picks the program the instruction asks for, then DONE.
MAC_PROGRAM_SEEDS = ("clock-delete-disabled-alarms", "finder-move-duplicates", "finder-trash-temp-files",
                     "reminders-urgent-priority")


def _mac_programs() -> list[str]:
    from mmenvs.core import registry_path
    from mmenvs.macagent.tasks import load_suite

    seeds = {s.id: s for s in load_suite(registry_path("macagent", "tasks"))}
    return [str(seeds[seed_id].variant(0).reference_solution[0]) for seed_id in MAC_PROGRAM_SEEDS]


def _mac_program_menu() -> tuple[list[MenuEntry], list[str]]:
    programs = _mac_programs()
    labels = [f"run the program of seed task {seed_id!r}: {program.splitlines()[1][:60]}…"
              for seed_id, program in zip(MAC_PROGRAM_SEEDS, programs)]
    return [*programs, "DONE"], [*labels, "DONE (end the episode)"]


# ---------------------------------------------------------------------------------------------- MMToolSandbox
def _toolsandbox_menu(env: gym.Env) -> gym.Env:
    from mmenvs.wrappers import MMToolSandboxMenu

    return MMToolSandboxMenu(env)


def _toolsandbox_menu_doc() -> tuple[list[MenuEntry], list[str]]:
    return [], ["MMToolSandboxMenu (mmenvs.wrappers, its defaults): for candidate tool t < 6, slot 49*t is search_tools "
                "finding it, slots 49*t+1 .. 49*t+48 its candidate calls built from the values visible so far; slots 294, 295 "
                "reply 'Done.' / ask for more; unavailable slots are masked"]


# ---------------------------------------------------------------------------------------------- registry
FAMILIES: dict[str, dict[str, Family]] = {
    "DebugEcho-v0": {
        "cards": Family(
            env_id="DebugEcho-v0", name="cards",
            description="read the word on a card: train on fresh backgrounds, evaluate on the 12 pinned cards",
            task_filter={}, train_kwargs={"suite": "train"}, eval_kwargs={"suite": "pinned"},
            heldout="DebugEcho-v0 pinned suite (registry/debug/tasks.json)", menu=_echo_menu, obs_size=(40, 80),
            algo_kwargs={"learning_rate": 1e-3, "n_epochs": 8}),
    },
    "MacAgent-v0": {
        "programs": Family(
            env_id="MacAgent-v0", name="programs",
            description="pick the shell/AppleScript program the instruction asks for among the family's, then DONE "
                        "(4 seed tasks; two actions an episode; train on fresh parameter draws with guard checkpoints paid "
                        "only after a goal, evaluate the paper's Score on the 16 benchmark variants)",
            task_filter={"seed": list(MAC_PROGRAM_SEEDS)}, train_kwargs={"suite": "train", "reward_guards": "after_goal"},
            eval_kwargs={"suite": "test"},
            heldout="MacAgent-v0 test suite (benchmark variants v0-v3 of the family's seed tasks)",
            menu=_mac_program_menu, observation="text", task_key="instruction", obs_size=(40, 64),
            env_kwargs={"max_steps": 2, "store_screenshots": False}),
    },
    "MMToolSandbox-v0": {
        "contacts": Family(
            env_id="MMToolSandbox-v0", name="contacts",
            description="scenarios of the contacts app group: train on generated ones, evaluate on the pinned benchmark's "
                        "(MMToolSandboxMenu candidate calls, masked)",
            task_filter={"apps": "contacts"}, train_kwargs={"suite": "train"}, eval_kwargs={"suite": "benchmark"},
            heldout="MMToolSandbox-v0 pinned benchmark suite (registry/toolsandbox/suites/benchmark), app group contacts",
            menu=_toolsandbox_menu_doc, menu_wrapper=_toolsandbox_menu, observation="text", obs_size=(36, 36),
            env_kwargs={"mode": "tool", "max_steps": 16}),
    },
    "VTCBench-v0": {
        "shapes": Family(
            env_id="VTCBench-v0", name="shapes",
            description="perceptual_restoration: name the shape in a degraded photo (tools to restore it, then an answer)",
            task_filter={"category": "perceptual_restoration"}, train_kwargs={"suite": "train"}, eval_kwargs={"suite": "pinned"},
            heldout="VTCBench-v0 pinned suite (registry/vtc/suite.jsonl), category perceptual_restoration",
            menu=_vtc_shape_menu, env_kwargs={"mode": "tool", "max_steps": 6}),
    },
}


def get_family(env_id: str, name: str | None = None) -> Family:
    """The family ``name`` of ``env_id`` (its first one when ``name`` is None)."""
    if env_id not in FAMILIES:
        raise ValueError(f"mmenvs train: no training family for {env_id!r}; envs with families: {', '.join(FAMILIES)}")
    families = FAMILIES[env_id]
    if name is None:
        return next(iter(families.values()))
    if name not in families:
        raise ValueError(f"mmenvs train: {env_id} has no family {name!r}; families: {', '.join(families)}")
    return families[name]
