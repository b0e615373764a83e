"""The declarative registry: env ids and task suites are data under ``registry/``.

``registry/envs/<Id>.json`` declares one env id::

    {
      "id": "VTCBench-v0",
      "entry_point": "mmenvs.vtc.env:VTCBenchEnv",
      "description": "one line for `mmenvs list`",
      "kwargs": {"mode": "tool"},
      "nondeterministic": false
    }

``register_envs()`` (run on ``import mmenvs``) registers every file with Gymnasium. There is no
``max_episode_steps``: each env ends its own episodes at its ``max_steps`` (a kwarg of every env), so
one place decides the cap and ``gym.make(ID, max_steps=N)`` changes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym

_REQUIRED = {"id": str, "entry_point": str, "description": str}
_OPTIONAL = {"kwargs": dict, "nondeterministic": bool}


@dataclass(frozen=True)
class EnvSpecData:
    """One env id as declared in ``registry/envs``."""

    id: str
    entry_point: str
    description: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    nondeterministic: bool = False
    source: str = ""


def registry_root() -> Path:
    """The folder of the shipped registry data (works in editable and normal installs)."""
    return Path(str(resources.files("mmenvs.registry")))


def registry_path(*parts: str) -> Path:
    """A path inside the registry data folder, e.g. ``registry_path("vtc", "suite.jsonl")``."""
    return registry_root().joinpath(*parts)


def load_json(path: str | Path, what: str = "file") -> Any:
    """Read a JSON file, raising ``ValueError`` that names the file and the position of a syntax error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON in {what} at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def load_jsonl(path: str | Path, what: str = "file") -> list[tuple[str, Any]]:
    """Each non-blank line of a JSON Lines file, decoded, with its location ``"path:line"`` for errors.

    Raises ``ValueError`` naming the file (and the line and column of a syntax error)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((f"{path}:{number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: invalid JSON in {what} at column {exc.colno}: {exc.msg}") from None
    return rows


def parse_env_spec(data: Any, source: str) -> EnvSpecData:
    """Validate one env declaration; errors name the file, the field and what was expected."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: an env declaration must be a JSON object, got {type(data).__name__}")
    for key, kind in _REQUIRED.items():
        if not isinstance(data.get(key), kind):
            raise ValueError(f"{source}: field {key!r} must be a {kind.__name__}, got {data.get(key)!r}")
    for key, kinds in _OPTIONAL.items():
        if key in data and not isinstance(data[key], kinds):
            raise ValueError(f"{source}: field {key!r} has the wrong type ({type(data[key]).__name__})")
    if "max_episode_steps" in data:
        raise ValueError(f"{source}: field 'max_episode_steps' is not allowed: the env ends its own episodes at its "
                         f"max_steps; set a different cap with \"kwargs\": {{\"max_steps\": {data['max_episode_steps']!r}}}")
    unknown = set(data) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise ValueError(f"{source}: unknown fields {sorted(unknown)}; allowed: {sorted({**_REQUIRED, **_OPTIONAL})}")
    if ":" not in data["entry_point"]:
        raise ValueError(f"{source}: field 'entry_point' must look like 'package.module:ClassName', got {data['entry_point']!r}")
    return EnvSpecData(
        id=data["id"],
        entry_point=data["entry_point"],
        description=data["description"],
        kwargs=dict(data.get("kwargs", {})),
        nondeterministic=bool(data.get("nondeterministic", False)),
        source=source,
    )


def env_specs() -> list[EnvSpecData]:
    """Every env declared in ``registry/envs``, sorted by id."""
    specs = []
    for path in sorted(registry_path("envs").glob("*.json")):
        specs.append(parse_env_spec(load_json(path, "env declaration"), str(path)))
    return sorted(specs, key=lambda spec: spec.id)


def register_envs() -> list[str]:
    """Register every declared env id with Gymnasium (idempotent) and return the ids."""
    ids = []
    for spec in env_specs():
        if spec.id not in gym.registry:
            gym.register(
                id=spec.id,
                entry_point=spec.entry_point,
                kwargs=spec.kwargs,
                nondeterministic=spec.nondeterministic,
            )
        ids.append(spec.id)
    return ids
