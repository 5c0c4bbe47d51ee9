"""The command line: click wiring only. ``root`` is the command group (global flags, lazily loaded
subcommands), ``entry`` runs it (exit codes, the ``error:`` line), one module per command wires
its flags to its package under ``commands/`` and the renderer under ``render/``."""

from .entry import Environment, kubectl_complete, main, run
from .root import COMMANDS, cli

__all__ = ["COMMANDS", "Environment", "cli", "kubectl_complete", "main", "run"]
