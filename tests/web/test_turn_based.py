"""A turn-based table over a simulated week, in the page: three people (three browser contexts,
each a device whose player key the page made with its first table) at a one-day pace, a real
server process with the test clock moved on half a day at a time, a push service of the tests'
own that decrypts each message, and a real SMTP server.

Headless Chromium reaches no real push service (its PushManager.subscribe fails), so each
device's push subscription is made by the tests' push service and registered through the API
with the device's own key, as the page does with its browser's; the e-mail is asked for in
the page. Then: every change of turn reaches the next seat once by push and once by e-mail,
none reaches a seat that has the table open, a seat that misses its deadline gets its reminder
and then its bot's move, and a SIGKILL mid-week (the server started again on the same database
with its clock's offset) loses no deadline and no notice, nor sends one twice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from server.notify.mail_server import MailServer
from server.notify.push_service import BrowserSubscription, PushService

from gotown.server.notify.vapid import VapidKey
from gotown.server.storage import Store

from .fixtures import LAPTOP, phone, post, shot, strings, watch_errors
from .test_one_screen import FINISHED, TURN, _game, _inside
from .turn_helpers import ServerProcess, call, key_of, wait_until

pytestmark = pytest.mark.browser

HOUR = 3600
DAY = 24 * HOUR
NAMES = ("Ann", "Bob", "Carla")
LANGS = {"Ann": "en", "Bob": "en", "Carla": "de"}
TABLE = "Ann, Bob & Carla"  # (as the notices name a table: its players, in seat order)


@pytest.fixture
def vapid(tmp_path: Path) -> Path:
    path = tmp_path / "vapid.pem"
    VapidKey.load_or_create(path)
    return path


@pytest.fixture
def push(vapid: Path) -> Iterator[PushService]:
    with PushService(VapidKey.load_or_create(vapid).application_server_key) as service:
        yield service


@pytest.fixture
def mail() -> Iterator[MailServer]:
    with MailServer() as server:
        yield server


@pytest.fixture
def server(
    tmp_path: Path, vapid: Path, push: PushService, mail: MailServer
) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path,
        {
            "GOTOWN_VAPID_KEY_FILE": str(vapid),
            "GOTOWN_VAPID_CONTACT": "mailto:operator@example.org",
            "GOTOWN_PUSH_SERVICES": push.origin,
            "GOTOWN_SMTP_URL": f"smtp://127.0.0.1:{mail.port}",
            "GOTOWN_MAIL_FROM": "GoTown <gotown@example.org>",
        },
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


class Person:
    """One person: their device (a browser context), its page, its push subscription."""

    def __init__(self, name: str, context: BrowserContext) -> None:
        self.name, self.context = name, context
        self.lang = LANGS[name]
        self.words = strings(self.lang)
        self.page: Page = context.new_page()
        self.errors = watch_errors(self.page)
        self.push: BrowserSubscription | None = None
        self.email = f"{name.lower()}@example.org"

    def kind_of(self, title: str) -> str:
        """Which notice a push's or an e-mail's title is, in this person's language."""
        for kind, key in (("turn", "notify_turn_title"), ("reminder", "notify_reminder_title")):
            if title == self.words[key].format(table=TABLE):
                return kind
        raise AssertionError(f"{self.name}: a notice titled {title!r}")


def device(browser: Browser, name: str) -> BrowserContext:
    lang = LANGS[name]
    context = phone(browser) if name == "Bob" else browser.new_context(viewport=LAPTOP)
    context.add_init_script(f"localStorage.setItem('gotown.lang', '{lang}')")
    return context


def count(push: PushService, mail: MailServer, person: Person) -> dict[str, int]:
    """The notices this person received so far, by kind, by push and by e-mail."""
    seen = {"push:turn": 0, "push:reminder": 0, "mail:turn": 0, "mail:reminder": 0}
    assert person.push is not None
    for message in push.messages(person.push):
        seen["push:" + person.kind_of(message.json["title"])] += 1
    for message in mail.messages:
        if message["To"] == person.email:
            seen["mail:" + person.kind_of(str(message["Subject"]))] += 1
    return seen


def state(server: ServerProcess, game_id: str) -> dict[str, Any]:
    status, st = call(server.url, "GET", f"/api/games/{game_id}/state")
    assert status == 200, st
    return st  # type: ignore[no-any-return]


