"""Small helpers for the engine tests: positions written compactly in the FORMAT.md JSON."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gotown.engine import CODES, COPIES, Action, Game, IllegalActionError

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_SCENARIOS = REPO_ROOT.parent / "shared" / "scenarios"
DATA = REPO_ROOT / "tests" / "data"


def game(**fields: Any) -> Game:
    """A game from a FORMAT.md position; unspecified hands/towers are empty and the draw pile
    is empty unless given (so tiny positions hold fewer than 54 cards)."""
    players = fields.setdefault("players", 2)
    fields.setdefault("active", 0)
    fields.setdefault("hands", [[] for _ in range(players)])
    fields.setdefault("towers", [[] for _ in range(players)])
    fields.setdefault("draw", [])
    return Game.from_position(fields)


def play(g: Game, *actions: Action | str) -> Game:
    """Apply actions (Action objects or notation text) in order; return the game."""
    from gotown.engine import parse_action

    for a in actions:
        g.apply(parse_action(a) if isinstance(a, str) else a)
    return g


def assert_illegal(g: Game, action: Action, rule: str) -> IllegalActionError:
    """The action is refused with ``rule`` and the game is left exactly as it was."""
    before = g.to_position()
    version = g.version
    events = g.event_count
    assert not g.is_legal(action)
    assert action not in g.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    assert info.value.rule == rule, (info.value.rule, str(info.value))
    assert g.to_position() == before
    assert g.version == version
    assert g.event_count == events
    return info.value


def hand(g: Game, seat: int) -> Counter[str]:
    return Counter(g.to_position()["hands"][seat])


def towers(g: Game) -> list[list[list[str]]]:
    """Towers with each floor sorted (floors compare as multisets)."""
    return [[sorted(f) for f in t] for t in g.to_position()["towers"]]


def kind_counts(position: dict[str, Any]) -> Counter[str]:
    """How many cards of each code the zones of a position hold (R2, R3)."""
    counts: Counter[str] = Counter()
    for h in position["hands"]:
        counts.update(h)
    for t in position["towers"]:
        for f in t:
            counts.update(f)
    counts["milkshake"] += sum(position["milkshakes"])
    counts["donut-truck"] += int(position["donut"])
    counts.update(position["discard"])
    counts.update(position["draw"])
    return counts


FULL_DECK = Counter(dict(zip(CODES, COPIES, strict=True)))
