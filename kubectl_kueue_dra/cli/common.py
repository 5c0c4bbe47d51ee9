"""Options several commands share."""

import click

KUEUE_NAMESPACE_OPTION = click.option(
    "--kueue-namespace", metavar="NS", default=None,
    help="Namespace of upstream Kueue's controller (default: found from its Deployment, "
         "else kueue-system).")