def pending(server: ServerProcess, game_id: str) -> list[dict[str, Any]]:
    """The notices of the game waiting in the database (read as another process would)."""
    store = Store(server.database_url)
    try:
        return store.pending_notices(game_id)
    finally:
        store.dispose()


def sit_down(browser: Browser, server: ServerProcess) -> tuple[dict[str, Person], str]:
    """Ann makes the table in the page (one day a turn, three players, in one tap); Bob and
    Carla take their seats from the invitation. Each device gets its player key so."""
    people = {name: Person(name, device(browser, name)) for name in NAMES}
    ann = people["Ann"].page
    ann.goto(server.url + "/")
    ann.fill("#name", "Ann")
    ann.click(f"label[for='pace-{DAY}']")
    ann.click("#play-friends-3")
    invite = ann.text_content("#invite-url")
    assert invite
    game_id = ann.url.rsplit("/", 1)[1]
    # The table says its pace: one day a turn.
    ann.click("#game-options > summary")
    assert people["Ann"].words["pace_per_turn"].split("{")[0] in ann.text_content("#game-options")
    for name in ("Bob", "Carla"):
        page = people[name].page
        page.goto(invite)
        page.fill("#join-name", name)
        page.click("#join-btn")
        page.wait_for_selector("#lobby-seats, #status")
    st = state(server, game_id)
    assert st["status"] == "playing" and st["lobby"]["pace"] == DAY
    assert [s["name"] for s in st["lobby"]["seats"]] == list(NAMES)
    return people, game_id


def ask_for_notices(person: Person, server: ServerProcess, push: PushService) -> None:
    """E-mail asked for in the page (the home page's panel of this device); push registered
    through the API with the device's key, as the page would with its browser's."""
    page = person.page
    page.goto(server.url + "/")
    page.click("#notify > summary")
    page.fill("#notify-email", person.email)
    page.click("#mail-on")
    page.wait_for_selector("#mail-state")
    assert person.email in page.text_content("#mail-state")  # type: ignore[operator]
    person.push = push.subscribe()
    status, made = call(
        server.url, "POST", "/api/me/subscriptions/push",
        {**person.push.to_json(), "language": person.lang}, key_of(page),
    )  # fmt: skip
    assert status == 201, made
    # (The panel reads again what this device asked for.)
    page.reload()
    page.click("#notify > summary")
    page.wait_for_selector("#push-state, #push-unavailable")


def play_turn(person: Person, server: ServerProcess, url: str | None = None) -> None:
    """The person opens the table (where their notice points; None: it is open), sees that it
    is their turn (the tab's title and icon, the clock), ends their turn, and leaves."""
    page = person.page
    if url is not None:
        page.goto(url)
    page.wait_for_selector("#status.mine")
    assert page.title() == "\u25cf " + person.words["your_turn"] + " \u2013 GoTown"
    assert (page.get_attribute("link[rel='icon']", "href") or "").endswith("/icon-turn.svg")
    if (page.viewport_size or {}).get("width", 0) > 760:  # (a phone says it in the strip only)
        assert page.is_visible(".seatbox.active .seat-clock")
    clock = page.text_content("#turn-clock") or ""
    left = person.words["time_left"].split("{time}")
    assert clock.startswith(left[0]) and clock.endswith(left[1]), clock
    before = int(page.evaluate("document.body.dataset.version"))
    page.click("#end-turn")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")
    # (an update that came meanwhile, a presence's, may show first: the turn's end follows)
    page.wait_for_function("document.title === 'GoTown'", timeout=10_000)
    page.goto(server.url + "/")  # (the table closed: its socket too)
    page.wait_for_selector("#create-title")


