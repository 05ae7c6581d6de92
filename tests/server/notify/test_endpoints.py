"""The check of a push subscription a client hands in (:mod:`gotown.server.notify.endpoints`):
no request into the operator's network, keys that a browser would make."""

from __future__ import annotations

import asyncio
import base64

import pytest

from gotown.server.notify.endpoints import (
    DEFAULT_PUSH_SERVICES,
    MAX_ENDPOINT_LENGTH,
    PushServices,
    Subscription,
    SubscriptionError,
    check_endpoint,
    check_subscription,
)

from .helpers import FakeDns, browser_keys

REAL = PushServices.from_entries(DEFAULT_PUSH_SERVICES)
DNS = FakeDns(
    {
        "fcm.googleapis.com": ["142.250.74.106", "2a00:1450:4007:80e::200a"],
        "web.push.apple.com": ["17.188.128.137"],
        "updates.push.services.mozilla.com": ["34.117.35.28"],
        "wns2-par02p.notify.windows.com": ["20.43.85.86"],
    }
)


def check(url: str, services: PushServices = REAL, dns: FakeDns = DNS) -> str:
    return asyncio.run(check_endpoint(url, services, dns)).origin


def test_the_real_push_services_are_allowed() -> None:
    assert check("https://fcm.googleapis.com/fcm/send/abc:APA91b") == "https://fcm.googleapis.com"
    assert check("https://web.push.apple.com/QGx0") == "https://web.push.apple.com"
    assert check("https://updates.push.services.mozilla.com/wpush/v2/gAAA")
    assert check("https://wns2-par02p.notify.windows.com/w/?token=BQYAAA")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://fcm.googleapis.com/fcm/send/x", "not https"),
        ("https://127.0.0.1/push", "127.0.0.1 is a loopback address"),
        ("https://10.1.2.3/push", "10.1.2.3 is a private address"),
        ("https://192.168.1.20/push", "192.168.1.20 is a private address"),
        ("https://169.254.169.254/latest/meta-data", "169.254.169.254 is a link-local address"),
        ("https://[::1]/push", "::1 is a loopback address"),
        ("https://[fc00::5]/push", "fc00::5 is a private address"),
        ("https://[fd12:3456::1]:8443/push", "fd12:3456::1 is a private address"),
        ("https://[::ffff:10.0.0.1]/push", "::ffff:10.0.0.1 is a private address"),
        ("https://224.0.0.1/push", "224.0.0.1 is a multicast address"),
        ("https://0.0.0.0/push", "0.0.0.0 is an unspecified address"),
        ("https://8.8.8.8/push", "8.8.8.8 is an IP address, not a push service"),
        ("https://push.example.org/x", "push.example.org is not one of the push services allowed"),
        ("https://notpush.apple.com/x", "notpush.apple.com is not one of the push services"),
        ("https://push.apple.com.evil.test/x", "is not one of the push services allowed"),
        ("https://user:pw@fcm.googleapis.com/x", "a user name or password in the URL"),
        ("https://fcm.googleapis.com/x#frag", "a fragment"),
        ("https://fcm.googleapis.com:99999/x", "not a URL"),
        ("https://fcm.googleapis.com:0/x", "port 0"),
        ("https://[fe80::1%25eth0]/x", "is a link-local address"),
        ("fcm.googleapis.com/fcm/send/x", "not an absolute http(s) URL with a host"),
        ("https:///x", "not an absolute http(s) URL with a host"),
        ("https://fcm.googleapis.com/a b", "a space, control or non-ASCII character"),
        ("https://fcm.googleapis.com/\u00e9", "a space, control or non-ASCII character"),
        ("https://fcm.googleapis.com/" + "a" * MAX_ENDPOINT_LENGTH, "over the 2048 allowed"),
    ],
)
def test_an_endpoint_is_refused_saying_why(url: str, message: str) -> None:
    with pytest.raises(SubscriptionError, match=r"^endpoint") as refused:
        check(url)
    assert message in str(refused.value)


