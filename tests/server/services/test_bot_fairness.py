"""Tables of bots only cannot hold up the bots that play against people."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.bots import make_bot
from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.services.bots import Bots

from ..helpers import new_game, wait_until
from .test_deadlines import DAY, advance, paced_table


class SlowBots:
    """Bots that think until released, at the tables ``slow(live)`` picks (as slow `expert`
    tables would); a ``random`` bot elsewhere. ``thinking`` counts those thinking."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, slow: Callable[[Any], bool]) -> None:
        self.release = threading.Event()
        self.thinking = threading.Semaphore(0)
        watched = self

        class SlowBot:
            def choose(self, view: Any, legal: Any) -> Any:
                watched.thinking.release()
                watched.release.wait(timeout=60)
                return legal[-1]

        def bot_for(bots: Bots, live: Any, seat: int) -> Any:
            return SlowBot() if slow(live) else make_bot("random", seed=seat)

        monkeypatch.setattr(Bots, "bot_for", bot_for)


def test_tables_of_bots_only_never_hold_up_a_bot_facing_a_person(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Anyone may start tables of bots only, as many as the rate limit allows. Here their bots
    # think for as long as the test wants (as many slow `expert` tables would): more of them
    # than the bots' workers must still leave a person's table its bot.
    bots = SlowBots(monkeypatch, lambda live: all(s.kind == "bot" for s in live.stored.seats))
    release, thinking = bots.release, bots.thinking
    try:
        for seed in (1, 2, 3):
            new_game(client, ["bot", "bot"], seed=seed)
        assert thinking.acquire(timeout=30)  # a table of bots only is thinking
        gid, tokens = new_game(client, ["bot", "human"], seed=4, options={"first_player": 0})
        st = wait_until(client, gid, tokens[1], lambda s: s["view"]["active"] == 1)
        assert any(e["type"] == "action" and e["seat"] == 0 for e in st["view"]["events"])
        # The tables of bots only wait their turn in their own worker: one thinks, the rest
        # wait for it, none of them in the workers of tables with people.
        assert not thinking.acquire(timeout=0.2)
    finally:
        release.set()


def test_turn_based_tables_bots_never_hold_up_a_live_tables_bot(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A burst of missed turns (a thousand deadlines due in the same minute) sets as many
    # stand-ins thinking: they think in the turn-based tables' own worker, one at a time, and
    # a live table's bot against a person moves meanwhile.
    bots = SlowBots(monkeypatch, lambda live: live.stored.pace is not None)
    release, thinking = bots.release, bots.thinking
    with TestClient(create_app(settings.with_(test_clock=True))) as client:
        try:
            for seed in (1, 2, 3):
                paced_table(client, seed=seed, on_timeout="bot:medium")
            advance(client, DAY + 1)  # the three deadlines fall due: three stand-ins
            assert thinking.acquire(timeout=30)  # one thinks
            gid, tokens = new_game(client, ["bot", "human"], seed=4, options={"first_player": 0})
            st = wait_until(client, gid, tokens[1], lambda s: s["view"]["active"] == 1)
            assert any(e["type"] == "action" and e["seat"] == 0 for e in st["view"]["events"])
            # The others wait for it in their worker, none in the live tables' workers.
            assert not thinking.acquire(timeout=0.2)
        finally:
            release.set()
