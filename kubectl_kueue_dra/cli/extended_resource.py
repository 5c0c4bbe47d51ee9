"""``classes set-extended-resource``: flags → request → the service in
``commands/classes/extended_resource`` → output."""

from __future__ import annotations

import click

from .common import Command
from .map import DRY_RUN_OPTION
from .options import CHANGE_COMMAND, command_options, with_global_options, with_snapshot_option


@click.command("set-extended-resource", cls=Command,
               short_help="Set or clear a DeviceClass's extendedResourceName.", epilog="""\b
Examples:
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu --dry-run=server
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com --clear
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu --from snap/ --dry-run=client
""")
@click.argument("device_class", metavar="CLASS")
@click.argument("name", required=False)
@click.option("--clear", is_flag=True, default=False, help="Remove spec.extendedResourceName.")
@DRY_RUN_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def set_extended_resource(ctx: click.Context, device_class: str, name: str | None, clear: bool,
                          dry_run: str) -> int:
    """Set (or --clear) the extendedResourceName of DeviceClass CLASS to NAME.

    Pods can then request NAME (e.g. nvidia.com/gpu: 1) and get a device of CLASS; Kueue charges
    them as NAME unless CLASS is in a deviceClassMappings entry. Needs the DRAExtendedResource
    feature gate on the API server: when the server drops the field, this says so and exits 1.
    With --from and --dry-run=client the change is computed against a snapshot.
    """
    from ..commands.classes.extended_resource import ExtendedResourceRequest
    from ..commands.classes.extended_resource import set_extended_resource as run
    from ..commands.connection import open_view
    from ..render.map import change_text
    from ..render.output import emit

    opts = command_options(ctx, CHANGE_COMMAND)
    request = ExtendedResourceRequest(device_class, name, clear, dry_run).validate(snapshot=bool(opts.from_path))
    document, dropped = run(open_view(opts), request)
    if dropped is not None and opts.output not in ("json", "yaml"):
        document["findings"] = document["findings"][1:]  # the error line below says it
    emit(document, opts.printer, lambda d: change_text(d, opts), out=opts.stdout)
    if dropped is not None:
        raise dropped
    return 0
