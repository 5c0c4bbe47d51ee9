"""What the flavor assigner found, and the message Kueue composes from it (``Assignment.Message``).

Per pod set: every flavor of every resource group it searched, in Kueue's order, with the checks
and reasons; the flavor chosen per resource; the mode. The message lists, per pod set that is not
a plain fit, ``couldn't assign flavors to pod set P: `` and its reasons sorted byte-wise and joined
with ", "; pod sets are joined with "; ". A pod set whose selector Kubernetes cannot parse ends
the message with ``failed to assign flavors to pod set P: <error>`` alone.

Which reasons Kueue collects depends on the version (``assigner.py`` says how). When they depend
on an order Kueue does not fix (0.18's Go map iteration), the assignment keeps every message Kueue
can write (``messages``) and ``message`` is None.

Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

from ...findings import codes as F
from .flavor_match import Mismatch
from .modes import FIT, NO_FIT, GMode
from .world import FlavorResource

EXCEEDS, EXHAUSTED, NOT_COVERED = F.ExceedsQuota.name, F.QuotaExhausted.name, F.ResourceNotCovered.name
#: more possible messages than this and the model says only that the message is not determined
MAX_VARIANTS = 64


@dataclass(frozen=True)
class Reason:
    """One reason of Kueue's list, with the code this tool files it under."""

    code: str
    message: str
    flavor: str | None = None
    resource: str | None = None


@dataclass(kw_only=True)
class QuotaCheck:
    """``fitsResourceQuota`` for one (flavor, resource)."""

    flavor: str
    resource: str
    mode: GMode
    #: what earlier pod sets of the workload took of this flavor, and this pod set's request
    assumed: int
    request: int
    available: int
    maximum: int
    nominal: int
    reason: Reason | None = None
    #: the preemption oracle could not be run (why), the mode is a guess between the preempt modes
    oracle_unknown: str | None = None


@dataclass(kw_only=True)
class FlavorTry:
    group: int
    flavor: str
    mismatch: Mismatch | None = None
    checks: list[QuotaCheck] = field(default_factory=list)
    #: None: not tried (the search stopped before it)
    mode: GMode | None = None
    chosen: bool = False

    @property
    def outcome(self) -> str:
        if self.mode is None:
            return "notTried"
        if self.mismatch is not None or self.mode.mode == NO_FIT:
            return "noFit"
        if self.mode.mode == FIT:
            return "borrow" if self.mode.borrow > 0 else "fit"
        return "preempt"

    def reasons(self) -> list[Reason]:
        if self.mismatch is not None:
            return [Reason(self.mismatch.code, self.mismatch.message or "", self.flavor)]
        return [c.reason for c in self.checks if c.reason is not None]

    def variants(self, stops_at_no_fit: bool) -> list[list[Reason]]:
        """The reason lists this flavor can contribute. 0.18 stops a flavor at its first NoFit
        resource, in an order that changes every cycle: any one NoFit reason, after any subset
        of the reasons of the resources that still could preempt."""
        reasons = self.reasons()
        if self.mismatch is not None or not stops_at_no_fit:
            return [reasons]
        no_fit = [c.reason for c in self.checks if c.reason is not None and c.mode.mode == NO_FIT]
        others = [c.reason for c in self.checks if c.reason is not None and c.mode.mode != NO_FIT]
        if not no_fit:
            return [reasons]
        out = []
        for first in no_fit:
            for mask in range(1 << len(others)):
                out.append([first] + [r for i, r in enumerate(others) if mask >> i & 1])
        return out


