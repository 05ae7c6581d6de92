"""The golden playthrough (R22): every seat's view at every step matches the reviewed file."""

from __future__ import annotations

import difflib

from .playthrough import DATA_FILE, render


def test_r22_playthrough_matches_the_golden_file() -> None:
    expected = DATA_FILE.read_text(encoding="utf-8")
    actual = render()
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    "golden",
                    "now",
                )
            )[:60]
        )
        raise AssertionError(f"the views changed (regenerate only if intended):\n{diff}")


def test_r22_playthrough_hides_other_seats_draws_and_thefts() -> None:
    text = render()
    blocks = text.split("\n  ")
    own_draws = hidden_draws = 0
    for block in blocks:
        who, _, rest = block.partition(":")
        for line in rest.splitlines():
            line = line.strip()
            if " draws " not in line and " takes " not in line:
                continue
            actor = line.split()[1]
            victim = line.split()[-1] if " takes " in line else None
            card = line.split()[3]
            may_see = who in (f"seat {actor}", f"seat {victim}")
            if may_see:
                own_draws += 1
                assert card != "#", line
            else:
                hidden_draws += 1
                assert card == "#", f"{who} sees {line}"
    assert own_draws > 20 and hidden_draws > 40
