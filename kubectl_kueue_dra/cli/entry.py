"""Running the CLI: the entry points (``kubectl-kueue_dra``, ``python -m``), the environment one run
sees, logging, and the one place that turns an error into one ``error:`` line and an exit code."""

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import click

from ..errors import UserError
from .root import PROG, cli


@dataclass
class Environment:
    """What a run reads and writes besides its arguments: the streams, the environment variables
    and the working directory (httpie's ``Environment``). ``main(args, Environment(...))`` runs
    the CLI in this process against them; nothing of one run is seen by the next."""

    stdin: IO[str] = field(default_factory=lambda: sys.stdin)
    stdout: IO[str] = field(default_factory=lambda: sys.stdout)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    vars: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    cwd: str | None = None


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Debug lines go to the stderr of the run in progress, not the one of the first run."""

    @property  # type: ignore[override]
    def stream(self) -> IO[str]:
        return sys.stderr

    @stream.setter
    def stream(self, value: IO[str]) -> None:
        pass


def _configure_logging() -> None:
    """Once per process a handler; every run starts at WARNING again (-v raises it for one run)."""
    logger = logging.getLogger("kubectl_kueue_dra")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("debug: %(name)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING)


@contextlib.contextmanager
def _installed(env: Environment) -> Iterator[None]:
    """The run sees ``env`` as its streams, os.environ and working directory; all are put back."""
    saved = sys.stdin, sys.stdout, sys.stderr, dict(os.environ), os.getcwd()
    sys.stdin, sys.stdout, sys.stderr = env.stdin, env.stdout, env.stderr
    os.environ.clear()
    os.environ.update(env.vars)
    if env.cwd:
        os.chdir(env.cwd)
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        os.environ.clear()
        os.environ.update(saved[3])
        os.chdir(saved[4])


def main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    """Entry point of ``kubectl-kueue_dra``: exit codes 0 ok, 1 failure, 2 usage. With ``env``
    the run reads and writes only that environment (the tests run the CLI in process so)."""
    if env is None:
        return _run_once(argv)
    with _installed(env):
        return _run_once(argv)


def _run_once(argv: list[str] | None) -> int:
    from .. import stats  # KUEUE_DRA_STATS=PATH: what the run cost, as JSON

    args = sys.argv[1:] if argv is None else list(argv)
    stats.begin(args)
    code = _dispatch(args)
    stats.write(code)
    return code


def _dispatch(args: list[str]) -> int:
    _configure_logging()
    from .completion import completion_request  # __complete (kubectl) and click's completion

    completing = completion_request(args)
    if completing is not None:
        return completing
    verbose = any(a in ("-v", "--verbose") or (a.startswith("-v") and set(a[1:]) == {"v"}) for a in args)
    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.NoArgsIsHelpError as e:  # type: ignore[attr-defined]
        click.echo(e.ctx.get_help())
        return 0
    except click.ClickException as e:  # click's own usage errors: one line too, no usage block
        from ..render.terminal import safe

        click.echo(safe(f"error: {click_message(e)}"), err=True)
        return e.exit_code
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return 130
    except UserError as e:
        if verbose:
            logging.getLogger("kubectl_kueue_dra").debug("error detail", exc_info=True)
        from ..render.terminal import safe

        click.echo(safe(f"error: {e}"), err=True)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # the last line of defence: one line, no traceback
        if verbose:
            raise
        from ..render.terminal import safe

        click.echo(safe(f"error: internal error: {type(e).__name__}: {e} (run with -v for details)"), err=True)
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


def run() -> None:
    import gc

    # One short run that builds a million small dicts from JSON and frees them at exit: the cyclic
    # collector only re-scans them (3x slower parsing at 1,000 nodes; docs/performance.md).
    gc.disable()
    sys.exit(main())
