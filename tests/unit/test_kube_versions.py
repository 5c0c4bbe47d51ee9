"""The kube-apiserver versions of the test control plane (docs/testing.md, "Kubernetes
versions"): which modules exist, where their binaries are cached, which DRA gates each gets.
No build and no cluster: the cluster suite runs against each version with KUEUE_DRA_KUBE_VERSION."""

import re

import pytest

from testenv.binaries import controlplane
from testenv.binaries.controlplane import BuildError, GoEnv
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
