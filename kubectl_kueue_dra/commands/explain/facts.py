"""What ``explain`` reads about one workload, gathered once at the edge and passed down: the
subject (the Job, its Workload, the pod sets), Kueue's configuration and installation, the
namespace, the LocalQueue → ClusterQueue lookup (done here, once), and on demand the lists the
answer needs — the ClusterQueues and Cohorts of the quota world, ResourceFlavors, AdmissionChecks,
priority classes, the Workloads of the cluster, the events, the ResourceSlices.

Each list is read at most once (a ``cached_property`` over the view, which caches too), and only
when a step asks for it. A list the user may not read is None; ``problem(kind)`` says why, so the
answers that depend on it are "unknown" with that reason. No step below re-reads or re-derives
what is here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from ...environment import SYSTEM_CLOCK
from ...kube.view import ClusterView
from ...kube.visibility import PendingWorkloads, pending_workloads
from ...kueue.charge import Unknowable
from ...kueue.install.command import cli_of
from ...kueue.queues.activity import Activity, cluster_queue_activity
from ...kueue.queues.lookup import admitted_cluster_queue, cluster_queue_name_of, queue_name_of
from ...kueue.queues.namespaces import ManagedNamespaces, namespace_rule
from ...kueue.queues.quota_tree import TreeError, build_tree, cohort_of
from ...kueue.scheduler.world import QueueWorld
from ...kueue.workloads.checks import Check, check_rules, workload_checks
from .context import KueueContext, Settings, kueue_context, kueue_gate
from .queue_world import queue_world
from .subject import Subject

Obj = dict[str, Any]
class SliceSource:
    """ResourceSlices as the charge engine asks for them: every slice, or one driver's (on a live
    cluster a ``spec.driver`` field selector, so a MIG counter charge reads only the GPU driver's
    slices); each answer is cached by the view, a driver's list is cut from an earlier full list."""

    def __init__(self, view: ClusterView):
        self.view = view

    def __call__(self, driver: str | None) -> list[Obj]:
        """The slices, or ``Unknowable`` naming the 403 (never an empty list for an unreadable one)."""
        found = self.view.try_list("ResourceSlice") if driver is None else \
            self.view.try_list("ResourceSlice", field_selector={"spec.driver": driver})
        if found is None:
            raise Unknowable("counters" if driver else "claim-templates", self.view.forbidden("ResourceSlice")
                             or "the ResourceSlices could not be read")
        return found

    def for_drivers(self, drivers: set[str]) -> list[Obj] | None:
        """Those drivers' slices; None when they cannot be read."""
        try:
            return [s for d in sorted(drivers) for s in self(d)]
        except Unknowable:
            return None


def _values(named: dict[str, Obj] | None) -> list[Obj] | None:
    return None if named is None else list(named.values())


def _named(objects: list[Obj] | None) -> dict[str, Obj] | None:
    return None if objects is None else {str(o["metadata"]["name"]): o for o in objects}


