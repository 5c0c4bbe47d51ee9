"""What Kueue's scheduler decides from (``QueueWorld``), and what the queue model reads off one
Workload (``WorkloadInfo``): its priority, its queue, the quota it holds, the conditions that order
it.

``QueueWorld`` holds the objects as plain dicts. A list that could not be read is None, and
``unreadable`` says why: every answer that depends on it is "unknown" with that reason.

Priority (``pkg/util/priority``): the Workload's ``spec.priority`` (nil is 0), set once by the job
reconciler from a WorkloadPriorityClass (label ``kueue.x-k8s.io/priority-class``), else the pod
template's PriorityClass, else the lowest ``globalDefault`` PriorityClass; ``spec.priorityClassRef``
says which. With the alpha gate PriorityBoost the annotation ``kueue.x-k8s.io/priority-boost`` is
added ("effective priority").

Pure: objects in, facts out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from ...dra.quantity import QuantityError, parse_quantity
from ..units import kueue_int

Obj = dict[str, Any]
T = TypeVar("T")
FlavorResource = tuple[str, str]

#: the gates the queue model follows: (default in 0.18, default in 0.19)
GATE_DEFAULTS: dict[str, tuple[bool, bool]] = {
    "FlavorFungibility": (True, True),
    "PrioritySortingWithinCohort": (True, True),
    "AdmissionGatedBy": (False, True),
    "VectorizedResourceRequests": (True, True),
    "PartialAdmission": (True, True),
    "PriorityBoost": (False, False),
    "SchedulerTimestampPreemptionBuffer": (False, False),
    "QuotaCheckStrategy": (False, True),
}
_LISTS = {"ClusterQueue": "cluster_queues", "Cohort": "cohorts", "ResourceFlavor": "resource_flavors",
          "LocalQueue": "local_queues", "AdmissionCheck": "admission_checks", "Workload": "workloads",
          "PriorityClass": "priority_classes", "WorkloadPriorityClass": "workload_priority_classes"}
_PLURAL = {"ClusterQueue": "ClusterQueues", "Cohort": "Cohorts", "ResourceFlavor": "ResourceFlavors",
           "LocalQueue": "LocalQueues", "AdmissionCheck": "AdmissionChecks", "Workload": "Workloads",
           "PriorityClass": "PriorityClasses", "WorkloadPriorityClass": "WorkloadPriorityClasses"}
BOOST_ANNOTATION = "kueue.x-k8s.io/priority-boost"
GATED_BY_ANNOTATION = "kueue.x-k8s.io/admission-gated-by"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True, kw_only=True)
class QueueWorld:
    """The cluster as Kueue's scheduler sees it. Lists are all namespaces; None: not readable."""

    version: str = "0.19.2"
    cluster_queues: Sequence[Obj] | None = ()
    cohorts: Sequence[Obj] | None = ()
    resource_flavors: Sequence[Obj] | None = ()
    local_queues: Sequence[Obj] | None = ()
    admission_checks: Sequence[Obj] | None = ()
    workloads: Sequence[Obj] | None = ()
    priority_classes: Sequence[Obj] | None = ()
    workload_priority_classes: Sequence[Obj] | None = ()
    #: gate -> on, where the installation sets it; the others take the version's default
    gates: Mapping[str, bool] = field(default_factory=dict)
    #: the configuration's fairSharing (None: the configuration could not be read)
    fair_sharing: bool | None = False
    #: the configuration's admissionFairSharing
    admission_fair_sharing: bool = False
    #: resources.quotaCheckStrategy: IgnoreUndeclared (under its gate, QuotaCheckStrategy): a resource no
    #: resource group of the ClusterQueue declares is left out of the flavor search, not a failure
    ignore_undeclared: bool = False
    #: waitForPodsReady.blockAdmission in effect (None: the configuration could not be read)
    block_admission: bool | None = False
    #: waitForPodsReady.requeuingStrategy.timestamp (Kueue's default: Eviction)
    requeuing_timestamp: str = "Eviction"
    #: kind -> why its list could not be read
    unreadable: Mapping[str, str] = field(default_factory=dict)
    #: "now", for the one ordering that uses it (a candidate without a reservation time)
    now: datetime | None = None

    @property
    def v19(self) -> bool:
        parts = self.version.lstrip("v").split(".")
        try:
            return (int(parts[0]), int(parts[1])) >= (0, 19)
        except (ValueError, IndexError):
            return True

    @property
    def ignores_undeclared(self) -> bool:
        """``IgnoreUndeclaredResources``: the strategy, under its gate."""
        return self.ignore_undeclared and self.gate("QuotaCheckStrategy")

    def gate(self, name: str) -> bool:
        if name in self.gates:
            return bool(self.gates[name])
        return GATE_DEFAULTS[name][1 if self.v19 else 0]

    def unknown(self, *kinds: str) -> str | None:
        """Why something that needs the lists of ``kinds`` cannot be known, or None."""
        for kind in kinds:
            if getattr(self, _LISTS[kind]) is None:
                why = self.unreadable.get(kind)
                return f"the {_PLURAL[kind]} could not be read" + (f" ({why})" if why else "")
        return None

    def items(self, kind: str) -> Sequence[Obj]:
        return getattr(self, _LISTS[kind]) or ()

    def named(self, kind: str, name: str | None, namespace: str | None = None) -> Obj | None:
        for obj in self.items(kind):
            meta = obj.get("metadata") or {}
            if meta.get("name") == name and (namespace is None or meta.get("namespace") == namespace):
                return obj
        return None


