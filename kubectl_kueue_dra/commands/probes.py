"""The live evidence of Kubernetes gates: ``/metrics`` read and dry-run probes sent through
``kube/probes``, their answers judged by ``gates``; and the state of a few gates now, for the
commands that only need to say it (``classes``, ``explain``, ``map set``; ``verify`` gathers its
own evidence, every method, in ``verify/facts``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import gates as g
from ..kube import errors
from ..kube.probes import dry_run_create, read_metrics_text, served_dra_api
from ..kube.live import LiveView
from ..kube.view import ClusterView
from ..kueue.install.platform import read_cluster_version


def read_feature_metrics(client: Any) -> tuple[dict[str, g.FeatureMetric] | None, str | None]:
    """The ``kubernetes_feature_enabled`` samples of the serving kube-apiserver, or (None, why)."""
    text, problem = read_metrics_text(client)
    return (None, problem) if text is None else (g.parse_feature_metrics(text), None)


def dry_run_probe(view: Any, gate: str) -> g.Evidence:
    """Dry-run create an object with the gate's field and report whether the server kept it.
    A 403 (no create permission) or any other refusal is an answer of "could not tell"."""
    api_version = served_dra_api(view)
    if api_version is None:
        return g.Evidence("probe", None, "resource.k8s.io is not served")
    kind_name, body = g.probe_bodies(api_version)[gate]
    returned, refused = dry_run_create(view, kind_name, body)
    if returned is None:
        return g.Evidence("probe", None, refused or "no answer")
    return g.probe_evidence(gate, returned)


def gate_states_now(view: ClusterView, gates: Iterable[str], *, probe: bool = False,
                    dropped: dict[str, g.Evidence] | None = None) -> dict[str, g.GateState]:
    """The state of ``gates`` now, from what a live server tells: the OpenShift FeatureGate status,
    /metrics, (with ``probe``) a dry-run probe of a gate nothing else told, the fields the server
    dropped from stored objects (``dropped``), then the default of the server's minor. From a
    snapshot: the FeatureGate it holds, the dropped fields, else unknown with the reason."""
    wanted = list(gates)
    inp = g.KubernetesInputs(dropped=dict(dropped or {}))
    feature_gate = view.try_get("FeatureGate", "cluster") if view.serves("FeatureGate") else None
    inp.feature_gate = feature_gate
    if feature_gate is not None:
        inp.openshift_version = read_cluster_version(view).version
    if view.live:
        try:
            version_doc = view.server_version()
            inp.minor = g.kube_minor(version_doc)
            inp.minor_source = f"server {(version_doc or {}).get('gitVersion')}"
        except errors.KubeError as e:
            inp.minor_source = e.message
    if inp.minor is None and inp.openshift_version:
        inp.minor = g.openshift_kube_minor(inp.openshift_version)
        inp.minor_source = f"OpenShift {inp.openshift_version}"
    if isinstance(view, LiveView):
        inp.metrics, inp.metrics_problem = read_feature_metrics(view.client)
        for gate in wanted:
            if probe and gate in g.PROBED_FIELD and g.resolve_kubernetes_gates(inp)[gate].learned_from not in (
                    "featuregate-status", "metrics"):
                inp.probes[gate] = dry_run_probe(view, gate)
    else:
        inp.metrics_problem = "an offline snapshot: /metrics needs a live server"
    states = g.resolve_kubernetes_gates(inp)
    return {gate: states[gate] for gate in wanted}
