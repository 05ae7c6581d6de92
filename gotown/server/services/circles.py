"""Circles of friends, and ratings on one scale for people and bots.

A circle is made in one tap and joined by its link; its members have names unique in it. Only a
table made from a circle counts for ratings, and only its members (and bots) may sit at it: a
stranger cannot farm a family's ratings. When such a table ends with a winner, every person at it
is rated (openskill's Plackett-Luce model, the library the tournaments use) twice: in the circle,
and over all their rated games. The winner is ranked first and everyone else tied second, as
the bots' own ratings were fitted (``benchmarks/bot_ratings.py``); a bot at the table counts
with its fixed rating (``bot_ratings.json``), which games with people never move, so a
person's rating reads on the bots' scale ("you play about like hard").

A game without a winner (a stalemate, R20b, or the turn limit, R23) is not rated at all: a
stalemate is an accident of the deal, not a result anybody earned, and rating a game that ran to
its turn limit as a draw would let a player who is losing earn a draw by stalling. Each game is
rated once (a unique row per game and player; several processes may try), when it ends, or at the
next start for one whose end was stored just before a stop.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from ..clock import Clock
from ..errors import ConflictError, ForbiddenError, NotFoundError
from ..storage_people import KeyHolder
from ..storage_ratings import OVERALL, CircleInfo, FinishedGame, RatedSeat, Rating
from .players import check_name
from .registry import LiveGame, Registry

log = logging.getLogger("gotown.server")

#: What a deleted player's seats are called.
FORMER_PLAYER = "a former player"


@cache
def bot_ratings() -> dict[str, Rating]:
    """Each bot level's fixed (mu, sigma), from ``bot_ratings.json``."""
    data = json.loads((files("gotown.server") / "bot_ratings.json").read_text("utf-8"))
    return {level: (r["mu"], r["sigma"]) for level, r in data["ratings"].items()}


def new_rating() -> Rating:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    return (model.mu, model.sigma)


def ranks(winner: int, seats: int) -> list[int]:
    """The game's ranking: the winner first, everyone else tied second."""
    return [1 if seat == winner else 2 for seat in range(seats)]


def rate(before: list[Rating], order: list[int], fixed: list[bool]) -> list[Rating]:
    """The ratings after a game ranked ``order``, by openskill; ``fixed`` ones (bots) stay."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = model.rate(teams, ranks=order)
    return [
        old if keep else (team[0].mu, team[0].sigma)
        for old, team, keep in zip(before, after, fixed, strict=True)
    ]


def ordinal(rating: Rating) -> float:
    """openskill's conservative estimate, mu - 3 sigma: what a leaderboard sorts by."""
    return rating[0] - 3 * rating[1]


def plays_like(rating: Rating) -> str:
    """The bot level whose rating is nearest."""
    return min(bot_ratings(), key=lambda level: abs(bot_ratings()[level][0] - rating[0]))


@dataclass(frozen=True)
class CircleView:
    info: CircleInfo
    members: list[tuple[str, str]]  # (player, name)
    ratings: dict[str, tuple[float, float, int]]
    tables: list[tuple[str, str, str]]  # (game, status, invitation code)


