"""After ``map`` wrote: what happens next, and waiting for it (``--restart``).

Upstream Kueue reads its configuration only at startup, so the Deployment is restarted; on
OpenShift the operator renders the CR and rolls Kueue itself, so the wait is for its annotation.
"""

from __future__ import annotations

from typing import Any

from ...errors import UserError
from ...findings import codes as F
from ...kube import errors as kube_errors
from ...kube.view import ClusterView
from ..config.load import DEPLOYMENT_NAME, KueueConfig
from ..names import OPERATOR_NAMESPACE
from .target import OPERATOR_ANNOTATION


def _deployment_ref(config: KueueConfig) -> tuple[str, str]:
    meta = (config.deployment or {}).get("metadata") or {}
    default_ns = config.namespace if config.kind == "ConfigMap" else OPERATOR_NAMESPACE
    return str(meta.get("name") or DEPLOYMENT_NAME), str(meta.get("namespace") or default_ns)


def next_steps(view: ClusterView, config: KueueConfig, written: dict[str, Any], *, restart: bool,
               timeout: float) -> list[dict[str, Any]]:
    name, namespace = _deployment_ref(config)
    if config.kind == "ConfigMap":
        if not restart:
            return [F.RestartNeeded.make(
                "Kueue reads deviceClassMappings only at startup: the change takes effect when "
                "the controller restarts", deployment=name, namespace=namespace)]
        restart_and_wait(view, name, namespace, timeout)
        return [F.Restarted.make(f"Deployment {namespace}/{name} restarted and rolled out: Kueue runs with the "
                                 "new mappings")]
    generation = (written.get("metadata") or {}).get("generation")
    if not restart:
        return [F.OperatorRollout.make(
            "the Kueue operator renders the change into Kueue's ConfigMap and rolls Kueue by "
            f"itself; it is live when Deployment {namespace}/{name} has the pod-template "
            f"annotation {OPERATOR_ANNOTATION}={generation} and its rollout is complete")]
    wait_for_operator(view, name, namespace, generation, timeout)
    return [F.OperatorRolledOut.make(f"the operator rolled out Deployment {namespace}/{name} for generation "
                                     f"{generation}: Kueue runs with the new mappings")]


def restart_and_wait(view: Any, name: str, namespace: str, timeout: float) -> None:
    from ...kube.writes import ObjectWriter, restart_patch, rollout_complete, wait_for

    writer = ObjectWriter(view, "Deployment")
    writer.merge_patch(name, namespace, restart_patch(writer.clock.now()))
    if not wait_for(lambda: rollout_complete(writer.read(name, namespace)), timeout, clock=writer.clock):
        raise UserError(f"the configuration was written and Deployment {namespace}/{name} "
                        f"restarted, but its rollout did not complete within {timeout:g}s",
                        f"check: kubectl rollout status deployment/{name} -n {namespace}")


def wait_for_operator(view: Any, name: str, namespace: str, generation: Any, timeout: float) -> None:
    from ...kube.writes import ObjectWriter, rollout_complete, wait_for

    writer = ObjectWriter(view, "Deployment")

    def live() -> bool:
        try:
            d = writer.read(name, namespace)
        except kube_errors.NotFound:
            return False
        annotations = (((d.get("spec") or {}).get("template") or {}).get("metadata") or {}).get(
            "annotations") or {}
        return annotations.get(OPERATOR_ANNOTATION) == str(generation) and rollout_complete(d)

    if not wait_for(live, timeout, interval=2.0, clock=writer.clock):
        raise UserError(f"the Kueue CR was written (generation {generation}), but the operator "
                        f"had not rolled out Deployment {namespace}/{name} within {timeout:g}s",
                        "check the Kueue CR's status conditions (Degraded, Progressing) and "
                        "the operator's logs")
