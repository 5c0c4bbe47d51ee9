"""Kueue's DRA gates: defaults per Kueue version, the flag and configuration that set them, and the
settings that stop Kueue from starting (research kueue-dra.md §1)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Mapping
from typing import Any

from .kueue_gate_table import GateSpec, gate_table
from .versions import DEFAULT_KUEUE_MINOR, KUEUE_MINORS, known_minor, kueue_minor, minor_text
from .model import DRA_CONSUMABLE, DRA_EXTENDED, DRA_PARTITIONABLE, OFF, GateState, state_of

KUEUE_DRA = "KueueDRAIntegration"
KUEUE_EXTENDED = "KueueDRAIntegrationExtendedResource"
KUEUE_PARTITIONABLE = "KueueDRAIntegrationPartitionableDevices"
KUEUE_CONSUMABLE = "KueueDRAIntegrationConsumableCapacity"
KUEUE_REJECT = "KueueDRARejectWorkloadsWhenDRADisabled"


@dataclass(frozen=True, kw_only=True)
class KueueDRAGate:
    """One of Kueue's DRA gates and what it is tied to (its default in each Kueue version is the
    gate registry's, ``kueue_gate_table``)."""

    name: str
    needs: str | None = None  # the Kubernetes gate its path needs (it then also needs KueueDRAIntegration)
    sources: str | None = None  # the deviceClassMappings source kind Kueue accepts only with it on
    operator_writes: bool = False  # the OpenShift operator writes it when FeatureGate spec enables ``needs``


#: Kueue's DRA gates, the one table of what each needs and gates
KUEUE_DRA_GATES: tuple[KueueDRAGate, ...] = (
    KueueDRAGate(name=KUEUE_DRA),
    KueueDRAGate(name=KUEUE_EXTENDED, needs=DRA_EXTENDED, operator_writes=True),
    KueueDRAGate(name=KUEUE_PARTITIONABLE, needs=DRA_PARTITIONABLE, sources="counter", operator_writes=True),
    KueueDRAGate(name=KUEUE_CONSUMABLE, needs=DRA_CONSUMABLE, sources="capacity"),
    KueueDRAGate(name=KUEUE_REJECT),
)
KUEUE_GATES = tuple(g.name for g in KUEUE_DRA_GATES)
#: the Kubernetes gate each Kueue sub-gate's path needs
KUEUE_NEEDS_K8S = {g.name: g.needs for g in KUEUE_DRA_GATES if g.needs}
#: source kind → the gate Kueue's start-up validation requires for sources of that kind
SOURCE_GATES = {g.sources: g.name for g in KUEUE_DRA_GATES if g.sources}
#: Kubernetes gate → the Kueue gate the OpenShift operator writes when FeatureGate spec enables it
OPERATOR_WRITES = {g.needs: g.name for g in KUEUE_DRA_GATES if g.operator_writes and g.needs}

# Gate names Kueue 0.14–0.17 used; 0.18 locked them to false, 0.19 removed them (the registry of
# 0.19 knows DynamicResourceAllocation only as the Kubernetes gate it links).
OBSOLETE_KUEUE_GATES = {"DynamicResourceAllocation": KUEUE_DRA, "DRAExtendedResources": KUEUE_EXTENDED}
#: what the gate registry does not hold: the old names in the versions before its first minor
_BEFORE_REGISTRY: dict[str, dict[tuple[int, int], tuple[str, bool]]] = {
    "DynamicResourceAllocation": {(0, 14): ("ALPHA", False)},
    "DRAExtendedResources": {(0, 17): ("ALPHA", False)},
}
#: the Kueue minor assumed when the installation's version cannot be read
ASSUMED_KUEUE_VERSION = DEFAULT_KUEUE_MINOR


def registry(version: tuple[int, int]) -> Mapping[str, GateSpec] | None:
    """Every gate of the Kueue binary of ``version`` (a newer minor: the newest known one's);
    None before the first minor the registry holds."""
    if version < KUEUE_MINORS[0]:
        return None
    return gate_table(minor_text(known_minor(version)))


