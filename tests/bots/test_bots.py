"""The bots: the interface the web table uses, legality, reproducibility and no peeking."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gotown.bots as bots
import gotown.bots.hints as hint_budget
from gotown.bots import (
    HARD_ITERATIONS,
    HARD_WORK,
    LEVELS,
    hint,
    make_bot,
)
from gotown.bots.base import Bot
from gotown.bots.ismcts import FROZEN_ROUNDS, ITERATION_WORK, SearchBot
from gotown.bots.rules import policy_action
from gotown.bots.sampling import Sampler, draw_pile_caps, known_hands, unseen_counts
from gotown.engine import COPIES, Action, Game, View, parse_action

from .helpers import OPTION_SETS, random_position, small_search

positions = st.builds(
    random_position,
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 200),
    options=st.sampled_from(OPTION_SETS),
)


def test_levels_are_the_published_names() -> None:
    assert LEVELS == ("random", "easy", "medium", "hard", "expert")
    for level in LEVELS:
        assert isinstance(make_bot(level, seed=1), Bot)


def test_unknown_level_is_a_value_error_naming_the_levels() -> None:
    with pytest.raises(ValueError, match="random, easy, medium, hard, expert"):
        make_bot("grandmaster", seed=1)


def test_a_bot_refuses_the_public_view() -> None:
    game = Game.new(players=2, seed=3)
    for level in ("easy", "hard"):
        with pytest.raises(ValueError):
            make_bot(level, 1).choose(game.public_view(), game.legal_actions())


@settings(max_examples=60)
@given(game=positions, seed=st.integers(0, 2**32))
def test_rule_bots_only_return_legal_actions(game: Game, seed: int) -> None:
    seat = game.active
    view, legal = game.view(seat), game.legal_actions()
    for level in ("random", "easy", "medium"):
        assert game.is_legal(make_bot(level, seed).choose(view, legal))


@settings(max_examples=25)
@given(game=positions, seed=st.integers(0, 2**32))
def test_search_bots_only_return_legal_actions(game: Game, seed: int) -> None:
    view, legal = game.view(game.active), game.legal_actions()
    assert game.is_legal(small_search("hard", seed).choose(view, legal))


def test_the_real_hard_and_expert_levels_return_legal_actions() -> None:
    game = random_position(3, seed=11, steps=40, options={})
    view, legal = game.view(game.active), game.legal_actions()
    for level in ("hard", "expert"):
        assert game.is_legal(make_bot(level, 5).choose(view, legal))


@settings(max_examples=40)
@given(game=positions)
def test_determinisations_agree_with_the_view(game: Game) -> None:
    """Every sample holds the 54 cards, shows the seat the same public facts and hand, and
    puts each card the seat saw stolen from it in the thief's hand (while it is known)."""
    seat = (game.active + 1) % game.players
    view = game.view(seat)
    known = known_hands(view)
    rng = random.Random(0)
    for other in range(game.players):
        for kind, count in enumerate(known[other]):
            if other != seat:  # what the seat believes is true
                assert game.hands[other][kind] >= count
    for sampler in (Sampler(view), Sampler(view, infer=True, belief=1.0)):
        for _ in range(3):
            sample = sampler.sample(rng)
            assert sample.card_count() == sum(COPIES)
            seen = sample.view(seat)
            for name in ("hand", "hand_sizes", "towers", "milkshakes", "donut", "discard",
                         "draw_size", "active", "turn"):  # fmt: skip
                assert getattr(seen, name) == getattr(view, name), name
            for other in range(game.players):  # and every sample honours it
                for kind, count in enumerate(known[other]):
                    assert sample.hands[other][kind] >= count


def test_a_card_stolen_from_the_bot_is_in_the_thiefs_hand_in_every_sample() -> None:
    # Seat 1 plays a thief on seat 0; seat 0 then knows the card seat 1 holds.
    for seed in range(200):
        game = Game.new(players=2, seed=seed, options={"first_player": 1})
        if Action.thief(0) in game.legal_actions():
            break
    else:
        raise AssertionError("no seed in 0..199 deals seat 1 a playable thief")
    game.apply(Action.thief(0))
    view = game.view(0)
    stolen = [e.card for e in view.events if e.type == "stolen"]
    assert len(stolen) == 1 and stolen[0] is not None
    sampler = Sampler(view)
    rng = random.Random(1)
    from gotown.engine.cards import KIND_OF

    for _ in range(20):
        assert sampler.sample(rng).hands[1][KIND_OF[stolen[0]]] >= 1
    assert sum(unseen_counts(view)) == view.draw_size + view.hand_sizes[1]


