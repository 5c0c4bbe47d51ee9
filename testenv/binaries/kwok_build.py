"""Build and cache KWOK, the fake nodes of the lifecycle test cluster.

Standard library only: ``scripts/controlplane build-kwok`` imports this module directly.

KWOK (``sigs.k8s.io/kwok``, ``cmd/kwok``) is built from its Go module through the nested wrapper
module ``testenv/gomod/kwok`` (a ``tool`` line and a committed go.sum pin the version and the build list)
with one ``go build`` invocation, and cached per user beside the control plane in::

    $KUEUE_DRA_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/kueue-dra/kwok/
        <kwok-version>-<goos>-<goarch>-<go-version>-<module-hash>/kwok  build-info.json

KWOK carries its version in its source (``pkg/consts.Version``), so nothing is stamped. Its stage
manifests (what a fake node and a fake pod go through) are read at run time from the same module
in the Go module cache (``stage_files``), never copied into the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from testenv.binaries import controlplane
from testenv.binaries.controlplane import BuildError, GoEnv, go_env
from testenv.binaries.publish import BUILD_INFO, published

MODULE_DIR = controlplane.GOMOD_ROOT / "kwok"
MODULE = "sigs.k8s.io/kwok"
PACKAGE = "sigs.k8s.io/kwok/cmd/kwok"
BINARY = "kwok"
#: The stages the lifecycle cluster runs, as KWOK's kustomize tree names them: nodes become Ready
#: at once and renew their Lease; pods go Running at once and are finalised when deleted. The
#: ``pod-complete`` stage is left out on purpose: a Job's pods keep running, so their claims stay
#: allocated while the tests compare them with ``explain``.
STAGES = (
    "kustomize/stage/node/fast/node-initialize.yaml",
    "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "kustomize/stage/pod/fast/pod-ready.yaml",
    "kustomize/stage/pod/fast/pod-delete.yaml",
)


def version() -> str:
    """The sigs.k8s.io/kwok version testenv/gomod/kwok/go.mod requires (e.g. v0.8.0)."""
    text = (MODULE_DIR / "go.mod").read_text()
    m = re.search(r"^\s*(?:require\s+)?sigs\.k8s\.io/kwok\s+(v\S+)", text, re.M)
    if not m:
        raise BuildError(f"sigs.k8s.io/kwok is not required in {MODULE_DIR / 'go.mod'}")
    return m.group(1)


def cache_root() -> Path:
    return controlplane.cache_root().parent / "kwok"


def bin_dir(env: GoEnv | None = None) -> Path:
    env = env or go_env()
    key = f"{version()}-{env.goos}-{env.goarch}-{env.goversion}-{controlplane.module_hash(MODULE_DIR)}"
    return cache_root() / key


def is_complete(directory: Path) -> bool:
    return (directory / BUILD_INFO).is_file() and os.access(directory / BINARY, os.X_OK)


def existing_binary() -> Path | None:
    value = os.environ.get("KUEUE_DRA_KWOK_BIN")
    if value:
        return Path(value) if os.access(value, os.X_OK) else None
    d = bin_dir()
    return d / BINARY if is_complete(d) else None


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def build(force: bool = False, parallel: int | None = None, verbose: bool = True) -> Path:
    """Build ``kwok`` once (or reuse it) and return the path of the binary.
    ``KUEUE_DRA_KWOK_BIN``: a prebuilt binary to use instead (no Go needed)."""
    value = os.environ.get("KUEUE_DRA_KWOK_BIN")
    if value:
        if not os.access(value, os.X_OK):
            raise BuildError(f"KUEUE_DRA_KWOK_BIN={value} is not an executable")
        return Path(value)
    env = go_env()
    return published(bin_dir(env), is_complete, lambda tmp: _build_into(env, tmp, parallel, verbose),
                     force=force) / BINARY


def _build_into(env: GoEnv, tmp: Path, parallel: int | None, verbose: bool) -> dict:
    want = version()
    cmd = [env.go, "build", "-trimpath", "-ldflags", "-s -w"]
    if parallel:
        cmd.append(f"-p={parallel}")
    cmd += ["-o", f"{tmp}/", PACKAGE]
    if verbose:
        _log(f"kwok: building {PACKAGE}@{want}")
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=MODULE_DIR, env=controlplane._go_environ(), capture_output=True, text=True)
    seconds = round(time.monotonic() - start, 1)
    if proc.returncode != 0:
        raise BuildError(f"go build {PACKAGE}@{want} failed (exit {proc.returncode}):\n{proc.stderr[-6000:]}")
    if verbose:
        _log(f"kwok: built {want} in {seconds}s")
    out = subprocess.run([str(tmp / BINARY), "--version"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0 or want.lstrip("v") not in out.stdout:
        raise BuildError(f"kwok --version printed {out.stdout.strip()!r} {out.stderr.strip()!r}, want {want}")
    return {"kwok": want, "goVersion": env.goversion, "goos": env.goos, "goarch": env.goarch,
            "moduleHash": controlplane.module_hash(MODULE_DIR), "buildSeconds": seconds}


def stage_files() -> list[Path]:
    """KWOK's stage manifests (``STAGES``) from the module cache, of the version go.mod pins."""
    from testenv.binaries import crds

    moddir = crds.module_dir(MODULE, version())
    paths = [moddir / s for s in STAGES]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise BuildError(f"KWOK {version()} has no stage file {', '.join(missing)}")
    return paths
