"""Compatibility for scenario sets kept outside this repository, which import ``oracle_scenarios`` with
tests/cluster on ``sys.path``: the code is ``testenv.oracle_scenarios`` (docs/testing.md, "The harness API for
scenario sets"). Everything public is re-exported; the names below are the stable contract."""

import _repo_root  # noqa: F401  (the repository root on sys.path)
from testenv.oracle_scenarios import *  # noqa: F403
from testenv.oracle_scenarios import (  # noqa: F401
    FLAVOR, QUEUE_LABEL, V19, Scenario, World, cluster_queue, container, device, device_class, job,
    limit_range, partial_job, pod_spec, queued, request, resource_slice, runtime_class, scenarios, template, workload,
)