class Week:
    """The notices each person was sent so far, and those they should have been."""

    def __init__(
        self, people: dict[str, Person], game_id: str, server: ServerProcess,
        push: PushService, mail: MailServer,
    ) -> None:  # fmt: skip
        self.people, self.game_id, self.server, self.push, self.mail = (
            people, game_id, server, push, mail,
        )  # fmt: skip
        self.expected = {name: dict.fromkeys(self.count(name), 0) for name in NAMES}
        self.elapsed = 0.0

    def count(self, name: str) -> dict[str, int]:
        return count(self.push, self.mail, self.people[name])

    def active(self) -> str:
        st = state(self.server, self.game_id)
        assert st["status"] == "playing", "the game ended before the week did"
        return NAMES[st["view"]["active"]]

    def following(self) -> str:
        return NAMES[(NAMES.index(self.active()) + 1) % 3]

    def expect(self, name: str, kind: str, by: tuple[str, ...] = ("push", "mail")) -> None:
        """``name`` is told (once more) of ``kind``, by ``by``; nothing else arrives."""
        for way in by:
            self.expected[name][f"{way}:{kind}"] += 1
        wait_until(
            lambda: self.count(name) == self.expected[name],
            f"{name}'s {kind} notice once by {by}: {self.count(name)} != {self.expected[name]}",
        )

    def advance(self, seconds: float) -> None:
        self.server.advance(seconds)
        self.elapsed += seconds

    def notice_url(self, name: str) -> str:
        """Where the person's last push points: their table (what a click opens)."""
        person = self.people[name]
        assert person.push is not None
        url: str = self.push.messages(person.push)[-1].json["url"]
        assert url == f"{self.server.url}/g/{self.game_id}"
        return url

    def half_day(self) -> None:
        """Half a day on, the player whose turn it is plays (from their notice); the next is
        told."""
        self.advance(12 * HOUR)
        name = self.active()
        play_turn(self.people[name], self.server, self.notice_url(name))
        self.expect(self.active(), "turn")

    def half_day_with_the_next_table_open(self) -> None:
        """The next player has the table open when their turn comes: no notice reaches them;
        they play at once, from the open table."""
        name, following = self.active(), self.following()
        page = self.people[following].page
        page.goto(f"{self.server.url}/g/{self.game_id}")
        page.wait_for_selector("#status:not(.mine)")
        self.advance(12 * HOUR)
        play_turn(self.people[name], self.server, self.notice_url(name))
        wait_until(lambda: not pending(self.server, self.game_id), "the notice dropped, not sent")
        assert self.count(following) == self.expected[following]
        play_turn(self.people[following], self.server, None)
        self.expect(self.active(), "turn")

    def kill_while_a_notice_waits_then_miss_a_turn(self) -> str:
        """The next player's push service fails (500) as their turn comes: the e-mail goes,
        the push waits to be tried again, and the server is SIGKILLed then started again (same
        database, same clock): the push arrives once, the e-mail is not sent again. That player
        does not play: a reminder at a quarter of the day, then the bot's move at the
        deadline, which the restart did not lose; the next player is told. Answers who missed."""
        name, following = self.active(), self.following()
        person = self.people[following]
        assert person.push is not None
        self.push.set_answer(person.push, 500)
        self.advance(12 * HOUR)
        play_turn(self.people[name], self.server, self.notice_url(name))
        self.expect(following, "turn", by=("mail",))
        wait_until(
            lambda: [n["attempts"] for n in pending(self.server, self.game_id)] == [1],
            "the failed push recorded, to be tried again",
        )
        self.server.kill()
        self.server.start()
        self.push.set_answer(person.push, 201)
        self.advance(HOUR)  # (past the back-off: 15 to 30 s)
        self.expect(following, "turn", by=("push",))
        turn = state(self.server, self.game_id)["view"]["turn"]
        self.advance(18 * HOUR)  # (19 h of 24: the reminder)
        self.expect(following, "reminder")
        assert state(self.server, self.game_id)["view"]["turn"] == turn
        self.advance(6 * HOUR)
        seat = NAMES.index(following)
        moved = wait_until(
            lambda: (
                (s := state(self.server, self.game_id))["view"]["turn"] > turn
                and not s["lobby"]["seats"][seat]["standin"]
                and s
            ),
            "the bot's move for the seat whose time ran out",
        )
        assert moved["lobby"]["seats"][seat]["missed"] == 1
        assert moved["lobby"]["seats"][seat]["kind"] == "human"  # (still theirs)
        self.expect(self.active(), "turn")
        return following


