"""Learn to play in a browser: from the home page's one tap through every step of the guided
first game to the free game against the easy bot, on a phone by touch and on a laptop by
keyboard (a screenshot of each step), each lesson's number shown and the draw rules, the rarer
cards and the stalemate seen on the table; a wrong move is answered gently and changes
nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from gotown.server import lessons

from .fixtures import LAPTOP, get, phone, shot, strings, watch_errors

pytestmark = pytest.mark.browser

STEPS = sum(len(lesson.steps) for lesson in lessons.LESSONS)


def _press(page: Page, selector: str, touch: bool) -> None:
    target = page.locator(selector).first
    if touch:
        target.tap()
    else:
        target.focus()
        page.keyboard.press("Enter")


def _shot(page: Page, name: str) -> None:
    """A screenshot from the top of the page (where the lesson's sentence stands)."""
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, name)


def _hand(page: Page) -> int:
    return page.locator("#hand .card").count()


def _draw_size(page: Page, words: dict[str, str]) -> int:
    return int(page.inner_text("#draw-size").removeprefix(words["draw_pile"] + ":").strip())


def _check_the_table(page: Page, lesson: str, step: int, words: dict[str, str]) -> None:
    """What the table shows once a step of the draw rules, the rarer cards or the stalemate is
    made (the lessons' own tests check the game; this checks that the page shows it)."""
    if (lesson, step) == ("draw", 1):
        assert _hand(page) == 4  # 1 card, refilled to 3 (R8), then 1 at the turn's start (R7b)
    elif (lesson, step) == ("eight", 0):
        assert _hand(page) == 8  # no card drawn at 8 (R7b)
    elif (lesson, step) == ("reshuffle", 1):
        assert _draw_size(page, words) > 0  # the discard pile became the draw pile (R9)
        assert page.inner_text("#discard summary") == words["discard_pile"] + ": 0"
    elif lesson == "superthief":
        assert page.locator("#towers .seatbox").count() == 3  # two opponents (R17)
    elif (lesson, step) == ("donut", 2):  # refilled, and a whole new turn at once (R19)
        assert _hand(page) == 4 and page.inner_text("#status") == words["your_turn"]
        start = lessons.BY_ID["donut"].position["turn"]
        assert page.inner_text("#turn") == words["turn_n"].format(n=start + 1)
    elif lesson == "stalemate":
        assert page.locator("#winner.nowinner").count() == 1  # over, nobody won (R20b)
        assert page.locator("#lesson-next").count() == 1  # the guided game goes on


def _make_the_step(page: Page, touch: bool) -> None:
    """Follow the marks: the step's cards, then its target (or the end of the turn)."""
    for _ in range(4):
        if page.locator("#lesson-feedback.right").count():
            return
        _press(page, ".lesson-pick", touch)
        # (A move is on its way while the table is busy: its answer redraws the step.)
        page.wait_for_function(
            "document.querySelector('#lesson-feedback.right')"
            " || (!gotown.table().busy && document.querySelector('.lesson-pick'))"
        )
    raise AssertionError("the marks did not lead to the step's move")


@pytest.mark.parametrize("device", ["phone", "laptop"])
def test_the_guided_first_game_from_the_home_page_to_a_free_game(
    browser: Browser, server_url: str, device: str
) -> None:
    touch = device == "phone"
    context = phone(browser) if touch else browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    errors = watch_errors(page)
    words = strings("en")
    page.goto(server_url + "/")
    _press(page, "#learn", touch)  # one tap, no form
    page.wait_for_selector("#lesson-say")
    assert page.url.endswith("/learn/build")
    order = [lesson.id for lesson in lessons.LESSONS]
    for n in range(STEPS):
        step = page.evaluate("gotown.table().step")
        assert page.inner_text("#lesson-say") == words[step["key"]]
        assert page.inner_text("#lesson-title") == words[f"lesson_{step['lesson']}"]
        number = words["lesson_step"].format(i=order.index(step["lesson"]) + 1, n=len(order))
        assert page.inner_text("#lesson-progress") == number
        assert page.locator(".lesson-pick").count() >= 1  # the move is shown
        if (step["lesson"], step["step"]) == ("reshuffle", 1):
            assert _draw_size(page, words) == 0
        _shot(page, f"learn-{device}-{n:02d}-{step['lesson']}-{step['step']}")
        _make_the_step(page, touch)
        assert page.inner_text("#lesson-feedback") == words["lesson_right"]
        _check_the_table(page, step["lesson"], step["step"], words)
        _shot(page, f"learn-{device}-{n:02d}-{step['lesson']}-{step['step']}-made")
        assert page.locator("#hand .card[aria-disabled='false']").count() == 0  # (done: wait)
        if touch:
            page.locator("#lesson-next").tap()
        else:  # the keyboard is on "Next", then on the next step's first mark
            assert page.evaluate("document.activeElement.id") == "lesson-next"
            page.keyboard.press("Enter")
        page.wait_for_selector("#lesson-feedback", state="detached")
        if not touch and n + 1 < STEPS:
            assert page.evaluate("document.activeElement.classList.contains('lesson-pick')")
    assert page.locator("#winner").count() == 1  # the fifth floor won (R20)
    assert page.inner_text("#lesson-say") == words["lesson_done"]
    _shot(page, f"learn-{device}-{STEPS:02d}-done")
    _press(page, "#free-game", touch)
    page.wait_for_url("**/g/*")
    page.wait_for_selector("#status")
    game_id = page.url.rsplit("/", 1)[1]
    lobby = get(server_url, f"/api/games/{game_id}/lobby")
    assert [(s["kind"], s["level"]) for s in lobby["seats"]] == [("human", None), ("bot", "easy")]
    shot(page, f"learn-{device}-{STEPS + 1:02d}-free-game")
    assert not errors, errors
    context.close()


def test_a_wrong_move_is_answered_gently_and_the_step_waits(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    errors = watch_errors(page)
    words = strings("fr")
    page.goto(server_url + "/learn/dog")
    page.wait_for_selector("#lesson-say")
    page.select_option("#lang", "fr")
    page.wait_for_function(
        f"document.getElementById('lesson-say').textContent === {words['lesson_dog_1']!r}"
    )
    page.click('#hand .card[data-card="dog"]')
    floors = page.locator("#towers .mine .floor.glow")
    assert floors.count() == 2  # both floors may be guarded (R12); the top one is marked
    assert page.locator("#towers .mine .floor.glow.lesson-pick").get_attribute("data-floor") == "1"
    # Of the two buttons the dog offers, the step's is the main one, and marked.
    assert page.locator("#actions .act:not(#end-turn)").count() == 2
    marked = page.locator("#actions .act.lesson-pick")
    assert marked.count() == 1 and "primary" in (marked.get_attribute("class") or "")
    assert page.locator("#actions .act.primary").count() == 1
    page.click('#towers .mine .floor.glow[data-floor="0"]')
    page.wait_for_selector("#lesson-feedback.gentle")
    assert page.inner_text("#lesson-feedback") == words["lesson_other_move"]
    shot(page, "learn-wrong-move-fr")
    # Nothing changed: no dog anywhere yet, and the step still waits for its move.
    assert page.locator("#towers .guard").count() == 0
    assert page.inner_text("#lesson-say") == words["lesson_dog_1"]
    page.click('#hand .card[data-card="dog"]')
    page.click("#towers .lesson-pick")
    page.wait_for_selector("#lesson-feedback.right")
    assert page.locator("#towers .mine .guard").count() == 1
    assert not errors, errors
    context.close()
