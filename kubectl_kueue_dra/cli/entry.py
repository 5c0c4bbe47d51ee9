"""Running the CLI: the entry points (``kubectl-kueue_dra``, ``python -m``, kubectl's completion
executable) and the environment one run sees. The one place that reads the process's streams,
variables and arguments; it loads nothing heavy itself, so that the frozen binary can answer a
repeated ``--help`` or ``<TAB>`` from its cache (``recall``) before click is loaded. A run goes
through click in ``dispatch``."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from . import recall

if TYPE_CHECKING:
    from ..environment import Environment

__all__ = ["kubectl_complete", "main", "process_environment", "run"]


def process_environment() -> Environment:
    """The process's streams, variables and working directory: the one place the package reads
    ``sys.std*`` and ``os.environ`` (a real run; the tests build their own Environment)."""
    from ..environment import Environment

    return Environment(stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr, vars=dict(os.environ))


def main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    """Entry point of ``kubectl-kueue_dra``: exit codes 0 ok, 1 failure, 2 usage. The run reads
    and writes only ``env`` (the process's when None; the tests run the CLI in process with their
    own): its streams, variables, working directory and clock are passed down, the process's are
    neither read nor changed."""
    from .dispatch import run_once

    env = process_environment() if env is None else env
    return run_once(sys.argv[1:] if argv is None else list(argv), env)


def run() -> None:
    """The ``kubectl-kueue_dra`` console script and ``python -m``: one run in the process's environment."""
    import gc

    # One short run that builds a million small dicts from JSON and frees them at exit: the cyclic
    # collector only re-scans them (3x slower parsing at 1,000 nodes; docs/performance.md).
    gc.disable()
    from ..frozen import is_frozen

    args, env_vars, frozen = sys.argv[1:], dict(os.environ), is_frozen()
    width = recall.help_width(env_vars, sys.stdout)
    answer = recall.recalled(args, env_vars, width=width, frozen=frozen)
    if answer is not None:
        sys.stdout.write(answer)
        sys.stdout.flush()
        sys.exit(0)
    code = main(args, process_environment())
    recall.keep(args, env_vars, width=width, frozen=frozen, exit_code=code)
    sys.exit(code)


def kubectl_complete() -> None:
    """The ``kubectl_complete-kueue_dra`` console script: kubectl's ``__complete`` protocol."""
    from .completion import cobra_complete

    env = process_environment()
    env.stdout.write(cobra_complete(sys.argv[1:], env))
    sys.exit(0)
