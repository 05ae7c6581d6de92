"""The scenario runner and the ``gotown scenarios`` command: the shared scenarios
(``../shared/scenarios``, next to the repository), ours (``tests/data/scenarios``), and
failing or invalid files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gotown.cli import main
from gotown.engine.conformance import Result, run_paths, run_scenario

from .helpers import DATA, SHARED_SCENARIOS

OUR_SCENARIOS = DATA / "scenarios"


def _shared_files() -> list[Path]:
    return sorted(SHARED_SCENARIOS.rglob("*.json")) if SHARED_SCENARIOS.is_dir() else []


def test_the_shared_scenarios_folder_is_there() -> None:
    assert SHARED_SCENARIOS.is_dir(), (
        f"the shared scenarios are missing: expected {SHARED_SCENARIOS} (the repository is "
        "cloned next to a sibling 'shared/' folder)"
    )
    assert len(_shared_files()) >= 15


@pytest.mark.parametrize("path", _shared_files(), ids=lambda p: p.name)
def test_shared_scenario_passes(path: Path) -> None:
    results = list(run_paths([path]))
    assert results, f"{path} holds no scenario"
    for result in results:
        assert result.passed, f"{result.name}: {result.detail}"


@pytest.mark.parametrize("path", sorted(OUR_SCENARIOS.glob("*.json")), ids=lambda p: p.name)
def test_our_scenario_passes(path: Path) -> None:
    results = list(run_paths([path]))
    assert results
    for result in results:
        assert result.passed, f"{result.name}: {result.detail}"


def test_every_shared_scenario_names_its_rules() -> None:
    for path in _shared_files():
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data if isinstance(data, list) else [data]:
            assert item.get("description"), path
            assert all(re.fullmatch(r"R\d+[a-z]?", r) for r in item.get("rules", [])), path


def _rule_numbers() -> set[str]:
    """The rules RULES.md defines (``## R5. ...``) and their lettered parts (``b. ...`` under
    ``## R20.`` is R20b), next to the shared scenarios."""
    rules = SHARED_SCENARIOS.parent / "rules" / "RULES.md"
    text = rules.read_text(encoding="utf-8") if rules.is_file() else ""
    known: set[str] = set()
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        number = re.match(r"(R\d+)\.", section)
        if number:
            known.add(number[1])
            known.update(number[1] + part for part in re.findall(r"^([a-z])\. ", section, re.M))
    return known


def test_every_scenario_of_ours_has_a_description_and_names_its_rules() -> None:
    paths = sorted(OUR_SCENARIOS.glob("*.json"))
    assert paths
    known = _rule_numbers()
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data if isinstance(data, list) else [data]:
            assert isinstance(item.get("description"), str) and item["description"], path
            rules = item.get("rules")
            assert isinstance(rules, list) and rules, f"{path}: no rules"
            assert all(isinstance(r, str) and re.fullmatch(r"R\d+[a-z]?", r) for r in rules), path
            assert not known or set(rules) <= known, f"{path}: {set(rules) - known}"


# -- invalid positions ----------------------------------------------------------------------
INVALID_SCENARIOS = DATA / "invalid_scenarios"
# Each file's position breaks one rule; the runner's detail must name that problem.
INVALID_DETAILS = {
    "i01_five_dogs.json": "holds 5 cards 'dog'",
    "i02_dog_alone.json": "['dog'] is not a floor",
    "i03_bad_sum.json": "1 + 7 is not 9",
    "i04_bone_in_floor.json": "['1', '8', 'bone'] is not a floor",
    "i05_two_jokers.json": "two jokers never make a floor",
    "i06_unknown_card.json": "'9' is not a card",
    "i07_two_dogs_default.json": "has 2 dogs; one per floor",
    "i08_three_cards_floor.json": "['1', '8', '2'] is not a floor",
    "i09_bad_option.json": "win_floors: 3 is not 4 or 5",
    "i10_too_many_total.json": "holds 5 cards '1'",
    "i11_two_donuts.json": "holds 2 cards 'donut-truck'",
    "i12_five_players.json": "2 to 4 players, not 5",
    "i13_milkshake_on_the_active_seat.json": "has a pending milkshake: its turn would be a",
}


def test_every_invalid_scenario_has_an_expected_detail() -> None:
    names = sorted(p.name for p in INVALID_SCENARIOS.glob("*.json"))
    assert names == sorted(INVALID_DETAILS)


@pytest.mark.parametrize("path", sorted(INVALID_SCENARIOS.glob("*.json")), ids=lambda p: p.name)
def test_invalid_scenario_is_reported_naming_the_problem(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data.get("description") and "position" in data and "steps" in data, path
    results = list(run_paths([path]))
    assert len(results) == 1
    result = results[0]
    assert result.invalid and not result.passed, result.detail
    assert result.detail.startswith("invalid position: "), result.detail
    assert INVALID_DETAILS[path.name] in result.detail, result.detail


# -- the command ----------------------------------------------------------------------------
POSITION: dict[str, Any] = {
    "players": 2, "active": 0, "hands": [["3", "6"], []], "towers": [[], []], "draw": ["1"],
}  # fmt: skip
GOOD = {"description": "builds", "position": POSITION,
        "steps": [{"do": {"type": "build", "cards": ["3", "6"]}},
                  {"expect": {"towers": [[["6", "3"]], []]}}]}  # fmt: skip
BAD = {"description": "wrong expectation", "position": POSITION,
       "steps": [{"do": {"type": "build", "cards": ["3", "6"]}},
                 {"expect": {"towers": [[], []]}}]}  # fmt: skip


def _write(folder: Path, name: str, data: Any) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["scenarios", *args])
    return result.exit_code, result.output.splitlines()


def test_cli_all_passing_exits_0_with_one_line_each_and_a_total() -> None:
    code, lines = _run(str(SHARED_SCENARIOS), str(OUR_SCENARIOS))
    count = len(_shared_files()) + sum(
        len(d) if isinstance(d := json.loads(p.read_text()), list) else 1
        for p in OUR_SCENARIOS.glob("*.json")
    )
    assert code == 0
    assert lines[-1] == f"{count} passed, 0 failed"
    assert len(lines) == count + 1
    assert all(line.startswith("PASS ") for line in lines[:-1])
    assert any("p01_build.json: Two floor cards" in line for line in lines)


def test_cli_quiet_prints_only_the_total() -> None:
    code, lines = _run("-q", str(OUR_SCENARIOS))
    assert code == 0 and len(lines) == 1 and lines[0].endswith("passed, 0 failed")


def test_cli_a_failing_scenario_exits_1_naming_the_step(tmp_path: Path) -> None:
    _write(tmp_path, "a_good.json", GOOD)
    _write(tmp_path, "b_bad.json", BAD)
    code, lines = _run(str(tmp_path))
    assert code == 1
    assert lines[0] == f"PASS {tmp_path / 'a_good.json'}: builds"
    assert lines[1] == f"FAIL {tmp_path / 'b_bad.json'}: wrong expectation"
    assert lines[2].strip().startswith("step 2: towers: expected")
    assert lines[-1] == "1 passed, 1 failed"


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        [],
        [1, 2],
        {"position": POSITION},
        {"position": POSITION, "steps": {}},
        {"position": {**POSITION, "players": 9}, "steps": []},
        {"position": {**POSITION, "hands": [["1"] * 5, []]}, "steps": []},
        {"position": POSITION, "steps": [{"do": {"type": "fly"}}]},
        {"position": POSITION, "steps": [{"illegal": "R5"}]},
        {"position": POSITION, "steps": [{"expect": {"colour": 1}}]},
        {"position": POSITION, "steps": [{"legal_count": "3"}]},
        {"position": POSITION, "steps": [{}]},
    ],
)
def test_cli_an_invalid_file_exits_2(tmp_path: Path, content: Any) -> None:
    _write(tmp_path, "good.json", GOOD)
    path = _write(tmp_path, "z_invalid.json", content)
    code, lines = _run(str(tmp_path))
    assert code == 2
    assert f"INVALID {path}" in "\n".join(lines)
    assert lines[-1] == "1 passed, 1 failed"


