"""One push message to one browser (RFC 8030): encrypted for that browser alone (RFC 8291
``aes128gcm``, by pywebpush), signed with the server's VAPID key (RFC 8292), and POSTed to its
push service.

The POST is made here with aiohttp rather than by pywebpush's ``send_async``, which follows
redirects and resolves names as it likes: here the connection's resolver is the one that
checks every address (:mod:`~gotown.server.notify.endpoints`), the endpoint is checked again
against the current allow-list, and a redirect is an answer, never followed. Each message
carries a ``TTL`` (how long the push service keeps it for a device that is offline), an
``Urgency`` by kind (a reminder is ``high``, the game's end ``low``) and a ``Topic`` made from
its tag, so that a newer notice replaces one still waiting at the push service, as the tag
makes it replace one already shown on the device.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from py_vapid import VapidException
from pywebpush import WebPusher, WebPushException

from .endpoints import (
    PushServices,
    Resolve,
    Subscription,
    SubscriptionError,
    check_addresses,
    check_keys,
    parse_endpoint,
    system_resolve,
)
from .results import Delivery, Outcome, parse_retry_after
from .texts import Kind, Notice, notice_text
from .vapid import VapidKey

#: The largest payload one push message holds: 4096 bytes less the aes128gcm header (86),
#: the tag (16) and the padding delimiter (1).
MAX_PAYLOAD_BYTES = 3993

URGENCY = {Kind.YOUR_TURN: "normal", Kind.REMINDER: "high", Kind.ENDED: "low"}


@dataclass(frozen=True)
class PushMessage:
    """What the page's service worker receives, as JSON: ``{"title", "body", "url", "tag"}``
    (it shows ``title`` and ``body`` with ``tag``, and opens ``url`` on a click)."""

    title: str
    body: str
    url: str
    tag: str
    urgency: str = "normal"
    """RFC 8030's ``very-low``, ``low``, ``normal`` or ``high``."""

    @classmethod
    def from_notice(cls, notice: Notice, lang: str) -> PushMessage:
        title, body = notice_text(notice, lang)
        return cls(title, body, notice.url, notice.tag, URGENCY[notice.kind])

    def payload(self) -> bytes:
        fields = {"title": self.title, "body": self.body, "url": self.url, "tag": self.tag}
        return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode()

    @property
    def topic(self) -> str:
        """The tag as an RFC 8030 topic (at most 32 characters of base64url)."""
        digest = hashlib.sha256(self.tag.encode()).digest()
        return base64.urlsafe_b64encode(digest).decode()[:32]


class _CheckingResolver(AbstractResolver):
    """aiohttp's resolver: the addresses it connects to are the ones it checked."""

    def __init__(self, services: PushServices, resolve: Resolve) -> None:
        self.services, self._resolve = services, resolve

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if self.services.allows_host_port(host, port):
            addresses = list(await self._resolve(host, port))
        else:
            addresses = await check_addresses(host, port, self._resolve)
        results: list[ResolveResult] = []
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%")[0])
            found = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
            if family in (socket.AF_UNSPEC, found):
                results.append(
                    ResolveResult(
                        hostname=host, host=str(ip), port=port, family=found, proto=0, flags=0
                    )
                )
        if not results:
            raise OSError(f"{host}: no address to connect to")
        return results

    async def close(self) -> None:
        pass


class PushSender:
    """Sends push messages, one at a time or many at once, from one event loop.

    ``contact`` is the VAPID ``sub`` claim (``mailto:`` or ``https:``), ``ttl`` the seconds a
    push service keeps a message for an offline device, ``timeout`` the most one send takes.
    ``resolve`` and ``now`` are the name resolver and the clock (seconds since the epoch: the
    VAPID token's expiry, an HTTP date in Retry-After).
    """

    def __init__(
        self,
        key: VapidKey,
        contact: str,
        services: PushServices,
        *,
        ttl: int = 86400,
        timeout: float = 10.0,
        resolve: Resolve = system_resolve,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.key, self.contact, self.services = key, contact, services
        self.ttl, self.timeout, self.now = ttl, timeout, now
        self._resolver = _CheckingResolver(services, resolve)
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> PushSender:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(resolver=self._resolver, use_dns_cache=False)
            self._session = aiohttp.ClientSession(connector=connector, trust_env=False)
        return self._session

    async def send(self, subscription: Subscription, message: PushMessage) -> Delivery:
        """Sends ``message``; what became of it (never raises for a failed delivery)."""
        try:
            endpoint = parse_endpoint(subscription.endpoint, self.services)
            check_keys(subscription.p256dh, subscription.auth)
        except SubscriptionError as exc:
            return Delivery(Outcome.REFUSED, str(exc))
        payload = message.payload()
        if len(payload) > MAX_PAYLOAD_BYTES:
            return Delivery(
                Outcome.REFUSED,
                f"the message is {len(payload)} bytes, over the {MAX_PAYLOAD_BYTES} a push holds",
            )
        try:
            body = WebPusher(subscription.to_json()).encode(payload, "aes128gcm")["body"]
            authorization = self.key.authorization(endpoint.origin, self.contact, self.now())
        except (WebPushException, VapidException, ValueError) as exc:
            return Delivery(Outcome.REFUSED, f"cannot encrypt or sign the message: {exc}")
        headers = {
            "Authorization": authorization,
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(self.ttl),
            "Urgency": message.urgency,
            "Topic": message.topic,
        }
        try:
            async with self._client().post(
                endpoint.url,
                data=body,
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=self.timeout),
            ) as response:
                answer = (await response.content.read(300)).decode("utf-8", "replace")
                return self._outcome(response.status, response.headers, answer)
        except SubscriptionError as exc:  # from the resolver: the name's answer changed
            return Delivery(Outcome.REFUSED, f"endpoint {endpoint.url[:80]!r}: {exc}")
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            return Delivery(Outcome.RETRY, f"no answer from {endpoint.host}: {exc!r}")

    def _outcome(self, status: int, headers: Mapping[str, str], answer: str) -> Delivery:
        said = f"{status} {' '.join(answer.split())[:200]}".strip()
        if 200 <= status < 300:
            return Delivery(Outcome.DELIVERED, f"delivered ({status})", status)
        if status in (404, 410):
            return Delivery(Outcome.GONE, f"the subscription is gone: {said}", status)
        if status == 429 or status >= 500:
            wait = parse_retry_after(headers.get("Retry-After"), self.now())
            return Delivery(Outcome.RETRY, f"try again later: {said}", status, wait)
        if 300 <= status < 400:
            where = headers.get("Location", "")[:120]
            return Delivery(
                Outcome.REFUSED, f"a redirect ({status} to {where!r}) is never followed", status
            )
        return Delivery(Outcome.REFUSED, f"the push service refused the message: {said}", status)
