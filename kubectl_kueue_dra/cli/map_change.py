"""``map set`` / ``map remove``: find the target, validate, read-modify-write, say what changed
and what happens next.

The edit itself is a pure function of the current list (``kueue/mapping_edits``); it is applied to
a fresh read on every attempt, and validated each time, so a retry after a conflict never writes
a list that was validated against an older state.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import UsageError, UserError
from ..findings import finding
from ..kube import errors as kube_errors
from ..kube.view import ClusterView
from ..kueue.config import CONFIG_KEY, DEPLOYMENT_NAME, OPENSHIFT_CR_NAME, KueueConfig, load_kueue_config
from ..kueue.mapping_edits import current_mappings, with_object_mappings
from ..kueue.mapping_rules import Violation, new_violations, validate
from ..kueue.mappings import parse_mappings
from ..kueue.installation import installation_of
from ..kueue.target import OPERATOR_ANNOTATION, OPERATOR_NAMESPACE, TargetFacts, operator_managed_reason
from ..kueue.target import target_facts as rules_of
from ..render.map import object_text, target_text, unified_diff

Edit = Callable[[list[Any], str], list[Any]]  # (current raw list, dialect) -> new raw list


class ValidationFailed(UserError):
    def __init__(self, violations: list[Violation], checked: str):
        first = violations[0]
        more = "".join(f"; {v}" for v in violations[1:])
        super().__init__(f"refused, nothing written: {first}{more} (rules of {checked})",
                         first.fix)
        self.violations = violations


@dataclass
class ChangeRequest:
    action: str  # "set" | "remove"
    mapping: str
    edit: Edit
    dry_run: str = "none"  # none | client | server
    kueue_namespace: str | None = None
    kueue_version: str | None = None
    restart: bool = False
    timeout: float = 300.0


@dataclass
class _Attempt:
    """What the last modify() saw: the warnings to report and whether the text kept its form."""
    warnings: list[Violation] = field(default_factory=list)
    existing: list[Violation] = field(default_factory=list)
    preserved: bool = True
    before_raw: list[Any] = field(default_factory=list)
    after_raw: list[Any] = field(default_factory=list)


# ---- the target -----------------------------------------------------------------------------

def find_target(view: ClusterView, kueue_namespace: str | None) -> KueueConfig:
    config = load_kueue_config(view, kueue_namespace)
    if not config.found:
        if view.unreadable:
            raise view.unreadable[0]
        if kueue_namespace is None and view.serves("Kueue"):
            raise UserError(
                f"the Kueue CR {OPENSHIFT_CR_NAME} (kueues.kueue.openshift.io) does not exist, so "
                "there is nowhere to put deviceClassMappings",
                "create it first: a Kueue named cluster with spec.config.integrations.frameworks "
                "(e.g. [BatchJob]); the operator then installs Kueue")
        raise UserError(f"Kueue's configuration was not found: {config.problem}",
                        "install Kueue, or pass --kueue-namespace NS where its "
                        f"{DEPLOYMENT_NAME} Deployment runs")
    if config.problem:
        raise UserError(config.problem, "fix the configuration by hand first")
    if config.kind == "ConfigMap":
        cr_exists = view.serves("Kueue") and view.try_get("Kueue", OPENSHIFT_CR_NAME) is not None
        reason = operator_managed_reason(config, kueue_cr_exists=cr_exists)
        if reason:
            raise UserError(
                f"refusing to edit ConfigMap {config.namespace}/{config.name}: the OpenShift Kueue "
                f"operator owns it ({reason}) and overwrites any edit",
                "change the Kueue CR instead: run the same command without --kueue-namespace")
    return config


def target_facts(view: ClusterView, config: KueueConfig, kueue_version: str | None) -> TargetFacts:
    installation = installation_of(view, config, kueue_version=kueue_version)
    return rules_of(installation, view.try_list("DeviceClass"))


# ---- the change -----------------------------------------------------------------------------

def _modifier(config: KueueConfig, facts: TargetFacts, edit: Edit, seen: _Attempt) -> \
        Callable[[dict[str, Any]], dict[str, Any]]:
    rules = facts.rules

    def modify(obj: dict[str, Any]) -> dict[str, Any]:
        raw = current_mappings(obj, config.kind)
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
        result = with_object_mappings(obj, config.kind, new_raw)
        seen.preserved = result.preserved
        return result.obj
    return modify


def _summary(req: ChangeRequest, config: KueueConfig, seen: _Attempt, changed: bool) -> str:
    where = target_text(config.target())
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
    return unified_diff(object_text(before), object_text(after), target_text(config.target()))


def _warnings(seen: _Attempt, facts: TargetFacts) -> list[dict[str, Any]]:
    out = [finding("warning", v.rule, v.text, v.fix) for v in seen.warnings]
    out += [finding("warning", v.rule, f"{v.text}; this was already so before the change and "
                    f"{facts.rules.describe()} still rejects it", v.fix) for v in seen.existing]
    if not seen.preserved:
        out.append(finding("warning", "ConfigReformatted",
                           "the configuration text could not be edited in place, so it was written "
                           "out again: its content is unchanged apart from the mappings, but "
                           "comments and formatting are lost", None))
    return out


def _run(view: ClusterView, config: KueueConfig, modify: Callable, req: ChangeRequest) -> Any:
    from ..kube.writes import ObjectWriter, WriteResult, read_modify_write

    name, namespace = config.name, config.namespace
    if not view.live:  # a snapshot: compute the change, send nothing
        before = view.get(config.kind, name, namespace)
        if before is None:
            raise UserError(f"{target_text(config.target())} is not in the snapshot")
        after = modify(copy.deepcopy(before))
        return WriteResult(before, after, changed=after != before, sent=False)
    writer = ObjectWriter(view, config.kind)  # type: ignore[arg-type]
    if req.dry_run == "client":
        before = writer.read(name, namespace)
        after = modify(copy.deepcopy(before))
        return WriteResult(before, after, changed=after != before, sent=False)
    return read_modify_write(lambda: writer.read(name, namespace),
                             lambda obj: modify(copy.deepcopy(obj)),
                             lambda obj: writer.replace(obj, dry_run=req.dry_run == "server"))


def apply_change(view: ClusterView, req: ChangeRequest) -> tuple[dict[str, Any], UserError | None]:
    """Make the change (or its dry run); return the document to print, and the error of a
    rollout that did not complete after the write (the change itself is then already made)."""
    if not view.live and req.dry_run != "client":
        raise UsageError("--from reads an offline snapshot: a change against it needs "
                         "--dry-run=client")
    config = find_target(view, req.kueue_namespace)
    facts = target_facts(view, config, req.kueue_version)
    seen = _Attempt()
    result = _run(view, config, _modifier(config, facts, req.edit, seen), req)
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
            doc["findings"] += next_steps(view, config, result.after, req)
        except UserError as e:
            late_error = e
            doc["findings"].append(finding("error", "RolloutNotComplete", e.message, e.hint))
    return doc, late_error


# ---- after the write ------------------------------------------------------------------------

def _deployment_ref(config: KueueConfig) -> tuple[str, str]:
    meta = (config.deployment or {}).get("metadata") or {}
    default_ns = config.namespace if config.kind == "ConfigMap" else OPERATOR_NAMESPACE
    return meta.get("name") or DEPLOYMENT_NAME, meta.get("namespace") or default_ns


def next_steps(view: ClusterView, config: KueueConfig, written: dict[str, Any],
               req: ChangeRequest) -> list[dict[str, Any]]:
    name, namespace = _deployment_ref(config)
    if config.kind == "ConfigMap":
        if not req.restart:
            return [finding(
                "info", "RestartNeeded",
                "Kueue reads deviceClassMappings only at startup: the change takes effect when "
                "the controller restarts",
                f"kubectl rollout restart deployment/{name} -n {namespace} (or rerun with --restart)")]
        restart_and_wait(view, name, namespace, req.timeout)
        return [finding("info", "Restarted", f"Deployment {namespace}/{name} restarted and rolled "
                        "out: Kueue runs with the new mappings", None)]
    generation = (written.get("metadata") or {}).get("generation")
    if not req.restart:
        return [finding(
            "info", "OperatorRollout",
            "the Kueue operator renders the change into Kueue's ConfigMap and rolls Kueue by "
            f"itself; it is live when Deployment {namespace}/{name} has the pod-template "
            f"annotation {OPERATOR_ANNOTATION}={generation} and its rollout is complete",
            "rerun with --restart to wait for that")]
    wait_for_operator(view, name, namespace, generation, req.timeout)
    return [finding("info", "OperatorRolledOut", f"the operator rolled out Deployment "
                    f"{namespace}/{name} for generation {generation}: Kueue runs with the new "
                    "mappings", None)]


def restart_and_wait(view: Any, name: str, namespace: str, timeout: float) -> None:
    from ..kube.writes import ObjectWriter, restart_patch, rollout_complete, wait_for

    writer = ObjectWriter(view, "Deployment")
    writer.merge_patch(name, namespace, restart_patch())
    if not wait_for(lambda: rollout_complete(writer.read(name, namespace)), timeout):
        raise UserError(f"the configuration was written and Deployment {namespace}/{name} "
                        f"restarted, but its rollout did not complete within {timeout:g}s",
                        f"check: kubectl rollout status deployment/{name} -n {namespace}")


def wait_for_operator(view: Any, name: str, namespace: str, generation: Any, timeout: float) -> None:
    from ..kube.writes import ObjectWriter, rollout_complete, wait_for

    writer = ObjectWriter(view, "Deployment")

    def live() -> bool:
        try:
            d = writer.read(name, namespace)
        except kube_errors.NotFound:
            return False
        annotations = (((d.get("spec") or {}).get("template") or {}).get("metadata") or {}).get(
            "annotations") or {}
        return annotations.get(OPERATOR_ANNOTATION) == str(generation) and rollout_complete(d)

    if not wait_for(live, timeout, interval=2.0):
        raise UserError(f"the Kueue CR was written (generation {generation}), but the operator "
                        f"had not rolled out Deployment {namespace}/{name} within {timeout:g}s",
                        "check the Kueue CR's status conditions (Degraded, Progressing) and "
                        "the operator's logs")
