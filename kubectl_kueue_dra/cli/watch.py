"""``explain --watch``: the state first (unless ``--watch-only``), then one line per change: the
workload list's row (state, DRA charge, reason), or with ``-o json|yaml|jsonpath|…`` one document
per change, printed by the same printers as the first."""

from __future__ import annotations

from typing import Any

import click

WATCH_OPTIONS = [
    click.option("-w", "--watch", "watch", is_flag=True, default=False,
                 help="After the answer, follow the workload (or the list) and print each change of its state, "
                      "charge or findings (a live cluster)."),
    click.option("--watch-only", is_flag=True, default=False,
                 help="Like --watch, without the first answer: only the changes."),
    click.option("--timeout", metavar="DURATION", default=None,
                 help="With --watch: stop after this long (e.g. 30s, 5m), exit 0 (default: until interrupted)."),
]


def with_watch_options(f: Any) -> Any:
    for option in reversed(WATCH_OPTIONS):
        f = option(f)
    return f


def run_watch(opts: Any, request: Any, watch_only: bool, timeout: str | None) -> int:
    import dataclasses

    from ..commands.connection import open_view
    from ..commands.explain.request import explain_document, list_document
    from ..commands.explain.watch import WatchRequest, follow
    from ..commands.printing import quantity_amount, watch_timeout
    from ..render.explain import explain_texts
    from ..render.output import emit
    from ..render.watch import ChangeRows
    from ..render.workload_list import explain_listing, workload_list_text

    def initial(view: Any) -> dict[str, Any]:
        return list_document(view, request) if request.lists else explain_document(view, request)

    text = (lambda d: workload_list_text(d, opts)) if request.lists else (lambda d: explain_texts(d, opts))
    watch = WatchRequest(timeout=watch_timeout(timeout), watch_only=watch_only)
    rows = ChangeRows(opts)
    spec = opts.printer
    for change in follow(lambda: open_view(opts), request, watch, initial, opts.env.clock):
        document = change.document
        if change.initial:
            emit(document, spec, text, explain_listing(document), quantity_amount, out=opts.stdout)
            if request.lists:
                rows.seed(document.get("items") or [])
            spec = dataclasses.replace(spec, no_headers=True) if spec.family == "custom-columns" else spec
        elif spec.family in ("table", "wide"):
            click.echo(rows.line(document["summary"], document.get("dra")), color=True, file=opts.stdout)
        else:
            emit(document, spec, lambda d: "", explain_listing(document), quantity_amount, out=opts.stdout)
            if spec.family == "custom-columns":
                spec = dataclasses.replace(spec, no_headers=True)
        if spec.family == "yaml":
            click.echo("---", file=opts.stdout)
    return 0
