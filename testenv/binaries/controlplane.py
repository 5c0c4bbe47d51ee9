"""Build and cache the test control plane binaries (kube-apiserver, kubectl, etcd,
kube-scheduler, kube-controller-manager).

Standard library only: ``scripts/controlplane`` imports this module directly.

The binaries are built from the nested Go module ``testenv/gomod/controlplane`` (see
``scripts/gen-controlplane-gomod``) and cached per user in::

    $KUEUE_DRA_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/kueue-dra/controlplane/
        <k8s-version>-<goos>-<goarch>-<go-version>-<module-hash>/
            kube-apiserver  kubectl  etcd  kube-scheduler  kube-controller-manager
            build-info.json

The module hash (go.mod + go.sum) makes a regenerated module build into a new
directory. All five are built by one ``go build -o DIR/`` invocation (the
packages they share are compiled once) and published into the cache by
``testenv.binaries.publish`` once every binary is built and checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from testenv.binaries.publish import BUILD_INFO, published

REPO_ROOT = Path(__file__).resolve().parents[2]
#: the nested Go modules the test tooling builds its binaries from
GOMOD_ROOT = REPO_ROOT / "testenv" / "gomod"
MODULE_DIR = GOMOD_ROOT / "controlplane"

BINARIES = ("kube-apiserver", "kubectl", "etcd", "kube-scheduler", "kube-controller-manager")
PACKAGES = {
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kubectl": "k8s.io/kubernetes/cmd/kubectl",
    "etcd": "go.etcd.io/etcd/server/v3",
    "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
    "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
}
# The name ``go build -o DIR/`` gives a package's binary: the last path element that is not a
# major-version suffix (go.etcd.io/etcd/server/v3 -> server).
GO_OUTPUT_NAME = {name: next(p for p in reversed(pkg.split("/")) if not re.fullmatch(r"v\d+", p))
                  for name, pkg in PACKAGES.items()}
VERSION_PACKAGES = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")
# The module proxy does not record the commit of a tag; this placeholder makes
# /version show a well-formed but obviously synthetic gitCommit.
PLACEHOLDER_COMMIT = "0" * 40


class BuildError(RuntimeError):
    """The control plane binaries could not be built."""


class GoNotFound(BuildError):
    """No ``go`` command on PATH."""


@dataclass(frozen=True)
class GoEnv:
    go: str
    goos: str
    goarch: str
    goversion: str


def go_env() -> GoEnv:
    go = shutil.which("go")
    if go is None:
        raise GoNotFound("the 'go' command is not on PATH (Go >= 1.26 is needed to build the test control plane)")
    out = subprocess.run(
        [go, "env", "-json", "GOOS", "GOARCH", "GOVERSION"],
        check=True, capture_output=True, text=True, env=_go_environ(), cwd=MODULE_DIR,
    ).stdout
    data = json.loads(out)
    return GoEnv(go=go, goos=data["GOOS"], goarch=data["GOARCH"], goversion=data["GOVERSION"])


def _go_environ() -> dict[str, str]:
    env = dict(os.environ)
    env["GOTOOLCHAIN"] = "local"  # never download another toolchain
    env["CGO_ENABLED"] = "0"
    env["GOWORK"] = "off"
    return env


def k8s_version(directory: Path = MODULE_DIR) -> str:
    """The k8s.io/kubernetes version a module requires; by default the default version, the one
    testenv/gomod/controlplane/go.mod requires (e.g. v1.36.3)."""
    text = (directory / "go.mod").read_text()
    m = re.search(r"^\s*(?:require\s+)?k8s\.io/kubernetes\s+(v1\.\d+\.\d+\S*)", text, re.M)
    if not m:
        raise BuildError(f"k8s.io/kubernetes is not required in {directory / 'go.mod'}")
    return m.group(1)


#: selects the kube-apiserver version of the test clusters (scripts/controlplane, scripts/test,
#: the pytest cluster suite, scripts/oracle, build() and Cluster.start); unset: the default version
VERSION_ENV = "KUEUE_DRA_KUBE_VERSION"


def kube_version() -> str:
    """The kube-apiserver version the test clusters run: KUEUE_DRA_KUBE_VERSION, else the default."""
    return os.environ.get(VERSION_ENV) or k8s_version()


def apiserver_modules() -> dict[str, Path]:
    """{version: module dir} of every kube-apiserver version there is a module for: the default
    one (testenv/gomod/controlplane) and the extra ones (testenv/gomod/controlplane/v1.<minor>,
    kube-apiserver alone; scripts/gen-controlplane-gomod writes them)."""
    dirs = [MODULE_DIR, *sorted(d for d in MODULE_DIR.glob("v1.*") if (d / "go.mod").is_file())]
    return {k8s_version(d): d for d in dirs}


def apiserver_module(version: str) -> Path:
    modules = apiserver_modules()
    if version not in modules:
        raise BuildError(f"no module for kube-apiserver {version} (have: {', '.join(modules)}); "
                         f"scripts/gen-controlplane-gomod {version} writes one")
    return modules[version]


def module_hash(directory: Path = MODULE_DIR) -> str:
    """A short hash of a Go module's go.mod and go.sum: part of every build cache key."""
    h = hashlib.sha256()
    for name in ("go.mod", "go.sum"):
        h.update((directory / name).read_bytes())
    return h.hexdigest()[:10]


