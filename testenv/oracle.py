"""The oracle: run the scenario matrix against the real Kueue and compare ``explain`` with it.

For each world (cluster-wide DeviceClasses, ResourceSlices, Kueue configuration): replace the
cluster-scoped DRA objects, (re)start Kueue if its configuration changed, create every scenario of
the world in its own namespace, wait until Kueue has settled each workload (admitted, or a
``QuotaReserved=False`` condition that stays the same), then run ``explain -o json`` on each and
compare:

* admitted: the predicted charge of every pod set equals
  ``status.admission.podSetAssignments[].resourceUsage``, numerically, for every resource;
* rejected by Kueue's DRA step (reason Inadmissible): the predicted DRA message equals the
  condition message, and the predicted finding code equals the one the message maps to;
* waiting in the scheduler (reason Pending): the predicted charge equals
  ``status.resourceRequests``, and explain predicts the same cause (a finding with the code the
  message maps to, derived from the ClusterQueue, not from the condition).
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Protocol

from testenv import kube_versions
from testenv.harness import Cluster, run_plugin
from testenv.kueue_harness import KueueRunner, KueueSetup
from testenv.builders import FLAVOR, local_queue, resource_flavor
from testenv.oracle_judge import (  # noqa: F401  (the comparison is part of this module's API too)
    EXACT_MESSAGE_CODES, QUOTA_CODES, Row, _condition, _state, judge, same_usage,
)
from testenv.oracle_scenarios import Scenario, World

SETTLE_STABLE = 2.0  # seconds a QuotaReserved=False condition must stay unchanged
SETTLE_TIMEOUT = 90.0
POLL = 0.3


# -------------------------------------------------------------------- the API server's gates
#: KUEUE_DRA_ORACLE_KUBE_GATES: the DRA gates of the oracle's API server. "on": DRAExtendedResource,
#: DRAPartitionableDevices and DRAConsumableCapacity on (the 1.36 defaults; alpha gates turned on
#: on 1.34 and 1.35); "defaults": none set, the server's own (on 1.34 and 1.35 the three are off,
#: the server drops their fields, and Kueue's behaviour without them is what explain must match).
#: Unset: "on" on the default version, "defaults" on the others.
KUBE_GATES_ENV = "KUEUE_DRA_ORACLE_KUBE_GATES"
KUBE_GATE_SETTINGS = ("on", "defaults")


def kube_gate_setting(version: str, default_version: str, said: str | None = None) -> str:
    setting = said or os.environ.get(KUBE_GATES_ENV) or ("on" if version == default_version else "defaults")
    if setting not in KUBE_GATE_SETTINGS:
        raise ValueError(f"{KUBE_GATES_ENV}={setting!r}: one of {', '.join(KUBE_GATE_SETTINGS)}")
    return setting


def kube_gates(setting: str) -> dict[str, bool]:
    """The --feature-gates of the oracle's API server for a setting."""
    return dict.fromkeys(kube_versions.PATH_GATES, True) if setting == "on" else {}


def _requested_classes(obj: dict) -> set[str]:
    """The DeviceClasses a ResourceClaimTemplate's requests name (firstAvailable included)."""
    out = set()
    for r in ((obj.get("spec") or {}).get("spec") or {}).get("devices", {}).get("requests") or []:
        for sub in [r.get("exactly") or {}, *(r.get("firstAvailable") or [])]:
            if sub.get("deviceClassName"):
                out.add(sub["deviceClassName"])
    return out


def _requested_resources(obj: dict) -> set[str]:
    """The resources a Job's or Workload's containers request or limit."""
    specs = [((obj.get("spec") or {}).get("template") or {}).get("spec") or {}]
    specs += [((ps.get("template") or {}).get("spec") or {}) for ps in (obj.get("spec") or {}).get("podSets") or []]
    return {name for spec in specs for key in ("containers", "initContainers") for c in spec.get(key) or []
            for part in ("requests", "limits") for name in ((c.get("resources") or {}).get(part) or {})}


