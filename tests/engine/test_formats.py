"""Malformed input: actions (InvalidActionError), notation, positions (InvalidPositionError),
options, views, events and records; and fuzzing that only GoTownError ever comes out."""

from __future__ import annotations

import contextlib
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotown.engine import (
    Action,
    Event,
    Game,
    GoTownError,
    InvalidActionError,
    InvalidNotationError,
    InvalidOptionsError,
    InvalidPositionError,
    Options,
    Record,
    View,
    format_action,
    parse_action,
)
from gotown.engine.views import EVENT_FIELDS

from .helpers import game, play


# -- actions --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "JSON object"),
        ("end-turn", "JSON object"),
        ({}, "unknown action type"),
        ({"type": "fly"}, "unknown action type"),
        ({"type": []}, "unknown action type"),
        ({"type": "build"}, "needs the field 'cards'"),
        ({"type": "build", "cards": ["1"]}, "two cards"),
        ({"type": "build", "cards": ["1", "8", "8"]}, "two cards"),
        ({"type": "build", "cards": "18"}, "two cards"),
        ({"type": "build", "cards": ["1", "9"]}, "not a card code"),
        ({"type": "build", "cards": ["1", 8]}, "not a card code"),
        ({"type": "steal", "card": "5"}, "needs the field 'target'"),
        ({"type": "steal", "card": "5", "target": -1}, "target"),
        ({"type": "steal", "card": "5", "target": "1"}, "target"),
        ({"type": "steal", "card": "5", "target": True}, "target"),
        ({"type": "steal", "card": "5", "target": 1.0}, "target"),
        ({"type": "dog"}, "needs the field 'floor'"),
        ({"type": "bone", "target": 1}, "needs the field 'floor'"),
        ({"type": "jackhammer", "target": 1, "floor": 0}, "no field 'floor'"),
        ({"type": "end-turn", "seat": 0}, "no field 'seat'"),
        ({"type": "end-turn", 1: 2, "x": 3}, "no field"),
    ],
)
def test_malformed_actions_raise_invalid_action_error(data: Any, problem: str) -> None:
    with pytest.raises(InvalidActionError, match=problem):
        Action.from_json(data)


def test_malformed_action_objects_are_refused_by_the_game_unchanged() -> None:
    g = Game.new(players=2, seed=1)
    before = g.to_position()
    for bad in [
        "end",
        {"type": "end-turn"},
        Action("build", cards=None),  # type: ignore[arg-type]
        Action([]),  # type: ignore[arg-type]
        Action("fly"),
        Action("steal", card="5", target="x"),  # type: ignore[arg-type]
        Action.thief(7),  # no seat 7 (R1)
        # Fields the type does not take: not dropped in silence (the JSON form has no place
        # for them, so they would vanish from the record).
        Action("end-turn", target=9),
        Action("end-turn", floor=3, card="dog"),
        Action("super-thief", cards=("1", "8")),
        Action("thief", target=1, floor=0),
    ]:
        with pytest.raises(InvalidActionError):
            g.apply(bad)  # type: ignore[arg-type]
        assert not g.is_legal(bad)  # type: ignore[arg-type]
        assert g.to_position() == before and g.version == 0


def test_action_json_fills_defaults_and_sorts_build_cards() -> None:
    assert Action.from_json({"type": "build", "cards": ["6", "3"]}) == Action.build("3", "6")
    assert Action.build("?", "2").to_json() == {"type": "build", "cards": ["2", "?"]}
    assert Action.dog(0).to_json() == {"type": "dog", "floor": 0}
    assert Action.dog(0, 2).to_json() == {"type": "dog", "floor": 0, "target": 2}
    g = game(hands=[["dog"], []], towers=[[["1", "8"]], []])
    assert g.normalize(Action.dog(0, 0)) == Action.dog(0)


# -- notation -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("3+6", Action.build("3", "6")),
        ("?+2", Action.build("2", "?")),
        (" 6 + 3 ", Action.build("3", "6")),
        ("5@1", Action.steal("5", 1)),
        ("dog#0", Action.dog(0)),
        ("dog#0@2", Action.dog(0, 2)),
        ("bone#1@1", Action.bone(1, 1)),
        ("jackhammer@1", Action.jackhammer(1)),
        ("Wrecking-Ball@3", Action.wrecking_ball(3)),
        ("thief@1", Action.thief(1)),
        ("super-thief", Action.super_thief()),
        ("milkshake@1", Action.milkshake(1)),
        ("donut-truck", Action.donut_truck()),
        ("end", Action.end_turn()),
    ],
)
def test_notation_reads_the_documented_forms(text: str, action: Action) -> None:
    assert parse_action(text) == action
    assert parse_action(format_action(action)) == action


@pytest.mark.parametrize(
    "text",
    ["", "3+", "+6", "3-6", "10+1", "fly", "dog", "bone@1", "thief", "5@", "5@99999999999999999",
     "dog#99999999999999999", "jackhammer#1@1", "٣+٦", "3+6+1",
     # digits of other scripts are no seat; nor is a number of thousands of digits, which
     # int() refuses with a plain ValueError
     "5@\u0661", "thief@\u0661", "dog#" + "1" * 5000, "5@" + "1" * 5000],
)  # fmt: skip
def test_bad_notation_raises_invalid_notation_error(text: str) -> None:
    with pytest.raises(InvalidNotationError):
        parse_action(text)


def test_notation_must_be_text() -> None:
    with pytest.raises(InvalidNotationError):
        parse_action(36)  # type: ignore[arg-type]


# -- positions ------------------------------------------------------------------------------
BASE: dict[str, Any] = {"players": 2, "active": 0, "hands": [[], []], "towers": [[], []]}
WON = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"], ["1", "8"]]  # five floors: a won tower


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"players": 1}, "R1"),
        ({"players": 5}, "R1"),
        ({"players": "2"}, "integer"),
        ({"active": 2}, "R1"),
        ({"active": -1}, "R1"),
        ({"active": None}, "integer"),
        ({"hands": [[]]}, "one entry per seat"),
        ({"hands": None}, "one entry per seat"),
        ({"hands": [["1"], "2"]}, "list of cards"),
        ({"hands": [["1", "joker"], []]}, "R2"),
        ({"towers": [[], [], []]}, "one entry per seat"),
        ({"towers": [[], {"0": 1}]}, "list of floors"),
        ({"towers": [[["1", "7"]], []]}, "R5"),
        ({"towers": [[["1"]], []]}, "R5"),
        ({"towers": [[["?", "?"]], []]}, "R5"),
        ({"towers": [[["dog", "1", "8", "dog"]], []]}, "R12"),
        ({"towers": [[["thief", "1"]], []]}, "R5"),
        ({"milkshakes": [0, -1]}, "milkshakes"),
        ({"milkshakes": [0, 4]}, "R2"),
        ({"milkshakes": [0]}, "one entry per seat"),
        ({"donut": 1}, "donut"),
        ({"donut": True, "hands": [["donut-truck"], []]}, "R2"),
        ({"discard": "1"}, "list of cards"),
        ({"draw": ["1"] * 5}, "R2"),
        ({"turn": 0}, "turn"),
        ({"seed": "x"}, "integer"),
        ({"seed": 1.5}, "integer"),
        ({"winner": 2}, "not a seat"),
        ({"over": "yes"}, "over"),
        ({"options": {"win_floors": 3}}, "R23"),
        ({"options": []}, "R23"),
        ({"colour": "red"}, "no field 'colour'"),
        ({"milkshakes": [0, 2]}, "R18"),
        ({"milkshakes": [1, 0]}, "R7a"),
        ({"options": {"first_player": 2}}, "R23"),
        ({"turn": 4, "options": {"turn_limit": 3}}, "R23"),
        ({"towers": [[["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"], ["1", "8"]], []]}, "R20"),
        # A winner has built its last floor (R20); a game ends without one only at its turn
        # limit, as turn N ends (R23).
        ({"winner": 1}, "R20"),
        ({"winner": 0, "towers": [[["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]], []]}, "R20"),
        # ... in the winner's own turn, and the game stops there: no later turn, no 6th floor.
        ({"winner": 1, "towers": [[], WON]}, "not the active seat 0"),
        ({"winner": 0, "towers": [WON, []], "over": False}, "'over' is false"),
        ({"winner": 0, "towers": [[*WON, ["2", "7"]], []]}, "6 floors"),
        ({"over": True}, "R23"),
        ({"over": True, "turn": 2, "options": {"turn_limit": 3}}, "R23"),
        ({"over": True, "turn": 4, "options": {"turn_limit": 3}}, "R23"),
    ],
)
def test_invalid_positions_name_the_problem(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(InvalidPositionError, match=problem):
        Game.from_position({**BASE, **change})


def test_a_position_must_be_an_object() -> None:
    for bad in [None, [], "x", 3]:
        with pytest.raises(InvalidPositionError):
            Game.from_position(bad)


def test_options_errors_are_position_errors() -> None:
    assert issubclass(InvalidOptionsError, InvalidPositionError)
    with pytest.raises(InvalidOptionsError):
        Options.from_json({"dogs_per_floor": 1.0})
    assert Options.from_json(None) == Options()
    assert Options.from_json(Options(win_floors=4)) == Options(win_floors=4)


# -- views, events, records -----------------------------------------------------------------
def test_view_event_and_record_refuse_junk() -> None:
    for bad in [None, [], {}, {"seat": 0}, "view"]:
        with pytest.raises(InvalidPositionError):
            View.from_json(bad)
    fly = {"type": "action", "seat": 0, "action": {"type": "fly"}}
    for bad in [None, {}, {"type": []}, {"type": "draw"}, {"type": "draw", "seat": 0}, fly]:
        with pytest.raises(InvalidPositionError):
            Event.from_json(bad)
    actions = [{"type": "end-turn"}, {"type": "fly"}]
    fly = {"players": 2, "options": {}, "seed": 0, "actions": actions}
    for bad in [None, {}, {"actions": []}, {"actions": {}}, {"players": 2, "actions": []}]:
        with pytest.raises(InvalidPositionError):
            Record.from_json(bad)
    # A malformed action inside is a malformed record (errors.py), named by its index.
    with pytest.raises(InvalidPositionError, match="action 1 of the record: unknown action type"):
        Record.from_json(fly)


@pytest.mark.parametrize(
    ("setup", "problem"),
    [({"players": 9, "options": {}, "seed": 0}, "2 to 4 players"),
     ({"players": 2, "options": {}, "seed": "x"}, "seed"),
     ({"players": 2, "options": {"first_player": 3}, "seed": 0}, "first_player"),
     ({"players": 2, "options": {"win_floors": 3}, "seed": 0}, "win_floors")],
)  # fmt: skip
def test_a_record_whose_setup_cannot_start_is_a_malformed_record(
    setup: dict[str, Any], problem: str
) -> None:
    record = Record.from_json({**setup, "actions": []})
    with pytest.raises(InvalidPositionError, match=problem):
        record.replay()


def _played_view() -> dict[str, Any]:
    """Seat 0's view (as JSON) after a few turns with a theft, a build and a milkshake."""
    g = Game.from_position({**BASE, "hands": [["thief", "3", "6"], ["milkshake", "1"]],
                            "draw": ["2", "4", "5", "7"]})  # fmt: skip
    for action in (Action.thief(1), Action.build("3", "6"), Action.end_turn()):
        g.apply(action)
    if g.legal_actions()[0].type == "milkshake":
        g.apply(g.legal_actions()[0])
    g.apply(Action.end_turn())
    return g.view(0).to_json()


@pytest.mark.parametrize(
    "change",
    [
        {"players": "2"},
        {"players": 5},
        {"players": True},
        {"seat": 2},
        {"seat": "0"},
        {"active": -1},
        {"turn": 1.5},
        {"version": -1},
        {"draw_size": "3"},
        {"hand_sizes": [1]},
        {"hand_sizes": [-1, 2]},
        {"milkshakes": ["x", 0]},
        {"milkshakes": [0]},
        {"towers": [[]]},
        {"donut": 1},
        {"over": "no"},
        {"winner": 7},
        {"hand": []},
        {"seat": None},
    ],
    ids=lambda change: json.dumps(change),
)
def test_a_malformed_view_is_refused_naming_the_field(change: dict[str, Any]) -> None:
    data = {**_played_view(), **change}
    with pytest.raises(InvalidPositionError, match="not a view"):
        View.from_json(data)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"players": 5}, "2 to 4 players (R1), not 5"),
        ({"players": 1}, "2 to 4 players (R1), not 1"),
        ({"seat": 2}, "seat 2 does not exist (R1)"),
        ({"seat": -1}, "seat -1 does not exist (R1)"),
        ({"active": 2}, "active seat 2 does not exist (R1)"),
        ({"active": -1}, "active seat -1 does not exist (R1)"),
        ({"turn": -1}, "turn, version and draw_size are counts >= 0"),
        ({"version": -1}, "turn, version and draw_size are counts >= 0"),
        ({"draw_size": -1}, "turn, version and draw_size are counts >= 0"),
        ({"hand_sizes": [3, 3, 3]}, "hand_sizes needs a count >= 0 for each seat"),
        ({"milkshakes": [0, -1]}, "milkshakes needs a count >= 0 for each seat"),
        ({"towers": [[], [], []]}, "towers needs one tower per seat"),
        ({"hand": ["1"]}, "a hand of 1 cards for seat 0"),
        ({"donut": None}, "donut and over are true or false"),
        ({"over": 0}, "donut and over are true or false"),
        ({"winner": 2}, "winner 2 is not a seat"),
        ({"winner": -1}, "winner -1 is not a seat"),
        ({"hands": [["3"], ["1"]]}, "every hand is shown only once the game is over (R22)"),
        ({"over": True, "hands": [["3"]]}, "every hand is shown only once the game is over (R22)"),
    ],
    ids=lambda value: json.dumps(value) if isinstance(value, dict) else "",
)
def test_r1_r22_a_malformed_view_names_what_is_wrong(change: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidPositionError, match="not a view: " + re.escape(words)):
        View.from_json({**_played_view(), **change})


@pytest.mark.parametrize(
    "change",
    [{"active": 1}, {"active": 0}, {"turn": 0}, {"version": 0}, {"draw_size": 0},
     {"winner": 0}, {"winner": 1}, {"milkshakes": [0, 0]}, {"donut": True},
     {"over": True, "reason": "turn-limit"}, {"over": True, "reason": "stalemate"}],
    ids=lambda change: json.dumps(change),
)  # fmt: skip
def test_a_view_at_the_edges_of_each_field_is_read(change: dict[str, Any]) -> None:
    data = {**_played_view(), **change}
    view = View.from_json(data)
    assert view.to_json() == data


def test_a_view_whose_event_names_a_seat_outside_the_table_is_refused() -> None:
    data = _played_view()
    events = [*data["events"], {"type": "draw", "seat": 2, "card": None}]
    with pytest.raises(InvalidPositionError, match="an event names seat 2"):
        View.from_json({**data, "events": events})
    events[-1] = {"type": "end", "winner": 2, "reason": "win"}
    with pytest.raises(InvalidPositionError, match="an event names seat 2"):
        View.from_json({**data, "events": events})
    events[-1] = {"type": "stolen", "seat": 0, "victim": 2, "card": None}
    with pytest.raises(InvalidPositionError, match="an event names seat 2"):
        View.from_json({**data, "events": events})
    events[-1] = {"type": "stolen", "seat": 1, "victim": 0, "card": None}
    assert View.from_json({**data, "events": events}).events[-1].victim == 0


@pytest.mark.parametrize(
    ("event", "field"),
    [({"type": "turn", "turn": "1", "seat": 0, "extra": False}, "turn"),
     ({"type": "draw", "seat": 9, "card": None}, "seat 9"),
     ({"type": "stolen", "seat": 0, "victim": [1], "card": None}, "victim"),
     ({"type": "draw", "seat": 0, "card": "ace"}, "card"),
     ({"type": "end", "winner": None, "reason": "boredom"}, "reason")],
)  # fmt: skip
def test_a_view_with_a_malformed_event_is_refused(event: dict[str, Any], field: str) -> None:
    data = _played_view()
    data["events"] = [*data["events"], event]
    with pytest.raises(InvalidPositionError, match=field):
        View.from_json(data)


def test_a_view_with_a_malformed_action_event_is_refused_as_a_view() -> None:
    data = _played_view()
    data["events"] = [*data["events"], {"type": "action", "seat": 0, "action": {"type": "fly"}}]
    with pytest.raises(InvalidPositionError, match="action event's action is malformed"):
        View.from_json(data)


def test_a_played_view_reads_back_and_deals_a_game() -> None:
    data = _played_view()
    view = View.from_json(data)
    assert view.to_json() == data and any(e.type == "stolen" for e in view.events)
    g = Game.from_view(view, [None, ["1"] * view.hand_sizes[1]], ["2"] * view.draw_size)
    assert g.view(0).hand == view.hand


def test_replaying_a_record_with_an_illegal_action_raises() -> None:
    position = {**BASE, "hands": [["thief"], []]}
    record = Record.from_json({"position": position, "actions": [{"type": "thief", "target": 1}]})
    with pytest.raises(InvalidPositionError, match="action 0"):
        record.replay()


# -- fuzzing: only GoTownError may come out -------------------------------------------------
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(
        ["1", "5", "8", "?", "dog", "bone", "thief", "", "x", "build", "steal", "end-turn",
         "random", "any", "unlimited", "merge", "stack", "own", "opponents"]
    ),
)  # fmt: skip
_keys = st.sampled_from(
    ["type", "cards", "card", "target", "floor", "players", "active", "hands", "towers",
     "milkshakes", "donut", "discard", "draw", "turn", "options", "seed", "winner", "over",
     "win_floors", "dogs_per_floor", "first_player", "turn_limit", "zzz"]
)  # fmt: skip
junk = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_keys, inner, max_size=6),
    max_leaves=25,
)


def _mutated_positions() -> st.SearchStrategy[Any]:
    """Valid-looking positions with one field replaced by junk."""
    base = {
        "players": 3, "active": 1, "hands": [["1", "thief"], ["8"], []],
        "towers": [[["3", "?", "dog"]], [], [["4", "5"]]], "milkshakes": [0, 1, 0],
        "discard": ["bone"], "draw": ["2", "7"], "options": {"win_floors": 4}, "seed": 3,
    }  # fmt: skip
    return st.builds(lambda key, value: {**base, key: value}, st.sampled_from(sorted(base)), junk)


@settings(max_examples=300)
@given(st.one_of(junk, st.builds(lambda t, d: {**d, "type": t} if isinstance(d, dict) else d,
                                 st.sampled_from(["build", "steal", "dog", "bone", "thief"]),
                                 junk)))  # fmt: skip
def test_fuzz_action_from_json_raises_only_gotown_errors(data: Any) -> None:
    try:
        action = Action.from_json(data)
    except GoTownError:
        return
    assert Action.from_json(action.to_json()) == action
    g = Game.new(players=2, seed=0)
    before = g.to_position()
    try:
        g.apply(action)
    except GoTownError:
        assert g.to_position() == before


@settings(max_examples=300)
@given(st.one_of(junk, _mutated_positions()))
def test_fuzz_game_from_position_raises_only_gotown_errors(data: Any) -> None:
    try:
        g = Game.from_position(data)
    except GoTownError:
        return
    assert Game.from_position(g.to_position()) == g
    for action in g.legal_actions():
        g.copy().apply(action)


@settings(max_examples=150)
@given(junk)
def test_fuzz_options_view_event_record_notation_raise_only_gotown_errors(data: Any) -> None:
    for parse in (Options.from_json, View.from_json, Event.from_json, Record.from_json):
        with contextlib.suppress(GoTownError):
            parse(data)
    with contextlib.suppress(GoTownError):
        parse_action(json.dumps(data))


@settings(max_examples=200)
@given(st.text(alphabet="0123456789?+@# -abcdefghijklmnopqrstuvwxyz", max_size=16))
def test_fuzz_notation_parses_or_raises_invalid_notation(text: str) -> None:
    try:
        action = parse_action(text)
    except InvalidNotationError:
        return
    assert parse_action(format_action(action)) == action
    assert Action.from_json(action.to_json()) == action


def test_positions_that_the_rules_allow_stay_valid() -> None:
    game(milkshakes=[0, 2], options={"milkshake_stacking": "stack"})
    game(milkshakes=[0, 2], options={"milkshake_stacking": "merge"})
    game(turn=3, options={"turn_limit": 3})
    game(turn=3, options={"turn_limit": 3}, over=True)
    # Two stacked milkshakes, one spent by the last turn before the limit (R7a, R23).
    game(milkshakes=[1, 0], turn=3, options={"turn_limit": 3, "milkshake_stacking": "stack"},
         over=True)  # fmt: skip
    won = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"], ["1", "8"]]
    game(towers=[[], won], winner=1, active=1)
    game(towers=[[], won[:4]], winner=1, active=1, options={"win_floors": 4})
    assert game(towers=[won, []], winner=0, over=True).outcome() == (0, "win")
    game(options={"first_player": 1})


def test_a_record_knows_how_its_game_began_and_a_copy_without_history_has_none() -> None:
    g = Game.new(players=3, seed=11, options={"win_floors": 4})
    g.apply(g.legal_actions()[0])
    assert g.origin == {"players": 3, "options": g.options.to_json(), "seed": 11}
    record = Record.of(g)
    assert record.actions == g.actions and len(record.actions) == 1
    assert Record.from_json(record.to_json()).replay() == g
    start = Game.from_position(g.to_position())
    assert start.origin == {"position": g.to_position()}
    for orphan in (g.copy(history=False), Game.from_view(g.view(0), *_guess(g))):
        assert orphan.origin is None
        with pytest.raises(InvalidActionError, match="no record"):
            Record.of(orphan)
    assert Record.of(g.copy()) == record


def _guess(g: Game) -> tuple[list[list[str] | None], list[str]]:
    """The true hidden cards of ``g`` as seat 0's guess."""
    position = g.to_position()
    hands: list[list[str] | None] = [None, *position["hands"][1:]]
    return hands, position["draw"]


def test_the_public_replay_refuses_events_that_do_not_fit_and_counts_the_discard() -> None:
    from gotown.engine.zones import PublicZones

    g = game(hands=[["jackhammer", "1", "8"], []], towers=[[], [["2", "7"]]], draw=["3"] * 4)
    play(g, Action.jackhammer(1), Action.build("1", "8"))
    events = g.view(1).events
    zones = PublicZones.replay(2, events[1:])  # (the events of a position, not of a deal)
    assert zones.towers == [[(1, 8, 0)], []]
    with pytest.raises(InvalidPositionError, match="does not fit"):
        PublicZones.replay(2, events)  # the empty zones of a deal hold no floor to hammer
    full = PublicZones(towers=[[], [(2, 7, 0)]], milkshakes=[0, 0])
    for event in events:
        full.apply(event)
    assert full.discard == [2, 7, 11] and full.towers == [[(1, 8, 0)], []]
    counts = full.discard_counts()
    assert (counts[2], counts[7], counts[11], sum(counts)) == (1, 1, 1, 3)


def test_a_long_bad_value_is_cut_to_forty_characters_in_the_message() -> None:
    with pytest.raises(InvalidActionError) as info:
        Action.from_json({"type": "x" * 60})
    quoted = repr("x" * 60)[:37] + "..."
    assert str(info.value).startswith(f"unknown action type {quoted};")
    with pytest.raises(InvalidActionError, match=re.escape(f"{'y' * 38!r} is not a card code")):
        Action.from_json({"type": "steal", "card": "y" * 38, "target": 1})  # 40: not cut
    cut = repr("z" * 39)[:37] + "..."  # 41: cut
    with pytest.raises(InvalidActionError, match=re.escape(f"{cut} is not a card code")):
        Action.from_json({"type": "steal", "card": "z" * 39, "target": 1})


def test_an_event_carries_only_the_fields_of_its_type() -> None:
    g = Game.new(players=3, seed=2)
    rng = random.Random(5)
    while not g.is_over and g.version < 120:
        g.apply(rng.choice(g.legal_actions()))
    defaults = Event("turn")
    for seat in (None, 0, 1, 2):
        for event in g.events(seat):
            kept = {"type", *EVENT_FIELDS[event.type]}
            for name in Event.__dataclass_fields__:
                if name not in kept:
                    assert getattr(event, name) == getattr(defaults, name), (event, name)
            assert event.extra is False or event.type == "turn"


@pytest.mark.parametrize(
    ("fields", "why"),
    [({"over": True}, "it sets no turn_limit"),
     ({"over": True, "turn": 2, "options": {"turn_limit": 3}}, "turn 2 is not 3")],
)  # fmt: skip
def test_r20b_r23_a_position_over_without_a_winner_says_why_it_cannot_be(
    fields: dict[str, Any], why: str
) -> None:
    with pytest.raises(InvalidPositionError) as info:
        game(hands=[["4", "5"], []], **fields)  # (seat 0 can build: no stalemate)
    assert str(info.value) == (
        "a game over without a winner ended in a position that can never change (R20b), or as "
        f"its turn_limit's turn ended (R23): this position can still change, and {why}"
    )


def test_r22_a_view_cannot_change_once_given() -> None:
    """Views go to bots and clients, which must not edit what the next one sees."""
    view = Game.new(players=2, seed=1).view(0)
    with pytest.raises(AttributeError):
        view.hand = ("1",)  # type: ignore[misc]
    assert hash(view.events[0]) == hash(Event.from_json(view.events[0].to_json()))


@pytest.mark.parametrize("name", ["target", "floor"])
def test_a_seat_or_floor_number_is_small(name: str) -> None:
    data = {"type": "bone", "target": 1, "floor": 0}
    assert Action.from_json({**data, name: 63}).to_json()[name] == 63
    for bad in (64, -1, 1.0, True):
        with pytest.raises(InvalidActionError, match=f"bone: '{name}' must be a small number"):
            Action.from_json({**data, name: bad})
