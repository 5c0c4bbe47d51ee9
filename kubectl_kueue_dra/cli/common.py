"""Options several commands share."""

import click

KUEUE_NAMESPACE_OPTION = click.option(
    "--kueue-namespace", metavar="NS", default=None,
    help="Namespace of upstream Kueue's controller (default: found from its Deployment, "
         "else kueue-system).")

#: help lists a command by its whole first sentence, never cut (click's default stops at 45 characters)
SUMMARY_LIMIT = 200


class WholeSummaryGroup(click.Group):
    """A group whose help lists each subcommand with its summary uncut."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=SUMMARY_LIMIT)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
