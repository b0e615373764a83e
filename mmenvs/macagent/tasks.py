"""MacAgent task files: the format, its validation, variant expansion and the setup steps.

A task file is JSON data (never Python). A *seed* task declares ``params``; expansion substitutes
``{{name}}`` placeholders everywhere (setup, instruction, checkpoints, reference solution) and picks
one of several instruction templates, giving the four benchmark variants of MacAgentBench §3.3, or a
freshly sampled training variant (``suite="train"``). See ``docs/macagent.md`` for a commented example.

Fields of a seed task::

    id                  str, unique in the suite ([a-z0-9_-]+)
    instruction         str or list of str (instruction templates; variant k uses template k mod n)
    category            Productivity | System | Internet | Development | Multimedia | Multi-App
    apps                list of app names the task's platform offers (apps_catalog.APPS_BY_PLATFORM)
    platform            optional "macos" (default) | "linux": the guest the task needs (Linux: the VM backend's
                        test guest, apps bash/xterm/xedit; the sim and macOS guests run macos tasks)
    reference_time      "YYYY-MM-DDTHH:MM[:SS]": the desktop clock at reset
    setup               ordered steps: {"type": "shell", "command"} | {"type": "applescript", "script"}
                        | {"type": "file", "path", "content" | "generator": {"name", "args"}}
                        | {"type": "open_app", "app"}
    checkpoints         [{"name", "tag", "getter", "metric"}]  (see checkpoints/)
    reference_solution  list of actions in the env grammar (actions.py), or {"click_element": {…}} /
                        {"drag_element": {…}} steps that name an element by its accessibility name (solutions.py)
    params              {"name": [values…] | {"range": [lo, hi]} | {"template": "…{{other}}…"}}
    web_pages           optional {"url": "html"}: the offline web Safari (and curl) serve for this task
    interaction         optional "gui" | "cli" | "both": checked against the reference solution (an empty
                        reference solution leaves it "both" unless given)
    skills              optional list of the skill CLIs that cover the task (e.g. ["memo"]): task_meta's
                        skill_covered (MacAgentBench Table 4's with/without-skill split)
    notes               optional free text for authors
    metadata            optional object: the authors' own fields, kept as they are (never interpreted)
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from mmenvs.core import ActionError, load_json
from mmenvs.macagent.apps_catalog import APPS, APPS_BY_PLATFORM, PLATFORMS  # the app names a task may list, per platform
from mmenvs.macagent.checkpoints import (
    APPLESCRIPT_OUTPUTS, GETTERS, METRICS, NO_EXPECTED, SHELL_OUTPUTS, TAGS, Checkpoint, GetterContext,
    callable_options, shell_path,
)
from mmenvs.macagent.solutions import element_step_problem, is_element_step

CATEGORIES = ("Productivity", "System", "Internet", "Development", "Multimedia", "Multi-App")
INTERACTIONS = ("gui", "cli", "both")
VARIANTS_PER_SEED = 4
SETUP_TYPES = ("shell", "applescript", "file", "open_app")

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*((?:\|[a-z_]+(?::-?\d+)?)*)\s*\}\}")
_TOP_FIELDS = {
    "id", "instruction", "category", "apps", "reference_time", "setup", "checkpoints", "reference_solution",
    "params", "interaction", "notes", "web_pages", "platform", "skills", "metadata",
}
_REQUIRED_FIELDS = ("id", "instruction", "category", "apps", "reference_time", "checkpoints", "reference_solution")


class TaskFormatError(ValueError):
    """A task file that does not follow the format; the message names the file and the field."""


class TaskSetupError(RuntimeError):
    """A setup step failed on the backend (names the task and the step)."""


# ---------------------------------------------------------------------------------------------- the task
@dataclass(frozen=True)
class MacTask:
    """One concrete task (a variant of a seed, with every placeholder filled in)."""

    id: str
    seed_id: str
    variant: str
    instruction: str
    category: str
    apps: tuple[str, ...]
    reference_time: datetime
    setup: tuple[dict[str, Any], ...]
    checkpoints: tuple[Checkpoint, ...]
    reference_solution: tuple[str | dict[str, Any], ...]
    interaction: str
    params: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    web_pages: dict[str, str] = field(default_factory=dict)
    platform: str = "macos"
    skills: tuple[str, ...] = ()
    author_metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def tags(self) -> list[str]:
        """The capability tags of the task's checkpoints, sorted."""
        return sorted({c.tag for c in self.checkpoints})

    def metadata(self) -> dict[str, Any]:
        """What results are broken down by: category, apps, tags, interaction kind, seed and variant."""
        return {
            "category": self.category,
            "apps": list(self.apps),
            "tags": self.tags,
            "interaction": self.interaction,
            "multi_app": len(self.apps) > 1,
            "skill_covered": bool(self.skills),
            "checkpoints": len(self.checkpoints),
            "seed": self.seed_id,
            "variant": self.variant,
        }


