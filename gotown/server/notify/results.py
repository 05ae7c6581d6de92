"""What became of one delivery, and when to try again.

A push service or an SMTP server answers in one of four ways, and the caller does one thing for
each: :attr:`Outcome.DELIVERED` (done), :attr:`Outcome.GONE` (the subscription is dead: drop
it), :attr:`Outcome.RETRY` (try again after :meth:`Backoff.delay`) and :attr:`Outcome.REFUSED`
(this notice will never go through: drop the notice, keep the subscription). Senders return a
:class:`Delivery`; they never raise for a delivery that failed.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

#: The longest wait a service's Retry-After may impose (a longer one is taken as this).
MAX_RETRY_AFTER = 6 * 3600.0


class Outcome(enum.StrEnum):
    DELIVERED = "delivered"
    GONE = "gone"
    RETRY = "retry"
    REFUSED = "refused"


@dataclass(frozen=True)
class Delivery:
    outcome: Outcome
    detail: str
    """What happened, in a sentence for the log (never a secret of the subscription)."""
    status: int | None = None
    """The HTTP status, or the SMTP reply code, when there was an answer."""
    retry_after: float | None = None
    """Seconds the service asked us to wait (its Retry-After), with :attr:`Outcome.RETRY`."""


@dataclass(frozen=True)
class Backoff:
    """Exponential back-off with jitter, capped, for a bounded number of attempts.

    After the n-th failed attempt the next waits a random time between half and all of
    ``min(cap, base * 2 ** (n - 1))`` (the jitter keeps notices that failed together from
    coming back together), and at least what the service asked for in its Retry-After.
    """

    base: float = 30.0
    cap: float = 3600.0
    max_attempts: int = 6

    def __post_init__(self) -> None:
        if not 0 < self.base <= self.cap:
            raise ValueError("Backoff: need 0 < base <= cap")
        if self.max_attempts < 1:
            raise ValueError("Backoff: max_attempts must be >= 1")

    def delay(
        self, attempts: int, rng: random.Random, retry_after: float | None = None
    ) -> float | None:
        """Seconds to wait after ``attempts`` failed attempts, or None: give up (the last
        attempt is spent)."""
        if attempts < 1:
            raise ValueError("Backoff.delay: attempts counts the failed attempts, from 1")
        if attempts >= self.max_attempts:
            return None
        ceiling = min(self.cap, self.base * 2 ** (attempts - 1))
        wait = rng.uniform(ceiling / 2, ceiling)
        if retry_after is not None:
            wait = max(wait, min(retry_after, MAX_RETRY_AFTER))
        return wait


def parse_retry_after(text: str | None, now: float) -> float | None:
    """Retry-After's seconds, from a number of seconds or an HTTP date (RFC 9110 10.2.3) and
    ``now`` (seconds since the epoch); None when absent or unreadable."""
    if not text:
        return None
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)