def test_a_week_at_a_one_day_pace(
    browser: Browser, server: ServerProcess, push: PushService, mail: MailServer
) -> None:
    people, game_id = sit_down(browser, server)
    for person in people.values():
        ask_for_notices(person, server, push)
    week = Week(people, game_id, server, push, mail)
    # The first turn began as Carla took her seat, before anyone asked to be told. Its player
    # opens the table from the home page's list of their tables (theirs first: their turn).
    first = people[week.active()]
    first.page.goto(server.url + "/")
    listed = first.page.locator(f"#my-games-list li[data-game='{game_id}']")
    assert "mine" in (listed.get_attribute("class") or "")
    assert listed.locator(".clock").count() == 1
    assert first.page.title() == "\u25cf " + first.words["your_turn"] + " \u2013 GoTown"
    listed.locator("a").click()
    play_turn(first, server)
    week.expect(week.active(), "turn")

    week.half_day()
    week.half_day_with_the_next_table_open()
    week.half_day()
    missed = week.kill_while_a_notice_waits_then_miss_a_turn()
    # The next player's table shows the turn the other missed.
    nxt = people[week.active()]
    nxt.page.goto(week.notice_url(nxt.name))
    seat = NAMES.index(missed)
    shown = nxt.page.text_content(f"[data-missed-seat='{seat}']")
    assert shown == nxt.words["missed_turns"].format(n=1)
    nxt.page.goto(server.url + "/")
    while week.elapsed < 7 * DAY:
        week.half_day()

    # The week is over: every notice came once, none twice, none to an open table.
    for name in NAMES:
        assert week.count(name) == week.expected[name], name
    assert sum(week.expected[name]["push:turn"] for name in NAMES) >= 12
    assert all(message.problem == "" for message in push.received)
    # Carla's notices speak her page's language.
    carla = people["Carla"]
    assert carla.push is not None
    assert push.messages(carla.push)[0].json["title"] == carla.words["notify_turn_title"].format(
        table=TABLE
    )
    for person in people.values():
        assert person.errors == [], (person.name, person.errors)
        person.context.close()


#: The table's state with some seats' stand-in and missed turns changed (as the server sends
#: them in its lobby), shown as a newer state of the page's own table.
SEATS_CHANGED = """([view, legal, seats]) => {
  const table = gotown.table(), st = structuredClone(table.state);
  for (const [seat, change] of Object.entries(seats)) Object.assign(st.lobby.seats[seat], change);
  table.update({ ...st, version: st.version + 1, view: view || st.view, legal: legal || st.legal,
                 events_from: 0 });
}"""


def test_a_turn_based_table_on_a_phone_keeps_everything_in_sight(
    browser: Browser, server_url: str
) -> None:
    """Your turn at a one-day table on a 390x844 phone: the tab's title and icon say so, the
    strip gives the time left; with twelve cards, four towers of four floors, a bot standing
    in for one player and another's missed turns, every card, button, clock and word is on
    the screen. When your own time ran out, the page says a bot plays for you."""
    en = strings("en")
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "medium"}] * 3,
         "name": "Anastasia", "options": {"first_player": 0}, "pace": DAY},
    )  # fmt: skip
    context = phone(browser)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(created["play_url"])
    page.wait_for_selector("#status.mine")
    assert page.title() == "\u25cf " + en["your_turn"] + " \u2013 GoTown"
    assert (page.get_attribute("link[rel='icon']", "href") or "").endswith("/icon-turn.svg")
    clock = page.text_content("#turn-clock") or ""
    assert clock in (en["time_left"].format(time=t) for t in ("23 h 59 min", "1 d")), clock
    assert en["deadline_at"].split("{")[0] in (page.get_attribute("#turn-clock", "title") or "")
    game = _game(4, 4, 12)
    page.evaluate(
        SEATS_CHANGED,
        [game.view(0).to_json(), [a.to_json() for a in game.legal_actions()],
         {1: {"kind": "human", "level": None, "name": "Bartholomew", "standin": True, "missed": 1},
          2: {"kind": "human", "level": None, "name": "Wilhelmina", "missed": 2}}],
    )  # fmt: skip
    page.wait_for_selector("[data-standin-for='1']")
    assert page.text_content("[data-standin-for='1']") == en["standin_for"].format(
        name="Bartholomew"
    )
    assert page.text_content("[data-missed-seat='2']") == en["missed_turns"].format(n=2)
    assert page.locator("#hand .card").count() == 12
    _inside(
        page, [*TURN, "#turn-clock", "[data-standin-for]", "[data-missed-seat]"], "phone, paced"
    )
    page.evaluate(FINISHED)
    shot(page, "web-turn-based-phone")
    # Her own time ran out: a bot plays her turn; it is not hers to play, and the page says so.
    page.evaluate(SEATS_CHANGED, [None, None, {0: {"standin": True, "missed": 1}}])
    page.wait_for_selector("#standin-you")
    assert page.text_content("#standin-you") == en["standin_you"]
    assert page.title() == "GoTown"
    assert (page.get_attribute("link[rel='icon']", "href") or "").endswith("/icon.svg")
    assert errors == []
    context.close()
