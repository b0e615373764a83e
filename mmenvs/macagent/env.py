"""MacAgent-v0: operate a macOS-like desktop by GUI actions and shell commands, scored by checkpoints."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from gymnasium import spaces

from mmenvs.core import ActionError, ActionOutcome, Evaluation, MMEnv, UnicodeText, load_json, registry_path
from mmenvs.core.families import check_task_filter, matches
from mmenvs.core.memory import release_free_memory, tune_allocator
from mmenvs.macagent import action_specs
from mmenvs.macagent.actions import PyAutoGUIShim, parse_action, run_calls, straight_line_calls
from mmenvs.macagent.backends.base import BackendError, MacBackend
from mmenvs.macagent.checkpoints import CheckpointResult, GetterContext, evaluate_checkpoint, jsonable, read_checkpoint
from mmenvs.macagent.checkpoints.evaluation import REWARD_GUARDS, reward_parts
from mmenvs.macagent.screen import ScreenTracker
from mmenvs.macagent.tasks import MacTask, SeedTask, TaskFormatError, TaskSetupError, load_suite, run_setup, task_from_data
from mmenvs.sandbox import unencodable_char

SUITES = ("test", "train", "official", "linux")  # linux: the Linux-guest starter tasks (registry/macagent/linux_tasks, backend="vm")
#: Draws ``suite="train"`` makes before it gives up finding a task that is not a benchmark variant.
TRAIN_DRAWS = 64
#: Tasks kept loaded (least recently used dropped): a variant loads in ~0.3 ms, a reset takes ~30 ms, and
#: keeping every variant an env ever drew (944 in the suite, ~4 KB each) made a long run's memory creep up
TASK_CACHE_SIZE = 64
WAIT_SECONDS = 5.0  # how far WAIT moves the desktop clock (backends that have one)
_A11Y_MAX = 65_536
_INSTRUCTION_MAX = 8_192


def _applescript_error_types() -> tuple[type[BaseException], ...]:
    try:
        from mmenvs.macagent.applescript.errors import AppleScriptError
    except ImportError:  # the interpreter package is optional for backends that run real osascript
        return (BackendError,)
    return (BackendError, AppleScriptError)


# Runs (trusted) in the sandbox worker before agent code: tuples cross the wire as plain sequences, so
# position()/size() get pyautogui's named tuples back; time.sleep moves the desktop clock instead of blocking.
_SANDBOX_PRELOAD = """
def _mmenvs_pyautogui():
    import collections, time
    import pyautogui
    Point = collections.namedtuple("Point", "x y")
    Size = collections.namedtuple("Size", "width height")
    raw_position, raw_size = pyautogui.position, pyautogui.size
    pyautogui.Point, pyautogui.Size = Point, Size
    pyautogui.position = lambda: Point(*raw_position())
    pyautogui.size = lambda: Size(*raw_size())
    pyautogui.PAUSE, pyautogui.FAILSAFE = 0.0, False
    time.sleep = pyautogui.sleep
