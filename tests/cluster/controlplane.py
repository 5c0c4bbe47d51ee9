"""Compatibility for scenario sets kept outside this repository, which import ``controlplane`` with
tests/cluster on ``sys.path``: the code is ``testenv.binaries.controlplane`` (docs/testing.md, "The harness API for
scenario sets"). Everything public is re-exported; the names below are the stable contract."""

import _repo_root  # noqa: F401  (the repository root on sys.path)
from testenv.binaries.controlplane import *  # noqa: F403
from testenv.binaries.controlplane import (  # noqa: F401
    BuildError, GoNotFound, build, existing_bin_dir, k8s_version, kube_version,
)
