"""The oracle's comparison: one workload's ``explain -o json`` against what Kueue recorded for it.

* admitted: the predicted charge of every pod set equals
  ``status.admission.podSetAssignments[].resourceUsage``, numerically, for every resource;
* rejected by Kueue's DRA step (reason Inadmissible): the predicted DRA message equals the
  condition message, and the predicted finding code equals the one the message maps to;
* waiting in the scheduler (reason Pending): the predicted charge equals
  ``status.resourceRequests``, and explain predicts the same cause (a finding with the code the
  message maps to, derived from the ClusterQueue, not from the condition).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubectl_kueue_dra.dra.quantity import parse_quantity
from kubectl_kueue_dra.kueue.workloads.status import cause_of


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


def _condition(obj: dict, ctype: str) -> dict | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)



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



# ---------------------------------------------------------------------------------- comparison
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
    found = cause_of(message)
    want_code = found.code.name if found else "?"
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
