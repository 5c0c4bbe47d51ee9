"""The whole OpenShift chain: Kueue CR + FeatureGate → the real operator → the ConfigMap it renders
→ the real Kueue started with that rendered configuration → ``explain`` against what Kueue recorded.

Each OpenShift world is an oracle world (``oracle_scenarios``: DeviceClasses, ResourceSlices,
mappings) plus a FeatureGate; its mappings go into the Kueue CR in the CR's dialect. For each
world ``OperatorKueueRunner.ensure``:

1. stops Kueue, writes the CR and the FeatureGate, (re)starts the operator and waits until it has
   rendered the CR's mappings and stopped writing (its startup sync reads the FeatureGate);
2. stops the operator and removes its webhook configurations and visibility APIServices: they
   name a Service no out-of-cluster process is behind (the oracle runs Kueue without them too);
3. starts Kueue with the rendered ConfigMap (``KueueRunner.rendered_configuration``).

The rest is the oracle's own loop (``oracle.run_matrix``): the same settling, the same judging.
Scenario namespaces carry ``kueue.openshift.io/managed=true``: the rendered configuration manages
Jobs only there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from testenv import operator_harness as oh
from testenv import oracle_scenarios as os_
from testenv.kueue_harness import KueueRunner, KueueSetup
from testenv.oracle import setup_of

MANAGED = {"kueue.openshift.io/managed": "true"}
EXT, PD = "DRAExtendedResource", "DRAPartitionableDevices"
WEBHOOKS = ("mutatingwebhookconfiguration/kueue-mutating-webhook-configuration",
            "validatingwebhookconfiguration/kueue-validating-webhook-configuration",
            "apiservice/v1beta1.visibility.kueue.x-k8s.io", "apiservice/v1beta2.visibility.kueue.x-k8s.io")


def cr_dialect(mappings: list[dict]) -> list[dict]:
    """Kueue's deviceClassMappings as the Kueue CR writes them (``type`` discriminators)."""
    out = []
    for m in mappings:
        entry = {"name": m["name"], "deviceClassNames": list(m["deviceClassNames"])}
        if m.get("sources"):
            entry["sources"] = [{"type": "Counter", "counter": {
                "name": s["counter"]["name"], "driver": s["counter"]["driver"],
                "deviceSelector": {"type": "CEL", "cel": dict(s["counter"]["deviceSelector"]["cel"])}}}
                for s in m["sources"]]
        out.append(entry)
    return out


@dataclass
class OpenShiftWorld:
    world: os_.World
    feature_gate: tuple | None  # (featureSet, enabled gates) for oh.feature_gate; None: no object
    rendered: dict = field(default_factory=dict)  # what the operator rendered for it (filled by the run)


def _ocp(world: os_.World, feature_gate: tuple | None) -> OpenShiftWorld:
    world.version = os_.V19
    world.gates = {"FeatureGate " + json.dumps(feature_gate): True}  # keeps the worlds' setups distinct
    return OpenShiftWorld(world, feature_gate)


def worlds() -> list[OpenShiftWorld]:
    mig = os_.mig_world("ocp-mig")
    # the CRD allows a DeviceClass in one mapping only: no second counter mapping for mig.nvidia.com
    mig.mappings = [m for m in mig.mappings if m["name"] != "gpu.sm"]
    return [
        _ocp(os_.devices_world("ocp-devices"), ("CustomNoUpgrade", (EXT,))),
        _ocp(mig, ("CustomNoUpgrade", (EXT, PD))),
        _ocp(os_.devices_world("ocp-techpreview", mappings=[os_.DEVICES_MAPPINGS[0]]), ("TechPreviewNoUpgrade", ())),
    ]


DEVICES = ("template-one", "template-count", "classes-one-mapping", "two-claims", "er-mapped", "er-unmapped",
           "unmapped-class", "over-quota", "quota-used")
MIG = ("mig-one", "mig-max", "mig-counter-sets", "er-on-counter-class", "mig-over-quota")
TECHPREVIEW = ("template-one", "er-mapped")


