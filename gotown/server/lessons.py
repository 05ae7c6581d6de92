"""The guided first game ("Learn to play"): lessons as data, played on the engine.

Each :class:`Lesson` is a set position (the FORMAT.md shape that ``Game.from_position``
reads) and a few :class:`Step` s, each one move that the player is asked to make, with the key
of the sentence that explains it (``static/i18n/*.json``) and the change it shows (a
:data:`Effect`, checked in the tests). The steps of a lesson follow one another in one game:
step ``n`` is the lesson's position after the moves of the steps before it.

Nothing here is stored: a lesson game is its position and the expected moves so far, a
record (``{"position": ...}`` and its actions) that the engine replays to the same game at
every request (:meth:`Lesson.game_at`). The seat being taught is seat 0; the other seat plays
only the replies a step scripts, so that every step begins in the player's turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gotown.engine import Action, Game

PLAYER = 0  # the seat being taught
OTHER = 1  # the seat the lessons aim at

#: What a step's move shows: true of the game after the move, given the game before it.
Effect = Callable[[Game, Game], bool]


def _built(before: Game, after: Game) -> bool:
    """A new floor on the player's tower, from the hand: the other tower stands (R10)."""
    return (
        len(after.towers[PLAYER]) == len(before.towers[PLAYER]) + 1
        and after.towers[OTHER] == before.towers[OTHER]
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


def _card_taken(before: Game, after: Game) -> bool:
    """A card moved from the other seat's hand to the player's (R16)."""
    return (
        after.hand_sizes[OTHER] == before.hand_sizes[OTHER] - 1
        and after.hand_sizes[PLAYER] == before.hand_sizes[PLAYER]  # (the thief left it)
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
    hand: list[str],
    other_hand: list[str],
    tower: tuple[list[str], ...] | list[list[str]] = (),
    other_tower: tuple[list[str], ...] | list[list[str]] = (),
    turn: int,
    seed: int,
) -> dict[str, Any]:
    """A two-player position in the player's turn (the rest of the cards shuffled into the
    draw pile from ``seed``)."""
    return {
        "players": 2,
        "active": PLAYER,
        "turn": turn,
        "seed": seed,
        "hands": [hand, other_hand],
        "towers": [list(tower), list(other_tower)],
    }


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "build",
        _position(hand=["2", "5", "7", "3", "dog"], other_hand=["4", "6", "8"], turn=1, seed=11),
        (Step("lesson_build_1", Action.build("2", "7"), _built),),
    ),
    Lesson(
        "steal",
        _position(
            hand=["3", "4", "milkshake"],
            other_hand=["1", "2", "5"],
            tower=[["1", "8"]],
            other_tower=[["2", "7"], ["3", "6"]],
            turn=5,
            seed=12,
        ),
        (Step("lesson_steal_1", Action.steal("3", OTHER), _stolen),),
    ),
    Lesson(
        "dog",
        _position(
            hand=["dog", "2", "3"],
            other_hand=["4", "5", "6"],
            tower=[["1", "8"], ["4", "5"]],
            other_tower=[["2", "7"]],
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
            hand=["bone", "3", "1"],
            other_hand=["2", "4", "8"],
            tower=[["1", "8"]],
            other_tower=[["2", "7"], ["3", "6", "dog"]],
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
            hand=["jackhammer", "1", "2"],
            other_hand=["3", "6", "7"],
            tower=[["2", "7"]],
            other_tower=[["1", "8"], ["4", "5"]],
            turn=5,
            seed=15,
        ),
        (Step("lesson_jackhammer_1", Action.jackhammer(OTHER), _knocked_down),),
    ),
    Lesson(
        "thief",
        _position(
            hand=["thief", "3", "1"],
            other_hand=["6"],  # (one card: the thief takes it, whatever chance says)
            tower=[["2", "7"]],
            other_tower=[["1", "8"]],
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
            hand=["milkshake", "2", "5"],
            other_hand=["3", "8", "1"],
            tower=[["3", "6"]],
            other_tower=[["2", "7"], ["1", "8"], ["4", "5"]],
            turn=7,
            seed=17,
        ),
        (
            Step("lesson_milkshake_1", Action.milkshake(OTHER), _milkshake_given),
            Step("lesson_milkshake_2", Action.end_turn(), _turn_skipped),
        ),
    ),
    Lesson(
        "joker",
        _position(
            hand=["?", "3", "dog"],
            other_hand=["2", "5", "6"],
            tower=[["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]],
            other_tower=[["1", "8"]],
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
