"""Loading the synthetic cluster into a test API server: raw POSTs from a bounded pool of
keep-alive connections (``Loader``), the objects generated lazily as the pool takes them."""

from __future__ import annotations

import http.client
import json
import ssl
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import urlsplit

from testenv.scale.objects import (
    Obj, Size, device_classes, kueue_config, namespaces, node_slices, queues, templates, workload_jobs,
)


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

