"""Levels added by a package above the bots: ``ppo``, a trained policy, from :mod:`gotown.rl`.

The bots import only the engine, so such a package adds its level with :func:`register_level`
and the composing layer (the CLI) calls it. Such a level reads its own parameters:
``ppo:path=FILE``.

The registry is the package's :data:`gotown.bots.EXTRA_LEVELS`, looked up at each use
(:func:`extra_levels`): a registry put in its place there (a test's own, dropped after it) is the
one that every spec and :func:`register_level` then use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .base import Bot
from .levels import LEVELS


@dataclass(frozen=True)
class ExtraLevel:
    """A level added by :func:`register_level`: ``check(spec)`` raises ``ValueError`` naming
    what is wrong with a spec, ``make(spec, seed)`` returns its bot."""

    check: Callable[[str], None]
    make: Callable[[str, int], Bot]


#: The levels added with :func:`register_level`, by name.
EXTRA_LEVELS: dict[str, ExtraLevel] = {}


def extra_levels() -> dict[str, ExtraLevel]:
    """The registry in use: the package's ``EXTRA_LEVELS`` (this very dict, unless replaced)."""
    import gotown.bots  # (loaded by now: this module is one of its parts)

    return gotown.bots.EXTRA_LEVELS


def register_level(
    level: str, check: Callable[[str], None], make: Callable[[str, int], Bot]
) -> None:
    """Add ``level`` to the specs that :func:`~gotown.bots.spec.parse_bot_spec`,
    :func:`~gotown.bots.spec.canonical_spec` and :func:`~gotown.bots.spec.bot_from_spec` accept
    (again: the same name replaces its functions)."""
    if level in LEVELS or not re.fullmatch(r"[a-z][a-z0-9-]*", level):
        raise ValueError(f"{level!r} cannot be added as a bot level")
    extra_levels()[level] = ExtraLevel(check, make)
