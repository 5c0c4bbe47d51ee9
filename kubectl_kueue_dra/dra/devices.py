"""ResourceSlice pools and device matching, as the scheduler (and Kueue) see them.

A pool is identified by (driver, pool name). Only slices of its highest ``pool.generation`` count,
and the pool is complete only when that many slices as ``pool.resourceSliceCount`` are present;
the scheduler allocates only from complete pools. Slices that hold only ``sharedCounters`` count
toward completeness but carry no devices.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from operator import methodcaller
from typing import Any, Protocol
from collections.abc import Iterable, Iterator, Sequence

from .cel import CelCompileError, CelError, SelectorEvaluator, footprint_reads


@dataclass
class Pool:
    driver: str
    name: str
    generation: int
    expected_slices: int
    slices: list[dict[str, Any]] = field(default_factory=list)
    stale_slices: int = 0  # slices of an older generation, ignored
    #: the models of the slices' devices, where the reader found them (``DeviceModels``)
    models: DeviceModels | None = field(default=None, repr=False, compare=False)

    @property
    def complete(self) -> bool:
        return len(self.slices) == self.expected_slices

    def devices(self) -> Iterator[dict[str, Any]]:
        for s in self.slices:
            yield from (s.get("spec") or {}).get("devices") or []


def group_pools(slices: Iterable[dict[str, Any]], models: DeviceModels | None = None) -> list[Pool]:
    """Group slices into pools at their highest generation. ``models``: what the reader found of
    the slices' devices (``DeviceModels``), for the grouping by shape."""
    pools: dict[tuple[str, str], Pool] = {}
    for s in slices:
        spec = s.get("spec") or {}
        pool_ref = spec.get("pool") or {}
        key = (spec.get("driver") or "", pool_ref.get("name") or "")
        generation = int(pool_ref.get("generation") or 0)
        expected = int(pool_ref.get("resourceSliceCount") or 1)
        pool = pools.get(key)
        if pool is None or generation > pool.generation:
            stale = (pool.stale_slices + len(pool.slices)) if pool else 0
            pool = pools[key] = Pool(key[0], key[1], generation, expected, stale_slices=stale, models=models)
        elif generation < pool.generation:
            pool.stale_slices += 1
            continue
        pool.expected_slices = expected
        pool.slices.append(s)
    return sorted(pools.values(), key=lambda p: (p.driver, p.name))


@dataclass
class MatchCount:
    devices: int = 0
    pools: int = 0
    incomplete_pool_devices: int = 0  # matching devices in pools the scheduler will not use
    errors: dict[str, int] = field(default_factory=dict)  # error message -> devices that hit it
    #: devices a selector valid in Kubernetes could not be evaluated on here (an evaluation limit of
    #: this tool, e.g. nesting): message -> devices. The count is then unknown, never a number.
    unevaluable: dict[str, int] = field(default_factory=dict)


_NAME = methodcaller("get", "name")


@dataclass
class GroupTotals:
    """Devices per group over the complete pools: ``all`` of them, and ``named`` those of pools
    whose device names are distinct, in the order groups are first met; ``repeated``: (devices,
    their group ids) of each complete pool whose names repeat (the API forbids it: such a pool
    counts by name)."""

    all: dict[int, int] = field(default_factory=dict)
    named: dict[int, int] = field(default_factory=dict)
    repeated: list[tuple[list[dict[str, Any]], list[int]]] = field(default_factory=list)