def cache_root() -> Path:
    base = os.environ.get("KUEUE_DRA_CACHE_DIR")
    if base:
        return Path(base) / "controlplane"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "kueue-dra" / "controlplane"


def bin_dir(env: GoEnv | None = None, version: str | None = None) -> Path:
    """The cache directory of the binaries for ``version`` (default: ``kube_version()``), the Go
    toolchain and the platform. An extra version's directory holds its own kube-apiserver and
    links to the other four binaries of the default version's directory (both module hashes are
    in its name)."""
    env = env or go_env()
    version = version or kube_version()
    default = f"{k8s_version()}-{env.goos}-{env.goarch}-{env.goversion}-{module_hash()}"
    if version == k8s_version():
        return cache_root() / default
    return cache_root() / f"{version}-apiserver-{module_hash(apiserver_module(version))}-with-{default}"


def is_complete(directory: Path) -> bool:
    return (directory / BUILD_INFO).is_file() and all(
        os.access(directory / b, os.X_OK) for b in BINARIES
    )


def override_dir() -> Path | None:
    """KUEUE_DRA_CONTROLPLANE_BIN: use prebuilt binaries from this directory (no Go needed)."""
    value = os.environ.get("KUEUE_DRA_CONTROLPLANE_BIN")
    return Path(value) if value else None


def existing_bin_dir(version: str | None = None) -> Path | None:
    """The bin dir if the binaries are already built, else None."""
    override = override_dir()
    if override is not None:
        return override if all(os.access(override / b, os.X_OK) for b in BINARIES) else None
    d = bin_dir(version=version)
    return d if is_complete(d) else None


def stamp_ldflags(version: str, build_date: str) -> list[str]:
    m = re.match(r"v(\d+)\.(\d+)\.", version)
    if not m:
        raise BuildError(f"cannot stamp non-semver Kubernetes version {version!r}")
    major, minor = m.groups()
    flags = []
    for pkg in VERSION_PACKAGES:
        for key, value in (
            ("gitVersion", version),
            ("gitMajor", major),
            ("gitMinor", minor),
            ("gitCommit", PLACEHOLDER_COMMIT),
            ("gitTreeState", "clean"),
            ("buildDate", build_date),
        ):
            flags.append(f"-X {pkg}.{key}={value}")
    return flags


def _module_time(env: GoEnv, directory: Path = MODULE_DIR) -> str:
    """The publication time of the k8s.io/kubernetes the module requires: a reproducible buildDate."""
    out = subprocess.run(
        [env.go, "list", "-m", "-json", "k8s.io/kubernetes"],
        check=True, capture_output=True, text=True, env=_go_environ(), cwd=directory,
    ).stdout
    t = json.loads(out).get("Time") or "1970-01-01T00:00:00Z"
    return t


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def build(force: bool = False, parallel: int | None = None, verbose: bool = True,
          version: str | None = None) -> Path:
    """Build the binaries once (or reuse them) and return the bin dir. ``version`` (default:
    KUEUE_DRA_KUBE_VERSION, else the default version) picks the kube-apiserver; for an extra
    version only kube-apiserver is built, the other binaries are the default version's."""
    override = override_dir()
    if override is not None:
        missing = [b for b in BINARIES if not os.access(override / b, os.X_OK)]
        if missing:
            raise BuildError(f"KUEUE_DRA_CONTROLPLANE_BIN={override} lacks {', '.join(missing)}")
        return override
    env = go_env()
    version = version or kube_version()
    default_force = force and version == k8s_version()
    default = published(bin_dir(env, k8s_version()), is_complete,
                        lambda tmp: _build_into(env, tmp, parallel, verbose), force=default_force)
    if version == k8s_version():
        return default
    return published(bin_dir(env, version), is_complete,
                     lambda tmp: _build_apiserver_into(env, version, tmp, default, parallel, verbose), force=force)


def _build_apiserver_into(env: GoEnv, version: str, tmp: Path, default: Path, parallel: int | None,
                          verbose: bool) -> dict:
    """kube-apiserver of an extra version from its own module; links to the default's others."""
    moddir = apiserver_module(version)
    build_date = _module_time(env, moddir)
    cmd = [env.go, "build", "-trimpath", "-ldflags", " ".join(["-s", "-w", *stamp_ldflags(version, build_date)])]
    if parallel:
        cmd.append(f"-p={parallel}")
    cmd += ["-o", str(tmp / "kube-apiserver"), PACKAGES["kube-apiserver"]]
    if verbose:
        _log(f"controlplane: building kube-apiserver {version}")
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=moddir, env=_go_environ(), capture_output=True, text=True)
    seconds = round(time.monotonic() - start, 1)
    if proc.returncode != 0:
        raise BuildError(f"go build kube-apiserver {version} failed (exit {proc.returncode}):\n" + proc.stderr[-6000:])
    if verbose:
        _log(f"controlplane: built kube-apiserver {version} in {seconds}s")
    _check_apiserver(tmp, version)
    for name in BINARIES:
        if name != "kube-apiserver":
            os.symlink(default / name, tmp / name)
    return {"kubernetes": version, "others": k8s_version(), "othersDir": str(default), "goVersion": env.goversion,
            "goos": env.goos, "goarch": env.goarch, "moduleHash": module_hash(moddir), "buildDate": build_date,
            "buildSeconds": {"kube-apiserver": seconds}}


