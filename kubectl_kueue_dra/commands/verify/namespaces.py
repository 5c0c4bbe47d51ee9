"""Checks of queues and namespaces: LocalQueues point at existing ClusterQueues, and Kueue manages
the namespaces GPU jobs are submitted in (OpenShift: the ``kueue.openshift.io/managed=true``
label; upstream: ``managedJobsNamespaceSelector``). A job in an unmanaged namespace gets no
Workload and bypasses quota without any error."""

from __future__ import annotations

import json
from typing import Any

from ...k8s.labels import namespace_labels, selector_matches
from ...kueue.names import OPENSHIFT_MANAGED_LABEL
from ...kueue.queues.proposals import apply_command, cluster_queue_for, fitting_cluster_queues, local_queue, selects
from ...kueue.queues.namespaces import OPENSHIFT, namespace_rule
from ...kueue.workloads.status import NAMESPACE_MISMATCH
from . import fixes
from .facts import Facts
from .model import FAIL, PASS, SKIP, WARN
from .registry import Result, check, names, needs, plural


@check("local-queues", "namespaces")
def local_queues(f: Facts) -> Result:
    skip = needs(f, "LocalQueue", "ClusterQueue")
    if skip:
        return skip
    existing = {cq["metadata"]["name"] for cq in f.cluster_queues or []}
    lqs = f.local_queues or []
    dangling = [(lq, cq) for lq, cq in f.queue_targets if cq not in existing]
    if dangling:
        lq = dangling[0][0]
        return Result(FAIL, "LocalQueues pointing at a ClusterQueue that does not exist: " + names(
            [f"{q['metadata']['namespace']}/{q['metadata']['name']} → {cq}" for q, cq in dangling])
            + ": their workloads are never admitted", _repoint(f, lq))
    dra = f.dra_queues
    feeding = [lq for lq, cq in f.queue_targets if cq in dra]
    if dra and not feeding:
        return Result(WARN, f"no LocalQueue points at the ClusterQueues covering DRA quota ({names(sorted(dra))}): "
                            "users have nowhere to submit GPU jobs", _first_local_queue(f, sorted(dra)[0]))
    return Result(PASS, f"{plural(len(lqs), 'LocalQueue')}; {len(feeding)} feed ClusterQueues covering DRA quota"
                        + (f" ({names(sorted(dra))})" if dra else ""))


def _repoint(f: Facts, lq: dict[str, Any]) -> str:
    """spec.clusterQueue of a LocalQueue is immutable: the LocalQueue is recreated pointing at the
    ClusterQueue its namespace can use (the one that selects it and covers DRA quota)."""
    ns, name = lq["metadata"]["namespace"], lq["metadata"]["name"]
    namespace = next((n for n in f.namespaces or [] if n["metadata"]["name"] == ns), None)
    dra = [cq for cq in f.cluster_queues or [] if cq["metadata"]["name"] in f.dra_queues]
    choice = cluster_queue_for(dra or f.cluster_queues, namespace=namespace)
    candidates = fitting_cluster_queues(dra or f.cluster_queues, namespace=namespace)
    if choice is not None:
        target, why = choice.value, choice.why
    elif candidates:
        target, why = "<cluster-queue>", f"<cluster-queue>: one of {names(candidates, limit=8)}"
    elif f.cluster_queues:
        target, why = "<cluster-queue>", f"<cluster-queue>: no ClusterQueue selects namespace {ns}; widen one's " \
                                         "namespaceSelector first"
    else:
        target, why = "<cluster-queue>", "<cluster-queue>: no ClusterQueue exists; create one first"
    return (f"{f.cli} -n {ns} delete localqueue {name} && "
            f"{apply_command(local_queue(ns, name, target))}  # spec.clusterQueue cannot be changed; {why}")


#: namespaces that are no team's: never where a fix creates a LocalQueue
_SYSTEM = ("kube-", "openshift")


def _first_local_queue(f: Facts, cluster_queue: str) -> str:
    """A LocalQueue for ``cluster_queue`` in the one namespace it selects that is a team's (not a
    system namespace, not Kueue's), else in a namespace the user names."""
    cq = next(q for q in f.cluster_queues or [] if q["metadata"]["name"] == cluster_queue)
    teams = sorted(n["metadata"]["name"] for n in f.namespaces or [] if selects(cq, n)
                   and not n["metadata"]["name"].startswith(_SYSTEM)
                   and n["metadata"]["name"] not in ("default", f.install.namespace))
    ns = teams[0] if len(teams) == 1 else "<namespace>"
    why = (f"the one team namespace ClusterQueue {cluster_queue} selects" if len(teams) == 1 else
           "<namespace>: where GPU jobs are submitted" + (f", one of {names(teams, limit=8)}" if teams else ""))
    return f"{apply_command(local_queue(ns, cluster_queue, cluster_queue))}  # {why}"


def _selector_text(cq: dict[str, Any]) -> str:
    selector = (cq.get("spec") or {}).get("namespaceSelector")
    if selector is None:
        return "no namespaceSelector, which selects no namespace"
    return "namespaceSelector " + json.dumps(selector, separators=(",", ":"))


