"""Circles of friends in the page (issue 40): three people in three browsers make a circle (one
makes it in one tap, two join by its link), play two of its tables (their seats handed to bots
to reach the end), and each sees their rating change at the end screen, the same leaderboard
with the bots for scale, and their page with its rating plotted; a stranger sees nothing of the
circle. Then renaming, removing, leaving and deleting oneself, each with its confirmation, and
the level picker's ratings."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page

from .fixtures import LAPTOP, phone, shot, strings, watch_errors
from .turn_helpers import call, key_of, wait_until

pytestmark = pytest.mark.browser

#: A deal (with 4 floors to win) whose easy bots end with a winner.
SEED = 11


def one_decimal(value: float, signed: bool = False) -> str:
    """As the page writes a rating in English (ratings.js: rounded half up, one decimal)."""
    rounded = math.floor(value * 10 + 0.5) / 10
    text = f"{abs(rounded):.1f}"
    if rounded < 0:
        return "-" + text
    return ("+" if signed and rounded > 0 else "") + text


def ordinal(rating: dict[str, float]) -> float:
    return rating["mu"] - 3 * rating["sigma"]


def seat_token(page: Page, game_id: str) -> str:
    token = page.evaluate(f"localStorage.getItem('gotown.token.{game_id}')")
    assert token, "this page keeps no seat at the table"
    return str(token)


def hand_to_bot(url: str, game_id: str, token: str) -> None:
    """The seat's own person hands it to an easy bot (it stays theirs for the ratings)."""
    state = json.loads(
        _request(url, "GET", f"/api/games/{game_id}/state", token=token)  # (its seat)
    )
    _request(url, "POST", f"/api/games/{game_id}/seats/{state['seat']}/bot", {"level": "easy"},
             token)  # fmt: skip


def _request(url: str, method: str, path: str, body: Any = None, token: str = "") -> str:
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-Seat-Token": token}
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(answer.read().decode())


def serious_violations(page: Page) -> list[tuple[str, list[Any]]]:
    """axe-core's serious and critical findings on the page as it stands."""
    found = Axe().run(page).response["violations"]
    return [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in found
            if v["impact"] in ("serious", "critical")]  # fmt: skip


def leaderboard_rows(page: Page) -> list[tuple[str, str, str]]:
    """(who: a member's id or a bot's level, rating, games) of each row, in order."""
    page.wait_for_selector("#leaderboard tbody tr")
    rows = page.locator("#leaderboard tbody tr")
    found = []
    for i in range(rows.count()):
        row = rows.nth(i)
        who = row.get_attribute("data-player") or "bot:" + (row.get_attribute("data-level") or "")
        cells = row.locator("td.num")
        found.append((who, cells.nth(0).text_content() or "", cells.nth(1).text_content() or ""))
    return found


def end_screen_ratings(page: Page) -> dict[str, float]:
    """The viewer's own changes at the end screen: {"circle": delta, "overall": delta}."""
    page.wait_for_selector("#rating-mine")
    cells = page.locator("#rating-mine td")
    return {
        "circle": float(cells.nth(0).get_attribute("data-delta") or "nan"),
        "overall": float(cells.nth(1).get_attribute("data-delta") or "nan"),
    }


