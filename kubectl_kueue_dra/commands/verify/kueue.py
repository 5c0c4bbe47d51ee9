"""Checks of Kueue itself: installed, version, configuration, and its DRA feature gates."""

from __future__ import annotations

from typing import Any

from ... import gates as g
from ...kueue.config.load import DEPLOYMENT_NAME
from ...kueue.names import DEFAULT_NAMESPACE, OPERATOR_NAMESPACE
from ...kueue.install.operator_render import RECONCILE_COMMAND, expected_render, stale_differences
from . import fixes
from .facts import Facts, parse_time
from .model import CLAIMS, EXTENDED, FAIL, PARTITIONABLE, PASS, SKIP, WARN
from .registry import Result, check, names

INSTALL_UPSTREAM = ("kubectl apply --server-side -f https://github.com/kubernetes-sigs/kueue/releases/"
                    "download/v0.19.2/manifests.yaml")
#: the Kueue CR the operator installs Kueue for: a cluster singleton named cluster, spec.config.integrations
#: .frameworks required (the operator's own example, alm-examples, is this one)
KUEUE_CR = ('{"apiVersion":"kueue.openshift.io/v1","kind":"Kueue","metadata":{"name":"cluster"},'
            '"spec":{"managementState":"Managed","config":{"integrations":{"frameworks":["BatchJob"]}}}}')
CREATE_KUEUE_CR = f"echo '{KUEUE_CR}' | oc create -f -"
INSTALL_OPENSHIFT = ("install the Red Hat build of Kueue operator (OperatorHub, or an OLM Subscription, in namespace "
                     f"{OPERATOR_NAMESPACE}), then create the Kueue CR named cluster, from which the operator "
                     f"installs and configures Kueue: {CREATE_KUEUE_CR} (on OpenShift, not upstream Kueue's manifests)")


def _version_text(f: Facts) -> str:
    i = f.install
    if not i.version:
        return "version unknown"
    text = f"Kueue {i.version}"
    if i.version_source and not i.version_source.startswith("operator"):
        text += f" ({i.version_source})"
    if i.operator_version:
        text += f", operator {i.operator_version}"
    return text


def _unknown(f: Facts, gate: str | None = None) -> Result | None:
    """A skip when Kueue's gate settings cannot be known (not installed, or not readable)."""
    if f.live and not f.kueue_served:
        return Result(SKIP, "Kueue is not installed")
    config_denied = f.denied("configmaps") or f.denied("kueues.kueue.openshift.io")
    if not f.config.found and (config_denied or f.install.deployment is None):
        denied = config_denied or f.denied("deployments.apps")
        return Result(SKIP, denied or "Kueue's configuration and Deployment were not found, so its feature "
                                      "gates are unknown")
    if (f.install.openshift and f.install.rendered_configmap is None and gate in g.KUEUE_NEEDS_K8S
            and f.denied("featuregates.config.openshift.io")):
        return Result(SKIP, f"{f.denied('featuregates.config.openshift.io')}: what the operator sets is unknown")
    return None


def _cr_missing(f: Facts) -> bool:
    """OpenShift with the operator's API served but no Kueue CR cluster: the operator installs nothing."""
    return bool(f.live and f.openshift and f.kueue_operator_served and f.kueue_cr is None
                and "Kueue" not in f.unreadable)


