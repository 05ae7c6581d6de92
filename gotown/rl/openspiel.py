"""GoTown as an OpenSpiel game, registered as ``python_gotown`` when this module is imported.

>>> import pyspiel, gotown.rl.openspiel
>>> game = pyspiel.load_game("python_gotown", {"players": 3})
>>> state = game.new_initial_state()
>>> while not state.is_terminal():
...     state.apply_action(random.choice(state.legal_actions()))
>>> state.returns()                      # +1 for the winner, -1 for the others

**Chance: explicit, once.** A game begins with :data:`SEED_BYTES` chance nodes of 256
equally likely outcomes each: together they pick the seed that deals the cards, and from which
the engine draws every later random event (a draw after a reshuffle, a thief's card, R9, R16).
So chance is explicit and its outcomes are in the history (``state.history()`` replays a game
exactly, and states serialize), while the rules stay stated once, in the engine: chance nodes
for every draw would restate R9 and R16 here. Formally chance moves first and picks a hidden
world that no player observes; an algorithm that searches over hidden information goes through
:meth:`GoTownState.resample_from_infostate`, which deals the cards the player cannot see anew
with a fresh seed. (OpenSpiel's sampled-stochastic mode was the other choice; it serializes a
game with its random generator's state, which a Python game cannot provide.)

Actions are the indices of :mod:`gotown.rl.encoding` for the acting seat; the observation
tensor is :func:`gotown.rl.encode_view` (relative to the player), and the information state
adds the history. Rewards come at the end: +1 for the winner, -1 for the others, 0 for all
when a stalemate (R20b) or the turn limit (R23, here always set, since OpenSpiel needs a bound
on a game's length) ends the game. Two players make a zero-sum game, three or four a
general-sum one (:func:`game_type` says why).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from gotown.engine import (
    ACTION_TYPES,
    CODES,
    COPIES,
    Event,
    Game,
    Options,
    View,
    format_action,
)

from .action_space import action_to_engine, space_of
from .encoding import DEFAULT_TURN_LIMIT, encode_view, observation_layout, play_index, returns

SHORT_NAME = "python_gotown"
_SEED_BYTE_OUTCOMES = [(byte, 1 / 256) for byte in range(256)]
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
#: Chance nodes at the start, one byte of the deal's seed each (2**32 deals).
SEED_BYTES = 4
#: Actions a turn can hold at most: each but the end spends a card of the hand (54 cards, R2).
MAX_ACTIONS_PER_TURN = 55
_MAX_PLAYERS = 4

_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "win_floors": 5,
    "first_player": -1,  # -1: "random"; or a seat
    "dog_placement": "own",
    "dogs_per_floor": 1,  # 0: "unlimited"
    "bone_targets": "opponents",
    "milkshake_stacking": "forbid",
    "milkshake_blocks_refill": True,
    "turn_limit": DEFAULT_TURN_LIMIT,
}


def game_type(players: int | None = None) -> pyspiel.GameType:
    """The game's type for ``players`` (None: the family, as registered).

    The returns are +1 for the winner and -1 for every other seat, 0 for all when a stalemate
    (R20b) or the turn limit (R23) ends the game, as in every interface of :mod:`gotown.rl`.
    With two players they sum to 0 however the game ends: ``ZERO_SUM``, as ``kuhn_poker``,
    ``leduc_poker`` and ``python_liars_poker`` declare, so the algorithms that need it
    (exploitability, two-player zero-sum solvers) take the game. With 3 or 4 players they sum
    to -1 or -2 after a win and to 0 after a stalemate: neither zero- nor constant-sum, so
    ``GENERAL_SUM``. Paying the winner n - 1 (as liar's poker does) would make every count
    zero-sum, but a win would then be worth another amount here than in PettingZoo and
    Gymnasium, and another with each player count. The registered family holds every player
    count, so it is general-sum.
    """
    zero_sum = players == 2
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="GoTown (Python)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULTS,
    )


def options_from_params(params: dict[str, Any]) -> Options:
    """The R23 options of OpenSpiel game parameters. A parameter has one type (and a game's
    text reads "1" back as a number), so -1 stands for a random ``first_player`` and 0 for
    ``dogs_per_floor: "unlimited"``."""
    first = params["first_player"]
    dogs = params["dogs_per_floor"]
    limit = params["turn_limit"]
    if type(limit) is not int or limit < 1:
        raise ValueError(f"turn_limit {limit!r}: OpenSpiel needs a bound, a number from 1 (R23)")
    return Options(
        win_floors=params["win_floors"],
        first_player="random" if first == -1 else first,
        dog_placement=params["dog_placement"],
        dogs_per_floor="unlimited" if dogs == 0 else dogs,
        bone_targets=params["bone_targets"],
        milkshake_stacking=params["milkshake_stacking"],
        milkshake_blocks_refill=params["milkshake_blocks_refill"],
        turn_limit=limit,
    )


class GoTownGame(pyspiel.Game):  # type: ignore[misc]
    """The game: its players, options and a source of deals."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        players = merged["players"]
        self.options = options_from_params(merged)
        Game.new(players, 0, self.options)  # refuses bad players and options now
        self.players: int = players
        self.space = space_of(players, self.options)
        turn_limit = self.options.turn_limit
        assert turn_limit is not None
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.size,
            max_chance_outcomes=256,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if players == 2 else None,
            max_game_length=SEED_BYTES + MAX_ACTIONS_PER_TURN * turn_limit,
        )
        super().__init__(game_type(players), info, merged)

    def new_initial_state(self, *args: Any) -> GoTownState:
        """A new game at its first chance node (the seed's first byte)."""
        return GoTownState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> GoTownObserver:
        return GoTownObserver(
            self.players, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Table:
    """The engine game of a state, and the legal indices last asked of it (OpenSpiel asks for
    them, then applies one: the index is checked among them, not the engine's actions scanned
    again). OpenSpiel's ``clone`` deep-copies a state's attributes: this copies the game with
    :meth:`Game.copy`, not object by object, and leaves the legal indices to be found again."""

    __slots__ = ("engine", "legal", "legal_at")

    def __init__(self, engine: Game | None = None) -> None:
        self.engine = engine
        self.legal: list[int] = []  # the legal indices at the engine's version ``legal_at``
        self.legal_at = -1

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        return _Table(None if self.engine is None else self.engine.copy())

    def __getstate__(self) -> dict[str, Any]:
        return {"engine": self.engine}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["engine"])  # type: ignore[misc]


