"""``/metrics`` scraped while games are played: the actions counted by who made them, each other
seat's update timed (on the process that made the action, and on another one), the bots' think
time, the requests by route; and the small API turn-based tables and notices call."""

from __future__ import annotations

import random
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from gotown.server import metrics
from gotown.server.config import Settings

from .helpers import REDIS_URL, new_game, play_one, play_to_end, running, state, wait_until

TOKEN = "operator-token-for-tests-0123456789"


def _scrape(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics: (name, labels) -> value."""
    r = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200, r.text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(r.text)
        for sample in family.samples
    }


def _value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_game_played_is_counted(settings: Settings) -> None:
    with running(settings.with_(operator_token=TOKEN)) as client:
        before = _scrape(client)
        game_id, tokens = new_game(client, ["human", "human"], seed=61)
        with (
            client.websocket_connect(f"/ws/games/{game_id}") as zero,
            client.websocket_connect(f"/ws/games/{game_id}") as one,
        ):
            for ws, seat in ((zero, 0), (one, 1)):
                ws.send_json({"token": tokens[seat]})
                assert ws.receive_json()["type"] == "state"
            opened = _scrape(client)
            assert _value(opened, "gotown_sockets_open") == 2
            assert _value(opened, "gotown_tables_open", status="playing") >= 1
            rng = random.Random(1)
            played = 10
            for _ in range(played):
                version = play_one(client, game_id, tokens, rng)
                for ws in (zero, one):  # (each socket's update, sent before the next action)
                    while ws.receive_json()["state"]["version"] != version:
                        pass
        after = _scrape(client)
    made = _value(after, "gotown_actions_total", by="human")
    assert made - _value(before, "gotown_actions_total", by="human") == played
    # Each action: one update of the other seat's socket timed (not the actor's own).
    timed = _value(after, "gotown_update_seconds_count", made="here")
    assert timed - _value(before, "gotown_update_seconds_count", made="here") == played
    assert _value(after, "gotown_sockets_open") == 0
    route = "/api/games/{game_id}/actions"
    counted = _value(after, "gotown_http_requests_total", method="POST", route=route, status="200")
    assert (
        counted
        - _value(before, "gotown_http_requests_total", method="POST", route=route, status="200")
        == played
    )
    assert not any(game_id in str(key) for key in after)  # (no game's id in a label)


def test_bots_think_time_is_timed_by_level(settings: Settings) -> None:
    with running(settings.with_(operator_token=TOKEN)) as client:
        before = _scrape(client)
        game_id, tokens = new_game(client, ["human", "bot"], seed=62, level="easy")
        over = play_to_end(client, game_id, tokens)
        assert over["status"] == "over"
        after = _scrape(client)
    thought = _value(after, "gotown_bot_think_seconds_count", level="easy")
    bot_moves = _value(after, "gotown_actions_total", by="bot")
    assert thought - _value(before, "gotown_bot_think_seconds_count", level="easy") >= 1
    assert bot_moves - _value(before, "gotown_actions_total", by="bot") >= 1
    assert _value(after, "gotown_bot_decisions_pending") == 0


def test_an_update_from_another_process_is_timed_there(settings: Settings) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL, operator_token=TOKEN)
    with running(shared) as one, running(shared) as two:
        game_id, tokens = new_game(one, ["human", "human"], seed=63)
        with two.websocket_connect(f"/ws/games/{game_id}") as watcher:
            watcher.send_json({"token": None})
            assert watcher.receive_json()["state"]["version"] == 0
            before = _scrape(two)
            version = play_one(one, game_id, tokens, random.Random(2))
            while watcher.receive_json()["state"]["version"] != version:
                pass
            after = _scrape(two)
    elsewhere = _value(after, "gotown_update_seconds_count", made="elsewhere")
    assert elsewhere - _value(before, "gotown_update_seconds_count", made="elsewhere") == 1


def test_the_api_for_deadlines_and_notices() -> None:
    def value(name: str, **labels: str) -> float:
        for family in metrics.PROCESS_METRICS:
            for metric in family.collect():
                for sample in metric.samples:
                    if sample.name == name and sample.labels == labels:
                        return sample.value
        return 0.0

    due, late = value("gotown_deadlines_due_total"), value("gotown_deadlines_late_total")
    metrics.deadline_due(late_by=0.4)
    metrics.deadline_due(late_by=metrics.LATE_SECONDS + 1)
    assert value("gotown_deadlines_due_total") == due + 2
    assert value("gotown_deadlines_late_total") == late + 1
    sent = value("gotown_notices_total", channel="push", outcome="delivered")
    failed = value("gotown_notices_total", channel="email", outcome="retry")
    metrics.notice_result("push", "delivered")
    metrics.notice_result("email", "retry")
    assert value("gotown_notices_total", channel="push", outcome="delivered") == sent + 1
    assert value("gotown_notices_total", channel="email", outcome="retry") == failed + 1


def test_a_bots_only_table_counts_as_playing(settings: Settings) -> None:
    with running(settings.with_(operator_token=TOKEN, bot_delay=0.05)) as client:
        game_id, _ = new_game(client, ["bot", "bot"], seed=64)
        wait_until(client, game_id, None, lambda st: st["version"] >= 2)
        samples = _scrape(client)
        assert _value(samples, "gotown_tables_open", status="playing") >= 1
        assert _value(samples, "gotown_bot_tables_playing") >= 1
        assert state(client, game_id)["status"] == "playing"
