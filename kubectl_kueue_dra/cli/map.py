"""``map``: show deviceClassMappings; ``map set`` / ``map remove``: change them safely."""

from __future__ import annotations

from typing import Any

import click

from ..commands.connection import open_view
from ..errors import UsageError, UserError
from .common import KUEUE_NAMESPACE_OPTION, WholeSummaryGroup
from .options import CHANGE_COMMAND, READ_COMMAND, command_options, with_global_options, with_snapshot_option

DRY_RUN_OPTION = click.option(
    "--dry-run", type=click.Choice(("none", "client", "server")), default="none", is_flag=False,
    flag_value="client", show_default=True,
    help="client: show the change, send nothing; server: send it with dryRun=All so the API "
         "server validates it, persist nothing.")
KUEUE_VERSION_OPTION = click.option(
    "--kueue-version", metavar="VERSION", default=None,
    help="Check against this Kueue version (e.g. 0.18) when it cannot be read from the cluster.")
RESTART_OPTION = click.option(
    "--restart", is_flag=True, default=False,
    help="Upstream: roll the Kueue Deployment (like kubectl rollout restart) and wait; "
         "OpenShift: wait until the operator has rolled Kueue with the change.")
TIMEOUT_OPTION = click.option(
    "--timeout", metavar="DURATION", default="5m", show_default=True,
    help="How long --restart waits for the rollout.")


def _group_param(ctx: click.Context, name: str) -> Any:
    parent = ctx.parent
    return parent.params.get(name) if parent is not None else None


@click.group("map", cls=WholeSummaryGroup, invoke_without_command=True,
             short_help="Show the deviceClassMappings, or change one safely.", epilog="""\b
Examples:
  kubectl kueue-dra map
  kubectl kueue-dra map -o wide                     # with the CEL selectors
  kubectl kueue-dra map set gpu --device-class gpu.nvidia.com
  kubectl kueue-dra map set gpu.memory --device-class gpu.nvidia.com \\
      --device-class mig.nvidia.com --counter memory --driver gpu.nvidia.com \\
      --selector "device.driver == 'gpu.nvidia.com'"
  kubectl kueue-dra map remove gpu.memory --device-class mig.nvidia.com
  kubectl kueue-dra map set gpu --device-class gpu.nvidia.com --dry-run=server
  kubectl kueue-dra map set gpu --device-class gpu.nvidia.com --from snap/ --dry-run=client
""")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def map_(ctx: click.Context, kueue_namespace: str | None) -> int:
    """What the deviceClassMappings are, and change them safely.

    Without a subcommand: each mapping from DeviceClasses to a quota resource, whether the
    classes exist, its counter/capacity sources, the ClusterQueues covering it, and what would keep
    it from charging anything. The mappings are read from the OpenShift Kueue CR (cluster) or
    upstream Kueue's ConfigMap.
    """
    if ctx.invoked_subcommand:
        return 0
    from ..commands.map.show import MapRequest, show_mappings
    from ..render.map import MAP_LISTING, map_text
    from ..render.output import emit

    request = MapRequest(kueue_namespace).validate()
    opts = command_options(ctx, READ_COMMAND)
    document = show_mappings(open_view(opts), request)
    emit(document, opts.printer, lambda d: map_text(d, opts), MAP_LISTING, out=opts.stdout)
    return 0


def _change(ctx: click.Context, request: Any) -> int:
    from ..commands.map.change import apply_change
    from ..render.map import change_text
    from ..render.output import emit

    request.kueue_namespace = request.kueue_namespace or _group_param(ctx, "kueue_namespace")
    if not request.restart and ctx.get_parameter_source("timeout") is not click.core.ParameterSource.DEFAULT:
        raise UsageError("--timeout bounds the wait of --restart: give --restart with it, or leave it out")
    request.validate()
    opts = command_options(ctx, CHANGE_COMMAND)
    view = open_view(opts)
    try:
        document, late_error = apply_change(view, request)
    except UserError as e:
        if opts.output in ("json", "yaml") and getattr(e, "violations", None):
            from ..commands.map.change import refusal_document

            emit(refusal_document(e), opts.printer, lambda d: "", out=opts.stdout)
        raise
    shown = document
    if late_error is not None and opts.output not in ("json", "yaml"):  # the error line says it
        shown = dict(document, findings=document["findings"][:-1])
    emit(shown, opts.printer, lambda d: change_text(d, opts), out=opts.stdout)
    if late_error is not None:
        raise late_error
    return 0


