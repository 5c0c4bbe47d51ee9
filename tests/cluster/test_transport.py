"""Transport on the real control plane (issue 16 class 7): an unchecked certificate asked for by
the kubeconfig or by --insecure-skip-tls-verify prints no urllib3 warning (kubectl prints none),
and a refused impersonation names the caller who may not impersonate, not the target user."""

import warnings

import yaml
from testenv.clirun import run_with
from testenv.harness import plugin_env, run_plugin


def _without_ca(cluster, tmp_path, insecure: bool):
    cfg = yaml.safe_load(cluster.kubeconfig.read_text())
    for entry in cfg["clusters"]:
        entry["cluster"].pop("certificate-authority-data", None)
        if insecure:
            entry["cluster"]["insecure-skip-tls-verify"] = True
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _classes(cluster, kubeconfig, *extra):
    args = ("--kubeconfig", str(kubeconfig), "--context", "admin", "classes", *extra)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proc = run_with(args, plugin_env(cluster, None))
    return proc, [str(w.message) for w in caught]


def test_insecure_kubeconfig_prints_no_warning(cluster, tmp_path):
    proc, caught = _classes(cluster, _without_ca(cluster, tmp_path, insecure=True))
    assert proc.returncode == 0, proc.stderr
    assert caught == [] and "Warning" not in proc.stderr, (caught, proc.stderr)


def test_insecure_flag_skips_the_certificate_check(cluster, tmp_path):
    kubeconfig = _without_ca(cluster, tmp_path, insecure=False)
    refused, _ = _classes(cluster, kubeconfig, "--request-timeout", "5s")
    assert refused.returncode == 1 and "TLS error" in refused.stderr, refused.stderr
    proc, caught = _classes(cluster, kubeconfig, "--insecure-skip-tls-verify")
    assert proc.returncode == 0, proc.stderr
    assert caught == [] and "Warning" not in proc.stderr, (caught, proc.stderr)


def test_denied_impersonation_names_who_may_not_impersonate_whom(cluster):
    proc = run_plugin(cluster, "classes", "--as", "admin", context="reader")
    assert proc.returncode == 1
    line, = proc.stderr.strip().splitlines()
    assert line.startswith('error: reader cannot impersonate user "admin"'), line
    assert "forbidden (as admin)" not in line


def _client_certificate_kubeconfig(cluster, tmp_path, as_files: bool):
    """The admin connecting with a client certificate of the cluster's CA, as kind and kubeadm
    write it: the certificate and key inline (base64), or as files beside the kubeconfig with the
    server reached by address and checked by name (``tls-server-name``)."""
    import base64

    p = cluster.pki
    entry = {"server": cluster.server, "certificate-authority-data": base64.b64encode(p.ca_pem).decode()}
    user = {"client-certificate-data": base64.b64encode(p.admin_client_cert.read_bytes()).decode(),
            "client-key-data": base64.b64encode(p.admin_client_key.read_bytes()).decode()}
    if as_files:
        for name, source in (("ca.crt", p.ca_cert), ("admin.crt", p.admin_client_cert),
                             ("admin.key", p.admin_client_key)):
            (tmp_path / name).write_bytes(source.read_bytes())
        entry = {"server": cluster.server, "certificate-authority": "ca.crt", "tls-server-name": "kubernetes"}
        user = {"client-certificate": "admin.crt", "client-key": "admin.key"}
    cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "cert",
           "clusters": [{"name": "c", "cluster": entry}], "users": [{"name": "cert-admin", "user": user}],
           "contexts": [{"name": "cert", "context": {"cluster": "c", "user": "cert-admin"}}]}
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_a_client_certificate_authenticates_like_the_token(cluster, tmp_path):
    """A kubeconfig with a client certificate (read without the kubernetes package: kube/plain.py)
    reaches the real API server as the same admin: the same answer as the token's, inline data or
    files relative to the kubeconfig, and the server's name checked through tls-server-name."""
    token = run_with(("--kubeconfig", str(cluster.kubeconfig), "--context", "admin", "classes", "-o", "json"),
                     plugin_env(cluster, None))
    assert token.returncode == 0, token.stderr
    for as_files in (False, True):
        folder = tmp_path / ("files" if as_files else "inline")
        folder.mkdir()
        proc = run_with(("--kubeconfig", str(_client_certificate_kubeconfig(cluster, folder, as_files)),
                         "classes", "-o", "json"), plugin_env(cluster, None))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == token.stdout
    wrong = folder / "kubeconfig"
    wrong.write_text(wrong.read_text().replace("tls-server-name: kubernetes", "tls-server-name: elsewhere"))
    refused = run_with(("--kubeconfig", str(wrong), "--request-timeout", "5s", "classes"), plugin_env(cluster, None))
    assert refused.returncode == 1 and "TLS error" in refused.stderr, refused.stderr
