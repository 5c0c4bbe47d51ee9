"""The catalogue: every finding code in the order docs/findings.md lists them, one section per
subject, each code declared once."""

from __future__ import annotations

from types import ModuleType

from . import charge, devices, lifecycle, mappings, pods, queues, setup
from .code import Code

#: (title, the module declaring its codes), in the order of docs/findings.md
SECTIONS: tuple[tuple[str, ModuleType], ...] = (
    ("Reading the cluster and Kueue's configuration", setup),
    ("Queues and quota", queues),
    ("A workload's recorded state", lifecycle),
    ("The DRA charge and Kueue's admissibility checks", charge),
    ("Pods and devices after admission", pods),
    ("DeviceClasses, devices and mappings", devices),
    ("Changing deviceClassMappings", mappings),
)


#: codes named after a word of Kueue's (a condition type or reason it writes) or of explain's
#: ``state``/``reason``: where a module means that word, it writes it as a string
KUEUE_WORDS = frozenset(c.name for c in (
    lifecycle.Finished, lifecycle.Inactive, lifecycle.Preempted, lifecycle.Requeuing, lifecycle.QuotaReserved,
    lifecycle.AdmissionGated, lifecycle.AdmissionCheckPending, lifecycle.AdmissionCheckRetry,
    lifecycle.AdmissionCheckRejected, lifecycle.LocalQueueStopped, queues.ClusterQueueStopped,
    lifecycle.RequeuingLimitExceeded, lifecycle.MaximumExecutionTimeExceeded, lifecycle.EvictedOnManagerCluster,
    lifecycle.PodsReadyTimeout, lifecycle.NodeFailures, lifecycle.FlavorMigration, lifecycle.Deactivated,
    queues.FlavorNotFound))


def codes_of(module: ModuleType) -> list[Code]:
    """The codes a module declares, in the order it declares them."""
    return [value for name, value in vars(module).items() if isinstance(value, Code) and not name.startswith("_")]


def catalogue() -> list[Code]:
    """Every code, in the order of the sections."""
    return [code for _, module in SECTIONS for code in codes_of(module)]


def by_name() -> dict[str, Code]:
    return {code.name: code for code in catalogue()}