def kueue_default(gate: str, version: tuple[int, int]) -> tuple[str, bool] | None:
    """(stage, default) of a Kueue gate in a Kueue version; None: the gate does not exist there.
    Before the registry's first minor the old names stand in for the first two DRA gates."""
    gates = registry(version)
    if gates is None:
        old = next((o for o, new in OBSOLETE_KUEUE_GATES.items() if new == gate), None)
        specs = _BEFORE_REGISTRY.get(old or "", {})
        known = [k for k in specs if k <= version]
        return specs[max(known)] if known else None
    spec = gates.get(gate)
    return (spec.stage, spec.default) if spec else None


def default_on(gate: str, version: tuple[int, int]) -> bool | None:
    """Whether ``gate`` is on by default in a Kueue version (None: it does not exist there)."""
    found = kueue_default(gate, version)
    return None if found is None else found[1]


def source_refusal(kind: str) -> str:
    """Kueue's start-up error for ``kind`` sources without their gate (``pkg/config/validation.go``)."""
    return f"{kind} sources require {SOURCE_GATES[kind]} to be enabled"


_TRUE = {"1", "t", "T", "true", "TRUE", "True"}
_FALSE = {"0", "f", "F", "false", "FALSE", "False"}


def parse_gate_list(text: str) -> tuple[dict[str, bool], list[str]]:
    """``A=true,B=false`` (component-base's flag syntax) → ({A: True, B: False}, problems)."""
    gates: dict[str, bool] = {}
    problems = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or value not in _TRUE | _FALSE:
            problems.append(f"--feature-gates entry {part!r} is not NAME=true|false")
            continue
        gates[name] = value in _TRUE
    return gates, problems


def feature_gates_arg(args: list[str]) -> str | None:
    """The value of ``--feature-gates`` in a container's command/args (the last one wins)."""
    value = None
    for i, arg in enumerate(args):
        if arg.startswith("--feature-gates="):
            value = arg.split("=", 1)[1]
        elif arg == "--feature-gates" and i + 1 < len(args):
            value = args[i + 1]
    return value


def config_gate_map(raw: Any) -> tuple[dict[str, bool] | None, list[str]]:
    """A Configuration's ``featureGates`` map; values must be booleans."""
    if raw is None:
        return None, []
    if not isinstance(raw, dict):
        return {}, ["featureGates is not a map of gate names to true/false"]
    gates, problems = {}, []
    for name, value in raw.items():
        if isinstance(value, bool):
            gates[str(name)] = value
        else:
            problems.append(f"featureGates.{name} is {value!r}, not true/false")
    return gates, problems


@dataclass(frozen=True)
class GateProblem:
    severity: str  # "error": Kueue does not start; "warning"
    message: str
    gate: str | None = None


@dataclass
class KueueGates:
    version: tuple[int, int]
    version_assumed: bool
    gates: dict[str, GateState]
    problems: list[GateProblem]
    settings_source: str | None  # "kueue-args" | "kueue-config" | "operator" | None

    def on(self, gate: str) -> bool:
        return self.gates[gate].on

    def to_json(self) -> dict[str, Any]:
        return {"assumedVersion": self.version_assumed, "settingsFrom": self.settings_source,
                "gates": [g.to_json() for g in self.gates.values()],
                "problems": [{"severity": p.severity, "message": p.message, "gate": p.gate}
                             for p in self.problems]}


