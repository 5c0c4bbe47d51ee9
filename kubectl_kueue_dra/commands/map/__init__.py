"""``map``: the deviceClassMappings and what keeps each from charging anything; ``map set`` and
``map remove``: the checked read-modify-write."""
