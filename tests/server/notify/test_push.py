"""Push messages (:mod:`gotown.server.notify.push`) through a real push service of the tests'
own, which checks the VAPID signature and decrypts what arrives as the browser would."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from gotown.server.notify.endpoints import (
    DEFAULT_PUSH_SERVICES,
    PushServices,
    Subscription,
    check_subscription,
)
from gotown.server.notify.push import PushMessage, PushSender
from gotown.server.notify.results import Backoff, Delivery, Outcome
from gotown.server.notify.texts import Kind, Notice
from gotown.server.notify.vapid import VapidKey

from .helpers import FakeDns
from .push_service import BrowserSubscription, PushService

CONTACT = "mailto:ops@gotown.example.org"
MESSAGE = PushMessage(
    "Chez Ada: your turn", "Bob has played. It is your turn.", "https://t.example/g/1#s", "g1-s0"
)


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> VapidKey:
    return VapidKey.load_or_create(tmp_path_factory.mktemp("vapid") / "key.pem")


@pytest.fixture
def service(key: VapidKey) -> Iterator[PushService]:
    with PushService(key.application_server_key) as service:
        yield service


def send(
    key: VapidKey,
    browser: BrowserSubscription,
    entries: Sequence[str],
    message: PushMessage = MESSAGE,
    **options: Any,
) -> Delivery:
    """One message to ``browser``, from a sender whose allow-list is ``entries``."""

    async def run() -> Delivery:
        services = PushServices.from_entries(entries)
        async with PushSender(key, CONTACT, services, **options) as sender:
            return await sender.send(Subscription.from_json(browser.to_json()), message)

    return asyncio.run(run())


def test_a_push_arrives_signed_and_decrypts_to_the_exact_payload(
    key: VapidKey, service: PushService
) -> None:
    browser = service.subscribe()
    delivery = send(key, browser, [service.origin], ttl=3600)
    assert (delivery.outcome, delivery.status) == (Outcome.DELIVERED, 201)
    (received,) = service.received
    assert received.problem == ""
    assert received.payload == MESSAGE.payload()
    assert received.json == {
        "title": "Chez Ada: your turn",
        "body": "Bob has played. It is your turn.",
        "url": "https://t.example/g/1#s",
        "tag": "g1-s0",
    }
    assert received.claims["aud"] == service.origin and received.claims["sub"] == CONTACT
    assert received.headers["ttl"] == "3600" and received.headers["urgency"] == "normal"
    assert received.headers["topic"] == MESSAGE.topic and len(MESSAGE.topic) == 32


def test_a_notice_becomes_a_message_in_the_readers_language(
    key: VapidKey, service: PushService
) -> None:
    notice = Notice(Kind.REMINDER, "Chez Ada", "https://t.example/g/1", "g1-s0", time_left=5400)
    browser = service.subscribe()
    assert (
        send(key, browser, [service.origin], PushMessage.from_notice(notice, "fr")).outcome
        == "delivered"
    )
    (received,) = service.messages(browser)
    assert received.json["title"] == "Chez Ada : votre tour vous attend"
    assert received.json["body"] == "Il vous reste 1 h 30 min pour jouer votre tour."
    assert received.headers["urgency"] == "high"


def test_the_same_tag_has_the_same_topic_and_another_tag_another() -> None:
    assert PushMessage("a", "b", "u", "g1-s0").topic == MESSAGE.topic
    assert PushMessage("a", "b", "u", "g1-s1").topic != MESSAGE.topic


def test_a_message_signed_by_another_key_is_refused_by_the_service(
    key: VapidKey, service: PushService, tmp_path: Path
) -> None:
    other = VapidKey.load_or_create(tmp_path / "other.pem")
    delivery = send(other, service.subscribe(), [service.origin])
    assert (delivery.outcome, delivery.status) == (Outcome.REFUSED, 401)
    assert service.received[0].problem == "k is not the key the subscription was made with"


@pytest.mark.parametrize("status", [404, 410])
def test_404_and_410_say_the_subscription_is_gone(
    key: VapidKey, service: PushService, status: int
) -> None:
    browser = service.subscribe()
    service.set_answer(browser, status)
    delivery = send(key, browser, [service.origin])
    assert (delivery.outcome, delivery.status) == (Outcome.GONE, status)


def test_429_is_retried_after_what_the_service_asked_for(
    key: VapidKey, service: PushService
) -> None:
    browser = service.subscribe()
    service.set_answer(browser, 429, Retry_After="120")
    delivery = send(key, browser, [service.origin])
    assert (delivery.outcome, delivery.status, delivery.retry_after) == (Outcome.RETRY, 429, 120)
    backoff, rng = Backoff(base=30, cap=3600, max_attempts=5), random.Random(1)
    assert backoff.delay(1, rng, delivery.retry_after) == 120  # its own draw: 15 to 30 s
    service.set_answer(browser, 201)
    assert send(key, browser, [service.origin]).outcome == Outcome.DELIVERED


def test_a_retry_after_date_is_read_with_the_senders_clock(
    key: VapidKey, service: PushService
) -> None:
    browser = service.subscribe()
    service.set_answer(browser, 503, Retry_After="Wed, 21 Oct 2015 07:28:00 GMT")
    delivery = send(
        key, browser, [service.origin], now=lambda: 1445412420.0
    )  # 60 s before that date
    assert (delivery.outcome, delivery.status, delivery.retry_after) == (Outcome.RETRY, 503, 60)


def test_500_is_retried_with_the_back_off(key: VapidKey, service: PushService) -> None:
    browser = service.subscribe()
    service.set_answer(browser, 500)
    delivery = send(key, browser, [service.origin])
    assert (delivery.outcome, delivery.status, delivery.retry_after) == (Outcome.RETRY, 500, None)
    backoff = Backoff(base=30, cap=3600, max_attempts=3)
    delays = [backoff.delay(n, random.Random(7), delivery.retry_after) for n in (1, 2, 3)]
    assert 15 <= delays[0] <= 30 and 30 <= delays[1] <= 60 and delays[2] is None  # type: ignore[operator]


def test_another_4xx_is_refused(key: VapidKey, service: PushService) -> None:
    browser = service.subscribe()
    service.set_answer(browser, 413)
    delivery = send(key, browser, [service.origin])
    assert (delivery.outcome, delivery.status) == (Outcome.REFUSED, 413)
    assert "refused the message: 413" in delivery.detail


def test_a_redirect_is_refused_and_not_followed(key: VapidKey, service: PushService) -> None:
    browser, target = service.subscribe(), service.subscribe()
    for status in (301, 307, 308):
        service.set_answer(browser, status, Location=target.endpoint)
        delivery = send(key, browser, [service.origin])
        assert (delivery.outcome, delivery.status) == (Outcome.REFUSED, status)
        assert f"a redirect ({status} to '{target.endpoint}') is never followed" in delivery.detail
    assert [r.subscription for r in service.received] == [browser.id] * 3


def test_the_endpoint_is_checked_again_at_send_time(key: VapidKey, service: PushService) -> None:
    browser = service.subscribe()
    delivery = send(key, browser, DEFAULT_PUSH_SERVICES)  # the entry removed
    assert delivery.outcome == Outcome.REFUSED and "not https" in delivery.detail
    assert service.received == []


def test_a_name_that_turned_private_is_refused_at_send_time(key: VapidKey) -> None:
    """The resolver that picks the address to connect to is the one that checks it: a name
    that answered a public address when the subscription came in and a loopback one now gets
    no request."""
    dns = FakeDns({"push.example.org": ["93.184.215.14"]})
    with PushService(key.application_server_key) as service:
        made = service.subscribe()
        port = service.origin.rsplit(":", 1)[1]
        endpoint = f"https://push.example.org:{port}/push/{made.id}"
        browser = BrowserSubscription(made.id, endpoint, made.private_key, made.auth_secret)
        services = PushServices.from_entries(["push.example.org"])
        asyncio.run(check_subscription(browser.to_json(), services, dns))  # accepted
        dns.table["push.example.org"] = ["127.0.0.1"]
        delivery = send(key, browser, ["push.example.org"], resolve=dns)
        assert delivery.outcome == Outcome.REFUSED
        assert "push.example.org resolves to 127.0.0.1, a loopback address" in delivery.detail
        assert dns.asked == ["push.example.org"] * 2 and service.received == []


def test_an_allowed_origin_by_name_is_reached_through_the_resolver(key: VapidKey) -> None:
    dns = FakeDns({"push.localtest": ["127.0.0.1"]})
    with PushService(key.application_server_key, host="push.localtest") as service:
        browser = service.subscribe()
        delivery = send(key, browser, [service.origin], resolve=dns)
        assert delivery.outcome == Outcome.DELIVERED
        assert dns.asked == ["push.localtest"]
        assert service.messages(browser)[0].json["tag"] == "g1-s0"


def test_a_push_service_that_is_down_means_retry(key: VapidKey) -> None:
    with PushService(key.application_server_key) as service:
        browser = service.subscribe()
        origin = service.origin
    delivery = send(key, browser, [origin])  # stopped: nobody listens
    assert delivery.outcome == Outcome.RETRY and "no answer from 127.0.0.1" in delivery.detail


def test_a_push_service_that_never_answers_means_retry_after_the_timeout(key: VapidKey) -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # connects, never answers
        port = silent.getsockname()[1]
        browser = BrowserSubscription(
            "x",
            f"http://127.0.0.1:{port}/push/x",
            ec.generate_private_key(ec.SECP256R1()),
            bytes(16),
        )
        origin = f"http://127.0.0.1:{port}"
        delivery = send(key, browser, [origin], timeout=0.2)
    assert delivery.outcome == Outcome.RETRY and "TimeoutError" in delivery.detail
