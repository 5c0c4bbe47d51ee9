"""Compatibility for scenario sets kept outside this repository, which import ``harness`` with
tests/cluster on ``sys.path``: the code is ``testenv.harness`` (docs/testing.md, "The harness API for
scenario sets"). Everything public is re-exported; the names below are the stable contract."""

import _repo_root  # noqa: F401  (the repository root on sys.path)
from testenv.harness import *  # noqa: F403
from testenv.harness import (  # noqa: F401
    GATES_OFF, GATES_ON, REPO_ROOT, Cluster, ClusterError, KubectlError, free_port, run_plugin,
)