@dataclass(kw_only=True)
class GroupSearch:
    """The search of one resource group for one pod-set group (``findFlavorForPodSets``)."""

    group: int  # index in spec.resourceGroups; -1: a resource no group covers
    resources: list[str]
    tries: list[FlavorTry] = field(default_factory=list)
    best: FlavorTry | None = None
    #: the reasons Kueue keeps for this group (none when it fits)
    reasons: list[Reason] = field(default_factory=list)
    error: str | None = None
    #: the flavor-scan memory could make Kueue start after the first flavor (only when the
    #: search stopped before the last flavor)
    stopped_early: bool = False

    @property
    def failed(self) -> bool:
        return self.error is not None or self.best is None

    def variants(self, stops_at_no_fit: bool) -> list[list[Reason]]:
        if self.best is not None and self.best.mode is not None and self.best.mode.mode == FIT:
            return [[]]
        if self.group < 0:
            return [self.reasons]
        out: list[list[Reason]] = [[]]
        for t in self.tries:
            if t.mode is None:
                continue
            out = [a + b for a, b in product(out, t.variants(stops_at_no_fit))][:MAX_VARIANTS * 4]
        return out


@dataclass(kw_only=True)
class PodSetOutcome:
    name: str
    requests: dict[str, int]
    #: resource -> flavor (Kueue's ``podSetAssignments[].flavors``)
    flavors: dict[str, str] = field(default_factory=dict)
    #: resource -> NoFit | Preempt | Fit
    modes: dict[str, str] = field(default_factory=dict)
    searches: list[GroupSearch] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    error: str | None = None
    #: the reason lists Kueue may record for it (one when determined)
    variants: list[list[Reason]] = field(default_factory=list)

    @property
    def fit(self) -> bool:
        return self.error is None and not self.reasons

    @property
    def mode(self) -> str:
        if self.fit:
            return "Fit"
        if self.error is not None or not self.flavors:
            return "NoFit"
        return min(self.modes.values(), key=("NoFit", "Preempt", "Fit").index)


@dataclass(kw_only=True)
class Assignment:
    podsets: list[PodSetOutcome] = field(default_factory=list)
    #: pod sets Kueue does not look at, because an earlier one got no flavor
    skipped: list[str] = field(default_factory=list)
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    borrowing: int = 0
    #: why the model cannot tell (topology-aware scheduling, …); the rest is then empty
    unknown: str | None = None
    #: facts the result rests on that the model could not check
    caveats: list[str] = field(default_factory=list)

    @property
    def mode(self) -> str:
        """``RepresentativeMode``: the worst over the pod sets, NoFit without any."""
        if self.unknown is not None or not self.podsets:
            return "NoFit"
        return min((ps.mode for ps in self.podsets), key=("NoFit", "Preempt", "Fit").index)

    def total_requests(self) -> dict[FlavorResource, int]:
        """``TotalRequestsFor``: what the preemptor needs, per chosen flavor, for the preemption
        search (non-zero requests; the ``pods`` count is not among them)."""
        return {fr: v for fr, v in self.usage.items() if v and fr[1] != "pods"}

    def preempt_pairs(self) -> set[FlavorResource]:
        """``flavorResourcesNeedPreemption``."""
        return {(f, r) for ps in self.podsets for r, f in ps.flavors.items() if ps.modes.get(r) == "Preempt"}

    def messages(self) -> list[str]:
        """Every message Kueue can compose for this assignment, sorted (one when determined)."""
        parts: list[list[str]] = []
        for ps in self.podsets:
            if ps.fit:
                continue
            if ps.error is not None:
                parts.append([f"failed to assign flavors to pod set {ps.name}: {ps.error}"])
                break
            parts.append(sorted({f"couldn't assign flavors to pod set {ps.name}: "
                                 + ", ".join(sorted(r.message for r in v)) for v in ps.variants}))
        out = {"; ".join(combo) for combo in product(*parts)} if parts else {""}
        return sorted(out)

    @property
    def message(self) -> str | None:
        """Kueue's message, when it is determined (a selector error's text is Kubernetes', not
        reproduced here)."""
        if self.unknown is not None or any(ps.error is not None for ps in self.podsets):
            return None
        found = self.messages()
        return found[0] if len(found) == 1 else None
