"""The queue scenarios and their worlds.

Every queue scenario runs in the world ``queue``: the devices world of the DRA matrix (the same
DeviceClasses, ResourceSlices, mappings and gates), so it shares that world's Kueue process: no
Kueue start of its own. The one scenario that restarts Kueue (``mapping-renamed``) has a world of
its own, ``queue-remap``, which starts with the same configuration and runs last among the worlds
that have it. ``podsready-timeout`` needs ``waitForPodsReady`` with a short timeout, which would
evict every admitted workload of the cluster: ``queue-podsready`` has it, one Kueue start per
version of its own, and runs before every other world. Every scenario runs on v0.19.2 and v0.18.4 unless it says otherwise
(``QueueScenario.versions``).
"""

from __future__ import annotations

from testenv.oracle_scenarios import DEVICES_MAPPINGS, V18, V18_GATES, V19, World, devices_classes, devices_slices
from testenv.queue import scen_changes, scen_checks, scen_flavors, scen_lifecycle, scen_order, scen_preemption, scen_stops
from testenv.queue.model import QueueScenario
from testenv.queue.run import QueueWorldRun

AREAS = ("flavors", "preemption", "lifecycle", "checks", "stops", "order", "changes")
#: the least number of scenarios per area
MINIMUM = {"flavors": 8, "preemption": 6, "lifecycle": 6, "checks": 4, "stops": 5, "order": 4, "changes": 2}


def gates_of(version: str) -> dict[str, bool]:
    """The gates of the DRA matrix's devices world for that version."""
    return dict(V18_GATES) if version == V18 else {}


def world(name: str, version: str, config: dict | None = None) -> World:
    """A world equal to the DRA matrix's devices world of ``version`` (so Kueue is shared), or with
    more Kueue configuration (then it starts Kueue, but needs no other cluster-wide objects)."""
    return World(name, version, DEVICES_MAPPINGS, gates_of(version), devices_classes(), devices_slices(),
                 config=config or {})


def queue_scenarios() -> list[QueueScenario]:
    return (scen_flavors.scenarios() + scen_preemption.scenarios() + scen_lifecycle.scenarios()
            + scen_checks.scenarios() + scen_stops.scenarios() + scen_order.scenarios() + scen_changes.scenarios())


def worlds(versions: tuple[str, ...] = (V19, V18), match: str = "") -> list[QueueWorldRun]:
    """The world runs for these versions; ``match``: only scenario ids containing it."""
    out = []
    for version in versions:
        for name, scens, config in (
                (f"queue-{version}", queue_scenarios(), None),
                (f"queue-remap-{version}", scen_changes.remap_scenarios(gates_of(version)), None),
                (f"queue-podsready-{version}", scen_lifecycle.pods_ready_scenarios(), scen_lifecycle.PODS_READY)):
            mine = [s for s in scens if match in s.id and (s.versions is None or version in s.versions)]
            if mine:
                # the PodsReady timeout evicts every admitted workload of the cluster, and Kueue acts
                # on the scenario's timer late while it evicts what the other worlds left admitted
                out.append(QueueWorldRun(world(name, version, config), mine, early=config is not None))
    return out


def every() -> list[QueueScenario]:
    """Every queue scenario, of every world."""
    return queue_scenarios() + scen_changes.remap_scenarios({}) + scen_lifecycle.pods_ready_scenarios()
