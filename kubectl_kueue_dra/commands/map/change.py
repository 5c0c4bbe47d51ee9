"""``map set`` / ``map remove`` as a service: validate the request, find the target, check the
change, read-modify-write, say what changed and what happens next.

The edit itself is a pure function of the current list (``kueue/config/mapping_edits``); it is
applied to a fresh read on every attempt, and validated each time, so a retry after a conflict
never writes a list that was validated against an older state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import gates as g
from ...errors import UsageError, UserError
from ...findings import codes as F
from ...k8s.objects import object_text, unified_diff
from ...kube.view import ClusterView
from ...kueue.config.load import CONFIG_KEY, KueueConfig
from ...kueue.config.mapping_edits import current_mappings, remove_mapping, set_mapping, with_object_mappings
from ...kueue.config.mapping_rules import Violation, new_violations, validate
from ...kueue.config.mappings import Source, parse_mappings
from ...kueue.install import flags
from ...kueue.install.command import cli_of, document_for_cli, error_for_cli
from ...kueue.install.fix_rights import with_rights
from ...kueue.install.platform import read_cluster_version
from ...kueue.install.rollout import next_steps
from ...kueue.install.target import TargetFacts
from ..probes import gate_states_now
from .honour import ClusterFacts, Wanted, judge, needed_gates
from .target import find_target, target_facts

Edit = Callable[[list[Any], str], list[Any]]  # (current raw list, dialect) -> new raw list


class ValidationFailed(UserError):
    def __init__(self, violations: list[Violation], checked: str):
        first = violations[0]
        more = "".join(f"; {v}" for v in violations[1:])
        super().__init__(f"refused, nothing written: {first}{more} (rules of {checked})",
                         first.fix)
        self.violations = violations


@dataclass(kw_only=True)
class ChangeRequest:
    """``map set NAME`` / ``map remove NAME`` as given on the command line."""

    action: str  # "set" | "remove"
    mapping: str
    device_classes: list[str] = field(default_factory=list)
    counter: str | None = None
    capacity: str | None = None
    driver: str | None = None
    selector: str | None = None
    dry_run: str = "none"  # none | client | server
    kueue_namespace: str | None = None
    kueue_version: str | None = None
    restart: bool = False
    timeout: str = "5m"
    #: set: a DeviceClass that does not exist yet is fine (it comes later)
    allow_missing_class: bool = False
    #: set: replacing the mapping may drop classes or its source
    replace: bool = False
    #: set: a source whose Kubernetes gate is off on the API server (it is turned on later)
    allow_gate_off: bool = False
    sources: list[Source] = field(default_factory=list)  # set by validate()
    timeout_seconds: float = 300.0  # set by validate()

    def validate(self) -> ChangeRequest:
        """Check the flags together (usage errors, exit 2) and complete the derived fields."""
        if self.restart and self.dry_run != "none":
            raise UsageError("--restart cannot be combined with --dry-run")
        self.device_classes = list(dict.fromkeys(self.device_classes))
        self.sources = _sources(self.counter, self.capacity, self.driver, self.selector)
        if self.action == "remove" and self.sources:
            raise UsageError("map remove takes no source flags")
        if self.action == "remove" and (self.allow_missing_class or self.replace or self.allow_gate_off):
            raise UsageError("--allow-missing-class, --allow-gate-off and --replace are flags of map set")
        if self.allow_gate_off and not self.sources:
            raise UsageError("--allow-gate-off accepts a counter or capacity source whose gate is off: give "
                             "--counter or --capacity with it")
        flags.kueue_namespace(self.kueue_namespace)
        flags.kueue_version(self.kueue_version)
        self.timeout_seconds = flags.duration(self.timeout, "--timeout", 300.0)
        return self

    def edit(self, raw: list[Any], dialect: str) -> list[Any]:
        """The change, as a pure function of the current raw mapping list."""
        if self.action == "set":
            return set_mapping(raw, self.mapping, self.device_classes, self.sources, dialect)
        return remove_mapping(raw, self.mapping, self.device_classes or None)


def _sources(counter: str | None, capacity: str | None, driver: str | None,
             selector: str | None) -> list[Source]:
    if counter and capacity:
        raise UsageError("--counter and --capacity are exclusive: one source per mapping")
    kind, source_name = ("counter", counter) if counter else ("capacity", capacity)
    if not source_name:
        if driver or selector:
            raise UsageError("--driver and --selector describe a source: give --counter NAME or "
                             "--capacity NAME with them")
        return []
    if not driver or not selector:
        raise UsageError(f"--{kind} needs --driver DRIVER and --selector CEL (e.g. "
                         "\"device.driver == 'gpu.nvidia.com'\")")
    return [Source(kind, source_name, driver, selector)]


@dataclass
class _Attempt:
    """What the last modify() saw: the warnings to report and whether the text kept its form."""
    warnings: list[Violation] = field(default_factory=list)
    existing: list[Violation] = field(default_factory=list)
    preserved: bool = True
    before_raw: list[Any] = field(default_factory=list)
    after_raw: list[Any] = field(default_factory=list)
    cluster: list[Violation] = field(default_factory=list)  # what the cluster may not honour (honour.py)


# ---- the change -----------------------------------------------------------------------------

def _modifier(config: KueueConfig, facts: TargetFacts, edit: Edit, seen: _Attempt,
              judge: Callable[[list[Any]], list[Violation]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    rules = facts.rules

    def modify(obj: dict[str, Any]) -> dict[str, Any]:
        minor = rules.kueue_minor
        raw = current_mappings(obj, str(config.kind), None if minor is None else f"0.{minor}")
        new_raw = edit(raw, rules.dialect)
        seen.before_raw, seen.after_raw = raw, new_raw
        if new_raw == raw:
            return obj
        added, existing = new_violations(validate(raw, rules), validate(new_raw, rules))
        refused = [v for v in added if v.severity == "error"]
        if refused:
            raise ValidationFailed(refused, rules.describe())
        seen.warnings = [v for v in added if v.severity != "error"]
        seen.existing = existing
        seen.cluster = judge(raw)  # raises Refused
        result = with_object_mappings(obj, str(config.kind), new_raw)
        seen.preserved = result.preserved
        return result.obj
    return modify


def _summary(req: ChangeRequest, config: KueueConfig, seen: _Attempt, changed: bool) -> str:
    where = config.describe()
    if not changed:
        return f"{where}: mapping {req.mapping} is already as requested; nothing to change."
    before = {e.get("name"): e for e in seen.before_raw if isinstance(e, dict)}
    after = {e.get("name"): e for e in seen.after_raw if isinstance(e, dict)}
    if req.mapping not in after:
        what = "removed"
    elif req.mapping not in before:
        what = "added"
    else:
        what = "updated"
    suffix = {"client": " (dry run: nothing sent)",
              "server": " (server dry run: accepted, nothing written)"}.get(req.dry_run, "")
    return f"{where}: mapping {req.mapping} {what}{suffix}."


def _diff(config: KueueConfig, before: dict[str, Any], after: dict[str, Any]) -> str:
    if config.kind == "ConfigMap":
        label = f"ConfigMap {config.namespace}/{config.name} {CONFIG_KEY}"
        return unified_diff(before["data"][CONFIG_KEY], after.get("data", {}).get(CONFIG_KEY, ""),
                            label)
    return unified_diff(object_text(before), object_text(after), config.describe())


def _warnings(seen: _Attempt, facts: TargetFacts) -> list[dict[str, Any]]:
    out = [v.finding("warning") for v in seen.warnings + seen.cluster]
    out += [v.finding("warning", f"{v.text}; this was already so before the change and "
                      f"{facts.rules.describe()} still rejects it") for v in seen.existing]
    if not seen.preserved:
        out.append(F.ConfigReformatted.make("the configuration text could not be edited in place, so it was "
                                            "written out again: its content is unchanged apart from the mappings, "
                                            "but comments and formatting are lost"))
    return out


def _run(view: ClusterView, config: KueueConfig, modify: Callable[[dict[str, Any]], dict[str, Any]],
         req: ChangeRequest) -> Any:
    from ...kube.writes import ObjectWriter, WriteResult, read_modify_write

    kind, name, namespace = str(config.kind), str(config.name), config.namespace
    if not view.live:  # a snapshot: compute the change, send nothing
        before = view.get(kind, name, namespace)
        if before is None:
            raise UserError(f"{config.describe()} is not in the snapshot")
        after = modify(copy.deepcopy(before))
        return WriteResult(before, after, changed=after != before, sent=False)
    writer = ObjectWriter(view, kind)  # type: ignore[arg-type]
    if req.dry_run == "client":
        before = writer.read(name, namespace)
        after = modify(copy.deepcopy(before))
        return WriteResult(before, after, changed=after != before, sent=False)
    return read_modify_write(lambda: writer.read(name, namespace),
                             lambda obj: modify(copy.deepcopy(obj)),
                             lambda obj: writer.replace(obj, dry_run=req.dry_run == "server"),
                             clock=writer.clock)


def _judge(view: ClusterView, req: ChangeRequest,
           config: KueueConfig) -> Callable[[list[Any]], list[Violation]]:
    """What the cluster would not honour in the change (``honour``), against the list as read."""
    if req.action != "set":
        return lambda raw: []
    wanted = Wanted(name=req.mapping, classes=tuple(req.device_classes), sources=tuple(req.sources),
                    allow_missing_class=req.allow_missing_class, replace=req.replace,
                    allow_gate_off=req.allow_gate_off)
    classes, classes_unknown = _read(view, "DeviceClass", needed=not req.allow_missing_class)
    slices, slices_unknown = _read(view, "ResourceSlice", needed=bool(req.sources))
    gates = needed_gates(req.sources)
    states = gate_states_now(view, gates, probe=True) if gates else {}
    facts = ClusterFacts(device_classes=classes, device_classes_unknown=classes_unknown, slices=slices,
                         slices_unknown=slices_unknown, gates=states, how_on=_how_on(view, config, gates))
    return lambda raw: judge(wanted, raw, facts)


def _how_on(view: ClusterView, config: KueueConfig, gates: list[str]) -> dict[str, str]:
    """How each gate is turned on where this Kueue runs: the FeatureGate on OpenShift (the operator's
    Kueue CR), else the components' flag."""
    if config.kind != "Kueue":
        return {gate: "kube-apiserver, kube-controller-manager, kube-scheduler and every kubelet: "
                      f"--feature-gates={gate}=true" for gate in gates}
    release = g.release_of(read_cluster_version(view).version)
    return {gate: g.enabling_feature_sets(gate, release) or ("OpenShift: FeatureGate cluster, featureSet "
                                                              f"CustomNoUpgrade with {gate} in spec.customNoUpgrade."
                                                              "enabled") for gate in gates}