def condition(obj: Obj, ctype: str) -> Obj | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def is_true(obj: Obj, ctype: str) -> bool:
    c = condition(obj, ctype)
    return bool(c and c.get("status") == "True")


def parse_time(text: Any) -> datetime | None:
    """An RFC 3339 timestamp as the API server writes it (``2024-01-02T03:04:05Z``)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def meta(obj: Obj) -> Obj:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


def spec(obj: Obj) -> Obj:
    s = obj.get("spec")
    return s if isinstance(s, dict) else {}


def base_priority(wl: Obj) -> int:
    value = spec(wl).get("priority")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def effective_priority(wl: Obj, world: QueueWorld) -> int:
    """``EffectivePriority``: spec.priority, plus the boost annotation with the PriorityBoost gate."""
    priority = base_priority(wl)
    if world.gate("PriorityBoost"):
        try:
            priority += int((meta(wl).get("annotations") or {}).get(BOOST_ANNOTATION) or 0)
        except ValueError:
            pass
    return priority


def queue_order_time(wl: Obj, world: QueueWorld) -> datetime:
    """``Ordering.GetQueueOrderTimestamp``: the eviction time after a PodsReady timeout (with
    requeuingStrategy.timestamp Eviction) or an admission-check eviction, else the creation time
    (PrioritySortingWithinCohort off: a reclaim-while-borrowing preemption time + 1ms)."""
    evicted = condition(wl, "Evicted")
    if evicted and evicted.get("status") == "True":
        when = parse_time(evicted.get("lastTransitionTime"))
        if when and ((evicted.get("reason") == "PodsReadyTimeout" and world.requeuing_timestamp == "Eviction")
                     or evicted.get("reason") == "AdmissionCheck"):
            return when
    if not world.gate("PrioritySortingWithinCohort"):
        preempted = condition(wl, "Preempted")
        if preempted and preempted.get("status") == "True" and \
                preempted.get("reason") == "InCohortReclaimWhileBorrowing":
            when = parse_time(preempted.get("lastTransitionTime"))
            if when:
                return when + timedelta(milliseconds=1)
    return parse_time(meta(wl).get("creationTimestamp")) or _EPOCH


def _amount(resource: str, value: Any) -> int:
    try:
        return kueue_int(resource, parse_quantity(value if value is not None else "0"))
    except QuantityError:
        return 0


@dataclass(frozen=True, kw_only=True)
class WorkloadInfo:
    """A Workload as the scheduler's cache holds it."""

    obj: Obj
    namespace: str
    name: str
    uid: str
    priority: int
    queue_name: str | None
    #: status.admission.clusterQueue (None without an admission)
    cluster_queue: str | None
    #: the quota it holds, per (flavor, resource), from status.admission
    usage: Mapping[FlavorResource, int]
    evicted: bool
    #: when its QuotaReserved condition became True (None: no reservation)
    reserved_since: datetime | None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def job_uid(self) -> str | None:
        return (meta(self.obj).get("labels") or {}).get(JOB_UID_LABEL)


