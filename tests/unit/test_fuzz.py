"""Property-based fuzzing of every read command, offline and in process (Hypothesis).

A snapshot from an example setup or an installation fixture with one field of one object mutated
(``fuzz_mutations.py``) is read by ``classes``, ``map``, ``verify``, ``version`` or ``explain``.
Properties: the exit code is 0 or 1, never an internal error or a traceback; an error names the
file or an object; ``-o json`` validates against the documented shape (``tests/output_schema.py``); a
table carries no control character from the cluster; and a mutation of one object leaves the facts
of the others unchanged. ``KUEUE_DRA_FUZZ_EXAMPLES`` sets the examples of the main property (the
budget and its measured time: docs/testing.md). Every failing example found is kept in
``fuzz_regressions.json`` and replayed first.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from testenv.clirun import run
from fuzz_mutations import command_line, mutated, mutations, setups, workloads, write
from hypothesis import HealthCheck, given, settings
from output_schema import problems

EXAMPLES = int(os.environ.get("KUEUE_DRA_FUZZ_EXAMPLES", "10000"))
FACT_EXAMPLES = max(EXAMPLES // 20, 25)
REGRESSIONS = json.loads((Path(__file__).parent / "fuzz_regressions.json").read_text())
#: what a terminal could act on: C0 but newline and tab, DEL, C1, and the bidirectional overrides
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, database=None, print_blob=False,
                    suppress_health_check=list(HealthCheck))


def _names(spec: dict[str, Any]) -> set[str]:
    names = set()
    for obj in setups()[spec["setup"]]:
        meta = obj.get("metadata") or {}
        names.update(str(meta[k]) for k in ("name", "namespace") if meta.get(k))
        names.add(str(obj.get("kind")))
    return names


def check(spec: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="kueue-dra-fuzz-") as tmp:
        snapshot = write(spec, tmp)
        proc = run(*command_line(spec, snapshot))
        assert proc.returncode in (0, 1), (spec, proc.returncode, proc.stderr)
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, (spec, proc.stderr)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        for line in errors:
            assert snapshot in line or any(n in line for n in _names(spec)), (spec, line)
        if spec["format"] == "json" and proc.stdout.strip():
            document = json.loads(proc.stdout)
            assert problems(spec["command"], document) == [], (spec, problems(spec["command"], document))
        elif spec["format"] in ("table", "wide"):
            assert not UNSAFE.search(proc.stdout + proc.stderr), (spec, proc.stdout + proc.stderr)


@pytest.mark.parametrize("spec", REGRESSIONS, ids=lambda s: s.get("why", "")[:60])
def test_regression(spec):
    check(spec)


@fuzz(EXAMPLES)
@given(mutations())
def test_read_commands_survive_any_mutation(spec):
    check(spec)


def _json(command: list[str], objects: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The command's JSON document, or None when the snapshot is refused by an error naming it
    (an object without a valid envelope: no facts to compare then)."""
    with tempfile.TemporaryDirectory(prefix="kueue-dra-fuzz-") as tmp:
        path = os.path.join(tmp, "snapshot.json")
        Path(path).write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
        proc = run(*command, "--from", path, "-o", "json")
        assert proc.returncode in (0, 1), proc.stderr
        if not proc.stdout:
            assert proc.stderr.startswith(f"error: {path}: "), proc.stderr
            return None
        return json.loads(proc.stdout)


def _classes(document: dict[str, Any] | None, skip: Any) -> dict[str, Any]:
    assert document is not None
    return {c["name"]: (c["matchingDevices"], c["selectors"]) for c in document["deviceClasses"]
            if c["name"] != skip}


@fuzz(FACT_EXAMPLES)
@given(mutations(kinds=("DeviceClass",)))
def test_a_device_class_mutation_leaves_the_other_classes_alone(spec):
    original = list(setups()[spec["setup"]])
    name = original[spec["object"]]["metadata"]["name"]
    before = _classes(_json(["classes"], original), name)
    document = _json(["classes"], mutated(spec))
    if document is not None:
        after = _classes(document, name)
        assert {k: v for k, v in after.items() if k in before} == before, spec


def _pod_sets(document: dict[str, Any] | None) -> Any:
    assert document is not None
    return [(p["name"], p["count"], p["charge"]) for p in document["podSets"]]


@fuzz(FACT_EXAMPLES)
@given(mutations(setup_names=("resourceclaimtemplate", "mig-partitionable"), kinds=("Workload",)))
def test_a_workload_mutation_leaves_the_other_workloads_alone(spec):
    mutated_name = setups()[spec["setup"]][spec["object"]]["metadata"]["name"]
    others = [w for w in workloads(spec["setup"]) if w[1] != mutated_name]
    for ns, name in others:
        command = ["explain", f"workload/{name}", "-n", ns]
        before = _pod_sets(_json(command, list(setups()[spec["setup"]])))
        document = _json(command, mutated(spec))
        assert document is None or _pod_sets(document) == before, spec
