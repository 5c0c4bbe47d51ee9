"""Parse a JSON document read in chunks, handing each element of its top-level ``items`` array to
a callback as soon as it is parsed.

``kubectl get -o json`` of a large cluster is one ``List`` object of hundreds of MiB. ``json.load``
would hold the whole text and then the whole tree of dicts (~9× the file); here the text is read
16 MiB at a time and each item can be made small (``kube/compact.py``) before the next one is
parsed. The result equals ``json.loads`` of the file (with the callback's items). Anything this
reader does not handle raises ``ValueError``; callers then fall back to ``json.loads``, which
also gives the precise error message for a malformed file.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, BinaryIO
from collections.abc import Callable

CHUNK = 1 << 24
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")


def _match(pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str]:
    """``pattern.match`` for the patterns above, which match everywhere (possibly empty)."""
    m = pattern.match(text, pos)
    assert m is not None
    return m


_DECODER = json.JSONDecoder()


class _Reader:
    def __init__(self, f: BinaryIO, chunk: int):
        self.f = f
        self.chunk = chunk
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")  # bad bytes: read whole, named
        self.text = ""
        self.pos = 0
        self.eof = False

    def more(self) -> bool:
        """Append the next chunk (dropping what was consumed); False at the end of the file."""
        if self.eof:
            return False
        data = self.f.read(self.chunk)
        self.eof = not data
        self.text = self.text[self.pos:] + self.decoder.decode(data, final=self.eof)
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end)."""
        while True:
            self.pos = _match(_WHITESPACE, self.text, self.pos).end()
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos:self.pos + 1]

    def expect(self, chars: str) -> str:
        c = self.peek()
        if not c or c not in chars:
            raise ValueError(f"expected one of {chars!r}")
        self.pos += 1
        return c

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except ValueError:
                if self.more():
                    continue
                raise
            # a number could go on in the next chunk ("1" of "12", "0" of "0.5"); everything else
            # is closed (a cut string, literal, object or array does not parse)
            if not self.eof and isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and _match(_NUMBER_TAIL, self.text, end).end() == len(self.text):
                self.more()
                continue
            self.pos = end
            return value


def load(f: BinaryIO, on_item: Callable[[Any], Any], chunk: int = CHUNK) -> dict[str, Any]:
    """The JSON object in ``f``, each element of its ``items`` array replaced by ``on_item(element)``.
    Raises ValueError when the document is not a JSON object or not well-formed."""
    r = _Reader(f, chunk)
    r.expect("{")
    doc: dict[str, Any] = {}
    if r.peek() == "}":
        r.pos += 1
    else:
        while True:
            if r.peek() != '"':
                raise ValueError("expected a key")
            key = r.value()
            r.expect(":")
            if key == "items" and r.peek() == "[":
                r.pos += 1
                items: list[Any] = []
                if r.peek() == "]":
                    r.pos += 1
                else:
                    while True:
                        items.append(on_item(r.value()))
                        if r.expect(",]") == "]":
                            break
                doc[key] = items
            else:
                doc[key] = r.value()
            if r.expect(",}") == "}":
                break
    if r.peek():
        raise ValueError("extra data after the document")
    return doc
