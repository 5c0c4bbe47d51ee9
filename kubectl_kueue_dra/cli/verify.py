"""``verify``: a checklist of everything GPU quota through Kueue and DRA depends on."""

import click

from ..errors import UsageError, UserError
from .common import KUEUE_NAMESPACE_OPTION
from .context import open_view
from .options import global_options, with_global_options, with_snapshot_option

PATH_CHOICES = ("claims", "extended", "partitionable")


def parse_paths(values: tuple[str, ...]) -> list[str]:
    paths = [p.strip() for v in values for p in v.split(",") if p.strip()]
    bad = [p for p in paths if p not in PATH_CHOICES]
    if bad:
        raise UsageError(f'invalid --path "{bad[0]}"', f"use one of {', '.join(PATH_CHOICES)}")
    return list(dict.fromkeys(paths))


@click.command(epilog="""\b
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

    Kubernetes gates (DynamicResourceAllocation, DRAExtendedResource, DRAPartitionableDevices,
    DRAConsumableCapacity) are learned from the OpenShift FeatureGate, the API server's /metrics, a
    server-side dry-run create (nothing is stored) or the version's default, and each says how.
    Then Kueue (version, configuration, its DRA gates), the DRA driver's ResourceSlices, the
    DeviceClasses and counters the mappings name, the ClusterQueues covering each quota resource,
    and the namespaces of LocalQueues. Exit 1 when a check fails.
    """
    from ..render.output import emit
    from ..render.verify import verify_text
    from ..verify.facts import LISTED, gather
    from ..verify.run import document, failed, run_checks

    selected = parse_paths(paths)
    opts = global_options(ctx)
    view = open_view(opts)
    facts = gather(view, kueue_namespace, probe=not no_probe)
    checks = run_checks(facts, selected or None)
    doc = document(facts, checks)
    emit(doc, opts.output, lambda d: verify_text(d, opts))
    forbidden = [facts.unreadable[k] for k in LISTED if k in facts.unreadable and view.live]
    if len(forbidden) == len(LISTED):
        denied = next(e for e in facts.forbidden)
        raise UserError(f"{denied.message}, and the same for every other object verify reads: nothing could "
                        "be checked", denied.hint)
    return 1 if failed(checks) else 0
