"""Computer players for GoTown, built on :mod:`gotown.engine` only.

Every bot gets a seat's :class:`~gotown.engine.View` (which holds no hidden card) and the legal
actions, and returns one of them; it is seeded and reproducible.

>>> bot = make_bot("hard", seed=1)
>>> action = bot.choose(game.view(game.active), game.legal_actions())   # doctest: +SKIP

Levels, weakest first:

- ``random``: a uniformly random legal action.
- ``easy``: builds and steals at once, keeps a dog on its top floor, plays every other card as
  soon as it can; overlooks things (a random action) one time in ten.
- ``medium``: the rules of a sensible player (:mod:`gotown.bots.rules`): a pair kept in hand
  while its floor would probably be stolen (card counting), until a dog can guard it, the hand
  is full or no opponent acts before its next turn; steals hurting the leader first, cards
  played in a careful order (thief first, joker floors last, the dog on the new top floor),
  attacks aimed at the player closest to winning.
- ``hard``: SO-ISMCTS (Cowling, Powley & Whitehouse 2012; :mod:`gotown.bots.ismcts`) with
  :data:`HARD_ITERATIONS` iterations per decision, and with three or four players at most
  :data:`HARD_WORK` units of work (so that a decision takes about as long as with two).
- ``expert``: the same search with :data:`EXPERT_ITERATIONS` iterations and
  :data:`EXPERT_WORK`.

A package above the bots may add a level (``ppo``, a trained policy, from :mod:`gotown.rl`)
with :func:`register_level`; the bots import only the engine, so the composing layer (the CLI)
registers it. Such a level reads its own parameters: ``ppo:path=FILE``.

A *bot spec* names a level and, optionally, changes its settings, to measure other budgets or
settings without a new level (``gotown tournament hard:iterations=2000 medium``):
``LEVEL:NAME=VALUE[,NAME=VALUE...]`` (:func:`parse_bot_spec`, :func:`bot_from_spec`; the
allowed names and values are :data:`BOT_PARAMETERS`). A plain level is a spec too, and gives
the same bot as :func:`make_bot`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gotown.engine import Action, View

from . import _build  # noqa: F401  (first: where the search's modules load from)
from . import ismcts as _ismcts
from .base import Bot, RandomBot, hashed_seed
from .ismcts import SearchBot
from .rules import RuleBot

#: Whether this process runs the bots' search compiled by mypyc (see :mod:`gotown.bots._build`).
COMPILED: bool = not str(_ismcts.__file__).endswith(".py")

#: The levels a player can pick by name, weakest first.
LEVELS = ("random", "easy", "medium", "hard", "expert")

#: How often ``easy`` overlooks things (plays a random action).
EASY_NOISE = 0.1
#: ``hard``'s budget: what a median decision affords in 150 ms with the engine and the search
#: compiled by mypyc, which run them 2.4x as fast as their sources (on the positions of
#: ``benchmarks/engine_builds.py``, 2,500 iterations took a median 140 ms of CPU time there,
#: 1,000 took 132 ms on the sources). It was 1,000 before the search was compiled
#: (``docs/research/2026-11-28-compiled-search.md``).
HARD_ITERATIONS = 2500
#: ``expert``'s budget: 1.6 times ``hard``'s, a median 0.2 s a decision compiled. More does not
#: pay: against ``medium`` 57.0% at 1,000, 61.6% at 2,500, 64.3% at 4,000 and at 10,000
#: iterations, and 10,000 won no more of the same deals than 4,000, against ``medium`` or
#: ``hard``, for 2.5 times the time (``docs/research/2026-11-29-expert-budget.md``).
EXPERT_ITERATIONS = 4000
#: Work caps (simulated actions, :mod:`gotown.bots.ismcts`) by player count. With two players
#: the iterations alone bound a decision (1,000 of them are about 37,500 units); with four,
#: 1,000 iterations are about 100,000 units, each about 1.6 times as dear (measured 10 µs
#: against 6.4), so 50,000 units keep a four-player decision near a two-player one.
HARD_WORK: dict[int, int | None] = {2: None, 3: 50_000, 4: 50_000}
EXPERT_WORK: dict[int, int | None] = {2: None, 3: 200_000, 4: 200_000}
#: The hint's budget: a web request, whose cost multiplies under load, so ``expert``'s
#: 4,000 iterations (~0.2 s compiled), and never more than HINT_SECONDS.
HINT_ITERATIONS = 4000
HINT_SECONDS = 0.8


@dataclass(frozen=True)
class ExtraLevel:
    """A level added by :func:`register_level`: ``check(spec)`` raises ``ValueError`` naming
    what is wrong with a spec, ``make(spec, seed)`` returns its bot."""

    check: Callable[[str], None]
    make: Callable[[str, int], Bot]


#: The levels added with :func:`register_level`, by name.
EXTRA_LEVELS: dict[str, ExtraLevel] = {}


def register_level(
    level: str, check: Callable[[str], None], make: Callable[[str, int], Bot]
) -> None:
    """Add ``level`` to the specs that :func:`parse_bot_spec`, :func:`canonical_spec` and
    :func:`bot_from_spec` accept (again: the same name replaces its functions)."""
    if level in LEVELS or not re.fullmatch(r"[a-z][a-z0-9-]*", level):
        raise ValueError(f"{level!r} cannot be added as a bot level")
    EXTRA_LEVELS[level] = ExtraLevel(check, make)


def make_bot(level: str, seed: int) -> Bot:
    """A new bot of ``level`` (one of :data:`LEVELS`), reproducible from ``seed``."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
    return _new_bot(level, level, seed, {})


