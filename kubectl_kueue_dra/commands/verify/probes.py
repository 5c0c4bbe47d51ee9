"""The live evidence of Kubernetes gates: ``/metrics`` read and dry-run probes sent through
``kube/probes``, their answers judged by ``gates``."""

from __future__ import annotations

from typing import Any

from ... import gates as g
from ...kube.probes import dry_run_create, read_metrics_text, served_dra_api


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
