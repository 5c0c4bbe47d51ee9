"""Kueue's scheduler as a model: what it decides from (``world``, ``snapshot``), the flavor search
(``flavor_match``, ``modes``, ``assigner``, ``assignment``), classical preemption
(``preemption``, ``preemption_plan``), and the order of the queue (``priority``, ``queue_order``).

Pure: objects in, predictions out. It builds on ``kueue.queues`` (the cohort tree, a ClusterQueue's
facts), never the other way round."""
