"""Info lines: the state of every DRA gate no check of the run reports, Kubernetes' (DynamicResource-
Allocation and every DRA* gate) and Kueue's, so that an admin preparing the next path sees where
it stands (DRAPartitionableDevices on, no counter mapping yet)."""

from __future__ import annotations

from ... import gates as g
from .facts import Facts
from .kubernetes import openshift_note
from .kueue import _unknown
from .model import EXTENDED, INFO, PARTITIONABLE, SKIP, Check

#: the path whose checks report a gate's state when that path is checked: a Kubernetes gate's, and
#: a Kueue gate's that of the Kubernetes gate it needs (gates.KUEUE_NEEDS_K8S)
_K8S_GATE_PATH = {g.DRA_EXTENDED: EXTENDED, g.DRA_PARTITIONABLE: PARTITIONABLE, g.DRA_CONSUMABLE: PARTITIONABLE}
GATE_PATH = {**_K8S_GATE_PATH, **{gate: _K8S_GATE_PATH[needs] for gate, needs in g.KUEUE_NEEDS_K8S.items()}}


def _paths_unknown(f: Facts) -> str | None:
    """Why the paths in use are unknown (Kueue's configuration could not be read and no --path
    named them), else None: a path gate's line is then a skip, not a statement about the path."""
    if f.paths_given:
        return None
    unknown = _unknown(f)
    return unknown.message if unknown is not None else None


def _status(f: Facts, name: str) -> str:
    return SKIP if name in GATE_PATH and _paths_unknown(f) else INFO


def _line(f: Facts, state: g.GateState) -> str:
    if state.state == g.UNKNOWN:
        tried = ", ".join(dict.fromkeys(g.METHOD_LABELS.get(e.method, e.method) for e in state.evidence))
        text = f"{state.name}: unknown (nothing could tell: {tried or 'no source'}; -o json has each reason)"
    else:
        text = f"{state.name} is {state.state} ({state.how()})"
    text += openshift_note(f, state.name)
    path = GATE_PATH.get(state.name)
    why = _paths_unknown(f) if path else None
    if path and why:
        text += f"; whether the {path} path is in use is unknown ({why})"
    elif path and path not in f.paths:
        text += f"; the {path} path needs it and is not checked here"
    elif path:
        text += "; no mapping has capacity sources yet"
    return text


def _extra(state: g.GateState) -> dict[str, object]:
    return {"gate": state.name, "state": state.state, "learnedFrom": state.learned_from}


def kubernetes_lines(f: Facts, reported: set[str]) -> list[Check]:
    """One line per gate whose state is known; the unknown ones of no path share one line (a
    snapshot tells none of them)."""
    lines, unknown = [], []
    for name, state in f.k8s_gates.items():
        if name in reported:
            continue
        if state.state == g.UNKNOWN and name not in GATE_PATH:
            unknown.append(state)
        else:
            lines.append(Check(f"gate-{name}", _status(f, name), _line(f, state), None, "gates", _extra(state)))
    if unknown:
        tried = ", ".join(dict.fromkeys(g.METHOD_LABELS.get(e.method, e.method) for s in unknown for e in s.evidence))
        lines.append(Check("gate-others", INFO, f"unknown (nothing could tell: {tried}; -o json has each reason): "
                                                + ", ".join(s.name for s in unknown), None, "gates",
                           {"gates": [s.name for s in unknown], "state": g.UNKNOWN}))
    return lines


def kueue_lines(f: Facts, reported: set[str]) -> list[Check]:
    if f.live and not f.kueue_served:
        return []  # Kueue is not installed: kueue-installed says so, its gates have no state
    lines = []
    for name, state in f.kueue_gates.gates.items():
        if name in reported:
            continue
        unknown = _unknown(f, name)
        if unknown is not None:  # what the Kueue gate checks answer too: a skip with the reason
            lines.append(Check(f"kueue-gate-{name}", SKIP, f"{name}: unknown ({unknown.message})", None, "kueue",
                               {"gate": name, "state": g.UNKNOWN, "learnedFrom": None}))
        else:
            lines.append(Check(f"kueue-gate-{name}", _status(f, name), _line(f, state), None, "kueue",
                               _extra(state)))
    return lines
