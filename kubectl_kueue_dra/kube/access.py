"""Whether the user may make a change: a SelfSubjectAccessReview (``authorization.k8s.io/v1``), asked
once per run for each distinct permission.

Only a live cluster is asked (a snapshot says nothing about anyone's rights). The review runs as
the user the requests run as (``--as``/``--as-group`` included), so it answers for them. Every
answer is cached on the view; a review the server does not answer (not served, refused, a server
error) is None — unknown, and the caller says nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import errors

REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


@dataclass(frozen=True)
class Permission:
    """A verb on a resource of a group (``""``: the core group), in a namespace (None: cluster scope,
    or a cluster-scoped resource)."""

    verb: str
    group: str
    resource: str
    namespace: str | None = None

    @property
    def qualified(self) -> str:
        """``clusterqueues.kueue.x-k8s.io`` — the name RBAC and kubectl use."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def describe(self) -> str:
        where = f" in namespace {self.namespace}" if self.namespace else ""
        return f"{self.verb} {self.qualified}{where}"

    def review(self) -> dict[str, Any]:
        attributes = {"verb": self.verb, "group": self.group, "resource": self.resource}
        if self.namespace:
            attributes["namespace"] = self.namespace
        return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": attributes}}


def may(view: Any, permission: Permission) -> bool | None:
    """Whether the user may do ``permission`` on the cluster of ``view``: True or False as the API
    server's authorizer answers, None when that is not known (a snapshot, or no answer)."""
    if not getattr(view, "live", False):
        return None
    return view.memo(("access", permission), lambda: _ask(view.client, permission))


def _ask(client: Any, permission: Permission) -> bool | None:
    from .client import Target

    try:
        answer = client.request("POST", REVIEWS, Target("create", "selfsubjectaccessreviews.authorization.k8s.io"),
                                body=permission.review())
    except errors.KubeError:
        return None
    status = (answer or {}).get("status") if isinstance(answer, dict) else None
    allowed = (status or {}).get("allowed") if isinstance(status, dict) else None
    return allowed if isinstance(allowed, bool) else None
