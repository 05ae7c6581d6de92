"""Bot specs: a level and, optionally, changes to its settings, to measure other budgets or
settings without a new level (``gotown tournament hard:iterations=2000 medium``).

A spec is ``LEVEL:NAME=VALUE[,NAME=VALUE...]`` (:func:`parse_bot_spec`, :func:`bot_from_spec`;
the allowed names and values are :data:`BOT_PARAMETERS`). A plain level is a spec too, and
gives the same bot as :func:`~gotown.bots.levels.make_bot`. A level added with
:func:`~gotown.bots.registry.register_level` checks and reads its spec itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .base import Bot
from .levels import LEVELS, level_defaults, new_bot
from .registry import extra_levels


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
    registered = extra_levels()
    if level in registered:
        registered[level].check(spec)
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


def canonical_spec(spec: str) -> str:
    """The one way of writing the bot that ``spec`` gives (checked as by
    :func:`parse_bot_spec`): its parameters in the order of :data:`BOT_PARAMETERS`, numbers
    written plainly, and those equal to the level's own value left out. So
    ``hard:epsilon=0.2,iterations=2000`` and ``hard:iterations=2000,epsilon=0.20`` are both
    ``hard:iterations=2000,epsilon=0.2``, and ``medium:noise=0`` is ``medium``."""
    level, params = parse_bot_spec(spec)
    if level in extra_levels():
        return spec
    defaults = level_defaults(level)
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
    gives the bot :func:`~gotown.bots.levels.make_bot` gives. Its name is the spec."""
    level, params = parse_bot_spec(spec)
    registered = extra_levels()
    if level in registered:
        return registered[level].make(spec, seed)
    return new_bot(level, spec, seed, params)
