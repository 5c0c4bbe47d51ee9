"""What to look at when a counter-charged mapping's driver publishes no counter at all: no device
of it has ``consumesCounters``, so Kueue has nothing to charge.

Two causes the plugin can speak to: the API server drops ``consumesCounters`` and
``sharedCounters`` from ResourceSlices while ``DRAPartitionableDevices`` is off (so a driver that
publishes them is stored without them), and the driver does not publish partitionable devices. The
NVIDIA DRA driver publishes counters for its dynamic-MIG devices (partitionable mode); pre-created
MIG devices carry ``memorySlice<N>`` capacities instead, and whole GPUs outside that mode carry no
counters. What the driver publishes now is counted from its devices' attributes.
"""

from __future__ import annotations

from ... import gates as g
from ...kueue.config.mappings import Mapping
from ...kueue.install.command import map_restart
from . import fixes
from .facts import Facts

NVIDIA = "gpu.nvidia.com"


def _devices(f: Facts, driver: str) -> tuple[dict[str, int], bool]:
    """(device type → devices of ``driver``, whether MIG devices look pre-created)."""
    types: dict[str, int] = {}
    static = False
    for s in f.slices or []:
        spec = s.get("spec") or {}
        if spec.get("driver") != driver:
            continue
        for device in spec.get("devices") or []:
            kind = ((device.get("attributes") or {}).get("type") or {}).get("string") or "other"
            types[kind] = types.get(kind, 0) + 1
            static = static or (kind == "mig" and any(str(k).startswith("memorySlice")
                                                      for k in device.get("capacity") or {}))
    return types, static


def no_counters(f: Facts, mapping: Mapping, driver: str) -> str:
    """The fix for a driver that publishes no counters: the gate first when it is not known to be
    on, then what the driver publishes and what it needs."""
    steps = []
    gate = f.k8s_gates.get(g.DRA_PARTITIONABLE)
    if gate is not None and gate.state != g.ON:
        state = "off" if gate.state == g.OFF else "unknown"
        command, _, caveat = fixes.enable_kubernetes_gate(f, g.DRA_PARTITIONABLE).partition("  # ")
        steps.append(f"the API server drops consumesCounters and sharedCounters from ResourceSlices while "
                     f"{g.DRA_PARTITIONABLE} is off (it is {state}: {gate.how()}): {command}"
                     + (f" ({caveat})" if caveat else ""))
    types, static = _devices(f, driver)
    now = ", ".join(f"{n} {kind}" for kind, n in sorted(types.items())) or "no device"
    if driver == NVIDIA:
        what = (f"the NVIDIA DRA driver publishes counters for dynamic-MIG devices (its partitionable mode): check the "
                f"driver's version and that dynamic MIG is enabled in its settings; it publishes {now} now, none "
                "consuming counters")
        if static:
            what += " (its MIG devices carry memorySlice capacities: they are pre-created MIG devices)"
        steps.append(what)
    else:
        steps.append(f"check that the DRA driver {driver} publishes partitionable devices (consumesCounters); it "
                     f"publishes {now} now, none consuming counters")
    whole = " ".join([f"kubectl kueue-dra map set {mapping.name}"]
                     + [f"--device-class {c}" for c in mapping.device_class_names] + ["--replace"]) \
        + map_restart(f.config.kind)
    steps.append(f"or charge whole devices instead: {whole}")
    return "; ".join(steps)
