"""``queues``: which ClusterQueue holds which quota, how much is used and by whom, what waits."""

import click

from ..commands.connection import open_view
from ..errors import UsageError
from .common import KUEUE_NAMESPACE_OPTION, Command
from .options import Accepts, command_options, with_global_options, with_snapshot_option

ACCEPTS = Accepts(outputs=("table", "wide", "json", "yaml", "name", "jsonpath", "custom-columns"))


@click.command(cls=Command, short_help="Show ClusterQueue quota, its use, who holds it and what waits.", epilog="""\b
Examples:
  kubectl kueue-dra queues
  kubectl kueue-dra queues research-cq --workloads   # who holds the quota, who waits
  kubectl kueue-dra queues -o wide                   # limits, borrowed, maximum and available
  kubectl kueue-dra queues -o json                   # {"clusterQueues": [...], "cohorts": [...]}
  kubectl kueue-dra queues --from must-gather.local.1234/
""")
@click.argument("cluster_queue", required=False, metavar="[CLUSTERQUEUE]")
@click.option("--workloads", is_flag=True, default=False,
              help="List the Workloads holding each ClusterQueue's quota (namespace/name, priority, what each "
                   "holds) and those waiting (what each requests).")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def queues(ctx: click.Context, cluster_queue: str | None, workloads: bool, kueue_namespace: str | None) -> int:
    """Each ClusterQueue's quota beside its use, per flavor and resource.

    Nominal quota, what Kueue has reserved (status.flavorsReservation) with a usage bar, what the
    waiting Workloads request (the sum of their status.resourceRequests), and the DeviceClasses a
    DRA quota resource is charged for. Then the cohort tree: each cohort's own quota (a Cohort
    object's resourceGroups), what its subtree shares, the limits and what each ClusterQueue
    borrows. -o wide adds the borrowing and lending limits, the admitted usage, the most the
    cohort can ever give (Kueue's maximum capacity) and what it can give now.
    """
    from ..commands.queues.request import QueuesRequest, queues_document
    from ..render.output import emit
    from ..render.queues import QUEUES_LISTING, queues_text

    request = QueuesRequest(cluster_queue=cluster_queue, kueue_namespace=kueue_namespace).validate()
    opts = command_options(ctx, ACCEPTS)
    if workloads and opts.output not in ("table", "wide"):
        raise UsageError(f"--workloads does nothing for -o {opts.output}: the document always lists them "
                         "(clusterQueues[].workloads and clusterQueues[].pending.workloads)")
    document = queues_document(open_view(opts), request)
    emit(document, opts.printer, lambda d: queues_text(d, opts, workloads=workloads), QUEUES_LISTING,
         out=opts.stdout)
    return 0
