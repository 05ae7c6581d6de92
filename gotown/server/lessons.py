"""The guided first game ("Learn to play"): lessons as data, played on the engine.

Each :class:`Lesson` is a set position (the FORMAT.md shape that ``Game.from_position``
reads) and a few :class:`Step` s, each one move that the player is asked to make, with the key
of the sentence that explains it (``static/i18n/*.json``) and the change it shows (a
:data:`Effect`, checked in the tests). The steps of a lesson follow one another in one game:
step ``n`` is the lesson's position after the moves of the steps before it.

Nothing here is stored: a lesson game is its position and the expected moves so far, a
record (``{"position": ...}`` and its actions) that the engine replays to the same game at
every request (:meth:`Lesson.game_at`). The seat being taught is seat 0; the other seats (one,
or two where a card acts on every opponent) play only the replies a step scripts, so that every
step begins in the player's turn. A lesson game ends only where it teaches an end: the stalemate
(R20b) and the win (R20).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gotown.engine import CODES, COPIES, Action, Game, Termination

PLAYER = 0  # the seat being taught
OTHER = 1  # the seat the lessons aim at
REFILL = 3  # R8: a hand is refilled to 3 at the end of the turn
NO_DRAW_AT = 8  # R7b: with 8 cards, no draw at the start of the turn

#: What a step's move shows: true of the game after the move, given the game before it.
Effect = Callable[[Game, Game], bool]


def _opponents(game: Game) -> range:
    return range(1, game.players)


def _built(before: Game, after: Game) -> bool:
    """A new floor on the player's tower, from the hand: the other towers stand (R10)."""
    return len(after.towers[PLAYER]) == len(before.towers[PLAYER]) + 1 and all(
        after.towers[seat] == before.towers[seat] for seat in _opponents(before)
    )


def _next_turn_drew(before: Game, after: Game) -> bool:
    """The player ended the turn with fewer than 3 cards and drew up to 3 (R8); the other seat
    played its turn; the player's new turn began with one card more (R7b)."""
    return (
        after.active == PLAYER
        and after.turn == before.turn + 2
        and before.hand_sizes[PLAYER] < REFILL
        and after.hand_sizes[PLAYER] == REFILL + 1
        and after.towers[PLAYER] == before.towers[PLAYER]
    )


def _no_draw_at_eight(before: Game, after: Game) -> bool:
    """The other seat drew and played its turn, and the player's new turn began with no card
    drawn: the player holds 8 (R7b)."""
    return (
        after.active == PLAYER
        and after.turn == before.turn + 2
        and len(after.draw) < len(before.draw)
        and after.hands[PLAYER] == before.hands[PLAYER]
        and after.hand_sizes[PLAYER] >= NO_DRAW_AT
    )


def _reshuffled(before: Game, after: Game) -> bool:
    """The draw pile was empty: the discard pile became the new draw pile, and the player drew
    from it (R9, R8); the player's turn again."""
    return (
        not before.draw
        and len(after.discard) < len(before.discard)
        and len(after.draw) > 0
        and after.active == PLAYER
        and after.hand_sizes[PLAYER] > before.hand_sizes[PLAYER]
    )


def _stolen(before: Game, after: Game) -> bool:
    """The other seat's top floor became the player's (R11)."""
    return (
        len(after.towers[PLAYER]) == len(before.towers[PLAYER]) + 1
        and len(after.towers[OTHER]) == len(before.towers[OTHER]) - 1
    )


def _guarded(before: Game, after: Game) -> bool:
    """The player's top floor has a dog it had not (R12)."""
    return not before.towers[PLAYER][-1][2] and after.towers[PLAYER][-1][2] == 1


def _guard_held(before: Game, after: Game) -> bool:
    """The other seat played its turn, and the player's guarded tower stands as it was; the
    player's turn again (R12)."""
    return (
        after.active == PLAYER
        and after.turn == before.turn + 2
        and after.towers[PLAYER] == before.towers[PLAYER]
        and len(after.towers[OTHER]) == len(before.towers[OTHER]) + 1
    )


def _dog_gone(before: Game, after: Game) -> bool:
    """The other seat's top floor lost its dog, and stands (R13)."""
    top = len(after.towers[OTHER]) - 1
    return (
        len(after.towers[OTHER]) == len(before.towers[OTHER])
        and before.towers[OTHER][top][2] == 1
        and after.towers[OTHER][top][2] == 0
    )


def _knocked_down(before: Game, after: Game) -> bool:
    """The other seat's top floor went to the discard pile, with the jack-hammer (R14)."""
    return (
        len(after.towers[OTHER]) == len(before.towers[OTHER]) - 1
        and len(after.discard) == len(before.discard) + 3
    )


