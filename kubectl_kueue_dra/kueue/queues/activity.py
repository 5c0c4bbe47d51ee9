"""Whether a ClusterQueue admits, as Kueue's ClusterQueue controller decides and writes into its
``Active`` condition: inactive while stopped (``stopPolicy`` Hold or HoldAndDrain), while it names
a ResourceFlavor or an AdmissionCheck that does not exist, an AdmissionCheck its controller does not
mark Active, or breaks MultiKueue's rules; reason = the first cause's, message
``Can't admit new workloads: <causes joined ", ">.``. A LocalQueue is inactive while stopped, or
while its ClusterQueue is missing or inactive.

The recorded condition is Kueue's word; what this module derives from the objects says why, and
stands in (marked derived) when the ClusterQueue has no condition (a snapshot without status).
A ClusterQueue's TAS flavors need a Topology: not derived here (a recorded TopologyNotFound is quoted).

Pure: objects in, the answer out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..workloads.checks import MULTIKUEUE_CONTROLLER, PROVISIONING_CONTROLLER, all_flavors, check_rules
from ..workloads.status import condition
from .lookup import stop_policy

Obj = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Cause:
    reason: str  # Stopped | FlavorNotFound | AdmissionCheckNotFound | AdmissionCheckInactive | MultiKueue…
    text: str  # Kueue's words for this cause
    names: list[str] = field(default_factory=list)  # the flavors or checks it names


@dataclass(frozen=True, kw_only=True)
class Activity:
    """A ClusterQueue's activity: Kueue's recorded ``Active`` condition and the causes derived."""

    name: str
    #: True/False: Kueue's condition; None: no condition recorded (see ``derived_active``)
    recorded: bool | None
    reason: str | None  # the recorded reason, else the first derived cause's
    message: str | None  # the recorded message, else the message Kueue would write
    causes: list[Cause]  # derived from the objects
    #: what the causes were derived from, when something could not be read
    unknown: list[str] = field(default_factory=list)

    @property
    def derived_active(self) -> bool | None:
        """Active by the objects (None when a cause could not be checked and none was found)."""
        return False if self.causes else (None if self.unknown else True)

    @property
    def active(self) -> bool | None:
        """Kueue's word when recorded, else the derived one."""
        return self.recorded if self.recorded is not None else self.derived_active


def _causes(cq: Obj, flavors: dict[str, Obj] | None,
            checks: dict[str, Obj] | None) -> tuple[list[Cause], list[str]]:
    causes, unknown = [], []
    if stop_policy(cq) != "None":
        causes.append(Cause(reason="Stopped", text="is stopped"))
    if flavors is None:
        unknown.append("ResourceFlavors")
    else:
        missing = [f for f in all_flavors(cq) if f not in flavors]
        if missing:
            causes.append(Cause(reason="FlavorNotFound", names=missing,
                                text=f"references missing ResourceFlavor(s): {','.join(missing)}"))
    rules = check_rules(cq)
    if not rules:
        return causes, unknown
    if checks is None:
        unknown.append("AdmissionChecks")
        return causes, unknown
    missing = sorted(n for n in rules if n not in checks)
    inactive = sorted(n for n in rules if n in checks and not _active(checks[n]))
    if missing:
        causes.append(Cause(reason="AdmissionCheckNotFound", names=missing,
                            text=f"references missing AdmissionCheck(s): {','.join(missing)}"))
    if inactive:
        causes.append(Cause(reason="AdmissionCheckInactive", names=inactive,
                            text=f"references inactive AdmissionCheck(s): {','.join(inactive)}"))
    causes.extend(_multikueue_causes(cq, rules, checks))
    return causes, unknown


def _controller(check: Obj) -> str:
    return str((check.get("spec") or {}).get("controllerName") or "")


def _active(check: Obj) -> bool:
    c = condition(check, "Active")
    return bool(c) and (c or {}).get("status") == "True"


def _multikueue_causes(cq: Obj, rules: dict[str, list[str]], checks: dict[str, Obj]) -> list[Cause]:
    present = {n: checks[n] for n in rules if n in checks}
    mk = sorted(n for n, c in present.items() if _controller(c) == MULTIKUEUE_CONTROLLER)
    prov = sorted(n for n, c in present.items() if _controller(c) == PROVISIONING_CONTROLLER)
    every = set(all_flavors(cq))
    per_flavor = sorted(n for n in mk if set(rules[n]) != every)
    out = []
    if len(mk) > 1:
        out.append(Cause(reason="MultipleMultiKueueAdmissionChecks", names=mk,
                         text="Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, found: "
                              + ",".join(mk)))
    if per_flavor:
        out.append(Cause(reason="MultiKueueAdmissionCheckAppliedPerFlavor", names=per_flavor,
                         text="Cannot specify MultiKueue AdmissionCheck per flavor, found: " + ",".join(per_flavor)))
    if mk and prov:
        out.append(Cause(reason="MultiKueueWithProvisioningRequest", names=mk + prov,
                         text="Cannot use both MultiKueue and ProvisioningRequest AdmissionChecks together, found: "
                              f"{','.join(mk)}, {','.join(prov)}"))
    return out


def inactive_message(causes: list[Cause]) -> str:
    """The ``Active=False`` message Kueue writes for these causes."""
    if not causes:
        return "Can't admit new workloads."
    return "Can't admit new workloads: " + ", ".join(c.text for c in causes) + "."


def cluster_queue_activity(cq: Obj, flavors: dict[str, Obj] | None, checks: dict[str, Obj] | None) -> Activity:
    """``flavors``/``checks``: the ResourceFlavors and AdmissionChecks by name (None: unreadable)."""
    name = str((cq.get("metadata") or {}).get("name") or "")
    causes, unknown = _causes(cq, flavors, checks)
    recorded = condition(cq, "Active")
    if recorded is not None and recorded.get("status") in ("True", "False"):
        return Activity(name=name, recorded=recorded.get("status") == "True", reason=recorded.get("reason"),
                        message=recorded.get("message"), causes=causes, unknown=unknown)
    if (cq.get("metadata") or {}).get("deletionTimestamp"):
        causes.insert(0, Cause(reason="Terminating", text="is terminating"))
        return Activity(name=name, recorded=None, reason="Terminating",
                        message="Can't admit new workloads; clusterQueue is terminating", causes=causes,
                        unknown=unknown)
    return Activity(name=name, recorded=None, reason=causes[0].reason if causes else None,
                    message=inactive_message(causes) if causes else None, causes=causes, unknown=unknown)
