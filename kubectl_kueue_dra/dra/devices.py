"""ResourceSlice pools and device matching, as the scheduler (and Kueue) see them.

A pool is identified by (driver, pool name). Only slices of its highest ``pool.generation`` count,
and the pool is complete only when that many slices as ``pool.resourceSliceCount`` are present;
the scheduler allocates only from complete pools. Slices that hold only ``sharedCounters`` count
toward completeness but carry no devices.
"""

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

from .cel import CelError, SelectorEvaluator


@dataclass
class Pool:
    driver: str
    name: str
    generation: int
    expected_slices: int
    slices: list[dict[str, Any]] = field(default_factory=list)
    stale_slices: int = 0  # slices of an older generation, ignored

    @property
    def complete(self) -> bool:
        return len(self.slices) == self.expected_slices

    def devices(self) -> Iterator[dict[str, Any]]:
        for s in self.slices:
            yield from (s.get("spec") or {}).get("devices") or []

    @property
    def device_count(self) -> int:
        return sum(len((s.get("spec") or {}).get("devices") or []) for s in self.slices)


def group_pools(slices: Iterable[dict[str, Any]]) -> list[Pool]:
    """Group slices into pools at their highest generation."""
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
            pool = pools[key] = Pool(key[0], key[1], generation, expected, stale_slices=stale)
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

    @property
    def first_error(self) -> str | None:
        return next(iter(self.errors), None)


def count_matching(pools: Sequence[Pool], selectors: Sequence[str], evaluator: SelectorEvaluator) -> MatchCount:
    """Count devices (and the pools they are in) for which every selector is true."""
    result = MatchCount()
    for pool in pools:
        matched = 0
        for device in pool.devices():
            try:
                ok = evaluator.matches(selectors, pool.driver, device)
            except CelError as e:
                result.errors[str(e)] = result.errors.get(str(e), 0) + 1
                continue
            if ok:
                matched += 1
        if not matched:
            continue
        if pool.complete:
            result.devices += matched
            result.pools += 1
        else:
            result.incomplete_pool_devices += matched
    return result
