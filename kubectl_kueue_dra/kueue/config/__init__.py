"""Kueue's configuration: where it lives (the OpenShift Kueue CR or upstream Kueue's ConfigMap,
and which Deployment is Kueue), its text read and decoded as the Kueue version in use does at
start, the deviceClassMappings model, what Kueue and the operator's CRD reject in it, and the
edits ``map`` makes."""
