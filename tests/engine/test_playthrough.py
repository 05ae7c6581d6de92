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
    seen = hidden = 0
    who = ""
    for line in render().splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            who = line.strip().partition(":")[0]
            continue
        words = line.split()
        if not line.startswith("    ") or words[2] not in ("draws", "takes"):
            continue
        actor, card = f"seat {words[1]}", words[3]
        victim = f"seat {words[-1]}" if words[2] == "takes" else actor
        if who in (actor, victim):
            seen += 1
            assert card != "#", f"{who} should see: {line}"
        else:
            hidden += 1
            assert card == "#", f"{who} must not see: {line}"
    assert seen > 20 and hidden > 40
