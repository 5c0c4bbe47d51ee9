"""Kueue's steps before the charge: AdjustResources (RuntimeClass overhead, LimitRange defaults,
limits as requests), excludeResourcePrefixes and transformations, and the partial-admission
pod-count search, on fixtures."""

from kubectl_kueue_dra.kueue.charge import ChargeEngine, ChargeInputs, format_usage
from kubectl_kueue_dra.kueue.config.mappings import parse_mappings
from kubectl_kueue_dra.kueue.install.semantics import DRAGates, Semantics
from kubectl_kueue_dra.kueue.workloads.adjust import AdjustInputs, adjust, api_defaults
from kubectl_kueue_dra.kueue.workloads.partial import can_be_partially_admitted, search
from kubectl_kueue_dra.kueue.workloads.podsets import (
    PodSet,
    podsets_from_manifest,
    podsets_from_workload,
)
from kubectl_kueue_dra.kueue.workloads.transform import ResourceRules


def limit_range(name, *items):
    return {"metadata": {"name": name}, "spec": {"limits": list(items)}}


def spec(*containers, init=(), **extra):
    s = {"containers": [dict(c) for c in containers]}
    if init:
        s["initContainers"] = [dict(c) for c in init]
    s.update(extra)
    return s


def c(name="main", requests=None, limits=None):
    res = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    return {"name": name, "resources": res}


def charge(pod_spec, count=1, adjust_inputs=None, rules=None, version="0.19.2", mappings=(), **ps):
    inputs = ChargeInputs(namespace="ns", semantics=Semantics.for_version(version), gates=DRAGates(),
                          mappings=parse_mappings(list(mappings)),
                          device_classes=[], claim_templates={}, slices=[],
                          rules=rules or ResourceRules(), adjust=adjust_inputs or AdjustInputs("ns"))
    return ChargeEngine(inputs).compute([PodSet("main", count, {"spec": pod_spec}, **ps)]).podsets[0]


# ------------------------------------------------------------------------------- LimitRanges
def test_container_defaults_fill_only_what_is_missing_in_containers_and_init_containers():
    lr = limit_range("defaults", {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"},
                                  "defaultRequest": {"cpu": "250m", "memory": "256Mi"}})
    ps = charge(spec(c("a", requests={"cpu": "2"}), c("b"), init=[c("setup", limits={"memory": "4Gi"})]),
                count=2, adjust_inputs=AdjustInputs("ns", [lr]))
    # a: cpu 2 (its own), memory 256Mi (default request); b: 250m, 256Mi; setup: 250m and 256Mi —
    # the default request comes before limits are used as requests, so its 4Gi limit is not
    assert ps.per_pod == {"cpu": 2250, "memory": 512 * 2**20}
    assert format_usage("memory", ps.total["memory"]) == "1Gi"
    sources = {(a.target, a.resource, a.step): a.source for a in ps.adjustments}
    assert sources[("container b", "cpu", "limitRangeDefaultRequest")] == "LimitRange ns/defaults"
    assert ("container a", "cpu", "limitRangeDefaultRequest") not in sources
    assert sources[("init container setup", "memory", "limitRangeDefaultRequest")] == "LimitRange ns/defaults"
    assert ("init container setup", "memory", "limitAsRequest") not in sources
    assert ("container a", "memory", "limitAsRequest") not in sources


def test_default_limit_alone_becomes_the_request():
    """The API server defaults defaultRequest to default for a Container item; a limit-only
    LimitRange in a file gets the same treatment, and the limit is used as the request."""
    item = {"type": "Container", "default": {"cpu": "500m"}, "max": {"memory": "2Gi"}}
    assert api_defaults(item) == ({"cpu": "500m", "memory": "2Gi"}, {"cpu": "500m", "memory": "2Gi"})
    ps = charge(spec(c()), adjust_inputs=AdjustInputs("ns", [limit_range("lr", item)]))
    assert ps.per_pod == {"cpu": 500, "memory": 2 * 2**30}


