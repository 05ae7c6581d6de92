"""Players without a password: a name and a private key kept on each of their devices.

A player is made with their first key, which the server answers once and keeps only as its
SHA-256 (as a seat's token). A seat taken with a key is the player's: any device holding one of
their keys opens it, with the key in place of the seat's token (:class:`PlayerSeat`). A *device
link* carries the player to another phone or laptop: opening it gives that device a key of its
own; revoking the link refuses it from then on and revokes every key it gave. Keys are read
through a short cache (:data:`KEY_CACHE_SECONDS`): a revoked key stops opening seats on every
process within that time.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from ..clock import Clock
from ..errors import ForbiddenError, GoneError, InvalidError, NotFoundError
from ..storage_people import KeyHolder, LinkInfo, SeatOfPlayer
from .registry import Registry

#: How long a key read from the database is trusted before it is read again.
KEY_CACHE_SECONDS = 10.0
#: A name, as a seat's: 1 to 40 characters once trimmed.
NAME_MAX = 40
#: Keys, link secrets and codes: 32 random bytes, URL-safe (43 characters).
SECRET_BYTES = 32


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


class PlayerSeat(str):
    """A seat credential that is a verified player, not a seat's token: made only here, from a
    key the database knows, so that no client can send one (a header is a plain ``str``).
    :func:`~gotown.server.services.tokens.seat_of` matches it to the seat whose player it is."""

    player_id: str

    def __new__(cls, player_id: str) -> PlayerSeat:
        credential = super().__new__(cls, f"player:{player_id}")
        credential.player_id = player_id
        return credential


def check_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise InvalidError("invalid-name", "type a name")
    if len(name) > NAME_MAX:
        raise InvalidError("invalid-name", f"a name has at most {NAME_MAX} characters")
    return name


@dataclass(frozen=True)
class NewKey:
    """A key just made: the secret (shown once) and who it opens."""

    key: str
    holder: KeyHolder


class Players:
    def __init__(self, registry: Registry, clock: Clock) -> None:
        self.registry = registry
        self.clock = clock
        self._keys: dict[str, tuple[KeyHolder, float]] = {}

    @property
    def store(self):  # type: ignore[no-untyped-def]
        return self.registry.store

    async def create(self, name: str) -> NewKey:
        name = check_name(name)
        key = secrets.token_urlsafe(SECRET_BYTES)
        player_id = secrets.token_urlsafe(12)
        key_id = await self.registry.db(
            self.store.create_player, player_id, name, digest(key), self.clock.time()
        )
        return NewKey(key, KeyHolder(player_id, name, key_id))

    async def holder(self, key: str | None) -> KeyHolder | None:
        """Who holds ``key`` (None without one); ``wrong-key`` for a key nobody holds (never
        made, revoked, or its player deleted)."""
        if not key:
            return None
        hashed = digest(key)
        now = self.clock.monotonic()
        cached = self._keys.get(hashed)
        if cached is not None and now - cached[1] < KEY_CACHE_SECONDS:
            return cached[0]
        found = await self.registry.db(self.store.key_holder, hashed)
        if found is None:
            self._keys.pop(hashed, None)
            raise ForbiddenError("wrong-key", "this device's player key is not known here")
        if len(self._keys) > 10_000:
            self._keys.clear()
        self._keys[hashed] = (found, now)
        return found

    def forget(self, player_id: str) -> None:
        """Read this player's keys again from the database (a link revoked, a name changed)."""
        for hashed, (holder, _) in list(self._keys.items()):
            if holder.player_id == player_id:
                del self._keys[hashed]

    async def rename(self, holder: KeyHolder, name: str) -> KeyHolder:
        name = check_name(name)
        await self.registry.db(self.store.rename_player, holder.player_id, name)
        self.forget(holder.player_id)
        return KeyHolder(holder.player_id, name, holder.key_id)

    # --- device links --------------------------------------------------------------------

    async def make_link(self, holder: KeyHolder) -> tuple[str, str]:
        """A new device link of ``holder``'s player: (its id, its secret)."""
        secret = secrets.token_urlsafe(SECRET_BYTES)
        link_id = secrets.token_urlsafe(9)
        await self.registry.db(
            self.store.create_link, link_id, holder.player_id, digest(secret), self.clock.time()
        )
        return link_id, secret

    async def links(self, holder: KeyHolder) -> list[LinkInfo]:
        return await self.registry.db(self.store.links_of, holder.player_id)

    async def revoke_link(self, holder: KeyHolder, link_id: str) -> None:
        if not await self.registry.db(
            self.store.revoke_link, holder.player_id, link_id, self.clock.time()
        ):
            raise NotFoundError("unknown-link", "there is no such device link of yours")
        self._keys.clear()  # (the keys it gave: any player's cache entry may be one)

    async def open_link(self, secret: str) -> NewKey:
        """A key for the device that opened a device link; ``unknown-link`` or
        ``revoked-link`` when it cannot."""
        hashed = digest(secret)
        key = secrets.token_urlsafe(SECRET_BYTES)
        holder = await self.registry.db(
            self.store.claim_link, hashed, digest(key), self.clock.time()
        )
        if holder is None:
            state = await self.registry.db(self.store.link_state, hashed)
            if state is not None:
                raise GoneError("revoked-link", "this device link was revoked: ask for a new one")
            raise NotFoundError("unknown-link", "this device link is not valid")
        return NewKey(key, holder)

    # --- tables --------------------------------------------------------------------------

    async def seats(self, holder: KeyHolder) -> list[SeatOfPlayer]:
        return await self.registry.db(self.store.seats_of, holder.player_id)
