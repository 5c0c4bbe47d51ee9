"""The one decision between oc and kubectl, and the one shell quoting of generated commands."""

import subprocess

import pytest

from kubectl_kueue_dra.kueue.install.command import cli_name, document_for_cli, for_cli, openshift_platform, shell_quote

CEL = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"


@pytest.mark.parametrize("text,quoted", [
    ("gpu.memory", "gpu.memory"),
    ("a b", "'a b'"),
    (CEL, f'"{CEL}"'),  # single quotes inside: double quotes, nothing in it expands there
    ("it's $HOME", "'it'\\''s $HOME'"),  # both: the one form left
])
def test_shell_quote_is_readable_and_exact(text, quoted):
    assert shell_quote(text) == quoted
    assert subprocess.run(["sh", "-c", f"printf %s {quoted}"], capture_output=True, text=True).stdout == text


def test_one_platform_decision():
    assert openshift_platform(None, None, "ConfigMap") is False
    assert openshift_platform({"kind": "FeatureGate"}, None, None) is True
    assert openshift_platform(None, None, "Kueue") is True
    assert (cli_name(True), cli_name(False)) == ("oc", "kubectl")


def test_for_cli_rewrites_command_words_only():
    text = "kubectl label ns x a=b; then kubectl kueue-dra verify (see kubectl-kueue_dra)"
    assert for_cli(text, "oc") == "oc label ns x a=b; then oc kueue-dra verify (see kubectl-kueue_dra)"
    assert for_cli(text, "kubectl") == text
    doc = {"findings": [{"severity": "error", "code": "X", "message": "run kubectl get x", "fix": "kubectl edit y"}],
           "other": {"message": "kubectl stays outside findings"}}
    out = document_for_cli(doc, "oc")
    assert out["findings"][0]["message"] == "run oc get x" and out["findings"][0]["fix"] == "oc edit y"
    assert out["other"]["message"] == "kubectl stays outside findings"
