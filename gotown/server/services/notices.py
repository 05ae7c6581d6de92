"""Telling people that it is their turn: the notices waiting in the database, sent by Web Push
and e-mail (:mod:`gotown.server.notify`) to every device of the seat's player that asked.

What is sent, and when (the notices are queued by :mod:`.deadlines` with the action that causes
them, at most one per table and seat, a newer one replacing an older one):

- *your turn*, when a person's turn begins at a turn-based table, naming the player who moved
  before them;
- a *reminder* when a quarter of the turn's time is left;
- *the game ended*, with its result.

Never to a seat that has the table open right now (one of its sockets is connected, on any
process): such a notice is dropped, as the person sees the table. A delivery that fails is
tried again with back-off (:class:`~gotown.server.notify.results.Backoff`); a subscription
the push service answers ``404``/``410`` is dropped; moves never wait for any of it. A notice
is claimed before it is sent (:mod:`~gotown.server.storage_turns`), so that with several
processes one sends it; a process killed in the instant between a delivery and its record may
send it again after the claim's time, and the device shows one notification for it (the same
tag and Web Push ``Topic`` replace the older one).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from typing import Any

from .. import metrics
from ..clock import Clock
from ..config import Settings
from ..errors import ConflictError, InvalidError, NotFoundError
from ..storage_people import KeyHolder
from .presence import LocalPresence
from .registry import Registry

log = logging.getLogger("gotown.server")

#: The VAPID ``sub`` claim when the operator set none (push services ask for a contact).
FALLBACK_CONTACT = "mailto:gotown@localhost.invalid"
#: Notices claimed at a time, and sent at a time: 20 notices to players of three devices
#: each, every delivery taking its whole timeout (10 s), end in 60 s, within the claim's 120.
CLAIM_AT_ONCE = 20
SEND_AT_ONCE = 10


def table_name(names: list[str | None]) -> str:
    """A table as its players know it: their names ("Ann, Bob and Carla")."""
    known = [name for name in names if name] or ["GoTown"]
    if len(known) == 1:
        return known[0]
    return f"{', '.join(known[:-1])} & {known[-1]}"


class Notices:
    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        presence: LocalPresence,
        clock: Clock,
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.presence = presence
        self.clock = clock
        self._rng = random.Random()
        self._push: Any = None
        self._key: Any = None
        self._mail: Any = None
        self.sent = 0
        self.failed = 0

    @property
    def store(self) -> Any:
        return self.registry.store

    # --- the server's keys and senders ---------------------------------------------------

    def vapid_key(self) -> Any:
        """The server's VAPID key, made on the first call (and kept in its file)."""
        if self._key is None:
            from ..notify.vapid import VapidKey

            self._key = VapidKey.load_or_create(self.settings.vapid_key_file)
        return self._key

    def application_server_key(self) -> str:
        return str(self.vapid_key().application_server_key)

    def _base(self, base_url: str) -> str:
        return (self.settings.public_base_url or base_url).rstrip("/")

    def mail_on(self) -> bool:
        return bool(self.settings.smtp_url and self.settings.mail_from)

    def _pusher(self) -> Any:
        if self._push is None:
            from ..notify.endpoints import PushServices
            from ..notify.push import PushSender

            self._push = PushSender(
                self.vapid_key(),
                self.settings.vapid_contact or FALLBACK_CONTACT,
                PushServices.from_entries(self.settings.push_services),
                ttl=self.settings.push_ttl,
                timeout=self.settings.notify_timeout,
                # (The VAPID token's expiry is read by a real push service: the real time,
                # even where tests run the server's clock ahead.)
            )
        return self._push

    def _mailer(self) -> Any:
        if self._mail is None:
            from ..notify.mail import MailSender, SmtpServer

            self._mail = MailSender(
                SmtpServer.from_url(self.settings.smtp_url),
                self.settings.mail_from,
                timeout=self.settings.notify_timeout,
            )
        return self._mail

    async def close(self) -> None:
        if self._push is not None:
            await self._push.aclose()

    # --- subscribing ---------------------------------------------------------------------

    async def subscribe_push(
        self, holder: KeyHolder, data: Any, language: str, base_url: str
    ) -> int:
        """Keep a device's push subscription (checked: ``invalid-subscription`` naming what
        is wrong, as the endpoint must be a push service's, never the operator's network)."""
        from ..notify.endpoints import PushServices, SubscriptionError, check_subscription

        services = PushServices.from_entries(self.settings.push_services)
        try:
            subscription = await check_subscription(data, services)
        except SubscriptionError as exc:
            raise InvalidError("invalid-subscription", str(exc)) from exc
        return int(
            await self.registry.db(
                lambda: self.store.add_subscription(
                    holder.key_id,
                    kind="push",
                    endpoint=subscription.endpoint,
                    p256dh=subscription.p256dh,
                    auth=subscription.auth,
                    language=language,
                    base_url=self._base(base_url),
                    now=self.clock.time(),
                )
            )
        )

    async def subscribe_mail(
        self, holder: KeyHolder, address: str, language: str, base_url: str
    ) -> int:
        if not self.mail_on():
            raise ConflictError("mail-off", "this server sends no e-mail (no SMTP server set)")
        from ..notify.mail import check_address

        try:
            address = check_address(address)
        except ValueError as exc:
            raise InvalidError("invalid-subscription", str(exc)) from exc
        return int(
            await self.registry.db(
                lambda: self.store.add_subscription(
                    holder.key_id,
                    kind="email",
                    email=address,
                    unsubscribe_code=secrets.token_urlsafe(24),
                    language=language,
                    base_url=self._base(base_url),
                    now=self.clock.time(),
                )
            )
        )

    async def unsubscribe(self, code: str) -> None:
        if not await self.registry.db(self.store.unsubscribe, code):
            raise NotFoundError("unknown-subscription", "this unsubscribe link is not known")

    async def subscriptions(self, holder: KeyHolder) -> list[dict[str, Any]]:
        return await self.registry.db(self.store.subscriptions_of_key, holder.key_id)

    async def remove(self, holder: KeyHolder, subscription_id: int) -> None:
        if not await self.registry.db(
            self.store.remove_subscription, subscription_id, holder.key_id
        ):
            raise NotFoundError("unknown-subscription", "no such subscription of this device")

    # --- sending -------------------------------------------------------------------------

    async def dispatch(self) -> None:
        """Send every notice that is due (each claimed first: another process may send some),
        :data:`SEND_AT_ONCE` at a time: a batch is sent well within its claim
        (:data:`~gotown.server.storage_turns.NOTICE_CLAIM_SECONDS`) even when every delivery
        takes its whole timeout, so that no other process sends one of them again."""
        gate = asyncio.Semaphore(SEND_AT_ONCE)

        async def send(notice: dict[str, Any]) -> None:
            async with gate:
                try:
                    await self._send(notice)
                except Exception:  # one notice's trouble must not stop the others
                    log.exception("cannot send the notice %s", notice)

        while True:
            now = self.clock.time()
            claimed = await self.registry.db(self.store.claim_notices, now, CLAIM_AT_ONCE)
            await asyncio.gather(*(send(notice) for notice in claimed))
            if len(claimed) < CLAIM_AT_ONCE:
                break

    async def _send(self, notice: dict[str, Any]) -> None:
        from ..notify.results import Backoff, Outcome
        from ..notify.texts import Kind, Notice

        try:
            live = await self.registry.current(notice["game_id"])
        except NotFoundError:
            await self.registry.db(self.store.notice_done, notice)
            return
        seat = notice["seat"]
        stored = live.stored
        mine = stored.seats[seat]
        await self.presence.read(live)
        if mine.player_id is None or self.presence.is_connected(live, seat):
            await self.registry.db(self.store.notice_done, notice)  # (they see the table)
            return
        names = [s.name if s.kind == "human" else None for s in stored.seats]
        game = live.game
        kind = Kind(notice["kind"])
        moved_by = ""
        if game is not None:
            recent = game.events(None, max(0, game.event_count - 40))
            actor = next((e.seat for e in reversed(recent) if e.type == "action"), None)
            if actor is not None and actor != seat:
                moved_by = stored.seats[actor].name or ""
        winner = None
        you_won = False
        if kind is Kind.ENDED and game is not None:
            outcome = game.outcome()
            if outcome is not None and outcome.winner is not None:
                winner = stored.seats[outcome.winner].name or f"#{outcome.winner + 1}"
                you_won = outcome.winner == seat
        time_left = 0.0
        if kind is Kind.REMINDER and stored.deadline is not None:
            time_left = max(0.0, stored.deadline - self.clock.time())
        subscriptions = await self.registry.db(self.store.subscriptions_of_player, mine.player_id)
        sent_to = set(notice.get("sent_to") or ())
        retry_after: float | None = None
        again = False
        for sub in subscriptions:
            if sub["id"] in sent_to:
                continue
            text = Notice(
                kind=kind,
                table=table_name(names),
                url=f"{sub['base_url']}/g/{live.id}",
                tag=f"gotown-{live.id}-{seat}",
                player=moved_by,
                time_left=time_left,
                winner=winner,
                you_won=you_won,
            )
            delivery = await self._deliver(sub, text)
            metrics.notice_result(sub["kind"], delivery.outcome)
            if delivery.outcome is Outcome.DELIVERED:
                sent_to.add(sub["id"])
                self.sent += 1
            elif delivery.outcome is Outcome.GONE:
                await self.registry.db(self.store.remove_subscription, sub["id"])
                self.failed += 1
            elif delivery.outcome is Outcome.RETRY:
                again = True
                self.failed += 1
                retry_after = max(retry_after or 0.0, delivery.retry_after or 0.0) or None
                log.info("notice for game %s seat %s: %s", live.id, seat, delivery.detail)
            else:
                self.failed += 1
                log.warning(
                    "notice for game %s seat %s refused: %s", live.id, seat, delivery.detail
                )
        attempts = int(notice.get("attempts") or 0) + 1
        wait = Backoff().delay(attempts, self._rng, retry_after) if again else None
        if wait is None:
            await self.registry.db(self.store.notice_done, notice)
        else:
            await self.registry.db(
                self.store.notice_later, notice, self.clock.time() + wait, attempts, sorted(sent_to)
            )

    async def _deliver(self, sub: dict[str, Any], text: Any) -> Any:
        from ..notify.endpoints import Subscription
        from ..notify.push import PushMessage
        from ..notify.results import Delivery, Outcome

        language = sub.get("language") or "en"
        if sub["kind"] == "push":
            subscription = Subscription(sub["endpoint"], sub["p256dh"], sub["auth"])
            return await self._pusher().send(subscription, PushMessage.from_notice(text, language))
        if not self.mail_on():
            return Delivery(Outcome.REFUSED, "no SMTP server is set")
        unsubscribe = f"{sub['base_url']}/unsubscribe/{sub['unsubscribe_code']}"
        return await self._mailer().send(
            text, language, to=sub["email"], unsubscribe_url=unsubscribe
        )