@dataclass(frozen=True)
class BotParameter:
    """What a bot spec may set a parameter to: a whole number or any number, from ``least``
    (above it when ``above``) up to ``most``."""

    whole: bool
    least: float
    most: float | None = None
    above: bool = False

    def allowed(self) -> str:
        """The values allowed, in words (for error messages and help)."""
        if self.whole:
            upto = "" if self.most is None else f" to {self.most:g}"
            return f"a whole number from {self.least:g}{upto}"
        if self.most is not None:
            return f"a number from {self.least:g} to {self.most:g}"
        return f"a number {'above' if self.above else 'from'} {self.least:g}"

    def parse(self, text: str) -> int | float | None:
        """The value that ``text`` gives, or None when it is not one allowed. Plain ASCII
        digits only (``2000``, ``0.25``, ``.5``, ``1e-3``): Python would also read ``+20``,
        ``2_0`` or other scripts' digits, which would make one value many specs."""
        if not (_WHOLE if self.whole else _NUMBER).fullmatch(text):
            return None
        value = int(text) if self.whole else float(text)
        if not math.isfinite(value) or value < self.least or (self.above and value == self.least):
            return None
        if self.most is not None and value > self.most:
            return None
        return value


_WHOLE = re.compile(r"[0-9]+")
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

_SEARCH_PARAMETERS = {
    "iterations": BotParameter(whole=True, least=1),
    "work": BotParameter(whole=True, least=1),  # one cap, whatever the player count
    "seconds": BotParameter(whole=False, least=0, above=True),
    "exploration": BotParameter(whole=False, least=0),
    "epsilon": BotParameter(whole=False, least=0, most=1),
    "rollout_turns": BotParameter(whole=True, least=1),
    "infer": BotParameter(whole=True, least=0, most=1),  # 1: the sensible-opponent deals
}
_RULE_PARAMETERS = {"noise": BotParameter(whole=False, least=0, most=1)}
#: The parameters a bot spec may set, by level (the ``SearchBot`` and ``RuleBot`` arguments of
#: the same names; ``work`` replaces the per-player-count cap, ``seconds`` makes the choices
#: depend on the machine's speed). A parameter left out keeps the level's own value.
BOT_PARAMETERS: dict[str, dict[str, BotParameter]] = {
    "random": {},
    "easy": _RULE_PARAMETERS,
    "medium": _RULE_PARAMETERS,
    "hard": _SEARCH_PARAMETERS,
    "expert": _SEARCH_PARAMETERS,
}
_SPEC_FORM = "LEVEL or LEVEL:NAME=VALUE[,NAME=VALUE...]"


def parse_bot_spec(spec: str) -> tuple[str, dict[str, int | float]]:
    """The level and the parameters of a bot spec such as ``hard:iterations=2000,epsilon=0.2``.

    Raises ``ValueError`` naming the spec and what is wrong: an unknown level or parameter, a
    value not allowed (and what is), a parameter given twice, text not of the form
    ``LEVEL:NAME=VALUE[,NAME=VALUE...]``.
    """
    level, colon, rest = spec.partition(":")
    if level in EXTRA_LEVELS:
        EXTRA_LEVELS[level].check(spec)
        return level, {}  # (its parameters are its own: bot_from_spec passes it the spec)
    if level not in LEVELS:
        raise ValueError(
            f"bot {spec!r}: unknown bot level {level!r}; the levels are {', '.join(LEVELS)}"
        )
    allowed = BOT_PARAMETERS[level]
    params: dict[str, int | float] = {}
    if not colon:
        return level, params
    if not rest:
        raise ValueError(f"bot {spec!r}: no parameter after ':' (write {_SPEC_FORM})")
    for item in rest.split(","):
        name, equals, text = item.partition("=")
        if not (name and equals and text):
            raise ValueError(f"bot {spec!r}: {item!r} is not NAME=VALUE (write {_SPEC_FORM})")
        if name not in allowed:
            takes = f"takes {', '.join(allowed)}" if allowed else "takes no parameters"
            raise ValueError(f"bot {spec!r}: unknown parameter {name!r}; {level} {takes}")
        if name in params:
            raise ValueError(f"bot {spec!r}: {name} is given twice")
        value = allowed[name].parse(text)
        if value is None:
            raise ValueError(
                f"bot {spec!r}: {name} must be {allowed[name].allowed()}, not {text!r}"
            )
        params[name] = value
    return level, params


