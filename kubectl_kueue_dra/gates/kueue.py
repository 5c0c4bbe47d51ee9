"""Kueue's DRA gates: defaults per Kueue version, the flag and configuration that set them, and the
settings that stop Kueue from starting (research kueue-dra.md §1)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any

from .kueue_gate_table import gate_table
from .versions import DEFAULT_KUEUE_MINOR, kueue_minor
from .model import DRA_CONSUMABLE, DRA_EXTENDED, DRA_PARTITIONABLE, OFF, GateState, state_of

KUEUE_DRA = "KueueDRAIntegration"
KUEUE_EXTENDED = "KueueDRAIntegrationExtendedResource"
KUEUE_PARTITIONABLE = "KueueDRAIntegrationPartitionableDevices"
KUEUE_CONSUMABLE = "KueueDRAIntegrationConsumableCapacity"
KUEUE_REJECT = "KueueDRARejectWorkloadsWhenDRADisabled"
KUEUE_GATES = (KUEUE_DRA, KUEUE_EXTENDED, KUEUE_PARTITIONABLE, KUEUE_CONSUMABLE, KUEUE_REJECT)
#: the Kubernetes gate each Kueue sub-gate's path needs
KUEUE_NEEDS_K8S = {KUEUE_EXTENDED: DRA_EXTENDED, KUEUE_PARTITIONABLE: DRA_PARTITIONABLE,
                   KUEUE_CONSUMABLE: DRA_CONSUMABLE}

# (major, minor) → (stage, default); research kueue-dra.md §1 and pkg/features/kube_features.go.
_KUEUE_SPECS: dict[str, dict[tuple[int, int], tuple[str, bool]]] = {
    KUEUE_DRA: {(0, 18): ("BETA", True)},
    KUEUE_EXTENDED: {(0, 18): ("ALPHA", False), (0, 19): ("BETA", True)},
    KUEUE_PARTITIONABLE: {(0, 18): ("ALPHA", False), (0, 19): ("BETA", True)},
    KUEUE_CONSUMABLE: {(0, 19): ("ALPHA", False)},
    KUEUE_REJECT: {(0, 18): ("BETA", True)},
}
# Gate names Kueue 0.14–0.17 used; 0.18 locked them to false, 0.19 removed them.
OBSOLETE_KUEUE_GATES = {"DynamicResourceAllocation": KUEUE_DRA, "DRAExtendedResources": KUEUE_EXTENDED}
_OBSOLETE_SPECS: dict[str, dict[tuple[int, int], tuple[str, bool] | None]] = {
    "DynamicResourceAllocation": {(0, 14): ("ALPHA", False), (0, 18): ("DEPRECATED", False), (0, 19): None},
    "DRAExtendedResources": {(0, 17): ("ALPHA", False), (0, 18): ("DEPRECATED", False), (0, 19): None},
}
#: the Kueue minor assumed when the installation's version cannot be read
ASSUMED_KUEUE_VERSION = DEFAULT_KUEUE_MINOR


def _spec_at(specs: dict[tuple[int, int], Any], v: tuple[int, int]) -> Any:
    known = [k for k in specs if k <= v]
    return specs[max(known)] if known else None


def kueue_default(gate: str, version: tuple[int, int]) -> tuple[str, bool] | None:
    """(stage, default) of a Kueue DRA gate; before 0.18 the old names stand in for the first two."""
    if version < (0, 18):
        old = next((o for o, new in OBSOLETE_KUEUE_GATES.items() if new == gate), None)
        return _spec_at(_OBSOLETE_SPECS[old], version) if old else None
    return _spec_at(_KUEUE_SPECS[gate], version)


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

    for old, new in OBSOLETE_KUEUE_GATES.items():
        if old not in settings:
            continue
        spec = _spec_at(_OBSOLETE_SPECS[old], v)
        if spec is None and v >= (0, 19) and old in gate_table("0.19"):
            problems.append(GateProblem("warning", f"{where} sets {old}, which Kueue 0.19 knows only as the "
                                                   "Kubernetes gate of that name (locked on): it does not turn "
                                                   f"on Kueue's DRA support; that is {new}", old))
        elif spec is None and v >= (0, 19):
            problems.append(GateProblem("error", f"{where} sets {old}, a gate Kueue 0.19 no longer knows: "
                                                 f"Kueue refuses to start (\"unrecognized feature gate: "
                                                 f"{old}\"); it is now {new}", old))
        elif spec is not None and spec[0] == "DEPRECATED":
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
        if v < (0, 18):
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
        for gate in (KUEUE_EXTENDED, KUEUE_PARTITIONABLE, KUEUE_CONSUMABLE):
            if gates[gate].on:
                problems.append(GateProblem("error", f"{gate} requires {KUEUE_DRA} to be enabled: Kueue "
                                                     "refuses to start", gate))
    return KueueGates(v, parsed is None, gates, problems, source)


def sources_problems(gates: KueueGates, *, counter_sources: bool, capacity_sources: bool) -> list[GateProblem]:
    """Configuration that Kueue's startup validation rejects because a gate is off."""
    problems = []
    if counter_sources and not gates.on(KUEUE_PARTITIONABLE):
        problems.append(GateProblem("error", "deviceClassMappings has counter sources but "
                                             f"{KUEUE_PARTITIONABLE} is off: Kueue refuses to start "
                                             "(\"counter sources require KueueDRAIntegrationPartitionable"
                                             "Devices to be enabled\")", KUEUE_PARTITIONABLE))
    if capacity_sources and not gates.on(KUEUE_CONSUMABLE):
        problems.append(GateProblem("error", "deviceClassMappings has capacity sources but "
                                             f"{KUEUE_CONSUMABLE} is off: Kueue refuses to start "
                                             "(\"capacity sources require KueueDRAIntegrationConsumable"
                                             "Capacity to be enabled\")", KUEUE_CONSUMABLE))
    return problems
