"""Fixtures that run the tests against a real kube-apiserver + etcd.

Fixtures (all session scoped):
  controlplane_bin   Path of the directory with kube-apiserver, kubectl, etcd
                     (built once and cached, see scripts/controlplane).
  cluster_gates_on   Cluster with DRAExtendedResource=true,DRAPartitionableDevices=true
  cluster_gates_off  Cluster with both gates false (started only when requested)
  cluster            alias of cluster_gates_on
  kwok_bin           Path of the KWOK binary (built once and cached)
  lifecycle          a Lifecycle: an API server with kube-controller-manager, kube-scheduler and
                     KWOK (started only by the tests that ask for it)
  lifecycle_kueue    the real Kueue (v0.19.2) running against the lifecycle cluster
  start_visible_kueue  a function (request, bin_dir, name) that starts an API server of the
                     module's own with the default Kueue and its visibility API

Outside CI (CI unset or not "true") the tests are skipped when there is no
`go` command; on CI a missing toolchain, a failed build or a failed start is
a test failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testenv.binaries import controlplane
from testenv.harness import GATES_OFF, GATES_ON, Cluster, run_plugin  # noqa: F401


def _on_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def _fail_or_skip(reason: str, missing_tool: bool) -> None:
    if missing_tool and not _on_ci():
        pytest.skip(reason)
    pytest.fail(reason, pytrace=False)


@pytest.fixture(scope="session")
def controlplane_bin() -> Path:
    try:
        return controlplane.build()
    except controlplane.GoNotFound as e:
        problem, missing = f"test control plane unavailable: {e}", True
    except Exception as e:  # noqa: BLE001 - any build problem is a failure
        problem, missing = f"building the test control plane failed: {e}", False
    _fail_or_skip(problem, missing_tool=missing)


def _start(request, name: str, bin_dir: Path, gates: dict) -> Cluster:
    try:
        c = Cluster.start(name, bin_dir, gates, keep_dir=bool(os.environ.get("KUEUE_DRA_KEEP_CLUSTER_DIR")))
    except Exception as e:  # noqa: BLE001
        problem = f"starting the {name} test cluster failed: {type(e).__name__}: {e}"
    else:
        request.addfinalizer(c.stop)
        return c
    _fail_or_skip(problem, missing_tool=False)


@pytest.fixture(scope="session")
def cluster_gates_on(request, controlplane_bin) -> Cluster:
    return _start(request, "gates-on", controlplane_bin, GATES_ON)


@pytest.fixture(scope="session")
def cluster_gates_off(request, controlplane_bin) -> Cluster:
    return _start(request, "gates-off", controlplane_bin, GATES_OFF)


@pytest.fixture(scope="session")
def cluster(cluster_gates_on) -> Cluster:
    return cluster_gates_on


def _built(what: str, build):
    try:
        return build()
    except controlplane.GoNotFound as e:
        problem, missing = f"{what} unavailable: {e}", True
    except Exception as e:  # noqa: BLE001 - any build problem is a failure
        problem, missing = f"building {what} failed: {e}", False
    _fail_or_skip(problem, missing_tool=missing)


@pytest.fixture(scope="session")
def kwok_bin() -> Path:
    from testenv.binaries import kwok_build

    return _built("KWOK", kwok_build.build)


@pytest.fixture(scope="session")
def lifecycle(request, controlplane_bin, kwok_bin):
    from testenv.lifecycle import Lifecycle

    try:
        life = Lifecycle.start(controlplane_bin, kwok_bin, keep_dir=bool(os.environ.get("KUEUE_DRA_KEEP_CLUSTER_DIR")))
    except Exception as e:  # noqa: BLE001
        problem = f"starting the lifecycle test cluster failed: {type(e).__name__}: {e}"
    else:
        request.addfinalizer(life.stop)
        return life
    _fail_or_skip(problem, missing_tool=False)


@pytest.fixture(scope="session")
def lifecycle_kueue(request, lifecycle):
    from testenv.binaries import kueue_build
    from testenv.kueue_harness import KueueRunner

    binary = _built("Kueue", kueue_build.build)
    runner = KueueRunner(lifecycle.cluster, binary, kueue_build.DEFAULT_VERSION)
    request.addfinalizer(runner.close)
    return runner


def visible_kueue(request, bin_dir: Path, name: str):
    """The default Kueue version with its visibility API served through the aggregation layer, on an API
    server of its own (Kueue reconciles every queued Job it sees); the caller picks its setup."""
    from testenv.binaries import kueue_build
    from testenv.kueue_harness import KueueRunner

    binary = _built("Kueue", kueue_build.build)
    cluster = _start(request, name, bin_dir, GATES_ON)
    runner = KueueRunner(cluster, binary, kueue_build.DEFAULT_VERSION, visibility=True)
    request.addfinalizer(runner.close)
    return runner


@pytest.fixture(scope="session")
def start_visible_kueue():
    """``visible_kueue`` for module fixtures (they pass their own ``request``)."""
    return visible_kueue
