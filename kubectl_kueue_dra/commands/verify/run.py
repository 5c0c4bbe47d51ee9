"""Select the checks for the paths in use, run them over the facts, and build the document of the
output contract: ``{"checks": [{"id", "status", "message", "fix", …}], …}``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ... import gates as g
from ...findings import codes as F
from ...kueue.install.command import for_cli
from . import devices, gate_states, kubernetes, kueue, namespaces, platform, quota
from .facts import Facts
from .model import CLAIMS, EXTENDED, FAIL, PARTITIONABLE, PATHS, SKIP, STATUSES, Check
from .registry import CATEGORIES, REGISTRY, Result
from .verdict import verdict

_ORDER = list(CATEGORIES)
_MODULES = [m.__name__ for m in (platform, kubernetes, kueue, devices, quota, namespaces)]


def _position(spec: Any) -> tuple[int, int, int]:
    module = spec.fn.__module__
    return (_ORDER.index(spec.category), _MODULES.index(module) if module in _MODULES else len(_MODULES),
            REGISTRY.index(spec))


def applicable_paths(f: Facts) -> set[str]:
    """The paths this setup uses: mappings (claims), counter/capacity sources (partitionable),
    DeviceClasses with extendedResourceName (extended)."""
    paths = set()
    if f.mappings:
        paths.add(CLAIMS)
    if f.counter_sources() or f.capacity_sources():
        paths.add(PARTITIONABLE)
    if f.extended_classes():
        paths.add(EXTENDED)
    return paths


def run_checks(f: Facts, paths: Iterable[str] | None = None) -> list[Check]:
    selected = set(paths) if paths else applicable_paths(f)
    f.paths = frozenset(selected)
    f.paths_given = bool(paths)
    checks = []
    for spec in sorted(REGISTRY, key=_position):
        if spec.paths is not None and not (spec.paths & selected):
            continue
        if spec.applies is not None and not spec.applies(f):
            continue
        try:
            result = spec.fn(f)
        except Exception as e:  # noqa: BLE001 — one broken check must not hide the others
            result = Result(SKIP, f"internal error in this check: {type(e).__name__}: {e}")
        checks.append(Check(spec.id, result.status, for_cli(result.message, f.cli) or "", for_cli(result.fix, f.cli),
                            spec.category, result.extra))
    return _with_gate_states(f, checks)


def _with_gate_states(f: Facts, checks: list[Check]) -> list[Check]:
    """The checks with an info line for each DRA gate none of them reports, after the last check of
    its category (Kubernetes gates, Kueue)."""
    reported = {str(c.extra["gate"]) for c in checks if c.extra.get("gate")}
    # a gate check that could not tell (a skip without the gate's state) still reports its gate
    reported |= {c.id.removeprefix("kueue-").removeprefix("gate-") for c in checks}
    for category, lines in (("gates", gate_states.kubernetes_lines(f, reported)),
                            ("kueue", gate_states.kueue_lines(f, reported))):
        at = max((i + 1 for i, c in enumerate(checks) if _ORDER.index(c.category) <= _ORDER.index(category)),
                 default=0)
        checks[at:at] = lines
    return checks


def summary(checks: list[Check]) -> dict[str, int]:
    return {status: sum(1 for c in checks if c.status == status) for status in STATUSES}


def document(f: Facts, checks: list[Check]) -> dict[str, Any]:
    return {
        "verdict": verdict(f, checks),
        "source": f.source,
        "paths": sorted(f.paths, key=PATHS.index),
        "summary": summary(checks),
        "checks": [c.to_json() for c in checks],
        "kubernetesGates": [f.k8s_gates[name].to_json() for name in f.k8s_gates],
        "kueue": dict(_install_json(f), **f.kueue_gates.to_json()),
        "kueueInstallation": f.install.to_json(),
        "notes": notes(f),
        "probes": f.probed,
        "unreadable": sorted({e.message for e in f.forbidden} | set(f.unreadable.values())),
    }


def notes(f: Facts) -> list[dict[str, Any]]:
    """Findings about the setup as a whole, said once under the checklist (on OpenShift: the
    feature is a Technology Preview)."""
    if not (f.openshift or f.install.openshift):
        return []
    return [F.TechnologyPreview.make(g.TECHNOLOGY_PREVIEW)]


def _install_json(f: Facts) -> dict[str, Any]:
    i = f.install
    return {"config": i.config.target() if i.config.found else None,
            "deployment": i.to_json()["deployment"], "version": i.version, "versionFrom": i.version_source,
            "operatorVersion": i.operator_version, "renderedConfigMap": i.rendered_configmap}


def failed(checks: list[Check]) -> bool:
    return any(c.status == FAIL for c in checks)
