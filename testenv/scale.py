"""A synthetic GPU cluster at scale, for the benchmark (scripts/bench) and the perf guard.

N nodes × 8 GPUs with dynamic MIG, as the NVIDIA DRA driver publishes them on Kubernetes ≥ 1.35:
per GPU one counters-only ResourceSlice and one devices slice (the whole GPU + every MIG
placement), all in the node's pool; and per node one slice of 8 RDMA NICs from a second driver. Even nodes are H100-80GB (19 devices per GPU), odd nodes
A100-40GB (15 devices per GPU); the device and counter shapes come from scripts/make-examples.
Around them: DeviceClasses (whole GPU, MIG, one per MIG profile with an extendedResourceName),
upstream Kueue's config (ConfigMap + Deployment) with a counter mapping ``gpu.memory``, one
ClusterQueue + LocalQueue + ResourceClaimTemplates per team namespace, and W Jobs with their
admitted Workloads (the recorded usage is what Kueue charges for them).

Objects are generated lazily (a 1,000-node cluster is ~16,000 slices) and created with raw POSTs
from a bounded pool of keep-alive connections (``Loader``). ``write_snapshot`` reads everything
back, page by page, into one JSON ``List`` file, without managedFields as ``kubectl get -o json``
prints it.
"""

from __future__ import annotations

import http.client
import importlib.machinery
import importlib.util
import json
import ssl
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import urlencode, urlsplit

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


# ---------------------------------------------------------------------------------------------
# loading


class LoadError(RuntimeError):
    pass


def _api_path(obj: Obj, subresource: str = "") -> str:
    from kubectl_kueue_dra.kube.kinds import KINDS

    kind = KINDS[obj["kind"]]
    version = obj["apiVersion"]
    base = f"/api/{version}" if kind.group == "" else f"/apis/{version}"
    ns = obj["metadata"].get("namespace")
    if kind.namespaced:
        base += f"/namespaces/{ns}"
    path = f"{base}/{kind.plural}"
    return path + (f"/{obj['metadata']['name']}/{subresource}" if subresource else "")


class Loader:
    """Raw requests to a test cluster from a pool of keep-alive HTTPS connections."""

    def __init__(self, cluster: Any, workers: int = 8):
        self.cluster = cluster
        url = urlsplit(cluster.server)
        self.host, self.port = url.hostname, url.port
        self.ctx = ssl.create_default_context(cafile=str(cluster.pki.ca_cert))
        self.token = cluster.tokens["admin"]
        self.workers = workers
        self._local = threading.local()
        self.requests = 0
        self.bytes_sent = 0
        self._lock = threading.Lock()

    def _conn(self) -> http.client.HTTPSConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=120)
        return conn

    def request(self, method: str, path: str, body: Any = None,
                content_type: str = "application/json") -> tuple[int, bytes]:
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(6):
            try:
                conn = self._conn()
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
            except (OSError, http.client.HTTPException):
                self._local.conn = None
                time.sleep(0.2 * (attempt + 1))
                continue
            with self._lock:
                self.requests += 1
                self.bytes_sent += len(data or b"")
            if resp.status in (429, 500, 502, 503, 504):
                time.sleep(0.2 * (attempt + 1))
                continue
            return resp.status, payload
        raise LoadError(f"{method} {path}: no answer after retries")

    def create(self, obj: Obj) -> Obj:
        status, payload = self.request("POST", _api_path(obj), _for_create(obj))
        if status == 409:
            return {}
        if status >= 300:
            raise LoadError(f"create {obj['kind']} {obj['metadata'].get('name')}: HTTP {status}: {payload[:300]!r}")
        return json.loads(payload)

    def put_status(self, obj: Obj) -> None:
        body = {"status": obj["status"]}
        status, payload = self.request("PATCH", _api_path(obj, "status"), body,
                                       content_type="application/merge-patch+json")
        if status >= 300:
            raise LoadError(f"status of {obj['kind']} {obj['metadata']['name']}: HTTP {status}: {payload[:300]!r}")

    def run(self, tasks: Iterable[Callable[[], Any]], inflight: int | None = None) -> int:
        """Run the callables on the pool with at most ``inflight`` pending (the iterable is
        consumed lazily, so generated objects do not pile up). Returns how many ran."""
        limit = inflight or self.workers * 4
        done_count = 0
        with ThreadPoolExecutor(self.workers) as pool:
            pending: set[Future] = set()
            for task in tasks:
                pending.add(pool.submit(task))
                if len(pending) >= limit:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        f.result()
                        done_count += 1
            for f in pending:
                f.result()
                done_count += 1
        return done_count


def _for_create(obj: Obj) -> Obj:
    """The object without what the server sets (status goes through the subresource)."""
    meta = {k: v for k, v in obj["metadata"].items() if k not in ("creationTimestamp", "uid", "resourceVersion")}
    out = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    out["metadata"] = meta
    return out


