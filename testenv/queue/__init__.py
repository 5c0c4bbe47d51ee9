"""The queue oracle: ``explain`` against what the real Kueue does with the queue.

Scenarios over seven areas — flavors (nodeLabels against nodeSelector and required node affinity,
nodeTaints against tolerations, the flavor's own tolerations, quota per flavor, several resource
groups, borrowing and flavorFungibility), preemption (withinClusterQueue, reclaimWithinCohort,
borrowWithinCohort, WorkloadPriorityClasses and PriorityClasses), lifecycle (spec.active,
evictions, requeueing, finishing), admission checks, stop policies, order and position (StrictFIFO,
BestEffortFIFO, the visibility API), and changes after admission — each drives Kueue into a declared
state, over phases (steps after the first settle), in worlds that share the DRA matrix's Kueue.

Modules, in the order of a run: ``model`` (scenario, step, expectation), ``builders`` (the Kueue
queue objects, shared with the queue model's unit tests), ``objects`` (the scenarios' names, pods,
Jobs and Workloads), ``actions`` (what a step does), ``run`` (create, step, settle, explain),
``observe`` (Kueue's record and positions), ``expect`` (did Kueue reach the declared state),
``causes`` and ``judge`` (explain against the record), ``report`` (the tables); ``scenarios``
assembles the worlds from ``scen_flavors``, ``scen_preemption``, ``scen_lifecycle``,
``scen_checks``, ``scen_stops``, ``scen_order`` and ``scen_changes``.
"""
