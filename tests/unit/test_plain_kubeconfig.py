"""A plain kubeconfig context is read without the kubernetes package (kube/plain.py): what it
gives must be what the package gives — the package itself is the oracle, on every combination of
the fields a plain context has — and anything else must still go to the package."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.kube import plain
from kubectl_kueue_dra.kube.plain import PlainConfig, plain_config, pool_manager

ROOT = Path(__file__).resolve().parents[2]
CA, CERT, KEY = b"-----CA-----\n", b"-----CERT-----\n", b"-----KEY-----\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("pem")
    for name, content in (("ca.crt", CA), ("client.crt", CERT), ("client.key", KEY)):
        (d / name).write_bytes(content)
    return d


def _field(key, content, files, name):
    """A strategy for one file-or-data field: absent, as data, as a file, empty data, or both."""
    data = base64.standard_b64encode(content).decode()
    return st.sampled_from([{}, {f"{key}-data": data}, {key: str(files / name)}, {f"{key}-data": ""},
                            {f"{key}-data": data, key: str(files / "missing")}])


def _contexts(files):
    cluster = st.fixed_dictionaries({
        "server": st.sampled_from(["https://127.0.0.1:6443", "https://api.example:6443/", "http://127.0.0.1:8080"])},
        optional={"insecure-skip-tls-verify": st.booleans(), "tls-server-name": st.just("kubernetes")})
    user = st.fixed_dictionaries({}, optional={"token": st.sampled_from(["abc.def", ""])})
    return st.tuples(cluster, _field("certificate-authority", CA, files, "ca.crt"), user,
                     _field("client-certificate", CERT, files, "client.crt"),
                     _field("client-key", KEY, files, "client.key"))


def _package(cluster, user):
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config_from_dict(
        {"clusters": [{"name": "c", "cluster": cluster}], "users": [{"name": "u", "user": user}],
         "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}]},
        context="x", client_configuration=cfg, persist_config=False)
    return cfg


def _read(path):
    return None if path is None else Path(path).read_bytes()


def _settings(cfg):
    """What the client uses of a configuration, files by their content."""
    cfg.retries = False  # as kube/client.py sets it
    kw = dict(pool_manager(cfg).connection_pool_kw)
    for key in ("ca_certs", "cert_file", "key_file"):
        kw[key] = _read(kw.get(key))
    kw["retries"] = repr(kw.get("retries"))  # a Retry equals only itself
    return {"host": cfg.host, "verify_ssl": cfg.verify_ssl, "tls_server_name": cfg.tls_server_name,
            "auth": cfg.auth_settings().get("BearerToken", {}).get("value"), "pool": kw,
            "ca": _read(cfg.ssl_ca_cert), "cert": _read(cfg.cert_file), "key": _read(cfg.key_file)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_plain_context_reads_as_the_package_reads_it(files, data):
    c, ca, u, cert, key = data.draw(_contexts(files))
    cluster, user = {**c, **ca}, {**u, **cert, **key}
    try:
        expected = _settings(_package(cluster, user))
    except Exception:  # noqa: BLE001 - the package refuses it (a missing file): then it is not plain either
        assert plain_config(cluster, user, {}) is None
        return
    found = plain_config(cluster, user, {})
    assert isinstance(found, PlainConfig)
    assert _settings(found) == expected


@pytest.mark.parametrize("cluster,user", [
    ({"server": "https://h", "proxy-url": "http://proxy:3128"}, {}),
    ({"server": "https://h"}, {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "x"}}),
    ({"server": "https://h"}, {"auth-provider": {"name": "oidc"}}),
    ({"server": "https://h"}, {"tokenFile": "/var/run/token"}),
    ({"server": "https://h"}, {"username": "u", "password": "p"}),
    ({"server": "https://h", "certificate-authority-data": "not base64!"}, {}),
    ({"server": "https://h"}, {"token": 12}),
    ({}, {"token": "t"}),
    ({"server": "https://h"}, {"client-certificate": "/nonexistent/client.crt"}),
])
def test_everything_else_goes_to_the_package(cluster, user):
    assert plain_config(cluster, user, {}) is None


@pytest.mark.parametrize("name", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "NO_PROXY"])
def test_a_proxy_in_the_environment_goes_to_the_package(name):
    assert plain_config({"server": "https://h"}, {"token": "t"}, {name: "http://proxy:3128"}) is None
    assert plain_config({"server": "https://h"}, {"token": "t"}, {name: ""}) is not None


def test_data_is_written_to_one_private_directory(files):
    found = plain_config({"server": "https://h", "certificate-authority-data": base64.b64encode(CA).decode()}, {}, {})
    assert found is not None and found.ssl_ca_cert is not None
    folder = Path(found.ssl_ca_cert).parent
    assert str(folder) == plain._TEMP_DIR[0] and folder.stat().st_mode & 0o777 == 0o700
    assert Path(found.ssl_ca_cert).stat().st_mode & 0o777 == 0o600


def test_a_plain_context_does_not_import_the_kubernetes_package(tmp_path):
    """The point of it: a live command's start does not pay for the package."""
    config = tmp_path / "config"
    config.write_text("apiVersion: v1\nkind: Config\ncurrent-context: x\n"
                      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                      "users: [{name: u, user: {token: t}}]\n"
                      "contexts: [{name: x, context: {cluster: c, user: u}}]\n")
    code = ("import sys\n"
            "from kubectl_kueue_dra.environment import Environment\n"
            "from kubectl_kueue_dra.kube.client import KubeClient\n"
            "from kubectl_kueue_dra.kube.kubeconfig import ConnectionOptions\n"
            f"env = Environment(stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr, vars={{}})\n"
            f"c = KubeClient(ConnectionOptions(env=env, kubeconfig={str(config)!r}))\n"
            "assert c.server == 'https://127.0.0.1:1', c.server\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'kubernetes'))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
