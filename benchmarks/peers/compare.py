"""Side-by-side timing of one of our operations against a peer's, and the bench rows that report it.

Both sides run in the same process, round by round, taking turns at going first: a burst of machine
load (other jobs on the 2 shared cores) then lands on both samples of a round instead of on one side's
whole batch, and neither side always runs right after the other's caches were warmed.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable, Sequence

from mmenvs.benchmarks.harness import timing_row

Sample = Callable[[], Any]


def _timed(fn: Sample) -> tuple[float, bool]:
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1000.0, result is not False


def interleaved(ours: Sample, peer: Sample, repeat: int = 30, warmup: int = 2) -> tuple[list[float], list[float]]:
    """Milliseconds of ``repeat`` calls of ``ours`` and of ``peer``, alternated, each round's order swapped.

    A call that returns ``False`` declares its own sample invalid (say the peer's episode ended on a
    timer during the step, so it skipped the screenshot): that sample is dropped and the rounds go on
    until both sides have ``repeat`` valid samples. Both callables run in every round regardless, so the
    load stays alike. Raises ``RuntimeError`` naming the side that keeps failing after ``3 * repeat`` rounds.
    """
    if repeat < 1 or warmup < 0:
        raise ValueError(f"interleaved: repeat must be >= 1 and warmup >= 0, got repeat={repeat}, warmup={warmup}")
    for _ in range(warmup):
        ours()
        peer()
    ours_ms: list[float] = []
    peer_ms: list[float] = []
    for round_index in range(3 * repeat):
        if len(ours_ms) >= repeat and len(peer_ms) >= repeat:
            break
        order = ((ours, ours_ms), (peer, peer_ms)) if round_index % 2 == 0 else ((peer, peer_ms), (ours, ours_ms))
        for fn, samples in order:
            elapsed, valid = _timed(fn)
            if valid and len(samples) < repeat:
                samples.append(elapsed)
    for side, samples in (("ours", ours_ms), ("peer", peer_ms)):
        if len(samples) < repeat:
            raise RuntimeError(f"interleaved: the {side} callable gave only {len(samples)} valid samples of "
                               f"{repeat} in {3 * repeat} rounds (it returned False for the rest)")
    return ours_ms, peer_ms


def paired_rows(ours_name: str, ours_ms: Sequence[float], peer_name: str, peer_ms: Sequence[float], *,
                peer_label: str, target_ms: float | None = None, note: str | None = None,
                peer_note: str | None = None, **peer_extra: Any) -> list[dict[str, Any]]:
    """Two rows: the peer's timing, then ours with ``peer=peer_label`` and ``ratio = our median / peer median``.

    ``peer_extra`` adds columns to the peer's row (e.g. ``tree_pss_mb`` of its browser).
    """
    if not ours_ms or not peer_ms:
        raise ValueError(f"paired_rows: no samples for {ours_name!r} ({len(ours_ms)}) or {peer_name!r} ({len(peer_ms)})")
    peer_row = timing_row(peer_name, peer_ms, **peer_extra)
    if peer_note:
        peer_row["note"] = peer_note
    ratio = statistics.median(ours_ms) / statistics.median(peer_ms)
    our_row = timing_row(ours_name, ours_ms, peer=peer_label, ratio=ratio)
    if target_ms is not None:
        our_row["target_ms"] = target_ms
    if note:
        our_row["note"] = note
    return [peer_row, our_row]


def missing_rows(names: Sequence[str], reason: str) -> list[dict[str, Any]]:
    """Rows without numbers for a peer that cannot run here, each carrying ``reason`` as its note."""
    return [{"name": name, "note": reason} for name in names]
