"""Partial RBAC on the real API server: for every resource of the reader ClusterRole, a user with
the reader role minus exactly that resource runs every read command.

What the full reader role answers is the reference. Without one resource a command may know
less, never something else: it names what was forbidden, marks the answer partial, states no
finding the reader's answer does not have (no DeviceClassMissing, DeviceClassNotMapped, 0 devices
or a rejection derived from a list it could not read), and every value that differs from the
reader's is unknown (null). Which command reads which resource is learned from the reader's own
requests (``KUEUE_DRA_STATS``), so nothing here lists what a command is expected to read.
"""

from __future__ import annotations

import copy
import json
import time

import pytest
import yaml

from testenv import setups
from testenv.harness import READER_CLUSTERROLE, run_plugin

RBAC = "rbac.authorization.k8s.io/v1"
READER_ROLE = yaml.safe_load(READER_CLUSTERROLE.read_text())
#: every (group, resource) the reader role grants
RESOURCES = [(g, r) for rule in READER_ROLE["rules"] for g in rule.get("apiGroups", []) for r in rule["resources"]]

#: one command line per read command, for each setup (the workload explained is one of the setup's)
SETUPS = {
    "resourceclaimtemplate": ("team-a", "job/train-llm"),
    "mig-partitionable": ("ml-research", "job/notebook-eval"),
    "extended-resource": ("team-b", "job/finetune"),
}


def commands(setup: str) -> dict[str, list[str]]:
    ns, ref = SETUPS[setup]
    return {
        "classes": ["classes"],
        "map": ["map"],
        "explain": ["explain", ref, "-n", ns],
        "explain-list": ["explain", "-n", ns],
        "verify": ["verify", "--no-probe"],
        "version": ["version"],
    }


#: findings that say something is unknown (or assumed, and say so): the only ones a restricted
#: answer may add
UNKNOWN_CODES = {"Unreadable", "ChargeUnknown", "QuotaVerdictUnknown", "KueueConfigUnknown", "KueueVersionAssumed",
                 "FlavorsUnknown", "PreemptionUnknown", "QueueModelCaveat",
                 "EventsUnknown", "PodsUnknown", "UnchargedDevicesUnknown"}


def user_for(group: str, resource: str) -> str:
    """The user (and role) name: a subresource's ``/`` (``localqueues/pendingworkloads``) is no
    valid character of an object name."""
    return f"no-{resource.replace('/', '-')}.{group or 'core'}"


