"""Notices through Redis (:class:`gotown.server.pubsub.PubSub`)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator

from gotown.server.pubsub import Notice, PubSub

from .helpers import REDIS_URL

GAMES = 60


def test_subscriptions_opened_all_at_once_each_hear_their_game() -> None:
    """PubSub.subscribe: sockets of many games opening together, each then hears its notice."""
    games = [f"at-once-{secrets.token_hex(4)}" for _ in range(GAMES)]

    async def scenario() -> None:
        sender, listener = PubSub(REDIS_URL), PubSub(REDIS_URL)
        await sender.connect()
        await listener.connect()
        try:
            async with contextlib.AsyncExitStack() as stack:

                async def subscribed(game: str) -> AsyncIterator[Notice]:
                    return await stack.enter_async_context(listener.subscribe(game))

                streams = await asyncio.gather(*(subscribed(game) for game in games))
                await asyncio.sleep(0.3)  # (the subscriptions reach Redis)
                for game in games:
                    await sender.publish(Notice(game, 1, "action", sender.id))

                async def first(stream: AsyncIterator[Notice]) -> str | None:
                    try:
                        return (await asyncio.wait_for(anext(stream), 5)).game_id
                    except TimeoutError:
                        return None

                heard = await asyncio.gather(*(first(stream) for stream in streams))
            assert heard == games
        finally:
            await sender.disconnect()
            await listener.disconnect()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_notices_cross_processes_through_redis() -> None:
    """Two PubSub instances stand for two server processes sharing a Redis."""

    async def scenario() -> Notice:
        one, two = PubSub(REDIS_URL), PubSub(REDIS_URL)
        await one.connect()
        await two.connect()
        try:
            async with two.subscribe("g1") as notices:
                await asyncio.sleep(0.1)  # let the subscription reach Redis
                await one.publish(Notice("g1", 3, "action"))
                async for notice in notices:
                    return notice
        finally:
            await one.disconnect()
            await two.disconnect()
        raise AssertionError("no notice")

    assert asyncio.run(scenario()) == Notice("g1", 3, "action")
