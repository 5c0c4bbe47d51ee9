"""The OpenShift release the cluster runs, read once from ClusterVersion ``version`` (``verify``
checks it against each path; ``version`` prints it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import gates as g
from ...kube.view import ClusterView


@dataclass(frozen=True)
class ClusterVersionRead:
    obj: dict[str, Any] | None  # the ClusterVersion object, when read
    version: str | None  # status.desired.version (else the newest history entry)
    problem: str | None  # why the version is unknown (None when it is known)
    served: bool  # the API is served (live) or the kind is in the snapshot
    denied: bool = False  # the read was forbidden

    @property
    def openshift(self) -> bool:
        """The object exists: an OpenShift cluster (a served CRD alone is not one, nor a 403 on it)."""
        return self.obj is not None

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "problem": self.problem}


def read_cluster_version(view: ClusterView) -> ClusterVersionRead:
    served = view.serves("ClusterVersion")
    if not served:
        why = ("the API server does not serve config.openshift.io ClusterVersion" if view.live
               else "the snapshot has no ClusterVersion")
        return ClusterVersionRead(None, None, why, False)
    before = len(view.unreadable)
    obj = view.try_get("ClusterVersion", "version")
    if obj is None and not view.live:
        found = view.list("ClusterVersion")
        obj = found[0] if found else None
    version = g.openshift_version(obj)
    if version:
        return ClusterVersionRead(obj, version, None, True)
    denied = obj is None and len(view.unreadable) > before
    if obj is not None:
        problem = "ClusterVersion version has no status.desired.version nor history"
    elif denied:
        problem = view.unreadable[-1].message
    else:
        problem = "ClusterVersion version does not exist"
    return ClusterVersionRead(obj, None, problem, True, denied)
