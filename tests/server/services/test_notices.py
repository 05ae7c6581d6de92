"""'Your turn' notices at turn-based tables (services/notices.py), end to end: a real push
service of the tests' own that decrypts what it receives (RFC 8291) and a real SMTP server;
the server's clock moved on, never slept."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.notify.vapid import VapidKey

from ..helpers import error_of, invite_code, service_of, state
from ..notify.mail_server import MailServer
from ..notify.push_service import BrowserSubscription, PushService

DAY = 24 * 3600


@pytest.fixture
def vapid(tmp_path: Path) -> str:
    path = tmp_path / "vapid.pem"
    VapidKey.load_or_create(path)
    return str(path)


@pytest.fixture
def push(vapid: str) -> Iterator[PushService]:
    with PushService(VapidKey.load_or_create(vapid).application_server_key) as service:
        yield service


@pytest.fixture
def mail() -> Iterator[MailServer]:
    with MailServer() as server:
        yield server


@pytest.fixture
def notified(
    settings: Settings, vapid: str, push: PushService, mail: MailServer
) -> Iterator[TestClient]:
    own = settings.with_(
        test_clock=True,
        vapid_key_file=vapid,
        vapid_contact="mailto:operator@example.org",
        push_services=(push.origin,),
        smtp_url=f"smtp://127.0.0.1:{mail.port}",
        mail_from="GoTown <gotown@example.org>",
    )
    with TestClient(create_app(own)) as client:
        yield client


def player(client: TestClient, name: str) -> dict[str, str]:
    made = client.post("/api/players", json={"name": name}).json()
    return {"X-Player-Key": made["key"]}


def subscribe(
    client: TestClient, key: dict[str, str], push: PushService, language: str = "en"
) -> BrowserSubscription:
    browser = push.subscribe()
    r = client.post(
        "/api/me/subscriptions/push", json={**browser.to_json(), "language": language}, headers=key
    )
    assert r.status_code == 201, r.text
    return browser


def wait_for_messages(push: PushService, browser: BrowserSubscription, count: int) -> list[Any]:
    for _ in range(1000):
        got = push.messages(browser)
        if len(got) >= count:
            return got
        time.sleep(0.01)
    raise AssertionError(f"{len(push.messages(browser))} messages, not {count}")


def paced_table(
    client: TestClient, ann: dict[str, str], bob: dict[str, str], **pace: Any
) -> tuple[str, dict[int, str]]:
    body = {"name": "Ann", "seats": [{"kind": "human"}] * 2, "seed": 5, "pace": DAY,
            "options": {"first_player": 0}, **pace}  # fmt: skip
    created = client.post("/api/games", json=body, headers=ann).json()
    joined = client.post(
        f"/api/games/{created['game_id']}/join",
        json={"code": invite_code(created), "name": "Bob"},
        headers=bob,
    ).json()
    return created["game_id"], {0: created["token"], 1: joined["token"]}


def end_turn(client: TestClient, game_id: str, key: dict[str, str]) -> dict[str, Any]:
    mine = client.get(f"/api/games/{game_id}/state", headers=key).json()
    r = client.post(
        f"/api/games/{game_id}/actions",
        json={"version": mine["version"], "action": {"type": "end-turn"}},
        headers=key,
    )
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_each_turn_reaches_the_next_seat_by_push_and_e_mail_once(
    notified: TestClient, push: PushService, mail: MailServer
) -> None:
    ann, bob = player(notified, "Ann"), player(notified, "Bob")
    ann_phone = subscribe(notified, ann, push)
    bob_phone = subscribe(notified, bob, push, "fr")
    r = notified.post(
        "/api/me/subscriptions/email", json={"email": "bob@example.org", "language": "fr"},
        headers=bob,
    )  # fmt: skip
    assert r.status_code == 201, r.text
    game_id, _tokens = paced_table(notified, ann, bob)
    (first,) = wait_for_messages(push, ann_phone, 1)  # the game starts at Ann's turn
    assert first.problem == "" and first.json["url"].endswith(f"/g/{game_id}")
    assert "Ann" in first.json["title"] + first.json["body"]
    end_turn(notified, game_id, ann)
    (mine,) = wait_for_messages(push, bob_phone, 1)
    text = mine.json["title"] + " " + mine.json["body"]
    assert "Ann" in text and "Bob" in text  # the table and who moved, in French
    assert mine.json["tag"] == f"gotown-{game_id}-1" and mine.headers["topic"]
    mails = mail.wait_for(1)
    assert mails[0]["To"] == "bob@example.org" and "Ann" in mails[0]["Subject"]
    assert mails[0]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = mails[0]["List-Unsubscribe"].strip("<>")
    assert "/unsubscribe/" in unsubscribe
    # Each change of turn reached its seat once, and nobody else.
    assert len(push.messages(ann_phone)) == 1 and len(push.messages(bob_phone)) == 1
    # One click (RFC 8058: a POST) and Bob's e-mail stops; his push stays.
    code = unsubscribe.rsplit("/", 1)[1]
    assert (
        notified.post(f"/unsubscribe/{code}", data={"List-Unsubscribe": "One-Click"}).status_code
        == 200
    )
    kinds = [s["kind"] for s in notified.get("/api/me/subscriptions", headers=bob).json()]
    assert kinds == ["push"]


def test_no_notice_reaches_a_seat_that_has_the_table_open(
    notified: TestClient, push: PushService
) -> None:
    ann, bob = player(notified, "Ann"), player(notified, "Bob")
    ann_phone, bob_phone = subscribe(notified, ann, push), subscribe(notified, bob, push)
    game_id, _tokens = paced_table(notified, ann, bob)
    wait_for_messages(push, ann_phone, 1)
    with notified.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.send_json({"token": None, "key": bob["X-Player-Key"]})
        assert socket.receive_json()["state"]["seat"] == 1
        end_turn(notified, game_id, ann)
        service = service_of(notified)
        for _ in range(500):  # the notice is dropped, not sent
            if not service.store.pending_notices(game_id):
                break
            time.sleep(0.01)
        assert service.store.pending_notices(game_id) == []
        assert push.messages(bob_phone) == []
    end_turn(notified, game_id, bob)  # (with his table open, Bob moves: Ann is told)
    assert len(wait_for_messages(push, ann_phone, 2)) == 2


def test_a_reminder_comes_when_a_quarter_of_the_time_is_left(
    notified: TestClient, push: PushService
) -> None:
    ann, bob = player(notified, "Ann"), player(notified, "Bob")
    ann_phone = subscribe(notified, ann, push)
    game_id, _tokens = paced_table(notified, ann, bob)
    wait_for_messages(push, ann_phone, 1)
    notified.post("/api/test/clock", json={"advance": 0.70 * DAY})
    time.sleep(0.05)
    assert len(push.messages(ann_phone)) == 1  # not yet
    notified.post("/api/test/clock", json={"advance": 0.06 * DAY})
    reminder = wait_for_messages(push, ann_phone, 2)[1]
    assert reminder.headers["urgency"] == "high"
    assert "5 h" in reminder.json["body"] or "5h" in reminder.json["body"]  # (6 h less 1.4)
    assert state(notified, game_id)["view"]["active"] == 0  # still her turn


def test_a_gone_subscription_is_dropped_and_a_failing_one_tried_again(
    notified: TestClient, push: PushService
) -> None:
    ann, bob = player(notified, "Ann"), player(notified, "Bob")
    ann_phone, ann_laptop = subscribe(notified, ann, push), subscribe(notified, ann, push)
    push.set_answer(ann_phone, 410)
    push.set_answer(ann_laptop, 500)
    game_id, _tokens = paced_table(notified, ann, bob)
    push.wait_for(2)
    subs = notified.get("/api/me/subscriptions", headers=ann).json()
    assert len(subs) == 1  # the phone's (410) is gone, the laptop's stays
    service = service_of(notified)
    pending = wait_until_pending(service, game_id)
    assert pending["attempts"] == 1 and pending["sent_to"] == []
    push.set_answer(ann_laptop, 201)
    notified.post("/api/test/clock", json={"advance": 3600})  # past the back-off
    (delivered,) = wait_for_messages(push, ann_laptop, 1)
    assert delivered.json["url"].endswith(f"/g/{game_id}")


def wait_until_pending(service: Any, game_id: str) -> dict[str, Any]:
    for _ in range(500):
        rows = service.store.pending_notices(game_id)
        if rows and rows[0]["attempts"]:
            return rows[0]
        time.sleep(0.01)
    raise AssertionError("no notice waits to be tried again")


def test_bad_subscriptions_are_refused_naming_what_is_wrong(
    notified: TestClient, push: PushService
) -> None:
    ann = player(notified, "Ann")
    browser = push.subscribe().to_json()
    for endpoint, words in (
        ("http://example.org/push/1", "https"),
        ("https://127.0.0.1/push/1", "127.0.0.1"),
        ("https://10.1.2.3/push/1", "10.1.2.3"),
        ("https://fcm.googleapis.com.evil.example/push", "push service"),
        ("not a url", "endpoint"),
    ):
        r = notified.post(
            "/api/me/subscriptions/push",
            json={"endpoint": endpoint, "keys": browser["keys"]},
            headers=ann,
        )
        message = error_of(r, 422, "invalid-subscription")["message"]
        assert words.lower() in message.lower(), message
    r = notified.post(
        "/api/me/subscriptions/push",
        json={"endpoint": browser["endpoint"], "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
        headers=ann,
    )
    error_of(r, 422, "invalid-subscription")
    error_of(notified.post("/api/me/subscriptions/push", json=browser), 401, "missing-key")
    assert notified.get("/api/me/subscriptions", headers=ann).json() == []


def test_e_mail_is_refused_when_the_server_has_no_smtp(client: TestClient) -> None:
    key = player(client, "Ann")
    r = client.post("/api/me/subscriptions/email", json={"email": "a@example.org"}, headers=key)
    error_of(r, 409, "mail-off")
    assert client.get("/api/push").json()["mail"] is False
