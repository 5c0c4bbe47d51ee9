"""Lists read page by page (``kube/listing.py``) and the retry policy (``kube/retry.py``).

The pages here are canned raw bodies; the same behaviour against a real API server, through a
proxy that injects the faults, is in tests/cluster/test_faults.py."""

import io
import sys
import json
import time
from types import SimpleNamespace

import pytest

from kubectl_kueue_dra.environment import SYSTEM_CLOCK
from kubectl_kueue_dra.kube import errors, listing, retry
from kubectl_kueue_dra.kube.client import Target

TARGET = Target("list", "resourceslices.resource.k8s.io")
#: the Status body kube-apiserver sends for an expired continue token (apiserver storage/etcd3)
EXPIRED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": "The provided continue parameter is too old to display a consistent list result. "
                      "You can start a new list without the continue parameter.",
           "reason": "Expired", "code": 410}


def page(items, token=None, rv="1", metadata_last=False):
    meta = {"resourceVersion": rv, **({"continue": token} if token else {})}
    doc = {"kind": "ResourceSliceList", "apiVersion": "resource.k8s.io/v1", "metadata": meta, "items": items}
    if metadata_last:  # a server that writes items first: the token is only known after parsing
        doc = {"items": items, "metadata": meta}
    return json.dumps(doc, separators=(",", ":")).encode()


PAGES = listing.TRIES[1:]  # the tries after the whole list: pages, pages, whole


class PagedClient:
    """Answers list requests from canned raw pages (one dict per read of the list, ``"whole"``
    the answer without limit), records the queries; an exception in place of a page is raised."""

    def __init__(self, *reads):
        self.reads, self.queries = list(reads), []
        self.opts = SimpleNamespace(env=SimpleNamespace(stderr=sys.stderr))  # where warnings go
        self.clock = SYSTEM_CLOCK

    def request(self, method, path, target, *, query=None, raw=False, stream=False, **_):
        assert method == "GET" and (raw or stream) and (stream == ("limit" not in query))
        self.queries.append(dict(query))
        token = query.get("continue")
        if token is None and len(self.queries) > 1:
            self.reads.pop(0)  # the list is read again from the start
        answer = self.reads[0]["whole" if stream else token]
        if isinstance(answer, Exception):
            raise answer
        return Body(answer) if stream else answer


class Body(io.BytesIO):
    """A streamed body; ``broken`` bytes in, the connection breaks."""

    def __init__(self, data, broken=None):
        super().__init__(data)
        self.broken = broken

    def read(self, n=-1):
        if self.broken is not None and self.tell() >= self.broken:
            raise errors.Unreachable("the connection broke while GET /apis/x was read: reset")
        return super().read(n if self.broken is None else min(n, self.broken - self.tell()) or 1)


def expired():
    return errors.Expired("cannot list resourceslices: HTTP 410 Expired", status=410)


@pytest.mark.parametrize("metadata_last", [False, True])
def test_pages_follow_tokens(metadata_last):
    pages = {None: page([{"n": 1}, {"n": 2}], "eyJ2IjoxfQ==", metadata_last=metadata_last),
             "eyJ2IjoxfQ==": page([{"n": 3}], "t-2_x", metadata_last=metadata_last),
             "t-2_x": page([{"n": 4}], None, metadata_last=metadata_last)}
    assert (listing.peek(pages[None]) is None) == metadata_last  # then the parser tells the token
    client = PagedClient(pages)
    got = listing.read_list(client, "/apis/x", TARGET, {"fieldSelector": "spec.driver=d"}, lambda i: i["n"] * 10,
                            tries=PAGES)
    assert got == [10, 20, 30, 40]
    assert [q.get("continue") for q in client.queries] == [None, "eyJ2IjoxfQ==", "t-2_x"]
    assert all(q["limit"] == listing.PAGE_SIZE and q["fieldSelector"] == "spec.driver=d" for q in client.queries)


