"""The platform's version against what each path in use needs: on OpenShift the release from
ClusterVersion (Red Hat's prerequisites), upstream the Kubernetes minor from ``/version`` (the
versioned feature gates: where the gate exists and resource.k8s.io/v1 is served)."""

from __future__ import annotations

from ... import gates as g
from .facts import Facts
from .model import CLAIMS, EXTENDED, FAIL, PASS, PATHS, SKIP, WARN
from .registry import Result, check


def path_gates(f: Facts, path: str) -> tuple[str, ...]:
    """The Kubernetes gates a path needs on the API server."""
    if path == CLAIMS:
        return (g.DRA,)
    if path == EXTENDED:
        return (g.DRA_EXTENDED,)
    return (g.DRA_PARTITIONABLE,) + ((g.DRA_CONSUMABLE,) if f.capacity_sources() else ())


def _paths(f: Facts) -> list[str]:
    """The paths checked, in their order; with none configured, what every DRA quota needs."""
    return [p for p in PATHS if p in f.paths] or [CLAIMS]


def _release(release: tuple[int, int]) -> str:
    return ".".join(map(str, release))


@check("platform-version", "platform")
def platform_version(f: Facts) -> Result:
    if f.openshift:
        return _openshift(f)
    return _kubernetes(f)


def _openshift(f: Facts) -> Result:
    version = f.openshift_version
    release = g.release_of(version)
    needs: dict[str, tuple[int, int]] = {}
    for path in _paths(f):
        minimum = max((g.OPENSHIFT_MINIMUM[gate] for gate in path_gates(f, path) if gate in g.OPENSHIFT_MINIMUM),
                      default=None)
        if minimum is not None:
            needs[path] = minimum
    said = "; ".join(f"{path} needs {_release(n)} or later" for path, n in needs.items())
    extra: dict[str, object] = {"platform": "OpenShift", "version": version,
                                "needs": {p: _release(n) for p, n in needs.items()}}
    if release is None:
        why = f.cluster_version_problem or f"ClusterVersion reports {version!r}"
        return Result(WARN if f.live else SKIP, f"OpenShift version unknown ({why}): {said}",
                      "let the plugin get clusterversions.config.openshift.io (deploy/rbac/reader-clusterrole.yaml)"
                      if f.live else None, extra)
    short = [n for n in needs.values() if release < n]
    if short:
        return Result(FAIL, f"OpenShift {version} is too old: {said}",
                      f"upgrade OpenShift to {_release(max(short))} or later", extra)
    return Result(PASS, f"OpenShift {version}: {said}", extra=extra)


def _kubernetes(f: Facts) -> Result:
    minor = f.k8s_inputs.minor
    extra: dict[str, object] = {"platform": "Kubernetes", "version": f.server_version}
    if minor is None:
        why = f.unreadable.get("/version") or ("a snapshot has no /version" if not f.live else "/version has no minor")
        needs = "; ".join(f"{path} needs 1.{max(g.minimum_minor(gate) for gate in path_gates(f, path))} or later"
                          for path in _paths(f))
        return Result(WARN if f.live else SKIP, f"Kubernetes version unknown ({why}): {needs}", extra=extra)
    parts, short = [], []
    for path in _paths(f):
        for gate in path_gates(f, path):
            minimum = g.minimum_minor(gate)
            text = f"{path} needs 1.{minimum} or later ({gate}"
            on = g.default_on_minor(gate)
            if on is not None and minor < on:
                text += f", on by default from 1.{on}"
            parts.append(text + ")")
            if minor < minimum:
                short.append(minimum)
    where = f" (server {f.server_version})" if f.server_version else ""
    if short:
        return Result(FAIL, f"Kubernetes 1.{minor}{where} is too old: {'; '.join(parts)}",
                      f"upgrade the cluster to Kubernetes 1.{max(short)} or later", extra)
    return Result(PASS, f"Kubernetes 1.{minor}{where}: {'; '.join(parts)}", extra=extra)
