"""Play: create a game, join it, act in it, and start its rematch.

**Every game the server creates has an end** (R23 ``turn_limit``): left null, the limit becomes
:data:`~gotown.server.schemas.MAX_TURN_LIMIT` with a person's seat, and the lower
:data:`~gotown.server.services.bots.BOTS_ONLY_TURN_LIMIT` without; it is written in the game's
options, so that its record replays exactly as it was played (a game stored before this ceiling
keeps its null, and its rematch gets the ceiling). The seed deals every card: it is 63 random
bits, and a client may choose it only where ``allow_seed`` says so (tests).

Writes decided on what the game or a seat was are conditional in the database: a seat is taken
only while free, a game starts only from the lobby (and the process re-reads the seats after a
join, so that the last seats filled on two processes at once still start the game), a rematch is
linked only once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import hmac
import re
import secrets
from collections.abc import Callable

from gotown.engine import GoTownError, Options

from .. import schemas
from ..clock import Clock
from ..config import Settings
from ..errors import ConflictError, DomainError, ForbiddenError, InvalidError, NotFoundError
from ..storage import StoredGame, StoredSeat
from ..storage_people import KeyHolder
from ..storage_turns import apply_turn
from .bots import BOTS_ONLY_TURN_LIMIT, Bots
from .circles import Circles
from .deadlines import check_pace, turn_record
from .moves import Moves
from .presence import LocalPresence
from .registry import LiveGame, Registry, new_game
from .seat_states import SeatStates
from .tokens import check_seat_number, hash_token, require_seat

#: Every invitation code is ``secrets.token_urlsafe`` (12 characters) in a column of 64:
#: anything else is no game's, answered as unknown without asking the database.
INVITE_CODE_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Play:
    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        presence: LocalPresence,
        seat_states: SeatStates,
        bots: Bots,
        moves: Moves,
        clock: Clock,
        circles: Circles,
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.presence = presence
        self.seat_states = seat_states
        self.bots = bots
        self.moves = moves
        self.clock = clock
        self.circles = circles
        registry.on_full_lobby = self.maybe_start

    # --- creating and joining ----------------------------------------------------------------

    def _options(self, spec: schemas.CreateGameIn) -> Options:
        """The spec's options, checked; a null turn limit becomes the server's ceiling."""
        if spec.seed is not None and not self.settings.allow_seed:
            # The seed deals every card: a player who chose it could see all the hands (R22).
            raise InvalidError(
                "seed-not-allowed", "seed: this server does not let clients choose the seed"
            )
        if spec.name is not None and not spec.name.strip():
            raise InvalidError("invalid-name", "name: type a name (or leave it out)")
        for i, seat in enumerate(spec.seats):
            if seat.kind == "bot":
                self.bots.check_level(seat.level or "medium", f"seat {i}: ")
            elif seat.level is not None:
                # Refused rather than dropped: the client meant a bot, or sent a stale form.
                raise InvalidError(
                    "level-for-person",
                    f"seat {i}: a level ({seat.level!r}) is for a bot's seat; a person's seat "
                    'takes none (send "kind": "bot" for a bot)',
                )
        try:
            options = Options.from_json(spec.options)
        except GoTownError as exc:
            raise InvalidError("invalid-options", str(exc)) from exc
        if options.first_player != "random" and int(options.first_player) >= len(spec.seats):
            raise InvalidError("invalid-options", "first_player must be one of the seats (R23)")
        if options.turn_limit is not None and options.turn_limit > schemas.MAX_TURN_LIMIT:
            raise InvalidError(
                "invalid-options",
                f"option turn_limit: {options.turn_limit} is more than this server's "
                f"{schemas.MAX_TURN_LIMIT} turns (R23)",
            )
        bots_only = all(seat.kind == "bot" for seat in spec.seats)
        limit = options.turn_limit
        if bots_only and limit is not None and limit > BOTS_ONLY_TURN_LIMIT:
            # (Nobody plays there: a longer table would only hold a place and the bots' CPU.)
            raise InvalidError(
                "invalid-options",
                f"option turn_limit: {options.turn_limit} is more than the {BOTS_ONLY_TURN_LIMIT} "
                "turns a table of bots only may play on this server (R23)",
            )
        if options.turn_limit is None:
            ceiling = BOTS_ONLY_TURN_LIMIT if bots_only else schemas.MAX_TURN_LIMIT
            options = dataclasses.replace(options, turn_limit=ceiling)
        return options

    async def create_game(
        self,
        spec: schemas.CreateGameIn,
        base_url: str,
        rematch_of: str | None = None,
        client: str = "?",
        holder: KeyHolder | None = None,
    ) -> schemas.CreatedOut:
        """Create a game (``client``: the address asking, for the bound on tables of bots
        only). The creator (when a name is given) takes the first person's seat, as their
        player's when ``holder`` (their device's key) is given."""
        options = self._options(spec)
        pace = check_pace(spec.pace, spec.on_timeout, spec.missed_limit, self.bots.is_level)
        if spec.circle_id is not None:
            await self.circles.check_table(holder, spec.circle_id)
        bots_only = all(seat.kind == "bot" for seat in spec.seats)
        game_id = secrets.token_urlsafe(8)
        if bots_only:
            self.bots.reserve_bots_only(game_id, client)  # (refused before anything is stored)
        token: str | None = None
        creator_seat: int | None = None
        seats: list[StoredSeat] = []
        for i, seat in enumerate(spec.seats):
            if seat.kind == "bot":
                seats.append(StoredSeat(i, "bot", seat.level or "medium", None, None))
            elif creator_seat is None and spec.name:
                creator_seat, token = i, secrets.token_urlsafe(24)
                player = None if holder is None else holder.player_id
                seats.append(
                    StoredSeat(i, "human", None, spec.name.strip(), hash_token(token), player)
                )
            else:
                seats.append(StoredSeat(i, "human", None, None, None))
        stored = StoredGame(
            id=game_id,
            players=len(seats),
            seed=spec.seed if spec.seed is not None else secrets.randbits(schemas.SEED_BITS),
            options=options.to_json(),
            language=spec.language,
            invite_code=secrets.token_urlsafe(9),
            status="lobby",
            seats=seats,
            rematch_of=rematch_of,
            pace=None if pace is None else pace.seconds,
            on_timeout=None if pace is None else pace.on_timeout,
            missed_limit=None if pace is None else pace.missed_limit,
            circle_id=spec.circle_id,
        )
        try:
            await self.registry.db(self.registry.store.create_game, stored)
            live = await self.registry.live(game_id)
            live.creator = None if client == "?" else client  # ("?": the address is unknown)
            if bots_only:
                live.owner = client
            if creator_seat is not None:
                await self.presence.mark_taken(live, creator_seat)
            await self.maybe_start(live)
        finally:
            self.bots.release_bots_only(game_id)  # (unless its bots play)
        urls = self.seat_states.urls(live, base_url)
        return schemas.CreatedOut(
            game_id=game_id,
            seat=creator_seat,
            token=token,
            play_url=self.seat_states.play_url(game_id, token, base_url),
            invite_url=urls["invite_url"],
            watch_url=urls["watch_url"],
        )

    async def game_for_invite(self, code: str) -> str:
        game_id: str | None = None
        if INVITE_CODE_SHAPE.fullmatch(code):
            game_id = await self.registry.db(self.registry.store.game_id_for_invite, code)
        if game_id is None:
            raise NotFoundError("unknown-invitation", "this invitation link is not valid")
        return game_id

    async def join(
        self,
        game_id: str,
        body: schemas.JoinIn,
        base_url: str,
        holder: KeyHolder | None = None,
    ) -> schemas.JoinedOut:
        live = await self.registry.current(game_id)
        if not hmac.compare_digest(
            live.stored.invite_code.encode(), body.code.encode("utf-8", "surrogatepass")
        ):
            raise ForbiddenError("wrong-invitation", "this invitation code is not for this game")
        if live.stored.circle_id is not None:
            await self.circles.check_seat(holder, live.stored.circle_id)
        name = body.name.strip()
        if not name:
            raise InvalidError("invalid-name", "type a name")
        if body.seat is not None:
            check_seat_number(live, body.seat, InvalidError)
        async with live.lock:
            free = [s.seat for s in live.stored.seats if s.is_free]
            if not free:
                raise ConflictError("no-free-seat", "every seat of this game is taken")
            seat = free[0] if body.seat is None else body.seat
            if seat not in free:
                raise ConflictError("seat-taken", f"seat {seat} is not free")
            player = None if holder is None else holder.player_id
            token = await self.seat_person(live, seat, name, player=player)
            await self.maybe_start(live)
        await self.registry.notify(live, "lobby")
        return self.joined(game_id, seat, token, base_url)

    async def seat_person(
        self,
        live: LiveGame,
        seat: int,
        name: str,
        *,
        from_bot: bool = False,
        player: str | None = None,
    ) -> str:
        """Give ``seat`` (free, or a bot's that no person holds: ``from_bot``) to ``name`` (the
        seat of ``player``, when given), in the database and the copy; answer the seat's new
        token. The caller holds the lock."""
        token = secrets.token_urlsafe(24)
        # Marked first, so that no process ever sees the seat taken but not when: at worst
        # (someone else took it first) their seat counts as away a little later.
        await self.presence.mark_taken(live, seat)
        take: Callable[..., bool] = functools.partial(
            self.registry.store.take_seat, from_bot=from_bot, player_id=player
        )
        if not await self.registry.write(live.id, take, live.id, seat, name, hash_token(token)):
            await self.registry.reload(live)
            raise ConflictError("seat-taken", f"seat {seat} was just taken")
        target = live.stored.seats[seat]
        target.kind, target.level = "human", None
        target.name, target.token_hash = name, hash_token(token)
        target.player_id = player
        if self.registry.shared:
            # Other seats may have been taken elsewhere meanwhile: go on from the facts.
            await self.registry.catch_up(live, locked=True)
        return token

    def joined(self, game_id: str, seat: int, token: str, base_url: str) -> schemas.JoinedOut:
        return schemas.JoinedOut(
            game_id=game_id,
            seat=seat,
            token=token,
            play_url=self.seat_states.play_url(game_id, token, base_url),
        )

    async def maybe_start(self, live: LiveGame) -> None:
        """Start the game once every seat is filled (by a person or a bot).

        The change that filled the last seat is stored already, so a start that cannot be
        stored now does not undo it, nor answer "try again" for it: the game stays in the
        lobby, full, and the next request to it starts it (:meth:`Registry.current`)."""
        if not live.is_full_lobby:
            return
        game = new_game(live.stored)
        record = turn_record(live.stored, None, game, None, self.clock.time())
        try:
            started = await self.registry.write(
                live.id, self.registry.store.start_game, live.id, record
            )
        except DomainError:
            return  # (logged by Registry.db)
        if started:
            live.game = game
            live.stored.status = "playing"
            if record is not None:
                apply_turn(record, live.stored)
            for wake in self.moves.after:
                wake(live)
        else:  # another process started it first (and it may have gone on since)
            await self.registry.reload(live)
        self.bots.kick(live)

    # --- acting ------------------------------------------------------------------------------

    async def act(
        self, game_id: str, token: str | None, body: schemas.ActionIn, base_url: str
    ) -> schemas.StateOut:
        """:meth:`play`, then the state after it, with the events from ``body.events_from``."""
        live, seat = await self.play(game_id, token, body)
        # (The presence as last read: an action changes no one's.)
        return await self.seat_states.state_for(
            live, seat, base_url, body.events_from, presence=False, answer=True
        )

    async def play(
        self, game_id: str, token: str | None, body: schemas.ActionIn
    ) -> tuple[LiveGame, int]:
        """Make an action and answer nothing but the game and the seat: a socket is sent the
        new events by its push, and builds no state here."""
        live = await self.registry.current(game_id)
        seat = require_seat(live, token)
        # Once received, an action is made whole (stored, in memory, told, bots kicked) even
        # when its request is cancelled meanwhile (a socket whose client left): a write left
        # in its thread while memory stayed behind would make the table lag its database.
        task = asyncio.ensure_future(self._act(live, seat, body))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await task
            raise
        return live, seat

    async def _act(self, live: LiveGame, seat: int, body: schemas.ActionIn) -> None:
        def check(live: LiveGame, _reloaded: bool) -> None:
            mine = live.stored.seats[seat]
            if mine.kind == "bot":
                raise ConflictError("seat-is-bot", "a bot plays this seat now; take it back first")
            if mine.standin:
                raise ConflictError(
                    "standin-plays",
                    "your time for this turn ran out: a bot plays it for you, and your next "
                    "turn is yours again",
                )

        # (Only a version this process has not seen makes it read the database first: the
        # client has seen more than this process, another process moved since.)
        await self.moves.make(
            live, seat, body.version, body.action, kind="human", check=check, catch_up=False
        )

    # --- after the game ----------------------------------------------------------------------

    async def rematch(self, game_id: str, token: str | None, base_url: str) -> schemas.JoinedOut:
        """Create the rematch (same seats, options, language) or join it, in the same seat."""
        live = await self.registry.current(game_id)
        seat = require_seat(live, token)
        if live.stored.status != "over":
            raise ConflictError("not-over", "a rematch can start when the game is over")
        name = live.stored.seats[seat].name or f"Player {seat + 1}"
        player = live.stored.seats[seat].player_id  # (the rematch's seat is theirs too)
        async with live.lock:
            if live.stored.rematch_id is None:
                await self._link_rematch(live, base_url)
        await self.registry.notify(live, "lobby")
        rematch_id = live.stored.rematch_id
        assert rematch_id is not None
        new = await self.registry.current(rematch_id)
        mine = new.stored.seats[seat]
        if mine.kind == "human" and not mine.is_free:
            # Their seat was taken already: by them, from another tab or device (the page
            # goes straight to a rematch it holds a seat in), or by someone with the
            # rematch's invitation. A seat's secret is shown once; it cannot be sent again.
            raise ConflictError(
                "rematch-seat-taken",
                f"seat {seat} of the rematch is taken already: by you on another device or "
                "browser, or by someone with its invitation",
            )
        if mine.kind == "bot":
            # Another player gave the seat to a bot before this one came back (the lobby's
            # "give to a bot" on a free seat): it is theirs again, as a reclaim gives it back.
            return await self._take_back_from_bot(new, seat, name, base_url, player)
        holder = None if player is None else KeyHolder(player, name, 0)
        return await self.join(
            rematch_id,
            schemas.JoinIn(code=new.stored.invite_code, name=name, seat=seat),
            base_url,
            holder,
        )

    async def _link_rematch(self, live: LiveGame, base_url: str) -> None:
        """Create the rematch of ``live`` and link it (the caller holds the lock). A seat a
        person once held is a person's seat again, even when a bot finished the game."""
        spec = schemas.CreateGameIn(
            seats=[
                schemas.SeatSpec(kind="human", level=None)
                if s.token_hash is not None
                else schemas.SeatSpec(kind=s.kind, level=s.level)  # type: ignore[arg-type]
                for s in live.stored.seats
            ],
            options=live.stored.options,
            language=live.stored.language,  # type: ignore[arg-type]
            pace=live.stored.pace,
            on_timeout=live.stored.on_timeout,
            missed_limit=live.stored.missed_limit,
            circle_id=live.stored.circle_id,
        )
        # (A circle's rematch is made by a member: the player of a seat that asked for it.)
        players = [s for s in live.stored.seats if s.player_id is not None]
        holder = None if not players else KeyHolder(players[0].player_id, "", 0)  # type: ignore[arg-type]
        created = await self.create_game(spec, base_url, rematch_of=live.id, holder=holder)
        if await self.registry.write(
            live.id, self.registry.store.set_rematch, live.id, created.game_id
        ):
            live.stored.rematch_id = created.game_id
        else:  # another process linked one first (the game just made stays unused)
            await self.registry.reload(live)

    async def _take_back_from_bot(
        self, live: LiveGame, seat: int, name: str, base_url: str, player: str | None
    ) -> schemas.JoinedOut:
        """Seat ``name`` at ``seat`` of the rematch ``live``, which a bot was given while it was
        free (in the lobby, or since: the game starts once every seat is filled)."""
        async with live.lock:
            target = live.stored.seats[seat]
            if live.stored.status == "over":
                raise ConflictError("game-over", "the rematch is over")
            if target.kind != "bot":  # (another request of theirs took it just before)
                raise ConflictError("seat-taken", f"seat {seat} was just taken")
            if target.token_hash is not None:
                # (a person's seat handed to a bot: that person may reclaim it, not another)
                raise ConflictError("seat-is-bot", "a bot plays your seat in the rematch")
            token = await self.seat_person(live, seat, name, from_bot=True, player=player)
        await self.registry.notify(live, "lobby")
        self.bots.kick(live)  # (a bot thinking for the seat stops: the seat is a person's)
        return self.joined(live.id, seat, token, base_url)
