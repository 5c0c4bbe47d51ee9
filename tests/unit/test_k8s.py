"""The one-of-each Kubernetes helpers: label selectors, name formats, unit scales, and the notion
of a namespace Kueue manages that explain and verify share."""

import pytest

from kubectl_kueue_dra.dra.units import unit_scale
from kubectl_kueue_dra.k8s.labels import NAME_LABEL, namespace_labels, selector_matches
from kubectl_kueue_dra.k8s.names import capacity_name_error, dns_label_error, dns_subdomain_error, qualified_name_error
from kubectl_kueue_dra.kueue.queues.namespaces import DEFAULT_SELECTOR, EVERY, OPENSHIFT, SELECTOR, namespace_rule


def expr(key, op, *values):
    return {"matchExpressions": [{"key": key, "operator": op, **({"values": list(values)} if values else {})}]}


# ---- label selectors (metav1.LabelSelectorAsSelector) ------------------------------------------
LABELS = {"team": "x", "tier": "gpu"}


def test_empty_selector_matches_everything_and_null_nothing():
    assert selector_matches({}, LABELS) and selector_matches({}, {})
    assert not selector_matches(None, LABELS)


@pytest.mark.parametrize("selector,matches", [
    ({"matchLabels": {"team": "x"}}, True),
    ({"matchLabels": {"team": "y"}}, False),
    ({"matchLabels": {"absent": "x"}}, False),
    ({"matchLabels": {"team": "x", "tier": "cpu"}}, False),  # every pair must hold
    (expr("team", "In", "x", "y"), True),
    (expr("team", "In", "y"), False),
    (expr("absent", "In", "x"), False),
    (expr("team", "NotIn", "x"), False),
    (expr("team", "NotIn", "y"), True),
    (expr("absent", "NotIn", "x"), True),  # NotIn holds for a missing key
    (expr("tier", "Exists"), True),
    (expr("absent", "Exists"), False),
    (expr("absent", "DoesNotExist"), True),
    (expr("tier", "DoesNotExist"), False),
    (expr("team", "Gt", "1"), False),  # an operator Kubernetes rejects selects nothing
    ({"matchLabels": {"team": "x"}, **expr("tier", "In", "gpu")}, True),
    ({"matchLabels": {"team": "x"}, **expr("tier", "NotIn", "gpu")}, False),  # labels and expressions AND
])
def test_selector_requirements(selector, matches):
    assert selector_matches(selector, LABELS) is matches


def test_selector_values_compare_as_strings():
    assert selector_matches({"matchLabels": {"n": 1}}, {"n": "1"})
    assert selector_matches(expr("n", "In", 1, 2), {"n": "2"})


def test_namespace_labels_carry_the_name_label():
    assert namespace_labels({"metadata": {"name": "a", "labels": {"x": "y"}}}) == {NAME_LABEL: "a", "x": "y"}
    assert namespace_labels({"metadata": {"name": "a"}}) == {NAME_LABEL: "a"}


# ---- name formats ------------------------------------------------------------------------------
@pytest.mark.parametrize("value,ok", [("a", True), ("a-b-1", True), ("-a", False), ("a-", False), ("A", False),
                                      ("a.b", False), ("a" * 63, True), ("a" * 64, False), ("", False)])
def test_dns_label(value, ok):
    assert (dns_label_error(value) is None) is ok


@pytest.mark.parametrize("value,ok", [("gpu.nvidia.com", True), ("a", True), ("a..b", False), (".a", False),
                                      ("GPU.com", False), ("a" * 253, True), ("a" * 254, False)])
def test_dns_subdomain(value, ok):
    assert (dns_subdomain_error(value) is None) is ok


@pytest.mark.parametrize("value,ok", [("nvidia.com/gpu", True), ("gpu", True), ("Gpu_1.x", True), ("a/b/c", False),
                                      ("/gpu", False), ("nvidia.com/", False), ("_gpu", False),
                                      ("NVIDIA.com/gpu", False), ("x/" + "a" * 64, False)])
def test_qualified_name(value, ok):
    assert (qualified_name_error(value) is None) is ok


@pytest.mark.parametrize("value,ok", [("memory", True), ("example.com/memory", True), ("mem-ory", False),
                                      ("1mem", False), ("a" * 33, False), ("/memory", False)])
def test_capacity_name(value, ok):
    assert (capacity_name_error(value) is None) is ok


# ---- unit scales: one classification for map and verify ----------------------------------------
@pytest.mark.parametrize("text,family,shown", [
    ("80Gi", "binary", "binary (Gi)"),
    ("1.5Ti", "binary", "binary (Ti)"),
    (".5Gi", "binary", "binary (Gi)"),
    ("80G", "decimal", "decimal (G)"),
    ("500m", "decimal", "decimal (m)"),  # a decimal SI scale like any other
    ("1e3", "decimal", "decimal (e3)"),  # an exponent scales by powers of ten: 1e3 is 1k
    ("5E9", "decimal", "decimal (E9)"),
    ("1E", "decimal", "decimal (E)"),  # E alone is exa, not an exponent
    ("80", "plain", "plain number"),
    ("+80", "plain", "plain number"),
    (80, "plain", "plain number"),  # YAML numbers
    (1.5, "plain", "plain number"),
    ("0", "zero", "zero"),
    ("0Gi", "zero", "zero (Gi)"),
    ("1K", "unparseable", "unparseable"),  # not a Kubernetes suffix
    ("80 Gi", "unparseable", "unparseable"),
    ("abc", "unparseable", "unparseable"),
    (True, "unparseable", "unparseable"),
])
def test_unit_scale(text, family, shown):
    scale = unit_scale(text)
    assert scale.family == family and str(scale) == shown
    assert scale.comparable is (family in ("binary", "decimal", "plain"))


