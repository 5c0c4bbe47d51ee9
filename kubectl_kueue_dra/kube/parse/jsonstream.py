"""Parse a JSON document read in chunks, handing each element of its top-level ``items`` array to
a callback as soon as it is parsed (``load``; ``load_all``: several documents one after another,
or a top-level array, as other tools write snapshots).

``kubectl get -o json`` of a large cluster is one ``List`` object of hundreds of MiB. ``json.load``
would hold the whole text and then the whole tree of dicts (~9× the file); here the text is read
1 MiB at a time (a value larger than that: as much again as is pending, until it parses) and each
item can be made small (``kube/compact.py``) before the next one is parsed. The result equals
``json.loads`` of the file (with the callback's items). Anything this reader does not handle
raises ``ValueError``; callers then fall back to ``json.loads``, which also gives the precise error
message for a malformed file.

Items come in batches where the text allows: the text between the first two items (the API
server writes ``},{"metadata":``, kubectl ``}, {`` on indented lines and ``"apiVersion":``) is the
mark of the next ones, and the text up to the last mark within ``BATCH_BYTES`` is tried as one JSON
array of whole items — one parser call for many small items rather than one each. A batch starts
at an item and a cut inside an item leaves a brace open, so a batch that parses holds whole items
only; one that does not (the mark inside an item) is read one item at a time, as is an item larger
than a batch. Batches are parsed with ``msgspec`` (nearly twice as fast as ``json`` on ResourceSlices,
integers of any size kept exact); what it refuses and ``json`` reads (``NaN``, ``1e400``, a lone
surrogate) is read item by item with ``json``, so the result is ``json``'s either way.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, Protocol
from collections.abc import Callable

CHUNK = 1 << 20
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")
#: after an item's closing brace, the text up to the next item's first key and colon
_SEPARATOR = re.compile(r'[ \t\n\r]*,[ \t\n\r]*\{[ \t\n\r]*"(?:[^"\\]|\\.)*"[ \t\n\r]*:')


def _match(pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str]:
    """``pattern.match`` for the patterns above, which match everywhere (possibly empty)."""
    m = pattern.match(text, pos)
    assert m is not None
    return m


_DECODER = json.JSONDecoder()


class Readable(Protocol):
    """What the text is read from: a binary file, or a response body (``read(n)``: the next
    bytes, about ``n`` of them, ``b""`` at the end)."""

    def read(self, n: int, /) -> bytes: ...


class _Reader:
    def __init__(self, f: Readable, chunk: int, decode: Callable[[str], list[Any]] | None):
        self.f = f
        self.chunk = chunk
        self.decode = decode  # a batch's parser (``load``), else msgspec's
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")  # bad bytes: read whole, named
        self.text = ""
        self.pos = 0
        self.eof = False
        self.batch_tried = False  # the current text has no run of whole items left to batch
        self.mark = ""  # the text between two items (``_batch``), once seen

    def more(self, at_least: int = 0) -> bool:
        """Append the next chunk, or ``at_least`` bytes when that is more (dropping what was
        consumed); False at the end of the file."""
        if self.eof:
            return False
        data = self.f.read(max(self.chunk, at_least))
        self.eof = not data
        self.text = self.text[self.pos:] + self.decoder.decode(data, final=self.eof)
        self.pos = 0
        self.batch_tried = False
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
            except ValueError:  # cut (or malformed): read as much again as is pending, so that a
                # value far larger than a chunk is parsed a few times, not once per chunk
                if self.more(len(self.text) - self.pos):
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


#: how much text one batch parses at most: parsed a whole chunk at once, a hundred 9 KiB slices
#: were out of the CPU cache before ``on_item`` compacted them, and parsing and compacting took
#: twice as long as item by item; 64 KiB is as fast as item by item, and smaller batches cost
#: memory (measured with ``json``, which shares equal keys within one parser call only)
BATCH_BYTES = 1 << 16


def _learn_mark(r: _Reader) -> None:
    """After an item read on its own (``r.pos`` just past it): the text from its closing brace to
    the next item's first key, the mark ``_batch`` cuts at (a new mark: batches can be tried again)."""
    if r.text[r.pos - 1] != "}":
        return
    m = _SEPARATOR.match(r.text, r.pos)
    if m is not None and m.end() - r.pos < 256:  # a longer run of whitespace is not a list's layout
        mark = "}" + m.group(0)
        if mark != r.mark:
            r.mark, r.batch_tried = mark, False


