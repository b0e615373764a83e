"""The LLM harness's overhead rows: ``mmenvs bench`` runs them with MacAgent, and they come in the
harness's row format (no timing is asserted: the numbers depend on the machine)."""

from __future__ import annotations

from mmenvs.benchmarks.harness import COLUMNS, HARNESS_WORKLOADS, harness_workloads_for


def test_the_llm_overhead_rows_run_with_the_env_they_wrap():
    assert HARNESS_WORKLOADS["mmenvs.baselines.llm.bench"] == "MacAgent-v0"
    assert "mmenvs.baselines.llm.bench" in harness_workloads_for(None)
    assert "mmenvs.baselines.llm.bench" in harness_workloads_for(["MacAgent-v0", "VTCBench-v0"])
    assert "mmenvs.baselines.llm.bench" not in harness_workloads_for(["VTCBench-v0"])
    # each harness module runs with the env it measures, and only then
    for module, env_id in HARNESS_WORKLOADS.items():
        assert harness_workloads_for([env_id]) == [m for m, e in HARNESS_WORKLOADS.items() if e == env_id] and module in harness_workloads_for([env_id])


def test_the_rows_measure_the_harness_and_the_env_step_in_one_loop():
    from mmenvs.baselines.llm.bench import TARGET_MS, workloads

    rows = workloads(steps=3)
    assert [r["name"].split(":")[1].split(",")[0].strip() for r in rows] == [
        "the env step it wraps (MacAgent pyautogui click that changes the window", "own work per step",
        "own work per step + loopback HTTP (openai client"]
    for row in rows:
        assert set(row) <= set(COLUMNS) and row["median_ms"] > 0 and row["p95_ms"] >= row["median_ms"]
        assert "CPU" in row["note"]
    assert rows[1]["target_ms"] == TARGET_MS == 5.0
    assert "1280x800" in rows[1]["name"]
