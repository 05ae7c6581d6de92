"""The workers are shared fairly: the least served address first, then the least served of its
tables; an express place for a light address; a bounded queue that every address shares
(gotown/server/fairgate.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.errors import BusyError
from gotown.server.fairgate import Admission, FairGate

from .helpers import auth, new_game, state, wait_until


class FakeClock:
    """Time that moves only when told: each hold below lasts ``step`` seconds of it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _use(
    gate: FairGate, clock: FakeClock, key: Hashable, group: Hashable, seconds: float
) -> None:
    """Hold a place for ``seconds`` of the fake clock (the group's and key's use)."""
    async with gate.slot(key, group):
        clock.now += seconds


async def _admission_order(
    gate: FairGate, clock: FakeClock, arrivals: list[tuple[Hashable, Hashable]], hold: float = 1.0
) -> list[Hashable]:
    """While a holder keeps the gate full, each arrival (key, group) queues in this order; then
    each, once in, holds its place ``hold`` seconds: the keys in the order they got in."""
    order: list[Hashable] = []
    release = asyncio.Event()

    async def holder() -> None:
        async with gate.slot("holder"):
            await release.wait()

    async def arrival(key: Hashable, group: Hashable) -> None:
        async with gate.slot(key, group):
            order.append(key)
            clock.now += hold
            await asyncio.sleep(0)

    holders = [asyncio.create_task(holder()) for _ in range(gate.capacity)]
    await asyncio.sleep(0)
    tasks = []
    for key, group in arrivals:
        tasks.append(asyncio.create_task(arrival(key, group)))
        await asyncio.sleep(0)
    release.set()
    await asyncio.gather(*holders, *tasks)
    assert gate.busy == 0 and gate.waiting() == 0
    return order


def test_the_address_that_used_the_workers_least_goes_first() -> None:
    """Six decisions of one address's tables wait, then one of another address: first come,
    first served would let it in last, in turn by address second; by least attained service
    it goes first, since the first address has used the workers and it has not."""

    async def run() -> list[Hashable]:
        clock = FakeClock()
        gate = FairGate(1, clock=clock)
        await _use(gate, clock, "a0", "A", 5.0)
        arrivals = [(f"a{i}", "A") for i in range(1, 7)] + [("b", "B")]
        return await _admission_order(gate, clock, arrivals)

    assert asyncio.run(run())[0] == "b"


def test_within_an_address_its_least_served_table_goes_first() -> None:
    """One address (a school's, a family's) with a table of searching bots and a table of a
    quick one: the quick one is not behind the other's backlog."""

    async def run() -> list[Hashable]:
        clock = FakeClock()
        gate = FairGate(1, clock=clock)
        await _use(gate, clock, "heavy", "A", 9.0)
        arrivals = [("heavy", "A"), ("heavy", "A"), ("light", "A")]
        return await _admission_order(gate, clock, arrivals)

    assert asyncio.run(run()) == ["light", "heavy", "heavy"]


def test_addresses_that_used_as_much_take_turns_each_in_its_own_order() -> None:
    async def run() -> list[Hashable]:
        clock = FakeClock()
        arrivals = [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("b2", "b"), ("c1", "c")]
        return await _admission_order(FairGate(1, clock=clock), clock, arrivals)

    assert asyncio.run(run()) == ["a1", "b1", "c1", "a2", "b2", "a3"]


def test_a_light_address_takes_an_express_place_at_once() -> None:
    """The regular place is held by a heavy address's search and another of its decisions
    waits; a light address (nothing held, little used) gets in at once through the express
    place, the heavy address never does."""

    async def run() -> None:
        clock = FakeClock()
        gate = FairGate(1, express=1, clock=clock)
        await _use(gate, clock, "h0", "heavy", 10.0)
        await _use(gate, clock, "l0", "light", 0.1)
        release = asyncio.Event()
        inside: list[str] = []

        async def hold(key: str, group: str) -> None:
            async with gate.slot(key, group):
                inside.append(key)
                await release.wait()

        first = asyncio.create_task(hold("h1", "heavy"))
        await asyncio.sleep(0)
        second = asyncio.create_task(hold("h2", "heavy"))  # waits: heavy is not light
        await asyncio.sleep(0)
        light = asyncio.create_task(hold("l1", "light"))
        await asyncio.sleep(0)
        assert inside == ["h1", "l1"] and gate.busy == 2 and gate.waiting("heavy") == 1
        release.set()
        await asyncio.gather(first, second, light)
        assert gate.busy == 0

    asyncio.run(run())


def test_a_full_queue_makes_room_for_an_address_with_less_queued() -> None:
    """Four places for queued work, two per address: A and B take them all; C, with none, takes
    the place of the newest of A's (whose caller is told 429), and nobody takes C's."""

    async def run() -> None:
        gate = FairGate(1)
        admission = Admission(gate, per_client=2, limit=4, noun="estimates")
        release = asyncio.Event()
        outcomes: dict[str, str] = {}

        async def work(name: str, client: str) -> None:
            admission.admit(client)
            try:
                async with gate.slot(name, client):
                    outcomes[name] = "done"
                    await release.wait()
            except BusyError as exc:
                outcomes[name] = exc.code
            finally:
                admission.done(client)

        tasks = []
        for name, client in (("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B"), ("c1", "C")):
            tasks.append(asyncio.create_task(work(name, client)))
            await asyncio.sleep(0)
        with pytest.raises(BusyError):  # an address over its own share is refused outright
            admission.admit("A")
        release.set()
        await asyncio.gather(*tasks)
        assert outcomes == {"a1": "done", "a2": "estimate-busy", "b1": "done", "b2": "done",
                            "c1": "done"}  # fmt: skip
        assert admission.count == 0

    asyncio.run(run())


async def _full_gate_and_two_waiters() -> tuple[
    FairGate, asyncio.Event, list[asyncio.Task[None]], list[str]
]:
    """A gate of one place, held until the event is set, then "a" and "b" waiting in this
    order: the gate, the event, the tasks (holder, a, b) and the keys in the order let in."""
    gate = FairGate(1)
    release = asyncio.Event()
    order: list[str] = []

    async def hold() -> None:
        async with gate.slot("holder"):
            await release.wait()

    async def decide(key: str) -> None:
        async with gate.slot(key):
            order.append(key)
            await asyncio.sleep(0)

    tasks = []
    for coroutine in (hold(), decide("a"), decide("b")):
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


def test_the_bots_of_a_table_with_a_person_wait_as_their_table_and_its_creator(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wired: a bot's decision at a person's table waits at the gate as its table, of the
    address that created it (the test client's); a table of bots only waits at a gate of its
    own (its own worker, below them)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    keys: list[tuple[object, object]] = []
    for gate in (service.bots.gate, service.bots.bots_only_gate):
        slot = gate.slot

        def recording(key: object, group: object = None, slot: Any = slot, gate: Any = gate) -> Any:
            keys.append((gate is service.bots.gate, key, group))
            return slot(key, group)

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
    assert keys and set(keys) == {(True, gid, "testclient")}
    keys.clear()
    created = client.post(
        "/api/games", json={"seats": [{"kind": "bot", "level": "random"}] * 2}
    ).json()
    wait_until(client, created["game_id"], None, lambda s: s["version"] >= 3)  # bots moved
    assert keys and set(keys) == {(False, created["game_id"], "testclient")}