def _shuffle_hidden(game: Game, seat: int, seed: int) -> Game:
    """The same game with the cards ``seat`` cannot see (other hands, draw pile) dealt anew."""
    other = game.copy()
    rng = random.Random(seed)
    pool = [k for s in range(game.players) if s != seat for k, n in enumerate(game.hands[s])
            for _ in range(n)] + list(game.draw)  # fmt: skip
    rng.shuffle(pool)
    for s in range(game.players):
        if s == seat:
            continue
        hand = [0] * len(game.hands[s])
        for _ in range(game.hand_sizes[s]):
            hand[pool.pop()] += 1
        other.hands[s] = hand
    other.draw = pool
    return other


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_never_sees_hidden_cards(players: int) -> None:
    """Dealing the hidden cards anew leaves the view, and so the bot's choices and estimated
    win probabilities (its whole choice distribution for a seed), unchanged."""
    game = random_position(players, seed=100 + players, steps=30, options={})
    seat = game.active
    changed = _shuffle_hidden(game, seat, seed=7)
    assert any(changed.hands[s] != game.hands[s] for s in range(players) if s != seat) or (
        changed.draw != game.draw
    )
    view, other_view = game.view(seat), changed.view(seat)
    assert view == other_view
    legal = game.legal_actions()
    assert changed.legal_actions() == legal
    for seed in range(3):
        for infer in (False, True):  # the opponent model reads the view only, too
            first = small_search("hard", seed, infer).evaluate(view, legal)
            second = small_search("hard", seed, infer).evaluate(other_view, legal)
            assert first == second


@pytest.mark.parametrize("players", [2, 3, 4])
def test_nothing_reachable_from_a_view_holds_the_game_or_a_hidden_hand(
    players: int, reachable: Callable[..., Iterator[object]]
) -> None:
    """What a bot gets (the view, the legal actions) leads to no game object and to no other
    seat's hand: equal views, as above, cannot hide a way to the hidden cards."""
    game = random_position(players, seed=40 + players, steps=30, options={})
    seat = game.active
    hidden = [game.hands[s] for s in range(players) if s != seat] + [game.draw]
    walked = list(reachable(game.view(seat), game.legal_actions()))
    assert not any(isinstance(item, Game) for item in walked)
    assert not any(item is cards for item in walked for cards in hidden)
    assert len(walked) > 50  # (the walk did reach the view's contents)


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_game(level: str) -> None:
    def play(seed: int) -> tuple[Action, ...]:
        game = Game.new(players=3, seed=seed, options={"turn_limit": 12})
        seats = [
            small_search(level, seed + s) if level in ("hard", "expert")
            else make_bot(level, seed + s)
            for s in range(3)
        ]  # fmt: skip
        while not game.is_over:
            game.apply(seats[game.active].choose(game.view(game.active), game.legal_actions()))
        return game.actions

    assert play(4) == play(4)


#: Seat 0 holds 8 cards that can do nothing and so draws no more (R7b); seat 1 could build.
#: (From a hard-medium tournament game that ran into the turn limit.)
FROZEN = {
    "players": 2,
    "active": 1,
    "turn": 28,
    "hands": [
        ["3", "3", "5", "5", "8", "jackhammer", "jackhammer", "jackhammer"],
        ["?", "2", "4", "5", "dog", "bone", "bone", "donut-truck"],
    ],
    "towers": [[["1", "8"]], [["2", "7", "dog"]]],
    "milkshakes": [0, 0],
    "donut": False,
    "discard": ["thief", "milkshake", "milkshake", "thief", "?", "6", "milkshake", "6", "3",
                "dog", "wrecking-ball"],
    "draw": ["1", "4", "?", "8", "6", "thief", "super-thief", "dog", "2", "1", "3", "6", "2",
             "1", "5", "7", "4", "8", "4", "?", "7", "7"],
    "seed": 3,
}  # fmt: skip


