"""Pieces every read command shares: the view, the Kueue config, partial-read findings."""

from typing import Any

import click

from ..findings import finding
from ..kube.view import ClusterView

KUEUE_NAMESPACE_OPTION = click.option(
    "--kueue-namespace", metavar="NS", default=None,
    help="Namespace of upstream Kueue's controller (default: found from its Deployment, "
         "else kueue-system).")


def unreadable_findings(view: ClusterView) -> list[dict[str, Any]]:
    """One finding per list or get that was forbidden; the answer is then partial."""
    return [finding("warning", "Unreadable", f"{e.message}; the answer below is partial", e.hint)
            for e in view.unreadable]


def config_findings(config: Any, view: ClusterView) -> list[dict[str, Any]]:
    if config.found and not config.problem:
        return []
    if config.problem and config.found:
        return [finding("error", "KueueConfigInvalid", config.problem,
                        "fix the Kueue configuration; Kueue will not start with it")]
    where = "in the snapshot" if not view.live else "in the cluster"
    return [finding("warning", "KueueConfigNotFound",
                    f"no Kueue configuration found {where} ({config.problem}); "
                    "deviceClassMappings are unknown",
                    "pass --kueue-namespace if Kueue runs elsewhere")]
