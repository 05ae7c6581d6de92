"""``/api/players`` and ``/api/me``: a player without a password (a name, and a key on each of
their devices), their tables, device links and notices; ``/api/device-links/{secret}``: the
device that opens a link gets a key; ``/api/test/clock``: tests move the server's clock."""

from __future__ import annotations

import contextlib
from urllib.parse import urlparse

from fastapi import APIRouter
from fastapi.responses import Response

from ... import schemas
from ...errors import NotFoundError
from ..deps import ERRORS, BaseUrl, Holder, Service

router = APIRouter(prefix="/api")


def _player(key: str | None, player_id: str, name: str) -> schemas.PlayerKeyOut:
    return schemas.PlayerKeyOut(player_id=player_id, name=name, key=key or "")


@router.post("/players", response_model=schemas.PlayerKeyOut, status_code=201, responses=ERRORS)
async def create_player(body: schemas.PlayerIn, service: Service) -> schemas.PlayerKeyOut:
    """A new player: a name, and this device's key (answered once, kept hashed)."""
    made = await service.players.create(body.name)
    return _player(made.key, made.holder.player_id, made.holder.name)


@router.get("/me", response_model=schemas.PlayerOut, responses=ERRORS)
async def me(holder: Holder) -> schemas.PlayerOut:
    """The player of this device's key (header X-Player-Key)."""
    return schemas.PlayerOut(player_id=holder.player_id, name=holder.name)


@router.patch("/me", response_model=schemas.PlayerOut, responses=ERRORS)
async def rename(body: schemas.PlayerIn, holder: Holder, service: Service) -> schemas.PlayerOut:
    renamed = await service.players.rename(holder, body.name)
    return schemas.PlayerOut(player_id=renamed.player_id, name=renamed.name)


@router.get("/me/games", response_model=schemas.MyGamesOut, responses=ERRORS)
async def my_games(holder: Holder, service: Service, base: BaseUrl) -> schemas.MyGamesOut:
    """Every table this player sits at, on any of their devices: your turn first, then the
    nearest deadline, then the latest change; finished games last."""
    seats = await service.players.seats(holder)
    base_url = (service.settings.public_base_url or base).rstrip("/")
    games = [
        schemas.MyGameOut(
            game_id=s.game_id,
            seat=s.seat,
            status=s.status,  # type: ignore[arg-type]
            players=s.players,
            names=list(s.names),
            kinds=list(s.kinds),  # type: ignore[arg-type]
            your_turn=s.status == "playing" and s.turn_seat == s.seat,
            turn_seat=s.turn_seat if s.status == "playing" else None,
            pace=s.pace,
            deadline=s.deadline if s.status == "playing" else None,
            updated=s.updated,
            play_url=f"{base_url}/g/{s.game_id}",
        )
        for s in seats
    ]
    games.sort(
        key=lambda g: (
            g.status == "over",
            not g.your_turn,
            g.deadline is None,
            g.deadline or 0.0,
            -(g.updated or 0.0),
        )
    )
    return schemas.MyGamesOut(now=service.clock.time(), games=games)


# --- device links ----------------------------------------------------------------------------


@router.post("/me/links", response_model=schemas.DeviceLinkOut, status_code=201, responses=ERRORS)
async def make_link(holder: Holder, service: Service, base: BaseUrl) -> schemas.DeviceLinkOut:
    """A private link that carries this player (every table) to another device: shown once;
    whoever opens it plays as you, until you revoke it."""
    link_id, secret = await service.players.make_link(holder)
    base_url = (service.settings.public_base_url or base).rstrip("/")
    return schemas.DeviceLinkOut(
        id=link_id,
        created=service.clock.time(),
        revoked=None,
        devices=0,
        url=f"{base_url}/d/{secret}",
    )


@router.get("/me/links", response_model=list[schemas.DeviceLinkOut], responses=ERRORS)
async def links(holder: Holder, service: Service) -> list[schemas.DeviceLinkOut]:
    return [
        schemas.DeviceLinkOut(id=i.id, created=i.created, revoked=i.revoked, devices=i.devices)
        for i in await service.players.links(holder)
    ]


@router.delete("/me/links/{link_id}", status_code=204, responses=ERRORS)
async def revoke_link(link_id: str, holder: Holder, service: Service) -> Response:
    """Revoke a device link: it is refused from now on, and the devices it carried you to lose
    their key."""
    await service.players.revoke_link(holder, link_id)
    return Response(status_code=204)


@router.post(
    "/device-links/{secret}", response_model=schemas.PlayerKeyOut, status_code=201, responses=ERRORS
)
async def open_link(secret: str, service: Service) -> schemas.PlayerKeyOut:
    """This device becomes the link's player: a key of its own (answered once). 404
    ``unknown-link``; 410 ``revoked-link``."""
    if not 1 <= len(secret) <= 100:
        raise NotFoundError("unknown-link", "this device link is not valid")
    made = await service.players.open_link(secret)
    return _player(made.key, made.holder.player_id, made.holder.name)


