"""The pinned suites (``registry/toolsandbox/suites/``) and the training stream.

A pinned suite is two files: ``<name>.jsonl``, a readable index (one line per scenario: id, seed,
flow, challenge, arrival, app group, difficulty, fingerprint), and ``<name>.jsonl.gz``, the full
scenarios (one JSON object per line; images as renderer specs, i.e. their facts, never pixels —
258 scenarios take ~270 KB). The benchmark is stored rather than regenerated on load so that it
cannot drift when the generator, the renderers' samplers or their vocabularies change: its facts,
entities and expected changes are fixed; only the drawing of an image may change, and an image
always shows its stored facts. Loading checks each scenario's fingerprint against the index, and
every pinned scenario was checked by the oracle (F1 = 1.0) when the suite was built.

Seeds are partitioned: benchmark 1,000,000+, held-out 2,000,000+, training 10,000,000+ (and a
training scenario is also checked against the pinned fingerprints), so the streams never overlap.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from mmenvs.core import load_jsonl, registry_path

from .build import ARRIVALS, CHALLENGES, fingerprint, generate_scenario
from .flows import FLOW_APPS, FLOWS

SUITES: dict[str, dict[str, Any]] = {
    # the paper's size, balanced over flow x challenge x arrival
    "benchmark": {"size": 258, "seed_base": 1_000_000},
    # one scenario per cell of the 7 x 4 x 4 design; never used by the generator's own tests
    "heldout": {"size": 112, "seed_base": 2_000_000},
}
TRAIN_SEED_BASE = 10_000_000
_DIFFICULTIES = (0.2, 0.4, 0.6, 0.8)


def suite_path(name: str, *, full: bool = False) -> Path:
    """The suite's index (``<name>.jsonl``) or, with ``full``, its scenarios (``<name>.jsonl.gz``)."""
    _check(name)
    return registry_path("toolsandbox", "suites", f"{name}.jsonl" + (".gz" if full else ""))


def _check(name: str) -> None:
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; valid suites: {', '.join(SUITES)}")


@lru_cache(maxsize=None)
def suite_entries(name: str) -> tuple[dict[str, Any], ...]:
    """The stored lines of a suite: id, seed, flow, challenge, arrival, apps, difficulty, fingerprint."""
    path = suite_path(name)
    out = []
    for where, entry in load_jsonl(path, f"suite {name!r}"):
        missing = [k for k in ("id", "seed", "flow", "challenge", "arrival", "apps", "difficulty", "fingerprint") if k not in entry]
        if missing:
            raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
        out.append(entry)
    return tuple(out)


def suite_ids(name: str) -> list[str]:
    """Scenario ids of a pinned suite, in order."""
    return [e["id"] for e in suite_entries(name)]


@lru_cache(maxsize=None)
def _stored(name: str) -> dict[str, str]:
    """``{id: scenario JSON text}`` of a suite (read once per process)."""
    path = suite_path(name, full=True)
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, EOFError) as exc:
        raise ValueError(f"suite {name!r}: cannot read {path}: {exc}") from None
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out[json.loads(line)["id"]] = line
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{n}: not a scenario object with an id: {exc}") from None
    return out


