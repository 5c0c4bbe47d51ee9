"""Options several commands share, and the command classes every command is made with (their
help goes to the run's stdout, the ``Environment`` in the root context's ``obj``)."""

from typing import Any

import click

from . import recall

KUEUE_NAMESPACE_OPTION = click.option(
    "--kueue-namespace", metavar="NS", default=None,
    help="Namespace of upstream Kueue's controller (default: found from its Deployment, "
         "else kueue-system).")

#: help lists a command by its whole first sentence, never cut (click's default stops at 45 characters)
SUMMARY_LIMIT = 200


def run_stdout(ctx: click.Context) -> Any:
    """The stdout of the run in progress."""
    return ctx.find_root().obj.stdout


def _show_help(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``--help`` as click prints it, on the run's stdout."""
    if not value or ctx.resilient_parsing:
        return
    text = ctx.get_help()
    recall.printed(text + "\n")  # the frozen binary may answer this line again from its cache
    click.echo(text, color=ctx.color, file=run_stdout(ctx))
    ctx.exit()


class _RunHelp(click.Command):
    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.callback = _show_help
        return option


class Command(_RunHelp):
    """A command whose --help goes to the run's stdout."""


class WholeSummaryGroup(_RunHelp, click.Group):
    """A group whose help lists each subcommand with its summary uncut; its commands (made with
    ``group.command``) are ``Command``s."""

    command_class = Command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=SUMMARY_LIMIT)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