class ShapeIndex:
    """The devices of some pools, each tagged with a group: devices of one group are alike in
    everything the given selector lists can read (``SelectorEvaluator.group_keyer``), so one
    evaluation on the group's first device answers for all of them. Built once, it serves every
    list it was built for; results are the ones a per-device loop would give, in the same order.
    A device alike its model (``Pool.models``) is keyed as the model, once per model, when no list
    reads an attribute that differs between them.
    """

    def __init__(self, pools: Sequence[Pool], selector_lists: Sequence[Sequence[str]],
                 evaluator: SelectorEvaluator):
        self.evaluator = evaluator
        self.selector_lists = [tuple(s) for s in selector_lists]
        keyer = _ModelKeyer(evaluator, self.selector_lists)
        groups: dict[Any, int] = {}
        #: (driver, first device) of each group
        self.representatives: list[tuple[str, dict[str, Any]]] = []
        #: per pool: the pool, its devices in order, their group ids, {group id: devices} in first-seen order
        self.pools: list[tuple[Pool, list[dict[str, Any]], list[int], dict[int, int]]] = []
        # a slice's devices alike a sequence of models met before, each keyed as its model, get
        # the group ids the sequence got then
        sequences: dict[tuple[str, int], tuple[list[int], dict[int, int]]] = {}
        for pool in pools:
            ids: list[int] = []
            counts: dict[int, int] = {}
            for s in pool.slices:
                devices = (s.get("spec") or {}).get("devices") or []
                found = pool.models.models_of(devices) if pool.models is not None else None
                known = sequences.get((pool.driver, id(found[0]))) if found is not None else None
                if known is None:
                    part: list[int] = []
                    for device, key in zip(devices, keyer.keys(pool.driver, devices, found, pool.models)):
                        gid = groups.get(key)
                        if gid is None:
                            gid = groups[key] = len(self.representatives)
                            self.representatives.append((pool.driver, device))
                        part.append(gid)
                    known = (part, dict(Counter(part)))
                    if found is not None and keyer.keyed_as_models(found[1]):
                        sequences[(pool.driver, id(found[0]))] = known
                ids.extend(known[0])
                for gid, n in known[1].items():
                    counts[gid] = counts.get(gid, 0) + n
            self.pools.append((pool, list(pool.devices()), ids, counts))

    @cached_property
    def complete_totals(self) -> GroupTotals:
        """The group sizes summed over the complete pools (``GroupTotals``)."""
        out = GroupTotals()
        for pool, devices, ids, counts in self.pools:
            if not pool.complete:
                continue
            distinct = len(set(map(str, map(_NAME, devices)))) == len(devices)  # as the API requires
            for gid, n in counts.items():
                out.all[gid] = out.all.get(gid, 0) + n
                if distinct:
                    out.named[gid] = out.named.get(gid, 0) + n
            if not distinct:
                out.repeated.append((devices, ids))
        return out

    def covers(self, selectors: Sequence[str]) -> bool:
        return tuple(selectors) in self.selector_lists

    def outcomes(self, selectors: Sequence[str]) -> list[bool | CelError]:
        """Per group: whether the selectors match, or the CelError they raise."""
        out: list[bool | CelError] = []
        for driver, device in self.representatives:
            try:
                out.append(self.evaluator.matches(selectors, driver, device))
            except CelError as e:
                out.append(e)
        return out


class DeviceModels(Protocol):
    """What the reader found of the devices it read (``k8s.shape.SharedParts``, filled by
    ``kube.compact``). ``alike``: id of a device list -> (the list, each device's model, the
    distinct models); a device is alike its model in every part a selector can read but the
    attributes named in ``differs[id(model)]`` (None among them: a value that differs is not a
    plain string)."""

    alike: dict[int, tuple[list[Any], tuple[Any, ...], tuple[Any, ...]]]
    differs: dict[int, set[str | None]]

    def models_of(self, items: list[Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None: ...


class _ModelKeyer:
    """The group key of each device: its model's (computed once per model) when no selector reads
    an attribute that differs between them and the model's attributes convert, else its own."""

    def __init__(self, evaluator: SelectorEvaluator, selector_lists: Sequence[Sequence[str]]):
        self.evaluator = evaluator
        self.keyer = evaluator.group_keyer(selector_lists)
        self.footprint = evaluator.union_footprint(selector_lists)
        self.known: dict[int, Any] = {}  # id of a model -> its key, or None: each device keyed alone

    def keys(self, driver: str, devices: list[dict[str, Any]],
             found: tuple[tuple[Any, ...], tuple[Any, ...]] | None, models: DeviceModels | None) -> Iterator[Any]:
        """The key of each of a slice's devices; ``found``: their models (``DeviceModels.models_of``)."""
        keyer = self.keyer
        if found is None or models is None:
            yield from (keyer(driver, device) for device in devices)
            return
        for device, model in zip(devices, found[0]):
            key = self.known.get(id(model), _UNKNOWN)
            if key is _UNKNOWN:
                key = self.known[id(model)] = self._model_key(driver, model, models)
            yield keyer(driver, device) if key is None else key

    def keyed_as_models(self, models: tuple[Any, ...]) -> bool:
        """Whether devices alike these models (each keyed once) are keyed as their models."""
        return all(self.known.get(id(model)) is not None for model in models)

    def _model_key(self, driver: str, model: dict[str, Any], models: DeviceModels) -> Any:
        differs = models.differs.get(id(model), {None})
        if footprint_reads(self.footprint, driver, differs) or self.evaluator.attribute_problem(driver, model):
            return None
        return self.keyer(driver, model)


_UNKNOWN = object()


def count_matching(pools: Sequence[Pool], selectors: Sequence[str], evaluator: SelectorEvaluator,
                   index: ShapeIndex | None = None) -> MatchCount:
    """Count devices (and the pools they are in) for which every selector is true. ``index``:
    a ShapeIndex of these pools built for (among others) these selectors, to share across calls."""
    if index is None or not index.covers(selectors):
        index = ShapeIndex(pools, [selectors], evaluator)
    outcomes = index.outcomes(selectors)
    result = MatchCount()
    for pool, _, _, counts in index.pools:
        matched = 0
        for gid, n in counts.items():
            ok = outcomes[gid]
            if isinstance(ok, CelCompileError) and ok.unsupported:
                result.unevaluable[ok.detail] = result.unevaluable.get(ok.detail, 0) + n
            elif isinstance(ok, CelError):
                result.errors[str(ok)] = result.errors.get(str(ok), 0) + n
            elif ok:
                matched += n
        if not matched:
            continue
        if pool.complete:
            result.devices += matched
            result.pools += 1
        else:
            result.incomplete_pool_devices += matched
    return result