def holds_quota(wl: Obj) -> bool:
    """``HasActiveQuotaReservation``: QuotaReserved, not finished, active."""
    return is_true(wl, "QuotaReserved") and not is_true(wl, "Finished") and spec(wl).get("active") is not False


def pods_not_ready(world: QueueWorld) -> list[Obj] | None:
    """The workloads Kueue's cache holds whose pods are not all ready (``WorkloadsNotReady``: quota
    held, ``PodsReady`` not True), which block every admission under waitForPodsReady.blockAdmission;
    None when the Workloads could not be read."""
    if world.workloads is None:
        return None
    return [w for w in world.workloads if holds_quota(w) and not is_true(w, "PodsReady")]


def admission_usage(wl: Obj) -> dict[FlavorResource, int]:
    """``totalRequestsFromAdmission``: status.admission's resourceUsage per chosen flavor, scaled
    down when pods became reclaimable after admission."""
    status = wl.get("status") or {}
    reclaim = {r.get("name"): r.get("count") or 0 for r in status.get("reclaimablePods") or []}
    counts = {ps.get("name"): ps.get("count", 1) for ps in spec(wl).get("podSets") or []}
    out: dict[FlavorResource, int] = {}
    for psa in (status.get("admission") or {}).get("podSetAssignments") or []:
        name = psa.get("name")
        count = psa.get("count") if isinstance(psa.get("count"), int) else counts.get(name, 1)
        after = max(0, (counts.get(name, count) or 0) - (reclaim.get(name) or 0))
        flavors = psa.get("flavors") or {}
        for res, q in (psa.get("resourceUsage") or {}).items():
            value = _amount(res, q)
            if after < count and count:
                value = value // count * after
            flavor = flavors.get(res)
            if flavor is not None:
                out[(flavor, res)] = out.get((flavor, res), 0) + value
    return out


def workload_info(wl: Obj, world: QueueWorld) -> WorkloadInfo:
    m = meta(wl)
    qr = condition(wl, "QuotaReserved")
    since = parse_time(qr.get("lastTransitionTime")) if qr and qr.get("status") == "True" else None
    admitted_to = ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue")
    return WorkloadInfo(obj=wl, namespace=str(m.get("namespace") or ""), name=str(m.get("name") or ""),
                        uid=str(m.get("uid") or ""), priority=effective_priority(wl, world),
                        queue_name=spec(wl).get("queueName"), cluster_queue=admitted_to,
                        usage=admission_usage(wl), evicted=is_true(wl, "Evicted"), reserved_since=since)


_MEMO: dict[tuple[Any, ...], tuple[object, Any]] = {}


def memo(world: QueueWorld, kind: str, what: str, build: Callable[[], T]) -> T:
    """``build()`` once per list object of ``kind`` (the view hands every explain of a run the
    same list) and gate settings: ``explain`` of every workload parses each list once."""
    source = getattr(world, _LISTS[kind])
    key = (id(source), kind, what, tuple(sorted(world.gates.items())), world.version, world.requeuing_timestamp)
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is source:
        return hit[1]  # type: ignore[no-any-return]
    if len(_MEMO) > 32:
        _MEMO.clear()
    value = build()
    _MEMO[key] = (source, value)  # the list is kept, so its id is not reused while cached
    return value


def holders(world: QueueWorld) -> list[WorkloadInfo]:
    """The Workloads that hold quota now (every namespace), in the list's order."""
    return list(memo(world, "Workload", "holders", lambda: [
        workload_info(wl, world) for wl in world.items("Workload")
        if holds_quota(wl) and ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue")]))