@check("kueue-installed", "kueue")
def installed(f: Facts) -> Result:
    i = f.install
    if _cr_missing(f):
        served = "Kueue's API (kueue.x-k8s.io) is served" if f.kueue_served else "Kueue is not installed"
        return Result(FAIL, f"the Red Hat build of Kueue operator is installed (kueues.kueue.openshift.io is served) "
                            f"but the Kueue CR cluster does not exist: {served}, and nothing configures it",
                      f"create the Kueue CR: {CREATE_KUEUE_CR}")
    if f.live and not f.kueue_served:
        return Result(FAIL, "Kueue is not installed: the API server does not serve kueue.x-k8s.io",
                      INSTALL_OPENSHIFT if f.openshift else INSTALL_UPSTREAM)
    if not f.live and not f.kueue_served:
        return Result(SKIP, "the snapshot has no Kueue objects (ClusterQueues, LocalQueues, configuration)")
    where = f"configuration in {f.config.describe()}" if f.config.found else \
        f"configuration {f.config.describe()}" if f.config.unreadable else "configuration not found"
    if i.deployment is None:
        denied = f.denied("deployments.apps")
        if denied:
            return Result(SKIP, f"{denied}; {where}")
        if not f.live:
            return Result(WARN, f"Kueue's objects are in the snapshot but its controller Deployment "
                                f"{DEPLOYMENT_NAME} is not; {where}",
                          "add it to the snapshot: kubectl get deployment -A -o yaml "
                          f"--field-selector metadata.name={DEPLOYMENT_NAME}")
        return Result(WARN, f"Kueue's API is served but no Deployment {DEPLOYMENT_NAME} was found, so "
                            f"nothing may be admitting workloads; {where}",
                      (INSTALL_OPENSHIFT if f.openshift else INSTALL_UPSTREAM)
                      + "; or pass --kueue-namespace if it runs under another name")
    meta = i.deployment.get("metadata") or {}
    status = i.deployment.get("status") or {}
    ref = f"Deployment {meta.get('namespace')}/{meta.get('name')}"
    wanted = (i.deployment.get("spec") or {}).get("replicas", 1)
    if status and wanted and not status.get("availableReplicas"):
        return Result(FAIL, f"{ref} has no available replica: Kueue is not running ({where})",
                      f"kubectl -n {meta.get('namespace')} describe deployment {meta.get('name')}")
    return Result(PASS, f"{_version_text(f)}; controller {ref}; {where}")


@check("kueue-version", "kueue")
def version(f: Facts) -> Result:
    if f.live and not f.kueue_served:
        return Result(SKIP, "Kueue is not installed")
    denied = f.denied("deployments.apps")
    if f.install.version is None and denied:
        return Result(SKIP, f"{denied}; Kueue 0.19 gate defaults are assumed")
    v = g.kueue_minor(f.install.version)
    extra = {"version": f.install.version, "versionFrom": f.install.version_source,
             "operatorVersion": f.install.operator_version}
    if v is None:
        return Result(WARN, "the Kueue version is unknown (no semver image tag, version label or operator "
                            "version); Kueue 0.19 gate defaults are assumed", None, extra)
    text = _version_text(f)
    if v < (0, 14):
        return Result(FAIL, f"{text} has no DRA quota support (0.14+; 0.18+ for counters)",
                      "upgrade Kueue to 0.19 or later", extra)
    if v < (0, 18):
        return Result(WARN, f"{text} has alpha DRA support under older gate names (DynamicResourceAllocation"
                            ", DRAExtendedResources); counter-based quota needs 0.18+",
                      "upgrade Kueue to 0.19 or later", extra)
    return Result(PASS, text, None, extra)


@check("kueue-config", "kueue")
def config(f: Facts) -> Result:
    c = f.config
    if f.live and not f.kueue_served:
        return Result(SKIP, "Kueue is not installed")
    if c.found and c.problem:
        return Result(FAIL, f"{c.problem}: Kueue does not start with it", fixes.edit_kueue_config(f, "the YAML"))
    if c.found:
        return _config_verdict(f)
    denied = c.unreadable or f.denied("configmaps") or f.denied("kueues.kueue.openshift.io")
    if denied:
        return Result(SKIP, denied)
    if _cr_missing(f):
        return Result(FAIL, "no Kueue configuration: the Kueue CR cluster does not exist",
                      f"create the Kueue CR: {CREATE_KUEUE_CR}")
    return Result(FAIL if f.live else SKIP,
                  f"no Kueue configuration found ({c.problem})",
                  (INSTALL_OPENSHIFT if f.openshift else "pass --kueue-namespace NS if Kueue runs elsewhere")
                  if f.live else None)


def _config_verdict(f: Facts) -> Result:
    """FAIL exactly where Kueue refuses to start with the text it reads (decoded strictly,
    feature gates, validation); a text with several YAML documents starts, on the first one."""
    c, check = f.config, f.install.config_check
    mapped = ", ".join(m.name for m in c.mappings) or "none"
    e = f.install.effective
    where = f"ConfigMap {e.namespace}/{e.name}" if e.kind == "ConfigMap" else c.describe()
    if check is None:
        return Result(PASS, f"{c.describe()}; deviceClassMappings: {mapped}")
    as_version = f"Kueue {check.minor}" + (" (assumed: the version is unknown)" if check.minor_assumed else "")
    extra: dict[str, Any] = {"checkedAs": check.minor, "versionAssumed": check.minor_assumed,
                             "documents": check.documents, "apiVersion": check.api_version}
    if check.refused:
        extra["problems"] = [{"field": p.path, "message": p.message, "stage": p.stage} for p in check.problems]
        return Result(FAIL, f"{where}: {as_version} does not start with it: {check.summary()}",
                      fixes.edit_kueue_config(f, "fix " + (check.problems[0].path or "the text")), extra)
    if check.documents > 1:
        return Result(WARN, f"{where} holds {check.documents} YAML documents: Kueue reads the first and ignores "
                            f"the rest; deviceClassMappings: {mapped}",
                      fixes.edit_kueue_config(f, "remove every document after the first"), extra)
    return Result(PASS, f"{c.describe()}; deviceClassMappings: {mapped}", None, extra)


def _problem_fix(f: Facts, problem: g.GateProblem) -> str:
    where = "--feature-gates" if f.kueue_gates.settings_source == "kueue-args" else "featureGates"
    if problem.gate in g.OBSOLETE_KUEUE_GATES:
        what = f"remove {problem.gate} from {where} (now {g.OBSOLETE_KUEUE_GATES[problem.gate]})"
    elif problem.gate in g.KUEUE_GATES:
        what = f"set {g.KUEUE_DRA}=true in {where}, or drop {problem.gate}"
    elif "both" in problem.message:
        what = "keep the gates in one place: drop --feature-gates from the Deployment or featureGates"
    else:
        what = f"fix {where}"
    if f.install.openshift:
        return f"the operator writes Kueue's featureGates; {what} is not possible through the Kueue CR"
    if where == "--feature-gates" or "both" in problem.message:
        ns = f.install.namespace or DEFAULT_NAMESPACE
        return f"kubectl -n {ns} edit deployment {DEPLOYMENT_NAME}  # {what}"
    return fixes.edit_kueue_config(f, what)


@check("kueue-feature-gates", "kueue")
def gate_settings(f: Facts) -> Result:
    unknown = _unknown(f)
    if unknown:
        return unknown
    k = f.kueue_gates
    extra = {"settingsFrom": k.settings_source}
    errors = [p for p in k.problems if p.severity == "error"]
    warnings = [p for p in k.problems if p.severity == "warning"]
    where = {"kueue-args": "--feature-gates of the controller", "kueue-config": f.install.config_gates_where,
             "operator": "set by the operator", None: "none set, Kueue's defaults"}[k.settings_source]
    if errors or warnings:
        return Result(FAIL if errors else WARN, "; ".join(p.message for p in errors + warnings),
                      _problem_fix(f, (errors + warnings)[0]), extra)
    return Result(PASS, f"feature-gate settings are valid ({where})", None, extra)


def _gate_extra(state: g.GateState) -> dict[str, Any]:
    return {"gate": state.name, "state": state.state, "learnedFrom": state.learned_from}


def _gate_ok(state: g.GateState, note: str = "") -> Result:
    return Result(PASS, f"{state.name} is {state.state} ({state.how()}){note}", extra=_gate_extra(state))


@check("kueue-gate-KueueDRAIntegration", "kueue")
def dra_integration(f: Facts) -> Result:
    unknown = _unknown(f, g.KUEUE_DRA)
    if unknown:
        return unknown
    state = f.kueue_gates.gates[g.KUEUE_DRA]
    if state.on:
        return _gate_ok(state)
    reject = f.kueue_gates.on(g.KUEUE_REJECT)
    effect = ("workloads with ResourceClaims are rejected" if reject else
              "workloads with ResourceClaims are admitted with no device charged")
    return Result(FAIL, f"{state.name} is off ({state.how()}): Kueue does not count DRA devices; {effect}",
                  fixes.set_kueue_gate(f, g.KUEUE_DRA), _gate_extra(state))