@dataclass(frozen=True)
class SeedTask:
    """A validated seed: its raw data (with placeholders), where it came from and its parameter space."""

    id: str
    data: dict[str, Any]
    source: str

    @property
    def params(self) -> dict[str, Any]:
        """The parameter specs (name -> values list, range or template)."""
        return self.data.get("params", {})

    @property
    def templates(self) -> list[str]:
        """The instruction templates."""
        instruction = self.data["instruction"]
        return [instruction] if isinstance(instruction, str) else list(instruction)

    def variant_ids(self) -> list[str]:
        """Ids of the benchmark variants of this seed."""
        return [f"{self.id}-v{k}" for k in range(VARIANTS_PER_SEED)]

    def variant(self, k: int) -> MacTask:
        """Benchmark variant ``k`` (0…3): value ``k`` of each list parameter, template ``k`` (mod their lengths)."""
        if not 0 <= k < VARIANTS_PER_SEED:
            raise ValueError(f"{self.source}: variant index must be 0..{VARIANTS_PER_SEED - 1}, got {k}")
        values = {}
        for name, spec in self.params.items():
            if isinstance(spec, list):
                values[name] = spec[k % len(spec)]
            elif "range" in spec:
                low, high = spec["range"]
                digest = hashlib.sha256(f"{self.id}/{k}/{name}".encode()).digest()
                values[name] = low + int.from_bytes(digest[:8], "big") % (high - low + 1)
        return build_task(self, values, self.templates[k % len(self.templates)], f"{self.id}-v{k}", f"v{k}")

    def concrete(self, variant: str = "inline") -> MacTask:
        """The seed as one task under its own id (its first template, parameters unfilled): an inline or
        an official task, which has no variants."""
        return build_task(self, {}, self.templates[0], self.id, variant)

    def sample(self, rng: np.random.Generator) -> MacTask:
        """A fresh training variant: every parameter and the template drawn independently with ``rng``."""
        values = {}
        for name, spec in self.params.items():
            if isinstance(spec, list):
                values[name] = spec[int(rng.integers(len(spec)))]
            elif "range" in spec:
                low, high = spec["range"]
                values[name] = int(rng.integers(low, high + 1))
        template = self.templates[int(rng.integers(len(self.templates)))]
        digest = hashlib.sha256(json.dumps([values, template], sort_keys=True).encode()).hexdigest()[:10]
        return build_task(self, values, template, f"{self.id}-t{digest}", "train")


# ---------------------------------------------------------------------------------------------- substitution
def _filter(value: Any, name: str, arg: int | None) -> Any:
    if name == "lower":
        return str(value).lower()
    if name == "upper":
        return str(value).upper()
    if name == "title":
        return str(value).title()
    if name == "slug":
        return re.sub(r"[^a-z0-9]+", "_", str(value).lower()).strip("_")
    if name == "shell":
        return shlex.quote(str(value))
    if name == "applescript":
        if isinstance(value, list):  # a list becomes an AppleScript list of strings: {"a", "b"}
            return "{" + ", ".join(_filter(item, "applescript", None) for item in value) + "}"
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if name == "json":
        return json.dumps(value)
    if name == "len":
        return len(value)
    if name == "join":
        if not isinstance(value, list):
            raise TypeError("join needs a list")
        return "\n".join(str(v) for v in value)
    if name == "add":
        return int(value) + int(arg or 0)
    raise KeyError(name)


FILTERS = ("lower", "upper", "title", "slug", "shell", "applescript", "json", "len", "join", "add")