def test_the_next_page_is_fetched_while_this_one_is_parsed():
    """The second page is requested before the first page's items are consumed."""
    client = PagedClient({None: page([1], "a"), "a": page([2], "b"), "b": page([3])})
    seen = []

    def on_item(item):
        if item == 1:
            deadline = time.monotonic() + 5
            while len(client.queries) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            seen.append(len(client.queries))
        return item

    assert listing.read_list(client, "/apis/x", TARGET, None, on_item, tries=PAGES) == [1, 2, 3]
    assert seen == [2]


def test_an_error_of_a_page_ahead_comes_in_order():
    client = PagedClient({None: page([1], "a"), "a": page([2], "b"),
                          "b": errors.Forbidden("list", "resourceslices", None, None, "me")})
    got = []
    with pytest.raises(errors.Forbidden):
        listing.read_list(client, "/apis/x", TARGET, None, got.append, tries=PAGES)
    assert got == [1, 2]


def test_an_expired_token_reads_again_from_the_start(capsys):
    first = {None: page([1], "a", rv="5"), "a": expired()}
    second = {None: page([1], "b", rv="9"), "b": page([2], rv="9")}
    client = PagedClient(first, second)
    restarts = []
    assert listing.read_list(client, "/apis/x", TARGET, None, lambda i: i, lambda: restarts.append(1),
                             tries=PAGES) == [1, 2]
    assert restarts == [1]
    assert [q.get("continue") for q in client.queries] == [None, "a", None, "b"]
    line, = capsys.readouterr().err.splitlines()
    assert line.startswith("warning: list resourceslices.resource.k8s.io at cluster scope: the list's continue "
                           "token expired between two pages (HTTP 410); reading the list again from the start")


def test_a_second_expiry_reads_the_list_whole(capsys):
    client = PagedClient({None: page([1], "a"), "a": expired()}, {None: page([1], "b"), "b": expired()},
                         {"whole": page([1, 2], rv="12")})
    assert listing.read_list(client, "/apis/x", TARGET, None, lambda i: i, tries=PAGES) == [1, 2]
    assert [q.get("limit") for q in client.queries] == [500, 500, 500, 500, None]
    assert len(capsys.readouterr().err.splitlines()) == 2


def test_pages_of_two_versions_are_never_merged():
    client = PagedClient({None: page([1], "a", rv="5"), "a": page([2], rv="6")}, {None: page([1, 2], "b", rv="7"),
                                                                                  "b": page([3], rv="7")})
    got = []
    assert listing.read_list(client, "/apis/x", TARGET, None, lambda i: got.append(i) or i,
                             lambda: got.clear(), tries=PAGES) == [1, 2, 3]
    assert got == [1, 2, 3]  # the items of the first read were dropped


def test_an_expiry_on_the_first_page_is_an_error():
    client = PagedClient({None: expired()})
    with pytest.raises(errors.Expired):
        listing.read_list(client, "/apis/x", TARGET, None, lambda i: i, tries=PAGES)
    assert len(client.queries) == 1


def test_a_list_is_read_whole_first_and_parsed_as_it_arrives():
    items = [{"n": i} for i in range(300)]
    client = PagedClient({"whole": page(items, rv="3")})
    seen = []
    assert listing.read_list(client, "/apis/x", TARGET, {"labelSelector": "a=b"}, lambda i: seen.append(i) or i) \
        == items == seen
    assert client.queries == [{"labelSelector": "a=b"}]  # no limit: one consistent read


