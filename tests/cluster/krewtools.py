"""Build and cache krew's own tools: ``krew`` (run as ``kubectl krew``) and ``validate-krew-manifest``
(the check krew-index CI runs on every plugin manifest).

They come from the nested Go module ``tests/krew`` (``go.mod`` lists them as tools) and are
cached per user, like the control plane, in::

    $KUEUE_DRA_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/kueue-dra/krew/
        <krew-version>-<goos>-<goarch>-<go-version>-<module-hash>/
            kubectl-krew  validate-krew-manifest  build-info.json

Standard library only (plus controlplane.py beside this file for the Go environment).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import controlplane
from controlplane import BuildError, GoNotFound  # noqa: F401  (re-exported for the tests)

REPO_ROOT = Path(__file__).resolve().parents[2]
MODULE_DIR = REPO_ROOT / "tests" / "krew"
# binary name in the cache -> package. kubectl finds krew as the plugin `kubectl-krew`.
TOOLS = {
    "kubectl-krew": "sigs.k8s.io/krew/cmd/krew",
    "validate-krew-manifest": "sigs.k8s.io/krew/cmd/validate-krew-manifest",
}
BUILD_INFO = "build-info.json"


def krew_version() -> str:
    m = re.search(r"^\s*(?:require\s+)?sigs\.k8s\.io/krew\s+(v\S+)", (MODULE_DIR / "go.mod").read_text(), re.M)
    if not m:
        raise BuildError(f"sigs.k8s.io/krew is not required in {MODULE_DIR / 'go.mod'}")
    return m.group(1)


def module_hash() -> str:
    return controlplane.module_hash(MODULE_DIR)


def cache_dir(env: controlplane.GoEnv) -> Path:
    root = controlplane.cache_root().parent / "krew"
    return root / f"{krew_version()}-{env.goos}-{env.goarch}-{env.goversion}-{module_hash()}"


def is_complete(directory: Path) -> bool:
    return (directory / BUILD_INFO).is_file() and all(os.access(directory / t, os.X_OK) for t in TOOLS)


def build() -> Path:
    """Build both tools once (or reuse them) and return their directory."""
    env = controlplane.go_env()
    target = cache_dir(env)
    if is_complete(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_complete(target):
            return target
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
        tmp.chmod(0o755)
        try:
            started = time.monotonic()
            for name, package in TOOLS.items():
                # No version stamp on purpose: krew skips its GitHub upgrade check for an unstamped
                # (development) build, also where validate-krew-manifest runs it with a bare
                # environment that lacks KREW_NO_UPGRADE_CHECK. Nothing here may go online.
                ldflags = "-s -w"
                proc = subprocess.run(
                    [env.go, "build", "-trimpath", "-ldflags", ldflags, "-o", str(tmp / name), package],
                    cwd=MODULE_DIR, env=controlplane._go_environ(), capture_output=True, text=True)
                if proc.returncode != 0:
                    raise BuildError(f"go build {package} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
            info = {"krew": krew_version(), "goVersion": env.goversion, "goos": env.goos, "goarch": env.goarch,
                    "moduleHash": module_hash(), "buildSeconds": round(time.monotonic() - started, 1)}
            (tmp / BUILD_INFO).write_text(json.dumps(info, indent=2) + "\n")
            try:
                os.rename(tmp, target)
            except OSError:
                if not is_complete(target):
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return target