def _resolve(match: re.Match[str], values: Mapping[str, Any], where: str) -> Any:
    name, attr, filters = match.group(1), match.group(2), match.group(3)
    if name not in values:
        raise TaskFormatError(f"{where}: placeholder {{{{{name}}}}} names no parameter; declared: {sorted(values) or 'none'}")
    value = values[name]
    if attr:
        key = attr[1:]
        if not isinstance(value, dict) or key not in value:
            raise TaskFormatError(f"{where}: placeholder {match.group(0)} asks for field {key!r} of parameter {name!r}, which has none")
        value = value[key]
    for piece in filter(None, filters.split("|")):
        fname, _, arg = piece.partition(":")
        if fname not in FILTERS:
            raise TaskFormatError(f"{where}: unknown filter {fname!r} in {match.group(0)}; known: {', '.join(FILTERS)}")
        try:
            value = _filter(value, fname, int(arg) if arg else None)
        except (TypeError, ValueError) as exc:
            raise TaskFormatError(f"{where}: filter {fname!r} cannot apply to {value!r} ({exc})") from None
    return value


def substitute(node: Any, values: Mapping[str, Any], where: str = "task") -> Any:
    """Fill ``{{name}}``, ``{{name.field}}`` and ``{{name|filter}}`` placeholders in every string of ``node``.

    A string that is exactly one placeholder takes the parameter's value with its type (a number stays
    a number); inside longer text values are formatted with ``str``.
    """
    if isinstance(node, str):
        whole = _PLACEHOLDER.fullmatch(node.strip())
        if whole and node.strip() == node:
            return _resolve(whole, values, where)
        return _PLACEHOLDER.sub(lambda m: _text(_resolve(m, values, where)), node)
    if isinstance(node, list):
        return [substitute(item, values, f"{where}[{i}]") for i, item in enumerate(node)]
    if isinstance(node, dict):
        # Keys are text too (e.g. a path -> flag mapping in an expected value).
        return {_text(substitute(key, values, f"{where}.{key}")): substitute(item, values, f"{where}.{key}") for key, item in node.items()}
    return node


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def build_task(seed: SeedTask, values: dict[str, Any], template: str, task_id: str, variant: str) -> MacTask:
    """The concrete task for parameter ``values`` (templates among the params are filled in here)."""
    values = dict(values)
    for name, spec in seed.params.items():
        if isinstance(spec, dict) and "template" in spec:
            values[name] = substitute(spec["template"], values, f"{seed.source}: params.{name}.template")
    data = {k: v for k, v in seed.data.items() if k not in ("params", "id", "instruction")}
    data = substitute(data, values, seed.source)
    data["instruction"] = substitute(template, values, f"{seed.source}: instruction")
    data["id"] = task_id
    shown = {k: v for k, v in values.items()}
    return _concrete(data, seed, variant, shown)


# ---------------------------------------------------------------------------------------------- validation
def _err(source: str, field_path: str, message: str) -> TaskFormatError:
    return TaskFormatError(f"{source}: field {field_path!r}: {message}")


def _need(value: Any, kind: type | tuple[type, ...], source: str, path: str, what: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _err(source, path, f"must be {what}, got {json.dumps(value)[:80] if _jsonable(value) else type(value).__name__}")
    return value


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _check_keys(obj: Mapping[str, Any], allowed: set[str], source: str, path: str) -> None:
    unknown = set(obj) - allowed
    if unknown:
        raise _err(source, path, f"unknown keys {sorted(unknown)}; allowed: {sorted(allowed)}")


def validate_seed(data: Any, source: str) -> SeedTask:
    """Validate a seed task (placeholders and all) and each of its benchmark variants.

    Raises ``TaskFormatError`` naming ``source`` and the field: unknown apps, getters, metrics, tags,
    setup types, placeholders naming no parameter, reference solutions that do not parse, …
    """
    if not isinstance(data, dict):
        raise TaskFormatError(f"{source}: a task must be a JSON object, got {type(data).__name__}")
    _check_keys(data, _TOP_FIELDS, source, "<task>")
    for key in _REQUIRED_FIELDS:
        if key not in data:
            raise _err(source, key, "is required")
    task_id = _need(data["id"], str, source, "id", "a string")
    if not _ID.match(task_id):
        raise _err(source, "id", f"must match {_ID.pattern} (lower-case letters, digits, '-', '_'), got {task_id!r}")
    instruction = data["instruction"]
    templates = [instruction] if isinstance(instruction, str) else instruction
    if not isinstance(templates, list) or not templates or not all(isinstance(t, str) and t.strip() for t in templates):
        raise _err(source, "instruction", "must be a non-empty string or a non-empty list of non-empty strings (templates)")
    params = _need(data.get("params", {}), dict, source, "params", "an object of parameter specs")
    for name, spec in params.items():
        _check_param(name, spec, source)
    seed = SeedTask(task_id, data, source)
    # Expanding every benchmark variant checks placeholders and the concrete values in one go.
    for k in range(VARIANTS_PER_SEED):
        seed.variant(k)
    return seed


def _check_param(name: str, spec: Any, source: str) -> None:
    path = f"params.{name}"
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise _err(source, path, "parameter names are identifiers (letters, digits, '_')")
    if isinstance(spec, list):
        if not spec:
            raise _err(source, path, "a list of values must not be empty")
        if any(isinstance(v, dict) for v in spec):
            keys = {tuple(sorted(v)) if isinstance(v, dict) else None for v in spec}
            if len(keys) != 1 or None in keys:
                raise _err(source, path, "a list of records must hold objects that all have the same fields")
        return
    if isinstance(spec, dict) and set(spec) == {"range"}:
        bounds = spec["range"]
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                and bounds[0] <= bounds[1]):
            raise _err(source, f"{path}.range", f"must be [low, high] integers with low <= high, got {bounds!r}")
        return
    if isinstance(spec, dict) and set(spec) == {"template"} and isinstance(spec["template"], str):
        return
    raise _err(source, path, 'must be a list of values, {"range": [low, high]} or {"template": "…"}')


def _concrete(data: dict[str, Any], seed: SeedTask, variant: str, values: dict[str, Any]) -> MacTask:
    """Validate a task with every placeholder filled and build the ``MacTask``."""
    source = seed.source
    instruction = _need(data["instruction"], str, source, "instruction", "a string")
    category = data["category"]
    if category not in CATEGORIES:
        raise _err(source, "category", f"unknown category {category!r}; expected one of {', '.join(CATEGORIES)}")
    platform = data.get("platform", "macos")
    if platform not in PLATFORMS:
        raise _err(source, "platform", f"unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}")
    known_apps = APPS_BY_PLATFORM[platform]
    apps = _need(data["apps"], list, source, "apps", "a list of app names")
    if not apps:
        raise _err(source, "apps", "must name at least one app")
    for i, app in enumerate(apps):
        if app not in known_apps:
            raise _err(source, f"apps[{i}]", f"unknown app {app!r} for platform {platform!r}; known apps: {', '.join(known_apps)}")
    when = _need(data["reference_time"], str, source, "reference_time", "an ISO date-time string")
    try:
        reference_time = datetime.fromisoformat(when)
    except ValueError:
        raise _err(source, "reference_time", f"must be an ISO date-time like 2026-03-10T09:30:00, got {when!r}") from None
    if reference_time.tzinfo is not None:
        raise _err(source, "reference_time", "must be a local time without a UTC offset")
    setup = [_check_setup(step, source, f"setup[{i}]", known_apps)
             for i, step in enumerate(_need(data.get("setup", []), list, source, "setup", "a list"))]
    raw_checkpoints = _need(data["checkpoints"], list, source, "checkpoints", "a list")
    if not raw_checkpoints:
        raise _err(source, "checkpoints", "a task needs at least one checkpoint")
    checkpoints = [_check_checkpoint(cp, source, f"checkpoints[{i}]") for i, cp in enumerate(raw_checkpoints)]
    names = [c.name for c in checkpoints]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise _err(source, "checkpoints", f"checkpoint names must be unique; repeated: {duplicates}")
    solution = _need(data["reference_solution"], list, source, "reference_solution", "a list of actions")
    kinds = set()
    for i, action in enumerate(solution):
        kinds.add(_solution_kind(action, source, f"reference_solution[{i}]", data["id"]))
    derived = _interaction_of(kinds)
    # An empty (or control-only) solution says nothing about the interaction kind: "both" unless declared.
    declared = data.get("interaction", derived if derived is not None else "both")
    if declared not in INTERACTIONS:
        raise _err(source, "interaction", f"must be one of {', '.join(INTERACTIONS)}, got {declared!r}")
    if derived is not None and declared != derived:
        raise _err(source, "interaction", f"declared {declared!r} but the reference solution is {derived!r}")
    if "notes" in data and not isinstance(data["notes"], str):
        raise _err(source, "notes", "must be a string")
    skills = _need(data.get("skills", []), list, source, "skills", "a list of skill names")
    if not all(isinstance(s, str) and s.strip() for s in skills):
        raise _err(source, "skills", f"must be a list of non-empty skill names (e.g. [\"memo\"]), got {json.dumps(skills)[:80]}")
    author_metadata = _need(data.get("metadata", {}), dict, source, "metadata", "an object of the authors' own fields")
    web_pages = _need(data.get("web_pages", {}), dict, source, "web_pages", 'an object {"url": "html", …}')
    for url, page in web_pages.items():
        if not (url.startswith(("http://", "https://")) and isinstance(page, str)):
            raise _err(source, f"web_pages[{json.dumps(url)}]", "keys must be http(s) URLs and values the page text")
    return MacTask(
        id=data["id"], seed_id=seed.id, variant=variant, instruction=instruction, category=category, apps=tuple(apps),
        reference_time=reference_time, setup=tuple(setup), checkpoints=tuple(checkpoints),
        reference_solution=tuple(solution), interaction=declared, params=values, source=source, web_pages=dict(web_pages),
        platform=platform, skills=tuple(skills), author_metadata=dict(author_metadata),
    )


