"""Which Kueue (issue 16 class 4): a second Deployment kueue-controller-manager in another
namespace is never picked by namespace order; config, webhook and kueue-system decide, and when
two installations remain the user must say which with --kueue-namespace."""

import copy
import json
import shutil

import yaml
from testenv.clirun import run

BASE = "examples/resourceclaimtemplate"


def _kueue_docs():
    with open(f"{BASE}/kueue.yaml") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def _in(namespace, with_config=True):
    docs = []
    for d in copy.deepcopy(_kueue_docs()):
        if d["kind"] == "Namespace":
            d["metadata"]["name"] = namespace
        elif d["kind"] == "ConfigMap" and not with_config:
            continue
        else:
            d["metadata"]["namespace"] = namespace
        docs.append(d)
    return docs


def _webhook(namespace):
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "kueue-mutating-webhook-configuration"},
            "webhooks": [{"name": "mworkload.kueue.x-k8s.io",
                          "clientConfig": {"service": {"name": "kueue-webhook-service", "namespace": namespace}}}]}


def _snapshot(tmp_path, *docs):
    snap = tmp_path / "snap"
    shutil.copytree(BASE, snap)
    (snap / "kueue.yaml").write_text(yaml.safe_dump_all(docs))
    return snap


def _config(snap, *extra):
    proc = run("map", "--from", str(snap), "-o", "json", *extra)
    return proc, (json.loads(proc.stdout)["target"] if proc.returncode == 0 else None)


def test_kueue_system_wins_over_a_copy_elsewhere(tmp_path):
    snap = _snapshot(tmp_path, *_in("aaa-copy"), *_in("kueue-system"))
    proc, target = _config(snap)
    assert target == {"kind": "ConfigMap", "name": "kueue-manager-config", "namespace": "kueue-system"}, proc.stderr


def test_a_kueue_without_its_configuration_is_not_the_one(tmp_path):
    snap = _snapshot(tmp_path, *_in("aaa-stale", with_config=False), *_in("team-kueue"))
    _, target = _config(snap)
    assert target["namespace"] == "team-kueue"


def test_the_webhook_tells_which_kueue_the_api_server_calls(tmp_path):
    snap = _snapshot(tmp_path, *_in("kueue-system"), *_in("zzz-kueue"), _webhook("zzz-kueue"))
    _, target = _config(snap)
    assert target["namespace"] == "zzz-kueue"


def test_two_equal_candidates_are_an_error_asking_for_kueue_namespace(tmp_path):
    snap = _snapshot(tmp_path, *_in("kueue-a"), *_in("kueue-b"))
    for command in ("classes", "map", "verify", "version"):
        proc = run(command, "--from", str(snap))
        assert proc.returncode == 1, (command, proc.stdout, proc.stderr)
        line, = proc.stderr.strip().splitlines()
        assert line.startswith("error: 2 Kueue installations: Deployment kueue-controller-manager in namespaces "
                               "kueue-a, kueue-b"), line
        assert "--kueue-namespace" in line
    _, target = _config(snap, "--kueue-namespace", "kueue-b")
    assert target["namespace"] == "kueue-b"
