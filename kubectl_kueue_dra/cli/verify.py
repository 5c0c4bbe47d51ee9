"""``verify``: a checklist of everything GPU quota through Kueue and DRA depends on."""

import click

from ..commands.connection import open_view
from .common import KUEUE_NAMESPACE_OPTION, Command
from .options import READ_COMMAND, command_options, with_global_options, with_snapshot_option


@click.command(cls=Command, short_help="Check that GPU quota through Kueue and DRA is enforced.",
               epilog="""\b
Examples:
  kubectl kueue-dra verify
  kubectl kueue-dra verify --path partitionable     # only what MIG/counter quota needs
  kubectl kueue-dra verify -o json                  # {"checks": [{"id", "status", "message", "fix"}]}
  kubectl kueue-dra verify --from must-gather.local.1234/
""")
@click.option("--path", "paths", multiple=True, metavar="claims|extended|partitionable",
              help="Check only what this way of requesting GPUs needs (repeatable; default: every path the "
                   "setup uses).")
@click.option("--no-probe", is_flag=True, default=False,
              help="Do not send server-side dry-run creates to learn feature gates.")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def verify(ctx: click.Context, paths: tuple[str, ...], no_probe: bool, kueue_namespace: str | None) -> int:
    """Check feature gates, DRA driver, mappings and queues: is GPU quota enforced?

    First the platform version each path in use needs (OpenShift from ClusterVersion, else the
    Kubernetes version). Kubernetes gates (DynamicResourceAllocation, DRAExtendedResource,
    DRAPartitionableDevices, DRAConsumableCapacity) are learned from the OpenShift FeatureGate, the
    API server's /metrics, a server-side dry-run create (nothing is stored) or the version's
    default, and each says how. Then Kueue (version, configuration, its DRA gates), the DRA
    driver's ResourceSlices, the DeviceClasses and counters the mappings name, the ClusterQueues
    covering each quota resource, and the namespaces of LocalQueues. Every other DRA gate,
    Kubernetes' and Kueue's, is listed with its state as INFO. Exit 1 when a check fails.
    """
    from ..commands.verify.request import VerifyRequest
    from ..commands.verify.request import verify as run_verify
    from ..render.output import emit
    from ..render.verify import VERIFY_LISTING, verify_text

    request = VerifyRequest(list(paths), not no_probe, kueue_namespace).validate()
    opts = command_options(ctx, READ_COMMAND)
    document, failed, error = run_verify(open_view(opts), request)
    emit(document, opts.printer, lambda d: verify_text(d, opts), VERIFY_LISTING, out=opts.stdout)
    if error is not None:
        raise error
    return 1 if failed else 0
