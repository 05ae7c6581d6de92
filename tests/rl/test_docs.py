"""The sizes and layouts that docs/rl.md states are the ones every environment gives (its
examples run in tests/test_docs_commands.py)."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium
import numpy as np
import pyspiel
import pytest

import gotown.rl.openspiel  # noqa: F401  (registers python_gotown)
from gotown.rl import action_space_size, observation_layout, observation_size
from gotown.rl.action_space import space_of
from gotown.rl.pettingzoo import env

DOC = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text(encoding="utf-8")
BOTH_ANY = {"dog_placement": "any", "bone_targets": "any"}


def _numbers(pattern: str) -> list[int]:
    """The ``a / b / c`` numbers the sentence matching ``pattern`` states."""
    found = re.search(pattern, " ".join(DOC.split()))  # (a sentence may wrap)
    assert found, f"docs/rl.md no longer says {pattern!r}"
    return [int(n) for n in found.group(1).split(" / ")]


def _sizes(players: int, options: dict[str, str]) -> set[tuple[int, int]]:
    """(observation, actions) as each interface and the encoding give them."""
    table = env(players=players, **options)
    agent = table.possible_agents[0]
    gym = gymnasium.make("GoTown-v0", players=players, opponents=["random"], **options)
    spiel = pyspiel.load_game("python_gotown", {"players": players, **options})
    return {
        (observation_size(players), action_space_size(players, options)),
        (
            table.observation_space(agent)["observation"].shape[0],
            table.action_space(agent).n,
        ),
        (gym.observation_space.shape[0], gym.action_space.n),
        (spiel.observation_tensor_size(), spiel.num_distinct_actions()),
    }


def test_the_documented_observation_and_action_sizes_are_every_interfaces() -> None:
    observations = _numbers(r"`observation_size\(n\)` values \(([\d / ]+) for 2 / 3 / 4")
    actions = _numbers(r"Sizes: ([\d / ]+) for 2 / 3 / 4 players")
    actions_any = _numbers(r"players; ([\d / ]+) with both target options \"any\"")
    for players, observation, action, action_any in zip(
        (2, 3, 4), observations, actions, actions_any, strict=True
    ):
        assert _sizes(players, {}) == {(observation, action)}
        assert _sizes(players, BOTH_ANY) == {(observation, action_any)}


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading``, cells stripped, without its header."""
    lines = DOC.split(heading, 1)[1].split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]  # (the header and its |---| line)


def _count(expression: str, players: int) -> int:
    """A count as the docs write it (``8 (n-1)``, ``4n``, ``n x 5 x 19`` with the minus and
    times signs) for ``players``."""
    text = expression.replace("\u2212", "-").replace("\u00d7", "*").replace(" ", "")
    text = re.sub(r"(\d)(?=[n(])", r"\1*", text)
    assert re.fullmatch(r"[\dn*()+-]+", text), f"not a count: {expression!r}"
    return int(eval(text, {"__builtins__": {}}, {"n": players}))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_observation_table_is_the_layout(players: int) -> None:
    documented = []
    for names, shapes, _ in _table("## The observation"):
        for name, shape in zip(names.split(", "), shapes.split(", "), strict=True):
            documented.append((name.strip("`"), _count(shape, players)))
    layout = [(name, int(np.prod(shape))) for name, _, shape in observation_layout(players)]
    assert documented == layout


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", [{}, BOTH_ANY])
def test_the_action_table_is_the_space(players: int, options: dict[str, str]) -> None:
    documented = []
    for segment, count, _ in _table("## The action space"):
        name = re.sub(r" \(R\d+\)$", "", segment).replace(" ", "-")
        default, _, alternative = count.partition(", or ")
        written = default
        if alternative and any(f"`{key}: any`" in alternative for key in options):
            written = alternative.split(" under ")[0]
        documented.append(({"end-of-turn": "end-turn"}.get(name, name), _count(written, players)))
    space = space_of(players, options)
    assert documented == [(kind, count) for kind, _, count in space.segments]