def scenarios(ocp_worlds: list[OpenShiftWorld]) -> list[os_.Scenario]:
    devices, mig, techpreview = (w.world for w in ocp_worlds)
    picked = [s for s in os_._devices_scenarios(devices, "ocp/") if s.id[4:] in DEVICES]
    picked += [s for s in os_._mig_scenarios(mig, "ocp/") if s.id[4:] in MIG]
    picked += [s for s in os_._devices_scenarios(techpreview, "ocp-techpreview/") if s.id[16:] in TECHPREVIEW]
    for s in picked:
        s.namespace_labels = {**s.namespace_labels, **MANAGED}
    return picked


class OperatorKueueRunner(KueueRunner):
    """Kueue run from what the real operator rendered for the world (see the module docstring)."""

    def __init__(self, cluster, binary, version, operator: oh.OperatorRunner, ocp_worlds: list[OpenShiftWorld]):
        super().__init__(cluster, binary, version)
        self.operator = operator
        self.by_setup = {setup_of(w.world): w for w in ocp_worlds}
        assert len(self.by_setup) == len(ocp_worlds), "two OpenShift worlds with one Kueue setup"
        self.operator_seconds: list[float] = []

    def ensure(self, setup: KueueSetup) -> bool:
        if self.setup == setup and self._proc is not None and self._proc.alive():
            return False
        self.stop()
        ocp = self.by_setup[setup]
        ocp.rendered = self.render(ocp)
        restarted = super().ensure(KueueSetup(rendered=ocp.rendered["text"]))
        self.setup = setup
        return restarted

    def detach_operator(self) -> None:
        """Stop the operator and remove the webhook configurations and APIServices it made."""
        self.operator.stop()
        self.cluster.kubectl("delete", "--ignore-not-found", "--wait=true", *WEBHOOKS)

    def render(self, ocp: OpenShiftWorld) -> dict:
        import time

        t0 = time.monotonic()
        op, c = self.operator, self.cluster
        op.stop()
        oh.set_feature_gate(c, ocp.feature_gate)
        oh.put_kueue_cr(c, oh.kueue_cr(mappings=cr_dialect(ocp.world.mappings)))
        op.start()
        want = json.loads(json.dumps(ocp.world.mappings, sort_keys=True))
        op.wait_rendered(lambda r: json.loads(json.dumps(r.mappings, sort_keys=True)) == want,
                         f"the operator's render of world {ocp.world.name}", timeout=oh.START_TIMEOUT)
        op.wait_idle()
        rendered = op.rendered()
        self.detach_operator()
        self.operator_seconds.append(round(time.monotonic() - t0, 1))
        return {"text": rendered.text, "featureGates": rendered.feature_gates}


def run(operator: oh.OperatorRunner, kueue_binary, log=print):
    """Run the OpenShift matrix on the operator's cluster. (report, worlds, Kueue runner); close the
    runner when done. Leaves the operator stopped."""
    from testenv.oracle import run_matrix

    ocp = worlds()
    runner = OperatorKueueRunner(operator.cluster, kueue_binary, os_.V19, operator, ocp)
    try:
        runner.detach_operator()  # its webhooks name a Service nothing is behind
        report = run_matrix(operator.cluster, {os_.V19: runner}, scenarios(ocp), log=log)
    except BaseException:
        runner.close()
        raise
    log(f"operator renders {runner.operator_seconds} s; Kueue starts {runner.start_seconds} s")
    return report, ocp, runner


def markdown(report, ocp: list[OpenShiftWorld], when: str, k8s: str) -> str:
    """The section of docs/accuracy.md (``scripts/oracle --openshift --update-docs``)."""
    from testenv.oracle import table

    lines = [f"`scripts/oracle --openshift`: the Red Hat build of Kueue operator 1.5.0 (dc3b6577) renders; "
             f"Kueue {os_.V19} runs the render on kube-apiserver {k8s}; {len(report.rows)} workloads, "
             f"matrix run {report.seconds:.0f} s ({when}).", "",
             "| world | FeatureGate | featureGates the operator rendered |", "|---|---|---|"]
    for w in ocp:
        fg = "none" if w.feature_gate is None else \
            f"{w.feature_gate[0]}" + (f" enabled {', '.join(w.feature_gate[1])}" if w.feature_gate[1] else "")
        gates = ", ".join(f"{k}: {str(v).lower()}" for k, v in sorted((w.rendered.get("featureGates") or {}).items()))
        lines.append(f"| {w.world.name} | {fg} | {gates or 'none'} |")
    return "\n".join(lines) + "\n\n" + table(report, markdown=True) + "\n"
