"""Legality stated once (R21): the checkers of ``legality.py`` (which ``apply``, ``is_legal`` and
``why_illegal`` ask) and the fast generator ``legal_actions`` agree on every action, in random
positions under every R23 option combination, for 2 to 4 players; and the public replay of a
seat's events (``zones.PublicZones``) leads to the public zones its view shows."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from gotown.engine import OPTION_CHOICES, Action, Game, InvalidActionError
from gotown.engine.legality import CHECKERS, refusal
from gotown.engine.zones import PublicZones, floor_codes

from .test_properties import ACTION_SPACE

#: Every combination of the R23 options that change what is legal or what happens.
_NAMES = ("win_floors", "dog_placement", "dogs_per_floor", "bone_targets", "milkshake_stacking",
          "milkshake_blocks_refill")  # fmt: skip
COMBINATIONS = [
    dict(zip(_NAMES, values, strict=True))
    for values in itertools.product(*(OPTION_CHOICES[name] for name in _NAMES))
]


def _positions(players: int, options: dict[str, Any], seed: int, every: int = 4) -> list[Game]:
    """Positions of one game played at random (mostly cards, rarely the end of the turn, so
    that towers, dogs and milkshakes pile up), one in ``every``, copies without history."""
    rng = random.Random(seed)
    g = Game.new(players=players, seed=seed, options={**options, "turn_limit": 40})
    out = []
    step = 0
    while not g.is_over:
        if step % every == 0:
            out.append(g.copy(history=False))
        legal = g.legal_actions()
        cards = legal[:-1]
        g.apply_unchecked(rng.choice(cards) if cards and rng.random() < 0.8 else legal[-1])
        step += 1
    out.append(g)
    return out


def _normal(g: Game, action: Action) -> Action | None:
    try:
        return g.normalize(action)
    except InvalidActionError:
        return None


def test_r23_every_option_combination_is_covered() -> None:
    assert len(COMBINATIONS) == 2 * 2 * 2 * 2 * 3 * 2
    assert len({tuple(sorted(c.items(), key=str)) for c in COMBINATIONS}) == len(COMBINATIONS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r21_an_action_is_generated_exactly_when_its_checker_says_legal(players: int) -> None:
    checked = refused = 0
    for index, options in enumerate(COMBINATIONS):
        for g in _positions(players, options, seed=1000 * players + index):
            legal = set(g.legal_actions())
            for action in ACTION_SPACE:
                normal = _normal(g, action)
                if normal is None:
                    continue
                said = refusal(g, normal)
                assert (said is None) == (normal in legal), (options, g.to_position(), normal)
                assert g.is_legal(action) == (said is None)
                checked += 1
                refused += said is not None
            if not g.is_over:
                assert legal <= {_normal(g, a) for a in ACTION_SPACE}  # the space covers it
    assert checked > 50_000 and 0 < refused < checked


def test_every_action_type_has_one_checker() -> None:
    assert set(CHECKERS) == {a.type for a in ACTION_SPACE}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r22_the_public_replay_of_a_seats_events_leads_to_its_views_zones(players: int) -> None:
    """Every action is public (R22): the events any seat saw replay to the towers, discard
    pile, pending milkshakes and donut truck of the view, at every step of random games."""
    for index, options in enumerate(COMBINATIONS[::7]):
        rng = random.Random(index)
        g = Game.new(players=players, seed=index, options={**options, "turn_limit": 80})
        while True:
            seat = rng.choice([None, *range(players)])
            view = g.view(seat)
            zones = PublicZones.replay(players, view.events)
            assert [[floor_codes(f) for f in t] for t in zones.towers] == [
                list(t) for t in view.towers
            ]
            assert zones.discard == g.discard and tuple(zones.milkshakes) == view.milkshakes
            assert zones.donut == view.donut
            if g.is_over:
                break
            legal = g.legal_actions()
            g.apply(rng.choice(legal[:-1]) if len(legal) > 1 and rng.random() < 0.8 else legal[-1])
