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
