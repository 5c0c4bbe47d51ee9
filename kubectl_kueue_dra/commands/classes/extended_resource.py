"""``classes set-extended-resource`` as a service: set or clear a DeviceClass's
``spec.extendedResourceName``.

This is the documented ``oc patch deviceclass …`` step, done as a read-modify-write with the
``resourceVersion`` precondition. An API server with the ``DRAExtendedResource`` feature gate off
accepts the request and silently drops the field; the answer is read back to catch exactly that
(the same fact ``classes`` tells of any class, ``commands/dropped``: GatedFieldDropped).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ... import gates as g
from ...errors import UsageError, UserError
from ...findings import codes as F
from ...k8s.names import extended_resource_name_error
from ...k8s.written import Written
from ...kube.view import ClusterView
from ...kueue.install.platform import read_cluster_version
from ..dropped import Dropped, finding

FIELD = "extendedResourceName"


def _value(obj: dict[str, Any]) -> str | None:
    return (obj.get("spec") or {}).get(FIELD)


def _context_findings(view: Any, device_class: str, name: str) -> list[dict[str, Any]]:
    """What else decides the charge of this class: a mapping, other classes with the name."""
    from ...kueue.config.mappings import mappings_for
    from ...kueue.install.model import load_installation

    findings = []
    installation = load_installation(view)  # the mappings Kueue reads
    for m in mappings_for(installation.effective.mappings, device_class) if installation.config.found else []:
        if m.counter_sources:
            raise UserError(
                f"refused, nothing written: DeviceClass {device_class} is in mapping {m.name}, which "
                f"has counter sources; Kueue marks pods requesting {name} inadmissible "
                f"[{F.ExtendedResourceWithCounters.name}]",
                "request partitioned devices through ResourceClaimTemplates, or remove the "
                f"counter source first (kubectl kueue-dra map set {m.name} …)")
        findings.append(F.MappingWins.make(
            f"DeviceClass {device_class} is also in mapping {m.name}: Kueue charges pods requesting "
            f"{name} as {m.name} (the mapping name wins)"))
    others = sorted(dc["metadata"]["name"] for dc in view.try_list("DeviceClass") or []
                    if _value(dc) == name and dc["metadata"]["name"] != device_class)
    if others:
        findings.append(F.DuplicateExtendedResourceName.make(
            f"{name} is also the extendedResourceName of {', '.join(others)}; the scheduler and "
            "Kueue use the newest of these classes (then the first by name)", variant="set"))
    return findings


@dataclass
class ExtendedResourceRequest:
    device_class: str
    name: str | None = None
    clear: bool = False
    dry_run: str = "none"  # none | client | server

    def validate(self, *, snapshot: bool) -> ExtendedResourceRequest:
        if bool(self.name) == self.clear:
            raise UsageError("give either NAME or --clear")
        problem = extended_resource_name_error(self.name) if self.name else None
        if problem:  # the API server refuses it: nothing is read or written
            raise UserError(f'extended resource name "{self.name}" {problem}', "the API server would refuse it")
        if snapshot and self.dry_run != "client":
            raise UsageError("--from reads an offline snapshot: a change against it needs "
                             "--dry-run=client")
        return self


def _modifier(req: ExtendedResourceRequest) -> Any:
    def modify(obj: dict[str, Any]) -> dict[str, Any]:
        new = copy.deepcopy(obj)
        spec = new.setdefault("spec", {})
        if req.clear:
            spec.pop(FIELD, None)
        else:
            spec[FIELD] = req.name
        return new
    return modify


def _read(view: ClusterView, device_class: str) -> dict[str, Any]:
    """The DeviceClass as it is now: a fresh read (live) or the snapshot's copy (--from)."""
    from ...kube.writes import ObjectWriter

    if view.live:
        return ObjectWriter(view, "DeviceClass").read(device_class)  # type: ignore[arg-type]
    before = view.get("DeviceClass", device_class)
    if before is None:
        raise UserError(f"DeviceClass {device_class} is not in the snapshot")
    return before


def _write(view: ClusterView, req: ExtendedResourceRequest) -> tuple[Any, list[dict[str, Any]]]:
    from ...kube.writes import ObjectWriter, WriteResult, read_modify_write

    if not view.serves("DeviceClass"):
        raise UserError("this cluster does not serve resource.k8s.io DeviceClasses (DRA): "
                        "Kubernetes 1.34+ is needed")
    before = _read(view, req.device_class)
    findings = [] if req.clear else _context_findings(view, req.device_class, str(req.name))
    if not req.clear and before.get("apiVersion") != "resource.k8s.io/v1":
        raise UserError(f"the server serves DeviceClass as {before.get('apiVersion')}, "
                        f"which has no {FIELD}", "Kubernetes 1.34+ is needed")
    modify = _modifier(req)
    if req.dry_run == "client":
        after = modify(before)
        return WriteResult(before, after, changed=after != before, sent=False), findings
    writer = ObjectWriter(view, "DeviceClass")  # type: ignore[arg-type]
    return read_modify_write(lambda: writer.read(req.device_class), modify,
                             lambda obj: writer.replace(obj, dry_run=req.dry_run == "server"),
                             clock=writer.clock), findings


def set_extended_resource(view: ClusterView, req: ExtendedResourceRequest
                          ) -> tuple[dict[str, Any], UserError | None]:
    """Make the change (or its dry run); the document to print, and the error to exit with when
    the API server dropped the field (its DRAExtendedResource gate is off)."""
    from ...k8s.objects import object_text, unified_diff

    try:
        result, findings = _write(view, req)
    except UserError as e:  # a refusal's commands, written for the platform as every fix is
        from ...kueue.install.command import cli_of, error_for_cli
        from ...kueue.install.model import load_installation

        raise error_for_cli(e, cli_of(view, load_installation(view).config)) from None
    device_class, name, clear, dry_run = req.device_class, req.name, req.clear, req.dry_run
    dropped = result.sent and not clear and _value(result.after) != name
    what = f"{FIELD} cleared" if clear else f"{FIELD} set to {name}"
    suffix = {"client": " (dry run: nothing sent)",
              "server": " (server dry run: accepted, nothing written)"}.get(dry_run, "")
    if not result.changed:
        summary = f"DeviceClass {device_class}: {FIELD} is already as requested; nothing to change."
    elif dropped:
        summary = f"DeviceClass {device_class}: the API server dropped {FIELD}; nothing changed."
    else:
        summary = f"DeviceClass {device_class}: {what}{suffix}."
    problem = (f"the API server accepted the update of DeviceClass {device_class} but dropped "
               f"spec.{FIELD}: its DRAExtendedResource feature gate is off")
    fix = None
    if dropped:
        lost = Dropped(kind="DeviceClass", name=device_class, gate=g.DRA_EXTENDED,
                       written=Written(path=("spec", FIELD), managers=("this update",), values=(name,)))
        cv = read_cluster_version(view)
        said = finding(lost, severity="error", openshift=cv.openshift, openshift_release=g.release_of(cv.version))
        findings.insert(0, said)
        fix = said["fix"]
    document = {
        "deviceClass": {"name": device_class},
        "requested": None if clear else name,
        "extendedResourceName": _value(result.after),
        "dryRun": None if dry_run == "none" else dry_run,
        "changed": result.changed and not dropped,
        "written": result.sent and dry_run == "none" and not dropped,
        "dropped": dropped,
        "summary": summary,
        "diff": unified_diff(object_text(result.before), object_text(result.after),
                             f"DeviceClass {device_class}") if result.changed else "",
        "findings": findings,
    }
    return document, UserError(problem, fix) if dropped else None
