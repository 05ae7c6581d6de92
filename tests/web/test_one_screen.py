"""A turn fits one screen: on a 360x740 and a 390x844 phone and a 1366x768 laptop, in English,
French and German, every card of the hand (up to 12), every button a turn offers, the towers
and what just happened lie inside the screen without scrolling, at every tower height (0, 2
and 4 floors on each tower, 2 and 4 players), in every lesson too; a notice floats over the
top bar and moves nothing, and leaves with its step, its turn, or the end."""

from __future__ import annotations

from collections import Counter

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from gotown.engine import Action, Game
from gotown.server import lessons

from .fixtures import ARTIFACTS, post, strings, version, wait_newer

pytestmark = pytest.mark.browser

SCREENS = {"phone-360": (360, 740), "phone-390": (390, 844), "laptop": (1366, 768)}
PAIRS = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]]
#: Seat 0's hand is dealt from these first: the longest names, then jokers and numbers.
SPECIALS = {"donut-truck": 1, "wrecking-ball": 1, "jackhammer": 3, "milkshake": 3, "super-thief": 1,
            "bone": 2, "dog": 4, "thief": 3, "?": 4}  # fmt: skip


def _game(players: int, floors: int, hand: int) -> Game:
    """Seat 0's turn with `floors` floors on every tower (a guard dog on some) and `hand`
    cards, just after the seat before it sent it a thief: a real position of the engine, with
    the events of that turn (what just happened)."""
    numbers = Counter({str(n): 4 for n in range(1, 9)})
    specials = Counter(SPECIALS)
    towers: list[list[list[str]]] = []
    for seat in range(players):
        tower = []
        for f in range(floors):
            pair = PAIRS[(seat + f) % 4]
            numbers.subtract(pair)
            dog = ["dog"] if f == floors - 2 and seat % 2 == 0 else []
            specials.subtract(dog)
            tower.append(pair + dog)
        towers.append(tower)
    last = players - 1
    specials.subtract(["thief"])
    start = hand + 1 if hand >= 8 else hand  # (the thief takes one; under 8, a card is drawn)
    mine: list[str] = []
    while len(mine) < start and +specials:
        for code in SPECIALS:
            if len(mine) < start and specials[code] > 0:
                mine.append(code)
                specials.subtract([code])
    rest = list((+numbers).elements())
    mine += [rest.pop(0) for _ in range(start - len(mine))]
    rest += list((+specials).elements())
    hands = [mine] + [[rest.pop() for _ in range(2)] for _ in range(1, players)]
    hands[last].append("thief")
    position = {"players": players, "active": last, "turn": 4 * floors + 5, "hands": hands,
                "towers": towers, "draw": rest, "seed": 3}  # fmt: skip
    game = Game.from_position(position)
    game.apply(Action.thief(0))
    game.apply(Action.end_turn())
    assert game.active == 0 and len(game.view(0).hand) == hand
    return game


def _table(server_url: str, players: int) -> dict[str, str]:
    """A real table (Anastasia against bots, her turn first: nothing moves by itself)."""
    created: dict[str, str] = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "medium"}] * (players - 1),
         "name": "Anastasia", "options": {"first_player": 0}},
    )  # fmt: skip
    return created


def _show(page: Page, game: Game) -> None:
    """The table page shows `game` as its seat 0 sees it (the engine's view and legal moves,
    as the server sends them), as a newer state of its own table."""
    before = version(page)
    page.evaluate(
        """([view, legal]) => {
        const table = gotown.table();
        table.update({ ...structuredClone(table.state), version: table.state.version + 1,
                       status: view.over ? "over" : "playing", view, legal, events_from: 0 });
      }""",
        [game.view(0).to_json(), [a.to_json() for a in game.legal_actions()]],
    )
    wait_newer(page, before)


OUTSIDE = """(selectors) => {
  const w = document.documentElement.clientWidth, h = document.documentElement.clientHeight;
  const out = [];
  for (const sel of selectors) for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.left < 0 || r.top < 0 || r.right > w + 0.5 || r.bottom > h + 0.5)
      out.push(sel + " " + (el.id || el.dataset.card || el.dataset.seat || "") + " at "
        + [r.left, r.top, r.right, r.bottom].map(Math.round));
  }
  return { out, scrolled: window.scrollY, wider: document.documentElement.scrollWidth - w };
}"""
TURN = ["#hand .card", "#actions button", "#hint", "#towers .seatbox", "#strip", "#discard-pile"]


