"""Benchmark workloads of MMToolSandbox-v0 (run by ``mmenvs bench``).

- reset of a scenario with 500 initial entities (after its first load built the template): target 5 ms;
- one tool-mode step (a JSON call of a found tool): target 1 ms;
- one code-mode step whose code calls 10 tools: target 10 ms;
- memory of one env (this process plus the sandbox worker) after those runs: target 150 MB;
- the rows of ``scoring_bench.py`` (entity diff), ``renderers/bench_renderers.py`` (images) and
  ``generator/bench_generator.py`` (scenario generation, pinned-suite loading).
"""

from __future__ import annotations

from typing import Any

from mmenvs.benchmarks.harness import measure, timing_row, tree_pss_mb

from .env import MMToolSandboxEnv
from .scenario import Scenario, load_scenario


def big_scenario(entities: int = 500) -> Scenario:
    """A one-round scenario whose world starts with ``entities`` rows over four tables."""
    quarter = entities // 4
    initial = {
        "user_profile": [{"first_name": "Alex", "phone_number": "+1-555-0100", "email": "alex@example.com"}],
        "contacts": [{"name": f"Person {i}", "phone_number": f"+1-555-{1000 + i}", "email": f"p{i}@example.com"} for i in range(quarter)],
        "notes": [{"title": f"Note {i}", "content": f"line {i} of some text", "tags": ["a", "b"]} for i in range(quarter)],
        "todo_tasks": [{"content": f"Task {i}", "priority": 1 + i % 4, "labels": ["x"]} for i in range(quarter)],
        "calendar_events": [{"title": f"Event {i}", "start": f"2025-03-{1 + i % 28:02d}T10:00:00", "end": f"2025-03-{1 + i % 28:02d}T11:00:00"}
                            for i in range(entities - 3 * quarter - 1)],
    }
    data = {
        "id": "bench_500", "reference_time": "2025-03-10T09:00:00", "initial_entities": initial,
        "images": {"doc": {"generator": "rendered", "kind": "handwritten_note", "seed": 0,
                           "facts": {"note_type": "todo", "title": "Bench", "items": [{"task": "one"}, {"task": "two"}]}}},
        "rounds": [{"query": "Add a note titled Bench.", "provide": ["doc"]}],
        "expected_changes": [{"table": "notes", "op": "create", "rows": [{"title": "Bench"}]}],
        "reference_solution": [{"tool": "notes_create_note", "arguments": {"title": "Bench"}}, {"say": "Done."}],
        "metadata": {"flow_type": "lookup_chain", "challenge_type": "cooperative", "image_arrival": "upfront", "apps": ["notes"]},
    }
    scenario = load_scenario(data)
    scenario.pixels()
    return scenario


def workloads() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    scenario = big_scenario(500)
    baseline = tree_pss_mb()

    env = MMToolSandboxEnv(mode="tool", max_steps=10**9)
    try:
        env.reset(options={"task": scenario})
        samples = measure(lambda: env.reset(options={"task": scenario}), repeat=50, warmup=3)
        rows.append(timing_row("toolsandbox: reset, 500 initial entities", samples, target_ms=5.0,
                               note="deserialize template + images + before-snapshot + first observation"))
        env.reset(options={"task": scenario})
        env.step({"name": "search_tools", "arguments": {"query": "contacts get contact"}})
        action = '{"name": "contacts_get_contact", "arguments": {"contact_id": 7}}'
        samples = measure(lambda: env.step(action), repeat=200, warmup=5)
        rows.append(timing_row("toolsandbox: tool-mode step (one JSON tool call)", samples, target_ms=1.0,
                               note="parse, working-set check, validation, savepoint, JSON result, observation"))
    finally:
        env.close()

    env = MMToolSandboxEnv(mode="code", max_steps=10**9)
    try:
        env.reset(options={"task": scenario})
        env.step("```python\nsearch_tools(query='contacts get contact')\n```")
        code = "```python\nrows = [contacts_get_contact(contact_id=i) for i in range(1, 11)]\nprint(len(rows))\n```"
        samples = measure(lambda: env.step(code), repeat=50, warmup=3)
        rows.append(timing_row("toolsandbox: code-mode step calling 10 tools", samples, target_ms=10.0,
                               note=f"sandbox isolation: {env.sandbox_in_use()}"))
        peak = tree_pss_mb()
        rows.append({"name": "toolsandbox: memory per env (world + sandbox worker)", "median_ms": None, "p95_ms": None,
                     "tree_pss_mb": round(peak, 1), "note": f"process + sandbox workers after the runs above; before any env: {baseline:.0f} MB; target 150 MB"})
    finally:
        env.close()

    # The scoring, image-rendering and scenario-generation rows live beside their code.
    from . import scoring_bench
    from .generator import bench_generator
    from .renderers import bench_renderers

    for module in (scoring_bench, bench_renderers, bench_generator):
        rows += [dict(r) for r in module.workloads()]
    return rows