@check("kueue-gate-KueueDRARejectWorkloadsWhenDRADisabled", "kueue")
def reject_when_disabled(f: Facts) -> Result:
    unknown = _unknown(f, g.KUEUE_REJECT)
    if unknown:
        return unknown
    state = f.kueue_gates.gates[g.KUEUE_REJECT]
    if f.kueue_gates.on(g.KUEUE_DRA):
        return _gate_ok(state, "; it matters only while KueueDRAIntegration is off")
    if state.on:
        return _gate_ok(state, ": with KueueDRAIntegration off, workloads with ResourceClaims are rejected "
                               "rather than admitted uncounted")
    return Result(FAIL, f"{state.name} is off ({state.how()}) and KueueDRAIntegration is off: workloads "
                        "with ResourceClaims are admitted without charging their devices (GPUs bypass quota)",
                  fixes.set_kueue_gate(f, g.KUEUE_REJECT), _gate_extra(state))


@check("kueue-gate-KueueDRAIntegrationExtendedResource", "kueue", paths=(EXTENDED,))
def extended(f: Facts) -> Result:
    unknown = _unknown(f, g.KUEUE_EXTENDED)
    if unknown:
        return unknown
    state = f.kueue_gates.gates[g.KUEUE_EXTENDED]
    if state.on:
        return _gate_ok(state)
    ern = sorted({str((dc.get("spec") or {}).get("extendedResourceName")) for dc in f.extended_classes()})
    what = f"requests for {names(ern)}" if ern else "extended-resource requests"
    return Result(FAIL, f"{state.name} is off ({state.how()}): {what} are not resolved to their DeviceClass; "
                        "they are charged under the raw name, never through the DeviceClass mapping",
                  fixes.set_kueue_gate(f, g.KUEUE_EXTENDED), _gate_extra(state))


@check("kueue-gate-KueueDRAIntegrationPartitionableDevices", "kueue", paths=(PARTITIONABLE,))
def partitionable(f: Facts) -> Result:
    unknown = _unknown(f, g.KUEUE_PARTITIONABLE)
    if unknown:
        return unknown
    state = f.kueue_gates.gates[g.KUEUE_PARTITIONABLE]
    if state.on:
        return _gate_ok(state)
    problems = g.sources_problems(f.kueue_gates, counter_sources=f.counter_sources(), capacity_sources=False)
    message = problems[0].message if problems else "counter-based quota for partitionable devices is off"
    return Result(FAIL, f"{state.name} is off ({state.how()}): {message}",
                  fixes.set_kueue_gate(f, g.KUEUE_PARTITIONABLE), _gate_extra(state))


@check("kueue-gate-KueueDRAIntegrationConsumableCapacity", "kueue", paths=(PARTITIONABLE,),
       applies=lambda f: f.capacity_sources())
def consumable(f: Facts) -> Result:
    unknown = _unknown(f, g.KUEUE_CONSUMABLE)
    if unknown:
        return unknown
    state = f.kueue_gates.gates[g.KUEUE_CONSUMABLE]
    if state.on:
        return _gate_ok(state)
    problems = g.sources_problems(f.kueue_gates, counter_sources=False, capacity_sources=True)
    return Result(FAIL, f"{state.name} is off ({state.how()}): {problems[0].message}",
                  fixes.set_kueue_gate(f, g.KUEUE_CONSUMABLE), _gate_extra(state))


@check("kueue-config-loaded", "kueue", paths=(CLAIMS, PARTITIONABLE),
       applies=lambda f: f.config.kind == "ConfigMap")
def config_loaded(f: Facts) -> Result:
    """Upstream Kueue reads deviceClassMappings only at start (the OpenShift operator rolls the pods)."""
    if f.pods is None:
        return Result(SKIP, f.unreadable.get("Pod") or ("Kueue's pods could not be read" if f.live
                                                       else "the snapshot has no Kueue pods"))
    times = [parse_time((p.get("status") or {}).get("startTime")) for p in f.pods]
    started = [t for t in times if t is not None]
    if not started:
        return Result(SKIP, "no running Kueue pod found, so when it read its configuration is unknown")
    changed = f.config_changed
    if changed is None:
        return Result(SKIP, "the configuration's last change time is unknown")
    newest = max(started)
    if changed > newest:
        return Result(WARN, f"the configuration changed at {changed:%Y-%m-%d %H:%M:%S}Z, after the newest Kueue "
                            f"pod started ({newest:%Y-%m-%d %H:%M:%S}Z): Kueue reads deviceClassMappings only "
                            "at start", fixes.restart_kueue(f))
    return Result(PASS, "Kueue started after the last configuration change")


