"""Reading a whole list from the API server, parsed while it arrives, at one ``resourceVersion``.

* **Whole, in one response** first: a consistent read (``resourceVersion`` unset) without
  ``limit``, which the API server answers from its watch cache and streams item by item; the
  body is parsed item by item as it arrives (``kube/parse/jsonstream.py``, ``STREAM_CHUNK`` at a time,
  read on a thread at most ``READ_AHEAD`` chunks ahead of the parser), so memory stays flat. A
  continued list (``limit``/``continue``) is read from etcd page after page: on a 1.36 API
  server, twice the time for the same bytes (docs/performance.md).
* **Pages of ``PAGE_SIZE``** when the whole answer could not be read (the connection broke, or
  it did not start or stopped arriving for ``--request-timeout``; one that keeps arriving is read
  to its end, ``client.Stream``): a thread requests page N+1 as soon as page N
  has arrived (its ``continue`` token is read from the head of the raw page) and holds at most
  ``AHEAD`` pages the parser has not taken yet.
* **Never two versions in one answer**: every page must carry the first page's
  ``metadata.resourceVersion``. A page that does not, or a 410 on a ``continue`` request (the
  token expired: etcd was compacted between two pages), drops what was read and reads the list
  again from the start, once; when that fails the same way, the list is read whole once more.
  Each restart says so on stderr, and what was read before it is dropped.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
from typing import Any
from collections.abc import Callable, Iterator

from . import errors
from .parse import jsonstream
from .parse.jsonstream import json_text

log = logging.getLogger(__name__)

PAGE_SIZE = 500
AHEAD = 1  # raw pages waiting for the parser (one more is being fetched, one being parsed)
STREAM_CHUNK = 1 << 20  # bytes of a whole list read at a time
READ_AHEAD = 8  # chunks of a whole list read and waiting for the parser
#: the limit of each try (None: the whole list in one response): whole, then pages, pages again
#: after an expiry, then whole once more
TRIES: tuple[int | None, ...] = (None, PAGE_SIZE, PAGE_SIZE, None)

Obj = dict[str, Any]


class _Restart(Exception):
    """What was read so far cannot be completed into one consistent list (``cause``: the error
    to raise when no try is left)."""

    def __init__(self, message: str, cause: errors.KubeError | None = None):
        super().__init__(message)
        self.cause = cause


def read_list(client: Any, path: str, target: Any, query: dict[str, Any] | None, on_item: Callable[[Obj], Obj],
              on_restart: Callable[[], None] | None = None, tries: tuple[int | None, ...] = TRIES,
              decode: Callable[[str], list[Any]] | None = None) -> list[Obj]:
    """Every item of the list at ``path``, each passed through ``on_item`` as its page is parsed.
    When the read starts over, ``on_restart`` is called first (forget what ``on_item`` kept).
    ``decode``: what parses a batch of items of a list read whole (``jsonstream.load``).
    Pages are always a consistent read: a ``resourceVersion`` of the query is for the whole list."""
    for n, limit in enumerate(tries):
        if limit is not None and query and "resourceVersion" in query:
            query = {k: v for k, v in query.items() if k not in ("resourceVersion", "resourceVersionMatch")}
        log.debug("list %s: %s", path, describe(query, limit))
        items: list[Obj] = []
        try:
            if limit is None:
                return whole(client, path, target, query, on_item, decode)
            for page in pages(client, path, target, query, limit):
                items.extend(on_item(item) for item in page.get("items") or [])
            return items
        except _Restart as e:
            del items
            if on_restart is not None:
                on_restart()
            what = errors.describe_target(target.verb, target.resource, target.namespace)
            if n + 1 == len(tries):
                raise e.cause or errors.Expired(f"cannot {what}: {e}", "run the command again", status=410) from None
            again = "whole, in one response" if tries[n + 1] is None else \
                "from the start" if limit else "in pages"
            print(f"warning: {what}: {e}; reading the list again {again}", file=client.opts.env.stderr, flush=True)
    raise AssertionError("unreachable")


def describe(query: dict[str, Any] | None, limit: int | None) -> str:
    """How a list is asked for, for ``-v``."""
    q = query or {}
    rv = q.get("resourceVersion")
    parts = ["a consistent read (resourceVersion unset)" if rv is None else
             "from the API server's cache (resourceVersion=0, not a consistent read)" if rv == "0" else
             f"resourceVersion={rv} ({q.get('resourceVersionMatch') or 'legacy'} match)"]
    parts.append(f"in pages of {limit}" if limit else "in one response")
    parts += [f"filtered by the server: {k}={q[k]}" for k in ("fieldSelector", "labelSelector") if q.get(k)]
    return ", ".join(parts)


def whole(client: Any, path: str, target: Any, query: dict[str, Any] | None,
          on_item: Callable[[Obj], Obj], decode: Callable[[str], list[Any]] | None = None) -> list[Obj]:
    """The list in one response, each item through ``on_item`` as soon as it is parsed (raises
    ``_Restart`` when the connection breaks or the answer stops arriving before its end)."""
    body = _ReadAhead(client.request("GET", path, target, query=dict(query or {}), stream=True), STREAM_CHUNK,
                      client.clock.monotonic)
    try:
        doc = jsonstream.load(body, on_item, chunk=STREAM_CHUNK, decode=decode)
    except errors.Unreachable as e:
        raise _Restart(e.message, e) from None
    except ValueError as e:
        raise errors.ServerError(f"cannot {errors.describe_target(target.verb, target.resource, target.namespace)}"
                                 f": the answer is not a JSON list ({e})") from None
    finally:
        body.close()
    if (doc.get("metadata") or {}).get("continue"):  # a server that pages unasked: read the pages
        raise _Restart("the server answered a list without limit in pages")
    items = doc.get("items")
    return items if isinstance(items, list) else []


def pages(client: Any, path: str, target: Any, query: dict[str, Any] | None, limit: int | None) -> Iterator[Obj]:
    """The parsed pages of one read of the list (raises ``_Restart`` when they cannot be one list)."""
    params = dict(query or {})
    if limit:
        params["limit"] = limit
    fetcher = _Fetcher(client, path, target, params)
    try:
        version: str | None = None
        while True:
            payload, head = fetcher.next()
            page = parse(payload)
            del payload
            meta = page.get("metadata") or {}
            token = meta.get("continue") or None
            if version is None:
                version = meta.get("resourceVersion")
            elif meta.get("resourceVersion") != version:
                raise _Restart(f"a page at resourceVersion {meta.get('resourceVersion')}, "
                               f"the first one at {version}")
            if head is not None and (head.get("continue") or None) != token:
                raise _Restart("the page's continue token was misread")
            yield page
            del page
            if not token:
                return
            if head is None:
                fetcher.tell(token)
    finally:
        fetcher.stop()


def parse(payload: bytes) -> Obj:
    """A raw page as a dict (the bytes can go as soon as the text exists)."""
    text = json_text(payload)
    del payload
    return json.loads(text) if text else {}


# A list's own metadata comes before its items: {"kind":…,"apiVersion":…,"metadata":{…},"items":[…
_HEAD = re.compile(rb'^\{[^{]*"metadata":(\{[^{}]*\})')


def peek(payload: bytes) -> Obj | None:
    """The list metadata of a raw page read from its first bytes, None when it is not there."""
    m = _HEAD.match(payload[:4096])
    if not m:
        return None
    try:
        meta = json.loads(m.group(1))
    except ValueError:
        return None
    return meta if isinstance(meta, dict) else None


class _Fetcher:
    """Requests the pages in order on a daemon thread (never keeps the process alive, e.g. after
    Ctrl-C), at most ``AHEAD`` ahead of the parser; a failure is handed over in its place."""

    def __init__(self, client: Any, path: str, target: Any, params: Obj):
        self._client, self._path, self._target, self._params = client, path, target, params
        self._pages: queue.Queue[tuple[str, Any, Any]] = queue.Queue(maxsize=AHEAD)
        self._tokens: queue.Queue[str] = queue.Queue(maxsize=1)
        self._stopped = threading.Event()
        threading.Thread(target=self._run, daemon=True, name="kueue-dra-list-pages").start()

    def _run(self) -> None:
        token: str | None = None
        while not self._stopped.is_set():
            query = dict(self._params, **({"continue": token} if token else {}))
            try:
                payload = self._client.request("GET", self._path, self._target, query=query, raw=True)
            except errors.Expired as e:
                log.debug("%s: %s", self._path, e.message)
                self._put(("restart", "the list's continue token expired between two pages (HTTP 410)"
                           if token else None, e))
                return
            except BaseException as e:  # noqa: BLE001 - handed to the parser's thread
                self._put(("error", None, e))
                return
            head = peek(payload)
            self._put(("page", payload, head))
            del payload
            if head is None:  # the head does not tell: wait for the parser to read the token
                token = self._wait_token()
            else:
                token = head.get("continue") or None
            if not token:
                return

    def _put(self, item: tuple[str, Any, Any]) -> None:
        _put_unless(self._pages, item, self._stopped)

    def _wait_token(self) -> str | None:
        while not self._stopped.is_set():
            try:
                return self._tokens.get(timeout=0.2)
            except queue.Empty:
                continue
        return None

    def next(self) -> tuple[bytes, Obj | None]:
        """The next raw page and its peeked metadata (None: not known before parsing)."""
        what, payload, extra = self._pages.get()
        if what == "page":
            return payload, extra
        if what == "restart" and payload:
            raise _Restart(payload)
        raise extra

    def tell(self, token: str) -> None:
        self._tokens.put(token)

    def stop(self) -> None:
        self._stopped.set()


def _put_unless(q: queue.Queue[Any], item: Any, stopped: threading.Event) -> None:
    """``item`` into a bounded queue, waiting while it is full, until ``stopped`` is set."""
    while not stopped.is_set():
        try:
            q.put(item, timeout=0.2)
            return
        except queue.Full:
            continue


class _ReadAhead:
    """A streamed body read on a daemon thread, ``chunk`` bytes at a time: at most ``READ_AHEAD``
    chunks wait for ``read``, and one more is read meanwhile. The socket is drained (and
    decrypted, outside the GIL) while the items before are parsed, so the server keeps sending.
    An error is handed over in the data's place. The body is closed, and counted in the run's
    stats (its ``waited``: the time ``read`` waited for bytes), by whichever finishes last: the
    thread (at the body's end, on an error, or stopped by ``close``) or the parser's ``close``."""

    def __init__(self, body: Any, chunk: int, monotonic: Callable[[], float]):
        self._body, self._chunk, self._monotonic = body, chunk, monotonic
        self._chunks: queue.Queue[tuple[bytes, BaseException | None]] = queue.Queue(maxsize=READ_AHEAD)
        self._stopped = threading.Event()
        self._eof = False
        self._waited = 0.0
        self._open = 2  # the thread and the reader
        self._lock = threading.Lock()
        threading.Thread(target=self._run, daemon=True, name="kueue-dra-list-body").start()

    def _run(self) -> None:
        try:
            while not self._stopped.is_set():
                data = self._body.read(self._chunk)
                self._put((data, None))
                if not data:
                    break
                del data
        except BaseException as e:  # noqa: BLE001 - handed to the reader
            self._put((b"", e))
        self._release()

    def _put(self, item: tuple[bytes, BaseException | None]) -> None:
        _put_unless(self._chunks, item, self._stopped)

    def _release(self) -> None:
        with self._lock:
            self._open -= 1
            last = not self._open
        if last:
            self._body.waited = self._waited
            self._body.close()

    def read(self, n: int) -> bytes:
        """At least ``n`` bytes (as many as are read ahead), fewer only at the end."""
        parts: list[bytes] = []
        size = 0
        while size < n and not self._eof:
            began = self._monotonic()
            data, error = self._chunks.get()
            self._waited += self._monotonic() - began
            if error is not None:
                self._eof = True
                raise error
            self._eof = not data
            parts.append(data)
            size += len(data)
        return b"".join(parts)

    def close(self) -> None:
        if not self._stopped.is_set():
            self._stopped.set()
            self._release()