def _wrecked(before: Game, after: Game) -> bool:
    """The other seat's guarded top floor went to the discard pile with its dog and the
    wrecking ball (R15)."""
    dogs = before.towers[OTHER][-1][2] if before.towers[OTHER] else 0
    return (
        dogs > 0
        and len(after.towers[OTHER]) == len(before.towers[OTHER]) - 1
        and len(after.discard) == len(before.discard) + 3 + dogs
    )


def _card_taken(before: Game, after: Game) -> bool:
    """A card moved from the other seat's hand to the player's (R16)."""
    return (
        after.hand_sizes[OTHER] == before.hand_sizes[OTHER] - 1
        and after.hand_sizes[PLAYER] == before.hand_sizes[PLAYER]  # (the thief left it)
    )


def _cards_taken_from_all(before: Game, after: Game) -> bool:
    """A card moved from every opponent's hand to the player's, for one super-thief (R17)."""
    opponents = _opponents(before)
    return len(opponents) > 1 and (
        all(after.hand_sizes[seat] == before.hand_sizes[seat] - 1 for seat in opponents)
        and after.hand_sizes[PLAYER] == before.hand_sizes[PLAYER] - 1 + len(opponents)
    )


def _milkshake_given(before: Game, after: Game) -> bool:
    """A milkshake waits in front of the other seat (R18)."""
    return before.milkshakes[OTHER] == 0 and after.milkshakes[OTHER] == 1


def _turn_skipped(before: Game, after: Game) -> bool:
    """The other seat drank its milkshake and played nothing: the player's turn again (R7a)."""
    return (
        after.active == PLAYER
        and after.milkshakes[OTHER] == 0
        and after.turn == before.turn + 2
        and after.towers[OTHER] == before.towers[OTHER]
    )


def _donut_on_table(before: Game, after: Game) -> bool:
    """The donut truck lies on the table, and the turn goes on (R19)."""
    return not before.donut and after.donut and after.active == PLAYER and after.turn == before.turn


def _another_turn(before: Game, after: Game) -> bool:
    """The player refilled to 3 (R8), the donut truck went to the discard pile, and the player's
    new turn began at once, with its draw: the other seat's turn was skipped (R19, R9)."""
    return (
        before.donut
        and not after.donut
        and after.active == PLAYER
        and after.turn == before.turn + 1
        and after.hand_sizes[PLAYER] == REFILL + 1
        and after.hands[OTHER] == before.hands[OTHER]
    )


def _stalemate(before: Game, after: Game) -> bool:
    """The game is over with no winner: nothing can ever change again (R20b)."""
    outcome = after.outcome()
    return (
        outcome is not None and outcome.winner is None and outcome.reason == Termination.STALEMATE
    )


def _won(before: Game, after: Game) -> bool:
    """The player's new floor won the game (R20)."""
    outcome = after.outcome()
    return _built(before, after) and outcome is not None and outcome.winner == PLAYER


@dataclass(frozen=True)
class Step:
    """One move the player is asked to make, the sentence that asks it, what it shows, and
    the other seat's scripted reply (its actions, when the move ends the player's turn)."""

    key: str
    move: Action
    shows: Effect
    replies: tuple[Action, ...] = ()

    def make(self, game: Game) -> None:
        """Make the step's move and its replies in ``game`` (checked: each is legal)."""
        game.apply(self.move)
        for reply in self.replies:
            game.apply(reply)


@dataclass(frozen=True)
class Lesson:
    id: str
    position: dict[str, Any]
    steps: tuple[Step, ...]

    @property
    def title_key(self) -> str:
        return f"lesson_{self.id}"

    def start(self) -> Game:
        return Game.from_position(self.position)

    def game_at(self, step: int) -> Game:
        """The game as step ``step`` begins (``len(steps)``: after the last step)."""
        game = self.start()
        for earlier in self.steps[:step]:
            earlier.make(game)
        return game


@dataclass(frozen=True)
class Answer:
    """What a move in a lesson did: ``correct`` (then ``game`` is the game after it), or why
    not (``game`` is then the step's game, unchanged): another legal move (no ``rule``), or
    an illegal one (``rule`` and ``reason`` from the engine)."""

    correct: bool
    game: Game
    rule: str | None = None
    reason: str | None = None