def test_a_name_that_resolves_to_a_private_address_is_refused() -> None:
    services = PushServices.from_entries(["push.example.org"])
    dns = FakeDns({"push.example.org": ["93.184.215.14", "10.0.0.7"]})
    with pytest.raises(
        SubscriptionError, match=r"push\.example\.org resolves to 10\.0\.0\.7, a priv"
    ):
        check("https://push.example.org/x", services, dns)
    dns.table["push.example.org"] = ["93.184.215.14", "fe80::1"]
    with pytest.raises(SubscriptionError, match="resolves to fe80::1, a link-local address"):
        check("https://push.example.org/x", services, dns)
    dns.table["push.example.org"] = ["93.184.215.14"]
    assert check("https://push.example.org/x", services, dns) == "https://push.example.org"
    with pytest.raises(SubscriptionError, match="does not resolve"):
        check("https://other.push.example.org/x", services, dns)


def test_an_origin_entry_allows_that_origin_as_written_and_nothing_else_local() -> None:
    services = PushServices.from_entries([*DEFAULT_PUSH_SERVICES, "http://127.0.0.1:8123"])
    assert check("http://127.0.0.1:8123/push/1", services) == "http://127.0.0.1:8123"
    for url, message in [
        ("http://127.0.0.1:8124/push/1", "not https"),
        ("https://127.0.0.1:8123/push/1", "loopback"),
        ("http://localhost:8123/push/1", "not https"),
        ("https://localhost:8123/push/1", "not one of the push services"),
    ]:
        with pytest.raises(SubscriptionError, match=message):
            check(url, services)


@pytest.mark.parametrize(
    "entry",
    ["ftp://x.org", "http://h/path", "http://u@h:1", "http://h:0", "not a name", "-bad.org", ""],
)
def test_a_bad_allow_list_entry_is_named(entry: str) -> None:
    with pytest.raises(ValueError, match=r"is neither a host name nor an origin|is not an origin"):
        PushServices.from_entries([entry])


def test_a_subscription_is_checked_whole() -> None:
    keys = browser_keys()
    endpoint = "https://fcm.googleapis.com/fcm/send/x"
    data = {"endpoint": endpoint, "keys": keys, "expirationTime": None}
    subscription = asyncio.run(check_subscription(data, REAL, DNS))
    assert subscription == Subscription(endpoint, keys["p256dh"], keys["auth"])
    assert Subscription.from_json(subscription.to_json()) == subscription
    with pytest.raises(SubscriptionError, match="not https"):
        asyncio.run(check_subscription({**data, "endpoint": "http://x.org/"}, REAL, DNS))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"p256dh": _b64(b"\x04" + b"\x01" * 64)}, "keys.p256dh: not a point of the P-256 curve"),
        ({"p256dh": _b64(b"\x02" + b"\x01" * 32)}, "keys.p256dh: 33 bytes, not an uncompressed"),
        ({"p256dh": "a+b/c"}, "keys.p256dh: not base64url"),
        ({"p256dh": 7}, "keys.p256dh: not base64url"),
        ({"auth": _b64(b"x" * 15)}, "keys.auth: 15 bytes, not 16"),
        ({"auth": "!!"}, "keys.auth: not base64url"),
    ],
)
def test_bad_keys_are_named(change: dict[str, object], message: str) -> None:
    data = {"endpoint": "https://fcm.googleapis.com/x", "keys": {**browser_keys(), **change}}
    with pytest.raises(SubscriptionError, match="^" + message.replace("+", r"\+")):
        Subscription.from_json(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "subscription: not an object"),
        ({"endpoint": "https://x.org/"}, "keys: missing"),
        ({"keys": {}}, "endpoint: missing"),
        ({"endpoint": "https://x.org/", "keys": {"auth": "AAAA"}}, "keys.p256dh"),
    ],
)
def test_a_malformed_subscription_is_named(data: object, message: str) -> None:
    with pytest.raises(SubscriptionError, match=message):
        Subscription.from_json(data)
