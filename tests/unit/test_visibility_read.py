"""Kueue's visibility API as ``explain`` reads it (kube/visibility): the LocalQueue's pending
workloads from v1beta2 (v1beta1 when only it is served), one request per LocalQueue per run, and
every way it cannot answer said as the reason — not served, 404 (the queue manager does not know
the LocalQueue), 403 (recorded as unreadable: the answer is partial), 503, a snapshot. The live
counterpart, against Kueue's real visibility server, is tests/cluster/test_queue_truth_live.py."""

from __future__ import annotations

import json

import pytest

from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kube.live import LiveView
from kubectl_kueue_dra.kube.visibility import GROUP, pending_workloads

ITEMS = [{"metadata": {"name": "wl-a", "namespace": "ns"}, "localQueueName": "lq", "priority": 0,
          "positionInClusterQueue": 0, "positionInLocalQueue": 0}]


class FakeClient:
    server, namespace = "https://fake", "ns"

    def __init__(self, versions, answer):
        self.versions, self.answer, self.calls = versions, answer, []

    def get(self, path, target, query=None):
        self.calls.append(path)
        if path == f"/apis/{GROUP}":
            if self.versions is None:
                raise errors.NotFound("not found", status=404)
            return {"versions": [{"version": v} for v in self.versions]}
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def read(versions, answer):
    client = FakeClient(versions, answer)
    view = LiveView(client)
    return view, client, pending_workloads(view, "ns", "lq")


def test_v1beta2_first_and_once_per_local_queue():
    view, client, got = read(["v1beta2", "v1beta1"], {"kind": "PendingWorkloadsSummary", "items": ITEMS})
    assert got.items == ITEMS and got.version == "v1beta2" and got.problem is None
    assert pending_workloads(view, "ns", "lq") is got
    assert client.calls == [f"/apis/{GROUP}", f"/apis/{GROUP}/v1beta2/namespaces/ns/localqueues/lq/pendingworkloads"]


def test_v1beta1_when_only_it_is_served():
    _, client, got = read(["v1beta1"], {"items": ITEMS})
    assert got.version == "v1beta1" and client.calls[-1].startswith(f"/apis/{GROUP}/v1beta1/")


@pytest.mark.parametrize("versions,answer,words", [
    (None, None, "is not served"),
    (["v1beta2"], errors.NotFound("x", status=404), "does not know LocalQueue ns/lq (404"),
    (["v1beta2"], errors.ServerError("cannot get …: HTTP 503: service unavailable", status=503),
     "did not answer: cannot get …: HTTP 503"),
])
def test_unknown_with_the_reason(versions, answer, words):
    view, _, got = read(versions, answer)
    assert got.items is None and words in got.problem
    assert not view.unreadable


def test_forbidden_is_recorded_as_unreadable():
    denied = errors.Forbidden("get", f"localqueues/pendingworkloads.{GROUP}", "ns", "lq", "reader")
    view, _, got = read(["v1beta2"], denied)
    assert got.items is None and "forbidden (as reader)" in got.problem
    assert view.unreadable == [denied]


def test_a_snapshot_has_no_visibility_api():
    got = pending_workloads(SnapshotView([], "x"), "ns", "lq")
    assert got.items is None and got.problem == "a snapshot has no visibility API to ask"
    json.dumps(got.__dict__)  # plain values only
