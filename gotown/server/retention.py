"""How long the server keeps what it stores about people, and the deletion that ends it.

A game's record holds its players' names and every move. Kept for ever by default; an operator
who must keep personal data no longer than needed sets how long:

- ``retention_days``: a finished game is deleted this many days after it ended;
- ``abandoned_days``: a game not finished and unchanged this long (a lobby nobody filled, a
  table everyone left) is deleted too.

Each process sweeps every hour (:class:`~gotown.server.operations.Operations`; with several
processes each sweeps, and a game is deleted once); ``gotown admin purge`` sweeps now, for a
timer of the operator's. A deleted game is gone for good: its links answer "no such game".

**What else is kept about people** is purged by the steps of :data:`STEPS`, run in order by
:func:`purge`: one for games now. Notification subscriptions (push endpoints, e-mail addresses,
``tables.SubscriptionRow``) are to be purged by a step added here, with its own setting, when
their policy is decided: a subscription whose device key was revoked, or unused for so long.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from .config import Settings
from .storage import Store
from .storage_admin import delete_games, expired_games

#: Games deleted per transaction (a first sweep of a large database takes several).
BATCH = 500


def cutoffs(settings: Settings, now: dt.datetime) -> tuple[dt.datetime | None, dt.datetime | None]:
    """(finished before, unchanged before) for the settings at ``now``; None where kept."""
    finished = now - dt.timedelta(days=settings.retention_days) if settings.retention_days else None
    unchanged = (
        now - dt.timedelta(days=settings.abandoned_days) if settings.abandoned_days else None
    )
    return finished, unchanged


def purge_games(store: Store, settings: Settings, now: dt.datetime) -> list[str]:
    """Delete the games past their retention at ``now``; answers their ids."""
    finished, unchanged = cutoffs(settings, now.astimezone(dt.UTC))
    deleted: list[str] = []
    while batch := expired_games(store, finished, unchanged, BATCH):
        delete_games(store, batch)
        deleted.extend(batch)
        if len(batch) < BATCH:
            break
    return deleted


#: The purges :func:`purge` runs, in order: each deletes what its setting says has been kept
#: long enough at ``now`` and answers the ids of the games it deleted (the server drops them
#: from memory). Add notification subscriptions' here.
STEPS: list[Callable[[Store, Settings, dt.datetime], list[str]]] = [purge_games]


def purge(store: Store, settings: Settings, now: dt.datetime) -> list[str]:
    """Run every step of :data:`STEPS` at ``now``; the ids of the games deleted."""
    deleted: list[str] = []
    for step in STEPS:
        deleted.extend(step(store, settings, now))
    return deleted