def test_three_friends_make_a_circle_play_two_tables_and_see_one_leaderboard(
    browser: Browser, server_url: str
) -> None:
    en = strings("en")
    contexts: list[BrowserContext] = [browser.new_context(viewport=LAPTOP) for _ in range(2)]
    contexts.append(phone(browser))  # (Cleo on her phone)
    ann, bob, cleo = (c.new_page() for c in contexts)
    errors = [watch_errors(p) for p in (ann, bob, cleo)]
    people = {"Ann": ann, "Bob": bob, "Cleo": cleo}

    # Ann makes a circle in one tap from the home page: its link and QR code at once.
    ann.goto(server_url + "/")
    ann.fill("#name", "Ann")
    assert ann.input_value("#circle-name") == en["circle_default_name"]
    ann.click("#make-circle")
    ann.wait_for_selector("#circle-qr")
    circle_id = ann.url.rsplit("/circle/", 1)[1]
    assert ann.text_content("#circle-title") == en["circle_default_name"]
    invite = ann.text_content("#circle-invite-url") or ""
    assert invite.startswith(server_url + "/c/")
    assert ann.get_attribute("#circle-qr", "aria-label") == en["circle_qr_alt"]

    # Bob and Cleo join by the link, each under their name.
    for name in ("Bob", "Cleo"):
        page = people[name]
        page.goto(invite)
        page.wait_for_selector("#circle-join-form")
        assert page.text_content("#circle-join-form h1") == en["circle_join_title"].format(
            name=en["circle_default_name"]
        )
        page.fill("#circle-join-name", name)
        page.click("#circle-join-btn")
        page.wait_for_url(f"{server_url}/circle/{circle_id}")
        page.wait_for_selector("#circle-members li")
    cleo.goto(invite)  # (a member's device opening the link again goes to the circle)
    cleo.wait_for_url(f"{server_url}/circle/{circle_id}")
    ann.reload()
    ann.wait_for_selector("#circle-members li >> nth=2")
    names = ann.locator("#circle-members li a").all_text_contents()
    assert names == ["Ann", "Bob", "Cleo"]
    ids = {name: key_and_id(people[name], server_url)[1] for name in people}

    # The first table: made by Ann on the circle's page, the others join by its invitation.
    ann.click("#circle-table-3")
    ann.wait_for_selector("#invite-url")
    first = ann.url.rsplit("/g/", 1)[1]
    table_invite = ann.text_content("#invite-url") or ""
    cleo.reload()
    cleo.wait_for_selector(f"#circle-tables li[data-game='{first}']")
    # (Bob by the link Ann sent; Cleo from the circle's page, where the table waits for her.)
    for page in (bob, cleo):
        if page is bob:
            bob.goto(table_invite)
        else:
            cleo.click(f"#circle-tables li[data-game='{first}'] .my-game-join")
            cleo.wait_for_url(table_invite)
        page.click("#join-btn")
        page.wait_for_selector("#lobby-seats, #status")  # (Bob waits for Cleo)
    lobby = call(server_url, "GET", f"/api/games/{first}/lobby")[1]
    assert lobby["circle_id"] == circle_id and [s["name"] for s in lobby["seats"]] == names

    # The second: Bob's, on a known deal (4 floors to win); Ann and Cleo join in the page.
    status, made = call(server_url, "POST", "/api/games", {
        "name": "Bob", "seats": [{"kind": "human"}] * 3, "seed": SEED, "circle_id": circle_id,
        "options": {"win_floors": 4}}, key=key_and_id(bob, server_url)[0])  # fmt: skip
    assert status == 201, made
    second = made["game_id"]
    for page in (ann, cleo):
        page.goto(made["invite_url"])
        page.click("#join-btn")
        page.wait_for_selector("#lobby-seats, #status")
    bob.goto(f"{server_url}/g/{second}")  # (his key opens his seat)
    bob.wait_for_selector("#status")
    bob_token = made["token"]

    for game in (first, second):
        for page in people.values():
            token = bob_token if (page is bob and game == second) else seat_token(page, game)
            hand_to_bot(server_url, game, token)
    for game in (first, second):
        for page in people.values():
            if page.url != f"{server_url}/g/{game}":
                page.goto(f"{server_url}/g/{game}")
            page.wait_for_selector("#winner", timeout=120_000)
    # Each end screen: this game's changes, as the server stored them (the first table's deal
    # was not chosen: when it ended without a winner, it says it did not count).
    rated = 0
    for game in (first, second):
        winner = call(server_url, "GET", f"/api/games/{game}/state")[1]["view"]["winner"]
        assert game == first or winner is not None
        rated += winner is not None
        for name, page in people.items():
            page.goto(f"{server_url}/g/{game}")
            if winner is None:
                page.wait_for_selector("#rating-unrated")
                assert page.text_content("#rating-unrated") == en["rating_unrated"]
                continue
            shown = end_screen_ratings(page)
            token = bob_token if (page is bob and game == second) else seat_token(page, game)
            changes = json.loads(_request(server_url, "GET", f"/api/games/{game}/ratings",
                                          token=token))["changes"]  # fmt: skip
            mine = [c for c in changes if c["player_id"] == ids[name]]
            for scope, in_circle in (("circle", True), ("overall", False)):
                change = next(c for c in mine if c["circle"] is in_circle)
                delta = change["after"]["ordinal"] - change["before"]["ordinal"]
                assert shown[scope] == pytest.approx(delta)
                cell = page.locator("#rating-mine td").nth(0 if in_circle else 1)
                assert (cell.text_content() or "").endswith(f"({one_decimal(delta, True)})")
            assert page.locator("#rating-changes tbody tr").count() == 3
    shot(bob, "circle-end-screen")

    # The same leaderboard for each: the members rated, the five bot levels beside them.
    boards = []
    for page in people.values():
        page.goto(f"{server_url}/circle/{circle_id}")
        boards.append(leaderboard_rows(page))
    assert boards[0] == boards[1] == boards[2]
    detail = call(
        server_url, "GET", f"/api/circles/{circle_id}", key=key_and_id(ann, server_url)[0]
    )
    expected = [
        (row["player_id"] or "bot:" + row["level"], one_decimal(row["rating"]["ordinal"]),
         str(row["rating"]["games"]) if row["player_id"] else en["leaderboard_reference"])
        for row in detail[1]["leaderboard"]
    ]  # fmt: skip
    assert boards[0] == expected
    assert {who for who, _, _ in expected if who.startswith("bot:")} == {
        "bot:random", "bot:easy", "bot:medium", "bot:hard", "bot:expert"}  # fmt: skip
    assert all(games == str(rated) for who, _, games in expected if not who.startswith("bot:"))
    shot(ann, "circle-page")
    assert serious_violations(ann) == []

    # Each one's page: the rating after each rated game, plotted; whom they play like.
    for name, page in people.items():
        page.goto(server_url + "/me")
        page.wait_for_selector("#player-title")
        own = call(server_url, "GET", "/api/me/page", key=key_and_id(page, server_url)[0])[1]
        assert page.text_content("#player-title") == en["my_page_title"].format(name=name)
        assert len(own["history"]) == rated and own["games"] == 2
        points = (page.get_attribute("#rating-line", "points") or "").split()
        assert len(points) == rated
        assert page.locator("#rating-graph .rating-point").count() == rated
        assert page.locator("#rating-graph .rating-bot").count() == 5
        level = en["level_" + own["plays_like"]]
        assert page.text_content("#plays-like") == en["plays_like_you"].format(level=level)
        assert page.locator("#player-recent-list li").count() == 2
        assert page.locator(f"#player-recent-list a[href='/r/{second}']").count() == 1
        opponents = set(page.locator("#player-h2h-table tbody th").all_text_contents())
        assert opponents == {n for n in people if n != name}
    shot(cleo, "player-page-phone")
    assert serious_violations(cleo) == []
    # A member's page, from the leaderboard.
    ann.goto(f"{server_url}/circle/{circle_id}")
    ann.click(f"#leaderboard tr[data-player='{ids['Bob']}'] a")
    ann.wait_for_selector("#player-title")
    assert ann.text_content("#player-title") == "Bob"
    assert ann.locator("#rating-line").count() == 1

    # Best moves: asked for only when opened, from the reviews of the last two games.
    reviews: list[str] = []
    ann.on("request", lambda r: reviews.append(r.url) if "/review" in r.url else None)
    ann.goto(server_url + "/me")
    ann.wait_for_selector("#best-moves")
    assert reviews == []
    ann.click("#best-moves > summary")
    ann.wait_for_selector("#best-moves-list", timeout=120_000)
    asked = sorted(r.split("/api/games/")[1].split("/")[0] for r in reviews)
    assert asked == sorted([first, second])
    reviewed = {ann.locator("#best-moves-list li").nth(i).get_attribute("data-game")
                for i in range(ann.locator("#best-moves-list li").count())}  # fmt: skip
    assert reviewed == {first, second}

    # A stranger, with a player and a circle of their own, sees nothing of this one.
    stranger_context = browser.new_context(viewport=LAPTOP)
    stranger = stranger_context.new_page()
    stranger_errors = watch_errors(stranger)
    stranger.goto(server_url + "/")
    stranger.fill("#name", "Dora")
    stranger.fill("#circle-name", "Neighbours")
    stranger.click("#make-circle")
    stranger.wait_for_selector("#circle-qr")
    for path in (f"/circle/{circle_id}", f"/circle/{circle_id}?p={ids['Ann']}"):
        stranger.goto(server_url + path)
        stranger.wait_for_selector("#circle-refused-why, #player-refused-why")
        said = stranger.locator("#circle-refused-why, #player-refused-why").text_content()
        assert said == en["circle_not_yours"]
        assert stranger.locator("#leaderboard, #rating-graph, #circle-members").count() == 0
    stranger.goto(server_url + "/")
    stranger.wait_for_selector("#circles-list li")
    assert stranger.locator("#circles-list li").all_text_contents() == ["Neighbours"]
    assert call(server_url, "GET", f"/api/circles/{circle_id}", key=key_of(stranger))[0] == 404

    assert all(e == [] for e in errors) and stranger_errors == [], (errors, stranger_errors)
    for context in [*contexts, stranger_context]:
        context.close()


