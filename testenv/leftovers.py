"""What a test process leaves behind when it does not end normally: the running clusters are
stopped at exit or on SIGTERM (a CI timeout skips pytest's teardown), and the temporary
directories of a process that was SIGKILLed are removed by the next one to start a cluster."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

from testenv.procs import _LIVE


#: the running clusters (``testenv.harness.Cluster``): ``Cluster.start`` adds one, ``stop`` discards it
_CLUSTERS: set[Any] = set()


@atexit.register
def _kill_leftovers() -> None:  # last resort if teardown did not run
    for c in list(_CLUSTERS):
        c.stop()
    for p in list(_LIVE):
        p.stop(timeout=5)


def _on_sigterm(signum, frame) -> None:
    """A CI timeout usually sends SIGTERM, which skips pytest teardown: clean up, then die."""
    _kill_leftovers()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _install_sigterm_handler() -> None:
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        try:
            signal.signal(signal.SIGTERM, _on_sigterm)
        except ValueError:  # not the main thread
            pass


DIR_PREFIX = "kueue-dra-cluster-"
OWNER_FILE = "owner.pid"


def _sweep_stale_dirs() -> None:
    """Remove cluster dirs left by a test process that was SIGKILLed (its children died with it)."""
    for d in Path(tempfile.gettempdir()).glob(f"{DIR_PREFIX}*"):
        try:
            pid = int((d / OWNER_FILE).read_text())
        except (OSError, ValueError):
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except PermissionError:
            pass
