"""What Kueue recorded for the Workload beside what this tool predicts: the recorded usage summed
and compared amount by amount, the Workload's state, Kueue's own reason for not admitting it, and
the predicted DRA rejection with its cause and fix.

Pure: takes the Workload and the charge result, returns document parts and findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...dra.quantity import QuantityError, parse_quantity
from ...findings import codes as F
from ...kueue.charge import ChargeResult, format_usage, kueue_int
from ...kueue.queues.blockers import is_blocker_message
from ...kueue.queues.proposals import quota_resource_for
from ...kueue.workloads.lifecycle import Lifecycle
from ...kueue.workloads.status import Cause, cause_of, condition, recorded_usage

#: the scheduler's message while a check is in Retry or Rejected
FAILED_CHECKS = "The workload has failed admission checks"


@dataclass(frozen=True, kw_only=True)
class Fills:
    """What the fixes of Kueue's DRA messages are filled with beyond what a message names: the
    workload's ClusterQueue (None: unknown), the quota resources charged already (None: unknown),
    how ``map set`` is run here, the drivers of the mappings' counter and capacity sources."""

    cluster_queue: dict[str, Any] | None = None
    charged: set[str] | None = None
    restart: str = ""
    drivers: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def make(self, cause: Cause, message: str, **kw: Any) -> dict[str, Any]:
        """The finding of ``cause``, its fix filled in."""
        variant, args = cause.variant, dict[str, Any](cause.named)
        if cause.code is F.DeviceClassNotMapped:
            queues = None if self.cluster_queue is None else [self.cluster_queue]
            choice = quota_resource_for(args.get("device_class") or "devices", cluster_queues=queues,
                                        charged=self.charged)
            variant = "" if "device_class" in args else "unnamed"
            args.update(quota_resource=choice.value, why=choice.why, restart=self.restart)
        elif cause.code is F.NotEnoughMatchingDevices and variant == "counter-or-capacity":
            kind = "capacity" if "capacity driver" in message else "counter"
            drivers = self.drivers.get(kind, ())
            if len(drivers) == 1:
                args["driver"] = drivers[0]
            else:
                variant, args["drivers"] = "driver-unknown", ", ".join(drivers) or "the mappings' drivers"
        elif cause.code is F.CapacityRequestUnsatisfiable and "dimension" not in args:
            variant = "unnamed"
        elif cause.code is F.QuotaExhausted and self.cluster_queue is not None:
            variant, args["cluster_queue"] = "", (self.cluster_queue.get("metadata") or {}).get("name")
        return cause.code.make(message, variant=variant, **args, **kw)


def recorded_part(wl: dict[str, Any], result: ChargeResult, binary: set[str], dra_resources: set[str],
                  stated: set[str], life: Lifecycle | None = None, *,
                  fills: Fills | None = None) -> tuple[dict[str, str] | None, list[dict[str, Any]]]:
    """What Kueue recorded for the Workload, and the findings of comparing it with the prediction."""
    findings: list[dict[str, Any]] = []
    recorded_doc = None
    source, recorded = recorded_usage(wl)
    if recorded:  # in the charge's own form, so that equal amounts read equal (5100273664 is 4864Mi)
        recorded_doc = _sum_recorded(recorded, binary)
        findings.extend(compare(result, recorded, "status.admission" if source == "admission"
                                else "status.resourceRequests", dra_resources))
    if life is None or life.kueue_says is not None:  # else the state's findings say what Kueue recorded
        findings.extend(_condition_findings(wl, result, stated, fills or Fills()))
    return recorded_doc, findings


def _sum_recorded(recorded: dict[str, dict[str, str]], binary: set[str]) -> dict[str, str]:
    sums: dict[str, int] = {}
    unreadable: dict[str, str] = {}
    for per_ps in recorded.values():
        for name, q in per_ps.items():
            try:
                sums[name] = sums.get(name, 0) + kueue_int(name, parse_quantity(q))
            except QuantityError:
                unreadable[name] = str(q)  # shown as Kueue wrote it; compare() names the bad value
    return {n: format_usage(n, v, binary) for n, v in sums.items() if n not in unreadable} | unreadable


