"""Kueue's flavor assigner (``pkg/scheduler/flavorassigner``), re-run on the objects.

Pod-set group by pod-set group (pod sets sharing a ``podSetGroupName`` together, otherwise one
each, in spec order), resource by resource:

* a resource no resource group covers is skipped when its request is 0, else the pod set fails
  with ``resource R unavailable in ClusterQueue``;
* the ClusterQueue covering ``pods`` charges each pod set its pod count as ``pods``;
* the resource group of the resource is searched (``findFlavorForPodSets``): its flavors in spec
  order; a flavor that does not suit the pod set (``flavor_match``) is noFit with its one reason;
  otherwise each resource of the group is checked against quota (``fitsResourceQuota``):
  more than the maximum capacity → noFit (``insufficient quota for …``); fits what is available →
  fit (borrowing if the cohort lends it); else ``insufficient unused quota for R in flavor F, N
  more needed`` and, when the nominal quota holds the request, quota may be reclaimed higher up,
  or borrowWithinCohort allows it, the preemption oracle decides between noPreemptionCandidates,
  preempt and reclaim; otherwise noFit. The flavor's mode is the worst of its resources;
  ``flavorFungibility`` decides when to stop (``modes``). A group whose best flavor fits keeps no
  reasons; otherwise the reasons of every flavor tried stay.
* the first group without a flavor ends the pod set: its reasons replace the others, and the pod
  sets after it are not looked at.

Version differences: 0.19 walks resources in FNV-1a hash order and keeps checking the other
resources of a flavor after a noFit; 0.18 walks a Go map (random order each cycle) and stops a
flavor at its first noFit resource. So in 0.18 (or with the VectorizedResourceRequests gate off)
which of several failing groups, and which of a flavor's reasons, Kueue writes is not
determined: the assignment keeps every message Kueue can write.

Not modelled (the assignment is "unknown" instead): topology-aware scheduling. Not knowable from
objects: the flavor a previous cycle stopped at (Kueue may resume after it).

Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..units import format_usage
from . import preemption
from .assignment import (
    EXCEEDS,
    EXHAUSTED,
    MAX_VARIANTS,
    NOT_COVERED,
    Assignment,
    FlavorTry,
    GroupSearch,
    PodSetOutcome,
    QuotaCheck,
    Reason,
)
from .flavor_match import check_flavor
from .modes import FIT, NO_FIT, WORST, GMode, is_preferred, resource_order, should_try_next, worst
from .snapshot import NEVER, PodSetRequest, Preemptor, ResourceGroup, Snapshot
from .world import FlavorResource, meta, spec

Obj = dict[str, Any]
TAS_UNKNOWN = "topology-aware scheduling is not modelled"


@dataclass(frozen=True, kw_only=True)
class _Context:
    snap: Snapshot
    preemptor: Preemptor
    #: None: the ResourceFlavors are unknown, flavors are judged on quota alone
    flavors: Mapping[str, Obj] | None
    binary: frozenset[str]
    v19: bool
    fungibility_gate: bool

    def fmt(self, resource: str, value: int) -> str:
        return format_usage(resource, value, self.binary)


def _can_preempt_while_borrowing(snap: Snapshot) -> bool:
    policy = snap.rules.policy
    return policy.borrow_within_cohort != NEVER or (bool(snap.fair_sharing) and policy.reclaim_within_cohort != NEVER)


def _fits(ctx: _Context, fr: FlavorResource, assumed: int, request: int) -> QuotaCheck:
    node, (flavor, res) = ctx.snap.node, fr
    value = assumed + request
    available, maximum = max(0, node.available(fr)), node.potential(fr)
    check = QuotaCheck(flavor=flavor, resource=res, mode=GMode(NO_FIT), assumed=assumed, request=request,
                       available=available, maximum=maximum, nominal=node.nominal(fr))
    if value > maximum:
        check.reason = Reason(EXCEEDS, f"insufficient quota for {res} in flavor {flavor}, previously considered "
                              f"podsets requests ({ctx.fmt(res, assumed)}) + current podset request "
                              f"({ctx.fmt(res, request)}) > maximum capacity ({ctx.fmt(res, maximum)})", flavor, res)
        return check
    borrow, may_reclaim = node.borrowing_level(fr, value)
    if value <= available:
        check.mode = GMode(FIT, borrow)
        return check
    check.reason = Reason(EXHAUSTED, f"insufficient unused quota for {res} in flavor {flavor}, "
                          f"{ctx.fmt(res, value - available)} more needed", flavor, res)
    if node.nominal(fr) >= value or may_reclaim or _can_preempt_while_borrowing(ctx.snap):
        check.mode, check.oracle_unknown = preemption.simulate(ctx.snap, ctx.preemptor, fr, value)
    else:
        check.mode = GMode(NO_FIT, borrow)
    return check


def _search(ctx: _Context, members: list[PodSetRequest], requests: dict[str, int], rg: ResourceGroup,
            assumed: dict[FlavorResource, int]) -> GroupSearch:
    fungibility = ctx.snap.rules.fungibility
    wanted = {r: v for r, v in requests.items() if r in rg.covered}
    search = GroupSearch(group=rg.index, resources=resource_order(wanted))
    best: FlavorTry | None = None
    best_mode, stopped = WORST, False
    for fname in rg.flavors:
        attempt = FlavorTry(group=rg.index, flavor=fname)
        search.tries.append(attempt)
        if stopped:
            continue
        if ctx.flavors is not None:
            attempt.mismatch = check_flavor(fname, ctx.flavors.get(fname),
                                            [(p.name, dict(p.pod_spec)) for p in members])
        if attempt.mismatch is not None:
            attempt.mode = WORST
            if attempt.mismatch.error:
                search.error = f"the node affinity of pod set {attempt.mismatch.pod_set} cannot be parsed: " \
                               f"{(attempt.mismatch.taint or {}).get('error')}"
                search.reasons = attempt.reasons()
                return search
            continue
        attempt.checks = [_fits(ctx, (fname, r), assumed.get((fname, r), 0), wanted[r]) for r in search.resources]
        attempt.mode = worst((c.mode for c in attempt.checks), fungibility, ctx.v19)
        if ctx.fungibility_gate:
            if not should_try_next(attempt.mode, fungibility):
                best, best_mode, stopped = attempt, attempt.mode, True
                continue
            if is_preferred(attempt.mode, best_mode, fungibility, ctx.v19):
                best, best_mode = attempt, attempt.mode
        elif attempt.mode.mode > best_mode.mode:
            best, best_mode = attempt, attempt.mode
            stopped = best_mode.mode == FIT
    search.best = best
    if best is not None:
        best.chosen = True
        # the scan memory matters only for a workload that stays pending after this search
        search.stopped_early = stopped and best is not search.tries[-1] and best_mode.mode != FIT
    if best is None or best_mode.mode != FIT:
        search.reasons = [r for t in search.tries if t.mode is not None for r in t.reasons()]
    return search


def _groups(podsets: list[PodSetRequest]) -> list[list[PodSetRequest]]:
    order: dict[str, list[PodSetRequest]] = {}
    for i, ps in enumerate(podsets):
        order.setdefault(ps.group or f"#{i}", []).append(ps)
    return list(order.values())


def _tas_only(snap: Snapshot, flavors: Mapping[str, Obj]) -> bool:
    names = snap.rules.flavor_names
    return bool(names) and all(spec(flavors.get(n) or {}).get("topologyName") for n in names)


def assign(snap: Snapshot, preemptor: Preemptor, *, binary: frozenset[str] = frozenset(),
           counts: Mapping[str, int] | None = None) -> Assignment:
    """The flavor assignment Kueue computes for ``preemptor`` on ``snap`` (``counts``: reduced pod
    counts, for partial admission)."""
    world = snap.world
    unchecked = world.unknown("ResourceFlavor")
    flavors = None if unchecked else {str(meta(f).get("name")): f for f in world.items("ResourceFlavor")}
    if any(ps.topology for ps in preemptor.podsets) or (flavors is not None and _tas_only(snap, flavors)):
        return Assignment(unknown=TAS_UNKNOWN)
    ctx = _Context(snap=snap, preemptor=preemptor, flavors=flavors, binary=frozenset(binary), v19=world.v19,
                   fungibility_gate=world.gate("FlavorFungibility"))
    fixed_order = world.v19 and world.gate("VectorizedResourceRequests")
    podsets = [ps.scaled(counts[ps.name]) if counts and ps.name in counts else ps for ps in preemptor.podsets]
    covers_pods = snap.rules.group_of("pods") is not None
    asg = Assignment()
    if unchecked:
        asg.caveats.append(f"whether each flavor suits the pod sets (taints, node labels) is not checked: {unchecked}")
    for number, members in enumerate(groups := _groups(podsets)):
        own = [dict(ps.requests, **({"pods": ps.count} if covers_pods else {})) for ps in members]
        requests: dict[str, int] = {}
        for reqs in own:
            for r, v in reqs.items():
                requests[r] = requests.get(r, 0) + v
        searches: list[GroupSearch] = []
        for res in resource_order(requests):
            if any(res in s.resources for s in searches):
                continue
            rg = snap.rules.group_of(res)
            if rg is None:
                if requests[res] == 0 or world.ignores_undeclared:
                    continue  # IgnoreUndeclaredResources: neither searched nor charged
                searches.append(GroupSearch(group=-1, resources=[res], reasons=[
                    Reason(NOT_COVERED, f"resource {res} unavailable in ClusterQueue", resource=res)]))
            else:
                searches.append(_search(ctx, members, requests, rg, asg.usage))
            if fixed_order and searches[-1].failed:
                break  # Kueue looks no further; in a random order any group may come first
        failing = [s for s in searches if s.failed]
        stops = not world.v19
        chosen: dict[str, FlavorTry] = {}
        if failing:
            picked = failing[:1] if fixed_order else failing
            reasons = failing[0].reasons
            variants = [v for s in picked for v in s.variants(stops)]
            error = failing[0].error
        else:
            reasons = [r for s in searches for r in s.reasons]
            variants = [[]]
            for s in searches:
                variants = [a + b for a in variants for b in s.variants(stops)][:MAX_VARIANTS * 4]
                if s.best is not None:
                    chosen.update(dict.fromkeys(s.resources, s.best))
            error = None
        if len(variants) >= MAX_VARIANTS * 4:
            asg.caveats.append("Kueue can write more messages than the ones listed (too many orders to list)")
        failed = False
        for ps, reqs in zip(members, own):
            outcome = PodSetOutcome(name=ps.name, requests=reqs, searches=searches, reasons=list(reasons),
                                    error=error, variants=_dedupe(variants))
            for r in reqs:
                if r in chosen:
                    check = next(c for c in chosen[r].checks if c.resource == r)
                    outcome.flavors[r] = chosen[r].flavor
                    outcome.modes[r] = check.mode.public
                    asg.usage[(chosen[r].flavor, r)] = asg.usage.get((chosen[r].flavor, r), 0) + reqs[r]
                    asg.borrowing = max(asg.borrowing, check.mode.borrow)
            asg.podsets.append(outcome)
            failed = failed or error is not None or (bool(reqs) and not outcome.flavors)
        for s in searches:
            if s.stopped_early:
                asg.caveats.append(f"Kueue may resume the search of {', '.join(s.resources)} after flavor "
                                   f"{s.best.flavor if s.best else '?'} (it remembers where a previous cycle stopped)")
            for t in s.tries:
                for c in t.checks:
                    if c.oracle_unknown and c.oracle_unknown not in asg.caveats:
                        asg.caveats.append(c.oracle_unknown)
        if failed:
            asg.skipped = [ps.name for later in groups[number + 1:] for ps in later]
            break
    return asg


def _dedupe(variants: list[list[Reason]]) -> list[list[Reason]]:
    seen: dict[tuple[str, ...], list[Reason]] = {}
    for v in variants:
        seen.setdefault(tuple(sorted(r.message for r in v)), v)
    return list(seen.values())


def fits_or_preempts(snap: Snapshot, preemptor: Preemptor, asg: Assignment) -> bool | None:
    """What Kueue's partial-admission search accepts: a Fit, or a Preempt with targets (None:
    unknown)."""
    if asg.unknown is not None:
        return None
    if asg.mode == "Fit":
        return True
    if asg.mode != "Preempt":
        return False
    if preemption.unknown_reason(snap) is not None:
        return None
    return bool(preemption.targets(snap, preemptor, asg.total_requests(), asg.preempt_pairs()))
