"""What a fix proposes from the objects read: a real name when the cluster decides it, a choice said
as one when it does not (kueue/queues/proposals)."""

import json
import shlex

from kubectl_kueue_dra.kueue.queues.proposals import (
    cluster_queue_for,
    cover_command,
    cover_ops,
    local_queue_for,
    map_command,
    quota_resource_for,
    selecting_labels,
)


def cq(name, covered=(), flavors=("default-flavor",), selector=None):
    spec = {"resourceGroups": [{"coveredResources": list(covered),
                                "flavors": [{"name": f, "resources": [{"name": r, "nominalQuota": "1"} for r in covered]}
                                            for f in flavors]}] if covered else []}
    if selector is not None:
        spec["namespaceSelector"] = selector
    return {"metadata": {"name": name}, "spec": spec}


def test_the_quota_resource_is_the_one_a_queue_covers_and_nothing_charges():
    queues = [cq("gpu-cq", ["cpu", "memory", "nvidia.com/gpu", "whole-gpus", "hugepages-2Mi"])]
    choice = quota_resource_for("gpu.nvidia.com", cluster_queues=queues, charged={"gpu.memory"})
    assert (choice.value, choice.why) == ("whole-gpus", "ClusterQueue gpu-cq covers whole-gpus, which no mapping or "
                                                        "DeviceClass charges yet")
    # charged already, or what is charged unknown: no covered resource is taken; the class's name, as a choice
    for charged in ({"whole-gpus"}, None):
        choice = quota_resource_for("gpu.nvidia.com", cluster_queues=queues, charged=charged)
        assert choice.value == "gpu.nvidia.com" and "yours to choose" in choice.why
    # two free resources: which one is the user's to say
    two = [cq("a", ["x-gpus"]), cq("b", ["y-gpus"])]
    assert quota_resource_for("gpu.nvidia.com", cluster_queues=two, charged=set()).value == "gpu.nvidia.com"


def test_a_class_name_too_long_for_a_resource_name_gives_its_first_label():
    name = "gpu." + "a" * 60 + ".example.com"
    assert quota_resource_for(name, cluster_queues=None, charged=None).value == "gpu"


def test_covering_a_resource_adds_it_to_every_flavor_of_the_first_group_and_pastes_as_one_command():
    queue = cq("gpu-cq", ["cpu"], flavors=("on-demand", "spot"))
    assert cover_ops(queue, "whole-gpus", "8") == [
        {"op": "add", "path": "/spec/resourceGroups/0/coveredResources/-", "value": "whole-gpus"},
        {"op": "add", "path": "/spec/resourceGroups/0/flavors/0/resources/-",
         "value": {"name": "whole-gpus", "nominalQuota": "8"}},
        {"op": "add", "path": "/spec/resourceGroups/0/flavors/1/resources/-",
         "value": {"name": "whole-gpus", "nominalQuota": "0"}}]
    command = cover_command(queue, "whole-gpus", "8", what="devices matching gpu.nvidia.com")
    words = shlex.split(command, comments=True)
    assert words[:5] == ["kubectl", "patch", "clusterqueue", "gpu-cq", "--type=json"]
    assert json.loads(words[-1]) == cover_ops(queue, "whole-gpus", "8")
    assert command.endswith("# 8 is devices matching gpu.nvidia.com; split it over flavors on-demand, spot as their "
                            "nodes hold the devices")
    unknown = cover_command(cq("empty"), "whole-gpus", None, what="the ResourceSlices could not be read")
    assert unknown.endswith("# <nominal-quota>: what the cluster has is unknown (the ResourceSlices could not be "
                            "read); <flavor>: the ResourceFlavor its nodes are in")


def test_the_queue_to_point_at_selects_the_namespace_and_covers_the_workload():
    team_a = {"metadata": {"name": "team-a", "labels": {"team": "a"}}}
    queues = [cq("a-cq", ["cpu", "whole-gpus"], selector={"matchLabels": {"team": "a"}}),
              cq("b-cq", ["cpu", "whole-gpus"], selector={"matchLabels": {"team": "b"}}),
              cq("cpu-cq", ["cpu"], selector={})]
    assert cluster_queue_for(queues, namespace=team_a, resources=["cpu", "whole-gpus"]).value == "a-cq"
    assert cluster_queue_for(queues, namespace=team_a, resources=["cpu"]) is None  # a-cq and cpu-cq: a choice
    local = [{"metadata": {"name": "gpu", "namespace": "team-a"}, "spec": {"clusterQueue": "a-cq"}},
             {"metadata": {"name": "cpu", "namespace": "team-a"}, "spec": {"clusterQueue": "cpu-cq"}},
             {"metadata": {"name": "other", "namespace": "team-b"}, "spec": {"clusterQueue": "b-cq"}}]
    assert local_queue_for(local, "team-b").value == "other"
    assert local_queue_for(local, "team-a", cluster_queues=queues, resources=["whole-gpus"]).value == "gpu"
    assert local_queue_for(local, "team-a", cluster_queues=queues, resources=["cpu"]) is None
    assert local_queue_for(local, "team-c") is None


def test_a_selector_of_labels_only_is_met_by_labelling():
    assert selecting_labels({"matchLabels": {"a": "1", "b": "2"}}) == "a=1 b=2"
    assert selecting_labels({"matchExpressions": [{"key": "a", "operator": "Exists"}]}) is None
    assert selecting_labels({}) is None and selecting_labels(None) is None


def test_a_map_command_names_the_other_unmapped_classes():
    command = map_command(["fpga.example.com", "npu.example.com"], cluster_queues=[], charged=set(),
                          restart=" --restart")
    assert command == ("kubectl kueue-dra map set fpga.example.com --device-class fpga.example.com --restart  # the "
                       "quota resource's name is yours to choose; a ClusterQueue must then cover it with a "
                       "nominalQuota; then the same for npu.example.com")
