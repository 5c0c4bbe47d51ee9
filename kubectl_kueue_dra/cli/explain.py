"""``explain``: what Kueue charges a workload, line by line, and why it is (not) admitted."""

import sys

import click

from ..errors import UsageError
from .common import KUEUE_NAMESPACE_OPTION, unreadable_findings
from .context import open_view
from .options import global_options, with_global_options, with_snapshot_option


def _read_manifest(path: str) -> dict:
    import yaml

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as e:
        raise UsageError(f"-f {path}: {e.strerror}") from None
    try:
        docs = [d for d in yaml.safe_load_all(text) if d]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise UsageError(f"-f {path}{where}: malformed YAML: {getattr(e, 'problem', None) or e}") from None
    workloads = [d for d in docs if isinstance(d, dict) and d.get("kind") in ("Job", "Pod", "JobSet", "Workload")]
    if not workloads:
        kinds = ", ".join(sorted({str(d.get("kind")) for d in docs if isinstance(d, dict)})) or "nothing"
        raise UsageError(f"-f {path}: no Job, Pod, JobSet or Workload in it (found {kinds})")
    if len(workloads) > 1:
        raise UsageError(f"-f {path}: {len(workloads)} workloads in one file", "explain one at a time")
    return workloads[0]


@click.command(epilog="""\b
Examples:
  kubectl kueue-dra explain job/train -n team-a
  kubectl kueue-dra explain job/train -A            # whichever namespace it is in
  kubectl kueue-dra explain workload/job-train-3c41a -o json
  kubectl kueue-dra explain pytorchjob/llm -n research -o wide
  kubectl kueue-dra explain -f job.yaml        # what-if: a manifest not submitted yet
""")
@click.argument("reference", required=False, metavar="TYPE/NAME")
@click.option("-f", "--filename", metavar="FILE", help="Explain a manifest (Job, Pod, JobSet, Workload); - reads stdin.")
@click.option("--kueue-version", metavar="VERSION", help="Use this Kueue version's semantics (default: detected).")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def explain(ctx: click.Context, reference: str | None, filename: str | None, kueue_version: str | None,
            kueue_namespace: str | None) -> int:
    """What Kueue charges a workload for DRA devices, and why it is (not) admitted.

    Re-derives the charge from claims → DeviceClasses → mappings → ResourceSlice counters the way
    Kueue does, compares it with what Kueue recorded, and checks the queue path.
    """
    from ..kube.refs import parse_ref
    from ..kueue.explain import Settings, explain as run_explain
    from ..kueue.subject import resolve, resolve_in_all_namespaces, subject_from_manifest
    from ..render.explain import explain_text
    from ..render.output import emit

    if bool(reference) == bool(filename):
        raise UsageError("give either TYPE/NAME or -f FILE", "e.g. explain job/train, or explain -f job.yaml")
    if kueue_version:
        from ..kueue.semantics import parse_version

        if parse_version(kueue_version) is None:
            raise UsageError(f'invalid --kueue-version "{kueue_version}"', "use e.g. 0.19.2")
    opts = global_options(ctx)
    ref = parse_ref(reference) if reference else None
    manifest = _read_manifest(filename) if filename else None
    view = open_view(opts)
    namespace = opts.namespace or view.default_namespace
    if ref and opts.all_namespaces:
        subject = resolve_in_all_namespaces(view, ref)
    elif ref:
        subject = resolve(view, ref, namespace)
    else:
        subject = subject_from_manifest(manifest, namespace)
    document = run_explain(view, subject, Settings(kueue_version, kueue_namespace))
    document["findings"] = unreadable_findings(view) + document["findings"]
    document["partial"] = bool(view.unreadable)
    emit(document, opts.output, lambda d: explain_text(d, opts))
    return 0