def test_limit_ranges_that_disagree_leave_the_amount_unknown():
    """Kueue keeps the first default its informer cache lists, in no defined order (the oracle
    saw the second by name win): the amount is unknown; defaults that agree or do not overlap
    are applied, and a Pod item touches only pod-level resources."""
    first = limit_range("a-first", {"type": "Container", "defaultRequest": {"cpu": "100m", "memory": "1Gi"}})
    second = limit_range("b-second", {"type": "Container", "defaultRequest": {"cpu": "900m", "memory": "1Gi"}},
                         {"type": "Pod", "max": {"cpu": "4"}})
    ps = charge(spec(c()), adjust_inputs=AdjustInputs("ns", [second, first]))
    assert set(ps.unknown) == {"cpu"} and "LimitRange ns/b-second: 900m" in ps.unknown["cpu"]
    assert ps.total == {"memory": 2**30}
    assert not charge(spec(c(requests={"cpu": "1"})), adjust_inputs=AdjustInputs("ns", [second, first])).unknown


def test_pod_level_resources_limits_become_requests():
    ps = charge(spec(c(requests={"cpu": "1"}), resources={"limits": {"cpu": "3", "memory": "2Gi"}}))
    assert ps.per_pod == {"cpu": 3000, "memory": 2 * 2**30}  # pod-level requests replace the sum
    assert {(a.target, a.step) for a in ps.adjustments} == {("pod", "limitAsRequest")}


def test_runtime_class_overhead_only_without_an_overhead_of_its_own():
    rc = {"metadata": {"name": "kata"}, "overhead": {"podFixed": {"cpu": "250m", "memory": "160Mi"}}}
    inputs = AdjustInputs("ns", [], runtime_classes={"kata": rc})
    ps = charge(spec(c(requests={"cpu": "1"}), runtimeClassName="kata"), count=3, adjust_inputs=inputs)
    assert ps.total == {"cpu": 3750, "memory": 3 * 160 * 2**20}
    assert ps.adjustments[0].source == "RuntimeClass kata"
    own = charge(spec(c(requests={"cpu": "1"}), runtimeClassName="kata", overhead={"cpu": "10m"}),
                 adjust_inputs=inputs)
    assert own.per_pod == {"cpu": 1010}
    missing = charge(spec(c(requests={"cpu": "1"}), runtimeClassName="nope"), adjust_inputs=inputs)
    assert missing.per_pod == {"cpu": 1000} and not missing.unknown


def test_unreadable_lists_make_cpu_and_memory_unknown_not_zero():
    lr_unknown = AdjustInputs("ns", None, "cannot list limitranges: forbidden")
    ps = charge(spec(c(requests={"cpu": "1"}), c("b", requests={"cpu": "1", "memory": "1Gi"})),
                adjust_inputs=lr_unknown)
    assert set(ps.unknown) == {"memory"} and "forbidden" in ps.unknown["memory"]
    assert ps.total == {"cpu": 2000}  # the unknown amount is not charged as 0, it is left out
    rc_unknown = AdjustInputs("ns", [], runtime_classes=None, runtime_classes_problem="forbidden")
    ps = charge(spec(c(requests={"cpu": "1", "memory": "1Gi"}), runtimeClassName="kata"), adjust_inputs=rc_unknown)
    assert set(ps.unknown) == {"cpu", "memory"} and ps.total == {}


def test_adjust_does_not_touch_its_input():
    original = spec(c(limits={"cpu": "1"}))
    adjusted = adjust(original, AdjustInputs("ns"))
    assert adjusted.spec["containers"][0]["resources"]["requests"] == {"cpu": "1"}
    assert "requests" not in original["containers"][0]["resources"]


# --------------------------------------------------------------------------- transformations
MIG_RULES = {"transformations": [
    {"input": "nvidia.com/mig-1g.5gb", "strategy": "Replace", "outputs": {"example.com/accel-memory": "5Gi",
                                                                          "example.com/credits": "2"}},
    {"input": "example.com/vgpu", "strategy": "Retain", "multiplyBy": "example.com/slots",
     "outputs": {"example.com/credits": "3"}},
], "excludeResourcePrefixes": ["example.org/"]}


