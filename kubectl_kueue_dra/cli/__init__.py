"""The command line: click wiring only. ``root`` is the command group (global flags, lazily loaded
subcommands), ``entry`` holds the process's entry points and ``dispatch`` runs a command line
through click (exit codes, the ``error:`` line), one module per command wires its flags to its
package under ``commands/`` and the renderer under ``render/``.

``cli``, ``COMMANDS`` and ``Environment`` are loaded when first asked for: importing this package
loads neither click nor the commands (the frozen binary's cached answers, ``recall``, come first)."""

from typing import Any

from .entry import kubectl_complete, main, run

__all__ = ["COMMANDS", "Environment", "cli", "kubectl_complete", "main", "run"]


def __getattr__(name: str) -> Any:
    if name in ("cli", "COMMANDS"):
        from . import root

        return getattr(root, name)
    if name == "Environment":
        from ..environment import Environment

        return Environment
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