_mmenvs_pyautogui()
del _mmenvs_pyautogui
"""


@dataclass
class MacAgentEpisode:
    """What one episode has established so far (made fresh at every reset)."""

    baselines: dict[str, Any] = field(default_factory=dict)  # guard checkpoint name -> its reading after setup
    fresh: bool = False  # True between setup and the first action: guards read their baselines
    setup_notes: list[str] = field(default_factory=list)  # setup steps whose failure was tolerated (official tasks)


def _remove_env_folder(path: str) -> None:
    """Remove an env's private temp folder (its home inside); never follows a link (rmtree's fd walk)."""
    shutil.rmtree(path, ignore_errors=True)


class MacAgentEnv(MMEnv):
    """Operate a macOS-like desktop by GUI actions and shell commands, freely mixed (MacAgentBench).

    ## Description
    Each task gives an instruction ("In Notes, append … to the note …; save the list to ~/Desktop/…"),
    a setup that puts the desktop in its starting state (files, app data, open apps, the clock), and
    checkpoints: a getter reads state (shell, AppleScript or a python function of the getter library)
    and a metric judges it, each with a capability tag (research, app_state, content_match, file_ops,
    system_config). The default backend is an embedded, simulated Mac desktop (``backend="sim"``);
    every task is data under ``registry/macagent/tasks`` and also runs on a real macOS VM backend.

    ## Observation Space
    ``Dict(text, image, a11y, instruction)``: ``text`` is what the last action produced (shell output
    with its exit code, AppleScript results, error messages); ``image`` the screenshot letterboxed to
    ``obs_size``; ``a11y`` the accessibility tree (role, name, value, bounds per line); ``instruction``
    the task. Full-size screenshots are in ``env.images`` (a new id whenever the screen changed).

    ## Action Space
    A string: ``DONE``, ``FAIL``, ``WAIT``; a fenced ```python block of pyautogui calls (click,
    doubleClick, rightClick, moveTo, dragTo, scroll, write/typewrite, press, hotkey, keyDown/keyUp,
    sleep, position, size) run against a pyautogui shim; a fenced ```bash block run in the episode's
    shell (home folder ``~``); a fenced ```applescript block; or a computer-use dict (OSWorld's
    computer_13 verbs: MOVE_TO, CLICK, RIGHT_CLICK, DOUBLE_CLICK, DRAG_TO, SCROLL, TYPING, PRESS,
    KEY_DOWN, KEY_UP, HOTKEY, MOUSE_DOWN, MOUSE_UP), as a dict or JSON text. Bad code, off-screen
    points and unknown keys come back as an error observation.

    ## Rewards
    The score is the fraction of checkpoints passed (success when all pass), paid once at the end
    (``reward_mode="final"``) or as the change in score after every step (``"progress"``; the sum is
    the final score). ``info["checkpoints"]`` lists each checkpoint's name, tag, result and the value
    its getter read; guard checkpoints (state that must stay untouched) are marked ``guard``.
    Progress rewards follow the checkpoints: a step that makes one more of ``n`` checkpoints pass pays
    ``1/n``, one that breaks a passing checkpoint (a guard included) pays ``-1/n``.
    ``reward_guards="after_goal"`` (a training option) pays the guard checkpoints only once at least one
    goal checkpoint (not a guard) passes, so ``DONE`` as the first action earns 0 instead of the guards'
    share (0.176 on average over the suite); ``info["score"]`` and ``info["success"]`` stay the paper's
    Score. ``info["reward_components"]`` splits each step's reward: ``{"checkpoints": …}`` by default,
    ``{"goal_checkpoints": …, "guard_checkpoints": …}`` with ``"after_goal"``.

    ## Starting State
    A task of the suite (``suite="test"``: 4 variants per seed task; ``suite="train"``: parameters
    sampled afresh from each seed's space), chosen by ``options={"task_id": …}``, given inline by
    ``options={"task": dict | path}``, or drawn with ``np_random``; ``suite="official"`` with
    ``official_dir=PATH``: the public MacAgentBench ``task/`` folder of a user's checkout, translated by
    ``mmenvs.macagent.official`` (one task a file, ids from the path). The desktop is reset to the task's
    reference time with an empty home folder, then the task's setup runs.

    ## Episode End
    Terminated on ``DONE`` or ``FAIL``; truncated after ``max_steps`` (50) steps. Evaluation runs at the
    end (and after every step with ``reward_mode="progress"``).

    ## Arguments
    ``backend`` ("sim", a ``MacBackend`` instance, or a zero-argument factory), ``suite`` ("test" or
    "train"), ``tasks`` (a folder or file of task JSON instead of the shipped suite), ``screen_size``
    ((width, height) of the simulated screen, default (1280, 800)), ``obs_size`` ((height, width) of
    the observation image, default (400, 640)), ``a11y`` (include the accessibility tree, default
    True), ``shell_timeout`` (seconds per shell action, default 10), ``sandbox_options`` (``PythonSandbox``
    keyword arguments for pyautogui code beyond straight-line calls, e.g. ``{"timeout": 10.0}``, the
    default, in seconds per action), ``task_filter`` (a family of seed tasks by category,
    apps, tags, interaction, multi_app or seed id; see ``mmenvs.core.families``), ``store_screenshots``
    (default True: every new screen goes into ``env.images``, the newest raw and older ones
    Zstandard-packed on a background thread, about 130 KB each; False keeps only the current one and saves
    that work in long RL runs), ``low_res_render`` (default True: with ``store_screenshots=False`` and an
    ``obs_size`` at most half the screen along each axis, e.g. RL's 128×128, the image is made from a frame
    the sim composes at low resolution, close to the full screenshot downscaled (PSNR > 30 dB), and a step
    draws no full-size frame: one is drawn only when asked for, ``env.render()``, ``env.frame()``,
    screencapture; False, or storing screenshots: the full screenshot downscaled), ``reward_guards`` ("always", the paper's Score, default; or "after_goal",
    see Rewards), ``reward_mode``, ``render_mode``, ``max_steps``.

    ## Examples
    >>> import gymnasium as gym, mmenvs
    >>> env = gym.make("MacAgent-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step("```bash\\nls ~/Desktop\\n```")
    """

    max_steps = 50
    cheap_evaluation = False  # getters run shell and AppleScript: evaluate at the end (or every step in progress mode)
    image_memory_budget = 3 * 2**20  # the newest 1280x800 screenshot raw; older ones packed (issue 7: ≤ 150 MB an env)

    def __init__(
        self,
        *,
        backend: str | MacBackend | Callable[[], MacBackend] = "sim",
        suite: str = "test",
        tasks: str | Path | None = None,
        screen_size: tuple[int, int] = (1280, 800),
        obs_size: tuple[int, int] = (400, 640),  # half the default screen, same aspect: no letterbox bars
        a11y: bool = True,
        shell_timeout: float = 10.0,
        store_screenshots: bool = True,
        low_res_render: bool = True,
        reward_guards: str = "always",
        task_filter: Mapping[str, Any] | None = None,
        official_dir: str | Path | None = None,
        **kwargs: Any,
    ) -> None:
        if suite not in SUITES:
            raise ValueError(f"MacAgent-v0: suite must be one of {SUITES}, got {suite!r}")
        self.suite = suite
        self.use_a11y = bool(a11y)
        self.shell_timeout = float(shell_timeout)
        self.store_screenshots = bool(store_screenshots)
        self.low_res_render = bool(low_res_render)
        if reward_guards not in REWARD_GUARDS:
            raise ValueError(f"MacAgent-v0: reward_guards must be one of {REWARD_GUARDS}, got {reward_guards!r}")
        self.reward_guards = reward_guards
        self.official = None
        if suite == "official":  # one concrete task per file of the public task folder (variant index -1)
            if official_dir is None:
                raise ValueError("MacAgent-v0: suite='official' needs official_dir=PATH (the benchmark's task/ folder)")
            from mmenvs.macagent.official import load_official

            self.official = load_official(official_dir)
            if not self.official.seeds:
                raise ValueError(f"MacAgent-v0: no task of {self.official.folder} could be imported: "
                                 + "; ".join(self.official.summary_lines()[1:4]))
            self._seeds = {s.id: s for s in self.official.seeds}
            self._variants: dict[str, tuple[SeedTask, int]] = {s.id: (s, -1) for s in self.official.seeds}
        else:
            shipped = registry_path("macagent", "linux_tasks" if suite == "linux" else "tasks")
            self._seeds: dict[str, SeedTask] = {s.id: s for s in load_suite(Path(tasks) if tasks else shipped)}
            self._variants = {vid: (seed, k) for seed in self._seeds.values() for k, vid in enumerate(seed.variant_ids())}
        self._cache: OrderedDict[str, MacTask] = OrderedDict()  # at most TASK_CACHE_SIZE, least recently used first
        self.set_task_filter(task_filter)
        tune_allocator()  # frames and layers are megabytes each: keep them out of glibc's heap
        # backend="vm": vm_image=, vm_os=, vm_key_path=, vm_docker_url=, … and pool_size= (backends/vm, docs/vm.md)
        vm_options = {k: kwargs.pop(k) for k in [k for k in kwargs if k.startswith("vm_") or k == "pool_size"]}
        self.backend = self._make_backend(backend, screen_size, vm_options, float(shell_timeout))
        self._home_dir = Path(tempfile.mkdtemp(prefix="mmenvs-mac-"))
        # an env that is dropped without close() still removes its temp home (at collection or exit)
        self._remove_home_dir = weakref.finalize(self, _remove_env_folder, str(self._home_dir))
        self._home = self._home_dir / "home"
        self._home.mkdir()
        self.shim = PyAutoGUIShim(self.backend)
        self._ctx = GetterContext(self.backend, shell_timeout=self.shell_timeout)
        self.episode = MacAgentEpisode()
        self._applescript_errors = _applescript_error_types()
        try:
            if "python_timeout" in kwargs:
                raise TypeError("MacAgent-v0: python_timeout=… became sandbox_options={'timeout': seconds}")
            super().__init__(obs_size=obs_size, **kwargs)
            self.backend.budget = self.budget  # host-side limits of the sim's shells, AppleScript and media tools
            self.screen = ScreenTracker(self.backend, self.obs_size, read_a11y=self.use_a11y, scrub=self._scrub,
                                        on_new_frame=self._store_frame, low_res=self.low_res_render,
                                        full_frames=self.store_screenshots)
        except Exception:  # a bad kwarg must not leave the desktop's processes and the temp home behind
            self.backend.close()
            self._remove_home_dir()
            raise

    @staticmethod
    def _make_backend(backend: Any, screen_size: tuple[int, int], vm_options: Mapping[str, Any] | None = None,
                      shell_timeout: float = 10.0) -> MacBackend:
        if vm_options and backend != "vm":
            raise ValueError(f"MacAgent-v0: {', '.join(sorted(vm_options))} only apply with backend='vm' (got backend={backend!r})")
        if backend == "sim":
            from mmenvs.macagent.backends.sim import SimBackend

            return SimBackend(screen_size=tuple(screen_size))
        if backend == "vm":
            from mmenvs.macagent.backends.vm import VMBackend

            return VMBackend.from_env_kwargs(vm_options or {}, screen_size=tuple(screen_size), shell_timeout=shell_timeout)
        if isinstance(backend, str):
            raise ValueError(f"MacAgent-v0: backend must be 'sim', 'vm', a MacBackend or a factory; got {backend!r}")
        made = backend() if callable(backend) and not isinstance(backend, MacBackend) else backend
        if not isinstance(made, MacBackend):
            raise ValueError(f"MacAgent-v0: {type(made).__name__} does not implement the MacBackend interface "
                             "(subclass mmenvs.macagent.backends.base.MacBackend and implement its abstract methods)")
        return made

    # ------------------------------------------------------------------ spaces
    def extra_observation_spaces(self) -> dict[str, spaces.Space]:
        return {"a11y": UnicodeText(_A11Y_MAX), "instruction": UnicodeText(_INSTRUCTION_MAX)}

    def extra_observation(self) -> dict[str, Any]:
        # MMEnv escapes and bounds both to their spaces' lengths (and keeps an unchanged tree's result)
        return {"a11y": self.screen.a11y(), "instruction": self.task.instruction}

    # ------------------------------------------------------------------ tasks
    def set_task_filter(self, task_filter: Mapping[str, Any] | None) -> None:
        """Select a family of seed tasks (``task_filter``, see ``mmenvs.core.families``) on the fields
        category, apps, tags, interaction, multi_app and seed (the seed task's id); both suites use it."""
        metadata = {seed_id: seed.variant(0).metadata() for seed_id, seed in self._seeds.items()}
        fields: dict[str, Any] = {key: sorted({str(v) for m in metadata.values() for v in (m[key] if isinstance(m[key], list) else [m[key]])})
                                  for key in ("category", "apps", "tags", "interaction")}
        fields.update({"multi_app": (True, False), "seed": sorted(self._seeds)})
        self.task_filter = check_task_filter("MacAgent-v0", task_filter, fields)
        self._family = [seed_id for seed_id, meta in metadata.items() if matches(meta, self.task_filter)]
        if not self._family:
            raise ValueError(f"MacAgent-v0: task_filter {self.task_filter} matches no seed task")

    def task_ids(self) -> list[str]:
        """The benchmark variants of the family's seed tasks (all 908 without ``task_filter``)."""
        family = set(self._family)
        return [vid for vid, (seed, _) in self._variants.items() if seed.id in family]

    def seeds(self) -> list[SeedTask]:
        """The seed tasks of the suite (each expands into ``task_ids()``' 4 variants)."""
        return list(self._seeds.values())

    def load_task(self, task_id: str) -> MacTask:
        if task_id in self._cache:
            self._cache.move_to_end(task_id)
            return self._cache[task_id]
        if task_id not in self._variants:
            hint = ", ".join(list(self._variants)[:6])
            raise ValueError(f"MacAgent-v0: unknown task_id {task_id!r}; ids look like {hint}, … ({len(self._variants)} in all)")
        seed, k = self._variants[task_id]
        task = self._cache[task_id] = seed.variant(k) if k >= 0 else seed.concrete("official")
        if len(self._cache) > TASK_CACHE_SIZE:
            self._cache.popitem(last=False)
        return task

    def task_from_spec(self, spec: Mapping[str, Any] | str | Path) -> MacTask:
        if isinstance(spec, MacTask):
            return spec
        if isinstance(spec, (str, Path)):
            return task_from_data(load_json(spec, "MacAgent task"), str(spec))
        if not isinstance(spec, Mapping):
            raise ValueError(f"MacAgent-v0: options['task'] must be a dict or a path, got {type(spec).__name__}")
        return task_from_data(dict(spec), "inline task")

    def sample_task(self, rng: np.random.Generator) -> MacTask:
        if self.suite == "train":
            # A fresh parameter draw of a family seed, never one of the benchmark's variants (same
            # parameters and instruction): a policy trained here is evaluated on tasks it never saw.
            seeds = [self._seeds[seed_id] for seed_id in self._family]
            for _ in range(TRAIN_DRAWS):
                seed = seeds[int(rng.integers(len(seeds)))]
                task = seed.sample(rng)
                if not any(task.params == v.params and task.instruction == v.instruction
                           for v in (self.load_task(vid) for vid in seed.variant_ids())):
                    return task
            raise ValueError(f"MacAgent-v0: {TRAIN_DRAWS} training draws of the family {self.task_filter} all equalled benchmark "
                             "variants (its seed tasks have too few parameters to train on without evaluating on the same tasks)")
        return super().sample_task(rng)

    def task_id_of(self, task: Any) -> str:
        return task.id

    def task_metadata(self) -> dict[str, Any]:
        return self.task.metadata()

    # ------------------------------------------------------------------ episode
    def begin(self, task: MacTask) -> str:
        self.screen.reset()
        self.episode = MacAgentEpisode()
        release_free_memory()  # the last episode's desktop is gone: give its pages back
        try:
            self.backend.set_web_pages(task.web_pages)
        except BackendError as exc:
            raise TaskSetupError(f"{task.source}: task {task.id!r} serves web pages: {exc}") from None
        refuse = getattr(self.backend, "refuse_task", None)  # a VM guest that cannot run the task says why
        if refuse is not None:
            refuse(task)
        elif getattr(task, "platform", "macos") != "macos":
            raise TaskSetupError(f"{task.source}: task {task.id!r} is for a {task.platform} guest (platform={task.platform!r}): "
                                 "run it with backend='vm' on such a guest (docs/vm.md); the sim is a macOS desktop")
        self.backend.reset(now=task.reference_time, home=self._home)
        self.shim.reset()
        self.episode.setup_notes = run_setup(task, self._ctx)
        for checkpoint in task.checkpoints:
            if checkpoint.guard:
                value, error = read_checkpoint(checkpoint, self._ctx)
                if error is not None:
                    raise TaskFormatError(f"{task.source}: task {task.id!r}: guard checkpoint {checkpoint.name!r} cannot read its baseline: {error}")
                self.episode.baselines[checkpoint.name] = value
        self.episode.fresh = True
        self.screen.invalidate()  # the setup changed the desktop
        return task.instruction

    def act(self, action: str | dict[str, Any]) -> ActionOutcome:
        self.episode.fresh = False  # from the first action on, guards are read again
        parsed = parse_action(action, max_chars=self.budget.action_chars)
        if parsed.kind == "control":
            if parsed.word == "WAIT":
                if self.backend.simulated_clock:  # a real desktop's clock moves by itself
                    self.backend.advance_time(WAIT_SECONDS)
                self.screen.invalidate()  # the clock and running timers moved (on a real desktop, anything may have)
                return ActionOutcome(text=f"Waited {WAIT_SECONDS:g} s.", info={"action_kind": "control"})
            ended = "declared the task done" if parsed.word == "DONE" else "gave up on the task"
            return ActionOutcome(text=f"Episode over: you {ended} ({parsed.word}).", terminated=True, info={"action_kind": "control"})
        self.screen.invalidate()  # any other action may change the screen, even when it fails halfway
        self.shim.begin_action()
        if parsed.kind == "computer":
            before = self.shim.events
            self.shim.perform(parsed.verb, parsed.params)
            return ActionOutcome(text=f"{parsed.verb}: done ({self.shim.events - before} input event(s)).", info={"action_kind": "gui"})
        if parsed.kind == "bash":
            out = self.backend.run_shell(parsed.code, timeout=self.shell_timeout)
            return ActionOutcome(text=self._scrub(out.text), info={"action_kind": "cli", "exit_code": out.exit_code})
        if parsed.kind == "applescript":
            try:
                result = self.backend.run_applescript(parsed.code)
            except self._applescript_errors as exc:
                raise ActionError("applescript_error", self._scrub(str(exc))) from None
            return ActionOutcome(text=self._scrub(result) if result else "(no result)", info={"action_kind": "cli"})
        return self._run_python(parsed.code)

    def _run_python(self, code: str) -> ActionOutcome:
        before = self.shim.events
        unencodable = unencodable_char(code)  # the host parses the code first (straight-line calls)
        if unencodable is not None:
            raise ActionError("python_syntax", f"SyntaxError: the code is not valid text: {unencodable}.")
        calls = straight_line_calls(code)
        if calls is not None:
            run_calls(self.shim, calls)
            value = None
            if calls and calls[-1].name in ("position", "size", "onScreen"):
                value = getattr(self.shim, calls[-1].name)(*calls[-1].args, **calls[-1].kwargs)
            text = f"OK ({self.shim.events - before} input event(s))." + (f"\n{value}" if value is not None else "")
            return ActionOutcome(text=text, info={"action_kind": "gui"})
        result = self.sandbox.run(code)
        if result.error and result.error_kind != "output":
            raise ActionError(f"python_{result.error_kind or 'error'}", self._scrub(result.text))
        text = result.text if (result.stdout or result.value) else f"OK ({self.shim.events - before} input event(s))."
        return ActionOutcome(text=self._scrub(text), info={"action_kind": "gui"})

    def recover(self, phase: str, error: Exception) -> str | None:
        """After an internal error the screen is read afresh, and a backend that can repair itself does
        (the sim restarts the app the error came from: ``SimBackend.recover``)."""
        self.screen.invalidate()
        return self.backend.recover(error)

    def sandbox_tools(self) -> dict[str, Callable[..., Any]]:
        """The pyautogui shim's functions: ``import pyautogui`` in the sandbox reaches them."""
        return self.shim.tools()

    def sandbox_preload(self) -> str:
        return _SANDBOX_PRELOAD

    def sandbox_defaults(self) -> dict[str, Any]:
        return {"timeout": self.budget.action_timeout}

    def evaluate(self) -> Evaluation:
        results = []
        for checkpoint in self.task.checkpoints:
            if checkpoint.guard and self.episode.fresh:
                # Right after setup nothing has acted yet: the guard's reading is its baseline.
                baseline = self.episode.baselines[checkpoint.name]
                results.append(CheckpointResult(checkpoint.name, checkpoint.tag, True, jsonable(baseline), True))
            else:
                results.append(evaluate_checkpoint(checkpoint, self._ctx, self.episode.baselines.get(checkpoint.name)))
        return self._score(results)

    def evaluation_info(self) -> dict[str, Any]:
        """The evaluation's details, plus ``infra_failure`` when the backend lost its machine (a VM guest
        that died): the runner then records the episode as an infrastructure failure, never as a 0."""
        details = super().evaluation_info()
        lost = getattr(self.backend, "infra_failure", None)
        return {**details, "infra_failure": dict(lost)} if lost else details

    def reward_components(self) -> dict[str, float]:
        """The training reward's parts: the paper's Score as one part, or with ``reward_guards="after_goal"``
        the goal and guard checkpoints apart, guards counting only once a goal checkpoint passes."""
        records = self._evaluation.details.get("checkpoints")
        if self.reward_guards == "always" or not records:
            return {"checkpoints": float(self._evaluation.score)}
        return reward_parts(records, self.reward_guards)

    def _score(self, results: list[CheckpointResult]) -> Evaluation:
        passed = sum(r.passed for r in results)
        records = [self._scrub_value(r.as_dict()) for r in results]
        details: dict[str, Any] = {"checkpoints": records, "checkpoints_passed": passed}
        if self.episode.setup_notes:
            details["setup_notes"] = [self._scrub(note) for note in self.episode.setup_notes]
        return Evaluation(passed / len(results), passed == len(results), details)

    @classmethod
    def summarize_episodes(cls, records: list[dict[str, Any]]) -> dict[str, Any]:
        """Checkpoint Score per capability tag (MacAgentBench Table 5): passed / all checkpoints with the tag,
        over every episode and over multi-app episodes, from each record's final ``info["checkpoints"]``."""
        tables: dict[str, dict[str, dict[str, float]]] = {}
        for title, keep in (("Checkpoint score by capability tag (all tasks)", lambda r: True),
                            ("Checkpoint score by capability tag (multi-app tasks)", lambda r: bool((r.get("task_meta") or {}).get("multi_app")))):
            counts: dict[str, list[int]] = {}
            for record in records:
                checkpoints = (record.get("final_info") or {}).get("checkpoints")
                if not keep(record) or not isinstance(checkpoints, list):
                    continue
                for checkpoint in checkpoints:
                    tally = counts.setdefault(str(checkpoint.get("tag")), [0, 0])
                    tally[0] += bool(checkpoint.get("passed"))
                    tally[1] += 1
            if counts:
                tables[title] = {tag: {"score": passed / total, "passed": passed, "checkpoints": total}
                                 for tag, (passed, total) in sorted(counts.items())}
        # MacAgentBench Table 4: success on tasks a skill covers vs. the others (task_meta's skill_covered)
        split: dict[str, list[int]] = {}
        for record in records:
            meta = record.get("task_meta") or {}
            if "skill_covered" in meta and not record.get("error"):
                tally = split.setdefault("with skill" if meta["skill_covered"] else "without skill", [0, 0])
                tally[0] += bool(record.get("success"))
                tally[1] += 1
        if split:
            tables["Pass rate with and without skill coverage (MacAgentBench Table 4)"] = {
                row: {"pass": passed / total, "passed": passed, "episodes": total} for row, (passed, total) in sorted(split.items())}
        return {"tables": tables} if tables else {}

    # ------------------------------------------------------------------ frames
    def _store_frame(self, frame: np.ndarray) -> None:
        """Keep every new screen in the image store (the store copies it: the backend reuses its frames)."""
        if self.store_screenshots:
            self.images.add(frame, op="screenshot")

    def observation_image(self) -> np.ndarray:
        # Fitted once per new screen (most steps leave the screen as it was), into a recycled array.
        return self.screen.observation_image()

    def frame(self) -> np.ndarray | None:
        if self.task is None:
            return None
        return self.screen.frame()

    # ------------------------------------------------------------------ agents
    def action_description(self, framework: str | None = None) -> str:
        """The action grammar as prompt text, for an agent set-up: "pyautogui" (pyautogui code or
        WAIT/FAIL/DONE), "computer_use" (the computer_use tool), "hybrid" (GUI code, bash, AppleScript);
        None: everything the parser accepts. Generated from the parser's tables (``action_specs``)."""
        return action_specs.describe(framework, PyAutoGUIShim, self.backend.screen_size, self.backend.skills())

    def tool_specs(self, framework: str | None = None) -> list[dict[str, Any]]:
        """OpenAI function schemas: the computer_use tool (plus bash and applescript for "hybrid" and
        None). A call comes back as ``{"name", "arguments"}``, which ``act`` takes as it is."""
        return action_specs.tool_specs(framework, self.backend.screen_size)

    def oracle_action(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        """The next action of the task's reference solution (by step count), then ``DONE``; a
        ``click_element``/``drag_element`` step acts where the element is on screen now (solutions.py)."""
        from mmenvs.macagent.solutions import solution_step

        return solution_step(self.task, self.steps, self.backend)

    def random_action(self, rng: np.random.Generator) -> str | dict[str, Any]:
        """A random GUI or shell action: clicks, typing, keys and scrolls anywhere, a harmless shell command, or WAIT."""
        width, height = self.backend.screen_size
        x, y = int(rng.integers(width)), int(rng.integers(height))
        kind = int(rng.choice(8, p=[0.3, 0.1, 0.1, 0.15, 0.1, 0.1, 0.1, 0.05]))
        if kind == 0:
            return f"```python\nimport pyautogui\npyautogui.click({x}, {y})\n```"
        if kind == 1:
            return {"action_type": "DOUBLE_CLICK", "x": x, "y": y}
        if kind == 2:
            return {"action_type": "RIGHT_CLICK", "x": x, "y": y}
        if kind == 3:
            word = "".join(chr(ord("a") + int(c)) for c in rng.integers(0, 26, size=int(rng.integers(1, 8))))
            return {"action_type": "TYPING", "text": word}
        if kind == 4:
            return {"action_type": "PRESS", "key": ["enter", "tab", "esc", "backspace", "down", "up"][int(rng.integers(6))]}
        if kind == 5:
            return {"action_type": "SCROLL", "dy": int(rng.integers(-5, 6))}
        if kind == 6:
            return "```bash\n" + ["ls", "pwd", "ls ~/Desktop", "date", "echo hello"][int(rng.integers(5))] + "\n```"
        return "WAIT"

    # ------------------------------------------------------------------ helpers
    def _scrub(self, text: str) -> str:
        """Replace the host path of the home folder by ``~``: temp paths never reach obs or info."""
        return text.replace(str(self._home), "~") if isinstance(text, str) else text

    def _scrub_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._scrub(value)
        if isinstance(value, list):
            return [self._scrub_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self._scrub_value(v) for k, v in value.items()}
        return value

    def shutdown(self) -> None:
        try:
            self.backend.close()
        finally:
            self._remove_home_dir()
