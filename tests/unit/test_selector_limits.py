"""Selectors valid in Kubernetes that this tool cannot evaluate (issue 16 class 5): the device
count is unknown with a SelectorNotEvaluable warning, never "does not compile" and never 0.
(``cel.bind``, most of ``format()`` and optional selection chains are evaluated:
tests/unit/test_cel_bind_format.py.)"""

import json
import shutil

import pytest
import yaml
from testenv.clirun import run

UNEVALUABLE = {
    "optional.of": "optional.of(device.driver).orValue('') == 'gpu.nvidia.com'",
    "format %f": "'%.1f'.format([1.0]) == '1.0' && device.driver == 'gpu.nvidia.com'",
    "nested 120 deep": "(" * 120 + "device.driver == 'gpu.nvidia.com'" + ")" * 120,
}


@pytest.mark.parametrize("expression", UNEVALUABLE.values(), ids=UNEVALUABLE.keys())
def test_unevaluable_selector_is_unknown_not_zero(tmp_path, expression):
    snap = tmp_path / "snap"
    shutil.copytree("examples/resourceclaimtemplate", snap)
    path = snap / "deviceclasses.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["spec"]["selectors"] = [{"cel": {"expression": expression}}]
    path.write_text(yaml.safe_dump(doc))
    proc = run("classes", "--from", str(snap), "-o", "json")
    assert proc.returncode == 0, proc.stderr
    gpu, = json.loads(proc.stdout)["deviceClasses"]
    assert gpu["matchingDevices"] is None and gpu["matchingPools"] is None
    codes = [f["code"] for f in gpu["findings"]]
    assert "SelectorNotEvaluable" in codes
    assert not {"SelectorInvalid", "SelectorEvaluationError", "NoMatchingDevices"} & set(codes), gpu["findings"]
