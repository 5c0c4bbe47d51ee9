"""Label selectors as apimachinery evaluates them (``metav1.LabelSelectorAsSelector``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: set by the API server on every Namespace, equal to its name (immutable)
NAME_LABEL = "kubernetes.io/metadata.name"


def _requirement_matches(key: Any, op: Any, values: list[str], labels: Mapping[str, str]) -> bool:
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    return False  # an operator the API server rejects: such a selector selects nothing


def selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` satisfy a ``metav1.LabelSelector``: every matchLabels pair and every
    matchExpressions requirement. As in Kubernetes an empty selector (``{}``) matches everything
    and a null one (None) nothing; callers for which null means "not set" decide before calling."""
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != str(value):
            return False
    for req in selector.get("matchExpressions") or []:
        values = [str(v) for v in req.get("values") or []]
        if not _requirement_matches(req.get("key"), req.get("operator"), values, labels):
            return False
    return True


def namespace_labels(namespace: Mapping[str, Any]) -> dict[str, str]:
    """A Namespace's labels, with ``kubernetes.io/metadata.name`` even where a snapshot lost it."""
    meta = namespace.get("metadata") or {}
    return {NAME_LABEL: str(meta.get("name")), **(meta.get("labels") or {})}