def derive_kueue_gates(version: str | None, *, cli: str | None = None,
                       config: dict[str, bool] | None = None, config_source: str = "kueue-config",
                       config_where: str = "featureGates", problems_in: Iterable[str] = ()) -> KueueGates:
    """Kueue's effective DRA gates. ``cli`` is the ``--feature-gates`` value (Kueue then ignores
    the config map, and refuses to start when both are set); ``config`` the featureGates map
    (``config_source`` "operator" when derived from the OpenShift operator's logic)."""
    parsed = kueue_minor(version)
    v = parsed or ASSUMED_KUEUE_VERSION
    problems = [GateProblem("error", p) for p in problems_in]
    settings: dict[str, bool] = {}
    source, where = None, ""
    if cli is not None:
        settings, cli_problems = parse_gate_list(cli)
        problems += [GateProblem("error", p) for p in cli_problems]
        source, where = "kueue-args", "--feature-gates"
        if config is not None:
            problems.append(GateProblem("error", "feature gates are set both by --feature-gates and in the "
                                                 "configuration's featureGates: Kueue refuses to start "
                                                 "(\"feature gates for CLI and configuration cannot both "
                                                 "specified\")"))
    elif config is not None:
        settings, source, where = dict(config), config_source, config_where

    # AllAlpha / AllBeta set every alpha / beta gate not named explicitly.
    bulk = {stage: settings.pop(key) for key, stage in (("AllAlpha", "ALPHA"), ("AllBeta", "BETA"))
            if key in settings}

    known = registry(v)
    for old, new in OBSOLETE_KUEUE_GATES.items():
        if old not in settings or known is None:  # before the registry the old names are Kueue's own
            continue
        registered = known.get(old)
        if registered is not None and registered.stage != "DEPRECATED":
            problems.append(GateProblem("warning", f"{where} sets {old}, which Kueue 0.19 knows only as the "
                                                   "Kubernetes gate of that name (locked on): it does not turn "
                                                   f"on Kueue's DRA support; that is {new}", old))
        elif registered is None:
            problems.append(GateProblem("error", f"{where} sets {old}, a gate Kueue 0.19 no longer knows: "
                                                 f"Kueue refuses to start (\"unrecognized feature gate: "
                                                 f"{old}\"); it is now {new}", old))
        else:
            if settings[old]:
                problems.append(GateProblem("error", f"{where} sets {old}=true, which Kueue 0.18 locks to "
                                                     f"false: Kueue refuses to start; use {new}", old))
            else:
                problems.append(GateProblem("warning", f"{where} sets {old}, renamed {new} in Kueue 0.18; "
                                                       "Kueue 0.19 refuses to start with it", old))

    gates: dict[str, GateState] = {}
    label = ".".join(map(str, v)) + (" (version unknown, assumed)" if parsed is None else "")
    for gate in KUEUE_GATES:
        spec = kueue_default(gate, v)
        lookup = gate
        if registry(v) is None:
            lookup = next((o for o, n in OBSOLETE_KUEUE_GATES.items() if n == gate), gate)
        if lookup in settings and source:
            value = settings[lookup]
            detail = f"{lookup}={str(value).lower()} in {where}"
            gates[gate] = GateState(gate, state_of(value), source, detail)
        elif spec is None:
            gates[gate] = GateState(gate, OFF, "kueue-default", f"does not exist in Kueue {label}")
        elif spec[0] in bulk and source:
            value = bulk[spec[0]]
            gates[gate] = GateState(gate, state_of(value), source,
                                    f"All{spec[0].title()}={str(value).lower()} in {where}")
        else:
            stage, default = spec
            gates[gate] = GateState(gate, state_of(default), "kueue-default",
                                    f"{stage.lower()}, {'on' if default else 'off'} by default in Kueue {label}")
    if gates[KUEUE_DRA].state == OFF:
        for gate in KUEUE_NEEDS_K8S:
            if gates[gate].on:
                problems.append(GateProblem("error", f"{gate} requires {KUEUE_DRA} to be enabled: Kueue "
                                                     "refuses to start", gate))
    return KueueGates(v, parsed is None, gates, problems, source)


def sources_problems(gates: KueueGates, *, counter_sources: bool, capacity_sources: bool) -> list[GateProblem]:
    """Configuration that Kueue's startup validation rejects because a gate is off."""
    problems = []
    for kind, present in (("counter", counter_sources), ("capacity", capacity_sources)):
        gate = SOURCE_GATES[kind]
        if present and not gates.on(gate):
            problems.append(GateProblem("error", f"deviceClassMappings has {kind} sources but {gate} is off: "
                                                 f"Kueue refuses to start (\"{source_refusal(kind)}\")", gate))
    return problems
