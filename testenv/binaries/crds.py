"""CustomResourceDefinitions the test clusters install.

The CRD files come from the Go module cache (``go mod download -json MOD@VER``
downloads a module and prints the directory it was extracted to), except the
OpenShift Kueue operator's CRD: that module is not served by the Go module
proxy, so its published CRD is read from the operator's source archive
(``../shared/third_party/openshift-kueue-operator-*.tar.xz``, ``bundle/manifests/``),
unpacked once into the cache (``operator_build.manifests_dir()``).

``crd_paths()`` is standard library only (``scripts/controlplane crds`` uses
it). ``load_crds()`` needs PyYAML.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

KUEUE_MODULE = "sigs.k8s.io/kueue"
KUEUE_VERSION = "v0.19.2"
KUEUE_CRD_DIR = "config/components/crd/bases"

OPENSHIFT_API_MODULE = "github.com/openshift/api"
# The proxy serves no tags for openshift/api; this pseudo-version (master,
# 2026-08-13) is one it does serve. `go list -m -versions` lists nothing useful.
OPENSHIFT_API_VERSION = "v0.0.0-20260813212709-d4bb0b443cb8"
OPENSHIFT_API_CRDS = (
    # FeatureGate has a single variant (no per-feature-set files).
    "config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_featuregates.crd.yaml",
    # ClusterVersion has one file per feature set; Default is what a normal cluster runs.
    "config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml",
)



class CRDError(RuntimeError):
    pass


@dataclass(frozen=True)
class CRDFile:
    source: str  # "kueue", "openshift-api" or "kueue-operator"
    path: Path


def module_dir(module: str, version: str) -> Path:
    """Download MODULE@VERSION into the Go module cache and return its directory."""
    go = shutil.which("go")
    if go is None:
        raise CRDError("the 'go' command is not on PATH (needed to fetch CRDs from the Go module cache)")
    env = dict(os.environ, GOTOOLCHAIN="local", GOWORK="off")
    # Run outside any module so no go.mod is consulted or changed.
    with tempfile.TemporaryDirectory(prefix="kueue-dra-gomod-") as cwd:
        proc = subprocess.run(
            [go, "mod", "download", "-json", f"{module}@{version}"],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
        )
    try:
        info = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise CRDError(f"go mod download {module}@{version} failed: {proc.stderr.strip()}") from None
    if proc.returncode != 0 or info.get("Error") or not info.get("Dir"):
        raise CRDError(f"go mod download {module}@{version} failed: {info.get('Error') or proc.stderr.strip()}")
    return Path(info["Dir"])


def crd_paths() -> list[CRDFile]:
    kueue = module_dir(KUEUE_MODULE, KUEUE_VERSION) / KUEUE_CRD_DIR
    files = [CRDFile("kueue", p) for p in sorted(kueue.glob("*.yaml"))]
    if not files:
        raise CRDError(f"no CRDs found in {kueue}")
    api = module_dir(OPENSHIFT_API_MODULE, OPENSHIFT_API_VERSION)
    for rel in OPENSHIFT_API_CRDS:
        p = api / rel
        if not p.is_file():
            raise CRDError(f"{OPENSHIFT_API_MODULE}@{OPENSHIFT_API_VERSION} has no {rel}")
        files.append(CRDFile("openshift-api", p))
    files.append(CRDFile("kueue-operator", operator_crd_path()))
    return files


def operator_crd_path() -> Path:
    """The operator's published ``kueues.kueue.openshift.io`` CRD, from its source archive."""
    from testenv.binaries import operator_build

    try:
        return operator_build.manifests_dir() / operator_build.CRD_FILE
    except operator_build.BuildError as e:
        raise CRDError(str(e)) from None


def prepare(crd: dict) -> dict:
    """Make a CRD installable on a bare API server (no webhooks, no controllers)."""
    spec = crd.get("spec", {})
    # A conversion webhook needs a running Kueue; with strategy None the API
    # server converts between versions by rewriting apiVersion only.
    spec.pop("conversion", None)
    for version in spec.get("versions", []):
        version["served"] = True
    meta = crd.setdefault("metadata", {})
    # cert-manager CA injection annotations refer to objects that don't exist here.
    annotations = meta.get("annotations") or {}
    annotations.pop("cert-manager.io/inject-ca-from", None)
    meta["annotations"] = annotations
    meta.pop("creationTimestamp", None)
    crd.pop("status", None)
    return crd


_LOADED: dict[tuple, list[dict]] = {}


def load_crds(files: list[CRDFile] | None = None) -> list[dict]:
    """The prepared CRD objects (parsed once per process; do not modify them)."""
    import yaml  # PyYAML; only the test session needs it

    files = list(files) if files is not None else crd_paths()
    key = tuple(f.path for f in files)
    if key not in _LOADED:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        out = []
        for f in files:
            with open(f.path) as fh:
                for doc in yaml.load_all(fh, Loader=loader):
                    if doc and doc.get("kind") == "CustomResourceDefinition":
                        out.append(prepare(doc))
        _LOADED[key] = out
    return _LOADED[key]
