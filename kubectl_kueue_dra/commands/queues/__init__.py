"""``queues``: which ClusterQueue holds which quota, how much is used and by whom, what waits."""