def compare(result: ChargeResult, recorded: dict[str, dict[str, str]], source: str,
            dra_resources: set[str]) -> list[dict[str, Any]]:
    """Numeric comparison, per pod set and resource, of the prediction with Kueue's record: for
    the admitted count of pods (partial admission), leaving out what is unknown."""
    findings = []
    for ps in result.podsets:
        rec = recorded.get(ps.name)
        if rec is None:
            continue
        predicted = ps.total
        for name in sorted(set(rec) | (set(predicted) & dra_resources)):
            if name in ps.unknown or (result.dra_unknown and name not in predicted):
                continue  # what Kueue recorded for a charge this tool cannot know is not a mismatch
            if result.rejected and name in dra_resources:
                continue  # the DRA step fails now (its finding says why): nothing to compare with
            if name not in rec:
                if name in dra_resources and predicted.get(name):
                    findings.append(F.ChargeMismatch.make(
                        f"pod set {ps.name}: Kueue recorded no {name}, this tool predicts {predicted[name]} "
                        "units", variant="not-recorded"))
                continue
            try:
                got = kueue_int(name, parse_quantity(rec[name]))
            except QuantityError:
                continue
            want = predicted.get(name)
            if want is None:
                if name in dra_resources:
                    findings.append(F.ChargeMismatch.make(
                        f"pod set {ps.name}: Kueue recorded {name}={rec[name]} in {source}, this tool "
                        "predicts none"))
                continue
            if got != want:
                findings.append(F.ChargeMismatch.make(
                    f"pod set {ps.name}: Kueue recorded {name}={rec[name]} in {source}, this tool predicts "
                    f"{want if name != 'cpu' else str(want) + 'm'} (base units, for {ps.charged_count} pods)"))
    return findings


def dra_findings(result: ChargeResult, holds_quota: bool = False, fills: Fills | None = None) -> list[dict[str, Any]]:
    if not result.rejected:
        return []
    found = cause_of(result.message or "")
    found = found or Cause(F.DRARejected, "Kueue's DRA preprocessing fails")
    retry = " Kueue retries it with backoff." if result.retried and not holds_quota else ""
    return [(fills or Fills()).make(found, f"Kueue rejects this workload's DRA requests: {found.cause}.{retry} "
                                           f"Kueue's message: {result.message}", extra={"predicted": True})]


def _condition_findings(wl: dict[str, Any], result: ChargeResult, stated: set[str],
                        fills: Fills) -> list[dict[str, Any]]:
    """Kueue's recorded reason, unless a finding of ours already states the same fact (``stated``:
    the codes of the quota verdict, which quotes Kueue's words)."""
    out: list[dict[str, Any]] = []
    qr = condition(wl, "QuotaReserved")
    if qr is None or qr.get("status") != "False":
        return out
    message = qr.get("message") or ""
    if result.message and message == result.message:
        return out  # already explained by the predicted DRA failure
    if is_blocker_message(message) or message == FAILED_CHECKS:
        return out  # the queue part and the checks say it, and whether it is current
    found = cause_of(message)
    if found and found.code.name in stated:
        return out
    if found:  # the code's own severity: QuotaExhausted waits, the others keep it out
        out.append(fills.make(found, f"Kueue says: {message} — {found.cause}", extra={"reason": qr.get("reason")}))
    elif message:
        out.append(F.NotAdmitted.make(f"Kueue says: {message}", extra={"reason": qr.get("reason")}))
    if result.message and message and message != result.message and \
            qr.get("reason") in ("Inadmissible", "Misconfigured"):
        out.append(F.PredictionDiffers.make("Kueue's recorded DRA error differs from what this tool predicts now; "
                                            "the cluster changed since Kueue evaluated it, or the Kueue version "
                                            "differs"))
    return out

