"""Bot decisions and estimates in worker processes (``gotown/server/workers.py``), the server's
default: the same moves as in threads, at a lower priority, only the seat's view sent, the
calls of a worker that died made again, and no worker left behind however the server ends."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from gotown.engine import Action, Game, View
from gotown.server.config import Settings
from gotown.server.services import bots as bots_module
from gotown.server.workers import Workers

from .helpers import auth, new_game, play_to_end, running, wait_until


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


def test_the_fork_server_started_at_the_start_forks_the_workers_made_later() -> None:
    """``gotown serve`` starts the fork server before it imports the server, so that it imports
    the bots meanwhile: the workers made later are its forks."""
    code = (
        "import asyncio, os\n"
        "from multiprocessing import forkserver\n"
        "from gotown.server.workers import Workers, start_fork_server\n"
        "start_fork_server()\n"
        "started = forkserver._forkserver._forkserver_pid\n"
        "async def main():\n"
        "    workers = Workers('test', 1, processes=True)\n"
        "    try: return await workers.submit(os.getppid)\n"
        "    finally: workers.shutdown()\n"
        "print(started is not None and asyncio.run(main()) == started)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]


def test_what_workers_run_imports_neither_the_services_nor_the_web_stack() -> None:
    """A worker imports the module of each function it is handed (``gotown.server.work``):
    neither the server's services nor FastAPI or SQLAlchemy, a second of CPU in each new
    worker that held up the bots' first moves after a restart."""
    from gotown.server import work
    from gotown.server.services import bots, estimates, review

    handed = (bots.choose, estimates.hints, estimates.after_turn, review.review_json)
    assert {f.__module__ for f in handed} == {work.__name__}
    code = (
        "import sys, gotown.server.work\n"
        "print(sorted(m for m in ('fastapi', 'sqlalchemy', 'pydantic', "
        "'gotown.server.services') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_workers_leave_ctrl_c_and_sigterm_to_their_server() -> None:
    """A terminal's Ctrl-C and a service manager's stop reach the whole process group: the
    workers ignore them (the server ends them in order), from their first instruction on."""

    async def main() -> None:
        workers = Workers("test", 1, processes=True)
        try:
            pid, _ = await workers.submit(_pid_and_niceness)
            os.kill(pid, signal.SIGINT)
            os.kill(pid, signal.SIGTERM)
            await asyncio.sleep(0.3)
            assert (await workers.submit(_pid_and_niceness))[0] == pid  # the same, alive
            status = Path(f"/proc/{pid}/status").read_text()
            blocked = int(
                next(ln for ln in status.splitlines() if ln.startswith("SigBlk:")).split()[1], 16
            )
            ignored = int(
                next(ln for ln in status.splitlines() if ln.startswith("SigIgn:")).split()[1], 16
            )
            for held in (signal.SIGINT, signal.SIGTERM):
                assert ignored >> (held - 1) & 1 and not blocked >> (held - 1) & 1
        finally:
            workers.shutdown()

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


def _gone_now(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie, not yet reaped by its new parent, has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return stat.is_file() and ") Z " in stat.read_text()


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended, waiting up to 15 s (bounded by count)."""
    for _ in range(300):
        if _gone_now(pid):
            return True
        time.sleep(0.05)
    return False


def test_shutting_down_ends_a_worker_in_the_middle_of_its_work() -> None:
    async def main() -> int:
        workers = Workers("test", 1, processes=True)
        pid, _ = await workers.submit(_pid_and_niceness)
        busy = workers.submit(time.sleep, 60)
        await asyncio.sleep(0.2)
        workers.shutdown(grace=0.5)  # it does not finish in time: it is killed
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


def _dying_choose(bot: Any, view: View, legal: Any) -> tuple[Action, Any]:
    os._exit(3)  # as a worker killed in the middle of a decision, every time


def _choose_after_dying_once(bot: Any, view: View, legal: Any) -> tuple[Action, Any]:
    """The first call (in any worker) kills its worker; the others choose as usual."""
    marker = Path(os.environ["GOTOWN_TEST_DIED_ONCE"])
    if not marker.exists():
        marker.write_text("died")
        os._exit(3)
    from gotown.server.services.bots import choose  # (the worker's own, real one)

    return choose(bot, view, legal)


def _messages(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(start)]


def test_a_decision_whose_worker_dies_is_made_again_in_a_new_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A dead worker breaks its pool, which fails every call it holds: each is made again in
    new workers, so the bot plays its own moves, the very ones it plays in threads."""
    monkeypatch.setenv("GOTOWN_TEST_DIED_ONCE", str(tmp_path / "died"))
    monkeypatch.setattr(bots_module, "choose", _choose_after_dying_once)
    in_processes = _record(tmp_path / "processes", processes=True)
    assert (tmp_path / "died").exists()
    assert _messages(caplog, "a bot worker process died")
    assert _messages(caplog, "a bot call is made again")
    assert not _messages(caplog, "the bot of seat")  # no decision failed: no fallback move
    monkeypatch.undo()
    assert in_processes == _record(tmp_path / "threads", processes=False)


def test_a_decision_that_kills_its_worker_every_time_ends_in_the_fallback_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with running(_settings(tmp_path, processes=True)) as client:
        monkeypatch.setattr(bots_module, "choose", _dying_choose)
        gid, tokens = new_game(
            client, ["human", "bot"], seed=22, level="medium", options={"first_player": 1}
        )
        # Three calls, three dead workers, then the table's seeded fallback: the game goes on.
        st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
        assert any(e["type"] == "action" and e["seat"] == 1 for e in st["view"]["events"])
        assert len(_messages(caplog, "a bot call is made again")) == 2
        assert len(_messages(caplog, "the bot of seat 1 failed")) == 1
        monkeypatch.undo()
        version = st["version"]
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": version, "action": {"type": "end-turn"}},
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
        assert len(_messages(caplog, "the bot of seat 1 failed")) == 1


def test_workers_get_a_seats_view_and_never_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reachable: Callable[..., Iterator[object]]
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
    assert names.count("choose") >= 4 and "hints" in names
    assert not any(isinstance(item, Game) for item in reachable(*sent))
