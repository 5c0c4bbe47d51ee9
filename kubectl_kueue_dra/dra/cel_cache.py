"""Where cel-python's parser tables are cached on disk: ``<cache home>/kueue-dra/``, the cache home
being the run's ``$XDG_CACHE_HOME`` (else ``~/.cache``). The entry point says it for each run
before a command runs (``commands/runtime.prepare``); ``dra/cel/parser`` reads it when it builds
the process's parser, on the first expression compiled. A module of its own, so that saying it
does not load cel-python."""

from __future__ import annotations

import os

_directory: list[str] = []


def use(cache_home: str) -> None:
    """The run's cache home (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    _directory[:] = [os.path.join(cache_home, "kueue-dra")]


def directory() -> str | None:
    """The directory the tables go in; None: no run said it (they are then not cached)."""
    return _directory[0] if _directory else None
