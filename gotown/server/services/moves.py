"""One move, a person's or a bot's: checked against the version it was made on, applied to a
copy, stored, and only then made current (the caller holds the game's lock, so that the moves of
one game are applied one at a time).

The action and, when it ends the game, the status are one write: a failure between two writes
would answer "try again" for an action that was made. Who made it (the seat's kind) is checked
in that write too: another process may have handed the seat over, or taken it back from its
bot, since this one looked.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from gotown.engine import Action, GoTownError, IllegalActionError, InvalidActionError

from ..errors import ConflictError, InvalidError
from ..storage import ConflictError as WriteConflictError
from ..storage import SeatChangedError
from .registry import LiveGame, Registry


def parse_action(data: Any) -> Action:
    try:
        return Action.from_json(data)
    except (GoTownError, TypeError, KeyError, ValueError) as exc:
        raise InvalidError("invalid-action", f"not an action: {exc}") from exc


async def apply_move(
    registry: Registry, live: LiveGame, seat: int, version: int, data: Any
) -> None:
    """Check and apply one action of ``seat``; the caller holds the game's lock."""
    game = live.game
    if game is None:
        raise ConflictError("not-started", "the game has not started: seats are still free")
    if game.is_over:
        raise ConflictError("game-over", "the game is over")
    if version != game.version:
        raise ConflictError(
            "stale-version",
            f"this action was made on version {version}, but the game is at version "
            f"{game.version}: it is stale or was already sent",
        )
    if game.active != seat:
        raise ConflictError("not-your-turn", f"it is seat {game.active}'s turn, not yours")
    action = parse_action(data)
    after = game.copy()
    try:
        after.apply(action)
    except IllegalActionError as exc:
        raise InvalidError("illegal-action", exc.reason, rule=exc.rule) from exc
    except InvalidActionError as exc:
        raise InvalidError("invalid-action", str(exc)) from exc
    kind = live.stored.seats[seat].kind
    store_it = functools.partial(registry.store.append_action, ends=after.is_over, kind=kind)
    try:
        await registry.write(live.id, store_it, live.id, version, seat, action.to_json())
    except SeatChangedError as exc:
        await registry.reload(live)
        if kind == "human":
            raise ConflictError("seat-is-bot", f"{exc}: take it back first") from exc
        raise ConflictError("stale-version", str(exc)) from exc  # (a bot's: not shown)
    except WriteConflictError as exc:
        await registry.reload(live)
        raise ConflictError("stale-version", "another action was applied first") from exc
    live.game = after
    live.used = time.monotonic()
    live.stored.actions.append(action.to_json())
    if after.is_over:
        live.stored.status = "over"
