"""Evaluation metrics: unbiased pass@k and pass^k, mean score with a bootstrap interval, breakdowns."""

from __future__ import annotations

from collections import defaultdict
from math import comb
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` attempts drawn without replacement from ``n`` (``c`` correct)
    succeeds: ``1 - C(n-c, k) / C(n, k)`` (the unbiased estimator of Chen et al., 2021)."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all ``k`` attempts drawn without replacement from ``n`` (``c`` correct) succeed:
    ``C(c, k) / C(n, k)`` (pass^k, the consistency metric of tau-bench)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n) or not (1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def mean_ci(values: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of ``values`` and a percentile-bootstrap confidence interval ``(mean, low, high)``.

    The resampling is seeded, so the same values always give the same interval.
    """
    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(data.mean())
    if data.size == 1:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return mean, float(low), float(high)


def summarize_attempts(records: Iterable[Mapping[str, Any]], ks: Sequence[int] = (1,)) -> dict[str, Any]:
    """Summary of episode records (each with ``task_id``, ``success``, ``score``).

    pass@k and pass^k average the per-task estimators over tasks with at least ``k`` attempts.
    """
    by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    scores = []
    for record in records:
        by_task[str(record["task_id"])].append(record)
        scores.append(float(record["score"]))
    mean, low, high = mean_ci(scores)
    summary: dict[str, Any] = {
        "episodes": len(scores),
        "tasks": len(by_task),
        "mean_score": mean,
        "mean_score_ci95": [low, high],
        "success_rate": float(np.mean([bool(r["success"]) for rs in by_task.values() for r in rs])) if scores else float("nan"),
    }
    for k in ks:
        eligible = [rs for rs in by_task.values() if len(rs) >= k]
        if not eligible:
            continue
        counts = [(len(rs), sum(bool(r["success"]) for r in rs)) for rs in eligible]
        summary[f"pass@{k}"] = float(np.mean([pass_at_k(n, c, k) for n, c in counts]))
        summary[f"pass^{k}"] = float(np.mean([pass_hat_k(n, c, k) for n, c in counts]))
    return summary


def breakdown(
    records: Iterable[Mapping[str, Any]],
    key: str | Callable[[Mapping[str, Any]], Any],
    ks: Sequence[int] = (1,),
) -> dict[str, dict[str, Any]]:
    """``summarize_attempts`` per group. ``key`` is a field of the record's ``task_meta`` (or of the
    record itself), or a function of the record. A list-valued field (e.g. tags) puts the record in
    each of its groups."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        if callable(key):
            value = key(record)
        else:
            meta = record.get("task_meta") or {}
            value = meta.get(key, record.get(key))
        for group in value if isinstance(value, (list, tuple, set)) else [value]:
            groups[str(group)].append(record)
    return {group: summarize_attempts(rs, ks) for group, rs in sorted(groups.items())}