def _interaction_of(kinds: set[str]) -> str | None:
    gui = bool(kinds & {"python", "computer"})
    cli = bool(kinds & {"bash", "applescript"})
    return "both" if gui and cli else "gui" if gui else "cli" if cli else None


def _solution_kind(action: Any, source: str, path: str, task_id: str) -> str:
    from mmenvs.macagent.actions import parse_action  # actions imports nothing from here; local to keep layers clear

    if not isinstance(action, (str, dict)):
        raise _err(source, path, f"an action must be a string or an object, got {type(action).__name__}")
    if is_element_step(action):
        # A solution-only step: the oracle turns it into a click or drag at the element's place on the screen
        problem = element_step_problem(action)
        if problem is not None:
            where, message = problem
            raise TaskFormatError(f"{source}: task {task_id!r}: field {'.'.join(filter(None, (path, where)))!r}: {message}")
        return "computer"
    try:
        parsed = parse_action(action)
    except ActionError as exc:
        raise _err(source, path, f"not a valid action: {exc}") from None
    if parsed.kind == "python":
        try:
            compile(parsed.code, f"{source}:{path}", "exec")
        except SyntaxError as exc:
            raise _err(source, path, f"python syntax error at line {exc.lineno}: {exc.msg}") from None
    return parsed.kind


def _check_setup(step: Any, source: str, path: str, known_apps: Sequence[str]) -> dict[str, Any]:
    step = _need(step, dict, source, path, "an object")
    kind = step.get("type")
    if kind not in SETUP_TYPES:
        raise _err(source, f"{path}.type", f"unknown setup step type {kind!r}; expected one of {', '.join(SETUP_TYPES)}")
    if kind == "shell":
        _check_keys(step, {"type", "command", "timeout", "tolerate_failure"}, source, path)
        _need(step.get("command"), str, source, f"{path}.command", "a shell command string")
        if "timeout" in step:
            _need(step["timeout"], (int, float), source, f"{path}.timeout", "a number of seconds")
        if "tolerate_failure" in step:
            _need(step["tolerate_failure"], bool, source, f"{path}.tolerate_failure", "true or false")
    elif kind == "applescript":
        _check_keys(step, {"type", "script"}, source, path)
        _need(step.get("script"), str, source, f"{path}.script", "an AppleScript source string")
    elif kind == "open_app":
        _check_keys(step, {"type", "app"}, source, path)
        if step.get("app") not in known_apps:
            raise _err(source, f"{path}.app", f"unknown app {step.get('app')!r}; known apps: {', '.join(known_apps)}")
    else:
        _check_keys(step, {"type", "path", "content", "generator"}, source, path)
        _need(step.get("path"), str, source, f"{path}.path", "a path string (~/… for the home folder)")
        if ("content" in step) == ("generator" in step):
            raise _err(source, path, "a file step needs exactly one of 'content' or 'generator'")
        if "content" in step:
            _need(step["content"], str, source, f"{path}.content", "a string")
        else:
            gen = _need(step["generator"], dict, source, f"{path}.generator", 'an object {"name": …, "args": {…}}')
            _check_keys(gen, {"name", "args"}, source, f"{path}.generator")
            name = gen.get("name")
            if name not in GENERATORS:
                raise _err(source, f"{path}.generator.name", f"unknown generator {name!r}; known: {', '.join(sorted(GENERATORS))}")
            args = _need(gen.get("args", {}), dict, source, f"{path}.generator.args", "an object")
            _check_args(GENERATORS[name], 0, args, source, f"{path}.generator.args", f"generator {name!r}")
    return step


