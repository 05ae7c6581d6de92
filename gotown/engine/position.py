"""Positions in the FORMAT.md JSON shape: parsed (and validated) into a plain
:class:`Position`, and written back. :class:`Game` builds itself from one and gives one back
(``Game.from_position``, ``Game.to_position``); this module knows nothing of the game.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import (
    CODES,
    COPIES,
    DOG,
    DONUT_TRUCK,
    JOKER,
    KIND_OF,
    KINDS,
    MAX_PLAYERS,
    MILKSHAKE,
    MIN_PLAYERS,
    full_deck,
)
from .errors import InvalidActionError, InvalidPositionError
from .options import Options
from .outcome import Outcome
from .views import View
from .zones import FloorT, floor_codes

#: A guess at the hands a view hides: the cards of each seat (None for the viewer's own).
Hands = Sequence[Iterable[str] | None]

HAND_SIZE_AT_DEAL: Final = 5  # R4
SEED_BITS: Final = 63  # the seed a random event leaves behind for the next

_KEYS: Final = {
    "players", "active", "hands", "towers", "milkshakes", "donut", "discard", "draw",
    "turn", "options", "seed", "winner", "over",
}  # fmt: skip


@dataclass(slots=True)
class Position:
    """Everything a game is at one moment: zones as kinds (a hand as counts per kind, the draw
    pile with its top card last), whose turn it is, the seed of what chance does next, and the
    outcome once it is over. Its lists belong to whoever builds a game from it."""

    players: int
    options: Options
    active: int
    turn: int
    seed: int
    hands: list[list[int]]
    towers: list[list[FloorT]]
    milkshakes: list[int]
    donut: bool
    discard: list[int]
    draw: list[int]
    outcome: Outcome | None

    def kind_counts(self) -> list[int]:
        """How many cards of each kind the zones hold, in kind order (R2, R3)."""
        return kind_counts(self.hands, self.towers, self.discard, self.draw, self.milkshakes,
                           self.donut)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        """The FORMAT.md shape (``over`` and ``winner`` only once the game is over)."""
        data: dict[str, Any] = {
            "players": self.players,
            "active": self.active,
            "hands": [[CODES[k] for k in range(KINDS) for _ in range(h[k])] for h in self.hands],
            "towers": [[list(floor_codes(f)) for f in tower] for tower in self.towers],
            "milkshakes": list(self.milkshakes),
            "donut": self.donut,
            "discard": [CODES[k] for k in self.discard],
            "draw": [CODES[k] for k in reversed(self.draw)],
            "turn": self.turn,
            "options": self.options.to_json(),
            "seed": self.seed,
        }
        if self.outcome is not None:
            data["over"] = True
            data["winner"] = self.outcome.winner
        return data

    @classmethod
    def from_json(cls, data: Any) -> Position:
        """Parse and validate a FORMAT.md position; InvalidPositionError names what is wrong.

        A position without ``draw`` has the cards it does not show shuffled into the draw pile
        from its seed (which then moves on).
        """
        if not isinstance(data, dict):
            raise InvalidPositionError("a position must be a JSON object")
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise InvalidPositionError(f"a position has no field {unknown[0]!r}")
        players = _int(data, "players")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InvalidPositionError(f"GoTown is for 2 to 4 players, not {players} (R1)")
        options = Options.from_json(data.get("options"))
        active = _int(data, "active")
        if not 0 <= active < players:
            raise InvalidPositionError(f"active seat {active} does not exist (R1)")
        turn = _int(data, "turn", 1)
        _check_turn(turn, players, options)
        position = cls(
            players=players,
            options=options,
            active=active,
            turn=turn,
            seed=_int(data, "seed", 0),
            hands=_hands(data, players),
            towers=_towers(data, players, options),
            milkshakes=_milkshakes(data, players, options, active),
            donut=_bool(data, "donut"),
            discard=_kinds(data.get("discard", []), "discard"),
            draw=_kinds(data["draw"], "draw")[::-1] if "draw" in data else [],
            outcome=None,
        )
        position._check_counts(deal_rest="draw" not in data)
        position.outcome = _outcome(data, position)
        return position

    @classmethod
    def deal(cls, players: object, seed: object, options: Options) -> Position:
        """R4: the 54 cards shuffled by ``seed``, 5 dealt to each seat, the rest the draw pile,
        and the first player chosen (at random unless ``first_player`` names one), its turn
        (turn 1) not yet begun. InvalidActionError for a setup the rules do not allow."""
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InvalidActionError(f"GoTown is for 2 to 4 players, not {players!r} (R1)")
        if type(seed) is not int:
            raise InvalidActionError(f"the seed must be an integer, not {seed!r}")
        first = options.first_player
        if first != "random" and not int(first) < players:
            raise InvalidActionError(
                f"first_player {first} is not a seat of {players} players (R23)"
            )
        rng = random.Random(seed)
        deck = full_deck()
        rng.shuffle(deck)
        hands = [[0] * KINDS for _ in range(players)]
        for _ in range(HAND_SIZE_AT_DEAL):
            for seat in range(players):
                hands[seat][deck.pop()] += 1
        active = rng.randrange(players) if first == "random" else int(first)
        return cls(
            players=players,
            options=options,
            active=active,
            turn=0,
            seed=rng.getrandbits(SEED_BITS),
            hands=hands,
            towers=[[] for _ in range(players)],
            milkshakes=[0] * players,
            donut=False,
            discard=[],
            draw=deck,
            outcome=None,
        )

    @classmethod
    def from_view(cls, view: View, hands: Hands, draw: Sequence[str], seed: int) -> Position:
        """The position ``view`` shows, completed by a guess at what it hides.

        ``hands[s]`` are the cards of seat s (None for the view's own seat, whose hand the view
        holds); ``draw`` is the draw pile, top first. The sizes must match the view's, and the
        cards the 54 (InvalidActionError otherwise).
        """
        if len(hands) != view.players:
            raise InvalidActionError(f"one hand per seat is needed, not {len(hands)}")
        counts = []
        for seat in range(view.players):
            cards: Iterable[object] | None = view.hand if seat == view.seat else hands[seat]
            if cards is None:
                raise InvalidActionError(f"the hand of seat {seat} is needed")
            hand = [0] * KINDS
            for code in cards:
                hand[_guessed(code)] += 1
            if sum(hand) != view.hand_sizes[seat]:
                raise InvalidActionError(
                    f"seat {seat} holds {view.hand_sizes[seat]} cards, not {sum(hand)}"
                )
            counts.append(hand)
        guessed_draw: Sequence[object] = draw  # (checked here, not by the compiled engine)
        if len(draw) != view.draw_size:
            raise InvalidActionError(f"the draw pile holds {view.draw_size} cards, not {len(draw)}")
        position = cls(
            players=view.players,
            options=view.options,
            active=view.active,
            turn=view.turn,
            seed=seed,
            hands=counts,
            towers=[[floor_from_codes(list(f)) for f in tower] for tower in view.towers],
            milkshakes=list(view.milkshakes),
            donut=view.donut,
            discard=[KIND_OF[c] for c in view.discard],
            draw=[_guessed(c) for c in reversed(guessed_draw)],
            outcome=view.outcome,
        )
        for kind, count in enumerate(position.kind_counts()):
            if count > COPIES[kind]:
                raise InvalidActionError(
                    f"the guess holds {count} cards {CODES[kind]!r}; the game has "
                    f"{COPIES[kind]} (R2)"
                )
        return position

    def _check_counts(self, deal_rest: bool) -> None:
        used = self.kind_counts()
        for kind in range(KINDS):
            if used[kind] > COPIES[kind]:
                raise InvalidPositionError(
                    f"the position holds {used[kind]} cards {CODES[kind]!r}; the game has "
                    f"{COPIES[kind]} (R2)"
                )
        if deal_rest:
            rest = [kind for kind in range(KINDS) for _ in range(COPIES[kind] - used[kind])]
            rng = random.Random(self.seed)
            rng.shuffle(rest)
            self.draw = rest
            self.seed = rng.getrandbits(SEED_BITS)


def kind_counts(
    hands: list[list[int]],
    towers: list[list[FloorT]],
    discard: list[int],
    draw: list[int],
    milkshakes: list[int],
    donut: bool,
) -> list[int]:
    """How many cards of each kind these zones hold, in kind order (R2, R3)."""
    counts = [sum(hand[kind] for hand in hands) for kind in range(KINDS)]
    for kind in discard:
        counts[kind] += 1
    for kind in draw:
        counts[kind] += 1
    for tower in towers:
        for number, other, dogs in tower:
            counts[number] += 1
            counts[other] += 1
            counts[DOG] += dogs
    counts[MILKSHAKE] += sum(milkshakes)
    counts[DONUT_TRUCK] += donut
    return counts


def floor_from_codes(cards: Any, where: str = "a floor") -> FloorT:
    """A floor from its JSON list (two floor cards in any order, then dogs) (R5, R12)."""
    kinds = _kinds(cards, where)
    dogs = kinds.count(DOG)
    pair = [k for k in kinds if k != DOG]
    if len(pair) != 2 or not all(0 <= k <= 8 for k in pair):
        raise InvalidPositionError(
            f"{where} {cards!r} is not a floor: two floor cards, and dogs only besides (R5)"
        )
    a, b = pair
    if a == JOKER and b == JOKER:
        raise InvalidPositionError(f"{where} {cards!r}: two jokers never make a floor (R5)")
    if a == JOKER:
        a, b = b, a
    if b != JOKER and a + b != 9:
        raise InvalidPositionError(f"{where} {cards!r}: {a} + {b} is not 9 (R5)")
    return (a, b, dogs)


def _guessed(code: Any) -> int:
    kind = KIND_OF.get(code) if isinstance(code, str) else None
    if kind is None:
        raise InvalidActionError(f"{code!r} is not a card (R2)")
    return kind


def _int(data: dict[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if type(value) is not int:
        raise InvalidPositionError(f"{key!r} must be an integer, not {value!r}")
    return value


def _bool(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if type(value) is not bool:
        raise InvalidPositionError(f"{key!r} must be true or false")
    return value


def _kinds(cards: Any, where: str) -> list[int]:
    if not isinstance(cards, list):
        raise InvalidPositionError(f"{where} must be a list of cards, not {cards!r}")
    out = []
    for code in cards:
        if not isinstance(code, str) or code not in KIND_OF:
            raise InvalidPositionError(f"{where}: {code!r} is not a card (R2)")
        out.append(KIND_OF[code])
    return out


def _check_turn(turn: int, players: int, options: Options) -> None:
    if turn < 1:
        raise InvalidPositionError("'turn' counts from 1")
    first = options.first_player
    if first != "random" and not int(first) < players:
        raise InvalidPositionError(f"option first_player: {first} is not a seat of {players} (R23)")
    limit = options.turn_limit
    if limit is not None and turn > limit:
        raise InvalidPositionError(
            f"turn {turn} is past turn_limit {limit}: the game ends when turn {limit} ends (R23)"
        )


def _per_seat(data: dict[str, Any], key: str, players: int, default: Any = None) -> list[Any]:
    value = data.get(key, default)
    if not isinstance(value, list) or len(value) != players:
        raise InvalidPositionError(f"{key!r} must be a list with one entry per seat")
    return value


def _hands(data: dict[str, Any], players: int) -> list[list[int]]:
    hands = [[0] * KINDS for _ in range(players)]
    for seat, cards in enumerate(_per_seat(data, "hands", players)):
        for kind in _kinds(cards, f"hands[{seat}]"):
            hands[seat][kind] += 1
    return hands


def _towers(data: dict[str, Any], players: int, options: Options) -> list[list[FloorT]]:
    towers: list[list[FloorT]] = []
    for seat, tower in enumerate(_per_seat(data, "towers", players)):
        if not isinstance(tower, list):
            raise InvalidPositionError(f"towers[{seat}] must be a list of floors")
        floors = []
        for index, cards in enumerate(tower):
            floor = floor_from_codes(cards, f"towers[{seat}][{index}]")
            if floor[2] > 1 and options.dogs_per_floor == 1:
                raise InvalidPositionError(
                    f"towers[{seat}][{index}] has {floor[2]} dogs; one per floor (R12, R23)"
                )
            floors.append(floor)
        towers.append(floors)
    return towers


def _milkshakes(data: dict[str, Any], players: int, options: Options, active: int) -> list[int]:
    out = []
    for seat, count in enumerate(_per_seat(data, "milkshakes", players, [0] * players)):
        if type(count) is not int or count < 0:
            raise InvalidPositionError(f"milkshakes[{seat}] must be a count >= 0")
        if count > 1 and options.milkshake_stacking == "forbid":
            raise InvalidPositionError(
                f"milkshakes[{seat}] is {count}: one pending milkshake at most (R18, R23)"
            )
        if count and seat == active and not data.get("over", False) and data.get("winner") is None:
            raise InvalidPositionError(
                f"the active seat {seat} has a pending milkshake: its turn would be a "
                "milkshake turn (R7a)"
            )
        out.append(count)
    return out


def _outcome(data: dict[str, Any], position: Position) -> Outcome | None:
    """The outcome a position records, checked against the rule that ends a game with a winner
    (R20). Over without a winner, the game (:meth:`Game.from_plain`) tells a stalemate (R20b)
    from the turn limit (R23), and refuses a position that is neither."""
    over = _bool(data, "over")
    winner = data.get("winner")
    players, options, towers = position.players, position.options, position.towers
    if winner is not None and (type(winner) is not int or not 0 <= winner < players):
        raise InvalidPositionError(f"winner {winner!r} is not a seat")
    if winner is not None:
        if "over" in data and not over:
            raise InvalidPositionError(f"winner {winner} is set, yet 'over' is false (R20)")
        over = True
        if len(towers[winner]) != options.win_floors:
            raise InvalidPositionError(
                f"winner {winner} has {len(towers[winner])} floors: a game is won with"
                f" {options.win_floors}, and ends there (R20)"
            )
        if winner != position.active:
            raise InvalidPositionError(
                f"winner {winner} is not the active seat {position.active}: a game is won by a"
                " build or steal in the winner's own turn, and ends there (R20)"
            )
    for seat, tower in enumerate(towers):
        if len(tower) >= options.win_floors and winner != seat:
            raise InvalidPositionError(
                f"seat {seat} has {len(tower)} floors: the game would be won (R20)"
            )
    return Outcome.of(winner) if over else None