def _read(view: ClusterView, kind: str, needed: bool) -> tuple[list[dict[str, Any]] | None, str | None]:
    if not needed:
        return None, "not needed"
    if view.live and not view.serves(kind):
        return [], None
    found = view.try_list(kind)
    if found is None:
        return None, view.forbidden(kind) or f"{kind} could not be read"
    if not view.live and not found and kind == "DeviceClass":
        return None, "the snapshot has no DeviceClass objects"
    return found, None


def apply_change(view: ClusterView, req: ChangeRequest) -> tuple[dict[str, Any], UserError | None]:
    """Make the change (or its dry run); return the document to print, and the error of a
    rollout that did not complete after the write (the change itself is then already made)."""
    if not view.live and req.dry_run != "client":
        raise UsageError("--from reads an offline snapshot: a change against it needs "
                         "--dry-run=client")
    config = find_target(view, req.kueue_namespace)
    try:
        return _apply(view, req, config)
    except UserError as e:  # a refusal's commands, written for the platform as every fix is
        raise error_for_cli(e, cli_of(view, config)) from None


def refusal_document(e: Any) -> dict[str, Any]:
    """What -o json/yaml prints for a refused change (``Refused``): nothing changed, every finding."""
    return document_for_cli({"changed": False, "written": False,
                             "findings": [v.finding("error") for v in e.violations]}, e.cli)


