"""Stored (pinned) MMToolSandbox suites: the reader the runtime uses, without the scenario generator.

A stored suite is two files in a folder of ``registry/toolsandbox/``:

* ``<name>.jsonl`` — the index, one JSON object per line (sorted keys): at least ``id`` and
  ``fingerprint``, plus the fields the suite declares (seed and axes, or a UI scenario's source);
* ``<name>.jsonl.gz`` — the full scenarios in index order, one compact JSON object per line. Key order
  is meaningful (tables are filled and images numbered in that order), so it is kept as written.

Suites are stored rather than remade on load, so an edit of the generator, the UI converter or the
renderers' samplers can never change a pinned benchmark behind its users' backs. Loading checks each
scenario's :func:`fingerprint` against the index and against the scenario's own ``metadata``; a
mismatch means the file was edited by hand. Drift of the code that made a suite (the stored file no
longer equals what the generator or converter makes now) is the tests' business, not the loader's.

Shipped suites and the command that rebuilds each (documented in docs/toolsandbox-generator.md and
docs/toolsandbox-ui.md):

* ``suites/benchmark``, ``suites/heldout`` — generated scenarios (258, 112):
  ``python -m mmenvs.toolsandbox.generator.suites``;
* ``ui_suite/benchmark`` — 50 benchmark scenarios converted to UI decisions:
  ``python -m mmenvs.toolsandbox.generator.ui_convert``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from mmenvs.core import load_jsonl, registry_path

#: The generated pinned suites in ``registry/toolsandbox/suites`` (``suite=`` in code and tool mode).
PINNED_SUITES = ("benchmark", "heldout")


def fingerprint(scenario: Mapping[str, Any]) -> str:
    """A stable hash of a scenario's content (16 hex digits; ignores the stored fingerprint itself)."""
    body = {k: v for k, v in scenario.items() if k != "metadata"}
    meta = {k: v for k, v in scenario.get("metadata", {}).items() if k != "fingerprint"}
    text = json.dumps({"body": body, "meta": meta}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class StoredSuite:
    """One stored suite: where its two files are, what its index lines hold, how it is rebuilt."""

    name: str
    #: a folder of ``registry/toolsandbox/``, or an absolute path (tests write suites elsewhere)
    folder: str
    #: how error messages name the suite, e.g. "suite 'benchmark'"
    title: str
    #: fields every index line must have (besides ``id`` and ``fingerprint``)
    fields: tuple[str, ...] = ()
    #: the command that regenerates both files (named in errors)
    rebuild: str = ""

    @property
    def directory(self) -> Path:
        folder = Path(self.folder)
        return folder if folder.is_absolute() else registry_path("toolsandbox", self.folder)

    def index_path(self) -> Path:
        """``<name>.jsonl``: one index line per scenario."""
        return self.directory / f"{self.name}.jsonl"

    def scenarios_path(self) -> Path:
        """``<name>.jsonl.gz``: the full scenarios."""
        return self.directory / f"{self.name}.jsonl.gz"

    def entries(self) -> tuple[dict[str, Any], ...]:
        """The index lines, in order (read once per process)."""
        return _index(self)[0]

    def ids(self) -> list[str]:
        """Scenario ids, in order."""
        return [e["id"] for e in self.entries()]

    def __contains__(self, scenario_id: object) -> bool:
        return scenario_id in _index(self)[1]

    def load(self, scenario_id: str) -> dict[str, Any]:
        """One scenario by id: a fresh dict, fingerprint-checked against the index."""
        entry = _index(self)[1].get(scenario_id)
        if entry is None:
            raise ValueError(f"{self.title} has no scenario {scenario_id!r} ({len(self.entries())} scenarios, "
                             f"e.g. {', '.join(self.ids()[:3])})")
        return self._checked(entry)

    def load_all(self) -> list[dict[str, Any]]:
        """Every scenario, in index order."""
        return [self._checked(e) for e in self.entries()]

    def _checked(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        stored = _scenario_lines(self)
        if entry["id"] not in stored:
            raise ValueError(f"{self.scenarios_path()}: scenario {entry['id']!r} of the index {self.index_path().name} is missing; "
                             f"rebuild with {self.rebuild}")
        scenario = json.loads(stored[entry["id"]])
        got = fingerprint(scenario)
        own = scenario.get("metadata", {}).get("fingerprint")
        if got != entry["fingerprint"] or own != got:
            raise ValueError(f"{self.scenarios_path()}: scenario {entry['id']!r} has fingerprint {got}, the index says "
                             f"{entry['fingerprint']} and its metadata {own}: the file was altered; rebuild with {self.rebuild}")
        return scenario

    def write(self, entries: Iterable[Mapping[str, Any]], scenarios: Iterable[Mapping[str, Any]]) -> None:
        """Write both files (index with sorted keys; scenarios compact, key order kept, byte-reproducible gzip)."""
        entries, scenarios = list(entries), list(scenarios)
        if [e["id"] for e in entries] != [s["id"] for s in scenarios]:
            raise ValueError(f"{self.title}: the index and the scenarios must list the same ids in the same order")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.index_path().write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in entries), encoding="utf-8")
        body = "".join(json.dumps(s, separators=(",", ":"), ensure_ascii=False) + "\n" for s in scenarios)
        self.scenarios_path().write_bytes(gzip.compress(body.encode("utf-8"), 9, mtime=0))
        clear_caches()


