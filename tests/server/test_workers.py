"""Bot decisions and estimates in worker processes (``gotown/server/workers.py``), the server's
default: the same moves as in threads, at a lower priority, and a worker that dies costs one
decision, not the table."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from gotown.engine import Action, Game
from gotown.server import service as service_module
from gotown.server.settings import Settings
from gotown.server.workers import Workers

from .conftest import auth, new_game, play_to_end, running, wait_until


def _settings(tmp_path: Path, *, processes: bool) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'gotown.sqlite3'}",
        bot_delay=0,
        rate_limit_per_minute=0,
        allow_seed=True,
        worker_processes=processes,
    )


def _pid_and_niceness() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def test_process_workers_run_apart_at_a_lower_priority_and_threads_run_here() -> None:
    async def main() -> None:
        processes = Workers("test", 1, processes=True, niceness=3)
        threads = Workers("test", 1, processes=False, niceness=3)
        try:
            pid, niceness = await processes.submit(_pid_and_niceness)
            assert pid != os.getpid()
            assert niceness == min(19, os.nice(0) + 3)
            assert await threads.submit(_pid_and_niceness) == (os.getpid(), os.nice(0))
        finally:
            processes.shutdown()
            threads.shutdown()

    asyncio.run(main())


def test_a_worker_that_dies_fails_its_call_and_the_next_call_gets_a_new_worker() -> None:
    async def main() -> None:
        workers = Workers("test", 1, processes=True)
        try:
            first, _ = await workers.submit(_pid_and_niceness)
            with pytest.raises(BrokenProcessPool):
                await workers.submit(os._exit, 3)  # the worker process ends at once
            again, _ = await workers.submit(_pid_and_niceness)
            assert again not in (first, os.getpid())
        finally:
            workers.shutdown()

    asyncio.run(main())


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (waiting up to 15 s, bounded by count)."""
    for _ in range(300):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if Path(f"/proc/{pid}/stat").is_file() and ") Z " in Path(f"/proc/{pid}/stat").read_text():
            return True  # ended, not yet reaped by its (new) parent
        time.sleep(0.05)
    return False


def test_shutting_down_ends_a_worker_in_the_middle_of_its_work() -> None:
    async def main() -> int:
        workers = Workers("test", 1, processes=True)
        pid, _ = await workers.submit(_pid_and_niceness)
        busy = workers.submit(time.sleep, 60)
        await asyncio.sleep(0.2)
        workers.shutdown()
        with pytest.raises((BrokenProcessPool, asyncio.CancelledError)):
            await busy
        return pid

    assert _gone(asyncio.run(main()))


SERVER = """
import asyncio, os, sys, time
from gotown.server.workers import Workers

async def main():
    workers = Workers("test", 1, processes=True)
    print(await workers.submit(os.getpid), flush=True)
    time.sleep(60)

asyncio.run(main())
"""


def test_a_worker_ends_when_its_server_is_killed() -> None:
    """A server killed outright (no shutdown) leaves no worker waiting for work for ever."""
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert not _gone_now(worker)
        server.kill()
        server.wait(10)
        assert _gone(worker)
    finally:
        server.kill()


def _gone_now(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _record(tmp_path: Path, *, processes: bool) -> list[dict[str, Any]]:
    """The actions of one game of a person (a fixed quick player) against two `easy` bots."""
    tmp_path.mkdir()
    with running(_settings(tmp_path, processes=processes)) as client:
        gid, tokens = new_game(client, ["human", "bot", "bot"], seed=31, level="easy")
        play_to_end(client, gid, tokens, seed=5)
        replay = client.get(f"/api/games/{gid}/replay", headers=auth(tokens[0])).json()
    return [frame["action"] for frame in replay["frames"][1:]]


def test_bots_in_worker_processes_play_the_moves_they_play_in_threads(tmp_path: Path) -> None:
    """The same seed gives the same moves: the bot's random state comes back from the worker
    with its answer (a bot sent afresh each time would repeat its first random draws)."""
    in_processes = _record(tmp_path / "processes", processes=True)
    in_threads = _record(tmp_path / "threads", processes=False)
    assert len(in_processes) > 20
    assert in_processes == in_threads


def test_the_hint_and_the_chances_come_from_a_worker_process(tmp_path: Path) -> None:
    with running(_settings(tmp_path, processes=True)) as client:
        gid, tokens = new_game(client, ["human", "bot"], seed=12, level="medium")
        st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
        hint = client.get(f"/api/games/{gid}/hint", headers=auth(tokens[0]))
        assert hint.status_code == 200, hint.text
        hints = hint.json()["hints"]
        assert hints and all(h["action"] in st["legal"] for h in hints)
        assert all(0.0 <= h["win_probability"] <= 1.0 for h in hints)
        chances = client.get(f"/api/games/{gid}/chances", headers=auth(tokens[0])).json()
        assert chances["basis"] == "turn"
        assert chances["win_probability"] == hints[0]["win_probability"]


def _dying_choose(bot: Any, game: Game, seat: int, legal: Any) -> tuple[Action, Any]:
    os._exit(3)  # as a worker killed in the middle of a decision


def test_a_bot_whose_worker_dies_still_moves_and_the_next_decision_gets_a_new_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with running(_settings(tmp_path, processes=True)) as client:
        monkeypatch.setattr(service_module, "_choose", _dying_choose)
        gid, tokens = new_game(
            client, ["human", "bot"], seed=22, level="medium", options={"first_player": 1}
        )
        # The bot's move is the table's seeded fallback: the game goes on.
        st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
        assert any(e["type"] == "action" and e["seat"] == 1 for e in st["view"]["events"])
        monkeypatch.undo()
        version = st["version"]
        end = {"type": "end-turn"}
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": version, "action": end},
            headers=auth(tokens[0]),
        )
        assert r.status_code == 200, r.text
        # The next decision runs in a new worker, with the bot's own choice.
        after = wait_until(
            client,
            gid,
            tokens[0],
            lambda s: (
                s["status"] == "over" or (s["view"]["active"] == 0 and s["version"] > version + 1)
            ),
        )
        assert after["version"] > version + 1
        # Only the decision whose worker died failed (a broken pool kept would fail them all).
        failed = [
            r for r in caplog.records if r.getMessage().startswith("the bot of seat 1 failed")
        ]
        assert len(failed) == 1


def test_workers_get_a_seats_view_and_never_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever runs in a worker process (the bots, the hint) is sent no game: nothing
    reachable from what it gets holds the hidden cards (R22)."""
    sent: list[tuple[Any, ...]] = []
    real_submit = Workers.submit

    def recording(self: Workers, fn: Any, *args: Any) -> Any:
        sent.append((fn, *args))
        return real_submit(self, fn, *args)

    monkeypatch.setattr(Workers, "submit", recording)
    with running(_settings(tmp_path, processes=True)) as client:
        gid, tokens = new_game(client, ["human", "bot", "bot"], seed=8, level="easy")
        wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
        assert client.get(f"/api/games/{gid}/hint", headers=auth(tokens[0])).status_code == 200
        play_to_end(client, gid, tokens, seed=2)
    names = [getattr(call[0], "func", call[0]).__name__ for call in sent]
    assert names.count("_choose") >= 4 and "_hints" in names
    seen: set[int] = set()
    todo: list[object] = list(sent)
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        assert not isinstance(item, Game)
        todo.extend(gc.get_referents(item))
