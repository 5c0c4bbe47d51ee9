"""``version``: this plugin's version, the API server's, and which Kueue runs where."""

from __future__ import annotations

import platform
import sys
from typing import Any

import click

from .. import __version__
from ..commands.connection import open_view
from .common import KUEUE_NAMESPACE_OPTION, Command
from .options import Accepts, command_options, with_global_options, with_snapshot_option

#: version prints lines or a document: no tables, no colour, cluster-wide
ACCEPTS = Accepts(outputs=("table", "json", "yaml", "jsonpath"), tables=False, color=False, sort=False)


def client_version() -> dict[str, Any]:
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine)
    os_name = {"win32": "windows"}.get(sys.platform, sys.platform)
    return {
        "kueueDra": __version__,
        "python": platform.python_version(),
        "frozen": bool(getattr(sys, "frozen", False)),
        "platform": f"{os_name}/{arch}",
    }


@click.command(cls=Command, short_help="Print the plugin, server, OpenShift and Kueue versions.", epilog="""\b
Examples:
  kubectl kueue-dra version
  kubectl kueue-dra version --client        # no cluster access
  kubectl kueue-dra version -o json
""")
@click.option("--client", "client_only", is_flag=True, default=False,
              help="Only this plugin's version; do not contact the cluster.")
@KUEUE_NAMESPACE_OPTION
@with_snapshot_option
@with_global_options
@click.pass_context
def version(ctx: click.Context, client_only: bool, kueue_namespace: str | None) -> int:
    """Plugin version, server version, and the Kueue version and where Kueue runs.

    The Kueue version comes from the tag of the kueue-controller-manager image (on OpenShift,
    from the Kueue operator's ClusterServiceVersion, or the operator Deployment's OLM labels, when
    the image is pinned by digest).
    """
    from ..commands.version.request import VersionRequest, version_document
    from ..render.output import emit
    from ..render.version import version_text

    request = VersionRequest(client_only, kueue_namespace).validate()
    opts = command_options(ctx, ACCEPTS)
    document, error = version_document(request, client_version(), lambda: open_view(opts), opts.from_path)
    emit(document, opts.printer, version_text, out=opts.stdout)
    if error is not None:
        raise error
    return 0
