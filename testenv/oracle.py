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
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from testenv.harness import Cluster, run_plugin
from testenv.kueue_harness import KueueRunner, KueueSetup
from testenv.builders import FLAVOR, local_queue, resource_flavor
from testenv.oracle_scenarios import Scenario, World

from kubectl_kueue_dra.dra.quantity import parse_quantity
from kubectl_kueue_dra.kueue.workloads.status import cause_of

SETTLE_STABLE = 2.0  # seconds a QuotaReserved=False condition must stay unchanged
SETTLE_TIMEOUT = 90.0
POLL = 0.3


@dataclass
class Row:
    scenario: str
    subject: str
    title: str
    version: str
    kueue: str = ""  # what Kueue said (short)
    explain: str = ""  # what explain said (short)
    agree: bool = False
    why: str = ""  # the disagreement, when there is one
    kueue_state: str = ""  # admitted | inadmissible | pending | timeout
    expected: str = ""
    details: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.scenario if self.details.get("single", True) else f"{self.scenario} ({self.subject})"


# ------------------------------------------------------------------------------------ quantities
def same_usage(predicted: dict[str, str], recorded: dict[str, str]) -> list[str]:
    """Resources whose amounts differ, compared as Kubernetes quantities (a missing resource
    counts as 0)."""
    diffs = []
    for name in sorted(set(predicted) | set(recorded)):
        a = parse_quantity(predicted.get(name, "0")).value
        b = parse_quantity(recorded.get(name, "0")).value
        if a != b:
            diffs.append(f"{name}: explain {predicted.get(name, '0')} vs Kueue {recorded.get(name, '0')}")
    return diffs


def _fmt(usage: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(usage.items())) or "nothing"


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
    if world.slices:
        cluster.apply(world.slices)


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
    cluster.apply(rest)
    cluster.apply(queued)
    return created


# ------------------------------------------------------------------------------------ settling
def _condition(obj: dict, ctype: str) -> dict | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


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


def _state(wl: dict | None) -> tuple[str, str, str] | None:
    """(state, reason, message) once Kueue has judged the workload, else None."""
    if wl is None:
        return None
    admitted = _condition(wl, "Admitted")
    if admitted and admitted.get("status") == "True" and (wl.get("status") or {}).get("admission"):
        return "admitted", "", ""
    qr = _condition(wl, "QuotaReserved")
    if qr and qr.get("status") == "False" and qr.get("message"):
        state = "inadmissible" if qr.get("reason") in ("Inadmissible", "Misconfigured") else "pending"
        return state, qr.get("reason") or "", qr["message"]
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


def _predicted_codes(doc: dict) -> list[str]:
    """Codes explain derives itself (not read back from Kueue's condition)."""
    return [f["code"] for f in doc.get("findings") or []
            if f.get("predicted") or (f.get("severity") == "error" and "Kueue says:" not in (f.get("message") or ""))]


def _charges(doc: dict) -> dict[str, dict[str, str]]:
    return {ps["name"]: ps.get("charge") or {} for ps in doc.get("podSets") or []}


def judge(row: Row, wl: dict, doc: dict | None, err: str) -> Row:
    st = _state(wl)
    status = wl.get("status") or {}
    if st is None:
        row.kueue_state = "timeout"
        row.kueue = "did not settle (no Workload, or no decision)"
    else:
        row.kueue_state = st[0]
    if doc is None:
        row.explain = f"explain failed: {err}"
        row.why = row.explain
        return row
    dra = doc.get("dra") or {}
    predicted = _charges(doc)
    codes = _predicted_codes(doc)
    row.details = {"workload": wl.get("metadata", {}).get("name"), "predicted": predicted,
                   "draMessage": dra.get("message"), "codes": codes}
    if row.kueue_state == "timeout":
        row.explain = dra.get("message") or _fmt(_merge(predicted))
        row.why = "Kueue did not settle"
        return row

    if row.kueue_state == "admitted":
        recorded = {a.get("name"): a.get("resourceUsage") or {}
                    for a in status["admission"].get("podSetAssignments") or []}
        row.kueue = "admitted: " + _fmt(_merge(recorded))
        row.details["recorded"] = recorded
        if dra.get("message"):
            row.explain = f"rejects: {dra['message']}"
            row.why = "explain predicts a DRA rejection, Kueue admitted"
            return row
        row.explain = "charge: " + _fmt(_merge(predicted))
        diffs = [f"{ps}: {d}" for ps in sorted(set(recorded) | set(predicted))
                 for d in same_usage(predicted.get(ps, {}), recorded.get(ps, {}))]
        row.agree, row.why = not diffs, "; ".join(diffs)
        return row

    message = st[2]
    want_code = (cause_of(message) or ("?",))[0]
    row.details["kueueMessage"] = message
    if row.kueue_state == "inadmissible":
        row.kueue = f"{st[1]}: {message}"
        got = dra.get("message")
        row.explain = f"rejects [{', '.join(c for c in codes) or 'no code'}]: {got}" if got else \
            "charge: " + _fmt(_merge(predicted))
        problems = []
        if got != message:
            problems.append("message differs" if got else "explain predicts no DRA rejection")
        if want_code not in codes:
            problems.append(f"finding code {want_code} not predicted (got {codes})")
        row.agree, row.why = not problems, "; ".join(problems)
        return row

    # pending in the scheduler: Kueue wrote status.resourceRequests
    requests = {r.get("name"): r.get("resources") or {} for r in status.get("resourceRequests") or []}
    row.kueue = f"{st[1]}: {message}"
    row.details["recorded"] = requests
    row.explain = f"[{', '.join(codes) or 'no code'}] charge: " + _fmt(_merge(predicted))
    problems = []
    if dra.get("message"):
        problems.append(f"explain predicts a DRA rejection: {dra['message']}")
    diffs = [f"{ps}: {d}" for ps in sorted(set(requests) | set(predicted))
             for d in same_usage(predicted.get(ps, {}), requests.get(ps, {}))] if requests else \
        ["Kueue recorded no status.resourceRequests"]
    problems += diffs
    if want_code not in codes:
        problems.append(f"finding code {want_code} not predicted (got {codes})")
    if want_code in QUOTA_CODES:  # the verdict's message and number, not only its code
        said = ((doc.get("queue") or {}).get("verdict") or {}).get("message")
        row.details["predictedMessage"] = said
        if said != message:
            problems.append(f"quota message differs: explain {said!r}")
    if want_code in EXACT_MESSAGE_CODES and not any(
            message in (f.get("message") or "") for f in doc.get("findings") or [] if f.get("code") == want_code):
        problems.append(f"{want_code}: explain does not predict Kueue's message")
    row.agree, row.why = not problems, "; ".join(problems)
    return row