def role_without(group: str, resource: str) -> list[dict]:
    """The reader ClusterRole without ``resource`` of ``group``, bound to its own user."""
    rules = []
    for rule in copy.deepcopy(READER_ROLE["rules"]):
        if group in rule.get("apiGroups", []) and resource in rule.get("resources", []):
            rest = [r for r in rule["resources"] if r != resource]
            if rest:
                rules.append(dict(rule, resources=rest))
        else:
            rules.append(rule)
    name = user_for(group, resource)
    return [{"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules},
            {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": name},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
             "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}]}]


def read_resource(path: str) -> tuple[str, str] | None:
    """(group, resource) of a request path: /api/v1/[namespaces/NS/]RES[/NAME], /apis/G/V/…"""
    parts = path.split("?", 1)[0].strip("/").split("/")
    if parts[0] == "api" and len(parts) > 2:
        group, rest = "", parts[2:]
    elif parts[0] == "apis" and len(parts) > 3:
        group, rest = parts[1], parts[3:]
    else:
        return None
    if rest[0] == "namespaces" and len(rest) > 2:
        return group, rest[2]
    return group, rest[0]


class Run:
    def __init__(self, proc, stats: dict | None):
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.doc = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
        self.read = {read_resource(c["path"]) for c in (stats or {}).get("calls", [])} - {None}


def run(cluster, args: list[str], as_user: str, tmp_path, tag: str) -> Run:
    stats = tmp_path / f"{tag}.stats.json"
    proc = run_plugin(cluster, *args, "-o", "json", "--as", as_user, env={"KUEUE_DRA_STATS": str(stats)})
    return Run(proc, json.loads(stats.read_text()) if stats.exists() else None)


def findings(doc) -> list[dict]:
    """Every finding anywhere in a document."""
    out = []
    if isinstance(doc, dict):
        if "code" in doc and "severity" in doc:
            out.append(doc)
        for v in doc.values():
            out.extend(findings(v))
    elif isinstance(doc, list):
        for v in doc:
            out.extend(findings(v))
    return out


def unknown(value) -> bool:
    if isinstance(value, dict):  # e.g. {"version": None, "problem": "cannot get …: forbidden"}
        return all(unknown(v) for v in value.values())
    return value is None or (isinstance(value, str) and any(
        w in value for w in ("unknown", "forbidden", "assumed", "could not be read")))


def same_quantity(a, b) -> bool:
    """``19Gi`` and ``20401094656`` are one amount (how it is written follows what else is known)."""
    from kubectl_kueue_dra.dra.quantity import QuantityError, parse_quantity

    try:
        return isinstance(a, str) and isinstance(b, str) and parse_quantity(a).value == parse_quantity(b).value
    except QuantityError:
        return False


def disagreements(ref, got, path="") -> list[str]:
    """Values of ``got`` that differ from ``ref`` at the same place and are not unknown. Findings,
    messages and the bookkeeping of what was read are compared elsewhere."""
    if path.rsplit(".", 1)[-1] in ("findings", "partial", "unreadable", "message", "fix", "problems",
                                   "reason", "detail", "evidence", "unknown", "summary", "learnedFrom",
                                   "gatesAssumeVersion"):
        return []
    if isinstance(ref, dict) and isinstance(got, dict):
        return [d for k in got if k in ref for d in disagreements(ref[k], got[k], f"{path}.{k}")]
    if isinstance(ref, list) and isinstance(got, list):
        if len(ref) != len(got):
            return []  # a list the user could not read is shorter; what it holds is checked by name
        return [d for i, (r, g) in enumerate(zip(ref, got)) for d in disagreements(r, g, f"{path}[{i}]")]
    if ref != got and not unknown(got) and not same_quantity(ref, got):
        return [f"{path}: {got!r} where the reader sees {ref!r}"]
    return []


def by_name(items, key="name"):
    return {i[key]: i for i in items or [] if isinstance(i, dict) and key in i}


def check_restricted(cmd: str, ref: Run, got: Run, group: str, resource: str) -> list[str]:
    """What is wrong with the restricted run ``got``, compared with the reader's ``ref``."""
    problems = []
    if "Traceback" in got.stderr or "internal error" in got.stderr:
        return [f"internal error: {got.stderr[-2000:]}"]
    if got.doc is None:
        # no answer at all: one line naming what was forbidden, exit 1
        lines = got.stderr.strip().splitlines()
        if got.code != 1 or len(lines) != 1 or "forbidden" not in lines[0]:
            problems.append(f"no document, exit {got.code}, stderr {got.stderr!r}")
        return problems
    if cmd == "verify":
        if got.code not in (0, 1):
            problems.append(f"exit {got.code}")
    elif got.code != 0:
        problems.append(f"exit {got.code}: {got.stderr}")
    if got.doc.get("partial") is False or (cmd == "verify" and not got.doc.get("unreadable")):
        problems.append("not marked partial")
    plural = resource if not group else f"{resource}.{group}"
    if plural not in got.stdout or "forbidden" not in got.stdout:
        problems.append(f"the answer does not say that {plural} is forbidden")
    allowed = {f["code"] for f in findings(ref.doc)} | UNKNOWN_CODES
    new = sorted({f"{f['code']}: {f['message']}" for f in findings(got.doc) if f["code"] not in allowed})
    problems += [f"a finding the reader does not get: {n}" for n in new]
    if cmd == "verify":
        ref_checks, got_checks = by_name(ref.doc["checks"], "id"), by_name(got.doc["checks"], "id")
        for cid, c in got_checks.items():
            r = ref_checks.get(cid)
            # a verdict may only become a skip, or an info line saying what is unknown
            if r is not None and c["status"] != r["status"] and c["status"] not in ("skip", "info"):
                problems.append(f"check {cid} is {c['status']} ({c['message']}) where the reader's is "
                                f"{r['status']} ({r['message']})")
    else:
        problems += disagreements(ref.doc, got.doc)
    return problems


@pytest.fixture(scope="module")
def users(cluster_gates_on):
    cluster_gates_on.apply([obj for g, r in RESOURCES for obj in role_without(g, r)])
    return {(g, r): user_for(g, r) for g, r in RESOURCES}


@pytest.fixture(scope="module", params=sorted(SETUPS))
def reference(request, cluster_gates_on, users, tmp_path_factory):
    """The setup loaded, and what the full reader role answers for each command."""
    setup = request.param
    setups.load(cluster_gates_on, setup)
    tmp = tmp_path_factory.mktemp(f"rbac-{setup}")
    refs = {cmd: run(cluster_gates_on, args, "reader", tmp, cmd) for cmd, args in commands(setup).items()}
    for cmd, ref in refs.items():
        assert ref.doc is not None and ref.doc.get("partial") in (False, None) and not ref.doc.get("unreadable"), \
            (cmd, ref.stderr, ref.stdout[-2000:])
    return setup, refs


TIMES: dict[str, float] = {}


@pytest.mark.parametrize("group,resource", RESOURCES, ids=[user_for(g, r) for g, r in RESOURCES])
def test_without_one_resource(cluster_gates_on, users, reference, tmp_path, group, resource):
    setup, refs = reference
    start = time.monotonic()
    problems = {}
    for cmd, args in commands(setup).items():
        ref = refs[cmd]
        got = run(cluster_gates_on, args, users[(group, resource)], tmp_path, cmd)
        if (group, resource) not in ref.read:
            # the command never reads the resource: the answer is the reader's, byte for byte
            if got.stdout != ref.stdout or got.code != ref.code:
                problems[cmd] = ["answers differently although it does not read it"]
            continue
        found = check_restricted(cmd, ref, got, group, resource)
        # the table is drawn from the same document, the unknowns included
        text = run_plugin(cluster_gates_on, *args, "--as", users[(group, resource)])
        if "Traceback" in text.stderr or "internal error" in text.stderr or text.returncode != got.code:
            found.append(f"the text output fails: exit {text.returncode}, {text.stderr[-1500:]}")
        if found:
            problems[cmd] = found
    TIMES[f"{setup}/{resource}"] = time.monotonic() - start
    assert not problems, json.dumps(problems, indent=1)
