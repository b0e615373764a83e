"""VTCBench-v0: answer a question about an image by chaining OpenCV tools."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from mmenvs.core import ActionError, ActionOutcome, Evaluation, ImageNotFound, MMEnv, extract_answer, extract_code, load_json, parse_tool_call
from mmenvs.core.actions import check_argument_sizes, clip_for_log, json_size
from mmenvs.core.families import allowed_values, check_task_filter, matches

from .generators import CATEGORIES, GENERATORS, generate, sample_problem, train_params
from .problems import LETTERS, TABLE_ORDER, Problem, answer_from_value, evaluate_expr, load_suite, load_tsv, problem_from_dict, problem_image, resolve_arguments
from .scoring import aggregate, chain_metrics, effective_calls, is_correct, per_category, tool_usage
from .tools import TOOLS, ToolCallResult, ToolError, call_tool, tool_specs

MODES = ("tool", "code")
_IMAGE_ID = re.compile(r"\bimg_\d+\b")
_TRAIN_ID = re.compile(r"^train_([a-z_]+)_(\d+)$")
#: Parent ids one save_image call may name.
MAX_PARENTS = 64
_SUITES: dict[str, list[Problem]] = {}  # parsed suite files, shared by the envs of one process
#: The answer types each generator makes (``task_filter={"answer_type": ...}`` picks generators by it;
#: counting alternates open/choice by seed parity, see ``generators.train_params``).
ANSWER_TYPES: dict[str, tuple[str, ...]] = {name: ("open",) if name in ("ocr", "attention_focusing") else
                                            ("open", "choice") if name == "counting" else ("choice",) for name in CATEGORIES}


def _suite(path: str | None, image_root: str | None = None) -> list[Problem]:
    key = f"{path or '<pinned>'}|{image_root or ''}"
    if key not in _SUITES:
        _SUITES[key] = load_suite(path, image_root=image_root)
    return _SUITES[key]


#: The tool list both modes show (built once from the tool declarations).
TOOL_SIGNATURES = "\n".join(spec.signature() for spec in TOOLS.values())
#: The answer format when the task is not known (``action_description()``); a reset names the task's.
GENERIC_ANSWER_FORM = "the option letter for a multiple-choice question, else the value or text only"


def describe_actions(mode: str, answer_form: str = GENERIC_ANSWER_FORM) -> str:
    """The action grammar of ``mode`` as prompt text, from the tool declarations: what every reset
    shows (with the task's ``answer_form``) and what ``action_description()`` returns."""
    if mode == "tool":
        grammar = ('Call one tool per message as JSON: {"name": "<tool>", "arguments": {"image": "img_0", ...}}. '
                   "Each call makes a new image id (img_1, img_2, …) and reports numbers.\nTools:\n" + TOOL_SIGNATURES)
    elif mode == "code":
        grammar = ("Send one ```python block per message. numpy (np) and cv2 are available, images are RGB uint8 arrays. "
                   "Helpers: load_image(id) -> array; save_image(array, parents=[ids], op='...') -> new id; and every tool "
                   "as tool_name(image='img_0', **params) -> dict with the new 'image' id and numbers. Tools (keyword "
                   "parameters, defaults in JSON spelling):\n" + TOOL_SIGNATURES)
    else:
        raise ValueError(f"VTCBench-v0: mode must be one of {MODES}, got {mode!r}")
    return (f"{grammar}\nWhen you are done, reply <answer>…</answer> ({answer_form}); "
            "you may name the image ids your answer relies on before the tag.")


@dataclass
class VTCEpisode:
    """What one episode has done so far (made fresh at every reset)."""

    calls: list[dict[str, Any]] = field(default_factory=list)  # the tool-call log (failed calls of real tools too)
    results: list[ToolCallResult] = field(default_factory=list)  # successful calls, in order (the oracle's cursor)
    answer: str | None = None
    relied_on: list[str] = field(default_factory=list)  # image ids the answering action named
    logged_chars: int = 0  # what the call log holds, against budget.logged_chars

    def log_call(self, entry: dict[str, Any], limit: int) -> None:
        """Append a call-log entry, clipped (long arguments and errors cut); once the log holds ``limit``
        characters, later entries keep only the tool, inputs, output and outcome."""
        entry = {key: clip_for_log(value) for key, value in entry.items()}
        size = json_size(entry)
        if self.logged_chars + size > limit:
            entry = {**{k: entry.get(k) for k in ("tool", "inputs", "output", "ok")}, "params": {},
                     "not_logged": f"the call log reached the episode budget logged_chars={limit:,}"}
            size = json_size(entry)
        self.logged_chars += size
        self.calls.append(entry)


class VTCBenchEnv(MMEnv):
    """Answer a visual question by chaining image tools (VTC-Bench).

    ## Description
    Each task is an image and a question from one of the paper's nine categories (robust OCR,
    perceptual restoration, attention focusing, measurement, colour, counting, chart, math, spatial).
    The images are degraded (noise, low light, haze, blur, rotation, flips, overexposure, touching
    objects) so that the answer needs tools: the agent calls the 34 OpenCV tools of
    ``mmenvs.vtc.tool_catalog()`` (the paper's 33 public operations plus ``sharpen``), reads their
    output images and numbers, and answers.

    ## Observation Space
    ``Dict(text=UnicodeText, image=Box(0, 255, (H, W, 3), uint8))``. At reset the text holds the
    question, its lettered options and the tool signatures; after a call, one line
    ``img_k = tool(inputs): {numbers}``; after an error, the error. The image is the newest image of
    the episode (the input at reset, then each tool output), letterboxed to ``obs_size``.

    ## Action Space
    A string. ``mode="tool"``: one JSON call ``{"name": "crop", "arguments": {"image": "img_0", "x": 0, ...}}``
    (also inside ``<tool_call>`` tags or a ```json fence), or the answer ``<answer>B</answer>``.
    ``mode="code"``: one fenced Python block run in the sandbox with numpy and cv2; the functions
    ``load_image(id)``, ``save_image(array, parents=[ids], op="...")`` and every tool as
    ``tool_name(image="img_0", **params) -> dict`` (the dict holds the new ``image`` id and the numbers).
    The answer ends the episode; text before it may name the image ids it relied on. Dicts
    ``{"name":..., "arguments":...}``, ``{"code": ...}`` and ``{"answer": ...}`` are accepted too.

    ## Rewards
    1.0 for a correct answer (choice letter or option text; open answers normalised, see
    ``mmenvs.vtc.scoring``), else 0.0, paid at the end (``reward_mode="final"``) or as the change in
    score (``"progress"``: the same single payment, since only the answer changes the score).

    ## Starting State
    ``suite="pinned"`` (default): one of the 680 problems of ``registry/vtc/suite.jsonl`` (paper's
    category counts), images regenerated from their seeds. ``suite="train"``: a fresh problem from
    the generators for every reset (drawn with ``np_random``). ``suite=<path.jsonl>`` or ``<path.tsv>``
    (official format, images from ``image_dir``). ``options={"task_id": ...}`` or ``{"task": dict|path}``.

    ## Episode End
    Terminated by an answer; truncated after ``max_steps`` (20) actions. ``info`` always holds the
    tool-call log (``tool_calls``: tool, params, inputs, output, ok), the ``effective_chain`` (call
    indices whose outputs lie on the lineage of the image the answer relied on: the ids named in the
    answering action, else the newest image) and ``chain_metrics`` (L_T, L_e, L_G, absolute errors).

    ## Arguments
    ``mode`` ("tool" | "code"), ``suite``, ``image_dir`` (for TSV suites), ``task_filter`` (a family:
    ``{"category": ..., "answer_type": "open" | "choice"}``, see ``mmenvs.core.families``; with
    ``suite="train"`` the generators of the family are drawn directly, by the suite's category
    weights), ``categories`` (the older spelling of a category filter), ``image_root`` (a folder of your own that task files' ``image_path`` may name; by default
    only the registry), ``obs_size``, ``reward_mode``, ``render_mode``, ``max_steps``, ``sandbox_options``
    (keyword arguments for ``PythonSandbox`` in code mode), ``budget`` (the episode's host-side limits,
    ``mmenvs.core.budget.EpisodeBudget`` fields).

    ## Examples
    >>> import gymnasium as gym, mmenvs
    >>> env = gym.make("VTCBench-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step('{"name": "colorspace", "arguments": {"image": "img_0", "target": "gray"}}')
    """

    max_steps = 20

    def __init__(self, *, mode: str = "tool", suite: str = "pinned", image_dir: str | None = None, categories: list[str] | None = None,
                 image_root: str | None = None, task_filter: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if mode not in MODES:
            raise ValueError(f"VTCBench-v0: mode must be one of {MODES}, got {mode!r}")
        if categories is not None:
            unknown = sorted(set(categories) - set(CATEGORIES))
            if unknown:
                raise ValueError(f"VTCBench-v0: unknown categories {unknown}; known: {', '.join(CATEGORIES)}")
        super().__init__(**kwargs)
        self.mode = mode
        self.suite = suite
        self.categories = list(categories) if categories else None
        self.task_filter = check_task_filter("VTCBench-v0", task_filter, {"category": list(CATEGORIES), "answer_type": ("open", "choice")})
        if self.categories is not None:
            self.task_filter["category"] = [c for c in self.task_filter.get("category", self.categories) if c in self.categories]
        #: A folder of the user's own whose images tasks may name (besides the registry).
        self.image_root = None if image_root is None else str(image_root)
        if suite == "train":
            self._problems: dict[str, Problem] = {}
        elif suite == "pinned" or str(suite).endswith(".jsonl"):
            problems = _suite(None if suite == "pinned" else str(suite), self.image_root)
            self._problems = {p.id: p for p in problems if self._in_family(p)}
        elif str(suite).endswith(".tsv"):
            self._problems = {p.id: p for p in load_tsv(suite, image_dir) if self._in_family(p)}
        else:
            raise ValueError(f"VTCBench-v0: suite must be 'pinned', 'train', a .jsonl or a .tsv path, got {suite!r}")
        self.episode = VTCEpisode()
        self._loaded_this_run: list[str] = []  # ids the running code block loaded (save_image's default parents)

        self._generators = self._family_generators()

    def _in_family(self, problem: Problem) -> bool:
        return matches({"category": problem.category, "answer_type": problem.answer_type}, self.task_filter)

    def _family_generators(self) -> list[tuple[str, tuple[str, ...]]]:
        """The generators of the family, each with the answer types it may make for it."""
        generators = []
        for name in allowed_values(self.task_filter["category"], CATEGORIES) if "category" in self.task_filter else list(CATEGORIES):
            types = tuple(allowed_values(self.task_filter["answer_type"], ANSWER_TYPES[name])) if "answer_type" in self.task_filter \
                else ANSWER_TYPES[name]
            if types:
                generators.append((name, types))
        if not generators:
            raise ValueError(f"VTCBench-v0: task_filter {self.task_filter} matches no generator (answer types per category: "
                             f"{ {k: list(v) for k, v in ANSWER_TYPES.items()} })")
        return generators

    # ------------------------------------------------------------------ tasks
    def task_ids(self) -> list[str]:
        return list(self._problems)

    def load_task(self, task_id: str) -> Problem:
        if task_id in self._problems:
            return self._problems[task_id]
        match = _TRAIN_ID.match(task_id)
        if match and match.group(1) in GENERATORS:  # training problems are named by generator and seed
            name, seed = match.group(1), int(match.group(2))
            return generate(name, seed, train_params(name, seed), problem_id=task_id)
        sample = ", ".join(list(self._problems)[:5])
        raise ValueError(f"VTCBench-v0: unknown task_id {task_id!r}; suite ids look like {sample or 'train_<category>_<seed>'} …")

    def task_from_spec(self, spec: Mapping[str, Any] | str | Path) -> Problem:
        if isinstance(spec, (str, Path)):
            return problem_from_dict(load_json(spec, "VTC-Bench problem"), str(spec), image_root=self.image_root)
        return problem_from_dict(spec, "inline task", image_root=self.image_root)

    def sample_task(self, rng: np.random.Generator) -> Problem:
        if self.suite == "train":
            if not self.task_filter:
                return sample_problem(rng)
            # the family's generators drawn directly (by the pinned suite's category weights), no rejection
            weights = np.array([CATEGORIES[name] for name, _ in self._generators], dtype=float)
            name, types = self._generators[int(rng.choice(len(self._generators), p=weights / weights.sum()))]
            seed = int(rng.integers(1_000_000, 2**31 - 1))  # pinned seeds are small: never a pinned problem
            if name == "counting" and len(types) == 1:  # train_params: even seeds open, odd seeds choice
                seed += (seed % 2) != (0 if types[0] == "open" else 1)
            return generate(name, seed, train_params(name, seed), problem_id=f"train_{name}_{seed}")
        return super().sample_task(rng)

    def task_metadata(self) -> dict[str, Any]:
        return {"category": self.task.category, "answer_type": self.task.answer_type}

    # ------------------------------------------------------------------ episode
    def begin(self, task: Problem) -> str:
        self.episode = VTCEpisode()
        self.images.add(problem_image(task), op="input")
        if self.mode == "code":
            self.sandbox  # start it now (numpy and cv2 prewarmed), not on the agent's first step
        options = "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(task.choices or []))
        how = ("Answer with the option letter" if task.choices else "Answer with the value or text only")
        question = task.question + (f"\n{options}" if options else "")
        return f"{question}\n\nThe image is img_0. {describe_actions(self.mode, how)}"

    def action_description(self) -> str:
        """The action grammar of this env's mode as prompt text (the same text every reset shows,
        with a generic answer format)."""
        return describe_actions(self.mode)

    def tool_specs(self) -> list[dict[str, Any]]:
        """The 34 tools as OpenAI function-calling specs, from the declarations ``call_tool``
        validates against (a call is accepted as a dict action in either mode)."""
        return tool_specs()

    def act(self, action: str | dict[str, Any]) -> ActionOutcome:
        if isinstance(action, dict):
            if "answer" in action:
                return self._finish(str(action["answer"]), str(action.get("relied_on", "")))
            if "code" in action:
                if self.mode != "code":
                    raise ActionError("wrong_mode", "This env runs in tool mode: send a JSON tool call, not code.")
                return self._run_code(str(action["code"]))
            return self._run_call(parse_tool_call(action, max_argument_chars=self.budget.tool_argument_chars))
        if not isinstance(action, str):
            raise ActionError("bad_action_type", f"Expected a string or a dict, got {type(action).__name__}.")
        answer = extract_answer(action)
        if answer is not None:
            return self._finish(answer, action)
        if self.mode == "code":
            block = extract_code(action)
            if block is None:
                raise ActionError("no_code_or_answer", "No ```python block and no <answer>…</answer> tag found: send one code block, or your answer as <answer>…</answer>.")
            return self._run_code(block.code)
        try:
            call = parse_tool_call(action, max_argument_chars=self.budget.tool_argument_chars)
        except ActionError as exc:
            if exc.kind == "no_tool_call":
                raise ActionError("no_call_or_answer", 'No tool call and no <answer>…</answer> tag found: send one JSON call like '
                                  '{"name": "crop", "arguments": {"image": "img_0", ...}}, or your final answer as <answer>B</answer>.') from None
            raise
        return self._run_call(call)

    def _run_call(self, call: Any) -> ActionOutcome:
        entry: dict[str, Any] = {"tool": call.name, "params": dict(call.arguments), "inputs": [], "output": None, "ok": False}
        try:
            result = call_tool(self.images, call.name, call.arguments)
        except ToolError as exc:
            entry["error"] = str(exc)
            if exc.kind != "unknown_tool":  # an attempted call of a real tool counts towards L_T
                self.episode.log_call(entry, self.budget.logged_chars)
            raise ActionError(exc.kind, str(exc)) from None
        except ActionError as exc:  # over the budget or the deadline: an attempted call too
            entry["error"] = str(exc)
            self.episode.log_call(entry, self.budget.logged_chars)
            raise
        entry.update(params=result.params, inputs=result.inputs, output=result.output, ok=True)
        self.episode.log_call(entry, self.budget.logged_chars)
        self.episode.results.append(result)
        return ActionOutcome(text=result.text(), info={"tool_result": result.numbers})

    def _finish(self, answer: str, context: str) -> ActionOutcome:
        self.episode.answer = answer
        self.episode.relied_on = [i for i in dict.fromkeys(_IMAGE_ID.findall(context)) if i in self.images]
        return ActionOutcome(text=f"Your answer: {answer}", terminated=True)

    def evaluate(self) -> Evaluation:
        problem: Problem = self.task
        correct = is_correct(self.episode.answer, problem.answer, problem.choices)
        relied = self.episode.relied_on or ([self.images.latest()] if self.episode.calls else [])
        effective = effective_calls(self.images, self.episode.calls, [r for r in relied if r is not None])
        metrics = chain_metrics(self.episode.calls, effective, len(problem.reference_chain))
        metrics["category"] = problem.category
        return Evaluation(float(correct), correct, {"answer": self.episode.answer, "correct": correct, "tool_calls": [dict(c) for c in self.episode.calls],
                                                    "effective_chain": effective, "chain_metrics": metrics})

    @classmethod
    def summarize_episodes(cls, records: list[dict[str, Any]]) -> dict[str, Any]:
        """The paper's tables for ``mmenvs eval``: Table 4 (APR by category), Table 5 (TCR, APR, all and
        effective calls, unique tools, MAE, Eff_tool) and the tool-usage distribution (Fig. 6)."""
        episodes = []
        for record in records:
            metrics = (record.get("final_info") or {}).get("chain_metrics")
            if isinstance(metrics, dict):
                category = (record.get("task_meta") or {}).get("category", metrics.get("category"))
                episodes.append({"correct": bool(record.get("success")), "category": category, "chain_metrics": metrics})
        if not episodes:
            return {}
        categories = per_category(episodes)
        table4 = {"APR": {"Overall": categories.pop("overall"), **{short: categories[key] for key, short in TABLE_ORDER if key in categories}}}
        stats = aggregate(episodes)
        table5 = {"all episodes": {"TCR": stats["TCR"], "APR": stats["APR"], "All Avg.T.": stats["avg_calls"], "All Uniq.T.": stats["avg_unique_tools"],
                                   "All MAE": stats["MAE_all"], "Eff. Avg.T.": stats["avg_effective_calls"],
                                   "Eff. Uniq.T.": stats["avg_unique_effective_tools"], "Eff. MAE": stats["MAE_effective"], "Eff. (%)": stats["Eff_tool"]}}
        usage = tool_usage(episodes)
        total = sum(usage.values()) or 1
        table6 = {tool: {"calls": count, "share_%": 100.0 * count / total} for tool, count in usage.most_common()}
        tables = {"VTC-Bench Table 4: APR (%) by category": table4, "VTC-Bench Table 5: tool use": table5}
        if table6:
            tables["VTC-Bench Fig. 6: tool usage"] = table6
        return {"tables": tables, "vtc": stats}

    # ------------------------------------------------------------------ code mode
    def sandbox_defaults(self) -> dict[str, Any]:
        # The code's timeout is the episode budget's action deadline, which the host tools it calls share.
        return {"prewarm": ("numpy", "cv2"), "timeout": self.budget.action_timeout}

    def sandbox_preload(self) -> str:
        return "import numpy as np\nimport cv2\n"

    def sandbox_tools(self) -> dict[str, Any]:
        """``load_image``, ``save_image`` and every tool as a function of image ids (see Action Space)."""
        loaded = self._loaded_this_run


        def load_image(image_id: str) -> np.ndarray:
            try:
                array = self.images.get(str(image_id))
            except ImageNotFound as exc:
                raise ValueError(str(exc)) from None
            loaded.append(str(image_id))
            return np.array(array)

        def save_image(array: Any, parents: list[str] | None = None, op: str = "code") -> str:
            array = np.asarray(array)
            if parents is not None and (not isinstance(parents, (list, tuple)) or len(parents) > MAX_PARENTS
                                        or not all(isinstance(p, str) for p in parents)):
                raise ValueError(f"save_image: parents must be a list of at most {MAX_PARENTS} image ids like 'img_0'")
            try:
                if not (array.ndim == 2 or (array.ndim == 3 and array.shape[2] in (1, 3, 4))):
                    raise ValueError(f"save_image: expected an H×W, H×W×1, H×W×3 or H×W×4 array, got shape {array.shape}")
                # the budget is checked before any conversion copies the array
                self.images.check_new(int(array.shape[1]), int(array.shape[0]), "save_image's array")
                if array.dtype != np.uint8:
                    array = np.clip(array, 0, 255).astype(np.uint8)
            except (TypeError, ValueError) as exc:
                raise ValueError(str(exc)) from None
            parent_ids = list(dict.fromkeys(parents if parents is not None else loaded))  # default: what this block loaded
            try:
                new_id = self.images.add(array, parents=parent_ids, op=str(op)[:64], meta={"tool": "save_image"})
            except (ImageNotFound, ValueError) as exc:
                raise ValueError(str(exc)) from None
            self.episode.log_call({"tool": "save_image", "params": {"op": str(op)[:64]}, "inputs": parent_ids, "output": new_id, "ok": True},
                                  self.budget.logged_chars)
            return new_id

        tools: dict[str, Any] = {"load_image": load_image, "save_image": save_image}
        for name in TOOLS:
            tools[name] = self._code_tool(name)
        return tools

    def _code_tool(self, name: str) -> Any:
        def run(image: str = "img_0", **params: Any) -> dict[str, Any]:
            try:  # sized before an array argument becomes a (ten times larger) list
                check_argument_sizes(name, params, self.budget.tool_argument_chars)
            except ActionError as exc:
                raise ValueError(str(exc)) from None
            params = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in params.items()}
            entry: dict[str, Any] = {"tool": name, "params": dict(params), "inputs": [image], "output": None, "ok": False}
            try:
                result = call_tool(self.images, name, {"image": image, **params})
            except ActionError as exc:  # a refused call, or one over the budget or the deadline
                entry["error"] = str(exc)
                self.episode.log_call(entry, self.budget.logged_chars)
                raise ValueError(str(exc)) from None
            entry.update(params=result.params, inputs=result.inputs, output=result.output, ok=True)
            self.episode.log_call(entry, self.budget.logged_chars)
            self.episode.results.append(result)
            return {"image": result.output, **result.numbers}

        run.__name__ = name
        run.__doc__ = TOOLS[name].description
        return run

    def _run_code(self, code: str) -> ActionOutcome:
        self._loaded_this_run.clear()
        result = self.sandbox.run(code)
        info = {"code_error_kind": result.error_kind, "sandbox_restarted": result.restarted}
        return ActionOutcome(text=result.text, info=info)

    # ------------------------------------------------------------------ agents
    def oracle_action(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        """Replay the reference chain one call per step, then answer from the chain's numbers."""
        problem: Problem = self.task
        chain = problem.reference_chain
        done = self.episode.results
        on_track = len(done) <= len(chain) and all(r.tool == s["tool"] for r, s in zip(done, chain))
        if problem.readout.get("kind") == "none" or not on_track:
            return f"<answer>{problem.answer}</answer>"  # nothing to execute (TSV problem) or the log left the chain
        k = len(done)
        if k < len(chain):
            arguments = resolve_arguments(chain[k].get("arguments", {}), done, "img_0", f"reference_chain[{k}]")
            call = {"name": chain[k]["tool"], "arguments": arguments}
            if self.mode == "code":
                args = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
                return f"```python\nresult = {chain[k]['tool']}({args})\nresult\n```"
            return json.dumps(call)
        if problem.readout["kind"] == "visual":
            return f"Read from {done[-1].output}: <answer>{problem.answer}</answer>"  # the answer is read by eye from the final image
        value = evaluate_expr(problem.readout["expr"], done)
        steps = sorted({int(m) for m in re.findall(r"\$(\d+)", problem.readout["expr"])})
        relied = " and ".join(done[i].output for i in steps)
        answer = answer_from_value(problem, value)
        return f"From {relied}: <answer>{answer}</answer>"

    def random_action(self, rng: np.random.Generator) -> str:
        """A random tool call with plausible parameters on a known image (80%), else a random answer."""
        problem: Problem = self.task
        if rng.random() < 0.2:
            if problem.choices:
                return f"<answer>{LETTERS[int(rng.integers(len(problem.choices)))]}</answer>"
            return f"<answer>{int(rng.integers(0, 20))}</answer>"
        name = list(TOOLS)[int(rng.integers(len(TOOLS)))]
        image_id = self.images.ids()[int(rng.integers(len(self.images)))]
        height, width = self.images.get(image_id).shape[:2]
        arguments: dict[str, Any] = {"image": image_id}
        for param in TOOLS[name].params:
            value = _random_value(param, rng, width, height, self.images.ids())
            if value is not _SKIP:
                arguments[param.name] = value
        if self.mode == "code":
            args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
            return f"```python\n{name}({args})\n```"
        return json.dumps({"name": name, "arguments": arguments})


_SKIP = object()


def _random_value(param: Any, rng: np.random.Generator, width: int, height: int, ids: list[str]) -> Any:
    """A plausible value for ``param`` on a ``width``×``height`` image (or _SKIP to use the default)."""
    if not param.required and param.kind not in ("box",) and rng.random() < 0.5:
        return _SKIP
    if param.kind == "box":
        w, h = int(rng.integers(1, width + 1)), int(rng.integers(1, height + 1))
        return [int(rng.integers(0, width - w + 1)), int(rng.integers(0, height - h + 1)), w, h]
    if param.nullable and param.default is None:  # optional alternatives (crop's x/y/width/height next to box, …)
        return _SKIP
    if param.kind == "point":
        return [float(rng.integers(0, width)), float(rng.integers(0, height))]
    if param.kind == "color":
        return [int(v) for v in rng.integers(0, 256, size=3)]
    if param.kind == "image":
        return ids[int(rng.integers(len(ids)))]
    if param.kind == "boolean":
        return bool(rng.random() < 0.5)
    if param.kind == "string":
        return str(param.choices[int(rng.integers(len(param.choices)))]) if param.choices else "x"
    low = param.minimum if param.minimum is not None else 0
    high = param.maximum if param.maximum is not None else 255
    if param.name in ("x",):
        high = width - 1
    if param.name in ("y",):
        high = height - 1
    high = min(high, low + 100)
    if param.kind == "integer":
        value = int(rng.integers(int(low), int(high) + 1))
        if param.odd and value % 2 == 0:
            value = value + 1 if value + 1 <= (param.maximum or value + 1) else value - 1
        return value
    return round(float(rng.uniform(low, high)), 2)
