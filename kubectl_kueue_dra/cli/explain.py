"""``explain``: what Kueue charges a workload, line by line, and why it is (not) admitted."""

import click

from ..commands.connection import open_view
from ..errors import UsageError
from .common import KUEUE_NAMESPACE_OPTION, Command
from .options import Accepts, command_options, with_global_options, with_selection_options, with_snapshot_option
from .watch import with_watch_options

ACCEPTS = Accepts(outputs=("table", "wide", "json", "yaml", "name", "jsonpath", "custom-columns"),
                  namespace=True, all_namespaces=True, selection=True)


@click.command(cls=Command, short_help="Explain a workload's DRA charge and why it is (not) admitted.",
               epilog="""\b
Examples:
  kubectl kueue-dra explain job/train -n team-a
  kubectl kueue-dra explain job/train -A            # whichever namespace it is in
  kubectl kueue-dra explain workload/job-train-3c41a -o json
  kubectl kueue-dra explain pytorchjob/llm -n research -o wide
  kubectl kueue-dra explain -f job.yaml        # what-if: a manifest not submitted yet
  kubectl kueue-dra explain -f jobs/ -R        # every manifest under jobs/
  kubectl kueue-dra explain job/train --exit-code   # exit 3 unless admitted and without errors
  kubectl kueue-dra explain -A                 # every workload, one line each
  kubectl kueue-dra explain --cluster-queue gpu-cq -A
  kubectl kueue-dra explain -A -l team=a --sort-by=.summary.state
  kubectl kueue-dra explain -A -o custom-columns=NAME:.summary.name,STATE:.summary.state
  kubectl kueue-dra explain job/train -w --timeout 10m    # each change as it happens
""")
@click.argument("reference", required=False, metavar="TYPE/NAME")
@click.option("-f", "--filename", "filenames", metavar="FILE", multiple=True,
              help="Explain the workloads of manifest files (Jobs, Pods, JobSets, Workloads; the files' "
                   "ResourceClaimTemplates and DeviceClasses come before the cluster's): repeatable, a "
                   "directory's .json/.yaml/.yml files, - reads stdin.")
@click.option("-R", "--recursive", is_flag=True, default=False,
              help="With -f DIR: read the manifests of its subdirectories too.")
@click.option("--kueue-version", metavar="VERSION", help="Use this Kueue version's semantics (default: detected).")
@click.option("--exit-code", is_flag=True, default=False,
              help="Exit 3 when the workload is not admitted or an error finding is shown (default: 0 "
                   "once explained).")
@click.option("--cluster-queue", metavar="CQ", help="With no TYPE/NAME: list only the workloads of this ClusterQueue.")
@click.option("--local-queue", metavar="LQ", help="With no TYPE/NAME: list only the workloads of this LocalQueue.")
@KUEUE_NAMESPACE_OPTION
@with_watch_options
@with_selection_options
@with_snapshot_option
@with_global_options
@click.pass_context
def explain(ctx: click.Context, reference: str | None, filenames: tuple[str, ...], recursive: bool,
            kueue_version: str | None,
            exit_code: bool, cluster_queue: str | None, local_queue: str | None,
            kueue_namespace: str | None, watch: bool, watch_only: bool, timeout: str | None) -> int:
    """What Kueue charges a workload for DRA devices, and why it is (not) admitted.

    Re-derives the charge from claims → DeviceClasses → mappings → ResourceSlice counters the way
    Kueue does, compares it with what Kueue recorded, and checks the queue path. With no TYPE/NAME
    (and no -f) it lists the workloads of the namespace (-A: all), one line each. Exit 0 once
    explained, whatever the answer; with --exit-code, 3 when the workload is not admitted or an
    error finding is shown (a what-if: an error finding).
    """
    from ..commands.explain.request import (
        ATTENTION_EXIT,
        ExplainRequest,
        explain_document,
        list_document,
        needs_attention,
    )
    from ..render.explain import explain_texts
    from ..render.output import emit
    from ..commands.printing import quantity_amount
    from ..render.workload_list import explain_listing, workload_list_text

    opts = command_options(ctx, ACCEPTS)
    request = ExplainRequest(
        reference=reference, filenames=filenames, recursive=recursive, selector=opts.selector,
        field_selector=opts.field_selector, kueue_version=kueue_version, kueue_namespace=kueue_namespace,
        namespace=opts.namespace, all_namespaces=opts.all_namespaces, cluster_queue=cluster_queue,
        local_queue=local_queue).validate(opts.env)
    if watch or watch_only:
        from .watch import run_watch

        return run_watch(opts, request, watch_only, timeout)
    if timeout is not None:
        raise UsageError("--timeout ends a --watch; give -w")
    if request.lists:
        document = list_document(open_view(opts), request)
        emit(document, opts.printer, lambda d: workload_list_text(d, opts), explain_listing(document), quantity_amount,
             out=opts.stdout)
        return 0
    document = explain_document(open_view(opts), request)
    emit(document, opts.printer, lambda d: explain_texts(d, opts), explain_listing(document), quantity_amount,
             out=opts.stdout)
    return ATTENTION_EXIT if exit_code and needs_attention(document) else 0
