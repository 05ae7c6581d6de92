"""Notices in the page: the service worker shows a push and opens its table on a click; a page
on a plain http network address says why it offers no push and offers e-mail; an e-mail's
unsubscribe page asks, then stops the e-mails."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from live_server import serving
from playwright.sync_api import Browser, Page
from server.notify.mail_server import MailServer

from gotown.server.config import Settings
from gotown.server.notify.push import PushMessage
from gotown.server.notify.texts import Kind, Notice

from .fixtures import CHROMIUM, CHROMIUM_ARGS, LAPTOP, strings, watch_errors
from .turn_helpers import call, key_of, wait_until

pytestmark = pytest.mark.browser

HOUR = 3600


@pytest.fixture(scope="module")
def mail() -> Iterator[MailServer]:
    with MailServer() as server:
        yield server


@pytest.fixture(scope="module")
def mail_url(tmp_path_factory: pytest.TempPathFactory, mail: MailServer) -> Iterator[str]:
    """A server that sends e-mail (to the tests' SMTP server), with its own VAPID key."""
    folder = tmp_path_factory.mktemp("notices")
    settings = Settings(
        database_url=f"sqlite:///{folder / 'gotown.sqlite3'}",
        rate_limit_per_minute=0,
        worker_processes=False,
        vapid_key_file=str(folder / "vapid.pem"),
        smtp_url=f"smtp://127.0.0.1:{mail.port}",
        mail_from="GoTown <gotown@example.org>",
    )
    with serving(settings) as url:
        yield url


def friends_table(page: Page, url: str, name: str, pace: int) -> tuple[str, str]:
    """A table for two at ``pace`` made in the page (the device gets its player key): its id
    and its invitation."""
    page.goto(url + "/")
    page.fill("#name", name)
    page.click(f"label[for='pace-{pace}']")
    page.click("#play-friends-2")
    invite = page.text_content("#invite-url")
    assert invite
    return page.url.rsplit("/", 1)[1], invite


def test_the_service_worker_shows_a_push_and_a_click_opens_its_table(
    browser: Browser, mail_url: str
) -> None:
    """Asking for notices registers the service worker (/sw.js, the whole site its scope);
    headless Chromium then has no push service to subscribe to, which the page says. The push
    is delivered to the worker by the DevTools protocol (ServiceWorker.deliverPushMessage),
    its data the very JSON the server sends (PushMessage): the worker shows it, and a newer
    one with the same tag replaces it. A click is the worker's `notificationclick`,
    dispatched inside the worker (Playwright evaluates there through the DevTools protocol)
    with the notification it shows: an event not made by a person's click may not open a
    window, so this takes the GoTown tab that shows no table (the home page) to the table,
    as a real click does when such a tab is open."""
    en = strings("en")
    context = browser.new_context(viewport=LAPTOP)
    context.grant_permissions(["notifications"], origin=mail_url)
    page = context.new_page()
    errors = watch_errors(page)
    game_id, _ = friends_table(page, mail_url, "Ann", HOUR)
    page.goto(mail_url + "/")
    page.click("#notify > summary")
    page.click("#push-on")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.text_content("#toast") == en["push_failed"]
    wait_until(lambda: context.service_workers, "the service worker")
    (worker,) = context.service_workers
    assert worker.url == mail_url + "/sw.js"
    with urllib.request.urlopen(mail_url + "/sw.js") as served:  # (checked at every visit)
        assert served.headers["Content-Type"].startswith("text/javascript")
        assert served.headers["Cache-Control"] == "no-cache"
    assert page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => r.scope)") == (
        mail_url + "/"
    )
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.on("ServiceWorker.workerVersionUpdated", lambda event: versions.extend(event["versions"]))
    cdp.send("ServiceWorker.enable")
    (registration,) = wait_until(
        lambda: (
            page.evaluate("1")  # (lets the protocol's events in)
            and [
                r["registrationId"]
                for r in registrations
                if r["scopeURL"] == mail_url + "/" and not r["isDeleted"]
            ]
        ),
        "the worker's registration",
    )
    wait_until(
        lambda: (
            page.evaluate("1")
            and any(
                v["registrationId"] == registration and v["status"] == "activated" for v in versions
            )
        ),
        "the worker activated",
    )
    table = f"{mail_url}/g/{game_id}"
    tag = f"gotown-{game_id}-0"

    def deliver(kind: Kind, **said: Any) -> None:
        notice = Notice(kind=kind, table="Ann & Bob", url=table, tag=tag, **said)
        data = PushMessage.from_notice(notice, "en").payload().decode()
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": mail_url, "registrationId": registration, "data": data},
        )

    shown = "navigator.serviceWorker.getRegistration('/').then((r) => r.getNotifications())" \
        ".then((all) => all.map((n) => [n.title, n.body, n.tag, n.data.url]))"  # fmt: skip
    deliver(Kind.YOUR_TURN, player="Bob")
    turn = en["notify_turn_title"].format(table="Ann & Bob")
    wait_until(lambda: page.evaluate(shown), "the notification shown")
    assert page.evaluate(shown) == [[turn, en["notify_turn_body"].format(player="Bob"), tag, table]]
    deliver(Kind.REMINDER, time_left=5 * HOUR)
    reminder = en["notify_reminder_title"].format(table="Ann & Bob")
    wait_until(lambda: [n[0] for n in page.evaluate(shown)] == [reminder], "one, the newer")
    clicked = worker.evaluate(
        """async () => {
        const [notification] = await self.registration.getNotifications();
        const click = new NotificationEvent("notificationclick", { notification });
        let done = null;
        click.waitUntil = (promise) => { done = promise; };  // (a made event has no own)
        self.dispatchEvent(click);
        const tab = await done;
        return tab && tab.url;
      }"""
    )
    assert clicked == table
    page.wait_for_url(table)
    page.wait_for_selector("#status, #lobby-seats")
    assert page.evaluate(shown) == []  # (a click closes its notification)
    assert errors == []
    context.close()


def test_a_plain_http_network_address_says_why_there_is_no_push_and_offers_e_mail(
    browser: Browser, mail_url: str
) -> None:
    """At a family network's address over http (here a name the browser resolves to this
    machine: not localhost, so not a secure context) the browser offers no push: the panel
    says so in the reader's language, registers no worker, and offers e-mail."""
    fr = strings("fr")
    port = mail_url.rsplit(":", 1)[1]
    lan = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP gotown.lan 127.0.0.1"],
    )
    try:
        context = lan.new_context(viewport=LAPTOP)
        context.add_init_script("localStorage.setItem('gotown.lang', 'fr')")
        page = context.new_page()
        errors = watch_errors(page)
        address = f"gotown.lan:{port}"
        friends_table(page, f"http://{address}", "Chloé", HOUR)
        assert page.evaluate("window.isSecureContext") is False
        page.goto(f"http://{address}/")
        page.click("#notify > summary")
        said = page.text_content("#push-unavailable") or ""
        assert said == fr["push_insecure"].format(address=address) + " " + fr["push_use_mail"]
        assert page.locator("#push-on").count() == 0
        page.fill("#notify-email", "chloe@example.org")
        page.click("#mail-on")
        page.wait_for_selector("#mail-state")
        status, subs = call(mail_url, "GET", "/api/me/subscriptions", key=key_of(page))
        assert status == 200
        assert [(s["kind"], s["email"], s["language"]) for s in subs] == [
            ("email", "chloe@example.org", "fr")
        ]
        assert errors == []
    finally:
        lan.close()


def test_an_e_mail_s_unsubscribe_page_asks_then_stops_the_e_mails(
    browser: Browser, mail_url: str, mail: MailServer
) -> None:
    """Bob asks for e-mail in the page; Ann ends her turn; his e-mail's link opens a page that
    changes nothing until he confirms; then no e-mail is left, and the link says so again."""
    en = strings("en")
    ann = browser.new_context(viewport=LAPTOP)
    bob = browser.new_context(viewport=LAPTOP)
    ann_page, bob_page = ann.new_page(), bob.new_page()
    errors = watch_errors(bob_page)
    game_id, invite = friends_table(ann_page, mail_url, "Ann", HOUR)
    bob_page.goto(invite)
    bob_page.fill("#join-name", "Bob")
    bob_page.click("#join-btn")
    bob_page.wait_for_selector("#status")
    bob_page.goto(mail_url + "/")
    bob_page.click("#notify > summary")
    bob_page.fill("#notify-email", "bob@example.org")
    bob_page.click("#mail-on")
    bob_page.wait_for_selector("#mail-state")
    # Whoever plays first, turns end until Bob's begins (his table closed: he is told).
    key = {"Ann": key_of(ann_page), "Bob": key_of(bob_page)}
    before = len(mail.messages)

    def end_turn(name: str) -> None:
        _, st = call(mail_url, "GET", f"/api/games/{game_id}/state", key=key[name])
        body = {"version": st["version"], "action": {"type": "end-turn"}}
        status, answer = call(mail_url, "POST", f"/api/games/{game_id}/actions", body, key[name])
        assert status == 200, answer

    _, st = call(mail_url, "GET", f"/api/games/{game_id}/state", key=key["Ann"])
    if st["view"]["active"] != st["seat"]:
        end_turn("Bob")
    end_turn("Ann")
    (message,) = wait_until(
        lambda: [m for m in mail.messages[before:] if m["To"] == "bob@example.org"], "his e-mail"
    )
    link = str(message["List-Unsubscribe"]).strip().strip("<>")
    assert link.startswith(mail_url + "/unsubscribe/")
    bob_page.goto(link)
    bob_page.wait_for_selector("#unsubscribe")
    assert bob_page.text_content("#unsubscribe-title") == en["unsubscribe_title"]
    subscriptions = call(mail_url, "GET", "/api/me/subscriptions", key=key["Bob"])[1]
    assert [s["kind"] for s in subscriptions] == ["email"]  # (opened: nothing changed yet)
    bob_page.click("#unsubscribe")
    bob_page.wait_for_selector("#unsubscribe", state="detached")
    assert bob_page.text_content("#unsubscribe-said") == en["unsubscribe_done"]
    assert call(mail_url, "GET", "/api/me/subscriptions", key=key["Bob"])[1] == []
    bob_page.goto(link)
    bob_page.click("#unsubscribe")
    bob_page.wait_for_selector("#unsubscribe", state="detached")
    assert bob_page.text_content("#unsubscribe-said") == en["err_unknown-subscription"]
    assert errors == []
    assert json.loads(bob_page.evaluate("localStorage.getItem('gotown.player')"))["name"] == "Bob"
    ann.close()
    bob.close()
