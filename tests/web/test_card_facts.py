"""The page takes what the rules say of the cards and the moves, and its languages, from the
server (/api/meta, issue 43): a page served a changed card table shows the change, and its
code states none of it again."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route

from .fixtures import get, long_press, phone, post, strings, watch_errors

STATIC = Path(__file__).resolve().parents[2] / "gotown" / "server" / "static"
#: An operation or a comparison with the number 9 (the sum of a floor: R5), not in a number
#: such as 19, 0.9 or 1e-9.
NINE = re.compile(
    r"(?<![0-9]e)(?:[-+*/%]|[=!]==?|[<>]=?)\s*(?<![\w.#])9(?![\w.%])"
    r"|(?<![\w.#])9(?![\w.%])\s*(?:[-+*/%]|[=!]==?|[<>]=?)"
)
#: A rule number as a string ("R12"), a language code as one ("fr"), or a function of the
#: engine's card facts defined outside facts.js (the module that asks the server's).
RULE = re.compile(r"""["']R\d+\b""")
LANGUAGE = re.compile(r"""["'](?:fr|es|it|de|nl|cs|pl)["']""")
FACT_FUNCTIONS = re.compile(
    r"\b(?:function\s+|const\s+)(usesOf|pairOf|ruleOf|rulesOf|partnerOf|pairColourOf|"
    r"cardsPlayed|jokerValue|isNumber|isJoker)\b"
)


def _copies(path: Path) -> list[str]:
    """Where a module (its code, not its comments) states a card fact or a language itself."""
    code = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), path.read_text("utf-8"),
                  flags=re.S)  # fmt: skip
    code = re.sub(r"(?m)(^|\s)//[^\n]*", r"\1", code)
    found = []
    for pattern in (NINE, RULE, LANGUAGE, FACT_FUNCTIONS):
        for match in pattern.finditer(code):
            if pattern is FACT_FUNCTIONS and path.name == "facts.js":
                continue
            line = code.count("\n", 0, match.start()) + 1
            found.append(f"{path.name}:{line}: {match.group().strip()}")
    return found


def test_the_page_states_no_card_fact_or_language_of_its_own() -> None:
    modules = sorted((STATIC / "js").rglob("*.js"))
    assert len(modules) > 30
    assert [copy for path in modules for copy in _copies(path)] == []
    html = (STATIC / "index.html").read_text("utf-8")
    assert "<option" not in html  # (the languages' menu is filled from the server's)


def test_the_check_finds_the_copies_it_looks_for(tmp_path: Path) -> None:
    copy = tmp_path / "copy.js"
    copy.write_text(
        "/* 9 - n in a comment is no copy */\n"
        "const pairOf = (n) => Math.min(n, 9 - n);\n"
        'const RULE_OF = { dog: "R12" };\n'
        "const ok = a + b === 9, tiny = 1e-9, late = 19 - n;\n"
        'const LANGS = ["en", "fr"];\n'
    )
    found = {line.split(": ", 1)[1] for line in _copies(copy)}
    assert found == {"const pairOf", "9 -", '"R12', "=== 9", '"fr"'}


#: The server's facts, changed: the 1 pairs with the 4 and the 5 with the 8, the 3 takes the
#: 1's colour; the guard dog plays no card and follows rule R99; two languages only.
def _changed(meta: dict[str, Any]) -> dict[str, Any]:
    cards = {card["code"]: card for card in meta["cards"]}
    for a, b in (("1", "4"), ("5", "8")):
        cards[a]["partner"], cards[b]["partner"] = b, a
    cards["3"]["pair_colour"] = cards["1"]["pair_colour"]
    cards["dog"]["rules"] = ["R99"]
    meta["actions"]["dog"]["plays"] = None
    meta["languages"] = ["en", "de"]
    return meta


def _serve_changed_meta(page: Page) -> None:
    def change(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=json.dumps(_changed(response.json())))

    page.route("**/api/meta", change)


def _fill(page: Page, card: str) -> str:
    """The colour of the card `card` (a selector)'s face."""
    fill: str = page.evaluate(
        "(card) => document.querySelector(card + ' svg.face rect').getAttribute('fill')", card
    )
    return fill


@pytest.mark.browser
def test_a_changed_card_table_changes_the_table_and_the_rules_page(
    browser: Browser, server_url: str
) -> None:
    en = strings("en")
    # Seed 34 deals Ada, first to play, 1 3 4 6 8 and a dog; she builds 3+6 (the dog can
    # then guard it).
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "seed": 34,
         "options": {"first_player": 0}, "name": "Ada"},
    )  # fmt: skip
    game = f"/api/games/{created['game_id']}"
    state = get(server_url, game + "/state", created["token"])
    build = {"version": state["version"], "action": {"type": "build", "cards": ["3", "6"]}}
    post(server_url, game + "/actions", build, created["token"])
    context = phone(browser)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(created["play_url"])
    page.wait_for_selector("#status.mine")
    one, three = '#hand .card[data-card="1"]', '.floor .mini[data-card="3"]'
    assert _fill(page, three) != _fill(page, one)
    assert page.get_attribute('#hand .card[data-card="dog"]', "aria-disabled") == "false"
    langs = page.eval_on_selector_all("#lang option", "(os) => os.map((o) => o.textContent)")
    assert len(langs) == 8 and "Français" in langs and "Čeština" in langs

    _serve_changed_meta(page)
    page.reload()
    page.wait_for_selector("#status.mine")
    assert _fill(page, three) == _fill(page, one)  # R2: the pair colour is the server's
    use = en["use_number"].format(m="4", n="1")  # R5: so is the partner
    assert page.get_attribute(one, "title") == en["card_use"].format(card="1", use=use)
    # The dog plays no card now: greyed; its rule is the server's (a long press says it).
    assert page.get_attribute('#hand .card[data-card="dog"]', "aria-disabled") == "true"
    long_press(page, '#hand .card[data-card="dog"]')
    page.wait_for_selector("#card-info")
    assert "(R99)" in (page.text_content("#card-info") or "")
    langs = page.eval_on_selector_all("#lang option", "(os) => os.map((o) => o.value)")
    assert langs == ["en", "de"]

    page.goto(server_url + "/rules/en")
    page.wait_for_selector(".rules-pairs svg")
    pairs = page.eval_on_selector_all(
        ".rules-pairs .rules-cards",
        "(fs) => fs.map((f) => [...f.querySelectorAll('text.big')].map((t) => t.textContent))",
    )
    assert pairs == [["1", "4"], ["2", "7"], ["3", "6"], ["5", "8"], ["?", "8"]]
    assert not errors, errors
    context.close()
