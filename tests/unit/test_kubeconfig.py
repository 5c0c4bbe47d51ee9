import os

import pytest

from kubectl_kueue_dra.errors import ConfigError, UsageError
from kubectl_kueue_dra.commands.connection import parse_timeout
from kubectl_kueue_dra.kube.kubeconfig import ConnectionOptions, load, merge_kubeconfigs

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
    merged, used = merge_kubeconfigs([a, "/nonexistent", b], explicit=False)
    assert used == [a, b]
    assert merged["current-context"] == "a"
    c1 = next(c for c in merged["clusters"] if c["name"] == "c1")["cluster"]
    assert c1["server"] == "https://127.0.0.1:6443"  # first file wins
    assert c1["certificate-authority"] == os.path.join(os.path.dirname(a), "certs/ca.crt")
    assert {c["name"] for c in merged["contexts"]} == {"a", "b"}


def test_kubeconfig_env_list(two_files, monkeypatch):
    a, b = two_files
    monkeypatch.setenv("KUBECONFIG", f"{b}:{a}")
    loaded = load(ConnectionOptions())
    assert loaded.context == "b" and loaded.namespace == "default"
    assert loaded.server == "https://127.0.0.2:6443"
    loaded = load(ConnectionOptions(context="a", namespace=None))
    assert loaded.namespace == "team-a"  # the context's namespace
    assert load(ConnectionOptions(context="a", namespace="x")).namespace == "x"


def test_missing_explicit_kubeconfig(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load(ConnectionOptions(kubeconfig=str(tmp_path / "nope")))


def test_no_kubeconfig_at_all(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "nope"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(ConfigError, match="no kubeconfig found"):
        load(ConnectionOptions())


def test_malformed_kubeconfig_names_line(tmp_path):
    bad = tmp_path / "kc"
    bad.write_text("apiVersion: v1\nclusters:\n- name: x\n  cluster: {server: [\n")
    with pytest.raises(ConfigError, match=r"kc:\d+: malformed YAML"):
        load(ConnectionOptions(kubeconfig=str(bad)))


def test_unknown_context_lists_available(two_files):
    with pytest.raises(ConfigError, match=r'context "nope" not found .*available: a\)'):
        load(ConnectionOptions(kubeconfig=two_files[0], context="nope"))


@pytest.mark.parametrize("text,seconds", [("10s", 10), ("1m", 60), ("500ms", 0.5), ("5", 5),
                                          ("1m30s", 90), ("0", 30)])
def test_parse_timeout(text, seconds):
    assert parse_timeout(text) == seconds


def test_parse_timeout_rejects_garbage():
    with pytest.raises(UsageError, match="invalid --request-timeout"):
        parse_timeout("soon")
