"""What the commands share: a finite-number option type and ``--option NAME=VALUE`` parsing."""

from __future__ import annotations

import json
import math

import click


class FiniteFloatRange(click.FloatRange):
    """A number of at least ``min``, and a number: ``nan`` and ``inf`` are refused (click's
    range compares them, and nothing is ever smaller than or equal to nan)."""

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        number = float(super().convert(value, param, ctx))
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def parse_rule_options(texts: tuple[str, ...]) -> dict[str, object]:
    """The R23 options of ``--option NAME=VALUE`` (VALUE as JSON, or a bare word), not yet
    checked against R23; ``click.BadParameter`` for text that is not NAME=VALUE or a name
    given twice."""
    given: dict[str, object] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        if not (name and equals):
            raise click.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="--option")
        if name in given:
            raise click.BadParameter(f"option {name} is given twice", param_hint="--option")
        try:
            given[name] = json.loads(value)
        except json.JSONDecodeError:
            given[name] = value  # a bare word: dog_placement=any
        except RecursionError:
            raise click.BadParameter(f"option {name}: its JSON is nested too deeply",
                                     param_hint="--option") from None  # fmt: skip
    return given
