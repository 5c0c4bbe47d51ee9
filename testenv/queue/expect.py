"""Did Kueue reach the state a scenario was written for? ``problems`` compares one ``Expect`` with
what was observed after the phase; an empty list means yes. Names in an expectation are the
scenario's own (``spot``), matched against the cluster-wide ones (``<cq>-spot``)."""

from __future__ import annotations

from testenv.queue.model import Expect
from testenv.queue.observe import Observed, condition, kueue_state, preemptor_of, subject_of


def _own(name: str, cq: str) -> str:
    return f"{cq}-{name}"


def recorded_flavors(wl: dict | None) -> dict[str, str]:
    """{resource: flavor} over every pod set of the admission."""
    out: dict[str, str] = {}
    for ps in (((wl or {}).get("status") or {}).get("admission") or {}).get("podSetAssignments") or []:
        out.update(ps.get("flavors") or {})
    return out


def summary(wl: dict | None) -> str:
    """What Kueue shows, in one line: the state, the flavors, the QuotaReserved message or the
    eviction, the checks."""
    state = kueue_state(wl)
    if wl is None:
        return "no Workload"
    parts = [state]
    flavors = recorded_flavors(wl)
    if flavors and state in ("admitted", "reserved", "evicting"):
        parts.append("on " + ", ".join(f"{r}={f}" for r, f in sorted(flavors.items())))
    for ctype in ("Evicted", "Preempted", "Requeued"):
        c = condition(wl, ctype)
        if c and (c.get("status") == "True" or ctype == "Requeued"):
            parts.append(f"{ctype}={c.get('status')}/{c.get('reason')}")
    qr = condition(wl, "QuotaReserved")
    if qr is None and state == "pending":
        parts.append("no QuotaReserved condition")
    elif qr is not None and qr.get("status") == "False":
        parts.append(f"{qr.get('reason')}: {qr.get('message')}")
    checks = ((wl.get("status") or {}).get("admissionChecks")) or []
    if checks:
        parts.append("checks " + ", ".join(f"{c.get('name')} {c.get('state')}" for c in checks))
    rq = (wl.get("status") or {}).get("requeueState")
    if rq:
        parts.append(f"requeueState {rq}")
    return "; ".join(parts)


def problems(expect: Expect, obs: Observed, subject: str, cq: str) -> list[str]:
    wl = obs.workloads.get(subject)
    out: list[str] = []
    state = kueue_state(wl)
    if state != expect.state:
        out.append(f"state {state}, want {expect.state}")
    if wl is None:
        return out
    qr = condition(wl, "QuotaReserved")
    if expect.message is not None:
        said = (qr or {}).get("message") or ""
        if (qr or {}).get("status") != "False" or expect.message.replace("{cq}", cq) not in said:
            out.append(f"QuotaReserved message {said!r} lacks {expect.message!r}")
    if expect.no_condition and qr is not None:
        out.append(f"a QuotaReserved condition exists: {qr.get('status')}/{qr.get('reason')} {qr.get('message')!r}")
    for ctype, want in expect.conds.items():
        c = condition(wl, ctype)
        got = f"{c.get('status')}/{c.get('reason')}" if c else "absent"
        if got != want:
            out.append(f"{ctype} {got}, want {want}")
    if expect.flavors is not None:
        want = {r: _own(f, cq) for r, f in expect.flavors.items()}
        got = recorded_flavors(wl)
        if got != want:
            out.append(f"flavors {got}, want {want}")
    if expect.checks is not None:
        got_checks = {c.get("name"): c.get("state") for c in (wl.get("status") or {}).get("admissionChecks") or []}
        want_checks = {_own(c, cq): s for c, s in expect.checks.items()}
        if got_checks != want_checks:
            out.append(f"admission checks {got_checks}, want {want_checks}")
    out += _position_problems(expect, obs, wl)
    if expect.preemptor is not None:
        p = preemptor_of(wl, obs.namespace_workloads)
        got_p = subject_of(p) if p is not None else None
        if got_p != expect.preemptor:
            out.append(f"preempted by {got_p}, want {expect.preemptor}")
    if expect.requeue_at and not ((wl.get("status") or {}).get("requeueState") or {}).get("requeueAt"):
        out.append("no status.requeueState.requeueAt")
    if expect.cq is not None:
        active = condition(obs.cluster_queue_of(wl), "Active")
        got_cq = f"{active.get('status')}/{active.get('reason')}" if active else "absent"
        if got_cq != expect.cq:
            out.append(f"ClusterQueue Active {got_cq}, want {expect.cq}")
    return out


def _position_problems(expect: Expect, obs: Observed, wl: dict) -> list[str]:
    if expect.position is None and expect.lq_position is None and expect.listed is None:
        return []
    if obs.visibility_error:
        return [f"visibility API: {obs.visibility_error}"]
    pos = obs.positions.get(wl["metadata"]["name"])
    listed = expect.listed if expect.listed is not None else True
    if pos is None:
        return ["not listed by the visibility API"] if listed else []
    if not listed:
        return [f"listed by the visibility API at {pos}"]
    out = []
    if expect.position is not None and pos["clusterQueue"] != expect.position:
        out.append(f"position {pos['clusterQueue']} in the ClusterQueue, want {expect.position}")
    if expect.lq_position is not None and pos["localQueue"] != expect.lq_position:
        out.append(f"position {pos['localQueue']} in the LocalQueue, want {expect.lq_position}")
    return out
