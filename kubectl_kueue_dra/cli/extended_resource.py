"""``classes set-extended-resource``: set or clear a DeviceClass's ``spec.extendedResourceName``.

This is the documented ``oc patch deviceclass …`` step, done as a read-modify-write with the
``resourceVersion`` precondition. An API server with the ``DRAExtendedResource`` feature gate off
accepts the request and silently drops the field; the answer is read back to catch exactly that.
"""

from __future__ import annotations

import copy
from typing import Any

import click

from ..errors import UsageError, UserError
from ..findings import finding
from .options import global_options, with_global_options
from .map import DRY_RUN_OPTION

FIELD = "extendedResourceName"
GATE_FIX = ("enable the DRAExtendedResource feature gate of kube-apiserver and kube-scheduler "
            "(OpenShift: FeatureGate cluster with featureSet CustomNoUpgrade and "
            "DRAExtendedResource in spec.customNoUpgrade.enabled)")


def _value(obj: dict[str, Any]) -> str | None:
    return (obj.get("spec") or {}).get(FIELD)


def _context_findings(view: Any, device_class: str, name: str) -> list[dict[str, Any]]:
    """What else decides the charge of this class: a mapping, other classes with the name."""
    from ..kueue.config import load_kueue_config
    from ..kueue.mappings import mappings_for

    findings = []
    config = load_kueue_config(view, None)
    for m in mappings_for(config.mappings, device_class) if config.found else []:
        if m.counter_sources:
            raise UserError(
                f"refused, nothing written: DeviceClass {device_class} is in mapping {m.name}, which "
                f"has counter sources; Kueue marks pods requesting {name} inadmissible "
                "[ExtendedResourceWithCounters]",
                "request partitioned devices through ResourceClaimTemplates, or remove the "
                f"counter source first (kubectl kueue-dra map set {m.name} …)")
        findings.append(finding(
            "info", "MappingWins",
            f"DeviceClass {device_class} is also in mapping {m.name}: Kueue charges pods requesting "
            f"{name} as {m.name} (the mapping name wins)", None))
    others = sorted(dc["metadata"]["name"] for dc in view.try_list("DeviceClass") or []
                    if _value(dc) == name and dc["metadata"]["name"] != device_class)
    if others:
        findings.append(finding(
            "warning", "DuplicateExtendedResourceName",
            f"{name} is also the extendedResourceName of {', '.join(others)}; the scheduler and "
            "Kueue use the newest of these classes (then the first by name)",
            "give each DeviceClass its own extendedResourceName"))
    return findings


@click.command("set-extended-resource", epilog="""\b
Examples:
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu --dry-run=server
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com --clear
""")
@click.argument("device_class", metavar="CLASS")
@click.argument("name", required=False)
@click.option("--clear", is_flag=True, default=False, help="Remove spec.extendedResourceName.")
@DRY_RUN_OPTION
@with_global_options
@click.pass_context
def set_extended_resource(ctx: click.Context, device_class: str, name: str | None, clear: bool,
                          dry_run: str) -> int:
    """Set (or --clear) the extendedResourceName of DeviceClass CLASS to NAME.

    Pods can then request NAME (e.g. nvidia.com/gpu: 1) and get a device of CLASS; Kueue charges
    them as NAME unless CLASS is in a deviceClassMappings entry. Needs the DRAExtendedResource
    feature gate on the API server: when the server drops the field, this says so and exits 1.
    """
    from ..kube.writes import ObjectWriter, WriteResult, read_modify_write
    from ..render.map import change_text, object_text, unified_diff
    from ..render.output import emit
    from .context import open_view

    if bool(name) == clear:
        raise UsageError("give either NAME or --clear")
    opts = global_options(ctx)
    if opts.from_path:
        raise UsageError("set-extended-resource changes the cluster; --from cannot be used")
    view = open_view(opts)
    if not view.serves("DeviceClass"):
        raise UserError("this cluster does not serve resource.k8s.io DeviceClasses (DRA): "
                        "Kubernetes 1.34+ is needed")
    writer = ObjectWriter(view, "DeviceClass")  # type: ignore[arg-type]
    before_check = writer.read(device_class)
    findings = [] if clear else _context_findings(view, device_class, str(name))
    if not clear and before_check.get("apiVersion") != "resource.k8s.io/v1":
        raise UserError(f"the server serves DeviceClass as {before_check.get('apiVersion')}, "
                        f"which has no {FIELD}", "Kubernetes 1.34+ is needed")

    def modify(obj: dict[str, Any]) -> dict[str, Any]:
        new = copy.deepcopy(obj)
        spec = new.setdefault("spec", {})
        if clear:
            spec.pop(FIELD, None)
        else:
            spec[FIELD] = name
        return new

    if dry_run == "client":
        before = before_check
        after = modify(before)
        result = WriteResult(before, after, changed=after != before, sent=False)
    else:
        result = read_modify_write(lambda: writer.read(device_class), modify,
                                   lambda obj: writer.replace(obj, dry_run=dry_run == "server"))
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
    if dropped:
        findings.insert(0, finding("error", "ExtendedResourceFieldDropped", problem, GATE_FIX))
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
    if dropped and opts.output not in ("json", "yaml"):
        document["findings"] = findings[1:]  # the error line below says it
    emit(document, opts.output, lambda d: change_text(d, opts))
    if dropped:
        raise UserError(problem, GATE_FIX)
    return 0
