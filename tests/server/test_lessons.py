"""The guided first game: every lesson's position is legal (RULES.md), every step's move is
legal where it is asked and shows what its sentence says, a lesson game replays from its
record, any other move changes nothing, and the routes answer and refuse as documented."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.engine import Action, Game, Position, Record
from gotown.server import lessons
from gotown.server.api.routes.lessons import MAX_STEP

I18N = Path(lessons.__file__).parent / "static" / "i18n"
STEPS = [(lesson, n) for lesson in lessons.LESSONS for n in range(len(lesson.steps))]
STEP_IDS = [f"{lesson.id}-{n}" for lesson, n in STEPS]


def test_the_guided_game_teaches_every_card_and_the_draw_rules() -> None:
    taught = [step.move.type for lesson in lessons.LESSONS for step in lesson.steps]
    for move in ("build", "steal", "dog", "bone", "jackhammer", "thief", "milkshake"):
        assert move in taught
    for move in ("wrecking-ball", "super-thief", "donut-truck"):  # R15, R17, R19
        assert move in taught
    joker = lessons.BY_ID["joker"].steps[0].move
    assert joker.type == "build" and "?" in joker.cards
    order = [lesson.id for lesson in lessons.LESSONS]
    # The draw rules (R7b, R8, R9) right after the first floor; the cards the game holds one
    # of (R2) after the common ones; the two ends of a game last: no winner (R20b), the win.
    assert order[:4] == ["build", "draw", "eight", "reshuffle"]
    assert order.index("wreckingball") > order.index("jackhammer")
    assert order.index("superthief") > order.index("thief")
    assert order[-2:] == ["stalemate", "joker"]
    # The super-thief takes from every opponent: shown with two of them (R17).
    assert lessons.BY_ID["superthief"].start().players == 3


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.id)
def test_every_lesson_starts_from_a_legal_position_in_the_players_turn(
    lesson: lessons.Lesson,
) -> None:
    position = Position.from_json(lesson.position)  # validated: R1-R5, R12, R18, R20
    assert sum(position.kind_counts()) == 54  # R3
    game = Game.from_position(lesson.position)
    assert game.active == lessons.PLAYER and not game.is_over
    assert Game.from_position(game.to_position()) == game


@pytest.mark.parametrize(("lesson", "n"), STEPS, ids=STEP_IDS)
def test_every_step_asks_a_legal_move_that_shows_what_its_sentence_says(
    lesson: lessons.Lesson, n: int
) -> None:
    step = lesson.steps[n]
    before = lesson.game_at(n)
    assert before.is_legal(step.move), before.why_illegal(step.move)
    assert not step.shows(before, before)  # (the change is the move's, not there already)
    after = before.copy()
    after.apply(step.move)
    for reply in step.replies:  # (the other seat's, in its own turn)
        assert after.active == lessons.OTHER and after.is_legal(reply)
        after.apply(reply)
    assert step.shows(before, after)
    # Only the last steps of the stalemate lesson (R20b: no winner) and of the last lesson
    # (R20: the fifth floor) end the game; every other leaves the player's turn to the next.
    last = n == len(lesson.steps) - 1 and lesson.id in ("stalemate", lessons.LESSONS[-1].id)
    assert after.is_over is last
    assert last or after.active == lessons.PLAYER


@pytest.mark.parametrize(("lesson", "n"), STEPS, ids=STEP_IDS)
def test_no_other_legal_move_of_a_step_shows_its_change(lesson: lessons.Lesson, n: int) -> None:
    """The sentence names one move: the others the player could make do not do what it says
    (so that a wrong move, refused, is really another move)."""
    step = lesson.steps[n]
    before = lesson.game_at(n)
    for action in before.legal_actions():
        if action == before.normalize(step.move):
            continue
        after = before.copy()
        after.apply(action)
        for reply in step.replies:  # (the reply the step's move would have had)
            if after.is_legal(reply):
                after.apply(reply)
        if step.shows(before, after):
            assert action.type == step.move.type  # (another floor built is still a floor)


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.id)
def test_a_lesson_game_replays_from_its_record(lesson: lessons.Lesson) -> None:
    game = lesson.game_at(len(lesson.steps))
    record = Record.from_json(json.loads(json.dumps(Record.of(game).to_json())))
    assert Game.from_position(record.origin["position"]) == lesson.start()
    assert record.replay() == game


@pytest.mark.parametrize(("lesson", "n"), STEPS, ids=STEP_IDS)
def test_any_other_move_is_refused_and_changes_nothing(lesson: lessons.Lesson, n: int) -> None:
    start = lesson.game_at(n)
    expected = start.normalize(lesson.steps[n].move)
    others = [a for a in start.legal_actions() if a != expected]
    # (Ending the turn at least, or another move; a hand of nothing playable only ends it.)
    assert others or expected.type == "end-turn"
    for action in others:
        answer = lessons.try_move(lesson, n, action.to_json())
        assert not answer.correct and answer.rule is None
        assert answer.game == start and answer.game.version == start.version
    illegal = Action.build("?", "?")  # (never a floor)
    answer = lessons.try_move(lesson, n, illegal.to_json())
    assert not answer.correct and answer.game == start
    assert answer.rule == start.why_illegal(illegal)[0] == "R5"
    right = lessons.try_move(lesson, n, lesson.steps[n].move.to_json())
    assert right.correct and right.game == lesson.game_at(n + 1)


def test_the_steps_follow_one_another_through_every_lesson() -> None:
    seen = []
    at: tuple[str, int] | None = (lessons.LESSONS[0].id, 0)
    while at is not None:
        seen.append(at)
        at = lessons.next_step(*at)
    assert seen == [(lesson.id, n) for lesson, n in STEPS]
    assert len(seen) <= len(lessons.LESSONS) * (MAX_STEP + 1)


def _variant(lesson_id: str, **changes: Any) -> lessons.Lesson:
    """The lesson from a changed position (``None`` drops a field), to see that a step's check
    tells its rule from a turn that merely goes by."""
    lesson = lessons.BY_ID[lesson_id]
    position = {**lesson.position, **changes}
    return dataclasses.replace(
        lesson, position={k: v for k, v in position.items() if v is not None}
    )


def _shows(lesson: lessons.Lesson, n: int) -> bool:
    before = lesson.game_at(n)
    after = before.copy()
    lesson.steps[n].make(after)
    return lesson.steps[n].shows(before, after)


def test_r8_r7b_the_turn_ends_with_a_refill_to_three_and_the_next_begins_with_a_draw() -> None:
    game = lessons.BY_ID["draw"].game_at(2)
    draws = [e.to_json() for e in game.events(lessons.PLAYER)]
    mine = [e["type"] for e in draws if e.get("seat") == lessons.PLAYER and e["type"] != "action"]
    assert mine == ["draw", "draw", "turn", "draw"]  # 1 card + 2 (R8); its next turn +1 (R7b)
    assert game.hand_sizes[lessons.PLAYER] == 4


def test_r7b_the_eight_card_lesson_shows_what_seven_cards_would_not() -> None:
    lesson = lessons.BY_ID["eight"]
    assert lesson.start().hand_sizes[lessons.PLAYER] == 8 and _shows(lesson, 0)
    hands = lesson.position["hands"]
    seven = _variant("eight", hands=[hands[0][1:], hands[1]])  # (its 1 in the draw pile)
    assert seven.start().hand_sizes[lessons.PLAYER] == 7 and not _shows(seven, 0)


def test_r9_the_reshuffle_lesson_draws_from_the_discard_pile_only_when_the_pile_is_empty() -> None:
    lesson = lessons.BY_ID["reshuffle"]
    start = lesson.start()
    assert not start.draw and len(start.discard) == 42
    assert _shows(lesson, 1)
    shuffled = [e.to_json() for e in lesson.game_at(2).events(lessons.PLAYER)]
    assert {"type": "reshuffle", "count": 42} in shuffled
    with_a_pile = _variant("reshuffle", draw=None, discard=None)  # (the rest in the draw pile)
    assert with_a_pile.start().draw and not _shows(with_a_pile, 1)


def test_r15_the_wrecking_ball_knocks_down_the_floor_the_jackhammer_cannot() -> None:
    start = lessons.BY_ID["wreckingball"].start()
    assert start.towers[lessons.OTHER][-1][2] == 1  # (guarded by a dog)
    assert start.why_illegal(Action.jackhammer(lessons.OTHER))[0] == "R14"
    after = lessons.BY_ID["wreckingball"].game_at(1)
    assert after.towers[lessons.OTHER] == start.towers[lessons.OTHER][:-1]
    discard = after.view(lessons.PLAYER).to_json()["discard"]
    assert sorted(discard) == ["4", "5", "dog", "wrecking-ball"]  # the floor and its dog


def test_r20b_the_stalemate_lesson_needs_every_hand_at_eight_and_nothing_playable() -> None:
    lesson = lessons.BY_ID["stalemate"]
    start = lesson.start()
    assert start.hand_sizes == [8, 8] and start.draw and start.is_stalemate()
    end = lesson.game_at(1).view(lessons.PLAYER).to_json()
    assert end["winner"] is None and end["reason"] == "stalemate"
    hands = lesson.position["hands"]
    seven = _variant("stalemate", hands=[hands[0], hands[1][1:]])  # the bot would draw (R7b)
    assert not _shows(seven, 0) and not seven.game_at(1).is_over
    bone = _variant(  # a bone in hand removes a dog (R13): something can still change
        "stalemate",
        hands=[["bone", *hands[0][1:]], hands[1]],
        discard=["thief", "milkshake", "bone"],
    )
    assert not _shows(bone, 0) and not bone.game_at(1).is_over


@pytest.mark.parametrize("lang", ["en", "fr", "es", "it", "de", "nl", "cs", "pl"])
def test_every_lesson_sentence_is_written_in_every_language(lang: str) -> None:
    strings = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
    english = json.loads((I18N / "en.json").read_text("utf-8"))
    keys = {"learn", "learn_help", "lesson_step", "lesson_next", "lesson_done", "lesson_free_game"}
    keys |= {"lesson_right", "lesson_other_move", "lesson_illegal_move", "err_unknown-lesson"}
    for lesson in lessons.LESSONS:
        keys |= {lesson.title_key, *(step.key for step in lesson.steps)}
    missing = sorted(k for k in keys if not strings.get(k))
    assert not missing, missing
    if lang != "en":  # (written in the language, not left in English)
        assert [k for k in keys if strings[k] == english[k] and len(english[k]) > 12] == []


# --- the routes ------------------------------------------------------------------------------


def _post(client: TestClient, lesson: str, step: int, action: Any) -> Any:
    return client.post(f"/api/lessons/{lesson}/steps/{step}", json={"action": action})


def test_the_list_names_each_lesson_with_its_sentence_keys(client: TestClient) -> None:
    res = client.get("/api/lessons")
    assert res.status_code == 200
    listed = res.json()["lessons"]
    assert [x["id"] for x in listed] == [lesson.id for lesson in lessons.LESSONS]
    build = listed[0]
    assert build == {
        "id": "build",
        "title_key": "lesson_build",
        "page_url": "/learn/build",
        "steps": [{"key": "lesson_build_1"}],
    }
    assert client.get("/learn").status_code == 200
    assert "text/html" in client.get(build["page_url"]).headers["content-type"]


def test_a_step_shows_the_players_view_only(client: TestClient) -> None:
    res = client.get("/api/lessons/thief/steps/0")
    assert res.status_code == 200
    data = res.json()
    assert data["key"] == "lesson_thief_1" and data["steps"] == 2
    assert data["move"] == {"type": "thief", "target": 1}
    assert data["next"] == {"lesson": "thief", "step": 1}
    state = data["state"]
    assert state["seat"] == 0 and state["status"] == "playing"
    view = state["view"]
    assert sorted(view["hand"]) == ["1", "3", "thief"]
    assert view["hands"] is None and view["hand_sizes"] == [3, 1]  # R22: their card stays hidden
    assert {"type": "thief", "target": 1} in state["legal"]
    assert data["record"]["actions"] == []
    assert Game.from_position(data["record"]["position"]) == lessons.BY_ID["thief"].start()


def test_a_wrong_move_is_answered_gently_and_changes_nothing(client: TestClient) -> None:
    before = client.get("/api/lessons/dog/steps/0").json()
    other = _post(client, "dog", 0, {"type": "dog", "floor": 0})  # legal, not the step's
    assert other.status_code == 200
    assert other.json()["correct"] is False and other.json()["feedback"] == "lesson_other_move"
    assert other.json()["after"] == before
    illegal = _post(client, "dog", 0, {"type": "build", "cards": ["2", "7"]})  # no 7 in hand
    body = illegal.json()
    assert illegal.status_code == 200 and body["correct"] is False
    assert body["feedback"] == "lesson_illegal_move" and body["rule"] == "R10"
    assert body["after"] == before
    assert client.get("/api/lessons/dog/steps/0").json() == before


def test_the_steps_move_is_made_and_the_next_step_follows(client: TestClient) -> None:
    res = _post(client, "bone", 0, {"type": "bone", "target": 1, "floor": 1})
    body = res.json()
    assert res.status_code == 200 and body["correct"] is True and body["feedback"] == "lesson_right"
    after = body["after"]
    assert after["step"] == 1 and after["key"] == "lesson_bone_2"
    assert after["state"]["view"]["towers"][1][-1] == ["3", "6"]  # the dog is gone (R13)
    assert after == client.get("/api/lessons/bone/steps/1").json()
    last = _post(client, "bone", 1, {"type": "steal", "card": "3", "target": 1}).json()
    assert last["correct"] and last["after"]["step"] == 2
    assert last["after"]["next"] == {"lesson": "jackhammer", "step": 0}


def test_the_whole_guided_game_can_be_played_to_its_win(client: TestClient) -> None:
    at: dict[str, Any] | None = {"lesson": lessons.LESSONS[0].id, "step": 0}
    played = 0
    while at is not None:
        step = client.get(f"/api/lessons/{at['lesson']}/steps/{at['step']}").json()
        body = _post(client, at["lesson"], at["step"], step["move"]).json()
        assert body["correct"], at
        played += 1
        after = body["after"]
        at = {"lesson": after["lesson"], "step": after["step"]}
        if after["step"] == after["steps"]:
            at = after["next"]
    assert played == len(STEPS)
    assert after["state"]["status"] == "over" and after["state"]["view"]["winner"] == 0
    assert after["state"]["legal"] == []


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/lessons/nope/steps/0", 404, "unknown-lesson"),
        ("/api/lessons/build/steps/1", 404, "unknown-lesson"),
        (f"/api/lessons/build/steps/{MAX_STEP + 1}", 422, "invalid-request"),
        ("/api/lessons/build/steps/-1", 422, "invalid-request"),
        ("/api/lessons/build/steps/x", 422, "invalid-request"),
    ],
)
def test_a_step_that_does_not_exist_is_refused(
    client: TestClient, path: str, status: int, code: str
) -> None:
    for res in (client.get(path), client.post(path, json={"action": {"type": "end-turn"}})):
        assert res.status_code == status
        assert res.json()["error"]["code"] == code


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"action": {"type": "fly"}}, "invalid-action"),
        ({"action": {"type": "thief", "target": 5}}, "invalid-action"),  # no seat 5 (R1)
        ({"action": {"type": "build", "cards": ["2"]}}, "invalid-action"),
        ({"action": {"type": "end-turn"}, "extra": 1}, "invalid-request"),
        ({}, "invalid-request"),
    ],
)
def test_a_move_that_is_no_action_is_refused(
    client: TestClient, body: dict[str, Any], code: str
) -> None:
    before = client.get("/api/lessons/build/steps/0").json()
    res = client.post("/api/lessons/build/steps/0", json=body)
    assert res.status_code == 422 and res.json()["error"]["code"] == code
    assert client.get("/api/lessons/build/steps/0").json() == before


def test_the_bots_scripted_reply_is_made_and_shown_as_its_move(client: TestClient) -> None:
    body = _post(client, "dog", 1, {"type": "end-turn"}).json()
    assert body["correct"] is True
    state = body["after"]["state"]
    view = state["view"]
    assert view["active"] == 0 and state["legal"]  # the player's turn again
    assert view["towers"][1][-1] == ["4", "5"] and view["towers"][0][-1] == ["4", "5", "dog"]
    moves = [e for e in view["events"] if e["type"] == "action"]
    assert moves[-2:] == [
        {"type": "action", "seat": 1, "action": {"type": "build", "cards": ["4", "5"]}},
        {"type": "action", "seat": 1, "action": {"type": "end-turn"}},
    ]
    drawn = [e for e in view["events"] if e["type"] == "draw" and e["seat"] == 1]
    assert drawn and all(e.get("card") is None for e in drawn)  # R22: its draw stays hidden


def test_the_super_thief_lesson_seats_two_bots_and_takes_from_both(client: TestClient) -> None:
    step = client.get("/api/lessons/superthief/steps/0").json()
    lobby = step["state"]["lobby"]
    assert lobby["players"] == 3
    assert [(s["kind"], s["level"]) for s in lobby["seats"]] == [
        ("human", None), ("bot", "easy"), ("bot", "easy"),
    ]  # fmt: skip
    assert step["state"]["view"]["hand_sizes"] == [3, 2, 2]
    body = _post(client, "superthief", 0, {"type": "super-thief"}).json()
    assert body["correct"] is True
    view = body["after"]["state"]["view"]
    assert view["hand_sizes"] == [4, 1, 1]  # one card from each (R17)
    assert sorted(view["hand"]) == ["1", "2", "4", "5"] and view["hands"] is None


def test_the_stalemate_lesson_ends_the_game_with_no_winner(client: TestClient) -> None:
    body = _post(client, "stalemate", 0, {"type": "end-turn"}).json()
    assert body["correct"] is True
    after = body["after"]
    state = after["state"]
    assert state["status"] == "over" and state["legal"] == []
    assert state["view"]["winner"] is None and state["view"]["reason"] == "stalemate"  # R20b
    assert state["view"]["events"][-1] == {"type": "end", "winner": None, "reason": "stalemate"}
    assert after["next"] == {"lesson": "joker", "step": 0}  # (the guided game goes on)
