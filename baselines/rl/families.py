"""Training families for ``mmenvs train``: which tasks a run trains and evaluates on, the action menu
the policy picks from, and what it observes.

A family names an env, the ``task_filter`` that selects its tasks (``mmenvs.core.families``), the
training stream (``suite="train"``: fresh seeds or generated tasks) and the pinned suite it is
evaluated on (never the same tasks: ``tests/test_train.py`` checks this for every family), a
``Discrete`` action menu (each index documented in ``menu_doc``) and an observation for SB3:

- ``image``: the env's image at ``obs_size`` (``mmenvs.wrappers.ImageOnly``, a ``Box`` for ``CnnPolicy``);
- ``image+text``: ``mmenvs.wrappers.MultiInputObservation(image=True, text_keys=("text",),
  instruction=True, step=True)``: the image, the hashed text of the last observation (``HashedText``),
  the encoded instruction (MacAgent's ``obs["instruction"]``, else the reset observation's text: the
  question or the user's first message) and the step count (for ``MultiInputPolicy``);
- ``text``: the same without the image (an MLP policy).

A fixed menu is ``mmenvs.wrappers.DiscreteActions`` over the family's entries (a callable entry is
built from the unwrapped env when chosen); its ``action_masks()`` is all True, so ``MaskablePPO`` takes
it too. A family with ``menu_wrapper`` uses a state-dependent ``mmenvs.wrappers`` menu instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import gymnasium as gym

from mmenvs.wrappers import DiscreteActions, ImageOnly, MenuObservation, MultiInputObservation
from mmenvs.wrappers.discrete import ActionEntry

#: A menu entry: a fixed action, or a function of the unwrapped env giving the action now
#: (e.g. a tool call on the newest image id); ``mmenvs.wrappers.DiscreteActions`` takes both.
MenuEntry = ActionEntry


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
    text_dim: int = 256
    last_result: bool = False  # "text" observations: add [the action failed, it made images, its reward]
    algo_kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: A state-dependent menu wrapper (an ``mmenvs.wrappers.ActionMenu``) used instead of ``menu``'s fixed list;
    #: ``menu`` then only documents its layout (labels, entries unused).
    menu_wrapper: Callable[[gym.Env], gym.Env] | None = None
    #: With a state-dependent menu: add ``mmenvs.wrappers.MenuObservation`` rows of this width (0: none), what
    #: every slot holds now, so a policy can score slots by content, plus the column of how often the slot's
    #: option was sent this episode (``taken=True``).
    menu_rows: int = 0
    #: The policy ``--algo maskable_ppo`` trains: None for SB3's default for the observation, "slots" for
    #: ``baselines.rl.slot_policy.SlotScoringPolicy`` (scores each slot's row; needs ``menu_rows``).
    policy: str | None = None

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
            env = DiscreteActions(env, self.menu()[0])
        if self.observation == "image":
            return ImageOnly(env)
        if self.observation not in ("image+text", "text"):
            raise ValueError(f"family {self.name!r}: unknown observation {self.observation!r}")
        env = MultiInputObservation(env, image=self.observation == "image+text", text_keys=("text",), instruction=True,
                                    step=True, last_result=self.last_result, text_dim=self.text_dim)
        return MenuObservation(env, dim=self.menu_rows, taken=True) if self.menu_rows else env

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
#: The candidate tools of the MMToolSandbox families' menus (the wrapper and its documented layout).
TOOLSANDBOX_TOOLS = 6


def _toolsandbox_menu(calls_per_tool: int = 48) -> Callable[[gym.Env], gym.Env]:
    def wrap(env: gym.Env) -> gym.Env:
        from mmenvs.wrappers import MMToolSandboxMenu

        return MMToolSandboxMenu(env, max_tools=TOOLSANDBOX_TOOLS, calls_per_tool=calls_per_tool)

    return wrap


def _toolsandbox_menu_doc(calls_per_tool: int = 48) -> Callable[[], tuple[list[MenuEntry], list[str]]]:
    block, tools = 1 + calls_per_tool, TOOLSANDBOX_TOOLS

    def doc() -> tuple[list[MenuEntry], list[str]]:
        return [], [f"MMToolSandboxMenu (mmenvs.wrappers; max_tools={tools}, calls_per_tool={calls_per_tool}): for candidate "
                    f"tool t < {tools}, slot {block}*t is search_tools finding it, slots {block}*t+1 .. {block}*t+{calls_per_tool} "
                    f"its candidate calls built from the values visible so far (best-ranked argument values first); slots "
                    f"{tools * block}, {tools * block + 1} reply 'Done.' / ask for more; unavailable slots are masked"]

    return doc


#: The records family's candidate calls per tool: 8 keeps the first-ranked calls (which the fixed player
#: takes: 0.132 mean F1 with 8 or 48) and gives exploration fewer look-alike calls to try.
RECORDS_CALLS = 8


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
            menu=_mac_program_menu, observation="text", obs_size=(40, 64),
            env_kwargs={"max_steps": 2, "store_screenshots": False}),
    },
    "MMToolSandbox-v0": {
        "contacts": Family(
            env_id="MMToolSandbox-v0", name="contacts",
            description="scenarios of the contacts app group: train on generated ones, evaluate on the pinned benchmark's "
                        "(MMToolSandboxMenu candidate calls, masked)",
            task_filter={"apps": "contacts"}, train_kwargs={"suite": "train"}, eval_kwargs={"suite": "benchmark"},
            heldout="MMToolSandbox-v0 pinned benchmark suite (registry/toolsandbox/suites/benchmark), app group contacts",
            menu=_toolsandbox_menu_doc(), menu_wrapper=_toolsandbox_menu(), observation="text", obs_size=(36, 36),
            env_kwargs={"mode": "tool", "max_steps": 16}),
        "records": Family(
            env_id="MMToolSandbox-v0", name="records",
            description="scenarios of the contacts, payments and todo app groups (the groups whose expected changes the "
                        "candidate-call menu can express: measured, a fixed 'search each candidate tool, take its first call' "
                        "player beats random there and nowhere else by as much): train on generated ones, evaluate on the "
                        "pinned benchmark's 65; trained on the entity-F1 change of every step (reward_mode='progress'), evaluated "
                        "on the final F1; the policy scores every slot by what it holds (SlotScoringPolicy)",
            task_filter={"apps": ["contacts", "payments", "todo"]}, train_kwargs={"suite": "train", "reward_mode": "progress"},
            eval_kwargs={"suite": "benchmark"},
            heldout="MMToolSandbox-v0 pinned benchmark suite (registry/toolsandbox/suites/benchmark), app groups contacts, "
                    "payments, todo",
            menu=_toolsandbox_menu_doc(RECORDS_CALLS), menu_wrapper=_toolsandbox_menu(RECORDS_CALLS), observation="text",
            obs_size=(36, 36), text_dim=128, last_result=True, menu_rows=32, policy="slots",
            # measured (docs/rl.md): at 25k steps, 0.040 with the default ent_coef 0.01, 0.088 with 0.03
            algo_kwargs={"learning_rate": 1.5e-3, "n_epochs": 8, "ent_coef": 0.03},
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
