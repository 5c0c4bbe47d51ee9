"""Kueue's visibility API (``visibility.kueue.x-k8s.io``, an aggregated API Kueue serves when its
VisibilityOnDemand gate is on): the pending workloads of a LocalQueue, in Kueue's queue order, each
with ``positionInClusterQueue`` and ``positionInLocalQueue`` (0-based).

``GET /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{ns}/localqueues/{lq}/pendingworkloads``
(v1beta1 when only it is served). What keeps the answer from being known is said, never guessed:
the API not served (no APIService), the LocalQueue unknown to Kueue's queue manager (404: missing
or stopped), the user not allowed (403, recorded like every other forbidden read), Kueue's server
not answering (503), or a snapshot (which has no API to ask). One request per LocalQueue per run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import errors
from .view import ClusterView

GROUP = "visibility.kueue.x-k8s.io"
VERSIONS = ("v1beta2", "v1beta1")
RESOURCE = f"localqueues/pendingworkloads.{GROUP}"


@dataclass(frozen=True)
class PendingWorkloads:
    """The answer for one LocalQueue: its items, or why they are unknown."""

    items: list[dict[str, Any]] | None
    version: str | None = None
    problem: str | None = None


def path(namespace: str, local_queue: str, version: str = VERSIONS[0]) -> str:
    return f"/apis/{GROUP}/{version}/namespaces/{namespace}/localqueues/{local_queue}/pendingworkloads"


def pending_workloads(view: ClusterView, namespace: str, local_queue: str) -> PendingWorkloads:
    """The LocalQueue's pending workloads as Kueue's visibility API lists them (cached per view)."""
    return view.memo(("visibility", namespace, local_queue), lambda: _read(view, namespace, local_queue))


def _read(view: ClusterView, namespace: str, local_queue: str) -> PendingWorkloads:
    from .live import LiveView

    if not isinstance(view, LiveView):
        return PendingWorkloads(None, problem="a snapshot has no visibility API to ask")
    try:
        served = view.served_versions(GROUP)
    except errors.KubeError as e:
        return PendingWorkloads(None, problem=f"the visibility API's discovery failed: {e}")
    version = next((v for v in VERSIONS if v in served), None)
    if version is None:
        return PendingWorkloads(None, problem=f"Kueue's visibility API ({GROUP}) is not served: Kueue runs without "
                                              "its VisibilityOnDemand gate, or its APIService is not installed")
    from .client import Target

    target = Target("get", RESOURCE, namespace, local_queue)
    try:
        doc = view.client.get(path(namespace, local_queue, version), target, {"limit": 100000})
    except errors.Forbidden as e:
        view.note_unreadable(e)
        return PendingWorkloads(None, version, problem=e.message)
    except errors.NotFound:
        return PendingWorkloads(None, version, problem=f"Kueue's queue manager does not know LocalQueue "
                                                       f"{namespace}/{local_queue} (404: it is missing or stopped)")
    except errors.KubeError as e:
        return PendingWorkloads(None, version, problem=f"Kueue's visibility API did not answer: {e}")
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        return PendingWorkloads(None, version, problem="Kueue's visibility API answered without items")
    return PendingWorkloads([i for i in items if isinstance(i, dict)], version)
