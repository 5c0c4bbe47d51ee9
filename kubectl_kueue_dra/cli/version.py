"""``version``: this plugin's version, the API server's, and which Kueue runs where."""

from __future__ import annotations

import platform
import sys
from typing import Any

import click

from .. import __version__
from ..errors import UserError
from .common import KUEUE_NAMESPACE_OPTION
from .context import open_view
from .options import global_options, with_global_options, with_snapshot_option


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


def _manager_image(deployment: dict[str, Any] | None) -> str | None:
    containers = ((((deployment or {}).get("spec") or {}).get("template") or {}).get("spec") or {}).get(
        "containers") or []
    manager = next((c for c in containers if c.get("name") == "manager"), containers[0] if containers else None)
    return (manager or {}).get("image")


def _operator_version(view: Any, namespace: str | None) -> str | None:
    """On OpenShift the image is pinned by digest: the operator's CSV carries the version."""
    if not namespace or not view.serves("ClusterServiceVersion"):
        return None
    for csv in view.try_list("ClusterServiceVersion", namespace) or []:
        name = (csv.get("metadata") or {}).get("name") or ""
        if name.startswith("kueue-operator") or name.startswith("kueue"):
            return (csv.get("spec") or {}).get("version")
    return None


def kueue_version(view: Any, kueue_namespace: str | None) -> dict[str, Any]:
    """Kueue's version (from the controller image tag, else the operator's CSV), the controller
    Deployment and where the configuration lives (the same lookup every command uses)."""
    from ..kueue.config import load_kueue_config

    config = load_kueue_config(view, kueue_namespace)
    deployment = config.deployment
    meta = (deployment or {}).get("metadata") or {}
    version, source = config.version, "image tag" if config.version else None
    if version is None and deployment is not None:
        version = _operator_version(view, meta.get("namespace"))
        source = "operator ClusterServiceVersion" if version else None
    return {
        "version": version,
        "versionSource": source,
        "image": _manager_image(deployment),
        "deployment": {"namespace": meta.get("namespace"), "name": meta.get("name")} if deployment else None,
        "config": config.target() if config.found else None,
        "configDescription": config.describe(),
        "problem": None if config.found and not config.problem else config.problem,
    }


@click.command(epilog="""\b
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
    from the Kueue operator's ClusterServiceVersion when the image is pinned by digest).
    """
    from ..render.output import emit
    from ..render.version import version_text

    opts = global_options(ctx)
    document: dict[str, Any] = {"clientVersion": client_version()}
    error: UserError | None = None
    if not client_only:
        document.update(serverVersion=None, kueue=None)
        try:
            view = open_view(opts)
            document["source"] = view.source or f"snapshot {opts.from_path}"
            document["serverVersion"] = view.server_version()
            document["kueue"] = kueue_version(view, kueue_namespace)
        except UserError as e:  # the client part is still worth printing, as kubectl does
            error = e
    emit(document, opts.output, version_text)
    if error is not None:
        raise error
    return 0
