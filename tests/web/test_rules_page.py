"""The rules page in a browser: the card pictures beside each rule and each worked example."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from .fixtures import phone, shot, watch_errors

pytestmark = pytest.mark.browser


def test_each_worked_example_shows_its_cards_as_the_table_draws_them(
    browser: Browser, server_url: str
) -> None:
    context = phone(browser)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server_url + "/rules/fr")
    page.wait_for_selector(".example .rules-cards")
    examples = page.evaluate(
        """() => [...document.querySelectorAll('.example')].map((ex) => ({
          codes: ex.dataset.cards.split(' '),
          faces: [...ex.querySelectorAll('.rules-cards .rules-card')].map((card) => {
            const svg = card.querySelector('svg');
            const big = svg && svg.querySelector('text.big');
            return { drawn: Boolean(svg && svg.childElementCount),
                     number: big ? big.textContent : null,
                     stands: svg && svg.querySelector('text.stands')?.textContent };
          }),
          text: ex.lastElementChild.textContent,
        }))"""
    )
    assert len(examples) == 11
    for example in examples:
        assert len(example["faces"]) == len(example["codes"]), example
        for code, face in zip(example["codes"], example["faces"], strict=True):
            card, _, value = code.partition("=")
            assert face["drawn"], (code, example["text"])
            assert face["number"] == (card if card in "12345678?" else None), code
            if value:
                assert face["stands"] == "=" + value  # a joker shows what it stands for
        assert example["text"].startswith("Exemple : ")
    # Each special card's item: its picture, its rule, then its example with its own cards.
    dog = page.locator('li[data-card="dog"]')
    assert dog.locator(":scope > .rules-cards svg").count() == 1
    assert dog.locator(".example .rules-card").count() == 3
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width  # no sideways scrolling on a phone
    shot(page, "web-rules-examples-phone-fr")
    assert not errors, errors
    context.close()
