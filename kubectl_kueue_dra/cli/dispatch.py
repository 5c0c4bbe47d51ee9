"""One run of the command line, through click: logging for the run, the root command, and the one
place that turns an error into one ``error:`` line and an exit code. ``entry`` (the process's
entry points) calls ``run_once``; this module loads click, which ``entry`` does not."""

import logging
from typing import IO

import click

from ..environment import Environment
from ..errors import UserError
from . import recall
from .root import PROG, cli

__all__ = ["click_message", "run_once"]


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Debug lines go to the stderr of the run in progress, not the one of the first run."""

    run_stream: IO[str] | None = None

    @property  # type: ignore[override]
    def stream(self) -> IO[str] | None:
        return self.run_stream

    @stream.setter
    def stream(self, value: IO[str]) -> None:
        pass

    def emit(self, record: logging.LogRecord) -> None:
        if self.run_stream is not None:
            super().emit(record)


def _configure_logging(stderr: IO[str] | None) -> None:
    """Once per process a handler; every run starts at WARNING again (-v raises it for one run)
    and writes to its own stderr (None: the run is over)."""
    logger = logging.getLogger("kubectl_kueue_dra")
    handler = next((h for h in logger.handlers if isinstance(h, _StderrHandler)), None)
    if handler is None:
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("debug: %(name)s: %(message)s"))
        logger.addHandler(handler)
    handler.run_stream = stderr
    logger.setLevel(logging.WARNING)


def run_once(args: list[str], env: Environment) -> int:
    """One run of the command line ``args`` in ``env`` (``entry.main``)."""
    from .. import stats  # KUEUE_DRA_STATS=PATH: what the run cost, as JSON

    recall.begin()
    stats_path = env.vars.get(stats.ENV) or None
    stats.begin(args, path=stats_path, opened_at=env.path(stats_path) if stats_path else None,
                clock=env.clock, stderr=env.stderr)
    _configure_logging(env.stderr)
    try:
        code = _dispatch(args, env)
    finally:
        _configure_logging(None)
    stats.write(code)
    return code


def _dispatch(args: list[str], env: Environment) -> int:
    from .completion import completion_request  # __complete (kubectl) and click's completion

    completing = completion_request(args, env)
    if completing is not None:
        return completing
    verbose = any(a in ("-v", "--verbose") or (a.startswith("-v") and set(a[1:]) == {"v"}) for a in args)
    from ..commands.runtime import prepare

    prepare(env)
    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False, obj=env,
                      terminal_width=recall.help_width(env.vars, env.stdout))
        return rv if isinstance(rv, int) else 0
    except click.exceptions.NoArgsIsHelpError as e:  # type: ignore[attr-defined]
        text = e.ctx.get_help()
        recall.printed(text + "\n")
        click.echo(text, file=env.stdout)
        return 0
    except click.ClickException as e:  # click's own usage errors: one line too, no usage block
        from ..render.terminal import safe

        click.echo(safe(f"error: {click_message(e)}"), file=env.stderr)
        return e.exit_code
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("aborted", file=env.stderr)
        return 130
    except UserError as e:
        if verbose:
            logging.getLogger("kubectl_kueue_dra").debug("error detail", exc_info=True)
        from ..render.terminal import safe

        click.echo(safe(f"error: {e}"), file=env.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # the last line of defence: one line, no traceback
        if verbose:
            raise
        from ..render.terminal import safe

        click.echo(safe(f"error: internal error: {type(e).__name__}: {e} (run with -v for details)"), file=env.stderr)
        return 1


def click_message(e: click.ClickException) -> str:
    """click's message as one line in kubectl's words: ``unknown flag: --foo``, ``invalid value for
    --color: …``, the command named where it helps (``see 'kubectl kueue-dra map --help'``)."""
    message = " ".join(e.format_message().split())
    if isinstance(e, click.NoSuchOption):
        message = f"unknown flag: {e.option_name}"
        if e.possibilities:
            message += f" (did you mean {' or '.join(sorted(e.possibilities))}?)"
    elif isinstance(e, click.BadOptionUsage) and "requires an argument" in message:
        message = f"flag needs an argument: {e.option_name}"
    else:
        message = message[:1].lower() + message[1:]
        message = message.replace("invalid value for '", "invalid value for ").replace("': ", ": ", 1) \
            if message.startswith("invalid value for '") else message
    message = message.rstrip(".")
    ctx = getattr(e, "ctx", None)
    if isinstance(e, click.UsageError) and ctx is not None and ctx.command_path and "--help" not in message:
        message += f"; see '{ctx.command_path} --help'"
    return message
