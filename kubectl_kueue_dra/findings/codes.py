"""Every finding code, by name: ``from ...findings import codes as F``, then
``F.QuotaExhausted.make(message, …)``. The codes are declared in the modules of this package, one
per subject; ``catalogue`` lists them in order."""

from .charge import *  # noqa: F403
from .devices import *  # noqa: F403
from .lifecycle import *  # noqa: F403
from .mappings import *  # noqa: F403
from .pods import *  # noqa: F403
from .queues import *  # noqa: F403
from .setup import *  # noqa: F403
