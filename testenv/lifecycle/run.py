"""Run the lifecycle scenarios on a ``lifecycle.Lifecycle`` cluster with the real Kueue, and judge
each: Kueue's charge against ``explain`` (``oracle.judge``), then the scheduler's allocation —
read from the ResourceClaims (their owner pod and ``status.allocation``), not from the pods —
against the ``allocations`` of ``explain -o json``.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from testenv import oracle
from testenv.kueue_harness import KueueRunner
from testenv.lifecycle.cluster import Lifecycle, fake_node
from testenv.lifecycle.scenarios import QUOTA, SCENARIO_LABEL, WORLD, LifeScenario, placed, resolve, slices_of
from testenv.builders import FLAVOR, cluster_queue, local_queue, resource_flavor

POD_TIMEOUT = 120.0
UNSCHEDULABLE_STABLE = 3.0  # seconds a pod must stay Unschedulable with its claims unallocated


@dataclass
class LifeRow:
    scenario: str
    subject: str
    title: str
    expect: str
    kueue: oracle.Row | None = None
    pods: str = ""  # what the pods did (short)
    allocated: list = field(default_factory=list)  # the claims' truth: (pod, claim, request, device)
    explained: list = field(default_factory=list)  # explain's allocations, same tuples
    problems: list = field(default_factory=list)
    namespace: str = ""

    @property
    def agree(self) -> bool:
        return not self.problems


@dataclass
class LifeReport:
    rows: list[LifeRow]
    seconds: dict[str, float]

    @property
    def agreed(self) -> int:
        return sum(r.agree for r in self.rows)


def _items(doc: dict) -> list[dict]:
    return doc.get("items") or []


def _job_pods(cluster, ns: str, job: str) -> list[dict]:
    return _items(cluster.get_json("pods", "-n", ns, "-l", f"batch.kubernetes.io/job-name={job}"))


def _scheduled_condition(pod: dict) -> dict:
    return next((c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "PodScheduled"), {})


def _scheduled(pod: dict) -> tuple[str, str]:
    c = _scheduled_condition(pod)
    return c.get("status") or "", c.get("reason") or ""


def _claim_truth(claims: list[dict], pods: set[str]) -> list[tuple]:
    """(pod, claim, request, driver/pool/device) per allocated device of the claims the pods own;
    (pod, claim, None, None) for a claim without an allocation."""
    out = []
    for c in claims:
        owner = next((o.get("name") for o in c["metadata"].get("ownerReferences") or [] if o.get("kind") == "Pod"),
                     None)
        if owner not in pods:
            continue
        results = (((c.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
        if not results:
            out.append((owner, c["metadata"]["name"], None, None))
        for r in results:
            out.append((owner, c["metadata"]["name"], r.get("request"),
                        f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}"))
    return sorted(out, key=str)


def _explained(doc: dict) -> list[tuple]:
    return sorted(((a.get("pod"), a.get("claim"), a.get("request"), a.get("device"))
                   for a in doc.get("allocations") or []), key=str)


def wait_pods(cluster, expect: str, ns: str, job: str, parallelism: int) -> tuple[list[dict], str]:
    """Until every pod runs (``running``) or every pod stays Unschedulable (``unschedulable``)."""
    deadline = time.monotonic() + POD_TIMEOUT
    since = None
    pods: list[dict] = []
    while time.monotonic() < deadline:
        pods = _job_pods(cluster, ns, job)
        if len(pods) >= parallelism:
            if expect == "running" and all((p.get("status") or {}).get("phase") == "Running"
                                             and p["spec"].get("nodeName") for p in pods):
                return pods, "running"
            if expect == "unschedulable" and all(_scheduled(p) == ("False", "Unschedulable") for p in pods):
                since = since or time.monotonic()
                if time.monotonic() - since >= UNSCHEDULABLE_STABLE:
                    return pods, "unschedulable"
            else:
                since = None
        time.sleep(0.5)
    phases = sorted(f"{p['metadata']['name']}={(p.get('status') or {}).get('phase')}/{'/'.join(_scheduled(p))}"
                    for p in pods)
    return pods, f"timeout: {len(pods)} pods {', '.join(phases)}"


def _parallelism(s: LifeScenario, subject: str) -> int:
    name = subject.split("/", 1)[1]
    obj = next(o for o in s.objects if o["kind"] == "Job" and o["metadata"]["name"] == name)
    return int(obj["spec"].get("parallelism") or 1)


def setup_world(life: Lifecycle, runner: KueueRunner, scens: list[LifeScenario]) -> dict[str, float]:
    c = life.cluster
    t = time.monotonic()
    oracle.load_world(c, WORLD)
    runner.ensure(oracle.setup_of(WORLD))
    t_kueue = time.monotonic()
    c.apply(resource_flavor(FLAVOR))
    nodes = [fake_node(s.node_name(n), {SCENARIO_LABEL: s.id, **n.labels}) for s in scens for n in s.nodes]
    node_seconds = life.add_nodes(nodes)
    c.apply([sl for s in scens for sl in slices_of(s)])
    return {"world+kueue": round(t_kueue - t, 1), "nodes": node_seconds}


def _ns(s: LifeScenario, run_id: str) -> str:
    return f"life-{s.id}"[:50] + f"-{run_id}"


def run(life: Lifecycle, runner: KueueRunner, scens: list[LifeScenario], log=print) -> LifeReport:
    c = life.cluster
    t0 = time.monotonic()
    seconds = setup_world(life, runner, scens)
    run_id = f"{int(time.time()) % 100000}"
    created = [(s, _ns(s, run_id)) for s in scens]
    c.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for _, ns in created])
    rest: list[dict] = []
    before: list[dict] = []
    queued: list[dict] = []
    for s, ns in created:
        cq = f"cq-{ns}"
        rest += [cluster_queue(cq, QUOTA),
                 local_queue("lq", cq, ns)]
        for o in s.before:
            o = resolve(s, placed(s, o) if o["kind"] == "Job" else json.loads(json.dumps(o)))
            o["metadata"]["namespace"] = ns
            before.append(o)
        for o in s.objects:
            o = resolve(s, placed(s, o) if o["kind"] == "Job" else json.loads(json.dumps(o)))
            o["metadata"]["namespace"] = ns
            (queued if o["kind"] == "Job" else rest).append(o)
    c.apply(rest)
    t = time.monotonic()
    if before:
        c.apply(before)
        for s, ns in created:
            for o in s.before:
                if o["kind"] == "Job":
                    _, got = wait_pods(c, "running", ns, o["metadata"]["name"], 1)
                    if got != "running":
                        raise AssertionError(f"{s.id}: {o['metadata']['name']} (set-up, not queued) {got}")
    seconds["set-up pods"] = round(time.monotonic() - t, 1)
    t = time.monotonic()
    c.apply(queued)
    keys = [(ns, subj) for s, ns in created for subj in s.subjects]
    workloads = oracle.settle(c, keys)
    seconds["kueue settles"] = round(time.monotonic() - t, 1)
    t = time.monotonic()
    rows: list[LifeRow] = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        waited = list(pool.map(lambda j: wait_pods(c, j[0].expect, j[1], j[2].split("/", 1)[1], _parallelism(j[0], j[2])),
                               [(s, ns, subj) for s, ns in created for subj in s.subjects]))
    seconds["pods settle"] = round(time.monotonic() - t, 1)
    t = time.monotonic()
    jobs = [(s, ns, subj) for s, ns in created for subj in s.subjects]
    with ThreadPoolExecutor(max_workers=3) as pool:
        docs = list(pool.map(lambda j: oracle.explain_json(c, j[1], j[2]), jobs))
    claims_by_ns = {ns: _items(c.get_json("resourceclaims.resource.k8s.io", "-n", ns)) for _, ns in created}
    seconds["explain"] = round(time.monotonic() - t, 1)
    for (s, ns, subj), (pods, state), (doc, err) in zip(jobs, waited, docs):
        row = LifeRow(s.id, subj, s.title, s.expect, namespace=ns, pods=state)
        if state == "unschedulable":
            row.pods += ": " + "; ".join(sorted({_scheduled_condition(p).get("message") or "" for p in pods}))
        kr = oracle.judge(oracle.Row(s.id, subj, s.title, WORLD.version, expected="admitted"),
                          workloads[(ns, subj)], doc, err)
        row.kueue = kr
        if kr.kueue_state != "admitted":
            row.problems.append(f"Kueue: {kr.kueue_state} ({kr.kueue})")
        elif not kr.agree:
            row.problems.append(f"charge: {kr.why}")
        if state != s.expect:
            row.problems.append(f"pods: {state}, built for {s.expect}")
        pod_names = {p["metadata"]["name"] for p in pods}
        row.allocated = _claim_truth(claims_by_ns[ns], pod_names)
        row.explained = _explained(doc or {})
        if doc is None:
            row.problems.append(f"explain failed: {err}")
        elif row.allocated != row.explained:
            row.problems.append(f"allocations differ: claims {row.allocated} vs explain {row.explained}")
        row.problems += _lifecycle_checks(s, pods, row.allocated, claims_by_ns[ns], doc or {})
        rows.append(row)
        log(f"lifecycle: {s.id} {subj}: {'agree' if row.agree else 'DISAGREE: ' + '; '.join(row.problems)}")
    seconds["total"] = round(time.monotonic() - t0, 1)
    return LifeReport(rows, seconds)


def _lifecycle_checks(s: LifeScenario, pods: list[dict], truth: list[tuple], claims: list[dict],
                      doc: dict) -> list[str]:
    """What the real flow must have done, beside the comparison: running pods hold allocated claims
    whose devices are on their node; unschedulable pods' claims exist and are unallocated."""
    problems = []
    node_of = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in pods}
    if not truth:
        problems.append("the pods own no ResourceClaim")
    for pod, claim, _request, dev in truth:
        if s.expect == "running":
            if dev is None:
                problems.append(f"{pod}: claim {claim} not allocated")
            elif dev.split("/")[1] != node_of.get(pod):
                problems.append(f"{pod} runs on {node_of.get(pod)}, its device {dev} is not there")
        elif dev is not None:
            problems.append(f"{pod} is unschedulable but claim {claim} holds {dev}")
    if s.expect == "running":
        held = {r.get("name") for c in claims for r in (c.get("status") or {}).get("reservedFor") or []}
        problems += [f"{p} holds none of its claims (status.reservedFor)" for p in node_of if p not in held]
    if s.expect == "unschedulable":
        said = {_scheduled_condition(p).get("message") or "" for p in pods}
        problems += [f"the scheduler says {m!r}, built for {s.because!r}" for m in sorted(said) if s.because not in m]
    codes = {f.get("code") for f in doc.get("findings") or []}
    problems += [f"explain lacks the finding {code}" for code in s.findings if code not in codes]
    return problems


def table(report: LifeReport, markdown: bool = False) -> str:
    head = ("scenario", "Kueue charged", "pods", "devices allocated (claims = explain)", "agree")
    rows = []
    for r in report.rows:
        devices = sorted({d.split("/", 1)[1] if d else "(unallocated)" for _, _, _, d in r.allocated})
        charged = r.kueue.kueue if r.kueue else ""
        rows.append((r.scenario, charged, r.pods, ", ".join(devices),
                     "yes" if r.agree else "NO: " + "; ".join(r.problems)))
    if markdown:
        esc = lambda s: " ".join(str(s).split()).replace("|", "\\|")  # noqa: E731
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
        lines += ["", f"{report.agreed}/{len(report.rows)} agree", "", "| scenario | what it sets up |", "|---|---|"]
        lines += [f"| {esc(r.scenario)} | {esc(r.title)} |" for r in report.rows]
        return "\n".join(lines)
    return "\n".join("  ".join(str(c) for c in row) for row in (head, *rows)) + \
        f"\n\n{report.agreed}/{len(report.rows)} agree"
