"""Result cuts for generated scenarios (the paper's Fig. 5 and Table 12): by flow type, challenge
type, image arrival, image kind, image source category and number of images.

``breakdown_tables(records)`` takes ``mmenvs eval`` episode records (each with ``task_id``,
``score``, ``success`` and ``task_meta`` = the env's ``task_metadata()``) and returns
``{title: {row: {column: number}}}`` tables; ``plot_breakdown(tables, folder)`` draws them.
Image kinds come from ``task_meta["image_kinds"]`` (a list: a scenario counts under each kind it
shows); records without it fall into an ``unknown`` row rather than being dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from mmenvs.core import breakdown

from .renderers import CATEGORIES

_AXES: tuple[tuple[str, str], ...] = (
    ("Entity F1 by flow type", "flow_type"),
    ("Entity F1 by challenge type", "challenge_type"),
    ("Entity F1 by image arrival", "image_arrival"),
    ("Entity F1 by image kind", "image_kinds"),
    ("Entity F1 by image source category", "image_categories"),
    ("Entity F1 by number of images", "num_images"),
)


def _value(record: Mapping[str, Any], key: str) -> Any:
    meta = record.get("task_meta") or {}
    if key == "image_categories":
        kinds = meta.get("image_kinds")
        return sorted({CATEGORIES.get(k, "other") for k in kinds}) if kinds else "unknown"
    value = meta.get(key)
    return "unknown" if value is None or value == [] else value


def breakdown_tables(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per-axis tables: rows are the axis' values, columns episodes / mean entity F1 / success rate / pass@1."""
    records = [r for r in records if not r.get("error")]
    tables: dict[str, dict[str, dict[str, float]]] = {}
    if not records:
        return tables
    for title, key in _AXES:
        groups = breakdown(records, lambda r, k=key: _value(r, k))
        if key == "num_images":  # numeric order, not string order
            groups = dict(sorted(groups.items(), key=lambda kv: (not kv[0].isdigit(), int(kv[0]) if kv[0].isdigit() else 0)))
        tables[title] = {row: {"episodes": float(s["episodes"]), "mean_entity_f1": float(s["mean_score"]),
                               "success_rate": float(s["success_rate"]), "pass@1": float(s.get("pass@1", s["success_rate"]))}
                         for row, s in groups.items()}
    return tables


def plot_breakdown(tables: Mapping[str, Mapping[str, Mapping[str, float]]], folder: str | Path) -> list[Path]:
    """One bar chart (mean entity F1 and success rate per row) per table; returns the PNG paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for title, rows in tables.items():
        labels = list(rows)
        f1 = [rows[r]["mean_entity_f1"] for r in labels]
        sr = [rows[r]["success_rate"] for r in labels]
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(labels) + 2), 3.2))
        xs = range(len(labels))
        ax.bar([x - 0.2 for x in xs], f1, width=0.4, label="entity F1")
        ax.bar([x + 0.2 for x in xs], sr, width=0.4, label="success rate")
        ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out_dir / (title.lower().replace(" ", "_") + ".png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths
