"""Raw JSON requests to the API server.

The ``kubernetes`` package provides the TLS-configured connection pool and the auth headers
(including exec/OIDC token refresh); requests, retries, timeouts and error mapping are done here,
and bodies are plain ``json.loads`` dicts — never the generated models, which are slow and drop
fields newer than the client.
"""

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from . import errors, retry
from .parse.jsonstream import json_text
from .kubeconfig import ConnectionOptions, LoadedConfig, compression, load
from .plain import pool_manager

log = logging.getLogger(__name__)


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
        self.opts = opts
        self.clock = opts.env.clock  # deadlines, backoff and waits: the run's clock
        self.loaded: LoadedConfig = load(opts)
        cfg = self.loaded.configuration
        cfg.retries = False  # retries are ours: bounded by the request timeout, with backoff
        if not cfg.verify_ssl:
            _quiet_insecure_warning()
        self._cfg = cfg
        self._pool = pool_manager(cfg)
        self.server = cfg.host.rstrip("/")
        self.namespace = self.loaded.namespace
        self.compressed, why = compression(opts, self.loaded)
        log.debug("responses: %s (%s)", "gzip asked for" if self.compressed else "not compressed", why)
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
        if self.compressed:  # urllib3 inflates the body as it is read
            headers["Accept-Encoding"] = "gzip"
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
                raw: bool = False, stream: bool = False) -> Any:
        """Send one request and return the decoded JSON body (``text=True``: the body as text,
        e.g. ``/metrics``; ``raw=True``: the undecoded bytes; ``stream=True``: a ``Stream`` to
        read the body from as it arrives). Raises typed ``KubeError``s. Retries
        (``kube/retry.py``) stay within ``--request-timeout``."""
        import urllib3

        url = self.server + path
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            content_type = content_type or "application/json"
        accept = "text/plain" if text else "application/json"
        attempts = retry.Attempts(method, self.clock.monotonic() + self.opts.request_timeout, self.clock)
        while True:
            attempts.tries += 1
            remaining = max(0.5, attempts.remaining())
            timeout = urllib3.Timeout(connect=min(remaining, 10.0), read=remaining)
            started = self.clock.monotonic()
            try:
                resp = self._pool.request(method, url, body=data, headers=self._headers(content_type, accept),
                                          timeout=timeout, preload_content=not stream, retries=False)
            except (urllib3.exceptions.HTTPError, OSError) as e:
                what = _connection_error(e)
                log.debug("%s %s: %s (%s)", method, url, e, what)
                wait = attempts.after_error(what)
                if wait is not None:
                    self.clock.sleep(wait)
                    continue
                if what == retry.BROKEN and method not in retry.IDEMPOTENT:
                    raise self._broken_write(e, method, target) from None
                raise self._unreachable(e) from None
            finally:
                with self._stats_lock:
                    self.stats.requests += 1
            if stream and 200 <= resp.status < 300:
                return Stream(self, resp, method, url, started, attempts.deadline)
            payload = resp.data or b""
            status, retry_after, wire = resp.status, resp.headers.get("Retry-After"), _on_the_wire(resp)
            del resp  # the body is now held once, in `payload`
            elapsed_ms = (self.clock.monotonic() - started) * 1000
            self._count(method, url, status, len(payload), elapsed_ms, started, wire=wire)
            if 200 <= status < 300:
                if text:
                    return payload.decode("utf-8", "replace")
                if raw:
                    return payload
                if not payload:
                    return {}
                decoded = json_text(payload)
                del payload  # the bytes go before the objects are built: a body is held once
                return json.loads(decoded)
            wait = attempts.after_status(status, retry_after)
            if wait is not None:
                if status == retry.THROTTLED:
                    retry.say_throttled(wait, self.opts.env.stderr)
                self.clock.sleep(wait)
                continue
            raise self._http_error(status, payload, target, retry_after)

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

    def _count(self, method: str, url: str, status: int, size: int, elapsed_ms: float, started: float,
               wait_ms: float | None = None, wire: int | None = None) -> None:
        from .. import stats

        call = {"method": method, "path": url[len(self.server):], "status": status, "bytes": size,
                "at": round((started - stats.started()) * 1000, 1), "ms": round(elapsed_ms, 1)}
        if wait_ms is not None:
            call["waitMs"] = round(wait_ms, 1)
        if wire is not None:
            call["wireBytes"] = wire
        with self._stats_lock:
            self.stats.bytes_read += size
            self.stats.calls.append(call)
        log.debug("%s %s -> %s (%d bytes, %.0f ms)", method, url, status, size, elapsed_ms)

    def _broken_write(self, e: Exception, method: str, t: Target) -> errors.Unreachable:
        """A write whose connection broke after it was sent: it is not sent again (the server may
        have applied it), and the message says so."""
        reason = str(getattr(e, "reason", None) or e)
        what = errors.describe_target(t.verb, t.resource, t.namespace, t.name)
        return errors.Unreachable(f"cannot {what}: the connection to the API server at {self.server} broke "
                                  f"after the {method} was sent ({reason}); the change may or may not have "
                                  "been applied", "look at the object, then run the command again")

    def _http_error(self, status: int, payload: bytes, t: Target, retry_after: str | None = None) -> errors.KubeError:
        reason = ""
        try:
            doc = json.loads(payload)
            message, reason = doc.get("message") or "", doc.get("reason") or ""
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
        if status == 409:
            return errors.Conflict(f"cannot {what}: {message or 'conflict'}", status=409)
        if status == 410:
            return errors.Expired(f"cannot {what}: HTTP 410 {reason or 'Gone'}: {message}".rstrip(": "), status=410)
        if status == 422:
            return errors.Invalid(f"cannot {what}: {message or 'invalid'}", status=422)
        if status == retry.THROTTLED:
            asked = f", asking to retry after {retry_after}s" if retry_after else ""
            return errors.ServerError(
                f"cannot {what}: the API server is still throttling requests (429 Too Many Requests{asked}) "
                f"within --request-timeout ({self.opts.request_timeout:g}s)",
                "try again later, or give a longer --request-timeout", status=status)
        return errors.ServerError(f"cannot {what}: HTTP {status}: {message}".rstrip(": "), status=status)

    # ---- helpers -----------------------------------------------------------------------------
    def get(self, path: str, target: Target, query: dict[str, Any] | None = None) -> Any:
        return self.request("GET", path, target, query=query)

    def watch(self, path: str, target: Target, query: dict[str, Any], read_timeout: float) -> Iterator[dict[str, Any]]:
        """The events of a watch (``?watch=1``), one dict per line the server streams, until the
        server ends it (its ``timeoutSeconds``) or ``read_timeout`` passes without a byte. A dropped
        connection ends the iteration like the server's end does: the caller resumes from the last
        resourceVersion. A 410 answer or ERROR event with code 410 raises ``errors.Expired``."""
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
                        raise errors.Expired(str(status.get("message") or "resource version too old"), status=410)
                    raise errors.ServerError(f"watch of {target.resource}: {status.get('message') or status}",
                                             status=status.get("code"))
                yield event
        except (urllib3.exceptions.ProtocolError, urllib3.exceptions.ReadTimeoutError, OSError) as e:
            log.debug("watch %s ended: %s", url, e)
        finally:
            resp.release_conn()