def key_and_id(page: Page, url: str) -> tuple[str, str]:
    key = key_of(page)
    return key, call(url, "GET", "/api/me", key=key)[1]["player_id"]


def test_rename_remove_leave_and_delete_each_ask_first(browser: Browser, server_url: str) -> None:
    en = strings("en")
    contexts = [browser.new_context(viewport=LAPTOP) for _ in range(3)]
    eve, finn, gus = (c.new_page() for c in contexts)
    errors = [watch_errors(p) for p in (eve, finn, gus)]
    eve.goto(server_url + "/")
    eve.fill("#name", "Eve")
    eve.fill("#circle-name", "Cousins")
    eve.click("#make-circle")
    eve.wait_for_selector("#circle-invite-url")
    circle_id = eve.url.rsplit("/circle/", 1)[1]
    invite = eve.text_content("#circle-invite-url") or ""
    for page, name in ((finn, "Finn"), (gus, "Gus")):
        page.goto(invite)
        page.fill("#circle-join-name", name)
        page.click("#circle-join-btn")
        page.wait_for_selector("#circle-members li")

    # A name taken in the circle is refused; another is taken.
    finn.click("#circle-yours > summary")
    finn.fill("#circle-rename", "Eve")
    finn.click("#circle-rename-btn")
    finn.wait_for_selector("#toast:not([hidden])")
    assert finn.text_content("#toast") == en["err_name-taken"]
    finn.fill("#circle-rename", "Finnegan")
    finn.click("#circle-rename-btn")
    finn.wait_for_function(
        "() => [...document.querySelectorAll('#circle-members li a')]"
        ".some((a) => a.textContent === 'Finnegan')"
    )

    # Only the creator may remove someone: after a question, which "cancel" takes back.
    assert finn.locator("[id^='remove-'] button").count() == 0
    eve.reload()
    gus_id = key_and_id(gus, server_url)[1]
    eve.click(f"#remove-{gus_id}-ask")
    assert eve.text_content(f"#remove-{gus_id} .warn") == en["circle_remove_confirm"].format(
        name="Gus"
    )
    eve.click(f"#remove-{gus_id}-no")
    eve.wait_for_selector(f"#remove-{gus_id}-ask")
    assert eve.locator("#circle-members li").count() == 3
    eve.click(f"#remove-{gus_id}-ask")
    eve.click(f"#remove-{gus_id}-yes")
    eve.wait_for_function("() => document.querySelectorAll('#circle-members li').length === 2")
    gus.reload()
    gus.wait_for_selector("#circle-refused-why")
    assert gus.text_content("#circle-refused-why") == en["circle_not_yours"]

    # Finn leaves: home, without the circle.
    finn.click("#circle-yours > summary")
    finn.click("#leave-circle-ask")
    finn.click("#leave-circle-yes")
    finn.wait_for_url(server_url + "/")
    finn.wait_for_selector("#circles")
    assert finn.locator("#circles-list li").count() == 0
    eve.reload()
    eve.wait_for_selector("#circle-members li")
    assert eve.locator("#circle-members li a").all_text_contents() == ["Eve"]

    # "Play with friends" may be the circle's table; the level picker says each bot's rating.
    eve.goto(server_url + "/")
    eve.wait_for_selector("#friends-circle option[value='" + circle_id + "']", state="attached")
    meta = call(server_url, "GET", "/api/meta")[1]
    eve.click("#custom-game > summary")
    for level, (mu, sigma) in meta["bot_ratings"].items():
        label = eve.locator(f"#seat-level-1 option[value='{level}']").text_content()
        assert label == en["level_rated"].format(
            level=en["level_" + level], rating=one_decimal(mu - 3 * sigma)
        )
    eve.select_option("#friends-circle", circle_id)
    eve.click("#play-friends-2")
    eve.wait_for_selector("#invite-url")
    game_id = eve.url.rsplit("/g/", 1)[1]
    assert call(server_url, "GET", f"/api/games/{game_id}/lobby")[1]["circle_id"] == circle_id

    # Eve deletes herself, after the question: this device forgets her, her circle is gone.
    eve_key = key_of(eve)
    eve.goto(server_url + "/me")
    eve.click("#delete-me-action-ask")
    assert eve.text_content("#delete-me-action .warn") == en["delete_me_confirm"]
    eve.click("#delete-me-action-yes")
    eve.wait_for_url(server_url + "/")
    wait_until(lambda: eve.evaluate("localStorage.getItem('gotown.player')") is None,
               "the deleted player forgotten")  # fmt: skip
    assert call(server_url, "GET", "/api/me", key=eve_key)[0] == 403  # (wrong-key)
    assert all(e == [] for e in errors), errors
    for context in contexts:
        context.close()
