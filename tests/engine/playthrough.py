"""A golden playthrough: what every seat and a spectator see at each step of one seeded game.

Like OpenSpiel's playthrough files, the text records each seat's view after every action, so
that a change in what a seat sees (a leak above all: another seat's card, the draw order) shows
up as a diff of ``tests/data/playthrough_3p.txt``. A card a seat may not see prints as ``#``.
Regenerate after a deliberate change with::

    python -m tests.engine.playthrough --write
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from gotown.engine import Event, Game, View, format_action

DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "playthrough_3p.txt"
PLAYERS = 3
SEED = 2026
POLICY_SEED = 7


def describe_event(event: Event) -> str:
    card = "#" if event.card is None else event.card
    if event.type == "turn":
        return f"turn {event.turn}: seat {event.seat}" + (" (extra)" if event.extra else "")
    if event.type == "draw":
        return f"seat {event.seat} draws {card}"
    if event.type == "stolen":
        return f"seat {event.seat} takes {card} from seat {event.victim}"
    if event.type == "action":
        assert event.action is not None
        return f"seat {event.seat} plays {format_action(event.action)}"
    if event.type == "milkshake-turn":
        return f"seat {event.seat} loses the turn to {event.count} milkshake(s)"
    if event.type == "reshuffle":
        return f"{event.count} cards reshuffled"
    return f"end: winner {event.winner} ({event.reason})"


def describe_view(view: View, since: int) -> list[str]:
    who = "public" if view.seat is None else f"seat {view.seat}"
    towers = " | ".join(
        " ".join("+".join(floor) for floor in tower) or "-" for tower in view.towers
    )
    lines = [
        f"  {who}: hand {' '.join(view.hand) if view.hand is not None else '(hidden)'}; "
        f"sizes {list(view.hand_sizes)}; draw {view.draw_size}; "
        f"discard {' '.join(view.discard) or '-'}; towers {towers}; "
        f"milkshakes {list(view.milkshakes)}; donut {view.donut}"
    ]
    lines += [f"    {describe_event(e)}" for e in view.events[since:]]
    return lines


def render() -> str:
    """Play the seeded game with a seeded random policy and describe every step."""
    game = Game.new(players=PLAYERS, seed=SEED, options={"turn_limit": 200})
    policy = random.Random(POLICY_SEED)
    out = [f"# GoTown playthrough: {PLAYERS} players, seed {SEED}, random policy {POLICY_SEED}"]
    seen = 0
    step = 0
    while True:
        out.append(f"step {step}: seat {game.active} to act, turn {game.turn}")
        for seat in [*range(PLAYERS), None]:
            out += describe_view(game.view(seat), seen)
        seen = game.event_count
        if game.is_over:
            out.append(f"outcome: {game.outcome()}")
            return "\n".join(out) + "\n"
        legal = game.legal_actions()
        action = legal[policy.randrange(len(legal))]
        out.append(f"action: {format_action(action)}")
        game.apply(action)
        step += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {DATA_FILE.name}")
    args = parser.parse_args()
    text = render()
    if args.write:
        DATA_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {DATA_FILE} ({text.count(chr(10))} lines)")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
