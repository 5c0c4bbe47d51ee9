"""Every command reads a Kueue configuration text of any shape without an internal error: a text
Kueue refuses is a finding (verify: kueue-config FAIL), never a traceback (issue 16, class 2)."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from testenv.clirun import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "resourceclaimtemplate"
HEAD = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\n"
TEXTS = {
    "mappings-number": HEAD + "resources:\n  deviceClassMappings: 5\n",
    "resources-string": HEAD + 'resources: "x"\n',
    "cel-string": HEAD + "resources:\n  deviceClassMappings:\n  - name: a.com/x\n    deviceClassNames: [gpu.nvidia.com]\n"
                         "    sources:\n    - counter:\n        name: m\n        driver: d.com\n        deviceSelector:\n"
                         "          cel: \"x\"\n",
    "gates-list": HEAD + "featureGates: [KueueDRAIntegration]\n",
    "gate-string": HEAD + "featureGates:\n  KueueDRAIntegration: \"true\"\n",
    "unknown-field": HEAD + "resource: {}\n",
    "duplicate": HEAD + "resources: {}\nresources: {}\n",
    "top-list": "- a\n- b\n",
    "top-scalar": "5\n",
    "multi-document": HEAD + "---\nresources: 5\n",
    "malformed": HEAD + "resources: [\n",
    "mapping-entry-string": HEAD + "resources:\n  deviceClassMappings: [\"x\"]\n",
    "sources-string": HEAD + "resources:\n  deviceClassMappings:\n  - name: a.com/x\n    deviceClassNames: [gpu.nvidia.com]\n"
                             "    sources: \"x\"\n",
    "yes-key": HEAD + "yes: 1\n",
}


def snapshot(tmp_path: Path, text: str) -> str:
    root = tmp_path / "snap"
    shutil.copytree(EXAMPLE, root)
    path = root / "kueue.yaml"
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    for doc in docs:
        items = doc.get("items", [doc])
        for obj in items:
            if obj.get("kind") == "ConfigMap" and obj["metadata"]["name"] == "kueue-manager-config":
                obj["data"]["controller_manager_config.yaml"] = text
    path.write_text(yaml.safe_dump_all(docs))
    return str(root)


COMMANDS = [
    ("version",), ("classes",), ("map",), ("verify",), ("explain", "-A"),
    ("map", "set", "example.com/gpu", "--device-class", "gpu.nvidia.com", "--dry-run=client"),
    ("map", "remove", "example.com/gpu", "--dry-run=client"),
]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_no_command_crashes_on_a_bad_configuration(tmp_path, name):
    snap = snapshot(tmp_path, TEXTS[name])
    for command in COMMANDS:
        proc = run(*command, "--from", snap)
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr.lower(), (command, proc.stderr)
        assert proc.returncode in (0, 1), (command, proc.returncode, proc.stderr)
        if proc.returncode == 1 and command[0] == "map" and len(command) > 1:
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("name", sorted(set(TEXTS) - {"multi-document"}))
def test_verify_fails_the_config_check_kueue_would_refuse(tmp_path, name):
    proc = run("verify", "--from", snapshot(tmp_path, TEXTS[name]), "-o", "json")
    check = next(c for c in json.loads(proc.stdout)["checks"] if c["id"] == "kueue-config")
    assert check["status"] == "fail", check


def test_multi_document_text_warns_and_map_reads_the_first_document(tmp_path):
    snap = snapshot(tmp_path, HEAD + "resources:\n  deviceClassMappings:\n  - name: a.com/x\n"
                              "    deviceClassNames: [gpu.nvidia.com]\n---\nresources: 5\n")
    proc = run("verify", "--from", snap, "-o", "json")
    check = next(c for c in json.loads(proc.stdout)["checks"] if c["id"] == "kueue-config")
    assert check["status"] == "warn" and "2 YAML documents" in check["message"]
    shown = run("map", "--from", snap, "-o", "json")
    assert shown.returncode == 0 and "a.com/x" in shown.stdout
