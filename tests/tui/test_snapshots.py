"""The main screens at 80x24 as text (no colour, the clock masked), so that a layout change is
seen in review. Update them with ``pytest tests/tui --snapshot-update`` after a change meant."""

from __future__ import annotations

import pytest

from gotown.engine import Options
from gotown.tui.play import PlayApp
from gotown.tui.session import LocalSession, Setup

from .helpers import screen_text, wait_until

pytestmark = pytest.mark.anyio
SIZE = (80, 24)


async def test_two_players_at_the_start(snapshot):
    session = LocalSession(Setup(seed=3, options=Options(first_player=0)))
    async with PlayApp(session, speed=0.0).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_text(pilot.app) == snapshot


async def test_four_players_later_in_the_game(snapshot):
    session = LocalSession(Setup(players=4, bots=("medium",), seed=21))
    for _ in range(60):  # bots and the person's first choices, off screen
        seat = session.active
        choice = session.bot_choice(seat) if seat else session.legal(0)[0]
        session.play(seat, choice)
    async with PlayApp(session, speed=0.0).run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: session.active == 0 or session.is_over)
        await pilot.pause()
        assert screen_text(pilot.app) == snapshot


async def test_hand_over_screen(snapshot):
    session = LocalSession(Setup(people=2, names=("Ann", "Bob"), seed=5))
    async with PlayApp(session, speed=0.0).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_text(pilot.app) == snapshot


async def test_rules_screen(snapshot):
    session = LocalSession(Setup(seed=3, options=Options(first_player=0)))
    async with PlayApp(session, speed=0.0).run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert screen_text(pilot.app) == snapshot
        assert "(R22)" not in screen_text(pilot.app)
        await pilot.press("end")  # the page scrolls to its last line
        await wait_until(pilot, lambda: "(R22)" in screen_text(pilot.app), seconds=5)


async def test_end_of_a_game(snapshot):
    session = LocalSession(Setup(seed=9, bots=("easy",), options=Options(first_player=1)))
    while not session.is_over:
        seat = session.active
        session.play(seat, session.bot_choice(seat) if seat else session.legal(0)[0])
    async with PlayApp(session, speed=0.0).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_text(pilot.app) == snapshot