def _batch(r: _Reader) -> list[Any] | None:
    """The whole items of the read text from ``r.pos`` up to the last mark within ``BATCH_BYTES``,
    parsed at once (``r.pos`` then just past the last of them), or None when there is no such run
    of items."""
    if r.batch_tried or not r.mark:  # no mark left, or one inside an item: one by one until more is read
        return None
    end = r.text.rfind(r.mark, r.pos, r.pos + BATCH_BYTES)
    while end <= r.pos:  # none in reach: this item alone (larger than a batch), or the text's last
        if r.text.find(r.mark, r.pos) >= 0:  # an item larger than a batch: read on its own
            return None
        # the text's last item, most likely cut at the chunk's end: read on and batch it (read on
        # its own, its cut would be parsed, and refused, before the text is read on)
        if r.eof or len(r.text) - r.pos > BATCH_BYTES or not r.more():
            r.batch_tried = True
            return None
        end = r.text.rfind(r.mark, r.pos, r.pos + BATCH_BYTES)
    try:
        items = (r.decode or decode_batch())(f"[{r.text[r.pos:end + 1]}]")
    except ValueError:  # the mark was inside an item, or msgspec refused what json may read
        r.batch_tried = True
        return None
    r.pos = end + 1
    return items


_BATCH_DECODE: Callable[[str | bytes], Any] | None = None  # set by the first call of decode_batch


def decode_batch() -> Callable[[str | bytes], Any]:
    """msgspec's JSON decoder, imported on the first batch (8 ms: a command that reads no large
    list does not pay it)."""
    global _BATCH_DECODE
    if _BATCH_DECODE is None:
        import msgspec.json
        _BATCH_DECODE = msgspec.json.Decoder().decode
    return _BATCH_DECODE


def load(f: Readable, on_item: Callable[[Any], Any], chunk: int = CHUNK,
         decode: Callable[[str], list[Any]] | None = None) -> dict[str, Any]:
    """The JSON object in ``f``, each element of its ``items`` array replaced by ``on_item(element)``.
    Raises ValueError when the document is not a JSON object or not well-formed. ``decode``: what
    parses a batch of items (the text of a JSON array) when not msgspec's decoder, e.g. one that
    leaves parts to share as text (``kube/parse/slices.py``); it raises ValueError where msgspec would."""
    r = _Reader(f, chunk, decode)
    doc = _object(r, on_item)
    if r.peek():
        raise ValueError("extra data after the document")
    return doc


def load_all(f: Readable, on_item: Callable[[Any, dict[str, Any]], Any], chunk: int = CHUNK,
             decode: Callable[[str], list[Any]] | None = None) -> list[Any]:
    """The JSON objects and arrays in ``f``, one after another (a stream, as ``kubectl get -o json
    >> file`` or JSON Lines write them), each object's ``items`` and each top-level array's
    elements through ``on_item(element, container)``: the container is the object read so far
    (its ``kind`` and ``apiVersion`` when they come before ``items``, as the API server writes a
    typed list), ``{}`` for an array. Raises ValueError when a value is not well-formed, or is
    neither an object nor an array, or there is none. ``decode`` as for ``load``."""
    r = _Reader(f, chunk, decode)
    docs: list[Any] = []
    while c := r.peek():
        if c == "{":
            docs.append(_object(r, on_item, True))
        elif c == "[":
            r.pos += 1
            docs.append(_elements(r, lambda item: on_item(item, {})))
        else:
            raise ValueError("expected an object or an array")
    if not docs:
        raise ValueError("no JSON document")
    return docs


def _object(r: _Reader, on_item: Callable[..., Any], with_container: bool = False) -> dict[str, Any]:
    r.expect("{")
    doc: dict[str, Any] = {}
    if r.peek() == "}":
        r.pos += 1
        return doc
    while True:
        if r.peek() != '"':
            raise ValueError("expected a key")
        key = r.value()
        r.expect(":")
        if key == "items" and r.peek() == "[":
            r.pos += 1
            doc[key] = _elements(r, (lambda item: on_item(item, doc)) if with_container else on_item)
        else:
            doc[key] = r.value()
        if r.expect(",}") == "}":
            return doc


def _elements(r: _Reader, on_item: Callable[[Any], Any]) -> list[Any]:
    """The elements of an array whose ``[`` was read, each through ``on_item``, in batches where
    the text allows."""
    items: list[Any] = []
    if r.peek() == "]":
        r.pos += 1
        return items
    while True:
        batch = _batch(r)
        if batch is not None:
            items.extend(map(on_item, batch))
        else:
            items.append(on_item(r.value()))
            _learn_mark(r)
        if r.expect(",]") == "]":
            return items


def values(text: str) -> list[Any]:
    """The JSON values of a text, one after another with only whitespace between them (a stream);
    raises ``json.JSONDecodeError`` (its line and column in ``text``) at the first that is not
    well-formed, and for a text of whitespace only."""
    out: list[Any] = []
    pos = _match(_WHITESPACE, text, 0).end()
    while pos < len(text) or not out:
        value, end = _DECODER.raw_decode(text, pos)
        out.append(value)
        pos = _match(_WHITESPACE, text, end).end()
    return out


def json_text(payload: bytes) -> str:
    """A response body as text, decoded as ``json.loads`` decodes bytes (so that the caller can
    drop the bytes before parsing)."""
    return payload.decode(json.detect_encoding(payload), "surrogatepass") if payload else ""
