"""The matrix's model: a ``World`` (what is cluster-wide) and a ``Scenario`` (what lives in one
namespace), the scenarios whose ClusterQueue sits in a cohort tree or has a namespaceSelector, the
Kueue versions, and the drivers and quotas the scenario sets share."""

from __future__ import annotations

from dataclasses import dataclass, field

from testenv.builders import cluster_queue, local_queue
from testenv.queue import builders as queue_builders

V19 = "v0.19.2"
V18 = "v0.18.4"


# --------------------------------------------------------------------------------------- model
@dataclass
class World:
    name: str
    version: str
    mappings: list[dict]
    gates: dict[str, bool] = field(default_factory=dict)
    #: DeviceClasses in groups; each group is created more than a second after the previous one
    class_groups: list[list[dict]] = field(default_factory=list)
    slices: list[dict] = field(default_factory=list)
    #: more fields of Kueue's Configuration (fairSharing, resources.transformations, ...); a distinct
    #: value restarts Kueue
    config: dict = field(default_factory=dict)
    #: other cluster-scoped objects of the world (RuntimeClasses)
    cluster_objects: list[dict] = field(default_factory=list)


@dataclass
class Scenario:
    id: str
    title: str
    world: World
    quota: dict[str, str]
    objects: list[dict]  # namespaced objects; the namespace is set when applied
    subjects: list[str]  # what to explain: job/<name> or workload/<name>
    expect: str = "admitted"  # what the scenario is built to make Kueue do: admitted | inadmissible | pending
    namespace_labels: dict[str, str] = field(default_factory=dict)

    def cluster_queue(self, name: str) -> dict:
        return cluster_queue(name, self.quota)

    def cluster_objects(self, cq: str) -> list[dict]:
        """More objects the scenario needs around its ClusterQueue ``cq`` (cluster-scoped ones, and
        LocalQueues, which get the scenario's namespace)."""
        return []


@dataclass
class Queue:
    """Another ClusterQueue of a cohort tree (``suffix`` names it), with a LocalQueue ``lq-<suffix>``."""

    suffix: str
    cohort: str
    quota: dict[str, str]
    limits: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class Cohort:
    """A Cohort object of a cohort tree; ``quota``/``limits`` as for a ClusterQueue."""

    suffix: str
    parent: str | None = None
    quota: dict[str, str] = field(default_factory=dict)
    limits: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class CohortScenario(Scenario):
    """A scenario whose ClusterQueue sits in a cohort tree of its own: cohorts and other queues are
    named after the scenario's ClusterQueue (``<cq>-<suffix>``), so scenarios never share a tree."""

    cohort: str = "c"
    limits: dict[str, dict[str, str]] = field(default_factory=dict)
    queues: list[Queue] = field(default_factory=list)
    cohorts: list[Cohort] = field(default_factory=list)

    def cluster_queue(self, name: str) -> dict:
        return cluster_queue(name, self.quota, self.limits, f"{name}-{self.cohort}")

    def cluster_objects(self, cq: str) -> list[dict]:
        out = []
        for c in self.cohorts:
            groups = cluster_queue("", c.quota, c.limits)["spec"]["resourceGroups"] if c.quota else []
            out.append(queue_builders.cohort(f"{cq}-{c.suffix}", f"{cq}-{c.parent}" if c.parent else None, *groups))
        for q in self.queues:
            out.append(cluster_queue(f"{cq}-{q.suffix}", q.quota, q.limits, f"{cq}-{q.cohort}"))
            out.append(local_queue(f"lq-{q.suffix}", f"{cq}-{q.suffix}"))
        return out


@dataclass
class SelectorScenario(Scenario):
    """A scenario whose ClusterQueue has ``selector`` as its namespaceSelector (None: the field unset,
    which Kueue reads as selecting no namespace)."""

    selector: dict | None = None

    def cluster_queue(self, name: str) -> dict:
        cq = super().cluster_queue(name)
        if self.selector is None:
            del cq["spec"]["namespaceSelector"]
        else:
            cq["spec"]["namespaceSelector"] = self.selector
        return cq


# --------------------------------------------------------------- drivers and quotas every set uses
GPU = "gpu.example.com"
FPGA = "fpga.example.com"
ASIC = "asic.example.com"
NV = "gpu.nvidia.com"


def _is(driver: str, kind: str | None = None) -> str:
    expr = f"device.driver == '{driver}'"
    return expr + (f" && device.attributes['{driver}'].type == '{kind}'" if kind else "")


BASE_QUOTA = {"cpu": "100", "memory": "100Gi"}


GPU_Q = {**BASE_QUOTA, "example.com/gpu": "100"}
