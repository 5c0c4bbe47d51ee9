"""The root command: global flags and the lazily loaded subcommands.

Subcommand modules are imported only when that command runs, and the ``kubernetes`` package only
when a command talks to a cluster, so ``--help`` and ``--version`` start fast.
"""

import importlib

import click

from .. import __version__
from .common import WholeSummaryGroup, run_stdout
from .options import global_options, with_global_options, with_snapshot_option

PROG = "kubectl kueue-dra"

# name -> (module, attribute). Each command's one-line help is its own ``short_help``; the command
# modules import only click and their options at the top, so --help stays fast.
COMMANDS = {
    "classes": ("classes", "classes"),
    "map": ("map", "map_"),
    "explain": ("explain", "explain"),
    "queues": ("queues", "queues"),
    "verify": ("verify", "verify"),
    "version": ("version", "version"),
    "completion": ("completion", "completion"),
}

EPILOG = """\b
Examples:
  # Which DeviceClasses charge which quota resource, and how many devices match each
  kubectl kueue-dra classes
  # The same from an offline snapshot (kubectl get -o yaml output, must-gather)
  kubectl kueue-dra classes --from examples/mig-partitionable
  # As JSON, for scripts
  kubectl kueue-dra classes -o json
  # The deviceClassMappings, and a safe change (validated, diff shown, dry run on the server)
  kubectl kueue-dra map
  kubectl kueue-dra map set gpu --device-class gpu.nvidia.com --dry-run=server
"""


def _show_version(ctx: click.Context, value: bool) -> None:
    """``--version``, on the run's stdout."""
    if value and not ctx.resilient_parsing:
        click.echo(f"kueue-dra {__version__}", color=ctx.color, file=run_stdout(ctx))
        ctx.exit()


class LazyGroup(WholeSummaryGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        return getattr(importlib.import_module(f"{__package__}.{module}"), attr)

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[override]
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, COMMANDS, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise click.UsageError(f"unknown command '{name}'.{hint} "
                                   f"Run '{PROG} --help' for the list.", ctx)
        return super().resolve_command(ctx, args)


@click.group(cls=LazyGroup, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"],
                                                               "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, help="Show the version and exit.",
              callback=lambda ctx, param, value: _show_version(ctx, value))
@with_snapshot_option
@with_global_options
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Make Kueue's DRA GPU quota visible and fixable.

    Shows which DeviceClasses charge which quota resource, explains what Kueue charges a workload
    and why, and checks that feature gates, mappings and queues are set up so that GPUs are
    counted. Every command reads the cluster of the current context, or with --from PATH an
    offline snapshot (kubectl get -o yaml output, a must-gather tree). Global flags are accepted
    before or after the command.
    """
    global_options(ctx)
