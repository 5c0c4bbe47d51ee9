"""Compatibility for scenario sets kept outside this repository, which import ``oracle`` with
tests/cluster on ``sys.path``: the code is ``testenv.oracle`` (docs/testing.md, "The harness API for
scenario sets"). Everything public is re-exported; the names below are the stable contract."""

import _repo_root  # noqa: F401  (the repository root on sys.path)
from testenv.oracle import *  # noqa: F403
from testenv.oracle import (  # noqa: F401
    Report, Row, explain_json, judge, load_world, run_matrix, settle, setup_of, table,
)