@dataclass(kw_only=True)
class ExplainFacts:
    """One workload's facts; see the module docstring."""

    view: ClusterView
    subject: Subject
    kueue: KueueContext
    #: the time the answer is given at (backoffs, remaining execution time)
    now: datetime
    namespace: Obj | None
    local_queue_name: str | None
    local_queue: Obj | None
    cluster_queue_name: str | None
    cluster_queue: Obj | None
    managed: ManagedNamespaces  # the namespaces Kueue manages
    #: kind → the 403 that left the LocalQueue, ClusterQueue or Namespace above None: unknown, not missing
    unreadable: dict[str, str] = field(default_factory=dict)

    @property
    def workload(self) -> Obj | None:
        return self.subject.workload

    def kueue_gate(self, gate: str) -> bool:
        """Whether a Kueue feature gate is on (its flags, its configuration, else the version's default)."""
        return kueue_gate(self.kueue, gate)

    def problem(self, kind: str) -> str:
        """Why a list of ``kind`` is None: the 403 it met, or that it could not be read."""
        return self.view.forbidden(kind) or f"the {kind}s could not be read"

    @cached_property
    def slices(self) -> SliceSource:
        return SliceSource(self.view)

    @cached_property
    def cli(self) -> str:
        """``oc`` or ``kubectl`` for the fixes (a 403 it meets makes the answer partial too)."""
        return cli_of(self.view, self.kueue.config)

    # -- the lists, each read once when an answer needs it ----------------------------------------
    @cached_property
    def cluster_queues(self) -> list[Obj] | None:
        return self.view.try_list("ClusterQueue")

    @cached_property
    def cohorts(self) -> list[Obj] | None:
        return self.view.try_list("Cohort")

    @cached_property
    def resource_flavors(self) -> dict[str, Obj] | None:
        return _named(self.view.try_list("ResourceFlavor"))

    @cached_property
    def admission_checks(self) -> dict[str, Obj] | None:
        return _named(self.view.try_list("AdmissionCheck"))

    @cached_property
    def workload_priority_classes(self) -> dict[str, Obj] | None:
        return _named(self.view.try_list("WorkloadPriorityClass"))

    @cached_property
    def priority_classes(self) -> dict[str, Obj] | None:
        return _named(self.view.try_list("PriorityClass"))

    @cached_property
    def workloads(self) -> list[Obj] | None:
        """Every Workload of the cluster (preemptors are looked up by UID; a cohort spans namespaces)."""
        return self.view.try_list("Workload")

    @cached_property
    def local_queues(self) -> list[Obj] | None:
        """Every LocalQueue (the ClusterQueue of another namespace's pending workload)."""
        return self.view.try_list("LocalQueue")

    @cached_property
    def events(self) -> list[Obj] | None:
        """The events of the workload's namespace."""
        return self.view.try_list("Event", self.subject.namespace)

    @cached_property
    def pods(self) -> list[Obj] | None:
        """The pods of the workload's namespace (one list, whatever the number of Workloads)."""
        return self.view.try_list("Pod", self.subject.namespace)

    @cached_property
    def claims(self) -> list[Obj] | None:
        """The ResourceClaims of the workload's namespace."""
        return self.view.try_list("ResourceClaim", self.subject.namespace)

    @cached_property
    def all_claims(self) -> list[Obj] | None:
        """Every ResourceClaim (each holds devices whose counters the others lose)."""
        return self.view.try_list("ResourceClaim")

    @cached_property
    def claim_templates(self) -> list[Obj] | None:
        """The ResourceClaimTemplates of the workload's namespace."""
        return self.view.try_list("ResourceClaimTemplate", self.subject.namespace)

    @cached_property
    def device_classes(self) -> list[Obj] | None:
        return self.view.try_list("DeviceClass")

    @cached_property
    def limit_ranges(self) -> list[Obj] | None:
        """The LimitRanges of the workload's namespace (Kueue's AdjustResources)."""
        return self.view.try_list("LimitRange", self.subject.namespace)

    @cached_property
    def runtime_classes(self) -> list[Obj] | None:
        return self.view.try_list("RuntimeClass")

    @cached_property
    def pending_workloads(self) -> PendingWorkloads | None:
        """Kueue's visibility API: the LocalQueue's pending workloads in queue order (None without a
        LocalQueue); an answer that could not be had says why."""
        if not self.local_queue_name or self.local_queue is None:
            return None
        return pending_workloads(self.view, self.subject.namespace, self.local_queue_name)

    # -- derived once -------------------------------------------------------------------------
    @cached_property
    def activity(self) -> Activity | None:
        """Whether the ClusterQueue admits: Kueue's Active condition, and the causes derived from
        the objects (its ResourceFlavors and AdmissionChecks are read only when it is not active)."""
        cq = self.cluster_queue
        if cq is None:
            return None
        recorded = next((c for c in (cq.get("status") or {}).get("conditions") or [] if c.get("type") == "Active"),
                        None)
        if recorded is not None and recorded.get("status") == "True":
            return cluster_queue_activity(cq, None, None)
        return cluster_queue_activity(cq, self.resource_flavors, self.admission_checks if check_rules(cq) else {})

    @cached_property
    def tree_cluster_queues(self) -> set[str] | None:
        """The ClusterQueues of the workload's cohort tree (only its own without a cohort); None
        without a ClusterQueue, or when the tree cannot be known (unreadable, a cycle)."""
        cq = self.cluster_queue
        if cq is None:
            return None
        name = str((cq.get("metadata") or {}).get("name") or "")
        if not cohort_of(cq):
            return {name}
        queues, cohorts = self.cluster_queues, self.cohorts
        if queues is None or cohorts is None:
            return None
        others = [q for q in queues if (q.get("metadata") or {}).get("name") != name]
        try:
            node = build_tree([cq, *others], cohorts)[name]
        except TreeError:
            return None
        root = node
        while root.parent is not None:
            root = root.parent
        names, todo = set(), [root]
        while todo:
            n = todo.pop()
            if n.kind == "ClusterQueue":
                names.add(n.name)
            todo.extend(n.children)
        return names

    @cached_property
    def cohort_reserving_workloads(self) -> list[Obj] | None:
        """The Workloads holding quota (``status.admission``) in a ClusterQueue of the cohort tree."""
        names, workloads = self.tree_cluster_queues, self.workloads
        if names is None or workloads is None:
            return None
        return [w for w in workloads if admitted_cluster_queue(w) in names]

    @cached_property
    def cohort_workloads(self) -> list[Obj] | None:
        """Every Workload of the cohort tree's ClusterQueues, pending ones through their LocalQueue
        (None when the Workloads, the LocalQueues or the tree cannot be read)."""
        names, workloads = self.tree_cluster_queues, self.workloads
        if names is None or workloads is None:
            return None
        if all(admitted_cluster_queue(w) for w in workloads):
            return [w for w in workloads if admitted_cluster_queue(w) in names]
        if self.local_queues is None:
            return None
        lqs = {(q["metadata"].get("namespace"), q["metadata"].get("name")): q for q in self.local_queues}
        return [w for w in workloads if cluster_queue_name_of(
            w, lqs.get((w["metadata"].get("namespace"), queue_name_of(w)))) in names]

    @cached_property
    def checks(self) -> list[Check]:
        """The workload's admission checks (the AdmissionChecks are read only when it has some)."""
        wl = self.workload
        if wl is None:
            return []
        if not check_rules(self.cluster_queue) and not (wl.get("status") or {}).get("admissionChecks"):
            return []
        return workload_checks(wl, self.cluster_queue, self.admission_checks)

    @cached_property
    def queue_world(self) -> QueueWorld:
        """What Kueue's scheduler decides from: every ClusterQueue, Cohort, ResourceFlavor, LocalQueue
        and Workload (the lists above, read once), the priority classes for a what-if, the gates and
        configuration the queue model follows."""
        read = {"ClusterQueue": lambda: self.cluster_queues, "Cohort": lambda: self.cohorts,
                "ResourceFlavor": lambda: _values(self.resource_flavors), "LocalQueue": lambda: self.local_queues,
                "Workload": lambda: self.workloads,
                "WorkloadPriorityClass": lambda: _values(self.workload_priority_classes),
                "PriorityClass": lambda: _values(self.priority_classes)}
        return queue_world(self.view, self.kueue, lambda kind: read[kind](), now=self.now,
                           what_if=self.workload is None)


