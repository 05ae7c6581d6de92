"""What each seat is shown: the lobby, the state (its view and legal actions), the replay.
(A "view" is only ever the engine's: what one seat may know, R22; a seat's state is built from
it, hence this module's name.)

Every payload for a seat comes from ``game.view(seat)`` (``game.public_view()`` for spectators),
or from the view of a copy without history plus ``game.events(seat, start)`` (the same seat's
events from ``start`` on): no hidden card is ever sent (once the game is over, the view itself
holds every hand, R22).

Events are sent once: a state holds the view's events from ``events_from`` on (the index of its
first event in the game's events, the same for every seat). **The event loop never converts a
long game's events**: a view with at most :data:`EVENTS_BUILT_IN_LOOP` events from
``events_from`` on is built in the loop from a copy without history; one with more is cut from
the seat's full view, built once per seat and game version in the view worker (simultaneous
askers share it, and it is kept until the game moves on), and a state holding more is encoded
to JSON there too. A game held in memory never changes once current (an action makes a new
copy), so the view workers read it safely. A replay's frames are built in time linear in the
game's length, once per finished game and seat.

**A state's work does not grow with the game's length**: its view comes from a copy without
history, its events are the new ones, and its ``frozen_turns`` (``View.frozen_turns``, public
events only) is kept per game as it goes on (:class:`FrozenCount`), each state reading only the
events since the last one: a long run of ended turns is never read again (a game's events only
grow: an action appends to them, a load replays the same stored actions).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from gotown.engine import Action, Event, Game

from .. import schemas
from ..config import Settings
from ..errors import ConflictError
from ..storage import StoredGame
from .presence import LocalPresence
from .registry import LiveGame, PerGame, Registry, new_game, shared_once
from .tokens import require_seat, seat_or_spectator

#: A view whose events from the client's ``events_from`` on are at most this many is built in
#: the event loop, from a copy without history (cheap); one with more in the view worker (a
#: full view holds every event: 2 MB and a tenth of a second after 20,000 actions).
EVENTS_BUILT_IN_LOOP = 256


def full_view_json(game: Game, seat: int | None) -> dict[str, Any]:
    """``game.view(seat)`` as JSON, every event included (``game.public_view()`` for None)."""
    return game.view(seat).to_json()


def view_json(game: Game, seat: int | None, start: int) -> dict[str, Any]:
    """``game.view(seat)`` as JSON with only the events from index ``start`` on, at the cost of
    those events only: the view of a copy without history has no events, and
    ``game.events(seat, start)`` are the ones the view would hold from ``start`` on."""
    view = game.copy(history=False).view(seat).to_json()
    view["events"] = [event.to_json() for event in game.events(seat, start)]
    return view


@dataclass(frozen=True, slots=True)
class FrozenCount:
    """``View.frozen_turns`` of the events read so far, ready to read on: the turns in a row,
    up to the one under way, that held nothing but their end. ``run`` counts the ended turns
    (each an end-turn action right after its turn's start) that end at the last event read,
    ``before`` those that end at the one before it: the count goes back two events a turn."""

    seen: int = 0  # events read
    run: int = 0
    before: int = 0
    after_turn: bool = False  # the last event read is a turn's start

    @property
    def turns(self) -> int:
        """The count, the turn under way (its start alone) left out."""
        return self.before if self.after_turn else self.run

    def after(self, events: Iterable[Event]) -> FrozenCount:
        """The count once ``events`` (those that follow the ones read) are read too."""
        seen, run, before, after_turn = self.seen, self.run, self.before, self.after_turn
        for event in events:
            action = event.action
            # (The first event an end: a record loaded from a position starts with its action.)
            ended = action is not None and action.type == "end-turn" and (after_turn or seen == 0)
            run, before = (before + 1 if ended else 0), run
            after_turn = event.type == "turn"
            seen += 1
        return FrozenCount(seen, run, before, after_turn)

    def at(self, game: Game) -> FrozenCount:
        """The count of every event of ``game``, reading only those past ``seen`` (all of
        them when ``game`` holds fewer: it is not the game read so far)."""
        known = self if self.seen <= game.event_count else FrozenCount()
        return known.after(game.events(None, known.seen))


def replay_frames(stored: StoredGame, seat: int | None) -> schemas.ReplayOut:
    """Every step of a finished game as ``seat`` saw it. Each frame holds only the events since
    the previous one (``game.view`` would convert every event so far at each frame, quadratic
    in the game's length); the engine keeps one event per raw event for every seat, so one
    index counts both alike."""
    game = new_game(stored)
    first = view_json(game, seat, 0)
    frames = [schemas.ReplayFrame(version=game.version, seat=None, action=None, view=first)]
    seen = game.event_count
    for data in stored.actions:
        actor = game.active
        action = Action.from_json(data)
        game.apply(action)
        view = view_json(game, seat, seen)
        seen = game.event_count
        frames.append(
            schemas.ReplayFrame(
                version=game.version, seat=actor, action=action.to_json(), view=view
            )
        )
    return schemas.ReplayOut(
        game_id=stored.id,
        seat=seat,
        players=stored.players,
        names=[s.name for s in stored.seats],
        frames=frames,
    )


@dataclass(eq=False)
class _Answered:
    """The state last answered to a seat's action over HTTP, and its JSON once encoded: that
    seat's socket is pushed the same state at once (same game, events and lobby), which is
    then neither built nor encoded again."""

    game: Game
    seat: int
    base_url: str
    events_from: int
    state: schemas.StateOut
    text: str | None = None


@dataclass
class _Shown:
    """What is kept of one game: the full views of its current version ((seat, version) ->
    JSON), its replay by seat (None: a spectator) once it is over, and its ``frozen_turns``."""

    views: dict[tuple[int | None, int], asyncio.Future[dict[str, Any]]] = field(
        default_factory=dict
    )
    replays: dict[int | None, asyncio.Future[schemas.ReplayOut]] = field(default_factory=dict)
    #: ``frozen_turns`` as far as read, and the counts being read in the view worker (by
    #: the event count they reach).
    frozen: FrozenCount = field(default_factory=FrozenCount)
    counting: dict[int, asyncio.Future[FrozenCount]] = field(default_factory=dict)
    answered: _Answered | None = None


class SeatStates:
    def __init__(self, settings: Settings, registry: Registry, presence: LocalPresence) -> None:
        self.settings = settings
        self.registry = registry
        self.presence = presence
        # Full views of long games and the states holding them are built and encoded here, off
        # the event loop, and not in the threads the database calls use.
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gotown-view")
        self._of = PerGame(_Shown)
        #: Each game's :class:`_Answered` by the id of its state (gone with the game).
        self._answered: weakref.WeakValueDictionary[int, _Answered] = weakref.WeakValueDictionary()

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def seat_view(self, game: Game, seat: int) -> Any:
        """``game.view(seat)``, built in the view worker (it holds every event)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, game.view, seat)

    # --- links -------------------------------------------------------------------------------

    def _base(self, base_url: str) -> str:
        return (self.settings.public_base_url or base_url).rstrip("/")

    def urls(self, live: LiveGame, base_url: str) -> dict[str, str]:
        base = self._base(base_url)
        return {
            "invite_url": f"{base}/j/{live.stored.invite_code}",
            "watch_url": f"{base}/w/{live.id}",
        }

    def play_url(self, game_id: str, token: str | None, base_url: str) -> str:
        return f"{self._base(base_url)}/g/{game_id}" + (f"#t={token}" if token else "")

    # --- the lobby and the state -------------------------------------------------------------

    def lobby(self, live: LiveGame, base_url: str, *, invited: bool = True) -> schemas.LobbyOut:
        """The lobby; the invitation link only for those ``invited`` (a seat, or the code's
        holder): the spectator link must not be a way to take a free seat."""
        urls: dict[str, str | None] = {**self.urls(live, base_url)}
        if not invited:
            urls["invite_url"] = None
        presence = self.presence
        return schemas.LobbyOut(
            game_id=live.id,
            status=live.stored.status,  # type: ignore[arg-type]
            players=live.stored.players,
            options=live.stored.options,
            language=live.stored.language,  # type: ignore[arg-type]
            seats=[
                schemas.SeatOut(
                    seat=s.seat,
                    kind=s.kind,  # type: ignore[arg-type]
                    level=s.level,
                    name=s.name,
                    taken=s.kind == "bot" or s.token_hash is not None,
                    connected=s.kind == "bot" or presence.is_connected(live, s.seat),
                    handover_in=presence.handover_in(live, s.seat)
                    if s.kind == "human" and s.token_hash is not None
                    else None,
                    missed=s.missed,
                    standin=s.standin,
                )
                for s in live.stored.seats
            ],
            rematch_id=live.stored.rematch_id,
            rematch_of=live.stored.rematch_of,
            pace=live.stored.pace,
            circle_id=live.stored.circle_id,
            on_timeout=live.stored.on_timeout,
            missed_limit=live.stored.missed_limit,
            deadline=live.stored.deadline if live.stored.status == "playing" else None,
            **urls,  # type: ignore[arg-type]
        )

    async def lobby_of(
        self, game_id: str, base_url: str, token: str | None = None, *, invited: bool = False
    ) -> schemas.LobbyOut:
        """The lobby; with the invitation link for a seat's token (or ``invited``)."""
        live = await self.registry.current(game_id)
        if token:
            require_seat(live, token)
            invited = True
        await self.presence.read(live)
        return self.lobby(live, base_url, invited=invited)

    async def view_json(
        self, live: LiveGame, game: Game, seat: int | None, start: int = 0
    ) -> dict[str, Any]:
        """``game.view(seat)`` as JSON, with only the events from index ``start`` on: built
        here when they are few, else cut from the seat's full view at this version."""
        if game.event_count - start <= EVENTS_BUILT_IN_LOOP:
            return view_json(game, seat, start)
        version = game.version
        views = self._of(live).views
        loop = asyncio.get_running_loop()

        def keep_this_version_only() -> None:
            for key in [key for key in views if key[1] != version]:
                views.pop(key, None)

        full = await shared_once(
            views,
            (seat, version),
            lambda: loop.run_in_executor(self.executor, full_view_json, game, seat),
            keep_this_version_only,
        )
        return full if start == 0 else {**full, "events": full["events"][start:]}

    async def state_for(
        self,
        live: LiveGame,
        seat: int | None,
        base_url: str,
        events_from: int = 0,
        *,
        presence: bool = True,
        answer: bool = False,
    ) -> schemas.StateOut:
        """The state for ``seat`` (None: a spectator), its view's events from index
        ``events_from`` on (at least 0), with the presence of every process read first. An
        ``events_from`` beyond the game's events is answered with every event, from 0: a
        client that holds what the game never had (a socket whose game was reloaded behind
        what it was sent, a client's mistake) starts again whole rather than be refused, which
        is also what the schema says (it cannot know a game's count). ``presence``: read every
        process's presence first (else as last read: a push after an action, which changes no
        one's presence; with several processes, a Redis read less per socket and action).
        ``answer``: the answer to the seat's action, kept for its socket (:class:`_Answered`)."""
        if presence or not self.presence.is_kept(live):
            await self.presence.read(live)
        game = live.game
        if events_from > (0 if game is None else game.event_count):
            events_from = 0
        if game is None:
            return schemas.StateOut(
                game_id=live.id,
                status=live.stored.status,  # type: ignore[arg-type]
                seat=seat,
                version=0,
                lobby=self.lobby(live, base_url, invited=seat is not None),
                view=None,
                events_from=0,
                legal=[],
            )
        shown = self._of(live)
        answered = shown.answered
        if (
            answered is not None
            and answered.game is game
            and answered.seat == seat
            and answered.events_from == events_from
            and answered.base_url == base_url
            and answered.state.lobby == self.lobby(live, base_url, invited=True)
        ):
            return answered.state
        frozen = await self.frozen_turns(live, game)
        view = await self.view_json(live, game, seat, events_from)
        # (The game may have moved on meanwhile: the state is all of the one its view is of.)
        legal: list[dict[str, Any]] = []
        if (
            seat is not None
            and not game.is_over
            and game.active == seat
            and live.stored.seats[seat].kind == "human"
        ):
            legal = [a.to_json() for a in game.legal_actions()]
        state = schemas.StateOut(
            game_id=live.id,
            status="over" if game.is_over else "playing",
            seat=seat,
            version=game.version,
            lobby=self.lobby(live, base_url, invited=seat is not None),
            view=view,
            events_from=events_from,
            legal=legal,
            frozen_turns=frozen,
        )
        if answer and seat is not None:
            shown.answered = _Answered(game, seat, base_url, events_from, state)
            self._answered[id(state)] = shown.answered
        return state

    async def frozen_turns(self, live: LiveGame, game: Game) -> int:
        """``View.frozen_turns`` of ``game`` (``live``'s now or lately; the same for every seat),
        from the count kept for ``live``: only the events since are read, in the event loop
        when they are few, else in the view worker (once for simultaneous askers)."""
        shown = self._of(live)
        known = shown.frozen
        if 0 <= game.event_count - known.seen <= EVENTS_BUILT_IN_LOOP:
            counted = known.at(game)
        else:
            loop = asyncio.get_running_loop()
            counting = shown.counting

            def keep_this_count_only() -> None:
                for key in [key for key in counting if key != game.event_count]:
                    counting.pop(key, None)

            counted = await shared_once(
                counting,
                game.event_count,
                lambda: loop.run_in_executor(self.executor, known.at, game),
                keep_this_count_only,
            )
        if counted.seen > shown.frozen.seen or game is live.game:
            shown.frozen = counted  # (not a copy behind the one read)
        return counted.turns

    async def encode(self, state: schemas.StateOut) -> str:
        """The state as JSON text; in the view worker when its view holds many events."""
        answered = self._answered.get(id(state))
        if answered is None or answered.state is not state:
            return await self._encode(state)
        if answered.text is None:
            answered.text = await self._encode(state)
        return answered.text

    async def _encode(self, state: schemas.StateOut) -> str:
        if state.view is not None and len(state.view["events"]) > EVENTS_BUILT_IN_LOOP:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, state.model_dump_json)
        return state.model_dump_json()

    async def state(
        self, game_id: str, token: str | None, base_url: str, events_from: int = 0
    ) -> schemas.StateOut:
        live = await self.registry.current(game_id)
        return await self.state_for(live, seat_or_spectator(live, token), base_url, events_from)

    # --- after the game ----------------------------------------------------------------------

    async def replay(self, game_id: str, token: str | None) -> schemas.ReplayOut:
        live = await self.registry.current(game_id)
        seat = seat_or_spectator(live, token)
        if live.stored.status != "over":
            raise ConflictError("not-over", "the replay opens when the game is over")
        stored = live.stored
        return await shared_once(
            self._of(live).replays, seat, lambda: asyncio.to_thread(replay_frames, stored, seat)
        )
