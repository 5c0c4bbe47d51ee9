"""Run the command line in this process: ``main(args, Environment)`` with captured streams and an
environment of the test's own, so no run sees another's streams, variables or state."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from pathlib import Path

from kubectl_kueue_dra.cli import Environment, main

ROOT = Path(__file__).resolve().parents[1]  # the repository root
#: a run owns the process's streams, environment and working directory while it lasts, so runs
#: from several threads (the oracle explains its scenarios from a thread pool) take turns
_ONE_AT_A_TIME = threading.Lock()


def run(*args: str, env: dict[str, str] | None = None, input: str | None = None,
        **_: object) -> subprocess.CompletedProcess[str]:
    """Like ``subprocess.run([kubectl-kueue_dra, *args])`` from the repository root, without NO_COLOR
    unset or a KUBECONFIG leaking in from the test's own environment."""
    full_env = dict(os.environ, NO_COLOR="1")
    full_env.pop("KUBECONFIG", None)
    full_env.update(env or {})
    return run_with(args, full_env, input=input)


def run_with(args: tuple[str, ...] | list[str], env: dict[str, str], *,
             input: str | None = None) -> subprocess.CompletedProcess[str]:
    """One in-process run with exactly ``env`` as its environment, from the repository root."""
    out, err = _stream(), _stream()
    with _ONE_AT_A_TIME:
        code = main([str(a) for a in args], Environment(io.StringIO(input or ""), out, err, env, str(ROOT)))
    return subprocess.CompletedProcess(list(args), code, _text(out), _text(err))


def _stream() -> io.TextIOWrapper:
    """A text stream with a binary buffer underneath, like a real stdout (click writes bytes to it)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")