def test_replace_retain_multiply_and_exclude():
    rules = ResourceRules.from_config(MIG_RULES)
    ps = charge(spec(c(requests={"nvidia.com/mig-1g.5gb": "2", "example.com/vgpu": "2", "example.com/slots": "4",
                                 "example.org/ignored": "7", "cpu": "1"})), rules=rules)
    assert ps.per_pod == {"cpu": 1000, "example.com/accel-memory": 10 * 2**30,
                          "example.com/credits": 2 * 2 + 2 * 4 * 3, "example.com/slots": 4, "example.com/vgpu": 2}
    assert ps.excluded == ["example.org/ignored"]
    by_input = {t.input: t for t in ps.transformations}
    assert by_input["example.com/vgpu"].multiplier == "4" and by_input["example.com/vgpu"].outputs == \
        {"example.com/credits": "24"}


def test_v018_retains_the_multiplied_input():
    rules = ResourceRules.from_config(MIG_RULES)
    ps = charge(spec(c(requests={"example.com/vgpu": "2", "example.com/slots": "4"})), rules=rules, version="0.18.4")
    assert ps.per_pod["example.com/vgpu"] == 8  # 0.18.4 keeps the input multiplied by multiplyBy
    assert charge(spec(c(requests={"example.com/vgpu": "2", "example.com/slots": "4"})),
                  rules=rules).per_pod["example.com/vgpu"] == 2


def test_generated_amount_adds_to_a_request_of_the_same_name_and_negatives_floor():
    rules = ResourceRules.from_config({"transformations": [
        {"input": "example.com/a", "outputs": {"cpu": "500m", "example.com/allowance": "-1"}}]})
    ps = charge(spec(c(requests={"example.com/a": "2", "cpu": "1"})), rules=rules)
    assert ps.per_pod["cpu"] == 2000 and ps.per_pod["example.com/allowance"] == 0
    old = charge(spec(c(requests={"example.com/a": "2", "cpu": "1"})), rules=rules, version="0.18.4")
    assert "cpu" in old.unknown and "map order" in old.unknown["cpu"]


def test_transformation_comes_before_the_dra_charge_of_the_same_name():
    rules = ResourceRules.from_config({"transformations": [
        {"input": "example.com/legacy-gpu", "strategy": "Replace", "outputs": {"example.com/gpu": "1"}}]})
    inputs = ChargeInputs(namespace="ns", semantics=Semantics.for_version("0.19.2"), gates=DRAGates(),
                          mappings=parse_mappings([
                              {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}]),
                          device_classes=[{"metadata": {"name": "gpu.example.com"}, "spec": {}}],
                          claim_templates={"one": {"metadata": {"name": "one"}, "spec": {"spec": {"devices": {
                              "requests": [{"name": "r", "exactly": {"deviceClassName": "gpu.example.com",
                                                                     "count": 2}}]}}}}},
                          slices=[], rules=rules)
    pod = spec(c(requests={"example.com/legacy-gpu": "1"}), resourceClaims=[
        {"name": "g", "resourceClaimTemplateName": "one"}])
    ps = ChargeEngine(inputs).compute([PodSet("main", 1, {"spec": pod})]).podsets[0]
    assert ps.per_pod == {"example.com/gpu": 3}


def test_invalid_transformation_is_reported_not_applied():
    rules = ResourceRules.from_config({"transformations": [{"input": "x", "outputs": {"y": "not-a-quantity"}}]})
    assert rules.problem and not rules.transformations


# ---------------------------------------------------------------------------- partial admission
def test_pod_sets_carry_min_count_and_admitted_count():
    wl = {"spec": {"podSets": [{"name": "main", "count": 4, "minCount": 2, "template": {"spec": spec(c())}}]},
          "status": {"admission": {"podSetAssignments": [{"name": "main", "count": 3}]}}}
    (ps,) = podsets_from_workload(wl)
    assert (ps.count, ps.min_count, ps.admitted_count) == (4, 2, 3)
    job = {"kind": "Job", "metadata": {"annotations": {"kueue.x-k8s.io/job-min-parallelism": "2"}},
           "spec": {"parallelism": 5, "template": {"spec": spec(c())}}}
    (ps,) = podsets_from_manifest(job)
    assert (ps.count, ps.min_count) == (5, 2) and can_be_partially_admitted([ps])


