"""One simulated game, observed: what the study's report is computed from.

A game is dealt and seated exactly as in a tournament (:func:`~gotown.tournament.tournament.deal`,
:func:`~gotown.tournament.tournament.seatings`, :func:`~gotown.tournament.tournament.bot_seed`):
seat 0 starts, so a seat number is also the position in the turn order. Besides its result, the
game yields rows of four tables: the game, each turn, each special card a seat held, each
special card played.

Everything here is read from what the players see (the acting seat's view, which the bot gets
anyway, and the public events at the end), never from the engine's internals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gotown.bots import bot_from_spec, parse_bot_spec
from gotown.bots.base import Bot
from gotown.engine import Game, View
from gotown.tournament.tournament import bot_seed, deal

from .decks import change_deal

#: The special cards (R12-R19); an action of one of these types plays that card.
SPECIAL_CARDS = (
    "dog", "bone", "jackhammer", "wrecking-ball", "thief", "super-thief", "milkshake",
    "donut-truck",
)  # fmt: skip
#: The table-time model behind "estimated minutes": a turn (draw, look, end, pass the turn)
#: takes about this many seconds, and each card action this many more. An assumption from
#: family play, not a measurement: it scales the turn and action counts into a familiar unit.
SECONDS_PER_TURN = 10.0
SECONDS_PER_ACTION = 6.0


@dataclass(frozen=True)
class GameTask:
    """What decides one game: its line-up, seat order, number, seed, turn limit and options."""

    configuration: str
    specs: tuple[str, ...]
    seats: tuple[int, ...]  # seats[s] = the entry (index into specs) playing seat s
    index: int
    seed: int
    turn_limit: int
    options: Mapping[str, Any] = field(default_factory=dict)
    #: A deck change (:mod:`.decks`): the card swapped in one hand, the cards left out.
    swap: str = ""
    without: tuple[str, ...] = ()


@dataclass
class ObservedGame:
    """The rows one game adds to each table (column names as in the Parquet files)."""

    game: dict[str, Any]
    turns: list[dict[str, Any]]
    holdings: list[dict[str, Any]]
    plays: list[dict[str, Any]]


def margin(heights: Sequence[int], seat: int) -> float:
    """A seat's lead in floors: its tower's height less the mean of its opponents'."""
    others = [h for s, h in enumerate(heights) if s != seat]
    return heights[seat] - sum(others) / len(others)


def _turn_row(turn: int, seat: int, only_end: bool, hand: int | None) -> dict[str, Any]:
    return {"turn": turn, "seat": seat, "milkshake": hand is None, "only_end": only_end,
            "actions": 0, "hand": hand}  # fmt: skip


@dataclass
class _Watch:
    """What :func:`observe_game` notes while the game is played."""

    decisions: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)
    turns: dict[int, dict[str, Any]] = field(default_factory=dict)  # by turn
    held: dict[tuple[int, str], int] = field(default_factory=dict)  # (seat, card) -> plays
    plays: list[tuple[int, str, int, int]] = field(default_factory=list)  # seat, card, turn, n

    def play(self, game: Game, bots: Sequence[Bot]) -> None:
        """Play to the end (a win, a stalemate or the turn limit), noting each decision."""
        while not game.is_over:
            self._decide(game, bots[game.active])

    def _decide(self, game: Game, bot: Bot) -> None:
        seat = game.active
        view = game.view(seat)
        legal = game.legal_actions()
        row = self.turns.get(game.turn)
        if row is None:
            only_end = all(a.type == "end-turn" for a in legal)
            row = self.turns[game.turn] = _turn_row(game.turn, seat, only_end, len(view.hand or ()))
        for card in view.hand or ():
            if card in SPECIAL_CARDS:
                self.held.setdefault((seat, card), 0)
        action = bot.choose(view, legal)
        if action.type != "end-turn":
            row["actions"] += 1
        if action.type in SPECIAL_CARDS:
            self.held[(seat, action.type)] = self.held.get((seat, action.type), 0) + 1
            self.plays.append((seat, action.type, game.turn, len(self.decisions)))
        self.decisions.append((game.turn, seat, tuple(len(tower) for tower in view.towers)))
        game.apply(action)

    def read_skipped_turns(self, public: View) -> set[int]:
        """Note the milkshake turns (they hold no decision); the turns that were extra."""
        turn_of_event = 0
        extra: set[int] = set()
        for event in public.events:
            if event.type == "turn" and event.turn is not None:
                turn_of_event = event.turn
                if event.extra:
                    extra.add(event.turn)
            elif event.type == "milkshake-turn" and event.seat is not None:
                self.turns[turn_of_event] = _turn_row(turn_of_event, event.seat, False, None)
        return extra

    def values(self, final: tuple[int, ...]) -> list[tuple[int, str, int, float]]:
        """Each special card played, with its value (see :func:`observe_game`)."""
        owners = sorted((t, row["seat"]) for t, row in self.turns.items())
        out = []
        for seat, card, turn, number in self.plays:
            before = self.decisions[number][2]
            answered = next((t for t, s in owners if t > turn and s != seat), None)
            after = final
            if answered is not None:
                after = next(
                    (h for t, s, h in self.decisions[number:] if s == seat and t > answered),
                    final,
                )
            out.append((seat, card, turn, margin(after, seat) - margin(before, seat)))
        return out