def test_frozen_turns_counts_the_turns_that_were_only_ended() -> None:
    game = Game.from_position(FROZEN)
    assert game.view(1).frozen_turns == 0
    for turns in range(1, 4):
        game.apply(Action.end_turn())
        assert game.view(game.active).frozen_turns == turns
    game = Game.new(players=2, seed=1)
    game.apply(Action.end_turn())  # the next seat draws: the game changed
    assert game.view(game.active).frozen_turns == 0


def test_a_search_player_does_not_wait_for_ever_in_a_frozen_game() -> None:
    game = Game.from_position(FROZEN)
    # its samples give seat 0 cards that would act: waiting looks best to the search
    assert make_bot("hard", 3).choose(game.view(1), game.legal_actions()) == Action.end_turn()
    for _ in range(FROZEN_ROUNDS * game.players):
        game.apply(Action.end_turn())
    assert game.active == 1
    chosen = make_bot("hard", 3).choose(game.view(1), game.legal_actions())
    assert chosen != Action.end_turn() and chosen in game.legal_actions()


def test_the_hint_does_not_advise_waiting_in_a_frozen_game() -> None:
    game = Game.from_position(FROZEN)
    for _ in range(FROZEN_ROUNDS * game.players):
        game.apply(Action.end_turn())
    legal = game.legal_actions()
    ranked = hint(game.view(1), legal, seed=3, top=len(legal))
    assert sorted(map(str, (a for a, _ in ranked))) == sorted(map(str, legal))
    assert ranked[-1][0] == Action.end_turn()
    assert all(0.0 <= p <= 1.0 for _, p in ranked)


def test_make_bot_hard_is_reproducible() -> None:
    game = random_position(2, seed=21, steps=25, options={})
    view, legal = game.view(game.active), game.legal_actions()
    assert make_bot("hard", 9).choose(view, legal) == make_bot("hard", 9).choose(view, legal)


def test_a_work_budget_ends_the_search_once_spent() -> None:
    game = random_position(2, seed=21, steps=25, options={})
    view, legal = game.view(game.active), game.legal_actions()

    def iterations(work: int | dict[int, int | None] | None, cap: int = 10_000) -> int:
        bot = SearchBot("probe", 5, iterations=cap, rollout_turns=None, work=work)
        return bot.search(view, legal).visits  # every iteration visits the root once

    small, large = iterations(2_000), iterations(8_000)
    # every iteration costs its deal and descent (ITERATION_WORK) and at least one action
    assert 1 <= small <= 2_000 // (ITERATION_WORK + 1) + 1
    assert small < large < 10_000
    assert iterations(None, cap=40) == iterations(10**9, cap=40) == 40
    # a budget per player count uses the entry for the view's
    assert iterations({2: 2_000, 3: 8_000, 4: 1}) == small
    # an entry of None leaves that player count to the iterations alone
    assert iterations({2: None, 3: 1}, cap=40) == 40
    with pytest.raises(ValueError, match="no work budget for 2 players"):
        iterations({3: 2_000})


def test_hard_caps_its_work_with_four_players_only() -> None:
    # four players: 1,000 iterations early in a game are about 100,000 units, twice the cap
    # (and hard has 2,500)
    game = random_position(4, seed=8, steps=6, options={})
    view, legal = game.view(game.active), game.legal_actions()
    hard = make_bot("hard", 3)
    assert isinstance(hard, SearchBot)
    assert HARD_WORK[4] is not None and 1 < hard.search(view, legal).visits < HARD_ITERATIONS
    assert HARD_WORK[2] is None  # two players: the iterations alone, untouched
    game = random_position(2, seed=8, steps=6, options={})
    view, legal = game.view(game.active), game.legal_actions()
    assert hard.search(view, legal).visits == HARD_ITERATIONS