def _once(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """A source flag given once: map set states one source (a second --counter would replace the first)."""
    if len(value) > 1:
        raise UsageError(f"{param.opts[0]} is given {len(value)} times: map set states one source per mapping")
    return value[0] if value else None


@map_.command("set", short_help="Add the mapping NAME, or replace it.", epilog="""\b
Examples:
  kubectl kueue-dra map set gpu --device-class gpu.nvidia.com
  kubectl kueue-dra map set gpu.memory --device-class gpu.nvidia.com \\
      --device-class mig.nvidia.com --counter memory --driver gpu.nvidia.com \\
      --selector "device.driver == 'gpu.nvidia.com'" --dry-run=server
""")
@click.argument("name")
@click.option("--device-class", "device_classes", metavar="CLASS", multiple=True, required=True,
              help="A DeviceClass charged as NAME (repeatable, 1-8).")
@click.option("--counter", metavar="COUNTER", multiple=True, callback=_once,
              help="Charge the counter COUNTER that devices consume (ResourceSlice "
                   "consumesCounters), e.g. memory.")
@click.option("--capacity", metavar="CAPACITY", multiple=True, callback=_once,
              help="Charge the consumable capacity CAPACITY (upstream Kueue 0.19+, alpha gate).")
@click.option("--driver", metavar="DRIVER", multiple=True, callback=_once, help="The DRA driver of the source.")
@click.option("--selector", metavar="CEL", multiple=True, callback=_once,
              help="CEL expression selecting the source's devices.")
@click.option("--allow-missing-class", is_flag=True, default=False,
              help="Accept a DeviceClass that does not exist yet (it is refused otherwise).")
@click.option("--allow-gate-off", is_flag=True, default=False,
              help="Accept a source whose Kubernetes gate is off on the API server (refused otherwise).")
@click.option("--replace", is_flag=True, default=False,
              help="Confirm a replacement that drops DeviceClasses or the source of the existing mapping "
                   "NAME (refused otherwise, saying what would be dropped).")
@DRY_RUN_OPTION
@KUEUE_NAMESPACE_OPTION
@KUEUE_VERSION_OPTION
@RESTART_OPTION
@TIMEOUT_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def set_(ctx: click.Context, name: str, device_classes: tuple[str, ...], counter: str | None,
         capacity: str | None, driver: str | None, selector: str | None, allow_missing_class: bool,
         allow_gate_off: bool, replace: bool, dry_run: str, kueue_namespace: str | None,
         kueue_version: str | None, restart: bool, timeout: str) -> int:
    """Add the mapping NAME, or replace it (classes and sources as given).

    NAME is the quota resource ClusterQueues list in coveredResources. Every other mapping, and
    every other field of the Kueue CR or ConfigMap, is left as it is. The result is checked with
    the rules of the operator CRD and of the running Kueue version before anything is written,
    and against the cluster: a DeviceClass that does not exist, a counter or capacity no
    ResourceSlice of the driver publishes, a counter or capacity source whose Kubernetes gate the
    API server has off, and a replacement that drops classes or the source of the mapping are
    refused (--allow-missing-class, --allow-gate-off, --replace). With --from and --dry-run=client
    the change is computed against a snapshot, to be reviewed before anyone touches the cluster.
    """
    from ..commands.map.change import ChangeRequest

    return _change(ctx, ChangeRequest(action="set", mapping=name, device_classes=list(device_classes),
                                      counter=counter, capacity=capacity, driver=driver, selector=selector,
                                      dry_run=dry_run, kueue_namespace=kueue_namespace,
                                      kueue_version=kueue_version, restart=restart, timeout=timeout,
                                      allow_missing_class=allow_missing_class, replace=replace,
                                      allow_gate_off=allow_gate_off))


@map_.command("remove", short_help="Remove the mapping NAME, or some of its classes.", epilog="""\b
Examples:
  kubectl kueue-dra map remove gpu
  kubectl kueue-dra map remove gpu.memory --device-class mig.nvidia.com
""")
@click.argument("name")
@click.option("--device-class", "device_classes", metavar="CLASS", multiple=True,
              help="Remove only this DeviceClass from the mapping (repeatable).")
@DRY_RUN_OPTION
@KUEUE_NAMESPACE_OPTION
@KUEUE_VERSION_OPTION
@RESTART_OPTION
@TIMEOUT_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def remove(ctx: click.Context, name: str, device_classes: tuple[str, ...], dry_run: str,
           kueue_namespace: str | None, kueue_version: str | None, restart: bool,
           timeout: str) -> int:
    """Remove the mapping NAME, or some of its DeviceClasses.

    Removing the last mapping removes resources from the configuration (an empty list is
    rejected by the operator CRD).
    """
    from ..commands.map.change import ChangeRequest

    return _change(ctx, ChangeRequest(action="remove", mapping=name, device_classes=list(device_classes),
                                      dry_run=dry_run,
                                      kueue_namespace=kueue_namespace, kueue_version=kueue_version,
                                      restart=restart, timeout=timeout))
