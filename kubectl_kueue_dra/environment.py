"""What one run reads and writes besides its arguments: the streams, the environment variables,
the working directory and the clock (httpie's ``Environment``).

The entry point builds one from the process (``cli/entry.process_environment``, the only place
that reads ``os.environ`` and ``sys.std*``); the tests build their own and run the CLI in process
with it. Every part of the run that needs one of these gets it from here, passed down: nothing in
the package reads or changes the process's streams or environment variables (tests/unit/
test_architecture.py checks it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO

from . import userdirs


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True, kw_only=True)
class Clock:
    """Where a run reads the time: ``now`` (an aware UTC datetime) for what is shown or written
    (ages, restart stamps), ``monotonic`` and ``sleep`` for deadlines, retries and waits."""

    now: Callable[[], datetime] = _utc_now
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


SYSTEM_CLOCK = Clock()


@dataclass(frozen=True, kw_only=True)
class Environment:
    """The streams, variables, working directory and clock of one run.

    ``cwd`` is the directory relative paths of the command line (``--from``, ``--kubeconfig``,
    ``-f``, the files of ``KUBECONFIG``, ``KUEUE_DRA_STATS``) are read from; None: the process's
    own. Paths are shown as given either way."""

    stdin: IO[str]
    stdout: IO[str]
    stderr: IO[str]
    vars: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    clock: Clock = SYSTEM_CLOCK

    def path(self, path: str) -> str:
        """Where a path of the command line is opened."""
        return path if self.cwd is None or os.path.isabs(path) else os.path.join(self.cwd, path)

    def home(self) -> str:
        """The user's home directory: ``HOME`` (``USERPROFILE`` on Windows), else the account's."""
        return userdirs.home(self.vars)

    def expand_user(self, path: str) -> str:
        """``~`` and ``~/…`` with this run's home, ``~user/…`` with that account's."""
        if not path.startswith("~"):
            return path
        user, sep, rest = path[1:].partition("/")
        if not user:
            return self.home() + sep + rest
        try:
            import pwd

            return pwd.getpwnam(user).pw_dir + sep + rest
        except (ImportError, KeyError):
            return path

    def cache_home(self) -> str:
        """``$XDG_CACHE_HOME``, else ``~/.cache``."""
        return userdirs.cache_home(self.vars)
