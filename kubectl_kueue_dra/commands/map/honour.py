"""What Kueue or the cluster would not honour in a ``map set``, beyond the rules of the
configuration itself (``kueue/config/mapping_rules``):

* a DeviceClass the change adds that does not exist (claims of it cannot be allocated, and the
  class meant is not charged) — refused unless ``--allow-missing-class`` (the class may come later);
* a counter or capacity the change names that no ResourceSlice of its driver publishes (Kueue fails
  every workload charged through it: "matched devices have no consumesCounters entry …") — refused,
  naming the names the driver does publish; when no slice of the driver exists (not installed yet,
  or the plugin may not read them) there is nothing to judge by, and that is a warning;
* a replacement that drops DeviceClasses or the source of an existing mapping (the dropped classes
  are no longer charged; without its source the mapping charges whole devices instead of counters)
  — refused unless ``--replace``, saying what would be dropped;
* a counter (capacity) source while the API server's DRAPartitionableDevices (DRAConsumableCapacity)
  gate is off: the server drops ``consumesCounters`` (the capacity fields) from every slice, so the
  path has nothing to charge — refused when a live method says off (/metrics, the FeatureGate
  status, a dry-run probe, a field it dropped), a warning when only the default of the server's
  minor says it or nothing could tell; ``--allow-gate-off`` makes the refusal a warning.

Only what the change introduces is judged: a class already in the mapping, or a source it already
had, is not refused again. Pure: the objects read (None: could not be read) in, violations out.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from ... import gates as g
from ...dra.published import published
from ...errors import UserError
from ...findings import codes as F
from ...kueue.config.mapping_rules import Violation
from ...kueue.config.mappings import Mapping, Source, parse_mappings
from ...kueue.install.command import shell_quote


class Refused(UserError):
    """The change is refused for what the cluster has; nothing is written."""

    def __init__(self, violations: list[Violation]):
        first = violations[0]
        more = "".join(f"; {v}" for v in violations[1:])
        super().__init__(f"refused, nothing written: {first}{more}", first.fix)
        self.violations = violations


@dataclass(frozen=True, kw_only=True)
class ClusterFacts:
    """What the checks read: None when it could not be read, with why."""

    device_classes: list[dict[str, Any]] | None
    device_classes_unknown: str | None
    slices: list[dict[str, Any]] | None
    slices_unknown: str | None
    #: the Kubernetes gates the added sources need, their state now (``commands/probes``)
    gates: dict[str, g.GateState] = field(default_factory=dict)
    how_on: dict[str, str] = field(default_factory=dict)  # gate → how it is turned on here (the fix)


@dataclass(frozen=True, kw_only=True)
class Wanted:
    """The mapping as ``map set`` asks for it, and what the user allowed."""

    name: str
    classes: tuple[str, ...]
    sources: tuple[Source, ...]
    allow_missing_class: bool = False
    replace: bool = False
    allow_gate_off: bool = False


def _command(w: Wanted, classes: list[str], sources: tuple[Source, ...]) -> str:
    args = [f"kubectl kueue-dra map set {w.name}"] + [f"--device-class {c}" for c in classes]
    for s in sources:
        args += [f"--{s.type} {s.name}", f"--driver {s.driver}"]
        if s.selector:
            args.append(f"--selector {shell_quote(s.selector)}")
    return " ".join(args)


def _dropped(w: Wanted, old: Mapping, existing: set[str] | None) -> list[Violation]:
    """What a set would drop of the mapping it replaces: a DeviceClass that exists (one that does not
    charges nothing now), and a source no new source states again (the same type, name and driver)
    nor takes the place of (a new counter for the old one is a change, not a drop)."""
    where = f"mapping {w.name}"
    dropped = [c for c in old.device_class_names if c not in w.classes and (existing is None or c in existing)]
    stated = {(s.type, s.name, s.driver) for s in w.sources}
    had = {(s.type, s.name, s.driver) for s in old.sources}
    replacing = [s for s in w.sources if (s.type, s.name, s.driver) not in had]
    lost = [s for s in old.sources if (s.type, s.name, s.driver) not in stated][len(replacing):]
    sources = w.sources + tuple(lost)
    keep = _command(w, list(w.classes) + dropped, sources) if len(sources) <= 1 else \
        "map set states one source: edit the mapping in Kueue's configuration to keep " + \
        ", ".join(f"{s.type} {s.name}" for s in sources)
    fix_args = {"what": "them" if len(dropped) + len(lost) > 1 else "it", "keep": keep}
    out = []
    if dropped:
        out.append(Violation(
            F.ClassesDropped, where,
            f"it charges {', '.join(old.device_class_names)}; this set would drop {', '.join(dropped)} (no longer "
            "charged: Kueue rejects ResourceClaimTemplates of an unmapped class)", fix_args=fix_args))
    if lost:
        names = ", ".join(f"{s.type} {s.name} of {s.driver}" for s in lost)
        instead = "its classes would be charged one unit per device instead" if not w.sources else \
            f"only {w.sources[0].type} {w.sources[0].name} would be charged"
        out.append(Violation(
            F.SourceDropped, where, f"it charges {names}; this set does not state {'them' if len(lost) > 1 else 'it'}, "
            f"so {instead}", fix_args=fix_args))
    return out


def _missing_classes(w: Wanted, old: Mapping | None, facts: ClusterFacts) -> tuple[list[Violation], list[Violation]]:
    added = [c for c in w.classes if old is None or c not in old.device_class_names]
    if not added or w.allow_missing_class:
        return [], []
    where = f"mapping {w.name}"
    if facts.device_classes is None:
        return [], [Violation(F.DeviceClassesUnknown, where, f"whether DeviceClass {', '.join(added)} exists is "
                              f"unknown ({facts.device_classes_unknown})", "warning")]
    existing = sorted(dc["metadata"]["name"] for dc in facts.device_classes)
    missing = [c for c in added if c not in existing]
    if not missing:
        return [], []
    close = difflib.get_close_matches(missing[0], existing, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return [Violation(F.DeviceClassNotFound, where,
                      f"DeviceClass {', '.join(missing)} does not exist (DeviceClasses: "
                      f"{', '.join(existing[:8]) or 'none'}{' …' if len(existing) > 8 else ''})",
                      fix_args={"hint": hint})], []


def _unpublished(w: Wanted, old: Mapping | None, facts: ClusterFacts) -> tuple[list[Violation], list[Violation]]:
    refused: list[Violation] = []
    warned: list[Violation] = []
    where = f"mapping {w.name}"
    for s in w.sources:
        if old is not None and s in old.sources:
            continue
        if facts.slices is None:
            warned.append(Violation(F.SlicesUnknown, where, f"whether driver {s.driver} publishes {s.type} {s.name} "
                                    f"is unknown ({facts.slices_unknown})", "warning"))
            continue
        found = published(facts.slices, s.driver)
        names = sorted(found.names(s.type))
        if not found.slices:
            warned.append(Violation(
                F.DriverNotPublishing, where,
                f"no ResourceSlice of driver {s.driver}, so whether it publishes {s.type} {s.name} cannot be "
                "checked; Kueue charges nothing through it until the driver publishes devices", "warning",
                fix_args={"driver": s.driver}))
        elif s.name not in names:
            where_published = "consumesCounters" if s.type == "counter" else "capacity"
            close = difflib.get_close_matches(s.name, names, n=3, cutoff=0.5)
            shown = close + [n for n in names if n not in close]
            more = f" and {len(shown) - 12} more" if len(shown) > 12 else ""
            refused.append(Violation(
                F.CounterNotPublished if s.type == "counter" else F.CapacityNotPublished, where,
                f"no ResourceSlice of driver {s.driver} publishes {s.type} {s.name} in {where_published} "
                f"(it publishes: {', '.join(shown[:12]) or 'none'}{more}): Kueue would fail every workload charged "
                "through it",
                variant="map" if names else "map-none", fix_args={"example": (close or names)[0]} if names else {}))
    return refused, warned


#: the Kubernetes gate whose fields a source type charges
SOURCE_GATES = {"counter": g.DRA_PARTITIONABLE, "capacity": g.DRA_CONSUMABLE}


def needed_gates(sources: tuple[Source, ...] | list[Source]) -> list[str]:
    return list(dict.fromkeys(SOURCE_GATES[s.type] for s in sources if s.type in SOURCE_GATES))


def _gates_off(w: Wanted, old: Mapping | None, facts: ClusterFacts) -> tuple[list[Violation], list[Violation]]:
    refused: list[Violation] = []
    warned: list[Violation] = []
    where = f"mapping {w.name}"
    added = [s for s in w.sources if old is None or s not in old.sources]
    for gate in needed_gates(added):
        state = facts.gates.get(gate)
        if state is None or state.on:
            continue
        what = "consumesCounters" if gate == g.DRA_PARTITIONABLE else "the consumable-capacity fields"
        args = {"gate": gate, "how": facts.how_on.get(gate) or f"--feature-gates={gate}=true"}
        if state.state == g.UNKNOWN:
            warned.append(Violation(F.GateOffForPath, where, f"whether {gate} is on is unknown ({state.detail}); "
                                    f"while it is off the API server drops {what} from every ResourceSlice",
                                    "warning", variant="unknown"))
            continue
        probably = state.learned_from == "default"
        message = (f"{gate} is {'probably ' if probably else ''}off ({state.how()}): the API server drops {what} "
                   "from every ResourceSlice, so this source has nothing to charge")
        soft = probably or w.allow_gate_off
        (warned if soft else refused).append(Violation(F.GateOffForPath, where, message,
                                                       "warning" if soft else "error", fix_args=args))
    return refused, warned


def judge(w: Wanted, before_raw: list[Any], facts: ClusterFacts) -> list[Violation]:
    """The warnings of a change to ``before_raw`` (the mapping list as read); raises Refused."""
    old = next((m for m in parse_mappings(before_raw) if m.name == w.name), None)
    gates_off, warned0 = _gates_off(w, old, facts)
    existing = None if facts.device_classes is None else {dc["metadata"]["name"] for dc in facts.device_classes}
    refused = gates_off + ([] if old is None or w.replace else _dropped(w, old, existing))
    missing, warned = _missing_classes(w, old, facts)
    unpublished, warned2 = _unpublished(w, old, facts)
    refused += missing + unpublished
    if refused:
        raise Refused(refused)
    return warned0 + warned + warned2
