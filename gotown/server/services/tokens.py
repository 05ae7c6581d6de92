"""Seats' secret tokens: a seat is known by the SHA-256 of its token (the database holds no
token), compared in constant time; or by its player's key (:mod:`.players`)."""

from __future__ import annotations

import hashlib
import hmac

from ..errors import DomainError, ForbiddenError, UnauthenticatedError
from .registry import LiveGame


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seat_of(live: LiveGame, token: str | None) -> int | None:
    """The seat whose token this is, if any; for a verified player (a
    :class:`~gotown.server.services.players.PlayerSeat`, never a client's text), the seat
    whose player they are."""
    if not token:
        return None
    player_id = getattr(token, "player_id", None)
    if player_id is not None:
        for seat in live.stored.seats:
            if seat.player_id == player_id:
                return seat.seat
        return None
    digest = hash_token(token)
    for seat in live.stored.seats:
        if seat.token_hash and hmac.compare_digest(seat.token_hash, digest):
            return seat.seat
    return None


def require_seat(live: LiveGame, token: str | None) -> int:
    """The token's seat; 401 without a token, 403 for one of no seat of this game."""
    seat = seat_of(live, token)
    if seat is None:
        if not token:
            raise UnauthenticatedError("missing-token", "this needs your seat's token")
        raise ForbiddenError("wrong-token", "this token does not belong to a seat of this game")
    return seat


def seat_or_spectator(live: LiveGame, token: str | None) -> int | None:
    """The token's seat; None without a token (a spectator); 403 for a wrong token."""
    return require_seat(live, token) if token else None


def check_seat_number(live: LiveGame, seat: int, kind: type[DomainError]) -> None:
    """Refuse a seat number the game does not have (``kind``: NotFoundError for a seat in the
    path, InvalidError for one in the body). Messages name seats as requests do, from 0 (as the
    engine's messages, which reach the same clients); the page shows its own words."""
    players = live.stored.players
    if not 0 <= seat < players:
        raise kind(
            "unknown-seat",
            f"there is no seat {seat}: this game has {players} seats, 0 to {players - 1}",
        )
