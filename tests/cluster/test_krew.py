"""The release as a user gets it: the PyInstaller binary built by scripts/build-binary, checked
and installed with the real krew (built from the sigs.k8s.io/krew Go module), run through the
real kubectl, against the test control plane.

Building the binary is part of the test: on CI (CI=true) a failed build, a missing Go toolchain
or a failed krew build is a failure, never a skip. Outside CI, only a missing `go` skips (as for
the control plane). KUEUE_DRA_PREBUILT_ARCHIVE=PATH tests an archive built earlier instead.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pytest
import yaml

from testenv.binaries import controlplane
from testenv.binaries import krewtools
from testenv.harness import REPO_ROOT, run_plugin

ON_CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
BUILD_TIMEOUT = 1800


def _fail_or_skip(reason: str, missing_tool: bool) -> None:
    if missing_tool and not ON_CI:
        pytest.skip(reason)
    pytest.fail(reason, pytrace=False)


def _plugin_version() -> str:
    from kubectl_kueue_dra import __version__

    return __version__


@pytest.fixture(scope="session")
def archive() -> Path:
    """dist/kubectl-kueue_dra_<os>_<arch>.tar.gz, built now by scripts/build-binary."""
    prebuilt = os.environ.get("KUEUE_DRA_PREBUILT_ARCHIVE")
    if prebuilt:
        return Path(prebuilt).resolve()
    if sys.platform == "win32":
        pytest.skip("the krew packaging test runs on Linux and macOS")
    cmd = [sys.executable, str(REPO_ROOT / "scripts" / "build-binary")]
    try:
        proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"scripts/build-binary did not finish within {BUILD_TIMEOUT}s", pytrace=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/build-binary failed (exit {proc.returncode}):\n{proc.stderr[-6000:]}",
                    pytrace=False)
    return Path(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def krew_bin() -> Path:
    try:
        return krewtools.build()
    except krewtools.GoNotFound as e:
        _fail_or_skip(f"krew tools unavailable: {e}", missing_tool=True)
    except Exception as e:  # noqa: BLE001
        _fail_or_skip(f"building krew failed: {e}", missing_tool=False)


@pytest.fixture(scope="session")
def kubectl(controlplane_bin) -> Path:
    return controlplane_bin / "kubectl"


@pytest.fixture(scope="session")
def host_platform(archive) -> str:
    """os/arch of the archive, e.g. linux/amd64, from its name."""
    _, os_name, arch = archive.name.split(".")[0].rsplit("_", 2)
    return f"{os_name}/{arch}"


class Krew:
    """A temporary KREW_ROOT and a PATH with only it, kubectl, kubectl-krew and the system dirs,
    so no other kubectl-kueue_dra on the machine can answer in its place."""

    def __init__(self, root: Path, kubectl: Path, krew_bin: Path):
        self.root = root / "krew-root"
        self.tools = root / "tools"
        self.tools.mkdir(parents=True)
        (self.tools / "kubectl").symlink_to(kubectl)
        (self.tools / "kubectl-krew").symlink_to(krew_bin / "kubectl-krew")
        self.env = {
            "PATH": os.pathsep.join([str(self.root / "bin"), str(self.tools), "/usr/bin", "/bin"]),
            "HOME": str(root / "home"),
            "KREW_ROOT": str(self.root),
            "KREW_NO_UPGRADE_CHECK": "1",
            "NO_COLOR": "1",
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        }
        (root / "home").mkdir()

    def run(self, *args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.tools / "kubectl"), *args], capture_output=True, text=True,
                              env={**self.env, **(env or {})}, cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                              timeout=timeout)


def render_manifest(dest_dir: Path, *extra: str) -> Path:
    dest_dir.mkdir(parents=True, exist_ok=True)
    manifest = dest_dir / "kueue-dra.yaml"  # krew wants the file named after the plugin
    subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "krew-manifest"), "-o", str(manifest), *extra],
                   check=True, cwd=REPO_ROOT)
    return manifest


@pytest.fixture(scope="module")
def installed(tmp_path_factory, archive, kubectl, krew_bin, host_platform) -> Krew:
    """kueue-dra installed with `kubectl krew install --manifest --archive`, as krew-index's
    PR template asks authors to check."""
    krew = Krew(tmp_path_factory.mktemp("krew"), kubectl, krew_bin)
    manifest = render_manifest(tmp_path_factory.mktemp("manifest"), "--sha-dir", str(archive.parent),
                               "--only", host_platform)
    proc = krew.run("krew", "install", f"--manifest={manifest}", f"--archive={archive}")
    assert proc.returncode == 0, proc.stderr
    assert "Installed plugin: kueue-dra" in proc.stderr + proc.stdout
    return krew


# ---- the archive and the manifests ------------------------------------------------------------
def test_archive_is_what_krew_can_extract(archive):
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    assert (archive.parent / f"{archive.name}.sha256").read_text() == f"{digest}  {archive.name}\n"
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
    not_plain = [n for n, m in members.items() if not (m.isfile() or m.isdir())]
    assert not_plain == []  # krew's tar extractor aborts on symlinks and hard links
    assert members["LICENSE"].isfile() and members["kubectl-kueue_dra"].mode & 0o111
    assert members["kubectl_complete-kueue_dra"].mode & 0o111
    assert "_internal/celpy/cel.lark" in members  # celpy's grammar, read at run time


def test_committed_manifest_matches_template_and_version(krew_bin):
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "krew-manifest"), "--check",
                           str(REPO_ROOT / "krew" / "kueue-dra.yaml")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load((REPO_ROOT / "krew" / "kueue-dra.yaml").read_text())
    assert doc["spec"]["version"] == f"v{_plugin_version()}"
    selectors = sorted((p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"])
                       for p in doc["spec"]["platforms"])
    assert selectors == [("darwin", "amd64"), ("darwin", "arm64"), ("linux", "amd64"), ("linux", "arm64"),
                         ("windows", "amd64")]
    # krew-index CI's structural check (the archives of a release do not exist yet: no install)
    proc = subprocess.run([str(krew_bin / "validate-krew-manifest"), "-manifest",
                           str(REPO_ROOT / "krew" / "kueue-dra.yaml"), "-skip-install"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_validate_krew_manifest_with_install(tmp_path, archive, kubectl, krew_bin, host_platform):
    """The full krew-index check: download from the manifest's URI (served on 127.0.0.1),
    verify the sha256, install, find a LICENSE among the installed files."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(archive.parent))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        manifest = render_manifest(tmp_path / "m", "--sha-dir", str(archive.parent), "--only", host_platform,
                                   "--base-url", f"http://127.0.0.1:{server.server_address[1]}/")
        krew = Krew(tmp_path / "k", kubectl, krew_bin)
        proc = subprocess.run([str(krew_bin / "validate-krew-manifest"), "-manifest", str(manifest)],
                              capture_output=True, text=True, env=krew.env, timeout=600)
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "all 1 spec.platforms installed fine" in proc.stderr


