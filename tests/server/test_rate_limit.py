"""The API's rate limit: per client address, in memory (one process) or in the Redis that
several processes share, failing open when that Redis is down."""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from limits.aio.strategies import MovingWindowRateLimiter

from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.middleware import ApiRateLimit

from .helpers import (
    REDIS_URL,
    new_game,
    next_state,
)

#: Nothing listens there: a Redis that is down.
DOWN_REDIS_URL = "redis://127.0.0.1:1/15"
LOGGER = "gotown.server.middleware"


def _refused(r: Any) -> int:
    """The 429 with its JSON error; answers its Retry-After (seconds)."""
    assert r.status_code == 429, r.text
    body = r.json()
    assert body["error"]["code"] == "too-many-requests", body
    assert body["error"]["message"]
    retry_after = int(r.headers["retry-after"])
    assert 1 <= retry_after <= 60, retry_after
    return retry_after


@contextmanager
def running_from(settings: Settings, address: str) -> Iterator[TestClient]:
    """An app whose requests all come from this client address."""
    with TestClient(create_app(settings), client=(address, 50000)) as client:
        yield client


@pytest.fixture
def redis_client() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def new_address(redis_client: redis.Redis) -> Iterator[Callable[[], str]]:
    """Client addresses of this test's own (the test Redis is shared by the whole suite, and
    by earlier runs): their counts in Redis are deleted at the end."""
    made: list[str] = []

    def make() -> str:
        made.append(f"test-{uuid.uuid4().hex}")
        return made[-1]

    yield make
    for address in made:
        for key in redis_client.scan_iter(match=_key(address, "*")):
            redis_client.delete(key)


def _key(address: str, per_minute: int | str) -> str:
    """Where ApiRateLimit keeps an address's requests in Redis."""
    return f"gotown.ratelimit:api/{address}/{per_minute}/1/minute"


def _errors(caplog: pytest.LogCaptureFixture, level: int = logging.ERROR) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == level]


# --- in one process (memory://) ------------------------------------------------------------------


def test_the_request_after_the_limit_is_refused_with_retry_after(database_url: str) -> None:
    settings = Settings(database_url=database_url, bot_delay=0, rate_limit_per_minute=5)
    with TestClient(create_app(settings)) as client:
        assert [client.get("/api/meta").status_code for _ in range(5)] == [200] * 5
        _refused(client.get("/api/meta"))
        # Every API path draws on the same budget, a POST too (before its body is looked at).
        _refused(client.post("/api/games", json={"seats": [{"kind": "human"}] * 2}))
        _refused(client.get("/api/games/nope/state"))
        # Pages, static files and the health check are not limited.
        for path in ("/", "/static/js/main.js", "/static/style.css", "/rules/en", "/healthz"):
            assert client.get(path).status_code == 200, path
        _refused(client.get("/api/meta"))


def test_each_address_has_its_own_budget(database_url: str) -> None:
    settings = Settings(database_url=database_url, bot_delay=0, rate_limit_per_minute=2)
    app = create_app(settings)

    async def from_header(scope: Any, receive: Any, send: Any) -> None:
        """The app, with each request's client address taken from its X-Test-Client."""
        if scope["type"] == "http":
            address = dict(scope["headers"]).get(b"x-test-client", b"?").decode()
            scope = {**scope, "client": (address, 1000)}
        await app(scope, receive, send)

    with TestClient(from_header) as client:
        one, two = {"X-Test-Client": "10.0.0.1"}, {"X-Test-Client": "10.0.0.2"}
        assert [client.get("/api/meta", headers=one).status_code for _ in range(2)] == [200] * 2
        _refused(client.get("/api/meta", headers=one))
        assert [client.get("/api/meta", headers=two).status_code for _ in range(2)] == [200] * 2
        _refused(client.get("/api/meta", headers=two))
        _refused(client.get("/api/meta", headers=one))


@pytest.mark.parametrize("per_minute", [0, -1])
def test_a_limit_of_zero_or_less_disables_it(database_url: str, per_minute: int) -> None:
    settings = Settings(database_url=database_url, bot_delay=0, rate_limit_per_minute=per_minute)
    with TestClient(create_app(settings)) as client:
        codes = [client.get("/api/meta").status_code for _ in range(30)]
        assert codes == [200] * 30


# --- several processes sharing one Redis ---------------------------------------------------------


