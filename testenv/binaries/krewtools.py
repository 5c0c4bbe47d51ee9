"""Build and cache krew's own tools: ``krew`` (run as ``kubectl krew``) and ``validate-krew-manifest``
(the check krew-index CI runs on every plugin manifest).

They come from the nested Go module ``testenv/gomod/krew`` (``go.mod`` lists them as tools) and are
cached per user, like the control plane, in::

    $KUEUE_DRA_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/kueue-dra/krew/
        <krew-version>-<goos>-<goarch>-<go-version>-<module-hash>/
            kubectl-krew  validate-krew-manifest  build-info.json

Standard library only (plus controlplane.py beside this file for the Go environment).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from testenv.binaries import controlplane
from testenv.binaries.controlplane import BuildError, GoNotFound  # noqa: F401  (re-exported for the tests)
from testenv.binaries.publish import BUILD_INFO, published

REPO_ROOT = controlplane.REPO_ROOT
MODULE_DIR = controlplane.GOMOD_ROOT / "krew"
# binary name in the cache -> package. kubectl finds krew as the plugin `kubectl-krew`.
TOOLS = {
    "kubectl-krew": "sigs.k8s.io/krew/cmd/krew",
    "validate-krew-manifest": "sigs.k8s.io/krew/cmd/validate-krew-manifest",
}


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
    return published(cache_dir(env), is_complete, lambda tmp: _build_into(env, tmp))


def _build_into(env: controlplane.GoEnv, tmp: Path) -> dict:
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
    return {"krew": krew_version(), "goVersion": env.goversion, "goos": env.goos, "goarch": env.goarch,
            "moduleHash": module_hash(), "buildSeconds": round(time.monotonic() - started, 1)}
