"""``classes``: each DeviceClass, the quota resource it charges and its devices; and
``classes set-extended-resource``."""