@check("queue-namespaces", "namespaces")
def queue_namespaces(f: Facts) -> Result:
    """Each LocalQueue's namespace must be selected by its ClusterQueue's namespaceSelector; Kueue
    reads a missing selector as selecting no namespace. Otherwise the workloads stay Pending with
    Kueue's "workload namespace doesn't match ClusterQueue selector"."""
    skip = needs(f, "LocalQueue", "ClusterQueue", "Namespace")
    if skip:
        return skip
    cqs = {cq["metadata"]["name"]: cq for cq in f.cluster_queues or []}
    found = {ns["metadata"]["name"]: ns for ns in f.namespaces or []}
    dra = f.dra_queues
    unselected: dict[str, list[str]] = {}
    checked = 0
    for lq, target in f.queue_targets:
        namespace = lq["metadata"]["namespace"]
        if target not in cqs or (dra and target not in dra) or namespace not in found:
            continue  # a dangling LocalQueue is local-queues' finding, a missing namespace managed-namespaces'
        checked += 1
        selector = (cqs[target].get("spec") or {}).get("namespaceSelector")
        if selector is None or not selector_matches(selector, namespace_labels(found[namespace])):
            unselected.setdefault(str(target), []).append(namespace)
    if not unselected:
        return Result(PASS, f"{plural(checked, 'LocalQueue')} in namespaces their ClusterQueue selects")
    parts = [f"{cq} ({_selector_text(cqs[cq])}) does not select {names(sorted(set(ns)))}"
             for cq, ns in sorted(unselected.items())]
    first = sorted(unselected)[0]
    selector = (cqs[first].get("spec") or {}).get("namespaceSelector")
    labels = (selector or {}).get("matchLabels") or {}
    fix = (fixes.label_namespaces(f, sorted(set(unselected[first])), " ".join(f"{k}={v}" for k, v in labels.items()))
           if selector is not None and labels and not selector.get("matchExpressions") else
           f"{f.cli} patch clusterqueue {first} --type=merge -p '{{\"spec\":{{\"namespaceSelector\":{{}}}}}}'"
           "  # {} selects every namespace; or a selector matching the teams meant to use it")
    return Result(FAIL, "ClusterQueues that do not select their LocalQueues' namespaces: " + "; ".join(parts)
                  + f": those workloads stay Pending (\"{NAMESPACE_MISMATCH}\")", fix)


@check("managed-namespaces", "namespaces")
def managed_namespaces(f: Facts) -> Result:
    skip = needs(f, "LocalQueue", "Namespace")
    if skip:
        return skip
    dra = f.dra_queues
    wanted = sorted({lq["metadata"]["namespace"] for lq, cq in f.queue_targets if not dra or cq in dra})
    if not wanted:
        return Result(SKIP, "no LocalQueue, so no namespace to check")
    found = {ns["metadata"]["name"]: ns for ns in f.namespaces or []}
    if not f.install.openshift and (not f.config.found or f.config.problem):
        return Result(SKIP, "Kueue's configuration is unknown, so is its managedJobsNamespaceSelector")
    rule = namespace_rule(openshift=f.install.openshift, configuration=f.config.document,
                          kueue_version=f.install.version, kueue_namespace=f.install.namespace)
    missing = [ns for ns in wanted if ns not in found]
    bad = [ns for ns in wanted if ns in found and not rule.manages(found[ns])]
    if rule.how == OPENSHIFT:
        unlabelled = [ns for ns in wanted if ns in bad or ns in missing]
        if unlabelled:
            return Result(FAIL, f"namespaces with LocalQueues lack {OPENSHIFT_MANAGED_LABEL}=true: "
                                f"{names(unlabelled)}; the operator's Kueue manages no job there, so GPU jobs "
                                "run without quota and without any error",
                          fixes.label_namespaces(f, unlabelled, f"{OPENSHIFT_MANAGED_LABEL}=true"))
        return Result(PASS, f"{names(wanted)}: labelled {OPENSHIFT_MANAGED_LABEL}=true")
    if rule.selector is None:
        return Result(PASS, f"Kueue {f.install.version} manages labelled jobs in every namespace")
    selector = rule.selector
    if bad:
        match_labels = selector.get("matchLabels") or {}
        fix = (fixes.label_namespaces(f, bad, " ".join(f"{k}={v}" for k, v in match_labels.items()))
               if match_labels and not selector.get("matchExpressions") else
               fixes.edit_kueue_config(f, "managedJobsNamespaceSelector"))
        return Result(FAIL, f"namespaces with LocalQueues do not match {rule.describe()} ({json.dumps(selector)}): "
                            f"{names(bad)}; Kueue manages no job there, so GPU jobs run without quota", fix)
    if missing:
        return Result(WARN, f"namespaces of LocalQueues not found: {names(missing)}", None)
    return Result(PASS, f"{names(wanted)} match {rule.describe()}")
