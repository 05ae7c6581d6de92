"""Bot specs (:mod:`gotown.bots.spec`): a level with parameters, ``LEVEL:NAME=VALUE,...``."""

from __future__ import annotations

import pytest

import gotown.bots as bots
from gotown.bots import EXPERT_ITERATIONS, EXPERT_WORK, HARD_ITERATIONS, HARD_WORK, make_bot
from gotown.bots.base import Bot
from gotown.bots.ismcts import ITERATION_WORK, SearchBot
from gotown.engine import Action, Game

from .helpers import random_position


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("hard", ("hard", {})),
        ("hard:iterations=2000", ("hard", {"iterations": 2000})),
        ("expert:seconds=2.5", ("expert", {"seconds": 2.5})),
        ("hard:exploration=0.5,epsilon=0.2", ("hard", {"exploration": 0.5, "epsilon": 0.2})),
        ("hard:work=500,rollout_turns=4", ("hard", {"work": 500, "rollout_turns": 4})),
        ("expert:infer=1", ("expert", {"infer": 1})),
        ("easy:noise=0", ("easy", {"noise": 0.0})),
        ("medium:noise=1", ("medium", {"noise": 1.0})),
    ],
)
def test_a_bot_spec_reads_as_a_level_and_its_parameters(
    spec: str, parsed: tuple[str, dict[str, float]]
) -> None:
    assert bots.parse_bot_spec(spec) == parsed
    assert isinstance(bots.bot_from_spec(spec, seed=1), Bot)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("grandmaster", ["unknown bot level 'grandmaster'", "random, easy, medium, hard, expert"]),
        ("Hard:iterations=5", ["unknown bot level 'Hard'"]),
        ("hard:", ["no parameter after ':'", "LEVEL:NAME=VALUE[,NAME=VALUE...]"]),
        ("hard:iterations", ["'iterations' is not NAME=VALUE"]),
        ("hard:iterations=", ["'iterations=' is not NAME=VALUE"]),
        ("hard:=5", ["'=5' is not NAME=VALUE"]),
        ("hard:iterations=5,", ["'' is not NAME=VALUE"]),
        ("hard:iters=5", ["unknown parameter 'iters'", "hard takes iterations, work, seconds"]),
        ("expert:x=1", ["expert takes iterations, work, seconds, exploration, epsilon, rollout_"]),
        ("easy:iterations=5", ["unknown parameter 'iterations'", "easy takes noise"]),
        ("random:noise=0", ["unknown parameter 'noise'", "random takes no parameters"]),
        ("hard:iterations=5,iterations=6", ["iterations is given twice"]),
        ("hard:iterations=0", ["iterations must be a whole number from 1, not '0'"]),
        ("hard:iterations=2.5", ["iterations must be a whole number from 1, not '2.5'"]),
        ("hard:work=0", ["work must be a whole number from 1"]),
        ("hard:rollout_turns=-1", ["rollout_turns must be a whole number from 1"]),
        ("expert:infer=2", ["infer must be a whole number from 0 to 1, not '2'"]),
        ("expert:seconds=0", ["seconds must be a number above 0, not '0'"]),
        ("expert:seconds=nan", ["seconds must be a number above 0, not 'nan'"]),
        ("hard:exploration=-0.5", ["exploration must be a number from 0, not '-0.5'"]),
        ("hard:epsilon=1.5", ["epsilon must be a number from 0 to 1, not '1.5'"]),
        ("easy:noise=lots", ["noise must be a number from 0 to 1, not 'lots'"]),
    ],
)
def test_a_bad_bot_spec_is_a_value_error_naming_spec_and_parameter(
    spec: str, words: list[str]
) -> None:
    for parse in (bots.parse_bot_spec, lambda spec: bots.bot_from_spec(spec, seed=1)):
        with pytest.raises(ValueError) as error:
            parse(spec)
        message = str(error.value)
        assert message.startswith(f"bot {spec!r}: "), message
        for word in words:
            assert word in message, (word, message)


def test_a_plain_level_as_a_spec_is_the_bot_make_bot_gives() -> None:
    def played(bot: Bot) -> list[Action]:
        game = random_position(2, seed=4, steps=12, options={})
        actions = []
        while not game.is_over and game.turn < 40:
            actions.append(bot.choose(game.view(game.active), game.legal_actions()))
            game.apply(actions[-1])
        return actions

    for level in ("random", "easy", "medium"):
        assert played(bots.bot_from_spec(level, 7)) == played(make_bot(level, 7)), level
    budgets = {"hard": (HARD_ITERATIONS, HARD_WORK), "expert": (EXPERT_ITERATIONS, EXPERT_WORK)}
    for level, budget in budgets.items():
        bot = bots.bot_from_spec(level, 7)
        assert isinstance(bot, SearchBot) and (bot.iterations, bot.work) == budget


