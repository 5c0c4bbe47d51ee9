"""Hypothesis strategies for hostile snapshots: start from an example setup (``examples/``) or an
installation fixture (``tests/fixtures/installations``) and mutate one field of one object —
delete it, give it a wrong type or shape, a huge or negative number, a bad quantity, control
characters, bytes that are not UTF-8, deep nesting — including the fields of Kueue's configuration
text inside its ConfigMap.

A mutation is a plain JSON-able dict (``setup``, ``object``, ``path``, ``op``, ``value``,
``command``, ``format``), so a failing one is kept as it is printed in ``fuzz_regressions.json``.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
CONFIG_KEY = "controller_manager_config.yaml"
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
RAW = "@@RAW-BYTES@@"  # a string value replaced by raw bytes when the file is written
#: ResourceSlices kept per setup: enough for every shape (counters, partitions), small enough to be fast
SLICES_KEPT = 3


def _load(path: Path) -> list[dict[str, Any]]:
    from kubectl_kueue_dra.kube.snapshot import load_objects

    return load_objects(str(path))


def _trimmed(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    slices = [o for o in objects if o.get("kind") == "ResourceSlice"][:SLICES_KEPT]
    return [o for o in objects if o.get("kind") != "ResourceSlice"] + slices


@cache
def setups() -> dict[str, tuple[dict[str, Any], ...]]:
    """name -> the setup's objects, JSON round-tripped (plain dicts, lists and scalars)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for example in sorted((ROOT / "examples").iterdir()):
        found[example.name] = _trimmed(_load(example))
    bases = {"upstream": "resourceclaimtemplate", "unknown": "resourceclaimtemplate",
             "operator-1.4": "mig-partitionable", "operator-1.5": "mig-partitionable"}
    for name, base in bases.items():
        others = [f for f in sorted((ROOT / "examples" / base).iterdir()) if f.name != "kueue.yaml"]
        objects = [o for f in others for o in _load(f)]
        found[f"installation/{name}"] = _trimmed(objects + _load(ROOT / "tests/fixtures/installations" / name))
    return {k: tuple(json.loads(json.dumps(v))) for k, v in found.items()}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):  # the first items stand for the rest
            out.extend(_paths(v, (*prefix, i)))
    return out


@cache
def paths(setup: str, index: int) -> tuple[tuple[Any, ...], ...]:
    """Every field of one object; a ConfigMap's Kueue configuration text also by its own fields,
    spelled ``("data", CONFIG_KEY, "$config", ...)``."""
    obj = setups()[setup][index]
    found = _paths(obj)
    text = (obj.get("data") or {}).get(CONFIG_KEY) if obj.get("kind") == "ConfigMap" else None
    if isinstance(text, str):
        parsed = yaml.safe_load(text)
        found.extend(("data", CONFIG_KEY, "$config", *p) for p in _paths(parsed))
    return tuple(found)


def workloads(setup: str) -> list[tuple[str, str]]:
    return [((o.get("metadata") or {}).get("namespace", "default"), o["metadata"]["name"])
            for o in setups()[setup] if o.get("kind") == "Workload"]


BAD_QUANTITIES = ["abc", "1x", "-1", "-5Gi", "1e400", "0.0000000001", "9" * 40 + "Ei", "", " 1", "1 Gi",
                  "0x10", "NaN", "Infinity", "1.5.5", "+1", "1Gi ", "1e", ".5", "5.", "1E3Ki"]
CONTROL = ["\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b]8;;http://x\x1b\\link", "a\rb", "\x00", "\x9b2J",
           "tab\there", "line\nbreak", "\u202eevil", "\x7f"]


def _deep(depth: int, leaf: Any) -> Any:
    for i in range(depth):
        leaf = [leaf] if i % 2 else {"k": leaf}
    return leaf


scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**31, 2**63, -(2**63), 10**30]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(BAD_QUANTITIES), st.sampled_from(CONTROL),
    st.text(max_size=12),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.text(max_size=6), scalars, max_size=3),
    st.builds(_deep, st.integers(min_value=20, max_value=150), scalars),
)
COMMANDS = ("classes", "map", "verify", "version", "explain", "queues")


