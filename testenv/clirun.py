"""Run the command line in this process: ``main(args, Environment)`` with captured streams and an
environment of the test's own, so no run sees another's streams, variables or state."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from pathlib import Path
from typing import IO

from kubectl_kueue_dra.cli import Environment, main
from kubectl_kueue_dra.environment import SYSTEM_CLOCK, Clock

ROOT = Path(__file__).resolve().parents[1]  # the repository root
#: runs from several threads (the oracle explains its scenarios from a thread pool) take turns:
#: the process keeps one logging handler, the stats of the run in progress and cel-python's parser
_ONE_AT_A_TIME = threading.Lock()


def run(*args: str, env: dict[str, str] | None = None, input: str | bytes | None = None,
        clock: Clock = SYSTEM_CLOCK,
        **_: object) -> subprocess.CompletedProcess[str]:
    """Like ``subprocess.run([kubectl-kueue_dra, *args])`` from the repository root, without NO_COLOR
    unset or a KUBECONFIG leaking in from the test's own environment."""
    full_env = dict(os.environ, NO_COLOR="1")
    full_env.pop("KUBECONFIG", None)
    full_env.update(env or {})
    return run_with(args, full_env, input=input, clock=clock)


def run_with(args: tuple[str, ...] | list[str], env: dict[str, str], *, input: str | bytes | None = None,
             clock: Clock = SYSTEM_CLOCK) -> subprocess.CompletedProcess[str]:
    """One in-process run with exactly ``env`` as its environment variables, relative paths read
    from the repository root, and ``clock`` as its time; ``input`` as bytes is a stdin with a binary
    buffer underneath (a real one), as text one without."""
    out, err = _stream(), _stream()
    stdin: IO[str] = io.StringIO(input or "") if not isinstance(input, bytes) else \
        io.TextIOWrapper(io.BytesIO(input), encoding="utf-8")
    environment = Environment(stdin=stdin, stdout=out, stderr=err, vars=env, cwd=str(ROOT),
                              clock=clock)
    with _ONE_AT_A_TIME:
        code = main([str(a) for a in args], environment)
    return subprocess.CompletedProcess(list(args), code, _text(out), _text(err))


def _stream() -> io.TextIOWrapper:
    """A text stream with a binary buffer underneath, like a real stdout (click writes bytes to it)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")