def test_a_whole_list_whose_connection_breaks_is_read_in_pages(capsys):
    items = [{"n": i} for i in range(300)]
    broken = Body(page(items), broken=2000)
    client = PagedClient({"whole": None}, {None: page(items[:200], "a"), "a": page(items[200:])})
    client.reads[0]["whole"] = b""
    client.request = _first_stream(client.request, broken)
    kept = []
    got = listing.read_list(client, "/apis/x", TARGET, None, lambda i: kept.append(i) or i, lambda: kept.clear())
    assert got == items == kept
    assert [q.get("limit") for q in client.queries] == [None, 500, 500]
    line, = capsys.readouterr().err.splitlines()
    assert line.endswith("the connection broke while GET /apis/x was read: reset; reading the list again in pages")


def _first_stream(request, body):
    def answer(*args, stream=False, **kw):
        if stream:
            request(*args, stream=True, **kw)  # recorded
            return body
        return request(*args, **kw)
    return answer


def test_peek_reads_the_list_metadata_from_the_head():
    assert listing.peek(page([{"a": {"b": 1}}], "t/o+k=")) == {"resourceVersion": "1", "continue": "t/o+k="}
    assert listing.peek(page([1], None)) == {"resourceVersion": "1"}
    assert listing.peek(page([{"n": 1}], "x", metadata_last=True)) is None  # items first: not known yet


def test_describe_says_how_a_list_is_read():
    assert listing.describe({"fieldSelector": "spec.driver=d"}, 500) == \
        "a consistent read (resourceVersion unset), in pages of 500, filtered by the server: fieldSelector=spec.driver=d"
    assert listing.describe({"resourceVersion": "0"}, None) == \
        "from the API server's cache (resourceVersion=0, not a consistent read), in one response"


# ---- the retry policy ----------------------------------------------------------------------

def attempts(method="GET", budget=30.0):
    return retry.Attempts(method, time.monotonic() + budget, SYSTEM_CLOCK)


def test_throttled_requests_wait_retry_after_for_any_method_within_the_budget():
    for method in ("GET", "PATCH", "POST"):
        assert attempts(method).after_status(429, "3") == 3.0
    assert attempts().after_status(429, "120") == retry.MAX_WAIT  # each wait is capped
    assert attempts(budget=2.0).after_status(429, "5") is None  # the wait would pass the deadline
    assert 0 < attempts().after_status(429, None) <= 0.25  # no Retry-After: a short backoff
    a = attempts(budget=1000)
    assert all(a.after_status(429, "0") == 0.0 for _ in range(retry.MAX_THROTTLED))
    assert a.after_status(429, "0") is None


def test_server_errors_and_broken_connections_retry_reads_only():
    assert attempts("GET").after_status(503, "1") == 1.0
    assert attempts("PATCH").after_status(503, "1") is None
    assert attempts("GET").after_error(retry.BROKEN) is not None
    for method in ("PATCH", "PUT", "POST", "DELETE"):
        assert attempts(method).after_error(retry.BROKEN) is None
        assert attempts(method).after_error(retry.NOT_SENT) is not None  # nothing reached the server
    assert attempts("GET").after_error(retry.TLS) is None
    a = attempts()
    assert [a.after_status(500, None) is not None for _ in range(retry.MAX_ATTEMPTS)] == [True] * 3 + [False]


def test_retry_after_as_seconds_or_http_date():
    assert retry.retry_after_seconds("7", 0.0) == 7.0
    assert retry.retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry.retry_after_seconds("soon", 0.0) is None and retry.retry_after_seconds(None, 0.0) is None


def test_pages_are_a_consistent_read_whatever_the_whole_list_asked_for():
    items = [{"n": i} for i in range(3)]
    client = PagedClient({"whole": b""}, {None: page(items[:2], "a"), "a": page(items[2:])})
    client.request = _first_stream(client.request, Body(page(items), broken=10))
    got = listing.read_list(client, "/apis/x", TARGET, {"resourceVersion": "0", "fieldSelector": "f=v"},
                            lambda i: i)
    assert got == items
    assert client.queries == [{"resourceVersion": "0", "fieldSelector": "f=v"},
                              {"fieldSelector": "f=v", "limit": 500},
                              {"fieldSelector": "f=v", "limit": 500, "continue": "a"}]


