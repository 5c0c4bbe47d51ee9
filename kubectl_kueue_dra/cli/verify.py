"""``verify``: a checklist of everything GPU quota through Kueue and DRA depends on."""

import click

from ..commands.connection import open_view
from ..errors import UsageError
from .common import KUEUE_NAMESPACE_OPTION, Command
from .options import READ_COMMAND, command_options, with_global_options, with_snapshot_option


@click.command(cls=Command, short_help="Check that GPU quota through Kueue and DRA is enforced.",
               epilog="""\b
Examples:
  kubectl kueue-dra verify
  kubectl kueue-dra verify --all                    # every check, the passes and INFO lines too
  kubectl kueue-dra verify --path partitionable     # only what MIG/counter quota needs
  kubectl kueue-dra verify -o json                  # {"checks": [{"id", "status", "message", "fix"}]}
  kubectl kueue-dra verify --from must-gather.local.1234/
""")
@click.option("--path", "paths", multiple=True, metavar="claims|extended|partitionable",
              help="Check only what this way of requesting GPUs needs (repeatable; default: every path the "
                   "setup uses).")
@click.option("--no-probe", is_flag=True, default=False,
              help="Do not send server-side dry-run creates to learn feature gates.")
@click.option("--all", "show_all", is_flag=True, default=False,
              help="List every check, the passes and the INFO lines too (default: the verdict, then what needs "
                   "attention; -o wide also lists every check, with its fix).")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def verify(ctx: click.Context, paths: tuple[str, ...], no_probe: bool, show_all: bool,
           kueue_namespace: str | None) -> int:
    """Check feature gates, DRA driver, mappings and queues: is GPU quota enforced?

    First the platform version each path in use needs (OpenShift from ClusterVersion, else the
    Kubernetes version). Kubernetes gates (DynamicResourceAllocation, DRAExtendedResource,
    DRAPartitionableDevices, DRAConsumableCapacity) are learned from the OpenShift FeatureGate, the
    API server's /metrics, a server-side dry-run create (nothing is stored) or the version's
    default, and each says how. Then Kueue (version, configuration, its DRA gates), the DRA
    driver's ResourceSlices, the DeviceClasses and counters the mappings name, the ClusterQueues
    covering each quota resource, and the namespaces of LocalQueues. Every other DRA gate,
    Kubernetes' and Kueue's, is listed with its state as INFO. The answer comes first: whether GPU
    quota is enforced, for how many DeviceClasses, then the failures and warnings with their fixes;
    the passes are one line (--all lists them). Exit 1 when a check fails.
    """
    from ..commands.verify.request import VerifyRequest
    from ..commands.verify.request import verify as run_verify
    from ..render.output import emit
    from ..render.verify import VERIFY_LISTING, verify_text

    request = VerifyRequest(list(paths), not no_probe, kueue_namespace).validate()
    opts = command_options(ctx, READ_COMMAND)
    if show_all and opts.output not in ("table", "wide"):
        raise UsageError(f"--all does nothing for -o {opts.output}: the document always lists every check")
    document, failed, error = run_verify(open_view(opts), request)
    emit(document, opts.printer, lambda d: verify_text(d, opts, show_all=show_all), VERIFY_LISTING, out=opts.stdout)
    if error is not None:
        raise error
    return 1 if failed else 0