@pytest.mark.parametrize("budget", [{"iterations": 0}, {"work": 0}, {"work": {2: 10, 3: -1}}])
def test_a_search_without_budget_is_refused(budget: dict[str, object]) -> None:
    options: dict[str, object] = {"iterations": 10} | budget
    with pytest.raises(ValueError, match="at least one iteration and one unit of work"):
        SearchBot("probe", 1, **options)  # type: ignore[arg-type]


def test_hint_gives_the_top_actions_with_probabilities() -> None:
    game = random_position(2, seed=5, steps=20, options={})
    view, legal = game.view(game.active), game.legal_actions()
    hints = hint(view, legal, seed=3, top=3)
    assert 1 <= len(hints) <= min(3, len(legal))
    assert all(action in legal and 0.0 <= p <= 1.0 for action, p in hints)
    assert len({a for a, _ in hints}) == len(hints)


def test_a_hint_cut_short_gives_only_the_actions_it_estimated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load the hint's think time ends its search early: an action it never tried has
    no estimate, and is not shown as a 0% chance."""
    monkeypatch.setattr(hint_budget, "HINT_SECONDS", 0.0)  # one iteration: one action tried
    game = random_position(2, seed=5, steps=20, options={})
    view, legal = game.view(game.active), game.legal_actions()
    assert len(legal) >= 3
    hints = hint(view, legal, seed=3, top=3)
    assert len(hints) == 1 and hints[0][0] in legal
    # The search bot's own ranking still lists every legal action.
    full = SearchBot("probe", 3, iterations=1, rollout_turns=None).evaluate(view, legal)
    assert sorted(a for a, _ in full) == sorted(legal)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_search_ranks_first_the_move_it_plays(players: int) -> None:
    """Best first: the estimates come ranked as the search chooses (most visited first), so the
    hint's first action is the move the strong bot itself would play."""
    checked = 0
    for seed in range(40):
        game = random_position(players, seed=seed, steps=25, options={})
        if game.is_over or len(game.legal_actions()) < 3:
            continue
        view, legal = game.view(game.active), game.legal_actions()
        ranked = small_search("hard", seed).evaluate(view, legal)
        assert sorted(a for a, _ in ranked) == sorted(legal)
        assert ranked[0][0] == small_search("hard", seed).choose(view, legal)
        checked += 1
    assert checked >= 8


def test_hint_takes_a_winning_build_at_once_with_certainty() -> None:
    position = {
        "players": 2,
        "options": {"win_floors": 4},
        "active": 0,
        "turn": 9,
        "hands": [["1", "8", "2"], ["3"]],
        "towers": [[["2", "7"], ["3", "6"], ["4", "5"]], []],
        "milkshakes": [0, 0],
        "donut": False,
        "discard": [],
        "draw": [],
        "seed": 1,
    }
    game = Game.from_position(position)
    view, legal = game.view(0), game.legal_actions()
    (best, chance), *_ = hint(view, legal, seed=1)
    assert best == Action.build("1", "8") and chance == 1.0
    assert make_bot("hard", 1).choose(view, legal) == best


def test_the_public_interface_is_exported() -> None:
    for name in ("LEVELS", "make_bot", "hint", "Bot"):
        assert hasattr(bots, name)
    assert isinstance(Game.new(players=2, seed=1).view(0), View)


def test_search_refuses_a_view_whose_seat_is_not_to_act() -> None:
    game = Game.new(players=3, seed=2)
    other = (game.active + 1) % 3
    with pytest.raises(ValueError, match="turn"):
        hint(game.view(other), game.legal_actions(), seed=1)


def _position(
    hand: list[str],
    towers: list[list[list[str]]] | None = None,
    milkshakes: tuple[int, int] = (0, 0),
) -> Game:
    """A 2-player position, seat 0 to act holding ``hand``; the opponent holds 6 cards and the
    rest of the deck is the draw pile (the engine deals it when a position names none)."""
    return Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [hand, ["4", "4", "5", "6", "6", "8"]],
            "towers": towers or [[], []],
            "milkshakes": list(milkshakes),
        }
    )


def _medium_choice(game: Game) -> Action:
    return make_bot("medium", seed=5).choose(game.view(0), game.legal_actions())


