"""What one seat may see (R22), decided in one place (as OpenSpiel's ``Observer``).

A seat sees every public fact, its own hand, the cards it draws, and the card a thief moves
when it is the thief or the victim; a spectator (``seat`` None) sees the public facts only.
Once the game is over every hand is laid down for everyone, seats and spectators alike (R22).
``Game.view`` and ``Game.events`` delegate here, so a leak has to be written here, on purpose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CODES, DECK_SIZE, KINDS
from .errors import InvalidActionError
from .views import Event, Floor, View
from .zones import FloorT, floor_codes

if TYPE_CHECKING:  # (types only: the game imports this module, never the reverse)
    from .game import Game, RawEvent


def check_seat(game: Game, seat: int | None) -> None:
    """A seat of this game or None; anything else (``True``, ``1.0``, which compare equal to
    a seat) is refused rather than shown that seat's cards (R22)."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < game.players):
        raise InvalidActionError(f"seat {seat!r} does not exist (R1)")


def view(game: Game, seat: int | None, seen: list[Event]) -> View:
    """What ``seat`` may know of ``game`` (None: a spectator), with the events it has seen
    (:func:`events`; an empty list gives the view of a copy without history, as learners and
    bots that read no history need, at a cost that does not grow with the game's length)."""
    check_seat(game, seat)
    hand = None
    if seat is not None:
        hand = _hand_codes(game.hands[seat])
    outcome = game.outcome()
    hands = None if outcome is None else tuple(_hand_codes(counts) for counts in game.hands)
    return View(
        seat=seat,
        players=game.players,
        active=game.active,
        turn=game.turn,
        version=game.version,
        hand=hand,
        hand_sizes=tuple(game.hand_sizes),
        towers=tuple([tuple([_floor_codes(f) for f in t]) for t in game.towers]),
        milkshakes=tuple(game.milkshakes),
        donut=game.donut,
        discard=tuple([CODES[k] for k in game.discard]),
        draw_size=len(game.draw),
        options=game.options,
        winner=None if outcome is None else outcome.winner,
        over=outcome is not None,
        events=tuple(seen),
        hands=hands,
        reason=None if outcome is None else outcome.reason.value,
    )


#: Each kind's code repeated as often as a hand can hold it (R2: 54 cards in all).
_RUNS: tuple[tuple[str, ...], ...] = tuple((code,) * DECK_SIZE for code in CODES)
#: A floor's codes by its engine form: few floors exist, and a view shows every floor.
_FLOORS: dict[FloorT, Floor] = {}


def _hand_codes(counts: list[int]) -> tuple[str, ...]:
    """A hand of counts per kind as its codes, in kind order."""
    codes: tuple[str, ...] = ()
    for kind in range(KINDS):
        count = counts[kind]
        if count:
            codes += _RUNS[kind][:count]
    return codes


def _floor_codes(floor: FloorT) -> Floor:
    codes = _FLOORS.get(floor)
    if codes is None:
        codes = _FLOORS[floor] = floor_codes(floor)
    return codes


def events(game: Game, seat: int | None, raw_events: list[RawEvent]) -> list[Event]:
    """``raw_events`` (the game's own record of what happened) as ``seat`` saw them."""
    check_seat(game, seat)
    out: list[Event] = []
    for raw in raw_events:
        kind = raw[0]
        if kind == "action":
            out.append(Event("action", seat=raw[1], action=raw[2]))
        elif kind == "draw":
            card = CODES[raw[2]] if seat == raw[1] else None
            out.append(Event("draw", seat=raw[1], card=card))
        elif kind == "turn":
            out.append(Event("turn", turn=raw[1], seat=raw[2], extra=raw[3]))
        elif kind == "stolen":
            card = CODES[raw[3]] if seat in (raw[1], raw[2]) else None
            out.append(Event("stolen", seat=raw[1], victim=raw[2], card=card))
        elif kind == "milkshake-turn":
            out.append(Event("milkshake-turn", seat=raw[1], count=raw[2]))
        elif kind == "reshuffle":
            out.append(Event("reshuffle", count=raw[1]))
        else:
            out.append(Event("end", winner=raw[1], reason=raw[2]))
    return out
