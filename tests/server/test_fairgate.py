"""The bots' workers are shared in turn between the addresses that started the tables."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.fairgate import FairGate

from .helpers import auth, new_game, state, wait_until


async def _hold(gate: FairGate, release: asyncio.Event) -> None:
    """Hold a place of ``gate`` until ``release`` is set."""
    async with gate.slot("holder"):
        await release.wait()


async def _decide(gate: FairGate, key: str, order: list[str]) -> None:
    """Wait for a place as ``key``, note the key once in, and hold it for a moment."""
    async with gate.slot(key):
        order.append(key)
        await asyncio.sleep(0)


async def _admission_order(gate: FairGate, arrivals: list[str]) -> list[str]:
    """Each arrival (a key, in this order, while the gate is held) waits for a place and
    holds it for a moment; the order in which they got in."""
    order: list[str] = []
    release = asyncio.Event()
    holders = [asyncio.create_task(_hold(gate, release)) for _ in range(gate.capacity)]
    await asyncio.sleep(0)
    assert gate.busy == gate.capacity
    tasks = []
    for key in arrivals:
        tasks.append(asyncio.create_task(_decide(gate, key, order)))
        await asyncio.sleep(0)  # queued in this order
    release.set()
    await asyncio.gather(*holders, *tasks)
    assert gate.busy == 0
    return order


def test_one_backlogged_key_delays_another_by_one_decision_of_its_own() -> None:
    # Six decisions of one address's tables came first, then one of another table: first come,
    # first served would let "b" in last; in turn, it goes second.
    order = asyncio.run(_admission_order(FairGate(1), ["a"] * 6 + ["b"]))
    assert order == ["a", "b", "a", "a", "a", "a", "a"]


def test_keys_take_turns_and_each_keeps_its_own_order() -> None:
    arrivals = ["a", "a", "a", "b", "b", "c"]
    order = asyncio.run(_admission_order(FairGate(2), arrivals))
    assert order == ["a", "b", "c", "a", "b", "a"]


def test_a_free_gate_lets_in_at_once_and_never_more_than_its_capacity() -> None:
    async def run() -> int:
        gate = FairGate(2)
        most = 0

        async def decision() -> None:
            nonlocal most
            async with gate.slot("a"):
                most = max(most, gate.busy)
                await asyncio.sleep(0.001)

        await asyncio.gather(*(decision() for _ in range(10)))
        assert gate.busy == 0
        return most

    assert asyncio.run(run()) == 2


async def _full_gate_and_two_waiters() -> tuple[
    FairGate, asyncio.Event, list[asyncio.Task[None]], list[str]
]:
    """A gate of one place, held until the event is set, then "a" and "b" waiting in this
    order: the gate, the event, the tasks (holder, a, b) and the keys in the order let in."""
    gate = FairGate(1)
    release = asyncio.Event()
    order: list[str] = []
    tasks = []
    for coroutine in (_hold(gate, release), _decide(gate, "a", order), _decide(gate, "b", order)):
        tasks.append(asyncio.create_task(coroutine))
        await asyncio.sleep(0)  # each queued in turn
    assert gate.busy == 1 and gate.waiting("a") == gate.waiting("b") == 1
    return gate, release, tasks, order


def test_a_cancelled_waiter_gives_up_its_turn_and_leaks_no_place() -> None:
    async def run() -> list[str]:
        gate, release, (holder, gone, kept), order = await _full_gate_and_two_waiters()
        gone.cancel()
        await asyncio.sleep(0)
        assert gate.waiting("a") == 0
        release.set()
        await asyncio.wait_for(asyncio.gather(holder, kept), 10)
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert gate.busy == 0
        return order

    assert asyncio.run(run()) == ["b"]


def test_a_waiter_cancelled_as_it_was_let_in_passes_its_place_on() -> None:
    async def run() -> list[str]:
        gate, release, (holder, unlucky, after), order = await _full_gate_and_two_waiters()
        release.set()
        await asyncio.sleep(0)  # the holder leaves: its place goes to "a", not yet running
        assert holder.done() and gate.busy == 1 and gate.waiting("a") == 0
        unlucky.cancel()
        # (a place kept by the cancelled waiter would leave "b" waiting for ever)
        await asyncio.wait_for(asyncio.gather(unlucky, after, return_exceptions=True), 10)
        assert gate.busy == 0
        return order

    assert asyncio.run(run()) == ["b"]


def test_a_gate_needs_a_place() -> None:
    with pytest.raises(ValueError, match="one holder"):
        FairGate(0)


def test_the_bots_of_a_table_with_a_person_take_their_turn_as_its_creator(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wired: a bot's decision at a person's table waits at the gate under the address that
    created the table (the test client's), so that another address's tables take turns with
    it; a table of bots only has its own worker and does not pass the gate."""
    service = client.app.state.service  # type: ignore[attr-defined]
    gate: FairGate = service.bots.gate
    keys: list[object] = []
    slot = gate.slot

    def recording(key: object) -> Any:
        keys.append(key)
        return slot(key)

    monkeypatch.setattr(gate, "slot", recording)
    gid, tokens = new_game(client, ["human", "bot"], seed=5, options={"first_player": 0})
    version = state(client, gid, tokens[0])["version"]
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": version, "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200, r.text
    wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0 or s["status"] == "over")
    assert keys and set(keys) == {"testclient"}
    assert gate.busy == 0
    keys.clear()
    created = client.post(
        "/api/games", json={"seats": [{"kind": "bot", "level": "random"}] * 2}
    ).json()
    wait_until(client, created["game_id"], None, lambda s: s["version"] >= 3)  # bots moved
    assert keys == []
