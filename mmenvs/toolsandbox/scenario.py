"""Scenario files: loading and validation (the format is documented in docs/toolsandbox.md).

Every error is a ``ValueError`` that names the file, the field (as a path such as
``rounds[1].provide[0]``) and what was expected, raised at load time.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from mmenvs.core import load_json, registry_path

from .images import image_file, image_roots, placeholder_images, placeholders_active, render_image
from .ui.decide import UIDecision, parse_decisions
from .ui.schema import ScreenError, validate_screen
from .schema import APPS
from .scoring import ChangeSpec, parse_change_specs
from .world import ToolError, build_template, parse_datetime

FLOW_TYPES = ("aggregate", "compare", "filter", "compute", "validate", "lookup_chain", "cross_reference")
CHALLENGE_TYPES = ("cooperative", "goal_change", "error_correction", "state_mutation")
IMAGE_ARRIVALS = ("upfront", "progressive", "late", "mixed")
_FIELDS = {"id", "description", "reference_time", "initial_entities", "images", "rounds", "expected_changes",
           "reference_solution", "metadata", "max_messages", "task_completion_criteria"}
#: UI scenario files may also name a ``base`` scenario whose fields they inherit (see docs/toolsandbox-ui.md).
_UI_FIELDS = _FIELDS | {"base"}
_PLACEHOLDER = re.compile(r"\{image:([A-Za-z0-9_\-]+)\}")


_pools: dict[int, ThreadPoolExecutor] = {}


def _image_pool() -> ThreadPoolExecutor:
    """This process's image threads (one pool per pid: a forked worker cannot use its parent's threads)."""
    pool = _pools.get(os.getpid())
    if pool is None:
        _pools.clear()
        pool = _pools[os.getpid()] = ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1),
                                                        thread_name_prefix="mmenvs-images")
    return pool


@dataclass(frozen=True)
class Interjection:
    """A scripted user turn inside a round: a correction or a goal change (text, images to send)."""

    text: str
    provide: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """A scripted answer to a clarifying question whose text mentions one of ``keywords``."""

    keywords: tuple[str, ...]
    reply: str


@dataclass(frozen=True)
class Round:
    query: str
    provide: tuple[str, ...] = ()
    instructions: str = ""
    correction: Interjection | None = None
    goal_change: Interjection | None = None
    answers: tuple[Answer, ...] = ()
    #: UI mode: the user's private decisions for screens shown during this round (never shown to the agent).
    ui: tuple[UIDecision, ...] = ()


@dataclass
class Scenario:
    """A validated scenario. Image keys map to store ids ``img_<index>`` in ``images`` order."""

    id: str
    source: str
    description: str
    reference_time: datetime
    initial_entities: dict[str, list[dict[str, Any]]]
    images: dict[str, Any]
    rounds: list[Round]
    expected_changes: list[dict[str, Any]]
    specs: list[ChangeSpec]
    reference_solution: list[dict[str, Any]]
    metadata: dict[str, Any]
    max_messages: int = 100
    task_completion_criteria: str = ""
    _template: bytes | None = field(default=None, repr=False)
    _pixels: list[np.ndarray] | None = field(default=None, repr=False)
    _pixels_are_placeholders: bool = field(default=False, repr=False, compare=False)  # loaded in a placeholder_images block
    _loading: list[Future] | None = field(default=None, repr=False, compare=False)  # images being loaded on the image threads
    _loading_placeholders: bool = field(default=False, repr=False, compare=False)
    #: Per-scenario values an env may reuse across resets (the initial snapshot and evaluation).
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: The folders the scenario's image paths may name files in (the registry, and an opted-in image_root).
    image_roots: tuple[Path, ...] = field(default_factory=image_roots, repr=False, compare=False)

    def image_id(self, key: str) -> str:
        return f"img_{list(self.images).index(key)}"

    def template(self) -> bytes:
        """The serialised initial database (built once per scenario object)."""
        if self._template is None:
            self._template = build_template(self.initial_entities, self.reference_time, self.source)
        return self._template

    def _image_jobs(self) -> list[tuple[Any, str]]:
        return [(spec, f"{self.source}: field 'images.{key}'") for key, spec in self.images.items()]

    def _load_image(self, spec: Any, where: str, placeholders: bool) -> np.ndarray:
        """One image, on whichever thread: a ``placeholder_images`` block is thread-local, so the caller's
        choice travels with the job."""
        if placeholders:
            with placeholder_images():
                return render_image(spec, where, self.image_roots)
        return render_image(spec, where, self.image_roots)

    def start_loading_pixels(self) -> None:
        """Start reading (or drawing) the images on the image threads and return at once: an env calls it
        before it builds the world, so the two overlap. :meth:`pixels` waits for the result (and raises
        any error of an image spec, as it would have)."""
        if self._loading is not None or len(self.images) < 2:  # one image: no thread hop, pixels() loads it
            return
        placeholders = placeholders_active()
        if self._pixels is not None and (placeholders or not self._pixels_are_placeholders):
            return  # already loaded, and good enough here (real pixels, or placeholders in a placeholder block)
        pool = _image_pool()
        self._loading = [pool.submit(self._load_image, spec, where, placeholders) for spec, where in self._image_jobs()]
        self._loading_placeholders = placeholders

    def pixels(self) -> list[np.ndarray]:
        """The scenario's images in ``images`` order (loaded once; read, decoded or drawn side by side:
        all three release the GIL for most of their time). Placeholders loaded inside a
        ``placeholder_images`` block are never returned outside one: the real images are loaded then."""
        placeholders = placeholders_active()
        if self._loading is not None and self._loading_placeholders and not placeholders:
            self._loading = None  # started for a placeholder block: left to finish, its results unused
        if self._loading is not None:
            self._pixels, self._pixels_are_placeholders = self._wait_for_loading(), self._loading_placeholders
        if self._pixels is not None and self._pixels_are_placeholders and not placeholders:
            self._pixels = None
        if self._pixels is None:
            self.start_loading_pixels()
            if self._loading is not None:
                self._pixels = self._wait_for_loading()
            else:
                self._pixels = [self._load_image(spec, where, placeholders) for spec, where in self._image_jobs()]
            self._pixels_are_placeholders = placeholders
        return self._pixels

    @property
    def pixels_are_placeholders(self) -> bool:
        """Whether the images :meth:`pixels` returned last were loaded inside a ``placeholder_images`` block
        (some may be blanks)."""
        return self._pixels_are_placeholders

    def _wait_for_loading(self) -> list[np.ndarray]:
        """The images started by :meth:`start_loading_pixels`, in order (the first error raised, after all finished)."""
        loading, self._loading = self._loading or [], None
        results: list[np.ndarray] = []
        error: BaseException | None = None
        for future in loading:
            try:
                results.append(future.result())
            except BaseException as exc:  # noqa: BLE001 - re-raised below, once every job is done
                error = error or exc
        if error is not None:
            raise error
        return results

    def ui_expectations(self) -> list[dict[str, Any]]:
        """The ``expect`` of every ``show_ui_to_user`` step of the reference solution, in order ({} when none):
        what the user's interaction must contain when the oracle shows that screen."""
        return [dict(step.get("expect", {})) for step in self.reference_solution if step.get("tool") == "show_ui_to_user"]

    def reference_tools(self) -> list[str]:
        return list(dict.fromkeys(step["tool"] for step in self.reference_solution if "tool" in step))


