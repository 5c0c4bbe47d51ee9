"""Real throttling by the API server's own API Priority and Fairness, for one test user.

``throttle_objects(user)``: a PriorityLevelConfiguration with the smallest share of the server's
concurrency (1 share: a few seats), no borrowing, and ``Reject`` (429 at once, no queue), and a
FlowSchema sending every request of ``user`` there.

``SeatHog``: takes the priority level's seats by sending, as ``user``, requests that the server
admits and then waits on — a POST of a SelfSubjectReview (every authenticated user may create
one) whose body does not come yet — one more connection at a time until a probe as ``user`` is
answered 429. ``release()`` sends the bodies, reads the answers and closes; the hog also lets go
by itself after ``hold`` seconds.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

PRIORITY_LEVEL = "kueue-dra-test-tiny"
FLOW_SCHEMA = "kueue-dra-test-throttled"
REVIEW = b'{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
MAX_CONNECTIONS = 24


def throttle_objects(user: str) -> list[dict[str, Any]]:
    level = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
        "metadata": {"name": PRIORITY_LEVEL},
        "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 1, "lendablePercent": 0,
                                                "borrowingLimitPercent": 0, "limitResponse": {"type": "Reject"}}},
    }
    schema = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": FLOW_SCHEMA},
        "spec": {
            "priorityLevelConfiguration": {"name": PRIORITY_LEVEL}, "matchingPrecedence": 90,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [{"subjects": [{"kind": "User", "user": {"name": user}}],
                       "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                                          "clusterScope": True, "namespaces": ["*"]}],
                       "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}],
        },
    }
    return [level, schema]


class SeatHog:
    def __init__(self, cluster: Any, user: str, hold: float = 60):
        url = urlsplit(cluster.server)
        self.host, self.port = url.hostname, url.port
        self.ctx = ssl.create_default_context(cafile=str(cluster.pki.ca_cert))
        self.token = cluster.tokens[user]
        self.hold = hold
        self._held: list[ssl.SSLSocket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def _probe(self) -> int:
        conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=10)
        try:
            conn.request("GET", "/api", headers={"Authorization": f"Bearer {self.token}"})
            resp = conn.getresponse()
            resp.read()
            return resp.status
        finally:
            conn.close()

    def _take_seat(self) -> None:
        sock = self.ctx.wrap_socket(socket.create_connection((self.host, self.port), timeout=30),
                                    server_hostname=self.host)
        head = (f"POST /apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Authorization: Bearer {self.token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(REVIEW)}\r\n\r\n")
        sock.sendall(head.encode())  # the body follows on release: the server waits, holding a seat
        self._held.append(sock)

    def take(self) -> int:
        """Hold seats until the user is throttled; how many connections that took."""
        for _ in range(MAX_CONNECTIONS):
            self._take_seat()
            time.sleep(0.2)  # let the server admit it before probing
            if self._probe() == 429:
                self._timer = threading.Timer(self.hold, self.release)
                self._timer.daemon = True
                self._timer.start()
                return len(self._held)
        self.release()
        raise RuntimeError(f"{MAX_CONNECTIONS} waiting requests did not make the API server throttle")

    def release(self) -> list[int]:
        """Send the bodies; the statuses of the held requests (201: each was served in the end)."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            held, self._held = self._held, []
        statuses = []
        for sock in held:
            try:
                sock.sendall(REVIEW)
                statuses.append(_status(sock))
            except OSError:
                statuses.append(0)
            finally:
                sock.close()
        return statuses


def _status(sock: ssl.SSLSocket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def wait_in_effect(cluster: Any, user: str, timeout: float = 60) -> None:
    """Wait until the API server classifies ``user``'s requests with the FlowSchema (it names the
    schema's uid in a response header)."""
    _, body = cluster.request("GET", f"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/{FLOW_SCHEMA}")
    uid = json.loads(body)["metadata"]["uid"]
    url = urlsplit(cluster.server)
    ctx = ssl.create_default_context(cafile=str(cluster.pki.ca_cert))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        conn = http.client.HTTPSConnection(url.hostname, url.port, context=ctx, timeout=10)
        try:
            conn.request("GET", "/api", headers={"Authorization": f"Bearer {cluster.tokens[user]}"})
            resp = conn.getresponse()
            resp.read()
            if resp.getheader("X-Kubernetes-PF-FlowSchema-UID") == uid:
                return
        finally:
            conn.close()
        time.sleep(0.5)
    raise RuntimeError(f"the FlowSchema {FLOW_SCHEMA} did not take effect within {timeout:g}s")