def load(cluster: Any, size: Size, workers: int = 8, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Create the whole synthetic cluster; returns timings (seconds) and counts."""
    say = progress or (lambda _msg: None)
    loader = Loader(cluster, workers)
    timings: dict[str, Any] = {}

    t0 = time.monotonic()
    loader.run([lambda o=o: loader.create(o) for o in namespaces(size)])
    loader.run([lambda o=o: loader.create(o) for o in
                device_classes(size) + kueue_config()[1:] + queues(size)
                + [t for i in range(size.teams) for t in templates(size, size.team(i))]])
    timings["setup_s"] = round(time.monotonic() - t0, 2)

    say(f"creating {size.slices} ResourceSlices ({size.devices} devices) with {workers} workers")
    t0 = time.monotonic()
    n = loader.run(lambda_each(loader.create, node_slices(size)))
    timings["slices_s"] = round(time.monotonic() - t0, 2)
    timings["slices_per_s"] = round(n / max(timings["slices_s"], 1e-6))

    say(f"creating {size.workloads} Jobs and Workloads")
    t0 = time.monotonic()

    def job_and_workload(job: Obj, wl: Obj) -> None:
        created = loader.create(job)
        uid = created["metadata"]["uid"]
        for owner in wl["metadata"]["ownerReferences"]:
            owner["uid"] = uid
        wl["metadata"]["labels"]["kueue.x-k8s.io/job-uid"] = uid
        wl["metadata"]["name"] = f"job-{job['metadata']['name']}-{uid[-5:]}"
        loader.create(wl)
        loader.put_status(wl)

    loader.run((lambda j=j, w=w: job_and_workload(j, w)) for j, w in workload_jobs(size))
    timings["workloads_s"] = round(time.monotonic() - t0, 2)
    timings["requests"] = loader.requests
    timings["bytes_sent"] = loader.bytes_sent
    return timings


def lambda_each(fn: Callable[[Obj], Any], objs: Iterable[Obj]) -> Iterator[Callable[[], Any]]:
    for o in objs:
        yield lambda o=o: fn(o)


# ---------------------------------------------------------------------------------------------
# the offline snapshot

SNAPSHOT_KINDS = ("Namespace", "DeviceClass", "ResourceSlice", "ResourceFlavor", "ClusterQueue", "LocalQueue",
                  "ResourceClaimTemplate", "Workload", "Job", "ConfigMap", "Deployment")


def _list_path(kind_name: str) -> tuple[str, str, str]:
    from kubectl_kueue_dra.kube.kinds import KINDS

    kind = KINDS[kind_name]
    version = kind.versions[0]
    api_version = f"{kind.group}/{version}" if kind.group else version
    base = f"/api/{version}" if kind.group == "" else f"/apis/{kind.group}/{version}"
    return f"{base}/{kind.plural}", api_version, kind.kind


def iter_objects(loader: Loader, kinds: Iterable[str] = SNAPSHOT_KINDS, page: int = 500) -> Iterator[Obj]:
    """Every object of the kinds, page by page, as ``kubectl get -o json`` prints them."""
    for kind_name in kinds:
        path, api_version, kind = _list_path(kind_name)
        token = None
        while True:
            query = {"limit": page, **({"continue": token} if token else {})}
            status, payload = loader.request("GET", f"{path}?{urlencode(query)}")
            if status != 200:
                raise LoadError(f"list {path}: HTTP {status}: {payload[:200]!r}")
            doc = json.loads(payload)
            for item in doc.get("items") or []:
                item["metadata"].pop("managedFields", None)
                yield {"apiVersion": api_version, "kind": kind, **item}
            token = (doc.get("metadata") or {}).get("continue")
            if not token:
                break


def write_list(objects: Iterable[Obj], path: Path) -> int:
    """Write one JSON List, streaming; returns the number of items."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [\n')
        for obj in objects:
            if n:
                f.write(",\n")
            f.write(json.dumps(obj, separators=(",", ":")))
            n += 1
        f.write("\n]}\n")
    return n


def kubectl_style(obj: Obj, k: int) -> Obj:
    """``obj`` as ``kubectl get -o json`` prints an object the API server holds: apiVersion, kind,
    metadata with what the server adds (uid, resourceVersion, generation; a ResourceSlice owned
    by its Node), then the rest, in that order. ``k`` numbers the object (its uid)."""
    meta = dict(obj.get("metadata") or {})
    meta.setdefault("generation", 1)
    if obj.get("kind") == "ResourceSlice" and (obj.get("spec") or {}).get("nodeName"):
        node = obj["spec"]["nodeName"]
        meta["ownerReferences"] = [{"apiVersion": "v1", "controller": True, "kind": "Node", "name": node,
                                    "uid": f"10000000-0000-4000-8000-{int(node.rsplit('-', 1)[-1]):012d}"}]
    meta["resourceVersion"] = str(100000 + k)
    meta.setdefault("uid", f"20000000-0000-4000-8000-{k:012d}")
    rest = {key: value for key, value in obj.items() if key not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": dict(sorted(meta.items())), **rest}


def write_kubectl_list(objects: Iterable[Obj], path: Path) -> int:
    """Write one JSON List as ``kubectl get -o json`` prints it (4-space indentation, each item a
    whole object beginning with its apiVersion, the List's keys in kubectl's order): what another
    tool or a user hands the plugin, unlike the API server's compact lists. Streaming; returns
    the number of items."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{\n    "apiVersion": "v1",\n    "items": [')
        for obj in objects:
            f.write(",\n        " if n else "\n        ")
            f.write(json.dumps(kubectl_style(obj, n), indent=4).replace("\n", "\n        "))
            n += 1
        f.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return n


def write_snapshot(cluster: Any, path: Path) -> int:
    return write_list(iter_objects(Loader(cluster, 1)), path)


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
