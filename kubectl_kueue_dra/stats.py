"""What a run cost, for benchmarks: ``KUEUE_DRA_STATS=PATH`` writes it as JSON when the run ends.

The document (``scripts/bench`` and the perf tests read it)::

    {"argv": [...], "exitCode": 0, "wallSeconds": 1.23, "maxRssKiB": 81234,
     "requests": 12, "bytesRead": 345678,
     "calls": [{"method": "GET", "path": "/apis/resource.k8s.io/v1/resourceslices",
                "status": 200, "bytes": 123456, "at": 412.0, "ms": 85.1, "waitMs": 30.2}, ...],
     "celEvaluations": 40, "celCacheHits": 13560}

``requests``/``bytesRead`` add up every API client of the run (``bytes`` are the decoded response
bodies; ``wireBytes``, on a compressed one only, what came over the wire; ``at`` is when the
request was sent, in ms from the start of the run; ``ms`` until its body was read; ``waitMs``,
for a list read whole as it arrives, the part of ``ms`` spent waiting for its bytes, the rest
being the parsing of what had arrived), ``celEvaluations`` every CEL evaluation actually run
(one per expression and distinct device shape; the rest are ``celCacheHits``; ``wallSeconds``
counts from when the entry point started).
Unset, nothing is recorded. The entry point hands ``begin`` the run's variable, clock and stderr.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from .environment import SYSTEM_CLOCK, Clock

ENV = "KUEUE_DRA_STATS"

_path: str | None = None  # where the report goes (the run's $KUEUE_DRA_STATS, from its working directory)
_shown_path: str | None = None  # the same as the user wrote it, for the warning
_clock: Clock = SYSTEM_CLOCK
_stderr: IO[str] | None = None
_started = 0.0
_argv: list[str] = []
_clients: list[Any] = []
_evaluators: list[Any] = []


def begin(argv: list[str], *, path: str | None, opened_at: str | None = None, clock: Clock = SYSTEM_CLOCK,
          stderr: IO[str] | None = None) -> None:
    """Start a run's accounting afresh (a process may run the CLI several times, as the tests do):
    ``path`` is the run's ``$KUEUE_DRA_STATS`` (``opened_at`` where it is opened, when relative to
    another directory), the wall time counts on ``clock`` from now, nothing is counted yet."""
    global _path, _shown_path, _clock, _stderr, _started, _argv
    _shown_path = path or None
    _path = (opened_at or path) if _shown_path else None
    _clock, _stderr = clock, stderr
    _started = clock.monotonic()
    _argv = list(argv)
    _clients.clear()
    _evaluators.clear()


def started() -> float:
    """When this run started (``time.monotonic()``)."""
    return _started


def enabled() -> bool:
    return _path is not None


def track_client(client: Any) -> None:
    """Count this client's requests (its ``stats: RequestStats``) in the report."""
    if _path is not None:
        _clients.append(client)


def track_evaluator(evaluator: Any) -> None:
    """Count this SelectorEvaluator's ``evaluations`` and ``cache_hits`` in the report."""
    if _path is not None:
        _evaluators.append(evaluator)


def report(exit_code: int | None = None) -> dict[str, Any]:
    calls = [dict(c) for client in _clients for c in client.stats.calls]
    return {
        "argv": _argv,
        "exitCode": exit_code,
        "wallSeconds": round(_clock.monotonic() - _started, 4),
        "maxRssKiB": _max_rss_kib(),
        "requests": sum(c.stats.requests for c in _clients),
        "bytesRead": sum(c.stats.bytes_read for c in _clients),
        "calls": calls,
        "celEvaluations": sum(e.evaluations for e in _evaluators),
        "celCacheHits": sum(e.cache_hits for e in _evaluators),
    }


def _max_rss_kib() -> int | None:
    """Peak resident memory of this process. On Linux VmHWM, which starts afresh at exec (the
    getrusage figure keeps the high-water mark of the process that forked us)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss // 1024 if sys.platform == "darwin" else rss  # bytes on macOS, KiB on Linux


def write(exit_code: int | None = None) -> None:
    """Write the report to ``$KUEUE_DRA_STATS`` (no-op when unset; never fails the run)."""
    if _path is None:
        return
    import json

    try:
        with open(_path, "w", encoding="utf-8") as f:
            json.dump(report(exit_code), f, indent=1)
            f.write("\n")
    except OSError as e:
        if _stderr is not None:
            print(f"warning: {ENV}={_shown_path}: {e.strerror}", file=_stderr)
