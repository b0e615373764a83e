"""MMToolSandbox-v0: a stateful multi-app phone world driven by a scripted user, scored by entity diff."""

from __future__ import annotations

import copy
import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from mmenvs.core import ActionError, ActionOutcome, Evaluation, MMEnv, extract_code, function_spec, letterbox, parse_tool_call
from mmenvs.core.actions import LOG_STRING_CHARS, clip_for_log, json_size
from mmenvs.core.families import check_task_filter, matches

from .catalog import full_name_map, toolset_tools, ui_tools
from .images import fitted_image
from .scenario import Scenario, load_scenario, shipped_scenario_paths, ui_scenario_paths
from .schema import column_kinds
from .rouge import rouge_l_text
from .scoring import score_entity_diff, snapshot
from .search import ToolSearch
from .suites import PINNED_SUITES, UI_SUITE, pinned_suite
from .meta import EXECUTE_TOOL, SEARCH_TOOL
from .tools import Tool
from .ui.tools import UIServer
from .user import ScriptedUser, UserMessage, UserSimulator
from .world import ToolError, World, _image_order

MODES = ("code", "tool", "ui")
#: Parsed scenarios an env keeps (template + images, ~5-15 MB each) so resets of recent ones take milliseconds.
SCENARIO_CACHE_SIZE = 8
#: What ``suite=`` selects: a pinned suite, the hand-written scenarios, or a fresh generated stream.
SUITES = (*PINNED_SUITES, "handwritten", "train")
#: ``suite=`` in ``mode="ui"``: the 50 scenarios converted from the pinned benchmark (default), or the 50
#: hand-authored ones on the hand-written worlds (registry/toolsandbox/ui).
UI_SUITES = ("benchmark", "ui-handwritten")
_RESULT_CHARS = 20_000
_WORDS = ("please", "done", "send", "the", "photo", "message", "contact", "event", "cart", "note", "task", "email", "pay", "ok")
#: What the action log keeps of one code block (the judge reads the code; more is cut with a marker).
LOGGED_CODE_CHARS = 20_000


@dataclass
class ToolSandboxEpisode:
    """What one episode has done so far (made fresh at every reset; the env keeps tools, search, user and caches)."""

    world: World | None = None  # the phone's database, images and what the agent may see
    before: Any = None  # the world's snapshot at reset (the diff is taken against it)
    messages: int = 0  # user messages, agent actions and tool results so far (the message budget)
    current_image: str | None = None  # the image shown in the observation
    obs_image: np.ndarray | None = None  # current_image letterboxed (None: not fitted yet)
    obs_image_of: str | None = None  # the image obs_image shows
    real_scenario_pixels: bool = True  # False: the scenario's images may be placeholder_images' blanks
    reported_images: set[str] = field(default_factory=set)  # visible images info["images"] has named
    oracle_cursor: int = 0  # the next reference-solution step
    shown_count: int = 0  # entries of world.shown_to_user already reported
    transcript: list[dict[str, Any]] = field(default_factory=list)  # the user–agent conversation
    actions: list[dict[str, Any]] = field(default_factory=list)  # the agent's tool calls and code runs
    logged_chars: int = 0  # what ``actions`` holds, against budget.logged_chars

    def log_action(self, entry: dict[str, Any], limit: int) -> None:
        """Append to ``actions`` a clipped copy of ``entry`` (long arguments, results and code cut with a
        marker); once the log holds ``limit`` characters, later entries keep only their type and name."""
        entry = {key: clip_for_log(value, max_string=LOGGED_CODE_CHARS if key == "code" else LOG_STRING_CHARS)
                 for key, value in entry.items()}
        size = json_size(entry)
        if self.logged_chars + size > limit:
            entry = {"type": entry.get("type"), "name": entry.get("name"),
                     "not_logged": f"the action log reached the episode budget logged_chars={limit:,}"}
            size = json_size(entry)
        self.logged_chars += size
        self.actions.append(entry)
    pristine: bool = True  # no tool or code has run since reset (the cached first evaluation holds)
    evaluated_at: int = -1  # the step of the last evaluation
    guardrail_violations: int = 0  # code runs the sandbox's static guardrail refused
    ui: UIServer | None = None  # the UI server of mode="ui"


#: What each mode's agent sends (today's preambles, kept in this one table): ``describe_mode`` adds the
#: tools callable at that moment from their declarations; every reset shows it and it is ``action_description()``.
MODE_GRAMMARS = {
    "code": ("Mode: code. Reply with one ```python``` block to run it in a persistent Python sandbox where every tool is a "
             "function (find tools with search_tools(query='...'); results are returned as Python values, print what you "
             "need). Text without a code block is your reply to the user."),
    "tool": ('Mode: tool. Send one JSON tool call {"name": ..., "arguments": {...}} per step, or plain text to reply to '
             "the user. Start with search_tools (query words match tool names, apps and descriptions); execute_code runs Python "
             "in a sandbox where tools are functions."),
    "ui": ('Mode: ui. Send one JSON tool call {"name": ..., "arguments": {...}} per step, or plain text to reply to the user. '
           "The user makes their choices on screens you build: render a screen with render_ui_screen, show it with "
           "show_ui_to_user, and act on the interaction it returns. Find tools with search_tools (the UI tools too: "
           "search 'ui screen'; ui_get_quick_start explains screens); execute_code runs Python where tools are functions."),
}


