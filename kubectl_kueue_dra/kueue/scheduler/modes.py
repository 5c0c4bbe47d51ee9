"""How the flavor assigner ranks a flavor, and when it looks at the next one.

Modes, worst first (``preemptionMode``): noFit < noPreemptionCandidates < preempt < reclaim < fit;
with them the borrowing level (the height of the cohort whose quota is needed, 0 without
borrowing). ``is_preferred(a, b)``: a noFit never wins; in 0.19 a flavor without preemption
candidates ranks below every flavor that can be admitted; then ``flavorFungibility.preference``:
BorrowingOverPreemption (the default) compares the mode first, then the borrowing level;
PreemptionOverBorrowing the other way round.

``should_try_next``: after noFit or no candidates always; after a preemption when
``whenCanPreempt`` is TryNextFlavor (the default); after borrowing when ``whenCanBorrow`` is
TryNextFlavor (default MayStopSearch). Otherwise the search stops at this flavor.

Resource order: 0.19 walks a pod set's resources sorted by the FNV-1a-64 hash of their names
(``pkg/resources/slice_requests.go``); 0.18 walks a Go map, a different order each cycle.

Pure.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

NO_FIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = range(5)
MODE_NAMES = {NO_FIT: "noFit", NO_CANDIDATES: "noPreemptionCandidates", PREEMPT: "preempt", RECLAIM: "reclaim",
              FIT: "fit"}
TRY_NEXT, MAY_STOP = "TryNextFlavor", "MayStopSearch"
BORROWING_OVER_PREEMPTION, PREEMPTION_OVER_BORROWING = "BorrowingOverPreemption", "PreemptionOverBorrowing"


@dataclass(frozen=True)
class GMode:
    """A flavor's (or one resource's) mode and borrowing level."""

    mode: int
    borrow: int = 0

    @property
    def public(self) -> str:
        """``FlavorAssignmentMode``: NoFit, Preempt (with or without candidates) or Fit."""
        return "NoFit" if self.mode == NO_FIT else "Fit" if self.mode == FIT else "Preempt"


WORST = GMode(NO_FIT, sys.maxsize)
BEST = GMode(FIT, 0)


@dataclass(frozen=True)
class Fungibility:
    when_can_borrow: str = MAY_STOP
    when_can_preempt: str = TRY_NEXT
    preference: str | None = None

    @classmethod
    def of(cls, cluster_queue: dict[str, Any]) -> Fungibility:
        """``spec.flavorFungibility`` with Kueue's defaults; v1beta1's Borrow/Preempt mean MayStopSearch."""
        raw = (cluster_queue.get("spec") or {}).get("flavorFungibility") or {}

        def policy(value: Any, default: str) -> str:
            if value in ("Borrow", "Preempt"):
                return MAY_STOP
            return value if value in (TRY_NEXT, MAY_STOP) else default

        preference = raw.get("preference")
        return cls(policy(raw.get("whenCanBorrow"), MAY_STOP), policy(raw.get("whenCanPreempt"), TRY_NEXT),
                   preference if preference in (BORROWING_OVER_PREEMPTION, PREEMPTION_OVER_BORROWING) else None)


def is_preferred(a: GMode, b: GMode, fungibility: Fungibility, v19: bool) -> bool:
    """Whether ``a`` is strictly better than ``b``."""
    if a.mode == NO_FIT:
        return False
    if b.mode == NO_FIT:
        return True
    if v19 and (a.mode == NO_CANDIDATES) != (b.mode == NO_CANDIDATES):
        return a.mode != NO_CANDIDATES
    if fungibility.preference == PREEMPTION_OVER_BORROWING:
        if a.borrow != b.borrow:
            return a.borrow < b.borrow
        return a.mode > b.mode
    if a.mode != b.mode:
        return a.mode > b.mode
    return a.borrow < b.borrow


def worst(modes: Iterable[GMode], fungibility: Fungibility, v19: bool) -> GMode:
    """A flavor's representative mode: the worst of its resources' modes."""
    rep = BEST
    for m in modes:
        if is_preferred(rep, m, fungibility, v19):
            rep = m
    return rep


def should_try_next(mode: GMode, fungibility: Fungibility) -> bool:
    if mode.mode in (NO_FIT, NO_CANDIDATES):
        return True
    if mode.mode in (PREEMPT, RECLAIM) and fungibility.when_can_preempt == TRY_NEXT:
        return True
    return mode.borrow > 0 and fungibility.when_can_borrow == TRY_NEXT


def fnv1a64(name: str) -> int:
    h = 14695981039346656037
    for byte in name.encode():
        h ^= byte
        h = (h * 1099511628211) % 2**64
    return h


def resource_order(names: Iterable[str]) -> list[str]:
    """0.19's order of a pod set's resources: by FNV-1a-64 hash of the name, then the name."""
    return sorted(names, key=lambda n: (fnv1a64(n), n))
