"""The kube-apiserver versions of the test control plane (docs/testing.md, "Kubernetes
versions"): which modules exist, where their binaries are cached, which DRA gates each gets.
No build and no cluster: the cluster suite runs against each version with KUEUE_DRA_KUBE_VERSION."""

import copy
import re

import pytest

from testenv.binaries import controlplane
from testenv.binaries.controlplane import BuildError, GoEnv
from testenv import kube_versions as kv
from testenv.builders import device, device_class, resource_slice
from testenv.harness import DRA_GATES, ClusterError, dra_gate_stage, dra_gates

ENV = GoEnv(go="go", goos="linux", goarch="amd64", goversion="go1.26.8")
DEFAULT = "v1.36.3"


def test_the_default_and_the_two_extra_versions_have_modules():
    modules = controlplane.apiserver_modules()
    assert controlplane.k8s_version() == DEFAULT
    assert set(modules) == {"v1.34.4", "v1.35.4", DEFAULT}
    assert modules[DEFAULT] == controlplane.MODULE_DIR
    for version in ("v1.34.4", "v1.35.4"):
        gomod = (modules[version] / "go.mod").read_text()
        assert modules[version] == controlplane.MODULE_DIR / version.rsplit(".", 1)[0]
        # an extra version builds kube-apiserver alone, with the staging modules of its own release
        assert re.findall(r"^tool (\S+)$", gomod, re.M) == ["k8s.io/kubernetes/cmd/kube-apiserver"]
        staging = re.findall(r"^\t(k8s\.io/\S+) => k8s\.io/\S+ (v\S+)$", gomod, re.M)
        assert staging and {v for _, v in staging} == {"v0." + version[len("v1."):]}
        assert (modules[version] / "go.sum").stat().st_size > 10_000  # complete: no checksum database


def test_the_version_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(controlplane.VERSION_ENV, raising=False)
    assert controlplane.kube_version() == DEFAULT
    monkeypatch.setenv(controlplane.VERSION_ENV, "v1.34.4")
    assert controlplane.kube_version() == "v1.34.4"


def test_an_extra_version_is_cached_beside_the_default_binaries_it_links_to(monkeypatch, tmp_path):
    monkeypatch.setenv("KUEUE_DRA_CACHE_DIR", str(tmp_path))
    default = controlplane.bin_dir(ENV, DEFAULT)
    extra = controlplane.bin_dir(ENV, "v1.34.4")
    assert default.parent == extra.parent == tmp_path / "controlplane"
    assert default.name == f"{DEFAULT}-linux-amd64-go1.26.8-{controlplane.module_hash()}"
    # both module hashes: a regenerated default module links the extra kube-apiserver anew
    hash34 = controlplane.module_hash(controlplane.apiserver_module("v1.34.4"))
    assert extra.name == f"v1.34.4-apiserver-{hash34}-with-{default.name}"


def test_a_version_without_a_module_is_refused_with_the_command_that_makes_one():
    with pytest.raises(BuildError, match=r"no module for kube-apiserver v1\.33\.0 .*gen-controlplane-gomod v1\.33\.0"):
        controlplane.apiserver_module("v1.33.0")


def test_the_dra_gates_exist_on_every_version_and_nothing_older_is_guessed():
    assert [dra_gate_stage(v) for v in ("v1.34.4", "v1.35.4", DEFAULT)] == ["ALPHA", "ALPHA", "BETA"]
    for version in ("v1.34.4", "v1.35.4", DEFAULT):
        assert dra_gates(version, True) == dict.fromkeys(DRA_GATES, True)
        assert dra_gates(version, False) == dict.fromkeys(DRA_GATES, False)
    with pytest.raises(ClusterError, match=r"no DRA gates known for kube-apiserver v1\.33\.5"):
        dra_gates("v1.33.5", True)


def test_prebuilt_binaries_of_another_version_are_an_error(monkeypatch, tmp_path):
    (tmp_path / "kube-apiserver").write_text("#!/bin/sh\necho 'Kubernetes v1.36.3'\n")
    (tmp_path / "kube-apiserver").chmod(0o755)
    monkeypatch.delenv(controlplane.VERSION_ENV, raising=False)
    assert controlplane.apiserver_binary(tmp_path) == tmp_path / "kube-apiserver"
    assert controlplane.apiserver_binary(tmp_path, DEFAULT) == tmp_path / "kube-apiserver"
    monkeypatch.setenv(controlplane.VERSION_ENV, "v1.34.4")
    with pytest.raises(BuildError, match=r"is v1\.36\.3, but KUEUE_DRA_KUBE_VERSION asks for v1\.34\.4"):
        controlplane.apiserver_binary(tmp_path)