def observe_game(task: GameTask) -> ObservedGame:
    """Play the game of ``task`` to its end (R20, R20b or its turn limit) and observe it; a
    deck change (:func:`.decks.change_deal`) is made to the deal first.

    A special card's *value* is the change of its player's :func:`margin` from just before
    it is played to its first action after an opponent's turn (or the end of the game): the
    floors it built meanwhile (in a donut truck's extra turn too), the floors its opponents
    lost, and what they could not build in their turn (a milkshake's skipped turn, a dog's
    saved floor).
    """
    players = len(task.seats)
    game = deal(players, task.seed, task.index, task.turn_limit, task.options)
    focus = None
    if task.swap or task.without:
        game, focus = change_deal(game, task.seed, task.index, task.swap, task.without)
    bots = [
        bot_from_spec(task.specs[task.seats[s]], bot_seed(task.seed, task.index, s))
        for s in range(players)
    ]
    watch = _Watch()
    watch.play(game, bots)
    outcome = game.outcome()
    winner = None if outcome is None else outcome.winner
    public = game.view(None)
    final = tuple(len(tower) for tower in public.towers)
    extra = watch.read_skipped_turns(public)
    turns = watch.turns
    base = {"configuration": task.configuration, "game": task.index}
    turn_rows = [
        {**base, **turns[t], "extra": t in extra, "entry": task.seats[turns[t]["seat"]]}
        for t in sorted(turns)
    ]
    play_rows = [
        {**base, "seat": seat, "card": card, "turn": turn, "value": value}
        for seat, card, turn, value in watch.values(final)
    ]
    holding_rows = [
        {**base, "seat": seat, "card": card, "plays": count, "won": winner == seat}
        for (seat, card), count in sorted(watch.held.items())
    ]
    card_actions = sum(row["actions"] for row in turns.values())
    game_row = {
        **base,
        "players": players,
        "lineup": ",".join(task.specs[e] for e in task.seats),  # the bots by seat
        "levels": ",".join(parse_bot_spec(task.specs[e])[0] for e in task.seats),
        "winner": winner,  # the winning seat = its position in the turn order
        "winner_entry": None if winner is None else task.seats[winner],
        "focus": focus,  # the seat whose hand a swap changed
        "ending": None if outcome is None else outcome.reason.value,
        "turns": game.turn,
        "actions": len(watch.decisions),
        "card_actions": card_actions,
        "milkshake_turns": sum(row["milkshake"] for row in turns.values()),
        "only_end_turns": sum(row["only_end"] for row in turns.values()),
        "minutes": (game.turn * SECONDS_PER_TURN + card_actions * SECONDS_PER_ACTION) / 60.0,
        "floors": list(final),
    }
    return ObservedGame(game_row, turn_rows, holding_rows, play_rows)
