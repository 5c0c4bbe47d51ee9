"""Which Kueue, when more than one Deployment ``kueue-controller-manager`` exists (a second,
stale or test copy in another namespace). Pure: the caller reads, this decides.

The criteria, in order, each narrowing the candidates only when some candidate meets it:
  1. its configuration ConfigMap exists (a Kueue without one does not start);
  2. the API server calls its webhook: a Kueue MutatingWebhookConfiguration points at a Service
     in its namespace (skipped when webhook configurations cannot be read — never guessed);
  3. it runs in ``kueue-system``, the namespace of the upstream manifests and chart.
When two or more remain the choice is the user's (``--kueue-namespace``): nothing is picked by
namespace order, and ``map set`` cannot write to a guessed ConfigMap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import UserError

Obj = dict[str, Any]
KUEUE_WEBHOOK_SUFFIX = ".kueue.x-k8s.io"


class AmbiguousKueue(UserError):
    """Several Kueue installations meet every criterion."""


def _namespace(deployment: Obj) -> str:
    return str((deployment.get("metadata") or {}).get("namespace"))


def webhook_namespaces(configurations: list[Obj] | None) -> set[str] | None:
    """Namespaces of the Services Kueue's mutating webhooks call (None: not readable)."""
    if configurations is None:
        return None
    found: set[str] = set()
    for configuration in configurations:
        for hook in configuration.get("webhooks") or []:
            if not isinstance(hook, dict) or not str(hook.get("name", "")).endswith(KUEUE_WEBHOOK_SUFFIX):
                continue
            service = (hook.get("clientConfig") or {}).get("service") or {}
            if isinstance(service, dict) and isinstance(service.get("namespace"), str):
                found.add(service["namespace"])
    return found


def choose(candidates: list[Obj], has_config: Callable[[Obj], bool], webhooks: set[str] | None,
           default_namespace: str, deployment_name: str) -> Obj | None:
    """The one installation meeting the criteria (None: there is none); ``AmbiguousKueue`` else."""
    remaining = sorted(candidates, key=_namespace)
    criteria: list[Callable[[Obj], bool]] = [has_config]
    if webhooks is not None:
        criteria.append(lambda d: _namespace(d) in webhooks)
    criteria.append(lambda d: _namespace(d) == default_namespace)
    for criterion in criteria:
        if len(remaining) <= 1:
            break
        remaining = [d for d in remaining if criterion(d)] or remaining
    if len(remaining) > 1:
        namespaces = ", ".join(_namespace(d) for d in remaining)
        unknown = "" if webhooks is not None else " (webhook configurations not readable)"
        raise AmbiguousKueue(
            f"{len(remaining)} Kueue installations: Deployment {deployment_name} in namespaces {namespaces}, "
            f"each with its configuration{unknown}; which one is in charge cannot be told",
            f"pass --kueue-namespace NS (one of {namespaces})")
    return remaining[0] if remaining else None