def test_medium_keeps_a_pair_whose_floor_would_probably_be_stolen() -> None:
    # Nearly every 2 and 7 is unseen and the opponent holds 6 cards: building 2+7 with no dog
    # would most likely hand the floor over (R11), so medium keeps the pair.
    game = _position(["2", "7", "1", "1", "3"])
    assert game.is_legal(parse_action("2+7"))
    assert _medium_choice(game) == parse_action("end")


@pytest.mark.parametrize(
    ("why", "hand", "towers", "milkshakes"),
    [
        ("a dog in hand guards it (R12)", ["2", "7", "1", "3", "dog"], None, (0, 0)),
        ("a full hand draws nothing (R7b)", ["2", "7", "1", "1", "1", "3", "3", "3"], None, (0, 0)),
        ("the opponent's next turn is a milkshake turn (R7a)", ["2", "7", "1", "3"], None, (0, 1)),
        (
            "the floor wins at once (R20)",
            ["2", "7", "1", "3"],
            [[["1", "8"], ["1", "8"], ["3", "6"], ["4", "5"]], []],
            (0, 0),
        ),
    ],
)
def test_medium_builds_the_pair_when_the_floor_is_safe_or_must_be_built(
    why: str, hand: list[str], towers: list[list[list[str]]] | None, milkshakes: tuple[int, int]
) -> None:
    game = _position(hand, towers, milkshakes=milkshakes)
    assert _medium_choice(game) == parse_action("2+7"), why


@pytest.mark.parametrize(("players", "expected"), [(3, "end"), (4, "2+7")])
def test_medium_holds_pairs_with_up_to_three_players_and_builds_at_once_with_four(
    players: int, expected: str
) -> None:
    # The same hand and the same opponents' hands: with two opponents medium keeps the 2+7
    # pair (an opponent would probably steal its floor, R11); with three it builds it, since
    # some opponent nearly always can (benchmarks/holding_by_players.py).
    others = [["4", "4", "5", "6", "6", "8"], ["1", "3", "4", "5", "6", "8"], ["1", "4", "5", "6"]]
    game = Game.from_position(
        {
            "players": players,
            "active": 0,
            "hands": [["2", "7", "1", "1", "3"], *others[: players - 1]],
            "towers": [[] for _ in range(players)],
            "milkshakes": [0] * players,
        }
    )
    assert game.is_legal(parse_action("2+7"))
    assert _medium_choice(game) == parse_action(expected)


def _medium_game_until(condition: Callable[[Game], bool], seed: int) -> Game | None:
    """A 2-player game between medium players, stopped at the first position where
    ``condition`` holds (None if the game ends first)."""
    game = Game.new(players=2, seed=seed)
    players = [make_bot("medium", seed * 2 + s) for s in range(2)]
    while not game.is_over and game.turn < 200:
        if condition(game):
            return game
        seat = game.active
        game.apply(players[seat].choose(game.view(seat), game.legal_actions()))
    return None


def _faced_an_open_floor(game: Game) -> bool:
    """Seat 0 is to act, and seat 1 ended its last turn facing seat 0's unguarded top floor."""
    if game.active != 0:
        return False
    view = game.view(0)
    ends = [i for i, e in enumerate(view.events)
            if e.type == "action" and e.seat == 1 and e.action == Action.end_turn()]  # fmt: skip
    if not ends or any(e.type == "action" and e.seat == 0 for e in view.events[ends[-1] :]):
        return False
    tower = view.towers[0]
    return bool(tower) and "dog" not in tower[-1]


def test_inference_reads_a_floor_left_standing_as_a_missing_stealer() -> None:
    # Seat 1 ended its turn with seat 0's top floor open: a sensible player holding either of
    # its values would have stolen it (R11). So, at belief 1, every sample deals seat 1 those
    # values only among the cards it received since (its refill draws).
    from gotown.bots.sampling import inferred_leftovers
    from gotown.engine.cards import KIND_OF

    for seed in range(100):
        game = _medium_game_until(_faced_an_open_floor, seed)
        if game is not None:
            break
    else:
        raise AssertionError("no medium game in 100 left an open floor standing")
    view = game.view(0)
    top = [KIND_OF[c] for c in view.towers[0][-1] if c != "?"]
    values = {top[0], 9 - top[0]}
    absent, since = inferred_leftovers(view)
    assert values <= absent[1]
    assert {KIND_OF["thief"], KIND_OF["donut-truck"]} <= absent[1]
    assert since[1] < view.hand_sizes[1]
    sampler = Sampler(view, infer=True, belief=1.0)
    plain = Sampler(view)
    rng = random.Random(4)
    inferred = [sum(sampler.sample(rng).hands[1][k] for k in values) for _ in range(200)]
    uniform = [sum(plain.sample(rng).hands[1][k] for k in values) for _ in range(200)]
    assert max(inferred) <= since[1]
    assert sum(inferred) < sum(uniform)


