"""Flavor scenarios: which ResourceFlavor Kueue picks, or why none.

Kueue's flavor assigner (both versions) tries a resource group's flavors in spec order; a flavor is
skipped when one of its ``nodeTaints`` (NoSchedule/NoExecute) is tolerated neither by the pod nor
by the flavor's own ``tolerations``, then when the pod's nodeSelector or required node affinity,
reduced to the keys of that flavor's ``nodeLabels`` (a term left empty drops the whole affinity),
does not match the labels; then the quota decides. ``flavorFungibility.whenCanBorrow``
(MayStopSearch by default) stops at a flavor that fits by borrowing; TryNextFlavor looks for one
that fits without. Every resource group needs a flavor: the first group without one is the
message.
"""

from __future__ import annotations

from testenv.queue.model import Expect, QueueScenario, admitted, pending
from testenv.queue.objects import (
    cluster_queue, flavor, group, job, pod, queue_spec, quota, required_affinity, taint, toleration,
)

ON = {"instance": "on-demand"}
SPOT = {"instance": "spot"}
SPOT_TAINT = taint("spot", "true")
WIDGET = "example.com/widget"


def _two(first: dict, second: dict, first_q: str = "4", second_q: str = "4") -> tuple[list[dict], dict]:
    """Two flavors of one cpu resource group, in that order."""
    names = [f["metadata"]["name"].removeprefix("{cq}-") for f in (first, second)]
    return [first, second], queue_spec(group(["cpu"], quota(names[0], {"cpu": first_q}), quota(names[1], {"cpu": second_q})))


def _one(spec: dict, *, setup, cq, title, sid, expect: Expect, subject: str = "job/train") -> QueueScenario:
    return QueueScenario(sid, title, "flavors", cq, [subject], [[job(subject.split("/")[1], spec)]],
                         {subject: expect}, setup=setup)


