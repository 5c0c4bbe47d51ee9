"""``version``: the plugin's, the API server's, OpenShift's and Kueue's versions."""
