"""Keep ResourceSlices small in memory, without losing anything a command reads.

A 1,000-node MIG cluster publishes ~140,000 devices; parsed naively each costs ~9 KiB of small
dicts, most of them repeated on every node (the capacity and counters of ``gpu-0-mig-1g10gb-19-0``
are the same everywhere, as is ``{"string": "mig"}``). ``SliceCompactor`` makes equal parts one
shared object, as a list is read page by page, so memory follows the number of distinct shapes
rather than the number of devices:

* per device: ``capacity`` and ``consumesCounters`` (candidates looked up by device name, then
  compared with ``==``), each attribute value (except attributes whose values are nearly all
  distinct, such as ``uuid``), the device name string;
* per slice: ``spec.pool``, ``spec.sharedCounters``, the driver string; ``metadata.managedFields``
  keeps every entry, its ``fieldsV1`` (the per-field ownership tree) cut down to the top-level
  ``spec`` fields it owns: what tells a field the API server dropped (``k8s/written``).

A list parsed by ``kube/parse/slices.py`` hands each device's capacity and counter consumption
over as text (``part_from_text``): a text that gave a shared value before gives it again without
being parsed; a new one is parsed, and shared as above when its device is compacted.

Values stay plain dicts/lists equal to what was parsed, so nothing downstream changes — but they
are shared: objects read through a ClusterView are read-only. ``parts`` names the shared
capacities, counter consumptions, attribute values, pools and shared counter sets (the compactor
keeps them alive), so that the shape check (``k8s.shape``) looks at each of them once, not once
per device. It also names each device's *model* where the device is alike it (``SharedParts.
alike``): the first device of the same name and shared capacity, whose fields the device holds as
the very same objects but for its name and the values of some attributes (a uuid); a list of such
devices is shape-checked by its models, and its devices grouped by shape as their models are
(``dra.devices.ShapeIndex``), once per model rather than once per device.
"""

from __future__ import annotations

from typing import Any, cast

from ..k8s.object_shapes import DEVICE
from ..k8s.shape import SharedParts, fits
from ..k8s.written import keep_top_fields

Obj = dict[str, Any]

_CANDIDATES = 8  # distinct values remembered per (part, name): e.g. one per GPU model
_SCALARS = (str, int, float, bool)


