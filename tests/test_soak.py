"""The soak script (python3 -m mmenvs.benchmarks.soak) reports what it ran: steps, errors, memory samples per worker."""

from __future__ import annotations

import json

from mmenvs.benchmarks import soak


def test_a_short_soak_reports_its_steps_and_each_workers_memory(tmp_path) -> None:
    out = tmp_path / "soak.json"
    assert soak.main(["--steps", "12", "--workers", "2", "--reset-every", "3", "--sample-every", "2", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["steps"] == 12 and report["workers"] == 2 and report["internal_errors"] == []
    assert [s["steps"] for s in report["samples"]] == [4, 8, 12]
    assert all(len(s["pss_mb"]) == 2 and all(mb > 10 for mb in s["pss_mb"]) for s in report["samples"])
    assert len(report["pss_mb_first_quarter"]) == len(report["pss_mb_last_quarter"]) == 2
    progress = [json.loads(line) for line in (tmp_path / "soak.json.progress.jsonl").read_text().splitlines()]
    assert progress == report["samples"]
