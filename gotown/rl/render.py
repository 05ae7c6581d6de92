"""What the environments' ``render()`` gives: the public table as text (``"ansi"``, printed for
``"human"``) or as an image (``"rgb_array"``, for videos).

Both are drawn from the public view only (R22): towers, dogs, milkshakes, the donut truck, the
piles and the number of cards in each hand, never a card in a hand, not even once the game is
over. The image is the web table's look: our card art (:mod:`gotown.rl.art`), each tower a
building of floors from the ground up with its guard dogs and a roof at the winning height, the
floors toward the goal as pips, the seat to play outlined.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from gotown.engine import JOKER_VALUES, Game, Termination, View

from .art import INK, card, font, pictogram

#: ``"ansi"`` returns the public table as text, ``"human"`` prints it, ``"rgb_array"`` returns
#: it as an image (height x width x 3, uint8).
RENDER_MODES = ("ansi", "human", "rgb_array")


def render(game: Game, mode: str | None, me: int | None = None) -> str | np.ndarray | None:
    """What ``render()`` gives in ``mode``: the text (printed for "human") or the image, with
    seat ``me`` (a learner's) marked on it."""
    if mode is None:
        return None
    if mode == "rgb_array":
        return render_image(game, me)
    text = render_text(game)
    if mode == "human":
        print(text)
        return None
    return text


#: The first line of a finished game's text, by how it ended (formatted with the winner).
_ENDED = {
    Termination.WIN: "seat {} won",
    Termination.STALEMATE: "stalemate, no winner (R20b)",
    Termination.TURN_LIMIT: "turn limit reached",
}


def render_text(game: Game) -> str:
    """The public view as a few lines of text: turn, towers, hand sizes, piles."""
    view = game.public_view()
    lines = [f"turn {view.turn}, seat {view.active} to play"]
    outcome = game.outcome()
    if outcome is not None:
        lines[0] = f"turn {view.turn}: " + _ENDED[outcome.reason].format(outcome.winner)
    for seat in range(view.players):
        floors = " ".join("+".join(floor) for floor in view.towers[seat]) or "-"
        extra = " milkshake" * view.milkshakes[seat]
        lines.append(f"seat {seat}: {view.hand_sizes[seat]} cards, tower {floors}{extra}")
    donut = ", donut truck on the table" if view.donut else ""
    lines.append(f"draw pile {view.draw_size}, discard pile {len(view.discard)}{donut}")
    return "\n".join(lines)


# The page's palette (gotown/server/static/style.css, light theme).
_BACKGROUND = "#f6f3ec"
_PANEL, _LINE, _MUTED = "#ffffff", "#c9c3b6", "#4a4a4f"
_WALL, _WALL_LINE = "#efe9dc", "#8d8574"
_ACTIVE, _ACTIVE_LINE, _GLOW = "#fff3c4", "#d4a017", "#f5d76e"
_MINE, _MINE_LINE = "#d7f5d9", "#1f7a3a"
_ME_LINE, _PIP_ON, _ROOF = "#0b5cad", "#2a9d8f", "#c0392b"

_MARGIN = 10
_COLUMN = 200  # a seat's panel
_BAND = 74  # the turn and the piles, above the seats
_HEIGHT = 480
_CARD = 30  # a card in a floor (the page's .floor .mini)
_CARD_HEIGHT = round(_CARD * 84 / 54)
_FLOOR_WIDTH = 16 + 2 * _CARD + 2 + 6
_FLOOR_HEIGHT = _CARD_HEIGHT + 7
_DOG = 24


def image_size(players: int) -> tuple[int, int]:
    """(height, width) of the image for ``players`` seats: one column each."""
    return _HEIGHT, _MARGIN + players * (_COLUMN + _MARGIN)


def render_image(game: Game, me: int | None = None) -> np.ndarray:
    """The public table as an RGB image (height x width x 3, uint8; :func:`image_size`), seat
    ``me`` outlined as the page outlines your own seat."""
    view = game.public_view()
    height, width = image_size(view.players)
    image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    _band(image, draw, view, width)
    for seat in range(view.players):
        left = _MARGIN + seat * (_COLUMN + _MARGIN)
        _seat(image, draw, view, seat, left, me)
    return np.asarray(image, dtype=np.uint8).copy()


def _paste(image: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    image.paste(sprite, (round(x), round(y)), sprite)


def _band(image: Image.Image, draw: ImageDraw.ImageDraw, view: View, width: int) -> None:
    """The turn (or how the game ended) and the two piles, as the page's centre band."""
    box = (_MARGIN, _MARGIN, width - _MARGIN, _BAND)
    outcome = view.outcome
    if outcome is None:
        draw.rounded_rectangle(box, 10, fill=_BACKGROUND, outline=_LINE, width=2)
        title = f"Turn {view.turn}"
    else:
        won = outcome.winner is not None
        fill, line = (_MINE, _MINE_LINE) if won else (_ACTIVE, _ACTIVE_LINE)
        draw.rounded_rectangle(box, 10, fill=fill, outline=line, width=2)
        title = {
            Termination.WIN: f"Seat {outcome.winner} won",
            Termination.STALEMATE: "Stalemate: no winner",
            Termination.TURN_LIMIT: "Turn limit: no winner",
        }[outcome.reason]
    middle = (_MARGIN + _BAND) / 2
    draw.text((_MARGIN + 12, middle), title, fill=INK, font=font(17), anchor="lm")
    x: float = width - _MARGIN - 12
    small = 26
    for label, code in (
        (f"Discard pile {len(view.discard)}", view.discard[-1] if view.discard else None),
        (f"Draw pile {view.draw_size}", "back" if view.draw_size else None),
    ):
        x -= draw.textlength(label, font=font(13, "regular"))
        draw.text((x, middle), label, fill=INK, font=font(13, "regular"), anchor="lm")
        x -= small + 6
        if code is not None:
            sprite = card(code, small)
            _paste(image, sprite, x, middle - sprite.height / 2)
        else:  # an empty pile: its place
            draw.rounded_rectangle(
                (x, middle - 20, x + small, middle + 20), 4, outline=_LINE, width=2
            )
        x -= 18


def _seat(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    view: View,
    seat: int,
    left: int,
    me: int | None,
) -> None:
    top, bottom, right = _BAND + _MARGIN, _HEIGHT - _MARGIN, left + _COLUMN
    playing = seat == view.active and not view.over
    line = _ACTIVE_LINE if playing else _ME_LINE if seat == me else _LINE
    if view.winner == seat:
        line = _MINE_LINE
    if playing:
        draw.rounded_rectangle((left - 3, top - 3, right + 3, bottom + 3), 12, fill=_GLOW)
    draw.rounded_rectangle((left, top, right, bottom), 10, fill=_PANEL, outline=line, width=2)
    name = f"Seat {seat}" + (" (learner)" if seat == me else "")
    draw.text((left + 10, top + 8), name, fill=INK, font=font(15))
    if playing:
        badge = "playing"
        length = draw.textlength(badge, font=font(11))
        draw.rounded_rectangle((right - 16 - length, top + 8, right - 8, top + 26), 4, fill="#333")
        draw.text((right - 12 - length, top + 17), badge, fill="#fff", font=font(11), anchor="lm")
    # The floors toward the goal, as pips (R20), and the hand as its number of cards (R22).
    goal, floors = view.options.win_floors, len(view.towers[seat])
    y = top + 36
    for pip in range(goal):
        at = left + 10 + pip * 15
        draw.rectangle((at, y, at + 11, y + 11), fill=_PIP_ON if pip < floors else _PANEL,
                       outline=INK, width=2)  # fmt: skip
    draw.text((left + 14 + goal * 15, y + 6), f"{floors}/{goal}", fill=INK, font=font(13),
              anchor="lm")  # fmt: skip
    hand = view.hand_sizes[seat]
    back = card("back", 14)
    y = top + 56
    for k in range(min(hand, 10)):
        _paste(image, back, left + 10 + k * 7, y)
    draw.text((left + 10 + min(hand, 10) * 7 + 12, y + back.height / 2),
              f"{hand} card{'s' * (hand != 1)}", fill=_MUTED, font=font(12, "regular"),
              anchor="lm")  # fmt: skip
    # Beside the seat: its pending milkshakes (R18), the donut truck of the seat to play (R19).
    x: float = right - 10
    beside = [("milkshake", view.milkshakes[seat])] if view.milkshakes[seat] else []
    if view.donut and playing:
        beside.append(("donut-truck", 1))
    for code, count in beside:
        if count > 1:
            x -= draw.textlength(f"\u00d7{count}", font=font(12))
            draw.text((x, y + 11), f"\u00d7{count}", fill=INK, font=font(12), anchor="lm")
        x -= 26
        draw.rounded_rectangle((x, y - 2, x + 24, y + 22), 4, fill="#fffaf0", outline=_LINE)
        _paste(image, pictogram(code, 22), x + 1, y - 1)
        x -= 6
    _building(image, draw, view, seat, (left + right) / 2, bottom - 12)


def _building(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    view: View,
    seat: int,
    middle: float,
    ground: float,
) -> None:
    """A tower as a building: floors from the ground up (R3), each its two cards side by side
    (a joker with the value it stands for, R5) and its guard dogs (R12), a roof once it has the
    floors that win (R20)."""
    draw.rounded_rectangle((middle - 90, ground, middle + 90, ground + 5), 2, fill=_WALL_LINE)
    x = middle - _FLOOR_WIDTH / 2 - _DOG / 4
    y = ground
    tower = view.towers[seat]
    for storey, floor in enumerate(tower):
        y -= _FLOOR_HEIGHT - 2
        draw.rounded_rectangle((x, y, x + _FLOOR_WIDTH, y + _FLOOR_HEIGHT), 3, fill=_WALL,
                               outline=_WALL_LINE, width=2)  # fmt: skip
        draw.text((x + 4, y + 3), str(storey + 1), fill=_MUTED, font=font(10))
        cards = [code for code in floor if code != "dog"]
        number = next((code for code in cards if code != "?"), None)
        for k, code in enumerate(cards):
            value = JOKER_VALUES[number] if code == "?" and number is not None else None
            _paste(image, card(code, _CARD, value), x + 15 + k * (_CARD + 2), y + 4)
        dogs = len(floor) - len(cards)
        if dogs:
            _paste(image, pictogram("dog", _DOG), x + _FLOOR_WIDTH - 2, y + _FLOOR_HEIGHT - _DOG)
            if dogs > 1:
                draw.text((x + _FLOOR_WIDTH + _DOG - 2, y + _FLOOR_HEIGHT - 4), f"\u00d7{dogs}",
                          fill=INK, font=font(11), anchor="ls")  # fmt: skip
    if len(tower) >= view.options.win_floors:
        roof = [(x - 8, y), (x + _FLOOR_WIDTH / 2, y - 24), (x + _FLOOR_WIDTH + 8, y)]
        draw.polygon(roof, fill=_ROOF, outline=INK, width=2)