def _level_defaults(level: str) -> dict[str, int | float | None]:
    """The values a level gives the parameters a spec may set (None: no number, e.g. no time
    cap; ``work`` is left out: its default is one cap per player count)."""
    if level in ("easy", "medium"):
        return {"noise": EASY_NOISE if level == "easy" else 0.0}
    if level in ("hard", "expert"):
        return {
            "iterations": HARD_ITERATIONS if level == "hard" else EXPERT_ITERATIONS,
            "seconds": None,
            "exploration": _ismcts.EXPLORATION,
            "epsilon": _ismcts.EPSILON,
            "rollout_turns": None,
            "infer": 0,
        }
    return {}


def canonical_spec(spec: str) -> str:
    """The one way of writing the bot that ``spec`` gives (checked as by
    :func:`parse_bot_spec`): its parameters in the order of :data:`BOT_PARAMETERS`, numbers
    written plainly, and those equal to the level's own value left out. So
    ``hard:epsilon=0.2,iterations=2000`` and ``hard:iterations=2000,epsilon=0.20`` are both
    ``hard:iterations=2000,epsilon=0.2``, and ``medium:noise=0`` is ``medium``."""
    level, params = parse_bot_spec(spec)
    if level in EXTRA_LEVELS:
        return spec
    defaults = _level_defaults(level)
    parts = [
        f"{name}={_plain(value)}"
        for name in BOT_PARAMETERS[level]
        if name in params and (value := params[name]) != defaults.get(name, _NO_DEFAULT)
    ]
    return f"{level}:{','.join(parts)}" if parts else level


def _plain(value: int | float) -> str:
    """A number as it reads back exactly: whole numbers in full, fractions in at most 15
    significant digits when those give the same number (``0.2``, not ``0.2000000000000000111``),
    else in as many as it takes."""
    if isinstance(value, int):
        return str(value)
    short = f"{value:.15g}"
    return short if float(short) == value else repr(value)


_NO_DEFAULT = object()


def bot_from_spec(spec: str, seed: int) -> Bot:
    """A new bot from a spec (:func:`parse_bot_spec`), reproducible from ``seed``; a plain level
    gives the bot :func:`make_bot` gives. Its name is the spec."""
    level, params = parse_bot_spec(spec)
    if level in EXTRA_LEVELS:
        return EXTRA_LEVELS[level].make(spec, seed)
    return _new_bot(level, spec, seed, params)


def _new_bot(level: str, name: str, seed: int, params: Mapping[str, int | float]) -> Bot:
    """A bot of ``level`` with the parameters given (checked) and the level's own otherwise."""
    if level == "random":
        return RandomBot(seed)
    if level in ("easy", "medium"):
        noise = params.get("noise", EASY_NOISE if level == "easy" else 0.0)
        return RuleBot(name, seed, careful=level == "medium", noise=noise)
    search: dict[str, Any] = {
        "iterations": HARD_ITERATIONS if level == "hard" else EXPERT_ITERATIONS,
        "work": HARD_WORK if level == "hard" else EXPERT_WORK,
        "rollout_turns": None,
        **params,
    }
    search["infer"] = bool(search.get("infer", 0))  # a spec's 0 or 1; the search takes a bool
    return SearchBot(name, seed, **search)


def hint(
    view: View, legal_actions: Sequence[Action], seed: int, top: int = 3
) -> list[tuple[Action, float]]:
    """The strong bot's ``top`` actions for this position, best first, each with its
    estimated probability that the view's seat goes on to win after playing it.

    The search runs :data:`HINT_ITERATIONS` iterations or :data:`HINT_SECONDS`, whichever
    comes first (so under load it answers in time, with a less certain estimate, and perhaps
    fewer than ``top`` actions: one the search never tried has no estimate to give).
    """
    if not legal_actions:
        return []
    bot = SearchBot(
        "hint", seed, iterations=HINT_ITERATIONS, seconds=HINT_SECONDS, rollout_turns=None
    )
    return bot.evaluate(view, legal_actions, unsearched=False)[:top]


__all__ = [
    "BOT_PARAMETERS",
    "COMPILED",
    "EASY_NOISE",
    "EXPERT_ITERATIONS",
    "EXPERT_WORK",
    "EXTRA_LEVELS",
    "HARD_ITERATIONS",
    "HARD_WORK",
    "LEVELS",
    "Bot",
    "BotParameter",
    "ExtraLevel",
    "RandomBot",
    "RuleBot",
    "SearchBot",
    "bot_from_spec",
    "canonical_spec",
    "hashed_seed",
    "hint",
    "make_bot",
    "parse_bot_spec",
    "register_level",
]
