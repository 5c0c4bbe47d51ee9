"""The real executables, as a user's shell starts them: the console scripts a pip install puts on
PATH and ``python -m``. (Everything else runs in process; the frozen binary and kubectl's plugin
discovery are tested by tests/cluster/test_krew.py.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_kueue_dra import __version__

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MIG = str(ROOT / "examples" / "mig-partitionable")


def real(*command, env=None):
    full_env = dict(os.environ, NO_COLOR="1")
    full_env.pop("KUBECONFIG", None)
    full_env.update(env or {})
    return subprocess.run(list(command), capture_output=True, text=True, env=full_env, cwd=ROOT, timeout=60,
                          check=False)


def script(name):
    path = BIN / name
    if not path.exists():
        pytest.skip(f"the {name} console script is not installed beside this Python")
    return str(path)


def test_python_dash_m():
    proc = real(sys.executable, "-m", "kubectl_kueue_dra", "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"kueue-dra {__version__}"


def test_console_script_reads_a_snapshot_and_exits_with_the_code():
    proc = real(script("kubectl-kueue_dra"), "classes", "--from", MIG, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert {c["name"] for c in json.loads(proc.stdout)["deviceClasses"]} >= {"mig.nvidia.com"}
    proc = real(script("kubectl-kueue_dra"), "clases")
    assert proc.returncode == 2 and "Did you mean 'classes'?" in proc.stderr


def test_console_script_error_is_one_line_and_stats_are_written(tmp_path):
    stats = tmp_path / "stats.json"
    proc = real(script("kubectl-kueue_dra"), "classes", env={"KUBECONFIG": "/nonexistent",
                                                              "KUEUE_DRA_STATS": str(stats)})
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert json.loads(stats.read_text())["exitCode"] == 1


def test_kubectl_complete_console_script():
    proc = real(script("kubectl_complete-kueue_dra"), "")
    assert proc.returncode == 0 and "classes\t" in proc.stdout and proc.stdout.rstrip().endswith(":4")
