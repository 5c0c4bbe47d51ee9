"""The root command: global flags, lazily loaded subcommands, and one place for errors.

Subcommand modules are imported only when that command runs, and the ``kubernetes`` package only
when a command talks to a cluster, so ``--help`` and ``--version`` start fast.
"""

import contextlib
import difflib
import importlib
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import click

from .. import __version__
from ..errors import UserError
from .common import WholeSummaryGroup
from .options import global_options, with_global_options, with_snapshot_option

PROG = "kubectl kueue-dra"

# name -> (module, attribute). Each command's one-line help is its own ``short_help``; the command
# modules import only click and their options at the top, so --help stays fast.
COMMANDS = {
    "classes": ("classes", "classes"),
    "map": ("map", "map_"),
    "explain": ("explain", "explain"),
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
            close = difflib.get_close_matches(name, COMMANDS, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise click.UsageError(f"unknown command '{name}'.{hint} "
                                   f"Run '{PROG} --help' for the list.", ctx)
        return super().resolve_command(ctx, args)


@click.group(cls=LazyGroup, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"],
                                                               "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="kueue-dra", message="%(prog)s %(version)s")
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
    except click.ClickException as e:
        e.show()
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


def run() -> None:
    import gc

    # One short run that builds a million small dicts from JSON and frees them at exit: the cyclic
    # collector only re-scans them (3x slower parsing at 1,000 nodes; docs/performance.md).
    gc.disable()
    sys.exit(main())
