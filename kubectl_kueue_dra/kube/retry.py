"""Whether a failed request is sent again, and after how long.

* **429 Too Many Requests** (API Priority and Fairness, or the max-in-flight limit): the server
  refused the request before running it, so any method is sent again, after the ``Retry-After``
  the server asked for (each wait at most ``MAX_WAIT``), with one ``warning:`` line on stderr per
  wait. When the wait would run past the request's deadline (``--request-timeout``, retries
  included) the request fails at once instead.
* **500, 502, 503, 504** and a **broken connection** (reset, closed mid-answer, no answer in
  time): the server may have acted on the request, so only reads (GET) are sent again; a write
  that meets one fails, saying it may have been applied.
* A connection that could **not be opened**: nothing was sent; any method is sent again.
* A **TLS** error is not retried: it would fail the same way.

Every wait stays inside the request's deadline; a read that fails ``MAX_ATTEMPTS`` times for the
reasons of the second point gives up.
"""

from __future__ import annotations

import email.utils
import logging
import random
from dataclasses import dataclass
from typing import IO

from ..environment import Clock

log = logging.getLogger(__name__)

IDEMPOTENT = frozenset({"GET", "HEAD"})
SERVER_ERRORS = frozenset({500, 502, 503, 504})
THROTTLED = 429
MAX_ATTEMPTS = 4  # tries of a read that meets server errors or broken connections
MAX_THROTTLED = 20  # 429 answers to one request before giving up (the deadline usually comes first)
MAX_WAIT = 10.0  # the longest single wait, whatever Retry-After says
#: what a connection error is: nothing was sent, the connection broke after sending, or TLS failed
NOT_SENT, BROKEN, TLS = "not sent", "broken", "tls"


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """The ``Retry-After`` header in seconds (delay-seconds or an HTTP date, ``now`` seconds since
    the epoch), None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


def _backoff(attempt: int) -> float:
    """0.2 s, 0.4 s, 0.8 s, … at most 2 s, with ±20% jitter."""
    return min(2.0, 0.2 * (2 ** (attempt - 1))) * (0.8 + 0.4 * random.random())


@dataclass
class Attempts:
    """The retry state of one request: its method and deadline, what it met so far."""

    method: str
    deadline: float  # the clock's monotonic time by which the request must be done, waits included
    clock: Clock
    tries: int = 0  # requests sent (or tried)
    failures: int = 0  # server errors and broken connections
    throttled: int = 0  # 429 answers

    def remaining(self) -> float:
        return self.deadline - self.clock.monotonic()

    def _fits(self, wait: float) -> float | None:
        """``wait`` when a request can still follow it before the deadline, else None."""
        return wait if wait < self.remaining() - 0.1 else None

    def after_status(self, status: int, retry_after: str | None) -> float | None:
        """Seconds to wait before sending again after this answer, or None: do not retry."""
        asked = retry_after_seconds(retry_after, self.clock.now().timestamp())
        if status == THROTTLED:
            self.throttled += 1
            if self.throttled > MAX_THROTTLED:
                return None
            wait = min(MAX_WAIT, asked if asked is not None else _backoff(self.throttled))
            return self._fits(wait)
        if status in SERVER_ERRORS and self.method in IDEMPOTENT:
            self.failures += 1
            if self.failures >= MAX_ATTEMPTS:
                return None
            wait = min(MAX_WAIT, asked) if asked is not None else _backoff(self.failures)
            return self._fits(wait)
        return None

    def after_error(self, what: str) -> float | None:
        """Seconds to wait before sending again after a connection error (``NOT_SENT``,
        ``BROKEN`` or ``TLS``), or None: do not retry."""
        if what == TLS or (what == BROKEN and self.method not in IDEMPOTENT):
            return None
        self.failures += 1
        if self.failures >= MAX_ATTEMPTS:
            return None
        return self._fits(_backoff(self.failures))


def say_throttled(wait: float, stderr: IO[str]) -> None:
    """The one stderr line of a wait on a 429."""
    print(f"warning: the API server is throttling requests (429 Too Many Requests); retrying in {wait:.3g}s",
          file=stderr, flush=True)
