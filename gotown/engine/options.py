"""Game options (R23)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from .errors import InvalidOptionsError

#: The values each listed R23 option takes (its default is Options'). The one statement of
#: them: :class:`Options` checks against it, and the server's ``/api/meta`` and the page offer
#: them from it. ``turn_limit`` is not listed: it is null or a number of turns from 1 up.
OPTION_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "win_floors": (4, 5),
    "first_player": ("random", 0, 1, 2, 3),
    "dog_placement": ("own", "any"),
    "dogs_per_floor": (1, "unlimited"),
    "bone_targets": ("opponents", "any"),
    "milkshake_stacking": ("forbid", "merge", "stack"),
    "milkshake_blocks_refill": (True, False),
}


def _is_choice(value: Any, choices: tuple[Any, ...]) -> bool:
    # By type as well as value: True is not the number 1, nor 1.0 the seat 1.
    return any(type(value) is type(choice) and value == choice for choice in choices)


def _check(name: str, value: Any) -> None:
    """Raise InvalidOptionsError when ``value`` is not one the option ``name`` takes (R23)."""
    choices = OPTION_CHOICES.get(name)
    if choices is not None:
        if not _is_choice(value, choices):
            raise InvalidOptionsError(f"option {name}: {value!r} is not {_say(choices)} (R23)")
    elif name == "turn_limit" and value is not None and (type(value) is not int or value < 1):
        raise InvalidOptionsError(
            f"option turn_limit: {value!r} is not null or a positive number of turns (R23)"
        )


def _say(choices: tuple[Any, ...]) -> str:
    words = [
        f'"{c}"' if isinstance(c, str) else str(c).lower() if isinstance(c, bool) else str(c)
        for c in choices
    ]
    return ", ".join(words[:-1]) + " or " + words[-1]


@dataclass(frozen=True, slots=True)
class Options:
    """The R23 options; the defaults are the faithful reading of the rulebook."""

    win_floors: int = 5
    first_player: str | int = "random"
    dog_placement: str = "own"
    dogs_per_floor: int | str = 1
    bone_targets: str = "opponents"
    milkshake_stacking: str = "forbid"
    milkshake_blocks_refill: bool = True
    turn_limit: int | None = None

    def __post_init__(self) -> None:
        for name in _NAMES:
            _check(name, getattr(self, name))

    @classmethod
    def from_json(cls, data: Any) -> Options:
        """Options from a JSON object; missing keys take their defaults."""
        if data is None:
            return cls()
        if isinstance(data, Options):
            return data
        if not isinstance(data, dict):
            raise InvalidOptionsError(f"options must be an object, not {data!r} (R23)")
        known = set(_NAMES)
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidOptionsError(f"unknown option {unknown[0]!r} (R23 has {sorted(known)})")
        for name, value in data.items():  # (before the constructor: compiled, it checks types)
            _check(name, value)
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _NAMES}

    def __reduce__(self) -> tuple[type[Options], tuple[Any, ...]]:
        """Pickled and copied through the constructor: the compiled engine (mypyc) cannot set
        the fields of a frozen instance one by one, as pickle otherwise would."""
        return Options, tuple(getattr(self, name) for name in _NAMES)

    @property
    def unlimited_dogs(self) -> bool:
        return self.dogs_per_floor == "unlimited"


#: The option names, in their order (JSON keys).
_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in fields(Options))
