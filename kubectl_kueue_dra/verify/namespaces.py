"""Checks of queues and namespaces: LocalQueues point at existing ClusterQueues, and Kueue manages
the namespaces GPU jobs are submitted in (OpenShift: the ``kueue.openshift.io/managed=true``
label; upstream: ``managedJobsNamespaceSelector``). A job in an unmanaged namespace gets no
Workload and bypasses quota without any error."""

from __future__ import annotations

import json
from typing import Any

from .. import gates as g
from ..kueue.queues import covered_resources
from . import fixes
from .facts import Facts
from .model import FAIL, PASS, SKIP, WARN
from .quota import dra_resources
from .registry import Result, check, names, needs, plural

MANAGED_LABEL = "kueue.openshift.io/managed"
NAME_LABEL = "kubernetes.io/metadata.name"


def selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """metav1.LabelSelector semantics; an empty selector matches everything."""
    if not selector:
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != str(value):
            return False
    for req in selector.get("matchExpressions") or []:
        key, op, values = req.get("key"), req.get("operator"), [str(v) for v in req.get("values") or []]
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def default_namespace_selector(kueue_namespace: str) -> dict[str, Any]:
    """Kueue's default managedJobsNamespaceSelector (apis/config/v1beta2/defaults.go)."""
    return {"matchExpressions": [{"key": NAME_LABEL, "operator": "NotIn",
                                  "values": ["kube-system", kueue_namespace]}]}


def _dra_queues(f: Facts) -> set[str]:
    resources = {r.name for r in dra_resources(f)}
    return {cq["metadata"]["name"] for cq in f.cluster_queues or [] if covered_resources(cq) & resources}


@check("local-queues", "namespaces")
def local_queues(f: Facts) -> Result:
    skip = needs(f, "LocalQueue", "ClusterQueue")
    if skip:
        return skip
    existing = {cq["metadata"]["name"] for cq in f.cluster_queues or []}
    lqs = f.local_queues or []
    dangling = [lq for lq in lqs if (lq.get("spec") or {}).get("clusterQueue") not in existing]
    if dangling:
        lq = dangling[0]
        target = sorted(_dra_queues(f) or existing)
        patch = json.dumps({"spec": {"clusterQueue": target[0] if target else "<cluster-queue>"}},
                           separators=(",", ":"))
        return Result(FAIL, "LocalQueues pointing at a ClusterQueue that does not exist: " + names(
            [f"{q['metadata']['namespace']}/{q['metadata']['name']} → {(q.get('spec') or {}).get('clusterQueue')}"
             for q in dangling]) + ": their workloads are never admitted",
            f"{f.cli} -n {lq['metadata']['namespace']} patch localqueue {lq['metadata']['name']} --type=merge "
            f"-p '{patch}'")
    dra = _dra_queues(f)
    feeding = [lq for lq in lqs if (lq.get("spec") or {}).get("clusterQueue") in dra]
    if dra and not feeding:
        return Result(WARN, f"no LocalQueue points at the ClusterQueues covering DRA quota ({names(sorted(dra))}): "
                            "users have nowhere to submit GPU jobs",
                      f"{f.cli} -n <namespace> create -f localqueue.yaml  # spec.clusterQueue: {sorted(dra)[0]}")
    return Result(PASS, f"{plural(len(lqs), 'LocalQueue')}; {len(feeding)} feed ClusterQueues covering DRA quota"
                        + (f" ({names(sorted(dra))})" if dra else ""))


@check("managed-namespaces", "namespaces")
def managed_namespaces(f: Facts) -> Result:
    skip = needs(f, "LocalQueue", "Namespace")
    if skip:
        return skip
    dra = _dra_queues(f)
    wanted = sorted({lq["metadata"]["namespace"] for lq in f.local_queues or []
                     if not dra or (lq.get("spec") or {}).get("clusterQueue") in dra})
    if not wanted:
        return Result(SKIP, "no LocalQueue, so no namespace to check")
    labels = {}
    for ns in f.namespaces or []:
        name = ns["metadata"]["name"]
        labels[name] = {NAME_LABEL: name, **((ns.get("metadata") or {}).get("labels") or {})}
    if f.install.openshift:
        bad = [ns for ns in wanted if labels.get(ns, {}).get(MANAGED_LABEL) != "true"]
        if bad:
            return Result(FAIL, f"namespaces with LocalQueues lack {MANAGED_LABEL}=true: {names(bad)}; the "
                                "operator's Kueue manages no job there, so GPU jobs run without quota and "
                                "without any error", fixes.label_namespaces(f, bad, f"{MANAGED_LABEL}=true"))
        return Result(PASS, f"{names(wanted)}: labelled {MANAGED_LABEL}=true")
    if not f.config.found or f.config.problem:
        return Result(SKIP, "Kueue's configuration is unknown, so is its managedJobsNamespaceSelector")
    version = g.kueue_minor(f.install.version) or g.ASSUMED_KUEUE_VERSION
    if version < (0, 15):
        return Result(PASS, f"Kueue {f.install.version} manages labelled jobs in every namespace")
    kueue_ns = str(f.config.document.get("namespace") or f.install.namespace or "kueue-system")
    selector = f.config.document.get("managedJobsNamespaceSelector")
    which = "managedJobsNamespaceSelector" if selector else "the default managedJobsNamespaceSelector"
    selector = selector or default_namespace_selector(kueue_ns)
    missing = [ns for ns in wanted if ns not in labels]
    bad = [ns for ns in wanted if ns in labels and not selector_matches(selector, labels[ns])]
    if bad:
        match_labels = selector.get("matchLabels") or {}
        fix = (fixes.label_namespaces(f, bad, " ".join(f"{k}={v}" for k, v in match_labels.items()))
               if match_labels and not selector.get("matchExpressions") else
               fixes.edit_kueue_config(f, "managedJobsNamespaceSelector"))
        return Result(FAIL, f"namespaces with LocalQueues do not match {which} ({json.dumps(selector)}): "
                            f"{names(bad)}; Kueue manages no job there, so GPU jobs run without quota", fix)
    if missing:
        return Result(WARN, f"namespaces of LocalQueues not found: {names(missing)}", None)
    return Result(PASS, f"{names(wanted)} match {which}")