class _Body:
    """A body that arrives a chunk per read, each after ``seconds`` of the fake clock."""

    status = 200

    def __init__(self, clock, chunks, seconds):
        self.clock, self.chunks, self.seconds = clock, list(chunks), seconds

    def read(self, n=None):
        self.clock.now += self.seconds
        return self.chunks.pop(0) if self.chunks else b""


def _stream(chunks, seconds, timeout=30.0, start=0.0):
    from kubectl_kueue_dra.kube.client import Stream

    clock = SimpleNamespace(now=start)
    clock.monotonic = lambda: clock.now
    client = SimpleNamespace(clock=clock, opts=SimpleNamespace(request_timeout=timeout))
    return Stream(client, _Body(clock, chunks, seconds), "GET", "/x", 0.0, timeout)


def test_a_whole_list_that_keeps_arriving_is_read_past_the_timeout():
    """100 chunks 10 s apart: 1,000 s in all, never 30 s without a byte (a stall within one read
    is the socket's read timeout)."""
    stream = _stream([b"x"] * 100, 10.0)
    assert b"".join(iter(lambda: stream.read(1), b"")) == b"x" * 100


def test_a_whole_list_not_read_within_the_timeout_is_given_up():
    stream = _stream([b"x"], 1.0, start=31.0)  # 31 s after the request, nothing read yet
    with pytest.raises(errors.Unreachable, match="stopped arriving for --request-timeout"):
        stream.read(1)


class _Slow(io.BytesIO):
    """A body whose reads are recorded (the bytes read so far at each), its closes counted."""

    def __init__(self, data, fail_at=None):
        super().__init__(data)
        self.fail_at, self.closes, self.waited = fail_at, 0, None

    def read(self, n=-1):
        if self.fail_at is not None and self.tell() >= self.fail_at:
            raise errors.Unreachable("the connection broke while GET /apis/x was read: reset")
        return super().read(n)

    def close(self):
        self.closes += 1


def _until(condition):
    deadline = time.monotonic() + 5
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_a_whole_list_is_read_ahead_of_the_parser_at_most_so_far():
    data = bytes(range(256)) * 100
    body = _Slow(data)
    ahead = listing._ReadAhead(body, 100, time.monotonic)
    assert ahead.read(150) == data[:200]  # whole chunks, as many as needed
    ahead_most = 200 + 100 * (listing.READ_AHEAD + 1)  # the chunks waiting, and one more read
    assert _until(lambda: body.tell() == ahead_most)  # read ahead, and no further
    time.sleep(0.1)
    assert body.tell() == ahead_most
    assert ahead.read(len(data)) == data[200:] and ahead.read(100) == b""
    time.sleep(0.1)
    assert body.closes == 0  # read to its end, not yet parsed: the last of the two closes it
    ahead.close()
    ahead.close()
    assert _until(lambda: body.closes == 1) and 0 <= body.waited < 5  # counted once, with the parser's wait
    time.sleep(0.1)
    assert body.closes == 1


def test_a_read_ahead_error_comes_after_the_bytes_before_it_and_close_stops_the_reading():
    body = _Slow(b"x" * 1000, fail_at=300)
    ahead = listing._ReadAhead(body, 100, time.monotonic)
    assert ahead.read(300) == b"x" * 300
    with pytest.raises(errors.Unreachable, match="reset"):
        ahead.read(100)
    ahead.close()
    assert _until(lambda: body.closes == 1)
    body = _Slow(b"x" * 100_000)
    ahead = listing._ReadAhead(body, 100, time.monotonic)
    ahead.read(100)
    ahead.close()  # the parser gave up: the thread stops, and closes the body as the last one
    assert _until(lambda: body.closes == 1)
    time.sleep(0.1)
    assert body.closes == 1 and body.tell() <= 100 * (listing.READ_AHEAD + 2)
