"""Text to objects: a large JSON or YAML List read item by item as it arrives (``jsonstream``,
``yamlstream``), and ResourceSlices parsed with their devices' repeated parts shared (``slices``)."""
