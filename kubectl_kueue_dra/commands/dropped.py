"""The DRA fields an API server dropped: written for a DeviceClass or ResourceSlice (on record in
``managedFields`` or ``kubectl apply``'s annotation, ``k8s/written``) but not stored, because the
gate that serves them (``gates.GATED_FIELDS``) was off when the object was written. Pure.

A dropped field is not an absent one: the user asked for it, the server accepted the write and
kept the rest. ``classes``, ``explain``, ``verify`` and ``map set`` say so, with the gate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .. import gates as g
from ..findings import Severity
from ..findings import codes as F
from ..k8s.written import OnRecord, Path, Written, written_but_absent


@dataclass(frozen=True, kw_only=True)
class Dropped:
    kind: str
    name: str
    gate: str
    written: Written
    others: tuple[str, ...] = ()  # more objects of the kind with the same field dropped (said together)

    @property
    def ref(self) -> str:
        if not self.others:
            return f"{self.kind} {self.name}"
        shown = ", ".join((self.name, *self.others[:2])) + (f" and {len(self.others) - 2} more"
                                                             if len(self.others) > 2 else "")
        plural = self.kind + ("es" if self.kind.endswith("s") else "s")
        return f"{len(self.others) + 1} {plural} ({shown})"

    def sent(self) -> str:
        """What was sent and by whom, in words: ``spec.extendedResourceName (example.com/gpu, by kubectl-create …)``."""
        parts = [", ".join(map(str, self.written.values[:3]))] if self.written.values else []
        if self.written.managers:
            parts.append("by " + self.written.by())
        return f"{self.written.field} ({', '.join(parts)})" if parts else self.written.field

    def message(self, now: g.GateState | None = None) -> str:
        """The fact, and the gate's state now where it is known."""
        were = "were" if self.others else "was"
        text = (f"{self.ref} {were} written with {self.sent()}, which the API server dropped: it drops "
                f"{self.written.field} while {self.gate} is off, so {self.gate} was off when "
                f"{'they were' if self.others else 'it was'} written")
        if now is not None and now.state != g.UNKNOWN:
            text += f"; {self.gate} is {now.state} now ({now.how()})"
        return text

    def evidence(self) -> g.Evidence:
        return g.Evidence("objects", False, f"{self.ref} was written with {self.written.field}, which the API "
                                            "server dropped (it was off when the object was written)")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "gate": self.gate, **self.written.to_json(),
                **({"others": list(self.others)} if self.others else {})}


def dropped_fields(objects: Iterable[dict[str, Any]]) -> list[Dropped]:
    """Every gated field written for these objects and dropped by the API server (only the fields
    on record as sent are looked for, ``OnRecord``)."""
    gated: dict[str, list[tuple[str, Path]]] = {}
    for gate, kind_path in g.GATED_FIELDS.items():
        for field_kind, path in kind_path:
            gated.setdefault(field_kind, []).append((gate, path))
    recorded = {kind: OnRecord(tuple(path for _, path in paths)) for kind, paths in gated.items()}
    out = []
    for obj in objects:
        kind = obj.get("kind") or ""
        sent = recorded[kind](obj) if kind in gated else ()
        for gate, path in gated.get(kind, ()):
            written = written_but_absent(obj, path) if path in sent else None
            if written is not None:
                out.append(Dropped(kind=kind, name=str((obj.get("metadata") or {}).get("name")), gate=gate,
                                   written=written))
    return out


def together(dropped: list[Dropped]) -> list[Dropped]:
    """The ResourceSlices with the same field dropped by the same writers as one (a driver writes
    one slice per node, or per GPU); each DeviceClass on its own."""
    out: list[Dropped] = []
    groups: dict[tuple[str, str, tuple[str, ...]], list[Dropped]] = {}
    for d in dropped:
        if d.kind != "ResourceSlice":
            out.append(d)
            continue
        who = tuple(m.split(" (")[0] for m in d.written.managers)
        groups.setdefault((d.gate, d.written.field, who), []).append(d)
    for group in groups.values():
        first = group[0]
        out.append(Dropped(kind=first.kind, name=first.name, gate=first.gate, written=first.written,
                           others=tuple(d.name for d in group[1:])))
    return out


def of_kind(objects: list[dict[str, Any]] | None, kind: str) -> list[dict[str, Any]]:
    """``objects`` with their ``kind`` set (a list's items carry none)."""
    return [o if o.get("kind") else {**o, "kind": kind} for o in objects or []]


def dropped_evidence(dropped: list[Dropped]) -> dict[str, g.Evidence]:
    """gate → what the dropped fields say of it (the first object per gate)."""
    out: dict[str, g.Evidence] = {}
    for d in dropped:
        out.setdefault(d.gate, d.evidence())
    return out


def finding(d: Dropped, *, now: g.GateState | None = None, openshift_release: tuple[int, int] | None = None,
            openshift: bool = False, severity: Severity = "warning") -> dict[str, Any]:
    """The ``GatedFieldDropped`` finding of one dropped field, its fix for the platform."""
    if openshift:
        how = g.enabling_feature_sets(d.gate, openshift_release) or (
            f"featureSet CustomNoUpgrade with {d.gate} in spec.customNoUpgrade.enabled turns it on")
        return F.GatedFieldDropped.make(d.message(now), severity=severity, variant="openshift", gate=d.gate,
                                        how=how, object=d.ref, extra={"dropped": d.to_json()})
    return F.GatedFieldDropped.make(d.message(now), severity=severity, gate=d.gate, object=d.ref,
                                    extra={"dropped": d.to_json()})
