"""Build and cache the Red Hat build of Kueue operator that the operator tests run out of cluster.

Standard library only: ``scripts/controlplane build-operator`` imports this module directly.

The operator's module (and several of its dependencies) is not served by the Go module proxy, so
it is built with ``-mod=vendor`` from the shared source archive next to the repository::

    ../shared/third_party/openshift-kueue-operator-<commit>.tar.xz

unpacked into a temporary directory, and cached per user, beside the control plane, in::

    $KUEUE_DRA_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/kueue-dra/operator/
        <archive-sha256[:16]>-<goos>-<goarch>-<go-version>/
            kueue-operator  manifests/<the archive's bundle/manifests/*>  build-info.json

The published CRD and ClusterServiceVersion are kept with the binary (the tests install them);
nothing from the archive is copied into the repository.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from testenv.binaries import controlplane
from testenv.binaries.controlplane import BuildError, GoEnv, go_env
from testenv.binaries.publish import BUILD_INFO, published

REPO_ROOT = controlplane.REPO_ROOT
ARCHIVE_GLOB = "openshift-kueue-operator-*.tar.xz"
PACKAGE = "./cmd/kueue-operator"
VERSION_PKG = "github.com/openshift/kueue-operator/pkg/version"
BINARY = "kueue-operator"
MANIFESTS = "manifests"
CRD_FILE = "kueue.openshift.io_kueues.yaml"
CSV_FILE = "kueue-operator.clusterserviceversion.yaml"


def third_party_dir() -> Path:
    """The shared third_party directory: ``../shared/third_party`` relative to the repository root
    (for a git worktree, relative to its main checkout too); KUEUE_DRA_THIRD_PARTY overrides it."""
    value = os.environ.get("KUEUE_DRA_THIRD_PARTY")
    if value:
        return Path(value)
    roots = [REPO_ROOT]
    common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                            cwd=REPO_ROOT, capture_output=True, text=True)
    if common.returncode == 0 and common.stdout.strip():
        roots.append(Path(common.stdout.strip()).parent)
    for root in roots:
        candidate = root.parent / "shared" / "third_party"
        if candidate.is_dir():
            return candidate
    return REPO_ROOT.parent / "shared" / "third_party"


def archive_path() -> Path:
    found = sorted(third_party_dir().glob(ARCHIVE_GLOB))
    if not found:
        raise BuildError(f"no {ARCHIVE_GLOB} in {third_party_dir()} (the operator's source archive)")
    return found[-1]


def archive_commit(archive: Path) -> str:
    m = re.match(r"openshift-kueue-operator-([0-9a-f]+)\.tar\.xz$", archive.name)
    return m.group(1) if m else "unknown"


def archive_sha256(archive: Path) -> str:
    h = hashlib.sha256()
    with open(archive, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_root() -> Path:
    return controlplane.cache_root().parent / "operator"


def bin_dir(env: GoEnv | None = None, archive: Path | None = None) -> Path:
    env = env or go_env()
    digest = archive_sha256(archive or archive_path())[:16]
    return cache_root() / f"{digest}-{env.goos}-{env.goarch}-{env.goversion}"


def is_complete(directory: Path) -> bool:
    return (directory / BUILD_INFO).is_file() and os.access(directory / BINARY, os.X_OK) \
        and (directory / MANIFESTS / CRD_FILE).is_file()


def existing_dir() -> Path | None:
    """The cache directory of a complete build for the current archive and Go, or None."""
    try:
        d = bin_dir()
    except (BuildError, OSError):
        return None
    return d if is_complete(d) else None


def manifests_dir() -> Path:
    """The archive's ``bundle/manifests/`` (published CRD and ClusterServiceVersion), unpacked once
    into the cache (keyed by the archive's sha256); no Go and no operator build needed."""
    archive = archive_path()
    target = cache_root() / f"manifests-{archive_sha256(archive)[:16]}"
    return published(target, _has_manifests, lambda tmp: _unpack_manifests(archive, tmp))


def _has_manifests(directory: Path) -> bool:
    return (directory / CRD_FILE).is_file() and (directory / CSV_FILE).is_file()


def _unpack_manifests(archive: Path, tmp: Path) -> None:
    with tarfile.open(archive, "r:xz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and "/bundle/manifests/" in f"/{m.name}"]
        for m in members:
            m.name = Path(m.name).name
        tar.extractall(tmp, members=members, filter="data")
    if not (tmp / CRD_FILE).is_file():
        raise BuildError(f"{archive.name} has no bundle/manifests/{CRD_FILE}")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def build(force: bool = False, parallel: int | None = None, verbose: bool = True) -> Path:
    """Build the operator once (or reuse it); return its cache directory (binary + manifests)."""
    env = go_env()
    archive = archive_path()
    return published(bin_dir(env, archive), is_complete,
                     lambda tmp: _build_into(env, archive, tmp, parallel, verbose), force=force)


def _unpack(archive: Path, into: Path) -> Path:
    with tarfile.open(archive, "r:xz") as tar:
        tar.extractall(into, filter="data")
    roots = [p for p in into.iterdir() if (p / "go.mod").is_file()]
    if len(roots) != 1:
        raise BuildError(f"{archive.name}: expected one module directory, found {[p.name for p in roots]}")
    return roots[0]


def _csv_version(manifests: Path) -> str:
    m = re.search(r"^\s{2}version:\s*(\S+)", (manifests / CSV_FILE).read_text(), re.MULTILINE)
    return m.group(1) if m else "0.0.0"


def _build_into(env: GoEnv, archive: Path, tmp: Path, parallel: int | None, verbose: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="kueue-dra-operator-src-") as src_tmp:
        src = _unpack(archive, Path(src_tmp))
        shutil.copytree(src / "bundle" / "manifests", tmp / MANIFESTS)
        version = _csv_version(tmp / MANIFESTS)
        commit = archive_commit(archive)
        major, minor = (version.split(".") + ["0"])[:2]
        ldflags = ["-s", "-w", f"-X {VERSION_PKG}.versionFromGit=v{version}",
                   f"-X {VERSION_PKG}.commitFromGit={commit}", f"-X {VERSION_PKG}.majorFromGit={major}",
                   f"-X {VERSION_PKG}.minorFromGit={minor}"]
        cmd = [env.go, "build", "-mod=vendor", "-trimpath", "-ldflags", " ".join(ldflags)]
        if parallel:
            cmd.append(f"-p={parallel}")
        cmd += ["-o", str(tmp / BINARY), PACKAGE]
        if verbose:
            _log(f"operator: building {BINARY} {version} ({commit}) from {archive.name}")
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=src, env=controlplane._go_environ(), capture_output=True, text=True)
        seconds = round(time.monotonic() - start, 1)
    if proc.returncode != 0:
        raise BuildError(f"go build {PACKAGE} (operator) failed (exit {proc.returncode}):\n{proc.stderr[-6000:]}")
    if verbose:
        _log(f"operator: built in {seconds}s")
    return {"operator": version, "commit": commit, "archive": archive.name, "archiveSha256": archive_sha256(archive),
            "goVersion": env.goversion, "goos": env.goos, "goarch": env.goarch, "buildSeconds": seconds}
