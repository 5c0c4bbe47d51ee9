"""Build and cache the Kueue controller manager the oracle tests run out of cluster.

Standard library only: ``scripts/controlplane build-kueue`` imports this module directly.

Kueue is built from its Go module with a nested wrapper module per version (a ``tool`` line and
a committed go.sum, so the build list is exactly Kueue's own go.mod and no checksum database is
consulted):

    testenv/gomod/kueue/go.mod          sigs.k8s.io/kueue v0.19.2
    testenv/gomod/kueue/v0.18/go.mod    sigs.k8s.io/kueue v0.18.6

and cached per user, beside the control plane, in::

    $KUEUE_DRA_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/kueue-dra/kueue/
        <kueue-version>-<goos>-<goarch>-<go-version>-<module-hash>/kueue  build-info.json

The binary is stamped the way Kueue's Makefile does (``pkg/version.GitVersion``, ``GitCommit``,
``BuildDate``); the commit comes from the module proxy's origin record of the tag.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from testenv.binaries import controlplane
from testenv.binaries.controlplane import BuildError, GoEnv, go_env
from testenv.binaries.publish import BUILD_INFO, published

REPO_ROOT = controlplane.REPO_ROOT
MODULE_ROOT = controlplane.GOMOD_ROOT / "kueue"
PACKAGE = "sigs.k8s.io/kueue/cmd/kueue"
VERSION_PKG = "sigs.k8s.io/kueue/pkg/version"
BINARY = "kueue"
DEFAULT_VERSION = "v0.19.2"


def module_dirs() -> dict[str, Path]:
    """{kueue version: wrapper module dir} for every committed wrapper module."""
    out = {}
    for gomod in sorted(MODULE_ROOT.glob("**/go.mod")):
        m = re.search(r"^\s*(?:require\s+)?sigs\.k8s\.io/kueue\s+(v\S+)", gomod.read_text(), re.M)
        if m:
            out[m.group(1)] = gomod.parent
    return out


def module_dir(version: str) -> Path:
    dirs = module_dirs()
    if version not in dirs:
        raise BuildError(f"no wrapper module for Kueue {version} under {MODULE_ROOT} (have: {', '.join(dirs)})")
    return dirs[version]


def module_hash(directory: Path) -> str:
    return controlplane.module_hash(directory)


def cache_root() -> Path:
    return controlplane.cache_root().parent / "kueue"


def bin_dir(version: str, env: GoEnv | None = None) -> Path:
    env = env or go_env()
    key = f"{version}-{env.goos}-{env.goarch}-{env.goversion}-{module_hash(module_dir(version))}"
    return cache_root() / key


def is_complete(directory: Path) -> bool:
    return (directory / BUILD_INFO).is_file() and os.access(directory / BINARY, os.X_OK)


def override_binary(version: str = DEFAULT_VERSION) -> Path | None:
    """KUEUE_DRA_KUEUE_BIN: a prebuilt kueue binary of the default version to use instead (no Go
    needed); other versions are always built."""
    value = os.environ.get("KUEUE_DRA_KUEUE_BIN")
    return Path(value) if value and version == DEFAULT_VERSION else None


def existing_binary(version: str = DEFAULT_VERSION) -> Path | None:
    override = override_binary(version)
    if override is not None:
        return override if os.access(override, os.X_OK) else None
    d = bin_dir(version)
    return d / BINARY if is_complete(d) else None


def _origin(env: GoEnv, version: str, cwd: Path) -> tuple[str, str]:
    """(commit, publication time) of sigs.k8s.io/kueue@version, from the module proxy."""
    out = subprocess.run([env.go, "mod", "download", "-json", f"sigs.k8s.io/kueue@{version}"],
                         capture_output=True, text=True, env=controlplane._go_environ(), cwd=cwd, timeout=600)
    try:
        info = json.loads(out.stdout)
    except json.JSONDecodeError:
        raise BuildError(f"go mod download sigs.k8s.io/kueue@{version} failed: {out.stderr.strip()}") from None
    commit = (info.get("Origin") or {}).get("Hash") or "0" * 40
    when = "1970-01-01T00:00:00Z"
    try:
        when = json.loads(Path(info["Info"]).read_text()).get("Time") or when
    except (KeyError, OSError, ValueError):
        pass
    return commit, when


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def build(version: str = DEFAULT_VERSION, force: bool = False, parallel: int | None = None,
          verbose: bool = True) -> Path:
    """Build ``kueue`` once (or reuse it) and return the path of the binary."""
    override = override_binary(version)
    if override is not None:
        if not os.access(override, os.X_OK):
            raise BuildError(f"KUEUE_DRA_KUEUE_BIN={override} is not an executable")
        return override
    env = go_env()
    return published(bin_dir(version, env), is_complete,
                     lambda tmp: _build_into(env, version, tmp, parallel, verbose), force=force) / BINARY


def _build_into(env: GoEnv, version: str, tmp: Path, parallel: int | None, verbose: bool) -> dict:
    moddir = module_dir(version)
    commit, when = _origin(env, version, moddir)
    ldflags = ["-s", "-w", f"-X {VERSION_PKG}.GitVersion={version}", f"-X {VERSION_PKG}.GitCommit={commit}",
               f"-X {VERSION_PKG}.BuildDate={when}"]
    cmd = [env.go, "build", "-trimpath", "-ldflags", " ".join(ldflags)]
    if parallel:
        cmd.append(f"-p={parallel}")
    cmd += ["-o", str(tmp / BINARY), PACKAGE]
    if verbose:
        _log(f"kueue: building {PACKAGE}@{version}")
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=moddir, env=controlplane._go_environ(), capture_output=True, text=True)
    seconds = round(time.monotonic() - start, 1)
    if proc.returncode != 0:
        raise BuildError(f"go build {PACKAGE}@{version} failed (exit {proc.returncode}):\n{proc.stderr[-6000:]}")
    if verbose:
        _log(f"kueue: built {version} in {seconds}s")
    _check_version(env, tmp / BINARY, version)
    return {"kueue": version, "gitCommit": commit, "buildDate": when, "goVersion": env.goversion,
            "goos": env.goos, "goarch": env.goarch, "moduleHash": module_hash(moddir), "buildSeconds": seconds}


def _check_version(env: GoEnv, binary: Path, version: str) -> None:
    """Kueue logs its stamped version ("Initializing", gitVersion) before it needs a cluster:
    run it with a kubeconfig that does not exist and read that line."""
    with tempfile.TemporaryDirectory(prefix="kueue-dra-version-") as tmp:
        out = subprocess.run([str(binary), f"--kubeconfig={tmp}/none"], capture_output=True, text=True,
                             timeout=60, cwd=tmp, env={"PATH": os.environ.get("PATH", ""), "HOME": tmp})
    for line in (out.stdout + out.stderr).splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == "Initializing":
            if entry.get("gitVersion") == version:
                return
            raise BuildError(f"{binary} says gitVersion {entry.get('gitVersion')!r}, want {version}")
    raise BuildError(f"{binary} printed no version:\n{(out.stdout + out.stderr)[-2000:]}")


def write_gomod(version: str) -> Path:
    """(Re)generate the wrapper module for ``version``: testenv/gomod/kueue for the newest minor,
    testenv/gomod/kueue/v0.<minor> for older ones (a nested module, outside the parent's packages)."""
    m = re.match(r"v0\.(\d+)\.\d+$", version)
    if not m:
        raise BuildError(f"not a Kueue release version: {version}")
    existing = module_dirs()
    newest = max([version, *existing], key=lambda v: tuple(int(x) for x in v[1:].split(".")))
    directory = MODULE_ROOT if version == newest else MODULE_ROOT / f"v0.{m.group(1)}"
    directory.mkdir(parents=True, exist_ok=True)
    which = "" if directory == MODULE_ROOT else f"v0.{m.group(1)} "
    (directory / "go.mod").write_text(
        f"// Builds the Kueue {which}controller manager that the oracle tests run out of cluster.\n"
        f"// Regenerate with: scripts/controlplane kueue-gomod {version}\n\n"
        f"module kueue-dra/testenv/gomod/kueue{'' if directory == MODULE_ROOT else '/v0.' + m.group(1)}\n\n"
        f"go 1.26.0\n\nrequire sigs.k8s.io/kueue {version}\n\ntool {PACKAGE}\n")
    (directory / "go.sum").unlink(missing_ok=True)
    env = dict(controlplane._go_environ(), GOFLAGS="-mod=mod")
    proc = subprocess.run([go_env().go, "mod", "tidy"], cwd=directory, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"go mod tidy in {directory} failed:\n{proc.stderr[-3000:]}")
    return directory