def _load(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    stored = _stored(name)
    if entry["id"] not in stored:
        raise ValueError(f"{suite_path(name, full=True)}: scenario {entry['id']!r} of the index is missing")
    scenario = json.loads(stored[entry["id"]])
    got = fingerprint(scenario)
    if got != entry["fingerprint"] or scenario["metadata"].get("fingerprint") != got:
        raise ValueError(f"{suite_path(name, full=True)}: scenario {entry['id']!r} has fingerprint {got}, "
                         f"the index says {entry['fingerprint']}: the file was altered; rebuild it with build_suite()")
    return scenario


def load_suite_scenario(name: str, scenario_id: str) -> dict[str, Any]:
    """One pinned scenario by id (a fresh copy, fingerprint-checked)."""
    for entry in suite_entries(name):
        if entry["id"] == scenario_id:
            return _load(name, entry)
    raise ValueError(f"suite {name!r} has no scenario {scenario_id!r} ({len(suite_entries(name))} scenarios; see suite_ids)")


def load_suite(name: str) -> list[dict[str, Any]]:
    """Every scenario of a pinned suite ("benchmark": 258, "heldout": 112), in order."""
    return [_load(name, e) for e in suite_entries(name)]


def regenerate(entry: dict[str, Any]) -> dict[str, Any]:
    """A suite entry's scenario regenerated from its parameters (equal to the stored one while the
    generator and the renderers' samplers are unchanged)."""
    return generate_scenario(entry["seed"], flow=entry["flow"], challenge=entry["challenge"], arrival=entry["arrival"],
                             apps=entry["apps"], difficulty=entry["difficulty"], validate=False, render=False)


@lru_cache(maxsize=1)
def pinned_fingerprints() -> frozenset[str]:
    return frozenset(e["fingerprint"] for name in SUITES if suite_path(name).exists() for e in suite_entries(name))


def train_scenario(seed: int, *, difficulty: float | None = None) -> dict[str, Any]:
    """A fresh, verified scenario for training: every axis drawn from ``seed``; never a pinned one."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng([int(seed), 0x7EA1])
    d = float(rng.uniform(0.1, 0.9)) if difficulty is None else difficulty
    pinned = pinned_fingerprints()
    for attempt in range(8):
        s = TRAIN_SEED_BASE + int(seed) * 8 + attempt
        try:
            scenario = generate_scenario(s, difficulty=round(d, 2))
        except RuntimeError:
            continue  # a draw the oracle could not solve: take the next one of this seed's block
        if scenario["metadata"]["fingerprint"] not in pinned:
            return scenario
    raise RuntimeError(f"train_scenario({seed}): no valid scenario in 8 draws")


# ---------------------------------------------------------------------------------------------- building
def _cells(size: int, rng: np.random.Generator) -> Iterator[tuple[str, str, str]]:
    """``size`` (flow, challenge, arrival) cells: every cell of the 7x4x4 design in turn, the
    remainder chosen greedily to keep each axis' counts within one of each other."""
    grid = [(f, c, a) for a in ARRIVALS for c in CHALLENGES for f in FLOWS]
    full, rest = divmod(size, len(grid))
    for _ in range(full):
        yield from grid
    counts: dict[str, int] = {}
    remaining = list(grid)
    for _ in range(rest):
        def load(cell: tuple[str, str, str]) -> tuple[int, float]:
            return (sum(counts.get(f"{i}:{v}", 0) for i, v in enumerate(cell)), float(rng.uniform()))
        cell = min(remaining, key=load)
        remaining.remove(cell)
        for i, v in enumerate(cell):
            counts[f"{i}:{v}"] = counts.get(f"{i}:{v}", 0) + 1
        yield cell


def build_suite(name: str, *, write: bool = True) -> list[dict[str, Any]]:
    """Generate (and oracle-check) a suite's scenarios and write its JSONL; returns the entries."""
    _check(name)
    spec = SUITES[name]
    rng = np.random.default_rng(spec["seed_base"])
    app_counts: dict[str, int] = {}
    entries = []
    scenarios = []
    seed = spec["seed_base"]
    for i, (flow, challenge, arrival) in enumerate(_cells(spec["size"], rng)):
        apps = min(FLOW_APPS[flow], key=lambda a: (app_counts.get(a, 0), float(rng.uniform())))
        difficulty = _DIFFICULTIES[i % len(_DIFFICULTIES)]
        while True:
            seed += 1
            try:
                scenario = generate_scenario(seed, flow=flow, challenge=challenge, arrival=arrival, apps=apps,
                                             difficulty=difficulty, render=False, validate=True)
                break
            except RuntimeError:
                continue
        app_counts[apps] = app_counts.get(apps, 0) + 1
        scenarios.append(scenario)
        entries.append({"id": scenario["id"], "seed": seed, "flow": flow, "challenge": challenge, "arrival": arrival, "apps": apps,
                        "difficulty": difficulty, "fingerprint": scenario["metadata"]["fingerprint"]})
    if write:
        path = suite_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in entries), encoding="utf-8")
        # key order is meaningful (tables are filled and images numbered in order): never sort keys here
        body = "".join(json.dumps(sc, separators=(",", ":"), ensure_ascii=False) + "\n" for sc in scenarios)
        suite_path(name, full=True).write_bytes(gzip.compress(body.encode("utf-8"), 9, mtime=0))
        suite_entries.cache_clear()
        _stored.cache_clear()
        pinned_fingerprints.cache_clear()
    return entries


def suite_counts(name: str) -> dict[str, dict[str, int]]:
    """Counts of a suite over flow, challenge, arrival and app group (from the stored entries)."""
    out: dict[str, dict[str, int]] = {}
    for axis in ("flow", "challenge", "arrival", "apps"):
        table: dict[str, int] = {}
        for e in suite_entries(name):
            table[e[axis]] = table.get(e[axis], 0) + 1
        out[axis] = dict(sorted(table.items()))
    return out


if __name__ == "__main__":  # python -m mmenvs.toolsandbox.generator.suites [names…]: rebuild suites
    import sys

    for suite in sys.argv[1:] or list(SUITES):
        built = build_suite(suite)
        print(f"{suite}: {len(built)} scenarios -> {suite_path(suite)}")
        for axis, table in suite_counts(suite).items():
            print(f"  {axis}: {table}")
