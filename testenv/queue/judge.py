"""The judge: ``explain -o json`` against what Kueue recorded for a queue scenario.

For one explained subject after one phase:

* the state (``state``, ``admitted``) is the one Kueue's conditions give;
* held quota (admitted, reserved, being evicted): ``podSets[].flavors`` equal
  ``status.admission.podSetAssignments[].flavors`` (``flavorsSource`` "recorded"), and the model's
  pick (``flavorsTried`` entries with ``chosen``) equals them unless the scenario changed the
  flavors after admission; ``flavorsAgree`` never says otherwise than the two do;
* waiting: ``reason`` names the cause of Kueue's record (``causes``), every code of Kueue's
  flavor reasons is stated, and the flavor reasons explain predicts (``flavorsTried[].reasons[]
  .message``, and the whole message, ``queue.verdict.message``) are Kueue's, character for
  character, unless explain says Kueue's message is older than the cluster (``_says_stale``);
* evicted / preempted: ``eviction.reason`` and ``preemption`` (reason, preemptor) are Kueue's;
* a pending preemptor: the targets it predicts are the workloads Kueue preempted for it by the
  scenario's end (the step that lets it run comes after the explanation);
* admission checks: the states are Kueue's; position: the visibility API's; Kueue's words quoted
  (``kueueMessage``) are words Kueue wrote;
* and no contradiction: never admitted or silent on why for a workload Kueue holds pending, never
  a DRA rejection or a waiting cause as the verdict of a workload Kueue admitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from testenv.queue.causes import PREEMPTING, cause
from testenv.queue.expect import summary
from testenv.queue.observe import Observed, condition, kueue_state, preemptor_of, subject_of, victims_of

#: causes of waiting: as an error finding on a workload Kueue admitted they contradict it
WAITING_CODES = {"NodeAffinityMismatch", "UntoleratedTaint", "ExceedsQuota", "QuotaExhausted", "ResourceNotCovered",
                 "FlavorNotFound", "BlockedByHead", "Preempting", "NoPreemptionCandidates", "ClusterQueueInactive",
                 "LocalQueueMissing", "ClusterQueueMissing", "NamespaceNotSelected"}


@dataclass
class QueueRow:
    scenario: str
    area: str
    subject: str
    phase: int
    last_phase: bool
    version: str
    title: str
    kueue: str = ""
    explain: str = ""
    agree: bool = False
    why: str = ""
    details: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.scenario} {self.subject}" + ("" if self.last_phase else f" (after phase {self.phase})")


def _codes(doc: dict) -> set[str]:
    codes = {f.get("code") for f in doc.get("findings") or []}
    for ps in doc.get("podSets") or []:
        for tried in ps.get("flavorsTried") or []:
            codes |= {r.get("code") for r in tried.get("reasons") or []}
    return codes - {None}


def _state_problems(doc: dict, wl: dict, state: str) -> list[str]:
    want = {"admitted": {"Admitted"}, "reserved": {"WaitingForChecks"}, "pending": {"Pending"},
            "inactive": {"Inactive"}, "finished": {"Finished"}}.get(state)
    if state == "evicting":
        want = {"Preempted"} if (condition(wl, "Evicted") or {}).get("reason") == "Preempted" else {"Evicted"}
    elif state == "evicted":
        requeued = condition(wl, "Requeued") or {}
        want = {"Requeuing"} if requeued.get("status") == "False" else {"Pending", "Preempted", "Evicted"}
    if state == "reserved" and ((wl.get("status") or {}).get("requeueState") or {}).get("requeueAt"):
        want = {"WaitingForChecks", "Requeuing"}
    out = []
    if want is not None and doc.get("state") not in want:
        out.append(f"state {doc.get('state')!r}, Kueue's record gives {' or '.join(sorted(want))}")
    admitted = (condition(wl, "Admitted") or {}).get("status") == "True" and state in ("admitted", "finished")
    if bool(doc.get("admitted")) != admitted and state != "evicting":
        out.append(f"admitted {doc.get('admitted')!r}, Kueue: {admitted}")
    return out


def _contradictions(doc: dict, state: str) -> list[str]:
    out = []
    holds = state in ("admitted", "reserved", "evicting", "finished")
    if not holds and doc.get("admitted"):
        out.append(f"CONTRADICTION: explain says admitted, Kueue holds it {state}")
    if state in ("pending", "evicted") and doc.get("reason") in (None, "", "Admitted"):
        out.append(f"CONTRADICTION: explain gives no reason why it waits (reason {doc.get('reason')!r})")
    if holds:
        dra = doc.get("dra") or {}
        if dra.get("message") and not dra.get("afterAdmission"):  # a change since admission may be told as one
            out.append(f"CONTRADICTION: a DRA rejection for a workload Kueue {state}: {dra['message']}")
        wrong = sorted({f.get("code") for f in doc.get("findings") or []
                        if f.get("severity") == "error" and f.get("code") in WAITING_CODES})
        if wrong:
            out.append(f"CONTRADICTION: error findings {wrong} for a workload Kueue {state}")
    if state == "admitted" and doc.get("reason") not in (None, "Admitted"):
        out.append(f"reason {doc.get('reason')!r} for an admitted workload")
    return out


def _flavor_problems(doc: dict, wl: dict, obs: Observed, drift: bool) -> list[str]:
    recorded = {ps.get("name"): ps.get("flavors") or {}
                for ps in ((wl.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []}
    groups = (((obs.cluster_queue_of(wl) or {}).get("spec") or {}).get("resourceGroups")) or []
    out = []
    docs = {ps.get("name"): ps for ps in doc.get("podSets") or []}
    for name, flavors in recorded.items():
        ps = docs.get(name)
        if ps is None:
            out.append(f"pod set {name} missing")
            continue
        if ps.get("flavors") != flavors:
            out.append(f"{name}: flavors {ps.get('flavors')}, Kueue recorded {flavors}")
        if ps.get("flavorsSource") != "recorded":
            out.append(f"{name}: flavorsSource {ps.get('flavorsSource')!r}, want 'recorded'")
        requested = set(ps.get("charge") or flavors)  # the resources explain's model searched flavors for
        chosen: dict[str, set[str]] = {}
        for t in ps.get("flavorsTried") or []:
            if t.get("chosen") and isinstance(t.get("resourceGroup"), int) and t["resourceGroup"] < len(groups):
                for r in groups[t["resourceGroup"]].get("coveredResources") or []:
                    if r in requested:
                        chosen.setdefault(r, set()).add(t.get("flavor"))
        several = sorted(r for r, fs in chosen.items() if len(fs) > 1)
        if several:
            out.append(f"{name}: more than one flavor chosen for {several}")
        picked = {r: sorted(fs)[0] for r, fs in chosen.items()}
        if picked and not several:
            same = picked == flavors
            if not same and not drift:
                out.append(f"{name}: the model picks {picked}, Kueue recorded {flavors}")
            agree = doc.get("flavorsAgree", ps.get("flavorsAgree"))
            if agree is not None and agree != same:
                out.append(f"{name}: flavorsAgree {agree} but the pick {'equals' if same else 'differs from'} the record")
    return out


def _cause_problems(doc: dict, wl: dict, obs: Observed) -> list[str]:
    c = cause(wl, obs)
    if c is None:
        return [f"the judge cannot read Kueue's record: {summary(wl)}"]
    out = []
    if doc.get("reason") not in c.reasons:
        out.append(f"reason {doc.get('reason')!r}, Kueue's record ({c.read}) gives {' or '.join(sorted(c.reasons))}")
    missing = sorted(c.required - _codes(doc))
    if missing:
        out.append(f"codes {missing} of Kueue's message not stated")
    predicted = sorted(r.get("message") for ps in doc.get("podSets") or [] for t in ps.get("flavorsTried") or []
                       if t.get("outcome") != "notTried" for r in t.get("reasons") or [] if r.get("message"))
    stale = _says_stale(doc)
    if predicted and c.flavor_texts and predicted != sorted(c.flavor_texts) and not stale:
        out.append(f"flavor reasons {predicted}, Kueue's message has {sorted(c.flavor_texts)}")
    message = (condition(wl, "QuotaReserved") or {}).get("message") or ""
    verdict = ((doc.get("queue") or {}).get("verdict") or {}).get("message")
    if verdict and c.flavor_texts and verdict != message and not stale:  # the predicted message, whole
        out.append(f"predicted message {verdict!r}, Kueue's {message!r} (and explain does not say they differ)")
    return out


def _says_stale(doc: dict) -> bool:
    """Kueue rewrites a waiting workload's message only when it evaluates it again, so its message
    can describe an older cluster. A prediction that differs from it is then the truth as long as
    explain says the two differ: ``queue.verdict.matchesKueue`` false, or a finding whose code
    names the stale message (``KueueMessageStale``)."""
    verdict = (doc.get("queue") or {}).get("verdict") or {}
    return verdict.get("matchesKueue") is False or \
        any("Stale" in str(f.get("code")) for f in doc.get("findings") or [])


def _eviction_problems(doc: dict, wl: dict) -> list[str]:
    ev = condition(wl, "Evicted")
    got = doc.get("eviction")
    if not ev or ev.get("status") != "True":
        if got and got.get("active"):
            return [f"eviction {got.get('reason')!r} active, Kueue has no Evicted=True"]
        return []
    if not got:
        return [f"no eviction, Kueue: Evicted=True {ev.get('reason')}"]
    out = []
    if got.get("reason") != ev.get("reason"):
        out.append(f"eviction.reason {got.get('reason')!r}, Kueue {ev.get('reason')!r}")
    if got.get("active") is not True:
        out.append("eviction.active is not true")
    rq = condition(wl, "Requeued")
    if rq and got.get("requeued") != (rq.get("status") == "True"):
        out.append(f"eviction.requeued {got.get('requeued')!r}, Kueue Requeued={rq.get('status')}/{rq.get('reason')}")
    return out


def _victims(wl: dict, later: list[Observed]) -> list[str]:
    """The Workloads Kueue preempted for ``wl`` from this phase on (a victim a step deleted counts
    too: it was preempted before)."""
    uid = wl["metadata"].get("uid")
    out: set[str] = set()
    for o in later:
        now = next((w for w in o.namespace_workloads if w["metadata"].get("uid") == uid), wl)
        out |= {w["metadata"]["name"] for w in victims_of(now, o.namespace_workloads)}
    return sorted(out)


def _preemption_problems(doc: dict, wl: dict, obs: Observed, later: list[Observed]) -> list[str]:
    out = []
    got = doc.get("preemption") or {}
    pc = condition(wl, "Preempted")
    if pc and pc.get("status") == "True":
        if got.get("role") != "victim":
            out.append(f"preemption role {got.get('role')!r}, Kueue: Preempted=True {pc.get('reason')}")
        else:
            if got.get("reason") != pc.get("reason"):
                out.append(f"preemption.reason {got.get('reason')!r}, Kueue {pc.get('reason')!r}")
            p = preemptor_of(wl, obs.namespace_workloads)
            said = got.get("preemptor") or {}
            if p is not None and p["metadata"]["uid"] != said.get("uid") and p["metadata"]["name"] != said.get("name"):
                out.append(f"preemptor {said}, Kueue: {p['metadata']['namespace']}/{p['metadata']['name']}")
    victims = _victims(wl, later)
    preempting = PREEMPTING.search((condition(wl, "QuotaReserved") or {}).get("message") or "")
    if preempting and (got.get("role") != "preemptor" or got.get("possible") is not True):
        out.append(f"Kueue is preempting for it, explain: preemption {got.get('role')!r} possible {got.get('possible')!r}")
    if got.get("role") == "preemptor":
        targets = sorted(t.get("name") for t in got.get("targets") or [])
        if targets != victims:
            out.append(f"predicted targets {targets}, Kueue preempted {victims}")
        holding = sorted(w["metadata"]["name"] for w in victims_of(wl, obs.namespace_workloads)
                         if kueue_state(w) == "evicting")
        waiting = sorted(t.get("name") for t in got.get("waitingFor") or [])
        if "waitingFor" in got and waiting != holding:
            out.append(f"waitingFor {waiting}, Kueue's victims still holding quota: {holding}")
    elif victims and kueue_state(wl) not in ("admitted", "reserved", "finished"):
        out.append(f"no preemption predicted, Kueue preempted {victims} for it")
    return out


def _check_problems(doc: dict, wl: dict) -> list[str]:
    kueue = {c.get("name"): c.get("state") for c in (wl.get("status") or {}).get("admissionChecks") or []}
    said = {c.get("name"): c.get("state") for c in doc.get("admissionChecks") or []}
    return [] if kueue == said else [f"admission checks {said}, Kueue {kueue}"]


def _position_problems(doc: dict, wl: dict, obs: Observed) -> list[str]:
    if obs.visibility_error:
        return []
    pos = obs.positions.get(wl["metadata"]["name"])
    got = doc.get("position")
    if pos is None:  # not queued: no position, or one explain says it does not know
        return [f"position {got}, the visibility API does not list it"] \
            if got and (got.get("clusterQueue") is not None or not got.get("unknown")) else []
    if not got:
        return [f"no position, the visibility API: {pos}"]
    if (got.get("clusterQueue"), got.get("localQueue")) != (pos["clusterQueue"], pos["localQueue"]):
        return [f"position cq {got.get('clusterQueue')} lq {got.get('localQueue')}, the visibility API: "
                f"cq {pos['clusterQueue']} lq {pos['localQueue']}"]
    return []


def _quote_problems(doc: dict, wl: dict, obs: Observed) -> list[str]:
    """Kueue's words quoted beside explain's (``kueueMessage``, on a finding or the document) must
    be words Kueue wrote: a message of the Workload's conditions or checks, or of its queues'."""
    said = {c.get("message") for c in (wl.get("status") or {}).get("conditions") or []}
    said |= {c.get("message") for c in (wl.get("status") or {}).get("admissionChecks") or []}
    for q in (*obs.cluster_queues.values(), *obs.local_queues.values()):
        said |= {c.get("message") for c in (q.get("status") or {}).get("conditions") or []}
    quotes = [f.get("kueueMessage") for f in doc.get("findings") or []] + [doc.get("kueueMessage")]
    return [f"kueueMessage {q!r} is not a message Kueue wrote" for q in quotes if q and q not in said]


def explain_summary(doc: dict) -> str:
    parts = [f"{doc.get('state')}/{doc.get('reason')}"]
    flavors = [ps.get("flavors") for ps in doc.get("podSets") or [] if ps.get("flavors")]
    if flavors:
        parts.append("on " + "; ".join(", ".join(f"{r}={f}" for r, f in sorted(fl.items())) for fl in flavors))
    if doc.get("eviction"):
        parts.append(f"eviction {doc['eviction'].get('reason')}")
    p = doc.get("preemption") or {}
    if p:
        who = (p.get("preemptor") or {}).get("name") if p.get("role") == "victim" else \
            [t.get("name") for t in p.get("targets") or []]
        parts.append(f"preemption {p.get('role')} {who}")
    if doc.get("admissionChecks"):
        parts.append("checks " + ", ".join(f"{c.get('name')} {c.get('state')}" for c in doc["admissionChecks"]))
    if doc.get("position"):
        parts.append(f"position {doc['position'].get('clusterQueue')}/{doc['position'].get('localQueue')}")
    codes = sorted(_codes(doc))
    if codes:
        parts.append(f"[{', '.join(codes)}]")
    return "; ".join(parts)


def judge(row: QueueRow, wl: dict | None, obs: Observed, later: list[Observed], doc: dict | None, err: str,
          drift: bool = False) -> QueueRow:
    """``obs``: the phase explained; ``later``: the observations from that phase to the scenario's
    last (what Kueue did after the explanation)."""
    row.kueue = summary(wl)
    if wl is None:
        row.why = "Kueue made no Workload"
        return row
    if doc is None:
        row.explain = f"explain failed: {err}"
        row.why = row.explain
        return row
    state = kueue_state(wl)
    problems = _state_problems(doc, wl, state) + _contradictions(doc, state)
    if state in ("admitted", "reserved", "evicting"):
        problems += _flavor_problems(doc, wl, obs, drift)
    if state in ("pending", "evicted", "inactive"):
        problems += _cause_problems(doc, wl, obs)
    problems += _eviction_problems(doc, wl) + _preemption_problems(doc, wl, obs, later)
    problems += _check_problems(doc, wl) + _position_problems(doc, wl, obs) + _quote_problems(doc, wl, obs)
    row.explain = explain_summary(doc)
    row.agree, row.why = not problems, "; ".join(problems)
    row.details["preemptor"] = subject_of(p) if (p := preemptor_of(wl, obs.namespace_workloads)) else None
    return row