class Circles:
    def __init__(self, registry: Registry, clock: Clock) -> None:
        self.registry = registry
        self.clock = clock
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def store(self) -> Any:
        return self.registry.store

    # --- circles -------------------------------------------------------------------------

    async def create(self, holder: KeyHolder, name: str) -> CircleInfo:
        name = check_name(name)
        circle_id = secrets.token_urlsafe(8)
        await self.registry.db(
            self.store.create_circle,
            circle_id,
            name,
            holder.player_id,
            holder.name,
            secrets.token_urlsafe(9),
            self.clock.time(),
        )
        info = await self.registry.db(self.store.circle, circle_id)
        assert info is not None
        return info

    async def mine(self, holder: KeyHolder) -> list[CircleInfo]:
        return await self.registry.db(self.store.circles_of, holder.player_id)

    async def member_of(self, holder: KeyHolder | None, circle_id: str) -> CircleInfo:
        """The circle, for one of its members; 404 ``unknown-circle`` for anyone else (a
        circle's existence is not told to strangers)."""
        info = None
        if holder is not None and 1 <= len(circle_id) <= 32:
            info = await self.registry.db(self.store.circle, circle_id)
            if info is not None:
                members = await self.registry.db(self.store.members, circle_id)
                if all(m.player_id != holder.player_id for m in members):
                    info = None
        if info is None:
            raise NotFoundError("unknown-circle", "there is no such circle of yours")
        return info

    async def view(self, holder: KeyHolder, circle_id: str) -> CircleView:
        info = await self.member_of(holder, circle_id)
        members = await self.registry.db(self.store.members, circle_id)
        return CircleView(
            info,
            [(m.player_id, m.name) for m in members],
            await self.registry.db(self.store.ratings, circle_id),
            await self.registry.db(self.store.circle_tables, circle_id),
        )

    async def by_code(self, code: str) -> CircleInfo:
        info = None
        if 1 <= len(code) <= 64:
            info = await self.registry.db(self.store.circle_of_code, code)
        if info is None:
            raise NotFoundError("unknown-circle", "this circle's link is not valid")
        return info

    async def join(self, holder: KeyHolder, code: str, name: str | None) -> CircleInfo:
        info = await self.by_code(code)
        chosen = check_name(name or holder.name)
        done = await self.registry.db(
            self.store.join_circle, info.id, holder.player_id, chosen, self.clock.time()
        )
        if done == "name-taken":
            raise ConflictError(
                "name-taken", f"{chosen!r} is taken in this circle: choose another name"
            )
        return info

    async def rename(self, holder: KeyHolder, circle_id: str, name: str) -> None:
        await self.member_of(holder, circle_id)
        name = check_name(name)
        if not await self.registry.db(self.store.rename_member, circle_id, holder.player_id, name):
            raise ConflictError("name-taken", f"{name!r} is taken in this circle")

    async def remove(self, holder: KeyHolder, circle_id: str, player_id: str) -> None:
        """Leave the circle (your own id), or, for its creator, remove a member."""
        info = await self.member_of(holder, circle_id)
        if player_id != holder.player_id and info.creator_id != holder.player_id:
            raise ForbiddenError("not-creator", "only the circle's creator removes a member")
        if not await self.registry.db(self.store.leave_circle, circle_id, player_id):
            raise NotFoundError("unknown-member", "there is no such member in this circle")

    async def check_table(self, holder: KeyHolder | None, circle_id: str) -> None:
        """A table is made from a circle only by one of its members."""
        await self.member_of(holder, circle_id)

    async def check_seat(self, holder: KeyHolder | None, circle_id: str) -> None:
        """Only a member takes a seat at a circle's table (with their device's key)."""
        if holder is None:
            raise ForbiddenError(
                "not-a-member", "this table is a circle's: join the circle first, on this device"
            )
        try:
            await self.member_of(holder, circle_id)
        except NotFoundError:
            raise ForbiddenError(
                "not-a-member", "this table is a circle's: join the circle first"
            ) from None

    # --- ratings -------------------------------------------------------------------------

    def after_move(self, live: LiveGame) -> None:
        """Rate a circle's table that just ended (a move hook)."""
        if live.game is not None and live.game.is_over and live.stored.circle_id:
            self._spawn(self.rate(live.id))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def rate_missed(self) -> None:
        """Rate the circles' games whose end was stored but never rated (a stop between)."""
        for game_id in await self.registry.db(self.store.unrated_games):
            await self.rate(game_id)

    async def rate(self, game_id: str) -> bool:
        """Rate a finished game of a circle once; False when there is nothing to rate (no
        winner, a seat nobody can be rated for) or it was rated already."""
        try:
            live = await self.registry.current(game_id)
            game, stored = live.game, live.stored
            outcome = None if game is None else game.outcome()
            if outcome is None or outcome.winner is None or not stored.circle_id:
                return False
            seats: list[RatedSeat] = []
            for seat in stored.seats:
                if seat.player_id is not None:
                    seats.append(RatedSeat(seat.seat, seat.player_id))
                elif seat.kind == "bot" and seat.level in bot_ratings():
                    seats.append(RatedSeat(seat.seat, None, bot_ratings()[seat.level]))
                else:
                    return False  # (a seat of nobody known: not a result to rate on)
            order = ranks(outcome.winner, stored.players)
            fixed = [s.player_id is None for s in seats]
            return bool(
                await self.registry.db(
                    self.store.rate_game,
                    game_id,
                    stored.circle_id,
                    seats,
                    new_rating(),
                    lambda before: rate(before, order, fixed),
                    self.clock.time(),
                )
            )
        except Exception:  # the next start rates it (rate_missed)
            log.exception("cannot rate game %s", game_id)
            return False

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    # --- a player's page -----------------------------------------------------------------

    async def page(self, player_id: str, circle_id: str | None) -> dict[str, Any]:
        """What a player's page shows: over all their circles (``circle_id`` None: the
        player's own page) or in one circle (a fellow member's)."""
        ratings = await self.registry.db(self.store.rating_of, player_id)
        scope = OVERALL if circle_id is None else circle_id
        rating = ratings.get(scope)
        circles = None if circle_id is None else [circle_id]
        games: list[FinishedGame] = await self.registry.db(
            self.store.finished_games, player_id, circles
        )
        changes = [
            c
            for c in await self.registry.db(
                functools.partial(self.store.rating_changes, player_id=player_id)
            )
            if c["circle_id"] == scope
        ]
        wins: dict[int, list[int]] = {}
        head: dict[tuple[str, str], list[int]] = {}
        mine: list[tuple[str, int]] = []
        recent = []
        for game in games:
            seat = next(s for s in game.seats if s[1] == player_id)[0]
            mine.append((game.game_id, seat))
            decided = game.winner is not None
            won = game.winner == seat
            tally = wins.setdefault(game.players, [0, 0])
            tally[0] += 1
            tally[1] += won
            for other, other_player, name, kind, level in game.seats:
                if other == seat:
                    continue
                key = (
                    ("bot", level or "?")
                    if kind == "bot" and other_player is None
                    else ("person", name or "?")
                )
                row = head.setdefault(key, [0, 0, 0])
                row[0] += 1
                row[1] += decided and won
                row[2] += decided and game.winner == other
            if len(recent) < 10:
                winner = None if game.winner is None else game.seats[game.winner][2]
                recent.append(
                    {"game_id": game.game_id, "players": game.players,
                     "names": [s[2] for s in game.seats], "winner": winner, "you_won": won,
                     "ending": game.ending, "finished": game.finished}
                )  # fmt: skip
        actions = await self.registry.db(self.store.actions_of_seats, mine[:200])
        cards = Counter(
            a["type"] for a in actions if a.get("type") not in ("end-turn", "build", "steal")
        )
        built = sum(a.get("type") in ("build", "steal") for a in actions)
        return {
            "player_id": player_id,
            "rating": None if rating is None else {"mu": rating[0], "sigma": rating[1],
                                                   "games": rating[2]},
            "plays_like": None if rating is None else plays_like(rating[:2]),
            "games": len(games),
            "wins_by_players": {str(n): {"games": g, "wins": w}
                                for n, (g, w) in sorted(wins.items())},
            "history": [{"game_id": c["game_id"], "mu": c["mu_after"], "sigma": c["sigma_after"]}
                        for c in changes],
            "head_to_head": [
                {"kind": kind, "opponent": who, "games": g, "wins": w, "losses": lost}
                for (kind, who), (g, w, lost) in sorted(head.items(), key=lambda i: -i[1][0])
            ],
            "cards": [{"card": card, "plays": n} for card, n in cards.most_common()],
            "floors_built": built,
            "recent": recent,
        }  # fmt: skip
