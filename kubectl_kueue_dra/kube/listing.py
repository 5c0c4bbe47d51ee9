"""Reading a whole list from the API server: pages fetched on a second thread while this one
parses them, and one ``resourceVersion`` for the whole answer.

* **Pages of ``PAGE_SIZE``**, a consistent read (``resourceVersion`` unset, as kubectl lists). A
  thread requests page N+1 as soon as page N has arrived (its ``continue`` token is read from the
  head of the raw page) and holds at most ``AHEAD`` pages the parser has not taken yet, so the
  server encodes and sends while the client parses, and memory stays at a few pages.
* **Never two versions in one answer**: every page must carry the first page's
  ``metadata.resourceVersion``. A page that does not, or a 410 on a ``continue`` request (the
  token expired: etcd was compacted between two pages), drops what was read and reads the list
  again from the start, once; when that fails the same way, the list is read whole, in one
  response without ``limit`` (one consistent read that no token can outlive). Each restart says
  so on stderr.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import sys
import threading
from typing import Any
from collections.abc import Callable, Iterator

from . import errors
from .client import json_text

log = logging.getLogger(__name__)

PAGE_SIZE = 500
AHEAD = 1  # raw pages waiting for the parser (one more is being fetched, one being parsed)
#: the limit of each try: pages, pages again after an expiry, then the whole list in one response
TRIES: tuple[int | None, ...] = (PAGE_SIZE, PAGE_SIZE, None)

Obj = dict[str, Any]


class _Restart(Exception):
    """The pages read so far cannot be completed into one consistent list."""


def read_list(client: Any, path: str, target: Any, query: dict[str, Any] | None, on_item: Callable[[Obj], Obj],
              on_restart: Callable[[], None] | None = None, tries: tuple[int | None, ...] = TRIES) -> list[Obj]:
    """Every item of the list at ``path``, each passed through ``on_item`` as its page is parsed.
    When the read starts over, ``on_restart`` is called first (forget what ``on_item`` kept)."""
    for n, limit in enumerate(tries):
        log.debug("list %s: %s", path, describe(query, limit))
        items: list[Obj] = []
        try:
            for page in pages(client, path, target, query, limit):
                items.extend(on_item(item) for item in page.get("items") or [])
            return items
        except _Restart as e:
            del items
            if on_restart is not None:
                on_restart()
            if n + 1 == len(tries):
                what = errors.describe_target(target.verb, target.resource, target.namespace)
                raise errors.Expired(f"cannot {what}: {e}", "run the command again", status=410) from None
            again = "from the start" if tries[n + 1] else "whole, in one response"
            what = errors.describe_target(target.verb, target.resource, target.namespace)
            print(f"warning: {what}: {e}; reading the list again {again}", file=sys.stderr, flush=True)
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
        while not self._stopped.is_set():
            try:
                self._pages.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

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
