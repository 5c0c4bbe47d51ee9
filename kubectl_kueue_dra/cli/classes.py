"""``classes``: DeviceClasses, the quota resource each one charges, and the devices they match."""

import click

from ..commands.connection import open_view
from .common import KUEUE_NAMESPACE_OPTION, WholeSummaryGroup
from .options import Accepts, command_options, with_global_options, with_selection_options, with_snapshot_option

#: every output; -l/--field-selector select the DeviceClasses shown
ACCEPTS = Accepts(outputs=("table", "wide", "json", "yaml", "name", "jsonpath", "custom-columns"), selection=True)


@click.group(cls=WholeSummaryGroup, invoke_without_command=True,
             short_help="List the DeviceClasses, their quota resource and their devices.", epilog="""\b
Examples:
  kubectl kueue-dra classes
  kubectl kueue-dra classes -o wide           # with the CEL selectors
  kubectl kueue-dra classes --from must-gather.local.1234/
  kubectl kueue-dra classes --devices                # the matching devices, by shape
  kubectl kueue-dra classes --devices mig.nvidia.com # one class: counters, counter selectors
  kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu
""")
@click.option("--devices", "devices", is_flag=False, flag_value="", default=None, metavar="[CLASS]",
              help="List the devices each class (or CLASS) matches, grouped by shape: driver, pools, what "
                   "the selectors read, the counters consumed, whether each counter selector matches.")
@KUEUE_NAMESPACE_OPTION
@with_selection_options
@with_snapshot_option
@with_global_options
@click.pass_context
def classes(ctx: click.Context, devices: str | None, kueue_namespace: str | None) -> int:
    """DeviceClasses, the quota resource each one charges, matching devices.

    For each DeviceClass: its extendedResourceName, the quota resource Kueue charges for it (the
    deviceClassMappings name wins over extendedResourceName), the ClusterQueues covering that
    resource, how many devices in complete ResourceSlice pools match its selectors, and what
    would keep its GPUs out of quota. With --devices [CLASS]: those devices, grouped by shape.
    """
    if ctx.invoked_subcommand:
        return 0
    from ..commands.classes.request import ClassesRequest, classes_document
    from ..commands.printing import quantity_amount
    from ..render.classes import CLASSES_LISTING, DEVICES_LISTING, classes_text, devices_text
    from ..render.output import emit

    request = ClassesRequest(kueue_namespace, devices).validate()
    opts = command_options(ctx, ACCEPTS)
    request.selector, request.field_selector = opts.selector, opts.field_selector
    document = classes_document(open_view(opts), request)
    listing = DEVICES_LISTING if devices is not None else CLASSES_LISTING
    emit(document, opts.printer, lambda d: (devices_text if devices is not None else classes_text)(d, opts),
         listing, quantity_amount, out=opts.stdout)
    return 0


def _register_subcommands() -> None:
    from .extended_resource import set_extended_resource

    classes.add_command(set_extended_resource)


_register_subcommands()