class SliceCompactor:
    def __init__(self) -> None:
        self._parts: dict[tuple[str, Any], list[Any]] = {}  # (part, its key) -> values: _share
        self._values: dict[tuple[str, str, Any], Any] = {}
        self._distinct: dict[str, int] = {}  # attribute -> distinct values seen
        self._devices = 0
        self._unique: set[str] = set()  # attributes whose values are (nearly) all distinct
        self._strings: dict[str, str] = {}
        self._templates: dict[tuple[Any, int], _Model] = {}  # ((driver, device name), id of its shared capacity)
        self._recent: dict[tuple[Any, Any], list[_Model]] = {}  # (driver, device name) -> models alike before
        #: the ids of a list's models -> (the models, each once): one pair for every list alike
        self._model_sets: dict[tuple[int, ...], tuple[tuple[Obj, ...], tuple[Obj, ...]]] = {}
        #: part_from_text: (part, driver, device name) -> (a text, the value it gave), each value held
        self._from_text: dict[tuple[str, Any, Any], list[tuple[Any, Any]]] = {}
        #: id of a part part_from_text parsed -> ((part, driver, name), its text, the part)
        self._pending: dict[int, tuple[tuple[str, Any, Any], Any, Any]] = {}
        self.parts = SharedParts()

    def _share(self, part: str, name: Any, value: Any) -> Any:
        """An equal value seen before under (part, name), else remember this one."""
        key = (part, name)
        seen = self._parts.get(key)
        if seen is None:
            self._parts[key] = [value]
            self.parts.hold(value)
            return value
        for candidate in seen:
            if candidate is value or candidate == value:
                return candidate
        if len(seen) < _CANDIDATES:
            seen.append(value)
            self.parts.hold(value)
        return value

    def _managed(self, entry: Obj) -> Obj:
        """A managedFields entry owning only the top-level spec fields it owns (what tells a field
        the server dropped, ``k8s/written``), the tree shared between equal entries."""
        kept = keep_top_fields(entry)
        fields = kept.get("fieldsV1")
        if isinstance(fields, dict):
            kept["fieldsV1"] = self._share("managedFields", tuple(sorted(fields["f:spec"])), fields)
        return kept

    def _string(self, s: Any) -> Any:
        return self._strings.setdefault(s, s) if type(s) is str else s

    def __call__(self, obj: Obj) -> Obj:
        """Compact one ResourceSlice in place (other objects are returned unchanged)."""
        if obj.get("kind") != "ResourceSlice":
            return obj
        meta = obj.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("managedFields"), list):
            meta["managedFields"] = [self._managed(m) if isinstance(m, dict) else m for m in meta["managedFields"]]
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        driver = spec.get("driver")
        if type(driver) is str:
            spec["driver"] = driver = self._string(driver)
        driver = _key(driver)
        pool = spec.get("pool")
        if isinstance(pool, dict):
            spec["pool"] = self._share("pool", _key(pool.get("name")), pool)
        counters = spec.get("sharedCounters")
        if isinstance(counters, list) and counters:
            first = _key(counters[0].get("name")) if isinstance(counters[0], dict) else None
            spec["sharedCounters"] = self._share("sharedCounters", (driver, first), counters)
        devices = spec.get("devices")
        if isinstance(devices, list) and devices:
            models = [self._device(driver, device) if type(device) is dict else None for device in devices]
            if None not in models:  # the list is checked, and grouped, as its models are
                ids = tuple(map(id, models))  # held models: their ids are their own
                sets = self._model_sets.get(ids)
                if sets is None:
                    distinct = tuple({id(m): m for m in cast(list[Obj], models)}.values())
                    sets = self._model_sets[ids] = (tuple(cast(list[Obj], models)), distinct)
                self.parts.hold_alike(devices, *sets)
        return obj

    def _device(self, driver: Any, device: Obj) -> Obj | None:
        """Share the device's parts; the device it is alike (``SharedParts.alike``: the first of its
        model, or itself), or None."""
        name = device.get("name")
        if type(name) is str:
            device["name"] = name = self._strings.setdefault(name, name)
        key = (driver, _key(name))
        if self._pending:  # parts parsed from a text not met before (part_from_text): shared now
            self._share_pending(key, device)
        for met in self._recent.get(key, ()):
            if met.takes(device):  # alike a model of its name met before, but its attributes
                attrs = device.get("attributes")
                return self._alike(met, device, attrs, name) if type(attrs) is dict else None
        for part in _SHARED:
            value = device.get(part)
            if value:
                device[part] = self._share(part, key, value)
        attrs = device.get("attributes")
        if type(attrs) is not dict:
            return None
        # one template per device name and shared capacity: under one name, each GPU model (H100,
        # A100: their capacities differ, each one held object) has its own attribute values; a
        # capacity not shared (past the candidates) falls back to the name's template
        capacity = device.get("capacity")
        model = (key, id(capacity) if self.parts.held.get(id(capacity)) is capacity else 0)
        found = self._templates.get(model)
        if found is None:  # the first device of this model: its values shared through the table
            self._attributes(attrs)
            found = self._templates[model] = _Model(device, self.parts)
            self._remember(key, found)
            return device
        if tuple(device) != found.fields or any(device[k] is not found.device[k] for k in found.same):
            return self._alike(found, device, attrs, name, False)
        self._remember(key, found)
        return self._alike(found, device, attrs, name)

    def part_from_text(self, part: str, driver: Any, name: Any, text: Any) -> Any:
        """A device's ``capacity`` or ``consumesCounters`` given as its JSON text (a ``msgspec.Raw``)
        as a batch of ResourceSlices is parsed, before they are compacted (``kube/parse/slices.py``):
        the very value an equal text gave under the same (driver, device name), else the text parsed.
        The devices of a big list repeat a few texts: each is parsed once, not once per device."""
        key = (part, driver if type(driver) is str else _key(driver), name if type(name) is str else _key(name))
        texts = self._from_text.get(key)
        if texts is not None:
            for known, value in texts:
                if known == text:  # compared as bytes: no hash of the text
                    return value
        value = _parse(text)
        # a part that fits its shape is never cleaned: the value it is shared as stays equal to the text
        if value and fits(value, DEVICE[part]):
            self._pending[id(value)] = (key, text.copy(), value)  # its own bytes, not the batch's
        return value

    def new_batch(self) -> None:
        """The items of the batch before are compacted: what part_from_text parsed and no device
        shared since (an item that was not compacted) is forgotten."""
        self._pending.clear()

    def _share_pending(self, key: tuple[Any, Any], device: Obj) -> None:
        """The device's parts parsed from their text: shared as ``_device`` shares a part (when
        compacting, as a part parsed whole would be), the text remembered when the one it is shared
        as is held."""
        for part in _SHARED:
            pending = self._pending.pop(id(device.get(part)), None)
            if pending is None:
                continue
            text_key, text, value = pending
            device[part] = shared = self._share(part, key, value)
            texts = self._from_text.setdefault(text_key, [])
            if self.parts.held.get(id(shared)) is shared and len(texts) < _CANDIDATES \
                    and all(known != text for known, _ in texts):  # the batch's devices parsed it too
                texts.append((text, shared))

    def _remember(self, key: tuple[Any, Any], found: _Model) -> None:
        """A model the next devices of this name are tried with first (a few per name: nodes of
        two GPU models may alternate), when its shared parts are held: an equal part is then this
        very object, so ``_Model.takes`` gives what the tables would."""
        models = self._recent.setdefault(key, [])
        if found in models or len(models) >= _CANDIDATES:
            return
        held = self.parts.held
        if all(held.get(id(v)) is v for k in _SHARED if (v := found.device.get(k))):
            models.append(found)

    def _alike(self, found: _Model, device: Obj, attrs: Obj, name: Any, same: bool = True) -> Obj | None:
        """The device's attribute values shared with its model's where equal (a uuid differs, the
        rest is equal); its model's first device when it is alike it (``same``: its fields are
        the model's, each the very object but for name and attributes), else None."""
        # a textual value equal to the first's is of the same type, so nothing changes
        template = found.template
        rest = missing = False
        for attr, v in attrs.items():
            t = template.get(attr)
            if t is None:
                rest = missing = True
            elif t is _OTHER:
                rest = True
            elif t is not v:
                if t == v:
                    attrs[attr] = t
                else:
                    found.differ(attr, v)
        if rest:
            self._attributes({a: v for a, v in attrs.items() if type(template.get(a)) is not dict}, attrs)
        # alike the first (SharedParts.alike): its fields in its order, each its very object but for a
        # string name and attributes of the same names
        first = found.device
        if not same or missing or len(attrs) != len(template) or type(name) is not str:
            return None
        if found.others:  # values not textual: shared through the table, or not
            values = first["attributes"]
            for a in found.others:
                if attrs[a] is not values[a]:
                    found.differ(a, attrs[a])
        return first

    def _attributes(self, attrs: Obj, owner: Obj | None = None) -> None:
        """Share each attribute value with an equal one seen before (any device name)."""
        owner = attrs if owner is None else owner
        self._devices += 1
        values, unique, distinct = self._values, self._unique, self._distinct
        for attr, v in attrs.items():
            if attr in unique or type(v) is not dict or len(v) != 1:
                continue
            ((typ, x),) = v.items()
            if type(x) not in _SCALARS:
                continue
            k = (attr, typ, x)
            shared = values.get(k)
            if shared is None:
                values[k] = v
                self.parts.hold(v)  # the shape check looks at a shared value once
                n = distinct[attr] = distinct.get(attr, 0) + 1
                if n > 256 and 2 * n > self._devices:  # an identity (uuid): not worth keeping
                    unique.add(attr)
                    for w, o in values.items():
                        if w[0] == attr:
                            self.parts.release(o)
                    self._values = values = {w: o for w, o in values.items() if w[0] != attr}
            elif shared is not v and type(shared[typ]) is type(x):
                owner[attr] = shared