@lru_cache(maxsize=None)
def _index(suite: StoredSuite) -> tuple[tuple[dict[str, Any], ...], dict[str, dict[str, Any]]]:
    entries = []
    required = ("id", "fingerprint", *suite.fields)
    for where, entry in load_jsonl(suite.index_path(), f"the index of {suite.title}"):
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(entry).__name__}")
        missing = [k for k in required if k not in entry]
        if missing:
            raise ValueError(f"{where}: missing field(s) {', '.join(missing)} (an index line holds {', '.join(required)})")
        entries.append(entry)
    by_id = {e["id"]: e for e in entries}
    if len(by_id) != len(entries):
        raise ValueError(f"{suite.index_path()}: scenario ids repeat; every line needs its own id")
    return tuple(entries), by_id


@lru_cache(maxsize=None)
def _scenario_lines(suite: StoredSuite) -> dict[str, str]:
    """``{id: scenario JSON text}`` (decoded per load, so callers get fresh dicts)."""
    path = suite.scenarios_path()
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the scenarios of {suite.title}: {exc}; rebuild with {suite.rebuild}") from None
    out = {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out[json.loads(line)["id"]] = line
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a scenario object with an id: {exc}") from None
    return out


def clear_caches() -> None:
    """Forget what was read (after a suite is rewritten)."""
    _index.cache_clear()
    _scenario_lines.cache_clear()
    pinned_fingerprints.cache_clear()


# ---------------------------------------------------------------------------------------------- the shipped suites
_GENERATED_FIELDS = ("seed", "flow", "challenge", "arrival", "apps", "difficulty")
_SUITE_REBUILD = "python -m mmenvs.toolsandbox.generator.suites"
_PINNED = {name: StoredSuite(name, "suites", f"suite {name!r}", _GENERATED_FIELDS, _SUITE_REBUILD) for name in PINNED_SUITES}
#: The 50 pinned benchmark scenarios converted to UI decisions (``mode="ui"``, ``suite="benchmark"``).
UI_SUITE = StoredSuite("benchmark", "ui_suite", "the UI suite", ("source", "source_fingerprint"),
                       "python -m mmenvs.toolsandbox.generator.ui_convert")


def pinned_suite(name: str) -> StoredSuite:
    """The stored generated suite ``name`` ("benchmark" or "heldout")."""
    if name not in _PINNED:
        raise ValueError(f"unknown suite {name!r}; valid suites: {', '.join(PINNED_SUITES)}")
    return _PINNED[name]


def suite_path(name: str, *, full: bool = False) -> Path:
    """A pinned suite's index (``<name>.jsonl``) or, with ``full``, its scenarios (``<name>.jsonl.gz``)."""
    suite = pinned_suite(name)
    return suite.scenarios_path() if full else suite.index_path()


def suite_entries(name: str) -> tuple[dict[str, Any], ...]:
    """The index lines of a pinned suite: id, seed, flow, challenge, arrival, apps, difficulty, fingerprint."""
    return pinned_suite(name).entries()


def suite_ids(name: str) -> list[str]:
    """Scenario ids of a pinned suite, in order."""
    return pinned_suite(name).ids()


def load_suite_scenario(name: str, scenario_id: str) -> dict[str, Any]:
    """One pinned scenario by id (a fresh copy, fingerprint-checked)."""
    return pinned_suite(name).load(scenario_id)


def load_suite(name: str) -> list[dict[str, Any]]:
    """Every scenario of a pinned suite ("benchmark": 258, "heldout": 112), in order."""
    return pinned_suite(name).load_all()


@lru_cache(maxsize=1)
def pinned_fingerprints() -> frozenset[str]:
    """Fingerprints of every pinned generated scenario (a training scenario must be none of them)."""
    return frozenset(e["fingerprint"] for suite in _PINNED.values() if suite.index_path().exists() for e in suite.entries())


def ui_suite_entries() -> tuple[dict[str, Any], ...]:
    """The UI suite's index: id, source, source_fingerprint, axes, criterion, pick, fingerprint."""
    return UI_SUITE.entries()


def ui_suite_ids() -> list[str]:
    """Ids of the 50 converted UI scenarios, in order."""
    return UI_SUITE.ids()


def load_ui_suite_scenario(scenario_id: str) -> dict[str, Any]:
    """One stored UI scenario by id (a fresh copy, fingerprint-checked)."""
    return UI_SUITE.load(scenario_id)


def load_ui_suite() -> list[dict[str, Any]]:
    """The 50 stored UI scenarios, in order."""
    return UI_SUITE.load_all()
