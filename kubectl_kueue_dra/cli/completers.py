"""The dynamic candidates of shell completion, attached to the click parameters they complete:
contexts from the kubeconfig; namespaces, DeviceClasses, mapping names, ClusterQueues, LocalQueues
and the ``TYPE/NAME`` of ``explain`` (Jobs, Workloads, …) from the cluster (with a short timeout)
or from ``--from``. A completer never raises: an unreachable
cluster, no kubeconfig or a 403 give no candidates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from . import recall

COMPLETION_TIMEOUT = 3.0  # seconds per request while the user waits at a TAB


def _options(ctx: click.Context) -> Any:
    import dataclasses

    from .options import global_options

    opts = global_options(ctx)
    return dataclasses.replace(opts, request_timeout=min(opts.request_timeout, COMPLETION_TIMEOUT),
                               verbose=0)


def _view(ctx: click.Context) -> Any:
    from ..commands.connection import open_view

    return open_view(_options(ctx))


def _quietly(fn: Callable[[click.Context, str], list[Any]]) -> Callable:
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        recall.asked_dynamic()  # its candidates come from outside: never answered from a cache
        try:
            return [c for c in fn(ctx, incomplete)
                    if str(getattr(c, "value", c)).startswith(incomplete)]
        except Exception:  # noqa: BLE001 - unreachable cluster, no kubeconfig, 403: no candidates
            return []
    return complete


@_quietly
def complete_contexts(ctx: click.Context, incomplete: str) -> list[str]:
    from ..commands.candidates import kubeconfig_contexts

    opts = _options(ctx)
    return kubeconfig_contexts(opts.kubeconfig, opts.env)


@_quietly
def complete_namespaces(ctx: click.Context, incomplete: str) -> list[str]:
    from ..commands.candidates import names

    return names(_view(ctx).list("Namespace"))


@_quietly
def complete_device_classes(ctx: click.Context, incomplete: str) -> list[str]:
    from ..commands.candidates import names

    return names(_view(ctx).list("DeviceClass"))


@_quietly
def complete_mappings(ctx: click.Context, incomplete: str) -> list[str]:
    from ..commands.candidates import mapping_names

    namespace = ctx.params.get("kueue_namespace") or (ctx.parent.params.get("kueue_namespace") if ctx.parent else None)
    return mapping_names(_view(ctx), namespace)


@_quietly
def complete_cluster_queues(ctx: click.Context, incomplete: str) -> list[str]:
    from ..commands.candidates import names

    return names(_view(ctx).list("ClusterQueue"))


@_quietly
def complete_local_queues(ctx: click.Context, incomplete: str) -> list[str]:
    from ..commands.candidates import namespaced_names

    opts = _options(ctx)
    return namespaced_names(_view(ctx), "LocalQueue", opts.namespace, opts.all_namespaces)


@_quietly
def complete_reference(ctx: click.Context, incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    from ..commands.candidates import REFERENCE_KINDS, reference_names

    if "/" not in incomplete:
        return [CompletionItem(f"{kind}/", nospace=True) for kind in REFERENCE_KINDS]
    return reference_names(incomplete.split("/", 1)[0], lambda: _view(ctx), _options(ctx).namespace)


def complete_output(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """-o: the plain formats, then the template ones ending in ``=`` (no space after them)."""
    from click.shell_completion import CompletionItem

    from ..render.printers.spec import PLAIN_FORMATS, TEMPLATE_FORMATS

    items = [CompletionItem(f) for f in PLAIN_FORMATS] + [CompletionItem(f"{f}=", nospace=True)
                                                           for f in TEMPLATE_FORMATS]
    return [i for i in items if str(i.value).startswith(incomplete)]


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


# (command name or None for any, parameter name) -> completer
COMPLETERS: dict[tuple[str | None, str], Callable] = {
    (None, "context"): complete_contexts,
    (None, "namespace"): complete_namespaces,
    (None, "kueue_namespace"): complete_namespaces,
    (None, "kubeconfig"): complete_path,
    (None, "from_path"): complete_path,
    (None, "output_value"): complete_output,
    (None, "filenames"): complete_path,
    (None, "template"): complete_path,
    ("set", "device_classes"): complete_device_classes,
    ("remove", "device_classes"): complete_device_classes,
    ("set-extended-resource", "device_class"): complete_device_classes,
    ("classes", "devices"): complete_device_classes,
    ("set", "name"): complete_mappings,
    ("remove", "name"): complete_mappings,
    ("queues", "cluster_queue"): complete_cluster_queues,
    ("explain", "cluster_queue"): complete_cluster_queues,
    ("explain", "local_queue"): complete_local_queues,
    ("explain", "reference"): complete_reference,
}


def _attach(command: click.Command, seen: set[int]) -> None:
    if id(command) in seen:
        return
    seen.add(id(command))
    for param in command.params:
        fn = COMPLETERS.get((command.name, param.name or "")) or COMPLETERS.get((None, param.name or ""))
        if fn is not None and getattr(param, "_custom_shell_complete", None) is None:
            param._custom_shell_complete = fn  # click's slot for shell_complete=
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _attach(sub, seen)


def prepare(words: list[str]) -> None:
    """Attach the dynamic completers to the root and to the commands named in ``words``
    (commands are loaded lazily, so only those are imported)."""
    from .root import COMMANDS, cli

    seen: set[int] = set()
    _attach(cli, seen)
    ctx = click.Context(cli)
    for word in words:
        if word in COMMANDS:
            command = cli.get_command(ctx, word)
            if command is not None:
                _attach(command, seen)