# ---- what differs between the versions (testenv/kube_versions.py) --------------------------------
def test_the_path_gates_per_version_and_the_alpha_ones_a_test_turns_on():
    assert kv.alpha_gates("v1.34.4") == kv.alpha_gates("v1.35.4") == kv.PATH_GATES
    assert kv.alpha_gates(DEFAULT) == ()
    assert [kv.default_on(v, kv.DRA_EXTENDED) for v in ("v1.34.4", "v1.35.4", DEFAULT)] == [False, False, True]
    with pytest.raises(kv.UnknownVersion, match=r"no DRA gates known for kube-apiserver v1\.37\.0"):
        kv.defaults("v1.37.0")


def test_the_extra_versions_newest_first_unless_the_environment_names_them(monkeypatch):
    monkeypatch.delenv(kv.EXTRA_VERSIONS_ENV, raising=False)
    assert kv.extra_versions(DEFAULT, ["v1.34.4", DEFAULT, "v1.35.4"]) == ["v1.35.4", "v1.34.4"]
    monkeypatch.setenv(kv.EXTRA_VERSIONS_ENV, "v1.34.4")
    assert kv.extra_versions(DEFAULT, ["v1.34.4", DEFAULT, "v1.35.4"]) == ["v1.34.4"]
    monkeypatch.setenv(kv.EXTRA_VERSIONS_ENV, "")
    assert kv.extra_versions(DEFAULT, ["v1.34.4", DEFAULT]) == []


def _pool():
    counters = resource_slice("n-counters", "d", "n", slice_count=3, counter_sets={"gpu-0": {"memory": "40Gi"},
                                                                                   "gpu-1": {"memory": "40Gi"}})
    gpu0 = resource_slice("n-gpu-0", "d", "n", slice_count=3, devices=[
        device("gpu-0-a", [("gpu-0", {"memory": "10Gi"})]), device("ghost", [("no-such-set", {"memory": "1Gi"})]),
        device("extra", [("gpu-0", {"memory": "1Gi", "bogus": "1"})])])
    gpu1 = resource_slice("n-gpu-1", "d", "n", slice_count=3, devices=[device("gpu-1-a", [("gpu-1", {"memory": "5Gi"})])])
    other = resource_slice("m-plain", "d", "m", devices=[device("x")])
    return [device_class("c", "true", er="example.com/c"), counters, gpu0, gpu1, other]


def test_slices_keep_the_separate_counter_slices_from_1_35_on():
    objs = _pool()
    assert kv.slices_for(objs, "v1.35.4") is objs and kv.slices_for(objs, DEFAULT) is objs


def test_slices_for_1_34_carry_the_counter_sets_their_devices_consume():
    objs = _pool()
    before = copy.deepcopy(objs)
    out = kv.slices_for(objs, "v1.34.4")
    assert objs == before  # the scenario's objects are not changed
    by_name = {o["metadata"]["name"]: o for o in out}
    assert list(by_name) == ["c", "n-gpu-0", "n-gpu-1", "m-plain"]  # the counters-only slice went
    gpu0, gpu1 = by_name["n-gpu-0"]["spec"], by_name["n-gpu-1"]["spec"]
    assert [cs["name"] for cs in gpu0["sharedCounters"]] == ["gpu-0"]
    assert [cs["name"] for cs in gpu1["sharedCounters"]] == ["gpu-1"]
    # a device naming a set no slice of its pool defines, or a counter its set lacks, cannot be written on 1.34
    assert [d["name"] for d in gpu0["devices"]] == ["gpu-0-a"]
    assert gpu0["pool"]["resourceSliceCount"] == gpu1["pool"]["resourceSliceCount"] == 2
    assert by_name["m-plain"] == before[4] and by_name["c"] == before[0]


def test_the_gated_fields_objects_use():
    objs = _pool()
    assert kv.gates_used(objs) == {kv.DRA_EXTENDED, kv.DRA_PARTITIONABLE}
    assert kv.gates_used([objs[4]]) == set()
    consumable = resource_slice("k", "d", "k", devices=[{"name": "k0", "allowMultipleAllocations": True}])
    assert kv.gates_used([consumable]) == {kv.DRA_CONSUMABLE}