def _check_args(fn: Callable[..., Any], skip: int, args: Mapping[str, Any], source: str, path: str, what: str) -> None:
    names, required = callable_options(fn, skip)
    unknown = set(args) - names
    if unknown:
        raise _err(source, path, f"{what} takes no argument(s) {sorted(unknown)}; it takes {sorted(names) or 'none'}")
    missing = required - set(args)
    if missing:
        raise _err(source, path, f"{what} needs argument(s) {sorted(missing)}")


def _check_checkpoint(cp: Any, source: str, path: str) -> Checkpoint:
    cp = _need(cp, dict, source, path, "an object")
    _check_keys(cp, {"name", "tag", "getter", "metric"}, source, path)
    name = _need(cp.get("name"), str, source, f"{path}.name", "a string")
    if cp.get("tag") not in TAGS:
        raise _err(source, f"{path}.tag", f"unknown tag {cp.get('tag')!r}; expected one of {', '.join(TAGS)}")
    metric_spec = dict(_need(cp.get("metric"), dict, source, f"{path}.metric", "an object with a 'type'"))
    mtype = metric_spec.get("type")
    if mtype not in METRICS:
        raise _err(source, f"{path}.metric.type", f"unknown metric {mtype!r}; known metrics: {', '.join(sorted(METRICS))}")
    getter_spec = cp.get("getter")
    if mtype in ("file_exists", "not_exists") and getter_spec is None:
        # Short form: the metric names the path(s) and the built-in path_exists getter reads them.
        if "path" not in metric_spec:
            raise _err(source, f"{path}.metric", f"a {mtype} checkpoint without a getter needs 'path'")
        target = metric_spec.pop("path")
        if not (isinstance(target, str) or (isinstance(target, list) and target and all(isinstance(p, str) for p in target))):
            raise _err(source, f"{path}.metric.path", "must be a path string or a non-empty list of them")
        getter_spec = {"type": "python", "function": "path_exists", "args": {"path": target}}
    if getter_spec is None:
        raise _err(source, f"{path}.getter", "is required")
    getter_spec = _check_getter(getter_spec, source, f"{path}.getter")
    if mtype == "json_equal" and getter_spec.get("output") == "json":
        metric_spec.setdefault("parse_text", False)  # the getter parsed the JSON already: a string value stays a string
    if mtype in NO_EXPECTED:
        if "expected" in metric_spec:
            raise _err(source, f"{path}.metric.expected", f"metric {mtype!r} takes no 'expected'")
    elif "expected" not in metric_spec:
        raise _err(source, f"{path}.metric.expected", f"metric {mtype!r} needs an 'expected' value")
    options = {k: v for k, v in metric_spec.items() if k not in ("type", "expected")}
    allowed, _ = callable_options(METRICS[mtype], 2)
    unknown = set(options) - allowed
    if unknown:
        raise _err(source, f"{path}.metric", f"metric {mtype!r} takes no option(s) {sorted(unknown)}; its options: {sorted(allowed) or 'none'}")
    if mtype == "regex":
        try:
            re.compile(_need(metric_spec["expected"], str, source, f"{path}.metric.expected", "a regular expression string"))
        except re.error as exc:
            raise _err(source, f"{path}.metric.expected", f"invalid regular expression: {exc}") from None
    if mtype in ("number_close",) and not isinstance(metric_spec["expected"], (int, float)):
        raise _err(source, f"{path}.metric.expected", f"must be a number, got {metric_spec['expected']!r}")
    if mtype == "number_in_range":
        bounds = metric_spec["expected"]
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, (int, float)) for b in bounds)):
            raise _err(source, f"{path}.metric.expected", f"must be [low, high], got {bounds!r}")
    if mtype in ("set_equal", "one_of") and not isinstance(metric_spec["expected"], list):
        raise _err(source, f"{path}.metric.expected", f"metric {mtype!r} needs a list, got {metric_spec['expected']!r}")
    return Checkpoint(name=name, tag=cp["tag"], getter=getter_spec, metric=metric_spec)