def _apply(view: ClusterView, req: ChangeRequest, config: KueueConfig) -> tuple[dict[str, Any], UserError | None]:
    facts = target_facts(view, config, req.kueue_version)
    seen = _Attempt()
    result = _run(view, config, _modifier(config, facts, req.edit, seen, _judge(view, req, config)), req)
    written = result.sent and req.dry_run == "none"
    findings = _warnings(seen, facts) if result.changed else []
    after_raw = seen.after_raw if result.changed else seen.before_raw
    doc: dict[str, Any] = {
        "target": config.target(),
        "source": view.source,
        "action": req.action,
        "mapping": req.mapping,
        "dryRun": None if req.dry_run == "none" else req.dry_run,
        "changed": result.changed,
        "written": written,
        "attempts": result.attempts,
        "resourceVersion": (result.after.get("metadata") or {}).get("resourceVersion") if written else None,
        "kueueVersion": facts.kueue_version,
        "checkedWith": {"rules": facts.rules.describe(), "notes": facts.notes},
        "kueueInstallation": facts.installation.to_json() if facts.installation else None,
        "summary": _summary(req, config, seen, result.changed),
        "diff": _diff(config, result.before, result.after) if result.changed else "",
        "mappings": [m.to_json() for m in parse_mappings(after_raw)],
        "findings": findings,
    }
    late_error = None
    if written:
        try:
            doc["findings"] += next_steps(view, config, result.after, restart=req.restart,
                                          timeout=req.timeout_seconds)
        except UserError as e:
            late_error = e
            doc["findings"].append(F.RolloutNotComplete.make(e.message, variant="" if e.hint else "no-hint",
                                                             hint=e.hint))
    return with_rights(document_for_cli(doc, cli_of(view, config)), view, config), late_error


