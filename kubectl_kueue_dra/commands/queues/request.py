"""``queues`` as a request and a service call: read the ClusterQueues, Cohorts, LocalQueues,
Workloads, DeviceClasses and Kueue's configuration once, then build the document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from ...findings import config_findings, is_partial, unreadable_findings
from ...kube.view import ClusterView
from ...kueue.config.dra_resources import binary_resources, dra_resources
from ...kueue.config.load import load_kueue_config
from ...kueue.install import flags
from ...kueue.install.command import cli_of, document_for_cli
from ...kueue.install.fix_rights import with_rights
from ...kueue.install.model import installation_of
from ...kueue.queues.holdings import QueueWorkloads, by_cluster_queue
from .report import Inputs, queues_report

INSTALL_HINT = ("install Kueue (on OpenShift: the Red Hat build of Kueue operator from OperatorHub, then the "
                "Kueue CR named cluster)")


@dataclass
class QueuesRequest:
    #: one ClusterQueue (and the cohorts above it), or every one
    cluster_queue: str | None = None
    kueue_namespace: str | None = None

    def validate(self) -> QueuesRequest:
        flags.kueue_namespace(self.kueue_namespace)
        return self


def _workloads(view: ClusterView) -> tuple[dict[str, QueueWorkloads] | None, str | None]:
    """The Workloads of each ClusterQueue, or None and why they are unknown."""
    if view.lacks("Workload"):
        return None, "the snapshot has no Workload objects"
    workloads = view.try_list("Workload")
    if workloads is None:
        return None, view.forbidden("Workload") or "the Workloads could not be read"
    local_queues = view.try_list("LocalQueue")
    if local_queues is None:
        return None, view.forbidden("LocalQueue") or "the LocalQueues could not be read"
    return by_cluster_queue(workloads, local_queues), None


def queues_document(view: ClusterView, req: QueuesRequest) -> dict[str, Any]:
    if view.live and not view.serves("ClusterQueue"):
        raise UserError("Kueue is not installed: the API server does not serve kueue.x-k8s.io", INSTALL_HINT)
    cluster_queues = view.list("ClusterQueue")
    if req.cluster_queue and not any(cq["metadata"]["name"] == req.cluster_queue for cq in cluster_queues):
        raise UserError(f'ClusterQueue "{req.cluster_queue}" not found ({view.source})',
                            "list them with: kubectl kueue-dra queues")
    cohorts = view.try_list("Cohort") if view.serves("Cohort") else []
    workloads, unknown = _workloads(view)
    installation = installation_of(view, load_kueue_config(view, req.kueue_namespace))
    config = installation.config
    mappings = installation.effective.mappings if config.found else None
    device_classes = view.try_list("DeviceClass") if view.serves("DeviceClass") else []
    inputs = Inputs(cluster_queues=cluster_queues, cohorts=cohorts, workloads=workloads, workloads_unknown=unknown,
                    live=view.live,
                    dra={r.name: r for r in dra_resources(mappings, device_classes)},
                    binary=binary_resources(mappings))
    queues, cohort_docs, findings = queues_report(inputs, req.cluster_queue)
    cli = cli_of(view, config)  # first: a 403 it meets makes the answer partial too
    return with_rights(document_for_cli({
        "clusterQueues": queues,
        "cohorts": cohort_docs,
        "findings": unreadable_findings(view) + config_findings(config, view) + findings,
        "partial": is_partial(view),
        "source": view.source,
        "kueueConfig": config.target() if config.found else None,
        "kueueInstallation": installation.to_json(),
    }, cli), view, config)
