"""Which finding codes a test session emitted: with ``KUEUE_DRA_FINDINGS_EMITTED=PATH`` set, every
finding built in the test process (``Code.make``) is recorded, and at the end of the session the
codes are added to PATH, one per line, sorted (several sessions, e.g. the unit and the cluster
tests, add up in one file). ``scripts/findings-doc --never-emitted PATH`` then lists the codes of
the catalogue no session emitted. It never fails a run: a partial run simply emits fewer codes.

Findings built in another process (the plugin run as a subprocess, as most cluster tests do) are
not seen."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "KUEUE_DRA_FINDINGS_EMITTED"


class Recorder:
    def __init__(self, path: Path):
        self.path = path
        self.emitted: set[str] = set()
        self._original = None

    def start(self) -> None:
        from kubectl_kueue_dra.findings.code import Code

        original = self._original = Code.make
        emitted = self.emitted

        def make(code, *args, **kwargs):
            emitted.add(code.name)
            return original(code, *args, **kwargs)

        Code.make = make

    def finish(self) -> None:
        from kubectl_kueue_dra.findings.code import Code

        if self._original is not None:
            Code.make = self._original
        before = set(self.path.read_text().split()) if self.path.exists() else set()
        self.path.write_text("".join(f"{name}\n" for name in sorted(before | self.emitted)))


def recorder() -> Recorder | None:
    """The recorder the environment asks for, or None."""
    path = os.environ.get(ENV)
    return Recorder(Path(path)) if path else None