# --- notices ---------------------------------------------------------------------------------


@router.get("/push", response_model=schemas.PushKeyOut, responses=ERRORS)
async def push_key(service: Service) -> schemas.PushKeyOut:
    """What a page needs to subscribe to "your turn" notices: the server's VAPID public key, and
    whether it sends e-mail."""
    return schemas.PushKeyOut(
        application_server_key=service.notices.application_server_key(),
        mail=service.notices.mail_on(),
    )


def _subscription(row: dict[str, object]) -> schemas.SubscriptionOut:
    endpoint = row.get("endpoint")
    return schemas.SubscriptionOut(
        id=int(row["id"]),  # type: ignore[call-overload]
        kind=row["kind"],  # type: ignore[arg-type]
        language=str(row["language"]),
        host=urlparse(str(endpoint)).hostname if endpoint else None,
        email=row.get("email"),  # type: ignore[arg-type]
    )


@router.get("/me/subscriptions", response_model=list[schemas.SubscriptionOut], responses=ERRORS)
async def subscriptions(holder: Holder, service: Service) -> list[schemas.SubscriptionOut]:
    """How this device is told of its turns."""
    return [_subscription(row) for row in await service.notices.subscriptions(holder)]


@router.post(
    "/me/subscriptions/push",
    response_model=schemas.SubscriptionOut,
    status_code=201,
    responses=ERRORS,
)
async def subscribe_push(
    body: schemas.PushSubscriptionIn, holder: Holder, service: Service, base: BaseUrl
) -> schemas.SubscriptionOut:
    """Web Push for this device (a browser's ``PushSubscription``). 422
    ``invalid-subscription`` for an endpoint that is not a push service's (not https, a private
    or loopback address, not on the server's list) or for malformed keys."""
    data = {"endpoint": body.endpoint, "keys": body.keys.model_dump()}
    sub_id = await service.notices.subscribe_push(holder, data, body.language, base)
    rows = await service.notices.subscriptions(holder)
    return _subscription(next(row for row in rows if row["id"] == sub_id))


@router.post(
    "/me/subscriptions/email",
    response_model=schemas.SubscriptionOut,
    status_code=201,
    responses=ERRORS,
)
async def subscribe_email(
    body: schemas.EmailIn, holder: Holder, service: Service, base: BaseUrl
) -> schemas.SubscriptionOut:
    """E-mail for this device's player, each with a one-click unsubscribe link. 409
    ``mail-off`` when the server has no SMTP server."""
    sub_id = await service.notices.subscribe_mail(holder, body.email, body.language, base)
    rows = await service.notices.subscriptions(holder)
    return _subscription(next(row for row in rows if row["id"] == sub_id))


@router.delete("/me/subscriptions/{subscription_id}", status_code=204, responses=ERRORS)
async def unsubscribe_device(subscription_id: int, holder: Holder, service: Service) -> Response:
    await service.notices.remove(holder, subscription_id)
    return Response(status_code=204)


@router.post("/unsubscribe/{code}", status_code=204, responses=ERRORS)
async def unsubscribe(code: str, service: Service) -> Response:
    """An e-mail's unsubscribe link: no more e-mail to that address."""
    if not 1 <= len(code) <= 64:
        raise NotFoundError("unknown-subscription", "this unsubscribe link is not known")
    await service.notices.unsubscribe(code)
    return Response(status_code=204)


#: Outside /api: the addresses an e-mail names (its one-click unsubscribe, RFC 8058: mail
#: programs POST to it; people open it, and the page asks them to confirm).
links_router = APIRouter(include_in_schema=False)


@links_router.post("/unsubscribe/{code}")
async def one_click_unsubscribe(code: str, service: Service) -> Response:
    if 1 <= len(code) <= 64:
        # (already gone: the answer is the same, and says nothing of other codes)
        with contextlib.suppress(NotFoundError):
            await service.notices.unsubscribe(code)
    return Response("unsubscribed\n", media_type="text/plain")


# --- the test clock ----------------------------------------------------------------------------


@router.post(
    "/test/clock", response_model=schemas.ClockOut, responses=ERRORS, include_in_schema=False
)
async def move_clock(body: schemas.ClockIn, service: Service) -> schemas.ClockOut:
    """Move the server's clock on (only where ``test_clock`` is set: tests)."""
    if not service.settings.test_clock:
        raise NotFoundError("unknown-page", "there is no such page on this server")
    service.clock.advance(body.advance)
    return schemas.ClockOut(now=service.clock.time(), offset=service.clock.offset)