def scenarios() -> list[QueueScenario]:
    out = []
    setup, cq = _two(flavor("ondemand", ON), flavor("spot", SPOT))
    out.append(_one(pod(node_selector=SPOT), setup=setup, cq=cq, sid="flavor-node-selector",
                    title="nodeSelector instance=spot: the first flavor's labels do not match, the second's do",
                    expect=admitted(cpu="spot")))
    out.append(_one(pod(affinity=required_affinity([("instance", "In", ["gpu-box"])])), setup=setup, cq=cq,
                    sid="flavor-affinity-no-match",
                    title="required node affinity instance In [gpu-box]: no flavor's labels match",
                    expect=pending("flavor {cq}-ondemand doesn't match node affinity, "
                                   "flavor {cq}-spot doesn't match node affinity")))
    out.append(_one(pod(affinity=required_affinity([("instance", "In", ["gpu-box"])],
                                                   [("instance", "NotIn", ["on-demand"])])),
                    setup=setup, cq=cq, sid="flavor-affinity-or-terms",
                    title="two affinity terms (ORed): gpu-box, or not on-demand: the second flavor matches term 2",
                    expect=admitted(cpu="spot")))
    out.append(_one(pod(affinity=required_affinity([("zone", "In", ["z1"])])), setup=setup, cq=cq,
                    sid="flavor-affinity-foreign-key",
                    title="affinity on zone, a key no flavor labels: dropped, the first flavor is taken",
                    expect=admitted(cpu="ondemand")))

    setup, cq = _two(flavor("spot", SPOT, taints=[SPOT_TAINT]), flavor("ondemand", ON))
    out.append(_one(pod(), setup=setup, cq=cq, sid="flavor-taint-skipped",
                    title="first flavor tainted spot=true:NoSchedule, no toleration: the second is taken",
                    expect=admitted(cpu="ondemand")))
    out.append(_one(pod(tolerations=[toleration("spot")]), setup=setup, cq=cq, sid="flavor-taint-tolerated",
                    title="first flavor tainted, the pod tolerates spot: the first is taken",
                    expect=admitted(cpu="spot")))
    only = queue_spec(group(["cpu"], quota("spot", {"cpu": "4"})))
    out.append(_one(pod(), setup=[flavor("spot", SPOT, taints=[SPOT_TAINT])], cq=only, sid="flavor-taint-untolerated",
                    title="the only flavor is tainted and the pod does not tolerate it",
                    expect=pending("untolerated taint {spot true NoSchedule <nil>} in flavor {cq}-spot")))
    out.append(_one(pod(), setup=[flavor("spot", SPOT, taints=[SPOT_TAINT], tolerations=[toleration("spot", "true")])],
                    cq=only, sid="flavor-own-toleration",
                    title="the flavor's own tolerations cover its taint: admitted without a pod toleration",
                    expect=admitted(cpu="spot")))

    setup, cq = _two(flavor("small"), flavor("big"), "1", "4")
    out.append(_one(pod("2"), setup=setup, cq=cq, sid="flavor-quota-next",
                    title="2 cpu: the first flavor's quota is 1, the second's 4", expect=admitted(cpu="big")))
    setup, cq = _two(flavor("small"), flavor("tiny"), "1", "1")
    out.append(_one(pod("2"), setup=setup, cq=cq, sid="flavor-quota-exceeded",
                    title="2 cpu: both flavors have 1 cpu", expect=pending("> maximum capacity (1)")))

    two_groups = queue_spec(
        group(["cpu", "memory"], quota("small", {"cpu": "1", "memory": "1Gi"}), quota("big", {"cpu": "8", "memory": "8Gi"})),
        group([WIDGET], quota("wa", {WIDGET: "0"}), quota("wb", {WIDGET: "4"})))
    rg_setup = [flavor(n) for n in ("small", "big", "wa", "wb")]
    widget = pod("2", requests={"memory": "1Gi", WIDGET: "1"})
    out.append(_one(widget, setup=rg_setup, cq=two_groups, sid="flavor-two-groups",
                    title="two resource groups: cpu+memory on big (small has 1 cpu), the widget on wb (wa has 0)",
                    expect=admitted(**{"cpu": "big", "memory": "big", WIDGET: "wb"})))
    no_widget = queue_spec(
        group(["cpu", "memory"], quota("big", {"cpu": "8", "memory": "8Gi"})),
        group([WIDGET], quota("wa", {WIDGET: "0"})))
    out.append(_one(widget, setup=[flavor("big"), flavor("wa")], cq=no_widget, sid="flavor-two-groups-one-fails",
                    title="two resource groups: cpu+memory fit, the widget group's only flavor has 0",
                    expect=pending(f"insufficient quota for {WIDGET} in flavor {{cq}}-wa")))

    out += _fungibility()
    out.append(_one(pod(), setup=[], cq=queue_spec(group(["cpu"], quota("ghost", {"cpu": "4"}))),
                    sid="flavor-missing", title="the ClusterQueue names a ResourceFlavor that does not exist",
                    expect=pending("ClusterQueue {cq} is inactive", cq="False/FlavorNotFound")))
    return out


def _fungibility() -> list[QueueScenario]:
    """A cohort where flavor a fits only by borrowing (1 cpu own, 4 lent by a sibling) and flavor b
    fits without (4 cpu)."""
    out = []
    lender = cluster_queue("lender", queue_spec(group(["cpu"], quota("a", {"cpu": "4"})), cohort="pool"))
    for sid, fung, pick, title in (
            ("fungibility-borrow-stops", None, "a",
             "whenCanBorrow MayStopSearch (default): flavor a fits by borrowing from the cohort and is taken"),
            ("fungibility-borrow-next", {"whenCanBorrow": "TryNextFlavor"}, "b",
             "whenCanBorrow TryNextFlavor: flavor b fits without borrowing and is taken")):
        cq = queue_spec(group(["cpu"], quota("a", {"cpu": "1"}), quota("b", {"cpu": "4"})), cohort="pool",
                        fungibility=fung)
        out.append(_one(pod("2"), setup=[flavor("a"), flavor("b"), lender], cq=cq, sid=sid, title=title,
                        expect=admitted(cpu=pick)))
    return out
