"""The CEL dialects: how Kueue (k8s.io/dynamic-resource-allocation v0.36, ``Features{}``, a
``cel.Device`` without ``AllowMultipleAllocations``) builds ``device`` and words its errors, next
to kube-scheduler; and the parser cache being made on first use, not at import."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_kueue_dra.dra.cel import (
    KUEUE_DRA_V036,
    SCHEDULER,
    CelEvalError,
    SelectorEvaluator,
    compile_selector,
    device_activation,
)
from kubectl_kueue_dra.kueue.install.semantics import Semantics

D = "gpu.example.com"


def dev(**attrs):
    return {"name": "g", "attributes": attrs, "capacity": {"memory": {"value": "40Gi"}},
            "allowMultipleAllocations": True}


def run(expr, device, dialect):
    return compile_selector(expr, dialect).evaluate(device_activation(D, device, dialect))


def test_no_such_key_without_the_1_37_hint_for_kueue():
    with pytest.raises(CelEvalError) as kueue:
        run(f"device.attributes['{D}'].nosuch == 'x'", dev(model={"string": "a100"}), KUEUE_DRA_V036)
    assert kueue.value.detail == "no such key: nosuch"
    with pytest.raises(CelEvalError) as sched:
        run(f"device.attributes['{D}'].nosuch == 'x'", dev(model={"string": "a100"}), SCHEDULER)
    assert sched.value.detail.startswith("no such key: nosuch. consider using CEL optional chaining")


def test_allow_multiple_allocations_is_always_false_for_kueue():
    # declared in both (StoredExpressions ignores feature gating), but Kueue does not copy the value
    assert run("device.allowMultipleAllocations", dev(), SCHEDULER) is True
    assert run("device.allowMultipleAllocations", dev(), KUEUE_DRA_V036) is False
    assert run("device.allowMultipleAllocations == false", dev(), KUEUE_DRA_V036) is True
    ev = SelectorEvaluator(KUEUE_DRA_V036)
    assert not ev.matches(["device.allowMultipleAllocations"], D, dev())


def test_list_attributes_are_unsupported_values_for_kueue():
    d = dev(model={"string": "a100"}, links={"strings": ["a", "b"]})
    with pytest.raises(CelEvalError) as e:
        run(f"device.attributes['{D}'].model == 'a100'", d, KUEUE_DRA_V036)
    assert e.value.detail == "attribute links: unsupported attribute value"
    assert run(f"device.attributes['{D}'].model == 'a100'", d, SCHEDULER) is True
    ev = SelectorEvaluator(KUEUE_DRA_V036)
    with pytest.raises(CelEvalError):  # the projected cache key sees the unconvertible attribute
        ev.matches([f"device.attributes['{D}'].model == 'a100'"], D, d)
    assert ev.matches([f"device.attributes['{D}'].model == 'a100'"], D, dev(model={"string": "a100"}))


def test_includes_is_declared_for_kueue_and_works_on_scalars():
    assert run(f"device.attributes['{D}'].model.includes('a100')", dev(model={"string": "a100"}), KUEUE_DRA_V036)


@pytest.mark.parametrize("expr,text", [
    (f"device.attributes['{D}'].model", ("CEL result of type string could not be converted to bool: unsupported "
                                        "native conversion from string to 'bool'")),
    (f"device.capacity['{D}'].memory", ("CEL result of type kubernetes.Quantity could not be converted to bool: "
                                       "type conversion error from 'Quantity' to 'bool'")),
])
def test_non_bool_results_as_cel_go_words_them(expr, text):
    """What the type checker cannot see (an attribute of any type, a capacity): a literal of another
    type does not compile (test_cel: must evaluate to bool)."""
    with pytest.raises(CelEvalError) as e:
        run(expr, dev(model={"string": "a100"}), KUEUE_DRA_V036)
    assert e.value.detail == text


def test_kueue_versions_use_the_v036_dialect():
    assert Semantics.for_version("0.19.2").cel_dialect == KUEUE_DRA_V036
    assert Semantics.for_version("0.18.4").cel_dialect == KUEUE_DRA_V036


def test_parser_cache_is_made_on_first_compile_not_at_import(tmp_path):
    """The cache directory is the one the run says (its XDG_CACHE_HOME), made when the first
    expression is compiled by cel-python: not at import, not when the directory is said, not for a
    simple selector (decided without cel-python)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    env.pop("XDG_CACHE_HOME", None)
    code = ("import pathlib, sys; import kubectl_kueue_dra.dra.cel as c; from kubectl_kueue_dra.dra import cel_cache; "
            "d = pathlib.Path(sys.argv[1]) / 'kueue-dra'; cel_cache.use(sys.argv[1]); "
            "c.compile_selector('device.driver == \"x\"'); assert not d.exists(), 'made too early'; "
            "c.compile_selector('device.driver.startsWith(\"x\")'); "
            "print(sorted(p.name for p in d.iterdir()))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=False, env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert "cel-parser-lark-" in out.stdout
    # the command line says it from the run's XDG_CACHE_HOME (a class whose selector is not simple)
    snapshot = tmp_path / "snap.json"
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a100"},
         "spec": {"selectors": [{"cel": {"expression": f"device.attributes['{D}'].model.startsWith('A100')"}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": D, "nodeName": "n", "pool": {"name": "n", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "g", "attributes": {"model": {"string": "A100"}}}]}}]}))
    cli = subprocess.run([sys.executable, "-m", "kubectl_kueue_dra", "classes", "--from", str(snapshot)], check=False,
                         env=dict(env, XDG_CACHE_HOME=str(tmp_path / "xdg")), capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert [p.name.startswith("cel-parser-lark-") for p in (tmp_path / "xdg" / "kueue-dra").iterdir()] == [True]