def scenario_gates(s: Scenario) -> set[str]:
    """The path gates whose fields the scenario's charge reads: an extended resource a DeviceClass of
    its world names (DRAExtendedResource), a class its templates request that a mapping charges by
    counters (DRAPartitionableDevices) or by capacity, or a selector on allowMultipleAllocations
    (DRAConsumableCapacity)."""
    classes = [dc for group in s.world.class_groups for dc in group]
    ern = {(dc.get("spec") or {}).get("extendedResourceName") for dc in classes} - {None}
    requested = set().union(*(_requested_classes(o) for o in s.objects if o["kind"] == "ResourceClaimTemplate"))
    used = set()
    if ern & set().union(*(_requested_resources(o) for o in s.objects if o["kind"] in ("Job", "Workload"))):
        used.add(kube_versions.DRA_EXTENDED)
    for m in s.world.mappings:
        if not requested & set(m.get("deviceClassNames") or []):
            continue
        for source in m.get("sources") or []:
            used.add(kube_versions.DRA_PARTITIONABLE if "counter" in source else kube_versions.DRA_CONSUMABLE)
    if "allowMultipleAllocations" in json.dumps(s.objects):
        used.add(kube_versions.DRA_CONSUMABLE)
    return used


def not_served(s: Scenario, cluster: Cluster) -> set[str]:
    """The gates whose fields the scenario's charge reads and the cluster's server drops (off there)."""
    return {gate for gate in scenario_gates(s) if not served(cluster, gate)}


def served(cluster: Cluster, gate: str) -> bool:
    return cluster.feature_gates.get(gate, kube_versions.default_on(cluster.kube_version, gate))


# ------------------------------------------------------------------------------------- the world
def items_of(doc: dict) -> list[dict]:
    """The objects of a ``kubectl get -o json`` answer: a List's items, or the one object that
    ``kubectl get KIND NAME`` returns for a single name."""
    return doc["items"] if doc.get("kind", "").endswith("List") or "items" in doc else [doc]


DRA_KINDS = "deviceclasses.resource.k8s.io,resourceslices.resource.k8s.io"
WORLD_KINDS = DRA_KINDS + ",runtimeclasses.node.k8s.io"


def load_world(cluster: Cluster, world: World) -> None:
    cluster.kubectl("delete", WORLD_KINDS, "--all", "--wait=true")
    if world.cluster_objects:
        cluster.apply(world.cluster_objects)
    for i, group in enumerate(world.class_groups):
        if i:
            time.sleep(1.1)  # distinct creationTimestamps: "the newest DeviceClass" is well defined
        for _ in range(5):  # one group, one creationTimestamp: ties are broken by name
            cluster.apply(group)
            names = [d["metadata"]["name"] for d in group]
            stamps = {d["metadata"]["creationTimestamp"] for d in
                      items_of(cluster.get_json("deviceclasses.resource.k8s.io", *names))}
            if len(stamps) == 1:
                break
            cluster.kubectl("delete", "deviceclasses.resource.k8s.io", *names, "--wait=true")
    if world.slices:  # in the layout of the cluster's kube-apiserver (1.34: counter sets beside their devices)
        cluster.apply(kube_versions.slices_for(world.slices, cluster.kube_version))


def setup_of(world: World) -> KueueSetup:
    return KueueSetup.of(world.mappings, world.gates, world.config)


def _uniq(scenario_id: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in scenario_id.lower()).strip("-")


def create_scenarios(cluster: Cluster, group: list[Scenario], run_id: str) -> list[tuple[Scenario, str]]:
    """Each scenario in a namespace of its own, with its own ClusterQueue; three API calls in all.
    The Jobs and Workloads come last, once their queues and templates exist."""
    namespaces, queued, rest = [], [], []
    created = []
    for s in group:
        ns = f"{_uniq(s.id)[:40]}-{run_id}"
        cq = f"cq-{ns}"
        namespaces.append({"apiVersion": "v1", "kind": "Namespace",
                           "metadata": {"name": ns, "labels": dict(s.namespace_labels)}})
        rest += [s.cluster_queue(cq),
                 local_queue("lq", cq, ns)]
        for o in s.cluster_objects(cq):
            if o["kind"] == "LocalQueue":
                o["metadata"]["namespace"] = ns
            rest.append(o)
        for o in s.objects:
            o = json.loads(json.dumps(o))
            o["metadata"]["namespace"] = ns
            (queued if o["kind"] in ("Job", "Workload") else rest).append(o)
        created.append((s, ns))
    cluster.apply(namespaces)
    refused = cluster.apply(rest, check=not dropping(cluster))
    if refused.returncode:  # the rest is applied; what this server refuses is not there, as for a user
        for line in refused.stderr.strip().splitlines():
            print(f"oracle: refused by kube-apiserver {cluster.kube_version}: {line}", file=sys.stderr, flush=True)
    cluster.apply(queued)
    return created