def gather(view: ClusterView, subject: Subject, settings: Settings, *, now: datetime | None = None,
           kueue: KueueContext | None = None) -> ExplainFacts:
    """The facts of one workload: what every explanation needs is read here, the rest on demand."""
    ctx = kueue if kueue is not None else kueue_context(view, settings)
    ns = subject.namespace
    lq_name = subject.queue_name
    local_queue = view.try_get("LocalQueue", lq_name, ns) if lq_name else None
    cq_name = cluster_queue_name_of(subject.workload, local_queue)
    cluster_queue = view.try_get("ClusterQueue", cq_name) if cq_name else None
    namespace_obj = view.try_get("Namespace", ns)
    config = ctx.config
    managed = namespace_rule(openshift=config.kind == "Kueue", configuration=config.document,
                             kueue_version=ctx.semantics.version, kueue_namespace=ctx.kueue_namespace)
    unread = {kind: why for kind, got in (("LocalQueue", local_queue), ("ClusterQueue", cluster_queue),
                                          ("Namespace", namespace_obj))
              if got is None and (why := view.forbidden(kind))}
    return ExplainFacts(view=view, subject=subject, kueue=ctx, now=now or settings.now or SYSTEM_CLOCK.now(),
                        namespace=namespace_obj,
                        local_queue_name=lq_name, local_queue=local_queue, cluster_queue_name=cq_name,
                        cluster_queue=cluster_queue, managed=managed, unreadable=unread)