def test_search_parameters_set_the_budget_and_leave_the_rest_at_the_level() -> None:
    game = random_position(2, seed=21, steps=25, options={})
    view, legal = game.view(game.active), game.legal_actions()
    few = bots.bot_from_spec("hard:iterations=40", 3)
    assert isinstance(few, SearchBot) and few.search(view, legal).visits == 40
    # work replaces the per-player-count cap: it binds with two players too (HARD_WORK[2] is None)
    capped = bots.bot_from_spec("hard:work=2000", 3)
    assert isinstance(capped, SearchBot)
    assert 1 <= capped.search(view, legal).visits <= 2000 // (ITERATION_WORK + 1) + 1
    timed = bots.bot_from_spec("expert:seconds=0.05,iterations=1000000", 3)
    assert isinstance(timed, SearchBot) and timed.search(view, legal).visits < 1_000_000
    tuned = bots.bot_from_spec("hard:exploration=0.5,epsilon=0.2,rollout_turns=3", 3)
    assert isinstance(tuned, SearchBot)
    assert (tuned.exploration, tuned.epsilon, tuned.rollout_turns) == (0.5, 0.2, 3)
    assert (tuned.iterations, tuned.work, tuned.seconds) == (HARD_ITERATIONS, HARD_WORK, None)
    assert tuned.choose(view, legal) in legal
    assert tuned.infer is False
    modelled = bots.bot_from_spec("expert:infer=1", 3)
    assert isinstance(modelled, SearchBot) and modelled.infer is True
    assert modelled.choose(view, legal) in legal


def test_noise_is_the_share_of_random_moves_of_a_rule_bot() -> None:
    # A build that wins at once (R20): a rule bot without noise always plays it, one with
    # noise 1 plays a random legal action.
    position = {
        "players": 2, "options": {"win_floors": 4}, "active": 0, "turn": 9,
        "hands": [["1", "8", "2", "3", "dog", "milkshake"], ["3"]],
        "towers": [[["2", "7"], ["3", "6"], ["4", "5"]], []],
        "draw": ["4"], "seed": 1,
    }  # fmt: skip
    game = Game.from_position(position)
    view, legal = game.view(0), game.legal_actions()
    win = Action.build("1", "8")
    for level in ("easy", "medium"):
        calm = {bots.bot_from_spec(f"{level}:noise=0", s).choose(view, legal) for s in range(30)}
        wild = {bots.bot_from_spec(f"{level}:noise=1", s).choose(view, legal) for s in range(30)}
        assert calm == {win}, level
        assert len(wild) > 3 and wild <= set(legal), level


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("hard:epsilon=0.2,iterations=2000", "hard:iterations=2000,epsilon=0.2"),
        ("hard:iterations=2000,epsilon=0.20", "hard:iterations=2000,epsilon=0.2"),
        ("hard:iterations=2500", "hard"),  # the level's own budget
        ("hard:exploration=0.7,seconds=2.5", "hard:seconds=2.5"),
        ("expert:iterations=1000", "expert:iterations=1000"),
        ("expert:infer=0", "expert"),
        ("expert:infer=1,iterations=4000", "expert:infer=1"),
        ("medium:noise=0", "medium"),
        ("easy:noise=0.1", "easy"),
        ("easy:noise=.05", "easy:noise=0.05"),
        ("hard:work=5000,iterations=0020", "hard:iterations=20,work=5000"),
        ("random", "random"),
        # Numbers read back exactly: no exponent for a large whole number, every digit a
        # fraction needs.
        ("hard:iterations=1000000000000000", "hard:iterations=1000000000000000"),
        ("hard:exploration=0.12345678901234567", "hard:exploration=0.12345678901234566"),
    ],
)
def test_a_bot_spec_has_one_canonical_writing(written: str, canonical: str) -> None:
    assert bots.canonical_spec(written) == canonical
    assert bots.canonical_spec(canonical) == canonical
    level, params = bots.parse_bot_spec(written)
    canonical_level, canonical_params = bots.parse_bot_spec(canonical)
    assert canonical_level == level
    assert canonical_params == {k: v for k, v in params.items() if k in canonical_params}


@pytest.mark.parametrize(
    "spec",
    ["hard:iterations=+20", "hard:iterations=2_0", "hard:iterations=\uff12\uff10",
     "easy:noise=\u0660.\u0661", "hard:iterations= 20", "hard:epsilon=1e400"],
)  # fmt: skip
def test_a_bot_spec_number_is_plain_ascii(spec: str) -> None:
    # Python's int() and float() read all of these; each would be one more name for a value.
    with pytest.raises(ValueError, match="must be"):
        bots.parse_bot_spec(spec)