def _inside(page: Page, selectors: list[str], where: str) -> None:
    found = page.evaluate(OUTSIDE, selectors)
    assert not found["out"] and found["scrolled"] == 0 and found["wider"] <= 0, (where, found)


#: The page's animations that end (not the glow's pulse), ended.
FINISHED = """() => Promise.all(document.getAnimations()
  .filter((a) => a.effect.getTiming().iterations !== Infinity).map((a) => a.finished))"""
POSITIONS = """(selectors) => [...document.querySelectorAll(selectors)].map((el) => {
  const r = el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })"""


def _notice_moves_nothing(page: Page, where: str) -> None:
    """A notice (a move aimed at the player) floats over the top bar: nothing moves."""
    parts = ", ".join([*TURN, "#app", ".topbar"])
    before = page.evaluate(POSITIONS, parts)
    page.evaluate("gotown.toast(gotown.t('log_jackhammer_tyou', { actor: 'Bartholomew' }), true)")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.evaluate(POSITIONS, parts) == before, where
    # It lies on the top bar, and covers no card of the hand and no button.
    covered = page.evaluate(
        """() => {
        const t = document.querySelector('#toast').getBoundingClientRect();
        const bar = document.querySelector('.topbar').getBoundingClientRect();
        const under = (el) => { const r = el.getBoundingClientRect();
          return r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom; };
        const hit = [...document.querySelectorAll('#hand .card, #hand-panel button')].filter(under);
        return { onBar: t.top >= bar.top && t.top < bar.bottom, hit: hit.map((el) => el.id) }; }"""
    )
    assert covered == {"onBar": True, "hit": []}, (where, covered)
    page.evaluate("document.querySelector('#toast').click()")
    page.wait_for_selector("#toast", state="hidden")


def _widest_choice(game: Game) -> str:
    """The card of the hand that offers the most moves (the most buttons)."""
    uses = Counter(
        code
        for a in game.legal_actions()
        for code in {*(a.to_json().get("cards") or []), a.to_json().get("card"), a.type}
        if code in game.view(0).hand
    )
    return uses.most_common(1)[0][0]


def _context(browser: Browser, screen: str, lang: str) -> BrowserContext:
    width, height = SCREENS[screen]
    touch = screen != "laptop"
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=touch, has_touch=touch
    )
    context.add_init_script(f"localStorage.setItem('gotown.lang', '{lang}')")
    return context


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_every_card_and_button_of_a_turn_is_on_the_screen_at_every_tower_height(
    browser: Browser, server_url: str, screen: str, lang: str
) -> None:
    context = _context(browser, screen, lang)
    page = context.new_page()
    for players in (2, 4):
        page.goto(_table(server_url, players)["play_url"])
        page.wait_for_selector("#status.mine")
        for floors, hand in ((0, 5), (2, 8), (4, 12)):
            where = f"{screen} {lang}: {players} players, {floors} floors, {hand} cards"
            game = _game(players, floors, hand)
            _show(page, game)
            assert page.locator("#hand .card").count() == hand
            assert page.locator("#last-move li").count() >= 1, where  # what just happened
            _inside(page, TURN, where)
            # A card chosen (the one with the most moves): its buttons too.
            code = _widest_choice(game)
            page.evaluate(f"document.querySelector('#hand .card[data-card=\"{code}\"]').click()")
            page.wait_for_selector("#actions .act")
            _inside(page, [*TURN, ".glow"], where + ", " + code + " chosen")
            _notice_moves_nothing(page, where)
            if floors == 4 and lang != "de":
                page.evaluate(FINISHED)  # (the new floors have popped in)
                name = f"web-one-screen-{screen}-{lang}-{players}p.png"
                page.screenshot(path=str(ARTIFACTS / name))
        # The end (a bot won): the outcome, "Play again" and every hand, on the same screen.
        hands = [game.view(seat).hand for seat in range(players)]
        page.evaluate(
            """([view, hands]) => {
            const table = gotown.table();
            table.update({ ...structuredClone(table.state), version: table.state.version + 1,
              status: "over", view: { ...view, over: true, winner: 1, reason: "win", hands },
              legal: [], events_from: 0 });
          }""",
            [game.view(0).to_json(), hands],
        )
        page.wait_for_selector("#winner")
        end = ["#winner", "#rematch", "#hand .card", ".shown-hand .mini", "#towers .seatbox"]
        _inside(page, end, f"{screen} {lang}: the end of {players}")
    context.close()