def _quiet_insecure_warning() -> None:
    """The user asked for no certificate check (kubeconfig or flag): urllib3 would warn on every
    request; kubectl prints nothing, and neither does this."""
    import warnings

    import urllib3

    warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)


class Stream:
    """The body of a successful GET, read as it arrives (``read(n)``, as a file is); ``close()``
    when done. A broken connection, or ``--request-timeout`` passing without a byte of the body,
    raises ``errors.Unreachable``: while the body keeps arriving, each read gives it the whole
    timeout again (the ResourceSlices of 5,000 nodes take 12–14 s to read and parse in the
    benchmark, longer on a slower machine or a busier server, and a list that keeps coming is not a
    stalled one)."""

    def __init__(self, client: KubeClient, resp: Any, method: str, url: str, started: float, deadline: float):
        self._client, self._resp, self._method, self._url = client, resp, method, url
        self._started, self._deadline = started, deadline
        self.size = 0
        #: seconds spent waiting for bytes: in read() (decrypting them too); a body read ahead
        #: on a thread (``listing``) is given the time its parser waited for them
        self.waited = 0.0
        self.status: int = resp.status

    def read(self, n: int = -1) -> bytes:
        import urllib3

        if self._client.clock.monotonic() > self._deadline:
            raise errors.Unreachable(f"the answer to GET {self._url} stopped arriving for --request-timeout "
                                     f"({self._client.opts.request_timeout:g}s)")
        began = self._client.clock.monotonic()
        try:
            data: bytes = self._resp.read(None if n < 0 else n)
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise errors.Unreachable(f"the connection broke while GET {self._url} was read: "
                                     f"{getattr(e, 'reason', None) or e}") from None
        finally:
            self.waited += self._client.clock.monotonic() - began
        self.size += len(data)
        if data:  # it keeps arriving: the next bytes get the whole timeout again
            self._deadline = max(self._deadline, self._client.clock.monotonic() + self._client.opts.request_timeout)
        return data

    def close(self) -> None:
        if self._resp is None:
            return
        if not self._resp.isclosed():  # not read to its end: the connection cannot serve another request
            self._resp.close()
        wire = _on_the_wire(self._resp)
        self._resp.release_conn()
        self._resp = None
        self._client._count(self._method, self._url, self.status, self.size,
                            (self._client.clock.monotonic() - self._started) * 1000, self._started, self.waited * 1000,
                            wire)


def _on_the_wire(resp: Any) -> int | None:
    """The bytes of a compressed body as they came over the wire (None: it was not compressed)."""
    return resp.tell() if resp.headers.get("Content-Encoding") else None


def _connection_error(e: BaseException) -> str:
    """What a connection error means for a retry (``retry.NOT_SENT``, ``BROKEN`` or ``TLS``)."""
    import urllib3

    if isinstance(e, urllib3.exceptions.SSLError):
        return retry.TLS
    if isinstance(e, urllib3.exceptions.ConnectTimeoutError):  # includes NewConnectionError
        return retry.NOT_SENT
    if isinstance(e, urllib3.exceptions.MaxRetryError) and isinstance(e.reason, BaseException):
        return _connection_error(e.reason)
    return retry.BROKEN  # reset, closed mid-answer, read timeout
