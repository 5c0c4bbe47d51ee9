"""What Kueue recorded, read after a settle: the Workloads of a scenario, its queues, and the
positions Kueue's visibility API gives (read through the API server, as a user would).

``kueue_state`` turns a Workload's conditions into one queue state, in the order Kueue's own
lifecycle implies: finished, inactive (spec.active false), evicting (Evicted=True while the quota
is still reserved), admitted, reserved (quota reserved, admission checks not all Ready), evicted
(evicted, quota released, not reserved again), pending.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from testenv.harness import Cluster
from testenv import visibility

PREEMPTOR_UID = re.compile(r"\(UID: ([^,)]+), JobUID: [^)]*\)")


def condition(wl: dict | None, ctype: str) -> dict | None:
    return next((c for c in ((wl or {}).get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def is_true(wl: dict | None, ctype: str) -> bool:
    c = condition(wl, ctype)
    return bool(c and c.get("status") == "True")


def kueue_state(wl: dict | None) -> str:
    if wl is None:
        return "missing"
    if is_true(wl, "Finished"):
        return "finished"
    if (wl.get("spec") or {}).get("active") is False:
        return "inactive"
    reserved = is_true(wl, "QuotaReserved") and bool((wl.get("status") or {}).get("admission"))
    if reserved and is_true(wl, "Evicted"):
        return "evicting"
    if reserved:
        return "admitted" if is_true(wl, "Admitted") else "reserved"
    if is_true(wl, "Evicted"):
        return "evicted"
    return "pending"


def signature(wl: dict | None) -> str:
    """What settling watches: every condition's status, reason and message, the admission, the
    check states, the requeue state and spec.active (not times, not resourceVersions)."""
    if wl is None:
        return "missing"
    st = wl.get("status") or {}
    return json.dumps({
        "active": (wl.get("spec") or {}).get("active"),
        "conds": sorted((c.get("type"), c.get("status"), c.get("reason"), c.get("message"))
                        for c in st.get("conditions") or []),
        "admission": st.get("admission"),
        "checks": sorted((c.get("name"), c.get("state"), c.get("message")) for c in st.get("admissionChecks") or []),
        "requeue": st.get("requeueState"),
    }, sort_keys=True, default=str)


def find_workload(workloads: list[dict], ns: str, subject: str) -> dict | None:
    kind, name = subject.split("/", 1)
    for wl in workloads:
        meta = wl["metadata"]
        if meta.get("namespace") != ns:
            continue
        if kind == "workload" and meta["name"] == name:
            return wl
        if kind == "job" and any(o.get("kind") == "Job" and o.get("name") == name
                                 for o in meta.get("ownerReferences") or []):
            return wl
    return None


def subject_of(wl: dict) -> str:
    job = next((o["name"] for o in wl["metadata"].get("ownerReferences") or [] if o.get("kind") == "Job"), None)
    return f"job/{job}" if job else f"workload/{wl['metadata']['name']}"


def preemptor_of(victim: dict, workloads: list[dict]) -> dict | None:
    """The Workload whose UID Kueue's preemption message on ``victim`` names (None if not found)."""
    for ctype in ("Preempted", "Evicted"):
        c = condition(victim, ctype)
        m = PREEMPTOR_UID.search((c or {}).get("message") or "")
        if m:
            return next((w for w in workloads if w["metadata"].get("uid") == m.group(1)), None)
    return None


def victims_of(preemptor: dict, workloads: list[dict]) -> list[dict]:
    """The Workloads Kueue preempted for ``preemptor`` (their Preempted condition names its UID,
    True now or kept as "Previously: …" once they were admitted again)."""
    uid = preemptor["metadata"].get("uid")
    return [w for w in workloads if w is not preemptor
            and uid in ((condition(w, "Preempted") or {}).get("message") or "")]


def list_all(cluster: Cluster, path: str) -> list[dict]:
    status, body = cluster.request("GET", path)
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body[:300]!r}")
    return json.loads(body)["items"]


def all_workloads(cluster: Cluster) -> list[dict]:
    return list_all(cluster, "/apis/kueue.x-k8s.io/v1beta2/workloads")


@dataclass
class Observed:
    """One scenario after one phase."""

    phase: int
    workloads: dict[str, dict | None]  # subject → Workload
    namespace_workloads: list[dict]  # every Workload of its namespace (victims, preemptors)
    cluster_queues: dict[str, dict]  # name → ClusterQueue (the scenario's)
    local_queues: dict[str, dict]  # name → LocalQueue (its namespace)
    #: workload name → {"clusterQueue": n, "localQueue": n}, from the visibility API
    positions: dict[str, dict[str, int]] = field(default_factory=dict)
    visibility_error: str | None = None

    def state(self, subject: str) -> str:
        return kueue_state(self.workloads.get(subject))

    def cluster_queue_of(self, wl: dict | None) -> dict | None:
        lq = self.local_queues.get(((wl or {}).get("spec") or {}).get("queueName") or "")
        name = ((lq or {}).get("spec") or {}).get("clusterQueue") or \
            (((wl or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
        return self.cluster_queues.get(name or "")


def pending_positions(cluster: Cluster, cq: str) -> tuple[dict[str, dict[str, int]], str | None]:
    """{workload name: positions} of the pending workloads Kueue lists for ClusterQueue ``cq``."""
    path = f"/apis/{visibility.GROUP}/v1beta2/clusterqueues/{cq}/pendingworkloads"
    status, body = cluster.request("GET", path)
    if status != 200:
        return {}, f"GET {path}: {status} {body[:200]!r}"
    items = json.loads(body).get("items") or []
    return {i["metadata"]["name"]: {"clusterQueue": i.get("positionInClusterQueue"),
                                    "localQueue": i.get("positionInLocalQueue")} for i in items}, None


def observe(cluster: Cluster, phase: int, ns: str, cq: str, subjects: list[str], workloads: list[dict],
            cluster_queues: list[dict], local_queues: list[dict], positions: bool = True) -> Observed:
    """``positions``: read them from the visibility API (False: Kueue runs without it)."""
    mine = [w for w in workloads if w["metadata"].get("namespace") == ns]
    cqs = {q["metadata"]["name"]: q for q in cluster_queues
           if q["metadata"]["name"] == cq or q["metadata"]["name"].startswith(cq + "-")}
    lqs = {q["metadata"]["name"]: q for q in local_queues if q["metadata"].get("namespace") == ns}
    obs = Observed(phase, {s: find_workload(mine, ns, s) for s in subjects}, mine, cqs, lqs)
    if not positions:
        obs.visibility_error = "Kueue runs without its visibility API (KueueRunner(visibility=False))"
        return obs
    errors = []
    for name in sorted(cqs):
        found, err = pending_positions(cluster, name)
        obs.positions.update(found)
        if err:
            errors.append(err)
    obs.visibility_error = "; ".join(errors) or None
    return obs