MALFORMED = [
    {"type": "build", "cards": ["3", "6", "1"]},  # three cards (R10)
    {"type": "build", "cards": ["9", "0"]},  # not card codes (R2)
    {"type": "steal", "card": "3", "target": -1},  # no such seat
    {"type": "thief", "target": 64},
    {"type": "dog"},  # no floor
    {"type": "build", "cards": ["3", "6"], "target": 1},  # a build has no target
]


@pytest.mark.parametrize("action", MALFORMED, ids=lambda a: json.dumps(a))
def test_a_malformed_action_counts_as_refused_where_a_step_expects_a_refusal(
    action: dict[str, Any],
) -> None:
    """FORMAT.md: ``do`` with ``illegal`` passes when the action is rejected and the position
    is unchanged; an action the engine cannot even read is rejected too, not a broken file."""
    scenario = {"position": POSITION, "steps": [
        {"do": action, "illegal": "R10"},
        {"not_legal": [action]},
        {"expect": {"hands": [["3", "6"], []], "towers": [[], []], "active": 0}},
    ]}  # fmt: skip
    result = run_scenario(scenario, "malformed")
    assert result.passed and not result.invalid, result.detail


@pytest.mark.parametrize("action", MALFORMED, ids=lambda a: json.dumps(a))
def test_a_malformed_action_fails_a_step_that_needs_it_legal(action: dict[str, Any]) -> None:
    for step in ({"do": action}, {"legal": [action]}):
        result = run_scenario({"position": POSITION, "steps": [step]}, "malformed")
        assert not result.passed and not result.invalid
        assert result.detail.startswith("step 1: ") and json.dumps(action) in result.detail


