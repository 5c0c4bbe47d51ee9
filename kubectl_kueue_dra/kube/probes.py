"""Reading feature-gate evidence from a live API server: ``/metrics`` and dry-run creates.

A dry-run create (``?dryRun=All``) makes the API server run defaulting, the field-dropping of
disabled gates and validation, and return the object it *would* store, but it stores nothing.
What to create and what the answer means is gate knowledge (``gates.kubernetes``); this module
only sends the requests and turns refusals into a reason.
"""

from __future__ import annotations

from typing import Any

from . import errors
from .kinds import KINDS


def _target(verb: str, resource: str, name: str | None = None) -> Any:
    from .client import Target

    return Target(verb, resource, None, name)


def read_metrics_text(client: Any) -> tuple[str | None, str | None]:
    """The serving kube-apiserver's ``/metrics`` text, or (None, why it could not be read)."""
    try:
        return client.request("GET", "/metrics", _target("get", "/metrics"), text=True), None
    except errors.Forbidden as e:
        return None, e.message
    except errors.KubeError as e:
        return None, f"/metrics could not be read: {e.message}"


def served_dra_api(view: Any) -> str | None:
    """The resource.k8s.io apiVersion the server serves (e.g. ``resource.k8s.io/v1``), or None."""
    kind = KINDS["DeviceClass"]
    version = view.api_version(kind)
    return None if version is None else f"{kind.group}/{version}"


def dry_run_create(view: Any, kind_name: str, body: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """Dry-run create ``body`` (in the served resource.k8s.io version): (the object the server
    would store, None), or (None, why it was refused — a 403 or any other error)."""
    k = KINDS[kind_name]
    version = body["apiVersion"].rpartition("/")[2]
    path = f"/apis/{k.group}/{version}/{k.plural}"
    try:
        returned = view.client.request("POST", path, _target("create", k.resource), query={"dryRun": "All"},
                                       body=body)
    except errors.Forbidden:
        return None, f"no permission to dry-run create {k.resource}"
    except errors.KubeError as e:
        return None, f"the dry-run create of a {kind_name} was refused: {e.message}"
    return returned, None