def _build_into(env: GoEnv, tmp: Path, parallel: int | None, verbose: bool) -> dict:
    version = k8s_version()
    build_date = _module_time(env)
    # One invocation for all binaries: the Kubernetes ones get the version stamp; etcd carries
    # its own version and does not link the stamped packages (-X of an absent symbol is a no-op).
    ldflags = ["-s", "-w", *stamp_ldflags(version, build_date)]
    cmd = [env.go, "build", "-trimpath", "-ldflags", " ".join(ldflags)]
    if parallel:
        cmd.append(f"-p={parallel}")
    cmd += ["-o", f"{tmp}/", *(PACKAGES[name] for name in BINARIES)]
    if verbose:
        _log(f"controlplane: building {', '.join(BINARIES)} (one go build)")
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=MODULE_DIR, env=_go_environ(), capture_output=True, text=True)
    seconds = round(time.monotonic() - start, 1)
    if proc.returncode != 0:
        raise BuildError(f"go build failed (exit {proc.returncode}):\n" + proc.stderr[-6000:])
    for name in BINARIES:
        if GO_OUTPUT_NAME[name] != name:
            os.rename(tmp / GO_OUTPUT_NAME[name], tmp / name)
    if verbose:
        _log(f"controlplane: built in {seconds}s")
    _check_versions(tmp, version)
    return {"kubernetes": version, "goVersion": env.goversion, "goos": env.goos, "goarch": env.goarch,
            "moduleHash": module_hash(), "buildDate": build_date, "buildSeconds": {"all": seconds}}


def apiserver_binary(directory: Path, version: str | None = None) -> Path:
    """The kube-apiserver a cluster started with the bin dir ``directory`` runs. With no
    ``version`` and KUEUE_DRA_KUBE_VERSION unset, the directory's own; else the one of that
    version: the directory's own when it is that version, else the extra version's (built once).
    Prebuilt binaries (KUEUE_DRA_CONTROLPLANE_BIN) of another version are an error."""
    version = version or os.environ.get(VERSION_ENV)
    own = directory / "kube-apiserver"
    if not version:
        return own
    try:
        built = json.loads((directory / BUILD_INFO).read_text()).get("kubernetes")
    except (OSError, ValueError):
        built = None
    if built == version:
        return own
    if built is None:
        actual = apiserver_version(directory)
        if actual != version:
            raise BuildError(f"{own} is {actual}, but {VERSION_ENV} asks for {version}")
        return own
    return build(version=version) / "kube-apiserver"


def apiserver_version(directory: Path) -> str:
    """What ``kube-apiserver --version`` in ``directory`` says (e.g. v1.34.4)."""
    out = subprocess.run([str(directory / "kube-apiserver"), "--version"], capture_output=True, text=True, timeout=60)
    m = re.search(r"(v1\.\d+\.\d+\S*)", out.stdout)
    if out.returncode != 0 or not m:
        raise BuildError(f"kube-apiserver --version printed {out.stdout.strip()!r} {out.stderr.strip()!r}")
    return m.group(1)


def _check_apiserver(directory: Path, version: str) -> None:
    if apiserver_version(directory) != version:
        raise BuildError(f"{directory / 'kube-apiserver'} is {apiserver_version(directory)}, want {version}")


def _check_versions(directory: Path, version: str) -> None:
    _check_apiserver(directory, version)
    out = subprocess.run(
        [str(directory / "kubectl"), "version", "--client", "-o", "json"],
        capture_output=True, text=True, timeout=60,
    )
    if out.returncode != 0 or json.loads(out.stdout)["clientVersion"]["gitVersion"] != version:
        raise BuildError(f"kubectl version --client printed {out.stdout.strip()!r}, want {version}")
    out = subprocess.run([str(directory / "etcd"), "--version"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0 or "etcd Version" not in out.stdout:
        raise BuildError(f"etcd --version printed {out.stdout.strip()!r} {out.stderr.strip()!r}")
    for name in ("kube-scheduler", "kube-controller-manager"):
        out = subprocess.run([str(directory / name), "--version"], capture_output=True, text=True, timeout=60)
        if out.returncode != 0 or version not in out.stdout:
            raise BuildError(f"{name} --version printed {out.stdout.strip()!r} {out.stderr.strip()!r}, want {version}")
