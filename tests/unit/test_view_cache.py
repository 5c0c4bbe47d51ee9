"""LiveView asks the server for each object at most once per run."""

import io
import json
from collections import Counter

from kubectl_kueue_dra.environment import SYSTEM_CLOCK
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.live import LiveView

CLASSES = [{"metadata": {"name": n}} for n in ("a", "b")]
DEPLOY = {"metadata": {"name": "kueue-controller-manager", "namespace": "kueue-system"}}


class RecordingClient:
    """Answers like an API server that serves resource.k8s.io/v1 and apps/v1, and counts requests."""

    server = "https://test"
    namespace = "default"
    clock = SYSTEM_CLOCK

    def __init__(self):
        self.calls = Counter()

    def get(self, path, target, query=None):
        self.calls[path] += 1
        if path == "/apis/resource.k8s.io":
            return {"versions": [{"version": "v1"}, {"version": "v1beta2"}]}
        if path == "/apis/apps":
            return {"versions": [{"version": "v1"}]}
        if path == "/api":  # asked once, when a group is absent: is this a Kubernetes API server at all?
            return {"kind": "APIVersions", "versions": ["v1"]}
        if path.startswith("/apis/kueue.x-k8s.io"):
            raise errors.NotFound("no such group")
        if path == "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager":
            return dict(DEPLOY)
        raise AssertionError(path)

    def request(self, method, path, target, *, query=None, stream=False, **_):
        """A list request (the view reads lists through ``kube/listing.py``): the whole list."""
        assert method == "GET" and stream and "limit" not in query
        self.calls[path] += 1
        if path == "/apis/resource.k8s.io/v1/deviceclasses":
            items = [dict(c) for c in CLASSES]
        elif path == "/apis/apps/v1/deployments":
            items = [dict(DEPLOY)]
        else:
            raise AssertionError(path)
        return io.BytesIO(json.dumps({"metadata": {"resourceVersion": "7"}, "items": items}).encode())


def test_each_list_and_get_once():
    client = RecordingClient()
    view = LiveView(client)
    for _ in range(3):
        assert [c["metadata"]["name"] for c in view.list("DeviceClass")] == ["a", "b"]
        assert view.get("DeviceClass", "b")["metadata"]["name"] == "b"  # answered from the list
        assert view.get("DeviceClass", "zz") is None
        assert view.list("Deployment", None, field_selector={"metadata.name": "kueue-controller-manager"})
        assert view.get("Deployment", "kueue-controller-manager", "kueue-system") is not None
    assert client.calls == Counter({"/apis/resource.k8s.io": 1, "/apis/resource.k8s.io/v1/deviceclasses": 1,
                                    "/apis/apps": 1, "/apis/apps/v1/deployments": 1})
    # objects come back in the v1 shape with their kind
    assert view.list("DeviceClass")[0]["kind"] == "DeviceClass"


def test_unserved_group_lists_nothing_and_is_not_served():
    client = RecordingClient()
    view = LiveView(client)
    assert view.serves("ClusterQueue") is False
    assert view.list("ClusterQueue") == []
    assert view.get("ClusterQueue", "x") is None
    assert client.calls["/apis/kueue.x-k8s.io"] == 1
