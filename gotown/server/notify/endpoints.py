"""Which push endpoints the server sends to: the check of a subscription a client hands in.

A push subscription's endpoint is a URL that a client chose, and the server will POST to it,
later and again: unchecked, it would let anyone make the server send requests into the
operator's own network. So an endpoint is refused (:class:`SubscriptionError`, its message
saying what is wrong) unless:

- it is an absolute ``https`` URL of at most :data:`MAX_ENDPOINT_LENGTH` characters, with a
  host name, no user name or password and no fragment;
- its host is one of the operator's push services (``push_services``, :class:`PushServices`):
  an entry ``push.apple.com`` allows that host and every host under it; the default lists the
  browsers' real services (:data:`DEFAULT_PUSH_SERVICES`);
- it is not an IP address, and every address its name resolves to (IPv4 and IPv6) is a public
  one: no loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local, multicast,
  reserved, unspecified or otherwise non-global address (:func:`address_problem`).

The one exception is an allow-list entry written as a full origin, ``http://127.0.0.1:8123``:
exactly that scheme, host and port are allowed as written, whatever they resolve to (a push
service of the operator's own, or a test's receiver). Nothing else local is.

The check is made when a subscription comes in (:func:`check_subscription`) and again at every
send (:mod:`~gotown.server.notify.push`), where the resolver that picks the address to connect
to is the one that checks it, so a name that changes its answer between the two is still
caught; redirects are never followed.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec

#: The browsers' push services: Chrome's (Firebase Cloud Messaging), Firefox's (Mozilla's
#: autopush), Safari's (Apple's web push) and Edge's (Windows Push Notification Services).
DEFAULT_PUSH_SERVICES = (
    "fcm.googleapis.com",
    "push.services.mozilla.com",
    "push.apple.com",
    "notify.windows.com",
)

#: The longest endpoint accepted (the real services' are a few hundred characters).
MAX_ENDPOINT_LENGTH = 2048

#: How a host name is written (ASCII labels of letters, digits and hyphens).
HOST_NAME = re.compile(
    r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
)
BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")

#: Resolves a host name (and port) to its IP addresses, as text.
Resolve = Callable[[str, int], Awaitable[Sequence[str]]]


class SubscriptionError(ValueError):
    """A push subscription (its endpoint or its keys) that the server refuses; the message
    says what is wrong."""


async def system_resolve(host: str, port: int) -> list[str]:
    """Every address the system's resolver gives for ``host`` (off the event loop)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def address_problem(address: str) -> str | None:
    """What makes ``address`` one the server must not reach ("a loopback address"), or None
    for a public address."""
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:10.0.0.1 is 10.0.0.1
    for test, words in (
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
        (not ip.is_global, "not a public address"),
    ):
        if test:
            return words
    return None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


@dataclass(frozen=True)
class PushServices:
    """The operator's allow-list: host names (each allowing itself and the hosts under it) and
    exact origins (``scheme://host:port``, allowed as written)."""

    names: tuple[str, ...]
    origins: frozenset[tuple[str, str, int]]

    @classmethod
    def from_entries(cls, entries: Iterable[str]) -> PushServices:
        """The allow-list from its entries; a ValueError names a bad one."""
        names: list[str] = []
        origins: set[tuple[str, str, int]] = set()
        for entry in entries:
            text = entry.strip().lower()
            if "://" in text:
                parts = urlsplit(text)
                try:
                    port = parts.port
                except ValueError:
                    port = -1
                if (
                    parts.scheme not in ("http", "https")
                    or not parts.hostname
                    or port in (-1, 0)
                    or parts.username is not None
                    or parts.path not in ("", "/")
                    or parts.query
                    or parts.fragment
                ):
                    raise ValueError(
                        f"{entry!r} is not an origin (http:// or https://, a host, maybe a port)"
                    )
                origins.add((parts.scheme, parts.hostname, port or _default_port(parts.scheme)))
            elif HOST_NAME.fullmatch(text):
                names.append(text)
            else:
                raise ValueError(f"{entry!r} is neither a host name nor an origin")
        return cls(tuple(names), frozenset(origins))

    def allows_origin(self, scheme: str, host: str, port: int) -> bool:
        return (scheme, host, port) in self.origins

    def allows_host_port(self, host: str, port: int) -> bool:
        """Whether an origin entry allows this host and port as written (for the resolver,
        which does not see the scheme)."""
        return any(entry[1:] == (host, port) for entry in self.origins)

    def allows_name(self, host: str) -> bool:
        return any(host == name or host.endswith("." + name) for name in self.names)