def _position(
    *,
    hands: list[list[str]],
    towers: list[list[list[str]]],
    turn: int,
    seed: int,
    discard: tuple[str, ...] = (),
    rest_discarded: bool = False,
) -> dict[str, Any]:
    """A position in the player's turn: seat s holds ``hands[s]`` and has built ``towers[s]``.
    The cards not placed are shuffled from ``seed`` into the draw pile, or with
    ``rest_discarded`` into the discard pile, the draw pile left empty (R9)."""
    data: dict[str, Any] = {
        "players": len(hands),
        "active": PLAYER,
        "turn": turn,
        "seed": seed,
        "hands": hands,
        "towers": towers,
        "discard": list(discard),
    }
    if rest_discarded:
        placed = [
            *discard,
            *(c for h in hands for c in h),
            *(c for t in towers for f in t for c in f),
        ]
        rest = [code for code, copies in zip(CODES, COPIES, strict=True) for _ in range(copies)]
        for code in placed:
            rest.remove(code)
        random.Random(seed).shuffle(rest)
        data |= {"discard": rest, "draw": []}
    return data


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "build",
        _position(
            hands=[["2", "5", "7", "3", "dog"], ["4", "6", "8"]], towers=[[], []], turn=1, seed=11
        ),
        (Step("lesson_build_1", Action.build("2", "7"), _built),),
    ),
    # The draw rules early (R7b, R8, R9): where a player's cards come from.
    Lesson(
        "draw",
        _position(
            hands=[["2", "7", "5"], ["1", "8", "6"]],
            towers=[[["3", "6"]], [["4", "5"]]],
            turn=3,
            seed=21,
        ),
        (
            Step("lesson_draw_1", Action.build("2", "7"), _built),
            Step(
                "lesson_draw_2",
                Action.end_turn(),
                _next_turn_drew,
                replies=(Action.build("1", "8"), Action.end_turn()),
            ),
        ),
    ),
    Lesson(
        "eight",
        # (No card of the player's can be played: no pair makes 9, and no 4 or 5 steals.)
        _position(
            hands=[["1", "1", "1", "2", "2", "2", "3", "3"], ["7", "2", "5"]],
            towers=[[["1", "8"], ["3", "6"]], [["4", "5"]]],
            turn=9,
            seed=22,
        ),
        (
            Step(
                "lesson_eight_1",
                Action.end_turn(),
                _no_draw_at_eight,
                replies=(Action.build("2", "7"), Action.end_turn()),
            ),
        ),
    ),
    Lesson(
        "reshuffle",
        _position(
            hands=[["3", "6", "8"], ["1", "4", "5"]],
            towers=[[["2", "7"]], [["1", "8"], ["3", "6"]]],
            turn=25,
            seed=23,
            rest_discarded=True,
        ),
        (
            Step("lesson_reshuffle_1", Action.build("3", "6"), _built),
            Step(
                "lesson_reshuffle_2",
                Action.end_turn(),
                _reshuffled,
                replies=(Action.build("4", "5"), Action.end_turn()),
            ),
        ),
    ),
    Lesson(
        "steal",
        _position(
            hands=[["3", "4", "milkshake"], ["1", "2", "5"]],
            towers=[[["1", "8"]], [["2", "7"], ["3", "6"]]],
            turn=5,
            seed=12,
        ),
        (Step("lesson_steal_1", Action.steal("3", OTHER), _stolen),),
    ),
    Lesson(
        "dog",
        _position(
            hands=[["dog", "2", "3"], ["4", "5", "6"]],
            towers=[[["1", "8"], ["4", "5"]], [["2", "7"]]],
            turn=5,
            seed=13,
        ),
        (
            Step("lesson_dog_1", Action.dog(1), _guarded),
            # (Its 4 would steal the 5 of an unguarded top floor: it builds instead.)
            Step(
                "lesson_dog_2",
                Action.end_turn(),
                _guard_held,
                replies=(Action.build("4", "5"), Action.end_turn()),
            ),
        ),
    ),
    Lesson(
        "bone",
        _position(
            hands=[["bone", "3", "1"], ["2", "4", "8"]],
            towers=[[["1", "8"]], [["2", "7"], ["3", "6", "dog"]]],
            turn=5,
            seed=14,
        ),
        (
            Step("lesson_bone_1", Action.bone(OTHER, 1), _dog_gone),
            Step("lesson_bone_2", Action.steal("3", OTHER), _stolen),
        ),
    ),
    Lesson(
        "jackhammer",
        _position(
            hands=[["jackhammer", "1", "2"], ["3", "6", "7"]],
            towers=[[["2", "7"]], [["1", "8"], ["4", "5"]]],
            turn=5,
            seed=15,
        ),
        (Step("lesson_jackhammer_1", Action.jackhammer(OTHER), _knocked_down),),
    ),
    Lesson(
        "thief",
        _position(
            # (One card in their hand: the thief takes it, whatever chance says.)
            hands=[["thief", "3", "1"], ["6"]],
            towers=[[["2", "7"]], [["1", "8"]]],
            turn=5,
            seed=16,
        ),
        (
            Step("lesson_thief_1", Action.thief(OTHER), _card_taken),
            Step("lesson_thief_2", Action.build("3", "6"), _built),
        ),
    ),
    Lesson(
        "milkshake",
        _position(
            hands=[["milkshake", "2", "5"], ["3", "8", "1"]],
            towers=[[["3", "6"]], [["2", "7"], ["1", "8"], ["4", "5"]]],
            turn=7,
            seed=17,
        ),
        (
            Step("lesson_milkshake_1", Action.milkshake(OTHER), _milkshake_given),
            Step("lesson_milkshake_2", Action.end_turn(), _turn_skipped),
        ),
    ),
    # The rarer cards (one of each in the game) after the common ones.
    Lesson(
        "wreckingball",
        # (The jack-hammer in hand cannot touch the guarded floor, R14: the ball can.)
        _position(
            hands=[["wrecking-ball", "jackhammer", "2"], ["4", "5", "8"]],
            towers=[[["3", "6"]], [["1", "8"], ["2", "7"], ["4", "5", "dog"]]],
            turn=9,
            seed=24,
        ),
        (
            Step("lesson_wreckingball_1", Action.wrecking_ball(OTHER), _wrecked),
            Step("lesson_wreckingball_2", Action.steal("2", OTHER), _stolen),
        ),
    ),
    Lesson(
        "superthief",
        # Three players, so that it takes from two hands. (Each holds a pair of one number:
        # whichever card chance takes, the player gets a 4 and a 5.)
        _position(
            hands=[["super-thief", "1", "2"], ["4", "4"], ["5", "5"]],
            towers=[[["3", "6"]], [["1", "8"]], [["2", "7"]]],
            turn=7,
            seed=25,
        ),
        (
            Step("lesson_superthief_1", Action.super_thief(), _cards_taken_from_all),
            Step("lesson_superthief_2", Action.build("4", "5"), _built),
        ),
    ),
    Lesson(
        "donut",
        _position(
            hands=[["donut-truck", "3", "6", "1"], ["4", "8", "5"]],
            towers=[[["2", "7"]], [["1", "8"], ["4", "5"]]],
            turn=7,
            seed=26,
        ),
        (
            Step("lesson_donut_1", Action.donut_truck(), _donut_on_table),
            Step("lesson_donut_2", Action.build("3", "6"), _built),
            Step("lesson_donut_3", Action.end_turn(), _another_turn),
        ),
    ),
    Lesson(
        "stalemate",
        # Both hands hold 8 (no draw, R7b), no pair makes 9, every top floor is guarded and
        # the bones are discarded: only ending the turn is left to anyone, for ever (R20b).
        _position(
            hands=[
                ["1", "1", "1", "2", "2", "3", "3", "jackhammer"],
                ["5", "5", "6", "6", "8", "8", "8", "jackhammer"],
            ],
            towers=[[["1", "8", "dog"], ["2", "7", "dog"]], [["3", "6", "dog"], ["4", "5", "dog"]]],
            turn=21,
            seed=27,
            discard=("bone", "thief", "milkshake", "bone"),
        ),
        (Step("lesson_stalemate_1", Action.end_turn(), _stalemate),),
    ),
    Lesson(
        "joker",
        _position(
            hands=[["?", "3", "dog"], ["2", "5", "6"]],
            towers=[[["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]], [["1", "8"]]],
            turn=9,
            seed=18,
        ),
        (Step("lesson_joker_1", Action.build("?", "3"), _won),),
    ),
)

BY_ID = {lesson.id: lesson for lesson in LESSONS}


def lesson(lesson_id: str) -> Lesson | None:
    return BY_ID.get(lesson_id)


def next_step(lesson_id: str, step: int) -> tuple[str, int] | None:
    """The step after ``step`` of ``lesson_id``: the lesson's next, else the next lesson's
    first; None after the last step of the last lesson."""
    current = BY_ID[lesson_id]
    if step + 1 < len(current.steps):
        return lesson_id, step + 1
    index = LESSONS.index(current)
    return (LESSONS[index + 1].id, 0) if index + 1 < len(LESSONS) else None


def try_move(current: Lesson, step: int, data: Any) -> Answer:
    """The player's move ``data`` (an action's JSON form) at ``step`` of ``current``: made if
    it is the step's move; otherwise the step's game is left as it was. InvalidActionError
    for something that is no action."""
    game = current.game_at(step)
    action = game.normalize(Action.from_json(data))
    expected = current.steps[step]
    if action == game.normalize(expected.move):
        expected.make(game)
        return Answer(True, game)
    if game.is_legal(action):
        return Answer(False, game)
    rule, reason = game.why_illegal(action)
    return Answer(False, game, rule, reason)