# ---- which namespaces Kueue manages ------------------------------------------------------------
def ns(name, **labels):
    return {"metadata": {"name": name, "labels": labels}}


def test_openshift_manages_the_labelled_namespaces_whatever_the_version():
    rule = namespace_rule(openshift=True, configuration={}, kueue_version="0.12.0", kueue_namespace=None)
    assert rule.how == OPENSHIFT
    assert rule.manages(ns("a", **{"kueue.openshift.io/managed": "true"}))
    assert not rule.manages(ns("a", **{"kueue.openshift.io/managed": "false"})) and not rule.manages(ns("a"))


def test_upstream_default_selector_excludes_kube_system_and_kueues_namespace():
    rule = namespace_rule(openshift=False, configuration={}, kueue_version="0.19.2", kueue_namespace="kq")
    assert rule.how == DEFAULT_SELECTOR
    assert rule.manages(ns("team-a")) and not rule.manages(ns("kube-system")) and not rule.manages(ns("kq"))
    # the Configuration's own namespace field wins over where the Deployment runs
    rule = namespace_rule(openshift=False, configuration={"namespace": "elsewhere"}, kueue_version="0.19.2",
                          kueue_namespace="kq")
    assert rule.manages(ns("kq")) and not rule.manages(ns("elsewhere"))


def test_upstream_configured_selector_and_empty_selector():
    cfg = {"managedJobsNamespaceSelector": {"matchLabels": {"kueue": "on"}}}
    rule = namespace_rule(openshift=False, configuration=cfg, kueue_version="0.19.2", kueue_namespace=None)
    assert rule.how == SELECTOR and rule.manages(ns("a", kueue="on")) and not rule.manages(ns("a"))
    # {} is set (Kueue defaults only a null selector): every namespace, kube-system too
    rule = namespace_rule(openshift=False, configuration={"managedJobsNamespaceSelector": {}},
                          kueue_version="0.19.2", kueue_namespace=None)
    assert rule.how == SELECTOR and rule.manages(ns("kube-system"))


def test_before_0_15_labelled_jobs_are_managed_everywhere():
    cfg = {"managedJobsNamespaceSelector": {"matchLabels": {"kueue": "on"}}}
    rule = namespace_rule(openshift=False, configuration=cfg, kueue_version="0.14.3", kueue_namespace=None)
    assert rule.how == EVERY and rule.manages(ns("kube-system"))
    # an unknown version is the assumed one (0.19): the selector applies
    rule = namespace_rule(openshift=False, configuration=cfg, kueue_version=None, kueue_namespace=None)
    assert rule.how == SELECTOR


def test_explain_reports_a_namespace_outside_the_default_selector():
    """explain (commands/explain/queue.queue_findings) asks the same rule as verify: upstream Kueue
    0.19 with no managedJobsNamespaceSelector does not manage its own namespace."""
    from kubectl_kueue_dra.commands.explain.queue import QueuePath, queue_findings

    rule = namespace_rule(openshift=False, configuration={}, kueue_version="0.19.2", kueue_namespace="kueue-system")
    lq = {"spec": {"clusterQueue": "cq"}}
    cq = {"metadata": {"name": "cq"}, "spec": {"namespaceSelector": {}}}

    def codes(namespace):
        path = QueuePath(local_queue_name="lq", local_queue=lq, cluster_queue=cq, namespace=ns(namespace), managed=rule)
        return [f["code"] for f in queue_findings(path, {}, namespace)]

    assert "NamespaceNotManaged" in codes("kueue-system")
    assert "NamespaceNotManaged" not in codes("team-a")
    message = queue_findings(QueuePath(local_queue_name="lq", local_queue=lq, cluster_queue=cq,
                                       namespace=ns("kube-system"), managed=rule), {}, "kube-system")[0]["message"]
    assert "default managedJobsNamespaceSelector" in message


@pytest.mark.parametrize("selector, labels, selected", [
    ({}, {}, True),
    (None, {}, False),  # Kueue: LabelSelectorAsSelector(nil) selects nothing
    ({"matchLabels": {"team": "ml"}}, {}, False),
    ({"matchLabels": {"team": "ml"}}, {"team": "ml"}, True),
])
def test_cluster_queue_namespace_selector_as_kueue_reads_it(selector, labels, selected):
    from kubectl_kueue_dra.commands.explain.queue import QueuePath, queue_findings
    from kubectl_kueue_dra.kueue.workloads.status import NAMESPACE_MISMATCH

    rule = namespace_rule(openshift=False, configuration={}, kueue_version="0.19.2", kueue_namespace="kueue-system")
    spec = {} if selector is None else {"namespaceSelector": selector}
    cq = {"metadata": {"name": "cq"}, "spec": spec}
    namespace = {"metadata": {"name": "team-a", "labels": labels}}
    found = [f for f in queue_findings(QueuePath(local_queue_name="lq", local_queue={"spec": {"clusterQueue": "cq"}}, cluster_queue=cq,
                                                 namespace=namespace, managed=rule),
                                       {}, "team-a") if f["code"] == "NamespaceNotSelected"]
    assert bool(found) is not selected
    if found:
        assert NAMESPACE_MISMATCH in found[0]["message"]
        assert ("has no namespaceSelector" in found[0]["message"]) is (selector is None)