def test_admitted_count_is_what_is_charged():
    ps = charge(spec(c(requests={"cpu": "1"})), count=4, min_count=2, admitted_count=3)
    assert ps.total == {"cpu": 3000} and ps.count == 4


def test_search_walks_kueues_indexes():
    sets = [PodSet("a", 10, {}, 2), PodSet("b", 4, {}, 4), PodSet("c", 6, {}, 0)]  # deltas 8, 0, 6
    tried = []

    def fits(counts):
        tried.append(counts)
        return counts["a"] + counts["b"] + counts["c"] <= 13

    found = search(sets, fits)
    # total delta 14: index i lowers a by 8*i//14 and c by 6*i//14; the first index that fits is 7
    assert found.counts == {"a": 6, "b": 4, "c": 3}
    assert tried[0] == {"a": 6, "b": 4, "c": 3}  # sort.Search probes the middle first (index 7)
    assert found.minimum == {"a": 2, "b": 4, "c": 0}
    assert search(sets, lambda counts: False).counts is None
    assert search([PodSet("a", 3, {}, None)], lambda counts: True).counts is None  # nothing to reduce


# ----------------------------------------------------------------------------- admissibility
def test_default_limit_below_a_request_is_kueues_validation_message():
    from kubectl_kueue_dra.kueue.workloads.admissibility import admissibility_message

    lr = limit_range("defaults", {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"},
                                  "defaultRequest": {"cpu": "300m", "memory": "256Mi"}})
    a = adjust(spec(c(requests={"cpu": "2"}), c("side")), AdjustInputs("ns", [lr]))
    assert admissibility_message([a.spec], [lr]) == (
        'resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: '
        "requests must not exceed its limits")
    bounded = limit_range("bounds", {"type": "Container", "max": {"memory": "1Gi"}, "min": {"cpu": "200m"}},
                          {"type": "Pod", "max": {"cpu": "1"}})
    b = adjust(spec(c(requests={"cpu": "100m", "memory": "2Gi"}, limits={"memory": "2Gi"}),
                    c("side", requests={"cpu": "1"})), AdjustInputs("ns", [bounded]))
    assert admissibility_message([b.spec], [bounded]) == (
        "resources didn't satisfy LimitRange constraints: [spec.podSets[0].template.spec.containers[0]: "
        'Invalid value: ["memory"]: requests must not be above the limitRange max, '
        'spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be below the '
        'limitRange min, spec.podSets[0].template.spec: Invalid value: ["cpu"]: requests must not be above the '
        "limitRange max]")
    assert admissibility_message([adjust(spec(c(requests={"cpu": "1"})), AdjustInputs("ns", [lr])).spec], [lr]) is None


def test_compare_uses_the_admitted_count_and_skips_unknown_amounts():
    from kubectl_kueue_dra.commands.explain.recorded import compare
    from kubectl_kueue_dra.kueue.charge import ChargeResult

    ps = charge(spec(c(requests={"cpu": "1"})), count=4, min_count=2, admitted_count=3)
    assert compare(ChargeResult([ps]), {"main": {"cpu": "3"}}, "status.admission", set()) == []
    wrong = compare(ChargeResult([ps]), {"main": {"cpu": "4"}}, "status.admission", set())
    assert [f["code"] for f in wrong] == ["ChargeMismatch"] and "for 3 pods" in wrong[0]["message"]
    unknown = charge(spec(c()), adjust_inputs=AdjustInputs("ns", None, "forbidden"))
    assert compare(ChargeResult([unknown]), {"main": {"cpu": "300m", "memory": "1Gi"}}, "status.admission",
                   {"memory"}) == []


def test_rules_come_from_the_configmap_only():
    """The OpenShift operator renders only deviceClassMappings into Kueue's configuration: a Kueue
    CR's transformations never reach Kueue, and explain says so instead of applying them."""
    from kubectl_kueue_dra.commands.explain.context import resource_rules
    from kubectl_kueue_dra.kueue.config.load import KueueConfig

    resources = {"resources": {"transformations": MIG_RULES["transformations"], "excludeResourcePrefixes": ["x/"]}}
    rules, findings = resource_rules(KueueConfig("ConfigMap", "kueue-manager-config", "kueue-system", resources))
    assert set(rules.transformations) == {"nvidia.com/mig-1g.5gb", "example.com/vgpu"} and not findings
    rules, findings = resource_rules(KueueConfig("Kueue", "cluster", None, resources))
    assert rules == ResourceRules() and [f["code"] for f in findings] == ["ResourceRulesNotRendered"]


