"""``MMEnv``: the env contract of DESIGN.md, implemented once for every benchmark.

A benchmark subclasses ``MMEnv`` and fills in a handful of hooks (which tasks exist, how to start
one, how to carry out an action, how to score the state). The base class owns everything the
contract promises: seeding and task choice, the observation dict, error-as-observation for bad
actions, step caps, final vs. progress rewards, the ``info`` keys, rendering and ``close``.
"""

from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .actions import ActionError, json_size
from .budget import Deadline, EpisodeBudget, check_limit, deadline_scope
from .images import ImageStore
from .spaces import UnicodeText, image_space, letterbox, observation_text, to_rgb

REWARD_MODES = ("final", "progress")


@dataclass
class ActionOutcome:
    """What carrying out one action produced.

    ``text`` is what is new for the agent; ``terminated`` is set when the agent declared it is done
    or the task can no longer change; ``info`` holds benchmark-specific facts for this step.
    ``error`` reports an action that ran but failed part-way (agent code that raised after some tool
    calls): unlike a raised ``ActionError`` its effects stand, and it still fills ``info["action_error"]``.
    """

    text: str = ""
    terminated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None


@dataclass
class InternalFault:
    """An internal error (a bug in the env, or input it did not foresee) in one phase of a step.

    ``recovery`` says what the env did about it (``recover()``'s answer: "" when nothing needed
    repair); None when it could not recover, and the episode was truncated."""

    phase: str
    error: str
    recovery: str | None

    def describe(self) -> str:
        """The sentence the agent is shown (``info["action_error"]`` and the observation text)."""
        if self.phase == ACT_PHASE:
            text = f"the environment could not carry out this action ({self.error})."
        else:
            text = f"the environment failed while {self.phase} ({self.error})."
        if self.recovery is None:
            return text + " It could not recover: the episode was truncated."
        return text + (f" {self.recovery}" if self.recovery else "")


#: The phase name of ``act`` in ``InternalFault`` (the others name observation building and scoring).
ACT_PHASE = "carrying out the action"


class ContractError(RuntimeError):
    """A benchmark broke the env contract (e.g. reused a standard info key): a bug in the env's code
    that shows on its first step, raised rather than reported as an internal error of that step."""


@dataclass
class Evaluation:
    """The benchmark score of the current state: ``score`` in [0, 1], ``success``, and the details behind it."""

    score: float
    success: bool
    details: dict[str, Any] = field(default_factory=dict)