def dropping(cluster: Cluster) -> bool:
    """Whether the server has a path gate off: then it may refuse a scenario's object that uses
    what the gate serves (1.34 with DRAConsumableCapacity off has no ``device.allowMultipleAllocations``
    in CEL), and the scenario goes on without it; on a server with every path gate on a refusal is
    a defect of the scenario."""
    return not all(served(cluster, gate) for gate in kube_versions.PATH_GATES)


# ------------------------------------------------------------------------------------ settling
def _find_workload(workloads: list[dict], ns: str, subject: str) -> dict | None:
    kind, name = subject.split("/", 1)
    for wl in workloads:
        if wl["metadata"]["namespace"] != ns:
            continue
        if kind == "workload" and wl["metadata"]["name"] == name:
            return wl
        if kind == "job" and any(o.get("kind") == "Job" and o.get("name") == name
                                 for o in wl["metadata"].get("ownerReferences") or []):
            return wl
    return None


def settle(cluster: Cluster, subjects: list[tuple[str, str]], timeout: float = SETTLE_TIMEOUT) -> dict:
    """Poll all workloads until every (namespace, subject) is settled. {(ns, subject): workload}."""
    first_seen: dict[tuple[str, str], tuple[tuple, float]] = {}
    settled: dict[tuple[str, str], dict] = {}
    deadline = time.monotonic() + timeout
    last: list[dict] = []
    while time.monotonic() < deadline and len(settled) < len(subjects):
        last = items_of(cluster.get_json("workloads.kueue.x-k8s.io", "-A"))
        now = time.monotonic()
        for key in subjects:
            if key in settled:
                continue
            wl = _find_workload(last, *key)
            st = _state(wl)
            if st is None:
                first_seen.pop(key, None)
                continue
            if st[0] == "admitted":
                settled[key] = wl
                continue
            seen = first_seen.get(key)
            if seen is None or seen[0] != st:
                first_seen[key] = (st, now)
            elif now - seen[1] >= SETTLE_STABLE:
                settled[key] = wl
        if len(settled) < len(subjects):
            time.sleep(POLL)
    for key in subjects:
        if key not in settled:
            settled[key] = _find_workload(last, *key) or {}
    return settled


# ---------------------------------------------------------------------------------- comparison
def explain_json(cluster: Cluster, ns: str, subject: str) -> tuple[dict | None, str]:
    proc = run_plugin(cluster, "explain", subject, "-n", ns, "-o", "json")
    try:
        return json.loads(proc.stdout), proc.stderr
    except json.JSONDecodeError:
        return None, f"exit {proc.returncode}: {proc.stderr.strip()[-500:]}"


# ---------------------------------------------------------------------------------------- run
@dataclass
class Report:
    rows: list[Row]
    seconds: float
    kueue_starts: dict[str, list[float]]

    @property
    def agreed(self) -> int:
        return sum(r.agree for r in self.rows)


class WorldRun(Protocol):
    """Another kind of scenario set that runs in a world of the matrix (the queue scenarios): it
    shares the Kueue process of the DRA worlds with the same configuration. ``restarts``: it
    restarts Kueue itself (it runs last among the worlds of its configuration); ``early``: it runs
    before every other world, on a cluster no other world has filled yet."""

    world: World
    restarts: bool
    early: bool

    def run(self, cluster: Cluster, runner: KueueRunner, run_id: str, log) -> None: ...


def _newest_first(version: str) -> tuple[int, ...]:
    return tuple(-int(x) for x in version.lstrip("v").split("."))


def _order(world: World, restarts: bool = False, early: bool = False) -> tuple:
    """Same version and configuration next to each other: fewest Kueue starts; among them, the
    same cluster-wide objects next to each other: fewest reloads. Early worlds first (the runners
    then take turns: each installs its version's CRDs again)."""
    return not early, _newest_first(world.version), json.dumps(setup_of(world).__dict__, default=str), restarts, \
        _loaded_key(world)


def group_by_world(scens: list[Scenario]) -> list[tuple[World, list[Scenario]]]:
    out: dict[int, tuple[World, list[Scenario]]] = {}
    for s in scens:
        out.setdefault(id(s.world), (s.world, []))[1].append(s)
    return sorted(out.values(), key=lambda ws: _order(ws[0]))


def _loaded_key(world: World) -> str:
    return json.dumps([world.class_groups, world.slices, world.cluster_objects], sort_keys=True)


