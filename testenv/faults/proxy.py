"""An HTTPS proxy between the plugin and a real test API server that injects faults on cue.

``FaultProxy(cluster)`` listens on 127.0.0.1 only, with the API server's own serving certificate
(its names include 127.0.0.1, so the cluster's CA checks it), and forwards every request to the
real kube-apiserver. ``Rule``s pick requests (method, a path fragment, only ``continue`` pages)
and act on the Nth to Mth of them:

* ``throttle``: answer 429 with ``Retry-After``, as API Priority and Fairness does (its text body);
* ``expire``: answer 410 with the Status kube-apiserver sends for an expired ``continue`` token;
* ``compact``: first compact etcd past the token's revision (``compact_etcd``), then forward, so
  that the real API server answers the real 410;
* ``reset``: forward, then send the status line, the headers and half the body, and reset the
  connection (a read sees a broken answer; a write was applied upstream but gets no answer);
* ``drop``: reset the connection without forwarding (no answer at all).

Every request is logged (method, path with query, status sent, the rule's action). The serving
loop stops with ``stop()``, or by itself after ``lifetime`` seconds.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import struct
import threading
import time
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

#: kube-apiserver's message for a continue token whose revision etcd compacted (storage/etcd3)
EXPIRED_MESSAGE = ("The provided continue parameter is too old to display a consistent list result. You can "
                   "start a new list without the continue parameter, or use the continue token in this response "
                   "to retrieve the remainder of the results. Continuing with the provided token results in an "
                   "inconsistent list - objects that were created, modified, or deleted between the time the "
                   "first chunk was returned and now may show up in the list.")
#: what API Priority and Fairness writes with its 429 (http.Error: text, then a newline)
THROTTLED_BODY = b"Too many requests, please try again later.\n"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "upgrade"}


def expired_status(token: str = "") -> dict[str, Any]:
    """The Status of a 410 for an expired continue token, in the shape kube-apiserver writes it
    (test_faults checks it against a real one)."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {"continue": token} if token else {},
            "status": "Failure", "message": EXPIRED_MESSAGE, "reason": "Expired", "code": 410}


def compact_etcd(etcd_url: str) -> int:
    """Write a key outside the API server's prefix and compact etcd at the new revision: every
    continue token issued before is then older than etcd's history. Returns the revision."""
    def call(path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(etcd_url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    key = base64.b64encode(b"/kueue-dra-test/compact").decode()
    put = call("/v3/kv/put", {"key": key, "value": base64.b64encode(str(time.time()).encode()).decode()})
    revision = int(put["header"]["revision"])
    call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
    return revision


@dataclass
class Rule:
    action: str  # throttle | expire | compact | reset | drop
    method: str = "GET"
    path: str = ""  # a fragment of the path (with the query) to match
    continue_only: bool = False  # only list pages after the first
    nth: int = 1  # the first matching request acted on (1 = the first)
    times: int = 1  # how many matching requests in a row
    retry_after: int = 1  # throttle: the Retry-After header
    matched: int = 0

    def fires(self, method: str, path: str) -> bool:
        if method != self.method or self.path not in path or (self.continue_only and "continue=" not in path):
            return False
        self.matched += 1
        return self.nth <= self.matched < self.nth + self.times


class FaultProxy:
    def __init__(self, cluster: Any, rules: list[Rule] | None = None, lifetime: float = 600):
        self.cluster = cluster
        self.rules = list(rules or [])
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        upstream = urlsplit(cluster.server)
        self.upstream = (upstream.hostname, upstream.port)
        self.upstream_ssl = ssl.create_default_context(cafile=str(cluster.pki.ca_cert))
        server_ssl = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_ssl.load_cert_chain(str(cluster.pki.serving_cert), str(cluster.pki.serving_key))
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.socket = server_ssl.wrap_socket(self.httpd.socket, server_side=True)
        self.httpd.proxy = self
        self.url = f"https://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        daemon=True, name="fault-proxy")
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def start(self) -> FaultProxy:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def kubeconfig(self, directory: Path) -> Path:
        """The cluster's kubeconfig with every cluster's server pointing at this proxy."""
        cfg = yaml.safe_load(self.cluster.kubeconfig.read_text())
        for entry in cfg["clusters"]:
            entry["cluster"]["server"] = self.url
        path = directory / "kubeconfig-proxy"
        path.write_text(yaml.safe_dump(cfg))
        path.chmod(0o600)
        return path

    def rule_for(self, method: str, path: str) -> Rule | None:
        with self._lock:
            return next((r for r in self.rules if r.fires(method, path)), None)

    def record(self, method: str, path: str, status: int, action: str) -> None:
        with self._lock:
            self.log.append({"method": method, "path": path, "status": status, "action": action})

    def requests(self, fragment: str = "", method: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.log if fragment in e["path"] and (method is None or e["method"] == method)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    proxy: FaultProxy

    def handle_error(self, request: Any, client_address: Any) -> None:  # a reset client is expected
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    upstream: http.client.HTTPSConnection | None = None

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _forward(self, body: bytes | None) -> tuple[int, list[tuple[str, str]], bytes]:
        proxy = self.server.proxy
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        for attempt in (1, 2):  # a kept-alive upstream connection may have been closed meanwhile
            if self.upstream is None:
                self.upstream = http.client.HTTPSConnection(*proxy.upstream, context=proxy.upstream_ssl, timeout=60)
            try:
                self.upstream.request(self.command, self.path, body=body, headers=headers)
                resp = self.upstream.getresponse()
                return resp.status, resp.getheaders(), resp.read()
            except (OSError, http.client.HTTPException):
                self.upstream.close()
                self.upstream = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _reset(self) -> None:
        """RST instead of FIN: the client sees "connection reset"."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def _send(self, status: int, headers: list[tuple[str, str]], body: bytes, *, cut: bool = False) -> None:
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in HOP_BY_HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not cut:
            self.wfile.write(body)
            return
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self._reset()  # in the middle of the body

    def _handle(self) -> None:
        proxy = self.server.proxy
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        rule = proxy.rule_for(self.command, self.path)
        action = rule.action if rule else "forward"
        if action == "throttle":
            assert rule is not None
            proxy.record(self.command, self.path, 429, action)
            return self._send(429, [("Content-Type", "text/plain; charset=utf-8"),
                                    ("Retry-After", str(rule.retry_after))], THROTTLED_BODY)
        if action == "expire":
            proxy.record(self.command, self.path, 410, action)
            return self._send(410, [("Content-Type", "application/json")], json.dumps(expired_status()).encode())
        if action == "drop":
            proxy.record(self.command, self.path, 0, action)
            return self._reset()
        if action == "compact":
            compact_etcd(proxy.cluster.etcd_url)
        status, headers, payload = self._forward(body)
        proxy.record(self.command, self.path, status, action)
        self._send(status, headers, payload, cut=action == "reset")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle
