"""The wire messages as the terminal reads them (:mod:`gotown.tui.protocol`) and the socket's
first message (:mod:`gotown.tui.client`), without a server."""

from __future__ import annotations

import json
import typing

import pytest
from pydantic import ValidationError

from gotown import texts, wire
from gotown.engine import Action, Game
from gotown.server import schemas
from gotown.tui.client import Seat, hello
from gotown.tui.protocol import join_state, refusal_text
from gotown.wire import StateOut


def test_states_join_their_events_to_those_held_and_a_gap_is_seen():
    game = Game.new(players=2, seed=3, options={"first_player": 0})
    first = game.view(0)
    game.apply(Action.end_turn())
    later = game.view(0).to_json()
    count = len(first.events)

    def state(events_from: int) -> StateOut:
        view = {**later, "events": later["events"][events_from:]}
        return StateOut.model_construct(view=view, events_from=events_from, legal=[])

    joined = join_state(first, state(count))
    assert joined is not None and joined[0] == game.view(0)
    assert join_state(None, state(count)) is None  # holding nothing, sent only the rest
    assert join_state(first, state(count + 1)) is None
    assert join_state(first, state(0)) is not None  # every event again: taken as they are


def test_the_terminal_reads_the_server_s_own_wire_schemas():
    """The models the server answers with are those the terminal reads (gotown.wire), not a
    copy; a socket message is typed, and one that is none is refused, not guessed at."""
    for name in ("StateOut", "LobbyOut", "SeatOut", "ErrorBody", "JoinedOut", "HintOut"):
        assert getattr(schemas, name) is getattr(wire, name)
    assert schemas.Language is wire.Language and schemas.LANGUAGES == wire.LANGUAGES
    assert typing.get_args(wire.Language) == texts.LANGUAGES  # the schema's enum: one list
    refused = wire.read_message(
        '{"type": "error", "error": {"code": "illegal", "message": "no dog here", "rule": "R13"}}'
    )
    assert isinstance(refused, wire.ErrorMessage)
    assert refusal_text(refused.error) == "no dog here (R13)"
    named = wire.ErrorBody(code="illegal", message="guarded (R11)", rule="R11")
    assert refusal_text(named) == "guarded (R11)"
    assert isinstance(wire.read_message('{"type": "pong"}'), wire.PongMessage)
    for junk in ('{"type": "state"}', '{"type": "news"}', "[]", "not json"):
        with pytest.raises(ValidationError):
            wire.read_message(junk)
    seat = Seat("http://h", "g", "secret")
    assert json.loads(hello(seat, 0)) == {"token": "secret"}
    assert json.loads(hello(seat, 7)) == {"token": "secret", "events_from": 7}
