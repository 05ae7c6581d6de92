"""The Redis pools of a process are bounded and wait for a free connection: a burst of notices,
presence writes and rate-limit counts larger than the pool is served, none lost to "too many
connections"."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from gotown.server.middleware import ApiRateLimit
from gotown.server.pubsub import Notice, PubSub
from gotown.server.redis_link import blocking_pool
from gotown.server.redis_presence import RedisPresence

from .helpers import REDIS_URL

BURST = 40


def test_redis_py_default_pool_fails_at_once_when_full_and_the_blocking_one_waits() -> None:
    """The premise: a bounded pool of redis-py's own kind refuses the call one over its size at
    once; :func:`blocking_pool` makes it wait for a connection instead."""

    key = f"pool-nothing-{secrets.token_hex(4)}"

    async def burst(pool: object) -> list[BaseException | None]:
        client = aioredis.Redis.from_pool(pool)  # type: ignore[arg-type]
        try:
            return await asyncio.gather(  # (each holds its connection for 0.1 s)
                *(client.blpop([key], timeout=0.1) for _ in range(4)),
                return_exceptions=True,
            )
        finally:
            await client.aclose()

    eager = aioredis.ConnectionPool.from_url(REDIS_URL, max_connections=1)
    refused = asyncio.run(burst(eager))
    assert any(isinstance(r, RedisConnectionError) for r in refused), refused
    waited = asyncio.run(burst(blocking_pool(REDIS_URL, size=1, timeout=5)))
    assert not any(isinstance(r, BaseException) for r in waited), waited


def test_a_pool_of_one_serves_a_burst_of_notices_presence_and_counts() -> None:
    game = f"pool-{secrets.token_hex(4)}"

    async def scenario() -> None:
        sender = PubSub(REDIS_URL, pool_size=1)
        listener = PubSub(REDIS_URL, pool_size=1)
        presence = RedisPresence(REDIS_URL, ttl=15, keep=60, pool_size=1)
        limit = ApiRateLimit(BURST * 2, REDIS_URL, pool_size=1, timeout=5)
        await sender.connect()
        await listener.connect()
        try:
            async with listener.subscribe(game) as notices:
                await asyncio.sleep(0.2)  # (the subscription reaches Redis)
                await asyncio.gather(
                    *(sender.publish(Notice(game, v, "action", sender.id)) for v in range(BURST)),
                    *(presence.refresh(game, {f"c{i}": i % 4}) for i in range(BURST)),
                    *(limit.hit(f"10.0.0.{i % 3}") for i in range(BURST)),
                )
                got = []
                async for notice in notices:
                    got.append(notice.version)
                    if len(got) == BURST:
                        break
            assert sorted(got) == list(range(BURST))  # every notice arrived
            snapshot = await presence.read(game)
            assert snapshot.connected == frozenset(range(4))  # every write was made
            assert presence._link.healthy and limit._link.healthy  # no call failed
        finally:
            await sender.disconnect()
            await listener.disconnect()
            await presence.close()
            await limit.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))


@pytest.mark.parametrize("size", [0, -1])
def test_the_pool_size_setting_must_be_positive(size: int) -> None:
    from gotown.server.config import SettingError, Settings

    with pytest.raises(SettingError, match="redis_pool_size"):
        Settings(redis_pool_size=size)
