"""``classes``: DeviceClasses, the quota resource each one charges, and the devices they match."""

from typing import Any

import click

from ..errors import UserError
from .common import KUEUE_NAMESPACE_OPTION, config_findings, unreadable_findings
from .context import open_view
from .options import global_options, with_global_options, with_snapshot_option


@click.group(invoke_without_command=True, epilog="""\b
Examples:
  kubectl kueue-dra classes
  kubectl kueue-dra classes -o wide           # with the CEL selectors
  kubectl kueue-dra classes --from must-gather.local.1234/
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu
""")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def classes(ctx: click.Context, kueue_namespace: str | None) -> int:
    """DeviceClasses, the quota resource each one charges, matching devices.

    For each DeviceClass: its extendedResourceName, the quota resource Kueue charges for it (the
    deviceClassMappings name wins over extendedResourceName), the ClusterQueues covering that
    resource, how many devices in complete ResourceSlice pools match its selectors, and what
    would keep its GPUs out of quota.
    """
    if ctx.invoked_subcommand:
        return 0
    from ..dra.cel import SelectorEvaluator
    from ..dra.devices import group_pools
    from ..kueue.classes import classes_report
    from ..kueue.config import load_kueue_config
    from ..kueue.installation import installation_of
    from ..render.classes import classes_text
    from ..render.output import emit

    opts = global_options(ctx)
    view = open_view(opts)
    if view.live and not view.serves("DeviceClass"):
        raise UserError("this cluster does not serve resource.k8s.io (DRA): Kubernetes 1.34+ with "
                        "DynamicResourceAllocation is needed")
    device_classes = view.list("DeviceClass")
    installation = installation_of(view, load_kueue_config(view, kueue_namespace))
    config = installation.config
    cluster_queues = view.try_list("ClusterQueue")
    slices = view.try_list("ResourceSlice")
    pools = group_pools(slices) if slices is not None else None

    findings: list[dict[str, Any]] = config_findings(config, view)
    report = classes_report(device_classes, mappings=installation.effective.mappings if config.found else None,
                            cluster_queues=cluster_queues, pools=pools, evaluator=SelectorEvaluator())
    findings = unreadable_findings(view) + findings
    document = {
        "source": view.source,
        "kueueConfig": config.target() if config.found else None,
        "kueueInstallation": installation.to_json(),
        "partial": bool(view.unreadable),
        "deviceClasses": report,
        "findings": findings,
    }
    emit(document, opts.output, lambda d: classes_text(d, opts))
    return 0


def _register_subcommands() -> None:
    from .extended_resource import set_extended_resource

    classes.add_command(set_extended_resource)


_register_subcommands()
