"""``/api/lessons``: the guided first game, step by step (the lessons are
:mod:`gotown.server.lessons`), and the ``/learn`` page that plays it.

A lesson is played without an account or a stored game: each request names the lesson and the
step, and the step's game is rebuilt from the lesson's position and moves (a few actions). A
move that is not the step's changes nothing and is answered with a gentle ``correct: false``,
not an error: a lesson has no wrong answers to punish.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from gotown.engine import Game, InvalidActionError, Record

from ... import lessons, schemas
from ...errors import InvalidError, NotFoundError
from ..deps import ERRORS
from .pages import page

router = APIRouter()

#: A lesson's steps are few; a step number past this is refused by the schema itself.
MAX_STEP = 9
StepNumber = Annotated[int, Path(ge=0, le=MAX_STEP, description="the step, from 0")]


class LessonStepListed(BaseModel):
    key: str = Field(description="the sentence of the step: a key of static/i18n/<lang>.json")


class LessonListed(BaseModel):
    id: str
    title_key: str = Field(description="the lesson's title: a key of static/i18n/<lang>.json")
    page_url: str = Field(description="the page that teaches it (one tap, nothing to fill in)")
    steps: list[LessonStepListed]


class LessonsOut(BaseModel):
    lessons: list[LessonListed] = Field(description="in the order the guided game takes them")


class NextStep(BaseModel):
    lesson: str
    step: int


class LessonStepOut(BaseModel):
    """A step: its sentence, the move it asks for, and the table as the player sees it."""

    lesson: str
    step: int
    steps: int = Field(description="how many steps the lesson has")
    key: str = Field(description="the step's sentence: a key of static/i18n/<lang>.json")
    move: dict[str, Any] = Field(description="the move the step asks for (FORMAT.md shape)")
    state: schemas.StateOut = Field(description="seat 0's state, as a game's state reads")
    record: dict[str, Any] = Field(
        description="the lesson game so far as a game record (its position and the moves made)"
    )
    next: NextStep | None = Field(description="the step that follows (null after the last)")


class LessonMoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: dict[str, Any] = Field(description="the move, in the FORMAT.md shape")


class LessonMoveOut(BaseModel):
    correct: bool = Field(description="whether it is the step's move (then it was made)")
    feedback: Literal["lesson_right", "lesson_other_move", "lesson_illegal_move"] = Field(
        description="what the page says: a key of static/i18n/<lang>.json"
    )
    rule: str | None = Field(default=None, description="the rule an illegal move breaks")
    reason: str | None = Field(default=None, description="why it is illegal (English)")
    after: LessonStepOut = Field(
        description="correct: the table after the move (its step is the next one, or past the "
        "last); otherwise the step again, unchanged"
    )


def _lesson(lesson_id: str, step: int) -> lessons.Lesson:
    found = lessons.lesson(lesson_id)
    if found is None:
        raise NotFoundError("unknown-lesson", f"there is no lesson {lesson_id!r}")
    if step >= len(found.steps):
        raise NotFoundError(
            "unknown-lesson", f"the lesson {lesson_id!r} has {len(found.steps)} steps (0 to "
            f"{len(found.steps) - 1}), not a step {step}",
        )  # fmt: skip
    return found


def _state(lesson: lessons.Lesson, game: Game) -> schemas.StateOut:
    """Seat 0's state in the shape of a game's (the page draws it with the table's code): the
    other seats are easy bots, which play only what a lesson scripts."""
    seats = [
        schemas.SeatOut(seat=0, kind="human", level=None, name=None, taken=True, connected=True)
    ] + [
        schemas.SeatOut(seat=s, kind="bot", level="easy", name=None, taken=True, connected=True)
        for s in range(1, game.players)
    ]
    over = game.is_over
    lobby = schemas.LobbyOut(
        game_id=f"lesson-{lesson.id}",
        status="over" if over else "playing",
        players=game.players,
        options=game.options.to_json(),
        language="en",
        seats=seats,
        invite_url=None,
        watch_url=f"/learn/{lesson.id}",
    )
    mine = not over and game.active == lessons.PLAYER
    return schemas.StateOut(
        game_id=lobby.game_id,
        status=lobby.status,
        seat=lessons.PLAYER,
        version=game.version,
        lobby=lobby,
        view=game.view(lessons.PLAYER).to_json(),
        legal=[a.to_json() for a in game.legal_actions()] if mine else [],
        frozen_turns=0,
    )


def _step_out(lesson: lessons.Lesson, step: int, game: Game) -> LessonStepOut:
    """Step ``step`` of ``lesson`` at ``game`` (past the last step: its move is the last's)."""
    last = min(step, len(lesson.steps) - 1)
    following = lessons.next_step(lesson.id, last)
    return LessonStepOut(
        lesson=lesson.id,
        step=step,
        steps=len(lesson.steps),
        key=lesson.steps[last].key,
        move=lesson.steps[last].move.to_json(),
        state=_state(lesson, game),
        record=Record.of(game).to_json(),
        next=None if following is None else NextStep(lesson=following[0], step=following[1]),
    )


@router.get("/api/lessons", response_model=LessonsOut, responses=ERRORS)
async def list_lessons() -> LessonsOut:
    """Every lesson of the guided first game, in order, with the keys of its sentences."""
    return LessonsOut(
        lessons=[
            LessonListed(
                id=lesson.id,
                title_key=lesson.title_key,
                page_url=f"/learn/{lesson.id}",
                steps=[LessonStepListed(key=s.key) for s in lesson.steps],
            )
            for lesson in lessons.LESSONS
        ]
    )


@router.get("/api/lessons/{lesson_id}/steps/{step}", response_model=LessonStepOut, responses=ERRORS)
async def lesson_step(lesson_id: str, step: StepNumber) -> LessonStepOut:
    """A step of a lesson: the table set for it, its sentence and the move it asks for."""
    lesson = _lesson(lesson_id, step)
    return _step_out(lesson, step, lesson.game_at(step))


@router.post(
    "/api/lessons/{lesson_id}/steps/{step}", response_model=LessonMoveOut, responses=ERRORS
)
async def lesson_move(lesson_id: str, step: StepNumber, body: LessonMoveIn) -> LessonMoveOut:
    """Make the step's move. Any other move changes nothing and answers ``correct: false``
    (with the rule, for an illegal one); something that is no action is a 422."""
    lesson = _lesson(lesson_id, step)
    try:
        answer = lessons.try_move(lesson, step, body.action)
    except InvalidActionError as exc:
        raise InvalidError("invalid-action", str(exc)) from exc
    if answer.correct:
        return LessonMoveOut(
            correct=True, feedback="lesson_right", after=_step_out(lesson, step + 1, answer.game)
        )
    return LessonMoveOut(
        correct=False,
        feedback="lesson_other_move" if answer.rule is None else "lesson_illegal_move",
        rule=answer.rule,
        reason=answer.reason,
        after=_step_out(lesson, step, answer.game),
    )


for _path in ("/learn", "/learn/{lesson_id}"):
    router.add_api_route(_path, page, methods=["GET"], include_in_schema=False)
