"""Turn the global options into a ClusterView: the live cluster, or a snapshot with --from."""

from ..kube.view import ClusterView
from .options import GlobalOptions


def open_view(opts: GlobalOptions) -> ClusterView:
    if opts.from_path:
        from ..kube.snapshot import load_snapshot

        return load_snapshot(opts.from_path, opts.namespace)
    from ..kube.client import KubeClient
    from ..kube.kubeconfig import ConnectionOptions
    from ..kube.view import LiveView

    client = KubeClient(ConnectionOptions(
        kubeconfig=opts.kubeconfig, context=opts.context, namespace=opts.namespace,
        as_user=opts.as_user, as_groups=tuple(opts.as_groups),
        request_timeout=opts.request_timeout,
        insecure_skip_tls_verify=opts.insecure_skip_tls_verify, debug=opts.verbose > 0))
    return LiveView(client)
