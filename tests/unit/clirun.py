"""Run the command line for a test: (exit code, stdout, stderr)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    full_env = dict(os.environ, NO_COLOR="1")
    full_env.pop("KUBECONFIG", None)
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "kubectl_kueue_dra", *args], check=False, capture_output=True,
                          text=True, env=full_env, cwd=ROOT, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr
