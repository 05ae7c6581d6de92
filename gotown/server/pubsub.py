"""Fan-out of "game X changed" notices, in one process or across processes.

Only a small notice travels (game id, version, what changed): no card, no view. Each WebSocket
connection then builds its own seat's view. The backend is chosen by URL through `broadcaster`:
``memory://`` (default, one process) or ``redis://host:port`` (several processes).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from broadcaster import Broadcast


@dataclass(frozen=True)
class Notice:
    game_id: str
    version: int
    change: str  # "action" | "lobby" | "presence"

    def to_message(self) -> str:
        return json.dumps({"game_id": self.game_id, "version": self.version, "change": self.change})

    @classmethod
    def from_message(cls, message: str) -> Notice:
        data: dict[str, Any] = json.loads(message)
        return cls(str(data["game_id"]), int(data["version"]), str(data["change"]))


def _channel(game_id: str) -> str:
    return f"gotown.game.{game_id}"


class PubSub:
    def __init__(self, url: str) -> None:
        self._broadcast = Broadcast(url)
        self._connected = False

    async def connect(self) -> None:
        await self._broadcast.connect()
        self._connected = True

    async def disconnect(self) -> None:
        if self._connected:
            self._connected = False
            await self._broadcast.disconnect()

    async def publish(self, notice: Notice) -> None:
        await self._broadcast.publish(channel=_channel(notice.game_id), message=notice.to_message())

    @asynccontextmanager
    async def subscribe(self, game_id: str) -> AsyncIterator[AsyncIterator[Notice]]:
        async with self._broadcast.subscribe(channel=_channel(game_id)) as subscriber:

            async def notices() -> AsyncIterator[Notice]:
                async for event in subscriber:  # type: ignore[union-attr]
                    if event is not None:
                        yield Notice.from_message(event.message)

            yield notices()
