"""Publish one build into the shared binary cache, the same way for every binary.

A build runs under a file lock per target (parallel CI steps, pytest-xdist workers, several
checkouts share the cache), into a temporary sibling directory; its ``build-info.json`` is
written, and only then is the directory renamed to its final name, so a half-built directory is
never used. A builder that finds the target complete once it holds the lock uses that result.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

BUILD_INFO = "build-info.json"


def published(target: Path, is_complete: Callable[[Path], bool], make: Callable[[Path], dict | None], *,
              force: bool = False) -> Path:
    """``target`` when it is complete (and not ``force``); else build it: ``make(tmp)`` fills an
    empty temporary sibling directory and returns what goes into ``build-info.json`` (None: no
    such file), then ``tmp`` is renamed to ``target``. Raises what ``make`` raises; the temporary
    directory never outlives the call."""
    if is_complete(target) and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_complete(target) and not force:
            return target  # another process built it while this one waited
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
        tmp.chmod(0o755)
        try:
            info = make(tmp)
            if info is not None:
                (tmp / BUILD_INFO).write_text(json.dumps(info, indent=2) + "\n")
            _rename_into_place(tmp, target, is_complete)
            return target
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)


def _rename_into_place(tmp: Path, target: Path, is_complete: Callable[[Path], bool]) -> None:
    old = None
    if target.exists():  # a forced rebuild, or a leftover that is not complete: move it aside first
        old = target.with_name(tmp.name + "-old")
        os.rename(target, old)
    try:
        os.rename(tmp, target)
    except OSError:
        # A builder that does not take this lock (an older checkout) finished the same build first.
        if not is_complete(target):
            raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