@st.composite
def mutations(draw: st.DrawFn, setup_names: tuple[str, ...] | None = None,
              kinds: tuple[str, ...] | None = None) -> dict[str, Any]:
    """One mutation of one setup, and the read command to run on it."""
    setup = draw(st.sampled_from(setup_names or sorted(setups())))
    objects = setups()[setup]
    candidates = [i for i, o in enumerate(objects) if kinds is None or o.get("kind") in kinds]
    index = draw(st.sampled_from(candidates))
    path = list(draw(st.sampled_from(paths(setup, index))))
    op = draw(st.sampled_from(["delete", "set", "set", "set", "wrap", "stringify", "control", "bytes"]))
    value: Any = None
    if op == "set":
        value = draw(values)
    elif op == "control":
        value = draw(st.sampled_from(CONTROL))
    elif op == "bytes":
        value = draw(st.sampled_from(["ff", "c3", "80", "fffe", "ed a0 80", "c0 af"])).replace(" ", "")
    command = draw(st.sampled_from(COMMANDS))
    found = workloads(setup)
    target = list(draw(st.sampled_from(found))) if found and command == "explain" else None
    return {"setup": setup, "object": index, "path": path, "op": op, "value": value, "command": command,
            "target": target, "format": draw(st.sampled_from(["json", "json", "table", "wide"])),
            "file": draw(st.sampled_from(["yaml", "json"]))}


def _apply(target: Any, path: list[Any], op: str, value: Any) -> Any:
    """``target`` with the mutation made at ``path`` (a missing path leaves it as it was)."""
    if not path:
        return _changed(target, op, value)
    key, rest = path[0], path[1:]
    if isinstance(target, dict) and key in target:
        if key == CONFIG_KEY and rest[:1] == ["$config"] and isinstance(target[key], str):
            parsed = _apply(yaml.safe_load(target[key]), rest[1:], op, value)
            target[key] = yaml.safe_dump(parsed) if parsed is not _DELETED else ""
            return target
        changed = _apply(target[key], rest, op, value)
        if changed is _DELETED:
            del target[key]
        else:
            target[key] = changed
    elif isinstance(target, list) and isinstance(key, int) and key < len(target):
        changed = _apply(target[key], rest, op, value)
        if changed is _DELETED:
            del target[key]
        else:
            target[key] = changed
    return target


_DELETED = object()


def _changed(old: Any, op: str, value: Any) -> Any:
    if op == "delete":
        return _DELETED
    if op == "wrap":
        return [old]
    if op == "stringify":
        return json.dumps(old)
    if op == "control":
        return f"{old}{value}" if isinstance(old, str) else value
    if op == "bytes":
        return f"{old}{RAW}" if isinstance(old, str) else RAW
    return value


def mutated(spec: dict[str, Any]) -> list[dict[str, Any]]:
    objects = copy.deepcopy(list(setups()[spec["setup"]]))
    objects[spec["object"]] = _apply(objects[spec["object"]], list(spec["path"]), spec["op"], spec["value"])
    return objects


def write(spec: dict[str, Any], directory: str) -> str:
    """The mutated setup as one snapshot file in ``directory``; its path."""
    objects = mutated(spec)
    if spec["file"] == "json":
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=1)
    else:
        text = yaml.dump_all(objects, Dumper=_DUMPER, allow_unicode=True, sort_keys=False)
    data = text.encode("utf-8")
    if spec["op"] == "bytes":
        data = data.replace(RAW.encode(), bytes.fromhex(spec["value"]))
    path = os.path.join(directory, f"snapshot.{spec['file']}")
    with open(path, "wb") as f:
        f.write(data)
    return path


def command_line(spec: dict[str, Any], snapshot: str) -> list[str]:
    args = [spec["command"]]
    if spec["command"] == "explain":
        ns, name = spec["target"] or ("default", "none")
        args += [f"workload/{name}", "-n", ns]
    fmt = spec["format"]
    if spec["command"] == "version" and fmt != "json":
        fmt = "yaml" if fmt == "wide" else "table"
    if spec["command"] == "version" and fmt == "table":
        return [*args, "--from", snapshot]
    return [*args, "--from", snapshot, "-o", fmt]
