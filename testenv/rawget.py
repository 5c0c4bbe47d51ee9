"""The floor of a command's wall time: the same GET requests, read and thrown away.

Run as a child process (``python rawget.py SERVER CA_FILE TOKEN PATH...``, as ``perf.raw_transfer``
does): one keep-alive HTTPS connection, each path requested as the plugin requested it, a list
followed page by page through its ``continue`` token (read from the head of the page, which holds
``metadata``), every body read in 1 MiB chunks and discarded. Prints ``{"requests", "bytes"}``.
Nothing is parsed, nothing kept: no client can read the same lists faster from this server.
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
import sys
from urllib.parse import parse_qsl, urlencode, urlsplit

_CONTINUE = re.compile(rb'"continue":"([^"]*)"')
_HEAD = 8192  # bytes searched for metadata.continue


def _get(conn: http.client.HTTPSConnection, token: str, path: str) -> tuple[int, bytes]:
    """(bytes read, the head of the body)."""
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise SystemExit(f"GET {path}: HTTP {resp.status}")
    head = resp.read(_HEAD)
    total = len(head)
    while chunk := resp.read(1 << 20):
        total += len(chunk)
    return total, head


def fetch(conn: http.client.HTTPSConnection, token: str, path: str) -> tuple[int, int]:
    """(requests, bytes) for one path, following its pages."""
    url = urlsplit(path)
    query = [(k, v) for k, v in parse_qsl(url.query) if k != "continue"]
    requests = read = 0
    token_continue = None
    while True:
        q = query + ([("continue", token_continue)] if token_continue else [])
        n, head = _get(conn, token, url.path + (f"?{urlencode(q)}" if q else ""))
        requests, read = requests + 1, read + n
        found = _CONTINUE.search(head)
        token_continue = found.group(1).decode() if found and found.group(1) else None
        if not token_continue:
            return requests, read


def main(argv: list[str]) -> int:
    server, ca_file, token, *paths = argv
    url = urlsplit(server)
    conn = http.client.HTTPSConnection(url.hostname, url.port, context=ssl.create_default_context(cafile=ca_file),
                                       timeout=300)
    requests = read = 0
    for path in paths:
        r, n = fetch(conn, token, path)
        requests, read = requests + r, read + n
    print(json.dumps({"requests": requests, "bytes": read}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
