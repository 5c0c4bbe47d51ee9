"""Lifecycle scenarios: Kueue admits, the job controller creates the pods, the resourceclaim
controller the claims, the scheduler allocates the devices, KWOK runs the pods; then the
ResourceClaims' ``status.allocation`` is compared with what ``explain`` shows.

One world for all (``WORLD``): the DeviceClasses and Kueue's configuration. Each scenario brings
its own fake nodes (named after it, labelled ``lifecycle.kueue-dra/scenario=<id>``) with their
ResourceSlices in the NVIDIA shapes of ``scripts/make-examples`` (whole GPUs; A100 dynamic MIG with
counters), and its pods select those nodes, so scenarios run side by side without taking each
other's devices. Objects that must hold devices before the scenario's Job is queued
(``before``) are applied first and are not queued in Kueue.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from testenv.builders import container, device_class, job, pod_spec, request, template
from testenv.oracle_scenarios import V19, World
from testenv.scale import ex

DRIVER = ex.DRIVER
SCENARIO_LABEL = "lifecycle.kueue-dra/scenario"
GPU_CLASS = "gpu.nvidia.com"
MIG_CLASS = "mig.nvidia.com"
ER_CLASS = "gpu-er.nvidia.com"
ER_NAME = "nvidia.com/gpu"
QUOTA = {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "16", "gpu.memory": "320Gi"}

MAPPINGS = [
    {"name": "nvidia.com/gpu", "deviceClassNames": [GPU_CLASS]},
    {"name": "gpu.memory", "deviceClassNames": [MIG_CLASS],
     "sources": [{"counter": {"name": "memory", "driver": DRIVER,
                              "deviceSelector": {"cel": {"expression": f"device.driver == '{DRIVER}'"}}}}]},
]
WORLD = World("lifecycle", V19, MAPPINGS, {}, [[
    device_class(GPU_CLASS, ex.GPU_CLASS_SELECTOR),
    device_class(MIG_CLASS, ex.MIG_CLASS_SELECTOR),
    device_class(ER_CLASS, ex.GPU_CLASS_SELECTOR, er=ER_NAME),
]])


def profile(p: str) -> str:
    return f"device.attributes['{DRIVER}'].profile == '{p}'"


@dataclass
class NodeSpec:
    """A fake node and what its ResourceSlices publish: ``whole`` H100s, or ``mig`` A100s."""

    suffix: str
    whole: int = 0
    mig: int = 0
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class LifeScenario:
    id: str
    title: str
    nodes: list[NodeSpec]
    objects: list[dict]  # namespaced: templates, the queued Job(s)
    subjects: list[str]
    #: what the scenario is built for: every pod Running with its devices, or admitted by Kueue
    #: and left unschedulable by the scheduler
    expect: str = "running"  # running | unschedulable
    before: list[dict] = field(default_factory=list)  # not queued, applied and running first
    findings: tuple[str, ...] = ()  # finding codes explain must show
    node_selector: dict[str, str] | None = None  # None: the scenario's nodes
    because: str = ""  # unschedulable: what the scheduler's PodScheduled message must say

    def node_name(self, n: NodeSpec) -> str:
        return f"{self.id}-{n.suffix}"


def _node_index(sid: str, i: int) -> int:
    return (sum(map(ord, sid)) * 7 + i) % 4096  # distinct GPU UUIDs per node, deterministic


def slices_of(s: LifeScenario) -> list[dict]:
    out = []
    for i, n in enumerate(s.nodes):
        name = s.node_name(n)
        if n.whole:
            out.append(ex.whole_gpu_slice(name, _node_index(s.id, i), n.whole, "NVIDIA H100 80GB HBM3", "80Gi"))
        if n.mig:
            out += ex.mig_slices(name, _node_index(s.id, i), n.mig)
    for sl in out:
        sl["metadata"].pop("creationTimestamp", None)
    return out


def placed(s: LifeScenario, obj: dict) -> dict:
    """A Job pinned to the scenario's nodes (or to the scenario's own unsatisfiable selector)."""
    obj = copy.deepcopy(obj)
    spec = obj["spec"]["template"]["spec"]
    spec["nodeSelector"] = dict(s.node_selector) if s.node_selector is not None else {SCENARIO_LABEL: s.id}
    return obj


def plain(obj: dict) -> dict:
    """A Job Kueue does not manage (no queue label, not suspended): runs at once."""
    obj = copy.deepcopy(obj)
    obj["metadata"]["labels"] = {}
    obj["spec"]["suspend"] = False
    return obj


def _tpl(name: str, cls: str, count: int = 1, selector: str | None = None) -> dict:
    return template(name, request(cls, count, selector=selector))


def _gpu_job(name: str, claims: dict[str, str], parallelism: int = 1) -> dict:
    return job(name, pod_spec(claims), parallelism=parallelism, completions=parallelism)


def _er_job(name: str, gpus: int, parallelism: int = 1) -> dict:
    c = container(requests={"cpu": "100m", ER_NAME: str(gpus)}, limits={ER_NAME: str(gpus)})
    return job(name, pod_spec(containers=[c]), parallelism=parallelism, completions=parallelism)


def _pin(suffix: str, gpu_minor: int) -> str:
    """The CEL selector of MIG devices on one GPU of a scenario's node (its parentUUID; ``resolve``
    puts the uuid in)."""
    return f"device.attributes['{DRIVER}'].parentUUID == '{{uuid:{suffix}:{gpu_minor}}}'"


def scenarios() -> list[LifeScenario]:
    out = [
        LifeScenario("whole-gpus-two-nodes", "2 pods × 2 whole H100s, nodes of 2 GPUs: one pod per node",
                     [NodeSpec("n1", whole=2), NodeSpec("n2", whole=2)],
                     [_tpl("gpu-2", GPU_CLASS, 2), _gpu_job("train", {"gpu": "gpu-2"}, parallelism=2)],
                     ["job/train"]),
        LifeScenario("whole-gpu-one", "1 pod × 1 whole H100 on a node of 4",
                     [NodeSpec("n1", whole=4)],
                     [_tpl("gpu-1", GPU_CLASS), _gpu_job("train", {"gpu": "gpu-1"})], ["job/train"]),
        LifeScenario("whole-gpus-two-claims", "1 pod with two claims of 1 whole H100 each",
                     [NodeSpec("n1", whole=2)],
                     [_tpl("gpu-1", GPU_CLASS), _gpu_job("train", {"a": "gpu-1", "b": "gpu-1"})], ["job/train"]),
        LifeScenario("mig-1g5gb", "3 pods × MIG 1g.5gb on one A100 (counters)",
                     [NodeSpec("n1", mig=1)],
                     [_tpl("mig-1g", MIG_CLASS, selector=profile("1g.5gb")),
                      _gpu_job("eval", {"mig": "mig-1g"}, parallelism=3)], ["job/eval"]),
        LifeScenario("mig-3g20gb-fills-gpu", "2 pods × MIG 3g.20gb: both placements of one A100",
                     [NodeSpec("n1", mig=1)],
                     [_tpl("mig-3g", MIG_CLASS, selector=profile("3g.20gb")),
                      _gpu_job("eval", {"mig": "mig-3g"}, parallelism=2)], ["job/eval"]),
        LifeScenario("mig-spread-two-nodes", "3 pods × MIG 3g.20gb, nodes of one A100: 2 + 1",
                     [NodeSpec("n1", mig=1), NodeSpec("n2", mig=1)],
                     [_tpl("mig-3g", MIG_CLASS, selector=profile("3g.20gb")),
                      _gpu_job("eval", {"mig": "mig-3g"}, parallelism=3)], ["job/eval"]),
        LifeScenario("mig-and-whole-gpu", "1 pod: a whole A100 and a MIG 1g.5gb (two GPUs of one node)",
                     [NodeSpec("n1", mig=2)],
                     [_tpl("gpu-1", GPU_CLASS), _tpl("mig-1g", MIG_CLASS, selector=profile("1g.5gb")),
                      _gpu_job("mixed", {"gpu": "gpu-1", "mig": "mig-1g"})], ["job/mixed"]),
        LifeScenario("mig-max-charging", "MIG request 1g.5gb or 7g.40gb: Kueue charges the 7g, the scheduler "
                     "allocates a 1g (MAX charging above the allocation)",
                     [NodeSpec("n1", mig=1)],
                     [_tpl("mig-any", MIG_CLASS, selector=f"{profile('1g.5gb')} || {profile('7g.40gb')}"),
                      _gpu_job("eval", {"mig": "mig-any"})], ["job/eval"], findings=("ChargedAboveAllocation",)),
        LifeScenario("mig-fragmented", "2 A100s with one 1g.5gb taken on each: Kueue admits a 7g.40gb "
                     "(enough memory in the cluster), no GPU has it whole: unschedulable",
                     [NodeSpec("n1", mig=2)],
                     [_tpl("mig-7g", MIG_CLASS, selector=profile("7g.40gb")), _gpu_job("big", {"mig": "mig-7g"})],
                     ["job/big"], expect="unschedulable", because="cannot allocate all claims",
                     before=[_tpl("pin-0", MIG_CLASS, selector=f"{profile('1g.5gb')} && {_pin('n1', 0)}"),
                             _tpl("pin-1", MIG_CLASS, selector=f"{profile('1g.5gb')} && {_pin('n1', 1)}"),
                             plain(_gpu_job("filler-0", {"mig": "pin-0"})),
                             plain(_gpu_job("filler-1", {"mig": "pin-1"}))]),
        LifeScenario("extended-resource", "nvidia.com/gpu: 1 through a DeviceClass extendedResourceName: "
                     "the scheduler's extended-resource claim",
                     [NodeSpec("n1", whole=2)], [_er_job("infer", 1)], ["job/infer"]),
        LifeScenario("extended-resource-two-pods", "2 pods × nvidia.com/gpu: 2, nodes of 2 GPUs",
                     [NodeSpec("n1", whole=2), NodeSpec("n2", whole=2)], [_er_job("infer", 2, parallelism=2)],
                     ["job/infer"]),
        LifeScenario("node-selector-unsatisfiable", "a whole GPU with a nodeSelector no node has: admitted, "
                     "the claim is never allocated",
                     [NodeSpec("n1", whole=2)],
                     [_tpl("gpu-1", GPU_CLASS), _gpu_job("train", {"gpu": "gpu-1"})], ["job/train"],
                     expect="unschedulable", node_selector={"gpu.example.com/zone": "nowhere"},
                     because="didn't match Pod's node affinity/selector"),
    ]
    return out


def uuid_of(s: LifeScenario, suffix: str, minor: int) -> str:
    """The uuid make-examples gives GPU ``minor`` of the scenario's node ``suffix``."""
    i = next(k for k, n in enumerate(s.nodes) if n.suffix == suffix)
    return ex.gpu_attrs("", minor, _node_index(s.id, i))["uuid"]["string"]


def resolve(s: LifeScenario, obj: dict[str, Any]) -> dict[str, Any]:
    """Replace ``{uuid:<node suffix>:<minor>}`` placeholders in CEL selectors."""
    import json
    import re

    text = json.dumps(obj)
    text = re.sub(r"\{uuid:([^:}]+):(\d+)\}", lambda m: uuid_of(s, m.group(1), int(m.group(2))), text)
    return json.loads(text)
