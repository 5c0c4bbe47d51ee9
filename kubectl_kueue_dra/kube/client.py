"""Raw JSON requests to the API server.

The ``kubernetes`` package provides the TLS-configured connection pool and the auth headers
(including exec/OIDC token refresh); requests, retries, timeouts and error mapping are done here,
and bodies are plain ``json.loads`` dicts — never the generated models, which are slow and drop
fields newer than the client.
"""

import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator
from urllib.parse import urlencode

from . import errors
from .kubeconfig import ConnectionOptions, LoadedConfig, load

log = logging.getLogger(__name__)

RETRY_STATUSES = {429, 500, 502, 503, 504}
MAX_ATTEMPTS = 4
PAGE_SIZE = 500


@dataclass
class Target:
    """What a request is about, for error messages."""

    verb: str
    resource: str
    namespace: str | None = None
    name: str | None = None


@dataclass
class RequestStats:
    requests: int = 0
    bytes_read: int = 0
    #: one entry per response: {"method", "path", "status", "bytes", "ms"} (see ``stats.py``)
    calls: list[dict[str, Any]] = field(default_factory=list)


class KubeClient:
    def __init__(self, opts: ConnectionOptions):
        import urllib3  # noqa: F401  (comes with kubernetes)
        from kubernetes.client import rest

        self.opts = opts
        self.loaded: LoadedConfig = load(opts)
        cfg = self.loaded.configuration
        cfg.retries = False  # retries are ours: bounded by the request timeout, with backoff
        if not cfg.verify_ssl:
            _quiet_insecure_warning()
        self._cfg = cfg
        self._pool = rest.RESTClientObject(cfg).pool_manager
        self.server = cfg.host.rstrip("/")
        self.namespace = self.loaded.namespace
        self.stats = RequestStats()
        self._stats_lock = threading.Lock()  # list pages are fetched one ahead, on a second thread
        from .. import stats

        stats.track_client(self)

    # ---- identity, for messages -------------------------------------------------------------
    @property
    def user(self) -> str | None:
        return self.opts.as_user or self.loaded.user

    # ---- low level ---------------------------------------------------------------------------
    def _headers(self, content_type: str | None, accept: str = "application/json") -> Any:
        import urllib3

        headers = urllib3.HTTPHeaderDict()
        headers["Accept"] = accept
        headers["User-Agent"] = "kubectl-kueue_dra"
        if content_type:
            headers["Content-Type"] = content_type
        for auth in self._cfg.auth_settings().values():
            if auth.get("value"):
                headers[auth["key"]] = auth["value"]
        if not any(k.lower() == "authorization" for k in headers) and self._cfg.username:
            headers.update(urllib3.make_headers(
                basic_auth=f"{self._cfg.username}:{self._cfg.password or ''}"))
        if self.opts.as_user:
            headers["Impersonate-User"] = self.opts.as_user
        for group in self.opts.as_groups:
            headers.add("Impersonate-Group", group)
        return headers

    def request(self, method: str, path: str, target: Target, *, query: dict[str, Any] | None = None,
                body: Any = None, content_type: str | None = None, text: bool = False,
                raw: bool = False) -> Any:
        """Send one request and return the decoded JSON body (``text=True``: the body as text,
        e.g. ``/metrics``; ``raw=True``: the undecoded bytes). Raises typed ``KubeError``s."""
        import urllib3

        url = self.server + path
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            content_type = content_type or "application/json"
        accept = "text/plain" if text else "application/json"
        timeout_s = self.opts.request_timeout
        deadline = time.monotonic() + timeout_s
        attempt = 0
        while True:
            attempt += 1
            remaining = max(0.5, deadline - time.monotonic())
            timeout = urllib3.Timeout(connect=min(remaining, 10.0), read=remaining)
            started = time.monotonic()
            try:
                resp = self._pool.request(method, url, body=data, headers=self._headers(content_type, accept),
                                          timeout=timeout, preload_content=True, retries=False)
            except (urllib3.exceptions.ProtocolError, urllib3.exceptions.NewConnectionError,
                    urllib3.exceptions.ConnectTimeoutError, urllib3.exceptions.ReadTimeoutError,
                    urllib3.exceptions.SSLError, urllib3.exceptions.MaxRetryError,
                    urllib3.exceptions.HTTPError, OSError) as e:
                retryable = not isinstance(e, (urllib3.exceptions.SSLError,))
                if retryable and attempt < MAX_ATTEMPTS and time.monotonic() < deadline:
                    self._sleep(attempt, deadline, None)
                    continue
                raise self._unreachable(e) from None
            finally:
                with self._stats_lock:
                    self.stats.requests += 1
            payload = resp.data or b""
            status, retry_after = resp.status, resp.headers.get("Retry-After")
            del resp  # the body is now held once, in `payload`
            elapsed_ms = (time.monotonic() - started) * 1000
            with self._stats_lock:
                self.stats.bytes_read += len(payload)
                self.stats.calls.append({"method": method, "path": url[len(self.server):], "status": status,
                                         "bytes": len(payload), "ms": round(elapsed_ms, 1)})
            log.debug("%s %s -> %s (%d bytes, %.0f ms)", method, url, status, len(payload), elapsed_ms)
            if status in RETRY_STATUSES and attempt < MAX_ATTEMPTS and time.monotonic() < deadline:
                self._sleep(attempt, deadline, retry_after)
                continue
            if 200 <= status < 300:
                if text:
                    return payload.decode("utf-8", "replace")
                if raw:
                    return payload
                if not payload:
                    return {}
                decoded = _json_text(payload)
                del payload  # the bytes go before the objects are built: a body is held once
                return json.loads(decoded)
            raise self._http_error(status, payload, target)

    def _sleep(self, attempt: int, deadline: float, retry_after: str | None) -> None:
        delay = min(2.0, 0.2 * (2 ** (attempt - 1))) * (0.8 + 0.4 * random.random())
        if retry_after and retry_after.isdigit():
            delay = max(delay, min(float(retry_after), 5.0))
        time.sleep(max(0.0, min(delay, deadline - time.monotonic())))

    def _unreachable(self, e: Exception) -> errors.Unreachable:
        reason = str(getattr(e, "reason", None) or e)
        text = reason.lower()
        if "refused" in text:
            reason = "connection refused"
        elif "timed out" in text or "timeout" in text:
            reason = f"no answer within {self.opts.request_timeout:g}s"
        elif "certificate" in text or "ssl" in text:
            reason = f"TLS error: {reason}"
        elif "name or service not known" in text or "nodename nor servname" in text:
            reason = "host name not found"
        context = f' (context "{self.loaded.context}")' if self.loaded.context else ""
        return errors.Unreachable(f"cannot reach the API server at {self.server}{context}: {reason}",
                                  "check --context/--kubeconfig and that the cluster is up")

    def _http_error(self, status: int, payload: bytes, t: Target) -> errors.KubeError:
        try:
            message = json.loads(payload).get("message") or ""
        except (ValueError, AttributeError):
            message = payload.decode("utf-8", "replace")[:200]
        what = errors.describe_target(t.verb, t.resource, t.namespace, t.name)
        if status == 401:
            return errors.Unauthorized(f"cannot {what}: unauthorized (the server did not accept the "
                                       "credentials)", "log in again or check the kubeconfig user",
                                       status=401)
        if status == 403 and (denied := errors.impersonation_denied(message, self.opts.as_user, self.opts.as_groups)):
            return denied
        if status == 403:
            return errors.Forbidden(t.verb, t.resource, t.namespace, t.name, self.user)
        if status == 404:
            return errors.NotFound(f"cannot {what}: not found", status=404)
        if status == 410:
            return errors.Gone(f"cannot {what}: {message or 'resource version too old'}", status=410)
        if status == 409:
            return errors.Conflict(f"cannot {what}: {message or 'conflict'}", status=409)
        if status == 422:
            return errors.Invalid(f"cannot {what}: {message or 'invalid'}", status=422)
        return errors.ServerError(f"cannot {what}: HTTP {status}: {message}".rstrip(": "), status=status)

    # ---- helpers -----------------------------------------------------------------------------
    def get(self, path: str, target: Target, query: dict[str, Any] | None = None) -> Any:
        return self.request("GET", path, target, query=query)

    def watch(self, path: str, target: Target, query: dict[str, Any], read_timeout: float) -> Iterator[dict[str, Any]]:
        """The events of a watch (``?watch=1``), one dict per line the server streams, until the
        server ends it (its ``timeoutSeconds``) or ``read_timeout`` passes without a byte. A dropped
        connection ends the iteration like the server's end does: the caller resumes from the last
        resourceVersion. A 410 answer or ERROR event with code 410 raises ``errors.Gone``."""
        import urllib3

        url = self.server + path + "?" + urlencode(dict(query, watch="1"))
        try:
            resp = self._pool.request("GET", url, headers=self._headers(None), preload_content=False, retries=False,
                                      timeout=urllib3.Timeout(connect=min(self.opts.request_timeout, 10.0),
                                                              read=read_timeout))
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise self._unreachable(e) from None
        with self._stats_lock:
            self.stats.requests += 1
            self.stats.calls.append({"method": "GET", "path": url[len(self.server):], "status": resp.status,
                                     "bytes": 0, "ms": 0.0})  # a stream: its bytes are counted as they come
        log.debug("WATCH %s -> %s", url, resp.status)
        try:
            if not 200 <= resp.status < 300:
                raise self._http_error(resp.status, resp.read(), target)
            for line in resp:
                if not line.strip():
                    continue
                with self._stats_lock:
                    self.stats.bytes_read += len(line)
                event = json.loads(line)
                if event.get("type") == "ERROR":
                    status = event.get("object") or {}
                    if status.get("code") == 410:
                        raise errors.Gone(str(status.get("message") or "resource version too old"), status=410)
                    raise errors.ServerError(f"watch of {target.resource}: {status.get('message') or status}",
                                             status=status.get("code"))
                yield event
        except (urllib3.exceptions.ProtocolError, urllib3.exceptions.ReadTimeoutError, OSError) as e:
            log.debug("watch %s ended: %s", url, e)
        finally:
            resp.release_conn()

    def list_pages(self, path: str, target: Target, query: dict[str, Any] | None = None,
                   page_size: int = PAGE_SIZE) -> Iterator[dict[str, Any]]:
        """Yield list pages, following ``continue`` tokens.

        The next page is requested as soon as this one has arrived (its token is read from the
        head of the raw page, before the page is parsed), so that the server encodes and sends
        page N+1 while page N is parsed and consumed here; at most one page is fetched ahead."""
        params = dict(query or {})
        params["limit"] = page_size
        ahead: _Fetch | None = None
        payload: bytes = self.request("GET", path, target, query=params, raw=True)
        while True:
            peeked = _peek_continue(payload)
            if peeked:
                ahead = _Fetch(lambda p=dict(params, **{"continue": peeked}): self.request(
                    "GET", path, target, query=p, raw=True))
            decoded = _json_text(payload)
            del payload
            page = json.loads(decoded) if decoded else {}
            del decoded
            token = (page.get("metadata") or {}).get("continue")
            yield page
            del page
            if not token:
                return
            params["continue"] = token
            if ahead is not None and peeked == token:
                payload = ahead.result()
            else:  # the head did not show the token: fetch it now
                payload = self.request("GET", path, target, query=params, raw=True)
            ahead = None


def _quiet_insecure_warning() -> None:
    """The user asked for no certificate check (kubeconfig or flag): urllib3 would warn on every
    request; kubectl prints nothing, and neither does this."""
    import warnings

    import urllib3

    warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)


# The list's own metadata comes before its items: {"kind":…,"apiVersion":…,"metadata":{…,"continue":"…"},
_CONTINUE = re.compile(rb'^\{[^{]*"metadata":\{[^{}]*"continue":("[A-Za-z0-9_=+/.-]*")')


def _peek_continue(payload: bytes) -> str | None:
    """The ``continue`` token of a raw list page, read from its first bytes (None if not there)."""
    m = _CONTINUE.match(payload[:4096])
    return json.loads(m.group(1)) if m else None


def _json_text(payload: bytes) -> str:
    """The body as text, decoded as ``json.loads`` decodes bytes (so that the caller can drop the
    bytes before parsing)."""
    return payload.decode(json.detect_encoding(payload), "surrogatepass") if payload else ""


class _Fetch:
    """One request on a daemon thread (never keeps the process alive, e.g. after Ctrl-C)."""

    def __init__(self, fn: Any):
        self._fn = fn
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="kueue-dra-list-page")
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            self._error = e

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
