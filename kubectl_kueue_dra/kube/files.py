"""Files a flag names (``-o jsonpath-file=F``, ``-o custom-columns-file=F``): read as UTF-8 text,
each failure one line naming the flag and the file."""

from __future__ import annotations

from ..errors import UsageError
from ..k8s.utf8 import NotUtf8, utf8_text


def read_flag_file(path: str, flag: str) -> str:
    try:
        with open(path, "rb") as f:
            return utf8_text(f.read())
    except OSError as e:
        raise UsageError(f"{flag}: cannot read {path}: {e.strerror}") from None
    except NotUtf8 as e:
        raise UsageError(f"{flag}: {path}: {e}") from None
