"""The ``rgb_array`` render: the public table drawn as the web page draws it, every public change
shown, no hidden card drawn (R22)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from gotown.engine import CARDS, Game, parse_action
from gotown.rl.art import BACK, JOKER, PAIR_COLOURS, PICTURES, Shape
from gotown.rl.pettingzoo import env
from gotown.rl.render import image_size, render_image

from .helpers import random_positions, with_hidden_cards_changed

ART_JS = Path(__file__).resolve().parents[2] / "gotown" / "server" / "static" / "js" / "art.js"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_both_environments_render_an_rgb_image_of_the_tables_size(players: int) -> None:
    table = env(players=players, render_mode="rgb_array")
    table.reset(seed=players)
    image = table.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.shape == (*image_size(players), 3)
    gym = gymnasium.make(
        "GoTown-v0", players=players, opponents=["random"], render_mode="rgb_array"
    )
    gym.reset(seed=players)
    assert gym.render().shape == image.shape  # type: ignore[union-attr]


def test_gymnasium_check_env_passes_with_the_rgb_array_render() -> None:
    made = gymnasium.make("GoTown-v0", opponents=["random"], render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(made.unwrapped, skip_render_check=False)


def _table(game: Game) -> tuple[object, ...]:
    """What the public view shows of the table (R22), its events and version left out."""
    v = game.public_view()
    top = v.discard[-1] if v.discard else None
    facts = (v.towers, v.milkshakes, v.donut, v.hand_sizes, len(v.discard), top, v.draw_size)
    return (*facts, v.active, v.turn, v.over, v.winner)


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (3, 9)])
def test_every_change_on_the_table_changes_the_image(players: int, seed: int) -> None:
    before, image, changes = None, None, 0
    for game in random_positions(players, seed, {"dog_placement": "any"}, turn_limit=60):
        table, now = _table(game), render_image(game)
        if before is not None and table != before:
            assert not np.array_equal(now, image), f"{game.actions[-1]} changed nothing drawn"
            changes += 1
        elif before is not None:
            assert np.array_equal(now, image)  # (nothing public changed: the same image)
        before, image = table, now
    assert changes > 20


def test_a_build_is_drawn_in_its_seats_column() -> None:
    # R10: a floor of 1+8 appears on seat 1's tower, and nowhere else.
    position = {"players": 2, "active": 1, "hands": [["3"], ["1", "8", "2"]], "towers": [[], []]}
    game = Game.from_position(position)
    before = render_image(game)
    game.apply(parse_action("1+8"))
    after = render_image(game)
    changed = np.flatnonzero((before != after).any(axis=(0, 2)))
    height, width = image_size(2)
    assert changed.min() >= width // 2 - 5  # (the band's pile counts sit on the right too)
    rows = np.flatnonzero((before != after)[:, width // 2 :].any(axis=(1, 2)))
    assert rows.max() > height - 80  # a floor on the ground


@pytest.mark.parametrize("players", [2, 4])
def test_no_leak_the_image_ignores_every_hidden_card(players: int) -> None:
    checked = 0
    for index, game in enumerate(random_positions(players, seed=31 + players)):
        if index % 6 and not game.is_over:
            continue
        for seat in range(players):
            other = with_hidden_cards_changed(game, seat, seed=index)
            if other is None:
                continue
            assert np.array_equal(render_image(game, me=seat), render_image(other, me=seat))
            checked += 1
    assert checked > 10


def test_no_hand_is_drawn_even_when_it_is_the_only_difference() -> None:
    # The same table, one hand of three 8s or three bones: not a pixel differs (R22).
    common = {"players": 2, "active": 0, "towers": [[["1", "8"]], []], "draw": ["5"] * 4}
    eights = Game.from_position({**common, "hands": [["8", "8", "8"], ["2"]]})
    bones = Game.from_position({**common, "hands": [["bone", "bone", "8"], ["2"]]})
    assert np.array_equal(render_image(eights, me=0), render_image(bones, me=0))


def _svg_paths(shapes: list[Shape]) -> list[str]:
    paths = []
    for kind, attributes in shapes:
        if kind == "g":
            paths += _svg_paths(attributes["children"])
        elif kind == "path":
            paths.append(attributes["d"])
    return paths


def test_the_art_is_the_web_pages() -> None:
    # The pictograms and the card back are art.js's paths and colours, copied as data.
    source = ART_JS.read_text(encoding="utf-8")
    pictures = source[source.index("const PICTURES") : source.index("export function pictogram")]
    back = source[source.index("export function cardBack") :]
    ours = _svg_paths([shape for shapes in PICTURES.values() for shape in shapes])
    assert set(ours) == set(re.findall(r'\bd: "([^"]+)"', pictures))  # (the thieves share some)
    assert _svg_paths(BACK) == re.findall(r'\bd: "([^"]+)"', back)
    assert set(re.findall(r'"(#[0-9a-f]{3,6})"', pictures)) == {
        value
        for shapes in PICTURES.values()
        for _, attributes in shapes
        for value in [*attributes.values(), *_child_colours(attributes)]
        if isinstance(value, str) and value.startswith("#")
    } - {"#2b2118"}  # (INK, a constant in art.js)
    # art.js's paint of each pair, keyed by the engine's pair colour (1..4) or by the pair ("18"):
    # either way its first digit's card has that colour.
    block = re.search(r"PAIR_COLOURS = \{([^}]*)\}", source)
    assert block is not None
    paints = re.findall(r'(\d+): "(#[0-9a-f]{6})"', block[1])
    assert {CARDS[key[0]].pair_colour: paint for key, paint in paints} == PAIR_COLOURS
    assert f'JOKER = "{JOKER}"' in source
    assert set(PICTURES) == set(re.findall(r'^  "?([a-z-]+)"?: \(\) =>', pictures, flags=re.M))


def _child_colours(attributes: dict[str, object]) -> list[object]:
    children = attributes.get("children", [])
    assert isinstance(children, list)
    return [value for _, child in children for value in child.values()]


def test_r2_a_floor_card_s_colour_is_the_engine_s_pair_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gotown.rl.art import face_colour

    assert face_colour("3") == face_colour("6") != face_colour("1")
    assert face_colour("?") == JOKER
    monkeypatch.setitem(CARDS, "3", CARDS["3"]._replace(pair_colour=1))
    assert face_colour("3") == face_colour("1")
