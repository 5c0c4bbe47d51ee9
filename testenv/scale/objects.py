"""The synthetic GPU cluster's objects (see ``testenv.scale``): N nodes × 8 GPUs with dynamic MIG
and 8 RDMA NICs, the DeviceClasses, upstream Kueue's config, the queues and templates of each team
namespace and W Jobs with their admitted Workloads. Generated lazily; ``generated_objects`` is the
whole cluster without a server (an offline snapshot)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterator

from testenv.harness import REPO_ROOT

Obj = dict[str, Any]


def _load_examples_module() -> Any:
    path = REPO_ROOT / "scripts" / "make-examples"
    loader = importlib.machinery.SourceFileLoader("kueue_dra_make_examples", str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


ex = _load_examples_module()
DRIVER = ex.DRIVER
KUEUE_NS = "kueue-system"
GPUS_PER_NODE = 8
QUOTA = "gpu.memory"
PROFILE_MEMORY_MI = {model: {p[0]: int(p[2][:-2]) for p in ex.GPU_MODELS[model][3]} for model in ex.GPU_MODELS}


@dataclass(frozen=True)
class Size:
    nodes: int
    workloads: int = 200
    teams: int = 10
    #: every node of this GPU model ("a100", "h100"); None: even nodes H100, odd nodes A100
    only: str | None = None

    def model(self, node: int) -> str:
        if self.only is not None:
            return self.only
        return "h100" if node % 2 == 0 else "a100"

    @property
    def models(self) -> list[str]:
        return sorted({self.model(i) for i in range(min(self.nodes, 2))})

    @property
    def gpu_devices(self) -> int:
        per_gpu = {m: 1 + sum(len(p[9]) for p in ex.GPU_MODELS[m][3]) for m in ex.GPU_MODELS}
        return sum(GPUS_PER_NODE * per_gpu[self.model(i)] for i in range(self.nodes))

    @property
    def devices(self) -> int:
        return self.gpu_devices + NICS_PER_NODE * self.nodes

    @property
    def gpu_slices(self) -> int:
        return 2 * GPUS_PER_NODE * self.nodes

    @property
    def slices(self) -> int:
        return self.gpu_slices + self.nodes

    def team(self, i: int) -> str:
        return f"team-{i}"


# ---------------------------------------------------------------------------------------------
# the objects


NIC_DRIVER = "dra.net"
NICS_PER_NODE = 8


def nic_slice(node: str, node_index: int) -> Obj:
    """The node's RDMA NICs (one per GPU, for GPUDirect), as a network DRA driver (DraNet)
    publishes them: a second driver in the cluster, which ``spec.driver`` field selectors skip."""
    devices = [{"name": f"nic-{k}", "attributes": {
        "dra.net/ifName": {"string": f"ens{k + 1}f0np0"}, "dra.net/rdma": {"bool": True},
        "dra.net/pciVendor": {"string": "Mellanox Technologies"}, "dra.net/numaNode": {"int": k // 4},
        "dra.net/mac": {"string": f"b8:3f:d2:{node_index >> 8 & 255:02x}:{node_index & 255:02x}:{k:02x}"},
        "resource.kubernetes.io/pciBusID": {"string": f"0000:{0x0c + 0x10 * k:02x}:00.0"}}}
        for k in range(NICS_PER_NODE)]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": ex.meta(f"{node}-{NIC_DRIVER}-nics"),
            "spec": {"driver": NIC_DRIVER, "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1}, "devices": devices}}


def node_slices(size: Size) -> Iterator[Obj]:
    for i in range(size.nodes):
        node = f"gpu-node-{i:05d}"
        yield from ex.mig_slices(node, i + 1, GPUS_PER_NODE, size.model(i))
        yield nic_slice(node, i + 1)


def profiles(size: Size) -> list[tuple[str, str]]:
    """(model, MIG profile) for every profile of the models present, whole-GPU profiles included."""
    return [(m, p[0]) for m in size.models for p in ex.GPU_MODELS[m][3]]


def device_classes(size: Size) -> list[Obj]:
    out = [ex.device_class("gpu.nvidia.com", ex.GPU_CLASS_SELECTOR),
           ex.device_class("mig.nvidia.com", ex.MIG_CLASS_SELECTOR)]
    for _, profile in profiles(size):
        out.append(ex.device_class(f"mig-{profile}.nvidia.com",
                                   f"{ex.MIG_CLASS_SELECTOR} && device.attributes['{DRIVER}'].profile == '{profile}'",
                                   ern=f"nvidia.com/mig-{profile}"))
    return out


def kueue_config() -> list[Obj]:
    mapping = {"name": QUOTA, "deviceClassNames": ["gpu.nvidia.com", "mig.nvidia.com"],
               "sources": [{"counter": {"name": "memory", "driver": DRIVER,
                                        "deviceSelector": {"cel": {"expression": f"device.driver == '{DRIVER}'"}}}}]}
    return ex.upstream_kueue([mapping])


def templates(size: Size, ns: str) -> list[Obj]:
    out = [ex.claim_template(f"mig-{p.replace('.', '')}", ns, "mig.nvidia.com",
                             selector=f"device.attributes['{DRIVER}'].profile == '{p}'")
           for p in sorted({p for _, p in profiles(size)})]
    out.append(ex.claim_template("full-gpu", ns, "gpu.nvidia.com"))
    return out


def queues(size: Size) -> list[Obj]:
    out = [ex.flavor()]
    for t in range(size.teams):
        ns = size.team(t)
        out.append(ex.cluster_queue(f"cq-{ns}", {"cpu": "10000", "memory": "100Ti", QUOTA: "100Ti"}))
        out.append(ex.local_queue("lq", ns, f"cq-{ns}"))
    return out


def namespaces(size: Size) -> list[Obj]:
    return [ex.namespace(KUEUE_NS)] + [ex.namespace(size.team(t)) for t in range(size.teams)]


def _gpu_memory_mi(size: Size, template: str) -> int:
    """What Kueue charges per device of a template: MAX memory counter over matching devices."""
    if template == "full-gpu":
        return max(PROFILE_MEMORY_MI[m][ex.GPU_MODELS[m][3][-1][0]] for m in size.models)
    return max(mem for m in size.models for p, mem in PROFILE_MEMORY_MI[m].items()
               if f"mig-{p.replace('.', '')}" == template)


def workload_jobs(size: Size) -> Iterator[tuple[Obj, Obj]]:
    """(Job, Workload without owner uid) pairs; Workload status holds the admission."""
    names = sorted({f"mig-{p.replace('.', '')}" for _, p in profiles(size)}) + ["full-gpu"]
    for k in range(size.workloads):
        ns = size.team(k % size.teams)
        template = names[k % len(names)]
        count = 1 + k % 4
        job = ex.job(f"train-{k}", ns, "lq", ex.pod_spec([("gpu", template)]), parallelism=count,
                     uid="00000000-0000-4000-8000-000000000000", suspend=False)
        usage = {"cpu": str(4 * count), "memory": f"{16 * count}Gi", QUOTA: f"{_gpu_memory_mi(size, template) * count}Mi"}
        yield job, ex.workload(job, f"cq-{ns}", usage)


IDENTITY_ATTRIBUTES = {"uuid", "parentUUID", "resource.kubernetes.io/pciBusID", "dra.net/mac", "dra.net/ifName"}


def distinct_shapes(size: Size) -> int:
    """Distinct device shapes: what a selector can see of a device (driver, attributes, capacity),
    leaving out per-device identity such as uuids, PCI addresses and MACs. 13 GPU/MIG shapes
    (whole A100 and H100, 5 + 6 MIG profiles) and 2 NIC shapes (NUMA node 0 or 1)."""
    seen = set()
    for s in node_slices(Size(min(size.nodes, 2))):
        for d in s["spec"].get("devices") or []:
            attrs = {k: v for k, v in d["attributes"].items() if k not in IDENTITY_ATTRIBUTES}
            seen.add((s["spec"]["driver"], json.dumps(attrs, sort_keys=True),
                      json.dumps(d.get("capacity"), sort_keys=True)))
    return len(seen)


def explain_target(size: Size) -> tuple[str, str]:
    """(namespace, reference) of the workload the benchmark explains: a MIG job."""
    return size.team(0), "job/train-0"


def generated_objects(size: Size) -> Iterator[Obj]:
    """The objects without a server (uids made up): an offline snapshot when no control plane runs."""
    yield from namespaces(size)
    yield from device_classes(size)
    yield from kueue_config()[1:]
    yield from queues(size)
    for t in range(size.teams):
        yield from templates(size, size.team(t))
    yield from node_slices(size)
    for k, (job, wl) in enumerate(workload_jobs(size)):
        uid = f"00000000-0000-4000-8000-{k:012d}"
        job["metadata"]["uid"] = uid
        wl["metadata"]["ownerReferences"][0]["uid"] = uid
        wl["metadata"]["labels"]["kueue.x-k8s.io/job-uid"] = uid
        wl["metadata"]["name"] = f"job-{job['metadata']['name']}-{uid[-5:]}"
        yield job
        yield wl
