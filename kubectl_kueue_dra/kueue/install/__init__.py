"""The Kueue installation: which Kueue runs and where that fact came from, what the OpenShift
operator renders, what differs between Kueue versions, the effective gates, the platform
(OpenShift or not) and the commands users are told to run there, where ``map`` writes and how
Kueue picks a change up."""
