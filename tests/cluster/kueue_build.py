"""Compatibility for scenario sets kept outside this repository, which import ``kueue_build`` with
tests/cluster on ``sys.path``: the code is ``testenv.binaries.kueue_build`` (docs/testing.md, "The harness API for
scenario sets"). Everything public is re-exported; the names below are the stable contract."""

import _repo_root  # noqa: F401  (the repository root on sys.path)
from testenv.binaries.kueue_build import *  # noqa: F403
from testenv.binaries.kueue_build import (  # noqa: F401
    DEFAULT_VERSION, build, existing_binary,
)
