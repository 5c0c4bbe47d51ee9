"""The harness API for scenario sets kept outside this repository (docs/testing.md, "The harness
API for scenario sets"): they put only tests/cluster on ``sys.path`` and import these modules and
names. A fresh interpreter (``-I``: no PYTHONPATH, no current directory on the path) imports each
of them that way, so moving or renaming one fails here, not in somebody else's checkout."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONTRACT = {
    "harness": ["Cluster", "GATES_ON", "GATES_OFF", "run_plugin"],
    "kueue_harness": ["KueueRunner", "KueueSetup"],
    "oracle_scenarios": ["World", "Scenario", "device_class", "device", "resource_slice", "request", "template",
                         "container", "pod_spec", "job", "workload", "cluster_queue", "local_queue",
                         "resource_flavor", "queued", "limit_range", "runtime_class", "partial_job", "FLAVOR",
                         "QUEUE_LABEL"],
    "oracle": ["load_world", "settle", "explain_json", "judge", "Row", "Report", "table"],
    "controlplane": ["build"],
    "kueue_build": ["build", "DEFAULT_VERSION"],
}

PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
contract = json.loads(sys.argv[2])
found = {}
for module, names in contract.items():
    m = __import__(module)
    found[module] = {"file": m.__file__, "missing": [n for n in names if not hasattr(m, n)]}
    exec(f"from {module} import {', '.join(names)}")  # the way a scenario set writes it
import testenv
found["testenv"] = testenv.__file__
print(json.dumps(found))
"""


def test_outside_scenario_sets_import_every_name_with_only_tests_cluster_on_the_path(tmp_path):
    proc = subprocess.run([sys.executable, "-I", "-c", PROBE, str(ROOT / "tests" / "cluster"), json.dumps(CONTRACT)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    for module in CONTRACT:
        assert found[module]["missing"] == [], module
        assert Path(found[module]["file"]) == ROOT / "tests" / "cluster" / f"{module}.py"
    assert Path(found["testenv"]) == ROOT / "testenv" / "__init__.py"


def test_the_compatibility_modules_are_the_testenv_objects():
    """Re-exports, not copies: a scenario set and the repository's own tests share one Cluster
    class (and its clean-up registry) and one set of builders."""
    sys.path.insert(0, str(ROOT / "tests" / "cluster"))
    try:
        import harness
        import oracle_scenarios

        from testenv import builders
        from testenv import harness as th
    finally:
        sys.path.remove(str(ROOT / "tests" / "cluster"))
    assert harness.Cluster is th.Cluster and harness.run_plugin is th.run_plugin
    assert oracle_scenarios.job is builders.job and oracle_scenarios.device_class is builders.device_class
