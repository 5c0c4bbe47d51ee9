"""The commands that fix what a check found, for the platform at hand (OpenShift or upstream)."""

from __future__ import annotations

import json
from typing import Any

from ... import gates as g
from ...k8s.names import qualified_name_error
from ...kueue.config.load import DEPLOYMENT_NAME
from ...kueue.names import DEFAULT_NAMESPACE
from ...kueue.install import command
from ...kueue.install.command import map_restart, shell_quote
from ...kueue.queues.proposals import cover_fix
from .facts import Facts

FEATUREGATE_CAVEAT = "CustomNoUpgrade cannot be undone and blocks minor upgrades"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def enable_kubernetes_gate(f: Facts, gate: str) -> str:
    if f.openshift:
        spec = g.featuregate_spec(f.feature_gate)
        if spec is not None and spec.feature_set in ("TechPreviewNoUpgrade", "DevPreviewNoUpgrade"):
            return (f"FeatureGate featureSet {spec.feature_set} cannot be changed; {gate} comes with a "
                    "later OpenShift release (on by default from Kubernetes 1.36)")
        enabled = list(spec.enabled) if spec is not None and spec.custom else []
        enabled = list(dict.fromkeys(enabled + [gate]))
        patch = {"spec": {"featureSet": "CustomNoUpgrade", "customNoUpgrade": {"enabled": enabled}}}
        return f"oc patch featuregate cluster --type=merge -p {shell_quote(_json(patch))}  # {FEATUREGATE_CAVEAT}"
    return (f"start kube-apiserver, kube-controller-manager, kube-scheduler and every kubelet with "
            f"--feature-gates={gate}=true")


def restart_kueue(f: Facts) -> str:
    return command.restart_kueue(f.install.namespace)


def edit_kueue_config(f: Facts, what: str) -> str:
    """The command that opens Kueue's configuration for editing ``what``."""
    return command.edit_kueue_config(f.config, f.install.namespace, what)


def map_set(f: Facts, mapping: Any, *, classes: list[str] | None = None, counter: str | None = None,
            selector: str | None = None) -> str:
    """``kubectl kueue-dra map set`` re-stating a mapping with some parts changed (the command
    validates the result and writes only that mapping)."""
    args = [f"kubectl kueue-dra map set {mapping.name}"]
    args += [f"--device-class {c}" for c in (classes if classes is not None else mapping.device_class_names)]
    source = mapping.sources[0] if mapping.sources else None
    if source is not None:
        kind = "--counter" if source.type == "counter" else "--capacity"
        args.append(f"{kind} {counter if counter is not None and source.type == 'counter' else source.name}")
        args.append(f"--driver {source.driver}")
        sel = selector if selector is not None else source.selector
        if sel:
            args.append(f"--selector {shell_quote(sel)}")
    return " ".join(args) + map_restart(f.config.kind)


def map_remove_class(f: Facts, mapping: str, device_class: str) -> str:
    return f"kubectl kueue-dra map remove {mapping} --device-class {device_class}{map_restart(f.config.kind)}"


def set_kueue_gate(f: Facts, gate: str, value: bool = True) -> str:
    setting = f"{gate}={str(value).lower()}"
    if f.install.openshift:
        k8s_gate = g.KUEUE_NEEDS_K8S.get(gate)
        if k8s_gate is not None and g.OPERATOR_WRITES.get(k8s_gate) == gate:
            return ("the operator sets it only when FeatureGate spec.customNoUpgrade.enabled has "
                    f"{k8s_gate}: {enable_kubernetes_gate(f, k8s_gate)}; or upgrade the Kueue operator "
                    "to 1.5 (Kueue 0.19+ has it on by default)")
        return (f"the Kueue CR has no feature-gate field, so {gate} keeps Kueue's default; upgrade the "
                "Kueue operator")
    if f.install.cli_gates is not None:
        ns = f.install.namespace or DEFAULT_NAMESPACE
        return (f"kubectl -n {ns} edit deployment {DEPLOYMENT_NAME}  # set {setting} in the manager's "
                "--feature-gates")
    return edit_kueue_config(f, f"featureGates: {{{gate}: {str(value).lower()}}}")


def cover_resource(f: Facts, resource: Any, supply: tuple[Any, str]) -> str:
    """The patch of a ClusterQueue covering ``resource`` (a DraResource) with what the cluster has
    of it (``supply``: the amount or None, and of what or why not), or the ClusterQueue to create."""
    args = cover_fix(f.cluster_queues, resource.name, supply[0], what=supply[1], prefer=f.dra_queues)
    if args.get("variant") == "no-queue":
        return (f"create a ClusterQueue whose resourceGroups cover {resource.name} with a nominalQuota "
                "(kubectl apply -f clusterqueue.yaml)")
    return f"{args['prefix']}{args['command']}"


def label_namespaces(f: Facts, namespaces: list[str], label: str) -> str:
    return f"{f.cli} label namespace {' '.join(namespaces)} {label}"


def clear_extended_resource(device_class: str) -> str:
    return f"kubectl kueue-dra classes set-extended-resource {device_class} --clear"


def set_extended_resource(device_class: str, others: list[str]) -> str:
    """``classes set-extended-resource`` giving ``device_class`` the extended resource name pods
    will request: ``vendor/kind`` of a class named ``kind.vendor`` (gpu.nvidia.com → nvidia.com/gpu),
    said as the choice it is."""
    kind, _, vendor = device_class.partition(".")
    name = f"{vendor}/{kind}" if vendor and qualified_name_error(f"{vendor}/{kind}") is None else \
        f"example.com/{kind[:63]}"
    also = f" (the others: {', '.join(others)})" if others else ""
    return (f"{'e.g. ' if others else ''}kubectl kueue-dra classes set-extended-resource {device_class} {name}  # "
            f"{name}: the name pods will request, yours to choose{also}")
