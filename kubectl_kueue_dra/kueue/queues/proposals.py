"""What a fix proposes, from the objects a command already read: the quota resource to map a
DeviceClass under, the ClusterQueue change that covers a resource with the nominal quota the
devices give, the LocalQueue a workload can name, the ClusterQueue a LocalQueue can point at.

Each answer is a real name or amount from the cluster, or — when the cluster does not decide it —
an explicit choice said as one (``why``), never a guess said as a fact. Pure: objects in, text out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...k8s.labels import namespace_labels, selector_matches
from ...k8s.names import qualified_name_error
from ..install.command import shell_quote
from .cluster_queue import covered_resources

Obj = dict[str, Any]
#: the resource names Kubernetes itself defines (never a DRA quota resource)
_KUBERNETES = {"cpu", "memory", "ephemeral-storage", "storage", "pods"}
#: where a value the cluster cannot give stands in a command, with why in a comment after it
NOMINAL_QUOTA = "<nominal-quota>"
FLAVOR = "<flavor>"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def kubernetes_resource(name: str) -> bool:
    """A resource Kubernetes defines (cpu, memory, hugepages-2Mi, …), or an extended resource a
    device plugin advertises (``vendor/name``): never the name of a mapping a fix proposes."""
    return name in _KUBERNETES or name.startswith("hugepages-") or "/" in name


@dataclass(frozen=True)
class Choice:
    """A value a fix fills in, and why it is that one (said beside the command)."""

    value: str
    why: str


def quota_resource_for(device_class: str, *, cluster_queues: Sequence[Obj] | None,
                       charged: Iterable[str] | None) -> Choice:
    """The quota resource to map ``device_class`` under: the one resource ``cluster_queues`` cover
    that no mapping or DeviceClass charges (the queue was made for it), else the class's own name
    (a name is the user's choice; it then needs quota in a ClusterQueue). ``charged`` None: what is
    charged is unknown, so no covered resource is taken for free."""
    if cluster_queues is not None and charged is not None:
        taken = set(charged)
        free: dict[str, str] = {}
        for cq in cluster_queues:
            for r in sorted(covered_resources(cq)):
                if r not in taken and not kubernetes_resource(r):
                    free.setdefault(r, _name(cq))
        if len(free) == 1:
            [(resource, queue)] = free.items()
            return Choice(resource, f"ClusterQueue {queue} covers {resource}, which no mapping or DeviceClass "
                                    "charges yet")
    name = device_class if qualified_name_error(device_class) is None else device_class.split(".")[0][:63]
    return Choice(name, "the quota resource's name is yours to choose; a ClusterQueue must then cover it "
                        "with a nominalQuota")


def cover_ops(cluster_queue: Obj, resource: str, quota: str) -> list[Obj]:
    """The JSON patch that adds ``resource`` to the first resource group of ``cluster_queue``: to its
    coveredResources, and to each flavor's resources (Kueue wants both in the same order), the
    nominal quota on the first flavor and 0 on the others."""
    groups = (cluster_queue.get("spec") or {}).get("resourceGroups") or []
    if not groups:
        return [{"op": "add", "path": "/spec/resourceGroups", "value": [{
            "coveredResources": [resource],
            "flavors": [{"name": FLAVOR, "resources": [{"name": resource, "nominalQuota": quota}]}]}]}]
    ops: list[Obj] = [{"op": "add", "path": "/spec/resourceGroups/0/coveredResources/-", "value": resource}]
    for i, _ in enumerate(groups[0].get("flavors") or []):
        ops.append({"op": "add", "path": f"/spec/resourceGroups/0/flavors/{i}/resources/-",
                    "value": {"name": resource, "nominalQuota": quota if i == 0 else "0"}})
    return ops


def cover_command(cluster_queue: Obj, resource: str, quota: str | None, *, what: str) -> str:
    """``kubectl patch clusterqueue`` covering ``resource`` with ``quota`` (what the cluster has:
    ``what`` says of what); None: unknown (``what`` says why), a placeholder stands in the patch
    and the comment after the command says why."""
    given = quota if quota is not None else NOMINAL_QUOTA
    ops = cover_ops(cluster_queue, resource, given)
    groups = (cluster_queue.get("spec") or {}).get("resourceGroups") or []
    flavors = [str(f.get("name")) for f in (groups[0].get("flavors") or [])] if groups else []
    notes = [f"{given} is {what}" if quota is not None else
             f"{NOMINAL_QUOTA}: what the cluster has is unknown ({what})"]
    if not groups:
        notes.append(f"{FLAVOR}: the ResourceFlavor its nodes are in")
    elif len(flavors) > 1:
        notes.append(f"split it over flavors {', '.join(flavors)} as their nodes hold the devices")
    return (f"kubectl patch clusterqueue {_name(cluster_queue)} --type=json -p {shell_quote(_json(ops))}  # "
            + "; ".join(notes))


def apply_command(obj: Obj) -> str:
    """The command that creates ``obj`` from the fix's own text."""
    return f"echo '{_json(obj)}' | kubectl apply -f -"


def local_queue(namespace: str, name: str, cluster_queue: str) -> Obj:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": cluster_queue}}


def selects(cluster_queue: Obj, namespace: Obj | None) -> bool:
    """Whether the ClusterQueue's namespaceSelector selects the namespace (unknown namespace: yes)."""
    selector = (cluster_queue.get("spec") or {}).get("namespaceSelector")
    return namespace is None or (selector is not None and selector_matches(selector, namespace_labels(namespace)))


def cluster_queue_for(cluster_queues: Sequence[Obj] | None, *, namespace: Obj | None,
                      resources: Iterable[str] = ()) -> Choice | None:
    """The ClusterQueue a LocalQueue in ``namespace`` can point at: the one that selects the
    namespace and covers every resource in ``resources``; None when none or several do (the
    ``why`` of a None is the caller's)."""
    wanted = set(resources)
    fit = fitting_cluster_queues(cluster_queues, namespace=namespace, resources=wanted)
    if len(fit) != 1:
        return None
    covers = f"covers {', '.join(sorted(wanted))} and " if wanted else ""
    return Choice(fit[0], f"the one ClusterQueue that {covers}selects the namespace")


def fitting_cluster_queues(cluster_queues: Sequence[Obj] | None, *, namespace: Obj | None,
                           resources: Iterable[str] = ()) -> list[str]:
    """Every ClusterQueue that selects ``namespace`` and covers ``resources``, by name."""
    wanted = set(resources)
    return sorted(_name(cq) for cq in cluster_queues or []
                  if selects(cq, namespace) and wanted <= covered_resources(cq))


def local_queue_for(local_queues: Sequence[Obj] | None, namespace: str, *,
                    cluster_queues: Sequence[Obj] | None = None, resources: Iterable[str] = ()) -> Choice | None:
    """The LocalQueue of ``namespace`` a workload can name: the only one there, or the only one
    whose ClusterQueue covers ``resources``; None when there is none, or several fit."""
    here = [lq for lq in local_queues or [] if (lq.get("metadata") or {}).get("namespace") == namespace]
    if len(here) == 1:
        return Choice(_name(here[0]), f"the one LocalQueue in namespace {namespace}")
    wanted = set(resources)
    if not wanted or cluster_queues is None:
        return None
    covering = {_name(cq) for cq in cluster_queues if wanted <= covered_resources(cq)}
    fit = sorted(_name(lq) for lq in here if str((lq.get("spec") or {}).get("clusterQueue")) in covering)
    if len(fit) != 1:
        return None
    return Choice(fit[0], f"the one LocalQueue in namespace {namespace} whose ClusterQueue covers "
                          f"{', '.join(sorted(wanted))}")


def cover_fix(cluster_queues: Sequence[Obj] | None, resource: str, have: Any, *, what: str,
              prefer: Iterable[str] = ()) -> dict[str, Any]:
    """The fix arguments of NotCoveredByQueue (and the variant): the patch of one ClusterQueue —
    one already covering a DRA resource (``prefer``), else the first by name, an example when there
    are several — covering ``resource`` with what the cluster has of it (``have``, a quantity or
    None; ``what`` says of what, or why it is unknown)."""
    queues = sorted(cluster_queues or [], key=_name)
    if not queues:
        return {"variant": "no-queue", "resource": resource}
    preferred = set(prefer)
    cq = next((q for q in queues if _name(q) in preferred), queues[0])
    return {"prefix": "e.g. " if len(queues) > 1 else "",
            "command": cover_command(cq, resource, None if have is None else str(have), what=what),
            "resource": resource}


def map_command(device_classes: Sequence[str], *, cluster_queues: Sequence[Obj] | None, charged: Iterable[str] | None,
                restart: str = "") -> str:
    """``kubectl kueue-dra map set`` charging the first of ``device_classes`` (the rest are named
    after it: each wants a mapping of its own, unless they are meant to share one quota)."""
    first, rest = device_classes[0], list(device_classes[1:])
    choice = quota_resource_for(first, cluster_queues=cluster_queues, charged=charged)
    then = f"; then the same for {', '.join(rest)}" if rest else ""
    return f"kubectl kueue-dra map set {choice.value} --device-class {first}{restart}  # {choice.why}{then}"


def selecting_labels(selector: Obj | None) -> str | None:
    """The labels that make a namespace match ``selector`` (``k=v k2=v2``), when its matchLabels say
    it all (no matchExpressions); None otherwise."""
    if not selector or selector.get("matchExpressions"):
        return None
    labels = selector.get("matchLabels") or {}
    return " ".join(f"{k}={v}" for k, v in labels.items()) or None


def queue_note(choice: Choice | None, namespace: str, candidates: Sequence[str], *, comment: bool) -> str:
    """What follows a fix that fills in a LocalQueue (or its placeholder): why that one, or which
    to pick; a shell comment after a command, in parentheses after prose."""
    if choice is not None:
        why = choice.why
    elif candidates:
        why = f"<local-queue>: one of {', '.join(candidates)}"
    else:
        why = f"<local-queue>: namespace {namespace} has no LocalQueue; create one first"
    return f"  # {why}" if comment else f" ({why})"
