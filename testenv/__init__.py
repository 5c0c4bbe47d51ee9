"""The test tooling of kubectl-kueue-dra: a real control plane for tests, as controller-runtime's
envtest is for Go (not shipped in the wheel).

- ``testenv.binaries``: builds and caches the Go binaries (control plane, Kueue, KWOK, the Kueue
  operator, krew) from the nested Go modules under ``testenv/gomod``, and reads CRDs from the Go
  module cache;
- ``testenv.harness``: ``Cluster`` (etcd + kube-apiserver in a temp dir) and ``run_plugin``
  (``leftovers``: the clean-up when a test process does not end normally);
- ``testenv.kueue_harness``: the real Kueue controller manager out of cluster;
- ``testenv.builders``: the Kubernetes and Kueue objects the tests create;
- ``testenv.oracle`` and ``testenv.oracle_scenarios``: explain checked against the real Kueue;
- the lifecycle cluster (``lifecycle/``: ``cluster``, ``run``, ``scenarios``), the operator
  (``operator_platform``, ``operator_harness``, ``operator_chain``), scale and performance
  (``scale/``, ``perf``, ``rawget``), the installations of the live tests (``setups``), the
  in-process CLI (``clirun``).

docs/testing.md describes it; "The harness API for scenario sets" lists the names kept stable for
scenario sets outside this repository.
"""
