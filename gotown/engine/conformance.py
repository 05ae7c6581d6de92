"""The conformance runner: rule scenarios (the format of ``shared/scenarios/FORMAT.md``),
shipped with the engine as pgx ships its ``api_test``, run by ``gotown scenarios``.

A scenario is a position and a list of steps that act on it and check it. The runner reports
one line per scenario and ends with ``N passed, N failed``. A side module: it drives the game
through its public API only, standard library only.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .actions import ACTION_TYPES, Action
from .errors import GoTownError
from .game import Game

STEP_KEYS = {"do", "illegal", "legal", "not_legal", "legal_count", "expect"}
EXPECT_KEYS = {
    "towers", "hands", "discard", "active", "milkshakes", "donut", "hand_sizes", "draw_size",
    "discard_size", "turn", "winner", "over", "draw",
}  # fmt: skip


class InvalidScenarioError(ValueError):
    """A file that is not a valid scenario (exit code 2)."""


@dataclass(frozen=True)
class Result:
    name: str
    description: str
    passed: bool
    invalid: bool = False
    detail: str = ""


def find_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, and every ``*.json`` under the folders named, in sorted order."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        else:
            files.append(path)
    return files


def load(path: Path) -> list[dict[str, Any]]:
    """The scenarios of a file (an object, or a list of objects)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidScenarioError(f"cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InvalidScenarioError(f"not JSON: {exc}") from None
    items = data if isinstance(data, list) else [data]
    if not items:
        raise InvalidScenarioError("the file holds an empty list: no scenario to run")
    for item in items:
        if not isinstance(item, dict) or "position" not in item or "steps" not in item:
            raise InvalidScenarioError("a scenario is an object with 'position' and 'steps'")
        if not isinstance(item["steps"], list):
            raise InvalidScenarioError("'steps' must be a list")
    return items


def _check_action_shape(data: Any, where: str) -> None:
    """A step's action must be an object with a known ``type``; otherwise the file is invalid.

    Everything else about it (the fields, a card code, a seat or floor number) is for the
    engine to judge: an action it refuses is an action a player could try, so a ``do`` with
    ``illegal`` or a ``not_legal`` entry may name one (a build of three cards, a card ``"9"``,
    seat ``-1``), and a plain ``do`` or a ``legal`` entry that names one fails its step.
    """
    if not isinstance(data, dict):
        raise InvalidScenarioError(f"{where}: an action must be a JSON object, not {data!r}")
    if data.get("type") not in ACTION_TYPES:
        raise InvalidScenarioError(
            f"{where}: unknown action type {data.get('type')!r}; "
            f"expected one of {', '.join(ACTION_TYPES)}"
        )


def _parse(data: Any) -> Action | GoTownError:
    """The action, or the engine's reason for refusing it as written."""
    try:
        return Action.from_json(data)
    except GoTownError as exc:
        return exc


def _validate_steps(steps: list[Any]) -> None:
    for number, step in enumerate(steps, 1):
        where = f"step {number}"
        if not isinstance(step, dict) or not step:
            raise InvalidScenarioError(f"{where} must be a non-empty object")
        unknown = sorted(set(step) - STEP_KEYS)
        if unknown:
            raise InvalidScenarioError(f"{where}: unknown key {unknown[0]!r}")
        if "illegal" in step and "do" not in step:
            raise InvalidScenarioError(f"{where}: 'illegal' needs a 'do'")
        if "do" in step:
            _check_action_shape(step["do"], where)
        for key in ("legal", "not_legal"):
            if key in step:
                if not isinstance(step[key], list):
                    raise InvalidScenarioError(f"{where}: {key!r} must be a list of actions")
                for item in step[key]:
                    _check_action_shape(item, where)
        if "legal_count" in step and type(step["legal_count"]) is not int:
            raise InvalidScenarioError(f"{where}: 'legal_count' must be an integer")
        if "expect" in step:
            expect = step["expect"]
            if not isinstance(expect, dict):
                raise InvalidScenarioError(f"{where}: 'expect' must be an object")
            unknown = sorted(set(expect) - EXPECT_KEYS)
            if unknown:
                raise InvalidScenarioError(f"{where}: cannot expect {unknown[0]!r}")


class StepFailedError(Exception):
    pass


def _multiset(cards: Any) -> Counter[str]:
    if not isinstance(cards, list):
        return Counter({repr(cards): 1})
    return Counter(c if isinstance(c, str) else repr(c) for c in cards)


def _floors(tower: Any) -> list[Counter[str]]:
    return [_multiset(f) for f in tower] if isinstance(tower, list) else [Counter()]


def check_expect(game: Game, expect: dict[str, Any]) -> list[str]:
    """The differences between ``expect`` and the position now (empty when it matches)."""
    position = game.to_position()
    problems: list[str] = []
    actual: dict[str, Callable[[], Any]] = {
        "active": lambda: game.active,
        "milkshakes": lambda: position["milkshakes"],
        "donut": lambda: game.donut,
        "hand_sizes": lambda: list(game.hand_sizes),
        "draw_size": lambda: len(game.draw),
        "discard_size": lambda: len(game.discard),
        "turn": lambda: game.turn,
        "winner": lambda: position.get("winner"),
        "over": lambda: game.is_over,
        "draw": lambda: position["draw"],
    }
    for key, want in expect.items():
        if key == "towers":
            got = position["towers"]
            same = isinstance(want, list) and len(want) == len(got)
            same = same and all(_floors(w) == _floors(g) for w, g in zip(want, got, strict=True))
        elif key == "hands":
            got = position["hands"]
            same = isinstance(want, list) and len(want) == len(got)
            same = same and all(
                w is None or _multiset(w) == _multiset(g) for w, g in zip(want, got, strict=True)
            )
        elif key == "discard":
            got = position["discard"]
            same = _multiset(want) == _multiset(got)
        else:
            got = actual[key]()
            same = want == got and type(want) is type(got)
        if not same:
            problems.append(f"{key}: expected {json.dumps(want)}, got {json.dumps(got)}")
    return problems


def run_steps(game: Game, steps: list[dict[str, Any]]) -> None:
    """Run the steps on ``game``; raise StepFailedError naming the first step that fails."""
    for number, step in enumerate(steps, 1):
        where = f"step {number}"
        if "do" in step:
            action = _parse(step["do"])
            text = json.dumps(step["do"])
            if "illegal" in step:
                before = game.to_position()
                version = game.version
                try:
                    if isinstance(action, GoTownError):
                        raise action
                    game.apply(action)
                except GoTownError:  # illegal (R21), malformed, or impossible here (no such seat)
                    if game.to_position() != before or game.version != version:
                        raise StepFailedError(
                            f"{where}: refusing {text} changed the position"
                        ) from None
                else:
                    raise StepFailedError(
                        f"{where}: {text} was accepted, but {step['illegal']} forbids it"
                    )
            else:
                try:
                    if isinstance(action, GoTownError):
                        raise action
                    game.apply(action)
                except GoTownError as exc:
                    raise StepFailedError(f"{where}: {text} was refused: {exc}") from None
        for item in step.get("legal", []):
            action = _parse(item)
            if isinstance(action, GoTownError):
                raise StepFailedError(f"{where}: {json.dumps(item)} should be legal: {action}")
            if not game.is_legal(action):
                raise StepFailedError(f"{where}: {json.dumps(item)} should be legal and is not")
        for item in step.get("not_legal", []):
            action = _parse(item)
            if not isinstance(action, GoTownError) and game.is_legal(action):
                raise StepFailedError(f"{where}: {json.dumps(item)} should not be legal and is")
        if "legal_count" in step:
            legal = game.legal_actions()
            if len(legal) != step["legal_count"]:
                listed = ", ".join(str(a) for a in legal)
                raise StepFailedError(
                    f"{where}: {len(legal)} legal actions ({listed}), "
                    f"expected {step['legal_count']}"
                )
        if "expect" in step:
            problems = check_expect(game, step["expect"])
            if problems:
                raise StepFailedError(f"{where}: " + "; ".join(problems))


def run_scenario(scenario: dict[str, Any], name: str) -> Result:
    description = str(scenario.get("description", ""))
    try:
        game = Game.from_position(scenario["position"])
    except GoTownError as exc:
        return Result(name, description, False, invalid=True, detail=f"invalid position: {exc}")
    try:
        _validate_steps(scenario["steps"])
    except InvalidScenarioError as exc:
        return Result(name, description, False, invalid=True, detail=str(exc))
    try:
        run_steps(game, scenario["steps"])
    except StepFailedError as exc:
        return Result(name, description, False, detail=str(exc))
    return Result(name, description, True)


def run_paths(paths: Iterable[str | Path]) -> Iterator[Result]:
    for path in find_files(paths):
        try:
            scenarios = load(path)
        except InvalidScenarioError as exc:
            yield Result(str(path), "", False, invalid=True, detail=str(exc))
            continue
        for index, scenario in enumerate(scenarios):
            name = str(path) if len(scenarios) == 1 else f"{path}[{index}]"
            yield run_scenario(scenario, name)