def test_inference_is_exact_for_medium_players() -> None:
    # medium never ends a turn holding what the model says a sensible player would have
    # played: its real hands never hold more such cards than it has received since.
    from gotown.bots.sampling import inferred_leftovers

    checked = 0
    for seed in range(20):
        game = Game.new(players=2 + seed % 3, seed=seed)
        players = [make_bot("medium", seed * 4 + s) for s in range(game.players)]
        while not game.is_over and game.turn < 150:
            seat = game.active
            view = game.view(seat)
            absent, since = inferred_leftovers(view)
            for other in range(game.players):
                if other != seat and absent[other]:
                    checked += 1
                    held = sum(game.hands[other][k] for k in absent[other])
                    assert held <= since[other], (seed, game.turn, other)
            game.apply(players[seat].choose(view, game.legal_actions()))
    assert checked > 500


def test_nothing_is_inferred_without_the_history() -> None:
    # A game set up from a position has no events that lead to its towers.
    from gotown.bots.sampling import inferred_leftovers

    game = _position(["2", "7", "1"], towers=[[["3", "6"]], [["1", "8"]]])
    absent, since = inferred_leftovers(game.view(0))
    assert absent == [set(), set()] and since == [0, 0]


def _true_caps(game: Game, seat: int) -> list[int] | None:
    """What the draw pile may hold for ``seat``: the real pile plus the cards the others drew
    since the last reshuffle (which ``seat`` did not see); None before any reshuffle."""
    from gotown.engine.cards import KIND_OF, KINDS

    events = [game.events(s) for s in range(game.players)]
    last = max((i for i, e in enumerate(events[0]) if e.type == "reshuffle"), default=None)
    if last is None:
        return None
    caps = [0] * KINDS
    for kind in game.draw:
        caps[kind] += 1
    for other in range(game.players):
        if other != seat:
            for event in events[other][last:]:
                if event.type == "draw" and event.seat == other and event.card is not None:
                    caps[KIND_OF[event.card]] += 1
    return caps


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS)
def test_after_a_reshuffle_samples_deal_the_draw_pile_from_the_reshuffled_cards(
    players: int, options: dict[str, object]
) -> None:
    """R9, R22: the discard pile a reshuffle turns into the draw pile was public, so every
    determinisation deals the draw pile from it (less what was drawn since). The caps read
    from the view equal the truth at every third step after a reshuffle, in games where
    every seat plays as the rollouts do but seldom builds or steals (so that the piles run
    out)."""
    checked = 0
    for seed in range(300):
        if checked >= 30:
            break
        game = Game.new(players=players, seed=seed, options={**options, "turn_limit": 300})
        rng = random.Random(seed)
        step = in_game = 0
        reshuffled = False
        while not game.is_over and in_game < 15:
            legal = game.legal_actions()
            if rng.random() < 0.7:
                legal = tuple(a for a in legal if a.type not in ("build", "steal"))
            pile = len(game.draw)
            game.apply(policy_action(game, game.active, legal, 5, rng, 0.3))
            reshuffled = reshuffled or len(game.draw) > pile
            step += 1
            if step % (3 if reshuffled else 10) or game.is_over:
                continue
            seat = (game.active + 1) % players
            view = game.view(seat)
            truth = _true_caps(game, seat)
            assert draw_pile_caps(view) == truth, (seed, step)
            if truth is None or not view.draw_size:
                continue
            checked += 1
            in_game += 1
            sample = Sampler(view).sample(rng)
            drawn = [0] * len(truth)
            for kind in sample.draw:
                drawn[kind] += 1
            assert all(d <= t for d, t in zip(drawn, truth, strict=True)), (seed, step)
    assert checked >= 30  # the games did reshuffle