QUOTA_CODES = ("ExceedsQuota", "QuotaExhausted")
#: pending verdicts whose message explain predicts character for character (not only the code)
EXACT_MESSAGE_CODES = ("RequestsExceedLimits", "LimitRangeViolated")


def _merge(per_podset: dict[str, dict[str, str]]) -> dict[str, str]:
    if len(per_podset) == 1:
        return next(iter(per_podset.values()))
    return {f"{ps}.{k}": v for ps, usage in per_podset.items() for k, v in usage.items()}


# ---------------------------------------------------------------------------------------- run
@dataclass
class Report:
    rows: list[Row]
    seconds: float
    kueue_starts: dict[str, list[float]]

    @property
    def agreed(self) -> int:
        return sum(r.agree for r in self.rows)


def group_by_world(scens: list[Scenario]) -> list[tuple[World, list[Scenario]]]:
    out: dict[int, tuple[World, list[Scenario]]] = {}
    for s in scens:
        out.setdefault(id(s.world), (s.world, []))[1].append(s)
    # Same version and configuration next to each other: fewest Kueue restarts.
    def newest_first(version: str) -> tuple[int, ...]:
        return tuple(-int(x) for x in version.lstrip("v").split("."))

    return sorted(out.values(), key=lambda ws: (newest_first(ws[0].version),
                                                json.dumps(setup_of(ws[0]).__dict__, default=str)))


def run_matrix(cluster: Cluster, runners: dict[str, KueueRunner], scens: list[Scenario],
               log=print, workers: int = 3) -> Report:
    t0 = time.monotonic()
    run_id = f"{int(time.time()) % 100000}"
    rows: list[Row] = []
    cluster.apply(resource_flavor(FLAVOR))
    current: KueueRunner | None = None
    for world, group in group_by_world(scens):
        tw = time.monotonic()
        runner = runners[world.version]
        if current is not None and current is not runner:
            current.stop()
        current = runner
        # Stop Kueue while the world is swapped, unless the configuration stays: then it watches.
        if runner.setup != setup_of(world):
            runner.stop()
        load_world(cluster, world)
        restarted = runner.ensure(setup_of(world))
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
        for (s, ns, subj), (doc, err) in zip(jobs, docs):
            row = judge(Row(s.id, subj, s.title, world.version, expected=s.expect), workloads[(ns, subj)], doc, err)
            row.details["namespace"] = ns
            row.details["single"] = len(s.subjects) == 1
            rows.append(row)
        log(f"oracle: world {world.name} (Kueue {world.version}{', restarted' if restarted else ''}): "
            f"{sum(r.agree for r in rows[-len(jobs):])}/{len(jobs)} agree in {time.monotonic() - tw:.1f}s "
            f"(world+Kueue {t_start - tw:.1f}s, create {t_created - t_start:.1f}s, settle {t_settled - t_created:.1f}s, "
            f"explain {t_explained - t_settled:.1f}s)")
    if current is not None:
        current.stop()
    return Report(rows, round(time.monotonic() - t0, 1),
                  {v: r.start_seconds for v, r in runners.items()})


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
