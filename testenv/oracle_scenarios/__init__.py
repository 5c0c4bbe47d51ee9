"""The oracle's scenario matrix: small sets of objects that Kueue and ``explain`` both judge.

A ``World`` is what is cluster-wide: DeviceClasses, ResourceSlices (fake nodes, Kubernetes 1.36
layout rules: counter sets in their own slices, at most 64 counter-consuming devices per slice)
and Kueue's configuration (deviceClassMappings and feature gates) for one Kueue version. A
``Scenario`` lives in its own namespace: ResourceClaimTemplates, a LocalQueue, its own
ClusterQueue with quota, and the Jobs (created suspended) or Workloads to judge. Scenarios of one
world run side by side; the cluster-scoped objects are replaced between worlds and Kueue restarts
only when the configuration changes.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from testenv.builders import (  # noqa: F401  (the builders are part of this module's API too)
    FLAVOR, QUEUE_LABEL, cluster_queue, container, device, device_class, job, limit_range, local_queue,
    partial_job, pod_spec, queued, request, resource_flavor, resource_slice, runtime_class, template, workload,
)
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


def _selector_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    gpu1 = template("gpu-1", request("gpu.example.com"))
    objs = [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))]
    team = {"matchLabels": {"team": "ml"}}
    return [
        SelectorScenario(prefix + "cq-no-namespace-selector", "ClusterQueue without namespaceSelector: no namespace",
                         w, GPU_Q, copy.deepcopy(objs), ["job/train"], expect="pending", selector=None),
        SelectorScenario(prefix + "cq-selector-mismatch", "namespaceSelector team=ml, namespace not labelled",
                         w, GPU_Q, copy.deepcopy(objs), ["job/train"], expect="pending", selector=team),
        SelectorScenario(prefix + "cq-selector-match", "namespaceSelector team=ml, namespace labelled team=ml",
                         w, GPU_Q, copy.deepcopy(objs), ["job/train"], selector=team,
                         namespace_labels={"team": "ml"}),
    ]


# ---------------------------------------------------------------------------------- the worlds
GPU = "gpu.example.com"
FPGA = "fpga.example.com"
ASIC = "asic.example.com"
NV = "gpu.nvidia.com"


def _is(driver: str, kind: str | None = None) -> str:
    expr = f"device.driver == '{driver}'"
    return expr + (f" && device.attributes['{driver}'].type == '{kind}'" if kind else "")


def devices_classes() -> list[list[dict]]:
    return [
        [device_class("gpu.example.com", _is(GPU, "gpu")),
         device_class("fpga.example.com", _is(FPGA)),
         device_class("asic.example.com", _is(ASIC)),
         device_class("unmapped.example.com", _is(GPU, "gpu")),
         device_class("vgpu.example.com", _is(GPU, "gpu"), er="example.com/vgpu"),
         device_class("npu.example.com", _is(GPU, "gpu"), er="example.com/npu"),
         device_class("tpu-old.example.com", _is(GPU, "gpu"), er="example.com/tpu"),
         # a class whose own selector fails at run time on every device (no such attribute)
         device_class("badsel.example.com", f"device.attributes['{GPU}'].nosuch == 'x'")],
        # created later: the newest class with example.com/tpu; the tie pair in one request
        [device_class("tpu-new.example.com", _is(GPU, "gpu"), er="example.com/tpu"),
         device_class("tie-b.example.com", _is(GPU, "gpu"), er="example.com/tie"),
         device_class("tie-a.example.com", _is(GPU, "gpu"), er="example.com/tie")],
    ]


def devices_slices() -> list[dict]:
    gpus = [device(f"gpu-{i}", type="gpu", model=m) for i, m in enumerate(["a100", "a100", "h100", "h100"])]
    return [
        resource_slice("node-1-gpu", GPU, "node-1", devices=gpus),
        resource_slice("node-1-fpga", FPGA, "node-1", devices=[device(f"fpga-{i}") for i in range(2)]),
        resource_slice("node-1-asic", ASIC, "node-1", devices=[device(f"asic-{i}") for i in range(2)]),
        # node-2: generation 1 is stale (generation 2 replaced it), yet both slices still exist
        resource_slice("node-2-gpu-gen1", GPU, "node-2", node="fake-node-2", generation=1,
                       devices=[device(f"gpu-{i}", type="gpu", model="l40") for i in range(2)]),
        resource_slice("node-2-gpu-gen2", GPU, "node-2", node="fake-node-2", generation=2,
                       devices=[device("gpu-9", type="gpu", model="t4")]),
        # node-3: incomplete pool (two slices announced, one published)
        resource_slice("node-3-gpu-a", GPU, "node-3", node="fake-node-3", slice_count=2,
                       devices=[device("gpu-0", type="gpu", model="v100")]),
    ]


DEVICES_MAPPINGS = [
    {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com", "vgpu.example.com"]},
    {"name": "example.com/accel", "deviceClassNames": ["fpga.example.com", "asic.example.com"]},
    {"name": "example.com/tpu-quota", "deviceClassNames": ["tpu-old.example.com"]},
    {"name": "example.com/tie-b-quota", "deviceClassNames": ["tie-b.example.com"]},
]


def devices_world(name: str, version: str = V19, gates: dict | None = None,
                  mappings: list[dict] | None = None) -> World:
    return World(name, version, mappings if mappings is not None else DEVICES_MAPPINGS, gates or {},
                 devices_classes(), devices_slices())


MIG = {"1g.5gb": ("4864Mi", "14"), "3g.20gb": ("19968Mi", "42"), "gpu": ("40192Mi", "98")}


def mig_slices() -> list[dict]:
    def mig(name, profile, cs="gpu-0-cs"):
        mem, sm = MIG[profile]
        return device(name, [(cs, {"memory": mem, "multiprocessors": sm})], type="mig", profile=profile)

    node_a_devices = [
        device("gpu-0", [("gpu-0-cs", {"memory": "40192Mi", "multiprocessors": "98"})], type="gpu", profile="gpu"),
        mig("gpu-0-mig-1g-0", "1g.5gb"), mig("gpu-0-mig-1g-1", "1g.5gb"), mig("gpu-0-mig-1g-2", "1g.5gb"),
        mig("gpu-0-mig-3g-0", "3g.20gb"),
        # a device that consumes from two counter sets: Kueue 0.19 takes the MAX over every entry
        device("gpu-0-mig-2g-0", [("gpu-0-cs", {"memory": "9856Mi", "multiprocessors": "28"}),
                                  ("gpu-0-aux-cs", {"memory": "12Gi"})], type="mig", profile="2g.10gb"),
    ]
    return [
        resource_slice("node-a-counters", NV, "node-a", slice_count=2, node="fake-node-a",
                       counter_sets={"gpu-0-cs": {"memory": "40192Mi", "multiprocessors": "98"},
                                     "gpu-0-aux-cs": {"memory": "16Gi"}}),
        resource_slice("node-a-devices", NV, "node-a", slice_count=2, node="fake-node-a", devices=node_a_devices),
        # node-b: incomplete (its counter slice is missing)
        resource_slice("node-b-devices", NV, "node-b", slice_count=2, node="fake-node-b", devices=[
            device("gpu-0-mig-4g-0", [("gpu-0-cs", {"memory": "20096Mi", "multiprocessors": "56"})],
                   type="mig", profile="4g.20gb")]),
        # node-c: generation 1 is stale; generation 2 has only a 1g.5gb
        resource_slice("node-c-counters-g1", NV, "node-c", generation=1, slice_count=2, node="fake-node-c",
                       counter_sets={"gpu-0-cs-g1": {"memory": "40192Mi", "multiprocessors": "98"}}),
        resource_slice("node-c-devices-g1", NV, "node-c", generation=1, slice_count=2, node="fake-node-c", devices=[
            device("gpu-0-mig-7g-0", [("gpu-0-cs-g1", {"memory": "40192Mi", "multiprocessors": "98"})],
                   type="mig", profile="7g.40gb")]),
        resource_slice("node-c-counters-g2", NV, "node-c", generation=2, slice_count=2, node="fake-node-c",
                       counter_sets={"gpu-0-cs-g2": {"memory": "40192Mi", "multiprocessors": "98"}}),
        resource_slice("node-c-devices-g2", NV, "node-c", generation=2, slice_count=2, node="fake-node-c", devices=[
            device("gpu-0-mig-1g-0", [("gpu-0-cs-g2", {"memory": "4864Mi", "multiprocessors": "14"})],
                   type="mig", profile="1g.5gb")]),
    ]


def mig_classes() -> list[list[dict]]:
    return [[device_class("mig.nvidia.com", _is(NV, "mig")),
             device_class("gpu.nvidia.com", _is(NV, "gpu")),
             device_class("mig-cores.nvidia.com", _is(NV, "mig")),
             device_class("mig-er.nvidia.com", _is(NV, "mig"), er="nvidia.com/mig"),
             device_class("mig-bad.nvidia.com", f"device.driver == '{NV}'")]]


MIG_BAD_SELECTOR = f"device.attributes['{NV}'].profile != 'gpu' || device.attributes['{NV}'].nosuch == 'x'"


def _counter(name: str, selector: str = f"device.driver == '{NV}'") -> dict:
    return {"counter": {"name": name, "driver": NV, "deviceSelector": {"cel": {"expression": selector}}}}


def mig_world(name: str, version: str = V19, gates: dict | None = None) -> World:
    mappings = [
        {"name": "gpu.memory", "deviceClassNames": ["mig.nvidia.com", "gpu.nvidia.com", "mig-er.nvidia.com",
                                                    "ghost-mig.nvidia.com"],  # no such DeviceClass
         "sources": [_counter("memory")]},
        {"name": "gpu.cores", "deviceClassNames": ["mig-cores.nvidia.com"], "sources": [_counter("cores")]},
        # a mapping selector that fails at run time on one device only (gpu-0, the whole GPU of node-a)
        {"name": "gpu.bad", "deviceClassNames": ["mig-bad.nvidia.com"], "sources": [_counter("memory", MIG_BAD_SELECTOR)]},
    ]
    if version >= "v0.19":  # one class under two counters: 0.19 only
        mappings.insert(1, {"name": "gpu.sm", "deviceClassNames": ["mig.nvidia.com"],
                            "sources": [_counter("multiprocessors")]})
    return World(name, version, mappings, gates or {}, mig_classes(), mig_slices())


def bad_counters_world(name: str) -> World:
    """Devices whose counters do not fit their pool's counter sets (issue 16 class 5), each of its
    own profile: consuming more than the set holds, a set no slice of the pool defines, a counter
    its set lacks. Kueue takes the MAX over every consumesCounters entry regardless."""
    def dev(name: str, profile: str, counter_set: str, counters: dict) -> dict:
        return device(name, [(counter_set, counters)], type="bad", profile=profile)

    slices = [
        resource_slice("node-d-counters", NV, "node-d", slice_count=2, node="fake-node-d",
                       counter_sets={"gpu-0-cs": {"memory": "40192Mi"}}),
        resource_slice("node-d-devices", NV, "node-d", slice_count=2, node="fake-node-d", devices=[
            dev("gpu-0-small", "small", "gpu-0-cs", {"memory": "4864Mi"}),
            dev("gpu-0-oversize", "oversize", "gpu-0-cs", {"memory": "200Gi"}),
            dev("gpu-0-ghost-set", "ghost-set", "no-such-cs", {"memory": "30Gi"}),
            dev("gpu-0-extra-counter", "extra-counter", "gpu-0-cs", {"memory": "9856Mi", "bogus": "1"}),
        ]),
    ]
    classes = [[device_class("bad.nvidia.com", _is(NV, "bad"))]]
    return World(name, V19, [{"name": "gpu.memory", "deviceClassNames": ["bad.nvidia.com"],
                              "sources": [_counter("memory")]}], {}, classes, slices)


def _bad_counter_scenarios(w: World) -> list[Scenario]:
    quota = {**BASE_QUOTA, "gpu.memory": "1Ti"}
    prof = lambda *p: " || ".join(f"device.attributes['{NV}'].profile == '{x}'" for x in p)  # noqa: E731
    return [
        Scenario(f"counters-{profiles[0]}", title, w, quota,
                 [template("bad", request("bad.nvidia.com", selector=prof(*profiles))),
                  job("train", pod_spec({"bad": "bad"}))], ["job/train"])
        for profiles, title in [
            (("oversize", "small"), "a device consuming more than its counter set holds sets the MAX"),
            (("ghost-set", "small"), "a device consuming a counter set no slice defines"),
            (("extra-counter", "small"), "a device consuming a counter its set does not define"),
        ]]


# ------------------------------------------------------------------------------- the scenarios
BASE_QUOTA = {"cpu": "100", "memory": "100Gi"}


GPU_Q = {**BASE_QUOTA, "example.com/gpu": "100"}


def _devices_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P = prefix
    gpu1 = template("gpu-1", request("gpu.example.com"))
    gpu2 = template("gpu-2", request("gpu.example.com", 2))
    accel = {**BASE_QUOTA, "example.com/accel": "100"}
    all_q = {**BASE_QUOTA, "example.com/gpu": "100", "example.com/accel": "100"}
    S = Scenario
    return [
        S(P + "template-one", "1 device from a ResourceClaimTemplate", w, GPU_Q,
          [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"]),
        S(P + "template-count", "count 2 per claim, parallelism 3 (charge x pod count; cpu 100m x 3)", w, GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}), parallelism=3)], ["job/train"]),
        S(P + "parallelism-completions", "parallelism 4, completions 2: min() pods", w, GPU_Q,
          [gpu1, job("train", pod_spec({"gpu": "gpu-1"}), parallelism=4, completions=2)], ["job/train"]),
        S(P + "classes-one-mapping", "two classes of one mapping in one claim (fpga 1 + asic 2)", w, accel,
          [template("accel", request("fpga.example.com", 1, name="f"), request("asic.example.com", 2, name="a")),
           job("train", pod_spec({"acc": "accel"}))], ["job/train"]),
        S(P + "two-claims", "two claims, two templates, two mappings", w, all_q,
          [gpu1, template("mixed", request("gpu.example.com", 2, name="g"), request("fpga.example.com", name="f")),
           job("train", pod_spec({"a": "gpu-1", "b": "mixed"}))], ["job/train"]),
        S(P + "same-template-twice", "one template named by two claims counts twice", w, GPU_Q,
          [gpu1, job("train", pod_spec({"a": "gpu-1", "b": "gpu-1"}), parallelism=2)], ["job/train"]),
        S(P + "several-podsets", "a Workload with two pod sets (1 x 1 GPU, 3 x 2 GPUs)", w, GPU_Q,
          [gpu1, gpu2, workload("ranks", [("driver", 1, pod_spec({"g": "gpu-1"})),
                                          ("workers", 3, pod_spec({"g": "gpu-2"}))])], ["workload/ranks"]),
        S(P + "init-containers", "init containers and a sidecar: cpu/memory as the scheduler sums them", w, GPU_Q,
          [gpu1, job("train", pod_spec(
              {"gpu": "gpu-1"},
              containers=[container("a", {"cpu": "500m", "memory": "1Gi"}, claims=["gpu"]),
                          container("b", {"cpu": "250m", "memory": "512Mi"})],
              init=[container("setup", {"cpu": "2", "memory": "256Mi"}),
                    container("proxy", {"cpu": "100m", "memory": "128Mi"}, restart_always=True)]),
              parallelism=2)], ["job/train"]),
        S(P + "cel-enough", "CEL selector, 2 of 2 matching devices", w, GPU_Q,
          [template("a100x2", request("gpu.example.com", 2, selector=f"device.attributes['{GPU}'].model == 'a100'")),
           job("train", pod_spec({"gpu": "a100x2"}))], ["job/train"]),
        S(P + "cel-two-requests", "two CEL requests of one class in one claim share the devices", w, GPU_Q,
          [template("two", request("gpu.example.com", 1, name="x", selector=f"device.attributes['{GPU}'].model == 'h100'"),
                    request("gpu.example.com", 1, name="y", selector=f"device.attributes['{GPU}'].model == 'h100'")),
           job("train", pod_spec({"gpu": "two"}))], ["job/train"]),
        S(P + "cel-too-few", "too few matching devices: 3 h100 requested, 2 exist", w, GPU_Q,
          [template("h100x3", request("gpu.example.com", 3, selector=f"device.attributes['{GPU}'].model == 'h100'")),
           job("train", pod_spec({"gpu": "h100x3"}))], ["job/train"], expect="inadmissible"),
        S(P + "cel-stale-pool", "CEL match only in a stale pool generation (counted, kueue#14573)", w, GPU_Q,
          [template("l40x2", request("gpu.example.com", 2, selector=f"device.attributes['{GPU}'].model == 'l40'")),
           job("train", pod_spec({"gpu": "l40x2"}))], ["job/train"]),
        S(P + "cel-incomplete-pool", "CEL match only in an incomplete pool (counted, kueue#14573)", w, GPU_Q,
          [template("v100", request("gpu.example.com", 1, selector=f"device.attributes['{GPU}'].model == 'v100'")),
           job("train", pod_spec({"gpu": "v100"}))], ["job/train"]),
        S(P + "er-mapped", "extended resource of a mapped class: charged under the mapping name", w,
          {**BASE_QUOTA, "example.com/gpu": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/vgpu": "2"},
                                                       limits={"example.com/vgpu": "2"})]), parallelism=2)],
          ["job/train"]),
        S(P + "template-and-er", "one mapped class through a template and its extendedResourceName: summed", w,
          GPU_Q, [template("vgpu", request("vgpu.example.com", 2)),
                  job("train", pod_spec({"g": "vgpu"}, containers=[
                      container(requests={"example.com/vgpu": "1"}, limits={"example.com/vgpu": "1"},
                                claims=["g"])]))], ["job/train"]),
        S(P + "er-unmapped", "extended resource of an unmapped class: its own name", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/npu": "1"},
                                                       limits={"example.com/npu": "1"})]), parallelism=3)],
          ["job/train"]),
        S(P + "er-init-containers", "extended resource: max(init 3, containers 1+1) x 2 pods", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [job("train", pod_spec(
              containers=[container("a", {"example.com/npu": "1"}, {"example.com/npu": "1"}),
                          container("b", {"example.com/npu": "1"}, {"example.com/npu": "1"})],
              init=[container("setup", {"example.com/npu": "3"}, {"example.com/npu": "3"})]), parallelism=2)],
          ["job/train"]),
        S(P + "er-sidecar", "extended resource in a sidecar init container (not sidecar-aware)", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [job("train", pod_spec(
              containers=[container("a", {"example.com/npu": "1"}, {"example.com/npu": "1"})],
              init=[container("proxy", {"example.com/npu": "1"}, {"example.com/npu": "1"}, restart_always=True)]))],
          ["job/train"]),
        S(P + "er-same-name", "two classes with one extendedResourceName: the newest wins", w,
          {**BASE_QUOTA, "example.com/tpu": "100", "example.com/tpu-quota": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/tpu": "1"},
                                                       limits={"example.com/tpu": "1"})]))], ["job/train"]),
        S(P + "er-same-name-tie", "two classes with one extendedResourceName created together: smallest name",
          w, {**BASE_QUOTA, "example.com/tie": "100", "example.com/tie-b-quota": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/tie": "2"},
                                                       limits={"example.com/tie": "2"})]))], ["job/train"]),
        S(P + "er-limits-only", "extended resource only in limits: not routed to DRA (kueue#14393)", w,
          {**BASE_QUOTA, "example.com/gpu": "100", "example.com/vgpu": "100"},
          [job("train", pod_spec(containers=[container(limits={"example.com/vgpu": "1"})]))], ["job/train"]),
        S(P + "er-fraction", "extended resource 1500m (a Workload; a Job would be refused)", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [workload("frac", [("main", 1, pod_spec(containers=[container(requests={"example.com/npu": "1500m"})]))])],
          ["workload/frac"], expect="inadmissible"),
        S(P + "unmapped-class", "ResourceClaimTemplate of a class in no mapping", w, GPU_Q,
          [template("other", request("unmapped.example.com")), job("train", pod_spec({"gpu": "other"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "first-available", "prioritized list (firstAvailable)", w, GPU_Q,
          [{**template("fa"), "spec": {"spec": {"devices": {"requests": [{"name": "dev", "firstAvailable": [
              {"name": "big", "deviceClassName": "gpu.example.com", "count": 2},
              {"name": "small", "deviceClassName": "gpu.example.com", "count": 1}]}]}}}},
           job("train", pod_spec({"gpu": "fa"}))], ["job/train"], expect="inadmissible"),
        S(P + "allocation-all", "allocationMode: All", w, GPU_Q,
          [template("all", request("gpu.example.com", mode="All")), job("train", pod_spec({"gpu": "all"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "admin-access", "adminAccess: true", w, GPU_Q,
          [template("admin", request("gpu.example.com", admin=True)), job("train", pod_spec({"gpu": "admin"}))],
          ["job/train"], expect="inadmissible", namespace_labels={"resource.kubernetes.io/admin-access": "true"}),
        S(P + "direct-claim", "a ResourceClaim named directly (resourceClaimName)", w, GPU_Q,
          [job("train", pod_spec(direct={"gpu": "shared-gpu"}))], ["job/train"], expect="inadmissible"),
        S(P + "missing-template", "a claim names a ResourceClaimTemplate that does not exist", w, GPU_Q,
          [job("train", pod_spec({"gpu": "nope"}))], ["job/train"], expect="inadmissible"),
        S(P + "missing-device-class", "a CEL request for a DeviceClass that does not exist", w, GPU_Q,
          [template("ghost", request("ghost.example.com", selector="device.driver == 'gpu.example.com'")),
           job("train", pod_spec({"gpu": "ghost"}))], ["job/train"], expect="inadmissible"),
        S(P + "not-covered", "the ClusterQueue does not cover the mapping's resource", w, dict(BASE_QUOTA),
          [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"], expect="pending"),
        S(P + "over-quota", "needs 4 GPUs, the ClusterQueue has 2", w, {**BASE_QUOTA, "example.com/gpu": "2"},
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}), parallelism=2)], ["job/train"], expect="pending"),
        S(P + "quota-used", "two jobs of 3 GPUs, quota 4: one waits", w, {**BASE_QUOTA, "example.com/gpu": "4"},
          [template("gpu-3", request("gpu.example.com", 3)),
           job("first", pod_spec({"gpu": "gpu-3"})), job("second", pod_spec({"gpu": "gpu-3"}))],
          ["job/first", "job/second"], expect="one-pending"),
    ]


def _mig_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P = prefix
    mem = {**BASE_QUOTA, "gpu.memory": "1Ti", "gpu.sm": "10k"} if w.version >= "v0.19" else \
        {**BASE_QUOTA, "gpu.memory": "1Ti"}
    prof = lambda *p: " || ".join(f"device.attributes['{NV}'].profile == '{x}'" for x in p)  # noqa: E731
    S = Scenario
    return [
        S(P + "mig-one", "one 1g.5gb MIG slice (counter path)", w, mem,
          [template("mig-1g", request("mig.nvidia.com", selector=prof("1g.5gb"))),
           job("train", pod_spec({"mig": "mig-1g"}))], ["job/train"]),
        S(P + "mig-count", "count 2 of 1g.5gb, parallelism 2", w, mem,
          [template("mig-1g2", request("mig.nvidia.com", 2, selector=prof("1g.5gb"))),
           job("train", pod_spec({"mig": "mig-1g2"}), parallelism=2)], ["job/train"]),
        S(P + "mig-max", "selector matches 1g.5gb and 3g.20gb: the MAX is charged", w, mem,
          [template("mig-any", request("mig.nvidia.com", selector=prof("1g.5gb", "3g.20gb"))),
           job("train", pod_spec({"mig": "mig-any"}))], ["job/train"]),
        S(P + "mig-counter-sets", "a device consuming from two counter sets", w, mem,
          [template("mig-2g", request("mig.nvidia.com", selector=prof("2g.10gb"))),
           job("train", pod_spec({"mig": "mig-2g"}))], ["job/train"]),
        S(P + "mig-no-selector", "no request selector: every MIG device of the class", w, mem,
          [template("mig", request("mig.nvidia.com")), job("train", pod_spec({"mig": "mig"}))], ["job/train"]),
        S(P + "full-gpu", "a whole GPU of a counter-mapped class", w, mem,
          [template("gpu", request("gpu.nvidia.com")), job("train", pod_spec({"gpu": "gpu"}))], ["job/train"]),
        S(P + "mig-incomplete-pool", "the only matching device is in an incomplete pool", w, mem,
          [template("mig-4g", request("mig.nvidia.com", selector=prof("4g.20gb"))),
           job("train", pod_spec({"mig": "mig-4g"}))], ["job/train"], expect="inadmissible"),
        S(P + "mig-stale-pool", "the only matching device is in a stale pool generation", w, mem,
          [template("mig-7g", request("mig.nvidia.com", selector=prof("7g.40gb"))),
           job("train", pod_spec({"mig": "mig-7g"}))], ["job/train"], expect="inadmissible"),
        S(P + "counter-not-published", "the mapping's counter is not consumed by any device", w,
          {**mem, "gpu.cores": "100"},
          [template("cores", request("mig-cores.nvidia.com")), job("train", pod_spec({"c": "cores"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "counter-class-missing", "a counter-mapped DeviceClass that does not exist", w, mem,
          [template("ghost", request("ghost-mig.nvidia.com")), job("train", pod_spec({"g": "ghost"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "er-on-counter-class", "extended resource of a class with counter sources", w, mem,
          [job("train", pod_spec(containers=[container(requests={"nvidia.com/mig": "1"},
                                                       limits={"nvidia.com/mig": "1"})]))],
          ["job/train"], expect="inadmissible"),
        S(P + "mig-over-quota", "2 x 3g.20gb against 20Gi of gpu.memory", w, {**mem, "gpu.memory": "20Gi"},
          [template("mig-3g", request("mig.nvidia.com", selector=prof("3g.20gb"))),
           job("train", pod_spec({"mig": "mig-3g"}), parallelism=2)], ["job/train"], expect="pending"),
    ]


def _gate_scenarios(w_off: World, w_noreject: World, w_er_off: World) -> list[Scenario]:
    gpu1 = template("gpu-1", request("gpu.example.com"))
    return [
        Scenario("unmapped-class-observability", "UnadmittedWorkloadsObservability on: reason Misconfigured",
                 w_er_off, GPU_Q, [template("other", request("unmapped.example.com")),
                                   job("train", pod_spec({"gpu": "other"}))], ["job/train"], expect="inadmissible"),
        Scenario("dra-gate-off", "KueueDRAIntegration off: DRA workloads are rejected", w_off, GPU_Q,
                 [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"], expect="inadmissible"),
        Scenario("dra-gate-off-no-reject", "KueueDRAIntegration and the reject gate off: claims ignored",
                 w_noreject, GPU_Q, [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"]),
        Scenario("er-gate-off", "KueueDRAIntegrationExtendedResource off: the raw name is charged", w_er_off,
                 {**BASE_QUOTA, "example.com/vgpu": "100"},
                 [job("train", pod_spec(containers=[container(requests={"example.com/vgpu": "2"},
                                                              limits={"example.com/vgpu": "2"})]))], ["job/train"]),
    ]


# ------------------------------------------------------------ cohorts: what the tree can give
GPU2 = {**BASE_QUOTA, "example.com/gpu": "2"}


def _gpu_job(name: str, gpus: int) -> dict:
    """A Job of ``gpus`` pods with one GPU each (template gpu-1)."""
    return job(name, pod_spec({"gpu": "gpu-1"}), parallelism=gpus)


def _cohort_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, C = prefix, CohortScenario
    gpu1 = template("gpu-1", request("gpu.example.com"))
    lender = [Queue("a", "c", {"example.com/gpu": "4"}, {"example.com/gpu": {"lendingLimit": "1"}})]
    sibling = [Queue("a", "c", {**BASE_QUOTA, "example.com/gpu": "4"})]
    nested = [Cohort("r", quota={"example.com/gpu": "2"}), Cohort("c", parent="r")]
    return [
        C(P + "cohort-lending-limit", "cohort: the other queue lends 1 of 4 (lendingLimit); 4 GPUs on quota 2 "
          "never fit: maximum capacity 3, not unlimited borrowing", w, GPU2, [gpu1, _gpu_job("train", 4)],
          ["job/train"], expect="pending", queues=lender),
        C(P + "cohort-lending-fits", "cohort: 3 GPUs on quota 2 borrow the 1 the other queue lends", w, GPU2,
          [gpu1, _gpu_job("train", 3)], ["job/train"], queues=lender),
        C(P + "cohort-borrowing-limit", "cohort: borrowingLimit 1 caps quota 2 at 3 though the cohort has 6", w, GPU2,
          [gpu1, _gpu_job("train", 4)], ["job/train"], expect="pending",
          limits={"example.com/gpu": {"borrowingLimit": "1"}}, queues=[Queue("a", "c", {"example.com/gpu": "4"})]),
        C(P + "cohort-nested", "nested cohorts: the root Cohort's own quota 2 + the queue's 1 = 3 < 4", w,
          {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 4)], ["job/train"], expect="pending",
          cohorts=nested),
        C(P + "cohort-nested-fits", "nested cohorts: 3 GPUs fit with the root Cohort's quota", w,
          {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 3)], ["job/train"], cohorts=nested),
        C(P + "cohort-nested-borrowing-limit", "nested cohorts: the middle Cohort may borrow 1 from the root: "
          "maximum 2", w, {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 3)], ["job/train"],
          expect="pending", cohorts=[Cohort("r", quota={"example.com/gpu": "2"}),
                                     Cohort("c", parent="r", quota={"example.com/gpu": "0"},
                                            limits={"example.com/gpu": {"borrowingLimit": "1"}})]),
        C(P + "cohort-nested-lending-limit", "nested cohorts: a sibling Cohort lends 1 of its queue's 4: maximum 2",
          w, {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 3)], ["job/train"], expect="pending",
          cohorts=[Cohort("r"), Cohort("c", parent="r"),
                   Cohort("s", parent="r", quota={"example.com/gpu": "0"},
                          limits={"example.com/gpu": {"lendingLimit": "1"}})],
          queues=[Queue("a", "s", {"example.com/gpu": "4"})]),
        C(P + "cohort-exhausted", "cohort of 2 + 4 GPUs, jobs of 4 (other queue) and 3: whichever waits needs 1 more",
          w, GPU2, [gpu1, queued(_gpu_job("first", 4), "lq-a"), _gpu_job("second", 3)],
          ["job/first", "job/second"], expect="one-pending", queues=sibling),
    ]


FAIR_SHARING = {"fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}}


def _fair_sharing_scenarios(w: World) -> list[Scenario]:
    keep = ("cohort-lending-limit", "cohort-nested-borrowing-limit", "cohort-exhausted")
    return [s for s in _cohort_scenarios(w, "fair-sharing/") if s.id.split("/", 1)[1] in keep]


# ------------------------------------------------------------------------ CEL runtime errors
def _cel_error_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    return [
        S(P + "cel-error-request", "request selector reads an attribute no device has: Kueue's CEL error text",
          w, GPU_Q, [template("bad", request("gpu.example.com", selector=f"device.attributes['{GPU}'].nosuch == 'x'")),
                     job("train", pod_spec({"gpu": "bad"}))], ["job/train"], expect="inadmissible"),
        S(P + "cel-error-class", "the DeviceClass's own selector fails at run time", w,
          GPU_Q,
          [template("bad", request("badsel.example.com", selector=f"device.driver == '{GPU}'")),
           job("train", pod_spec({"gpu": "bad"}))], ["job/train"], expect="inadmissible"),
        S(P + "cel-allow-multiple", "device.allowMultipleAllocations == false: declared for Kueue too, and false", w,
          GPU_Q, [template("ama", request("gpu.example.com", selector="device.allowMultipleAllocations == false")),
                  job("train", pod_spec({"gpu": "ama"}))], ["job/train"]),
        S(P + "cel-not-bool", "request selector yields a string: cel-go's conversion error", w, GPU_Q,
          [template("str", request("gpu.example.com", selector=f"device.attributes['{GPU}'].model")),
           job("train", pod_spec({"gpu": "str"}))], ["job/train"], expect="inadmissible"),
    ]


def _mig_cel_error_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    return [Scenario(prefix + "cel-error-mapping-selector", "the mapping's counter deviceSelector fails on one "
                     "device (gpu-0)", w, {**BASE_QUOTA, "gpu.bad": "1Ti"},
                     [template("bad", request("mig-bad.nvidia.com")), job("train", pod_spec({"g": "bad"}))],
                     ["job/train"], expect="inadmissible")]


# --------------------------------------------------------------------- the capacity path (alpha)
SHARE = "share.example.com"
CAPACITY_GATES = {"KueueDRAIntegrationConsumableCapacity": True}


def _capacity(name: str) -> dict:
    return {"capacity": {"name": name, "driver": SHARE, "deviceSelector": {"cel": {"expression": "true"}}}}


def capacity_world(name: str) -> World:
    """Shareable devices (allowMultipleAllocations) with a memory capacity and its requestPolicy."""
    def shared(i: int) -> dict:
        return {"name": f"share-{i}", "allowMultipleAllocations": True, "attributes": {"type": {"string": "share"}},
                "capacity": {"memory": {"value": "40Gi", "requestPolicy": {
                    "default": "10Gi", "validValues": ["10Gi", "20Gi", "40Gi"]}}}}

    mappings = [{"name": "gpu.share", "deviceClassNames": ["share.example.com"], "sources": [_capacity("memory")]},
                {"name": "gpu.nodim", "deviceClassNames": ["nodim.example.com"], "sources": [_capacity("bandwidth")]}]
    classes = [[device_class("share.example.com", f"device.driver == '{SHARE}'"),
                device_class("nodim.example.com", f"device.driver == '{SHARE}'")]]
    slices = [resource_slice("node-s-share", SHARE, "node-s", node="fake-node-s", devices=[shared(i) for i in range(2)])]
    return World(name, V19, mappings, dict(CAPACITY_GATES), classes, slices)


def _capacity_request(cls: str, memory: str | None = None) -> dict:
    r = request(cls)
    if memory:
        r["exactly"]["capacity"] = {"requests": {"memory": memory}}
    return r


def _capacity_scenarios(w: World) -> list[Scenario]:
    S = Scenario
    q = {**BASE_QUOTA, "gpu.share": "1Ti", "gpu.nodim": "1Ti"}
    return [
        S("capacity-rounded", "capacity request 15Gi rounded up to the valid value 20Gi", w, q,
          [template("c", _capacity_request("share.example.com", "15Gi")), job("train", pod_spec({"g": "c"}))],
          ["job/train"]),
        S("capacity-default", "no capacity request: the requestPolicy default (10Gi)", w, q,
          [template("c", _capacity_request("share.example.com")), job("train", pod_spec({"g": "c"}))],
          ["job/train"]),
        S("capacity-unsatisfiable", "capacity request 50Gi above every valid value: Kueue rejects it", w, q,
          [template("c", _capacity_request("share.example.com", "50Gi")), job("train", pod_spec({"g": "c"}))],
          ["job/train"], expect="inadmissible"),
        S("cel-allow-multiple-shared", "shareable devices, selector device.allowMultipleAllocations: Kueue's CEL "
          "device does not copy the field, so none matches", w, q,
          [template("c", request("share.example.com", selector="device.allowMultipleAllocations")),
           job("train", pod_spec({"g": "c"}))], ["job/train"], expect="inadmissible"),
        S("capacity-no-dimension", "the mapping's capacity (bandwidth) is published by no device", w, q,
          [template("c", _capacity_request("nodim.example.com")), job("train", pod_spec({"g": "c"}))],
          ["job/train"], expect="inadmissible"),
    ]


# ----------------------------------------- before the DRA charge: adjustment, transformations, partial
def adjust_world(name: str, version: str = V19, gates: dict | None = None) -> World:
    """The devices world (same Kueue configuration: no restart) with RuntimeClasses."""
    w = devices_world(name, version, gates)
    w.cluster_objects = [runtime_class("kata", {"cpu": "250m", "memory": "160Mi"}),
                         runtime_class("runc-plain", None)]
    return w


CONTAINER_DEFAULTS = {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"},
                      "defaultRequest": {"cpu": "300m", "memory": "256Mi"}}


def _adjust_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    gpu1 = template("gpu-1", request("gpu.example.com"))
    bare = container("main", claims=["gpu"])  # no requests, no limits
    return [
        S(P + "lr-container-defaults", "LimitRange defaultRequest for a container without requests (x2 pods)",
          w, GPU_Q, [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
                     job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare]), parallelism=2)], ["job/train"]),
        S(P + "lr-partly-set", "LimitRange defaults only what a container lacks (cpu set, memory defaulted)", w,
          GPU_Q, [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
                  job("train", pod_spec({"gpu": "gpu-1"}, containers=[
                      container("main", requests={"cpu": "800m"}, claims=["gpu"]), container("side")]))],
          ["job/train"]),
        S(P + "lr-default-limit-below-request", "a LimitRange default limit below the container's request: Kueue's "
          "resource validation keeps it waiting", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[container("main", requests={"cpu": "2"},
                                                                         claims=["gpu"])]))],
          ["job/train"], expect="pending"),
        S(P + "lr-above-max", "a request above the LimitRange max (container and pod)", w, GPU_Q,
          [limit_range("bounds", {"type": "Container", "max": {"memory": "1Gi"}}, {"type": "Pod", "max": {"cpu": "1"}}),
           gpu1, job("train", pod_spec({"gpu": "gpu-1"}, containers=[
               container("main", requests={"cpu": "800m", "memory": "2Gi"}, limits={"memory": "2Gi"}, claims=["gpu"]),
               container("side", requests={"cpu": "800m"})]))], ["job/train"], expect="pending"),
        S(P + "lr-default-limit-only", "LimitRange with only a default limit: the API server makes it the "
          "default request", w, GPU_Q,
          [limit_range("limits", {"type": "Container", "default": {"cpu": "700m", "memory": "512Mi"}}), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare]))], ["job/train"]),
        S(P + "lr-max-only", "LimitRange with only a max: default limit and request = max", w, GPU_Q,
          [limit_range("max", {"type": "Container", "max": {"memory": "768Mi"}}), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[container("main", requests={"cpu": "1"},
                                                                         claims=["gpu"])]))], ["job/train"]),
        S(P + "lr-request-before-limit", "init container with a limit only: the LimitRange default request "
          "wins over the limit", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare],
                                 init=[container("setup", limits={"cpu": "4", "memory": "4Gi"})]))],
          ["job/train"]),
        S(P + "lr-two-ranges", "two LimitRanges: one defaults cpu, the other memory (and a Pod max)", w, GPU_Q,
          [limit_range("a-cpu", {"type": "Container", "defaultRequest": {"cpu": "150m"}}),
           limit_range("b-mem", {"type": "Container", "defaultRequest": {"memory": "300Mi"}},
                       {"type": "Pod", "max": {"cpu": "50"}}),
           gpu1, job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare]))], ["job/train"]),
        S(P + "lr-extended-resource", "LimitRange defaults example.com/vgpu (a mapped class's extendedResourceName): "
          "with a claim in the pod Kueue's DRA step routes it to the mapping, summed with the claim", w,
          {**GPU_Q, "example.com/vgpu": "100"},
          [limit_range("vgpu", {"type": "Container", "default": {"example.com/vgpu": "1"},
                                "defaultRequest": {"example.com/vgpu": "1"}}), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[container("main", requests={"cpu": "1"},
                                                                         claims=["gpu"])]), parallelism=2)],
          ["job/train"]),
        S(P + "lr-extended-resource-no-claim", "the same LimitRange default without a claim: Kueue decides on DRA "
          "before the defaults, so example.com/vgpu is charged under its own name", w,
          {**GPU_Q, "example.com/vgpu": "100"},
          [limit_range("vgpu", {"type": "Container", "default": {"example.com/vgpu": "1"},
                                "defaultRequest": {"example.com/vgpu": "1"}}),
           job("train", pod_spec(containers=[container("main", requests={"cpu": "1"})]), parallelism=2)],
          ["job/train"]),
        S(P + "runtime-class-overhead", "RuntimeClass overhead.podFixed added per pod (x3 pods)", w, GPU_Q,
          [gpu1, job("train", dict(pod_spec({"gpu": "gpu-1"}), runtimeClassName="kata"), parallelism=3)],
          ["job/train"]),
        S(P + "runtime-class-no-overhead", "a RuntimeClass without overhead, and one that does not exist", w,
          GPU_Q, [gpu1, job("plain", dict(pod_spec({"gpu": "gpu-1"}), runtimeClassName="runc-plain")),
                  job("ghost", dict(pod_spec({"gpu": "gpu-1"}), runtimeClassName="no-such-class"))],
          ["job/plain", "job/ghost"]),
        S(P + "runtime-class-and-lr", "RuntimeClass overhead and LimitRange defaults together", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", dict(pod_spec({"gpu": "gpu-1"}, containers=[bare]), runtimeClassName="kata"),
               parallelism=2)], ["job/train"]),
        S(P + "pod-level-limits", "pod-level resources with limits only: used as the pod's requests", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", dict(pod_spec({"gpu": "gpu-1"}, containers=[bare]),
                             resources={"limits": {"cpu": "3", "memory": "3Gi"}}))], ["job/train"]),
    ]


def _partial_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    gpu1 = template("gpu-1", request("gpu.example.com"))
    one_cpu = container("main", requests={"cpu": "1"}, claims=["gpu"])
    return [
        S(P + "partial-admitted", "4 pods, minCount 2, quota for 3 GPUs: admitted with 3", w,
          {**BASE_QUOTA, "example.com/gpu": "3"},
          [gpu1, partial_job("train", pod_spec({"gpu": "gpu-1"}, containers=[one_cpu]), 4, 2)], ["job/train"]),
        S(P + "partial-pending", "4 pods, minCount 3, quota for 2 GPUs: even the minimum does not fit", w,
          {**BASE_QUOTA, "example.com/gpu": "2"},
          [gpu1, partial_job("train", pod_spec({"gpu": "gpu-1"}, containers=[one_cpu]), 4, 3)], ["job/train"],
          expect="pending"),
        S(P + "partial-podsets", "a Workload: driver 1 pod + workers 6 pods (minCount 2), quota for 5 GPUs", w,
          {**BASE_QUOTA, "example.com/gpu": "5"},
          [gpu1, _partial_workload("train", pod_spec({"gpu": "gpu-1"}, containers=[one_cpu]))],
          ["workload/train"]),
    ]


def _partial_workload(name: str, spec: dict) -> dict:
    wl = workload(name, [("driver", 1, spec), ("workers", 6, spec)])
    wl["spec"]["podSets"][1]["minCount"] = 2
    return wl


TRANSFORMATIONS = {"resources": {
    "excludeResourcePrefixes": ["example.org/"],
    "transformations": [
        {"input": "example.com/legacy-gpu", "strategy": "Replace", "outputs": {"example.com/gpu": "1"}},
        {"input": "example.com/vslice", "strategy": "Retain", "multiplyBy": "example.com/slots",
         "outputs": {"example.com/credits": "3"}},
        {"input": "example.com/mem-unit", "strategy": "Replace",
         "outputs": {"memory": "512Mi", "cpu": "250m"}},
    ]}}


def transform_world(name: str, version: str = V19, gates: dict | None = None) -> World:
    w = devices_world(name, version, gates)
    w.config = copy.deepcopy(TRANSFORMATIONS)
    return w


def _transform_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    gpu2 = template("gpu-2", request("gpu.example.com", 2))

    vslices = {"example.com/vslice": "2", "example.com/slots": "4"}

    credits = {**BASE_QUOTA, "example.com/credits": "1k", "example.com/vslice": "100", "example.com/slots": "100"}
    return [
        S(P + "tf-replace", "transformation Replace: legacy-gpu 2 → 2 example.com/gpu (x2 pods)", w, GPU_Q,
          [job("train", pod_spec(containers=[container(requests={"cpu": "1", "example.com/legacy-gpu": "2"},
                                                       limits={"example.com/legacy-gpu": "2"})]), parallelism=2)],
          ["job/train"]),
        S(P + "tf-replace-plus-dra", "transformation output and a DRA claim charge the same resource: summed",
          w, GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}, containers=[
              container(requests={"cpu": "1", "example.com/legacy-gpu": "1"}, limits={"example.com/legacy-gpu": "1"},
                        claims=["gpu"])]))], ["job/train"]),
        S(P + "tf-retain-multiply", "Retain with multiplyBy: vslice 2 × slots 4 × 3 credits, vslice kept", w,
          credits,
          [job("train", pod_spec(containers=[container(requests={"cpu": "100m", **vslices}, limits=vslices)]))],
          ["job/train"]),
        S(P + "tf-output-adds-to-request", "outputs memory/cpu add to what the pod requests under those names", w,
          GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}, containers=[
              container(requests={"cpu": "1", "memory": "1Gi", "example.com/mem-unit": "3"},
                        limits={"example.com/mem-unit": "3"}, claims=["gpu"])]), parallelism=2)], ["job/train"]),
        S(P + "tf-exclude-prefix", "excludeResourcePrefixes: example.org/ is not charged (not even covered)", w,
          GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}, containers=[
              container(requests={"cpu": "500m", "example.org/licence": "2"}, limits={"example.org/licence": "2"},
                        claims=["gpu"])]))], ["job/train"]),
    ]


_V18_DEVICES = ("template-count", "two-claims", "er-mapped", "er-same-name", "er-init-containers", "er-sidecar",
                "unmapped-class", "cel-too-few", "admin-access")
_V18_MIG = ("mig-one", "mig-max", "mig-counter-sets", "mig-stale-pool")
_V18_ADJUST = ("lr-container-defaults", "lr-request-before-limit", "runtime-class-overhead",
               "lr-default-limit-below-request")
_V18_PARTIAL = ("partial-admitted",)
_V18_TRANSFORM = ("tf-retain-multiply", "tf-replace-plus-dra")
V18_GATES = {"KueueDRAIntegrationExtendedResource": True, "KueueDRAIntegrationPartitionableDevices": True}


def scenarios(versions: tuple[str, ...] = (V19,)) -> list[Scenario]:
    out: list[Scenario] = []
    if V19 in versions:
        devices = devices_world("devices")
        out += _devices_scenarios(devices)
        out += _cohort_scenarios(devices)
        out += _cel_error_scenarios(devices)
        out += _selector_scenarios(devices)
        mig = mig_world("mig")
        out += _mig_scenarios(mig)
        out += _mig_cel_error_scenarios(mig)
        fair = devices_world("fair-sharing")
        fair.config = FAIR_SHARING
        out += _fair_sharing_scenarios(fair)
        out += _capacity_scenarios(capacity_world("capacity"))
        out += _bad_counter_scenarios(bad_counters_world("bad-counters"))
        dra_off = {"KueueDRAIntegration": False, "KueueDRAIntegrationExtendedResource": False,
                   "KueueDRAIntegrationPartitionableDevices": False}
        gpu_only = [DEVICES_MAPPINGS[0]]
        adjust = adjust_world("adjust")
        out += _adjust_scenarios(adjust)
        out += _partial_scenarios(adjust)
        out += _transform_scenarios(transform_world("transformations"))
        out += _gate_scenarios(devices_world("dra-off", gates=dra_off, mappings=gpu_only),
                               devices_world("dra-off-no-reject", mappings=gpu_only,
                                             gates={**dra_off, "KueueDRARejectWorkloadsWhenDRADisabled": False}),
                               devices_world("er-gate-off", gates={"KueueDRAIntegrationExtendedResource": False,
                                                                   "UnadmittedWorkloadsObservability": True}))
    if V18 in versions:
        w = devices_world("devices-0.18", V18, V18_GATES)
        out += [s for s in _devices_scenarios(w, "0.18/") if s.id[5:] in _V18_DEVICES]
        m = mig_world("mig-0.18", V18, V18_GATES)
        out += [s for s in _mig_scenarios(m, "0.18/") if s.id[5:] in _V18_MIG]
        out += [s for s in _cohort_scenarios(w, "0.18/") if s.id[5:] in ("cohort-lending-limit", "cohort-nested")]
        out += _cel_error_scenarios(w, "0.18/")[:1]
        out += _selector_scenarios(w, "0.18/")[:1]
        a = adjust_world("adjust-0.18", V18, V18_GATES)
        out += [s for s in _adjust_scenarios(a, "0.18/") if s.id[5:] in _V18_ADJUST]
        out += [s for s in _partial_scenarios(a, "0.18/") if s.id[5:] in _V18_PARTIAL]
        t = transform_world("transformations-0.18", V18, V18_GATES)
        out += [s for s in _transform_scenarios(t, "0.18/") if s.id[5:] in _V18_TRANSFORM]
    return copy.deepcopy(out)
