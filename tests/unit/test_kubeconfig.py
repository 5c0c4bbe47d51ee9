import io
import os

import pytest

from kubectl_kueue_dra.environment import Environment
from kubectl_kueue_dra.errors import ConfigError, UsageError
from kubectl_kueue_dra.commands.connection import parse_timeout
from kubectl_kueue_dra.kube.kubeconfig import ConnectionOptions, kubeconfig_paths, load, merge_kubeconfigs


def _env(cwd=None, **variables):
    """A run's environment with exactly these variables (the process's are never read)."""
    return Environment(stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO(), vars=variables, cwd=cwd)


def _options(env=None, **kwargs):
    return ConnectionOptions(env=env or _env(HOME="/nowhere"), **kwargs)

KC_A = """
apiVersion: v1
kind: Config
current-context: a
clusters:
- name: c1
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: certs/ca.crt}
users:
- name: u1
  user: {token: abc}
contexts:
- name: a
  context: {cluster: c1, user: u1, namespace: team-a}
"""
KC_B = """
apiVersion: v1
kind: Config
current-context: b
clusters:
- name: c1
  cluster: {server: "https://10.9.9.9:6443"}
- name: c2
  cluster: {server: "https://127.0.0.2:6443", insecure-skip-tls-verify: true}
users:
- name: u2
  user: {token: xyz}
contexts:
- name: b
  context: {cluster: c2, user: u2}
"""


@pytest.fixture
def two_files(tmp_path):
    a, b = tmp_path / "a" / "config", tmp_path / "b"
    a.parent.mkdir()
    a.write_text(KC_A)
    b.write_text(KC_B)
    return str(a), str(b)


def test_merge_first_wins_and_relative_paths(two_files):
    a, b = two_files
    merged, used = merge_kubeconfigs([a, "/nonexistent", b], explicit=False, env=_env())
    assert used == [a, b]
    assert merged["current-context"] == "a"
    c1 = next(c for c in merged["clusters"] if c["name"] == "c1")["cluster"]
    assert c1["server"] == "https://127.0.0.1:6443"  # first file wins
    assert c1["certificate-authority"] == os.path.join(os.path.dirname(a), "certs/ca.crt")
    assert {c["name"] for c in merged["contexts"]} == {"a", "b"}


def test_kubeconfig_env_list(two_files):
    a, b = two_files
    env = _env(KUBECONFIG=f"{b}:{a}")
    loaded = load(_options(env))
    assert loaded.context == "b" and loaded.namespace == "default"
    assert loaded.server == "https://127.0.0.2:6443"
    loaded = load(_options(env, context="a", namespace=None))
    assert loaded.namespace == "team-a"  # the context's namespace
    assert load(_options(env, context="a", namespace="x")).namespace == "x"


def test_the_runs_home_and_working_directory(two_files, tmp_path):
    """``~`` is the run's HOME, a relative path is read from the run's working directory (and
    shown as given), whatever the process's are."""
    a, _ = two_files
    assert kubeconfig_paths(None, _env(HOME="/home/x")) == ["/home/x/.kube/config"]
    assert kubeconfig_paths("~/kc", _env(HOME="/home/x")) == ["/home/x/kc"]
    assert kubeconfig_paths(None, _env(HOME="/home/x", KUBECONFIG="~/one:/two")) == ["/home/x/one", "/two"]
    (tmp_path / ".kube" / "certs").mkdir(parents=True)
    (tmp_path / ".kube" / "certs" / "ca.crt").write_text("")
    os.rename(a, tmp_path / ".kube" / "config")
    assert load(_options(_env(HOME=str(tmp_path)))).context == "a"
    loaded = load(_options(_env(cwd=str(tmp_path), HOME="/nowhere"), kubeconfig=".kube/config"))
    assert loaded.context == "a" and loaded.sources == [".kube/config"]
    assert loaded.configuration.ssl_ca_cert == str(tmp_path / ".kube" / "certs" / "ca.crt")  # beside the file
    with pytest.raises(ConfigError, match=r"kubeconfig \.kube/config: no such file"):  # the run's directory only
        load(_options(_env(cwd="/", HOME="/nowhere"), kubeconfig=".kube/config"))


def test_missing_explicit_kubeconfig(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load(_options(kubeconfig=str(tmp_path / "nope")))


def test_no_kubeconfig_at_all(tmp_path):
    with pytest.raises(ConfigError, match="no kubeconfig found"):
        load(_options(_env(KUBECONFIG=str(tmp_path / "nope"))))


def test_malformed_kubeconfig_names_line(tmp_path):
    bad = tmp_path / "kc"
    bad.write_text("apiVersion: v1\nclusters:\n- name: x\n  cluster: {server: [\n")
    with pytest.raises(ConfigError, match=r"kc:\d+: malformed YAML"):
        load(_options(kubeconfig=str(bad)))


def test_unknown_context_lists_available(two_files):
    with pytest.raises(ConfigError, match=r'context "nope" not found .*available: a\)'):
        load(_options(kubeconfig=two_files[0], context="nope"))


@pytest.mark.parametrize("text,seconds", [("10s", 10), ("1m", 60), ("500ms", 0.5), ("5", 5),
                                          ("1m30s", 90), ("0", 30)])
def test_parse_timeout(text, seconds):
    assert parse_timeout(text) == seconds


def test_parse_timeout_rejects_garbage():
    with pytest.raises(UsageError, match="invalid --request-timeout"):
        parse_timeout("soon")


KC_COMPRESSION = """
apiVersion: v1
kind: Config
current-context: remote
clusters:
- {name: remote, cluster: {server: "https://api.example.com:6443"}}
- {name: remote-off, cluster: {server: "https://10.0.0.8:6443", disable-compression: true}}
- {name: local4, cluster: {server: "https://127.0.0.1:6443"}}
- {name: local6, cluster: {server: "https://[::1]:6443"}}
- {name: localname, cluster: {server: "https://localhost:6443"}}
users:
- {name: u, user: {token: abc}}
contexts:
- {name: remote, context: {cluster: remote, user: u}}
- {name: remote-off, context: {cluster: remote-off, user: u}}
- {name: local4, context: {cluster: local4, user: u}}
- {name: local6, context: {cluster: local6, user: u}}
- {name: localname, context: {cluster: localname, user: u}}
"""


@pytest.mark.parametrize("context, flag, asked, because", [
    ("remote", None, True, "as kubectl does"),
    ("remote", True, False, "--disable-compression=true"),
    ("remote-off", None, False, "the kubeconfig's cluster sets disable-compression"),
    ("remote-off", False, True, "--disable-compression=false"),  # the flag wins over the kubeconfig
    ("local4", None, False, "loopback (127.0.0.1)"),
    ("local6", None, False, "loopback (::1)"),
    ("localname", None, False, "loopback (localhost)"),
    ("local4", False, True, "--disable-compression=false"),
])
def test_compression_is_asked_for_as_kubectl_does_but_not_over_loopback(tmp_path, context, flag, asked, because):
    from kubectl_kueue_dra.kube.kubeconfig import compression

    path = tmp_path / "config"
    path.write_text(KC_COMPRESSION)
    opts = _options(kubeconfig=str(path), context=context, disable_compression=flag)
    on, why = compression(opts, load(opts))
    assert on is asked and because in why, why
