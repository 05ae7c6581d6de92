"""An independent statement of R10-R19, R20b and R21 on the JSON position: the legal actions.

Written from RULES.md without looking at the engine's generator, so that comparing the two
catches a generator bug (the property tests compare them at every step of random games)."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from gotown.engine import Action

NUMBERS = [str(n) for n in range(1, 9)]


def _value(card: str, partner: str) -> int:
    """The value of a card lying in a floor next to ``partner`` (R5)."""
    return 9 - int(partner) if card == "?" else int(card)


def legal_actions(p: dict[str, Any]) -> set[Action]:
    if p.get("over"):
        return set()
    n = p["players"]
    me = p["active"]
    opts = p["options"]
    hand = Counter(p["hands"][me])
    towers = p["towers"]
    opponents = [s for s in range(n) if s != me]
    out: set[Action] = {Action.end_turn()}  # R21: always legal in the action phase
    # R10 + R5: two floor cards adding to 9, at least one a number, never two jokers.
    for a in NUMBERS:
        for b in [*NUMBERS, "?"]:
            need = Counter([a, b])
            if all(hand[c] >= k for c, k in need.items()) and (b == "?" or int(a) + int(b) == 9):
                out.add(Action.build(a, b))
    # R11: my number card equals the value of the card left behind on an unguarded top floor.
    for o in opponents:
        if towers[o] and "dog" not in towers[o][-1]:
            x, y = [c for c in towers[o][-1] if c != "dog"]
            for taken, left in ((x, y), (y, x)):
                value = _value(left, taken)
                if hand[str(value)]:
                    out.add(Action.steal(str(value), o))
    # R12: a dog on a floor without one (any tower under dog_placement any).
    if hand["dog"]:
        seats = range(n) if opts["dog_placement"] == "any" else [me]
        for t in seats:
            for f, floor in enumerate(towers[t]):
                if opts["dogs_per_floor"] == "unlimited" or "dog" not in floor:
                    out.add(Action.dog(f) if t == me else Action.dog(f, t))
    # R13: a bone on an opponent's dog (any dog under bone_targets any).
    if hand["bone"]:
        seats = range(n) if opts["bone_targets"] == "any" else opponents
        for t in seats:
            for f, floor in enumerate(towers[t]):
                if "dog" in floor:
                    out.add(Action.bone(t, f))
    for o in opponents:
        top = towers[o][-1] if towers[o] else None
        if hand["jackhammer"] and top is not None and "dog" not in top:  # R14
            out.add(Action.jackhammer(o))
        if hand["wrecking-ball"] and top is not None:  # R15
            out.add(Action.wrecking_ball(o))
        if hand["thief"] and p["hands"][o]:  # R16
            out.add(Action.thief(o))
        if hand["milkshake"] and (
            opts["milkshake_stacking"] != "forbid" or not p["milkshakes"][o]
        ):  # R18
            out.add(Action.milkshake(o))
    if hand["super-thief"] and any(p["hands"][o] for o in opponents):  # R17
        out.add(Action.super_thief())
    if hand["donut-truck"] and not p["donut"]:  # R19
        out.add(Action.donut_truck())
    return out


def is_stalemate(p: dict[str, Any]) -> bool:
    """R20b, word for word: no milkshake pending, no donut truck on the table, no seat that
    would draw at the start of its turn (R7b), and no seat that could do anything but end its
    turn (R21) with the hand it holds."""
    if any(p["milkshakes"]) or p.get("donut"):
        return False
    piles_empty = not p["draw"] and not p["discard"]
    if not all(len(hand) >= 8 or piles_empty for hand in p["hands"]):
        return False
    live = {**p, "over": False}
    return all(
        legal_actions({**live, "active": seat}) == {Action.end_turn()}
        for seat in range(p["players"])
    )


def _take(cards: list[str], code: str) -> None:
    cards.remove(code)


def apply(p: dict[str, Any], action: Action) -> dict[str, Any] | None:
    """The position after a deterministic action (R10-R15, R18, R19), from RULES.md; None for
    the actions whose outcome is random or that end the turn (checked in other ways)."""
    q = copy.deepcopy(p)
    me = q["active"]
    hand = q["hands"][me]
    towers = q["towers"]
    t = action.type
    if t == "build":  # R10
        for c in action.cards:
            _take(hand, c)
        towers[me].append(list(action.cards))
    elif t == "steal":  # R11
        o = action.target
        assert o is not None and action.card is not None
        x, y = [c for c in towers[o].pop() if c != "dog"]
        taken, left = next(
            (tk, lf) for tk, lf in ((x, y), (y, x)) if _value(lf, tk) == int(action.card)
        )
        _take(hand, action.card)
        q["discard"].append(left)
        towers[me].append([action.card, taken])
    elif t == "dog":  # R12
        _take(hand, "dog")
        seat = me if action.target is None else action.target
        towers[seat][action.floor].append("dog")
    elif t == "bone":  # R13
        _take(hand, "bone")
        towers[action.target][action.floor].remove("dog")
        q["discard"] += ["dog", "bone"]
    elif t in ("jackhammer", "wrecking-ball"):  # R14, R15
        _take(hand, t)
        floor = towers[action.target].pop()
        q["discard"] += [*floor, t]
    elif t == "milkshake":  # R18
        _take(hand, "milkshake")
        q["milkshakes"][action.target] += 1
    elif t == "donut-truck":  # R19
        _take(hand, "donut-truck")
        q["donut"] = True
    else:
        return None
    if t in ("build", "steal") and len(towers[me]) >= q["options"]["win_floors"]:  # R20
        q["over"] = True
        q["winner"] = me
    return q


def same_position(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal, with hands compared as multisets and floors as multisets."""

    def norm(p: dict[str, Any]) -> dict[str, Any]:
        n = dict(p)
        n["hands"] = [sorted(h) for h in p["hands"]]
        n["towers"] = [[sorted(f) for f in t] for t in p["towers"]]
        return n

    return norm(a) == norm(b)
