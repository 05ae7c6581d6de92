"""The game: state, applying actions (R10-R19) and the turn cycle (R6-R9); its legal actions
(R21) come from :mod:`.generator`.

The state is kept in plain lists of ints so that generating and applying actions stays cheap:
a hand is a list of counts indexed by card kind, a floor is a tuple ``(number, other, dogs)``
(:mod:`.zones`), and the draw pile keeps its top card at the end of its list.

This is the core: it imports its parts (the generator, legality, the observer, the zones, plain
positions) and none of the side modules, which import it (records, the conformance runner).

Randomness (the deal, thieves, reshuffles) comes from ``seed``: each random event seeds a
private ``random.Random`` with it and leaves the next seed behind. The whole future of a game is
therefore a function of its position (seed included) and the actions taken, in any process.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from . import actions as act
from . import observer
from .actions import Action
from .cards import KIND_OF
from .errors import IllegalActionError, InvalidActionError, InvalidPositionError
from .generator import END_ONLY, generate
from .legality import refusal
from .options import Options
from .outcome import Outcome, Termination
from .position import SEED_BITS, Hands, Position, kind_counts
from .views import Event, View
from .zones import EFFECTS, FloorT, discard_donut, drink_milkshakes

RawEvent = tuple[Any, ...]
#: The fields a game shares with its plain :class:`Position` (besides the outcome).
_POSITION_FIELDS: Final = (
    "players", "options", "active", "turn", "seed", "hands", "towers", "milkshakes", "donut",
    "discard", "draw",
)  # fmt: skip
_place_build: Final = EFFECTS[act.BUILD]
_place_steal: Final = EFFECTS[act.STEAL]

REFILL_TO: Final = 3  # R8
NO_DRAW_FROM: Final = 8  # R7b


class Game:
    """A game of GoTown from the start (or a position) to its end.

    Create one with :meth:`new` or :meth:`from_position`; ask :meth:`legal_actions`; play with
    :meth:`apply` (checked) or :meth:`apply_unchecked` (for search, with :meth:`copy`). Other
    layers see it only through :meth:`view` and :meth:`public_view`.
    """

    __slots__ = (
        "_actions",
        "_events",
        "_legal",
        "_origin",
        "_outcome",
        "active",
        "discard",
        "donut",
        "draw",
        "hand_sizes",
        "hands",
        "milkshakes",
        "options",
        "players",
        "seed",
        "towers",
        "turn",
        "version",
    )

    players: int
    options: Options
    hands: list[list[int]]
    hand_sizes: list[int]
    towers: list[list[FloorT]]
    milkshakes: list[int]
    donut: bool
    discard: list[int]
    draw: list[int]
    active: int
    turn: int
    version: int
    seed: int
    _events: list[RawEvent]
    _actions: list[Action]
    _origin: dict[str, Any]
    _outcome: Outcome | None
    _legal: tuple[Action, ...] | None

    # -- creation -----------------------------------------------------------------------
    @classmethod
    def new(cls, players: object = 2, seed: object = 0, options: object = None) -> Game:
        """Shuffle, deal 5 to each seat, pick the first player and start its turn (R4, R7).

        ``players`` and ``seed`` are ints and ``options`` an :class:`Options`, its JSON object
        or None; anything else is refused (InvalidActionError, InvalidOptionsError). (Typed as
        ``object``: the compiled engine would refuse a wrong type with a bare TypeError.)"""
        position = Position.deal(players, seed, Options.from_json(options))
        game = cls._at(position)
        game._origin = {"players": players, "options": position.options.to_json(), "seed": seed}
        game._begin_turn(position.active, extra=False)
        return game

    @classmethod
    def from_position(cls, data: Any) -> Game:
        """A game from a FORMAT.md position (validated; raises InvalidPositionError)."""
        return cls.from_plain(Position.from_json(data))

    @classmethod
    def from_plain(cls, position: Position) -> Game:
        """A game at ``position`` (its lists become the game's); its record starts there.

        A position over without a winner ended in a stalemate (R20b) when it is one, else at
        its turn limit (R23); neither raises InvalidPositionError."""
        game = cls._at(position)
        game._origin = {"position": position.to_json()}
        outcome = game._outcome
        if outcome is not None and outcome.winner is None:
            game._outcome = None
            if game.is_stalemate():
                game._outcome = Outcome.stalemate()
            elif position.turn == position.options.turn_limit:
                game._outcome = outcome
            else:
                limit = position.options.turn_limit
                why = (
                    "it sets no turn_limit"
                    if limit is None
                    else f"turn {position.turn} is not {limit}"
                )
                raise InvalidPositionError(
                    "a game over without a winner ended in a position that can never change "
                    f"(R20b), or as its turn_limit's turn ended (R23): this position can still "
                    f"change, and {why}"
                )
        return game

    @classmethod
    def _at(cls, position: Position) -> Game:
        """A game at ``position`` with no history yet (the callers say how it began)."""
        game = cls()
        game.players = position.players
        game.options = position.options
        game.active = position.active
        game.turn = position.turn
        game.seed = position.seed
        game.hands = position.hands
        game.towers = position.towers
        game.milkshakes = position.milkshakes
        game.donut = position.donut
        game.discard = position.discard
        game.draw = position.draw
        game.hand_sizes = [sum(hand) for hand in position.hands]
        game._outcome = position.outcome
        game.version = 0
        game._events = []
        game._actions = []
        game._origin = {}
        game._legal = None
        return game

    def plain(self) -> Position:
        """This position as plain data (sharing the game's lists: copy the game first to
        keep it)."""
        fields = {name: getattr(self, name) for name in _POSITION_FIELDS}
        return Position(**fields, outcome=self._outcome)

    def to_position(self) -> dict[str, Any]:
        """This position in the FORMAT.md shape; ``from_position`` gives back an equal game."""
        return self.plain().to_json()

    @classmethod
    def from_view(cls, view: View, hands: Hands, draw: Sequence[str], seed: int = 0) -> Game:
        """A full game that agrees with ``view``, given a guess at what it hides (see
        :meth:`Position.from_view`); search bots sample the hidden cards with it. It has no
        record."""
        game = cls._at(Position.from_view(view, hands, draw, seed))
        game._origin = {"position": None}
        return game

    def copy(self, history: bool = True) -> Game:
        """An independent copy. Without ``history`` the copy forgets the events and actions
        so far (cheaper, for search); it can still play on but has no record."""
        game = Game()
        game.players = self.players
        game.options = self.options
        game.hands = [h[:] for h in self.hands]
        game.hand_sizes = self.hand_sizes[:]
        game.towers = [t[:] for t in self.towers]
        game.milkshakes = self.milkshakes[:]
        game.donut = self.donut
        game.discard = self.discard[:]
        game.draw = self.draw[:]
        game.active = self.active
        game.turn = self.turn
        game.version = self.version
        game._outcome = self._outcome
        game.seed = self.seed
        if history:
            game._events = self._events[:]
            game._actions = self._actions[:]
            game._origin = self._origin
        else:
            game._events = []
            game._actions = []
            game._origin = {"position": None}
        game._legal = self._legal
        return game

    # -- questions ----------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """None while the game goes on; how it ended otherwise (R20, R20b, R23 ``turn_limit``)."""
        return self._outcome

    @property
    def is_over(self) -> bool:
        """Whether the game has ended: ``outcome() is not None``."""
        return self._outcome is not None

    def kind_counts(self) -> list[int]:
        """How many cards of each kind the zones hold, in kind order (R2, R3)."""
        return kind_counts(self.hands, self.towers, self.discard, self.draw, self.milkshakes,
                           self.donut)  # fmt: skip

    def card_count(self) -> int:
        """How many cards the zones hold (54 for a game from :meth:`new`; R3)."""
        return sum(self.kind_counts())

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions now (R21), each once, in a fixed order; ``()`` once it is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = generate(self, self.active)
        return legal

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is legal now (False for a malformed one)."""
        try:
            action = self.normalize(action)
        except InvalidActionError:
            return False
        return refusal(self, action) is None

    def normalize(self, action: Any) -> Action:
        """The canonical form of an action now (see :func:`actions.normalize`)."""
        return act.normalize(action, self.players, self.active)

    def is_stalemate(self) -> bool:
        """Whether this position can never change again (R20b): no milkshake or donut truck is
        pending (R7a, R19), no seat will draw (every hand holds 8 or more cards, R7b, or both
        piles are empty, R9), and every seat, in its turn, could only end it (R21).

        The game ends with no winner when a turn ends in such a position; during the turn that
        reaches one, this is already True (and False once the game is over).
        """
        if self._outcome is not None or self.donut or any(self.milkshakes):
            return False
        if (self.draw or self.discard) and min(self.hand_sizes) < NO_DRAW_FROM:
            return False
        return all(generate(self, seat) == END_ONLY for seat in range(self.players))

    # -- applying -----------------------------------------------------------------------
    def apply(self, action: object) -> None:
        """Apply a legal action and everything automatic that follows it.

        An illegal action raises IllegalActionError naming the rule, a malformed one
        InvalidActionError; either way the game is left exactly as it was.
        """
        action = self.normalize(action)
        refused = refusal(self, action)
        if refused is not None:
            raise IllegalActionError(*refused)
        self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> None:
        """Apply an action known to be legal and normalised (the fast path for search)."""
        me = self.active
        self._legal = None
        self.version += 1
        self._actions.append(action)
        self._events.append(("action", me, action))
        # A chain of direct calls, the commonest first (the compiled engine calls each method
        # natively; a table of methods would go through Python's calling convention).
        kind = action.type
        if kind == act.END_TURN:
            self._end_turn(me, action)
        elif kind == act.BUILD:
            self._build(me, action)
        elif kind == act.STEAL:
            self._steal(me, action)
        elif kind == act.THIEF:
            self._thief(me, action)
        elif kind == act.SUPER_THIEF:
            self._super_thief(me, action)
        else:  # the cards that only have their effect (R12-R15, R18, R19)
            self._play_card(me, action)

    def _build(self, me: int, action: Action) -> None:
        hand = self.hands[me]
        hand[KIND_OF[action.cards[0]]] -= 1
        hand[KIND_OF[action.cards[1]]] -= 1
        self.hand_sizes[me] -= 2
        _place_build(self, me, action)
        if len(self.towers[me]) >= self.options.win_floors:  # R20
            self._finish(me)

    def _steal(self, me: int, action: Action) -> None:
        self.hands[me][KIND_OF[action.card]] -= 1  # type: ignore[index]
        self.hand_sizes[me] -= 1
        _place_steal(self, me, action)
        if len(self.towers[me]) >= self.options.win_floors:  # R20
            self._finish(me)

    def _play_card(self, me: int, action: Action) -> None:
        """A special card (named by its action type) leaves the hand and has its effect."""
        self.hands[me][KIND_OF[action.type]] -= 1
        self.hand_sizes[me] -= 1
        EFFECTS[action.type](self, me, action)

    def _thief(self, me: int, action: Action) -> None:
        self._play_card(me, action)
        self._take_random_card(me, action.target, self._rng())  # type: ignore[arg-type]

    def _super_thief(self, me: int, action: Action) -> None:
        self._play_card(me, action)
        rng = self._rng()
        n = self.players
        for step in range(1, n):
            victim = (me + step) % n
            if self.hand_sizes[victim]:
                self._take_random_card(me, victim, rng)

    def _take_random_card(self, me: int, victim: int, rng: random.Random) -> None:
        """Move one card, chosen uniformly at random, from the victim's hand to ours (R16)."""
        hand = self.hands[victim]
        index = rng.randrange(self.hand_sizes[victim])
        kind = 0
        while index >= hand[kind]:
            index -= hand[kind]
            kind += 1
        hand[kind] -= 1
        self.hand_sizes[victim] -= 1
        self.hands[me][kind] += 1
        self.hand_sizes[me] += 1
        self._events.append(("stolen", me, victim, kind))

    # -- the turn cycle -----------------------------------------------------------------
    def _end_turn(self, me: int, action: Action) -> None:
        sizes = self.hand_sizes
        while sizes[me] < REFILL_TO and self._draw_card(me):  # R8
            pass
        self._pass()

    def _refill(self, seat: int) -> None:
        sizes = self.hand_sizes
        while sizes[seat] < REFILL_TO and self._draw_card(seat):
            pass

    def _pass(self) -> None:
        """R9: the donut truck's extra turn, or the next seat; milkshake turns pass at once."""
        while True:
            # R20b: a turn ended in a position that can never change: the game is over before
            # any of passing happens. Off the hot path: while a pile holds a card, the seat
            # that ended its turn with fewer than 8 will draw again (R7b), so nothing is frozen.
            if (
                not (self.draw or self.discard) or self.hand_sizes[self.active] >= NO_DRAW_FROM
            ) and self.is_stalemate():
                self._finish(None, Termination.STALEMATE)
                return
            # R23: the game ends when turn N ends, before any of passing happens (a donut
            # truck on the table stays there, as it does when R20 ends the game).
            limit = self.options.turn_limit
            if limit is not None and self.turn >= limit:
                self._finish(None)
                return
            seat = self.active
            if self.donut:
                discard_donut(self)
                extra = True
            else:
                seat = (seat + 1) % self.players
                extra = False
            if self._begin_turn(seat, extra):
                return

    def _begin_turn(self, seat: int, extra: bool) -> bool:
        """R7: start the turn of ``seat``; False when it is a milkshake turn (already over)."""
        self.turn += 1
        self.active = seat
        self._events.append(("turn", self.turn, seat, extra))
        pending = self.milkshakes[seat]
        if pending:  # R7a
            count = pending if self.options.milkshake_stacking == "merge" else 1
            drink_milkshakes(self, seat, count)
            self._events.append(("milkshake-turn", seat, count))
            if not self.options.milkshake_blocks_refill:
                self._refill(seat)
            return False
        sizes = self.hand_sizes
        if sizes[seat] < NO_DRAW_FROM:  # R7b
            draw = self.draw
            if draw:  # (the common case of _draw_card, inline)
                card = draw.pop()
                self.hands[seat][card] += 1
                sizes[seat] += 1
                self._events.append(("draw", seat, card))
            else:
                self._draw_card(seat)
        return True

    def _draw_card(self, seat: int) -> bool:
        """R9: draw one card, reshuffling the discard pile when the draw pile is empty."""
        draw = self.draw
        if not draw:
            if not self.discard:
                return False
            draw = self.draw = self.discard
            self.discard = []
            self._rng().shuffle(draw)
            self._events.append(("reshuffle", len(draw)))
        card = draw.pop()
        self.hands[seat][card] += 1
        self.hand_sizes[seat] += 1
        self._events.append(("draw", seat, card))
        return True

    def _rng(self) -> random.Random:
        rng = random.Random(self.seed)
        self.seed = rng.getrandbits(SEED_BITS)
        return rng

    def _finish(self, winner: int | None, reason: Termination | None = None) -> None:
        outcome = self._outcome = Outcome.of(winner, reason)
        self._events.append(("end", winner, outcome.reason))

    # -- explaining ---------------------------------------------------------------------
    def why_illegal(self, action: object) -> tuple[str, str]:
        """The rule and the reason that forbid ``action`` now (for error messages); raises
        InvalidActionError for a malformed action or a legal one."""
        canonical = self.normalize(action)
        refused = refusal(self, canonical)
        if refused is None:
            raise InvalidActionError(f"{act.format_action(canonical)} is legal now")
        return refused

    # -- what a seat sees (the observer decides, R22) --------------------------------------
    def view(self, seat: Any) -> View:
        """What ``seat`` may know (R22); ``None`` gives the public view."""
        return observer.view(self, seat, self.events(seat))

    def public_view(self) -> View:
        return self.view(None)

    def events(self, seat: Any, start: int = 0) -> list[Event]:
        """The events from index ``start`` on, as ``seat`` saw them (None: a spectator)."""
        return observer.events(self, seat, self._events[start:])

    @property
    def event_count(self) -> int:
        return len(self._events)

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions applied since the game (or its position) began."""
        return tuple(self._actions)

    @property
    def origin(self) -> dict[str, Any] | None:
        """How the game began, for its record: ``{"players", "options", "seed"}`` after
        :meth:`new`, ``{"position": {...}}`` after :meth:`from_position`; None for a copy made
        without history (or a game built from a view), which has no record."""
        if self._origin.get("position", 0) is None:
            return None
        return dict(self._origin)

    # -- equality -----------------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (
            self.players,
            self.options,
            self.hands,
            self.towers,
            self.milkshakes,
            self.donut,
            self.discard,
            self.draw,
            self.active,
            self.turn,
            self._outcome,
            self.seed,
        )

    def __eq__(self, other: object) -> bool:
        """Two games are equal when their positions (seed included) are."""
        if not isinstance(other, Game):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Game.from_position({self.to_position()!r})"
