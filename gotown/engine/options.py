"""Game options (R23)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import InvalidOptionsError


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
        def bad(name: str, allowed: str) -> InvalidOptionsError:
            value = getattr(self, name)
            return InvalidOptionsError(f"option {name}: {value!r} is not {allowed} (R23)")

        if type(self.win_floors) is not int or self.win_floors not in (4, 5):
            raise bad("win_floors", "4 or 5")
        fp = self.first_player
        if fp != "random" and (type(fp) is not int or not 0 <= fp <= 3):
            raise bad("first_player", '"random" or a seat number')
        if self.dog_placement not in ("own", "any"):
            raise bad("dog_placement", '"own" or "any"')
        if self.dogs_per_floor not in (1, "unlimited") or type(self.dogs_per_floor) not in (
            int,
            str,
        ):
            raise bad("dogs_per_floor", '1 or "unlimited"')
        if self.bone_targets not in ("opponents", "any"):
            raise bad("bone_targets", '"opponents" or "any"')
        if self.milkshake_stacking not in ("forbid", "merge", "stack"):
            raise bad("milkshake_stacking", '"forbid", "merge" or "stack"')
        if type(self.milkshake_blocks_refill) is not bool:
            raise bad("milkshake_blocks_refill", "true or false")
        tl = self.turn_limit
        if tl is not None and (type(tl) is not int or tl < 1):
            raise bad("turn_limit", "null or a positive number of turns")

    @classmethod
    def from_json(cls, data: Any) -> Options:
        """Options from a JSON object; missing keys take their defaults."""
        if data is None:
            return cls()
        if isinstance(data, Options):
            return data
        if not isinstance(data, dict):
            raise InvalidOptionsError(f"options must be an object, not {data!r} (R23)")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidOptionsError(f"unknown option {unknown[0]!r} (R23 has {sorted(known)})")
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def unlimited_dogs(self) -> bool:
        return self.dogs_per_floor == "unlimited"
