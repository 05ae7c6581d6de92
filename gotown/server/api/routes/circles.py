"""``/api/circles``: circles of friends, their leaderboards, and players' pages; a game's rating
changes for its end screen; ``DELETE /api/me``. Everything of a circle is for its members only:
anyone else gets 404 ``unknown-circle``, as if it did not exist."""

from __future__ import annotations

import functools

from fastapi import APIRouter
from fastapi.responses import Response

from ... import schemas
from ...errors import NotFoundError
from ...services.circles import FORMER_PLAYER, bot_ratings, ordinal
from ...storage_ratings import OVERALL
from ..deps import ERRORS, BaseUrl, Holder, MaybeHolder, Service, Token

router = APIRouter(prefix="/api")


def _rating(
    values: tuple[float, float, int] | tuple[float, float] | None,
) -> schemas.RatingOut | None:
    if values is None:
        return None
    mu, sigma = values[0], values[1]
    games = values[2] if len(values) > 2 else 0  # type: ignore[misc]
    return schemas.RatingOut(mu=mu, sigma=sigma, games=games, ordinal=ordinal((mu, sigma)))


def _base(service: Service, base: str) -> str:
    return (service.settings.public_base_url or base).rstrip("/")


@router.post("/circles", response_model=schemas.CircleOut, status_code=201, responses=ERRORS)
async def create_circle(
    body: schemas.CircleIn, holder: Holder, service: Service, base: BaseUrl
) -> schemas.CircleOut:
    """A circle of friends, in one tap: you are its first member (under your player's name)."""
    info = await service.circles.create(holder, body.name)
    return schemas.CircleOut(
        circle_id=info.id,
        name=info.name,
        creator_id=info.creator_id,
        invite_url=f"{_base(service, base)}/c/{info.invite_code}",
    )


@router.get("/circles", response_model=list[schemas.CircleOut], responses=ERRORS)
async def my_circles(holder: Holder, service: Service, base: BaseUrl) -> list[schemas.CircleOut]:
    return [
        schemas.CircleOut(
            circle_id=info.id,
            name=info.name,
            creator_id=info.creator_id,
            invite_url=f"{_base(service, base)}/c/{info.invite_code}",
        )
        for info in await service.circles.mine(holder)
    ]


@router.get("/circles/{circle_id}", response_model=schemas.CircleDetailOut, responses=ERRORS)
async def circle(
    circle_id: str, holder: MaybeHolder, service: Service, base: BaseUrl
) -> schemas.CircleDetailOut:
    """A circle's page, for its members: members, tables under way, the leaderboard (the bot
    levels beside the members, on one scale)."""
    if holder is None:
        raise NotFoundError("unknown-circle", "there is no such circle of yours")
    view = await service.circles.view(holder, circle_id)
    base_url = _base(service, base)
    members = [
        schemas.MemberOut(
            player_id=player,
            name=name,
            you=player == holder.player_id,
            rating=_rating(view.ratings.get(player)),
        )
        for player, name in view.members
    ]
    leaders = [
        schemas.LeaderOut(name=m.name, player_id=m.player_id, level=None, rating=m.rating)
        for m in members
        if m.rating is not None
    ]
    leaders += [
        schemas.LeaderOut(name=level, player_id=None, level=level, rating=_rating(rating))  # type: ignore[arg-type]
        for level, rating in bot_ratings().items()
    ]
    leaders.sort(key=lambda row: -row.rating.ordinal)
    return schemas.CircleDetailOut(
        circle_id=view.info.id,
        name=view.info.name,
        creator_id=view.info.creator_id,
        invite_url=f"{base_url}/c/{view.info.invite_code}",
        members=members,
        tables=[
            schemas.CircleTableOut(
                game_id=g,
                status=s,  # type: ignore[arg-type]
                play_url=f"{base_url}/g/{g}",
                invite_url=f"{base_url}/j/{code}" if s == "lobby" else None,
            )
            for g, s, code in view.tables
        ],
        leaderboard=leaders,
    )


@router.get("/circle-invitations/{code}", response_model=schemas.CirclePreviewOut, responses=ERRORS)
async def circle_invitation(code: str, service: Service) -> schemas.CirclePreviewOut:
    """What a circle's link shows before joining: its name and size."""
    info = await service.circles.by_code(code)
    members = await service.registry.db(service.store.members, info.id)
    return schemas.CirclePreviewOut(name=info.name, members=len(members))


@router.post(
    "/circle-invitations/{code}/join",
    response_model=schemas.CircleOut,
    status_code=201,
    responses=ERRORS,
)
async def join_circle(
    code: str, body: schemas.JoinCircleIn, holder: Holder, service: Service, base: BaseUrl
) -> schemas.CircleOut:
    """Join a circle with its link (409 ``name-taken``: another member has that name)."""
    info = await service.circles.join(holder, code, body.name)
    return schemas.CircleOut(
        circle_id=info.id,
        name=info.name,
        creator_id=info.creator_id,
        invite_url=f"{_base(service, base)}/c/{info.invite_code}",
    )


@router.patch("/circles/{circle_id}/members/me", status_code=204, responses=ERRORS)
async def rename_in_circle(
    circle_id: str, body: schemas.CircleIn, holder: Holder, service: Service
) -> Response:
    """Your name in the circle (unique in it)."""
    await service.circles.rename(holder, circle_id, body.name)
    return Response(status_code=204)


@router.delete("/circles/{circle_id}/members/{player_id}", status_code=204, responses=ERRORS)
async def leave_circle(
    circle_id: str, player_id: str, holder: Holder, service: Service
) -> Response:
    """Leave the circle (your own id), or, as its creator, remove a member."""
    await service.circles.remove(holder, circle_id, player_id)
    return Response(status_code=204)


async def _page(service: Service, player_id: str, circle_id: str | None) -> schemas.PlayerPageOut:
    page = await service.circles.page(player_id, circle_id)
    name = ""
    if circle_id is not None:
        members = await service.registry.db(service.store.members, circle_id)
        name = next((m.name for m in members if m.player_id == player_id), "")
    rating = page.pop("rating")
    return schemas.PlayerPageOut(
        name=name,
        rating=None
        if rating is None
        else _rating((rating["mu"], rating["sigma"], rating["games"])),
        **page,
    )


@router.get("/me/page", response_model=schemas.PlayerPageOut, responses=ERRORS)
async def my_page(holder: Holder, service: Service) -> schemas.PlayerPageOut:
    """Your page: your games, wins, rating over time, head to head, cards, recent games."""
    page = await _page(service, holder.player_id, None)
    page.name = holder.name
    return page


@router.get(
    "/circles/{circle_id}/players/{player_id}",
    response_model=schemas.PlayerPageOut,
    responses=ERRORS,
)
async def member_page(
    circle_id: str, player_id: str, holder: Holder, service: Service
) -> schemas.PlayerPageOut:
    """A member's page, as their circle sees it (its games only), for the circle's members."""
    await service.circles.member_of(holder, circle_id)
    members = await service.registry.db(service.store.members, circle_id)
    if all(m.player_id != player_id for m in members):
        raise NotFoundError("unknown-member", "there is no such member in this circle")
    return await _page(service, player_id, circle_id)


@router.get("/games/{game_id}/ratings", response_model=schemas.GameRatingsOut, responses=ERRORS)
async def game_ratings(game_id: str, service: Service, token: Token) -> schemas.GameRatingsOut:
    """How a finished game moved its players' ratings (the end screen), for its seats."""
    from ...services.tokens import require_seat

    live = await service.registry.current(game_id)
    require_seat(live, token)
    rows = await service.registry.db(
        functools.partial(service.store.rating_changes, game_id=game_id)
    )
    return schemas.GameRatingsOut(
        game_id=game_id,
        rated=bool(rows),
        changes=[
            schemas.RatingChangeOut(
                seat=r["seat"],
                player_id=r["player_id"],
                circle=r["circle_id"] != OVERALL,
                before=_rating((r["mu_before"], r["sigma_before"])),  # type: ignore[arg-type]
                after=_rating((r["mu_after"], r["sigma_after"])),  # type: ignore[arg-type]
            )
            for r in rows
        ],
    )


@router.delete("/me", status_code=204, responses=ERRORS)
async def delete_me(holder: Holder, service: Service) -> Response:
    """Delete your player: your keys, circles and ratings; your games stay, under "a former
    player"."""
    seats = await service.players.seats(holder)
    await service.registry.db(
        service.store.delete_player, holder.player_id, FORMER_PLAYER, service.clock.time()
    )
    service.players.forget(holder.player_id)
    for seat in seats:  # the copies held in memory say it too
        live = service.registry.get(seat.game_id)
        if live is not None:
            live.stored.seats[seat.seat].name = FORMER_PLAYER
            await service.registry.notify(live, "lobby")
    return Response(status_code=204)