def test_a_card_that_was_in_a_hand_at_the_reshuffle_is_never_dealt_to_the_draw_pile() -> None:
    """Right after a reshuffle, a card the seat cannot see and that was not in the shuffled
    discard pile can only be in an opponent's hand (R9): no sample puts it in the draw pile."""
    for seed in range(200):
        game = Game.new(players=2, seed=seed, options={"turn_limit": 300})
        rng = random.Random(seed)
        reshuffled = False
        while not game.is_over and not reshuffled:
            legal = game.legal_actions()
            if rng.random() < 0.7:  # seldom build or steal, so that the draw pile runs out
                legal = tuple(a for a in legal if a.type not in ("build", "steal"))
            pile = len(game.draw)
            game.apply(policy_action(game, game.active, legal, 5, rng, 0.3))
            reshuffled = len(game.draw) > pile
        if game.is_over or not game.draw:
            continue
        seat = game.active
        view = game.view(seat)
        caps = _true_caps(game, seat)
        assert caps is not None
        unseen = unseen_counts(view)
        never = [k for k in range(len(caps)) if unseen[k] and not caps[k]]
        if not never:
            continue
        sampler = Sampler(view)
        for i in range(50):
            pile = set(sampler.sample(random.Random(i)).draw)
            assert not pile & set(never), (seed, never)
        return
    raise AssertionError("no game of 200 reshuffled with an unseen card out of the pile")


def test_search_plays_a_position_with_fewer_cards_than_the_deck() -> None:
    """FORMAT.md lets a position hold fewer than the 54 cards; the view does not say which are
    out of the game, so the samples leave out the unseen cards they do not deal."""
    game = Game.from_position(
        {"players": 2, "active": 0, "hands": [["1", "8", "thief"], ["3"]],
         "towers": [[], []], "draw": ["4", "5"]}
    )  # fmt: skip
    view, legal = game.view(0), game.legal_actions()
    sample = Sampler(view).sample(random.Random(0))
    assert sample.hand_sizes == game.hand_sizes and len(sample.draw) == len(game.draw)
    assert sample.card_count() == game.card_count()
    assert small_search("probe", 1).choose(view, legal) in legal
    assert {a for a, _ in hint(view, legal, seed=1, top=len(legal))} == set(legal)


def test_every_move_that_wins_at_once_is_certain_in_the_hint() -> None:
    game = Game.from_position(
        {"players": 2, "active": 0, "seed": 1, "options": {"win_floors": 4},
         "hands": [["1", "8", "2", "7"], ["3", "4", "5"]],
         "towers": [[["1", "8"], ["2", "7"], ["3", "6"]], [["4", "5"]]],
         "discard": [], "draw": ["6", "6", "5"]}
    )  # fmt: skip
    ranked = dict(hint(game.view(0), game.legal_actions(), seed=0, top=5))
    builds = [a for a in game.legal_actions() if a.type == "build"]
    assert len(builds) == 2 and all(ranked[a] == 1.0 for a in builds)
    # Ending the turn instead is searched, not written off: the opponent can steal the top
    # floor with its 3 (R11), yet two pairs stay in hand to win with on the next turn.
    assert 0.5 < ranked[Action.end_turn()] < 1.0
    assert list(ranked.values()) == sorted(ranked.values(), reverse=True)


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_rule_bots_never_guard_an_opponents_floor_nor_bone_their_own_dog(level: str) -> None:
    """Under R23 dog_placement and bone_targets "any", a dog on an opponent's floor or a bone
    on one's own dog only helps the opponent: a sensible player keeps the card."""
    for options in ({"dog_placement": "any"}, {"bone_targets": "any"}):
        for seed in range(60):
            game = random_position(2, seed, 30, options)
            me = game.active
            choice = make_bot(level, seed).choose(game.view(me), game.legal_actions())
            if choice.type == "dog":
                assert choice.target in (None, me), (options, seed, choice)
            if choice.type == "bone":
                assert choice.target != me, (options, seed, choice)
