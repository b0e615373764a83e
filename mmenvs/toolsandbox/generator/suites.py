"""Building the pinned suites (``registry/toolsandbox/suites/``) and the training stream.

A pinned suite is two files: ``<name>.jsonl``, a readable index (one line per scenario: id, seed,
flow, challenge, arrival, app group, difficulty, fingerprint), and ``<name>.jsonl.gz``, the full
scenarios (one JSON object per line; images as renderer specs, i.e. their facts, never pixels —
258 scenarios take ~270 KB). The benchmark is stored rather than regenerated on load so that it
cannot drift when the generator, the renderers' samplers or their vocabularies change: its facts,
entities and expected changes are fixed; only the drawing of an image may change, and an image
always shows its stored facts. The runtime reads them with :mod:`mmenvs.toolsandbox.suites` (the
format, the fingerprint check and the loaders live there, so the env never imports the generator);
this module builds them (every pinned scenario is checked by the oracle, F1 = 1.0, when the suite is
built) and re-exports the reader's functions for the generator's users.

Seeds are partitioned: benchmark 1,000,000+, held-out 2,000,000+, training 10,000,000+ (and a
training scenario is also checked against the pinned fingerprints), so the streams never overlap.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..suites import (PINNED_SUITES, load_suite, load_suite_scenario, pinned_fingerprints, pinned_suite, suite_entries,  # noqa: F401
                      suite_ids, suite_path)
from .build import ARRIVALS, CHALLENGES, generate_scenario
from .flows import FLOW_APPS, FLOWS

#: How each of the reader's ``PINNED_SUITES`` is built (a test checks both name the same suites).
SUITES: dict[str, dict[str, Any]] = {
    # the paper's size, balanced over flow x challenge x arrival
    "benchmark": {"size": 258, "seed_base": 1_000_000},
    # one scenario per cell of the 7 x 4 x 4 design; never used by the generator's own tests
    "heldout": {"size": 112, "seed_base": 2_000_000},
}
TRAIN_SEED_BASE = 10_000_000
_DIFFICULTIES = (0.2, 0.4, 0.6, 0.8)


def regenerate(entry: dict[str, Any]) -> dict[str, Any]:
    """A suite entry's scenario regenerated from its parameters (equal to the stored one while the
    generator and the renderers' samplers are unchanged)."""
    return generate_scenario(entry["seed"], flow=entry["flow"], challenge=entry["challenge"], arrival=entry["arrival"],
                             apps=entry["apps"], difficulty=entry["difficulty"], validate=False, render=False)


def train_scenario(seed: int, *, difficulty: float | None = None, flow: str | None = None, challenge: str | None = None,
                   arrival: str | None = None, apps: str | None = None) -> dict[str, Any]:
    """A fresh, verified scenario for training: every axis not given drawn from ``seed``; never a pinned one."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng([int(seed), 0x7EA1])
    d = float(rng.uniform(0.1, 0.9)) if difficulty is None else difficulty
    pinned = pinned_fingerprints()
    for attempt in range(8):
        s = TRAIN_SEED_BASE + int(seed) * 8 + attempt
        try:
            scenario = generate_scenario(s, difficulty=round(d, 2), flow=flow, challenge=challenge, arrival=arrival, apps=apps)
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
    """Generate (and oracle-check) a suite's scenarios and write its two files; returns the index entries."""
    suite = pinned_suite(name)
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
        suite.write(entries, scenarios)
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

    for name in sys.argv[1:] or list(SUITES):
        built = build_suite(name)
        print(f"{name}: {len(built)} scenarios -> {suite_path(name)}")
        for axis, table in suite_counts(name).items():
            print(f"  {axis}: {table}")
