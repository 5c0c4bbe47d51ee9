"""How a command reaches the objects it reads: with --from, a snapshot; else the live cluster
through the connection flags (kubeconfig, context, impersonation, --request-timeout in kubectl's
duration syntax). The view is the only way a command reads; the ``kubernetes`` package is loaded
only when a command talks to a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..environment import Environment
from ..k8s.duration import duration

if TYPE_CHECKING:
    from ..kube.view import ClusterView

DEFAULT_TIMEOUT = 30.0


class ViewOptions(Protocol):
    """The global flags a view is opened with (cli/options' GlobalOptions), and the run's
    environment (KUBECONFIG, home, working directory, clock)."""

    env: Environment
    from_path: str | None
    namespace: str | None
    kubeconfig: str | None
    context: str | None
    as_user: str | None
    as_groups: list[str]
    request_timeout: float
    insecure_skip_tls_verify: bool
    disable_compression: bool | None
    verbose: int


def parse_timeout(value: str) -> float:
    """--request-timeout (kubectl's duration syntax; 0 means the default)."""
    return duration(value, "--request-timeout", DEFAULT_TIMEOUT)


def open_view(opts: ViewOptions) -> ClusterView:
    if opts.from_path:
        from ..kube.snapshot import load_snapshot

        return load_snapshot(opts.from_path, opts.namespace, opened_at=opts.env.path(opts.from_path))
    from ..kube.client import KubeClient
    from ..kube.kubeconfig import ConnectionOptions
    from ..kube.live import LiveView

    client = KubeClient(ConnectionOptions(
        env=opts.env, kubeconfig=opts.kubeconfig, context=opts.context, namespace=opts.namespace,
        as_user=opts.as_user, as_groups=tuple(opts.as_groups),
        request_timeout=opts.request_timeout,
        insecure_skip_tls_verify=opts.insecure_skip_tls_verify, disable_compression=opts.disable_compression,
        debug=opts.verbose > 0))
    return LiveView(client)
