"""One Kueue installation model: every command names the same Kueue version, where it came from,
where the configuration lives and the same gates, on the same snapshot (upstream, operator 1.4,
operator 1.5, unknown; tests/fixtures/installations)."""

import json
import shutil
from pathlib import Path

import pytest
from testenv.clirun import run

from kubectl_kueue_dra.kueue.install.semantics import DEFAULT_VERSION

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "installations"

# snapshot → (base example, a workload to explain, expected version, its source, operator, config Kueue reads)
CASES = {
    "upstream": ("resourceclaimtemplate", ("job/train-llm", "-n", "team-a"), "0.19.2", "image tag", None,
                 "ConfigMap kueue-system/kueue-manager-config"),
    "unknown": ("resourceclaimtemplate", ("job/train-llm", "-n", "team-a"), None, None, None,
                "ConfigMap kueue-system/kueue-manager-config"),
    "operator-1.4": ("mig-partitionable", ("job/notebook-eval", "-n", "ml-research"), "0.18",
                     "operator Deployment labels", "1.4.1", "ConfigMap openshift-kueue-operator/kueue-manager-config"),
    "operator-1.5": ("mig-partitionable", ("job/notebook-eval", "-n", "ml-research"), "0.20",
                     "operator ClusterServiceVersion", "1.5.0", "Kueue cluster"),
}


def snapshot(tmp_path: Path, name: str) -> Path:
    base = CASES[name][0]
    out = tmp_path / name
    out.mkdir()
    for f in (ROOT / "examples" / base).glob("*.yaml"):
        shutil.copy(f, out / f.name)
    shutil.copy(FIXTURES / name / "kueue.yaml", out / "kueue.yaml")  # replaces the example's
    return out


def json_of(*args: str) -> dict:
    proc = run(*args, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def ref(block: dict) -> str:
    return " ".join(x for x in (block["kind"], f"{block['namespace']}/{block['name']}" if block["namespace"]
                                else block["name"]) if x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_command_names_the_same_installation(tmp_path, name):
    _, workload, version, source, operator, effective = CASES[name]
    snap = str(snapshot(tmp_path, name))
    docs = {
        "version": json_of("version", "--from", snap),
        "classes": json_of("classes", "--from", snap),
        "map": json_of("map", "--from", snap),
        "explain": json_of("explain", *workload, "--from", snap),
        "verify": json_of("verify", "--from", snap),
    }
    blocks = {command: doc["kueueInstallation"] for command, doc in docs.items()}
    first = blocks["version"]
    for command, block in blocks.items():
        assert block == first, f"{command} disagrees with version on {name}"
    assert (first["version"], first["versionFrom"], first["operatorVersion"]) == (version, source, operator)
    assert ref(first["effectiveConfig"]).replace("Kueue None/", "Kueue ") == effective

    # what each command says in its own words agrees with the shared block
    gates = first["gates"]
    assert docs["version"]["kueue"]["version"] == version and docs["version"]["kueue"]["versionSource"] == source
    assert docs["map"]["kueueVersion"] == version
    assert docs["explain"]["kueueVersion"] == (version or DEFAULT_VERSION)
    assert docs["explain"]["kueueVersionSource"] == (source or "assumed")
    assert docs["explain"]["kueueGates"] == gates
    v = docs["verify"]["kueue"]
    assert (v["version"], v["versionFrom"], v["operatorVersion"]) == (version, source, operator)
    assert {g["name"]: g["state"] == "on" for g in v["gates"]} == gates
    assert docs["verify"]["kueue"]["assumedVersion"] == (version is None)
    assert docs["classes"]["kueueConfig"] == docs["map"]["target"] == first["config"]


def test_operator_gates_come_from_the_rendered_configmap_or_the_featuregate(tmp_path):
    """1.4: the rendered ConfigMap turns on only partitionable devices (0.18: extended resources stay
    alpha/off); 1.5: nothing rendered, so the gates are what the operator writes from the
    FeatureGate, over Kueue 0.20's defaults."""
    g14 = json_of("version", "--from", str(snapshot(tmp_path, "operator-1.4")))["kueueInstallation"]["gates"]
    assert g14["KueueDRAIntegrationPartitionableDevices"] and not g14["KueueDRAIntegrationExtendedResource"]
    g15 = json_of("verify", "--from", str(snapshot(tmp_path, "operator-1.5")))["kueue"]
    assert g15["settingsFrom"] == "operator"
    assert g15["renderedConfigMap"] is None
