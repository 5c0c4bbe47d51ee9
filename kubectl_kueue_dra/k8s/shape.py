"""The shape of the fields the plugin reads, checked once where objects come in.

A value of the wrong type (a string where a list belongs, a list where a quantity belongs, …)
is removed from the object and reported as a :class:`Malformed` naming the object, the field path
and the value, so the engine downstream sees only the types it expects and treats the field as
absent — the answer goes on, marked partial, instead of ending in an internal error. A quantity
is checked against apimachinery's grammar too (``abc``, ``1x`` and ``"4"`` are not quantities).

Shapes: ``STR``, ``INT`` (an integer, or a string of digits where Kubernetes allows int-or-string
is not modelled), ``BOOL``, ``QTY`` (a quantity: string or number), ``ANY``; a ``dict`` of field →
shape (a mapping; fields not named are not checked); ``[shape]`` (a list of items of that shape);
``MapOf(shape)`` (a mapping of string keys to values of that shape).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]
STR, INT, BOOL, QTY, ANY = "string", "integer", "boolean", "quantity", "any"
#: apimachinery's quantity grammar: a signed number, then a binary or decimal suffix or an exponent
QUANTITY = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE]([+-]?\d{1,4}))?$")


@dataclass(frozen=True)
class MapOf:
    value: Any


@dataclass(frozen=True)
class Malformed:
    kind: str
    namespace: str | None
    name: str | None
    path: str
    expected: str
    value: str
    #: what is left out for it: the field, or (a version this tool does not read) the whole object
    ignored: str = "the field is ignored"

    @property
    def object_ref(self) -> str:
        ref = f"{self.namespace}/{self.name}" if self.namespace else str(self.name)
        return f"{self.kind} {ref}"

    def message(self) -> str:
        return f"{self.object_ref}: {self.path} is {self.value}, not {self.expected}; {self.ignored}"


def _describe(shape: Any) -> str:
    if isinstance(shape, dict):
        return "an object"
    if isinstance(shape, list):
        return "a list"
    if isinstance(shape, MapOf):
        return "a map"
    names = {STR: "a string", INT: "an integer", BOOL: "true or false", QTY: "a Kubernetes quantity"}
    return names.get(shape, str(shape))


_QUANTITIES: dict[str, bool] = {}  # quantity text -> valid (a cluster repeats a few hundred)


def _is_quantity(text: str) -> bool:
    ok = _QUANTITIES.get(text)
    if ok is None:
        ok = QUANTITY.match(text) is not None
        if len(_QUANTITIES) < 1 << 16:
            _QUANTITIES[text] = ok
    return ok


def _fits(value: Any, shape: Any) -> bool:
    if shape == ANY:
        return True
    if isinstance(shape, (dict, MapOf)):
        return isinstance(value, dict)
    if isinstance(shape, list):
        return isinstance(value, list)
    if shape == STR:
        return isinstance(value, str)
    if shape == BOOL:
        return isinstance(value, bool)
    if shape == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if shape == QTY:
        if isinstance(value, str):
            return _is_quantity(value)
        if isinstance(value, float):
            return math.isfinite(value)
        return isinstance(value, int) and not isinstance(value, bool)
    raise ValueError(f"unknown shape {shape!r}")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def clean(value: Any, shape: Any, path: str, found: list[tuple[str, str, str]],
          shared: SharedParts | None = None) -> bool:
    """Remove what does not fit ``shape`` below ``value`` (in place). False when ``value`` itself
    does not fit (the caller drops it); each removal is added to ``found``. A shared part changed
    is marked failed in ``shared``: what is alike it still holds what was removed from it."""
    return _clean(value, shape, path, found, shared)[0]


def _clean(value: Any, shape: Any, path: str, found: list[tuple[str, str, str]],
           shared: SharedParts | None) -> tuple[bool, bool]:
    """``clean``: (whether ``value`` fits, whether anything below it was removed)."""
    if not _fits(value, shape):
        found.append((path, _describe(shape), _show(value)))
        return False, True
    changed = False
    if isinstance(shape, dict):
        for key, sub in shape.items():
            if key not in value:
                continue
            fits = value[key] is not None  # null is absent in the API; the engine reads absent fields only
            if fits:
                fits, below = _clean(value[key], sub, f"{path}.{key}" if path else key, found, shared)
                changed = changed or below
            if not fits:
                del value[key]
                changed = True
    elif isinstance(shape, MapOf):
        for key in [k for k in value if not isinstance(k, str)]:
            found.append((f"{path}[{key!r}]", "a string key", _show(key)))
            del value[key]
            changed = True
        for key in list(value):
            fits, below = _clean(value[key], shape.value, f"{path}[{key}]", found, shared)
            changed = changed or below
            if not fits:
                del value[key]
    elif isinstance(shape, list) and shape and shape[0] != ANY:
        keep = []
        for i, item in enumerate(value):
            fits, below = _clean(item, shape[0], f"{path}[{i}]", found, shared)
            changed = changed or below
            if fits:
                keep.append(item)
        if len(keep) != len(value):
            value[:] = keep
    if changed and shared is not None and shared.held.get(id(value)) is value:
        shared.failed.add((id(value), id(shape)))
        shared.models_fit.clear()
    return True, changed


@dataclass
class SharedParts:
    """Values that several objects hold as one object (``kube/compact.py`` shares equal parts of
    ResourceSlices): one that was found well-formed is not checked again."""

    held: dict[int, Any] = field(default_factory=dict)  # id -> the value (kept alive: its id stays its own)
    valid: set[tuple[int, int]] = field(default_factory=set)  # (id of the value, id of its shape)
    #: (id of the value, id of its shape) found not to fit once: a held value cleaned since then
    #: fits, but what is alike it (below) still holds what was cleaned from it
    failed: set[tuple[int, int]] = field(default_factory=set)
    #: id of a list -> (the list, the model of each item, the distinct models): each item is
    #: *alike* its model (held): the same fields in the same order, each the model's own object,
    #: except ``name`` (a string) and ``attributes`` (the model's names; a value is the model's own
    #: object, or differs as ``differs`` says). For a shape that reads ``name`` as a string and
    #: ``attributes`` by their keys only (a ResourceSlice's devices), the list fits when its models
    #: do (``kube.compact`` finds them while it shares the parts)
    alike: dict[int, tuple[list[Any], tuple[Any, ...], tuple[Any, ...]]] = field(default_factory=dict)
    #: id of a model -> the attributes whose values differ in an item alike it; None among them
    #: when a value that differs is not a plain string (``{"string": …}``)
    differs: dict[int, set[str | None]] = field(default_factory=dict)
    #: (id of a tuple of distinct models, id of their shape) -> the tuple, when each model fits:
    #: alike lists share the tuple (``kube.compact``), so it is looked at once
    models_fit: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)

    def hold(self, value: Any) -> None:
        self.held[id(value)] = value

    def hold_alike(self, items: list[Any], models: tuple[Any, ...], distinct: tuple[Any, ...]) -> None:
        """``items`` are alike ``models``, one each (``distinct``: each once; every one held)."""
        self.alike[id(items)] = (items, models, distinct)

    def models_of(self, items: list[Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
        """(each item's model, the distinct models) when ``items`` are alike their models (an item
        holds its model's very objects in every field but ``name`` and ``attributes``), else None."""
        found = self.alike.get(id(items))
        return (found[1], found[2]) if found is not None and found[0] is items else None

    def release(self, value: Any) -> None:
        """No longer shared: checked with each object that holds it again."""
        if self.held.get(id(value)) is value:
            del self.held[id(value)]
            self.valid = {v for v in self.valid if v[0] != id(value)}
            self.models_fit.clear()


Validator = Callable[[Any, "SharedParts | None"], bool]
_VALIDATORS: dict[int, tuple[Any, Validator]] = {}


def _validator(shape: Any) -> Validator:
    """A function telling whether a value fits ``shape`` entirely (nothing ``clean`` would
    remove), without building paths: the fast answer for the well-formed objects that nearly all
    are. Built once per shape."""
    cached = _VALIDATORS.get(id(shape))
    if cached is not None and cached[0] is shape:
        return cached[1]
    fn = _build(shape)
    _VALIDATORS[id(shape)] = (shape, fn)  # the shape is kept alive with it: its id stays its own
    return fn


def _shared(shape: Any, body: Validator) -> Validator:
    key = id(shape)

    def check(value: Any, shared: SharedParts | None) -> bool:
        if shared is None or id(value) not in shared.held:
            return body(value, shared)
        if (id(value), key) in shared.valid:
            return True
        ok = body(value, shared)
        if ok:
            shared.valid.add((id(value), key))
        else:
            shared.failed.add((id(value), key))
        return ok
    return check


def _reads_alike(shape: Any) -> bool:
    """Whether items alike a model (``SharedParts.alike``) fit ``shape`` when the model does: it
    reads ``name`` as a string at most, and ``attributes`` by their keys at most."""
    return (isinstance(shape, dict) and shape.get("name", STR) == STR
            and shape.get("attributes", ANY) in (ANY, MapOf(ANY)))


def _build(shape: Any) -> Validator:
    if isinstance(shape, dict):
        fields = [(k, _validator(sub)) for k, sub in shape.items()]

        def mapping(value: Any, shared: SharedParts | None) -> bool:
            if type(value) is not dict:
                return False
            for key, fits in fields:
                if key in value:
                    v = value[key]
                    if v is None or not fits(v, shared):  # null is removed by clean
                        return False
            return True
        return _shared(shape, mapping)
    # plain loops, not all() over a generator: these run for every device of a big cluster
    if isinstance(shape, MapOf):
        if shape.value == ANY:
            return _string_keys
        item = _validator(shape.value)

        def map_of(value: Any, shared: SharedParts | None) -> bool:
            if type(value) is not dict:
                return False
            for k, v in value.items():
                if type(k) is not str or not item(v, shared):
                    return False
            return True
        return _shared(shape, map_of)
    if isinstance(shape, list):
        if not shape or shape[0] == ANY:
            return lambda value, _: type(value) is list
        element = _validator(shape[0])
        by_model = _reads_alike(shape[0])
        element_key = id(shape[0])

        def list_of(value: Any, shared: SharedParts | None) -> bool:
            if type(value) is not list:
                return False
            found = shared.models_of(value) if by_model and shared is not None else None
            if found is not None and shared is not None:
                if _models_fit(found[1], element, element_key, shared):
                    return True
                shared.alike.pop(id(value))  # checked item by item: what is cleaned may differ
            for v in value:
                if not element(v, shared):
                    return False
            return True
        return _shared(shape, list_of)
    if shape == ANY:
        return lambda value, _: True
    if shape == STR:
        return lambda value, _: type(value) is str
    return lambda value, _: _fits(value, shape)


def _models_fit(models: tuple[Any, ...], element: Validator, key: int, shared: SharedParts) -> bool:
    if shared.models_fit.get((id(models), key)) is models:
        return True
    for model in models:
        if shared.held.get(id(model)) is not model or (id(model), key) in shared.failed \
                or not element(model, shared):
            return False
    shared.models_fit[(id(models), key)] = models
    return True


def _string_keys(value: Any, _: SharedParts | None) -> bool:
    if type(value) is not dict:
        return False
    for k in value:
        if type(k) is not str:
            return False
    return True


def fits(value: Any, shape: Any) -> bool:
    """Whether ``value`` fits ``shape`` entirely (``check_object`` would remove nothing from it)."""
    return _validator(shape)(value, None)


def check_object(kind: str, obj: Obj, shape: Any, shared: SharedParts | None = None) -> list[Malformed]:
    """Clean ``obj`` (a whole object) against ``shape``; what was removed, named. ``shared``: the
    parts shared with other objects, each checked once."""
    if _validator(shape)(obj, shared):
        return []
    found: list[tuple[str, str, str]] = []
    clean(obj, shape, "", found, shared)
    if not found:
        return []
    raw = obj.get("metadata")
    meta: Obj = raw if isinstance(raw, dict) else {}
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    return [Malformed(kind, ns, name, path, expected, value) for path, expected, value in found]
