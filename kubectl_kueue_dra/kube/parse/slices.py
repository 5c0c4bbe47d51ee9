"""Batches of ResourceSlices parsed without building, then dropping, the parts their devices repeat.

Every device of a 1,000-node MIG cluster spells out its ``capacity`` and ``consumesCounters``
(some fifty small dicts and strings); all but a few hundred of them are equal to one met before,
which ``kube/compact.py`` keeps instead. Parsed as plain JSON, each copy is built, compared with the
kept one and freed: most of the time the client spends on such a list after parsing it. Here a
batch is parsed with msgspec against the ResourceSlice's fields, those two parts taken as their
JSON text (``msgspec.Raw``), and each text goes to ``SliceCompactor.part_from_text``: one met
before under the same driver and device name is the kept value itself, without being parsed.

The result equals msgspec's plain parse of the batch (``json``'s values): every field is taken as
it is but those two parts, which are parsed from their own text, and an object that does not have
exactly the fields the ResourceSlice API defines (any other kind with a ``status`` or fields of its
own, a device wrapped in ``basic`` as in v1beta1, a field newer than this list, a value of another
type where an object or a list is expected) makes the whole batch parsed plainly. Fields come in
the order the API server writes them, which is also ``kubectl get -o json``'s for the object and
its metadata; within ``spec`` and a device they may come in another order than the text's.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any
from collections.abc import Callable

import msgspec
from msgspec import UNSET, Raw, UnsetType
from msgspec.structs import astuple

from .jsonstream import decode_batch


class _Device(msgspec.Struct, forbid_unknown_fields=True):
    """``resource.k8s.io/v1`` Device, its fields in the API's order."""

    name: Any = UNSET
    attributes: Any = UNSET
    capacity: Raw | UnsetType = UNSET
    consumesCounters: Raw | UnsetType = UNSET
    nodeName: Any = UNSET
    nodeSelector: Any = UNSET
    allNodes: Any = UNSET
    taints: Any = UNSET
    bindsToNode: Any = UNSET
    bindingConditions: Any = UNSET
    bindingFailureConditions: Any = UNSET
    allowMultipleAllocations: Any = UNSET
    nodeAllocatableResourceMappings: Any = UNSET


class _Spec(msgspec.Struct, forbid_unknown_fields=True):
    driver: Any = UNSET
    pool: Any = UNSET
    nodeName: Any = UNSET
    nodeSelector: Any = UNSET
    allNodes: Any = UNSET
    devices: list[_Device] | UnsetType = UNSET
    perDeviceNodeSelection: Any = UNSET
    sharedCounters: Any = UNSET


class _Slice(msgspec.Struct, forbid_unknown_fields=True):
    apiVersion: Any = UNSET
    kind: Any = UNSET
    metadata: Any = UNSET
    spec: _Spec | UnsetType = UNSET


_COMMON = attrgetter("name", "attributes", "capacity", "consumesCounters")
_RARE = attrgetter(*_Device.__struct_fields__[4:])
_NONE_RARE = (UNSET,) * len(_Device.__struct_fields__[4:])

#: what shares a part given as text: (part, driver, device name, its msgspec.Raw) -> the value
PartFromText = Callable[[str, Any, Any, Raw], Any]


def _fields(struct: msgspec.Struct) -> dict[str, Any]:
    """The fields of ``struct`` that the text had, in the struct's order."""
    return {name: value for name, value in zip(struct.__struct_fields__, astuple(struct)) if value is not UNSET}


class SliceBatches:
    """Parses a batch (the text of a JSON array of items) for ``jsonstream.load``: as above when it
    may hold ResourceSlices (``listed``: a ResourceSlice list, whose items carry no kind; else the
    text names the kind), else plainly."""

    def __init__(self, compactor: Any, listed: bool = False) -> None:
        self._part: PartFromText = compactor.part_from_text
        self._new_batch: Callable[[], None] = compactor.new_batch
        self._listed = listed
        self._typed = msgspec.json.Decoder(list[_Slice])
        self._plain = decode_batch()  # what parses any other batch

    def __call__(self, text: str) -> list[Any]:
        if not self._listed and "ResourceSlice" not in text:
            return self._plain(text)
        self._new_batch()
        try:
            parsed = self._typed.decode(text)
        except msgspec.ValidationError:  # another kind, or another shape: all of it plainly
            return self._plain(text)
        if not all(s.spec is UNSET or s.spec.devices is UNSET or s.kind in ("ResourceSlice", UNSET) for s in parsed):
            return self._plain(text)  # devices of another kind
        return [self._item(s) for s in parsed]

    def _item(self, s: _Slice) -> dict[str, Any]:
        item = _fields(s)
        spec = s.spec
        if spec is not UNSET:
            item["spec"] = fields = _fields(spec)
            if spec.devices is not UNSET:
                fields["devices"] = self._devices(spec.driver if spec.driver is not UNSET else None, spec.devices)
        return item

    def _devices(self, driver: Any, devices: list[_Device]) -> list[dict[str, Any]]:
        part = self._part
        out = []
        for d in devices:
            name, attributes, capacity, consumes = _COMMON(d)
            if _RARE(d) == _NONE_RARE and name is not UNSET and attributes is not UNSET:
                device = {"name": name, "attributes": attributes}  # the fields nearly every device has
                if capacity is not UNSET:
                    device["capacity"] = part("capacity", driver, name, capacity)
                if consumes is not UNSET:
                    device["consumesCounters"] = part("consumesCounters", driver, name, consumes)
            else:
                device = _fields(d)
                for key in ("capacity", "consumesCounters"):
                    if key in device:
                        device[key] = part(key, driver, device.get("name"), device[key])
            out.append(device)
        return out
