"""Compatibility for scenario sets kept outside this repository, which import ``kueue_harness`` with
tests/cluster on ``sys.path``: the code is ``testenv.kueue_harness`` (docs/testing.md, "The harness API for
scenario sets"). Everything public is re-exported; the names below are the stable contract."""

import _repo_root  # noqa: F401  (the repository root on sys.path)
from testenv.kueue_harness import *  # noqa: F403
from testenv.kueue_harness import (  # noqa: F401
    KueueRunner, KueueSetup,
)