class GoTownState(pyspiel.State):  # type: ignore[misc]
    """A position of the game; ``engine`` is the :class:`~gotown.engine.Game` behind it (None
    while the seed's bytes are being chosen).

    ``prefix`` is, per seat, the history each seat saw before ``engine`` began, and
    ``prefix_counts`` the actions each seat played then, by type: nothing for a game played
    from its deal; set by :meth:`resample_from_infostate` for a dealt-anew world (whose engine
    game starts at the sampled position), so that its information states match.
    """

    def __init__(self, game: GoTownGame, engine: Game | None = None) -> None:
        super().__init__(game)
        self._space = game.space
        self._table = _Table(engine)
        self.seed_bytes: list[int] = []
        self.prefix = [""] * game.players
        self.prefix_counts = np.zeros((game.players, len(ACTION_TYPES)), np.float32)

    @property
    def is_dealt(self) -> bool:
        return self._table.engine is not None

    @property
    def engine(self) -> Game:
        engine = self._table.engine
        if engine is None:
            raise ValueError("the cards are not dealt yet: chance picks the seed first")
        return engine

    def current_player(self) -> int:
        engine = self._table.engine
        if engine is None:
            return _CHANCE
        return _TERMINAL if engine.is_over else engine.active

    def is_chance_node(self) -> bool:
        """OpenSpiel's answer (``current_player`` is chance), given here in Python."""
        return self._table.engine is None

    def legal_actions(self, *player: int) -> list[int]:
        """OpenSpiel's answer, given here in Python for the player to act: its C++ side asks
        the Python side four times (is it terminal, chance, whose turn) before it asks
        ``_legal_actions``. Any other question (another player's actions) goes to OpenSpiel."""
        engine = self._table.engine
        if engine is None:
            if not player:
                return list(range(256))  # the chance outcomes, as OpenSpiel lists them
        elif engine.is_over:
            if not player:
                return []
        elif not player or player[0] == engine.active:
            table = self._table
            if table.legal_at != engine.version:  # (as _legal_actions, a call less)
                index_of = self._space.index_of[engine.active]
                table.legal = sorted([index_of[action] for action in engine.legal_actions()])
                table.legal_at = engine.version
            return table.legal[:]
        return list(super().legal_actions(*player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return _SEED_BYTE_OUTCOMES[:]

    def _legal_actions(self, player: int) -> list[int]:
        table = self._table
        engine = self.engine
        if table.legal_at != engine.version:
            table.legal = self._space.legal_indices(engine)
            table.legal_at = engine.version
        return table.legal[:]

    def _apply_action(self, action: int) -> None:
        table = self._table
        engine = table.engine
        if engine is not None:
            if table.legal_at == engine.version and type(action) is int and action in table.legal:
                engine.apply_unchecked(self._space.by_seat[engine.active][action])
            else:
                play_index(engine, action, self._space)  # checked: raises, naming the rule
            return
        if not 0 <= action < 256:
            raise ValueError(f"chance outcome {action} is not a byte (0 to 255)")
        self.seed_bytes.append(action)
        if len(self.seed_bytes) == SEED_BYTES:
            game = self.get_game()
            seed = int.from_bytes(bytes(self.seed_bytes), "big")
            self._table.engine = Game.new(game.players, seed, game.options)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        game = self.get_game()
        return format_action(action_to_engine(action, game.players, game.options, player))

    def is_terminal(self) -> bool:
        engine = self._table.engine
        return engine is not None and engine.is_over

    def returns(self) -> list[float]:
        engine = self._table.engine
        return [0.0] * self.get_game().players if engine is None else returns(engine)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> GoTownState:
        """A state that ``player_id`` cannot tell from this one: the cards it cannot see (other
        hands, the draw pile) dealt anew at random, hand sizes kept, and a fresh seed for the
        chance to come. Random from ``probability_sampler`` (a callable giving a number in
        [0, 1), as OpenSpiel passes). What the history revealed of other hands (a card a thief
        took from this player) is not kept: the sample is uniform over the unseen cards."""
        view = self.engine.view(player_id)
        rng = random.Random(int(probability_sampler() * 2**53))
        unseen = unseen_cards(view)
        rng.shuffle(unseen)
        hands: list[list[str] | None] = []
        taken = 0
        for seat, size in enumerate(view.hand_sizes):
            if seat == player_id:
                hands.append(None)
            else:
                hands.append(unseen[taken : taken + size])
                taken += size
        engine = Game.from_view(view, hands, unseen[taken:], seed=rng.getrandbits(62))
        state = GoTownState(self.get_game(), engine)
        state.prefix_counts = self.action_counts()
        public = self.prefix[player_id] + history_text(self.engine.events(None))
        state.prefix = [public] * len(hands)
        state.prefix[player_id] = self.prefix[player_id] + history_text(
            self.engine.events(player_id)
        )
        return state

    def action_counts(self) -> np.ndarray:
        """How many actions of each type (:data:`~gotown.engine.ACTION_TYPES`) each seat has
        played (public, R22)."""
        counts = self.prefix_counts.copy()
        if self.is_dealt:
            for event in self.engine.events(None):
                if event.type == "action":
                    assert event.action is not None and event.seat is not None
                    counts[event.seat, _TYPE_INDEX[event.action.type]] += 1
        return counts

    def information_history(self, player: int) -> str:
        return self.prefix[player] + history_text(self.engine.events(player))

    def __str__(self) -> str:
        engine = self._table.engine
        if engine is None:
            return f"dealing: seed bytes {self.seed_bytes}"
        position = engine.to_position()
        hands = " / ".join(" ".join(hand) for hand in position["hands"])
        return f"{view_text(engine.view(None))} hands {hands} draw {' '.join(position['draw'])}"


def unseen_cards(view: View) -> list[str]:
    """The cards ``view``'s seat cannot see (other hands and the draw pile), in kind order."""
    left = list(COPIES)
    index = {code: kind for kind, code in enumerate(CODES)}
    seen = list(view.hand or ()) + list(view.discard)
    seen += [code for tower in view.towers for floor in tower for code in floor]
    seen += ["milkshake"] * sum(view.milkshakes) + ["donut-truck"] * view.donut
    for code in seen:
        left[index[code]] -= 1
    return [code for kind, code in enumerate(CODES) for _ in range(left[kind])]


def view_text(view: View) -> str:
    """A view in one line: everything it shows, the events aside."""
    towers = " | ".join(" ".join("+".join(f) for f in tower) or "-" for tower in view.towers)
    parts = [
        f"turn {view.turn} active {view.active}",
        f"towers {towers}",
        f"milkshakes {' '.join(map(str, view.milkshakes))}",
        f"donut {int(view.donut)}",
        f"hands {' '.join(map(str, view.hand_sizes))}",
        f"draw {view.draw_size}",
        f"discard {' '.join(view.discard) or '-'}",
    ]
    if view.hand is not None:
        parts.insert(0, f"seat {view.seat} hand {' '.join(view.hand) or '-'}")
    if view.over:
        parts.append(f"over winner {view.winner}")
    return "; ".join(parts)


def history_text(events: list[Event]) -> str:
    """Events as short text, one per ';' (a card a seat may not see stays hidden: None)."""
    out = []
    for event in events:
        kind = event.type
        if kind == "action":
            assert event.action is not None
            out.append(f"{event.seat}:{format_action(event.action)};")
        elif kind == "draw":
            out.append(f"d{event.seat}{event.card or ''};")
        elif kind == "stolen":
            out.append(f"s{event.seat}{event.victim}{event.card or ''};")
        elif kind == "turn":
            out.append(f"t{event.seat}{'x' if event.extra else ''};")
        elif kind == "milkshake-turn":
            out.append(f"m{event.seat}{event.count};")
        elif kind == "reshuffle":
            out.append(f"r{event.count};")
        else:
            out.append(f"e{event.winner};")
    return "".join(out)


class GoTownObserver:
    """OpenSpiel's observer: one flat tensor with named views, and a string.

    The observation is :func:`gotown.rl.encode_view` of the player's view; for the public
    observer (``private_info`` NONE) its hand is left out. The information state
    (``perfect_recall``) adds ``history``: per relative seat, how many actions of each type it
    played. The information state *string* is perfect recall (the view and every event as the
    player saw it); the tensor summarises the history in those counts.
    """

    def __init__(self, players: int, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observer of every player's private cards is not supported (R22)")
        self.players = players
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        pieces = [(name, shape) for name, _, shape in observation_layout(players)]
        if self.perfect_recall:
            pieces.append(("history", (players, len(ACTION_TYPES))))
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for name, shape in pieces:
            count = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + count].reshape(shape)
            start += count
        self._observation_size = size - (players * len(ACTION_TYPES) if self.perfect_recall else 0)

    def set_from(self, state: GoTownState, player: int) -> None:
        if not state.is_dealt:
            self.tensor[:] = 0
            return
        engine = state.engine
        self.tensor[: self._observation_size] = encode_view(engine.copy(history=False).view(player))
        if not self.private:
            self.dict["hand"][:] = 0
        if self.perfect_recall:  # relative seats, as the rest
            self.dict["history"][:] = np.roll(state.action_counts(), -player, axis=0)

    def string_from(self, state: GoTownState, player: int) -> str:
        if not state.is_dealt:
            return f"p{player} dealing"  # the seed is nobody's to see
        engine = state.engine
        view = engine.copy(history=False).view(player if self.private else None)
        text = f"p{player} " + view_text(view)
        if self.perfect_recall:
            text += " | " + state.information_history(player)
        return text


_TYPE_INDEX = {kind: index for index, kind in enumerate(ACTION_TYPES)}


pyspiel.register_game(game_type(), GoTownGame)