def _check_getter(spec: Any, source: str, path: str) -> dict[str, Any]:
    spec = _need(spec, dict, source, path, "an object with a 'type'")
    kind = spec.get("type")
    if kind == "shell":
        _check_keys(spec, {"type", "command", "output"}, source, path)
        _need(spec.get("command"), str, source, f"{path}.command", "a shell command string")
        if spec.get("output", "text") not in SHELL_OUTPUTS:
            raise _err(source, f"{path}.output", f"must be one of {', '.join(SHELL_OUTPUTS)}")
    elif kind == "applescript":
        _check_keys(spec, {"type", "script", "output"}, source, path)
        _need(spec.get("script"), str, source, f"{path}.script", "an AppleScript source string")
        if spec.get("output", "text") not in APPLESCRIPT_OUTPUTS:
            raise _err(source, f"{path}.output", f"must be one of {', '.join(APPLESCRIPT_OUTPUTS)}")
    elif kind == "python":
        _check_keys(spec, {"type", "function", "args"}, source, path)
        function = spec.get("function")
        if function not in GETTERS:
            raise _err(source, f"{path}.function", f"unknown getter {function!r}; the getter library has: {', '.join(sorted(GETTERS))}")
        args = _need(spec.get("args", {}), dict, source, f"{path}.args", "an object")
        _check_args(GETTERS[function], 1, args, source, f"{path}.args", f"getter {function!r}")
    else:
        raise _err(source, f"{path}.type", f"unknown getter type {kind!r}; expected one of shell, applescript, python")
    return dict(spec)


# ---------------------------------------------------------------------------------------------- suites
def load_seed_file(path: str | Path) -> list[SeedTask]:
    """Seeds from one file: a task object, a list of them, or ``{"tasks": [...]}``."""
    data = load_json(path, "MacAgent task file")
    items = data.get("tasks") if isinstance(data, dict) and "tasks" in data else data
    items = items if isinstance(items, list) else [items]
    return [validate_seed(item, f"{path}" + (f"[{i}]" if len(items) > 1 else "")) for i, item in enumerate(items)]


def load_suite(folder: str | Path) -> list[SeedTask]:
    """Every seed under ``folder`` (``*.json``, recursively, in path order); ids must be unique."""
    folder = Path(folder)
    files = [folder] if folder.is_file() else sorted(folder.rglob("*.json"))
    if not files:
        raise TaskFormatError(f"{folder}: no task files (*.json) found")
    seeds: dict[str, SeedTask] = {}
    for path in files:
        for seed in load_seed_file(path):
            if seed.id in seeds:
                raise TaskFormatError(f"{seed.source}: field 'id': {seed.id!r} is already used by {seeds[seed.id].source}")
            seeds[seed.id] = seed
    return list(seeds.values())


def task_from_data(data: Mapping[str, Any], source: str = "inline task") -> MacTask:
    """A concrete task from inline data: a seed without params runs as is; with params, variant 0."""
    seed = validate_seed(dict(data), source)
    if not seed.params and len(seed.templates) == 1:
        return build_task(seed, {}, seed.templates[0], seed.id, "inline")
    return seed.variant(0)


# ---------------------------------------------------------------------------------------------- generators
def _gen_lines(lines: list[Any], trailing_newline: bool = True) -> bytes:
    """Each item on its own line."""
    return ("\n".join(str(line) for line in lines) + ("\n" if trailing_newline else "")).encode()


def _gen_numbered(prefix: str, count: int, start: int = 1) -> bytes:
    """``count`` lines ``<prefix> <n>``."""
    return "".join(f"{prefix} {n}\n" for n in range(start, start + int(count))).encode()


def _gen_shuffled_lines(counts: dict[str, int], seed: int = 0) -> bytes:
    """Each line of ``counts`` repeated its count of times, in a seeded shuffled order (log-like files)."""
    lines = [line for line, n in counts.items() for _ in range(int(n))]
    order = np.random.default_rng(int(seed)).permutation(len(lines))
    return "".join(lines[i] + "\n" for i in order).encode()


def _gen_csv(rows: list[list[Any]], header: list[str] | None = None, delimiter: str = ",") -> bytes:
    """A CSV table (optional header row)."""
    import csv

    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    if header:
        writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()


def _gen_json(value: Any, indent: int = 2) -> bytes:
    """The JSON text of ``value``."""
    return (json.dumps(value, indent=indent, ensure_ascii=False) + "\n").encode()


