"""Move-generator counts ("perft") from fixed positions, pinned in ``tests/data/perft.json``.

``perft(game, d)`` is the number of distinct action sequences of length ``d`` (every legal
action, ending the turn included, is one ply; a game that ends has no longer sequences).
Random events (a thief, a reshuffle) are resolved by the game's own seed, so the counts are
deterministic. Regenerate the pinned data after a deliberate rules change with::

    python -m tests.engine.perft --write
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gotown.engine import Game, format_action

DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "perft.json"
DEPTH = 4

#: Hand-written rich positions (FORMAT.md JSON): many card types playable at once.
RICH: dict[str, dict[str, Any]] = {
    "rich-2p": {
        "players": 2,
        "active": 0,
        "hands": [
            ["3", "6", "?", "1", "dog", "bone", "jackhammer", "thief", "milkshake", "donut-truck"],
            ["2", "8"],
        ],
        "towers": [[["1", "8"]], [["2", "7", "dog"], ["4", "5"]]],
        "draw": ["5", "4", "7", "2", "3", "6"],
        "discard": ["milkshake"],
        "seed": 7,
    },
    "rich-3p-options": {
        "players": 3,
        "active": 1,
        "hands": [
            ["5", "5"],
            ["4", "?", "dog", "bone", "wrecking-ball", "super-thief", "milkshake"],
            [],
        ],
        "towers": [
            [["4", "5", "dog"], ["3", "?"]],
            [["2", "7"]],
            [["1", "8", "dog", "dog"]],
        ],
        "milkshakes": [0, 0, 1],
        "draw": ["6", "1", "2", "3", "7", "8", "8"],
        "options": {
            "dog_placement": "any",
            "dogs_per_floor": "unlimited",
            "bone_targets": "any",
            "milkshake_stacking": "merge",
            "win_floors": 4,
        },
        "seed": 11,
    },
    "rich-4p-endgame": {
        "players": 4,
        "active": 3,
        "hands": [["6"], ["3", "thief"], [], ["3", "6", "4", "5", "thief", "donut-truck"]],
        "towers": [
            [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]],
            [["1", "8"], ["2", "7"], ["?", "6"]],
            [],
            [["1", "8"], ["2", "7"], ["4", "?"]],
        ],
        "draw": ["1", "2"],
        "discard": ["thief"],
        "options": {"turn_limit": 3},
        "seed": 3,
    },
}

#: Seeded new games for 2, 3 and 4 players.
NEW: dict[str, dict[str, Any]] = {
    "new-2p-seed-1": {"players": 2, "seed": 1},
    "new-3p-seed-2": {"players": 3, "seed": 2},
    "new-4p-seed-3": {"players": 4, "seed": 3},
    "new-3p-seed-4-short-game": {"players": 3, "seed": 4, "options": {"win_floors": 4}},
}


def start(name: str) -> Game:
    if name in RICH:
        return Game.from_position(RICH[name])
    spec = NEW[name]
    return Game.new(players=spec["players"], seed=spec["seed"], options=spec.get("options"))


def perft(game: Game, depth: int) -> int:
    """The number of action sequences of length ``depth`` from ``game``."""
    if depth == 0:
        return 1
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = game.copy(history=False)
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def divide(game: Game, depth: int) -> dict[str, int]:
    """perft(depth - 1) below each legal action, by its notation."""
    out = {}
    for action in game.legal_actions():
        child = game.copy(history=False)
        child.apply(action)
        out[format_action(action)] = perft(child, depth - 1)
    return out


def compute() -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name in [*NEW, *RICH]:
        game = start(name)
        data[name] = {
            "legal": [format_action(a) for a in game.legal_actions()],
            "distinct": len(set(game.legal_actions())),
            "perft": [perft(game, d) for d in range(1, DEPTH + 1)],
            "divide": divide(game, 2),
        }
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {DATA_FILE}")
    args = parser.parse_args()
    data = compute()
    text = json.dumps(data, indent=1) + "\n"
    if args.write:
        DATA_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {DATA_FILE}")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
