"""Puts the repository root on ``sys.path`` so that the compatibility modules beside this file
(``harness``, ``kueue_harness``, ``oracle``, ``oracle_scenarios``, ``controlplane``,
``kueue_build``) can import the ``testenv`` package when only tests/cluster is on ``sys.path``,
as it is for scenario sets kept outside this repository."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.append(ROOT)