class MMEnv(gym.Env[dict, str]):
    """Base class of every mmenvs environment (see DESIGN.md, "The env contract").

    Subclasses set ``max_steps`` and implement the hooks in the "benchmark hooks" section. Actions
    are strings (or dicts, for the structured form of the same action); agent mistakes are raised
    by hooks as ``ActionError`` and come back as an observation, never as an exception.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 2}
    #: Step cap after which the episode is truncated.
    max_steps: int = 50
    #: Length bound of the observation text (longer text is cut with a marker).
    text_max_length: int = 65_536
    #: Length bound of the action text space.
    action_max_length: int = 1_048_576
    #: Evaluate after every step even in "final" mode, so ``info["score"]`` is always current. Benchmarks
    #: whose evaluation is costly set this False: then the score is refreshed at reset and episode end only.
    cheap_evaluation: bool = True
    #: Bytes of pixels an episode's image store keeps unpacked (None: all). Envs that store a screenshot
    #: a step set it, so a long episode's history stays small (older images are packed losslessly).
    image_memory_budget: int | None = None

    def __init__(
        self,
        *,
        obs_size: tuple[int, int] = (448, 448),
        reward_mode: str = "final",
        render_mode: str | None = None,
        max_steps: int | None = None,
        sandbox_options: Mapping[str, Any] | None = None,
        budget: EpisodeBudget | Mapping[str, Any] | None = None,
    ) -> None:
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if max_steps is not None:
            if int(max_steps) < 1:
                raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
            self.max_steps = int(max_steps)
        self.obs_size = (int(obs_size[0]), int(obs_size[1]))
        self.reward_mode = reward_mode
        self.render_mode = render_mode
        self.sandbox_options = _checked_sandbox_options(type(self).__name__, sandbox_options)
        #: The episode's host-side limits (mmenvs.core.budget); the ``budget`` kwarg overrides fields.
        self.budget = EpisodeBudget.from_option(budget)
        self._sandbox: Any = None
        self.images = ImageStore(max_raw_bytes=self.image_memory_budget, budget=self.budget)
        extra_spaces = self.extra_observation_spaces()
        clash = sorted(set(extra_spaces) & {"text", "image"})
        if clash:
            raise TypeError(f"{type(self).__name__}.extra_observation_spaces() redeclares the standard observation keys {clash}")
        self.observation_space = spaces.Dict(
            {"text": UnicodeText(self.text_max_length), "image": image_space(self.obs_size), **extra_spaces}
        )
        self.action_space = UnicodeText(self.action_max_length)
        self.task: Any = None
        self.steps = 0
        self._evaluation = Evaluation(0.0, False)
        self._paid = 0.0  # reward already paid this episode (progress mode pays score deltas)
        self._paid_parts: dict[str, float] = {}  # the same, per reward component
        self._ended = False
        self._closed = False

    # ------------------------------------------------------------------ benchmark hooks
    def task_ids(self) -> list[str]:
        """Ids of the env's task suite, in a fixed order (what ``options={"task_id": ...}`` accepts)."""
        raise NotImplementedError(f"{type(self).__name__} must implement task_ids()")

    def load_task(self, task_id: str) -> Any:
        """The task with ``task_id`` from the suite; raise ``ValueError`` naming valid ids otherwise."""
        raise NotImplementedError(f"{type(self).__name__} must implement load_task()")

    def task_from_spec(self, spec: Mapping[str, Any] | str | Path) -> Any:
        """A task given inline (a dict, or a path to a task file), validated."""
        raise NotImplementedError(f"{type(self).__name__} must implement task_from_spec()")

    def sample_task(self, rng: np.random.Generator) -> Any:
        """A task drawn with ``rng`` (the env's ``np_random``); by default uniformly from the suite."""
        ids = self.task_ids()
        if not ids:
            raise ValueError(f"{type(self).__name__}: the task suite is empty")
        return self.load_task(ids[int(rng.integers(len(ids)))])

    def task_id_of(self, task: Any) -> str:
        """The id of ``task`` (for ``info["task_id"]``)."""
        return str(task["id"] if isinstance(task, Mapping) else task.id)

    def task_metadata(self) -> dict[str, Any]:
        """Fields of the current task that results are broken down by (category, tags, …)."""
        return {}

    def begin(self, task: Any) -> str:
        """Set the world up for ``task`` (add its images to ``self.images``) and return the first text."""
        raise NotImplementedError(f"{type(self).__name__} must implement begin()")

    def act(self, action: str | dict[str, Any]) -> ActionOutcome:
        """Carry out one action. Raise ``ActionError`` for agent mistakes, leaving the state unchanged."""
        raise NotImplementedError(f"{type(self).__name__} must implement act()")

    def evaluate(self) -> Evaluation:
        """Score the current state against the task."""
        raise NotImplementedError(f"{type(self).__name__} must implement evaluate()")

    def frame(self) -> np.ndarray | None:
        """The current full-resolution image: by default the newest image in the store."""
        latest = self.images.latest()
        return None if latest is None else self.images.get(latest)

    def observation_image(self) -> np.ndarray:
        """The ``"image"`` of this step's observation: ``frame()`` letterboxed to ``obs_size``.

        Override to reuse work between steps (a cached letterbox while the frame is unchanged); the
        array returned must not be modified afterwards by the env (the caller owns it)."""
        return letterbox(self.frame(), self.obs_size)

    def images_new_to_agent(self, stored: list[str]) -> list[str]:
        """Ids for ``info["images"]``: the images the agent sees for the first time this step.

        ``stored`` holds the ids added to ``self.images`` during this step (at reset: during ``begin``).
        By default they are all new to the agent; benchmarks that store images before the agent may see
        them (user images that arrive later in a conversation) override this."""
        return list(stored)

    def reward_components(self) -> dict[str, float]:
        """The parts of the score rewards are paid from, for the current evaluation: their sum is the
        training score (by default the benchmark score itself, as one part ``"score"``). Each step's
        reward is the change of that sum (``"progress"``) or the whole of it at the end (``"final"``);
        ``info["reward_components"]`` splits the step's reward into the parts' shares. A benchmark may
        split its score (MacAgent: goal and guard checkpoints) or reshape it for training, but
        ``info["score"]`` and ``info["success"]`` always hold the benchmark's own."""
        return {"score": float(self._evaluation.score)}

    def evaluation_info(self) -> dict[str, Any]:
        """The ``info`` keys the current evaluation contributes: by default ``evaluation.details``.

        Override to leave out stale or costly details; a key may not clash with a standard key."""
        return self._evaluation.details

    def extra_observation_spaces(self) -> dict[str, spaces.Space]:
        """Observation keys beyond "text" and "image" (declared up front)."""
        return {}

    def extra_observation(self) -> dict[str, Any]:
        """Values for ``extra_observation_spaces()``'s keys, this step."""
        return {}

    def oracle_action(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        """The next action of the task's reference solution (the oracle agent replays these)."""
        raise NotImplementedError(f"{type(self).__name__} has no oracle")

    def random_action(self, rng: np.random.Generator) -> str | dict[str, Any]:
        """An action drawn from the env's action grammar (what the random agent sends)."""
        raise NotImplementedError(f"{type(self).__name__} has no random action grammar")

    def shutdown(self) -> None:
        """Release the benchmark's processes and files (called once by ``close``; the sandbox is closed after it)."""

    def recover(self, phase: str, error: Exception) -> str | None:
        """Repair the env after an internal error ``error`` raised while ``phase`` (e.g. re-create the
        broken app). Return what was done, as a sentence for the agent ("" when nothing needed repair),
        or None when the episode cannot go on: it is then truncated. The default repairs nothing; a
        phase that keeps failing after its recovery also truncates the episode."""
        return ""

    def sandbox_tools(self) -> dict[str, Callable[..., Any]]:
        """Host functions the agent's code may call in the sandbox (each call crosses to the host)."""
        return {}

    def sandbox_preload(self) -> str:
        """Trusted Python the sandbox runs before any agent code (imports, shims)."""
        return ""

    def sandbox_defaults(self) -> dict[str, Any]:
        """The benchmark's ``PythonSandbox`` keyword arguments; the ``sandbox_options`` kwarg overrides them."""
        return {}

    # ------------------------------------------------------------------ the code sandbox
    @property
    def sandbox(self) -> Any:
        """The episode's ``PythonSandbox``, started on first use and kept across episodes (reset at each reset).

        Configured one way for every benchmark: ``sandbox_defaults()`` updated by the ``sandbox_options``
        kwarg, with ``sandbox_tools()`` and ``sandbox_preload()``."""
        if self._sandbox is None:
            from mmenvs.sandbox import PythonSandbox

            # Its tmpfs mounts are host memory: sized from the episode budget unless the options say otherwise.
            options = {"tmpfs_mb": max(1, self.budget.tmpfs_bytes >> 20), **self.sandbox_defaults(), **self.sandbox_options}
            self._sandbox = PythonSandbox(tools=self.sandbox_tools(), preload=self.sandbox_preload(), **options)
        return self._sandbox

    @property
    def sandbox_started(self) -> bool:
        """Whether the sandbox runs (it starts on the first code action, or when a benchmark prewarms it)."""
        return self._sandbox is not None

    def sandbox_in_use(self) -> str | None:
        """How the episode's untrusted code is isolated ("bwrap" or "rlimit-only"), once a sandbox runs;
        reported as ``info["sandbox"]`` so a run on a weaker fallback is visible in every record."""
        return None if self._sandbox is None else self._sandbox.isolation

    def suite_breakdown(self) -> dict[str, dict[str, int]]:
        """Task counts of the suite by every field of ``task_metadata()`` (``mmenvs list --details``).

        The default loads each task in turn; benchmarks with large suites may override it."""
        counts: dict[str, dict[str, int]] = {}
        current = self.task
        try:
            for task_id in self.task_ids():
                self.task = self.load_task(task_id)
                for key, value in self.task_metadata().items():
                    for item in value if isinstance(value, (list, tuple)) else [value]:
                        table = counts.setdefault(key, {})
                        table[str(item)] = table.get(str(item), 0) + 1
        finally:
            self.task = current
        return counts

    @classmethod
    def summarize_episodes(cls, records: list[dict[str, Any]]) -> dict[str, Any]:
        """Benchmark-specific aggregates over episode records (``mmenvs eval`` merges them into
        summary.json). Return ``{"tables": {title: {row: {column: number}}}}`` for tables to print;
        each record holds ``task_meta`` and the final step's ``final_info``."""
        return {}

    # ------------------------------------------------------------------ the contract
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"task_id", "task"}
        if unknown:
            raise ValueError(f"reset(options=…): unknown keys {sorted(unknown)}; expected 'task_id' or 'task'")
        if "task_id" in options and "task" in options:
            raise ValueError("reset(options=…): give either 'task_id' or 'task', not both")
        if "task_id" in options:
            task = self.load_task(str(options["task_id"]))
        elif "task" in options:
            task = self.task_from_spec(options["task"])
        else:
            task = self.sample_task(self.np_random)
        self.task = task
        self.images = ImageStore(max_raw_bytes=self.image_memory_budget, budget=self.budget)
        self.steps = 0
        self._paid = 0.0
        self._paid_parts = {}
        self._ended = False
        if self._sandbox is not None:  # the last episode's variables and files are gone before setup runs
            self._sandbox.reset()
        text = self.begin(task)
        self._evaluation = self.evaluate()
        observation = self._observation(text)
        info = self._info(new_images=self.images.ids(), error=None, step_info={})
        info["task_meta"] = self.task_metadata()
        return observation, info

    def step(self, action: str | dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.task is None:
            raise RuntimeError(f"{type(self).__name__}.step() called before reset()")
        if self._ended:
            message = "The episode is over: call reset() to start a new one."
            observation = self._safe_observation([], f"Error: {message}")
            info = self._info(new_images=[], error=message, step_info={}, error_kind="episode_over")
            info["reward_components"] = {}
            return observation, 0.0, True, False, info
        self.steps += 1
        images_before = len(self.images)
        error: str | None = None
        error_kind: str | None = None
        # Every phase of the step runs through _run_phase: an internal error ends at most this step.
        faults: list[InternalFault] = []
        try:
            outcome = self._run_phase(faults, ACT_PHASE, lambda: self._act_within_budget(action), ActionOutcome)
        except ActionError as exc:
            error, error_kind = str(exc), exc.kind
            outcome = ActionOutcome(text=f"Error: {error}")
        if error is None and outcome.error:
            error, error_kind = outcome.error, outcome.error_kind or "failed"
        terminated = bool(outcome.terminated)
        truncated = not terminated and self._run_phase(faults, "checking the step budget", self.budget_exhausted, lambda: True)
        evaluated = False
        if terminated or truncated or self.cheap_evaluation or self.reward_mode == "progress":
            self._evaluation = self._run_phase(faults, "scoring the state", self.evaluate, lambda: self._evaluation)
            evaluated = True
        text = outcome.text
        if faults:
            text = self._with_faults(text, faults)
        observation = self._safe_observation(faults, text)
        if any(fault.recovery is None for fault in faults) and not (terminated or truncated):
            truncated = True  # the env could not recover: the episode ends here, scored as it stands
            if not evaluated:
                self._evaluation = self._run_phase(faults, "scoring the state", self.evaluate, lambda: self._evaluation)
        ended = terminated or truncated
        parts = self._run_phase(faults, "scoring the state", self.reward_components, lambda: {"score": float(self._evaluation.score)})
        if self.reward_mode == "progress" or ended:
            shares = {name: float(value) - self._paid_parts.get(name, 0.0) for name, value in parts.items()}
            shares.update({name: -paid for name, paid in self._paid_parts.items() if name not in parts})
        else:
            shares = {name: 0.0 for name in parts}
        reward = next(iter(shares.values())) if len(shares) == 1 else float(sum(shares.values()))  # one part: exactly the score's change
        for name, share in shares.items():
            self._paid_parts[name] = self._paid_parts.get(name, 0.0) + share
        self._paid += reward
        self._ended = ended
        if faults:
            described = " ".join(fault.describe() for fault in faults)
            error, error_kind = (f"{error} {described}" if error else described), "internal"
        info = self._info(new_images=self.images.ids_since(images_before), error=error, step_info=outcome.info, error_kind=error_kind)
        info["reward_components"] = shares
        if faults:
            info["internal_error"] = [{"phase": f.phase, "error": f.error, "recovery": f.recovery} for f in faults]
        return observation, float(reward), terminated, truncated, info

    # ------------------------------------------------------------------ internal errors
    def _run_phase(self, faults: list[InternalFault], phase: str, run: Callable[[], Any], fallback: Callable[[], Any]) -> Any:
        """``run()``; if it raises an internal error (anything but ``ActionError`` and ``ContractError``),
        record it in ``faults``, let the env ``recover``, and return ``fallback()`` instead."""
        try:
            return run()
        except (ActionError, ContractError):
            raise
        except Exception as exc:  # a bug or an unforeseen input: report it, keep the process alive
            faults.append(self._fault(phase, exc))
            return fallback()

    def _fault(self, phase: str, exc: Exception) -> InternalFault:
        """Record an internal error: warn with its traceback (for the env's developers) and recover."""
        warnings.warn(f"{type(self).__name__}: internal error while {phase}:\n{traceback.format_exc()}", RuntimeWarning, stacklevel=3)
        try:
            recovery = self.recover(phase, exc)
        except Exception:  # noqa: BLE001 - a failed repair ends the episode instead
            warnings.warn(f"{type(self).__name__}.recover failed:\n{traceback.format_exc()}", RuntimeWarning, stacklevel=3)
            recovery = None
        return InternalFault(phase, _error_text(exc), recovery)

    #: How often the observation is built again after a failure (each time after a recovery).
    OBSERVATION_ATTEMPTS = 3

    def _safe_observation(self, faults: list[InternalFault], text: str) -> dict[str, Any]:
        """This step's observation; when building it fails, the env recovers and it is built again
        (up to ``OBSERVATION_ATTEMPTS`` times); a blank one (the text and the faults, no image) stands
        in when it keeps failing, and the last fault is then marked unrecoverable."""
        new: list[InternalFault] = []
        for _ in range(self.OBSERVATION_ATTEMPTS):
            try:
                media = self._observation_media()
                break
            except ContractError:
                raise
            except Exception as exc:  # noqa: BLE001 - see _run_phase
                new.append(self._fault("building the observation", exc))
                if new[-1].recovery is None:
                    media = self._blank_observation_media()
                    break
        else:
            new[-1].recovery = None
            media = self._blank_observation_media()
        if new:
            faults.extend(new)
            text = self._with_faults(text, new)
        return {"text": observation_text(text, self.text_max_length), **media}

    @staticmethod
    def _with_faults(text: str, faults: list[InternalFault]) -> str:
        notes = "\n".join(f"Error: {fault.describe()}" for fault in faults)
        return f"{text}\n{notes}" if text else notes

    def _blank_observation_media(self) -> dict[str, Any]:
        """An observation's non-text keys when they cannot be built: a blank image, empty extras."""
        extra_spaces = {k: v for k, v in self.observation_space.spaces.items() if k not in ("text", "image")}
        return {"image": letterbox(None, self.obs_size), **{key: _empty_value(space) for key, space in extra_spaces.items()}}

    def _act_within_budget(self, action: str | dict[str, Any]) -> ActionOutcome:
        """``act(action)`` after the action-size check, under the action's host deadline."""
        check_action_size(action, self.budget)  # before act parses anything
        with deadline_scope(self.host_deadline()):  # host tools find the action's deadline here
            return self.act(action)

    def host_deadline(self, what: str = "this action") -> Deadline:
        """A fresh deadline for the host work of one action: the sandbox's run timeout when the
        benchmark or the ``sandbox_options`` kwarg set one, else ``budget.action_timeout`` (host tools
        get the same deadline as sandboxed code)."""
        options = {**self.sandbox_defaults(), **self.sandbox_options}
        return Deadline(float(options.get("timeout", self.budget.action_timeout)), what)

    def budget_exhausted(self) -> bool:
        """Whether the step cap is reached (benchmarks that count messages or calls override this)."""
        return self.steps >= self.max_steps

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        current = self.frame()
        return letterbox(None, self.obs_size) if current is None else to_rgb(current).copy()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.shutdown()
        finally:
            if self._sandbox is not None:
                self._sandbox.close()
                self._sandbox = None
        super().close()

    # ------------------------------------------------------------------ helpers
    @property
    def evaluation(self) -> Evaluation:
        """The most recent evaluation of the current episode."""
        return self._evaluation

    def _observation(self, text: str) -> dict[str, Any]:
        return {"text": observation_text(text, self.text_max_length), **self._observation_media()}

    def _observation_media(self) -> dict[str, Any]:
        """The observation's image and extra keys; text values (the text spaces' keys) are escaped and
        bounded here, the one place every env's observation text passes (``observation_text``)."""
        media = {"image": self.observation_image()}
        extra = self.extra_observation()
        _refuse_clash(type(self).__name__, "extra_observation()", extra, ("text", "image"))
        spaces_by_key = self.observation_space.spaces
        for key, value in extra.items():
            space = spaces_by_key.get(key)
            if isinstance(value, str) and isinstance(space, UnicodeText):
                value = self._escaped_extra(key, value, space.max_length)
            media[key] = value
        return media

    def _escaped_extra(self, key: str, value: str, max_length: int) -> str:
        """``observation_text(value)``, kept while the env hands back the very same string object (an
        unchanged accessibility tree costs nothing on the next step)."""
        cache = self.__dict__.setdefault("_escaped_cache", {})
        hit = cache.get(key)
        if hit is not None and hit[0] is value:
            return hit[1]
        shown = observation_text(value, max_length)
        cache[key] = (value, shown)
        return shown

    def _info(self, *, new_images: list[str], error: str | None, step_info: dict[str, Any], error_kind: str | None = None) -> dict[str, Any]:
        info: dict[str, Any] = {
            "task_id": self.task_id_of(self.task),
            "step": self.steps,
            "score": float(self._evaluation.score),
            "success": bool(self._evaluation.success),
            "action_error": error,
            "action_error_kind": error_kind,
            "images": self.images_new_to_agent(list(new_images)),
        }
        isolation = self.sandbox_in_use()
        if isolation is not None:
            info["sandbox"] = isolation
        details = self.evaluation_info()
        _refuse_clash(type(self).__name__, "the evaluation details", details, STANDARD_INFO_KEYS)
        info.update(details)
        _refuse_clash(type(self).__name__, "the step's ActionOutcome.info", step_info, STANDARD_INFO_KEYS)
        info.update(step_info)
        return info


def check_action_size(action: Any, budget: EpisodeBudget) -> None:
    """Refuse an action longer than ``budget.action_chars`` (``BudgetExceeded``), before it is parsed.
    A string counts its characters; a dict action (a tool call) the characters of its JSON form."""
    if isinstance(action, str):
        size = len(action)
    elif isinstance(action, Mapping):
        size = json_size(action, budget.action_chars)
    else:
        return  # the env's own type check answers other types
    check_limit("action_chars", budget.action_chars, size, f"this action of {size:,} characters")


#: ``info`` keys every env sets itself; a benchmark's evaluation details or step info may not reuse them.
STANDARD_INFO_KEYS = ("task_id", "step", "score", "success", "action_error", "action_error_kind", "images", "sandbox", "task_meta",
                      "internal_error", "reward_components")


def _error_text(exc: BaseException) -> str:
    """``Type: message`` of an exception, its message bounded (it may quote huge agent input)."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a hostile or broken __str__
        message = "(its message could not be read)"
    if len(message) > 500:
        message = message[:500] + f"… [{len(message) - 500} more characters]"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _empty_value(space: spaces.Space) -> Any:
    """A member of ``space`` that says "nothing here": "" for text, zeros (within bounds) for boxes."""
    if isinstance(space, UnicodeText):
        return "" if space.min_length == 0 else " " * space.min_length
    if isinstance(space, spaces.Box):
        return np.clip(np.zeros(space.shape), space.low, space.high).astype(space.dtype)
    if isinstance(space, spaces.Discrete):
        return space.start
    return space.sample()


def _refuse_clash(env_name: str, source: str, values: Mapping[str, Any], standard: tuple[str, ...]) -> None:
    clash = sorted(set(values) & set(standard))
    if clash:
        raise ContractError(f"{env_name}: {source} set the standard key(s) {clash}, which MMEnv owns; "
                           "use the benchmark hooks (images_new_to_agent, evaluation_info, observation_image) or another key name")


def _checked_sandbox_options(env_name: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``sandbox_options`` kwarg, checked against ``PythonSandbox``'s keyword arguments up front."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"{env_name}: sandbox_options must be a dict of PythonSandbox keyword arguments, got {type(options).__name__}")
    options = dict(options)
    if options:
        import inspect

        from mmenvs.sandbox import PythonSandbox

        accepted = set(inspect.signature(PythonSandbox.__init__).parameters) - {"self", "tools", "preload"}
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise ValueError(f"{env_name}: sandbox_options has unknown keys {unknown}; PythonSandbox accepts {sorted(accepted)} "
                             "(tools and preload come from the env)")
    return options
