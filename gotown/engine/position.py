"""Positions in the FORMAT.md JSON shape: reading (with validation) and writing."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .cards import CODES, COPIES, DOG, JOKER, KIND_OF, KINDS
from .errors import InvalidPositionError
from .options import Options
from .outcome import Outcome

if TYPE_CHECKING:
    from .game import Game

FloorT = tuple[int, int, int]

_KEYS = {
    "players", "active", "hands", "towers", "milkshakes", "donut", "discard", "draw",
    "turn", "options", "seed", "winner", "over",
}  # fmt: skip


def _int(data: dict[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if type(value) is not int:
        raise InvalidPositionError(f"{key!r} must be an integer, not {value!r}")
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


def floor_from_codes(cards: list[str], where: str = "a floor") -> FloorT:
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


def game_from_position(data: Any) -> Game:
    from .game import Game

    if not isinstance(data, dict):
        raise InvalidPositionError("a position must be a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise InvalidPositionError(f"a position has no field {unknown[0]!r}")
    players = _int(data, "players")
    if not 2 <= players <= 4:
        raise InvalidPositionError(f"GoTown is for 2 to 4 players, not {players} (R1)")
    options = Options.from_json(data.get("options"))
    game = Game._blank(players, options)
    active = _int(data, "active")
    if not 0 <= active < players:
        raise InvalidPositionError(f"active seat {active} does not exist (R1)")
    game.active = active
    game.turn = _int(data, "turn", 1)
    if game.turn < 1:
        raise InvalidPositionError("'turn' counts from 1")
    fp = options.first_player
    if fp != "random" and not int(fp) < players:
        raise InvalidPositionError(f"option first_player: {fp} is not a seat of {players} (R23)")
    limit = options.turn_limit
    if limit is not None and game.turn > limit:
        raise InvalidPositionError(
            f"turn {game.turn} is past turn_limit {limit}: the game ends when turn {limit}"
            " ends (R23)"
        )
    game.seed = _int(data, "seed", 0)

    def seats_list(key: str, default: Any) -> list[Any]:
        value = data.get(key, default)
        if not isinstance(value, list) or len(value) != players:
            raise InvalidPositionError(f"{key!r} must be a list with one entry per seat")
        return value

    for seat, cards in enumerate(seats_list("hands", None)):
        for kind in _kinds(cards, f"hands[{seat}]"):
            game.hands[seat][kind] += 1
            game.hand_sizes[seat] += 1
    for seat, tower in enumerate(seats_list("towers", None)):
        if not isinstance(tower, list):
            raise InvalidPositionError(f"towers[{seat}] must be a list of floors")
        for index, cards in enumerate(tower):
            floor = floor_from_codes(cards, f"towers[{seat}][{index}]")
            if floor[2] > 1 and options.dogs_per_floor == 1:
                raise InvalidPositionError(
                    f"towers[{seat}][{index}] has {floor[2]} dogs; one per floor (R12, R23)"
                )
            game.towers[seat].append(floor)
    for seat, count in enumerate(seats_list("milkshakes", [0] * players)):
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
        game.milkshakes[seat] = count
    donut = data.get("donut", False)
    if type(donut) is not bool:
        raise InvalidPositionError("'donut' must be true or false")
    game.donut = donut
    game.discard = _kinds(data.get("discard", []), "discard")
    if "draw" in data:
        game.draw = _kinds(data["draw"], "draw")[::-1]
    used = game.kind_counts()
    for kind in range(KINDS):
        if used[kind] > COPIES[kind]:
            raise InvalidPositionError(
                f"the position holds {used[kind]} cards {CODES[kind]!r}; the game has "
                f"{COPIES[kind]} (R2)"
            )
    if "draw" not in data:
        rest = [kind for kind in range(KINDS) for _ in range(COPIES[kind] - used[kind])]
        rng = random.Random(game.seed)
        rng.shuffle(rest)
        game.draw = rest
        game.seed = rng.getrandbits(63)
    over = data.get("over", False)
    winner = data.get("winner")
    if type(over) is not bool:
        raise InvalidPositionError("'over' must be true or false")
    if winner is not None and (type(winner) is not int or not 0 <= winner < players):
        raise InvalidPositionError(f"winner {winner!r} is not a seat")
    if winner is not None:
        if "over" in data and not over:
            raise InvalidPositionError(f"winner {winner} is set, yet 'over' is false (R20)")
        over = True
        if len(game.towers[winner]) != options.win_floors:
            raise InvalidPositionError(
                f"winner {winner} has {len(game.towers[winner])} floors: a game is won with"
                f" {options.win_floors}, and ends there (R20)"
            )
        if winner != active:
            raise InvalidPositionError(
                f"winner {winner} is not the active seat {active}: a game is won by a build or"
                " steal in the winner's own turn, and ends there (R20)"
            )
    elif over and game.turn != limit:
        why = "it sets no turn_limit" if limit is None else f"turn {game.turn} is not {limit}"
        raise InvalidPositionError(
            f"a game over without a winner ends as its turn_limit's turn ends (R23), and {why}"
        )
    for seat, tower in enumerate(game.towers):
        if len(tower) >= options.win_floors and winner != seat:
            raise InvalidPositionError(
                f"seat {seat} has {len(tower)} floors: the game would be won (R20)"
            )
    game._outcome = Outcome.of(winner) if over else None
    game._origin = {"position": position_of(game)}
    return game


def position_of(game: Game) -> dict[str, Any]:
    from .game import floor_codes

    data: dict[str, Any] = {
        "players": game.players,
        "active": game.active,
        "hands": [[CODES[k] for k in range(KINDS) for _ in range(hand[k])] for hand in game.hands],
        "towers": [[list(floor_codes(f)) for f in tower] for tower in game.towers],
        "milkshakes": list(game.milkshakes),
        "donut": game.donut,
        "discard": [CODES[k] for k in game.discard],
        "draw": [CODES[k] for k in reversed(game.draw)],
        "turn": game.turn,
        "options": game.options.to_json(),
        "seed": game.seed,
    }
    outcome = game.outcome()
    if outcome is not None:
        data["over"] = True
        data["winner"] = outcome.winner
    return data
