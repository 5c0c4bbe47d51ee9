"""``explain -f FILE``: read one workload manifest from a file or stdin."""

from __future__ import annotations

import sys
from typing import IO, Any

from ..errors import UsageError
from ..k8s.utf8 import NotUtf8, utf8_text

WORKLOAD_KINDS = ("Job", "Pod", "JobSet", "Workload")


def read_manifest(path: str, stdin: IO[str] | None = None) -> dict[str, Any]:
    """The one Job, Pod, JobSet or Workload in ``path`` (``-`` reads ``stdin``)."""
    import yaml

    try:
        if path == "-":
            text = (stdin or sys.stdin).read()
        else:
            with open(path, "rb") as f:
                text = utf8_text(f.read())
    except OSError as e:
        raise UsageError(f"-f {path}: {e.strerror}") from None
    except (NotUtf8, UnicodeDecodeError) as e:
        raise UsageError(f"-f {path}: {e if isinstance(e, NotUtf8) else 'not UTF-8 text'}") from None
    try:
        docs = [d for d in yaml.safe_load_all(text) if d]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise UsageError(f"-f {path}{where}: malformed YAML: {getattr(e, 'problem', None) or e}") from None
    workloads = [d for d in docs if isinstance(d, dict) and d.get("kind") in WORKLOAD_KINDS]
    if not workloads:
        kinds = ", ".join(sorted({str(d.get("kind")) for d in docs if isinstance(d, dict)})) or "nothing"
        raise UsageError(f"-f {path}: no Job, Pod, JobSet or Workload in it (found {kinds})")
    if len(workloads) > 1:
        raise UsageError(f"-f {path}: {len(workloads)} workloads in one file", "explain one at a time")
    return dict(workloads[0])
