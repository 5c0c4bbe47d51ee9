"""Workloads as Kueue sees them: pod sets (from a Workload, or derived from a job's manifest), the
adjustments and transformations Kueue applies before it counts, its admissibility checks,
partial admission, what Kueue wrote into a Workload's status, and what happened to the pods
afterwards (allocations, scheduling, events)."""
