"""What a TAB completes to, read the way every command reads: the kubeconfig's contexts, the names
of objects of a kind, and the ``TYPE/NAME`` references ``explain`` takes (for the kinds Kueue
makes Workloads of, the names of the Workloads' owners)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..k8s.job_kinds import JOB_KINDS

if TYPE_CHECKING:
    from ..environment import Environment
    from ..kube.view import ClusterView

#: the TYPE words of ``explain TYPE/NAME`` offered before the slash: every kind of k8s/job_kinds
REFERENCE_KINDS = tuple(k.word for k in JOB_KINDS)


def kubeconfig_contexts(kubeconfig: str | None, env: Environment) -> list[str]:
    """The contexts of the kubeconfig files kubectl would merge (``--kubeconfig`` alone when given)."""
    from ..kube.kubeconfig import kubeconfig_paths, merge_kubeconfigs

    merged, _ = merge_kubeconfigs(kubeconfig_paths(kubeconfig, env), explicit=bool(kubeconfig), env=env)
    return sorted(c["name"] for c in merged["contexts"])


def names(objects: list[dict[str, Any]] | None) -> list[str]:
    return sorted({(o.get("metadata") or {}).get("name") or "" for o in objects or []} - {""})


def mapping_names(view: ClusterView, kueue_namespace: str | None) -> list[str]:
    """The names of the deviceClassMappings, where ``map`` reads them (the Kueue CR, or Kueue's
    ConfigMap)."""
    from ..kueue.config.load import load_kueue_config

    config = load_kueue_config(view, kueue_namespace)
    return sorted({m.name for m in config.mappings}) if config.found else []


def namespaced_names(view: ClusterView, kind: str, namespace: str | None, all_namespaces: bool) -> list[str]:
    """The names of ``kind`` in the namespace (the view's default when None), or in every namespace."""
    return names(view.list(kind, None if all_namespaces else namespace or view.default_namespace))


def reference_names(kind_text: str, open_view: Callable[[], ClusterView], namespace: str | None) -> list[str]:
    """``kind_text/NAME`` for each object of that kind in the namespace (the view's default
    namespace when None); the kind is checked before the view is opened."""
    from ..kube.kinds import KINDS
    from ..k8s.refs import parse_ref

    kind = parse_ref(f"{kind_text}/x").kind
    view = open_view()
    namespace = namespace or view.default_namespace
    if kind in KINDS:  # a kind the view lists (Job, Pod, Workload, Deployment)
        found = names(view.list(kind, namespace))
    else:  # Kueue makes one Workload per managed object and names the object as its owner
        found = sorted({ref.get("name") for wl in view.list("Workload", namespace)
                        for ref in (wl.get("metadata") or {}).get("ownerReferences") or []
                        if ref.get("kind") == kind and ref.get("name")})
    return [f"{kind_text}/{name}" for name in found]