def _fail(source: str, path: str, message: str) -> ValueError:
    return ValueError(f"{source}: field '{path}' {message}")


def _str(data: Mapping[str, Any], key: str, source: str, path: str, *, required: bool = True, default: str = "") -> str:
    if key not in data:
        if required:
            raise _fail(source, f"{path}{key}", "is missing (expected a string)")
        return default
    value = data[key]
    if not isinstance(value, str) or (required and not value.strip()):
        raise _fail(source, f"{path}{key}", f"must be a non-empty string, got {value!r}")
    return value


def _keys(value: Any, images: Mapping[str, Any], source: str, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(source, path, f"must be a list of image keys, got {value!r}")
    for i, key in enumerate(value):
        if key not in images:
            raise _fail(source, f"{path}[{i}]", f"names unknown image {key!r}; images: {', '.join(images) or 'none'}")
    return tuple(value)


def _interjection(value: Any, images: Mapping[str, Any], source: str, path: str) -> Interjection | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise _fail(source, path, f"must be an object with 'text' (and optional 'provide'), got {value!r}")
    unknown = set(value) - {"text", "provide"}
    if unknown:
        raise _fail(source, path, f"has unknown keys {sorted(unknown)}; allowed: text, provide")
    return Interjection(_str(value, "text", source, f"{path}."), _keys(value.get("provide"), images, source, f"{path}.provide"))


def _substitute(value: Any, images: Mapping[str, Any], source: str, path: str) -> Any:
    """Replace ``{image:key}`` placeholders in every string by the image's store id."""
    if isinstance(value, str):
        def repl(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in images:
                raise _fail(source, path, f"refers to unknown image {{image:{key}}}; images: {', '.join(images) or 'none'}")
            return f"img_{list(images).index(key)}"
        return _PLACEHOLDER.sub(repl, value)
    if isinstance(value, list):
        return [_substitute(v, images, source, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _substitute(v, images, source, f"{path}.{k}") for k, v in value.items()}
    return value


def parse_scenario(data: Any, source: str, *, ui: bool = False, image_root: str | Path | None = None,
                   load_images: bool = False) -> Scenario:
    """Validate a scenario object (``source`` names it in errors) and return a ``Scenario``.

    ``load_images=True`` (an env about to reset with it) starts loading the images on the image threads
    while the initial database is built (:meth:`Scenario.start_loading_pixels`).

    ``ui=True`` parses a UI-mode scenario: rounds may hold private ``ui`` decisions, the reference
    solution may call the UI tools (its screens are validated), and ``base`` names a scenario to inherit from.
    Image paths must name files inside the registry or ``image_root`` (checked here, before any is opened).
    """
    from .catalog import toolset_tools, ui_tools

    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a scenario must be a JSON object, got {type(data).__name__}")
    allowed_fields = _UI_FIELDS if ui else _FIELDS
    unknown = set(data) - allowed_fields
    if unknown:
        raise ValueError(f"{source}: unknown fields {sorted(unknown)}; allowed: {', '.join(sorted(allowed_fields))}")
    if "base" in data:
        data = _with_base(data, source)
    scenario_id = _str(data, "id", source, "")
    description = _str(data, "description", source, "", required=False)
    try:
        reference_time = parse_datetime(_str(data, "reference_time", source, ""), "reference_time")
    except ToolError as exc:
        raise _fail(source, "reference_time", f"is invalid: {exc}") from None

    roots = image_roots(image_root)
    images = data.get("images", {})
    if not isinstance(images, Mapping):
        raise _fail(source, "images", f"must be an object of image key → path or generator spec, got {type(images).__name__}")
    for key, spec in images.items():
        if not re.fullmatch(r"[A-Za-z0-9_\-]+", key):
            raise _fail(source, f"images.{key}", "has an invalid key (use letters, digits, '_' or '-')")
        if not isinstance(spec, (str, Mapping)) or (isinstance(spec, Mapping) and not ({"path", "generator"} & set(spec))):
            raise _fail(source, f"images.{key}", f"must be a registry path or an object with 'path' or 'generator', got {str(spec)[:80]!r}")
        try:
            image_file(spec, f"{source}: field 'images.{key}'", roots)
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    entities = data.get("initial_entities", {})
    if not isinstance(entities, Mapping):
        raise _fail(source, "initial_entities", f"must be an object of table → list of rows, got {type(entities).__name__}")
    entities = _substitute(dict(entities), images, source, "initial_entities")

    raw_rounds = data.get("rounds")
    if not isinstance(raw_rounds, list) or not raw_rounds:
        raise _fail(source, "rounds", f"must be a non-empty list of rounds, got {raw_rounds!r}")
    rounds = []
    for i, r in enumerate(raw_rounds):
        path = f"rounds[{i}]"
        if not isinstance(r, Mapping):
            raise _fail(source, path, f"must be an object, got {type(r).__name__}")
        keys = ("query", "provide", "instructions", "correction", "goal_change", "answers") + (("ui",) if ui else ())
        extra = set(r) - set(keys)
        if extra:
            hint = " ('ui' rounds need a UI scenario, loaded in mode='ui')" if "ui" in extra else ""
            raise _fail(source, path, f"has unknown keys {sorted(extra)}; allowed: {', '.join(keys)}{hint}")
        decisions: tuple[UIDecision, ...] = ()
        if "ui" in r:
            try:
                decisions = parse_decisions(r["ui"], f"{path}.ui")
            except ValueError as exc:
                raise ValueError(f"{source}: {exc}") from None
        answers = []
        for j, a in enumerate(r.get("answers", []) or []):
            if not (isinstance(a, Mapping) and isinstance(a.get("keywords"), list) and a["keywords"]
                    and all(isinstance(k, str) and k for k in a["keywords"]) and isinstance(a.get("reply"), str)):
                raise _fail(source, f"{path}.answers[{j}]", f"must be {{'keywords': [non-empty strings], 'reply': str}}, got {a!r}")
            answers.append(Answer(tuple(k.lower() for k in a["keywords"]), a["reply"]))
        rounds.append(Round(
            query=_str(r, "query", source, f"{path}."), provide=_keys(r.get("provide"), images, source, f"{path}.provide"),
            instructions=_str(r, "instructions", source, f"{path}.", required=False),
            correction=_interjection(r.get("correction"), images, source, f"{path}.correction"),
            goal_change=_interjection(r.get("goal_change"), images, source, f"{path}.goal_change"), answers=tuple(answers),
            ui=decisions,
        ))

    expected = _substitute(data.get("expected_changes"), images, source, "expected_changes")
    specs = parse_change_specs(expected, source)

    tools = {**toolset_tools("full"), **(ui_tools() if ui else {})}
    solution = data.get("reference_solution")
    if not isinstance(solution, list) or not solution:
        raise _fail(source, "reference_solution", f"must be a non-empty list of steps, got {solution!r}")
    solution = _substitute(solution, images, source, "reference_solution")
    for i, step in enumerate(solution):
        path = f"reference_solution[{i}]"
        if ui and isinstance(step, Mapping) and step.get("tool") == "show_ui_to_user" and "expect" in step:
            _check_expect(step["expect"], source, f"{path}.expect")
            step = {k: v for k, v in step.items() if k != "expect"}
        if not isinstance(step, Mapping) or not (set(step) in ({"tool", "arguments"}, {"tool"}, {"say"})):
            raise _fail(source, path, f"must be {{'tool': name, 'arguments': {{…}}}} or {{'say': text}}, got {step!r}")
        if "say" in step:
            if not isinstance(step["say"], str) or not step["say"].strip():
                raise _fail(source, f"{path}.say", "must be a non-empty string")
            continue
        if step["tool"] not in tools:
            raise _fail(source, f"{path}.tool", f"names unknown tool {step['tool']!r} (reference solutions use full-toolset names)")
        try:
            bound = tools[step["tool"]].bind(step.get("arguments", {}))
        except ToolError as exc:
            raise _fail(source, f"{path}.arguments", f"do not fit the tool: {exc}") from None
        if step["tool"] == "render_ui_screen" and isinstance(bound["screen"], Mapping):
            try:  # image ids are checked for their form only: which ones exist depends on the episode
                validate_screen(bound["screen"], lambda i: None if re.fullmatch(r"img_\d+", i) else f"invalid image id {i!r}")
            except ScreenError as exc:
                where, _, problem = str(exc).partition(": ")
                raise _fail(source, f"{path}.arguments.{where}", problem) from None
    if "say" not in solution[-1]:
        raise _fail(source, "reference_solution", "must end with a 'say' step (the reply that closes the last round)")

    meta = data.get("metadata")
    if not isinstance(meta, Mapping):
        raise _fail(source, "metadata", f"must be an object with flow_type, challenge_type, image_arrival and apps, got {meta!r}")
    for key, allowed in (("flow_type", FLOW_TYPES), ("challenge_type", CHALLENGE_TYPES), ("image_arrival", IMAGE_ARRIVALS)):
        if meta.get(key) not in allowed:
            raise _fail(source, f"metadata.{key}", f"must be one of {', '.join(allowed)}, got {meta.get(key)!r}")
    apps = meta.get("apps")
    if not isinstance(apps, list) or not apps or any(a not in (*APPS, "visual") for a in apps):
        raise _fail(source, "metadata.apps", f"must be a non-empty list of app names from {', '.join((*APPS, 'visual'))}, got {apps!r}")

    max_messages = data.get("max_messages", 100)
    if not isinstance(max_messages, int) or isinstance(max_messages, bool) or max_messages < 2:
        raise _fail(source, "max_messages", f"must be an integer ≥ 2, got {max_messages!r}")
    criteria = _str(data, "task_completion_criteria", source, "", required=False)

    scenario = Scenario(scenario_id, source, description, reference_time, dict(entities), dict(images), rounds, expected, specs,
                        [dict(s) for s in solution], dict(meta), max_messages, criteria, image_roots=roots)
    if load_images:
        scenario.start_loading_pixels()
    scenario.template()  # validates initial_entities now (errors name the table and row)
    return scenario


def load_scenario(spec: Mapping[str, Any] | str | Path, *, ui: bool = False, image_root: str | Path | None = None,
                  load_images: bool = False) -> Scenario:
    """A scenario from a dict or from a JSON file path (``ui=True``: a UI-mode scenario); its image paths
    may name files in the registry or ``image_root``. ``load_images``: as in :func:`parse_scenario`."""
    if isinstance(spec, (str, Path)):
        return parse_scenario(load_json(spec, "MMToolSandbox scenario"), str(spec), ui=ui, image_root=image_root,
                              load_images=load_images)
    name = f"inline scenario {str(spec.get('id', '?'))[:64]!r}" if isinstance(spec, Mapping) else "inline scenario"
    return parse_scenario(spec, name, ui=ui, image_root=image_root, load_images=load_images)


_EXPECT_KEYS = ("element_id", "card_id", "form_id", "selected", "form_values")


def _check_expect(value: Any, source: str, path: str) -> None:
    if not isinstance(value, Mapping) or not value or set(value) - set(_EXPECT_KEYS):
        raise _fail(source, path, f"must be a non-empty object with keys from {', '.join(_EXPECT_KEYS)}, got {value!r}")


def _with_base(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """``data`` on top of the scenario its ``base`` names: top-level fields given in ``data`` replace the base's,
    ``metadata`` is merged key by key and records ``ui_base``."""
    base_id = data["base"]
    paths = shipped_scenario_paths()
    if not isinstance(base_id, str) or base_id not in paths:
        raise _fail(source, "base", f"names unknown scenario {base_id!r}; shipped scenarios: {', '.join(paths)}")
    base = dict(load_json(paths[base_id], "MMToolSandbox scenario"))
    merged = {**base, **{k: v for k, v in data.items() if k not in ("base", "metadata")}}
    merged["metadata"] = {**base.get("metadata", {}), **data.get("metadata", {}), "ui_base": base_id}
    return merged


def ui_scenario_dir() -> Path:
    return registry_path("toolsandbox", "ui")


@lru_cache(maxsize=1)
def ui_scenario_paths() -> dict[str, Path]:
    """``{scenario id: path}`` of the shipped UI-mode scenarios (``registry/toolsandbox/ui``)."""
    return {p.stem: p for p in sorted(ui_scenario_dir().glob("*.json"))}


def scenario_dir() -> Path:
    return registry_path("toolsandbox", "scenarios")


@lru_cache(maxsize=1)
def shipped_scenario_paths() -> dict[str, Path]:
    """``{scenario id: path}`` of the shipped scenarios (ids are the file stems)."""
    return {p.stem: p for p in sorted(scenario_dir().glob("*.json"))}