@dataclass(frozen=True)
class Endpoint:
    url: str
    scheme: str
    host: str
    port: int
    as_written: bool
    """An origin entry of the allow-list allows it: its addresses are not checked."""

    @property
    def origin(self) -> str:
        """``scheme://host[:port]``: the VAPID token's audience."""
        if self.port == _default_port(self.scheme):
            return f"{self.scheme}://{self.host}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_endpoint(url: object, services: PushServices) -> Endpoint:
    """The checks of an endpoint that need no name resolution."""
    if not isinstance(url, str) or not url:
        raise SubscriptionError("endpoint: missing, or not a string")
    if len(url) > MAX_ENDPOINT_LENGTH:
        raise SubscriptionError(
            f"endpoint: {len(url)} characters, over the {MAX_ENDPOINT_LENGTH} allowed"
        )
    shown = url[:80]
    if any(ord(c) <= 32 or ord(c) >= 127 for c in url):
        raise SubscriptionError(f"endpoint {shown!r}: a space, control or non-ASCII character")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise SubscriptionError(f"endpoint {shown!r}: not a URL ({exc})") from None
    if port == 0:
        raise SubscriptionError(f"endpoint {shown!r}: port 0")
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if not host or scheme not in ("http", "https"):
        raise SubscriptionError(f"endpoint {shown!r}: not an absolute http(s) URL with a host")
    if parts.username is not None or parts.password is not None:
        raise SubscriptionError(f"endpoint {shown!r}: a user name or password in the URL")
    if parts.fragment:
        raise SubscriptionError(f"endpoint {shown!r}: a fragment (#...) in the URL")
    port = port or _default_port(scheme)
    if services.allows_origin(scheme, host, port):
        return Endpoint(url, scheme, host, port, as_written=True)
    if scheme != "https":
        raise SubscriptionError(f"endpoint {shown!r}: not https")
    if _is_address(host):
        problem = address_problem(host) or "an IP address, not a push service"
        raise SubscriptionError(f"endpoint {shown!r}: {host} is {problem}")
    if not HOST_NAME.fullmatch(host):
        raise SubscriptionError(f"endpoint {shown!r}: {host!r} is not a host name")
    if not services.allows_name(host):
        raise SubscriptionError(
            f"endpoint {shown!r}: {host} is not one of the push services allowed "
            "(the push_services setting)"
        )
    return Endpoint(url, scheme, host, port, as_written=False)


async def check_addresses(host: str, port: int, resolve: Resolve) -> list[str]:
    """Every address ``host`` resolves to, all of them public (else :class:`SubscriptionError`
    naming the first that is not)."""
    try:
        addresses = list(await resolve(host, port))
    except OSError as exc:
        raise SubscriptionError(f"{host}: its name does not resolve ({exc})") from None
    if not addresses:
        raise SubscriptionError(f"{host}: its name resolves to no address")
    for address in addresses:
        problem = address_problem(address)
        if problem:
            raise SubscriptionError(f"{host} resolves to {address}, {problem}")
    return addresses


async def check_endpoint(
    url: object, services: PushServices, resolve: Resolve = system_resolve
) -> Endpoint:
    """:func:`parse_endpoint`, then every address of its host (unless allowed as written)."""
    endpoint = parse_endpoint(url, services)
    if not endpoint.as_written:
        try:
            await check_addresses(endpoint.host, endpoint.port, resolve)
        except SubscriptionError as exc:
            raise SubscriptionError(f"endpoint {endpoint.url[:80]!r}: {exc}") from None
    return endpoint


def _base64url(name: str, text: object) -> bytes:
    if not isinstance(text, str) or not BASE64URL.fullmatch(text):
        raise SubscriptionError(f"keys.{name}: not base64url text")
    try:
        return base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise SubscriptionError(f"keys.{name}: not base64url text") from None


@dataclass(frozen=True)
class Subscription:
    """A browser's push subscription (``PushSubscription.toJSON()``): where to send, and the
    keys that encrypt for that browser alone (RFC 8291)."""

    endpoint: str
    p256dh: str
    """The browser's P-256 public key, base64url (an uncompressed point, 65 bytes)."""
    auth: str
    """The browser's authentication secret, base64url (16 bytes)."""

    @classmethod
    def from_json(cls, data: object) -> Subscription:
        """From ``{"endpoint": ..., "keys": {"p256dh": ..., "auth": ...}}``; its keys checked
        (:class:`SubscriptionError` naming the field), its endpoint not yet."""
        if not isinstance(data, Mapping):
            raise SubscriptionError("subscription: not an object")
        keys: Any = data.get("keys")
        if not isinstance(keys, Mapping):
            raise SubscriptionError("keys: missing, or not an object")
        endpoint, p256dh, auth = data.get("endpoint"), keys.get("p256dh"), keys.get("auth")
        if not isinstance(endpoint, str):
            raise SubscriptionError("endpoint: missing, or not a string")
        check_keys(p256dh, auth)
        return cls(endpoint, cast(str, p256dh), cast(str, auth))  # (strings: checked)

    def to_json(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def check_keys(p256dh: object, auth: object) -> None:
    """A subscription's keys: p256dh an uncompressed point of P-256, auth 16 bytes."""
    point = _base64url("p256dh", p256dh)
    if len(point) != 65 or point[0] != 4:
        raise SubscriptionError(
            f"keys.p256dh: {len(point)} bytes, not an uncompressed P-256 point "
            "(65 bytes starting with 0x04)"
        )
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise SubscriptionError("keys.p256dh: not a point of the P-256 curve") from None
    secret = _base64url("auth", auth)
    if len(secret) != 16:
        raise SubscriptionError(f"keys.auth: {len(secret)} bytes, not 16")


async def check_subscription(
    data: object, services: PushServices, resolve: Resolve = system_resolve
) -> Subscription:
    """A subscription that a client hands in, checked whole: its keys and its endpoint
    (:class:`SubscriptionError` saying what is wrong)."""
    subscription = Subscription.from_json(data)
    await check_endpoint(subscription.endpoint, services, resolve)
    return subscription