@pytest.mark.parametrize(
    "step",
    [
        {"do": {"type": "wreking-ball", "target": 1}, "illegal": "R15"},
        {"not_legal": [{"type": "fly"}]},
        {"legal": ["end-turn"]},
        {"do": None, "illegal": "R10"},
    ],
)
def test_an_action_that_is_no_action_at_all_makes_the_file_invalid(step: Any) -> None:
    """A misspelt type is an authoring slip, not a move a player could try."""
    result = run_scenario({"position": POSITION, "steps": [step]}, "typo")
    assert result.invalid and "step 1" in result.detail


def test_cli_invalid_wins_over_failed_and_names_the_position_problem(tmp_path: Path) -> None:
    _write(tmp_path, "a.json", BAD)
    _write(tmp_path, "b.json", {"position": {**POSITION, "towers": [[["1", "7"]], []]},
                                "steps": []})  # fmt: skip
    code, lines = _run(str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert code == 2
    assert any("invalid position" in line and "R5" in line for line in lines)
    assert lines[-1] == "0 passed, 2 failed"


def test_cli_needs_an_existing_path(tmp_path: Path) -> None:
    code, _ = _run(str(tmp_path / "nothing.json"))
    assert code == 2


def test_cli_runs_as_a_subprocess() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "gotown.cli", "scenarios", "-q", str(OUR_SCENARIOS)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"\d+ passed, 0 failed\n", out.stdout)


# -- the runner's steps ---------------------------------------------------------------------
def _result(steps: list[Any], position: dict[str, Any] | None = None) -> Result:
    return run_scenario({"position": position or POSITION, "steps": steps}, "t")


def test_runner_illegal_step_must_be_refused_and_leave_the_position() -> None:
    assert _result([{"do": {"type": "build", "cards": ["1", "8"]}, "illegal": "R10"}]).passed
    r = _result([{"do": {"type": "build", "cards": ["3", "6"]}, "illegal": "R10"}])
    assert not r.passed and "was accepted" in r.detail
    # A target seat that does not exist is refused too (InvalidActionError), not a crash.
    assert _result([{"do": {"type": "thief", "target": 5}, "illegal": "R1"}]).passed


def test_runner_legal_not_legal_and_count() -> None:
    assert _result([{"legal": [{"type": "build", "cards": ["6", "3"]}], "legal_count": 2,
                     "not_legal": [{"type": "build", "cards": ["3", "3"]}]}]).passed  # fmt: skip
    assert not _result([{"legal_count": 3}]).passed
    assert not _result([{"legal": [{"type": "super-thief"}]}]).passed
    assert not _result([{"not_legal": [{"type": "end-turn"}]}]).passed


def test_runner_expect_fields() -> None:
    expect = {"active": 0, "milkshakes": [0, 0], "donut": False, "hand_sizes": [2, 0],
              "draw_size": 1, "discard_size": 0, "turn": 1, "winner": None, "over": False,
              "hands": [["6", "3"], None], "discard": [], "towers": [[], []]}  # fmt: skip
    assert _result([{"expect": expect}]).passed
    wrongs: list[tuple[str, Any]] = [
        ("active", 1), ("hand_sizes", [2, 1]), ("over", 0), ("winner", 0), ("turn", 2),
        ("hands", [["3"], None]), ("towers", [[["3", "6"]], []]),
    ]  # fmt: skip
    for key, wrong in wrongs:
        assert not _result([{"expect": {key: wrong}}]).passed, key


_junk = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 9) | st.sampled_from(["1", "?", "dog", "x"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "do",
                    "illegal",
                    "legal",
                    "not_legal",
                    "legal_count",
                    "expect",
                    "type",
                    "cards",
                    "target",
                    "towers",
                    "hands",
                    "discard",
                    "active",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=15,
)


@settings(max_examples=150)
@given(st.lists(_junk, max_size=3))
def test_fuzz_runner_reports_and_never_crashes(steps: list[Any]) -> None:
    result = _result(steps)
    assert isinstance(result, Result)