def describe_mode(mode: str, callable_tools: list[Tool]) -> str:
    """The grammar of ``mode`` and the signature of every tool callable now (from the tool declarations)."""
    lines = [f"- {tool.name}{tool.signature_text()}: {tool.summary}" for tool in callable_tools]
    return f"{MODE_GRAMMARS[mode]}\nCallable now (search_tools adds more):\n" + "\n".join(lines)


class MMToolSandboxEnv(MMEnv):
    """A simulated phone with 16 apps: ground the user's images into tool calls that change the world.

    ## Description
    Reimplements MM-ToolSandBox (see ``seeds/mm-toolsandbox.md``). Each episode runs a scenario: an
    in-memory SQLite world (contacts, messages, calendar, notes, todo, email, payments, expenses,
    shopping, music, files, photos, settings, …), a scripted user who sends queries and images round
    by round, and the expected change of the world. The agent discovers tools with ``search_tools``,
    calls them, and replies to the user; the user then corrects, changes the goal, or moves on.

    ## Observation Space
    ``Dict(text=UnicodeText, image=Box(0, 255, (H, W, 3), uint8))``: ``text`` is what is new — the
    user's message (with the ids of attached images), tool results, code output, or an error;
    ``image`` is the newest image the agent has (a user image, one made by a visual tool, or the one
    it viewed), letterboxed to ``obs_size``. ``info["images"]`` lists image ids new this step.

    ## Action Space
    A string. ``mode="code"`` (default): one fenced Python block, run in a persistent sandbox where
    tools are functions; text without a block is a reply to the user. ``mode="tool"``: one JSON tool
    call ``{"name": ..., "arguments": {...}}`` (``search_tools`` and ``execute_code`` always
    available), or plain text as a reply. ``mode="ui"``: the tool grammar, on the UI suite, with the UI
    tools added (``render_ui_screen``, ``show_ui_to_user``, the ``ui_*`` doc tools): the user's choices are
    private and are made by clicking on screens the agent renders (docs/toolsandbox-ui.md). Dict actions:
    ``{"name", "arguments"}``, ``{"code": ...}`` or ``{"reply": ...}``.

    ## Rewards
    Entity F1 between the world's change and the scenario's expected change (Hungarian matching per
    table and op, per-column similarity; unexpected changes lower precision), paid at the end, or as
    per-step changes with ``reward_mode="progress"``: each step pays the change of the entity F1 since
    the step before (negative when an action undoes a matched change or adds a side effect; the sum is
    the final F1; ``info["reward_components"]`` = ``{"score": …}``). ``info``: ``entity_f1``, ``precision``, ``recall``,
    ``entity_diff`` (per-change details), ``side_effects``, ``tools_surfaced``, ``tools_invoked``, and
    the recall of the reference solution's tools among them.

    ## Starting State
    A scenario of the selected ``suite`` chosen by ``options={"task_id": ...}`` (any shipped id loads),
    given inline with ``options={"task": dict or path}``, or drawn with ``np_random``. Suites: "benchmark"
    (default, the 258 pinned generated scenarios), "heldout" (112 more, never used by the generator's
    tests), "handwritten" (the 14 scenarios in ``registry/toolsandbox/scenarios``), "train" (a fresh
    verified scenario generated per seed, never a pinned one). In ``mode="ui"``: "benchmark" (default, 50
    pinned scenarios converted to UI decisions, registry/toolsandbox/ui_suite) or "ui-handwritten" (the 50
    hand-authored UI scenarios of registry/toolsandbox/ui); a task id of either loads in UI mode.

    ## Episode End
    Terminated when the user ends the conversation (after the last round, or after repeated failure);
    truncated after ``max_steps`` agent actions, the number the scenario's message budget allows:
    ``max_messages`` (the scenario's, 100 by default) counts the user's first message and two messages
    per action (the action and the answer it gets: a tool result, an error, or the user's reply), so a
    budget of ``M`` messages allows ``M // 2`` actions (50), and ``env.max_steps`` says so after every
    reset. An explicit ``max_steps=N`` caps the actions at ``N`` instead (the message budget then applies
    only when ``max_messages`` is given too).

    ## Arguments
    ``mode`` ("code" | "tool" | "ui"), ``suite`` (see Starting State), ``task_filter`` (a family of generated
    scenarios: flow, challenge, arrival, apps, difficulty; ``set_task_filter``), ``toolset`` ("full" | "medium" | "compact" | "mini"), ``working_set_size``
    (100), ``pinned_tools`` (extra tools always callable), ``user`` (a ``UserSimulator``; scripted by
    default), ``sandbox_options`` (``PythonSandbox`` keyword arguments of the code sandbox, e.g.
    ``{"timeout": 10.0, "isolation": "auto"}``; the timeout defaults to 10 s per run), ``obs_size``, ``reward_mode``,
    ``render_mode``, ``max_messages`` (overrides the scenario's message budget), ``max_steps`` (a cap on agent
    actions, as in every mmenvs env; it replaces the message budget unless ``max_messages`` is given too), ``guardrail_zero`` (True: code refused
    by the sandbox's static guardrail sets the episode's F1 to 0, as the published evaluation does;
    ``entity_f1_measured`` keeps the diff's own F1), ``image_root`` (a folder of your own that scenario image
    paths may name; by default only the registry), ``budget`` (the episode's host-side limits, fields of
    ``mmenvs.core.budget.EpisodeBudget``; host tools share the sandbox's deadline).

    ## Examples
    >>> import gymnasium as gym, mmenvs
    >>> env = gym.make("MMToolSandbox-v0", mode="tool")
    >>> obs, info = env.reset(options={"task_id": "contacts_business_card"})
    >>> obs, reward, terminated, truncated, info = env.step('{"name": "search_tools", "arguments": {"query": "create contact"}}')
    """

    max_steps = 50  # the actions the default budget of 100 messages allows (two messages an action after the user's first)
    cheap_evaluation = False  # a full snapshot per step would dominate step time; refreshed at the end

    def __init__(self, *, mode: str = "code", toolset: str = "full", working_set_size: int = 100,
                 pinned_tools: tuple[str, ...] | list[str] = (), user: UserSimulator | None = None,
                 guardrail_zero: bool = True,
                 max_messages: int | None = None, suite: str | None = None, image_root: str | None = None,
                 task_filter: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if mode == "ui":
            if suite is None:
                suite = "benchmark"
            elif suite not in UI_SUITES:
                raise ValueError(f"mode='ui' runs a UI suite, one of {UI_SUITES} (the benchmark's 50 UI conversions, or the 50 "
                                 f"hand-authored ones); suite={suite!r} needs mode 'code' or 'tool'")
        elif suite is None:
            suite = "benchmark"
        elif suite not in SUITES:
            raise ValueError(f"suite must be one of {SUITES}, got {suite!r}")
        self.suite = suite
        self.image_root = image_root  # a folder of the user's own that scenario image paths may name (besides the registry)
        if max_messages is not None and (isinstance(max_messages, bool) or not isinstance(max_messages, int) or max_messages < 2):
            raise ValueError(f"max_messages must be an integer ≥ 2, got {max_messages!r}")
        renamed = sorted({"sandbox_timeout", "sandbox_isolation"} & set(kwargs))
        if renamed:
            raise TypeError(f"MMToolSandbox-v0: {', '.join(renamed)} became sandbox_options={{'timeout': seconds, 'isolation': ...}}")
        self._max_steps_given = kwargs.get("max_steps") is not None
        self._max_messages_given = max_messages
        self.max_messages = max_messages or 100
        super().__init__(**kwargs)
        if not self._max_steps_given:
            self.max_steps = self.max_messages // 2
        self.mode = mode
        self.toolset = toolset
        self.tools = {**toolset_tools(toolset), **ui_tools()} if mode == "ui" else toolset_tools(toolset)
        unknown = [p for p in pinned_tools if p not in self.tools]
        if unknown:
            raise ValueError(f"pinned_tools: unknown tools {unknown} in toolset {toolset!r}")
        meta = ["search_tools"] + (["execute_code"] if mode != "code" else [])
        self.search = ToolSearch(self.tools, pinned=[*meta, *pinned_tools], capacity=working_set_size)
        self.user = user or ScriptedUser()
        self.guardrail_zero = guardrail_zero
        self._kinds = column_kinds()
        # Parsed scenarios with their DB templates and rendered images, most recently used last. Bounded:
        # a run over the 258-scenario suite would otherwise keep every scenario's pixels alive.
        self._scenarios: OrderedDict[str, Scenario] = OrderedDict()
        self.episode = ToolSandboxEpisode()
        self.set_task_filter(task_filter)

    def set_task_filter(self, task_filter: Mapping[str, Any] | None) -> None:
        """Select a family of the generated scenarios (``task_filter``, see ``mmenvs.core.families``) on
        the generator's axes: flow, challenge, arrival, apps (the app group) and difficulty (0..1; a
        range ``{"min", "max"}`` or values). Pinned suites keep the family's scenarios (read from their
        index); ``suite="train"`` asks the generator for the family directly (a curriculum calls this
        between episodes to move the difficulty)."""
        self.task_filter: dict[str, Any] = {}
        self._train_cells: list[tuple[str, str]] = []
        if not task_filter:
            return
        if self.mode == "ui" or self.suite == "handwritten":
            raise ValueError(f"MMToolSandbox-v0: task_filter selects generated scenarios (suite 'benchmark', 'heldout' or 'train' "
                             f"in mode 'code' or 'tool'), not suite={self.suite!r} in mode={self.mode!r}")
        from .generator.build import ARRIVALS, CHALLENGES
        from .generator.flows import FLOW_APPS, FLOWS

        apps = sorted({a for group in FLOW_APPS.values() for a in group})
        self.task_filter = check_task_filter("MMToolSandbox-v0", task_filter, {"flow": FLOWS, "challenge": CHALLENGES, "arrival": ARRIVALS,
                                                                               "apps": apps, "difficulty": None})
        difficulty = self.task_filter.get("difficulty")
        if isinstance(difficulty, list) and not all(isinstance(d, (int, float)) and 0 <= d <= 1 for d in difficulty):
            raise ValueError(f"MMToolSandbox-v0: task_filter['difficulty'] values must be numbers in 0..1, got {difficulty}")
        self._train_cells = [(flow, group) for flow in FLOWS for group in FLOW_APPS[flow]
                             if matches({"flow": flow, "apps": group}, {k: v for k, v in self.task_filter.items() if k in ("flow", "apps")})]
        if not self._train_cells:
            raise ValueError(f"MMToolSandbox-v0: task_filter {self.task_filter} names no flow with that app group "
                             f"(app groups per flow: {dict(FLOW_APPS)})")
        if self.suite != "train" and not self.task_ids():
            raise ValueError(f"MMToolSandbox-v0: task_filter {self.task_filter} matches no scenario of suite {self.suite!r}")

    # ------------------------------------------------------------------ tasks
    def task_ids(self) -> list[str]:
        """The ids of the selected suite ("train" has none: it draws a fresh scenario per seed)."""
        if self.mode == "ui":
            return list(ui_scenario_paths()) if self.suite == "ui-handwritten" else UI_SUITE.ids()
        if self.suite == "handwritten":
            return list(shipped_scenario_paths())
        if self.suite == "train":
            return []
        if self.task_filter:
            return [e["id"] for e in pinned_suite(self.suite).entries() if matches(e, self.task_filter)]
        return pinned_suite(self.suite).ids()

    def load_task(self, task_id: str) -> Scenario:
        """A shipped scenario by id: in ``mode="ui"`` from either UI suite (converted or hand-authored), otherwise
        from any of the pinned suites (benchmark, heldout) or the hand-written ones, whichever holds the id."""
        if task_id in self._scenarios:
            self._scenarios.move_to_end(task_id)
        else:
            self._scenarios[task_id] = self._load_shipped(task_id)
            while len(self._scenarios) > SCENARIO_CACHE_SIZE:
                self._scenarios.popitem(last=False)
        return self._scenarios[task_id]

    def _load_shipped(self, task_id: str) -> Scenario:
        files = ui_scenario_paths() if self.mode == "ui" else shipped_scenario_paths()
        if task_id in files:
            scenario = load_scenario(files[task_id], ui=self.mode == "ui", load_images=True)
            if scenario.id != task_id:
                raise ValueError(f"{files[task_id]}: field 'id' is {scenario.id!r} but the file is named {task_id}.json")
            return scenario
        if self.mode == "ui" and task_id in UI_SUITE:  # stored, not converted on load: the converter cannot change it
            return load_scenario(UI_SUITE.load(task_id), ui=True, load_images=True)
        if self.mode != "ui":
            for name in PINNED_SUITES:
                if task_id in pinned_suite(name):
                    return load_scenario(pinned_suite(name).load(task_id), load_images=True)
        sample = ", ".join(self.task_ids()[:3]) or ", ".join(list(files)[:3])
        raise ValueError(f"MMToolSandbox-v0 (mode={self.mode!r}, suite={self.suite!r}): unknown task_id {task_id!r}; "
                         f"the suite has {len(self.task_ids())} scenarios, e.g. {sample}")

    def sample_task(self, rng: np.random.Generator) -> Scenario:
        if self.suite == "train":  # a fresh generated scenario per draw, never one of the pinned suites
            from .generator.suites import train_scenario  # the generator is loaded only to make a fresh scenario

            if not self.task_filter:
                return load_scenario(train_scenario(int(rng.integers(2**31))), load_images=True)
            # the family asked of the generator directly: a (flow, app group) cell and the axes it allows
            flow, group = self._train_cells[int(rng.integers(len(self._train_cells)))]
            axes = {"flow": flow, "apps": group}
            for axis in ("challenge", "arrival"):
                if axis in self.task_filter:
                    values = self.task_filter[axis]
                    axes[axis] = values[int(rng.integers(len(values)))]
            difficulty = self.task_filter.get("difficulty")
            if isinstance(difficulty, list):
                axes["difficulty"] = float(difficulty[int(rng.integers(len(difficulty)))])
            elif isinstance(difficulty, dict):
                axes["difficulty"] = round(float(rng.uniform(max(0.0, difficulty["min"]), min(1.0, difficulty["max"]))), 2)
            return load_scenario(train_scenario(int(rng.integers(2**31)), **axes), load_images=True)
        return super().sample_task(rng)

    def task_from_spec(self, spec: Mapping[str, Any] | str | Path | Scenario) -> Scenario:
        if isinstance(spec, Scenario):  # already validated (and its template built): reuse it
            return spec
        return load_scenario(spec, ui=self.mode == "ui", image_root=self.image_root, load_images=True)

    def task_metadata(self) -> dict[str, Any]:
        meta = self.task.metadata
        fields = {"flow_type": meta["flow_type"], "challenge_type": meta["challenge_type"], "image_arrival": meta["image_arrival"],
                  "apps": list(meta["apps"]), "num_images": len(self.task.images), "num_rounds": len(self.task.rounds)}
        if "image_kinds" in meta:  # generated scenarios name the kinds of their images
            fields["image_kinds"] = sorted(set(meta["image_kinds"]))
        return fields

    @classmethod
    def summarize_episodes(cls, records: list[dict[str, Any]]) -> dict[str, Any]:
        """The paper's cuts (Fig. 5, Table 12): F1 and success by flow, challenge, arrival, image kind, image count."""
        from .analysis import breakdown_tables

        return {"tables": breakdown_tables(records)}

    # ------------------------------------------------------------------ episode
    @property
    def world(self) -> World | None:
        """The current episode's world (database, images, what the agent may see); None before the first reset."""
        return self.episode.world

    @property
    def ui(self) -> UIServer | None:
        """The current episode's UI server (``mode="ui"``), else None."""
        return self.episode.ui

    def begin(self, task: Scenario) -> str:
        if self.episode.world is not None:
            self.episode.world.close()
        task.start_loading_pixels()  # usually started when the scenario was parsed; read while the world is built
        world = World.from_template(task.template(), task.reference_time, self.images)
        if "before" not in task.cache:  # every reset of a scenario starts from the same rows
            task.cache["before"] = snapshot(world.conn)
        for key, pixels in zip(task.images, task.pixels()):
            self.images.add(pixels, op="scenario_image", meta={"key": key})
        # Images already kept on the phone (gallery photos, image files) are the agent's to use from the start.
        for table_name in ("photos", "files"):
            for row in task.initial_entities.get(table_name, []):
                if row.get("image_id") in self.images:
                    world.visible.add(row["image_id"])
        self.episode = ToolSandboxEpisode(world=world, before=task.cache["before"],
                                          real_scenario_pixels=not task.pixels_are_placeholders)
        self.search.reset()
        self.max_messages = self._max_messages_given or task.max_messages
        if not self._max_steps_given:
            self.max_steps = self.max_messages // 2  # the actions this budget allows
        first = self.user.start(task)
        if self.mode == "ui":
            self.episode.ui = UIServer(world, self.user.interact, self._log_user_tool)
        now = task.reference_time.strftime("%A %Y-%m-%d %H:%M")
        return f"{self.action_description()}\nCurrent device time: {now}.\n\n{self._deliver(first)}"

    def _deliver(self, message: UserMessage) -> str:
        """Count a user message, make its images visible, and render it for the agent."""
        self.episode.messages += 1
        keys = list(message.images) or self._forgotten_images(message.text)
        ids = [self.task.image_id(k) for k in keys]
        for image_id in ids:
            self.episode.world.visible.add(image_id)
            self.episode.current_image = image_id
        self.episode.transcript.append({"role": "user", "text": message.text, "images": ids, "kind": message.kind})
        text = f"User: {message.text}"
        if ids:
            text += f"\n[The user attached {len(ids)} image(s): {', '.join(ids)}]"
        if message.end:
            text += "\n[The user ended the conversation.]"
        return text

    def _forgotten_images(self, text: str) -> list[str]:
        """Images of a round whose query ``text`` repeats (ROUGE-L ≥ 0.7) when a user forgot to attach them.

        A scripted user always attaches its images; an LLM-backed user, which cannot see them, may
        send the query alone (the published framework attaches them the same way).
        """
        for round_ in self.task.rounds:
            missing = [k for k in round_.provide if self.task.image_id(k) not in self.episode.world.visible]
            if missing and rouge_l_text(text, round_.query) >= 0.7:
                return missing
        return []

    def act(self, action: str | dict[str, Any]) -> ActionOutcome:
        before = self.episode.messages
        try:
            return self._act(action)
        finally:  # every action costs two messages, its own and its answer (a malformed one's error too)
            self.episode.messages = max(self.episode.messages, before + 2)

    def _act(self, action: str | dict[str, Any]) -> ActionOutcome:
        self.episode.messages += 1
        images_before = len(self.images)
        kind, payload = self._classify(action)
        if kind == "reply":
            return self._reply(payload)
        self.episode.pristine = False  # a tool or code may change the world from here on
        if kind == "code":
            text, info = self._run_code(payload)
            self.episode.messages += 1
            return self._code_outcome(text + self._image_note(images_before), info)
        call = payload
        self.episode.messages += 1
        if call.name == "execute_code":
            try:
                arguments = EXECUTE_TOOL.bind(call.arguments)
            except ToolError as exc:
                raise ActionError("tool_error", str(exc)) from None
            text, info = self._run_code(arguments["code"])
            return self._code_outcome(text + self._image_note(images_before), info)
        try:
            result = self._call(call.name, call.arguments)
        except ToolError as exc:
            self.episode.log_action({"type": "tool", "name": call.name, "arguments": call.arguments, "error": str(exc)}, self.budget.logged_chars)
            raise ActionError("tool_error", f"{call.name}: {exc}") from None
        text = f"Result of {call.name}:\n" + _dump(result)
        self.episode.log_action({"type": "tool", "name": call.name, "arguments": call.arguments, "result": _dump(result)}, self.budget.logged_chars)
        return ActionOutcome(text=text + self._image_note(images_before), info=self._step_info({"tool": call.name}))

    def _classify(self, action: str | dict[str, Any]) -> tuple[str, Any]:
        if isinstance(action, dict):
            if "reply" in action or "say" in action:
                text = action.get("reply", action.get("say"))
                if not isinstance(text, str):
                    raise ActionError("bad_action_dict", "a reply must be a string")
                return "reply", text
            if "code" in action:
                if self.mode != "code":
                    raise ActionError("wrong_mode", 'tool mode runs code through the execute_code tool: {"name": "execute_code", "arguments": {"code": ...}}')
                if not isinstance(action["code"], str):
                    raise ActionError("bad_action_dict", "code must be a string")
                return "code", action["code"]
            if self.mode == "code":
                raise ActionError("wrong_mode", 'code mode takes {"code": ...} or {"reply": ...}; call tools from Python code')
            return "call", parse_tool_call(action, max_argument_chars=self.budget.tool_argument_chars)
        if not isinstance(action, str):
            raise ActionError("bad_action_type", f"Expected a string or a dict, got {type(action).__name__}.")
        if self.mode == "code":
            block = extract_code(action, ("python",))
            return ("code", block.code) if block is not None else ("reply", action.strip())
        stripped = action.strip()
        # A reply may start with "[" ("[Summary] …"); only a JSON object (or a list of one) is a call.
        looks_like_call = (stripped.startswith("{") or re.match(r"\[\s*\{", stripped) or "<tool_call>" in stripped.lower()
                           or re.search(r"```(json)?\s*\n\s*[\[{]", stripped))
        if looks_like_call:
            return "call", parse_tool_call(action, max_argument_chars=self.budget.tool_argument_chars)
        return "reply", stripped

    def _reply(self, text: str) -> ActionOutcome:
        if not text:
            raise ActionError("empty_reply", "An empty reply: write a message to the user, or act.")
        self.episode.transcript.append({"role": "agent", "text": text})
        message = self.user.reply(text)
        # The user's images were stored at reset; info["images"] names them now, when they arrive (images_new_to_agent).
        delivered = self._deliver(message)
        return ActionOutcome(text=delivered, terminated=message.end, info=self._step_info({"user": message.kind}))

    def _call(self, name: str, arguments: Any) -> Any:
        """Run one tool for the agent (tool mode and code mode alike): working-set check, validation, savepoint."""
        if not isinstance(name, str):
            raise ToolError(f"a tool name must be a string, got {name!r}")
        if name == "search_tools":
            return self.search.search(**SEARCH_TOOL.bind(arguments))
        tool = self.search.require(name)
        if self.episode.ui is not None and tool.app == "ui":  # run by the episode's UI server (no database change)
            return self.episode.ui.call(name, tool.bind(arguments))
        return tool.invoke(self.episode.world, arguments)

    def _log_user_tool(self, arguments: dict[str, Any], result: dict[str, Any] | None, error: str) -> None:
        """Record the user's ``ui_user_interact`` call in the transcript (for judges; the agent gets the result)."""
        entry: dict[str, Any] = {"role": "user", "kind": "ui_user_interact", "tool": "ui_user_interact", "arguments": copy.deepcopy(arguments)}
        entry.update({"error": error} if error else {"result": copy.deepcopy(result)})
        self.episode.transcript.append(entry)

    def _host_function(self, name: str, tool: Tool | None) -> Any:
        params = [p.name for p in (tool.params if tool is not None else SEARCH_TOOL.params)]

        def call(*args: Any, **kwargs: Any) -> Any:
            if len(args) > len(params):
                raise ToolError(f"{name} takes at most {len(params)} positional arguments ({', '.join(params)}), got {len(args)}")
            merged = dict(zip(params, args))
            clash = set(merged) & set(kwargs)
            if clash:
                raise ToolError(f"{name}: {sorted(clash)} given both by position and by keyword")
            merged.update(kwargs)
            return self._call(name, merged)

        return call

    def sandbox_tools(self) -> dict[str, Any]:
        """Every tool of the toolset as a Python function, and ``search_tools`` (each call runs on the host)."""
        functions = {name: self._host_function(name, tool) for name, tool in self.tools.items()}
        functions["search_tools"] = self._host_function("search_tools", None)
        return functions

    def sandbox_defaults(self) -> dict[str, Any]:
        return {"timeout": self.budget.action_timeout}  # 10 s by default; the host tools share the deadline

    def _run_code(self, code: str) -> tuple[str, dict[str, Any]]:
        result = self.sandbox.run(code)
        self.episode.log_action({"type": "code", "code": code, "output": result.text, "error_kind": result.error_kind,
                                 "tool_calls": [{k: c.get(k) for k in ("name", "args", "kwargs", "ok", "error")} for c in result.tool_calls]},
                                self.budget.logged_chars)
        if result.error_kind == "policy":  # code the static guardrail refused (blocked import or call)
            self.episode.guardrail_violations += 1
        calls = [c["name"] for c in result.tool_calls]
        text = "Execution result:\n" + result.text
        info: dict[str, Any] = {"code_error_kind": result.error_kind, "code_tool_calls": calls}
        if not result.ok:  # a truncated output is not a failure (RunResult.ok); everything else is
            info["code_error"] = _short_error(result.error or "", result.error_kind)
        return text, info

    def _code_outcome(self, text: str, info: dict[str, Any]) -> ActionOutcome:
        """The outcome of a code run: a failure part-way fills ``info["action_error"]``, but the tool
        calls made before it stand (each ran in its own savepoint), so it is not an ``ActionError``."""
        error = info.pop("code_error", None)
        return ActionOutcome(text=text, info=self._step_info(info), error=error,
                             error_kind=info["code_error_kind"] if error else None)

    def _image_note(self, images_before: int) -> str:
        """Point the observation image at what this action produced: a viewed image, else the newest made one."""
        notes = []
        made = self.images.ids_since(images_before)
        if made:
            self.episode.current_image = made[-1]
        if self.episode.world.viewed:
            self.episode.current_image = self.episode.world.viewed[-1]
            notes.append(f"[Showing image {self.episode.world.viewed[-1]} in the observation]")
            self.episode.world.viewed.clear()
        return ("\n" + "\n".join(notes)) if notes else ""

    def _step_info(self, extra: dict[str, Any]) -> dict[str, Any]:
        info = dict(extra)
        info.update(self.search.info())
        reference = {full_name_map(self.toolset).get(t, t) for t in self.task.reference_tools()}
        if reference:
            info["surfaced_recall"] = len(reference & set(self.search.surfaced)) / len(reference)
            info["invoked_recall"] = len(reference & set(self.search.invoked)) / len(reference)
        info["messages"] = self.episode.messages
        info["user_state"] = self.user.state()
        if self.episode.ui is not None:
            info["ui"] = dict(self.episode.ui.counts)
        new_shown = self.episode.world.shown_to_user[self.episode.shown_count:]
        if new_shown:
            info["shown_to_user"] = list(new_shown)
            self.episode.shown_count = len(self.episode.world.shown_to_user)
        return info

    def images_new_to_agent(self, stored: list[str]) -> list[str]:
        """The images the agent may use that no earlier ``info["images"]`` named: at reset the gallery's and the
        first message's, after a reply the user's newly attached ones, after a tool the ones it made (tools make
        their images visible at once). The user's images were all stored at reset: ``stored`` would name them early."""
        episode = self.episode
        if episode.world is None:
            return []
        new = sorted(episode.world.visible - episode.reported_images, key=_image_order)
        episode.reported_images.update(new)
        return new

    def evaluation_info(self) -> dict[str, Any]:
        # In "final" reward mode the evaluation is refreshed only at reset and at the episode's end: the
        # per-change details are reported when fresh (then copied, so infos never share objects).
        details = dict(self.evaluation.details)
        fresh = self.episode.evaluated_at == self.steps
        for key in ("entity_diff", "side_effects"):
            if key in details:
                if fresh:
                    details[key] = copy.deepcopy(details[key])
                else:
                    del details[key]
        return details

    def observation_image(self) -> np.ndarray:
        # The letterboxed image changes only when the current image does: reuse it between steps.
        episode = self.episode
        if episode.obs_image is None or episode.obs_image_of != episode.current_image:
            record = None if episode.current_image is None else self.images.record(episode.current_image)
            if record is not None and record.op == "scenario_image":  # the same pixels every episode
                real = episode.real_scenario_pixels
                key = ("letterboxed", record.meta["key"], self.obs_size, real)
                if key not in self.task.cache:  # a rendered image's fitting is kept on disk, beside its pixels
                    self.task.cache[key] = (fitted_image(self.task.images[record.meta["key"]], record.array, self.obs_size)
                                            if real else letterbox(record.array, self.obs_size))
                episode.obs_image = self.task.cache[key]
            else:
                episode.obs_image = letterbox(self.frame(), self.obs_size)
            episode.obs_image_of = episode.current_image
        return episode.obs_image.copy()

    def callable_tool_specs(self) -> list[dict[str, Any]]:
        """Specs (name, app, description, JSON schema) of what the agent may call now: the pinned meta
        tools and the working set, least recently used first. In tool mode this is the function list an
        LLM harness passes to the model each turn."""
        return [tool.spec() for tool in self._callable_tools()]

    def _callable_tools(self) -> list[Tool]:
        meta = {"search_tools": SEARCH_TOOL, "execute_code": EXECUTE_TOOL}
        return [meta[name] if name in meta else self.tools[name] for name in self.search.working]

    def tool_specs(self) -> list[dict[str, Any]]:
        """``callable_tool_specs()`` as OpenAI function-calling specs (re-read every turn: the working set moves)."""
        return [function_spec(spec["name"], spec["description"], spec["parameters"]) for spec in self.callable_tool_specs()]

    def action_description(self) -> str:
        """This mode's grammar and the tools callable now, from their declarations (what every reset shows)."""
        return describe_mode(self.mode, self._callable_tools())

    @property
    def transcript(self) -> list[dict[str, Any]]:
        """The user–agent conversation so far (role, text, image ids), e.g. for an LLM user or judge."""
        return copy.deepcopy(self.episode.transcript)

    @property
    def agent_actions(self) -> list[dict[str, Any]]:
        """The agent's tool calls (name, arguments, result or error) and code runs (code, output, the
        tool calls it made), in order: the "agent actions" an LLM judge reads."""
        return copy.deepcopy(self.episode.actions)

    def budget_exhausted(self) -> bool:
        # An explicit max_steps is the contract's cap on agent actions and replaces the message budget
        # (unless max_messages is given too); by default the scenario's message budget applies.
        if self._max_steps_given:
            return self.steps >= self.max_steps or (self._max_messages_given is not None and self.episode.messages >= self.max_messages)
        # max_steps is the budget's M // 2 actions: the same moment as M messages (an action refused
        # before it ran, over the action-size budget, counts as an action too)
        return self.steps >= self.max_steps or self.episode.messages >= self.max_messages

    def frame(self) -> np.ndarray | None:
        return None if self.episode.current_image is None else self.images.get(self.episode.current_image)

    def evaluate(self) -> Evaluation:
        self.episode.evaluated_at = self.steps
        if self.episode.pristine and "initial_evaluation" in self.task.cache:  # nothing ran since reset
            cached = self.task.cache["initial_evaluation"]  # evaluation_info copies the details it reports
            return Evaluation(cached.score, cached.success, cached.details)
        # At reset (nothing ran yet) the world holds the template's rows, which ``before`` already copied.
        at_reset = self.episode.pristine and self.steps == 0
        now = self.episode.before if at_reset else snapshot(self.episode.world.conn)
        result = score_entity_diff(self.episode.before, now, self.task.specs, self._kinds)
        details = result.to_info()
        # As in the published evaluation, code that tripped a sandbox guardrail zeroes the episode's F1.
        failed = self.guardrail_zero and self.episode.guardrail_violations > 0
        f1 = 0.0 if failed else float(result.f1)
        evaluation = Evaluation(f1, bool(f1 >= 1.0 - 1e-9), {
            "entity_f1": f1, "entity_f1_measured": float(result.f1), "precision": float(result.precision),
            "recall": float(result.recall), "guardrail_violations": self.episode.guardrail_violations,
            "entity_diff": details, "side_effects": details["side_effects"],
        })
        if self.episode.pristine:
            self.task.cache["initial_evaluation"] = copy.deepcopy(evaluation)
        return evaluation

    # ------------------------------------------------------------------ agents
    def oracle_action(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        steps = self.task.reference_solution
        if self.episode.oracle_cursor >= len(steps):
            return steps[-1]["say"] if "say" in steps[-1] else "Done."
        step = steps[self.episode.oracle_cursor]
        if "say" in step:
            self.episode.oracle_cursor += 1
            return step["say"]
        if self.mode != "code":
            name, arguments = self._oracle_call(step)
            if name not in self.search.working:
                return json.dumps({"name": "search_tools", "arguments": self._oracle_search(name)})
            self.episode.oracle_cursor += 1
            return json.dumps({"name": name, "arguments": arguments})
        lines = []
        planned: set[str] = set(self.search.working)
        while self.episode.oracle_cursor < len(steps) and "tool" in steps[self.episode.oracle_cursor]:
            name, arguments = self._oracle_call(steps[self.episode.oracle_cursor])
            if name not in planned:
                search = self._oracle_search(name)
                lines.append(f"search_tools(query={search['query']!r}, page={search['page']})")
                planned.add(name)
            call = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
            lines.append(f"print({name}({call}))")
            self.episode.oracle_cursor += 1
        return "```python\n" + "\n".join(lines) + "\n```"

    def _oracle_call(self, step: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        full = step["tool"]
        name = full_name_map(self.toolset).get(full, full)  # UI tools keep their names in every toolset
        arguments = dict(step.get("arguments", {}))
        members = self.tools[name].meta.get("members")
        if members:
            action = next(a for a, f in members.items() if f == full)
            arguments = {"action": action, **arguments}
        return name, arguments

    def _oracle_search(self, name: str) -> dict[str, Any]:
        query = " ".join(re.findall(r"[a-z0-9]+", name.lower()))
        ranked = [n for _, n in self.search.rank(query)]
        return {"query": query, "page": ranked.index(name) // 5}

    def random_action(self, rng: np.random.Generator) -> str | dict[str, Any]:
        names = list(self.tools)
        choice = int(rng.choice(4, p=[0.35, 0.25, 0.3, 0.1]))
        word = _WORDS[int(rng.integers(len(_WORDS)))]
        if choice == 0:
            name = names[int(rng.integers(len(names)))]
            tool = self.tools[name]
            arguments = {p.name: _random_value(p.annotation, rng) for p in tool.params if rng.random() < 0.7}
            call = {"name": name, "arguments": arguments}
            return json.dumps(call) if self.mode != "code" else f"```python\nprint({name}(**{arguments!r}))\n```"
        if choice == 1:
            call = {"name": "search_tools", "arguments": {"query": word}}
            return json.dumps(call) if self.mode != "code" else f"```python\nprint(search_tools(query={word!r}))\n```"
        if choice == 2:
            return " ".join(_WORDS[int(i)] for i in rng.integers(len(_WORDS), size=int(rng.integers(1, 8))))
        return "```python\nprint(1 + 1)\n```" if self.mode == "code" else json.dumps({"name": "execute_code", "arguments": {"code": "print(1)"}})

    def shutdown(self) -> None:
        if self.episode.world is not None:
            self.episode.world.close()
        self.episode = ToolSandboxEpisode()


def _random_value(annotation: Any, rng: np.random.Generator) -> Any:
    import typing

    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin is typing.Literal:
        return args[int(rng.integers(len(args)))]
    if args and origin is not list:
        return _random_value(args[0], rng)
    if annotation is int:
        return int(rng.integers(0, 20))
    if annotation is float:
        return float(np.round(rng.uniform(0, 100), 2))
    if annotation is bool:
        return bool(rng.integers(2))
    if origin is list:
        return [_random_value(args[0] if args else str, rng)]
    if annotation is dict:
        return {}
    return _WORDS[int(rng.integers(len(_WORDS)))]


def _short_error(error: str, kind: str | None) -> str:
    """The last line of a sandbox error (``ValueError: boom`` rather than the whole traceback)."""
    lines = [line.strip() for line in error.strip().splitlines() if line.strip()]
    return lines[-1] if lines else f"the code failed ({kind or 'error'})"


def _dump(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _RESULT_CHARS else text[:_RESULT_CHARS] + f"… [{len(text) - _RESULT_CHARS} more characters]"