def run_matrix(cluster: Cluster, runners: dict[str, KueueRunner], scens: list[Scenario],
               log=print, workers: int = 3, extra: Sequence[WorldRun] = ()) -> Report:
    """The DRA scenarios world by world; ``extra`` world runs go between them, next to the DRA
    worlds with their Kueue configuration, so each (version, configuration) starts Kueue once."""
    t0 = time.monotonic()
    run_id = f"{int(time.time()) % 100000}"
    rows: list[Row] = []
    cluster.apply(resource_flavor(FLAVOR))
    current: KueueRunner | None = None
    loaded: str | None = None
    plan: list[tuple[World, list[Scenario] | WorldRun]] = [(w, g) for w, g in group_by_world(scens)]
    plan += [(x.world, x) for x in extra]
    plan.sort(key=lambda item: _order(item[0], *((False, False) if isinstance(item[1], list) else
                                                 (item[1].restarts, item[1].early))))
    for world, group in plan:
        tw = time.monotonic()
        runner = runners[world.version]
        if current is not None and current is not runner:
            current.stop()
        current = runner
        # Stop Kueue while the world is swapped, unless the configuration stays: then it watches.
        if runner.setup != setup_of(world):
            runner.stop()
        if loaded != _loaded_key(world):
            load_world(cluster, world)
        loaded = _loaded_key(world)
        restarted = runner.ensure(setup_of(world))
        if not isinstance(group, list):
            group.run(cluster, runner, run_id, log)
            loaded = None  # its steps may have changed the world's objects
            continue
        rows += _run_world(cluster, world, group, run_id, workers, restarted, tw, log)
    if current is not None:
        current.stop()
    return Report(rows, round(time.monotonic() - t0, 1),
                  {v: r.start_seconds for v, r in runners.items()})


def _run_world(cluster: Cluster, world: World, group: list[Scenario], run_id: str, workers: int,
               restarted: bool, tw: float, log) -> list[Row]:
    t_start = time.monotonic()
    created = create_scenarios(cluster, group, run_id)
    t_created = time.monotonic()
    keys = [(ns, subj) for s, ns in created for subj in s.subjects]
    workloads = settle(cluster, keys)
    t_settled = time.monotonic()
    jobs = [(s, ns, subj) for s, ns in created for subj in s.subjects]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        docs = list(pool.map(lambda j: explain_json(cluster, j[1], j[2]), jobs))
    t_explained = time.monotonic()
    rows = []
    for (s, ns, subj), (doc, err) in zip(jobs, docs):
        row = judge(Row(s.id, subj, s.title, world.version, expected=s.expect), workloads[(ns, subj)], doc, err)
        row.details["namespace"] = ns
        row.details["single"] = len(s.subjects) == 1
        rows.append(row)
    log(f"oracle: world {world.name} (Kueue {world.version}{', restarted' if restarted else ''}): "
        f"{sum(r.agree for r in rows)}/{len(jobs)} agree in {time.monotonic() - tw:.1f}s "
        f"(world+Kueue {t_start - tw:.1f}s, create {t_created - t_start:.1f}s, settle {t_settled - t_created:.1f}s, "
        f"explain {t_explained - t_settled:.1f}s)")
    return rows


# ------------------------------------------------------------------------------------- output
def _cell(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def table(report: Report, width: int = 70, markdown: bool = False) -> str:
    head = ("scenario", "Kueue said", "explain said", "agree")
    rows = [(r.name, r.kueue, r.explain,
             "yes" if r.agree else f"NO: {r.why}") for r in report.rows]
    if markdown:
        esc = lambda s: " ".join(str(s).split()).replace("|", "\\|")  # noqa: E731
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
        lines += ["", f"{report.agreed}/{len(report.rows)} agree", "", "What each scenario sets up:", "",
                  "| scenario | Kueue | what it sets up | built to be |", "|---|---|---|---|"]
        seen = set()
        for r in report.rows:
            if r.scenario not in seen:
                seen.add(r.scenario)
                lines.append(f"| {esc(r.scenario)} | {r.version} | {esc(r.title)} | {r.expected} |")
        return "\n".join(lines)
    cols = [[_cell(c, width if i in (1, 2) else 200) for i, c in enumerate(row)] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cols)) if cols else len(h) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head)] + [fmt.format(*r) for r in cols]
    lines.append("")
    lines.append(f"{report.agreed}/{len(report.rows)} agree")
    return "\n".join(lines)