def test_partial_admission_report_asks_the_quota_verdict_per_count():
    from kubectl_kueue_dra.commands.explain.partial_report import partial_admission_part
    from kubectl_kueue_dra.commands.explain.queue_model import build
    from kubectl_kueue_dra.commands.explain.subject import Subject
    from kubectl_kueue_dra.kueue.charge import ChargeResult
    from kubectl_kueue_dra.kueue.scheduler.world import QueueWorld

    def queue(name, gpus, reserved="0", cohort=None, lending=None):
        res = {"name": "example.com/gpu", "nominalQuota": gpus}
        if lending is not None:
            res["lendingLimit"] = lending
        spec = {"resourceGroups": [{"coveredResources": ["example.com/gpu"],
                                    "flavors": [{"name": "f", "resources": [res]}]}]}
        if cohort:
            spec["cohortName"] = cohort
        return {"metadata": {"name": name}, "spec": spec, "status": {"flavorsReservation": [
            {"name": "f", "resources": [{"name": "example.com/gpu", "total": reserved}]}]}}

    sets = [PodSet("main", 8, {"spec": {}}, 2)]
    ps = charge(spec(c()), count=8, min_count=2)
    ps.per_pod = {"example.com/gpu": 1}
    result = ChargeResult([ps])
    subject = Subject("ns", sets, manifest={"kind": "Job", "metadata": {"name": "j"}})
    flavors = [{"metadata": {"name": "f"}, "spec": {}}]

    def part(own, *others, enabled=True, **kw):
        world = QueueWorld(**{"cluster_queues": [own, *others], "resource_flavors": flavors, "workloads": [],
                              "cohorts": [], **kw})
        return partial_admission_part(build(world, subject, result, own, set()), sets, result, False, enabled, set())

    doc, found = part(queue("q", "10", "5"))
    assert doc["counts"] == {"main": 5} and [f["code"] for f in found] == ["PartialAdmissionFits"]
    doc, found = part(queue("q", "1"))
    assert doc["possible"] is False and [f["code"] for f in found] == ["PartialAdmissionDoesNotFit"]
    assert "insufficient quota for example.com/gpu" in found[0]["message"]
    # in a cohort: the other queue lends 3 of its 4, so 1 + 3 = 4 pods fit
    own, other = queue("q", "1", cohort="c"), queue("other", "4", cohort="c", lending="3")
    doc, _ = part(own, other)
    assert doc["counts"] == {"main": 4}
    doc, _ = part(own, other, cohorts=None, unreadable={"Cohort": "forbidden"})
    assert doc["possible"] is None and "forbidden" in doc["reason"]
    assert part(own, enabled=False)[0]["reason"] == "the PartialAdmission feature gate is off"


def test_an_extended_resource_only_a_limit_range_default_adds_keeps_its_own_name():
    """Kueue decides on DRA before the defaults (oracle: lr-extended-resource-no-claim)."""
    inputs = ChargeInputs(namespace="ns", semantics=Semantics.for_version("0.19.2"), gates=DRAGates(),
                          mappings=parse_mappings([{"name": "example.com/gpu", "deviceClassNames": ["vgpu.example.com"]}]),
                          device_classes=[{"metadata": {"name": "vgpu.example.com"},
                                           "spec": {"extendedResourceName": "example.com/vgpu"}}],
                          claim_templates={}, slices=[],
                          adjust=AdjustInputs("ns", [limit_range("vgpu", {"type": "Container",
                                                                          "defaultRequest": {"example.com/vgpu": "1"}})]))
    res = ChargeEngine(inputs).compute([PodSet("main", 2, {"spec": spec(c(requests={"cpu": "1"}))})])
    assert res.podsets[0].total == {"cpu": 2000, "example.com/vgpu": 2}
    assert [n.code.name for n in res.notes] == ["DefaultedExtendedResource"]
