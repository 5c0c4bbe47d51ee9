"""A busy or failing API server, for real: the plugin's lists survive throttling (429), an expired
continue token (410) and a connection reset, and a write is never sent twice.

Its own control plane (ListFromCacheSnapshot off, so a continue page is read from etcd and etcd's
compaction expires the token as in a cluster whose list outlives the compaction interval), with
40 synthetic nodes: 680 ResourceSlices, two pages. The faults come from ``testenv.faults.proxy`` between the
plugin and the real API server, and from the API server's own API Priority and Fairness
(``apf``). Each answer must equal the one read without a fault.
"""

import json
import threading
import time
from urllib.parse import quote

import pytest
from testenv.clirun import run_with
from testenv.harness import GATES_ON, Cluster, plugin_env, run_plugin

from testenv.faults import apf
from testenv import scale
from testenv.faults.proxy import FaultProxy, Rule, compact_etcd, expired_status

SIZE = scale.Size(nodes=40, workloads=10)  # 680 ResourceSlices: pages of 500 make two
SLICES = "/apis/resource.k8s.io/v1/resourceslices"
THROTTLED = "warning: the API server is throttling requests (429 Too Many Requests); retrying in"


@pytest.fixture(scope="module")
def faulty(request, controlplane_bin):
    try:
        cluster = Cluster.start("faults", controlplane_bin, {**GATES_ON, "ListFromCacheSnapshot": False})
    except Exception as e:  # noqa: BLE001
        pytest.fail(f"starting the faults test cluster failed: {type(e).__name__}: {e}", pytrace=False)
    request.addfinalizer(cluster.stop)
    scale.load(cluster, SIZE)
    return cluster