# ---- installed with krew, run through kubectl -------------------------------------------------
def test_plugin_list_shows_it(installed):
    proc = installed.run("plugin", "list")
    assert proc.returncode == 0, proc.stderr
    assert str(installed.root / "bin" / "kubectl-kueue_dra") in proc.stdout.splitlines()
    assert os.path.islink(installed.root / "bin" / "kubectl-kueue_dra")


def test_version_and_offline_command_through_kubectl(installed):
    proc = installed.run("kueue-dra", "--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, f"kueue-dra {_plugin_version()}"), proc.stderr
    proc = installed.run("kueue-dra", "version", "--client", "-o", "json")
    client = json.loads(proc.stdout)["clientVersion"]
    assert client["frozen"] is True and client["kueueDra"] == _plugin_version()
    proc = installed.run("kueue-dra", "classes", "--from", "examples/mig-partitionable")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["NAME", "EXTENDED", "RESOURCE"]
    assert any(line.startswith("mig.nvidia.com ") for line in lines)


def test_same_answer_as_from_source_offline(installed):
    args = ("classes", "--from", "examples/mig-partitionable", "-o", "json")
    frozen = installed.run("kueue-dra", *args)
    source = subprocess.run([sys.executable, "-m", "kubectl_kueue_dra", *args], capture_output=True, text=True,
                            cwd=REPO_ROOT, env=dict(os.environ, NO_COLOR="1"))
    assert frozen.returncode == source.returncode == 0, frozen.stderr + source.stderr
    assert json.loads(frozen.stdout) == json.loads(source.stdout)


def test_kubectl_tab_completion_through_the_completion_executable(installed):
    # as the caveats tell a user: put the completion executable next to krew's link of the binary
    executable = installed.root / "bin" / "kubectl_complete-kueue_dra"
    shipped = installed.root / "store" / "kueue-dra" / f"v{_plugin_version()}" / "kubectl_complete-kueue_dra"
    printed = installed.run("kueue-dra", "completion", "kubectl")
    assert printed.returncode == 0 and printed.stdout == shipped.read_text()
    executable.write_text(printed.stdout)
    executable.chmod(0o755)
    proc = installed.run("__complete", "kueue-dra", "cl")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split("\t")[0] == "classes"
    assert proc.stdout.splitlines()[-1] == ":4"
    proc = installed.run("__complete", "kueue-dra", "classes", "-o", "")
    assert proc.stdout.split()[:4] == ["table", "wide", "json", "yaml"]


def test_first_help_and_tab_through_kubectl_come_from_the_shipped_answers(installed, tmp_path):
    """Installed by krew and run by kubectl (argv[0] is krew's link), a first --help or <TAB>
    with an empty cache prints the answer the archive ships (nothing is kept: click never ran),
    byte for byte what the binary prints through click (KUEUE_DRA_NO_RECALL)."""
    for args, columns in ((["--help"], None), (["map", "set", "-h"], "100"), (["explain", "--help"], "120"),
                          (["__complete", ""], None), (["__complete", "verify", "--"], "100")):
        cache = tmp_path / "-".join(["cache", *args[-2:], columns or "unset"])
        env = {"XDG_CACHE_HOME": str(cache), **({"COLUMNS": columns} if columns else {})}
        first = installed.run("kueue-dra", *args, env=env)
        kept = sorted(p.name for p in cache.glob("kueue-dra/answers-*"))
        through_click = installed.run("kueue-dra", *args, env={**env, "KUEUE_DRA_NO_RECALL": "1"})
        assert first.returncode == through_click.returncode == 0, first.stderr + through_click.stderr
        assert first.stdout == through_click.stdout and first.stdout.strip(), args
        assert kept == [], f"{args} went through click: {kept}"
    # a help width the archive does not ship (88) goes through click and is kept
    cache = tmp_path / "cache-88"
    proc = installed.run("kueue-dra", "--help", env={"XDG_CACHE_HOME": str(cache), "COLUMNS": "90"})
    assert proc.returncode == 0 and proc.stdout.startswith("Usage: kubectl kueue-dra")
    assert list(cache.glob("kueue-dra/answers-*"))


# ---- against the test control plane ------------------------------------------------------------
def test_cluster_commands_through_the_frozen_binary(installed, cluster_gates_on):
    kc = ["--kubeconfig", str(cluster_gates_on.kubeconfig), "--context", "admin"]
    frozen = installed.run("kueue-dra", "classes", "-o", "json", *kc)
    assert frozen.returncode == 0, frozen.stderr
    source = run_plugin(cluster_gates_on, "classes", "-o", "json")
    assert source.returncode == 0, source.stderr
    assert json.loads(frozen.stdout) == json.loads(source.stdout)

    proc = installed.run("kueue-dra", "version", "-o", "json", *kc)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["serverVersion"]["gitVersion"] == controlplane.kube_version()
    assert doc["clientVersion"]["frozen"] is True

    # names completed from the cluster, as for `kubectl kueue-dra -n kube<TAB>`
    proc = installed.run("kueue-dra", "__complete", *kc, "classes", "-n", "kube")
    assert proc.returncode == 0 and "kube-system" in proc.stdout.splitlines(), proc.stdout + proc.stderr


EXEC_PLUGIN = """#!/bin/sh
# an exec credential plugin that records the environment it was started with, and its parent's
env > "{out}/child.env"
tr '\\0' '\\n' < /proc/$PPID/environ > "{out}/parent.env" 2>/dev/null || true
printf '%s' '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"{token}"}}}}'
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_LIBRARY_PATH is the Linux loader's")
@pytest.mark.parametrize("user_value", [None, "/opt/site-libs"])
def test_exec_credential_plugin_gets_the_users_library_path(installed, cluster_gates_on, tmp_path, user_value):
    """PyInstaller's bootloader puts the bundle's _internal/ on LD_LIBRARY_PATH; an exec auth
    plugin (aws, kubelogin, gke-gcloud-auth-plugin) must not inherit it."""
    plugin = tmp_path / "record-env-auth"
    plugin.write_text(EXEC_PLUGIN.format(out=tmp_path, token=cluster_gates_on.tokens["admin"]))
    plugin.chmod(0o755)
    kubeconfig = yaml.safe_load(cluster_gates_on.kubeconfig.read_text())
    kubeconfig["users"] = [{"name": "exec", "user": {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin),
        "interactiveMode": "Never"}}}]
    kubeconfig["contexts"] = [{"name": "exec", "context": {"cluster": cluster_gates_on.name, "user": "exec"}}]
    kubeconfig["current-context"] = "exec"
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(kubeconfig))

    env = {"LD_LIBRARY_PATH": user_value} if user_value else {}
    proc = installed.run("kueue-dra", "classes", "--kubeconfig", str(path), env=env)
    assert proc.returncode == 0, proc.stderr  # authenticated through the exec plugin

    child = dict(line.split("=", 1) for line in (tmp_path / "child.env").read_text().splitlines() if "=" in line)
    assert child.get("LD_LIBRARY_PATH") == user_value
    assert "LD_LIBRARY_PATH_ORIG" not in child
    # the frozen process itself did start with the bundle on its library path: the fix is needed
    parent = (tmp_path / "parent.env").read_text()
    assert "_internal" in next((line for line in parent.splitlines() if line.startswith("LD_LIBRARY_PATH=")), "")