def test_apps_sharing_a_redis_share_each_address_budget(
    settings: Settings, new_address: Callable[[], str], redis_client: redis.Redis
) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL, rate_limit_per_minute=5)
    address, other = new_address(), new_address()
    with running_from(shared, address) as a, running_from(shared, address) as b:
        assert [a.get("/api/meta").status_code for _ in range(3)] == [200] * 3
        assert [b.get("/api/meta").status_code for _ in range(2)] == [200] * 2
        # The counts are in Redis: one list of the last 5 request times for this address.
        key = _key(address, 5)
        assert redis_client.llen(key) == 5
        oldest = float(redis_client.lindex(key, -1))
        before = time.time()
        retry_after = _refused(a.get("/api/meta"))
        after = time.time()
        # Retry-After: when the oldest of the 5 leaves the 60-second window.
        assert math.ceil(oldest + 60 - after) <= retry_after <= math.ceil(oldest + 60 - before)
        _refused(b.get("/api/meta"))
        _refused(a.get("/api/meta"))
        assert redis_client.llen(key) == 5  # refusals are not counted
        # Another address, through either app, has a budget of its own.
        with running_from(shared, other) as c:
            assert c.get("/api/meta").status_code == 200
        assert redis_client.llen(_key(other, 5)) == 1
        assert a.get("/").status_code == 200  # pages are not limited


def test_a_redis_outage_serves_every_request_and_is_logged_once(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    down = settings.with_(broadcast_url=DOWN_REDIS_URL, rate_limit_per_minute=2)
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    with running_from(down, "10.9.9.9") as client:
        codes = [client.get("/api/meta").status_code for _ in range(6)]
        assert codes == [200] * 6  # fail open: more than the limit, and nothing crashed
        created = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"})
        assert created.status_code == 201, created.text
    [error] = _errors(caplog)
    assert "rate limit" in error and "127.0.0.1:1/15" in error


def test_the_limiter_waits_out_an_outage_then_limits_again(
    new_address: Callable[[], str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While Redis does not answer, requests pass without waiting on it (tried again at most
    every ``outage_retry`` seconds); once it answers, the counts kept in Redis apply again."""
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    address = new_address()
    real_hit = MovingWindowRateLimiter.hit
    tries: list[str] = []

    async def broken_hit(self: MovingWindowRateLimiter, *args: Any, **kwargs: Any) -> bool:
        tries.append("hit")
        raise redis.ConnectionError("Redis is down (in this test)")

    async def scenario() -> None:
        patient = ApiRateLimit(2, REDIS_URL, outage_retry=3600)
        eager = ApiRateLimit(2, REDIS_URL, outage_retry=0)  # another process, say
        try:
            assert [await patient.hit(address) for _ in range(2)] == [None, None]
            assert await patient.hit(address) is not None  # refused
            monkeypatch.setattr(MovingWindowRateLimiter, "hit", broken_hit)
            assert [await patient.hit(address) for _ in range(5)] == [None] * 5  # fail open
            assert tries == ["hit"]  # not tried again before outage_retry seconds
            assert len(_errors(caplog)) == 1
            caplog.clear()
            assert [await eager.hit(address) for _ in range(3)] == [None] * 3
            assert tries == ["hit"] * 4  # tried each time, and served each time
            assert len(_errors(caplog)) == 1  # once per outage, not once per request
            assert len(_errors(caplog, logging.DEBUG)) == 2  # the later failed tries
            monkeypatch.setattr(MovingWindowRateLimiter, "hit", real_hit)
            wait = await eager.hit(address)  # Redis answers: the 2 counted requests apply
            assert wait is not None and 1 <= wait <= 60
            [recovered] = _errors(caplog, logging.WARNING)
            assert "answers again" in recovered
            assert await eager.hit(address) is not None
            assert len(_errors(caplog, logging.WARNING)) == 1
        finally:
            await patient.close()
            await eager.close()

    asyncio.run(scenario())


def test_an_unknown_storage_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        ApiRateLimit(5, "memcached://127.0.0.1:11211")


def test_socket_connections_count_against_each_address_s_rate_limit(settings: Settings) -> None:
    limited = settings.with_(rate_limit_per_minute=3)
    with TestClient(create_app(limited), client=("10.0.0.7", 50000)) as client:
        gid, _tokens = new_game(client, ["bot", "bot"], seed=65, options={"turn_limit": 2})
        for _ in range(2):  # the creation, and two sockets: the budget of 3
            with client.websocket_connect(f"/ws/games/{gid}") as ws:
                ws.send_json({"token": None})
                assert next_state(ws)["game_id"] == gid
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            error = ws.receive_json()
            assert error["type"] == "error", error
            assert error["error"]["code"] == "too-many-requests"
            assert "3 requests and connections in a minute" in error["error"]["message"]
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 4429, closing
            assert "wait" in closing["reason"]
        r = client.get("/api/meta")
        assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-requests"