def answer(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    doc.pop("source", None)  # names the server's URL: the proxy's or the API server's
    return doc


@pytest.fixture(scope="module")
def baseline(faulty):
    return answer(run_plugin(faulty, "classes", "-o", "json"))


def through(proxy, tmp_path, *args, context="admin"):
    started = time.monotonic()
    proc = run_with(("--kubeconfig", str(proxy.kubeconfig(tmp_path)), "--context", context, *args),
                    plugin_env(proxy.cluster))
    return proc, time.monotonic() - started


def slice_requests(proxy):
    """(status, a continue page?, a page at all?) of each ResourceSlice request, in order."""
    return [(e["status"], "continue=" in e["path"], "limit=" in e["path"]) for e in proxy.requests(SLICES)]


WHOLE_BROKE = ("warning: list resourceslices.resource.k8s.io at cluster scope: the connection broke while GET "
               f"{{server}}{SLICES} was read: ")


def break_whole():
    """The first read of the list, whole, broken by the proxy: the list is then read in pages."""
    return Rule("reset", path=SLICES)


def test_a_real_expired_token_is_the_status_the_proxy_sends(faulty):
    status, body = faulty.request("GET", f"{SLICES}?limit=1")
    assert status == 200, body
    token = json.loads(body)["metadata"]["continue"]
    compact_etcd(faulty.etcd_url)
    status, body = faulty.request("GET", f"{SLICES}?limit=1&continue={quote(token)}")
    real = json.loads(body)
    assert status == 410, real
    assert real == expired_status(real["metadata"].get("continue", "")), real


def broke_then(proc, proxy, *rest):
    """stderr: the whole read broke, then ``rest``."""
    first, *others = proc.stderr.splitlines()
    assert first.startswith(WHOLE_BROKE.format(server=proxy.url)), first
    assert first.endswith("; reading the list again in pages"), first
    assert others == list(rest), others


EXPIRED_AGAIN = ("warning: list resourceslices.resource.k8s.io at cluster scope: the list's continue token expired "
                 "between two pages (HTTP 410); reading the list again ")


def test_an_expired_token_reads_the_list_again_from_the_start(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [break_whole(), Rule("compact", path=SLICES, continue_only=True)]) as proxy:
        proc, _ = through(proxy, tmp_path, "classes", "-o", "json")
    assert answer(proc) == baseline
    # the real API server answered 410; the pages read before were dropped, the list read again
    assert slice_requests(proxy) == [(200, False, False), (200, False, True), (410, True, True), (200, False, True),
                                     (200, True, True)]
    broke_then(proc, proxy, EXPIRED_AGAIN + "from the start")


def test_a_second_expiry_reads_the_list_whole(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [break_whole(), Rule("compact", path=SLICES, continue_only=True, times=100)]) as proxy:
        proc, _ = through(proxy, tmp_path, "classes", "-o", "json")
    assert answer(proc) == baseline
    assert slice_requests(proxy) == [(200, False, False), (200, False, True), (410, True, True), (200, False, True),
                                     (410, True, True), (200, False, False)]
    broke_then(proc, proxy, EXPIRED_AGAIN + "from the start", EXPIRED_AGAIN + "whole, in one response")


def test_a_throttled_list_waits_retry_after_and_says_so(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [Rule("throttle", path=SLICES, retry_after=2)]) as proxy:
        proc, seconds = through(proxy, tmp_path, "classes", "-o", "json")
    assert answer(proc) == baseline
    assert proc.stderr.splitlines() == [f"{THROTTLED} 2s"]
    assert seconds >= 2
    assert slice_requests(proxy) == [(429, False, False), (200, False, False)]


def test_a_throttled_page_waits_too(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [break_whole(), Rule("throttle", path=SLICES, continue_only=True)]) as proxy:
        proc, _ = through(proxy, tmp_path, "classes", "-o", "json")
    assert answer(proc) == baseline
    broke_then(proc, proxy, f"{THROTTLED} 1s")
    assert slice_requests(proxy) == [(200, False, False), (200, False, True), (429, True, True), (200, True, True)]


def test_throttling_stops_within_the_request_timeout(faulty, tmp_path):
    with FaultProxy(faulty, [Rule("throttle", path="/", times=1000, retry_after=2)]) as proxy:
        proc, seconds = through(proxy, tmp_path, "classes", "-o", "json", "--request-timeout", "5s")
    assert proc.returncode == 1
    *waits, error = proc.stderr.splitlines()
    assert waits == [f"{THROTTLED} 2s"] * 2  # 2 s, 2 s, and a third wait would pass the 5 s
    assert error.startswith("error: cannot ") and "the API server is still throttling requests (429 Too Many " \
        "Requests, asking to retry after 2s) within --request-timeout (5s)" in error, error
    assert 4 <= seconds < 5 + 2, seconds
    assert len(proxy.requests()) == 3


def test_a_read_without_answer_is_sent_again(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [Rule("drop", path=SLICES)]) as proxy:
        proc, _ = through(proxy, tmp_path, "classes", "-o", "json")
    assert answer(proc) == baseline
    assert proc.stderr == ""
    sent = proxy.requests(SLICES)
    assert [e["action"] for e in sent] == ["drop", "forward"] and sent[0]["path"] == sent[1]["path"]


def test_a_list_reset_in_the_middle_is_read_again_in_pages(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [break_whole()]) as proxy:
        proc, _ = through(proxy, tmp_path, "classes", "-o", "json")
    assert answer(proc) == baseline
    broke_then(proc, proxy)
    assert slice_requests(proxy) == [(200, False, False), (200, False, True), (200, True, True)]
    assert [e["action"] for e in proxy.requests(SLICES)] == ["reset", "forward", "forward"]


def _slice_calls(stats_path):
    return [c for c in json.loads(stats_path.read_text())["calls"] if c["path"].startswith(SLICES)]


def test_a_compressed_list_is_the_same_answer_in_a_twentieth_of_the_bytes(faulty, baseline, tmp_path):
    """Asked for (as kubectl asks), the real API server gzips the list; not asked over loopback."""
    stats = tmp_path / "stats.json"
    proc = run_plugin(faulty, "classes", "-o", "json", "--disable-compression=false", env={"KUEUE_DRA_STATS": str(stats)})
    assert answer(proc) == baseline
    (call,) = _slice_calls(stats)
    assert 0 < call["wireBytes"] * 5 < call["bytes"], call
    proc = run_plugin(faulty, "classes", "-o", "json", "-v", env={"KUEUE_DRA_STATS": str(stats)})
    assert answer(proc) == baseline
    assert [c.get("wireBytes") for c in _slice_calls(stats)] == [None]
    assert "responses: not compressed (the API server is reached through loopback (127.0.0.1)" in proc.stderr


def test_a_compressed_list_reset_in_the_middle_is_read_again_in_pages(faulty, baseline, tmp_path):
    with FaultProxy(faulty, [break_whole()]) as proxy:
        proc, _ = through(proxy, tmp_path, "classes", "-o", "json", "--disable-compression=false")
    assert answer(proc) == baseline
    broke_then(proc, proxy)
    assert slice_requests(proxy) == [(200, False, False), (200, False, True), (200, True, True)]


def test_the_real_api_priority_and_fairness_throttles_and_the_list_survives(faulty, tmp_path):
    expected = answer(run_plugin(faulty, "classes", "-o", "json", context="reader"))
    faulty.apply(apf.throttle_objects("reader"))
    try:
        apf.wait_in_effect(faulty, "reader")
        hog = apf.SeatHog(faulty, "reader")
        held = hog.take()
        released: list[int] = []
        timer = threading.Timer(3.0, lambda: released.extend(hog.release()))
        timer.start()
        try:
            started = time.monotonic()
            proc = run_plugin(faulty, "classes", "-o", "json", context="reader")
            seconds = time.monotonic() - started
        finally:
            timer.join()
        assert answer(proc) == expected
        waits = proc.stderr.splitlines()
        assert waits and all(w.startswith(THROTTLED) for w in waits), proc.stderr
        assert seconds >= 2.5, (seconds, held)
        assert released == [201] * held  # the held requests were served too, once let go
    finally:
        faulty.delete(apf.throttle_objects("reader"))


def test_a_write_whose_connection_breaks_is_not_sent_again(faulty, tmp_path):
    shown = ["map", "-o", "json"]
    before = answer(run_plugin(faulty, *shown))
    with FaultProxy(faulty, [Rule("reset", method="PUT", path="/configmaps/")]) as proxy:
        proc, _ = through(proxy, tmp_path, "map", "remove", "gpu.memory", "--device-class", "mig.nvidia.com")
    try:
        assert proc.returncode == 1
        line, = proc.stderr.splitlines()
        assert "broke after the PUT was sent" in line and "the change may or may not have been applied" in line, line
        assert len(proxy.requests("/configmaps/", method="PUT")) == 1
        after = answer(run_plugin(faulty, *shown))  # it was applied: the proxy forwarded it
        classes = {m["name"]: m["deviceClassNames"] for m in after["mappings"]}
        assert classes["gpu.memory"] == ["gpu.nvidia.com"], after
    finally:
        restored = run_plugin(faulty, "map", "set", "gpu.memory", "--device-class", "gpu.nvidia.com",
                              "--device-class", "mig.nvidia.com", "--counter", "memory", "--driver", scale.DRIVER,
                              "--selector", f"device.driver == '{scale.DRIVER}'")
        assert restored.returncode == 0, restored.stderr
    assert answer(run_plugin(faulty, *shown))["mappings"] == before["mappings"]
