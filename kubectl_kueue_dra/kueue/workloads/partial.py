"""Partial admission (``PartialAdmission`` gate, beta and on by default since Kueue 0.5): a
Workload whose pod sets have a ``minCount`` below their count may be admitted with fewer pods.

Kueue's scheduler tries the full counts first; when they neither fit nor can preempt, its
``PodSetReducer`` binary-searches ``sort.Search(totalDelta+1, …)`` over one index that lowers
every pod set by ``delta × i / totalDelta`` (integer division; ``delta = count - minCount``) and
admits the first index that fits. ``search`` walks the same indexes in the same order, so the
counts it finds are the ones Kueue would admit with, given the same ``fits``.

Pure: ``fits`` is the caller's quota check of a set of counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .podsets import PodSet


@dataclass(frozen=True)
class PartialSearch:
    #: the counts Kueue would admit with, per pod set, or None when no reduced counts fit
    counts: dict[str, int] | None
    #: the lowest counts Kueue would try (every pod set at its minCount)
    minimum: dict[str, int]


def can_be_partially_admitted(podsets: list[PodSet]) -> bool:
    """``workload.CanBePartiallyAdmitted``: some pod set has a minCount below its count."""
    return any(ps.min_count is not None and ps.count > ps.min_count for ps in podsets)


def _counts_at(podsets: list[PodSet], index: int, total_delta: int) -> dict[str, int]:
    out = {}
    for ps in podsets:
        delta = ps.count - (ps.min_count if ps.min_count is not None else ps.count)
        out[ps.name] = ps.count - (delta * index // total_delta)
    return out


def search(podsets: list[PodSet], fits: Callable[[dict[str, int]], bool]) -> PartialSearch:
    """Go's ``sort.Search`` over the reducer's indexes, keeping the last index that fitted."""
    total_delta = sum(ps.count - (ps.min_count if ps.min_count is not None else ps.count) for ps in podsets)
    minimum = _counts_at(podsets, total_delta, total_delta) if total_delta else {ps.name: ps.count for ps in podsets}
    if total_delta <= 0:
        return PartialSearch(None, minimum)
    last_good, last_counts = 0, None
    lo, hi = 0, total_delta + 1
    while lo < hi:
        mid = (lo + hi) // 2
        counts = _counts_at(podsets, mid, total_delta)
        if fits(counts):
            last_good, last_counts = mid, counts
            hi = mid
        else:
            lo = mid + 1
    return PartialSearch(last_counts if lo == last_good and last_counts is not None else None, minimum)