def _gen_png(width: int, height: int, color: list[int] | str = "#4a90d9", text: str | None = None) -> bytes:
    """A solid-colour PNG, optionally with a line of text."""
    from PIL import Image, ImageDraw

    fill = tuple(color) if isinstance(color, list) else color
    image = Image.new("RGB", (int(width), int(height)), fill)  # type: ignore[arg-type]
    if text:
        ImageDraw.Draw(image).text((8, 8), text, fill=(255, 255, 255))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _gen_bytes(size: int, seed: int = 0) -> bytes:
    """``size`` deterministic pseudo-random bytes."""
    return np.random.default_rng(int(seed)).integers(0, 256, size=int(size), dtype=np.uint8).tobytes()


def _gen_wav(tones: list[dict[str, Any]], sample_rate: int = 22050, channels: int = 1, amplitude: float = 0.5,
             file_type: str = "WAVE") -> bytes:
    """A 16-bit WAVE (``file_type`` "AIFF": AIFF) of tone segments ``{"freq": Hz or [Hz, …], "seconds": s}``."""
    from mmenvs.macagent.formats.audio import tone_wav

    return tone_wav(tones, sample_rate, channels, amplitude, file_type)


#: Content generators for ``{"type": "file", "generator": {"name", "args"}}`` setup steps.
GENERATORS: dict[str, Callable[..., bytes]] = {
    "lines": _gen_lines, "numbered": _gen_numbered, "shuffled_lines": _gen_shuffled_lines, "csv": _gen_csv, "json": _gen_json, "png": _gen_png, "bytes": _gen_bytes,
    "wav": _gen_wav,
}


def file_bytes(step: Mapping[str, Any]) -> bytes:
    """The bytes a ``file`` setup step writes."""
    if "content" in step:
        return step["content"].encode("utf-8")
    generator = step["generator"]
    return GENERATORS[generator["name"]](**generator.get("args", {}))


# ---------------------------------------------------------------------------------------------- setup
def _write_files_command(steps: Sequence[Mapping[str, Any]]) -> str:
    # One shell command writes a run of file steps: base64 keeps any bytes intact through the shell.
    parts = []
    for step in steps:
        target = shell_path(step["path"])
        payload = base64.b64encode(file_bytes(step)).decode()
        parts.append(f'mkdir -p "$(dirname {target})" && printf %s {payload} | base64 -d > {target}')
    return " && ".join(parts)


def run_setup(task: MacTask, ctx: GetterContext) -> list[str]:
    """Carry out the task's setup steps in order on ``ctx.backend`` (consecutive file steps in one shell call).

    Returns the notes of shell steps marked ``tolerate_failure`` that failed (their exit code and output's
    end); any other failing step raises ``TaskSetupError``."""
    steps = list(task.setup)
    notes: list[str] = []
    index = 0
    while index < len(steps):
        step = steps[index]
        where = f"{task.source}: task {task.id!r}, setup[{index}] ({step['type']})"
        if step["type"] == "file":
            run_end = index
            while run_end < len(steps) and steps[run_end]["type"] == "file":
                run_end += 1
            out = ctx.run(_write_files_command(steps[index:run_end]))
            if out.exit_code != 0 or out.timed_out:
                raise TaskSetupError(f"{where}: writing files failed: {out.text.strip()[-400:]}")
            index = run_end
            continue
        try:
            if step["type"] == "shell":
                out = ctx.run(step["command"], timeout=float(step.get("timeout", ctx.shell_timeout)))
                if (out.exit_code != 0 or out.timed_out) and step.get("tolerate_failure"):
                    status = "timed out" if out.timed_out else f"exited with code {out.exit_code}"
                    notes.append(f"setup[{index}] (shell, failure tolerated) {status}: {out.text.strip()[-200:]}")
                elif out.exit_code != 0 or out.timed_out:
                    raise TaskSetupError(f"{where}: command failed: {out.text.strip()[-400:]}")
            elif step["type"] == "applescript":
                ctx.backend.run_applescript(step["script"])
            else:
                ctx.backend.open_app(step["app"])
        except TaskSetupError:
            raise
        except Exception as exc:  # BackendError, AppleScriptError: the task file is at fault, say where
            raise TaskSetupError(f"{where}: {type(exc).__name__}: {exc}") from exc
        index += 1
    return notes
