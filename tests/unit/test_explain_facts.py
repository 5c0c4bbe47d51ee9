"""ExplainFacts: what one explanation reads, gathered once. The LocalQueue → ClusterQueue lookup
(where the Workload holds quota wins), the cohort tree's ClusterQueues and Workloads, each list read
at most once and only when asked for, and a forbidden list left None with the 403 as the reason."""

from __future__ import annotations

from kubectl_kueue_dra.commands.explain.context import Settings
from kubectl_kueue_dra.commands.explain.facts import gather
from kubectl_kueue_dra.commands.explain.subject import Subject
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kueue.workloads.podsets import podsets_from_workload


def cq(name, cohort=None):
    spec = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "4"}]}]}]}
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def lq(ns, name, cluster_queue):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": name, "namespace": ns},
            "spec": {"clusterQueue": cluster_queue}}


def wl(ns, name, queue, admitted_to=None):
    status = {"admission": {"clusterQueue": admitted_to, "podSetAssignments": []}} if admitted_to else {}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}"},
            "spec": {"queueName": queue, "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "containers": [{"name": "c", "image": "x"}]}}}]}, "status": status}


OBJECTS = [cq("a", "all"), cq("b", "all"), cq("alone"), lq("ns1", "lq-a", "a"), lq("ns2", "lq-b", "b"),
           lq("ns1", "lq-alone", "alone"), lq("ns1", "lq-moved", "b"),
           wl("ns1", "running", "lq-a", "a"), wl("ns2", "waiting", "lq-b"), wl("ns1", "elsewhere", "lq-alone", "alone"),
           # held quota in a, its LocalQueue now points at b: the admission is where the quota is
           wl("ns1", "moved", "lq-moved", "a")]


class Counting(SnapshotView):
    forbid: tuple[str, ...] = ()

    def __init__(self, objects):
        super().__init__(objects, "test")
        self.lists: list[str] = []

    def _list(self, kind, namespace, field_selector, label_selector):
        if "metadata.name" in field_selector:  # a get
            return super()._list(kind, namespace, field_selector, label_selector)
        self.lists.append(kind.kind)
        if kind.kind in self.forbid and namespace is None:
            raise errors.Forbidden("list", kind.resource, namespace, None, "someone")
        return super()._list(kind, namespace, field_selector, label_selector)


def facts_of(view, ns, name):
    w = view.get("Workload", name, ns)
    return gather(view, Subject(ns, podsets_from_workload(w), workload=w), Settings("0.19.2"))


def test_the_lookup_and_the_cohort_tree():
    view = Counting(OBJECTS)
    f = facts_of(view, "ns1", "moved")
    assert (f.local_queue_name, f.cluster_queue_name) == ("lq-moved", "a")
    assert f.tree_cluster_queues == {"a", "b"}
    assert sorted(w["metadata"]["name"] for w in f.cohort_reserving_workloads) == ["moved", "running"]
    assert sorted(w["metadata"]["name"] for w in f.cohort_workloads) == ["moved", "running", "waiting"]
    assert facts_of(view, "ns1", "elsewhere").tree_cluster_queues == {"alone"}


def test_each_list_is_read_once_and_only_when_asked():
    view = Counting(OBJECTS)
    f = facts_of(view, "ns2", "waiting")
    before = list(view.lists)
    assert "ClusterQueue" not in before and "AdmissionCheck" not in before  # the lookup gets, it does not list
    asked = [(f.queue_world, f.cohort_workloads, f.workloads, f.admission_checks, f.resource_flavors, f.events)
             for _ in range(3)]
    assert asked[0] == asked[2]
    read = view.lists[len(before):]
    assert sorted(set(read)) == sorted(read), read  # each kind once
    assert {"ClusterQueue", "Cohort", "Workload", "LocalQueue", "AdmissionCheck", "ResourceFlavor"} <= set(read)
    assert f.checks == [] and "AdmissionCheck" in read  # asked for above; a queue without checks reads none


def test_a_forbidden_list_is_none_with_the_reason():
    view = Counting(OBJECTS)
    view.forbid = ("Workload",)
    w = view.get("Workload", "waiting", "ns2")  # the get is allowed, the cluster-wide list is not
    f = gather(view, Subject("ns2", podsets_from_workload(w), workload=w), Settings("0.19.2"))
    assert f.workloads is None and f.cohort_workloads is None
    assert f.problem("Workload") == 'cannot list workloads.kueue.x-k8s.io at cluster scope: forbidden (as someone)'