#: the fields of a device that may differ from its model's first device's in an alike one
_FREE = ("name", "attributes")
_SHARED = ("capacity", "consumesCounters")  # a device's parts shared with an equal one (``_device``)
_OTHER = object()  # in a template: an attribute the first device has, of a value not textual


class _Model:
    """The first device of a model (held), and what the next devices are compared with: its
    attributes (a textual one's value, else _OTHER), its fields, the fields an alike device holds
    as the very same objects, the attributes whose values are not textual, and the names of the
    attributes whose values differ in the devices alike it (``SharedParts.differs``)."""

    __slots__ = ("device", "differs", "fields", "others", "same", "template")

    def __init__(self, device: Obj, parts: SharedParts) -> None:
        attrs = device["attributes"]
        self.device = device
        self.template = {a: v if _textual(v) else _OTHER for a, v in attrs.items()}
        self.fields = tuple(device)
        self.same = tuple(k for k in self.fields if k not in _FREE)
        self.others = tuple(a for a, v in self.template.items() if v is _OTHER)
        self.differs: set[str | None] = set()
        parts.hold(device)
        parts.differs[id(device)] = self.differs

    def takes(self, device: Obj) -> bool:
        """Whether ``device`` has this model's fields in its order, each the model's very object
        but for name and attributes, once an equal capacity or counter consumption is made it."""
        if tuple(device) != self.fields:
            return False
        first = self.device
        for k in self.same:
            v, f = device[k], first[k]
            if v is not f:
                if k not in _SHARED or not v or v != f:
                    return False
                device[k] = f
        return True

    def differ(self, attr: str, value: Any) -> None:
        """A device alike this model has its own value of ``attr`` (None noted too when the value
        is not a plain string)."""
        self.differs.add(attr)
        if type(value) is not dict or len(value) != 1 or "string" not in value:
            self.differs.add(None)


def _textual(value: Any) -> bool:
    """An attribute value whose one field is a string (``{"string": …}``, ``{"version": …}``): a
    value equal to it is of the same type."""
    return type(value) is dict and len(value) == 1 and type(next(iter(value.values()))) is str


def _parse(text: Any) -> Any:
    """A part's JSON text parsed as the batch around it would have been (``kube/parse/jsonstream.py``)."""
    from .parse.jsonstream import decode_batch

    return decode_batch()(text)


def _key(value: Any) -> Any:
    """A value usable in a table key: a malformed field (a list, a map) stands as its repr; the
    view reports it later (``k8s.shape``)."""
    return value if value is None or isinstance(value, (str, int, float)) else repr(value)