@check("openshift-kueue-status", "kueue", applies=lambda f: f.install.openshift)
def operator_status(f: Facts) -> Result:
    if "Kueue" in f.unreadable:
        return Result(SKIP, f.unreadable["Kueue"])
    conditions = {c.get("type"): c for c in ((f.kueue_cr or {}).get("status") or {}).get("conditions") or []}
    if not conditions:
        return Result(SKIP, "the Kueue CR has no status conditions (the operator has not reconciled it"
                            + (")" if f.live else ", or the snapshot lacks them)"))
    degraded = conditions.get("Degraded") or {}
    available = conditions.get("Available") or {}
    if degraded.get("status") == "True":
        message = degraded.get("message") or degraded.get("reason") or "Degraded"
        return Result(FAIL, f"the Kueue CR is Degraded ({degraded.get('reason')}): {message}",
                      _degraded_fix(message), {"degradedReason": degraded.get("reason"), "degradedMessage": message})
    if available.get("status") == "False":
        return Result(FAIL, f"the Kueue CR is not Available ({available.get('reason')}): "
                            f"{available.get('message') or ''}".rstrip(": "),
                      f"oc -n {f.install.namespace or 'openshift-kueue-operator'} get pods")
    return Result(PASS, "the Kueue CR is Available and not Degraded")


PD_MISSING = "requires the DRAPartitionableDevices K8s feature gate"


def _degraded_fix(message: str) -> str:
    if PD_MISSING in message:
        return ("add DRAPartitionableDevices to FeatureGate cluster spec.customNoUpgrade.enabled (featureSet "
                "CustomNoUpgrade, which cannot be undone), or drop the counter sources (oc kueue-dra map remove "
                f"NAME, then map set without --counter); then make the operator re-read it: {RECONCILE_COMMAND}")
    return ("oc get kueues.kueue.openshift.io cluster -o yaml  # see status.conditions; install what "
            "MissingDependencies lists")


@check("openshift-kueue-render", "kueue", applies=lambda f: f.install.openshift)
def operator_render(f: Facts) -> Result:
    """The rendered ConfigMap is what the operator would render now from the CR and FeatureGate."""
    if f.kueue_cr is None:
        return Result(SKIP, f.unreadable.get("Kueue") or "the Kueue CR cluster was not read")
    rendered = f.install.effective.document if f.install.effective.rendered else None
    if rendered is None:
        return Result(SKIP, f.denied("configmaps") or "the operator's rendered ConfigMap kueue-manager-config was "
                                                      "not found (the operator has not rendered it yet)")
    openshift = f.install.operator_openshift if f.install.operator_openshift is not None else f.openshift
    expected = expected_render(f.kueue_cr, f.feature_gate, openshift=openshift)
    rendered_gates = dict(rendered.get("featureGates") or {})
    extra = {"expectedFeatureGates": expected.feature_gates, "renderedFeatureGates": rendered_gates,
             "gatesFrom": expected.why, "gatesKnown": expected.gates_known}
    where = f"ConfigMap {f.install.rendered_configmap}"
    differences = stale_differences(expected, rendered)
    extra["differences"] = differences
    if differences:
        return Result(WARN, f"{where} is stale: " + "; ".join(differences) + ". Kueue runs with what is "
                            "rendered; the operator re-renders on the next Kueue CR change (it does not watch "
                            "the FeatureGate) or its 5-minute resync", RECONCILE_COMMAND, extra)
    gates = ", ".join(f"{k}={str(v).lower()}" for k, v in sorted(rendered_gates.items())) or "none"
    return Result(PASS, f"{where} is what the operator renders from the Kueue CR and FeatureGate "
                        f"(featureGates: {gates}; {expected.why})", None, extra)
