"""Admission checks as Kueue applies them to one Workload: the checks its ClusterQueue names
(v1beta2 ``spec.admissionChecksStrategy.admissionChecks[{name, onFlavors}]``, v1beta1
``spec.admissionChecks: [name]``; no ``onFlavors`` means every flavor of the ClusterQueue), the
AdmissionCheck objects behind them (do they exist, which controller owns them, does that controller
mark them ``Active``), and the states Kueue's check controllers wrote on the Workload
(``status.admissionChecks[]``: Pending, Ready, Retry, Rejected, with a message).

Which checks a Workload gets (Kueue's ``AdmissionChecksForWorkload``): before quota reservation
only those that apply to every flavor of the ClusterQueue; with quota reserved those whose flavors
meet the admitted flavors. Kueue core never marks a check ``Active``: only its controller does, so
a check whose controller is not running keeps its ClusterQueue inactive.

Pure: objects in, facts out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]

PENDING, READY, RETRY, REJECTED = "Pending", "Ready", "Retry", "Rejected"
#: the controllers Kueue ships (the provisioning one runs inside Kueue; MultiKueue needs its setup)
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"


def all_flavors(cluster_queue: Obj) -> list[str]:
    """Every flavor of the ClusterQueue, in resource-group order."""
    out: list[str] = []
    for group in (cluster_queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            name = flavor.get("name")
            if name and name not in out:
                out.append(str(name))
    return out


def check_rules(cluster_queue: Obj | None) -> dict[str, list[str]]:
    """check name → the flavors it applies to (every flavor when the rule names none)."""
    spec = (cluster_queue or {}).get("spec") or {}
    flavors = all_flavors(cluster_queue or {})
    strategy = (spec.get("admissionChecksStrategy") or {}).get("admissionChecks")
    if strategy is not None:
        return {str(r["name"]): [str(f) for f in r.get("onFlavors") or []] or list(flavors)
                for r in strategy if isinstance(r, dict) and r.get("name")}
    return {str(name): list(flavors) for name in spec.get("admissionChecks") or [] if name}  # v1beta1


def admitted_flavors(workload: Obj) -> set[str]:
    """The flavors of ``status.admission`` (every pod set, every resource)."""
    admission = (workload.get("status") or {}).get("admission") or {}
    return {str(f) for a in admission.get("podSetAssignments") or [] for f in (a.get("flavors") or {}).values()}


def applicable_checks(workload: Obj, cluster_queue: Obj | None) -> list[str]:
    """The checks Kueue gives the Workload now, sorted by name."""
    rules = check_rules(cluster_queue)
    if (workload.get("status") or {}).get("admission"):
        admitted = admitted_flavors(workload)
        return sorted(name for name, flavors in rules.items() if admitted & set(flavors))
    every = set(all_flavors(cluster_queue or {}))
    return sorted(name for name, flavors in rules.items() if set(flavors) >= every)


def _condition(obj: Obj, ctype: str) -> Obj | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


@dataclass(frozen=True, kw_only=True)
class Check:
    """One admission check of a Workload, with what its object and its controller say."""

    name: str
    #: the Workload's recorded state (None: Kueue has not synced the check onto the Workload yet)
    state: str | None
    message: str | None
    since: str | None  # lastTransitionTime of the state
    requeue_after_seconds: int | None
    retry_count: int | None
    #: the flavors the ClusterQueue's rule names for it ([] when the ClusterQueue does not name it)
    on_flavors: list[str]
    #: whether the ClusterQueue's rules give it to the Workload now
    applies: bool
    #: the AdmissionCheck object: exists (None: unreadable), its controller, whether it is Active
    exists: bool | None
    controller: str | None
    active: bool | None
    active_reason: str | None = None
    active_message: str | None = None

    def doc(self) -> dict[str, Any]:
        """``admissionChecks[]`` of ``explain -o json``."""
        return {"name": self.name, "state": self.state, "message": self.message, "since": self.since,
                "controllerName": self.controller, "active": self.active, "exists": self.exists,
                "onFlavors": self.on_flavors, "applies": self.applies,
                "requeueAfterSeconds": self.requeue_after_seconds, "retryCount": self.retry_count}


def workload_checks(workload: Obj, cluster_queue: Obj | None, objects: dict[str, Obj] | None) -> list[Check]:
    """The Workload's checks: those its status holds and those its ClusterQueue gives it now, by
    name. ``objects``: the AdmissionChecks by name (None when they could not be read)."""
    recorded = {str(s.get("name")): s for s in (workload.get("status") or {}).get("admissionChecks") or []
                if isinstance(s, dict) and s.get("name")}
    rules = check_rules(cluster_queue)
    applies = set(applicable_checks(workload, cluster_queue))
    out = []
    for name in sorted(set(recorded) | applies):
        state = recorded.get(name) or {}
        obj = None if objects is None else objects.get(name)
        active_cond = _condition(obj, "Active") if obj is not None else None
        active = None if objects is None else \
            (obj is not None and bool(active_cond) and (active_cond or {}).get("status") == "True")
        out.append(Check(
            name=name, state=state.get("state") if name in recorded else None, message=state.get("message") or None,
            since=state.get("lastTransitionTime"), requeue_after_seconds=state.get("requeueAfterSeconds"),
            retry_count=state.get("retryCount"), on_flavors=rules.get(name, []), applies=name in applies,
            exists=None if objects is None else obj is not None,
            controller=((obj or {}).get("spec") or {}).get("controllerName") if obj is not None else None,
            active=active, active_reason=(active_cond or {}).get("reason"),
            active_message=(active_cond or {}).get("message")))
    return out


def worst_state(checks: list[Check]) -> str | None:
    """The state that decides what Kueue does next: Rejected, then Retry, then Pending (or not
    synced), else Ready; None without checks."""
    states = [c.state for c in checks if c.applies or c.state is not None]
    if not states:
        return None
    for state in (REJECTED, RETRY):
        if state in states:
            return state
    return PENDING if any(s != READY for s in states) else READY


def retry_or_rejected_message(checks: list[Check], state: str) -> str:
    """Kueue's text for the checks in Retry or Rejected (sorted by name; one or several):
    ``AdmissionCheck in Retry state: "name" (message)``, ``AdmissionChecks in …: "a" (m); "b"``."""
    named = sorted((c for c in checks if c.state == state), key=lambda c: c.name)
    parts = [f'"{c.name}"' + (f" ({c.message})" if c.message else "") for c in named]
    noun = "AdmissionCheck" if len(parts) == 1 else "AdmissionChecks"
    return f"{noun} in {state} state: " + "; ".join(parts)
