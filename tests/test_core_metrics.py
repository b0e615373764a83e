import math

import pytest

from mmenvs.core import breakdown, mean_ci, pass_at_k, pass_hat_k, summarize_attempts


def test_pass_at_k_hand_computed():
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 0, 4) == 0.0
    assert pass_at_k(4, 1, 4) == 1.0  # n - c < k: some attempt must succeed
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - math.comb(7, 5) / math.comb(10, 5))


def test_pass_hat_k_hand_computed():
    # n=5, c=3, k=2: C(3,2)/C(5,2) = 3/10
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)
    assert pass_hat_k(4, 4, 4) == 1.0
    assert pass_hat_k(4, 3, 4) == 0.0
    assert pass_hat_k(4, 2, 1) == pytest.approx(0.5)


def test_invalid_counts_rejected():
    for n, c, k in [(3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)]:
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)


def test_mean_ci_is_seeded_and_brackets_the_mean():
    values = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1]
    mean, low, high = mean_ci(values)
    assert mean == pytest.approx(0.7)
    assert low < mean < high
    assert mean_ci(values) == (mean, low, high)
    assert mean_ci([0.5]) == (0.5, 0.5, 0.5)
    assert math.isnan(mean_ci([])[0])


def test_summary_and_breakdown():
    records = [
        {"task_id": "a", "success": True, "score": 1.0, "task_meta": {"category": "x", "tags": ["t1", "t2"]}},
        {"task_id": "a", "success": False, "score": 0.5, "task_meta": {"category": "x", "tags": ["t1", "t2"]}},
        {"task_id": "b", "success": False, "score": 0.0, "task_meta": {"category": "y", "tags": ["t2"]}},
        {"task_id": "b", "success": False, "score": 0.0, "task_meta": {"category": "y", "tags": ["t2"]}},
    ]
    summary = summarize_attempts(records, ks=(1, 2))
    assert summary["pass@1"] == pytest.approx((0.5 + 0.0) / 2)
    assert summary["pass@2"] == pytest.approx((1.0 + 0.0) / 2)
    assert summary["pass^2"] == 0.0
    assert summary["mean_score"] == pytest.approx(0.375)
    by_category = breakdown(records, "category", ks=(1,))
    assert by_category["x"]["mean_score"] == pytest.approx(0.75)
    assert by_category["y"]["pass@1"] == 0.0
    by_tag = breakdown(records, "tags")
    assert by_tag["t1"]["episodes"] == 2 and by_tag["t2"]["episodes"] == 4