def _follow_marks(page: Page, where: str | None) -> None:
    """Make the lesson's step by its marks (its cards, then its target or button), by clicks
    that scroll nothing; with `where`, check after each that the step's marks, targets and
    buttons are on the screen."""
    for _ in range(4):
        if page.locator("#lesson-feedback.right").count():
            return
        page.evaluate("document.querySelector('.lesson-pick').click()")
        page.wait_for_function(
            "document.querySelector('#lesson-feedback.right')"
            " || (!gotown.table().busy && document.querySelector('.lesson-pick'))"
        )
        if where is not None:
            _inside(page, ["#lesson-say", ".lesson-pick", ".glow", "#actions button"], where)
    page.wait_for_selector("#lesson-feedback.right")


@pytest.mark.parametrize("screen", list(SCREENS))
def test_each_lesson_s_move_is_on_the_screen(
    browser: Browser, server_url: str, screen: str
) -> None:
    """Every step of the guided game: the cards it marks, its target once they are chosen,
    "End turn" and the lesson's sentence, inside the screen (French: the longest sentences)."""
    context = _context(browser, screen, "fr")
    page = context.new_page()
    for lesson in lessons.LESSONS:
        page.goto(f"{server_url}/learn/{lesson.id}")
        for step in range(len(lesson.steps)):
            page.wait_for_selector("#lesson-say")
            page.wait_for_function(f"gotown.table().step && gotown.table().step.step === {step}")
            where = f"{screen}: lesson {lesson.id}, step {step}"
            _inside(page, ["#lesson-say", ".lesson-pick", "#hand .card", "#end-turn"], where)
            _follow_marks(page, where)
            _inside(page, ["#lesson-next", "#lesson-feedback"], where + ", made")
            page.evaluate("document.querySelector('#lesson-next').click()")
            if step + 1 < len(lesson.steps):
                page.wait_for_selector("#lesson-feedback", state="detached")
    context.close()


def test_a_notice_leaves_with_its_lesson_step_and_is_not_shown_at_the_end(
    browser: Browser, server_url: str
) -> None:
    """A notice of one lesson's step (a greyed card tapped: what it does) stays off the
    lesson's sentence once the page is scrolled, and is gone at the next step; at a table, a
    move aimed at the player that ends the game is told by the end, not in a notice over it."""
    en = strings("en")
    short = {"width": 360, "height": 560}  # (a page taller than the screen: it scrolls)
    context = browser.new_context(viewport=short, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server_url}/learn/build")
    page.wait_for_selector("#lesson-say")
    page.evaluate("document.querySelector('#hand .card[aria-disabled=\"true\"]').click()")
    page.wait_for_selector("#toast:not([hidden])")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    apart = page.evaluate(
        """() => { const t = document.querySelector('#toast').getBoundingClientRect();
        const say = document.querySelector('#lesson').getBoundingClientRect();
        return { scrolled: scrollY, apart: t.bottom <= say.top || say.bottom <= t.top }; }"""
    )
    assert apart["scrolled"] > 0 and apart["apart"], apart
    page.evaluate("window.scrollTo(0, 0)")
    context.close()
    context = _context(browser, "phone-390", "en")
    page = context.new_page()
    page.goto(f"{server_url}/learn/build")
    page.wait_for_selector("#lesson-say")
    page.evaluate("document.querySelector('#hand .card[aria-disabled=\"true\"]').click()")
    page.wait_for_selector("#toast:not([hidden])")
    _follow_marks(page, None)
    page.evaluate("document.querySelector('#lesson-next').click()")
    page.wait_for_function("gotown.table().step.lesson !== 'build'")
    assert page.locator("#toast").is_hidden()

    page.goto(_table(server_url, 2)["play_url"])
    page.wait_for_selector("#status.mine")
    game = _game(2, 4, 8)
    _show(page, game)
    page.evaluate(
        """() => {
        const table = gotown.table();
        const st = structuredClone(table.state);
        st.version += 1;
        st.status = "over";
        st.view.over = true; st.view.winner = 1; st.view.reason = "win";
        st.view.events.push({ type: "action", seat: 1, action: { type: "jackhammer", target: 0 } },
                            { type: "end", winner: 1, reason: "win" });
        table.update(st);
      }"""
    )
    page.wait_for_selector("#winner")
    assert page.locator("#toast").is_hidden()
    assert en["log_jackhammer_tyou"].split("{actor}")[1] in (page.text_content("#log") or "")
    context.close()
