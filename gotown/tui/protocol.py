"""What the server's typed messages (:mod:`gotown.wire`) mean to the terminal: a state's view
and legal actions as the engine's, its events joined to those held, its seats' names, and a
refusal or a lobby in words. No I/O: :mod:`gotown.tui.client` brings the messages."""

from __future__ import annotations

from gotown.engine import Action, View
from gotown.wire import ErrorBody, HintOut, StateOut

from . import words


def refusal_text(error: ErrorBody) -> str:
    """A refusal in the server's words, with its rule when the words do not name it."""
    rule = error.rule
    return (
        f"{error.message} ({rule})" if rule and f"({rule})" not in error.message else error.message
    )


def waiting_text(state: StateOut) -> str:
    """What a lobby waits for."""
    seats = state.lobby.seats
    taken = sum(1 for s in seats if s.taken)
    return (
        f"Waiting for players: {taken} of {len(seats)} seats taken. Invite them with "
        f"{state.lobby.invite_url or 'the invitation link'}"
    )


def join_state(held: View | None, state: StateOut) -> tuple[View, tuple[Action, ...]] | None:
    """The seat's view and legal actions in a state message, its events joined to those of
    the view ``held`` (the socket sends each event once: a state holds those from its
    ``events_from`` on); None when it starts after the events held (a gap). Raises
    ``GoTownError`` for a view or an action that is not well formed."""
    assert state.view is not None
    events = [e.to_json() for e in held.events] if held is not None else []
    start = state.events_from
    if start > len(events):
        return None
    raw = {**state.view, "events": events[:start] + state.view.get("events", [])}
    return View.from_json(raw), tuple(Action.from_json(a) for a in state.legal)


def lobby_names(state: StateOut) -> list[str]:
    """A name for each seat of a state's lobby (a bot by its level)."""
    seats = state.lobby.seats
    names = [s.name or (f"{s.level} bot" if s.kind == "bot" else None) for s in seats]
    return words.seat_names(len(seats), names)


def hints(found: HintOut) -> list[tuple[Action, float]]:
    """The server's hints as actions, each with its chance to win."""
    return [(Action.from_json(h.action), h.win_probability) for h in found.hints]
